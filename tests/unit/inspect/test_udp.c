/* Sockets named by the messages they carry, by sysdig 0.29.3's rules: an
 * unconnected UDP client's first sendto ("0.0.0.0:0->127.0.0.53:53", udp,
 * fd.sport=53 matches, as sysdig shows it), later sends and replies (a known
 * peer stays), a UDP server's recvfrom/sendto, sendmsg and recvmsg, IPv6, unix
 * datagrams, a sendto on an fd we did not see made (and undone when the kernel
 * says it is no socket), TCP sockets keeping their name; then connect again to
 * another peer (its enter gives it) and to AF_UNSPEC (the peer stays, the
 * local end is the tuple's), for unbound sockets, one bound to port 0 and one
 * bound to a port, IPv4 and IPv6. Failed calls change nothing. Beside
 * sysdig's names, the ends as the messages themselves gave them; and a
 * recvmmsg's and a sendmmsg's messages as request mode's compact events. */
#include <netinet/in.h>

#include "filter.h"
#include "test_util.h"

#define Q(x) ((uint64_t)(int64_t)(x))
#define TID 100

static struct t_ctx *t;
static struct field_ctx fctx;

static struct fd_info *fd(int64_t n)
{
	return t_fd(t, TID, n);
}

static const char *fdname(int64_t n)
{
	return t_fdname(t, TID, n);
}

/* Whether the current event matches filter EXPR. */
static bool match(const char *expr)
{
	struct filter_error err;
	struct filter *f = filter__compile(expr, &err);
	bool m;

	CHECK(f != NULL);
	if (!f)
		return false;
	m = filter__match(f, &t->ev, &fctx);
	filter__free(f);
	return m;
}

/* A SOCKTUPLE: IPv4 "a.b.c.d" text is not needed, the bytes are given. */
static uint16_t tuple4(uint8_t *b, const uint8_t sip[4], uint16_t sport, const uint8_t dip[4],
		       uint16_t dport)
{
	b[0] = PPM_AF_INET;
	memcpy(b + 1, sip, 4);
	memcpy(b + 5, &sport, 2);
	memcpy(b + 7, dip, 4);
	memcpy(b + 11, &dport, 2);
	return 13;
}

static const uint8_t ANY[4] = { 0, 0, 0, 0 }, STUB[4] = { 127, 0, 0, 53 },
	LO[4] = { 127, 0, 0, 1 };

static void socket_(int64_t res, uint32_t domain, uint32_t type)
{
	CHECK(t_emit(t, PPME_SOCKET_SOCKET_E, TID, "ddd", domain, type, 0u) == 0);
	CHECK(t_emit(t, PPME_SOCKET_SOCKET_X, TID, "q", Q(res)) == 0);
}

static void sendto_(int64_t fdn, const uint8_t *tup, uint16_t len, int64_t res)
{
	CHECK(t_emit(t, PPME_SOCKET_SENDTO_E, TID, "qdB", Q(fdn), 5u, tup, (unsigned)len) == 0);
	CHECK(t_emit(t, PPME_SOCKET_SENDTO_X, TID, "qB", Q(res), "hello", 5u) == 0);
}

static void recvfrom_(int64_t fdn, const uint8_t *tup, uint16_t len, int64_t res)
{
	CHECK(t_emit(t, PPME_SOCKET_RECVFROM_E, TID, "qd", Q(fdn), 512u) == 0);
	CHECK(t_emit(t, PPME_SOCKET_RECVFROM_X, TID, "qBB", Q(res), "reply", 5u, tup,
		     (unsigned)len) == 0);
}

/* connect(FDN, ADDR) (ALEN 0: AF_UNSPEC, whose enter has no address) = RES
 * with the exit's tuple TUP. */
static void connect_(int64_t fdn, const uint8_t *addr, uint16_t alen, const uint8_t *tup,
		     uint16_t len, int64_t res)
{
	CHECK(t_emit(t, PPME_SOCKET_CONNECT_E, TID, "qB", Q(fdn), alen ? addr : (const uint8_t *)"",
		     (unsigned)alen) == 0);
	CHECK(t_emit(t, PPME_SOCKET_CONNECT_X, TID, "qB", Q(res), tup, (unsigned)len) == 0);
}

