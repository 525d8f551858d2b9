//! The console requests of `<linux/kd.h>`, plain numbers older than the
//! ioctl macros (no size, no direction bits), which only a decoder that
//! knows them can show. As strace shows them:
//!
//! - by value: KIOCSOUND's divisor with the tone it makes (`440 /* 2711
//!   Hz */`, `0 /* off */`), KDMKTONE's duration and divisor (`1<<16|440
//!   /* 2711 Hz, 1 ms */`), KDSETLED's lights (`LED_SCR|LED_NUM`),
//!   KDSKBLED's flags and their defaults (`LED_SCR|LED_CAP<<4`), the
//!   display, keyboard and meta modes by name (`KD_GRAPHICS`, `K_RAW`,
//!   `K_METABIT`), KDSIGACCEPT's signal, KDADDIO/KDDELIO's port in hex
//!   (`0x3c0 /* GPFIRST + 12 */` for the ports the console grants, which
//!   only the kernel's vt_ioctl.c defines: `abi::gen_vt`);
//!   KDENABIO, KDDISABIO, KDMAPDISP, KDUNMAPDISP and PIO_FONTRESET take
//!   none;
//! - through a pointer, after the call: the lights and flags the kernel
//!   wrote (one byte: `[LED_SCR]`), the keyboard type (one byte:
//!   `[KB_101]`), the display, keyboard and meta modes (an `int`);
//! - the screen map (`E_TABSZ` bytes) as a string, GIO_SCRNMAP's after the
//!   call, PIO_SCRNMAP's before it (`bytes::put_table`);
//! - keymap entries (KDGKBENT/KDSKBENT's `struct kbentry`, the key as
//!   `<linux/keyboard.h>` builds it: `K_F1`, `K(KT_LATIN, 'a')`), keycodes
//!   (`struct kbkeycode`, in hex), the repeat rate (`struct kbd_repeat`:
//!   set before, in force after), PIO_UNIMAPCLR's `struct unimapinit` and
//!   function key strings (`struct kbsentry`: `{kb_func=KVAL(K_F1),
//!   kb_string="\33[[A"}`).
//!
//! KIOCSOUND and KDMKTONE divide the PC speaker's timer rate
//! (`PIT_TICK_RATE`, from the kernel-only include/linux/timex.h:
//! `abi::gen_timex`).
//!
//! The names and codes are generated from the header (`KD_*` tables of
//! tools/abi_tables.py).

use super::{Arg, IF_IN, IF_OUT, IoctlGroup, Layout, Request};
use crate::abi::flags::FlagDef;
use crate::abi::gen_timex::PIT_TICK_RATE;
use crate::abi::gen_vt::{GPFIRST, GPLAST};
use crate::abi::layout::{Field, extent, field};
use crate::abi::signals::signal_name;
use crate::abi::xlat::ioctl::{
    E_TABSZ, GIO_SCRNMAP, KBD_REPEAT, KBENTRY, KBKEYCODE, KBSENTRY, KD_KB_TABLES, KD_KEY_TYPES,
    KD_KEYS, KD_SHIFT_STATES, KDGETKEYCODE, KDGKBENT, KDGKBSENT, KDKBDREP, KDSETKEYCODE, KDSKBENT,
    KDSKBSENT, PIO_SCRNMAP, PIO_UNIMAPCLR, UNIMAPINIT,
};
use crate::abi::xlat::ioctl::{
    KD_KB_MODES, KD_KB_TYPES, KD_LEDS, KD_META_MODES, KD_MODES, KDADDIO, KDDELIO, KDDISABIO,
    KDENABIO, KDGETLED, KDGETMODE, KDGKBLED, KDGKBMETA, KDGKBMODE, KDGKBTYPE, KDMAPDISP, KDMKTONE,
    KDSETLED, KDSETMODE, KDSIGACCEPT, KDSKBLED, KDSKBMETA, KDSKBMODE, KDUNMAPDISP, KIOCSOUND,
    PIO_FONTRESET,
};
use crate::format::{Naming, Printer, flags_hex, flags_text};
use crate::kernel::Arch;

