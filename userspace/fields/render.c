/* Event params as text, the way sysdig's evt.info and evt.arg print them: each
 * PT_* type has a value text and, for some, a "resolved" text (the fd's name,
 * the errno name, flag names) that evt.info shows in parentheses. */
#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>

#include "fields_int.h"

#define AT_FDCWD_VALUE (-100)

void text__append_clean(struct sbuf *out, const char *s, size_t len)
{
	size_t i = 0, run;

	while (i < len && s[i]) {
		run = i;
		while (run < len && (unsigned char)s[run] >= 0x20 && (unsigned char)s[run] < 0x7f)
			run++;
		sbuf__append(out, s + i, run - i);
		if (run >= len || !s[run])
			break;
		i = run + 1;	/* drop the unprintable byte */
	}
}

/* Like text__append_clean but shows unprintable bytes as '.' (resolved paths). */
static void text__append_dotted(struct sbuf *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		sbuf__putc(out, c >= 0x20 && c < 0x7f ? (char)c : '.');
	}
}

void ip__render(struct sbuf *out, int family, const uint8_t *addr)
{
	char tmp[INET6_ADDRSTRLEN];

	if (family != PPM_AF_INET6) {
		/* dotted quad by hand: inet_ntop goes through sprintf */
		for (int i = 0; i < 4; i++) {
			if (i)
				sbuf__putc(out, '.');
			sbuf__u64(out, addr[i]);
		}
		return;
	}
	if (inet_ntop(AF_INET6, addr, tmp, sizeof(tmp)))
		sbuf__puts(out, tmp);
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void base64__append(struct sbuf *out, const uint8_t *p, uint32_t len)
{
	for (uint32_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		char q[4];

		if (i + 1 < len)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < len)
			v |= p[i + 2];
		q[0] = b64[(v >> 18) & 63];
		q[1] = b64[(v >> 12) & 63];
		q[2] = i + 1 < len ? b64[(v >> 6) & 63] : '=';
		q[3] = i + 2 < len ? b64[v & 63] : '=';
		sbuf__append(out, q, 4);
	}
}

/* Byte -> printed character: printable ASCII as is, the rest as '.' (ASCII
 * mode also keeps newlines and tabs). */
static char normal_map[256], ascii_map[256];
static pthread_once_t maps_once = PTHREAD_ONCE_INIT;

static void maps__init(void)
{
	for (int c = 0; c < 256; c++) {
		normal_map[c] = c >= 0x20 && c < 0x7f ? (char)c : '.';
		ascii_map[c] = (c == '\n' || c == '\t' || c == '\r') ? (char)c : normal_map[c];
	}
}

void buffer__render(const uint8_t *p, uint32_t len, struct field_ctx *ctx, struct sbuf *out)
{
	bool cut = ctx->buf_limit && len > ctx->buf_limit;
	uint32_t n = len;

	pthread_once(&maps_once, maps__init);
	/* sysdig keeps the printed text within the limit, "..." included */
	if (cut)
		n = ctx->buf_limit > 3 ? ctx->buf_limit - 3 : 0;
	switch (ctx->buf_format) {
	case BUF_BASE64:
		base64__append(out, p, n);
		break;
	case BUF_HEX:
	case BUF_HEXASCII:
		for (uint32_t i = 0; i < n; i++) {
			sbuf__putc(out, "0123456789abcdef"[p[i] >> 4]);
			sbuf__putc(out, "0123456789abcdef"[p[i] & 15]);
		}
		if (ctx->buf_format == BUF_HEX)
			break;
		sbuf__putc(out, ' ');
		/* fallthrough */
	case BUF_NORMAL:
	case BUF_ASCII:
	default: {
		const char *map = ctx->buf_format == BUF_ASCII ? ascii_map : normal_map;
		char *dst;

		if (sbuf__reserve(out, n))
			return;
		dst = out->buf + out->len;
		for (uint32_t i = 0; i < n; i++)
			dst[i] = map[p[i]];
		out->len += n;
		break;
	}
	}
	if (cut)
		sbuf__puts(out, "...");
}

/* The "(resolved)" part: begun after the value, then dropped if empty, kept in
 * parentheses (PM_INFO) or moved over the value (PM_ARG). */
struct rmark {
	size_t value;	/* where the value starts */
	size_t open;	/* where "(" was put */
};

