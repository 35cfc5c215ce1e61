/* A small hand-built world for the field, filter and format tests: a process
 * tree (systemd 1 > bash 100 > curl 200, with a second curl thread 201), curl's
 * fds, and helpers that turn hand-built frames into struct ievt. */
#ifndef FILTER_TEST_WORLD_H
#define FILTER_TEST_WORLD_H

#include "frame_builder.h"
#include "inspect.h"
#include "state_stubs.h"

extern struct thread_table world_threads;
extern struct fd_table curl_fds;
extern struct thread_info t_init, t_bash, t_curl, t_curl2;
/* (curl is in bash's session 100; curl's pgid is 200; /etc/passwd is on device
 * 0x100803: major 8, minor 259) */
/* curl's fds: 3 /etc/passwd, 4 tcp client 10.0.0.2:5555->10.0.0.1:80,
 * 5 tcp6 server 2001:db8::4:54405->2001:db8::3:1234, 6 unix, 7 dir /tmp,
 * 8 pipe, 9 udp client 192.168.1.5:40000->8.8.8.8:53 */
extern struct fd_info fd_passwd, fd_tcp, fd_tcp6, fd_unix, fd_dir, fd_pipe, fd_udp;

/* 2023-11-14 22:13:20 UTC, the base of test timestamps */
#define WORLD_TS 1700000000000000000ULL
/* the first event of the world's capture (evt.reltime counts from it) */
#define WORLD_FIRST_TS (WORLD_TS - 2500000000ULL)

void world__init(void);

/* An event: its frame bytes and the parsed view of them. */
struct tevt {
	uint8_t buf[8192];
	struct ievt ev;
};

/* Starts a frame of TYPE by thread TID in T (params then go through t->fb). */
struct frame_builder *tevt__begin(struct tevt *t, uint16_t type, int64_t tid, uint64_t ts);

/* Finishes the frame and fills t->ev like the parser would: thread by tid from
 * the world (NULL if unknown), fd from an "fd" param or from FDNUM (use -1 for
 * none), res from the first param of exit events. Aborts on a bad frame. */
struct ievt *tevt__end(struct tevt *t, int64_t fdnum);

extern struct frame_builder tevt_fb;

#endif
