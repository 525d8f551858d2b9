//! The usbmon group (magic 0x92): the binary API of `/dev/usbmonN`.
//!
//! Requests and structs from drivers/usb/mon/mon_bin.c (the kernel has no
//! uapi header for them). Besides naming the requests and decoding their
//! structs, this group prints the USB events a call fetched: after
//! MON_IOCX_MFETCH it reads each event's header from the ring the process
//! mmapped (the fd table knows where), after MON_IOCX_GET/GETX from the
//! header and data buffers, and after read(2) from the read buffer. Each
//! event is rendered as the kernel's text API (`/sys/kernel/debug/usb/
//! usbmon/Nu`) renders it, with the timestamp taken from the binary header.

use std::fmt::Write as _;

use super::raw::{i32_at, i64_at, u8_at, u16_at, u32_at, u64_at};
use super::{Arg, IF_IN, IF_OUT, IoctlCall, IoctlGroup, Layout, Request, typed};
use crate::abi::gen_usbmon::{
    self as k, mon_bin_get as GET_F, mon_bin_get32 as GET32_F, mon_bin_hdr as H,
    mon_bin_isodesc as ISO, mon_bin_mfetch as MFETCH_F, mon_bin_mfetch32 as MFETCH32_F,
};
pub use crate::abi::gen_usbmon::{
    MON_IOCG_STATS, MON_IOCH_MFLUSH, MON_IOCQ_RING_SIZE, MON_IOCQ_URB_LEN, MON_IOCT_RING_SIZE,
    MON_IOCX_GET, MON_IOCX_GET32, MON_IOCX_GETX, MON_IOCX_GETX32, MON_IOCX_MFETCH,
    MON_IOCX_MFETCH32,
};
use crate::decode::put_extended;
use crate::format::{Naming, Printer};

/// Bytes of the header MON_IOCX_GET and read(2) deliver (`PKT_SZ_API0`).
pub const HDR_LEN_API0: usize = k::PKT_SZ_API0 as usize;
/// Bytes of the full header (MON_IOCX_GETX, the mmapped ring): `PKT_SZ_API1`.
pub const HDR_LEN: usize = k::PKT_SZ_API1 as usize;
/// Data bytes the text API shows at most (`DATA_MAX` in mon_text.c).
const TEXT_DATA_MAX: usize = 32;
/// ISO descriptors the text API shows at most (`ISODESC_MAX`).
const TEXT_ISODESC_MAX: usize = 5;
/// Bytes of one ISO descriptor in the data area (`struct mon_bin_isodesc`).
const ISODESC_LEN: usize = ISO::SIZEOF;
/// Offsets printed in an MFETCH `offvec` before `..` (without -v).
const OFFVEC_SHOWN: usize = 32;
/// Events decoded from one MFETCH at most (a count is the tracee's word).
const MAX_FETCHED: u32 = 1 << 16;

/// `struct mon_bin_stats`
pub static STATS: Layout = Layout {
    name: "mon_bin_stats",
    size: k::mon_bin_stats::SIZEOF,
    fields: &[
        typed(k::mon_bin_stats::QUEUED, "u32"),
        typed(k::mon_bin_stats::DROPPED, "u32"),
    ],
};

/// `struct mon_bin_get`
pub static GET: Layout = Layout {
    name: "mon_bin_get",
    size: GET_F::SIZEOF,
    fields: &[
        typed(GET_F::HDR, "struct mon_bin_hdr *"),
        typed(GET_F::DATA, "void *"),
        typed(GET_F::ALLOC, "size_t"),
    ],
};

/// `struct mon_bin_mfetch`
pub static MFETCH: Layout = Layout {
    name: "mon_bin_mfetch",
    size: MFETCH_F::SIZEOF,
    fields: &[
        typed(MFETCH_F::OFFVEC, "u32 *"),
        typed(MFETCH_F::NFETCH, "u32"),
        typed(MFETCH_F::NFLUSH, "u32"),
    ],
};

/// `struct mon_bin_get32` (32-bit callers)
pub static GET32: Layout = Layout {
    name: "mon_bin_get32",
    size: GET32_F::SIZEOF,
    fields: &[
        typed(GET32_F::HDR32, "u32"),
        typed(GET32_F::DATA32, "u32"),
        typed(GET32_F::ALLOC32, "u32"),
    ],
};

