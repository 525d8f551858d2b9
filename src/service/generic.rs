//! The generic handler: prints any call's arguments by their declared kind.
//!
//! Every call in the architecture's table without a specific handler prints
//! through here, so no call is ever a bare number; a number the table does not
//! know prints as `syscall_N(...)` with its six registers in hex.

use crate::abi::fs::UMODE_MASK;
use crate::call::{CallCtx, CallType};
use crate::decode::{put_dirfd, put_fd, put_signal};
use crate::fdtable::FdTable;
use crate::format::Printer;
use crate::sysent::Kind;

/// Print one argument by kind: its raw register, or for a value split
/// across registers or counted in pages the value
/// [`Signature::value`](crate::sysent::Signature::value) makes.
pub fn put_arg(p: &mut Printer, fds: &FdTable, name: &str, kind: Kind, raw: u64) {
    match kind {
        Kind::Fd => put_fd(p, fds, name, raw as i32 as i64),
        Kind::Int | Kind::Pid => p.int(name, raw as i32 as i64),
        Kind::Uint => p.uint(name, raw),
        Kind::Offset => p.int(name, raw as i64),
        // A value split across registers prints whole under its low word.
        Kind::High => {}
        Kind::Pages => p.hex(name, raw),
        Kind::Hex => p.hex(name, raw),
        Kind::Mode => p.mode(name, raw & UMODE_MASK),
        Kind::DirFd => put_dirfd(p, fds, name, raw as i32 as i64),
        Kind::Signal => put_signal(p, name, raw as i32 as i64),
        Kind::Ptr => p.ptr(name, raw),
        Kind::Path => p.path(name, raw),
        Kind::Str => p.cstr(name, raw),
    }
}

/// The generic enter printer: every declared parameter, then done.
pub fn generic_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    match c.sig {
        Some(sig) => {
            for (i, param) in sig.params.iter().enumerate().take(6) {
                let value = sig.value(i, c.arch, &c.args);
                put_arg(p, c.fds, param.name, param.kind, value);
            }
        }
        None => {
            for (i, &raw) in c.args.iter().enumerate() {
                p.hex(&format!("arg{i}"), raw);
            }
        }
    }
    CallType::Done
}

/// An enter printer for calls without parameters.
pub fn no_params_out(_p: &mut Printer, _c: &mut CallCtx) -> CallType {
    CallType::Done
}
