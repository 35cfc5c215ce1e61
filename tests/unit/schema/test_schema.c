/* The generated schema matches sysdig's table where it matters for interop, and
 * frame validation rejects every kind of malformed frame. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame_builder.h"
#include "schema.h"
#include "t_check.h"

static void test_codes(void)
{
	/* A few codes that capture files depend on (sysdig 0.29.3's enum). */
	CHECK(PPME_GENERIC_E == 0 && PPME_GENERIC_X == 1);
	CHECK(PPME_SYSCALL_OPEN_E == 2 && PPME_SYSCALL_CLOSE_X == 5);
	CHECK(PPME_SYSCALL_OPENAT_2_E == 306 && PPME_SYSCALL_OPENAT_2_X == 307);
	CHECK(PPME_SYSCALL_EXECVE_19_X == 293 && PPME_SYSCALL_CLONE_20_X == 223);
	CHECK(PPME_PROCEXIT_1_E == 186 && PPME_SYSCALL_CLONE3_X == 335);
	CHECK(PPM_SYSDIG_EVENT_MAX == 336 && PPME_SYSCALL_MEMFD_CREATE_E == PPM_SYSDIG_EVENT_MAX);
	CHECK(PPM_EVENT_MAX == 380 && PPME_CPU_SLICES_E == 364 && PPME_CPU_SAMPLE_E == 366 &&
	      PPME_FD_NAME_E == 368 && PPME_TLS_READ_E == 370 && PPME_TLS_WRITE_E == 372 &&
	      PPME_SOCK_RECV_X == 375 && PPME_SOCK_SEND_X == 377 && PPME_TCP_CLOSE_E == 378);
	/* TCP health's record: an enter event alone, its tuple last */
	CHECK(schema_events[PPME_TCP_CLOSE_E + 1].flags & EF_UNUSED);
	CHECK(schema_events[PPME_TCP_CLOSE_E].nparams == 14 &&
	      schema_events[PPME_TCP_CLOSE_E].params[0].type == PT_PID &&
	      schema_events[PPME_TCP_CLOSE_E].params[12].type == PT_CHARBUF &&
	      schema_events[PPME_TCP_CLOSE_E].params[13].type == PT_SOCKTUPLE);
	/* compact socket I/O: exit events alone (their enter codes unused),
	 * res first and the fd second, as the parser finds them, the TCP
	 * state after the data (req_mode.c reads it there), an mmsg message's
	 * tuple last (parse_msg.c), and a read's or a write's category */
	for (int t = PPME_SOCK_RECV_X; t <= PPME_SOCK_SEND_X; t += 2) {
		CHECK(schema_events[t - 1].flags & EF_UNUSED);
		CHECK(schema_events[t].nparams == 7 && schema_events[t].params[0].type == PT_ERRNO &&
		      schema_events[t].params[1].type == PT_FD &&
		      schema_events[t].params[2].type == PT_UINT16 &&
		      schema_events[t].params[3].type == PT_BYTEBUF &&
		      !strcmp(schema_events[t].params[3].name, "data") &&
		      schema_events[t].params[4].type == PT_UINT32 &&
		      !strcmp(schema_events[t].params[4].name, "retrans") &&
		      schema_events[t].params[5].type == PT_UINT32 &&
		      !strcmp(schema_events[t].params[5].name, "srtt") &&
		      schema_events[t].params[6].type == PT_SOCKTUPLE &&
		      !strcmp(schema_events[t].params[6].name, "tuple"));
		CHECK(schema_events[t].flags & EF_USES_FD);
		CHECK(schema_events[t].category == (t == PPME_SOCK_RECV_X ? EC_IO_READ : EC_IO_WRITE));
	}
	/* the TLS pairs have read's and write's layouts: the pairing takes them so */
	for (int t = PPME_TLS_READ_E; t <= PPME_TLS_WRITE_X; t++) {
		int base = t - PPME_TLS_READ_E + (t < PPME_TLS_WRITE_E ? PPME_SYSCALL_READ_E :
						 PPME_SYSCALL_WRITE_E - 2);

		CHECK(schema_events[t].nparams == schema_events[base].nparams);
		for (uint32_t i = 0; i < schema_events[t].nparams; i++)
			CHECK(schema_events[t].params[i].type == schema_events[base].params[i].type &&
			      !strcmp(schema_events[t].params[i].name,
				      schema_events[base].params[i].name));
		CHECK(schema_events[t].category == schema_events[base].category);
	}
	CHECK(schema_events[PPME_CPU_SLICES_E].nparams == 3 &&
	      schema_events[PPME_CPU_SLICES_E].params[0].type == PT_PID &&
	      schema_events[PPME_CPU_SLICES_E].params[2].type == PT_BYTEBUF);
	for (int i = 0; i < PPM_EVENT_MAX; i++)
		CHECK(schema_events[i].name && schema_events[i].nparams <= PPM_MAX_EVENT_PARAMS);
	CHECK(strcmp(schema_events[PPME_SYSCALL_OPENAT_2_X].params[2].name, "name") == 0);
	CHECK(schema_events[PPME_SYSCALL_OPENAT_2_X].params[2].type == PT_FSRELPATH);
	CHECK(schema_events[PPME_SYSCALL_OPENAT_2_X].params[2].dirfd_param == 1);
	CHECK(schema_events[PPME_SYSCALL_EXECVE_19_X].nparams == 20);
	CHECK(schema__event_by_id("SYSCALL_OPENAT_2_X") == 307);
	CHECK(schema__event_by_id("NOPE") == -ENOENT);
}

