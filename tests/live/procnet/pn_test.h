/* Helpers shared by the procnet live tests (header-only: each test is one program). */
#ifndef PN_TEST_H
#define PN_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "schema_flags.h"

static const struct driver_config pn_capture_self = { .own_tgid = UINT32_MAX };

/* harness__open with pn_capture_self, loading only the syscalls NRS (ended by
 * -1, see harness__only): a test lists every syscall a check of it looks for,
 * found or not found, so that no check passes for want of a program. */
static inline struct harness *pn_open(uint32_t ring_pages, const int *nrs)
{
	struct driver_config cfg = pn_capture_self;

	cfg.syscalls = harness__only(nrs);
	return harness__open(ring_pages, &cfg);
}

static inline int64_t pn_gettid(void)
{
	return syscall(SYS_gettid);
}

/* The next event of TYPE at or after *at whose param 0 is V (for picking our own
 * call out of a thread's events), or NULL. */
static inline struct hevt *pn_find_arg0(struct harness *h, uint16_t type, int64_t v, int *at)
{
	struct hevt *e;

	while ((e = harness__find(h, type, at)))
		if (hevt__int(e, 0) == v)
			return e;
	return NULL;
}

/* Param I is exactly the LEN bytes at WANT. */
static inline int pn_param_bytes(const struct hevt *e, uint32_t i, const void *want, size_t len)
{
	if (i >= e->p.n || e->p.len[i] != len || memcmp(e->p.val[i], want, len) != 0) {
		fprintf(stderr, "  param %u: want %zu bytes, got %u\n   want:", i, len,
			i < e->p.n ? e->p.len[i] : 0);
		for (size_t k = 0; k < len && k < 40; k++)
			fprintf(stderr, " %02x", ((const uint8_t *)want)[k]);
		fprintf(stderr, "\n   got: ");
		for (size_t k = 0; i < e->p.n && k < e->p.len[i] && k < 40; k++)
			fprintf(stderr, " %02x", e->p.val[i][k]);
		fprintf(stderr, "\n");
		return 0;
	}
	return 1;
}

#define EXPECT_PARAM_BYTES(e, i, p, n) EXPECT(pn_param_bytes(e, i, p, n))

/* The whole of a small file, NUL-terminated, in BUF. Returns its length or -1. */
static inline ssize_t pn_read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = -1;

	if (fd >= 0) {
		n = read(fd, buf, size - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = 0;
	return n;
}

/* A fresh directory under /tmp, readable by everyone (tests exec from it as
 * nobody). Exits on failure. */
static inline void pn_tmpdir(char *out, size_t size)
{
	char tmpl[] = "/tmp/pn_live_XXXXXX";
	char real[PATH_MAX];

	if (!mkdtemp(tmpl) || chmod(tmpl, 0755) || !realpath(tmpl, real)) {
		perror("pn_tmpdir");
		exit(1);
	}
	snprintf(out, size, "%s", real);
}

/* Copies the file FROM to TO with MODE. Exits on failure. */
static inline void pn_copy(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, mode);
	ssize_t n;

	if (in < 0 || out < 0) {
		perror("pn_copy");
		exit(1);
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			exit(1);
	close(in);
	fchmod(out, mode);
	close(out);
}



#include <sys/resource.h>

static inline int64_t pn_fdlimit(void)
{
	struct rlimit r;

	getrlimit(RLIMIT_NOFILE, &r);
	return (int64_t)r.rlim_cur;
}

/* Whether the NUL-separated list in param I holds the string S. */
static inline int pn_list_has(const struct hevt *e, uint32_t i, const char *s)
{
	const char *p, *end;

	if (i >= e->p.n)
		return 0;
	p = (const char *)e->p.val[i];
	end = p + e->p.len[i];
	while (p < end) {
		size_t n = strnlen(p, end - p);

		if (n == strlen(s) && memcmp(p, s, n) == 0)
			return 1;
		p += n + 1;
	}
	return 0;
}

/* cgroups param I agrees with /proc/self/cgroup: every v1 controller line is there
 * as "controller=path" (blkio is named io by the kernel); with v2 only, some
 * controller has the unified path. Every entry has a '='. */
static inline int pn_cgroups_match(const struct hevt *e, uint32_t i)
{
	char buf[8192], want[4200], *line, *save = NULL, *v2path = NULL;
	const char *p, *end;
	int ok = 1, v1 = 0;

	if (i >= e->p.n || e->p.len[i] == 0 || e->p.val[i][e->p.len[i] - 1] != 0)
		return 0;
	for (p = (const char *)e->p.val[i], end = p + e->p.len[i]; p < end; p += strlen(p) + 1)
		if (!strchr(p, '='))
			return 0;
	if (pn_read_file("/proc/self/cgroup", buf, sizeof(buf)) <= 0)
		return 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *ctrls = strchr(line, ':'), *path, *c, *csave = NULL;

		if (!ctrls)
			continue;
		path = strchr(++ctrls, ':');
		if (!path)
			continue;
		*path++ = 0;
		if (!*ctrls) {
			v2path = path;
			continue;
		}
		for (c = strtok_r(ctrls, ",", &csave); c; c = strtok_r(NULL, ",", &csave)) {
			if (!strncmp(c, "name=", 5))
				continue;
			v1 = 1;
			snprintf(want, sizeof(want), "%s=%s", strcmp(c, "blkio") ? c : "io", path);
			if (!pn_list_has(e, i, want)) {
				fprintf(stderr, "  cgroups: no \"%s\"\n", want);
				ok = 0;
			}
		}
	}
	if (!v1 && v2path) {
		ok = 0;
		for (p = (const char *)e->p.val[i]; p < end; p += strlen(p) + 1) {
			const char *eq = strchr(p, '=');

			if (eq && !strcmp(eq + 1, v2path))
				ok = 1;
		}
	}
	return ok;
}

