/* -w: writing what the agent captured or replays to capture files. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "capfile.h"
#include "record.h"
#include "say.h"
#include "schema.h"

/* -C/-G: what every new file starts with, as the first one (record__start). */
static int record__cycle_state(struct capfile_writer *w, void *ctx)
{
	struct record *r = ctx;

	/* the lists first: sysdig reads none after the first event block */
	return capfile_writer__users(w, &r->users_mark) ?: capfile_writer__state(w, r->in, NULL);
}

int record__open(struct record *r, const struct agent_opts *o)
{
	struct capfile_cycle_opts co = {
		.path = o->write_file,
		.gzip = o->compress,
		.rollover_bytes = o->rollover_mb * 1000000ull,
		.seconds = o->rotate_secs,
		.file_limit = o->file_limit,
	};
	struct timespec now;

	if (!o->write_file)
		return 0;
	r->path = o->write_file;
	r->verbose = o->verbose;
	/* live: -G counts from now; a replay: from its first event (as sysdig) */
	if (!o->read_file && !clock_gettime(CLOCK_REALTIME, &now))
		co.start_ts = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	r->cycle = capfile_cycle__open(&co, record__cycle_state, r);
	if (!r->cycle) {
		int err = -errno;

		if (err == -ELOOP)
			agent__say("cannot create %s: it is a symbolic link, and capture "
				   "files are never written through one; remove it or name another "
				   "file", r->path);
		else
			agent__say("cannot create %s: %s", r->path, strerror(-err));
		return err;
	}
	r->writer = capfile_cycle__writer(r->cycle);
	return 0;
}

bool record__active(const struct record *r)
{
	return r->writer != NULL;
}

int record__start(struct record *r, struct inspector *in)
{
	struct capfile_state_counts n;
	int err;

	r->in = in;
	if (!r->writer)
		return 0;
	if ((err = capfile_writer__users(r->writer, &r->users_mark)) ||
	    (err = capfile_writer__state(r->writer, in, &n))) {
		agent__say("cannot write %s: %s", r->path, strerror(-err));
		return err;
	}
	if (r->verbose)
		agent__say("%s starts with %" PRIu64 " threads, %" PRIu64 " fds and %" PRIu64
			   " containers", r->path, n.n_threads, n.n_fds, n.n_containers);
	return 0;
}

/* -C/-G: a new file (its state written) when the current one is full at TS. */
static int record__rotate(struct record *r, uint64_t ts)
{
	int err;

	if (!r->cycle || (err = capfile_cycle__consider(r->cycle, ts)) == 0)
		return 0;
	r->writer = capfile_cycle__writer(r->cycle);
	if (err < 0) {
		agent__say("cannot write %s: %s", capfile_cycle__name(r->cycle), strerror(-err));
		return err;
	}
	if (r->verbose)
		agent__say("writing %s", capfile_cycle__name(r->cycle));
	return 0;
}

int record__event(struct record *r, const struct ievt *ev, const struct capture_event *cev)
{
	int err;

	if ((err = record__rotate(r, ev->ts)))
		return err;
	/* the file names a container before its first event, as sysdig's do */
	if (r->writer && ((err = capfile_writer__users_new(r->writer, ev->thread, cev->cpu,
							   ev->ts, &r->users_mark)) ||
			  (err = capfile_writer__container(r->writer, ev->thread, ev->ts)) ||
			  (err = capfile_writer__write(r->writer, cev->cpu, cev->frame)))) {
		agent__say("cannot write %s: %s", r->path, strerror(-err));
		return err;
	}
	return 0;
}

int record__frame(struct record *r, uint16_t cpu, const struct ppm_evt_hdr *frame, uint64_t ts)
{
	int err;

	if ((err = record__rotate(r, ts)))
		return err;
	if (r->writer && (err = capfile_writer__write(r->writer, cpu, frame))) {
		agent__say("cannot write %s: %s", r->path, strerror(-err));
		return err;
	}
	return 0;
}

int record__keep_state(struct record *r, const struct capture_event *cev)
{
	int err;

	if (!r->writer)
		return 0;
	err = capfile_writer__write_state_only(r->writer, cev->cpu, cev->frame);
	if (err)
		agent__say("cannot write %s: %s", r->path, strerror(-err));
	return err;
}

int record__filtered(struct record *r, uint16_t type, const struct capture_event *cev)
{
	if (type >= PPM_EVENT_MAX ||
	    !(schema_events[type].flags & (EF_MODIFIES_STATE | EF_CREATES_FD | EF_DESTROYS_FD)))
		return 0;
	return record__keep_state(r, cev);
}

int record__close(struct record *r)
{
	uint64_t n, files;
	char name[4096];
	int err;

	if (!r->cycle)
		return 0;
	n = capfile_cycle__count(r->cycle);
	files = capfile_cycle__files(r->cycle);
	snprintf(name, sizeof(name), "%s", capfile_cycle__name(r->cycle));
	err = capfile_cycle__close(r->cycle);
	r->cycle = NULL;
	r->writer = NULL;
	if (err)
		agent__say("cannot write %s: %s", name, strerror(-err));
	else if (files > 1)
		agent__say("%llu events written to %llu files, the last %s",
			   (unsigned long long)n, (unsigned long long)files, name);
	else
		agent__say("%llu events written to %s", (unsigned long long)n, name);
	return err;
}