/// `struct mon_bin_mfetch32` (32-bit callers)
pub static MFETCH32: Layout = Layout {
    name: "mon_bin_mfetch32",
    size: MFETCH32_F::SIZEOF,
    fields: &[
        typed(MFETCH32_F::OFFVEC32, "u32"),
        typed(MFETCH32_F::NFETCH32, "u32"),
        typed(MFETCH32_F::NFLUSH32, "u32"),
    ],
};

static REQUESTS: &[Request] = &[
    Request::new(MON_IOCQ_URB_LEN, "MON_IOCQ_URB_LEN", 0, Arg::None),
    Request::new(MON_IOCG_STATS, "MON_IOCG_STATS", IF_IN, Arg::Struct(&STATS)),
    Request::new(MON_IOCT_RING_SIZE, "MON_IOCT_RING_SIZE", 0, Arg::Value),
    Request::new(MON_IOCQ_RING_SIZE, "MON_IOCQ_RING_SIZE", 0, Arg::None),
    Request::new(MON_IOCX_GET, "MON_IOCX_GET", IF_OUT, Arg::Struct(&GET)),
    Request::new(
        MON_IOCX_MFETCH,
        "MON_IOCX_MFETCH",
        IF_OUT | IF_IN,
        Arg::Struct(&MFETCH),
    ),
    Request::new(MON_IOCH_MFLUSH, "MON_IOCH_MFLUSH", 0, Arg::Value),
    Request::new(MON_IOCX_GETX, "MON_IOCX_GETX", IF_OUT, Arg::Struct(&GET)),
    Request::new(
        MON_IOCX_GET32,
        "MON_IOCX_GET32",
        IF_OUT,
        Arg::Struct(&GET32),
    ),
    Request::new(
        MON_IOCX_MFETCH32,
        "MON_IOCX_MFETCH32",
        IF_OUT | IF_IN,
        Arg::Struct(&MFETCH32),
    ),
    Request::new(
        MON_IOCX_GETX32,
        "MON_IOCX_GETX32",
        IF_OUT,
        Arg::Struct(&GET32),
    ),
];

/// The usbmon group.
pub struct Usbmon;

/// The one instance the dispatcher uses.
pub static USBMON: Usbmon = Usbmon;

impl IoctlGroup for Usbmon {
    fn name(&self) -> &'static str {
        "usbmon"
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, p: &mut Printer, req: &Request, d: &[u8], phase: u8) -> bool {
        match (req.code, phase) {
            (MON_IOCG_STATS, _) => {
                p.uint("queued", u32_at(d, k::mon_bin_stats::QUEUED.off) as u64);
                p.uint("dropped", u32_at(d, k::mon_bin_stats::DROPPED.off) as u64);
            }
            (MON_IOCX_GET | MON_IOCX_GETX, _) => {
                p.ptr("hdr", u64_at(d, GET_F::HDR.off));
                p.ptr("data", u64_at(d, GET_F::DATA.off));
                p.uint("alloc", u64_at(d, GET_F::ALLOC.off));
            }
            (MON_IOCX_GET32 | MON_IOCX_GETX32, _) => {
                p.ptr("hdr32", u32_at(d, GET32_F::HDR32.off) as u64);
                p.ptr("data32", u32_at(d, GET32_F::DATA32.off) as u64);
                p.uint("alloc32", u32_at(d, GET32_F::ALLOC32.off) as u64);
            }
            (MON_IOCX_MFETCH, IF_OUT) => {
                p.ptr("offvec", u64_at(d, MFETCH_F::OFFVEC.off));
                p.uint("nfetch", u32_at(d, MFETCH_F::NFETCH.off) as u64);
                p.uint("nflush", u32_at(d, MFETCH_F::NFLUSH.off) as u64);
            }
            (MON_IOCX_MFETCH, _) => {
                let count = u32_at(d, MFETCH_F::NFETCH.off);
                p.uint("nfetch", count as u64);
                p.uint("nflush", u32_at(d, MFETCH_F::NFLUSH.off) as u64);
                put_offvec(p, "offvec", u64_at(d, MFETCH_F::OFFVEC.off), count);
            }
            (MON_IOCX_MFETCH32, IF_OUT) => {
                p.ptr("offvec32", u32_at(d, MFETCH32_F::OFFVEC32.off) as u64);
                p.uint("nfetch32", u32_at(d, MFETCH32_F::NFETCH32.off) as u64);
                p.uint("nflush32", u32_at(d, MFETCH32_F::NFLUSH32.off) as u64);
            }
            (MON_IOCX_MFETCH32, _) => {
                let count = u32_at(d, MFETCH32_F::NFETCH32.off);
                p.uint("nfetch32", count as u64);
                p.uint("nflush32", u32_at(d, MFETCH32_F::NFLUSH32.off) as u64);
                put_offvec(
                    p,
                    "offvec32",
                    u32_at(d, MFETCH32_F::OFFVEC32.off) as u64,
                    count,
                );
            }
            _ => return false,
        }
        true
    }

    fn extended(&self, p: &mut Printer, req: &Request, call: &IoctlCall) {
        match req.code {
            MON_IOCX_GET | MON_IOCX_GETX | MON_IOCX_GET32 | MON_IOCX_GETX32 => {
                fetched_by_get(p, req.code, call.arg)
            }
            MON_IOCX_MFETCH | MON_IOCX_MFETCH32 => fetched_by_mfetch(p, req.code, call),
            MON_IOCT_RING_SIZE => put_ring_rounded(p, call.arg),
            _ => {}
        }
    }
}

