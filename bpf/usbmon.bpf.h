/* rtrace's BPF program, its usbmon part (included by rtrace.bpf.c; built on
 * piece.bpf.h): the events a usbmon client fetched, copied at
 * the fetch's exit, from the client's mapping of the ring or, where the
 * client has not touched a page yet, from the kernel's. */
#ifndef RTRACE_USBMON_BPF_H
#define RTRACE_USBMON_BPF_H

#include "piece.bpf.h"

/* Offsets from the kernel's BTF for reading a usbmon ring from the
 * kernel's side (its pages are mapped into the client only when it first
 * touches them, which a tracepoint's program cannot make happen), after
 * file_of(): file.private_data, mon_reader_bin.b_vec, mon_pgmap.ptr and
 * sizeof(struct mon_pgmap); mon_pgmap_size 0 when usbmon's BTF was not
 * there. */
const volatile __u32 off_file_private = 0, off_mon_bvec = 0, off_pgmap_ptr = 0;
const volatile __u32 mon_pgmap_size = 0;

/* Call numbers and usbmon requests, from rtrace's tables. */
const volatile __u32 nr_mmap = 0, nr_ioctl = 0;           /* x86_64 */
const volatile __u32 nr_mmap2_32 = 0, nr_ioctl_32 = 0;    /* i386 */
const volatile __u32 mon_mfetch = 0, mon_mfetch32 = 0;
const volatile __u32 mon_get = 0, mon_getx = 0, mon_get32 = 0, mon_getx32 = 0;

/* Shared mappings of files by (tgid << 32 | fd): where a usbmon client's
 * ring is, to copy the events an MFETCH returns before the client reads
 * (and the kernel reuses) them. */
struct mapping {
	__u64 addr;
	__u64 len;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct mapping);
} mappings SEC(".maps");

/* struct mon_bin_hdr: its size and the fields read here. */
#define MON_HDR 64
#define MON_HDR_API0 48
#define MON_XFER_TYPE 9
#define MON_LEN_CAP 36
#define MON_NDESC 60
/* Data bytes copied per event: the text API's 32, after the ISO
 * descriptors (16 bytes each) of an isochronous event. */
#define MON_DATA 32
#define MON_ISODESC 16
#define MON_EVENTS 64
#define MON_DATA_MAX 1024

/* The bytes after an event's header that rtrace renders. */
static __always_inline __u32 mon_data_len(__u8 *hdr, __u32 hdr_len)
{
	__u32 len_cap = *(__u32 *)(hdr + MON_LEN_CAP);
	__u32 want = MON_DATA;
	if (hdr_len == MON_HDR && hdr[MON_XFER_TYPE] == 0)
		want += *(__u32 *)(hdr + MON_NDESC) * MON_ISODESC;
	if (want > len_cap)
		want = len_cap;
	return want > MON_DATA_MAX ? MON_DATA_MAX : want;
}

/* The usbmon ring pages behind the current task's `fd`: file ->
 * private_data (struct mon_reader_bin) -> b_vec. */
static __always_inline __u64 mon_ring_pages(__u32 fd)
{
	if (!mon_pgmap_size)
		return 0;
	__u64 file = file_of(fd), reader = 0, bvec = 0;
	if (!file ||
	    bpf_probe_read_kernel(&reader, 8, (void *)file + off_file_private) || !reader ||
	    bpf_probe_read_kernel(&bvec, 8, (void *)reader + off_mon_bvec))
		return 0;
	return bvec;
}

#define MON_PAGE 4096

/* `len` bytes at ring offset `roff` (the client's address `uaddr`): from
 * the client's mapping, or where that page is not mapped in yet, from the
 * kernel's page (within one page: callers split at page ends). */
static __always_inline __u32 mon_piece(struct scratch *s, __u32 off, __u64 uaddr, __u32 roff,
				       __u32 len, __u32 meta)
{
	off = piece(s, off, uaddr, len, meta);
	if (!s->last_fault || !s->mon_bvec)
		return off;
	__u64 page = 0;
	__u64 at = s->mon_bvec + (__u64)(roff / MON_PAGE) * mon_pgmap_size + off_pgmap_ptr;
	if (bpf_probe_read_kernel(&page, 8, (void *)at) || !page)
		return off;
	s->ksrc = page + roff % MON_PAGE;
	return piece(s, off, uaddr, len, meta | PIECE_KERNEL);
}

/* One fetched event at ring offset `roff` (the client's address `at`):
 * its header and the data rendered. A function of its own, verified once,
 * not in each of the fetch loop's iterations. */
__noinline __u32 mon_event(struct scratch *s, __u32 off, __u64 at, __u32 roff, __u32 meta)
{
	if (!s)
		return off;
	__u8 hdr[MON_HDR];
	/* Headers are 64-byte aligned: one never crosses a page. */
	off = mon_piece(s, off, at, roff, MON_HDR, meta);
	if (s->last_fault)
		return off;
	if (bpf_probe_read_user(hdr, MON_HDR, (void *)at) != 0 &&
	    bpf_probe_read_kernel(hdr, MON_HDR, (void *)s->ksrc) != 0)
		return off;
	/* The data, split where it crosses into the next page. */
	__u32 len = mon_data_len(hdr, MON_HDR);
	__u32 doff = roff + MON_HDR;
	__u32 first = MON_PAGE - doff % MON_PAGE;
	if (first > len)
		first = len;
	off = mon_piece(s, off, at + MON_HDR, doff, first, meta);
	if (len > first)
		off = mon_piece(s, off, at + MON_HDR + first, doff + first, len - first, meta);
	return off;
}

/* mon_mfetch_events()'s state for bpf_loop: one turn verified, not 64. */
struct fetch_ctx {
	struct scratch *s;
	__u64 base;
	__u32 n;
	__u32 off;
	__u32 meta;
};

