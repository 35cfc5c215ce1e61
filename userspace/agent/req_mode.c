/* Request mode's glue between the inspector's events and the pairing. Per
 * event: a type check, and for socket I/O one table lookup in the pairing;
 * nothing is allocated. */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "container.h"
#include "recent.h"
#include "stacks.h"
#include "driver.h"
#include "loader.h"
#include "req_mode.h"
#include "schema.h"
#include "state.h"

#define EXPIRE_EVERY_NS 1000000000ull

struct req_mode {
	struct pairer *pair;
	struct driver *d;		/* req_mode__set_driver */
	struct driver *prof_d;		/* req_mode__profile_driver */
	struct thread_table *threads;
	req_mode_emit_fn *emit;
	void *ctx;
	uint64_t next_expire;
	uint64_t last_ts;
	uint64_t num;			/* records so far: their evt.num */
	bool no_event;			/* records go out without an event */
	uint64_t n_events, n_events_tick;	/* events seen, at the last tick */
	uint32_t idle_ticks;		/* ticks with no event since */
	uint8_t data_idx[PPM_EVENT_MAX];	/* exit events: their "data" param */
	/* A record's process when it has left the thread table (it exited
	 * before its last request was reported): what the record knows of it. */
	struct thread_info gone;
	/* --profile: each followed thread's clock, from CPU_SLICES events */
	struct prof_clock *clock;
	struct prof_recent *recent;	/* --profile-out: their recent slices */
	struct prof_stacks *stacks;	/* ... and their on-CPU stacks (not owned) */
	uint64_t n_bad_samples;		/* CPU_SAMPLE events that did not decode */
	uint64_t n_bad_batches;		/* CPU_SLICES events that did not decode */
	uint64_t n_let_go_failed;	/* on_role: the driver's error */
};

/* The driver's slices and kinds are what profile/ decodes and requests/
 * counts by. */
#define SAME(a, b) ((int)(a) == (int)(b))
_Static_assert(sizeof(struct prof_slice) == PROF_SLICE_WIRE && PROF_BATCH == PROF_SLICES_MAX &&
	       SAME(PROF__KINDS, PROF_SLICE__KINDS) && SAME(PROF__KINDS, REQ_CPU__KINDS) &&
	       SAME(PROF_RUNQ, PROF_SLICE_RUNQ) && SAME(PROF_RUNQ, REQ_CPU_RUNQ) &&
	       SAME(PROF_FILE, PROF_SLICE_FILE) && SAME(PROF_FILE, REQ_CPU_FILE) &&
	       SAME(PROF_NET, PROF_SLICE_NET) && SAME(PROF_NET, REQ_CPU_NET) &&
	       SAME(PROF_LOCK, PROF_SLICE_LOCK) && SAME(PROF_LOCK, REQ_CPU_LOCK) &&
	       SAME(PROF_POLL, PROF_SLICE_POLL) && SAME(PROF_POLL, REQ_CPU_POLL) &&
	       SAME(PROF_SLEEP, PROF_SLICE_SLEEP) && SAME(PROF_SLEEP, REQ_CPU_SLEEP) &&
	       SAME(PROF_OTHER, PROF_SLICE_OTHER) && SAME(PROF_OTHER, REQ_CPU_OTHER) &&
	       PROF_NR_NONE == PROF_SLICE_NR_NONE && PROF_SLICE_FD == PROF_SLICE_F_FD &&
	       PROF_SLICE_PREEMPTED == PROF_SLICE_F_PREEMPTED && PROF_SLICE_UNSEEN == PROF_SLICE_F_UNSEEN,
	       "profiling's wire layout and kinds agree");
#undef SAME

/* A record as an event: a generic event named "request", at the response's
 * end, of the local end's thread. */
