#!/usr/bin/env bash
# requests.sh: nginx and Redis under request mode with and without profiling
# (issue 32's goal: profiling adds at most 5% to request mode's cost), by
# bench/requests/nginx.sh and redis.sh with their profile row on
# (RB_PROFILE=1) and their plain-capture row off (RB_NO_PLAIN=1): rows bare,
# requests, profile, alternated in each round. Arguments go to both.
#   usage: sudo bench/profile/requests.sh [-r ROUNDS] [AGENT]
# With RB_BPF_STATS=1 each agent row also says the ns per request the kernel
# counted in the agent's BPF programs, and in profiling's (prof_*), with
# kernel.bpf_stats_enabled on for the run (bench/requests/lib.sh, rb_bpf).
here=$(cd "$(dirname "$0")" && pwd)
export RB_PROFILE=1 RB_NO_PLAIN=1
if [ -n "${RB_BPF_STATS:-}" ]; then
	command -v bpftool >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q bpftool >/dev/null
	old=$(cat /proc/sys/kernel/bpf_stats_enabled)
	trap 'echo "$old" >/proc/sys/kernel/bpf_stats_enabled' EXIT
	echo 1 >/proc/sys/kernel/bpf_stats_enabled
fi
"$here/../requests/nginx.sh" "$@"
"$here/../requests/redis.sh" "$@"
