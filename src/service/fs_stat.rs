//! What a file is: the stat family (three struct layouts: x86_64's, i386's
//! `struct stat` and `struct stat64`), statx, statfs/fstatfs, the access
//! family, getdents/getdents64 and readlink/readlinkat.
//!
//! Structs are written by the kernel, so these calls are NOTDONE: the
//! struct prints at leave, or its pointer if the call failed.

use crate::abi::xlat::fs::{
    ACCESS_MODES, AT_FLAGS, DIRENT_TYPES, FACCESSAT_FLAGS, FILE_TYPES, FS_MAGIC, MODE_BITS,
    ST_FLAGS, STATX_AT_FLAGS, STATX_ATTRS, STATX_MASK,
};
use crate::call::{CallClass::Normal, Handler, default_in};
use crate::call::{CallCtx, CallType};
use crate::decode::put_fd;
use crate::format::{Naming, Printer};
use crate::kernel::Arch;
use crate::service::fs::{name_of, put_at_dirfd, put_result};
use crate::service::h;
use crate::service::time::date_text;

/// The file type bits of a mode; a character device's and a block
/// device's type.
pub use crate::abi::xlat::fs::{S_IFBLK, S_IFCHR, S_IFMT};

/// `st_mode`: `S_IFREG|0644`, `S_IFDIR|S_ISVTX|0777`; `-V` and `-X raw`:
/// octal (`0100644`); `-X verbose`: both, `0100644 /* S_IFREG|0644 */`.
pub fn put_file_mode(p: &mut Printer, name: &str, mode: u64) {
    let kind = name_of(mode & S_IFMT, FILE_TYPES);
    if p.values_style() || (mode & S_IFMT != 0 && kind.is_none()) {
        p.mode(name, mode);
        return;
    }
    let mut text = String::new();
    if let Some(kind) = kind {
        text.push_str(kind);
        text.push('|');
    }
    for (bit, bit_name) in MODE_BITS {
        if mode & bit != 0 {
            text.push_str(bit_name);
            text.push('|');
        }
    }
    text.push_str(&format!("0{:03o}", mode & 0o777));
    p.spelled(name, &format!("0{mode:o}"), &text, || {
        serde_json::Value::String(text.clone())
    });
}

/// A device number as `makedev(0x8, 0x1)`: in `decode`, which the ioctl
/// decoders share (`struct loop_info64`'s devices).
pub use crate::decode::put_dev;

/// Little-endian unsigned field of `size` bytes at `off`.
fn get(d: &[u8], off: usize, size: usize) -> u64 {
    let mut b = [0u8; 8];
    b[..size].copy_from_slice(&d[off..off + size]);
    u64::from_le_bytes(b)
}

/// Little-endian signed field of `size` bytes at `off`.
fn get_signed(d: &[u8], off: usize, size: usize) -> i64 {
    let v = get(d, off, size);
    let shift = 64 - 8 * size as u32;
    ((v << shift) as i64) >> shift
}

/// Where a `struct stat` variant keeps its fields: (offset, size) each.
struct StatLayout {
    size: usize,
    dev: (usize, usize),
    ino: (usize, usize),
    mode: (usize, usize),
    nlink: (usize, usize),
    uid: (usize, usize),
    gid: (usize, usize),
    rdev: (usize, usize),
    size_: (usize, usize),
    blksize: (usize, usize),
    blocks: (usize, usize),
    /// atime, mtime, ctime: seconds at `t`, nanoseconds at `t + word`.
    times: [usize; 3],
    word: usize,
}

/// `struct stat` of `<asm/stat.h>` on x86_64 (and x32).
const STAT_64: StatLayout = StatLayout {
    size: 144,
    dev: (0, 8),
    ino: (8, 8),
    nlink: (16, 8),
    mode: (24, 4),
    uid: (28, 4),
    gid: (32, 4),
    rdev: (40, 8),
    size_: (48, 8),
    blksize: (56, 8),
    blocks: (64, 8),
    times: [72, 88, 104],
    word: 8,
};

/// `struct stat` of `<asm/stat.h>` on i386 (stat, lstat, fstat).
const STAT_I386: StatLayout = StatLayout {
    size: 64,
    dev: (0, 4),
    ino: (4, 4),
    mode: (8, 2),
    nlink: (10, 2),
    uid: (12, 2),
    gid: (14, 2),
    rdev: (16, 4),
    size_: (20, 4),
    blksize: (24, 4),
    blocks: (28, 4),
    times: [32, 40, 48],
    word: 4,
};

