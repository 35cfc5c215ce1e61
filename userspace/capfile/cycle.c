/* A series of capture files, as sysdig's -C/-G/-W write them. The names and
 * the decisions follow libsinsp's cycle_writer (cyclewriter.cpp, libs
 * e5c53d64 as sysdig 0.29.3 builds it); capfile.h says how files are named. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capfile.h"

struct capfile_cycle {
	struct capfile_cycle_opts o;
	capfile_cycle_state_fn *state;
	void *ctx;
	struct capfile_writer *w;
	char *base;
	char name[4096];
	char fmt[16];		/* "%0Nd": N digits of file_limit */
	uint32_t index;		/* slot of the next file */
	char **past;		/* -G pattern with -W: name of each slot */
	time_t last;		/* start of the current file, whole seconds */
	uint64_t closed_count;	/* events in the files closed */
	uint64_t files;
};

/* libsinsp's cycle_writer::next_file: the next name, into c->name. */
static int cycle__next_name(struct capfile_cycle *c)
{
	const struct capfile_cycle_opts *o = &c->o;

	if (o->file_limit && c->index >= o->file_limit)
		c->index = 0;
	if (o->seconds && strchr(c->base, '%')) {
		/* a replay's first file, before its first event: the time now
		 * (sysdig names it "first_dump.scap") */
		time_t t = c->last ? c->last : time(NULL);
		struct tm tm;

		if (!localtime_r(&t, &tm) ||
		    strftime(c->name, sizeof(c->name), c->base, &tm) == 0)
			return -ENAMETOOLONG;
		if (o->file_limit) {
			/* the slot's previous file goes: -W files at most */
			if (c->past[c->index] && strcmp(c->past[c->index], c->name))
				remove(c->past[c->index]);
			free(c->past[c->index]);
			if (!(c->past[c->index] = strdup(c->name)))
				return -ENOMEM;
		}
	} else if (o->seconds) {
		snprintf(c->name, sizeof(c->name), "%s%u", c->base, c->index);
	} else {
		snprintf(c->name, sizeof(c->name), "%s", c->base);
	}
	if (o->rollover_bytes) {
		size_t n = strlen(c->name);

		snprintf(c->name + n, sizeof(c->name) - n, c->fmt, c->index);
	}
	c->index++;
	return 0;
}

static int cycle__open_next(struct capfile_cycle *c)
{
	int err;

	if ((err = cycle__next_name(c)))
		return err;
	c->w = capfile_writer__open(c->name, c->o.gzip);
	if (!c->w)
		return -errno;
	c->files++;
	return 0;
}

struct capfile_cycle *capfile_cycle__open(const struct capfile_cycle_opts *o,
					  capfile_cycle_state_fn *state, void *ctx)
{
	struct capfile_cycle *c = calloc(1, sizeof(*c));
	int digits = 0, err;

	if (!c)
		return NULL;
	c->o = *o;
	c->state = state;
	c->ctx = ctx;
	c->last = (time_t)(o->start_ts / 1000000000ull);
	c->base = strdup(o->path);
	if (!c->base) {
		err = -ENOMEM;
		goto fail;
	}
	c->o.path = c->base;
	for (uint32_t l = o->file_limit; l; l /= 10)
		digits++;
	/* "%00d" without -W: no padding, as sysdig */
	snprintf(c->fmt, sizeof(c->fmt), "%%0%du", digits);
	if (o->seconds && o->file_limit) {
		c->past = calloc(o->file_limit, sizeof(*c->past));
		if (!c->past) {
			err = -ENOMEM;
			goto fail;
		}
	}
	if ((err = cycle__open_next(c)))
		goto fail;
	return c;
fail:
	capfile_cycle__close(c);
	errno = -err;
	return NULL;
}

/* libsinsp's cycle_writer::consider, before each event written. */
int capfile_cycle__consider(struct capfile_cycle *c, uint64_t ts)
{
	time_t now = (time_t)(ts / 1000000000ull);
	bool next = false;
	int err;

	if (c->o.seconds) {
		if (c->last == 0)
			c->last = now;	/* a replay: its first event starts the clock */
		if (now - c->last >= (time_t)c->o.seconds) {
			c->last = now;
			next = true;
		}
	}
	if (!next && c->o.rollover_bytes && capfile_writer__size(c->w) > c->o.rollover_bytes)
		next = true;
	if (!next)
		return 0;
	c->closed_count += capfile_writer__count(c->w);
	err = capfile_writer__close(c->w);
	c->w = NULL;
	if (err)
		return err;
	if ((err = cycle__open_next(c)))
		return err;
	/* each file starts with the state, so it replays on its own */
	if (c->state && (err = c->state(c->w, c->ctx)))
		return err;
	return 1;
}

struct capfile_writer *capfile_cycle__writer(const struct capfile_cycle *c)
{
	return c->w;
}

const char *capfile_cycle__name(const struct capfile_cycle *c)
{
	return c->name;
}

uint64_t capfile_cycle__count(const struct capfile_cycle *c)
{
	return c->closed_count + (c->w ? capfile_writer__count(c->w) : 0);
}

uint64_t capfile_cycle__files(const struct capfile_cycle *c)
{
	return c->files;
}

int capfile_cycle__close(struct capfile_cycle *c)
{
	int err;

	if (!c)
		return 0;
	err = capfile_writer__close(c->w);
	if (c->past)
		for (uint32_t i = 0; i < c->o.file_limit; i++)
			free(c->past[i]);
	free(c->past);
	free(c->base);
	free(c);
	return err;
}
