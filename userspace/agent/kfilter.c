/* The agent's kernel filter: the filter's syscall set into the driver's bitmap,
 * its process tests (filter__kplan) into the driver's per-thread tables and maps.
 * The kernel then skips what the filter can never match; userspace still runs
 * the whole filter on what arrives. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "container.h"
#include "kfilter.h"
#include "sbuf.h"
#include "state.h"

#define RESCAN_MS 1000

struct agent_kf {
	struct driver *d;
	int seeded, seed_failed;	/* threads of the /proc scan */
	struct filter_kplan *plan;
	const char *host_root;
	uint32_t cg_atoms;	/* atoms on container.id */
	uint64_t last_scan_ms;
	int added;		/* cgroups the last scan added */
	/* From agent_kf__plan: the syscalls the driver loads and turns on (all
	 * when ALL), those it keeps on if the per-thread part fails, and that
	 * part's tables (NULL: none, WHY says why). */
	bool all;
	uint8_t sc[SYSCALL_TABLE_SIZE];
	uint8_t sc_alone[SYSCALL_TABLE_SIZE];
	struct driver_kfilter *c;
	bool none;		/* nothing pushed at all (WHY) */
	const char *why;
	int err;		/* the per-thread part could not be planned */
	bool active;		/* the per-thread part is on in the driver */
};

static const uint8_t kind_of[KP__KINDS] = {
	[KP_COMM] = KF_COMM, [KP_PID] = KF_PID, [KP_TID] = KF_TID, [KP_PPID] = KF_PPID,
	[KP_UID] = KF_UID, [KP_GID] = KF_GID, [KP_LOGINUID] = KF_LOGINUID,
	[KP_CONTAINER] = KF_CGROUP,
};

/* The u32 the kernel holds for a filter's number, or false when no thread can
 * have it (so the test is false for it on both sides). */
static bool num__kernel(uint8_t kind, int64_t v, uint32_t *out)
{
	switch (kind) {
	case KP_LOGINUID:
		/* userspace shows an unset loginuid (UINT32_MAX) as -1 */
		if (v == -1) {
			*out = UINT32_MAX;
			return true;
		}
		if (v < 0 || v >= UINT32_MAX)
			return false;
		break;
	case KP_UID:
	case KP_GID:
		if (v < 0 || v > UINT32_MAX)
			return false;
		break;
	default:	/* pids and tids */
		if (v < 0 || v > INT32_MAX)
			return false;
	}
	*out = (uint32_t)v;
	return true;
}

/* comm entries as LPM keys: "name\0" for equality, "prefix" for startswith. */
struct comm_entry {
	char key[16];
	size_t len;		/* of the name or prefix */
	bool exact;		/* the NUL after it is part of the key */
	uint32_t bits;
};

static int kf__comm(struct agent_kf *k)
{
	struct comm_entry e[256];
	size_t n = 0;
	int r;

	for (uint32_t i = 0; i < k->plan->natoms; i++) {
		const struct kplan_atom *a = &k->plan->atoms[i];

		if (a->kind != KP_COMM)
			continue;
		for (uint32_t v = 0; v < a->nvals; v++) {
			size_t len = strlen(a->strs[v]);

			if (len + !a->prefix > sizeof(e[0].key))
				continue;	/* longer than any comm: never equal */
			if (n == sizeof(e) / sizeof(e[0]))
				return -E2BIG;
			memset(&e[n], 0, sizeof(e[n]));
			memcpy(e[n].key, a->strs[v], len);
			e[n].len = len;
			e[n].exact = !a->prefix;
			e[n].bits = 1u << i;
			n++;
		}
	}
	/* an LPM lookup finds the longest entry: it carries the shorter ones'
	 * (an entry is a prefix of another when its key bytes, NUL included for
	 * an exact one, start the other's) */
	for (size_t i = 0; i < n; i++) {
		uint32_t bits = 0;

		for (size_t j = 0; j < n; j++)
			if (e[j].len + e[j].exact <= e[i].len + e[i].exact &&
			    !memcmp(e[j].key, e[i].key, e[j].len) &&
			    (!e[j].exact || (e[j].len < sizeof(e[i].key) && !e[i].key[e[j].len])))
				bits |= e[j].bits;
		if ((r = driver__kf_comm(k->d, e[i].key, e[i].len, e[i].exact, bits)))
			return r;
	}
	return 0;
}

