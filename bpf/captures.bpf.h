/* rtrace's BPF program, its captures (included by rtrace.bpf.c after
 * the maps; built on piece.bpf.h): what a call's spec says to copy,
 * capture by capture (capture_one, and capture_next over a spec's
 * captures), and the pointers followed one level from an argument: argv
 * and pointer arrays, iovecs, msghdrs, a filter program, an ioctl
 * struct's pointed array, and the calls i386's socketcall and ipc stand
 * for. */
#ifndef RTRACE_CAPTURES_BPF_H
#define RTRACE_CAPTURES_BPF_H

#include <linux/aio_abi.h>
#include <stddef.h>
#include "piece.bpf.h"

/* A NULL-terminated array of pointers (argv, envp) and, if `strings`, the
 * strings they point at, `max` bytes of each (0: RT_VEC_STR). */
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
	__u32 max;     /* each string's bytes, its NUL's included */
	__u32 faulted; /* a string's copy failed */
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
	v->off = piece(s, v->off, p, v->max, v->meta | PIECE_STR);
	v->faulted |= s->last_fault;
	return 0;
}

__noinline __u32 vector(struct scratch *s, __u32 off, __u64 addr, __u32 meta, __u32 max)
{
	if (!s)
		return off;
	struct vec_ctx v = {
		.s = s,
		.addr = addr,
		.width = meta & VEC_COMPAT ? 4 : 8,
		.off = off,
		.meta = meta & 0xffff,
		.max = max ? max : RT_VEC_STR,
	};
	bpf_loop(RT_VEC_MAX, vec_pointer, &v, 0);
	/* The array itself, with its NULL where it was reached. */
	v.off = piece(s, v.off, addr, v.n * v.width, v.meta);
	__u32 array_faulted = s->last_fault;
	if (meta & VEC_STRINGS)
		bpf_loop(RT_VEC_MAX, vec_string, &v, 0);
	/* Any string the entry could not copy is taken again at the exit
	 * (capture_one() asks the last piece only). */
	s->last_fault = array_faulted | v.faulted;
	return v.off;
}

/* struct iovec arrays, struct user_msghdr and struct mmsghdr: what the
 * kernel's declarations say a call's pointer is, followed one level. An
 * i386 call's (VEC_COMPAT in meta) are the compat layouts: 32-bit
 * pointers and lengths. */
/* The iovecs whose buffers are followed: as many as the decoders show
 * by default (-s 32); the array's copy holds one more, which tells them
 * the array goes on (`..`). */
#define IOV_MAX_COPIED 32
#define MSG_NAME_MAX 128
#define MSG_CONTROL_MAX 1024
/* The mmsghdrs followed: as many as the decoders show by default. */
#define MMSG_MAX 32
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
	/* (At most what one piece holds: netlink_rest() copies the rest of
	 * a longer netlink answer.) */
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
	off = piece(s, off, vec, (n < IOV_MAX_COPIED + 1 ? n : IOV_MAX_COPIED + 1) * width, pmeta);
	if (n > IOV_MAX_COPIED)
		n = IOV_MAX_COPIED;
	__u64 *iov = s->ptrs;
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
	__u64 iovlen = m[3] < IOV_MAX_COPIED + 1 ? m[3] : IOV_MAX_COPIED + 1;
	off = iovecs(s, off, m[2], iovlen | budget << 16, meta);
	if (control && controllen)
		off = piece(s, off, control,
			    controllen < MSG_CONTROL_MAX ? controllen : MSG_CONTROL_MAX, pmeta);
	return off;
}

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

/* The units whose buffers pointed_array() follows, at most. */
#define EACH_MAX 32

/* The buffer one unit of a pointed array points at (the unit at `unit`,
 * its pointer and length members where `known` says), at most
 * known->each_max bytes; meta as pointed_array()'s. */
