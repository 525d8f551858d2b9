/* rtrace's BPF program, user_events' enable words (included by
 * rtrace.bpf.c after usbmon.bpf.h): a process's DIAG_IOCSREG gives the
 * kernel a word of its memory in which the kernel keeps the event's
 * enable bit. A write to the event is dropped (EBADF) while the event is
 * disabled, and rtrace's diagnostic says which bit of which word was
 * clear: the word must be copied at the write, which the process may
 * outlive rtrace's reading of by far. So each successful registration's
 * word is noted by process, and each write(2) and writev(2) of that
 * process carries the words it noted. */
#ifndef RTRACE_ENABLERS_BPF_H
#define RTRACE_ENABLERS_BPF_H

#include "piece.bpf.h"

/* The words one process's writes carry, at most. */
#define UEV_WORDS 8

struct uev_words {
	__u64 addr[UEV_WORDS];
	__u8 size[UEV_WORDS];
	__u32 n;
};

/* By tgid; the least recently used process's go first. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct uev_words);
} uev_words SEC(".maps");

/* DIAG_IOCSREG's codes (x86_64's, i386's) and struct user_reg's
 * enable_addr and enable_size offsets, from the generated tables; write's
 * and writev's numbers (ioctl's are usbmon.bpf.h's). */
const volatile __u32 uev_reg = 0, uev_reg32 = 0, uev_off_addr = 0, uev_off_size = 0;
const volatile __u32 nr_write = 0, nr_writev = 0, nr_write_32 = 0, nr_writev_32 = 0;

/* Set at the first registration noted: until then no write looks. */
__u32 uev_seen = 0;

/* At an exit: a successful DIAG_IOCSREG's enable word, noted for its
 * process's writes. A function of its own, checked once. */
__noinline int note_enable_word(struct scratch *s)
{
	if (!s || !uev_reg)
		return 0;
	__u32 compat = s->ev.flags & RT_COMPAT;
	if (s->ev.nr != (compat ? nr_ioctl_32 : nr_ioctl) || s->ev.ret != 0 ||
	    (__u32)s->ev.args[1] != (compat ? uev_reg32 : uev_reg))
		return 0;
	__u64 reg = s->ev.args[2], addr = 0;
	__u8 size = 0;
	if (bpf_probe_read_user(&addr, 8, (void *)reg + uev_off_addr) ||
	    bpf_probe_read_user(&size, 1, (void *)reg + uev_off_size) || !addr)
		return 0;
	if (compat)
		addr &= 0xffffffff;
	__u32 tgid = s->ev.tgid;
	struct uev_words *w = bpf_map_lookup_elem(&uev_words, &tgid);
	if (!w) {
		struct uev_words none = {};
		bpf_map_update_elem(&uev_words, &tgid, &none, BPF_NOEXIST);
		w = bpf_map_lookup_elem(&uev_words, &tgid);
		if (!w)
			return 0;
	}
	__u32 n = w->n;
	for (__u32 i = 0; i < UEV_WORDS; i++)
		if (i < n && w->addr[i] == addr)
			return 0;
	if (n >= UEV_WORDS)
		return 0;
	w->addr[n & (UEV_WORDS - 1)] = addr;
	w->size[n & (UEV_WORDS - 1)] = size == 8 ? 8 : 4;
	w->n = n + 1;
	uev_seen = 1;
	return 0;
}

/* At a write's or writev's entry: the enable words its process noted,
 * into the record at `off` (RT_ARG_WORD). */
__noinline __u32 enable_words(struct scratch *s, __u32 off)
{
	if (!s)
		return off;
	__u32 compat = s->ev.flags & RT_COMPAT;
	__s64 nr = s->ev.nr;
	if (nr != (compat ? nr_write_32 : nr_write) && nr != (compat ? nr_writev_32 : nr_writev))
		return off;
	__u32 tgid = s->ev.tgid;
	struct uev_words *w = bpf_map_lookup_elem(&uev_words, &tgid);
	if (!w)
		return off;
	for (__u32 i = 0; i < UEV_WORDS; i++) {
		if (i >= w->n)
			break;
		off = piece(s, off, w->addr[i], w->size[i], RT_ARG_WORD | RT_AT_ENTER << 8);
	}
	return off;
}

#endif