/// The argument types, for `--explain-ioctl` (the group reads them itself).
static ULONG: Layout = Layout {
    name: "unsigned long",
    size: 8,
    fields: &[],
};
static UCHAR: Layout = Layout {
    name: "unsigned char",
    size: 1,
    fields: &[],
};
static INT: Layout = Layout {
    name: "int",
    size: 4,
    fields: &[],
};
static KBENTRY_ARG: Layout = Layout {
    name: "kbentry",
    size: KBENTRY[KBENTRY.len() - 1].end(),
    fields: &[],
};
static KBKEYCODE_ARG: Layout = Layout {
    name: "kbkeycode",
    size: KBKEYCODE[KBKEYCODE.len() - 1].end(),
    fields: &[],
};
static KBD_REPEAT_ARG: Layout = Layout {
    name: "kbd_repeat",
    size: KBD_REPEAT[KBD_REPEAT.len() - 1].end(),
    fields: &[],
};
static UNIMAPINIT_ARG: Layout = Layout {
    name: "unimapinit",
    size: UNIMAPINIT[UNIMAPINIT.len() - 1].end(),
    fields: &[],
};
static KBSENTRY_ARG: Layout = Layout {
    name: "kbsentry",
    size: KBSENTRY[KBSENTRY.len() - 1].end(),
    fields: &[],
};
static SCRNMAP: Layout = Layout {
    name: "unsigned char[E_TABSZ]",
    size: E_TABSZ as usize,
    fields: &[],
};

/// A request whose argument is a value (`IF_OUT`) or what the kernel
/// writes through the pointer (`IF_IN`), printed by the group.
const fn req(code: u32, name: &'static str, dirs: u8, layout: &'static Layout) -> Request {
    Request::legacy(code, name, dirs, Arg::Custom(layout))
}

static REQUESTS: &[Request] = &[
    req(KIOCSOUND, "KIOCSOUND", IF_OUT, &ULONG),
    req(KDMKTONE, "KDMKTONE", IF_OUT, &ULONG),
    req(KDGETLED, "KDGETLED", IF_IN, &UCHAR),
    req(KDSETLED, "KDSETLED", IF_OUT, &ULONG),
    req(KDGKBTYPE, "KDGKBTYPE", IF_IN, &UCHAR),
    req(KDADDIO, "KDADDIO", IF_OUT, &ULONG),
    req(KDDELIO, "KDDELIO", IF_OUT, &ULONG),
    Request::legacy(KDENABIO, "KDENABIO", 0, Arg::None),
    Request::legacy(KDDISABIO, "KDDISABIO", 0, Arg::None),
    req(KDSETMODE, "KDSETMODE", IF_OUT, &ULONG),
    req(KDGETMODE, "KDGETMODE", IF_IN, &INT),
    Request::legacy(KDMAPDISP, "KDMAPDISP", 0, Arg::None),
    Request::legacy(KDUNMAPDISP, "KDUNMAPDISP", 0, Arg::None),
    req(KDGKBMODE, "KDGKBMODE", IF_IN, &INT),
    req(KDSKBMODE, "KDSKBMODE", IF_OUT, &ULONG),
    req(KDGKBMETA, "KDGKBMETA", IF_IN, &INT),
    req(KDSKBMETA, "KDSKBMETA", IF_OUT, &ULONG),
    req(KDGKBLED, "KDGKBLED", IF_IN, &UCHAR),
    req(KDSKBLED, "KDSKBLED", IF_OUT, &ULONG),
    req(KDSIGACCEPT, "KDSIGACCEPT", IF_OUT, &ULONG),
    Request::legacy(PIO_FONTRESET, "PIO_FONTRESET", 0, Arg::None),
    // The entry asked for (table and index) and the value answered; the
    // entry set.
    req(KDGKBENT, "KDGKBENT", IF_OUT | IF_IN, &KBENTRY_ARG),
    req(KDSKBENT, "KDSKBENT", IF_OUT, &KBENTRY_ARG),
    // A function key's string: the key asked, the string answered; set.
    req(KDGKBSENT, "KDGKBSENT", IF_OUT | IF_IN, &KBSENTRY_ARG),
    req(KDSKBSENT, "KDSKBSENT", IF_OUT, &KBSENTRY_ARG),
    // A scancode's keycode: asked and answered, set.
    req(KDGETKEYCODE, "KDGETKEYCODE", IF_OUT | IF_IN, &KBKEYCODE_ARG),
    req(KDSETKEYCODE, "KDSETKEYCODE", IF_OUT, &KBKEYCODE_ARG),
    // The repeat rate set (-1: unchanged) and the one in force after.
    req(KDKBDREP, "KDKBDREP", IF_OUT | IF_IN, &KBD_REPEAT_ARG),
    req(PIO_UNIMAPCLR, "PIO_UNIMAPCLR", IF_OUT, &UNIMAPINIT_ARG),
    // The map the kernel answers, the map the program gives.
    req(GIO_SCRNMAP, "GIO_SCRNMAP", IF_IN, &SCRNMAP),
    req(PIO_SCRNMAP, "PIO_SCRNMAP", IF_OUT, &SCRNMAP),
];

