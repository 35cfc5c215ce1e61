/* The agent's counters in Prometheus' text format. Built on the main thread at
 * ticks (about once a second) from a gathered snapshot, never per event; the
 * server (userspace/metrics) serves the last text from its own thread. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "agent_metrics.h"
#include "metrics.h"
#include "prom.h"
#include "schema.h"
#include "topo.h"

struct agent_metrics {
	struct metrics_server *srv;
	struct prom_buf text;
	double start_time;	/* seconds since the epoch */
};

static double realtime_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct agent_metrics *agent_metrics__start(const char *addr, char *err, size_t errlen)
{
	struct agent_metrics *m = calloc(1, sizeof(*m));

	if (!m) {
		snprintf(err, errlen, "cannot start the metrics server: out of memory");
		return NULL;
	}
	m->srv = metrics_server__start(addr, err, errlen);
	if (!m->srv) {
		int e = errno;

		free(m);
		errno = e;
		return NULL;
	}
	m->start_time = realtime_s();
	return m;
}

void agent_metrics__stop(struct agent_metrics *m)
{
	if (!m)
		return;
	metrics_server__stop(m->srv);
	prom_buf__free(&m->text);
	free(m);
}

/* A family with one unlabelled sample. */
static int one(struct prom_buf *b, const char *name, const char *type, const char *help,
	       uint64_t v)
{
	return prom__family(b, name, type, help) ?: prom__sample_u64(b, name, NULL, v);
}

static uint64_t resident_bytes(void)
{
	unsigned long size, rss;
	FILE *f = fopen("/proc/self/statm", "r");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "%lu %lu", &size, &rss);
	fclose(f);
	return n == 2 ? (uint64_t)rss * (uint64_t)sysconf(_SC_PAGESIZE) : 0;
}

static int kernel_drops(struct prom_buf *b, const struct agent_counters *c)
{
	static const char *const reason[] = { "ring_full", "too_big", "driver_bug" };
	const struct capture_cpu_stats *t = &c->cap.total;
	const uint64_t tot[] = { t->drv_drops_buffer, t->drv_drops_scratch, t->drv_drops_bug };
	char cpu[16];
	int err;

	err = prom__family(b, "agent_kernel_drops_total", "counter",
			   "Events the kernel could not send, by reason (each counted once).");
	for (int r = 0; r < 3 && !err; r++)
		err = prom__sample_u64(b, "agent_kernel_drops_total",
				       (const char *const[]){ "reason", reason[r], NULL }, tot[r]);
	err = err ?: prom__family(b, "agent_kernel_drops_cpu_total", "counter",
				  "Kernel drops by CPU and reason.");
	for (uint32_t i = 0; i < c->cap.ncpus && i < CAPTURE_MAX_CPUS && !err; i++) {
		const struct capture_cpu_stats *s = &c->cap.cpu[i];
		const uint64_t v[] = { s->drv_drops_buffer, s->drv_drops_scratch, s->drv_drops_bug };

		snprintf(cpu, sizeof(cpu), "%u", i);
		for (int r = 0; r < 3 && !err; r++)
			err = prom__sample_u64(b, "agent_kernel_drops_cpu_total",
					       (const char *const[]){ "cpu", cpu, "reason", reason[r],
								      NULL }, v[r]);
	}
	err = err ?: prom__family(b, "agent_kernel_drops_event_total", "counter",
				  "Kernel drops by event type and direction (> enter, < exit).");
	for (int code = 0; code < PPM_EVENT_MAX && !err; code++) {
		const char *name = schema_events[code].name;

		if (!c->drops_by_type[code])
			continue;
		err = prom__sample_u64(b, "agent_kernel_drops_event_total",
				       (const char *const[]){ "event", name ? name : "unknown", "dir",
							      PPME_IS_ENTER(code) ? ">" : "<", NULL },
				       c->drops_by_type[code]);
	}
	err = err ?: prom__family(b, "agent_kernel_runs_skipped_total", "counter",
				  "Runs of the driver's tracepoint programs the kernel skipped, "
				  "nested on a CPU where the program ran: made by the program's "
				  "pair (TCP health), or lost.");
	err = err ?: prom__sample_u64(b, "agent_kernel_runs_skipped_total",
				      (const char *const[]){ "result", "made_by_pair", NULL },
				      t->drv_skipped_paired);
	err = err ?: prom__sample_u64(b, "agent_kernel_runs_skipped_total",
				      (const char *const[]){ "result", "lost", NULL },
				      t->drv_skipped_lost);
	return err ?: one(b, "agent_corrupt_records_total", "counter",
			  "Ring records skipped as malformed (lost events).", t->n_corrupt)
		   ?: one(b, "agent_ring_lost_total", "counter",
			  "Samples the perf ring reported lost: the ring's view of the ring_full "
			  "drops, not to be added to them.", t->n_lost)
		   ?: one(b, "agent_params_unreadable_total", "counter",
			  "Parameters sent empty because user memory was unreadable.",
			  t->drv_drops_pf);
}

