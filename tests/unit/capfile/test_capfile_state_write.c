/* The state a capture starts with (capfile_writer__state), written from a hand-made
 * inspector and read back by capture__open_file_state into a fresh one: every
 * thread field and every fd type come back, threads share their process's fds,
 * over-long strings are cut to what sysdig's reader accepts, and the readers'
 * two layouts of a process entry's tail are told apart. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capfile.h"
#include "frame_builder.h"
#include "inspect.h"
#include "t_check.h"
#include "bytes.h"

static char tmpdir[] = "/tmp/test_capfile_state_write.XXXXXX";

static struct inspector *new_inspector(void)
{
	struct inspector_opts io = { .no_proc_scan = true, .no_proc_lookup = true };

	return inspector__new(&io);
}

static char *dup_bytes(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

static struct thread_info *add_thread(struct inspector *in, int64_t tid, int64_t pid,
				      const char *comm)
{
	struct thread_info *ti = inspector__add_thread(in, tid, pid);

	CHECK(ti != NULL);
	if (!ti)
		return NULL;
	snprintf(ti->comm, sizeof(ti->comm), "%s", comm);
	ti->ptid = 1;
	return ti;
}

static struct fd_info *add_fd(struct inspector *in, struct thread_info *ti, int64_t fd,
			      enum fd_type type, const char *name)
{
	struct fd_info *fi = inspector__add_fd(in, ti, fd);

	CHECK(fi != NULL);
	if (!fi)
		return NULL;
	fi->type = type;
	fi->ino = 1000 + (uint64_t)fd;
	fi->name = name ? strdup(name) : NULL;
	return fi;
}

static void set_v4(uint8_t ip[16], const char *s)
{
	memset(ip, 0, 16);
	inet_pton(AF_INET, s, ip);
}

static void set_v6(uint8_t ip[16], const char *s)
{
	inet_pton(AF_INET6, s, ip);
}

/* The source inspector: a process with two threads and every fd type, a thread
 * whose main thread is unknown, and a thread with over-long strings. */
static struct inspector *build_source(void)
{
	static const char args[] = "--flag\0value with space\0";
	static const char cg[] = "cpu=/a\0memory=/b/c\0";
	struct inspector *in = new_inspector();
	struct thread_info *m, *t, *o, *big;
	struct fd_info *f;
	char *longarg;

	m = add_thread(in, 500, 500, "server");
	m->ptid = 1;
	m->sid = 400;
	m->pgid = 450;
	m->vtid = 5;
	m->vpid = 5;
	m->uid = 1001;
	m->gid = 1002;
	m->loginuid = 1003;
	m->exe = strdup("/usr/bin/server");
	m->exepath = strdup("/usr/libexec/server-bin");
	m->args = dup_bytes(args, sizeof(args) - 1);
	m->args_len = sizeof(args) - 1;
	m->cwd = strdup("/srv/data/");
	m->cgroups = dup_bytes(cg, sizeof(cg) - 1);
	m->cgroups_len = sizeof(cg) - 1;

