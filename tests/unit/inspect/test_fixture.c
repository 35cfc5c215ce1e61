/* Real sysdig captures replayed through the inspector, checked against what
 * `sysdig -r FILE -p '%evt.num %fd.num %fd.name %fd.typechar'` (and proc.* and
 * evt.latency) print for them (sysdig 0.29.3). The tables below are that output.
 *
 * The files are read with the capture-file engine (userspace/capfile). Their
 * own process and fd lists are not read, so the few fds that only they describe
 * (curl's fd 1) are not checked. Usage: test_inspect_fixture FIXTURE_DIR
 * (exit 77 when the fixtures are not there). */
#include "capfile.h"

#include "test_util.h"

struct fd_row {
	uint64_t num;
	int64_t fd;
	const char *name;
	char type;
};

/* Every event of single_ipv6_conn.scap that has an fd. */
static const struct fd_row ipv6_rows[] = {
	{ 849, 3, "", '6' }, { 850, 3, "", '6' },
	{ 851, 3, "2001:db8::3:1234", '6' }, { 852, 3, "2001:db8::3:1234", '6' },
	{ 853, 3, "2001:db8::3:1234", '6' },
	{ 1141, 3, "", 'u' }, { 1142, 3, "", 'u' },
	{ 1143, 3, "0->ffff94dc817b9400 /var/run/nscd/socket", 'u' },
	{ 1145, 3, "", 'u' }, { 1146, 3, "", 'u' },
	{ 1147, 3, "0->ffff94dc817b9400 /var/run/nscd/socket", 'u' },
	{ 1149, 3, "", '6' }, { 1150, 3, "", '6' },
	{ 1151, 3, "2001:db8::4:0", '6' }, { 1152, 3, "2001:db8::4:0", '6' },
	{ 1153, 4, "2001:db8::4:54405->2001:db8::3:1234", '6' },
	{ 1154, 3, "2001:db8::4:54405->2001:db8::3:1234", '6' },
	{ 1345, 3, "2001:db8::4:54405->2001:db8::3:1234", '6' },
	{ 1346, 3, "2001:db8::4:54405->2001:db8::3:1234", '6' },
	{ 1347, 4, "2001:db8::4:54405->2001:db8::3:1234", '6' },
	{ 1348, 4, "2001:db8::4:54405->2001:db8::3:1234", '6' },
	{ 1539, 4, "2001:db8::4:54405->2001:db8::3:1234", '6' },
	{ 1540, 4, "2001:db8::4:54405->2001:db8::3:1234", '6' },
};

/* A sample of curl_google.scap: shared libraries, a failed open, pipe, a
 * failed and a refused unix connect, DNS over UDP/IPv6, the HTTP connect. */
static const struct fd_row curl_rows[] = {
	{ 219, 3, "/etc/ld.so.cache", 'f' }, { 225, 3, "/etc/ld.so.cache", 'f' },
	{ 229, 3, "/usr/lib/x86_64-linux-gnu/libcurl-gnutls.so.4", 'f' },
	{ 835, 3, "/lib/x86_64-linux-gnu/libcrypt.so.1", 'f' },
	{ 941, 3, "/dev/urandom", 'f' },
	{ 960, 5, "", 'p' }, { 961, 4, "", 'p' }, { 964, 5, "", 'p' },
	{ 972, 4, "/usr/lib/locale/locale-archive", 'f' },
	{ 980, -1, "/home/ubuntu/.curlrc", 'f' },
	{ 1010, 4, "", '6' },
	{ 1057, 4, "0->ffff88003c420800 /var/run/nscd/socket", 'u' },
	{ 1058, 4, "", 'u' },
	{ 1075, 4, "/etc/nsswitch.conf", 'f' }, { 1137, 4, "/etc/hosts", 'f' },
	{ 1189, 4, "2600:1f18:262c:6542:9aa6:df7a:9a47:d29e:40251->2001:4860:4860::8888:53", '6' },
	{ 1242, 4, "2600:1f18:262c:6542:9aa6:df7a:9a47:d29e:40251->2001:4860:4860::8888:53", '6' },
	{ 1259, 4, "", '6' },
	{ 1273, 4, "2600:1f18:262c:6542:9aa6:df7a:9a47:d29e:37140->2607:f8b0:4004:802::2004:80", '6' },
	{ 1427, 4, "2600:1f18:262c:6542:9aa6:df7a:9a47:d29e:37140->2607:f8b0:4004:802::2004:80", '6' },
	{ 1428, 3, "/dev/urandom", 'f' },
};

