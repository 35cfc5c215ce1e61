/* Prints what was captured and what was lost, so a drop is never silent. Each
 * total is printed next to the parts it is the sum of. */
#include <inttypes.h>
#include <stdlib.h>

#include "driver.h"
#include "schema.h"
#include "summary.h"

uint64_t summary__dropped(const struct capture_cpu_stats *s)
{
	/* n_lost is the ring's view of drv_drops_buffer: the same samples, not added. */
	return s->drv_drops_buffer + s->drv_drops_scratch + s->drv_drops_bug + s->n_corrupt;
}

uint64_t summary__output_dropped(const struct output_stats *o)
{
	return o->drop_queue_full + o->drop_error + o->drop_exit;
}

static void cpu_line(FILE *out, const char *who, const struct capture_cpu_stats *s)
{
	fprintf(out, "  %-6s events %" PRIu64 ", dropped %" PRIu64 " (ring full %" PRIu64
		", too big %" PRIu64 ", driver bug %" PRIu64 ", corrupt %" PRIu64 ")\n", who,
		s->n_evts, summary__dropped(s), s->drv_drops_buffer, s->drv_drops_scratch,
		s->drv_drops_bug, s->n_corrupt);
}

static int by_count_desc(const void *a, const void *b, void *arg)
{
	const uint64_t *n = arg;
	uint16_t x = *(const uint16_t *)a, y = *(const uint16_t *)b;

	return n[x] < n[y] ? 1 : n[x] > n[y] ? -1 : (int)x - (int)y;
}

/* "openat< 12, openat> 10": every event type that lost events, most first. */
static void types_line(FILE *out, const uint64_t *drops)
{
	uint16_t codes[PPM_EVENT_MAX];
	int n = 0;

	for (int t = 0; t < PPM_EVENT_MAX; t++)
		if (drops[t])
			codes[n++] = (uint16_t)t;
	if (!n)
		return;
	qsort_r(codes, n, sizeof(codes[0]), by_count_desc, (void *)drops);
	fputs("agent: kernel drops by event:", out);
	for (int i = 0; i < n; i++) {
		const char *name = schema_events[codes[i]].name;

		fprintf(out, "%s %s%c %" PRIu64, i ? "," : "", name ? name : "unknown",
			PPME_IS_ENTER(codes[i]) ? '>' : '<', drops[codes[i]]);
	}
	fputc('\n', out);
}

static void output_line(FILE *out, const char *url, const struct output_stats *o)
{
	fprintf(out, "agent: output %s: %" PRIu64 " emitted, %" PRIu64 " dropped (queue full %"
		PRIu64 ", output error %" PRIu64 ", exit deadline %" PRIu64 "), %" PRIu64
		" markers, %" PRIu64 " write errors, %" PRIu64 " connect failures", url,
		o->emitted, summary__output_dropped(o), o->drop_queue_full, o->drop_error,
		o->drop_exit, o->markers, o->write_errors, o->connect_failures);
	if (o->queue_lines)
		fprintf(out, ", %" PRIu64 " queued", o->queue_lines);
	fputc('\n', out);
}

