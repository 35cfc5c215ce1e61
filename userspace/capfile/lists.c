/* The process and fd list blocks of a capture file, imported into an inspector
 * so that threads and fds that existed before the capture have names. Each
 * block body is untrusted: every field is read through a bounded cursor and a
 * field that would cross the end of its entry or block fails the block. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include "capfile_int.h"

struct cursor {
	const uint8_t *p, *end;
};

static int cur__take(struct cursor *c, void *out, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		return -EINVAL;
	if (out)
		memcpy(out, c->p, n);
	c->p += n;
	return 0;
}

static int cur__u8(struct cursor *c, uint8_t *v) { return cur__take(c, v, 1); }
static int cur__u16(struct cursor *c, uint16_t *v) { return cur__take(c, v, 2); }
static int cur__u32(struct cursor *c, uint32_t *v) { return cur__take(c, v, 4); }
static int cur__u64(struct cursor *c, uint64_t *v) { return cur__take(c, v, 8); }

/* A u16-length string: its bytes (not NUL-terminated in the file). */
static int cur__str(struct cursor *c, const uint8_t **s, uint16_t *len)
{
	if (cur__u16(c, len))
		return -EINVAL;
	*s = c->p;
	return cur__take(c, NULL, *len);
}

/* A malloc()ed copy of LEN bytes, NUL-terminated (NULL when LEN is 0). With
 * LIST, the copy keeps every byte and ends with a NUL even if the file's did not
 * ("a\0b\0" lists); *OUTLEN gets the count. */
static int dup_bytes(const uint8_t *s, uint16_t len, bool list, char **out, size_t *outlen)
{
	size_t n = len;
	char *d;

	*out = NULL;
	if (!list)
		n = strnlen((const char *)s, len);
	if (n == 0) {
		if (outlen)
			*outlen = 0;
		return 0;
	}
	d = malloc(n + 2);
	if (!d)
		return -ENOMEM;
	memcpy(d, s, n);
	d[n] = '\0';
	if (list && s[n - 1] != '\0')
		d[++n] = '\0';
	if (outlen)
		*outlen = n;
	*out = d;
	return 0;
}

/* ---- process lists ---- */

/* Which optional fields a process list version carries. */
struct pl_layout {
	bool entry_len;		/* V9: u32 entry length first */
	bool sid, vpgid, exepath;
	bool mem;		/* vmsize, vmrss, vmswap, pfmajor, pfminor */
	bool env, ns_cgroups, root;
};

static int pl_layout(uint32_t type, struct pl_layout *l)
{
	int v;

	switch (type) {
	case CAPFILE_BLOCK_PL_V1: case CAPFILE_BLOCK_PL_V1_INT: v = 1; break;
	case CAPFILE_BLOCK_PL_V2: case CAPFILE_BLOCK_PL_V2_INT: v = 2; break;
	case CAPFILE_BLOCK_PL_V3: case CAPFILE_BLOCK_PL_V3_INT: v = 3; break;
	case CAPFILE_BLOCK_PL_V4: v = 4; break;
	case CAPFILE_BLOCK_PL_V5: v = 5; break;
	case CAPFILE_BLOCK_PL_V6: v = 6; break;
	case CAPFILE_BLOCK_PL_V7: v = 7; break;
	case CAPFILE_BLOCK_PL_V8: v = 8; break;
	case CAPFILE_BLOCK_PL_V9: v = 9; break;
	default: return -EINVAL;
	}
	memset(l, 0, sizeof(*l));
	l->entry_len = v >= 9;
	l->vpgid = v >= 8;
	l->exepath = v >= 7;
	l->sid = v >= 6;
	l->root = v >= 5;
	l->ns_cgroups = v >= 4;
	l->env = v >= 3;
	l->mem = v >= 2;
	return 0;
}

bool capfile_lists__is_proclist(uint32_t type)
{
	struct pl_layout l;

	return pl_layout(type, &l) == 0;
}

/* One parsed entry: fixed fields plus pointers into the block. */
struct pl_entry {
	uint64_t tid, pid, ptid, sid, vpgid;
	int64_t vtid, vpid;
	uint32_t uid, gid, loginuid, tty;
	const uint8_t *comm, *exe, *exepath, *args, *cwd, *cgroups;
	uint16_t comm_len, exe_len, exepath_len, args_len, cwd_len, cgroups_len;
};

