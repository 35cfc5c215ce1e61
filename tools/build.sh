#!/usr/bin/env bash
# Installs the dependencies and builds everything into ./build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh
if [ ! -f build/build.ninja ]; then
	# Unit tests also run under valgrind (memory errors and leaks fail them).
	meson setup build -Dsanitize_tests=true >/dev/null
fi
ninja -C build
