// SPDX-License-Identifier: MIT OR GPL-2.0
/* rtrace's BPF engine, the kernel half: it sees every system call of the
 * traced tasks at the raw_syscalls tracepoints, copies the memory each call's
 * decoder will read (as rtrace's spec table says, at the call's entry and at
 * its exit), and sends it with the registers through one ring buffer. Task
 * events (fork, exec, exit) and signals come from their raw tracepoints.
 * The tracee is never stopped.
 *
 * Built by tools/build_bpf.sh into bpf/rtrace.bpf.o, which is committed, so
 * building rtrace needs no clang. The license string allows the GPL-only
 * helpers (bpf_probe_read_user) to be used; the source is MIT or GPL-2.0. */
#include <linux/types.h>
#include <linux/bpf.h>
#include <asm/ptrace.h>
#include <asm/signal.h>
#include <bpf/bpf_helpers.h>
#include "rtrace.h"
#include "piece.bpf.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Set by rtrace before the program is loaded. */
const volatile __u32 trace_all = 0;  /* -a: every task but rtrace's own */
const volatile __u32 follow = 0;     /* -f: a traced task's children are traced */
const volatile __u32 self_tgid = 0;  /* rtrace itself, never traced */
const volatile __u32 task_pid_off = 0;       /* offsetof(struct task_struct, pid) */
const volatile __u32 task_tgid_off = 0;      /* ... tgid */
const volatile __u32 task_exit_code_off = 0; /* ... exit_code */
/* offsetof(struct task_struct, pending) + offsetof(struct sigpending,
 * signal): the task's own pending signals (0: not known, not asked). */
const volatile __u32 task_pending_off = 0;
/* Wake the reader once a CPU has sent this many bytes since it last did
 * (the wake mark's share of each CPU): so at most the mark waits unwoken. */
const volatile __u64 wake_share = 1;
const volatile __u32 want_time = 1;  /* stamp records (-t, -r, -T, -c, --json) */
/* -c alone, nothing that needs each call: count calls in the kernel and
 * send no call records (task events still go). */
const volatile __u32 count_only = 0;
/* Lossless mode: a task that makes a call while this many bytes wait is
 * stopped (SIGSTOP to its process) until rtrace has read them. */
const volatile __u64 hold_mark = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24);
} events SEC(".maps");

#include "tasks.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, RT_SPECS);
	__type(key, __u32);
	__type(value, struct rt_spec);
} specs SEC(".maps");

/* Processes stopped by the lossless mode, by tgid, until rtrace sends
 * them SIGCONT (and deletes them here). The hash maps' sizes are what
 * they may hold at once, not the tid space: the kernel makes a bucket
 * per entry when the map is made (three of 65536 were 2.5 ms of the
 * start-up). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} holding SEC(".maps");

/* How many times each traced process (by tgid) has exec'd since tracing
 * began. rtrace reads a call's record after it ran: before it reads a
 * live process's memory for what the record lacks, it checks that the
 * process has not exec'd since (that memory would be another
 * program's). Absent: none; a process past max_entries is not counted
 * (its exec record says 0, and rtrace then never reads it live). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} execs SEC(".maps");

/* The memory multiplexed calls' decoders read, by call and value; as
 * many entries as rtrace fills in, set at load. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, struct rt_options);
} options SEC(".maps");

/* Requests rtrace's ioctl tables know, by code. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct rt_ioctl);
} ioctls SEC(".maps");

/* Records this CPU could not send since its last one that went out. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/* Tasks whose call's entry captures failed (a page not yet faulted in:
 * a string in a program's read-only data that nothing has touched), by
 * tid: a bit per capture, taken again at the exit, when the kernel has
 * read the memory itself. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} refetch SEC(".maps");

/* Calls that ended with ERESTART_RESTARTBLOCK (a sleep a signal
 * interrupted), by tid: the spec index whose captures their
 * restart_syscall's exit takes, the registers still holding their
 * arguments (nanosleep's time left is written then). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u32);
} restarting SEC(".maps");
const volatile __u32 nr_restart = 0, nr_restart_32 = 0;
#define ERESTART_RESTARTBLOCK 516

/* How many tasks `refetch` holds: while none, which is nearly always, an
 * exit skips the look-up (a hash look-up at every exit cost as much as
 * the rest of a short call's record). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} refetching SEC(".maps");

static __always_inline __u64 *refetch_count(void)
{
	__u32 zero = 0;
	return bpf_map_lookup_elem(&refetching, &zero);
}

/* Note that `tid`'s exit takes again the captures `bits` names
 * (`refetch`), counting it where it is new. */
