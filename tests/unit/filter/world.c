/* The hand-built world of the tests: see world.h. */
#include <stdio.h>
#include <stdlib.h>

#include "world.h"

struct thread_table world_threads;
struct fd_table curl_fds;
struct thread_info t_init, t_bash, t_curl, t_curl2;
struct fd_info fd_passwd, fd_tcp, fd_tcp6, fd_unix, fd_dir, fd_pipe, fd_udp;
struct frame_builder tevt_fb;

static char curl_args[] = "-6\0http://www.google.com";
static char curl_cgroups[] = "cpu=/user.slice\0memory=/user.slice/a";

static void ipv4(uint8_t *dst, uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	dst[0] = a, dst[1] = b, dst[2] = c, dst[3] = d;
}

void world__init(void)
{
	static const uint8_t v6c[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x04 };
	static const uint8_t v6s[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x03 };

	memset(&world_threads, 0, sizeof(world_threads));
	memset(&curl_fds, 0, sizeof(curl_fds));

	t_init = (struct thread_info){ .tid = 1, .pid = 1, .ptid = 0, .vtid = 1, .vpid = 1,
		.comm = "systemd", .exe = "/sbin/init", .cwd = "/", .loginuid = UINT32_MAX,
		.start_ts = 1000 };
	t_bash = (struct thread_info){ .tid = 100, .pid = 100, .ptid = 1, .vtid = 100,
		.vpid = 100, .sid = 100, .comm = "bash", .exe = "-bash", .cwd = "/home/alice/",
		.uid = 1000, .gid = 100, .loginuid = 1000, .tty = 34817 };
	t_curl = (struct thread_info){ .tid = 200, .pid = 200, .ptid = 100, .vtid = 200,
		.vpid = 200, .sid = 100, .comm = "curl", .exe = "curl",
		.exepath = "/usr/bin/curl", .args = curl_args, .args_len = sizeof(curl_args),
		.cwd = "/home/alice/", .cgroups = curl_cgroups,
		.cgroups_len = sizeof(curl_cgroups), .uid = 1000, .gid = 100,
		.loginuid = 1000, .tty = 34817, .start_ts = WORLD_TS - 5000000000ULL,
		.pgid = 200, .fds = &curl_fds };
	t_curl2 = t_curl;
	t_curl2.tid = 201;
	t_curl2.vtid = -1;
	/* all on the host: their syscalls' pids are host ids */
	t_init.pidns = t_bash.pidns = t_curl.pidns = t_curl2.pidns = PIDNS_INIT;
	stub__add_thread(&world_threads, &t_init);
	stub__add_thread(&world_threads, &t_bash);
	stub__add_thread(&world_threads, &t_curl);
	stub__add_thread(&world_threads, &t_curl2);

	fd_passwd = (struct fd_info){ .fd = 3, .type = FDT_FILE, .name = "/etc/passwd",
		.open_flags = PPM_FILE_FLAGS_O_RDONLY, .dev = 0x100803 };
	fd_tcp = (struct fd_info){ .fd = 4, .type = FDT_IPV4_SOCK,
		.name = "10.0.0.2:5555->10.0.0.1:80", .family = PPM_AF_INET, .l4proto = 6,
		.sport = 5555, .dport = 80 };
	ipv4(fd_tcp.sip, 10, 0, 0, 2);
	ipv4(fd_tcp.dip, 10, 0, 0, 1);
	fd_tcp6 = (struct fd_info){ .fd = 5, .type = FDT_IPV6_SOCK,
		.name = "2001:db8::4:54405->2001:db8::3:1234", .family = PPM_AF_INET6,
		.l4proto = 6, .sport = 54405, .dport = 1234, .is_server = true };
	memcpy(fd_tcp6.sip, v6c, 16);
	memcpy(fd_tcp6.dip, v6s, 16);
	fd_unix = (struct fd_info){ .fd = 6, .type = FDT_UNIX_SOCK, .name = "/run/sock",
		.family = PPM_AF_UNIX };
	fd_dir = (struct fd_info){ .fd = 7, .type = FDT_DIRECTORY, .name = "/tmp" };
	fd_pipe = (struct fd_info){ .fd = 8, .type = FDT_PIPE, .name = "" };
	fd_udp = (struct fd_info){ .fd = 9, .type = FDT_IPV4_SOCK,
		.name = "192.168.1.5:40000->8.8.8.8:53", .family = PPM_AF_INET, .l4proto = 17,
		.sport = 40000, .dport = 53 };
	ipv4(fd_udp.sip, 192, 168, 1, 5);
	ipv4(fd_udp.dip, 8, 8, 8, 8);
	stub__add_fd(&curl_fds, &fd_passwd);
	stub__add_fd(&curl_fds, &fd_tcp);
	stub__add_fd(&curl_fds, &fd_tcp6);
	stub__add_fd(&curl_fds, &fd_unix);
	stub__add_fd(&curl_fds, &fd_dir);
	stub__add_fd(&curl_fds, &fd_pipe);
	stub__add_fd(&curl_fds, &fd_udp);
}

