/* Shared helpers of the inspector tests: checks, frames fed to an inspector,
 * fake HOST_ROOT trees. */
#ifndef INSPECT_TEST_UTIL_H
#define INSPECT_TEST_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frame_builder.h"
#include "inspect.h"
#include "state.h"

#include "t_check.h"

/* ---- frames ---- */

struct t_ctx {
	struct inspector *in;
	uint64_t ts;
	uint16_t cpu;
	struct ievt ev;
	uint8_t buf[65536];
	uint32_t len;
};

/* Builds an event of TYPE for TID from FMT, one char per param, exactly as the
 * driver writes it: q = 8 bytes (u64/i64/FD/PID/ERRNO), d = 4 bytes, w = 2, b = 1,
 * s = NUL-terminated string, B = bytes (pointer, length), e = empty. Returns the
 * frame length, 0 when the params do not match the schema's count. */
static inline uint32_t t_build(struct t_ctx *t, uint16_t type, uint64_t tid, const char *fmt,
			       va_list ap)
{
	struct frame_builder fb;

	t->ts += 1000;
	fb__begin(&fb, t->buf, sizeof(t->buf), type, tid, t->ts);
	for (const char *f = fmt; *f; f++) {
		switch (*f) {
		case 'q': fb__u64(&fb, va_arg(ap, uint64_t)); break;
		case 'd': fb__u32(&fb, va_arg(ap, uint32_t)); break;
		case 'w': fb__u16(&fb, (uint16_t)va_arg(ap, unsigned)); break;
		case 'b': fb__u8(&fb, (uint8_t)va_arg(ap, unsigned)); break;
		case 's': fb__str(&fb, va_arg(ap, const char *)); break;
		case 'B': {
			const void *p = va_arg(ap, const void *);

			fb__param(&fb, p, (uint16_t)va_arg(ap, unsigned));
			break;
		}
		case 'e': fb__empty(&fb); break;
		}
	}
	t->len = fb__end(&fb, 0);
	return t->len;
}

/* Builds and processes one event; returns inspector__process's result, or
 * -1000 when the frame could not be built (a test bug, counted as a failure). */
static inline int t_emit(struct t_ctx *t, uint16_t type, uint64_t tid, const char *fmt, ...)
{
	struct capture_event cev;
	va_list ap;

	va_start(ap, fmt);
	t_build(t, type, tid, fmt, ap);
	va_end(ap);
	if (!t->len) {
		fprintf(stderr, "frame of type %u does not match the schema (%s)\n", type, fmt);
		t_failed++;
		return -1000;
	}
	cev.frame = (const struct ppm_evt_hdr *)t->buf;
	cev.len = t->len;
	cev.cpu = t->cpu;
	cev.flags = 0;
	return inspector__process(t->in, &cev, &t->ev);
}

/* A clone-family exit event (CLONE_20_X / FORK_20_X / VFORK_20_X / CLONE3_X
 * layout). ARGS is NUL-separated with a final NUL. */
static inline int t_clone(struct t_ctx *t, uint16_t type, uint64_t evtid, int64_t res,
			  const char *exe, const char *args, size_t args_len, int64_t tid,
			  int64_t pid, int64_t ptid, const char *cwd, const char *comm,
			  uint32_t flags, uint32_t uid, int64_t vtid, int64_t vpid)
{
	static const char cg[] = "cpu=/a\0memory=/a/b";

	return t_emit(t, type, evtid, "qsBqqqsqqqdddsBdddqq", res, exe, args, (unsigned)args_len,
		      tid, pid, ptid, cwd, (uint64_t)1024, (uint64_t)0, (uint64_t)0, 100u, 50u, 0u,
		      comm, cg, (unsigned)sizeof(cg), flags, uid, uid + 1, vtid, vpid);
}

/* An execve_19 exit with the given exe, args and comm. */
static inline int t_execve_x(struct t_ctx *t, int64_t tid, int64_t res, int64_t pid,
			     const char *exe, const char *args, size_t args_len, const char *comm,
			     const char *cwd)
{
	static const char cg[] = "cpu=/exec";

	return t_emit(t, PPME_SYSCALL_EXECVE_19_X, (uint64_t)tid, "qsBqqqsqqqdddsBBdqdd",
		      (uint64_t)res, exe, args, (unsigned)args_len, (uint64_t)tid,
		      (uint64_t)pid, (uint64_t)1, cwd, (uint64_t)1024, (uint64_t)0, (uint64_t)0,
		      100u, 50u, 0u, comm, cg, (unsigned)sizeof(cg), "HOME=/\0", 8u, 34817u,
		      (uint64_t)pid, 1000u, 0u);
}

/* A process made the way the driver shows a new one: the child side of fork. */
static inline int t_spawn(struct t_ctx *t, int64_t pid, int64_t ppid, const char *comm,
			  const char *cwd)
{
	return t_clone(t, PPME_SYSCALL_FORK_20_X, (uint64_t)pid, 0, comm, "a1\0a2", 6, pid, pid,
		       ppid, cwd, comm, 0, 1000, pid, pid);
}

