/* TCP health: each TCP connection begun while the driver runs is kept in the
 * kernel (tcp_conns, by socket) from its SYN, or from its making out of a
 * listener, to its socket's destruction, and then sent once as a TCP_CLOSE
 * event: times, outcome, resets, and the kernel's own counts from the
 * tcp_sock (retransmits, srtt, bytes). No frame per packet: the programs run
 * on state changes and resets only. Only the typed tracepoints are used: this
 * kernel's kind has no kprobes. */
#include "frame.bpf.h"
#include <bpf/bpf_endian.h>

/* include/net/tcp_states.h */
enum {
	TCP_ST_ESTABLISHED = 1,
	TCP_ST_SYN_SENT = 2,
	TCP_ST_SYN_RECV = 3,
	TCP_ST_FIN_WAIT1 = 4,
	TCP_ST_FIN_WAIT2 = 5,
	TCP_ST_TIME_WAIT = 6,
	TCP_ST_CLOSE = 7,
	TCP_ST_LAST_ACK = 9,
	TCP_ST_LISTEN = 10,
	TCP_ST_CLOSING = 11,
};
#define TCP_IPPROTO 6
#define TCP_AF_INET 2
#define TCP_AF_INET6 10
/* errno values the outcome is read from (not in vmlinux.h) */
#define TCP_ETIMEDOUT 110
#define TCP_ECONNREFUSED 111

/* The TCP_CLOSE event: header, 14 lengths, the fixed params (the comm's 16
 * bytes last), the tuple last (13 bytes for IPv4, 37 for IPv6). */
#define TCP_NPARAMS 14
#define TCP_FIXED_OFF (PPM_HDR_LEN + TCP_NPARAMS * 2)
#define TCP_FIXED_LEN (8 + 1 + 1 + 8 * 5 + 4 * 4 + 16)
#define TCP_TUPLE_OFF (TCP_FIXED_OFF + TCP_FIXED_LEN)
#define TCP_FRAME_MAX (TCP_TUPLE_OFF + 37)
_Static_assert(PPME_TCP_CLOSE_E_NPARAMS == TCP_NPARAMS, "TCP_CLOSE's params as built here");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TCP_CONNS);	/* 1 unless TCP health is on (loader) */
	__type(key, __u64);			/* the struct sock */
	__type(value, struct tcp_conn);
} tcp_conns SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TCP_LISTENERS);
	__type(key, struct tcp_lkey);
	__type(value, struct tcp_listener);
} tcp_listeners SEC(".maps");

static const struct tcp_conn tcp_zero;

static __always_inline __u64 tcp__now(void)
{
	return bpf_ktime_get_boot_ns();
}

/* Every program here is typed (tp_btf): the socket's fields are plain loads,
 * which the verifier makes fault-safe, with no helper call per field; the
 * tcp_sock's through bpf_skc_to_tcp_sock (the kfunc cast cannot be used from
 * a second object: prof.bpf.c). */
static __always_inline int tcp__wanted(const struct sock *sk)
{
	__u16 fam;

	if (!settings.tcp || !settings.capture || !sk || sk->sk_protocol != TCP_IPPROTO)
		return 0;
	fam = sk->__sk_common.skc_family;
	return fam == TCP_AF_INET || fam == TCP_AF_INET6;
}

static __always_inline void tcp__lkey(const struct sock *sk, struct tcp_lkey *k)
{
	k->netns = sk->__sk_common.skc_net.net->ns.inum;
	k->port = sk->__sk_common.skc_num;
	k->pad = 0;
}

static __always_inline void put16(__u8 *p, __u16 v) { __builtin_memcpy(p, &v, 2); }
static __always_inline void put32(__u8 *p, __u32 v) { __builtin_memcpy(p, &v, 4); }
static __always_inline void put64(__u8 *p, __u64 v) { __builtin_memcpy(p, &v, 8); }

/* ::ffff:a.b.c.d */
static __always_inline bool tcp__v4mapped(const __u8 *ip)
{
	for (int i = 0; i < 10; i++)
		if (ip[i])
			return false;
	return ip[10] == 0xff && ip[11] == 0xff;
}

/* The tuple, client -> server, at P; its length (0: not IPv4 or IPv6). An
 * IPv4 connection on an IPv6 socket is written as IPv4, as sysdig does. */
