//! usbmon diagnostics: the ring's accounting against mon_bin.c.
//!
//! The kernel keeps one queue per reader; MON_IOCX_MFETCH hands out the
//! offsets of the oldest events *without* removing them, and only a flush
//! (MON_IOCH_MFLUSH, or MFETCH's `nflush`) removes them. So the state kept
//! per open file is how many events were fetched and not flushed: a fetch
//! that hands out some of those again means the program forgot to flush,
//! a flush of more than that discards events the program never saw.

use super::{Area, CallInfo, Diag, errno_text, is_error};
use crate::abi::gen_usbmon::{self, mon_bin_hdr as HDR};
use crate::abi::layout::Field;
use crate::fdtable::{FdInfo, FileState};
use crate::ioctl::usbmon::{
    HDR_LEN, HDR_LEN_API0, MON_IOCG_STATS, MON_IOCH_MFLUSH, MON_IOCQ_RING_SIZE, MON_IOCT_RING_SIZE,
    MON_IOCX_GET, MON_IOCX_GET32, MON_IOCX_GETX, MON_IOCX_GETX32, MON_IOCX_MFETCH,
    MON_IOCX_MFETCH32, ring_in_proc_maps,
};
use crate::kernel::{Memory, PAGE};

/// `BUFF_MIN` and `BUFF_MAX` of mon_bin.c: the ring sizes it accepts. The
/// largest was 1228800 until 2025 and is 64 MiB since (`abi::usbmon`); a
/// size between is said only when the kernel refused it, which tells the
/// kernel's limit.
const RING_MIN: u64 = gen_usbmon::BUFF_MIN as u64;
const RING_MAX_OLD: u64 = crate::abi::usbmon::BUFF_MAX_BEFORE_2025 as u64;
const RING_MAX: u64 = gen_usbmon::BUFF_MAX as u64;
/// Ring events start at multiples of this (`PKT_ALIGN`).
const EVENT_ALIGN: u64 = gen_usbmon::PKT_ALIGN as u64;
/// Offsets read from one MFETCH at most (the count is the tracee's word).
const MAX_OFFSETS: u64 = 1 << 16;

/// One call on a usbmon fd, at its return.
pub struct Ctx<'a> {
    /// The call.
    pub call: &'a CallInfo<'a>,
    /// Its fd.
    pub fd: i32,
    /// Its raw result.
    pub rval: i64,
    /// MFETCH's nflush as passed (from the call's entry).
    pub nflush: Option<u64>,
    /// What the fd table knows of the fd (its mappings, its path).
    pub info: Option<&'a FdInfo>,
    /// The process whose /proc/PID/maps shows the ring.
    pub pid: i32,
}

impl Ctx<'_> {
    fn diag(&self, kind: &'static str, text: String) -> Diag {
        Diag::new(Area::Usbmon, kind, self.fd, text)
    }

    fn failed(&self) -> bool {
        is_error(self.rval)
    }

    /// `(address, length)` of the ring's mapping in the process.
    fn mapping(&self) -> Option<(u64, u64)> {
        let info = self.info?;
        info.ring()
            .or_else(|| ring_in_proc_maps(self.pid, &info.path))
    }
}

/// MFETCH's nflush as the program passed it (read at the call's entry).
pub fn mfetch_nflush(call: &CallInfo, mem: &mut Memory) -> Option<u64> {
    let (off, _) = mfetch_layout(call.args[1] as u32)?;
    let mut raw = [0u8; 4];
    mem.read_exact(call.args[2].wrapping_add(off + 4), &mut raw)
        .then(|| u32::from_le_bytes(raw) as u64)
}

/// Where MFETCH's `nfetch` is and how wide the offvec pointer is, by
/// request (the 64-bit struct, or mon_bin_mfetch32).
fn mfetch_layout(req: u32) -> Option<(u64, u64)> {
    let (native, compat) = (
        gen_usbmon::mon_bin_mfetch::NFETCH,
        gen_usbmon::mon_bin_mfetch32::NFETCH32,
    );
    match req {
        MON_IOCX_MFETCH => Some((
            native.off as u64,
            gen_usbmon::mon_bin_mfetch::OFFVEC.size as u64,
        )),
        MON_IOCX_MFETCH32 => Some((
            compat.off as u64,
            gen_usbmon::mon_bin_mfetch32::OFFVEC32.size as u64,
        )),
        _ => None,
    }
}

