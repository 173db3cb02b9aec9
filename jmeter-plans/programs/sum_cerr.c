#include <stdio.h>

/* Does not compile: missing semicolon and an undeclared variable. */
int main(void)
{
    long a, b;
    scanf("%ld %ld", &a, &b)
    printf("%ld\n", a + c);
    return 0;
}
