/* Each syscall's own exit tracepoint (syscall_tps.h). A BPF program on the
 * raw sys_exit tracepoint runs at every syscall of the host; on the
 * syscalls:sys_exit_* tracepoints the kernel runs it only for the syscalls
 * it is attached to, and the others pay a bit test. */
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "syscall_tps.h"

/* x86_64 calls whose kernel definition (SYSCALL_DEFINE) is named otherwise
 * than the table names them, which names their tracepoints. */
static const struct {
	int nr;
	const char *name;
} renamed[] = {
	{ 4, "newstat" }, { 5, "newfstat" }, { 6, "newlstat" }, { 40, "sendfile64" },
	{ 63, "newuname" }, { 166, "umount" },
};

/* "sys_exit_<name>" (ENTER: "sys_enter_<name>") of syscall NR into BUF. */
static int event_name(int nr, bool enter, char *buf, size_t size)
{
	const char *name;

	if (nr < 0 || nr >= SYSCALL_TABLE_SIZE || !(name = schema_syscall_names[nr]) || !*name)
		return -ENOENT;
	for (size_t i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++)
		if (renamed[i].nr == nr)
			name = renamed[i].name;
	if ((size_t)snprintf(buf, size, "sys_%s_%s", enter ? "enter" : "exit", name) >= size)
		return -ENAMETOOLONG;
	return 0;
}

int syscall_tps__event(int nr, char *buf, size_t size)
{
	return event_name(nr, false, buf, size);
}

/* Where tracefs may be mounted: its own place, then under debugfs. */
static const char *const tracefs_roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

/* The id of tracepoint EVENT under tracefs root ROOT, or a negative errno
 * (-ENOENT: no such event there, or no tracefs). */
static int event_id_at(const char *root, const char *event)
{
	char path[PATH_MAX];
	FILE *f;
	int id;

	if ((size_t)snprintf(path, sizeof(path), "%s/events/syscalls/%s/id", root, event) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -ENOENT;
	if (fscanf(f, "%d", &id) != 1 || id < 0)
		id = -EINVAL;
	fclose(f);
	return id;
}

/* Every syscall's exit tracepoint id (or negative errno) read from a tracefs
 * of our own, for hosts where none is mounted: a fresh machine, a container
 * (a DaemonSet's sees only its own /sys). Mounted on a new directory under
 * /run (else /tmp) for as long as the ids take to read, then taken away, so
 * the host's mounts are as they were. Read once per process: the ids stay
 * the same until the next boot. */
static int own_ids[SYSCALL_TABLE_SIZE];
static int own_enter_ids[SYSCALL_TABLE_SIZE];
static int own_state;	/* 0: not tried; 1: own_ids read; -1: could not mount */

static int own_ids__read(void)
{
	static const char *const dirs[] = { "/run/agent-tracefs.XXXXXX",
					    "/tmp/agent-tracefs.XXXXXX" };
	char dir[64], ev[96];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(dir, sizeof(dir), "%s", dirs[i]);
		if (!mkdtemp(dir))
			continue;
		if (mount("nodev", dir, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) {
			rmdir(dir);
			continue;
		}
		for (int nr = 0; nr < SYSCALL_TABLE_SIZE; nr++) {
			own_ids[nr] = event_name(nr, false, ev, sizeof(ev));
			if (!own_ids[nr])
				own_ids[nr] = event_id_at(dir, ev);
			own_enter_ids[nr] = event_name(nr, true, ev, sizeof(ev));
			if (!own_enter_ids[nr])
				own_enter_ids[nr] = event_id_at(dir, ev);
		}
		umount2(dir, MNT_DETACH);
		rmdir(dir);
		return 1;
	}
	return -1;
}

/* The id of tracepoint EVENT (syscall NR's) where tracefs is mounted, else
 * from a tracefs of our own (own_ids__read); or a negative errno. */
static int event_id(int nr, bool enter, const char *event)
{
	for (size_t i = 0; i < sizeof(tracefs_roots) / sizeof(tracefs_roots[0]); i++) {
		char events[PATH_MAX];

		snprintf(events, sizeof(events), "%s/events", tracefs_roots[i]);
		if (access(events, F_OK) == 0)
			return event_id_at(tracefs_roots[i], event);
	}
	if (!own_state)
		own_state = own_ids__read();
	if (own_state != 1)
		return -ENOENT;
	return enter ? own_enter_ids[nr] : own_ids[nr];
}

/* Syscall NR's exit (ENTER: enter) tracepoint id, or a negative errno. */
static int tp_id(int nr, bool enter)
{
	char ev[96];
	int err = event_name(nr, enter, ev, sizeof(ev));

	return err ? err : event_id(nr, enter, ev);
}

int syscall_tps__id(int nr)
{
	return tp_id(nr, false);
}

/* Whether tracepoint programs may take the task's registers here
 * (bpf_task_pt_regs, bpf_get_current_task_btf): asked once per process. */
static bool helpers_ok(void)
{
	static int known = -1;

	if (known < 0)
		known = libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT, BPF_FUNC_task_pt_regs,
						NULL) == 1 &&
			libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT,
						BPF_FUNC_get_current_task_btf, NULL) == 1;
	return known;
}

/* A perf event on tracepoint ID, on the first online CPU: its fd, or -1
 * and errno. */
static int tp_event_open(int id)
{
	struct perf_event_attr attr = { .size = sizeof(attr), .type = PERF_TYPE_TRACEPOINT };
	int fd = -1;

	attr.config = (unsigned)id;
	errno = ENODEV;
	for (int cpu = 0; fd < 0 && errno == ENODEV && cpu < 4096; cpu++)
		fd = (int)syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	return fd;
}

bool syscall_tps__cover(const uint8_t want[SYSCALL_TABLE_SIZE])
{
	int id = -1, fd;

	if (!helpers_ok())
		return false;
	for (int nr = 0; nr < SYSCALL_TABLE_SIZE; nr++)
		if (want[nr] && (id = syscall_tps__id(nr)) < 0)
			return false;
	/* perf_event_open may be refused (a seccomp profile, perf_event_paranoid
	 * without CAP_PERFMON) where the raw tracepoint's attach is not */
	if (id >= 0) {
		if ((fd = tp_event_open(id)) < 0)
			return false;
		close(fd);
	}
	return true;
}

static struct bpf_link *attach_id(struct bpf_program *p, int id)
{
	struct bpf_link *l;
	int fd, err;

	if (id < 0) {
		errno = -id;
		return NULL;
	}
	/* one event on one CPU: the program runs wherever the call exits */
	fd = tp_event_open(id);
	if (fd < 0)
		return NULL;
	l = bpf_program__attach_perf_event(p, fd);
	if (!l) {
		err = errno;
		close(fd);
		errno = err;
	}
	return l;
}

struct bpf_link *syscall_tps__attach(struct bpf_program *p, int nr)
{
	return attach_id(p, syscall_tps__id(nr));
}

struct bpf_link *syscall_tps__attach_enter(struct bpf_program *p, int nr)
{
	return attach_id(p, tp_id(nr, true));
}
