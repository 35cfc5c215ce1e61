/* The pairing's own structures: connections, their requests in flight, and
 * the table that finds them by (pid, fd) and by tuple. */
#ifndef REQUESTS_PAIR_INT_H
#define REQUESTS_PAIR_INT_H

#include <stddef.h>

#include "http.h"
#include "pair.h"

/* Bytes of a message header kept across reads when a read ends inside it
 * (a pipelined Redis command cut by the read's size). */
#define PAIR_CARRY 256
/* A message's remaining length that no header told: it runs to the next
 * change of direction. */
#define PAIR_LEN_OPEN UINT64_MAX

/* What finds a connection: a TCP socket by its process and tuple, so the
 * same socket used through two fd numbers (an inetd-style server reads fd 0
 * and writes fd 1, both dups of the accepted socket) is one connection;
 * anything else (UDP, a socket with no tuple yet) by its process and fd. */
struct pair_key {
	int64_t pid, fd;	/* fd -1 when by tuple */
	uint8_t sip[16], dip[16];
	uint16_t sport, dport;
	/* by tuple: accepted (the tuple is client -> server either way, so a
	 * process connected to itself, as nginx proxying to its own server,
	 * holds both ends under one tuple) */
	bool accepted;
};

void pair_key__of(struct pair_key *k, const struct req_io *io);

enum pair_cpu_state {
	PAIR_CPU_NONE = 0,	/* no clock, or not a server request */
	PAIR_CPU_UNFOLLOWED,	/* its thread is not followed */
	PAIR_CPU_BEGUN,		/* cpu0 read */
	PAIR_CPU_READ,		/* cpu1 read too */
	PAIR_CPU_HANDED,	/* another thread wrote its response */
	PAIR_CPU_GAP,		/* the clock lost time in between */
};

/* One request in flight. */
struct pair_req {
	uint64_t ts_start, ts_first_resp, ts_last_resp;
	uint64_t req_bytes, resp_bytes;
	uint64_t resp_need;	/* bytes of its response still to come, or PAIR_LEN_OPEN */
	int32_t status;
	uint32_t dns_id;	/* DNS transaction id, Kafka correlation id */
	uint32_t kafka_api;	/* Kafka: its api key and version (kafka.h) */
	uint8_t proto;
	bool has_resp;		/* response bytes seen */
	bool resp_done;		/* its response's known length was reached */
	bool error;
	bool head_resp;		/* HEAD: the response has no body whatever it says */
	uint32_t sub_left;	/* Redis (un)subscribe: confirmations still to come */
	uint8_t pg;		/* PostgreSQL: what its messages make it (pair_pg.c) */
	uint32_t seq;		/* the connection's request number */
	uint32_t stream;	/* HTTP/2: its stream, else 0 */
	int32_t h2_status;	/* HTTP/2: its response's :status, -1 none yet (a
				 * gRPC record's status is gRPC's) */
	uint64_t id;		/* unique while the agent runs (req.id) */
	uint64_t parent;	/* a client request: the server request its thread served, 0 */
	int64_t tid;		/* a server request: the thread that read it */
	bool held;		/* ... counted in pairer.threads until its response ends */
	/* its connection's TCP state (req_io.has_tcp) at its first syscall
	 * and at its response's last so far */
	bool has_tcp;
	uint32_t retrans0, retrans1, srtt1;
	/* profiling (pair__set_clock): the reading thread's clock at the
	 * request's start and at its response's last write so far */
	uint8_t cpu_state;	/* enum pair_cpu_state */
	struct pair_cpu_read cpu0, cpu1;
	/* UDP: the datagram's peer (each request may come from another) */
	uint8_t peer_ip[16];
	uint16_t peer_port;
	/* the strings' lengths, so a record copies them without a scan */
	uint16_t method_len, target_len, code_len, message_len;
	char method[REQ_METHOD_MAX];
	char target[REQ_TARGET_MAX];
	char code[REQ_CODE_MAX];
	char message[REQ_MESSAGE_MAX];
};

/* One record's times and sizes, kept for the other side's record of the
 * same request, by KEY (TCP: the request's number; UDP: the client's port
 * and the DNS id) in slot KEY % the connection's times_cap: a slot is not
 * reused before the other side's record of its request is made while fewer
 * requests are in flight than its queue holds (PAIR_TIMES, or the queue's
 * capacity once it grew past that; past PAIR_PIPELINE_MAX a record stands
 * alone). KEY 0: none. */
