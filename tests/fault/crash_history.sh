#!/usr/bin/env bash
# crash_history.sh CMD_DIR INJECTOR [WSWRITE] - a recorded change killed at every
# step (issue 22): for each way of changing a file (overwrite, append,
# edit, delete, move) and each system call of the path (the history's
# and the write's: openat, write, pwrite, fsync, fdatasync, renameat,
# renameat2, linkat, unlinkat), wswrite dies of SIGKILL right before its
# 1st, 2nd, ... call until a run no longer reaches it.  After each: the
# file is the old or the new content, never a mix; the journal reads; and
# `wstools undo --force` (the crash left the change unconfirmed) brings
# the old content back, at its old path.  WSWRITE, when given, is the
# wswrite to run (a dynamic one: LD_PRELOAD cannot reach a static-pie
# binary, see fault.sh).
set -uo pipefail
shopt -s dotglob nullglob
cmd=${1:?usage: crash_history.sh CMD_DIR INJECTOR}
inj=$(realpath "${2:?usage: crash_history.sh CMD_DIR INJECTOR}")
wswrite=${3:-$cmd/wswrite}
tmp=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && tmp=/dev/shm
base=$(mktemp -d "$tmp/wscrash-XXXXXX")
trap 'rm -rf "$base"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0
unset WS_ROOT WS_POLICY WS_CONFIG WS_MOUNTS WS_FORMAT WS_PATHS WS_STRICT WS_ALLOW_OUTSIDE WS_AUDIT
export XDG_CONFIG_HOME=/nonexistent-wscrash
ws=$base/ws
fail=0 runs=0 killed=0
calls=(openat write pwrite fsync fdatasync renameat renameat2 linkat unlinkat)
# check WHAT: the file holds the old content after undo --force.
for how in overwrite append edit delete move; do
	for call in "${calls[@]}"; do
		for n in $(seq 1 40); do
			rm -rf "$ws" "$base/state"
			mkdir -p "$ws"
			printf 'old content\n' >"$ws/f"
			export XDG_STATE_HOME=$base/state
			case $how in
			overwrite) args=(--content 'new content' f) ;;
			append) args=(--append --content 'more' f) ;;
			edit) args=(--edit --old old --new new f) ;;
			delete) args=(--delete f) ;;
			move) args=(--move g f) ;;
			esac
			err=$(WSF_CALL=$call WSF_NTH=$n WSF_KILL=1 LD_PRELOAD=$inj \
				"$wswrite" --workspace "$ws" "${args[@]}" 2>&1 >/dev/null)
			st=$?
			runs=$((runs + 1))
			case $err in *"wsfault: $call #$n"*) ;; *) break ;; esac
			killed=$((killed + 1))
			if [ "$st" -ne 137 ] && [ "$st" -ne 0 ]; then
				: # killed inside a child, or the shell reports otherwise
			fi
			if [ -f "$ws/f" ]; then
				c=$(cat "$ws/f")
				case $c in "old content"|"new content"|$'old content\nmore') ;;
				*) echo "FAIL: $how $call #$n: f holds '$c'"; fail=1 ;; esac
			fi
			out=$("$cmd/wstools" undo --workspace "$ws" --force 2>&1)
			ust=$?
			if [ -f "$ws/f" ] && [ "$(cat "$ws/f")" = "old content" ] &&
				[ ! -e "$ws/g" ]; then
				continue
			fi
			# Killed before its record: nothing to undo, nothing changed.
			if [ "$ust" -ne 0 ] && [[ $out == *"nothing to undo"* ]] &&
				[ "$(cat "$ws/f" 2>/dev/null)" = "old content" ]; then
				continue
			fi
			echo "FAIL: $how killed at $call #$n; undo: $ust $out"
			ls -la "$ws"
			fail=1
		done
	done
