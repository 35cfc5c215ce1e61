/* Container identity from cgroup paths, as the runtimes name their cgroups:
 *   Docker      /docker/<id>                 .../docker-<id>.scope
 *   containerd  /kubepods/<qos>/pod<uid>/<id> .../cri-containerd-<id>.scope
 *               ...slice:cri-containerd:<id> (systemd driver, as runc is given it)
 *   CRI-O       .../crio-<id>.scope          .../crio-<id>
 *   Podman      .../libpod-<id>.scope        /libpod_parent/libpod-<id>
 *   LXC         /lxc/<name>  /lxc.payload/<name>  /lxc.payload.<name>
 *   libvirt     .../machine-lxc\x2d<n>.scope  /libvirt/lxc/<name>  <name>.libvirt-lxc
 * Pod UIDs: pod<uid> (cgroupfs) or kubepods-<qos>-pod<uid with _>.slice. The
 * runtimes' own helpers (crio-conmon-<id>, libpod-conmon-<id>, lxc.monitor) are
 * not containers. */
#include <string.h>

#include "container.h"

#define HEX_ID_LEN 64

static const char *const type_names[CT__COUNT] = {
	[CT_DOCKER] = "docker", [CT_LXC] = "lxc", [CT_LIBVIRT_LXC] = "libvirt-lxc",
	[CT_MESOS] = "mesos", [CT_RKT] = "rkt", [CT_CUSTOM] = "custom", [CT_CRI] = "cri",
	[CT_CONTAINERD] = "containerd", [CT_CRIO] = "cri-o", [CT_BPM] = "bpm",
	[CT_STATIC] = "static", [CT_PODMAN] = "podman",
};

const char *container_type__name(unsigned type)
{
	return type < CT__COUNT ? type_names[type] : NULL;
}

/* A path component: S, N bytes. */
struct comp {
	const char *s;
	size_t n;
};

static bool comp__is(const struct comp *c, const char *lit)
{
	return c->n == strlen(lit) && memcmp(c->s, lit, c->n) == 0;
}

static bool comp__starts(const struct comp *c, const char *lit)
{
	size_t l = strlen(lit);

	return c->n >= l && memcmp(c->s, lit, l) == 0;
}

static bool is_hex_id(const char *s, size_t n)
{
	if (n != HEX_ID_LEN)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
			return false;
	}
	return true;
}

static bool ident__set(struct container_ident *out, uint8_t type, const char *id, size_t n)
{
	if (n == 0 || n > CONTAINER_ID_MAX || memchr(id, '\0', n))
		return false;
	out->type = type;
	memcpy(out->id, id, n);
	out->id[n] = '\0';
	return true;
}

/* PREFIX<64 hex>SUFFIX as the whole of C (SUFFIX may be ""). */
static bool hex_between(const struct comp *c, const char *prefix, const char *suffix,
			const char **id)
{
	size_t pl = strlen(prefix), sl = strlen(suffix);

	if (c->n != pl + HEX_ID_LEN + sl || memcmp(c->s, prefix, pl) ||
	    memcmp(c->s + pl + HEX_ID_LEN, suffix, sl) || !is_hex_id(c->s + pl, HEX_ID_LEN))
		return false;
	*id = c->s + pl;
	return true;
}

/* "...:<runtime>:<64 hex>" at the end of C: a systemd-driver cgroup path as the
 * CRI hands it to runc when runc itself does not turn it into a scope. */
static bool colon_form(const struct comp *c, const char *runtime, const char **id)
{
	size_t rl = strlen(runtime);
	const char *hex, *rt;

	if (c->n < rl + 2 + HEX_ID_LEN)
		return false;
	/* pointers, not size_t indexes: -(HEX_ID_LEN + 2 + rl) would wrap */
	hex = c->s + c->n - HEX_ID_LEN;
	rt = hex - 1 - rl;
	if (hex[-1] != ':' || !is_hex_id(hex, HEX_ID_LEN) || memcmp(rt, runtime, rl) ||
	    rt[-1] != ':')
		return false;
	*id = hex;
	return true;
}

/* Components of a runc-style runtime: each names its runtime's type. */
static const struct {
	const char *prefix, *suffix;
	uint8_t type;
} scopes[] = {
	{ "docker-", ".scope", CT_DOCKER },
	{ "cri-containerd-", ".scope", CT_CONTAINERD },
	{ "crio-", ".scope", CT_CRIO },
	{ "crio-", "", CT_CRIO },
	{ "libpod-", ".scope", CT_PODMAN },
	{ "libpod-", "", CT_PODMAN },
};

static const struct {
	const char *runtime;
	uint8_t type;
} colons[] = {
	{ "cri-containerd", CT_CONTAINERD },
	{ "crio", CT_CRIO },
	{ "docker", CT_DOCKER },
};

/* LXC and libvirt-lxc name containers by name, not by a hex id. C is
 * component I of COMPS. */
