/* TCP health per edge (topo__add_tcp): the agent_tcp_* families' exact
 * lines for known records, the counting rules (connects from the client's
 * records, accepts from the server's, retransmits and RTTs from both, a
 * connection between two local ends once), the ends named as the request
 * metrics name them, the cap and its other -> other edge, records out of
 * range refused, and promtool's reading (argv[1], "" when not installed). */
#include <errno.h>

#include "prom.h"
#include "t_check.h"
#include "topo_int.h"
#include "topo_rec.h"
#include "topo_text.h"

/* host process "curl" -> 10.0.0.2:443 */
#define CURL "src_namespace=\"\",src_workload_kind=\"\",src_workload_name=\"\",src_pod=\"\"," \
	"src_container=\"\",src_process=\"curl\",src_ip=\"\",dst_namespace=\"\"," \
	"dst_workload_kind=\"\",dst_workload_name=\"\",dst_pod=\"\",dst_container=\"\"," \
	"dst_process=\"\",dst_ip=\"10.0.0.2\",dst_port=\"443\""
/* container web in pod web-7d4b9c8f6b-x2x9z -> host process "redis" */
#define WEB "src_namespace=\"shop\",src_workload_kind=\"Deployment\",src_workload_name=\"web\"," \
	"src_pod=\"web-7d4b9c8f6b-x2x9z\",src_container=\"web\",src_process=\"\",src_ip=\"\"," \
	"dst_namespace=\"\",dst_workload_kind=\"\",dst_workload_name=\"\",dst_pod=\"\"," \
	"dst_container=\"\",dst_process=\"redis\",dst_ip=\"\",dst_port=\"\""
/* 2001:db8::5 -> host process "nginx" */
#define NGINX "src_namespace=\"\",src_workload_kind=\"\",src_workload_name=\"\",src_pod=\"\"," \
	"src_container=\"\",src_process=\"\",src_ip=\"2001:db8::5\",dst_namespace=\"\"," \
	"dst_workload_kind=\"\",dst_workload_name=\"\",dst_pod=\"\",dst_container=\"\"," \
	"dst_process=\"nginx\",dst_ip=\"\",dst_port=\"\""
#define OTHER "src_namespace=\"\",src_workload_kind=\"\",src_workload_name=\"other\"," \
	"src_pod=\"\",src_container=\"\",src_process=\"\",src_ip=\"\",dst_namespace=\"\"," \
	"dst_workload_kind=\"\",dst_workload_name=\"other\",dst_pod=\"\",dst_container=\"\"," \
	"dst_process=\"\",dst_ip=\"\",dst_port=\"\""

static int add(struct topo *t, struct tcp_record r)
{
	return topo__add_tcp(t, &r);
}

/* A host client's four connects to a remote server: two established (one
 * ended by a reset), one refused, one timed out. */
static void client_only(struct topo *t)
{
	struct tcp_record r = rec__tcp("192.168.0.1", "10.0.0.2", 443, REQ_SIDE_CLIENT,
				       TCP_OUTCOME_CLOSED);

	snprintf(r.client.comm, sizeof(r.client.comm), "curl");
	r.connect_ns = 150000;
	r.srtt_us = 300;
	r.retransmits = 2;
	r.bytes_sent = 100;
	r.bytes_received = 2000;
	CHECK_INT(add(t, r), 0);
	r.outcome = TCP_OUTCOME_RESET;
	r.connect_ns = 3000000;
	r.srtt_us = 1200;
	r.retransmits = 1;
	r.resets_received = 1;
	r.bytes_sent = 10;
	r.bytes_received = 0;
	CHECK_INT(add(t, r), 0);
	/* unanswered connects: no connect time, no RTT */
	r.outcome = TCP_OUTCOME_REFUSED;
	r.established = false;
	r.connect_ns = 0;
	r.srtt_us = 0;
	r.retransmits = 0;
	r.bytes_sent = 0;
	CHECK_INT(add(t, r), 0);
	r.outcome = TCP_OUTCOME_TIMEDOUT;
	r.resets_received = 0;
	r.retransmits = 5;
	CHECK_INT(add(t, r), 0);
}

/* One IPv6 connection between two processes of this host: a record from
 * each end. */
static void both_sides(struct topo *t, const struct container_info *ci)
{
	struct tcp_record r = rec__tcp("fd00::1", "fd00::2", 6379, REQ_SIDE_CLIENT,
				       TCP_OUTCOME_CLOSED);

	rec__local(&r.client, "web", ci);
	rec__local(&r.server, "redis", NULL);
	r.connect_ns = 60000;
	r.retransmits = 1;
	r.srtt_us = 80;
	r.bytes_sent = 500;
	r.bytes_received = 700;
	r.resets_sent = 1;
	CHECK_INT(add(t, r), 0);
	r.side = REQ_SIDE_SERVER;
	r.connect_ns = 0;
	r.retransmits = 2;
	r.srtt_us = 90;
	r.bytes_sent = 700;
	r.bytes_received = 500;
	r.resets_sent = 0;
	r.resets_received = 1;
	CHECK_INT(add(t, r), 0);
}