/// `struct stat64` of `<asm/stat.h>` on i386 (stat64, fstatat64, ...).
const STAT64_I386: StatLayout = StatLayout {
    size: 96,
    dev: (0, 8),
    ino: (88, 8),
    mode: (16, 4),
    nlink: (20, 4),
    uid: (24, 4),
    gid: (28, 4),
    rdev: (32, 8),
    size_: (44, 8),
    blksize: (52, 4),
    blocks: (56, 8),
    times: [64, 72, 80],
    word: 4,
};

/// Print a stat buffer: `{st_mode=S_IFREG|0644, st_size=747, ..}`, all
/// fields with `-v`.
fn put_stat(p: &mut Printer, name: &str, addr: u64, l: &StatLayout) {
    let mut d = vec![0u8; l.size];
    if addr == 0 || p.config().values_only >= 2 || !p.mem().read_exact(addr, &mut d) {
        p.ptr(name, addr);
        return;
    }
    let f = |(off, size): (usize, usize)| get(&d, off, size);
    let verbose = p.config().verbose > 0;
    let mode = f(l.mode);
    p.open(name, "{", Naming::Fields);
    if verbose {
        put_dev(p, "st_dev", f(l.dev));
        p.uint("st_ino", f(l.ino));
    }
    put_file_mode(p, "st_mode", mode);
    if verbose {
        p.uint("st_nlink", f(l.nlink));
        p.uint("st_uid", f(l.uid));
        p.uint("st_gid", f(l.gid));
        p.uint("st_blksize", f(l.blksize));
        p.uint("st_blocks", f(l.blocks));
    }
    if matches!(mode & S_IFMT, 0o020000 | 0o060000) {
        put_dev(p, "st_rdev", f(l.rdev));
    } else {
        p.int("st_size", get_signed(&d, l.size_.0, l.size_.1));
    }
    if verbose {
        for (t, names) in l.times.iter().zip([
            ["st_atime", "st_atime_nsec"],
            ["st_mtime", "st_mtime_nsec"],
            ["st_ctime", "st_ctime_nsec"],
        ]) {
            let (sec, nsec) = (get_signed(&d, *t, l.word), get(&d, t + l.word, l.word));
            p.int(names[0], sec);
            put_date_note(p, sec, nsec);
            p.uint(names[1], nsec);
        }
    }
    p.close_struct(verbose);
}

/// The stat layout of the call being printed.
fn layout(c: &CallCtx, wide: bool) -> &'static StatLayout {
    match (c.arch, wide) {
        (Arch::I386, true) => &STAT64_I386,
        (Arch::I386, false) => &STAT_I386,
        _ => &STAT_64,
    }
}

/// `stat(pathname, statbuf)`, `lstat`, `stat64`, `lstat64`
pub fn stat_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.path("pathname", c.args[0]);
    CallType::NotDone
}

/// `fstat(fd, statbuf)`, `fstat64`
pub fn fstat_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    CallType::NotDone
}

fn put_statbuf(p: &mut Printer, c: &CallCtx, i: usize, failed: bool, wide: bool) {
    if failed {
        p.ptr("statbuf", c.args[i]);
    } else {
        put_stat(p, "statbuf", c.args[i], layout(c, wide));
    }
}

/// Leave half of stat, lstat, fstat (their arch's `struct stat`).
pub fn stat_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    put_statbuf(p, c, 1, failed, false);
    put_result(p, c);
}

/// Leave half of stat64, lstat64, fstat64 (i386's `struct stat64`).
pub fn stat64_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    put_statbuf(p, c, 1, failed, true);
    put_result(p, c);
}

/// `newfstatat(dirfd, pathname, statbuf, flags)`, `fstatat64`
pub fn fstatat_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_at_dirfd(p, c.fds, "dirfd", c.int(0));
    p.path("pathname", c.args[1]);
    CallType::NotDone
}

/// Leave half of newfstatat and fstatat64.
pub fn fstatat_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    put_statbuf(p, c, 2, failed, c.arch == Arch::I386);
    p.flags("flags", c.args[3] & 0xffff_ffff, AT_FLAGS);
    put_result(p, c);
}

