#!/usr/bin/env bash
# The agent's command line: help, version, listings, bad flags and bad filters give
# one clear line and a nonzero status; no root needed for these.
source "$(dirname "$0")/lib.sh"

"$AGENT" --help >"$TMP/help" 2>&1; rc=$?
expect "--help exits 0" [ $rc = 0 ]
expect "--help shows usage" grep -q '^Usage: agent' "$TMP/help"
"$AGENT" --version >"$TMP/ver" 2>&1; rc=$?
expect "--version exits 0 and names the version" bash -c "[ $rc = 0 ] && grep -Eq '^agent [0-9]+\.[0-9]+' '$TMP/ver'"

"$AGENT" --bogus >"$TMP/out" 2>"$TMP/err"; rc=$?
expect "a bad flag exits 2" [ $rc = 2 ]
expect "a bad flag is named on one line" bash -c "[ \$(wc -l <'$TMP/err') = 1 ] && grep -q \"unknown option '--bogus'\" '$TMP/err'"
"$AGENT" -n abc >/dev/null 2>"$TMP/err"; rc=$?
expect "-n with a non-number is refused" bash -c "[ $rc = 2 ] && grep -q -- '-n takes' '$TMP/err'"

"$AGENT" --filter 'evt.type=open and' >/dev/null 2>"$TMP/err"; rc=$?
expect "a bad filter exits 2 (a usage error)" [ $rc = 2 ]
expect "a bad filter names the column" grep -q 'column 18' "$TMP/err"
"$AGENT" --filter 'proc.nme=cat' >/dev/null 2>"$TMP/err"; rc=$?
expect "an unknown field suggests the closest" bash -c "[ $rc = 2 ] && grep -q 'proc.name' '$TMP/err'"

"$AGENT" -L >"$TMP/L" 2>&1; rc=$?
expect "-L lists events with parameters" bash -c "[ $rc = 0 ] && grep -q '^< openat(FD fd, FD dirfd, FSRELPATH name' '$TMP/L'"
"$AGENT" -l >"$TMP/l" 2>&1; rc=$?
expect "-l lists fields" bash -c "[ $rc = 0 ] && grep -q 'proc.name' '$TMP/l' && grep -q 'fd.name' '$TMP/l'"
expect "-l lists the container and k8s fields" bash -c "grep -q '^container.id ' '$TMP/l' &&
	grep -q '^container.image ' '$TMP/l' && grep -q '^k8s.pod.name ' '$TMP/l' && grep -q '^k8s.ns.name ' '$TMP/l'"
# -pc and -pk are sysdig's container and pod lines, never the format "c"; -pp shows the format.
"$AGENT" -pp >"$TMP/pp" 2>&1; rc=$?
expect "-pp prints the default format and exits 0" bash -c "[ $rc = 0 ] &&
	[ \"\$(cat '$TMP/pp')\" = '*%evt.num %evt.outputtime %evt.cpu %proc.name (%thread.tid) %evt.dir %evt.type %evt.info' ]"
"$AGENT" -pc -pp >"$TMP/pp" 2>&1
expect "-pc is sysdig's container line" [ "$(cat "$TMP/pp")" = '*%evt.num %evt.outputtime %evt.cpu %container.name (%container.id) %proc.name (%thread.tid:%thread.vtid) %evt.dir %evt.type %evt.info' ]
"$AGENT" -pcontainer -pp >"$TMP/pp2" 2>&1
expect "-pcontainer is the same line" cmp -s "$TMP/pp" "$TMP/pp2"
"$AGENT" -pk -pp >"$TMP/pp" 2>&1
expect "-pk is sysdig's pod line" [ "$(cat "$TMP/pp")" = '*%evt.num %evt.outputtime %evt.cpu %k8s.pod.name (%container.id) %proc.name (%thread.tid:%thread.vtid) %evt.dir %evt.type %evt.info' ]
"$AGENT" --filter 'k8s.deployment.name=web' >/dev/null 2>"$TMP/err"; rc=$?
expect "a sysdig k8s field that needs the API server says so" bash -c "[ $rc != 0 ] && grep -q 'Kubernetes API server' '$TMP/err'"
# Without privileges: one line saying what to do (checked as an unprivileged user).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	cp "$AGENT" "$TMP/agent" && chmod 755 "$TMP" "$TMP/agent"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$TMP/agent" -n 1 >/dev/null 2>"$TMP/err"; rc=$?
	expect "not root: exits nonzero" [ $rc != 0 ]
	expect "not root: one line naming the missing CAP_BPF and CAP_PERFMON and the full set" \
		bash -c "[ \$(wc -l <'$TMP/err') = 1 ] && grep -q 'missing CAP_BPF and CAP_PERFMON.*run agent as root, or add both (the full set: CAP_BPF, CAP_PERFMON, CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH and CAP_IPC_LOCK)' '$TMP/err'"
fi
finish