/* tty_nr of /proc/self/stat (field 7). */
static inline int64_t pn_tty_nr(void)
{
	char buf[1024], *p;
	int field = 2;

	if (pn_read_file("/proc/self/stat", buf, sizeof(buf)) <= 0 || !(p = strrchr(buf, ')')))
		return -1;
	for (p++; *p && field < 7; p++)
		if (*p == ' ')
			field++;
	return strtoll(p, NULL, 10);
}

static inline int64_t pn_loginuid(void)
{
	char buf[64];

	if (pn_read_file("/proc/self/loginuid", buf, sizeof(buf)) <= 0)
		return -1;
	return (int32_t)strtoul(buf, NULL, 10);
}

/* The next event of TYPE from thread TID at or after *at, or NULL. */
static inline struct hevt *pn_find_tid(struct harness *h, uint16_t type, int64_t tid, int *at)
{
	struct hevt *e;

	while ((e = harness__find(h, type, at)))
		if ((int64_t)e->hdr.tid == tid)
			return e;
	return NULL;
}

/* This process's argv: exe (argv[0]) and the rest as sysdig's args bytes. */
struct pn_cmdline {
	char buf[4096];
	const char *exe;
	const char *args;
	size_t args_len;
};

static inline void pn_cmdline(struct pn_cmdline *c)
{
	ssize_t n = pn_read_file("/proc/self/cmdline", c->buf, sizeof(c->buf));
	size_t exe_len = strlen(c->buf) + 1;

	c->exe = c->buf;
	c->args = c->buf + exe_len;
	c->args_len = n > (ssize_t)exe_len ? n - exe_len : 0;
}

/* comm of this thread (at most 15 characters). */
static inline void pn_comm(char *out)
{
	char buf[64];

	pn_read_file("/proc/thread-self/comm", buf, sizeof(buf));
	buf[strcspn(buf, "\n")] = 0;
	memcpy(out, buf, 15);
	out[15] = 0;
}

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

/* sysdig's encodings (docs/formats.md, "Socket addresses"): family byte, addresses as in
 * memory (network order), ports in host order. */
static inline size_t pn_sockaddr_bytes(uint8_t *out, const struct sockaddr *sa)
{
	const struct sockaddr_in *in = (const void *)sa;
	const struct sockaddr_in6 *in6 = (const void *)sa;
	uint16_t port;

	if (sa->sa_family == AF_INET) {
		out[0] = 2;
		memcpy(out + 1, &in->sin_addr, 4);
		port = ntohs(in->sin_port);
		memcpy(out + 5, &port, 2);
		return 7;
	}
	out[0] = 10;
	memcpy(out + 1, &in6->sin6_addr, 16);
	port = ntohs(in6->sin6_port);
	memcpy(out + 17, &port, 2);
	return 19;
}

/* A SOCKTUPLE of SRC -> DST (both of one family). */
static inline size_t pn_tuple_bytes(uint8_t *out, const struct sockaddr *src, const struct sockaddr *dst)
{
	uint8_t a[32], b[32];
	size_t n = pn_sockaddr_bytes(a, src), m = pn_sockaddr_bytes(b, dst);

	memcpy(out, a, n);
	memcpy(out + n, b + 1, m - 1);
	return n + m - 1;
}

/* Local and remote addresses of a socket as a tuple, LOCAL first or not. */
static inline size_t pn_fd_tuple(uint8_t *out, int fd, int local_first)
{
	struct sockaddr_storage l, r;
	socklen_t ll = sizeof(l), rl = sizeof(r);

	getsockname(fd, (struct sockaddr *)&l, &ll);
	getpeername(fd, (struct sockaddr *)&r, &rl);
	return local_first ? pn_tuple_bytes(out, (void *)&l, (void *)&r)
			   : pn_tuple_bytes(out, (void *)&r, (void *)&l);
}

