/* TCP health's records (the driver's TCP_CLOSE events, one per connection of
 * this host that ended): --tcp prints and filters them with tcp.* fields, and
 * with --metrics counts them per edge; --requests --metrics (unless --no-tcp)
 * counts them too, unfiltered, beside the requests (topology's agent_tcp_*). */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "agent.h"
#include "say.h"
#include "tcp_event.h"

/* The kernel sends the records and what names threads (the kernel plan adds
 * clone, exec and their kin); the filter's process tests narrow those. */
#define TCP_MODE_EVENTS "evt.type=tcpclose"

int agent__tcp_plan(struct agent *a, struct capture_live_opts *lo)
{
	int err = agent__mode_kplan(a, TCP_MODE_EVENTS, "TCP health");

	if (err)
		return err;
	lo->tcp = true;
	return 0;
}

/* --tcp --metrics: the TCP edges (request mode makes its own topology). */
int agent__tcp_open(struct agent *a)
{
	if (!a->o.tcp || !a->o.metrics)
		return 0;
	a->topo = topo__new(NULL);
	if (!a->topo) {
		agent__say("cannot set up the TCP metrics: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

/* The listening TCP sockets of the /proc scan, to the driver: their port's
 * process, for the connections accepted from them (the kernel learns only
 * the listens it sees happen). */
struct tcp_seed {
	struct driver *d;
	uint32_t netns;
	const struct thread_info *ti;
	const char *root;	/* HOST_ROOT, where the host's /proc is */
	unsigned n;
};

static int tcp__seed_fd(struct fd_info *fi, void *ctx)
{
	struct tcp_seed *s = ctx;
	static const uint8_t none[16];

	/* listening or only bound: (dip, dport) is its own address */
	if ((fi->type == FDT_IPV4_SOCK || fi->type == FDT_IPV6_SOCK) &&
	    fi->l4proto == IPPROTO_TCP && fi->is_server && fi->dport && !fi->sport &&
	    !memcmp(fi->sip, none, sizeof(none)) &&
	    !driver__tcp_listener(s->d, s->netns, fi->dport, (uint32_t)s->ti->pid, s->ti->comm))
		s->n++;
	return 0;
}

static int tcp__seed_thread(struct thread_info *ti, void *ctx)
{
	struct tcp_seed *s = ctx;
	char path[512];
	struct stat sb;
	int n;

	/* each process once, through its main thread's fd table */
	if (ti->tid != ti->pid || !ti->fds)
		return 0;
	n = snprintf(path, sizeof(path), "%s/proc/%" PRId64 "/ns/net", s->root, ti->pid);
	if (n < 0 || (size_t)n >= sizeof(path) || stat(path, &sb))
		return 0;
	s->netns = (uint32_t)sb.st_ino;
	s->ti = ti;
	fd_table__for_each(ti->fds, tcp__seed_fd, s);
	return 0;
}

/* Live, TCP health on: the listeners the /proc scan found. */
void agent__tcp_seed(struct agent *a)
{
	const char *root = getenv("HOST_ROOT");
	struct tcp_seed s = { .d = capture__driver(a->cap), .root = root ? root : "" };
	struct capture_stats st;

	if (!s.d || !a->in || capture__stats(a->cap, &st) || !st.tcp)
		return;
	inspector__for_each_thread(a->in, tcp__seed_thread, &s);
	if (a->o.verbose)
		agent__say("TCP health: %u listening ports of running processes named", s.n);
}

/* The local end's container, as the thread table knows the event's thread
 * (the connecting or listening process, while it runs); its name from the
 * table too, where the driver had none. */
static void tcp__local(struct tcp_record *r, const struct ievt *ev)
{
	struct req_end *e = r->side == REQ_SIDE_SERVER ? &r->server : &r->client;
	const struct thread_info *ti = e->pid ? ev->thread : NULL;

	if (!ti)
		return;
	if (!e->comm[0]) {
		memcpy(e->comm, ti->comm, sizeof(e->comm));
		e->comm[sizeof(e->comm) - 1] = 0;
	}
	e->container = ti->container;
}

/* One TCP_CLOSE event CEV, parsed as EV. 0, 1 once -n is reached, or -errno. */
int agent__tcp_event(struct agent *a, const struct ievt *ev, const struct capture_event *cev)
{
	struct tcp_record r;
	int err;

	if (tcp_record__decode(&r, &ev->params, ev->ts)) {
		a->tally.malformed++;
		return 0;
	}
	tcp__local(&r, ev);
	if (!a->o.tcp) {
		/* --requests: counted whatever the filter, which tests requests */
		if (a->topo && topo__add_tcp(a->topo, &r))
			a->tally.topo_errors++;
		return 0;
	}
	a->fctx.tcp = &r;
	if (a->flt && !filter__match(a->flt, ev, &a->fctx)) {
		a->fctx.tcp = NULL;
		if ((err = record__filtered(&a->rec, ev->type, cev)))
			a->reported = true;
		return err;
	}
	a->tally.matched++;
	if (a->topo && topo__add_tcp(a->topo, &r))
		a->tally.topo_errors++;
	if ((err = record__event(&a->rec, ev, cev))) {
		a->reported = true;
	} else if (a->outs.n) {
		err = agent__emit(a, ev);
	}
	a->fctx.tcp = NULL;
	return err ? err : agent__n_reached(a);
}
