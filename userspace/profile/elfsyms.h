/* One ELF file's function symbols, sorted by address, with the PT_LOAD
 * segments that turn a file offset into the address the symbols use, and the
 * file's GNU build id. Read with libelf; names are copied, so the file can be
 * closed. Anything in the file is untrusted: a malformed part is skipped. */
#ifndef PROFILE_ELFSYMS_H
#define PROFILE_ELFSYMS_H

#include <stddef.h>
#include <stdint.h>

#define ELFSYMS_BUILD_ID_MAX 64
/* More symbols than this in one file are not kept (counted). */
#define ELFSYMS_MAX 4000000u

struct elfsyms;

/* From an open file (FD stays open and is the caller's) or from memory.
 * NULL and errno: ENOEXEC when it is no ELF file, ENOMEM. A file with no
 * symbols gives a table with none. */
struct elfsyms *elfsyms__from_fd(int fd);
struct elfsyms *elfsyms__from_mem(const void *buf, size_t len);
void elfsyms__free(struct elfsyms *es);

/* The build id of the file open on FD, read from its notes only (cheap: a
 * cache key taken before the symbols are read). Its length, 0 for none. */
size_t elfsyms__build_id_fd(int fd, uint8_t *out, size_t cap);
size_t elfsyms__build_id(const struct elfsyms *es, const uint8_t **id);

/* FILE_OFF, an offset in the file as a mapping gives it, as the address the
 * symbols use (through the PT_LOAD segment holding it): 0 or -ENOENT. */
int elfsyms__vaddr(const struct elfsyms *es, uint64_t file_off, uint64_t *vaddr);
/* The function holding VADDR and VADDR's offset in it, or NULL. */
const char *elfsyms__lookup(const struct elfsyms *es, uint64_t vaddr, uint64_t *off);
size_t elfsyms__count(const struct elfsyms *es);
/* Symbols past ELFSYMS_MAX, or whose names could not be read: skipped. */
uint64_t elfsyms__skipped(const struct elfsyms *es);

#endif
