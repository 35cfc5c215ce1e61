#!/usr/bin/env bash
# Installs the dependencies, builds, and runs every test: unit (no root), live
# driver/capture tests and end-to-end agent tests (root and BPF; they skip only
# where those are truly missing). Exits nonzero if any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh
status=0
# The suite's load on the kernel's BPF loader: program ids are handed out in
# order, so the ids of a program loaded before and after tell how many were
# loaded in between. New hung-task lines in dmesg mean it suffered.
prog_id() { build/tests/bpf_prog_id 2>/dev/null; }
id0=$(prog_id) || id0=
dmesg0=$(dmesg 2>/dev/null | wc -l)
start=$(date +%s)
meson test -C build --print-errorlogs --num-processes 1 "$@" || status=$?
# One plain closing line that any reader understands, after each failed
# test's last lines again: a CI record may keep only the tail of the output.
python3 - build/meson-logs/testlog.json <<'PY'
import json, sys
ok = fail = skip = 0
for line in open(sys.argv[1]):
    t = json.loads(line)
    r = t["result"]
    if r in ("OK", "EXPECTEDFAIL"): ok += 1
    elif r == "SKIP": skip += 1
    else:
        fail += 1
        out = (t.get("stdout") or "") + (t.get("stderr") or "")
        print("tests: %s failed (%s); its last lines:" % (t["name"], r))
        for l in out.splitlines()[-25:]:
            print("  | " + l[:300])
print("tests: %d passed, %d failed, %d skipped" % (ok, fail, skip))
PY
id1=$(prog_id) || id1=
if [ -n "$id0" ] && [ -n "$id1" ]; then
	echo "tests: the kernel loaded $((id1 - id0 - 1)) BPF programs in $(($(date +%s) - start)) s" \
		"(program ids $id0 to $id1, libbpf's feature probes included)"
fi
hung=$(dmesg 2>/dev/null | tail -n +$((dmesg0 + 1)) |
	grep -E 'blocked for more than|hung_task|bpf_prog_pack_free|__purge_vmap_area_lazy' || true)
mark=/run/agent-tests-bpf-hung	# tests/live/load_watch.h
if [ -r "$mark" ] && [ "$(head -n 1 "$mark")" = "$(cat /proc/sys/kernel/random/boot_id)" ]; then
	echo "tests: a test found the kernel's BPF loader hung: $(sed -n 2p "$mark"); loads hang until a reboot"
	status=1
fi
if [ -n "$hung" ]; then
	echo "tests: the kernel reported hung tasks during the run (dmesg):"
	sed -n 1,20p <<<"$hung"
	status=1
fi
# Every parser of untrusted bytes, fuzzed for a bounded time (tests/fuzz); its
# last line says "fuzz: N targets, S s each, all clean" or what it found.
fuzz=0
bash tools/fuzz.sh || fuzz=$?
if [ "$fuzz" != 0 ]; then
	echo "fuzz: did not pass (exit $fuzz)"
	status=1
fi
exit $status
