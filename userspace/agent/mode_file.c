/* -r: replay a capture file. Its tids are not this host's, so /proc is never read. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "agent.h"
#include "say.h"

int agent__start_file(struct agent *a)
{
	struct inspector_opts io = { .no_proc_scan = true, .no_proc_lookup = true };
	struct capfile_import imp;

	a->in = inspector__new(&io);
	if (!a->in) {
		agent__say("cannot set up the process tables: %s", strerror(errno));
		return -errno;
	}
	field_ctx__init(&a->fctx, inspector__threads(a->in));
	agent__buffer_options(a);
	a->cap = capture__open_file_state(a->o.read_file, &a->ferr, a->in, &imp);
	if (!a->cap) {
		int err = -errno;

		agent__say("%s", a->ferr.msg);
		return err;
	}
	if (imp.n_capped)
		agent__say("warning: %s lists more processes, fds and containers "
			"than the reader keeps (%llu MiB of state, %u entries per list): %" PRIu64
			" entries skipped, their events show fewer names", a->o.read_file,
			CAPFILE_STATE_MAX_MIB, CAPFILE_LIST_ENTRIES_MAX, imp.n_capped);
	if (a->o.verbose)
		agent__say("reading %s: %" PRIu64 " threads and %" PRIu64 " fds "
			"from its lists (%" PRIu64 " malformed list blocks skipped), %" PRIu64
			" containers", a->o.read_file, imp.n_threads, imp.n_fds, imp.n_bad_lists,
			imp.n_containers);
	return 0;
}
