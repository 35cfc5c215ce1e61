/* The capture object: one engine behind a table of operations. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

struct capture *capture__open_engine(const struct capture_engine_ops *ops, void *engine)
{
	struct capture *c;

	if (!ops || !ops->next) {
		errno = EINVAL;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->ops = ops;
	c->engine = engine;
	return c;
}

int capture__next(struct capture *c, struct capture_event *ev, int timeout_ms)
{
	ev->flags = 0;	/* only file engines have flags to say */
	return c->ops->next(c->engine, ev, timeout_ms);
}

int capture__stats(struct capture *c, struct capture_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!c->ops->stats)
		return -EOPNOTSUPP;
	return c->ops->stats(c->engine, st);
}

void capture__close(struct capture *c)
{
	if (!c)
		return;
	if (c->ops->close)
		c->ops->close(c->engine);
	free(c);
}

struct driver *capture__driver(struct capture *c)
{
	return c->ops->driver ? c->ops->driver(c->engine) : NULL;
}

int capture__stop(struct capture *c)
{
	return c->ops->stop ? c->ops->stop(c->engine) : -EOPNOTSUPP;
}

int capture__set_sigmask(struct capture *c, const sigset_t *mask)
{
	return c->ops->set_sigmask ? c->ops->set_sigmask(c->engine, mask) : -EOPNOTSUPP;
}

/* BPF ring buffers: one reserve and commit per event, no wakeup, against a perf
 * sample's bookkeeping (bench/README.md, "Engines"). */
enum capture_engine capture__engine(enum capture_engine e)
{
	return e == CAPTURE_ENGINE_DEFAULT ? CAPTURE_ENGINE_RINGBUF : e;
}

const char *capture__engine_name(enum capture_engine e)
{
	return capture__engine(e) == CAPTURE_ENGINE_RINGBUF ? "ringbuf" : "perf";
}
