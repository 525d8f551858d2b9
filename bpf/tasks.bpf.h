/* rtrace's BPF program: the table of traced tasks (unless -a), which
 * every call of every task on the machine asks, and the tasks' states in
 * it. Included by rtrace.bpf.c after the constants it reads (trace_all,
 * self_tgid). */
#ifndef RTRACE_TASKS_BPF_H
#define RTRACE_TASKS_BPF_H

#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "rtrace.h"

/* The traced tasks, unless trace_all: bits by tid (struct rt_members). An
 * array of bits, not a hash, because every call of every task on the
 * machine asks it: an index and a bit test, which the verifier inlines,
 * where a hash look-up cost the cheapest call a tenth of its own time.
 * rtrace sets and clears bits through the map's memory (mmap), with
 * atomics, as the program does. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, RT_MEMBER_WORDS);
	__type(key, __u32);
	__type(value, struct rt_members);
} members SEC(".maps");

/* The tasks with a seccomp filter whose call's entry the entry program
 * saw (bits by tid, as `members`): a call seccomp settles before the
 * kernel runs it (SECCOMP_RET_ERRNO, _TRAP, a user-notification
 * supervisor's answer) fires no sys_enter, and its exit finds its bit
 * clear. Kept apart from `members`, which rtrace maps: only the program
 * uses it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, RT_MEMBER_WORDS);
	__type(key, __u32);
	__type(value, __u64);
} entered SEC(".maps");

/* A task's state in the traced table: a started command before its exec
 * (whose calls are rtrace's, not the command's: -c in the kernel skips
 * them), and every other traced task. */
#define TASK_STARTING 2
#define TASK_TRACED 1

#define MEMBER_BIT(tid) (1ULL << ((tid) % 64))

static __always_inline struct rt_members *members_of(__u32 tid)
{
	__u32 entry = tid / 64;
	return bpf_map_lookup_elem(&members, &entry);
}

/* rtrace's own pid namespace where it is not the initial one: its inode
 * number (/proc/self/ns/pid); 0 in the initial namespace, where a task's
 * ids are its task_struct.pid and .tgid. Inside a container the ids
 * rtrace knows (the command it started, -p, its own, what /proc names)
 * are the container's: every id the program gives is translated to them,
 * as ptrace's are, and a task outside the namespace has none (0) and is
 * not traced. The rest is where they are, from BTF: task_struct.thread_pid
 * and .group_leader, pid.level and .numbers, the size of a struct upid,
 * upid.nr and .ns, pid_namespace.ns + ns_common.inum. */
const volatile __u32 pid_ns_ino = 0;
const volatile __u32 off_task_thread_pid = 0, off_task_group_leader = 0, off_pid_level = 0,
		     off_pid_numbers = 0, upid_size = 0, off_upid_nr = 0, off_upid_ns = 0,
		     off_pidns_inum = 0;
/* The deepest a pid namespace nests (the kernel's MAX_PID_NS_LEVEL). */
#define PID_NS_LEVELS 32

/* The number of struct pid `pid` in rtrace's namespace, 0 where it has
 * none, found as pid_nr_ns() finds it: in the pid's numbers, one for each
 * level of namespace from the initial one down to the pid's own, the one
 * whose namespace is rtrace's (walked from the pid's own level, where a
 * task of rtrace's namespace has it). A function of its own: verified
 * once; asked only where pid_ns_ino is set. */
__noinline __u32 pid_in_ns(__u64 pid)
{
	__u32 level = 0;
	if (!pid || bpf_probe_read_kernel(&level, 4, (void *)pid + off_pid_level))
		return 0;
	for (__u32 up = 0; up <= PID_NS_LEVELS; up++) {
		if (up > level)
			break;
		__u64 at = pid + off_pid_numbers + (__u64)(level - up) * upid_size, ns = 0;
		__u32 inum = 0;
		int nr = 0;
		if (bpf_probe_read_kernel(&ns, 8, (void *)at + off_upid_ns) || !ns ||
		    bpf_probe_read_kernel(&inum, 4, (void *)ns + off_pidns_inum))
			return 0;
		if (inum == pid_ns_ino)
			return bpf_probe_read_kernel(&nr, 4, (void *)at + off_upid_nr) || nr < 0 ? 0 : nr;
	}
	return 0;
}

/* The ids (tgid high, tid low) of the task at `task` in rtrace's pid
 * namespace; where it has none there, rtrace's own tgid and tid 0, which
 * nothing traces (not -a either, whose test is the tgid: a test of its
 * own cost the entry program's verification a tenth more). The tgid is
 * its group leader's pid, as task_tgid_nr_ns() gives it. A function of its own,
 * given the task as a number (bpf_get_current_task()'s, a raw
 * tracepoint's argument): inlined, its stack and branches cost the exit
 * program's verification a fifth more, though the branch that calls it
 * is dead outside a namespace. */
__noinline __u64 ids_in_ns(__u64 task)
{
	__u64 pid = 0, leader = 0, leader_pid = 0;
	if (bpf_probe_read_kernel(&pid, 8, (void *)task + off_task_thread_pid) ||
	    bpf_probe_read_kernel(&leader, 8, (void *)task + off_task_group_leader) || !leader ||
	    bpf_probe_read_kernel(&leader_pid, 8, (void *)leader + off_task_thread_pid))
		return (__u64)self_tgid << 32;
	__u32 tid = pid_in_ns(pid), tgid = pid_in_ns(leader_pid);
	return tid && tgid ? (__u64)tgid << 32 | tid : (__u64)self_tgid << 32;
}