/// What the kernel made of a ring size that is not a multiple of the page:
/// it rounds it up (`CHUNK_ALIGN` in mon_bin.c), harmlessly, so this is
/// said with the result, not as a diagnostic: `= 0 (rounded up to 12288)`.
fn put_ring_rounded(p: &mut Printer, size: u64) {
    let page = crate::kernel::PAGE;
    if size.is_multiple_of(page) {
        return;
    }
    let rounded = size.div_ceil(page).saturating_mul(page);
    put_extended(p, "ring_size", |p, name| {
        if p.json() {
            p.uint(name, rounded);
        } else {
            p.field(name, &format!("rounded up to {rounded}"));
        }
    });
}

/// The ring offsets MFETCH wrote: `[0, 128, 256]`, or the pointer.
fn put_offvec(p: &mut Printer, name: &str, addr: u64, count: u32) {
    let shown = if p.config().verbose > 0 {
        count.min(MAX_FETCHED) as usize
    } else {
        (count as usize).min(OFFVEC_SHOWN)
    };
    let mut raw = vec![0u8; shown * 4];
    if addr == 0 || !p.mem().read_exact(addr, &mut raw) {
        p.ptr(name, addr);
        return;
    }
    p.open(name, "[", Naming::Elements);
    p.bounded(0..count as usize, shown, |p, i| {
        p.uint("", u32_at(&raw, i * 4) as u64);
    });
    p.close("]");
}

/// The event GET/GETX copied to the caller's `hdr` and `data` buffers.
fn fetched_by_get(p: &mut Printer, code: u32, arg: u64) {
    let compat = matches!(code, MON_IOCX_GET32 | MON_IOCX_GETX32);
    let mut raw = [0u8; GET_F::SIZEOF];
    let size = if compat {
        GET32_F::SIZEOF
    } else {
        GET_F::SIZEOF
    };
    if !p.mem().read_exact(arg, &mut raw[..size]) {
        return;
    }
    let (hdr_addr, data_addr, alloc) = if compat {
        (
            u32_at(&raw, GET32_F::HDR32.off) as u64,
            u32_at(&raw, GET32_F::DATA32.off) as u64,
            u32_at(&raw, GET32_F::ALLOC32.off) as u64,
        )
    } else {
        (
            u64_at(&raw, GET_F::HDR.off),
            u64_at(&raw, GET_F::DATA.off),
            u64_at(&raw, GET_F::ALLOC.off),
        )
    };
    let hdr_len = if matches!(code, MON_IOCX_GETX | MON_IOCX_GETX32) {
        HDR_LEN
    } else {
        HDR_LEN_API0
    };
    let mut hdr = vec![0u8; hdr_len];
    if !p.mem().read_exact(hdr_addr, &mut hdr) {
        p.continuation(&format!("> &0x{hdr_addr:x} (header not readable)"));
        return;
    }
    let len_cap = u32_at(&hdr, H::LEN_CAP.off) as u64;
    let want = data_wanted(&hdr).min(len_cap.min(alloc) as usize);
    let mut data = vec![0u8; want];
    let got = p.mem().read(data_addr, &mut data);
    data.truncate(got);
    put_event(p, &hdr, &data);
}

