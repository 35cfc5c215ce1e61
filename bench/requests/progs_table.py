"""progs_table.py BEFORE AFTER COUNT UNIT [NOTE]: each BPF program's runs and
time between two rb_progs listings (lib.sh), per UNIT of the load (COUNT of
them): runs per unit, mean ns a run, ns per unit, and their sum, NOTE after
the sum. Programs that did not run are left out."""
import sys


def load(path):
    return {l.split()[0]: l.split() for l in open(path)}


def main():
    b, a, count, unit = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    note = sys.argv[5] if len(sys.argv) > 5 else ""
    rows, total = [], 0.0
    for pid, (_, name, ns, cnt) in a.items():
        if pid not in b:
            continue
        dns, dcnt = int(ns) - int(b[pid][2]), int(cnt) - int(b[pid][3])
        if dcnt <= 0 or count <= 0:
            continue
        total += dns / count
        rows.append((dns / count, name, dcnt / count, dns / dcnt))
    print("%-22s %12s %10s %12s" % ("program", "runs/" + unit, "ns/run", "ns/" + unit))
    for per, name, runs, nsrun in sorted(rows, reverse=True):
        print("%-22s %12.2f %10.0f %12.0f" % (name, runs, nsrun, per))
    print("%-22s %12s %10s %12.0f%s" % ("all", "", "", total, note))


main()
