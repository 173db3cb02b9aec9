#include <stdio.h>

/* Does not compile: strlen is used as a variable, and a brace is missing. */
int main(void)
{
    char word[101];
    scanf("%100s", word);
    for (int i = strlen - 1; i >= 0; i--) {
        putchar(word[i]);
    putchar('\n');
    return 0;
}
