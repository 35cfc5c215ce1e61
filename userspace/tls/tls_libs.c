/* Finding the TLS libraries processes map (tls_libs.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procmaps.h"
#include "tls_libs.h"

struct tls_file {
	uint64_t dev, ino;
};

struct tls_libs {
	char *proc;
	struct tls_file *taken;	/* few: a host has a handful of copies */
	size_t n, cap;
	struct tls_libs_counters c;
};

struct tls_libs *tls_libs__new(const char *proc)
{
	struct tls_libs *t = calloc(1, sizeof(*t));

	if (!t || !(t->proc = strdup(proc))) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

void tls_libs__free(struct tls_libs *t)
{
	if (!t)
		return;
	free(t->proc);
	free(t->taken);
	free(t);
}

/* NAME starts with PREFIX and then a version ("libssl.so.3", not NSS's
 * "libssl3.so" nor the development link "libssl.so"). */
static bool versioned(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	return !strncmp(name, prefix, n) && isdigit((unsigned char)name[n]);
}

enum tls_lib_kind tls_libs__kind(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (versioned(base, "libssl.so."))
		return TLS_LIB_OPENSSL;
	if (versioned(base, "libgnutls.so."))
		return TLS_LIB_GNUTLS;
	return 0;
}

static bool taken(const struct tls_libs *t, uint64_t dev, uint64_t ino)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->taken[i].dev == dev && t->taken[i].ino == ino)
			return true;
	return false;
}

static int take(struct tls_libs *t, uint64_t dev, uint64_t ino)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 8;
		struct tls_file *v = realloc(t->taken, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->taken = v;
		t->cap = cap;
	}
	t->taken[t->n++] = (struct tls_file){ dev, ino };
	t->c.files++;
	return 0;
}

/* One process's maps: its library files not taken yet to FN. */
static int scan_pid(struct tls_libs *t, int64_t pid, tls_libs_fn *fn, void *ctx)
{
	char path[PROCMAP_PATH_MAX + 64], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%lld/maps", t->proc, (long long)pid);
	f = fopen(path, "re");
	if (!f) {
		t->c.unreadable++;
		return 0;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		struct procmap m;
		struct tls_lib_found lf;
		uint64_t dev;

		if (line[len - 1] == '\n')
			line[--len] = '\0';
		/* the cheap test first: most lines name no TLS library */
		if (!strstr(line, "libssl.so.") && !strstr(line, "libgnutls.so."))
			continue;
		if (procmaps__parse_line(line, (size_t)len, &m) || !m.exec || m.deleted ||
		    m.path[0] != '/' || !(lf.kind = tls_libs__kind(m.path)))
			continue;
		dev = (uint64_t)m.dev_major << 32 | m.dev_minor;
		if (taken(t, dev, m.inode))
			continue;
		snprintf(path, sizeof(path), "%s/%lld/root%s", t->proc, (long long)pid, m.path);
		lf.path = path;
		lf.pid = pid;
		lf.dev = dev;
		lf.ino = m.inode;
		if (fn(ctx, &lf)) {
			t->c.refused++;
			continue;
		}
		if (take(t, dev, m.inode))
			break;
		n++;
	}
	free(line);
	fclose(f);
	return n;
}

int tls_libs__scan(struct tls_libs *t, tls_libs_fn *fn, void *ctx)
{
	DIR *d = opendir(t->proc);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -errno;
	t->c.scans++;
	while ((e = readdir(d))) {
		char *end;
		long long pid = strtoll(e->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		n += scan_pid(t, pid, fn, ctx);
	}
	closedir(d);
	return n;
}

void tls_libs__counters(const struct tls_libs *t, struct tls_libs_counters *out)
{
	*out = t->c;
}