/// The kd group.
pub struct Kd;

/// The one instance the dispatcher uses.
pub static KD: Kd = Kd;

impl IoctlGroup for Kd {
    fn name(&self) -> &'static str {
        "kd"
    }

    fn headers(&self) -> &'static [&'static str] {
        &["linux/kd.h"]
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, _p: &mut Printer, _req: &Request, _d: &[u8], _phase: u8) -> bool {
        false
    }

    fn custom(&self, p: &mut Printer, req: &Request, arg: u64, phase: u8) {
        // The kernel's `unsigned long`, at the program's width.
        let arg = if p.arch() == Arch::I386 {
            arg & 0xffff_ffff
        } else {
            arg
        };
        if matches!(req.code, KDGKBSENT | KDSKBSENT) {
            return kbsentry(p, req.code, arg, phase);
        }
        if matches!(req.code, KDGKBENT | KDSKBENT) {
            return kbentry(p, req.code, arg, phase);
        }
        if let Some((layout, names)) = plain_struct(req.code, phase) {
            // Scancodes and keycodes in hex, as strace.
            let hex = layout[0].name == KBKEYCODE[0].name;
            return put_fields(p, arg, layout, names, hex);
        }
        if matches!(req.code, GIO_SCRNMAP | PIO_SCRNMAP) {
            return super::bytes::put_table(p, "arg", arg, E_TABSZ as u64);
        }
        if phase == IF_OUT {
            return by_value(p, req.code, arg);
        }
        let size = match req.code {
            KDGETLED | KDGKBLED | KDGKBTYPE => 1,
            _ => 4,
        };
        let mut d = [0u8; 4];
        if arg == 0 || p.config().values_only >= 2 || !p.mem().read_exact(arg, &mut d[..size]) {
            return p.ptr("arg", arg);
        }
        let v = u32::from_le_bytes(d);
        p.open("arg", "[", Naming::Elements);
        match req.code {
            KDGETLED => p.flags("", v as u64, KD_LEDS),
            KDGKBLED => kb_leds(p, "", v as u64),
            KDGKBTYPE => named(p, "", v as u64, KD_KB_TYPES),
            KDGETMODE => named(p, "", v as u64, KD_MODES),
            KDGKBMODE => named(p, "", v as i32 as i64 as u64, KD_KB_MODES),
            _ => named(p, "", v as u64, KD_META_MODES),
        }
        p.close("]");
    }
}

/// A request whose argument is the value itself.
fn by_value(p: &mut Printer, code: u32, arg: u64) {
    match code {
        KIOCSOUND => {
            // The kernel sounds PIT_TICK_RATE / arg Hz; 0 Hz is silence.
            p.uint("arg", arg);
            tone_note(p, arg, None);
        }
        KDMKTONE => {
            // The low half is the divisor, the high half the duration in
            // ms; the kernel reads an `unsigned int`'s 32 bits.
            let (ms, divisor) = ((arg >> 16) & 0xffff, arg & 0xffff);
            if ms == 0 {
                p.uint("arg", divisor);
            } else {
                p.field("arg", &format!("{ms}<<16|{divisor}"));
            }
            tone_note(p, divisor, Some(ms));
        }
        KDSETLED => p.flags("arg", arg & 0xff, KD_LEDS),
        KDSKBLED => kb_leds(p, "arg", arg & 0xff),
        KDSETMODE => named(p, "arg", arg & 0xffff_ffff, KD_MODES),
        KDSKBMODE => named(p, "arg", arg as i32 as i64 as u64, KD_KB_MODES),
        KDSKBMETA => named(p, "arg", arg & 0xffff_ffff, KD_META_MODES),
        KDSIGACCEPT => {
            // Any `unsigned long`: a signal number the kernel accepts or not.
            let name = i32::try_from(arg).ok().and_then(signal_name);
            match name {
                Some(name) => p.symbol_decimal("arg", arg as i64, Some(&name)),
                None => p.uint("arg", arg),
            }
        }
        _ => {
            // KDADDIO/KDDELIO: a port, and which of the ports the console
            // grants it is.
            p.raw_hex("arg", arg);
            let (first, last) = (GPFIRST as u64, GPLAST as u64);
            if p.symbols() && (first..=last).contains(&arg) {
                p.note(&format!("GPFIRST + {}", arg - first));
            }
        }
    }
}