static void sendto4(int64_t fdn, const uint8_t sip[4], uint16_t sport, const uint8_t dip[4],
		    uint16_t dport, int64_t res)
{
	uint8_t tup[13];

	sendto_(fdn, tup, tuple4(tup, sip, sport, dip, dport), res);
}

static void recvfrom4(int64_t fdn, const uint8_t sip[4], uint16_t sport, const uint8_t dip[4],
		      uint16_t dport, int64_t res)
{
	uint8_t tup[13];

	recvfrom_(fdn, tup, tuple4(tup, sip, sport, dip, dport), res);
}

/* The address asked for is the tuple's destination; 0.0.0.0:0 is AF_UNSPEC. */
static void connect4(int64_t fdn, const uint8_t sip[4], uint16_t sport, const uint8_t dip[4],
		     uint16_t dport, int64_t res)
{
	uint8_t tup[13], addr[7] = { PPM_AF_INET };

	memcpy(addr + 1, dip, 4);
	memcpy(addr + 5, &dport, 2);
	connect_(fdn, addr, dport || memcmp(dip, ANY, 4) ? 7 : 0, tup,
		 tuple4(tup, sip, sport, dip, dport), res);
}

static void test_udp_client(void)
{
	uint8_t tup[13];
	uint16_t n;
	struct fd_info *f;

	socket_(3, 2, 2);
	f = fd(3);
	CHECK(f && f->type == FDT_IPV4_SOCK && f->l4proto == IPPROTO_UDP && !f->name);
	/* the first sendto: the socket is not bound yet (port 0) */
	n = tuple4(tup, ANY, 0, STUB, 53);
	CHECK(t_emit(t, PPME_SOCKET_SENDTO_E, TID, "qdB", Q(3), 5u, tup, (unsigned)n) == 0);
	CHECK(t->ev.fd == f && f->name == NULL);	/* the enter shows it unnamed */
	CHECK(t_emit(t, PPME_SOCKET_SENDTO_X, TID, "qB", Q(5), "hello", 5u) == 0);
	CHECK_STR(fdname(3), "0.0.0.0:0->127.0.0.53:53");
	CHECK(f->sport == 0 && f->dport == 53 && !f->is_server && f->family == PPM_AF_INET);
	CHECK(memcmp(f->dip, STUB, 4) == 0);
	CHECK(t->ev.fd == f && t->ev.fdnum == 3);
	CHECK(match("fd.sport=53 and fd.l4proto=udp and fd.sip=127.0.0.53 and fd.rport=53"));
	CHECK(match("fd.name=\"0.0.0.0:0->127.0.0.53:53\" and fd.type=ipv4 and fd.cport=0"));
	CHECK(!match("fd.sport=0"));
	/* the kernel bound it meanwhile: the next sendto shows the port */
	sendto4(3, ANY, 40000, STUB, 53, 5);
	CHECK_STR(fdname(3), "0.0.0.0:40000->127.0.0.53:53");
	CHECK(f->sport == 40000 && !f->is_server);
	/* the reply comes remote -> local: the client stays the source */
	recvfrom4(3, STUB, 53, ANY, 40000, 5);
	CHECK_STR(fdname(3), "0.0.0.0:40000->127.0.0.53:53");
	CHECK(match("fd.sport=53 and fd.cport=40000 and fd.lport=40000"));
	/* another server on the same socket: a known peer stays, as in sysdig */
	sendto4(3, ANY, 40000, LO, 5353, 5);
	CHECK_STR(fdname(3), "0.0.0.0:40000->127.0.0.53:53");
	/* failures change nothing */
	sendto4(3, ANY, 40000, STUB, 99, -11);
	CHECK_STR(fdname(3), "0.0.0.0:40000->127.0.0.53:53");
	recvfrom_(3, tup, n, -4);
	CHECK_STR(fdname(3), "0.0.0.0:40000->127.0.0.53:53");
	/* a send without an address (connected use): no tuple, nothing changes */
	sendto_(3, (const uint8_t *)"", 0, 5);
	CHECK_STR(fdname(3), "0.0.0.0:40000->127.0.0.53:53");
	/* sendmsg (tuple on the enter) and recvmsg (on the exit) */
	n = tuple4(tup, ANY, 40000, STUB, 53);
	CHECK(t_emit(t, PPME_SOCKET_SENDMSG_E, TID, "qdB", Q(3), 5u, tup, (unsigned)n) == 0);
	CHECK(t_emit(t, PPME_SOCKET_SENDMSG_X, TID, "qB", Q(5), "hello", 5u) == 0);
	CHECK_STR(fdname(3), "0.0.0.0:40000->127.0.0.53:53");
	/* a reply from the other server: its source becomes the socket's source
	 * end (the peer stays), and a client's receive is turned: sysdig's
	 * "127.0.0.53:53->127.0.0.1:5353" */
	n = tuple4(tup, LO, 5353, ANY, 40000);
	CHECK(t_emit(t, PPME_SOCKET_RECVMSG_E, TID, "q", Q(3)) == 0);
	CHECK(t_emit(t, PPME_SOCKET_RECVMSG_X, TID, "qdBB", Q(5), 5u, "reply", 5u, tup,
		     (unsigned)n) == 0);
	CHECK_STR(fdname(3), "127.0.0.53:53->127.0.0.1:5353");
	CHECK(t->ev.fd == f && t->ev.fdnum == 3);
	CHECK(t_emit(t, PPME_SOCKET_RECVMSG_E, TID, "q", Q(3)) == 0);
	CHECK(t_emit(t, PPME_SOCKET_RECVMSG_X, TID, "qdBB", Q(-11), 0u, "", 0u, "", 0u) == 0);
	CHECK_STR(fdname(3), "127.0.0.53:53->127.0.0.1:5353");
	/* an exit whose enter we missed knows no fd: nothing changes */
	n = tuple4(tup, LO, 9, ANY, 40000);
	CHECK(t_emit(t, PPME_SOCKET_RECVFROM_X, TID, "qBB", Q(5), "x", 1u, tup, (unsigned)n) == 0);
	CHECK_STR(fdname(3), "127.0.0.53:53->127.0.0.1:5353");
}

