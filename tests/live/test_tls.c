/* Request mode's TLS probes (driver_config.tls, driver/tls.bpf.c): one TCP
 * connection over 127.0.0.1 between an OpenSSL server (its own thread) and a
 * GnuTLS client (the main thread), with a self-signed certificate made in
 * memory, so that one exchange goes through both libraries' probed calls:
 * SSL_read_ex, SSL_write, SSL_write_ex, SSL_read on one end,
 * gnutls_record_send and gnutls_record_recv on the other.
 * - driver__configure refuses tls without exit_only (-EINVAL), in every
 *   suite; the rest runs with exit_only forced on (the suites without it
 *   still vary the engine);
 * - driver__tls_attach on the libssl and libgnutls files this process maps
 *   returns 0; the wrong library for a file (-ENOENT) or an unknown one
 *   (-EINVAL) leaves no probe behind (driver__tls_files and this process's
 *   perf event fds unchanged);
 * - the handshake's socket I/O (no probed call) arrives as plain events;
 * - in a round, each end's thread gets exactly one TLS_READ or TLS_WRITE pair
 *   per call, in call order, both frames in one ring record with one stamp
 *   inside the round: fd the end's socket, size what the call asked for, res
 *   the bytes moved, data their first snaplen bytes (80, then 512); the second
 *   of two 150-byte gnutls_record_recv calls of one 300-byte record makes no
 *   syscall and takes its session's socket; no plain socket I/O event of
 *   either thread arrives, n_tls_cipher grows by at least one per record
 *   written and one per record read, n_tls_nofd does not grow;
 * - with capture off a round sends nothing and counts nothing;
 * - a fresh session whose first probed call is served from GnuTLS's buffer
 *   (its record read with capture off) has no socket to name: nothing sent,
 *   n_tls_nofd + 1; its next call makes a syscall and is sent;
 * - sessions over memory BIOs (BIO_new_bio_pair, as gRPC's C-core runs
 *   them: the test moves each end's ciphertext over its socket itself, right
 *   after each call): the handshake (SSL_do_handshake) names both sessions
 *   by each end's first send (n_tls_claimed + 2); that send and the socket
 *   I/O before it arrive as plain events, every later socket syscall of the
 *   two ends is kept (n_tls_cipher grows by exactly their count), and each
 *   data call is one TLS_READ or TLS_WRITE pair on its end's socket; a second
 *   pair of sessions, after the first freed and its sockets closed, is named
 *   afresh;
 * - a memory BIO session whose write's ciphertext is sent only after
 *   TLS_CLAIM_NS is not named: the write on no socket (n_tls_nofd), its send
 *   and the peer's reads plain; its next write, sent at once, names it;
 * - driver__detach takes the probes off (driver__tls_files 0, their perf
 *   event fds closed). */
#include <dirent.h>
#include <pthread.h>
#include <time.h>

#include <gnutls/gnutls.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "procnet/pn_test.h"
#include "tls_live.h"

static const int tls_calls[] = {
	SYS_read, SYS_write, SYS_recvfrom, SYS_sendto, SYS_readv, SYS_writev,
	SYS_recvmsg, SYS_sendmsg, SYS_close, -1,
};

#define MASK_NET ((1u << PPM_AF_INET) | (1u << PPM_AF_INET6))
#define SNAPLEN 80
#define SNAPLEN_BIG 512
#define BIG 16384		/* the buffer a read call offers */
#define REQ_LEN 100
#define RESP_LEN 300
#define HALF (RESP_LEN / 2)
#define TAIL_LEN 64
#define BYE_LEN 40
#define LARGE_LEN 1000		/* more than SNAPLEN_BIG: its data cut */
/* records a round moves: request, response, tail, bye */
#define ROUND_RECORDS 4
#define MAX_CALLS 8

static char req[REQ_LEN], resp[RESP_LEN], tail[TAIL_LEN], bye[BYE_LEN], large[LARGE_LEN];

static void die(const char *what)
{
	fprintf(stderr, "%s failed\n", what);
	ERR_print_errors_fp(stderr);
	exit(1);
}

/* The path of the mapped library file whose name starts with PREFIX (as
 * "libssl.so."), from /proc/self/maps. 0 or -ENOENT. */
static int lib__path(const char *prefix, char *out, size_t size)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 128];
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (err && fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/'), *base;

		if (!path)
			continue;
		path[strcspn(path, "\n")] = 0;
		base = strrchr(path, '/') + 1;
		if (!strncmp(base, prefix, strlen(prefix))) {
			snprintf(out, size, "%s", path);
			err = 0;
		}
	}
	fclose(f);
	return err;
}

/* A self-signed P-256 certificate for "localhost" and its key, in memory. */
static void cert__make(EVP_PKEY **key, X509 **crt)
{
	X509_NAME *name;

	*key = EVP_EC_gen("P-256");
	*crt = X509_new();
	if (!*key || !*crt)
		die("key");
	name = X509_get_subject_name(*crt);
	if (!X509_set_version(*crt, 2) || !ASN1_INTEGER_set(X509_get_serialNumber(*crt), 1) ||
	    !X509_gmtime_adj(X509_getm_notBefore(*crt), -3600) ||
	    !X509_gmtime_adj(X509_getm_notAfter(*crt), 3600) || !X509_set_pubkey(*crt, *key) ||
	    !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
					(const unsigned char *)"localhost", -1, -1, 0) ||
	    !X509_set_issuer_name(*crt, name) || !X509_sign(*crt, *key, EVP_sha256()))
		die("certificate");
}

/* The server's context: that certificate, and no session tickets, whose
 * records would come between the client's reads. */
static SSL_CTX *server__ctx(void)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	EVP_PKEY *key;
	X509 *crt;

	if (!ctx)
		die("SSL_CTX_new");
	cert__make(&key, &crt);
	if (SSL_CTX_use_certificate(ctx, crt) != 1 || SSL_CTX_use_PrivateKey(ctx, key) != 1 ||
	    SSL_CTX_set_num_tickets(ctx, 0) != 1)
		die("server context");
	X509_free(crt);
	EVP_PKEY_free(key);
	return ctx;
}

struct mend;

/* The memory BIO sessions' client context: it verifies nothing (the
 * certificate is self-signed). */
