/* Containers in capture files: the writer's container events (at the start, and
 * before a container's first event) read back into a fresh inspector, numbered
 * as sysdig numbers them and never handed out as events; sysdig's older form of
 * the event; and malformed container events counted and skipped. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bytes.h"
#include "capfile.h"
#include "t_check.h"
#include "container.h"
#include "frame_builder.h"
#include "inspect.h"

#define CID "3ad7b26ded6d8e7b23da7d48fe889434573036c27ae5a74837233de441c3601e"
#define CID2 "99887766554433221100aabbccddeeff00112233445566778899aabbccddeeff"
#define PPME_CONTAINER_JSON_E 272

static char tmpdir[] = "/tmp/test_capfile_containers.XXXXXX";

static struct inspector *new_inspector(void)
{
	struct inspector_opts io = { .no_proc_scan = true, .no_proc_lookup = true };

	return inspector__new(&io);
}

static struct thread_info *thread_in(struct inspector *in, int64_t tid, const char *id)
{
	struct thread_info *ti = inspector__add_thread(in, tid, tid);
	char cg[128];
	int n = snprintf(cg, sizeof(cg), "memory=/docker/%s", id);

	CHECK(ti != NULL);
	if (!ti)
		return NULL;
	strcpy(ti->comm, "sh");
	ti->cgroups = malloc((size_t)n + 1);
	memcpy(ti->cgroups, cg, (size_t)n + 1);
	ti->cgroups_len = (size_t)n + 1;
	inspector__update_container(in, ti);
	return ti;
}

/* A close event of TID. */
static uint32_t close_frame(uint8_t *buf, size_t cap, int64_t tid, uint64_t ts)
{
	struct frame_builder fb;

	fb__begin(&fb, buf, cap, PPME_SYSCALL_CLOSE_E, (uint64_t)tid, ts);
	fb__u64(&fb, 3);
	return fb__end(&fb, 0);
}

/* Reads PATH into a fresh inspector: the events' tids and numbers, the corrupt count. */
struct readback {
	struct inspector *in;
	int64_t tid[8];
	uint64_t num[8];
	int n;
	uint64_t corrupt;
	struct capfile_import imp;
};

static void read_back(const char *path, struct readback *rb)
{
	struct capfile_error err;
	struct capture_stats st;
	struct capture_event cev;
	struct capture *c;
	struct ievt ev;

	memset(rb, 0, sizeof(*rb));
	rb->in = new_inspector();
	c = capture__open_file_state(path, &err, rb->in, &rb->imp);
	CHECK(c != NULL);
	if (!c) {
		fprintf(stderr, "%s\n", err.msg);
		return;
	}
	while (capture__next(c, &cev, 0) == 0 && rb->n < 8) {
		if (inspector__process(rb->in, &cev, &ev))
			continue;
		rb->tid[rb->n] = ev.tid;
		rb->num[rb->n++] = ev.num;
	}
	capture__stats(c, &st);
	rb->corrupt = st.total.n_corrupt;
	capture__close(c);
}

static void test_round_trip(void)
{
	static const char named[] = "{\"container\":{\"id\":\"3ad7b26ded6d\",\"full_id\":\"" CID
				    "\",\"type\":7,\"name\":\"web\",\"image\":\"nginx:1.25\","
				    "\"labels\":{\"io.kubernetes.pod.name\":\"web-0\"}}}";
	struct inspector *src = new_inspector();
	struct thread_info *a, *b;
	struct capfile_state_counts n;
	struct capfile_writer *w;
	struct readback rb;
	char path[512];
	uint8_t frame[256];
	uint32_t flen;

	/* the source: a named container (as a lookup or a file would name it) */
	CHECK(container_table__import_json(inspector__containers(src), named, strlen(named)) == 0);
	a = thread_in(src, 100, CID);
	snprintf(path, sizeof(path), "%s/rt.scap", tmpdir);
	w = capfile_writer__open(path, false);
	CHECK(w && capfile_writer__state(w, src, &n) == 0);
	CHECK_EQ(n.n_containers, 1);
	/* already in the file: nothing more before a's event */
	flen = close_frame(frame, sizeof(frame), 100, 1700000000000000000ULL);
	CHECK(capfile_writer__container(w, a, 1) == 0);
	CHECK(capfile_writer__write(w, 0, (const struct ppm_evt_hdr *)frame) == 0);
	/* a container that appears later: written before its first event */
	b = thread_in(src, 200, CID2);
	CHECK(b && b->container && !b->container->written);
	flen = close_frame(frame, sizeof(frame), 200, 1700000000000001000ULL);
	CHECK(capfile_writer__container(w, b, 1700000000000001000ULL) == 0);
	CHECK(b && b->container->written);
	CHECK(capfile_writer__write(w, 0, (const struct ppm_evt_hdr *)frame) == 0);
	CHECK(capfile_writer__container(w, b, 1700000000000002000ULL) == 0);
	CHECK(capfile_writer__write(w, 0, (const struct ppm_evt_hdr *)frame) == 0);
	CHECK_EQ(capfile_writer__count(w), 3);	/* container events are not events */
	CHECK(capfile_writer__close(w) == 0);
	(void)flen;

	read_back(path, &rb);
	CHECK_EQ(rb.imp.n_containers, 1);
	CHECK_EQ(rb.n, 3);
	CHECK_EQ(rb.corrupt, 0);
	/* numbered as sysdig numbers them: each container event takes a number */
	CHECK_EQ(rb.num[0], 2);
	CHECK_EQ(rb.num[1], 4);
	CHECK_EQ(rb.num[2], 5);
	if (rb.in) {
		struct thread_info *ra = thread_table__find(inspector__threads(rb.in), 100);
		struct thread_info *rb2 = thread_table__find(inspector__threads(rb.in), 200);
		struct container_counters cc;

		CHECK(ra && ra->container && ra->container->name &&
		      strcmp(ra->container->name, "web") == 0);
		CHECK(ra && ra->container && ra->container->type == CT_CONTAINERD);
		CHECK(ra && ra->container && ra->container->pod_name &&
		      strcmp(ra->container->pod_name, "web-0") == 0);
		/* the file does not say which cgroups thread 200 had (it came after the
		 * lists), but it has its container */
		CHECK(rb2 && rb2->container == NULL);
		container_table__counters(inspector__containers(rb.in), &cc);
		CHECK_EQ(cc.n_containers, 2);
	}
	inspector__free(rb.in);
	inspector__free(src);
}