	f = add_fd(in, m, 3, FDT_FILE, "/srv/data/log.txt");
	f->open_flags = 0x2 | 0x100;
	f->dev = 0x800001;
	add_fd(in, m, 4, FDT_DIRECTORY, "/srv/data");
	f = add_fd(in, m, 5, FDT_IPV4_SOCK, "10.0.0.1:40000->10.0.0.2:80");
	f->family = 2;
	f->l4proto = IPPROTO_TCP;
	set_v4(f->sip, "10.0.0.1");
	set_v4(f->dip, "10.0.0.2");
	f->sport = 40000;
	f->dport = 80;
	f = add_fd(in, m, 6, FDT_IPV4_SOCK, "0.0.0.0:8080");
	f->family = 2;
	f->l4proto = IPPROTO_TCP;
	set_v4(f->dip, "0.0.0.0");
	f->dport = 8080;
	f->is_server = true;
	f = add_fd(in, m, 7, FDT_IPV6_SOCK, "2001:db8::1:5353->2001:db8::2:53");
	f->family = 10;
	f->l4proto = IPPROTO_UDP;
	set_v6(f->sip, "2001:db8::1");
	set_v6(f->dip, "2001:db8::2");
	f->sport = 5353;
	f->dport = 53;
	f = add_fd(in, m, 8, FDT_IPV6_SOCK, ":::443");
	f->family = 10;
	f->l4proto = IPPROTO_TCP;
	f->dport = 443;
	f->is_server = true;
	f = add_fd(in, m, 9, FDT_UNIX_SOCK, "/run/server.sock");
	f->family = 1;
	add_fd(in, m, 10, FDT_PIPE, "pipe:[1234]");
	add_fd(in, m, 11, FDT_EVENT, "anon_inode:[eventfd]");
	add_fd(in, m, 12, FDT_SIGNALFD, "anon_inode:[signalfd]");
	add_fd(in, m, 13, FDT_EVENTPOLL, "anon_inode:[eventpoll]");
	add_fd(in, m, 14, FDT_INOTIFY, "anon_inode:inotify");
	add_fd(in, m, 15, FDT_TIMERFD, "anon_inode:[timerfd]");
	add_fd(in, m, 16, FDT_NETLINK, "socket:[99]");
	add_fd(in, m, 17, FDT_BPF, "anon_inode:bpf-map");
	add_fd(in, m, 18, FDT_MEMFD, "/memfd:cache (deleted)");
	add_fd(in, m, 19, FDT_UNKNOWN, "anon_inode:[io_uring]");
	add_fd(in, m, 20, FDT_BPF, NULL);	/* made by a bpf() event: no link text */

	/* a second thread of the same process: listed after its main thread */
	t = add_thread(in, 501, 500, "worker");
	t->loginuid = 1003;

	/* a thread whose main thread is unknown: its own fd list */
	o = add_thread(in, 601, 600, "orphan");
	add_fd(in, o, 0, FDT_FILE, "/dev/null");

	/* strings past sysdig's limits: exe 1024, args 4096 */
	big = add_thread(in, 700, 700, "big");
	big->exe = malloc(2001);
	memset(big->exe, 'e', 2000);
	big->exe[2000] = '\0';
	longarg = malloc(6001);
	memset(longarg, 'a', 6000);
	longarg[6000] = '\0';
	big->args = longarg;
	big->args_len = 6001;
	big->cwd = strdup("/");
	return in;
}

static int write_file(struct inspector *src, const char *path, struct capfile_state_counts *n)
{
	struct capfile_writer *w = capfile_writer__open(path, false);
	struct frame_builder fb;
	uint8_t frame[256];
	int err;

	if (!w)
		return -errno;
	err = capfile_writer__state(w, src, n);
	fb__begin(&fb, frame, sizeof(frame), PPME_SYSCALL_CLOSE_E, 501, 1000);
	fb__u64(&fb, 3);
	fb__end(&fb, 0);
	if (!err)
		err = capfile_writer__write(w, 0, (const struct ppm_evt_hdr *)frame);
	return capfile_writer__close(w) ?: err;
}

static void check_fd_common(struct fd_info *f, enum fd_type type, const char *name)
{
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_EQ(f->type, type);
	CHECK_EQ(f->ino, 1000 + (uint64_t)f->fd);
	CHECK(f->name && name && !strcmp(f->name, name));
	if (!(f->name && name && !strcmp(f->name, name)))
		fprintf(stderr, "  fd %lld: name %s, want %s\n", (long long)f->fd,
			f->name ? f->name : "(null)", name);
}