__noinline __u32 unit_buffer(struct scratch *s, __u32 off, struct rt_pointed *known, __u64 unit,
			     __u64 meta)
{
	if (!s || !known)
		return off;
	__u64 buf = 0;
	__u32 len = 0;
	if (bpf_probe_read_user(&len, sizeof(len), (void *)unit + known->each_len) || !len ||
	    bpf_probe_read_user(&buf, meta & VEC_COMPAT ? 4 : 8, (void *)unit + known->each_ptr))
		return off;
	return piece(s, off, buf, len < known->each_max ? len : known->each_max, meta & 0xffff);
}

/* The array behind a pointer member of the struct argument at `addr`
 * (an ioctl's, a multiplexed call's), as many units as another member or
 * an argument counts (`known`), at most the bytes in meta's bits 32 and
 * up. meta's low 16 bits: the argument index and the phase; VEC_COMPAT
 * for an i386 caller. */
__noinline __u32 pointed_array(struct scratch *s, __u32 off, struct rt_pointed *known, __u64 addr,
			       __u64 meta)
{
	if (!s || !known)
		return off;
	int compat = meta & VEC_COMPAT;
	__u32 at = compat ? known->ptr_off32 : known->ptr_off;
	if (at == 0xffff)
		return off;
	__u64 array = 0;
	__u64 count = 0;
	__u8 bytes_of_count = known->count_bytes;
	if (bpf_probe_read_user(&array, compat ? 4 : 8, (void *)addr + at) || !array)
		return off;
	if (bytes_of_count & RT_COUNT_ARG) {
		__u64 n = bytes_of_count & 7;
		asm volatile("" : "+r"(n));
		if (n >= 6)
			return off;
		count = s->cargs[n];
		if (compat)
			count &= 0xffffffff;
	} else if (!bytes_of_count) {
		/* No count member: one unit (a struct behind a pointer). */
		count = 1;
	} else {
		__u32 member = 0;
		if (bpf_probe_read_user(&member, sizeof(member), (void *)addr + known->count_off))
			return off;
		if (bytes_of_count < 4)
			member &= (1u << (bytes_of_count * 8)) - 1;
		count = member;
	}
	if (count > known->max)
		count = known->max;
	__u64 bytes = count * known->unit;
	if (!bytes_of_count && known->trail_elem) {
		/* The elements after the one unit, as a member of it counts. */
		__u32 n = 0;
		if (!bpf_probe_read_user(&n, sizeof(n), (void *)array + known->trail_off)) {
			if (known->trail_bytes < 4)
				n &= (1u << (known->trail_bytes * 8)) - 1;
			if (n > known->trail_max)
				n = known->trail_max;
			bytes += (__u64)n * known->trail_elem;
		}
	}
	__u64 most = meta >> 32;
	off = piece(s, off, array, bytes < most ? bytes : most,
		    (meta & 0xffff) | (known->str ? PIECE_STR : 0));
	if (known->each_ptr == 0xffff)
		return off;
	/* Each unit's buffer: a plain loop whose turn is one call of a
	 * function verified once (a body of its own here would be checked
	 * EACH_MAX times over, each turn's paths apart). */
	for (__u32 k = 0; k < EACH_MAX; k++) {
		if (k >= count)
			break;
		off = unit_buffer(s, off, known, array + (__u64)k * known->unit, meta);
	}
	return off;
}

/* The iocb the pointer at `at` points at (a 32-bit one with VEC_COMPAT
 * in meta) and what its command reads: a write's buffer, at most
 * `each_budget`'s low 16 bits of bytes, a vectored command's iovecs and
 * a write's buffers, at most its bits 16 and up in all. What it reads
 * goes to s->iocb, not the stack: iocbs() and this sit in the deepest
 * call chain, which older kernels (6.1) allow 512 bytes of stack. */
