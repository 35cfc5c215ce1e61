/* The fd table kept by events: open/openat/openat2/creat paths (dirfd, cwd after
 * chdir/fchdir, "..", "//"), failing opens, dup/dup2/fcntl(F_DUPFD_CLOEXEC),
 * close (and failed close), pipe, socket+connect with IPv4/IPv6/unix tuples
 * (bytes from the single_ipv6_conn.scap fixture), accept, bind, eventfd and
 * friends, then each maker again for what it leaves (replaced entries, both
 * ends, access modes, failures); profiling's FD_NAME naming an fd it did not
 * see opened; socket addresses written as names. Frames follow
 * proto/events.def. */
#include <errno.h>
#include <netinet/in.h>

#include "inspect_int.h"
#include "test_util.h"

#define Q(x) ((uint64_t)(int64_t)(x))
#define TID 100

static struct t_ctx *t;

static struct fd_info *fd(int64_t n)
{
	return t_fd(t, TID, n);
}

static const char *fdname(int64_t n)
{
	return t_fdname(t, TID, n);
}

static void t_openat(int64_t res, int64_t dirfd, const char *name, uint32_t flags)
{
	CHECK(t_emit(t, PPME_SYSCALL_OPENAT_2_E, TID, "qsdd", Q(dirfd), name, flags, 0u) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_OPENAT_2_X, TID, "qqsddd", Q(res), Q(dirfd), name, flags, 0u,
		     0x801u) == 0);
}

static void close_(int64_t n, int64_t res)
{
	CHECK(t_emit(t, PPME_SYSCALL_CLOSE_E, TID, "q", Q(n)) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_CLOSE_X, TID, "q", Q(res)) == 0);
}

