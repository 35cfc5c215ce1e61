/* The filter language: every operator, each field class, precedence and
 * parentheses, and syntax errors with their exact columns. */
#include <errno.h>
#include <stdlib.h>

#include "t_check.h"
#include "container.h"
#include "filter.h"
#include "world.h"

static struct field_ctx ctx;

/* Compiles EXPR (a failure to compile counts as a failed check) and matches EV. */
static int M(const char *expr, const struct ievt *ev)
{
	struct filter_error err;
	struct filter *f = filter__compile(expr, &err);
	int r;

	if (!f) {
		fprintf(stderr, "filter '%s' did not compile: %s\n", expr, err.msg);
		return -1;
	}
	r = filter__match(f, ev, &ctx);
	filter__free(f);
	return r;
}

#define MATCH(expr, ev) CHECK_INT(M(expr, ev), 1)
#define NOMATCH(expr, ev) CHECK_INT(M(expr, ev), 0)

/* EXPR must fail with exactly MSG (which names the column) at COLUMN. */
static void E(const char *expr, int column, const char *msg)
{
	struct filter_error err = { 0 };
	struct filter *f = filter__compile(expr, &err);

	CHECK(f == NULL);
	if (f) {
		fprintf(stderr, "  filter '%s' compiled but should not\n", expr);
		filter__free(f);
		return;
	}
	CHECK_INT(errno, EINVAL);
	CHECK_INT(err.column, column);
	CHECK_STR(err.msg, msg);
}

static uint16_t sc_code(const char *name)
{
	for (unsigned i = 0; i < PPM_SC_MAX; i++)
		if (schema_ppm_sc[i].name && strcmp(schema_ppm_sc[i].name, name) == 0)
			return (uint16_t)i;
	return 0;
}

static struct tevt t_open, t_oldopen, t_read, t_conn6, t_gen, t_rseq, t_thread2, t_unknown, t_fail;

static void build_events(void)
{
	struct frame_builder *fb;

	fb = tevt__begin(&t_open, PPME_SYSCALL_OPENAT_2_X, 200, WORLD_TS + 5);
	fb__u64(fb, 3);
	fb__u64(fb, (uint64_t)-100);
	fb__str(fb, "/etc/passwd");
	fb__u32(fb, PPM_FILE_FLAGS_O_RDONLY | PPM_FILE_FLAGS_O_CLOEXEC);
	fb__u32(fb, 0);
	fb__u32(fb, 0);
	tevt__end(&t_open, -1);

	/* the old openat layout: code 103 */
	fb = tevt__begin(&t_oldopen, PPME_SYSCALL_OPENAT_X, 200, WORLD_TS);
	fb__u64(fb, 3);
	tevt__end(&t_oldopen, -1);

	fb = tevt__begin(&t_read, PPME_SYSCALL_READ_X, 200, WORLD_TS);
	fb__u64(fb, 18);
	fb__param(fb, "GET / HTTP/1.1\r\n\0x", 18);
	tevt__end(&t_read, 4);

	fb = tevt__begin(&t_conn6, PPME_SYSCALL_CLOSE_E, 200, WORLD_TS);
	fb__u64(fb, 5);
	tevt__end(&t_conn6, -1);

	fb = tevt__begin(&t_gen, PPME_GENERIC_E, 200, WORLD_TS);
	fb__u16(fb, sc_code("clock_gettime"));
	fb__u16(fb, 228);
	tevt__end(&t_gen, -1);

	/* a call newer than sysdig's table: ID 0, named by its number */
	fb = tevt__begin(&t_rseq, PPME_GENERIC_E, 200, WORLD_TS);
	fb__u16(fb, 0);
	fb__u16(fb, 334);
	tevt__end(&t_rseq, -1);

	fb = tevt__begin(&t_thread2, PPME_SYSCALL_CLOSE_E, 201, WORLD_TS);
	fb__u64(fb, 3);
	tevt__end(&t_thread2, -1);

	fb = tevt__begin(&t_unknown, PPME_SYSCALL_CLOSE_E, 4242, WORLD_TS);
	fb__u64(fb, 3);
	tevt__end(&t_unknown, -1);

	fb = tevt__begin(&t_fail, PPME_SYSCALL_OPENAT_2_X, 200, WORLD_TS);
	fb__u64(fb, (uint64_t)-2);
	fb__u64(fb, 7);
	fb__str(fb, "missing");
	fb__u32(fb, PPM_FILE_FLAGS_O_RDONLY);
	fb__u32(fb, 0);
	fb__u32(fb, 0);
	tevt__end(&t_fail, -1);
}

