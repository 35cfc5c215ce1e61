/* fd.* fields.
 *
 * Socket ends: state.h keeps a socket's tuple as sip:sport -> dip:dport in the
 * order the driver reports it, which (as in sysdig) is always client -> server,
 * for connect and accept alike. So the client is (sip, sport), the server
 * (dip, dport), and is_server picks which end is local. */
#include <errno.h>
#include <sys/sysmacros.h>

#include "fields_int.h"

static bool fd__is_ip(const struct fd_info *fd)
{
	return fd->type == FDT_IPV4_SOCK || fd->type == FDT_IPV6_SOCK;
}

static uint8_t fd__family(const struct fd_info *fd)
{
	return fd->type == FDT_IPV6_SOCK ? PPM_AF_INET6 : PPM_AF_INET;
}

static bool zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* sysdig knows a socket's ends (and protocol) once it has a port: not when
 * just created, nor when bound to port 0. */
static bool tuple__empty(const struct fd_info *fd)
{
	return !fd->sport && !fd->dport;
}

/* An unknown address (all zero) is absent, as in sysdig. */
static int ip__value(struct field_value *out, const struct fd_info *fd, const uint8_t *addr)
{
	uint8_t family = fd__family(fd);

	if (zero(addr, family == PPM_AF_INET6 ? 16 : 4))
		return -ENOENT;
	out->type = FT_IPADDR;
	out->ip.family = family;
	memset(out->ip.addr, 0, sizeof(out->ip.addr));
	memcpy(out->ip.addr, addr, family == PPM_AF_INET6 ? 16 : 4);
	return 0;
}

static const char *l4proto__name(uint8_t proto)
{
	switch (proto) {
	case 6: return "tcp";
	case 17: return "udp";
	case 1: case 58: return "icmp";
	case 255: return "raw";
	default: return NULL;
	}
}

/* The kind of fd a call makes, by its enter event: sysdig's type letter for an
 * fd event whose fd its table does not hold. */
static const char *fd__call_letter(uint16_t type)
{
	switch (type & ~1u) {
	case PPME_SYSCALL_OPEN_E: case PPME_SYSCALL_OPENAT_E: case PPME_SYSCALL_OPENAT_2_E:
	case PPME_SYSCALL_OPENAT2_E: case PPME_SYSCALL_CREAT_E:
		return "f";
	case PPME_SOCKET_SOCKET_E: case PPME_SOCKET_ACCEPT_E: case PPME_SOCKET_ACCEPT_5_E:
	case PPME_SOCKET_ACCEPT4_E: case PPME_SOCKET_ACCEPT4_5_E:
		return "4";	/* sysdig's guess, whatever the family */
	case PPME_SYSCALL_PIPE_E: return "p";
	case PPME_SYSCALL_EVENTFD_E: return "e";
	case PPME_SYSCALL_SIGNALFD_E: return "s";
	case PPME_SYSCALL_TIMERFD_CREATE_E: return "t";
	case PPME_SYSCALL_INOTIFY_INIT_E: return "i";
	default: return "o";
	}
}

/* The param that names the fd a creating call's exit was about: sysdig's name
 * for it when its table holds no entry (a failed accept's NULL tuple, an open
 * the tables missed). -1: the call names none. */
static int fd__creator_param(uint16_t type)
{
	switch (type) {
	case PPME_SYSCALL_OPEN_X: case PPME_SYSCALL_CREAT_X: case PPME_SOCKET_CONNECT_X:
	case PPME_SOCKET_ACCEPT_X: case PPME_SOCKET_ACCEPT_5_X: case PPME_SOCKET_ACCEPT4_X:
	case PPME_SOCKET_ACCEPT4_5_X:
		return 1;
	case PPME_SYSCALL_OPENAT_2_X: case PPME_SYSCALL_OPENAT2_X:
		return 2;
	default:
		return -1;
	}
}

/* An fd event on an fd the tables do not hold (opened before the capture, a
 * dup of one, a failed accept): sysdig still shows a type letter by the call,
 * and on the exit a name (a creating call's param, else empty) and its
 * directory ("/" when the name has none). Our failed opens carry their own
 * entry (fdnum -1), so they never get here. */
static int fd__unknown(const struct field_ref *ref, const struct ievt *ev,
		       struct field_ctx *ctx, struct field_value *out)
{
	int idx = fd__creator_param(ev->type);
	const char *name = "", *slash;
	size_t len = 0;

	if (ref->info->id == F_FD_TYPECHAR)
		return value__str(out, fd__call_letter(ev->type), 1);
	if ((ref->info->id != F_FD_NAME && ref->info->id != F_FD_DIRECTORY) ||
	    !PPME_IS_EXIT(ev->type))
		return -ENOENT;
	if (idx >= 0 && (uint32_t)idx < ev->params.n) {
		sbuf__reset(&ctx->scratch);
		param__render(ev, (uint32_t)idx, ctx, &ctx->scratch, PM_ARG);
		if (ctx->scratch.err)
			return ctx->scratch.err;
		if (ctx->scratch.buf) {
			name = ctx->scratch.buf;
			len = ctx->scratch.len;
		}
	}
	if (ref->info->id == F_FD_NAME)
		return value__str(out, name, len);
	slash = len ? memrchr(name, '/', len) : NULL;
	if (!slash || slash == name)
		return value__str(out, "/", 1);
	return value__str(out, name, slash == name + len - 1 ? len : (size_t)(slash - name));
}

