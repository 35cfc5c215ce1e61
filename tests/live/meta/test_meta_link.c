/* link, linkat, symlink, symlinkat on the real driver: every param of both
 * events (the enter events are empty, as in sysdig's table), names as passed,
 * linkat's flags, failing calls. */
#include <fcntl.h>

#include "meta_live.h"

/* The calls checked, each made with syscall(). */
static const int meta_link_calls[] = { SYS_link, SYS_linkat, SYS_symlink, SYS_symlinkat, -1 };

/* The exit of XTYPE whose string param I is S (its enter checked too), with RES
 * in param 0. */
static struct hevt *find_res(struct harness *h, uint16_t xtype, uint32_t i, const char *s,
			     long r, long want)
{
	struct hevt *e, *x;

	EXPECT(r == (want < 0 ? -1 : want));
	if (want < 0)
		EXPECT(meta_errno == -want);
	if ((x = meta__exit_str(h, xtype, i, s, &e)))
		EXPECT_PARAM_INT(x, 0, want);
	return x;
}

/* link(OLD, NEW) or symlink(OLD, NEW) (NR), whose result must be WANT. */
static void two_names_case(struct harness *h, long nr, const char *old, const char *new, long want)
{
	uint16_t xtype = nr == SYS_link ? PPME_SYSCALL_LINK_2_X : PPME_SYSCALL_SYMLINK_X;
	struct hevt *x;
	long r;

	META_CALL(h, r, syscall(nr, old, new));
	if ((x = find_res(h, xtype, 2, new, r, want))) {
		EXPECT_PARAM_STR(x, 1, old);
		EXPECT_PARAM_STR(x, 2, new);
	}
}

static void test_link_symlink(struct harness *h)
{
	char a[128], b[128];

	snprintf(a, sizeof(a), "%s/hard", dir);
	snprintf(b, sizeof(b), "%s/soft", dir);
	two_names_case(h, SYS_link, file, a, 0);
	two_names_case(h, SYS_link, file, a, -EEXIST);
	two_names_case(h, SYS_link, missing, b, -ENOENT);
	/* A symlink's target is any string, resolved or not. */
	two_names_case(h, SYS_symlink, "../any target", b, 0);
	two_names_case(h, SYS_symlink, file, b, -EEXIST);
	two_names_case(h, SYS_symlink, "t", "rel/no/dir", -ENOENT);
}

/* linkat(ODFD, OLD, NDFD, NEW, FLAGS): the exit has all five and res WANT. */
static void linkat_case(struct harness *h, int odfd, const char *old, int ndfd, const char *new,
			int flags, uint32_t pflags, long want)
{
	struct hevt *x;
	long r;

	META_CALL(h, r, syscall(SYS_linkat, odfd, old, ndfd, new, flags));
	if ((x = find_res(h, PPME_SYSCALL_LINKAT_2_X, 4, new, r, want))) {
		EXPECT_PARAM_INT(x, 1, odfd);
		EXPECT_PARAM_STR(x, 2, old);
		EXPECT_PARAM_INT(x, 3, ndfd);
		EXPECT_PARAM_STR(x, 4, new);
		EXPECT_PARAM_INT(x, 5, pflags);
	}
}

static void test_linkat(struct harness *h)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY), fd = open(file, O_RDONLY);
	char c[128];

	snprintf(c, sizeof(c), "%s/la", dir);
	linkat_case(h, dfd, "f", AT_FDCWD, c, 0, 0, 0);
	/* Through a symlink to the file it names. */
	EXPECT(symlinkat("f", dfd, "sym") == 0);
	linkat_case(h, dfd, "sym", dfd, "lb", AT_SYMLINK_FOLLOW, PPM_LINKAT_FLAGS_AT_SYMLINK_FOLLOW, 0);
	/* An open fd with an empty path (root has CAP_DAC_READ_SEARCH). */
	linkat_case(h, fd, "", dfd, "lc", AT_EMPTY_PATH, PPM_LINKAT_FLAGS_AT_EMPTY_PATH, 0);
	linkat_case(h, dfd, "missing", dfd, "ld", 0, 0, -ENOENT);
	linkat_case(h, dfd, "f", 9999, "le", 0, 0, -EBADF);
	/* An unknown flag: EINVAL, and only the known flags are sent. */
	linkat_case(h, dfd, "f", dfd, "lf", 0x1 | AT_SYMLINK_FOLLOW,
		    PPM_LINKAT_FLAGS_AT_SYMLINK_FOLLOW, -EINVAL);
	close(fd);
	close(dfd);
}

/* symlinkat(TARGET, DFD, LINK): the exit has all three and res WANT. */
static void symlinkat_case(struct harness *h, const char *target, int dfd, const char *link,
			   long want)
{
	struct hevt *x;
	long r;

	META_CALL(h, r, syscall(SYS_symlinkat, target, dfd, link));
	if ((x = find_res(h, PPME_SYSCALL_SYMLINKAT_X, 3, link, r, want))) {
		EXPECT_PARAM_STR(x, 1, target);
		EXPECT_PARAM_INT(x, 2, dfd);
		EXPECT_PARAM_STR(x, 3, link);
	}
}

static void test_symlinkat(struct harness *h)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	char d[128];

	snprintf(d, sizeof(d), "%s/sa", dir);
	symlinkat_case(h, "f", dfd, "sb", 0);
	symlinkat_case(h, "/nowhere", AT_FDCWD, d, 0);
	symlinkat_case(h, "f", dfd, "sb", -EEXIST);
	symlinkat_case(h, "f", 9999, "sc", -EBADF);
	symlinkat_case(h, "", dfd, "sd", -ENOENT);
	close(dfd);
}

int main(void)
{
	struct harness *h = live__open(256, meta_link_calls);

	meta__scratch("meta_link", "", 0);
	test_link_symlink(h);
	test_linkat(h);
	test_symlinkat(h);
	harness__close(h);
	live__rmtree(dir);
	return harness__report("meta_link");
}