static int pl__parse(struct cursor *c, const struct pl_layout *l, struct pl_entry *e)
{
	const uint8_t *skip;
	uint16_t skip_len;
	uint64_t u64;
	uint32_t u32;

	memset(e, 0, sizeof(*e));
	e->sid = e->vpgid = UINT64_MAX;
	e->vtid = e->vpid = -1;
	e->loginuid = UINT32_MAX;
	if (cur__u64(c, &e->tid) || cur__u64(c, &e->pid) || cur__u64(c, &e->ptid) ||
	    (l->sid && cur__u64(c, &e->sid)) || (l->vpgid && cur__u64(c, &e->vpgid)) ||
	    cur__str(c, &e->comm, &e->comm_len) || cur__str(c, &e->exe, &e->exe_len) ||
	    (l->exepath && cur__str(c, &e->exepath, &e->exepath_len)) ||
	    cur__str(c, &e->args, &e->args_len) || cur__str(c, &e->cwd, &e->cwd_len) ||
	    cur__u64(c, &u64) /* fdlimit */ || cur__u32(c, &u32) /* flags */ ||
	    cur__u32(c, &e->uid) || cur__u32(c, &e->gid))
		return -EINVAL;
	/* vmsize, vmrss, vmswap (u32), pfmajor, pfminor (u64) */
	if (l->mem && cur__take(c, NULL, 3 * 4 + 2 * 8))
		return -EINVAL;
	if (l->env && cur__str(c, &skip, &skip_len))
		return -EINVAL;
	if (l->ns_cgroups &&
	    (cur__u64(c, (uint64_t *)&e->vtid) || cur__u64(c, (uint64_t *)&e->vpid) ||
	     cur__str(c, &e->cgroups, &e->cgroups_len)))
		return -EINVAL;
	if (l->root && cur__str(c, &skip, &skip_len))
		return -EINVAL;
	if (!l->entry_len)
		return 0;
	/* V9 entries grew at their end: up to 29 bytes (loginuid, exe_writable and
	 * three capability sets) from writers before libs 0.10; those after it put
	 * pidns_init_start_ts u64 and tty u32 first, so their tail is longer. */
	if (c->end - c->p > 29) {
		cur__take(c, NULL, 8);
		cur__u32(c, &e->tty);
	}
	if (c->end - c->p >= 4)
		cur__u32(c, &e->loginuid);
	return 0;
}

static int pl__import(struct inspector *in, const struct pl_entry *e,
		      struct capfile_import *imp)
{
	struct thread_info *ti;
	size_t n;

	if ((int64_t)e->tid <= 0)
		return -EINVAL;
	ti = inspector__add_thread(in, (int64_t)e->tid, (int64_t)e->pid);
	if (!ti) {
		if (errno == EEXIST) {
			imp->n_dup_threads++;
			return 1;
		}
		if (errno == ENOSPC) {
			imp->n_capped++;	/* the inspector's thread cap */
			return 1;
		}
		return -errno;
	}
	ti->ptid = (int64_t)e->ptid;
	ti->sid = (int64_t)e->sid;
	ti->pgid = (int64_t)e->vpgid;
	ti->vtid = e->vtid;
	ti->vpid = e->vpid;
	ti->uid = e->uid;
	ti->gid = e->gid;
	ti->loginuid = e->loginuid;
	ti->tty = e->tty;
	n = strnlen((const char *)e->comm, e->comm_len);
	if (n >= sizeof(ti->comm))
		n = sizeof(ti->comm) - 1;
	memcpy(ti->comm, e->comm, n);
	ti->comm[n] = '\0';
	imp->n_threads++;
	if (dup_bytes(e->exe, e->exe_len, false, &ti->exe, NULL) ||
	    (e->exepath && dup_bytes(e->exepath, e->exepath_len, false, &ti->exepath, NULL)) ||
	    dup_bytes(e->args, e->args_len, true, &ti->args, &ti->args_len) ||
	    (e->cgroups && dup_bytes(e->cgroups, e->cgroups_len, true, &ti->cgroups,
				     &ti->cgroups_len)))
		return -ENOMEM;
	/* cwd always ends with '/' */
	n = strnlen((const char *)e->cwd, e->cwd_len);
	if (n) {
		ti->cwd = malloc(n + 2);
		if (!ti->cwd)
			return -ENOMEM;
		memcpy(ti->cwd, e->cwd, n);
		if (ti->cwd[n - 1] != '/')
			ti->cwd[n++] = '/';
		ti->cwd[n] = '\0';
	}
	/* the container its cgroups name (the file's container events name it),
	 * its pid namespace */
	inspector__thread_imported(in, ti);
	return 0;
}

