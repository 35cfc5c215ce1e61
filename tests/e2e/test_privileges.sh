#!/usr/bin/env bash
# Least privilege, as README's "Privileges" gives it: the agent as uid nobody and
# as uid 0 with exactly CAP_BPF, CAP_PERFMON, CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH
# and CAP_IPC_LOCK captures root's events with fd names read from /proc; each one
# taken away, the agent names it (an error, or a warning where events still flow);
# the rings' locked memory is checked exactly; and the podman command works.
source "$(dirname "$0")/lib.sh"
need_live

SET=+bpf,+perfmon,+sys_ptrace,+dac_read_search,+ipc_lock
# The build directory may not be traversable by nobody: a copy in a 0755 dir.
chmod 755 "$TMP"
mkdir -m 755 "$TMP/bin"
install -m 755 "$AGENT" "$TMP/bin/agent"
BIN=$TMP/bin/agent

# README's commands: setpriv as nobody, and as root with the same sets.
as_nobody() {	# as_nobody CAPS ARGS...
	local caps=$1; shift
	timeout 90 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		--inh-caps=-all,$caps --ambient-caps=-all,$caps --bounding-set=-all,$caps "$@"
}
as_root() {	# as_root CAPS ARGS...
	local caps=$1; shift
	timeout 90 setpriv --inh-caps=-all,$caps --ambient-caps=-all,$caps \
		--bounding-set=-all,$caps "$@"
}
lacks() {	# lacks PATTERN FILE
	! grep -q "$@"
}
without() {	# without CAP: the set less one
	echo "$SET" | sed "s/+$1,\?//; s/,$//"
}

# A root process reading, now and then, a root-only file it opened before any agent
# started: its name can only come from /proc/PID/fd. Another opens a marker file.
SECRET=$TMP/secret-$$
seq 1 1000000 >"$SECRET"
chmod 600 "$SECRET"
bash -c 'exec 3<"$1"; while :; do read -r -u 3 l; sleep 0.05; done' _ "$SECRET" &
HOLDER=$!
MARK=$TMP/marker-$$
echo x >"$MARK"
bash -c 'while :; do cat "$1" >/dev/null; sleep 0.05; done' _ "$MARK" &
OPENER=$!
trap 'kill $HOLDER $OPENER 2>/dev/null; cleanup_podman; cleanup_e2e' EXIT
cleanup_podman() { :; }
sleep 0.3

for who in nobody root; do
	run=as_$who
	$run "$SET" "$BIN" -q -M 2 >"$TMP/q.out" 2>"$TMP/q.err"; rc=$?
	expect "$who with the set: -q -M 2 runs" [ $rc = 0 ] || cat "$TMP/q.err"
	expect "$who with the set: it counts events" grep -q ' events read' "$TMP/q.err"
	expect "$who with the set: no warning" lacks 'warning' "$TMP/q.err"

	$run "$SET" "$BIN" -j -n 5 'evt.type=openat' >"$TMP/o.out" 2>"$TMP/o.err"; rc=$?
	expect "$who with the set: -j -n 5 evt.type=openat gives 5 events" \
		[ $rc = 0 -a "$(grep -c '"evt.type":"openat"' "$TMP/o.out")" = 5 ] || cat "$TMP/o.err"

	# (a cat forked before the /proc scan and exec'd before the attach is still
	# "bash" to the agent: proc.name in the filter skips that one). -M is only
	# a bound: the loops open and read every 50 ms, -n 1 ends the run.
	$run "$SET" "$BIN" -j -n 1 -M 60 -p '%proc.name %fd.name' \
		"evt.type=openat and evt.dir=< and proc.name=cat and fd.name=$MARK" >"$TMP/m.out" 2>"$TMP/m.err"
	expect "$who with the set: root's cat opening the marker, with its fd.name" \
		grep -qF "{\"fd.name\":\"$MARK\",\"proc.name\":\"cat\"}" "$TMP/m.out" || cat "$TMP/m.err"

	$run "$SET" "$BIN" -j -n 1 -M 60 -p '*%fd.name' \
		"evt.type=read and proc.pid=$HOLDER and fd.num=3" >"$TMP/r.out" 2>"$TMP/r.err"
	expect "$who with the set: fd.name of a root fd opened before start (from /proc)" \
		grep -qF "{\"fd.name\":\"$SECRET\"}" "$TMP/r.out" || { cat "$TMP/r.out" "$TMP/r.err"; }
done

