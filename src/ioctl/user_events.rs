//! The user_events group ('*'): `/sys/kernel/tracing/user_events_data`.
//!
//! Requests and structs from include/uapi/linux/user_events.h; the command
//! grammar and field rules from kernel/trace/trace_events_user.c. DIAG_IOCSREG
//! takes one request code for three struct layouts, told apart by the `size`
//! field at offset 0: the current one (>= 28 bytes), the 6.1-6.3 packed one
//! (20) and the 5.18 one (24). A successful registration is remembered per
//! fd (`write_index -> event`, bookkeeping done whether or not the call is
//! printed), so writes on that fd print the event's name and its payload
//! decoded by its fields.

use std::fmt::Write as _;

use super::raw::{i16_at, i32_at, i64_at, u8_at, u16_at, u32_at, u64_at};
use super::{Arg, IF_IN, IF_OUT, IoctlGroup, Layout, PointedArray, Request, typed};
pub use crate::abi::gen_user_events::{DIAG_IOCSDEL, DIAG_IOCSREG, DIAG_IOCSUNREG};
use crate::abi::gen_user_events::{
    DIAG_IOCSDEL32, DIAG_IOCSREG32, DIAG_IOCSUNREG32, USER_EVENT_REG_MULTI_FORMAT,
    USER_EVENT_REG_PERSIST, user_reg as REG, user_unreg as UNREG,
};
use crate::abi::user_events::{self, EventDef, EventField, FieldKind, TRACE_ENTRY_SIZE, Why};
use crate::fdtable::FdTable;
use crate::format::{FlagDef, Naming, Printer, flag, quote};
use crate::kernel::Memory;

/// `struct user_reg`, current layout (packed).
pub static USER_REG: Layout = Layout {
    name: "user_reg",
    size: REG::SIZEOF,
    fields: &[
        typed(REG::SIZE, "u32"),
        typed(REG::ENABLE_BIT, "u8"),
        typed(REG::ENABLE_SIZE, "u8"),
        typed(REG::FLAGS, "u16"),
        typed(REG::ENABLE_ADDR, "u64"),
        typed(REG::NAME_ARGS, "u64 (char *)"),
        typed(REG::WRITE_INDEX, "u32 (out)"),
    ],
};

/// `struct user_unreg` (packed).
pub static USER_UNREG: Layout = Layout {
    name: "user_unreg",
    size: UNREG::SIZEOF,
    fields: &[
        typed(UNREG::SIZE, "u32"),
        typed(UNREG::DISABLE_BIT, "u8"),
        typed(UNREG::__RESERVED, "u8"),
        typed(UNREG::__RESERVED2, "u16"),
        typed(UNREG::DISABLE_ADDR, "u64"),
    ],
};

/// The command string behind `name_args` (Linux 6.4's layout, the same for
/// an i386 caller), which the decoder shows and reads the event's fields
/// from: the BPF engine copies as much as the decoder reads, a unit of
/// [`MAX_COMMAND`] bytes.
const NAME_ARGS: PointedArray = PointedArray {
    ptr_offset: REG::NAME_ARGS.off,
    ptr_offset_i386: Some(REG::NAME_ARGS.off),
    count_offset: 0,
    count_size: 0,
    count_arg: None,
    unit: MAX_COMMAND,
    shown: 1,
    dirs: IF_OUT,
    each: None,
    trailing: None,
    string: None,
};

static REQUESTS: &[Request] = &[
    Request::new(
        DIAG_IOCSREG,
        "DIAG_IOCSREG",
        IF_OUT | IF_IN,
        Arg::Custom(&USER_REG),
    )
    .pointing(NAME_ARGS),
    Request::new(DIAG_IOCSDEL, "DIAG_IOCSDEL", 0, Arg::Str),
    Request::new(
        DIAG_IOCSUNREG,
        "DIAG_IOCSUNREG",
        IF_OUT,
        Arg::Custom(&USER_UNREG),
    ),
    Request::new(
        DIAG_IOCSREG32,
        "DIAG_IOCSREG",
        IF_OUT | IF_IN,
        Arg::Custom(&USER_REG),
    )
    .pointing(NAME_ARGS),
    Request::new(DIAG_IOCSDEL32, "DIAG_IOCSDEL", 0, Arg::Str),
    Request::new(
        DIAG_IOCSUNREG32,
        "DIAG_IOCSUNREG",
        IF_OUT,
        Arg::Custom(&USER_UNREG),
    ),
];

