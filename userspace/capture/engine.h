/* Inside the capture layer: the capture object and the engines' entry points. */
#ifndef CAPTURE_ENGINE_H
#define CAPTURE_ENGINE_H

#include "capture.h"

struct capture {
	const struct capture_engine_ops *ops;
	void *engine;
};

/* The live engine (live.c). */
extern const struct capture_engine_ops live_engine_ops;
struct driver *live__driver(void *engine);
int live__set_sigmask(void *engine, const sigset_t *mask);
int live__stop(void *engine);

#endif
