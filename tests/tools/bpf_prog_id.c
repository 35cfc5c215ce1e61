/* Prints the id the kernel gives a new BPF program, then frees it. Program ids
 * are handed out in order, so two calls tell how many programs were loaded in
 * between (tools/test.sh: the suite's load on the kernel). Root. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

int main(void)
{
	/* r0 = 0; exit */
	struct bpf_insn insns[] = {
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 },
		{ .code = 0x95 },
	};
	struct bpf_prog_info info = { 0 };
	uint32_t len = sizeof(info);
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, NULL, "GPL", insns, 2, NULL);

	if (fd < 0) {
		fprintf(stderr, "bpf_prog_id: cannot load a program: %s\n", strerror(errno));
		return 1;
	}
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		fprintf(stderr, "bpf_prog_id: %s\n", strerror(errno));
		close(fd);
		return 1;
	}
	printf("%u\n", info.id);
	close(fd);
	return 0;
}
