#!/usr/bin/env bash
# Request mode against Kafka (issue 35): kprod (tests/e2e/kafka/kprod.c) runs
# librdkafka's mock cluster, a broker speaking Kafka's protocol on loopback
# inside its own process, produces 200 messages to agent-test and one that
# the broker fails (error 10), one to a topic the broker's Metadata calls
# unknown (error 3), and consumes agent-test back. Ground truth is
# librdkafka's own accounting: its per-broker request counters (statistics
# JSON), taken once its clients sent their last Produce and Fetch. Both ends
# are on this host: the broker's side is counted (its records are the
# server's), and the clients' side must match it.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_servers.sh"
need_live
KPROD=${KPROD-}
if [ -z "$KPROD" ]; then
	# meson found no librdkafka when it configured the build
	if [ -n "${AGENT_REQUIRE_LIVE:-}" ]; then
		echo "FAIL: kprod was not built: librdkafka-dev is missing (tools/deps.sh installs it)"; exit 1
	fi
	echo "skip: kprod was not built: librdkafka-dev is missing (tools/deps.sh installs it)"; exit 77
fi
t0=$SECONDS

expect "the agent starts in request mode" req_agent_start "req.protocol=kafka"
expect "kprod produced and consumed through the mock cluster" \
	timeout 40 "$KPROD" "$TMP/stats.json" 200 >"$TMP/kprod.out" 2>"$TMP/kprod.err" ||
	cat "$TMP/kprod.out" "$TMP/kprod.err"
sed 's/^/    /' "$TMP/kprod.out"
req_agent_stop; rc=$?
expect "the agent exits 0" [ $rc = 0 ] || tail -n 5 "$REQ_ERR"

req_check kafka "records per API on either side == librdkafka's request counters; topics; the broker's errors on either side" \
	"$REQ_OUT" "$REQ_ERR" "$TMP/stats.json" <<'PY'
import json, sys, req_lib as R
out, err, stats = sys.argv[1:4]
# librdkafka names ApiVersions "ApiVersion"
names = {"ApiVersion": "ApiVersions"}
want = {}
for line in open(stats):
    for b in json.loads(line)["brokers"].values():
        for k, v in b["req"].items():
            if v:
                want[names.get(k, k)] = want.get(names.get(k, k), 0) + v
recs = R.records(out, "kafka")
server = [r for r in recs if r.get("req.side") == "server"]
client = [r for r in recs if r.get("req.side") == "client"]
got = R.counts(r.get("req.method") for r in server)
print("librdkafka sent %s; agent: %d server-side records %s, %d client-side, %d aborted or timed out, kernel drops %s"
      % (want, len(server), got, len(client), len(R.ABORTED), R.kernel_drops(err)))
for r in R.ABORTED[:5]:
    print("  open:", R.short(r))
assert want.get("Produce") and want.get("Fetch"), "librdkafka counted no Produce or Fetch"
R.assert_counts(("server-side records of", got, want),
                ("client-side records of", R.counts(r.get("req.method") for r in client), want))
bad = [R.short(r) for r in server
       if r.get("req.method") in ("Produce", "Fetch") and r.get("req.path") != "agent-test"]
assert not bad, "Produce or Fetch records not naming agent-test:\n" + "\n".join(bad[:5])
errs = R.counts((r.get("req.method"), r.get("req.code")) for r in server if R.yes(r.get("req.error")))
print("server-side errors by (API, code): %s" % errs)
# the client reads a response's length and id first, then the rest: its
# records read the same errors (the first bytes carried to the rest)
cerrs = R.counts((r.get("req.method"), r.get("req.code")) for r in client if R.yes(r.get("req.error")))
assert cerrs == errs, "client-side errors %s" % cerrs
assert errs.pop(("Produce", "10"), 0) == 1, "not one Produce failed with 10 (MSG_SIZE_TOO_LARGE)"
assert errs.pop(("Metadata", "3"), 0) >= 1, "no Metadata answered 3 (UNKNOWN_TOPIC_OR_PART)"
# librdkafka 2.0 asks first in ApiVersions v3, which its mock broker lacks
# (UNSUPPORTED_VERSION, 35), then again in the version the answer offers:
# each connection's first ApiVersions fails, its second not
n35 = errs.pop(("ApiVersions", "35"), 0)
assert n35 in (0, want["ApiVersions"] / 2), "%d ApiVersions of %d failed with 35" % (n35, want["ApiVersions"])
assert not errs, "errors the broker did not give: %s" % errs
ok = [r for r in server if r.get("req.method") == "Produce" and not R.yes(r.get("req.error"))]
assert all(r.get("req.status") == 0 for r in ok), "a Produce answered without error has no status 0"
# every message walked: none refused by the parser, none past what is followed
summary = [l for l in open(err) if l.startswith("agent: requests:")]
assert summary and " 0 pipelined past 256," in summary[0] and \
    " 0 messages the protocol's parser refused" in summary[0], "the agent's summary: %s" % summary
print("ok")
PY
echo "    $((SECONDS - t0)) s"
finish