static void res_begin(struct sbuf *o, struct rmark *m)
{
	m->open = o->len;
	sbuf__putc(o, '(');
}

static void res_end(struct sbuf *o, const struct rmark *m, enum param_mode mode)
{
	size_t n;

	if (o->err)
		return;
	n = o->len - m->open - 1;
	if (n == 0 || mode == PM_RAW) {
		o->len = m->open;
		return;
	}
	if (mode == PM_ARG) {
		memmove(o->buf + m->value, o->buf + m->open + 1, n);
		o->len = m->value + n;
		return;
	}
	sbuf__putc(o, ')');
}

/* Flag names for VAL in sysdig's order: names whose bits are all set, each
 * bit used once, and the entry equal to the whole value ends the walk. */
static void flags__append(struct sbuf *o, const struct ppm_name_value *names, uint32_t initial)
{
	const struct ppm_name_value *f = names;
	const char *sep = "";
	uint32_t val = initial;

	if (!f)
		return;
	for (; f->name && f->value != initial; f++) {
		if (f->value != 0 && val != 0 && (val & f->value) == f->value) {
			sbuf__puts(o, sep);
			sbuf__puts(o, f->name);
			sep = "|";
			val &= ~f->value;
		}
	}
	if (f->name) {
		sbuf__puts(o, sep);
		sbuf__puts(o, f->name);
	}
}

static struct thread_info *thread__by_tid(const struct ievt *ev, struct field_ctx *ctx, int64_t tid)
{
	if (ctx->threads)
		return thread_table__find(ctx->threads, tid);
	if (ev->thread && ev->thread->tid == tid)
		return ev->thread;
	return NULL;
}

/* The thread a PID param names. A host id (a task id the driver read) is looked
 * up as it is. Any other number is one of the event thread's own pid
 * namespace: a host id too in the initial namespace, else it names the thread
 * itself, its process, or a thread or child its process made (the table finds
 * those by their number there), and no thread otherwise: never the host's
 * thread that has the same number. */
static const struct thread_info *pid__thread(const struct ievt *ev, struct field_ctx *ctx,
					     const struct ppm_param_info *pi, int64_t v)
{
	const struct thread_info *me = ev->thread;

	if (pi->host_pid)
		return thread__by_tid(ev, ctx, v);
	if (!me)
		return NULL;
	switch (thread__pidns(me)) {
	case PIDNS_INIT:
		return thread__by_tid(ev, ctx, v);
	case PIDNS_CHILD:
		if (v <= 0)
			return NULL;
		if (v == me->vtid)
			return me;
		if (v == me->vpid)
			return thread__by_tid(ev, ctx, me->pid);
		return thread_table__find_vchild(ctx->threads, me, v);
	default:
		return NULL;
	}
}

static struct fd_info *fd__lookup(const struct ievt *ev, int64_t fd)
{
	if (!ev->thread || !ev->thread->fds || fd < 0)
		return NULL;
	if (ev->fd && ev->fd->fd == fd)
		return ev->fd;
	return fd_table__find(ev->thread->fds, fd);
}

static char l4__char(uint8_t proto)
{
	switch (proto) {
	case 6: return 't';
	case 17: return 'u';
	case 1: case 58: return 'i';
	case 255: return 'r';
	default: return 0;
	}
}

/* "<f>/etc/passwd", "<4t>1.2.3.4:5->6.7.8.9:80": the fd as evt.info shows it. */
static void fd__append_desc(struct sbuf *o, const struct fd_info *fd)
{
	char l4;

	sbuf__putc(o, '<');
	if ((unsigned)fd->type <= FDT_OTHER_SOCK && fd_type_chars[fd->type])
		sbuf__putc(o, fd_type_chars[fd->type]);
	/* like sysdig, the protocol shows once the socket has a role (and a port) */
	if ((fd->type == FDT_IPV4_SOCK || fd->type == FDT_IPV6_SOCK) && !fd->no_role &&
	    (fd->sport || fd->dport)) {
		l4 = l4__char(fd->l4proto);
		if (l4)
			sbuf__putc(o, l4);
	}
	sbuf__putc(o, '>');
	if (fd->name)
		text__append_clean(o, fd->name, strlen(fd->name));
}