/* The ends as the messages gave them (mlip/mlport, mrip/mrport), which
 * request mode names a datagram by: a client whose answer comes right after
 * its first sendto, where sysdig's rules give it the server's port as its
 * own. */
static void test_msg_ends(void)
{
	uint8_t tup[13];
	uint16_t n;
	struct fd_info *f;

	socket_(7, 2, 2);
	f = fd(7);
	CHECK(f && !f->mlport && !f->mrport);
	/* the enter's tuple names no port of this end: only the peer is known */
	n = tuple4(tup, ANY, 0, STUB, 53);
	sendto_(7, tup, n, 5);
	CHECK(!f->mlport && f->mrport == 53 && memcmp(f->mrip, STUB, 4) == 0);
	/* the answer, remote -> local, names this end's port */
	recvfrom4(7, STUB, 53, ANY, 40000, 5);
	CHECK_STR(fdname(7), "127.0.0.53:53->127.0.0.53:53");	/* sysdig's */
	CHECK(f->mlport == 40000 && memcmp(f->mlip, ANY, 4) == 0);
	CHECK(f->mrport == 53 && memcmp(f->mrip, STUB, 4) == 0);
	/* another peer: the peer follows the message, this end stays */
	sendto4(7, ANY, 40000, LO, 5353, 5);
	CHECK(f->mlport == 40000 && f->mrport == 5353 && memcmp(f->mrip, LO, 4) == 0);
	/* a failed call and a send with no address change nothing */
	recvfrom_(7, tup, n, -4);
	sendto_(7, (const uint8_t *)"", 0, 5);
	CHECK(f->mlport == 40000 && f->mrport == 5353 && memcmp(f->mrip, LO, 4) == 0);
}

