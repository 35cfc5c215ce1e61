/* Kernel pushdown: the event codes and native syscalls a filter can match. */
#include <stdlib.h>

#include "t_check.h"
#include "filter.h"

static uint8_t set[PPM_EVENT_MAX];
static uint8_t sc[SYSCALL_TABLE_SIZE];
static struct filter_events fev;

/* Computes the sets of EXPR; returns filter__event_set's result. */
static int sets(const char *expr)
{
	struct filter *f = filter__compile(expr, NULL);
	int r;

	if (!f) {
		fprintf(stderr, "filter '%s' did not compile\n", expr);
		memset(set, 0, sizeof(set));
		memset(sc, 0, sizeof(sc));
		return -1;
	}
	r = filter__event_set(f, set);
	CHECK_INT(filter__events(f, &fev), 0);
	filter_events__syscalls(&fev, sc);
	filter__free(f);
	return r;
}

static int count(const uint8_t *a, size_t n)
{
	int c = 0;

	for (size_t i = 0; i < n; i++)
		c += a[i] != 0;
	return c;
}

/* Codes whose event name is NAME. */
static bool named(unsigned code, const char *name)
{
	return schema_events[code].name && strcmp(schema_events[code].name, name) == 0 &&
	       code != PPME_GENERIC_E && code != PPME_GENERIC_X;
}

static int syscall_nr(const char *name)
{
	for (int i = 0; i < SYSCALL_TABLE_SIZE; i++)
		if (schema_syscall_names[i] && strcmp(schema_syscall_names[i], name) == 0)
			return i;
	return -1;
}

static void test_openat(void)
{
	CHECK_INT(sets("evt.type=openat"), 0);
	CHECK_INT(count(set, PPM_EVENT_MAX), 4);
	CHECK(set[PPME_SYSCALL_OPENAT_E] && set[PPME_SYSCALL_OPENAT_X]);
	CHECK(set[PPME_SYSCALL_OPENAT_2_E] && set[PPME_SYSCALL_OPENAT_2_X]);
	CHECK(!set[PPME_GENERIC_E] && !set[PPME_GENERIC_X]);
	CHECK(!fev.all);
	CHECK_INT(count(sc, SYSCALL_TABLE_SIZE), 1);
	CHECK_INT(syscall_nr("openat"), 257);
	CHECK(sc[257]);

	CHECK_INT(sets("evt.type in (open, openat)"), 0);
	CHECK_INT(count(sc, SYSCALL_TABLE_SIZE), 2);
	CHECK(sc[2] && sc[257]);
	CHECK(set[PPME_SYSCALL_OPEN_E] && set[PPME_SYSCALL_OPEN_X]);

	/* and with a non-type test keeps the type constraint, or loses it */
	sets("evt.type=openat and proc.name=curl");
	CHECK_INT(count(sc, SYSCALL_TABLE_SIZE), 1);
	CHECK(sc[257]);
	CHECK_INT(sets("evt.type=openat or proc.name=curl"), 1);
	CHECK(fev.all);
	CHECK_INT(count(sc, SYSCALL_TABLE_SIZE), SYSCALL_TABLE_SIZE);
	CHECK_INT(sets("not (evt.type=openat and proc.name=curl)"), 1);
	sets("(evt.type=open or evt.type=openat) and (fd.name startswith /etc or proc.name=cat)");
	CHECK_INT(count(sc, SYSCALL_TABLE_SIZE), 2);
	sets("evt.type=open and evt.type=openat");
	CHECK_INT(count(set, PPM_EVENT_MAX), 0);
	CHECK_INT(count(sc, SYSCALL_TABLE_SIZE), 0);
}

static void test_negation(void)
{
	int read_codes = 0;

	/* not over an exact type test is its complement */
	CHECK_INT(sets("not evt.type=read"), 0);
	for (unsigned t = 0; t < PPM_EVENT_MAX; t++) {
		if (named(t, "read")) {
			read_codes++;
			CHECK(!set[t]);
		} else {
			CHECK(set[t]);
		}
	}
	CHECK(read_codes >= 2);
	CHECK(!sc[0]);
	CHECK_INT(count(sc, SYSCALL_TABLE_SIZE), SYSCALL_TABLE_SIZE - 1);
	CHECK(set[PPME_GENERIC_E]);

	CHECK_INT(sets("evt.type!=read"), 0);
	CHECK(!sc[0] && sc[1] && sc[257]);
	CHECK_INT(sets("not not evt.type=read"), 0);
	CHECK_INT(count(sc, SYSCALL_TABLE_SIZE), 1);
	CHECK(sc[0]);
	CHECK_INT(sets("not (evt.type=read or evt.type=write)"), 0);
	CHECK(!sc[0] && !sc[1] && sc[2]);
	CHECK_INT(sets("not (evt.type in (read, write))"), 0);
	CHECK(!sc[0] && !sc[1] && sc[2]);
	/* not over anything else: everything */
	CHECK_INT(sets("not proc.name=curl"), 1);
	CHECK_INT(sets("not (evt.type=read and proc.name=curl)"), 1);
	CHECK_INT(count(sc, SYSCALL_TABLE_SIZE), SYSCALL_TABLE_SIZE);
}