/// `USER_EVENT_REG_*` flags (`abi::gen_user_events`, from the kernel's
/// source: linux-libc-dev 6.1 has no `<linux/user_events.h>`).
const REG_FLAGS: &[FlagDef] = &[
    flag(USER_EVENT_REG_PERSIST as u64, "USER_EVENT_REG_PERSIST"),
    flag(
        USER_EVENT_REG_MULTI_FORMAT as u64,
        "USER_EVENT_REG_MULTI_FORMAT",
    ),
];

/// The struct layouts one DIAG_IOCSREG code has had. Only the current one
/// is in today's header (`abi::gen_user_events`); the sizes and offsets of
/// the two older ones are typed here, from the 5.18 and 6.1 headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RegLayout {
    /// Linux 6.4 and later.
    Current,
    /// Linux 6.1 to 6.3 (packed, 20 bytes).
    V6_1,
    /// Linux 5.18 to about 6.0 (24 bytes).
    V5_18,
}

/// `sizeof(struct user_reg)` as the `size` field says it.
const REG_SIZE: u32 = REG::SIZEOF as u32;

fn reg_layout(size: u32) -> Option<RegLayout> {
    match size {
        REG_SIZE.. => Some(RegLayout::Current),
        24 => Some(RegLayout::V5_18),
        20 => Some(RegLayout::V6_1),
        _ => None,
    }
}

/// The user_events group.
pub struct UserEvents;

/// The one instance the dispatcher uses.
pub static USER_EVENTS: UserEvents = UserEvents;

impl IoctlGroup for UserEvents {
    fn name(&self) -> &'static str {
        "user_events"
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn claims(&self, fd: Option<&crate::fdtable::FdInfo>) -> bool {
        fd.is_none_or(|info| info.kind == crate::fdtable::FdKind::UserEvents)
    }

    fn fields(&self, _p: &mut Printer, _req: &Request, _d: &[u8], _phase: u8) -> bool {
        false
    }

    fn custom(&self, p: &mut Printer, req: &Request, addr: u64, phase: u8) {
        if matches!(req.code, DIAG_IOCSUNREG | DIAG_IOCSUNREG32) {
            put_unreg(p, addr);
        } else {
            put_reg(p, addr, phase);
        }
    }

    fn extended(&self, p: &mut Printer, req: &Request, call: &super::IoctlCall) {
        if p.config().verbose == 0 || !matches!(req.code, DIAG_IOCSREG | DIAG_IOCSREG32) {
            return;
        }
        if let Some((command, _)) = read_reg(p.mem(), call.arg) {
            let event = parse_command(&command);
            p.continuation(&format!("> {}", event.describe()));
        }
    }
}

