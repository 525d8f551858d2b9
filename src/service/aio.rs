//! The Linux AIO calls, as strace 6 shows them: io_setup's context at
//! leave (`[0x7f..]`), io_submit's `struct iocb`s (the fields each
//! command reads: a write's bytes, a vectored read's ranges, a poll's
//! events), io_getevents' and io_pgetevents' `struct io_event`s at leave
//! with their timeout and `struct __aio_sigset`, io_cancel's iocb and
//! event. Names and layouts from `abi::xlat::fs` (`<linux/aio_abi.h>`).

use crate::abi::layout::{extent, field};
use crate::abi::xlat::fs::{
    IO_EVENT, IOCB, IOCB_CMD_POLL, IOCB_CMD_PREAD, IOCB_CMD_PREADV, IOCB_CMD_PWRITE,
    IOCB_CMD_PWRITEV, IOCB_CMDS, IOCB_FLAG_IOPRIO, IOCB_FLAG_RESFD, IOCB_FLAGS, RWF_FLAGS,
};
use crate::abi::xlat::poll::POLL_EVENTS;
use crate::call::{CallClass::Normal, CallCtx, CallType, Handler, default_in};
use crate::decode::put_fd;
use crate::fdtable::FdTable;
use crate::format::{Naming, Printer};
use crate::kernel::Arch;
use crate::service::fs::{put_iovecs, put_result};
use crate::service::h;
use crate::service::raw::{
    array_limit, lookup, open_struct_dyn, put_array, put_remote_iovecs, read_vec, uint_at,
    word_size,
};
use crate::service::sched::ioprio_text;
use crate::service::signal::put_sigset;
use crate::service::time::put_call_timespec;
use crate::service::{Indirect, Mem};

/// A `long` parameter as the kernel reads it: 64 bits on x86_64, the low
/// 32 (signed) from an i386 caller.
fn long_arg(c: &CallCtx, i: usize) -> i64 {
    if c.arch == Arch::X86_64 {
        c.args[i] as i64
    } else {
        c.args[i] as i32 as i64
    }
}

/// `io_setup(nr_events, ctxp)`: the context the kernel wrote, at leave.
pub fn io_setup_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.uint("nr_events", c.args[0] as u32 as u64);
    CallType::NotDone
}

/// Leave half of io_setup: `[0x7f..]`, the context's handle (an address
/// in the caller's memory, which the program passes back as a number).
pub fn io_setup_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    let addr = c.args[1];
    let arch = p.arch();
    let ctx = if failed {
        None
    } else {
        p.mem().read_word(addr, arch)
    };
    match ctx {
        Some(ctx) if addr != 0 && p.config().values_only < 2 => {
            p.open("ctxp", "[", Naming::Elements);
            p.hex("", ctx);
            p.close("]");
        }
        _ => p.ptr("ctxp", addr),
    }
    put_result(p, c);
}

/// Where a command's fields after the fd come from (strace's grouping).
enum Sub {
    /// No fields past the fd (fsync, fdsync, noop, unknown commands).
    None,
    /// pread/pwrite: one buffer, its length and the offset.
    Common,
    /// preadv/pwritev: an iovec array and the offset.
    Vector,
    /// poll: the events wanted.
    Poll,
}

/// The command's name and which fields it reads.
fn sub_of(cmd: u64) -> Sub {
    match cmd as u32 {
        IOCB_CMD_PREAD | IOCB_CMD_PWRITE => Sub::Common,
        IOCB_CMD_PREADV | IOCB_CMD_PWRITEV => Sub::Vector,
        IOCB_CMD_POLL => Sub::Poll,
        _ => Sub::None,
    }
}

