/* --profile-out (profile_out.h): slow requests' timelines, written off the
 * per-event path's common case (a slow request is rare, and at most
 * PROFILE_OUT_PER_SEC a second are written). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"
#include "container.h"
#include "profile_out.h"
#include "recent.h"
#include "req_record.h"
#include "schema.h"
#include "stacks.h"
#include "state.h"
#include "symbolizer.h"
#include "timeline.h"

#define TL_SLICES 512	/* slices drawn per timeline; past it the timeline says not whole */
#define TL_CALLS 64	/* calls drawn per timeline */

struct call_rec {
	uint64_t id, parent, start, dur;
	uint8_t proto;
	bool error;
	int32_t status;
	char what[96];
	char peer[64];
};

struct profile_out {
	char *dir;
	uint64_t thr[REQ_PROTO_MAX];
	struct call_rec calls[PROFILE_OUT_CALLS];
	uint32_t calls_next, calls_n;
	uint64_t sec;		/* the second of event time being counted */
	unsigned in_sec;
	struct profile_out_counters c;
	/* one timeline's parts, kept to spare allocations */
	struct prof_slice_rec raw[TL_SLICES];
	char raw_names[TL_SLICES][PROF_RECENT_NAME];
	struct prof_tl_slice s[TL_SLICES];
	char names[TL_SLICES][80];	/* wakers' names */
	struct prof_tl_call tc[TL_CALLS];
	struct symbolizer *sym;		/* --profile-hz */
	struct prof_stacks *stacks;
	struct agent *a;
	int32_t keys[PROF_RECENT_SAMPLES];
};

static int duration__parse(const char *s, size_t len, uint64_t *out)
{
	static const struct { const char *u; uint64_t mul; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	};
	char buf[32], *end;
	double v;

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	v = strtod(buf, &end);
	if (end == buf || !(v >= 0 && v < 1e6))
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].u)) {
			*out = (uint64_t)(v * (double)units[i].mul);
			return 0;
		}
	return -EINVAL;
}

int profile_out__thresholds(const char *spec, uint64_t *out, char *err, size_t errlen)
{
	const char *p = spec;
	uint64_t v;

	for (int i = 0; i < REQ_PROTO_MAX; i++)
		out[i] = i == REQ_PROTO_REDIS || i == REQ_PROTO_DNS ? PROFILE_SLOW_FAST_NS
								     : PROFILE_SLOW_NS;
	if (!spec)
		return 0;
	if (!strchr(spec, '=')) {
		if (duration__parse(spec, strlen(spec), &v))
			goto bad;
		for (int i = 0; i < REQ_PROTO_MAX; i++)
			out[i] = v;
		return 0;
	}
	while (*p) {
		const char *eq = strchr(p, '='), *comma = strchr(p, ',');
		size_t vlen;
		int proto = -1;

		if (!eq || (comma && comma < eq))
			goto bad;
		vlen = comma ? (size_t)(comma - eq - 1) : strlen(eq + 1);
		for (int i = 0; i < REQ_PROTO_MAX; i++) {
			const char *name = i == REQ_PROTO_NONE ? "other" : req_proto__name(i);

			if (strlen(name) == (size_t)(eq - p) && !strncmp(p, name, (size_t)(eq - p)))
				proto = i;
		}
		if (proto < 0 || duration__parse(eq + 1, vlen, &v))
			goto bad;
		out[proto] = v;
		p = comma ? comma + 1 : eq + 1 + vlen;
	}
	return 0;
bad:
	snprintf(err, errlen, "--profile-threshold takes a duration (100ms) or PROTO=DURATION "
		 "pairs by commas (http=100ms,redis=5ms; protocols http, dns, redis, mysql, pgsql, "
		 "tls, http2, grpc, kafka, dubbo, rocketmq, other; units ns, us, ms, s), not '%s'",
		 spec);
	return -EINVAL;
}

struct profile_out *profile_out__new(const char *dir, const uint64_t *thresholds)
{
	struct profile_out *po = calloc(1, sizeof(*po));

	if (!po)
		return NULL;
	po->dir = strdup(dir);
	if (!po->dir || (mkdir(dir, 0755) && errno != EEXIST)) {
		int e = po->dir ? errno : ENOMEM;

		profile_out__free(po);
		errno = e;
		return NULL;
	}
	memcpy(po->thr, thresholds, sizeof(po->thr));
	return po;
}

