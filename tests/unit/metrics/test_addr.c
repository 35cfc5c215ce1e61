/* Listen addresses: the accepted forms and what each one rejects says. */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>

#include "metrics_addr.h"
#include "t_check.h"

static void check_v4(const char *text, const char *host, unsigned port)
{
	struct metrics_addr a;
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)&a.ss;
	const char *why = NULL;
	char buf[INET_ADDRSTRLEN] = "";

	CHECK_INT(metrics_addr__parse(text, &a, &why), 0);
	CHECK_INT(a.ss.ss_family, AF_INET);
	CHECK_INT(a.len, sizeof(*s4));
	CHECK(!a.any);
	inet_ntop(AF_INET, &s4->sin_addr, buf, sizeof(buf));
	CHECK_STR(buf, host);
	CHECK_INT(ntohs(s4->sin_port), port);
}

static void check_v6(const char *text, const char *host, unsigned port, unsigned scope,
		     bool any)
{
	struct metrics_addr a;
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&a.ss;
	const char *why = NULL;
	char buf[INET6_ADDRSTRLEN] = "";

	CHECK_INT(metrics_addr__parse(text, &a, &why), 0);
	CHECK_INT(a.ss.ss_family, AF_INET6);
	CHECK_INT(a.len, sizeof(*s6));
	CHECK_INT(a.any, any);
	inet_ntop(AF_INET6, &s6->sin6_addr, buf, sizeof(buf));
	CHECK_STR(buf, host);
	CHECK_INT(ntohs(s6->sin6_port), port);
	CHECK_INT(s6->sin6_scope_id, scope);
}

/* Rejected, with WHY containing WANT. */
static void check_bad(const char *text, const char *want)
{
	struct metrics_addr a;
	const char *why = NULL;

	CHECK_INT(metrics_addr__parse(text, &a, &why), -EINVAL);
	if (!why || !strstr(why, want)) {
		t_failed++;
		fprintf(stderr, "\"%s\": reason \"%s\" does not say \"%s\"\n", text ? text : "NULL",
			why ? why : "(null)", want);
	} else {
		t_passed++;
	}
}

int main(void)
{
	check_v4("127.0.0.1:9376", "127.0.0.1", 9376);
	check_v4("0.0.0.0:1", "0.0.0.0", 1);
	check_v4("10.1.2.3:65535", "10.1.2.3", 65535);
	check_v4("localhost:80", "127.0.0.1", 80);
	check_v4("LocalHost:80", "127.0.0.1", 80);
	check_v4("127.0.0.1:0", "127.0.0.1", 0);	/* any free port, for tests */
	check_v4("127.0.0.1:08080", "127.0.0.1", 8080);
	check_v6(":9376", "::", 9376, 0, true);
	check_v6("[::1]:9376", "::1", 9376, 0, false);
	check_v6("[::]:1", "::", 1, 0, false);
	check_v6("[2001:db8::7]:443", "2001:db8::7", 443, 0, false);
	check_v6("[::ffff:10.0.0.1]:80", "::ffff:10.0.0.1", 80, 0, false);
	check_v6("[fe80::1%lo]:80", "fe80::1", 80, if_nametoindex("lo"), false);

	const char *form = "expected HOST:PORT", *port = "port must be",
		   *host = "host must be";

	check_bad(NULL, form);
	check_bad("", form);
	check_bad("1.2.3.4", form);
	check_bad("localhost", form);
	check_bad("[::1]", form);
	check_bad("[::1]80", form);
	check_bad("[::1", form);
	check_bad("::1:80", "brackets");
	check_bad(":70000", port);
	check_bad(":65536", port);
	check_bad(":", port);
	check_bad("1.2.3.4:", port);
	check_bad("1.2.3.4:-1", port);
	check_bad("1.2.3.4:+80", port);
	check_bad("1.2.3.4:80 ", port);
	check_bad("1.2.3.4:080080", port);
	check_bad("1.2.3.4:http", port);
	check_bad("x:80", host);
	check_bad("example.com:80", host);
	check_bad(" 1.2.3.4:80", host);
	check_bad("256.1.1.1:80", host);
	check_bad("1.2.3:80", host);
	check_bad("[]:80", host);
	check_bad("[1.2.3.4]:80", host);
	check_bad("[localhost]:80", host);
	check_bad("[::1%nosuchif0]:80", host);
	return t_report();
}
