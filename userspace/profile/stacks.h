/* On-CPU stack samples (CPU_SAMPLE events) counted per distinct stack of a
 * process, each named once, when first seen (the process may be gone by the
 * end): "comm;outer;...;inner" with the user frames then the kernel's
 * (suffixed "_[k]", as flamegraph.pl colours them), the collapsed-stack line
 * that flamegraph.pl, speedscope and inferno read. The caller fetches the
 * addresses (the driver's stack table) through a callback. */
#ifndef PROFILE_STACKS_H
#define PROFILE_STACKS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define PROF_STACKS_KEYS 16384	/* distinct (process, user stack, kernel stack) kept */
#define PROF_STACK_FRAMES 127

struct symbolizer;

/* The addresses of stack ID into IPS (at most MAX), innermost first: their
 * count or a negative errno. Asked once per distinct stack of a process: the
 * caller may free the stack's entry then. */
typedef int prof_stack_fetch_fn(void *ctx, int64_t id, uint64_t *ips, int max);

struct prof_stacks_counters {
	uint64_t n_samples;	/* samples counted */
	uint64_t n_keys;	/* distinct stacks now */
	uint64_t n_full;	/* samples of new stacks past PROF_STACKS_KEYS */
	uint64_t n_lost;	/* samples whose stacks the driver could not keep */
};

struct prof_stacks;
struct prof_stacks *prof_stacks__new(struct symbolizer *sym, prof_stack_fetch_fn *fetch,
				     void *ctx);
void prof_stacks__free(struct prof_stacks *s);
/* One sample of process PID (COMM, in GROUP: a container id or "") with
 * stack ids USTACK and KSTACK (negative: none). Returns the stack's key
 * (>= 0, for prof_stacks__folded) or a negative errno: -ENOSPC past the
 * bound, -ENOENT when neither stack was kept. */
int prof_stacks__add(struct prof_stacks *s, int64_t pid, const char *comm, const char *group,
		     int64_t ustack, int64_t kstack);
/* Key K's collapsed line (without its count); NULL for no such key. */
const char *prof_stacks__folded(const struct prof_stacks *s, int k);
/* Writes one file per GROUP and COMM into DIR, stacks-GROUP-COMM.folded
 * ("host" for no group): each distinct line and its count. 0 or -errno. */
int prof_stacks__write(const struct prof_stacks *s, const char *dir);
void prof_stacks__counters(const struct prof_stacks *s, struct prof_stacks_counters *out);

#endif
