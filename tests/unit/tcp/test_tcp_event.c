/* TCP_CLOSE events into TCP records (tcp_record__decode): frames built by
 * hand as the driver writes them, IPv4 and IPv6, client and server side,
 * every outcome, each record field checked; each wrong param length, tuple
 * length, family, side and outcome refused; a name of 16 bytes cut to 15;
 * the outcomes' names; and the tcp.* fields of decoded records as -p prints
 * them. */
#include <arpa/inet.h>
#include <errno.h>

#include "frame_builder.h"
#include "t_check.h"
#include "t_field.h"
#include "tcp_event.h"

#define TS_END 1700000000000000000ULL
#define TID 4242
#define FRAME_MAX 512
#define NPARAMS 14
#define P_TUPLE 13

/* One TCP_CLOSE event's params, in the driver's order (proto/events.def). */
struct tcp_spec {
	uint64_t pid;
	uint8_t side, outcome;
	uint64_t start, connect, duration, sent, received;
	uint32_t retrans, srtt, rst_sent, rst_recv;
	char comm[16];
	uint8_t tuple[37];
	uint16_t tuple_len;
	/* the addresses as written, for the checks */
	uint8_t cip[16], sip[16];
	uint16_t cport, sport;
};

static const uint16_t fixed_len[P_TUPLE] = { 8, 1, 1, 8, 8, 8, 8, 8, 4, 4, 4, 4, 16 };

/* SOCKTUPLE client -> server: family, sip, sport, dip, dport, ports in host
 * order; FAMILY AF_INET or AF_INET6. */
static void spec__tuple(struct tcp_spec *s, int family, const char *cip, uint16_t cport,
			const char *sip, uint16_t sport)
{
	size_t alen = family == AF_INET ? 4 : 16;

	memset(s->cip, 0, 16);
	memset(s->sip, 0, 16);
	if (inet_pton(family, cip, s->cip) != 1 || inet_pton(family, sip, s->sip) != 1)
		abort();
	s->cport = cport;
	s->sport = sport;
	s->tuple[0] = family == AF_INET ? PPM_AF_INET : PPM_AF_INET6;
	memcpy(s->tuple + 1, s->cip, alen);
	memcpy(s->tuple + 1 + alen, &cport, 2);
	memcpy(s->tuple + 3 + alen, s->sip, alen);
	memcpy(s->tuple + 3 + 2 * alen, &sport, 2);
	s->tuple_len = (uint16_t)(1 + 2 * (alen + 2));
}

/* curl's connection to an HTTPS server, from the client's end. */
static struct tcp_spec spec__curl(void)
{
	struct tcp_spec s = {
		.pid = 3100, .side = REQ_SIDE_CLIENT, .outcome = TCP_OUTCOME_CLOSED,
		.start = TS_END - 80000000, .connect = 150000, .duration = 80000000,
		.sent = 517, .received = 4096, .retrans = 2, .srtt = 300,
		.comm = "curl",
	};

	spec__tuple(&s, AF_INET, "192.168.0.1", 54321, "10.0.0.2", 443);
	return s;
}

/* nginx's end of an IPv6 connection its client reset. */
static struct tcp_spec spec__nginx(void)
{
	struct tcp_spec s = {
		.pid = 812, .side = REQ_SIDE_SERVER, .outcome = TCP_OUTCOME_RESET,
		.start = TS_END - 2000000000, .duration = 2000000000,
		.sent = 1048576, .received = 310, .srtt = 1250, .rst_recv = 1,
		.comm = "nginx",
	};

	spec__tuple(&s, AF_INET6, "2001:db8::5", 40000, "::1", 80);
	return s;
}

/* S as a frame into BUF; param BAD (-1: none) written with BAD_LEN bytes (its
 * value's, then zeros). The frame's length, 0 if it did not fit. */
static uint32_t frame__build(uint8_t *buf, const struct tcp_spec *s, int bad, uint16_t bad_len)
{
	const void *val[NPARAMS] = {
		&s->pid, &s->side, &s->outcome, &s->start, &s->connect, &s->duration,
		&s->sent, &s->received, &s->retrans, &s->srtt, &s->rst_sent, &s->rst_recv,
		s->comm, s->tuple,
	};
	struct frame_builder fb;
	uint8_t junk[64];

	fb__begin(&fb, buf, FRAME_MAX, PPME_TCP_CLOSE_E, TID, TS_END);
	for (int i = 0; i < NPARAMS; i++) {
		uint16_t len = i == P_TUPLE ? s->tuple_len : fixed_len[i];

		if (i != bad) {
			fb__param(&fb, val[i], len);
			continue;
		}
		memset(junk, 0, sizeof(junk));
		memcpy(junk, val[i], len < bad_len ? len : bad_len);
		fb__param(&fb, junk, bad_len);
	}
	return fb__end(&fb, 0);
}