/* What importing E costs in memory (the thread, its fd table, its strings). */
static uint64_t pl__cost(const struct pl_entry *e)
{
	return sizeof(struct thread_info) + 256 + e->exe_len + e->exepath_len + e->args_len +
	       e->cwd_len + e->cgroups_len;
}

int capfile_lists__proclist(struct inspector *in, uint32_t type, const uint8_t *body,
			    size_t len, struct capfile_import *imp)
{
	struct cursor blk = { body, body + len }, ent;
	struct pl_layout l;
	struct pl_entry e;
	uint32_t elen, n = 0;
	int err;

	if (pl_layout(type, &l))
		return -EINVAL;
	/* What is left after the last entry is padding (below 4 bytes). */
	while (blk.end - blk.p >= 4) {
		if (l.entry_len) {
			if (cur__u32(&blk, &elen) || elen < 4 || elen - 4 > (size_t)(blk.end - blk.p))
				return -EINVAL;
			ent.p = blk.p;
			ent.end = blk.p + (elen - 4);
			blk.p = ent.end;
		} else {
			ent = blk;
		}
		if (pl__parse(&ent, &l, &e))
			return -EINVAL;
		if (!l.entry_len)
			blk.p = ent.p;
		if (n++ >= CAPFILE_LIST_ENTRIES_MAX ||
		    imp->state_bytes + pl__cost(&e) > CAPFILE_STATE_MAX) {
			imp->n_capped++;
			continue;
		}
		imp->state_bytes += pl__cost(&e);
		if ((err = pl__import(in, &e, imp)) == 1)
			imp->state_bytes -= pl__cost(&e);	/* not added */
		else if (err == -ENOMEM)
			return err;
		else if (err)
			return -EINVAL;
	}
	return 0;
}

/* ---- fd lists ---- */

static enum fd_type fd_type_of(uint8_t t)
{
	switch (t) {
	case SFD_FILE: case SFD_FILE_V2: return FDT_FILE;
	case SFD_DIRECTORY: return FDT_DIRECTORY;
	case SFD_IPV4_SOCK: case SFD_IPV4_SERVSOCK: return FDT_IPV4_SOCK;
	case SFD_IPV6_SOCK: case SFD_IPV6_SERVSOCK: return FDT_IPV6_SOCK;
	case SFD_FIFO: return FDT_PIPE;
	case SFD_UNIX_SOCK: return FDT_UNIX_SOCK;
	case SFD_EVENT: return FDT_EVENT;
	case SFD_SIGNALFD: return FDT_SIGNALFD;
	case SFD_EVENTPOLL: return FDT_EVENTPOLL;
	case SFD_INOTIFY: return FDT_INOTIFY;
	case SFD_TIMERFD: return FDT_TIMERFD;
	case SFD_NETLINK: return FDT_NETLINK;
	case SFD_BPF: return FDT_BPF;
	case SFD_MEMFD: return FDT_MEMFD;
	default: return FDT_UNKNOWN;	/* unsupported, userfaultfd, io_uring */
	}
}

static uint8_t l4_of(uint8_t scap_l4)
{
	return scap_l4 == SL4_TCP ? IPPROTO_TCP : scap_l4 == SL4_UDP ? IPPROTO_UDP : 0;
}

static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

static int fd__set_name(struct fd_info *fi, const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (!d)
		return -ENOMEM;
	memcpy(d, s, n);
	d[n] = '\0';
	free(fi->name);
	fi->name = d;
	return 0;
}

