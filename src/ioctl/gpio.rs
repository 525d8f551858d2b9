//! The GPIO character device (`<linux/gpio.h>`, `/dev/gpiochipN`): chip and
//! line information, line requests (the v1 handle and event requests and
//! the v2 line request), line values and line configuration.
//!
//! The drivers are rarely in the kernel's BTF (gpiolib is often a module
//! without it), and the flag words are `#define`s and enums BTF cannot name
//! where it has them, so the group decodes them as strace does: what the
//! program asks before the call (`{line_offset=50}`), what the kernel
//! answered after it (`= 0 {flags=GPIOLINE_FLAG_IS_OUT, name="led0",
//! consumer="sysfs"}`), a request's new line fd after a successful call
//! (`= 0 {fd=5}`). Arrays with a count print that many elements (cut at
//! `-s` elements unless `-v`), a v2 attribute prints the union member its
//! id selects (the raw `id`, `padding` and `data` when the padding is used
//! or the id is unknown), reserved words print only when non-zero.
//!
//! Every layout, code and name is generated from the header
//! (`tools/abi_tables.py`, src/abi/xlat/ioctl.rs). The structs are built
//! for 32/64-bit compatibility (`__aligned_u64`, no longs or pointers), so
//! an i386 program's layout is the x86_64 one: the generated `-m32`
//! layouts of the v2 structs (the only ones with 64-bit members) are
//! compared with the native ones in a unit test.

use super::{Arg, IF_IN, IF_OUT, IoctlGroup, Layout, Request};
use crate::abi::layout::{Field, field};
use crate::abi::xlat::ioctl::{
    GPIO_GET_CHIPINFO_IOCTL, GPIO_GET_LINEEVENT_IOCTL, GPIO_GET_LINEHANDLE_IOCTL,
    GPIO_GET_LINEINFO_IOCTL, GPIO_GET_LINEINFO_UNWATCH_IOCTL, GPIO_GET_LINEINFO_WATCH_IOCTL,
    GPIO_V2_GET_LINE_IOCTL, GPIO_V2_GET_LINEINFO_IOCTL, GPIO_V2_GET_LINEINFO_WATCH_IOCTL,
    GPIO_V2_LINE_ATTR_IDS, GPIO_V2_LINE_ATTRIBUTE, GPIO_V2_LINE_CONFIG,
    GPIO_V2_LINE_CONFIG_ATTRIBUTE, GPIO_V2_LINE_FLAGS, GPIO_V2_LINE_GET_VALUES_IOCTL,
    GPIO_V2_LINE_INFO, GPIO_V2_LINE_REQUEST, GPIO_V2_LINE_SET_CONFIG_IOCTL,
    GPIO_V2_LINE_SET_VALUES_IOCTL, GPIO_V2_LINE_VALUES, GPIOCHIP_INFO, GPIOEVENT_FLAGS,
    GPIOEVENT_REQUEST, GPIOHANDLE_CONFIG, GPIOHANDLE_DATA, GPIOHANDLE_FLAGS,
    GPIOHANDLE_GET_LINE_VALUES_IOCTL, GPIOHANDLE_REQUEST, GPIOHANDLE_SET_CONFIG_IOCTL,
    GPIOHANDLE_SET_LINE_VALUES_IOCTL, GPIOLINE_FLAGS, GPIOLINE_INFO,
};
use crate::format::{Naming, Printer};

/// A struct the group decodes from a generated layout: its name and its
/// size, which is the request code's (`_IOC_SIZE`, from the header).
const fn sized(name: &'static str, code: u32) -> Layout {
    Layout {
        name,
        size: ((code >> 16) & 0x3fff) as usize,
        fields: &[],
    }
}

