//! POSIX message queues: mq_open's flags, mode and `struct mq_attr`, the
//! messages mq_timedsend and mq_timedreceive carry, mq_notify's
//! `struct sigevent` and mq_getsetattr's attributes, as strace shows them.

use crate::abi::layout::{Field, extent};
use crate::abi::xlat::fs::OPEN_FLAGS;
use crate::abi::xlat::ipc::{MQ_ATTR, MQ_ATTR_I386, MQ_FLAGS};
use crate::call::{CallClass::Normal, Handler, default_in};
use crate::call::{CallCtx, CallType};
use crate::decode::put_fd;
use crate::format::{Naming, Printer};
use crate::kernel::Arch;
use crate::service::h;
use crate::service::raw::{put_ptr_with, read_vec};
use crate::service::time::{put_call_timespec, put_sigevent};

/// O_CREAT's bit, from the open flags' table.
fn o_creat() -> u64 {
    OPEN_FLAGS
        .iter()
        .find(|f| f.name == "O_CREAT")
        .map_or(0, |f| f.value)
}

/// A `struct mq_attr` at `addr`: mq_flags as O_NONBLOCK when `flags`
/// (mq_getsetattr, where the kernel reads only that flag), else in hex
/// (mq_open, which ignores it); the rest as signed numbers.
fn put_mq_attr(p: &mut Printer, name: &str, addr: u64, flags: bool) {
    let layout: &[Field] = if p.arch() == Arch::I386 {
        MQ_ATTR_I386
    } else {
        MQ_ATTR
    };
    if addr == 0 || p.config().values_only >= 2 {
        p.ptr(name, addr);
        return;
    }
    let Some(b) = read_vec(p, addr, extent(layout)) else {
        p.ptr(name, addr);
        return;
    };
    p.open(name, "{", Naming::Fields);
    for f in layout {
        let v = f.read(&b).unwrap_or(0);
        match f.name {
            "mq_flags" if flags => p.flags(f.name, v, MQ_FLAGS),
            // `%#x`: 0 is `0`.
            "mq_flags" if v == 0 => p.uint(f.name, 0),
            "mq_flags" => p.hex(f.name, v),
            _ => p.int(f.name, v as i64),
        }
    }
    p.close("}");
}

/// `mq_open(name, oflag, mode, attr)`: mode and attr only with O_CREAT,
/// which is when they mean something (the kernel copies a non-NULL attr
/// always, but uses it only to create the queue), as strace shows them.
pub fn mq_open_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.path("u_name", c.args[0]);
    let flags = c.args[1] & 0xffff_ffff;
    p.flags("oflag", flags, OPEN_FLAGS);
    if flags & o_creat() != 0 {
        // umode_t: the kernel reads 16 bits.
        p.mode("mode", c.args[2] & 0xffff);
        put_mq_attr(p, "u_attr", c.args[3], false);
    }
    CallType::Done
}

/// `mq_timedsend(mqdes, msg_ptr, msg_len, msg_prio, abs_timeout)`
pub fn mq_timedsend_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "mqdes", c.int(0));
    p.buf("u_msg_ptr", c.args[1], c.args[2]);
    p.uint("msg_len", c.args[2]);
    p.uint("msg_prio", c.args[3] & 0xffff_ffff);
    put_call_timespec(p, c, "u_abs_timeout", c.args[4]);
    CallType::Done
}

/// `mq_timedreceive(mqdes, msg_ptr, msg_len, msg_prio, abs_timeout)`: the
/// message and its priority at leave.
pub fn mq_timedreceive_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "mqdes", c.int(0));
    CallType::NotDone
}

/// Leave half of mq_timedreceive: the message as long as the result.
pub fn mq_timedreceive_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if failed {
        p.ptr("u_msg_ptr", c.args[1]);
    } else {
        p.buf("u_msg_ptr", c.args[1], c.result as u64);
    }
    p.uint("msg_len", c.args[2]);
    if failed {
        p.ptr("u_msg_prio", c.args[3]);
    } else {
        put_ptr_with(p, "u_msg_prio", c.args[3], |p, v| {
            p.uint("", v as u32 as u64)
        });
    }
    // Read at entry by the kernel, so shown whether the call failed.
    put_call_timespec(p, c, "u_abs_timeout", c.args[4]);
    p.equals();
    p.result(c.result);
}

/// `mq_notify(mqdes, sevp)`
pub fn mq_notify_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "mqdes", c.int(0));
    put_sigevent(p, "u_notification", c.args[1]);
    CallType::Done
}

/// `mq_getsetattr(mqdes, newattr, oldattr)`: the old attributes at leave.
pub fn mq_getsetattr_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "mqdes", c.int(0));
    put_mq_attr(p, "u_mqstat", c.args[1], true);
    CallType::NotDone
}

/// Leave half of mq_getsetattr.
pub fn mq_getsetattr_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if failed {
        p.ptr("u_omqstat", c.args[2]);
    } else {
        put_mq_attr(p, "u_omqstat", c.args[2], true);
    }
    p.equals();
    p.result(c.result);
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("mq_open", mq_open_out, default_in, Normal),
    h("mq_timedsend", mq_timedsend_out, default_in, Normal),
    h("mq_timedsend_time64", mq_timedsend_out, default_in, Normal),
    h(
        "mq_timedreceive",
        mq_timedreceive_out,
        mq_timedreceive_in,
        Normal,
    ),
    h(
        "mq_timedreceive_time64",
        mq_timedreceive_out,
        mq_timedreceive_in,
        Normal,
    ),
    h("mq_notify", mq_notify_out, default_in, Normal),
    h("mq_getsetattr", mq_getsetattr_out, mq_getsetattr_in, Normal),
];
