#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, ASan, UBSan) and runs each
# from its seed corpus for FUZZ_SECS seconds (default 10), one at a time. Prints
# one line per target and exits nonzero if any found a crash, a leak, a timeout
# or ran out of memory; the line names the reproducer, kept under a scratch
# directory, and is followed by the sanitizer's lines and the reproducer itself
# (gzip, base64) when small. The tree's corpora are only read.
#
#   tools/fuzz.sh [BUILD_DIR]      BUILD_DIR: $FUZZ_BUILD, else ./build-fuzz
#   FUZZ_SECS=300 FUZZ_TARGETS="cgroup url" tools/fuzz.sh /tmp/build-fuzz
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-${FUZZ_BUILD:-build-fuzz}}
secs=${FUZZ_SECS:-10}
# By default every harness of tests/fuzz, so a new one runs in CI without a
# list here to keep up to date.
if [ -n "${FUZZ_TARGETS:-}" ]; then
	targets=($FUZZ_TARGETS)
else
	targets=(tests/fuzz/fuzz_*.c)
	targets=("${targets[@]#tests/fuzz/fuzz_}")
	targets=("${targets[@]%.c}")
fi

if [ ! -f "$dir/build.ninja" ]; then
	# b_lundef=false: clang's sanitizers leave symbols for their runtime
	CC=clang meson setup "$dir" -Dfuzz=true -Db_sanitize=address,undefined \
		-Db_lundef=false -Dc_args=-fsanitize=fuzzer-no-link >/dev/null
fi
# The list read whole, then searched: grep -q in a pipeline quits at its first
# match, and under pipefail ninja's SIGPIPE from a later write failed the test
# (7.5% of tries here: a fresh-clone CI run failed on it).
all_targets=$(ninja -C "$dir" -t targets all)
if ! grep -q '^tests/fuzz/fuzz_' <<<"$all_targets"; then
	echo "fuzz: $dir is not a fuzz build (set it up with CC=clang -Dfuzz=true, or give a new directory)" >&2
	exit 2
fi
ninja -C "$dir" "${targets[@]/#/tests/fuzz/fuzz_}" >/dev/null

# fuzz_report: a finding's sanitizer lines and reproducer, for the CI record
source tools/fuzz_report.sh

scratch=$(mktemp -d "${TMPDIR:-/tmp}/fuzz.XXXXXX")
found=0
for t in "${targets[@]}"; do
	work=$scratch/$t
	mkdir -p "$work/corpus" "$work/artifacts"
	cp tests/fuzz/corpus/"$t"/* "$work/corpus/"
	# symbols: a real library too (libc6's small libdl stub, on every Debian host)
	if [ "$t" = symbols ] && [ -r /usr/lib/x86_64-linux-gnu/libdl.so.2 ]; then
		cp /usr/lib/x86_64-linux-gnu/libdl.so.2 "$work/corpus/libdl.so.2"
	fi
	rc=0
	nice "$dir/tests/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=5 -rss_limit_mb=1024 \
		-print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" \
		>"$work/log" 2>&1 || rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
	repro=$(find "$work/artifacts" -type f -print -quit)
	if [ "$rc" = 0 ] && [ -z "$repro" ]; then
		echo "fuzz: $t: ${runs:-?} runs in $secs s, clean"
		continue
	fi
	found=$((found + 1))
	kind=$(basename "${repro:-unknown-}" | cut -d- -f1)
	echo "fuzz: $t: ${runs:-?} runs, FOUND a $kind (exit $rc): reproducer ${repro:-none}," \
		"log $work/log; replay: $dir/tests/fuzz/fuzz_$t ${repro:-}"
	fuzz_report "$work/log" "$repro"
done
if [ "$found" = 0 ]; then
	rm -rf "$scratch"
	echo "fuzz: ${#targets[@]} targets, $secs s each, all clean"
	exit 0
fi
echo "fuzz: ${#targets[@]} targets, $secs s each, $found with findings (kept in $scratch)"
exit 1