/// `statx(dirfd, pathname, flags, mask, statxbuf)`
pub fn statx_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_at_dirfd(p, c.fds, "dirfd", c.int(0));
    p.path("pathname", c.args[1]);
    p.flags("flags", c.args[2] & 0xffff_ffff, STATX_AT_FLAGS);
    p.flags("mask", c.args[3] & 0xffff_ffff, STATX_MASK);
    CallType::NotDone
}

/// Leave half of statx: `{stx_mask=..., stx_attributes=0, stx_mode=...,
/// stx_size=..., ..}`, every field with `-v`.
pub fn statx_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    let addr = c.args[4];
    let data = if failed {
        None
    } else {
        p.open_struct::<256>("statxbuf", addr)
    };
    match data {
        None if failed => p.ptr("statxbuf", addr),
        None => {}
        Some(d) => put_statx(p, &d),
    }
    put_result(p, c);
}

// The `STATX_*` field bits (`<linux/stat.h>`): which fields a statx
// answer holds.
use crate::abi::xlat::fs::{
    STATX_ATIME, STATX_BLOCKS, STATX_BTIME, STATX_CTIME, STATX_DIOALIGN, STATX_GID, STATX_INO,
    STATX_MNT_ID, STATX_MNT_ID_UNIQUE, STATX_MODE, STATX_MTIME, STATX_NLINK, STATX_SIZE,
    STATX_TYPE, STATX_UID,
};

/// A time's date as a comment after it (`-v`), as strace writes it.
fn put_date_note(p: &mut Printer, sec: i64, nsec: u64) {
    if let Some(date) = date_text(sec, nsec) {
        p.note(&date);
    }
}

fn put_statx(p: &mut Printer, d: &[u8]) {
    let verbose = p.config().verbose > 0;
    let mask = get(d, 0, 4);
    // A field the answer's mask does not mark valid is left out: its
    // value is whatever the kernel left there.
    let has = |bit: u64| mask & bit != 0;
    p.flags("stx_mask", mask, STATX_MASK);
    if verbose {
        p.uint("stx_blksize", get(d, 4, 4));
    }
    p.flags("stx_attributes", get(d, 8, 8), STATX_ATTRS);
    if verbose {
        for (off, name, bit) in [
            (16, "stx_nlink", STATX_NLINK),
            (20, "stx_uid", STATX_UID),
            (24, "stx_gid", STATX_GID),
        ] {
            if has(bit) {
                p.uint(name, get(d, off, 4));
            }
        }
    }
    if has(STATX_TYPE | STATX_MODE) {
        put_file_mode(p, "stx_mode", get(d, 28, 2));
    }
    if verbose && has(STATX_INO) {
        p.uint("stx_ino", get(d, 32, 8));
    }
    if has(STATX_SIZE) {
        p.uint("stx_size", get(d, 40, 8));
    }
    if !verbose {
        p.close_struct(false);
        return;
    }
    if has(STATX_BLOCKS) {
        p.uint("stx_blocks", get(d, 48, 8));
    }
    p.flags("stx_attributes_mask", get(d, 56, 8), STATX_ATTRS);
    for (off, name, bit) in [
        (64, "stx_atime", STATX_ATIME),
        (80, "stx_btime", STATX_BTIME),
        (96, "stx_ctime", STATX_CTIME),
        (112, "stx_mtime", STATX_MTIME),
    ] {
        // A time the mask does not mark valid is whatever the kernel left
        // there (zeros): the creation time is often missing.
        if mask & bit == 0 {
            continue;
        }
        let (sec, nsec) = (get_signed(d, off, 8), get(d, off + 8, 4));
        p.open(name, "{", Naming::Fields);
        p.int("tv_sec", sec);
        p.uint("tv_nsec", nsec);
        p.close("}");
        put_date_note(p, sec, nsec);
    }
    p.uint("stx_rdev_major", get(d, 128, 4));
    p.uint("stx_rdev_minor", get(d, 132, 4));
    p.uint("stx_dev_major", get(d, 136, 4));
    p.uint("stx_dev_minor", get(d, 140, 4));
    if mask & (STATX_MNT_ID | STATX_MNT_ID_UNIQUE) != 0 {
        p.uint("stx_mnt_id", get(d, 144, 8));
    }
    if mask & STATX_DIOALIGN != 0 {
        p.uint("stx_dio_mem_align", get(d, 152, 4));
        p.uint("stx_dio_offset_align", get(d, 156, 4));
    }
    p.close_struct(true);
}

