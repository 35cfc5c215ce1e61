/* Output: sysdig's default text line, -p formats and JSON lines of hand-built
 * open/openat/connect events, and JSON escaping of arbitrary bytes. */
#include <errno.h>
#include <stdlib.h>

#include "t_check.h"
#include "format.h"
#include "world.h"

static struct field_ctx ctx;
static struct sbuf out;

/* Compiles FMT, which must compile. */
static struct format *C(const char *fmt)
{
	struct filter_error err;
	struct format *f = format__compile(fmt, &err);

	if (!f) {
		fprintf(stderr, "format '%s' did not compile: %s\n", fmt, err.msg);
		exit(1);
	}
	return f;
}

static const char *text(const struct format *f, const struct ievt *ev, int *rc)
{
	sbuf__reset(&out);
	*rc = format__text(f, ev, &ctx, &out);
	return sbuf__cstr(&out);
}

static const char *json(const struct format *f, const struct ievt *ev, int *rc)
{
	sbuf__reset(&out);
	*rc = format__json(f, ev, &ctx, &out);
	return sbuf__cstr(&out);
}

static const char *esc(const char *s, size_t len)
{
	sbuf__reset(&out);
	json__escape(&out, s, len);
	return sbuf__cstr(&out);
}

static struct tevt t_openat, t_open, t_conn, t_conn_x, t_unknown, t_odd;

static void build_events(void)
{
	struct frame_builder *fb;
	uint8_t sa[7] = { PPM_AF_INET, 10, 0, 0, 1 };
	uint16_t port = 80;

	fb = tevt__begin(&t_openat, PPME_SYSCALL_OPENAT_2_X, 200, WORLD_TS + 123456789);
	fb__u64(fb, 3);
	fb__u64(fb, (uint64_t)-100);
	fb__str(fb, "/etc/passwd");
	fb__u32(fb, PPM_FILE_FLAGS_O_RDONLY | PPM_FILE_FLAGS_O_CLOEXEC);
	fb__u32(fb, 0);
	fb__u32(fb, 0x803);
	tevt__end(&t_openat, -1)->num = 1;

	fb = tevt__begin(&t_open, PPME_SYSCALL_OPEN_E, 200, WORLD_TS + 5);
	fb__str(fb, "notes.txt");
	fb__u32(fb, PPM_FILE_FLAGS_O_RDWR);
	fb__u32(fb, 0755);
	tevt__end(&t_open, -1)->num = 2;

	memcpy(sa + 5, &port, 2);
	fb = tevt__begin(&t_conn, PPME_SOCKET_CONNECT_E, 200, WORLD_TS + 3600000000000ULL);
	fb__u64(fb, 4);
	fb__param(fb, sa, 7);
	tevt__end(&t_conn, -1)->num = 3;

	fb = tevt__begin(&t_conn_x, PPME_SOCKET_CONNECT_X, 201, WORLD_TS + 3600000000100ULL);
	fb__u64(fb, (uint64_t)-111);
	fb__empty(fb);
	tevt__end(&t_conn_x, 4)->num = 4;
	t_conn_x.ev.cpu = 0;

	fb = tevt__begin(&t_unknown, PPME_SYSCALL_CLOSE_E, 4242, WORLD_TS);
	fb__u64(fb, 9);
	tevt__end(&t_unknown, -1)->num = 5;
}

static void test_text(void)
{
	struct format *def = C(FORMAT_DEFAULT);
	int rc;

	CHECK(def != NULL);
	CHECK_STR(text(def, &t_openat.ev, &rc), "1 22:13:20.123456789 1 curl (200) < openat fd=3(<f>/etc/passwd) "
		  "dirfd=-100(AT_FDCWD) name=/etc/passwd flags=4097(O_RDONLY|O_CLOEXEC) mode=0 dev=803 \n");
	CHECK_INT(rc, 0);
	CHECK_STR(text(def, &t_open.ev, &rc), "2 22:13:20.000000005 1 curl (200) > open "
		  "name=notes.txt(/home/alice/notes.txt) flags=3(O_RDWR) mode=0755 \n");
	CHECK_STR(text(def, &t_conn.ev, &rc), "3 23:13:20.000000000 1 curl (200) > connect "
		  "fd=4(<4t>10.0.0.2:5555->10.0.0.1:80) addr=10.0.0.1:80 \n");
	CHECK_STR(text(def, &t_conn_x.ev, &rc), "4 23:13:20.000000100 0 curl (201) < connect "
		  "res=-111(ECONNREFUSED) tuple=NULL \n");
	/* unknown thread: <NA> like sysdig */
	CHECK_STR(text(def, &t_unknown.ev, &rc), "5 22:13:20.000000000 1 <NA> (4242) > close fd=9 \n");
	CHECK_INT(rc, 0);
	format__free(def);
}

