/* libelf reads the headers, sections and notes (and checks that each lies in
 * the file); this file picks the function symbols and sorts them. */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "elfsyms.h"

#define ELFSYMS_LOADS_MAX 32

struct elfsym {
	uint64_t addr, size;
	uint32_t name;		/* offset in names */
	uint8_t global;
};

struct elfsyms {
	struct elfsym *syms;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	struct { uint64_t off, vaddr, filesz; } load[ELFSYMS_LOADS_MAX];
	unsigned n_load;
	uint8_t build_id[ELFSYMS_BUILD_ID_MAX];
	size_t build_id_len;
	uint64_t skipped;
};

static int elfsyms__add(struct elfsyms *es, const GElf_Sym *s, const char *name)
{
	size_t len = strlen(name) + 1;
	struct elfsym *e;

	if (es->n == ELFSYMS_MAX) {
		es->skipped++;
		return 0;
	}
	if (es->n == es->cap) {
		size_t cap = es->cap ? es->cap * 2 : 256;
		void *p = realloc(es->syms, cap * sizeof(*es->syms));

		if (!p)
			return -ENOMEM;
		es->syms = p;
		es->cap = cap;
	}
	if (es->names_len + len > es->names_cap) {
		size_t cap = es->names_cap ? es->names_cap * 2 : 4096;
		void *p;

		while (cap < es->names_len + len)
			cap *= 2;
		if (!(p = realloc(es->names, cap)))
			return -ENOMEM;
		es->names = p;
		es->names_cap = cap;
	}
	memcpy(es->names + es->names_len, name, len);
	e = &es->syms[es->n++];
	e->addr = s->st_value;
	e->size = s->st_size;
	e->name = (uint32_t)es->names_len;
	e->global = GELF_ST_BIND(s->st_info) != STB_LOCAL;
	es->names_len += len;
	return 0;
}

/* Functions defined in this file (ifuncs too: their address is code). */
static int elfsyms__read_table(struct elfsyms *es, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n;
	int err;

	if (!data || sh->sh_entsize == 0 || !data->d_buf)
		return 0;
	n = data->d_size / sh->sh_entsize;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym s;
		const char *name;
		int type;

		if (!gelf_getsym(data, (int)i, &s))
			break;
		type = GELF_ST_TYPE(s.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF ||
		    !s.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, s.st_name);
		if (!name || !*name) {
			es->skipped++;
			continue;
		}
		if ((err = elfsyms__add(es, &s, name)))
			return err;
	}
	return 0;
}

static void elfsyms__read_notes(Elf_Data *data, uint8_t *out, size_t cap, size_t *len)
{
	size_t off = 0, name_off, desc_off, next;
	GElf_Nhdr nh;

	while ((next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((const char *)data->d_buf + name_off, "GNU", 4) && nh.n_descsz) {
			*len = nh.n_descsz < cap ? nh.n_descsz : cap;
			memcpy(out, (const char *)data->d_buf + desc_off, *len);
			return;
		}
		off = next;
	}
}

/* The build id from the SHT_NOTE sections, else from the PT_NOTE segments
 * (a file stripped of its section headers). */
static size_t elfsyms__find_build_id(Elf *elf, uint8_t *out, size_t cap)
{
	Elf_Scn *scn = NULL;
	size_t len = 0, nph = 0;
	GElf_Shdr sh;

	while (!len && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE &&
		    (data = elf_getdata(scn, NULL)) && data->d_buf)
			elfsyms__read_notes(data, out, cap, &len);
	}
	if (len || elf_getphdrnum(elf, &nph))
		return len;
	for (size_t i = 0; i < nph && !len; i++) {
		GElf_Phdr ph;
		Elf_Data *data;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		if (data && data->d_buf)
			elfsyms__read_notes(data, out, cap, &len);
	}
	return len;
}

static void elfsyms__read_loads(struct elfsyms *es, Elf *elf)
{
	size_t nph = 0;

	if (elf_getphdrnum(elf, &nph))
		return;
	for (size_t i = 0; i < nph && es->n_load < ELFSYMS_LOADS_MAX; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		es->load[es->n_load].off = ph.p_offset;
		es->load[es->n_load].vaddr = ph.p_vaddr;
		es->load[es->n_load].filesz = ph.p_filesz;
		es->n_load++;
	}
}

