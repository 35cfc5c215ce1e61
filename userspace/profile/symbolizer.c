/* Processes and files are kept in small arrays scanned in order: the caller
 * symbolizes a few hundred sampled stacks a second, far from the event path. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "elfsyms.h"
#include "ksyms.h"
#include "procmaps.h"
#include "symbolizer.h"

#define SYM_MAPS_MAX 4096	/* executable mappings kept per process */

struct symfile {
	struct elfsyms *es;	/* NULL: not an ELF file we could read */
	uint64_t dev, inode;
	uint8_t build_id[ELFSYMS_BUILD_ID_MAX];
	size_t build_id_len;
	unsigned refs;		/* mappings naming it */
	uint64_t used;		/* when last looked at, for eviction */
};

struct symmap {
	uint64_t start, end, pgoff, dev, inode;
	char *path;
	struct symfile *file;	/* opened on the first address it holds */
	int err;		/* why it could not be opened, once tried */
};

struct symproc {
	int pid;
	struct symmap *maps;
	unsigned n_maps, cap_maps;
	uint64_t used;
	uint64_t read_ns;	/* when its maps were read (CLOCK_MONOTONIC) */
};

struct symbolizer {
	char proc[256];
	char kallsyms[256];
	struct symproc *procs;
	unsigned n_procs, max_procs;
	struct symfile **files;
	unsigned n_files, max_files;
	struct ksyms *ksyms;
	int ksyms_err;
	uint64_t clock;
	uint64_t reread_ns;
	uint64_t (*clock_ns)(void);
	struct symbolizer_counters c;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct symbolizer *symbolizer__new(const struct symbolizer_opts *o)
{
	struct symbolizer *s = calloc(1, sizeof(*s));
	const char *proc = o && o->proc ? o->proc : "/proc";

	if (!s)
		return NULL;
	s->max_procs = o && o->max_procs ? o->max_procs : 1024;
	s->max_files = o && o->max_files ? o->max_files : 512;
	s->reread_ns = (o && o->reread_ms ? o->reread_ms : 1000) * 1000000ull;
	s->clock_ns = o && o->clock_ns ? o->clock_ns : mono_ns;
	if (snprintf(s->proc, sizeof(s->proc), "%s", proc) >= (int)sizeof(s->proc) ||
	    snprintf(s->kallsyms, sizeof(s->kallsyms), "%s%s", o && o->kallsyms ? "" : proc,
		     o && o->kallsyms ? o->kallsyms : "/kallsyms") >= (int)sizeof(s->kallsyms)) {
		free(s);
		errno = ENAMETOOLONG;
		return NULL;
	}
	s->procs = calloc(s->max_procs, sizeof(*s->procs));
	s->files = calloc(s->max_files, sizeof(*s->files));
	if (!s->procs || !s->files) {
		symbolizer__free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

static void symproc__clear(struct symproc *p)
{
	for (unsigned i = 0; i < p->n_maps; i++) {
		if (p->maps[i].file)
			p->maps[i].file->refs--;
		free(p->maps[i].path);
	}
	free(p->maps);
	p->maps = NULL;
	p->n_maps = p->cap_maps = 0;
}

void symbolizer__free(struct symbolizer *s)
{
	if (!s)
		return;
	for (unsigned i = 0; s->procs && i < s->n_procs; i++)
		symproc__clear(&s->procs[i]);
	for (unsigned i = 0; s->files && i < s->n_files; i++) {
		elfsyms__free(s->files[i]->es);
		free(s->files[i]);
	}
	ksyms__free(s->ksyms);
	free(s->procs);
	free(s->files);
	free(s);
}

/* PID's executable file mappings, read into P. */
static int symproc__read(struct symbolizer *s, struct symproc *p, int pid)
{
	char path[300], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "%s/%d/maps", s->proc, pid);
	if (!(f = fopen(path, "re")))
		return -ESRCH;
	p->pid = pid;
	p->read_ns = s->clock_ns();
	while ((len = getline(&line, &cap, f)) > 0) {
		struct procmap m;
		struct symmap *sm;

		if (line[len - 1] == '\n')
			len--;
		if (procmaps__parse_line(line, (size_t)len, &m) || !m.exec || m.path[0] != '/')
			continue;
		if (p->n_maps == SYM_MAPS_MAX)
			break;
		if (p->n_maps == p->cap_maps) {
			unsigned cap = p->cap_maps ? p->cap_maps * 2 : 16;
			void *q = realloc(p->maps, cap * sizeof(*p->maps));

			if (!q) {
				err = -ENOMEM;
				break;
			}
			p->maps = q;
			p->cap_maps = cap;
		}
		sm = &p->maps[p->n_maps];
		*sm = (struct symmap){ .start = m.start, .end = m.end, .pgoff = m.pgoff,
				       .dev = (uint64_t)m.dev_major << 32 | m.dev_minor,
				       .inode = m.inode, .path = strdup(m.path) };
		if (!sm->path) {
			err = -ENOMEM;
			break;
		}
		p->n_maps++;
	}
	free(line);
	fclose(f);
	s->c.procs_read++;
	return err;
}

/* The process's slot: kept, or read now in a free slot or the least recently
 * used one's. */
static struct symproc *symbolizer__proc(struct symbolizer *s, int pid, int *err)
{
	struct symproc *p = NULL;

