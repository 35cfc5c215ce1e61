/* The sinsp-style filter language (docs/formats.md, "Filter language"):
 *
 *   proc.name=nginx and (evt.type in (open, openat) or fd.sport >= 8000)
 *   not evt.failed and fd.name startswith /etc and evt.buffer contains "GET "
 *
 * A filter is compiled once into a tree whose per-event evaluation does no
 * string parsing: numbers, addresses and booleans are parsed at compile time
 * and evt.type comparisons become sets of event codes. */
#ifndef FILTER_H
#define FILTER_H

#include <stdbool.h>
#include <stdint.h>

#include "fields.h"
#include "schema.h"
#include "schema_syscalls.h"

struct filter;

/* Compiles EXPR. Returns NULL on error with errno set (EINVAL: ERR says what was
 * expected and at which 1-based column; ENOMEM). */
struct filter *filter__compile(const char *expr, struct filter_error *err);
void filter__free(struct filter *f);

/* True if EV matches. CTX provides scratch memory and the thread table. */
bool filter__match(const struct filter *f, const struct ievt *ev, struct field_ctx *ctx);

/* Kernel pushdown: the event codes that can possibly match F (conservative:
 * a code left out can never match). Generic events (codes 0/1) are in when
 * any syscall name routed to them can match. Returns 1 when the filter does
 * not constrain event types at all (everything set), else 0. */
int filter__event_set(const struct filter *f, uint8_t set[PPM_EVENT_MAX]);

/* The same, with generic events resolved per syscall (PPM_SC code). */
struct filter_events {
	uint8_t codes[PPM_EVENT_MAX];	/* 1: may match */
	/* generic events: the native syscall numbers that may match */
	uint8_t generic_nr[SYSCALL_TABLE_SIZE];
	bool all;			/* not constrained */
};

int filter__events(const struct filter *f, struct filter_events *out);

/* Native syscalls worth capturing for EVENTS: those whose enter or exit event
 * may match, and generic-routed ones whose syscall may match. Sets SC[n] to 1
 * or 0 for every n < SYSCALL_TABLE_SIZE; returns how many are set. */
int filter_events__syscalls(const struct filter_events *events, uint8_t sc[SYSCALL_TABLE_SIZE]);

/* All events that change thread or fd state (EF_MODIFIES_STATE and the fd
 * creating/destroying ones): an agent that narrows capture with the sets
 * above adds these so that proc.* and fd.* keep working. */
void filter_events__add_state(struct filter_events *events);

/* The syscalls a live capture for F needs: those whose events may match F,
 * with those that keep thread and fd state right; every one for a NULL or
 * unconstrained F. Sets SC[n] to 1 or 0; returns how many are set, or
 * -ENOMEM. What the driver loads follows from it (driver/plan.h). */
int filter__syscalls_needed(const struct filter *f, uint8_t sc[SYSCALL_TABLE_SIZE]);

/* True if F compares evt.type with "open" but never with "openat" (glibc opens
 * files with openat, so such a filter probably misses what the user wants). */
bool filter__names_open_without_openat(const struct filter *f);

/* Kernel filtering by process (filter_kplan.c): the comparisons of F on what the
 * kernel knows of a thread ("atoms": proc.name =, in, startswith; proc.pid,
 * thread.tid, proc.ppid, user.uid, user.loginuid, group.gid =, in; container.id
 * =, in; each also under != or not) and, per event type, the atom results for
 * which an event of that type may match (three-valued: every other comparison
 * may be true or false). A result left out can never match. */
#define KPLAN_MAX_ATOMS 8
#define KPLAN_WORDS 4	/* 2^KPLAN_MAX_ATOMS bits */

enum kplan_kind {
	KP_COMM, KP_PID, KP_TID, KP_PPID, KP_UID, KP_GID, KP_LOGINUID, KP_CONTAINER,
	KP__KINDS
};

struct kplan_atom {
	uint8_t kind;		/* enum kplan_kind */
	bool prefix;		/* KP_COMM: startswith */
	uint32_t nvals;
	char **strs;		/* KP_COMM, KP_CONTAINER: the values */
	int64_t *nums;		/* the other kinds */
	char *text;		/* "proc.name in (a, b)", for messages */
};

struct filter_kplan {
	uint32_t natoms;
	struct kplan_atom atoms[KPLAN_MAX_ATOMS];
	uint32_t left;		/* comparisons on those fields left to userspace */
	/* bit A of a table: an event of a thread whose atom results are A (bit i:
	 * atom i true) may match */
	uint64_t codes[PPM_EVENT_MAX][KPLAN_WORDS];
	uint64_t generic_nr[SYSCALL_TABLE_SIZE][KPLAN_WORDS];	/* generic events */
	uint64_t any[KPLAN_WORDS];	/* some event may match */
	bool useful;		/* some type's table excludes some results */
};

/* The plan of F (NULL F: nothing to push). NULL and errno on failure. */
struct filter_kplan *filter__kplan(const struct filter *f);
void filter_kplan__free(struct filter_kplan *p);
/* A thread as the atoms see it (userspace's values). */
struct kplan_thread {
	const char *comm;
	int64_t pid, tid, ppid;
	uint32_t uid, gid, loginuid;	/* loginuid UINT32_MAX: unset */
	const char *container_id;	/* "host" outside containers */
};

/* The results of P's atoms for T: bit i set when atom i holds. With
 * CONTAINERS false, container.id atoms are left 0 (the kernel reads them). */
uint32_t filter_kplan__results(const struct filter_kplan *p, const struct kplan_thread *t,
			       bool containers);

/* Whether a table holds result A. */
static inline bool kplan__has(const uint64_t tab[KPLAN_WORDS], uint32_t a)
{
	return (tab[(a >> 6) & (KPLAN_WORDS - 1)] >> (a & 63)) & 1;
}

#endif