void profile_out__free(struct profile_out *po)
{
	if (!po)
		return;
	prof_stacks__free(po->stacks);
	symbolizer__free(po->sym);
	free(po->dir);
	free(po);
}

int profile_out__stacks(struct profile_out *po, struct agent *a)
{
	const char *root = getenv("HOST_ROOT");
	char proc[4096];
	struct symbolizer_opts o = { 0 };

	snprintf(proc, sizeof(proc), "%s/proc", root ? root : "");
	o.proc = proc;
	po->a = a;
	po->sym = symbolizer__new(&o);
	po->stacks = po->sym ? prof_stacks__new(po->sym) : NULL;
	po->c.stacks = true;
	return po->stacks ? 0 : -ENOMEM;
}

struct prof_stacks *profile_out__stack_table(struct profile_out *po)
{
	return po->stacks;
}

int profile_out__finish(struct profile_out *po)
{
	if (po->stacks)
		po->c.write_err = prof_stacks__write(po->stacks, po->dir);
	return po->c.write_err;
}

static void addr(char *out, size_t n, uint8_t family, const uint8_t *ip, uint16_t port)
{
	char a[INET6_ADDRSTRLEN] = "?";

	inet_ntop(family == PPM_AF_INET6 ? AF_INET6 : AF_INET, ip, a, sizeof(a));
	snprintf(out, n, family == PPM_AF_INET6 ? "[%s]:%u" : "%s:%u", a, port);
}

/* "METHOD TARGET", cut to N (a quarter for the method at most). */
static void what(char *out, size_t n, const struct req_record *r)
{
	int m = (int)(n / 4);

	snprintf(out, n, "%.*s%s%.*s", m, r->method, r->method[0] && r->target[0] ? " " : "",
		 (int)n - m - 2, r->target);
}

/* A client request made within a server request: kept for its parent. */
static void call__keep(struct profile_out *po, const struct req_record *r)
{
	struct call_rec *c = &po->calls[po->calls_next];

	c->id = r->id;
	c->parent = r->parent;
	c->start = r->ts_start;
	c->dur = r->duration;
	c->proto = r->proto;
	c->error = r->error;
	c->status = r->status;
	what(c->what, sizeof(c->what), r);
	addr(c->peer, sizeof(c->peer), r->family, r->server.ip, r->server.port);
	po->calls_next = (po->calls_next + 1) % PROFILE_OUT_CALLS;
	if (po->calls_n < PROFILE_OUT_CALLS)
		po->calls_n++;
}