static void test_operators(void)
{
	const struct ievt *o = &t_open.ev, *r = &t_read.ev;

	/* = == != on strings */
	MATCH("proc.name=curl", o);
	MATCH("proc.name == curl", o);
	NOMATCH("proc.name=bash", o);
	MATCH("proc.name != bash", o);
	NOMATCH("proc.name != curl", o);
	MATCH("fd.name='/etc/passwd'", o);
	MATCH("fd.name=\"/etc/passwd\"", o);
	MATCH("proc.cmdline = \"curl -6 http://www.google.com\"", o);
	MATCH("evt.dir=<", o);
	NOMATCH("evt.dir='>'", o);
	/* numbers: decimal, hex, negative, ordering */
	MATCH("proc.pid=200", o);
	MATCH("proc.pid=0xc8", o);
	NOMATCH("proc.pid=201", o);
	MATCH("proc.pid!=201", o);
	MATCH("proc.pid<201", o);
	NOMATCH("proc.pid<200", o);
	MATCH("proc.pid<=200", o);
	MATCH("proc.pid>199", o);
	NOMATCH("proc.pid>200", o);
	MATCH("proc.pid>=200", o);
	MATCH("evt.rawres >= 0", o);
	MATCH("evt.rawres = -2", &t_fail.ev);
	MATCH("evt.rawres < 0", &t_fail.ev);
	MATCH("user.uid = 1000", o);
	MATCH("evt.rawtime > 1700000000000000000", o);
	MATCH("evt.time = 1700000000000000005", o);
	/* text operators */
	MATCH("fd.name contains passw", o);
	NOMATCH("fd.name contains PASSW", o);
	MATCH("fd.name icontains PASSW", o);
	MATCH("proc.name icontains CuRl", o);
	MATCH("fd.name startswith /etc/", o);
	NOMATCH("fd.name startswith /usr/", o);
	MATCH("fd.name endswith wd", o);
	NOMATCH("fd.name endswith /etc", o);
	MATCH("fd.name glob '/etc/p*'", o);
	MATCH("fd.name glob /etc/?asswd", o);
	MATCH("fd.name glob '/etc/[op]asswd'", o);
	NOMATCH("fd.name glob '/etc/[!p]asswd'", o);
	MATCH("fd.name glob '*wd'", o);
	MATCH("fd.name glob '*'", o);
	MATCH("fd.name glob '/*/*'", o);
	NOMATCH("fd.name glob '/usr/*'", o);
	NOMATCH("fd.name glob '/etc/p'", o);
	MATCH("proc.name glob c?rl", o);
	MATCH("fd.name pmatch (/usr, /etc)", o);
	MATCH("fd.name pmatch (/etc/passwd)", o);
	NOMATCH("fd.name pmatch (/et, /usr)", o);
	/* in / intersects */
	MATCH("proc.name in (bash, curl)", o);
	MATCH("proc.name in ('bash','curl')", o);
	NOMATCH("proc.name in (bash, sh)", o);
	MATCH("proc.pid in (1, 200, 300)", o);
	MATCH("proc.name intersects (curl)", o);
	MATCH("proc.aname intersects (zsh, systemd)", o);
	/* exists */
	MATCH("fd.name exists", o);
	NOMATCH("fd.name exists", &t_unknown.ev);
	MATCH("thread.tid exists", &t_unknown.ev);
	MATCH("evt.res exists", o);
	/* bools */
	MATCH("evt.failed=false", o);
	MATCH("evt.failed=true", &t_fail.ev);
	MATCH("evt.failed!=true", o);
	MATCH("thread.ismain=false", &t_thread2.ev);
	MATCH("evt.is_io=true and evt.is_io_read=true", r);
	/* the I/O buffer holds NULs and CRs */
	MATCH("evt.buffer contains 'GET /'", r);
	MATCH("evt.buffer contains \"HTTP/1.1\\r\\n\"", r);
	MATCH("evt.buffer startswith GET", r);
	MATCH("evt.buffer endswith x", r);
	MATCH("evt.buflen = 18", r);
	MATCH("evt.arg.data contains 'HTTP/1.1..'", r);
	/* args */
	MATCH("evt.arg.flags contains O_CLOEXEC", o);
	MATCH("evt.rawarg.flags = 4097", o);
	MATCH("evt.rawarg.flags > 4096", o);
	MATCH("evt.rawarg.name startswith /etc", o);
	MATCH("evt.arg.fd = '<f>/etc/passwd'", o);
	MATCH("evt.arg[2] = /etc/passwd", o);
	MATCH("evt.rawarg.fd < 0", &t_fail.ev);
	NOMATCH("evt.rawarg.res < 0", &t_fail.ev);
	NOMATCH("evt.rawarg.size > 0", o);
	MATCH("evt.res = ENOENT", &t_fail.ev);
	MATCH("evt.res = SUCCESS", o);
	MATCH("evt.arg.name = /tmp/missing", &t_fail.ev);
	/* fd: addresses and ports, multi-valued fd.ip/fd.port */
	MATCH("fd.ip = 10.0.0.1", r);
	MATCH("fd.ip = 10.0.0.2", r);
	NOMATCH("fd.ip = 10.0.0.3", r);
	MATCH("fd.port = 80 and fd.port = 5555", r);
	NOMATCH("fd.port = 81", r);
	MATCH("fd.sip = 10.0.0.1", r);
	MATCH("fd.sip != 10.0.0.2", r);
	MATCH("fd.cip in (10.0.0.2, 10.0.0.9)", r);
	MATCH("fd.sport = 80 and fd.cport = 5555 and fd.lport = 5555 and fd.rport = 80", r);
	MATCH("fd.l4proto = tcp and fd.sockfamily = ip and fd.is_server = false", r);
	MATCH("fd.typechar = 4 and fd.type = ipv4", r);
	MATCH("fd.sip = 2001:db8::3 and fd.is_server = true", &t_conn6.ev);
	MATCH("fd.ip = 2001:db8::3 and fd.ip = 2001:db8::4", &t_conn6.ev);
	/* a listening socket: only the server end is known */
	{
		struct fd_info saved = fd_tcp6;

		memset(fd_tcp6.sip, 0, sizeof(fd_tcp6.sip));
		fd_tcp6.sport = 0;
		MATCH("fd.ip = 2001:db8::3", &t_conn6.ev);
		NOMATCH("fd.cip exists", &t_conn6.ev);
		MATCH("fd.cport = 0 and fd.sport = 1234", &t_conn6.ev);
		/* a fresh socket: nothing known */
		memset(fd_tcp6.dip, 0, sizeof(fd_tcp6.dip));
		fd_tcp6.dport = 0;
		NOMATCH("fd.ip exists", &t_conn6.ev);
		NOMATCH("fd.port exists", &t_conn6.ev);
		NOMATCH("fd.sport exists", &t_conn6.ev);
		MATCH("fd.sockfamily = ip", &t_conn6.ev);
		fd_tcp6 = saved;
	}
	NOMATCH("fd.sip = 10.0.0.1", &t_conn6.ev);
	MATCH("fd.num = 3", o);
	MATCH("fd.directory = /etc and fd.filename = passwd", o);
	/* proc, thread, user, group */
	MATCH("proc.pname = bash and proc.ppid = 100", o);
	MATCH("proc.aname[2] = systemd and proc.apid[2] = 1", o);
	MATCH("proc.aname = systemd", o);
	MATCH("proc.aname = bash", o);
	NOMATCH("proc.aname = curl", o);	/* ancestors only */
	MATCH("proc.apid = 1", o);
	MATCH("proc.aname != curl", o);
	NOMATCH("proc.aname != bash", o);
	MATCH("proc.exe = curl and proc.exepath = /usr/bin/curl", o);
	MATCH("proc.args contains google", o);
	MATCH("proc.cwd = /home/alice/", o);
	MATCH("proc.tty = 34817 and proc.vpid = 200 and proc.sid = 100", o);
	MATCH("proc.duration > 4000000000", o);
	MATCH("thread.tid = 201 and proc.pid = 200", &t_thread2.ev);
	MATCH("thread.vtid = 200 and thread.ismain = true", o);
	MATCH("user.name = alice and user.loginuid = 1000 and proc.loginuid = 1000", o);
	MATCH("group.gid = 100 and group.name = users", o);
	/* absent fields: no comparison holds, != included */
	NOMATCH("proc.name = curl", &t_unknown.ev);
	NOMATCH("proc.name != curl", &t_unknown.ev);
	MATCH("not proc.name = curl", &t_unknown.ev);
	NOMATCH("fd.name != /etc", &t_unknown.ev);
}

