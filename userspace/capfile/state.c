/* The inspector's threads and fds written as the list blocks a capture starts
 * with (process list v9, one fd list v2 per process), so that a reader of the
 * file knows the processes and fds that existed before the first event. Layouts:
 * the ones lists.c reads. Only fd types sysdig 0.29.3 knows are written (its
 * reader refuses the whole file on any other): see simple_type(). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include "capfile_int.h"

/* What sysdig's reader accepts per string (it refuses longer ones). */
#define MAX_PATH_STR	1024
#define MAX_LIST_STR	4096
/* A process list block is cut into several below this size, far under the
 * readers' limit (CAPFILE_LIST_MAX). */
#define PL_BLOCK_SPLIT	(8u << 20)

/* An entry or block body being built: bytes in a memory stream. */
struct body {
	FILE *f;
	char *buf;
	size_t len;
};

static int body__open(struct body *b)
{
	b->buf = NULL;
	b->len = 0;
	b->f = open_memstream(&b->buf, &b->len);
	return b->f ? 0 : -ENOMEM;
}

/* Closes the stream; B->buf/B->len then hold the bytes (free B->buf). */
static int body__close(struct body *b)
{
	int bad = ferror(b->f);

	if (fclose(b->f) || bad) {
		free(b->buf);
		b->buf = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void put(FILE *f, const void *p, size_t n)
{
	if (n)
		fwrite(p, 1, n, f);
}

static void put_u8(FILE *f, uint8_t v) { put(f, &v, 1); }
static void put_u16(FILE *f, uint16_t v) { put(f, &v, 2); }
static void put_u32(FILE *f, uint32_t v) { put(f, &v, 4); }
static void put_u64(FILE *f, uint64_t v) { put(f, &v, 8); }

/* A u16-length string, cut to MAX bytes. */
static void put_str(FILE *f, const char *s, size_t len, size_t max)
{
	if (!s)
		len = 0;
	if (len > max)
		len = max;
	put_u16(f, (uint16_t)len);
	put(f, s, len);
}

static void put_cstr(FILE *f, const char *s, size_t max)
{
	put_str(f, s, s ? strlen(s) : 0, max);
}

/* ---- process list ---- */

struct pl_ctx {
	struct capfile_writer *w;
	struct body blk;	/* the block being filled */
	struct capfile_state_counts *n;
	int err;
};

static int pl__flush(struct pl_ctx *c)
{
	int err;

	if ((err = body__close(&c->blk)))
		return err;
	err = c->blk.len ? capfile_writer__block(c->w, CAPFILE_BLOCK_PL_V9, c->blk.buf, c->blk.len)
			 : 0;
	if (!err && c->blk.len)
		c->n->n_blocks++;
	free(c->blk.buf);
	return err;
}

static int pl__entry(struct thread_info *ti, void *ctx)
{
	struct pl_ctx *c = ctx;
	size_t cwd_len = ti->cwd ? strlen(ti->cwd) : 0;
	struct body e;
	uint32_t len;
	long cur;
	int err;

	if ((err = body__open(&e)))
		return err;
	put_u64(e.f, (uint64_t)ti->tid);
	put_u64(e.f, (uint64_t)(ti->pid >= 0 ? ti->pid : ti->tid));
	put_u64(e.f, (uint64_t)ti->ptid);
	put_u64(e.f, (uint64_t)ti->sid);
	put_u64(e.f, (uint64_t)ti->pgid);
	put_cstr(e.f, ti->comm, MAX_PATH_STR);
	put_cstr(e.f, ti->exe, MAX_PATH_STR);
	put_cstr(e.f, ti->exepath, MAX_PATH_STR);
	put_str(e.f, ti->args, ti->args_len, MAX_LIST_STR);
	/* Ours ends with '/'; the files carry the directory as /proc shows it. */
	if (cwd_len > 1 && ti->cwd[cwd_len - 1] == '/')
		cwd_len--;
	put_str(e.f, ti->cwd, cwd_len, MAX_PATH_STR);
	put_u64(e.f, 0);	/* fdlimit: not kept */
	put_u32(e.f, 0);	/* flags */
	put_u32(e.f, ti->uid);
	put_u32(e.f, ti->gid);
	put_u32(e.f, 0);	/* vmsize, vmrss, vmswap (KiB): not kept */
	put_u32(e.f, 0);
	put_u32(e.f, 0);
	put_u64(e.f, 0);	/* pfmajor, pfminor */
	put_u64(e.f, 0);
	put_str(e.f, NULL, 0, 0);	/* env: not kept */
	put_u64(e.f, (uint64_t)ti->vtid);
	put_u64(e.f, (uint64_t)ti->vpid);
	put_str(e.f, ti->cgroups, ti->cgroups_len, MAX_LIST_STR);
	put_str(e.f, NULL, 0, 0);	/* root: not kept */
	/* Only loginuid after root: readers from before and after libs 0.10 both
	 * take four bytes there as loginuid (a longer tail means pidns start and tty
	 * first to the newer ones, loginuid to the older). */
	put_u32(e.f, ti->loginuid);
	if ((err = body__close(&e)))
		return err;
	cur = ftell(c->blk.f);	/* a memory stream's size shows only after a flush */
	if (cur > 0 && (size_t)cur + e.len + 4 > PL_BLOCK_SPLIT) {
		err = pl__flush(c);
		if (!err)
			err = body__open(&c->blk);
		if (err) {
			c->blk.f = NULL;
			free(e.buf);
			return err;
		}
	}
	len = (uint32_t)(e.len + 4);	/* the length counts itself */
	put_u32(c->blk.f, len);
	put(c->blk.f, e.buf, e.len);
	free(e.buf);
	c->n->n_threads++;
	return 0;
}

/* ---- fd lists ---- */

struct fdl_ctx {
	struct body blk;
	struct capfile_state_counts *n;
};

static uint8_t l4_of(uint8_t proto)
{
	return proto == IPPROTO_TCP ? SL4_TCP : proto == IPPROTO_UDP ? SL4_UDP : 0;
}

static uint8_t simple_type(enum fd_type t)
{
	switch (t) {
	case FDT_DIRECTORY: return SFD_DIRECTORY;
	case FDT_PIPE: return SFD_FIFO;
	case FDT_EVENT: return SFD_EVENT;
	case FDT_SIGNALFD: return SFD_SIGNALFD;
	case FDT_EVENTPOLL: return SFD_EVENTPOLL;
	case FDT_INOTIFY: return SFD_INOTIFY;
	case FDT_TIMERFD: return SFD_TIMERFD;
	case FDT_NETLINK: return SFD_NETLINK;
	/* sysdig 0.29.3 has no bpf type (nor userfaultfd, io_uring, memfd): its
	 * /proc scan (libscap scap_fds.c, scap_fd_scan_fd_dir) types an anon inode
	 * whose link it does not know, as anon_inode:bpf-map, UNSUPPORTED, and its
	 * file reader fails on type 17 and up. The link text stays as the name. */
	default: return SFD_UNSUPPORTED;	/* bpf, unknown, other sockets */
	}
}

static void fdl__socket(FILE *f, const struct fd_info *fi, uint64_t ino)
{
	bool v6 = fi->type == FDT_IPV6_SOCK;
	size_t alen = v6 ? 16 : 4;
	static const uint8_t zero[16];
	/* No source end: a listening or bound socket, written as a server one. */
	bool server = fi->sport == 0 && !memcmp(fi->sip, zero, alen);

	put_u64(f, (uint64_t)fi->fd);
	put_u64(f, ino);
	if (server) {
		put_u8(f, v6 ? SFD_IPV6_SERVSOCK : SFD_IPV4_SERVSOCK);
		put(f, fi->dip, alen);
		put_u16(f, fi->dport);
	} else {
		put_u8(f, v6 ? SFD_IPV6_SOCK : SFD_IPV4_SOCK);
		put(f, fi->sip, alen);
		put(f, fi->dip, alen);
		put_u16(f, fi->sport);
		put_u16(f, fi->dport);
	}
	put_u8(f, l4_of(fi->l4proto));
}

static int fdl__entry(struct fd_info *fi, void *ctx)
{
	struct fdl_ctx *c = ctx;
	struct body e;
	int err;

	if ((err = body__open(&e)))
		return err;
	switch (fi->type) {
	case FDT_IPV4_SOCK: case FDT_IPV6_SOCK:
		fdl__socket(e.f, fi, fi->ino);
		break;
	case FDT_UNIX_SOCK:
		put_u64(e.f, (uint64_t)fi->fd);
		put_u64(e.f, fi->ino);
		put_u8(e.f, SFD_UNIX_SOCK);
		put_u64(e.f, 0);	/* source and peer kernel addresses: not kept */
		put_u64(e.f, 0);
		put_cstr(e.f, fi->name, MAX_PATH_STR);
		break;
	case FDT_FILE: case FDT_MEMFD:
		/* A memfd as a file named /memfd:NAME: what sysdig's own /proc scan
		 * makes of it (its 0.29 reader refuses the later memfd type). */
		put_u64(e.f, (uint64_t)fi->fd);
		put_u64(e.f, fi->ino);
		put_u8(e.f, SFD_FILE_V2);
		put_u32(e.f, fi->open_flags);
		put_cstr(e.f, fi->name, MAX_PATH_STR);
		put_u32(e.f, fi->dev);
		break;
	default:
		put_u64(e.f, (uint64_t)fi->fd);
		put_u64(e.f, fi->ino);
		put_u8(e.f, simple_type(fi->type));
		/* a bpf fd made by an event has no link text: named as /proc
		 * names them, so a reader knows it again */
		put_cstr(e.f, fi->type == FDT_BPF && !fi->name ? "anon_inode:bpf-" : fi->name,
			 MAX_PATH_STR);
		break;
	}
	if ((err = body__close(&e)))
		return err;
	put_u32(c->blk.f, (uint32_t)(e.len + 4));
	put(c->blk.f, e.buf, e.len);
	free(e.buf);
	c->n->n_fds++;
	return 0;
}

struct fdls_ctx {
	struct capfile_writer *w;
	struct inspector *in;
	struct capfile_state_counts *n;
	/* Fd tables written for threads whose main thread is unknown. */
	struct fd_table **orphans;
	size_t n_orphans;
};

/* Whether TI's process fd table is written under TI: the main thread's, or the
 * first thread met of a process whose main thread is unknown. */
static int fdls__owner(struct fdls_ctx *c, struct thread_info *ti)
{
	struct fd_table **grown;

	if (!ti->fds)
		return 0;
	if (ti->tid == ti->pid)
		return 1;
	if (thread_table__main(inspector__threads(c->in), ti))
		return 0;
	for (size_t i = 0; i < c->n_orphans; i++)
		if (c->orphans[i] == ti->fds)
			return 0;
	grown = realloc(c->orphans, (c->n_orphans + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	c->orphans = grown;
	c->orphans[c->n_orphans++] = ti->fds;
	return 1;
}

static int fdls__thread(struct thread_info *ti, void *ctx)
{
	struct fdls_ctx *c = ctx;
	struct fdl_ctx f = { .n = c->n };
	int err = fdls__owner(c, ti);

	if (err <= 0 || fd_table__count(ti->fds) == 0)
		return err < 0 ? err : 0;
	if ((err = body__open(&f.blk)))
		return err;
	put_u64(f.blk.f, (uint64_t)ti->tid);
	err = fd_table__for_each(ti->fds, fdl__entry, &f);
	if (err) {
		body__close(&f.blk);
		free(f.blk.buf);
		return err;
	}
	if ((err = body__close(&f.blk)))
		return err;
	err = capfile_writer__block(c->w, CAPFILE_BLOCK_FDL_V2, f.blk.buf, f.blk.len);
	free(f.blk.buf);
	if (!err)
		c->n->n_blocks++;
	return err;
}

int capfile_writer__state(struct capfile_writer *w, struct inspector *in,
			  struct capfile_state_counts *n)
{
	struct capfile_state_counts local;
	struct pl_ctx pl = { .w = w };
	struct fdls_ctx fdls = { .w = w, .in = in };
	int err;

	if (!n)
		n = &local;
	memset(n, 0, sizeof(*n));
	pl.n = fdls.n = n;
	if ((err = body__open(&pl.blk)))
		return err;
	/* The process list first: readers attach each fd list to a listed thread. */
	err = inspector__for_each_thread(in, pl__entry, &pl);
	if (err) {
		if (pl.blk.f) {
			body__close(&pl.blk);
			free(pl.blk.buf);
		}
		return err;
	}
	if ((err = pl__flush(&pl)))
		return err;
	err = inspector__for_each_thread(in, fdls__thread, &fdls);
	free(fdls.orphans);
	if (err)
		return err;
	return capfile_writer__containers(w, inspector__containers(in), &n->n_containers);
}
