/* Capture-file state import: the process and fd list blocks of sysdig's own
 * captures go into the inspector (values checked against `sysdig -r` and the
 * files' bytes), and malformed list blocks are counted and skipped. Usage:
 * test_capfile_state FIXTURE_DIR (exit 77 only when that folder is missing). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capfile.h"
#include "t_check.h"
#include "bytes.h"
#include "frame_builder.h"
#include "inspect.h"

static char tmpdir[] = "/tmp/test_capfile_state.XXXXXX";

static struct inspector *new_inspector(void)
{
	struct inspector_opts io = { .no_proc_scan = true, .no_proc_lookup = true };

	return inspector__new(&io);
}

static struct fd_info *fd_of(struct inspector *in, int64_t tid, int64_t fd)
{
	struct thread_info *ti = thread_table__find(inspector__threads(in), tid);

	return ti ? fd_table__find(ti->fds, fd) : NULL;
}

/* ---- sysdig's captures ---- */

static void test_curl_google(const char *dir)
{
	char path[4096];
	struct capfile_error err;
	struct capfile_import imp;
	struct inspector *in = new_inspector();
	struct thread_table *tt = inspector__threads(in);
	struct capture *c;
	struct capture_event ev;
	struct ievt ie;
	struct thread_info *ti;
	struct fd_info *fi;
	uint64_t n = 0;
	bool saw_211 = false;
	int rc;

	snprintf(path, sizeof(path), "%s/curl_google.scap", dir);
	c = capture__open_file_state(path, &err, in, &imp);
	CHECK(c != NULL);
	if (!c) {
		inspector__free(in);
		return;
	}
	/* one 0x211 list of 54 threads, 54 0x203 fd lists holding 316 fds */
	CHECK_EQ(imp.n_threads, 54);
	CHECK_EQ(imp.n_fds, 316);
	CHECK_EQ(imp.n_bad_lists, 0);
	CHECK_EQ(imp.n_dup_threads, 0);
	/* the tables are filled before the first event is handed out */
	ti = thread_table__find(tt, 3200);
	CHECK(ti != NULL);
	if (ti) {
		CHECK_STR(ti->comm, "bash");
		CHECK_EQ(ti->pid, 3200);
	}
	ti = thread_table__find(tt, 1);
	CHECK(ti != NULL);
	if (ti) {
		CHECK_STR(ti->comm, "systemd");
		CHECK_STR(ti->exe, "/sbin/init");
		CHECK_STR(ti->cwd, "/");
		CHECK_EQ(ti->ptid, 0);
		CHECK_EQ(ti->uid, 0);
		CHECK_EQ(ti->vpid, 1);
		CHECK(ti->exepath == NULL);	/* a V5 list has none */
		CHECK(ti->cgroups && !strcmp(ti->cgroups, "perf_event=/") &&
		      memmem(ti->cgroups, ti->cgroups_len, "\0memory=/init.scope\0", 20));
	}
	/* a thread of another process shares its main thread's fds */
	ti = thread_table__find(tt, 552);
	CHECK(ti && ti->pid == 546 && !strcmp(ti->comm, "sd-resolve"));
	CHECK(ti && ti->fds == thread_table__find(tt, 546)->fds);
	ti = thread_table__find(tt, 1341);
	CHECK(ti && ti->cwd && !strcmp(ti->cwd, "/var/spool/cron/"));
	fi = fd_of(in, 1, 0);
	CHECK(fi && fi->type == FDT_FILE && fi->name && !strcmp(fi->name, "/dev/null"));
	fi = fd_of(in, 1, 70);
	CHECK(fi && fi->type == FDT_PIPE && fi->name &&
	      !strcmp(fi->name, "/run/systemd/initctl/fifo"));
	/* an IPv4 UDP server socket (dhclient's) */
	fi = fd_of(in, 980, 6);
	CHECK(fi && fi->type == FDT_IPV4_SOCK && fi->is_server && fi->l4proto == 17 &&
	      fi->dport == 68 && fi->name && !strcmp(fi->name, "0.0.0.0:68"));
	/* an IPv6 server socket */
	fi = fd_of(in, 1182, 5);
	CHECK(fi && fi->type == FDT_IPV6_SOCK && fi->dport == 546 && fi->name &&
	      !strcmp(fi->name, "fe80::ceb:feff:fe7d:6f7e:546"));

	/* sysdig: "211 ... < execve ... ptid=3200(bash)" */
	while ((rc = capture__next(c, &ev, 0)) == 0) {
		n++;
		if (inspector__process(in, &ev, &ie))
			continue;
		if (ie.num == 211) {
			saw_211 = true;
			CHECK(ie.thread != NULL);
			if (ie.thread) {
				CHECK_EQ(ie.thread->ptid, 3200);
				ti = thread_table__find(tt, ie.thread->ptid);
				CHECK(ti && !strcmp(ti->comm, "bash"));
			}
		}
	}
	CHECK(saw_211);
	CHECK_EQ(rc, -ENODATA);
	CHECK_EQ(n, 1536);
	capture__close(c);
	inspector__free(in);
}

