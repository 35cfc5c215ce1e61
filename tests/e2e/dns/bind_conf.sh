#!/usr/bin/env bash
# bind_conf.sh DIR PORT [QUERYLOG]: a BIND 9 configuration in DIR
# (DIR/named.conf, DIR/b.test.zone) for the request tests and benchmarks:
# authoritative for b.test on 127.0.0.1:PORT, no recursion, no IPv6; any
# name under w.b.test has an A record (a wildcard; other types: no data,
# NOERROR), every other name is NXDOMAIN. QUERYLOG: a file BIND logs each
# query to. Start it with `named -f -c DIR/named.conf -u root -n THREADS`
# (-f: logging as the file says; -g would send it all to stderr).
set -eu
dir=$1 port=$2 qlog=${3:-}
{
	printf 'options {\n\tdirectory "%s";\n\tlisten-on port %s { 127.0.0.1; };\n' "$dir" "$port"
	printf '\tlisten-on-v6 { none; };\n\tpid-file none;\n\trecursion no;\n'
	[ -n "$qlog" ] && printf '\tquerylog yes;\n'
	printf '};\nzone "b.test" { type primary; file "%s/b.test.zone"; };\n' "$dir"
	[ -n "$qlog" ] &&
		printf 'logging { channel q { file "%s"; }; category queries { q; }; };\n' "$qlog"
} >"$dir/named.conf"
printf '$TTL 60\n@ SOA ns.b.test. root.b.test. 1 60 60 60 60\n@ NS ns.b.test.\nns A 10.0.0.2\n*.w A 10.0.0.3\n' \
	>"$dir/b.test.zone"