static int fd__addr(uint8_t family, const uint8_t *ip, uint16_t port, char *out, size_t n)
{
	char a[INET6_ADDRSTRLEN];

	if (!inet_ntop(family == PPM_AF_INET6 ? AF_INET6 : AF_INET, ip, a, sizeof(a)))
		return -EINVAL;
	return snprintf(out, n, "%s:%u", a, port) < (int)n ? 0 : -EINVAL;
}

/* Sockets: the fields of an IPv4/IPv6 tuple or server address at the cursor;
 * IPv4 carried on an IPv6 socket is shown as IPv4, as sysdig does. */
static int fd__socket(struct cursor *c, uint8_t t, struct fd_info *fi)
{
	bool v6 = t == SFD_IPV6_SOCK || t == SFD_IPV6_SERVSOCK;
	bool server = t == SFD_IPV4_SERVSOCK || t == SFD_IPV6_SERVSOCK;
	size_t alen = v6 ? 16 : 4;
	uint8_t sip[16] = { 0 }, dip[16] = { 0 }, l4;
	uint16_t sport = 0, dport = 0;
	char s[INET6_ADDRSTRLEN + 8], d[INET6_ADDRSTRLEN + 8], name[2 * sizeof(s) + 2];

	if ((!server && (cur__take(c, sip, alen) || cur__take(c, dip, alen) ||
			 cur__u16(c, &sport) || cur__u16(c, &dport))) ||
	    (server && (cur__take(c, dip, alen) || cur__u16(c, &dport))) || cur__u8(c, &l4))
		return -EINVAL;
	fi->family = v6 ? PPM_AF_INET6 : PPM_AF_INET;
	if (v6 && !memcmp(dip, v4mapped, 12) && (server || !memcmp(sip, v4mapped, 12))) {
		memmove(sip, sip + 12, 4);
		memmove(dip, dip + 12, 4);
		memset(sip + 4, 0, 12);
		memset(dip + 4, 0, 12);
		fi->family = PPM_AF_INET;
	}
	fi->type = fi->family == PPM_AF_INET ? FDT_IPV4_SOCK : FDT_IPV6_SOCK;
	fi->l4proto = l4_of(l4);
	memcpy(fi->sip, sip, 16);
	memcpy(fi->dip, dip, 16);
	fi->sport = sport;
	fi->dport = dport;
	fi->is_server = server;
	if (fd__addr(fi->family, dip, dport, d, sizeof(d)))
		return -EINVAL;
	if (server)
		return fd__set_name(fi, d, strlen(d));
	if (fd__addr(fi->family, sip, sport, s, sizeof(s)))
		return -EINVAL;
	snprintf(name, sizeof(name), "%s->%s", s, d);
	return fd__set_name(fi, name, strlen(name));
}

/* One fd entry at C into TI's table. Unknown types cannot be sized without an
 * entry length: -EINVAL. */