/// The events MFETCH fetched, read from the mmapped ring.
fn fetched_by_mfetch(p: &mut Printer, code: u32, call: &IoctlCall) {
    let compat = code == MON_IOCX_MFETCH32;
    let mut raw = [0u8; MFETCH_F::SIZEOF];
    let size = if compat {
        MFETCH32_F::SIZEOF
    } else {
        MFETCH_F::SIZEOF
    };
    if !p.mem().read_exact(call.arg, &mut raw[..size]) {
        return;
    }
    let (offvec, count) = if compat {
        (
            u32_at(&raw, MFETCH32_F::OFFVEC32.off) as u64,
            u32_at(&raw, MFETCH32_F::NFETCH32.off),
        )
    } else {
        (
            u64_at(&raw, MFETCH_F::OFFVEC.off),
            u32_at(&raw, MFETCH_F::NFETCH.off),
        )
    };
    if count == 0 {
        return;
    }
    let count = count.min(MAX_FETCHED);
    // The latest mapping, followed through mremap (as the diagnostics).
    let known = call.fdinfo.and_then(|info| info.ring());
    let Some((base, ring_len)) = known.or_else(|| ring_from_proc(call)) else {
        p.continuation("> (the ring's mapping is unknown: events not decoded)");
        return;
    };
    let mut offsets = vec![0u8; count as usize * 4];
    if !p.mem().read_exact(offvec, &mut offsets) {
        return;
    }
    for i in 0..count as usize {
        let off = u32_at(&offsets, i * 4) as u64;
        if off + HDR_LEN as u64 > ring_len {
            p.continuation(&format!(
                "> offset {off} is outside the {ring_len}-byte ring"
            ));
            continue;
        }
        let mut hdr = [0u8; HDR_LEN];
        if !p.mem().read_exact(base + off, &mut hdr) {
            p.continuation(&format!("> &0x{:x} (event not readable)", base + off));
            continue;
        }
        let len_cap = u32_at(&hdr, H::LEN_CAP.off) as usize;
        let want = data_wanted(&hdr).min(len_cap);
        let mut data = vec![0u8; want];
        let got = p.mem().read(base + off + HDR_LEN as u64, &mut data);
        data.truncate(got);
        put_event(p, &hdr, &data);
    }
}

/// Find the ring in /proc/PID/maps when its mmap was not seen (attached
/// with -p, or mmap not traced): the mapping of the fd's device file.
fn ring_from_proc(call: &IoctlCall) -> Option<(u64, u64)> {
    ring_in_proc_maps(call.pid, &call.fdinfo?.path)
}

/// The first mapping of the file `path` in /proc/PID/maps: (address, length).
/// The maps are read as bytes: one mapping's name that is not UTF-8 must
/// not hide the ring.
pub fn ring_in_proc_maps(pid: i32, path: &[u8]) -> Option<(u64, u64)> {
    let maps = std::fs::read(format!("/proc/{pid}/maps")).ok()?;
    maps.split(|&b| b == b'\n').find_map(|line| {
        let mut words = line
            .split(|b| b.is_ascii_whitespace())
            .filter(|w| !w.is_empty());
        let range = std::str::from_utf8(words.next()?).ok()?;
        let name = words.nth(4)?;
        if name != path {
            return None;
        }
        let (start, end) = range.split_once('-')?;
        let start = u64::from_str_radix(start, 16).ok()?;
        let end = u64::from_str_radix(end, 16).ok()?;
        Some((start, end - start))
    })
}

/// Print the event a read(2) on a usbmon fd delivered into `buf`: a 48-byte
/// header followed by data.
pub fn fetched_by_read(p: &mut Printer, buf: u64, len: u64) {
    if len < HDR_LEN_API0 as u64 {
        return;
    }
    let mut hdr = [0u8; HDR_LEN_API0];
    if !p.mem().read_exact(buf, &mut hdr) {
        return;
    }
    let len_cap = u32_at(&hdr, H::LEN_CAP.off) as u64;
    let avail = (len - HDR_LEN_API0 as u64).min(len_cap);
    let want = data_wanted(&hdr).min(avail as usize);
    let mut data = vec![0u8; want];
    let got = p.mem().read(buf + HDR_LEN_API0 as u64, &mut data);
    data.truncate(got);
    put_event(p, &hdr, &data);
}

