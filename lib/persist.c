/* persist.c - the persistence places in a user's HOME (ws/persist.h). */
#include "ws/persist.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ws/error.h"
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
	".yarnrc", ".yarnrc.yml", ".cargo/config", ".cargo/config.toml",
	".config/pip/", ".pip/", ".docker/", ".kube/", ".aws/", ".Rprofile",
	".Renviron", ".hgrc", ".config/hg/", ".gdbinit", ".config/gdb/",
	".lldbinit", ".exrc", ".gvimrc", ".emacs.el", ".screenrc",
	".lesskey", ".config/lesskey", ".wgetrc", ".curlrc",
	".config/.curlrc", ".mailcap", ".config/mimeapps.list", ".mavenrc",
	".m2/settings.xml", ".gradle/init.d/", ".gradle/init.gradle",
	".gradle/init.gradle.kts", ".gradle/gradle.properties",
	".ipython/", ".jupyter/", ".pdbrc", ".irbrc", ".psqlrc",
	".sqliterc", ".config/Code/User/", ".config/Code - OSS/User/",
	".config/VSCodium/User/", ".local/share/nvim/", ".config/i3/",
	".config/sway/", ".config/hypr/", ".config/wstools/",
	/* jj's, Sapling's and vim's (9.1, XDG) user configuration: pagers,
	 * editors, hooks and fix tools run by ordinary commands (review23
	 * 12). */
	".config/jj/", ".jjconfig.toml", ".config/sapling/", ".sapling.conf",
	".config/vim/",
	/*
	 * Sourced by bash-completion and zsh's compinit in every
	 * interactive shell; zsh also prefers a start-up file's
	 * compiled .zwc to the file.
	 */
	".bash_completion", ".local/share/bash-completion/", ".zcompdump",
	".zcompdump.zwc", ".zshenv.zwc", ".zprofile.zwc", ".zshrc.zwc",
	".zlogin.zwc", ".zlogout.zwc",
	/* Prompts and tools that run what their configuration names. */
	".config/starship.toml", ".config/gh/", ".terraformrc",
	".terraform.d/", ".ghci", ".ghc/", ".condarc", ".config/conda/",
	".conda/condarc", ".conda/.condarc",
	/*
	 * Version managers: their shims and toolchains are on PATH, and
	 * their version files pick which one runs.  pyenv, nvm and
	 * Julia's depot are code throughout (interpreters, site-packages,
	 * hooks, compiled caches), so whole.  Cargo's and rustup's homes
	 * are kept in part: a build writes its locks and cache index at
	 * CARGO_HOME's top, and a crate it downloads lands in registry/
	 * or git/, whose build.rs the next host build runs: downloading
	 * needs a CARGO_HOME of the command's own (wsrun(1)).
	 */
	".pyenv/", ".nvm/", ".julia/", ".rustup/toolchains/",
	".rustup/settings.toml", ".cargo/registry/", ".cargo/git/",
	".cargo/env", ".cargo/env.fish",
	/*
	 * Python's user site (~/.local/lib/pythonX.Y/site-packages): a
	 * .pth file, usercustomize.py or sitecustomize.py there runs in
	 * every later python3.  The whole of ~/.local/lib, whatever
	 * version: installing there from a command is rare, and a grant
	 * of it (--allow-write) or pip's --target elsewhere does it.
	 */
	".local/lib/",
	/*
	 * More version managers (review14 02): shims and toolchains on
	 * PATH, or a script .bashrc sources (rbenv, asdf, SDKMAN!, GHCup,
	 * opam, Bun, Deno, Volta, pnpm, mise; mise's configuration also
	 * runs hooks and sources files).
	 */
	".rbenv/", ".asdf/", ".sdkman/", ".ghcup/", ".opam/", ".bun/bin/",
	".deno/bin/", ".volta/", ".local/share/pnpm/", ".local/share/mise/",
	".config/mise/",
	/*
	 * Jupyter's user kernelspecs (one named python3 shadows the
	 * system's: its argv runs when a notebook starts) and podman's
	 * configuration (containers.conf names hooks and runtimes).
	 */
	".local/share/jupyter/kernels/", ".config/containers/",
	/* Terminals' configuration, which names the shell they start. */
	".wezterm.lua", ".config/kitty/", ".config/alacritty/",
	/*
	 * Interpreters' and clients' start-up files (Erlang, pry, Octave,
	 * Guile, SBCL, OCaml, tclsh, xonsh; mysql's pager; sbt's global
	 * plugins).
	 */
	".erlang", ".pryrc", ".octaverc", ".guile", ".sbclrc", ".ocamlinit",
	".tclshrc", ".xonshrc", ".my.cnf", ".sbt/",
	/*
	 * Review16 01.  Trust stores that make the host run a workspace
	 * file: direnv's allow list (its data directory) and its legacy
	 * ~/.direnvrc, sourced by every hook.  Code everyday tools run:
	 * pre-commit's hook repositories and their environments; go env
	 * -w's file (GOFLAGS=-toolexec, CC); the folders Node's require()
	 * falls back to; RubyGems' user gems (~/.gem, or its XDG data
	 * directory) and gemrc (either place); Bundler's global
	 * configuration and plugins; the venvs pipx's and uv's shims in
	 * ~/.local/bin run, and uv's Pythons; pylint's rc files
	 * (init-hook runs Python); Bazel's user rc; Nix's and nixpkgs'
	 * configuration (hooks, overlays); the remote VS Code server and
	 * its extensions.
	 */
	".local/share/direnv/", ".direnvrc", ".cache/pre-commit/",
	".config/go/env", ".node_modules/", ".node_libraries/", ".gem/",
	".local/share/gem/", ".gemrc", ".config/gem/", ".bundle/config",
	".bundle/plugin/", ".local/share/pipx/", ".local/pipx/",
	".local/share/uv/tools/", ".local/share/uv/python/", ".pylintrc",
	".config/pylintrc", ".bazelrc", ".config/nixpkgs/", ".config/nix/",
	".vscode-server/",
	/*
	 * Shells (their start-up files, and the module and autoload
	 * directories PowerShell and Nushell load from), terminals' and
	 * editors' configuration (Helix's names language servers), the
	 * desktop session (GNOME Shell's extensions, window managers'
	 * start-up files), mail delivery's ~/.forward ("|command") and
	 * Firefox's profiles (user.js, extensions).
	 */
	".config/nushell/", ".local/share/nushell/", ".config/powershell/",
	".local/share/powershell/", ".config/xonsh/", ".config/wezterm/",
	".config/helix/", ".local/share/gnome-shell/extensions/",
	".config/awesome/", ".config/qtile/", ".config/bspwm/",
	".config/openbox/", ".forward", ".mozilla/",
	/*
	 * Review18 05.  Sourced or loaded when an everyday program starts:
	 * ~/.selected_editor (sensible-editor sources it: crontab -e,
	 * mutt), Bun's global bunfig (preload runs before every bun run),
	 * Sublime Text's packages (.py plugins), the desktop editors'
	 * extensions and settings (VS Code's, VSCodium's, Cursor's, Zed's:
	 * terminal profiles, language servers), JetBrains IDEs' plugins and
	 * configuration (a .vmoptions file's -javaagent), mail clients' rc
	 * files ("source cmd|"), file managers' rc files and Lua plugins,
	 * mpv's scripts and configuration (script=), qutebrowser's
	 * config.py, Stack's hooks (ghc-install.sh runs on a build).  The
	 * desktop session: status bars' exec modules, window managers' and
	 * compositors' start-up files, xbindkeys' commands, dunst's
	 * notification scripts.  mise's trust store: a trusted mise.toml
	 * runs its hooks on cd.
	 */
	".selected_editor", ".bunfig.toml", ".config/sublime-text/Packages/",
	".config/sublime-text-3/Packages/", ".vscode/extensions/",
	".vscode-insiders/extensions/", ".vscode-oss/extensions/",
	".cursor/extensions/", ".config/Cursor/User/", ".config/zed/",
	".local/share/JetBrains/", ".config/JetBrains/", ".muttrc", ".mutt/",
	".config/mutt/", ".neomuttrc", ".config/neomutt/", ".config/lf/",
	".config/ranger/", ".config/yazi/", ".config/mpv/",
	".config/qutebrowser/", ".stack/hooks/", ".config/waybar/",
	".config/polybar/", ".config/labwc/", ".config/river/",
	".config/niri/", ".xbindkeysrc", ".config/dunst/",
	".local/state/mise/",
	/*
	 * Review25 08.  What installers make the shells' rc files source
	 * (fzf's key bindings, powerlevel10k's prompt, Deno's, Rye's,
	 * Atuin's, Lean's, Wasmer's, acme.sh's env scripts, RVM), the
	 * plugin managers' trees the rc files load from, and terminals',
	 * multiplexers', window managers' and editors' start-up files that
	 * name a program to run (ghostty's command, foot's shell, zellij's
	 * default_shell, konsole's profiles, terminator's custom_command,
	 * herbstluftwm's autostart, kakoune's %sh{}, micro's init.lua,
	 * elvish's rc.elv).
	 */
	".fzf.bash", ".fzf.zsh", ".p10k.zsh", ".deno/env", ".rye/env",
	".atuin/bin/env", ".bun/_bun", ".elan/env", ".wasmer/wasmer.sh",
	".acme.sh/acme.sh.env", ".rvm/", ".zsh/", ".zinit/",
	".local/share/zinit/", ".antigen/", ".zplug/", ".zim/", ".bash_it/",
	".config/ghostty/", ".config/foot/", ".config/zellij/",
	".local/share/konsole/", ".config/terminator/",
	".config/herbstluftwm/", ".config/kak/", ".config/micro/",
	".config/elvish/", ".elvish/",
	/*
	 * Review28 07.  Coding agents' user configuration, which names
	 * the MCP servers and hooks they start, unasked, at the person's
	 * next session in any project: Claude Code's ~/.claude.json
	 * (user- and local-scope mcpServers; the backup copy it keeps
	 * beside it) and ~/.claude/ (settings' hooks, the hooks, commands and
	 * agents they name, CLAUDE.md), Codex's, Gemini CLI's, Windsurf's,
	 * opencode's, Continue's, and Cursor's global mcp.json.  The agents
	 * rewrite these themselves all the time, from the host: a
	 * read-only bind in a command's view does not stop them, and a
	 * command's own agent has a private HOME (wsrun(1)).
	 */
	".claude.json", ".claude.json.backup", ".claude/", ".codex/",
	".gemini/", ".codeium/", ".config/opencode/", ".continue/",
	".cursor/mcp.json",
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

		/* The same canonical path as the first (the usual case):
		 * the same directory, no stat() needed to say so. */
		if (c == NULL || (n == 1 && strcmp(c, out[0]) == 0) ||
		    stat(c, &st) < 0 || !S_ISDIR(st.st_mode) ||
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

/*
 * Each kind's variable, HOME's default for it (below HOME), and the part
 * of the list it takes: the places that begin with take, found below the
 * base without their first strip bytes.
 */
static const struct {
	const char *env, *dflt, *take;
	size_t strip;
} ws__kinds[WS_PERSIST_NKINDS] = {
	[WS_PERSIST_HOME] = {"HOME", NULL, "", 0},
	[WS_PERSIST_XDG_CONFIG] = {"XDG_CONFIG_HOME", ".config", ".config/", 8},
	[WS_PERSIST_XDG_DATA] = {"XDG_DATA_HOME", ".local/share",
				 ".local/share/", 13},
	[WS_PERSIST_ZDOTDIR] = {"ZDOTDIR", "", ".z", 0},
	[WS_PERSIST_PYUSER] = {"PYTHONUSERBASE", ".local", ".local/lib/", 7},
	[WS_PERSIST_GITCFG] = {"GIT_CONFIG_GLOBAL", ".gitconfig", ".gitconfig", 10},
	[WS_PERSIST_PYENV] = {"PYENV_ROOT", ".pyenv", ".pyenv/", 7},
	[WS_PERSIST_CARGO] = {"CARGO_HOME", ".cargo", ".cargo/", 7},
	[WS_PERSIST_RUSTUP] = {"RUSTUP_HOME", ".rustup", ".rustup/", 8},
	[WS_PERSIST_NVM] = {"NVM_DIR", ".nvm", ".nvm/", 5},
	/*
	 * The files bash (non-interactive) and sh (interactive) source
	 * first: each is the place, as ~/.bashrc and ksh's ~/.kshrc are.
	 */
	[WS_PERSIST_BASH_ENV] = {"BASH_ENV", ".bashrc", ".bashrc", 7},
	[WS_PERSIST_ENV] = {"ENV", ".kshrc", ".kshrc", 6},
	/*
	 * Each directory of PATH is the place, as ~/.local/bin is: what a
	 * command drops there (ls, git, python) runs in the next shell
	 * with that PATH (review14 01).  Taken apart by ws__path_bases().
	 */
	[WS_PERSIST_PATH] = {"PATH", ".local/bin", ".local/bin/", 11},
	/*
	 * What the start-up files source: the file (or directory) is the
	 * place, as $BASH_ENV's is.  No variable names it
	 * (ws_persist_sourced_add()).
	 */
	[WS_PERSIST_SOURCED] = {NULL, NULL, ".bashrc", 7},
};

/* Whether v spells HOME's default d for a variable ("$HOME/d"). */
static bool
ws__is_default(const char *v, const char *home, const char *d)
{
	size_t hl;

	if (home == NULL || *home == '\0')
		return false;
	hl = strlen(home);
	while (hl > 1 && home[hl - 1] == '/')
		hl--;
	if (strncmp(v, home, hl) != 0)
		return false;
	v += hl;
	if (*d == '\0')
		return v[strspn(v, "/")] == '\0';
	if (*v != '/')
		return false;
	v += strspn(v, "/");
	if (strncmp(v, d, strlen(d)) != 0)
		return false;
	v += strlen(d);
	return v[strspn(v, "/")] == '\0';
}

/* The bases being gathered (ws_persist_bases()). */
struct ws__bases {
	struct ws_persist_base *v;
	size_t n, cap;
};

/*
 * Append the base c (malloc'd, taken) of kind with its way (taken; or
 * NULL) unless a base of that kind is c already: 0, or -ENOMEM (what was
 * given freed).
 */
static int
ws__base_add(struct ws__bases *b, char *c, int kind, char **way, size_t nway)
{
	int rc = 0;

	for (size_t k = 0; k < b->n && c != NULL; k++)
		if (b->v[k].kind == kind && strcmp(b->v[k].dir, c) == 0)
			goto drop;
	if (c == NULL) {
		rc = -ENOMEM;
		goto drop;
	}
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 16;
		struct ws_persist_base *v = realloc(b->v, cap * sizeof(*v));

		if (v == NULL) {
			rc = -ENOMEM;
			goto drop;
		}
		b->v = v;
		b->cap = cap;
	}
	b->v[b->n].dir = c;
	b->v[b->n].kind = kind;
	b->v[b->n].way = way;
	b->v[b->n].nway = nway;
	b->n++;
	return 0;
drop:
	free(c);
	for (size_t k = 0; k < nway; k++)
		free(way[k]);
	free(way);
	return rc;
}