static __always_inline __u32 tcp__tuple(__u8 *p, const struct sock *sk,
				       const struct tcp_sock *tp, __u8 side)
{
	__u8 lip[16] = {}, rip[16] = {};
	/* inet_sport, not skc_num: the move to CLOSE lets the port go first */
	__u16 lport = bpf_ntohs(tp->inet_conn.icsk_inet.inet_sport);
	__u16 rport = bpf_ntohs(sk->__sk_common.skc_dport);
	__u16 fam = sk->__sk_common.skc_family;
	__u32 alen = 4;
	__u8 *c, *s;
	__u16 cport, sport;

	if (fam == TCP_AF_INET) {
		put32(lip, sk->__sk_common.skc_rcv_saddr);
		put32(rip, sk->__sk_common.skc_daddr);
	} else {
		for (int i = 0; i < 4; i++) {
			put32(lip + 4 * i, sk->__sk_common.skc_v6_rcv_saddr.in6_u.u6_addr32[i]);
			put32(rip + 4 * i, sk->__sk_common.skc_v6_daddr.in6_u.u6_addr32[i]);
		}
		if (tcp__v4mapped(lip) && tcp__v4mapped(rip)) {
			__builtin_memcpy(lip, lip + 12, 4);
			__builtin_memcpy(rip, rip + 12, 4);
		} else {
			alen = 16;
		}
	}
	c = side == 1 ? lip : rip;
	s = side == 1 ? rip : lip;
	cport = side == 1 ? lport : rport;
	sport = side == 1 ? rport : lport;
	p[0] = alen == 4 ? PPM_AF_INET : PPM_AF_INET6;
	if (alen == 4) {
		__builtin_memcpy(p + 1, c, 4);
		put16(p + 5, cport);
		__builtin_memcpy(p + 7, s, 4);
		put16(p + 11, sport);
		return 13;
	}
	__builtin_memcpy(p + 1, c, 16);
	put16(p + 17, cport);
	__builtin_memcpy(p + 19, s, 16);
	put16(p + 35, sport);
	return 37;
}

#define TCP_SOCK_DONE 1		/* enum sock_flags: a FIN came in */

/* The tcp_sock's counts into C, as they are at the move to CLOSE. The kernel
 * counts a SYN and a FIN in the sequence space: this end's SYN (a client's:
 * a server's starts past its SYN-ACK) is taken off what the peer
 * acknowledged, and a FIN acknowledged (one this end sent, all its bytes
 * acknowledged) or received off its side. */
static __always_inline void tcp__snapshot(struct tcp_conn *c, const struct sock *sk,
					  const struct tcp_sock *tp)
{
	__u64 sent = tp->bytes_acked, rcvd = tp->bytes_received;
	unsigned long flags = sk->__sk_common.skc_flags;

	if (c->side == 1 && c->est && sent)
		sent--;
	if (c->fin && sent && tp->snd_una == tp->write_seq)
		sent--;
	if ((flags & (1ul << TCP_SOCK_DONE)) && rcvd)
		rcvd--;
	c->sent = sent;
	c->received = rcvd;
	c->retrans = tp->total_retrans;
	c->srtt_us = tp->srtt_us >> 3;
}

/* How the connection ended, from what its entry kept. */
static __always_inline __u8 tcp__outcome(const struct tcp_conn *c)
{
	if (c->est)
		return c->rst_sent || c->rst_recv ? 1 : 0;
	if (c->side != 1)
		return 5;
	if (c->err == TCP_ECONNREFUSED)
		return 2;
	if (c->err == TCP_ETIMEDOUT)
		return 3;
	return c->err ? 5 : 4;
}

/* Sends connection C of socket SK as one TCP_CLOSE event. */
static __always_inline void tcp__emit(void *ctx, const struct sock *sk, struct tcp_conn *c)
{
	__u8 buf[TCP_FRAME_MAX] = {};
	struct ppm_evt_hdr *h = (struct ppm_evt_hdr *)buf;
	__u64 end = c->closed ? c->closed : tcp__now();
	__u8 *p = &buf[TCP_FIXED_OFF];
	__u16 lens[TCP_NPARAMS] = { 8, 1, 1, 8, 8, 8, 8, 8, 4, 4, 4, 4, 16, 0 };
	__u32 tlen;
	long err;

	if (c->tlen == 13 || c->tlen == 37) {
		__builtin_memcpy(&buf[TCP_TUPLE_OFF], c->tuple, sizeof(c->tuple));
		tlen = c->tlen;
	} else {
		/* not closed yet: read now (a TCP socket, as tcp__wanted found
		 * it at the entry's making) */
		const struct tcp_sock *tp = bpf_skc_to_tcp_sock((void *)sk);

		if (!tp) {
			COUNT(n_tcp_untracked);
			return;
		}
		if (!c->closed)
			tcp__snapshot(c, sk, tp);
		tlen = tcp__tuple(&buf[TCP_TUPLE_OFF], sk, tp, c->side);
	}
	lens[TCP_NPARAMS - 1] = tlen;
	h->ts = settings.boot_time + end;
	h->tid = c->pid;
	h->len = TCP_TUPLE_OFF + tlen;
	h->type = PPME_TCP_CLOSE_E;
	h->nparams = TCP_NPARAMS;
	__builtin_memcpy(&buf[PPM_HDR_LEN], lens, sizeof(lens));
	put64(p, c->pid);
	p[8] = c->side;
	p[9] = tcp__outcome(c);
	put64(p + 10, settings.boot_time + c->start);
	put64(p + 18, c->est && c->side == 1 ? c->est - c->start : 0);
	put64(p + 26, end - c->start);
	put64(p + 34, c->sent);
	put64(p + 42, c->received);
	put32(p + 50, c->retrans);
	put32(p + 54, c->srtt_us);
	put32(p + 58, c->rst_sent);
	put32(p + 62, c->rst_recv);
	__builtin_memcpy(p + 66, c->comm, 16);
	/* one of two constant lengths, which the verifier checks against BUF */
	if (tlen == 13)
		err = frame__output(ctx, buf, TCP_TUPLE_OFF + 13);
	else
		err = frame__output(ctx, buf, TCP_TUPLE_OFF + 37);
	frame__account(err, PPME_TCP_CLOSE_E, 0, 1);
}

