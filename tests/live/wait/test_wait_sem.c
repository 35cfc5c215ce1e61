/* semget, semctl and semop on the real driver: every param of both events, the
 * flag and command conversions, semop's first two operations, failing calls. */
#include <sys/ipc.h>
#include <sys/sem.h>

#include "wait_live.h"

/* The calls checked, each made with syscall(). */
static const int wait_sem_calls[] = { SYS_semget, SYS_semctl, SYS_semop, -1 };

static void check_semget(struct harness *h, int key, int nsems, int flg, uint32_t want_flg,
			 long *res)
{
	struct hevt *e, *x;

	*res = wait__call(h, SYS_semget, key, nsems, flg, 0, 0, 0);
	e = wait__pair(h, PPME_SYSCALL_SEMGET_E, 0, key, &x);
	if (!e)
		return;
	EXPECT_PARAM_INT(e, 0, key);
	EXPECT_PARAM_INT(e, 1, nsems);
	EXPECT_PARAM_INT(e, 2, want_flg);
	EXPECT_PARAM_INT(x, 0, *res);
}

/* semctl(ID, NUM, CMD, ARG) checked: CMD sent as WANT_CMD, val as WANT_VAL. */
static void check_semctl(struct harness *h, int id, int num, int cmd, unsigned long arg,
			 uint16_t want_cmd, int32_t want_val, long want)
{
	struct hevt *e, *x;
	long r;

	r = wait__call(h, SYS_semctl, id, num, cmd, arg, 0, 0);
	EXPECT(r == want);
	e = wait__pair(h, PPME_SYSCALL_SEMCTL_E, 0, id, &x);
	if (!e)
		return;
	EXPECT_PARAM_INT(e, 0, id);
	EXPECT_PARAM_INT(e, 1, num);
	EXPECT_PARAM_INT(e, 2, want_cmd);
	EXPECT_PARAM_INT(e, 3, want_val);
	EXPECT_PARAM_INT(x, 0, want);
}

/* semop(ID, OPS, N) checked: the exit lists OPS[0] and OPS[1] with their flags
 * as WANT_FLG (zeros past N; AVAIL false: not readable, empty). */
static void check_semop(struct harness *h, int id, struct sembuf *ops, unsigned n, int avail,
			const uint16_t *want_flg, long want)
{
	struct hevt *e, *x;
	long r;

	r = wait__call(h, SYS_semop, id, (unsigned long)ops, n, 0, 0, 0);
	EXPECT(r == want);
	e = wait__pair(h, PPME_SYSCALL_SEMOP_E, 0, id, &x);
	if (!e)
		return;
	EXPECT_PARAM_INT(e, 0, id);
	EXPECT_PARAM_INT(x, 0, want);
	EXPECT_PARAM_INT(x, 1, n);
	for (unsigned i = 0; i < 2; i++) {
		if (!avail) {
			EXPECT_PARAM_EMPTY(x, 2 + 3 * i);
			EXPECT_PARAM_EMPTY(x, 3 + 3 * i);
			EXPECT_PARAM_EMPTY(x, 4 + 3 * i);
			continue;
		}
		EXPECT_PARAM_INT(x, 2 + 3 * i, i < n ? ops[i].sem_num : 0);
		EXPECT_PARAM_INT(x, 3 + 3 * i, i < n ? ops[i].sem_op : 0);
		EXPECT_PARAM_INT(x, 4 + 3 * i, i < n ? want_flg[i] : 0);
	}
}

