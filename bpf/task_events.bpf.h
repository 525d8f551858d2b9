/* rtrace's BPF program: the task events, from their raw tracepoints: a
 * traced task's fork (its child traced with -f), exec, exit (a thread
 * group's leader ending with its group) and signals, delivered or
 * discarded. Included at the end of rtrace.bpf.c, after the records'
 * senders and the traced table it uses. */
#ifndef RTRACE_TASK_EVENTS_BPF_H
#define RTRACE_TASK_EVENTS_BPF_H

static __always_inline __u32 task_field(void *task, __u32 off)
{
	__u32 v = 0;
	bpf_probe_read_kernel(&v, sizeof(v), task + off);
	return v;
}

/* sched_process_fork(struct task_struct *parent, struct task_struct *child) */
SEC("raw_tracepoint/sched_process_fork")
int rtrace_fork(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 id = current_task_ids();
	if (!is_traced((__u32)id, id >> 32))
		return 0;
	void *child = (void *)ctx->args[1];
	__u64 child_ids = pid_ns_ino ? ids_in_ns((__u64)child)
				     : (__u64)task_field(child, task_tgid_off) << 32 |
					       task_field(child, task_pid_off);
	__u32 child_tid = child_ids;
	if (count_only)
		clear_start(child_tid);
	if (!trace_all) {
		if (!follow)
			return 0;
		trace_task(child_tid);
	}
	struct rt_event ev = {};
	header(&ev, RT_FORK, (__u32)id, id >> 32);
	ev.nr = child_tid;
	ev.args[0] = child_ids >> 32;
	send_plain(&ev);
	return 0;
}

/* sched_process_exec(struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm) */
SEC("raw_tracepoint/sched_process_exec")
int rtrace_exec(struct bpf_raw_tracepoint_args *ctx)
{
	/* The exec'ing thread's tid before, and its tid now, in the initial
	 * namespace: a thread's exec has given it its leader's. */
	__u32 old_global = ctx->args[1];
	int thread_exec = old_global != (__u32)bpf_get_current_pid_tgid();
	if (thread_exec)
		forget_caller();
	__u64 id = current_task_ids();
	__u32 tid = id, old = thread_exec ? exec_caller(old_global, tid) : tid;
	if (!trace_all && !is_traced(old, 0) && !is_traced(tid, 0))
		return 0;
	if (trace_all && (id >> 32) == self_tgid)
		return 0;
	/* A thread's exec: the exec's exit comes under the leader's tid,
	 * whose own bit (a leader that ended by SYS_exit keeps it) is not
	 * this call's. */
	int entered_exec = forget_entered(old);
	forget_entered(tid);
	if (entered_exec)
		note_entered(tid);
	if (!trace_all) {
		/* A started command is the command from its exec; a thread
		 * that exec'd carries on under the leader's tid. */
		trace_task(tid);
		if (old != tid)
			untrace_task(old);
	}
	if (old != tid) {
		/* A thread's exec: the exec's exit comes under the leader's
		 * tid, which it takes; its entry's failed captures are asked
		 * for by that tid. */
		__u8 *failed = bpf_map_lookup_elem(&refetch, &old);
		if (failed) {
			__u8 bits = *failed;
			bpf_map_update_elem(&refetch, &tid, &bits, BPF_ANY);
			bpf_map_delete_elem(&refetch, &old);
		}
	}
	if (count_only && old != tid) {
		/* Its exec's start, to count the exec at its exit. */
		__u64 *from = start_slot(old), *to = start_slot(tid);
		if (to)
			*to = from ? *from : 0;
		if (from)
			*from = 0;
	}
	struct rt_event ev = {};
	header(&ev, RT_EXEC, tid, id >> 32);
	ev.nr = old;
	/* Its new name, as /proc will show it: rtrace reads the record later. */
	bpf_get_current_comm(ev.args, 16);
	/* The process's execs so far, this one included (0: not counted). */
	__u32 tgid = id >> 32;
	__u64 *execs_so_far = bpf_map_lookup_elem(&execs, &tgid), first = 1;
	if (execs_so_far)
		ev.args[2] = ++*execs_so_far;
	else if (bpf_map_update_elem(&execs, &tgid, &first, BPF_NOEXIST) == 0)
		ev.args[2] = 1;
	send_plain(&ev);
	return 0;
}

/* task_struct.signal and signal_struct.group_exec_task: the thread whose
 * exec is killing the group's other threads (0 where BTF lacks them). */
const volatile __u32 off_task_signal = 0, off_signal_exec_task = 0;

/* signal_struct.live: the group's threads that have not begun to exit
 * (0 where BTF lacks it: then a leader's end is reported as it comes). */
const volatile __u32 off_signal_live = 0;

/* Leaders whose own end came while other threads of their group lived,
 * by tgid: their end is reported with the group's (leader_ends_now()). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} ended_leaders SEC(".maps");

/* Report the end of task `tid` of process `tgid` with wait status
 * `status` (for a leader held for its group, the status of the thread
 * that ended the group, which is what the parent's wait gives). */
static __always_inline void report_end(__u32 tid, __u32 tgid, __u32 status)
{
	if (!trace_all)
		untrace_task(tid);
	else
		forget_entered(tid);
	if (count_only)
		clear_start(tid);
	/* A leader's end: the process's memory is gone with it (or soon). */
	if (tid == tgid)
		bpf_map_delete_elem(&execs, &tgid);
	struct rt_event ev = {};
	header(&ev, RT_EXIT, tid, tgid);
	ev.nr = status;
	/* At once: the trace may be over, and no later record of this task
	 * would wake the reader before its poll's timeout. */
	send_plain_waking(&ev, BPF_RB_FORCE_WAKEUP);
}