static void test_p(void)
{
	struct filter_error err;
	struct format *f;
	int rc;

	f = C("%evt.num %proc.name %fd.name");
	CHECK_STR(text(f, &t_openat.ev, &rc), "1 curl /etc/passwd\n");
	/* a field is absent: the event is skipped, nothing appended */
	sbuf__reset(&out);
	sbuf__puts(&out, "keep");
	CHECK_INT(format__text(f, &t_open.ev, &ctx, &out), -ENOENT);
	CHECK_STR(sbuf__cstr(&out), "keep");
	format__free(f);

	f = C("*%evt.num %proc.name %fd.name");
	CHECK_STR(text(f, &t_open.ev, &rc), "2 curl <NA>\n");
	CHECK_INT(rc, 0);
	format__free(f);

	f = C("user=%user.name cmd=\"%proc.cmdline\" parent=%proc.pname[%proc.ppid] "
			    "gp=%proc.aname[2] %evt.arg.flags %evt.arg[2]!");
	CHECK_STR(text(f, &t_openat.ev, &rc), "user=alice cmd=\"curl -6 http://www.google.com\" "
		  "parent=bash[100] gp=systemd O_RDONLY|O_CLOEXEC /etc/passwd!\n");
	format__free(f);

	/* widths pad or cut; a trailing dot is text */
	f = C("[%12proc.name][%3evt.num][%1evt.type] %proc.name.");
	CHECK_STR(text(f, &t_openat.ev, &rc), "[curl        ][1  ][o] curl.\n");
	format__free(f);

	/* without an index, proc.aname prints the process itself */
	f = C("%proc.aname %proc.apid %fd.cip:%fd.cport->%fd.sip:%fd.sport");
	CHECK_STR(text(f, &t_conn.ev, &rc), "curl 200 10.0.0.2:5555->10.0.0.1:80\n");
	format__free(f);

	f = C("%evt.time %evt.datetime %evt.rawtime %evt.latency %evt.failed %evt.res");
	CHECK_STR(text(f, &t_conn_x.ev, &rc), "23:13:20.000000100 2023-11-14 23:13:20.000000100 "
		  "1700003600000000100 0 true ECONNREFUSED\n");
	format__free(f);

	f = C("no fields at all");
	CHECK_STR(text(f, &t_openat.ev, &rc), "no fields at all\n");
	format__free(f);

	CHECK(format__compile("abc %", &err) == NULL);
	CHECK_INT(errno, EINVAL);
	CHECK_STR(err.msg, "a format cannot end with '%' (column 5)");
	CHECK(format__compile("%12", &err) == NULL);
	CHECK_INT(err.column, 2);
	CHECK_STR(err.msg, "field width 12 at column 2 is not followed by a field name");
	CHECK(format__compile("%5 %proc.name", &err) == NULL);
	CHECK_STR(err.msg, "expected a field name after '%5' at column 3");
	CHECK(format__compile("%[", &err) == NULL);
	CHECK_STR(err.msg, "expected a field name after '%' at column 2");
	/* widths that do not fit are not read as part of the field name */
	CHECK(format__compile("%99999999999proc.name", &err) == NULL);
	CHECK_INT(errno, EINVAL);
	CHECK_INT(err.column, 2);
	CHECK_STR(err.msg, "field width 99999999999 at column 2 is too large (at most 65535)");
	CHECK(format__compile("x %65536proc.name", &err) == NULL);
	CHECK_STR(err.msg, "field width 65536 at column 4 is too large (at most 65535)");
	CHECK(format__compile("%123456789012345678901234567890evt.num", &err) == NULL);
	CHECK_STR(err.msg, "field width 123456789012345678901234... at column 2 is too large "
		  "(at most 65535)");
	CHECK(format__compile("%99999999999", &err) == NULL);
	CHECK_STR(err.msg, "field width 99999999999 at column 2 is too large (at most 65535)");
	f = C("%65535proc.name|%0000000000000000000004evt.num|");
	CHECK_INT(text(f, &t_openat.ev, &rc) ? (int)out.len : -1, 65535 + 1 + 4 + 2);
	format__free(f);
	CHECK(format__compile("x %fd.ip", &err) == NULL);
	CHECK_STR(err.msg, "fd.ip can only be used in filters, not in output formats (column 4)");
	CHECK(format__compile("%evt.type.is.open", &err) == NULL);
	CHECK_STR(err.msg, "evt.type.is can only be used in filters, not in output formats "
		  "(column 2)");
	CHECK(format__compile("%evt.num %proc.nme", &err) == NULL);
	CHECK_STR(err.msg, "unknown field 'proc.nme' at column 11; did you mean proc.name?");
	CHECK_INT(err.column, 11);
	CHECK(format__compile("%% %evt.num", &err) == NULL);
	CHECK_STR(err.msg, "expected a field name after '%' at column 2");
	CHECK(format__compile(NULL, &err) == NULL);
}

