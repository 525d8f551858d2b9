//! Input devices (`<linux/input.h>`, `/dev/input/eventN`): the requests
//! whose arguments BTF prints without names or at the wrong width, decoded
//! as strace does:
//!
//! - EVIOCGKEYCODE / EVIOCSKEYCODE: `[scancode, KEY_ESC]`;
//! - EVIOCGKEYCODE_V2 / EVIOCSKEYCODE_V2: `struct input_keymap_entry`,
//!   `{flags=0, len=4, ..}`, with `-v` its index, the key by name and the
//!   scancode bytes in hex;
//! - EVIOCSFF: `struct ff_effect`, `{type=FF_RUMBLE, id=-1, direction=0,
//!   ..}`, with `-v` its trigger, replay and the union member its type
//!   selects (`rumble={strong_magnitude=.., weak_magnitude=..}`);
//! - EVIOCRMFF: the effect id, passed by value though the header says
//!   `int` (the kernel's `evdev_do_ioctl` hands `(int)arg` to
//!   `input_ff_erase`).
//!
//! The other input requests (EVIOCGABS, EVIOCGNAME, ...) print from the
//! generated tables and BTF (`fallback`). `struct ff_effect` holds a
//! pointer (the periodic effect's `custom_data`), so an i386 program's is
//! smaller and has its own code, EVIOCSFF32 here, made from the generated
//! `-m32` layout; the other structs are the same on both.

use super::{Arg, IF_IN, IF_OUT, IoctlGroup, Layout, Request};
use crate::abi::layout::{Field, extent, field};
use crate::abi::xlat::ioctl::{
    EVIOCGKEYCODE, EVIOCGKEYCODE_V2, EVIOCRMFF, EVIOCSFF, EVIOCSKEYCODE, EVIOCSKEYCODE_V2,
    FF_CONSTANT_EFFECT, FF_EFFECT, FF_EFFECT_I386, FF_ENVELOPE, FF_PERIODIC_EFFECT,
    FF_PERIODIC_EFFECT_I386, FF_RAMP_EFFECT, FF_REPLAY, FF_RUMBLE_EFFECT, FF_TRIGGER, FF_TYPES,
    INPUT_BUTTONS, INPUT_KEYMAP_ENTRY, INPUT_KEYS,
};
use crate::format::{Naming, Printer};

/// i386's EVIOCSFF: the native code with the `-m32` struct's size.
const EVIOCSFF32: u32 = (EVIOCSFF & !(0x3fff << 16)) | ((extent(FF_EFFECT_I386) as u32) << 16);

/// A struct of the group, its size the code's (`_IOC_SIZE`).
const fn sized(name: &'static str, code: u32) -> Layout {
    Layout {
        name,
        size: ((code >> 16) & 0x3fff) as usize,
        fields: &[],
    }
}

static KEYCODE: Layout = sized("unsigned int[2]", EVIOCGKEYCODE);
static KEYMAP_ENTRY: Layout = sized("input_keymap_entry", EVIOCGKEYCODE_V2);
static EFFECT: Layout = sized("ff_effect", EVIOCSFF);
static EFFECT32: Layout = sized("ff_effect", EVIOCSFF32);
static ID: Layout = Layout {
    name: "int",
    size: 4,
    fields: &[],
};

static REQUESTS: &[Request] = &[
    // Two numbers, printed as an array: `custom`.
    Request::new(EVIOCGKEYCODE, "EVIOCGKEYCODE", IF_IN, Arg::Custom(&KEYCODE)),
    Request::new(
        EVIOCSKEYCODE,
        "EVIOCSKEYCODE",
        IF_OUT,
        Arg::Custom(&KEYCODE),
    ),
    Request::new(
        EVIOCGKEYCODE_V2,
        "EVIOCGKEYCODE_V2",
        IF_IN,
        Arg::Struct(&KEYMAP_ENTRY),
    ),
    Request::new(
        EVIOCSKEYCODE_V2,
        "EVIOCSKEYCODE_V2",
        IF_OUT,
        Arg::Struct(&KEYMAP_ENTRY),
    ),
    Request::new(EVIOCSFF, "EVIOCSFF", IF_OUT, Arg::Struct(&EFFECT)),
    Request::new(EVIOCSFF32, "EVIOCSFF32", IF_OUT, Arg::Struct(&EFFECT32)),
    // By value: `custom` prints the register as the int the kernel takes.
    Request::new(EVIOCRMFF, "EVIOCRMFF", IF_OUT, Arg::Custom(&ID)),
];

/// The evdev group.
pub struct Evdev;

/// The one instance the dispatcher uses.
pub static EVDEV: Evdev = Evdev;

impl IoctlGroup for Evdev {
    fn name(&self) -> &'static str {
        "evdev"
    }

    fn headers(&self) -> &'static [&'static str] {
        &["linux/input.h"]
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, p: &mut Printer, req: &Request, d: &[u8], _phase: u8) -> bool {
        let verbose = p.config().verbose > 0;
        match req.code {
            EVIOCGKEYCODE_V2 | EVIOCSKEYCODE_V2 => {
                let l = INPUT_KEYMAP_ENTRY;
                p.uint("flags", get(d, l, "flags"));
                p.uint("len", get(d, l, "len"));
                if !verbose {
                    return false;
                }
                p.uint("index", get(d, l, "index"));
                put_key(p, "keycode", get(d, l, "keycode") as u32);
                let f = field(l, "scancode");
                p.open("scancode", "[", Naming::Elements);
                for &b in &d[f.off..f.end()] {
                    p.raw_hex("", b as u64);
                }
                p.close("]");
            }
            EVIOCSFF | EVIOCSFF32 => {
                let i386 = req.code == EVIOCSFF32 && EVIOCSFF32 != EVIOCSFF;
                return put_effect(p, d, i386, verbose);
            }
            _ => return false,
        }
        true
    }

    fn custom(&self, p: &mut Printer, req: &Request, arg: u64, _phase: u8) {
        if req.code == EVIOCRMFF {
            p.int("arg", arg as u32 as i32 as i64);
            return;
        }
        // EVIOCG/SKEYCODE's `unsigned int[2]`: `[scancode, KEY_ESC]`.
        let mut d = [0u8; 8];
        if arg == 0 || p.config().values_only >= 2 || !p.mem().read_exact(arg, &mut d) {
            p.ptr("arg", arg);
            return;
        }
        p.open("arg", "[", Naming::Elements);
        p.uint("", super::raw::u32_at(&d, 0) as u64);
        put_key(p, "", super::raw::u32_at(&d, 4));
        p.close("]");
    }
}

