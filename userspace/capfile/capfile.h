/* sysdig-style capture files (.scap): a reader engine behind struct capture and a
 * writer, both through zlib (plain or gzip). Layout: docs/formats.md, "Capture files". */
#ifndef CAPFILE_H
#define CAPFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture.h"

/* Why a capture file could not be opened or read on. */
struct capfile_error {
	char msg[256];
};

/* Opens PATH (plain or gzip) as a finite capture: events come in file order, as
 * the CPU the file names, then -ENODATA. A block whose event frame is malformed,
 * oversized or whose trailer disagrees is counted in n_corrupt and skipped; a
 * block length that cannot be followed (below 12) or a file cut short ends the
 * input with -EINVAL and a message naming the offset in ERR. ERR must outlive
 * the capture. Returns NULL and sets errno (message in ERR) on failure. The
 * file's process and fd list blocks are skipped. */
struct capture *capture__open_file(const char *path, struct capfile_error *err);

struct inspector;

/* Most entries imported from one list block: 2^20 is the kernel's default
 * fs.nr_open, the most fds one process can have open; real process lists hold
 * a few thousand threads. Further entries are counted (n_capped) and skipped. */
#define CAPFILE_LIST_ENTRIES_MAX	(1u << 20)
/* Most memory the state imported from a file (threads, fds, containers, users
 * and groups, their strings) may take, as estimated per entry: a host with 100k threads and 1M
 * fds needs about a third of it. Past it entries are counted and skipped, so a
 * crafted file cannot make the reader grow without bound. */
#define CAPFILE_STATE_MAX_MIB	512ull
#define CAPFILE_STATE_MAX	(CAPFILE_STATE_MAX_MIB << 20)

/* What capture__open_file_state imported from the file's list blocks. */
struct capfile_import {
	uint64_t n_containers;	/* container events imported before the first event */
	uint64_t n_threads;	/* threads added */
	uint64_t n_fds;		/* fds added */
	uint64_t n_dup_threads;	/* listed twice or already known: first kept */
	uint64_t n_fds_skipped;	/* fd types this reader does not know (V2 lists) */
	uint64_t n_bad_lists;	/* malformed list blocks (also in n_corrupt) */
	/* Entries (threads, fds, containers, users and groups) left out by the
	 * reader's memory caps (CAPFILE_STATE_MAX, CAPFILE_LIST_ENTRIES_MAX); an
	 * old unsized fd list cut at the cap counts once. */
	uint64_t n_capped;
	uint64_t state_bytes;	/* estimated memory the imported state takes */
};

/* As capture__open_file, and the process and fd list blocks that precede the
 * first event are imported into IN (when not NULL) before it returns, so the
 * threads that existed before the capture are known from the first event on.
 * A malformed list block is counted (n_corrupt, IMP->n_bad_lists) and skipped.
 * IMP may be NULL. List blocks after the first event are skipped. */
struct capture *capture__open_file_state(const char *path, struct capfile_error *err,
					 struct inspector *in, struct capfile_import *imp);

struct capfile_writer;

/* Creates PATH and writes the section header; GZIP compresses the file. The
 * bytes go to a new 0600 file next to PATH (".NAME.xxxxxx", created with
 * O_EXCL|O_NOFOLLOW) that close renames over PATH. NULL and errno on failure:
 * ELOOP when PATH is a symlink (never written through). */
struct capfile_writer *capfile_writer__open(const char *path, bool gzip);
/* Appends FRAME (its len bytes) as an EV v2 block of CPU. 0 or -errno. */
int capfile_writer__write(struct capfile_writer *w, uint16_t cpu,
			  const struct ppm_evt_hdr *frame);
/* What capfile_writer__state wrote. */
struct capfile_state_counts {
	uint64_t n_threads;	/* process list entries */
	uint64_t n_fds;		/* fd list entries */
	uint64_t n_blocks;
	uint64_t n_containers;	/* container events */
};

/* Writes IN's threads and fds as a process list and one fd list per process,
 * then a container event per container (sysdig's JSON), as sysdig starts a
 * capture, so that a reader knows the processes, fds and containers that
 * existed before the first event. Call it before the first event. Strings are
 * cut to what sysdig's reader accepts. 0 or -errno; N may be NULL. */
int capfile_writer__state(struct capfile_writer *w, struct inspector *in,
			  struct capfile_state_counts *n);
struct container_table;
struct thread_info;
/* Writes every container of T as a container event (done by
 * capfile_writer__state); *N gets how many. 0 or -errno. */
int capfile_writer__containers(struct capfile_writer *w, struct container_table *t,
			       uint64_t *n);
/* Writes TI's container as a container event at time TS unless the file has it
 * already: call it before an event of TI, so the file names every container
 * before its first event. 0 or -errno. */
int capfile_writer__container(struct capfile_writer *w, const struct thread_info *ti,
			      uint64_t ts);
/* userlist.c: user and group lists. Writes the lists in effect (this host's,
 * or a replayed file's) as one user list block, as sysdig does at start: call it
 * before the first event. *MARK (may be NULL) gets where "users seen later"
 * start. 0 or -errno. */