static int fd__entry(struct inspector *in, struct thread_info *ti, struct cursor *c,
		     bool sized, struct capfile_import *imp)
{
	uint64_t fd, ino;
	uint8_t t;
	uint32_t flags = 0, dev = 0;
	const uint8_t *name;
	uint16_t name_len;
	struct fd_info tmp = { 0 }, *fi;
	uint64_t cost;
	int err = 0;

	if (cur__u64(c, &fd) || cur__u64(c, &ino) || cur__u8(c, &t))
		return -EINVAL;
	tmp.type = fd_type_of(t);
	tmp.ino = ino;
	switch (t) {
	case SFD_IPV4_SOCK: case SFD_IPV6_SOCK: case SFD_IPV4_SERVSOCK: case SFD_IPV6_SERVSOCK:
		if ((err = fd__socket(c, t, &tmp)))
			goto cleanup;
		break;
	case SFD_UNIX_SOCK:
		tmp.family = PPM_AF_UNIX;
		if (cur__take(c, NULL, 16) || cur__str(c, &name, &name_len) ||
		    (err = fd__set_name(&tmp, (const char *)name,
					strnlen((const char *)name, name_len)))) {
			err = err ?: -EINVAL;
			goto cleanup;
		}
		break;
	case SFD_FILE_V2:
		if (cur__u32(c, &flags) || cur__str(c, &name, &name_len)) {
			err = -EINVAL;
			goto cleanup;
		}
		/* dev only when the entry is long enough to hold it */
		if (sized && c->end - c->p >= 4)
			cur__u32(c, &dev);
		if ((err = fd__set_name(&tmp, (const char *)name,
					strnlen((const char *)name, name_len))))
			goto cleanup;
		/* a memfd, as writers without the memfd type list it (and /proc shows it) */
		if (!strncmp(tmp.name, "/memfd:", 7))
			tmp.type = FDT_MEMFD;
		break;
	case SFD_FILE: case SFD_DIRECTORY: case SFD_FIFO: case SFD_EVENT: case SFD_UNSUPPORTED:
	case SFD_SIGNALFD: case SFD_EVENTPOLL: case SFD_INOTIFY: case SFD_TIMERFD:
	case SFD_NETLINK: case SFD_BPF: case SFD_USERFAULTFD: case SFD_IOURING: case SFD_MEMFD:
		if (cur__str(c, &name, &name_len)) {
			err = -EINVAL;
			goto cleanup;
		}
		if ((err = fd__set_name(&tmp, (const char *)name,
					strnlen((const char *)name, name_len))))
			goto cleanup;
		/* a BPF fd, as writers for sysdig 0.29.3 (which lacks the type) list it */
		if (t == SFD_UNSUPPORTED && !strncmp(tmp.name, "anon_inode:bpf-", 15))
			tmp.type = FDT_BPF;
		break;
	default:
		if (!sized) {
			err = -EINVAL;
			goto cleanup;
		}
		imp->n_fds_skipped++;	/* a newer type: its entry length skips it */
		goto cleanup;
	}
	if (tmp.name && !tmp.name[0]) {
		free(tmp.name);	/* sysdig shows an empty name as none */
		tmp.name = NULL;
	}
	tmp.open_flags = flags;
	tmp.dev = dev;
	cost = sizeof(tmp) + 64 + (tmp.name ? strlen(tmp.name) + 1 : 0);
	if (imp->state_bytes + cost > CAPFILE_STATE_MAX) {
		imp->n_capped++;
		goto cleanup;
	}
	imp->state_bytes += cost;
	fi = inspector__add_fd(in, ti, (int64_t)fd);
	if (!fi) {
		err = -ENOMEM;
		goto cleanup;
	}
	free(fi->name);
	tmp.fd = (int64_t)fd;
	*fi = tmp;
	tmp.name = NULL;
	imp->n_fds++;
cleanup:
	free(tmp.name);
	return err;
}

int capfile_lists__fdlist(struct inspector *in, uint32_t type, const uint8_t *body,
			  size_t len, struct capfile_import *imp)
{
	struct cursor blk = { body, body + len }, ent;
	bool sized = type == CAPFILE_BLOCK_FDL_V2;
	struct thread_info *ti;
	uint64_t tid;
	uint32_t elen, n = 0;
	int err;

	if (type != CAPFILE_BLOCK_FDL && type != CAPFILE_BLOCK_FDL_V2 &&
	    type != CAPFILE_BLOCK_FDL_INT)
		return -EINVAL;
	if (cur__u64(&blk, &tid))
		return -EINVAL;
	ti = thread_table__find(inspector__threads(in), (int64_t)tid);
	if (!ti) {
		/* sysdig refuses such a file; here the block is counted and skipped */
		return -EINVAL;
	}
	while (blk.end - blk.p >= 4) {
		if (sized) {
			if (cur__u32(&blk, &elen) || elen < 4 || elen - 4 > (size_t)(blk.end - blk.p))
				return -EINVAL;
			ent.p = blk.p;
			ent.end = blk.p + (elen - 4);
			blk.p = ent.end;
		} else {
			ent = blk;
		}
		if (n++ >= CAPFILE_LIST_ENTRIES_MAX) {
			imp->n_capped++;
			if (!sized)
				return 0;	/* entries cannot be skipped unparsed */
			continue;
		}
		if ((err = fd__entry(in, ti, &ent, sized, imp)))
			return err == -ENOMEM ? err : -EINVAL;
		if (!sized)
			blk.p = ent.p;
	}
	return 0;
}
