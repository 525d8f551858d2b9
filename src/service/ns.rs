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
use crate::service::raw::{i32_at, put_named, u32_at};
use crate::service::{ByValue, Mem};

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

/// `sizeof(struct kcmp_epoll_slot)` (`<linux/kcmp.h>`): three __u32.
const KCMP_EPOLL_SLOT_SIZE: usize = 12;

/// What kcmp's decoder reads behind `idx2`, by type (`service::ByValue`):
/// KCMP_EPOLL_TFD's slot.
pub const KCMP_MEMORY: &[ByValue] = &[ByValue {
    selector: 2,
    value: KCMP_EPOLL_TFD as u64,
    arg: 4,
    mem: Mem::In(KCMP_EPOLL_SLOT_SIZE),
}];

/// `kcmp(pid1, pid2, type, idx1, idx2)`: the indexes print as the type
/// reads them, as strace shows them: two fds for KCMP_FILE (the low 32
/// bits of each `unsigned long`, the `unsigned int` the kernel looks the
/// fd up by; under `-y` with their paths in pid1's and pid2's tables), an
/// fd and a `struct kcmp_epoll_slot` for KCMP_EPOLL_TFD, none for the
/// types that compare a whole resource (KCMP_VM, ...), and both in hex
/// for a type the kernel does not know.
pub fn kcmp_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let (pid1, pid2) = (c.int(0), c.int(1));
    p.int("pid1", pid1);
    p.int("pid2", pid2);
    let kind = c.int(2);
    put_named(p, "type", kind, KCMP_TYPES);
    match kind {
        k if k == KCMP_FILE as i64 => {
            put_their_fd(p, "idx1", pid1, c.args[3] as i32);
            put_their_fd(p, "idx2", pid2, c.args[4] as i32);
        }
        k if k == KCMP_EPOLL_TFD as i64 => {
            put_their_fd(p, "idx1", pid1, c.args[3] as i32);
            // `struct kcmp_epoll_slot` (`<linux/kcmp.h>`): three __u32,
            // the first two fds of pid2 (numbers, as strace shows them).
            if let Some(b) = p.open_struct::<KCMP_EPOLL_SLOT_SIZE>("idx2", c.args[4]) {
                p.int("efd", i32_at(&b, 0) as i64);
                p.int("tfd", i32_at(&b, 4) as i64);
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

/// Fd `fd` of process `pid` (as the tracee numbers it): under `-y` with
/// what that process's table holds there (`23</dev/null>`), as strace
/// shows kcmp's fds; the number when the process or fd is not found.
fn put_their_fd(p: &mut Printer, name: &str, pid: i64, fd: i32) {
    use crate::kernel::pidns::{PidHere, pid_here};
    let set = p.config().decode_fds;
    let here = match i32::try_from(pid) {
        Ok(pid) if set.any() && pid > 0 => pid_here(p.pid(), pid),
        _ => PidHere::Unknown,
    };
    // Under the BPF engine the other process's fd is read after the
    // call, with nothing to check it against: its number alone.
    let shown = match here {
        _ if p.mem().is_captured() => None,
        PidHere::Same(here) | PidHere::Translated(here) => {
            crate::kernel::fds::describe(here, fd, set)
        }
        PidHere::Unknown => None,
    };
    match shown {
        Some(shown) => p.fd_text(name, fd as i64, &shown),
        None => p.int(name, fd as i64),
    }
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("kcmp", kcmp_out, default_in, Normal),
    h("setns", setns_out, default_in, Normal),
    h("unshare", unshare_out, default_in, Normal),
];