static __always_inline void note_refetch(__u32 tid, __u8 bits, __u64 *pending)
{
	/* Counted when added, not when an entry a lost exit left is
	 * replaced. */
	if (bpf_map_update_elem(&refetch, &tid, &bits, BPF_NOEXIST) == 0) {
		if (pending)
			__sync_fetch_and_add(pending, 1);
	} else {
		bpf_map_update_elem(&refetch, &tid, &bits, BPF_ANY);
	}
}

/* Whether the call of `spec` that returned `ret` never returns to user
 * space because its task is being killed (SIGKILL among its own pending
 * signals: an exit_group or an exec in another thread, a kill -9):
 * ptrace, which stops no dying task, never sees its exit. Asked of
 * every exit but a never-blocking call's success (RT_SPEC2_QUICK): a
 * kill lands while a call sleeps, and may end it with success, not only
 * an error: the exit_group of a thread that a pthread_join waits for
 * wakes the joining futex (its tid cleared) as it kills the joiner. And
 * of every call that sends signals, which may have killed its own task
 * and succeeded. */
static __always_inline int dying(long ret, struct rt_spec *spec)
{
	int quick = spec && (spec->flags2 & RT_SPEC2_QUICK) && !(spec->flags & RT_SPEC_SIGNALS);
	if (!task_pending_off || (quick && (ret >= 0 || ret < -4095)))
		return 0;
	/* Read in place through the task's BTF pointer, as i386_call()
	 * reads its status. Fetched here, not passed in from the call
	 * programs: keeping theirs for this rare path cost the exit program
	 * 8 bytes of stack, past the 512 that kernels without a private
	 * stack for tracing programs (before 6.13) allow all its frames. */
	void *task = bpf_get_current_task_btf();
	__u64 pending = *(__u64 *)(task + task_pending_off);
	return (pending >> (SIGKILL - 1)) & 1;
}

/* Whether the current call came in through an i386 entry: the task's
 * TS_COMPAT status (`thread_info.status`, first in task_struct), which
 * an int $0x80 from 64-bit code sets too, its code segment being the
 * 64-bit one; the code segment where the offset is not known. */
const volatile __u32 off_task_status = 0, ts_compat = 0;
static __always_inline int i386_call(void *task, struct pt_regs *r)
{
	/* A load through the task's BTF pointer at an offset the verifier
	 * knows (a read-only constant) and checks against the task's type.
	 * bpf_probe_read_kernel here, a helper call at every entry and exit,
	 * cost a getppid counted by -c about 75 ns of its 660 (session 22). */
	if (off_task_status)
		return (*(__u32 *)(task + off_task_status) & ts_compat) != 0;
	return (r->cs & 0xffff) == 0x23;
}

/* The current task's ids as bpf_get_current_pid_tgid() gives them (tgid
 * high, tid low; in rtrace's pid namespace: ids_in_ns()), read through its BTF pointer: the call programs need
 * that pointer anyway, and each helper call is a call on every system
 * call of every task (neither helper is inlined on x86-64 6.18). */
static __always_inline __u64 task_ids(void *task)
{
	if (pid_ns_ino)
		return ids_in_ns(bpf_get_current_task());
	__u32 tid = *(__u32 *)(task + task_pid_off);
	__u32 tgid = *(__u32 *)(task + task_tgid_off);
	return (__u64)tgid << 32 | tid;
}

/* The ids of the task making the call whose registers are `regs`: its
 * CPU's note (on_cpu), or read through the task's BTF pointer and noted. */
static __always_inline __u64 current_ids(struct pt_regs *regs)
{
	__u32 zero = 0;
	struct on_cpu_task *last = bpf_map_lookup_elem(&on_cpu, &zero);
	if (last && last->regs == (__u64)regs)
		return last->ids;
	__u64 ids = task_ids(bpf_get_current_task_btf());
	if (last) {
		last->ids = ids;
		last->regs = (__u64)regs;
	}
	return ids;
}

/* Possible CPUs, set by rtrace: how many on_cpu entries there are. */
const volatile __u32 possible_cpus = 1;

static long forget_on(__u64 cpu, void *regs)
{
	__u32 zero = 0;
	struct on_cpu_task *last = bpf_map_lookup_percpu_elem(&on_cpu, &zero, cpu);
	if (last && last->regs == *(__u64 *)regs)
		last->regs = 0;
	return 0;
}

