/* One completed request as the pairing reports it: both ends, what the
 * protocol parser learnt from the request and its response, and the timing.
 * The agent prints these (req.* fields), aggregates them into metrics and
 * draws the service map from them. */
#ifndef REQUESTS_REQ_RECORD_H
#define REQUESTS_REQ_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "req_head.h"

struct container_info;	/* container.h */

enum req_side {
	REQ_SIDE_CLIENT = 1,	/* this host's process sent the request */
	REQ_SIDE_SERVER = 2,	/* this host's process received it */
};

/* One end of the connection. Addresses in network byte order (IPv4 in the
 * first 4 bytes), ports in host order. */
/* Where a server request's thread spent its time (profiling): waiting for
 * a CPU, then off CPU by reason. The same order as the driver's enum
 * prof_kind (the agent checks it). */
enum req_cpu {
	REQ_CPU_RUNQ = 0,
	REQ_CPU_FILE,
	REQ_CPU_NET,
	REQ_CPU_LOCK,
	REQ_CPU_POLL,
	REQ_CPU_SLEEP,
	REQ_CPU_OTHER,
	REQ_CPU__KINDS
};

struct req_end {
	uint8_t ip[16];
	uint16_t port;
	bool local;		/* a process on this host is seen at this end */
	int64_t pid, tid;	/* local: its process and thread (host ids), else 0 */
	char comm[16];		/* local: the process name, else "" */
	/* local and in a container: the container (a reference valid only
	 * during the callback that hands the record out), else NULL */
	const struct container_info *container;
};

struct req_record {
	uint8_t proto;		/* enum req_proto; REQ_PROTO_NONE: bytes only */
	uint8_t side;		/* enum req_side: the side this record was seen on */
	uint8_t family;		/* PPM_AF_INET or PPM_AF_INET6 */
	uint8_t l4proto;	/* IPPROTO_TCP or IPPROTO_UDP */
	bool error;		/* the response says the request failed */
	bool timed_out;		/* no (whole) response within the bound */
	bool aborted;		/* the connection closed before the response ended */
	/* Both ends are on this host and the other side's record of the same
	 * request exists too: metrics and the map count it once, from the
	 * server side. */
	bool both_sides;
	/* the bytes were a TLS session's plaintext, read by the driver's TLS
	 * probes (proto is what they carried) */
	bool tls;
	int32_t status;		/* HTTP status, DNS rcode, MySQL error number; -1 none */
	uint32_t dns_id;	/* DNS transaction id */
	uint64_t conn_id;	/* the connection, unique while the agent runs */
	/* the request, unique while the agent runs; a client request made by a
	 * thread while it served one server request: that request's id (its
	 * record comes later, when its response ends), else 0 */
	uint64_t id, parent;
	uint32_t conn_seq;	/* 1 for the connection's first request */
	/* ns since the epoch: the request's first byte (as this side saw it),
	 * the response's first and last byte; 0 when there was none */
	uint64_t ts_start, ts_first_resp, ts_end;
	uint64_t duration;	/* ts_end - ts_start (to the timeout bound if timed out) */
	uint64_t ttfb;		/* ts_first_resp - ts_start; 0 with no response */
	uint64_t req_bytes;	/* bytes of the request (client to server) */
	uint64_t resp_bytes;	/* bytes of the response */
	struct req_end client, server;
	/* Profiling (pair__set_clock): the serving thread's time from the
	 * request's first read to its last write, when HAS_CPU: CPU[] by
	 * enum req_cpu, and ONCPU the rest of DURATION (ns) */
	bool has_cpu;
	uint64_t oncpu;
	uint64_t cpu[REQ_CPU__KINDS];
	/* TCP, when the connection's syscalls carried its state (request
	 * mode's compact socket I/O; not in a replay): the segments this end
	 * retransmitted from the request's first syscall to its response's
	 * last (or, with none, to the record), and its srtt (us) then */
	bool has_tcp;
	uint32_t tcp_retrans, tcp_srtt_us;
	/* last: a record is built per request, and only the strings' used
	 * bytes are written (the rest past each NUL is undefined) */
	char method[REQ_METHOD_MAX];	/* HTTP method, Redis command, DNS type, SQL command */
	char target[REQ_TARGET_MAX];	/* HTTP path without query, DNS name, key, SQL head */
	char code[REQ_CODE_MAX];	/* SQLSTATE, MySQL SQL state, Redis error word */
	char message[REQ_MESSAGE_MAX];	/* gRPC's grpc-message */
	/* TLS: the server name the connection's ClientHello asked for (SNI),
	 * on its handshake's and its plaintext's records; "" none seen */
	char sni[REQ_TARGET_MAX];
};

#endif