__noinline __u32 iocb_one(struct scratch *s, __u32 off, __u64 at, __u64 each_budget, __u32 meta)
{
	if (!s)
		return off;
	__u32 pmeta = meta & 0xffff;
	__u64 *r = s->iocb;
	r[0] = 0;
	if (bpf_probe_read_user(r, meta & VEC_COMPAT ? 4 : 8, (void *)at) || !r[0])
		return off;
	__u64 cb = r[0];
	off = piece(s, off, cb, sizeof(struct iocb), pmeta);
	r[0] = 0;
	if (bpf_probe_read_user(r, 2, (void *)cb + offsetof(struct iocb, aio_lio_opcode)) ||
	    bpf_probe_read_user(&r[1], 8, (void *)cb + offsetof(struct iocb, aio_buf)) ||
	    bpf_probe_read_user(&r[2], 8, (void *)cb + offsetof(struct iocb, aio_nbytes)))
		return off;
	__u64 op = r[0], buf = r[1], nbytes = r[2], each = each_budget & 0xffff;
	if (op == IOCB_CMD_PWRITE)
		return piece(s, off, buf, nbytes < each ? nbytes : each, pmeta);
	if (op != IOCB_CMD_PWRITEV && op != IOCB_CMD_PREADV)
		return off;
	/* A read's buffers are not filled yet: the ranges only. */
	__u64 take = op == IOCB_CMD_PWRITEV ? each_budget >> 16 : 0;
	__u64 iovs = nbytes < IOV_MAX_COPIED + 1 ? nbytes : IOV_MAX_COPIED + 1;
	return iovecs(s, off, buf, iovs | take << 16, meta);
}

/* io_submit's iocbs followed, at most: as many as the decoder shows
 * with the default -s. */
#define IOCB_MAX 32

/* The `n` iocbs the pointer array at `vec` points at (n's low 16 bits;
 * 32-bit pointers with VEC_COMPAT in meta), and for each what its
 * command reads: a write's buffer, at most `each` bytes (n's bits 16 to
 * 31), a vectored command's iovecs and a write's buffers, at most n's
 * bits 32 and up in all. A plain loop (each turn calling functions
 * verified once; IOCB_MAX turns): a bpf_loop callback's frame would take the chain to
 * piece() through iovecs() past the 8 frames the verifier allows. */
__noinline __u32 iocbs(struct scratch *s, __u32 off, __u64 vec, __u64 n, __u32 meta)
{
	if (!s || !vec)
		return off;
	/* 4 for an i386 caller's pointers, 8 otherwise, without a branch:
	 * each turn below then leaves the verifier one state, not two. */
	__u32 width = 8 - (meta & VEC_COMPAT) / (VEC_COMPAT / 4);
	__u32 pmeta = meta & 0xffff;
	__u32 count = n & 0xffff, each = (n >> 16) & 0xffff;
	__u64 budget = n >> 32;
	/* The array with one pointer more, which tells the decoder it goes
	 * on (`..`). */
	off = piece(s, off, vec, count * width, pmeta);
	/* Each turn one call of a function verified once (a body of its
	 * own here would be checked IOCB_MAX times over); `count` is not
	 * cut to IOCB_MAX first, which would split the turns' states. */
	for (__u32 k = 0; k < IOCB_MAX; k++) {
		if (k >= count)
			break;
		off = iocb_one(s, off, vec + (__u64)k * width, each | budget << 16, meta);
	}
	return off;
}

/* i386's socketcall and ipc (meta bit 0: ipc; the phase << 8): the spec
 * of the call they stand for into s->subcall (0: none that copies
 * anything), its arguments into s->cargs, from the call's registers and
 * the block of 32-bit words one of them points at (socketcall's args,
 * ipc's kludge), which is copied for the decoder too. */