/* A container event frame: JSON of the given length field width. */
static void put_container_event(struct bytes *file, bool large, const char *json,
				uint32_t block_type, int32_t trailer_fix)
{
	struct bytes body = { 0 };
	uint32_t plen = (uint32_t)strlen(json) + 1;
	uint32_t flen = 26 + (large ? 4 : 2) + plen;

	put_u16(&body, 0);				/* cpu */
	put_u64(&body, 1700000000000000000ULL);	/* ts */
	put_u64(&body, UINT64_MAX);			/* tid */
	put_u32(&body, flen);
	put_u16(&body, large ? PPME_CONTAINER_JSON_2_E : PPME_CONTAINER_JSON_E);
	put_u32(&body, 1);
	if (large)
		put_u32(&body, plen);
	else
		put_u16(&body, (uint16_t)plen);
	put(&body, json, plen);
	put_block(file, block_type, &body, 0, trailer_fix);
	free(body.p);
}

static void put_event(struct bytes *file, int64_t tid)
{
	struct bytes body = { 0 };
	uint8_t frame[128];
	uint32_t n = close_frame(frame, sizeof(frame), tid, 1700000000000000500ULL);

	put_u16(&body, 0);
	put(&body, frame, n);
	put_block(file, 0x216, &body, 0, 0);
	free(body.p);
}

static void write_file(const char *path, const struct bytes *b)
{
	FILE *f = fopen(path, "wb");

	CHECK(f && fwrite(b->p, 1, b->len, f) == b->len);
	if (f)
		fclose(f);
}

static void test_hand_made(void)
{
	static const char old[] = "{\"container\":{\"id\":\"3ad7b26ded6d\",\"type\":0,"
				  "\"name\":\"from-old\"}}";
	struct bytes file = { 0 }, big = { 0 };
	struct container_counters cc;
	struct readback rb;
	char path[512];
	char *huge;

	put_shb(&file, 0x1A2B3C4D, 0);
	/* sysdig's older container event, in a plain event block */
	put_container_event(&file, false, old, 0x216, 0);
	/* a large block whose trailer disagrees */
	put_container_event(&file, true, old, 0x221, 4);
	/* JSON that is not a container */
	put_container_event(&file, true, "{\"container\": [", 0x221, 0);
	put_container_event(&file, true, "{\"nothing\": 1}", 0x221, 0);
	/* a large block far over the bound: skipped whole */
	huge = malloc(2u << 20);
	memset(huge, ' ', 2u << 20);
	put(&big, huge, 2u << 20);
	put_block(&file, 0x221, &big, 0, 0);
	free(huge);
	free(big.p);
	put_event(&file, 300);
	snprintf(path, sizeof(path), "%s/hand.scap", tmpdir);
	write_file(path, &file);
	free(file.p);

	read_back(path, &rb);
	CHECK_EQ(rb.n, 1);
	CHECK_EQ(rb.tid[0], 300);
	/* the old event and the two JSON ones that parse as frames took numbers */
	CHECK_EQ(rb.num[0], 4);
	/* bad trailer, bad JSON twice, oversized */
	CHECK_EQ(rb.corrupt, 4);
	if (rb.in) {
		container_table__counters(inspector__containers(rb.in), &cc);
		CHECK_EQ(cc.n_bad_json, 2);
		CHECK_EQ(cc.n_containers, 1);
	}
	inspector__free(rb.in);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_round_trip();
	test_hand_made();
	return t_finish(tmpdir);
}