static void test_round_trip(void)
{
	struct inspector *src = build_source(), *dst = new_inspector();
	struct thread_table *tt = inspector__threads(dst);
	struct capfile_state_counts n;
	struct capfile_import imp;
	struct capfile_error err;
	struct capture_event ev;
	struct thread_info *m, *t, *o, *big;
	struct fd_info *f;
	struct capture *c;
	uint8_t ip[16];
	char path[4096];

	snprintf(path, sizeof(path), "%s/state.scap", tmpdir);
	CHECK_EQ(write_file(src, path, &n), 0);
	CHECK_EQ(n.n_threads, 4);
	CHECK_EQ(n.n_fds, 19);
	CHECK_EQ(n.n_blocks, 3);	/* process list, server's fds, orphan's fds */

	c = capture__open_file_state(path, &err, dst, &imp);
	CHECK(c != NULL);
	if (!c) {
		fprintf(stderr, "  %s\n", err.msg);
		goto out;
	}
	CHECK_EQ(imp.n_threads, 4);
	CHECK_EQ(imp.n_fds, 19);
	CHECK_EQ(imp.n_bad_lists, 0);
	CHECK_EQ(capture__next(c, &ev, 0), 0);
	CHECK_EQ(capture__next(c, &ev, 0), -ENODATA);
	capture__close(c);

	m = thread_table__find(tt, 500);
	CHECK(m != NULL);
	if (!m)
		goto out;
	CHECK_EQ(m->pid, 500);
	CHECK_EQ(m->ptid, 1);
	CHECK_EQ(m->sid, 400);
	CHECK_EQ(m->pgid, 450);
	CHECK_EQ(m->vtid, 5);
	CHECK_EQ(m->vpid, 5);
	CHECK_EQ(m->uid, 1001);
	CHECK_EQ(m->gid, 1002);
	CHECK_EQ(m->loginuid, 1003);
	CHECK(!strcmp(m->comm, "server"));
	CHECK(m->exe && !strcmp(m->exe, "/usr/bin/server"));
	CHECK(m->exepath && !strcmp(m->exepath, "/usr/libexec/server-bin"));
	CHECK_EQ(m->args_len, 24);
	CHECK(m->args && !memcmp(m->args, "--flag\0value with space\0", 24));
	CHECK(m->cwd && !strcmp(m->cwd, "/srv/data/"));
	CHECK_EQ(m->cgroups_len, 19);
	CHECK(m->cgroups && !memcmp(m->cgroups, "cpu=/a\0memory=/b/c\0", 19));

	t = thread_table__find(tt, 501);
	CHECK(t && t->pid == 500 && !strcmp(t->comm, "worker"));
	CHECK(t && t->fds == m->fds);	/* one fd table per process */
	CHECK_EQ(fd_table__count(m->fds), 18);

	f = fd_table__find(m->fds, 3);
	check_fd_common(f, FDT_FILE, "/srv/data/log.txt");
	CHECK(f && f->open_flags == (0x2 | 0x100) && f->dev == 0x800001);
	check_fd_common(fd_table__find(m->fds, 4), FDT_DIRECTORY, "/srv/data");
	f = fd_table__find(m->fds, 5);
	check_fd_common(f, FDT_IPV4_SOCK, "10.0.0.1:40000->10.0.0.2:80");
	set_v4(ip, "10.0.0.1");
	CHECK(f && !memcmp(f->sip, ip, 16) && f->sport == 40000 && f->dport == 80);
	CHECK(f && f->l4proto == IPPROTO_TCP && !f->is_server);
	f = fd_table__find(m->fds, 6);
	check_fd_common(f, FDT_IPV4_SOCK, "0.0.0.0:8080");
	CHECK(f && f->is_server && f->dport == 8080);
	f = fd_table__find(m->fds, 7);
	check_fd_common(f, FDT_IPV6_SOCK, "2001:db8::1:5353->2001:db8::2:53");
	set_v6(ip, "2001:db8::2");
	CHECK(f && !memcmp(f->dip, ip, 16) && f->l4proto == IPPROTO_UDP);
	f = fd_table__find(m->fds, 8);
	check_fd_common(f, FDT_IPV6_SOCK, ":::443");
	CHECK(f && f->is_server && f->dport == 443);
	check_fd_common(fd_table__find(m->fds, 9), FDT_UNIX_SOCK, "/run/server.sock");
	check_fd_common(fd_table__find(m->fds, 10), FDT_PIPE, "pipe:[1234]");
	check_fd_common(fd_table__find(m->fds, 11), FDT_EVENT, "anon_inode:[eventfd]");
	check_fd_common(fd_table__find(m->fds, 12), FDT_SIGNALFD, "anon_inode:[signalfd]");
	check_fd_common(fd_table__find(m->fds, 13), FDT_EVENTPOLL, "anon_inode:[eventpoll]");
	check_fd_common(fd_table__find(m->fds, 14), FDT_INOTIFY, "anon_inode:inotify");
	check_fd_common(fd_table__find(m->fds, 15), FDT_TIMERFD, "anon_inode:[timerfd]");
	check_fd_common(fd_table__find(m->fds, 16), FDT_NETLINK, "socket:[99]");
	/* written as sysdig's UNSUPPORTED (test_sysdig_fd_types), read back as bpf */
	check_fd_common(fd_table__find(m->fds, 17), FDT_BPF, "anon_inode:bpf-map");
	check_fd_common(fd_table__find(m->fds, 18), FDT_MEMFD, "/memfd:cache (deleted)");
	check_fd_common(fd_table__find(m->fds, 19), FDT_UNKNOWN, "anon_inode:[io_uring]");
	check_fd_common(fd_table__find(m->fds, 20), FDT_BPF, "anon_inode:bpf-");

	o = thread_table__find(tt, 601);
	CHECK(o && o->pid == 600 && o->fds != m->fds);
	if (o)
		check_fd_common(fd_table__find(o->fds, 0), FDT_FILE, "/dev/null");

	big = thread_table__find(tt, 700);
	CHECK(big && big->exe && strlen(big->exe) == 1024);
	CHECK(big && big->args_len == 4096 + 1);	/* cut, then NUL-ended by the reader */
	CHECK(big && big->cwd && !strcmp(big->cwd, "/"));
out:
	inspector__free(src);
	inspector__free(dst);
}

