#!/usr/bin/env bash
# A pid a call passes or gets back in a pid namespace other than the host's
# (issue 31): a shell that is pid 1 of a new namespace (unshare --pid --fork)
# forks its children 2 and 3 and kills 3. Its clones' res and its kill's pid
# name that child or nothing, live and in agent -r of the -w file alike (the
# same lines), never the host's thread of that number (the host's pid 2 is
# kthreadd). sysdig -r of the file names kthreadd there: it looks every
# number up among the host's threads.
source "$(dirname "$0")/lib.sh"
need_live
need_pkgs util-linux dash
if ! command -v sysdig >/dev/null; then
	if [ -n "${AGENT_REQUIRE_LIVE:-}" ]; then
		echo "FAIL: sysdig is not installed (tools/deps.sh installs it)"; exit 1
	fi
	echo "skip: sysdig is not installed (tools/deps.sh installs it)"; exit 77
fi

B=$TMP/bin
mkdir -p "$B"
cp /bin/dash "$B/nsinit"
cp /bin/true "$B/nschild"
cp /bin/sleep "$B/nssleep"
NAMES="nsinit nschild nssleep"
FMT='*%evt.num %proc.name %evt.dir %evt.type %evt.info'
F='proc.name in (nsinit, nschild, nssleep) and evt.type in (clone, fork, vfork, clone3, kill, execve)'
start_agent "$TMP/live" "$TMP/err" -w "$TMP/ns.scap" -p "$FMT" "$F" ||
	{ echo "FAIL: the agent did not start"; cat "$TMP/err"; finish; exit 1; }
unshare --pid --fork "$B/nsinit" -c "'$B/nschild'; '$B/nssleep' 5 & kill \$!; wait"
rc=$?
sleep 0.5
stop_agent
expect "the namespace's shell ran" [ "$rc" = 0 ]
"$AGENT" -r "$TMP/ns.scap" -p "$FMT" "$F" >"$TMP/replay" 2>/dev/null
sysdig -r "$TMP/ns.scap" -p "$FMT" "$F" >"$TMP/sysdig" 2>/dev/null
[ -n "${KEEP:-}" ] && cp "$TMP/ns.scap" "$TMP/live" "$TMP/replay" "$TMP/sysdig" "$KEEP/"

# The shell's clones returning 2 and 3 and its kill of 3, as NAME (nothing when
# bare) per line: "clone 2 NAME", "kill 3 NAME".
calls() {	# calls FILE
	awk '$2 == "nsinit" && $3 == "<" && ($4 == "clone" || $4 == "fork" || $4 == "vfork" ||
	     $4 == "clone3") && match($5, /^res=[0-9]+/) {
		v = substr($5, 5); n = v; sub(/\(.*/, "", n); name = v; sub(/^[0-9]+\(?/, "", name)
		sub(/\)$/, "", name); if (n > 1) print "clone", n, name }
	     $2 == "nsinit" && $3 == ">" && $4 == "kill" {
		v = substr($5, 5); n = v; sub(/\(.*/, "", n); name = v; sub(/^[0-9-]+\(?/, "", name)
		sub(/\)$/, "", name); print "kill", n, name }' "$1"
}
calls "$TMP/live" >"$TMP/calls"
echo "  live: $(tr '\n' ';' <"$TMP/calls")"
expect "the shell's clones returned 2 and 3 and it killed 3" \
	bash -c "grep -q '^clone 2' '$TMP/calls' && grep -q '^clone 3' '$TMP/calls' && grep -q '^kill 3' '$TMP/calls'"
bad=$(awk -v names=" $NAMES " '$3 != "" && index(names, " " $3 " ") == 0' "$TMP/calls")
expect "each names the child or nothing, never a host thread${bad:+ ($bad)}" [ -z "$bad" ]
# (the first param of each line: the rest holds buffers a replay cuts at -s)
expect "agent -r prints the lines the live agent printed" \
	diff <(cut -d' ' -f2-5 "$TMP/live") <(cut -d' ' -f2-5 "$TMP/replay")
calls "$TMP/sysdig" >"$TMP/scalls"
echo "  sysdig -r: $(tr '\n' ';' <"$TMP/scalls")"
expect "sysdig -r names the host's thread 2 there (kthreadd)" grep -q '^clone 2 kthreadd$' "$TMP/scalls"
finish
