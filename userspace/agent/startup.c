/* The agent's start-up steps, timed and watched (startup.h). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "say.h"
#include "sbuf.h"
#include "startup.h"

struct startup {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool watching;
	bool done;
	uint64_t t0, end;		/* CLOCK_MONOTONIC ns */
	uint64_t took[STARTUP__N];	/* ns; steps not run stay 0 */
	bool ran[STARTUP__N];
	int cur;			/* the running step, -1 before the first */
	uint64_t cur_since;
	uint64_t warn_ns;
	uint32_t warned;		/* times the running step was told */
};

/* What each step does, and what to look at when it does not end. */
static const struct {
	const char *name;	/* -v's split */
	const char *doing;
	const char *hint;
} steps[STARTUP__N] = {
	[STARTUP_PROC] = { "/proc scan", "scanning /proc",
		"a process's /proc files are not answering (one stuck in the kernel, state D?)" },
	[STARTUP_BPF_OPEN] = { "BPF open", "opening its BPF object",
		"reading the BPF object and BTF should take milliseconds; check memory and `dmesg`" },
	[STARTUP_BPF_LOAD] = { "BPF load", "loading its BPF programs",
		"the kernel's BPF loader has not answered. `dmesg` tells whether tasks hang in it "
		"(hung-task lines naming bpf_prog_pack_free or __purge_vmap_area_lazy); if so, "
		"every BPF program load on this machine hangs until a reboot" },
	[STARTUP_RINGS] = { "rings", "creating its rings",
		"the kernel is not answering map creation or mmap; check `dmesg`" },
	[STARTUP_ATTACH] = { "attach", "attaching to the tracepoints",
		"the kernel's BPF or tracepoint code is not answering; check `dmesg` for hung tasks" },
	[STARTUP_KFILTER] = { "kernel filter", "filling the kernel filter's tables",
		"the kernel is not answering BPF map updates; check `dmesg` for hung tasks" },
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct startup *startup__new(void)
{
	struct startup *s = calloc(1, sizeof(*s));
	pthread_condattr_t ca;

	if (!s)
		return NULL;
	s->t0 = now_ns();
	s->cur = -1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&ca);
	/* the waits are against CLOCK_MONOTONIC, as the steps' times */
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cond, &ca);
	pthread_condattr_destroy(&ca);
	return s;
}

/* Tells the running step, under the lock: its age is at least the bound. */
static void startup__tell(struct startup *s, uint64_t now)
{
	int step = s->cur;

	agent__say("still starting: %s has not finished after %.0f s; %s",
		   step >= 0 ? steps[step].doing : "starting",
		   (double)(now - s->cur_since) / 1e9,
		   step >= 0 ? steps[step].hint : "check `dmesg`");
}

static void *startup__run(void *arg)
{
	struct startup *s = arg;

	pthread_mutex_lock(&s->lock);
	while (!s->done) {
		uint64_t due = s->cur_since + (s->warned + 1) * s->warn_ns, now = now_ns();
		struct timespec ts;

		if (now >= due) {
			startup__tell(s, now);
			s->warned++;
			continue;
		}
		ts.tv_sec = due / 1000000000ull;
		ts.tv_nsec = due % 1000000000ull;
		pthread_cond_timedwait(&s->cond, &s->lock, &ts);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

int startup__watch(struct startup *s, uint64_t warn_ms)
{
	int err;

	if (!s || !warn_ms)
		return 0;
	pthread_mutex_lock(&s->lock);
	s->warn_ns = warn_ms * 1000000ull;
	s->cur_since = now_ns();
	s->warned = 0;
	pthread_mutex_unlock(&s->lock);
	err = pthread_create(&s->thread, NULL, startup__run, s);
	if (err)
		return -err;
	s->watching = true;
	return 0;
}

/* Ends the running step at NOW, under the lock. */
static void startup__end_step(struct startup *s, uint64_t now)
{
	if (s->cur < 0)
		return;
	s->took[s->cur] += now - s->cur_since;
	s->ran[s->cur] = true;
}

void startup__step(struct startup *s, enum startup_step step)
{
	uint64_t now = now_ns();

	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	startup__end_step(s, now);
	s->cur = step;
	s->cur_since = now;
	s->warned = 0;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

void startup__done(struct startup *s)
{
	uint64_t now = now_ns();

	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	startup__end_step(s, now);
	s->cur = -1;
	s->end = now;
	s->done = true;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	if (s->watching)
		pthread_join(s->thread, NULL);
	s->watching = false;
}

void startup__describe(const struct startup *s, char *buf, size_t size)
{
	uint64_t rest;
	struct sbuf b;

	if (!s || !s->end) {
		snprintf(buf, size, "not timed");
		return;
	}
	rest = s->end - s->t0;
	sbuf__init(&b);
	sbuf__printf(&b, "%.1f ms from main to capturing:", (double)(s->end - s->t0) / 1e6);
	for (int i = 0; i < STARTUP__N; i++) {
		if (!s->ran[i])
			continue;
		sbuf__printf(&b, " %s %.1f ms,", steps[i].name, (double)s->took[i] / 1e6);
		rest -= s->took[i];
	}
	sbuf__printf(&b, " the rest %.1f ms", (double)rest / 1e6);
	snprintf(buf, size, "%s", sbuf__cstr(&b));
	sbuf__free(&b);
}

void startup__free(struct startup *s)
{
	if (!s)
		return;
	if (s->watching)
		startup__done(s);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
