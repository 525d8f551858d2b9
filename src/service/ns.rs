//! What processes share: unshare and setns (the namespaces a process
//! leaves or joins, by their `CLONE_*` flags) and kcmp (whether two
//! processes share a resource).

use crate::abi::xlat::process::{
    KCMP_EPOLL_TFD, KCMP_FILE, KCMP_TYPES, SETNS_FLAGS, UNSHARE_FLAGS,
};
use crate::call::{CallClass::Normal, CallCtx, CallType, Handler, default_in};
use crate::decode::put_fd;
use crate::format::Printer;
use crate::service::h;
use crate::service::raw::{put_named, u32_at};

/// `unshare(flags)`: `unshare(CLONE_NEWUTS|CLONE_NEWNET)`. The kernel
/// reads all of the `unsigned long`.
pub fn unshare_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.flags("flags", c.args[0], UNSHARE_FLAGS);
    CallType::Done
}

/// `setns(fd, nstype)`: the namespace types the fd must be (`0`: any).
pub fn setns_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    p.flags("nstype", c.args[1] as u32 as u64, SETNS_FLAGS);
    CallType::Done
}

/// `kcmp(pid1, pid2, type, idx1, idx2)`: the indexes print as the type
/// reads them, as strace shows them: two fds for KCMP_FILE (numbers: they
/// are the other processes' fds, so `-y` cannot name them from here), an
/// fd and a `struct kcmp_epoll_slot` for KCMP_EPOLL_TFD, none for the
/// types that compare a whole resource (KCMP_VM, ...), and both in hex
/// for a type the kernel does not know.
pub fn kcmp_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("pid1", c.int(0));
    p.int("pid2", c.int(1));
    let kind = c.int(2);
    put_named(p, "type", kind, KCMP_TYPES);
    match kind {
        k if k == KCMP_FILE as i64 => {
            p.uint("idx1", c.args[3]);
            p.uint("idx2", c.args[4]);
        }
        k if k == KCMP_EPOLL_TFD as i64 => {
            p.uint("idx1", c.args[3]);
            // `struct kcmp_epoll_slot` (`<linux/kcmp.h>`): three __u32.
            if let Some(b) = p.open_struct::<12>("idx2", c.args[4]) {
                p.uint("efd", u32_at(&b, 0) as u64);
                p.uint("tfd", u32_at(&b, 4) as u64);
                p.uint("toff", u32_at(&b, 8) as u64);
                p.close_struct(true);
            }
        }
        k if crate::service::raw::lookup(KCMP_TYPES, k).is_some() => {}
        _ => {
            p.hex("idx1", c.args[3]);
            p.hex("idx2", c.args[4]);
        }
    }
    CallType::Done
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("kcmp", kcmp_out, default_in, Normal),
    h("setns", setns_out, default_in, Normal),
    h("unshare", unshare_out, default_in, Normal),
];
