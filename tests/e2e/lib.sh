# Shared helpers for the end-to-end tests: run the real agent binary as a user would.
# Usage: source lib.sh; AGENT is the binary (first argument of every test).
set -u
AGENT=${AGENT:?AGENT must name the agent binary}
checks=0
failures=0
TMP=$(mktemp -d /tmp/agent-e2e.XXXXXX)
trap 'cleanup_e2e' EXIT

cleanup_e2e() {
	[ -n "${AGENT_PID:-}" ] && kill -9 "$AGENT_PID" 2>/dev/null
	[ -n "${busy:-}" ] && kill "$busy" 2>/dev/null
	[ -n "${FTRACE:-}" ] && { echo 0 >"$FTRACE/events/enable"; rmdir "$FTRACE"; } 2>/dev/null
	# a tracefs this test mounted goes too: later tests see the host as it was
	[ -n "${FTRACE_MOUNTED:-}" ] && umount "$FTRACE_MOUNTED" 2>/dev/null
	# E2E_KEEP=DIR: the run's files kept there, to look at a failure
	[ -n "${E2E_KEEP:-}" ] && cp -a "$TMP" "$E2E_KEEP"
	rm -rf "$TMP"
}

need_live() {
	local why=""
	[ "$(id -u)" = 0 ] || why="end-to-end tests need root"
	[ -r /sys/kernel/btf/vmlinux ] || why="the kernel has no BTF"
	if [ -n "$why" ]; then
		if [ -n "${AGENT_REQUIRE_LIVE:-}" ]; then
			echo "FAIL: $why, but AGENT_REQUIRE_LIVE is set"; exit 1
		fi
		echo "skip: $why"; exit 77
	fi
	if bpf_hung_before; then
		echo "FAIL: an earlier test found the kernel's BPF loader hung ($(sed -n 2p "$HUNG_MARK"));" \
			"every load hangs until a reboot: not starting an agent"
		exit 1
	fi
}

# A test that saw the kernel's BPF loader hang leaves this boot's id here, so
# that the tests after it fail at once, pointing at it (tests/live/load_watch.h).
HUNG_MARK=/run/agent-tests-bpf-hung
bpf_hung_before() {
	[ -r "$HUNG_MARK" ] && [ "$(head -n 1 "$HUNG_MARK")" = "$(cat /proc/sys/kernel/random/boot_id)" ]
}

# Installs the Debian packages a test talks to, when missing (root; CI is root).
E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# prints a port on 127.0.0.1 free for TCP and UDP, below the ephemeral range,
# and never one it printed before in this test: two taken before either is
# bound (P=$(free_port); MP=$(free_port)) were once the same, and a scrape of
# the agent's metrics then went to a stalled receiver and hung the test
free_port() {
	python3 "$E2E_DIR/server_port.py" "$TMP/ports.given"
}

need_pkgs() {	# need_pkgs PKG...
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} = 0 ] && return 0
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
		{ apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }
}

# Podman (and buildah) as these machines allow them: no default rlimits (raising
# them needs CAP_SYS_RESOURCE), runc, cgroupfs, events to a file (no systemd or
# journald). Exports CONTAINERS_CONF.
podman_conf() {
	cat >"$TMP/containers.conf" <<'EOF'
[containers]
default_ulimits = []
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
	export CONTAINERS_CONF=$TMP/containers.conf
}

expect() {	# expect DESCRIPTION COMMAND...
	local what=$1; shift
	checks=$((checks + 1))
	if "$@"; then
		echo "ok: $what"
	else
		failures=$((failures + 1))
		echo "FAIL: $what"
		return 1
	fi
}

# Starts the agent in the background with stdout/stderr to files; waits until the
# driver is attached (the agent says so on stderr with -v). REQ_AGENT_EXTRA:
# words added to a request-mode agent's arguments (test_req_profile runs the
# request tests again with --profile); each such agent's exit summary is then
# checked for kernel drops by finish.
AGENT_ERRS=()
start_agent() {	# start_agent OUT ERR ARGS...
	local out=$1 err=$2 extra=(); shift 2
	if [ -n "${REQ_AGENT_EXTRA:-}" ] && [[ " $* " == *" --requests "* ]]; then
		read -ra extra <<<"$REQ_AGENT_EXTRA"
		AGENT_ERRS+=("$err")
	fi
	# emptied here, not by the redirection in the child, which may come
	# after the wait below has read a "capturing" left by a run before
	: >"$err"
	"$AGENT" -v "${extra[@]}" "$@" >"$out" 2>"$err" &
	AGENT_PID=$!
	wait_capturing "$err" "$AGENT_PID"
}