/* evt.type.is.NAME (1 or 0 on every event) and fd.dev compared as numbers */
static void test_type_is(void)
{
	MATCH("evt.type.is.openat=1", &t_open.ev);
	MATCH("evt.type.is.openat=1", &t_oldopen.ev);
	NOMATCH("evt.type.is.openat=1", &t_read.ev);
	MATCH("evt.type.is.openat=0", &t_read.ev);
	/* event names only, as sysdig: not the syscalls of generic events */
	CHECK_INT(M("evt.type.is.clock_gettime=1", &t_gen.ev), -1);
	MATCH("evt.type.is.syscall=1", &t_gen.ev);
	MATCH("evt.type.is.open=0", &t_gen.ev);
	MATCH("not evt.type.is.read=1", &t_open.ev);
	MATCH("fd.dev=1050627", &t_open.ev);	/* 0x100803 */
	MATCH("fd.dev.major=8 and fd.dev.minor>258", &t_open.ev);
	NOMATCH("fd.dev=0", &t_open.ev);
	CHECK_INT(M("evt.type.is.nosuchcall=1", &t_open.ev), -1);
	CHECK_INT(M("evt.type.is=1", &t_open.ev), -1);
}

static void test_evt_type(void)
{
	MATCH("evt.type=openat", &t_open.ev);
	MATCH("evt.type=openat", &t_oldopen.ev);
	NOMATCH("evt.type=open", &t_open.ev);
	MATCH("evt.type!=open", &t_open.ev);
	NOMATCH("evt.type!=openat", &t_oldopen.ev);
	MATCH("evt.type in (open, openat)", &t_open.ev);
	MATCH("evt.type in (open, openat)", &t_oldopen.ev);
	NOMATCH("evt.type in (read, write)", &t_open.ev);
	MATCH("evt.type in (read, write)", &t_read.ev);
	MATCH("evt.type contains open", &t_open.ev);
	MATCH("evt.type startswith op", &t_open.ev);
	MATCH("evt.type glob 'open*'", &t_open.ev);
	NOMATCH("evt.type endswith x", &t_open.ev);
	MATCH("evt.type icontains OPENAT", &t_open.ev);
	MATCH("evt.type exists", &t_open.ev);
	/* generic events match by their syscall name only */
	MATCH("evt.type=clock_gettime", &t_gen.ev);
	NOMATCH("evt.type=syscall", &t_gen.ev);
	NOMATCH("evt.type!=clock_gettime", &t_gen.ev);
	MATCH("evt.type!=openat", &t_gen.ev);
	MATCH("evt.type in (clock_gettime, openat)", &t_gen.ev);
	MATCH("evt.type=rseq", &t_rseq.ev);
	NOMATCH("evt.type=clock_gettime", &t_rseq.ev);
	MATCH("evt.type startswith rs", &t_rseq.ev);
	CHECK_STR(t_rseq.ev.name, "rseq");
	MATCH("evt.type contains clock", &t_gen.ev);
	NOMATCH("evt.type=clock_gettime", &t_open.ev);
}