/* A UDP socket FDN bound to 0.0.0.0:PORT. */
static struct fd_info *udp_bound(int64_t fdn, uint16_t port)
{
	uint8_t addr[7] = { PPM_AF_INET, 0, 0, 0, 0 };

	socket_(fdn, 2, 2);
	memcpy(addr + 5, &port, 2);
	CHECK(t_emit(t, PPME_SOCKET_BIND_E, TID, "q", Q(fdn)) == 0);
	CHECK(t_emit(t, PPME_SOCKET_BIND_X, TID, "qB", Q(0), addr, 7u) == 0);
	return fd(fdn);
}

static void test_udp_server(void)
{
	struct fd_info *f = udp_bound(4, 53);

	CHECK_STR(fdname(4), "0.0.0.0:53");
	CHECK(f && f->is_server);
	/* a query: remote -> local, the client is the source */
	recvfrom4(4, LO, 4444, ANY, 53, 30);
	CHECK_STR(fdname(4), "127.0.0.1:4444->0.0.0.0:53");
	CHECK(f->is_server && f->sport == 4444 && f->dport == 53);
	CHECK(match("fd.sport=53 and fd.cip=127.0.0.1 and fd.lport=53 and fd.rport=4444"));
	/* the answer (local -> remote) is the same conversation */
	sendto4(4, ANY, 53, LO, 4444, 60);
	CHECK_STR(fdname(4), "127.0.0.1:4444->0.0.0.0:53");
	/* the next client */
	sendto4(4, ANY, 53, LO, 5555, 60);
	CHECK_STR(fdname(4), "127.0.0.1:5555->0.0.0.0:53");
	CHECK(f->is_server);
}

/* Request mode's compact events of a recvmmsg's and a sendmmsg's messages
 * (BIND reads its queries with one, answers with the other, naming each
 * client): a message's tuple names its peer as recvfrom's and sendto's do;
 * one with no tuple (a connected socket's) changes nothing. */
static void test_mmsg_server(void)
{
	struct fd_info *f = udp_bound(19, 5300);
	uint8_t tup[13];

	/* two queries of one recvmmsg, from two clients */
	CHECK(t_emit(t, PPME_SOCK_RECV_X, TID, "qqwBddB", Q(30), Q(19), 299u, "q1", 2u, 0u, 0u, tup,
		     (unsigned)tuple4(tup, LO, 4444, LO, 5300)) == 0);
	CHECK(t->ev.fd == f && f->mrport == 4444 && f->mlport == 5300);
	CHECK_STR(t->ev.name, "recvmmsg");
	CHECK_STR(fdname(19), "127.0.0.1:4444->127.0.0.1:5300");
	CHECK(f->is_server && match("fd.sport=5300 and fd.rport=4444"));
	CHECK(t_emit(t, PPME_SOCK_RECV_X, TID, "qqwBddB", Q(31), Q(19), 299u, "q2", 2u, 0u, 0u, tup,
		     (unsigned)tuple4(tup, LO, 5555, LO, 5300)) == 0);
	CHECK(f->mrport == 5555 && memcmp(f->mrip, LO, 4) == 0);
	CHECK_STR(fdname(19), "127.0.0.1:5555->127.0.0.1:5300");
	/* the answers, local -> remote, one sendmmsg each */
	CHECK(t_emit(t, PPME_SOCK_SEND_X, TID, "qqwBddB", Q(60), Q(19), 307u, "a1", 2u, 0u, 0u, tup,
		     (unsigned)tuple4(tup, LO, 5300, LO, 4444)) == 0);
	CHECK(f->mrport == 4444 && f->mlport == 5300);
	CHECK_STR(t->ev.name, "sendmmsg");
	CHECK_STR(fdname(19), "127.0.0.1:4444->127.0.0.1:5300");
	/* no tuple, or a failed message: nothing changes */
	CHECK(t_emit(t, PPME_SOCK_SEND_X, TID, "qqwBdde", Q(60), Q(19), 307u, "a2", 2u, 0u, 0u) == 0);
	CHECK(f->mrport == 4444);
	CHECK(t_emit(t, PPME_SOCK_RECV_X, TID, "qqwBddB", Q(-11), Q(19), 299u, "", 0u, 0u, 0u, tup,
		     (unsigned)tuple4(tup, LO, 6666, LO, 5300)) == 0);
	CHECK(f->mrport == 4444);
	CHECK_STR(fdname(19), "127.0.0.1:4444->127.0.0.1:5300");
}

