#!/usr/bin/env bash
# uprobe_cost.sh: what one TLS call costs under request mode's TLS probes (a
# uprobe at entry, a uretprobe at return), with no TLS work around it. A
# library of do-nothing functions named as OpenSSL's (uprobe_lib.c, built as
# libssl.so.99, so the agent takes it for an OpenSSL file) and a loop calling
# its SSL_write (uprobe_loop.c: best of 5 runs of N calls, ns a call), run
# bare, then under `agent --requests -q` once the agent probed the library
# (the loop waits WAIT seconds first: the agent reads processes' maps every
# second), alternated ROUNDS times.
#   usage: sudo bench/requests/uprobe_cost.sh [AGENT [N [ROUNDS]]]
set -u
here=$(cd "$(dirname "$0")" && pwd)
agent=${1:-$here/../../build/userspace/agent/agent} n=${2:-200000} rounds=${3:-3}
[ -x "$agent" ] || { echo "no agent at $agent (build first)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/uprobe-cost.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -shared -fPIC -o "$tmp/libssl.so.99" -Wl,-soname,libssl.so.99 "$here/uprobe_lib.c" &&
	cc -O2 -o "$tmp/loop" "$here/uprobe_loop.c" "$tmp/libssl.so.99" -Wl,-rpath,"$tmp" ||
	{ echo "cannot build the loop" >&2; exit 2; }
echo "$(nproc) CPUs, $(uname -r); ns per SSL_write call, best of 5 runs of $n"
for r in $(seq "$rounds"); do
	bare=$("$tmp/loop" "$n")
	: >"$tmp/agent.err"	# (not the child's redirection: the wait may read the last row's)
	"$agent" -v --requests -q >/dev/null 2>"$tmp/agent.err" &
	apid=$!
	for _ in $(seq 600); do grep -q capturing "$tmp/agent.err" && break; sleep 0.1; done
	probed=$("$tmp/loop" "$n" 2.5)
	kill -INT "$apid"; wait "$apid"
	grep -q "TLS: probes on" "$tmp/agent.err" || { echo "the agent probed nothing" >&2; exit 1; }
	printf 'round %d: bare %s ns, probed %s ns: %s ns a round trip\n' "$r" "$bare" "$probed" \
		"$(awk -v a="$bare" -v b="$probed" 'BEGIN { printf "%.0f", b - a }')"
done
