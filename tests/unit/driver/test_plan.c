/* What the driver loads for a filter: filter__syscalls_needed (the syscalls a
 * filter can match, plus those that keep the thread and fd tables right) and
 * driver_plan__build (their fillers and the dispatchers, per mode), checked
 * against sets written out by hand. */
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "plan.h"
#include "t_check.h"

/* The syscalls whose events change thread or fd state (events.def's
 * MODIFIES_STATE, CREATES_FD, DESTROYS_FD): captured whatever the filter,
 * as libsinsp keeps its state syscalls. */
static const char *const state_syscalls[] = {
	"open", "close", "pipe", "dup", "dup2", "socket", "connect", "accept", "sendto",
	"recvfrom", "sendmsg", "recvmsg", "shutdown", "bind", "socketpair", "getsockopt",
	"clone", "fork", "vfork", "execve", "fcntl", "chdir", "fchdir", "creat", "setuid",
	"setgid", "setpgid", "setsid", "setresuid", "setresgid", "chroot", "mount", "umount2",
	"inotify_init", "openat", "signalfd", "timerfd_create", "eventfd", "accept4",
	"signalfd4", "eventfd2", "dup3", "pipe2", "inotify_init1", "memfd_create", "bpf",
	"execveat", "userfaultfd", "io_uring_setup", "open_tree", "pidfd_open", "clone3",
	"close_range", "openat2", "pidfd_getfd", NULL
};

static int nr_of(const char *name)
{
	for (int i = 0; i < SYSCALL_TABLE_SIZE; i++)
		if (schema_syscall_names[i] && !strcmp(schema_syscall_names[i], name))
			return i;
	fprintf(stderr, "no syscall %s\n", name);
	exit(1);
}

static int ev(const char *id)
{
	int c = schema__event_by_id(id);

	if (c < 0) {
		fprintf(stderr, "no event %s\n", id);
		exit(1);
	}
	return c;
}

/* SC for FILTER; returns how many are set. */
static int needed(const char *filter, uint8_t sc[SYSCALL_TABLE_SIZE])
{
	struct filter_error err = { 0 };
	struct filter *f = filter ? filter__compile(filter, &err) : NULL;
	int n;

	if (filter && !f) {
		fprintf(stderr, "%s: %s\n", filter, err.msg);
		exit(1);
	}
	n = filter__syscalls_needed(f, sc);
	filter__free(f);
	return n;
}

/* The set of STATE plus the names in EXTRA (NULL-terminated), compared with SC:
 * every difference printed. */
static void check_set(const char *what, const uint8_t *sc, const char *const *extra)
{
	uint8_t want[SYSCALL_TABLE_SIZE] = { 0 };
	int diffs = 0;

	for (int i = 0; state_syscalls[i]; i++)
		want[nr_of(state_syscalls[i])] = 1;
	for (int i = 0; extra && extra[i]; i++)
		want[nr_of(extra[i])] = 1;
	for (int i = 0; i < SYSCALL_TABLE_SIZE; i++)
		if (!want[i] != !sc[i]) {
			fprintf(stderr, "%s: %s is %s\n", what,
				schema_syscall_names[i] ? schema_syscall_names[i] : "?",
				sc[i] ? "captured, not wanted" : "wanted, not captured");
			diffs++;
		}
	CHECK(diffs == 0);
}

static void test_syscall_sets(void)
{
	uint8_t sc[SYSCALL_TABLE_SIZE];

	/* unconstrained: every syscall */
	CHECK_INT(needed(NULL, sc), SYSCALL_TABLE_SIZE);
	CHECK_INT(needed("proc.name=nginx", sc), SYSCALL_TABLE_SIZE);
	CHECK_INT(needed("fd.name contains /etc", sc), SYSCALL_TABLE_SIZE);
	/* one event: its syscall (already a state one) and the state set */
	CHECK_INT(needed("evt.type=openat", sc), 55);
	check_set("evt.type=openat", sc, NULL);
	needed("evt.type=read and fd.name=/etc/passwd", sc);
	check_set("read", sc, (const char *const[]){ "read", NULL });
	needed("evt.type in (read, write, stat) and proc.name=cat", sc);
	check_set("read, write, stat", sc, (const char *const[]){ "read", "write", "stat", NULL });
	/* a generic-routed call: its own syscall only */
	needed("evt.type=getppid", sc);
	check_set("getppid", sc, (const char *const[]){ "getppid", NULL });
	/* or: the union; and: the intersection */
	needed("evt.type=read or evt.type=mmap", sc);
	check_set("read or mmap", sc, (const char *const[]){ "read", "mmap", NULL });
	needed("evt.type in (read, mmap) and evt.type=mmap", sc);
	check_set("mmap", sc, (const char *const[]){ "mmap", NULL });
	/* not: everything but the named ones */
	CHECK(needed("evt.type!=read", sc) == SYSCALL_TABLE_SIZE - 1 && !sc[nr_of("read")]);
}