/// The fields every iocb shows: data, key and rw_flags when set, the
/// command, the priority (as `IOPRIO_PRIO_VALUE` under IOCB_FLAG_IOPRIO),
/// the fd.
fn put_iocb_header(p: &mut Printer, fds: &FdTable, b: &[u8]) -> u64 {
    let get = |name: &str| field(IOCB, name).read(b).unwrap_or(0);
    p.hex("aio_data", get("aio_data"));
    if get("aio_key") != 0 {
        p.uint("aio_key", get("aio_key"));
    }
    if get("aio_rw_flags") != 0 {
        p.flags("aio_rw_flags", get("aio_rw_flags"), RWF_FLAGS);
    }
    let cmd = get("aio_lio_opcode");
    p.symbol_decimal("aio_lio_opcode", cmd as i64, lookup(IOCB_CMDS, cmd as i64));
    // `__s16`: the priority's 16 bits.
    let prio = get("aio_reqprio") as u16 as u64;
    if get("aio_flags") & IOCB_FLAG_IOPRIO as u64 != 0 {
        let text = ioprio_text(prio);
        p.symbol("aio_reqprio", prio as i64, text.as_deref());
    } else if prio != 0 {
        p.int("aio_reqprio", prio as i16 as i64);
    }
    put_fd(p, fds, "aio_fildes", get("aio_fildes") as u32 as i32 as i64);
    cmd
}

/// aio_flags and aio_resfd: the flags when set, the eventfd under
/// IOCB_FLAG_RESFD, else a stray resfd in hex.
fn put_common_flags(p: &mut Printer, fds: &FdTable, b: &[u8]) {
    let get = |name: &str| field(IOCB, name).read(b).unwrap_or(0);
    let flags = get("aio_flags");
    if flags != 0 {
        p.flags("aio_flags", flags, IOCB_FLAGS);
    }
    let resfd = get("aio_resfd");
    if flags & IOCB_FLAG_RESFD as u64 != 0 {
        put_fd(p, fds, "aio_resfd", resfd as u32 as i32 as i64);
    } else if resfd != 0 {
        p.hex("aio_resfd", resfd);
    }
}

/// A whole `struct iocb`: the header and what the command reads.
fn put_iocb(p: &mut Printer, fds: &FdTable, b: &[u8]) {
    let get = |name: &str| field(IOCB, name).read(b).unwrap_or(0);
    let cmd = put_iocb_header(p, fds, b);
    let (buf, nbytes) = (get("aio_buf"), get("aio_nbytes"));
    // What the kernel takes for a buffer and a length: both fit the
    // caller's words and the length is not negative.
    let valid = if p.arch() == Arch::X86_64 {
        (nbytes as i64) >= 0
    } else {
        buf >> 32 == 0 && nbytes >> 31 == 0
    };
    match sub_of(cmd) {
        Sub::Common => {
            if cmd as u32 == IOCB_CMD_PWRITE && valid {
                p.buf("aio_buf", buf, nbytes);
            } else {
                p.ptr("aio_buf", buf);
            }
            p.uint("aio_nbytes", nbytes);
            p.int("aio_offset", get("aio_offset") as i64);
            put_common_flags(p, fds, b);
        }
        Sub::Vector => {
            if !valid {
                p.ptr("aio_buf", buf);
                p.uint("aio_nbytes", nbytes);
            } else if cmd as u32 == IOCB_CMD_PWRITEV {
                put_iovecs(p, "aio_buf", buf, nbytes, None);
            } else {
                // A read's buffers are not filled yet: where they are.
                put_remote_iovecs(p, "aio_buf", buf, nbytes);
            }
            p.int("aio_offset", get("aio_offset") as i64);
            put_common_flags(p, fds, b);
        }
        Sub::Poll => {
            p.flags("aio_buf", buf, POLL_EVENTS);
            put_common_flags(p, fds, b);
        }
        Sub::None => {}
    }
}

/// An iocb at `addr`, or its address when it cannot be read.
fn put_iocb_at(p: &mut Printer, fds: &FdTable, name: &str, addr: u64, whole: bool) {
    let Some(b) = open_struct_dyn(p, name, addr, extent(IOCB)) else {
        return;
    };
    if whole {
        put_iocb(p, fds, &b);
    } else {
        put_iocb_header(p, fds, &b);
    }
    p.close_struct(true);
}

