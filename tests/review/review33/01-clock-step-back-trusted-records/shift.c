#define _GNU_SOURCE
#include <time.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
/* The wall clock read OFFSET seconds ahead (a clock that was wrong, later stepped back). */
int clock_gettime(clockid_t c, struct timespec *ts)
{
	long r = syscall(SYS_clock_gettime, c, ts);
	const char *o = getenv("WSR33_CLOCK_AHEAD");
	if (r == 0 && o != NULL && (c == CLOCK_REALTIME || c == CLOCK_REALTIME_COARSE))
		ts->tv_sec += atol(o);
	return (int)r;
}