static void test_unknown_and_other(void)
{
	uint8_t tup[13], v6[37] = { PPM_AF_INET6 };
	uint16_t n, p;
	struct fd_info *f;

	/* a sendto on an fd we never saw made: a UDP socket, shown on the enter */
	n = tuple4(tup, ANY, 0, STUB, 53);
	CHECK(t_emit(t, PPME_SOCKET_SENDTO_E, TID, "qdB", Q(7), 5u, tup, (unsigned)n) == 0);
	f = fd(7);
	CHECK(f && t->ev.fd == f && f->type == FDT_IPV4_SOCK && f->l4proto == IPPROTO_UDP);
	CHECK(t_emit(t, PPME_SOCKET_SENDTO_X, TID, "qB", Q(5), "hello", 5u) == 0);
	CHECK_STR(fdname(7), "0.0.0.0:0->127.0.0.53:53");
	/* the guess is undone when the kernel says there is no such socket */
	sendto_(8, tup, n, -9);		/* EBADF */
	CHECK(fd(8) == NULL);
	sendto_(8, tup, n, -88);	/* ENOTSOCK */
	CHECK(fd(8) == NULL);
	sendto_(8, tup, n, -11);	/* EAGAIN: it is a socket */
	CHECK(fd(8) && fd(8)->type == FDT_IPV4_SOCK && !fd(8)->name);
	/* a socket that has a name is kept (sysdig never removes one either) */
	sendto_(7, tup, n, -9);
	CHECK(fd(7) != NULL);
	/* a unix address makes no guess */
	CHECK(t_emit(t, PPME_SOCKET_SENDTO_E, TID, "qdB", Q(9), 1u, "\x01\0\0\0\0\0\0\0\0"
		     "\0\0\0\0\0\0\0\0/run/log", 26u) == 0);
	CHECK(fd(9) == NULL);

	/* IPv6 */
	socket_(10, 10, 2);
	p = 50000; memcpy(v6 + 17, &p, 2);
	v6[19] = 0x20; v6[20] = 0x01; v6[21] = 0x0d; v6[22] = 0xb8; v6[34] = 1;
	p = 53; memcpy(v6 + 35, &p, 2);
	CHECK(t_emit(t, PPME_SOCKET_SENDTO_E, TID, "qdB", Q(10), 5u, v6, 37u) == 0);
	CHECK(t_emit(t, PPME_SOCKET_SENDTO_X, TID, "qB", Q(5), "hello", 5u) == 0);
	CHECK_STR(fdname(10), ":::50000->2001:db8::1:53");
	CHECK(fd(10) && fd(10)->type == FDT_IPV6_SOCK && fd(10)->l4proto == IPPROTO_UDP);

	/* unix datagrams: the name is the tuple text, as sysdig's */
	socket_(11, 1, 2);
	CHECK(t_emit(t, PPME_SOCKET_SENDTO_E, TID, "qdB", Q(11), 1u, "\x01\0\0\0\0\0\0\0\0"
		     "\x00\x94\x7b\x81\xdc\x94\xff\xff/dev/log", 26u) == 0);
	CHECK(t_emit(t, PPME_SOCKET_SENDTO_X, TID, "qB", Q(1), "x", 1u) == 0);
	CHECK_STR(fdname(11), "0->ffff94dc817b9400 /dev/log");

	/* a connected TCP socket keeps the name its connect gave it */
	socket_(12, 2, 1);
	connect4(12, LO, 33333, LO, 80, 0);
	CHECK_STR(fdname(12), "127.0.0.1:33333->127.0.0.1:80");
	sendto4(12, LO, 33333, LO, 8080, 5);
	CHECK_STR(fdname(12), "127.0.0.1:33333->127.0.0.1:80");
	/* one whose connect we missed takes the tuple, still TCP */
	socket_(13, 2, 1);
	sendto4(13, LO, 33333, LO, 8080, 5);
	CHECK_STR(fdname(13), "127.0.0.1:33333->127.0.0.1:8080");
	CHECK(fd(13) && fd(13)->l4proto == IPPROTO_TCP);
}