static void test_generic(void)
{
	int nr = syscall_nr("clock_gettime");

	CHECK_INT(nr, 228);
	CHECK_INT(sets("evt.type=clock_gettime"), 0);
	CHECK(set[PPME_GENERIC_E] && set[PPME_GENERIC_X]);
	CHECK_INT(count(set, PPM_EVENT_MAX), 2);
	CHECK_INT(count(sc, SYSCALL_TABLE_SIZE), 1);
	CHECK(sc[228]);
	CHECK_INT(sets("evt.type in (clock_gettime, openat)"), 0);
	CHECK_INT(count(sc, SYSCALL_TABLE_SIZE), 2);
	CHECK(sc[228] && sc[257]);
	/* excluding a generic syscall keeps the others */
	CHECK_INT(sets("evt.type!=clock_gettime"), 0);
	CHECK(!sc[228] && sc[257] && set[PPME_GENERIC_E]);
	/* calls newer than sysdig's table (PPM_SC 0) each by their own name */
	CHECK_INT(sets("evt.type=rseq"), 0);
	CHECK_INT(count(sc, SYSCALL_TABLE_SIZE), 1);
	CHECK(sc[334]);
	CHECK_INT(sets("evt.type in (rseq, futex_waitv)"), 0);
	CHECK_INT(count(sc, SYSCALL_TABLE_SIZE), 2);
	CHECK(sc[334] && sc[449]);
	/* rt_sigreturn by the kernel's name and by sysdig's */
	CHECK_INT(sets("evt.type=rt_sigreturn"), 0);
	CHECK_INT(count(sc, SYSCALL_TABLE_SIZE), 1);
	CHECK(sc[15]);
	CHECK_INT(sets("evt.type=sigreturn"), 0);
	CHECK(sc[15]);
	/* the agent's own events route their syscalls */
	CHECK_INT(sets("evt.type=memfd_create"), 0);
	CHECK_INT(count(sc, SYSCALL_TABLE_SIZE), 1);
	CHECK(sc[319] && set[PPME_SYSCALL_MEMFD_CREATE_X] && !set[PPME_GENERIC_E]);
}

static void test_misc(void)
{
	CHECK_INT(sets("proc.name=curl"), 1);
	CHECK_INT(count(set, PPM_EVENT_MAX), PPM_EVENT_MAX);
	CHECK_INT(sets("evt.type exists"), 1);
	/* matching on names: contains/startswith/glob are decided at compile time */
	sets("evt.type startswith open");
	CHECK(sc[2] && sc[257] && !sc[0]);
	CHECK(sc[syscall_nr("openat2")]);
	sets("evt.type glob 'read*'");
	CHECK(sc[0] && sc[syscall_nr("readv")] && !sc[1]);
	/* a named argument exists only on some events */
	CHECK_INT(sets("evt.arg.dirfd = -100"), 0);
	CHECK(set[PPME_SYSCALL_OPENAT_2_E] && !set[PPME_SYSCALL_READ_E]);
	CHECK(sc[257] && !sc[0]);
	/* evt.type.is.X holds on every event (as 0 or 1): it narrows nothing */
	CHECK_INT(sets("evt.type.is.openat = 0"), 1);
	CHECK_INT(count(set, PPM_EVENT_MAX), PPM_EVENT_MAX);
	CHECK(sc[0] && sc[257]);

	/* the state events an agent adds so proc.* and fd.* keep working */
	sets("evt.type=openat");
	filter_events__add_state(&fev);
	CHECK(fev.codes[PPME_SYSCALL_CLONE_20_X] && fev.codes[PPME_SYSCALL_EXECVE_19_X]);
	CHECK(fev.codes[PPME_SYSCALL_CLOSE_E] && fev.codes[PPME_SOCKET_SOCKET_X]);
	CHECK(!fev.codes[PPME_SYSCALL_READ_X]);
	filter_events__syscalls(&fev, sc);
	CHECK(sc[syscall_nr("close")] && sc[syscall_nr("execve")] && !sc[0]);

	/* no filter: everything */
	CHECK_INT(filter__event_set(NULL, set), 1);
	CHECK_INT(count(set, PPM_EVENT_MAX), PPM_EVENT_MAX);
}

int main(void)
{
	test_openat();
	test_negation();
	test_generic();
	test_misc();
	return t_report();
}
