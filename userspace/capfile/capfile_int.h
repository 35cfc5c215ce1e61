/* Block layout shared by the capture-file reader and writer. */
#ifndef CAPFILE_INT_H
#define CAPFILE_INT_H

#define CAPFILE_BLOCK_SHB	0x0A0D0D0Au	/* section header */
#define CAPFILE_BLOCK_EV	0x204u	/* u16 cpu + old header without nparams */
#define CAPFILE_BLOCK_EV_V2	0x216u	/* u16 cpu + frame */
#define CAPFILE_BLOCK_EVF_V2	0x217u	/* u16 cpu + u32 flags + frame */

#define CAPFILE_MAGIC		0x1A2B3C4Du
#define CAPFILE_MAJOR		1
#define CAPFILE_MINOR		2
#define CAPFILE_SHB_LEN		28	/* header, magic, versions, section length, trailer */

/* Block header (type, total length) and the trailing copy of the length. */
#define CAPFILE_BLOCK_HDR	8
#define CAPFILE_BLOCK_OVERHEAD	12
/* The old frame header: ts, tid, len, type (no nparams). */
#define CAPFILE_OLD_HDR_LEN	22

#endif
