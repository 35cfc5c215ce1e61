/* evt.* fields. */
#include <errno.h>
#include <pthread.h>

#include "fields_int.h"

/* Per event code, the index of a few params fields look for, 0xff if none:
 * "data" (evt.buffer) of exit events, and "flags" and "mode" of the open-like
 * events (evt.is_open_*). */
static uint8_t data_idx[PPM_EVENT_MAX], oflags_idx[PPM_EVENT_MAX], omode_idx[PPM_EVENT_MAX];
static pthread_once_t data_idx_once = PTHREAD_ONCE_INIT;

/* sysdig looks at the open, openat (new exit; old enter, which holds the flags)
 * and openat2 events. */
static bool event__is_open(unsigned t)
{
	return t == PPME_SYSCALL_OPEN_X || t == PPME_SYSCALL_OPENAT_E ||
	       t == PPME_SYSCALL_OPENAT_2_X || t == PPME_SYSCALL_OPENAT2_X;
}

static void data_idx__init(void)
{
	for (unsigned t = 0; t < PPM_EVENT_MAX; t++) {
		const struct ppm_event_info *ei = &schema_events[t];

		data_idx[t] = PPME_IS_EXIT(t) ? schema__param_index(ei, "data", PT_BYTEBUF) : 0xff;
		oflags_idx[t] = event__is_open(t) ? schema__param_index(ei, "flags", PT_FLAGS32)
						  : 0xff;
		omode_idx[t] = event__is_open(t) ? schema__param_index(ei, "mode", PT_UINT32) : 0xff;
	}
}

/* Param I of EV as an unsigned 32-bit value, if present. */
static bool param__u32(const struct ievt *ev, uint8_t i, uint32_t *v)
{
	if (i == 0xff || i >= ev->params.n || ev->params.len[i] != 4)
		return false;
	*v = schema__u32(ev->params.val[i]);
	return true;
}

/* evt.is_open_read / _write / _exec. */
static bool open__is(const struct ievt *ev, uint16_t id)
{
	uint32_t flags, mode;

	pthread_once(&data_idx_once, data_idx__init);
	if (ev->type >= PPM_EVENT_MAX || !param__u32(ev, oflags_idx[ev->type], &flags))
		return false;
	switch (id) {
	case F_EVT_IS_OPEN_READ:
		return flags & PPM_FILE_FLAGS_O_RDONLY;
	case F_EVT_IS_OPEN_WRITE:
		return flags & PPM_FILE_FLAGS_O_WRONLY;
	default:
		/* created with any of the execute bits 0111 */
		return (flags & PPM_FILE_FLAGS_O_CREAT) &&
		       param__u32(ev, omode_idx[ev->type], &mode) && (mode & 0111);
	}
}

static int event__buffer(const struct ievt *ev, const uint8_t **p, uint16_t *len)
{
	uint8_t i;

	pthread_once(&data_idx_once, data_idx__init);
	if (ev->type >= PPM_EVENT_MAX)
		return -ENOENT;
	i = data_idx[ev->type];
	if (i == 0xff || i >= ev->params.n)
		return -ENOENT;
	*p = ev->params.val[i];
	*len = ev->params.len[i];
	return 0;
}

/* The result of an exit event: the parser's, or else an integer first param
 * named "res" (brk and mmap return addresses, not errnos). */
static bool event__result(const struct ievt *ev, int64_t *res)
{
	if (ev->has_res) {
		*res = ev->res;
		return true;
	}
	if (!PPME_IS_EXIT(ev->type) || !ev->info || ev->params.n < 1 || ev->info->nparams < 1 ||
	    strcmp(ev->info->params[0].name, "res") != 0)
		return false;
	return schema__param_int(ev->info->params[0].type, ev->params.val[0],
				 ev->params.len[0], res) == 0;
}

/* evt.count.error.*: 1 for a failed exit event of that kind. Kinds go by the
 * fd's type when the event has an fd, else by what the event is. */