# Each capability taken away. The ring size is one that fits, except for CAP_IPC_LOCK.
for cap in bpf perfmon; do
	CAP=CAP_${cap^^}
	as_nobody "$(without $cap)" "$BIN" -q -M 2 >/dev/null 2>"$TMP/e.$cap"; rc=$?
	expect "without $CAP: fails" [ $rc = 1 ]
	expect "without $CAP: the message names it alone" \
		grep -q "^agent: missing $CAP, needed to .*: run agent as root, or add it" "$TMP/e.$cap" ||
		cat "$TMP/e.$cap"
done
for cap in sys_ptrace dac_read_search; do
	CAP=CAP_${cap^^}
	as_nobody "$(without $cap)" "$BIN" -j -n 1 -M 60 -p '*%fd.name' \
		"evt.type=read and proc.pid=$HOLDER and fd.num=3" >"$TMP/w.$cap" 2>"$TMP/e.$cap"; rc=$?
	expect "without $CAP: events still flow" [ $rc = 0 -a -s "$TMP/w.$cap" ] || cat "$TMP/e.$cap"
	expect "without $CAP: a warning names it and what is lost" \
		grep -q "^agent: warning: without $CAP the agent cannot .*fd.name.*: add $CAP\$" "$TMP/e.$cap" ||
		cat "$TMP/e.$cap"
	expect "without $CAP: indeed no fd.name for the fd from before" \
		lacks -F "$SECRET" "$TMP/w.$cap"
done

# CAP_IPC_LOCK (--engine perf): the perf rings need (ring + a header page) x online CPUs of locked
# memory; perf_event_mlock_kb (times the CPUs) and RLIMIT_MEMLOCK allow that much.
# With RLIMIT_MEMLOCK set so that 2M rings fit to the page, they run, and a page
# less gives the message with the exact figures and the largest size that fits.
NCPU=$(getconf _NPROCESSORS_ONLN)
MLOCK=$(( $(cat /proc/sys/kernel/perf_event_mlock_kb) / 4 * 4 ))	# whole pages, as the kernel
NEED=$((NCPU * (2048 + 4)))
LIMIT=$((NEED - NCPU * MLOCK))
if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -lt 0 ] || [ $LIMIT -le 4 ]; then
	echo "note: the perf mlock allowance here needs no CAP_IPC_LOCK for 2M rings"
else
	(ulimit -l $LIMIT && as_nobody "$(without ipc_lock)" "$BIN" -q -M 1 --engine perf --ring-size 2M) \
		>/dev/null 2>"$TMP/l1.err"; rc=$?
	expect "without CAP_IPC_LOCK: 2M rings run in exactly enough locked memory" [ $rc = 0 ] ||
		cat "$TMP/l1.err"
	(ulimit -l $((LIMIT - 4)) && as_nobody "$(without ipc_lock)" "$BIN" -q -M 1 --engine perf --ring-size 2M) \
		>/dev/null 2>"$TMP/l2.err"; rc=$?
	# The largest power of two S (KiB) with NCPU x (S + 4K) within the allowance.
	ALLOW=$((NCPU * MLOCK + LIMIT - 4)) S=1024
	while [ $S -gt 4 ] && [ $((NCPU * (S + 4))) -gt $ALLOW ]; do S=$((S / 2)); done
	[ $S -ge 1024 ] && S=$((S / 1024))M || S=${S}K
	expect "without CAP_IPC_LOCK: a page short, it fails" [ $rc = 1 ]
	expect "without CAP_IPC_LOCK: the message gives need, allowance, CAP_IPC_LOCK and --ring-size $S" \
		grep -q "^agent: the perf rings need $NEED KiB of locked memory .* allow $ALLOW KiB: add CAP_IPC_LOCK or use --ring-size $S\$" \
		"$TMP/l2.err" || cat "$TMP/l2.err"
	# The default engine's BPF ring buffers are charged to the memory cgroup:
	# the same allowance is no limit for them.
	(ulimit -l $((LIMIT - 4)) && as_nobody "$(without ipc_lock)" "$BIN" -q -M 1 --ring-size 2M) \
		>/dev/null 2>"$TMP/l3.err"; rc=$?
	expect "without CAP_IPC_LOCK: the default ring buffers need no locked memory" [ $rc = 0 ] ||
		cat "$TMP/l3.err"