static void test_open_paths(void)
{
	struct fd_info *f;

	/* open(2): relative to the cwd */
	CHECK(t_emit(t, PPME_SYSCALL_OPEN_E, TID, "sdd", "data/./x.txt", 1u, 0u) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_OPEN_X, TID, "qsddd", Q(3), "data/./x.txt",
		     PPM_FILE_FLAGS_O_RDONLY, 0u, 0x803u) == 0);
	CHECK_STR(fdname(3), "/home/u/data/x.txt");
	f = fd(3);
	CHECK(f && f->type == FDT_FILE && f->open_flags == PPM_FILE_FLAGS_O_RDONLY && f->dev == 0x803);
	CHECK(t->ev.fd == f && t->ev.fdnum == 3 && t->ev.has_res && t->ev.res == 3);

	/* openat with AT_FDCWD, "..", duplicate slashes */
	t_openat(4, -100, "..//v/../w//f", PPM_FILE_FLAGS_O_WRONLY | PPM_FILE_FLAGS_O_CREAT);
	CHECK_STR(fdname(4), "/home/w/f");
	CHECK(fd(4) && fd(4)->open_flags == (PPM_FILE_FLAGS_O_WRONLY | PPM_FILE_FLAGS_O_CREAT));
	/* ".." never goes above "/" */
	t_openat(5, -100, "../../../../etc/./passwd", PPM_FILE_FLAGS_O_RDONLY);
	CHECK_STR(fdname(5), "/etc/passwd");
	/* a directory, then a path relative to it */
	t_openat(6, -100, "/var/lib/", PPM_FILE_FLAGS_O_RDONLY | PPM_FILE_FLAGS_O_DIRECTORY);
	CHECK(fd(6) && fd(6)->type == FDT_DIRECTORY);
	CHECK_STR(fdname(6), "/var/lib");
	t_openat(7, 6, "dpkg/status", PPM_FILE_FLAGS_O_RDONLY);
	CHECK_STR(fdname(7), "/var/lib/dpkg/status");
	t_openat(8, 6, "../log/syslog", PPM_FILE_FLAGS_O_RDONLY);
	CHECK_STR(fdname(8), "/var/log/syslog");
	/* absolute paths ignore the dirfd */
	t_openat(9, 6, "/abs", PPM_FILE_FLAGS_O_RDONLY);
	CHECK_STR(fdname(9), "/abs");
	/* a dirfd we do not know: the relative path as given */
	t_openat(10, 77, "rel/p", PPM_FILE_FLAGS_O_RDONLY);
	CHECK_STR(fdname(10), "rel/p");

	/* failing opens add nothing; the event alone shows the path (fd -1) */
	t_openat(-2, -100, "missing", PPM_FILE_FLAGS_O_RDONLY);
	CHECK(t->ev.fdnum == -1 && t->ev.res == -2);
	CHECK(t->ev.fd && t->ev.fd->fd == -1 && t->ev.fd->type == FDT_FILE);
	CHECK_STR(t->ev.fd ? t->ev.fd->name : NULL, "/home/u/missing");
	CHECK(t_emit(t, PPME_GENERIC_E, TID, "ww", 1u, 2u) == 0);
	CHECK(t->ev.fd == NULL);
	CHECK(t_emit(t, PPME_SYSCALL_OPEN_X, TID, "qsddd", Q(-13), "/root/x", 1u, 0u, 0u) == 0);
	CHECK(fd(-13) == NULL && fd(11) == NULL);
	CHECK_INT(fd_table__count(thread_table__find(inspector__threads(t->in), TID)->fds), 8);

	/* openat2 and creat */
	CHECK(t_emit(t, PPME_SYSCALL_OPENAT2_E, TID, "qsddd", Q(-100), "o2", 1u, 0u, 0u) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_OPENAT2_X, TID, "qqsddd", Q(11), Q(-100), "o2",
		     PPM_FILE_FLAGS_O_RDONLY | PPM_FILE_FLAGS_O_CLOEXEC, 0u, 0u) == 0);
	CHECK_STR(fdname(11), "/home/u/o2");
	CHECK(fd(11) && (fd(11)->open_flags & PPM_FILE_FLAGS_O_CLOEXEC));
	CHECK(t_emit(t, PPME_SYSCALL_CREAT_E, TID, "sd", "new", 0600u) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_CREAT_X, TID, "qsdd", Q(12), "new", 0600u, 0x801u) == 0);
	CHECK_STR(fdname(12), "/home/u/new");
	CHECK(fd(12) && (fd(12)->open_flags & PPM_FILE_FLAGS_O_CREAT));
	/* the old openat: only the fd in the exit, the rest from the enter */
	CHECK(t_emit(t, PPME_SYSCALL_OPENAT_E, TID, "qsdd", Q(-100), "old", 1u, 0u) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_OPENAT_X, TID, "q", Q(13)) == 0);
	CHECK_STR(fdname(13), "/home/u/old");

	/* chdir changes what relative paths mean; then fchdir to a dir fd */
	CHECK(t_emit(t, PPME_SYSCALL_CHDIR_E, TID, "") == 0);
	CHECK(t_emit(t, PPME_SYSCALL_CHDIR_X, TID, "qs", Q(0), "../tmp//a/") == 0);
	CHECK_STR(thread_table__find(inspector__threads(t->in), TID)->cwd, "/home/tmp/a/");
	t_openat(14, -100, "../b", PPM_FILE_FLAGS_O_RDONLY);
	CHECK_STR(fdname(14), "/home/tmp/b");
	CHECK(t_emit(t, PPME_SYSCALL_CHDIR_X, TID, "qs", Q(-2), "/nonexistent") == 0);
	CHECK_STR(thread_table__find(inspector__threads(t->in), TID)->cwd, "/home/tmp/a/");
	CHECK(t_emit(t, PPME_SYSCALL_FCHDIR_E, TID, "q", Q(6)) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_FCHDIR_X, TID, "q", Q(0)) == 0);
	CHECK_STR(thread_table__find(inspector__threads(t->in), TID)->cwd, "/var/lib/");
	t_openat(15, -100, "x", PPM_FILE_FLAGS_O_RDONLY);
	CHECK_STR(fdname(15), "/var/lib/x");
}

