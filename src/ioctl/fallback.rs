//! The argument of a request no group decodes, from what is known of it:
//!
//! - its type is named (the request table records `struct fiemap`) and the
//!   kernel's BTF has it at the size the code carries: its fields by name
//!   ([`super::btf`]);
//! - else the code carries a size N (`_IOW`/`_IOR`/`_IOWR`): those N bytes
//!   as a string, cut at `-s`;
//! - else (`_IO`, or a code without direction bits): the number itself.
//!
//! The direction bits say when: `_IOW` before the call, `_IOR` after it
//! (the pointer if it failed), `_IOWR` both, in the shapes of the group
//! decoders (`ioctl(3, FOO, {out}) = 0 {in}`). Only what the code itself
//! says is trusted: a request whose direction bits are 0 but which passes a
//! pointer (old tty and socket codes) prints as a number, as before.

use super::btf::{self, Found, Kind};
use super::defs::Copied;
use super::named::{self, Naming};
use super::names;
use super::{IOC_READ, IOC_WRITE, ioc_fields};
use crate::call::CallType;
use crate::fdtable::FdInfo;
use crate::format::{self, Printer};
use crate::kernel::Arch;
use crate::output::Style;

/// How the argument of a request no group decodes is printed, and when.
#[derive(Debug)]
pub struct Plan {
    /// What is printed.
    pub how: How,
    /// Which way the kernel moves it, as `_IOC_DIR` bits: the code's, or
    /// the kernel's where the request table records that they lie.
    pub dir: u64,
    /// The names its number takes, by value or as the one integer it
    /// points to ([`named::ARGS`]).
    pub naming: Option<&'static Naming>,
}

/// What a [`Plan`] prints.
#[derive(Debug)]
pub enum How {
    /// By value (`_IO`, or a request the kernel takes by value): a number.
    Value,
    /// A pointer to data of unknown size.
    Ptr,
    /// A pointer to a type the kernel's BTF describes.
    Btf(Found),
    /// A pointer to this many bytes.
    Bytes(usize),
    /// A pointer to a NUL-terminated string of at most this many bytes
    /// with its NUL (0: up to `-s`).
    Str(usize),
}

/// Decide how to print request `code`'s argument on `fd`, for a call
/// through `arch`.
pub fn plan(code: u64, arch: Arch, fd: Option<&FdInfo>) -> Plan {
    let f = ioc_fields(code);
    if code > u32::MAX as u64 {
        return Plan {
            how: How::Value,
            dir: 0,
            naming: None,
        };
    }
    let path = fd.and_then(|f| std::str::from_utf8(&f.path).ok());
    let naming = named::argument(names::pick(arch, code as u32, path).iter().map(|d| d.name));
    let value = Plan {
        how: How::Value,
        dir: 0,
        naming,
    };
    let arg = names::argument(arch, code as u32, path);
    let dir = arg.map_or(f.dir, |a| a.dir);
    let how = match arg.map(|a| a.copied) {
        // No direction bits (and no record that the kernel copies
        // anyway): the argument as a number, as the bits say.
        Some(Copied::Value) => How::Value,
        _ if dir == 0 => How::Value,
        Some(Copied::Ptr) => How::Ptr,
        Some(Copied::Str(max)) => How::Str(max as usize),
        Some(Copied::Pointee(ty, size)) => {
            // x32 has i386's 4-byte pointers and longs: the same check, a
            // little stricter than it needs (its 64-bit integers keep
            // 8-byte alignment).
            let narrow = arch != Arch::X86_64;
            match btf::lookup(ty, size as usize, narrow) {
                Some(found) => How::Btf(found),
                None if size == 0 => How::Ptr,
                None => How::Bytes(size as usize),
            }
        }
        None if f.size == 0 => How::Ptr,
        None => How::Bytes(f.size as usize),
    };
    if matches!(how, How::Value) {
        return value;
    }
    Plan { how, dir, naming }
}

/// The enter half: print the argument if the kernel reads it, or leave it
/// for the leave half if the kernel only writes it.
pub fn out(p: &mut Printer, arg: u64, plan: &Plan) -> CallType {
    match plan.how {
        How::Value => p.hex("arg", arg),
        How::Ptr => p.ptr("arg", arg),
        _ if plan.dir & IOC_WRITE != 0 => put(p, arg, plan),
        _ => return CallType::NotDone,
    }
    CallType::Done
}

/// The leave half: `=`, the result, and what the kernel wrote.
pub fn leave(p: &mut Printer, arg: u64, plan: &Plan, result: i64, failed: bool) {
    let decoded = !matches!(plan.how, How::Value | How::Ptr);
    if decoded && plan.dir == IOC_READ {
        if failed {
            p.ptr("arg", arg);
        } else {
            put(p, arg, plan);
        }
        p.equals();
        p.result(result);
        return;
    }
    if !p.equals_printed() {
        p.equals();
    }
    p.result(result);
    if decoded && plan.dir & IOC_READ != 0 && !failed {
        p.text(" ", Style::Plain);
        put(p, arg, plan);
    }
}

