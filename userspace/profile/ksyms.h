/* The kernel's text symbols from /proc/kallsyms, sorted, for kernel stacks. */
#ifndef PROFILE_KSYMS_H
#define PROFILE_KSYMS_H

#include <stddef.h>
#include <stdint.h>

struct ksyms;

/* From kallsyms' text (LEN bytes). NULL and errno (ENOMEM). Lines that are
 * not "address type name [module]" are skipped and counted; a reader
 * without CAP_SYSLOG sees every address 0, which gives a table with none. */
struct ksyms *ksyms__parse(const char *text, size_t len);
/* PATH read whole (/proc/kallsyms): NULL and errno. */
struct ksyms *ksyms__load(const char *path);
void ksyms__free(struct ksyms *k);
/* The function holding ADDR, its offset and module ("" for the kernel's own),
 * or NULL. */
const char *ksyms__lookup(const struct ksyms *k, uint64_t addr, uint64_t *off,
			  const char **module);
size_t ksyms__count(const struct ksyms *k);
uint64_t ksyms__skipped(const struct ksyms *k);

#endif
