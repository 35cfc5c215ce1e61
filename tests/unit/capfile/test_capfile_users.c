/* User and group lists in capture files: the writer's block has libscap's UL v2
 * layout, a replay names users from the file's lists (never this host's), a user
 * created while writing comes back through a useradded event, files without lists
 * fall back to the reading host, and a malformed list is counted, not fatal. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capfile.h"
#include "capfile_int.h"
#include "frame_builder.h"
#include "inspect.h"
#include "t_check.h"
#include "t_write.h"

static char root[] = "/tmp/test_capfile_users.XXXXXX";
static char path[4200];

static struct inspector *new_inspector(void)
{
	struct inspector_opts io = { .host_root = root, .no_proc_scan = true,
				     .no_proc_lookup = true };

	return inspector__new(&io);
}

/* An ordinary event (close exit) for the file to have one. */
static int write_event(struct capfile_writer *w, uint64_t ts)
{
	uint8_t buf[256];
	struct frame_builder fb;

	fb__begin(&fb, buf, sizeof(buf), PPME_SYSCALL_CLOSE_X, 42, ts);
	fb__u64(&fb, 0);
	fb__end(&fb, 0);
	return capfile_writer__write(w, 0, (const struct ppm_evt_hdr *)buf);
}

static size_t slurp(const char *p, uint8_t *buf, size_t cap)
{
	FILE *f = fopen(p, "rb");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, cap, f);
	fclose(f);
	return n;
}

/* The file starts with the section header and then the UL v2 block. */
static void check_layout(void)
{
	static uint8_t b[1 << 16];
	size_t n = slurp(path, b, sizeof(b));
	uint32_t type, blen, sub, uid, gid;
	uint16_t nlen;

	CHECK(n > 28 + 12);
	if (n <= 28 + 12)
		return;
	memcpy(&type, b + 28, 4);
	memcpy(&blen, b + 32, 4);
	CHECK_INT(type, 0x220);
	CHECK_INT(blen % 4, 0);
	CHECK(blen <= n - 28);
	/* first entry: root's line */
	memcpy(&sub, b + 36, 4);
	CHECK_INT(b[40], 0);		/* a user */
	memcpy(&uid, b + 41, 4);
	memcpy(&gid, b + 45, 4);
	memcpy(&nlen, b + 49, 2);
	CHECK_INT(uid, 0);
	CHECK_INT(gid, 0);
	CHECK_INT(nlen, 4);
	CHECK(memcmp(b + 51, "root", 4) == 0);
	/* len + type + uid + gid + 3 strings: root, /root, /bin/sh */
	CHECK_INT(sub, 4 + 1 + 4 + 4 + 2 + 4 + 2 + 5 + 2 + 7);
}

static int count_events(struct capture *c, uint64_t *corrupt)
{
	struct capture_event ev;
	struct capture_stats st;
	int n = 0, rc;

	while ((rc = capture__next(c, &ev, 0)) == 0)
		n++;
	CHECK_INT(rc, -ENODATA);
	capture__stats(c, &st);
	*corrupt = st.total.n_corrupt;
	return n;
}

