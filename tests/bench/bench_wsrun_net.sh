#!/usr/bin/env bash
# bench_wsrun_net.sh - what network by name costs (issue 23): the start of
# a command with an allowlist against one with the network off (target:
# at most 1 ms more), and a 100 MB download through the proxy on loopback
# against the same download straight (target: at least 80 % of its
# speed), over HTTP and over SOCKS5.  Only loopback: a sendfile(2)
# server on 127.0.0.1, reached by name through the test-only host map,
# whose rule names 127.0.0.1.
source "$(dirname "$0")/lib.sh"
need curl curl
need cc gcc
bin=$(bench_bin)
tmp=$(mktemp -d)
srv_pid=
trap '[ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp"
runs=${RUNS:-200}
mkdir ws

# A server that answers every request with the file, by sendfile(2): it
# must not be what limits either download.
cat >srv.c <<'C'
#include <arpa/inet.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	struct stat st;

	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (argc < 2 || bind(l, (void *)&a, sizeof(a)) || listen(l, 64) ||
	    getsockname(l, (void *)&a, &al) || stat(argv[1], &st))
		return 1;
	printf("%d\n", ntohs(a.sin_port));
	fflush(stdout);
	for (;;) {
		int c = accept(l, NULL, NULL), f;
		char buf[8192], h[128];
		off_t off = 0;

		if (c < 0)
			continue;
		if (recv(c, buf, sizeof(buf), 0) > 0 && (f = open(argv[1], O_RDONLY)) >= 0) {
			snprintf(h, sizeof(h), "HTTP/1.0 200 OK\r\nContent-Length: %lld\r\n\r\n",
				 (long long)st.st_size);
			send(c, h, strlen(h), 0);
			while (off < st.st_size && sendfile(c, f, &off, st.st_size - off) > 0)
				;
			close(f);
		}
		close(c);
	}
}
C
cc -O2 -o srv srv.c
head -c $((100 * 1024 * 1024)) /dev/zero >big
./srv big >port &
srv_pid=$!
sleep 0.2
port=$(cat port)
echo "web.test 127.0.0.1" >hosts
export WS_NET_HOSTS_FILE=$tmp/hosts
cat >pol.json <<J
{"version": 1, "name": "bench",
 "command_rules": [{"name": "any", "patterns": [""], "decision": "allow"}],
 "network_rules": [{"name": "web", "hosts": ["web.test", "127.0.0.1"], "decision": "allow"}]}
J

# Interleaved rounds (each command once a round, shuffled), medians: a
# change in the machine's load falls on every command alike.
echo "== start: wsrun -- true, network off vs --net-allow ($runs interleaved rounds)"
"$(bench_interleave)" -r "$runs" -w 20 \
	off "$bin/wsrun --workspace ws -- true" \
	allow "$bin/wsrun --workspace ws --net-allow example.org -- true" >start.tsv
python3 - start.tsv <<'P'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
print(rows[0][0])
m = {r[0]: float(r[1]) for r in rows[1:]}
off, on = m["off"], m["allow"]
print(f"network off   {off:7.3f} ms (median)")
print(f"--net-allow   {on:7.3f} ms (median)")
print(f"difference    {on - off:+7.3f} ms   target <= 1 ms: {'met' if on - off <= 1 else 'MISSED'}")
P

echo "== 100 MB over loopback: straight vs through the proxy (HTTP, SOCKS5)"
# ${DL_ROUNDS:-9} interleaved rounds of the three downloads; medians of
# curl's own speed figure.
WSRUN=$bin/wsrun PORT=$port python3 - "${DL_ROUNDS:-9}" <<'P'
import os, random, statistics, subprocess, sys
w, port = os.environ["WSRUN"], os.environ["PORT"]
cw = ["curl", "-s", "-o", "/dev/null", "-w", "%{speed_download}"]
run = [w, "--workspace", "ws", "--policy", "pol.json", "--"]
cmds = {
    "straight": cw + [f"http://127.0.0.1:{port}/big"],
    "proxied": run + cw + [f"http://web.test:{port}/big"],
    "SOCKS5": run + cw + ["--socks5-hostname", "127.0.0.1:3128",
                          f"http://web.test:{port}/big"],
}
got = {k: [] for k in cmds}
print("# load average at start:", open("/proc/loadavg").read().strip(),
      f"{sys.argv[1]} rounds, shuffled")
for _ in range(int(sys.argv[1])):
    for k in random.sample(list(cmds), len(cmds)):
        out = subprocess.run(cmds[k], capture_output=True, text=True).stdout
        got[k].append(float(out or 0))
d = statistics.median(got["straight"])
print(f"straight      {d / 1e6:9.1f} MB/s (median)")
for k in ("proxied", "SOCKS5"):
    p = statistics.median(got[k])
    print(f"{k:13s} {p / 1e6:9.1f} MB/s   {p / d * 100:6.1f} %   "
          f"target >= 80 %: {'met' if p >= 0.8 * d else 'MISSED'}")
P
