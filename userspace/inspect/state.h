/* Thread and fd state kept by the inspector (sinsp-like). Filled from /proc at start
 * and kept current by events. Read by field extraction, filters and formatters. */
#ifndef INSPECT_STATE_H
#define INSPECT_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum fd_type {
	FDT_UNKNOWN = 0,
	FDT_FILE,
	FDT_DIRECTORY,
	FDT_IPV4_SOCK,
	FDT_IPV6_SOCK,
	FDT_UNIX_SOCK,
	FDT_PIPE,
	FDT_EVENT,
	FDT_SIGNALFD,
	FDT_EVENTPOLL,
	FDT_INOTIFY,
	FDT_TIMERFD,
	FDT_NETLINK,
	FDT_BPF,
	FDT_MEMFD,
	FDT_OTHER_SOCK,
};

/* sysdig's single-letter fd.type characters and names, by enum fd_type. */
extern const char fd_type_chars[];
extern const char *const fd_type_names[];

struct fd_info {
	int64_t fd;
	enum fd_type type;
	char *name;		/* absolute path, or "1.2.3.4:5->6.7.8.9:10", or unix path */
	/* (NULL when the fd has no name yet, e.g. a socket before connect/bind,
	 * where sysdig shows an empty name; a unix socket from an event is named
	 * with sysdig's tuple text "0->ffff94dc817b9400 /path", one from /proc
	 * with its path; an fd of unknown type from /proc with its link text.) */
	uint32_t open_flags;	/* PPM_FILE_FLAGS_* wire bits (O_CLOEXEC matters on exec) */
	uint64_t ino;
	uint32_t dev;
	/* Sockets: addresses in network byte order, ports in host order.
	 * (sip, sport) is the tuple's source and (dip, dport) its destination, as
	 * the driver writes tuples: client -> server for connect and accept alike.
	 * A bound or listening socket has its own address in (dip, dport). A
	 * connected socket found in /proc is local -> remote. IPv4 on an IPv6
	 * socket (v4-mapped on both ends) is shown as IPv4 (family PPM_AF_INET). */
	uint8_t family;		/* PPM_AF_* */
	uint8_t l4proto;	/* IPPROTO_TCP / IPPROTO_UDP / 0 */
	uint8_t sip[16], dip[16];
	uint16_t sport, dport;
	bool is_server;		/* from accept (we are the server side) */
	/* An IP socket socket() made (or a sendto guessed) that no connect,
	 * accept, bind to a port or message has given a role yet: sysdig shows
	 * it with no protocol letter ("<4>"), and its first message picks the
	 * role as sysdig guesses it (sock_ends.c). */
	bool no_role;
	/* A socket bound to a port that a message named (a UDP server): named
	 * client -> server by each message. sysdig 0.29.3 takes bytes of the
	 * bound port for the peer's address there. */
	bool msg_server;
	/* An IP socket's ends as its messages' tuples gave them, by the
	 * kernel's word rather than by sysdig's rules above: this end (mlip,
	 * mlport) and the last message's peer (mrip, mrport); a port 0 where no
	 * message said (a sendto's enter before the kernel bound the socket
	 * says no port of its own). Request mode names a datagram's ends by
	 * them. */
	uint8_t mlip[16], mrip[16];
	uint16_t mlport, mrport;
	int64_t pidfd_pid;	/* a pidfd's process (host pid), 0 when unknown */
	/* The ts of the event that made the entry (0: found in /proc). A close
	 * whose enter came before it cannot have closed this file. */
	uint64_t born;
	/* The thread whose close of this fd has begun (its enter seen) and not
	 * returned yet, 0: none. The number is free from the start of a close:
	 * another thread's call may get it before that close returns. */
	int64_t closer;
};

/* One process's fd table: shared by its threads (CLONE_FILES), refcounted. */
struct fd_table;

struct fd_info *fd_table__find(struct fd_table *t, int64_t fd);
size_t fd_table__count(const struct fd_table *t);
/* Calls FN on every fd of T (in no set order); a non-zero return stops the walk
 * and is returned. FN must not add or remove fds. */
int fd_table__for_each(struct fd_table *t, int (*fn)(struct fd_info *fi, void *ctx),
		       void *ctx);