/* One family over every output: VALUE picks the number from an output's stats. */
static int per_output(struct prom_buf *b, const struct agent_counters *c, const char *name,
		      const char *type, const char *help, int field)
{
	int err = prom__family(b, name, type, help);

	for (int i = 0; i < c->n_outputs && !err; i++) {
		const struct output_stats *o = &c->out[i];
		const uint64_t v[] = { o->emitted, o->queue_bytes, o->queue_lines,
				       o->queue_capacity, o->write_errors, o->connect_failures,
				       o->connected, o->markers, o->queued };

		err = prom__sample_u64(b, name, (const char *const[]){ "output", c->output_url[i],
								       NULL }, v[field]);
	}
	return err;
}

static int outputs(struct prom_buf *b, const struct agent_counters *c)
{
	static const char *const reason[] = { "queue_full", "output_error", "exit_deadline" };
	int err;

	err = per_output(b, c, "agent_output_emitted_total", "counter",
			 "Event lines written in full to the output.", 0)
	   ?: per_output(b, c, "agent_output_queued_total", "counter",
			 "Event lines accepted into the output's queue.", 8)
	   ?: per_output(b, c, "agent_output_queue_bytes", "gauge", "Bytes queued now.", 1)
	   ?: per_output(b, c, "agent_output_queue_lines", "gauge", "Lines queued now.", 2)
	   ?: per_output(b, c, "agent_output_queue_capacity_bytes", "gauge",
			 "Size of the output's queue.", 3)
	   ?: per_output(b, c, "agent_output_write_errors_total", "counter",
			 "Failed or short writes, failed POSTs.", 4)
	   ?: per_output(b, c, "agent_output_connect_failures_total", "counter",
			 "Failed connects or opens.", 5)
	   ?: per_output(b, c, "agent_output_connected", "gauge",
			 "1 while the output is open or connected.", 6)
	   ?: per_output(b, c, "agent_output_markers_total", "counter",
			 "Drop markers written into the output's stream.", 7)
	   ?: prom__family(b, "agent_output_drops_total", "counter",
			   "Event lines an output lost, by reason.");
	for (int i = 0; i < c->n_outputs && !err; i++) {
		const struct output_stats *o = &c->out[i];
		const uint64_t v[] = { o->drop_queue_full, o->drop_error, o->drop_exit };

		for (int r = 0; r < 3 && !err; r++)
			err = prom__sample_u64(b, "agent_output_drops_total",
					       (const char *const[]){ "output", c->output_url[i],
								      "reason", reason[r], NULL }, v[r]);
	}
	return err;
}

static int ring(struct prom_buf *b, const struct agent_counters *c, double now)
{
	const struct capture_cpu_stats *t = &c->cap.total;
	double lag = 0;
	char cpu[16];
	int err;

	err = prom__family(b, "agent_ring_fill_ratio", "gauge",
			   "Share of each CPU's ring written and not yet read.");
	for (uint32_t i = 0; i < c->cap.ncpus && i < CAPTURE_MAX_CPUS && !err; i++) {
		const struct capture_cpu_stats *s = &c->cap.cpu[i];

		if (!s->ring_size)
			continue;
		snprintf(cpu, sizeof(cpu), "%u", i);
		err = prom__sample_double(b, "agent_ring_fill_ratio",
					  (const char *const[]){ "cpu", cpu, NULL },
					  (double)s->ring_used / (double)s->ring_size);
	}
	/* Only while events wait in the rings: an idle agent is not behind. */
	if (t->ring_used && c->cap.last_ts && now > c->cap.last_ts / 1e9)
		lag = now - c->cap.last_ts / 1e9;
	return err ?: prom__family(b, "agent_consumer_lag_seconds", "gauge",
				   "Age of the last event read while more wait in the rings.")
		   ?: prom__sample_double(b, "agent_consumer_lag_seconds", NULL, lag);
}

/* --requests: what the pairing could not follow, by reason, and the request
 * metrics per entity and per edge (topology/README.md). */
