#!/usr/bin/env bash
# replay.sh [BINDIR] - a scripted agent task replayed through "wstools
# call", the way a harness runs a model's tool calls (issue 9).
#
# A project is generated under a temporary directory: sources, a 3.4 MB
# log, a 1,500-entry directory, a PNG and odd names.  The "agent" then
# explores, finds files by name (search_files with files), reads pages,
# edits, and recovers from its errors, deciding each next call from the
# previous result as a model would.  It prints the calls used, the bytes
# returned in all and the largest single result, which is what a model's
# context pays for.  Exit status 0 when the task was done (the edits are
# checked on disk at the end), 1 if not.
set -uo pipefail
# WST_BIN_DIR, where set, replaces BINDIR (tests/valgrind/run.sh).
bindir=${WST_BIN_DIR:-${1:-build/cmd}}
bindir=$(cd "$bindir" && pwd)
wstools=$bindir/wstools
[ -x "$wstools" ] || { echo "replay: no $wstools (build first)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ws=$tmp/proj
# WS_PATHS=virtual unless the caller sets it (WS_PATHS= keeps real_path,
# for comparison).
: "${WS_PATHS=virtual}"
export WS_ROOT=$ws WS_PATHS

# ---- The project ------------------------------------------------------
mkdir -p "$ws"/{src/util,include,logs,data,assets,tmp,tests}
cat >"$ws/README.md" <<'MD'
# proj
A small configuration loader. `parse_cfg()` in src/config.c reads the file
named by --config; see docs below.
MD
cat >"$ws/src/config.c" <<'C'
#include "config.h"

/* parse_cfg: read KEY=VALUE lines. */
int parse_cfg(const char *path, struct cfg *out)
{
	if (path == NULL)
		return -1;
	return cfg_read(path, out);
}

int cfg_version(void)
{
	return 1;
}
C
cat >"$ws/src/main.c" <<'C'
#include "config.h"

int main(int argc, char **argv)
{
	struct cfg c;

	if (argc > 1 && parse_cfg(argv[1], &c) < 0)
		return 1;
	return 0;
}
C
printf 'struct cfg { int n; };\nint parse_cfg(const char *, struct cfg *);\n' \
	>"$ws/include/config.h"
for i in $(seq 1 12); do
	printf '/* helper %d */\nint helper_%d(void) { return %d; }\n' "$i" "$i" "$i" \
		>"$ws/src/util/helper_$i.c"
done
# 3.4 MB log with a few errors in it.
awk 'BEGIN { for (i = 1; i <= 40000; i++) {
	lvl = (i % 9973 == 0) ? "ERROR" : "INFO";
	printf "2026-11-26T00:%02d:%02d %s worker-%d handled request id=%08d in %d ms\n",
		(i / 60) % 60, i % 60, lvl, i % 8, i, (i * 7) % 500 } }' \
	>"$ws/logs/app.log"
for i in $(seq -w 1 1500); do
	printf '{"id": %d, "name": "item %s"}\n' "$((10#$i))" "$i" >"$ws/data/item_$i.json"
done
printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x02\0\0\0\x90\x91h6' \
	>"$ws/assets/logo.png"
head -c 2048 /dev/urandom >>"$ws/assets/logo.png"
printf 'spaces\n' >"$ws/notes with spaces.md"
printf 'unicode\n' >"$ws/ünïcode.txt"
printf 'dash\n' >"$ws/-dash.txt"
printf 'scratch\n' >"$ws/tmp/scratch.txt"

# ---- The harness ------------------------------------------------------
calls=0 bytes=0 largest=0 largest_call= failures=0
R= RC=0
schemas=$("$wstools" schemas) || { echo "replay: wstools schemas failed" >&2; exit 1; }
has_tool() { [[ $schemas == *"\"name\":\"$1\""* ]]; }

