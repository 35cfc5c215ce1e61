/* sendto/recvfrom and sendmsg/recvmsg on UDP over 127.0.0.1 with known payloads
 * (tuples from the named addresses), data cut to the default snaplen (80) and a
 * configured one, iovecs gathered across boundaries, and failures (EBADF,
 * EDESTADDRREQ). */
#include <sys/uio.h>

#include "pn_test.h"

#define BAD_FD 9999

static int64_t me;
static uint8_t big[300];

/* The calls checked (glibc's wrappers are these syscalls), for both loads. */
static const int sendrecv_calls[] = { SYS_sendto, SYS_recvfrom, SYS_sendmsg, SYS_recvmsg, -1 };

static struct hevt *next(struct harness *h, uint16_t type, int *at)
{
	struct hevt *e = harness__find(h, type, at);

	EXPECT(e != NULL);
	if (e)
		hevt__expect_header(e, type, me);
	return e;
}

struct udp {
	int srv, cli;
	struct sockaddr_in srv_a, cli_a;
};

static void udp__open(struct udp *u)
{
	u->srv_a = pn_in4("127.0.0.1", 0);
	u->cli_a = pn_in4("127.0.0.1", 0);
	u->srv = pn_udp_bind(AF_INET, &u->srv_a, sizeof(u->srv_a));
	u->cli = pn_udp_bind(AF_INET, &u->cli_a, sizeof(u->cli_a));
	if (u->srv < 0 || u->cli < 0) {
		perror("udp bind");
		exit(1);
	}
}

static void udp__close(struct udp *u)
{
	close(u->srv);
	close(u->cli);
}

static void test_sendto_recvfrom(struct harness *h)
{
	struct sockaddr_in from;
	socklen_t flen = sizeof(from);
	uint8_t tup[64], buf[512];
	size_t tlen;
	struct udp u;
	struct hevt *e;
	int at = 0;

	udp__open(&u);
	harness__drain(h, -1);
	EXPECT(sendto(u.cli, "hello udp", 9, 0, (void *)&u.srv_a, sizeof(u.srv_a)) == 9);
	EXPECT(recvfrom(u.srv, buf, 100, 0, (void *)&from, &flen) == 9);
	EXPECT(sendto(u.cli, big, 200, 0, (void *)&u.srv_a, sizeof(u.srv_a)) == 200);
	EXPECT(recvfrom(u.srv, buf, sizeof(buf), 0, NULL, NULL) == 200);
	sendto(u.cli, "x", 1, 0, NULL, 0);		/* unconnected: EDESTADDRREQ */
	sendto(BAD_FD, "x", 1, 0, (void *)&u.srv_a, sizeof(u.srv_a));
	recvfrom(BAD_FD, buf, 10, 0, (void *)&from, &flen);
	harness__drain(h, me);

	tlen = pn_tuple_bytes(tup, (void *)&u.cli_a, (void *)&u.srv_a);
	e = next(h, PPME_SOCKET_SENDTO_E, &at);
	if (e) {
		EXPECT_PARAM_INT(e, 0, u.cli);
		EXPECT_PARAM_INT(e, 1, 9);
		EXPECT_PARAM_BYTES(e, 2, tup, tlen);
	}
	e = next(h, PPME_SOCKET_SENDTO_X, &at);
	if (e) {
		EXPECT_PARAM_INT(e, 0, 9);
		EXPECT_PARAM_BYTES(e, 1, "hello udp", 9);
	}
	e = next(h, PPME_SOCKET_RECVFROM_E, &at);
	if (e) {
		EXPECT_PARAM_INT(e, 0, u.srv);
		EXPECT_PARAM_INT(e, 1, 100);
	}
	e = next(h, PPME_SOCKET_RECVFROM_X, &at);
	if (e) {
		EXPECT_PARAM_INT(e, 0, 9);
		EXPECT_PARAM_BYTES(e, 1, "hello udp", 9);
		/* Inbound: the sender is the source. */
		EXPECT_PARAM_BYTES(e, 2, tup, tlen);
	}
	/* 200 bytes: the default snaplen keeps 80. */
	next(h, PPME_SOCKET_SENDTO_E, &at);
	e = next(h, PPME_SOCKET_SENDTO_X, &at);
	if (e) {
		EXPECT_PARAM_INT(e, 0, 200);
		EXPECT_PARAM_BYTES(e, 1, big, 80);
	}
	e = next(h, PPME_SOCKET_RECVFROM_E, &at);
	if (e)
		EXPECT_PARAM_INT(e, 1, sizeof(buf));
	e = next(h, PPME_SOCKET_RECVFROM_X, &at);
	if (e) {
		EXPECT_PARAM_INT(e, 0, 200);
		EXPECT_PARAM_BYTES(e, 1, big, 80);
		EXPECT_PARAM_EMPTY(e, 2);	/* no address asked for */
	}
	e = next(h, PPME_SOCKET_SENDTO_E, &at);
	if (e) {
		EXPECT_PARAM_INT(e, 1, 1);
		EXPECT_PARAM_EMPTY(e, 2);
	}
	e = next(h, PPME_SOCKET_SENDTO_X, &at);
	if (e) {
		EXPECT_PARAM_INT(e, 0, -EDESTADDRREQ);
		EXPECT_PARAM_EMPTY(e, 1);
	}
	e = next(h, PPME_SOCKET_SENDTO_E, &at);
	if (e) {
		EXPECT_PARAM_INT(e, 0, BAD_FD);
		EXPECT_PARAM_EMPTY(e, 2);	/* no socket behind the fd */
	}
	e = next(h, PPME_SOCKET_SENDTO_X, &at);
	if (e) {
		EXPECT_PARAM_INT(e, 0, -EBADF);
		EXPECT_PARAM_EMPTY(e, 1);
	}
	next(h, PPME_SOCKET_RECVFROM_E, &at);
	e = next(h, PPME_SOCKET_RECVFROM_X, &at);
	if (e) {
		EXPECT_PARAM_INT(e, 0, -EBADF);
		EXPECT_PARAM_EMPTY(e, 1);
		EXPECT_PARAM_EMPTY(e, 2);
	}
	udp__close(&u);
}

