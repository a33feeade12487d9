/* persist.c - the persistence places in a user's HOME (ws/persist.h). */
#include "ws/persist.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ws/path.h"
#include "ws/workspace.h"

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

char *(*ws_passwd_home_nss)(uid_t uid);

/* The uid field: decimal digits only, within uid_t, not (uid_t)-1. */
static bool
ws__passwd_uid(const char *s, size_t n, uid_t *uid)
{
	unsigned long long v = 0;

	if (n == 0 || n > 10)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v >= (uid_t)-1)
		return false;
	*uid = (uid_t)v;
	return true;
}

char *
ws_passwd_parse_home(const char *text, size_t len, uid_t uid)
{
	const char *line = text, *end;

	if (text == NULL)
		return NULL;
	for (end = text + len; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *le = nl != NULL ? nl : end;
		/* Field i is [f[i], e[i]). */
		const char *f[7], *e[7];
		size_t nf = 1;
		uid_t u;

		f[0] = line;
		for (const char *c = line; c < le && nf <= 7; c++)
			if (*c == ':') {
				if (nf < 7) {
					e[nf - 1] = c;
					f[nf] = c + 1;
				}
				nf++;
			}
		if (nf == 7)
			e[6] = le;
		/* Skipped: an empty line, a comment, NIS compatibility
		 * entries (+name, -name: the name service's business, not
		 * this file's), a NUL in the line, not exactly seven
		 * fields, no name, a uid that is not one. */
		if (line == le || line[0] == '#' || line[0] == '+' ||
		    line[0] == '-' || memchr(line, '\0', (size_t)(le - line)) ||
		    nf != 7 || e[0] == f[0] ||
		    !ws__passwd_uid(f[2], (size_t)(e[2] - f[2]), &u) ||
		    u != uid) {
			if (nl == NULL)
				break;
			line = nl + 1;
			continue;
		}
		/* The first line that counts with the uid decides, as in
		 * glibc's files module: no home there is no home. */
		if (e[5] == f[5])
			return NULL;
		return strndup(f[5], (size_t)(e[5] - f[5]));
	}
	return NULL;
}

/* The password file's text, NUL-terminated, into *buf: its length, or -1. */
static ssize_t
ws__passwd_read(const char *path, char **buf)
{
	size_t cap = 0, n = 0;
	char *b = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;

	*buf = NULL;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > WS_PASSWD_MAX)
		goto fail;
	/* Room for one byte more than the size: the read that finds the
	 * end needs no larger buffer. */
	cap = (size_t)st.st_size + 2;
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap) {
			char *nb;

			/* It grew after the fstat: read on, within bounds. */
			if (cap > WS_PASSWD_MAX)
				goto fail;
			cap *= 2;
			if ((nb = realloc(b, cap)) == NULL)
				goto fail;
			b = nb;
		} else if (b == NULL && (b = malloc(cap)) == NULL) {
			goto fail;
		}
		r = read(fd, b + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	b[n] = '\0';
	*buf = b;
	return (ssize_t)n;
fail:
	free(b);
	close(fd);
	return -1;
}

char *
ws_passwd_file_home(const char *path, uid_t uid)
{
	char *text, *home;
	ssize_t n = ws__passwd_read(path, &text);

	if (n < 0)
		return NULL;
	home = ws_passwd_parse_home(text, (size_t)n, uid);
	free(text);
	return home;
}

char *
ws_passwd_home(void)
{
	uid_t uid = getuid();
	char *home = ws_passwd_file_home("/etc/passwd", uid);

	/* A user the file does not list (LDAP, sssd): the name service,
	 * in the binaries that can load its modules. */
	if (home == NULL && ws_passwd_home_nss != NULL)
		home = ws_passwd_home_nss(uid);
	return home;
}

/* home canonical into a malloc'd string, or NULL: none, or "/". */
static char *
ws__home_canon(const char *home)
{
	char buf[PATH_MAX];

	if (home == NULL || home[0] != '/' || realpath(home, buf) == NULL ||
	    strcmp(buf, "/") == 0)
		return NULL;
	return strdup(buf);
}

char *
ws_home_real(void)
{
	char *pwhome, *r = ws__home_canon(getenv("HOME"));

	/* As ws_grants_check() takes it: a HOME the environment cannot be
	 * trusted with ("//", one that does not exist) is the password
	 * file's. */
	if (r != NULL)
		return r;
	pwhome = ws_passwd_home();
	r = ws__home_canon(pwhome);
	free(pwhome);
	return r;
}

