//! BLKPG (`<linux/blkpg.h>`): adding, removing and resizing a partition of
//! a block device. Its code is a plain `_IO(0x12, 105)`, no size and no
//! direction, but the kernel reads a `struct blkpg_ioctl_arg` whose `data`
//! points to a `struct blkpg_partition` (block/ioctl.c blkpg_ioctl(),
//! blkpg_do_ioctl()): both are printed, as strace does:
//!
//! ```text
//! ioctl(3, BLKPG, {op=BLKPG_ADD_PARTITION, flags=0, datalen=152,
//!     data={start=1048576, length=4194304, pno=1, devname="", volname=""}}) = 0
//! ```
//!
//! The partition is printed when it can be read, else its address. The
//! pointer makes the outer struct differ between i386 and x86_64: both
//! layouts, and the op names, are generated from the header
//! (src/abi/xlat/ioctl.rs).

use super::{Arg, IF_OUT, IoctlGroup, Layout, PointedArray, Request};
use crate::abi::layout::{self, Field, extent, offset};
use crate::abi::xlat::ioctl::{
    BLKPG, BLKPG_IOCTL_ARG, BLKPG_IOCTL_ARG_I386, BLKPG_OPS, BLKPG_PARTITION, BLKPG_PARTITION_I386,
};
use crate::format::{Naming, Printer};
use crate::kernel::Arch;

/// `struct blkpg_ioctl_arg` as `--explain-ioctl` names it: the layouts per
/// ABI are generated (`BLKPG_IOCTL_ARG`, `BLKPG_IOCTL_ARG_I386`);
/// x86_64's size.
pub static BLKPG_ARG: Layout = Layout {
    name: "blkpg_ioctl_arg",
    size: 24,
    fields: &[],
};

/// The partition behind `data`, one struct whatever `datalen` says (the
/// kernel copies `sizeof(struct blkpg_partition)`), which the BPF engine
/// copies with the request's argument.
const PARTITION: PointedArray = PointedArray {
    ptr_offset: offset(BLKPG_IOCTL_ARG, "data"),
    ptr_offset_i386: Some(offset(BLKPG_IOCTL_ARG_I386, "data")),
    count_offset: 0,
    count_size: 0,
    count_arg: None,
    unit: extent(BLKPG_PARTITION),
    shown: 1,
    dirs: IF_OUT,
    each: None,
    trailing: None,
    string: None,
};

static REQUESTS: &[Request] =
    &[Request::legacy(BLKPG, "BLKPG", IF_OUT, Arg::Custom(&BLKPG_ARG)).pointing(PARTITION)];

/// The partition request's group.
pub struct Blkpg;

/// The one instance the dispatcher uses.
pub static BLKPG_GROUP: Blkpg = Blkpg;

impl IoctlGroup for Blkpg {
    fn name(&self) -> &'static str {
        "blkpg"
    }

    fn headers(&self) -> &'static [&'static str] {
        &["linux/blkpg.h"]
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, _p: &mut Printer, _req: &Request, _d: &[u8], _phase: u8) -> bool {
        false
    }

    fn custom(&self, p: &mut Printer, _req: &Request, addr: u64, _phase: u8) {
        let (outer, part) = match p.arch() {
            Arch::I386 => (BLKPG_IOCTL_ARG_I386, BLKPG_PARTITION_I386),
            _ => (BLKPG_IOCTL_ARG, BLKPG_PARTITION),
        };
        let Some(d) = read(p, addr, outer) else {
            p.ptr("arg", addr);
            return;
        };
        let val = |name| layout::field(outer, name).read(&d).unwrap_or(0);
        p.open("arg", "{", Naming::Fields);
        let op = val("op") as i32;
        let name = BLKPG_OPS
            .iter()
            .find(|(v, _)| *v as i64 == op as i64)
            .map(|(_, n)| *n);
        p.symbol("op", op as i64, name);
        p.int("flags", val("flags") as i32 as i64);
        p.int("datalen", val("datalen") as i32 as i64);
        let data = val("data");
        match read(p, data, part) {
            Some(d) => put_partition(p, part, &d),
            None => p.ptr("data", data),
        }
        p.close_struct(true);
    }
}

/// The bytes of a struct of `fields` at `addr`, if they can be read.
fn read(p: &mut Printer, addr: u64, fields: &[Field]) -> Option<Vec<u8>> {
    let mut d = vec![0u8; layout::extent(fields)];
    (addr != 0 && p.config().values_only < 2 && p.mem().read_exact(addr, &mut d)).then_some(d)
}

/// `struct blkpg_partition` as `data`.
fn put_partition(p: &mut Printer, fields: &[Field], d: &[u8]) {
    let f = |name| layout::field(fields, name);
    p.open("data", "{", Naming::Fields);
    p.int("start", f("start").read(d).unwrap_or(0) as i64);
    p.int("length", f("length").read(d).unwrap_or(0) as i64);
    p.int("pno", f("pno").read(d).unwrap_or(0) as i32 as i64);
    for name in ["devname", "volname"] {
        let at = f(name);
        put_name(p, name, &d[at.off..at.end()]);
    }
    p.close_struct(true);
}

/// A name array: a C string in it, up to its NUL; with no NUL before its
/// last byte, that much, marked as cut.
fn put_name(p: &mut Printer, name: &str, bytes: &[u8]) {
    let room = &bytes[..bytes.len() - 1];
    match room.iter().position(|&b| b == 0) {
        Some(end) => p.string(name, &room[..end], false),
        None => p.string(name, room, true),
    }
}
