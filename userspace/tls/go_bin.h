/* A Go executable's crypto/tls, read from its ELF file for request mode's Go
 * TLS probes: where (*Conn).Read and (*Conn).Write begin and return, and the
 * itabs that say a tls.Conn's net.Conn is a *net.TCPConn or *net.UnixConn.
 * Go moves goroutine stacks, so a return is probed at each of the function's
 * RET instructions (found by Debian's libcapstone), not by a uretprobe. */
#ifndef TLS_GO_BIN_H
#define TLS_GO_BIN_H

#include <stdint.h>

/* RET instructions per function probed at most: Go 1.19.8's Read has 7 and
 * Write 8; a function with more is not probed (-E2BIG). */
#define GO_BIN_RETS_MAX 32

struct go_bin_fn {
	uint64_t vaddr;		/* the symbol's address (before any PIE load bias) */
	uint64_t off;		/* its file offset, where a uprobe goes */
	uint32_t rets[GO_BIN_RETS_MAX];	/* its RETs, bytes from its start */
	uint32_t nrets;
};

struct go_bin {
	char version[32];	/* "go1.19.8", from .go.buildinfo */
	unsigned major, minor;
	struct go_bin_fn read, write;	/* crypto/tls.(*Conn).Read, Write */
	/* go.itab.*net.TCPConn,net.Conn and *net.UnixConn's (go:itab. from
	 * Go 1.20): 0 when the program never makes one */
	uint64_t itab_tcp, itab_unix;
};

/* Go's register ABI (arguments in RAX, RBX, RCX, ..., the goroutine in R14)
 * came with 1.17: older Go is not probed. */
#define GO_BIN_MIN_MINOR 17

/* Reads the ELF file open at FD. 0 and *OUT filled: a Go >= 1.17 x86-64
 * executable whose symbols name both functions. -ENOENT: not a Go program,
 * or one without crypto/tls's Read and Write (nothing to probe); -ENOTSUP: a
 * Go program that cannot be probed (stripped of its symbols, older than
 * 1.17, not x86-64); -E2BIG: too many RETs; -EIO: a file it cannot make
 * out (a cut section, undecodable code); -ENOMEM. */
int go_bin__read(int fd, struct go_bin *out);

#endif
