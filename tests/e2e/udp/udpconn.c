/* UDP sockets connected again, on loopback only (tests/e2e/test_udp_connect.sh):
 * udpconn P1 P2 PB: each case on one socket, one after the other.
 *   6 / 4:   connect to peer 1, send, connect to peer 2, send, sendto peer 2,
 *            connect to AF_UNSPEC (dissolves the association), sendto peer 1
 *            (peer 1 is [::1]:P1 or 127.0.0.1:P1, peer 2 [::1]:P2 or
 *            127.0.0.2:P2), close
 *   6b / 4b: the same on a socket bound to port 0 of ::1 / 127.0.0.1
 *   6p / 4p: the same on a socket bound to port PB
 *   6s:      sendto peer 1 before any connect, then connect to peer 2, send
 *   6f:      an IPV6_V6ONLY socket connects to ::ffff:127.0.0.1 (fails:
 *            ENETUNREACH), then to peer 2, send
 *   4u / 6u: never connected: sendto peer 1, its reply, sendto peer 2, its
 *            reply, sendto peer 1, its reply (the peers echo)
 * udpconn server PS: a UDP server on 127.0.0.1:PS that says "ready" and reads
 * one datagram.
 * Exits 1 when a call that should work fails. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

static int failed;

static void must(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "udpconn: %s: %s\n", what, strerror(errno));
		failed = 1;
	}
}

static socklen_t addr(int family, const char *ip, int port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		inet_pton(AF_INET6, ip, &a->sin6_addr);
		return sizeof(*a);
	}
	struct sockaddr_in *a = (struct sockaddr_in *)ss;

	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)port);
	inet_pton(AF_INET, ip, &a->sin_addr);
	return sizeof(*a);
}

static void peer(int family, int which, int p1, int p2, struct sockaddr_storage *ss,
		 socklen_t *len)
{
	if (family == AF_INET6)
		*len = addr(family, "::1", which == 1 ? p1 : p2, ss);
	else
		*len = addr(family, which == 1 ? "127.0.0.1" : "127.0.0.2", which == 1 ? p1 : p2, ss);
}

/* The connect-again case on a socket; BIND: -1 none, else the port to bind to. */
static void again(int family, int bind_port, int p1, int p2)
{
	int s = socket(family, SOCK_DGRAM, 0);
	struct sockaddr_storage a, unspec = { .ss_family = AF_UNSPEC };
	socklen_t len;

	must(s >= 0, "socket");
	if (bind_port >= 0) {
		len = addr(family, family == AF_INET6 ? "::1" : "127.0.0.1", bind_port, &a);
		must(bind(s, (struct sockaddr *)&a, len) == 0, "bind");
	}
	peer(family, 1, p1, p2, &a, &len);
	must(connect(s, (struct sockaddr *)&a, len) == 0, "connect 1");
	must(send(s, "one", 3, 0) == 3, "send 1");
	peer(family, 2, p1, p2, &a, &len);
	must(connect(s, (struct sockaddr *)&a, len) == 0, "connect 2");
	must(send(s, "two", 3, 0) == 3, "send 2");
	must(sendto(s, "three", 5, 0, (struct sockaddr *)&a, len) == 5, "sendto 2");
	must(connect(s, (struct sockaddr *)&unspec, sizeof(unspec)) == 0, "connect AF_UNSPEC");
	peer(family, 1, p1, p2, &a, &len);
	must(sendto(s, "four", 4, 0, (struct sockaddr *)&a, len) == 4, "sendto 1");
	close(s);
}

/* An unconnected client talking to both peers in turn. */
static void unconnected(int family, int p1, int p2)
{
	static const int order[] = { 1, 2, 1 };
	struct timeval tv = { .tv_sec = 5 };
	struct sockaddr_storage a, from;
	int s = socket(family, SOCK_DGRAM, 0);
	socklen_t len, flen;
	char buf[16];

	must(s >= 0 && setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0, "socket");
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		peer(family, order[i], p1, p2, &a, &len);
		must(sendto(s, "q", 1, 0, (struct sockaddr *)&a, len) == 1, "unconnected sendto");
		flen = sizeof(from);
		must(recvfrom(s, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen) == 1,
		     "unconnected recvfrom");
	}
	close(s);
}

int main(int argc, char **argv)
{
	struct sockaddr_storage a, from;
	socklen_t len;
	int p1, p2, pb, s, on = 1;

	if (argc == 3 && strcmp(argv[1], "server") == 0) {
		struct timeval tv = { .tv_sec = 5 };
		char buf[16];

		s = socket(AF_INET, SOCK_DGRAM, 0);
		len = addr(AF_INET, "127.0.0.1", atoi(argv[2]), &a);
		must(s >= 0 && bind(s, (struct sockaddr *)&a, len) == 0 &&
		     setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0, "server");
		printf("ready\n");
		fflush(stdout);
		len = sizeof(from);
		must(recvfrom(s, buf, sizeof(buf), 0, (struct sockaddr *)&from, &len) == 1,
		     "server recvfrom");
		return failed;
	}
	if (argc != 4)
		return 2;
	p1 = atoi(argv[1]);
	p2 = atoi(argv[2]);
	pb = atoi(argv[3]);
	again(AF_INET6, -1, p1, p2);
	again(AF_INET, -1, p1, p2);
	again(AF_INET6, 0, p1, p2);
	again(AF_INET, 0, p1, p2);
	again(AF_INET6, pb, p1, p2);
	again(AF_INET, pb, p1, p2);

	s = socket(AF_INET6, SOCK_DGRAM, 0);
	peer(AF_INET6, 1, p1, p2, &a, &len);
	must(sendto(s, "x", 1, 0, (struct sockaddr *)&a, len) == 1, "6s sendto");
	peer(AF_INET6, 2, p1, p2, &a, &len);
	must(connect(s, (struct sockaddr *)&a, len) == 0, "6s connect");
	must(send(s, "y", 1, 0) == 1, "6s send");
	close(s);

	s = socket(AF_INET6, SOCK_DGRAM, 0);
	must(setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on)) == 0, "6f V6ONLY");
	len = addr(AF_INET6, "::ffff:127.0.0.1", p1, &a);
	must(connect(s, (struct sockaddr *)&a, len) < 0 && errno == ENETUNREACH, "6f fails");
	peer(AF_INET6, 2, p1, p2, &a, &len);
	must(connect(s, (struct sockaddr *)&a, len) == 0, "6f connect");
	must(send(s, "z", 1, 0) == 1, "6f send");
	close(s);

	unconnected(AF_INET, p1, p2);
	unconnected(AF_INET6, p1, p2);
	return failed;
}