/* Joins BASE and the relative PATH into O, then folds "." and ".." in place. */
static void path__append_resolved(struct sbuf *o, const char *base, const char *path, size_t plen)
{
	size_t start = o->len, r, w, seg;

	text__append_dotted(o, base, strlen(base));
	if (o->len > start && o->buf[o->len - 1] != '/')
		sbuf__putc(o, '/');
	text__append_dotted(o, path, plen);
	if (o->err)
		return;
	/* fold in place: the result is never longer than the input */
	r = w = start;
	if (r < o->len && o->buf[r] == '/')
		r++, w++;
	while (r < o->len) {
		seg = r;
		while (r < o->len && o->buf[r] != '/')
			r++;
		if (r - seg == 0 || (r - seg == 1 && o->buf[seg] == '.')) {
			/* empty or "." */
		} else if (r - seg == 2 && o->buf[seg] == '.' && o->buf[seg + 1] == '.') {
			/* drop the last written component */
			size_t root = start + (o->buf[start] == '/');

			if (w > root) {
				w--;	/* the '/' after it */
				while (w > root && o->buf[w - 1] != '/')
					w--;
			}
		} else {
			memmove(o->buf + w, o->buf + seg, r - seg);
			w += r - seg;
			if (r < o->len)
				o->buf[w++] = '/';
		}
		if (r < o->len)
			r++;
	}
	/* "a/b/" from a trailing "." or ".." segment: drop the slash */
	if (w > start + 1 && o->buf[w - 1] == '/')
		w--;
	o->len = w;
}

static size_t str__len(const uint8_t *p, uint16_t len)
{
	const void *nul = memchr(p, 0, len);

	return nul ? (size_t)((const uint8_t *)nul - p) : len;
}

static void path__resolve(const struct ievt *ev, const struct ppm_param_info *pi,
			  const uint8_t *val, uint16_t len, struct sbuf *o)
{
	const struct thread_info *ti = ev->thread;
	size_t plen = str__len(val, len);
	const char *base = NULL;
	int64_t dirfd = AT_FDCWD_VALUE;

	if (!ti || plen == 0 || val[0] == '/' || (plen == 4 && memcmp(val, "<NA>", 4) == 0))
		return;
	if (pi->type == PT_FSRELPATH && pi->dirfd_param >= 0 &&
	    (uint32_t)pi->dirfd_param < ev->params.n &&
	    schema__param_int(PT_FD, ev->params.val[pi->dirfd_param],
			      ev->params.len[pi->dirfd_param], &dirfd) < 0)
		return;
	if (dirfd == AT_FDCWD_VALUE) {
		base = ti->cwd;
	} else {
		const struct fd_info *fd = fd__lookup(ev, dirfd);

		/* an unknown dirfd: sysdig resolves against an empty base */
		base = fd ? fd->name : "";
	}
	if (!base)
		return;
	path__append_resolved(o, base, (const char *)val, plen);
}

static void fdlist__append(const struct ievt *ev, const uint8_t *val, uint16_t len, struct sbuf *o)
{
	uint16_t n;

	if (len < 2)
		return;
	n = schema__u16(val);
	for (uint32_t i = 0, pos = 2; i < n && pos + 10 <= len; i++, pos += 10) {
		int64_t fd = (int64_t)schema__u64(val + pos);
		int16_t flags = (int16_t)schema__u16(val + pos + 8);
		const struct fd_info *fi = fd__lookup(ev, fd);
		char tc = '?';

		if (fi && (unsigned)fi->type <= FDT_OTHER_SOCK && fd_type_chars[fi->type])
			tc = fd_type_chars[fi->type];
		if (i)
			sbuf__putc(o, ' ');
		sbuf__u64(o, (uint64_t)fd);
		sbuf__putc(o, ':');
		sbuf__putc(o, tc);
		sbuf__hex(o, (uint32_t)(int32_t)flags, 0);
	}
}

