/* Addresses of stacks as function names: user addresses through the
 * process's executable mappings (/proc/PID/maps) and the ELF symbol tables
 * of the mapped files, opened through /proc/PID/root so a container's own
 * files are read; kernel addresses through /proc/kallsyms. Files are cached
 * by GNU build id (else device and inode), so the copies of one library in
 * many containers are read once. Off the per-event path: the caller
 * symbolizes the stacks it keeps. Not thread-safe. */
#ifndef PROFILE_SYMBOLIZER_H
#define PROFILE_SYMBOLIZER_H

#include <stdint.h>

struct symbolizer_opts {
	const char *proc;	/* /proc, or a host's (HOST_ROOT's) */
	const char *kallsyms;	/* NULL: PROC/kallsyms */
	unsigned max_procs;	/* processes whose mappings are kept; 0: 1024 */
	unsigned max_files;	/* files whose symbols are kept; 0: 512 */
	/* An address in no mapping reads the process's maps again (a library
	 * dlopen'd since), but not within this many ms of its last read: code
	 * built without frame pointers gives stacks of stray addresses, each a
	 * miss. 0: 1000. */
	unsigned reread_ms;
	/* ns on a monotonic clock; NULL: CLOCK_MONOTONIC (tests pass their own) */
	uint64_t (*clock_ns)(void);
};

struct sym {
	const char *name;	/* NULL: the file or kernel has no symbol there */
	uint64_t off;		/* the address's offset in the function */
	const char *file;	/* the mapped file's path, or the kernel module ("" for none) */
};

struct symbolizer_counters {
	/* maps_reread: read again on a miss; reread_held: a miss within
	 * reread_ms of the last read, not read again */
	uint64_t procs_read, procs_evicted, maps_reread, reread_held;
	uint64_t files_read, files_shared, files_failed, files_evicted, files_uncached;
};

struct symbolizer;

struct symbolizer *symbolizer__new(const struct symbolizer_opts *o);
void symbolizer__free(struct symbolizer *s);
/* ADDR in process PID. 0 with OUT filled (OUT->name NULL when the file has no
 * symbol there), -ESRCH when the process's mappings cannot be read, -ENOENT
 * when no executable file mapping holds ADDR, -errno when its file cannot be
 * opened or read. OUT's strings live until the next call. */
int symbolizer__user(struct symbolizer *s, int pid, uint64_t addr, struct sym *out);
/* A kernel address: 0, -ENOENT (none, or kallsyms shows no addresses to this
 * reader), -errno when kallsyms cannot be read. */
int symbolizer__kernel(struct symbolizer *s, uint64_t addr, struct sym *out);
/* PID exited or exec'd: its mappings are read again when next asked. */
void symbolizer__forget(struct symbolizer *s, int pid);
void symbolizer__counters(const struct symbolizer *s, struct symbolizer_counters *c);

#endif