/* The kernel skips a typed program's run on a CPU where that program is
 * running already (a softirq's socket work over a process's, counted in the
 * program's recursion_misses), so the state and destroy programs come in
 * pairs on one tracepoint, the second doing what the first did not: each
 * step below is made once however many of the pair run. The one step that
 * cannot tell from the table, a count of a connection the full table left
 * out, is marked per CPU by the first for the second. A mark is wrong only
 * where two runs nest at once on a full table. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} tcp_untracked_mark SEC(".maps");

/* This CPU's mark: the socket the pair's first program last counted
 * untracked, or NULL. */
static __always_inline __u64 *tcp__mark(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&tcp_untracked_mark, &zero);
}

/* A new connection of SK, this end's SIDE, of process PID named COMM (NULL:
 * not known). An entry left there by the socket's earlier connection
 * (connect again after a failure) is sent first; a live one is this
 * connection's, begun by the pair's other program. */
static __always_inline void tcp__begin(void *ctx, const struct sock *sk, __u8 side, __u32 pid,
				       const char *comm, bool second)
{
	__u64 key = (__u64)sk, *mark;
	struct tcp_conn *c;

	if (pid && pid == settings.own_tgid)
		return;
	c = bpf_map_lookup_elem(&tcp_conns, &key);
	if (c && !c->closed)
		return;
	/* the first counted it, the table full then: a slot freed since
	 * must not make it tracked as well */
	if (second && (mark = tcp__mark()) && *mark == key) {
		*mark = 0;
		return;
	}
	if (c)
		tcp__emit(ctx, sk, c);
	/* made zero from a constant, then filled in place: the entry is too
	 * big to build beside the frame on the stack */
	if (bpf_map_update_elem(&tcp_conns, &key, &tcp_zero, BPF_ANY) ||
	    !(c = bpf_map_lookup_elem(&tcp_conns, &key))) {
		if (!second && (mark = tcp__mark()))
			*mark = key;
		COUNT(n_tcp_untracked);
		return;
	}
	c->start = tcp__now();
	c->pid = pid;
	c->side = side;
	if (comm)
		__builtin_memcpy(c->comm, comm, sizeof(c->comm));
}