static void sockaddr__append(const uint8_t *val, uint16_t len, struct sbuf *o)
{
	if (len == 0) {
		sbuf__puts(o, "NULL");
		return;
	}
	switch (val[0]) {
	case PPM_AF_INET:
		if (len < 7) {
			sbuf__puts(o, "INVALID IPv4");
			return;
		}
		ip__render(o, PPM_AF_INET, val + 1);
		sbuf__putc(o, ':');
		sbuf__u64(o, schema__u16(val + 5));
		return;
	case PPM_AF_INET6:
		if (len < 19) {
			sbuf__puts(o, "INVALID IPv6");
			return;
		}
		ip__render(o, PPM_AF_INET6, val + 1);
		sbuf__putc(o, ':');
		sbuf__u64(o, schema__u16(val + 17));
		return;
	case PPM_AF_UNIX:
		text__append_clean(o, (const char *)val + 1, len - 1);
		return;
	default:
		sbuf__puts(o, "family ");
		sbuf__u64(o, val[0]);
		return;
	}
}

/* An IPv6 address sysdig takes for an IPv4 one: v4-mapped or all zero. */
static bool ip6__stands_v4(const uint8_t *a)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	static const uint8_t zero[16];

	return memcmp(a, mapped, sizeof(mapped)) == 0 || memcmp(a, zero, sizeof(zero)) == 0;
}

static void socktuple__append(const uint8_t *val, uint16_t len, struct sbuf *o)
{
	if (len == 0) {
		sbuf__puts(o, "NULL");
		return;
	}
	switch (val[0]) {
	case PPM_AF_INET:
		if (len < 13) {
			sbuf__puts(o, "INVALID IPv4");
			return;
		}
		ip__render(o, PPM_AF_INET, val + 1);
		sbuf__putc(o, ':');
		sbuf__u64(o, schema__u16(val + 5));
		sbuf__puts(o, "->");
		ip__render(o, PPM_AF_INET, val + 7);
		sbuf__putc(o, ':');
		sbuf__u64(o, schema__u16(val + 11));
		return;
	case PPM_AF_INET6: {
		/* both ends v4-mapped or zero: an IPv4 tuple, as sysdig prints it */
		bool v4 = ip6__stands_v4(val + 1) && ip6__stands_v4(val + 19);
		int fam = v4 ? PPM_AF_INET : PPM_AF_INET6;

		if (len < 37) {
			sbuf__puts(o, "INVALID IPv6");
			return;
		}
		ip__render(o, fam, val + 1 + (v4 ? 12 : 0));
		sbuf__putc(o, ':');
		sbuf__u64(o, schema__u16(val + 17));
		sbuf__puts(o, "->");
		ip__render(o, fam, val + 19 + (v4 ? 12 : 0));
		sbuf__putc(o, ':');
		sbuf__u64(o, schema__u16(val + 35));
		return;
	}
	case PPM_AF_UNIX:
		if (len < 17) {
			sbuf__puts(o, "NULL");
			return;
		}
		sbuf__hex(o, schema__u64(val + 1), 0);
		sbuf__puts(o, "->");
		sbuf__hex(o, schema__u64(val + 9), 0);
		sbuf__putc(o, ' ');
		text__append_clean(o, (const char *)val + 17, len - 17);
		return;
	default:
		sbuf__puts(o, "family ");
		sbuf__u64(o, val[0]);
		return;
	}
}

static bool is_signed_type(uint8_t type)
{
	switch (type) {
	case PT_INT8: case PT_INT16: case PT_INT32: case PT_INT64:
	case PT_ERRNO: case PT_FD: case PT_PID:
		return true;
	default:
		return false;
	}
}

static unsigned int_bits(uint8_t type)
{
	switch (type) {
	case PT_INT8: case PT_UINT8: return 8;
	case PT_INT16: case PT_UINT16: return 16;
	case PT_INT32: case PT_UINT32: return 32;
	default: return 64;
	}
}

/* An integer param by its print format (%d, %X, %#o, %09d). */
static void int__append(struct sbuf *o, uint8_t type, uint8_t fmt, int64_t v)
{
	unsigned bits = int_bits(type);
	uint64_t u = bits == 64 ? (uint64_t)v : (uint64_t)v & ((1ULL << bits) - 1);

	switch (fmt) {
	case PF_HEX:
		sbuf__hex(o, u, 1);
		return;
	case PF_OCT:
		sbuf__oct(o, u);
		return;
	case PF_10_PADDED_DEC:
		sbuf__padded(o, v, 9);
		return;
	default:
		if (is_signed_type(type))
			sbuf__i64(o, v);
		else
			sbuf__u64(o, u);
		return;
	}
}

