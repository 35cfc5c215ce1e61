/* Reading processes and threads from HOST_ROOT/proc. Everything here is
 * untrusted and may vanish while we read it: a failure is returned, never fatal. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inspect_int.h"
#include "procfs_int.h"

struct procfs *procfs__new(const char *root)
{
	struct procfs *p = calloc(1, sizeof(*p));
	char path[PROCFS_PATH_MAX], buf[4096];
	ssize_t n;

	if (!p)
		return NULL;
	if (!root)
		root = "";
	if (strlen(root) >= PROCFS_ROOT_MAX) {
		free(p);
		errno = ENAMETOOLONG;
		return NULL;
	}
	p->root = strdup(root);
	if (!p->root) {
		free(p);
		errno = ENOMEM;
		return NULL;
	}
	p->hz = sysconf(_SC_CLK_TCK);
	if (p->hz <= 0)
		p->hz = 100;
	/* Boot time, to turn /proc/PID/stat start times into epoch ns. */
	procfs__path(path, sizeof(path), "%s/proc/stat", p->root);
	n = procfs__read_file(path, buf, sizeof(buf));
	if (n > 0) {
		const char *b = strstr(buf, "\nbtime ");

		if (b)
			p->btime = strtoull(b + 7, NULL, 10);
	}
	procfs__load_controllers(p);
	return p;
}

void procfs__free(struct procfs *p)
{
	if (!p)
		return;
	procfs__drop_sockets(p);
	free(p->controllers);
	free(p->root);
	free(p);
}

const char *procfs__root(const struct procfs *p)
{
	return p->root;
}

/* The controllers a cgroup v2 line "0::/path" stands for: those /proc/cgroups
 * lists on hierarchy 0, else the root's cgroup.controllers. */
void procfs__load_controllers(struct procfs *p)
{
	char path[PROCFS_PATH_MAX], buf[4096], out[1024];
	size_t olen = 0;
	char *line, *save;

	procfs__path(path, sizeof(path), "%s/proc/cgroups", p->root);
	if (procfs__read_file(path, buf, sizeof(buf)) > 0) {
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char name[64];
			unsigned hier, num, enabled;

			if (line[0] == '#' ||
			    sscanf(line, "%63s %u %u %u", name, &hier, &num, &enabled) != 4)
				continue;
			if (hier != 0 || !enabled || olen + strlen(name) + 1 >= sizeof(out))
				continue;
			memcpy(out + olen, name, strlen(name) + 1);
			olen += strlen(name) + 1;
		}
	}
	if (olen == 0) {
		procfs__path(path, sizeof(path), "%s/sys/fs/cgroup/cgroup.controllers", p->root);
		if (procfs__read_file(path, buf, sizeof(buf)) > 0) {
			for (line = strtok_r(buf, " \n", &save); line;
			     line = strtok_r(NULL, " \n", &save)) {
				if (olen + strlen(line) + 1 >= sizeof(out))
					break;
				memcpy(out + olen, line, strlen(line) + 1);
				olen += strlen(line) + 1;
			}
		}
	}
	free(p->controllers);
	p->controllers = NULL;
	p->controllers_len = 0;
	if (olen && (p->controllers = malloc(olen))) {
		memcpy(p->controllers, out, olen);
		p->controllers_len = olen;
	}
}

/* Appends "name=path\0" to the cgroups buffer. */
static void cg__add(char *out, size_t size, size_t *len, const char *name, size_t nlen,
		    const char *path)
{
	size_t plen = strlen(path);

	if (*len + nlen + 1 + plen + 1 > size)
		return;
	memcpy(out + *len, name, nlen);
	out[*len + nlen] = '=';
	memcpy(out + *len + nlen + 1, path, plen + 1);
	*len += nlen + 1 + plen + 1;
}

/* /proc/PID/cgroup "id:ctrl1,ctrl2:/path" lines rendered as sysdig's
 * "ctrl1=/path\0ctrl2=/path\0". */
static void procfs__read_cgroups(struct procfs *p, const char *dir, struct thread_info *ti)
{
	char path[PROCFS_PATH_MAX], buf[8192], out[8192];
	size_t olen = 0;
	char *line, *save;

	procfs__path(path, sizeof(path), "%s/cgroup", dir);
	if (procfs__read_file(path, buf, sizeof(buf)) <= 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *ctrls = strchr(line, ':'), *cgpath;

		if (!ctrls)
			continue;
		ctrls++;
		cgpath = strchr(ctrls, ':');
		if (!cgpath)
			continue;
		*cgpath++ = '\0';
		if (*ctrls == '\0') {
			/* cgroup v2: one entry per controller of the unified hierarchy */
			for (size_t o = 0; o < p->controllers_len; o += strlen(p->controllers + o) + 1)
				cg__add(out, sizeof(out), &olen, p->controllers + o,
					strlen(p->controllers + o), cgpath);
			continue;
		}
		while (*ctrls) {
			size_t n = strcspn(ctrls, ",");

			if (n)
				cg__add(out, sizeof(out), &olen, ctrls, n, cgpath);
			ctrls += n;
			if (*ctrls == ',')
				ctrls++;
		}
	}
	if (olen)
		thread_info__set_buf(&ti->cgroups, &ti->cgroups_len, out, olen);
}