__noinline __u32 subcall_args(struct scratch *s, __u32 off, __u32 meta)
{
	if (!s)
		return off;
	s->subcall = 0;
	__u64 call = s->ev.args[0] & 0xffffffff;
	__u32 index = 0;
	if (meta & 1) {
		__u32 code = call & 0xffff, version = call >> 16;
		if (code >= 32)
			return off;
		index = RT_SUBCALL_BASE + 32 + code + (version ? 32 : 0);
	} else {
		if (call >= 32)
			return off;
		index = RT_SUBCALL_BASE + call;
	}
	struct rt_spec *sub = bpf_map_lookup_elem(&specs, &index);
	if (!sub || !sub->ncaps)
		return off;
	__u32 words[8] = {};
	__u32 block = sub->block & 7;
	if (sub->words && block < 6) {
		__u64 at = s->ev.args[block];
		__u32 n = sub->words < 6 ? sub->words : 6;
		if (!at || bpf_probe_read_user(words, (n & 7) * 4, (void *)at))
			return off;
		off = piece(s, off, at, n * 4, block | (meta & 0xff00));
	}
	for (int i = 0; i < 6; i++) {
		__u32 from = sub->from[i];
		__u32 n = from & 7;
		if (from == RT_FROM_NONE || n >= 6)
			s->cargs[i] = 0;
		else if (from & RT_FROM_WORD)
			s->cargs[i] = words[n];
		else
			s->cargs[i] = s->ev.args[n];
	}
	s->subcall = index;
	return off;
}

/* pieces()'s state for bpf_loop. */
struct pieces_ctx {
	struct scratch *s;
	__u64 addr;
	__u32 want;
	__u32 off;
	__u32 meta;
};

static long next_page_piece(__u32 i, void *data)
{
	struct pieces_ctx *p = data;
	__u64 done = (__u64)i * PIECE_PAGE;
	if (!p->s || done >= p->want)
		return 1;
	__u32 n = p->want - done;
	if (n > PIECE_PAGE)
		n = PIECE_PAGE;
	p->off = piece(p->s, p->off, p->addr + done, n, p->meta);
	/* An unreadable page ends the buffer as the kernel's copy ends. */
	return p->s->last_fault != 0;
}

/* Copy `want` bytes at `addr` (not a string) into the record at `off`:
 * one piece, or past what one holds (a buffer -e read=/write= dumps
 * whole) a piece a page, as far as the record has room. The reader
 * reads across pieces that follow one another. */
__noinline __u32 pieces(struct scratch *s, __u32 off, __u64 addr, __u32 want, __u32 meta)
{
	if (want < RT_CAP_MAX)
		return piece(s, off, addr, want, meta);
	struct pieces_ctx p = {.s = s, .addr = addr, .want = want, .off = off, .meta = meta};
	bpf_loop(RT_AREA / PIECE_PAGE, next_page_piece, &p, 0);
	return p.off;
}

/* The memory one slot of the options map names (`o`; size 0: none),
 * into the record at `off`. info: capture_one's info bits, and the
 * capture's most bytes from bit 32. The arguments are in s->cargs. */
__noinline __u32 option_one(struct scratch *s, __u32 off, struct rt_option *o, __u64 info)
{
	if (!s || !o || !o->size)
		return off;
	int again = (info >> 8) & 1, compat = (info >> 24) & 1;
	__u16 kind = (info >> 16) & 1 ? RT_ENTER : RT_LEAVE;
	__u8 when = kind == RT_ENTER ? RT_AT_ENTER : RT_AT_EXIT, phase = when;
	__u32 want = info >> 32;
	__u64 *args = s->cargs;
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
	} else if (now && at) {
		__u64 size = o->size < want ? o->size : want;
		if (o->len_arg || o->len_struct) {
			__u64 n = 0;
			if (o->len_arg) {
				n = args[(o->len_arg - 1) & 7];
			} else {
				__u32 member = 0;
				__u64 st = args[(o->len_struct - 1) & 7];
				if (st && !bpf_probe_read_user(&member, sizeof(member),
							       (void *)st + o->len_off))
					n = member;
			}
			long r = s->ev.ret;
			if (o->by_result && kind == RT_LEAVE)
				n = r < 0 ? 0 : (__u64)r < n ? (__u64)r : n;
			/* Elements after a header: bounded before the
			 * product, which a huge count would wrap. */
			if (n > size)
				n = size;
			n = o->base + n * (o->elem ? o->elem : 1);
			if (n < size)
				size = n;
		}
		s->last_fault = 0;
		off = piece(s, off, at, size, ometa | (o->kind == RT_OPT_STR ? PIECE_STR : 0));
		if (kind == RT_ENTER && s->last_fault)
			s->cap_faulted = 1;
	}
	/* The arrays behind its pointer members. */
	for (int k = 0; k < 2; k++) {
		struct rt_pointed *ptr = &o->ptrs[k];
		if (at && ptr->unit && ((ptr->when & when) || again))
			off = pointed_array(s, off, ptr, at,
					    ometa | (compat ? VEC_COMPAT : 0) |
						    (__u64)(want < 0xffff ? want : 0xffff) << 32);
	}
	return off;
}