static int kf__nums(struct agent_kf *k)
{
	struct {
		uint32_t kind, value, bits;
	} e[512];
	size_t n = 0;
	int r;

	for (uint32_t i = 0; i < k->plan->natoms; i++) {
		const struct kplan_atom *a = &k->plan->atoms[i];
		uint32_t val;
		size_t j;

		if (a->kind == KP_COMM || a->kind == KP_CONTAINER)
			continue;
		for (uint32_t v = 0; v < a->nvals; v++) {
			if (!num__kernel(a->kind, a->nums[v], &val))
				continue;
			for (j = 0; j < n; j++)
				if (e[j].kind == kind_of[a->kind] && e[j].value == val)
					break;
			if (j == n) {
				if (n == sizeof(e) / sizeof(e[0]))
					return -E2BIG;
				e[n].kind = kind_of[a->kind];
				e[n].value = val;
				e[n++].bits = 0;
			}
			e[j].bits |= 1u << i;
		}
	}
	for (size_t j = 0; j < n; j++)
		if ((r = driver__kf_num(k->d, e[j].kind, e[j].value, e[j].bits)))
			return r;
	return 0;
}

static uint32_t kf__container_bits(const struct agent_kf *k, const char *id)
{
	uint32_t bits = 0;

	for (uint32_t i = 0; i < k->plan->natoms; i++) {
		const struct kplan_atom *a = &k->plan->atoms[i];

		for (uint32_t v = 0; a->kind == KP_CONTAINER && v < a->nvals; v++)
			if (!strcmp(a->strs[v], id))
				bits |= 1u << i;
	}
	return bits;
}

/* A full map leaves the rest unknown (sent): not an error; nor is a cgroup
 * already there. */
static int kf__added(struct agent_kf *k, int r)
{
	if (!r)
		k->added++;
	return r == -EEXIST || r == -E2BIG ? 0 : r;
}

static int kf__cgroup_one(uint64_t cgid, const char *id, void *arg)
{
	struct agent_kf *k = arg;

	return kf__added(k, driver__kf_cgroup(k->d, cgid, kf__container_bits(k, id)));
}

static int kf__cgroup1_one(uint64_t cgid, const char *id, void *arg)
{
	struct agent_kf *k = arg;

	return kf__added(k, driver__kf_cgroup1(k->d, cgid, kf__container_bits(k, id)));
}

/* Classifies cgroups not seen before; threads in them look again. */
static int kf__scan(struct agent_kf *k)
{
	int r, r1;

	k->added = 0;
	r = cgroup2__scan(k->host_root, kf__cgroup_one, k);
	/* hybrid hosts only: elsewhere no thread has a v1 cgroup to look up */
	r1 = cgroup1__scan_cpuset(k->host_root, kf__cgroup1_one, k);
	if (k->added)
		driver__kf_bump(k->d);
	return r < 0 ? r : r1 < 0 && r1 != -ENOENT ? r1 : 0;
}

void agent_kf__tick(struct agent_kf *k, uint64_t now_ms)
{
	if (!k || !k->active || !k->cg_atoms || now_ms - k->last_scan_ms < RESCAN_MS)
		return;
	k->last_scan_ms = now_ms;
	kf__scan(k);	/* a failure leaves new cgroups unknown: they are sent */
}

void agent_kf__free(struct agent_kf *k)
{
	if (!k)
		return;
	filter_kplan__free(k->plan);
	free(k->c);
	free(k);
}

struct seed_ctx {
	struct agent_kf *k;
	struct thread_table *threads;
	int seeded, failed;
};

static int kf__seed_one(struct thread_info *ti, void *arg)
{
	struct seed_ctx *c = arg;
	const struct thread_info *m = thread_table__main(c->threads, ti);
	struct kplan_thread t = {
		.comm = ti->comm[0] ? ti->comm : "<NA>",
		.pid = ti->pid, .tid = ti->tid, .ppid = (m ? m : ti)->ptid,
		.uid = ti->uid, .gid = ti->gid, .loginuid = ti->loginuid,
		.container_id = "host",
	};

	/* a full map leaves the rest to the kernel's first look */
	if (driver__kf_seed(c->k->d, (uint32_t)ti->tid, filter_kplan__results(c->k->plan, &t, false)))
		c->failed++;
	else
		c->seeded++;
	return 0;
}

static void tab__or(__u64 *dst, const uint64_t *src)
{
	for (int w = 0; w < KF_WORDS; w++)
		dst[w] |= src[w];
}