/*
 * The base spelled v (a variable's value, a PATH entry) of kind: by its
 * resolution (ws_path_resolve_tail(): as far as it exists through every
 * link, a dangling link's target where what v names would be made,
 * review17 05), with the entries the walk passed as its way, and by its
 * spelling where that differs ("<ws>/tools/bin" with tools a link: a
 * command that replaced the link with a directory of its own would
 * plant tools/bin/ls there, review14 01; XDG_CONFIG_HOME and the others
 * alike, sec14m).  A spelling with ".." is not taken lexically: what
 * precedes the ".." is on the way, pinned or its making undone, so the
 * resolution stays what the shell finds (review17 03).  "/" is no base.
 * 0, or -ENOMEM.
 */
static int
ws__base_take(struct ws__bases *b, const char *v, int kind, const char *cwd,
	      struct ws_link_memo *m)
{
	char out[PATH_MAX], **way = NULL, *c = NULL;
	size_t nway = 0;
	int rc;

	if (strlen(v) >= PATH_MAX)
		return 0;
	/*
	 * One that cannot be resolved (a loop, a file on the way, no
	 * search permission) is where nothing is made, but not for good:
	 * a command that replaced the looping link (or the file) on its
	 * way with a directory would make it a place the next shell looks
	 * in (review19 06).  Its way up to the failure is pinned, by a
	 * base of its spelling, absolute and lexically normal, whose
	 * places resolve to nothing.
	 */
	if (ws_path_resolve_tail_memo(v, out, &way, &nway, m) < 0) {
		char *sp = NULL, *abs = NULL;

		rc = 0;
		if (nway == 0 || (v[0] != '/' && cwd == NULL))
			goto drop;
		if (v[0] != '/' && asprintf(&abs, "%s/%s", cwd, v) < 0) {
			rc = -ENOMEM;
			goto drop;
		}
		rc = ws_path_normalize(abs != NULL ? abs : v, WS_NORM_CLAMP, &sp);
		free(abs);
		if (rc < 0 || sp == NULL) {
			free(sp);
			ws_error_clear();
			rc = rc == WS_ENOMEM ? -ENOMEM : 0;
			goto drop;
		}
		return ws__base_add(b, sp, kind, way, nway);
	}
	if (strcmp(out, "/") == 0 ||
	    (cwd != NULL && ws_path_within(out, cwd, NULL))) {
		rc = 0;
		goto drop;
	}
	if ((rc = ws__base_add(b, strdup(out), kind, way, nway)) < 0)
		return rc;
	if (v[0] != '/')
		return 0; /* the walk recorded the current directory's way */
	if ((rc = ws_path_normalize(v, WS_NORM_KEEPDOT, &c)) < 0 || c == NULL) {
		free(c);
		ws_error_clear();
		return rc == WS_ENOMEM ? -ENOMEM : 0;
	}
	if (strcmp(c, "/") == 0 || strstr(c, "/..") != NULL ||
	    strcmp(c, out) == 0) {
		free(c);
		return 0;
	}
	return ws__base_add(b, c, kind, NULL, 0);
drop:
	for (size_t k = 0; k < nway; k++)
		free(way[k]);
	free(way);
	return rc;
}

