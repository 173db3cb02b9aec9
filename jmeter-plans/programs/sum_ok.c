#include <stdio.h>

/* Sum of two integers: reads a and b, prints a + b. */
int main(void)
{
    long long a, b;
    if (scanf("%lld %lld", &a, &b) != 2) {
        fprintf(stderr, "expected two integers\n");
        return 1;
    }
    printf("%lld\n", a + b);
    return 0;
}