static SSL_CTX *client__ctx(void)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());

	if (!ctx)
		die("SSL_CTX_new");
	SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
	return ctx;
}

/* One connection: its socket ends and the TLS session on each. The server
 * end's results are written by its thread and checked by the main one. */
struct conn {
	int cli, srv;
	SSL *ssl;
	gnutls_session_t gs;
	struct mend *mend;	/* over memory BIOs: the server end its jobs drive */
	int64_t got[MAX_CALLS];
	int ngot;
};

/* The server end's thread: runs one job at a time for the main thread, so
 * that each end's calls come from a thread of its own. */
struct peer {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	void (*job)(struct conn *);
	struct conn *conn;
	bool busy, quit;
	int64_t tid;
};

static void *peer__main(void *arg)
{
	struct peer *p = arg;

	pthread_mutex_lock(&p->lock);
	p->tid = pn_gettid();
	pthread_cond_broadcast(&p->cond);
	for (;;) {
		while (!p->busy && !p->quit)
			pthread_cond_wait(&p->cond, &p->lock);
		if (!p->busy)
			break;
		pthread_mutex_unlock(&p->lock);
		p->job(p->conn);
		pthread_mutex_lock(&p->lock);
		p->busy = false;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static void peer__start(struct peer *p)
{
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	if (pthread_create(&p->thread, NULL, peer__main, p))
		die("pthread_create");
	pthread_mutex_lock(&p->lock);
	while (!p->tid)
		pthread_cond_wait(&p->cond, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

/* JOB starts on C in the peer's thread; peer__wait waits for its end. */
static void peer__run(struct peer *p, void (*job)(struct conn *), struct conn *c)
{
	pthread_mutex_lock(&p->lock);
	c->ngot = 0;
	p->job = job;
	p->conn = c;
	p->busy = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

static void peer__wait(struct peer *p)
{
	pthread_mutex_lock(&p->lock);
	while (p->busy)
		pthread_cond_wait(&p->cond, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

static void peer__stop(struct peer *p)
{
	pthread_mutex_lock(&p->lock);
	p->quit = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
}

static void conn__got(struct conn *c, int64_t v)
{
	if (c->ngot < MAX_CALLS)
		c->got[c->ngot++] = v;
}

/* Server jobs: each call's result into c->got, in call order. */
static void srv__accept(struct conn *c)
{
	conn__got(c, SSL_accept(c->ssl));
}

static void srv__round(struct conn *c)
{
	static char buf[BIG];
	size_t n = 0;

	conn__got(c, SSL_read_ex(c->ssl, buf, BIG, &n) == 1 ? (int64_t)n : -1);
	conn__got(c, !memcmp(buf, req, REQ_LEN));
	conn__got(c, SSL_write(c->ssl, resp, RESP_LEN));
	conn__got(c, SSL_write_ex(c->ssl, tail, TAIL_LEN, &n) == 1 ? (int64_t)n : -1);
	conn__got(c, SSL_read(c->ssl, buf, BIG));
	conn__got(c, !memcmp(buf, bye, BYE_LEN));
}

static void srv__resp(struct conn *c)
{
	conn__got(c, SSL_write(c->ssl, resp, RESP_LEN));
}

static void srv__tail(struct conn *c)
{
	size_t n = 0;

	conn__got(c, SSL_write_ex(c->ssl, tail, TAIL_LEN, &n) == 1 ? (int64_t)n : -1);
}

/* C's sockets: a connected pair over 127.0.0.1, the rest of C zeroed. */
static void conn__pair(struct conn *c)
{
	struct timeval limit = { .tv_sec = 10 };

	memset(c, 0, sizeof(*c));
	/* a record that never comes fails a call, not the whole test by timeout */
	if (pn_tcp_pair4(&c->cli, &c->srv) ||
	    setsockopt(c->cli, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit)) ||
	    setsockopt(c->srv, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit)))
		die("tcp pair");
}

/* A connected pair, its server session on SSL_CTX CTX, its client session
 * verifying nothing (the certificate is self-signed). */
static void conn__open(struct conn *c, SSL_CTX *ctx, gnutls_certificate_credentials_t cred)
{
	conn__pair(c);
	c->ssl = SSL_new(ctx);
	if (!c->ssl || SSL_set_fd(c->ssl, c->srv) != 1)
		die("SSL_new");
	if (gnutls_init(&c->gs, GNUTLS_CLIENT) || gnutls_set_default_priority(c->gs) ||
	    gnutls_credentials_set(c->gs, GNUTLS_CRD_CERTIFICATE, cred))
		die("gnutls_init");
	gnutls_transport_set_int(c->gs, c->cli);
}

static void conn__handshake(struct conn *c, struct peer *p)
{
	int ret;

	peer__run(p, srv__accept, c);
	do
		ret = gnutls_handshake(c->gs);
	while (ret < 0 && !gnutls_error_is_fatal(ret));
	peer__wait(p);
	if (ret < 0)
		fprintf(stderr, "gnutls_handshake: %s\n", gnutls_strerror(ret));
	EXPECT(ret == 0);
	EXPECT(c->ngot == 1 && c->got[0] == 1);
}

static void conn__close(struct conn *c)
{
	gnutls_deinit(c->gs);
	SSL_free(c->ssl);
	close(c->cli);
	close(c->srv);
}

/* The client's half of a round, each result checked. */
static void cli__round(struct conn *c)
{
	static char buf[BIG];

	EXPECT(gnutls_record_send(c->gs, req, REQ_LEN) == REQ_LEN);
	EXPECT(gnutls_record_recv(c->gs, buf, HALF) == HALF);
	/* the record's second half, from GnuTLS's buffer: no syscall */
	EXPECT(gnutls_record_recv(c->gs, buf + HALF, HALF) == HALF);
	EXPECT(!memcmp(buf, resp, RESP_LEN));
	EXPECT(gnutls_record_recv(c->gs, buf, BIG) == TAIL_LEN);
	EXPECT(!memcmp(buf, tail, TAIL_LEN));
	EXPECT(gnutls_record_send(c->gs, bye, BYE_LEN) == BYE_LEN);
}

/* Both halves of a round, the server's results checked too. */
static void round__run(struct conn *c, struct peer *p)
{
	peer__run(p, srv__round, c);
	cli__round(c);
	peer__wait(p);
	EXPECT(c->ngot == 6);
	EXPECT(c->got[0] == REQ_LEN && c->got[1] == 1 && c->got[2] == RESP_LEN);
	EXPECT(c->got[3] == TAIL_LEN && c->got[4] == BYE_LEN && c->got[5] == 1);
}

/* One probed call as its event pair must tell it. */
struct want {
	uint16_t type;		/* PPME_TLS_READ_E or PPME_TLS_WRITE_E */
	int fd;
	uint32_t size;		/* what the call asked for */
	const char *data;	/* the plaintext it moved */
	uint32_t moved;
};

static int cli__wants(const struct conn *c, struct want *w)
{
	const struct want v[] = {
		{ PPME_TLS_WRITE_E, c->cli, REQ_LEN, req, REQ_LEN },
		{ PPME_TLS_READ_E, c->cli, HALF, resp, HALF },
		{ PPME_TLS_READ_E, c->cli, HALF, resp + HALF, HALF },
		{ PPME_TLS_READ_E, c->cli, BIG, tail, TAIL_LEN },
		{ PPME_TLS_WRITE_E, c->cli, BYE_LEN, bye, BYE_LEN },
	};

	memcpy(w, v, sizeof(v));
	return sizeof(v) / sizeof(v[0]);
}

static int srv__wants(const struct conn *c, struct want *w)
{
	const struct want v[] = {
		{ PPME_TLS_READ_E, c->srv, BIG, req, REQ_LEN },
		{ PPME_TLS_WRITE_E, c->srv, RESP_LEN, resp, RESP_LEN },
		{ PPME_TLS_WRITE_E, c->srv, TAIL_LEN, tail, TAIL_LEN },
		{ PPME_TLS_READ_E, c->srv, BIG, bye, BYE_LEN },
	};

	memcpy(w, v, sizeof(v));
	return sizeof(v) / sizeof(v[0]);
}

/* Event times: the driver's epoch ns (boot clock + its offset). */
static uint64_t now__ns(struct harness *h)
{
	struct timespec t;

	clock_gettime(CLOCK_BOOTTIME, &t);
	return driver__boot_time(harness__driver(h)) + t.tv_sec * 1000000000ull + t.tv_nsec;
}

/* The indices of thread TID's drained events into IDX (at most MAX, IDX may
 * be NULL); returns how many there are. */
static int tid__events(struct harness *h, int64_t tid, int *idx, int max)
{
	int n = 0;

	for (int i = 0; i < harness__count(h); i++) {
		if ((int64_t)harness__get(h, i)->hdr.tid != tid)
			continue;
		if (idx && n < max)
			idx[n] = i;
		n++;
	}
	return n;
}

static bool tls__is(uint16_t type)
{
	return type == PPME_TLS_READ_E || type == PPME_TLS_WRITE_E;
}

/* Thread TID's drained events are exactly the pairs W (N of them), in order,
 * stamped in [T0, T1], every param checked, data cut at SNAPLEN; a TLS
 * call's frames in one record with one stamp (a plain socket syscall's may
 * come in two records, and W's data is then its first bytes). */
static void tid__check(struct harness *h, int64_t tid, const struct want *w, int n,
		       uint32_t snaplen, uint64_t t0, uint64_t t1)
{
	int idx[64], got = tid__events(h, tid, idx, 64), at = 0;
	uint64_t last = t0;

	EXPECT(got == 2 * n);
	if (got != 2 * n)
		fprintf(stderr, "  thread %lld: %d events, want %d\n", (long long)tid, got, 2 * n);
	for (int k = 0; k < n && at + 1 < got && at + 1 < 64; k++, at += 2) {
		struct hevt *e = harness__get(h, idx[at]), *x = harness__get(h, idx[at + 1]);
		/* a plain syscall's result may be -errno (moved is its low 32 bits) */
		int64_t res = (int32_t)w[k].moved;
		uint32_t cut = res <= 0 ? 0 : res < snaplen ? (uint32_t)res : snaplen;

		EXPECT(e->hdr.type == w[k].type && x->hdr.type == w[k].type + 1);
		if (e->hdr.type != w[k].type || x->hdr.type != w[k].type + 1) {
			fprintf(stderr, "  call %d: want event %u, got %u %u\n", k, w[k].type,
				e->hdr.type, x->hdr.type);
			continue;
		}
		hevt__expect_header(e, w[k].type, tid);
		hevt__expect_header(x, w[k].type + 1, tid);
		if (tls__is(w[k].type)) {
			EXPECT(!e->rebuilt && e->rec == x->rec && e->cpu == x->cpu);
			EXPECT(e->hdr.ts == x->hdr.ts);
		}
		EXPECT(e->hdr.ts >= last && x->hdr.ts >= e->hdr.ts && x->hdr.ts <= t1);
		last = x->hdr.ts;
		EXPECT_PARAM_INT(e, 0, w[k].fd);
		EXPECT_PARAM_INT(e, 1, w[k].size);
		EXPECT_PARAM_INT(x, 0, res);
		EXPECT_PARAM_BYTES(x, 1, w[k].data, cut);
	}
}

/* Drained plain socket I/O events of thread TID on FD. */
static int sock_io__count(struct harness *h, int64_t tid, int fd)
{
	int n = 0;

	for (int i = 0; i < harness__count(h); i++) {
		struct hevt *e = harness__get(h, i);

		n += (int64_t)e->hdr.tid == tid && sock_io__is(e->hdr.type) &&
		     hevt__int(e, 0) == fd;
	}
	return n;
}

static struct driver_counters counters__get(struct harness *h)
{
	struct driver_counters tot = { 0 };

	EXPECT(driver__counters(harness__driver(h), NULL, 0, &tot) > 0);
	return tot;
}

/* The handshake (no probed call): its socket I/O arrives as plain events. */
static void phase__handshake(struct harness *h, struct conn *c, struct peer *p)
{
	int cli, srv;

	harness__drain(h, -1);
	conn__handshake(c, p);
	harness__drain(h, -1);
	cli = sock_io__count(h, pn_gettid(), c->cli);
	srv = sock_io__count(h, p->tid, c->srv);
	fprintf(stderr, "handshake: %d client and %d server socket I/O events\n", cli, srv);
	EXPECT(cli >= 2 && srv >= 2);
}

/* A round under SNAPLEN: only the plaintext pairs, the ciphertext counted. */
static void phase__round(struct harness *h, struct conn *c, struct peer *p, uint32_t snaplen)
{
	struct driver_counters before, after;
	struct want cw[MAX_CALLS], sw[MAX_CALLS];
	int64_t me = pn_gettid();
	uint64_t t0, t1;

	EXPECT(driver__set_snaplen(harness__driver(h), snaplen) == 0);
	harness__drain(h, -1);
	before = counters__get(h);
	t0 = now__ns(h);
	round__run(c, p);
	t1 = now__ns(h);
	after = counters__get(h);
	harness__drain(h, -1);
	fprintf(stderr, "round, snaplen %u: client %d, server %d events; n_tls_cipher +%llu, "
		"n_tls_nofd +%llu\n", snaplen, tid__events(h, me, NULL, 0),
		tid__events(h, p->tid, NULL, 0),
		(unsigned long long)(after.n_tls_cipher - before.n_tls_cipher),
		(unsigned long long)(after.n_tls_nofd - before.n_tls_nofd));
	tid__check(h, me, cw, cli__wants(c, cw), snaplen, t0, t1);
	tid__check(h, p->tid, sw, srv__wants(c, sw), snaplen, t0, t1);
	EXPECT(sock_io__count(h, me, c->cli) == 0 && sock_io__count(h, p->tid, c->srv) == 0);
	/* each record went through a syscall on each end at least once; the
	 * counters are every process's, so only their growth is ours */
	EXPECT(after.n_tls_cipher - before.n_tls_cipher >= 2 * ROUND_RECORDS);
	EXPECT(after.n_tls_nofd == before.n_tls_nofd);
}

/* Capture off: a round sends nothing and counts nothing. */
static void phase__paused(struct harness *h, struct conn *c, struct peer *p)
{
	struct driver *d = harness__driver(h);
	struct driver_counters before, after;

	EXPECT(driver__set_capture(d, false) == 0);
	harness__drain(h, -1);
	before = counters__get(h);
	round__run(c, p);
	after = counters__get(h);
	EXPECT(driver__set_capture(d, true) == 0);
	harness__drain(h, -1);
	fprintf(stderr, "paused: %d events of the two threads\n",
		tid__events(h, pn_gettid(), NULL, 0) +
		tid__events(h, p->tid, NULL, 0));
	EXPECT(tid__events(h, pn_gettid(), NULL, 0) == 0);
	EXPECT(tid__events(h, p->tid, NULL, 0) == 0);
	EXPECT(after.n_tls_cipher == before.n_tls_cipher);
	EXPECT(after.n_tls_nofd == before.n_tls_nofd);
}

/* A fresh session whose first probed call is served from GnuTLS's buffer
 * (the record read with capture off): no socket known, nothing sent,
 * n_tls_nofd + 1. Its next call reads a record: sent, its socket named. */
static void phase__nofd(struct harness *h, SSL_CTX *ctx, gnutls_certificate_credentials_t cred,
			struct peer *p)
{
	struct driver *d = harness__driver(h);
	struct driver_counters before, after;
	struct want cw = { PPME_TLS_READ_E, 0, BIG, tail, TAIL_LEN };
	struct want sw = { PPME_TLS_WRITE_E, 0, TAIL_LEN, tail, TAIL_LEN };
	static char buf[BIG];
	uint64_t t0, t1;
	struct conn c;

	conn__open(&c, ctx, cred);
	conn__handshake(&c, p);
	EXPECT(driver__set_capture(d, false) == 0);
	peer__run(p, srv__resp, &c);
	EXPECT(gnutls_record_recv(c.gs, buf, HALF) == HALF);
	peer__wait(p);
	EXPECT(c.ngot == 1 && c.got[0] == RESP_LEN);
	harness__drain(h, -1);
	before = counters__get(h);
	EXPECT(driver__set_capture(d, true) == 0);
	t0 = now__ns(h);
	EXPECT(gnutls_record_recv(c.gs, buf, HALF) == HALF);
	after = counters__get(h);
	peer__run(p, srv__tail, &c);
	EXPECT(gnutls_record_recv(c.gs, buf, BIG) == TAIL_LEN);
	peer__wait(p);
	t1 = now__ns(h);
	EXPECT(c.ngot == 1 && c.got[0] == TAIL_LEN);
	harness__drain(h, -1);
	fprintf(stderr, "no fd: n_tls_nofd +%llu\n",
		(unsigned long long)(after.n_tls_nofd - before.n_tls_nofd));
	EXPECT(after.n_tls_nofd - before.n_tls_nofd == 1);
	cw.fd = c.cli;
	sw.fd = c.srv;
	tid__check(h, pn_gettid(), &cw, 1, SNAPLEN_BIG, t0, t1);
	tid__check(h, p->tid, &sw, 1, SNAPLEN_BIG, t0, t1);
	conn__close(&c);
}

/* Sessions over memory BIOs (phase__mbio, phase__mbio_late). */

#define MEND_LOG 24		/* a window's events an end expects, at most */
#define HS_CALLS 8		/* a handshake's calls, at most: a flight may come in pieces */
#define REC_HDR 5		/* a TLS record's header: type, version, length */
#define REC_MAX (REC_HDR + 16384 + 256)

/* One step of a script both ends run: one end writes MSG, the other reads it. */
struct mstep {
	bool from_cli;		/* the client writes it */
	const char *msg;
	int len;
	bool late;		/* its writer sends it only after TLS_CLAIM_NS */
	bool recv_first;	/* its writer reads (0 bytes) before it sends */
};

/* One end of a session over a BIO pair, as gRPC's C-core runs one: the
 * library reads and writes the internal BIO, the caller moves the ciphertext
 * between the network BIO and the socket. The end notes what the driver
 * should make of each of its calls and socket syscalls (mend__note,
 * mend__call): until a send right after a handshake or write that knew no
 * socket names the session, its socket I/O is plain and its data calls are
 * on no socket (n_tls_nofd); after, its calls are pairs on its socket and
 * its socket I/O is kept (n_tls_cipher). */
struct mend {
	SSL *ssl;
	BIO *net;		/* the pair's network half */
	int fd;
	bool cli;
	bool named;		/* a send named its socket (tls__claim) */
	bool armed;		/* a call left it waiting for the thread's next send */
	const struct mstep *script;
	int nsteps;
	/* the window's: the events due (a plain one's data copied), counts */
	struct want log[MEND_LOG];
	char bytes[MEND_LOG][SNAPLEN_BIG];
	int nlog, plain, cipher, nofd, claims;
	bool overflow;
	char buf[BIG];
};

/* The two ends over one TCP connection; C carries the server jobs. */
struct mpair {
	struct mend cli, srv;
	struct conn c;
};

static void mend__open(struct mend *m, SSL_CTX *ctx, int fd, bool cli)
{
	BIO *in;

	m->ssl = SSL_new(ctx);
	if (!m->ssl || BIO_new_bio_pair(&in, 0, &m->net, 0) != 1)
		die("memory BIO session");
	SSL_set_bio(m->ssl, in, in);
	if (cli)
		SSL_set_connect_state(m->ssl);
	else
		SSL_set_accept_state(m->ssl);
	m->fd = fd;
	m->cli = cli;
}

static void mend__close(struct mend *m)
{
	SSL_free(m->ssl);
	BIO_free(m->net);
	close(m->fd);
}

/* A new window: nothing due yet. */
static void mend__clear(struct mend *m)
{
	m->nlog = m->plain = m->cipher = m->nofd = m->claims = 0;
	m->overflow = false;
}

/* The next event pair due, or NULL when the log is full. */
static struct want *mend__log(struct mend *m)
{
	if (m->nlog == MEND_LOG) {
		m->overflow = true;
		return NULL;
	}
	return &m->log[m->nlog++];
}

/* A socket syscall of the end (enter event TYPE) asked SIZE bytes and
 * returned RES, on BUF: plain until the session is named, then kept. */
static void mend__note(struct mend *m, uint16_t type, uint32_t size, ssize_t res,
		       const void *buf)
{
	size_t cut = res > SNAPLEN_BIG ? SNAPLEN_BIG : res > 0 ? (size_t)res : 0;
	struct want *w;

	if (m->named) {
		m->cipher++;
		return;
	}
	m->plain++;
	/* a read first takes the thread's wait: a send after names nothing */
	if (type != PPME_SOCKET_SENDTO_E)
		m->armed = false;
	w = mend__log(m);
	if (!w)
		return;
	memcpy(m->bytes[w - m->log], buf, cut);
	*w = (struct want){ type, m->fd, size, m->bytes[w - m->log], (uint32_t)res };
}

/* A data call (enter event TYPE) asked SIZE bytes and moved N of MSG: a
 * pair on the socket, or on none (then a write leaves the session waiting). */
static void mend__call(struct mend *m, uint16_t type, uint32_t size, const char *msg, int n)
{
	struct want *w;

	if (n <= 0)
		return;
	if (!m->named) {
		m->nofd++;
		m->armed |= type == PPME_TLS_WRITE_E;
		return;
	}
	w = mend__log(m);
	if (w)
		*w = (struct want){ type, m->fd, size, msg, (uint32_t)n };
}

/* What the last call made goes out on the socket now, on this thread: a
 * send after a call that left the session waiting names it, unless LATE
 * (past TLS_CLAIM_NS). That send is still plain. */
static int mend__flush(struct mend *m, bool late)
{
	char buf[REC_MAX];
	int n;

	while ((n = BIO_read(m->net, buf, sizeof(buf))) > 0) {
		ssize_t sent = send(m->fd, buf, n, 0);

		mend__note(m, PPME_SOCKET_SENDTO_E, n, sent, buf);
		if (m->armed && !late && !m->named) {
			m->named = true;
			m->claims++;
		}
		/* the send took the thread's wait, named or not */
		m->armed = false;
		if (sent != n)
			return -1;
	}
	return 0;
}

/* Whatever the socket has (as much as the BIO takes), into the BIO. */
static int mend__fill(struct mend *m)
{
	size_t room = BIO_ctrl_get_write_guarantee(m->net);
	char buf[REC_MAX];
	ssize_t n;

	if (room > sizeof(buf))
		room = sizeof(buf);
	n = recv(m->fd, buf, room, 0);
	mend__note(m, PPME_SOCKET_RECVFROM_E, room, n, buf);
	return n > 0 && BIO_write(m->net, buf, (int)n) == n ? 0 : -1;
}

/* LEN bytes from the socket by one recv that waits for them all. */
static int mend__recv_all(struct mend *m, unsigned char *buf, size_t len)
{
	ssize_t n = recv(m->fd, buf, len, MSG_WAITALL);

	mend__note(m, PPME_SOCKET_RECVFROM_E, len, n, buf);
	return n == (ssize_t)len ? 0 : -1;
}

/* One whole record into the BIO (its header, then its body): the read
 * after it is served at once, one call for one record. */
static int mend__fill_record(struct mend *m)
{
	unsigned char buf[REC_MAX];
	size_t len;

	if (mend__recv_all(m, buf, REC_HDR))
		return -1;
	len = (size_t)buf[3] << 8 | buf[4];
	if (len > REC_MAX - REC_HDR || mend__recv_all(m, buf + REC_HDR, len))
		return -1;
	return BIO_write(m->net, buf, REC_HDR + len) == (int)(REC_HDR + len) ? 0 : -1;
}

/* SSL_do_handshake until done, what each call made flushed right after it,
 * the socket read when it wants more. 1 when done. */
static int mend__handshake(struct mend *m)
{
	for (int i = 0; i < HS_CALLS; i++) {
		int ret = SSL_do_handshake(m->ssl);
		int err = SSL_get_error(m->ssl, ret);

		/* the handshake knew no socket: the session waits */
		m->armed |= !m->named;
		if (mend__flush(m, false))
			return -1;
		if (ret == 1)
			return 1;
		if (err != SSL_ERROR_WANT_READ || mend__fill(m))
			return -1;
	}
	return -1;
}

/* Sleeps past TLS_CLAIM_NS: a session waiting since before is not claimed. */
static void claim__outlive(void)
{
	uint64_t ns = TLS_CLAIM_NS + TLS_CLAIM_NS / 10;
	struct timespec t = { .tv_sec = ns / 1000000000ull, .tv_nsec = ns % 1000000000ull };

	while (nanosleep(&t, &t) && errno == EINTR)
		;
}

/* Step S written (SSL_write_ex when EX), flushed: 1 when it all went. */
static int mend__write(struct mend *m, const struct mstep *s, bool ex)
{
	size_t done = 0;
	int n;

	if (ex)
		n = SSL_write_ex(m->ssl, s->msg, s->len, &done) == 1 ? (int)done : -1;
	else
		n = SSL_write(m->ssl, s->msg, s->len);
	mend__call(m, PPME_TLS_WRITE_E, s->len, s->msg, n);
	if (s->late)
		claim__outlive();
	if (s->recv_first) {
		/* an event loop's next read, before the write's send: nothing
		 * to read (EAGAIN), a syscall all the same */
		ssize_t r = recv(m->fd, m->buf, 1, MSG_DONTWAIT);

		mend__note(m, PPME_SOCKET_RECVFROM_E, 1, r < 0 ? -errno : r, m->buf);
	}
	return !mend__flush(m, s->late) && n == s->len;
}

/* Step S's record read in, then read (SSL_read_ex when EX): 1 when it
 * brought S's bytes. */
static int mend__read(struct mend *m, const struct mstep *s, bool ex)
{
	size_t done = 0;
	int n;

	if (mend__fill_record(m))
		return 0;
	if (ex)
		n = SSL_read_ex(m->ssl, m->buf, BIG, &done) == 1 ? (int)done : -1;
	else
		n = SSL_read(m->ssl, m->buf, BIG);
	mend__call(m, PPME_TLS_READ_E, BIG, s->msg, n);
	/* a read makes nothing here; flushed all the same, as after any call */
	return !mend__flush(m, false) && n == s->len && !memcmp(m->buf, s->msg, s->len);
}

/* The end's part of its script, every other step by the _ex calls: 1 when
 * every call moved what it should. */
static int mend__run(struct mend *m)
{
	int ok = 1;

	for (int k = 0; k < m->nsteps; k++) {
		const struct mstep *s = &m->script[k];

		if (s->from_cli == m->cli)
			ok &= mend__write(m, s, k & 1);
		else
			ok &= mend__read(m, s, k & 1);
	}
	return ok;
}

/* Server jobs over memory BIOs. */
static void srv__mhandshake(struct conn *c)
{
	conn__got(c, mend__handshake(c->mend));
}

static void srv__mrun(struct conn *c)
{
	conn__got(c, mend__run(c->mend));
}

/* A client and a server session over BIO pairs, on the two ends of a new
 * TCP connection. */
static struct mpair *mpair__open(SSL_CTX *sctx, SSL_CTX *cctx)
{
	struct mpair *mp = calloc(1, sizeof(*mp));

	if (!mp)
		die("calloc");
	conn__pair(&mp->c);
	mp->c.mend = &mp->srv;
	mend__open(&mp->cli, cctx, mp->c.cli, true);
	mend__open(&mp->srv, sctx, mp->c.srv, false);
	return mp;
}

static void mpair__close(struct mpair *mp)
{
	mend__close(&mp->cli);
	mend__close(&mp->srv);
	free(mp);
}

static void mpair__script(struct mpair *mp, const struct mstep *steps, int n)
{
	mp->cli.script = mp->srv.script = steps;
	mp->cli.nsteps = mp->srv.nsteps = n;
}

/* Both handshakes in memory, on this thread, each flight moved from BIO to
 * BIO: no socket sees them. 1 when both are done. */
static int mpair__handshake_mem(struct mpair *mp)
{
	char buf[REC_MAX];
	int c = 0, s = 0, n;

	for (int i = 0; i < HS_CALLS && (c != 1 || s != 1); i++) {
		c = SSL_do_handshake(mp->cli.ssl);
		while ((n = BIO_read(mp->cli.net, buf, sizeof(buf))) > 0)
			EXPECT(BIO_write(mp->srv.net, buf, n) == n);
		s = SSL_do_handshake(mp->srv.ssl);
		while ((n = BIO_read(mp->srv.net, buf, sizeof(buf))) > 0)
			EXPECT(BIO_write(mp->cli.net, buf, n) == n);
	}
	return c == 1 && s == 1;
}

/* A window of the two ends' work begins: the rings emptied, nothing due,
 * the counters and the time noted. */
static void mpair__begin(struct harness *h, struct mpair *mp, struct driver_counters *before,
			 uint64_t *t0)
{
	harness__drain(h, -1);
	mend__clear(&mp->cli);
	mend__clear(&mp->srv);
	*before = counters__get(h);
	*t0 = now__ns(h);
}

/* The window ends (both ends' calls returned): each end's thread has
 * exactly the events its notes say, in order, and the counters grew by
 * exactly what they count. */
static void mpair__check(struct harness *h, struct mpair *mp, int64_t srv_tid,
			 const struct driver_counters *before, uint64_t t0, const char *what)
{
	const struct mend *c = &mp->cli, *s = &mp->srv;
	struct driver_counters after = counters__get(h);
	uint64_t t1 = now__ns(h);
	int64_t me = pn_gettid();

	harness__drain(h, -1);
	fprintf(stderr, "%s: client %d, server %d events; n_tls_claimed +%llu (want %d), "
		"n_tls_nofd +%llu (want %d), n_tls_cipher +%llu (want %d + %d); plain socket "
		"I/O: client %d, server %d\n", what, tid__events(h, me, NULL, 0),
		tid__events(h, srv_tid, NULL, 0),
		(unsigned long long)(after.n_tls_claimed - before->n_tls_claimed),
		c->claims + s->claims,
		(unsigned long long)(after.n_tls_nofd - before->n_tls_nofd), c->nofd + s->nofd,
		(unsigned long long)(after.n_tls_cipher - before->n_tls_cipher), c->cipher,
		s->cipher, c->plain, s->plain);
	EXPECT(!c->overflow && !s->overflow);
	/* the counters are every process's, but only this one's syscalls and
	 * calls pass the filters, and nothing else of it runs now */
	EXPECT(after.n_tls_claimed - before->n_tls_claimed == (uint64_t)(c->claims + s->claims));
	EXPECT(after.n_tls_nofd - before->n_tls_nofd == (uint64_t)(c->nofd + s->nofd));
	EXPECT(after.n_tls_cipher - before->n_tls_cipher == (uint64_t)(c->cipher + s->cipher));
	EXPECT(sock_io__count(h, me, c->fd) == c->plain);
	EXPECT(sock_io__count(h, srv_tid, s->fd) == s->plain);
	tid__check(h, me, c->log, c->nlog, SNAPLEN_BIG, t0, t1);
	tid__check(h, srv_tid, s->log, s->nlog, SNAPLEN_BIG, t0, t1);
}

/* The two rounds of phase__mbio: both ways, sizes under and over the
 * snaplen. */
static const struct mstep mbio_rounds[] = {
	{ true, req, REQ_LEN, false, false },		{ false, resp, RESP_LEN, false, false },
	{ false, tail, TAIL_LEN, false, false },	{ true, bye, BYE_LEN, false, false },
	{ false, large, LARGE_LEN, false, false },	{ true, large, LARGE_LEN, false, false },
	{ true, resp, RESP_LEN, false, false },
};

#define MBIO_ROUNDS (int)(sizeof(mbio_rounds) / sizeof(mbio_rounds[0]))

/* The handshake over memory BIOs, pumped over the sockets: each end's
 * first send names its session (one claim each), that send and what came
 * before it plain, the rest kept; no TLS event. */
static void mbio__handshake(struct harness *h, struct mpair *mp, struct peer *p)
{
	struct driver_counters before;
	uint64_t t0;

	mpair__begin(h, mp, &before, &t0);
	peer__run(p, srv__mhandshake, &mp->c);
	EXPECT(mend__handshake(&mp->cli) == 1);
	peer__wait(p);
	EXPECT(mp->c.ngot == 1 && mp->c.got[0] == 1);
	mpair__check(h, mp, p->tid, &before, t0, "memory BIOs, handshake");
	EXPECT(mp->cli.named && mp->srv.named);
	EXPECT(mp->cli.claims == 1 && mp->srv.claims == 1);
	/* the client's ClientHello first, the server's first flight after the
	 * ClientHello's recv(s) */
	EXPECT(mp->cli.plain == 1 && mp->srv.plain >= 2);
	EXPECT(mp->cli.nofd == 0 && mp->srv.nofd == 0);
}

/* One window: both ends run STEPS (N of them), then every event and count
 * is checked (mpair__check). */
static void mbio__window(struct harness *h, struct mpair *mp, struct peer *p,
			 const struct mstep *steps, int n, const char *what)
{
	struct driver_counters before;
	uint64_t t0;

	mpair__script(mp, steps, n);
	mpair__begin(h, mp, &before, &t0);
	peer__run(p, srv__mrun, &mp->c);
	EXPECT(mend__run(&mp->cli) == 1);
	peer__wait(p);
	EXPECT(mp->c.ngot == 1 && mp->c.got[0] == 1);
	mpair__check(h, mp, p->tid, &before, t0, what);
}

/* The rounds on the named sessions: one pair per data call on its end's
 * socket, no socket I/O event, every ciphertext syscall counted. */
static void mbio__rounds(struct harness *h, struct mpair *mp, struct peer *p)
{
	int cw = 0;

	mbio__window(h, mp, p, mbio_rounds, MBIO_ROUNDS, "memory BIOs, rounds");
	for (int k = 0; k < MBIO_ROUNDS; k++)
		cw += mbio_rounds[k].from_cli;
	EXPECT(mp->cli.nlog == MBIO_ROUNDS && mp->srv.nlog == MBIO_ROUNDS);
	EXPECT(mp->cli.plain == 0 && mp->srv.plain == 0);
	EXPECT(mp->cli.claims == 0 && mp->srv.claims == 0);
	/* a send per write, two recvs per read */
	EXPECT(mp->cli.cipher == cw + 2 * (MBIO_ROUNDS - cw));
	EXPECT(mp->srv.cipher == (MBIO_ROUNDS - cw) + 2 * cw);
}

/* Sessions over memory BIOs whose ends pump their ciphertext over their
 * sockets themselves (gRPC's C-core): named by their first sends, their
 * rounds sent as the calls' pairs, their ciphertext kept. */
static void phase__mbio(struct harness *h, SSL_CTX *sctx, SSL_CTX *cctx, struct peer *p)
{
	struct mpair *mp = mpair__open(sctx, cctx);

	EXPECT(driver__set_snaplen(harness__driver(h), SNAPLEN_BIG) == 0);
	fprintf(stderr, "memory BIOs: client fd %d SSL %p, server fd %d SSL %p\n", mp->cli.fd,
		(void *)mp->cli.ssl, mp->srv.fd, (void *)mp->srv.ssl);
	mbio__handshake(h, mp, p);
	mbio__rounds(h, mp, p);
	mpair__close(mp);
}

/* phase__mbio_late's: a write whose ciphertext goes after TLS_CLAIM_NS; one
 * whose writer reads before it sends; then two sent at once. */
static const struct mstep mbio_late[] = { { true, req, REQ_LEN, true, false } };
static const struct mstep mbio_prompt[] = {
	{ true, bye, BYE_LEN, false, true }, { true, tail, TAIL_LEN, false, false },
	{ true, req, REQ_LEN, false, false },
};

/* A session over memory BIOs whose handshake went BIO to BIO and whose
 * first send comes only after TLS_CLAIM_NS (one sleep) is not named: its
 * write on no socket (n_tls_nofd, not sent), the send and the server's
 * recvs plain, the server's read on no socket. One handshake over the
 * sockets could not show it: its last call leaves the session waiting
 * again, and its prompt send (the client's Finished) names it. Its next
 * write, sent at once, names it: that write lost, the one after sent. */
static void phase__mbio_late(struct harness *h, SSL_CTX *sctx, SSL_CTX *cctx, struct peer *p)
{
	struct mpair *mp = mpair__open(sctx, cctx);
	const struct mend *c = &mp->cli, *s = &mp->srv;

	EXPECT(mpair__handshake_mem(mp) == 1);
	mbio__window(h, mp, p, mbio_late, 1, "memory BIOs, a late first send");
	EXPECT(!c->named && c->claims == 0 && c->nofd == 1 && c->plain == 1);
	EXPECT(!s->named && s->nofd == 1 && s->plain == 2);
	EXPECT(c->cipher == 0 && s->cipher == 0 && c->nlog == 1 && s->nlog == 2);
	mbio__window(h, mp, p, mbio_prompt, 3, "memory BIOs, a read before a send, then prompt sends");
	/* the read (EAGAIN) took the wait: bye's send plain, naming nothing; tail's
	 * named the session, req went as a pair */
	EXPECT(c->named && c->claims == 1 && c->nofd == 2 && c->plain == 3 && c->cipher == 1);
	EXPECT(c->nlog == 4 && c->log[0].type == PPME_SOCKET_RECVFROM_E &&
	       c->log[1].type == PPME_SOCKET_SENDTO_E && c->log[2].type == PPME_SOCKET_SENDTO_E &&
	       c->log[3].type == PPME_TLS_WRITE_E);
	EXPECT(!s->named && s->nofd == 3 && s->plain == 6 && s->cipher == 0);
	mpair__close(mp);
}

/* Library paths this process maps, the probes on them; a wrong or unknown
 * library leaves nothing behind. */
static void phase__attach(struct harness *h, const char *ssl, const char *gnutls)
{
	struct driver *d = harness__driver(h);
	int fds = perf_fds__count();

	EXPECT(driver__tls_attach(d, ssl, DRIVER_TLS_GNUTLS) == -ENOENT);
	EXPECT(driver__tls_attach(d, ssl, (enum driver_tls_lib)99) == -EINVAL);
	EXPECT(driver__tls_files(d) == 0 && perf_fds__count() == fds);
	EXPECT(driver__tls_attach(d, ssl, DRIVER_TLS_OPENSSL) == 0);
	EXPECT(driver__tls_attach(d, gnutls, DRIVER_TLS_GNUTLS) == 0);
	EXPECT(driver__tls_files(d) == 2);
	/* a uprobe and a uretprobe per function: 5 of OpenSSL's (its
	 * SSL_do_handshake with them), 2 of GnuTLS's; and a uprobe on each
	 * one's session free (SSL_free, gnutls_deinit) */
	EXPECT(perf_fds__count() == fds + 16);
	fds = perf_fds__count();
	EXPECT(driver__tls_attach(d, gnutls, DRIVER_TLS_OPENSSL) == -ENOENT);
	EXPECT(driver__tls_files(d) == 2 && perf_fds__count() == fds);
	fprintf(stderr, "probes on %s and %s\n", ssl, gnutls);
}

/* driver__detach takes the probes off with the rest. */
static void phase__detach(struct harness *h)
{
	struct driver *d = harness__driver(h);
	int fds = perf_fds__count();

	driver__detach(d);
	EXPECT(driver__tls_files(d) == 0);
	EXPECT(perf_fds__count() <= fds - 14);
}

/* tls needs exit_only: refused without it, before any load. */
static void check__needs_exit_only(void)
{
	struct driver_config cfg = pn_capture_self;
	struct driver *d = driver__open();

	EXPECT(d != NULL);
	if (!d)
		return;
	cfg.tls = true;
	EXPECT(driver__configure(d, &cfg) == -EINVAL);
	EXPECT(driver__tls_attach(d, "/nonexistent", DRIVER_TLS_OPENSSL) == -EINVAL);
	driver__close(d);
}

int main(void)
{
	struct driver_config cfg = pn_capture_self;
	char ssl[PATH_MAX], gnutls[PATH_MAX];
	gnutls_certificate_credentials_t cred;
	struct peer p = { 0 };
	struct harness *h;
	struct conn c;
	SSL_CTX *ctx, *cctx;

	check__needs_exit_only();
	if (geteuid() == 0 && !driver__exit_only_supported()) {
		fprintf(stderr, "no exit-only capture on this kernel: TLS probes not tried\n");
		return harness__report("tls");
	}
	if (!harness__exit_only())
		fprintf(stderr, "exit_only forced on: the TLS probes need it\n");
	msg__fill(req, REQ_LEN, 1);
	msg__fill(resp, RESP_LEN, 2);
	msg__fill(tail, TAIL_LEN, 3);
	msg__fill(bye, BYE_LEN, 4);
	msg__fill(large, LARGE_LEN, 5);
	/* the libraries' files as mapped here (linked, so mapped from the start) */
	if (lib__path("libssl.so.", ssl, sizeof(ssl)) ||
	    lib__path("libgnutls.so.", gnutls, sizeof(gnutls)))
		die("finding libssl and libgnutls in /proc/self/maps");
	cfg.exit_only = true;
	cfg.tls = true;
	cfg.snaplen = SNAPLEN;
	cfg.sock_families = MASK_NET;
	cfg.syscalls = harness__only(tls_calls);
	h = harness__open(256, &cfg);
	ctx = server__ctx();
	cctx = client__ctx();
	if (gnutls_certificate_allocate_credentials(&cred))
		die("gnutls credentials");
	peer__start(&p);
	phase__attach(h, ssl, gnutls);

	conn__open(&c, ctx, cred);
	phase__handshake(h, &c, &p);
	phase__round(h, &c, &p, SNAPLEN);
	phase__round(h, &c, &p, SNAPLEN_BIG);
	phase__paused(h, &c, &p);
	phase__nofd(h, ctx, cred, &p);
	/* twice: the second pair's sessions and sockets are named afresh */
	phase__mbio(h, ctx, cctx, &p);
	phase__mbio(h, ctx, cctx, &p);
	phase__mbio_late(h, ctx, cctx, &p);
	phase__detach(h);

	peer__stop(&p);
	conn__close(&c);
	gnutls_certificate_free_credentials(cred);
	SSL_CTX_free(cctx);
	SSL_CTX_free(ctx);
	harness__close(h);
	return harness__report("tls");
}
