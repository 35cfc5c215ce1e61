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
/* records a round moves: request, response, tail, bye */
#define ROUND_RECORDS 4
#define MAX_CALLS 8

static char req[REQ_LEN], resp[RESP_LEN], tail[TAIL_LEN], bye[BYE_LEN];

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

/* One connection: its socket ends and the TLS session on each. The server
 * end's results are written by its thread and checked by the main one. */
struct conn {
	int cli, srv;
	SSL *ssl;
	gnutls_session_t gs;
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

/* A connected pair, its server session on SSL_CTX CTX, its client session
 * verifying nothing (the certificate is self-signed). */
static void conn__open(struct conn *c, SSL_CTX *ctx, gnutls_certificate_credentials_t cred)
{
	struct timeval limit = { .tv_sec = 10 };

	memset(c, 0, sizeof(*c));
	/* a record that never comes fails a call, not the whole test by timeout */
	if (pn_tcp_pair4(&c->cli, &c->srv) ||
	    setsockopt(c->cli, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit)) ||
	    setsockopt(c->srv, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit)))
		die("tcp pair");
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

/* Thread TID's drained events are exactly the pairs W (N of them), in order,
 * stamped in [T0, T1], each pair's frames in one record with one stamp, every
 * param checked, data cut at SNAPLEN. */
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
		uint32_t cut = w[k].moved < snaplen ? w[k].moved : snaplen;

		EXPECT(e->hdr.type == w[k].type && x->hdr.type == w[k].type + 1);
		if (e->hdr.type != w[k].type || x->hdr.type != w[k].type + 1) {
			fprintf(stderr, "  call %d: want event %u, got %u %u\n", k, w[k].type,
				e->hdr.type, x->hdr.type);
			continue;
		}
		hevt__expect_header(e, w[k].type, tid);
		hevt__expect_header(x, w[k].type + 1, tid);
		EXPECT(!e->rebuilt && e->rec == x->rec && e->cpu == x->cpu);
		EXPECT(e->hdr.ts == x->hdr.ts && e->hdr.ts >= last && e->hdr.ts <= t1);
		last = e->hdr.ts;
		EXPECT_PARAM_INT(e, 0, w[k].fd);
		EXPECT_PARAM_INT(e, 1, w[k].size);
		EXPECT_PARAM_INT(x, 0, w[k].moved);
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
	SSL_CTX *ctx;

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
	phase__detach(h);

	peer__stop(&p);
	conn__close(&c);
	gnutls_certificate_free_credentials(cred);
	SSL_CTX_free(ctx);
	harness__close(h);
	return harness__report("tls");
}