static void render_value(const struct ievt *ev, const struct ppm_param_info *pi,
			 const uint8_t *val, uint16_t len, struct field_ctx *ctx,
			 struct sbuf *o, enum param_mode mode)
{
	struct rmark m = { .value = o->len };
	int64_t v = 0;
	const char *name;

	switch (pi->type) {
	case PT_CHARBUF:
		text__append_clean(o, (const char *)val, len);
		return;
	case PT_FSPATH:
	case PT_FSRELPATH:
		text__append_clean(o, (const char *)val, len);
		res_begin(o, &m);
		path__resolve(ev, pi, val, len, o);
		res_end(o, &m, mode);
		return;
	case PT_BYTEBUF:
		buffer__render(val, len, ctx, o);
		return;
	case PT_SOCKADDR:
		sockaddr__append(val, len, o);
		return;
	case PT_SOCKTUPLE:
		socktuple__append(val, len, o);
		return;
	case PT_FDLIST:
		fdlist__append(ev, val, len, o);
		return;
	case PT_DYN:
		if (len >= 1 && pi->info && val[0] < pi->ninfo) {
			const struct ppm_param_info *sub = (const struct ppm_param_info *)pi->info + val[0];

			render_value(ev, sub, val + 1, len - 1, ctx, o, mode);
		} else {
			sbuf__puts(o, "INVALID DYNAMIC PARAMETER");
		}
		return;
	case PT_IPV4ADDR:
		if (len == 4)
			ip__render(o, PPM_AF_INET, val);
		else
			sbuf__puts(o, "<NA>");
		return;
	case PT_IPV6ADDR:
	case PT_IPADDR:
		if (len == 16)
			ip__render(o, PPM_AF_INET6, val);
		else if (len == 4)
			ip__render(o, PPM_AF_INET, val);
		else
			sbuf__puts(o, "<NA>");
		return;
	case PT_DOUBLE:
		if (len == 8) {
			double d;

			memcpy(&d, val, sizeof(d));
			sbuf__printf(o, "%.2f", d);
		} else {
			sbuf__puts(o, "<NA>");
		}
		return;
	case PT_CHARBUFARRAY:
	case PT_CHARBUF_PAIR_ARRAY:
		for (uint16_t i = 0; i < len; i++)
			sbuf__putc(o, val[i] ? (val[i] >= 0x20 && val[i] < 0x7f ? (char)val[i] : '.') : ',');
		return;
	default:
		break;
	}