static void test_reconnect(void)
{
	uint8_t addr[7] = { PPM_AF_INET, 0, 0, 0, 0 };
	uint16_t port = 5555;
	struct fd_info *f;

	/* connect, connect elsewhere: the enter already holds the new peer, the
	 * exit names the socket (the kernel keeps the local end) */
	socket_(20, 2, 2);
	f = fd(20);
	CHECK(f && f->no_role);
	connect4(20, LO, 37062, STUB, 53, 0);
	CHECK_STR(fdname(20), "127.0.0.1:37062->127.0.0.53:53");
	CHECK(!f->no_role && !f->is_server);
	connect4(20, LO, 37062, LO, 9999, 0);
	CHECK_STR(fdname(20), "127.0.0.1:37062->127.0.0.1:9999");
	CHECK(f->dport == 9999 && f->sport == 37062 && !f->is_server && f->l4proto == IPPROTO_UDP);
	/* a failed AF_UNSPEC changes nothing */
	connect4(20, ANY, 0, ANY, 0, -22);
	CHECK_STR(fdname(20), "127.0.0.1:37062->127.0.0.1:9999");
	/* AF_UNSPEC: the kernel drops the peer and the automatic port; sysdig
	 * keeps the peer and takes the local end from the tuple */
	connect4(20, ANY, 0, ANY, 0, 0);
	CHECK_STR(fdname(20), "0.0.0.0:0->127.0.0.1:9999");
	CHECK(f->sport == 0 && f->dport == 9999 && !f->is_server && f->l4proto == IPPROTO_UDP);
	CHECK(match("fd.l4proto=udp and fd.sport=9999"));
	/* used unconnected again: the known peer stays */
	sendto4(20, ANY, 0, STUB, 53, 5);
	CHECK_STR(fdname(20), "0.0.0.0:0->127.0.0.1:9999");

	/* bound to a port (a UDP server's socket): the bound address becomes its
	 * source end, and IPv4's connect names the peer first (sysdig's server
	 * order) */
	socket_(21, 2, 2);
	f = fd(21);
	memcpy(addr + 5, &port, 2);
	CHECK(t_emit(t, PPME_SOCKET_BIND_E, TID, "q", Q(21)) == 0);
	CHECK(t_emit(t, PPME_SOCKET_BIND_X, TID, "qB", Q(0), addr, 7u) == 0);
	CHECK_STR(fdname(21), "0.0.0.0:5555");
	CHECK(f->is_server && !f->no_role && f->dport == 5555);
	connect4(21, LO, 5555, LO, 9999, 0);
	CHECK_STR(fdname(21), "127.0.0.1:9999->127.0.0.1:5555");
	CHECK(f->is_server && f->sport == 9999 && f->dport == 5555);
	connect4(21, ANY, 5555, ANY, 0, 0);
	CHECK_STR(fdname(21), "127.0.0.1:5555->0.0.0.0:5555");
	CHECK(match("fd.sport=5555 and fd.lport=5555"));
}

/* An IPv6 address param or tuple end: ::1 when LOOP, PORT. */
static void end6(uint8_t *at, bool loop, uint16_t port)
{
	memset(at, 0, 16);
	at[15] = loop;
	memcpy(at + 16, &port, 2);
}

