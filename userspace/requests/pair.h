/* The pairing: a connection's reads and writes, as the syscalls moved them,
 * become requests and their responses (struct req_record), on either side of
 * the connection. One pairer per agent, fed in event order from the main
 * thread; its memory is bounded (pair_opts) and, once warm, no call
 * allocates. */
#ifndef REQUESTS_PAIR_H
#define REQUESTS_PAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "req_record.h"

enum req_dir {
	REQ_DIR_IN = 1,		/* the process received the bytes (read, recv*) */
	REQ_DIR_OUT = 2,	/* it sent them (write, send*, sendfile) */
};

/* One socket I/O syscall that moved bytes (a result > 0). */
struct req_io {
	uint64_t ts;		/* ns since the epoch: the syscall's exit */
	uint64_t ts_enter;	/* its entry; ts when not known (exit-only capture) */
	int64_t pid, tid;	/* host ids */
	int64_t fd;
	uint8_t dir;		/* enum req_dir */
	uint8_t family;		/* PPM_AF_INET / PPM_AF_INET6 */
	uint8_t l4proto;	/* IPPROTO_TCP / IPPROTO_UDP */
	/* The socket's tuple as the fd table holds it: ACCEPTED (from accept,
	 * we are the server): src is the client, dst us; else src is this end
	 * and dst the peer (connect, or a socket found in /proc). */
	bool accepted;
	uint8_t sip[16], dip[16];
	uint16_t sport, dport;
	/* UDP: the datagram's peer when the syscall names one (recvfrom,
	 * sendto, *msg), else has_peer false (a connected socket's peer is
	 * dst). */
	bool has_peer;
	uint8_t peer_ip[16];
	uint16_t peer_port;
	/* the plaintext of a TLS library call (the driver's TLS probes), not
	 * the socket's own bytes */
	bool tls;
	uint64_t len;		/* bytes moved */
	const uint8_t *data;	/* the first of them, as captured */
	uint32_t data_len;	/* <= len: cut at the snaplen */
	const char *comm;	/* the process name */
	/* TCP, when the event said (request mode's compact socket I/O): the
	 * connection's segments retransmitted so far and its srtt (us) at the
	 * call */
	bool has_tcp;
	uint32_t tcp_retrans, tcp_srtt_us;
	/* The process's container (NULL on the host or unknown): the pairing
	 * keeps a reference while it follows the connection, so a record made
	 * after the process exited still names it. */
	struct container_info *container;
};

/* A quiet TCP client connection (pair__set_quiet) as the kernel can key it:
 * its own end, then its server's (addresses as req_io's, ports host order). */
struct pair_quiet_end {
	uint8_t family;		/* PPM_AF_INET / PPM_AF_INET6 */
	uint8_t lip[16], rip[16];
	uint16_t lport, rport;
};

/* ON: the connection END has gone quiet and stays busy, so its I/O may stay
 * out of the pairing's sight from now on; 0 when the caller took it. !ON: it is
 * no longer followed (closed, idle, table teardown excepted); the return
 * value is ignored. */
typedef int pair_quiet_fn(void *ctx, const struct pair_quiet_end *end, bool on);

/* Profiling: thread TID's clock, the ns it has spent in each enum req_cpu
 * since it was first followed, and the generation of that count (it changes
 * when the count lost a stretch of time). False: the thread is not followed. */
struct pair_cpu_read {
	uint64_t gen;
	uint64_t t[REQ_CPU__KINDS];
};
typedef bool pair_clock_fn(void *ctx, int64_t tid, struct pair_cpu_read *out);

struct pair_opts {
	uint32_t max_conns;	/* connections followed at once; 0: PAIR_MAX_CONNS */
	uint64_t timeout_ns;	/* an unanswered request times out; 0: PAIR_TIMEOUT_NS */
	/* A TCP connection whose server side is followed on this host too is
	 * walked on that side only: its client side gives no records (only
	 * its process and container, for the server's records). For callers
	 * that count each request once anyway (metrics, the map): half the
	 * parsing on loopback. */
	bool server_side_once;
};

#define PAIR_MAX_CONNS 4096
#define PAIR_TIMEOUT_NS (10ull * 1000000000ull)
/* Requests sent on one connection before the first is answered (pipelining,
 * HTTP/2 streams) that are followed one by one: PAIR_PIPELINE in the
 * connection's own queue, then up to PAIR_PIPELINE_MAX in a larger one on the
 * heap, let go when the connection has none in flight at the next expiry
 * sweep (pair_queue.c); more are counted, not reported. Powers of 2. */
#define PAIR_PIPELINE 16
#define PAIR_PIPELINE_MAX 256
/* Slots for threads serving requests (req.parent): 3/4 of them are used at
 * most; past that a thread's server requests are not followed (counted). */
#define PAIR_THREADS 4096