static inline struct sockaddr_in pn_in4(const char *ip, uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };

	inet_pton(AF_INET, ip, &a.sin_addr);
	return a;
}

static inline struct sockaddr_in6 pn_in6(const char *ip, uint16_t port)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons(port) };

	inet_pton(AF_INET6, ip, &a.sin6_addr);
	return a;
}

/* CFG for request mode's profiling: only the syscalls NRS (ended by -1),
 * socket I/O of IP sockets only, threads followed from their first one. */
static inline void pn_prof_sent(struct driver_config *cfg, const int *nrs)
{
	cfg->syscalls = harness__only(nrs);
	cfg->sock_families = (1u << PPM_AF_INET) | (1u << PPM_AF_INET6);
	cfg->profile = PROF_FOLLOW_SENT;
}

/* The kept events at *AT and after it: TYPE's enter event and its exit, both
 * of thread TID, headers checked; *AT moves past them. 0 (a failed check,
 * said) when they are not there. */
static inline int pn_pair(struct harness *h, int *at, uint16_t type, int64_t tid,
			  struct hevt **e, struct hevt **x)
{
	*e = *at < harness__count(h) ? harness__get(h, *at) : NULL;
	*x = *at + 1 < harness__count(h) ? harness__get(h, *at + 1) : NULL;
	EXPECT(*e && (*e)->hdr.type == type && *x && (*x)->hdr.type == type + 1);
	if (!*e || (*e)->hdr.type != type || !*x || (*x)->hdr.type != type + 1) {
		fprintf(stderr, "  want event %u at %d of %d (got %d)\n", type, *at,
			harness__count(h), *e ? (*e)->hdr.type : -1);
		return 0;
	}
	hevt__expect_header(*e, type, tid);
	hevt__expect_header(*x, type + 1, tid);
	*at += 2;
	return 1;
}

/* How many slices of CPU_SLICES event E are flagged PROF_SLICE_UNSEEN: a
 * switch the tracepoints hid (driver/README.md, "Switches not seen"), whose
 * slice says nothing but its span, inside the batch's: checked. */
static inline int pn_prof_unseen(const struct hevt *e)
{
	int n = 0;

	for (unsigned i = 0; i < e->p.len[2] / sizeof(struct prof_slice); i++) {
		struct prof_slice s;

		memcpy(&s, e->p.val[2] + i * sizeof(s), sizeof(s));
		if (!(s.flags & PROF_SLICE_UNSEEN))
			continue;
		n++;
		EXPECT(s.kind == PROF_OTHER && s.flags == PROF_SLICE_UNSEEN &&
		       s.nr == PROF_NR_NONE && s.obj == 0 && s.waker == 0);
		EXPECT(s.start >= (uint64_t)hevt__int(e, 1) && s.start + s.dur <= e->hdr.ts);
	}
	return n;
}

/* A connected TCP pair over 127.0.0.1: *CLI the connecting end, *SRV the
 * accepted one. 0, or -1 with errno. */
static inline int pn_tcp_pair4(int *cli, int *srv)
{
	struct sockaddr_in a = pn_in4("127.0.0.1", 0);
	socklen_t alen = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0), err = -1;

	*cli = socket(AF_INET, SOCK_STREAM, 0);
	if (l >= 0 && *cli >= 0 && !bind(l, (void *)&a, alen) && !listen(l, 1) &&
	    !getsockname(l, (void *)&a, &alen) && !connect(*cli, (void *)&a, alen) &&
	    (*srv = accept(l, NULL, NULL)) >= 0)
		err = 0;
	if (l >= 0)
		close(l);
	return err;
}

/* A UDP socket of FAMILY bound to the address at A (LEN bytes, port 0) on a
 * port the kernel picks, whose address it writes back to A: two ports asked
 * of pn_free_port one after the other can be the same one. The fd, or -1
 * with errno. */
static inline int pn_udp_bind(int family, void *a, socklen_t len)
{
	int fd = socket(family, SOCK_DGRAM, 0), err;

	if (fd < 0)
		return -1;
	if (bind(fd, a, len) || getsockname(fd, a, &len)) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

/* A port nobody listens on now (bound then released), for FAMILY's loopback. */
static inline uint16_t pn_free_port(int family, int type)
{
	struct sockaddr_storage ss = { .ss_family = family };
	socklen_t len = family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	int fd = socket(family, type, 0);
	uint16_t port;

	if (family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	else
		((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
	if (fd < 0 || bind(fd, (void *)&ss, len) || getsockname(fd, (void *)&ss, &len)) {
		perror("pn_free_port");
		exit(1);
	}
	port = ntohs(((struct sockaddr_in *)&ss)->sin_port);	/* same offset in both */
	close(fd);
	return port;
}
#endif
