/* Finding the TLS libraries processes map (tls_libs.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "procmaps.h"
#include "tls_libs.h"

struct tls_file {
	uint64_t dev, ino;
};

struct tls_libs {
	char *proc;
	struct tls_file *taken;	/* few: a host has a handful of copies */
	size_t n, cap;
	/* executables read and not taken (not Go, or not probeable), sorted:
	 * a host runs hundreds, looked up for every process at every scan */
	struct tls_file *judged;
	size_t nj, capj;
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
	free(t->judged);
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

static int file__cmp(const void *a, const void *b)
{
	const struct tls_file *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* Where (DEV, INO) is or would go in the judged executables. */
static size_t judged__at(const struct tls_libs *t, uint64_t dev, uint64_t ino, bool *found)
{
	struct tls_file k = { dev, ino };
	size_t lo = 0, hi = t->nj;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = file__cmp(&t->judged[mid], &k);

		if (!c) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

/* An executable read once and never again; without memory it is read again
 * at the next scan. */
static void judge(struct tls_libs *t, uint64_t dev, uint64_t ino)
{
	bool found;
	size_t at = judged__at(t, dev, ino, &found);

	if (found)
		return;
	if (t->nj == t->capj) {
		size_t cap = t->capj ? t->capj * 2 : 64;
		struct tls_file *v = realloc(t->judged, cap * sizeof(*v));

		if (!v)
			return;
		t->judged = v;
		t->capj = cap;
	}
	memmove(&t->judged[at + 1], &t->judged[at], (t->nj - at) * sizeof(t->judged[0]));
	t->judged[at] = (struct tls_file){ dev, ino };
	t->nj++;
}

/* PID's executable, when it is a Go program with crypto/tls not taken yet,
 * to FN; 1 when taken. */
static int scan_exe(struct tls_libs *t, int64_t pid, tls_libs_fn *fn, void *ctx)
{
	char path[PROCMAP_PATH_MAX + 64];
	struct tls_lib_found lf;
	struct stat st, st2;
	struct go_bin go;
	uint64_t dev;
	bool found;
	int fd, err;

	snprintf(path, sizeof(path), "%s/%lld/exe", t->proc, (long long)pid);
	/* a kernel thread has none; a process that left, none either */
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	dev = (uint64_t)major(st.st_dev) << 32 | minor(st.st_dev);
	judged__at(t, dev, st.st_ino, &found);
	if (found || taken(t, dev, st.st_ino))
		return 0;
	/* the file read is the one judged: a process gone meanwhile (its exe
	 * no longer opens, or is another's) leaves it for the next scan */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st2) || st2.st_dev != st.st_dev || st2.st_ino != st.st_ino) {
		close(fd);
		return 0;
	}
	err = go_bin__read(fd, &go);
	close(fd);
	if (err == -ENOTSUP || err == -E2BIG || err == -EIO)
		t->c.go_unprobed++;
	if (err) {
		/* no memory: again next scan */
		if (err != -ENOMEM)
			judge(t, dev, st.st_ino);
		return 0;
	}
	lf.path = path;
	lf.kind = TLS_LIB_GO;
	lf.pid = pid;
	lf.dev = dev;
	lf.ino = st.st_ino;
	lf.go = &go;
	if (fn(ctx, &lf)) {
		t->c.refused++;
		return 0;
	}
	if (take(t, dev, st.st_ino))
		return 0;
	t->c.go_files++;
	return 1;
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
		lf.go = NULL;
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
		n += scan_exe(t, pid, fn, ctx);
		n += scan_pid(t, pid, fn, ctx);
	}
	closedir(d);
	return n;
}

void tls_libs__counters(const struct tls_libs *t, struct tls_libs_counters *out)
{
	*out = t->c;
}