/// A field's value (sign-extended where the field is signed).
fn get(d: &[u8], layout: &[Field], name: &str) -> u64 {
    field(layout, name).read(d).unwrap_or(0)
}

/// A key or button code by name.
fn put_key(p: &mut Printer, name: &str, code: u32) {
    let sym = INPUT_KEYS
        .iter()
        .chain(INPUT_BUTTONS)
        .find(|&&(v, _)| v == code)
        .map(|&(_, n)| n);
    p.symbol(name, code as i64, sym);
}

/// The member `name` of `layout` in `d`, as a sub-slice.
fn member<'a>(d: &'a [u8], layout: &[Field], name: &str) -> &'a [u8] {
    let f = field(layout, name);
    &d[f.off..f.end()]
}

/// Print the unsigned (or, per the layout, signed) fields `names` of
/// `layout` in `d` inside a struct called `name`.
fn put_fields(p: &mut Printer, name: &str, d: &[u8], layout: &[Field], names: &[&str]) {
    p.open(name, "{", Naming::Fields);
    for &n in names {
        let f = field(layout, n);
        let v = get(d, layout, n);
        if f.signed {
            p.int(n, v as i64);
        } else {
            p.uint(n, v);
        }
    }
    p.close("}");
}

/// A `struct ff_envelope` (its fade level in hex, as strace shows it).
fn put_envelope(p: &mut Printer, d: &[u8]) {
    let l = FF_ENVELOPE;
    p.open("envelope", "{", Naming::Fields);
    p.uint("attack_length", get(d, l, "attack_length"));
    p.uint("attack_level", get(d, l, "attack_level"));
    p.uint("fade_length", get(d, l, "fade_length"));
    p.raw_hex("fade_level", get(d, l, "fade_level"));
    p.close("}");
}

/// A `struct ff_effect`; whether every field was printed.
fn put_effect(p: &mut Printer, d: &[u8], i386: bool, verbose: bool) -> bool {
    let l = if i386 { FF_EFFECT_I386 } else { FF_EFFECT };
    let ty = get(d, l, "type") as u32;
    let name = FF_TYPES.iter().find(|&&(v, _)| v == ty).map(|&(_, n)| n);
    p.symbol("type", ty as i64, name);
    p.int("id", get(d, l, "id") as i64);
    p.uint("direction", get(d, l, "direction"));
    if !verbose {
        return false;
    }
    put_fields(
        p,
        "trigger",
        member(d, l, "trigger"),
        FF_TRIGGER,
        &["button", "interval"],
    );
    put_fields(
        p,
        "replay",
        member(d, l, "replay"),
        FF_REPLAY,
        &["length", "delay"],
    );
    let u = member(d, l, "u");
    match name {
        Some("FF_CONSTANT") => {
            let c = FF_CONSTANT_EFFECT;
            p.open("constant", "{", Naming::Fields);
            p.int("level", get(u, c, "level") as i64);
            put_envelope(p, member(u, c, "envelope"));
            p.close("}");
        }
        Some("FF_RAMP") => {
            let r = FF_RAMP_EFFECT;
            p.open("ramp", "{", Naming::Fields);
            p.int("start_level", get(u, r, "start_level") as i64);
            p.int("end_level", get(u, r, "end_level") as i64);
            put_envelope(p, member(u, r, "envelope"));
            p.close("}");
        }
        Some("FF_PERIODIC") => {
            let pe = if i386 {
                FF_PERIODIC_EFFECT_I386
            } else {
                FF_PERIODIC_EFFECT
            };
            p.open("periodic", "{", Naming::Fields);
            p.uint("waveform", get(u, pe, "waveform"));
            p.uint("period", get(u, pe, "period"));
            p.int("magnitude", get(u, pe, "magnitude") as i64);
            p.int("offset", get(u, pe, "offset") as i64);
            p.uint("phase", get(u, pe, "phase"));
            put_envelope(p, member(u, pe, "envelope"));
            p.uint("custom_len", get(u, pe, "custom_len"));
            p.ptr("custom_data", get(u, pe, "custom_data"));
            p.close("}");
        }
        Some("FF_RUMBLE") => put_fields(
            p,
            "rumble",
            u,
            FF_RUMBLE_EFFECT,
            &["strong_magnitude", "weak_magnitude"],
        ),
        _ => {}
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ioctl::names;
    use crate::kernel::Arch;

    /// The i386 code made from the `-m32` layout is the i386 header's.
    #[test]
    fn the_i386_code_is_the_headers() {
        let i386 = names::table(Arch::I386).by_name("EVIOCSFF").map(|d| d.code);
        assert_eq!(i386, Some(EVIOCSFF32));
        assert_ne!(EVIOCSFF32, EVIOCSFF);
    }
}
