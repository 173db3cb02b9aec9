#include <stdio.h>
#include <string.h>

/* Reverse a word of at most 100 characters. */
static void reverse(char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n / 2; i++) {
        char t = s[i];
        s[i] = s[n - 1 - i];
        s[n - 1 - i] = t;
    }
}

int main(void)
{
    char word[101];
    if (scanf("%100s", word) != 1)
        return 1;
    reverse(word);
    printf("%s\n", word);
    return 0;
}