/// The tone KIOCSOUND's divisor (`ms`: KDMKTONE's duration) makes, as a
/// note for a person: `/* 2711 Hz */`, `/* 2711 Hz, 1 ms */`, `/* off */`
/// (strace's; not under `-X raw` or `-V`).
fn tone_note(p: &mut Printer, divisor: u64, ms: Option<u64>) {
    if !p.symbols() {
        return;
    }
    let hz = (PIT_TICK_RATE as u64).checked_div(divisor).unwrap_or(0);
    match ms {
        _ if hz == 0 => p.note("off"),
        Some(0) => p.note("off"),
        Some(ms) => p.note(&format!("{hz} Hz, {ms} ms")),
        None => p.note(&format!("{hz} Hz")),
    }
}

/// A value named from `table`, or its number.
fn named(p: &mut Printer, field: &str, v: u64, table: &[(u64, &str)]) {
    let name = table.iter().find(|&&(k, _)| k == v).map(|&(_, n)| n);
    p.symbol(field, v as i64, name);
}

/// KDGKBLED/KDSKBLED's byte: the keyboard's lock flags in the low nibble,
/// their defaults in the high one (`LED_SCR|LED_NUM<<4`), the other bits
/// in hex.
fn kb_leds(p: &mut Printer, field: &str, v: u64) {
    let names = |bits: u64, shift: &str| -> Vec<String> {
        if bits == 0 {
            return Vec::new();
        }
        flags_text(bits, KD_LEDS, true)
            .split('|')
            .map(|n| format!("{n}{shift}"))
            .collect()
    };
    let known = all_bits(KD_LEDS);
    let mut parts = names(v & known, "");
    parts.extend(names((v >> 4) & known, "<<4"));
    let rest = v & !(known | known << 4);
    if rest != 0 || parts.is_empty() {
        parts.push(flags_hex(rest));
    }
    p.flags_spelled(field, v, parts.join("|"));
}

/// Every bit a flag table names.
fn all_bits(table: &[FlagDef]) -> u64 {
    table.iter().fold(0, |acc, f| acc | f.mask)
}

/// KDGKBENT/KDSKBENT's `struct kbentry`: the table and index the program
/// names before the call, and the value (KDSKBENT's before, KDGKBENT's
/// after a success); the pointer unless the table and index can be read,
/// the value left out when it cannot.
fn kbentry(p: &mut Printer, code: u32, arg: u64, phase: u8) {
    let mut d = vec![0u8; extent(KBENTRY)];
    let got = if arg == 0 || p.config().values_only >= 2 {
        0
    } else {
        p.mem().read(arg, &mut d)
    };
    let value = field(KBENTRY, "kb_value");
    if got < field(KBENTRY, "kb_index").end() || (phase == IF_IN && got < value.end()) {
        return p.ptr("arg", arg);
    }
    p.open("arg", "{", Naming::Fields);
    if phase == IF_OUT {
        let table = field(KBENTRY, "kb_table").read(&d).unwrap_or(0);
        match KD_KB_TABLES.iter().find(|&&(v, _)| v == table) {
            Some(&(_, name)) => p.symbol("kb_table", table as i64, Some(name)),
            None => p.flags("kb_table", table, KD_SHIFT_STATES),
        }
        p.uint("kb_index", field(KBENTRY, "kb_index").read(&d).unwrap_or(0));
    }
    if (phase == IF_IN || code == KDSKBENT) && got >= value.end() {
        let v = value.read(&d).unwrap_or(0);
        p.raw_hex("kb_value", v);
        if p.symbols() {
            p.note(&key_text(v));
        }
    }
    p.close("}");
}