static void test_sendmsg_recvmsg(struct harness *h)
{
	struct iovec out[3] = { { "abc", 3 }, { "defgh", 5 }, { big, 150 } };
	char in1[4], in2[300];
	struct iovec in[2] = { { in1, sizeof(in1) }, { in2, sizeof(in2) } };
	struct sockaddr_in from;
	struct msghdr m = { .msg_name = NULL };
	uint8_t tup[64], want[100];
	size_t tlen;
	struct udp u;
	struct hevt *e;
	int at = 0;

	udp__open(&u);
	harness__drain(h, -1);
	m = (struct msghdr){ .msg_name = &u.srv_a, .msg_namelen = sizeof(u.srv_a),
			     .msg_iov = out, .msg_iovlen = 2 };
	EXPECT(sendmsg(u.cli, &m, 0) == 8);
	m = (struct msghdr){ .msg_name = &from, .msg_namelen = sizeof(from),
			     .msg_iov = in, .msg_iovlen = 2 };
	EXPECT(recvmsg(u.srv, &m, 0) == 8);
	/* 158 bytes over three iovecs: 80 kept, cut inside the third. */
	m = (struct msghdr){ .msg_name = &u.srv_a, .msg_namelen = sizeof(u.srv_a),
			     .msg_iov = out, .msg_iovlen = 3 };
	EXPECT(sendmsg(u.cli, &m, 0) == 158);
	m = (struct msghdr){ .msg_iov = in, .msg_iovlen = 2 };
	EXPECT(recvmsg(u.srv, &m, 0) == 158);
	m = (struct msghdr){ .msg_iov = out, .msg_iovlen = 1 };
	sendmsg(BAD_FD, &m, 0);
	recvmsg(BAD_FD, &m, 0);
	harness__drain(h, me);

	tlen = pn_tuple_bytes(tup, (void *)&u.cli_a, (void *)&u.srv_a);
	e = next(h, PPME_SOCKET_SENDMSG_E, &at);
	if (e) {
		EXPECT_PARAM_INT(e, 0, u.cli);
		EXPECT_PARAM_INT(e, 1, 8);
		EXPECT_PARAM_BYTES(e, 2, tup, tlen);
	}
	e = next(h, PPME_SOCKET_SENDMSG_X, &at);
	if (e) {
		EXPECT_PARAM_INT(e, 0, 8);
		EXPECT_PARAM_BYTES(e, 1, "abcdefgh", 8);
	}
	e = next(h, PPME_SOCKET_RECVMSG_E, &at);
	if (e)
		EXPECT_PARAM_INT(e, 0, u.srv);
	e = next(h, PPME_SOCKET_RECVMSG_X, &at);
	if (e) {
		EXPECT_PARAM_INT(e, 0, 8);
		EXPECT_PARAM_INT(e, 1, sizeof(in1) + sizeof(in2));
		EXPECT_PARAM_BYTES(e, 2, "abcdefgh", 8);
		EXPECT_PARAM_BYTES(e, 3, tup, tlen);
	}
	memcpy(want, "abcdefgh", 8);
	memcpy(want + 8, big, 72);
	next(h, PPME_SOCKET_SENDMSG_E, &at);
	e = next(h, PPME_SOCKET_SENDMSG_X, &at);
	if (e) {
		EXPECT_PARAM_INT(e, 0, 158);
		EXPECT_PARAM_BYTES(e, 1, want, 80);
	}
	next(h, PPME_SOCKET_RECVMSG_E, &at);
	e = next(h, PPME_SOCKET_RECVMSG_X, &at);
	if (e) {
		EXPECT_PARAM_INT(e, 0, 158);
		EXPECT_PARAM_BYTES(e, 2, want, 80);
		EXPECT_PARAM_EMPTY(e, 3);	/* no msg_name */
	}
	e = next(h, PPME_SOCKET_SENDMSG_E, &at);
	if (e) {
		EXPECT_PARAM_INT(e, 0, BAD_FD);
		EXPECT_PARAM_INT(e, 1, 3);
		EXPECT_PARAM_EMPTY(e, 2);
	}
	e = next(h, PPME_SOCKET_SENDMSG_X, &at);
	if (e) {
		EXPECT_PARAM_INT(e, 0, -EBADF);
		EXPECT_PARAM_EMPTY(e, 1);
	}
	next(h, PPME_SOCKET_RECVMSG_E, &at);
	e = next(h, PPME_SOCKET_RECVMSG_X, &at);
	if (e) {
		EXPECT_PARAM_INT(e, 0, -EBADF);
		EXPECT_PARAM_INT(e, 1, 3);
		EXPECT_PARAM_EMPTY(e, 2);
		EXPECT_PARAM_EMPTY(e, 3);
	}
	udp__close(&u);
}

