#!/usr/bin/env bash
# Installs the dependencies and builds everything into ./build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh
if [ ! -f build/build.ninja ]; then
	meson setup build >/dev/null
fi
ninja -C build
