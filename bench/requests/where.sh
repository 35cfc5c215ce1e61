#!/usr/bin/env bash
# where.sh: where request mode's cost per request goes (issue 33), by
# nginx.sh and redis.sh (-P 1 and -P 16) with RB_WHERE=1: after each row,
# per request, the syscalls of the server, the agent and the rest of the
# machine (perf stat), each of the agent's BPF programs' runs and ns
# (kernel.bpf_stats_enabled, on for the run), and the machine's CPU by what
# it was in (perf record -a -g of cpu-clock: the BPF programs, their ring
# output, their copies from user memory, their maps and helpers, the
# tracepoint and trampoline around them, then each process's user and
# kernel time). perf and bpf_stats cost something themselves, so the rows'
# rates here are not the benchmark's: read those from nginx.sh and redis.sh.
# One round and no plain row unless asked; arguments go to both scripts.
#   usage: sudo bench/requests/where.sh [-r ROUNDS] [AGENT]
here=$(cd "$(dirname "$0")" && pwd)
export RB_WHERE=1 RB_NO_PLAIN=${RB_NO_PLAIN-1}
command -v perf >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q linux-perf >/dev/null
command -v bpftool >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q bpftool >/dev/null
old=$(cat /proc/sys/kernel/bpf_stats_enabled)
trap 'echo "$old" >/proc/sys/kernel/bpf_stats_enabled' EXIT
echo 1 >/proc/sys/kernel/bpf_stats_enabled
[ "$*" = "${*#-r}" ] && set -- -r 1 "$@"
"$here/nginx.sh" -s 6 "$@"
"$here/redis.sh" "$@"
