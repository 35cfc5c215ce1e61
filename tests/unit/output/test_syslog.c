/* Syslog outputs: syslog:// frames (RFC 6587 octet counting around RFC 5424
 * messages) parsed and every header field checked; syslog:PATH datagrams
 * (RFC 3164 header, local time) from a SOCK_DGRAM socket that holds only a few
 * at a time; and syslog:PATH on a SOCK_STREAM socket (newline framing). */
#include <limits.h>

#include "util.h"

/* A fixed event time: 2026-11-22T11:10:03.123456789Z. */
#define TS_SEC 1795345803ull
#define TS_NS (TS_SEC * 1000000000ull + 123456789ull)

static void test_rfc5424(void)
{
	struct reader r = { 0 };
	struct output_stats st;
	struct output *o;
	char url[64], err[256], line[256], host[HOST_NAME_MAX + 1] = "", hdr[512];
	const char *p, *end;
	unsigned n = 200, i = 0;
	bool ok = true;

	gethostname(host, sizeof(host) - 1);
	snprintf(hdr, sizeof(hdr), "<14>1 2026-11-22T11:10:03.123456Z %s agent %d - - ", host,
		 (int)getpid());
	r.lfd = tcp_listen(&r.port);
	reader__start(&r);
	snprintf(url, sizeof(url), "syslog://127.0.0.1:%d", r.port);
	o = output__open(url, NULL, err, sizeof(err));
	CHECK(o != NULL);
	CHECK_EQ(output__kind(o), OUTPUT_SYSLOG_TCP);
	for (unsigned k = 0; k < n; k++)
		output__push(o, line, make_line(line, sizeof(line), k), TS_NS);
	output__close(o, now_ms() + 20000, &st);
	print_stats("syslog://", &st);
	WAIT_FOR(reader__len(&r) >= st.bytes, 2000);
	reader__stop(&r);
	CHECK_EQ(st.emitted, n);
	CHECK_EQ(r.len, st.bytes);
	/* "LEN SP MSG", MSG = header + the line without its newline */
	p = r.data;
	end = r.data + r.len;
	while (ok && p < end) {
		char *sp;
		unsigned long len = strtoul(p, &sp, 10);
		size_t want = make_line(line, sizeof(line), i) - 1;

		ok = sp > p && *sp == ' ' && (size_t)(end - sp - 1) >= len &&
		     len == strlen(hdr) + want && !memcmp(sp + 1, hdr, strlen(hdr)) &&
		     !memcmp(sp + 1 + strlen(hdr), line, want);
		if (!ok)
			fprintf(stderr, "bad frame %u: '%.*s'\n", i, (int)(end - p > 200 ? 200 : end - p), p);
		p = sp + 1 + len;
		i++;
	}
	CHECK(ok);
	CHECK_EQ(i, n);
	reader__free(&r);
}

/* "<14>Mmm dd hh:mm:ss agent[PID]: " for the fixed time, in local time. */
static void rfc3164_header(char *buf, size_t size)
{
	static const char *const mon[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul",
					   "Aug", "Sep", "Oct", "Nov", "Dec" };
	time_t t = (time_t)TS_SEC;
	struct tm tm;

	localtime_r(&t, &tm);
	snprintf(buf, size, "<14>%s %2d %02d:%02d:%02d agent[%d]: ", mon[tm.tm_mon], tm.tm_mday,
		 tm.tm_hour, tm.tm_min, tm.tm_sec, (int)getpid());
}

static void test_datagrams(void)
{
	struct output_stats st;
	struct output *o;
	char path[64], url[80], err[256], line[256], hdr[128], buf[1024];
	unsigned n = 100, got = 0;
	uint64_t end;
	bool ok = true;
	int fd;

	rfc3164_header(hdr, sizeof(hdr));
	snprintf(path, sizeof(path), "/tmp/output-test-%d.dgram", (int)getpid());
	fd = unix_bind(path, SOCK_DGRAM);
	snprintf(url, sizeof(url), "syslog:%s", path);
	o = output__open(url, NULL, err, sizeof(err));
	CHECK(o != NULL);
	CHECK_EQ(output__kind(o), OUTPUT_SYSLOG);
	for (unsigned k = 0; k < n; k++)
		output__push(o, line, make_line(line, sizeof(line), k), TS_NS);
	output__kick(o);
	/* the socket holds few datagrams: the writer waits for room as we read */
	end = now_ms() + 5000u * (unsigned)slow_factor;
	while (got < n && now_ms() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t len;
		size_t want;

		if (poll(&p, 1, 50) <= 0)
			continue;
		len = recv(fd, buf, sizeof(buf), 0);
		want = make_line(line, sizeof(line), got) - 1;
		if (len != (ssize_t)(strlen(hdr) + want) || memcmp(buf, hdr, strlen(hdr)) ||
		    memcmp(buf + strlen(hdr), line, want)) {
			fprintf(stderr, "bad datagram %u: '%.*s'\n", got, (int)(len > 0 ? len : 0), buf);
			ok = false;
		}
		got++;
	}
	output__close(o, now_ms() + 20000, &st);
	print_stats("syslog dgram", &st);
	CHECK(ok);
	CHECK_EQ(got, n);
	CHECK_EQ(st.emitted, n);
	CHECK_EQ(st.connects, 1);
	CHECK(accounted(&st));
	close(fd);
	unlink(path);
}

static void test_stream_socket(void)
{
	struct reader r = { 0 };
	struct output_stats st;
	struct output *o;
	char path[64], url[80], err[256], line[256], hdr[128];
	unsigned n = 20;
	const char *p;
	bool ok = true;

	rfc3164_header(hdr, sizeof(hdr));
	snprintf(path, sizeof(path), "/tmp/output-test-%d.stream", (int)getpid());
	r.lfd = unix_bind(path, SOCK_STREAM);
	reader__start(&r);
	snprintf(url, sizeof(url), "syslog:%s", path);
	o = output__open(url, NULL, err, sizeof(err));
	CHECK(o != NULL);
	for (unsigned k = 0; k < n; k++)
		output__push(o, line, make_line(line, sizeof(line), k), TS_NS);
	output__close(o, now_ms() + 20000, &st);
	WAIT_FOR(reader__len(&r) >= st.bytes, 2000);
	reader__stop(&r);
	CHECK_EQ(st.emitted, n);
	p = r.data;
	for (unsigned k = 0; k < n && ok; k++) {
		size_t want = make_line(line, sizeof(line), k);

		ok = p && (size_t)(r.data + r.len - p) >= strlen(hdr) + want &&
		     !memcmp(p, hdr, strlen(hdr)) && !memcmp(p + strlen(hdr), line, want);
		if (ok)
			p += strlen(hdr) + want;
	}
	CHECK(ok);
	CHECK(p == r.data + r.len);
	unlink(path);
	reader__free(&r);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	test_rfc5424();
	test_datagrams();
	test_stream_socket();
	return t_report();
}
