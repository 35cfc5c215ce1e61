/* A Go executable's crypto/tls, from its ELF file (go_bin.h). libelf reads
 * the sections and symbols; libcapstone decodes the functions to find their
 * RETs (x86 instructions have no fixed length: a byte search for 0xc3 would
 * find them inside other instructions). */
#include <capstone/capstone.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "go_bin.h"

#define BUILDINFO_MAGIC "\xff Go buildinf:"
#define BUILDINFO_HDR 32

/* LEN bytes at virtual address VADDR of E's allocated sections: 0, or
 * -EIO when they are not all in one section with contents. */
static int vaddr__read(Elf *e, uint64_t vaddr, void *buf, size_t len)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    sh.sh_type == SHT_NOBITS || vaddr < sh.sh_addr ||
		    vaddr - sh.sh_addr > sh.sh_size || len > sh.sh_size - (vaddr - sh.sh_addr))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || vaddr - sh.sh_addr + len > d->d_size)
			return -EIO;
		memcpy(buf, (const char *)d->d_buf + (vaddr - sh.sh_addr), len);
		return 0;
	}
	return -EIO;
}

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The Go version .go.buildinfo names: inline after its header since Go
 * 1.18 (flag 2, a varint length), before that through a pointer to a Go
 * string header ({data, len}) in the data. */
static int buildinfo__version(Elf *e, const unsigned char *b, size_t n, struct go_bin *out)
{
	char *v = out->version;
	uint64_t len = 0;
	size_t at;

	if (n < BUILDINFO_HDR || memcmp(b, BUILDINFO_MAGIC, 14))
		return -EIO;
	if (b[14] != 8 || (b[15] & 1))
		return -ENOTSUP;	/* 32-bit or big-endian */
	if (b[15] & 2) {
		at = BUILDINFO_HDR;
		for (int shift = 0; at < n && shift < 64; shift += 7) {
			len |= (uint64_t)(b[at] & 0x7f) << shift;
			if (!(b[at++] & 0x80))
				break;
		}
		if (!len || len >= sizeof(out->version) || len > n - at)
			return -EIO;
		memcpy(v, b + at, len);
	} else {
		unsigned char hdr[16];

		if (vaddr__read(e, le64(b + 16), hdr, sizeof(hdr)))
			return -EIO;
		len = le64(hdr + 8);
		if (!len || len >= sizeof(out->version) || vaddr__read(e, le64(hdr), v, len))
			return -EIO;
	}
	v[len] = '\0';
	/* "go1.19.8", or "devel go1.22-abcdef ..." */
	v = strstr(v, "go1.");
	if (!v || sscanf(v, "go%u.%u", &out->major, &out->minor) != 2)
		return -EIO;
	return 0;
}

/* FN's file offset and RETs, from its symbol's VALUE and SIZE. */
static int fn__decode(Elf *e, csh cs, uint64_t value, uint64_t size, struct go_bin_fn *fn)
{
	Elf_Scn *scn = NULL;

	fn->vaddr = value;
	while ((scn = elf_nextscn(e, scn))) {
		const uint8_t *code;
		size_t left;
		uint64_t addr = value;
		GElf_Shdr sh;
		Elf_Data *d;
		cs_insn *in;
		int err = 0;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || value < sh.sh_addr ||
		    value - sh.sh_addr >= sh.sh_size || size > sh.sh_size - (value - sh.sh_addr))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || value - sh.sh_addr + size > d->d_size)
			return -EIO;
		fn->off = sh.sh_offset + (value - sh.sh_addr);
		code = (const uint8_t *)d->d_buf + (value - sh.sh_addr);
		left = size;
		in = cs_malloc(cs);
		if (!in)
			return -ENOMEM;
		while (left && !err) {
			/* an undecodable byte: the RETs after it unknown */
			if (!cs_disasm_iter(cs, &code, &left, &addr, in))
				err = -EIO;
			else if (in->id == X86_INS_RET && fn->nrets == GO_BIN_RETS_MAX)
				err = -E2BIG;
			else if (in->id == X86_INS_RET)
				fn->rets[fn->nrets++] = (uint32_t)(in->address - value);
		}
		cs_free(in, 1);
		return err ?: fn->nrets ? 0 : -EIO;
	}
	return -EIO;
}

enum { SYM_READ, SYM_WRITE, SYM_TCP, SYM_UNIX, SYM_N };

/* The symbols wanted, by name: Go 1.20 renamed go.itab. to go:itab. */
static int sym__which(const char *name)
{
	if (!strcmp(name, "crypto/tls.(*Conn).Read"))
		return SYM_READ;
	if (!strcmp(name, "crypto/tls.(*Conn).Write"))
		return SYM_WRITE;
	if (!strncmp(name, "go.itab.", 8) || !strncmp(name, "go:itab.", 8)) {
		if (!strcmp(name + 8, "*net.TCPConn,net.Conn"))
			return SYM_TCP;
		if (!strcmp(name + 8, "*net.UnixConn,net.Conn"))
			return SYM_UNIX;
	}
	return -1;
}

static int elf__go(Elf *e, struct go_bin *out)
{
	Elf_Scn *scn = NULL, *info = NULL, *symtab = NULL;
	GElf_Sym syms[SYM_N] = { 0 };
	bool have[SYM_N] = { 0 };
	GElf_Shdr sh, symsh;
	GElf_Ehdr eh;
	Elf_Data *d;
	size_t shstr;
	csh cs;
	int err;

	if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) || elf_getshdrstrndx(e, &shstr))
		return -ENOENT;
	while ((scn = elf_nextscn(e, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstr, sh.sh_name)))
			continue;
		if (!strcmp(name, ".go.buildinfo"))
			info = scn;
		else if (sh.sh_type == SHT_SYMTAB)
			symtab = scn;
	}
	if (!info)
		return -ENOENT;
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64)
		return -ENOTSUP;
	d = elf_getdata(info, NULL);
	if (!d || !d->d_buf)
		return -EIO;
	err = buildinfo__version(e, d->d_buf, d->d_size, out);
	if (err)
		return err;
	if (out->major != 1 || out->minor < GO_BIN_MIN_MINOR || !symtab)
		return -ENOTSUP;
	if (!gelf_getshdr(symtab, &symsh) || !(d = elf_getdata(symtab, NULL)))
		return -EIO;
	for (size_t i = 0; symsh.sh_entsize && i < symsh.sh_size / symsh.sh_entsize; i++) {
		GElf_Sym s;
		const char *name;
		int w;

		if (!gelf_getsym(d, (int)i, &s) || !s.st_name ||
		    !(name = elf_strptr(e, symsh.sh_link, s.st_name)) || (w = sym__which(name)) < 0)
			continue;
		syms[w] = s;
		have[w] = true;
	}
	if (!have[SYM_READ] || !have[SYM_WRITE])
		return -ENOENT;
	out->itab_tcp = have[SYM_TCP] ? syms[SYM_TCP].st_value : 0;
	out->itab_unix = have[SYM_UNIX] ? syms[SYM_UNIX].st_value : 0;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return -ENOMEM;
	err = fn__decode(e, cs, syms[SYM_READ].st_value, syms[SYM_READ].st_size, &out->read) ?:
	      fn__decode(e, cs, syms[SYM_WRITE].st_value, syms[SYM_WRITE].st_size, &out->write);
	cs_close(&cs);
	return err;
}

int go_bin__read(int fd, struct go_bin *out)
{
	int err;
	Elf *e;

	memset(out, 0, sizeof(*out));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EIO;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	err = e ? elf__go(e, out) : -ENOENT;
	if (e)
		elf_end(e);
	return err;
}
