/* The TLS library files processes map, found in /proc/PID/maps by name:
 * OpenSSL's libssl.so.N and GnuTLS's libgnutls.so.N. Each file is handed
 * out once (by its device and inode), named by a path this process can open
 * (/proc/PID/root and the mapping's path), so a container's own copy is
 * found as the host's is. */
#ifndef TLS_TLS_LIBS_H
#define TLS_TLS_LIBS_H

#include <stdint.h>

enum tls_lib_kind {
	TLS_LIB_OPENSSL = 1,
	TLS_LIB_GNUTLS,
};

struct tls_lib_found {
	const char *path;	/* valid during the callback */
	enum tls_lib_kind kind;
	int64_t pid;		/* a process that maps it */
	uint64_t dev, ino;
};

/* 0: the file is taken (never handed out again); nonzero: try it again at
 * the next scan (through another process, or later). */
typedef int tls_libs_fn(void *ctx, const struct tls_lib_found *f);

struct tls_libs_counters {
	uint64_t scans;
	uint64_t files;		/* taken */
	uint64_t refused;	/* handed out and not taken */
	uint64_t unreadable;	/* processes whose maps could not be read (gone, ...) */
};

struct tls_libs;

/* PROC: the proc file system's mount ("/proc"; tests give a tree of their
 * own). NULL and errno ENOMEM. */
struct tls_libs *tls_libs__new(const char *proc);
void tls_libs__free(struct tls_libs *t);
/* Reads every process's maps and hands each library file not taken yet to
 * FN. The number of files taken, or a negative errno when PROC cannot be
 * listed. */
int tls_libs__scan(struct tls_libs *t, tls_libs_fn *fn, void *ctx);
/* The kind of library a mapping's file name says, 0 for none. */
enum tls_lib_kind tls_libs__kind(const char *path);
void tls_libs__counters(const struct tls_libs *t, struct tls_libs_counters *out);

#endif