static void test_logic(void)
{
	const struct ievt *o = &t_open.ev;

	MATCH("proc.name=curl and fd.num=3", o);
	NOMATCH("proc.name=curl and fd.num=4", o);
	MATCH("proc.name=bash or fd.num=3", o);
	NOMATCH("proc.name=bash or fd.num=4", o);
	/* and binds tighter than or */
	MATCH("proc.name=curl or proc.name=bash and fd.num=99", o);
	NOMATCH("(proc.name=curl or proc.name=bash) and fd.num=99", o);
	MATCH("fd.num=99 and proc.name=bash or proc.name=curl", o);
	NOMATCH("fd.num=99 and (proc.name=bash or proc.name=curl)", o);
	/* not binds tighter than and/or */
	MATCH("not proc.name=curl or fd.num=3", o);
	NOMATCH("not (proc.name=curl or fd.num=3)", o);
	NOMATCH("not proc.name=curl and fd.num=3", o);
	MATCH("not not proc.name=curl", o);
	MATCH("not(proc.name=bash)", o);
	MATCH("((((proc.name=curl))))", o);
	MATCH("proc.name=curl and (fd.num=1 or fd.num=2 or fd.num=3) and not evt.failed=true", o);
	MATCH("  proc.name=curl\tand\nfd.num=3  ", o);
	/* keywords need word boundaries */
	MATCH("proc.name=curl and(fd.num=3)", o);
	MATCH("proc.name=android or fd.num=3", o);
	/* a value may hold '=' and '.' */
	MATCH("evt.info contains dirfd=-100", o);
	MATCH("evt.info contains 'fd=3(<f>/etc/passwd)'", o);
}