	for (unsigned i = 0; i < s->n_procs; i++)
		if (s->procs[i].pid == pid) {
			s->procs[i].used = ++s->clock;
			return &s->procs[i];
		}
	if (s->n_procs < s->max_procs) {
		p = &s->procs[s->n_procs++];
	} else {
		p = &s->procs[0];
		for (unsigned i = 1; i < s->n_procs; i++)
			if (s->procs[i].used < p->used)
				p = &s->procs[i];
		symproc__clear(p);
		s->c.procs_evicted++;
	}
	if ((*err = symproc__read(s, p, pid))) {
		symproc__clear(p);
		*p = s->procs[--s->n_procs];
		s->procs[s->n_procs] = (struct symproc){ 0 };
		return NULL;
	}
	p->used = ++s->clock;
	return p;
}

static struct symmap *symproc__find(struct symproc *p, uint64_t addr)
{
	for (unsigned i = 0; i < p->n_maps; i++)
		if (addr >= p->maps[i].start && addr < p->maps[i].end)
			return &p->maps[i];
	return NULL;
}

/* The file a mapping names, as the process sees it: through its root (a
 * container's own files), else through map_files (a deleted or replaced
 * file; needs CAP_SYS_ADMIN). */
static int symbolizer__open(struct symbolizer *s, int pid, const struct symmap *m)
{
	char path[PROCMAP_PATH_MAX + 300];
	int fd;

	snprintf(path, sizeof(path), "%s/%d/root%s", s->proc, pid, m->path);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0)
		return fd;
	snprintf(path, sizeof(path), "%s/%d/map_files/%llx-%llx", s->proc, pid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0)
		return fd;
	return -errno;
}

/* A slot for a new file: free, or the least recently used one no mapping
 * names; NULL when all are named. */
static struct symfile **symbolizer__file_slot(struct symbolizer *s)
{
	struct symfile **victim = NULL;