static int elfsym__cmp(const void *pa, const void *pb)
{
	const struct elfsym *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	/* of aliases, a global name first; then the file's order */
	if (a->global != b->global)
		return a->global ? -1 : 1;
	return a->name < b->name ? -1 : a->name > b->name;
}

/* Sorted, one name per address (an alias adds nothing to a stack). */
static void elfsyms__sort(struct elfsyms *es)
{
	size_t w = 0;

	if (!es->n)
		return;
	qsort(es->syms, es->n, sizeof(*es->syms), elfsym__cmp);
	for (size_t r = 1; r < es->n; r++)
		if (es->syms[r].addr != es->syms[w].addr)
			es->syms[++w] = es->syms[r];
		else if (!es->syms[w].size)
			es->syms[w].size = es->syms[r].size;
	es->n = w + 1;
}

static struct elfsyms *elfsyms__read(Elf *elf)
{
	struct elfsyms *es;
	Elf_Scn *scn = NULL;
	bool have_symtab = false;
	GElf_Shdr sh;
	int err = 0;

	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		errno = ENOEXEC;
		return NULL;
	}
	if (!(es = calloc(1, sizeof(*es)))) {
		errno = ENOMEM;
		return NULL;
	}
	elfsyms__read_loads(es, elf);
	es->build_id_len = elfsyms__find_build_id(elf, es->build_id, sizeof(es->build_id));
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			have_symtab = true;
	/* .symtab holds .dynsym's functions and the local ones: one or the other */
	while (!err && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) &&
		    sh.sh_type == (have_symtab ? SHT_SYMTAB : SHT_DYNSYM))
			err = elfsyms__read_table(es, elf, scn, &sh);
	if (err) {
		elfsyms__free(es);
		errno = -err;
		return NULL;
	}
	elfsyms__sort(es);
	return es;
}

struct elfsyms *elfsyms__from_fd(int fd)
{
	struct elfsyms *es;
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	es = elfsyms__read(elf);
	elf_end(elf);
	return es;
}

struct elfsyms *elfsyms__from_mem(const void *buf, size_t len)
{
	struct elfsyms *es;
	Elf *elf;

	elf_version(EV_CURRENT);
	/* libelf does not write through a read-only image */
	elf = elf_memory((char *)buf, len);
	es = elfsyms__read(elf);
	elf_end(elf);
	return es;
}

void elfsyms__free(struct elfsyms *es)
{
	if (!es)
		return;
	free(es->syms);
	free(es->names);
	free(es);
}

size_t elfsyms__build_id_fd(int fd, uint8_t *out, size_t cap)
{
	size_t len = 0;
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		len = elfsyms__find_build_id(elf, out, cap);
	elf_end(elf);
	return len;
}

size_t elfsyms__build_id(const struct elfsyms *es, const uint8_t **id)
{
	*id = es->build_id;
	return es->build_id_len;
}

int elfsyms__vaddr(const struct elfsyms *es, uint64_t file_off, uint64_t *vaddr)
{
	for (unsigned i = 0; i < es->n_load; i++)
		if (file_off >= es->load[i].off && file_off - es->load[i].off < es->load[i].filesz) {
			*vaddr = file_off - es->load[i].off + es->load[i].vaddr;
			return 0;
		}
	return -ENOENT;
}

const char *elfsyms__lookup(const struct elfsyms *es, uint64_t vaddr, uint64_t *off)
{
	size_t lo = 0, hi = es->n;
	const struct elfsym *s;

	/* the last symbol at or below VADDR */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (es->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &es->syms[lo - 1];
	/* a sized symbol holds only its bytes; a sizeless one runs to the next */
	if (s->size && vaddr - s->addr >= s->size)
		return NULL;
	*off = vaddr - s->addr;
	return es->names + s->name;
}

size_t elfsyms__count(const struct elfsyms *es)
{
	return es->n;
}

uint64_t elfsyms__skipped(const struct elfsyms *es)
{
	return es->skipped;
}