static void test_errors(void)
{
	E("evt.type=", 10, "expected a value at column 10");
	E("(evt.type=open", 15, "expected ')' (to close the '(' of column 1) at column 15");
	E("evt.type == open and", 21, "expected a field name, 'not' or '(' at column 21");
	E("evt.type == open or", 20, "expected a field name, 'not' or '(' at column 20");
	E("not", 4, "expected a field name, 'not' or '(' at column 4");
	E("", 1, "empty filter: expected a field name, 'not' or '(' at column 1");
	E("   ", 4, "empty filter: expected a field name, 'not' or '(' at column 4");
	E(")", 1, "expected a field name, 'not' or '(' at column 1");
	E("and proc.name=x", 1, "expected a field name, 'not' or '(' at column 1");
	E("proc.name=a)", 12, "unexpected ')' at column 12");
	E("proc.name bash", 11, "expected an operator (=, !=, <, <=, >, >=, contains, icontains, "
	  "startswith, endswith, glob, in, intersects, pmatch or exists) at column 11");
	E("proc.name", 10, "expected an operator (=, !=, <, <=, >, >=, contains, icontains, "
	  "startswith, endswith, glob, in, intersects, pmatch or exists) at column 10");
	E("proc.name = bash bash2", 18, "expected 'and', 'or' or the end of the filter at column 18");
	E("proc.nme = bash", 1, "unknown field 'proc.nme' at column 1; did you mean proc.name?");
	E("proc.name=curl and proc.nmae=x", 20,
	  "unknown field 'proc.nmae' at column 20; did you mean proc.name?");
	E("fd.nam exists", 1, "unknown field 'fd.nam' at column 1; did you mean fd.num, fd.name?");
	E("proc.pid = abc", 12, "expected a number for proc.pid, not 'abc', at column 12");
	E("proc.pid contains 1", 10,
	  "operator 'contains' needs a text field and proc.pid is not one at column 10");
	E("proc.name < 5", 11, "operator '<' needs a numeric field and proc.name is not one at column 11");
	E("fd.sip glob 10.*", 8, "operator 'glob' needs a text field and fd.sip is not one at column 8");
	E("evt.type in open", 13, "expected '(' after 'in' at column 13");
	E("evt.type in (open,", 19, "expected a value at column 19");
	E("evt.type in (open openat)", 19, "expected ',' or ')' at column 19");
	E("evt.type in ()", 14, "expected a value at column 14");
	E("proc.name = \"abc", 13, "unterminated string starting at column 13");
	E("proc.name = 'a\\'", 13, "unterminated string starting at column 13");
	E("evt.type = opne", 12, "unknown event type 'opne' at column 12; did you mean open?");
	E("evt.type in (open, opnat)", 20, "unknown event type 'opnat' at column 20; did you mean openat?");
	/* a syscall whose events have another name: that name, not itself */
	E("evt.type = dup2", 12, "unknown event type 'dup2' at column 12; the dup2 syscall's events are named dup");
	E("evt.type = accept4", 12,
	  "unknown event type 'accept4' at column 12; the accept4 syscall's events are named accept");
	E("evt.type = pread6", 12, "unknown event type 'pread6' at column 12; did you mean pread?");
	E("evt.failed = maybe", 14, "expected true or false for evt.failed, not 'maybe', at column 14");
	E("fd.sip = 10.0.0.300", 10, "expected an IP address for fd.sip, not '10.0.0.300', at column 10");
	E("evt.arg = x", 1, "field 'evt.arg' needs an argument, e.g. evt.arg.fd or evt.arg[0] "
	  "(column 1)");
	E("proc.pid=1 and evt.arg.nosuch = x", 24,
	  "no event has an argument named 'nosuch' (column 24)");
	{
		char deep[1024];
		int n = 0;

		for (int i = 0; i < 300; i++)
			deep[n++] = '(';
		strcpy(deep + n, "proc.pid=1");
		E(deep, 201, "filter nested too deeply at column 201");
	}
	/* long or-chains do not nest */
	{
		static char chain[40000];
		size_t n = 0;

		for (int i = 0; i < 2000; i++)
			n += (size_t)snprintf(chain + n, sizeof(chain) - n, "%sproc.pid=%d",
					      i ? " or " : "", 1000 + i);
		n += (size_t)snprintf(chain + n, sizeof(chain) - n, " or proc.name=curl");
		MATCH(chain, &t_open.ev);
	}
	CHECK(filter__compile(NULL, NULL) == NULL);
}

