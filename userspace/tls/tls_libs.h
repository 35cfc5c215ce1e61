/* The TLS library files processes map, found in /proc/PID/maps by name:
 * OpenSSL's libssl.so.N and GnuTLS's libgnutls.so.N; and the Go programs
 * processes run (/proc/PID/exe) that carry crypto/tls (go_bin.h). Each file
 * is handed out once (by its device and inode), named by a path this
 * process can open (/proc/PID/root and the mapping's path, or
 * /proc/PID/exe), so a container's own copy is found as the host's is. */
#ifndef TLS_TLS_LIBS_H
#define TLS_TLS_LIBS_H

#include <stdint.h>

#include "go_bin.h"

enum tls_lib_kind {
	TLS_LIB_OPENSSL = 1,
	TLS_LIB_GNUTLS,
	TLS_LIB_GO,		/* a Go program's crypto/tls */
};

struct tls_lib_found {
	const char *path;	/* valid during the callback */
	enum tls_lib_kind kind;
	int64_t pid;		/* a process that maps it */
	uint64_t dev, ino;
	const struct go_bin *go;	/* TLS_LIB_GO: what to probe */
};

/* 0: the file is taken (never handed out again); nonzero: try it again at
 * the next scan (through another process, or later). */
typedef int tls_libs_fn(void *ctx, const struct tls_lib_found *f);

struct tls_libs_counters {
	uint64_t scans;
	uint64_t files;		/* taken (libraries and Go programs) */
	uint64_t go_files;	/* of those, Go programs */
	/* Go programs with crypto/tls that cannot be probed (stripped, older
	 * than 1.17: go_bin__read's -ENOTSUP, -E2BIG, -EIO), each once */
	uint64_t go_unprobed;
	uint64_t refused;	/* handed out and not taken */
	uint64_t unreadable;	/* processes whose maps could not be read (gone, ...) */
};

struct tls_libs;

/* PROC: the proc file system's mount ("/proc"; tests give a tree of their
 * own). NULL and errno ENOMEM. */
struct tls_libs *tls_libs__new(const char *proc);
void tls_libs__free(struct tls_libs *t);
/* Reads every process's maps and executable and hands each library file and
 * Go program not taken yet to FN (a program is read once: one that is not
 * Go, or cannot be probed, is not read again). The number of files taken, or a negative errno when PROC cannot be
 * listed. */
int tls_libs__scan(struct tls_libs *t, tls_libs_fn *fn, void *ctx);
/* The kind of library a mapping's file name says, 0 for none. */
enum tls_lib_kind tls_libs__kind(const char *path);
void tls_libs__counters(const struct tls_libs *t, struct tls_libs_counters *out);

#endif