static void test_json(void)
{
	struct format *def = C(FORMAT_DEFAULT), *f;
	int rc;

	CHECK_STR(json(def, &t_openat.ev, &rc), "{\"evt.cpu\":1,\"evt.dir\":\"<\",\"evt.info\":"
		  "\"fd=3(<f>/etc/passwd) dirfd=-100(AT_FDCWD) name=/etc/passwd "
		  "flags=4097(O_RDONLY|O_CLOEXEC) mode=0 dev=803 \",\"evt.num\":1,"
		  "\"evt.outputtime\":1700000000123456789,\"evt.type\":\"openat\","
		  "\"proc.name\":\"curl\",\"thread.tid\":200}\n");
	CHECK_INT(rc, 0);
	CHECK_STR(json(def, &t_unknown.ev, &rc), "{\"evt.cpu\":1,\"evt.dir\":\">\",\"evt.info\":"
		  "\"fd=9 \",\"evt.num\":5,\"evt.outputtime\":1700000000000000000,\"evt.type\":"
		  "\"close\",\"proc.name\":null,\"thread.tid\":4242}\n");
	format__free(def);

	/* -j with -p: the format's fields as keys, sorted, once each, typed */
	f = C("*%proc.pid %evt.failed x %fd.sip %evt.num %proc.pid %evt.time "
			    "%fd.sport %evt.buffer %evt.arg[0] %thread.ismain %user.loginuid");
	CHECK_STR(json(f, &t_conn_x.ev, &rc), "{\"evt.arg[0]\":\"ECONNREFUSED\",\"evt.buffer\":null,"
		  "\"evt.failed\":true,\"evt.num\":4,\"evt.time\":1700003600000000100,"
		  "\"fd.sip\":\"10.0.0.1\",\"fd.sport\":80,\"proc.pid\":200,\"thread.ismain\":false,"
		  "\"user.loginuid\":1000}\n");
	format__free(f);

	f = C("*%evt.arg.size %evt.info");
	CHECK_STR(json(f, &t_unknown.ev, &rc), "{\"evt.arg.size\":null,\"evt.info\":\"fd=9 \"}\n");
	CHECK_STR(text(f, &t_unknown.ev, &rc), "<NA> fd=9 \n");
	format__free(f);
	f = C("%evt.info %evt.arg.size");
	sbuf__reset(&out);
	CHECK_INT(format__json(f, &t_unknown.ev, &ctx, &out), -ENOENT);
	CHECK_INT(format__text(f, &t_unknown.ev, &ctx, &out), -ENOENT);
	CHECK_INT(out.len, 0);
	format__free(f);

	f = C("%evt.num %fd.name");
	CHECK_STR(json(f, &t_openat.ev, &rc), "{\"evt.num\":1,\"fd.name\":\"/etc/passwd\"}\n");
	sbuf__reset(&out);
	CHECK_INT(format__json(f, &t_open.ev, &ctx, &out), -ENOENT);
	CHECK_INT(out.len, 0);
	format__free(f);

	/* fd.dev is hex text in both forms, as sysdig prints it; counts are numbers */
	f = C("%fd.dev %fd.dev.major %evt.count %evt.latency.human %syscall.type");
	CHECK_STR(json(f, &t_openat.ev, &rc), "{\"evt.count\":1,\"evt.latency.human\":\"0ns\","
		  "\"fd.dev\":\"100803\",\"fd.dev.major\":8,\"syscall.type\":\"openat\"}\n");
	CHECK_STR(text(f, &t_openat.ev, &rc), "100803 8 1 0ns openat\n");
	format__free(f);
}