static CHIPINFO: Layout = sized("gpiochip_info", GPIO_GET_CHIPINFO_IOCTL);
static LINEINFO: Layout = sized("gpioline_info", GPIO_GET_LINEINFO_IOCTL);
static UNWATCH: Layout = sized("__u32", GPIO_GET_LINEINFO_UNWATCH_IOCTL);
static HANDLE_REQUEST: Layout = sized("gpiohandle_request", GPIO_GET_LINEHANDLE_IOCTL);
static EVENT_REQUEST: Layout = sized("gpioevent_request", GPIO_GET_LINEEVENT_IOCTL);
static HANDLE_DATA: Layout = sized("gpiohandle_data", GPIOHANDLE_GET_LINE_VALUES_IOCTL);
static HANDLE_CONFIG: Layout = sized("gpiohandle_config", GPIOHANDLE_SET_CONFIG_IOCTL);
static V2_LINE_INFO: Layout = sized("gpio_v2_line_info", GPIO_V2_GET_LINEINFO_IOCTL);
static V2_LINE_REQUEST: Layout = sized("gpio_v2_line_request", GPIO_V2_GET_LINE_IOCTL);
static V2_LINE_CONFIG: Layout = sized("gpio_v2_line_config", GPIO_V2_LINE_SET_CONFIG_IOCTL);
static V2_LINE_VALUES: Layout = sized("gpio_v2_line_values", GPIO_V2_LINE_GET_VALUES_IOCTL);

const BOTH: u8 = IF_OUT | IF_IN;

static REQUESTS: &[Request] = &[
    Request::new(
        GPIO_GET_CHIPINFO_IOCTL,
        "GPIO_GET_CHIPINFO_IOCTL",
        IF_IN,
        Arg::Struct(&CHIPINFO),
    ),
    Request::new(
        GPIO_GET_LINEINFO_IOCTL,
        "GPIO_GET_LINEINFO_IOCTL",
        BOTH,
        Arg::Struct(&LINEINFO),
    ),
    Request::new(
        GPIO_GET_LINEINFO_WATCH_IOCTL,
        "GPIO_GET_LINEINFO_WATCH_IOCTL",
        BOTH,
        Arg::Struct(&LINEINFO),
    ),
    // The kernel reads the offset and writes nothing back.
    Request::new(
        GPIO_GET_LINEINFO_UNWATCH_IOCTL,
        "GPIO_GET_LINEINFO_UNWATCH_IOCTL",
        IF_OUT,
        Arg::Struct(&UNWATCH),
    ),
    Request::new(
        GPIO_GET_LINEHANDLE_IOCTL,
        "GPIO_GET_LINEHANDLE_IOCTL",
        BOTH,
        Arg::Struct(&HANDLE_REQUEST),
    ),
    Request::new(
        GPIO_GET_LINEEVENT_IOCTL,
        "GPIO_GET_LINEEVENT_IOCTL",
        BOTH,
        Arg::Struct(&EVENT_REQUEST),
    ),
    // GET only writes the values, SET and SET_CONFIG only read theirs.
    Request::new(
        GPIOHANDLE_GET_LINE_VALUES_IOCTL,
        "GPIOHANDLE_GET_LINE_VALUES_IOCTL",
        IF_IN,
        Arg::Struct(&HANDLE_DATA),
    ),
    Request::new(
        GPIOHANDLE_SET_LINE_VALUES_IOCTL,
        "GPIOHANDLE_SET_LINE_VALUES_IOCTL",
        IF_OUT,
        Arg::Struct(&HANDLE_DATA),
    ),
    Request::new(
        GPIOHANDLE_SET_CONFIG_IOCTL,
        "GPIOHANDLE_SET_CONFIG_IOCTL",
        IF_OUT,
        Arg::Struct(&HANDLE_CONFIG),
    ),
    Request::new(
        GPIO_V2_GET_LINEINFO_IOCTL,
        "GPIO_V2_GET_LINEINFO_IOCTL",
        BOTH,
        Arg::Struct(&V2_LINE_INFO),
    ),
    Request::new(
        GPIO_V2_GET_LINEINFO_WATCH_IOCTL,
        "GPIO_V2_GET_LINEINFO_WATCH_IOCTL",
        BOTH,
        Arg::Struct(&V2_LINE_INFO),
    ),
    Request::new(
        GPIO_V2_GET_LINE_IOCTL,
        "GPIO_V2_GET_LINE_IOCTL",
        BOTH,
        Arg::Struct(&V2_LINE_REQUEST),
    ),
    Request::new(
        GPIO_V2_LINE_SET_CONFIG_IOCTL,
        "GPIO_V2_LINE_SET_CONFIG_IOCTL",
        IF_OUT,
        Arg::Struct(&V2_LINE_CONFIG),
    ),
    Request::new(
        GPIO_V2_LINE_GET_VALUES_IOCTL,
        "GPIO_V2_LINE_GET_VALUES_IOCTL",
        BOTH,
        Arg::Struct(&V2_LINE_VALUES),
    ),
    Request::new(
        GPIO_V2_LINE_SET_VALUES_IOCTL,
        "GPIO_V2_LINE_SET_VALUES_IOCTL",
        IF_OUT,
        Arg::Struct(&V2_LINE_VALUES),
    ),
];

