/* Built instead of live.c while the tree has no BPF driver to link: no live
 * engine, so capture__open_live fails and nothing else is needed. */
#include <errno.h>

#include "capture.h"

struct capture *capture__open_live(const struct capture_live_opts *opts)
{
	(void)opts;
	errno = ENOSYS;
	return NULL;
}
