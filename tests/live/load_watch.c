/* A driver__load that does not return (load_watch.h). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "load_watch.h"

struct load_watch {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
	pid_t tid;	/* the loading thread */
};

/* FILE's first line into BUF (newline dropped); false if unreadable. */
static bool first_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, size, f) != NULL;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return ok;
}

static bool boot_id(char *buf, size_t size)
{
	return first_line("/proc/sys/kernel/random/boot_id", buf, size);
}

bool load_watch__hung_before(void)
{
	char mark[64], boot[64], what[512] = "";
	FILE *f;

	if (!first_line(LOAD_WATCH_MARK, mark, sizeof(mark)) || !boot_id(boot, sizeof(boot)) ||
	    strcmp(mark, boot))
		return false;
	f = fopen(LOAD_WATCH_MARK, "re");
	if (f) {
		if (fgets(what, sizeof(what), f))	/* the boot id */
			if (!fgets(what, sizeof(what), f))
				what[0] = 0;
		fclose(f);
	}
	what[strcspn(what, "\n")] = 0;
	fprintf(stderr, "harness: an earlier test found the kernel's BPF loader hung (%s); "
		"every load hangs until a reboot: not loading\n", what[0] ? what : LOAD_WATCH_MARK);
	return true;
}

/* Whether thread TID of this process is in state D inside the kernel's BPF
 * code: a hung loader, not a slow one. */
static bool stuck_in_bpf(pid_t tid)
{
	char path[64], line[256], state = 0;
	bool bpf = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	if (first_line(path, line, sizeof(line)) && strrchr(line, ')'))
		state = strrchr(line, ')')[2];
	snprintf(path, sizeof(path), "/proc/self/task/%d/stack", tid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		bpf |= strstr(line, "bpf") != NULL;
	if (f)
		fclose(f);
	return state == 'D' && bpf;
}

static void mark(void)
{
	char boot[64];
	FILE *f;

	if (!boot_id(boot, sizeof(boot)) || !(f = fopen(LOAD_WATCH_MARK, "we")))
		return;
	fprintf(f, "%s\nseen by pid %d, loading for %d s in state D\n", boot, getpid(),
		LOAD_WATCH_BOUND_S);
	fclose(f);
}

static void *load_watch__run(void *arg)
{
	struct load_watch *w = arg;
	struct timespec until;
	char cmd[256];
	int timed_out = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += LOAD_WATCH_BOUND_S;
	pthread_mutex_lock(&w->lock);
	while (!w->done && !timed_out)
		timed_out = pthread_cond_timedwait(&w->cond, &w->lock, &until) == ETIMEDOUT;
	pthread_mutex_unlock(&w->lock);
	if (!timed_out)
		return NULL;
	fprintf(stderr, "harness: driver__load has not returned after %d s: the kernel's BPF "
		"loader is not answering; the loading thread's kernel stack and dmesg:\n",
		LOAD_WATCH_BOUND_S);
	snprintf(cmd, sizeof(cmd), "cat /proc/%d/task/%d/stack >&2; dmesg | grep -E "
		 "'blocked for more than|bpf_prog_pack|__purge_vmap_area_lazy' | tail -n 20 >&2",
		 getpid(), w->tid);
	if (system(cmd) != 0)
		fprintf(stderr, "harness: (could not read them)\n");
	if (stuck_in_bpf(w->tid))
		mark();
	_exit(1);
}

int load_watch__load(struct driver *d)
{
	struct load_watch w = { .lock = PTHREAD_MUTEX_INITIALIZER,
				.cond = PTHREAD_COND_INITIALIZER, .tid = syscall(SYS_gettid) };
	pthread_t t;
	bool watching = pthread_create(&t, NULL, load_watch__run, &w) == 0;
	int err = driver__load(d);

	if (watching) {
		pthread_mutex_lock(&w.lock);
		w.done = true;
		pthread_cond_signal(&w.cond);
		pthread_mutex_unlock(&w.lock);
		pthread_join(t, NULL);
	}
	return err;
}
