/* The capture-file reader, as `agent -r` replays a file: the input is the whole
 * file (plain or gzip), its list blocks imported into a fresh inspector, every
 * event parsed and printed as a default text line and a JSON line. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "capfile.h"
#include "format.h"
#include "fuzz_input.h"
#include "inspect.h"
#include "sbuf.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* a few MB of input hold far fewer events; this only bounds a run */
#define EVENTS_MAX 100000

static int fd = -1;
static char path[64];
static struct format *fmt;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct filter_error err;

	fd = memfd_create("fuzz-capfile", MFD_CLOEXEC);
	fmt = format__compile(FORMAT_DEFAULT, &err);
	if (fd < 0 || !fmt)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return 0;
}

/* Parses and prints the events of CAP as the agent does. */
static void replay(struct inspector *in, struct capture *cap)
{
	struct capture_event cev;
	struct field_ctx fctx;
	struct sbuf line;
	struct ievt ev;

	field_ctx__init(&fctx, inspector__threads(in));
	sbuf__init(&line);
	for (int n = 0; n < EVENTS_MAX && capture__next(cap, &cev, 0) == 0; n++) {
		if (inspector__process(in, &cev, &ev))
			continue;
		format__text(fmt, &ev, &fctx, &line);
		format__json(fmt, &ev, &fctx, &line);
		sbuf__reset(&line);
	}
	sbuf__free(&line);
	field_ctx__fini(&fctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct inspector_opts io = { .no_proc_scan = true, .no_proc_lookup = true };
	struct capfile_import imp;
	struct capfile_error err;
	struct inspector *in;
	struct capture *cap;

	if (fuzz_input__write(fd, data, size))
		abort();
	in = inspector__new(&io);
	if (!in)
		return 0;
	cap = capture__open_file_state(path, &err, in, &imp);
	if (cap) {
		replay(in, cap);
		capture__close(cap);
	}
	inspector__free(in);
	return 0;
}