void summary__print(FILE *out, const struct agent_counters *c, const char *heading)
{
	const struct capture_cpu_stats *t = &c->cap.total;
	char name[16];

	fprintf(out, "agent: %s%" PRIu64 " events read, %" PRIu64 " matched, %" PRIu64
		" dropped, %" PRIu64 " malformed (capture mode: %s)\n", heading ? heading : "",
		t->n_evts, c->tally.matched, summary__dropped(t), c->tally.malformed,
		c->cap.mode ? c->cap.mode : "?");
	if (c->live)
		fprintf(out, "agent: dropped %" PRIu64 " = ring full %" PRIu64 " + too big %"
			PRIu64 " + driver bug %" PRIu64 " + corrupt records %" PRIu64 "; the ring "
			"reported %" PRIu64 " lost (its view of the ring-full drops, not added); %"
			PRIu64 " params sent empty (unreadable user memory)\n", summary__dropped(t),
			t->drv_drops_buffer, t->drv_drops_scratch, t->drv_drops_bug, t->n_corrupt,
			t->n_lost, t->drv_drops_pf);
	if (c->live)
		fprintf(out, "agent: the driver sent %" PRIu64 " events; %" PRIu64 " not read yet\n",
			t->drv_evts, t->drv_evts > t->n_evts ? t->drv_evts - t->n_evts : 0);
	if (t->n_reordered)
		fprintf(out, "agent: %" PRIu64 " events came out of timestamp order (their "
			"producer was held up between stamping and sending them longer than the "
			"order window)\n", t->n_reordered);
	cpu_line(out, "total", t);
	for (uint32_t i = 0; i < c->cap.ncpus && i < CAPTURE_MAX_CPUS; i++) {
		snprintf(name, sizeof(name), "cpu%u", i);
		cpu_line(out, name, &c->cap.cpu[i]);
	}
	if (c->live)
		types_line(out, c->drops_by_type);
	if (t->drv_skipped_paired || t->drv_skipped_lost)
		fprintf(out, "agent: the kernel skipped %" PRIu64 " runs of the driver's tracepoint "
			"programs, each nested on a CPU where its program ran: %" PRIu64 " of TCP "
			"health's, made by their pair's other program; %" PRIu64 " lost (a reset "
			"count, a profiler's wake-up)\n", t->drv_skipped_paired + t->drv_skipped_lost,
			t->drv_skipped_paired, t->drv_skipped_lost);
	for (int i = 0; i < c->n_outputs; i++)
		output_line(out, c->output_url[i], &c->out[i]);
	if (c->close_reused)
		fprintf(out, "agent: %" PRIu64 " closes returned after another thread's call had "
			"got their fd number: the new file's fd entry kept\n", c->close_reused);
	if (c->clone_self)
		fprintf(out, "agent: %" PRIu64 " clone exits named their caller as its own child "
			"(a damaged file): shown, no thread made of them\n", c->clone_self);
	if (c->have_containers)
		summary__containers(out, &c->containers);
	if (c->have_pairing)
		summary__requests(out, &c->pairing, &c->cap.total);
	if (c->have_tls)
		summary__tls(out, &c->tls, &c->pairing, &c->cap.total);
	if (c->profile.on)
		summary__profile(out, &c->profile, c->have_pairing ? &c->pairing : NULL,
				 c->cap.total.drv_prof_full);
}

void summary__profile(FILE *out, const struct req_mode_profile *pf, const struct pair_counters *p,
		      uint64_t kernel_full)
{
	fprintf(out, "agent: profiling: %" PRIu64 " threads followed now, %" PRIu64
		" not followed (the kernel's table full), %" PRIu64 " batches past the agent's"
		" table, %" PRIu64 " gaps (a batch or a switch not seen), %" PRIu64 " batches malformed",
		pf->clock.n_threads, kernel_full, pf->clock.n_full, pf->clock.n_gaps,
		pf->n_bad_batches);
	if (p)
		fprintf(out, "; server requests with no CPU breakdown: %" PRIu64 " whose thread"
			" was not followed, %" PRIu64 " answered by another thread, %" PRIu64
			" across a gap", p->n_cpu_unfollowed, p->n_cpu_handed, p->n_cpu_gap);
	if (p)
		fprintf(out, "; %" PRIu64 " threads let go, their requests a client's only (%"
			PRIu64 " followed again as they served, %" PRIu64 " the kernel not told)",
			pf->clock.n_let_go, pf->clock.n_again, pf->n_let_go_failed);
	fputc('\n', out);
}