fi
# The default 8M perf rings (--engine perf), where they do not fit here: said up
# front, with a size that does; the default engine runs with them.
NEED8=$((NCPU * (8192 + 4)))
if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 0 ] && [ "$(ulimit -l)" != unlimited ] &&
	[ $NEED8 -gt $((NCPU * MLOCK + $(ulimit -l))) ]; then
	as_nobody "$(without ipc_lock)" "$BIN" -q -M 1 --engine perf >/dev/null 2>"$TMP/e.ipc"; rc=$?
	expect "without CAP_IPC_LOCK: default-sized perf rings fail" [ $rc = 1 ]
	expect "without CAP_IPC_LOCK: the message names it and a --ring-size" \
		grep -q "^agent: the perf rings need $NEED8 KiB .*: add CAP_IPC_LOCK or use --ring-size [0-9]*[KM]\$" \
		"$TMP/e.ipc" || cat "$TMP/e.ipc"
	S=$(sed -n 's/.*--ring-size \([0-9]*[KM]\)$/\1/p' "$TMP/e.ipc")
	as_nobody "$(without ipc_lock)" "$BIN" -q -M 1 --engine perf --ring-size "${S:-0}" >/dev/null 2>"$TMP/e.ipc2"
	expect "without CAP_IPC_LOCK: the size it names runs" [ $? = 0 ] || cat "$TMP/e.ipc2"
	as_nobody "$(without ipc_lock)" "$BIN" -q -M 1 >/dev/null 2>"$TMP/e.ipc3"
	expect "without CAP_IPC_LOCK: the default engine's 8M ring buffers run" [ $? = 0 ] ||
		cat "$TMP/e.ipc3"
else
	echo "note: 8M rings fit the perf mlock allowance here: CAP_IPC_LOCK is not needed"
fi

# Podman, README's command (the image here: this agent and its libraries). Debian
# 12's podman lets bpf() through its default seccomp profile only with
# CAP_SYS_ADMIN: without --security-opt seccomp=unconfined the agent says so.
need_pkgs podman conmon runc
podman_conf
IMG=localhost/agent-e2e-priv:$$
cleanup_podman() { podman rmi -f "$IMG" >/dev/null 2>&1; }
mkdir -p "$TMP/root/usr/bin" "$TMP/root/proc" "$TMP/root/sys" "$TMP/root/dev" "$TMP/root/tmp"
cp "$AGENT" "$TMP/root/usr/bin/agent"
for lib in $(ldd "$AGENT" | grep -o '/[^ ]*'); do
	mkdir -p "$TMP/root$(dirname "$lib")"
	cp -L "$lib" "$TMP/root$lib"
done
tar -C "$TMP/root" -c . |
	podman import -q --change 'ENTRYPOINT ["/usr/bin/agent"]' - "$IMG" >/dev/null
expect "podman imported the image" podman image exists "$IMG"
podman_set() {	# podman_set ARGS...: README's flags
	timeout 120 podman run --rm --pid=host --network=host --cap-drop=ALL --cap-add=BPF \
		--cap-add=PERFMON --cap-add=SYS_PTRACE --cap-add=DAC_READ_SEARCH --cap-add=IPC_LOCK "$@"
}
podman_set --security-opt seccomp=unconfined "$IMG" -j -n 5 'evt.type=openat' \
	>"$TMP/p5.out" 2>"$TMP/p5.err"; rc=$?
expect "podman with the set: -j -n 5 evt.type=openat gives 5 events" \
	[ $rc = 0 -a "$(grep -c '"evt.type":"openat"' "$TMP/p5.out")" = 5 ] || cat "$TMP/p5.err"
podman_set --security-opt seccomp=unconfined "$IMG" -j -n 1 -M 60 -p '*%fd.name' \
	"evt.type=read and proc.pid=$HOLDER and fd.num=3" >"$TMP/p.out" 2>"$TMP/p.err"
expect "podman with the set: fd.name of a host root fd from before" \
	grep -qF "{\"fd.name\":\"$SECRET\"}" "$TMP/p.out" || cat "$TMP/p.out" "$TMP/p.err"
podman_set "$IMG" -q -M 1 >/dev/null 2>"$TMP/s.err"; rc=$?
if grep -q "agent: bpf() is blocked by a seccomp filter" "$TMP/s.err"; then
	expect "podman's default seccomp: the agent stops" [ $rc = 1 ]
	expect "podman's default seccomp: the message says what to add" \
		grep -q -- "--security-opt seccomp=unconfined" "$TMP/s.err"
else	# a newer profile that allows bpf() with CAP_BPF
	expect "podman's default seccomp allows bpf() with CAP_BPF" [ $rc = 0 ] || cat "$TMP/s.err"
fi
finish
