/* The reader's bounds on a file's user and group lists, as on its thread and fd
 * lists: a list block past CAPFILE_LIST_ENTRIES_MAX entries, and entries (in
 * blocks or useradded events) past CAPFILE_STATE_MAX, are counted in n_capped
 * and left out; a list of descending ids imports as fast as an ascending one. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capfile.h"
#include "capfile_int.h"
#include "inspect.h"
#include "t_check.h"

#define CAPFILE_BLOCK_UL_V2	0x220u
#define EVT_USER_ADDED		354u

struct body {
	uint8_t *p;
	size_t n, cap;
};

static void body__put(struct body *b, const void *v, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->n, v, n);
	b->n += n;
}

static void body__str(struct body *b, const char *s)
{
	uint16_t n = (uint16_t)strlen(s);

	body__put(b, &n, 2);
	body__put(b, s, n);
}

/* One UL v2 entry: a user ID named "uID". */
static void body__user(struct body *b, uint32_t id)
{
	char name[16];
	uint32_t elen;
	uint8_t t = 0;

	snprintf(name, sizeof(name), "u%u", id);
	elen = 4 + 1 + 4 + 4 + 2 + (uint32_t)strlen(name) + 2 + 2;
	body__put(b, &elen, 4);
	body__put(b, &t, 1);
	body__put(b, &id, 4);
	body__put(b, &id, 4);
	body__str(b, name);
	body__str(b, "");
	body__str(b, "");
}

/* A user list block body of N users with ids FIRST, FIRST + STEP, ... */
static struct body user_list(uint32_t n, uint32_t first, int32_t step)
{
	struct body b = { 0 };

	for (uint32_t i = 0; i < n; i++)
		body__user(&b, first + (uint32_t)((int32_t)i * step));
	return b;
}

/* The thread's CPU time: a ratio of two runs must not take in the waits
 * for a CPU other processes made on a loaded machine. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One block more than CAPFILE_LIST_ENTRIES_MAX allows: the last 3 counted. */
static void test_entries_cap(void)
{
	struct body b = user_list(CAPFILE_LIST_ENTRIES_MAX + 3, 1, 1);
	struct capfile_import imp = { 0 };

	CHECK_INT(capfile_userlist__read(CAPFILE_BLOCK_UL_V2, b.p, b.n, &imp), 0);
	CHECK_INT(imp.n_capped, 3);
	CHECK(imp.state_bytes > 0);
	CHECK_STR(users__name(1), "u1");
	CHECK_STR(users__name(CAPFILE_LIST_ENTRIES_MAX), "u1048576");
	CHECK(users__name(CAPFILE_LIST_ENTRIES_MAX + 1) == NULL);
	free(b.p);
}

/* With the state nearly at CAPFILE_STATE_MAX, a block's first entries fit and
 * the others are counted; so is a useradded event. */
static void test_state_cap(void)
{
	struct body b = user_list(100, 1000, 1);
	struct capfile_import imp = { .state_bytes = CAPFILE_STATE_MAX - 1000 };
	uint8_t ev[256] = { 0 };
	uint16_t lens[6] = { 4, 4, 4, 2, 2, 1 };
	uint32_t id = 5000, flen, np = 6, off;
	uint16_t type = EVT_USER_ADDED;
	int in = 0;

	CHECK_INT(capfile_userlist__read(CAPFILE_BLOCK_UL_V2, b.p, b.n, &imp), 0);
	for (uint32_t i = 1000; i < 1100; i++)
		in += users__name(i) != NULL;
	CHECK(in > 0 && in < 100);
	CHECK_INT(imp.n_capped, 100 - in);
	CHECK(imp.state_bytes <= CAPFILE_STATE_MAX);
	CHECK_STR(users__name(1000), "u1000");
	CHECK(users__name(1099) == NULL);
	free(b.p);

	/* useradded: u16 cpu, then the frame (uid, gid, name, home, shell, container) */
	off = 2;
	flen = PPM_HDR_LEN + 2 * np + 4 + 4 + 4 + 2 + 2 + 1;
	memcpy(ev + off + offsetof(struct ppm_evt_hdr, len), &flen, 4);
	memcpy(ev + off + offsetof(struct ppm_evt_hdr, type), &type, 2);
	memcpy(ev + off + offsetof(struct ppm_evt_hdr, nparams), &np, 4);
	off += PPM_HDR_LEN;
	memcpy(ev + off, lens, sizeof(lens));
	off += sizeof(lens);
	memcpy(ev + off, &id, 4), off += 4;
	memcpy(ev + off, &id, 4), off += 4;
	memcpy(ev + off, "new", 4), off += 4;
	memcpy(ev + off, "/", 2), off += 2;
	memcpy(ev + off, "x", 2), off += 2;
	ev[off++] = '\0';
	imp.n_capped = 0;
	CHECK(capfile_userlist__event(true, CAPFILE_BLOCK_EV_V2, ev, off, &imp));
	CHECK_INT(imp.n_capped, 1);
	CHECK(users__name(id) == NULL);
	/* with room again it is imported */
	imp.state_bytes = 0;
	CHECK(capfile_userlist__event(true, CAPFILE_BLOCK_EV_V2, ev, off, &imp));
	CHECK_INT(imp.n_capped, 1);
	CHECK_STR(users__name(id), "new");
}

/* 200k users in descending order against ascending: about the same time (the
 * old sorted insert took over 100 times longer). */
static void test_descending(void)
{
	struct body up = user_list(200000, 1, 1), down = user_list(200000, 200000, -1);
	struct capfile_import imp = { 0 };
	double t_up, t_down;

	t_up = now_s();
	CHECK_INT(capfile_userlist__read(CAPFILE_BLOCK_UL_V2, up.p, up.n, &imp), 0);
	t_up = now_s() - t_up;
	CHECK_STR(users__name(123456), "u123456");
	t_down = now_s();
	CHECK_INT(capfile_userlist__read(CAPFILE_BLOCK_UL_V2, down.p, down.n, &imp), 0);
	t_down = now_s() - t_down;
	CHECK_STR(users__name(123456), "u123456");
	CHECK_INT(imp.n_capped, 0);
	printf("users: 200000 ascending %.3f s, descending %.3f s\n", t_up, t_down);
	CHECK(t_down < 20 * (t_up > 0.005 ? t_up : 0.005));
	free(up.p);
	free(down.p);
}

int main(void)
{
	test_entries_cap();
	test_state_cap();
	test_descending();
	users__file_reset();
	return t_report();
}
