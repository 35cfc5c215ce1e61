# lib.sh: what nginx.sh and redis.sh share: starting the agent and waiting until
# it captures, its CPU ticks, stopping it and reading its exit summary, the
# metrics it serves, and the per-row table. Sourced, not run.

RB_TCK=$(getconf CLK_TCK)
RB_SYSCALLS='evt.type in (read, write, readv, writev, sendto, recvfrom, sendmsg, recvmsg, sendfile)'

# rb_install CMD PACKAGE...: install PACKAGE (the first Debian has) when CMD is missing.
rb_install() {
	local cmd=$1 p; shift
	command -v "$cmd" >/dev/null && return 0
	for p in "$@"; do
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$p" >/dev/null 2>&1 && return 0
	done
	command -v "$cmd" >/dev/null
}

# rb_agent_start ERRFILE ARGS...: start the agent (-v) and wait for its "capturing"
# line, so start-up (mostly the kernel verifying programs) is not in the row.
rb_agent_start() {
	local err=$1 i; shift
	RB_ERR=$err
	"$RB_AGENT" -v "$@" >/dev/null 2>"$err" &
	RB_PID=$!
	for i in $(seq 600); do
		grep -q capturing "$err" && return 0
		kill -0 "$RB_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "agent $* did not start:" >&2; cat "$err" >&2
	kill -INT "$RB_PID" 2>/dev/null; wait "$RB_PID" 2>/dev/null
	return 1
}

# rb_ticks PID: user+system clock ticks of every thread of PID so far.
rb_ticks() {
	sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

rb_agent_stop() {
	kill -INT "$RB_PID"; wait "$RB_PID" 2>/dev/null
}

# rb_dropped ERRFILE: the kernel drops from the agent's exit summary.
rb_dropped() {
	grep -m1 -oE '[0-9]+ dropped,' "$1" | grep -oE '^[0-9]+'
}

# rb_paired ERRFILE: the records the pairing completed (both sides of a request
# on this host are two records).
rb_paired() {
	grep -m1 -oE 'requests: [0-9]+ paired' "$1" | grep -oE '[0-9]+'
}

# rb_metric ADDR NAME [LABEL_MATCH]: the sum of NAME's series (those whose labels
# contain LABEL_MATCH) on the agent's /metrics.
rb_metric() {
	curl -s "http://$1/metrics" | awk -v n="$2" -v m="${3:-}" '
		($1 == n || index($1, n "{") == 1) && index($0, m) { s += $NF }
		END { printf "%.0f\n", s }'
}

# rb_agent_done NAME T0 COUNT SERVER MPORT: after a row's load, stop the agent
# started before it (CPU ticks T0 then) and set RB_EXTRA to what the row says of
# it; COUNT is the load tool's request count; in the requests row, SERVER is
# the server's process name in the metrics on MPORT.
rb_agent_done() {
	local name=$1 t0=$2 count=$3 server=$4 mport=$5 t served paired
	t=$(($(rb_ticks $RB_PID) - t0))
	# the metrics text is rendered about once a second
	[ "$name" = requests ] && sleep 1.5 &&
		served=$(rb_metric "127.0.0.1:$mport" agent_request_total "process=\"$server\"")
	rb_agent_stop
	RB_EXTRA=$(printf 'agent %.2f s CPU, %s s per 100k; dropped %s' \
		"$(awk -v t=$t -v hz="$RB_TCK" 'BEGIN { print t / hz }')" \
		"$(rb_cpu_per_100k $t "$count")" "$(rb_dropped "$RB_ERR")")
	[ "$name" = requests ] || return 0
	paired=$(rb_paired "$RB_ERR")
	RB_EXTRA="$RB_EXTRA; load tool $count, agent counted $served at $server ($((served - count))), paired $paired records ($((paired - 2 * count)) vs 2 per request)"
}

# rb_cpu_per_100k TICKS REQUESTS: agent CPU seconds per 100k requests.
rb_cpu_per_100k() {
	awk -v t="$1" -v n="$2" -v hz="$RB_TCK" 'BEGIN { printf "%.2f", n ? t / hz / n * 1e5 : 0 }'
}

# rb_share RATE BARE
rb_share() {
	awk -v r="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? r / b : 0 }'
}

# rb_summary FILE: FILE has "config rate share" lines; print each config's mean
# rate and mean share of bare, in the order first seen.
rb_summary() {
	awk '{ if (!($1 in n)) o[k++] = $1; n[$1]++; r[$1] += $2; s[$1] += $3 }
		END { for (i = 0; i < k; i++) { c = o[i]
				printf "  %-13s %10.0f /s mean of %d, %.2f of bare (mean of rounds)\n",
					c, r[c] / n[c], n[c], s[c] / n[c] } }' "$1"
}
