/* ptrace(request, pid, addr, data): the request as a PPM value; the exit's addr
 * and data are DYN params (ptrace_dynamic_param: 0 a u64, 1 a signal), filled as
 * sysdig does: addr always the u64 passed, data the word a PEEK* request read
 * (the kernel stores it at the data pointer), the signal a resuming request
 * (CONT, SINGLESTEP, DETACH, SYSCALL) delivers, else the u64 passed. A failed
 * call has 0 in both. */
#include "cred.bpf.h"

#define PTRACE_DYN_U64 0
#define PTRACE_DYN_SIGNAL 1

FILLER(syscall_ptrace_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_PTRACE_E))
		return 0;
	filler__u16(&f, cred__ptrace_request(filler__arg(&f, 0)));
	filler__pid_arg(&f, 1);
	return filler__submit(&f);
}

FILLER_EXIT(syscall_ptrace_x)
{
	struct filler f;
	__u64 data;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_PTRACE_X))
		return 0;
	filler__s64(&f, f.ret);
	if (f.ret < 0) {
		filler__dyn(&f, PTRACE_DYN_U64, 0, 8);
		filler__dyn(&f, PTRACE_DYN_U64, 0, 8);
		return filler__submit(&f);
	}
	filler__dyn(&f, PTRACE_DYN_U64, filler__arg(&f, 2), 8);
	data = filler__arg(&f, 3);
	switch (cred__ptrace_request(filler__arg(&f, 0))) {
	case PPM_PTRACE_REQUESTS_PTRACE_PEEKTEXT:
	case PPM_PTRACE_REQUESTS_PTRACE_PEEKDATA:
	case PPM_PTRACE_REQUESTS_PTRACE_PEEKUSR:
		/* sysdig drops the event when the word cannot be read; 0 here. */
		if (bpf_probe_read_user(&data, sizeof(data), (const void *)data)) {
			COUNT(n_drops_pf);
			data = 0;
		}
		filler__dyn(&f, PTRACE_DYN_U64, data, 8);
		break;
	case PPM_PTRACE_REQUESTS_PTRACE_CONT:
	case PPM_PTRACE_REQUESTS_PTRACE_SINGLESTEP:
	case PPM_PTRACE_REQUESTS_PTRACE_DETACH:
	case PPM_PTRACE_REQUESTS_PTRACE_SYSCALL:
		filler__dyn(&f, PTRACE_DYN_SIGNAL, data, 1);
		break;
	default:
		filler__dyn(&f, PTRACE_DYN_U64, data, 8);
	}
	return filler__submit(&f);
}