static uint8_t trigger__of(uint16_t exit_event, bool cred)
{
	switch (exit_event) {
	case PPME_SYSCALL_EXECVE_19_X:
	case PPME_SYSCALL_EXECVEAT_X:
		return KF_T_EXEC;
	case PPME_SYSCALL_CLONE_20_X:
	case PPME_SYSCALL_FORK_20_X:
	case PPME_SYSCALL_VFORK_20_X:
	case PPME_SYSCALL_CLONE3_X:
		return KF_T_CLONE;
	case PPME_SYSCALL_SETUID_X:
	case PPME_SYSCALL_SETGID_X:
	case PPME_SYSCALL_SETRESUID_X:
	case PPME_SYSCALL_SETRESGID_X:
		return cred ? KF_T_CRED : KF_T_NONE;
	}
	return KF_T_NONE;
}

/* The driver's tables from the plan: per syscall, its events' tables; the
 * events that keep thread and fd state right are sent for every thread, so the
 * tables stay exact for a process that becomes wanted (an execve into a wanted
 * name that exits before /proc could be read). Turns on the trigger syscalls
 * in SC. */
static void kf__tables(const struct agent_kf *k, const struct filter_events *state,
		       struct driver_kfilter *c, uint8_t sc[SYSCALL_TABLE_SIZE])
{
	const struct filter_kplan *p = k->plan;

	for (uint32_t i = 0; i < p->natoms; i++) {
		c->kinds |= 1u << kind_of[p->atoms[i].kind];
		if (p->atoms[i].kind == KP_UID || p->atoms[i].kind == KP_GID)
			c->cred_mask |= 1u << i;
	}
	for (unsigned nr = 0; nr < SYSCALL_TABLE_SIZE; nr++) {
		const struct syscall_route *r = &schema_syscall_routes[nr];
		__u64 *tab = c->table[nr];

		if (r->enter_event == PPME_GENERIC_E) {
			tab__or(tab, p->generic_nr[nr]);
		} else {
			uint16_t ev[2] = { r->enter_event, r->exit_event };

			for (int i = 0; i < 2; i++) {
				if (ev[i] >= PPM_EVENT_MAX)
					continue;
				if (state->codes[ev[i]])
					memset(tab, 0xff, sizeof(c->table[nr]));
				else
					tab__or(tab, p->codes[ev[i]]);
			}
		}
		c->trigger[nr] = r->exit_event < PPM_EVENT_MAX ?
			trigger__of(r->exit_event, c->cred_mask != 0) : KF_T_NONE;
		if (c->trigger[nr])
			sc[nr] = 1;
	}
	c->on = 1;
}

static void kf__describe(const struct agent_kf *k, int nsc, char *desc, size_t size)
{
	struct sbuf b;

	sbuf__init(&b);
	sbuf__printf(&b, "%d of %d syscalls, and per thread: ", nsc, SYSCALL_TABLE_SIZE);
	for (uint32_t i = 0; i < k->plan->natoms; i++)
		sbuf__printf(&b, "%s%s", i ? "; " : "", k->plan->atoms[i].text);
	if (k->plan->left)
		sbuf__printf(&b, " (%u more process tests stay in userspace)", k->plan->left);
	sbuf__printf(&b, "; %d threads known from /proc", k->seeded);
	if (k->seed_failed)
		sbuf__printf(&b, " (%d more the kernel will judge itself)", k->seed_failed);
	snprintf(desc, size, "%s", sbuf__cstr(&b));
	sbuf__free(&b);
}

static int sc__count(const uint8_t *sc)
{
	int n = 0;

	for (unsigned i = 0; i < SYSCALL_TABLE_SIZE; i++)
		n += sc[i] != 0;
	return n;
}

/* The per-thread part, if the filter has process tests worth pushing: its
 * tables, and the syscalls it needs on top of SC (its triggers). */
static int kf__plan_threads(struct agent_kf *k, const struct filter *flt,
			    const struct agent_kf_opts *o, bool match_all)
{
	struct filter_events *state;

	if (o->syscalls_only) {
		k->why = "-w writes every process's state";
		return 0;
	}
	if (!(k->plan = filter__kplan(flt)))
		return -errno;
	if (!k->plan->useful) {
		k->why = k->plan->natoms ? "its process tests exclude no event"
					 : "no process test it can push";
		return 0;
	}
	for (uint32_t i = 0; i < k->plan->natoms; i++)
		if (k->plan->atoms[i].kind == KP_CONTAINER)
			k->cg_atoms |= 1u << i;
	state = calloc(1, sizeof(*state));
	k->c = calloc(1, sizeof(*k->c));
	if (!state || !k->c) {
		free(state);
		return -ENOMEM;
	}
	filter_events__add_state(state);
	if (match_all) {
		k->all = true;
		memset(k->sc, 1, sizeof(k->sc));
	}
	kf__tables(k, state, k->c, k->sc);
	free(state);
	return 0;
}

/* Request mode: the calls whose fds are never sockets leave the set. Their
 * fds stay unknown to the fd table; a socket later given the same number
 * replaces the entry, so only sockets' entries matter and they stay right.
 * Returns how many were dropped. */