/* One capture of a call's spec, `packed` (a struct rt_capture_spec),
 * into the record at `off`. A function of its own, verified once rather
 * than in every iteration and both programs. info: the capture's index,
 * bit 8 that the entry's copy failed and is taken now, bit 16 an entry,
 * bit 24 an i386 call, bit 25 a plain file's data (short_data bytes),
 * bit 26 a call whose data may be a netlink socket's (RT_SPEC2_NETLINK),
 * bit 27 that it is, and moved more than the capture's usual copy
 * (long_netlink()).
 * The arguments are in s->cargs (a subcall's for socketcall and ipc), the
 * result in s->ev.ret at an exit. */
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
	/* The call's arguments, or its subcall's. */
	__u64 *args = s->cargs;
	__u64 addr = c.kind == RT_CAP_STACK ? s->ev.sp + c.elem : args[c.arg & 7];
	__u32 want = c.max;
	/* (An option's address is its entry's argument, not c.arg: that is
	 * the value that chooses it, which may be 0.) */
	if (!addr && c.kind != RT_CAP_OPTION)
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
		if (known && known->ptr.unit && ((known->ptr.when & when) || again))
			off = pointed_array(s, off, &known->ptr, addr,
					    c.arg | phase << 8 | (compat ? VEC_COMPAT : 0) |
						    (__u64)(want < 0xffff ? want : 0xffff) << 32);
		return off;
	}
	if (c.kind == RT_CAP_OPTION) {
		/* The spec whose captures these are: the call's, or a
		 * multiplexer's subcall's (i386's socketcall's setsockopt),
		 * which the options table has under its own index. (Computed
		 * so, not read from caps_at alone: that took this frame past
		 * the 96 bytes 6.1's 512-byte call chain leaves it.) */
		__u32 index = (__u32)s->ev.nr + (compat ? RT_I386_BASE : 0);
		if (s->caps_at >= RT_SUBCALL_BASE)
			index = s->caps_at;
		/* The value above elem bits (quotactl's QCMD: the command
		 * above the quota type's byte). */
		__u64 key = (__u64)index << 32 | (__u32)args[c.len_arg & 7] >> (c.elem & 31);
		struct rt_options *all = bpf_map_lookup_elem(&options, &key);
		if (!all)
			return off;
		for (int k = 0; k < RT_OPT_SLOTS; k++)
			off = option_one(s, off, &all->slot[k], info | (__u64)want << 32);
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
		/* As many bytes as a u32 member of the struct says (len_arg:
		 * 1 + its offset), and at the exit the result. */
		__u32 n = want;
		if (at && c.len_arg &&
		    bpf_probe_read_user(&n, sizeof(n), (void *)(addr + c.len_arg - 1)) != 0)
			break;
		long r = nr_or_ret;
		if (c.len_arg && kind == RT_LEAVE && (c.when & RT_AT_EXIT))
			n = r < 0 ? 0 : (__u64)r < n ? (__u32)r : n;
		if (at && n)
			off = piece(s, off, at, n < want ? n : want, meta);
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
		/* A netlink request longer than the usual copy (each message
		 * is decoded): as far as a record holds it. */
		if ((info >> 27) & 1)
			want = RT_NETLINK_MAX;
		off = pieces(s, off, addr, n < want ? n : want, meta);
		break;
	}
	case RT_CAP_BITS: {
		/* The kernel reads and writes whole words (an i386 caller's
		 * are 4 bytes). */
		__s32 bits = args[c.len_arg & 7];
		__u64 word_bits = c.elem * 8;
		__u64 n = bits > 0 && word_bits ? ((__u64)bits + word_bits - 1) / word_bits * c.elem : 0;
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
		if ((info >> 27) & 1)
			want = RT_NETLINK_MAX;
		if (kind == RT_LEAVE)
			off = pieces(s, off, addr, n < want ? n : want, meta);
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
		/* A netlink answer longer than that: as far as a record
		 * holds it (each message is decoded). */
		if ((info >> 27) & 1)
			budget = r < RT_NETLINK_MAX ? r : RT_NETLINK_MAX;
		__u64 n = args[c.len_arg & 7];
		__u32 wide = meta | (compat ? VEC_COMPAT : 0);
		if (c.kind == RT_CAP_IOVEC) {
			if (n > IOV_MAX_COPIED + 1)
				n = IOV_MAX_COPIED + 1;
			off = iovecs(s, off, addr, n | budget << 16, wide);
		} else if (c.kind == RT_CAP_MSGHDR) {
			off = msghdr(s, off, addr, budget, wide);
		} else {
			__u32 stride = compat ? COMPAT_MMSGHDR : MMSGHDR;
			if (n > MMSG_MAX)
				n = MMSG_MAX;
			off = piece(s, off, addr, n * stride, meta);
			/* Each message's share of the bytes (the result
			 * counts messages, not bytes). */
			__u64 each = n ? want / n : 0;
			/* A plain loop, not bpf_loop: a callback's frame would
			 * take the deepest chain of calls (to piece() through
			 * msghdr(), iovecs() and its callback) past the 512
			 * bytes of stack kernels before 6.13 allow. */
			for (__u32 k = 0; k < MMSG_MAX; k++) {
				if (k >= n)
					break;
				off = msghdr(s, off, addr + k * stride, each, wide);
			}
		}
		break;
	}
	case RT_CAP_IOCBS: {
		__u64 n = args[c.len_arg & 7];
		if (n > IOCB_MAX + 1)
			n = IOCB_MAX + 1;
		off = iocbs(s, off, addr, n | (__u64)c.elem << 16 | (__u64)want << 32,
			    meta | (compat ? VEC_COMPAT : 0));
		break;
	}
	case RT_CAP_STRVEC:
	case RT_CAP_PTRVEC:
		off = vector(s, off, addr,
			     meta | (compat ? VEC_COMPAT : 0) |
				     (c.kind == RT_CAP_STRVEC ? VEC_STRINGS : 0),
			     want);
		break;
	default:
		break;
	}
	if (kind == RT_ENTER && s->last_fault && !(c.when & RT_AT_EXIT))
		s->cap_faulted = 1;
	return off;
}