#define PAIR_TIMES 64
struct pair_times {
	uint32_t key;
	uint32_t req_bytes, resp_bytes;	/* the request's identity, with KEY */
	uint64_t start, end;
};

struct pair_conn {
	/* table bookkeeping */
	struct pair_conn *next_key, *next_tuple;	/* hash chains */
	struct pair_conn *next_free;
	bool in_tuple;		/* on a tuple chain */
	bool used;
	struct pair_key key;
	int64_t pid;
	uint64_t id;
	/* the local end */
	int64_t tid;
	char comm[16];
	struct container_info *ct;	/* a reference, or NULL */
	/* The other end seen on this host (its record found this one): kept
	 * for this side's records when that end's connection is gone first. */
	bool peer_known;
	int64_t peer_pid, peer_tid;
	char peer_comm[16];
	struct container_info *peer_ct;	/* a reference, or NULL */
	/* Times of the last records of this side (OWN) and of the other
	 * side on this host (OTHER), by request number, so a record nests with
	 * the other side's record of the same request whichever was made first
	 * (pair_emit.c). TIMES_CAP slots each: OWN0 and OTHER0, or one heap
	 * array for both while the queue is larger than PAIR_TIMES (a batch of
	 * 200 pipelined requests has 200 records made on one side before the
	 * other's first; pair_queue.c). */
	struct pair_times *own, *other;
	uint16_t times_cap;
	struct pair_times own0[PAIR_TIMES], other0[PAIR_TIMES];
	/* TCP: the other side's connection on this host, last found by tuple,
	 * valid while it is used under id PEER_CONN_ID (pair_emit.c) */
	struct pair_conn *peer_conn;
	uint64_t peer_conn_id;
	/* server_side_once: the server's side of this client connection is
	 * followed, so this one is not walked */
	bool quiet;
	bool quiet_handed;	/* pair__set_quiet's callback took it */
	uint16_t quiet_io;	/* its I/Os since it went quiet, up to PAIR_QUIET_AFTER */
	/* what it is */
	uint8_t side;		/* enum req_side, 0 until known */
	bool side_connect;	/* CLIENT from its connect(), its first bytes unseen */
	uint8_t proto;		/* enum req_proto once detected */
	bool tls;		/* its bytes are a TLS session's plaintext (req_io.tls) */
	bool detected;		/* proto settled by a parser */
	uint8_t family, l4proto;
	/* client and server addresses, once side is known */
	uint8_t cip[16], sip[16];
	uint16_t cport, sport;
	/* the tuple as the fd table gave it (see req_io) */
	bool accepted;
	uint8_t tsip[16], tdip[16];
	uint16_t tsport, tdport;
	/* TCP: its state at the last syscall that said (req_io.has_tcp) */
	bool has_tcp;
	uint32_t tcp_retrans, tcp_srtt;
	/* the stream */
	uint8_t last_dir;	/* enum req_dir of the last bytes, 0: none */
	uint64_t last_ts;	/* the last bytes' time */
	uint64_t req_need;	/* bytes of the current request still to come, PAIR_LEN_OPEN, or 0 */
	struct http_chunks req_chunks;	/* the current request's chunked body, after
					 * its head's req_need (state 0: none) */
	bool req_body_lost;	/* that body's walk was lost: its bytes run to a
				 * read that starts a request (body_lost__ends) */
	struct http_chunks resp_chunks;	/* the current response's chunked body,
					 * after its head's resp_need */
	uint32_t seq;		/* requests begun on it */
	uint64_t resp_need;	/* the same for the current response message */
	uint32_t resp_seq;	/* the request (seq) an id gave the response message in
				 * progress (Dubbo, RocketMQ), 0: the first unanswered */
	bool resp_more;		/* ... that message does not end its request's
				 * response (PostgreSQL's: pair_pg.c) */
	bool resp_other;	/* ... that message is a request the other way, or
				 * a Redis push (pair.c, redis__push) */
	uint32_t redis_subs;	/* Redis: the subscriptions its last pub/sub
				 * confirmation left (RESP2 messages come then) */
	bool redis_monitor;	/* Redis: MONITOR asked (and no RESET since) */
	uint8_t pg_last;	/* PostgreSQL: the last request message's type */
	struct pair_stmts *stmts;	/* PostgreSQL, MySQL: its prepared
					 * statements' text, or NULL (pair_stmt.c) */
	uint8_t redis_reply;	/* Redis: CLIENT REPLY OFF or SKIP in force
				 * (enum req_reply; 0: replies) */
	bool resp_lost;		/* a response message's end was not found: the burst
				 * answers every request in flight */
	uint8_t resp_scan;	/* an HTTP interim response whose head a read cut:
				 * http__head_end's state while its end is sought, 0: none */
	bool h2_upgrade;	/* the response in progress is a 101 to h2c: HTTP/2
				 * from its head's end */
	/* MySQL: the greeting's bytes, for the first request's response; the
	 * login (HANDSHAKE) is in flight until its OK or ERR; a LOAD DATA
	 * LOCAL's statement, once the server asked for the file, until the OK
	 * or ERR after it */
	uint64_t greet_bytes;
	bool my_auth;
	bool my_infile;
	/* ... a STMT_PREPARE's answer walked (pair_my.c): the definitions
	 * and EOFs still to come; a command ended at its length in this burst */
	uint32_t my_defs;
	uint8_t my_eofs;
	bool my_walked;
	uint8_t carry_dir;	/* enum req_dir of the carried bytes */
	uint16_t carry_len;
	uint64_t carry_ts;	/* when the carried bytes came */
	uint8_t carry[PAIR_CARRY];
	/* HTTP/2: its frames' and header tables' state (pair_h2.c), or NULL */
	struct pair_h2 *h2;
	/* TLS: the server name its ClientHello asked for (SNI), "" none */
	uint16_t sni_len;
	char sni[REQ_TARGET_MAX];
	/* requests in flight, oldest first: q[(head + i) & (cap - 1)] (pair_q__at);
	 * Q is Q0 until more than PAIR_PIPELINE are in flight at once, then a
	 * larger array on the heap (pair_queue.c) */
	struct pair_req *q;
	uint16_t head, n, cap;
	struct pair_req q0[PAIR_PIPELINE];
};

