/* Internal to the field modules: field ids and the param renderer. */
#ifndef FIELDS_INT_H
#define FIELDS_INT_H

#include "fields.h"

/* Index of a field's class in field_classes. */
enum field_class_id { C_EVT, C_PROC, C_USER, C_GROUP, C_CONTAINER, C_FD, C_SYSCALL, C_K8S };

enum field_id {
	F_EVT_NUM, F_EVT_TIME, F_EVT_TIME_S, F_EVT_TIME_ISO8601, F_EVT_DATETIME,
	F_EVT_DATETIME_S, F_EVT_RAWTIME, F_EVT_RAWTIME_S, F_EVT_RAWTIME_NS,
	F_EVT_OUTPUTTIME, F_EVT_LATENCY, F_EVT_LATENCY_S, F_EVT_LATENCY_NS,
	F_EVT_DIR, F_EVT_TYPE, F_EVT_CATEGORY, F_EVT_CPU, F_EVT_ARGS, F_EVT_ARG,
	F_EVT_RAWARG, F_EVT_INFO, F_EVT_BUFFER, F_EVT_BUFLEN, F_EVT_RES,
	F_EVT_RAWRES, F_EVT_FAILED, F_EVT_IS_IO, F_EVT_IS_IO_READ,
	F_EVT_IS_IO_WRITE, F_EVT_IO_DIR, F_EVT_IS_WAIT,
	F_EVT_DELTATIME, F_EVT_DELTATIME_S, F_EVT_DELTATIME_NS, F_EVT_RELTIME,
	F_EVT_RELTIME_S, F_EVT_RELTIME_NS, F_EVT_LATENCY_HUMAN, F_EVT_TYPE_IS,
	F_EVT_IS_OPEN_READ, F_EVT_IS_OPEN_WRITE, F_EVT_IS_OPEN_EXEC,
	F_EVT_COUNT, F_EVT_COUNT_ERROR, F_EVT_COUNT_ERROR_FILE, F_EVT_COUNT_ERROR_NET,
	F_EVT_COUNT_ERROR_MEMORY, F_EVT_COUNT_ERROR_OTHER, F_EVT_COUNT_EXIT,

	F_PROC_PID, F_PROC_EXE, F_PROC_NAME, F_PROC_ARGS, F_PROC_CMDLINE,
	F_PROC_EXELINE, F_PROC_CWD, F_PROC_PPID, F_PROC_PNAME, F_PROC_PCMDLINE,
	F_PROC_APID, F_PROC_ANAME, F_PROC_DURATION, F_PROC_TTY, F_PROC_EXEPATH,
	F_PROC_VPID, F_PROC_SID, F_PROC_LOGINUID, F_PROC_VPGID, F_PROC_SNAME,
	F_PROC_NTHREADS, F_PROC_NCHILDS,

	F_THREAD_TID, F_THREAD_VTID, F_THREAD_ISMAIN, F_THREAD_CGROUPS,

	F_USER_UID, F_USER_NAME, F_USER_LOGINUID, F_USER_LOGINNAME, F_USER_HOMEDIR,
	F_USER_SHELL,
	F_GROUP_GID, F_GROUP_NAME,

	F_FD_NUM, F_FD_TYPE, F_FD_TYPECHAR, F_FD_NAME, F_FD_DIRECTORY,
	F_FD_FILENAME, F_FD_IP, F_FD_CIP, F_FD_SIP, F_FD_LIP, F_FD_RIP, F_FD_DIP,
	F_FD_PORT, F_FD_CPORT, F_FD_SPORT, F_FD_LPORT, F_FD_RPORT, F_FD_DPORT,
	F_FD_L4PROTO, F_FD_SOCKFAMILY, F_FD_IS_SERVER, F_FD_DEV, F_FD_DEV_MAJOR,
	F_FD_DEV_MINOR,

	F_SYSCALL_TYPE,

	F_CONTAINER_ID, F_CONTAINER_FULL_ID, F_CONTAINER_NAME, F_CONTAINER_IMAGE,
	F_CONTAINER_IMAGE_ID, F_CONTAINER_TYPE, F_CONTAINER_PRIVILEGED,
	F_CONTAINER_IMAGE_REPOSITORY, F_CONTAINER_IMAGE_TAG, F_CONTAINER_IMAGE_DIGEST,

	F_K8S_POD_NAME, F_K8S_POD_ID, F_K8S_POD_UID, F_K8S_NS_NAME,

	F__COUNT
};

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