static void test_routes(void)
{
	CHECK(schema_syscall_routes[257].enter_event == PPME_SYSCALL_OPENAT_2_E);
	CHECK(schema_syscall_routes[59].exit_event == PPME_SYSCALL_EXECVE_19_X);
	CHECK(schema_syscall_routes[110].enter_event == PPME_GENERIC_E);
	CHECK(schema_syscall_routes[319].exit_event == PPME_SYSCALL_MEMFD_CREATE_X);
	CHECK(strcmp(schema_syscall_names[334], "rseq") == 0);
	CHECK(strcmp(schema_syscall_names[471], "rseq_slice_yield") == 0);
	CHECK(strcmp(schema_syscall_names[110], "getppid") == 0);
	CHECK(strcmp(schema__ppm_sc_name(schema_syscall_routes[110].ppm_sc), "getppid") == 0);
	CHECK(PPM_FILE_FLAGS_O_CLOEXEC == 4096 && PPM_FILE_FLAGS_O_CREAT == 4);
	const struct ppm_name_value *ff = schema__flagset("file_flags");
	CHECK(ff && ff[0].name);
}

static void test_validate(void)
{
	uint8_t buf[256];
	struct frame_builder fb;
	struct schema_params p;
	uint32_t len;

	fb__begin(&fb, buf, sizeof(buf), PPME_SYSCALL_CLOSE_E, 42, 1000);
	fb__u64(&fb, 7);
	len = fb__end(&fb, 0);
	CHECK(len == PPM_HDR_LEN + 2 + 8);
	CHECK(schema__validate(buf, len) == 0);
	CHECK(schema__params(buf, &p) == 0 && p.n == 1 && p.len[0] == 8 && schema__u64(p.val[0]) == 7);
	/* truncated buffer, header lies about len, unknown type, too many params */
	CHECK(schema__validate(buf, len - 1) == -EINVAL);
	CHECK(schema__validate(buf, 10) == -EINVAL);
	struct ppm_evt_hdr h;
	memcpy(&h, buf, sizeof(h));
	h.type = PPM_EVENT_MAX;
	memcpy(buf, &h, sizeof(h));
	CHECK(schema__validate(buf, len) == -EINVAL);
	h.type = PPME_SYSCALL_CLOSE_E;
	h.nparams = 9;
	memcpy(buf, &h, sizeof(h));
	CHECK(schema__validate(buf, len) == -EINVAL);
	/* a param length running past the end */
	h.nparams = 1;
	memcpy(buf, &h, sizeof(h));
	uint16_t big = 200;
	memcpy(buf + PPM_HDR_LEN, &big, 2);
	CHECK(schema__validate(buf, sizeof(buf)) == -EINVAL);
	/* an older frame with fewer params than the table is accepted */
	fb__begin(&fb, buf, sizeof(buf), PPME_SYSCALL_OPEN_X, 1, 1);
	fb__u64(&fb, 3);
	fb__str(&fb, "/etc/passwd");
	len = fb__end(&fb, 1);
	CHECK(len && schema__validate(buf, len) == 0);
	CHECK(schema__params(buf, &p) == 0 && p.n == 2 && strcmp((const char *)p.val[1], "/etc/passwd") == 0);
	int64_t v;
	CHECK(schema__param_int(PT_FD, p.val[0], p.len[0], &v) == 0 && v == 3);
	CHECK(schema__param_int(PT_UINT32, p.val[0], p.len[0], &v) == -EINVAL);
}

/* Exit-only capture's left-out enter events: which calls, and each byte of
 * the rebuilt frame against the one the driver builds when it sends it. */
