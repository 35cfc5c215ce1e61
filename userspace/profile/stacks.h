/* On-CPU stack samples (CPU_SAMPLE events) counted per distinct stack of a
 * process, each named once, when first seen (the process may be gone by the
 * end): "comm;outer;...;inner" with the user frames then the kernel's
 * (suffixed "_[k]", as flamegraph.pl colours them), the collapsed-stack line
 * that flamegraph.pl, speedscope and inferno read. A sample carries its
 * stacks' addresses; a stack is known by two 64-bit hashes of them. */
#ifndef PROFILE_STACKS_H
#define PROFILE_STACKS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define PROF_STACKS_KEYS 16384	/* distinct (process, user stack, kernel stack) kept */
#define PROF_STACK_FRAMES 127

struct symbolizer;

struct prof_stacks_counters {
	uint64_t n_samples;	/* samples counted */
	uint64_t n_keys;	/* distinct stacks now */
	uint64_t n_full;	/* samples of new stacks past PROF_STACKS_KEYS */
	uint64_t n_lost;	/* samples with neither stack (none could be walked) */
};

struct prof_stacks;
struct prof_stacks *prof_stacks__new(struct symbolizer *sym);
void prof_stacks__free(struct prof_stacks *s);
/* A CPU_SAMPLE event's stack param (VAL, LEN bytes) as addresses into IPS
 * (at most MAX): their count. 0 for an empty one, an 8-byte id of an older
 * agent's files (a value below 65536, or negative: its stack is not in the
 * file), or a length not a multiple of 8. */
int prof_stacks__decode(const void *val, uint32_t len, uint64_t *ips, int max);
/* One sample of process PID (COMM, in GROUP: a container id or "") whose
 * user stack is the NU addresses at UIPS and kernel stack the NK at KIPS,
 * innermost first. Returns the stack's key (>= 0, for prof_stacks__folded)
 * or a negative errno: -ENOSPC past the bound, -ENOENT when neither stack
 * has an address. */
int prof_stacks__add(struct prof_stacks *s, int64_t pid, const char *comm, const char *group,
		     const uint64_t *uips, int nu, const uint64_t *kips, int nk);
/* Key K's collapsed line (without its count); NULL for no such key. */
const char *prof_stacks__folded(const struct prof_stacks *s, int k);
/* Writes one file per GROUP and COMM into DIR, stacks-GROUP-COMM.folded
 * ("host" for no group): each distinct line and its count. 0 or -errno. */
int prof_stacks__write(const struct prof_stacks *s, const char *dir);
void prof_stacks__counters(const struct prof_stacks *s, struct prof_stacks_counters *out);

#endif