/* IPv6: [::1]:2345 then [::1]:2346, a socket bound to port 0 of ::1, and a
 * connect to a v4-mapped address that fails. */
static void test_reconnect6(void)
{
	uint8_t a1[19] = { PPM_AF_INET6 }, a2[19] = { PPM_AF_INET6 }, tup[37] = { PPM_AF_INET6 };
	struct fd_info *f;

	end6(a1 + 1, true, 2345);
	end6(a2 + 1, true, 2346);
	end6(tup + 1, true, 40000);
	end6(tup + 19, true, 2345);
	socket_(30, 10, 2);
	f = fd(30);
	connect_(30, a1, 19, tup, 37, 0);
	CHECK_STR(fdname(30), "::1:40000->::1:2345");
	/* the enter of the second connect: the socket as the first left it,
	 * with the new peer already */
	CHECK(t_emit(t, PPME_SOCKET_CONNECT_E, TID, "qB", Q(30), a2, 19u) == 0);
	CHECK(t->ev.fd == f && f->dport == 2346);
	CHECK_STR(fdname(30), "::1:40000->::1:2345");
	end6(tup + 19, true, 2346);
	CHECK(t_emit(t, PPME_SOCKET_CONNECT_X, TID, "qB", Q(0), tup, 37u) == 0);
	CHECK_STR(fdname(30), "::1:40000->::1:2346");
	/* AF_UNSPEC: the driver's tuple ":::0->::1:0" */
	end6(tup + 1, false, 0);
	end6(tup + 19, true, 0);
	connect_(30, NULL, 0, tup, 37, 0);
	CHECK_STR(fdname(30), ":::0->::1:2346");
	CHECK(f->type == FDT_IPV6_SOCK && !f->no_role);

	/* bound to port 0 of ::1: named by the address, no role, no server */
	socket_(31, 10, 2);
	f = fd(31);
	end6(a1 + 1, true, 0);
	CHECK(t_emit(t, PPME_SOCKET_BIND_E, TID, "q", Q(31)) == 0);
	CHECK(t_emit(t, PPME_SOCKET_BIND_X, TID, "qB", Q(0), a1, 19u) == 0);
	CHECK_STR(fdname(31), "::1:0");
	CHECK(f->no_role && !f->is_server && f->dport == 0);
	CHECK(t_emit(t, PPME_SOCKET_CONNECT_E, TID, "qB", Q(31), a2, 19u) == 0);
	CHECK_STR(fdname(31), "::1:0");
	CHECK(f->no_role && f->dport == 2346);

	/* a v4-mapped peer makes the socket IPv4 on the enter; the failed exit
	 * shows its tuple, IPv4 as both ends stand for IPv4 (:: does too) */
	socket_(32, 10, 2);
	f = fd(32);
	end6(a1 + 1, false, 2345);
	a1[11] = a1[12] = 0xff;
	a1[13] = 127;
	a1[16] = 1;
	end6(tup + 1, false, 40000);
	memcpy(tup + 19, a1 + 1, 18);
	connect_(32, a1, 19, tup, 37, -101);
	CHECK(f->type == FDT_IPV4_SOCK && f->dport == 2345 && f->name == NULL);
	CHECK(t->ev.fd && t->ev.fd != f && t->ev.fd->type == FDT_IPV4_SOCK);
	CHECK_STR(t->ev.fd ? t->ev.fd->name : NULL, "0.0.0.0:40000->127.0.0.1:2345");
}

int main(void)
{
	char *root = t_tmpdir();

	t = t_new(root);
	field_ctx__init(&fctx, inspector__threads(t->in));
	CHECK(t_spawn(t, TID, 1, "app", "/") == 0);
	test_udp_client();
	test_msg_ends();
	test_udp_server();
	test_mmsg_server();
	test_unknown_and_other();
	test_reconnect();
	test_reconnect6();
	field_ctx__fini(&fctx);
	t_free(t, root);
	return t_report();
}