static __always_inline int tcp__state(void *ctx, const struct sock *sk, int oldstate, int newstate,
				      bool second)
{
	struct tcp_listener me = {}, *lp;
	struct tcp_lkey lk;
	struct tcp_conn *c;
	__u64 key = (__u64)sk;

	/* the moves between (FIN_WAIT1 and 2, CLOSE_WAIT, CLOSING, LAST_ACK):
	 * nothing to keep; whether this end sent its FIN is read from the
	 * state CLOSE is left from */
	if (newstate != TCP_ST_LISTEN && newstate != TCP_ST_SYN_SENT && newstate != TCP_ST_SYN_RECV &&
	    newstate != TCP_ST_ESTABLISHED && newstate != TCP_ST_CLOSE)
		return 0;
	if (!tcp__wanted(sk))
		return 0;
	switch (newstate) {
	case TCP_ST_LISTEN:
		/* listen(): the process is the task making the call */
		me.pid = bpf_get_current_pid_tgid() >> 32;
		bpf_get_current_comm(me.comm, sizeof(me.comm));
		tcp__lkey(sk, &lk);
		bpf_map_update_elem(&tcp_listeners, &lk, &me, BPF_ANY);
		return 0;
	case TCP_ST_SYN_SENT:
		/* connect() (or a Fast Open send): the task making the call */
		bpf_get_current_comm(me.comm, sizeof(me.comm));
		tcp__begin(ctx, sk, 1, bpf_get_current_pid_tgid() >> 32, me.comm, second);
		return 0;
	case TCP_ST_SYN_RECV:
		/* made from a listener, whose port it still has here */
		tcp__lkey(sk, &lk);
		lp = bpf_map_lookup_elem(&tcp_listeners, &lk);
		if (lp)
			tcp__begin(ctx, sk, 2, lp->pid, lp->comm, second);
		else
			tcp__begin(ctx, sk, 2, 0, NULL, second);
		return 0;
	case TCP_ST_ESTABLISHED:
		/* a server's time is not sent (the connect's duration is the
		 * client's): its mark is its start, with no clock read */
		c = bpf_map_lookup_elem(&tcp_conns, &key);
		if (c && !c->est)
			c->est = c->side == 1 ? tcp__now() : c->start;
		return 0;
	case TCP_ST_CLOSE:
		if (oldstate == TCP_ST_LISTEN) {
			tcp__lkey(sk, &lk);
			bpf_map_delete_elem(&tcp_listeners, &lk);
			return 0;
		}
		c = bpf_map_lookup_elem(&tcp_conns, &key);
		if (c && !c->closed) {
			const struct tcp_sock *tp = bpf_skc_to_tcp_sock((void *)sk);

			/* the error is read now: the process may take it (SO_ERROR,
			 * connect's return) before the socket goes */
			c->closed = tcp__now();
			c->err = sk->sk_err;
			/* left from a state past this end's FIN (queued at
			 * FIN_WAIT1 or LAST_ACK; no way back): its sequence
			 * number counts */
			c->fin = oldstate == TCP_ST_FIN_WAIT1 || oldstate == TCP_ST_FIN_WAIT2 ||
				 oldstate == TCP_ST_TIME_WAIT || oldstate == TCP_ST_CLOSING ||
				 oldstate == TCP_ST_LAST_ACK;
			if (tp) {
				c->tlen = tcp__tuple(c->tuple, sk, tp, c->side);
				tcp__snapshot(c, sk, tp);
			}
		}
		return 0;
	}
	return 0;
}

SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(tcp_state, const struct sock *sk, const int oldstate, const int newstate)
{
	return tcp__state(ctx, sk, oldstate, newstate, false);
}

SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(tcp_state2, const struct sock *sk, const int oldstate, const int newstate)
{
	return tcp__state(ctx, sk, oldstate, newstate, true);
}

/* A reset this end sent: a socket's abort sends it after its move to CLOSE,
 * so the entry is still there until the socket is destroyed. */
SEC("tp_btf/tcp_send_reset")
int BPF_PROG(tcp_rst_out, const struct sock *sk, const struct sk_buff *skb)
{
	__u64 key = (__u64)sk;
	struct tcp_conn *c;

	if (!sk)
		return 0;
	c = bpf_map_lookup_elem(&tcp_conns, &key);
	if (c)
		__sync_fetch_and_add(&c->rst_sent, 1);
	return 0;
}

SEC("tp_btf/tcp_receive_reset")
int BPF_PROG(tcp_rst_in, struct sock *sk)
{
	__u64 key = (__u64)sk;
	struct tcp_conn *c = bpf_map_lookup_elem(&tcp_conns, &key);

	if (c)
		__sync_fetch_and_add(&c->rst_recv, 1);
	return 0;
}

/* The socket goes: its connection is sent, with the tcp_sock's counts as
 * they ended, and its entry deleted (by whichever of the pair runs first: a
 * socket goes once, so the other finds none). A run both skipped would
 * leave the entry until the socket's memory holds a socket again, whose
 * connection sends it first (tcp__begin). */
static __always_inline int tcp__destroy(void *ctx, struct sock *sk)
{
	__u64 key = (__u64)sk;
	struct tcp_conn *c = bpf_map_lookup_elem(&tcp_conns, &key);

	if (!c)
		return 0;
	tcp__emit(ctx, sk, c);
	bpf_map_delete_elem(&tcp_conns, &key);
	return 0;
}

SEC("tp_btf/tcp_destroy_sock")
int BPF_PROG(tcp_destroy, struct sock *sk)
{
	return tcp__destroy(ctx, sk);
}

SEC("tp_btf/tcp_destroy_sock")
int BPF_PROG(tcp_destroy2, struct sock *sk)
{
	return tcp__destroy(ctx, sk);
}
