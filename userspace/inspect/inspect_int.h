/* Internals of the inspector shared by its source files. */
#ifndef INSPECT_INT_H
#define INSPECT_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "evp.h"
#include "hmap.h"
#include "inspect.h"
#include "state.h"

/* Linux open(2) flag values on x86_64 as /proc/PID/fdinfo prints them (glibc
 * defines O_LARGEFILE as 0 on 64-bit, so the kernel's numbers are spelled out). */
#define LINUX_O_ACCMODE 03
#define LINUX_O_WRONLY 01
#define LINUX_O_RDWR 02
#define LINUX_O_CREAT 0100
#define LINUX_O_EXCL 0200
#define LINUX_O_TRUNC 01000
#define LINUX_O_APPEND 02000
#define LINUX_O_NONBLOCK 04000
#define LINUX_O_DSYNC 010000
#define LINUX_O_DIRECT 040000
#define LINUX_O_LARGEFILE 0100000
#define LINUX_O_DIRECTORY 0200000
#define LINUX_O_SYNC 04010000
#define LINUX_O_CLOEXEC 02000000
#define LINUX_O_TMPFILE 020200000

#define PPM_AT_FDCWD (-100)

/* ---- fd tables (fd_table.c) ---- */

struct fd_entry {
	struct hnode node;
	struct fd_info fi;
};

/* Entries set aside: their number was taken by a new file while a close of
 * theirs ran (fd_info.closer); that close's exit takes them back. */
#define FD_ASIDE_MAX 8

struct fd_table {
	struct hmap map;
	uint32_t refs;
	uint32_t naside;
	struct fd_info *aside[FD_ASIDE_MAX];
};

struct fd_table *fd_table__new(void);
struct fd_table *fd_table__ref(struct fd_table *t);
void fd_table__unref(struct fd_table *t);
/* A private deep copy (fork without CLONE_FILES). */
struct fd_table *fd_table__clone(const struct fd_table *t);
/* The entry of FD, created empty (or emptied when it already exists), for a
 * call of thread TID (0: none). An entry another thread is closing
 * (fd_info.closer) is not emptied but set aside for that close's exit. */
struct fd_info *fd_table__add(struct fd_table *t, int64_t fd, int64_t tid);
/* Unlinks FD's entry and returns it (free with fd_info__free), or NULL. */
struct fd_info *fd_table__detach(struct fd_table *t, int64_t fd);
/* The entry of FD that thread CLOSER's close left aside, taken back (free
 * with fd_info__free), or NULL. */
struct fd_info *fd_table__take_aside(struct fd_table *t, int64_t fd, int64_t closer);
/* Frees the fds marked O_CLOEXEC (exec). Returns how many. */
size_t fd_table__close_cloexec(struct fd_table *t);
/* close_range: frees the fds in [FIRST, LAST], or with CLOEXEC only marks them
 * O_CLOEXEC. Returns how many. */
size_t fd_table__close_range(struct fd_table *t, int64_t first, int64_t last, bool cloexec);
/* Copies SRC's contents (name duplicated) into DST, keeping DST's fd. */
int fd_info__copy(struct fd_info *dst, const struct fd_info *src);
int fd_info__set_name(struct fd_info *fi, const char *name, size_t len);
void fd_info__free(struct fd_info *fi);
uint32_t fd_flags__from_linux(uint32_t oflags);

/* ---- thread table (thread_table.c) ---- */

struct thread_entry {
	struct hnode node;
	/* In the table's byvid index when its key is not 0 (thread_vid.c). */
	struct hnode vnode;
	struct thread_info ti;
	/* Main threads: threads of the process known to the table, itself
	 * included (decides whether exit/exec must look for siblings). */
	uint32_t nthreads;
	struct thread_entry *pending_next;
};

struct thread_table {
	struct hmap map;
	/* Threads of pid namespaces other than the initial one, by the process
	 * that made them and their number there (thread_vid.c). */
	struct hmap byvid;
	/* Removed entries, freed at the start of the next event so that pointers
	 * handed out with the current event stay valid. */
	struct thread_entry *pending;
};