/// Update the state for a call that returned and say what was wrong.
pub fn leave(c: &Ctx, st: &mut FileState, mem: &mut Memory) -> Vec<Diag> {
    let mut out = Vec::new();
    match c.call.name {
        "mmap" | "mmap2" => mapped(c, st, &mut out),
        "ioctl" => ioctl(c, st, mem, &mut out),
        "read" if !c.failed() => read(c, st, mem, &mut out),
        _ => {}
    }
    out
}

/// read(2) hands out the ring's first event a piece at a time, its 48-byte
/// header and then its captured data, and frees it once all of both was
/// read (mon_bin_read): then, if a fetch had handed it out too, no flush
/// has to remove it any more. `len_cap` is read from the header as the
/// program received it.
fn read(c: &Ctx, st: &mut FileState, mem: &mut Memory, out: &mut Vec<Diag>) {
    let (buf, done) = (c.call.args[1], c.rval as u64);
    let pos = st.read_pos;
    let header = HDR_LEN_API0 as u64;
    if pos < header && pos + done < header && done > 0 {
        out.push(c.diag(
            "read_header",
            format!(
                "read(2) of {done} bytes ends inside the event's {header}-byte header (struct mon_bin_hdr, bytes {pos}..{}): the rest of it comes first in the next read",
                pos + done
            ),
        ));
    }
    const LEN_CAP_AT: u64 = gen_usbmon::mon_bin_hdr::LEN_CAP.off as u64;
    if st.read_len_cap.is_none() && pos <= LEN_CAP_AT && pos + done >= LEN_CAP_AT + 4 {
        let mut raw = [0u8; 4];
        if mem.read_exact(buf + (LEN_CAP_AT - pos), &mut raw) {
            st.read_len_cap = Some(u32::from_le_bytes(raw) as u64);
        }
    }
    st.read_pos = pos.saturating_add(done);
    if let Some(len_cap) = st.read_len_cap
        && st.read_pos >= HDR_LEN_API0 as u64 + len_cap
    {
        st.read_pos = 0;
        st.read_len_cap = None;
        st.fetched = st.fetched.map(|f| f.saturating_sub(1));
    }
}

fn mapped(c: &Ctx, st: &FileState, out: &mut Vec<Diag>) {
    if c.failed() {
        return;
    }
    let len = c.call.args[1];
    let offset = if c.call.name == "mmap2" {
        c.call.args[5].saturating_mul(PAGE)
    } else {
        c.call.args[5]
    };
    if let (Some(size), Some((addr, there))) = (st.ring_size, st.size_query_arg)
        && len != size
        && (len == there || len == there & 0xffff_ffff)
    {
        out.push(c.diag(
            "ring_size_query",
            format!(
                "mmap length {len} is what {addr:#x} held when MON_IOCQ_RING_SIZE was given it: the request writes nothing there; the ring's size ({size}) is its return value"
            ),
        ));
    }
    if let Some(size) = st.ring_size
        && offset.saturating_add(len) > size
    {
        out.push(c.diag(
            "mapping",
            format!(
                "mmap of {len} bytes at offset {offset} of the {size}-byte ring: reading past byte {} of the mapping raises SIGBUS",
                size.saturating_sub(offset)
            ),
        ));
    }
    if offset != 0 {
        out.push(c.diag(
            "mapping",
            format!(
                "mmap at ring offset {offset}: MFETCH offsets count from the ring's start, not from this mapping"
            ),
        ));
    }
}

