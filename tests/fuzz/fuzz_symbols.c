/* The symbolizer's readers of what others wrote: an ELF file (crafted, or a
 * library a container brings), /proc/PID/maps lines and kallsyms text. The
 * first byte picks: 0x7f (ELF's own first byte) the whole input is an ELF
 * file; 'M' the rest is maps lines; anything else, kallsyms text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elfsyms.h"
#include "ksyms.h"
#include "procmaps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_elf(const uint8_t *data, size_t size)
{
	struct elfsyms *es = elfsyms__from_mem(data, size);
	const uint8_t *id;
	uint64_t vaddr, off;

	if (!es)
		return;
	elfsyms__build_id(es, &id);
	/* offsets around each segment's start and a spread of addresses */
	for (uint64_t a = 0; a < 0x10000; a += 0x3f1) {
		const char *n;

		if (!elfsyms__vaddr(es, a, &vaddr) && (n = elfsyms__lookup(es, vaddr, &off)))
			(void)strlen(n);
		if ((n = elfsyms__lookup(es, a, &off)))
			(void)strlen(n);
	}
	elfsyms__free(es);
}

static void fuzz_maps(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	struct procmap m;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (!procmaps__parse_line(p, len, &m))
			(void)strlen(m.path);
		p += len + 1;
	}
}

static void fuzz_kallsyms(const uint8_t *data, size_t size)
{
	struct ksyms *k = ksyms__parse((const char *)data, size);
	const char *mod, *n;
	uint64_t off;

	if (!k)
		return;
	for (uint64_t a = 0; a < 64; a++)
		if ((n = ksyms__lookup(k, a << 58 | a, &off, &mod)))
			(void)(strlen(n) + strlen(mod));
	ksyms__free(k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] == 0x7f)
		fuzz_elf(data, size);
	else if (data[0] == 'M')
		fuzz_maps(data + 1, size - 1);
	else
		fuzz_kallsyms(data, size);
	return 0;
}
