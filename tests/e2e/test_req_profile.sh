#!/usr/bin/env bash
# The request tests with --profile (issue 32: "counts stay exact"): nginx with
# its backend, Redis (pipelined and not, metrics only) and MariaDB with
# PostgreSQL run again with every request-mode agent started with --profile
# (lib.sh, REQ_AGENT_EXTRA), so each holds its records and metrics against
# the servers' own logs and counters as before, and each agent's exit
# summary says no event was dropped at the default rings.
here=$(dirname "$0")
rc=0
for t in test_req_nginx.sh test_req_redis.sh test_req_sql.sh; do
	echo "== $t with --profile"
	REQ_AGENT_EXTRA=--profile bash "$here/$t" || { echo "FAIL: $t with --profile"; rc=1; }
done
exit $rc