/* Values that could never match are compile errors: bad glob patterns, numbers
 * outside the field's range, text for numeric evt.rawarg params. */
static void test_glob_checks(void)
{
	const struct ievt *o = &t_open.ev;

	E("proc.name glob '['", 16, "invalid glob pattern '[' ('[' without a closing ']') at column 16");
	E("fd.name glob '[a-'", 14, "invalid glob pattern '[a-' ('[' without a closing ']') "
	  "at column 14");
	E("fd.name glob /etc/[a-", 14, "invalid glob pattern '/etc/[a-' ('[' without a closing ']') "
	  "at column 14");
	E("proc.name glob '[]'", 16, "invalid glob pattern '[]' ('[' without a closing ']') "
	  "at column 16");
	E("proc.name glob '[!]'", 16, "invalid glob pattern '[!]' ('[' without a closing ']') "
	  "at column 16");
	E("proc.name glob 'cu[\\\\]'", 16, "invalid glob pattern 'cu[\\]' ('[' without a closing "
	  "']') at column 16");
	E("proc.name glob 'curl\\\\'", 16, "invalid glob pattern 'curl\\' (a '\\' at the end escapes "
	  "nothing) at column 16");
	E("proc.name glob c[v-t]rl", 16, "invalid glob pattern 'c[v-t]rl' (reversed range 'v-t') "
	  "at column 16");
	E("proc.name glob 'c[[:foo:]]rl'", 16, "invalid glob pattern 'c[[:foo:]]rl' (unknown "
	  "character class '[:foo:]') at column 16");
	E("evt.type glob 'open['", 15, "invalid glob pattern 'open[' ('[' without a closing ']') "
	  "at column 15");
	E("evt.arg.name glob '['", 19, "invalid glob pattern '[' ('[' without a closing ']') "
	  "at column 19");
	E("proc.name = x or fd.name glob '/[etc'", 31, "invalid glob pattern '/[etc' ('[' without "
	  "a closing ']') at column 31");
	/* the same characters are fine with other operators */
	NOMATCH("proc.name = '['", o);
	NOMATCH("proc.name contains '[a-'", o);
	NOMATCH("fd.name pmatch ('/etc/[', /usr)", o);
	/* well-formed corners: ']' first in a class, '-' last, escapes, POSIX classes */
	MATCH("proc.name glob 'c[]u]rl'", o);
	NOMATCH("proc.name glob 'c[!]u]rl'", o);
	MATCH("proc.name glob 'c[u-]rl'", o);
	NOMATCH("proc.name glob 'c[t-]rl'", o);
	MATCH("proc.name glob 'c[u-u]rl'", o);
	MATCH("proc.name glob 'c\\\\url'", o);
	MATCH("proc.name glob 'cur[\\\\l]'", o);
	NOMATCH("proc.name glob 'curl\\\\*'", o);
	MATCH("proc.name glob 'c[[:alpha:]]rl'", o);
	MATCH("proc.name glob '[[:lower:]]*[![:digit:][:upper:]]'", o);
	NOMATCH("proc.name glob 'c[[:digit:]]rl'", o);
	MATCH("fd.name glob '/etc/[[:alnum:]]as[^[:space:]]wd'", o);
	MATCH("fd.name glob '/etc/pa[[:xdigit:]-s]swd'", o);
	MATCH("proc.name glob 'c[^a]rl'", o);
	MATCH("evt.type glob 'open[a-z]t'", o);
}