struct thread_table *thread_table__new(void);
void thread_table__free(struct thread_table *t);
/* A new entry for TID (which must be absent) with defaults: pid/ptid -1,
 * loginuid UINT32_MAX, no fd table. NULL on ENOMEM. */
struct thread_info *thread_table__add(struct thread_table *t, int64_t tid);
/* Unlinks TI and keeps it until thread_table__flush. Keeps the main thread's
 * count of threads. */
void thread_table__remove(struct thread_table *t, struct thread_info *ti);
void thread_table__flush(struct thread_table *t);
/* Registers TI (already added) as one more thread of its process. */
void thread_table__count_sibling(struct thread_table *t, struct thread_info *ti);
/* Frees the heap strings and fd table reference of TI. */
void thread_info__release(struct thread_info *ti);
int thread_info__set_str(char **dst, const char *s, size_t len);
int thread_info__set_buf(char **dst, size_t *dlen, const void *s, size_t len);
/* Sets the cwd from a path, adding the trailing '/'. */
int thread_info__set_cwd(struct thread_info *ti, const char *path);
/* A pid as thread TI names it (0 itself, else in its pid namespace) as the host
 * pid the table uses; -1 when that cannot be known (another namespace, and not
 * TI's own process or one it made). */
int64_t thread__host_pid(struct thread_table *t, const struct thread_info *ti, int64_t v);

/* thread_vid.c: the byvid index. TI (in a pid namespace other than the initial
 * one) made by a clone with THREAD (CLONE_THREAD) or not, is found by its
 * process (a thread) or its parent process (a child) and its vtid. A thread
 * already there with the same key (an exit we missed) is replaced. */
void thread_table__index_vid(struct thread_table *t, struct thread_info *ti, bool thread);
void thread_table__unindex_vid(struct thread_table *t, struct thread_info *ti);

/* ---- paths (path.c) ---- */

/* Resolves PATH against the absolute directory BASE (ignored when PATH is
 * absolute) into OUT: absolute, "." and ".." and duplicate slashes removed, no
 * trailing slash but for "/". Returns the length or -ENAMETOOLONG. */
int path__resolve(const char *base, const char *path, char *out, size_t n);

/* ---- sockets (sockets.c, sock_ends.c) ---- */

/* Fills FI from a SOCKTUPLE param (type, family, addresses, ports, name):
 * an accepted socket. */
int sock__from_tuple(struct fd_info *fi, const uint8_t *v, uint16_t len);
/* The ends of an IPv4/IPv6 SOCKTUPLE (family, type, addresses, ports; not the
 * name) into FI; both ends v4-mapped or zero are IPv4, as sysdig takes them. */
int sock__decode_tuple(struct fd_info *fi, const uint8_t *v, uint16_t len);
/* An IPv4/IPv6 SOCKADDR into FI's (dip, dport), family and type. */
int sock__decode_addr(struct fd_info *fi, const uint8_t *v, uint16_t len);
/* A unix SOCKTUPLE: FI's type and its name, sysdig's tuple text. */
int sock__tuple_unix(struct fd_info *fi, const uint8_t *v, uint16_t len);
/* A bound SOCKADDR param: a port makes FI the server of that address (dip,
 * dport); the name is the address as the param prints ("::1:0", a unix path). */
int sock__from_addr(struct fd_info *fi, const uint8_t *v, uint16_t len);
/* "ip:port" of an IPv4 or IPv6 address (network byte order) into OUT. */
int sock__format_addr(uint8_t family, const uint8_t *ip, uint16_t port, char *out, size_t n);
/* Sets FI's name to "sip:sport->dip:dport" from its fields. */
int sock__set_tuple_name(struct fd_info *fi);
bool ip__is_zero(const uint8_t ip[16]);

/* sock_ends.c: a socket's ends through connect and messages, by sysdig's rules.
 * A connect's enter (its SOCKADDR): the peer it asks for. */
