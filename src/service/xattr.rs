//! Extended attributes: setxattr, getxattr, listxattr and their `l` (the
//! link itself) and `f` (an open fd) twins. A value prints as a string of
//! the length the call passes or returns, a list as its names;
//! removexattr needs nothing beyond the generic printer.

use crate::abi::xlat::fs::XATTR_FLAGS;
use crate::call::{CallClass::Normal, CallCtx, CallType, Handler, default_in};
use crate::decode::put_fd;
use crate::format::{Naming, Printer};
use crate::service::h;
use crate::service::raw::read_vec;

/// `XATTR_LIST_MAX` from `<linux/limits.h>`: the longest list the kernel
/// returns.
const XATTR_LIST_MAX: u64 = 65536;
/// Names shown before `..` without `-v`.
const NAMES_SHOWN: usize = 32;

/// The file the call names: a path (setxattr, lsetxattr, ...) or, for the
/// `f` calls, an fd.
fn put_target(p: &mut Printer, c: &CallCtx) {
    let by_fd = c
        .sig
        .and_then(|s| s.params.first())
        .is_some_and(|param| param.name == "fd");
    if by_fd {
        put_fd(p, c.fds, "fd", c.int(0));
    } else {
        p.path("pathname", c.args[0]);
    }
}

/// `setxattr(pathname, name, value, size, flags)`, `lsetxattr(...)`,
/// `fsetxattr(fd, ...)`: the value as `size` bytes.
pub fn setxattr_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_target(p, c);
    p.cstr("name", c.args[1]);
    p.buf("value", c.args[2], c.args[3]);
    p.uint("size", c.args[3]);
    p.flags("flags", c.args[4] as u32 as u64, XATTR_FLAGS);
    CallType::Done
}

/// `getxattr(pathname, name, value, size)`, `lgetxattr(...)`,
/// `fgetxattr(fd, ...)`: the value at leave, as long as the result says.
pub fn getxattr_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_target(p, c);
    p.cstr("name", c.args[1]);
    CallType::NotDone
}

/// Leave half of getxattr. With `size` 0 the call only measures: nothing
/// was written, the pointer prints.
pub fn getxattr_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if failed || c.args[3] == 0 {
        p.ptr("value", c.args[2]);
    } else {
        p.buf("value", c.args[2], c.result as u64);
    }
    p.uint("size", c.args[3]);
    p.equals();
    p.result(c.result);
}

/// `listxattr(pathname, list, size)`, `llistxattr(...)`,
/// `flistxattr(fd, ...)`: the names at leave.
pub fn listxattr_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_target(p, c);
    CallType::NotDone
}

/// Leave half of listxattr: `["user.a", "user.b"]`.
pub fn listxattr_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if failed || c.args[2] == 0 {
        p.ptr("list", c.args[1]);
    } else {
        put_names(p, "list", c.args[1], c.result as u64);
    }
    p.uint("size", c.args[2]);
    p.equals();
    p.result(c.result);
}

/// A list of NUL-terminated names, `len` bytes at `addr`: `["user.a"]`; a
/// name without its NUL (a list cut short) ends `"..`.
fn put_names(p: &mut Printer, name: &str, addr: u64, len: u64) {
    let Some(b) =
        read_vec(p, addr, len.min(XATTR_LIST_MAX) as usize).filter(|_| p.config().values_only < 2)
    else {
        p.ptr(name, addr);
        return;
    };
    let shown = if p.config().verbose > 0 {
        usize::MAX
    } else {
        NAMES_SHOWN
    };
    let limit = p.config().string_limit;
    p.open(name, "[", Naming::Elements);
    let mut rest = &b[..];
    let mut n = 0;
    while !rest.is_empty() {
        if n == shown {
            p.more();
            break;
        }
        n += 1;
        let (item, terminated) = match memchr::memchr(0, rest) {
            Some(end) => (&rest[..end], true),
            None => (rest, false),
        };
        let cut = item.len() > limit;
        p.string("", &item[..item.len().min(limit)], cut || !terminated);
        rest = &rest[(item.len() + 1).min(rest.len())..];
    }
    p.close("]");
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("fgetxattr", getxattr_out, getxattr_in, Normal),
    h("flistxattr", listxattr_out, listxattr_in, Normal),
    h("fsetxattr", setxattr_out, default_in, Normal),
    h("getxattr", getxattr_out, getxattr_in, Normal),
    h("lgetxattr", getxattr_out, getxattr_in, Normal),
    h("listxattr", listxattr_out, listxattr_in, Normal),
    h("llistxattr", listxattr_out, listxattr_in, Normal),
    h("lsetxattr", setxattr_out, default_in, Normal),
    h("setxattr", setxattr_out, default_in, Normal),
];
