#include <stdio.h>

int
main(void)
{
	puts("hello from the example workspace");
	return 0;
}