/// `struct statfs` variants: (size, word of f_type/f_bsize, counts word,
/// offset of f_blocks, f_fsid, f_namelen).
struct StatfsLayout {
    size: usize,
    word: usize,
    count: usize,
    blocks: usize,
    fsid: usize,
}

/// `struct statfs` of `<asm-generic/statfs.h>` on x86_64.
const STATFS_64: StatfsLayout = StatfsLayout {
    size: 120,
    word: 8,
    count: 8,
    blocks: 16,
    fsid: 56,
};
/// `struct statfs` on i386.
const STATFS_I386: StatfsLayout = StatfsLayout {
    size: 64,
    word: 4,
    count: 4,
    blocks: 8,
    fsid: 28,
};
/// `struct statfs64` on i386 (packed to 4 bytes).
const STATFS64_I386: StatfsLayout = StatfsLayout {
    size: 84,
    word: 4,
    count: 8,
    blocks: 8,
    fsid: 48,
};

fn put_statfs(p: &mut Printer, name: &str, addr: u64, l: &StatfsLayout) {
    let mut d = vec![0u8; l.size];
    if addr == 0 || p.config().values_only >= 2 || !p.mem().read_exact(addr, &mut d) {
        p.ptr(name, addr);
        return;
    }
    p.open(name, "{", Naming::Fields);
    let f_type = get(&d, 0, l.word);
    match name_of(f_type, FS_MAGIC) {
        Some(sym) if !p.values_style() => {
            // `0xef53 /* EXT2_SUPER_MAGIC */` under -X verbose, as strace.
            let json = serde_json::Value::String(sym.to_string());
            p.spelled("f_type", &format!("{f_type:#x}"), sym, || json);
        }
        _ => p.hex("f_type", f_type),
    }
    p.uint("f_bsize", get(&d, l.word, l.word));
    for (i, field) in ["f_blocks", "f_bfree", "f_bavail", "f_files", "f_ffree"]
        .iter()
        .enumerate()
    {
        p.uint(field, get(&d, l.blocks + i * l.count, l.count));
    }
    p.open("f_fsid", "{", Naming::Fields);
    p.open("val", "[", Naming::Elements);
    p.hex("", get(&d, l.fsid, 4));
    p.hex("", get(&d, l.fsid + 4, 4));
    p.close("]");
    p.close("}");
    let after = l.fsid + 8;
    p.uint("f_namelen", get(&d, after, l.word));
    p.uint("f_frsize", get(&d, after + l.word, l.word));
    p.flags("f_flags", get(&d, after + 2 * l.word, l.word), ST_FLAGS);
    p.close("}");
}

/// `statfs(path, buf)`
pub fn statfs_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.path("path", c.args[0]);
    CallType::NotDone
}

/// `fstatfs(fd, buf)`
pub fn fstatfs_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    CallType::NotDone
}

/// Leave half of statfs and fstatfs.
pub fn statfs_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if failed {
        p.ptr("buf", c.args[1]);
    } else {
        let l = if c.arch == Arch::I386 {
            &STATFS_I386
        } else {
            &STATFS_64
        };
        put_statfs(p, "buf", c.args[1], l);
    }
    put_result(p, c);
}

/// Leave half of statfs64 and fstatfs64 (i386): `sz, {...}`.
pub fn statfs64_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    p.uint("sz", c.args[1]);
    if failed || c.args[1] < STATFS64_I386.size as u64 {
        p.ptr("buf", c.args[2]);
    } else {
        put_statfs(p, "buf", c.args[2], &STATFS64_I386);
    }
    put_result(p, c);
}

/// `access(pathname, mode)`: `access("/etc/x", R_OK|W_OK)`.
pub fn access_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.path("pathname", c.args[0]);
    p.flags("mode", c.args[1] & 0xffff_ffff, ACCESS_MODES);
    CallType::Done
}

/// `faccessat(dirfd, pathname, mode)`
pub fn faccessat_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_at_dirfd(p, c.fds, "dirfd", c.int(0));
    p.path("pathname", c.args[1]);
    p.flags("mode", c.args[2] & 0xffff_ffff, ACCESS_MODES);
    CallType::Done
}

