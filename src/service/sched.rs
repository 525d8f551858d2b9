//! Scheduling beyond sched_setscheduler's: I/O priorities (ioprio_set,
//! ioprio_get) and `struct sched_attr` (sched_setattr, sched_getattr).

use crate::abi::xlat::resource as sizes;
use crate::abi::xlat::resource::{
    IOPRIO_CLASS_MASK, IOPRIO_CLASS_SHIFT, IOPRIO_CLASSES, IOPRIO_PRIO_MASK, IOPRIO_WHO,
    SCHED_ATTR_FLAGS, SCHED_ATTR_POLICIES, SCHED_FLAG_KEEP_PARAMS, SCHED_FLAG_KEEP_POLICY,
};
use crate::call::{CallClass::Normal, CallCtx, CallType, Handler, default_in};
use crate::decode::put_extended;
use crate::format::{Naming, Printer};
use crate::output::Style;
use crate::service::fs::put_result;
use crate::service::h;
use crate::service::raw::{i32_at, lookup, open_struct_dyn, put_named, read_vec, u32_at, u64_at};

/// An I/O priority as the kernel's `IOPRIO_PRIO_VALUE(class, data)`
/// macro makes it, which is how strace shows it:
/// `IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 7)`. A class no name has is its
/// number, in hex when it has bits above the class field, as strace
/// writes it (`IOPRIO_PRIO_VALUE(0x7d677, 7917)` for 0xfacefeed).
pub fn ioprio_text(value: u64) -> Option<String> {
    let shift = IOPRIO_CLASS_SHIFT as u64;
    let class = (value >> shift) as i64;
    let data = value & IOPRIO_PRIO_MASK as u64;
    Some(match lookup(IOPRIO_CLASSES, class) {
        Some(name) => format!("IOPRIO_PRIO_VALUE({name}, {data})"),
        None if value >> shift > IOPRIO_CLASS_MASK as u64 => {
            format!("IOPRIO_PRIO_VALUE({class:#x}, {data})")
        }
        None => format!("IOPRIO_PRIO_VALUE({class}, {data})"),
    })
}

/// `which` and `who` of both ioprio calls: `IOPRIO_WHO_PROCESS, 0`.
fn put_who(p: &mut Printer, c: &CallCtx) {
    put_named(p, "which", c.int(0), IOPRIO_WHO);
    p.int("who", c.int(1));
}

/// `ioprio_set(which, who, ioprio)`.
pub fn ioprio_set_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_who(p, c);
    let value = c.args[2] as u32 as u64;
    match ioprio_text(value) {
        Some(text) => p.symbol("ioprio", value as i64, Some(&text)),
        None => p.hex("ioprio", value),
    }
    CallType::Done
}

/// `ioprio_get(which, who)`: the priority it returns, decoded after the
/// number: `= 24583 (IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 7))`.
pub fn ioprio_get_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_who(p, c);
    CallType::Done
}

/// Leave half of ioprio_get.
pub fn ioprio_get_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    put_result(p, c);
    if !failed
        && p.symbols()
        && let Some(text) = ioprio_text(c.result as u64)
    {
        let value = c.result;
        put_extended(p, "ioprio", |p, n| p.symbol(n, value, Some(&text)));
    }
}

/// The first layout of `struct sched_attr` and the one with the
/// utilization clamps, the largest decoded.
const SCHED_ATTR_SIZE_VER0: usize = sizes::SCHED_ATTR_SIZE_VER0 as usize;
const SCHED_ATTR_SIZE_VER1: usize = sizes::SCHED_ATTR_SIZE_VER1 as usize;