/* The Ith request in flight on C, oldest first (I < C->n). */
static inline struct pair_req *pair_q__at(struct pair_conn *c, uint32_t i)
{
	return &c->q[(c->head + i) & (c->cap - 1)];
}

/* The oldest request leaves C's queue. */
static inline void pair_q__pop(struct pair_conn *c)
{
	c->head = (uint16_t)((c->head + 1) & (c->cap - 1));
	c->n--;
}

/* pair_queue.c: C's queue is its own, empty. */
void pair_q__init(struct pair_conn *c);
/* pair_queue.c: room for one more request on C: the queue grown if full,
 * up to PAIR_PIPELINE_MAX; -ENOSPC past that, -ENOMEM. Pointers into the
 * queue are not kept across it. */
int pair_q__room(struct pair_conn *c);
/* pair_queue.c: C's queue back in the connection when it is empty (the
 * expiry sweep), or freed with C (REMOVING: whatever it holds). */
void pair_q__shrink(struct pair_conn *c, bool removing);
/* pair_queue.c: Q leaves C's queue: the oldest, or (UDP, answered out of
 * order) one in the middle. */
void pair_q__drop(struct pair_conn *c, struct pair_req *q);

#define PAIR_PID_SLOTS 1024
/* Server request ids kept per thread (pair.h's PAIR_THREADS). */
#define PAIR_THREAD_IDS 4

/* A thread's server requests in flight (pair_thread.c); N 0: a free slot. */
struct pair_thread {
	int64_t tid;
	uint32_t n;
	uint64_t ids[PAIR_THREAD_IDS];	/* the first ones, 0 where free */
};

struct pairer {
	struct pair_opts o;
	pair_emit_fn *emit;
	void *ctx;
	uint64_t seed;
	uint64_t next_id;
	uint64_t next_req_id;
	struct pair_thread *threads;	/* PAIR_THREADS slots */
	uint32_t n_threads;
	uint32_t nbuckets;		/* a power of two */
	struct pair_conn **by_key, **by_tuple;
	struct pair_conn *free;		/* recycled connections */
	uint32_t nalloc;		/* connections allocated so far */
	struct pair_conn **all;		/* every allocated one, for expiry */
	struct pair_counters c;
	/* connections followed per process, by PAIR_PID_SLOTS hash slot: a
	 * process exit with none in its slot skips the scan (pair__exit) */
	uint32_t pid_conns[PAIR_PID_SLOTS];
	pair_quiet_fn *quiet;		/* pair__set_quiet */
	void *quiet_ctx;
	pair_clock_fn *clock;		/* pair__set_clock */
	void *clock_ctx;
	pair_role_fn *role;		/* pair__set_role */
	void *role_ctx;
	uint8_t *scratch;		/* carry + one read's captured bytes */
	size_t scratch_cap;
};

