#!/usr/bin/env bash
# Installs the dependencies and builds everything into ./build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh
if [ ! -f build/build.ninja ]; then
	# Unit tests also run under valgrind (memory errors and leaks fail them).
	# quiet unless it fails: meson says why on stdout
	if ! out=$(meson setup build -Dsanitize_tests=true 2>&1); then
		echo "$out" | tail -n 20 >&2
		exit 1
	fi
fi
ninja -C build
