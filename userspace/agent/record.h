/* -w: the agent's capture file (with -C/-G/-W a series of them), written from
 * the events the filter matched, plus what a replay's tables need. Every
 * function tells the user what went wrong before it returns -errno. */
#ifndef AGENT_RECORD_H
#define AGENT_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "capture.h"
#include "inspect.h"
#include "options.h"

struct record {
	struct capfile_cycle *cycle;	/* NULL: no -w */
	struct capfile_writer *writer;	/* the current file of cycle */
	uint64_t users_mark;		/* users and groups the current file has */
	struct inspector *in;		/* whose state every new file starts with */
	const char *path;		/* -w as given */
	bool verbose;
};

/* Creates the -w file, if the options ask for one (else 0 and nothing to do). */
int record__open(struct record *r, const struct agent_opts *o);
/* Whether events are being written. */
bool record__active(const struct record *r);
/* The processes, fds and users IN knows now, so the file names them from its
 * first event on; IN also starts every later file of a series. */
int record__start(struct record *r, struct inspector *in);
/* An event the filter matched: a new file first when the current one is full,
 * the users and container it names, then the event. */
int record__event(struct record *r, const struct ievt *ev, const struct capture_event *cev);
/* An event the agent made itself at time TS (FRAME, as the driver frames
 * them): written as one of CPU's. */
int record__frame(struct record *r, uint16_t cpu, const struct ppm_evt_hdr *frame, uint64_t ts);
/* A state-only event (of a filtered -w file being replayed): kept as it was. */
int record__keep_state(struct record *r, const struct capture_event *cev);
/* An event of TYPE the filter left out: kept as state-only when it changes the
 * process or fd tables, which a replay of the file needs (sysdig's fatfile mode
 * keeps the same ones). */
int record__filtered(struct record *r, uint16_t type, const struct capture_event *cev);
/* Completes the file and says how many events it holds. */
int record__close(struct record *r);

#endif