static void record__event(struct req_mode *m, const struct req_record *r)
{
	const struct req_end *e = r->side == REQ_SIDE_SERVER ? &r->server : &r->client;
	struct ppm_evt_hdr h = { 0 };
	struct ievt ev = { 0 };

	h.ts = r->ts_end ? r->ts_end : r->ts_start;
	h.tid = (uint64_t)e->tid;
	h.len = sizeof(h);
	h.type = PPME_GENERIC_E;
	ev.num = ++m->num;
	ev.hdr = &h;
	ev.type = PPME_GENERIC_E;
	ev.ts = h.ts;
	ev.first_ts = h.ts;
	ev.tid = e->tid;
	ev.info = &schema_events[PPME_GENERIC_E];
	ev.name = "request";
	ev.native_nr = -1;
	ev.fdnum = -1;
	ev.thread = thread_table__find(m->threads, e->tid);
	if (!ev.thread || ev.thread->pid != e->pid)
		ev.thread = thread_table__find(m->threads, e->pid);
	if (!ev.thread) {
		memset(&m->gone, 0, sizeof(m->gone));
		m->gone.tid = e->tid;
		m->gone.pid = e->pid;
		m->gone.ptid = m->gone.vtid = m->gone.vpid = -1;
		m->gone.loginuid = UINT32_MAX;
		memcpy(m->gone.comm, e->comm, sizeof(m->gone.comm));
		m->gone.container = (struct container_info *)e->container;
		m->gone.exited = true;
		ev.thread = &m->gone;
	}
	ev.latency = r->duration;
	m->emit(m->ctx, r, &ev);
}

static void on_record(void *arg, const struct req_record *r)
{
	struct req_mode *m = arg;

	/* before any event is built: the compiler would clear it first */
	if (m->no_event)
		m->emit(m->ctx, r, NULL);
	else
		record__event(m, r);
}

struct req_mode *req_mode__new(struct inspector *in, uint64_t timeout_ns, bool no_event,
			       req_mode_emit_fn *emit, void *ctx)
{
	struct req_mode *m = calloc(1, sizeof(*m));
	/* records that go nowhere but to the metrics and the map, which count
	 * a request seen from both sides once, from the server's */
	struct pair_opts po = { .timeout_ns = timeout_ns, .server_side_once = no_event };

	if (!m)
		return NULL;
	m->threads = inspector__threads(in);
	m->emit = emit;
	m->ctx = ctx;
	m->no_event = no_event;
	m->pair = pair__new(&po, on_record, m);
	if (!m->pair) {
		free(m);
		errno = ENOMEM;
		return NULL;
	}
	for (unsigned t = 0; t < PPM_EVENT_MAX; t++)
		m->data_idx[t] = PPME_IS_EXIT(t) ? schema__param_index(&schema_events[t], "data",
									PT_BYTEBUF) : 0xff;
	return m;
}

/* A quiet client end (pair__set_quiet) in the kernel's quiet_socks, or out;
 * installed only while M has a driver (req_mode__set_driver). */
static int on_quiet(void *arg, const struct pair_quiet_end *e, bool on)
{
	struct req_mode *m = arg;
	struct sock_quiet_key k = { .family = e->family, .l4proto = IPPROTO_TCP,
				    .lport = e->lport, .rport = e->rport };

	memcpy(k.laddr, e->lip, e->family == PPM_AF_INET6 ? 16 : 4);
	memcpy(k.raddr, e->rip, e->family == PPM_AF_INET6 ? 16 : 4);
	return driver__sock_quiet(m->d, &k, on);
}

void req_mode__set_driver(struct req_mode *m, struct driver *d)
{
	m->d = d;
	pair__set_quiet(m->pair, d && m->no_event ? on_quiet : NULL, m);
}

/* The pairing's clock reader (pair__set_clock). */
static bool on_clock(void *arg, int64_t tid, struct pair_cpu_read *out)
{
	struct req_mode *m = arg;
	struct prof_clock_read r;

	if (!prof_clock__read(m->clock, (uint64_t)tid, &r))
		return false;
	out->gen = r.gen;
	memcpy(out->t, r.t, sizeof(out->t));
	return true;
}

/* The pairing's role hook (pair__set_role): a thread that makes a client's
 * requests only is let go in the kernel (its waits are no request's), and
 * followed again once it serves. From a capture file the clock decides the
 * same at the same events; there is no driver to tell. */