void sock__connect_enter(struct fd_info *fi, const uint8_t *v, uint16_t len);
/* A connect that worked (or is in progress): its SOCKTUPLE. */
int sock__connect_exit(struct fd_info *fi, const uint8_t *v, uint16_t len);
/* A connect that failed: FI (a copy the event shows) named by its SOCKTUPLE. */
int sock__name_from_tuple(struct fd_info *fi, const uint8_t *v, uint16_t len);
/* The SOCKTUPLE of a message sent (INBOUND false: local -> remote) or
 * received (remote -> local) on FI, a socket of table FDS. */
int sock__from_msg(struct fd_info *fi, const uint8_t *v, uint16_t len, bool inbound,
		   struct fd_table *fds);

/* ---- /proc (procfs.c, procfs_fd.c, procfs_net.c) ---- */

struct procfs;

struct procfs *procfs__new(const char *root);
void procfs__free(struct procfs *p);
/* Reads the thread TID of process PID into TI (entry fields only; no fd
 * table). MAIN, when given, supplies what all threads of a process share
 * (exe, args, cwd, ...). Returns 0 or -errno when status/stat are unreadable. */
int procfs__read_thread(struct procfs *p, int64_t pid, int64_t tid, struct thread_info *ti,
			const struct thread_info *main);
/* The Tgid of TID, from /proc/TID/status. */
int procfs__tgid(struct procfs *p, int64_t tid, int64_t *pid);
/* Adds the fds of process PID to T. Counts unreadable fds in *N_BAD. */
int procfs__read_fds(struct procfs *p, int64_t pid, struct fd_table *t, uint64_t *n_bad);
/* Fills a socket fd from the socket tables of PID's network namespace.
 * Returns 0, or -ENOENT when the inode is in no table. */
int procfs__lookup_socket(struct procfs *p, int64_t pid, uint64_t ino, struct fd_info *fi);
/* Whether /proc/PID/task/TID (or /proc/TID when PID is unknown) exists. */
bool procfs__task_alive(struct procfs *p, int64_t pid, int64_t tid);
/* Calls FN for every numeric entry of /proc (processes) or of
 * /proc/PID/task (threads). */
int procfs__list(struct procfs *p, int64_t pid, int (*fn)(void *ctx, int64_t id), void *ctx);
const char *procfs__root(const struct procfs *p);

/* procfs_net.c */
struct sock_tables;
struct sock_tables *sock_tables__load(const char *root, int64_t pid);
void sock_tables__free(struct sock_tables *st);
int sock_tables__lookup(const struct sock_tables *st, uint64_t ino, struct fd_info *fi);

/* ---- users.c ---- */
void users__set_root(const char *root);
/* Everything the lists hold, freed when the inspector that set them up is:
 * the process-wide lists live as long as it does. */
void users__release(void);

/* ---- the inspector (inspector.c, parse_*.c) ---- */

struct inspector {
	struct inspector_opts opts;
	char *root;
	uint32_t max_threads;
	struct thread_table *threads;
	struct container_table *containers;
	struct procfs *proc;
	struct inspector_counters c;
	uint64_t num;
	uint64_t first_ts;	/* of the first event, any type (evt.reltime) */
	/* A procexit's thread leaves the table at the next event, so the procexit
	 * itself still sees it counted in its process (proc.nthreads), as in sysdig. */
	bool exit_pending;
	int64_t exit_tid;
	/* fds removed by the current event, freed at the next one */
	struct fd_info *pending_fd[4];
	uint32_t npending_fd;
	/* What a failed open or connect showed, for that event only (not in any
	 * table), as sysdig shows the path of a failed open. */
	struct fd_info scratch_fd;
	bool scratch_used;	/* cleared at the next event only when set */
	int64_t cur_tid;
	uint64_t cur_ts;
	uint64_t last_purge_ts;
	uint64_t last_full_purge_ts;
	/* Forks in a pid namespace whose child's own event has not come yet: the
	 * fds the child got, as the parent held them then (the parent may close
	 * them before the child's event: a forking server closes the accepted
	 * socket at once). Found by the parent's host tid and the child's id in
	 * the namespace; the oldest is dropped when full. */
	struct ns_fork {
		int64_t parent, vtid;
		struct fd_table *fds;
	} ns_forks[16];
	uint32_t ns_fork_next;
};