static void test_escape(void)
{
	char all[32];

	CHECK_STR(esc("plain text", 10), "plain text");
	CHECK_STR(esc("say \"hi\"\\", 9), "say \\\"hi\\\"\\\\");
	CHECK_STR(esc("a\nb\tc\rd\be\ff", 11), "a\\nb\\tc\\rd\\be\\ff");
	CHECK_STR(esc("\x01\x1f\x7f", 3), "\\u0001\\u001f\x7f");
	CHECK_STR(esc("nul\0in", 6), "nul\\u0000in");
	for (int i = 0; i < 32; i++)
		all[i] = (char)i;
	/* \b \t \n \f \r are short, the other 27 \u00XX */
	CHECK_INT(strlen(esc(all, 32)), 5 * 2 + 27 * 6);
	/* valid UTF-8 is kept */
	CHECK_STR(esc("caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80", 14), "caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80");
	CHECK_STR(esc("\xef\xbf\xbf\xf4\x8f\xbf\xbf", 7), "\xef\xbf\xbf\xf4\x8f\xbf\xbf");
	/* each invalid byte becomes U+FFFD */
	CHECK_STR(esc("a\x80z", 3), "a\xef\xbf\xbdz");
	CHECK_STR(esc("\xe2\x82", 2), "\xef\xbf\xbd\xef\xbf\xbd");		/* truncated */
	CHECK_STR(esc("\xe2\x82x", 3), "\xef\xbf\xbd\xef\xbf\xbdx");
	CHECK_STR(esc("\xc0\xaf", 2), "\xef\xbf\xbd\xef\xbf\xbd");		/* overlong '/' */
	CHECK_STR(esc("\xe0\x80\xaf", 3), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	CHECK_STR(esc("\xed\xa0\x80", 3), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");	/* surrogate */
	CHECK_STR(esc("\xf4\x90\x80\x80", 4),					/* > U+10FFFF */
		  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	CHECK_STR(esc("\xf5\xff\xfe", 3), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	CHECK_STR(esc("\xc3", 1), "\xef\xbf\xbd");
	CHECK_STR(esc("", 0), "");
}

/* A process whose name holds quotes, control characters and bad UTF-8. */
static void test_json_odd_names(void)
{
	static struct thread_info odd;
	struct format *f = C("*%proc.name %proc.exe %fd.name");
	struct frame_builder *fb;
	struct fd_table fds = { 0 };
	struct fd_info fd = { .fd = 3, .type = FDT_FILE, .name = "/tmp/\"q\"\n\xff.txt" };
	int rc;

	odd = t_curl;
	odd.tid = odd.pid = 300;
	memcpy(odd.comm, "a\"b\\c\x01\xc3\xa9\xc3", 10);
	odd.exe = "x\xe2\x82";
	odd.fds = &fds;
	stub__add_fd(&fds, &fd);
	stub__add_thread(&world_threads, &odd);
	fb = tevt__begin(&t_odd, PPME_SYSCALL_CLOSE_E, 300, WORLD_TS);
	fb__u64(fb, 3);
	tevt__end(&t_odd, -1);
	CHECK_STR(json(f, &t_odd.ev, &rc), "{\"fd.name\":\"/tmp/\\\"q\\\"\\n\xef\xbf\xbd.txt\","
		  "\"proc.exe\":\"x\xef\xbf\xbd\xef\xbf\xbd\",\"proc.name\":\"a\\\"b\\\\c\\u0001"
		  "\xc3\xa9\xef\xbf\xbd\"}\n");
	/* in text, the fd name inside evt.info loses unprintable bytes */
	format__free(f);
	f = C("%evt.info");
	CHECK_STR(text(f, &t_odd.ev, &rc), "fd=3(<f>/tmp/\"q\".txt) \n");
	CHECK_STR(json(f, &t_odd.ev, &rc), "{\"evt.info\":\"fd=3(<f>/tmp/\\\"q\\\".txt) \"}\n");
	format__free(f);
	f = C("%evt.arg.fd %evt.arg[0]");
	CHECK_STR(json(f, &t_odd.ev, &rc), "{\"evt.arg.fd\":\"<f>/tmp/\\\"q\\\".txt\","
		  "\"evt.arg[0]\":\"<f>/tmp/\\\"q\\\".txt\"}\n");
	format__free(f);
	world_threads.n--;
}

/* After warm-up, formatting reuses the buffers: no growth. */
/* sysdig's renderings: a uid of -1 ("unchanged") and a path relative to a dirfd
 * the fd table does not know (resolved against an empty base). */
static void test_sysdig_quirks(void)
{
	struct format *f = C("%evt.args");
	struct frame_builder *fb;
	struct tevt t;
	int rc;

	fb = tevt__begin(&t, PPME_SYSCALL_SETRESUID_E, 200, WORLD_TS);
	fb__u32(fb, UINT32_MAX);
	fb__u32(fb, 0);
	fb__u32(fb, UINT32_MAX);
	tevt__end(&t, -1);
	CHECK_STR(text(f, &t.ev, &rc), "ruid=-1(<NONE>) euid=0(root) suid=-1(<NONE>) \n");

	fb = tevt__begin(&t, PPME_SYSCALL_SYMLINKAT_X, 200, WORLD_TS);
	fb__u64(fb, (uint64_t)-9);
	fb__str(fb, "target");
	fb__u64(fb, 9999);
	fb__str(fb, "s3");
	tevt__end(&t, -1);
	CHECK_STR(text(f, &t.ev, &rc), "res=-9(EBADF) target=target linkdirfd=9999 linkpath=s3(s3) \n");

	/* ppoll without a timeout: sysdig prints none */
	fb = tevt__begin(&t, PPME_SYSCALL_PPOLL_E, 200, WORLD_TS);
	fb__param(fb, "\0\0", 2);	/* no fds */
	fb__u64(fb, UINT64_MAX);
	fb__u32(fb, 0);
	tevt__end(&t, -1);
	CHECK_STR(text(f, &t.ev, &rc), "fds= timeout=none sigmask= \n");
	format__free(f);
}

static void test_no_growth(void)
{
	struct format *def = C(FORMAT_DEFAULT);
	size_t cap, scratch_cap;

	for (int i = 0; i < 10; i++) {
		sbuf__reset(&out);
		format__json(def, &t_openat.ev, &ctx, &out);
		format__text(def, &t_openat.ev, &ctx, &out);
	}
	cap = out.cap;
	scratch_cap = ctx.scratch.cap;
	for (int i = 0; i < 10000; i++) {
		sbuf__reset(&out);
		format__json(def, &t_openat.ev, &ctx, &out);
		format__text(def, &t_conn.ev, &ctx, &out);
	}
	CHECK_INT(out.cap, cap);
	CHECK_INT(ctx.scratch.cap, scratch_cap);
	format__free(def);
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	world__init();
	field_ctx__init(&ctx, &world_threads);
	sbuf__init(&out);
	build_events();

	test_text();
	test_p();
	test_json();
	test_escape();
	test_json_odd_names();
	test_sysdig_quirks();
	test_no_growth();

	sbuf__free(&out);
	field_ctx__fini(&ctx);
	return t_report();
}
