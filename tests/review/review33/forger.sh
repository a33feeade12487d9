# forger.sh: sourced by the repros 03 and 04 (B the tools, F their scratch
# directory).  An agent's command in workspace W makes, inside W, the state
# directory of another workspace P's calls (XDG_STATE_HOME=W/sub/.state):
# marked, with the forged records F/pay/walks (forge.py), and then waits.

# W's calls keep their history in F/stA, outside W: a marked state
# directory in W would refuse W's runs.  P's is not made yet.
forger_setup() {
	export HOME=$F/home
	XDG_STATE_HOME=$F/stA "$B/wswrite" --workspace "$F/home" --content x /m >/dev/null || exit 2
	sleep 3
}

# forger_start SECONDS: W's command, waiting SECONDS once the state
# directory is made; its pid in A.
forger_start() {
	cp -r "$F/pay" "$F/W/payload"
	sleep 1
	XDG_STATE_HOME=$F/stA "$B/wsrun" --workspace "$F/W" --timeout 60 -- sh -c \
		"mkdir -p sub/.state/wstools && cp -r payload/walks sub/.state/wstools/ &&
		 : > sub/.state/wstools/.wstools-state && sleep $1" &
	A=$!
}