static void test_single_ipv6(const char *dir)
{
	char path[4096];
	struct capfile_error err;
	struct capfile_import imp;
	struct inspector *in = new_inspector();
	struct capture *c;
	struct capture_event ev;
	struct thread_info *ti;
	struct fd_info *fi;
	uint64_t n = 0;

	snprintf(path, sizeof(path), "%s/single_ipv6_conn.scap", dir);
	c = capture__open_file_state(path, &err, in, &imp);
	CHECK(c != NULL);
	if (!c) {
		inspector__free(in);
		return;
	}
	/* a 0x215 list (entries with lengths) and 154 0x218 fd lists */
	CHECK_EQ(imp.n_threads, 154);
	CHECK_EQ(imp.n_fds, 564);
	CHECK_EQ(imp.n_bad_lists, 0);
	ti = thread_table__find(inspector__threads(in), 1);
	CHECK(ti != NULL);
	if (ti) {
		CHECK_STR(ti->comm, "systemd");
		CHECK_STR(ti->exe, "/sbin/init");
		CHECK_STR(ti->exepath, "/lib/systemd/systemd");	/* V7+ field */
		CHECK_EQ(ti->sid, 1);				/* V6+ field */
		CHECK_EQ(ti->pgid, 1);				/* V8+ field */
	}
	ti = thread_table__find(inspector__threads(in), 431);
	CHECK(ti && ti->args_len == 3 && !memcmp(ti->args, "-f\0", 3));
	/* FILE_V2 entries carry open flags */
	fi = fd_of(in, 403, 0);
	CHECK(fi && fi->type == FDT_FILE && fi->open_flags == 1 && fi->name &&
	      !strcmp(fi->name, "/dev/null"));
	fi = fd_of(in, 1, 6);
	CHECK(fi && fi->type == FDT_DIRECTORY && fi->name &&
	      !strcmp(fi->name, "/sys/fs/cgroup/systemd"));
	fi = fd_of(in, 1, 4);
	CHECK(fi && fi->type == FDT_EVENTPOLL && !fi->name);
	/* unix sockets are named by their path (as the file has it) */
	fi = fd_of(in, 1, 13);
	CHECK(fi && fi->type == FDT_UNIX_SOCK && fi->name &&
	      !strncmp(fi->name, "/run/systemd/notify", 19));
	fi = fd_of(in, 1, 33);
	CHECK(fi && fi->type == FDT_PIPE && fi->name && !strcmp(fi->name, "pipe:[356]"));
	while (capture__next(c, &ev, 0) == 0)
		n++;
	CHECK_EQ(n, 1728);
	capture__close(c);
	inspector__free(in);
}

/* ---- synthetic list blocks ---- */

/* The fields of a process list entry after the ids, for V5 (0x211) or, with
 * V9, V9 (0x215: sid, vpgid, exepath, and loginuid at the end). */
static void put_proc_fields(struct bytes *e, uint64_t tid, uint64_t pid, const char *comm,
			    bool v9)
{
	put_u64(e, tid);
	put_u64(e, pid);
	put_u64(e, 1);		/* ptid */
	if (v9) {
		put_u64(e, tid);	/* sid */
		put_u64(e, tid);	/* vpgid */
	}
	put_str(e, comm);
	put_str(e, "/usr/bin/x");
	if (v9)
		put_str(e, "/usr/bin/x");
	put_u16(e, 3);
	put(e, "-a\0", 3);
	put_str(e, "/tmp");
	put_u64(e, 1024);	/* fdlimit */
	put_u32(e, 0);		/* flags */
	put_u32(e, 1000);	/* uid */
	put_u32(e, 1000);	/* gid */
	put_u32(e, 0); put_u32(e, 0); put_u32(e, 0);	/* vm sizes */
	put_u64(e, 0); put_u64(e, 0);			/* page faults */
	put_str(e, "");		/* env */
	put_u64(e, tid);	/* vtid */
	put_u64(e, pid);	/* vpid */
	put_u16(e, 6);
	put(e, "cpu=/\0", 6);
	put_str(e, "/");	/* root */
	if (v9)
		put_u32(e, 1000);	/* loginuid */
}

static void put_v9_entry(struct bytes *body, uint64_t tid, const char *comm, int32_t len_fix)
{
	struct bytes e = { 0 };

	put_proc_fields(&e, tid, tid, comm, true);
	put_u32(body, (uint32_t)(e.len + 4) + (uint32_t)len_fix);
	put(body, e.p, e.len);
	free(e.p);
}

