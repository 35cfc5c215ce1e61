/* seccomp and bpf on the real driver: a filter installed in a forked child,
 * queries, map and program creation (the exit's DYN param is the new fd) and
 * other commands (res), failing calls (EINVAL, EBADF). */
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>

#include "cred_live.h"

#define DYN_FD 0
#define DYN_RES 1

/* The calls checked, the test's own and its child's. */
static const int cred_priv_calls[] = { SYS_seccomp, SYS_bpf, -1 };

static void check_seccomp(struct harness *h, int64_t tid, int *at, uint64_t op, int64_t res)
{
	struct hevt *e, *x;

	if (!cred__call(h, PPME_SYSCALL_SECCOMP_E, tid, at, &e, &x))
		return;
	EXPECT_INTS(e, op);
	EXPECT_INTS(x, res);
}

/* An allow-everything filter, installed once no_new_privs is set. */
static void child_filter(void *arg)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { .len = 1, .filter = &allow };

	(void)arg;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
		_exit(1);
}

static void test_seccomp(struct harness *h)
{
	int64_t me = live__tid();
	uint32_t action = SECCOMP_RET_KILL_PROCESS;
	struct seccomp_notif_sizes sizes;
	pid_t child;
	int at = 0;

	harness__drain(h, -1);
	EXPECT(syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0);
	EXPECT(syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) == 0);
	EXPECT(syscall(SYS_seccomp, 99, 0, NULL) == -1 && errno == EINVAL);
	harness__drain(h, me);
	check_seccomp(h, me, &at, SECCOMP_GET_ACTION_AVAIL, 0);
	check_seccomp(h, me, &at, SECCOMP_GET_NOTIF_SIZES, 0);
	check_seccomp(h, me, &at, 99, -EINVAL);

	harness__drain(h, -1);
	child = cred__in_child(child_filter, NULL);
	harness__drain(h, child);
	at = 0;
	check_seccomp(h, child, &at, SECCOMP_SET_MODE_FILTER, 0);
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

static void check_bpf(struct harness *h, int64_t tid, int *at, int64_t cmd, uint8_t idx,
		      int64_t v)
{
	struct hevt *e, *x;

	if (!cred__call(h, PPME_SYSCALL_BPF_E, tid, at, &e, &x))
		return;
	EXPECT_INTS(e, cmd);
	EXPECT_PARAM_DYN(x, 0, idx, (uint64_t)v, 8);
}

static void test_bpf(struct harness *h)
{
	int64_t me = live__tid();
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	uint32_t key = 0, val = 7;
	union bpf_attr a;
	long map, prog;
	int at = 0;

	harness__drain(h, -1);
	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 4;
	a.max_entries = 1;
	map = sys_bpf(BPF_MAP_CREATE, &a);
	EXPECT(map >= 0);
	memset(&a, 0, sizeof(a));
	a.map_fd = map;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)&val;
	EXPECT(sys_bpf(BPF_MAP_UPDATE_ELEM, &a) == 0);
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a.insns = (uintptr_t)insns;
	a.insn_cnt = 2;
	a.license = (uintptr_t)"GPL";
	prog = sys_bpf(BPF_PROG_LOAD, &a);
	EXPECT(prog >= 0);
	/* No entries: EINVAL; a lookup in a closed fd: EBADF. */
	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 4;
	EXPECT(sys_bpf(BPF_MAP_CREATE, &a) == -1 && errno == EINVAL);
	memset(&a, 0, sizeof(a));
	a.map_fd = 9999;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)&val;
	EXPECT(sys_bpf(BPF_MAP_LOOKUP_ELEM, &a) == -1 && errno == EBADF);
	harness__drain(h, me);

	check_bpf(h, me, &at, BPF_MAP_CREATE, DYN_FD, map);
	check_bpf(h, me, &at, BPF_MAP_UPDATE_ELEM, DYN_RES, 0);
	check_bpf(h, me, &at, BPF_PROG_LOAD, DYN_FD, prog);
	check_bpf(h, me, &at, BPF_MAP_CREATE, DYN_RES, -EINVAL);
	check_bpf(h, me, &at, BPF_MAP_LOOKUP_ELEM, DYN_RES, -EBADF);
	close(map);
	close(prog);
}

int main(void)
{
	struct harness *h = live__open(256, cred_priv_calls);

	test_seccomp(h);
	test_bpf(h);
	harness__close(h);
	return harness__report("cred_priv");
}