static const char *thread__name(struct agent *a, int64_t tid, char *buf, size_t n)
{
	struct thread_info *ti = thread_table__find(inspector__threads(a->in), tid);
	char path[64];
	FILE *f;

	if (ti) {
		snprintf(buf, n, "%s", ti->comm);
		return buf;
	}
	snprintf(path, sizeof(path), "/proc/%" PRId64 "/comm", tid);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	if (!fgets(buf, (int)n, f)) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* The request's own fields, as the -j line names them. */
static struct json_object *req__json(const struct req_record *r)
{
	struct json_object *o = json_object_new_object(), *off = json_object_new_object();
	static const char *const kinds[REQ_CPU__KINDS] = { "runq", "file", "net", "lock",
							   "poll", "sleep", "other" };
	char w[160], peer[64];

	if (!o || !off) {
		json_object_put(o);
		json_object_put(off);
		return NULL;
	}
	what(w, sizeof(w), r);
	addr(peer, sizeof(peer), r->family, r->client.ip, r->client.port);
	json_object_object_add(o, "req.id", json_object_new_uint64(r->id));
	json_object_object_add(o, "req.protocol",
			       json_object_new_string(r->proto == REQ_PROTO_NONE ? "other" :
						      req_proto__name(r->proto)));
	json_object_object_add(o, "req.request", json_object_new_string(w));
	if (r->status >= 0)
		json_object_object_add(o, "req.status", json_object_new_int(r->status));
	json_object_object_add(o, "req.client", json_object_new_string(peer));
	json_object_object_add(o, "proc.pid", json_object_new_int64(r->server.pid));
	json_object_object_add(o, "thread.tid", json_object_new_int64(r->server.tid));
	json_object_object_add(o, "proc.name", json_object_new_string(r->server.comm));
	json_object_object_add(o, "container.id",
			       json_object_new_string(r->server.container ? r->server.container->id
									  : "host"));
	json_object_object_add(o, "req.duration", json_object_new_uint64(r->duration));
	json_object_object_add(o, "req.oncpu", json_object_new_uint64(r->oncpu));
	for (unsigned k = 0; k < REQ_CPU__KINDS; k++)
		json_object_object_add(k == REQ_CPU_RUNQ ? o : off,
				       k == REQ_CPU_RUNQ ? "req.runq" : kinds[k],
				       json_object_new_uint64(r->cpu[k]));
	json_object_object_add(o, "req.offcpu", off);
	return o;
}

/* FILE written whole or not at all: a temporary name, then a rename. */
static int file__put(const char *dir, uint64_t id, const char *ext, const struct prof_timeline *t,
		     struct json_object *o)
{
	char tmp[4096], path[4096];
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "%s/req-%" PRIu64 ".%s", dir, id, ext);
	snprintf(tmp, sizeof(tmp), "%s/.req-%" PRIu64 ".%s.tmp", dir, id, ext);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	if (o)
		err = fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), f) < 0 ||
		      fputc('\n', f) == EOF ? -EIO : 0;
	else
		err = prof_timeline__svg(t, f);
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

static int count__cmp(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return x[1] != y[1] ? (x[1] < y[1] ? 1 : -1) : (x[0] > y[0]) - (x[0] < y[0]);
}

/* The request's on-CPU stacks: its thread's samples in its span, each
 * distinct stack with its count, most first. NULL: none (or ENOMEM). */
static struct json_object *stacks__json(struct profile_out *po, const struct req_record *r)
{
	const struct prof_recent *rec = req_mode__recent(po->a->req);
	size_t n = prof_recent__samples(rec, (uint64_t)r->server.tid, r->ts_start, r->ts_end,
					po->keys, PROF_RECENT_SAMPLES);
	int64_t kc[PROF_RECENT_SAMPLES][2];
	size_t m = 0;
	struct json_object *arr = json_object_new_array();

	if (!arr)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;

		while (j < m && kc[j][0] != po->keys[i])
			j++;
		if (j == m) {
			kc[m][0] = po->keys[i];
			kc[m++][1] = 0;
		}
		kc[j][1]++;
	}
	qsort(kc, m, sizeof(kc[0]), count__cmp);
	for (size_t j = 0; j < m; j++) {
		struct json_object *o = json_object_new_object();
		const char *f = prof_stacks__folded(po->stacks, (int)kc[j][0]);

		if (!o || !f || json_object_array_add(arr, o)) {
			json_object_put(o);
			continue;
		}
		json_object_object_add(o, "stack", json_object_new_string(f));
		json_object_object_add(o, "count", json_object_new_int64(kc[j][1]));
	}
	return arr;
}

