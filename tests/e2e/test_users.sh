#!/usr/bin/env bash
# User and group names in capture files: a replay names users from the file's
# lists (as sysdig does), not from the reading host; a file the agent writes
# carries a user list that sysdig reads, and a user created while writing.
source "$(dirname "$0")/lib.sh"
FIXTURES=${FIXTURES:?FIXTURES must name the folder of sysdig captures}
[ -d "$FIXTURES" ] || { echo "skip: no fixtures in $FIXTURES"; exit 77; }

# 1. Replay (no root): sysdig 0.29.3 -r curl_google.scap 'user.name=ubuntu' matches 158.
n=$("$AGENT" -r "$FIXTURES/curl_google.scap" 'user.name=ubuntu' 2>/dev/null | wc -l)
expect "-r curl_google.scap 'user.name=ubuntu' matches sysdig's 158 events ($n)" [ "$n" = 158 ]
if command -v sysdig >/dev/null; then
	s=$(sysdig -r "$FIXTURES/curl_google.scap" 'user.name=ubuntu' 2>/dev/null | wc -l)
	expect "... and as many as sysdig here ($s)" [ "$n" = "$s" ]
fi
# a reading host whose uid 1000 is someone else: the file's name still wins
mkdir -p "$TMP/root/etc" "$TMP/root/proc"
printf 'root:x:0:0::/root:/bin/sh\nother:x:1000:1000::/home/other:/bin/sh\n' >"$TMP/root/etc/passwd"
printf 'root:x:0:\nothergrp:x:1000:\n' >"$TMP/root/etc/group"
HOST_ROOT=$TMP/root "$AGENT" -r "$FIXTURES/curl_google.scap" -p '%user.name %group.name %user.homedir' \
	2>/dev/null | sort -u >"$TMP/names"
expect "-r names uid 1000 after the file's list, not the host's" \
	[ "$(cat "$TMP/names")" = "ubuntu ubuntu /home/ubuntu" ]
n=$("$AGENT" -r "$FIXTURES/single_ipv6_conn.scap" -p '%user.name' 2>/dev/null | sort -u | tr '\n' ' ')
if command -v sysdig >/dev/null; then
	s=$(sysdig -r "$FIXTURES/single_ipv6_conn.scap" -p '%user.name' 2>/dev/null | sort -u | tr '\n' ' ')
	expect "-r single_ipv6_conn.scap (UL v2 block): user names as sysdig's ($n)" [ "$n" = "$s" ]
fi

# 2. Live (root): -w writes the user list; sysdig reads user.name from it, and a
# user created while the agent writes comes back in the agent's replay: a process
# already running as uid 54321 (no such user yet) execs `true` after the user
# was created, so the writer meets the new uid, looks it up again and writes it.
# It execs when told through a fifo (opened by root before it dropped to the
# uid), once the agent captures and the user exists.
need_live
u=agente2e$$
ok_user=
if command -v useradd >/dev/null && ! getent passwd 54321 >/dev/null; then
	mkfifo "$TMP/go"
	setpriv --reuid=54321 --regid=54321 --clear-groups /usr/bin/python3 -c \
		'import os, sys; sys.stdin.read(1); os.execv("/bin/true", ["true"])' <"$TMP/go" &
	sleeper=$!
	exec {go}>"$TMP/go"
	ok_user=1
fi
start_agent "$TMP/out" "$TMP/err" -q -w "$TMP/live.scap" 'proc.name=id or proc.name=true'
[ -n "$ok_user" ] && { useradd -M -u 54321 "$u" 2>/dev/null || ok_user=; }
if [ -n "${sleeper:-}" ]; then
	# The agent reloads the host's lists on a miss only when its last load is
	# a second old (README: "at most once a second"): every load before useradd ended
	# lacked the user, and one after it has it; so the exec comes over a
	# second after useradd ended, and its miss then reloads and finds the user.
	sleep 1.1
	echo >&$go	# its byte: it execs now
	wait "$sleeper"
	exec {go}>&-
fi
id >/dev/null; true
# SIGTERM: the agent reads what its rings hold (id's and true's events)
stop_agent
expect "-w ends cleanly" [ $? = 0 ]
root_events=$("$AGENT" -r "$TMP/live.scap" 'user.name=root' 2>/dev/null | wc -l)
expect "agent -r of its own file names root ($root_events events)" [ "$root_events" -gt 0 ]
if command -v sysdig >/dev/null; then
	s=$(sysdig -r "$TMP/live.scap" 'user.name=root' 2>/dev/null | wc -l)
	expect "sysdig -r of our file shows user.name (root: $s events)" [ "$s" -gt 0 ]
	na=$(sysdig -r "$TMP/live.scap" -p '%user.name' 'user.uid=0' 2>/dev/null | grep -c '<NA>')
	expect "sysdig -r of our file: no <NA> user for uid 0" [ "$na" = 0 ]
fi
if [ -n "$ok_user" ]; then
	n=$("$AGENT" -r "$TMP/live.scap" "user.name=$u" 2>/dev/null | wc -l)
	userdel "$u" 2>/dev/null
	expect "a user created while writing is named in the replay ($n events)" [ "$n" -gt 0 ]
fi
finish
