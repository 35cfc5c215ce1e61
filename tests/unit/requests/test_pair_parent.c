/* req.id and req.parent: a client request a thread begins while it serves
 * one server request (read by that thread, its response not ended) names
 * that request; a thread serving several, or none, names none. */
#include "pair_check.h"

static const char http_get[] = "GET /front HTTP/1.1\r\nHost: h\r\n\r\n";
static const char http_ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
static const char redis_get[] = "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n";
static const char redis_val[] = "$1\r\nv\r\n";

/* Process 100's thread T: the server socket of a front end (client
 * 10.0.0.1:PORT) and its client socket to Redis (10.0.0.1:50000+PORT ->
 * 10.0.0.2:6379). */
static struct req_io front(int64_t tid, uint16_t port)
{
	struct req_io io = tcp(100, 5 + port % 100, true, port, 80);

	io.tid = tid;
	return io;
}

static struct req_io backend(int64_t tid, uint16_t port)
{
	struct req_io io = tcp(100, 200 + port % 100, false, (uint16_t)(50000 + port % 1000), 6379);

	io.tid = tid;
	return io;
}

static const struct req_record *find(int side, const char *method)
{
	for (int i = 0; i < nrec && i < MAXREC; i++)
		if (recs[i].side == side && !strcmp(recs[i].method, method))
			return &recs[i];
	return NULL;
}

/* One request served by a thread that calls Redis twice meanwhile. */
static void test_downstream(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = front(101, 40000), b = backend(101, 40000);
	const struct req_record *srv, *c1;
	struct pair_counters pc;

	IN(p, s, 1000, http_get);
	OUT(p, b, 1100, redis_get);
	IN(p, b, 1200, redis_val);
	OUT(p, b, 1300, "*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n");
	IN(p, b, 1400, ":1\r\n");
	OUT(p, s, 1500, http_ok);
	CHECK_INT(nrec, 3);
	srv = find(REQ_SIDE_SERVER, "GET");
	c1 = find(REQ_SIDE_CLIENT, "GET");
	CHECK(srv && c1 && find(REQ_SIDE_CLIENT, "DEL"));
	if (!srv || !c1 || !find(REQ_SIDE_CLIENT, "DEL"))
		goto out;
	CHECK(srv->id != 0 && c1->id != 0 && c1->id != srv->id);
	CHECK_INT(srv->parent, 0);
	CHECK_EQ(c1->parent, srv->id);
	CHECK_EQ(find(REQ_SIDE_CLIENT, "DEL")->parent, srv->id);
	/* ids in the order requests began: the server's first */
	CHECK(srv->id < c1->id && c1->id < find(REQ_SIDE_CLIENT, "DEL")->id);
	/* its response ended: the thread serves nothing, a later call has none */
	OUT(p, b, 1600, redis_get);
	IN(p, b, 1700, redis_val);
	CHECK_INT(nrec, 4);
	CHECK_INT(recs[3].parent, 0);
	/* another thread of the process: not its call */
	IN(p, s, 2000, http_get);
	OUT(p, backend(102, 40001), 2100, redis_get);
	IN(p, backend(102, 40001), 2200, redis_val);
	CHECK_INT(nrec, 5);
	CHECK_INT(recs[4].parent, 0);
	OUT(p, s, 2300, http_ok);
	pair__counters(p, &pc);
	CHECK_INT(pc.n_parent_unknown, 0);
out:
	pair__free(p);
}

/* A thread serving two connections at once (an event loop): its calls name
 * no parent, counted; once one is answered, the other is the parent again. */