static void test_dup_close(void)
{
	struct fd_info *f;

	/* dup: the new fd is the old one again, without O_CLOEXEC */
	CHECK(t_emit(t, PPME_SYSCALL_DUP_E, TID, "q", Q(11)) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_DUP_X, TID, "q", Q(20)) == 0);
	CHECK_STR(fdname(20), "/home/u/o2");
	CHECK(fd(20) && fd(20)->type == FDT_FILE && !(fd(20)->open_flags & PPM_FILE_FLAGS_O_CLOEXEC));
	CHECK(fd(20) && fd(20)->name != fd(11)->name);
	CHECK(t->ev.fd == fd(20));
	/* dup2 over an open fd replaces it (dup2/dup3 use the dup event) */
	CHECK(t_emit(t, PPME_SYSCALL_DUP_E, TID, "q", Q(3)) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_DUP_X, TID, "q", Q(20)) == 0);
	CHECK_STR(fdname(20), "/home/u/data/x.txt");
	/* dup2(fd, fd) and a failed dup change nothing */
	CHECK(t_emit(t, PPME_SYSCALL_DUP_E, TID, "q", Q(3)) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_DUP_X, TID, "q", Q(3)) == 0);
	CHECK_STR(fdname(3), "/home/u/data/x.txt");
	CHECK(t_emit(t, PPME_SYSCALL_DUP_E, TID, "q", Q(3)) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_DUP_X, TID, "q", Q(-24)) == 0);
	/* fcntl(F_DUPFD_CLOEXEC) */
	CHECK(t_emit(t, PPME_SYSCALL_FCNTL_E, TID, "qb", Q(3), PPM_FCNTL_COMMANDS_F_DUPFD_CLOEXEC) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_FCNTL_X, TID, "q", Q(21)) == 0);
	CHECK(fd(21) && (fd(21)->open_flags & PPM_FILE_FLAGS_O_CLOEXEC));
	CHECK_STR(fdname(21), "/home/u/data/x.txt");
	/* other fcntl commands do not create fds */
	CHECK(t_emit(t, PPME_SYSCALL_FCNTL_E, TID, "qb", Q(3), PPM_FCNTL_COMMANDS_F_GETFL) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_FCNTL_X, TID, "q", Q(2)) == 0);
	CHECK(fd(2) == NULL);

	/* close: the exit still shows the fd, the table no longer has it */
	close_(21, 0);
	CHECK(fd(21) == NULL);
	f = t->ev.fd;
	CHECK(f && t->ev.fdnum == 21 && f->name && strcmp(f->name, "/home/u/data/x.txt") == 0);
	CHECK(t->ev.enter != NULL);
	/* a failed close keeps it */
	close_(20, -9);
	CHECK(fd(20) != NULL && t->ev.fd == fd(20) && t->ev.fdnum == 20);
	/* closing an fd we do not know is harmless */
	close_(999, 0);
	CHECK(t->ev.fd == NULL);
}

static void test_pipe_and_friends(void)
{
	CHECK(t_emit(t, PPME_SYSCALL_PIPE_E, TID, "") == 0);
	CHECK(t_emit(t, PPME_SYSCALL_PIPE_X, TID, "qqqq", Q(0), Q(30), Q(31), Q(38688)) == 0);
	CHECK(fd(30) && fd(30)->type == FDT_PIPE && fd(30)->ino == 38688);
	CHECK(fd(31) && fd(31)->type == FDT_PIPE && fd(31)->ino == 38688);
	CHECK(t->ev.fdnum == 31 && t->ev.fd == fd(31));	/* sysdig shows the second */
	CHECK(t_emit(t, PPME_SYSCALL_PIPE_X, TID, "qqqq", Q(-24), Q(32), Q(33), Q(0)) == 0);
	CHECK(fd(32) == NULL && fd(33) == NULL);

	CHECK(t_emit(t, PPME_SYSCALL_EVENTFD_E, TID, "qd", Q(0), 0u) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_EVENTFD_X, TID, "q", Q(34)) == 0);
	CHECK(fd(34) && fd(34)->type == FDT_EVENT);
	CHECK(t_emit(t, PPME_SYSCALL_SIGNALFD_E, TID, "qdb", Q(-1), 0u, 0u) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_SIGNALFD_X, TID, "q", Q(35)) == 0);
	CHECK(fd(35) && fd(35)->type == FDT_SIGNALFD);
	CHECK(t_emit(t, PPME_SYSCALL_TIMERFD_CREATE_E, TID, "bb", 1u, 0u) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_TIMERFD_CREATE_X, TID, "q", Q(36)) == 0);
	CHECK(fd(36) && fd(36)->type == FDT_TIMERFD);
	CHECK(t_emit(t, PPME_SYSCALL_INOTIFY_INIT_E, TID, "b", 0u) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_INOTIFY_INIT_X, TID, "q", Q(37)) == 0);
	CHECK(fd(37) && fd(37)->type == FDT_INOTIFY);
	{
		uint8_t dyn[9] = { 0 };	/* index 0: an fd */
		int64_t v = 38;

		memcpy(dyn + 1, &v, 8);
		CHECK(t_emit(t, PPME_SYSCALL_BPF_E, TID, "q", Q(5)) == 0);
		CHECK(t_emit(t, PPME_SYSCALL_BPF_X, TID, "B", dyn, 9u) == 0);
		CHECK(fd(38) && fd(38)->type == FDT_BPF);
		dyn[0] = 1;	/* index 1: an errno */
		memcpy(dyn + 1, &(int64_t){ 39 }, 8);
		CHECK(t_emit(t, PPME_SYSCALL_BPF_X, TID, "B", dyn, 9u) == 0);
		CHECK(fd(39) == NULL);
	}
	CHECK(fd_type_chars[FDT_PIPE] == 'p' && fd_type_chars[FDT_EVENT] == 'e' &&
	      fd_type_chars[FDT_FILE] == 'f' && fd_type_chars[FDT_DIRECTORY] == 'd' &&
	      fd_type_chars[FDT_IPV4_SOCK] == '4' && fd_type_chars[FDT_IPV6_SOCK] == '6' &&
	      fd_type_chars[FDT_UNIX_SOCK] == 'u' && fd_type_chars[FDT_SIGNALFD] == 's' &&
	      fd_type_chars[FDT_EVENTPOLL] == 'l' && fd_type_chars[FDT_INOTIFY] == 'i' &&
	      fd_type_chars[FDT_TIMERFD] == 't' && fd_type_chars[FDT_NETLINK] == 'n' &&
	      fd_type_chars[FDT_BPF] == 'b' && fd_type_chars[FDT_MEMFD] == 'm' &&
	      fd_type_chars[FDT_UNKNOWN] == 'o');
	CHECK_STR(fd_type_names[FDT_IPV6_SOCK], "ipv6");
	CHECK_STR(fd_type_names[FDT_EVENTPOLL], "eventpoll");
	CHECK_STR(fd_type_names[FDT_DIRECTORY], "directory");
}