/* Drop the current task from every CPU's on_cpu: it is exiting, or its
 * ids are changing. Another CPU's entry for it cannot come back: only the
 * task itself notes it, and it is here. */
static __always_inline void forget_caller(void)
{
	__u64 regs = (__u64)bpf_task_pt_regs(bpf_get_current_task_btf());
	bpf_loop(possible_cpus, forget_on, &regs, 0);
}

/* Whether the call came in by x86-64's `syscall` instruction, told from
 * its registers alone: 64-bit code, and rcx and r11 holding the return
 * address and the flags, as the instruction leaves them. An int $0x80
 * from 64-bit code (an i386 call) leaves them as the program had them,
 * so only one made to pass for a `syscall` (rcx set to the address after
 * it, r11 to the flags) is taken for one. That is the price of not
 * asking the task's TS_COMPAT (a helper call, for its pointer) where
 * nothing else is needed: a quiet entry, a whole call's exit, a call not
 * selected, -c's count in the kernel (at the entry). The registers are the call's own at its entry, and still at
 * the exits of the calls those paths take: none of them changes a
 * register but the result (the calls that do, exec and sigreturn, are
 * always selected and never whole), and any other change fails the test
 * and takes the path that asks the task. */
static __always_inline int from_syscall_insn(struct pt_regs *r)
{
	return (r->cs & 0xffff) == 0x33 && r->rcx == r->rip && r->r11 == r->eflags;
}

#include "counts.bpf.h"

static __always_inline __u64 *lost_count(void)
{
	__u32 zero = 0;
	return bpf_map_lookup_elem(&lost, &zero);
}

/* Bytes this CPU has sent since it last woke the reader. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} unwoken SEC(".maps");

/* Whether the record of `size` bytes about to be sent wakes the reader:
 * once for each wake_share bytes this CPU sends, so at most the mark's
 * worth (a share from each CPU) waits without a wakeup. A wakeup per
 * record would cost the tracee more than the record itself (an
 * interrupt to raise, which in a VM is an exit to the host); asking the
 * ring how much waits, to wake once as that crosses the mark, cost a
 * traced getppid 5% of its time (a helper call at each record), where a
 * per-CPU count is a load and a store. The reader also polls. */
static __always_inline __u64 wake_flags(__u64 size)
{
	__u32 zero = 0;
	__u64 *sent_bytes = bpf_map_lookup_elem(&unwoken, &zero);
	if (!sent_bytes)
		return BPF_RB_NO_WAKEUP;
	/* The ring's own header of each record: 8 bytes. */
	*sent_bytes += size + 8;
	if (*sent_bytes < wake_share)
		return BPF_RB_NO_WAKEUP;
	*sent_bytes = 0;
	return BPF_RB_FORCE_WAKEUP;
}

static __always_inline void header(struct rt_event *ev, __u16 kind, __u32 tid, __u32 tgid)
{
	__u64 *l = lost_count();
	ev->kind = kind;
	ev->flags = 0;
	ev->size = sizeof(*ev);
	ev->tid = tid;
	ev->tgid = tgid;
	/* Two clock reads a call cost the tracee as much as the rest of the
	 * record: only when something shows the time. */
	ev->time = want_time ? bpf_ktime_get_ns() : 0;
	ev->lost = l ? *l : 0;
	ev->ncaps = 0;
	ev->cpu = bpf_get_smp_processor_id();
}

static __always_inline void sent(struct rt_event *ev)
{
	__u64 *l = lost_count();
	if (l && ev->lost)
		*l -= ev->lost;
}

static __always_inline void dropped(void)
{
	__u64 *l = lost_count();
	if (l)
		*l += 1;
}

/* Send a header-only record, with the ring's `wake` flag. */
static __always_inline void send_plain_waking(struct rt_event *tmpl, __u64 wake)
{
	struct rt_event *ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		dropped();
		return;
	}
	__builtin_memcpy(ev, tmpl, sizeof(*ev));
	sent(ev);
	bpf_ringbuf_submit(ev, wake);
}

/* Send a header-only record. */
static __always_inline void send_plain(struct rt_event *tmpl)
{
	send_plain_waking(tmpl, wake_flags(sizeof(*tmpl)));
}

#include "files.bpf.h"
#include "usbmon.bpf.h"
#include "enablers.bpf.h"
#include "captures.bpf.h"

/* The captures of `caps` due now (`info`: capture_next()'s bits; `again`:
 * the entry's faulted ones, at the exit; s->only: the index of the one
 * due, or RT_MAX_CAPS to try each), into the record at `off`; the
 * ones that fault are noted for the exit, by tid. Returns the offset after
 * them. */