/* A remote IPv6 client's connection to a host server, reset by the server. */
static void server_only(struct topo *t)
{
	struct tcp_record r = rec__tcp("2001:db8::5", "2001:db8::1", 80, REQ_SIDE_SERVER,
				       TCP_OUTCOME_RESET);

	snprintf(r.server.comm, sizeof(r.server.comm), "nginx");
	r.resets_sent = 1;
	r.bytes_sent = 4000;
	r.bytes_received = 300;
	r.srtt_us = 20000;
	CHECK_INT(add(t, r), 0);
}

static void check_counts(const char *text)
{
	/* connects: the client's records only, an outcome at its first */
	check_line(text, "agent_tcp_connect_total{" CURL ",outcome=\"established\"} 2");
	check_line(text, "agent_tcp_connect_total{" CURL ",outcome=\"refused\"} 1");
	check_line(text, "agent_tcp_connect_total{" CURL ",outcome=\"timedout\"} 1");
	check_line(text, "agent_tcp_connect_total{" WEB ",outcome=\"established\"} 1");
	CHECK_INT(count_prefix(text, "agent_tcp_connect_total{" NGINX), 0);
	CHECK_INT(count_prefix(text, "agent_tcp_connect_total{"), 4);
	/* accepts: the server's */
	check_line(text, "agent_tcp_accept_total{" CURL "} 0");
	check_line(text, "agent_tcp_accept_total{" WEB "} 1");
	check_line(text, "agent_tcp_accept_total{" NGINX "} 1");
	/* connections: once each, the two-ended one from its client's record */
	check_line(text, "agent_tcp_connections_total{" CURL ",outcome=\"closed\"} 1");
	check_line(text, "agent_tcp_connections_total{" CURL ",outcome=\"reset\"} 1");
	check_line(text, "agent_tcp_connections_total{" CURL ",outcome=\"refused\"} 1");
	check_line(text, "agent_tcp_connections_total{" CURL ",outcome=\"timedout\"} 1");
	check_line(text, "agent_tcp_connections_total{" WEB ",outcome=\"closed\"} 1");
	check_line(text, "agent_tcp_connections_total{" NGINX ",outcome=\"reset\"} 1");
	CHECK_INT(count_prefix(text, "agent_tcp_connections_total{"), 6);
	/* retransmits and resets: every record's, both ends' adding */
	check_line(text, "agent_tcp_retransmit_total{" CURL "} 8");
	check_line(text, "agent_tcp_retransmit_total{" WEB "} 3");
	check_line(text, "agent_tcp_retransmit_total{" NGINX "} 0");
	check_line(text, "agent_tcp_resets_total{" CURL ",direction=\"sent\"} 0");
	check_line(text, "agent_tcp_resets_total{" CURL ",direction=\"received\"} 2");
	check_line(text, "agent_tcp_resets_total{" WEB ",direction=\"sent\"} 1");
	check_line(text, "agent_tcp_resets_total{" WEB ",direction=\"received\"} 1");
	check_line(text, "agent_tcp_resets_total{" NGINX ",direction=\"sent\"} 1");
	/* bytes: the client's view, once per connection (the server's record
	 * of a remote client turned around) */
	check_line(text, "agent_tcp_bytes_total{" CURL ",direction=\"sent\"} 110");
	check_line(text, "agent_tcp_bytes_total{" CURL ",direction=\"received\"} 2000");
	check_line(text, "agent_tcp_bytes_total{" WEB ",direction=\"sent\"} 500");
	check_line(text, "agent_tcp_bytes_total{" WEB ",direction=\"received\"} 700");
	check_line(text, "agent_tcp_bytes_total{" NGINX ",direction=\"sent\"} 300");
	check_line(text, "agent_tcp_bytes_total{" NGINX ",direction=\"received\"} 4000");
}

