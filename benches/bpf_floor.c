/* bpf_floor MODE COMMAND...: the least any tracer built on the syscall
 * tracepoints costs. Loads the smallest program the kernel takes (MODE 0:
 * return 0; MODE 1: read the clock first, what timing each call needs at
 * its entry and at its exit), attaches it to raw_syscalls' sys_enter and
 * sys_exit, and execs COMMAND with the links open (they close, and the
 * programs come off, when it and its children have exited). Every call of
 * every task on the machine then takes the tracepoints' path and runs the
 * program twice: what that costs a workload is the floor under rtrace
 * --bpf (which adds the test of whether the task is traced, the record
 * and its reader) and under --bpf -c (which adds the counting). Built and
 * run by `cargo bench` (BENCH_ONLY=bpf); needs root. */
#define _GNU_SOURCE
#include <linux/bpf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/syscall.h>

static int bpf(int cmd, union bpf_attr *attr) {
    return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

static int load(int clock) {
    struct bpf_insn insns[3];
    int n = 0;
    memset(insns, 0, sizeof(insns));
    if (clock) {
        insns[n].code = BPF_JMP | BPF_CALL;
        insns[n++].imm = BPF_FUNC_ktime_get_ns;
    }
    insns[n].code = BPF_ALU64 | BPF_MOV | BPF_K; /* r0 = 0 */
    n++;
    insns[n++].code = BPF_JMP | BPF_EXIT;
    union bpf_attr attr;
    memset(&attr, 0, sizeof(attr));
    attr.prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT;
    attr.insns = (uintptr_t)insns;
    attr.insn_cnt = n;
    attr.license = (uintptr_t)"GPL";
    return bpf(BPF_PROG_LOAD, &attr);
}

static int attach(int prog, const char *tracepoint) {
    union bpf_attr attr;
    memset(&attr, 0, sizeof(attr));
    attr.raw_tracepoint.name = (uintptr_t)tracepoint;
    attr.raw_tracepoint.prog_fd = prog;
    return bpf(BPF_RAW_TRACEPOINT_OPEN, &attr);
}

/* Keep `fd` open across exec: the programs stay attached while any
 * process holds their links. */
static int inherit(int fd) {
    return fd < 0 ? fd : fcntl(fd, F_SETFD, 0) == 0 ? fd : -1;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bpf_floor 0|1 COMMAND...\n");
        return 2;
    }
    int prog = load(argv[1][0] == '1');
    if (prog < 0 || inherit(attach(prog, "sys_enter")) < 0 ||
        inherit(attach(prog, "sys_exit")) < 0) {
        perror("bpf_floor: load or attach");
        return 1;
    }
    execvp(argv[2], argv + 2);
    perror("bpf_floor: exec");
    return 127;
}
