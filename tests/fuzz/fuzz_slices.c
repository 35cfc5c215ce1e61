/* CPU_SLICES events as a capture file or a spoilt ring may hand them over:
 * the input is a run of batches, each a time (8 bytes), a tid and from (8
 * each), a slices length (2) and that many bytes (cut at the input's end).
 * Each is decoded (prof_batch__decode) and, when it decodes, fed to the
 * per-thread clocks, which must then hold what the decoder promised: a
 * clock's counts only grow within a generation. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "slices.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prof_clock *c = prof_clock__new();
	size_t off = 0;

	if (!c)
		return 0;
	while (size - off >= 26) {
		struct prof_clock_read before, after;
		struct prof_batch b;
		uint64_t to, tid;
		uint16_t len;
		bool had;

		memcpy(&to, data + off, 8);
		memcpy(&tid, data + off + 8, 8);
		memcpy(&len, data + off + 24, 2);
		if (len > size - off - 26)
			len = (uint16_t)(size - off - 26);
		/* few tids, so batches meet the same clock */
		tid &= 7;
		had = prof_clock__read(c, tid, &before);
		if (!prof_batch__decode(&b, to, (const uint8_t *)&tid, 8, data + off + 16, 8,
					data + off + 26, len)) {
			uint64_t sum = 0;

			for (unsigned i = 0; i < b.n; i++) {
				if (b.s[i].start < b.from || b.s[i].start + b.s[i].dur > b.to ||
				    b.s[i].kind >= PROF_SLICE__KINDS)
					abort();
				sum += b.s[i].dur;
			}
			if (sum > b.to - b.from)
				abort();
			prof_clock__batch(c, &b);
			if (tid && prof_clock__read(c, tid, &after) && had && after.gen == before.gen)
				for (unsigned k = 0; k < PROF_SLICE__KINDS; k++)
					if (after.t[k] < before.t[k])
						abort();
		}
		if (data[off] & 1)
			prof_clock__forget(c, tid);
		off += 26 + len;
	}
	prof_clock__free(c);
	return 0;
}
