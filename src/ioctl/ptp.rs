//! PTP hardware clocks (`<linux/ptp_clock.h>`, `/dev/ptpN`): the external
//! timestamp and periodic output requests, whose flag words BTF cannot name
//! (`#define`s), decoded as strace does: `{index=0,
//! flags=PTP_ENABLE_FEATURE|PTP_RISING_EDGE}`; a periodic output's `start`
//! (with its date as a comment) or, with PTP_PEROUT_PHASE, its `phase`
//! (the union's other member), the `on` time only with
//! PTP_PEROUT_DUTY_CYCLE, a time's `reserved` word and the second
//! versions' reserved words only when set. The other PTP requests are left
//! to the kernel's BTF (`fallback`), which has their structs.
//!
//! The layouts are generated, the periodic output's also for i386 (its
//! `__s64` seconds align differently there); a unit test shows they agree.

use super::{Arg, IF_IN, IF_OUT, IoctlGroup, Layout, Request};
use crate::abi::flags::FlagDef;
use crate::abi::layout::{Field, field};
use crate::abi::xlat::ioctl::{
    PTP_CLOCK_TIME, PTP_EXTTS_FLAGS, PTP_EXTTS_REQUEST, PTP_EXTTS_REQUEST_FIELDS,
    PTP_EXTTS_REQUEST2, PTP_PEROUT_FLAGS, PTP_PEROUT_REQUEST, PTP_PEROUT_REQUEST_FIELDS,
    PTP_PEROUT_REQUEST2, PTP_PIN_DESC, PTP_PIN_FUNCS, PTP_PIN_GETFUNC, PTP_PIN_GETFUNC2,
    PTP_PIN_SETFUNC, PTP_PIN_SETFUNC2, PTP_SYS_OFFSET, PTP_SYS_OFFSET_EXTENDED,
    PTP_SYS_OFFSET_EXTENDED_FIELDS, PTP_SYS_OFFSET_EXTENDED2, PTP_SYS_OFFSET_FIELDS,
    PTP_SYS_OFFSET_PRECISE, PTP_SYS_OFFSET_PRECISE_FIELDS, PTP_SYS_OFFSET_PRECISE2,
    PTP_SYS_OFFSET2,
};
use crate::decode::date_text_any_year;
use crate::format::{ConstStyle, Naming, Printer};

/// A struct of the group, its size the code's (`_IOC_SIZE`).
const fn sized(name: &'static str, code: u32) -> Layout {
    Layout {
        name,
        size: ((code >> 16) & 0x3fff) as usize,
        fields: &[],
    }
}

static EXTTS: Layout = sized("ptp_extts_request", PTP_EXTTS_REQUEST);
static PEROUT: Layout = sized("ptp_perout_request", PTP_PEROUT_REQUEST);
static PIN: Layout = sized("ptp_pin_desc", PTP_PIN_GETFUNC);
static SYS_OFFSET: Layout = sized("ptp_sys_offset", PTP_SYS_OFFSET);
static PRECISE: Layout = sized("ptp_sys_offset_precise", PTP_SYS_OFFSET_PRECISE);
static EXTENDED: Layout = sized("ptp_sys_offset_extended", PTP_SYS_OFFSET_EXTENDED);

const BOTH: u8 = IF_OUT | IF_IN;

