/* Field extraction entry point, extraction context and value rendering. */
#include <errno.h>
#include <time.h>

#include "fields_int.h"

void field_ctx__init(struct field_ctx *ctx, struct thread_table *threads)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->threads = threads;
	ctx->buf_limit = 80;
	ctx->buf_format = BUF_NORMAL;
	sbuf__init(&ctx->scratch);
	sbuf__init(&ctx->tmp);
	ctx->time_sec = -1;
	tzset();
}

void field_ctx__fini(struct field_ctx *ctx)
{
	if (!ctx)
		return;
	sbuf__free(&ctx->scratch);
	sbuf__free(&ctx->tmp);
}

int field__extract(const struct field_ref *ref, const struct ievt *ev, struct field_ctx *ctx,
		   unsigned n, struct field_value *out)
{
	switch (ref->info->cls) {
	case C_EVT:
	case C_SYSCALL:
		return fields__extract_evt(ref, ev, ctx, n, out);
	case C_FD:
		return fields__extract_fd(ref, ev, ctx, n, out);
	case C_CONTAINER:
	case C_K8S:
		return fields__extract_container(ref, ev, ctx, n, out);
	case C_REQ:
		return fields__extract_req(ref, ev, ctx, n, out);
	case C_TCP:
		return fields__extract_tcp(ref, ev, ctx, n, out);
	default:
		return fields__extract_proc(ref, ev, ctx, n, out);
	}
}

static void two(char *p, int v)
{
	p[0] = (char)('0' + v / 10 % 10);
	p[1] = (char)('0' + v % 10);
}

/* Local "HH:MM:SS" and "YYYY-MM-DD" of the second of TS, computed once per second. */
static void time__local(struct field_ctx *ctx, uint64_t ts)
{
	int64_t sec = (int64_t)(ts / 1000000000ULL);
	time_t t = (time_t)sec;
	struct tm tm;

	if (sec == ctx->time_sec)
		return;
	if (!localtime_r(&t, &tm))
		memset(&tm, 0, sizeof(tm));
	two(ctx->time_hms, tm.tm_hour);
	ctx->time_hms[2] = ':';
	two(ctx->time_hms + 3, tm.tm_min);
	ctx->time_hms[5] = ':';
	two(ctx->time_hms + 6, tm.tm_sec);
	ctx->time_hms[8] = '\0';
	snprintf(ctx->time_ymd, sizeof(ctx->time_ymd), "%04d-%02d-%02d",
		 (tm.tm_year + 1900) % 10000, (tm.tm_mon + 1) % 100, tm.tm_mday % 100);
	ctx->time_sec = sec;
}

static void time__render(const struct field_ref *ref, uint64_t ts, struct field_ctx *ctx,
			 struct sbuf *out)
{
	uint64_t ns = ts % 1000000000ULL;

	switch (ref->info->id) {
	case F_EVT_TIME_ISO8601: {
		time_t t = (time_t)(ts / 1000000000ULL);
		struct tm tm;
		char tmp[32];

		if (!gmtime_r(&t, &tm))
			memset(&tm, 0, sizeof(tm));
		strftime(tmp, sizeof(tmp), "%Y-%m-%dT%H:%M:%S", &tm);
		sbuf__puts(out, tmp);
		sbuf__putc(out, '.');
		sbuf__padded(out, (int64_t)ns, 9);
		sbuf__puts(out, "+0000");
		return;
	}
	case F_EVT_DATETIME:
	case F_EVT_DATETIME_S:
		time__local(ctx, ts);
		sbuf__puts(out, ctx->time_ymd);
		sbuf__putc(out, ' ');
		sbuf__append(out, ctx->time_hms, 8);
		if (ref->info->id == F_EVT_DATETIME) {
			sbuf__putc(out, '.');
			sbuf__padded(out, (int64_t)ns, 9);
		}
		return;
	case F_EVT_TIME_S:
		time__local(ctx, ts);
		sbuf__append(out, ctx->time_hms, 8);
		return;
	default:
		time__local(ctx, ts);
		sbuf__append(out, ctx->time_hms, 8);
		sbuf__putc(out, '.');
		sbuf__padded(out, (int64_t)ns, 9);
		return;
	}
}

void field__render(const struct field_ref *ref, const struct field_value *v,
		   struct field_ctx *ctx, struct sbuf *out)
{
	switch (v->type) {
	case FT_INT64:
		sbuf__i64(out, v->i);
		return;
	case FT_UINT64:
		/* the nanosecond parts print zero-padded, like a fraction */
		switch (ref->info->id) {
		case F_EVT_RAWTIME_NS: case F_EVT_LATENCY_NS: case F_EVT_DELTATIME_NS:
		case F_EVT_RELTIME_NS:
			sbuf__padded(out, (int64_t)v->u, 9);
			return;
		default:
			sbuf__u64(out, v->u);
			return;
		}
	case FT_HEX:
		sbuf__hex(out, v->u, 1);
		return;
	case FT_BOOL:
		sbuf__puts(out, v->b ? "true" : "false");
		return;
	case FT_STRING:
		sbuf__append(out, v->s.ptr, v->s.len);
		return;
	case FT_BUFFER:
		buffer__render((const uint8_t *)v->s.ptr, v->s.len, ctx, out);
		return;
	case FT_IPADDR:
		ip__render(out, v->ip.family, v->ip.addr);
		return;
	case FT_ABSTIME:
		time__render(ref, v->u, ctx, out);
		return;
	default:
		return;
	}
}

bool field_ref__is_ascii(const struct field_ref *ref)
{
	uint16_t id = ref->info->id;

	return id == F_EVT_INFO || id == F_EVT_ARGS || id == F_EVT_ARG;
}

int field__append(const struct field_ref *ref, const struct ievt *ev, struct field_ctx *ctx,
		  struct sbuf *out)
{
	struct field_value v;
	int r;

	switch (ref->info->id) {
	case F_EVT_INFO:
	case F_EVT_ARGS:
		params__render_info(ev, ctx, out);
		return 0;
	case F_EVT_ARG:
		r = field__param_index(ref, ev);
		if (r < 0)
			return -ENOENT;
		param__render(ev, (uint32_t)r, ctx, out, PM_ARG);
		return 0;
	default:
		r = field__extract(ref, ev, ctx, 0, &v);
		if (r)
			return r;
		field__render(ref, &v, ctx, out);
		return 0;
	}
}