struct pair_counters {
	uint64_t n_requests;	/* records handed out */
	uint64_t n_timeouts;	/* ... of which timed out */
	uint64_t n_aborted;	/* ... of which the connection closed mid-response */
	uint64_t n_conns;	/* connections followed now */
	uint64_t n_conns_full;	/* connections not followed: table full */
	uint64_t n_pipeline_full; /* requests not followed: PAIR_PIPELINE_MAX
				   * reached, or no memory for a larger queue */
	uint64_t n_unmatched;	/* responses with no request (started mid-way) */
	uint64_t n_pushes;	/* Redis messages that answer no request: pub/sub
				 * messages, RESP3 pushes, a confirmation past the
				 * channels asked */
	uint64_t n_unparsed;	/* messages on a known protocol its parser refused */
	uint64_t n_uncaptured;	/* pipelined messages past the snaplen: not counted;
				 * chunked bodies whose walk a size line there ended */
	uint64_t n_open_at_end;	/* requests still unanswered at pair__flush */
	uint64_t n_client_quiet; /* client sides not walked (server_side_once) */
	uint64_t n_quiet_handed;  /* ... of which handed to pair__set_quiet's callback */
	uint64_t n_quiet_refused; /* ... it refused (kept here) */
	/* client requests begun by a thread serving more than one request
	 * (or one past what is kept per thread): no parent given */
	uint64_t n_parent_unknown;
	uint64_t n_threads_full;  /* server requests whose thread was not followed: table full */
	uint64_t n_threads;	  /* threads serving requests followed now */
	/* profiling: server requests with no CPU breakdown, by why: their
	 * thread was not followed, another thread wrote the response, or the
	 * thread's count lost time (a dropped batch) */
	uint64_t n_cpu_unfollowed, n_cpu_handed, n_cpu_gap;
	/* TLS (req_io.tls): socket bytes of a connection whose plaintext
	 * comes (its alerts, tickets, close_notify): not paired; and the
	 * ciphertext's unanswered exchange when the plaintext began */
	uint64_t n_tls_cipher, n_tls_unanswered;
	/* HTTP/2: directions whose header table could not be followed (seen
	 * mid-way, a block past the snaplen or breaking HPACK), requests whose
	 * headers were unknown for it, reads whose frames could not be walked
	 * (a frame header past the snaplen), connections not followed for
	 * want of memory */
	uint64_t n_h2_lost, n_h2_unknown, n_h2_desync, n_h2_nomem;
};

typedef void pair_emit_fn(void *ctx, const struct req_record *r);

/* NULL and errno ENOMEM. EMIT gets each record; the record and what it
 * points to are valid only during the call. */
struct pairer *pair__new(const struct pair_opts *o, pair_emit_fn *emit, void *ctx);
void pair__free(struct pairer *p);

/* With server_side_once: a quiet connection's end goes to FN after
 * PAIR_QUIET_AFTER of its I/Os (a short connection is not worth the caller's
 * work), and comes back at its end. While FN took it, it is kept as long as
 * its server's side is followed, as its I/O may stop coming. NULL: none. */
void pair__set_quiet(struct pairer *p, pair_quiet_fn *fn, void *ctx);

#define PAIR_QUIET_AFTER 8

/* TCP socket IO (its pid, fd, comm, container and tuple; no bytes) has
 * connected, or begun to (EINPROGRESS): it is followed as a client from now,
 * before its first write. The connect's exit is stamped before that write
 * begins, so its server's records, which exit-only times may put before the
 * client's write, name the client (its first bytes may still say it serves).
 * 0, or -EINVAL when IO is not such a socket. */
int pair__connect(struct pairer *p, const struct req_io *io);
/* One syscall's bytes. 0, or -EINVAL for an io that is not socket I/O. */
int pair__io(struct pairer *p, const struct req_io *io);

/* The socket IO names (its pid, fd, l4proto and tuple; the rest unused) is
 * closed or its fd replaced: its requests end, those whose response had not
 * ended (or begun) reported aborted. A TCP socket is one connection under
 * every fd number it has in the process (dup2 onto 0 and 1), so closing one
 * of them ends it. */
void pair__close(struct pairer *p, const struct req_io *io);

/* Process PID is gone (its last thread exited): the kernel closed its
 * sockets without close events (a PostgreSQL backend after TERMINATE), so
 * its connections end as pair__close ends one. Costs a scan of the table
 * only when a connection of a process hashing like PID is followed. */
void pair__exit(struct pairer *p, int64_t pid);
/* Off the per-event path (about once a second): requests unanswered for the
 * timeout are reported timed out; answered ones whose connection stayed idle
 * that long are reported done. NOW: the latest event time. */
void pair__expire(struct pairer *p, uint64_t now);

/* At the end: every answered request is reported; unanswered ones are
 * counted in n_open_at_end. */
void pair__flush(struct pairer *p);

void pair__counters(const struct pairer *p, struct pair_counters *c);

/* Profiling: FN reads a thread's clock (struct pair_cpu_read) as the events
 * come, so that a server request's record has its CPU breakdown (has_cpu):
 * read at the request's first read and at each write of its response, by
 * the thread that read it. NULL: none. */
void pair__set_clock(struct pairer *p, pair_clock_fn *fn, void *ctx);

/* Profiling: FN hears at each request's beginning (before the clock is read)
 * which thread began it and on which side: SERVER or a client's. NULL: none. */
typedef void pair_role_fn(void *ctx, int64_t tid, bool server);
void pair__set_role(struct pairer *p, pair_role_fn *fn, void *ctx);

#endif
