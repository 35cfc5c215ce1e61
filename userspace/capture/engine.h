/* Inside the capture layer: the capture object, which reaches its engine only
 * through the engine's table of operations. */
#ifndef CAPTURE_ENGINE_H
#define CAPTURE_ENGINE_H

#include "capture.h"

struct capture {
	const struct capture_engine_ops *ops;
	void *engine;
};

#endif