/// `faccessat2(dirfd, pathname, mode, flags)`
pub fn faccessat2_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    faccessat_out(p, c);
    p.flags("flags", c.args[3] & 0xffff_ffff, FACCESSAT_FLAGS);
    CallType::Done
}

/// Most directory bytes decoded from one getdents call.
const MAX_DIRENT_BYTES: u64 = 1 << 20;

/// `getdents64(fd, dirp, count)`, `getdents`: the entries print at leave.
pub fn getdents_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    CallType::NotDone
}

/// One directory entry: (d_ino, d_off, d_reclen, d_type, offset of d_name
/// in the buffer).
type Dirent = (u64, i64, u64, u64, u64);

/// Split a getdents buffer into its entries; `old` is the original
/// `struct linux_dirent` (type in the record's last byte), else
/// `struct linux_dirent64`. `None` if a record is malformed.
fn dirents(d: &[u8], old: bool, word: usize) -> Option<Vec<Dirent>> {
    let mut out = Vec::new();
    let mut at = 0;
    let (name_at, reclen_at) = if old {
        (2 * word + 2, 2 * word)
    } else {
        (19, 16)
    };
    while at < d.len() {
        if at + name_at > d.len() {
            return None;
        }
        let rec = &d[at..];
        let reclen = get(rec, reclen_at, 2) as usize;
        if reclen < name_at || reclen > rec.len() {
            return None;
        }
        let ino = get(rec, 0, if old { word } else { 8 });
        let off = get_signed(rec, if old { word } else { 8 }, if old { word } else { 8 });
        let d_type = if old { rec[reclen - 1] } else { rec[18] } as u64;
        out.push((ino, off, reclen as u64, d_type, (at + name_at) as u64));
        at += reclen;
    }
    Some(out)
}

fn getdents_leave(p: &mut Printer, c: &CallCtx, failed: bool, old: bool) {
    let addr = c.args[1];
    let len = c.result.max(0) as u64;
    let mut d = vec![0u8; len.min(MAX_DIRENT_BYTES) as usize];
    let word = if c.arch == Arch::X86_64 { 8 } else { 4 };
    let entries = if failed || len > MAX_DIRENT_BYTES || p.config().values_only >= 2 {
        None
    } else if p.mem().read_exact(addr, &mut d) {
        dirents(&d, old, word)
    } else {
        None
    };
    // Under the BPF engine a buffer longer than its copy has no entries to
    // read, but the kernel counted them: the count, without -v.
    let counted = match &entries {
        None if !failed && p.config().verbose == 0 && p.config().values_only < 2 => {
            p.mem().dirent_count()
        }
        _ => None,
    };
    match entries {
        None if let Some(n) = counted => {
            if p.json() {
                p.open("dirp", "{", Naming::Fields);
                p.uint("entries", n);
                p.close_struct(n == 0);
            } else {
                p.ptr("dirp", addr);
                p.note(&format!("{n} entries"));
            }
        }
        None => p.ptr("dirp", addr),
        // The address and the count, as strace shows them (`&0x55d0 /* 3
        // entries */`); JSON keeps `{"entries": 3}`.
        Some(list) if p.config().verbose == 0 && !p.json() => {
            p.ptr("dirp", addr);
            p.note(&format!("{} entries", list.len()));
        }
        Some(list) if p.config().verbose == 0 => {
            p.open("dirp", "{", Naming::Fields);
            p.uint("entries", list.len() as u64);
            p.close_struct(list.is_empty());
        }
        Some(list) => {
            p.open("dirp", "[", Naming::Elements);
            for (ino, off, reclen, d_type, name_at) in list {
                p.open("", "{", Naming::Fields);
                p.uint("d_ino", ino);
                p.int("d_off", off);
                p.uint("d_reclen", reclen);
                p.symbol("d_type", d_type as i64, name_of(d_type, DIRENT_TYPES));
                p.path("d_name", addr + name_at);
                p.close("}");
            }
            p.close("]");
        }
    }
    p.uint("count", c.args[2] & 0xffff_ffff);
    put_result(p, c);
}

/// Leave half of getdents64: `&0x55d0 /* N entries */`, the entries with `-v`.
pub fn getdents64_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    getdents_leave(p, c, failed, false);
}

