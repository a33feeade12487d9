/* Which layer denies /proc/PID/mem of an outside, non-landlocked process?
 * Usage: llprobe PID [landlock]  (run as root, with all capabilities) */
#define _GNU_SOURCE
#include <linux/landlock.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	char p[64];
	int fd;

	if (argc > 2) {
		struct landlock_ruleset_attr ra = {.handled_access_fs = LANDLOCK_ACCESS_FS_MAKE_DIR};
		int rs = syscall(SYS_landlock_create_ruleset, &ra, sizeof(ra), 0);
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		if (rs < 0 || syscall(SYS_landlock_restrict_self, rs, 0) < 0)
			perror("landlock");
	}
	snprintf(p, sizeof(p), "/proc/%s/maps", argv[1]);
	fd = open(p, O_RDONLY);
	printf("maps: %s\n", fd < 0 ? strerror(errno) : "OPEN");
	snprintf(p, sizeof(p), "/proc/%s/mem", argv[1]);
	fd = open(p, O_RDONLY);
	printf("mem: %s\n", fd < 0 ? strerror(errno) : "OPEN");
	return 0;
}
