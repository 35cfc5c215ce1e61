/* On a kernel without bpf_loop (< 5.17) the fillers that need it are left out and
 * their syscalls come as generic events, while every other filler still works.
 * Simulated here with driver_config.no_bpf_loop. */
#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "harness.h"

/* readv and writev, whose fillers are checked absent (they need bpf_loop);
 * close and openat, whose fillers are checked present. Both loads. */
static const int fallback_calls[] = { SYS_readv, SYS_writev, SYS_close, SYS_openat, -1 };

static int uses_loop_everywhere(struct driver *d)
{
	/* readv/writev walk iovecs with bpf_loop; close and openat do not. */
	return !driver__has_filler(d, PPME_SYSCALL_READV_E) &&
	       !driver__has_filler(d, PPME_SYSCALL_READV_X) &&
	       !driver__has_filler(d, PPME_SYSCALL_WRITEV_X);
}

int main(void)
{
	struct driver_config cfg = { .own_tgid = UINT32_MAX, .no_bpf_loop = true,
				     .syscalls = harness__only(fallback_calls) };
	struct harness *h = harness__open(64, &cfg);
	struct driver *d = harness__driver(h);
	int64_t tid = syscall(SYS_gettid);
	char buf[16];
	struct iovec iov = { buf, sizeof(buf) };
	struct hevt *e;
	int fd, at = 0;

	EXPECT(uses_loop_everywhere(d));
	EXPECT(driver__has_filler(d, PPME_SYSCALL_CLOSE_E) && driver__has_filler(d, PPME_SYSCALL_CLOSE_X));
	EXPECT(driver__has_filler(d, PPME_SYSCALL_OPENAT_2_X));

	fd = open("/dev/zero", O_RDONLY);
	harness__drain(h, -1);
	EXPECT(readv(fd, &iov, 1) == sizeof(buf));
	close(fd);
	harness__drain(h, tid);

	/* readv: the generic pair naming it. */
	e = harness__find(h, PPME_GENERIC_E, &at);
	while (e && hevt__int(e, 1) != SYS_readv)
		e = harness__find(h, PPME_GENERIC_E, &at);
	EXPECT(e != NULL);
	if (e) {
		hevt__expect_header(e, PPME_GENERIC_E, tid);
		EXPECT_PARAM_INT(e, 0, schema_syscall_routes[SYS_readv].ppm_sc);
	}
	e = harness__find(h, PPME_GENERIC_X, &at);
	EXPECT(e != NULL);
	if (e)
		EXPECT_PARAM_INT(e, 0, schema_syscall_routes[SYS_readv].ppm_sc);
	/* close: still its own filler. */
	at = 0;
	e = harness__find(h, PPME_SYSCALL_CLOSE_E, &at);
	EXPECT(e != NULL && hevt__int(e, 0) == fd);
	EXPECT(harness__find(h, PPME_SYSCALL_READV_E, NULL) == NULL);
	harness__close(h);

	/* And without the simulation every filler of the set loads. */
	h = harness__open(64, &(struct driver_config){ .own_tgid = UINT32_MAX,
						       .syscalls = cfg.syscalls });
	EXPECT(driver__has_filler(harness__driver(h), PPME_SYSCALL_READV_X));
	harness__close(h);
	return harness__report("driver_fallback");
}
