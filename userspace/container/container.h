/* Containers: which container a thread is in, from its cgroup paths, and the
 * names the runtimes keep on disk (HOST_ROOT), read once per container. */
#ifndef CONTAINER_H
#define CONTAINER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* sysdig's container type numbers: capture files carry them. */
enum container_type {
	CT_DOCKER = 0,
	CT_LXC = 1,
	CT_LIBVIRT_LXC = 2,
	CT_MESOS = 3,
	CT_RKT = 4,
	CT_CUSTOM = 5,
	CT_CRI = 6,
	CT_CONTAINERD = 7,
	CT_CRIO = 8,
	CT_BPM = 9,
	CT_STATIC = 10,
	CT_PODMAN = 11,
	CT__COUNT
};

/* container.type as sysdig prints it ("docker", "cri-o", ...); NULL if unknown. */
const char *container_type__name(unsigned type);

#define CONTAINER_ID_MAX 64	/* a full id: 64 hex digits, or an LXC name */
#define CONTAINER_SHORT_ID 12	/* container.id of a hex id */
#define CONTAINER_POD_UID_MAX 36

/* A container as its cgroup path names it. */
struct container_ident {
	uint8_t type;				/* enum container_type */
	bool ambiguous;				/* a bare id several runtimes use:
						 * TYPE is a guess the files settle */
	char id[CONTAINER_ID_MAX + 1];		/* full id */
	char pod_uid[CONTAINER_POD_UID_MAX + 1];	/* from a kubepods path, or "" */
};

/* The container that cgroup path PATH (LEN bytes, not NUL-terminated) names, if
 * any. The deepest path component that names one wins (a container inside a
 * container is the inner one). Returns true with OUT filled. */
bool cgroup__container(const char *path, size_t len, struct container_ident *out);

/* The same over a thread's cgroups, "ctrl=/path\0ctrl=/path\0...", LEN bytes:
 * the first path that names a container. */
bool cgroups__container(const char *cgroups, size_t len, struct container_ident *out);

/* container.id of IDENT into OUT (CONTAINER_ID_MAX + 1 bytes): 12 digits of a
 * hex id, other ids whole. */
void container_ident__short_id(const struct container_ident *ident, char *out);

/* Calls FN for every cgroup of the cgroup v2 hierarchy under HOST_ROOT ("" or
 * NULL: /) with its id (the directory's inode number: the id BPF's
 * bpf_get_current_cgroup_id gives) and its container.id, "host" when its path
 * names none. FN returning nonzero stops the walk with that value. Returns the
 * number of cgroups seen, or a negative errno (-ENOENT: no cgroup2 mounted at
 * sys/fs/cgroup or sys/fs/cgroup/unified). */
int cgroup2__scan(const char *host_root,
		  int (*fn)(uint64_t cgid, const char *container_id, void *arg), void *arg);

/* The same over the cpuset controller's v1 hierarchy (sys/fs/cgroup/cpuset on a
 * hybrid host: the first controller, whose path userspace looks at first);
 * -ENOENT where cpuset is not a v1 hierarchy there. */
int cgroup1__scan_cpuset(const char *host_root,
			 int (*fn)(uint64_t cgid, const char *container_id, void *arg), void *arg);

/* What a lookup found. */
enum container_lookup {
	CL_PENDING = 0,	/* not looked up (yet) */
	CL_FOUND,	/* a runtime's file named it */
	CL_MISSING,	/* no runtime file for it */
	CL_FAILED,	/* a file was there but unreadable, too big or invalid */
};

/* One container. Strings are NULL when unknown (sysdig prints <NA>). */
struct container_info {
	char id[CONTAINER_ID_MAX + 1];		/* container.id: 12 hex digits, or the name */
	char full_id[CONTAINER_ID_MAX + 1];
	uint8_t type;				/* enum container_type */
	int8_t privileged;			/* -1 unknown, else 0/1 */
	bool is_pod_sandbox;			/* the pod's pause container */
	uint8_t lookup;				/* enum container_lookup */
	char *name;
	char *image;		/* as the user named it, e.g. "docker.io/library/nginx:1.25" */
	char *image_id;		/* hex, without "sha256:" */
	char *image_repo, *image_tag, *image_digest;
	char *pod_name, *pod_namespace, *pod_uid;
	/* ---- the table's bookkeeping (container_table.c) ---- */
	struct container_table *table;
	struct container_info *next;	/* hash chain */
	uint32_t refs;			/* threads (and, from a file, the table) */
	uint8_t attempts;		/* lookups made */
	bool pinned;			/* from a capture file: kept to the end */
	bool written;			/* already in the -w file (as it is now) */
	uint64_t last_try_ns;		/* event time of the last lookup */
};

struct container_table_opts {
	const char *host_root;	/* prefix of the runtimes' paths; NULL or "": / */
	bool no_lookup;		/* never read runtime files (replaying a capture) */
	uint32_t max_named;	/* containers whose names are kept; 0: 4096 */
	uint32_t max_entries;	/* containers at all; 0: 65536 */
};

struct container_table;

struct container_table *container_table__new(const struct container_table_opts *o);
/* Frees the table; entries still referenced by threads are freed too, so call
 * it after the threads are gone. Accepts NULL. */
void container_table__free(struct container_table *t);

/* The entry of the container IDENT names, with one more reference, made when
 * first seen and then looked up in the runtime files (once; a container found
 * in none is tried again at most twice, a second or more of NOW_NS apart, as
 * runtimes write their files while the container starts). NULL with errno
 * ENOMEM, or ENOSPC when the table is full (counted). */
struct container_info *container_table__get(struct container_table *t,
					    const struct container_ident *ident, uint64_t now_ns);
struct container_info *container_info__ref(struct container_info *ci);
/* Drops a reference; the last one forgets the container. Accepts NULL. */
void container_info__put(struct container_info *ci);

/* Calls FN on every container (in no set order); a non-zero return stops the
 * walk and is returned. FN must not add or drop entries. */
int container_table__for_each(struct container_table *t,
			      int (*fn)(struct container_info *ci, void *ctx), void *ctx);

/* ---- sysdig's container JSON (capture files) ---- */

/* Adds or updates the container described by JSON (LEN bytes), as sysdig's
 * container events carry it; the entry stays until the table is freed. 0,
 * -EINVAL for a malformed object (counted), -ENOSPC (table full, counted) or
 * -ENOMEM. */
int container_table__import_json(struct container_table *t, const char *json, size_t len);

/* CI as sysdig's container JSON: a malloc()ed NUL-terminated string in *OUT.
 * 0 or -ENOMEM. */
int container_info__to_json(const struct container_info *ci, char **out, size_t *len);

struct container_counters {
	uint64_t n_containers;		/* in the table now */
	uint64_t n_seen;		/* entries ever made */
	uint64_t n_lookups;		/* lookups made (files read) */
	uint64_t n_found;		/* ... that named the container */
	uint64_t n_missing;		/* ... that found no file (identity only) */
	uint64_t n_bad_files;		/* unreadable, too big or invalid files */
	uint64_t n_not_named;		/* not looked up: max_named reached */
	uint64_t n_full;		/* not made: max_entries reached */
	uint64_t n_bad_json;		/* malformed container JSON (capture files) */
};

void container_table__counters(const struct container_table *t, struct container_counters *c);

#endif