/// Leave half of getdents (`struct linux_dirent`).
pub fn getdents_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    getdents_leave(p, c, failed, true);
}

/// `readlink(pathname, buf, bufsiz)`: the target prints at leave.
pub fn readlink_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.path("pathname", c.args[0]);
    CallType::NotDone
}

/// Leave half of readlink: the target, as long as the result says.
pub fn readlink_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    put_link(p, c, 1, failed);
}

/// `readlinkat(dirfd, pathname, buf, bufsiz)`
pub fn readlinkat_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_at_dirfd(p, c.fds, "dirfd", c.int(0));
    p.path("pathname", c.args[1]);
    CallType::NotDone
}

/// Leave half of readlinkat.
pub fn readlinkat_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    put_link(p, c, 2, failed);
}

fn put_link(p: &mut Printer, c: &CallCtx, i: usize, failed: bool) {
    if failed {
        p.ptr("buf", c.args[i]);
    } else {
        p.buf("buf", c.args[i], c.result as u64);
    }
    p.int("bufsiz", c.int(i + 1));
    put_result(p, c);
}

/// `ustat(dev, ubuf)`: the device as `makedev(0x8, 0x1)` (the kernel
/// reads an `unsigned`, `new_decode_dev`'s split, which is glibc's for 32
/// bits).
pub fn ustat_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_dev(p, "dev", c.args[0] & 0xffff_ffff);
    p.ptr("ubuf", c.args[1]);
    CallType::Done
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("stat", stat_out, stat_in, Normal),
    h("lstat", stat_out, stat_in, Normal),
    h("fstat", fstat_out, stat_in, Normal),
    h("stat64", stat_out, stat64_in, Normal),
    h("lstat64", stat_out, stat64_in, Normal),
    h("fstat64", fstat_out, stat64_in, Normal),
    h("newfstatat", fstatat_out, fstatat_in, Normal),
    h("fstatat64", fstatat_out, fstatat_in, Normal),
    h("statx", statx_out, statx_in, Normal),
    h("ustat", ustat_out, default_in, Normal),
    h("statfs", statfs_out, statfs_in, Normal),
    h("fstatfs", fstatfs_out, statfs_in, Normal),
    h("statfs64", statfs_out, statfs64_in, Normal),
    h("fstatfs64", fstatfs_out, statfs64_in, Normal),
    h("access", access_out, crate::call::default_in, Normal),
    h("faccessat", faccessat_out, crate::call::default_in, Normal),
    h(
        "faccessat2",
        faccessat2_out,
        crate::call::default_in,
        Normal,
    ),
    h("getdents", getdents_out, getdents_in, Normal),
    h("getdents64", getdents_out, getdents64_in, Normal),
    h("readlink", readlink_out, readlink_in, Normal),
    h("readlinkat", readlinkat_out, readlinkat_in, Normal),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn dirent64(ino: u64, d_type: u8, name: &str) -> Vec<u8> {
        let reclen = (19 + name.len() + 1).div_ceil(8) * 8;
        let mut d = vec![0u8; reclen];
        d[0..8].copy_from_slice(&ino.to_le_bytes());
        d[8..16].copy_from_slice(&7i64.to_le_bytes());
        d[16..18].copy_from_slice(&(reclen as u16).to_le_bytes());
        d[18] = d_type;
        d[19..19 + name.len()].copy_from_slice(name.as_bytes());
        d
    }

    #[test]
    fn directory_records_split_and_reject_bad_lengths() {
        let mut buf = dirent64(2, 4, ".");
        buf.extend(dirent64(12, 8, "a-longer-name"));
        let list = dirents(&buf, false, 8).unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list[1], (12, 7, 40, 8, 24 + 19));
        // A record claiming more than the buffer holds is malformed.
        buf[16] = 200;
        assert!(dirents(&buf, false, 8).is_none());
        assert!(dirents(&[0u8; 5], false, 8).is_none());
    }

    #[test]
    fn signed_fields_extend() {
        assert_eq!(get_signed(&[0xfe, 0xff], 0, 2), -2);
        assert_eq!(get_signed(&[0xfe, 0xff, 0xff, 0x7f], 0, 4), 0x7fff_fffe);
        assert_eq!(get(&[1, 2, 3], 1, 2), 0x0302);
    }
}
