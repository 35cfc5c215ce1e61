/* The generated schema matches sysdig's table where it matters for interop, and
 * frame validation rejects every kind of malformed frame. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame_builder.h"
#include "schema.h"

static int failures;

#define CHECK(cond) do { if (!(cond)) { fprintf(stderr, "%s:%d: CHECK(%s) failed\n", \
	__FILE__, __LINE__, #cond); failures++; } } while (0)

static void test_codes(void)
{
	/* A few codes that capture files depend on (sysdig 0.29.3's enum). */
	CHECK(PPME_GENERIC_E == 0 && PPME_GENERIC_X == 1);
	CHECK(PPME_SYSCALL_OPEN_E == 2 && PPME_SYSCALL_CLOSE_X == 5);
	CHECK(PPME_SYSCALL_OPENAT_2_E == 306 && PPME_SYSCALL_OPENAT_2_X == 307);
	CHECK(PPME_SYSCALL_EXECVE_19_X == 293 && PPME_SYSCALL_CLONE_20_X == 223);
	CHECK(PPME_PROCEXIT_1_E == 186 && PPME_SYSCALL_CLONE3_X == 335);
	CHECK(PPM_SYSDIG_EVENT_MAX == 336 && PPME_SYSCALL_MEMFD_CREATE_E == PPM_SYSDIG_EVENT_MAX);
	CHECK(PPM_EVENT_MAX == 364);
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

int main(void)
{
	test_codes();
	test_routes();
	test_validate();
	printf("%s\n", failures ? "FAIL" : "ok");
	return failures ? 1 : 0;
}
