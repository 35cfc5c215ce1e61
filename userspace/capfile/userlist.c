/* User and group lists in capture files, as libscap writes and reads them.
 *
 * At start: one user list block (UL v2, 0x220) of entries, each
 *   u32 entry length, u8 type (0 user, 1 group),
 *   user:  u32 uid, u32 gid, u16 len + name, u16 len + home, u16 len + shell
 *   group: u32 gid, u16 len + name
 * (strings not NUL-terminated; 0x206 is the same without the entry length).
 * sysdig reads only the lists before the first event, and a list block after it
 * would make it restart the capture, so users that appear later are written as
 * "useradded"/"groupadded" events (354/358 in later libscap tables), which
 * sysdig 0.29 skips as events newer than its table and this reader imports. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capfile.h"
#include "capfile_int.h"

#define CAPFILE_BLOCK_UL	0x206u
#define CAPFILE_BLOCK_UL_INT	0x8012ABCDu
#define CAPFILE_BLOCK_UL_V2	0x220u
#define UL_USER			0
#define UL_GROUP		1
/* libscap's reader refuses any string of 256 bytes or more. */
#define UL_STR_MAX		255u
/* What an entry costs the reader besides its strings (users.c: the entry, its
 * hash slots and place in the sorted order, the allocation), for
 * CAPFILE_STATE_MAX. */
#define UL_ENTRY_COST		96u

/* Event types of later libscap tables (driver/ppm_events_public.h). */
#define EVT_USER_ADDED		354u
#define EVT_GROUP_ADDED		358u

bool capfile_userlist__is_block(uint32_t type)
{
	return type == CAPFILE_BLOCK_UL || type == CAPFILE_BLOCK_UL_INT ||
	       type == CAPFILE_BLOCK_UL_V2;
}

struct cursor {
	const uint8_t *p;
	size_t left;
};

static bool cursor__get(struct cursor *c, void *out, size_t n)
{
	if (c->left < n)
		return false;
	memcpy(out, c->p, n);
	c->p += n;
	c->left -= n;
	return true;
}

/* A u16-length string into BUF (UL_STR_MAX + 1 bytes), NUL-terminated. */
static bool cursor__str(struct cursor *c, char *buf)
{
	uint16_t n;

	if (!cursor__get(c, &n, 2) || n > UL_STR_MAX || c->left < n)
		return false;
	memcpy(buf, c->p, n);
	buf[n] = '\0';
	c->p += n;
	c->left -= n;
	return memchr(buf, '\0', n) == NULL;
}

/* Adds E to the file's lists unless the reader's caps are reached: then it is
 * counted in IMP->n_capped and left out (as the thread and fd lists' entries). */
static int ul__import(const struct users_entry *e, bool later, struct capfile_import *imp)
{
	uint64_t cost = UL_ENTRY_COST + strlen(e->name) + (e->home ? strlen(e->home) : 0) +
			(e->shell ? strlen(e->shell) : 0);
	int err;

	if (imp->state_bytes + cost > CAPFILE_STATE_MAX) {
		imp->n_capped++;
		return 0;
	}
	if (!(err = users__file_add(e, later)))
		imp->state_bytes += cost;
	return err;
}

int capfile_userlist__read(uint32_t type, const uint8_t *body, size_t len,
			   struct capfile_import *imp)
{
	struct cursor c = { body, len };
	char name[UL_STR_MAX + 1], home[UL_STR_MAX + 1], shell[UL_STR_MAX + 1];
	uint32_t n = 0;
	int err;

	/* as libscap: a later list block replaces the earlier one */
	users__file_begin();
	while (c.left >= 4) {
		struct users_entry e = { .name = name, .home = "", .shell = "" };
		struct cursor entry;
		uint32_t sub = 0;
		uint8_t t;

		if (type == CAPFILE_BLOCK_UL_V2) {
			if (!cursor__get(&c, &sub, 4) || sub < 5 || sub - 4 > c.left)
				return -EINVAL;
			entry = (struct cursor){ c.p, sub - 4 };
		} else {
			entry = c;
		}
		if (!cursor__get(&entry, &t, 1))
			return -EINVAL;
		if (t == UL_USER) {
			e.home = home;
			e.shell = shell;
			if (!cursor__get(&entry, &e.id, 4) || !cursor__get(&entry, &e.gid, 4) ||
			    !cursor__str(&entry, name) || !cursor__str(&entry, home) ||
			    !cursor__str(&entry, shell))
				return -EINVAL;
		} else {
			/* libscap takes any other type for a group */
			e.group = true;
			if (!cursor__get(&entry, &e.id, 4) || !cursor__str(&entry, name))
				return -EINVAL;
		}
		if (name[0] && n++ >= CAPFILE_LIST_ENTRIES_MAX)
			imp->n_capped++;
		else if (name[0] && (err = ul__import(&e, false, imp)))
			return err;
		if (type == CAPFILE_BLOCK_UL_V2) {
			/* fields added by newer writers are skipped by the entry length */
			c.p += sub - 4;
			c.left -= sub - 4;
		} else {
			c = entry;
		}
	}
	return 0;
}

