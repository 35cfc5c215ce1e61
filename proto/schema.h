/* The event schema as userspace sees it: parameter types, event descriptions and
 * safe access to the parameters of an event frame. Tables are generated from
 * the proto tables into schema_table.c. */
#ifndef SCHEMA_H
#define SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ppm_wire.h"
#include "schema_syscalls.h"

/* Parameter types: the numbers are wire values (docs/formats.md, "Type numbers"). */
enum ppm_param_type {
	PT_NONE = 0, PT_INT8 = 1, PT_INT16 = 2, PT_INT32 = 3, PT_INT64 = 4,
	PT_UINT8 = 5, PT_UINT16 = 6, PT_UINT32 = 7, PT_UINT64 = 8, PT_CHARBUF = 9,
	PT_BYTEBUF = 10, PT_ERRNO = 11, PT_SOCKADDR = 12, PT_SOCKTUPLE = 13,
	PT_FD = 14, PT_PID = 15, PT_FDLIST = 16, PT_FSPATH = 17, PT_SYSCALLID = 18,
	PT_SIGTYPE = 19, PT_RELTIME = 20, PT_ABSTIME = 21, PT_PORT = 22,
	PT_L4PROTO = 23, PT_SOCKFAMILY = 24, PT_BOOL = 25, PT_IPV4ADDR = 26,
	PT_DYN = 27, PT_FLAGS8 = 28, PT_FLAGS16 = 29, PT_FLAGS32 = 30, PT_UID = 31,
	PT_GID = 32, PT_DOUBLE = 33, PT_SIGSET = 34, PT_CHARBUFARRAY = 35,
	PT_CHARBUF_PAIR_ARRAY = 36, PT_IPV4NET = 37, PT_IPV6ADDR = 38,
	PT_IPV6NET = 39, PT_IPADDR = 40, PT_IPNET = 41, PT_MODE = 42,
	PT_FSRELPATH = 43,
};

enum ppm_print_format {
	PF_NA = 0, PF_DEC = 1, PF_HEX = 2, PF_10_PADDED_DEC = 3, PF_ID = 4,
	PF_DIR = 5, PF_OCT = 6,
};

enum ppm_event_category {
	EC_UNKNOWN = 0, EC_OTHER = 1, EC_FILE = 2, EC_NET = 3, EC_IPC = 4,
	EC_MEMORY = 5, EC_PROCESS = 6, EC_SLEEP = 7, EC_SYSTEM = 8, EC_SIGNAL = 9,
	EC_USER = 10, EC_TIME = 11, EC_PROCESSING = 12, EC_IO_READ = 32,
	EC_IO_WRITE = 33, EC_IO_OTHER = 34, EC_WAIT = 64, EC_SCHEDULER = 128,
	EC_INTERNAL = 256,
};

enum ppm_event_flags {
	EF_NONE = 0,
	EF_CREATES_FD = 1 << 0,
	EF_DESTROYS_FD = 1 << 1,
	EF_USES_FD = 1 << 2,
	EF_READS_FROM_FD = 1 << 3,
	EF_WRITES_TO_FD = 1 << 4,
	EF_MODIFIES_STATE = 1 << 5,
	EF_UNUSED = 1 << 6,
	EF_WAITS = 1 << 7,
	EF_SKIPPARSERESET = 1 << 8,
	EF_OLD_VERSION = 1 << 9,
	EF_DROP_SIMPLE_CONS = 1 << 10,
	EF_LARGE_PAYLOAD = 1 << 11,
};

struct ppm_name_value {
	const char *name;
	uint32_t value;
};

struct ppm_param_info {
	const char *name;
	uint8_t type;	/* enum ppm_param_type */
	uint8_t fmt;	/* enum ppm_print_format */
	/* FLAGS*: a { NULL, 0 }-terminated array of struct ppm_name_value;
	 * DYN: an array of ninfo struct ppm_param_info, chosen by an index byte. */
	const void *info;
	uint8_t ninfo;
	int8_t dirfd_param;	/* FSRELPATH: index of the dirfd param, else -1 */
	/* PID: a task id the driver read (initial pid namespace), not a number
	 * of the event thread's own namespace */
	bool host_pid;
};

struct ppm_event_info {
	const char *name;
	uint16_t category;	/* enum ppm_event_category */
	uint16_t flags;		/* enum ppm_event_flags */
	uint32_t nparams;
	struct ppm_param_info params[PPM_MAX_EVENT_PARAMS];
};

struct ppm_sc_info {
	const char *name;
	uint16_t category;
	uint16_t flags;
};