/// A keymap value as `<linux/keyboard.h>` builds it: the key's name
/// (`K_F1`), or `K(type, value)` with the character of the types that hold
/// one (`K(KT_LATIN, 'a')`) or the value in hex (`K(KT_SPEC, 0x14)`).
fn key_text(v: u64) -> String {
    let (ty, val) = (v >> 8, v & 0xff);
    let ty_name = KD_KEY_TYPES
        .iter()
        .find(|&&(k, _)| k == ty)
        .map_or_else(|| flags_hex(ty), |&(_, n)| n.to_string());
    let holds_char = ["KT_LATIN", "KT_META", "KT_LETTER", "KT_DEAD2"].contains(&ty_name.as_str());
    if holds_char {
        return format!("K({ty_name}, {})", char_literal(val as u8));
    }
    match KD_KEYS.iter().find(|&&(k, _)| k == v) {
        Some(&(_, name)) => name.to_string(),
        None => format!("K({ty_name}, {})", flags_hex(val)),
    }
}

/// A byte as a C character literal, as strace writes one: `'a'`, `'\\'`,
/// `'\x7f'`.
fn char_literal(b: u8) -> String {
    match b {
        b'\\' => "'\\\\'".to_string(),
        b'\'' => "'\\''".to_string(),
        0x20..=0x7e => format!("'{}'", b as char),
        _ => format!("'\\x{b:02x}'"),
    }
}

/// The structs of plain integers: their layout and the fields shown in
/// `phase` (KDGETKEYCODE's answer is the keycode alone).
fn plain_struct(code: u32, phase: u8) -> Option<(&'static [Field], &'static [&'static str])> {
    Some(match (code, phase) {
        (KDGETKEYCODE, IF_IN) => (KBKEYCODE, &["keycode"]),
        (KDGETKEYCODE | KDSETKEYCODE, _) => (KBKEYCODE, &["scancode", "keycode"]),
        (KDKBDREP, _) => (KBD_REPEAT, &["delay", "period"]),
        (PIO_UNIMAPCLR, _) => (
            UNIMAPINIT,
            &["advised_hashsize", "advised_hashstep", "advised_hashlevel"],
        ),
        _ => return None,
    })
}

/// The `names` fields of the struct at `arg`, as numbers of their C
/// types (`hex`: unsigned ones in hex); the pointer when it cannot be read.
fn put_fields(p: &mut Printer, arg: u64, layout: &[Field], names: &[&str], hex: bool) {
    let mut d = vec![0u8; extent(layout)];
    if arg == 0 || p.config().values_only >= 2 || !p.mem().read_exact(arg, &mut d) {
        return p.ptr("arg", arg);
    }
    p.open("arg", "{", Naming::Fields);
    for &name in names {
        let f = field(layout, name);
        let v = f.read(&d).unwrap_or(0);
        match (f.signed, hex) {
            (true, _) => p.int(name, v as i64),
            (false, true) => p.raw_hex(name, v),
            (false, false) => p.uint(name, v),
        }
    }
    p.close("}");
}

/// KDGKBSENT/KDSKBSENT's `struct kbsentry`: the function key the program
/// names (`KVAL(K_F2)`: its number among the KT_FN keys) before the call,
/// and its string (KDSKBSENT's before, KDGKBSENT's after a success); the
/// pointer unless the key can be read.
fn kbsentry(p: &mut Printer, code: u32, arg: u64, phase: u8) {
    let (func, string) = (field(KBSENTRY, "kb_func"), field(KBSENTRY, "kb_string"));
    let at = arg + string.off as u64;
    if phase == IF_IN {
        p.open("arg", "{", Naming::Fields);
        p.cstr("kb_string", at);
        return p.close("}");
    }
    let mut d = vec![0u8; func.end()];
    if arg == 0 || p.config().values_only >= 2 || !p.mem().read_exact(arg, &mut d) {
        return p.ptr("arg", arg);
    }
    let f = func.read(&d).unwrap_or(0);
    let fn_type = KD_KEY_TYPES.iter().find(|&&(_, n)| n == "KT_FN");
    let key = fn_type.and_then(|&(t, _)| KD_KEYS.iter().find(|&&(k, _)| k == (t << 8 | f)));
    let name = key.map(|&(_, n)| format!("KVAL({n})"));
    p.open("arg", "{", Naming::Fields);
    p.symbol("kb_func", f as i64, name.as_deref());
    if code == KDSKBSENT {
        p.cstr("kb_string", at);
    }
    p.close("}");
}
