#!/usr/bin/env bash
# The fields added after the first release (fd.dev, proc.nthreads, evt.reltime,
# evt.count.error.* ...): replaying sysdig's captures with -p formats of them
# prints byte for byte what sysdig 0.29.3 prints. The SHA-256 sums below were
# recorded with the Debian sysdig (`sysdig -r FILE [-j] -p FMT [FILTER] | sha256sum`);
# to investigate a mismatch: diff <(agent -r F -p FMT) <(sysdig -r F -p FMT).
source "$(dirname "$0")/lib.sh"
FIXTURES=${FIXTURES:?FIXTURES must name the folder of sysdig captures}
[ -d "$FIXTURES" ] || { echo "skip: no fixtures in $FIXTURES"; exit 77; }

# Not here: user.homedir/user.shell (sysdig takes them from the file's user list,
# we from this host's passwd), evt.deltatime in JSON (sysdig 0.29.3 prints 0 there),
# fd.dev of sockets and pipes (sysdig prints stray memory for them), fd.typechar
# of enter events that create an fd (sysdig guesses it from the event type).
state='*%evt.num %proc.vpgid %proc.sname %proc.nthreads %proc.nchilds %syscall.type'
times='*%evt.num %evt.deltatime %evt.deltatime.s %evt.deltatime.ns %evt.reltime %evt.reltime.s %evt.reltime.ns %evt.latency %evt.latency.human'
counts='*%evt.num %evt.is_open_read %evt.is_open_write %evt.is_open_exec %evt.count %evt.count.error %evt.count.error.file %evt.count.error.net %evt.count.error.memory %evt.count.error.other %evt.count.exit'
files='*%evt.num %fd.name %fd.dev %fd.dev.major %fd.dev.minor %fd.typechar %fd.type'
json="$state %evt.reltime %evt.reltime.ns %evt.latency.human ${counts#\*%evt.num }"

run() {	# run FILE MODE FORMAT [FILTER]: the sum of what the agent prints
	local file=$1 mode=$2 fmt=$3
	shift 3
	[ "$mode" = - ] && mode=
	"$AGENT" -r "$FIXTURES/$file" $mode -p "$fmt" "$@" 2>/dev/null | sha256sum | cut -d' ' -f1
}

while read -r file mode name sum; do
	case $name in
	state) got=$(run "$file" "$mode" "$state") ;;
	times) got=$(run "$file" "$mode" "$times") ;;
	counts) got=$(run "$file" "$mode" "$counts") ;;
	files) got=$(run "$file" "$mode" "$files" 'fd.type=file or (evt.type=open and evt.dir=<)') ;;
	json) got=$(run "$file" "$mode" "$json") ;;
	types) got=$(run "$file" "$mode" '%evt.num %evt.type' 'evt.type.is.open=1 or evt.type.is.close=1') ;;
	esac
	expect "agent -r $file $mode -p <$name fields> prints what sysdig -r prints" [ "$got" = "$sum" ]
done <<'SUMS'
curl_google.scap - state 13af19d96fc9175e06b293840b96fdd199e0b9d4b4a82a52aebbe85322a1373c
curl_google.scap - times 1f09e7b61d91516304d16a24ac234cb1bb052e5491847ff44eee33f96932c9a1
curl_google.scap - counts 258bbce993957114a8581c592454432987f6a7834d108de0b4b0f093f40e451e
curl_google.scap - files 128ef26197f342028014a9ba48c340755927120bc2c774e3b1d4f264894e31b9
curl_google.scap -j json d56033b593b934ba33e0ee8df4ae42457ddab32d1498697e56fccc74bc43b36f
curl_google.scap - types 99e654caa18d0fd75f631804278ca695a43f58f9d7c79ab847eabca3f9992266
single_ipv6_conn.scap - state 364aa19e49a358c28cf1d3f8a17abe42292dab2877ec7a2dd8a6804535969b49
single_ipv6_conn.scap - times 08d77dfabd0a2c9266884dc9b26b6ef3e7356349f1b6ef5f38cfc1092d35baa9
single_ipv6_conn.scap - counts b41c0be593823e91ea02560b4c110b9cbc19d07d460499a26acfbee4c7800781
single_ipv6_conn.scap -j json 03029aacfc8a644377ba6380b0ef182601b12231b9228e884710d8f2f355f63a
SUMS

# evt.type.is is for filters; in a format it is refused with a reason.
"$AGENT" -r "$FIXTURES/single_ipv6_conn.scap" -p '%evt.type.is.open' >/dev/null 2>"$TMP/err"
expect "evt.type.is in a format is refused" grep -q 'can only be used in filters' "$TMP/err"
finish