static __always_inline __u32 take_captures(struct scratch *s, struct rt_spec *caps, __u32 off,
					   __u32 info, __u8 again, __u64 *pending, __u32 tid)
{
	asm volatile("" ::: "memory");
	__u32 only = s->only;
	struct caps_ctx each = {
		.s = s,
		.spec = caps,
		.off = off,
		.info = info,
		.again = again,
	};
	if (only < RT_MAX_CAPS) {
		/* capture_next()'s turn for it, without the loop. */
		__u64 packed = 0;
		__builtin_memcpy(&packed, &caps->caps[only], sizeof(packed));
		s->cap_faulted = 0;
		each.off = capture_one(s, off, packed, only | info);
		s->caps_faulted = s->cap_faulted ? 1 << only : 0;
	} else {
		bpf_loop(RT_MAX_CAPS, capture_next, &each, 0);
		s->caps_faulted = each.faulted;
	}
	/* Read back from map memory, so that the two paths meet as one
	 * state for the verifier. */
	asm volatile("" ::: "memory");
	__u8 faulted = s->caps_faulted;
	if (faulted) {
		s->ev.flags |= RT_REFETCH;
		note_refetch(tid, faulted, pending);
	}
	return each.off;
}

/* The record's captures and what follows them, from what send_call()
 * left in the scratch map (the call's spec at s->spec_at, the spec whose
 * captures are taken at s->caps_at: RT_SPECS for none; the record's
 * header and arguments in s->ev): a second half that reads all it needs
 * from map memory, where the verifier tracks no values, so the many
 * paths through the first half (i386 or not, a restart, a dying task)
 * meet here as one state, not each checked through all of this. */
/* At a successful exit: the identity of the new fd the call returned
 * (s->ev.ret), where rtrace names one by it: under -y, a call whose
 * result is always an fd (`ret_fd`: RT_SPEC_RET_FD) and bpf(2)'s commands
 * that return one (bpf_fd_cmds); with or without -y, an ioctl request
 * that returns one (RT_NEW_FD: a pty's peer, named from it where /proc no
 * longer can). And an ioctl's user_events enable word, noted
 * (enablers.bpf.h). A function of its own: its branches are checked
 * once, not in each of the exit program's paths. */
__noinline __u32 new_fd_id(struct scratch *s, __u32 off, __u32 ret_fd)
{
	if (!s)
		return off;
	long ret = s->ev.ret;
	__u32 compat = s->ev.flags & RT_COMPAT;
	__s64 nr = s->ev.nr;
	int named = fd_ids && ret_fd;
	if (!named && fd_ids && nr == (compat ? nr_bpf_32 : nr_bpf)) {
		__u32 cmd = s->ev.args[0];
		named = cmd < 64 && (bpf_fd_cmds >> cmd) & 1;
	}
	if (!named && nr == (compat ? nr_ioctl_32 : nr_ioctl)) {
		__u32 req = s->ev.args[1];
		struct rt_ioctl *known = bpf_map_lookup_elem(&ioctls, &req);
		named = known && (known->when & RT_NEW_FD);
		/* (Here rather than a call of the exit's own: each call
		 * there costs the exit program's checks in every path.) */
		note_enable_word(s);
	}
	return named && ret >= 0 ? file_id(s, off, ret) : off;
}

