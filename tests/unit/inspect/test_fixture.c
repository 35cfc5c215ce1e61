/* Real sysdig captures replayed through the inspector, checked against what
 * `sysdig -r FILE -p '%evt.num %fd.num %fd.name %fd.typechar'` (and proc.* and
 * evt.latency) print for them (sysdig 0.29.3). The tables below are that output.
 *
 * The files are read with a minimal block walker of our own (the capture layer
 * owns the real reader): event blocks 0x216 (cpu u16 + frame) and the old 0x204
 * block whose frames lack nparams (inferred from the lengths). The files'
 * own process and fd lists are not read, so the few fds that only they describe
 * (curl's fd 1) are not checked. Usage: test_inspect_fixture FIXTURE_DIR
 * (exit 77 when the fixtures are not there). */
#include <zlib.h>

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

struct replay {
	struct inspector *in;
	uint8_t *data;
	size_t len, off;
	uint32_t evblock;	/* the file's event block type */
	uint8_t conv[PPM_MAX_EVENT_SIZE + 8];
};

static int replay__open(struct replay *r, const char *path)
{
	gzFile g = gzopen(path, "rb");
	size_t cap = 1 << 20;
	int n;

	if (!g)
		return -errno;
	r->data = malloc(cap);
	r->len = r->off = 0;
	while (r->data && (n = gzread(g, r->data + r->len, (unsigned)(cap - r->len))) > 0) {
		r->len += (size_t)n;
		if (r->len == cap)
			r->data = realloc(r->data, cap *= 2);
	}
	gzclose(g);
	return r->data ? 0 : -ENOMEM;
}

/* An old-format frame (ts, tid, len, type, then the lengths) with the nparams
 * field put in; how many params it has is inferred from its length. */
static int replay__convert_old(struct replay *r, const uint8_t *b, uint32_t blen,
			       struct capture_event *cev)
{
	uint32_t flen, np;
	uint16_t etype;

	memcpy(&flen, b + 10 + 16, 4);
	memcpy(&etype, b + 10 + 20, 2);
	if (flen < 22 || flen + 10 > blen || flen + 4 > sizeof(r->conv) ||
	    etype >= PPM_EVENT_MAX)
		return 0;
	for (np = schema_events[etype].nparams; np > 0; np--) {
		uint32_t sum = 22 + 2 * np;

		for (uint32_t k = 0; k < np && 32 + 2 * k + 2 <= blen; k++)
			sum += schema__u16(b + 32 + 2 * k);
		if (sum == flen)
			break;
	}
	memcpy(r->conv, b + 10, 22);
	memcpy(r->conv + 22, &np, 4);
	memcpy(r->conv + 26, b + 32, flen - 22);
	flen += 4;
	memcpy(r->conv + 16, &flen, 4);
	cev->frame = (const struct ppm_evt_hdr *)r->conv;
	cev->len = flen;
	return 1;
}

/* The next event frame, or 0 at the end. */
static int replay__next(struct replay *r, struct capture_event *cev)
{
	while (r->off + 12 <= r->len) {
		uint8_t *b = r->data + r->off;
		uint32_t type, blen;

		memcpy(&type, b, 4);
		memcpy(&blen, b + 4, 4);
		if (blen < 12 || r->off + blen > r->len)
			return 0;
		r->off += blen;
		if (type != r->evblock)
			continue;
		memcpy(&cev->cpu, b + 8, 2);
		if (type == 0x204)
			return replay__convert_old(r, b, blen, cev) ? 1 : replay__next(r, cev);
		cev->frame = (const struct ppm_evt_hdr *)(b + 10);
		cev->len = blen - 10;
		return 1;
	}
	return 0;
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
static int64_t replay_file(const char *dir, const char *file, uint32_t evblock,
			   const struct fd_row *rows, size_t nrows, struct inspector **out)
{
	struct inspector_opts o = { .no_proc_scan = true, .no_proc_lookup = true };
	struct replay r = { 0 };
	struct capture_event cev;
	struct ievt ev;
	char path[4096];
	size_t next = 0;
	int64_t n = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (replay__open(&r, path) < 0)
		return -1;
	r.evblock = evblock;
	r.in = inspector__new(&o);
	while (replay__next(&r, &cev)) {
		if (inspector__process(r.in, &cev, &ev) < 0)
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
			check_curl(&ev, inspector__threads(r.in));
	}
	CHECK_INT(next, nrows);
	free(r.data);
	*out = r.in;
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

	n = replay_file(argv[1], "single_ipv6_conn.scap", 0x216, ipv6_rows,
			sizeof(ipv6_rows) / sizeof(ipv6_rows[0]), &in);
	CHECK_INT(n, 1728);
	inspector__counters(in, &c);
	CHECK_INT(c.n_malformed, 0);
	inspector__free(in);

	n = replay_file(argv[1], "curl_google.scap", 0x204, curl_rows,
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