/* Whether capture `packed` of a call whose data may be a netlink
 * socket's (info bit 26) moves more than its usual copy (sendto's
 * request at the entry, an answer at the exit), and its fd is a netlink
 * socket's: then it is copied up to RT_NETLINK_MAX. Decided here, not
 * in capture_one(): its frame is at the stack's limit on kernels before
 * 6.13, in the deepest chain of calls. */
static __always_inline int long_netlink(struct scratch *s, __u64 packed, __u32 info)
{
	struct rt_capture_spec c;
	__builtin_memcpy(&c, &packed, sizeof(c));
	__u64 n = 0;
	if ((info >> 16) & 1) {
		if (c.kind == RT_CAP_ARGLEN)
			n = s->cargs[c.len_arg & 7];
	} else if ((c.kind == RT_CAP_RETLEN || c.kind == RT_CAP_MSGHDR) && s->ev.ret > 0) {
		n = s->ev.ret;
	}
	return n > c.max && netlink_socket(s->cargs[0]);
}

/* The rest of a recvmsg's netlink answer past what one piece holds: its
 * first buffer's (iovecs() left it in s->ptrs), as far as RT_NETLINK_MAX. */
__noinline __u32 netlink_rest(struct scratch *s, __u32 off, __u64 packed)
{
	struct rt_capture_spec c;
	__builtin_memcpy(&c, &packed, sizeof(c));
	if (!s || c.kind != RT_CAP_MSGHDR || s->ev.ret <= 0)
		return off;
	__u64 len = s->ptrs[1], r = s->ev.ret;
	if (len > r)
		len = r;
	if (len > RT_NETLINK_MAX)
		len = RT_NETLINK_MAX;
	if (len <= RT_CAP_MAX - 1)
		return off;
	return piece(s, off, s->ptrs[0] + RT_CAP_MAX - 1, len - (RT_CAP_MAX - 1),
		     c.arg | RT_AT_EXIT << 8);
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
	__u32 info = i | ((each->again >> i) & 1) << 8 | each->info;
	int netlink = (info >> 26) & 1 && long_netlink(s, packed, info);
	each->off = capture_one(s, each->off, packed, info | netlink << 27);
	if (netlink)
		each->off = netlink_rest(s, each->off, packed);
	if (s->cap_faulted)
		each->faulted |= 1 << i;
	return 0;
}