/* The frame of an event block body (cpu, flags for EVF, frame, padding). */
static bool block__frame(uint32_t type, const uint8_t *body, size_t len,
			 const uint8_t **frame, uint32_t *flen, uint16_t *etype)
{
	size_t lead = type == CAPFILE_BLOCK_EVF_V2 ? 6 : 2;

	if ((type != CAPFILE_BLOCK_EV_V2 && type != CAPFILE_BLOCK_EVF_V2) ||
	    len < lead + PPM_HDR_LEN)
		return false;
	*frame = body + lead;
	memcpy(flen, *frame + offsetof(struct ppm_evt_hdr, len), 4);
	memcpy(etype, *frame + offsetof(struct ppm_evt_hdr, type), 2);
	return *flen >= PPM_HDR_LEN && *flen <= len - lead;
}

/* The charbuf param of LEN bytes at P, NUL-terminated within it. */
static const char *param__str(const uint8_t *p, uint16_t len)
{
	if (!len || p[len - 1] != '\0' || len - 1u > UL_STR_MAX)
		return NULL;
	return (const char *)p;
}

bool capfile_userlist__event(bool import, uint32_t type, const uint8_t *body, size_t len,
			     struct capfile_import *imp)
{
	const uint8_t *f, *p;
	uint16_t etype, lens[6];
	uint32_t flen, np, want;
	struct users_entry e = { 0 };
	const char *cid;

	if (!block__frame(type, body, len, &f, &flen, &etype) ||
	    (etype != EVT_USER_ADDED && etype != EVT_GROUP_ADDED))
		return false;
	if (!import)
		return true;
	memcpy(&np, f + offsetof(struct ppm_evt_hdr, nparams), 4);
	want = etype == EVT_USER_ADDED ? 6 : 3;
	if (np != want || PPM_HDR_LEN + 2 * np > flen)
		return true;
	memcpy(lens, f + PPM_HDR_LEN, 2 * np);
	p = f + PPM_HDR_LEN + 2 * np;
	for (uint32_t i = 0, sum = PPM_HDR_LEN + 2 * np; i < np; i++)
		if ((sum += lens[i]) > flen)
			return true;
	e.group = etype == EVT_GROUP_ADDED;
	if (lens[0] != 4)
		return true;
	memcpy(&e.id, p, 4);
	p += 4;
	if (!e.group) {
		if (lens[1] != 4)
			return true;
		memcpy(&e.gid, p, 4);
		p += 4;
		e.name = param__str(p, lens[2]);
		p += lens[2];
		e.home = param__str(p, lens[3]);
		p += lens[3];
		e.shell = param__str(p, lens[4]);
		p += lens[4];
		cid = param__str(p, lens[5]);
	} else {
		e.name = param__str(p, lens[1]);
		p += lens[1];
		cid = param__str(p, lens[2]);
	}
	/* users of a container's own /etc/passwd: not the host's lists */
	if (e.name && e.name[0] && cid && !cid[0] && (e.group || (e.home && e.shell)))
		ul__import(&e, true, imp);
	return true;
}

/* ---- writing ---- */

struct ul_buf {
	uint8_t *p;
	size_t n, cap;
	int err;
};

static void ul_buf__put(struct ul_buf *b, const void *data, size_t n)
{
	if (b->err)
		return;
	if (b->n + n > b->cap) {
		size_t ncap = b->cap ? b->cap : 4096;
		uint8_t *np;

		while (ncap < b->n + n)
			ncap *= 2;
		if (!(np = realloc(b->p, ncap))) {
			b->err = -ENOMEM;
			return;
		}
		b->p = np;
		b->cap = ncap;
	}
	memcpy(b->p + b->n, data, n);
	b->n += n;
}

