/* users.c: names from HOST_ROOT/etc/passwd and /etc/group through libc's
 * fgetpwent/fgetgrent, a user created after start found by the reload on a miss
 * (at most once a second), and a capture file's lists taking precedence. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inspect.h"
#include "t_check.h"
#include "t_write.h"

static char root[] = "/tmp/test_users.XXXXXX";

static int count_fn(void *ctx, const struct users_entry *e)
{
	int *n = ctx;

	n[e->group]++;
	return 0;
}

int main(void)
{
	struct inspector_opts io = { .no_proc_scan = true, .no_proc_lookup = true };
	struct users_entry fe = { .id = 1000, .gid = 1000, .name = "ubuntu",
				  .home = "/home/ubuntu", .shell = "/bin/bash" };
	struct inspector *in;
	char dir[4200];
	int n[2] = { 0, 0 };
	size_t added;

	if (!mkdtemp(root))
		return 1;
	snprintf(dir, sizeof(dir), "%s/etc", root);
	mkdir(dir, 0755);
	t_write(root, "etc/passwd", "root:x:0:0:root:/root:/bin/sh\napp:x:1000:1000::/home/app:/bin/sh\n"
	    "shadowed:x:1000:1000::/:/bin/sh\nbroken line\nnoshell:x:7:7::/var/empty\n"
	    "+nisuser\n", "w");
	t_write(root, "etc/group", "root:x:0:\napp:x:1001:app\n", "w");
	/* the root from $HOST_ROOT */
	setenv("HOST_ROOT", root, 1);
	in = inspector__new(&io);
	CHECK(in != NULL);
	CHECK(!users__from_file());
	CHECK_STR(users__name(0), "root");
	CHECK_STR(users__name(1000), "app");		/* the first line of an id wins */
	CHECK_STR(users__home(1000), "/home/app");
	CHECK_STR(users__shell(7), "");			/* a line without a shell */
	CHECK_STR(users__home(7), "/var/empty");
	CHECK_STR(groups__name(1001), "app");
	CHECK(groups__name(1000) == NULL);
	users__foreach(count_fn, n);
	CHECK_INT(n[0], 4);				/* not the broken or NIS lines */
	CHECK_INT(n[1], 2);
	added = users__added();

	/* a user created after start: not before a second has passed since the
	 * last load, then found by the reload on a miss */
	t_write(root, "etc/passwd", "late:x:2000:2000::/home/late:/bin/zsh\n", "a");
	t_write(root, "etc/group", "lategrp:x:2000:\n", "a");
	CHECK(users__name(2000) == NULL);
	usleep(1100 * 1000);
	CHECK_STR(users__name(2000), "late");
	CHECK_STR(users__shell(2000), "/bin/zsh");
	CHECK_STR(groups__name(2000), "lategrp");
	CHECK_STR(users__name(1000), "app");		/* the others still there */
	CHECK_INT(users__added(), added + 2);
	/* a miss within the second does not read the files again */
	t_write(root, "etc/passwd", "later:x:2001:2001::/:/bin/sh\n", "a");
	CHECK(users__name(2001) == NULL);
	CHECK(users__name(4242) == NULL);

	/* a capture file's lists: only they name users */
	users__file_begin();
	CHECK(users__from_file());
	CHECK(users__name(1000) == NULL);
	CHECK_INT(users__file_add(&fe, false), 0);
	CHECK_STR(users__name(1000), "ubuntu");
	CHECK_STR(users__home(1000), "/home/ubuntu");
	CHECK(users__name(0) == NULL);			/* not this host's root */
	n[0] = n[1] = 0;
	users__foreach(count_fn, n);
	CHECK_INT(n[0], 1);
	CHECK_INT(n[1], 0);
	added = users__added();
	fe.group = true;
	fe.id = 27;
	fe.name = "sudo";
	CHECK_INT(users__file_add(&fe, true), 0);	/* after the first event */
	CHECK_STR(groups__name(27), "sudo");
	CHECK_INT(users__added(), added + 1);
	/* freed with the inspector: the file's lists and the users seen later */
	inspector__free(in);
	CHECK(!users__from_file());
	CHECK_INT(users__added(), 0);
	/* a new inspector: the host's lists again */
	in = inspector__new(&io);
	CHECK(!users__from_file());
	CHECK_STR(users__name(0), "root");
	CHECK_STR(users__name(2001), "later");
	inspector__free(in);

	{
		char cmd[4300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd))
			fprintf(stderr, "cannot remove %s\n", root);
	}
	return t_report();
}