struct ppm_flagset_ref {
	const char *name;
	const struct ppm_name_value *values;
};

extern const struct ppm_event_info schema_events[PPM_EVENT_MAX];
extern const char *const schema_event_ids[PPM_EVENT_MAX];
extern const struct syscall_route schema_syscall_routes[SYSCALL_TABLE_SIZE];
extern const char *const schema_syscall_names[SYSCALL_TABLE_SIZE];
extern const struct ppm_sc_info schema_ppm_sc[PPM_SC_MAX];
extern const struct ppm_flagset_ref schema_flagsets[];

/* The description of an event code, or NULL for a code outside the table. */
static inline const struct ppm_event_info *schema__event(uint16_t type)
{
	return type < PPM_EVENT_MAX ? &schema_events[type] : NULL;
}

/* The event code whose identifier (e.g. "SYSCALL_OPENAT_2_E") is ID, or -ENOENT. */
int schema__event_by_id(const char *id);

/* Checks that an event frame of BUFLEN bytes is well formed: header complete, len
 * within BUFLEN, known type, nparams as the table says (older frames may carry
 * fewer), and the length array and params inside len. Returns 0 or -EINVAL. */
int schema__validate(const void *frame, size_t buflen);

/* A parameter of a validated frame: its bytes and length. Walks the length array,
 * so a caller reading many params should use struct schema_params instead. */
int schema__param(const void *frame, uint32_t idx, const uint8_t **val, uint16_t *len);

/* All params of a validated frame, located once. */
struct schema_params {
	uint32_t n;
	const uint8_t *val[PPM_MAX_EVENT_PARAMS];
	uint16_t len[PPM_MAX_EVENT_PARAMS];
};

int schema__params(const void *frame, struct schema_params *out);

/* Unaligned reads of fixed-size params. */
static inline uint64_t schema__u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t schema__u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint16_t schema__u16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* A fixed-size integer param of any PT_* integer type, sign-extended as its type
 * says. Returns -EINVAL when the length does not fit the type. */
int schema__param_int(uint8_t type, const uint8_t *val, uint16_t len, int64_t *out);

/* The index of EI's param called NAME with type TYPE, or 0xff when it has
 * none (tables of param positions by event code are built with it). */
uint8_t schema__param_index(const struct ppm_event_info *ei, const char *name, uint8_t type);

/* The name of a syscall for a generic event's PPM_SC ID, or NULL. */
const char *schema__ppm_sc_name(uint16_t sc);

/* The native (x86_64) syscall number of a generic event with params P: its
 * nativeID param (enter), else the one of its paired enter event ENTER (may be
 * NULL), else the syscall routed to generic with its ID (PPM_SC) code. -1 when
 * none: an exit of a call newer than sysdig's table whose enter was missed. */
int schema__generic_nr(const struct schema_params *p, const struct schema_params *enter);

/* Exit-only capture leaves out the enter event of some calls (UF_EO_SYNTH
 * routes): one without params (SCHEMA_EO_BARE, by the exit event's type), or a
 * generic pair whose ID param names one call (SCHEMA_EO_GENERIC, by that code).
 * The exit event alone carries all of it. */
enum { SCHEMA_EO_NONE, SCHEMA_EO_BARE, SCHEMA_EO_GENERIC };
extern const uint8_t schema_eo_synth[PPM_EVENT_MAX];
extern const int16_t schema_eo_sc_nr[PPM_SC_MAX];	/* native number, or -1 */

/* The largest enter frame schema__eo_enter builds (the generic one). */
#define SCHEMA_EO_ENTER_MAX (PPM_HDR_LEN + 2 * 2 + 2 + 2)

/* Whether an exit frame of TYPE may have had its enter left out: the one test
 * per event before schema__eo_enter. */
static inline bool schema__eo_maybe(uint16_t type)
{
	return type < PPM_EVENT_MAX && schema_eo_synth[type];
}

/* Rebuilds, into BUF (SIZE >= SCHEMA_EO_ENTER_MAX bytes), the enter frame that
 * exit-only capture left out for the exit frame EXIT of LEN bytes: same time
 * and thread, the enter type, its params from the exit's. Returns the enter
 * frame's length, 0 when EXIT's enter was not left out, -EINVAL when EXIT is
 * too short for what it claims (the caller's validation then rejects it). */
int schema__eo_enter(const void *exit, size_t len, void *buf, size_t size);

/* The flagset named NAME, or NULL. */
const struct ppm_name_value *schema__flagset(const char *name);

#endif