/// One fetched event, whichever call fetched it: its line (`> ` and the
/// kernel's text; JSON: its object), under -v its header's fields, and
/// with `--timeline` an instant on its bus's track at its kernel
/// timestamp. A filler (`@`, the ring's padding) is no event: it has no
/// fields to show and no place on a bus.
fn put_event(p: &mut Printer, hdr: &[u8], data: &[u8]) {
    let text = render(hdr, data);
    let filler = u8_at(hdr, H::TYPE.off) == b'@';
    if !filler {
        let bus = u16_at(hdr, H::BUSNUM.off);
        let realtime_ns = i64_at(hdr, H::TS_SEC.off) as i128 * 1_000_000_000
            + i32_at(hdr, H::TS_USEC.off) as i128 * 1000;
        // Named as the kernel's text names it: kind and address
        // (`S Ci:1:002:0`), the words after the id and the time.
        let name = text
            .split(' ')
            .skip(2)
            .take(2)
            .collect::<Vec<_>>()
            .join(" ");
        p.device_event(
            &format!("usbmon bus {bus}"),
            Some(realtime_ns),
            &name,
            &text,
        );
    }
    p.continuation_with(&format!("> {text}"), || event_json(hdr, data, &text));
    if p.config().verbose > 0 && !filler {
        p.continuation(&format!("  {}", header_fields(hdr)));
    }
}

/// One event as a JSON object: the header's fields, the captured data
/// shown (hex) and the kernel-text rendering.
pub fn event_json(hdr: &[u8], data: &[u8], text: &str) -> serde_json::Value {
    let kind = u8_at(hdr, H::TYPE.off);
    if kind == b'@' {
        return serde_json::json!({ "usbmon": "filler", "len_cap": u32_at(hdr, H::LEN_CAP.off), "text": text });
    }
    let char_or_num = |b: u8| {
        if b.is_ascii_graphic() {
            serde_json::Value::from((b as char).to_string())
        } else {
            serde_json::Value::from(b)
        }
    };
    let shown = data
        .len()
        .min(TEXT_DATA_MAX + iso_descs_present(hdr) * ISODESC_LEN);
    let mut hex = String::new();
    for b in &data[..shown] {
        let _ = write!(hex, "{b:02x}");
    }
    let mut obj = serde_json::json!({
        "usbmon": "event",
        "id": format!("{:x}", u64_at(hdr, H::ID.off)),
        "type": char_or_num(kind),
        "xfer_type": u8_at(hdr, H::XFER_TYPE.off),
        "epnum": u8_at(hdr, H::EPNUM.off),
        "devnum": u8_at(hdr, H::DEVNUM.off),
        "busnum": u16_at(hdr, H::BUSNUM.off),
        "flag_setup": char_or_num(u8_at(hdr, H::FLAG_SETUP.off)),
        "flag_data": char_or_num(u8_at(hdr, H::FLAG_DATA.off)),
        "ts_sec": i64_at(hdr, H::TS_SEC.off),
        "ts_usec": i32_at(hdr, H::TS_USEC.off),
        "status": i32_at(hdr, H::STATUS.off),
        "len_urb": u32_at(hdr, H::LEN_URB.off),
        "len_cap": u32_at(hdr, H::LEN_CAP.off),
        "setup": format!("{:016x}", u64::from_be_bytes(hdr[H::S_SETUP.off..H::S_SETUP.end()].try_into().expect("8 bytes"))),
        "data": hex,
        "text": text,
    });
    if hdr.len() >= HDR_LEN
        && let Some(map) = obj.as_object_mut()
    {
        map.insert("interval".into(), i32_at(hdr, H::INTERVAL.off).into());
        map.insert("start_frame".into(), i32_at(hdr, H::START_FRAME.off).into());
        map.insert("xfer_flags".into(), u32_at(hdr, H::XFER_FLAGS.off).into());
        map.insert("ndesc".into(), u32_at(hdr, H::NDESC.off).into());
    }
    obj
}