/* The last number of a status line such as "NSpid:\t42\t7", and how many it
 * has (NSpid: one per pid namespace level, from /proc's own down to the
 * task's). */
static int64_t status__last(const char *line, unsigned *count)
{
	const char *e = line + strcspn(line, "\n");
	int64_t v = -1;
	unsigned n = 0;

	while (line < e) {
		while (line < e && !isdigit((unsigned char)*line))
			line++;
		if (line < e) {
			v = strtoll(line, (char **)&line, 10);
			n++;
		}
	}
	if (count)
		*count = n;
	return v;
}

static const char *status__field(const char *buf, const char *key)
{
	size_t klen = strlen(key);

	for (const char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (strncmp(l, key, klen) == 0)
			return l + klen;
	return NULL;
}

/* The second number of a status line ("Uid:\t0\t1000\t..." gives 1000). */
static uint32_t status__second(const char *v)
{
	char *end;

	strtoul(v, &end, 10);
	return (uint32_t)strtoul(end, NULL, 10);
}

static int procfs__read_status(const char *dir, struct thread_info *ti, int64_t *tgid)
{
	char path[PROCFS_PATH_MAX], buf[4096];
	const char *v;
	ssize_t n;

	procfs__path(path, sizeof(path), "%s/status", dir);
	n = procfs__read_file(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	if (!(v = status__field(buf, "Tgid:")))
		return -EINVAL;
	*tgid = strtoll(v, NULL, 10);
	if ((v = status__field(buf, "PPid:")))
		ti->ptid = strtoll(v, NULL, 10);
	/* real, effective, saved, fs: the effective ids, as events give them */
	if ((v = status__field(buf, "Uid:")))
		ti->uid = status__second(v);
	if ((v = status__field(buf, "Gid:")))
		ti->gid = status__second(v);
	if ((v = status__field(buf, "NSpid:"))) {
		unsigned levels;

		ti->vtid = status__last(v, &levels);
		/* HOST_ROOT/proc is the host's: one number is its namespace */
		if (levels)
			ti->pidns = levels == 1 ? PIDNS_INIT : PIDNS_CHILD;
	}
	if ((v = status__field(buf, "NStgid:")))
		ti->vpid = status__last(v, NULL);
	return 0;
}

/* pgrp, session, tty and start time from /proc/PID/stat (after the comm, which
 * may hold spaces and parentheses). */
static int procfs__read_stat(struct procfs *p, const char *dir, struct thread_info *ti)
{
	char path[PROCFS_PATH_MAX], buf[1024];
	unsigned long long start = 0;
	long long pgrp, sid;
	ssize_t n;
	int tty;
	char *s;

	procfs__path(path, sizeof(path), "%s/stat", dir);
	n = procfs__read_file(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	s = strrchr(buf, ')');
	if (!s)
		return -EINVAL;
	/* fields 3..22: state ppid pgrp session tty_nr ... starttime */
	if (sscanf(s + 1, " %*c %*d %lld %lld %d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
		   "%*d %*d %*d %*d %llu", &pgrp, &sid, &tty, &start) != 4)
		return -EINVAL;
	ti->pgid = pgrp;
	ti->sid = sid;
	ti->tty = (uint32_t)tty;
	ti->start_ts = p->btime * 1000000000ULL + start * (1000000000ULL / (uint64_t)p->hz);
	return 0;
}

static void procfs__read_comm(const char *dir, struct thread_info *ti)
{
	char path[PROCFS_PATH_MAX], buf[64];
	ssize_t n;

	procfs__path(path, sizeof(path), "%s/comm", dir);
	n = procfs__read_file(path, buf, sizeof(buf));
	if (n <= 0)
		return;
	n = (ssize_t)strcspn(buf, "\n");
	if (n >= (ssize_t)sizeof(ti->comm))
		n = sizeof(ti->comm) - 1;
	memcpy(ti->comm, buf, (size_t)n);
	ti->comm[n] = '\0';
}

/* exe (argv[0]) and args from the NUL-separated cmdline. */
static void procfs__read_cmdline(const char *dir, struct thread_info *ti)
{
	char path[PROCFS_PATH_MAX], buf[PROCFS_ARGS_MAX];
	ssize_t n;
	size_t a0;

	procfs__path(path, sizeof(path), "%s/cmdline", dir);
	n = procfs__read_file(path, buf, sizeof(buf));
	if (n <= 0) {
		/* kernel threads: sysdig shows the comm */
		thread_info__set_str(&ti->exe, ti->comm, strlen(ti->comm));
		return;
	}
	a0 = strnlen(buf, (size_t)n);
	thread_info__set_str(&ti->exe, buf, a0);
	if (a0 + 1 < (size_t)n) {
		size_t alen = (size_t)n - a0 - 1;

		/* every arg NUL-terminated, as the exec event's args */
		if (buf[n - 1] != '\0')
			buf[n++] = '\0', alen++;
		thread_info__set_buf(&ti->args, &ti->args_len, buf + a0 + 1, alen);
	}
}

static void procfs__read_links(const char *dir, struct thread_info *ti)
{
	char path[PROCFS_PATH_MAX], buf[PROCFS_PATH_MAX];
	ssize_t n;

	procfs__path(path, sizeof(path), "%s/exe", dir);
	n = procfs__readlink(path, buf, sizeof(buf));
	if (n > 0)
		thread_info__set_str(&ti->exepath, buf, (size_t)n);
	procfs__path(path, sizeof(path), "%s/cwd", dir);
	n = procfs__readlink(path, buf, sizeof(buf));
	if (n > 0)
		thread_info__set_cwd(ti, buf);
	procfs__path(path, sizeof(path), "%s/loginuid", dir);
	n = procfs__read_file(path, buf, sizeof(buf));
	if (n > 0)
		ti->loginuid = (uint32_t)strtoul(buf, NULL, 10);
}

static int copy_shared(struct thread_info *ti, const struct thread_info *m)
{
	if ((m->exe && thread_info__set_str(&ti->exe, m->exe, strlen(m->exe)) < 0) ||
	    (m->exepath && thread_info__set_str(&ti->exepath, m->exepath, strlen(m->exepath)) < 0) ||
	    (m->cwd && thread_info__set_str(&ti->cwd, m->cwd, strlen(m->cwd)) < 0) ||
	    (m->args && thread_info__set_buf(&ti->args, &ti->args_len, m->args, m->args_len) < 0) ||
	    (m->cgroups &&
	     thread_info__set_buf(&ti->cgroups, &ti->cgroups_len, m->cgroups, m->cgroups_len) < 0))
		return -ENOMEM;
	ti->loginuid = m->loginuid;
	return 0;
}

int procfs__read_thread(struct procfs *p, int64_t pid, int64_t tid, struct thread_info *ti,
			const struct thread_info *main)
{
	char dir[PROCFS_PATH_MAX];
	int64_t tgid = -1;
	int err;

	if (pid == tid)
		procfs__path(dir, sizeof(dir), "%s/proc/%" PRId64, p->root, pid);
	else
		procfs__path(dir, sizeof(dir), "%s/proc/%" PRId64 "/task/%" PRId64, p->root, pid, tid);
	err = procfs__read_status(dir, ti, &tgid);
	if (err < 0)
		return err;
	err = procfs__read_stat(p, dir, ti);
	if (err < 0)
		return err;
	ti->tid = tid;
	ti->pid = tgid;
	procfs__read_comm(dir, ti);
	if (main && main != ti)
		return copy_shared(ti, main);
	procfs__read_cmdline(dir, ti);
	procfs__read_links(dir, ti);
	procfs__read_cgroups(p, dir, ti);
	return 0;
}

int procfs__tgid(struct procfs *p, int64_t tid, int64_t *pid)
{
	char path[PROCFS_PATH_MAX], buf[4096];
	const char *v;
	ssize_t n;

	procfs__path(path, sizeof(path), "%s/proc/%" PRId64 "/status", p->root, tid);
	n = procfs__read_file(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	if (!(v = status__field(buf, "Tgid:")))
		return -EINVAL;
	*pid = strtoll(v, NULL, 10);
	return 0;
}

bool procfs__task_alive(struct procfs *p, int64_t pid, int64_t tid)
{
	char path[PROCFS_PATH_MAX];

	if (pid >= 0)
		procfs__path(path, sizeof(path), "%s/proc/%" PRId64 "/task/%" PRId64, p->root, pid, tid);
	else
		procfs__path(path, sizeof(path), "%s/proc/%" PRId64, p->root, tid);
	return access(path, F_OK) == 0 || errno != ENOENT;
}

int procfs__list(struct procfs *p, int64_t pid, int (*fn)(void *ctx, int64_t id), void *ctx)
{
	char path[PROCFS_PATH_MAX];
	struct dirent *de;
	DIR *d;
	int err = 0;

	if (pid < 0)
		procfs__path(path, sizeof(path), "%s/proc", p->root);
	else
		procfs__path(path, sizeof(path), "%s/proc/%" PRId64 "/task", p->root, pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		long long id;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		id = strtoll(de->d_name, &end, 10);
		if (*end)
			continue;
		err = fn(ctx, id);
		if (err < 0)
			break;
	}
	closedir(d);
	return err;
}