static REQUESTS: &[Request] = &[
    Request::new(
        PTP_EXTTS_REQUEST,
        "PTP_EXTTS_REQUEST",
        IF_OUT,
        Arg::Struct(&EXTTS),
    ),
    Request::new(
        PTP_EXTTS_REQUEST2,
        "PTP_EXTTS_REQUEST2",
        IF_OUT,
        Arg::Struct(&EXTTS),
    ),
    Request::new(
        PTP_PEROUT_REQUEST,
        "PTP_PEROUT_REQUEST",
        IF_OUT,
        Arg::Struct(&PEROUT),
    ),
    Request::new(
        PTP_PEROUT_REQUEST2,
        "PTP_PEROUT_REQUEST2",
        IF_OUT,
        Arg::Struct(&PEROUT),
    ),
    Request::new(PTP_PIN_GETFUNC, "PTP_PIN_GETFUNC", BOTH, Arg::Struct(&PIN)),
    Request::new(
        PTP_PIN_GETFUNC2,
        "PTP_PIN_GETFUNC2",
        BOTH,
        Arg::Struct(&PIN),
    ),
    Request::new(
        PTP_PIN_SETFUNC,
        "PTP_PIN_SETFUNC",
        IF_OUT,
        Arg::Struct(&PIN),
    ),
    Request::new(
        PTP_PIN_SETFUNC2,
        "PTP_PIN_SETFUNC2",
        IF_OUT,
        Arg::Struct(&PIN),
    ),
    // `_IOW`, but the kernel writes the samples back (ptp_chardev.c's
    // PTP_SYS_OFFSET case ends in copy_to_user of the whole struct).
    Request::legacy(
        PTP_SYS_OFFSET,
        "PTP_SYS_OFFSET",
        BOTH,
        Arg::Struct(&SYS_OFFSET),
    ),
    Request::legacy(
        PTP_SYS_OFFSET2,
        "PTP_SYS_OFFSET2",
        BOTH,
        Arg::Struct(&SYS_OFFSET),
    ),
    Request::new(
        PTP_SYS_OFFSET_PRECISE,
        "PTP_SYS_OFFSET_PRECISE",
        IF_IN,
        Arg::Struct(&PRECISE),
    ),
    Request::new(
        PTP_SYS_OFFSET_PRECISE2,
        "PTP_SYS_OFFSET_PRECISE2",
        IF_IN,
        Arg::Struct(&PRECISE),
    ),
    Request::new(
        PTP_SYS_OFFSET_EXTENDED,
        "PTP_SYS_OFFSET_EXTENDED",
        BOTH,
        Arg::Struct(&EXTENDED),
    ),
    Request::new(
        PTP_SYS_OFFSET_EXTENDED2,
        "PTP_SYS_OFFSET_EXTENDED2",
        BOTH,
        Arg::Struct(&EXTENDED),
    ),
];

/// The PTP group.
pub struct Ptp;

/// The one instance the dispatcher uses.
pub static PTP: Ptp = Ptp;