/* Finds TID, reading /proc/TID when unknown (at most once: an entry is made
 * even when /proc is unreadable). NULL only when the table is full. */
struct thread_info *inspector__thread(struct inspector *in, int64_t tid);
/* A new thread entry, making room (purge) when the table is full. */
struct thread_info *inspector__new_thread(struct inspector *in, int64_t tid);
void inspector__purge(struct inspector *in, uint64_t older_than_ts);
/* Sets TI's container from its cgroups. LIKE, when not NULL and its cgroups are
 * the same, lends its container without a parse (a clone, a thread of a
 * process). */
void inspector__thread_container(struct inspector *in, struct thread_info *ti,
				 const struct thread_info *like);
void inspector__defer_fd(struct inspector *in, struct fd_info *fi);

/* parse_fdopen.c, below parse_fd.c, parse_fdnew.c and parse_msg.c: */
/* A new (or reset) entry FD of TYPE in the event's thread, made the event's fd;
 * NULL when FD < 0 or there is no table. */
struct fd_info *parse__new_fd(struct ievt *ev, int64_t fd, enum fd_type type);
void parse__close_enter(struct ievt *ev, const struct evt_params *x);
/* An opened path: NAME made absolute against DIRFD or the cwd (FD < 0: the
 * event alone shows it). */
void parse__open_path(struct inspector *in, struct ievt *ev, int64_t fd, int64_t dirfd,
		      const char *name, uint32_t flags, uint32_t dev);
/* FD_NAME: names FD where the table has no name for it (a new file entry
 * when it has none). */
void parse__fd_name(struct ievt *ev, const struct evt_params *x);
/* parse_thread.c: clone/fork/exec/exit/chdir. */
bool parse__is_clone_exit(uint16_t type);
bool parse__is_execve_exit(uint16_t type);
void parse__clone_exit(struct inspector *in, struct ievt *ev, const struct evt_params *x);
void parse__execve_exit(struct inspector *in, struct ievt *ev, const struct evt_params *x,
			const struct evt_params *e);
void parse__procexit(struct inspector *in, struct ievt *ev);
/* Removes the thread of the last procexit (called before the next event). */
void parse__procexit_reap(struct inspector *in);
void parse__chdir_exit(struct inspector *in, struct ievt *ev, const struct evt_params *x,
		       const struct evt_params *e);
/* parse_cred.c: setuid/setgid/setresuid/setresgid, setsid, setpgid. */
void parse__cred_exit(struct inspector *in, struct ievt *ev, const struct evt_params *x,
		      const struct evt_params *e);
/* parse_fd.c: connect's enter (the peer it asks for); events that create,
 * change or destroy fds. */
void parse__connect_enter(struct ievt *ev, const struct evt_params *x);
void parse__fd_exit(struct inspector *in, struct ievt *ev, const struct evt_params *x,
		    const struct evt_params *e);
/* parse_msg.c: sendto's enter makes an fd we do not know a UDP socket; the
 * exits of sendto/sendmsg/recvfrom/recvmsg name a socket from their tuple
 * (false for other events). */
void parse__sendto_enter(struct ievt *ev, const struct evt_params *x);
/* the tuple of a compact event (SOCK_RECV_X, SOCK_SEND_X): a recvmmsg's or
 * sendmmsg's message that names an address */
#define SOCK_X_TUPLE 6
bool parse__msg_exit(struct inspector *in, struct ievt *ev, const struct evt_params *x,
		     const struct evt_params *e);
/* parse_fdnew.c: fds of the calls sysdig 0.29.3 did not parse (memfd_create,
 * pidfd_open/getfd, io_uring_setup, userfaultfd, open_tree, close_range).
 * Returns false for other events. */
bool parse__fdnew_exit(struct inspector *in, struct ievt *ev, const struct evt_params *x);

#endif
