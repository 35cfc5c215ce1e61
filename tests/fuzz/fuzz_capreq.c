/* A capture file replayed in request mode, as `agent -r FILE --requests
 * --metrics` does: the input is the whole file (plain or gzip), its events
 * parsed by a fresh inspector and handed to request mode (userspace/agent's
 * req_mode.c: socket I/O to the pairing, closes, new fds, CPU_SLICES to the
 * profiler's clocks), every record printed with the default request line and
 * as JSON and counted by a topology whose metrics are written at the end. The
 * capfile target covers the events alone; this one what the kernel's events
 * become once paired, on any order and content of them. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "capfile.h"
#include "format.h"
#include "fuzz_input.h"
#include "inspect.h"
#include "prom.h"
#include "req_mode.h"
#include "sbuf.h"
#include "topo.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* a few MB of input hold far fewer events; this only bounds a run */
#define EVENTS_MAX 100000

static int fd = -1;
static char path[64];
static struct format *text, *json;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct filter_error err;

	fd = memfd_create("fuzz-capreq", MFD_CLOEXEC);
	text = format__compile(FORMAT_REQUEST, &err);
	json = format__compile(FORMAT_REQUEST_JSON, &err);
	if (fd < 0 || !text || !json)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return 0;
}

struct run {
	struct field_ctx fctx;
	struct sbuf line;
	struct topo *topo;
};

/* A record, as the agent's on_request takes it with no filter: printed and
 * counted. */
static void on_request(void *ctx, const struct req_record *r, const struct ievt *ev)
{
	struct run *run = ctx;

	run->fctx.req = r;
	if (ev) {
		format__text(text, ev, &run->fctx, &run->line);
		format__json(json, ev, &run->fctx, &run->line);
		sbuf__reset(&run->line);
	}
	topo__add(run->topo, r);
	run->fctx.req = NULL;
}

static void replay(struct inspector *in, struct capture *cap, struct run *run)
{
	/* timeout 0: the pairing's default, as the agent without --request-timeout */
	struct req_mode *m = req_mode__new(in, 0, false, on_request, run);
	struct capture_event cev;
	struct pair_counters pc;
	struct ievt ev;

	if (!m)
		return;
	/* --profile: CPU_SLICES events feed the threads' clocks */
	req_mode__profile(m);
	for (int n = 0; n < EVENTS_MAX && capture__next(cap, &cev, 0) == 0; n++) {
		if (inspector__process(in, &cev, &ev))
			continue;
		req_mode__event(m, &ev);
		/* the agent's tick, at the event's time: an idle host's timeouts */
		if (n % 64 == 63)
			req_mode__tick(m, ev.ts);
	}
	req_mode__finish(m);
	req_mode__counters(m, &pc);
	req_mode__free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct inspector_opts io = { .no_proc_scan = true, .no_proc_lookup = true };
	struct prom_buf b = PROM_BUF_INIT;
	struct capfile_import imp;
	struct capfile_error err;
	struct inspector *in;
	struct capture *cap;
	struct run run;

	if (fuzz_input__write(fd, data, size))
		abort();
	in = inspector__new(&io);
	if (!in)
		return 0;
	run.topo = topo__new(NULL);
	field_ctx__init(&run.fctx, inspector__threads(in));
	sbuf__init(&run.line);
	cap = run.topo ? capture__open_file_state(path, &err, in, &imp) : NULL;
	if (cap) {
		replay(in, cap, &run);
		capture__close(cap);
	}
	if (run.topo)
		topo__prom(run.topo, &b);
	prom_buf__free(&b);
	sbuf__free(&run.line);
	field_ctx__fini(&run.fctx);
	topo__free(run.topo);
	inspector__free(in);
	return 0;
}