void summary__requests(FILE *out, const struct pair_counters *p,
			const struct capture_cpu_stats *cap)
{
	uint64_t kept = cap->drv_quiet, file_closes = cap->drv_file_closes;

	fprintf(out, "agent: requests: %" PRIu64 " paired (%" PRIu64 " timed out, %" PRIu64
		" cut by a close), %" PRIu64 " open at the end; %" PRIu64
		" client connections left to their server's side (%" PRIu64 " of them kept in "
		"the kernel, %" PRIu64 " refused there; %" PRIu64 " syscalls kept there)"
		"; %" PRIu64 " closes of non-socket fds, %" PRIu64 " socket() calls of TCP sockets and %"
		PRIu64 " socket reads and writes that moved nothing kept in the kernel;"
		" not followed: %" PRIu64
		" connections (table full), %" PRIu64 " pipelined past %u, %" PRIu64
		" past the snaplen, %" PRIu64 " recvmmsg and sendmmsg messages (past the %u of a"
		" call the kernel sends); %" PRIu64 " responses without a request (and %"
		PRIu64 " Redis pushes, pub/sub messages and the like, which answer none), %" PRIu64
		" messages the protocol's parser refused; no req.parent: %" PRIu64
		" calls made by a thread serving several requests, %" PRIu64 " requests"
		" whose thread was not followed (table full); %" PRIu64 " peeks (MSG_PEEK) at"
		" sockets kept in the kernel; HTTP/2: %" PRIu64 " requests with unknown headers"
		" (%" PRIu64 " header tables not followed: seen mid-way, cut or refused by HPACK),"
		" %" PRIu64 " reads whose frames could not be walked, %" PRIu64
		" connections not followed (no memory)\n", p->n_requests, p->n_timeouts,
		p->n_aborted, p->n_open_at_end, p->n_client_quiet, p->n_quiet_handed,
		p->n_quiet_refused, kept, file_closes, cap->drv_tcp_sockets, cap->drv_sock_empty,
		p->n_conns_full, p->n_pipeline_full,
		PAIR_PIPELINE_MAX, p->n_uncaptured, cap->drv_mmsg_unsent, DRIVER_MMSG_MAX,
		p->n_unmatched, p->n_pushes, p->n_unparsed,
		p->n_parent_unknown, p->n_threads_full, cap->drv_peeks, p->n_h2_unknown,
		p->n_h2_lost, p->n_h2_desync, p->n_h2_nomem);
}

void summary__tls(FILE *out, const struct tls_watch_counters *t, const struct pair_counters *p,
		  const struct capture_cpu_stats *cap)
{
	fprintf(out, "agent: TLS: probes on %" PRIu64 " library files and %" PRIu64 " Go programs"
		" (%" PRIu64 " could not be probed%s%s; %" PRIu64 " Go programs with crypto/tls"
		" cannot be: stripped, or Go before 1.17), %" PRIu64 " scans of /proc; %" PRIu64
		" socket syscalls inside TLS calls kept in the kernel, %" PRIu64 " TLS calls on no"
		" known socket (not sent), %" PRIu64 " TLS sessions named their socket by the"
		" send after a call;"
		" %" PRIu64 " socket I/Os of connections read as plaintext not paired, %" PRIu64
		" handshake exchanges unanswered when the plaintext began\n",
		t->libs.files - t->libs.go_files, t->libs.go_files,
		t->attach_failed, t->attach_failed ? ": " : "",
		t->attach_failed ? strerror(-t->last_error) : "", t->libs.go_unprobed,
		t->libs.scans, cap->drv_tls_cipher,
		cap->drv_tls_nofd, cap->drv_tls_claimed, p->n_tls_cipher, p->n_tls_unanswered);
}

void summary__containers(FILE *out, const struct container_counters *c)
{
	if (!c->n_seen && !c->n_bad_json && !c->n_full)
		return;
	fprintf(out, "agent: containers %" PRIu64 " seen, %" PRIu64 " now; lookups %" PRIu64
		": %" PRIu64 " named, %" PRIu64 " without a runtime file, %" PRIu64
		" bad files (unreadable, too big or invalid); %" PRIu64 " not named (too many), "
		"%" PRIu64 " not tracked (table full), %" PRIu64 " malformed container records\n",
		c->n_seen, c->n_containers, c->n_lookups, c->n_found, c->n_missing,
		c->n_bad_files, c->n_not_named, c->n_full, c->n_bad_json);
}