static void test_two_in_flight(void)
{
	struct pairer *p = fresh(0);
	struct req_io s1 = front(201, 41001), s2 = front(201, 41002), b = backend(201, 41001);
	struct pair_counters pc;
	uint64_t second = 0;

	IN(p, s1, 1000, http_get);
	IN(p, s2, 1010, "GET /second HTTP/1.1\r\n\r\n");
	OUT(p, b, 1100, redis_get);
	IN(p, b, 1200, redis_val);
	CHECK_INT(nrec, 1);
	CHECK_INT(recs[0].parent, 0);
	pair__counters(p, &pc);
	CHECK_INT(pc.n_parent_unknown, 1);
	OUT(p, s1, 1300, http_ok);
	OUT(p, b, 1400, redis_get);
	IN(p, b, 1500, redis_val);
	OUT(p, s2, 1600, http_ok);
	CHECK_INT(nrec, 4);
	for (int i = 0; i < nrec; i++)
		if (recs[i].side == REQ_SIDE_SERVER && !strcmp(recs[i].target, "/second"))
			second = recs[i].id;
	CHECK(second != 0);
	CHECK_EQ(recs[2].parent, second);
	CHECK_INT(recs[2].side, REQ_SIDE_CLIENT);
	pair__free(p);
}

/* A server request that ends without its response (closed, timed out,
 * flushed unanswered) no longer holds its thread. */
static void test_released(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = front(301, 42000), b = backend(301, 42000);

	IN(p, s, 1000, http_get);
	pair__close(p, &s);			/* aborted: no response */
	OUT(p, b, 1100, redis_get);
	IN(p, b, 1200, redis_val);
	CHECK_INT(nrec, 2);
	CHECK(recs[0].aborted && recs[1].parent == 0);
	IN(p, s, 2000, http_get);
	pair__expire(p, 2000 + 20000000000ull);	/* timed out */
	OUT(p, b, 20000002100ull, redis_get);
	IN(p, b, 20000002200ull, redis_val);
	CHECK_INT(nrec, 4);
	CHECK(recs[2].timed_out && recs[3].parent == 0);
	IN(p, s, 30000000000ull, http_get);
	pair__flush(p);				/* unanswered at the end */
	pair__free(p);
	/* a DNS query a serving thread sends has the parent too */
	p = fresh(0);
	{
		struct req_io d = { .pid = 100, .tid = 401, .fd = 9, .family = 2, .l4proto = 17,
				    .has_peer = true, .comm = "front" };
		static const uint8_t q[] = { 0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0,
					     1, 'a', 0, 0, 1, 0, 1 };
		uint8_t r[sizeof(q)];

		memcpy(r, q, sizeof(q));
		r[2] = 0x81, r[3] = 0x80;
		inet_pton(AF_INET, "10.0.0.1", d.sip);
		d.sport = 33333;
		inet_pton(AF_INET, "10.0.0.3", d.peer_ip);
		d.peer_port = 53;
		s = front(401, 43000);
		IN(p, s, 1000, http_get);
		io_do(p, d, REQ_DIR_OUT, 1100, 0, (const char *)q, sizeof(q), 0);
		io_do(p, d, REQ_DIR_IN, 1200, 0, (const char *)r, sizeof(r), 0);
		OUT(p, s, 1300, http_ok);
		CHECK_INT(nrec, 2);
		CHECK_INT(recs[0].proto, REQ_PROTO_DNS);
		CHECK_INT(recs[0].side, REQ_SIDE_CLIENT);
		CHECK_EQ(recs[0].parent, recs[1].id);
	}
	pair__free(p);
}

/* Past PAIR_THREADS * 3/4 serving threads, the rest are not followed and
 * their calls have no parent (counted); one leaving makes room. */