static void on_role(void *arg, int64_t tid, bool server)
{
	struct req_mode *m = arg;
	int what = prof_clock__role(m->clock, (uint64_t)tid, server);

	if (what && m->prof_d && driver__prof_let_go(m->prof_d, (uint32_t)tid,
						       what == PROF_CLOCK_LET_GO))
		m->n_let_go_failed++;
}

void req_mode__profile_driver(struct req_mode *m, struct driver *d)
{
	m->prof_d = d;
}

int req_mode__profile(struct req_mode *m)
{
	if (m->clock)
		return 0;
	m->clock = prof_clock__new();
	if (!m->clock)
		return -ENOMEM;
	pair__set_clock(m->pair, on_clock, m);
	pair__set_role(m->pair, on_role, m);
	return 0;
}

/* B's slices into the recent ones, each on an fd named by the fd tables now,
 * before the thread's next syscall (a close) can take the name away: a hash
 * lookup per such slice, no syscall. */
static void recent__batch(struct req_mode *m, const struct prof_batch *b)
{
	const char *names[PROF_SLICES_MAX] = { 0 };
	struct thread_info *ti = thread_table__find(m->threads, (int64_t)b->tid);

	for (unsigned i = 0; ti && ti->fds && i < b->n; i++) {
		struct fd_info *fi;

		if (!(b->s[i].flags & PROF_SLICE_F_FD))
			continue;
		fi = fd_table__find(ti->fds, (int64_t)b->s[i].obj);
		names[i] = fi ? fi->name : NULL;
	}

	prof_recent__batch(m->recent, b, names);
}

/* A CPU_SLICES event: into its thread's clock, before the syscall events
 * that follow it cut a request. */
static void slices__event(struct req_mode *m, const struct ievt *ev)
{
	const struct schema_params *pp = &ev->params;
	struct prof_batch b;

	if (!m->clock)
		return;
	if (pp->n != 3 || prof_batch__decode(&b, ev->ts, pp->val[0], pp->len[0], pp->val[1],
					     pp->len[1], pp->val[2], pp->len[2])) {
		m->n_bad_batches++;
		return;
	}
	prof_clock__batch(m->clock, &b);
	if (m->recent)
		recent__batch(m, &b);
}

/* A CPU_SAMPLE event: its stack counted for its process, and kept with its
 * thread's recent ones for a slow request's timeline. */
static void sample__event(struct req_mode *m, const struct ievt *ev)
{
	const struct schema_params *pp = &ev->params;
	const struct thread_info *ti = ev->thread;
	uint64_t uips[PROF_STACK_FRAMES], kips[PROF_STACK_FRAMES];
	int64_t tid;
	int key, nu, nk;

	if (!m->stacks)
		return;
	if (pp->n != 3 || pp->len[0] != 8 || pp->len[1] % 8 || pp->len[2] % 8) {
		m->n_bad_samples++;
		return;
	}
	memcpy(&tid, pp->val[0], 8);
	nu = prof_stacks__decode(pp->val[1], pp->len[1], uips, PROF_STACK_FRAMES);
	nk = prof_stacks__decode(pp->val[2], pp->len[2], kips, PROF_STACK_FRAMES);
	key = prof_stacks__add(m->stacks, ti ? ti->pid : tid, ti ? ti->comm : "",
			       ti && ti->container ? ti->container->id : "", uips, nu, kips, nk);
	if (key >= 0 && m->recent)
		prof_recent__sample(m->recent, (uint64_t)tid, ev->ts, key);
}

void req_mode__profile_stacks(struct req_mode *m, struct prof_stacks *s)
{
	m->stacks = s;
}

int req_mode__profile_recent(struct req_mode *m)
{
	if (!m->clock)
		return -EINVAL;
	if (!m->recent)
		m->recent = prof_recent__new();
	return m->recent ? 0 : -ENOMEM;
}

const struct prof_recent *req_mode__recent(const struct req_mode *m)
{
	return m->recent;
}

