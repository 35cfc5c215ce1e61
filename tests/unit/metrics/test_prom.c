/* The Prometheus text builder: families, samples, escaping, name checks, doubles;
 * then the agent's whole metric set, fed to `promtool check metrics` when argv[1]
 * names promtool. */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "prom.h"
#include "t_check.h"

static void test_family(void)
{
	struct prom_buf b = PROM_BUF_INIT;

	CHECK_INT(prom__family(&b, "agent_events_read_total", "counter", "Events read."), 0);
	CHECK_STR(b.buf, "# HELP agent_events_read_total Events read.\n"
			 "# TYPE agent_events_read_total counter\n");
	prom_buf__reset(&b);
	CHECK_INT(b.len, 0);
	CHECK_STR(b.buf, "");
	/* HELP escapes backslash and newline, not the double quote */
	CHECK_INT(prom__family(&b, "a:b_c", "gauge", "say \"hi\"\\ \nnext"), 0);
	CHECK_STR(b.buf, "# HELP a:b_c say \"hi\"\\\\ \\nnext\n# TYPE a:b_c gauge\n");
	prom_buf__reset(&b);
	CHECK_INT(prom__family(&b, "x", "untyped", NULL), 0);
	CHECK_STR(b.buf, "# TYPE x untyped\n");
	prom_buf__reset(&b);
	CHECK_INT(prom__family(&b, "x_seconds", "histogram", "h"), 0);
	CHECK_STR(b.buf, "# HELP x_seconds h\n# TYPE x_seconds histogram\n");
	prom_buf__reset(&b);
	/* bad names and types leave the buffer alone */
	CHECK_INT(prom__family(&b, "1x", "gauge", "h"), -EINVAL);
	CHECK_INT(prom__family(&b, "a-b", "gauge", "h"), -EINVAL);
	CHECK_INT(prom__family(&b, "", "gauge", "h"), -EINVAL);
	CHECK_INT(prom__family(&b, NULL, "gauge", "h"), -EINVAL);
	CHECK_INT(prom__family(&b, "x", "summary", "h"), -EINVAL);
	CHECK_INT(prom__family(&b, "x", NULL, "h"), -EINVAL);
	CHECK_INT(b.len, 0);
	CHECK_STR(b.buf, "");
	prom_buf__free(&b);
	CHECK(b.buf == NULL && b.len == 0 && b.cap == 0);
	prom_buf__free(NULL);
}

