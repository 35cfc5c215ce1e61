/* Block layout shared by the capture-file reader and writer. */
#ifndef CAPFILE_INT_H
#define CAPFILE_INT_H

#define CAPFILE_BLOCK_SHB	0x0A0D0D0Au	/* section header */
#define CAPFILE_BLOCK_EV	0x204u	/* u16 cpu + old header without nparams */
#define CAPFILE_BLOCK_EV_V2	0x216u	/* u16 cpu + frame */
#define CAPFILE_BLOCK_EVF_V2	0x217u	/* u16 cpu + u32 flags + frame */
/* The same for events whose params have u32 lengths (container JSON). */
#define CAPFILE_BLOCK_EV_V2_LARGE	0x221u
#define CAPFILE_BLOCK_EVF_V2_LARGE	0x222u

/* Process list versions: each adds fields (lists.c says which). */
#define CAPFILE_BLOCK_PL_V1	0x202u
#define CAPFILE_BLOCK_PL_V1_INT	0x8000ABCDu
#define CAPFILE_BLOCK_PL_V2	0x207u
#define CAPFILE_BLOCK_PL_V2_INT	0x8013ABCDu
#define CAPFILE_BLOCK_PL_V3	0x209u
#define CAPFILE_BLOCK_PL_V3_INT	0x8014ABCDu
#define CAPFILE_BLOCK_PL_V4	0x210u
#define CAPFILE_BLOCK_PL_V5	0x211u
#define CAPFILE_BLOCK_PL_V6	0x212u
#define CAPFILE_BLOCK_PL_V7	0x213u
#define CAPFILE_BLOCK_PL_V8	0x214u
#define CAPFILE_BLOCK_PL_V9	0x215u	/* entries start with their length */
/* Fd lists: u64 tid, then entries (V2: each starts with its length). */
#define CAPFILE_BLOCK_FDL	0x203u
#define CAPFILE_BLOCK_FDL_INT	0x8001ABCDu
#define CAPFILE_BLOCK_FDL_V2	0x218u

/* Fd types as the files number them (libscap's scap_fd_type). */
enum {
	SFD_FILE = 1, SFD_DIRECTORY, SFD_IPV4_SOCK, SFD_IPV6_SOCK, SFD_IPV4_SERVSOCK,
	SFD_IPV6_SERVSOCK, SFD_FIFO, SFD_UNIX_SOCK, SFD_EVENT, SFD_UNSUPPORTED, SFD_SIGNALFD,
	SFD_EVENTPOLL, SFD_INOTIFY, SFD_TIMERFD, SFD_NETLINK, SFD_FILE_V2, SFD_BPF,
	SFD_USERFAULTFD, SFD_IOURING, SFD_MEMFD,
};

/* Event block flags (scap_dump_flags): parse for state, show to no one. */
#define CAPFILE_DF_STATE_ONLY	1u

/* Their transport protocol numbers (scap_l4_proto). */
#define SL4_TCP	2
#define SL4_UDP	3

#define CAPFILE_MAGIC		0x1A2B3C4Du
#define CAPFILE_MAJOR		1
#define CAPFILE_MINOR		2
#define CAPFILE_SHB_LEN		28	/* header, magic, versions, section length, trailer */

/* Block header (type, total length) and the trailing copy of the length. */
#define CAPFILE_BLOCK_HDR	8
#define CAPFILE_BLOCK_OVERHEAD	12
/* The old frame header: ts, tid, len, type (no nparams). */
#define CAPFILE_OLD_HDR_LEN	22

/* Largest list block imported; longer ones are counted and skipped. */
#define CAPFILE_LIST_MAX	(64u << 20)

#include "capfile.h"
#include "inspect.h"

/* generic.c: FRAME as sysdig 0.29.3 can read it: the agent's own events (codes
 * from PPM_SYSDIG_EVENT_MAX) and bpf's become the generic pair, built in OUT;
 * any other frame is returned as is. */
struct capfile_generic {
	uint8_t buf[PPM_HDR_LEN + 8];
};
const struct ppm_evt_hdr *capfile__as_generic(const struct ppm_evt_hdr *frame,
					      struct capfile_generic *out);

/* lists.c: import the body (between block header and trailer) of a process or
 * fd list block into IN. 0, -ENOMEM, or -EINVAL for a malformed block (entries
 * before the bad one stay imported). */
bool capfile_lists__is_proclist(uint32_t type);
int capfile_lists__proclist(struct inspector *in, uint32_t type, const uint8_t *body,
			    size_t len, struct capfile_import *imp);
int capfile_lists__fdlist(struct inspector *in, uint32_t type, const uint8_t *body,
			  size_t len, struct capfile_import *imp);

/* containers.c: imports the container event FRAME (LEN bytes; LARGE: its param
 * length is a u32) into IN's container table. 0 or -errno (malformed). */
int capfile_containers__import(struct inspector *in, const uint8_t *frame, size_t len,
			       bool large);

/* writer.c: one block of TYPE around BODY (padded, with the trailing length). */
struct capfile_writer;
int capfile_writer__block(struct capfile_writer *w, uint32_t type, const void *body,
			  size_t len);

#endif