/* The syscalls the kernel filter's per-thread part turns on as triggers
 * (userspace/agent/kfilter.c) are state syscalls: they are always loaded. */
static void test_triggers_loaded(void)
{
	static const char *const triggers[] = { "execve", "execveat", "clone", "fork", "vfork",
						 "clone3", "setuid", "setgid", "setresuid",
						 "setresgid", NULL };
	uint8_t sc[SYSCALL_TABLE_SIZE];

	needed("evt.type=getppid and proc.name=x", sc);
	for (int i = 0; triggers[i]; i++)
		CHECK(sc[nr_of(triggers[i])]);
}

static struct driver_plan plan_of(const char *filter, bool eo, bool drop_failed)
{
	static uint8_t sc[SYSCALL_TABLE_SIZE];
	struct driver_plan p;
	int n = needed(filter, sc);

	driver_plan__build(&p, &(struct driver_plan_in){
		.syscalls = n == SYSCALL_TABLE_SIZE ? NULL : sc, .exit_only = eo,
		.drop_failed = drop_failed });
	return p;
}

/* Every event some route names, as the driver's filler table knows them. */
static int routed_fillers(bool eo, bool drop_failed)
{
	uint8_t seen[PPM_EVENT_MAX] = { 0 };
	int n = 0;

	for (int i = 0; i < SYSCALL_TABLE_SIZE; i++) {
		const struct syscall_route *r = &schema_syscall_routes[i];
		uint32_t e[2] = { r->enter_event, r->exit_event };

		for (int k = 0; k < 2; k++) {
			if (e[k] <= PPME_GENERIC_X || seen[e[k]])
				continue;
			if (k == 0 && eo && (r->flags & UF_EO_SYNTH) && !drop_failed)
				continue;
			seen[e[k]] = 1;
			n++;
		}
	}
	return n;
}