/* Param bytes exactly as in single_ipv6_conn.scap (ports in host order). */
static const uint8_t v6_bind_addr[] = {
	0x0a, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x03, 0xd2, 0x04 };
static const uint8_t v6_tuple[] = {
	0x0a, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x04, 0x85, 0xd4,
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x03, 0xd2, 0x04 };
static const uint8_t unix_tuple[] = {
	0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x94, 0x7b, 0x81, 0xdc, 0x94, 0xff, 0xff,
	'/', 'v', 'a', 'r', '/', 'r', 'u', 'n', '/', 'n', 's', 'c', 'd', '/', 's', 'o', 'c', 'k',
	'e', 't', 0 };

static void test_sockets(void)
{
	uint8_t tup[13] = { 2, 10, 0, 0, 1 }, addr[7] = { 2, 93, 184, 216, 34 };
	uint16_t p;
	struct fd_info *f;

	/* IPv4: socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, 0) then connect */
	CHECK(t_emit(t, PPME_SOCKET_SOCKET_E, TID, "ddd", 2u, 1u | 02000000u, 0u) == 0);
	CHECK(t_emit(t, PPME_SOCKET_SOCKET_X, TID, "q", Q(40)) == 0);
	f = fd(40);
	CHECK(f && f->type == FDT_IPV4_SOCK && f->l4proto == IPPROTO_TCP && f->family == 2);
	CHECK(f && (f->open_flags & PPM_FILE_FLAGS_O_CLOEXEC) && f->name == NULL);
	p = 43210;
	memcpy(tup + 5, &p, 2);
	tup[7] = 93; tup[8] = 184; tup[9] = 216; tup[10] = 34;
	p = 80;
	memcpy(tup + 11, &p, 2);
	memcpy(addr + 5, &p, 2);
	CHECK(t_emit(t, PPME_SOCKET_CONNECT_E, TID, "qB", Q(40), addr, 7u) == 0);
	CHECK(t_emit(t, PPME_SOCKET_CONNECT_X, TID, "qB", Q(0), tup, 13u) == 0);
	CHECK_STR(fdname(40), "10.0.0.1:43210->93.184.216.34:80");
	CHECK(f && f->sport == 43210 && f->dport == 80 && !f->is_server);
	CHECK(f && memcmp(f->sip, "\x0a\x00\x00\x01", 4) == 0 &&
	      memcmp(f->dip, "\x5d\xb8\xd8\x22", 4) == 0);
	CHECK(t->ev.fd == f && t->ev.fdnum == 40 && t->ev.enter != NULL);

	/* IPv6 server: socket, bind, accept (fixture bytes) */
	CHECK(t_emit(t, PPME_SOCKET_SOCKET_E, TID, "ddd", 10u, 1u, 6u) == 0);
	CHECK(t_emit(t, PPME_SOCKET_SOCKET_X, TID, "q", Q(41)) == 0);
	CHECK(fd(41) && fd(41)->type == FDT_IPV6_SOCK && fd(41)->l4proto == IPPROTO_TCP);
	CHECK(t_emit(t, PPME_SOCKET_BIND_E, TID, "q", Q(41)) == 0);
	CHECK(t_emit(t, PPME_SOCKET_BIND_X, TID, "qB", Q(0), v6_bind_addr,
		     (unsigned)sizeof(v6_bind_addr)) == 0);
	CHECK_STR(fdname(41), "2001:db8::3:1234");
	CHECK(fd(41) && fd(41)->is_server && fd(41)->dport == 1234);
	CHECK(t_emit(t, PPME_SOCKET_ACCEPT_5_E, TID, "") == 0);
	CHECK(t_emit(t, PPME_SOCKET_ACCEPT_5_X, TID, "qBbdd", Q(42), v6_tuple,
		     (unsigned)sizeof(v6_tuple), 0u, 0u, 1u) == 0);
	f = fd(42);
	CHECK_STR(fdname(42), "2001:db8::4:54405->2001:db8::3:1234");
	CHECK(f && f->type == FDT_IPV6_SOCK && f->is_server && f->l4proto == IPPROTO_TCP);
	CHECK(f && f->sport == 54405 && f->dport == 1234 && f->family == PPM_AF_INET6);
	CHECK(t->ev.fd == f && t->ev.fdnum == 42);
	/* accept4 with SOCK_CLOEXEC */
	CHECK(t_emit(t, PPME_SOCKET_ACCEPT4_5_E, TID, "d", 02000000u) == 0);
	CHECK(t_emit(t, PPME_SOCKET_ACCEPT4_5_X, TID, "qBbdd", Q(43), v6_tuple,
		     (unsigned)sizeof(v6_tuple), 0u, 0u, 1u) == 0);
	CHECK(fd(43) && (fd(43)->open_flags & PPM_FILE_FLAGS_O_CLOEXEC));
	/* a failed accept adds nothing */
	CHECK(t_emit(t, PPME_SOCKET_ACCEPT_5_X, TID, "qBbdd", Q(-11), "", 0u, 0u, 0u, 1u) == 0);
	CHECK(fd(-11) == NULL && t->ev.fd == NULL);

	/* IPv6 client: connect tuple with EINPROGRESS still names the fd */
	CHECK(t_emit(t, PPME_SOCKET_SOCKET_E, TID, "ddd", 10u, 1u, 6u) == 0);
	CHECK(t_emit(t, PPME_SOCKET_SOCKET_X, TID, "q", Q(44)) == 0);
	CHECK(t_emit(t, PPME_SOCKET_CONNECT_E, TID, "qB", Q(44), "", 0u) == 0);
	CHECK(t_emit(t, PPME_SOCKET_CONNECT_X, TID, "qB", Q(-115), v6_tuple,
		     (unsigned)sizeof(v6_tuple)) == 0);
	CHECK_STR(fdname(44), "2001:db8::4:54405->2001:db8::3:1234");
	CHECK(fd(44) && !fd(44)->is_server);

	/* IPv4 in IPv6 (v4-mapped on both ends): shown as IPv4 */
	{
		uint8_t m[37] = { 10 };

		m[11] = m[12] = 0xff; m[13] = 192; m[14] = 168; m[15] = 0; m[16] = 1;
		p = 5000; memcpy(m + 17, &p, 2);
		m[29] = m[30] = 0xff; m[31] = 192; m[32] = 168; m[33] = 0; m[34] = 2;
		p = 443; memcpy(m + 35, &p, 2);
		CHECK(t_emit(t, PPME_SOCKET_CONNECT_E, TID, "qB", Q(44), "", 0u) == 0);
		CHECK(t_emit(t, PPME_SOCKET_CONNECT_X, TID, "qB", Q(0), m, 37u) == 0);
		CHECK_STR(fdname(44), "192.168.0.1:5000->192.168.0.2:443");
		CHECK(fd(44) && fd(44)->type == FDT_IPV4_SOCK && fd(44)->family == PPM_AF_INET);
	}

	/* unix: the name is sysdig's tuple text */
	CHECK(t_emit(t, PPME_SOCKET_SOCKET_E, TID, "ddd", 1u, 526337u, 0u) == 0);
	CHECK(t_emit(t, PPME_SOCKET_SOCKET_X, TID, "q", Q(45)) == 0);
	CHECK(fd(45) && fd(45)->type == FDT_UNIX_SOCK && fd(45)->l4proto == 0);
	CHECK(t_emit(t, PPME_SOCKET_CONNECT_E, TID, "qB", Q(45), "", 0u) == 0);
	CHECK(t_emit(t, PPME_SOCKET_CONNECT_X, TID, "qB", Q(-2), unix_tuple,
		     (unsigned)sizeof(unix_tuple)) == 0);
	/* failed: the event shows the tuple, the fd stays as it was */
	CHECK(t->ev.fd && t->ev.fd != fd(45) && t->ev.fd->fd == 45 && t->ev.fdnum == 45);
	CHECK_STR(t->ev.fd ? t->ev.fd->name : NULL, "0->ffff94dc817b9400 /var/run/nscd/socket");
	CHECK(t->ev.fd && t->ev.fd->type == FDT_UNIX_SOCK);
	CHECK(fd(45) && fd(45)->name == NULL);
	CHECK(t_emit(t, PPME_SOCKET_CONNECT_E, TID, "qB", Q(45), "", 0u) == 0);
	CHECK(t_emit(t, PPME_SOCKET_CONNECT_X, TID, "qB", Q(0), unix_tuple,
		     (unsigned)sizeof(unix_tuple)) == 0);
	CHECK_STR(fdname(45), "0->ffff94dc817b9400 /var/run/nscd/socket");
	CHECK(t->ev.fd == fd(45));
	/* unix bind: the path */
	CHECK(t_emit(t, PPME_SOCKET_BIND_E, TID, "q", Q(45)) == 0);
	CHECK(t_emit(t, PPME_SOCKET_BIND_X, TID, "qB", Q(0), "\x01/run/x.sock", 13u) == 0);
	CHECK_STR(fdname(45), "/run/x.sock");

	/* a truncated tuple leaves the fd as it was */
	CHECK(t_emit(t, PPME_SOCKET_CONNECT_E, TID, "qB", Q(40), "", 0u) == 0);
	CHECK(t_emit(t, PPME_SOCKET_CONNECT_X, TID, "qB", Q(0), tup, 12u) == 0);
	CHECK_STR(fdname(40), "10.0.0.1:43210->93.184.216.34:80");

	/* UDP and netlink sockets */
	CHECK(t_emit(t, PPME_SOCKET_SOCKET_E, TID, "ddd", 2u, 2u, 0u) == 0);
	CHECK(t_emit(t, PPME_SOCKET_SOCKET_X, TID, "q", Q(46)) == 0);
	CHECK(fd(46) && fd(46)->l4proto == IPPROTO_UDP);
	CHECK(t_emit(t, PPME_SOCKET_SOCKET_E, TID, "ddd", 16u, 3u, 0u) == 0);
	CHECK(t_emit(t, PPME_SOCKET_SOCKET_X, TID, "q", Q(47)) == 0);
	CHECK(fd(47) && fd(47)->type == FDT_NETLINK);
	/* socketpair */
	CHECK(t_emit(t, PPME_SOCKET_SOCKETPAIR_E, TID, "ddd", 1u, 1u, 0u) == 0);
	CHECK(t_emit(t, PPME_SOCKET_SOCKETPAIR_X, TID, "qqqqq", Q(0), Q(48), Q(49), Q(1), Q(2)) == 0);
	CHECK(fd(48) && fd(48)->type == FDT_UNIX_SOCK && fd(49) && fd(49)->type == FDT_UNIX_SOCK);

	/* a socket exit without its enter: still a socket */
	CHECK(t_emit(t, PPME_SOCKET_SOCKET_X, TID, "q", Q(50)) == 0);
	CHECK(fd(50) && fd(50)->type == FDT_OTHER_SOCK);
}

