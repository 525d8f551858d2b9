//! Generic file ioctls that work on any fd (`<asm-generic/ioctls.h>`):
//! FIONBIO, FIOASYNC, FIOCLEX, FIONCLEX, FIONREAD and friends; the VFS's
//! extent sharing (`<linux/fs.h>`): FICLONE, FICLONERANGE, FIDEDUPERANGE,
//! which cp and other copiers issue on any file; and its extent map
//! (`<linux/fiemap.h>`): FS_IOC_FIEMAP, which cp and filefrag ask.
//!
//! FS_IOC_FIEMAP shows what the program asks (`{fm_start=0,
//! fm_length=18446744073709551615, fm_flags=FIEMAP_FLAG_SYNC,
//! fm_extent_count=32}`) and what the kernel answers (`{fm_flags=..,
//! fm_mapped_extents=1, fm_extents=[{fe_logical=0, fe_physical=..,
//! fe_length=4096, fe_flags=FIEMAP_EXTENT_LAST}]}`, up to `-s` extents),
//! with the flag names generated from the header (src/abi/xlat/ioctl.rs).

use super::raw::{i64_at, u16_at, u32_at, u64_at};
use super::{Arg, FlexArray, IF_IN, IF_OUT, IoctlGroup, Layout, Request, field};
use crate::abi::xlat::ioctl::{
    FICLONE, FICLONERANGE, FIDEDUPERANGE, FIEMAP_EXTENT_FLAGS, FIEMAP_FLAGS, FIOASYNC, FIOCLEX,
    FIONBIO, FIONCLEX, FIONREAD, FIOQSIZE, FS_IOC_FIEMAP,
};
use crate::format::{Naming, Printer};

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

/// `struct fiemap` with its trailing `fm_extents[fm_extent_count]`.
pub static FIEMAP: Layout = Layout {
    name: "fiemap",
    size: 32,
    fields: &[
        field("fm_start", "__u64", 0, 8),
        field("fm_length", "__u64", 8, 8),
        field("fm_flags", "__u32", 16, 4),
        field("fm_mapped_extents", "__u32", 20, 4),
        field("fm_extent_count", "__u32", 24, 4),
        field("fm_reserved", "__u32", 28, 4),
        field("fm_extents", "struct fiemap_extent[]", 32, 0),
    ],
};

/// The size of `struct fiemap_extent`, which follows `struct fiemap`.
const EXTENT_SIZE: usize = 56;

/// The extents after `struct fiemap`: as many as `fm_mapped_extents`
/// says, read at the leave.
const EXTENTS: FlexArray = FlexArray {
    count_offset: 20,
    count_size: 4,
    elem: EXTENT_SIZE,
    dirs: IF_IN,
};

static REQUESTS: &[Request] = &[
    Request::legacy(FIONBIO, "FIONBIO", IF_OUT, Arg::Int),
    Request::legacy(FIOASYNC, "FIOASYNC", IF_OUT, Arg::Int),
    Request::legacy(FIOCLEX, "FIOCLEX", 0, Arg::None),
    Request::legacy(FIONCLEX, "FIONCLEX", 0, Arg::None),
    Request::legacy(FIONREAD, "FIONREAD", IF_IN, Arg::Int),
    Request::legacy(FIOQSIZE, "FIOQSIZE", 0, Arg::Ptr),
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
    Request::new(
        FS_IOC_FIEMAP,
        "FS_IOC_FIEMAP",
        IF_OUT | IF_IN,
        Arg::Custom(&FIEMAP),
    )
    .counted(EXTENTS),
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

    fn custom(&self, p: &mut Printer, _req: &Request, addr: u64, phase: u8) {
        put_fiemap(p, addr, phase);
    }
}

/// FS_IOC_FIEMAP's argument: the request before the call, the answer and
/// its extents after.
fn put_fiemap(p: &mut Printer, addr: u64, phase: u8) {
    let Some(d) = p.open_struct::<32>("arg", addr) else {
        return;
    };
    if phase == IF_OUT {
        p.uint("fm_start", u64_at(&d, 0));
        p.uint("fm_length", u64_at(&d, 8));
        p.flags("fm_flags", u32_at(&d, 16) as u64, FIEMAP_FLAGS);
        p.uint("fm_extent_count", u32_at(&d, 24) as u64);
        p.close_struct(true);
        return;
    }
    p.flags("fm_flags", u32_at(&d, 16) as u64, FIEMAP_FLAGS);
    let mapped = u32_at(&d, EXTENTS.count_offset);
    let room = u32_at(&d, 24);
    p.uint("fm_mapped_extents", mapped as u64);
    // With no room the kernel only counts the extents.
    let mut all = true;
    let first = addr + 32;
    let mut probe = [0u8; EXTENT_SIZE];
    if room > 0 && mapped > 0 && !p.mem().read_exact(first, &mut probe) {
        // Not one extent can be read: where they would be, as strace shows it.
        p.ptr("fm_extents", first);
    } else if room > 0 {
        let count = mapped.min(room) as usize;
        let shown = count.min(p.config().string_limit);
        p.open("fm_extents", "[", Naming::Elements);
        for i in 0..shown {
            let mut e = [0u8; EXTENT_SIZE];
            if !p
                .mem()
                .read_exact(addr + 32 + (i * EXTENT_SIZE) as u64, &mut e)
            {
                all = false;
                break;
            }
            p.open("", "{", Naming::Fields);
            p.uint("fe_logical", u64_at(&e, 0));
            p.uint("fe_physical", u64_at(&e, 8));
            p.uint("fe_length", u64_at(&e, 16));
            p.flags("fe_flags", u32_at(&e, 40) as u64, FIEMAP_EXTENT_FLAGS);
            p.close_struct(true);
        }
        if !all || shown < count {
            p.more();
        }
        p.close("]");
    }
    p.close_struct(true);
}
