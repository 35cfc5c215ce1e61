#!/usr/bin/env bash
# lossy.sh: what TCP health costs a lossy transfer (issue 35). In a network
# namespace of its own (loopback at MTU 1500, 5% of the packets dropped both
# ways by iptables' statistic match, as e2e_tcp does), curl fetches a 4 MB
# file from nginx again and again for SECS seconds a row; rows alternate,
# ROUNDS times, in one run:
#   bare      no agent
#   requests  agent --requests -q --metrics (TCP health on)
#   notcp     the same with --no-tcp
# Per row: downloads/s and its share of the round's bare row, the segments
# retransmitted (nstat's TcpRetransSegs) per download, and the agent's CPU
# per download. The loss makes the rate move with the retransmit timers:
# compare means over rounds.
#   usage: sudo bench/tcp/lossy.sh [-s SECS] [-r ROUNDS] [AGENT]
set -u
secs=8 rounds=3
while getopts s:r: o; do
	case $o in s) secs=$OPTARG ;; r) rounds=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
here=$(cd "$(dirname "$0")" && pwd)
agent=${1:-$here/../../build/userspace/agent/agent}
[ -x "$agent" ] || { echo "no agent at $agent (build first)" >&2; exit 2; }
ns=agent-lossy-$$ tmp=$(mktemp -d /tmp/tcpbench-lossy.XXXXXX)
apid=
cleanup() {
	[ -n "$apid" ] && kill -9 "$apid" 2>/dev/null
	ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
inns() { ip netns exec "$ns" "$@"; }

ip netns add "$ns" && inns ip link set lo mtu 1500 && inns ip link set lo up || exit 1
mkdir -p "$tmp/www" "$tmp/logs"
head -c 4000000 /dev/urandom >"$tmp/www/big"
cat >"$tmp/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $tmp/nginx.pid;
error_log $tmp/logs/error.log;
events { worker_connections 256; }
http { access_log off; server { listen 127.0.0.1:18700; root $tmp/www; } }
EOF
inns nginx -c "$tmp/nginx.conf" -p "$tmp" &
for _ in $(seq 1 50); do inns ss -Hltn 'sport = :18700' | grep -q . && break; sleep 0.1; done
for dir in --dport --sport; do
	inns iptables -w -A INPUT -p tcp "$dir" 18700 -m statistic --mode random \
		--probability 0.05 -j DROP || exit 1
done

retrans() { inns nstat -asz TcpRetransSegs | awk '$1 == "TcpRetransSegs" { print $2 }'; }
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

# row NAME [AGENT ARGS...]: the downloads of SECS seconds, printed.
row() {
	local name=$1 n=0 r0 r1 t0=0 t1=0 end; shift
	apid=
	if [ $# -gt 0 ]; then
		: >"$tmp/agent.err"	# (not the child's redirection: the wait may read the last row's)
		"$agent" -v "$@" >/dev/null 2>"$tmp/agent.err" &
		apid=$!
		for _ in $(seq 1 600); do grep -q capturing "$tmp/agent.err" && break; sleep 0.1; done
		t0=$(ticks "$apid")
	fi
	r0=$(retrans)
	end=$((SECONDS + secs))
	while [ $SECONDS -lt $end ]; do
		inns curl -s -m 30 -o /dev/null http://127.0.0.1:18700/big && n=$((n + 1))
	done
	r1=$(retrans)
	if [ -n "$apid" ]; then
		t1=$(ticks "$apid")
		kill -TERM "$apid"; wait "$apid" 2>/dev/null
		grep -E '^agent: dropped' "$tmp/agent.err" | head -1 >"$tmp/drops"
		apid=
	fi
	echo "$name $n $((r1 - r0)) $((t1 - t0))"
}

hz=$(getconf CLK_TCK)
echo "lossy transfer: 4 MB from nginx to curl, 5% loss both ways, ${secs}s a row, $rounds rounds; $(nproc) CPUs"
for r in $(seq 1 "$rounds"); do
	b=$(row bare)
	q=$(row requests --requests -q --metrics 127.0.0.1:19379)
	qd=$(cat "$tmp/drops")
	t=$(row notcp --requests -q --no-tcp --metrics 127.0.0.1:19379)
	td=$(cat "$tmp/drops")
	bn=$(echo "$b" | awk '{ print $2 }')
	for line in "$b" "$q" "$t"; do
		echo "$line" | awk -v bn="$bn" -v s="$secs" -v hz="$hz" -v r="$r" '{
			printf "round %d  %-9s %5.2f downloads/s  %.2f of bare  %6.0f retransmits/download  agent %.3f s CPU/download\n",
			r, $1, $2 / s, bn ? $2 / bn : 0, $2 ? $3 / $2 : 0, $2 ? $4 / hz / $2 : 0 }'
	done
	echo "  agent exits: requests: $qd; notcp: $td"
done