/// A command (or event name) as read from the tracee, one char per byte
/// (U+0000 to U+00FF): no byte is lost, as it would be to U+FFFD if the
/// bytes are not UTF-8, and the ASCII the command's grammar splits on
/// stays what it was. Every string made here is shown through [`escape`],
/// which turns the chars back into the bytes.
pub fn command_text(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// Text of [`command_text`] (or rtrace's own ASCII) made safe for the trace, escaped as the
/// registration's argument is (`\377` for the byte 0xff): no control or
/// non-ASCII bytes.
pub fn escape(s: &str) -> String {
    let q = quote(&command_bytes(s), false);
    q[1..q.len() - 1].to_string()
}

/// The bytes a [`command_text`] string was made from.
pub fn command_bytes(s: &str) -> Vec<u8> {
    s.chars()
        .flat_map(|c| match u8::try_from(c) {
            Ok(b) => vec![b],
            // Not from command_text (rtrace's own text is ASCII).
            Err(_) => c.to_string().into_bytes(),
        })
        .collect()
}

/// Read a registration's command string (one char per byte:
/// [`command_text`]) and write_index (after the call).
fn read_reg(mem: &mut Memory, addr: u64) -> Option<(String, Option<u32>)> {
    let mut head = [0u8; REG::SIZEOF];
    if !mem.read_exact(addr, &mut head[..4]) {
        return None;
    }
    let layout = reg_layout(u32_at(&head, REG::SIZE.off))?;
    let len = match layout {
        RegLayout::Current => REG::SIZEOF,
        RegLayout::V5_18 => 24,
        RegLayout::V6_1 => 20,
    };
    if !mem.read_exact(addr, &mut head[..len]) {
        return None;
    }
    let (name_args, index) = match layout {
        RegLayout::Current => (
            u64_at(&head, REG::NAME_ARGS.off),
            u32_at(&head, REG::WRITE_INDEX.off),
        ),
        RegLayout::V5_18 => (u64_at(&head, 8), u32_at(&head, 20)),
        RegLayout::V6_1 => (u64_at(&head, 4), u32_at(&head, 16)),
    };
    let (bytes, _) = mem.read_cstr(name_args, MAX_COMMAND)?;
    Some((command_text(&bytes), Some(index)))
}

/// Longest command string read (the kernel caps it at a page).
const MAX_COMMAND: usize = 4096;

fn put_reg(p: &mut Printer, addr: u64, phase: u8) {
    let mut raw = [0u8; REG::SIZEOF];
    if addr == 0 || p.config().values_only >= 2 || !p.mem().read_exact(addr, &mut raw[..4]) {
        p.ptr("arg", addr);
        return;
    }
    let size = u32_at(&raw, REG::SIZE.off);
    let layout = reg_layout(size);
    let len = match layout {
        Some(RegLayout::Current) => REG::SIZEOF,
        Some(RegLayout::V5_18) => 24,
        Some(RegLayout::V6_1) => 20,
        None => (size as usize).clamp(4, REG::SIZEOF),
    };
    if !p.mem().read_exact(addr, &mut raw[..len]) {
        // A short struct at the end of a mapping: show what could be read.
        let got = p.mem().read(addr, &mut raw[..len]);
        if got < 4 {
            p.ptr("arg", addr);
            return;
        }
    }
    let d = &raw[..];
    p.open("arg", "{", Naming::Fields);
    if phase == IF_IN {
        match layout {
            Some(RegLayout::Current) => {
                p.uint("write_index", u32_at(d, REG::WRITE_INDEX.off) as u64)
            }
            Some(RegLayout::V6_1) => {
                p.uint("status_bit", u32_at(d, 12) as u64);
                p.uint("write_index", u32_at(d, 16) as u64);
            }
            Some(RegLayout::V5_18) => {
                p.uint("status_index", u32_at(d, 16) as u64);
                p.uint("write_index", u32_at(d, 20) as u64);
            }
            None => {}
        }
        p.close_struct(layout.is_some());
        return;
    }
    p.uint("size", size as u64);
    let complete = match layout {
        Some(RegLayout::Current) => {
            p.uint("enable_bit", u8_at(d, REG::ENABLE_BIT.off) as u64);
            p.uint("enable_size", u8_at(d, REG::ENABLE_SIZE.off) as u64);
            p.flags("flags", u16_at(d, REG::FLAGS.off) as u64, REG_FLAGS);
            p.ptr("enable_addr", u64_at(d, REG::ENABLE_ADDR.off));
            p.path("name_args", u64_at(d, REG::NAME_ARGS.off));
            size == REG_SIZE
        }
        Some(RegLayout::V5_18) => {
            p.path("name_args", u64_at(d, 8));
            true
        }
        Some(RegLayout::V6_1) => {
            p.path("name_args", u64_at(d, 4));
            true
        }
        None => false,
    };
    p.close_struct(complete);
}

fn put_unreg(p: &mut Printer, addr: u64) {
    let mut raw = [0u8; UNREG::SIZEOF];
    if addr == 0 || p.config().values_only >= 2 || !p.mem().read_exact(addr, &mut raw) {
        p.ptr("arg", addr);
        return;
    }
    p.open("arg", "{", Naming::Fields);
    p.uint("size", u32_at(&raw, UNREG::SIZE.off) as u64);
    p.uint("disable_bit", u8_at(&raw, UNREG::DISABLE_BIT.off) as u64);
    // The reserved fields must be zero (EINVAL otherwise): show them then.
    if u8_at(&raw, UNREG::__RESERVED.off) != 0 {
        p.uint("__reserved", u8_at(&raw, UNREG::__RESERVED.off) as u64);
    }
    if u16_at(&raw, UNREG::__RESERVED2.off) != 0 {
        p.uint("__reserved2", u16_at(&raw, UNREG::__RESERVED2.off) as u64);
    }
    p.ptr("disable_addr", u64_at(&raw, UNREG::DISABLE_ADDR.off));
    p.close_struct(u32_at(&raw, UNREG::SIZE.off) as usize == UNREG::SIZEOF);
}

/// Parse a registration command `name[:FLAG[,FLAG]] [field[;field...]]`
/// (one char per byte: [`command_text`]) with the kernel's own grammar
/// (`abi::user_events::parse_fields`): fields are `type name [size]`,
/// laid out one after another without padding; the first field the
/// kernel refuses leaves `error` saying why, in words.
pub fn parse_command(command: &str) -> EventDef {
    let mut def = EventDef::default();
    let command = command.trim_start();
    let (head, args) = match command.find(' ') {
        Some(i) => (&command[..i], Some(&command[i + 1..])),
        None => (command, None),
    };
    let (name, flags) = match head.split_once(':') {
        Some((name, flags)) => (name, Some(flags)),
        None => (head, None),
    };
    def.name = name.to_string();
    if let Some(flags) = flags {
        def.flags = flags.split(',').map(str::to_string).collect();
    }
    if def.name.is_empty() {
        def.error = Some("no event name".into());
        return def;
    }
    let args = args.map(command_bytes);
    match user_events::parse_fields(args.as_deref()) {
        Ok(fields) => {
            def.fields = fields
                .iter()
                .map(|f| EventField {
                    ty: command_text(&f.ty),
                    // Shown as the argument shows it: `no\377te`, never U+FFFD.
                    name: escape(&command_text(&f.name)),
                    kind: f.kind(),
                    offset: f.offset - TRACE_ENTRY_SIZE,
                    size: f.size,
                })
                .collect();
        }
        Err(e) => def.error = Some(refusal(&e)),
    }
    def
}

/// Why the kernel refuses a field, in words: `field 'long x': 'long' is
/// rejected by the kernel (its size depends on the ABI)`.
fn refusal(e: &user_events::FieldError) -> String {
    let text = |b: &[u8]| escape(&command_text(b));
    let why = match &e.why {
        Why::NoName => "it has no name".to_string(),
        Why::SizeNotStruct => "only a struct field takes a size".to_string(),
        Why::BadSize(w) => format!("bad size '{}'", text(w)),
        Why::TooManyWords => "more than `type name [size]`".to_string(),
        Why::AbiDependent(t) => format!(
            "'{}' is rejected by the kernel (its size depends on the ABI)",
            text(t)
        ),
        Why::BadArray(t) => format!(
            "bad array '{}' (the kernel takes char[N] and unsigned char[N], N up to 1024)",
            text(t)
        ),
        Why::UnknownType(t) => format!("unknown type '{}'", text(t)),
        Why::ZeroSize => "a struct of size 0".to_string(),
    };
    format!("field '{}': {why}", text(&e.field))
}

// EventDef itself lives in `abi::user_events`, below the fd table that
// keeps it; how it is shown needs the format layer, so that part is here.
impl EventDef {
    /// One line for `-v`: the event, its flags and each field's layout.
    pub fn describe(&self) -> String {
        let mut s = format!("event {}", quote(&command_bytes(&self.name), false));
        if !self.flags.is_empty() {
            let _ = write!(s, " flags {}", self.flags.join(","));
        }
        s.push(':');
        if self.fields.is_empty() && self.error.is_none() {
            s.push_str(" no fields");
        }
        for (i, f) in self.fields.iter().enumerate() {
            let sep = if i == 0 { " " } else { "; " };
            let _ = write!(
                s,
                "{sep}{} {} @{} ({} bytes)",
                f.ty, f.name, f.offset, f.size
            );
        }
        if let Some(e) = &self.error {
            let _ = write!(s, " [malformed: {e}]");
        }
        s
    }
}

/// Remember a successful DIAG_IOCSREG on `fd`: write_index -> event.
/// Bookkeeping: runs whether or not the call is printed.
pub fn track_register(fds: &mut FdTable, mem: &mut Memory, fd: i32, arg: u64) {
    if let Some((command, Some(index))) = read_reg(mem, arg) {
        fds.register_event(fd, index, parse_command(&command));
    }
}

/// Print a write(2) buffer on a user_events_data fd: the write_index
/// resolved to its event and the payload decoded by its fields.
pub fn put_payload(p: &mut Printer, name: &str, bytes: &[u8], fds: &FdTable, fd: i32) {
    if bytes.len() < 4 {
        p.string(name, bytes, false);
        return;
    }
    let index = u32_at(bytes, 0);
    let event = fds.with(fd, |info| info.event(index).cloned()).flatten();
    p.open(name, "{", Naming::Fields);
    put_index(p, index, event.as_ref());
    put_fields(p, &bytes[4..], event.as_ref());
    p.close("}");
    on_timeline(p, &bytes[4..], event.as_ref());
}

/// With `--timeline`: the record a write makes, as an instant on its
/// event's track (`user_events NAME`) with an arrow from the write (shown
/// only if the write succeeds): `NAME: field=value ...`.
fn on_timeline(p: &mut Printer, payload: &[u8], event: Option<&EventDef>) {
    let Some(event) = event else {
        return;
    };
    let mut text = format!("{}:", event.name);
    for f in &event.fields {
        let Some(b) = payload.get(f.offset..f.offset + f.size) else {
            break;
        };
        text.push(' ');
        text.push_str(&f.name);
        text.push('=');
        match f.kind {
            FieldKind::Signed(n) if (1..=8).contains(&n) => {
                let shift = 64 - 8 * n as u32;
                let v = ((le_bytes(b) << shift) as i64) >> shift;
                text.push_str(&v.to_string());
            }
            FieldKind::Unsigned(_) => text.push_str(&le_bytes(b).to_string()),
            FieldKind::CharArray(_) => {
                let end = memchr::memchr(0, b).unwrap_or(b.len());
                crate::escape::c_escape(&b[..end], true, &mut text);
            }
            FieldKind::DataLoc { chars: true } | FieldKind::RelLoc { chars: true } => {
                match located(f, u32_at(b, 0), payload) {
                    Some(data) => {
                        let end = memchr::memchr(0, data).unwrap_or(data.len());
                        crate::escape::c_escape(&data[..end], true, &mut text);
                    }
                    None => text.push_str("<bad loc>"),
                }
            }
            _ => text.push_str(".."),
        }
    }
    let track = format!("user_events {}", event.name);
    p.device_event(&track, None, &event.name, &text);
}

/// Up to 8 little-endian bytes as a number.
fn le_bytes(b: &[u8]) -> u64 {
    b.iter()
        .take(8)
        .rev()
        .fold(0, |v, &byte| v << 8 | byte as u64)
}

/// The write_index with its event: `write_index=1 <test>`.
fn put_index(p: &mut Printer, index: u32, event: Option<&EventDef>) {
    let text = match event {
        Some(e) => format!("{index} <{}>", e.name),
        None => format!("{index} <unknown>"),
    };
    p.field("write_index", &text);
}

/// The payload fields of `event` from `payload`, or the raw bytes.
fn put_fields(p: &mut Printer, payload: &[u8], event: Option<&EventDef>) {
    let Some(event) = event else {
        p.string("raw", payload, false);
        return;
    };
    for f in &event.fields {
        let Some(bytes) = payload.get(f.offset..f.offset + f.size) else {
            p.more();
            return;
        };
        put_field(p, f, bytes, payload);
    }
    if payload.len() < event.min_size() {
        p.more();
    }
}

fn put_field(p: &mut Printer, f: &EventField, b: &[u8], payload: &[u8]) {
    match f.kind {
        FieldKind::Signed(1) => p.int(&f.name, b[0] as i8 as i64),
        FieldKind::Signed(2) => p.int(&f.name, i16_at(b, 0) as i64),
        FieldKind::Signed(4) => p.int(&f.name, i32_at(b, 0) as i64),
        FieldKind::Signed(_) => p.int(&f.name, i64_at(b, 0)),
        FieldKind::Unsigned(1) => p.uint(&f.name, b[0] as u64),
        FieldKind::Unsigned(2) => p.uint(&f.name, u16_at(b, 0) as u64),
        FieldKind::Unsigned(4) => p.uint(&f.name, u32_at(b, 0) as u64),
        FieldKind::Unsigned(_) => p.uint(&f.name, u64_at(b, 0)),
        FieldKind::CharArray(_) => {
            let end = memchr::memchr(0, b).unwrap_or(b.len());
            p.string(&f.name, &b[..end], false);
        }
        FieldKind::DataLoc { chars } | FieldKind::RelLoc { chars } => {
            let loc = u32_at(b, 0);
            match located(f, loc, payload) {
                Some(data) if chars => {
                    let end = memchr::memchr(0, data).unwrap_or(data.len());
                    p.string(&f.name, &data[..end], false);
                }
                Some(data) => p.string(&f.name, data, false),
                None => p.field(&f.name, &format!("<bad loc 0x{loc:x}>")),
            }
        }
        FieldKind::Struct(_) => p.string(&f.name, b, false),
    }
}

/// The bytes a `__data_loc`/`__rel_loc` field's `loc` (`size << 16 |
/// offset`) points at in `payload`: `__data_loc` offsets count from the
/// kernel's record start (before the payload's `struct trace_entry`),
/// `__rel_loc` ones from the end of the field itself.
fn located<'a>(f: &EventField, loc: u32, payload: &'a [u8]) -> Option<&'a [u8]> {
    let (off, len) = ((loc & 0xffff) as usize, (loc >> 16) as usize);
    let start = match f.kind {
        FieldKind::RelLoc { .. } => Some(f.offset + 4 + off),
        _ => off.checked_sub(TRACE_ENTRY_SIZE),
    };
    start.and_then(|s| payload.get(s..s + len))
}

