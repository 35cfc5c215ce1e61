# Sourced by tools/fuzz.sh (and its unit test, tests/unit/tools).
# What a finding's log says, for a CI record that keeps only this output: the
# sanitizer's error and summary lines, the first frames of its stack, and the
# reproducer itself (gzip, base64) when it is small enough to carry.
fuzz_report() {	# fuzz_report LOG REPRODUCER
	grep -E '(ERROR|WARNING): (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error' "$1" |
		head -n 2 | sed 's/^/fuzz:   | /' || true
	# (|| true: under pipefail a grep that found nothing, or that head cut
	# short, would end the script)
	grep -E '^ +#[0-9]+ ' "$1" | head -n 8 | sed 's/^ */fuzz:   | /' || true
	grep -E '^SUMMARY' "$1" | head -n 1 | sed 's/^/fuzz:   | /' || true
	[ -n "$2" ] && [ -f "$2" ] || return 0
	local b64
	b64=$(gzip -9cn "$2" | base64 -w 0)
	if [ ${#b64} -le 16384 ]; then
		echo "fuzz:   reproducer, gzip then base64 (base64 -d | gunzip > FILE):"
		echo "fuzz:   $b64"
	else
		echo "fuzz:   reproducer too large to print here (${#b64} bytes of base64)"
	fi
}