/* ---- the tail of a v9 process entry, as two generations of writers lay it ---- */

/* A v9 entry up to root, then TAIL. */
static void put_entry(struct bytes *body, uint64_t tid, const struct bytes *tail)
{
	struct bytes e = { 0 };

	put_u64(&e, tid);
	put_u64(&e, tid);
	put_u64(&e, 1);
	put_u64(&e, 0);
	put_u64(&e, 0);
	for (int i = 0; i < 5; i++)
		put_u16(&e, 0);	/* comm, exe, exepath, args, cwd */
	put_u64(&e, 0);
	put_u32(&e, 0);
	put_u32(&e, 0);
	put_u32(&e, 0);
	put(&e, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 28);
	put_u16(&e, 0);	/* env */
	put_u64(&e, 0);
	put_u64(&e, 0);
	put_u16(&e, 0);	/* cgroups */
	put_u16(&e, 0);	/* root */
	put(&e, tail->p, tail->len);
	put_u32(body, (uint32_t)e.len + 4);
	put(body, e.p, e.len);
	free(e.p);
}

static void test_entry_tails(void)
{
	struct bytes old = { 0 }, new = { 0 }, body = { 0 }, file = { 0 };
	struct inspector *in = new_inspector();
	struct thread_info *a, *b;
	struct capfile_error err;
	struct capture *c;
	char path[4096];
	FILE *f;

	/* before libs 0.10: loginuid, exe_writable, three capability sets (29 bytes) */
	put_u32(&old, 2001);
	put_u8(&old, 1);
	for (int i = 0; i < 3; i++)
		put_u64(&old, 0x3ff);
	/* 0.10 and later: pidns_init_start_ts, tty first, then the same, then more */
	put_u64(&new, 123456789);
	put_u32(&new, 34816);
	put_u32(&new, 2002);
	put_u8(&new, 0);
	for (int i = 0; i < 3; i++)
		put_u64(&new, 0);
	put_u8(&new, 0);
	put_u64(&new, 42);
	put_entry(&body, 10, &old);
	put_entry(&body, 11, &new);

	put_shb(&file, 0x1A2B3C4D, 0);
	put_block(&file, 0x215, &body, 0, 0);

	snprintf(path, sizeof(path), "%s/tails.scap", tmpdir);
	f = fopen(path, "wb");
	CHECK(f && fwrite(file.p, 1, file.len, f) == file.len);
	if (f)
		fclose(f);
	c = capture__open_file_state(path, &err, in, NULL);
	CHECK(c != NULL);
	capture__close(c);
	a = thread_table__find(inspector__threads(in), 10);
	b = thread_table__find(inspector__threads(in), 11);
	CHECK(a && a->loginuid == 2001 && a->tty == 0);
	CHECK(b && b->loginuid == 2002 && b->tty == 34816);
	inspector__free(in);
	free(old.p);
	free(new.p);
	free(body.p);
	free(file.p);
}

