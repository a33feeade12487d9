/*
 * fuzz_resolve - libFuzzer target for path resolution.
 *
 * Input: two bytes that choose the targets of two symlinks in a small
 * workspace (so each input also reshapes the tree), then the path string.
 * Invariants checked on every input:
 *  - a success lies inside the workspace root or a mount's real directory,
 *    by path components (never by string prefix: a sibling "ws2" exists);
 *  - when the object exists, the descriptor really is what "real" names
 *    (readlink of /proc/self/fd agrees) and it is inside too;
 *  - a refusal is one of the documented codes.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ws/error.h"
#include "ws/resolve.h"
#include "ws/workspace.h"

static char top[PATH_MAX];
static char root[PATH_MAX], ws2[PATH_MAX], mnt[PATH_MAX], rom[PATH_MAX];

/* What the two fuzzed symlinks may point at. */
static const char *const targets[] = {
	"sub", "sub/deep", "..", "../..", "../ws2", "/etc", "/", "loop",
	"nowhere", "../mnt", NULL /* absolute root, filled in */, "./sub/..",
	"sub/../../ws2/x", "l2", "l1", "../ro/f",
};
static char abs_target[PATH_MAX];

static void
mk(const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	if (mkdir(p, 0755) != 0 && errno != EEXIST)
		abort();
}

static void
put(const char *rel, const char *text)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		abort();
	close(fd);
}

static void
link_at(const char *rel, const char *target)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	unlink(p);
	if (symlink(target, p) != 0)
		abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char tmpl[] = "/tmp/wsfuzz-XXXXXX";

	(void)argc;
	(void)argv;
	if (mkdtemp(tmpl) == NULL || realpath(tmpl, top) == NULL)
		abort();
	mk("ws");
	mk("ws/sub");
	mk("ws/sub/deep");
	mk("ws2");
	mk("mnt");
	mk("ro");
	put("ws/a.txt", "a\n");
	put("ws/sub/deep/f", "f\n");
	put("ws2/x", "secret\n");
	put("ro/f", "ro\n");
	mkfifo((snprintf(root, sizeof(root), "%s/ws/fifo", top), root), 0644);
	link_at("ws/loop", "loop");
	link_at("ws/escape", "/etc/passwd");
	link_at("ws/sub/up", "../..");
	snprintf(root, sizeof(root), "%s/ws", top);
	snprintf(ws2, sizeof(ws2), "%s/ws2", top);
	snprintf(mnt, sizeof(mnt), "%s/mnt", top);
	snprintf(rom, sizeof(rom), "%s/ro", top);
	snprintf(abs_target, sizeof(abs_target), "%s/sub", root);
	return 0;
}

/* Whether p equals dir or lies below it, by components. */
static int
within(const char *p, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return p[0] == '/';
	return strncmp(p, dir, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

static int
inside(const char *p)
{
	return within(p, root) || within(p, mnt) || within(p, rom);
}

static int
documented(int code)
{
	switch (code) {
	case WS_EINVALID_ARGUMENT:
	case WS_EINVALID_PATH:
	case WS_EPATH_OUTSIDE_WORKSPACE:
	case WS_ESYMLINK_OUTSIDE_WORKSPACE:
	case WS_EREAD_ONLY:
	case WS_ENOT_FOUND:
	case WS_ENOT_A_DIRECTORY:
	case WS_ESYMLINK_LOOP:
	case WS_EPERMISSION_DENIED:
	case WS_EIO_ERROR:
		return 1;
	default:
		return 0;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned modes[] = {0, WS_R_NOFOLLOW, WS_R_MISSING_OK,
					 WS_R_SLOW, WS_R_SLOW | WS_R_MISSING_OK,
					 WS_R_TRACE};
	struct ws_ctx ws;
	struct ws_res res;
	char spec[PATH_MAX * 2], *path, got[PATH_MAX], proc[64];
	const char *t1, *t2;
	unsigned flags;
	int rc;
	ssize_t n;

	if (size < 3)
		return 0;
	t1 = targets[data[0] % 16] ? targets[data[0] % 16] : abs_target;
	t2 = targets[data[1] % 16] ? targets[data[1] % 16] : abs_target;
	link_at("ws/l1", t1);
	link_at("ws/sub/l2", t2);
	flags = modes[(data[0] >> 4) % 6];
	path = strndup((const char *)data + 2, size - 2);
	if (path == NULL)
		return 0;

	if (ws_ctx_open(&ws, root, (data[1] & 0x80) ? WS_STRICT : 0) != 0)
		abort();
	snprintf(spec, sizeof(spec), "/.m=%s", mnt);
	if (ws_ctx_add_mount(&ws, spec) != 0)
		abort();
	snprintf(spec, sizeof(spec), "/.m/ro=%s:ro", rom);
	if (ws_ctx_add_mount(&ws, spec) != 0)
		abort();

	rc = ws_resolve(&ws, path, flags, &res);
	if (rc == 0) {
		if (res.real == NULL || !inside(res.real)) {
			fprintf(stderr, "ESCAPE: %s -> %s\n", path,
				res.real ? res.real : "(null)");
			abort();
		}
		if (res.exists && res.fd >= 0) {
			snprintf(proc, sizeof(proc), "/proc/self/fd/%d",
				 res.fd);
			n = readlink(proc, got, sizeof(got) - 1);
			if (n < 0)
				abort();
			got[n] = '\0';
			if (!inside(got) || strcmp(got, res.real) != 0) {
				fprintf(stderr, "MISMATCH: %s: real %s fd %s\n",
					path, res.real, got);
				abort();
			}
		}
	} else if (!documented(rc)) {
		fprintf(stderr, "UNDOCUMENTED %d (%s) for %s\n", rc,
			ws_error_name(rc), path);
		abort();
	}
	/* Failures keep their --explain steps: always freed. */
	ws_res_free(&res);
	ws_ctx_close(&ws);
	free(path);
	return 0;
}
