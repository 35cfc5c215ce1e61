#!/usr/bin/env bash
# sidebyside_rw.sh: what request mode costs a host busy with file I/O, against a
# filter that wants one file syscall. ../../../shared/bench/side_by_side.sh runs
# its read/write storm (-m rw: 64-byte writes and reads on a pipe, not a
# socket) bare, under the peer (when present), under `agent --requests -q` and
# under `agent -q evt.type=openat`, in one run; each row's share of bare is the
# figure. Request mode keeps only socket I/O (the kernel tests "this fd is a
# socket" first), so its row should be at or above the openat row.
#   usage: sudo bench/requests/sidebyside_rw.sh [AGENT [SECS]]
set -u
here=$(cd "$(dirname "$0")" && pwd)
# An absolute path: side_by_side.sh runs each row's command through bash -c.
agent=$(realpath "${1:-$here/../../build/userspace/agent/agent}")
sbs=$here/../../../shared/bench/side_by_side.sh
[ -x "$agent" ] && [ -r "$sbs" ] || { echo "need a built agent ($agent) and $sbs" >&2; exit 2; }
echo "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
exec bash "$sbs" -s "${2:-5}" -m rw "$agent --requests -q" "$agent -q evt.type=openat"
