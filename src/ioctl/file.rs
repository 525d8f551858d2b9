//! Generic file ioctls that work on any fd (`<asm-generic/ioctls.h>`):
//! FIONBIO, FIOASYNC, FIOCLEX, FIONCLEX, FIONREAD and friends; and the
//! VFS's extent sharing (`<linux/fs.h>`): FICLONE, FICLONERANGE,
//! FIDEDUPERANGE, which cp and other copiers issue on any file.

use super::raw::{i64_at, u16_at, u64_at};
use super::{Arg, IF_IN, IF_OUT, IoctlGroup, Layout, Request, field};
use crate::format::Printer;

/// `struct file_clone_range` (FICLONERANGE).
pub static FILE_CLONE_RANGE: Layout = Layout {
    name: "file_clone_range",
    size: 32,
    fields: &[
        field("src_fd", "__s64", 0, 8),
        field("src_offset", "__u64", 8, 8),
        field("src_length", "__u64", 16, 8),
        field("dest_offset", "__u64", 24, 8),
    ],
};

/// `struct file_dedupe_range` (FIDEDUPERANGE) without its trailing
/// `info[dest_count]` array of `struct file_dedupe_range_info`, which is
/// not decoded (`..`). Its size is what `_IOC_SIZE` says.
pub static FILE_DEDUPE_RANGE: Layout = Layout {
    name: "file_dedupe_range",
    size: 24,
    fields: &[
        field("src_offset", "__u64", 0, 8),
        field("src_length", "__u64", 8, 8),
        field("dest_count", "__u16", 16, 2),
        field("reserved1", "__u16", 18, 2),
        field("reserved2", "__u32", 20, 4),
    ],
};

const FICLONE: u32 = 0x4004_9409;
const FICLONERANGE: u32 = 0x4020_940d;
const FIDEDUPERANGE: u32 = 0xc018_9436;

static REQUESTS: &[Request] = &[
    Request::legacy(0x5421, "FIONBIO", IF_OUT, Arg::Int),
    Request::legacy(0x5452, "FIOASYNC", IF_OUT, Arg::Int),
    Request::legacy(0x5451, "FIOCLEX", 0, Arg::None),
    Request::legacy(0x5450, "FIONCLEX", 0, Arg::None),
    Request::legacy(0x541B, "FIONREAD", IF_IN, Arg::Int),
    Request::legacy(0x5460, "FIOQSIZE", 0, Arg::Ptr),
    // _IOW(0x94, 9, int), but the source fd travels by value.
    Request::legacy(FICLONE, "FICLONE", 0, Arg::Fd),
    Request::new(
        FICLONERANGE,
        "FICLONERANGE",
        IF_OUT,
        Arg::Struct(&FILE_CLONE_RANGE),
    ),
    Request::new(
        FIDEDUPERANGE,
        "FIDEDUPERANGE",
        IF_OUT,
        Arg::Struct(&FILE_DEDUPE_RANGE),
    ),
];

/// The generic file group.
pub struct File;

/// The one instance the dispatcher uses.
pub static FILE: File = File;

impl IoctlGroup for File {
    fn name(&self) -> &'static str {
        "file"
    }

    fn headers(&self) -> &'static [&'static str] {
        &["asm-generic/ioctls.h", "linux/fs.h"]
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, p: &mut Printer, req: &Request, d: &[u8], _phase: u8) -> bool {
        match req.code {
            FICLONERANGE => {
                p.int("src_fd", i64_at(d, 0));
                p.uint("src_offset", u64_at(d, 8));
                p.uint("src_length", u64_at(d, 16));
                p.uint("dest_offset", u64_at(d, 24));
                true
            }
            FIDEDUPERANGE => {
                p.uint("src_offset", u64_at(d, 0));
                p.uint("src_length", u64_at(d, 8));
                p.uint("dest_count", u16_at(d, 16) as u64);
                // The destinations follow the header; not decoded.
                false
            }
            _ => false,
        }
    }
}