static inline struct inspector *t_inspector(const char *root, uint32_t max_threads)
{
	struct inspector_opts o = { .host_root = root, .max_threads = max_threads,
				    .no_proc_scan = true };

	return inspector__new(&o);
}

/* A context with an inspector on an empty HOST_ROOT (no /proc scan), for
 * tests that feed events only; t_free ends it and removes ROOT. */
static inline struct t_ctx *t_new(const char *root)
{
	struct t_ctx *t = calloc(1, sizeof(*t));

	unsetenv("HOST_ROOT");
	if (!t)
		exit(2);
	t->in = t_inspector(root, 0);
	CHECK(t->in != NULL);
	return t;
}

static int t_rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw);

static inline void t_free(struct t_ctx *t, const char *root)
{
	inspector__free(t->in);
	free(t);
	nftw(root, t_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Fd N of thread TID, or NULL; its name, "(none)" when it has none. */
static inline struct fd_info *t_fd(struct t_ctx *t, int64_t tid, int64_t n)
{
	struct thread_info *ti = thread_table__find(inspector__threads(t->in), tid);

	return ti ? fd_table__find(ti->fds, n) : NULL;
}

static inline const char *t_fdname(struct t_ctx *t, int64_t tid, int64_t n)
{
	struct fd_info *f = t_fd(t, tid, n);

	return f && f->name ? f->name : "(none)";
}

/* ---- fake HOST_ROOT trees ---- */

static inline void t_mkdirs(const char *path)
{
	char tmp[4096];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0755);
			*p = '/';
		}
	}
	mkdir(tmp, 0755);
}

static inline void t_put(const char *root, const char *rel, const void *data, size_t len)
{
	char path[4096], dir[4096];
	char *slash;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	t_mkdirs(dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len) {
		fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
		t_failed++;
	}
	if (fd >= 0)
		close(fd);
}

static inline void t_puts(const char *root, const char *rel, const char *s)
{
	t_put(root, rel, s, strlen(s));
}

static inline void t_link(const char *root, const char *rel, const char *target)
{
	char path[4096], dir[4096];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	t_mkdirs(dir);
	if (symlink(target, path) < 0) {
		fprintf(stderr, "cannot link %s: %s\n", path, strerror(errno));
		t_failed++;
	}
}

static int t_rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	return remove(p);
}

static inline void t_rmtree(const char *root)
{
	nftw(root, t_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static inline char *t_tmpdir(void)
{
	static char dirs[8][64];
	static int n;
	char *d = dirs[n++ % 8];

	snprintf(d, sizeof(dirs[0]), "/tmp/inspect-test-XXXXXX");
	if (!mkdtemp(d)) {
		perror("mkdtemp");
		exit(2);
	}
	return d;
}

/* /proc/PID (or /proc/PID/task/TID when tid != pid) of a fake process. */
static inline void t_fake_task(const char *root, int pid, int tid, int ppid, const char *comm,
			       uint32_t uid, uint64_t start_ticks)
{
	char dir[256], rel[320], buf[1024];

	if (pid == tid)
		snprintf(dir, sizeof(dir), "proc/%d", pid);
	else
		snprintf(dir, sizeof(dir), "proc/%d/task/%d", pid, tid);
	snprintf(rel, sizeof(rel), "%s/status", dir);
	snprintf(buf, sizeof(buf),
		 "Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%d\nNgid:\t0\nPid:\t%d\n"
		 "PPid:\t%d\nTracerPid:\t0\nUid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\n"
		 "NStgid:\t%d\t%d\nNSpid:\t%d\t%d\nNSpgid:\t%d\t1\n",
		 comm, pid, tid, ppid, uid, uid, uid, uid, uid + 1, uid + 1, uid + 1, uid + 1,
		 pid, pid - 100, tid, tid - 100, pid);
	t_puts(root, rel, buf);
	snprintf(rel, sizeof(rel), "%s/stat", dir);
	/* comm with a space and a parenthesis: parsed from the last ')' */
	snprintf(buf, sizeof(buf),
		 "%d (%s) S %d %d %d 34817 -1 4194560 100 0 0 0 10 5 0 0 20 0 1 0 %" PRIu64
		 " 1000 200 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n",
		 tid, comm, ppid, pid, pid - 1, start_ticks);
	t_puts(root, rel, buf);
	snprintf(rel, sizeof(rel), "%s/comm", dir);
	snprintf(buf, sizeof(buf), "%s\n", comm);
	t_puts(root, rel, buf);
	if (pid != tid) {
		/* the thread is alive in its process's task directory too */
		snprintf(rel, sizeof(rel), "proc/%d/task/%d", pid, tid);
		snprintf(buf, sizeof(buf), "%s/%s", root, rel);
		t_mkdirs(buf);
	} else {
		snprintf(buf, sizeof(buf), "%s/proc/%d/task/%d", root, pid, pid);
		t_mkdirs(buf);
	}
}

#endif