/* pair_cpu.c: a server request's CPU breakdown (pair__set_clock): at its
 * start, at each write of its response by thread TID, into its record */
void pair_cpu__begin(struct pairer *p, struct pair_conn *c, struct pair_req *q);
void pair_cpu__write(struct pairer *p, struct pair_req *q, int64_t tid);
void pair_cpu__record(struct pairer *p, const struct pair_req *q, struct req_record *r);

/* pair_conn.c */
/* PID's slot in pairer.pid_conns. */
uint32_t pair_pid__slot(const struct pairer *p, int64_t pid);
struct pair_conn *pair_conn__find(struct pairer *p, const struct pair_key *k);
/* A connection for K, fresh; NULL when the table is full (counted). */
struct pair_conn *pair_conn__add(struct pairer *p, const struct pair_key *k);
void pair_conn__remove(struct pairer *p, struct pair_conn *c);
/* Takes C off its tuple chain, found by its client/server addresses: call it
 * before they change. */
void pair_conn__unlink_tuple(struct pairer *p, struct pair_conn *c);
/* Puts C on its tuple chain (its client/server addresses are set). */
void pair_conn__index_tuple(struct pairer *p, struct pair_conn *c);
/* The connection on SIDE with that client/server tuple, other than SELF. */
struct pair_conn *pair_conn__by_tuple(struct pairer *p, const uint8_t *cip, uint16_t cport,
				      const uint8_t *sip, uint16_t sport, uint8_t l4proto,
				      uint8_t side, const struct pair_conn *self);

/* The other side's connection of TCP connection C (its side known) on this
 * host, or NULL: found by tuple once while it is there, then kept (valid
 * while used under the same id: a recycled connection has a new one). */
struct pair_conn *pair_conn__peer(struct pairer *p, struct pair_conn *c);
/* Client connection C's end as pair__set_quiet's callback takes it. */
void pair_conn__quiet_end(const struct pair_conn *c, struct pair_quiet_end *e);

/* pair_thread.c: server requests in flight per thread. Hold: ID, read by
 * TID, is in flight (false when the table is full: counted, not held);
 * release: its response ended or it went out; parent: the one request TID
 * serves, else 0 (none, or several: counted). */
bool pair_thread__hold(struct pairer *p, int64_t tid, uint64_t id);
void pair_thread__release(struct pairer *p, int64_t tid, uint64_t id);
uint64_t pair_thread__parent(struct pairer *p, int64_t tid);

/* Q's response ended or Q leaves the queue: its thread no longer serves it. */
static inline void pair_req__release(struct pairer *p, struct pair_req *q)
{
	if (q->held) {
		q->held = false;
		pair_thread__release(p, q->tid, q->id);
	}
}

/* A new request in flight on C, or NULL when PAIR_PIPELINE are (counted).
 * TID: the thread that read it (a server's: it serves it until its response
 * ends) or wrote it (a client's: made for the request its thread serves).
 * H: what its parser found, or NULL. */
struct pair_req *pair_req__begin(struct pairer *p, struct pair_conn *c, uint8_t proto,
				 uint64_t ts, const struct req_head *h, int64_t tid);
/* PostgreSQL (pair_pg.c). Whether a request message of TYPE joins Q, the
 * connection's newest request (or NULL), rather than beginning one; Q's
 * flags follow it. */
bool pair_pg__joins(struct pair_req *q, uint8_t type);
/* Whether a request message of TYPE after one of LAST begins a statement's
 * group (not a Bind after a Parse, a Sync, COPY's data ...): past
 * PAIR_PIPELINE_MAX, only those are counted. */
bool pair_pg__starts(uint8_t last, uint8_t type);
/* A request message of TYPE, H, on C: a Parse's statement kept by name; a
 * Bind that begins Q, with no text of its own, given its statement's. */
void pair_pg__statement(struct pair_conn *c, struct pair_req *q, const struct req_head *h,
			uint8_t type);
/* Prepared statements (pair_stmt.c), by NAME (req_head.stmt, 0: none):
 * TEXT kept as NAME's; Q's target set to NAME's text (false: not known);
 * NAME let go (MySQL's COM_STMT_CLOSE); all of C's let go (its end). */
void pair_stmt__keep(struct pair_conn *c, uint64_t name, const char *text);
bool pair_stmt__name(struct pair_conn *c, struct pair_req *q, uint64_t name);
void pair_stmt__forget(struct pair_conn *c, uint64_t name);
void pair_stmt__free(struct pair_conn *c);
/* The statement prepared last (MySQL's id 0xffffffff): TEXT kept as it;
 * Q's target set to its text (when kept). */