	if (s->n_files < s->max_files)
		return &s->files[s->n_files++];
	for (unsigned i = 0; i < s->n_files; i++)
		if (!s->files[i]->refs && (!victim || s->files[i]->used < (*victim)->used))
			victim = &s->files[i];
	if (victim) {
		elfsyms__free((*victim)->es);
		free(*victim);
		*victim = NULL;
		s->c.files_evicted++;
	}
	return victim;
}

static int symbolizer__file(struct symbolizer *s, int pid, struct symmap *m)
{
	uint8_t id[ELFSYMS_BUILD_ID_MAX];
	struct symfile *f, **slot;
	size_t id_len;
	int fd;

	for (unsigned i = 0; i < s->n_files; i++)
		if (s->files[i]->dev == m->dev && s->files[i]->inode == m->inode) {
			m->file = s->files[i];
			goto found;
		}
	if ((fd = symbolizer__open(s, pid, m)) < 0) {
		s->c.files_failed++;
		return fd;
	}
	id_len = elfsyms__build_id_fd(fd, id, sizeof(id));
	for (unsigned i = 0; id_len && i < s->n_files; i++)
		if (s->files[i]->build_id_len == id_len && !memcmp(s->files[i]->build_id, id, id_len)) {
			close(fd);
			s->c.files_shared++;
			m->file = s->files[i];
			goto found;
		}
	if (!(f = calloc(1, sizeof(*f)))) {
		close(fd);
		return -ENOMEM;
	}
	f->es = elfsyms__from_fd(fd);
	close(fd);
	if (!f->es && errno != ENOEXEC) {
		free(f);
		s->c.files_failed++;
		return -ENOMEM;
	}
	f->dev = m->dev;
	f->inode = m->inode;
	memcpy(f->build_id, id, id_len);
	f->build_id_len = id_len;
	s->c.files_read++;
	if (!(slot = symbolizer__file_slot(s))) {
		/* every kept file is mapped: this one is read for each address */
		s->c.files_uncached++;
		elfsyms__free(f->es);
		free(f);
		return -ENOSPC;
	}
	*slot = f;
	m->file = f;
found:
	m->file->refs++;
	return 0;
}

static void symbolizer__resolve(struct symmap *m, uint64_t addr, struct sym *out)
{
	uint64_t vaddr;

	out->file = m->path;
	out->name = NULL;
	out->off = 0;
	if (!m->file->es || elfsyms__vaddr(m->file->es, addr - m->start + m->pgoff, &vaddr))
		return;
	out->name = elfsyms__lookup(m->file->es, vaddr, &out->off);
}

int symbolizer__user(struct symbolizer *s, int pid, uint64_t addr, struct sym *out)
{
	struct symproc *p;
	struct symmap *m;
	int err = 0;

	if (!(p = symbolizer__proc(s, pid, &err)))
		return err;
	if (!(m = symproc__find(p, addr))) {
		/* mapped since the maps were read (dlopen): read them once more,
		 * unless just read (a stray address, each a miss) */
		if (s->clock_ns() - p->read_ns < s->reread_ns) {
			s->c.reread_held++;
			return -ENOENT;
		}
		symproc__clear(p);
		s->c.maps_reread++;
		if ((err = symproc__read(s, p, pid)))
			return err;
		if (!(m = symproc__find(p, addr)))
			return -ENOENT;
	}
	if (!m->file) {
		if (m->err)
			return m->err;
		if ((err = symbolizer__file(s, pid, m))) {
			if (err != -ENOSPC)
				m->err = err;
			return err;
		}
	}
	m->file->used = ++s->clock;
	symbolizer__resolve(m, addr, out);
	return 0;
}

int symbolizer__kernel(struct symbolizer *s, uint64_t addr, struct sym *out)
{
	if (!s->ksyms && !s->ksyms_err && !(s->ksyms = ksyms__load(s->kallsyms)))
		s->ksyms_err = -errno;
	if (s->ksyms_err)
		return s->ksyms_err;
	out->name = ksyms__lookup(s->ksyms, addr, &out->off, &out->file);
	return out->name ? 0 : -ENOENT;
}

void symbolizer__forget(struct symbolizer *s, int pid)
{
	for (unsigned i = 0; i < s->n_procs; i++)
		if (s->procs[i].pid == pid) {
			symproc__clear(&s->procs[i]);
			s->procs[i] = s->procs[--s->n_procs];
			s->procs[s->n_procs] = (struct symproc){ 0 };
			return;
		}
}

void symbolizer__counters(const struct symbolizer *s, struct symbolizer_counters *c)
{
	*c = s->c;
}
