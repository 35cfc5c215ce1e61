/* Test definitions of the state.h functions the filter library calls. The real
 * ones live in the inspect library; unit tests of fields, filters and formats
 * link these instead so that they do not depend on the parser. Users: 0 root,
 * 1000 alice; groups: 0 root, 100 users. */
#include "state_stubs.h"

const char fd_type_chars[] = {
	[FDT_UNKNOWN] = 'o', [FDT_FILE] = 'f', [FDT_DIRECTORY] = 'd', [FDT_IPV4_SOCK] = '4',
	[FDT_IPV6_SOCK] = '6', [FDT_UNIX_SOCK] = 'u', [FDT_PIPE] = 'p', [FDT_EVENT] = 'e',
	[FDT_SIGNALFD] = 's', [FDT_EVENTPOLL] = 'l', [FDT_INOTIFY] = 'i',
	[FDT_TIMERFD] = 't', [FDT_NETLINK] = 'n', [FDT_BPF] = 'b', [FDT_MEMFD] = 'm',
	[FDT_OTHER_SOCK] = 'o',
};

const char *const fd_type_names[] = {
	[FDT_UNKNOWN] = "unknown", [FDT_FILE] = "file", [FDT_DIRECTORY] = "directory",
	[FDT_IPV4_SOCK] = "ipv4", [FDT_IPV6_SOCK] = "ipv6", [FDT_UNIX_SOCK] = "unix",
	[FDT_PIPE] = "pipe", [FDT_EVENT] = "event", [FDT_SIGNALFD] = "signalfd",
	[FDT_EVENTPOLL] = "eventpoll", [FDT_INOTIFY] = "inotify", [FDT_TIMERFD] = "timerfd",
	[FDT_NETLINK] = "netlink", [FDT_BPF] = "bpf", [FDT_MEMFD] = "memfd",
	[FDT_OTHER_SOCK] = "other",
};

void stub__add_fd(struct fd_table *t, struct fd_info *fd)
{
	if (t->n < STUB_MAX)
		t->fds[t->n++] = fd;
}

void stub__add_thread(struct thread_table *t, struct thread_info *ti)
{
	if (t->n < STUB_MAX)
		t->threads[t->n++] = ti;
}

struct fd_info *fd_table__find(struct fd_table *t, int64_t fd)
{
	for (size_t i = 0; t && i < t->n; i++)
		if (t->fds[i]->fd == fd)
			return t->fds[i];
	return NULL;
}

size_t fd_table__count(const struct fd_table *t)
{
	return t ? t->n : 0;
}

struct thread_info *thread_table__find(struct thread_table *t, int64_t tid)
{
	for (size_t i = 0; t && i < t->n; i++)
		if (t->threads[i]->tid == tid)
			return t->threads[i];
	return NULL;
}

struct thread_info *thread_table__find_vchild(struct thread_table *t,
					      const struct thread_info *parent, int64_t vtid)
{
	for (size_t i = 0; t && parent && thread__pidns(parent) == PIDNS_CHILD && i < t->n; i++) {
		struct thread_info *ti = t->threads[i];
		int64_t maker = ti->tid == ti->pid ? ti->ptid : ti->pid;

		if (maker == parent->pid && ti->vtid == vtid && thread__pidns(ti) == PIDNS_CHILD)
			return ti;
	}
	return NULL;
}

size_t thread_table__count(const struct thread_table *t)
{
	return t ? t->n : 0;
}

struct thread_info *thread_table__main(struct thread_table *t, const struct thread_info *ti)
{
	return thread_table__find(t, ti->pid);
}

const char *users__name(uint32_t uid)
{
	return uid == 0 ? "root" : uid == 1000 ? "alice" : NULL;
}

const char *groups__name(uint32_t gid)
{
	return gid == 0 ? "root" : gid == 100 ? "users" : NULL;
}

uint32_t thread_table__nthreads(struct thread_table *t, const struct thread_info *main)
{
	uint32_t n = 0;

	if (!main)
		return 0;
	for (size_t i = 0; t && i < t->n && main->pid >= 0; i++)
		n += t->threads[i]->pid == main->pid;
	return n ? n : 1;	/* as the real table: a thread counts itself */
}

const char *users__home(uint32_t uid)
{
	return uid == 0 ? "/root" : uid == 1000 ? "/home/alice" : NULL;
}

const char *users__shell(uint32_t uid)
{
	return uid == 0 ? "/bin/bash" : uid == 1000 ? "/bin/zsh" : NULL;
}