static int error__count(const struct ievt *ev, uint16_t id, struct field_value *out)
{
	uint16_t cat = ev->info ? ev->info->category : EC_UNKNOWN;
	uint32_t flags = ev->info ? ev->info->flags : 0;
	bool file, net, mem;
	int64_t res;

	if (!PPME_IS_EXIT(ev->type) || !event__result(ev, &res) || res >= 0)
		return -ENOENT;
	if (ev->fd) {
		file = ev->fd->type == FDT_FILE || ev->fd->type == FDT_DIRECTORY;
		net = ev->fd->type == FDT_IPV4_SOCK || ev->fd->type == FDT_IPV6_SOCK ||
		      ev->fd->type == FDT_UNIX_SOCK;
	} else {
		file = cat == EC_FILE && (flags & EF_CREATES_FD);
		net = cat == EC_NET;
	}
	mem = cat == EC_MEMORY;
	switch (id) {
	case F_EVT_COUNT_ERROR_FILE:
		return file ? value__u64(out, 1) : -ENOENT;
	case F_EVT_COUNT_ERROR_NET:
		return net ? value__u64(out, 1) : -ENOENT;
	case F_EVT_COUNT_ERROR_MEMORY:
		return mem ? value__u64(out, 1) : -ENOENT;
	case F_EVT_COUNT_ERROR_OTHER:
		return file || net || mem ? -ENOENT : value__u64(out, 1);
	default:
		return value__u64(out, 1);
	}
}

/* Nanoseconds since the previous event this context extracted a field of:
 * sysdig's evt.deltatime counts from the previous event shown. */
static uint64_t delta__ns(struct field_ctx *ctx, const struct ievt *ev)
{
	if (ctx->delta_num != ev->num || !ctx->delta_ts) {
		ctx->delta_prev_ts = ctx->delta_ts ? ctx->delta_ts : ev->ts;
		ctx->delta_ts = ev->ts;
		ctx->delta_num = ev->num;
	}
	return ev->ts > ctx->delta_prev_ts ? ev->ts - ctx->delta_prev_ts : 0;
}

static bool category__is_io(uint16_t cat)
{
	return cat == EC_IO_READ || cat == EC_IO_WRITE || cat == EC_IO_OTHER;
}

const char *event_category__name(const struct ievt *ev)
{
	uint16_t cat;

	if (!ev->info)
		return "unknown";
	cat = ev->info->category;
	/* generic events take their syscall's category */
	if ((ev->type == PPME_GENERIC_E || ev->type == PPME_GENERIC_X) && ev->params.n >= 1 &&
	    ev->params.len[0] == 2 && schema__u16(ev->params.val[0]) < PPM_SC_MAX)
		cat = schema_ppm_sc[schema__u16(ev->params.val[0])].category;
	switch (cat) {
	case EC_OTHER: return "other";
	case EC_FILE: return "file";
	case EC_NET: return "net";
	case EC_IPC: return "IPC";
	case EC_MEMORY: return "memory";
	case EC_PROCESS: return "process";
	case EC_SLEEP: return "sleep";
	case EC_SYSTEM: return "system";
	case EC_SIGNAL: return "signal";
	case EC_USER: return "user";
	case EC_TIME: return "time";
	case EC_PROCESSING: return "processing";
	case EC_WAIT: return "wait";
	case EC_SCHEDULER: return "scheduler";
	case EC_INTERNAL: return "internal";
	case EC_IO_READ:
	case EC_IO_WRITE:
	case EC_IO_OTHER:
		/* I/O takes the kind of the fd it works on */
		if (!ev->fd)
			return "unknown";
		switch (ev->fd->type) {
		case FDT_FILE: case FDT_DIRECTORY:
			return "file";
		case FDT_IPV4_SOCK: case FDT_IPV6_SOCK:
			return "net";
		case FDT_UNIX_SOCK: case FDT_PIPE: case FDT_EVENT: case FDT_SIGNALFD:
		case FDT_INOTIFY:
			return "ipc";
		default:
			return "other";
		}
	default:
		return "unknown";
	}
}

/* Param index a FARG_PARAM/FARG_NAME reference points at for EV, or -1. */
int field__param_index(const struct field_ref *ref, const struct ievt *ev)
{
	int idx;

	if (ref->param_idx)
		idx = ev->type < PPM_EVENT_MAX ? ref->param_idx[ev->type] : 0xff;
	else
		idx = ref->index;
	if (idx < 0 || idx == 0xff || (uint32_t)idx >= ev->params.n || !ev->info ||
	    (uint32_t)idx >= ev->info->nparams)
		return -1;
	return idx;
}

static int rawarg__extract(const struct ievt *ev, int idx, struct field_ctx *ctx,
			   struct field_value *out)
{
	const struct ppm_param_info *pi = &ev->info->params[idx];
	const uint8_t *val = ev->params.val[idx];
	uint16_t len = ev->params.len[idx];
	const void *nul;
	int64_t v;