fn ioctl(c: &Ctx, st: &mut FileState, mem: &mut Memory, out: &mut Vec<Diag>) {
    let req = c.call.args[1] as u32;
    let arg = c.call.args[2];
    match req {
        MON_IOCT_RING_SIZE => ring_size(c, st, mem, arg, out),
        // An argument to MON_IOCQ_RING_SIZE is not said at the call:
        // `ioctl(fd, MON_IOCQ_RING_SIZE)` passes none, so the register
        // holds whatever the caller left there, a stale pointer as often
        // as not, and no value tells a mistaken `&size` from that. What
        // is there is kept; the mmap that uses it tells (`mapped`).
        MON_IOCQ_RING_SIZE if !c.failed() => {
            st.ring_size = Some(c.rval as u64);
            let mut there = [0u8; 8];
            st.size_query_arg = (arg != 0 && mem.read_exact(arg, &mut there))
                .then(|| (arg, u64::from_le_bytes(there)));
        }
        MON_IOCH_MFLUSH if !c.failed() => {
            flushed(
                c,
                st,
                "MON_IOCH_MFLUSH",
                arg & 0xffff_ffff,
                c.rval as u64,
                out,
            );
        }
        MON_IOCX_MFETCH | MON_IOCX_MFETCH32 => mfetch(c, st, mem, out),
        MON_IOCX_GET | MON_IOCX_GETX | MON_IOCX_GET32 | MON_IOCX_GETX32
            if !c.failed() || c.rval == -(libc::EFAULT as i64) =>
        {
            get(c, mem, out);
            if !c.failed() {
                // A GET hands out the ring's first event and frees it
                // (mon_bin_get_event): if a fetch had handed it out too,
                // no flush has to remove it any more.
                st.fetched = st.fetched.map(|f| f.saturating_sub(1));
            }
        }
        MON_IOCG_STATS if !c.failed() => {
            let mut raw = [0u8; 4];
            if mem.read_exact(arg.wrapping_add(4), &mut raw) {
                let dropped = u32::from_le_bytes(raw);
                if dropped > 0 {
                    out.push(c.diag(
                        "dropped",
                        format!(
                            "{dropped} event{} lost since the last MON_IOCG_STATS: the ring was full (fetch and flush sooner, or a bigger ring)",
                            plural(dropped as u64)
                        ),
                    ));
                }
            }
        }
        _ => {}
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn ring_size(c: &Ctx, st: &mut FileState, mem: &mut Memory, size: u64, out: &mut Vec<Diag>) {
    let mut outcome = if c.failed() {
        format!("refused ({})", errno_text(c.rval))
    } else {
        "accepted".to_string()
    };
    // A size that is an address the program can read was meant to be
    // read through: the request takes the number itself.
    if size > RING_MAX && mem.read_exact(size, &mut [0u8; 1]) {
        outcome.push_str(
            "; it is an address in the program: MON_IOCT_RING_SIZE takes the size itself, not a pointer to it",
        );
    }
    if size < RING_MIN {
        out.push(c.diag(
            "ring_size",
            format!("ring size {size} is below the kernel's minimum of {RING_MIN}: {outcome}"),
        ));
    } else if size > RING_MAX {
        out.push(c.diag(
            "ring_size",
            format!(
                "ring size {size} is above the kernel's maximum of {RING_MAX} ({RING_MAX_OLD} before 2025): {outcome}"
            ),
        ));
    } else if size > RING_MAX_OLD && c.rval == -libc::EINVAL as i64 {
        // Accepted since 2025: only a refusal says this kernel is older.
        out.push(c.diag(
            "ring_size",
            format!(
                "ring size {size} is above this kernel's maximum of {RING_MAX_OLD} (kernels since 2025 take up to {RING_MAX}): {outcome}"
            ),
        ));
    } else if c.rval == -libc::EBUSY as i64 {
        out.push(c.diag(
            "ring_size",
            "MON_IOCT_RING_SIZE while the ring is mapped: refused (EBUSY); set the size before mmap"
                .to_string(),
        ));
    }
    // A size that is not a multiple of the page is rounded up, which
    // harms no one (the mapping is rounded the same way, and offsets stay
    // inside the ring): libpcap asks for such sizes for most snapshot
    // lengths, so it is not said.
    if !c.failed() {
        // A new ring: the queue is empty.
        st.ring_size = Some(size.div_ceil(PAGE).saturating_mul(PAGE));
        st.fetched = Some(0);
    }
}

/// A flush of `asked` events removed `done`: check it against what was
/// fetched and update the count.
fn flushed(c: &Ctx, st: &mut FileState, what: &str, asked: u64, done: u64, out: &mut Vec<Diag>) {
    if let Some(fetched) = st.fetched
        && asked > fetched
    {
        let unseen = done.saturating_sub(fetched);
        let tail = if unseen > 0 {
            format!(
                "the kernel discarded {unseen} event{} never fetched",
                plural(unseen)
            )
        } else {
            "no more were queued, so none was lost this time".to_string()
        };
        out.push(c.diag(
            "overflush",
            format!(
                "{what} of {asked} event{} but {} fetched and not flushed: {tail}",
                plural(asked),
                match fetched {
                    0 => "none was".to_string(),
                    1 => "1 was".to_string(),
                    n => format!("{n} were"),
                }
            ),
        ));
    }
    st.fetched = if done < asked {
        // The queue ran empty: nothing fetched is left either.
        Some(0)
    } else {
        st.fetched.map(|f| f.saturating_sub(done))
    };
}

fn mfetch(c: &Ctx, st: &mut FileState, mem: &mut Memory, out: &mut Vec<Diag>) {
    let req = c.call.args[1] as u32;
    let Some((count_at, ptr_len)) = mfetch_layout(req) else {
        return;
    };
    let arg = c.call.args[2];
    let name = if req == MON_IOCX_MFETCH {
        "MON_IOCX_MFETCH"
    } else {
        "MON_IOCX_MFETCH32"
    };
    let mut raw = [0u8; 16];
    let len = (count_at + 8) as usize;
    if !mem.read_exact(arg, &mut raw[..len]) {
        return;
    }
    let word = |at: u64| u32::from_le_bytes(raw[at as usize..at as usize + 4].try_into().unwrap());
    let offvec = if ptr_len == 8 {
        u64::from_le_bytes(raw[..8].try_into().unwrap())
    } else {
        word(0) as u64
    };
    // The flush comes first; the kernel writes back how many it removed.
    if let Some(asked) = c.nflush.filter(|&n| n > 0) {
        let done = word(count_at + 4) as u64;
        if !c.failed() || done <= asked {
            flushed(c, st, &format!("{name} nflush"), asked, done, out);
        }
    }
    if c.failed() {
        return;
    }
    let n = word(count_at) as u64;
    if let Some(fetched) = st.fetched {
        let again = fetched.min(n);
        if again > 0 {
            out.push(c.diag(
                "refetch",
                format!(
                    "{name} returned {again} event{} it had returned before and no flush removed: MON_IOCH_MFLUSH (or the next fetch's nflush) is missing",
                    plural(again)
                ),
            ));
        }
        st.fetched = Some(fetched.max(n));
    }
    offsets(c, st, mem, name, arg, offvec, n.min(MAX_OFFSETS), out);
}

/// Check the offsets MFETCH wrote: aligned, inside the ring, each event
/// inside the program's mapping. One diagnostic per kind of fault, with
/// how many offsets have it and the first.
#[allow(clippy::too_many_arguments)]
fn offsets(
    c: &Ctx,
    st: &FileState,
    mem: &mut Memory,
    name: &str,
    arg: u64,
    offvec: u64,
    n: u64,
    out: &mut Vec<Diag>,
) {
    let mut raw = vec![0u8; n as usize * 4];
    if !mem.read_exact(offvec, &mut raw) {
        return;
    }
    let struct_len = if name == "MON_IOCX_MFETCH" {
        gen_usbmon::mon_bin_mfetch::SIZEOF
    } else {
        gen_usbmon::mon_bin_mfetch32::SIZEOF
    } as u64;
    let overlaps = offvec < arg.saturating_add(struct_len) && arg < offvec.saturating_add(n * 4);
    let mapping = c.mapping();
    // (count, first offset, first event's length) per fault.
    let mut unaligned: Option<(u64, u64)> = None;
    let mut outside: Option<(u64, u64)> = None;
    let mut past: Option<(u64, u64, u64)> = None;
    let note = |slot: &mut Option<(u64, u64)>, off: u64| {
        let e = slot.get_or_insert((0, off));
        e.0 += 1;
    };
    for chunk in raw.chunks_exact(4) {
        let off = u32::from_le_bytes(chunk.try_into().unwrap()) as u64;
        if !off.is_multiple_of(EVENT_ALIGN) {
            note(&mut unaligned, off);
            continue;
        }
        if st.ring_size.is_some_and(|size| off >= size) {
            note(&mut outside, off);
            continue;
        }
        let Some((base, map_len)) = mapping else {
            continue;
        };
        let mut hdr = [0u8; HDR_LEN];
        let len = if off + HDR_LEN as u64 > map_len {
            HDR_LEN as u64
        } else if !mem.read_exact(base.wrapping_add(off), &mut hdr) {
            continue;
        } else if hdr[HDR::TYPE.off] == b'@' {
            // A filler: its data area is not meant to be read.
            HDR_LEN as u64
        } else {
            HDR_LEN as u64
                + u32::from_le_bytes(
                    hdr[HDR::LEN_CAP.off..HDR::LEN_CAP.end()]
                        .try_into()
                        .unwrap(),
                ) as u64
        };
        if off + len > map_len {
            let e = past.get_or_insert((0, off, len));
            e.0 += 1;
        }
    }
    if let Some((count, first)) = unaligned {
        let why = if overlaps {
            "offvec overlaps the struct, whose nfetch and nflush the kernel writes after the offsets"
        } else {
            "ring events start at multiples of 64"
        };
        out.push(c.diag(
            "offset",
            format!(
                "{name}: {count} offset{} not 64-byte aligned (the first {first}): {why}",
                plural(count)
            ),
        ));
    }
    if let (Some((count, first)), Some(size)) = (outside, st.ring_size) {
        out.push(c.diag(
            "offset",
            format!(
                "{name}: {count} offset{} outside the {size}-byte ring (the first {first})",
                plural(count)
            ),
        ));
    }
    if let (Some((count, first, len)), Some((_, map_len))) = (past, mapping) {
        out.push(c.diag(
            "offset",
            format!(
                "{name}: {count} event{} past the end of the {map_len}-byte mapping of the ring (the first at offset {first}, {len} bytes): reading {} faults",
                plural(count),
                if count == 1 { "it" } else { "them" }
            ),
        ));
    }
}

/// MON_IOCX_GET/GETX (and their 32-bit forms): after success the header
/// buffer against the data buffer, and data lost to a short `alloc`; after
/// EFAULT, a header buffer cut by the end of its mapping.
fn get(c: &Ctx, mem: &mut Memory, out: &mut Vec<Diag>) {
    let req = c.call.args[1] as u32;
    let arg = c.call.args[2];
    let (hdr, data, alloc) = if matches!(req, MON_IOCX_GET | MON_IOCX_GETX) {
        use gen_usbmon::mon_bin_get as get;
        let mut raw = [0u8; get::SIZEOF];
        if !mem.read_exact(arg, &mut raw) {
            return;
        }
        let q = |f: Field| f.read(&raw).unwrap_or(0);
        (q(get::HDR), q(get::DATA), q(get::ALLOC))
    } else {
        use gen_usbmon::mon_bin_get32 as get;
        let mut raw = [0u8; get::SIZEOF];
        if !mem.read_exact(arg, &mut raw) {
            return;
        }
        let d = |f: Field| f.read(&raw).unwrap_or(0);
        (d(get::HDR32), d(get::DATA32), d(get::ALLOC32))
    };
    let (name, hdr_len) = match req {
        MON_IOCX_GET => ("MON_IOCX_GET", HDR_LEN_API0),
        MON_IOCX_GET32 => ("MON_IOCX_GET32", HDR_LEN_API0),
        MON_IOCX_GETX => ("MON_IOCX_GETX", HDR_LEN),
        _ => ("MON_IOCX_GETX32", HDR_LEN),
    };
    let hdr_len = hdr_len as u64;
    if c.failed() {
        let mut buf = [0u8; HDR_LEN];
        let room = mem.read(hdr, &mut buf[..hdr_len as usize]) as u64;
        if room > 0 && room < hdr_len {
            out.push(c.diag(
                "header_buffer",
                format!(
                    "{name} writes a {hdr_len}-byte header, but hdr is {room} bytes before the end of its mapping: refused (EFAULT), the event stays queued"
                ),
            ));
        }
        return;
    }
    if data > hdr && data < hdr.saturating_add(hdr_len) {
        out.push(c.diag(
            "header_buffer",
            format!(
                "{name} writes a {hdr_len}-byte header, but the data buffer starts {} bytes after hdr: data copied there overwrites the header's last {} bytes",
                data - hdr,
                hdr_len - (data - hdr)
            ),
        ));
    }
    let mut raw = [0u8; 4];
    if !mem.read_exact(hdr.wrapping_add(HDR::LEN_CAP.off as u64), &mut raw) {
        return;
    }
    let len_cap = u32::from_le_bytes(raw) as u64;
    if alloc < len_cap {
        out.push(c.diag(
            "truncated",
            format!(
                "{name} copied {alloc} of the event's {len_cap} data bytes (alloc={alloc}): {} bytes lost with the event; MON_IOCQ_URB_LEN tells the size first",
                len_cap - alloc
            ),
        ));
    }
}
