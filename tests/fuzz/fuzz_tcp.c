/* TCP_CLOSE events (TCP health) as a capture file or a spoilt ring may hand
 * them over. First byte 0: the rest is the frame after its header (14 param
 * lengths, then the params), behind a header made here, so that the fuzzer
 * works on the lengths; else the rest is a whole frame, header included, its
 * type made TCP_CLOSE_E (the agent decodes no other). The frame is validated
 * and located by the schema, decoded (tcp_record__decode) and, when it
 * decodes, held to the record's contract, every tcp.* field extracted and
 * rendered (and the lot as a JSON line), and the record counted by a
 * topology whose metrics are written out. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "prom.h"
#include "schema.h"
#include "tcp_event.h"
#include "topo.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TCP_FIELDS_MAX 64

static struct field_ref refs[TCP_FIELDS_MAX];
static unsigned nrefs;
static struct format *json;

/* Every tcp.* field of the table, and a format of them all for the JSON line. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct filter_error err;
	struct sbuf fmt;

	(void)argc;
	(void)argv;
	sbuf__init(&fmt);
	sbuf__putc(&fmt, '*');
	for (unsigned i = 0; i < field_table_len; i++) {
		const char *name = field_table[i].name;

		if (strncmp(name, "tcp.", 4))
			continue;
		if (nrefs == TCP_FIELDS_MAX || field_ref__parse(name, 1, 0, &refs[nrefs++], &err))
			abort();
		sbuf__printf(&fmt, " %%%s", name);
	}
	json = fmt.err ? NULL : format__compile(sbuf__cstr(&fmt), &err);
	if (!nrefs || !json)
		abort();
	sbuf__free(&fmt);
	return 0;
}

/* What the decoder promises (tcp_event.h, tcp_record.h); aborts otherwise. */
static void record__check(const struct tcp_record *r, uint64_t ts)
{
	const struct req_end *local = r->side == REQ_SIDE_SERVER ? &r->server : &r->client;
	const struct req_end *peer = local == &r->server ? &r->client : &r->server;

	if ((r->side != REQ_SIDE_CLIENT && r->side != REQ_SIDE_SERVER) ||
	    r->outcome >= TCP_OUTCOME__COUNT ||
	    (r->family != PPM_AF_INET && r->family != PPM_AF_INET6))
		abort();
	if (r->established != (r->outcome <= TCP_OUTCOME_RESET) || r->ts_end != ts)
		abort();
	if (!local->local || peer->local || peer->pid || peer->comm[0] || local->container)
		abort();
	if (!memchr(r->client.comm, 0, sizeof(r->client.comm)) ||
	    !memchr(r->server.comm, 0, sizeof(r->server.comm)))
		abort();
	if (strcmp(tcp_outcome__name(r->outcome), "?") == 0)
		abort();
}

/* Each tcp.* field of R as -p prints it; then all of them as a JSON line. */
static void record__render(const struct tcp_record *r)
{
	struct field_ctx ctx;
	struct field_value v;
	struct sbuf out;

	field_ctx__init(&ctx, NULL);
	ctx.tcp = r;
	sbuf__init(&out);
	for (unsigned i = 0; i < nrefs; i++) {
		int err = field__extract(&refs[i], NULL, &ctx, 0, &v);

		if (err == 0)
			field__render(&refs[i], &v, &ctx, &out);
		else if (err != -ENOENT)
			abort();
		sbuf__putc(&out, ' ');
	}
	if (format__json(json, NULL, &ctx, &out) && !out.err)
		abort();
	sbuf__free(&out);
	field_ctx__fini(&ctx);
}

/* R counted on a topology of its own, its metrics written. */
static void record__count(const struct tcp_record *r)
{
	struct prom_buf b = PROM_BUF_INIT;
	struct topo *t = topo__new(NULL);
	int err;

	if (!t)
		return;
	err = topo__add_tcp(t, r);
	/* in range, so only memory may fail it */
	if (err && err != -ENOMEM)
		abort();
	if (topo__prom(t, &b) == 0 && !err && (!b.buf || !strstr(b.buf, "agent_tcp_")))
		abort();
	prom_buf__free(&b);
	topo__free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint16_t type = PPME_TCP_CLOSE_E;
	struct schema_params pp;
	struct ppm_evt_hdr h;
	struct tcp_record r;
	size_t len;
	uint8_t *frame;

	if (size < 1 || size > PPM_MAX_EVENT_SIZE)
		return 0;
	/* a buffer of just the frame's size: ASan sees a read past it */
	len = data[0] ? size - 1 : PPM_HDR_LEN + size - 1;
	frame = malloc(len ? len : 1);
	if (!frame)
		return 0;
	if (data[0]) {
		memcpy(frame, data + 1, size - 1);
		if (len >= PPM_HDR_LEN)
			memcpy(frame + offsetof(struct ppm_evt_hdr, type), &type, sizeof(type));
	} else {
		memset(&h, 0, sizeof(h));
		h.ts = 1700000000000000000ULL;
		h.tid = 4242;
		h.len = (uint32_t)len;
		h.type = type;
		h.nparams = PPME_TCP_CLOSE_E_NPARAMS;
		memcpy(frame, &h, PPM_HDR_LEN);
		memcpy(frame + PPM_HDR_LEN, data + 1, size - 1);
	}
	if (schema__validate(frame, len) == 0 && schema__params(frame, &pp) == 0) {
		memcpy(&h, frame, PPM_HDR_LEN);
		if (tcp_record__decode(&r, &pp, h.ts) == 0) {
			record__check(&r, h.ts);
			record__render(&r);
			record__count(&r);
		}
	}
	free(frame);
	return 0;
}
