//! The loop device's status requests (`<linux/loop.h>`): LOOP_SET_STATUS64
//! and LOOP_GET_STATUS64 (`struct loop_info64`) and LOOP_CONFIGURE
//! (`struct loop_config`, which holds one). Their codes are plain numbers
//! older than the ioctl macros (no size, no direction bits), so only a
//! decoder that knows them can show the struct; `losetup` and udisks issue
//! them on every attach.
//!
//! As strace does, without `-v` the fields a person sets
//! (`{lo_offset=0x1000, lo_number=7, lo_flags=LO_FLAGS_READ_ONLY,
//! lo_file_name="disk.img", ..}`), the cipher's fields too when one is
//! set (`lo_encrypt_type`, the key as its `lo_encrypt_key_size` bytes),
//! with `-v` every field; LOOP_CONFIGURE's `__reserved` words when any is
//! set. The flag and cipher names are generated (src/abi/xlat/ioctl.rs).
//! The old LOOP_SET_STATUS and LOOP_GET_STATUS's `struct loop_info` has
//! `long`s and `dev_t`s whose sizes differ between i386 and x86_64: its
//! layout per ABI is generated from the header too (`LOOP_INFO`,
//! `LOOP_INFO_I386`), and the group reads it itself ([`Arg::Custom`]).

use super::raw::{u32_at, u64_at};
use super::{Arg, IF_IN, IF_OUT, IoctlGroup, Layout, Request, field};
use crate::abi::layout::{self, Field};
use crate::abi::xlat::ioctl::{
    LOOP_CONFIGURE, LOOP_CRYPT, LOOP_FLAGS, LOOP_GET_STATUS, LOOP_GET_STATUS64, LOOP_INFO,
    LOOP_INFO_I386, LOOP_SET_STATUS, LOOP_SET_STATUS64,
};
use crate::decode::put_dev;
use crate::format::{Naming, Printer};
use crate::kernel::Arch;

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

/// `struct loop_info` as `--explain-ioctl` names it: its fields' offsets
/// and sizes depend on the ABI (`LOOP_INFO`, `LOOP_INFO_I386`, generated);
/// x86_64's size.
pub static LOOP_INFO_OLD: Layout = Layout {
    name: "loop_info",
    size: 168,
    fields: &[],
};

static REQUESTS: &[Request] = &[
    Request::legacy(
        LOOP_SET_STATUS,
        "LOOP_SET_STATUS",
        IF_OUT,
        Arg::Custom(&LOOP_INFO_OLD),
    ),
    Request::legacy(
        LOOP_GET_STATUS,
        "LOOP_GET_STATUS",
        IF_IN,
        Arg::Custom(&LOOP_INFO_OLD),
    ),
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
                // The reserved words, when the program set any.
                if d[240..304].iter().any(|&b| b != 0) {
                    p.open("__reserved", "[", Naming::Elements);
                    for i in 0..8 {
                        p.hex("", u64_at(d, 240 + 8 * i));
                    }
                    p.close("]");
                }
                true
            }
            _ => false,
        }
    }

    fn custom(&self, p: &mut Printer, _req: &Request, addr: u64, _phase: u8) {
        let fields = match p.arch() {
            Arch::I386 => LOOP_INFO_I386,
            _ => LOOP_INFO,
        };
        let mut d = vec![0u8; layout::extent(fields)];
        if addr == 0 || p.config().values_only >= 2 || !p.mem().read_exact(addr, &mut d) {
            p.ptr("arg", addr);
            return;
        }
        p.open("arg", "{", Naming::Fields);
        let all = put_info(p, fields, &d);
        p.close_struct(all);
    }
}

/// The old `struct loop_info`'s fields (`fields`: the ABI's layout) in
/// `d`; whether all were printed.
fn put_info(p: &mut Printer, fields: &[Field], d: &[u8]) -> bool {
    let verbose = p.config().verbose > 0;
    let f = |name| layout::field(fields, name);
    let val = |name| f(name).read(d).unwrap_or(0);
    let bytes = |name| {
        let at = f(name);
        &d[at.off..at.end()]
    };
    p.int("lo_number", val("lo_number") as i64);
    if verbose {
        put_dev(p, "lo_device", val("lo_device"));
        p.uint("lo_inode", val("lo_inode"));
        put_dev(p, "lo_rdevice", val("lo_rdevice"));
    }
    p.hex("lo_offset", val("lo_offset") as u32 as u64);
    let cipher = val("lo_encrypt_type") as u32;
    let key_size = val("lo_encrypt_key_size") as u32;
    if verbose || cipher != 0 {
        put_cipher(p, cipher, key_size);
    }
    p.flags("lo_flags", val("lo_flags") as u32 as u64, LOOP_FLAGS);
    put_name(p, "lo_name", bytes("lo_name"));
    if verbose || cipher != 0 {
        put_key(p, bytes("lo_encrypt_key"), key_size);
    }
    if !verbose {
        return false;
    }
    let init = f("lo_init");
    let word = init.size / 2;
    p.open("lo_init", "[", Naming::Elements);
    for i in 0..2 {
        let w = Field {
            name: "",
            off: init.off + i * word,
            size: word,
            signed: false,
        };
        p.hex("", w.read(d).unwrap_or(0));
    }
    p.close("]");
    p.open("reserved", "[", Naming::Elements);
    for &b in bytes("reserved") {
        p.hex("", b as u64);
    }
    p.close("]");
    true
}

/// `lo_encrypt_type` by name and `lo_encrypt_key_size`.
fn put_cipher(p: &mut Printer, cipher: u32, key_size: u32) {
    let name = LOOP_CRYPT
        .iter()
        .find(|(v, _)| *v == cipher as u64)
        .map(|(_, n)| *n);
    p.symbol("lo_encrypt_type", cipher as i64, name);
    p.uint("lo_encrypt_key_size", key_size as u64);
}

/// The key: its first `lo_encrypt_key_size` bytes (at most the array),
/// which is how long the program says it is.
fn put_key(p: &mut Printer, key: &[u8], size: u32) {
    let n = (size as usize).min(key.len());
    p.string("lo_encrypt_key", &key[..n], false);
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
    let cipher = u32_at(d, 44);
    let key_size = u32_at(d, 48);
    if verbose || cipher != 0 {
        put_cipher(p, cipher, key_size);
    }
    p.flags("lo_flags", u32_at(d, 52) as u64, LOOP_FLAGS);
    put_name(p, "lo_file_name", &d[56..56 + NAME_SIZE]);
    if verbose || cipher != 0 {
        put_name(p, "lo_crypt_name", &d[120..120 + NAME_SIZE]);
        put_key(p, &d[184..184 + KEY_SIZE], key_size);
    }
    if !verbose {
        return false;
    }
    p.open("lo_init", "[", Naming::Elements);
    p.uint("", u64_at(d, 216));
    p.uint("", u64_at(d, 224));
    p.close("]");
    true
}

/// A name array: up to its NUL, at most all but its last byte, which the
/// kernel makes the NUL of the file name it keeps (drivers/block/loop.c:984
/// `lo->lo_file_name[LO_NAME_SIZE-1] = 0`); cut and marked when the
/// program's has no NUL before it.
fn put_name(p: &mut Printer, name: &str, bytes: &[u8]) {
    let room = &bytes[..bytes.len() - 1];
    match room.iter().position(|&b| b == 0) {
        Some(end) => p.string(name, &room[..end], false),
        None => p.string(name, room, true),
    }
}