	switch (pi->type) {
	case PT_CHARBUF: case PT_FSPATH: case PT_FSRELPATH:
		nul = memchr(val, 0, len);
		return value__str(out, (const char *)val,
				  nul ? (size_t)((const uint8_t *)nul - val) : len);
	case PT_BYTEBUF:
		out->type = FT_BUFFER;
		out->s.ptr = (const char *)val;
		out->s.len = len;
		return 0;
	default:
		break;
	}
	if (schema__param_int(pi->type, val, len, &v) == 0) {
		switch (pi->type) {
		case PT_INT8: case PT_INT16: case PT_INT32: case PT_INT64:
		case PT_ERRNO: case PT_FD: case PT_PID:
			return value__i64(out, v);
		default:
			return value__u64(out, (uint64_t)v);
		}
	}
	sbuf__reset(&ctx->scratch);
	param__render(ev, (uint32_t)idx, ctx, &ctx->scratch, PM_RAW);
	if (ctx->scratch.err)
		return ctx->scratch.err;
	return value__str(out, ctx->scratch.buf ? ctx->scratch.buf : "", ctx->scratch.len);
}

int fields__extract_evt(const struct field_ref *ref, const struct ievt *ev,
			struct field_ctx *ctx, unsigned n, struct field_value *out)
{
	uint32_t flags = ev->info ? ev->info->flags : 0;
	const uint8_t *buf;
	uint16_t buflen;
	int64_t res;
	int idx;