int fields__extract_fd(const struct field_ref *ref, const struct ievt *ev,
		       struct field_ctx *ctx, unsigned n, struct field_value *out)
{
	const struct fd_info *fd = ev->fd;
	uint32_t flags = ev->info ? ev->info->flags : 0;
	const char *slash, *name;
	bool client;

	if (ref->info->id == F_FD_NUM) {
		/* sysdig shows -1 for fd events that have no fd (yet) */
		if (n || (ev->fdnum < 0 && !fd &&
			  !(flags & (EF_CREATES_FD | EF_USES_FD | EF_DESTROYS_FD))))
			return -ENOENT;
		return value__i64(out, fd ? fd->fd : ev->fdnum);
	}
	if (n > (ref->info->flags & FF_MULTI ? 1u : 0u))
		return -ENOENT;
	if (!fd)
		return flags & (EF_CREATES_FD | EF_USES_FD | EF_DESTROYS_FD) ?
			fd__unknown(ref, ev, ctx, out) : -ENOENT;
	name = fd->name ? fd->name : "";
	/* An fd without a number is what a failed open showed (the inspector's
	 * one-event entry): sysdig knows its name, type letter and directory only. */
	if (ev->fdnum < 0 && ref->info->id != F_FD_NAME && ref->info->id != F_FD_TYPECHAR &&
	    ref->info->id != F_FD_DIRECTORY)
		return -ENOENT;

	switch (ref->info->id) {
	case F_FD_TYPE:
		if (fd->type == FDT_UNKNOWN || (unsigned)fd->type > FDT_OTHER_SOCK ||
		    !fd_type_names[fd->type])
			return -ENOENT;
		return value__cstr(out, fd_type_names[fd->type]);
	case F_FD_TYPECHAR:
		if ((unsigned)fd->type > FDT_OTHER_SOCK || !fd_type_chars[fd->type])
			return -ENOENT;
		return value__str(out, &fd_type_chars[fd->type], 1);
	case F_FD_NAME:
		return value__cstr(out, name);
	case F_FD_DIRECTORY:
		if (fd->type == FDT_DIRECTORY)
			return value__cstr(out, name);
		if (fd->type != FDT_FILE || !(slash = strrchr(name, '/')))
			return -ENOENT;
		return value__str(out, name, slash == name ? 1 : (size_t)(slash - name));
	case F_FD_FILENAME:
		if (fd->type != FDT_FILE)
			return -ENOENT;
		slash = strrchr(name, '/');
		return value__cstr(out, slash ? slash + 1 : name);
	case F_FD_L4PROTO:
		/* other fds and IP sockets whose protocol is not known yet: the
		 * string "<NA>", as sysdig gives (also in JSON) */
		if (!fd__is_ip(fd) || tuple__empty(fd) || !(name = l4proto__name(fd->l4proto)))
			return value__str(out, "<NA>", 4);
		return value__cstr(out, name);
	case F_FD_SOCKFAMILY:
		if (fd__is_ip(fd))
			return value__str(out, "ip", 2);
		if (fd->type == FDT_UNIX_SOCK)
			return value__str(out, "unix", 4);
		return -ENOENT;
	case F_FD_IS_SERVER:
		/* any known fd: false unless a server socket, as sysdig prints it */
		return value__bool(out, fd->is_server);
	case F_FD_DEV:
		/* the kernel's dev_t encoding, as the driver sends it */
		out->type = FT_HEX;
		out->u = fd->dev;
		return 0;
	case F_FD_DEV_MAJOR:
		return value__u64(out, major(fd->dev));
	case F_FD_DEV_MINOR:
		return value__u64(out, minor(fd->dev));
	default:
		break;
	}

	/* addresses and ports: IP sockets only, once something is known */
	if (!fd__is_ip(fd) || tuple__empty(fd))
		return -ENOENT;
	switch (ref->info->id) {
	case F_FD_IP:
		/* the known ends in turn: client, then server */
		if (n == 0 && ip__value(out, fd, fd->sip) == 0)
			return 0;
		if (n == 0 || (n == 1 && ip__value(out, fd, fd->sip) == 0))
			return ip__value(out, fd, fd->dip);
		return -ENOENT;
	case F_FD_PORT:
		return value__u64(out, n == 0 ? fd->sport : fd->dport);
	case F_FD_CIP:
		client = true;
		break;
	case F_FD_SIP: case F_FD_DIP:
		client = false;
		break;
	case F_FD_LIP:
		client = !fd->is_server;
		break;
	case F_FD_RIP:
		client = fd->is_server;
		break;
	case F_FD_CPORT:
		return value__u64(out, fd->sport);
	case F_FD_SPORT: case F_FD_DPORT:
		return value__u64(out, fd->dport);
	case F_FD_LPORT:
		return value__u64(out, fd->is_server ? fd->dport : fd->sport);
	case F_FD_RPORT:
		return value__u64(out, fd->is_server ? fd->sport : fd->dport);
	default:
		return -ENOENT;
	}
	return ip__value(out, fd, client ? fd->sip : fd->dip);
}