/* Whether the exit of task `tid` (whose group's signal_struct is
 * `signal`) ends its process's leader now: the leader's own exit when
 * no other thread lives, or a thread's when it is the group's last and
 * the leader's exit came first. The leader notes itself in
 * ended_leaders before it looks whether it is the last, so that of the
 * leader and the threads that find none left, exactly one deletes the
 * note and reports. Where BTF lacks signal_struct.live, the leader's own
 * exit ends it. */
static __always_inline int leader_ends_now(__u32 tid, __u32 tgid, __u64 signal)
{
	if (!off_signal_live || !signal)
		return tid == tgid;
	__u8 noted = 1;
	/* No room to note it (-a, thousands at once): reported now. */
	if (tid == tgid && bpf_map_update_elem(&ended_leaders, &tgid, &noted, BPF_ANY))
		return 1;
	int live = 1;
	bpf_probe_read_kernel(&live, 4, (void *)signal + off_signal_live);
	return live <= 0 && bpf_map_delete_elem(&ended_leaders, &tgid) == 0;
}

/* sched_process_exit(struct task_struct *p, ...): p is the current task.
 * A thread group's leader ends, as ptrace and wait see it, with the
 * group: its own exit while other threads live (an exit() of its own
 * thread) is held until the last of them ends, and reported after that
 * thread's end, with its status, the process's (leader_ends_now()). */
SEC("raw_tracepoint/sched_process_exit")
int rtrace_exit(struct bpf_raw_tracepoint_args *ctx)
{
	forget_caller();
	if (pid_ns_ino) {
		__u32 global = bpf_get_current_pid_tgid();
		bpf_map_delete_elem(&exec_callers, &global);
	}
	__u64 id = current_task_ids();
	__u32 tid = id, tgid = id >> 32;
	if (!is_traced(tid, tgid))
		return 0;
	void *task = (void *)ctx->args[0];
	__u32 status = (int)task_field(task, task_exit_code_off);
	__u64 signal = 0;
	if (off_task_signal)
		bpf_probe_read_kernel(&signal, 8, task + off_task_signal);
	/* A leader another thread's exec kills (de_thread): the process
	 * goes on under its tid, which the exec's record gives the thread;
	 * no end to report (ptrace sees none either). */
	if (tid == tgid && off_signal_exec_task && signal) {
		__u64 exec_task = 0;
		if (!bpf_probe_read_kernel(&exec_task, 8, (void *)signal + off_signal_exec_task) &&
		    exec_task && exec_task != (__u64)task)
			return 0;
	}
	int leader_ends = leader_ends_now(tid, tgid, signal);
	if (tid != tgid)
		report_end(tid, tgid, status);
	if (leader_ends)
		report_end(tgid, tgid, status);
	return 0;
}

/* The 48 bytes of a struct kernel_siginfo, carried in args. */
static __always_inline void put_siginfo(struct rt_event *ev, __u64 info)
{
	/* SEND_SIG_NOINFO and SEND_SIG_PRIV are 0 and 1. */
	if (info > 1)
		bpf_probe_read_kernel(ev->args, sizeof(ev->args), (void *)info);
}

/* signal_deliver(int sig, struct kernel_siginfo *info, struct k_sigaction *ka) */
SEC("raw_tracepoint/signal_deliver")
int rtrace_signal_deliver(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 id = current_task_ids();
	if (!is_traced((__u32)id, id >> 32))
		return 0;
	/* The lossless mode's own stop is not the program's. */
	__u32 tgid = id >> 32;
	if ((int)ctx->args[0] == SIGSTOP && bpf_map_lookup_elem(&holding, &tgid))
		return 0;
	struct rt_event ev = {};
	header(&ev, RT_SIGNAL, (__u32)id, id >> 32);
	ev.nr = (int)ctx->args[0];
	put_siginfo(&ev, ctx->args[1]);
	send_plain(&ev);
	return 0;
}

/* signal_generate(int sig, struct kernel_siginfo *info, struct task_struct
 * *task, int group, int result): a signal the target ignores is discarded
 * here and never delivered; a ptrace tracer would have seen it. */
SEC("raw_tracepoint/signal_generate")
int rtrace_signal_generate(struct bpf_raw_tracepoint_args *ctx)
{
	if (ctx->args[4] != 1 /* TRACE_SIGNAL_IGNORED */)
		return 0;
	/* rtrace continuing what the lossless mode stopped. */
	__u64 sender = current_task_ids();
	/* (A sender outside rtrace's pid namespace has its tgid, tid 0.) */
	if ((int)ctx->args[0] == SIGCONT && sender >> 32 == self_tgid && (__u32)sender)
		return 0;
	void *task = (void *)ctx->args[2];
	__u64 ids = pid_ns_ino ? ids_in_ns((__u64)task)
			       : (__u64)task_field(task, task_tgid_off) << 32 |
					 task_field(task, task_pid_off);
	__u32 tid = ids, tgid = ids >> 32;
	if (!is_traced(tid, tgid))
		return 0;
	struct rt_event ev = {};
	header(&ev, RT_SIGNAL_LOST, tid, tgid);
	ev.nr = (int)ctx->args[0];
	put_siginfo(&ev, ctx->args[1]);
	send_plain(&ev);
	return 0;
}

#endif
