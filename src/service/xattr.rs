//! Extended attributes: setxattr, getxattr, listxattr and their `l` (the
//! link itself) and `f` (an open fd) twins, and the `*xattrat` calls
//! (6.13: a directory fd, a path and AT_ flags, the value in a `struct
//! xattr_args`). A value prints as a string of the length the call passes
//! or returns, a list as its names; removexattr needs nothing beyond the
//! generic printer.

// XATTR_ARGS_SIZE_VER0 is the first `struct xattr_args` (`__aligned_u64
// value; __u32 size; __u32 flags`), the smallest the kernel takes; a value
// longer than XATTR_SIZE_MAX prints as its pointer.
use crate::abi::xlat::fs::{
    XATTR_ARGS_SIZE_VER0, XATTR_FLAGS, XATTR_LIST_MAX, XATTR_SIZE_MAX, XATTRAT_FLAGS,
};
use crate::call::{CallClass::Normal, CallCtx, CallType, Handler, default_in};
use crate::decode::{put_dirfd, put_fd};
use crate::format::{Naming, Printer};
use crate::service::raw::{read_vec, u32_at, u64_at};
use crate::service::{Indirect, Mem, h};

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
    put_value(p, c.args[2], c.args[3]);
    p.uint("size", c.args[3]);
    p.flags("flags", c.args[4] as u32 as u64, XATTR_FLAGS);
    CallType::Done
}

/// A value of `len` bytes, as strace shows one: a value shown whole that
/// ends in a NUL (a C string, as most are) without that NUL, which the
/// size beside it still counts (`"foo\0bar", 8`).
fn put_value(p: &mut Printer, addr: u64, len: u64) {
    let mut last = [1u8];
    let whole = len > 0 && len <= p.config().string_limit as u64;
    if whole && p.mem().read(addr.wrapping_add(len - 1), &mut last) == 1 && last[0] == 0 {
        p.buf("value", addr, len - 1);
    } else {
        p.buf("value", addr, len);
    }
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
        put_value(p, c.args[2], c.result as u64);
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

/// `dirfd`, `pathname` and `flags` of the `*xattrat` calls (6.13).
fn put_at_target(p: &mut Printer, c: &CallCtx) {
    put_dirfd(p, c.fds, "dirfd", c.int(0));
    p.path("pathname", c.args[1]);
    p.flags("flags", c.args[2] as u32 as u64, XATTRAT_FLAGS);
}

/// How `struct xattr_args.value` prints: as `len` bytes, or as the
/// pointer (the call failed, or nothing was read or written).
enum Value {
    Bytes(u64),
    Pointer,
}

/// `struct xattr_args`'s members: the value's address, and its size
/// (`<linux/xattr.h>`, `__aligned_u64 value; __u32 size; __u32 flags`).
const VALUE_AT: u8 = 0;
const SIZE_AT: u8 = 8;

/// What setxattrat reads through `struct xattr_args.value`
/// (`service::Indirect`): as many bytes as its `size` says.
pub const SETXATTRAT_INDIRECT: &[Indirect] = &[Indirect {
    arg: 4,
    offset: VALUE_AT as u16,
    mem: Mem::InMember(SIZE_AT),
}];

/// What getxattrat writes there: as many bytes as its `size` and the
/// result say.
pub const GETXATTRAT_INDIRECT: &[Indirect] = &[Indirect {
    arg: 4,
    offset: VALUE_AT as u16,
    mem: Mem::OutMember(SIZE_AT),
}];

/// The `struct xattr_args` of setxattrat and getxattrat: `{value="hello",
/// size=5, flags=XATTR_CREATE}`; the pointer if `size` is smaller than the
/// first layout or the struct cannot be read. Bytes past the first layout
/// (which the kernel requires to be zero) are not shown.
fn put_xattr_args(p: &mut Printer, addr: u64, size: u64, value: impl FnOnce(u32) -> Value) {
    if size < XATTR_ARGS_SIZE_VER0 {
        p.ptr("args", addr);
        return;
    }
    let Some(b) = p.open_struct::<{ XATTR_ARGS_SIZE_VER0 as usize }>("args", addr) else {
        return;
    };
    let (at, len, flags) = (
        u64_at(&b, VALUE_AT as usize),
        u32_at(&b, SIZE_AT as usize),
        u32_at(&b, 12),
    );
    match value(len) {
        Value::Bytes(n) if n <= XATTR_SIZE_MAX => p.buf("value", at, n),
        _ => p.ptr("value", at),
    }
    p.uint("size", len as u64);
    p.flags("flags", flags as u64, XATTR_FLAGS);
    p.close_struct(true);
}

/// `setxattrat(dirfd, pathname, flags, name, args, size)`: the value as
/// the `size` bytes the struct names.
pub fn setxattrat_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_at_target(p, c);
    p.cstr("name", c.args[3]);
    put_xattr_args(p, c.args[4], c.args[5], |len| Value::Bytes(len as u64));
    p.uint("size", c.args[5]);
    CallType::Done
}

/// `getxattrat(dirfd, pathname, flags, name, args, size)`: the struct at
/// leave, its value as long as the result says.
pub fn getxattrat_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_at_target(p, c);
    p.cstr("name", c.args[3]);
    CallType::NotDone
}

/// Leave half of getxattrat. A `size` 0 in the struct only measures:
/// nothing was written, the pointer prints (as it does when the call
/// failed).
pub fn getxattrat_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    let result = c.result as u64;
    put_xattr_args(p, c.args[4], c.args[5], |len| {
        if failed || len == 0 {
            Value::Pointer
        } else {
            Value::Bytes(result)
        }
    });
    p.uint("size", c.args[5]);
    p.equals();
    p.result(c.result);
}

/// `listxattrat(dirfd, pathname, flags, list, size)`: the names at leave.
pub fn listxattrat_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_at_target(p, c);
    CallType::NotDone
}

/// Leave half of listxattrat, as listxattr's.
pub fn listxattrat_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if failed || c.args[4] == 0 {
        p.ptr("list", c.args[3]);
    } else {
        put_names(p, "list", c.args[3], c.result as u64);
    }
    p.uint("size", c.args[4]);
    p.equals();
    p.result(c.result);
}

/// `removexattrat(dirfd, pathname, flags, name)`.
pub fn removexattrat_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_at_target(p, c);
    p.cstr("name", c.args[3]);
    CallType::Done
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("fgetxattr", getxattr_out, getxattr_in, Normal),
    h("flistxattr", listxattr_out, listxattr_in, Normal),
    h("fsetxattr", setxattr_out, default_in, Normal),
    h("getxattr", getxattr_out, getxattr_in, Normal),
    h("getxattrat", getxattrat_out, getxattrat_in, Normal),
    h("lgetxattr", getxattr_out, getxattr_in, Normal),
    h("listxattr", listxattr_out, listxattr_in, Normal),
    h("listxattrat", listxattrat_out, listxattrat_in, Normal),
    h("llistxattr", listxattr_out, listxattr_in, Normal),
    h("lsetxattr", setxattr_out, default_in, Normal),
    h("removexattrat", removexattrat_out, default_in, Normal),
    h("setxattr", setxattr_out, default_in, Normal),
    h("setxattrat", setxattrat_out, default_in, Normal),
];