static int kf__drop_file_fds(uint8_t sc[SYSCALL_TABLE_SIZE])
{
	static const int nr[] = {
		SYS_open, SYS_openat, SYS_openat2, SYS_creat, SYS_open_by_handle_at,
		SYS_pipe, SYS_pipe2, SYS_eventfd, SYS_eventfd2, SYS_signalfd, SYS_signalfd4,
		SYS_timerfd_create, SYS_inotify_init, SYS_inotify_init1, SYS_epoll_create,
		SYS_epoll_create1, SYS_memfd_create, SYS_userfaultfd,
	};
	int n = 0;

	for (size_t i = 0; i < sizeof(nr) / sizeof(nr[0]); i++)
		if (nr[i] >= 0 && nr[i] < SYSCALL_TABLE_SIZE && sc[nr[i]]) {
			sc[nr[i]] = 0;
			n++;
		}
	return n;
}

/* --tcp: the calls whose events name or rename threads stay; the rest leave
 * the set. Returns how many were dropped. */
static int kf__threads_only(uint8_t sc[SYSCALL_TABLE_SIZE])
{
	int n = 0;

	for (unsigned nr = 0; nr < SYSCALL_TABLE_SIZE; nr++)
		if (sc[nr] && trigger__of(schema_syscall_routes[nr].exit_event, true) == KF_T_NONE) {
			sc[nr] = 0;
			n++;
		}
	return n;
}

struct agent_kf *agent_kf__plan(const struct filter *flt, const struct agent_kf_opts *o)
{
	struct agent_kf *k = calloc(1, sizeof(*k));
	int n, r;

	if (!k)
		return NULL;
	k->host_root = o->host_root;
	k->all = true;
	memset(k->sc, 1, sizeof(k->sc));
	memset(k->sc_alone, 1, sizeof(k->sc_alone));
	if (o->off || !flt) {
		k->none = true;
		k->why = o->off ? "--no-kernel-filter" : "no filter";
		return k;
	}
	if ((n = filter__syscalls_needed(flt, k->sc)) < 0) {
		free(k);
		errno = -n;
		return NULL;
	}
	if (o->requests)
		n -= kf__drop_file_fds(k->sc);
	if (o->threads_only)
		n -= kf__threads_only(k->sc);
	k->all = n == SYSCALL_TABLE_SIZE;
	memcpy(k->sc_alone, k->sc, sizeof(k->sc));
	/* a per-thread part that cannot be planned leaves the syscalls alone */
	if ((r = kf__plan_threads(k, flt, o, k->all)) < 0) {
		filter_kplan__free(k->plan);
		k->plan = NULL;
		free(k->c);
		k->c = NULL;
		k->err = r;
		k->all = n == SYSCALL_TABLE_SIZE;
		memcpy(k->sc, k->sc_alone, sizeof(k->sc));
	}
	return k;
}

const uint8_t *agent_kf__syscalls(const struct agent_kf *k)
{
	return k->all ? NULL : k->sc;
}

bool agent_kf__per_thread(const struct agent_kf *k)
{
	return k->c != NULL;
}

bool agent_kf__start(struct agent_kf *k, struct driver *d, struct inspector *in, char *desc,
		     size_t size)
{
	int r = k->err;

	k->d = d;
	if (k->none) {
		snprintf(desc, size, "none (%s)", k->why);
		return false;
	}
	if (r || !k->c)
		goto syscalls;
	if ((r = kf__comm(k)) || (r = kf__nums(k)))
		goto syscalls;
	if (k->cg_atoms && (r = kf__scan(k)) < 0)
		goto syscalls;
	if (in) {
		struct seed_ctx seed = { .k = k, .threads = inspector__threads(in) };

		inspector__for_each_thread(in, kf__seed_one, &seed);
		k->seeded = seed.seeded;
		k->seed_failed = seed.failed;
	}
	driver__set_interesting(d, k->sc);
	if ((r = driver__kf_set(d, k->c)))
		goto syscalls;
	k->active = true;
	kf__describe(k, sc__count(k->sc), desc, size);
	return true;
syscalls:
	/* the per-thread part failed or has nothing to do: the syscalls alone
	 * (the driver loaded them, and the per-thread part's on top) */
	driver__set_interesting(d, k->sc_alone);
	snprintf(desc, size, "%d of %d syscalls; process tests stay in userspace (%s%s)",
		 sc__count(k->sc_alone), SYSCALL_TABLE_SIZE, r ? "failed: " : "",
		 r ? strerror(-r) : k->why);
	return false;
}