/// `io_submit(ctx_id, nr, iocbpp)`: each iocb the array points to.
pub fn io_submit_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.hex("ctx_id", c.args[0]);
    let nr = long_arg(c, 1);
    p.int("nr", nr);
    let addr = c.args[2];
    if nr < 0 {
        p.ptr("iocbpp", addr);
        return CallType::Done;
    }
    let word = word_size(p.arch());
    let limit = array_limit(p);
    put_array(p, "iocbpp", addr, (nr as u64, word, limit), |p, elem| {
        put_iocb_at(p, c.fds, "", uint_at(elem, 0, word), true);
    });
    CallType::Done
}

/// One `struct io_event`: `{data=0x.., obj=0x.., res=4096, res2=0}`.
fn put_event(p: &mut Printer, name: &str, b: &[u8]) {
    let get = |name: &str| field(IO_EVENT, name).read(b).unwrap_or(0);
    p.open(name, "{", Naming::Fields);
    p.hex("data", get("data"));
    p.hex("obj", get("obj"));
    p.int("res", get("res") as i64);
    p.int("res2", get("res2") as i64);
    p.close("}");
}

/// `io_getevents(ctx_id, min_nr, nr, events, timeout)` and
/// io_pgetevents: the events and the rest at leave.
pub fn io_getevents_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.hex("ctx_id", c.args[0]);
    p.int("min_nr", long_arg(c, 1));
    p.int("nr", long_arg(c, 2));
    CallType::NotDone
}

/// The events the call returned (as many as its result), its pointer if
/// it failed; the timeout, which the kernel read whether or not it failed.
fn put_events_and_timeout(p: &mut Printer, c: &CallCtx, failed: bool) {
    let addr = c.args[3];
    if failed {
        p.ptr("events", addr);
    } else {
        let size = extent(IO_EVENT);
        let limit = array_limit(p);
        put_array(p, "events", addr, (c.result as u64, size, limit), |p, e| {
            put_event(p, "", e)
        });
    }
    put_call_timespec(p, c, "timeout", c.args[4]);
}

/// Leave half of io_getevents.
pub fn io_getevents_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    put_events_and_timeout(p, c, failed);
    put_result(p, c);
}

/// What io_pgetevents' decoder reads through the pointer its
/// `struct __aio_sigset` starts with (`service::Indirect`): the mask.
pub const IO_PGETEVENTS_INDIRECT: &[Indirect] = &[Indirect {
    arg: 5,
    offset: 0,
    mem: Mem::In(crate::service::signal::SIGSET_SIZE),
}];

/// Leave half of io_pgetevents: besides io_getevents', the
/// `struct __aio_sigset` (`{sigmask=[USR1], sigsetsize=8}`).
pub fn io_pgetevents_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    put_events_and_timeout(p, c, failed);
    let word = word_size(p.arch());
    let addr = c.args[5];
    match read_vec(p, addr, 2 * word) {
        Some(b) if p.config().values_only < 2 => {
            let (mask, size) = (uint_at(&b, 0, word), uint_at(&b, word, word));
            p.open("usig", "{", Naming::Fields);
            put_sigset(p, "sigmask", mask, size);
            p.uint("sigsetsize", size);
            p.close("}");
        }
        _ => p.ptr("usig", addr),
    }
    put_result(p, c);
}

/// `io_cancel(ctx_id, iocb, result)`: the iocb's header, the event at leave.
pub fn io_cancel_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.hex("ctx_id", c.args[0]);
    put_iocb_at(p, c.fds, "iocb", c.args[1], false);
    CallType::NotDone
}

/// Leave half of io_cancel.
pub fn io_cancel_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    let addr = c.args[2];
    match read_vec(p, addr, extent(IO_EVENT)) {
        Some(b) if !failed && p.config().values_only < 2 => {
            put_event(p, "result", &b);
        }
        _ => p.ptr("result", addr),
    }
    put_result(p, c);
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("io_cancel", io_cancel_out, io_cancel_in, Normal),
    h("io_getevents", io_getevents_out, io_getevents_in, Normal),
    h("io_pgetevents", io_getevents_out, io_pgetevents_in, Normal),
    h(
        "io_pgetevents_time64",
        io_getevents_out,
        io_pgetevents_in,
        Normal,
    ),
    h("io_setup", io_setup_out, io_setup_in, Normal),
    h("io_submit", io_submit_out, default_in, Normal),
];