static void test_threads_full(void)
{
	struct pairer *p = fresh(0);
	struct pair_counters pc;
	uint32_t cap = PAIR_THREADS / 4 * 3;

	for (uint32_t t = 0; t <= cap; t++)
		IN(p, front(1000 + t, (uint16_t)(1000 + t)), 1000, http_get);
	pair__counters(p, &pc);
	CHECK_INT(pc.n_threads_full, 1);
	CHECK_INT(pc.n_threads, cap);
	OUT(p, backend(1000 + cap, 1), 1100, redis_get);
	IN(p, backend(1000 + cap, 1), 1200, redis_val);
	CHECK_INT(nrec, 1);
	CHECK_INT(recs[0].parent, 0);
	/* each of the others still names its own */
	OUT(p, backend(1000, 2), 1300, redis_get);
	IN(p, backend(1000, 2), 1400, redis_val);
	CHECK_INT(nrec, 2);
	CHECK(recs[1].parent != 0);
	/* all answered: the table empties (a new thread is followed again) */
	for (uint32_t t = 0; t <= cap; t++)
		OUT(p, front(1000 + t, (uint16_t)(1000 + t)), 1500, http_ok);
	nrec = 0;
	IN(p, front(9999, 9999), 1600, http_get);
	OUT(p, backend(9999, 3), 1700, redis_get);
	IN(p, backend(9999, 3), 1800, redis_val);
	pair__counters(p, &pc);
	CHECK_INT(pc.n_threads_full, 1);
	CHECK_INT(pc.n_threads, 1);
	CHECK_INT(nrec, 1);
	CHECK(recs[0].parent != 0);
	OUT(p, front(9999, 9999), 1900, http_ok);
	pair__counters(p, &pc);
	CHECK_INT(pc.n_threads, 0);
	pair__free(p);
}

/* A process connected to itself (nginx proxying to one of its own server
 * blocks): the client end (connected) and the server end (accepted) have one
 * tuple, client -> server, in one process, and are two connections: a PUT
 * written in pieces on one, read on the other, answered 201 back. */
static void test_self_call(void)
{
	struct pairer *p = fresh(0);
	struct req_io s = front(501, 44000), c = tcp(100, 12, false, 49660, 19082),
		      b = tcp(100, 13, true, 49660, 19082);
	static const char put[] = "PUT /upload/z.bin HTTP/1.0\r\nHost: x\r\nContent-Length: 16\r\n\r\n";
	static const char created[] = "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n";
	const struct req_record *cl = NULL, *sv = NULL, *fr = NULL;

	c.tid = b.tid = 501;
	IN(p, s, 1000, "POST /upload/z.bin HTTP/1.1\r\nContent-Length: 16\r\n\r\n0123456789abcdef");
	OUT(p, c, 1100, put);
	OUT(p, c, 1110, "01234567");
	IN(p, b, 1120, put);
	OUT(p, c, 1130, "89abcdef");
	IN(p, b, 1140, "0123456789abcdef");
	OUT(p, b, 1200, created);
	IN(p, c, 1210, created);
	OUT(p, s, 1300, created);
	CHECK_INT(nrec, 3);
	for (int i = 0; i < nrec && i < MAXREC; i++) {
		if (recs[i].side == REQ_SIDE_CLIENT)
			cl = &recs[i];
		else if (recs[i].server.port == 19082)
			sv = &recs[i];
		else
			fr = &recs[i];
	}
	CHECK(cl && sv && fr);
	if (!cl || !sv || !fr)
		goto out;
	CHECK_STR(cl->method, "PUT");
	CHECK_INT(cl->status, 201);
	CHECK_INT(cl->req_bytes, strlen(put) + 16);
	CHECK_STR(sv->method, "PUT");
	CHECK_INT(sv->status, 201);
	CHECK_INT(sv->req_bytes, strlen(put) + 16);
	CHECK(cl->both_sides && sv->both_sides && cl->conn_id != sv->conn_id);
	CHECK_EQ(cl->parent, fr->id);
	CHECK_INT(sv->parent, 0);
	CHECK(sv->duration <= cl->duration);
	pair__close(p, &c);
	pair__close(p, &b);
	CHECK_INT(nrec, 3);
out:
	pair__free(p);
}

int main(void)
{
	test_self_call();
	test_downstream();
	test_two_in_flight();
	test_released();
	test_threads_full();
	return t_report();
}
