#!/usr/bin/env bash
# tools/fuzz_report.sh, as tools/fuzz.sh calls it on a finding: from a real
# finding's log (the capfile fuzzer's use after free, asan_uaf.log) the
# sanitizer's error line, its first 8 frames and its summary, then the
# reproducer as gzip and base64 that decodes to the same bytes; a log with
# none of those and a reproducer too large to print must not end a script
# under set -euo pipefail (tools/fuzz.sh runs so).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
source "$src/tools/fuzz_report.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
check() {	# check WHAT COMMAND...
	if "${@:2}"; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi
}
repro=$src/tests/fuzz/corpus/capfile/clone_self.scap

fuzz_report "$here/asan_uaf.log" "$repro" >"$tmp/out"
check "the error line first" \
	grep -q '^fuzz:   | ==3239==ERROR: AddressSanitizer: heap-use-after-free' <(sed -n 1p "$tmp/out")
check "then frames #0 to #7, in order" \
	[ "$(sed -n '2,9p' "$tmp/out" | sed -E 's/^fuzz:   \| (#[0-9]+) .*/\1/' | tr '\n' ' ')" = \
	  "#0 #1 #2 #3 #4 #5 #6 #7 " ]
check "frame #0 names the function" grep -q '^fuzz:   | #0 .* in fd_table__clone ' <(sed -n 2p "$tmp/out")
check "then the summary" grep -q '^fuzz:   | SUMMARY: AddressSanitizer: heap-use-after-free' <(sed -n 10p "$tmp/out")
check "then the reproducer's heading" grep -q '^fuzz:   reproducer, gzip then base64' <(sed -n 11p "$tmp/out")
sed -n 12p "$tmp/out" | sed 's/^fuzz:   //' | base64 -d | gunzip >"$tmp/back"
check "the reproducer decodes to the same bytes" cmp -s "$tmp/back" "$repro"
check "and nothing else" [ "$(wc -l <"$tmp/out")" = 12 ]

printf 'INFO: Running with entropic power schedule\n==1== ERROR: libFuzzer: out-of-memory (used: 1100Mb; exceeds: 1024Mb)\n' >"$tmp/oom.log"
head -c 100000 /dev/urandom >"$tmp/big"
fuzz_report "$tmp/oom.log" "$tmp/big" >"$tmp/out2"
check "a log without frames or summary: its error line, the script goes on" \
	grep -q '^fuzz:   | ==1== ERROR: libFuzzer: out-of-memory' "$tmp/out2"
check "a large reproducer is named, not printed" \
	grep -q '^fuzz:   reproducer too large to print here ([0-9]* bytes of base64)$' "$tmp/out2"
fuzz_report "$tmp/oom.log" "" >"$tmp/out3"
check "no reproducer: the error line alone" [ "$(wc -l <"$tmp/out3")" = 1 ]
: >"$tmp/empty.log"
fuzz_report "$tmp/empty.log" "" >"$tmp/out4"
check "a log with nothing to show: nothing, and the script goes on" [ ! -s "$tmp/out4" ]
echo "$fails failed"
[ "$fails" = 0 ]