void req_mode__free(struct req_mode *m)
{
	if (!m)
		return;
	prof_clock__free(m->clock);
	prof_recent__free(m->recent);
	pair__free(m->pair);
	free(m);
}

/* The socket's tuple for the pairing. TCP: as the fd table holds it. UDP:
 * this end first and the datagram's peer second, as the messages' tuples
 * gave them where they did (mlport, mrport), else from the fd table's tuple
 * (kept client -> server by sysdig's rules, which give a socket that never
 * connected its peer's port as its own once the answer comes). */
static void io__tuple(struct req_io *io, const struct fd_info *fd)
{
	io->family = fd->family;
	io->l4proto = fd->l4proto;
	if (fd->l4proto != IPPROTO_UDP) {
		io->accepted = fd->is_server;
		memcpy(io->sip, fd->sip, 16);
		memcpy(io->dip, fd->dip, 16);
		io->sport = fd->sport;
		io->dport = fd->dport;
		return;
	}
	memcpy(io->sip, fd->is_server ? fd->dip : fd->sip, 16);
	io->sport = fd->is_server ? fd->dport : fd->sport;
	memcpy(io->dip, fd->is_server ? fd->sip : fd->dip, 16);
	io->dport = fd->is_server ? fd->sport : fd->dport;
	if (fd->mlport) {
		memcpy(io->sip, fd->mlip, 16);
		io->sport = fd->mlport;
	}
	if (fd->mrport) {
		memcpy(io->dip, fd->mrip, 16);
		io->dport = fd->mrport;
	}
	memcpy(io->peer_ip, io->dip, 16);
	io->peer_port = io->dport;
	io->has_peer = io->dport != 0;
}

/* IO's time, process, fd, tuple and names from EV; false when EV's fd is no
 * IPv4 or IPv6 socket. */
static bool io__from(struct req_io *io, const struct ievt *ev)
{
	const struct fd_info *fd = ev->fd;

	if (!fd || (fd->type != FDT_IPV4_SOCK && fd->type != FDT_IPV6_SOCK) || !ev->thread)
		return false;
	io->ts = ev->ts;
	io->ts_enter = ev->latency && ev->latency < ev->ts ? ev->ts - ev->latency : ev->ts;
	io->pid = ev->thread->pid;
	io->tid = ev->tid;
	io->fd = ev->fdnum;
	io__tuple(io, fd);
	io->comm = ev->thread->comm;
	io->container = ev->thread->container;
	return true;
}

static void io__event(struct req_mode *m, const struct ievt *ev, uint16_t cat)
{
	struct req_io io = { 0 };
	uint8_t di = m->data_idx[ev->type];

	if (!io__from(&io, ev))
		return;
	io.dir = cat == EC_IO_READ ? REQ_DIR_IN : REQ_DIR_OUT;
	io.tls = ev->type == PPME_TLS_READ_X || ev->type == PPME_TLS_WRITE_X;
	io.len = (uint64_t)ev->res;
	if (di != 0xff && di < ev->params.n) {
		io.data = ev->params.val[di];
		io.data_len = ev->params.len[di];
		if (io.data_len > io.len)
			io.data_len = (uint32_t)io.len;
	}
	/* compact socket I/O carries the connection's TCP state (events.def) */
	if ((ev->type == PPME_SOCK_RECV_X || ev->type == PPME_SOCK_SEND_X) &&
	    io.l4proto == IPPROTO_TCP && ev->params.n > 5 && ev->params.len[4] == 4 &&
	    ev->params.len[5] == 4) {
		io.has_tcp = true;
		io.tcp_retrans = schema__u32(ev->params.val[4]);
		io.tcp_srtt_us = schema__u32(ev->params.val[5]);
	}
	pair__io(m->pair, &io);
}

/* Whether exiting thread TI is its process's last: the process's sockets
 * close with it. (A main thread that exited first stays in the table while
 * the others live.) */
static bool proc__last_thread(struct req_mode *m, const struct thread_info *ti)
{
	const struct thread_info *main = thread_table__main(m->threads, ti);
	uint32_t n = thread_table__nthreads(m->threads, main);

	return !main || n <= 1 || (n == 2 && main != ti && main->exited);
}