/// The GPIO group.
pub struct Gpio;

/// The one instance the dispatcher uses.
pub static GPIO: Gpio = Gpio;

impl IoctlGroup for Gpio {
    fn name(&self) -> &'static str {
        "gpio"
    }

    fn headers(&self) -> &'static [&'static str] {
        &["linux/gpio.h"]
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, p: &mut Printer, req: &Request, d: &[u8], phase: u8) -> bool {
        let out = phase == IF_OUT;
        match req.code {
            GPIO_GET_CHIPINFO_IOCTL => {
                let l = GPIOCHIP_INFO;
                put_name(p, d, l, "name");
                put_name(p, d, l, "label");
                put_u(p, d, l, "lines");
            }
            GPIO_GET_LINEINFO_IOCTL | GPIO_GET_LINEINFO_WATCH_IOCTL if out => {
                put_u(p, d, GPIOLINE_INFO, "line_offset");
            }
            GPIO_GET_LINEINFO_IOCTL | GPIO_GET_LINEINFO_WATCH_IOCTL => {
                let l = GPIOLINE_INFO;
                p.flags("flags", get(d, l, "flags"), GPIOLINE_FLAGS);
                put_name(p, d, l, "name");
                put_name(p, d, l, "consumer");
            }
            GPIO_GET_LINEINFO_UNWATCH_IOCTL => p.uint("offset", u32_at(d, 0) as u64),
            GPIO_GET_LINEHANDLE_IOCTL if out => {
                let l = GPIOHANDLE_REQUEST;
                let lines = get(d, l, "lines");
                put_u(p, d, l, "lines");
                put_array(p, d, field(l, "lineoffsets"), 4, lines, false);
                p.flags("flags", get(d, l, "flags"), GPIOHANDLE_FLAGS);
                put_array(p, d, field(l, "default_values"), 1, lines, false);
                put_name(p, d, l, "consumer_label");
            }
            GPIO_GET_LINEHANDLE_IOCTL => put_fd(p, d, GPIOHANDLE_REQUEST),
            GPIO_GET_LINEEVENT_IOCTL if out => {
                let l = GPIOEVENT_REQUEST;
                put_u(p, d, l, "lineoffset");
                p.flags("handleflags", get(d, l, "handleflags"), GPIOHANDLE_FLAGS);
                p.flags("eventflags", get(d, l, "eventflags"), GPIOEVENT_FLAGS);
                put_name(p, d, l, "consumer_label");
            }
            GPIO_GET_LINEEVENT_IOCTL => put_fd(p, d, GPIOEVENT_REQUEST),
            GPIOHANDLE_GET_LINE_VALUES_IOCTL | GPIOHANDLE_SET_LINE_VALUES_IOCTL => {
                put_array(p, d, field(GPIOHANDLE_DATA, "values"), 1, u64::MAX, false);
            }
            GPIOHANDLE_SET_CONFIG_IOCTL => {
                let l = GPIOHANDLE_CONFIG;
                p.flags("flags", get(d, l, "flags"), GPIOHANDLE_FLAGS);
                put_array(p, d, field(l, "default_values"), 1, u64::MAX, false);
            }
            GPIO_V2_GET_LINEINFO_IOCTL | GPIO_V2_GET_LINEINFO_WATCH_IOCTL if out => {
                put_u(p, d, GPIO_V2_LINE_INFO, "offset");
            }
            GPIO_V2_GET_LINEINFO_IOCTL | GPIO_V2_GET_LINEINFO_WATCH_IOCTL => put_v2_line_info(p, d),
            GPIO_V2_GET_LINE_IOCTL if out => put_v2_line_request(p, d),
            GPIO_V2_GET_LINE_IOCTL => put_fd(p, d, GPIO_V2_LINE_REQUEST),
            GPIO_V2_LINE_SET_CONFIG_IOCTL => put_v2_line_config(p, d),
            GPIO_V2_LINE_GET_VALUES_IOCTL if out => {
                p.raw_hex("mask", get(d, GPIO_V2_LINE_VALUES, "mask"));
            }
            GPIO_V2_LINE_GET_VALUES_IOCTL => p.raw_hex("bits", get(d, GPIO_V2_LINE_VALUES, "bits")),
            GPIO_V2_LINE_SET_VALUES_IOCTL => {
                p.raw_hex("bits", get(d, GPIO_V2_LINE_VALUES, "bits"));
                p.raw_hex("mask", get(d, GPIO_V2_LINE_VALUES, "mask"));
            }
            _ => return false,
        }
        true
    }
}