size_t
ws_homes(char *out[2])
{
	char *pwhome = ws_passwd_home();
	const char *h[2] = {getenv("HOME"), pwhome};
	struct stat st, first = {0};
	size_t n = 0;

	for (size_t i = 0; i < 2; i++) {
		/* ws__home_canon(): never "/", which holds everything. */
		char *c = ws__home_canon(h[i]);

		if (c == NULL || stat(c, &st) < 0 || !S_ISDIR(st.st_mode) ||
		    (n == 1 && st.st_dev == first.st_dev &&
		     st.st_ino == first.st_ino)) {
			free(c);
			continue;
		}
		first = st;
		out[n++] = c;
	}
	free(pwhome);
	return n;
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

/*
 * The first place under home that a link on its way makes another path
 * (stow's ~/.config -> dotfiles/config, review11) and that dir matches
 * there: with reach, dir is, holds or lies in its real path, or holds
 * a link on the way (a grant could re-point it); without, dir is or
 * lies in its real path.  NULL if none.  An lstat() per prefix of the
 * places up to the first missing one (shared prefixes looked at once),
 * a readlink() per component of a link's way.
 */
static const char *
ws__persist_resolved(const char *home, const char *dir, bool reach)
{
	struct ws_place_memo memo = {0};
	size_t hl = strlen(home);
	const char *hit = NULL;
	char lex[PATH_MAX], out[PATH_MAX];

	for (size_t i = 0; hit == NULL && i < ws_home_persist_n; i++) {
		char **e = NULL;
		size_t ne = 0;
		int r;

		if (!ws__place(home, ws_home_persist[i], lex, sizeof(lex)))
			continue;
		r = ws_home_place_resolve(lex, hl, out, sizeof(out), &e, &ne, &memo);
		if (r > 0 && (ws_path_within(out, dir, NULL) ||
			      (reach && ws_path_within(dir, out, NULL))))
			hit = ws_home_persist[i];
		for (size_t k = 0; k < ne; k++) {
			/* Home and what holds it are no place's own. */
			if (r > 0 && reach && hit == NULL &&
			    !ws_path_within(e[k], home, NULL) &&
			    ws_path_within(dir, e[k], NULL))
				hit = ws_home_persist[i];
			free(e[k]);
		}
		free(e);
	}
	ws_place_memo_free(&memo);
	return hit;
}

const char *
ws_home_persist_reaches(const char *home, const char *dir)
{
	const char *p;

	if (home == NULL)
		return NULL;
	if ((p = ws_home_persist_reached(home, dir)) != NULL)
		return p;
	return ws__persist_resolved(home, dir, true);
}

/*
 * The last anchor's answer through a link, kept: wsrun asks it for the
 * plan and the virtual view, and the view once more for each name a
 * command made at its top, and each answer costs some sixty lstat().
 * The links on the places' ways are the user's (no tool and no command
 * may change them: ws/guard.h, the guarded spellings), so an answer
 * holds for a process's life.
 */
static struct {
	char *home, *real;
	bool in;
} ws__anchor_memo;
static pthread_mutex_t ws__anchor_mu = PTHREAD_MUTEX_INITIALIZER;

/* Whether real lies in a place of home reached through a link. */
static bool
ws__anchor_linked(const char *home, const char *real)
{
	char *h, *r;
	bool in;

	/*
	 * Only a workspace below home: one elsewhere is left to the
	 * spelling, as the file tools' check leaves it (lib/policy.c,
	 * ws__homes_resolve()), and costs nothing.
	 */
	if (!ws_path_within(home, real, NULL))
		return false;
	pthread_mutex_lock(&ws__anchor_mu);
	if (ws__anchor_memo.home != NULL && strcmp(ws__anchor_memo.home, home) == 0 &&
	    strcmp(ws__anchor_memo.real, real) == 0) {
		in = ws__anchor_memo.in;
		pthread_mutex_unlock(&ws__anchor_mu);
		return in;
	}
	pthread_mutex_unlock(&ws__anchor_mu);
	in = ws__persist_resolved(home, real, false) != NULL;
	h = strdup(home);
	r = strdup(real);
	pthread_mutex_lock(&ws__anchor_mu);
	if (h != NULL && r != NULL) {
		free(ws__anchor_memo.home);
		free(ws__anchor_memo.real);
		ws__anchor_memo.home = h;
		ws__anchor_memo.real = r;
		ws__anchor_memo.in = in;
		h = r = NULL;
	}
	pthread_mutex_unlock(&ws__anchor_mu);
	free(h);
	free(r);
	return in;
}

bool
ws_home_persist_anchor_of(const char *home, const char *real)
{
	return home != NULL &&
	       ((ws_home_persist_in(home, real) != NULL &&
		 ws_path_within(home, real, NULL)) ||
		/* Its real name through a link on the way (review11). */
		ws__anchor_linked(home, real));
}

bool
ws_home_persist_anchor(const char *real)
{
	char *home = ws_home_real();
	bool in = ws_home_persist_anchor_of(home, real);

	free(home);
	return in;
}
