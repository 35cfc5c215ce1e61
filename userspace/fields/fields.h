/* The field catalogue (evt.*, proc.*, thread.*, fd.*, user.*, group.*) and field
 * extraction from parsed events, shared by filters and output formats. Names,
 * meanings and text renderings follow sysdig 0.29.3. */
#ifndef FIELDS_H
#define FIELDS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "inspect.h"
#include "sbuf.h"

struct req_record;	/* requests/req_record.h */
struct tcp_record;	/* tcp/tcp_record.h */

/* What a compile step (field name, filter, output format) found wrong. */
struct filter_error {
	int column;		/* 1-based, 0 when not about a position */
	char msg[256];
};

/* Fills ERR (if not NULL) with COLUMN and a message; returns -EINVAL. */
int filter_error__set(struct filter_error *err, int column, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

enum field_type {
	FT_INT64,
	FT_UINT64,
	FT_BOOL,
	FT_STRING,
	FT_BUFFER,	/* bytes that may hold NULs (evt.buffer) */
	FT_IPADDR,
	FT_ABSTIME,	/* ns since the epoch: text as a time, JSON as a number */
	FT_PARAM,	/* evt.rawarg: the type of the event's param */
	FT_HEX,		/* a number printed in hex (fd.dev); a string in JSON */
};

enum field_arg {
	FARG_NONE,
	FARG_INDEX,		/* proc.apid[N]: an index; without one, filters match any */
	FARG_PARAM,		/* evt.arg[N] or evt.arg.NAME: required */
	FARG_NAME,		/* evt.rawarg.NAME (or [N]): required */
	FARG_EVTYPE,		/* evt.type.is.NAME: an event name, required */
};

enum field_flags {
	FF_FILTER_ONLY = 1 << 0,	/* fd.ip, fd.port: no single value to print */
	FF_MULTI = 1 << 1,		/* may yield several values to match against */
	FF_EXTENSION = 1 << 2,		/* ours, not in sysdig 0.29.3 */
	FF_DURATION = 1 << 3,		/* ns: filters take 100ms, 2s, 250us */
};

/* The values a numeric field can take when narrower than its type: filters
 * reject numbers outside them (fd.sport = 70000 could never match). */
enum field_range {
	FR_TYPE,	/* the whole range of the type */
	FR_U16,		/* ports, CPUs */
	FR_U32,
	FR_S32,		/* pids, tids, fds: the kernel's int */
	FR_ID32,	/* uid_t, gid_t: 0..4294967295, -1 being (uid_t)-1, "unset" */
};

struct field_info {
	const char *name;
	uint16_t id;		/* enum field_id (fields_table.c) */
	uint8_t type;		/* enum field_type */
	uint8_t arg;		/* enum field_arg */
	uint8_t flags;		/* enum field_flags */
	uint8_t cls;		/* index into field_classes */
	uint8_t range;		/* enum field_range, numeric types only */
	const char *desc;
};

struct field_class {
	const char *name;
	const char *desc;
};

extern const struct field_info field_table[];
extern const unsigned field_table_len;
extern const struct field_class field_classes[];
extern const unsigned field_classes_len;

/* The field called NAME exactly (no argument), or NULL. */
const struct field_info *fields__find(const char *name, size_t len);

/* A field as named in a filter or format, with its argument resolved. */
struct field_ref {
	const struct field_info *info;
	int32_t index;		/* [N], -1 when none */
	char *argname;		/* .NAME, owned, NULL when none */
	/* FARG_PARAM/FARG_NAME by name: the param index per event code, 0xff when
	 * that event has no such param; owned */
	uint8_t *param_idx;
	uint32_t text_len;	/* how many characters of the source it spans */
};

/* Parses the field at the start of S: "proc.name", "evt.arg[0]", "evt.arg.fd",
 * "proc.aname[2]". COLUMN is S's 1-based column, for messages. FLAGS:
 * FREF_FORMAT in output formats, where a '[' after a field that takes no
 * argument is literal text. Returns 0 or -EINVAL with ERR filled (unknown field
 * names get the closest known names). */
#define FREF_FORMAT 1u
int field_ref__parse(const char *s, int column, unsigned flags, struct field_ref *ref,
		     struct filter_error *err);
void field_ref__fini(struct field_ref *ref);
/* Copies SRC into DST (own copies of the argument tables). 0 or -ENOMEM. */
int field_ref__copy(struct field_ref *dst, const struct field_ref *src);
/* Writes the canonical name ("evt.arg.fd", "proc.aname[2]") into BUF. */
void field_ref__name(const struct field_ref *ref, char *buf, size_t size);

/* How BYTEBUF params and evt.buffer are printed (sysdig -A, -x, -X, -b). */
enum buf_format {
	BUF_NORMAL,	/* printable ASCII, anything else as '.' */
	BUF_ASCII,	/* like NORMAL but keeps newlines and tabs */
	BUF_HEX,	/* hex byte pairs */
	BUF_HEXASCII,	/* hex byte pairs then the NORMAL text */
	BUF_BASE64,
};

/* Extraction state: what fields need besides the event, and reusable scratch
 * memory, so that extracting does not allocate after warm-up. One per thread. */
struct field_ctx {
	struct thread_table *threads;	/* ancestors, PID names; may be NULL */
	uint32_t buf_limit;		/* buffers longer than this print truncated
					 * with "..." (sysdig: 80); 0: no limit */
	enum buf_format buf_format;
	struct sbuf scratch;		/* strings returned by field__extract */
	struct sbuf tmp;		/* formatters' scratch (never holds a
					 * value returned by field__extract) */
	/* evt.deltatime: the time of the event extracted last and of the one
	 * before it (sysdig counts from the previous event that was shown) */
	uint64_t delta_num, delta_ts, delta_prev_ts;
	/* The request record the fields describe (req.*), NULL for events. */
	const struct req_record *req;
	/* The TCP record the fields describe (tcp.*), NULL for other events. */
	const struct tcp_record *tcp;
	/* local time of the last second rendered */
	int64_t time_sec;
	char time_hms[16];		/* "HH:MM:SS" */
	char time_ymd[16];		/* "YYYY-MM-DD" */
};

void field_ctx__init(struct field_ctx *ctx, struct thread_table *threads);
void field_ctx__fini(struct field_ctx *ctx);

struct field_value {
	uint8_t type;		/* enum field_type, never FT_PARAM */
	union {
		int64_t i;
		uint64_t u;	/* FT_UINT64, FT_ABSTIME, FT_HEX */
		bool b;
		struct {
			const char *ptr;	/* not always NUL-terminated */
			uint32_t len;
		} s;			/* FT_STRING, FT_BUFFER */
		struct {
			uint8_t family;	/* PPM_AF_INET or PPM_AF_INET6 */
			uint8_t addr[16];
		} ip;
	};
};

/* Extracts value N (0 for single-valued fields; FF_MULTI fields have more) of a
 * field for EV. Returns 0, or -ENOENT when absent (sysdig prints <NA>). String
 * values point into the event, the state tables or CTX's scratch, valid until
 * the next call with CTX. */
int field__extract(const struct field_ref *ref, const struct ievt *ev, struct field_ctx *ctx,
		   unsigned n, struct field_value *out);

/* Appends the text of a value as sysdig prints it with -p. */
void field__render(const struct field_ref *ref, const struct field_value *v,
		   struct field_ctx *ctx, struct sbuf *out);

/* field__extract then field__render in one step; fields rendered from params
 * (evt.info, evt.args, evt.arg) go straight to OUT without a scratch copy.
 * Returns 0, or -ENOENT with nothing appended. */
int field__append(const struct field_ref *ref, const struct ievt *ev, struct field_ctx *ctx,
		  struct sbuf *out);

/* True for fields whose text is always printable ASCII (evt.info, evt.args,
 * evt.arg): JSON needs to escape only quotes and backslashes in them. */
bool field_ref__is_ascii(const struct field_ref *ref);

/* sysdig -l / -L style listings, for the agent's -l and -L. */
void fields__list(FILE *f);
void events__list(FILE *f);

/* Names used when rendering, exposed for tests and other modules. */
const char *errno__name(int64_t err);		/* "ENOENT", or NULL */
const char *signal__name(uint64_t sig);		/* "SIGKILL", or NULL */
const char *event_category__name(const struct ievt *ev);	/* evt.category */

#endif