struct frame_builder *tevt__begin(struct tevt *t, uint16_t type, int64_t tid, uint64_t ts)
{
	fb__begin(&tevt_fb, t->buf, sizeof(t->buf), type, (uint64_t)tid, ts);
	return &tevt_fb;
}

static uint64_t next_num = 1;

struct ievt *tevt__end(struct tevt *t, int64_t fdnum)
{
	struct ievt *ev = &t->ev;
	const struct ppm_evt_hdr *h = (const void *)t->buf;
	uint32_t len = fb__end(&tevt_fb, 1);
	int64_t v;

	if (!len || schema__validate(t->buf, len)) {
		fprintf(stderr, "tevt__end: bad frame of type %u\n", h->type);
		abort();
	}
	memset(ev, 0, sizeof(*ev));
	ev->num = next_num++;
	ev->cpu = 1;
	ev->hdr = h;
	ev->type = h->type;
	ev->ts = h->ts;
	ev->first_ts = WORLD_FIRST_TS;
	ev->tid = (int64_t)h->tid;
	ev->info = schema__event(h->type);
	schema__params(t->buf, &ev->params);
	ev->name = ev->info->name;
	ev->native_nr = -1;
	if (ev->type == PPME_GENERIC_E || ev->type == PPME_GENERIC_X) {
		ev->native_nr = (int16_t)schema__generic_nr(&ev->params, NULL);
		if (ev->native_nr >= 0)
			ev->name = schema_syscall_names[ev->native_nr];
	}
	ev->thread = thread_table__find(&world_threads, ev->tid);
	ev->fdnum = fdnum;
	for (uint32_t i = 0; i < ev->params.n; i++) {
		const struct ppm_param_info *pi = &ev->info->params[i];

		if (pi->type == PT_FD && strcmp(pi->name, "fd") == 0 && PPME_IS_ENTER(ev->type) &&
		    schema__param_int(PT_FD, ev->params.val[i], ev->params.len[i], &v) == 0)
			ev->fdnum = v;
	}
	if (PPME_IS_EXIT(ev->type) && ev->params.n &&
	    (ev->info->params[0].type == PT_ERRNO || ev->info->params[0].type == PT_FD ||
	     ev->info->params[0].type == PT_PID) &&
	    schema__param_int(ev->info->params[0].type, ev->params.val[0], ev->params.len[0],
			      &v) == 0) {
		ev->has_res = true;
		ev->res = v;
		if (ev->info->params[0].type == PT_FD && v >= 0 && fdnum < 0)
			ev->fdnum = v;
	}
	if (ev->thread && ev->thread->fds && ev->fdnum >= 0)
		ev->fd = fd_table__find(ev->thread->fds, ev->fdnum);
	return ev;
}
