/* Built instead of live.c while the tree has no BPF driver to link. */
#include <errno.h>

#include "engine.h"

struct capture *capture__open_live(const struct capture_live_opts *opts)
{
	errno = ENOSYS;
	return NULL;
}

static int none_next(void *e, struct capture_event *ev, int timeout_ms)
{
	return -ENOSYS;
}

const struct capture_engine_ops live_engine_ops = { .name = "live", .next = none_next };

struct driver *live__driver(void *engine)
{
	return NULL;
}

int live__set_sigmask(void *engine, const sigset_t *mask)
{
	return -ENOSYS;
}
