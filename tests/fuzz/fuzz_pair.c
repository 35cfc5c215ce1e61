/* The pairing (userspace/requests/pair*.c) fed any sequence of socket I/O:
 * the input is a script of operations on four connections of two processes
 * (bytes in or out, TCP or UDP, captured whole or cut, a connect, a close, a
 * process's exit, the clock moving on). Besides ASan and UBSan: every record is consistent (its end
 * not before its start, durations and time to first byte from its times,
 * strings terminated, ids given, a parent only on a client's record and
 * begun before it), the table never holds more than its bound, what is handed
 * out plus what is still open never exceeds the requests begun, and no thread
 * is left serving a request once all are out. In
 * metrics-only mode every quiet end handed over (pair__set_quiet; every third
 * refused) is given back, once, by the end. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_rec.h"
#include "pair.h"

#define MAX_CONNS 3

static uint64_t n_records;

static void on_rec(void *ctx, const struct req_record *r)
{
	(void)ctx;
	n_records++;
	rec__check(r);
}

static int64_t n_held;		/* quiet ends handed over and not given back */
static uint64_t n_offers;

static int on_quiet(void *ctx, const struct pair_quiet_end *e, bool on)
{
	(void)ctx;
	if (e->family != 2 && e->family != 10)
		abort();
	if (!on) {
		if (--n_held < 0)
			abort();
		return 0;
	}
	if (++n_offers % 3 == 0)
		return -1;
	n_held++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the input's length picks the metrics-only mode half the time */
	struct pair_opts o = { .max_conns = MAX_CONNS, .timeout_ns = 1000,
			       .server_side_once = size & 1 };
	struct pairer *p = pair__new(&o, on_rec, NULL);
	struct pair_counters c;
	uint64_t ts = 1;
	size_t i = 0;

	if (!p)
		return 0;
	n_held = 0;
	pair__set_quiet(p, on_quiet, NULL);
	n_records = 0;
	while (i + 3 <= size) {
		uint8_t op = data[i], conn = op & 3;
		size_t len = data[i + 1] | (size_t)(data[i + 2] & 0x7) << 8;
		struct req_io io = { 0 };

		i += 3;
		if (len > size - i)
			len = size - i;
		ts += data[i - 1] >> 3;
		switch (op >> 5) {
		case 0: case 1: case 2: case 3: case 4:
			io.ts = ts;
			io.ts_enter = ts - (op & 4 ? 1 : 0);
			io.pid = 100 + (conn & 1);
			io.tid = io.pid;
			io.fd = conn;
			io.dir = op & 8 ? REQ_DIR_OUT : REQ_DIR_IN;
			io.family = 2;
			io.l4proto = (op >> 5) == 4 ? 17 : 6;
			io.accepted = op & 16;
			io.sip[0] = 127, io.sip[3] = 1, io.dip[0] = 127, io.dip[3] = 1;
			io.sport = (uint16_t)(40000 + (conn >> 1));
			io.dport = 80;
			io.has_peer = io.l4proto == 17 && (op & 4);
			io.peer_port = 53;
			io.data = data + i;
			io.data_len = (uint32_t)len;
			/* a cut capture: more bytes moved than were captured */
			io.len = len + ((op & 4) && io.l4proto == 6 ? data[i - 2] * 1000u : 0);
			io.comm = "fuzz";
			/* TLS plaintext or the socket's bytes, mixed on one
			 * connection (the time step's parity picks) */
			io.tls = (data[i - 1] >> 3) & 1;
			if (io.len)
				pair__io(p, &io);
			i += len;
			break;
		case 5:
			/* by fd, or (op bit 4) by the TCP tuple the ios above use */
			io.pid = 100 + (conn & 1);
			io.fd = conn;
			if (op & 16) {
				io.l4proto = 6;
				io.sip[0] = 127, io.sip[3] = 1, io.dip[0] = 127, io.dip[3] = 1;
				io.sport = (uint16_t)(40000 + (conn >> 1));
				io.dport = 80;
			}
			/* (op bit 3) or its connect() returned */
			if (op & 8) {
				/* (op bit 2) an IPv6 one, else IPv4 */
				io.family = op & 4 ? 10 : 2;
				io.comm = "fuzz";
				pair__connect(p, &io);
			} else {
				pair__close(p, &io);
			}
			break;
		case 6:
			ts += 2000;
			pair__expire(p, ts);
			break;
		default:
			/* one of the two processes exits */
			pair__exit(p, 100 + (conn & 1));
			break;
		}
		pair__counters(p, &c);
		if (c.n_conns > MAX_CONNS)
			abort();
	}
	pair__flush(p);
	pair__counters(p, &c);
	if (c.n_requests != n_records || c.n_conns || n_held || c.n_threads)
		abort();
	pair__free(p);
	return 0;
}
