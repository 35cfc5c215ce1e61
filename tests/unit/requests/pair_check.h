/* What the pairing's tests share: a pairer whose records are kept in RECS,
 * TCP sockets of both sides, and one syscall's bytes fed to it. */
#ifndef UNIT_PAIR_CHECK_H
#define UNIT_PAIR_CHECK_H

#include <arpa/inet.h>
#include <string.h>

#include "pair.h"
#include "t_check.h"

#define MAXREC 512
static struct req_record recs[MAXREC];
static int nrec;

static void on_rec(void *ctx, const struct req_record *r)
{
	(void)ctx;
	if (nrec < MAXREC)
		recs[nrec] = *r;
	nrec++;
}

static struct pairer *fresh(uint32_t max_conns)
{
	struct pair_opts o = { .max_conns = max_conns, .timeout_ns = 10000000000ull };

	nrec = 0;
	memset(recs, 0, sizeof(recs));
	return pair__new(&o, on_rec, NULL);
}

/* A TCP socket of process PID: ACCEPTED server (client 10.0.0.1:40000 ->
 * 10.0.0.2:80) or, with !accepted, the client's own connected socket. */
static struct req_io tcp(int64_t pid, int64_t fd, bool accepted, uint16_t cport, uint16_t sport)
{
	struct req_io io = { .pid = pid, .tid = pid, .fd = fd, .family = 2, .l4proto = 6,
			     .accepted = accepted, .comm = accepted ? "srv" : "cli" };

	inet_pton(AF_INET, "10.0.0.1", io.sip);
	inet_pton(AF_INET, "10.0.0.2", io.dip);
	io.sport = cport;
	io.dport = sport;
	return io;
}

static void io_do(struct pairer *p, struct req_io io, uint8_t dir, uint64_t ts, uint64_t ts_enter,
		  const char *data, size_t dlen, uint64_t len)
{
	io.dir = dir;
	io.ts = ts;
	io.ts_enter = ts_enter ? ts_enter : ts;
	io.data = (const uint8_t *)data;
	io.data_len = (uint32_t)dlen;
	io.len = len ? len : dlen;
	CHECK_INT(pair__io(p, &io), 0);
}

/* One syscall moving N bytes from AT, CAP of them captured. */
static inline void io_bin(struct pairer *p, struct req_io io, uint8_t dir, uint64_t ts,
			  const uint8_t *at, size_t n, size_t cap)
{
	io_do(p, io, dir, ts, 0, (const char *)at, cap < n ? cap : n, n);
}

#define IN(p, io, ts, s) io_do(p, io, REQ_DIR_IN, ts, 0, s, strlen(s), 0)
#define OUT(p, io, ts, s) io_do(p, io, REQ_DIR_OUT, ts, 0, s, strlen(s), 0)

#endif