/* The fd makers again, for what each leaves: type, name, access mode, both
 * ends, replaced entries, and failures that add nothing. */
static void test_makers(void)
{
	struct fd_info *f;

	/* fcntl(F_DUPFD) clears O_CLOEXEC; a failing one adds nothing */
	CHECK(t_emit(t, PPME_SYSCALL_FCNTL_E, TID, "qb", Q(40), PPM_FCNTL_COMMANDS_F_DUPFD) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_FCNTL_X, TID, "q", Q(60)) == 0);
	f = fd(60);
	CHECK(f && f->type == FDT_IPV4_SOCK && !(f->open_flags & PPM_FILE_FLAGS_O_CLOEXEC));
	CHECK_STR(fdname(60), "10.0.0.1:43210->93.184.216.34:80");
	CHECK(f && f->sport == 43210 && f->l4proto == IPPROTO_TCP && t->ev.fd == f);
	CHECK(t_emit(t, PPME_SYSCALL_FCNTL_E, TID, "qb", Q(40), PPM_FCNTL_COMMANDS_F_DUPFD) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_FCNTL_X, TID, "q", Q(-24)) == 0);
	CHECK(fd(-24) == NULL && t->ev.fdnum == 40 && t->ev.fd == fd(40));	/* the fd used */
	/* dup2 of a file onto that socket: the socket entry is gone, all of it */
	CHECK(t_emit(t, PPME_SYSCALL_DUP_E, TID, "q", Q(3)) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_DUP_X, TID, "q", Q(60)) == 0);
	f = fd(60);
	CHECK(f && f->type == FDT_FILE && f->sport == 0 && f->l4proto == 0 && f->dev == 0x803);
	CHECK_STR(fdname(60), "/home/u/data/x.txt");
	/* dup of an fd we do not know: the new number is of unknown type */
	CHECK(t_emit(t, PPME_SYSCALL_DUP_E, TID, "q", Q(555)) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_DUP_X, TID, "q", Q(60)) == 0);
	CHECK(fd(60) && fd(60)->type == FDT_UNKNOWN && fd(60)->name == NULL);

	/* socketpair: both ends unix sockets, unnamed; a failure adds nothing */
	CHECK(t_emit(t, PPME_SOCKET_SOCKETPAIR_E, TID, "ddd", 1u, 2u, 0u) == 0);
	CHECK(t_emit(t, PPME_SOCKET_SOCKETPAIR_X, TID, "qqqqq", Q(0), Q(61), Q(62), Q(0x10),
		     Q(0x20)) == 0);
	CHECK(fd(61) && fd(61)->type == FDT_UNIX_SOCK && fd(61)->family == PPM_AF_UNIX &&
	      fd(61)->name == NULL);
	CHECK(fd(62) && fd(62)->type == FDT_UNIX_SOCK && fd(62)->name == NULL);
	CHECK(t->ev.fdnum == 62);
	CHECK(t_emit(t, PPME_SOCKET_SOCKETPAIR_E, TID, "ddd", 1u, 1u, 0u) == 0);
	CHECK(t_emit(t, PPME_SOCKET_SOCKETPAIR_X, TID, "qqqqq", Q(-24), Q(63), Q(64), Q(0),
		     Q(0)) == 0);
	CHECK(fd(63) == NULL && fd(64) == NULL);

	/* eventfd, signalfd, timerfd, inotify: no name, the kernel's access
	 * mode; failures add nothing */
	CHECK(fd(34) && fd(34)->name == NULL && fd(34)->open_flags == PPM_FILE_FLAGS_O_RDWR);
	CHECK(fd(35) && fd(35)->name == NULL && fd(35)->open_flags == PPM_FILE_FLAGS_O_RDWR);
	CHECK(fd(36) && fd(36)->name == NULL && fd(36)->open_flags == PPM_FILE_FLAGS_O_RDWR);
	CHECK(fd(37) && fd(37)->name == NULL && fd(37)->open_flags == PPM_FILE_FLAGS_O_RDONLY);
	CHECK(t_emit(t, PPME_SYSCALL_EVENTFD_E, TID, "qd", Q(0), 0u) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_EVENTFD_X, TID, "q", Q(-24)) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_TIMERFD_CREATE_E, TID, "bb", 1u, 0u) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_TIMERFD_CREATE_X, TID, "q", Q(-24)) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_INOTIFY_INIT_E, TID, "b", 0u) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_INOTIFY_INIT_X, TID, "q", Q(-24)) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_SIGNALFD_E, TID, "qdb", Q(-1), 0u, 0u) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_SIGNALFD_X, TID, "q", Q(-22)) == 0);
	CHECK(fd(-24) == NULL && fd(-22) == NULL && t->ev.fd == NULL);
	/* signalfd(35, ...) only changes the mask of the signalfd 35 */
	fd(35)->ino = 99;
	CHECK(t_emit(t, PPME_SYSCALL_SIGNALFD_E, TID, "qdb", Q(35), 1u, 0u) == 0);
	CHECK(t_emit(t, PPME_SYSCALL_SIGNALFD_X, TID, "q", Q(35)) == 0);
	CHECK(fd(35) && fd(35)->type == FDT_SIGNALFD && fd(35)->ino == 99);
}

