/* Exit-only capture on each wanted syscall's own sys_exit_* tracepoint
 * (README, "Each syscall's own tracepoint"): its name, whether the running
 * kernel has it, and attaching a program to it. */
#ifndef DRIVER_SYSCALL_TPS_H
#define DRIVER_SYSCALL_TPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schema.h"

struct bpf_program;
struct bpf_link;

/* The tracepoint event of syscall NR's exit, "sys_exit_<name>", into BUF.
 * Returns 0, or -ENOENT for a number the table names not. */
int syscall_tps__event(int nr, char *buf, size_t size);

/* The id of syscall NR's exit tracepoint (tracefs' events/syscalls/EVENT/id),
 * or a negative errno: -ENOENT where the kernel has none, or where no tracefs
 * is mounted and this process could not mount one for a moment (it needs
 * CAP_SYS_ADMIN). */
int syscall_tps__id(int nr);

/* Whether every syscall with WANT[nr] set has its own exit tracepoint, this
 * process may open its perf event, and tracepoint programs may read the
 * task's registers (5.15). */
bool syscall_tps__cover(const uint8_t want[SYSCALL_TABLE_SIZE]);

/* Attaches P (loaded as a tracepoint program) to syscall NR's exit
 * tracepoint. NULL and errno on failure. */
struct bpf_link *syscall_tps__attach(struct bpf_program *p, int nr);
/* The same on its enter tracepoint (sys_enter_<name>). */
struct bpf_link *syscall_tps__attach_enter(struct bpf_program *p, int nr);

#endif