/* A configured snaplen of 150 keeps 150 of 200 bytes, for both calls. */
static void test_snaplen(void)
{
	const struct driver_config cfg = { .own_tgid = UINT32_MAX, .snaplen = 150,
					   .syscalls = harness__only(sendrecv_calls) };
	struct harness *h = harness__open(256, &cfg);
	struct iovec out[2] = { { big, 100 }, { big + 100, 100 } };
	struct msghdr m;
	struct udp u;
	struct hevt *e;
	int at = 0;

	udp__open(&u);
	harness__drain(h, -1);
	sendto(u.cli, big, 200, 0, (void *)&u.srv_a, sizeof(u.srv_a));
	m = (struct msghdr){ .msg_name = &u.srv_a, .msg_namelen = sizeof(u.srv_a),
			     .msg_iov = out, .msg_iovlen = 2 };
	sendmsg(u.cli, &m, 0);
	harness__drain(h, me);
	e = next(h, PPME_SOCKET_SENDTO_X, &at);
	if (e)
		EXPECT_PARAM_BYTES(e, 1, big, 150);
	e = next(h, PPME_SOCKET_SENDMSG_X, &at);
	if (e)
		EXPECT_PARAM_BYTES(e, 1, big, 150);
	udp__close(&u);
	harness__close(h);
}

int main(void)
{
	struct harness *h;

	me = pn_gettid();
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = 'A' + i % 26;
	h = pn_open(256, sendrecv_calls);
	test_sendto_recvfrom(h);
	test_sendmsg_recvmsg(h);
	harness__close(h);
	test_snaplen();
	return harness__report("procnet_sendrecv");
}