void pair_stmt__keep_last(struct pair_conn *c, const char *text);
void pair_stmt__name_last(struct pair_conn *c, struct pair_req *q);
/* MySQL (pair_my.c). Whether command H ends at its length (the next
 * command may follow before any answer). */
bool pair_my__ends_at_length(const struct req_head *h);
/* Command H begun as Q on C: its statement's text, kept or given. */
void pair_my__request(struct pair_conn *c, struct pair_req *q, const struct req_head *h);
/* H, a packet of Q's answer (B, AVAIL of its bytes captured), before Q's
 * has_resp is set by its first: true when it is a STMT_PREPARE's OK whose
 * definitions are walked (pair_my__next) from the packet after it. */
bool pair_my__answer(struct pair_conn *c, struct pair_req *q, const struct req_head *h,
		     const uint8_t *b, size_t avail);
/* Whether a prepare's answer is being walked on C. */
bool pair_my__walking(const struct pair_conn *c);
enum pair_my_pkt {
	MY_PKT,		/* a packet of it: *NEED bytes */
	MY_DONE,	/* it ended before this packet, the next command's */
	MY_CUT,		/* the packet's header is not all in B */
	MY_LOST,	/* past the captured bytes: the walk ends, the burst rules */
};
/* The packet at B (AVAIL captured bytes) of the prepare's answer walked. */
enum pair_my_pkt pair_my__next(struct pair_conn *c, const uint8_t *b, size_t avail,
			       uint64_t *need);
/* Q begins with a message of TYPE (0: untyped, its method set). */
void pair_pg__begin(struct pair_req *q, uint8_t type);
/* Q is an SSLRequest or GSSENCRequest still waiting for its one byte. */
bool pair_pg__one_byte(const struct pair_req *q);
enum pair_pg_end {
	PG_MORE,	/* Q's response goes on after this message */
	PG_END,		/* this message ends it */
	PG_NOT_MINE,	/* a ReadyForQuery for a later request: Q has all it gets */
};
/* The response message at B (AVAIL >= 1 captured bytes, parsed into H) for
 * Q: where Q's response stands. */
enum pair_pg_end pair_pg__resp(struct pair_req *q, const uint8_t *b, size_t avail,
			       const struct req_head *h);
/* Q failed where the server skips to the Sync: the requests after it up to
 * the first synced one get no response. */
bool pair_pg__failed(const struct pair_req *q);
bool pair_pg__synced(const struct pair_req *q);
/* Bytes of Q's response came at TS, read or written by thread TID: its
 * end, its connection's TCP state and (a server's) its thread's clock move
 * on. */
void pair_req__resp_io(struct pairer *p, const struct pair_conn *c, struct pair_req *q,
		       uint64_t ts, int64_t tid);

/* How an HTTP/2 connection was first seen. */
enum pair_h2_start {
	PAIR_H2_PREFACE,	/* the client's preface */
	PAIR_H2_SERVER_FIRST,	/* the server's SETTINGS first: the preface is
				 * still to come, else its start was missed */
	PAIR_H2_MID,		/* frames mid-way: its header tables unknown */
};

/* pair_h2.c: C is HTTP/2 from now on, SEEN bytes of its preface carried
 * from earlier reads; -ENOMEM (counted). */
int pair_h2__start(struct pairer *p, struct pair_conn *c, enum pair_h2_start how, size_t seen);
/* pair_h2.c: C is HTTP/2 from now on, upgraded from HTTP/1.1 (h2c, RFC 7540
 * 3.2): Q, the request that asked for it, is stream 1, half-closed; the
 * client's preface is still to come. -ENOMEM (counted). */
int pair_h2__upgrade(struct pairer *p, struct pair_conn *c, struct pair_req *q);
/* One read or write of C's, REQ: in the request direction. */
void pair_h2__io(struct pairer *p, struct pair_conn *c, const struct req_io *io, bool req);
void pair_h2__free(struct pair_h2 *h);

/* pair_emit.c: C's stream starts over (another protocol, or plaintext after
 * ciphertext): its answered requests are handed out as they stand, the
 * unanswered dropped, counted in *DROPPED. */
void pair_emit__answered(struct pairer *p, struct pair_conn *c, uint64_t *dropped);

/* pair_emit.c: hands out Q's request of connection C (and removes it from the
 * queue when it is the oldest). */
void pair_emit__req(struct pairer *p, struct pair_conn *c, struct pair_req *q, bool timed_out,
		    bool aborted, uint64_t timeout_end);

#endif
