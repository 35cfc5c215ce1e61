/* The inspector: turns raw event frames into parsed events with thread and fd
 * context, keeping the thread and fd tables current. */
#ifndef INSPECT_H
#define INSPECT_H

#include <stdbool.h>
#include <stdint.h>

#include "capture.h"
#include "schema.h"
#include "state.h"

/* A parsed event. Points into the frame it came from: valid until the next event. */
struct ievt {
	uint64_t num;			/* 1-based event number (evt.num) */
	uint16_t cpu;
	const struct ppm_evt_hdr *hdr;	/* the frame */
	uint16_t type;			/* hdr->type */
	uint64_t ts;			/* hdr->ts */
	uint64_t first_ts;		/* ts of the first event seen (evt.reltime) */
	int64_t tid;
	const struct ppm_event_info *info;
	struct schema_params params;
	/* Generic events: the syscall's name (the kernel's), else info->name. */
	const char *name;
	int16_t native_nr;		/* generic events: the syscall's number, else -1 */
	struct thread_info *thread;	/* NULL when the thread is unknown */
	/* The fd this event operates on (from its fd param, or for an exit event from
	 * its paired enter event), and its table entry if known. */
	int64_t fdnum;			/* -1: none */
	struct fd_info *fd;
	/* Exit events: the paired enter frame (NULL if missed) and the result. */
	const struct ppm_evt_hdr *enter;
	bool has_res;
	int64_t res;
	uint64_t latency;		/* ns from enter to exit, 0 when unpaired */
	/* A close whose number another thread's call got before it returned:
	 * fd is the file it closed when known, else NULL (never the new one,
	 * which stays open). */
	bool fd_reused;
};

struct inspector_opts {
	const char *host_root;	/* prefix for /proc and /etc; NULL: $HOST_ROOT or "" */
	uint32_t max_threads;	/* 0: 131072 */
	bool no_proc_scan;	/* tests: start with empty tables */
	/* Never read /proc for threads first seen in events (replaying a capture
	 * file: its tids are not this host's). */
	bool no_proc_lookup;
};

struct inspector;

struct inspector *inspector__new(const struct inspector_opts *opts);
void inspector__free(struct inspector *in);

/* Fills the thread and fd tables from HOST_ROOT/proc. Unreadable entries are
 * counted (inspector__counters) and skipped. Threads already in the table are
 * kept as they are, so a second call adds only the threads born since. */
int inspector__scan_proc(struct inspector *in);

/* Parses one event and updates state. Returns 0, or -EINVAL for a malformed frame
 * (counted, state untouched). */
int inspector__process(struct inspector *in, const struct capture_event *cev, struct ievt *out);

struct inspector_counters {
	uint64_t n_events;
	uint64_t n_malformed;
	uint64_t n_proc_unreadable;	/* /proc entries skipped at scan */
	uint64_t n_threads;		/* in the table now */
	uint64_t n_threads_purged;	/* removed because their exit was missed */
	uint64_t n_unpaired_exits;
	uint64_t n_enter_too_big;	/* enter events too big to keep for pairing */
	uint64_t n_lazy_threads;	/* threads first seen in an event */
	uint64_t n_lazy_unreadable;	/* ... whose /proc entry could not be read */
	uint64_t n_threads_dropped;	/* not added: table full even after a purge */
	/* closes whose fd number another thread's call got before they
	 * returned: the new file's entry kept (parse_fd.c, fd__close) */
	uint64_t n_close_reused;
	/* clone exits whose child is their caller (a damaged file): shown,
	 * no thread made of them */
	uint64_t n_clone_self;
};

void inspector__counters(const struct inspector *in, struct inspector_counters *c);

struct thread_table *inspector__threads(struct inspector *in);

/* Calls FN on every thread: first the main threads (tid == pid), then the others,
 * so a reader that gives a thread its main thread's fd table finds that one
 * first. A non-zero return stops the walk and is returned. FN must not add or
 * remove threads. */
int inspector__for_each_thread(struct inspector *in,
			       int (*fn)(struct thread_info *ti, void *ctx), void *ctx);

/* Adds a thread by hand (capture-file process lists, tests): pid, its own fd
 * table or, when PID's main thread is known, that one's. The caller fills the
 * rest; its strings must be malloc()ed (the table frees them). NULL with errno
 * EEXIST, ENOSPC (table full) or ENOMEM. */
struct thread_info *inspector__add_thread(struct inspector *in, int64_t tid, int64_t pid);
/* Sets TI's container again from TI->cgroups, after a caller changed them by
 * hand (capture-file process lists). */
void inspector__update_container(struct inspector *in, struct thread_info *ti);
/* TI was filled by hand from a capture file's process list: its container from
 * its cgroups, its pid namespace from whether vtid and vpid differ from its
 * host ids (all such a list says), and its place among the namespaced
 * threads. */
void inspector__thread_imported(struct inspector *in, struct thread_info *ti);

struct container_table;
/* The containers the threads are in (container.h). */
struct container_table *inspector__containers(struct inspector *in);

/* A capture file's container event: imports its JSON (LEN bytes) into the
 * container table. It takes an event number (evt.num) but is never shown, as
 * in sysdig. 0 or -errno (malformed, counted by the table). */
int inspector__container_event(struct inspector *in, const char *json, size_t len);

/* Adds (or empties) fd FD in TI's fd table; the caller fills it (name
 * malloc()ed). NULL with errno set. */
struct fd_info *inspector__add_fd(struct inspector *in, struct thread_info *ti, int64_t fd);

/* users.c: the user and group lists a capture file carries, and what appeared
 * after the start lists (users__name() and the others use them, state.h). */
struct users_entry {
	bool group;			/* a group: id is its gid; gid, home, shell unused */
	uint32_t id;			/* uid or gid */
	uint32_t gid;			/* a user's primary group */
	const char *name, *home, *shell;
};
typedef int users_fn(void *ctx, const struct users_entry *e);
/* The file carries lists: from now on only the lists added with users__file_add
 * name users and groups (the previous ones are dropped), never this host. */
void users__file_begin(void);
/* Back to this host's lists (done when an inspector is created). */
void users__file_reset(void);
bool users__from_file(void);
/* Adds a file's entry (ignored unless users__file_begin was called); LATER: it
 * came after the first event, and is recorded as added. 0 or -ENOMEM. */
int users__file_add(const struct users_entry *e, bool later);
/* Calls FN for every user, then every group, of the lists in effect (the
 * file's, else this host's); stops at and returns FN's first nonzero. */
int users__foreach(users_fn *fn, void *ctx);
/* Entries that appeared after the start lists (a user created while running,
 * found by a reload; a file's entries after its first event): how many so far,
 * and FN for those from index FROM on. */
size_t users__added(void);
int users__foreach_added(size_t from, users_fn *fn, void *ctx);

#endif
