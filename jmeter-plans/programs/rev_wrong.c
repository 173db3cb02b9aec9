#include <stdio.h>
#include <string.h>

/* Off by one: drops the first character of the word. */
int main(void)
{
    char word[101];
    if (scanf("%100s", word) != 1)
        return 1;
    for (int i = (int)strlen(word) - 1; i > 0; i--)
        putchar(word[i]);
    putchar('\n');
    return 0;
}