static uint16_t str__cut(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return (uint16_t)(n > UL_STR_MAX ? UL_STR_MAX : n);
}

static void ul_buf__str(struct ul_buf *b, const char *s)
{
	uint16_t n = str__cut(s);

	ul_buf__put(b, &n, 2);
	ul_buf__put(b, s ? s : "", n);
}

static int ul__entry(void *ctx, const struct users_entry *e)
{
	struct ul_buf *b = ctx;
	uint8_t t = e->group ? UL_GROUP : UL_USER;
	uint32_t sub = e->group ? 4 + 1 + 4 + 2 + str__cut(e->name) :
			4 + 1 + 4 + 4 + 6 + str__cut(e->name) + str__cut(e->home) +
			str__cut(e->shell);

	ul_buf__put(b, &sub, 4);
	ul_buf__put(b, &t, 1);
	ul_buf__put(b, &e->id, 4);
	if (!e->group)
		ul_buf__put(b, &e->gid, 4);
	ul_buf__str(b, e->name);
	if (!e->group) {
		ul_buf__str(b, e->home);
		ul_buf__str(b, e->shell);
	}
	return b->err;
}

int capfile_writer__users(struct capfile_writer *w, uint64_t *mark)
{
	struct ul_buf b = { 0 };
	int err;

	if (mark)
		*mark = users__added();
	err = users__foreach(ul__entry, &b);
	if (!err && b.n)
		err = capfile_writer__block(w, CAPFILE_BLOCK_UL_V2, b.p, b.n);
	free(b.p);
	return err;
}

struct added_ctx {
	struct capfile_writer *w;
	uint64_t ts;
	int64_t tid;
	uint16_t cpu;
};

/* One useradded or groupadded event (params as later libscap tables have them,
 * container_id empty: the host's lists) in an EV v2 block. */
static int ul__added(void *ctx, const struct users_entry *e)
{
	struct added_ctx *a = ctx;
	struct ul_buf b = { 0 };
	struct ppm_evt_hdr h = { .ts = a->ts, .tid = (uint64_t)a->tid };
	uint16_t lens[6], n = 0;
	const char *strs[4] = { e->name, e->home, e->shell, "" };
	int err;

	lens[n++] = 4;
	if (!e->group) {
		lens[n++] = 4;
		for (int i = 0; i < 4; i++)
			lens[n++] = str__cut(strs[i]) + 1;
	} else {
		lens[n++] = str__cut(e->name) + 1;
		lens[n++] = 1;
	}
	h.type = e->group ? EVT_GROUP_ADDED : EVT_USER_ADDED;
	h.nparams = n;
	h.len = PPM_HDR_LEN + 2u * n;
	for (int i = 0; i < n; i++)
		h.len += lens[i];
	ul_buf__put(&b, &a->cpu, 2);
	ul_buf__put(&b, &h, PPM_HDR_LEN);
	ul_buf__put(&b, lens, 2u * n);
	ul_buf__put(&b, &e->id, 4);
	if (!e->group) {
		ul_buf__put(&b, &e->gid, 4);
		for (int i = 0; i < 4; i++) {
			ul_buf__put(&b, strs[i] ? strs[i] : "", lens[2 + i] - 1u);
			ul_buf__put(&b, "", 1);
		}
	} else {
		ul_buf__put(&b, e->name, lens[1] - 1u);
		ul_buf__put(&b, "", 1);
		ul_buf__put(&b, "", 1);
	}
	err = b.err ? b.err : capfile_writer__block(a->w, CAPFILE_BLOCK_EV_V2, b.p, b.n);
	free(b.p);
	return err;
}

int capfile_writer__users_new(struct capfile_writer *w, const struct thread_info *ti,
			      uint16_t cpu, uint64_t ts, uint64_t *mark)
{
	struct added_ctx a = { .w = w, .ts = ts, .tid = ti ? ti->tid : -1, .cpu = cpu };
	int err;

	/* a lookup that misses reloads the host's lists (at most once a second) */
	if (ti && !users__from_file()) {
		users__name(ti->uid);
		groups__name(ti->gid);
	}
	if (*mark >= users__added())
		return 0;
	err = users__foreach_added((size_t)*mark, ul__added, &a);
	if (!err)
		*mark = users__added();
	return err;
}
