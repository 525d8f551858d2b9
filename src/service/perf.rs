//! perf_event_open(2), as strace 6 shows it: the attr as
//! `ioctl::perf::put_attr` prints it (shared with
//! PERF_EVENT_IOC_MODIFY_ATTRIBUTES), pid and cpu at the `int` the kernel
//! reads, the group fd with `-y`'s path, and the PERF_FLAG_* flags (all of
//! the `unsigned long`). The result is a new fd (`sysent::returns_fd`).
//! On E2BIG the kernel writes the attr size it knows into the attr: it
//! prints after the result, as what the call wrote (`= -1 [E2BIG]
//! {size=136}`; strace: `size=0xa0 => 0x88` inside the attr).

use crate::abi::layout::field;
use crate::abi::xlat::process::{PERF_ATTR_LAYOUT, PERF_FLAGS};
use crate::call::{CallClass::Normal, CallCtx, CallType, Handler, default_in};
use crate::decode::put_fd;
use crate::format::Naming;
use crate::format::Printer;
use crate::ioctl::perf::put_attr;
use crate::output::Style;
use crate::service::h;

/// `perf_event_open(attr, pid, cpu, group_fd, flags)`
pub fn perf_event_open_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_attr(p, "attr_uptr", c.args[0]);
    p.int("pid", c.args[1] as i32 as i64);
    p.int("cpu", c.args[2] as i32 as i64);
    put_fd(p, c.fds, "group_fd", c.args[3] as i32 as i64);
    p.flags("flags", c.args[4], PERF_FLAGS);
    CallType::Done
}

/// The result, and on E2BIG the size the kernel wrote into the attr.
pub fn perf_event_open_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    default_in(p, c, failed);
    if c.result != -(libc::E2BIG as i64) || c.args[0] == 0 {
        return;
    }
    let at = field(PERF_ATTR_LAYOUT, "size");
    let mut raw = [0u8; 4];
    if p.mem()
        .read_exact(c.args[0].wrapping_add(at.off as u64), &mut raw)
    {
        p.text(" ", Style::Plain);
        p.open("attr_uptr", "{", Naming::Fields);
        p.uint("size", u32::from_le_bytes(raw) as u64);
        p.close("}");
    }
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[h(
    "perf_event_open",
    perf_event_open_out,
    perf_event_open_in,
    Normal,
)];