done
# A recorded tree delete killed at every step (issue 22: its record is
# written by hand, the files read through one descriptor each, a large
# one stored as an object): after each, undo --force brings every file
# back with its content (or, killed before the record, nothing changed).
mktree() {
	rm -rf "$ws" "$base/state"
	mkdir -p "$ws/t/a" "$ws/t/b/c"
	for i in 1 2 3; do echo "a$i" >"$ws/t/a/$i"; echo "b$i" >"$ws/t/b/$i"; done
	head -c 9000 /dev/zero | tr '\0' z >"$ws/t/b/c/big"
	ln -s ../a/1 "$ws/t/b/l"
}
treeok() {
	for i in 1 2 3; do
		[ "$(cat "$ws/t/a/$i" 2>/dev/null)" = "a$i" ] &&
			[ "$(cat "$ws/t/b/$i" 2>/dev/null)" = "b$i" ] || return 1
	done
	[ "$(tr -d z <"$ws/t/b/c/big" 2>/dev/null | wc -c)" -eq 0 ] &&
		[ "$(wc -c <"$ws/t/b/c/big" 2>/dev/null)" -eq 9000 ] &&
		[ "$(readlink "$ws/t/b/l")" = "../a/1" ]
}
for call in openat write fsync fdatasync renameat unlinkat; do
	for n in $(seq 1 60); do
		mktree
		export XDG_STATE_HOME=$base/state
		err=$(WSF_CALL=$call WSF_NTH=$n WSF_KILL=1 LD_PRELOAD=$inj \
			"$wswrite" --workspace "$ws" --delete -r t 2>&1 >/dev/null)
		runs=$((runs + 1))
		case $err in *"wsfault: $call #$n"*) ;; *) break ;; esac
		killed=$((killed + 1))
		out=$("$cmd/wstools" undo --workspace "$ws" --force 2>&1)
		ust=$?
		treeok && continue
		echo "FAIL: tree delete killed at $call #$n; undo: $ust $out"
		fail=1
	done
done
# A tree delete that fails part way (EIO at its Nth unlinkat): what it
# removed comes back with a plain undo, the rest is left as it is.
for n in 1 2 3 5 8; do
	rm -rf "$ws" "$base/state"
	mkdir -p "$ws/t/a" "$ws/t/b"
	for i in 1 2 3 4; do echo "a$i" >"$ws/t/a/$i"; echo "b$i" >"$ws/t/b/$i"; done
	WSF_CALL=unlinkat WSF_NTH=$n LD_PRELOAD=$inj \
		"$wswrite" --workspace "$ws" --delete -r t >/dev/null 2>&1
	runs=$((runs + 1))
	out=$("$cmd/wstools" undo --workspace "$ws" 2>&1) ||
		{ echo "FAIL: partial delete (unlinkat #$n): undo: $out"; fail=1; continue; }
	for i in 1 2 3 4; do
		[ "$(cat "$ws/t/a/$i" 2>/dev/null)" = "a$i" ] &&
			[ "$(cat "$ws/t/b/$i" 2>/dev/null)" = "b$i" ] ||
			{ echo "FAIL: partial delete (unlinkat #$n): t/?/$i not back"; fail=1; }
	done
done
# Another writer in the tree between the record and the removals (at the
# record's fdatasync, the last step before the first removal: a new file
# made, or a recorded one rewritten): what the record does not hold is
# kept (DIRECTORY_NOT_EMPTY, naming the count), never deleted unrecorded;
# the rest is deleted and comes back with undo.
for what in new changed; do
	rm -rf "$ws" "$base/state"
	mkdir -p "$ws/t/a" "$ws/t/b"
	for i in 1 2 3 4; do echo "a$i" >"$ws/t/a/$i"; echo "b$i" >"$ws/t/b/$i"; done
	if [ "$what" = new ]; then touch_path=$ws/t/b/new; else touch_path=$ws/t/b/4; fi
	out=$(WSF_CALL=fdatasync WSF_NTH=1 WSF_TOUCH=$touch_path LD_PRELOAD=$inj \
		"$wswrite" --workspace "$ws" --json --delete -r t 2>/dev/null)
	runs=$((runs + 1))
	if [ "$(cat "$touch_path" 2>/dev/null)" != touched ]; then
		echo "FAIL: writer in the tree ($what): deleted unrecorded: $out"
		fail=1
		continue
	fi
	case $out in *DIRECTORY_NOT_EMPTY*"1 entry was made or changed"*) ;;
	*) echo "FAIL: writer in the tree ($what): $out"; fail=1 ;; esac
	[ -e "$ws/t/a" ] && { echo "FAIL: writer in the tree ($what): t/a kept"; fail=1; }
	# A plain undo: what the delete left (the writer's file) stays.
	"$cmd/wstools" undo --workspace "$ws" >/dev/null 2>&1
	for i in 1 2 3; do
		[ "$(cat "$ws/t/a/$i" 2>/dev/null)" = "a$i" ] &&
			[ "$(cat "$ws/t/b/$i" 2>/dev/null)" = "b$i" ] ||
			{ echo "FAIL: writer in the tree ($what): t/?/$i not back"; fail=1; }
	done
	[ "$(cat "$touch_path" 2>/dev/null)" = touched ] ||
		{ echo "FAIL: writer in the tree ($what): undo lost it"; fail=1; }
done
echo "$runs runs, $killed killed at a step"
# Never killed: the injector was never loaded (a static wswrite).
[ "$killed" -gt 0 ] || { echo "FAIL: no run was killed: is $wswrite linked statically?"; fail=1; }
[ "$fail" -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit "$fail"