static __always_inline void send_captures(struct scratch *s, __u16 kind, __u32 tid)
{
	struct rt_event *ev = &s->ev;
	__u32 spec_at = s->spec_at, caps_at = s->caps_at;
	struct rt_spec *spec = spec_at < RT_SPECS ? bpf_map_lookup_elem(&specs, &spec_at) : 0;
	struct rt_spec *caps = caps_at < RT_SPECS ? bpf_map_lookup_elem(&specs, &caps_at) : 0;
	__u32 compat = ev->flags & RT_COMPAT;
	long ret = ev->ret;
	__u64 *args = ev->args;
	__u8 when = kind == RT_ENTER ? RT_AT_ENTER : RT_AT_EXIT;
	__u32 off = s->off;
	if (caps && caps->ncaps) {
		/* At the exit, the entry's failed captures again. */
		__u8 again = 0;
		__u64 *pending = refetch_count();
		if (kind == RT_LEAVE && pending && *pending) {
			__u8 *m = bpf_map_lookup_elem(&refetch, &tid);
			if (m) {
				again = *m;
				if (bpf_map_delete_elem(&refetch, &tid) == 0)
					__sync_fetch_and_add(pending, -1);
			}
		}
		/* A successful exec's entry pointed into memory that is gone:
		 * its strings are the new program's (exec_strings()), not
		 * copied again. Done here, before the loop, with nothing kept
		 * across it: a flag carried through it split the verifier's
		 * states (the exit program's load took a third longer). */
		if (kind == RT_LEAVE && again && (caps->flags & RT_SPEC_EXEC) && ret == 0) {
			again = 0;
			off = exec_strings(s, off);
		}
		/* Whether the fd's data is a plain file's (or a pipe's, ...) costs
		 * a walk of the task's fd table: only when a capture is taken
		 * now (read's at its exit, write's at its entry). The one
		 * capture due, if only one is (and no entry's is taken again,
		 * and no netlink answer may need a second piece), is taken by a
		 * direct call: bpf_loop's turns cost a newfstatat's path or
		 * stat 30-60 ns (session 26). */
		__u8 now = again;
		/* How many are due, and the sum of their indices: the one's
		 * index where one is (`when` has RT_AT_ENTER in bit 0,
		 * RT_AT_EXIT in bit 1). Counted without branches, which would
		 * split the verifier's states at each capture. */
		__u32 due = 0, only = 0, shift = kind == RT_ENTER ? 0 : 1;
		for (int i = 0; i < RT_MAX_CAPS; i++) {
			if (i >= caps->ncaps)
				break;
			__u32 bit = (caps->caps[i].when >> shift) & 1;
			due += bit;
			only += bit * i;
			now |= caps->caps[i].when & when;
		}
		/* Kept in map memory, where the verifier tracks no value: the
		 * loop's exits, each with its own range of the two, meet as
		 * one state. */
		s->only = due == 1 && !again && !(caps->flags2 & RT_SPEC2_NETLINK) ? only
										   : RT_MAX_CAPS;
		/* Data no longer than is printed is copied whole either way:
		 * its file is not asked for. (The calls with RT_SPEC_FD_DATA
		 * take their length third; at the exit the result is what
		 * moved.) */
		__u64 moved = args[2];
		if (kind == RT_LEAVE)
			moved = ret < 0 ? 0 : (__u64)ret < moved ? (__u64)ret : moved;
		__u32 shorten = short_data && now && (caps->flags & RT_SPEC_FD_DATA) &&
				moved > short_data && plain_data(args[0]);
		if (caps_at == spec_at)
			for (int i = 0; i < 6; i++)
				s->cargs[i] = args[i];
		/* Nothing to take now (read's entry, stat's entry: their
		 * captures are at the exit): the loop would find each capture
		 * not due, at 150-250 ns a record (session 24). An ioctl's
		 * and an option's captures are due at both. */
		if (now)
			off = take_captures(s, caps, off,
					    (kind == RT_ENTER) << 16 | compat << 24 | shorten << 25 |
						    (caps->flags2 & RT_SPEC2_NETLINK) << 26,
					    again, pending, tid);
	}
	if (kind == RT_LEAVE && spec && spec->wanted)
		off = usbmon_exit(s, off);
	if (fd_ids && spec && kind == RT_ENTER && spec->fd_args) {
		for (int i = 0; i < 6; i++)
			if (spec->fd_args & (1 << i))
				off = file_id(s, off, (int)args[i]);
	}
	if (kind == RT_LEAVE && ret >= 0)
		off = new_fd_id(s, off, spec && (spec->flags & RT_SPEC_RET_FD));
	if (kind == RT_ENTER && uev_seen)
		off = enable_words(s, off);
	if (fd_ids && spec && kind == RT_LEAVE && spec->pair_arg && ret == 0) {
		/* The kernel has just written them: the page is there. */
		int pair[2] = {-1, -1};
		bpf_probe_read_user(pair, sizeof(pair), (void *)args[(spec->pair_arg - 1) & 7]);
		off = file_id(s, off, pair[0]);
		off = file_id(s, off, pair[1]);
	}
	if (spec && kind == RT_LEAVE && (spec->flags & (RT_SPEC_DIRENTS | RT_SPEC_DIRENTS64)) &&
	    ret > 0) {
		__u32 at = spec->flags & RT_SPEC_DIRENTS64 ? 16 | 19 << 8
			   : compat			     ? 8 | 10 << 8
							     : 16 | 18 << 8;
		off = dirent_count(s, off, args[1], ret, at);
	}
	if (off == 0) {
		send_plain(ev);
		return;
	}
	ev->size = sizeof(*ev) + off;
	__u64 size = ev->size;
	asm volatile("" : "+r"(size));
	if (size > sizeof(struct rt_event) + RT_AREA + RT_CAP_MAX)
		return;
	sent(ev);
	if (bpf_ringbuf_output(&events, s, size, wake_flags(size)) != 0) {
		ev->lost = 0;
		dropped();
	}
}

