/*
 * main.c - the main() of each tool's binary, compiled once per tool with
 * -DWS_CMD=ws_cmd_<tool>: the tool itself is a function in cmd/<tool>.c
 * (see cmds.h), which wstools mcp also calls in-process.
 */
#include "cmds.h"

#if defined(WS_MAIN_DETACH_ENVIRON) || defined(WS_MAIN_EXIT_SOON)
#include "ws/run.h"
#endif

#ifdef WS_MAIN_NSS
#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ws/persist.h"

/*
 * A binary linked dynamically (meson.build: not static_pie) asks the name
 * service for a home the password file does not hold (LDAP, sssd): see
 * ws_passwd_home_nss.  getpwuid()'s static buffer is shared by the
 * threads of wstools mcp; a buffer of our own, grown while too small.
 */
static char *
main_nss_home(uid_t uid)
{
	struct passwd pwd, *pw = NULL;
	long max = sysconf(_SC_GETPW_R_SIZE_MAX);
	size_t len = max > 0 ? (size_t)max : 16384;
	char *buf = NULL, *home = NULL;
	int rc;

	for (;;) {
		char *nb = realloc(buf, len);

		if (nb == NULL)
			goto out;
		buf = nb;
		rc = getpwuid_r(uid, &pwd, buf, len, &pw);
		if (rc != ERANGE || len >= (size_t)1 << 20)
			break;
		len *= 2;
	}
	if (rc == 0 && pw != NULL && pw->pw_dir != NULL && pw->pw_dir[0] != '\0')
		home = strdup(pw->pw_dir);
out:
	free(buf);
	return home;
}
#endif

int
main(int argc, char **argv)
{
#ifdef WS_MAIN_NSS
	ws_passwd_home_nss = main_nss_home;
#endif
#ifdef WS_MAIN_DETACH_ENVIRON
	/*
	 * First, before any getenv() and before wstools mcp starts its
	 * reading thread: the programs that run commands (wsrun, and
	 * wstools for mcp's run_command) then start the namespace init in
	 * their own memory.  See ws_run_detach_environ().
	 */
	(void)ws_run_detach_environ();
#endif
#ifdef WS_MAIN_EXIT_SOON
	/* One call, then the end: no wait for the namespaces' teardown. */
	ws_run_exit_soon();
#endif
	return WS_CMD(argc, argv);
}
