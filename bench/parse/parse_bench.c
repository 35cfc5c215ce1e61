/* The request parsers' cost per message, by themselves: nginx's response
 * head (as nginx 1.22 sends it for a static file) and wrk's request, parsed
 * by http__parse N times, best of ROUNDS; a Redis -P 16 batch of 16 SETs by
 * redis__parse message by message; a connect storm's message (16 letters of
 * no protocol) tried by http__parse and redis__parse, as the pairing tries
 * every message of a connection whose protocol it has not found. Prints ns
 * per parse. Not a test: nothing
 * checks the figures (bench/README.md).
 *   usage: parse_bench [N [ROUNDS]] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http.h"
#include "redis.h"

static const char nginx_head[] =
	"HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Fri, 27 Nov 2026 02:18:01 GMT\r\n"
	"Content-Type: text/html\r\nContent-Length: 600\r\n"
	"Last-Modified: Thu, 26 Nov 2026 22:48:38 GMT\r\nConnection: keep-alive\r\n"
	"ETag: \"6b08b746-258\"\r\nAccept-Ranges: bytes\r\n\r\n";
static const char wrk_request[] = "GET /index.html HTTP/1.1\r\nHost: 127.0.0.1:18080\r\n\r\n";
static const char redis_set[] =
	"*3\r\n$3\r\nSET\r\n$16\r\nkey:000000000042\r\n$3\r\nxxx\r\n";

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* Best ns per call of FN over ROUNDS rounds of N calls. */
static double best(void (*fn)(void), long n, int rounds)
{
	double b = 1e18;

	for (int r = 0; r < rounds; r++) {
		double t0 = now();

		for (long i = 0; i < n; i++)
			fn();
		if ((now() - t0) / n < b)
			b = (now() - t0) / n;
	}
	return b;
}

static struct req_head h;
static volatile int sink;

static void http_pair(void)
{
	sink += http__parse((const void *)nginx_head, sizeof(nginx_head) - 1, false, &h);
	sink += http__parse((const void *)wrk_request, sizeof(wrk_request) - 1, true, &h);
}

static uint8_t batch[16 * sizeof(redis_set)];
static size_t batch_len;

static void redis_batch(void)
{
	size_t at = 0;

	while (at < batch_len) {
		sink += redis__parse(batch + at, batch_len - at, true, &h);
		if (!h.len_known || !h.total_len)
			break;
		at += h.total_len;
	}
}

/* bench/tcp/storm.c's request */
static const char storm_msg[] = "qqqqqqqqqqqqqqqq";

static void unknown_line(void)
{
	sink += http__parse((const void *)storm_msg, sizeof(storm_msg) - 1, true, &h);
	sink += redis__parse((const void *)storm_msg, sizeof(storm_msg) - 1, true, &h);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int rounds = argc > 2 ? atoi(argv[2]) : 7;

	for (int i = 0; i < 16; i++) {
		memcpy(batch + batch_len, redis_set, sizeof(redis_set) - 1);
		batch_len += sizeof(redis_set) - 1;
	}
	printf("http: nginx's response head (%zu bytes) and wrk's request (%zu): %.0f ns the pair\n",
	       sizeof(nginx_head) - 1, sizeof(wrk_request) - 1, best(http_pair, n, rounds));
	printf("redis: 16 SETs (%zu bytes), one by one: %.0f ns the batch\n", batch_len,
	       best(redis_batch, n / 4, rounds));
	printf("unknown: a connect storm's %zu letters, refused by http and redis: %.0f ns\n",
	       sizeof(storm_msg) - 1, best(unknown_line, n, rounds));
	return 0;
}