static void check_times(const char *text)
{
	/* connect durations: 150 us and 3 ms, the finer bounds */
	check_line(text, "agent_tcp_connect_duration_seconds_bucket{" CURL ",le=\"0.0001\"} 0");
	check_line(text, "agent_tcp_connect_duration_seconds_bucket{" CURL ",le=\"0.00025\"} 1");
	check_line(text, "agent_tcp_connect_duration_seconds_bucket{" CURL ",le=\"0.0025\"} 1");
	check_line(text, "agent_tcp_connect_duration_seconds_bucket{" CURL ",le=\"0.005\"} 2");
	check_line(text, "agent_tcp_connect_duration_seconds_bucket{" CURL ",le=\"10\"} 2");
	check_line(text, "agent_tcp_connect_duration_seconds_bucket{" CURL ",le=\"+Inf\"} 2");
	check_line(text, "agent_tcp_connect_duration_seconds_sum{" CURL "} 0.00315");
	check_line(text, "agent_tcp_connect_duration_seconds_count{" CURL "} 2");
	check_line(text, "agent_tcp_connect_duration_seconds_bucket{" WEB ",le=\"0.0001\"} 1");
	check_line(text, "agent_tcp_connect_duration_seconds_count{" WEB "} 1");
	/* an edge with no connect seen has no histogram */
	CHECK_INT(count_prefix(text, "agent_tcp_connect_duration_seconds_bucket{" NGINX), 0);
	CHECK_INT(count_prefix(text, "agent_tcp_connect_duration_seconds_bucket{"), 34);
	/* the srtt gauge: the last record that measured one */
	check_line(text, "agent_tcp_srtt_seconds{" CURL "} 0.0012");
	check_line(text, "agent_tcp_srtt_seconds{" WEB "} 9e-05");
	check_line(text, "agent_tcp_srtt_seconds{" NGINX "} 0.02");
	/* RTTs: each record with one, both ends of the local connection */
	check_line(text, "agent_tcp_rtt_seconds_bucket{" CURL ",le=\"0.00025\"} 0");
	check_line(text, "agent_tcp_rtt_seconds_bucket{" CURL ",le=\"0.0005\"} 1");
	check_line(text, "agent_tcp_rtt_seconds_bucket{" CURL ",le=\"0.001\"} 1");
	check_line(text, "agent_tcp_rtt_seconds_bucket{" CURL ",le=\"0.0025\"} 2");
	check_line(text, "agent_tcp_rtt_seconds_bucket{" CURL ",le=\"+Inf\"} 2");
	check_line(text, "agent_tcp_rtt_seconds_sum{" CURL "} 0.0015");
	check_line(text, "agent_tcp_rtt_seconds_count{" CURL "} 2");
	check_line(text, "agent_tcp_rtt_seconds_bucket{" WEB ",le=\"0.00005\"} 0");
	check_line(text, "agent_tcp_rtt_seconds_bucket{" WEB ",le=\"0.0001\"} 2");
	check_line(text, "agent_tcp_rtt_seconds_sum{" WEB "} 0.00017");
	check_line(text, "agent_tcp_rtt_seconds_bucket{" NGINX ",le=\"0.01\"} 0");
	check_line(text, "agent_tcp_rtt_seconds_bucket{" NGINX ",le=\"0.025\"} 1");
	CHECK_INT(count_prefix(text, "agent_tcp_rtt_seconds_bucket{"), 45);
}

/* Outcomes and sides out of range are refused and change nothing. */
static void check_invalid(struct topo *t)
{
	struct tcp_record r = rec__tcp("10.0.0.9", "10.0.0.2", 443, REQ_SIDE_CLIENT,
				       TCP_OUTCOME__COUNT);
	struct topo_counters c0, c;

	topo__counters(t, &c0);
	CHECK_INT(add(t, r), -EINVAL);
	r.outcome = 255;
	CHECK_INT(add(t, r), -EINVAL);
	r.outcome = TCP_OUTCOME_CLOSED;
	r.side = 0;
	CHECK_INT(add(t, r), -EINVAL);
	r.side = 3;
	CHECK_INT(add(t, r), -EINVAL);
	topo__counters(t, &c);
	CHECK_INT(c.n_tcp_records, c0.n_tcp_records + 4);
	CHECK_INT(c.n_tcp_invalid, c0.n_tcp_invalid + 4);
	CHECK_INT(c.n_tcp_edges, c0.n_tcp_edges);
	CHECK_INT(c.n_entities, c0.n_entities);
}

/* max_edges 2: a third client's records go to other -> other, counted as
 * capped; the first two edges still take theirs. */
