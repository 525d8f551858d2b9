//! ioctl dispatch: request names, argument decoding by group tables.
//!
//! Each group (one file per group, added by later work: usbmon, tty,
//! usbdevfs, user_events) answers `name(req)` and decodes its argument before
//! (IF_OUT) and/or after (IF_IN) the call. Until a group claims a request,
//! the request prints decoded from its `_IOC` bits so a person can read it:
//! `_IOWR(0x92, 0x7, 16)`, `_IO('T', 0x1)`; `-V` prints the raw number.

use crate::call::{CallCtx, CallType};
use crate::format::Printer;

/// `_IOC_NONE`, `_IOC_WRITE`, `_IOC_READ` direction bits (x86).
const IOC_WRITE: u64 = 1;
const IOC_READ: u64 = 2;

/// The fields of an ioctl request code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IocFields {
    /// `_IOC_DIR`: 0 none, 1 write, 2 read, 3 both.
    pub dir: u64,
    /// `_IOC_TYPE`: the group's magic.
    pub kind: u64,
    /// `_IOC_NR`: the request number in its group.
    pub nr: u64,
    /// `_IOC_SIZE`: the argument size.
    pub size: u64,
}

/// Split a request code into its `_IOC` fields.
pub fn ioc_fields(req: u64) -> IocFields {
    IocFields {
        dir: (req >> 30) & 3,
        kind: (req >> 8) & 0xff,
        nr: req & 0xff,
        size: (req >> 16) & 0x3fff,
    }
}

/// The readable form of a request no group names: `_IOWR(0x92, 0x7, 16)`.
pub fn request_text(req: u64) -> String {
    if req > u32::MAX as u64 {
        return format!("0x{req:x}");
    }
    let f = ioc_fields(req);
    let kind = if f.kind < 0x80 && (f.kind as u8).is_ascii_graphic() && f.kind != b'\'' as u64 {
        format!("'{}'", f.kind as u8 as char)
    } else {
        format!("0x{:x}", f.kind)
    };
    match (f.dir, f.size) {
        (0, 0) => format!("_IO({kind}, 0x{:x})", f.nr),
        (0, size) => format!("_IOC(_IOC_NONE, {kind}, 0x{:x}, {size})", f.nr),
        (IOC_WRITE, size) => format!("_IOW({kind}, 0x{:x}, {size})", f.nr),
        (IOC_READ, size) => format!("_IOR({kind}, 0x{:x}, {size})", f.nr),
        (_, size) => format!("_IOWR({kind}, 0x{:x}, {size})", f.nr),
    }
}

/// `ioctl(fd, request, arg)`
pub fn ioctl_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("fd", c.int(0));
    let req = c.args[1] & 0xffff_ffff;
    if p.symbols() {
        p.field("request", &request_text(req));
    } else {
        p.hex("request", req);
    }
    if ioc_fields(req).dir == 0 {
        p.hex("arg", c.args[2]);
    } else {
        p.ptr("arg", c.args[2]);
    }
    CallType::Done
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_requests_are_readable() {
        assert_eq!(request_text(0xC010_9207), "_IOWR(0x92, 0x7, 16)");
        assert_eq!(request_text(0x0000_5401), "_IO('T', 0x1)");
        assert_eq!(request_text(0x8008_9203), "_IOR(0x92, 0x3, 8)");
        assert_eq!(request_text(0x4018_920A), "_IOW(0x92, 0xa, 24)");
        assert_eq!(request_text(0x0008_2A00), "_IOC(_IOC_NONE, '*', 0x0, 8)");
    }
}