static int requests(struct prom_buf *b, const struct agent_counters *c)
{
	static const char name[] = "agent_requests_not_followed_total";
	const struct pair_counters *p = &c->pairing;
	const struct { const char *why; uint64_t n; } rows[] = {
		{ "connection_table_full", p->n_conns_full },
		{ "pipeline_full", p->n_pipeline_full },
		{ "past_snaplen", p->n_uncaptured },
		{ "response_without_request", p->n_unmatched },
		{ "parser_refused", p->n_unparsed },
		{ "metrics_out_of_memory", c->tally.topo_errors },
		/* TLS probes: plaintext on no socket the kernel knew (not sent),
		 * a handshake's exchange unanswered when its plaintext began */
		{ "tls_no_socket", c->cap.total.drv_tls_nofd },
		{ "tls_handshake_unanswered", p->n_tls_unanswered },
		/* HTTP/2: requests whose headers a lost header table hid, reads
		 * whose frames could not be walked, connections with no memory */
		{ "http2_headers_unknown", p->n_h2_unknown },
		{ "http2_frames_lost", p->n_h2_desync },
		{ "http2_out_of_memory", p->n_h2_nomem },
	};
	int err;

	/* TCP health's connections the driver had no room for (0 without it) */
	err = one(b, "agent_tcp_untracked_total", "counter",
		  "TCP connections TCP health did not keep, its kernel table full: no record.",
		  c->cap.total.drv_tcp_untracked);
	if (!err && !c->have_pairing)
		return c->topo ? topo__prom(c->topo, b) : 0;
	err = err ?: one(b, "agent_requests_paired_total", "counter",
		  "Requests paired with their response (or timed out, or cut by a close).",
		  p->n_requests)
	   ?: one(b, "agent_request_connections", "gauge", "Connections followed now.",
		  p->n_conns)
	   ?: prom__family(b, name, "counter",
			   "Requests and messages the pairing could not follow, by reason.");
	for (size_t i = 0; !err && i < sizeof(rows) / sizeof(rows[0]); i++)
		err = prom__sample_u64(b, name, (const char *const[]){ "reason", rows[i].why, NULL },
				       rows[i].n);
	if (!err)
		err = prom__family(b, "agent_request_parents_unknown_total", "counter",
				   "Calls given no req.parent: their thread served several requests "
				   "(unknown), or their requests' thread was not followed (threads_full).")
		   ?: prom__sample_u64(b, "agent_request_parents_unknown_total",
				       (const char *const[]){ "reason", "unknown", NULL },
				       p->n_parent_unknown)
		   ?: prom__sample_u64(b, "agent_request_parents_unknown_total",
				       (const char *const[]){ "reason", "threads_full", NULL },
				       p->n_threads_full);
	if (!err && c->have_tls)
		err = one(b, "agent_tls_library_files", "gauge",
			  "TLS library files request mode's TLS probes are on.",
			  c->tls.libs.files - c->tls.libs.go_files) ?:
		      one(b, "agent_tls_go_programs", "gauge",
			  "Go programs request mode's Go TLS probes are on.", c->tls.libs.go_files) ?:
		      one(b, "agent_tls_go_programs_unprobed", "gauge",
			  "Go programs with crypto/tls the Go TLS probes cannot be put on (stripped,"
			  " or Go before 1.17).", c->tls.libs.go_unprobed);
	return err ?: c->topo ? topo__prom(c->topo, b) : 0;
}

static int build(struct agent_metrics *m, const struct agent_counters *c, bool running)
{
	const struct capture_cpu_stats *t = &c->cap.total;
	struct prom_buf *b = &m->text;
	double now = realtime_s();

	return one(b, "agent_events_read_total", "counter",
		   "Events read from the kernel (or the capture file).", t->n_evts)
	    ?: one(b, "agent_events_matched_total", "counter", "Events that passed the filter.",
		   c->tally.matched)
	    ?: one(b, "agent_events_malformed_total", "counter",
		   "Events the parser rejected.", c->tally.malformed)
	    ?: kernel_drops(b, c)
	    ?: outputs(b, c)
	    ?: ring(b, c, now)
	    ?: one(b, "agent_capture_running", "gauge", "1 while capture runs.", running)
	    ?: one(b, "agent_resident_memory_bytes", "gauge", "Resident memory of the agent.",
		   resident_bytes())
	    ?: one(b, "agent_containers", "gauge", "Containers tracked now.",
		   c->containers.n_containers)
	    ?: one(b, "agent_containers_seen_total", "counter", "Containers seen.",
		   c->containers.n_seen)
	    ?: prom__family(b, "agent_start_time_seconds", "gauge",
			    "When the agent started, seconds since the epoch.")
	    ?: prom__sample_double(b, "agent_start_time_seconds", NULL, m->start_time)
	    ?: prom__family(b, "agent_build_info", "gauge", "The agent's version.")
	    ?: prom__sample_u64(b, "agent_build_info",
				(const char *const[]){ "version", AGENT_VERSION, NULL }, 1)
	    ?: requests(b, c);
}

void agent_metrics__publish(struct agent_metrics *m, const struct agent_counters *c,
			    bool running)
{
	prom_buf__reset(&m->text);
	/* Out of memory: the previous text stays served, and goes stale. */
	if (build(m, c, running))
		return;
	metrics_server__publish(m->srv, m->text.buf, m->text.len);
	metrics_server__set_running(m->srv, running);
}