/* Whether the call of `spec` is sent whole from its exit: nothing
 * shows times, and it cannot block and copies nothing at its entry
 * (RT_SPEC2_WHOLE). Asked where it matters, not kept in a variable: one
 * live across send_call() would split the verifier's states there. */
static __always_inline int is_whole(struct rt_spec *spec)
{
	return !want_time && spec && (spec->flags2 & RT_SPEC2_WHOLE);
}

/* Whether the entry of call `nr` has nothing to send, whichever task
 * makes it: a call sent whole from its exit (or not traced), under
 * x86-64's meaning of its number when it came in by `syscall`
 * (from_syscall_insn()), and otherwise under i386's too (which of the
 * two applies is then known only from the task). Asked before the task's
 * ids and the traced table; send_call() would return at once for it. */
static __always_inline int quiet_entry(long nr, struct pt_regs *r)
{
	if (nr < 0 || nr >= RT_I386_BASE || count_only || hold_mark)
		return 0;
	__u32 at = nr, at32 = nr + RT_I386_BASE;
	struct rt_spec *spec = bpf_map_lookup_elem(&specs, &at);
	if (!spec || (spec->wanted && !is_whole(spec)))
		return 0;
	if (from_syscall_insn(r))
		return 1;
	struct rt_spec *spec32 = bpf_map_lookup_elem(&specs, &at32);
	return spec32 && (!spec32->wanted || is_whole(spec32));
}

/* The call's arguments and where it was made, from `r`: an i386 call's
 * registers are its arguments' low halves. */
static __always_inline void registers(struct rt_event *ev, struct pt_regs *r, int compat)
{
	__u64 *args = ev->args;
	if (compat) {
		args[0] = r->rbx & 0xffffffff;
		args[1] = r->rcx & 0xffffffff;
		args[2] = r->rdx & 0xffffffff;
		args[3] = r->rsi & 0xffffffff;
		args[4] = r->rdi & 0xffffffff;
		args[5] = r->rbp & 0xffffffff;
	} else {
		args[0] = r->rdi;
		args[1] = r->rsi;
		args[2] = r->rdx;
		args[3] = r->r10;
		args[4] = r->r8;
		args[5] = r->r9;
	}
	ev->ip = r->rip;
	ev->sp = r->rsp;
}

/* The exit record of a call sent whole (RT_SPEC2_WHOLE) that copies
 * nothing: written straight into the ring, where send_call()'s records
 * are staged in the scratch map and copied (the staging, the copy and
 * the captures' checks were a third of a traced getppid's program
 * time). */
static __always_inline void send_whole(struct pt_regs *r, long nr, long ret, int compat,
				       __u32 tid, __u32 tgid)
{
	struct rt_event *ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		dropped();
		return;
	}
	header(ev, RT_LEAVE, tid, tgid);
	ev->flags = RT_WHOLE | (compat ? RT_COMPAT : 0);
	ev->nr = nr;
	registers(ev, r, compat);
	ev->ret = ret;
	sent(ev);
	bpf_ringbuf_submit(ev, wake_flags(sizeof(*ev)));
}

/* The exit of an x86-64 call (from_syscall_insn()) that needs nothing
 * but its registers: one not selected (nothing to send), or a success of
 * a call sent whole that copies nothing (send_whole()). Returns whether
 * it was one; the others take send_call(), which asks the task. */
static __always_inline int settled_at_exit(struct pt_regs *r, long ret, __u64 id)
{
	long nr = (long)r->orig_rax;
	if (nr < 0 || nr >= RT_I386_BASE)
		return 0;
	__u32 at = nr;
	struct rt_spec *spec = bpf_map_lookup_elem(&specs, &at);
	if (!spec)
		return 0;
	if (!spec->wanted)
		return 1;
	__u64 failed = (__u64)ret >> 63;
	asm volatile("" : "+r"(failed));
	if (!is_whole(spec) || spec->ncaps || failed)
		return 0;
	send_whole(r, nr, ret, 0, (__u32)id, id >> 32);
	return 1;
}