static void test_range_checks(void)
{
	const struct ievt *o = &t_open.ev, *r = &t_read.ev;

	E("fd.sport = 70000", 12, "70000 is out of range for fd.sport (0..65535) at column 12");
	E("fd.sport = 0x10000", 12, "0x10000 is out of range for fd.sport (0..65535) at column 12");
	E("fd.port = -1", 11, "-1 is out of range for fd.port (0..65535) at column 11");
	E("fd.port in (80, 70000)", 17, "70000 is out of range for fd.port (0..65535) at column 17");
	E("evt.cpu = -1", 11, "-1 is out of range for evt.cpu (0..65535) at column 11");
	E("proc.pid = 99999999999", 12,
	  "99999999999 is out of range for proc.pid (-2147483648..2147483647) at column 12");
	E("proc.pid = 4294967295", 12,
	  "4294967295 is out of range for proc.pid (-2147483648..2147483647) at column 12");
	E("proc.pid in (1, 99999999999)", 17,
	  "99999999999 is out of range for proc.pid (-2147483648..2147483647) at column 17");
	E("proc.apid intersects (1, -2147483649)", 26,
	  "-2147483649 is out of range for proc.apid (-2147483648..2147483647) at column 26");
	E("proc.apid[1] = 99999999999", 16,
	  "99999999999 is out of range for proc.apid[1] (-2147483648..2147483647) at column 16");
	E("fd.num > 4294967296", 10,
	  "4294967296 is out of range for fd.num (-2147483648..2147483647) at column 10");
	E("user.uid = -2", 12, "-2 is out of range for user.uid (-1..4294967295) at column 12");
	E("group.gid = 4294967296", 13,
	  "4294967296 is out of range for group.gid (-1..4294967295) at column 13");
	E("evt.num = -1", 11, "-1 is out of range for evt.num (0..18446744073709551615) at column 11");
	/* beyond 64 bits: a number all the same, out of range rather than not one */
	E("evt.rawres = 18446744073709551616", 14, "18446744073709551616 is out of range for "
	  "evt.rawres (-9223372036854775808..9223372036854775807) at column 14");
	E("evt.rawtime < 99999999999999999999999999", 15, "99999999999999999999999999 is out of "
	  "range for evt.rawtime (0..18446744073709551615) at column 15");
	E("fd.dev = 0x100000000", 10, "0x100000000 is out of range for fd.dev (0..4294967295) "
	  "at column 10");
	/* the edges are fine */
	NOMATCH("fd.sport = 0 or fd.sport = 65535 or fd.port = 0x0", r);
	MATCH("fd.port in (80, 65535)", r);
	MATCH("proc.pid < 2147483647 and proc.pid > -2147483648", o);
	MATCH("evt.cpu >= 0 and evt.cpu <= 65535", o);
	MATCH("fd.num != 4294967 and fd.num > -1", o);
	MATCH("evt.num < 18446744073709551615 and evt.rawres > -9223372036854775808", o);
	MATCH("evt.rawres > -0x10", o);
	/* (uid_t)-1, "unset", may be written -1 or 4294967295 */
	NOMATCH("user.uid = -1 or user.uid = 4294967295 or user.loginuid = -1", o);
	{
		struct thread_info saved = t_curl;

		t_curl.uid = t_curl.gid = t_curl.loginuid = UINT32_MAX;
		MATCH("user.uid = -1 and user.uid = 4294967295 and group.gid = -1", o);
		MATCH("user.loginuid = -1 and proc.loginuid = 4294967295", o);
		MATCH("user.uid in (0, -1) and not user.name exists", o);
		t_curl = saved;
	}
}

/* evt.rawarg.NAME compares as its param's type: a number where every event
 * that has the param declares a numeric type. */
static void test_rawarg_checks(void)
{
	const struct ievt *o = &t_open.ev;

	E("evt.rawarg.fd = abc", 17, "expected a number for evt.rawarg.fd, not 'abc', at column 17");
	E("evt.rawarg.fd in (3, x)", 22, "expected a number for evt.rawarg.fd, not 'x', at column 22");
	E("evt.rawarg.flags contains 1", 18,
	  "operator 'contains' needs a text field and evt.rawarg.flags is not one at column 18");
	E("evt.rawarg.fd glob 3", 15,
	  "operator 'glob' needs a text field and evt.rawarg.fd is not one at column 15");
	E("evt.rawarg.fd pmatch (3)", 15,
	  "operator 'pmatch' needs a text field and evt.rawarg.fd is not one at column 15");
	E("evt.rawarg.flags = 99999999999", 20, "99999999999 is out of range for evt.rawarg.flags "
	  "(-2147483648..4294967295) at column 20");
	MATCH("evt.rawarg.fd = 3 and evt.rawarg.flags = 0x1001", o);
	MATCH("evt.rawarg.name contains etc and evt.rawarg.name glob '/etc/*'", o);
	MATCH("evt.rawarg[2] glob '/etc/[p]*'", o);
	/* mixed types (a number in some events, text in others) stay unchecked */
	NOMATCH("evt.rawarg.addr = somewhere", o);
}