# call NAME JSON: one tool call, arguments on standard input as a harness
# passes them; the result is in $R, the exit status in $RC.
call() {
	R=$(printf '%s' "$2" | "$wstools" call "$1" -)
	RC=$?
	calls=$((calls + 1))
	local n=${#R}
	bytes=$((bytes + n))
	if [ "$n" -gt "$largest" ]; then
		largest=$n
		largest_call="$1 $2"
	fi
	[[ $R == '{"success":true'* ]] || failures=$((failures + 1))
	[ -n "${VERBOSE:-}" ] && printf '%3d %-15s %7d B rc=%d %s\n' "$calls" "$1" "$n" "$RC" "$2" >&2
	return 0
}
ok() { [[ $R == '{"success":true'* ]]; }
num() { grep -o "\"$1\":[0-9]*" <<<"$R" | head -1 | cut -d: -f2; }
code() { grep -o '"code":"[A-Z_]*"' <<<"$R" | head -1 | cut -d'"' -f4; }

# Edits through edit_file where wswrite serves it, else write_file's edit.
edit() { # PATH OLD NEW
	if has_tool edit_file; then
		call edit_file "{\"path\":\"$1\",\"old\":\"$2\",\"new\":\"$3\"}"
	else
		call write_file "{\"path\":\"$1\",\"edit\":true,\"old\":\"$2\",\"new\":\"$3\"}"
	fi
}
edit_all() { # PATH OLD NEW
	if has_tool edit_file; then
		call edit_file "{\"path\":\"$1\",\"old\":\"$2\",\"new\":\"$3\",\"all\":true}"
	else
		call write_file "{\"path\":\"$1\",\"edit\":true,\"old\":\"$2\",\"new\":\"$3\",\"all\":true}"
	fi
}

# Read a file page by page as a model must: follow next_start_line when a
# page is truncated; on FILE_TOO_LARGE, fall back to line ranges.
read_pages() { # PATH MAX_PAGES
	local start=1 pages=0
	call read_file "{\"path\":\"$1\"}"
	while [ "$pages" -lt "$2" ]; do
		pages=$((pages + 1))
		if ok; then
			start=$(num next_start_line)
			[ -n "$start" ] || return 0
			call read_file "{\"path\":\"$1\",\"start_line\":$start}"
		elif [ "$(code)" = FILE_TOO_LARGE ]; then
			call read_file "{\"path\":\"$1\",\"start_line\":$start,\"end_line\":$((start + 199))}"
			start=$((start + 200))
		else
			return 1
		fi
	done
}

# ---- The task: rename parse_cfg to parse_config, bump the version, look
# into the errors in the log, tidy up -------------------------------------
call list_directory '{"path":"/"}'                               # explore
call read_file '{"path":"README.md"}'
call list_directory '{"path":"src","recursive":true}'
call search_files '{"pattern":"","output_mode":"files","include":["*.c"]}'  # find by name
call search_files '{"pattern":"parse_cfg"}'
call read_file '{"path":"src/config.c"}'
# The model's first edit is ambiguous ("parse_cfg" twice): recover with
# more context, then the rest with all.
edit src/config.c 'parse_cfg' 'parse_config'
if ! ok; then
	edit src/config.c 'int parse_cfg(' 'int parse_config('
	edit src/config.c '/* parse_cfg:' '/* parse_config:'
fi
edit src/config.c 'return 1;' 'return 2;'
call read_file '{"path":"src/main.c","start_line":5,"end_line":9}'
edit src/main.c 'parse_cfg(argv[1]' 'parse_config(argv[1]'
edit_all include/config.h 'parse_cfg' 'parse_config'
call search_files '{"pattern":"parse_cfg"}'                     # none left (exit 1)
# The data directory: 1,500 entries.
call list_directory '{"path":"data"}'
if ok && [ -n "$(num next_offset)" ]; then
	call list_directory "{\"path\":\"data\",\"offset\":$(num next_offset)}"
fi
call search_files '{"pattern":"","output_mode":"files","include":["item_1234*"]}'
call read_file '{"path":"data/item_1234.json"}'
# The log: find the errors, read around one, page through the start.
call search_files '{"pattern":"ERROR","paths":["logs"],"max_results":10}'
call read_file '{"path":"logs/app.log","start_line":9970,"end_line":9976}'
read_pages logs/app.log 2
call read_file '{"path":"assets/logo.png"}'                     # binary
call read_file '{"path":"/etc/hostname"}'                       # host path: not here
[ "$(code)" = NOT_FOUND ] && call list_directory '{"path":"/"}'
call read_file '{"path":"notes with spaces.md"}'                # odd names
call read_file '{"path":"ünïcode.txt"}'
call read_file '{"path":"-dash.txt"}'
call read_file '{"path":"src/config.c","end_line":0}'           # a bad argument
ok || call read_file '{"path":"src/config.c","start_line":"1","end_line":"6"}'
call write_file '{"path":"tests/test_config.c","content":"#include \"config.h\"\nint main(void) { return cfg_version() == 2 ? 0 : 1; }\n"}'
if has_tool create_directory; then
	call create_directory '{"path":"docs"}'
	call write_file '{"path":"docs/CHANGES.md","content":"- parse_cfg is now parse_config\n"}'
	call move_path '{"source":"docs/CHANGES.md","destination":"CHANGES.md"}'
	call delete_path '{"path":"tmp/scratch.txt"}'
else
	call write_file '{"path":"docs","mkdir":true}'
	call write_file '{"path":"docs/CHANGES.md","content":"- parse_cfg is now parse_config\n"}'
	call write_file '{"path":"docs/CHANGES.md","move":"CHANGES.md"}'
	call write_file '{"path":"tmp/scratch.txt","delete":true}'
fi
call run_command '{"command":["grep","-rn","parse_config","src","include"]}'
ok || call search_files '{"pattern":"parse_config","output_mode":"count"}'
call read_file '{"path":"src/config.c"}'                        # verify
call list_directory '{"path":"/"}'

# ---- Done? ------------------------------------------------------------
done_ok=1
grep -q 'int parse_config(' "$ws/src/config.c" || done_ok=0
grep -q 'return 2;' "$ws/src/config.c" || done_ok=0
grep -q 'parse_config(argv' "$ws/src/main.c" || done_ok=0
grep -q parse_cfg "$ws/include/config.h" && done_ok=0
[ -f "$ws/CHANGES.md" ] && [ ! -e "$ws/tmp/scratch.txt" ] || done_ok=0

printf 'replay: %d calls (%d failed and recovered from), %d bytes returned in all, largest single result %d bytes (%s)\n' \
	"$calls" "$failures" "$bytes" "$largest" "$largest_call"
if [ "$done_ok" = 1 ]; then
	echo "replay: task done"
	exit 0
fi
echo "replay: task NOT done" >&2
exit 1
