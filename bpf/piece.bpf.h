/* rtrace's BPF program: the record being built (struct scratch) and
 * piece(), which copies one piece of memory into it. The lowest part of
 * the program: rtrace.bpf.c and usbmon.bpf.h build on it. */
#ifndef RTRACE_PIECE_BPF_H
#define RTRACE_PIECE_BPF_H

#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "rtrace.h"

/* A record with captures is built here, then copied into the ring. */
struct scratch {
	struct rt_event ev;
	__u8 area[RT_AREA + RT_CAP_MAX + 64];
	/* argv's pointers (RT_VEC_MAX), or the iovecs iovecs() follows (32
	 * of two words; twice that room, so that an iovec count masked to
	 * the next power of two stays inside). */
	__u64 ptrs[RT_VEC_MAX * 2];
	/* Whether the last piece's read failed. */
	__u32 last_fault;
	/* Whether capture_one's entry copy failed, to be taken at the exit. */
	__u32 cap_faulted;
	/* The captures of a record that failed so (a bit each). */
	__u32 caps_faulted;
	/* The index of the one capture due now, taken without bpf_loop, or
	 * RT_MAX_CAPS. */
	__u32 only;
	/* Where a PIECE_KERNEL piece is read from. */
	__u64 ksrc;
	/* A multiplexer's subcall's spec index (0: none), as subcall_args()
	 * found it. */
	__u32 subcall;
	/* iocb_one()'s reads: an iocb's pointer, then its opcode, buffer
	 * and length. */
	__u64 iocb[3];
	/* send_call()'s halves: the call's spec index, the index of the
	 * spec whose captures are taken (the subcall's, for i386's
	 * socketcall and ipc), RT_SPECS for none; the record's length so
	 * far. */
	__u32 spec_at;
	__u32 caps_at;
	__u32 off;
	/* The arguments the captures read: the call's, or its subcall's. */
	__u64 cargs[6];
	/* msghdr()'s struct user_msghdr, its seven words widened (off the
	 * stack, which older kernels give nested calls 512 bytes of). */
	__u64 msg[7];
	/* The usbmon ring's pages (struct mon_pgmap *) behind the fd of the
	 * fetch being copied, or 0. */
	__u64 mon_bvec;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");


/* Start a capture of `bytes` bytes at `off` of the record being built:
 * its header, counted in the record; NULL when it would not fit. The
 * bytes follow the header (struct rt_capture), padded to 8. */
static __always_inline struct rt_capture *capture_at(struct scratch *s, __u32 off, __u32 bytes,
						     __u64 addr, __u8 arg, __u8 when)
{
	if (!s || off > RT_AREA - sizeof(struct rt_capture) - bytes)
		return 0;
	__u64 at = off;
	asm volatile("" : "+r"(at));
	at &= RT_AREA - 1;
	struct rt_capture *c = (void *)(s->area + at);
	c->addr = addr;
	c->len = bytes;
	c->flags = 0;
	c->arg = arg;
	c->when = when;
	s->ev.ncaps += 1;
	return c;
}

/* Meta bits of piece() and the functions built on it: an i386 call. */
#define VEC_COMPAT 0x20000

/* Copy `want` bytes (or a string of at most `want` bytes with its NUL) at
 * `addr` into the record at `off`; returns the offset after it. */
#define PIECE_STR 0x10000
/* Copy from the kernel address in s->ksrc, filed under `addr`. */
#define PIECE_KERNEL 0x80000
/* A page of user memory: a read that faults is retried up to the page's
 * end. */
#define PIECE_PAGE 4096

/* A function of its own (verified once, not at every use) with the BPF
 * limit of five arguments: `meta` is the argument index, the phase
 * (RT_AT_*) shifted by 8, and PIECE_STR for a string. */
__noinline __u32 piece(struct scratch *s, __u32 off, __u64 addr, __u32 want, __u32 meta)
{
	int str = meta & PIECE_STR;
	struct rt_capture *c = capture_at(s, off, 0, addr, meta & 0xff, (meta >> 8) & 0xff);
	if (!c)
		return off;
	__u8 *dst = (void *)(c + 1);
	__u32 len = want;
	if (len > RT_CAP_MAX - 1)
		len = RT_CAP_MAX - 1;
	/* Keep the verifier sure of the bound whatever the compiler made of
	 * the comparison. */
	asm volatile("" : "+r"(len));
	len &= RT_CAP_MAX - 1;
	c->flags = want > len ? RT_PIECE_TRUNCATED : 0;
	s->last_fault = 0;
	if (str) {
		long r = len ? bpf_probe_read_user_str(dst, len, (void *)addr) : 0;
		if (r < 0) {
			/* A string with no NUL before an unreadable page (the
			 * helper fails whole): the bytes up to that page, as
			 * ptrace reads them and the kernel itself could
			 * (`"\1\2"..` where the call fails with EFAULT),
			 * unterminated: up to the next page's end where the
			 * string runs over a whole page more, else up to this
			 * page's. Still a fault, taken again at the exit, as a
			 * buffer's below. Only the length stays live across the
			 * reads: older kernels give the deepest call chain 512
			 * bytes of stack, which piece() ends. */
			__u32 n = PIECE_PAGE - (addr & (PIECE_PAGE - 1));
			if (n + PIECE_PAGE < len)
				n += PIECE_PAGE;
			/* 0: nothing readable (the fault is in this page). */
			if (n >= len)
				n = 0;
			if (n && bpf_probe_read_user(dst, n & (RT_CAP_MAX - 1), (void *)addr) != 0) {
				/* This page's part, if the next was tried. */
				n = n > PIECE_PAGE ? n - PIECE_PAGE : 0;
				/* A bound older verifiers see whatever the compiler
				 * made of the subtraction. */
				asm volatile("" : "+r"(n));
				n &= RT_CAP_MAX - 1;
				if (n && bpf_probe_read_user(dst, n, (void *)addr) != 0)
					n = 0;
			}
			c->len = n & (RT_CAP_MAX - 1);
			c->flags |= n ? 0 : RT_PIECE_FAULT;
			s->last_fault = 1;
		} else if (r == 0) {
			c->len = 0;
			c->flags |= RT_PIECE_FAULT;
			s->last_fault = 1;
		} else if ((__u32)r < len || dst[(r - 1) & (RT_CAP_MAX - 1)] == 0) {
			/* r counts the NUL; when r == len the helper may have cut
			 * the string and written its own NUL: rtrace reads one more
			 * byte than it prints, so either way the last byte is
			 * dropped and the string is incomplete. */
			c->len = r - 1;
			c->flags |= (__u32)r < len ? RT_PIECE_TERMINATED : 0;
		}
	} else if (meta & PIECE_KERNEL) {
		if (len && bpf_probe_read_kernel(dst, len, (void *)s->ksrc) != 0) {
			c->len = 0;
			c->flags |= RT_PIECE_FAULT;
			s->last_fault = 1;
		} else {
			c->len = len;
		}
	} else {
		if (len && bpf_probe_read_user(dst, len, (void *)addr) != 0) {
			/* What lies before the page that faulted, as far as the
			 * kernel itself could have read (an int at a page's end
			 * passed with a length of 5). Still a fault: an entry's
			 * copy is taken whole again at the exit. */
			__u32 head = PIECE_PAGE - (addr & (PIECE_PAGE - 1));
			s->last_fault = 1;
			if (head < len && bpf_probe_read_user(dst, head & (RT_CAP_MAX - 1),
							      (void *)addr) == 0) {
				c->len = head & (RT_CAP_MAX - 1);
			} else {
				c->len = 0;
				c->flags |= RT_PIECE_FAULT;
			}
		} else {
			c->len = len;
		}
	}
	return off + sizeof(*c) + ((c->len + 7) & ~7u);
}

#endif