/* The current task's ids as rtrace knows them (bpf_get_current_pid_tgid()'s
 * in the initial namespace). */
static __always_inline __u64 current_task_ids(void)
{
	if (pid_ns_ino)
		return ids_in_ns(bpf_get_current_task());
	return bpf_get_current_pid_tgid();
}

/* In a pid namespace (pid_ns_ino): the tid in rtrace's namespace of each
 * thread other than a leader that entered an exec, by its tid in the
 * initial one, which is all the exec's tracepoint gives of the tid the
 * thread had (its own struct pid is its leader's by then). Written at the
 * exec's entry (note_exec_caller()), taken at the exec or the thread's end. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u32);
} exec_callers SEC(".maps");

/* The exec calls' numbers: x86-64's, and i386's (read only where the
 * call did not come by `syscall`). */
const volatile __u32 nr_execve = 0, nr_execveat = 0, nr_execve_32 = 0, nr_execveat_32 = 0;

/* At a call's entry in a pid namespace: note an exec by a thread other
 * than its leader in exec_callers (`id`: its ids in rtrace's namespace).
 * A function of its own, on numbers: in the entry program, the note cost
 * the verifier a tenth more though dead outside a namespace. */
__noinline int note_exec_caller(long nr, __u64 id, int by_syscall_insn)
{
	int exec = nr == nr_execve || nr == nr_execveat;
	if (!by_syscall_insn)
		exec |= nr == nr_execve_32 || nr == nr_execveat_32;
	if (!exec || (__u32)id == id >> 32)
		return 0;
	__u32 global = bpf_get_current_pid_tgid(), tid = id;
	bpf_map_update_elem(&exec_callers, &global, &tid, BPF_ANY);
	return 0;
}

/* The tid the thread whose tid in the initial namespace was `global` had
 * before its exec gave it `now`, its leader's: in rtrace's namespace, as
 * noted at the exec's entry (`now` where it was not: no room, or the exec
 * was entered before tracing began). */
static __always_inline __u32 exec_caller(__u32 global, __u32 now)
{
	if (!pid_ns_ino)
		return global;
	__u32 *noted = bpf_map_lookup_elem(&exec_callers, &global), was = now;
	if (noted) {
		was = *noted;
		bpf_map_delete_elem(&exec_callers, &global);
	}
	return was;
}

/* TASK_TRACED, TASK_STARTING, or 0 for a task not traced. */
static __always_inline int task_state(__u32 tid, __u32 tgid)
{
	if (trace_all)
		return tgid != self_tgid ? TASK_TRACED : 0;
	struct rt_members *m = members_of(tid);
	if (!m || !(m->traced & MEMBER_BIT(tid)))
		return 0;
	return m->starting & MEMBER_BIT(tid) ? TASK_STARTING : TASK_TRACED;
}

static __always_inline int is_traced(__u32 tid, __u32 tgid)
{
	if (trace_all)
		return tgid != self_tgid;
	struct rt_members *m = members_of(tid);
	return m && (m->traced & MEMBER_BIT(tid));
}

/* Trace `tid` (TASK_TRACED): a new task, or a started command at its exec. */
static __always_inline void trace_task(__u32 tid)
{
	struct rt_members *m = members_of(tid);
	if (!m)
		return;
	__sync_fetch_and_and(&m->starting, ~MEMBER_BIT(tid));
	__sync_fetch_and_or(&m->traced, MEMBER_BIT(tid));
}

/* Note that `tid`'s call entered (`entered`). */
static __always_inline void note_entered(__u32 tid)
{
	__u32 word = tid / 64;
	__u64 *bits = bpf_map_lookup_elem(&entered, &word);
	if (bits)
		__sync_fetch_and_or(bits, MEMBER_BIT(tid));
}

/* Whether `tid`'s call entered, forgetting it: its exit. */
static __always_inline int forget_entered(__u32 tid)
{
	__u32 word = tid / 64;
	__u64 *bits = bpf_map_lookup_elem(&entered, &word);
	if (!bits)
		return 1;
	return (__sync_fetch_and_and(bits, ~MEMBER_BIT(tid)) & MEMBER_BIT(tid)) != 0;
}

static __always_inline void untrace_task(__u32 tid)
{
	forget_entered(tid);
	struct rt_members *m = members_of(tid);
	if (!m)
		return;
	__sync_fetch_and_and(&m->traced, ~MEMBER_BIT(tid));
	__sync_fetch_and_and(&m->starting, ~MEMBER_BIT(tid));
}

/* Who last made a call on each CPU, for the call programs, which ask it
 * at every call of every task on the machine: the task's kernel stack's
 * register frame (the pt_regs the call tracepoints are given, the same
 * for each call of a task, and no other task's while the task lives) and
 * its ids (tgid high, tid low). A per-CPU array's look-up, which the
 * verifier inlines, and a comparison, where bpf_get_current_task_btf()
 * is a helper call (not inlined on x86-64 6.18): about 15 ns on this VM,
 * whose kernel returns through the SRSO safe-RET thunk, a tenth of a
 * getppid. Kept true by forget_caller(): a task's entries go when it
 * exits (its stack may then be another task's) and when an exec gives a
 * thread its leader's tid. sched_switch could not keep it: switches out
 * of the idle task do not reach that tracepoint on this kernel. */
struct on_cpu_task {
	__u64 regs;
	__u64 ids;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct on_cpu_task);
} on_cpu SEC(".maps");

#endif
