/* A perf ring in a memfd, written the way the kernel writes one: header page with
 * data_head/data_tail/data_offset/data_size, records padded to 8 bytes, positions
 * that only grow and wrap modulo the data size. */
#ifndef MEMRING_H
#define MEMRING_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "ppm_wire.h"

struct memring {
	int fd;
	uint8_t *map;	/* our own single mapping: header page + data */
	struct perf_event_mmap_page *hdr;
	uint8_t *data;
	uint64_t size;
	uint64_t head;	/* written but maybe not yet published */
};

/* A ring of DATA_PAGES pages whose positions start at START. */
static inline int memring__open(struct memring *m, uint32_t data_pages, uint64_t start)
{
	size_t page = sysconf(_SC_PAGESIZE);

	memset(m, 0, sizeof(*m));
	m->size = (uint64_t)data_pages * page;
	m->fd = memfd_create("memring", MFD_CLOEXEC);
	if (m->fd < 0 || ftruncate(m->fd, page + m->size))
		return -1;
	m->map = mmap(NULL, page + m->size, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0);
	if (m->map == MAP_FAILED)
		return -1;
	m->hdr = (struct perf_event_mmap_page *)m->map;
	m->data = m->map + page;
	m->hdr->data_offset = page;
	m->hdr->data_size = m->size;
	m->hdr->data_head = start;
	m->hdr->data_tail = start;
	m->head = start;
	return 0;
}

static inline void memring__close(struct memring *m)
{
	if (m->map && m->map != MAP_FAILED)
		munmap(m->map, (size_t)sysconf(_SC_PAGESIZE) + m->size);
	if (m->fd >= 0)
		close(m->fd);
}

static inline uint64_t memring__tail(const struct memring *m)
{
	return __atomic_load_n(&m->hdr->data_tail, __ATOMIC_ACQUIRE);
}

static inline uint64_t memring__free(const struct memring *m)
{
	return m->size - (m->head - memring__tail(m));
}

/* Copies N bytes at position POS, wrapping like the kernel's output copy. */
static inline void memring__put(struct memring *m, uint64_t pos, const void *src, size_t n)
{
	uint64_t off = pos % m->size;
	size_t first = n < m->size - off ? n : m->size - off;

	memcpy(m->data + off, src, first);
	memcpy(m->data, (const uint8_t *)src + first, n - first);
}

/* Appends raw record bytes (no checks: for corrupt records). */
static inline void memring__raw(struct memring *m, const void *bytes, size_t n)
{
	memring__put(m, m->head, bytes, n);
	m->head += n;
}

/* Appends a PERF_RECORD_SAMPLE holding FRAME (LEN bytes). -1 when it does not fit
 * (the kernel would count it lost). */
static inline int memring__sample(struct memring *m, const void *frame, uint32_t len)
{
	uint32_t raw = ((len + 4 + 7) & ~7u) - 4;	/* u32 size + data, padded to 8 */
	struct perf_event_header ph = { .type = PERF_RECORD_SAMPLE, .size = 8 + 4 + raw };
	static const uint8_t zeros[8];

	if (8 + 4 + raw > 0xffff || ph.size > memring__free(m))
		return -1;
	memring__put(m, m->head, &ph, sizeof(ph));
	memring__put(m, m->head + 8, &raw, 4);
	memring__put(m, m->head + 12, frame, len);
	memring__put(m, m->head + 12 + len, zeros, raw - len);
	m->head += ph.size;
	return 0;
}

static inline int memring__lost(struct memring *m, uint64_t lost)
{
	struct perf_event_header ph = { .type = PERF_RECORD_LOST, .size = 24 };
	uint64_t id = 42;

	if (ph.size > memring__free(m))
		return -1;
	memring__put(m, m->head, &ph, sizeof(ph));
	memring__put(m, m->head + 8, &id, 8);
	memring__put(m, m->head + 16, &lost, 8);
	m->head += ph.size;
	return 0;
}

/* Makes what was written visible, as the kernel's release of data_head does. */
static inline void memring__publish(struct memring *m)
{
	__atomic_store_n(&m->hdr->data_head, m->head, __ATOMIC_RELEASE);
}

/* A test frame of LEN bytes (>= 26): header, then bytes derived from TS and TID so
 * that a delivered copy can be checked byte for byte. */
static inline void frame__make(uint8_t *buf, uint32_t len, uint64_t ts, uint64_t tid)
{
	struct ppm_evt_hdr h = { .ts = ts, .tid = tid, .len = len, .type = PPME_GENERIC_E,
				 .nparams = 0 };

	memcpy(buf, &h, sizeof(h));
	for (uint32_t i = sizeof(h); i < len; i++)
		buf[i] = (uint8_t)(ts * 31 + tid * 7 + i);
}

static inline int frame__check(const struct ppm_evt_hdr *f, uint32_t len, uint64_t ts, uint64_t tid)
{
	uint8_t want[65536];

	if (len > sizeof(want))
		return 0;
	frame__make(want, len, ts, tid);
	return !memcmp(f, want, len);
}

#endif