# An agent that does not start says which step it is in after this many
# seconds (the agent's start-up watchdog): well inside wait_capturing's bound.
export AGENT_START_WARN_SECS=${AGENT_START_WARN_SECS:-5}

# Waits until an agent started with -v says on ERR that it captures; fails if
# PID ends first, or once it has gone TENTHS tenths of a second (default 100)
# without using CPU time, or after 10 minutes. Not a bound on the time a start
# takes: the BPF verifier works in the agent's own syscalls, so a slow load
# (several agents at once, a CPU hog beside them) still uses CPU time, which
# the kernel accounts to it; a hung BPF loader holds it in the kernel without
# any. An agent still starting then is told plainly (load_stuck), so that the
# test that saw a hung BPF loader says so, not the ones after it.
wait_capturing() {	# wait_capturing ERR PID [TENTHS]
	local err=$1 pid=$2 n=${3:-100} idle=0 cpu last=-1
	for _ in $(seq 1 6000); do
		grep -q 'capturing' "$err" 2>/dev/null && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		cpu=$(cpu_ticks "$pid")
		if [ "$cpu" = "$last" ]; then
			idle=$((idle + 1))
			[ "$idle" -ge "$n" ] && break
		else
			idle=0 last=$cpu
		fi
		sleep 0.1
	done
	load_stuck "$pid" "$err"
	return 1
}

# The CPU time PID and the children it waited for used, in clock ticks
# (utime, stime, cutime and cstime of /proc/PID/stat).
cpu_ticks() {	# cpu_ticks PID
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || { echo gone; return; }
	# the fields after the command name, which may hold spaces: state is the first
	set -- ${s##*) }
	echo $(( ${12} + ${13} + ${14} + ${15} ))
}

# rt_on PID... / rt_off PID...: every thread of each PID at real-time priority
# (SCHED_FIFO), or back to normal. For the time bounds the README promises of
# the agent itself (a latency, an exit within 1 s), on the agent and on the
# test's shell that reads the clock: a SCHED_FIFO task runs ahead of every
# normal one (sched(7)), so a CPU hog beside the suite cannot delay them, and
# what is measured is the agent's own clocks and work, as on a quiet machine.
# Only around the measurement: the BPF loads and frees at start and stop run
# at normal priority, beside the kernel's own workers.
rt_on() { local p; for p; do chrt -a -f -p 10 "$p" >/dev/null || return 1; done; }
rt_off() { local p; for p; do chrt -a -o -p 0 "$p" >/dev/null 2>&1; done; return 0; }

# What a start that did not end shows: the agent's last words, where it sits
# in the kernel, and the kernel's hung-task lines (a wedged BPF loader leaves
# bpf_prog_pack_free or __purge_vmap_area_lazy in them; then every program
# load on the machine hangs until a reboot).
load_stuck() {	# load_stuck PID [ERR]
	local pid=$1 err=${2:-} t
	echo "FAIL: agent $pid has not started after its bound"
	[ -n "$err" ] && [ -s "$err" ] && { echo "  its stderr:"; sed 's/^/    /' "$err" | tail -n 8; }
	local hung=
	if [ -r "/proc/$pid/status" ]; then
		echo "  $(grep '^State:' "/proc/$pid/status")"
		for t in /proc/"$pid"/task/*; do
			[ -r "$t/stack" ] || continue
			echo "  kernel stack of thread ${t##*/} ($(cat "$t/comm" 2>/dev/null)):"
			sed 's/^/    /' "$t/stack" | head -n 16
			# a thread in state D in the kernel's BPF code: hung, not slow
			grep -q '^State:.*D' "$t/status" 2>/dev/null && grep -q bpf "$t/stack" && hung=1
		done
	fi
	dmesg_hung | sed 's/^/  dmesg: /'
	[ -n "$hung" ] && { cat /proc/sys/kernel/random/boot_id
			    echo "seen by $(basename "$0"), agent $pid in state D in the kernel's BPF code"; } >"$HUNG_MARK"
}

