/* The Prometheus text: exact sample lines for a known set of requests, the
 * histogram cumulative with +Inf equal to _count, and promtool's reading of
 * the whole (argv[1]: promtool's path, "" when not installed). */
#include <errno.h>

#include "prom.h"
#include "t_check.h"
#include "topo_int.h"
#include "topo_rec.h"
#include "topo_text.h"

int main(int argc, char **argv)
{
	struct topo_limits lim = { .max_contents = 1 };
	struct topo *t = topo__new(&lim);
	struct container_info ci = { .id = "0123456789ab" };
	struct prom_buf b = PROM_BUF_INIT;
	struct req_record r;

	ci.name = "nginx";
	ci.pod_name = "web-7d4b9c8f6b-x2x9z";
	ci.pod_namespace = "shop";
	/* a remote client calls nginx in its pod: 2 ms and 30 ms, one 500 */
	r = rec__http("10.0.0.1", "10.0.0.2", 8080, REQ_SIDE_SERVER, "/api", 200, 2000000);
	rec__local(&r.server, "nginx", &ci);
	CHECK_INT(topo__add(t, &r), 0);
	r.duration = 30000000;
	CHECK_INT(topo__add(t, &r), 0);
	r.status = 500;
	r.error = true;
	r.duration = 250000000;
	CHECK_INT(topo__add(t, &r), 0);
	/* a second path goes to "other" (max_contents 1) */
	snprintf(r.target, sizeof(r.target), "/a\"b\\c");
	CHECK_INT(topo__add(t, &r), 0);

	CHECK_INT(topo__prom(t, &b), 0);
	const char *text = b.buf;
#define ENT "namespace=\"shop\",workload_kind=\"Deployment\",workload_name=\"web\"," \
	"pod=\"web-7d4b9c8f6b-x2x9z\",container=\"nginx\",container_id=\"0123456789ab\"," \
	"process=\"\",ip=\"\",port=\"\",protocol=\"http\""
#define EDGE "src_namespace=\"\",src_workload_kind=\"\",src_workload_name=\"\",src_pod=\"\"," \
	"src_container=\"\",src_process=\"\",src_ip=\"10.0.0.1\",dst_namespace=\"shop\"," \
	"dst_workload_kind=\"Deployment\",dst_workload_name=\"web\"," \
	"dst_pod=\"web-7d4b9c8f6b-x2x9z\",dst_container=\"nginx\",dst_process=\"\"," \
	"dst_ip=\"\",dst_port=\"\",protocol=\"http\""
	check_line(text, "# TYPE agent_request_total counter");
	check_line(text, "# TYPE agent_request_duration_seconds histogram");
	check_line(text, "# TYPE agent_edge_request_duration_seconds histogram");
	check_line(text, "agent_request_total{" ENT ",request_content=\"/api\","
		   "response_content=\"2xx\"} 2");
	check_line(text, "agent_request_total{" ENT ",request_content=\"/api\","
		   "response_content=\"5xx\"} 1");
	check_line(text, "agent_request_total{" ENT ",request_content=\"other\","
		   "response_content=\"5xx\"} 1");
	check_line(text, "agent_request_errors_total{" ENT ",request_content=\"/api\","
		   "response_content=\"5xx\"} 1");
	check_line(text, "agent_request_bytes_total{" ENT ",request_content=\"/api\","
		   "response_content=\"2xx\",direction=\"request\"} 200");
	check_line(text, "agent_request_bytes_total{" ENT ",request_content=\"/api\","
		   "response_content=\"2xx\",direction=\"response\"} 2000");
	check_line(text, "agent_request_duration_seconds_bucket{" ENT ",request_content=\"/api\","
		   "response_content=\"2xx\",le=\"0.001\"} 0");
	check_line(text, "agent_request_duration_seconds_bucket{" ENT ",request_content=\"/api\","
		   "response_content=\"2xx\",le=\"0.0025\"} 1");
	check_line(text, "agent_request_duration_seconds_bucket{" ENT ",request_content=\"/api\","
		   "response_content=\"2xx\",le=\"0.05\"} 2");
	check_line(text, "agent_request_duration_seconds_bucket{" ENT ",request_content=\"/api\","
		   "response_content=\"2xx\",le=\"+Inf\"} 2");
	check_line(text, "agent_request_duration_seconds_sum{" ENT ",request_content=\"/api\","
		   "response_content=\"2xx\"} 0.032");
	check_line(text, "agent_request_duration_seconds_count{" ENT ",request_content=\"/api\","
		   "response_content=\"2xx\"} 2");
	check_line(text, "agent_edge_request_total{" EDGE ",response_content=\"5xx\"} 2");
	check_line(text, "agent_edge_errors_total{" EDGE ",response_content=\"5xx\"} 2");
	check_line(text, "agent_edge_request_bytes_total{" EDGE ",response_content=\"2xx\","
		   "direction=\"response\"} 2000");
	check_line(text, "agent_edge_request_duration_seconds_bucket{" EDGE ","
		   "response_content=\"5xx\",le=\"0.25\"} 2");
	check_line(text, "agent_edge_request_duration_seconds_sum{" EDGE ","
		   "response_content=\"5xx\"} 0.5");
	check_line(text, "agent_request_series_capped_total{kind=\"request_content\"} 1");
	check_line(text, "agent_request_series_capped_total{kind=\"entity\"} 0");
	/* 3 entity series and 2 edges; 15 buckets each */
	CHECK_INT(count_prefix(text, "agent_request_total{"), 3);
	CHECK_INT(count_prefix(text, "agent_request_duration_seconds_bucket{"), 45);
	CHECK_INT(count_prefix(text, "agent_edge_request_duration_seconds_bucket{"), 30);
	CHECK_INT(count_prefix(text, "agent_request_bytes_total{"), 6);
	CHECK_INT(count_prefix(text, "# TYPE "), 10);
	promtool(argc > 1 ? argv[1] : NULL, text);

	/* an empty table: headers and the cap counters only */
	topo__free(t);
	t = topo__new(NULL);
	prom_buf__reset(&b);
	CHECK_INT(topo__prom(t, &b), 0);
	CHECK_INT(count_prefix(b.buf, "agent_request_total"), 0);
	CHECK_INT(count_prefix(b.buf, "agent_request_series_capped_total{"), 5);
	CHECK_INT(count_prefix(b.buf, "agent_request_offcpu"), 0);	/* profiling off */
	promtool(argc > 1 ? argv[1] : NULL, b.buf);

	/* profiling: the breakdowns summed per series, a request without one
	 * counted in none of them */
	topo__free(t);
	t = topo__new(NULL);
	topo__set_profile(t, true);
	r = rec__http("10.0.0.1", "10.0.0.2", 8080, REQ_SIDE_SERVER, "/api", 200, 90000000);
	rec__local(&r.server, "nginx", &ci);
	r.has_cpu = true;
	r.oncpu = 20000000;
	r.cpu[REQ_CPU_RUNQ] = 1000000;
	r.cpu[REQ_CPU_SLEEP] = 30000000;
	r.cpu[REQ_CPU_LOCK] = 25000000;
	r.cpu[REQ_CPU_FILE] = 14000000;
	CHECK_INT(topo__add(t, &r), 0);
	CHECK_INT(topo__add(t, &r), 0);
	r.has_cpu = false;
	CHECK_INT(topo__add(t, &r), 0);
	prom_buf__reset(&b);
	CHECK_INT(topo__prom(t, &b), 0);
#define SER ENT ",request_content=\"/api\",response_content=\"2xx\""
	check_line(b.buf, "# TYPE agent_request_offcpu_seconds_total counter");
	check_line(b.buf, "agent_request_total{" SER "} 3");
	check_line(b.buf, "agent_request_profiled_total{" SER "} 2");
	check_line(b.buf, "agent_request_oncpu_seconds_total{" SER "} 0.04");
	check_line(b.buf, "agent_request_runq_seconds_total{" SER "} 0.002");
	check_line(b.buf, "agent_request_offcpu_seconds_total{" SER ",reason=\"sleep\"} 0.06");
	check_line(b.buf, "agent_request_offcpu_seconds_total{" SER ",reason=\"lock\"} 0.05");
	check_line(b.buf, "agent_request_offcpu_seconds_total{" SER ",reason=\"file\"} 0.028");
	check_line(b.buf, "agent_request_offcpu_seconds_total{" SER ",reason=\"net\"} 0");
	CHECK_INT(count_prefix(b.buf, "agent_request_offcpu_seconds_total{"), 6);
	promtool(argc > 1 ? argv[1] : NULL, b.buf);
	prom_buf__free(&b);
	topo__free(t);
	return t_report();
}