void req_mode__event(struct req_mode *m, const struct ievt *ev)
{
	const struct ppm_event_info *ei = ev->info;

	m->last_ts = ev->ts;
	m->n_events++;
	if (ev->ts >= m->next_expire) {
		if (m->next_expire)
			pair__expire(m->pair, ev->ts);
		m->next_expire = ev->ts + EXPIRE_EVERY_NS;
	}
	if (ev->type == PPME_CPU_SAMPLE_E) {
		sample__event(m, ev);
		return;
	}
	if (ev->type == PPME_CPU_SLICES_E) {
		slices__event(m, ev);
		return;
	}
	if ((ev->type == PPME_PROCEXIT_1_E || ev->type == PPME_PROCEXIT_E) && ev->thread) {
		if (m->clock)
			prof_clock__forget(m->clock, (uint64_t)ev->thread->tid);
		if (m->recent)
			prof_recent__forget(m->recent, (uint64_t)ev->thread->tid);
		if (proc__last_thread(m, ev->thread))
			pair__exit(m->pair, ev->thread->pid);
		return;
	}
	if (!ei || !PPME_IS_EXIT(ev->type) || !ev->has_res || !ev->thread)
		return;
	if ((ei->flags & EF_DESTROYS_FD) && ev->res == 0 && ev->fdnum >= 0) {
		/* the closed fd's entry (the inspector keeps it for this event) */
		struct req_io io = { .pid = ev->thread->pid, .fd = ev->fdnum };

		/* the number is another file's now: only a TCP connection the
		 * close ended is named apart from it, by its ends */
		if (ev->fd_reused && !(ev->fd && ev->fd->l4proto == IPPROTO_TCP))
			return;
		if (ev->fd)
			io__tuple(&io, ev->fd);
		pair__close(m->pair, &io);
		return;
	}
	/* a new fd on a number the pairing may still follow (by fd: UDP) */
	if ((ei->flags & EF_CREATES_FD) && ev->res >= 0) {
		struct req_io io = { .pid = ev->thread->pid, .fd = ev->res };

		pair__close(m->pair, &io);
		return;
	}
	/* a TCP client is followed from its connect, before its first write */
	if (ev->type == PPME_SOCKET_CONNECT_X && (ev->res == 0 || ev->res == -EINPROGRESS)) {
		struct req_io io = { 0 };

		if (io__from(&io, ev))
			pair__connect(m->pair, &io);
		return;
	}
	if (ev->res > 0 && (ei->category == EC_IO_READ || ei->category == EC_IO_WRITE))
		io__event(m, ev, ei->category);
}

/* Ticks without an event before the clock takes over from event times;
 * then requests are judged as of IDLE_LAG_NS ago, so an event still in the
 * rings (the reader's order window is 10 ms) is not overtaken. */
#define IDLE_TICKS 5
#define IDLE_LAG_NS 500000000ull

void req_mode__tick(struct req_mode *m, uint64_t now_ns)
{
	if (m->n_events != m->n_events_tick) {
		m->n_events_tick = m->n_events;
		m->idle_ticks = 0;
		return;
	}
	if (++m->idle_ticks < IDLE_TICKS || now_ns < IDLE_LAG_NS)
		return;
	if (now_ns - IDLE_LAG_NS > m->last_ts)
		pair__expire(m->pair, now_ns - IDLE_LAG_NS);
}

void req_mode__finish(struct req_mode *m)
{
	if (m->last_ts)
		pair__expire(m->pair, m->last_ts);
	pair__flush(m->pair);
}

void req_mode__counters(const struct req_mode *m, struct pair_counters *c)
{
	pair__counters(m->pair, c);
}

void req_mode__profile_counters(const struct req_mode *m, struct req_mode_profile *out)
{
	memset(out, 0, sizeof(*out));
	if (!m->clock)
		return;
	out->on = true;
	out->n_bad_batches = m->n_bad_batches;
	out->n_let_go_failed = m->n_let_go_failed;
	prof_clock__counters(m->clock, &out->clock);
}