	if (n)
		return -ENOENT;
	switch (ref->info->id) {
	case F_EVT_NUM:
		return value__u64(out, ev->num);
	case F_EVT_TIME: case F_EVT_TIME_S: case F_EVT_TIME_ISO8601:
	case F_EVT_DATETIME: case F_EVT_DATETIME_S: case F_EVT_OUTPUTTIME:
		out->type = FT_ABSTIME;
		out->u = ev->ts;
		return 0;
	case F_EVT_RAWTIME:
		return value__u64(out, ev->ts);
	case F_EVT_RAWTIME_S:
		return value__u64(out, ev->ts / 1000000000ULL);
	case F_EVT_RAWTIME_NS:
		return value__u64(out, ev->ts % 1000000000ULL);
	case F_EVT_LATENCY:
		return value__u64(out, ev->latency);
	case F_EVT_LATENCY_S:
		return value__u64(out, ev->latency / 1000000000ULL);
	case F_EVT_LATENCY_NS:
		return value__u64(out, ev->latency % 1000000000ULL);
	case F_EVT_DIR:
		return value__str(out, PPME_IS_ENTER(ev->type) ? ">" : "<", 1);
	case F_EVT_TYPE:
		if (ev->name)
			return value__cstr(out, ev->name);
		if (ev->info && ev->info->name)
			return value__cstr(out, ev->info->name);
		return -ENOENT;
	case F_EVT_CATEGORY:
		return value__cstr(out, event_category__name(ev));
	case F_EVT_CPU:
		return value__i64(out, ev->cpu);
	case F_EVT_ARGS:
	case F_EVT_INFO:
		sbuf__reset(&ctx->scratch);
		params__render_info(ev, ctx, &ctx->scratch);
		if (ctx->scratch.err)
			return ctx->scratch.err;
		return value__str(out, ctx->scratch.buf ? ctx->scratch.buf : "", ctx->scratch.len);
	case F_EVT_ARG:
		idx = field__param_index(ref, ev);
		if (idx < 0)
			return -ENOENT;
		sbuf__reset(&ctx->scratch);
		param__render(ev, (uint32_t)idx, ctx, &ctx->scratch, PM_ARG);
		if (ctx->scratch.err)
			return ctx->scratch.err;
		return value__str(out, ctx->scratch.buf ? ctx->scratch.buf : "", ctx->scratch.len);
	case F_EVT_RAWARG:
		idx = field__param_index(ref, ev);
		if (idx < 0)
			return -ENOENT;
		return rawarg__extract(ev, idx, ctx, out);
	case F_EVT_BUFFER:
		if (event__buffer(ev, &buf, &buflen))
			return -ENOENT;
		out->type = FT_BUFFER;
		out->s.ptr = (const char *)buf;
		out->s.len = buflen;
		return 0;
	case F_EVT_BUFLEN:
		/* as sysdig: the byte count an I/O syscall returned (a read of 832
		 * bytes has buflen 832 even when 80 were captured) */
		if (!ev->info || !category__is_io(ev->info->category) || !ev->fd ||
		    !event__result(ev, &res) || res < 0)
			return -ENOENT;
		return value__u64(out, (uint64_t)res);
	case F_EVT_RES:
		if (!event__result(ev, &res))
			return -ENOENT;
		if (res >= 0)
			return value__str(out, "SUCCESS", 7);
		/* a result that is not an errno type (mmap's address): sysdig
		 * shows the param as printed, e.g. FFFFFFFFFFFFFFEA */
		if (!ev->has_res) {
			sbuf__reset(&ctx->scratch);
			param__render(ev, 0, ctx, &ctx->scratch, PM_ARG);
			if (ctx->scratch.err)
				return ctx->scratch.err;
			return value__str(out, ctx->scratch.buf ? ctx->scratch.buf : "",
					  ctx->scratch.len);
		}
		if (errno__name(res))
			return value__cstr(out, errno__name(res));
		sbuf__reset(&ctx->scratch);
		sbuf__i64(&ctx->scratch, res);
		if (ctx->scratch.err)
			return ctx->scratch.err;
		return value__str(out, ctx->scratch.buf, ctx->scratch.len);
	case F_EVT_RAWRES:
		if (!event__result(ev, &res))
			return -ENOENT;
		return value__i64(out, res);
	case F_EVT_FAILED:
		return value__bool(out, event__result(ev, &res) && res < 0);
	case F_EVT_IS_IO:
		return value__bool(out, flags & (EF_READS_FROM_FD | EF_WRITES_TO_FD));
	case F_EVT_IS_IO_READ:
		return value__bool(out, flags & EF_READS_FROM_FD);
	case F_EVT_IS_IO_WRITE:
		return value__bool(out, flags & EF_WRITES_TO_FD);
	case F_EVT_IO_DIR:
		if (flags & EF_READS_FROM_FD)
			return value__str(out, "read", 4);
		if (flags & EF_WRITES_TO_FD)
			return value__str(out, "write", 5);
		return -ENOENT;
	case F_EVT_IS_WAIT:
		return value__bool(out, flags & EF_WAITS);
	case F_EVT_DELTATIME:
		return value__u64(out, delta__ns(ctx, ev));
	case F_EVT_DELTATIME_S:
		return value__u64(out, delta__ns(ctx, ev) / 1000000000ULL);
	case F_EVT_DELTATIME_NS:
		return value__u64(out, delta__ns(ctx, ev) % 1000000000ULL);
	case F_EVT_RELTIME: case F_EVT_RELTIME_S: case F_EVT_RELTIME_NS:
		if (!ev->first_ts || ev->ts < ev->first_ts)
			return -ENOENT;
		res = (int64_t)(ev->ts - ev->first_ts);
		if (ref->info->id == F_EVT_RELTIME_S)
			res /= 1000000000LL;
		else if (ref->info->id == F_EVT_RELTIME_NS)
			res %= 1000000000LL;
		return value__u64(out, (uint64_t)res);
	case F_EVT_LATENCY_HUMAN:
		return value__human_ns(out, ev->latency, ctx);
	case F_EVT_TYPE_IS:
		if (!ref->param_idx || ev->type >= PPM_EVENT_MAX)
			return -ENOENT;
		return value__u64(out, ref->param_idx[ev->type]);
	case F_EVT_IS_OPEN_READ: case F_EVT_IS_OPEN_WRITE: case F_EVT_IS_OPEN_EXEC:
		return value__bool(out, open__is(ev, ref->info->id));
	case F_EVT_COUNT:
		return value__u64(out, 1);
	case F_EVT_COUNT_ERROR: case F_EVT_COUNT_ERROR_FILE: case F_EVT_COUNT_ERROR_NET:
	case F_EVT_COUNT_ERROR_MEMORY: case F_EVT_COUNT_ERROR_OTHER:
		return error__count(ev, ref->info->id, out);
	case F_EVT_COUNT_EXIT:
		return PPME_IS_EXIT(ev->type) ? value__u64(out, 1) : -ENOENT;
	case F_SYSCALL_TYPE:
		/* absent for context switches and internal events (sysdig 0.29.3
		 * still names procexit) */
		if (!ev->info || !ev->name || ev->info->category == EC_SCHEDULER ||
		    ev->info->category == EC_INTERNAL)
			return -ENOENT;
		return value__cstr(out, ev->name);
	default:
		return -ENOENT;
	}
}