# The kernel's lines about tasks blocked in it, the BPF loader's above all.
dmesg_hung() {
	dmesg 2>/dev/null | grep -E 'blocked for more than|hung_task|bpf_prog_pack|__purge_vmap_area_lazy|bpf_prog_load' |
		tail -n 20
}

# Stops it with SIGTERM and waits; returns its exit status.
stop_agent() {
	kill -TERM "$AGENT_PID" 2>/dev/null
	local rc=0
	wait "$AGENT_PID" || rc=$?
	AGENT_PID=
	return $rc
}

# asleep_in PID NR [ARG0]: a thread of PID sleeps in system call NR (x86_64
# numbers, the driver's table), its first argument ARG0 if given:
# /proc/TID/syscall shows the call and its arguments while a thread sleeps in
# it. Its enter event is then written; its exit event is not.
asleep_in() {
	local t nr a0
	for t in /proc/"$1"/task/*; do
		read -r nr a0 _ 2>/dev/null <"$t/syscall" || continue
		[ "$nr" = "$2" ] && { [ -z "${3:-}" ] || [ "$((a0))" = "$3" ]; } && return 0
	done
	return 1
}

# write_blocked PID FD: a thread of PID sleeps writing to FD (write, pwrite64,
# writev): the pipe or socket there has no room, PID waits for its reader.
write_blocked() { asleep_in "$1" 1 "$2" || asleep_in "$1" 18 "$2" || asleep_in "$1" 20 "$2"; }

# wait_for SECONDS COMMAND...: true once COMMAND succeeds, polled every 50 ms.
wait_for() {
	local end=$((SECONDS + $1)); shift
	until "$@" 2>/dev/null; do
		[ $SECONDS -ge $end ] && return 1
		sleep 0.05
	done
}

# The kernel frees programs after an RCU grace period, from a worker: allow it
# a moment (up to 20 s on a loaded machine; it returns as soon as they are gone).
no_progs_loaded() { wait_for 20 not our_progs_loaded; }
not() { ! "$@"; }

our_progs_loaded() {	# true if any of the driver's programs is still in the kernel
	command -v bpftool >/dev/null || PATH=$PATH:/usr/sbin
	bpftool prog show 2>/dev/null | grep -Eq 'name (sys_enter|sys_exit|sched_process_e|syscall_close_e)'
}

# ftrace_start TID: the kernel's sched_switch and sched_wakeup of thread TID,
# on CLOCK_MONOTONIC, into a tracefs instance of the test's own (FTRACE;
# removed at exit, with the tracefs mount if the test made it). The kernel's
# own record, beside any BPF of ours.
FTRACE= FTRACE_MOUNTED=
ftrace_start() {
	local t=/sys/kernel/tracing
	if [ ! -d "$t/instances" ]; then
		mount -t tracefs nodev "$t" || return 1
		FTRACE_MOUNTED=$t
	fi
	FTRACE=$t/instances/agent-e2e-$$
	mkdir "$FTRACE" && echo mono >"$FTRACE/trace_clock" &&
		echo "prev_pid == $1 || next_pid == $1" >"$FTRACE/events/sched/sched_switch/filter" &&
		echo "pid == $1" >"$FTRACE/events/sched/sched_wakeup/filter" &&
		echo 1 >"$FTRACE/events/sched/sched_switch/enable" &&
		echo 1 >"$FTRACE/events/sched/sched_wakeup/enable"
}

# ftrace_stop OUT: the record into OUT, the instance removed; false if its
# ring lost any of it.
ftrace_stop() {
	local lost
	echo 0 >"$FTRACE/events/enable"
	grep -v '^#' "$FTRACE/trace" >"$1"
	lost=$(cat "$FTRACE"/per_cpu/cpu*/stats | awk '/^overrun:/ { n += $2 } END { print n + 0 }')
	rmdir "$FTRACE" && FTRACE=
	[ "$lost" = 0 ]
}

finish() {
	local f
	for f in "${AGENT_ERRS[@]}"; do
		expect "no kernel drops under '$REQ_AGENT_EXTRA' at the default rings ($(basename "$f"))" \
			grep -qE '^agent: dropped 0 ' "$f" || grep -E '^agent: (dropped|profiling)' "$f"
	done
	echo "$((checks - failures)) passed, $failures failed"
	[ "$failures" = 0 ]
}
