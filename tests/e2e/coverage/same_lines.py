#!/usr/bin/env python3
"""usage: same_lines.py AGENT_R SYSDIG_R: the lines agent -r and sysdig -r print
for one file must be equal, but for the one naming difference by design: a
syscall that sysdig 0.29.3 names '<unknown>' (newer than its table) or
'sigreturn' the agent names as the kernel does. One more is counted and allowed
on at most 2% of the lines: the inode of a pipe inherited from the test's
runner, which sysdig now and then takes from the runner's other pipe (stderr's;
the agent's is the one /proc shows). Prints the counts; exits 1 on any other
difference."""
import re
import sys

PIPE = re.compile(r'pipe:\[\d+\]')

ag = open(sys.argv[1]).read().splitlines()
sd = open(sys.argv[2]).read().splitlines()
named = other = pipes = 0
if len(ag) != len(sd):
    print('agent -r printed %d lines, sysdig -r %d' % (len(ag), len(sd)))
    other += 1
for a, s in zip(ag, sd):
    if a == s:
        continue
    fa, fs = a.split(' '), s.split(' ')
    if (len(fa) == len(fs) and fa[:6] + fa[7:] == fs[:6] + fs[7:] and
            (fs[6] == '<unknown>' or (fs[6], fa[6]) == ('sigreturn', 'rt_sigreturn'))):
        named += 1
        continue
    if PIPE.sub('pipe:[]', a) == PIPE.sub('pipe:[]', s):
        pipes += 1
        continue
    other += 1
    if other <= 10:
        print('< ' + a + '\n> ' + s)
print('%d lines, %d equal, %d differ only by the syscall name, %d by a pipe inode, '
      '%d other differences' % (len(ag), len(ag) - named - pipes - other, named, pipes, other))
sys.exit(1 if other or pipes * 50 > len(ag) else 0)
