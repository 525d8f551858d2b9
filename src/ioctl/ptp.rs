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

use super::{Arg, IF_OUT, IoctlGroup, Layout, Request};
use crate::abi::flags::FlagDef;
use crate::abi::layout::{Field, field};
use crate::abi::xlat::ioctl::{
    PTP_CLOCK_TIME, PTP_EXTTS_FLAGS, PTP_EXTTS_REQUEST, PTP_EXTTS_REQUEST_FIELDS,
    PTP_EXTTS_REQUEST2, PTP_PEROUT_FLAGS, PTP_PEROUT_REQUEST, PTP_PEROUT_REQUEST_FIELDS,
    PTP_PEROUT_REQUEST2,
};
use crate::decode::date_text;
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

    fn fields(&self, p: &mut Printer, req: &Request, d: &[u8], _phase: u8) -> bool {
        let second = matches!(req.code, PTP_EXTTS_REQUEST2 | PTP_PEROUT_REQUEST2);
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
                    put_time(p, d, field(l, "phase"), false);
                } else {
                    put_time(p, d, field(l, "start"), true);
                }
                put_time(p, d, field(l, "period"), false);
                p.uint("index", get(d, l, "index"));
                p.flags("flags", flags, PTP_PEROUT_FLAGS);
                if flags & bit(PTP_PEROUT_FLAGS, "PTP_PEROUT_DUTY_CYCLE") != 0 {
                    put_time(p, d, field(l, "on"), false);
                } else if second {
                    put_rsv(p, d, field(l, "rsv"));
                }
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

/// A `struct ptp_clock_time` member `f`: `{sec=.., nsec=..}` with its
/// reserved word when set, and (`date`, a point in time rather than a
/// span) the date as a comment, as strace shows it (not under `-X raw`,
/// nor for nanoseconds past a second).
fn put_time(p: &mut Printer, d: &[u8], f: Field, date: bool) {
    let t = &d[f.off..f.end()];
    let l = PTP_CLOCK_TIME;
    let sec = get(t, l, "sec") as i64;
    let nsec = get(t, l, "nsec");
    let reserved = get(t, l, "reserved");
    p.open(f.name, "{", Naming::Fields);
    p.int("sec", sec);
    p.uint("nsec", nsec);
    if reserved != 0 {
        p.raw_hex("reserved", reserved);
    }
    p.close("}");
    if date
        && nsec < 1_000_000_000
        && p.config().consts != ConstStyle::Raw
        && let Some(text) = date_text(sec, nsec)
    {
        p.note(&text);
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
