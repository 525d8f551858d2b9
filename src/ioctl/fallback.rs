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
use super::{IOC_READ, IOC_WRITE, ioc_fields, names};
use crate::call::CallType;
use crate::fdtable::FdInfo;
use crate::format::{Naming, Printer};
use crate::kernel::Arch;
use crate::output::Style;

/// How the argument of a request no group decodes is printed.
#[derive(Debug)]
pub enum Plan {
    /// By value (`_IO`): a number.
    Value,
    /// A pointer to data of unknown size.
    Ptr,
    /// A pointer to a type the kernel's BTF describes.
    Btf(Found),
    /// A pointer to this many bytes.
    Bytes(usize),
}

/// Decide how to print request `code`'s argument on `fd`, for a call
/// through `arch`.
pub fn plan(code: u64, arch: Arch, fd: Option<&FdInfo>) -> Plan {
    let f = ioc_fields(code);
    if f.dir == 0 || code > u32::MAX as u64 {
        return Plan::Value;
    }
    if f.size == 0 {
        return Plan::Ptr;
    }
    let ty = names::arg_type_on(
        arch,
        code as u32,
        fd.and_then(|f| std::str::from_utf8(&f.path).ok()),
    );
    // x32 has i386's 4-byte pointers and longs: the same check, a little
    // stricter than it needs (its 64-bit integers keep 8-byte alignment).
    let narrow = arch != Arch::X86_64;
    if let Some(found) = ty.and_then(|t| btf::lookup(t, f.size as usize, narrow)) {
        return Plan::Btf(found);
    }
    Plan::Bytes(f.size as usize)
}

/// The enter half: print the argument if the code says the kernel reads
/// it, or leave it for the leave half if the kernel only writes it.
pub fn out(p: &mut Printer, code: u64, arg: u64, plan: &Plan) -> CallType {
    let dir = ioc_fields(code).dir;
    match plan {
        Plan::Value => p.hex("arg", arg),
        Plan::Ptr => p.ptr("arg", arg),
        _ if dir & IOC_WRITE != 0 => put(p, arg, plan),
        _ => return CallType::NotDone,
    }
    CallType::Done
}

/// The leave half: `=`, the result, and what the kernel wrote.
pub fn leave(p: &mut Printer, code: u64, arg: u64, plan: &Plan, result: i64, failed: bool) {
    let dir = ioc_fields(code).dir;
    let decoded = matches!(plan, Plan::Btf(_) | Plan::Bytes(_));
    if decoded && dir == IOC_READ {
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
    if decoded && dir & IOC_READ != 0 && !failed {
        p.text(" ", Style::Plain);
        put(p, arg, plan);
    }
}

/// Print the argument at `addr` by `plan` (Btf or Bytes).
fn put(p: &mut Printer, addr: u64, plan: &Plan) {
    match plan {
        Plan::Bytes(n) => p.buf("arg", addr, *n as u64),
        Plan::Btf(found) => put_btf(p, addr, found),
        Plan::Value => p.hex("arg", addr),
        Plan::Ptr => p.ptr("arg", addr),
    }
}

/// A BTF-described argument: a struct in braces, an array in brackets or
/// as a string, a scalar as `[5]` (like an `int *`); the pointer when it
/// cannot be read.
fn put_btf(p: &mut Printer, addr: u64, found: &Found) {
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
    match shape.kind {
        Kind::Struct { .. } | Kind::Array { .. } => {
            btf::print::value(p, "arg", shape, &data);
        }
        _ => {
            p.open("arg", "[", Naming::Elements);
            btf::print::value(p, "", shape, &data);
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
    let f = ioc_fields(code);
    let ty = (code <= u32::MAX as u64)
        .then(|| names::arg_type_on(arch, code as u32, None))
        .flatten();
    let when = match f.dir {
        IOC_WRITE => "before the call",
        IOC_READ => "after the call",
        _ => "before and after the call",
    };
    let mut out = String::new();
    match plan(code, arch, None) {
        Plan::Value => out.push_str("  argument: passed by value, printed as a number\n"),
        Plan::Ptr => out.push_str("  argument: a pointer (its code gives no size)\n"),
        Plan::Bytes(n) => {
            let _ = write!(
                out,
                "  printed as the {n} bytes its code carries, as a string {when}"
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
        Plan::Btf(found) => {
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
