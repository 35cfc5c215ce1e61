/* HTTP/2 in the pairing (userspace/requests/pair_h2.c, h2_frame.c,
 * h2_hpack.c): the input's first byte picks how the connection starts (the
 * client's preface first, the server's SETTINGS first, or mid-way) and which
 * side is seen; the rest is a script of reads and writes, 3 bytes each (bit 0
 * the direction, bit 1 cut at a 64-byte snaplen; a 16-bit length) and their
 * bytes: frames of any length, type and flags, header blocks of any HPACK
 * (bad indexes, table-size updates past the bound, Huffman padding). Each
 * chunk is also decoded alone by a fresh HPACK decoder. Besides ASan and
 * UBSan: every record is consistent, and at the end nothing is left. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_rec.h"
#include "h2_hpack.h"
#include "pair.h"

static uint64_t n_records;

static void on_rec(void *ctx, const struct req_record *r)
{
	(void)ctx;
	n_records++;
	rec__check(r);
	if (r->proto == REQ_PROTO_GRPC && r->error != (r->status > 0))
		abort();
}

static void io_set(struct req_io *io, bool server)
{
	memset(io, 0, sizeof(*io));
	io->pid = io->tid = 7;
	io->fd = 3;
	io->family = 2;
	io->l4proto = 6;
	io->accepted = server;
	io->sip[0] = 127, io->sip[3] = 1;
	io->dip[0] = 127, io->dip[3] = 2;
	io->sport = 40000;
	io->dport = 443;
	io->comm = "fuzz";
}

static void decode_alone(const uint8_t *b, size_t n)
{
	struct h2_hpack *hp = h2_hpack__new();
	struct h2_fields f;

	if (!hp)
		abort();
	if (h2_hpack__decode(hp, b, n, &f) == 0 &&
	    (!memchr(f.method, 0, sizeof(f.method)) || !memchr(f.path, 0, sizeof(f.path))))
		abort();
	h2_hpack__free(hp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
	static const uint8_t settings[] = { 0, 0, 0, 4, 0, 0, 0, 0, 0 };
	struct pair_opts o = { .max_conns = 2 };
	struct pairer *p;
	struct req_io io;
	struct pair_counters c;
	uint64_t ts = 1000;
	bool server;
	uint8_t how;
	size_t off = 1;

	if (!size)
		return 0;
	how = data[0] % 3;
	server = data[0] & 4;
	p = pair__new(&o, on_rec, NULL);
	if (!p)
		abort();
	io_set(&io, server);
	/* the request direction: in on the server's side, out on the client's */
	io.ts = io.ts_enter = ts;
	if (how == 1) {
		io.dir = server ? REQ_DIR_OUT : REQ_DIR_IN;
		io.data = settings;
		io.data_len = (uint32_t)(io.len = sizeof(settings));
		pair__io(p, &io);
	}
	if (how <= 1) {
		io.dir = server ? REQ_DIR_IN : REQ_DIR_OUT;
		io.data = preface;
		io.data_len = (uint32_t)(io.len = sizeof(preface) - 1);
		pair__io(p, &io);
	}
	while (off + 3 <= size) {
		uint8_t op = data[off];
		size_t len = (size_t)data[off + 1] << 8 | data[off + 2];

		off += 3;
		if (len > size - off)
			len = size - off;
		decode_alone(data + off, len);
		io.dir = op & 1 ? REQ_DIR_IN : REQ_DIR_OUT;
		ts += 1 + (op >> 2);
		io.ts = io.ts_enter = ts;
		io.data = data + off;
		io.len = len ? len : 1;
		io.data_len = (uint32_t)((op & 2) && len > 64 ? 64 : len);
		if (len)
			pair__io(p, &io);
		off += len;
	}
	pair__close(p, &io);
	pair__flush(p);
	pair__counters(p, &c);
	if (c.n_conns)
		abort();
	pair__free(p);
	return 0;
}
