/* Socket inodes -> type and addresses, from the /proc/PID/net tables of each
 * network namespace (tcp, tcp6, udp, udp6, raw, raw6, unix, netlink). */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "inspect_int.h"
#include "procfs_int.h"

struct sock_ent {
	struct hnode node;	/* key: inode */
	enum fd_type type;
	uint8_t family, l4proto;
	uint8_t lip[16], rip[16];
	uint16_t lport, rport;
	char *path;		/* unix */
};

struct sock_tables {
	struct hmap map;
};

/* An address as /proc/net prints it: each 32-bit word of the raw (network order)
 * address printed as a native integer, so reading the words back natively gives
 * the original bytes. */
static int parse_addr(const char *hex, uint8_t *ip, size_t iplen)
{
	if (strlen(hex) != iplen * 2)
		return -EINVAL;
	for (size_t w = 0; w < iplen / 4; w++) {
		char word[9];
		uint32_t v;

		memcpy(word, hex + w * 8, 8);
		word[8] = '\0';
		v = (uint32_t)strtoul(word, NULL, 16);
		memcpy(ip + w * 4, &v, 4);
	}
	return 0;
}

static struct sock_ent *sock_tables__new_ent(struct sock_tables *st, uint64_t ino)
{
	struct sock_ent *e;

	if (ino == 0 || hmap__find(&st->map, (int64_t)ino))
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->node.key = (int64_t)ino;
	hmap__insert(&st->map, &e->node);
	return e;
}

static void load_inet(struct sock_tables *st, const char *dir, const char *file,
		      uint8_t family, uint8_t l4proto)
{
	char path[PROCFS_PATH_MAX], line[512];
	size_t iplen = family == PPM_AF_INET6 ? 16 : 4;
	FILE *f;

	procfs__path(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char lhex[40], rhex[40];
		unsigned lport, rport;
		unsigned long long ino;
		struct sock_ent *e;

		if (sscanf(line, " %*s %39[0-9A-Fa-f]:%x %39[0-9A-Fa-f]:%x %*x %*s %*s %*s %*u %*u %llu",
			   lhex, &lport, rhex, &rport, &ino) != 5)
			continue;
		e = sock_tables__new_ent(st, ino);
		if (!e)
			continue;
		if (parse_addr(lhex, e->lip, iplen) < 0 || parse_addr(rhex, e->rip, iplen) < 0) {
			hmap__remove(&st->map, (int64_t)ino);
			free(e);
			continue;
		}
		e->type = family == PPM_AF_INET6 ? FDT_IPV6_SOCK : FDT_IPV4_SOCK;
		e->family = family;
		e->l4proto = l4proto;
		e->lport = (uint16_t)lport;
		e->rport = (uint16_t)rport;
	}
	fclose(f);
}

static void load_unix(struct sock_tables *st, const char *dir)
{
	char path[PROCFS_PATH_MAX], line[PROCFS_PATH_MAX + 128];
	FILE *f;

	procfs__path(path, sizeof(path), "%s/unix", dir);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long ino;
		struct sock_ent *e;
		int off = 0;
		char *p;

		if (sscanf(line, "%*x: %*x %*x %*x %*x %*x %llu%n", &ino, &off) != 1)
			continue;
		e = sock_tables__new_ent(st, ino);
		if (!e)
			continue;
		e->type = FDT_UNIX_SOCK;
		e->family = PPM_AF_UNIX;
		p = line + off;
		p += strspn(p, " \t");
		p[strcspn(p, "\n")] = '\0';
		if (*p)
			e->path = strdup(p);
	}
	fclose(f);
}

static void load_netlink(struct sock_tables *st, const char *dir)
{
	char path[PROCFS_PATH_MAX], line[512];
	FILE *f;

	procfs__path(path, sizeof(path), "%s/netlink", dir);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long ino;
		struct sock_ent *e;

		if (sscanf(line, "%*x %*d %*d %*x %*d %*d %*d %*d %*d %llu", &ino) != 1)
			continue;
		e = sock_tables__new_ent(st, ino);
		if (e)
			e->type = FDT_NETLINK;
	}
	fclose(f);
}

struct sock_tables *sock_tables__load(const char *root, int64_t pid)
{
	struct sock_tables *st = calloc(1, sizeof(*st));
	char dir[PROCFS_PATH_MAX];

