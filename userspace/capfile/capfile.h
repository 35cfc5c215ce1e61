/* sysdig-style capture files (.scap): a reader engine behind struct capture and a
 * writer, both through zlib (plain or gzip). Layout: FORMATS.md section 3. */
#ifndef CAPFILE_H
#define CAPFILE_H

#include <stdbool.h>
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

/* What capture__open_file_state imported from the file's list blocks. */
struct capfile_import {
	uint64_t n_containers;	/* container events imported before the first event */
	uint64_t n_threads;	/* threads added */
	uint64_t n_fds;		/* fds added */
	uint64_t n_dup_threads;	/* listed twice or already known: first kept */
	uint64_t n_fds_skipped;	/* fd types this reader does not know (V2 lists) */
	uint64_t n_bad_lists;	/* malformed list blocks (also in n_corrupt) */
};

/* As capture__open_file, and the process and fd list blocks that precede the
 * first event are imported into IN (when not NULL) before it returns, so the
 * threads that existed before the capture are known from the first event on.
 * A malformed list block is counted (n_corrupt, IMP->n_bad_lists) and skipped.
 * IMP may be NULL. List blocks after the first event are skipped. */
struct capture *capture__open_file_state(const char *path, struct capfile_error *err,
					 struct inspector *in, struct capfile_import *imp);

struct capfile_writer;

/* Creates PATH and writes the section header; GZIP compresses the file. NULL and
 * errno on failure. */
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
/* Events written so far. */
uint64_t capfile_writer__count(const struct capfile_writer *w);
/* Flushes and closes; 0, or -errno if any write or the flush failed. Accepts NULL. */
int capfile_writer__close(struct capfile_writer *w);

#endif
