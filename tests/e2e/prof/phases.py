"""The oracle of tests/e2e/test_profile.sh: each request's phases, from the
phase server's log (phase_server.c: its marks of CLOCK_MONOTONIC, its CPU
clock and run_delay at each phase's bounds, and the wall clock again after
those reads) and the kernel's sched_switch and
sched_wakeup of its thread (a tracefs instance on the mono clock).

usage: phases.py LOG TRACE OUT.json

A phase's time blocked is the thread's, from a switch out not runnable to its
wakeup, within the phase's bounds. The time on CPU over a request is its wall
time less the time blocked and the run-queue wait (run_delay). The thread's
CPU clock is no measure of it on a VM: it leaves out what the host took while
the thread ran (steal), which the agent's time on CPU holds, as every
tracer's; it is only held under it here, as the kernel guarantees.

The trace is on tracefs, not perf: some kernels here show neither tracer a
switch out of one CPU's idle task (so no switch in there). Now and then a
wakeup on a CPU coming out of idle is shown to no tracer either (ftrace
included: driver/README.md, "Switches not seen"); a block that ends at a
switch in with no wakeup seen then ends where its run-queue wait began, by
the kernel's own count: the switch in less what run_delay grew by over the
phase that holds it (the agent splits a wait the same way, from run_delay,
never from wakeups).

Each request also has, in "counted", the same measures from the kernel's
counters alone (the marks' CPU clock and run_delay): a second oracle, for a
request whose trace lost a switch of the thread (CI saw one: a 25 ms lock
wait the agent and the CPU clock showed, the trace did not)."""
import json
import re
import sys

MS = 10**6
EV = re.compile(r"\s(\d+)\.(\d{6}): (sched_switch|sched_wakeup): (.*)")


def blocked_intervals(trace, tid):
    """(start, end, woken) of each time TID was blocked, in ns; woken is
    False for a block that ended at a switch in with no wakeup seen."""
    out, since = [], None
    for line in open(trace):
        m = EV.search(line)
        if not m:
            continue
        t = int(m.group(1)) * 10**9 + int(m.group(2)) * 1000
        ev, rest = m.group(3), m.group(4)
        if ev == "sched_switch":
            prev = int(re.search(r"\bprev_pid=(\d+)", rest).group(1))
            nxt = int(re.search(r"\bnext_pid=(\d+)", rest).group(1))
            state = re.search(r"\bprev_state=(\S+)", rest).group(1)
            if prev == tid and not state.startswith("R"):
                since = t
            elif nxt == tid and since is not None:
                out.append((since, t, False))
                since = None
        elif int(re.search(r"\bpid=(\d+)", rest).group(1)) == tid and since is not None:
            out.append((since, t, True))
            since = None
    return out


def unwoken_ends(ivs, rows):
    """IVS with each block whose wakeup was not seen ended at its switch in
    less the run_delay growth of the phase (of ROWS' marks) that holds the
    switch in; the count of such blocks."""
    out, n = [], 0
    for s, e, woken in ivs:
        if not woken:
            n += 1
            for _, _, _, m in rows:
                for i in range(7):
                    if m[i]["wall"] <= e <= m[i + 1]["wall"]:
                        e = max(s, e - (m[i + 1]["rq"] - m[i]["rq"]))
                        break
                else:
                    continue
                break
        out.append((s, e))
    return out, n


def within(intervals, a, b):
    return sum(max(0, min(e, b) - max(s, a)) for s, e in intervals)


def main(logf, trace, outf):
    rows, tids = [], set()
    for line in open(logf):
        v = list(map(int, line.split()))
        assert len(v) == 3 + 8 * 4, ("a log line of 35 numbers", line)
        marks = [dict(zip(("wall", "cpu", "rq", "after"), v[3 + 4 * i:7 + 4 * i]))
                 for i in range(8)]
        rows.append((v[0], v[1], v[2], marks))
        tids.add(v[0])
    assert len(tids) == 1, ("one serving thread", tids)
    ivs, nowake = unwoken_ends(blocked_intervals(trace, tids.pop()), rows)
    assert ivs, "no block of the server's thread in the kernel's trace"
    if nowake:
        print("%d blocks ended with no wakeup in the trace: ended by run_delay" % nowake)
    out = []
    for tid, holder, redis, m in rows:
        a, b = m[0]["wall"], m[7]["wall"]
        runq = m[7]["rq"] - m[0]["rq"]
        on = (b - a) - within(ivs, a, b) - runq
        cpu = m[7]["cpu"] - m[0]["cpu"]
        # the thread's CPU time is within its time on CPU from the first
        # mark's wall read to the last one's read after its CPU clock (an
        # interrupt in between is charged to the thread: no
        # IRQ_TIME_ACCOUNTING here), 0.5 ms given to the trace's
        # microseconds, the CPU clock's not being slewed as CLOCK_MONOTONIC
        # is (NTP: 500 ppm at most), and what the kernel charges the thread
        # around its fsync's waits beside busy CPUs (seen up to 0.33 ms over
        # in that phase alone with two CPU hogs, whose softirqs wake it)
        b2 = m[7]["after"]
        held = (b2 - a) - within(ivs, a, b2) - runq
        assert cpu <= held + MS // 2, ("CPU clock %.3f ms over the time on CPU %.3f ms" % (
            cpu / MS, held / MS), m)

        def phase(i):
            return within(ivs, m[i]["wall"], m[i + 1]["wall"])

        def counted(i):
            # the kernel's own counters over phase I: its wall time less
            # the thread's CPU clock and run_delay (this kernel accounts no
            # steal, /proc/stat's column stays 0, so the CPU clock is the
            # time between the thread's switches in and out)
            d = lambda k: m[i + 1][k] - m[i][k]
            return max(0, d("wall") - d("cpu") - d("rq"))
        out.append({"tid": tid, "holder": holder, "redis": redis, "on": on, "cpu": cpu,
                    "sleep": phase(1), "lock": phase(3), "file": phase(5), "runq": runq,
                    "blocked": within(ivs, a, b),
                    "counted": {"on": cpu, "sleep": counted(1), "lock": counted(3),
                                "file": counted(5)}})
    json.dump(out, open(outf, "w"))


if __name__ == "__main__":
    main(*sys.argv[1:4])