/* An FDL V2 entry: a file fd. */
static void put_fd_entry(struct bytes *body, uint64_t fd, const char *name, int32_t len_fix)
{
	struct bytes e = { 0 };

	put_u64(&e, fd);
	put_u64(&e, 77);	/* ino */
	put_u8(&e, 16);		/* FILE_V2 */
	put_u32(&e, 2);		/* open flags */
	put_str(&e, name);
	put_u32(&e, 0x801);	/* dev */
	put_u32(body, (uint32_t)(e.len + 4) + (uint32_t)len_fix);
	put(body, e.p, e.len);
	free(e.p);
}

static void put_close_event(struct bytes *b)
{
	uint8_t frame[256];
	struct frame_builder fb;
	uint32_t flen, pad, blen;
	uint16_t cpu = 0;

	fb__begin(&fb, frame, sizeof(frame), PPME_SYSCALL_CLOSE_E, 100, 1000);
	fb__u64(&fb, 3);
	flen = fb__end(&fb, 0);
	pad = (4 - (2 + flen) % 4) % 4;
	blen = 12 + 2 + flen + pad;
	put_u32(b, 0x216);
	put_u32(b, blen);
	put(b, &cpu, 2);
	put(b, frame, flen);
	put(b, "\0\0\0", pad);
	put_u32(b, blen);
}

struct outcome {
	bool opened;
	struct capfile_import imp;
	uint64_t n, corrupt;
	int end;
};

/* Writes B, replays it with state into IN; the events and counters in O. */
static void run_state(const struct bytes *b, struct inspector *in, struct outcome *o)
{
	char path[4096];
	struct capfile_error err;
	struct capture_event ev;
	struct capture_stats st;
	struct capture *c;
	FILE *f;
	int rc;

	memset(o, 0, sizeof(*o));
	snprintf(path, sizeof(path), "%s/in.scap", tmpdir);
	f = fopen(path, "wb");
	if (!f || fwrite(b->p, 1, b->len, f) != b->len)
		t_failed++;
	if (f)
		fclose(f);
	c = capture__open_file_state(path, &err, in, &o->imp);
	if (!c)
		return;
	o->opened = true;
	for (int i = 0; i < 1000 && (rc = capture__next(c, &ev, 0)) == 0; i++)
		o->n++;
	o->end = rc;
	capture__stats(c, &st);
	o->corrupt = st.total.n_corrupt;
	capture__close(c);
}

