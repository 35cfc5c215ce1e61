/* TCP health's table when it is full (driver_config.tcp_conns): with room
 * for 8 connection ends, 20 loopback connections held open at once (40
 * ends, each begun while the table may be full) are closed. Each end is
 * either sent, once, as a TCP_CLOSE event when its socket goes, or counted
 * in n_tcp_untracked: never both, never neither. So the events of the
 * test's connections (found by their tuples) plus the count's growth are
 * exactly 40, when no other connection of this host's network namespace
 * began meanwhile (/proc/net/snmp's opens say so; one that began took a
 * slot or was counted too: then at least 40), and no more than 8 were
 * sent. A connection ended frees its slot: a second round of 20 is kept
 * the same way.
 *
 * Loopback ends its connections within the closes unless its packets wait
 * for ksoftirqd or one is lost (then a retransmission ends them, 0.2 s and
 * more later): the ends are awaited until all are accounted for, for up to
 * 10 s, and the round's sockets still in /proc/net/tcp are shown if not.
 *
 * A softirq's socket work over a process's on one CPU makes the kernel skip
 * the nested run of a program (tcp.bpf.c's pairs make it up): such runs are
 * printed, and the counts must hold with them. */
#include <inttypes.h>
#include <sys/socket.h>

#include "procnet/pn_test.h"

#define ROOM 8
#define CONNS 20

/* ActiveOpens + PassiveOpens of this network namespace, or -1 */
static long snmp_opens(void)
{
	char buf[8192], *names, *vals, *sn, *sv;
	long got = 0, n = 0;

	if (pn_read_file("/proc/net/snmp", buf, sizeof(buf)) <= 0 || !(names = strstr(buf, "\nTcp: ")) ||
	    !(vals = strstr(names + 1, "\nTcp: ")))
		return -1;
	names += 6;
	vals += 6;
	for (char *a = strtok_r(names, " \n", &sn), *b = strtok_r(vals, " \n", &sv);
	     a && b && strcmp(a, "Tcp:"); a = strtok_r(NULL, " \n", &sn), b = strtok_r(NULL, " \n", &sv))
		if (!strcmp(a, "ActiveOpens") || !strcmp(a, "PassiveOpens")) {
			n += atol(b);
			got++;
		}
	return got == 2 ? n : -1;
}

/* How many TCP_CLOSE events in the rings now are of the test's N tuples. */
static int round__sent(struct harness *h, uint8_t tup[][64], const size_t *tlen, int n)
{
	int sent = 0;

	harness__drain(h, -1);
	for (int k = 0; k < harness__count(h); k++) {
		struct hevt *e = harness__get(h, k);

		if (e->hdr.type != PPME_TCP_CLOSE_E || e->p.n <= 13)
			continue;
		for (int i = 0; i < n; i++)
			if (e->p.len[13] == tlen[i] && !memcmp(e->p.val[13], tup[i], tlen[i])) {
				sent++;
				break;
			}
	}
	return sent;
}

/* The lines of /proc/net/tcp with PORT at either end, on stderr. */
static void round__show(uint16_t port)
{
	char buf[65536], key[8], *save;

	snprintf(key, sizeof(key), ":%04X ", port);
	pn_read_file("/proc/net/tcp", buf, sizeof(buf));
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (strstr(l, key))
			fprintf(stderr, "   left: %s\n", l);
}

static void round__run(struct harness *h, int round)
{
	struct sockaddr_in a = pn_in4("127.0.0.1", 0);
	socklen_t alen = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0), cli[CONNS], srv[CONNS], sent = 0;
	uint8_t tup[CONNS][64];
	size_t tlen[CONNS];
	struct driver_counters c0 = { 0 }, c1 = { 0 };
	long opens0, opens1, others, untracked;
	uint64_t paired0, paired1, lost0, lost1;
	bool got = false;

	harness__drain(h, -1);
	EXPECT(driver__counters(harness__driver(h), NULL, 0, &c0) > 0);
	EXPECT(!driver__skipped(harness__driver(h), &paired0, &lost0));
	opens0 = snmp_opens();
	EXPECT(l >= 0 && !bind(l, (void *)&a, alen) && !listen(l, CONNS) &&
	       !getsockname(l, (void *)&a, &alen));
	for (int i = 0; i < CONNS; i++) {
		cli[i] = socket(AF_INET, SOCK_STREAM, 0);
		EXPECT(cli[i] >= 0 && !connect(cli[i], (void *)&a, alen));
		srv[i] = accept(l, NULL, NULL);
		EXPECT(srv[i] >= 0);
		/* client to server, as the event writes it */
		tlen[i] = pn_fd_tuple(tup[i], cli[i], 1);
	}
	for (int i = 0; i < CONNS; i++)
		close(cli[i]);
	for (int i = 0; i < CONNS; i++)
		close(srv[i]);
	close(l);
	/* each end is sent when its socket goes: awaited, bounded */
	for (int t = 0; t < 500; t++) {
		sent += round__sent(h, tup, tlen, CONNS);
		got = driver__counters(harness__driver(h), NULL, 0, &c1) > 0;
		if (!got || sent + (long)(c1.n_tcp_untracked - c0.n_tcp_untracked) >= 2 * CONNS)
			break;
		usleep(20000);
	}
	EXPECT(got);
	EXPECT(!driver__skipped(harness__driver(h), &paired1, &lost1));
	opens1 = snmp_opens();
	untracked = (long)(c1.n_tcp_untracked - c0.n_tcp_untracked);
	others = opens0 < 0 || opens1 < 0 ? -1 : opens1 - opens0 - 2 * CONNS;
	fprintf(stderr, "  round %d: %d ends sent, %ld counted untracked; %ld other "
		"connections of the namespace began meanwhile; %" PRIu64 " runs the kernel "
		"skipped as nested, made by their pair (%" PRIu64 " of unpaired programs)\n",
		round, sent, untracked, others, paired1 - paired0, lost1 - lost0);
	EXPECT(opens0 >= 0 && opens1 >= 0 && others >= 0);
	EXPECT(sent > 0 && sent <= ROOM);
	EXPECT(sent + untracked >= 2 * CONNS);
	if (sent + untracked < 2 * CONNS)
		round__show(ntohs(a.sin_port));
	if (others == 0)
		EXPECT(sent + untracked == 2 * CONNS);
	EXPECT(harness__lost(h) == 0);
}

int main(void)
{
	struct driver_config cfg = pn_capture_self;
	struct harness *h;

	cfg.syscalls = harness__only((const int[]){ SYS_close, -1 });
	cfg.tcp = true;
	cfg.tcp_conns = ROOM;
	alarm(60);
	h = harness__open(64, &cfg);
	round__run(h, 1);
	round__run(h, 2);
	harness__close(h);
	return harness__report("tcp_table");
}