static void check_cap(const char *promtool_path)
{
	struct topo_limits lim = { .max_edges = 2 };
	struct topo *t = topo__new(&lim);
	struct prom_buf b = PROM_BUF_INIT;
	struct topo_counters c;
	char comm[16];

	CHECK(t != NULL);
	if (!t)
		return;
	for (int i = 0; i < 4; i++) {
		struct tcp_record r = rec__tcp("192.168.0.1", "10.0.0.2", 443, REQ_SIDE_CLIENT,
					       TCP_OUTCOME_CLOSED);

		snprintf(comm, sizeof(comm), "c%d", i < 3 ? i : 0);
		snprintf(r.client.comm, sizeof(r.client.comm), "%s", comm);
		r.retransmits = 1;
		CHECK_INT(add(t, r), 0);
	}
	struct tcp_record r = rec__tcp("192.168.0.1", "10.0.0.2", 443, REQ_SIDE_CLIENT,
				       TCP_OUTCOME_CLOSED);
	snprintf(r.client.comm, sizeof(r.client.comm), "c3");
	CHECK_INT(add(t, r), 0);
	topo__counters(t, &c);
	CHECK_INT(c.n_tcp_edges, 3);
	CHECK_INT(c.n_capped_tcp_edge, 2);
	CHECK_INT(c.n_capped_edge, 0);
	CHECK_INT(topo__prom(t, &b), 0);
	check_line(b.buf, "agent_request_series_capped_total{kind=\"tcp_edge\"} 2");
	check_line(b.buf, "agent_request_series_capped_total{kind=\"edge\"} 0");
	check_line(b.buf, "agent_tcp_connect_total{" OTHER ",outcome=\"established\"} 2");
	check_line(b.buf, "agent_tcp_retransmit_total{" OTHER "} 1");
	CHECK_INT(count_prefix(b.buf, "agent_tcp_accept_total{"), 3);
	CHECK(strstr(b.buf, "src_process=\"c0\"") != NULL);
	CHECK(strstr(b.buf, "src_process=\"c2\"") == NULL);
	/* c0's edge took its second record though the table was full */
	CHECK(strstr(b.buf, "agent_tcp_connect_total{src_namespace=\"\",src_workload_kind=\"\","
		     "src_workload_name=\"\",src_pod=\"\",src_container=\"\",src_process=\"c0\","
		     "src_ip=\"\",dst_namespace=\"\",dst_workload_kind=\"\",dst_workload_name=\"\","
		     "dst_pod=\"\",dst_container=\"\",dst_process=\"\",dst_ip=\"10.0.0.2\","
		     "dst_port=\"443\",outcome=\"established\"} 2\n") != NULL);
	promtool(promtool_path, b.buf);
	prom_buf__free(&b);
	topo__free(t);
}

int main(int argc, char **argv)
{
	const char *promtool_path = argc > 1 ? argv[1] : NULL;
	struct container_info ci = { .id = "0123456789ab" };
	struct prom_buf b = PROM_BUF_INIT;
	struct topo_counters c;
	struct topo *t = topo__new(NULL);
	uint64_t ents;

	CHECK(t != NULL);
	if (!t)
		return t_report();
	ci.name = "web";
	ci.pod_name = "web-7d4b9c8f6b-x2x9z";
	ci.pod_namespace = "shop";

	/* no TCP record yet: no agent_tcp_* family, the capped kind at 0 */
	CHECK_INT(topo__prom(t, &b), 0);
	CHECK_INT(count_prefix(b.buf, "# TYPE agent_tcp_"), 0);
	check_line(b.buf, "agent_request_series_capped_total{kind=\"tcp_edge\"} 0");

	client_only(t);
	both_sides(t, &ci);
	server_only(t);
	topo__counters(t, &c);
	CHECK_INT(c.n_tcp_records, 7);
	CHECK_INT(c.n_tcp_edges, 3);
	CHECK_INT(c.n_tcp_invalid, 0);
	CHECK_INT(c.n_edges, 0);
	CHECK_INT(c.n_records, 0);
	ents = c.n_entities;
	CHECK_INT(ents, 7);	/* six ends and the other entity */

	/* a request between the same ends names the same entities */
	struct req_record q = rec__http("192.168.0.1", "10.0.0.2", 443, REQ_SIDE_CLIENT, "/",
					200, 1000000);
	rec__local(&q.client, "curl", NULL);
	CHECK_INT(topo__add(t, &q), 0);
	topo__counters(t, &c);
	CHECK_INT(c.n_entities, ents);

	prom_buf__reset(&b);
	CHECK_INT(topo__prom(t, &b), 0);
	const char *text = b.buf;
	check_line(text, "# TYPE agent_tcp_connect_total counter");
	check_line(text, "# TYPE agent_tcp_connect_duration_seconds histogram");
	check_line(text, "# TYPE agent_tcp_accept_total counter");
	check_line(text, "# TYPE agent_tcp_connections_total counter");
	check_line(text, "# TYPE agent_tcp_retransmit_total counter");
	check_line(text, "# TYPE agent_tcp_resets_total counter");
	check_line(text, "# TYPE agent_tcp_bytes_total counter");
	check_line(text, "# TYPE agent_tcp_srtt_seconds gauge");
	check_line(text, "# TYPE agent_tcp_rtt_seconds histogram");
	CHECK_INT(count_prefix(text, "# TYPE agent_tcp_"), 9);
	check_line(text, "agent_edge_request_total{" CURL ",protocol=\"http\","
		   "response_content=\"2xx\"} 1");
	check_counts(text);
	check_times(text);
	promtool(promtool_path, text);

	check_invalid(t);
	check_cap(promtool_path);
	prom_buf__free(&b);
	topo__free(t);
	return t_report();
}
