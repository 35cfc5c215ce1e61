/* The agent's start-up, from main to capturing, step by step: how long each
 * step took (-v), and a watchdog thread that says on stderr when one has not
 * ended after a bound, naming it (the kernel's BPF loader can hang for good). */
#ifndef AGENT_STARTUP_H
#define AGENT_STARTUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum startup_step {
	STARTUP_BPF_OPEN,	/* the BPF object parsed (ELF, BTF) */
	STARTUP_BPF_LOAD,	/* its programs through the verifier and JIT */
	STARTUP_RINGS,		/* a ring per CPU */
	STARTUP_ATTACH,		/* onto the tracepoints, paused */
	STARTUP_PROC,		/* the /proc scan (and a -w file's first lists) */
	STARTUP_KFILTER,	/* the kernel filter's tables */
	STARTUP__N
};

/* Default bound of a step, in seconds (AGENT_START_WARN_SECS overrides it). */
#define STARTUP_WARN_SECS 30

struct startup;

/* Starts the clock (call it first thing in main). NULL and errno on failure. */
struct startup *startup__new(void);
/* Starts the watchdog thread: a step that has run WARN_MS is told on stderr,
 * again every WARN_MS while it lasts. 0 or a negative errno. */
int startup__watch(struct startup *s, uint64_t warn_ms);
/* Step STEP begins (the one before ends). */
void startup__step(struct startup *s, enum startup_step step);
/* Capturing: the last step ends, the watchdog stops. */
void startup__done(struct startup *s);
/* After done: "N ms since main: /proc scan N ms, ..." into BUF. */
void startup__describe(const struct startup *s, char *buf, size_t size);
void startup__free(struct startup *s);

#endif
