/* The fd makers: eventfd and eventfd2 (EVENTFD), signalfd and signalfd4
 * (SIGNALFD), timerfd_create, inotify_init and inotify_init1 (INOTIFY_INIT),
 * userfaultfd. sysdig 0.29.3 never filled the flags of the first four, nor the
 * signalfd mask or the timerfd clock: they are sent as 0 like it did. */
#include "fdio.bpf.h"

/* initval: eventfd's count is an unsigned int. */
FILLER(syscall_eventfd_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_EVENTFD_E))
		return 0;
	filler__u64(&f, (__u32)filler__arg(&f, 0));
	filler__u32(&f, 0);
	return filler__submit(&f);
}

FDIO_RES_EXIT(syscall_eventfd_x, SYSCALL_EVENTFD_X)

/* fd: -1 creates a new signalfd, an existing one is updated. */
FILLER(syscall_signalfd_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_SIGNALFD_E))
		return 0;
	filler__fd_arg(&f, 0);
	filler__u32(&f, 0);
	filler__u8(&f, 0);
	return filler__submit(&f);
}

FDIO_RES_EXIT(syscall_signalfd_x, SYSCALL_SIGNALFD_X)

FILLER(syscall_timerfd_create_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_TIMERFD_CREATE_E))
		return 0;
	filler__u8(&f, 0);
	filler__u8(&f, 0);
	return filler__submit(&f);
}

FDIO_RES_EXIT(syscall_timerfd_create_x, SYSCALL_TIMERFD_CREATE_X)

FILLER(syscall_inotify_init_e)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_INOTIFY_INIT_E))
		return 0;
	filler__u8(&f, 0);
	return filler__submit(&f);
}

FDIO_RES_EXIT(syscall_inotify_init_x, SYSCALL_INOTIFY_INIT_X)

/* flags: the native O_CLOEXEC / O_NONBLOCK / UFFD_USER_MODE_ONLY bits, unconverted
 * although the table names file_flags: sysdig sent the register as it was. */
FILLER_EXIT(syscall_userfaultfd_x)
{
	struct filler f;

	if (FILLER_BEGIN(&f, ctx, SYSCALL_USERFAULTFD_X))
		return 0;
	filler__s64(&f, f.ret);
	filler__u32(&f, filler__arg(&f, 0));
	return filler__submit(&f);
}
