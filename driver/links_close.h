/* Destroying many BPF links at once (the driver's detach). */
#ifndef LINKS_CLOSE_H
#define LINKS_CLOSE_H

#include <stddef.h>

struct bpf_link;

/* Destroys the N links of LINKS (NULL entries skipped) and sets each entry
 * to NULL. Perf-event links (a syscall's own tracepoint, a uprobe) take the
 * kernel tens of ms each to tear down, much of it waiting on RCU grace
 * periods that overlap when several threads close at once: they are
 * closed from a few threads; where a thread cannot be made, by this one. */
void links__close_all(struct bpf_link **links, size_t n);

#endif
