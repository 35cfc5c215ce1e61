/* Test-only thread and fd tables: the opaque tables of state.h, defined here so
 * the field, filter and format tests build events by hand without the parser. */
#ifndef FILTER_TEST_STATE_STUBS_H
#define FILTER_TEST_STATE_STUBS_H

#include "state.h"

#define STUB_MAX 64

struct fd_table {
	struct fd_info *fds[STUB_MAX];
	size_t n;
};

struct thread_table {
	struct thread_info *threads[STUB_MAX];
	size_t n;
};

void stub__add_fd(struct fd_table *t, struct fd_info *fd);
void stub__add_thread(struct thread_table *t, struct thread_info *ti);

#endif