/* The frame of LEN bytes validated, located and decoded into R; -EBADMSG
 * when the schema refuses the frame itself. */
static int frame__decode(struct tcp_record *r, const uint8_t *frame, uint32_t len)
{
	struct schema_params pp;
	struct ppm_evt_hdr h;

	if (!len || schema__validate(frame, len) || schema__params(frame, &pp))
		return -EBADMSG;
	memcpy(&h, frame, sizeof(h));
	return tcp_record__decode(r, &pp, h.ts);
}

static int spec__decode(struct tcp_record *r, const struct tcp_spec *s, int bad, uint16_t bad_len)
{
	uint8_t buf[FRAME_MAX];

	return frame__decode(r, buf, frame__build(buf, s, bad, bad_len));
}

static void end__expect(const struct req_end *e, const uint8_t *ip, uint16_t port, bool local,
			const struct tcp_spec *s)
{
	CHECK(memcmp(e->ip, ip, 16) == 0);
	CHECK_INT(e->port, port);
	CHECK_INT(e->local, local);
	CHECK_INT(e->pid, local ? (int64_t)s->pid : 0);
	CHECK_INT(e->tid, local ? (int64_t)s->pid : 0);
	CHECK_STR(e->comm, local ? s->comm : "");
	CHECK_NULL(e->container);
}

/* Every field of R against the spec it was decoded from. */
static void record__expect(const struct tcp_record *r, const struct tcp_spec *s)
{
	bool server = s->side == REQ_SIDE_SERVER;

	CHECK_INT(r->family, s->tuple[0]);
	CHECK_INT(r->side, s->side);
	CHECK_INT(r->outcome, s->outcome);
	CHECK_INT(r->established, s->outcome <= TCP_OUTCOME_RESET);
	CHECK(r->ts_start == s->start);
	CHECK(r->ts_end == TS_END);
	CHECK(r->connect_ns == s->connect);
	CHECK(r->duration == s->duration);
	CHECK(r->bytes_sent == s->sent);
	CHECK(r->bytes_received == s->received);
	CHECK_INT(r->retransmits, s->retrans);
	CHECK_INT(r->srtt_us, s->srtt);
	CHECK_INT(r->resets_sent, s->rst_sent);
	CHECK_INT(r->resets_received, s->rst_recv);
	end__expect(&r->client, s->cip, s->cport, !server, s);
	end__expect(&r->server, s->sip, s->sport, server, s);
}

static void test_known(void)
{
	struct tcp_spec s = spec__curl();
	struct tcp_record r;
	const uint8_t v4c[16] = { 192, 168, 0, 1 }, v4s[16] = { 10, 0, 0, 2 };
	const uint8_t v6s[16] = { [15] = 1 };

	/* the literal values, once: addresses in network order, ports in host's */
	CHECK_INT(spec__decode(&r, &s, -1, 0), 0);
	CHECK_INT(r.family, PPM_AF_INET);
	CHECK_INT(r.side, REQ_SIDE_CLIENT);
	CHECK_INT(r.outcome, TCP_OUTCOME_CLOSED);
	CHECK(r.established);
	CHECK(r.ts_start == TS_END - 80000000);
	CHECK(r.ts_end == TS_END);
	CHECK(r.connect_ns == 150000);
	CHECK(r.duration == 80000000);
	CHECK(r.bytes_sent == 517 && r.bytes_received == 4096);
	CHECK_INT(r.retransmits, 2);
	CHECK_INT(r.srtt_us, 300);
	CHECK(r.resets_sent == 0 && r.resets_received == 0);
	CHECK(memcmp(r.client.ip, v4c, 16) == 0);
	CHECK(memcmp(r.server.ip, v4s, 16) == 0);
	CHECK_INT(r.client.port, 54321);
	CHECK_INT(r.server.port, 443);
	CHECK(r.client.local && !r.server.local);
	CHECK_INT(r.client.pid, 3100);
	CHECK_INT(r.server.pid, 0);
	CHECK_STR(r.client.comm, "curl");
	CHECK_STR(r.server.comm, "");

	s = spec__nginx();
	CHECK_INT(spec__decode(&r, &s, -1, 0), 0);
	CHECK_INT(r.family, PPM_AF_INET6);
	CHECK_INT(r.side, REQ_SIDE_SERVER);
	CHECK_INT(r.outcome, TCP_OUTCOME_RESET);
	CHECK(r.established);
	CHECK_INT(r.client.ip[0], 0x20);
	CHECK_INT(r.client.ip[1], 0x01);
	CHECK_INT(r.client.ip[15], 5);
	CHECK(memcmp(r.server.ip, v6s, 16) == 0);
	CHECK_INT(r.client.port, 40000);
	CHECK_INT(r.server.port, 80);
	CHECK(r.server.local && !r.client.local);
	CHECK_INT(r.server.pid, 812);
	CHECK_INT(r.client.pid, 0);
	CHECK_STR(r.server.comm, "nginx");
	CHECK_INT(r.resets_received, 1);
}