/* Fetched event `i`, whose ring offset is in s->ptrs. */
static long fetched_event(__u32 i, void *data)
{
	struct fetch_ctx *f = data;
	struct scratch *s = f->s;
	if (!s || i >= f->n)
		return 1;
	__u32 *offs = (__u32 *)s->ptrs;
	__u32 roff = offs[i & (MON_EVENTS * 2 - 1)];
	f->off = mon_event(s, f->off, f->base + roff, roff, f->meta);
	return 0;
}

/* MON_IOCX_MFETCH returned: its offsets, and each event they name in the
 * ring at `base`. meta: the argument index, phase << 8, VEC_COMPAT. */
__noinline __u32 mon_mfetch_events(struct scratch *s, __u32 off, __u64 arg, __u64 base, __u32 meta)
{
	if (!s)
		return off;
	int compat = meta & VEC_COMPAT;
	__u32 pmeta = meta & 0xffff;
	__u64 offvec = 0;
	__u32 nfetch = 0;
	if (compat) {
		__u32 raw[2];
		if (bpf_probe_read_user(raw, sizeof(raw), (void *)arg) != 0)
			return off;
		offvec = raw[0];
		nfetch = raw[1];
	} else {
		if (bpf_probe_read_user(&offvec, 8, (void *)arg) != 0 ||
		    bpf_probe_read_user(&nfetch, 4, (void *)(arg + 8)) != 0)
			return off;
	}
	off = piece(s, off, offvec, nfetch * 4, pmeta);
	__u32 n = nfetch < MON_EVENTS ? nfetch : MON_EVENTS;
	__u32 *offs = (__u32 *)s->ptrs;
	if (bpf_probe_read_user(offs, (n & (MON_EVENTS * 2 - 1)) * 4, (void *)offvec) != 0)
		return off;
	struct fetch_ctx f = {.s = s, .base = base, .n = n, .off = off, .meta = pmeta};
	bpf_loop(MON_EVENTS, fetched_event, &f, 0);
	return f.off;
}

/* MON_IOCX_GET(X)(32) returned: the header and data it copied out. */
__noinline __u32 mon_get_event(struct scratch *s, __u32 off, __u64 arg, __u32 hdr_len, __u32 meta)
{
	if (!s)
		return off;
	int compat = meta & VEC_COMPAT;
	__u32 pmeta = meta & 0xffff;
	__u64 hdr_addr = 0, data = 0, alloc = 0;
	if (compat) {
		__u32 raw[3];
		if (bpf_probe_read_user(raw, sizeof(raw), (void *)arg) != 0)
			return off;
		hdr_addr = raw[0];
		data = raw[1];
		alloc = raw[2];
	} else {
		__u64 raw[3];
		if (bpf_probe_read_user(raw, sizeof(raw), (void *)arg) != 0)
			return off;
		hdr_addr = raw[0];
		data = raw[1];
		alloc = raw[2];
	}
	__u8 hdr[MON_HDR] = {};
	hdr_len = hdr_len == MON_HDR ? MON_HDR : MON_HDR_API0;
	if (bpf_probe_read_user(hdr, hdr_len, (void *)hdr_addr) != 0)
		return off;
	off = piece(s, off, hdr_addr, hdr_len, pmeta);
	__u32 want = mon_data_len(hdr, hdr_len);
	if (want > alloc)
		want = alloc;
	return piece(s, off, data, want, pmeta);
}

/* What a call's exit adds for usbmon: the ring a shared mmap maps, and
 * the events a fetch returned. The call is the one in s->ev. A function
 * of its own: verified once, not once for every state the captures
 * before it leave (that had tripled the exit program's verification). */
__noinline __u32 usbmon_exit(struct scratch *s, __u32 off)
{
	if (!s)
		return off;
	long nr = s->ev.nr, ret = s->ev.ret;
	int compat = s->ev.flags & RT_COMPAT;
	__u32 tgid = s->ev.tgid;
	__u64 *args = s->ev.args;
	__u32 mmap_nr = compat ? nr_mmap2_32 : nr_mmap;
	__u32 ioctl_nr = compat ? nr_ioctl_32 : nr_ioctl;
	/* A mapping (not an error), MAP_SHARED, of a file. */
	if (nr == mmap_nr && (unsigned long)ret < (unsigned long)-4095L && (args[3] & 1) &&
	    (long)args[4] >= 0) {
		__u64 key = (__u64)tgid << 32 | (__u32)args[4];
		/* An i386 result comes sign-extended (as ptrace reads it): the
		 * address is its low half. */
		struct mapping m = {.addr = compat ? (__u32)ret : ret, .len = args[1]};
		bpf_map_update_elem(&mappings, &key, &m, BPF_ANY);
		return off;
	}
	if (nr != ioctl_nr || ret < 0)
		return off;
	__u32 req = args[1];
	__u32 meta = 2 | RT_AT_EXIT << 8 | (compat ? VEC_COMPAT : 0);
	if (req == mon_mfetch || req == mon_mfetch32) {
		__u64 key = (__u64)tgid << 32 | (__u32)args[0];
		struct mapping *m = bpf_map_lookup_elem(&mappings, &key);
		if (m) {
			s->mon_bvec = mon_ring_pages((__u32)args[0]);
			off = mon_mfetch_events(s, off, args[2], m->addr, meta);
		}
	} else if (req == mon_get || req == mon_get32) {
		off = mon_get_event(s, off, args[2], MON_HDR_API0, meta);
	} else if (req == mon_getx || req == mon_getx32) {
		off = mon_get_event(s, off, args[2], MON_HDR, meta);
	}
	return off;
}

#endif
