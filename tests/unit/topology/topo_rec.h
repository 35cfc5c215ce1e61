/* Request records built by hand for the topology tests. */
#ifndef TOPO_REC_H
#define TOPO_REC_H

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "container.h"
#include "ppm_wire.h"
#include "req_record.h"
#include "tcp_record.h"

/* An HTTP request from a client at CLI (IPv4 text) to a server at SRV:PORT,
 * seen on SIDE; ends remote unless the test says otherwise. */
static inline struct req_record rec__http(const char *cli, const char *srv, uint16_t port,
					  uint8_t side, const char *path, int status,
					  uint64_t dur_ns)
{
	struct req_record r;

	memset(&r, 0, sizeof(r));
	r.proto = REQ_PROTO_HTTP;
	r.side = side;
	r.family = PPM_AF_INET;
	r.l4proto = 6;
	r.status = status;
	r.duration = dur_ns;
	r.req_bytes = 100;
	r.resp_bytes = 1000;
	snprintf(r.method, sizeof(r.method), "GET");
	snprintf(r.target, sizeof(r.target), "%s", path);
	inet_pton(AF_INET, cli, r.client.ip);
	inet_pton(AF_INET, srv, r.server.ip);
	r.client.port = 40000;
	r.server.port = port;
	if (side == REQ_SIDE_SERVER)
		r.server.local = true;
	else
		r.client.local = true;
	return r;
}

/* END as a local process COMM, in container CI (NULL: on the host). */
static inline void rec__local(struct req_end *end, const char *comm,
			      const struct container_info *ci)
{
	end->local = true;
	end->pid = end->tid = 100;
	snprintf(end->comm, sizeof(end->comm), "%s", comm);
	end->container = ci;
}

/* The record of a TCP connection from CLI (IPv4 or IPv6 text) to SRV:PORT
 * that ended with OUTCOME, seen on SIDE; the end on SIDE is local (a host
 * process "proc" unless the test says otherwise), the other remote. */
static inline struct tcp_record rec__tcp(const char *cli, const char *srv, uint16_t port,
					 uint8_t side, uint8_t outcome)
{
	bool v6 = strchr(cli, ':') != NULL;
	struct tcp_record r;

	memset(&r, 0, sizeof(r));
	r.family = v6 ? PPM_AF_INET6 : PPM_AF_INET;
	r.side = side;
	r.outcome = outcome;
	r.established = outcome == TCP_OUTCOME_CLOSED || outcome == TCP_OUTCOME_RESET;
	inet_pton(v6 ? AF_INET6 : AF_INET, cli, r.client.ip);
	inet_pton(v6 ? AF_INET6 : AF_INET, srv, r.server.ip);
	r.client.port = 40000;
	r.server.port = port;
	rec__local(side == REQ_SIDE_SERVER ? &r.server : &r.client, "proc", NULL);
	return r;
}

#endif
