#include <stdio.h>

/* A typical wrong answer: int overflows on the large hidden test case. */
int main(void)
{
    int a, b;
    scanf("%d %d", &a, &b);
    int sum = a + b;
    printf("%d\n", sum);
    return 0;
}