/* Both families, both sides, every outcome, every field. */
static void test_matrix(void)
{
	for (int fam = 0; fam < 2; fam++) {
		for (uint8_t side = REQ_SIDE_CLIENT; side <= REQ_SIDE_SERVER; side++) {
			for (uint8_t o = 0; o < TCP_OUTCOME__COUNT; o++) {
				struct tcp_spec s = fam ? spec__nginx() : spec__curl();
				struct tcp_record r;

				s.side = side;
				s.outcome = o;
				s.rst_sent = 7;
				s.retrans = 0xfffffffe;
				s.received = 0x123456789abcdefULL;
				CHECK_INT(spec__decode(&r, &s, -1, 0), 0);
				record__expect(&r, &s);
			}
		}
	}
}

static void test_refused(void)
{
	struct tcp_spec s = spec__curl();
	struct frame_builder fb;
	struct tcp_record r;
	uint8_t buf[FRAME_MAX];
	uint32_t len;

	/* each fixed param one byte short, one long, empty */
	for (int i = 0; i < P_TUPLE; i++) {
		CHECK_INT(spec__decode(&r, &s, i, fixed_len[i] - 1), -EINVAL);
		CHECK_INT(spec__decode(&r, &s, i, fixed_len[i] + 1), -EINVAL);
		CHECK_INT(spec__decode(&r, &s, i, 0), -EINVAL);
	}
	/* a tuple of the other family's length, or none */
	for (int fam = 0; fam < 2; fam++) {
		static const uint16_t bad[] = { 0, 1, 12, 14, 36, 38 };
		uint16_t other = fam ? 13 : 37;

		s = fam ? spec__nginx() : spec__curl();
		CHECK_INT(spec__decode(&r, &s, P_TUPLE, other), -EINVAL);
		for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			CHECK_INT(spec__decode(&r, &s, P_TUPLE, bad[i]), -EINVAL);
	}
	/* families a TCP socket does not have, at both lengths */
	for (unsigned i = 0; i < 4; i++) {
		static const uint8_t fams[] = { 0, 1, 3, 0xff };

		s = spec__curl();
		s.tuple[0] = fams[i];
		CHECK_INT(spec__decode(&r, &s, -1, 0), -EINVAL);
		s = spec__nginx();
		s.tuple[0] = fams[i];
		CHECK_INT(spec__decode(&r, &s, -1, 0), -EINVAL);
	}
	s = spec__curl();
	s.tuple[0] = PPM_AF_INET6;
	CHECK_INT(spec__decode(&r, &s, -1, 0), -EINVAL);
	s = spec__nginx();
	s.tuple[0] = PPM_AF_INET;
	CHECK_INT(spec__decode(&r, &s, -1, 0), -EINVAL);
	/* sides and outcomes out of range */
	s = spec__curl();
	s.side = 0;
	CHECK_INT(spec__decode(&r, &s, -1, 0), -EINVAL);
	s.side = 3;
	CHECK_INT(spec__decode(&r, &s, -1, 0), -EINVAL);
	s.side = REQ_SIDE_SERVER;
	s.outcome = TCP_OUTCOME__COUNT;
	CHECK_INT(spec__decode(&r, &s, -1, 0), -EINVAL);
	s.outcome = 0xff;
	CHECK_INT(spec__decode(&r, &s, -1, 0), -EINVAL);
	s.outcome = TCP_OUTCOME_FAILED;
	CHECK_INT(spec__decode(&r, &s, -1, 0), 0);
	/* an older frame with fewer params: the schema takes it, the decoder not */
	fb__begin(&fb, buf, FRAME_MAX, PPME_TCP_CLOSE_E, TID, TS_END);
	fb__u64(&fb, 3100);
	fb__u8(&fb, REQ_SIDE_CLIENT);
	len = fb__end(&fb, 1);
	CHECK(len > 0);
	CHECK_INT(frame__decode(&r, buf, len), -EINVAL);
}

/* The driver copies 16 bytes of the name: one of 16 characters has no NUL. */
static void test_comm(void)
{
	struct tcp_spec s = spec__nginx();
	struct tcp_record r;

	memcpy(s.comm, "a-sixteen-chars!", 16);
	CHECK_INT(spec__decode(&r, &s, -1, 0), 0);
	CHECK_STR(r.server.comm, "a-sixteen-chars");
	CHECK_STR(r.client.comm, "");
	/* what follows a NUL is not the name */
	memcpy(s.comm, "ab\0cdefghijklmn", 16);
	CHECK_INT(spec__decode(&r, &s, -1, 0), 0);
	CHECK_STR(r.server.comm, "ab");
}

