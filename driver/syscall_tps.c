/* Each syscall's own exit tracepoint (syscall_tps.h). A BPF program on the
 * raw sys_exit tracepoint runs at every syscall of the host; on the
 * syscalls:sys_exit_* tracepoints the kernel runs it only for the syscalls
 * it is attached to, and the others pay a bit test. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
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

int syscall_tps__event(int nr, char *buf, size_t size)
{
	const char *name;

	if (nr < 0 || nr >= SYSCALL_TABLE_SIZE || !(name = schema_syscall_names[nr]) || !*name)
		return -ENOENT;
	for (size_t i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++)
		if (renamed[i].nr == nr)
			name = renamed[i].name;
	if ((size_t)snprintf(buf, size, "sys_exit_%s", name) >= size)
		return -ENAMETOOLONG;
	return 0;
}

/* The id of tracepoint EVENT (tracefs' events/syscalls/EVENT/id), or a
 * negative errno. */
static int event_id(const char *event)
{
	/* where tracefs may be mounted: its own place, then under debugfs */
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[256];
	int id;

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/events/syscalls/%s/id", roots[i], event);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fscanf(f, "%d", &id) != 1)
			id = -EINVAL;
		fclose(f);
		return id;
	}
	return -ENOENT;
}

/* Whether tracepoint programs may take the task's registers here
 * (bpf_task_pt_regs, bpf_get_current_task_btf): asked once per process. */
int syscall_tps__id(int nr)
{
	char ev[96];
	int err = syscall_tps__event(nr, ev, sizeof(ev));

	return err ? err : event_id(ev);
}

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

struct bpf_link *syscall_tps__attach(struct bpf_program *p, int nr)
{
	struct bpf_link *l;
	int id = syscall_tps__id(nr), fd, err;

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
