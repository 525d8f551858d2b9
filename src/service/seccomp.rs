//! `seccomp(op, flags, uargs)`: the operation, its flags and what `uargs`
//! points to for each operation (a filter program, an action, the
//! notification sizes the kernel writes). prctl(PR_SET_SECCOMP) shares the
//! program printer (`bpf_filter.rs`).

use crate::abi::xlat::bpf::SECCOMP_RET_ACTIONS;
use crate::abi::xlat::process::{SECCOMP_FILTER_FLAGS, SECCOMP_OPS};
use crate::call::{CallClass::Normal, CallCtx, CallType, Handler};
use crate::format::{Naming, Printer};
use crate::service::bpf_filter::{Flavor, put_fprog};
use crate::service::h;
use crate::service::raw::{entered_done, lookup, put_named, read_vec, u16_at, u32_at};
use crate::service::{ByValue, Mem};

/// SECCOMP_SET_MODE_FILTER
const SET_MODE_FILTER: u32 = 1;
/// What seccomp's decoder reads behind `uargs`, by operation
/// (`service::ByValue`): SECCOMP_SET_MODE_FILTER's program.
pub const MEMORY: &[ByValue] = &[ByValue {
    selector: 0,
    value: SET_MODE_FILTER as u64,
    arg: 2,
    mem: Mem::Fprog,
}];

/// SECCOMP_GET_ACTION_AVAIL
const GET_ACTION_AVAIL: u32 = 2;
/// SECCOMP_GET_NOTIF_SIZES
const GET_NOTIF_SIZES: u32 = 3;

/// `seccomp(op, flags, uargs)`: the program a filter installs; the sizes
/// SECCOMP_GET_NOTIF_SIZES fills in print at leave.
pub fn seccomp_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    // Both are `unsigned int`: the upper halves are not the kernel's.
    let op = c.args[0] as u32;
    let flags = c.args[1] as u32 as u64;
    put_named(p, "op", op as i64, SECCOMP_OPS);
    let uargs = c.args[2];
    match op {
        SET_MODE_FILTER => {
            p.flags("flags", flags, SECCOMP_FILTER_FLAGS);
            put_fprog(p, "uargs", uargs, Flavor::Seccomp);
        }
        GET_ACTION_AVAIL => {
            put_flags_word(p, flags);
            match read_vec(p, uargs, 4).filter(|_| uargs != 0 && p.config().values_only < 2) {
                Some(b) => {
                    let action = u32_at(&b, 0) as i64;
                    p.open("uargs", "[", Naming::Elements);
                    p.symbol("", action, lookup(SECCOMP_RET_ACTIONS, action));
                    p.close("]");
                }
                None => p.ptr("uargs", uargs),
            }
        }
        GET_NOTIF_SIZES => {
            put_flags_word(p, flags);
            return CallType::NotDone;
        }
        _ => {
            put_flags_word(p, flags);
            p.ptr("uargs", uargs);
        }
    }
    CallType::Done
}

/// The flags of the operations that take none: a number, `0` or `0x1`
/// as strace prints them.
fn put_flags_word(p: &mut Printer, flags: u64) {
    if flags == 0 {
        p.uint("flags", 0);
    } else {
        p.hex("flags", flags);
    }
}

/// Leave half of seccomp(SECCOMP_GET_NOTIF_SIZES): `struct
/// seccomp_notif_sizes`, three `__u16`.
pub fn seccomp_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if entered_done(p, c) {
        return;
    }
    let uargs = c.args[2];
    match read_vec(p, uargs, 6).filter(|_| !failed && uargs != 0 && p.config().values_only < 2) {
        Some(b) => {
            p.open("uargs", "{", Naming::Fields);
            p.uint("seccomp_notif", u16_at(&b, 0) as u64);
            p.uint("seccomp_notif_resp", u16_at(&b, 2) as u64);
            p.uint("seccomp_data", u16_at(&b, 4) as u64);
            p.close("}");
        }
        None => p.ptr("uargs", uargs),
    }
    p.equals();
    p.result(c.result);
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[h("seccomp", seccomp_out, seccomp_in, Normal)];