/* container.* and k8s.* with every kind of operator; the host is "host". */
static void test_containers(void)
{
	static char name[] = "web", image[] = "docker.io/library/nginx:1.25", pod[] = "web-0",
		    ns[] = "shop", uid[] = "0f5d2a2e-1c5b-4a8e-9d7c-2b1f6e4a9c3d";
	struct container_info ci = {
		.id = "3ad7b26ded6d", .full_id = "3ad7b26ded6d8e7b", .type = CT_DOCKER,
		.privileged = 1, .name = name, .image = image, .pod_name = pod,
		.pod_namespace = ns, .pod_uid = uid,
	};
	struct ievt *c = &t_open.ev, *h;
	struct tevt t_bash_close;

	tevt__begin(&t_bash_close, PPME_SYSCALL_CLOSE_E, 100, WORLD_TS);
	fb__u64(&tevt_fb, 3);
	h = tevt__end(&t_bash_close, -1);
	t_curl.container = &ci;
	MATCH("container.id=3ad7b26ded6d", c);
	NOMATCH("container.id=host", c);
	MATCH("container.id=host", h);
	MATCH("container.id!=host", c);
	NOMATCH("container.id!=host", h);
	MATCH("container.name=web and container.image startswith docker.io/", c);
	MATCH("container.name in (db, web)", c);
	MATCH("container.name contains eb", c);
	MATCH("container.image glob '*nginx:1.*'", c);
	MATCH("container.name icontains WE", c);
	MATCH("container.image pmatch (docker.io/library)", c);
	MATCH("container.name intersects (web, db)", c);
	/* as for every string field, no ordering */
	E("container.id > 3ad7b26ded6c", 14,
	  "operator '>' needs a numeric field and container.id is not one at column 14");
	MATCH("container.name endswith eb", c);
	NOMATCH("container.name != web", c);
	MATCH("container.type=docker", c);
	MATCH("container.type=host", h);
	MATCH("container.privileged=true", c);
	NOMATCH("container.privileged=false", c);
	NOMATCH("container.privileged=true", h);
	MATCH("k8s.ns.name=shop and k8s.pod.name=web-0", c);
	MATCH("k8s.pod.uid=0f5d2a2e-1c5b-4a8e-9d7c-2b1f6e4a9c3d", c);
	MATCH("k8s.pod.id exists", c);
	NOMATCH("k8s.pod.name exists", h);
	MATCH("not k8s.pod.name exists", h);
	NOMATCH("k8s.ns.name=shop", h);
	MATCH("container.name=host and evt.type=close", h);
	t_curl.container = NULL;
	NOMATCH("container.name=web", c);
	/* sysdig's fields that need what the agent does not read say so */
	E("k8s.deployment.name=x", 1, "unknown field 'k8s.deployment.name' at column 1: it needs "
	  "the Kubernetes API server, which the agent does not ask (k8s.pod.name, k8s.pod.id, "
	  "k8s.pod.uid and k8s.ns.name come from the node's container runtime)");
	E("container.mounts contains /x", 1, "unknown field 'container.mounts' at column 1: "
	  "container mounts are not read from the runtimes' files");
	E("k8s.pod.nmae=x", 1, "unknown field 'k8s.pod.nmae' at column 1; did you mean "
	  "k8s.pod.name?");
}

static void test_open_warning(void)
{
	const char *yes[] = { "evt.type=open", "evt.type in (open, read)",
			      "proc.name=x and evt.type!=open" };
	const char *no[] = { "evt.type=openat", "evt.type in (open, openat)", "proc.name=open",
			     "evt.type=open or evt.type=openat" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		struct filter *f = filter__compile(yes[i], NULL);

		CHECK(f && filter__names_open_without_openat(f));
		filter__free(f);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		struct filter *f = filter__compile(no[i], NULL);

		CHECK(f && !filter__names_open_without_openat(f));
		filter__free(f);
	}
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	world__init();
	field_ctx__init(&ctx, &world_threads);
	build_events();

	test_operators();
	test_evt_type();
	test_type_is();
	test_logic();
	test_errors();
	test_glob_checks();
	test_range_checks();
	test_rawarg_checks();
	test_containers();
	test_open_warning();

	field_ctx__fini(&ctx);
	return t_report();
}