static void test_samples(void)
{
	struct prom_buf b = PROM_BUF_INIT;
	const char *const one[] = { "output", "tcp://127.0.0.1:9000", NULL };
	const char *const two[] = { "cpu", "3", "reason", "ring_full", NULL };
	const char *const none[] = { NULL };
	const char *const esc[] = { "v", "a\"b\\c\nd", NULL };
	const char *const utf[] = { "v", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x9d", NULL };
	const char *const bad_utf[] = { "v", "x\xffy\xc3(\xed\xa0\x80z\xc0\xaf\xf4\x90\x80\x80",
					NULL };
	const char *const cut_utf[] = { "v", "ab\xe2\x82", NULL };
	const char *const odd[] = { "a", NULL };
	const char *const dup[] = { "a", "1", "b", "2", "a", "3", NULL };
	const char *const digit[] = { "1a", "x", NULL };
	const char *const colon[] = { "a:b", "x", NULL };
	const char *const dash[] = { "a-b", "x", NULL };
	const char *const reserved[] = { "__name__", "x", NULL };
	const char *const empty_name[] = { "", "x", NULL };
	size_t len;

	CHECK_INT(prom__sample_u64(&b, "agent_events_read_total", NULL, 42), 0);
	CHECK_INT(prom__sample_u64(&b, "agent_events_read_total", none, UINT64_MAX), 0);
	CHECK_INT(prom__sample_u64(&b, "agent_output_emitted_total", one, 0), 0);
	CHECK_INT(prom__sample_u64(&b, "agent_kernel_drops_cpu_total", two, 7), 0);
	CHECK_STR(b.buf, "agent_events_read_total 42\n"
			 "agent_events_read_total 18446744073709551615\n"
			 "agent_output_emitted_total{output=\"tcp://127.0.0.1:9000\"} 0\n"
			 "agent_kernel_drops_cpu_total{cpu=\"3\",reason=\"ring_full\"} 7\n");
	prom_buf__reset(&b);

	CHECK_INT(prom__sample_u64(&b, "x", esc, 1), 0);
	CHECK_STR(b.buf, "x{v=\"a\\\"b\\\\c\\nd\"} 1\n");
	prom_buf__reset(&b);
	/* valid UTF-8 passes, anything else becomes U+FFFD byte by byte */
	CHECK_INT(prom__sample_u64(&b, "x", utf, 1), 0);
	CHECK_STR(b.buf, "x{v=\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x9d\"} 1\n");
	prom_buf__reset(&b);
#define R "\xef\xbf\xbd"
	CHECK_INT(prom__sample_u64(&b, "x", bad_utf, 1), 0);
	CHECK_STR(b.buf, "x{v=\"x" R "y" R "(" R R R "z" R R R R R R "\"} 1\n");
	prom_buf__reset(&b);
	CHECK_INT(prom__sample_u64(&b, "x", cut_utf, 1), 0);
	CHECK_STR(b.buf, "x{v=\"ab" R R "\"} 1\n");
	prom_buf__reset(&b);
	CHECK_INT(prom__family(&b, "x", "gauge", "bad \xff help"), 0);
	CHECK_STR(b.buf, "# HELP x bad " R " help\n# TYPE x gauge\n");
#undef R

	/* rejected calls leave what was there */
	len = b.len;
	CHECK_INT(prom__sample_u64(&b, "x", odd, 1), -EINVAL);
	CHECK_INT(prom__sample_u64(&b, "x", dup, 1), -EINVAL);
	CHECK_INT(prom__sample_u64(&b, "x", digit, 1), -EINVAL);
	CHECK_INT(prom__sample_u64(&b, "x", colon, 1), -EINVAL);
	CHECK_INT(prom__sample_u64(&b, "x", dash, 1), -EINVAL);
	CHECK_INT(prom__sample_u64(&b, "x", reserved, 1), -EINVAL);
	CHECK_INT(prom__sample_u64(&b, "x", empty_name, 1), -EINVAL);
	CHECK_INT(prom__sample_u64(&b, "x y", NULL, 1), -EINVAL);
	CHECK_INT(prom__sample_double(&b, "9", NULL, 1), -EINVAL);
	CHECK_INT(prom__sample_double(&b, "x\n", NULL, 1), -EINVAL);
	CHECK_INT(b.len, len);
	CHECK_INT(strlen(b.buf), len);

	/* growth past the first allocation */
	prom_buf__reset(&b);
	for (int i = 0; i < 2000; i++)
		CHECK_INT(prom__sample_u64(&b, "agent_ring_lost_total", two, (uint64_t)i), 0);
	/* 2000 lines of one digit, plus the digits past the first of 10..1999 */
	CHECK_INT(b.len, 2000 * strlen("agent_ring_lost_total{cpu=\"3\",reason=\"ring_full\"} 0\n") +
			 90 + 900 * 2 + 1000 * 3);
	CHECK(strstr(b.buf, "} 1999\n") == b.buf + b.len - 7);
	prom_buf__free(&b);
}

static const char *dbl(struct prom_buf *b, double v)
{
	const char *sp;

	prom_buf__reset(b);
	if (prom__sample_double(b, "x", NULL, v))
		return "(error)";
	sp = strchr(b->buf, ' ');
	b->buf[b->len - 1] = '\0';	/* the newline */
	return sp + 1;
}

static void test_doubles(void)
{
	struct prom_buf b = PROM_BUF_INIT;
	unsigned int seed = 1;

	CHECK_STR(dbl(&b, 0.0), "0");
	CHECK_STR(dbl(&b, -0.0), "-0");
	CHECK_STR(dbl(&b, 1.0), "1");
	CHECK_STR(dbl(&b, 0.1), "0.1");
	CHECK_STR(dbl(&b, 0.1 + 0.2), "0.30000000000000004");
	CHECK_STR(dbl(&b, 1.0 / 3), "0.3333333333333333");
	CHECK_STR(dbl(&b, 1e300), "1e+300");
	CHECK_STR(dbl(&b, -2.5e-7), "-2.5e-07");
	CHECK_STR(dbl(&b, 1700000000.25), "1700000000.25");
	CHECK_STR(dbl(&b, 9007199254740993.0), "9007199254740992");
	CHECK_STR(dbl(&b, 5e-324), "4.94065645841247e-324");
	CHECK_STR(dbl(&b, NAN), "NaN");
	CHECK_STR(dbl(&b, -NAN), "NaN");
	CHECK_STR(dbl(&b, INFINITY), "+Inf");
	CHECK_STR(dbl(&b, -INFINITY), "-Inf");
	/* every value reads back exactly */
	for (int i = 0; i < 10000; i++) {
		uint64_t bits = ((uint64_t)rand_r(&seed) << 33) ^ ((uint64_t)rand_r(&seed) << 11) ^
				(uint64_t)rand_r(&seed);
		double v;

		memcpy(&v, &bits, sizeof(v));
		if (!isfinite(v))
			continue;
		if (strtod(dbl(&b, v), NULL) != v) {
			CHECK_STR(dbl(&b, v), "a value that reads back");
			break;
		}
	}
	/* a decimal comma locale does not leak into the text */
	if (setlocale(LC_NUMERIC, "de_DE.UTF-8") || setlocale(LC_NUMERIC, "fr_FR.UTF-8")) {
		CHECK_STR(dbl(&b, 0.5), "0.5");
		CHECK_STR(dbl(&b, -1.25e-10), "-1.25e-10");
		setlocale(LC_NUMERIC, "C");
	} else {
		printf("no de_DE or fr_FR locale here: decimal comma not checked\n");
	}
	prom_buf__free(&b);
}

/* The metric set of the spec (issue8-cli.md), hostile label values included. */
static int build_agent_doc(struct prom_buf *b)
{
	static const char *const outputs[] = { "stdout", "tcp://10.0.0.1:514",
		"file:/var/log/a \"quoted\"\\dir\nnewline", "http://x/\xff\xfe" };
	static const char *const reasons[] = { "ring_full", "too_big", "driver_bug" };
	static const char *const oreasons[] = { "queue_full", "output_error", "exit_deadline" };
	char cpu[16];
	int err = 0;

#define FAM(n, t, h) err = err ? err : prom__family(b, n, t, h)
#define U64(n, l, v) err = err ? err : prom__sample_u64(b, n, l, v)
#define DBL(n, l, v) err = err ? err : prom__sample_double(b, n, l, v)
	FAM("agent_events_read_total", "counter", "Events read from the ring buffers.");
	U64("agent_events_read_total", NULL, 123456);
	FAM("agent_events_matched_total", "counter", "Events that passed the filter.");
	U64("agent_events_matched_total", NULL, 100);
	FAM("agent_events_malformed_total", "counter", "Events that failed to parse.");
	U64("agent_events_malformed_total", NULL, 0);
	FAM("agent_kernel_drops_total", "counter", "Events the kernel side dropped, by reason.");
	for (int r = 0; r < 3; r++)
		U64("agent_kernel_drops_total", ((const char *const[]){ "reason", reasons[r], NULL }),
		    (uint64_t)r);
	FAM("agent_kernel_drops_cpu_total", "counter", "Kernel drops by CPU and reason.");
	for (int c = 0; c < 4; c++) {
		snprintf(cpu, sizeof(cpu), "%d", c);
		for (int r = 0; r < 3; r++)
			U64("agent_kernel_drops_cpu_total",
			    ((const char *const[]){ "cpu", cpu, "reason", reasons[r], NULL }), 1);
	}
	FAM("agent_kernel_drops_event_total", "counter", "Kernel drops by event and direction.");
	U64("agent_kernel_drops_event_total",
	    ((const char *const[]){ "event", "openat", "dir", "<", NULL }), 12);
	U64("agent_kernel_drops_event_total",
	    ((const char *const[]){ "event", "openat", "dir", ">", NULL }), 10);
	FAM("agent_corrupt_records_total", "counter", "Ring records that were corrupt.");
	U64("agent_corrupt_records_total", NULL, 0);
	FAM("agent_ring_lost_total", "counter", "Drops the ring reported (ring full).");
	U64("agent_ring_lost_total", NULL, 3);
	FAM("agent_output_emitted_total", "counter", "Lines written, by output.");
	for (int o = 0; o < 4; o++)
		U64("agent_output_emitted_total",
		    ((const char *const[]){ "output", outputs[o], NULL }), 99);
	FAM("agent_output_drops_total", "counter", "Lines dropped, by output and reason.");
	for (int o = 0; o < 4; o++)
		for (int r = 0; r < 3; r++)
			U64("agent_output_drops_total", ((const char *const[]){
				"output", outputs[o], "reason", oreasons[r], NULL }), 0);
	FAM("agent_output_queue_bytes", "gauge", "Bytes queued, by output.");
	FAM("agent_output_queue_lines", "gauge", "Lines queued, by output.");
	FAM("agent_output_queue_capacity_bytes", "gauge", "Queue capacity, by output.");
	FAM("agent_output_write_errors_total", "counter", "Write errors, by output.");
	FAM("agent_output_connect_failures_total", "counter", "Connect failures, by output.");
	FAM("agent_output_connected", "gauge", "1 while the output is connected.");
	for (int o = 0; o < 4; o++) {
		const char *const l[] = { "output", outputs[o], NULL };

		U64("agent_output_connected", l, o & 1);
	}
	FAM("agent_ring_fill_ratio", "gauge", "How full each CPU's ring is, 0 to 1.");
	DBL("agent_ring_fill_ratio", ((const char *const[]){ "cpu", "0", NULL }), 0.125);
	DBL("agent_ring_fill_ratio", ((const char *const[]){ "cpu", "1", NULL }), NAN);
	FAM("agent_consumer_lag_seconds", "gauge", "Age of the last event read.");
	DBL("agent_consumer_lag_seconds", NULL, 0.000123);
	FAM("agent_resident_memory_bytes", "gauge", "Resident memory.");
	U64("agent_resident_memory_bytes", NULL, 12345678);
	FAM("agent_start_time_seconds", "gauge", "Start time since the epoch.");
	DBL("agent_start_time_seconds", NULL, 1700000000.25);
	FAM("agent_build_info", "gauge", "The agent's version.");
	U64("agent_build_info", ((const char *const[]){ "version", "0.1.0", NULL }), 1);
	FAM("agent_capture_running", "gauge", "1 while capture runs.");
	U64("agent_capture_running", NULL, 1);
	FAM("agent_test_inf", "gauge", "Infinities.");
	DBL("agent_test_inf", ((const char *const[]){ "sign", "+", NULL }), INFINITY);
	DBL("agent_test_inf", ((const char *const[]){ "sign", "-", NULL }), -INFINITY);
#undef FAM
#undef U64
#undef DBL
	return err;
}

/* promtool's exit status on TEXT: 0 valid, 1 parse error, 3 lint problems. */
static int promtool(const char *path, const char *text, size_t len)
{
	char cmd[4096];
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "'%s' check metrics", path);
	p = popen(cmd, "w");
	if (!p)
		return -1;
	fwrite(text, 1, len, p);
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_promtool(const char *path)
{
	static const char broken[] = "# TYPE x gauge\nx{a=\"b} 1\n";
	static const char bad_utf8[] = "# HELP x h\n# TYPE x gauge\nx{a=\"\xff\"} 1\n";
	struct prom_buf b = PROM_BUF_INIT;

	CHECK_INT(build_agent_doc(&b), 0);
	if (!path || !*path) {
		printf("promtool not found: the agent's metric set is not checked by it\n");
		prom_buf__free(&b);
		return;
	}
	CHECK_INT(promtool(path, b.buf, b.len), 0);
	/* and promtool does refuse what it should, so the check above means something */
	CHECK_INT(promtool(path, broken, sizeof(broken) - 1), 1);
	CHECK_INT(promtool(path, bad_utf8, sizeof(bad_utf8) - 1), 1);
	prom_buf__free(&b);
}

int main(int argc, char **argv)
{
	test_family();
	test_samples();
	test_doubles();
	test_promtool(argc > 1 ? argv[1] : NULL);
	return t_report();
}