/* The captures of the call of spec `index` taken at its entry, a bit
 * each (a multiplexer's subcall's: all of them). */
static __always_inline __u8 entry_captures(__u32 index)
{
	struct rt_spec *spec = bpf_map_lookup_elem(&specs, &index);
	if (!spec || !spec->wanted)
		return 0;
	__u8 entry = spec->flags & (RT_SPEC_SOCKETCALL | RT_SPEC_IPC) ? 0xff : 0;
	for (int i = 0; i < RT_MAX_CAPS; i++) {
		if (i >= spec->ncaps)
			break;
		if (spec->caps[i].when & RT_AT_ENTER)
			entry |= 1 << i;
	}
	return entry;
}

/* A call seccomp settled before the kernel ran it (SECCOMP_RET_ERRNO or
 * _TRAP, a user-notification supervisor's answer): the kernel fires no
 * sys_enter for it, only sys_exit, so its entry's captures were never
 * taken (a path would show as its pointer). Its exit takes them: the
 * call did not run, so the memory is as the program gave it. Told at
 * the exit of a task with a seccomp filter whose entry bit (`entered`)
 * is clear. A function of its own: its loop is checked once, not in
 * each of the exit program's paths. */
__noinline int note_settled(__u32 index, __u32 tid)
{
	__u8 entry = entry_captures(index);
	if (entry)
		note_refetch(tid, entry, refetch_count());
	return 0;
}

/* Where a task's seccomp mode is (`task_struct.seccomp.mode`; 0: not
 * known, and no call is taken for a settled one), and the mode of a
 * task with a filter. */
const volatile __u32 off_task_seccomp_mode = 0, seccomp_mode_filter = 0;

/* Whether `task` (the current task's BTF pointer) has a seccomp filter:
 * only its calls can be settled before their entry. */
static __always_inline int seccomp_filtered(void *task)
{
	return off_task_seccomp_mode &&
	       *(int *)(task + off_task_seccomp_mode) == (int)seccomp_mode_filter;
}

/* `r` is the kernel's pointer, typed by the tracepoint (tp_btf): its
 * fields are read in place. Copying the registers out first with
 * bpf_probe_read_kernel cost a traced getppid a sixth of its time (the
 * helper call, whatever the size). */
static __always_inline void send_call(void *task, struct pt_regs *r, __u16 kind,
				      long nr_or_ret, __u32 tid, __u32 tgid)
{
	int compat = i386_call(task, r);
	/* An i386 call's result is its register's low half, as ptrace reads
	 * it: a sigreturn restores a 32-bit eax the kernel does not widen
	 * (-EINTR would be 4294967292). */
	if (kind == RT_LEAVE && compat)
		nr_or_ret = (int)nr_or_ret;
	long nr = kind == RT_ENTER ? nr_or_ret : (long)r->orig_rax;
	__u32 index = (__u32)nr + (compat ? RT_I386_BASE : 0);
	struct rt_spec *spec = 0;
	if (nr >= 0 && nr < RT_I386_BASE)
		spec = bpf_map_lookup_elem(&specs, &index);
	if (spec && !spec->wanted)
		return;
	if (is_whole(spec)) {
		if (kind == RT_ENTER)
			return;
		/* Nothing to copy and a success (a failure asks whether its
		 * task is dying): the record needs none of what follows. The
		 * result's sign is tested apart from the result, which the
		 * verifier would otherwise know as two ranges below and check
		 * the rest for each. */
		__u64 failed = (__u64)nr_or_ret >> 63;
		asm volatile("" : "+r"(failed));
		if (!spec->ncaps && !failed) {
			send_whole(r, nr, nr_or_ret, compat, tid, tgid);
			return;
		}
	}
	__u32 zero = 0;
	struct scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return;
	__u32 spec_at = spec ? index : RT_SPECS;
	if (kind == RT_LEAVE && spec && nr_or_ret == -ERESTART_RESTARTBLOCK && spec->ncaps) {
		bpf_map_update_elem(&restarting, &tid, &index, BPF_ANY);
	} else if (kind == RT_LEAVE && nr == (compat ? nr_restart_32 : nr_restart)) {
		__u32 *first = bpf_map_lookup_elem(&restarting, &tid);
		if (first) {
			__u32 was = *first;
			bpf_map_delete_elem(&restarting, &tid);
			struct rt_spec *its = bpf_map_lookup_elem(&specs, &was);
			if (its) {
				spec = its;
				spec_at = was;
			}
		}
	}
	struct rt_event *ev = &s->ev;
	header(ev, kind, tid, tgid);
	ev->flags = compat ? RT_COMPAT : 0;
	if (kind == RT_LEAVE && dying(nr_or_ret, spec))
		ev->flags |= RT_DYING;
	if (is_whole(spec))
		ev->flags |= RT_WHOLE;
	ev->nr = nr;
	/* Kept in the record, not on the stack: the captures' calls nest
	 * deep, and older kernels allow them 512 bytes of stack in all. */
	registers(ev, r, compat);
	ev->ret = kind == RT_LEAVE ? nr_or_ret : 0;
	__u8 when = kind == RT_ENTER ? RT_AT_ENTER : RT_AT_EXIT;
	__u32 off = 0;
	/* i386's socketcall and ipc: the captures of the call they stand
	 * for, from its arguments. */
	__u32 caps_at = spec_at;
	if (compat && spec && (spec->flags & (RT_SPEC_SOCKETCALL | RT_SPEC_IPC))) {
		off = subcall_args(s, off, !!(spec->flags & RT_SPEC_IPC) | when << 8);
		__u32 inner = s->subcall;
		struct rt_spec *sub = inner ? bpf_map_lookup_elem(&specs, &inner) : 0;
		if (sub && sub->ncaps)
			caps_at = inner;
	}
	/* A call that is not sent whole (whose captures are all its
	 * exit's): note its entry, or find at its exit that seccomp settled
	 * it (note_settled()). Every exit forgets the entry, a sigreturn's
	 * too, whose exit has no number (orig_ax -1) and so no spec. */
	if (seccomp_filtered(task)) {
		int partial = spec && !is_whole(spec);
		if (kind == RT_ENTER) {
			if (partial)
				note_entered(tid);
		} else if (!forget_entered(tid) && partial) {
			note_settled(spec_at, tid);
		}
	}
	s->spec_at = spec_at;
	s->caps_at = caps_at;
	s->off = off;
	/* What the second half needs is read back from the map: the
	 * compiler must not carry it across in registers. */
	asm volatile("" ::: "memory");
	send_captures(s, kind, tid);
}