/* A write error (a full disk) is reported, not lost. */
static void test_write_error(void)
{
	struct inspector *src = build_source();
	struct capfile_writer *w;
	int err;

	w = capfile_writer__open("/dev/full", false);
	CHECK(w != NULL);
	if (!w) {
		inspector__free(src);
		return;
	}
	err = capfile_writer__state(w, src, NULL);
	err = capfile_writer__close(w) ?: err;
	CHECK_EQ(err, -ENOSPC);
	inspector__free(src);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* sysdig 0.29.3's reader (libscap scap_fd_read_from_disk) refuses a whole file
 * whose fd list holds a type past SCAP_FD_FILE_V2 (16): every fd entry has a
 * type it knows; a bpf fd is UNSUPPORTED with its link as name, as sysdig's own
 * /proc scan types it, and a memfd a FILE_V2 named /memfd:NAME. */
static void test_sysdig_fd_types(void)
{
	struct inspector *src = build_source();
	struct capfile_state_counts n;
	uint8_t *buf = NULL, type_of[32];
	size_t len = 0, off = 0, entries = 0;
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/types.scap", tmpdir);
	CHECK_EQ(write_file(src, path, &n), 0);
	inspector__free(src);
	f = fopen(path, "rb");
	CHECK(f != NULL);
	if (!f)
		return;
	buf = malloc(1 << 20);
	len = buf ? fread(buf, 1, 1 << 20, f) : 0;
	fclose(f);
	memset(type_of, 0xff, sizeof(type_of));
	while (off + 12 <= len) {
		uint32_t btype = le32(buf + off), blen = le32(buf + off + 4);
		size_t p = off + 8 + 8, end = off + blen - 4;	/* past the tid */

		if (blen < 12 || off + blen > len)
			break;
		for (; btype == 0x218u && p + 4 + 17 <= end; p += le32(buf + p)) {
			uint64_t fd;

			memcpy(&fd, buf + p + 4, 8);
			CHECK(buf[p + 20] >= 1 && buf[p + 20] <= 16);
			if (fd < sizeof(type_of))
				type_of[fd] = buf[p + 20];
			entries++;
			if (le32(buf + p) < 21)
				break;
		}
		off += blen;
	}
	CHECK_EQ(off, len);
	CHECK_EQ(entries, n.n_fds);
	CHECK_EQ(entries, 19);
	CHECK_EQ(type_of[17], 10);	/* bpf: SCAP_FD_UNSUPPORTED */
	CHECK_EQ(type_of[18], 16);	/* memfd: SCAP_FD_FILE_V2 */
	CHECK_EQ(type_of[19], 10);	/* io_uring, unknown to us: UNSUPPORTED */
	CHECK(memmem(buf, len, "anon_inode:bpf-map", 18) != NULL);
	free(buf);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_round_trip();
	test_entry_tails();
	test_write_error();
	test_sysdig_fd_types();
	return t_finish(tmpdir);
}
