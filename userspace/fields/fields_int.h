/* Internal to the field modules: the param renderer, per-class extractors and
 * value helpers. */
#ifndef FIELDS_INT_H
#define FIELDS_INT_H

#include "field_ids.h"
#include "fields.h"

/* How a param is rendered: sysdig keeps a value and an optional "resolved" text
 * (fd=3 and <f>/etc/passwd). */
enum param_mode {
	PM_INFO,	/* value(resolved), as in evt.info */
	PM_ARG,		/* resolved if there is one, else the value (evt.arg) */
	PM_RAW,		/* the value only */
};

/* Appends param IDX of EV rendered in MODE. */
void param__render(const struct ievt *ev, uint32_t idx, struct field_ctx *ctx,
		   struct sbuf *out, enum param_mode mode);

/* Appends all params as "name=value " pairs (evt.info / evt.args). */
void params__render_info(const struct ievt *ev, struct field_ctx *ctx, struct sbuf *out);

/* Appends a byte buffer as BUFFER params print (limit and format from CTX). */
void buffer__render(const uint8_t *p, uint32_t len, struct field_ctx *ctx, struct sbuf *out);

/* Appends a string keeping only printable ASCII (sysdig drops the rest). */
void text__append_clean(struct sbuf *out, const char *s, size_t len);

/* Appends an IPv4 (4 bytes) or IPv6 (16 bytes) address as inet_ntop does. */
void ip__render(struct sbuf *out, int family, const uint8_t *addr);

/* Field-specific extractors, one file per class. */
int fields__extract_evt(const struct field_ref *ref, const struct ievt *ev,
			struct field_ctx *ctx, unsigned n, struct field_value *out);
int fields__extract_proc(const struct field_ref *ref, const struct ievt *ev,
			 struct field_ctx *ctx, unsigned n, struct field_value *out);
int fields__extract_fd(const struct field_ref *ref, const struct ievt *ev,
		       struct field_ctx *ctx, unsigned n, struct field_value *out);
int fields__extract_container(const struct field_ref *ref, const struct ievt *ev,
			      struct field_ctx *ctx, unsigned n, struct field_value *out);
int fields__extract_req(const struct field_ref *ref, const struct ievt *ev,
			struct field_ctx *ctx, unsigned n, struct field_value *out);
int fields__extract_tcp(const struct field_ref *ref, const struct ievt *ev,
			struct field_ctx *ctx, unsigned n, struct field_value *out);

/* The ends of a request or a TCP connection (fields_req.c): "ip:port" text,
 * the address, the process name and the container (or pod) name of a local
 * end; -ENOENT where an end has none. STR__SOME: S, or -ENOENT when empty. */
struct req_end;
int req_end__text(struct field_ctx *ctx, int family, const struct req_end *e,
		  struct field_value *out);
int req_end__ip(int family, const struct req_end *e, struct field_value *out);
int req_end__container(const struct req_end *e, bool pod, struct field_value *out);
int req_end__proc(const struct req_end *e, struct field_value *out);
int str__some(struct field_value *out, const char *s);

/* N as sysdig's evt.latency.human writes it (3.89us, 11ms, 812ns), and a byte
 * count by the same rule (89B, 1.04MB), into CTX's scratch. */
struct human_unit {
	uint64_t div;
	const char *unit;
};
int value__human_ns(struct field_value *out, uint64_t ns, struct field_ctx *ctx);
int value__human_bytes(struct field_value *out, uint64_t bytes, struct field_ctx *ctx);

/* Param index an evt.arg / evt.rawarg reference points at for EV, or -1. */
int field__param_index(const struct field_ref *ref, const struct ievt *ev);

/* The thread of process PID's parent (main thread), or NULL. */
struct thread_info *thread__parent(struct field_ctx *ctx, const struct thread_info *ti);

/* A thread's name; sysdig names threads it knows only by tid "<NA>". */
static inline const char *thread__comm(const struct thread_info *ti, size_t *len)
{
	*len = strnlen(ti->comm, sizeof(ti->comm));
	if (*len)
		return ti->comm;
	*len = 4;
	return "<NA>";
}

static inline int value__str(struct field_value *v, const char *p, size_t len)
{
	v->type = FT_STRING;
	v->s.ptr = p;
	v->s.len = (uint32_t)len;
	return 0;
}

static inline int value__cstr(struct field_value *v, const char *p)
{
	return value__str(v, p, strlen(p));
}

static inline int value__i64(struct field_value *v, int64_t i)
{
	v->type = FT_INT64;
	v->i = i;
	return 0;
}

static inline int value__u64(struct field_value *v, uint64_t u)
{
	v->type = FT_UINT64;
	v->u = u;
	return 0;
}

static inline int value__bool(struct field_value *v, bool b)
{
	v->type = FT_BOOL;
	v->b = b;
	return 0;
}

#endif