/// Print the argument at `addr` by `plan`.
fn put(p: &mut Printer, addr: u64, plan: &Plan) {
    match &plan.how {
        How::Bytes(n) => p.buf("arg", addr, *n as u64),
        How::Btf(found) => put_btf(p, addr, found, plan.naming),
        How::Str(max) => put_str(p, addr, *max),
        How::Value => p.hex("arg", addr),
        How::Ptr => p.ptr("arg", addr),
    }
}

/// A string the kernel takes up to `max` bytes with its NUL (0: any
/// length): up to its NUL, cut at `-s` and marked `..` wherever it is cut.
fn put_str(p: &mut Printer, addr: u64, max: usize) {
    let limit = p.config().string_limit;
    // Past `max` bytes the kernel reads no further (and refuses a name
    // without a NUL in them): so does the print, marking the cut.
    let want = if max == 0 { limit } else { limit.min(max) };
    match p.mem().read_cstr(addr, want) {
        Some((bytes, terminated)) => p.string("arg", &bytes, !terminated),
        None => p.ptr("arg", addr),
    }
}

/// A BTF-described argument: a struct in braces, an array in brackets or
/// as a string, a scalar as `[5]` (like an `int *`); the pointer when it
/// cannot be read.
fn put_btf(p: &mut Printer, addr: u64, found: &Found, naming: Option<&Naming>) {
    let shape = &found.shape;
    let is_struct = matches!(shape.kind, Kind::Struct { .. });
    if addr == 0 || (is_struct && p.config().values_only >= 2) {
        p.ptr("arg", addr);
        return;
    }
    let mut data = vec![0u8; shape.size];
    if !p.mem().read_exact(addr, &mut data) {
        p.ptr("arg", addr);
        return;
    }
    // A counted flexible array's elements follow the struct: read those
    // shown; unreadable, the struct ends with `..`.
    let extra = btf::print::flex_extra(shape, &data, p.config().string_limit);
    if extra > 0 {
        let mut tail = vec![0u8; extra];
        if p.mem().read_exact(addr + shape.size as u64, &mut tail) {
            data.extend_from_slice(&tail);
        }
    }
    match shape.kind {
        Kind::Struct { .. } | Kind::Array { .. } => {
            btf::print::value(p, "arg", shape, &data);
        }
        _ => {
            p.open("arg", "[", format::Naming::Elements);
            match (naming, &shape.kind) {
                (Some(naming), Kind::Int { signed, .. }) if shape.size <= 8 => {
                    let mut raw = [0u8; 8];
                    raw[..shape.size].copy_from_slice(&data[..shape.size]);
                    let raw = u64::from_le_bytes(raw);
                    named::put(p, "", naming, raw, shape.size, *signed);
                }
                _ => {
                    btf::print::value(p, "", shape, &data);
                }
            }
            p.close("]");
        }
    }
}

/// For `--explain-ioctl` of a code no group decodes, made by `arch`'s
/// programs: how rtrace prints its argument, and, when that comes from the
/// kernel's BTF, the layout BTF gives (saying so: no table of ours has it).
/// Lines indented as the explanation's argument lines.
pub fn explain(code: u64, arch: Arch) -> String {
    use std::fmt::Write as _;
    let plan = plan(code, arch, None);
    let ty = (code <= u32::MAX as u64)
        .then(|| names::argument(arch, code as u32, None))
        .flatten()
        .and_then(|a| match a.copied {
            Copied::Pointee(ty, _) => Some(ty),
            _ => None,
        });
    let when = match plan.dir {
        IOC_WRITE => "before the call",
        IOC_READ => "after the call",
        _ => "before and after the call",
    };
    let mut out = String::new();
    match plan.how {
        How::Value => out.push_str("  argument: passed by value, printed as a number\n"),
        How::Ptr => out.push_str("  argument: a pointer (to data of no known size)\n"),
        How::Str(0) => {
            let _ = writeln!(out, "  printed as a NUL-terminated string {when}");
        }
        How::Str(max) => {
            let _ = writeln!(
                out,
                "  printed as a NUL-terminated string of at most {max} bytes with its NUL, {when}"
            );
        }
        How::Bytes(n) => {
            let whose = if n as u64 == ioc_fields(code).size {
                "its code carries"
            } else {
                "the kernel copies"
            };
            let _ = write!(
                out,
                "  printed as the {n} bytes {whose}, as a string {when}"
            );
            match ty {
                Some(t) if btf::available() => {
                    let _ = write!(out, " (the kernel's BTF has no {t} of {n} bytes)");
                }
                Some(_) => out.push_str(" (no kernel BTF to read its type from)"),
                None => {}
            }
            out.push('\n');
        }
        How::Btf(found) if found.source == std::path::Path::new(btf::C_TYPE) => {
            let _ = writeln!(
                out,
                "  printed as {} ({} bytes, known from its C spelling), decoded {when}",
                found.shape.ty, found.shape.size
            );
        }
        How::Btf(found) => {
            let _ = writeln!(
                out,
                "  layout from the kernel's BTF ({}): {} ({} bytes), decoded {when}",
                found.source.display(),
                found.shape.ty,
                found.shape.size
            );
            out.push_str(&btf::print::layout_text(&found.shape));
        }
    }
    out
}
