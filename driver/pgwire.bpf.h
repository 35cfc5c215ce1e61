/* Request mode's PostgreSQL batches. A client sends many statements before
 * one Sync (libpq's pipeline mode, psycopg's executemany, pgJDBC's batches)
 * and the server answers them in as few writes: cut at the snaplen, every
 * message past the cut is lost to the pairing (a response's end with it). A
 * buffer that starts with a whole typed message (a type byte, a big-endian
 * length that counts itself) which ends before the buffer does, followed in
 * the copied bytes by another type byte, holds more than one message: its
 * fd is then given the wide snaplen as a Redis pipeline's is (h2.bpf.h). No
 * loop: the first message's header and the byte after it. */
#ifndef PGWIRE_BPF_H
#define PGWIRE_BPF_H

#include "scratch.bpf.h"

/* Whether C is one of the protocol's type bytes, either way
 * (protocol-message-formats.html): '1' to '3', and a bit each of 0x40-0x7f
 * for A B C D E F G H I K N P Q R S T V W X Z c d f n p s t v. */
static __always_inline bool pg__type(__u8 c)
{
	const __u64 hi = (1ull << ('A' - 0x40)) | (1ull << ('B' - 0x40)) | (1ull << ('C' - 0x40)) |
			 (1ull << ('D' - 0x40)) | (1ull << ('E' - 0x40)) | (1ull << ('F' - 0x40)) |
			 (1ull << ('G' - 0x40)) | (1ull << ('H' - 0x40)) | (1ull << ('I' - 0x40)) |
			 (1ull << ('K' - 0x40)) | (1ull << ('N' - 0x40)) | (1ull << ('P' - 0x40)) |
			 (1ull << ('Q' - 0x40)) | (1ull << ('R' - 0x40)) | (1ull << ('S' - 0x40)) |
			 (1ull << ('T' - 0x40)) | (1ull << ('V' - 0x40)) | (1ull << ('W' - 0x40)) |
			 (1ull << ('X' - 0x40)) | (1ull << ('Z' - 0x40)) | (1ull << ('c' - 0x40)) |
			 (1ull << ('d' - 0x40)) | (1ull << ('f' - 0x40)) | (1ull << ('n' - 0x40)) |
			 (1ull << ('p' - 0x40)) | (1ull << ('s' - 0x40)) | (1ull << ('t' - 0x40)) |
			 (1ull << ('v' - 0x40));

	if (c >= '1' && c <= '3')
		return true;
	return c >= 0x40 && c < 0x80 && ((hi >> (c - 0x40)) & 1);
}

/* S's frame holds at OFF0 a buffer of LEN bytes moved, cut to what was
 * copied: true when it starts with a whole PostgreSQL message that ends
 * before LEN, and the copied byte after it starts another. */
static __always_inline bool pg__more(struct scratch *s, __u32 off0, __u64 len)
{
	__u64 end = (__u64)s->off, next;
	__u32 mlen;
	__u8 b[5];

	if ((__u64)off0 + 5 >= end)
		return false;
#pragma unroll
	for (int i = 0; i < 5; i++)
		b[i] = s->data[(off0 + i) & FRAME_MASK];
	if (!pg__type(b[0]))
		return false;
	mlen = (__u32)b[1] << 24 | (__u32)b[2] << 16 | (__u32)b[3] << 8 | b[4];
	/* the length counts itself; a message past the buffer is one alone */
	if (mlen < 4 || (__u64)mlen + 1 >= len)
		return false;
	next = (__u64)off0 + 1 + mlen;
	if (next >= end)
		return false;
	return pg__type(s->data[next & FRAME_MASK]);
}

#endif