static int timeline__write(struct profile_out *po, struct agent *a, const struct req_record *r)
{
	const struct prof_recent *rec = a->req ? req_mode__recent(a->req) : NULL;
	struct prof_timeline t = { .id = r->id, .start = r->ts_start, .end = r->ts_end };
	char title[200], thread[160], w[160];
	struct json_object *o, *req;
	size_t n;
	int err;

	if (!rec)
		return -EINVAL;
	n = prof_recent__window(rec, (uint64_t)r->server.tid, t.start, t.end, po->raw, po->raw_names,
				TL_SLICES, &t.whole);
	for (size_t i = 0; i < n; i++) {
		const struct prof_slice_rec *x = &po->raw[i];
		struct prof_tl_slice *s = &po->s[i];

		/* clipped to the request's span: a wait that began before the
		 * first read's exit is the request's only from there */
		s->start = x->start < t.start ? t.start : x->start;
		s->dur = (x->start + x->dur > t.end ? t.end : x->start + x->dur) - s->start;
		s->kind = x->kind;
		s->flags = x->flags;
		s->syscall = x->nr < SYSCALL_TABLE_SIZE ? schema_syscall_names[x->nr] : NULL;
		s->fd = x->flags & PROF_SLICE_F_FD ? (int64_t)x->obj : -1;
		/* named when the slice came, while the fd was open */
		s->fd_name = s->fd >= 0 && po->raw_names[i][0] ? po->raw_names[i] : NULL;
		s->futex = x->kind == PROF_SLICE_LOCK ? x->obj : 0;
		s->waker = x->waker;
		s->waker_name = x->waker ? thread__name(a, x->waker, po->names[i],
							sizeof(po->names[i])) : NULL;
	}
	t.s = po->s;
	t.n = n;
	/* its calls: those kept whose parent it is, oldest first */
	for (uint32_t i = 0; i < po->calls_n && t.ncalls < TL_CALLS; i++) {
		uint32_t k = (po->calls_next + PROFILE_OUT_CALLS - po->calls_n + i) % PROFILE_OUT_CALLS;
		const struct call_rec *c = &po->calls[k];

		if (c->parent != r->id)
			continue;
		po->tc[t.ncalls++] = (struct prof_tl_call){
			.id = c->id, .start = c->start, .dur = c->dur,
			.proto = c->proto == REQ_PROTO_NONE ? "other" : req_proto__name(c->proto),
			.what = c->what, .peer = c->peer, .status = c->status, .error = c->error };
	}
	t.calls = po->tc;
	t.oncpu = r->oncpu;
	for (unsigned k = 0; k < REQ_CPU__KINDS; k++)
		t.t[k] = r->cpu[k];
	what(w, sizeof(w), r);
	n = (size_t)snprintf(title, sizeof(title), "%s %s", r->proto == REQ_PROTO_NONE ? "other" :
			     req_proto__name(r->proto), w);
	if (r->status >= 0 && n < sizeof(title))
		snprintf(title + n, sizeof(title) - n, " %d", r->status);
	snprintf(thread, sizeof(thread), "%s[%" PRId64 "/%" PRId64 "] %s", r->server.comm,
		 r->server.pid, r->server.tid, r->server.container ? r->server.container->id : "host");
	t.title = title;
	t.thread = thread;
	o = prof_timeline__json(&t);
	req = req__json(r);
	if (!o || !req || json_object_object_add(o, "req", req)) {
		json_object_put(o);
		json_object_put(req);
		return -ENOMEM;
	}
	if (po->stacks) {
		struct json_object *st = stacks__json(po, r);

		if (!st || json_object_object_add(o, "stacks", st)) {
			json_object_put(st);
			json_object_put(o);
			return -ENOMEM;
		}
	}
	err = file__put(po->dir, r->id, "json", &t, o);
	json_object_put(o);
	if (!err)
		err = file__put(po->dir, r->id, "svg", &t, NULL);
	if (!err && !t.whole)
		po->c.n_partial++;
	return err;
}

void profile_out__record(struct profile_out *po, struct agent *a, const struct req_record *r,
			 bool matched)
{
	uint64_t sec;

	if (r->side == REQ_SIDE_CLIENT) {
		if (r->parent)
			call__keep(po, r);
		return;
	}
	if (!matched || !r->has_cpu || r->proto >= REQ_PROTO_MAX || r->duration < po->thr[r->proto])
		return;
	sec = r->ts_end / 1000000000ull;
	if (sec != po->sec) {
		po->sec = sec;
		po->in_sec = 0;
	}
	if (po->in_sec >= PROFILE_OUT_PER_SEC) {
		po->c.n_rate++;
		return;
	}
	po->in_sec++;
	if (timeline__write(po, a, r))
		po->c.n_errors++;
	else
		po->c.n_written++;
}

void profile_out__counters(const struct profile_out *po, struct profile_out_counters *out)
{
	*out = po->c;
	if (po->stacks) {
		struct prof_stacks_counters sc;

		prof_stacks__counters(po->stacks, &sc);
		out->n_samples = sc.n_samples;
		out->n_stacks = sc.n_keys;
		out->n_stacks_full = sc.n_full;
		out->n_stacks_lost = sc.n_lost;
	}
}


const char *profile_out__dir(const struct profile_out *po)
{
	return po->dir;
}