int main(void)
{
	struct harness *h = live__open(256, wait_sem_calls);
	int key = 0x5e3a0000 | (getpid() & 0xffff);
	long id, id2, r;
	unsigned short vals[3];
	struct semid_ds ds;
	struct seminfo info;
	struct sembuf ops[3] = {
		{ 0, 2, SEM_UNDO }, { 1, -1, IPC_NOWAIT }, { 2, 1, IPC_NOWAIT | SEM_UNDO },
	};
	const uint16_t flg[3] = {
		PPM_SEMOP_FLAGS_SEM_UNDO, PPM_SEMOP_FLAGS_IPC_NOWAIT,
		PPM_SEMOP_FLAGS_IPC_NOWAIT | PPM_SEMOP_FLAGS_SEM_UNDO,
	};

	check_semget(h, key, 3, IPC_CREAT | IPC_EXCL | 0600,
		     PPM_SEMGET_FLAGS_IPC_CREAT | PPM_SEMGET_FLAGS_IPC_EXCL, &id);
	EXPECT(id >= 0);
	/* Failing: the key exists (EEXIST), a key without a set (ENOENT). */
	check_semget(h, key, 3, IPC_CREAT | IPC_EXCL | 0600,
		     PPM_SEMGET_FLAGS_IPC_CREAT | PPM_SEMGET_FLAGS_IPC_EXCL, &r);
	EXPECT(r == -EEXIST);
	check_semget(h, key ^ 0x8000, 1, 0600, 0, &r);
	EXPECT(r == -ENOENT);
	check_semget(h, IPC_PRIVATE, 2, IPC_CREAT | 0600, PPM_SEMGET_FLAGS_IPC_CREAT, &id2);
	EXPECT(id2 >= 0);

	/* val is sent for SETVAL only. */
	check_semctl(h, id, 1, SETVAL, 7, PPM_SEMCTL_COMMANDS_SETVAL, 7, 0);
	check_semctl(h, id, 1, GETVAL, 0x1234, PPM_SEMCTL_COMMANDS_GETVAL, 0, 7);
	check_semctl(h, id, 0, GETPID, 0, PPM_SEMCTL_COMMANDS_GETPID, 0, 0);
	check_semctl(h, id, 0, GETNCNT, 0, PPM_SEMCTL_COMMANDS_GETNCNT, 0, 0);
	check_semctl(h, id, 0, GETZCNT, 0, PPM_SEMCTL_COMMANDS_GETZCNT, 0, 0);
	check_semctl(h, id, 0, GETALL, (unsigned long)vals, PPM_SEMCTL_COMMANDS_GETALL, 0, 0);
	EXPECT(vals[1] == 7);
	vals[1] = 9;
	check_semctl(h, id, 0, SETALL, (unsigned long)vals, PPM_SEMCTL_COMMANDS_SETALL, 0, 0);
	check_semctl(h, id, 0, IPC_STAT, (unsigned long)&ds, PPM_SEMCTL_COMMANDS_IPC_STAT, 0, 0);
	check_semctl(h, id, 0, IPC_SET, (unsigned long)&ds, PPM_SEMCTL_COMMANDS_IPC_SET, 0, 0);
	/* The highest index in use, the same for both. */
	r = semctl(id, 0, IPC_INFO, &info);
	EXPECT(r >= 0);
	check_semctl(h, id, 0, IPC_INFO, (unsigned long)&info, PPM_SEMCTL_COMMANDS_IPC_INFO, 0, r);
	check_semctl(h, id, 0, SEM_INFO, (unsigned long)&info, PPM_SEMCTL_COMMANDS_SEM_INFO, 0, r);
	/* Failing: a semaphore number out of range (EINVAL), an unknown command
	 * (sent as 0, EINVAL), a value above SEMVMX (ERANGE). */
	check_semctl(h, id, 9, SETVAL, 5, PPM_SEMCTL_COMMANDS_SETVAL, 5, -EINVAL);
	check_semctl(h, id, 0, 77, 5, 0, 0, -EINVAL);
	check_semctl(h, id, 0, SETVAL, 100000, PPM_SEMCTL_COMMANDS_SETVAL, 100000, -ERANGE);

	/* Two operations, then one (the second entry zeros), then three (only two). */
	check_semop(h, id, ops, 2, 1, flg, 0);
	check_semop(h, id, ops, 1, 1, flg, 0);
	check_semop(h, id, ops, 3, 1, flg, 0);
	/* Failing: would block (EAGAIN), no operation (EINVAL), an unreadable
	 * array (EFAULT: not available). */
	ops[1].sem_op = -100;
	check_semop(h, id, ops + 1, 1, 1, flg + 1, -EAGAIN);
	check_semop(h, id, ops, 0, 1, flg, -EINVAL);
	check_semop(h, id, (struct sembuf *)8, 2, 0, flg, -EFAULT);

	check_semctl(h, id2, 0, IPC_RMID, 0, PPM_SEMCTL_COMMANDS_IPC_RMID, 0, 0);
	check_semctl(h, id, 0, IPC_RMID, 0, PPM_SEMCTL_COMMANDS_IPC_RMID, 0, 0);
	/* The set is gone. */
	check_semctl(h, id, 0, IPC_RMID, 0, PPM_SEMCTL_COMMANDS_IPC_RMID, 0, -EINVAL);
	check_semop(h, id, ops, 1, 1, flg, -EINVAL);
	harness__close(h);
	return harness__report("wait_sem");
}