/// A scalar field's value (zero-extended; these are all unsigned).
fn get(d: &[u8], layout: &[Field], name: &str) -> u64 {
    field(layout, name).read(d).unwrap_or(0)
}

/// A `__u32` at `off`.
fn u32_at(d: &[u8], off: usize) -> u32 {
    super::raw::u32_at(d, off)
}

/// An unsigned field by its name.
fn put_u(p: &mut Printer, d: &[u8], layout: &[Field], name: &str) {
    p.uint(name, get(d, layout, name));
}

/// A request's answer: the new line's fd.
fn put_fd(p: &mut Printer, d: &[u8], layout: &[Field]) {
    p.int("fd", get(d, layout, "fd") as u32 as i32 as i64);
}

/// A `char[N]` name: up to its NUL; with none, its first N-1 bytes, cut
/// (strace keeps the last byte for the NUL it would need).
fn put_name(p: &mut Printer, d: &[u8], layout: &[Field], name: &str) {
    let f = field(layout, name);
    let bytes = &d[f.off..f.end()];
    match bytes.iter().position(|&b| b == 0) {
        Some(end) => p.string(name, &bytes[..end], false),
        None => p.string(name, &bytes[..bytes.len().saturating_sub(1)], true),
    }
}

/// How many elements of an array print: all with `-v`, else `-s` of them
/// (as strace cuts arrays).
fn shown(p: &Printer) -> usize {
    if p.config().verbose > 0 {
        usize::MAX
    } else {
        p.config().string_limit
    }
}

/// The first `count` elements (at most the array's) of an array of
/// `elem`-byte unsigned numbers, in decimal or (`hex`) hexadecimal.
fn put_array(p: &mut Printer, d: &[u8], f: Field, elem: usize, count: u64, hex: bool) {
    let n = (f.size / elem).min(count.min(usize::MAX as u64) as usize);
    p.open(f.name, "[", Naming::Elements);
    let limit = shown(p);
    p.bounded(0..n, limit, |p, i| {
        let at = f.off + i * elem;
        let v = Field {
            name: "",
            off: at,
            size: elem,
            signed: false,
        }
        .read(d)
        .unwrap_or(0);
        if hex {
            p.raw_hex("", v);
        } else {
            p.uint("", v);
        }
    });
    p.close("]");
}

