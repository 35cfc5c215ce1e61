/* Who an end of a request is: a container (and its pod and a guess at its
 * workload), a process on the host, or an address. */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "container.h"
#include "ppm_wire.h"
#include "req_record.h"
#include "topo_entity.h"

/* Copies S into OUT (LEN bytes, LEN > 0), cut; the rest stays zero. */
static void put(char *out, size_t len, const char *s)
{
	size_t n;

	if (!s)
		return;
	n = strnlen(s, len - 1);
	memcpy(out, s, n);
}

/* Whether S[0..N) is made of the letters Kubernetes draws generated names
 * and pod-template hashes from (apimachinery's util/rand: no vowels, no 0, 1
 * or 3, so no words): narrower than [a-z0-9], it tells "kube-proxy-x7k2p"
 * (a DaemonSet) from a Deployment's pod. */
static bool k8s_random(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!s[i] || !strchr("bcdfghjklmnpqrstvwxz2456789", s[i]))
			return false;
	return true;
}

static bool digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return n > 0;
}

static void put_n(char *out, size_t len, const char *s, size_t n)
{
	if (n > len - 1)
		n = len - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

void topo__workload(const char *pod, char *kind, size_t kind_len, char *name, size_t name_len)
{
	size_t len = pod ? strlen(pod) : 0, keep = len;
	const char *last = len ? memrchr(pod, '-', len) : NULL;
	const char *mid, *k = "";
	size_t tail = last ? (size_t)(pod + len - last - 1) : 0;

	if (last && last > pod && tail == 5 && k8s_random(last + 1, 5)) {
		mid = memrchr(pod, '-', (size_t)(last - pod));
		if (mid && mid > pod && last - mid - 1 >= 5 && last - mid - 1 <= 10 &&
		    k8s_random(mid + 1, (size_t)(last - mid - 1))) {
			k = "Deployment";
			keep = (size_t)(mid - pod);
		}
	}
	/* digits before DaemonSet: an ordinal could pass for five [a-z0-9] */
	if (!*k && last && last > pod && digits(last + 1, tail)) {
		k = "StatefulSet";
		keep = (size_t)(last - pod);
	} else if (!*k && last && last > pod && tail == 5 && k8s_random(last + 1, 5)) {
		k = "DaemonSet";
		keep = (size_t)(last - pod);
	}
	/* zeroed whole: names compare with memcmp */
	memset(kind, 0, kind_len);
	memset(name, 0, name_len);
	put_n(kind, kind_len, k, strlen(k));
	put_n(name, name_len, pod ? pod : "", keep);
}

int topo__ip_text(const uint8_t ip[16], uint8_t family, char *out, size_t len)
{
	int af = family == PPM_AF_INET ? AF_INET : family == PPM_AF_INET6 ? AF_INET6 : -1;

	if (af < 0)
		return -EAFNOSUPPORT;
	if (!inet_ntop(af, ip, out, (socklen_t)len))
		return -errno;
	return 0;
}

void topo_name__other(struct topo_name *n)
{
	memset(n, 0, sizeof(*n));
	n->kind = TOPO_KIND_OTHER;
	put(n->wl_name, sizeof(n->wl_name), "other");
}

void topo_name__from_end(struct topo_name *n, const struct req_end *end, uint8_t family,
			 bool server)
{
	const struct container_info *ci = end->local ? end->container : NULL;

	memset(n, 0, sizeof(*n));
	/* an address names only a remote end: a local one is its container or
	 * process, whichever address and port it was reached on */
	if (!end->local) {
		n->kind = TOPO_KIND_REMOTE;
		if (server)
			n->port = end->port;
		if (topo__ip_text(end->ip, family, n->ip, sizeof(n->ip)))
			n->ip[0] = '\0';
		return;
	}
	if (!ci) {
		n->kind = TOPO_KIND_HOST;
		put(n->container_id, sizeof(n->container_id), "host");
		put(n->process, sizeof(n->process), end->comm);
		return;
	}
	n->kind = TOPO_KIND_CONTAINER;
	put(n->ns, sizeof(n->ns), ci->pod_namespace);
	put(n->pod, sizeof(n->pod), ci->pod_name);
	put(n->container, sizeof(n->container), ci->name);
	put(n->container_id, sizeof(n->container_id), ci->id);
	if (ci->pod_name)
		topo__workload(ci->pod_name, n->wl_kind, sizeof(n->wl_kind), n->wl_name,
			       sizeof(n->wl_name));
}
