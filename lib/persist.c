/* persist.c - the persistence places in a user's HOME (ws/persist.h). */
#include "ws/persist.h"

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ws/path.h"

/*
 * What runs later with the user's rights, without the user asking for
 * that file: at login or in the desktop session (shell start-up files,
 * systemd user units, XDG autostart, environment.d, D-Bus services), in
 * every shell (PATH's directories in HOME), or when an everyday program
 * starts (git's, ssh's, editors', tmux's, package managers' and cloud
 * tools' configuration, which can name programs to run).  Not a complete
 * list of every program's configuration: the ones an agent can be
 * expected to reach for.
 */
const char *const ws_home_persist[] = {
	/* Shells. */
	".profile", ".bash_profile", ".bash_login", ".bash_logout", ".bashrc",
	".bash_aliases", ".bashrc.d/", ".zshenv", ".zprofile", ".zshrc",
	".zlogin", ".zlogout", ".oh-my-zsh/", ".cshrc", ".tcshrc", ".login",
	".logout", ".kshrc", ".mkshrc", ".inputrc", ".config/fish/",
	".config/zsh/",
	/* The session. */
	".pam_environment", ".xprofile", ".xinitrc", ".xsession",
	".xsessionrc", ".config/environment.d/", ".config/systemd/",
	".local/share/systemd/", ".config/autostart/",
	".local/share/applications/", ".local/share/dbus-1/",
	".config/plasma-workspace/",
	/* Directories on PATH. */
	".local/bin/", "bin/", ".cargo/bin/", "go/bin/",
	/* Programs whose configuration names programs to run. */
	".gitconfig", ".config/git/", ".ssh/", ".gnupg/", ".vimrc", ".vim/",
	".config/nvim/", ".emacs", ".emacs.d/", ".config/emacs/",
	".tmux.conf", ".config/tmux/", ".config/direnv/", ".npmrc",
	".yarnrc", ".cargo/config", ".cargo/config.toml", ".config/pip/",
	".pip/", ".docker/", ".kube/", ".aws/", ".Rprofile",
	".config/wstools/",
};
const size_t ws_home_persist_n =
	sizeof(ws_home_persist) / sizeof(ws_home_persist[0]);

char *
ws_passwd_home(void)
{
	struct passwd pwd, *pw = NULL;
	long max = sysconf(_SC_GETPW_R_SIZE_MAX);
	size_t len = max > 0 ? (size_t)max : 16384;
	char *buf = NULL, *home = NULL;
	int rc;

	/* getpwuid()'s static buffer is shared by the threads of wstools
	 * mcp; a buffer of our own, grown while it is too small. */
	for (;;) {
		char *nb = realloc(buf, len);

		if (nb == NULL)
			goto out;
		buf = nb;
		rc = getpwuid_r(getuid(), &pwd, buf, len, &pw);
		if (rc != ERANGE || len >= (size_t)1 << 20)
			break;
		len *= 2;
	}
	if (rc == 0 && pw != NULL && pw->pw_dir != NULL)
		home = strdup(pw->pw_dir);
out:
	free(buf);
	return home;
}

char *
ws_home_real(void)
{
	const char *home = getenv("HOME");
	char buf[PATH_MAX], *pwhome = NULL;

	/* As ws_grants_check() takes it: a HOME the environment cannot be
	 * trusted with is the password file's. */
	if (home == NULL || home[0] != '/' || strcmp(home, "/") == 0)
		home = pwhome = ws_passwd_home();
	if (home == NULL || home[0] != '/' || strcmp(home, "/") == 0 ||
	    realpath(home, buf) == NULL || strcmp(buf, "/") == 0) {
		free(pwhome);
		return NULL;
	}
	free(pwhome);
	return strdup(buf);
}

/* HOME/place (without a trailing slash) into buf; false if too long. */
static bool
ws__place(const char *home, const char *place, char *buf, size_t len)
{
	size_t pl = strlen(place);
	int n;

	if (pl > 0 && place[pl - 1] == '/')
		pl--;
	n = snprintf(buf, len, "%s/%.*s", home, (int)pl, place);
	return n > 0 && (size_t)n < len;
}

const char *
ws_home_persist_in(const char *home, const char *p)
{
	char buf[PATH_MAX];

	if (home == NULL || !ws_path_within(home, p, NULL))
		return NULL;
	for (size_t i = 0; i < ws_home_persist_n; i++)
		if (ws__place(home, ws_home_persist[i], buf, sizeof(buf)) &&
		    ws_path_within(buf, p, NULL))
			return ws_home_persist[i];
	return NULL;
}

const char *
ws_home_persist_reached(const char *home, const char *dir)
{
	char buf[PATH_MAX];

	if (home == NULL)
		return NULL;
	for (size_t i = 0; i < ws_home_persist_n; i++)
		if (ws__place(home, ws_home_persist[i], buf, sizeof(buf)) &&
		    (ws_path_within(dir, buf, NULL) || ws_path_within(buf, dir, NULL)))
			return ws_home_persist[i];
	return NULL;
}