	if (!st)
		return NULL;
	if (hmap__init(&st->map, 256) < 0) {
		free(st);
		errno = ENOMEM;
		return NULL;
	}
	if (pid >= 0)
		procfs__path(dir, sizeof(dir), "%s/proc/%" PRId64 "/net", root, pid);
	else
		procfs__path(dir, sizeof(dir), "%s/proc/net", root);
	load_inet(st, dir, "tcp", PPM_AF_INET, IPPROTO_TCP);
	load_inet(st, dir, "tcp6", PPM_AF_INET6, IPPROTO_TCP);
	load_inet(st, dir, "udp", PPM_AF_INET, IPPROTO_UDP);
	load_inet(st, dir, "udp6", PPM_AF_INET6, IPPROTO_UDP);
	load_inet(st, dir, "raw", PPM_AF_INET, IPPROTO_RAW);
	load_inet(st, dir, "raw6", PPM_AF_INET6, IPPROTO_RAW);
	load_unix(st, dir);
	load_netlink(st, dir);
	return st;
}

void sock_tables__free(struct sock_tables *st)
{
	struct hnode *n, *nx;
	uint32_t i;

	if (!st)
		return;
	hmap__for_each(&st->map, i, n, nx) {
		struct sock_ent *e = container_of(n, struct sock_ent, node);

		free(e->path);
		free(e);
	}
	hmap__fini(&st->map);
	free(st);
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

int sock_tables__lookup(const struct sock_tables *st, uint64_t ino, struct fd_info *fi)
{
	struct hnode *n = st ? hmap__find(&st->map, (int64_t)ino) : NULL;
	const struct sock_ent *e;
	char name[128];

	if (!n)
		return -ENOENT;
	e = container_of(n, struct sock_ent, node);
	fi->type = e->type;
	fi->ino = ino;
	fi->family = e->family;
	fi->l4proto = e->l4proto;
	if (e->type == FDT_UNIX_SOCK)
		return e->path ? fd_info__set_name(fi, e->path, strlen(e->path)) : 0;
	if (e->type != FDT_IPV4_SOCK && e->type != FDT_IPV6_SOCK)
		return 0;
	if (all_zero(e->rip, sizeof(e->rip)) && e->rport == 0) {
		/* listening or unconnected: the local address is the server side */
		memcpy(fi->dip, e->lip, sizeof(fi->dip));
		fi->dport = e->lport;
		fi->is_server = true;
		if (sock__format_addr(e->family, fi->dip, fi->dport, name, sizeof(name)) < 0)
			return 0;
		return fd_info__set_name(fi, name, strlen(name));
	}
	memcpy(fi->sip, e->lip, sizeof(fi->sip));
	fi->sport = e->lport;
	memcpy(fi->dip, e->rip, sizeof(fi->dip));
	fi->dport = e->rport;
	return sock__set_tuple_name(fi);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void procfs__drop_sockets(struct procfs *p)
{
	while (p->socks) {
		struct netns_socks *s = p->socks;

		p->socks = s->next;
		sock_tables__free(s->st);
		free(s);
	}
}

int procfs__lookup_socket(struct procfs *p, int64_t pid, uint64_t ino, struct fd_info *fi)
{
	char path[PROCFS_PATH_MAX];
	struct netns_socks *s;
	struct stat sb;
	uint64_t netns;

	procfs__path(path, sizeof(path), "%s/proc/%" PRId64 "/ns/net", p->root, pid);
	/* Without the namespace link, each process gets its own tables. */
	netns = stat(path, &sb) == 0 ? (uint64_t)sb.st_ino : (1ULL << 63) | (uint64_t)pid;
	for (s = p->socks; s; s = s->next)
		if (s->netns == netns)
			break;
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return -ENOMEM;
		s->netns = netns;
		s->st = sock_tables__load(p->root, pid);
		s->next = p->socks;
		p->socks = s;
		if (p->socks_loaded_ns == 0)
			p->socks_loaded_ns = now_ns();
		return sock_tables__lookup(s->st, ino, fi);
	}
	if (sock_tables__lookup(s->st, ino, fi) == 0)
		return 0;
	/* A socket newer than our copy of the tables: reload, at most once a second. */
	if (now_ns() - p->socks_loaded_ns < 1000000000ULL)
		return -ENOENT;
	procfs__drop_sockets(p);
	p->socks_loaded_ns = 0;
	return procfs__lookup_socket(p, pid, ino, fi);
}