int main(void)
{
	struct capfile_error err;
	struct capfile_import imp;
	struct capfile_writer *w;
	struct inspector *in;
	struct capture *c;
	struct thread_info ti = { .tid = 42, .uid = 1001, .gid = 1001 };
	uint64_t mark = 0, corrupt = 0;
	char dir[4200];

	if (!mkdtemp(root))
		return 1;
	snprintf(dir, sizeof(dir), "%s/etc", root);
	mkdir(dir, 0755);
	t_write(root, "etc/passwd", "root:x:0:0:root:/root:/bin/sh\nubuntu:x:1000:1000::/home/ubuntu:/bin/bash\n",
	    "w");
	t_write(root, "etc/group", "root:x:0:\nubuntu:x:1000:\n", "w");
	snprintf(path, sizeof(path), "%s/users.scap", root);

	/* write: the host's lists at start, then a user created while running */
	in = new_inspector();
	CHECK(in != NULL);
	CHECK_STR(users__name(1000), "ubuntu");
	w = capfile_writer__open(path, false);
	CHECK(w != NULL);
	if (!w)
		goto out;
	CHECK_INT(capfile_writer__users(w, &mark), 0);
	CHECK_INT(write_event(w, 1000), 0);
	t_write(root, "etc/passwd", "late:x:1001:1001::/home/late:/bin/sh\n", "a");
	t_write(root, "etc/group", "late:x:1001:\n", "a");
	/* within a second of the last load the miss does not reload */
	CHECK_INT(capfile_writer__users_new(w, &ti, 0, 2000, &mark), 0);
	CHECK(users__name(1001) == NULL);
	usleep(1100 * 1000);
	CHECK_INT(capfile_writer__users_new(w, &ti, 0, 3000, &mark), 0);
	CHECK_STR(users__name(1001), "late");
	CHECK_INT(mark, users__added());
	CHECK_INT(users__added(), 2);	/* the user and the group */
	/* nothing new: nothing written */
	CHECK_INT(capfile_writer__users_new(w, &ti, 0, 3500, &mark), 0);
	CHECK_INT(write_event(w, 4000), 0);
	CHECK_INT(capfile_writer__close(w), 0);
	inspector__free(in);
	check_layout();

	/* the reading host names uid 1000 differently: the file's name wins */
	t_write(root, "etc/passwd", "root:x:0:0:root:/root:/bin/sh\nhostuser:x:1000:1000::/h:/bin/sh\n", "w");
	t_write(root, "etc/group", "root:x:0:\nhostgroup:x:1000:\n", "w");
	in = new_inspector();
	c = capture__open_file_state(path, &err, in, &imp);
	CHECK(c != NULL);
	if (!c)
		goto out_in;
	CHECK(users__from_file());
	CHECK_STR(users__name(1000), "ubuntu");
	CHECK_STR(users__home(1000), "/home/ubuntu");
	CHECK_STR(users__shell(1000), "/bin/bash");
	CHECK_STR(groups__name(1000), "ubuntu");
	CHECK(users__name(1001) == NULL);	/* not before its useradded event */
	CHECK_INT(imp.n_bad_lists, 0);
	CHECK_INT(count_events(c, &corrupt), 2);	/* the useradded/groupadded are state */
	CHECK_INT(corrupt, 0);
	CHECK_STR(users__name(1001), "late");
	CHECK_STR(users__home(1001), "/home/late");
	CHECK_STR(groups__name(1001), "late");
	CHECK(users__name(4242) == NULL);	/* never the host's */
	capture__close(c);
	/* without an inspector the lists are not imported: the host's stay */
	users__file_reset();
	c = capture__open_file(path, &err);
	CHECK(c != NULL);
	if (c) {
		CHECK_INT(count_events(c, &corrupt), 2);
		CHECK_INT(corrupt, 0);
		capture__close(c);
	}
	CHECK(!users__from_file());
	CHECK_STR(users__name(1000), "hostuser");
	inspector__free(in);

	/* a file with no list: the reading host's names */
	w = capfile_writer__open(path, true);
	CHECK(w != NULL);
	if (w) {
		CHECK_INT(write_event(w, 1000), 0);
		CHECK_INT(capfile_writer__close(w), 0);
	}
	in = new_inspector();
	c = capture__open_file_state(path, &err, in, &imp);
	CHECK(c != NULL);
	if (c)
		capture__close(c);
	CHECK(!users__from_file());
	CHECK_STR(users__name(1000), "hostuser");
	CHECK_STR(groups__name(1000), "hostgroup");
	inspector__free(in);

	/* a malformed list (an entry's name runs past the block): counted, the
	 * entries before it kept, the events still read */
	w = capfile_writer__open(path, false);
	CHECK(w != NULL);
	if (w) {
		uint8_t body[64] = { 0 }, *p = body;
		uint32_t sub = 4 + 1 + 4 + 2 + 3, id = 7;
		uint16_t l = 3;

		/* group "ops" 7, then a user entry cut short */
		memcpy(p, &sub, 4); p += 4;
		*p++ = 1;
		memcpy(p, &id, 4); p += 4;
		memcpy(p, &l, 2); p += 2;
		memcpy(p, "ops", 3); p += 3;
		sub = 40;
		memcpy(p, &sub, 4); p += 4;
		*p++ = 0;
		CHECK_INT(capfile_writer__block(w, 0x220, body, (size_t)(p - body)), 0);
		CHECK_INT(write_event(w, 1000), 0);
		CHECK_INT(capfile_writer__close(w), 0);
	}
	in = new_inspector();
	c = capture__open_file_state(path, &err, in, &imp);
	CHECK(c != NULL);
	if (c) {
		CHECK_INT(imp.n_bad_lists, 1);
		CHECK(users__from_file());
		CHECK_STR(groups__name(7), "ops");
		CHECK(users__name(1000) == NULL);
		CHECK_INT(count_events(c, &corrupt), 1);
		capture__close(c);
	}
	inspector__free(in);
	goto out;
out_in:
	inspector__free(in);
out:
	{
		char cmd[4300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd))
			fprintf(stderr, "cannot remove %s\n", root);
	}
	return t_report();
}