static void test_eo_enter(void)
{
	uint8_t x[64], e[64], want[64], big[SCHEMA_EO_ENTER_MAX];
	struct frame_builder fb;
	uint32_t xlen, wlen;
	int n, generic = 0, bare = 0;

	/* Which routes: a generic pair whose code names one call, an enter
	 * event without params; never a call whose enter event carries
	 * something (close's fd) or is sent elsewhere (clone, execve, exit). */
	CHECK(schema_syscall_routes[110].flags & UF_EO_SYNTH);		/* getppid */
	CHECK(schema_syscall_routes[102].flags & UF_EO_SYNTH);		/* getuid */
	CHECK(schema_syscall_routes[4].flags & UF_EO_SYNTH);		/* stat */
	CHECK(!(schema_syscall_routes[3].flags & UF_EO_SYNTH));		/* close */
	CHECK(!(schema_syscall_routes[56].flags & UF_EO_SYNTH));	/* clone */
	CHECK(!(schema_syscall_routes[57].flags & UF_EO_SYNTH));	/* fork */
	CHECK(!(schema_syscall_routes[59].flags & UF_EO_SYNTH));	/* execve */
	CHECK(!(schema_syscall_routes[60].flags & UF_EO_SYNTH));	/* exit */
	CHECK(!(schema_syscall_routes[231].flags & UF_EO_SYNTH));	/* exit_group */
	/* modify_ldt and others share PPM_SC 0: no nativeID to rebuild */
	CHECK(!(schema_syscall_routes[154].flags & UF_EO_SYNTH));
	for (int nr = 0; nr < SYSCALL_TABLE_SIZE; nr++) {
		const struct syscall_route *r = &schema_syscall_routes[nr];

		if (!(r->flags & UF_EO_SYNTH))
			continue;
		CHECK(schema__eo_maybe(r->exit_event));
		if (r->exit_event == PPME_GENERIC_X) {
			CHECK(schema_eo_sc_nr[r->ppm_sc] == nr);
			generic++;
		} else {
			CHECK(schema_events[r->enter_event].nparams == 0 &&
			      r->enter_event + 1 == r->exit_event);
			bare++;
		}
	}
	/* the README's counts (Engines) */
	CHECK(generic == 167 && bare == 51);

	/* getppid's exit frame: GENERIC_E(ID, nativeID) at its time, thread. */
	fb__begin(&fb, x, sizeof(x), PPME_GENERIC_X, 4242, 1700000000123456789ull);
	fb__u16(&fb, schema_syscall_routes[110].ppm_sc);
	xlen = fb__end(&fb, 0);
	fb__begin(&fb, want, sizeof(want), PPME_GENERIC_E, 4242, 1700000000123456789ull);
	fb__u16(&fb, schema_syscall_routes[110].ppm_sc);
	fb__u16(&fb, 110);
	wlen = fb__end(&fb, 0);
	n = schema__eo_enter(x, xlen, e, sizeof(e));
	CHECK(n == (int)wlen && wlen == SCHEMA_EO_ENTER_MAX && memcmp(e, want, wlen) == 0);
	CHECK(schema__validate(e, n) == 0);
	CHECK(schema__eo_enter(x, xlen, big, sizeof(big)) == (int)wlen);
	CHECK(schema__eo_enter(x, xlen, e, SCHEMA_EO_ENTER_MAX - 1) == -ENOSPC);
	/* a generic exit of a code shared by several calls: not left out */
	fb__begin(&fb, x, sizeof(x), PPME_GENERIC_X, 1, 2);
	fb__u16(&fb, 0);
	xlen = fb__end(&fb, 0);
	CHECK(schema__eo_enter(x, xlen, e, sizeof(e)) == 0);
	/* a generic exit without its ID, or with one of the wrong size */
	fb__begin(&fb, x, sizeof(x), PPME_GENERIC_X, 1, 2);
	fb__u8(&fb, 41);
	xlen = fb__end(&fb, 0);
	CHECK(schema__eo_enter(x, xlen, e, sizeof(e)) == -EINVAL);
	CHECK(schema__eo_enter(x, PPM_HDR_LEN + 1, e, sizeof(e)) == -EINVAL);
	CHECK(schema__eo_enter(x, PPM_HDR_LEN - 1, e, sizeof(e)) == -EINVAL);

	/* getuid's exit frame: a bare GETUID_E header. */
	fb__begin(&fb, x, sizeof(x), PPME_SYSCALL_GETUID_X, 77, 99);
	fb__u32(&fb, 1000);
	xlen = fb__end(&fb, 0);
	fb__begin(&fb, want, sizeof(want), PPME_SYSCALL_GETUID_E, 77, 99);
	wlen = fb__end(&fb, 0);
	n = schema__eo_enter(x, xlen, e, sizeof(e));
	CHECK(n == PPM_HDR_LEN && (int)wlen == n && memcmp(e, want, wlen) == 0);
	/* close's exit: its enter event is always sent */
	fb__begin(&fb, x, sizeof(x), PPME_SYSCALL_CLOSE_X, 77, 99);
	fb__u64(&fb, 0);
	xlen = fb__end(&fb, 0);
	CHECK(schema__eo_enter(x, xlen, e, sizeof(e)) == 0);
	CHECK(!schema__eo_maybe(PPME_SYSCALL_CLOSE_X) && !schema__eo_maybe(PPM_EVENT_MAX));
	CHECK(!schema__eo_maybe(PPME_SYSCALL_GETUID_E));
}

int main(void)
{
	test_codes();
	test_routes();
	test_validate();
	test_eo_enter();
	return t_report();
}
