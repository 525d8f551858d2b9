/* jit_lines PROG_ID: where each source line of a loaded BPF program
 * starts in its JIT image, from the kernel's own records (bpf_prog_info's
 * jited_line_info beside line_info), printed as `ADDRESS INSN_OFFSET`
 * lines. bpftool prints the same only when built with libbfd, which
 * Debian's is not. Used by hot_lines.py; needs root. */
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

static int prog_info(int fd, struct bpf_prog_info *info)
{
	union bpf_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(*info);
	attr.info.info = (unsigned long)info;
	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: jit_lines PROG_ID\n");
		return 2;
	}
	union bpf_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.prog_id = strtoul(argv[1], 0, 10);
	int fd = sys_bpf(BPF_PROG_GET_FD_BY_ID, &attr);
	struct bpf_prog_info info;
	memset(&info, 0, sizeof(info));
	if (fd < 0 || prog_info(fd, &info) != 0) {
		perror("jit_lines: program info");
		return 1;
	}
	/* The counts first, then the arrays in a second call. */
	__u32 lines = info.nr_line_info, jited = info.nr_jited_line_info;
	if (lines == 0 || jited != lines) {
		fprintf(stderr, "jit_lines: program %s has no JIT line table\n", argv[1]);
		return 1;
	}
	struct bpf_line_info *line = calloc(lines, sizeof(*line));
	__u64 *addr = calloc(jited, sizeof(*addr));
	if (!line || !addr)
		return 1;
	memset(&info, 0, sizeof(info));
	info.nr_line_info = lines;
	info.line_info_rec_size = sizeof(*line);
	info.line_info = (unsigned long)line;
	info.nr_jited_line_info = jited;
	info.jited_line_info_rec_size = sizeof(*addr);
	info.jited_line_info = (unsigned long)addr;
	if (prog_info(fd, &info) != 0) {
		perror("jit_lines: line tables");
		return 1;
	}
	for (__u32 i = 0; i < lines; i++)
		printf("%llx %u\n", (unsigned long long)addr[i], line[i].insn_off);
	return 0;
}