	/* fixed-size integer types */
	if (pi->type == PT_SIGSET && len == 4)
		v = schema__u32(val);
	else if (schema__param_int(pi->type, val, len, &v) < 0) {
		sbuf__puts(o, "<NA>");
		return;
	}
	switch (pi->type) {
	case PT_ERRNO:
		sbuf__i64(o, v);
		res_begin(o, &m);
		if (v < 0 && (name = errno__name(v)))
			sbuf__puts(o, name);
		res_end(o, &m, mode);
		return;
	case PT_FD:
		sbuf__i64(o, v);
		res_begin(o, &m);
		if (v == AT_FDCWD_VALUE) {
			sbuf__puts(o, "AT_FDCWD");
		} else if (v < 0) {
			if ((name = errno__name(v)))
				sbuf__puts(o, name);
		} else {
			const struct fd_info *fd = fd__lookup(ev, v);

			if (fd)
				fd__append_desc(o, fd);
		}
		res_end(o, &m, mode);
		return;
	case PT_PID: {
		const struct thread_info *ti;

		sbuf__i64(o, v);
		res_begin(o, &m);
		ti = pid__thread(ev, ctx, pi, v);
		/* A thread known only by number (no name yet) prints as the bare
		 * number, as sysdig does: "next=7", not "next=7(<NA>)". */
		if (ti)
			text__append_clean(o, ti->comm, strnlen(ti->comm, sizeof(ti->comm)));
		res_end(o, &m, mode);
		return;
	}
	case PT_UID:
	case PT_GID:
		/* -1 is "no id" (setresuid's "unchanged"): sysdig prints -1(<NONE>) */
		if ((uint32_t)v == UINT32_MAX)
			sbuf__i64(o, -1);
		else
			sbuf__u64(o, (uint32_t)v);
		res_begin(o, &m);
		name = pi->type == PT_UID ? users__name((uint32_t)v) : groups__name((uint32_t)v);
		if ((uint32_t)v == UINT32_MAX)
			name = "<NONE>";
		else if (!name)
			name = "<NA>";
		text__append_clean(o, name, strlen(name));
		res_end(o, &m, mode);
		return;
	case PT_FLAGS8:
	case PT_FLAGS16:
	case PT_FLAGS32:
		sbuf__u64(o, (uint64_t)v);
		res_begin(o, &m);
		flags__append(o, pi->info, (uint32_t)v);
		res_end(o, &m, mode);
		return;
	case PT_MODE:
		sbuf__oct(o, (uint32_t)v);
		res_begin(o, &m);
		flags__append(o, pi->info, (uint32_t)v);
		res_end(o, &m, mode);
		return;
	case PT_SYSCALLID:
		sbuf__u64(o, (uint64_t)v);
		res_begin(o, &m);
		name = schema__ppm_sc_name((uint16_t)v);
		sbuf__puts(o, name ? name : "<unknown syscall>");
		res_end(o, &m, mode);
		return;
	case PT_SIGTYPE:
		sbuf__u64(o, (uint64_t)v);
		res_begin(o, &m);
		if ((name = signal__name((uint64_t)v)))
			sbuf__puts(o, name);
		res_end(o, &m, mode);
		return;
	case PT_SIGSET: {
		const char *sep = "";

		for (unsigned bit = 0; bit < 32; bit++) {
			if (!((uint64_t)v & (1ULL << bit)) || !(name = signal__name(bit + 1)))
				continue;
			sbuf__puts(o, sep);
			sbuf__puts(o, name);
			sep = " ";
		}
		return;
	}
	case PT_RELTIME:
		/* (u64)-1: no timeout (ppoll without a timespec), sysdig's "none" */
		if ((uint64_t)v == UINT64_MAX) {
			sbuf__puts(o, "none");
			return;
		}
		sbuf__u64(o, (uint64_t)v);
		res_begin(o, &m);
		sbuf__printf(o, "%gs", (double)(uint64_t)v / 1e9);
		res_end(o, &m, mode);
		return;
	case PT_ABSTIME:
	case PT_PORT:
	case PT_L4PROTO:
	case PT_SOCKFAMILY:
	case PT_BOOL:
		sbuf__u64(o, (uint64_t)v);
		return;
	default:
		int__append(o, pi->type, pi->fmt, v);
		return;
	}
}

void param__render(const struct ievt *ev, uint32_t idx, struct field_ctx *ctx,
		   struct sbuf *out, enum param_mode mode)
{
	if (!ev->info || idx >= ev->params.n || idx >= ev->info->nparams)
		return;
	render_value(ev, &ev->info->params[idx], ev->params.val[idx], ev->params.len[idx],
		     ctx, out, mode);
}

/* Lengths of the param names, so that evt.info does not strlen them per event. */
static uint8_t name_len[PPM_EVENT_MAX][PPM_MAX_EVENT_PARAMS];
static pthread_once_t name_len_once = PTHREAD_ONCE_INIT;

static void name_len__init(void)
{
	for (unsigned t = 0; t < PPM_EVENT_MAX; t++)
		for (unsigned p = 0; p < schema_events[t].nparams && p < PPM_MAX_EVENT_PARAMS; p++)
			if (schema_events[t].params[p].name)
				name_len[t][p] = (uint8_t)strnlen(schema_events[t].params[p].name, 255);
}

void params__render_info(const struct ievt *ev, struct field_ctx *ctx, struct sbuf *out)
{
	const struct ppm_param_info *pi;

	/* generic events carry only the syscall id, which evt.type already shows */
	if (!ev->info || ev->type == PPME_GENERIC_E || ev->type == PPME_GENERIC_X)
		return;
	pthread_once(&name_len_once, name_len__init);
	for (uint32_t i = 0; i < ev->params.n && i < ev->info->nparams; i++) {
		pi = &ev->info->params[i];
		/* events outside the table (tests) measure their names */
		sbuf__append(out, pi->name, ev->type < PPM_EVENT_MAX &&
			     ev->info == &schema_events[ev->type] ?
			     name_len[ev->type][i] : strlen(pi->name));
		sbuf__putc(out, '=');
		render_value(ev, pi, ev->params.val[i], ev->params.len[i], ctx, out, PM_INFO);
		sbuf__putc(out, ' ');
	}
}