/* Whether PATH's entry at p (l bytes) is one of those before it in v. */
static bool
ws__spelled_before(const char *v, const char *p, size_t l)
{
	for (const char *q = v, *e; q < p; q = e + 1) {
		e = q + strcspn(q, ":");
		if ((size_t)(e - q) == l && memcmp(q, p, l) == 0)
			return true;
	}
	return false;
}

/*
 * PATH's directories (the process's own PATH: wsrun passes it to the
 * command, and the person's next shell has it), every one, however
 * many (review17 04).  A relative entry ("scripts",
 * "node_modules/.bin") names a directory from the shell's current
 * one: taken from this process's, which is the command's, and for a
 * person working on the project the workspace, as the shell's
 * (review17 02).  One that names the current directory itself or what
 * holds it (".", an empty entry, "..") is not taken: it would make
 * wherever a command runs a place, and the whole workspace read-only
 * (wsrun(1) says so).  HOME's ~/.local/bin spelled so is HOME's list's
 * already.  0, or -ENOMEM.
 */
static int
ws__path_bases(struct ws__bases *b, const char *home, struct ws_link_memo *m)
{
	const char *v = getenv("PATH"), *e;
	char cwd[PATH_MAX];
	bool cwd_known = false;
	int rc = 0;

	for (const char *p = v; rc == 0 && p != NULL;
	     p = *e != '\0' ? e + 1 : NULL) {
		char d[PATH_MAX];
		size_t l;

		e = p + strcspn(p, ":");
		l = (size_t)(e - p);
		if (l >= sizeof(d))
			continue;
		/* Spelled so before (a PATH that an rc file extended twice):
		 * taken then, nothing to resolve. */
		if (ws__spelled_before(v, p, l))
			continue;
		memcpy(d, p, l);
		d[l] = '\0';
		if (l == 0)
			continue; /* the current directory */
		/*
		 * bash expands a leading ~ of a PATH entry when it searches
		 * (PATH="~/bin:$PATH", quoted in an rc file): the directory
		 * its user's next shell runs from is HOME's (review19 05).
		 */
		if (d[0] == '~' && (d[1] == '/' || d[1] == '\0')) {
			const char *h = getenv("HOME");
			char x[PATH_MAX];

			if (h == NULL || h[0] != '/')
				h = home;
			if (h == NULL || snprintf(x, sizeof(x), "%s%s", h, d + 1) >=
						 (int)sizeof(x))
				continue;
			memcpy(d, x, strlen(x) + 1);
		}
		if (ws__is_default(d, home, ws__kinds[WS_PERSIST_PATH].dflt))
			continue;
		if (d[0] != '/' && !cwd_known) {
			if (getcwd(cwd, sizeof(cwd)) == NULL)
				continue; /* nothing to take it from */
			cwd_known = true;
		}
		rc = ws__base_take(b, d, WS_PERSIST_PATH, d[0] != '/' ? cwd : NULL, m);
	}
	return rc;
}

