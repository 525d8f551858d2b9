//! fanotify: fanotify_init's class and flags, fanotify_mark's flags,
//! event mask and directory.

use crate::abi::xlat::fs::{
    FAN_ALL_CLASS_BITS, FAN_CLASSES, FAN_EVENTS, FAN_INIT_FLAGS, FAN_MARK_FLAGS, FAN_NOFD,
    OPEN_FLAGS,
};
use crate::call::{CallClass::Normal, CallCtx, CallType, Handler, default_in};
use crate::decode::put_fd;
use crate::format::Printer;
use crate::kernel::Arch;
use crate::service::fs::{name_of, put_at_dirfd};
use crate::service::h;

/// `fanotify_init(flags, event_f_flags)`: the class first, always (it is
/// a field: `FAN_CLASS_NOTIF` is zero), then the flags; the events' file
/// flags by the `O_*` names.
pub fn fanotify_init_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let flags = c.args[0] & 0xffff_ffff;
    let mask = FAN_ALL_CLASS_BITS as u64;
    let class = flags & mask;
    let field = match name_of(class, FAN_CLASSES) {
        Some(name) => name.to_string(),
        None => format!("{class:#x}"),
    };
    p.flags_with_field("flags", (flags, mask), FAN_INIT_FLAGS, &field, true);
    p.flags("event_f_flags", c.args[1] & 0xffff_ffff, OPEN_FLAGS);
    CallType::Done
}

/// `fanotify_mark(fanotify_fd, flags, mask, dirfd, pathname)`: the mask is
/// 64 bits (two registers on i386); a dirfd of `FAN_NOFD` is named.
pub fn fanotify_mark_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fanotify_fd", c.int(0));
    p.flags("flags", c.args[1] & 0xffff_ffff, FAN_MARK_FLAGS);
    let (mask, rest) = match c.arch {
        Arch::I386 => ((c.args[2] & 0xffff_ffff) | (c.args[3] << 32), 4),
        _ => (c.args[2], 3),
    };
    p.flags("mask", mask, FAN_EVENTS);
    let dirfd = c.args[rest] as i32 as i64;
    if dirfd == FAN_NOFD as i32 as i64 {
        p.symbol_decimal("dfd", dirfd, Some("FAN_NOFD"));
    } else {
        put_at_dirfd(p, c.fds, "dfd", dirfd);
    }
    p.path("pathname", c.args[rest + 1]);
    CallType::Done
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("fanotify_init", fanotify_init_out, default_in, Normal),
    h("fanotify_mark", fanotify_mark_out, default_in, Normal),
];