/// A `__u32` array printed only when some element is set (the reserved
/// words the kernel requires zero), in hex as strace shows them.
fn put_padding(p: &mut Printer, d: &[u8], layout: &[Field]) {
    let f = field(layout, "padding");
    if d[f.off..f.end()].iter().any(|&b| b != 0) {
        put_array(p, d, f, 4, u64::MAX, true);
    }
}

/// The `num_attrs` elements of `attrs` (at most the array's), each printed
/// by `each` from its bytes.
fn put_attrs(
    p: &mut Printer,
    d: &[u8],
    layout: &[Field],
    elem: &[Field],
    each: fn(&mut Printer, &[u8]),
) {
    let count = get(d, layout, "num_attrs");
    if count == 0 {
        return;
    }
    let f = field(layout, "attrs");
    let size = crate::abi::layout::extent(elem);
    let n = (f.size / size).min(count as usize);
    p.open("attrs", "[", Naming::Elements);
    let limit = shown(p);
    p.bounded(0..n, limit, |p, i| {
        let at = f.off + i * size;
        each(p, &d[at..at + size]);
    });
    p.close("]");
}

/// A `struct gpio_v2_line_attribute`'s fields: the union member its id
/// names; the raw id, padding and data when the padding is used or the id
/// unknown.
fn put_v2_attribute_fields(p: &mut Printer, a: &[u8]) {
    let l = GPIO_V2_LINE_ATTRIBUTE;
    let id = get(a, l, "id") as u32;
    let padding = get(a, l, "padding");
    let known = GPIO_V2_LINE_ATTR_IDS.iter().find(|&&(v, _)| v == id);
    match known.map(|&(_, n)| n) {
        Some("GPIO_V2_LINE_ATTR_ID_FLAGS") if padding == 0 => {
            p.flags("flags", get(a, l, "flags"), GPIO_V2_LINE_FLAGS)
        }
        Some("GPIO_V2_LINE_ATTR_ID_OUTPUT_VALUES") if padding == 0 => {
            p.raw_hex("values", get(a, l, "values"))
        }
        Some("GPIO_V2_LINE_ATTR_ID_DEBOUNCE") if padding == 0 => {
            put_u(p, a, l, "debounce_period_us")
        }
        _ => {
            p.uint("id", id as u64);
            if padding != 0 {
                p.raw_hex("padding", padding);
            }
            // The union's 64 bits, whichever member they are.
            p.raw_hex("data", get(a, l, "values"));
        }
    }
}

/// One element of a line info's `attrs`: `{flags=...}`.
fn put_v2_attribute(p: &mut Printer, a: &[u8]) {
    p.open("", "{", Naming::Fields);
    put_v2_attribute_fields(p, a);
    p.close("}");
}

/// One element of a line config's `attrs`: the attribute (inline when it
/// decodes, as `attr={...}` when raw) and its line mask.
fn put_v2_config_attribute(p: &mut Printer, c: &[u8]) {
    let l = GPIO_V2_LINE_CONFIG_ATTRIBUTE;
    let f = field(l, "attr");
    let a = &c[f.off..f.end()];
    let la = GPIO_V2_LINE_ATTRIBUTE;
    let id = get(a, la, "id") as u32;
    let raw = get(a, la, "padding") != 0 || !GPIO_V2_LINE_ATTR_IDS.iter().any(|&(v, _)| v == id);
    p.open("", "{", Naming::Fields);
    if raw {
        p.open("attr", "{", Naming::Fields);
        put_v2_attribute_fields(p, a);
        p.close("}");
    } else {
        put_v2_attribute_fields(p, a);
    }
    p.raw_hex("mask", get(c, l, "mask"));
    p.close("}");
}