/* curl's threads from its execve on (event 211): what sysdig shows for every
 * one of its 1221 events (proc.pid, proc.ppid, proc.name, proc.exe, proc.args),
 * and two latencies. */
static int curl_events, curl_bad;

static void check_curl(const struct ievt *ev, struct thread_table *threads)
{
	static const char args[] = "-6\0http://www.google.com";
	const struct thread_info *ti = ev->thread, *m;

	if (ev->num == 213)
		CHECK_INT(ev->latency, 835);
	if (ev->num == 219)
		CHECK_INT(ev->latency, 3896);
	if (ev->num < 211 || (ev->tid != 17497 && ev->tid != 17498))
		return;
	curl_events++;
	m = thread_table__main(threads, ti);
	if (ti && m && ti->pid == 17497 && m->ptid == 3200 && !strcmp(ti->comm, "curl") &&
	    ti->exe && !strcmp(ti->exe, "curl") && ti->args_len == sizeof(args) &&
	    !memcmp(ti->args, args, sizeof(args)))
		return;
	if (curl_bad++ < 5)
		fprintf(stderr, "event %" PRIu64 ": curl's thread %" PRId64 " is wrong\n", ev->num,
			ev->tid);
}

static bool check_fd_row(const struct ievt *ev, const struct fd_row *row)
{
	const char *name = ev->fd && ev->fd->name ? ev->fd->name : "";
	int64_t fdnum = ev->fd ? ev->fd->fd : -2;

	if (ev->fd && fdnum == row->fd && strcmp(name, row->name) == 0 &&
	    fd_type_chars[ev->fd->type] == row->type)
		return true;
	fprintf(stderr, "event %" PRIu64 ": fd %" PRId64 " \"%s\" '%c', sysdig shows %" PRId64
		" \"%s\" '%c'\n", ev->num, fdnum, name, ev->fd ? fd_type_chars[ev->fd->type] : '-',
		row->fd, row->name, row->type);
	return false;
}

/* Replays FILE; checks ROWS and returns the number of events, or -1. */
static int64_t replay_file(const char *dir, const char *file,
			   const struct fd_row *rows, size_t nrows, struct inspector **out)
{
	struct inspector_opts o = { .no_proc_scan = true, .no_proc_lookup = true };
	struct capfile_error ferr = { { 0 } };
	struct capture *cap;
	struct inspector *in;
	struct capture_event cev;
	struct ievt ev;
	char path[4096];
	size_t next = 0;
	int64_t n = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	cap = capture__open_file(path, &ferr);
	if (!cap) {
		fprintf(stderr, "%s: %s\n", path, ferr.msg);
		return -1;
	}
	in = inspector__new(&o);
	while (capture__next(cap, &cev, 0) == 0) {
		if (inspector__process(in, &cev, &ev) < 0)
			continue;
		n++;
		if (next < nrows && ev.num == rows[next].num) {
			if (check_fd_row(&ev, &rows[next]))
				t_passed++;
			else
				t_failed++;
			next++;
		}
		if (!strcmp(file, "curl_google.scap"))
			check_curl(&ev, inspector__threads(in));
	}
	CHECK_INT(next, nrows);
	capture__close(cap);
	*out = in;
	return n;
}

int main(int argc, char **argv)
{
	struct inspector_counters c;
	struct inspector *in = NULL;
	char path[4096];
	int64_t n;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FIXTURE_DIR\n", argv[0]);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/single_ipv6_conn.scap", argv[1]);
	if (access(path, R_OK) != 0) {
		printf("skipped: no fixtures in %s\n", argv[1]);
		return 77;
	}

	n = replay_file(argv[1], "single_ipv6_conn.scap", ipv6_rows,
			sizeof(ipv6_rows) / sizeof(ipv6_rows[0]), &in);
	CHECK_INT(n, 1728);
	inspector__counters(in, &c);
	CHECK_INT(c.n_malformed, 0);
	inspector__free(in);

	n = replay_file(argv[1], "curl_google.scap", curl_rows,
			sizeof(curl_rows) / sizeof(curl_rows[0]), &in);
	CHECK_INT(n, 1536);
	CHECK_INT(curl_events, 1221);
	CHECK_INT(curl_bad, 0);
	inspector__counters(in, &c);
	CHECK_INT(c.n_malformed, 0);
	CHECK_INT(c.n_unpaired_exits, 1);	/* execve: its enter came before the capture */
	inspector__free(in);
	return t_report();
}