/// How many data bytes rendering needs: the text API's 32, plus the ISO
/// descriptors that precede the data of an isochronous event.
fn data_wanted(hdr: &[u8]) -> usize {
    TEXT_DATA_MAX + iso_descs_present(hdr) * ISODESC_LEN
}

/// ISO descriptors at the start of the data area.
fn iso_descs_present(hdr: &[u8]) -> usize {
    if u8_at(hdr, H::XFER_TYPE.off) != 0 {
        return 0;
    }
    if hdr.len() >= HDR_LEN {
        u32_at(hdr, H::NDESC.off) as usize
    } else {
        // The short header has no ndesc: the kernel places up to numdesc.
        i32_at(hdr, H::S_ISO_NUMDESC.off).max(0) as usize
    }
}

/// Render one event as the kernel's text API (`Nu` files) prints it, with
/// the timestamp as `SECONDS.MICROSECONDS` from the binary header. `hdr` is
/// the 48- or 64-byte `struct mon_bin_hdr`; `data` the captured bytes after
/// it (as many as were read; 32 plus ISO descriptors suffice).
pub fn render(hdr: &[u8], data: &[u8]) -> String {
    debug_assert!(hdr.len() >= HDR_LEN_API0);
    let id = u64_at(hdr, H::ID.off);
    let kind = u8_at(hdr, H::TYPE.off);
    let xfer_type = u8_at(hdr, H::XFER_TYPE.off);
    let epnum = u8_at(hdr, H::EPNUM.off);
    let devnum = u8_at(hdr, H::DEVNUM.off);
    let busnum = u16_at(hdr, H::BUSNUM.off);
    let flag_setup = u8_at(hdr, H::FLAG_SETUP.off);
    let flag_data = u8_at(hdr, H::FLAG_DATA.off);
    let ts_sec = i64_at(hdr, H::TS_SEC.off);
    let ts_usec = i32_at(hdr, H::TS_USEC.off);
    let status = i32_at(hdr, H::STATUS.off);
    let len_urb = u32_at(hdr, H::LEN_URB.off) as i32;
    let len_cap = u32_at(hdr, H::LEN_CAP.off) as usize;
    let full = hdr.len() >= HDR_LEN;

    if kind == b'@' {
        return format!("@ ring filler, {} bytes", HDR_LEN + len_cap);
    }
    let kind_char = if kind.is_ascii_graphic() {
        kind as char
    } else {
        '?'
    };
    let utype = match xfer_type {
        0 => 'Z',
        1 => 'I',
        2 => 'C',
        _ => 'B',
    };
    let udir = if epnum & 0x80 != 0 { 'i' } else { 'o' };
    let mut s = format!(
        "{id:x} {ts_sec}.{ts_usec:06} {kind_char} {utype}{udir}:{busnum}:{devnum:03}:{}",
        epnum & 0x7f
    );
    let interval = if full {
        i32_at(hdr, H::INTERVAL.off).to_string()
    } else {
        "?".to_string()
    };
    let start_frame = if full {
        i32_at(hdr, H::START_FRAME.off).to_string()
    } else {
        "?".to_string()
    };
    let mut payload = data;
    if kind == b'E' {
        put_statset(&mut s, hdr, flag_setup, status);
    } else if xfer_type == 0 {
        let error_count = i32_at(hdr, H::S_ISO_ERROR_COUNT.off);
        let numdesc = i32_at(hdr, H::S_ISO_NUMDESC.off);
        if kind == b'S' {
            let _ = write!(s, " {status}:{interval}:{start_frame}");
        } else {
            let _ = write!(s, " {status}:{interval}:{start_frame}:{error_count}");
        }
        let _ = write!(s, " {numdesc}");
        let present = iso_descs_present(hdr);
        let shown = (numdesc.max(0) as usize).min(TEXT_ISODESC_MAX).min(present);
        for i in 0..shown {
            let at = i * ISODESC_LEN;
            if data.len() < at + ISO::ISO_LEN.end() {
                break;
            }
            let _ = write!(
                s,
                " {}:{}:{}",
                i32_at(data, at + ISO::ISO_STATUS.off),
                u32_at(data, at + ISO::ISO_OFF.off),
                u32_at(data, at + ISO::ISO_LEN.off)
            );
        }
        payload = data.get(present * ISODESC_LEN..).unwrap_or(&[]);
    } else if xfer_type == 1 {
        let _ = write!(s, " {status}:{interval}");
    } else {
        put_statset(&mut s, hdr, flag_setup, status);
    }
    let _ = write!(s, " {len_urb}");
    if len_urb > 0 {
        if flag_data == 0 {
            s.push_str(" =");
            let n = (len_urb as usize)
                .min(TEXT_DATA_MAX)
                .min(payload.len())
                .min(len_cap);
            for (i, byte) in payload[..n].iter().enumerate() {
                if i % 4 == 0 {
                    s.push(' ');
                }
                let _ = write!(s, "{byte:02x}");
            }
        } else {
            let flag = if flag_data.is_ascii_graphic() {
                flag_data as char
            } else {
                '?'
            };
            let _ = write!(s, " {flag}");
        }
    }
    s
}