static void test_outcome_names(void)
{
	static const char *const want[] = {
		"closed", "reset", "refused", "timedout", "aborted", "failed",
	};

	CHECK_INT(sizeof(want) / sizeof(want[0]), TCP_OUTCOME__COUNT);
	for (unsigned o = 0; o < TCP_OUTCOME__COUNT; o++)
		CHECK_STR(tcp_outcome__name(o), want[o]);
	CHECK_STR(tcp_outcome__name(TCP_OUTCOME__COUNT), "?");
	CHECK_STR(tcp_outcome__name(0xff), "?");
	CHECK_STR(tcp_outcome__name(~0u), "?");
}

static struct field_ctx ctx;
static struct sbuf out;

/* FIELD of the record in ctx as -p prints it, or "<NA>". */
static const char *F(const char *field)
{
	return t_field(&ctx, &out, field, NULL);
}

static void test_fields(void)
{
	struct tcp_spec s = spec__nginx();
	struct tcp_record r;

	field_ctx__init(&ctx, NULL);
	sbuf__init(&out);
	CHECK_INT(spec__decode(&r, &s, -1, 0), 0);
	ctx.tcp = &r;
	CHECK_STR(F("tcp.side"), "server");
	CHECK_STR(F("tcp.outcome"), "reset");
	CHECK_STR(F("tcp.established"), "true");
	CHECK_STR(F("tcp.client"), "[2001:db8::5]:40000");
	CHECK_STR(F("tcp.server"), "[::1]:80");
	CHECK_STR(F("tcp.cip"), "2001:db8::5");
	CHECK_STR(F("tcp.sip"), "::1");
	CHECK_STR(F("tcp.cport"), "40000");
	CHECK_STR(F("tcp.sport"), "80");
	CHECK_STR(F("tcp.duration"), "2000000000");
	CHECK_STR(F("tcp.duration.human"), "2.00s");
	/* microseconds in the event, ns in the field */
	CHECK_STR(F("tcp.srtt"), "1250000");
	/* a server's record has no connect time */
	CHECK_STR(F("tcp.connect"), "<NA>");
	CHECK_STR(F("tcp.bytes.sent"), "1048576");
	CHECK_STR(F("tcp.bytes.received"), "310");
	CHECK_STR(F("tcp.retransmits"), "0");
	CHECK_STR(F("tcp.resets.sent"), "0");
	CHECK_STR(F("tcp.resets.received"), "1");
	/* only the local end has a process */
	CHECK_STR(F("tcp.server.pid"), "812");
	CHECK_STR(F("tcp.server.proc"), "nginx");
	CHECK_STR(F("tcp.server.container"), "host");
	CHECK_STR(F("tcp.client.pid"), "<NA>");
	CHECK_STR(F("tcp.client.proc"), "<NA>");
	CHECK_STR(F("tcp.client.container"), "<NA>");

	/* a refused connect: not established, no RTT; its pid not known */
	s = spec__curl();
	s.outcome = TCP_OUTCOME_REFUSED;
	s.connect = 0;
	s.srtt = 0;
	s.pid = 0;
	s.rst_recv = 1;
	CHECK_INT(spec__decode(&r, &s, -1, 0), 0);
	CHECK_STR(F("tcp.side"), "client");
	CHECK_STR(F("tcp.outcome"), "refused");
	CHECK_STR(F("tcp.established"), "false");
	CHECK_STR(F("tcp.client"), "192.168.0.1:54321");
	CHECK_STR(F("tcp.server"), "10.0.0.2:443");
	CHECK_STR(F("tcp.connect"), "<NA>");
	CHECK_STR(F("tcp.srtt"), "<NA>");
	CHECK_STR(F("tcp.client.pid"), "<NA>");
	CHECK_STR(F("tcp.client.proc"), "curl");
	CHECK_STR(F("tcp.server.pid"), "<NA>");
	/* established: its connect time in ns, as the event has it */
	s = spec__curl();
	CHECK_INT(spec__decode(&r, &s, -1, 0), 0);
	CHECK_STR(F("tcp.connect"), "150000");
	CHECK_STR(F("tcp.srtt"), "300000");
	CHECK_STR(F("tcp.client.pid"), "3100");
	CHECK_STR(F("tcp.retransmits"), "2");
	/* no record: absent */
	ctx.tcp = NULL;
	CHECK_STR(F("tcp.outcome"), "<NA>");
	sbuf__free(&out);
	field_ctx__fini(&ctx);
}

int main(void)
{
	test_known();
	test_matrix();
	test_refused();
	test_comm();
	test_outcome_names();
	test_fields();
	return t_report();
}