impl IoctlGroup for Ptp {
    fn name(&self) -> &'static str {
        "ptp"
    }

    fn headers(&self) -> &'static [&'static str] {
        &["linux/ptp_clock.h"]
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, p: &mut Printer, req: &Request, d: &[u8], phase: u8) -> bool {
        let second = matches!(
            req.code,
            PTP_EXTTS_REQUEST2
                | PTP_PEROUT_REQUEST2
                | PTP_PIN_GETFUNC2
                | PTP_PIN_SETFUNC2
                | PTP_SYS_OFFSET2
                | PTP_SYS_OFFSET_PRECISE2
                | PTP_SYS_OFFSET_EXTENDED2
        );
        let out = phase == IF_OUT;
        match req.code {
            PTP_EXTTS_REQUEST | PTP_EXTTS_REQUEST2 => {
                let l = PTP_EXTTS_REQUEST_FIELDS;
                p.uint("index", get(d, l, "index"));
                p.flags("flags", get(d, l, "flags"), PTP_EXTTS_FLAGS);
                if second {
                    put_rsv(p, d, field(l, "rsv"));
                }
            }
            PTP_PEROUT_REQUEST | PTP_PEROUT_REQUEST2 => {
                let l = PTP_PEROUT_REQUEST_FIELDS;
                let flags = get(d, l, "flags");
                if flags & bit(PTP_PEROUT_FLAGS, "PTP_PEROUT_PHASE") != 0 {
                    put_time(p, "phase", member(d, l, "phase"), false);
                } else {
                    put_time(p, "start", member(d, l, "start"), true);
                }
                put_time(p, "period", member(d, l, "period"), false);
                p.uint("index", get(d, l, "index"));
                p.flags("flags", flags, PTP_PEROUT_FLAGS);
                if flags & bit(PTP_PEROUT_FLAGS, "PTP_PEROUT_DUTY_CYCLE") != 0 {
                    put_time(p, "on", member(d, l, "on"), false);
                } else if second {
                    put_rsv(p, d, field(l, "rsv"));
                }
            }
            PTP_PIN_GETFUNC | PTP_PIN_GETFUNC2 if out => {
                p.uint("index", get(d, PTP_PIN_DESC, "index"));
                if second {
                    put_rsv(p, d, field(PTP_PIN_DESC, "rsv"));
                }
            }
            PTP_PIN_GETFUNC | PTP_PIN_GETFUNC2 => {
                put_name(p, d, field(PTP_PIN_DESC, "name"));
                put_func(p, d);
            }
            PTP_PIN_SETFUNC | PTP_PIN_SETFUNC2 => {
                p.uint("index", get(d, PTP_PIN_DESC, "index"));
                put_func(p, d);
                if second {
                    put_rsv(p, d, field(PTP_PIN_DESC, "rsv"));
                }
            }
            PTP_SYS_OFFSET
            | PTP_SYS_OFFSET2
            | PTP_SYS_OFFSET_EXTENDED
            | PTP_SYS_OFFSET_EXTENDED2
                if out =>
            {
                let l = if matches!(req.code, PTP_SYS_OFFSET | PTP_SYS_OFFSET2) {
                    PTP_SYS_OFFSET_FIELDS
                } else {
                    PTP_SYS_OFFSET_EXTENDED_FIELDS
                };
                p.uint("n_samples", get(d, l, "n_samples"));
                put_rsv(p, d, field(l, "rsv"));
            }
            PTP_SYS_OFFSET | PTP_SYS_OFFSET2 => {
                // The samples: system, device, system, ..., 2n+1 times.
                let l = PTP_SYS_OFFSET_FIELDS;
                let n = get(d, l, "n_samples").min(u32::MAX as u64) as usize;
                put_times(
                    p,
                    member(d, l, "ts"),
                    n.saturating_mul(2).saturating_add(1),
                    1,
                );
            }
            PTP_SYS_OFFSET_EXTENDED | PTP_SYS_OFFSET_EXTENDED2 => {
                // Each sample a [system, device, system] triple.
                let l = PTP_SYS_OFFSET_EXTENDED_FIELDS;
                let n = get(d, l, "n_samples").min(u32::MAX as u64) as usize;
                put_times(p, member(d, l, "ts"), n, 3);
            }
            PTP_SYS_OFFSET_PRECISE | PTP_SYS_OFFSET_PRECISE2 => {
                let l = PTP_SYS_OFFSET_PRECISE_FIELDS;
                put_time(p, "device", member(d, l, "device"), true);
                put_time(p, "sys_realtime", member(d, l, "sys_realtime"), true);
                put_time(p, "sys_monoraw", member(d, l, "sys_monoraw"), false);
                put_rsv(p, d, field(l, "rsv"));
            }
            _ => return false,
        }
        true
    }
}

/// A field's value.
fn get(d: &[u8], layout: &[Field], name: &str) -> u64 {
    field(layout, name).read(d).unwrap_or(0)
}

/// The bit of the flag `name` in a generated table.
fn bit(table: &[FlagDef], name: &str) -> u64 {
    table.iter().find(|f| f.name == name).map_or(0, |f| f.value)
}

