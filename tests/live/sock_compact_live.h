/* Checks shared by the live tests of request mode's compact socket I/O
 * (test_sock_compact.c, test_sock_mmsg.c). Header-only: each test is one
 * program. */
#ifndef SOCK_COMPACT_LIVE_H
#define SOCK_COMPACT_LIVE_H

#include <netinet/tcp.h>
#include <time.h>

#include "procnet/pn_test.h"

/* The next kept event is compact event TYPE (SOCK_RECV_X, SOCK_SEND_X) of
 * thread TID's syscall NR on FD that moved RES bytes, DATA (LEN of them)
 * captured, the socket's TCP state (retransmits up to its TCP_INFO count now
 * and an srtt measured, or 0 and 0 on another protocol) and TUPLE (TLEN
 * bytes; none: empty). */
static inline void sock_compact__expect_tuple(struct harness *h, int *at, uint16_t type, long nr,
					      int fd, int64_t res, const void *data, size_t len,
					      int64_t tid, const void *tuple, size_t tlen)
{
	struct hevt *e = *at < harness__count(h) ? harness__get(h, *at) : NULL;
	struct tcp_info ti;
	socklen_t tl = sizeof(ti);

	EXPECT(e && e->hdr.type == type);
	if (!e || e->hdr.type != type) {
		fprintf(stderr, "  want compact event %u (syscall %ld) at %d of %d, got %d\n",
			type, nr, *at, harness__count(h), e ? e->hdr.type : -1);
		return;
	}
	hevt__expect_header(e, type, tid);
	EXPECT(!e->rebuilt);
	EXPECT_PARAM_INT(e, 0, res);
	EXPECT_PARAM_INT(e, 1, fd);
	EXPECT_PARAM_INT(e, 2, nr);
	EXPECT_PARAM_BYTES(e, 3, data, len);
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &tl) == 0) {
		EXPECT(hevt__int(e, 4) >= 0 && hevt__int(e, 4) <= ti.tcpi_total_retrans);
		EXPECT(hevt__int(e, 5) > 0 && hevt__int(e, 5) < 1000000);
	} else {
		EXPECT_PARAM_INT(e, 4, 0);
		EXPECT_PARAM_INT(e, 5, 0);
	}
	if (tlen)
		EXPECT_PARAM_BYTES(e, 6, tuple, tlen);
	else
		EXPECT_PARAM_EMPTY(e, 6);
	EXPECT(e->p.n == 7);
	(*at)++;
}

/* The same, with no tuple: a call on the fd's own peer. */
static inline void sock_compact__expect(struct harness *h, int *at, uint16_t type, long nr,
					int fd, int64_t res, const void *data, size_t len,
					int64_t tid)
{
	sock_compact__expect_tuple(h, at, type, nr, fd, res, data, len, tid, NULL, 0);
}

/* The wall clock, in the frames' unit. */
static inline uint64_t sock_compact__now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* RUN(ARG), and thread TID's events of it kept in H: the driver's counters
 * before (C0) and after (C1); each event timed within the run (a second's
 * slack for the clocks' offsets). */
static inline void sock_compact__run(struct harness *h, void (*run)(void *), void *arg,
				     struct driver_counters *c0, struct driver_counters *c1,
				     int64_t tid)
{
	uint64_t t0, t1;

	harness__drain(h, -1);
	EXPECT(driver__counters(harness__driver(h), NULL, 0, c0) > 0);
	t0 = sock_compact__now();
	run(arg);
	t1 = sock_compact__now();
	EXPECT(driver__counters(harness__driver(h), NULL, 0, c1) > 0);
	harness__drain(h, tid);
	for (int i = 0; i < harness__count(h); i++)
		EXPECT(harness__get(h, i)->hdr.ts + 1000000000ull >= t0 &&
		       harness__get(h, i)->hdr.ts <= t1 + 1000000000ull);
}

#endif
