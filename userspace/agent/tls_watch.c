/* Request mode's TLS probes on the libraries processes map (tls_watch.h). */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "loader.h"
#include "tls_watch.h"

struct tls_watch {
	struct driver *d;
	struct tls_libs *libs;
	pthread_t thread;
	pthread_mutex_t lock;	/* the scan and its counters, stop */
	pthread_cond_t wake;
	bool stop;
	uint64_t attach_failed;
	int last_error;
};

/* A Go program's functions, as the driver takes them. */
static int go__attach(struct driver *d, const char *path, const struct go_bin *g)
{
	const struct driver_go_tls t = {
		.read = { g->read.vaddr, g->read.off, g->read.rets, g->read.nrets },
		.write = { g->write.vaddr, g->write.off, g->write.rets, g->write.nrets },
		.itab_tcp = g->itab_tcp,
		.itab_unix = g->itab_unix,
	};

	return driver__go_tls_attach(d, path, &t);
}

/* A library file or Go program found: probed, or left for the next scan. */
static int on_lib(void *ctx, const struct tls_lib_found *f)
{
	struct tls_watch *w = ctx;
	int err = f->kind == TLS_LIB_GO ? go__attach(w->d, f->path, f->go) :
		  driver__tls_attach(w->d, f->path, f->kind == TLS_LIB_OPENSSL ?
				     DRIVER_TLS_OPENSSL : DRIVER_TLS_GNUTLS);

	/* called by the scan, under w->lock */
	if (err) {
		w->attach_failed++;
		w->last_error = err;
		/* a file without the functions (a stub, another fork), or a
		 * Go program past the driver's room, stays unprobed; one whose
		 * process left is tried through another */
		return (err == -ENOENT || err == -ENOSPC) && !access(f->path, R_OK) ? 0 : err;
	}
	return 0;
}

static void *watch__run(void *arg)
{
	struct tls_watch *w = arg;
	struct timespec at;

	pthread_mutex_lock(&w->lock);
	while (!w->stop) {
		clock_gettime(CLOCK_MONOTONIC, &at);
		at.tv_sec += TLS_WATCH_MS / 1000;
		at.tv_nsec += (TLS_WATCH_MS % 1000) * 1000000L;
		if (at.tv_nsec >= 1000000000L) {
			at.tv_sec++;
			at.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&w->wake, &w->lock, &at);
		/* under the lock: the counters are read meanwhile */
		if (!w->stop)
			tls_libs__scan(w->libs, on_lib, w);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct tls_watch *tls_watch__start(struct driver *d, const char *proc)
{
	struct tls_watch *w = calloc(1, sizeof(*w));
	pthread_condattr_t ca;
	int err;

	if (!w || !(w->libs = tls_libs__new(proc))) {
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	w->d = d;
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->wake, &ca);
	pthread_condattr_destroy(&ca);
	tls_libs__scan(w->libs, on_lib, w);
	err = pthread_create(&w->thread, NULL, watch__run, w);
	if (err) {
		tls_libs__free(w->libs);
		free(w);
		errno = err;
		return NULL;
	}
	return w;
}

void tls_watch__stop(struct tls_watch *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	tls_libs__free(w->libs);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->wake);
	free(w);
}

void tls_watch__counters(struct tls_watch *w, struct tls_watch_counters *out)
{
	pthread_mutex_lock(&w->lock);
	tls_libs__counters(w->libs, &out->libs);
	out->attach_failed = w->attach_failed;
	out->last_error = w->last_error;
	pthread_mutex_unlock(&w->lock);
}
