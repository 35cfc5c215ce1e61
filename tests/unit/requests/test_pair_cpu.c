/* Profiling's breakdown of server requests (pair__set_clock): the reading
 * thread's clock read at the request's first read and at each write of its
 * response, the difference in the record and the rest of the duration on
 * CPU; none for client records, a response written by another thread, a
 * clock that lost time, a thread not followed, or a timed-out request. */
#include "pair_check.h"

/* The clocks the pairing reads: per thread (tid 1..7), its generation and
 * counts; tid 7 is not followed. */
static struct pair_cpu_read clk[8];
static int reads;

static bool on_clock(void *ctx, int64_t tid, struct pair_cpu_read *out)
{
	(void)ctx;
	reads++;
	if (tid < 1 || tid > 6)
		return false;
	*out = clk[tid];
	return true;
}

static const char get[] = "GET /x HTTP/1.1\r\nHost: h\r\n\r\n";
static const char ok_head[] = "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n";

static struct req_io srv(int64_t tid, uint16_t port)
{
	struct req_io io = tcp(100, port % 100 + 3, true, port, 80);

	io.tid = tid;
	return io;
}

static struct pairer *fresh_clock(void)
{
	struct pairer *p = fresh(0);

	memset(clk, 0, sizeof(clk));
	for (int i = 0; i < 8; i++)
		clk[i].gen = 1;
	reads = 0;
	pair__set_clock(p, on_clock, NULL);
	return p;
}

/* Time before the request, within it (two writes of the response) and after
 * it: only what lies between the first read and the last write counts. */
static void test_breakdown(void)
{
	struct pairer *p = fresh_clock();
	struct req_io s = srv(1, 40000);
	struct pair_counters pc;

	clk[1].t[REQ_CPU_POLL] = 500;		/* before: its wait for the request */
	IN(p, s, 10000, get);
	clk[1].t[REQ_CPU_LOCK] += 2000;
	clk[1].t[REQ_CPU_RUNQ] += 300;
	clk[1].t[REQ_CPU_SLEEP] += 1000;
	OUT(p, s, 14000, ok_head);
	clk[1].t[REQ_CPU_FILE] += 700;
	clk[1].t[REQ_CPU_NET] += 50;
	OUT(p, s, 15000, "body");
	clk[1].t[REQ_CPU_POLL] += 9999;	/* after: back in its loop */
	IN(p, s, 30000, get);			/* the next request ends nothing late */
	CHECK_INT(nrec, 1);
	if (nrec < 1)
		goto out;
	CHECK(recs[0].has_cpu);
	CHECK_INT(recs[0].duration, 5000);
	CHECK_INT(recs[0].cpu[REQ_CPU_LOCK], 2000);
	CHECK_INT(recs[0].cpu[REQ_CPU_RUNQ], 300);
	CHECK_INT(recs[0].cpu[REQ_CPU_SLEEP], 1000);
	CHECK_INT(recs[0].cpu[REQ_CPU_FILE], 700);
	CHECK_INT(recs[0].cpu[REQ_CPU_NET], 50);
	CHECK_INT(recs[0].cpu[REQ_CPU_POLL], 0);
	CHECK_INT(recs[0].cpu[REQ_CPU_OTHER], 0);
	CHECK_INT(recs[0].oncpu, 5000 - 4050);
	pair__counters(p, &pc);
	CHECK_INT(pc.n_cpu_unfollowed + pc.n_cpu_handed + pc.n_cpu_gap, 0);
out:
	pair__free(p);
}

/* A client's records have none (its thread's time is not cut at the
 * server's syscalls), and the clock is not read for them. */
static void test_client_none(void)
{
	struct pairer *p = fresh_clock();
	struct req_io c = tcp(200, 9, false, 41000, 80);

	c.tid = 2;
	OUT(p, c, 1000, get);
	IN(p, c, 2000, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
	CHECK_INT(nrec, 1);
	CHECK(nrec >= 1 && !recs[0].has_cpu && recs[0].side == REQ_SIDE_CLIENT);
	CHECK_INT(reads, 0);
	pair__free(p);
}

/* No breakdown, each counted: another thread wrote the response; the clock
 * lost time (its generation changed); the thread is not followed. */
static void test_none_counted(void)
{
	struct pairer *p = fresh_clock();
	struct req_io a = srv(3, 42001), b = srv(4, 42002), u = srv(7, 42003), w = srv(5, 42001);
	struct pair_counters pc;

	IN(p, a, 1000, get);
	OUT(p, w, 2000, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
	IN(p, b, 3000, get);
	clk[4].gen++;
	OUT(p, b, 4000, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
	IN(p, u, 5000, get);
	OUT(p, u, 6000, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
	CHECK_INT(nrec, 3);
	for (int i = 0; i < nrec && i < MAXREC; i++)
		CHECK(!recs[i].has_cpu);
	pair__counters(p, &pc);
	CHECK_INT(pc.n_cpu_handed, 1);
	CHECK_INT(pc.n_cpu_gap, 1);
	CHECK_INT(pc.n_cpu_unfollowed, 1);
	pair__free(p);
}

/* A request that times out has no write to cut at: no breakdown. */
static void test_timeout_none(void)
{
	struct pairer *p = fresh_clock();
	struct req_io s = srv(6, 43000);

	IN(p, s, 1000, get);
	pair__expire(p, 1000 + 20000000000ull);
	CHECK_INT(nrec, 1);
	CHECK(nrec >= 1 && recs[0].timed_out && !recs[0].has_cpu);
	pair__free(p);
}

int main(void)
{
	test_breakdown();
	test_client_none();
	test_none_counted();
	test_timeout_none();
	return t_report();
}
