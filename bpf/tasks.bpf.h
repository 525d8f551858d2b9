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

static __always_inline void untrace_task(__u32 tid)
{
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