/* Where a task's new program keeps its argument and environment strings:
 * task_struct.mm, mm_struct.arg_start, .arg_end, .env_start, .env_end
 * (0 where one is missing: then nothing is sent). */
const volatile __u32 off_task_mm = 0, off_mm_arg_start = 0, off_mm_arg_end = 0;
const volatile __u32 off_mm_env_start = 0, off_mm_env_end = 0;

/* One of those areas, `start_off` and `end_off` in the mm at `mm`. */
static __always_inline __u32 exec_area(struct scratch *s, __u32 off, __u64 mm, __u32 start_off,
				       __u32 end_off, __u8 arg)
{
	__u64 start = 0, end = 0;
	if (bpf_probe_read_kernel(&start, 8, (void *)mm + start_off) ||
	    bpf_probe_read_kernel(&end, 8, (void *)mm + end_off) || end <= start)
		return off;
	__u64 len = end - start;
	return piece(s, off, start, len < 0xffff ? len : 0xffff, arg | RT_AT_EXIT << 8);
}

/* At a successful exec's exit (RT_SPEC_EXEC): the new program's argument
 * and environment strings and the file name, which the kernel copied
 * from the ones the entry pointed at, into the record at `off`. The kernel wrote them on
 * the new stack, so its pages are there to be read. */
__noinline __u32 exec_strings(struct scratch *s, __u32 off)
{
	__u64 mm = 0;
	if (!s || !off_task_mm ||
	    bpf_probe_read_kernel(&mm, 8, (void *)bpf_get_current_task() + off_task_mm) || !mm)
		return off;
	off = exec_area(s, off, mm, off_mm_arg_start, off_mm_arg_end, RT_ARG_EXEC_ARGS);
	off = exec_area(s, off, mm, off_mm_env_start, off_mm_env_end, RT_ARG_EXEC_ENV);
	__u64 file = 0;
	if (bpf_probe_read_kernel(&file, 8, (void *)mm + off_mm_env_end) || !file)
		return off;
	return piece(s, off, file, PIECE_PAGE, RT_ARG_EXEC_FILE | RT_AT_EXIT << 8 | PIECE_STR);
}

#endif