/// A `struct ptp_clock_time` called `name` (`""` in an array):
/// `{sec=.., nsec=..}` with its reserved word when set, and (`date`, a
/// point in time rather than a span) the date as a comment, as strace
/// shows it (not under `-X raw`, for nanoseconds past a second, or for
/// the zero time).
fn put_time(p: &mut Printer, name: &str, t: &[u8], date: bool) {
    let l = PTP_CLOCK_TIME;
    let sec = get(t, l, "sec") as i64;
    let nsec = get(t, l, "nsec");
    let reserved = get(t, l, "reserved");
    p.open(name, "{", Naming::Fields);
    p.int("sec", sec);
    p.uint("nsec", nsec);
    if reserved != 0 {
        p.raw_hex("reserved", reserved);
    }
    p.close("}");
    if date
        && (sec, nsec) != (0, 0)
        && nsec < 1_000_000_000
        && p.config().consts != ConstStyle::Raw
        && let Some(text) = date_text_any_year(sec, nsec)
    {
        p.note(&text);
    }
}

/// The member `name` of `layout` in `d`.
fn member<'a>(d: &'a [u8], layout: &[Field], name: &str) -> &'a [u8] {
    let f = field(layout, name);
    &d[f.off..f.end()]
}

/// `ts`: the first `count` of its entries (at most what it holds), each
/// `per` times (in an array of its own when more than one), with their
/// dates; cut at `-s` entries unless `-v`, as strace cuts arrays.
fn put_times(p: &mut Printer, ts: &[u8], count: usize, per: usize) {
    let size = crate::abi::layout::extent(PTP_CLOCK_TIME);
    let n = count.min(ts.len() / (size * per));
    let limit = if p.config().verbose > 0 {
        usize::MAX
    } else {
        p.config().string_limit
    };
    p.open("ts", "[", Naming::Elements);
    p.bounded(0..n, limit, |p, i| {
        let at = i * size * per;
        if per == 1 {
            put_time(p, "", &ts[at..at + size], true);
            return;
        }
        p.open("", "[", Naming::Elements);
        for j in 0..per {
            let t = &ts[at + j * size..at + (j + 1) * size];
            put_time(p, "", t, true);
        }
        p.close("]");
    });
    p.close("]");
}

/// A pin's function by name.
fn put_func(p: &mut Printer, d: &[u8]) {
    let func = get(d, PTP_PIN_DESC, "func") as u32;
    let name = PTP_PIN_FUNCS
        .iter()
        .find(|&&(v, _)| v == func)
        .map(|&(_, n)| n);
    p.symbol("func", func as i64, name);
    p.uint("chan", get(d, PTP_PIN_DESC, "chan"));
}

/// A `char[N]` name up to its NUL; with none, its first N-1 bytes, cut
/// (strace keeps the last byte for the NUL it would need).
fn put_name(p: &mut Printer, d: &[u8], f: Field) {
    let bytes = &d[f.off..f.end()];
    match bytes.iter().position(|&b| b == 0) {
        Some(end) => p.string(f.name, &bytes[..end], false),
        None => p.string(f.name, &bytes[..bytes.len().saturating_sub(1)], true),
    }
}

/// A reserved `unsigned int` array, in hex, only when some word is set.
fn put_rsv(p: &mut Printer, d: &[u8], f: Field) {
    let words: Vec<u32> = d[f.off..f.end()]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    if words.iter().all(|&w| w == 0) {
        return;
    }
    p.open(f.name, "[", Naming::Elements);
    for w in words {
        p.raw_hex("", w as u64);
    }
    p.close("]");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::xlat::ioctl::{PTP_CLOCK_TIME_I386, PTP_PEROUT_REQUEST_FIELDS_I386};

    /// An i386 program's structs are the native ones.
    #[test]
    fn the_i386_layouts_are_the_native_ones() {
        for (native, i386) in [
            (PTP_CLOCK_TIME, PTP_CLOCK_TIME_I386),
            (PTP_PEROUT_REQUEST_FIELDS, PTP_PEROUT_REQUEST_FIELDS_I386),
        ] {
            for (a, b) in native.iter().zip(i386) {
                assert_eq!((a.name, a.off, a.size), (b.name, b.off, b.size));
            }
        }
    }
}