/// `struct sched_attr` at `addr`. sched_setattr's (`set`) says its own
/// size in its first field (0 meaning the first layout); sched_getattr's
/// is as large as the call's `size` and the kernel wrote its own size
/// there. Fields past the bytes the size covers are not shown; a size
/// beyond the layouts known ends the struct with `..`. As the kernel
/// (and strace) do, sched_setattr's policy is left out under
/// SCHED_FLAG_KEEP_POLICY and the parameters under SCHED_FLAG_KEEP_PARAMS.
fn put_sched_attr(p: &mut Printer, name: &str, addr: u64, set: bool, size_arg: usize) {
    let declared = if set {
        match read_vec(p, addr, 4).filter(|_| p.config().values_only < 2) {
            Some(b) => match u32_at(&b, 0) as usize {
                0 => SCHED_ATTR_SIZE_VER0,
                n => n,
            },
            None => {
                p.ptr(name, addr);
                return;
            }
        }
    } else {
        size_arg
    };
    let len = declared.min(SCHED_ATTR_SIZE_VER1);
    let Some(b) = open_struct_dyn(p, name, addr, len.max(4)) else {
        return;
    };
    let size = u32_at(&b, 0) as usize;
    p.uint("size", size as u64);
    // What the struct covers: the caller's size for sched_setattr, the
    // kernel's (no more than was read) for sched_getattr.
    let covered = if set { len } else { size.min(len) };
    if covered >= SCHED_ATTR_SIZE_VER0 {
        let policy = u32_at(&b, 4);
        let flags = u64_at(&b, 8);
        let keep = |flag: u64| set && flags & flag != 0;
        if !keep(SCHED_FLAG_KEEP_POLICY | SCHED_FLAG_KEEP_PARAMS) || (policy as i32) < 0 {
            // A policy alone: here SCHED_RESET_ON_FORK is a flag of
            // sched_flags, and an unknown value is hex, as strace shows it.
            match lookup(SCHED_ATTR_POLICIES, policy as i64) {
                Some(name) => p.symbol("sched_policy", policy as i64, Some(name)),
                None => p.hex("sched_policy", policy as u64),
            }
        }
        p.flags("sched_flags", flags, SCHED_ATTR_FLAGS);
        if !keep(SCHED_FLAG_KEEP_PARAMS) {
            p.int("sched_nice", i32_at(&b, 16) as i64);
            p.uint("sched_priority", u32_at(&b, 20) as u64);
            p.uint("sched_runtime", u64_at(&b, 24));
            p.uint("sched_deadline", u64_at(&b, 32));
            p.uint("sched_period", u64_at(&b, 40));
        }
    }
    if covered >= SCHED_ATTR_SIZE_VER1 {
        p.uint("sched_util_min", u32_at(&b, 48) as u64);
        p.uint("sched_util_max", u32_at(&b, 52) as u64);
    }
    let whole = if set { declared } else { size };
    p.close_struct(whole <= covered);
}

/// `sched_setattr(pid, attr, flags)`.
pub fn sched_setattr_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("pid", c.int(0));
    put_sched_attr(p, "attr", c.args[1], true, 0);
    p.hex("flags", c.args[2] as u32 as u64);
    CallType::Done
}

/// Leave half of sched_setattr: the result, and after an E2BIG the size
/// the kernel wrote back into the struct (its own layout's), as strace
/// -v's `=> {size=56}`: `= -1 [E2BIG] {size=56}` (JSON: `returned`).
pub fn sched_setattr_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    default_in(p, c, failed);
    if c.result != -i64::from(libc::E2BIG) || p.config().values_only >= 2 {
        return;
    }
    let Some(b) = read_vec(p, c.args[1], 4) else {
        return;
    };
    let size = u32_at(&b, 0) as u64;
    if p.json() {
        put_extended(p, "attr", |p, n| {
            p.open(n, "{", Naming::Fields);
            p.uint("size", size);
            p.close("}");
        });
    } else {
        p.text(" ", Style::Plain);
        p.open("", "{", Naming::Fields);
        p.uint("size", size);
        p.close("}");
    }
}

/// `sched_getattr(pid, attr, size, flags)`: the struct at leave.
pub fn sched_getattr_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("pid", c.int(0));
    CallType::NotDone
}

/// Leave half of sched_getattr.
pub fn sched_getattr_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    let size = c.args[2] as u32 as usize;
    if failed || size == 0 {
        p.ptr("attr", c.args[1]);
    } else {
        put_sched_attr(p, "attr", c.args[1], false, size);
    }
    p.uint("size", size as u64);
    p.hex("flags", c.args[3] as u32 as u64);
    p.equals();
    p.result(c.result);
}

/// `getcpu(cpu, node, tcache)`: the two numbers at leave.
pub fn getcpu_out(_p: &mut Printer, _c: &mut CallCtx) -> CallType {
    CallType::NotDone
}

/// Leave half of getcpu: `getcpu([1], [0], NULL) = 0` (each `unsigned`
/// the kernel wrote, or the pointer when it failed or was NULL; the
/// unused `tcache` as its address).
pub fn getcpu_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    for (name, addr) in [("cpu", c.args[0]), ("node", c.args[1])] {
        match read_vec(p, addr, 4).filter(|_| !failed && p.config().values_only < 2) {
            Some(b) => {
                p.open(name, "[", Naming::Elements);
                p.uint("", u32_at(&b, 0) as u64);
                p.close("]");
            }
            None => p.ptr(name, addr),
        }
    }
    p.ptr("tcache", c.args[2]);
    put_result(p, c);
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("getcpu", getcpu_out, getcpu_in, Normal),
    h("ioprio_get", ioprio_get_out, ioprio_get_in, Normal),
    h("ioprio_set", ioprio_set_out, default_in, Normal),
    h("sched_getattr", sched_getattr_out, sched_getattr_in, Normal),
    h("sched_setattr", sched_setattr_out, sched_setattr_in, Normal),
];