/// The status-or-setup word: the setup packet when captured, a flag when
/// it could not be, else the status.
fn put_statset(s: &mut String, hdr: &[u8], flag_setup: u8, status: i32) {
    if flag_setup == 0 {
        let setup = &hdr[40..48];
        let _ = write!(
            s,
            " s {:02x} {:02x} {:04x} {:04x} {:04x}",
            setup[0],
            setup[1],
            u16_at(setup, 2),
            u16_at(setup, 4),
            u16_at(setup, 6)
        );
    } else if flag_setup != b'-' {
        let flag = if flag_setup.is_ascii_graphic() {
            flag_setup as char
        } else {
            '?'
        };
        let _ = write!(s, " {flag} __ __ ____ ____ ____");
    } else {
        let _ = write!(s, " {status}");
    }
}

/// Every header field, for `-v`: `{id=0x..., type='S', ...}`.
pub fn header_fields(hdr: &[u8]) -> String {
    let ch = |b: u8| {
        if b == 0 {
            "0".to_string()
        } else if b.is_ascii_graphic() {
            format!("'{}'", b as char)
        } else {
            b.to_string()
        }
    };
    let mut s = format!(
        "{{id=0x{:x}, type={}, xfer_type={}, epnum=0x{:02x}, devnum={}, busnum={}, \
         flag_setup={}, flag_data={}, ts_sec={}, ts_usec={}, status={}, len_urb={}, len_cap={}",
        u64_at(hdr, H::ID.off),
        ch(u8_at(hdr, H::TYPE.off)),
        u8_at(hdr, H::XFER_TYPE.off),
        u8_at(hdr, H::EPNUM.off),
        u8_at(hdr, H::DEVNUM.off),
        u16_at(hdr, H::BUSNUM.off),
        ch(u8_at(hdr, H::FLAG_SETUP.off)),
        ch(u8_at(hdr, H::FLAG_DATA.off)),
        i64_at(hdr, H::TS_SEC.off),
        i32_at(hdr, H::TS_USEC.off),
        i32_at(hdr, H::STATUS.off),
        u32_at(hdr, H::LEN_URB.off),
        u32_at(hdr, H::LEN_CAP.off),
    );
    if u8_at(hdr, H::XFER_TYPE.off) == 0 {
        let _ = write!(
            s,
            ", error_count={}, numdesc={}",
            i32_at(hdr, H::S_ISO_ERROR_COUNT.off),
            i32_at(hdr, H::S_ISO_NUMDESC.off)
        );
    } else {
        let setup: Vec<String> = hdr[40..48].iter().map(|b| format!("{b:02x}")).collect();
        let _ = write!(s, ", setup=[{}]", setup.join(" "));
    }
    if hdr.len() >= HDR_LEN {
        let _ = write!(
            s,
            ", interval={}, start_frame={}, xfer_flags=0x{:x}, ndesc={}",
            i32_at(hdr, H::INTERVAL.off),
            i32_at(hdr, H::START_FRAME.off),
            u32_at(hdr, H::XFER_FLAGS.off),
            u32_at(hdr, H::NDESC.off)
        );
    }
    s.push('}');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pcap records of the shared capture: (64-byte header, data).
    fn records() -> Vec<(Vec<u8>, Vec<u8>)> {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/usbmon/qemu-xhci-0u.pcap"
        );
        let d = std::fs::read(path).unwrap();
        assert_eq!(u32_at(&d, 20), 220, "LINKTYPE_USB_LINUX_MMAPPED");
        let mut out = Vec::new();
        let mut off = 24;
        while off < d.len() {
            let incl = u32_at(&d, off + 8) as usize;
            let rec = &d[off + 16..off + 16 + incl];
            out.push((rec[..64].to_vec(), rec[64..].to_vec()));
            off += 16 + incl;
        }
        out
    }

    /// Every word of a kernel text line but the timestamp.
    fn words_without_time(line: &str) -> Vec<String> {
        line.split(' ')
            .enumerate()
            .filter(|&(i, _)| i != 1)
            .map(|(_, w)| w.to_string())
            .collect()
    }

    #[test]
    fn rendering_equals_the_kernel_text_api() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/usbmon/qemu-xhci-0u.txt"
        ))
        .unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let recs = records();
        assert_eq!(recs.len(), 34);
        assert_eq!(lines.len(), recs.len());
        for (i, ((hdr, data), kernel)) in recs.iter().zip(&lines).enumerate() {
            let ours = render(hdr, data);
            assert_eq!(
                words_without_time(&ours),
                words_without_time(kernel),
                "record {}:\n ours:   {ours}\n kernel: {kernel}",
                i + 1
            );
            let ts = format!(
                "{}.{:06}",
                i64_at(hdr, H::TS_SEC.off),
                i32_at(hdr, H::TS_USEC.off)
            );
            assert_eq!(ours.split(' ').nth(1), Some(ts.as_str()));
        }
    }

    #[test]
    fn short_headers_and_fillers() {
        let recs = records();
        let (hdr, data) = &recs[13];
        let full = render(hdr, data);
        let short = render(&hdr[..HDR_LEN_API0], data);
        assert_eq!(full, short, "bulk events need nothing past 48 bytes");
        let mut filler = [0u8; 64];
        filler[8] = b'@';
        filler[36..40].copy_from_slice(&960u32.to_le_bytes());
        assert_eq!(render(&filler, &[]), "@ ring filler, 1024 bytes");
    }

    #[test]
    fn interrupt_and_iso_events_render_their_status_words() {
        let mut hdr = [0u8; 64];
        hdr[8] = b'C';
        hdr[9] = 1;
        hdr[10] = 0x81;
        hdr[11] = 3;
        hdr[12] = 1;
        hdr[15] = 0;
        hdr[32..36].copy_from_slice(&4u32.to_le_bytes());
        hdr[36..40].copy_from_slice(&4u32.to_le_bytes());
        hdr[48..52].copy_from_slice(&8i32.to_le_bytes());
        let line = render(&hdr, &[1, 2, 3, 4]);
        assert!(line.ends_with(" C Ii:1:003:1 0:8 4 = 01020304"), "{line}");

        let mut iso = [0u8; 64];
        iso[8] = b'C';
        iso[9] = 0;
        iso[10] = 0x82;
        iso[11] = 4;
        iso[12] = 2;
        iso[40..44].copy_from_slice(&0i32.to_le_bytes());
        iso[44..48].copy_from_slice(&2i32.to_le_bytes());
        iso[48..52].copy_from_slice(&1i32.to_le_bytes());
        iso[52..56].copy_from_slice(&100i32.to_le_bytes());
        iso[60..64].copy_from_slice(&2u32.to_le_bytes());
        iso[32..36].copy_from_slice(&6u32.to_le_bytes());
        iso[36..40].copy_from_slice(&38u32.to_le_bytes());
        let mut data = vec![0u8; 38];
        data[4..8].copy_from_slice(&0u32.to_le_bytes());
        data[8..12].copy_from_slice(&3u32.to_le_bytes());
        data[20..24].copy_from_slice(&3u32.to_le_bytes());
        data[24..28].copy_from_slice(&3u32.to_le_bytes());
        data[32..38].copy_from_slice(&[0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff]);
        let line = render(&iso, &data);
        assert!(
            line.ends_with(" C Zi:2:004:2 0:1:100:0 2 0:0:3 0:3:3 6 = aabbccdd eeff"),
            "{line}"
        );
    }
}