int capfile_writer__users(struct capfile_writer *w, uint64_t *mark);
/* Writes the users and groups that appeared since *MARK (a user created while
 * running; looking up TI's uid and gid first, which reloads this host's lists on
 * a miss at most once a second) as useradded/groupadded events at TS, and moves
 * *MARK on: call it before writing an event of TI (NULL: no lookup). 0 or -errno. */
int capfile_writer__users_new(struct capfile_writer *w, const struct thread_info *ti,
			      uint16_t cpu, uint64_t ts, uint64_t *mark);
/* For the reader: whether TYPE is a user list block; imports one's BODY (LEN
 * bytes, trailer excluded), replacing the lists in effect with the file's:
 * 0, -ENOMEM, or -EINVAL when malformed (entries before stay). */
bool capfile_userlist__is_block(uint32_t type);
/* Entries past CAPFILE_LIST_ENTRIES_MAX in the block or CAPFILE_STATE_MAX in
 * all (IMP->state_bytes) are counted in IMP->n_capped and left out. */
int capfile_userlist__read(uint32_t type, const uint8_t *body, size_t len,
			   struct capfile_import *imp);
/* Whether the event block of TYPE (BODY: LEN bytes, trailer excluded) is a
 * useradded/groupadded event; when IMPORT, adds its entry to the file's lists
 * (within CAPFILE_STATE_MAX, as capfile_userlist__read). */
bool capfile_userlist__event(bool import, uint32_t type, const uint8_t *body, size_t len,
			     struct capfile_import *imp);
/* An event the filter left out that changes the process or fd tables, written
 * "state only": readers update their tables with it and show it to no one. */
int capfile_writer__write_state_only(struct capfile_writer *w, uint16_t cpu,
				     const struct ppm_evt_hdr *frame);
/* Events written so far. */
uint64_t capfile_writer__count(const struct capfile_writer *w);
/* Bytes in the file so far: uncompressed ones, or with GZIP those that reached
 * the file (zlib's gzoffset, as sysdig measures -C). */
uint64_t capfile_writer__size(const struct capfile_writer *w);
/* The PATH it was opened with. */
const char *capfile_writer__path(const struct capfile_writer *w);
/* Flushes, closes and renames the file into place; 0, or -errno if any write,
 * the flush or the rename failed. Accepts NULL. */
int capfile_writer__close(struct capfile_writer *w);

/* A series of capture files as sysdig's -C/-G/-W write them (libsinsp's
 * cycle_writer): a new file when the current one holds more than
 * ROLLOVER_BYTES or when SECONDS have passed in event time, named from PATH:
 *  - SECONDS and a '%' in PATH: strftime(PATH) of the file's start time; with
 *    FILE_LIMIT the file of that slot FILE_LIMIT files back is removed;
 *  - SECONDS otherwise: PATH + index ("cap0", "cap1", ...);
 *  - ROLLOVER_BYTES: then index appended, zero-padded to FILE_LIMIT's digit
 *    count ("cap0".."cap2" for -W 3, "cap00".."cap09" for -W 10);
 *  - neither: PATH itself (one file).
 * With FILE_LIMIT the index wraps at it, so a name is reused (replaced). */
struct capfile_cycle_opts {
	const char *path;
	bool gzip;
	uint64_t rollover_bytes;	/* -C MB * 10^6, 0: none */
	uint32_t seconds;		/* -G, 0: none */
	uint32_t file_limit;		/* -W, 0: none */
	uint64_t start_ts;		/* epoch ns of the first file's start (live),
					 * 0: the first event's (file replay) */
};
/* Writes the state blocks a new file starts with (the processes, fds,
 * containers known now) into W. 0 or -errno. */
typedef int capfile_cycle_state_fn(struct capfile_writer *w, void *ctx);
struct capfile_cycle;
/* Opens the first file (its state is the caller's to write, through
 * capfile_cycle__writer); STATE writes it into every later file. NULL and
 * errno on failure. */
struct capfile_cycle *capfile_cycle__open(const struct capfile_cycle_opts *o,
					  capfile_cycle_state_fn *state, void *ctx);
/* Call before writing an event of time TS (epoch ns): moves to the next file
 * when the size or the time is reached. 1 when it did, 0 if not, or -errno
 * (then capfile_cycle__name says which file). */
int capfile_cycle__consider(struct capfile_cycle *c, uint64_t ts);
/* The file events go to now. */
struct capfile_writer *capfile_cycle__writer(const struct capfile_cycle *c);
/* Its name. */
const char *capfile_cycle__name(const struct capfile_cycle *c);
/* Events written in all files, and files opened. */
uint64_t capfile_cycle__count(const struct capfile_cycle *c);
uint64_t capfile_cycle__files(const struct capfile_cycle *c);
/* Closes the current file; 0 or -errno (a file that failed earlier included).
 * Accepts NULL. */
int capfile_cycle__close(struct capfile_cycle *c);

#endif