static void test_corrupt_lists(void)
{
	struct thread_table *tt;
	struct inspector *in;
	struct bytes b = { 0 }, body = { 0 }, fdl = { 0 };
	struct outcome o;

	/* Good V9 list, good fd list: the reference. */
	in = new_inspector();
	put_shb(&b, 0x1A2B3C4D, 0);
	put_v9_entry(&body, 100, "good", 0);
	put_v9_entry(&body, 101, "other", 0);
	put_block(&b, 0x215, &body, 0, 0);
	put_u64(&fdl, 100);
	put_fd_entry(&fdl, 3, "/etc/passwd", 0);
	put_block(&b, 0x218, &fdl, 0, 0);
	put_close_event(&b);
	run_state(&b, in, &o);
	CHECK(o.opened);
	CHECK_EQ(o.imp.n_threads, 2);
	CHECK_EQ(o.imp.n_fds, 1);
	CHECK_EQ(o.imp.n_bad_lists, 0);
	CHECK_EQ(o.n, 1);
	CHECK_EQ(o.corrupt, 0);
	tt = inspector__threads(in);
	CHECK(thread_table__find(tt, 100) && thread_table__find(tt, 100)->loginuid == 1000);
	CHECK(thread_table__find(tt, 100) && !strcmp(thread_table__find(tt, 100)->cwd, "/tmp/"));
	CHECK(fd_of(in, 100, 3) && fd_of(in, 100, 3)->dev == 0x801 &&
	      !strcmp(fd_of(in, 100, 3)->name, "/etc/passwd"));
	inspector__free(in);

	/* Second V9 entry's length runs past the block: the block is counted, the
	 * entry before it kept, the fd list still read, the event still out. */
	in = new_inspector();
	b.len = body.len = 0;
	put_shb(&b, 0x1A2B3C4D, 0);
	put_v9_entry(&body, 100, "good", 0);
	put_v9_entry(&body, 101, "past", 64);
	put_block(&b, 0x215, &body, 0, 0);
	put_block(&b, 0x218, &fdl, 0, 0);
	put_close_event(&b);
	run_state(&b, in, &o);
	CHECK(o.opened);
	CHECK_EQ(o.imp.n_threads, 1);
	CHECK_EQ(o.imp.n_bad_lists, 1);
	CHECK_EQ(o.corrupt, 1);
	CHECK_EQ(o.imp.n_fds, 1);
	CHECK_EQ(o.n, 1);
	CHECK_EQ(o.end, -ENODATA);
	CHECK(thread_table__find(inspector__threads(in), 101) == NULL);
	inspector__free(in);

	/* An entry whose length is too short for its fields (truncated entry). */
	in = new_inspector();
	b.len = body.len = 0;
	put_shb(&b, 0x1A2B3C4D, 0);
	put_v9_entry(&body, 100, "short", -20);
	put_block(&b, 0x215, &body, 0, 0);
	put_close_event(&b);
	run_state(&b, in, &o);
	CHECK_EQ(o.imp.n_threads, 0);
	CHECK_EQ(o.imp.n_bad_lists, 1);
	CHECK_EQ(o.n, 1);
	inspector__free(in);

	/* A V5 list (no entry lengths) cut inside its second entry. */
	in = new_inspector();
	b.len = body.len = 0;
	put_shb(&b, 0x1A2B3C4D, 0);
	put_proc_fields(&body, 200, 200, "v5", false);
	put_proc_fields(&body, 201, 201, "cut", false);
	body.len -= 30;
	put_block(&b, 0x211, &body, 0, 0);
	put_close_event(&b);
	run_state(&b, in, &o);
	CHECK_EQ(o.imp.n_threads, 1);
	CHECK_EQ(o.imp.n_bad_lists, 1);
	CHECK(thread_table__find(inspector__threads(in), 200) &&
	      !strcmp(thread_table__find(inspector__threads(in), 200)->comm, "v5"));
	CHECK_EQ(o.n, 1);
	inspector__free(in);

	/* Trailer disagreeing with the header: counted, skipped by length. */
	in = new_inspector();
	b.len = body.len = 0;
	put_shb(&b, 0x1A2B3C4D, 0);
	put_v9_entry(&body, 100, "good", 0);
	put_block(&b, 0x215, &body, 0, 4);
	put_close_event(&b);
	run_state(&b, in, &o);
	CHECK_EQ(o.imp.n_threads, 0);
	CHECK_EQ(o.imp.n_bad_lists, 1);
	CHECK_EQ(o.n, 1);
	inspector__free(in);

	/* Fd list of an unknown tid, and one whose entry runs past the block. */
	in = new_inspector();
	b.len = body.len = fdl.len = 0;
	put_shb(&b, 0x1A2B3C4D, 0);
	put_v9_entry(&body, 100, "good", 0);
	put_block(&b, 0x215, &body, 0, 0);
	put_u64(&fdl, 999);
	put_fd_entry(&fdl, 3, "/x", 0);
	put_block(&b, 0x218, &fdl, 0, 0);
	fdl.len = 0;
	put_u64(&fdl, 100);
	put_fd_entry(&fdl, 4, "/y", 0);
	put_fd_entry(&fdl, 5, "/z", 100);
	put_block(&b, 0x218, &fdl, 0, 0);
	put_close_event(&b);
	run_state(&b, in, &o);
	CHECK_EQ(o.imp.n_threads, 1);
	CHECK_EQ(o.imp.n_fds, 1);
	CHECK_EQ(o.imp.n_bad_lists, 2);
	CHECK_EQ(o.corrupt, 2);
	CHECK(fd_of(in, 100, 4) != NULL);
	CHECK(fd_of(in, 100, 5) == NULL);
	CHECK_EQ(o.n, 1);
	inspector__free(in);

	/* A list block whose length runs past the end of the file: the input ends
	 * with -EINVAL at the first next, as for any block. */
	in = new_inspector();
	b.len = body.len = 0;
	put_shb(&b, 0x1A2B3C4D, 0);
	put_v9_entry(&body, 100, "good", 0);
	put_block(&b, 0x215, &body, 4096, 0);
	run_state(&b, in, &o);
	CHECK(o.opened);
	CHECK_EQ(o.n, 0);
	CHECK_EQ(o.end, -EINVAL);
	inspector__free(in);

	/* Without an inspector the lists are skipped, not counted. */
	b.len = body.len = 0;
	put_shb(&b, 0x1A2B3C4D, 0);
	put_v9_entry(&body, 100, "past", 64);
	put_block(&b, 0x215, &body, 0, 0);
	put_close_event(&b);
	run_state(&b, NULL, &o);
	CHECK_EQ(o.imp.n_bad_lists, 0);
	CHECK_EQ(o.corrupt, 0);
	CHECK_EQ(o.n, 1);

	free(b.p);
	free(body.p);
	free(fdl.p);
}

int main(int argc, char **argv)
{
	struct stat sb;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FIXTURE_DIR\n", argv[0]);
		return 2;
	}
	if (stat(argv[1], &sb) != 0) {
		printf("skipped: no fixtures in %s\n", argv[1]);
		return 77;
	}
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_curl_google(argv[1]);
	test_single_ipv6(argv[1]);
	test_corrupt_lists();
	return t_finish(tmpdir);
}
