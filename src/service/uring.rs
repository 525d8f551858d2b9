//! io_uring_setup and io_uring_enter, as strace 6 shows them:
//! `struct io_uring_params` as the caller filled it (flags, the SQ
//! thread's cpu and idle time, the work queue fd under
//! IORING_SETUP_ATTACH_WQ, reserved words when set) and, after the
//! result, what the kernel wrote (the ring sizes, `IORING_FEAT_*`, the
//! rings' offsets); io_uring_enter's flags and its signal mask, or under
//! IORING_ENTER_EXT_ARG its `struct io_uring_getevents_arg`.
//! io_uring_register is `uring_register.rs`. Names and layouts from
//! `abi::xlat::fs` (`<linux/io_uring.h>`).

use crate::abi::layout::{Field, extent, field, offset};
use crate::abi::xlat::fs::{
    IO_CQRING_OFFSETS, IO_SQRING_OFFSETS, IO_URING_GETEVENTS_ARG, IO_URING_PARAMS,
    IORING_ENTER_EXT_ARG, IORING_ENTER_FLAGS, IORING_ENTER_REGISTERED_RING, IORING_FEATURES,
    IORING_SETUP_ATTACH_WQ, IORING_SETUP_FLAGS,
};
use crate::call::{CallClass::Normal, CallCtx, CallType, Handler, default_in};
use crate::decode::put_fd;
use crate::format::{Naming, Printer};
use crate::service::fs::put_result;
use crate::service::h;
use crate::service::raw::{open_returned, open_struct_dyn, read_vec, u32_at};
use crate::service::signal::put_sigset;
use crate::service::time::put_timespec64;
use crate::service::{Indirect, Mem};

/// A reserved array of u32s, shown in hex when one is not zero:
/// `resv=[0, 0x1, 0]`.
pub fn put_resv_words(p: &mut Printer, f: Field, b: &[u8]) {
    let Some(words) = b.get(f.off..f.off + f.size) else {
        return;
    };
    if words.iter().all(|&x| x == 0) {
        return;
    }
    p.open(f.name, "[", Naming::Elements);
    for w in words.chunks_exact(4) {
        p.hex("", u32_at(w, 0) as u64);
    }
    p.close("]");
}

/// `io_uring_setup(entries, params)`: the parameters the caller set;
/// what the kernel wrote follows the result.
pub fn io_uring_setup_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.uint("entries", c.args[0] as u32 as u64);
    let Some(b) = open_struct_dyn(p, "params", c.args[1], extent(IO_URING_PARAMS)) else {
        return CallType::Done;
    };
    let get = |name: &str| field(IO_URING_PARAMS, name).read(&b).unwrap_or(0);
    let flags = get("flags");
    p.flags("flags", flags, IORING_SETUP_FLAGS);
    p.hex("sq_thread_cpu", get("sq_thread_cpu"));
    p.uint("sq_thread_idle", get("sq_thread_idle"));
    if flags & IORING_SETUP_ATTACH_WQ as u64 != 0 {
        put_fd(p, c.fds, "wq_fd", get("wq_fd") as u32 as i32 as i64);
    }
    put_resv_words(p, field(IO_URING_PARAMS, "resv"), &b);
    p.close_struct(true);
    CallType::Done
}

/// The offsets of one ring (`sq_off` or `cq_off`), each field in order,
/// the reserved ones only when set.
fn put_offsets(p: &mut Printer, name: &str, layout: &[Field], b: &[u8]) {
    p.open(name, "{", Naming::Fields);
    for f in layout {
        let v = f.read(b).unwrap_or(0);
        if f.name.starts_with("resv") {
            if v != 0 {
                p.hex(f.name, v);
            }
        } else {
            p.uint(f.name, v);
        }
    }
    p.close("}");
}

/// Leave half of io_uring_setup: `= 4 {sq_entries=2, cq_entries=4,
/// features=..., sq_off={...}, cq_off={...}}`.
pub fn io_uring_setup_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    put_result(p, c);
    if failed || p.config().values_only >= 2 {
        return;
    }
    let Some(b) = read_vec(p, c.args[1], extent(IO_URING_PARAMS)) else {
        return;
    };
    let get = |name: &str| field(IO_URING_PARAMS, name).read(&b).unwrap_or(0);
    open_returned(p);
    p.uint("sq_entries", get("sq_entries"));
    p.uint("cq_entries", get("cq_entries"));
    p.flags("features", get("features"), IORING_FEATURES);
    for (name, layout) in [("sq_off", IO_SQRING_OFFSETS), ("cq_off", IO_CQRING_OFFSETS)] {
        let f = field(IO_URING_PARAMS, name);
        let part = &b[f.off..f.off + f.size];
        put_offsets(p, name, layout, part);
    }
    p.close("}");
}

/// What io_uring_enter's decoder reads through the pointers in its
/// `struct io_uring_getevents_arg` (`service::Indirect`): the signal
/// mask (the kernel takes no other size) and the timeout. (Without
/// IORING_ENTER_EXT_ARG argp is the mask itself: the program's reads
/// through its bits fail or are never looked at.)
pub const IO_URING_ENTER_INDIRECT: &[Indirect] = &[
    Indirect {
        arg: 4,
        offset: offset(IO_URING_GETEVENTS_ARG, "sigmask") as u16,
        mem: Mem::In(crate::service::signal::SIGSET_SIZE),
    },
    Indirect {
        arg: 4,
        offset: offset(IO_URING_GETEVENTS_ARG, "ts") as u16,
        mem: Mem::In(16),
    },
];

/// `io_uring_enter(fd, to_submit, min_complete, flags, argp, argsz)`:
/// under IORING_ENTER_EXT_ARG with the struct's size, argp is a
/// `struct io_uring_getevents_arg`; otherwise a signal mask of argsz
/// bytes. Under IORING_ENTER_REGISTERED_RING fd is an index into the
/// thread's registered rings, not an fd.
pub fn io_uring_enter_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let flags = c.args[3] as u32;
    if flags & IORING_ENTER_REGISTERED_RING != 0 {
        p.uint("fd", c.args[0] as u32 as u64);
    } else {
        put_fd(p, c.fds, "fd", c.int(0));
    }
    p.uint("to_submit", c.args[1] as u32 as u64);
    p.uint("min_complete", c.args[2] as u32 as u64);
    p.flags("flags", flags as u64, IORING_ENTER_FLAGS);
    let (addr, size) = (c.args[4], c.args[5]);
    let ext = extent(IO_URING_GETEVENTS_ARG);
    if flags & IORING_ENTER_EXT_ARG != 0 && size == ext as u64 {
        if let Some(b) = open_struct_dyn(p, "argp", addr, ext) {
            let get = |name: &str| field(IO_URING_GETEVENTS_ARG, name).read(&b).unwrap_or(0);
            let (mask, mask_size) = (get("sigmask"), get("sigmask_sz"));
            put_sigset(p, "sigmask", mask, mask_size);
            p.uint("sigmask_sz", mask_size);
            if get("pad") != 0 {
                p.hex("pad", get("pad"));
            }
            put_timespec64(p, "ts", get("ts"));
            p.close_struct(true);
        }
    } else {
        put_sigset(p, "argp", addr, size);
    }
    p.uint("argsz", size);
    CallType::Done
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("io_uring_enter", io_uring_enter_out, default_in, Normal),
    h(
        "io_uring_setup",
        io_uring_setup_out,
        io_uring_setup_in,
        Normal,
    ),
];