struct container_info;	/* container.h */

/* The pid namespace a thread's own numbers are in: vtid and vpid, and every pid
 * its syscalls pass or get back (kill's pid, a clone's result, setsid's...).
 * Only what the kernel said counts: /proc's NSpid line (one number: the
 * initial namespace) and the clone exits (sysdig's CHILD_IN_PIDNS flag, ids
 * that differ from vtid/vpid); a capture file's process list says only the
 * ids. */
enum pidns {
	PIDNS_UNKNOWN = 0,
	PIDNS_INIT,	/* the initial one: its numbers are host ids */
	PIDNS_CHILD,	/* another one: its numbers name no host thread */
};

struct thread_info {
	int64_t tid, pid, ptid;
	int64_t vtid, vpid;
	uint8_t pidns;		/* enum pidns */
	int64_t pgid, sid;
	char comm[16];
	char *exe;		/* argv[0] as sysdig reports it (proc.exe) */
	char *exepath;		/* /proc/PID/exe target (proc.exepath) */
	char *args;		/* arguments after argv[0], NUL-separated */
	/* (each argument NUL-terminated, "a\0b\0"; args_len counts every byte) */
	size_t args_len;
	char *cwd;		/* always ends with '/' */
	/* (NULL, like exe, exepath, args and cgroups, when not known) */
	char *cgroups;		/* "cpu=/a\0memory=/b\0..." NUL-separated */
	/* (cgroup v2 "0::/path" from /proc becomes one entry per controller of
	 * the unified hierarchy, as the driver's events list them) */
	size_t cgroups_len;
	/* The container its cgroups name (a reference), NULL on the host. */
	struct container_info *container;
	uint32_t uid, gid;
	uint32_t loginuid;	/* UINT32_MAX when unset */
	uint32_t tty;
	uint64_t start_ts;	/* ns since epoch (clone time or /proc start time) */
	uint64_t last_ts;	/* ns of the last event of this thread */
	uint64_t latency;	/* of its last syscall; 0 once a new one starts */
	bool exited;
	struct fd_table *fds;
	/* The last enter event of this thread, copied so its exit can be paired with
	 * it (fd and size of a read, path of an open). lastenter_len 0: none. */
	uint8_t lastenter[512];
	uint32_t lastenter_len;
};

struct thread_table;

struct thread_info *thread_table__find(struct thread_table *t, int64_t tid);
/* The thread numbered VTID in the pid namespace of PARENT (not the initial
 * one) that PARENT's process made: a thread of that process, or a child
 * process made without CLONE_NEWPID. NULL when the table knows none. One hash
 * lookup per kind: a number PARENT's syscall names is one of these or unknown. */
struct thread_info *thread_table__find_vchild(struct thread_table *t,
					      const struct thread_info *parent, int64_t vtid);
size_t thread_table__count(const struct thread_table *t);

/* The main thread of T's process (T itself when it is the main thread, NULL when
 * unknown). */
struct thread_info *thread_table__main(struct thread_table *t, const struct thread_info *ti);

/* How many threads of MAIN's process the table knows (MAIN itself included);
 * 0 when MAIN is NULL. */
uint32_t thread_table__nthreads(struct thread_table *t, const struct thread_info *main);

/* Whether TI was made for an event of a thread nothing had told of (no
 * /proc, as when reading a file): its process unknown, which the thread's
 * clone event, if one comes, tells. */
static inline bool thread__placeholder(const struct thread_info *ti)
{
	return ti->pid < 0;
}

/* TI's pid namespace (enum pidns). */
static inline enum pidns thread__pidns(const struct thread_info *ti)
{
	return (enum pidns)ti->pidns;
}

/* User and group names from HOST_ROOT/etc/passwd and /etc/group; NULL if unknown.
 * (HOST_ROOT of the last inspector__new; loaded on first use; not thread-safe.) */
const char *users__name(uint32_t uid);
const char *groups__name(uint32_t gid);
/* A user's home directory and login shell from the same passwd line; NULL if
 * the user is unknown. */
const char *users__home(uint32_t uid);
const char *users__shell(uint32_t uid);

#endif
