#!/usr/bin/env bash
# docs_check.sh BINDIR TOP - every command and output shown in README.md and
# docs/*.md is checked (issue 24).  Each fenced block is one of:
#
#   ```console   run here: each "$ " line is a command, the lines up to the
#                next one its output (stdout and stderr together).  A block
#                runs as one bash script in a fresh copy of
#                examples/workspace, its working directory, with the built
#                tools first on PATH; the copy's path is shown as $WS, the
#                checkout's as $TOP, and what differs from one run to the
#                next (version tokens, elapsed_ms) is masked.  A command
#                that fails shows "(exit status N)" after its output.
#   a block after a line <!-- checked: WHERE -->: checked by another test
#                (the README's demo block by readme_demo_check.sh, the
#                harness loop by tests/agent/harness_check.sh, the MCP
#                client configurations by cli-mcp's config_snippets_parse).
#   a block after a line <!-- illustrative: WHY -->: shown, not run (host
#                paths, timings, a machine's layers), and says why.
#
# Any other block fails the check, so that nothing is shown unchecked by
# accident.
set -euo pipefail
bindir=$(cd "${WST_BIN_DIR:-${1:?usage: docs_check.sh BINDIR TOP}}" && pwd)
top=$(cd "${2:?usage: docs_check.sh BINDIR TOP}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 nblocks=0 nconsole=0 ncmds=0

mask() {
	sed -E -e 's/"version":"[0-9a-f]{16}"/"version":"V"/g' \
		-e 's/"elapsed_ms":[0-9]+/"elapsed_ms":N/g' \
		-e 's/"duration_ms":[0-9]+/"duration_ms":N/g'
}

# split FILE: writes $tmp/blocks/N.{info,text,line,mark} for each block.
split_blocks() {
	rm -rf "$tmp/blocks"
	mkdir -p "$tmp/blocks"
	awk -v dir="$tmp/blocks" '
	/^[ \t]*```/ {
		if (!inb) {
			inb = 1; n++; info = $0; sub(/^[ \t]*```/, "", info)
			ind = $0; sub(/```.*/, "", ind)
			print info > (dir "/" n ".info"); close(dir "/" n ".info")
			print NR > (dir "/" n ".line"); close(dir "/" n ".line")
			print prev > (dir "/" n ".mark"); close(dir "/" n ".mark")
			printf "" > (dir "/" n ".text")
			next
		}
		inb = 0; close(dir "/" n ".text"); next
	}
	inb { l = $0; if (index(l, ind) == 1) l = substr(l, length(ind) + 1)
	      print l >> (dir "/" n ".text"); next }
	/[^ \t]/ { prev = $0; sub(/^[ \t]+/, "", prev) }
	' "$1"
}

# run_console TEXTFILE: the block's commands, each echoed as "$ CMD".
run_console() {
	local ws script out
	ws=$(mktemp -d "$tmp/ws.XXXXXX")
	# HOME apart from the workspace, as a user's is (a server whose
	# workspace is HOME warns so).
	mkdir -p "$tmp/home"
	cp -a "$top/examples/workspace/." "$ws/"
	script="$tmp/script.sh"
	{
		echo 'set +e'
		echo "export PATH='$bindir':\$PATH"
		awk '
		# A command: its "$ " line, and the lines after one that ends
		# with "\\" or "|" (shown indented by four spaces).
		function flush() {
			if (cmd == "") return
			q = cmd; gsub(/\047/, "\047\\\047\047", q)
			print "printf \"%s\\n\" \047$ " q "\047"
			print "{ " cmd "\n} 2>&1; st=$?; [ $st -eq 0 ] || echo \"(exit status $st)\""
			cmd = ""
		}
		cont && /^    / { cmd = cmd "\n" $0; cont = ($0 ~ /[\\|]$/); next }
		/^\$ / { flush(); cmd = substr($0, 3); cont = ($0 ~ /[\\|]$/); next }
		{ cont = 0 }
		END { flush() }
		' "$1"
	} >"$script"
	# The expected text keeps "(exit status N)" lines as they are shown.
	(cd "$ws" && env -u WS_ROOT -u WS_MOUNTS -u WS_POLICY -u WS_FORMAT \
		-u WS_PATHS -u WS_VIEW HOME="$tmp/home" bash "$script" 2>&1) |
		sed -e "s#$ws#\$WS#g" -e "s#$top#\$TOP#g" | mask
}

for f in "$top/README.md" "$top"/docs/*.md; do
	rel=${f#"$top"/}
	split_blocks "$f"
	for info in "$tmp"/blocks/*.info; do
		[ -e "$info" ] || continue
		n=${info%.info}
		nblocks=$((nblocks + 1))
		line=$(cat "$n.line")
		mark=$(cat "$n.mark")
		case "$(cat "$info")" in
		console)
			nconsole=$((nconsole + 1))
			ncmds=$((ncmds + $(grep -c '^\$ ' "$n.text" || true)))
			mask <"$n.text" >"$tmp/want"
			run_console "$n.text" >"$tmp/got"
			if ! diff -u "$tmp/want" "$tmp/got" >"$tmp/diff"; then
				echo "FAIL: $rel:$line: the console block's output differs (- shown, + got):"
				cat "$tmp/diff"
				fail=1
			fi
			;;
		*)
			case "$mark" in
			"<!-- checked: "*" -->" | "<!-- illustrative: "*" -->") ;;
			*)
				echo "FAIL: $rel:$line: a block neither \`\`\`console nor marked <!-- checked: ... --> or <!-- illustrative: ... -->"
				fail=1
				;;
			esac
			;;
		esac
	done
done
echo "$nblocks blocks in README.md and docs/: $nconsole console blocks run ($ncmds commands), the rest marked"
exit $fail