static void test_read_uses_fd(void)
{
	/* a read's enter and exit both point at the fd (the exit through its enter) */
	CHECK(t_emit(t, PPME_SYSCALL_READ_E, TID, "qd", Q(42), 2048u) == 0);
	CHECK(t->ev.fdnum == 42 && t->ev.fd == fd(42));
	CHECK(t_emit(t, PPME_SYSCALL_READ_X, TID, "qB", Q(15), "this is a test.", 15u) == 0);
	CHECK(t->ev.fdnum == 42 && t->ev.fd == fd(42) && t->ev.res == 15);
	/* an exit without its enter knows no fd */
	CHECK(t_emit(t, PPME_SYSCALL_READ_X, TID, "qB", Q(15), "this is a test.", 15u) == 0);
	CHECK(t->ev.fdnum == -1 && t->ev.fd == NULL);
}

/* FD_NAME (profiling's, the kernel's name of a file a thread waited on):
 * names an fd the table does not know, or knows without a name; never
 * renames one an open named; a relative or empty name, or a bad fd, changes
 * nothing. */
static void test_fd_name(void)
{
	size_t before;

	close_(140, 0);
	CHECK(fd(140) == NULL);
	CHECK(t_emit(t, PPME_FD_NAME_E, TID, "qqs", Q(TID), Q(140), "/var/lib/db/wal") == 0);
	CHECK(fd(140) && fd(140)->type == FDT_FILE);
	CHECK_STR(fdname(140), "/var/lib/db/wal");
	/* an open's name stays */
	t_openat(141, -100, "/etc/hosts", PPM_FILE_FLAGS_O_RDONLY);
	CHECK(t_emit(t, PPME_FD_NAME_E, TID, "qqs", Q(TID), Q(141), "/etc/other") == 0);
	CHECK_STR(fdname(141), "/etc/hosts");
	before = fd_table__count(thread_table__find(inspector__threads(t->in), TID)->fds);
	CHECK(t_emit(t, PPME_FD_NAME_E, TID, "qqs", Q(TID), Q(142), "rel/path") == 0);
	CHECK(t_emit(t, PPME_FD_NAME_E, TID, "qqs", Q(TID), Q(143), "") == 0);
	CHECK(t_emit(t, PPME_FD_NAME_E, TID, "qqs", Q(TID), Q(-1), "/x") == 0);
	CHECK(fd(142) == NULL && fd(143) == NULL);
	CHECK_INT(fd_table__count(thread_table__find(inspector__threads(t->in), TID)->fds), before);
	close_(140, 0);
	close_(141, 0);
}