/// A `struct gpio_v2_line_config`'s fields.
fn put_v2_line_config(p: &mut Printer, d: &[u8]) {
    let l = GPIO_V2_LINE_CONFIG;
    p.flags("flags", get(d, l, "flags"), GPIO_V2_LINE_FLAGS);
    put_u(p, d, l, "num_attrs");
    put_padding(p, d, l);
    put_attrs(
        p,
        d,
        l,
        GPIO_V2_LINE_CONFIG_ATTRIBUTE,
        put_v2_config_attribute,
    );
}

/// GPIO_V2_GET_LINEINFO's answer.
fn put_v2_line_info(p: &mut Printer, d: &[u8]) {
    let l = GPIO_V2_LINE_INFO;
    put_name(p, d, l, "name");
    put_name(p, d, l, "consumer");
    p.flags("flags", get(d, l, "flags"), GPIO_V2_LINE_FLAGS);
    put_u(p, d, l, "num_attrs");
    put_attrs(p, d, l, GPIO_V2_LINE_ATTRIBUTE, put_v2_attribute);
    put_padding(p, d, l);
}

/// GPIO_V2_GET_LINE's request.
fn put_v2_line_request(p: &mut Printer, d: &[u8]) {
    let l = GPIO_V2_LINE_REQUEST;
    let lines = get(d, l, "num_lines");
    put_u(p, d, l, "num_lines");
    put_array(p, d, field(l, "offsets"), 4, lines, false);
    put_name(p, d, l, "consumer");
    let c = field(l, "config");
    p.open("config", "{", Naming::Fields);
    put_v2_line_config(p, &d[c.off..c.end()]);
    p.close("}");
    let events = get(d, l, "event_buffer_size");
    if events != 0 {
        p.uint("event_buffer_size", events);
    }
    put_padding(p, d, l);
}

/// Whether `code` is one of this group's (`_IOC_TYPE` 0xB4).
#[cfg(test)]
fn is_gpio(code: u32) -> bool {
    super::ioc_fields(code as u64).kind == 0xb4
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::xlat::ioctl::{
        GPIO_V2_LINE_ATTRIBUTE_I386, GPIO_V2_LINE_CONFIG_ATTRIBUTE_I386, GPIO_V2_LINE_CONFIG_I386,
        GPIO_V2_LINE_INFO_I386, GPIO_V2_LINE_REQUEST_I386, GPIO_V2_LINE_VALUES_I386,
    };

    /// An i386 program's structs are the native ones (the header builds
    /// them for compat): the generated `-m32` layouts agree field for field.
    #[test]
    fn the_i386_layouts_are_the_native_ones() {
        let pairs: [(&[Field], &[Field]); 6] = [
            (GPIO_V2_LINE_ATTRIBUTE, GPIO_V2_LINE_ATTRIBUTE_I386),
            (
                GPIO_V2_LINE_CONFIG_ATTRIBUTE,
                GPIO_V2_LINE_CONFIG_ATTRIBUTE_I386,
            ),
            (GPIO_V2_LINE_CONFIG, GPIO_V2_LINE_CONFIG_I386),
            (GPIO_V2_LINE_REQUEST, GPIO_V2_LINE_REQUEST_I386),
            (GPIO_V2_LINE_INFO, GPIO_V2_LINE_INFO_I386),
            (GPIO_V2_LINE_VALUES, GPIO_V2_LINE_VALUES_I386),
        ];
        for (native, i386) in pairs {
            assert_eq!(native.len(), i386.len());
            for (a, b) in native.iter().zip(i386) {
                assert_eq!((a.name, a.off, a.size), (b.name, b.off, b.size));
            }
        }
        // The codes carry the same sizes on both.
        for req in REQUESTS {
            assert!(is_gpio(req.code), "{}", req.name);
            let i386 = crate::ioctl::names::table(crate::kernel::Arch::I386)
                .by_name(req.name)
                .map(|d| d.code);
            assert_eq!(i386, Some(req.code), "{}", req.name);
        }
    }
}
