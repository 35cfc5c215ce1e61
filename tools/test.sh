#!/usr/bin/env bash
# Installs the dependencies, builds, and runs every test: unit (no root), live
# driver/capture tests and end-to-end agent tests (root and BPF; they skip only
# where those are truly missing). Exits nonzero if any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh
status=0
meson test -C build --print-errorlogs --num-processes 1 "$@" || status=$?
# One plain closing line that any reader understands.
python3 - build/meson-logs/testlog.json <<'PY'
import json, sys
ok = fail = skip = 0
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    if r in ("OK", "EXPECTEDFAIL"): ok += 1
    elif r == "SKIP": skip += 1
    else: fail += 1
print("tests: %d passed, %d failed, %d skipped" % (ok, fail, skip))
PY
exit $status