/* Socket addresses as names are written by hand (sockets.c): the extremes
 * of each part, IPv6 through inet_ntop, and a buffer too small. */
static void test_addr_format(void)
{
	const uint8_t zero[16] = { 0 }, ones[16] = { 255, 255, 255, 255 }, mid[16] = { 10, 0, 100, 9 };
	const uint8_t lo6[16] = { [15] = 1 };
	char out[64];

	CHECK_INT(sock__format_addr(PPM_AF_INET, zero, 0, out, sizeof(out)), 0);
	CHECK_STR(out, "0.0.0.0:0");
	CHECK_INT(sock__format_addr(PPM_AF_INET, ones, 65535, out, sizeof(out)), 0);
	CHECK_STR(out, "255.255.255.255:65535");
	CHECK_INT(sock__format_addr(PPM_AF_INET, mid, 80, out, sizeof(out)), 0);
	CHECK_STR(out, "10.0.100.9:80");
	CHECK_INT(sock__format_addr(PPM_AF_INET6, lo6, 65535, out, sizeof(out)), 0);
	CHECK_STR(out, "::1:65535");
	CHECK_INT(sock__format_addr(PPM_AF_INET6, zero, 1, out, sizeof(out)), 0);
	CHECK_STR(out, ":::1");
	/* "10.0.100.9:80" and its NUL need 14 */
	CHECK_INT(sock__format_addr(PPM_AF_INET, mid, 80, out, 13), -ENAMETOOLONG);
	CHECK_INT(sock__format_addr(PPM_AF_INET, mid, 80, out, 14), 0);
	CHECK_STR(out, "10.0.100.9:80");
}

int main(void)
{
	char *root = t_tmpdir();

	t = t_new(root);
	CHECK(t_spawn(t, TID, 1, "app", "/home/u") == 0);
	test_open_paths();
	test_dup_close();
	test_pipe_and_friends();
	test_sockets();
	test_makers();
	test_read_uses_fd();
	test_fd_name();
	test_addr_format();
	t_free(t, root);
	return t_report();
}
