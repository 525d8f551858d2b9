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

/* The memory multiplexed calls' decoders read, by call and value. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u64);
	__type(value, struct rt_option);
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

/* Whether a call that failed with `ret` did because its task is being
 * killed (SIGKILL among its own pending signals: an exit_group or an exec
 * in another thread, a kill -9): the call never returns to user space,
 * and ptrace, which stops no dying task, never sees its exit. Asked of
 * failed calls only, which a killed wait is (a read of the task costs a
 * call as much as the rest of its record), and of every call that sends
 * signals (`any`), which may have killed its own task and succeeded. */
static __always_inline int dying(long ret, int any)
{
	if (!task_pending_off || (!any && (ret >= 0 || ret < -4095)))
		return 0;
	__u64 pending = 0;
	bpf_probe_read_kernel(&pending, sizeof(pending),
			      (void *)bpf_get_current_task() + task_pending_off);
	return (pending >> (SIGKILL - 1)) & 1;
}

/* Whether the current call came in through an i386 entry: the task's
 * TS_COMPAT status (`thread_info.status`, first in task_struct), which
 * an int $0x80 from 64-bit code sets too, its code segment being the
 * 64-bit one; the code segment where the offset is not known. */
const volatile __u32 off_task_status = 0, ts_compat = 0;
static __always_inline int i386_call(struct pt_regs *r)
{
	__u32 status = 0;
	if (off_task_status &&
	    !bpf_probe_read_kernel(&status, sizeof(status),
				   (void *)bpf_get_current_task() + off_task_status))
		return (status & ts_compat) != 0;
	return (r->cs & 0xffff) == 0x23;
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

/* A NULL-terminated array of pointers (argv, envp) and, if `strings`, the
 * strings they point at. */
#define VEC_STRINGS 0x40000

/* vector()'s state for bpf_loop: the verifier checks a bpf_loop callback
 * once, where a loop of 64 iterations is checked 64 times. */
struct vec_ctx {
	struct scratch *s;
	__u64 addr;
	__u32 width;
	__u32 n;       /* pointers read */
	__u32 null;    /* the last of them is the NULL that ends the array */
	__u32 off;
	__u32 meta;
};

static long vec_pointer(__u32 i, void *data)
{
	struct vec_ctx *v = data;
	struct scratch *s = v->s;
	__u64 p = 0;
	if (!s || i >= RT_VEC_MAX)
		return 1;
	if (bpf_probe_read_user(&p, v->width == 4 ? 4 : 8, (void *)(v->addr + (__u64)i * v->width)))
		return 1;
	__u64 at = i;
	asm volatile("" : "+r"(at));
	s->ptrs[at & (RT_VEC_MAX - 1)] = p;
	v->n = i + 1;
	v->null = !p;
	return !p;
}

static long vec_string(__u32 i, void *data)
{
	struct vec_ctx *v = data;
	struct scratch *s = v->s;
	if (!s || i >= v->n)
		return 1;
	__u64 at = i;
	asm volatile("" : "+r"(at));
	__u64 p = s->ptrs[at & (RT_VEC_MAX - 1)];
	if (!p)
		return 1;
	v->off = piece(s, v->off, p, RT_VEC_STR, v->meta | PIECE_STR);
	return 0;
}

__noinline __u32 vector(struct scratch *s, __u32 off, __u64 addr, __u32 meta)
{
	if (!s)
		return off;
	struct vec_ctx v = {
		.s = s,
		.addr = addr,
		.width = meta & VEC_COMPAT ? 4 : 8,
		.off = off,
		.meta = meta & 0xffff,
	};
	bpf_loop(RT_VEC_MAX, vec_pointer, &v, 0);
	/* The array itself, with its NULL where it was reached. */
	v.off = piece(s, v.off, addr, v.n * v.width, v.meta);
	if (meta & VEC_STRINGS)
		bpf_loop(RT_VEC_MAX, vec_string, &v, 0);
	return v.off;
}

/* struct iovec arrays, struct user_msghdr and struct mmsghdr: what the
 * kernel's declarations say a call's pointer is, followed one level. An
 * i386 call's (VEC_COMPAT in meta) are the compat layouts: 32-bit
 * pointers and lengths. */
#define IOV_MAX_COPIED 16
#define MSG_NAME_MAX 128
#define MSG_CONTROL_MAX 1024
#define MMSG_MAX 8
#define USER_MSGHDR 56
#define MMSGHDR 64
#define COMPAT_MSGHDR 28
#define COMPAT_MMSGHDR 32

/* iovecs()'s state for bpf_loop: one turn verified, not sixteen. */
struct iov_ctx {
	struct scratch *s;
	__u64 budget;
	__u32 n;
	__u32 off;
	__u32 meta;
	__u32 compat;
};

/* The buffer of iovec `i`, read into s->ptrs: two words each, or one
 * word holding an i386 iovec's two halves. */
static long iov_buffer(__u32 i, void *data)
{
	struct iov_ctx *v = data;
	struct scratch *s = v->s;
	if (!s || i >= v->n || !v->budget)
		return 1;
	__u64 at = i;
	asm volatile("" : "+r"(at));
	__u64 base, len;
	if (v->compat) {
		__u64 both = s->ptrs[at & (RT_VEC_MAX - 1)];
		base = (__u32)both;
		len = both >> 32;
	} else {
		base = s->ptrs[(2 * at) & (RT_VEC_MAX - 1)];
		len = s->ptrs[(2 * at + 1) & (RT_VEC_MAX - 1)];
	}
	__u64 take = len < v->budget ? len : v->budget;
	v->off = piece(s, v->off, base, take, v->meta);
	/* A buffer that could not be read leaves the budget to the others
	 * (an iovec of length -1 ahead of real ones). */
	if (s->last_fault)
		take = 0;
	v->budget -= take;
	return 0;
}

/* `n` iovecs at `vec` (n in the low 16 bits of `n_budget`) and their
 * buffers, at most `n_budget >> 16` bytes of them in all. */
__noinline __u32 iovecs(struct scratch *s, __u32 off, __u64 vec, __u64 n_budget, __u32 meta)
{
	if (!s || !vec)
		return off;
	__u32 n = n_budget & 0xffff;
	__u32 width = meta & VEC_COMPAT ? 8 : 16;
	__u32 pmeta = meta & 0xffff;
	if (n > IOV_MAX_COPIED)
		n = IOV_MAX_COPIED;
	__u64 *iov = s->ptrs;
	off = piece(s, off, vec, n * width, pmeta);
	if (bpf_probe_read_user(iov, (n & (IOV_MAX_COPIED * 2 - 1)) * width, (void *)vec) != 0) {
		/* The iovecs before the page that faulted, and their buffers,
		 * as the decoder shows them (piece() kept that part too). */
		__u32 readable = (PIECE_PAGE - (vec & (PIECE_PAGE - 1))) / width;
		if (n > readable)
			n = readable;
		/* Keep older verifiers (6.1's) sure of the bound whatever the
		 * compiler made of the comparisons: the mask stays. */
		asm volatile("" : "+r"(n));
		n &= IOV_MAX_COPIED * 2 - 1;
		if (!n || bpf_probe_read_user(iov, n * width, (void *)vec) != 0)
			return off;
	}
	struct iov_ctx v = {
		.s = s,
		.budget = n_budget >> 16,
		.n = n,
		.off = off,
		.meta = pmeta,
		.compat = width == 8,
	};
	bpf_loop(IOV_MAX_COPIED, iov_buffer, &v, 0);
	return v.off;
}

/* A struct user_msghdr at `addr` (a struct compat_msghdr with
 * VEC_COMPAT): itself, its name, its iovecs and their buffers (at most
 * `budget` bytes) and its control data. */
__noinline __u32 msghdr(struct scratch *s, __u32 off, __u64 addr, __u64 budget, __u32 meta)
{
	if (!s)
		return off;
	int compat = meta & VEC_COMPAT;
	__u32 pmeta = meta & 0xffff;
	__u32 size = compat ? COMPAT_MSGHDR : USER_MSGHDR;
	/* msg_name, msg_namelen, msg_iov, msg_iovlen, msg_control,
	 * msg_controllen, msg_flags: seven words of either width. */
	__u64 *m = s->msg;
	if (compat) {
		/* The 28 bytes in the first four words, then widened from the
		 * top down, each word read before it is overwritten. */
		if (bpf_probe_read_user(m, COMPAT_MSGHDR, (void *)addr) != 0)
			return piece(s, off, addr, size, pmeta);
		for (int i = 6; i >= 0; i--) {
			__u32 word;
			__builtin_memcpy(&word, (__u8 *)m + 4 * i, sizeof(word));
			m[i] = word;
		}
	} else if (bpf_probe_read_user(m, USER_MSGHDR, (void *)addr) != 0) {
		return piece(s, off, addr, size, pmeta);
	}
	off = piece(s, off, addr, size, pmeta);
	__u32 namelen = (__u32)m[1];
	__u64 control = m[4], controllen = m[5];
	if (m[0] && namelen)
		off = piece(s, off, m[0], namelen < MSG_NAME_MAX ? namelen : MSG_NAME_MAX, pmeta);
	__u64 iovlen = m[3] < IOV_MAX_COPIED ? m[3] : IOV_MAX_COPIED;
	off = iovecs(s, off, m[2], iovlen | budget << 16, meta);
	if (control && controllen)
		off = piece(s, off, control,
			    controllen < MSG_CONTROL_MAX ? controllen : MSG_CONTROL_MAX, pmeta);
	return off;
}

#include "files.bpf.h"
#include "usbmon.bpf.h"

/* A struct sock_fprog at `addr` (struct sock_fprog32 for an i386 call:
 * VEC_COMPAT in meta) and its first instructions, at most `max` bytes of
 * them: as many as the decoder shows. */
__noinline __u32 fprog(struct scratch *s, __u32 off, __u64 addr, __u32 max, __u32 meta)
{
	if (!s)
		return off;
	__u32 size = meta & VEC_COMPAT ? 8 : 16;
	__u32 pmeta = meta & 0xffff;
	__u64 raw[3] = {};
	if (bpf_probe_read_user(raw, size & 24, (void *)addr) != 0)
		return piece(s, off, addr, size, pmeta);
	off = piece(s, off, addr, size, pmeta);
	/* len, then the pointer: at 8, or at 4 in the 32-bit struct. */
	__u64 insns = (raw[0] & 0xffff) * 8;
	__u64 filter = meta & VEC_COMPAT ? raw[0] >> 32 : raw[1];
	if (insns > max)
		insns = max;
	return piece(s, off, filter, insns, pmeta);
}

/* The array behind a pointer member of the ioctl argument at `addr`, as
 * many units as another member counts (`known`'s ptr_* fields), at most
 * the bytes in meta's bits 32 and up. meta's low 16 bits: the argument
 * index and the phase; VEC_COMPAT for an i386 caller. */
__noinline __u32 pointed_array(struct scratch *s, __u32 off, struct rt_ioctl *known, __u64 addr,
			       __u64 meta)
{
	if (!s || !known)
		return off;
	int compat = meta & VEC_COMPAT;
	__u32 at = compat ? known->ptr_off32 : known->ptr_off;
	if (at == 0xffff)
		return off;
	__u64 array = 0;
	__u32 count = 0;
	if (bpf_probe_read_user(&array, compat ? 4 : 8, (void *)addr + at) ||
	    bpf_probe_read_user(&count, sizeof(count), (void *)addr + known->pcount_off) ||
	    !array)
		return off;
	if (known->pcount_bytes < 4)
		count &= (1u << (known->pcount_bytes * 8)) - 1;
	if (count > known->ptr_max)
		count = known->ptr_max;
	__u64 bytes = (__u64)count * known->ptr_unit;
	__u64 most = meta >> 32;
	return piece(s, off, array, bytes < most ? bytes : most, meta & 0xffff);
}

/* One capture of a call's spec, `packed` (a struct rt_capture_spec),
 * into the record at `off`. A function of its own, verified once rather
 * than in every iteration and both programs. info: the capture's index,
 * bit 8 that the entry's copy failed and is taken now, bit 16 an entry,
 * bit 24 an i386 call, bit 25 a plain file's data (short_data bytes). The registers are in s->ev (args; ret at an exit). */
__noinline __u32 capture_one(struct scratch *s, __u32 off, __u64 packed, __u32 info)
{
	if (!s)
		return off;
	int again = (info >> 8) & 1, compat = (info >> 24) & 1;
	__u16 kind = (info >> 16) & 1 ? RT_ENTER : RT_LEAVE;
	__u8 when = kind == RT_ENTER ? RT_AT_ENTER : RT_AT_EXIT;
	long nr_or_ret = s->ev.ret;
	struct rt_capture_spec c;
	__builtin_memcpy(&c, &packed, sizeof(c));
	__u64 *args = s->ev.args;
	__u64 addr = c.kind == RT_CAP_STACK ? s->ev.sp + c.elem : args[c.arg & 7];
	__u32 want = c.max;
	if (!addr)
		return off;
	if ((info >> 25) & 1 && (c.kind == RT_CAP_ARGLEN || c.kind == RT_CAP_RETLEN) &&
	    want > short_data)
		want = short_data;
	/* What the piece is filed under: the entry's copy taken
	 * late is still the entry's. */
	__u8 phase = when;
	if (c.kind == RT_CAP_IOCTL) {
		__u32 req = args[c.len_arg & 7];
		__u32 dir = req >> 30, size = (req >> 16) & 0x3fff, str = 0;
		/* _IOC_WRITE: the kernel reads it; _IOC_READ: writes it. */
		int now = kind == RT_ENTER ? (dir & 1) : (dir & 2);
		struct rt_ioctl *known = bpf_map_lookup_elem(&ioctls, &req);
		if (known) {
			size = known->size;
			str = known->str ? PIECE_STR : 0;
			now = known->when & when;
			/* The counted elements after the struct, in one copy
			 * with it (cut to `want` below). */
			__u32 count = 0;
			if (known->flex_elem && (known->flex_when & when) &&
			    !bpf_probe_read_user(&count, sizeof(count),
						 (void *)addr + known->count_off)) {
				if (known->count_bytes < 4)
					count &= (1u << (known->count_bytes * 8)) - 1;
				if (count > known->flex_max)
					count = known->flex_max;
				size += count * known->flex_elem;
			}
		}
		if (again) {
			now = 1;
			phase = RT_AT_ENTER;
		}
		if (now && size) {
			off = piece(s, off, addr, size < want ? size : want,
				    c.arg | phase << 8 | str);
			if (kind == RT_ENTER && s->last_fault)
				s->cap_faulted = 1;
		}
		if (known && known->ptr_unit && ((known->ptr_when & when) || again))
			off = pointed_array(s, off, known, addr,
					    c.arg | phase << 8 | (compat ? VEC_COMPAT : 0) |
						    (__u64)(want < 0xffff ? want : 0xffff) << 32);
		return off;
	}
	if (c.kind == RT_CAP_OPTION) {
		__u32 index = (__u32)s->ev.nr + (compat ? RT_I386_BASE : 0);
		__u64 key = (__u64)index << 32 | (__u32)args[c.len_arg & 7];
		struct rt_option *o = bpf_map_lookup_elem(&options, &key);
		if (!o)
			return off;
		int now = o->when & when;
		if (again) {
			now = 1;
			phase = RT_AT_ENTER;
		}
		__u64 at = args[o->arg & 7];
		__u32 ometa = (o->arg & 7) | phase << 8;
		if (now && at && o->kind == RT_OPT_FPROG) {
			s->last_fault = 0;
			off = fprog(s, off, at, o->size, ometa | (compat ? VEC_COMPAT : 0));
			if (kind == RT_ENTER && s->last_fault)
				s->cap_faulted = 1;
		} else if (now && at && o->size) {
			s->last_fault = 0;
			off = piece(s, off, at, o->size < want ? o->size : want,
				    ometa | (o->kind == RT_OPT_STR ? PIECE_STR : 0));
			if (kind == RT_ENTER && s->last_fault)
				s->cap_faulted = 1;
		}
		return off;
	}
	if (again)
		phase = RT_AT_ENTER;
	else if (!(c.when & when))
		return off;
	__u32 meta = c.arg | phase << 8;
	s->last_fault = 0;
	switch (c.kind) {
	case RT_CAP_STR:
		off = piece(s, off, addr, want, meta | PIECE_STR);
		break;
	case RT_CAP_FIXED:
	case RT_CAP_STACK:
		off = piece(s, off, addr, want, meta);
		break;
	case RT_CAP_INDIRECT: {
		__u64 at = 0;
		if (bpf_probe_read_user(&at, 8, (void *)(addr + c.elem)) != 0)
			break;
		if (compat)
			at &= 0xffffffff;
		if (at)
			off = piece(s, off, at, want, meta);
		break;
	}
	case RT_CAP_GUESS:
		/* More than the type says (an int * that is an array,
		 * pipe2's fds), or the type if that much faults. */
		off = piece(s, off, addr, want, meta);
		if (s->last_fault && c.elem)
			off = piece(s, off, addr, c.elem, meta);
		break;
	case RT_CAP_ARGLEN: {
		__u64 n = args[c.len_arg & 7] * c.elem;
		off = piece(s, off, addr, n < want ? n : want, meta);
		break;
	}
	case RT_CAP_ARGMIN: {
		__u64 n = args[c.len_arg & 7];
		if (n < c.elem)
			n = c.elem;
		off = piece(s, off, addr, n < want ? n : want, meta);
		break;
	}
	case RT_CAP_RETLEN: {
		long r = nr_or_ret;
		__u64 n = r > 0 ? (__u64)r * c.elem : 0;
		if (kind == RT_LEAVE)
			off = piece(s, off, addr, n < want ? n : want, meta);
		break;
	}
	case RT_CAP_LENPTR: {
		__u32 n = 0;
		__u64 at = args[c.len_arg & 7];
		if (at && bpf_probe_read_user(&n, 4, (void *)at) == 0)
			off = piece(s, off, at, 4, c.len_arg | phase << 8);
		off = piece(s, off, addr, n < want ? n : want, meta);
		break;
	}
	case RT_CAP_IOVEC:
	case RT_CAP_MSGHDR:
	case RT_CAP_MMSGHDR: {
		/* The buffers: at the entry what they hold; at the
		 * exit as many bytes as the call moved. */
		long r = nr_or_ret;
		__u64 budget = want;
		if (kind == RT_LEAVE)
			budget = r > 0 ? ((__u64)r < want ? (__u64)r : want) : 0;
		__u64 n = args[c.len_arg & 7];
		__u32 wide = meta | (compat ? VEC_COMPAT : 0);
		if (c.kind == RT_CAP_IOVEC) {
			off = iovecs(s, off, addr, (n & 0xffff) | budget << 16, wide);
		} else if (c.kind == RT_CAP_MSGHDR) {
			off = msghdr(s, off, addr, budget, wide);
		} else {
			__u32 stride = compat ? COMPAT_MMSGHDR : MMSGHDR;
			if (n > MMSG_MAX)
				n = MMSG_MAX;
			off = piece(s, off, addr, n * stride, meta);
			/* A plain loop, not bpf_loop: a callback's frame would
			 * take the deepest chain of calls (to piece() through
			 * msghdr(), iovecs() and its callback) past the 512
			 * bytes of stack kernels before 6.13 allow. */
			for (__u32 k = 0; k < MMSG_MAX; k++) {
				if (k >= n)
					break;
				off = msghdr(s, off, addr + k * stride, want / MMSG_MAX, wide);
			}
		}
		break;
	}
	case RT_CAP_STRVEC:
	case RT_CAP_PTRVEC:
		off = vector(s, off, addr,
			     meta | (compat ? VEC_COMPAT : 0) |
				     (c.kind == RT_CAP_STRVEC ? VEC_STRINGS : 0));
		break;
	default:
		break;
	}
	if (kind == RT_ENTER && s->last_fault && !(c.when & RT_AT_EXIT))
		s->cap_faulted = 1;
	return off;
}

/* send_call()'s captures, for bpf_loop: one turn verified, not one for
 * each capture and every state the ones before it left. */
struct caps_ctx {
	struct scratch *s;
	struct rt_spec *spec;
	__u32 off;
	__u32 info; /* capture_one's info bits 16 and up */
	__u8 again;
	__u8 faulted;
};

/* The spec's capture `i`. */
static long capture_next(__u32 i, void *data)
{
	struct caps_ctx *each = data;
	struct scratch *s = each->s;
	struct rt_spec *spec = each->spec;
	if (!s || !spec || i >= spec->ncaps)
		return 1;
	/* Bounded where the verifier sees it, whatever the compiler made of
	 * the comparison with ncaps. */
	__u64 at = i;
	asm volatile("" : "+r"(at));
	if (at >= RT_MAX_CAPS)
		return 1;
	__u64 packed = 0;
	__builtin_memcpy(&packed, &spec->caps[at], sizeof(packed));
	s->cap_faulted = 0;
	each->off = capture_one(s, each->off, packed, i | ((each->again >> i) & 1) << 8 | each->info);
	if (s->cap_faulted)
		each->faulted |= 1 << i;
	return 0;
}

/* `r` is the kernel's pointer, typed by the tracepoint (tp_btf): its
 * fields are read in place. Copying the registers out first with
 * bpf_probe_read_kernel cost a traced getppid a sixth of its time (the
 * helper call, whatever the size). */
static __always_inline void send_call(struct pt_regs *r, __u16 kind, long nr_or_ret,
				      __u32 tid, __u32 tgid)
{
	__u32 zero = 0;
	struct scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return;
	int compat = i386_call(r);
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
	if (kind == RT_LEAVE && spec && nr_or_ret == -ERESTART_RESTARTBLOCK && spec->ncaps) {
		bpf_map_update_elem(&restarting, &tid, &index, BPF_ANY);
	} else if (kind == RT_LEAVE && nr == (compat ? nr_restart_32 : nr_restart)) {
		__u32 *first = bpf_map_lookup_elem(&restarting, &tid);
		if (first) {
			__u32 was = *first;
			bpf_map_delete_elem(&restarting, &tid);
			struct rt_spec *its = bpf_map_lookup_elem(&specs, &was);
			if (its)
				spec = its;
		}
	}
	struct rt_event *ev = &s->ev;
	header(ev, kind, tid, tgid);
	ev->flags = compat ? RT_COMPAT : 0;
	if (kind == RT_LEAVE && dying(nr_or_ret, spec && (spec->flags & RT_SPEC_SIGNALS)))
		ev->flags |= RT_DYING;
	ev->nr = nr;
	/* Kept in the record, not on the stack: the captures' calls nest
	 * deep, and older kernels allow them 512 bytes of stack in all. */
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
	ev->ret = kind == RT_LEAVE ? nr_or_ret : 0;
	ev->ip = r->rip;
	ev->sp = r->rsp;
	__u8 when = kind == RT_ENTER ? RT_AT_ENTER : RT_AT_EXIT;
	__u32 off = 0;
	if (spec && spec->ncaps) {
		/* At the exit, the entry's failed captures again. */
		__u8 again = 0, faulted = 0;
		__u64 *pending = refetch_count();
		if (kind == RT_LEAVE && pending && *pending) {
			__u8 *m = bpf_map_lookup_elem(&refetch, &tid);
			if (m) {
				again = *m;
				if (bpf_map_delete_elem(&refetch, &tid) == 0)
					__sync_fetch_and_add(pending, -1);
			}
		}
		/* Whether the fd's data is a plain file's or a pipe's costs
		 * a walk of the task's fd table: only when a capture is taken
		 * now (read's at its exit, write's at its entry). */
		__u8 now = again;
		for (int i = 0; i < RT_MAX_CAPS; i++) {
			if (i >= spec->ncaps)
				break;
			now |= spec->caps[i].when & when;
		}
		__u32 shorten = short_data && now && (spec->flags & RT_SPEC_FD_DATA) &&
				plain_data(args[0]);
		struct caps_ctx each = {
			.s = s,
			.spec = spec,
			.off = off,
			.info = (kind == RT_ENTER) << 16 | compat << 24 | shorten << 25,
			.again = again,
		};
		bpf_loop(RT_MAX_CAPS, capture_next, &each, 0);
		off = each.off;
		faulted = each.faulted;
		if (faulted) {
			ev->flags |= RT_REFETCH;
			/* Counted when added, not when an entry a lost exit left
			 * is replaced. */
			if (bpf_map_update_elem(&refetch, &tid, &faulted, BPF_NOEXIST) == 0) {
				if (pending)
					__sync_fetch_and_add(pending, 1);
			} else {
				bpf_map_update_elem(&refetch, &tid, &faulted, BPF_ANY);
			}
		}
	}
	if (kind == RT_LEAVE && spec && spec->wanted)
		off = usbmon_exit(s, off);
	if (fd_ids && spec && kind == RT_ENTER && spec->fd_args) {
		for (int i = 0; i < 6; i++)
			if (spec->fd_args & (1 << i))
				off = file_id(s, off, (int)args[i]);
	}
	if (fd_ids && spec && kind == RT_LEAVE && (spec->flags & RT_SPEC_RET_FD) && nr_or_ret >= 0)
		off = file_id(s, off, nr_or_ret);
	if (fd_ids && spec && kind == RT_LEAVE && spec->pair_arg && nr_or_ret == 0) {
		/* The kernel has just written them: the page is there. */
		int pair[2] = {-1, -1};
		bpf_probe_read_user(pair, sizeof(pair), (void *)args[(spec->pair_arg - 1) & 7]);
		off = file_id(s, off, pair[0]);
		off = file_id(s, off, pair[1]);
	}
	if (spec && kind == RT_LEAVE && (spec->flags & (RT_SPEC_DIRENTS | RT_SPEC_DIRENTS64)) &&
	    nr_or_ret > 0) {
		__u32 at = spec->flags & RT_SPEC_DIRENTS64 ? 16 | 19 << 8
			   : compat			     ? 8 | 10 << 8
							     : 16 | 18 << 8;
		off = dirent_count(s, off, args[1], nr_or_ret, at);
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
	__u64 id = bpf_get_current_pid_tgid();
	if (count_only) {
		/* It looks the task up itself, in the task's own storage first. */
		count_enter(regs, nr, id);
		return 0;
	}
	if (!is_traced((__u32)id, id >> 32))
		return 0;
	hold_if_behind((__u32)id, id >> 32);
	send_call(regs, RT_ENTER, nr, (__u32)id, id >> 32);
	return 0;
}

SEC("tp_btf/sys_exit")
int rtrace_sys_exit(__u64 *ctx)
{
	struct pt_regs *regs = (struct pt_regs *)ctx[0];
	long ret = (long)ctx[1];
	__u64 id = bpf_get_current_pid_tgid();
	if (count_only) {
		count_exit(regs, id, ret);
		return 0;
	}
	if (!is_traced((__u32)id, id >> 32))
		return 0;
	send_call(regs, RT_LEAVE, ret, (__u32)id, id >> 32);
	return 0;
}

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
	__u64 id = bpf_get_current_pid_tgid();
	if (!is_traced((__u32)id, id >> 32))
		return 0;
	void *child = (void *)ctx->args[1];
	__u32 child_tid = task_field(child, task_pid_off);
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
	ev.args[0] = task_field(child, task_tgid_off);
	send_plain(&ev);
	return 0;
}

/* sched_process_exec(struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm) */
SEC("raw_tracepoint/sched_process_exec")
int rtrace_exec(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = id, old = ctx->args[1];
	if (!trace_all && !is_traced(old, 0) && !is_traced(tid, 0))
		return 0;
	if (trace_all && (id >> 32) == self_tgid)
		return 0;
	if (!trace_all) {
		/* A started command is the command from its exec; a thread
		 * that exec'd carries on under the leader's tid. */
		trace_task(tid);
		if (old != tid)
			untrace_task(old);
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
	send_plain(&ev);
	return 0;
}

/* sched_process_exit(struct task_struct *p, ...): p is the current task. */
SEC("raw_tracepoint/sched_process_exit")
int rtrace_exit(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = id;
	if (!is_traced(tid, id >> 32))
		return 0;
	if (!trace_all)
		untrace_task(tid);
	if (count_only)
		clear_start(tid);
	struct rt_event ev = {};
	header(&ev, RT_EXIT, tid, id >> 32);
	ev.nr = (int)task_field((void *)ctx->args[0], task_exit_code_off);
	/* At once: the trace may be over, and no later record of this task
	 * would wake the reader before its poll's timeout. */
	send_plain_waking(&ev, BPF_RB_FORCE_WAKEUP);
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
	__u64 id = bpf_get_current_pid_tgid();
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
	if ((int)ctx->args[0] == SIGCONT && (bpf_get_current_pid_tgid() >> 32) == self_tgid)
		return 0;
	void *task = (void *)ctx->args[2];
	__u32 tid = task_field(task, task_pid_off), tgid = task_field(task, task_tgid_off);
	if (!is_traced(tid, tgid))
		return 0;
	struct rt_event ev = {};
	header(&ev, RT_SIGNAL_LOST, tid, tgid);
	ev.nr = (int)ctx->args[0];
	put_siginfo(&ev, ctx->args[1]);
	send_plain(&ev);
	return 0;
}
