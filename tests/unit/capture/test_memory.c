/* The test-input engine and the capture object's generic paths. */
#include <errno.h>
#include <stdlib.h>

#include "capture.h"
#include "t_check.h"
#include "frame_builder.h"

/* Three real frames back to back (an open pair and a generic syscall). */
static size_t build(uint8_t *buf, size_t cap)
{
	struct frame_builder fb;
	size_t off = 0;

	fb__begin(&fb, buf + off, cap - off, PPME_GENERIC_E, 10, 1000);
	fb__u16(&fb, 1);
	fb__u16(&fb, 39);
	off += fb__end(&fb, 0);
	fb__begin(&fb, buf + off, cap - off, PPME_GENERIC_X, 10, 1001);
	fb__u16(&fb, 1);
	off += fb__end(&fb, 0);
	fb__begin(&fb, buf + off, cap - off, PPME_GENERIC_E, 11, 1002);
	fb__u16(&fb, 2);
	fb__u16(&fb, 40);
	off += fb__end(&fb, 0);
	return off;
}

static void test_frames(void)
{
	uint8_t buf[512];
	size_t len = build(buf, sizeof(buf));
	struct capture *c = capture__open_memory(buf, len);
	struct capture_event ev;
	struct capture_stats st;
	size_t off = 0;

	CHECK(c != NULL);
	/* The engine keeps its own copy. */
	memset(buf + len, 0xee, 8);
	for (int i = 0; i < 3; i++) {
		CHECK(capture__next(c, &ev, -1) == 0);
		CHECK_EQ(ev.frame->ts, 1000 + i);
		CHECK_EQ(ev.cpu, 0);
		CHECK_EQ(ev.len, ev.frame->len);
		CHECK(!memcmp(ev.frame, buf + off, ev.len));
		off += ev.len;
	}
	CHECK_EQ(off, len);
	CHECK_EQ(capture__next(c, &ev, -1), -ENODATA);
	CHECK_EQ(capture__next(c, &ev, 0), -ENODATA);
	CHECK(capture__stats(c, &st) == 0);
	CHECK_EQ(st.total.n_evts, 3);
	CHECK_EQ(st.total.n_bytes, len);
	CHECK_EQ(st.total.n_corrupt, 0);
	CHECK_EQ(st.ncpus, 1);
	CHECK(!strcmp(st.mode, "synthetic"));
	CHECK(capture__driver(c) == NULL);
	CHECK_EQ(capture__set_sigmask(c, NULL), -EOPNOTSUPP);
	capture__close(c);
}

/* A bad length ends the input with a counted corrupt frame, never a crash. */
static void test_corrupt(void)
{
	uint8_t buf[512];
	size_t len = build(buf, sizeof(buf));
	struct ppm_evt_hdr h;
	struct capture_event ev;
	struct capture_stats st;
	const uint32_t bad_lens[] = { 0, 25, 1000 };

	for (size_t i = 0; i < 3; i++) {
		struct capture *c;
		uint8_t copy[512];

		memcpy(copy, buf, len);
		/* Corrupt the second frame's len. */
		memcpy(&h, copy, sizeof(h));
		memcpy(copy + h.len + 16, &bad_lens[i], 4);
		c = capture__open_memory(copy, len);
		CHECK(capture__next(c, &ev, 0) == 0 && ev.frame->ts == 1000);
		CHECK_EQ(capture__next(c, &ev, 0), -ENODATA);
		CHECK(capture__stats(c, &st) == 0);
		CHECK_EQ(st.total.n_evts, 1);
		CHECK_EQ(st.total.n_corrupt, 1);
		capture__close(c);
	}
	/* Input cut inside a header, and empty input. */
	{
		struct capture *c = capture__open_memory(buf, 10);

		CHECK_EQ(capture__next(c, &ev, 0), -ENODATA);
		CHECK(capture__stats(c, &st) == 0 && st.total.n_corrupt == 1);
		capture__close(c);
		c = capture__open_memory(NULL, 0);
		CHECK(c != NULL);
		CHECK_EQ(capture__next(c, &ev, 0), -ENODATA);
		CHECK(capture__stats(c, &st) == 0 && st.total.n_corrupt == 0);
		capture__close(c);
	}
}

static int count_next(void *e, struct capture_event *ev, int timeout_ms)
{
	return ++*(int *)e > 2 ? -ENODATA : -EAGAIN;
}

static void test_engine_ops(void)
{
	struct capture_engine_ops ops = { .name = "count", .next = count_next };
	struct capture_event ev;
	struct capture_stats st;
	int calls = 0;
	struct capture *c = capture__open_engine(&ops, &calls);

	CHECK(c != NULL);
	CHECK_EQ(capture__next(c, &ev, 0), -EAGAIN);
	CHECK_EQ(capture__next(c, &ev, 0), -EAGAIN);
	CHECK_EQ(capture__next(c, &ev, 0), -ENODATA);
	CHECK_EQ(capture__stats(c, &st), -EOPNOTSUPP);
	capture__close(c);	/* no close op: fine */
	errno = 0;
	CHECK(capture__open_engine(NULL, NULL) == NULL && errno == EINVAL);
}

int main(void)
{
	test_frames();
	test_corrupt();
	test_engine_ops();
	return t_report();
}
