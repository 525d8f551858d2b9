/* rtrace's BPF program: -c counted in the kernel (count_only), where no
 * call is sent. Each traced task's call start is kept at its entry, and
 * its exit adds the call to per-CPU counts by its index in the spec
 * table, which rtrace reads at the end. Included by rtrace.bpf.c after
 * what it uses: count_only, the spec table, the traced table
 * (tasks.bpf.h) and dying(). */
#ifndef RTRACE_COUNTS_BPF_H
#define RTRACE_COUNTS_BPF_H

#include <linux/types.h>
#include <linux/bpf.h>
#include <asm/ptrace.h>
#include <bpf/bpf_helpers.h>
#include "rtrace.h"

/* -c in the kernel: when each task's current call entered and its index
 * in the spec table (kept because the exit's registers may no longer say:
 * rt_sigreturn's, an exec's), and the counts by that index.
 *
 * By tid, for the tids below start_slots (the kernel's pid_max when rtrace
 * started): an array the verifier inlines the look-up of, where task
 * storage cost every counted call two helper calls (getppid under -c
 * 3.12x -> 2.95x of untraced). A slot packs a valid bit, the start's
 * nanoseconds (53 bits: a call of up to 104 days is timed right) and the
 * index (10 bits). A slot is cleared when its task is forked and when it
 * exits, and follows a thread that exec'd to the leader's tid. Tids from
 * start_slots up (pid_max raised since) keep their start in task storage
 * (a start moves between slots only: the exec of a thread whose tid and
 * leader's are on either side of start_slots is not counted). */
const volatile __u32 start_slots = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* start_slots, set by rtrace */
	__type(key, __u32);
	__type(value, __u64);
} start_ns SEC(".maps");

#define SLOT_VALID (1ULL << 63)
#define SLOT_INDEX_BITS 10
#define SLOT_NS_MASK ((1ULL << 53) - 1)
/* Calls' indices, that is: the subcalls' above them are never counted. */
_Static_assert(RT_SUBCALL_BASE <= 1 << SLOT_INDEX_BITS, "a call's spec index fits a start slot");

static __always_inline __u64 *start_slot(__u32 tid)
{
	if (tid >= start_slots)
		return 0;
	return bpf_map_lookup_elem(&start_ns, &tid);
}

/* Forget `tid`'s start: its task is new or gone. */
static __always_inline void clear_start(__u32 tid)
{
	__u64 *slot = start_slot(tid);
	if (slot)
		*slot = 0;
}

struct call_start {
	__u64 ns;
	__u32 index;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct call_start);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RT_SPECS);
	__type(key, __u32);
	__type(value, struct rt_count);
} counts SEC(".maps");

/* The spec table's index of the current call, from its registers at its
 * entry (x86-64's where they say `syscall`: from_syscall_insn()), or
 * RT_SPECS when out of range. */
static __always_inline __u32 call_index(struct pt_regs *regs, long nr)
{
	if (nr < 0 || nr >= RT_I386_BASE)
		return RT_SPECS;
	if (from_syscall_insn(regs))
		return (__u32)nr;
	return (__u32)nr + (i386_call(bpf_get_current_task_btf(), regs) ? RT_I386_BASE : 0);
}

/* -c in the kernel, at a call's entry: its start, if the task (whose ids
 * are `id`) is traced and the call counted. The task's pointer is asked
 * for only where its tid has no start slot. */
static __always_inline void count_enter(struct pt_regs *regs, long nr, __u64 id)
{
	if (!task_state(id, id >> 32))
		return;
	__u32 index = call_index(regs, nr);
	struct rt_spec *spec = bpf_map_lookup_elem(&specs, &index);
	if (!spec || !spec->counted)
		return;
	__u32 tid = (__u32)id;
	if (tid < start_slots) {
		__u64 *slot = start_slot(tid);
		if (slot)
			*slot = SLOT_VALID | (bpf_ktime_get_ns() & SLOT_NS_MASK) << SLOT_INDEX_BITS |
				index;
		return;
	}
	struct call_start *start = bpf_task_storage_get(&starts, bpf_get_current_task_btf(), 0,
							BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!start)
		return;
	start->ns = bpf_ktime_get_ns();
	start->index = index;
}

/* ... and at its exit: one more call (an attempt the kernel left). The
 * table comes first: an untraced task's exit costs that alone. */
static __always_inline void count_exit(__u64 id, long ret)
{
	int state = task_state(id, id >> 32);
	if (!state)
		return;
	__u32 tid = (__u32)id, index;
	__u64 began, mask = ~0ULL;
	if (tid < start_slots) {
		__u64 *slot = start_slot(tid);
		if (!slot || !(*slot & SLOT_VALID))
			return;
		began = (*slot >> SLOT_INDEX_BITS) & SLOT_NS_MASK;
		index = *slot & ((1 << SLOT_INDEX_BITS) - 1);
		/* The time is kept modulo 2^53 ns. */
		mask = SLOT_NS_MASK;
		*slot = 0;
	} else {
		struct call_start *start =
			bpf_task_storage_get(&starts, bpf_get_current_task_btf(), 0, 0);
		if (!start || !start->ns)
			return;
		began = start->ns;
		index = start->index;
		start->ns = 0;
	}
	/* A started command's calls before its exec are rtrace's; the exec's
	 * own exit, after the exec made it TASK_TRACED, is the command's. A
	 * call its task's death ended is not counted, as ptrace counts it. */
	if (state != TASK_TRACED)
		return;
	/* An i386 call's result is its register's low half (rtrace_sys_exit);
	 * which the call was, its entry said. */
	if (index >= RT_I386_BASE)
		ret = (int)ret;
	if (dying(ret, bpf_map_lookup_elem(&specs, &index)))
		return;
	struct rt_count *c = bpf_map_lookup_elem(&counts, &index);
	if (!c)
		return;
	c->calls += 1;
	c->errors += ret < 0 && ret >= -4095;
	c->ns += (bpf_ktime_get_ns() - began) & mask;
}

#endif
