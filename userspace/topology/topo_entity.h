/* Naming one end of a request: the labels an entity carries in the metrics
 * and on the service map. */
#ifndef TOPOLOGY_TOPO_ENTITY_H
#define TOPOLOGY_TOPO_ENTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct req_end;

enum topo_kind {
	TOPO_KIND_CONTAINER = 1,	/* a local process in a container */
	TOPO_KIND_HOST,			/* a local process on the host */
	TOPO_KIND_REMOTE,		/* an address only */
	TOPO_KIND_OTHER,		/* the overflow entity past the cap */
};

#define TOPO_IP_MAX 46	/* INET6_ADDRSTRLEN */

/* Zero-filled past each string's NUL, so two names compare with memcmp. */
struct topo_name {
	uint8_t kind;			/* enum topo_kind */
	uint16_t port;			/* a remote server's port, else 0 */
	char ns[64];			/* Kubernetes namespace */
	char wl_kind[16];		/* Deployment, StatefulSet, DaemonSet or "" */
	char wl_name[254];
	char pod[254];
	char container[128];		/* container name */
	char container_id[65];		/* container.id, "host" on the host */
	char process[16];		/* comm, on the host */
	char ip[TOPO_IP_MAX];		/* a remote end's address */
};

/* Names END (of a connection of FAMILY, PPM_AF_INET or PPM_AF_INET6): a
 * local end by its container (pod, workload) or, on the host, its process; a
 * remote end by its address, and its port when it is the SERVER. Strings
 * longer than their field are cut. */
void topo_name__from_end(struct topo_name *n, const struct req_end *end, uint8_t family,
			 bool server);

/* The overflow entity. */
void topo_name__other(struct topo_name *n);

/* A guess at the workload from the pod name's shape, as no Kubernetes API is
 * asked: "<d>-<5..10 r>-<5 r>" is Deployment d, "<s>-<digits>" StatefulSet
 * s, "<d>-<5 r>" DaemonSet d, else kind "" and the pod name itself, where r
 * is a character of Kubernetes' random strings, [b-df-hj-np-tv-xz2456-9]. KIND gets at least 16 bytes; NAME is cut to NAME_LEN. */
void topo__workload(const char *pod, char *kind, size_t kind_len, char *name, size_t name_len);

/* IP (network order; IPv4 in the first 4 bytes) as text: dotted IPv4, IPv6 as
 * RFC 5952 (inet_ntop). 0, or -EAFNOSUPPORT for another family. */
int topo__ip_text(const uint8_t ip[16], uint8_t family, char *out, size_t len);

#endif
