//! The loop device's status requests (`<linux/loop.h>`): LOOP_SET_STATUS64
//! and LOOP_GET_STATUS64 (`struct loop_info64`) and LOOP_CONFIGURE
//! (`struct loop_config`, which holds one). Their codes are plain numbers
//! older than the ioctl macros (no size, no direction bits), so only a
//! decoder that knows them can show the struct; `losetup` and udisks issue
//! them on every attach.
//!
//! As strace does, without `-v` the fields a person sets
//! (`{lo_offset=0x1000, lo_number=7, lo_flags=LO_FLAGS_READ_ONLY,
//! lo_file_name="disk.img", ..}`), with `-v` every field. The flag and
//! cipher names are generated (src/abi/xlat/ioctl.rs). The old 32-bit
//! `struct loop_info` requests (LOOP_SET_STATUS, LOOP_GET_STATUS) differ
//! between i386 and x86_64 and are left to the tables' layouts
//! (`fallback`).

use super::raw::{u32_at, u64_at};
use super::{Arg, IF_IN, IF_OUT, IoctlGroup, Layout, Request, field};
use crate::abi::xlat::ioctl::{
    LOOP_CONFIGURE, LOOP_CRYPT, LOOP_FLAGS, LOOP_GET_STATUS64, LOOP_SET_STATUS64,
};
use crate::decode::put_dev;
use crate::format::{Naming, Printer};

/// `LO_NAME_SIZE`: the file and cipher names' arrays.
const NAME_SIZE: usize = 64;
/// `LO_KEY_SIZE`: the key's array.
const KEY_SIZE: usize = 32;

/// `struct loop_info64` (the same on i386: its `__u64`s fall at multiples
/// of 8).
pub static LOOP_INFO64: Layout = Layout {
    name: "loop_info64",
    size: 232,
    fields: &[
        field("lo_device", "__u64", 0, 8),
        field("lo_inode", "__u64", 8, 8),
        field("lo_rdevice", "__u64", 16, 8),
        field("lo_offset", "__u64", 24, 8),
        field("lo_sizelimit", "__u64", 32, 8),
        field("lo_number", "__u32", 40, 4),
        field("lo_encrypt_type", "__u32", 44, 4),
        field("lo_encrypt_key_size", "__u32", 48, 4),
        field("lo_flags", "__u32", 52, 4),
        field("lo_file_name", "__u8[64]", 56, NAME_SIZE),
        field("lo_crypt_name", "__u8[64]", 120, NAME_SIZE),
        field("lo_encrypt_key", "__u8[32]", 184, KEY_SIZE),
        field("lo_init", "__u64[2]", 216, 16),
    ],
};

/// `struct loop_config` (LOOP_CONFIGURE): the backing fd, the block size
/// and a `struct loop_info64`.
pub static LOOP_CONFIG: Layout = Layout {
    name: "loop_config",
    size: 304,
    fields: &[
        field("fd", "__u32", 0, 4),
        field("block_size", "__u32", 4, 4),
        field("info", "struct loop_info64", 8, 232),
        field("__reserved", "__u64[8]", 240, 64),
    ],
};

static REQUESTS: &[Request] = &[
    Request::legacy(
        LOOP_SET_STATUS64,
        "LOOP_SET_STATUS64",
        IF_OUT,
        Arg::Struct(&LOOP_INFO64),
    ),
    Request::legacy(
        LOOP_GET_STATUS64,
        "LOOP_GET_STATUS64",
        IF_IN,
        Arg::Struct(&LOOP_INFO64),
    ),
    Request::legacy(
        LOOP_CONFIGURE,
        "LOOP_CONFIGURE",
        IF_OUT,
        Arg::Struct(&LOOP_CONFIG),
    ),
];

/// The loop device group.
pub struct LoopDev;

/// The one instance the dispatcher uses.
pub static LOOP: LoopDev = LoopDev;

impl IoctlGroup for LoopDev {
    fn name(&self) -> &'static str {
        "loop"
    }

    fn headers(&self) -> &'static [&'static str] {
        &["linux/loop.h"]
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, p: &mut Printer, req: &Request, d: &[u8], _phase: u8) -> bool {
        match req.code {
            LOOP_SET_STATUS64 | LOOP_GET_STATUS64 => put_info64(p, d),
            LOOP_CONFIGURE => {
                p.int("fd", u32_at(d, 0) as i32 as i64);
                p.uint("block_size", u32_at(d, 4) as u64);
                p.open("info", "{", Naming::Fields);
                let all = put_info64(p, &d[8..240]);
                p.close_struct(all);
                p.config().verbose > 0
            }
            _ => false,
        }
    }
}

/// A `struct loop_info64`'s fields; whether all were printed.
fn put_info64(p: &mut Printer, d: &[u8]) -> bool {
    let verbose = p.config().verbose > 0;
    if verbose {
        put_dev(p, "lo_device", u64_at(d, 0));
        p.uint("lo_inode", u64_at(d, 8));
        put_dev(p, "lo_rdevice", u64_at(d, 16));
    }
    p.hex("lo_offset", u64_at(d, 24));
    if verbose {
        p.uint("lo_sizelimit", u64_at(d, 32));
    }
    p.uint("lo_number", u32_at(d, 40) as u64);
    if verbose {
        let cipher = u32_at(d, 44) as u64;
        let name = LOOP_CRYPT
            .iter()
            .find(|(v, _)| *v == cipher)
            .map(|(_, n)| *n);
        p.symbol("lo_encrypt_type", cipher as i64, name);
        p.uint("lo_encrypt_key_size", u32_at(d, 48) as u64);
    }
    p.flags("lo_flags", u32_at(d, 52) as u64, LOOP_FLAGS);
    put_name(p, "lo_file_name", &d[56..56 + NAME_SIZE]);
    if !verbose {
        return false;
    }
    put_name(p, "lo_crypt_name", &d[120..120 + NAME_SIZE]);
    put_name(p, "lo_encrypt_key", &d[184..184 + KEY_SIZE]);
    p.open("lo_init", "[", Naming::Elements);
    p.uint("", u64_at(d, 216));
    p.uint("", u64_at(d, 224));
    p.close("]");
    true
}

/// A name array: up to its NUL (the whole array, cut, if it has none).
fn put_name(p: &mut Printer, name: &str, bytes: &[u8]) {
    match bytes.iter().position(|&b| b == 0) {
        Some(end) => p.string(name, &bytes[..end], false),
        None => p.string(name, bytes, true),
    }
}