/// Print a writev(2) on a user_events_data fd: the iovecs' bytes taken as
/// one record, shown as `[{write_index=1 <test>}, {count=5, ...}]`.
pub fn put_writev(p: &mut Printer, name: &str, bytes: &[u8], fds: &FdTable, fd: i32) {
    if bytes.len() < 4 {
        p.string(name, bytes, false);
        return;
    }
    let index = u32_at(bytes, 0);
    let event = fds.with(fd, |info| info.event(index).cloned()).flatten();
    p.open(name, "[", Naming::Elements);
    p.open("", "{", Naming::Fields);
    put_index(p, index, event.as_ref());
    p.close("}");
    p.open("", "{", Naming::Fields);
    put_fields(p, &bytes[4..], event.as_ref());
    p.close("}");
    p.close("]");
    on_timeline(p, &bytes[4..], event.as_ref());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse_with_kernel_sizes_and_offsets() {
        let e = parse_command("rtrace_probe u32 count;char[8] tag");
        assert_eq!(e.name, "rtrace_probe");
        assert_eq!(e.error, None);
        assert_eq!(
            e.describe(),
            "event \"rtrace_probe\": u32 count @0 (4 bytes); char[8] tag @4 (8 bytes)"
        );
        let e = parse_command(
            "multi:BPF_ITER s64 a;unsigned short b;__data_loc char[] msg;struct foo f 12",
        );
        assert_eq!(e.flags, vec!["BPF_ITER"]);
        let offs: Vec<(usize, usize)> = e.fields.iter().map(|f| (f.offset, f.size)).collect();
        assert_eq!(offs, vec![(0, 8), (8, 2), (10, 4), (14, 12)]);
        let bad = parse_command("bad long x");
        assert!(bad.error.unwrap().contains("rejected by the kernel"));
        assert!(parse_command("x u32").error.is_some());
        // The kernel takes no arrays of numbers (user_field_size): refused,
        // as the registration would be, not decoded.
        assert_eq!(
            parse_command("x u32[4] v").error.as_deref(),
            Some("field 'u32[4] v': unknown type 'u32[4]'")
        );
        assert_eq!(
            parse_command("x unsigned char[4] v").fields[0].kind,
            FieldKind::CharArray(4)
        );
        assert!(
            parse_command("x char[2000] v")
                .error
                .unwrap()
                .contains("up to 1024")
        );
        assert!(parse_command("x u32 a 8").error.is_some());
    }

    #[test]
    fn layouts_by_size() {
        assert_eq!(reg_layout(28), Some(RegLayout::Current));
        assert_eq!(reg_layout(32), Some(RegLayout::Current));
        assert_eq!(reg_layout(24), Some(RegLayout::V5_18));
        assert_eq!(reg_layout(20), Some(RegLayout::V6_1));
        assert_eq!(reg_layout(12), None);
    }
}