void
ws_persist_bases_free(struct ws_persist_base *b, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		free(b[k].dir);
		for (size_t j = 0; j < b[k].nway; j++)
			free(b[k].way[j]);
		free(b[k].way);
	}
	free(b);
}

int
ws_persist_bases(struct ws_persist_base **out, size_t *n)
{
	const char *home = getenv("HOME");
	struct ws__bases b = {0};
	/* PATH's directories share prefixes: each is asked about once. */
	struct ws_link_memo m;
	int rc = 0;

	m.n = 0;
	*out = NULL;
	*n = 0;
	for (int k = WS_PERSIST_HOME + 1; rc == 0 && k < WS_PERSIST_NKINDS; k++) {
		const char *v = ws__kinds[k].env != NULL ? getenv(ws__kinds[k].env)
							 : NULL;

		if (k == WS_PERSIST_PATH) {
			rc = ws__path_bases(&b, home, &m);
			continue;
		}
		/* Relative values are ignored, as the XDG specification
		 * says; HOME's default is HOME's list already. */
		if (v == NULL || v[0] != '/' ||
		    ws__is_default(v, home, ws__kinds[k].dflt))
			continue;
		rc = ws__base_take(&b, v, k, NULL, &m);
	}
	ws_link_memo_free(&m);
	if (rc < 0) {
		ws_persist_bases_free(b.v, b.n);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	*out = b.v;
	*n = b.n;
	return 0;
}

char *
ws_persist_env_key(void)
{
	const char *v[WS_PERSIST_NKINDS], *path = getenv("PATH");
	char cwd[PATH_MAX], *key;
	size_t n = 1, at = 0;
	bool rel = false;

	/* A relative PATH entry other than "", "." and ".." names a
	 * directory from the current one (ws__path_bases()). */
	for (const char *e = path; e != NULL && *e != '\0' && !rel;) {
		size_t l = strcspn(e, ":");

		rel = l > 0 && e[0] != '/' && !(l == 1 && e[0] == '.') &&
		      !(l == 2 && e[0] == '.' && e[1] == '.');
		e += l + (e[l] == ':');
	}
	if (!rel || getcwd(cwd, sizeof(cwd)) == NULL)
		cwd[0] = '\0';
	for (int k = 0; k < WS_PERSIST_NKINDS; k++) {
		v[k] = ws__kinds[k].env != NULL ? getenv(ws__kinds[k].env) : NULL;
		n += strlen(v[k] != NULL ? v[k] : "") + 2;
	}
	n += strlen(cwd) + 1;
	if ((key = malloc(n)) == NULL)
		return NULL;
	for (int k = 0; k < WS_PERSIST_NKINDS; k++) {
		/* "=" for an unset variable, "=\n" after a set one: an
		 * empty value and none are told apart. */
		const char *s = v[k] != NULL ? v[k] : "";

		memcpy(key + at, s, strlen(s));
		at += strlen(s);
		key[at++] = v[k] != NULL ? '\n' : '\1';
	}
	memcpy(key + at, cwd, strlen(cwd) + 1);
	return key;
}

/* Whether place i is one of kind's (ws_persist_path()'s test, which
 * depends on the two constant tables only). */
static bool
ws__persist_takes(int kind, size_t i)
{
	const char *place = ws_home_persist[i], *t = ws__kinds[kind].take;
	size_t pl = strlen(t);

	if (strncmp(place, t, pl) != 0)
		return false;
	/* A file's base takes that file only (.bashrc, not .bashrc.d/). */
	return !(pl > 0 && t[pl - 1] != '/' && ws__kinds[kind].strip == pl &&
		 place[pl] != '\0');
}

#define WS__NPLACES (sizeof(ws_home_persist) / sizeof(ws_home_persist[0]))

/*
 * Each kind's places (ws__persist_takes()), made once: a call looks at
 * the places below HOME and below each of PATH's directories (twenty
 * or more), and testing all of HOME's places for each of those bases
 * was most of a made-ahead run_command's user-space time (issue 20).
 */
static size_t ws__kind_places[WS_PERSIST_NKINDS][WS__NPLACES];
static size_t ws__kind_nplaces[WS_PERSIST_NKINDS];
static pthread_once_t ws__kind_once = PTHREAD_ONCE_INIT;

static void
ws__kind_places_make(void)
{
	for (int k = 0; k < WS_PERSIST_NKINDS; k++) {
		const char *t = ws__kinds[k].take;

		/* Most kinds take the places of one prefix: the first byte
		 * rules out the rest without a call (this runs once a
		 * process, and a CLI call is one process). */
		for (size_t i = 0; i < WS__NPLACES; i++)
			if ((t[0] == '\0' || ws_home_persist[i][0] == t[0]) &&
			    ws__persist_takes(k, i))
				ws__kind_places[k][ws__kind_nplaces[k]++] = i;
	}
}

size_t
ws_persist_places(int kind, const size_t **idx)
{
	pthread_once(&ws__kind_once, ws__kind_places_make);
	*idx = ws__kind_places[kind];
	return ws__kind_nplaces[kind];
}

bool
ws_persist_path(const char *dir, int kind, size_t i, char *buf, size_t len)
{
	const char *place = ws_home_persist[i];
	size_t pl;
	int n;

	if (!ws__persist_takes(kind, i))
		return false;
	place += ws__kinds[kind].strip;
	pl = strlen(place);
	if (pl > 0 && place[pl - 1] == '/')
		pl--;
	/* GIT_CONFIG_GLOBAL, BASH_ENV, NVM_DIR: the base is the place. */
	if (pl == 0)
		n = snprintf(buf, len, "%s", dir);
	else
		n = snprintf(buf, len, "%s/%.*s", strcmp(dir, "/") == 0 ? "" : dir,
			     (int)pl, place);
	return n > 0 && (size_t)n < len;
}

void
ws_persist_show(int kind, const char *place, char *buf, size_t len)
{
	size_t pl;

	place += strlen(place) >= ws__kinds[kind].strip ? ws__kinds[kind].strip : 0;
	pl = strlen(place);
	if (pl > 0 && place[pl - 1] == '/')
		pl--;
	if (kind == WS_PERSIST_HOME)
		snprintf(buf, len, "~/%.*s", (int)pl, place);
	else if (kind == WS_PERSIST_PATH)
		snprintf(buf, len, "a directory on $PATH");
	else if (kind == WS_PERSIST_SOURCED)
		snprintf(buf, len, "what one of HOME's shell start-up files "
			 "sources (source, .)");
	else
		snprintf(buf, len, "$%s%s%.*s", ws__kinds[kind].env,
			 pl > 0 ? "/" : "", (int)pl, place);
}

const char *
ws_persist_in(const char *dir, int kind, const char *p)
{
	char buf[PATH_MAX];
	const size_t *idx;
	size_t n;

	if (dir == NULL || !ws_path_within(dir, p, NULL))
		return NULL;
	n = ws_persist_places(kind, &idx);
	for (size_t j = 0; j < n; j++)
		if (ws_persist_path(dir, kind, idx[j], buf, sizeof(buf)) &&
		    ws_path_within(buf, p, NULL))
			return ws_home_persist[idx[j]];
	return NULL;
}

bool
ws_persist_anchor_in(const char *dir, int kind, const char *real)
{
	const char *rest;

	/*
	 * A shell runs a PATH directory's own entries, by name: a
	 * workspace below one (~ on PATH, the project in ~/proj; ~/code on
	 * PATH, the project in ~/code/proj) is in no place for that, only
	 * the directory itself is one (review17 07).  What the directory's
	 * links lead to in it is (ws_ctx_home_places_of()).
	 */
	if (kind == WS_PERSIST_PATH)
		return dir != NULL && ws_path_within(dir, real, &rest) &&
		       rest[strspn(rest, "/")] == '\0';
	return ws_persist_in(dir, kind, real) != NULL;
}

const char *
ws_persist_reached(const char *dir, int kind, const char *d)
{
	char buf[PATH_MAX];
	const size_t *idx;
	size_t n;

	if (dir == NULL)
		return NULL;
	n = ws_persist_places(kind, &idx);
	for (size_t j = 0; j < n; j++)
		if (ws_persist_path(dir, kind, idx[j], buf, sizeof(buf)) &&
		    (ws_path_within(d, buf, NULL) || ws_path_within(buf, d, NULL)))
			return ws_home_persist[idx[j]];
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

		if (!ws_persist_path(home, WS_PERSIST_HOME, i, lex, sizeof(lex)))
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

const char *
ws_home_persist_in(const char *home, const char *p)
{
	return ws_persist_in(home, WS_PERSIST_HOME, p);
}

const char *
ws_home_persist_reached(const char *home, const char *dir)
{
	return ws_persist_reached(home, WS_PERSIST_HOME, dir);
}

void
ws_homes_free(char **homes, size_t n)
{
	for (size_t h = 0; h < n; h++)
		free(homes[h]);
}

bool
ws_homes_persist_anchor(char *const *homes, size_t n, const char *real)
{
	for (size_t h = 0; h < n; h++)
		if (ws_home_persist_anchor_of(homes[h], real))
			return true;
	return false;
}

bool
ws_home_persist_anchor(const char *real)
{
	struct ws_persist_base *b;
	char *home[2];
	size_t nh = ws_homes(home);
	bool in = ws_homes_persist_anchor(home, nh, real);
	size_t nb;

	/* Out of memory: read-only, as in a place. */
	if (ws_persist_bases(&b, &nb) < 0) {
		ws_homes_free(home, nh);
		return true;
	}
	/*
	 * What the start-up files of a home that holds real source (a
	 * workspace of a directory ~/.bashrc loops over): only those
	 * homes' files are read.
	 */
	for (size_t h = 0; !in && h < nh; h++)
		if (ws_path_within(home[h], real, NULL) && strcmp(home[h], real) != 0 &&
		    ws_persist_sourced_add(&home[h], 1, &b, &nb) < 0) {
			ws_error_clear();
			in = true;
		}
	for (size_t k = 0; k < nb; k++)
		in = in || ws_persist_anchor_in(b[k].dir, b[k].kind, real);
	ws_persist_bases_free(b, nb);
	ws_homes_free(home, nh);
	return in;
}

/*
 * What the person's shell start-up files source (review25 08): a list
 * of the files installers make them source (~/.fzf.bash, ~/.deno/env)
 * cannot keep up, so the start-up files that exist are read for their
 * `source X` and `. X` lines, and X is a place of that home.
 */

/* One word of a line as the shell would take it, roughly. */
struct ws__rcword {
	char *s;	/* the word with its quotes removed (malloc'd) */
	size_t len, cap;
	bool home;	/* it began with ~/, $HOME or ${HOME}: s is the rest */
	bool bad;	/* another expansion, single quotes: not a path we know */
	bool glob;	/* an unquoted *, ? or [ */
	bool plain;	/* no quote, no escape: a keyword or builtin's name */
	bool op;	/* an operator (; & | ( ) < >) that ends a command */
};

static bool
ws__rcw_put(struct ws__rcword *w, char c)
{
	if (w->len + 1 >= w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		char *ns = realloc(w->s, cap);

		if (ns == NULL)
			return false;
		w->s = ns;
		w->cap = cap;
	}
	w->s[w->len++] = c;
	w->s[w->len] = '\0';
	return true;
}

/*
 * At p (in double quotes or not), "$HOME" or "${HOME}" not followed by
 * a name's character: its length, else 0.
 */
static size_t
ws__rc_home_var(const char *p, const char *end)
{
	size_t l = 0;

	if (end - p >= 5 && memcmp(p, "$HOME", 5) == 0)
		l = 5;
	else if (end - p >= 7 && memcmp(p, "${HOME}", 7) == 0)
		return 7;
	if (l == 5 && p + 5 < end &&
	    (p[5] == '_' || (p[5] >= 'a' && p[5] <= 'z') ||
	     (p[5] >= 'A' && p[5] <= 'Z') || (p[5] >= '0' && p[5] <= '9')))
		return 0;
	return l;
}

/*
 * The next word of the line [*pp, end) into w (w->s reused): false at
 * the line's end (or a comment), or out of memory (*oom).
 */
static bool
ws__rc_word(const char **pp, const char *end, struct ws__rcword *w, bool *oom)
{
	const char *p = *pp;
	bool dq = false, started = false;

	w->len = 0;
	if (w->s != NULL)
		w->s[0] = '\0';
	w->home = w->bad = w->glob = w->op = false;
	w->plain = true;
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	if (p == end || *p == '#') {
		*pp = end;
		return false;
	}
	if (strchr(";&|()<>", *p) != NULL) {
		w->op = true;
		/* "&&", "||", ";;", ">>": one operator. */
		if (p + 1 < end && p[1] == p[0])
			p++;
		*pp = p + 1;
		return true;
	}
	for (; p < end; p++) {
		char c = *p;

		if (!dq && (c == ' ' || c == '\t' || c == '\r' ||
			    strchr(";&|()<>", c) != NULL))
			break;
		if (c == '\\' && p + 1 < end) {
			w->plain = false;
			/* In double quotes only these are escaped. */
			if (dq && strchr("$`\"\\", p[1]) == NULL &&
			    !ws__rcw_put(w, c))
				goto oom;
			if (!ws__rcw_put(w, *++p))
				goto oom;
		} else if (c == '"') {
			w->plain = false;
			dq = !dq;
		} else if (c == '\'' && !dq) {
			const char *q = memchr(p + 1, '\'', (size_t)(end - p - 1));

			/* A literal "$HOME" is no home; a path in single
			 * quotes without one is the path. */
			w->plain = false;
			if (q == NULL) {
				w->bad = true;
				p = end;
				break;
			}
			for (const char *r = p + 1; r < q; r++)
				if (!ws__rcw_put(w, *r))
					goto oom;
			p = q;
		} else if (c == '$' || c == '`') {
			size_t hl = ws__rc_home_var(p, end);

			/* Quotes before it add nothing: "$HOME/x". */
			if (hl > 0 && w->len == 0 && !w->home && !w->bad) {
				w->home = true;
				p += hl - 1;
			} else {
				w->bad = true;
				if (!ws__rcw_put(w, c))
					goto oom;
			}
		} else if (c == '~' && !dq && !started && w->len == 0 &&
			   (p + 1 == end || p[1] == '/' || p[1] == ' ' ||
			    p[1] == '\t' || p[1] == ';')) {
			w->home = true;
		} else if (c == '~' && !dq && !started && w->len == 0) {
			w->bad = true; /* ~user */
			if (!ws__rcw_put(w, c))
				goto oom;
		} else {
			if (!dq && (c == '*' || c == '?' || c == '['))
				w->glob = true;
			if (!ws__rcw_put(w, c))
				goto oom;
		}
		started = true;
	}
	/* A quote left open runs to another line: not a word we know. */
	if (dq)
		w->bad = true;
	*pp = p;
	return true;
oom:
	*oom = true;
	*pp = end;
	return false;
}

/* Append the path p (malloc'd, taken) to *out unless there: 0 or -ENOMEM. */
static int
ws__rc_take(char ***out, size_t *n, char *p)
{
	char **v;

	if (p == NULL)
		return -ENOMEM;
	for (size_t k = 0; k < *n; k++)
		if (strcmp((*out)[k], p) == 0) {
			free(p);
			return 0;
		}
	if ((v = realloc(*out, (*n + 1) * sizeof(*v))) == NULL) {
		free(p);
		return -ENOMEM;
	}
	*out = v;
	v[(*n)++] = p;
	return 0;
}

/*
 * The word w as a path relative to home, lexically normal ("." gone,
 * ".." taken back, a glob's directory with "/"): into *out, or NULL
 * where it is no path below home.  0 or -ENOMEM.
 */
static int
ws__rc_target(const struct ws__rcword *w, const char *home, char **out)
{
	const char *s = w->s != NULL ? w->s : "";
	size_t hl = home != NULL ? strlen(home) : 0;
	char *r, *o;
	size_t ol = 0;
	bool globbed = false;

	*out = NULL;
	if (w->bad || w->op || (w->len == 0 && !w->home))
		return 0;
	if (w->home) {
		if (*s != '\0' && *s != '/')
			return 0; /* "$HOMEx" was no home, "~x" neither */
	} else if (*s == '/') {
		/* An absolute path: below home as spelled, or nothing. */
		while (hl > 1 && home[hl - 1] == '/')
			hl--;
		if (hl <= 1 || strncmp(s, home, hl) != 0 || s[hl] != '/')
			return 0;
		s += hl;
	}
	if ((r = strdup(s)) == NULL || (o = malloc(strlen(s) + 2)) == NULL) {
		free(r);
		return -ENOMEM;
	}
	for (char *save = NULL, *c = strtok_r(r, "/", &save);
	     c != NULL && !globbed; c = strtok_r(NULL, "/", &save)) {
		if (w->glob && strpbrk(c, "*?[") != NULL) {
			globbed = true;
			break;
		}
		if (strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0) {
			if (ol == 0) {
				ol = SIZE_MAX; /* above home */
				break;
			}
			while (ol > 0 && o[ol - 1] != '/')
				ol--;
			if (ol > 0)
				ol--;
			continue;
		}
		if (ol > 0)
			o[ol++] = '/';
		memcpy(o + ol, c, strlen(c));
		ol += strlen(c);
	}
	free(r);
	/* HOME itself (a loop over ~'s entries) is no place: it holds
	 * everything. */
	if (ol == SIZE_MAX || ol == 0) {
		free(o);
		return 0;
	}
	if (globbed)
		o[ol++] = '/';
	o[ol] = '\0';
	*out = o;
	return 0;
}

int
ws_rc_sourced_parse(const char *text, size_t len, bool cut, const char *home,
		    char ***out, size_t *n)
{
	const char *end = text + len, *line = text;
	struct ws__rcword w = {0};
	bool oom = false;
	int rc = 0;

	/* Cut at the bound: the last line is not all there. */
	if (cut) {
		while (end > text && end[-1] != '\n')
			end--;
	}
	while (rc == 0 && line < end && !oom && *n < WS_RC_TARGETS) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *le = nl != NULL ? nl : end, *p = line;
		/* At a command's start; the word after source or .; in a
		 * for's list. */
		enum { START, SOURCE, OTHER, FOR_NAME, FOR_IN, FOR_LIST } st = START;

		while (rc == 0 && ws__rc_word(&p, le, &w, &oom)) {
			char *t = NULL;

			if (w.op) {
				st = START;
				continue;
			}
			switch (st) {
			case START:
				/* Keywords before a command, and the test that
				 * guards it ([ -f X ] && . X is two commands). */
				if (w.plain && w.s != NULL &&
				    (strcmp(w.s, "if") == 0 || strcmp(w.s, "then") == 0 ||
				     strcmp(w.s, "else") == 0 || strcmp(w.s, "elif") == 0 ||
				     strcmp(w.s, "do") == 0 || strcmp(w.s, "while") == 0 ||
				     strcmp(w.s, "until") == 0 || strcmp(w.s, "!") == 0 ||
				     strcmp(w.s, "{") == 0 || strcmp(w.s, "builtin") == 0 ||
				     strcmp(w.s, "command") == 0))
					break;
				if (w.plain && w.s != NULL &&
				    (strcmp(w.s, "source") == 0 || strcmp(w.s, ".") == 0))
					st = SOURCE;
				else if (w.plain && w.s != NULL && strcmp(w.s, "for") == 0)
					st = FOR_NAME;
				else
					st = OTHER;
				break;
			case SOURCE:
				if (w.plain && w.s != NULL && strcmp(w.s, "--") == 0)
					break;
				rc = ws__rc_target(&w, home, &t);
				if (rc == 0 && t != NULL)
					rc = ws__rc_take(out, n, t);
				st = OTHER;
				break;
			case FOR_NAME:
				st = FOR_IN;
				break;
			case FOR_IN:
				st = w.plain && w.s != NULL && strcmp(w.s, "in") == 0
					? FOR_LIST : OTHER;
				break;
			case FOR_LIST:
				/* "do" on the same line ends the list ("; do" is
				 * an operator first). */
				if (w.plain && w.s != NULL && strcmp(w.s, "do") == 0) {
					st = START;
					break;
				}
				rc = ws__rc_target(&w, home, &t);
				if (rc == 0 && t != NULL)
					rc = ws__rc_take(out, n, t);
				break;
			case OTHER:
				break;
			}
			if (*n >= WS_RC_TARGETS)
				break;
		}
		if (nl == NULL)
			break;
		line = nl + 1;
	}
	free(w.s);
	if (oom || rc < 0)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	return 0;
}

/* Set once openat2() turned out not to be there (ENOSYS). */
static atomic_bool ws__rc_no_openat2;

/*
 * openat2(hfd, rel, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) without
 * openat2 (before Linux 5.6, under valgrind): rel walked a component at
 * a time with O_NOFOLLOW, a link's text put in its place (lexically,
 * after the real directories walked so far) and the walk begun again
 * from hfd; a link whose text is absolute, or that leads above hfd, is
 * not followed (the home's path is not known here: stow's links are
 * relative).  40 links at most.  The file's descriptor, or -1.
 */
static int
ws__rc_open_walk(int hfd, const char *rel, int flags)
{
	char path[PATH_MAX], work[PATH_MAX], next[PATH_MAX], link[PATH_MAX];
	int hops = 0;

	if (snprintf(path, sizeof(path), "%s", rel) >= (int)sizeof(path))
		return -1;
	for (;;) {
		int dfd = hfd, fd = -1;
		char *c = work, *sl;

		/* Walked in a copy: its slashes become NULs on the way. */
		memcpy(work, path, strlen(path) + 1);
		for (;;) {
			ssize_t ll;
			size_t done;

			c += strspn(c, "/");
			if ((sl = strchr(c, '/')) != NULL)
				*sl = '\0';
			fd = openat(dfd, c, sl != NULL
				    ? O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
				    : flags | O_NOFOLLOW);
			if (fd >= 0 || (errno != ELOOP && errno != ENOTDIR) ||
			    ++hops > 40 ||
			    (ll = readlinkat(dfd, c, link, sizeof(link) - 1)) <= 0 ||
			    link[0] == '/') {
				if (dfd != hfd)
					close(dfd);
				if (fd < 0 || sl == NULL)
					return fd;
				dfd = fd;
				c = sl + 1;
				continue;
			}
			link[ll] = '\0';
			/* The link replaced by its text: the directories
			 * before it, the text, what follows it. */
			done = (size_t)(c - work);
			if (snprintf(next, sizeof(next), "%.*s%s%s%s", (int)done,
				     path, link, sl != NULL ? "/" : "",
				     sl != NULL ? sl + 1 : "") >= (int)sizeof(next)) {
				if (dfd != hfd)
					close(dfd);
				return -1;
			}
			if (dfd != hfd)
				close(dfd);
			break;
		}
		/* Lexically normal, and beneath hfd. */
		{
			size_t ol = 0;
			char *save = NULL;

			path[0] = '\0';
			for (char *t = strtok_r(next, "/", &save); t != NULL;
			     t = strtok_r(NULL, "/", &save)) {
				if (strcmp(t, ".") == 0)
					continue;
				if (strcmp(t, "..") == 0) {
					if (ol == 0)
						return -1;
					while (ol > 0 && path[ol - 1] != '/')
						ol--;
					ol -= ol > 0;
					path[ol] = '\0';
					continue;
				}
				ol += (size_t)snprintf(path + ol, sizeof(path) - ol,
						       "%s%s", ol ? "/" : "", t);
			}
			if (ol == 0)
				return -1;
		}
	}
}

/*
 * The regular file rel beneath the directory hfd, its first max
 * bytes, into *buf (malloc'd, NUL-terminated; *cut when there is more):
 * its length, or -1 (none, not a regular file, a link out of the
 * directory, no openat2()).
 */
static ssize_t
ws__rc_read(int hfd, const char *rel, size_t max, char **buf, bool *cut)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK,
		/* A link may lead elsewhere in the home (stow's
		 * ~/.bashrc -> dotfiles/bashrc), not out of it. */
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;
	size_t cap, n = 0;
	char *b = NULL;
	int fd = -1;

	*buf = NULL;
	*cut = false;
	if (!atomic_load(&ws__rc_no_openat2)) {
		fd = (int)syscall(SYS_openat2, hfd, rel, &how, sizeof(how));
		if (fd < 0 && errno == ENOSYS)
			atomic_store(&ws__rc_no_openat2, true);
	}
	if (atomic_load(&ws__rc_no_openat2))
		fd = ws__rc_open_walk(hfd, rel, (int)how.flags);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		goto fail;
	cap = (size_t)st.st_size > max ? max : (size_t)st.st_size;
	*cut = (size_t)st.st_size > max;
	if ((b = malloc(cap + 1)) == NULL)
		goto fail;
	while (n < cap) {
		ssize_t r = read(fd, b + n, cap - n);

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

/* The start-up files read below each home, relative to it. */
static const char *const ws__rc_files[] = {
	".bashrc", ".bash_profile", ".bash_login", ".profile", ".bash_aliases",
	".bash_logout", ".zshenv", ".zprofile", ".zshrc", ".zlogin",
	".zlogout", ".kshrc", ".mkshrc", ".cshrc", ".tcshrc", ".login",
	".xprofile", ".xsession", ".xsessionrc", ".xinitrc",
	".config/fish/config.fish",
};

/* zsh's start-up files below $ZDOTDIR. */
static const char *const ws__rc_zsh[] = {
	".zshenv", ".zprofile", ".zshrc", ".zlogin", ".zlogout",
};

/*
 * The variable v's value relative to home (hl bytes), when it lies
 * strictly below it as spelled: else NULL.
 */
static const char *
ws__rc_below(const char *v, const char *home, size_t hl)
{
	if (v == NULL || strncmp(v, home, hl) != 0 || v[hl] != '/')
		return NULL;
	v += hl + strspn(v + hl, "/");
	return *v != '\0' ? v : NULL;
}

/*
 * Read rel beneath hfd, once (*read, *nread: those read), within what is
 * left of *budget (bytes, for all of a home's files), and parse it.
 */
static int
ws__rc_scan(int hfd, const char *rel, const char *home, char ***read,
	    size_t *nread, size_t *budget, char ***t, size_t *nt)
{
	char *text;
	bool cut;
	ssize_t l;
	int rc;

	for (size_t k = 0; k < *nread; k++)
		if (strcmp((*read)[k], rel) == 0)
			return 0;
	if ((rc = ws__rc_take(read, nread, strdup(rel))) < 0)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	if (*budget == 0 ||
	    (l = ws__rc_read(hfd, rel, *budget < (size_t)WS_RC_MAX ? *budget
				: (size_t)WS_RC_MAX, &text, &cut)) < 0)
		return 0;
	*budget -= (size_t)l;
	rc = ws_rc_sourced_parse(text, (size_t)l, cut, home, t, nt);
	free(text);
	return rc;
}

/*
 * Whether rel (l bytes, relative to HOME) is or lies in one of HOME's
 * listed places: ws_persist_in()'s answer by comparing the spellings
 * only, where that formats each place's path (a few hundred snprintf()
 * a target, most of what reading the start-up files cost a call).
 */
static bool
ws__rc_listed(const char *rel, size_t l)
{
	for (size_t i = 0; i < ws_home_persist_n; i++) {
		const char *p = ws_home_persist[i];
		size_t pl;

		if (p[0] != rel[0])
			continue;
		pl = strlen(p);
		if (p[pl - 1] == '/')
			pl--;
		if (l >= pl && strncmp(rel, p, pl) == 0 &&
		    (l == pl || rel[pl] == '/'))
			return true;
	}
	return false;
}

/* ws_persist_sourced_add() for one home. */
static int
ws__sourced_home(const char *home, struct ws__bases *b, struct ws_link_memo *m)
{
	const char *zd, *v;
	char **read = NULL, **t = NULL, rel[PATH_MAX], path[PATH_MAX];
	size_t nread = 0, nt = 0, n0, hl = strlen(home), budget = WS_RC_BUDGET;
	int hfd, rc = 0;

	while (hl > 1 && home[hl - 1] == '/')
		hl--;
	if ((hfd = open(home, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return 0;
#define WS__N(a) (sizeof(a) / sizeof((a)[0]))
	for (size_t k = 0; rc == 0 && k < WS__N(ws__rc_files); k++)
		rc = ws__rc_scan(hfd, ws__rc_files[k], home, &read, &nread,
				 &budget, &t, &nt);
	/* Where the person's environment moves them, below the home. */
	zd = ws__rc_below(getenv("ZDOTDIR"), home, hl);
	for (size_t k = 0; rc == 0 && zd != NULL && k < WS__N(ws__rc_zsh); k++)
		if (snprintf(rel, sizeof(rel), "%s/%s", zd, ws__rc_zsh[k]) <
		    (int)sizeof(rel))
			rc = ws__rc_scan(hfd, rel, home, &read, &nread, &budget,
					 &t, &nt);
#undef WS__N
	v = ws__rc_below(getenv("XDG_CONFIG_HOME"), home, hl);
	if (rc == 0 && v != NULL &&
	    snprintf(rel, sizeof(rel), "%s/fish/config.fish", v) < (int)sizeof(rel))
		rc = ws__rc_scan(hfd, rel, home, &read, &nread, &budget, &t, &nt);
	if (rc == 0 && (v = ws__rc_below(getenv("BASH_ENV"), home, hl)) != NULL)
		rc = ws__rc_scan(hfd, v, home, &read, &nread, &budget, &t, &nt);
	if (rc == 0 && (v = ws__rc_below(getenv("ENV"), home, hl)) != NULL)
		rc = ws__rc_scan(hfd, v, home, &read, &nread, &budget, &t, &nt);
	/* One level more: what a sourced file sources (not read). */
	n0 = nt;
	for (size_t k = 0; rc == 0 && k < n0; k++)
		if (t[k][strlen(t[k]) - 1] != '/')
			rc = ws__rc_scan(hfd, t[k], home, &read, &nread, &budget, &t, &nt);
	close(hfd);
	for (size_t k = 0; rc == 0 && k < nt; k++) {
		size_t l = strlen(t[k]);

		if (t[k][l - 1] == '/')
			l--;
		if (snprintf(path, sizeof(path), "%.*s/%.*s", (int)hl, home,
			     (int)l, t[k]) >= (int)sizeof(path))
			continue;
		/* Listed already (`. ~/.bashrc` in ~/.bash_profile). */
		if (ws__rc_listed(t[k], l))
			continue;
		if (ws__base_take(b, path, WS_PERSIST_SOURCED, NULL, m) < 0)
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	for (size_t k = 0; k < nread; k++)
		free(read[k]);
	free(read);
	for (size_t k = 0; k < nt; k++)
		free(t[k]);
	free(t);
	return rc;
}

int
ws_persist_sourced_add(char *const *homes, size_t nh,
		       struct ws_persist_base **b, size_t *nb)
{
	struct ws__bases bb = {*b, *nb, *nb};
	struct ws_link_memo m;
	int rc = 0;

	m.n = 0;
	for (size_t h = 0; rc == 0 && h < nh; h++)
		rc = ws__sourced_home(homes[h], &bb, &m);
	ws_link_memo_free(&m);
	*b = bb.v;
	*nb = bb.n;
	return rc;
}