static void test_fillers(void)
{
	struct driver_plan p;
	int close_e = ev("SYSCALL_CLOSE_E"), close_x = ev("SYSCALL_CLOSE_X");
	int openat_e = ev("SYSCALL_OPENAT_2_E"), openat_x = ev("SYSCALL_OPENAT_2_X");
	int read_e = ev("SYSCALL_READ_E"), read_x = ev("SYSCALL_READ_X");
	int pipe_e = ev("SYSCALL_PIPE_E"), pipe_x = ev("SYSCALL_PIPE_X");
	int execve_e = ev("SYSCALL_EXECVE_19_E"), stat_e = ev("SYSCALL_STAT_E");

	/* capture-all: every filler, but in exit-only mode those of enter
	 * events the reader rebuilds (pipe's has no params) */
	p = plan_of(NULL, false, false);
	CHECK_INT(p.nfillers, routed_fillers(false, false));
	CHECK(p.fillers[read_e] && p.fillers[read_x] && p.fillers[pipe_e] && p.fillers[stat_e]);
	CHECK(p.sys_enter && p.sys_exit && p.sched_exit && !p.sys_exit_eo && !p.sched_exec &&
	      !p.sched_exit_eo && !p.sched_switch);
	CHECK(!p.fillers[PPME_GENERIC_E] && !p.fillers[PPME_GENERIC_X]);
	p = plan_of(NULL, true, false);
	CHECK_INT(p.nfillers, routed_fillers(true, false));
	CHECK((int)p.nfillers < routed_fillers(false, false));
	CHECK(!p.fillers[pipe_e] && p.fillers[pipe_x] && !p.fillers[stat_e] && p.fillers[execve_e]);
	CHECK(!p.sys_enter && !p.sys_exit && p.sys_exit_eo && p.sched_exec && p.sched_exit_eo &&
	      !p.sched_exit);
	/* close's enter program: exit-only capture's, where closes may be wanted */
	CHECK(p.close_enter && !plan_of(NULL, false, false).close_enter);
	/* drop_failed sends a failed call's enter event alone: its filler runs */
	p = plan_of(NULL, true, true);
	CHECK_INT(p.nfillers, routed_fillers(false, false));
	CHECK(p.fillers[pipe_e]);

	/* evt.type=openat: openat's and the state syscalls' fillers, not read's */
	p = plan_of("evt.type=openat", false, false);
	CHECK(p.fillers[openat_e] && p.fillers[openat_x] && p.fillers[close_e] && p.fillers[close_x]);
	CHECK(!p.fillers[read_e] && !p.fillers[read_x] && !p.fillers[stat_e]);
	CHECK(p.fillers[pipe_e] && p.fillers[pipe_x]);
	CHECK((int)p.nfillers < routed_fillers(false, false) / 2);
	p = plan_of("evt.type=openat", true, false);
	CHECK(p.fillers[openat_e] && p.fillers[openat_x] && !p.fillers[pipe_e] && p.fillers[pipe_x]);
	CHECK(p.sched_exec);
	/* a generic call adds no filler */
	{
		struct driver_plan a = plan_of("evt.type=openat", false, false);
		struct driver_plan g = plan_of("evt.type=getppid", false, false);

		CHECK_INT(g.nfillers, a.nfillers);
		CHECK(!memcmp(g.fillers, a.fillers, sizeof(a.fillers)));
	}
	/* read adds exactly its two */
	{
		struct driver_plan a = plan_of("evt.type=openat", false, false);
		struct driver_plan r = plan_of("evt.type=read", false, false);

		CHECK_INT(r.nfillers, a.nfillers + 2);
		CHECK(r.fillers[read_e] && r.fillers[read_x]);
	}
}

/* A syscall set without exec: no sched_process_exec in exit-only mode; the
 * per-thread filter brings sched_switch. */
static void test_dispatchers(void)
{
	uint8_t sc[SYSCALL_TABLE_SIZE] = { 0 };
	struct driver_plan p;

	sc[nr_of("read")] = 1;
	driver_plan__build(&p, &(struct driver_plan_in){ .syscalls = sc, .exit_only = true });
	CHECK(!p.sched_exec && p.sys_exit_eo && p.sched_exit_eo && !p.sched_switch);
	CHECK(!p.close_enter);
	CHECK_INT(p.nfillers, 2);
	sc[nr_of("close")] = 1;
	driver_plan__build(&p, &(struct driver_plan_in){ .syscalls = sc, .exit_only = true });
	CHECK(p.close_enter);
	sc[nr_of("close")] = 0;
	driver_plan__build(&p, &(struct driver_plan_in){ .syscalls = sc, .exit_only = true });
	sc[nr_of("execveat")] = 1;
	driver_plan__build(&p, &(struct driver_plan_in){ .syscalls = sc, .exit_only = true,
							  .per_thread = true });
	CHECK(p.sched_exec && p.sched_switch);
	CHECK_INT(p.nfillers, 4);
	/* an empty set: the dispatchers alone */
	memset(sc, 0, sizeof(sc));
	driver_plan__build(&p, &(struct driver_plan_in){ .syscalls = sc });
	CHECK_INT(p.nfillers, 0);
	CHECK(p.sys_enter && p.sys_exit && p.sched_exit);
	/* compact socket I/O: its two fillers besides read's pair */
	sc[nr_of("read")] = 1;
	driver_plan__build(&p, &(struct driver_plan_in){ .syscalls = sc, .exit_only = true,
							  .sock_compact = true });
	CHECK_INT(p.nfillers, 4);
	CHECK(p.fillers[PPME_SOCK_RECV_X] && p.fillers[PPME_SOCK_SEND_X]);
	CHECK(!p.fillers[PPME_SOCK_RECV_E] && !p.fillers[PPME_SOCK_SEND_E]);
}

int main(void)
{
	test_syscall_sets();
	test_triggers_loaded();
	test_fillers();
	test_dispatchers();
	return t_report();
}
