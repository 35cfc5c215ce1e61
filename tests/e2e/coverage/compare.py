#!/usr/bin/env python3
"""Compares one run of a program seen by strace -f and by the agent at once.

usage: compare.py SRCDIR STRACE_LOG AGENT_LINES

AGENT_LINES holds '%thread.tid %evt.dir %evt.type %evt.rawres' lines. For each
thread, the calls strace saw must be named the same by the agent, in the same
order (the agent names a syscall by its event, as sysdig: pread64 is pread, dup2
is dup; calls with the generic event by the kernel's name), and every call whose
event the schema decodes must carry strace's return value. Prints what
differs and exits 1 if anything does."""
import errno
import re
import sys
from collections import defaultdict

src, strace_log, agent_log = sys.argv[1:4]


def schema():
    """native name -> (agent name, decoded: the exit event carries the result)."""
    events = {}
    for line in open(src + '/proto/events.def'):
        f = line.split()
        if len(f) >= 4 and f[0] == 'event':
            events[f[2]] = {'name': f[3], 'params': []}
            cur = events[f[2]]
        elif len(f) >= 3 and f[0] == 'param':
            cur['params'].append((f[1], f[2]))
    names = {}
    for line in open(src + '/proto/syscalls_x86_64.def'):
        if line.startswith('#') or not line.strip():
            continue
        nr, name, _sc, enter, exit_, _fl = line.split()
        if enter == 'GENERIC_E':
            names[name] = (name, False)
        else:
            p = events[exit_]['params']
            decoded = bool(p) and p[0][1] in ('ERRNO', 'FD', 'PID', 'UINT64', 'INT64')
            names[name] = (events[enter]['name'], decoded)
    return names


NAMES = schema()
CALL = re.compile(r'^(\d+) +(\w+)\(')
RESUMED = re.compile(r'^(\d+) +<\.\.\. (\w+) resumed>')
RET = re.compile(r'\) += (-?\w+|\?)(?: (E[A-Z0-9]+))?')


def num(s):
    """strace prints results in decimal, hex (0x...) or octal (umask: 022)."""
    if s.startswith('0x'):
        return int(s, 16)
    return int(s, 8) if len(s) > 1 and s.startswith('0') else int(s)


def strace_calls():
    per = defaultdict(list)
    pending_exit = set()	# threads whose exit strace showed unfinished
    for line in open(strace_log):
        m = CALL.match(line) or RESUMED.match(line)
        if not m:
            continue
        tid, name = int(m.group(1)), m.group(2)
        if line.rstrip().endswith('<unfinished ...>'):
            if name in ('exit', 'exit_group'):	# they never return
                per[tid].append((name, None))
                pending_exit.add(tid)
            continue
        if RESUMED.match(line) and tid in pending_exit:	# "= ?": the same exit
            pending_exit.discard(tid)
            continue
        r = RET.search(line)
        ret = None
        if r and r.group(1) != '?':
            ret = -getattr(errno, r.group(2)) if r.group(1) == '-1' and r.group(2) else num(r.group(1))
        per[tid].append((name, ret))
    return per


def agent_calls(known):
    per = defaultdict(list)
    for line in open(agent_log):
        f = line.split()
        if len(f) < 3 or f[2] not in known:
            continue
        tid, d, name = int(f[0]), f[1], f[2]
        if d == '>':
            per[tid].append([name, None])
        elif per[tid] and per[tid][-1][0] == name and per[tid][-1][1] is None:
            res = f[3] if len(f) > 3 else '<NA>'
            per[tid][-1][1] = int(res) if re.fullmatch(r'-?\d+', res) else None
    return per


st = strace_calls()
known = {v[0] for v in NAMES.values()}
ag = agent_calls(known)
bad = 0
seen, decoded_ok = set(), 0
for tid, calls in sorted(st.items()):
    # the agent sees execve's exit only (its enter is strace's); start after it
    calls = [c for c in calls if c[0] != 'execve']
    mine = [c for c in ag.get(tid, []) if c[0] != 'execve']
    if len(mine) != len(calls):
        print('tid %d: strace saw %d calls, the agent %d' % (tid, len(calls), len(mine)))
        bad += 1
    for i, (name, ret) in enumerate(calls):
        want, decoded = NAMES.get(name, (name, False))
        if i >= len(mine):
            print('tid %d call %d: %s missing from the agent' % (tid, i, name))
            bad += 1
            break
        got, res = mine[i]
        seen.add(name)
        if got != want:
            print('tid %d call %d: strace %s, agent %s (want %s)' % (tid, i, name, got, want))
            bad += 1
            break
        if decoded and ret is not None:
            if res != ret:
                print('tid %d call %d: %s returned %s, agent res %s' % (tid, i, name, ret, res))
                bad += 1
            else:
                decoded_ok += 1
print('%d threads, %d distinct syscalls, %d decoded results equal, %d differences' %
      (len(st), len(seen), decoded_ok, bad))
print('syscalls: ' + ' '.join(sorted(seen)))
sys.exit(1 if bad or not seen else 0)