static bool comp__lxc(const struct comp *comps, size_t i, struct container_ident *out)
{
	static const char payload[] = "lxc.payload.", vscope[] = "-lxc\\x2d";
	const struct comp *c = &comps[i], *parent = i ? &comps[i - 1] : NULL;
	const char *p;

	if (parent && comp__is(parent, "lxc")) {
		/* /libvirt/lxc/<name> is libvirt's, any other /lxc/<name> LXC's */
		bool libvirt = i >= 2 && comp__is(&comps[i - 2], "libvirt");

		return ident__set(out, libvirt ? CT_LIBVIRT_LXC : CT_LXC, c->s, c->n);
	}
	if (parent && comp__is(parent, "lxc.payload"))
		return ident__set(out, CT_LXC, c->s, c->n);
	if (comp__starts(c, payload))
		return ident__set(out, CT_LXC, c->s + strlen(payload), c->n - strlen(payload));
	if (c->n > 12 && memcmp(c->s + c->n - 12, ".libvirt-lxc", 12) == 0)
		return ident__set(out, CT_LIBVIRT_LXC, c->s, c->n - 12);
	/* systemd: machine-lxc\x2d<n>\x2d<name>.scope */
	p = memmem(c->s, c->n, vscope, strlen(vscope));
	if (p && c->n > 6 && memcmp(c->s + c->n - 6, ".scope", 6) == 0) {
		const char *id = p + strlen(vscope), *end = c->s + c->n - 6;

		return id < end && ident__set(out, CT_LIBVIRT_LXC, id, (size_t)(end - id));
	}
	return false;
}

/* The container component I of COMPS names, if any. */
static bool comp__container(const struct comp *comps, size_t i, bool in_kubepods,
			    struct container_ident *out)
{
	const struct comp *c = &comps[i];
	const char *id;

	for (size_t k = 0; k < sizeof(scopes) / sizeof(scopes[0]); k++)
		if (hex_between(c, scopes[k].prefix, scopes[k].suffix, &id))
			return ident__set(out, scopes[k].type, id, HEX_ID_LEN);
	for (size_t k = 0; k < sizeof(colons) / sizeof(colons[0]); k++)
		if (colon_form(c, colons[k].runtime, &id))
			return ident__set(out, colons[k].type, id, HEX_ID_LEN);
	if (is_hex_id(c->s, c->n)) {
		/* a bare id: Docker's own tree, or under kubepods whichever CRI
		 * runtime runs it (the runtime files tell) */
		bool docker = i && comp__is(&comps[i - 1], "docker");

		out->ambiguous = !docker;
		return ident__set(out, docker ? CT_DOCKER : in_kubepods ? CT_CRI : CT_CONTAINERD,
				  c->s, c->n);
	}
	return comp__lxc(comps, i, out);
}

/* pod<uid> (cgroupfs) or kubepods[-<qos>]-pod<uid with '_' for '-'>.slice,
 * also before the ':' of a "slice:runtime:id" component. */
static bool comp__pod_uid(const struct comp *whole, char *uid)
{
	const char *colon = memchr(whole->s, ':', whole->n);
	struct comp part = { whole->s, colon ? (size_t)(colon - whole->s) : whole->n };
	const struct comp *c = &part;
	char tmp[CONTAINER_POD_UID_MAX];
	const char *p = NULL;
	size_t n = 0;

	if (comp__starts(c, "pod") && c->n == 3 + CONTAINER_POD_UID_MAX) {
		p = c->s + 3;
		n = CONTAINER_POD_UID_MAX;
	} else if (comp__starts(c, "kubepods") && c->n > 6 + CONTAINER_POD_UID_MAX &&
		   memcmp(c->s + c->n - 6, ".slice", 6) == 0) {
		p = c->s + c->n - 6 - CONTAINER_POD_UID_MAX;
		n = CONTAINER_POD_UID_MAX;
		if (p - c->s < 4 || memcmp(p - 4, "-pod", 4))
			return false;
	}
	if (!p)
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = p[i] == '_' ? '-' : p[i];

		if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || ch == '-'))
			return false;
		tmp[i] = ch;
	}
	memcpy(uid, tmp, n);
	uid[n] = '\0';
	return true;
}

#define MAX_COMPONENTS 64

bool cgroup__container(const char *path, size_t len, struct container_ident *out)
{
	struct comp comps[MAX_COMPONENTS];
	size_t nc = 0, i = 0;
	bool kube = false;
	int found = -1;

	if (!path)
		return false;
	while (i < len && nc < MAX_COMPONENTS) {
		size_t start;

		while (i < len && path[i] == '/')
			i++;
		start = i;
		while (i < len && path[i] != '/' && path[i] != '\0')
			i++;
		if (i > start) {
			comps[nc].s = path + start;
			comps[nc].n = i - start;
			nc++;
		}
		if (i < len && path[i] == '\0')
			break;
	}
	memset(out, 0, sizeof(*out));
	for (i = 0; i < nc; i++)
		kube |= comp__starts(&comps[i], "kubepods");
	/* the deepest component that names a container */
	for (i = nc; i-- > 0;) {
		if (comp__container(comps, i, kube, out)) {
			found = (int)i;
			break;
		}
	}
	if (found < 0) {
		memset(out, 0, sizeof(*out));
		return false;
	}
	/* the pod is above the container, or in its own "slice:runtime:id" */
	for (i = (size_t)found + 1; i-- > 0;)
		if (comp__pod_uid(&comps[i], out->pod_uid))
			break;
	return true;
}

bool cgroups__container(const char *cgroups, size_t len, struct container_ident *out)
{
	size_t off = 0;

	while (cgroups && off < len) {
		const char *e = cgroups + off;
		size_t n = strnlen(e, len - off);
		const char *eq = memchr(e, '=', n);

		if (eq && cgroup__container(eq + 1, n - (size_t)(eq + 1 - e), out))
			return true;
		off += n + 1;
	}
	memset(out, 0, sizeof(*out));
	return false;
}