/* Lossless mode: hold the calling process while rtrace is far behind.
 * The signal takes effect when the task returns to user space, after
 * this call's exit record; the records already in flight fit in the
 * rest of the ring. */
static __always_inline void hold_if_behind(__u32 tid, __u32 tgid)
{
	if (!hold_mark || bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) < hold_mark)
		return;
	if (bpf_map_lookup_elem(&holding, &tgid))
		return;
	__u8 one = 1;
	bpf_map_update_elem(&holding, &tgid, &one, BPF_ANY);
	bpf_send_signal(SIGSTOP);
	struct rt_event ev = {};
	header(&ev, RT_HELD, tid, tgid);
	send_plain(&ev);
}

/* The call tracepoints are BTF-typed (tp_btf): ctx[0] is the kernel's
 * struct pt_regs *, read in place; ctx[1] the call's number at the entry,
 * its result at the exit. */
SEC("tp_btf/sys_enter")
int rtrace_sys_enter(__u64 *ctx)
{
	struct pt_regs *regs = (struct pt_regs *)ctx[0];
	long nr = (long)ctx[1];
	if (quiet_entry(nr, regs))
		return 0;
	if (count_only) {
		count_enter(regs, nr, current_ids(regs));
		return 0;
	}
	__u64 id = current_ids(regs);
	if (!is_traced((__u32)id, id >> 32))
		return 0;
	hold_if_behind((__u32)id, id >> 32);
	if (pid_ns_ino)
		note_exec_caller(nr, id, from_syscall_insn(regs));
	send_call(bpf_get_current_task_btf(), regs, RT_ENTER, nr, (__u32)id, id >> 32);
	return 0;
}

SEC("tp_btf/sys_exit")
int rtrace_sys_exit(__u64 *ctx)
{
	struct pt_regs *regs = (struct pt_regs *)ctx[0];
	long ret = (long)ctx[1];
	if (count_only) {
		count_exit(current_ids(regs), ret);
		return 0;
	}
	__u64 id = current_ids(regs);
	if (!is_traced((__u32)id, id >> 32))
		return 0;
	if (from_syscall_insn(regs) && settled_at_exit(regs, ret, id))
		return 0;
	send_call(bpf_get_current_task_btf(), regs, RT_LEAVE, ret, (__u32)id, id >> 32);
	return 0;
}

#include "task_events.bpf.h"
