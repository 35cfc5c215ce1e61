/* One TCP connection of this host that ended, seen from its own end: what the
 * driver's TCP health programs (driver/tcp.bpf.c) kept for it in the kernel
 * and sent once, at its close (a TCP_CLOSE event). The agent prints these
 * (tcp.* fields, --tcp) and counts them per edge (topology, agent_tcp_*). */
#ifndef TCP_TCP_RECORD_H
#define TCP_TCP_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "req_record.h"	/* struct req_end, enum req_side */

/* How the connection ended; the values are the TCP_CLOSE event's. */
enum tcp_outcome {
	TCP_OUTCOME_CLOSED = 0,	/* was established, ended without a reset */
	TCP_OUTCOME_RESET = 1,	/* was established, ended by a reset sent or received */
	TCP_OUTCOME_REFUSED = 2,	/* connect: the peer answered the SYN with a reset */
	TCP_OUTCOME_TIMEDOUT = 3,	/* connect: no answer to the SYNs */
	TCP_OUTCOME_ABORTED = 4,	/* connect: closed by its own end before an answer */
	TCP_OUTCOME_FAILED = 5,	/* connect: another error (ICMP unreachable, ...) */
	TCP_OUTCOME__COUNT
};

struct tcp_record {
	uint8_t family;		/* PPM_AF_INET or PPM_AF_INET6 */
	uint8_t side;		/* enum req_side: this end connected or accepted */
	uint8_t outcome;	/* enum tcp_outcome */
	bool established;	/* it reached ESTABLISHED (CLOSED or RESET) */
	/* ns since the epoch: the SYN sent (client) or the connection made from
	 * the listener (server), and the close */
	uint64_t ts_start, ts_end;
	uint64_t connect_ns;	/* client: SYN sent to established; else 0 */
	uint64_t duration;	/* ts_end - ts_start */
	/* this end's view: bytes the peer acknowledged, bytes received */
	uint64_t bytes_sent, bytes_received;
	uint32_t retransmits;	/* segments this end retransmitted (SYN, SYN-ACK too) */
	uint32_t srtt_us;	/* smoothed RTT at the close (us); 0 none measured */
	uint32_t resets_sent, resets_received;
	/* client and server, as req_record's ends: the local one has local set,
	 * its process (pid 0 when not known) and container */
	struct req_end client, server;
};

/* "closed", "reset", "refused", "timedout", "aborted", "failed"; "?" else. */
const char *tcp_outcome__name(unsigned outcome);

#endif
