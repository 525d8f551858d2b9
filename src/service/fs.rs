//! File handlers: the open family, close and close_range, read and write in
//! their plain, positional and vectored forms, lseek, and the fd-table
//! bookkeeping of every call that makes, copies or destroys fds ([`track`]).
//!
//! The other file calls live in `fs_stat.rs` (stat, statx, statfs, access,
//! getdents, readlink), `fs_fd.rs` (fcntl, flock, dup, pipe), `fs_path.rs`
//! (names and attributes: mkdir, rename, chmod, mount, ...) and `fs_xfer.rs`
//! (sendfile, splice, inotify, memfd, fallocate). Shared helpers for them
//! (64-bit offsets, `AT_*` flags, results) are here.

use crate::abi::fs::UMODE_MASK;
use crate::abi::gen_user_events::{DIAG_IOCSREG, DIAG_IOCSREG32};
use crate::abi::xlat::fs::{
    CLOSE_RANGE_FLAGS, OPEN_FLAGS, RESOLVE_FLAGS, RWF_FLAGS, SEEK_NAMES, SPLICE_FLAGS,
};
use crate::call::{CallClass::Normal, Handler, default_in};
use crate::call::{CallCtx, CallData, CallType};
use crate::decode::{put_dirfd, put_fd};
use crate::fdtable::{FdInfo, FdKind, FdTable};
use crate::format::{Naming, PATH_MAX, Printer};
use crate::ioctl::user_events;
use crate::kernel::{Arch, Memory};
use crate::service::h;
use crate::service::raw::{array_limit, put_array, uint_at};

/// `O_CLOEXEC`; also the value of every `*_CLOEXEC` creation flag
/// (`SOCK_`, `EFD_`, `EPOLL_`, `IN_`, `TFD_`, `SFD_`) on x86.
pub use crate::abi::xlat::fs::O_CLOEXEC;
use crate::abi::xlat::fs::{CLOSE_RANGE_CLOEXEC, O_CREAT, O_TMPFILE};

/// A directory fd: `AT_FDCWD`, or the fd (with `-y`, the working
/// directory or the fd's path).
pub fn put_at_dirfd(p: &mut Printer, fds: &FdTable, name: &str, fd: i64) {
    put_dirfd(p, fds, name, fd);
}

/// The name `value` has in a table of exact values.
pub fn name_of(value: u64, names: &[(u64, &'static str)]) -> Option<&'static str> {
    names.iter().find(|(v, _)| *v == value).map(|(_, n)| *n)
}

/// A value from a table of exact values: its name, or the number.
pub fn put_enum(p: &mut Printer, name: &str, value: i64, names: &[(u64, &'static str)]) {
    p.symbol(name, value, name_of(value as u64, names));
}

/// Argument `i` as a C `long` (32 bits on i386).
pub fn long_arg(c: &CallCtx, i: usize) -> i64 {
    match c.arch {
        Arch::I386 => c.args[i] as i32 as i64,
        _ => c.args[i] as i64,
    }
}

/// A 64-bit file offset passed in argument `i`; on i386 it takes two
/// registers, low word first.
pub fn off64_arg(c: &CallCtx, i: usize) -> i64 {
    match c.arch {
        Arch::I386 => ((c.args[i] & 0xffff_ffff) | ((c.args[i + 1] & 0xffff_ffff) << 32)) as i64,
        _ => c.args[i] as i64,
    }
}

/// The argument index after a 64-bit offset starting at `i`.
pub fn after_off64(c: &CallCtx, i: usize) -> usize {
    if c.arch == Arch::I386 { i + 2 } else { i + 1 }
}

/// `=` (if not yet printed) and the result: the tail of every leave printer.
pub fn put_result(p: &mut Printer, c: &CallCtx) {
    if !p.equals_printed() {
        p.equals();
    }
    p.result(c.result);
}

/// An array of two fds at `addr` (a pipe's): `[3, 4]` (with `-y` each
/// with its path, `[3<pipe:[28257]>, 4<pipe:[28257]>]`), or the pointer if
/// it cannot be read (or with `-VV`).
pub fn put_fd_pair(p: &mut Printer, fds: &FdTable, name: &str, addr: u64) {
    let mut b = [0u8; 8];
    if addr == 0 || p.config().values_only >= 2 || !p.mem().read_exact(addr, &mut b) {
        p.ptr(name, addr);
        return;
    }
    p.open(name, "[", Naming::Elements);
    put_fd(
        p,
        fds,
        "",
        i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64,
    );
    put_fd(
        p,
        fds,
        "",
        i32::from_le_bytes([b[4], b[5], b[6], b[7]]) as i64,
    );
    p.close("]");
}

/// An in/out 64-bit offset behind a pointer (sendfile, splice): `[0]`,
/// `NULL`, or the pointer if unreadable.
pub fn put_off_ptr(p: &mut Printer, name: &str, addr: u64, bytes: usize) {
    let mut b = [0u8; 8];
    if addr == 0 || p.config().values_only >= 2 || !p.mem().read_exact(addr, &mut b[..bytes]) {
        p.ptr(name, addr);
        return;
    }
    let value = if bytes == 4 {
        i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64
    } else {
        i64::from_le_bytes(b)
    };
    p.open(name, "[", Naming::Elements);
    p.int("", value);
    p.close("]");
}

fn put_open_flags_mode(p: &mut Printer, flags: u64, mode: u64) {
    let flags = flags & 0xffff_ffff;
    p.flags("flags", flags, OPEN_FLAGS);
    if flags & O_CREAT != 0 || flags & O_TMPFILE == O_TMPFILE {
        p.mode("mode", mode & UMODE_MASK);
    }
}

fn save_path(p: &mut Printer, c: &mut CallCtx, addr: u64) {
    if let Some((bytes, true)) = p.mem().read_cstr(addr, 4096) {
        *c.data = CallData::Path(bytes);
    }
}

/// `open(pathname, flags, mode)`
pub fn open_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.path("pathname", c.args[0]);
    put_open_flags_mode(p, c.args[1], c.args[2]);
    save_path(p, c, c.args[0]);
    CallType::Done
}

/// `openat(dirfd, pathname, flags, mode)`
pub fn openat_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_at_dirfd(p, c.fds, "dirfd", c.int(0));
    p.path("pathname", c.args[1]);
    put_open_flags_mode(p, c.args[2], c.args[3]);
    save_path(p, c, c.args[1]);
    CallType::Done
}

/// Size of `struct open_how` (`<linux/openat2.h>`): flags, mode, resolve.
const OPEN_HOW_SIZE: u64 = 24;

/// `openat2(dirfd, pathname, how, size)`:
/// `{flags=O_RDONLY|O_CLOEXEC, resolve=RESOLVE_BENEATH}`.
pub fn openat2_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_at_dirfd(p, c.fds, "dirfd", c.int(0));
    p.path("pathname", c.args[1]);
    if c.args[3] < OPEN_HOW_SIZE {
        p.ptr("how", c.args[2]);
    } else if let Some(how) = p.open_struct::<24>("how", c.args[2]) {
        let flags = u64::from_le_bytes(how[0..8].try_into().expect("8 bytes"));
        let mode = u64::from_le_bytes(how[8..16].try_into().expect("8 bytes"));
        let resolve = u64::from_le_bytes(how[16..24].try_into().expect("8 bytes"));
        p.flags("flags", flags, OPEN_FLAGS);
        if flags & O_CREAT != 0 || flags & O_TMPFILE == O_TMPFILE || mode != 0 {
            p.mode("mode", mode);
        }
        p.flags("resolve", resolve, RESOLVE_FLAGS);
        let all = crate::service::raw::put_struct_tail(p, c.args[2], OPEN_HOW_SIZE, c.args[3]);
        p.close_struct(all);
    }
    p.uint("size", c.args[3]);
    save_path(p, c, c.args[1]);
    CallType::Done
}

/// `creat(pathname, mode)`
pub fn creat_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.path("pathname", c.args[0]);
    p.mode("mode", c.args[1] & UMODE_MASK);
    save_path(p, c, c.args[0]);
    CallType::Done
}

/// `close(fd)`
pub fn close_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    CallType::Done
}

/// `close_range(first, last, flags)`: `close_range(3, ~0U, 0)`.
pub fn close_range_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.uint("first", c.args[0] & 0xffff_ffff);
    let last = c.args[1] & 0xffff_ffff;
    let sym = (last == 0xffff_ffff).then_some("~0U");
    p.symbol("last", last as i64, sym);
    p.flags("flags", c.args[2] & 0xffff_ffff, CLOSE_RANGE_FLAGS);
    CallType::Done
}

/// `read(fd, buf, count)`, `pread64(fd, buf, count, offset)`: the buffer is
/// printed at leave, as much as was read.
pub fn read_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    CallType::NotDone
}

/// Leave half of read: `"data", count) = n`.
pub fn read_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    read_buf_count(p, c, failed);
    p.equals();
    p.result(c.result);
    usbmon_read(p, c, failed);
}

/// Leave half of pread64: `"data", count, offset) = n`.
pub fn pread_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    read_buf_count(p, c, failed);
    p.int("offset", off64_arg(c, 3));
    p.equals();
    p.result(c.result);
    usbmon_read(p, c, failed);
}

fn read_buf_count(p: &mut Printer, c: &CallCtx, failed: bool) {
    // A usbmon read delivers a binary event header: its bytes as a string
    // help nobody, the decoded event after the result does.
    if failed || (c.result >= 48 && is_usbmon(c)) {
        p.ptr("buf", c.args[1]);
    } else {
        // A netlink socket's messages decoded, other data as a string.
        crate::service::netlink::put_buf(p, c.fds, c.int(0), "buf", c.args[1], c.result as u64);
    }
    p.uint("count", c.args[2]);
}

/// Whether the call's fd (its first argument) is a usbmon device.
fn is_usbmon(c: &CallCtx) -> bool {
    c.fds.kind(c.int(0) as i32) == FdKind::Usbmon
}

fn usbmon_read(p: &mut Printer, c: &CallCtx, failed: bool) {
    if !failed && is_usbmon(c) {
        crate::ioctl::usbmon::fetched_by_read(p, c.args[1], c.result as u64);
    }
}

/// Longest user_events record decoded from a write.
const MAX_EVENT_RECORD: u64 = 64 * 1024;

/// Whether `fd` is a user_events_data file.
fn is_user_events(c: &CallCtx, fd: i64) -> bool {
    c.fds
        .get(fd as i32)
        .is_some_and(|info| info.kind == FdKind::UserEvents)
}

/// `write(fd, buf, count)`
pub fn write_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_write(p, c);
    CallType::Done
}

/// `pwrite64(fd, buf, count, offset)`
pub fn pwrite_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_write(p, c);
    p.int("offset", off64_arg(c, 3));
    CallType::Done
}

fn put_write(p: &mut Printer, c: &CallCtx) {
    let fd = c.int(0);
    put_fd(p, c.fds, "fd", fd);
    let mut decoded = false;
    if is_user_events(c, fd) && c.args[2] <= MAX_EVENT_RECORD {
        let mut bytes = vec![0u8; c.args[2] as usize];
        if p.mem().read_exact(c.args[1], &mut bytes) {
            user_events::put_payload(p, "buf", &bytes, c.fds, fd as i32);
            decoded = true;
        }
    }
    if !decoded {
        crate::service::netlink::put_buf(p, c.fds, fd, "buf", c.args[1], c.args[2]);
    }
    p.uint("count", c.args[2]);
}

/// Print an iovec array; `limit` caps the bytes shown across all buffers
/// (what a read returned), `None` shows each buffer's full length.
/// The elements are read one at a time (`decode::put_array`): an array whose
/// tail is unreadable shows its head and where the tail is.
pub fn put_iovecs(p: &mut Printer, name: &str, addr: u64, count: u64, limit: Option<u64>) {
    let word = if p.arch() == Arch::X86_64 { 8 } else { 4 };
    let mut left = limit;
    // What all the buffers may show together when no result bounds them:
    // with `-vv`'s unlimited strings, up to a thousand buffers each copied
    // to its length would keep the tracer busy for nothing.
    let mut budget = crate::service::raw::MAX_READ as u64;
    let shown = array_limit(p);
    put_array(p, name, addr, (count, 2 * word, shown), |p, iov| {
        let base = uint_at(iov, 0, word);
        let len = uint_at(iov, word, word);
        p.open("", "{", Naming::Fields);
        match left {
            Some(l) => {
                p.buf("iov_base", base, len.min(l));
                left = Some(l - len.min(l));
            }
            None => {
                p.buf("iov_base", base, len.min(budget));
                // What was copied, not the length asked: a huge iov_len
                // (shown only up to `-s`) must not leave the next buffers
                // an empty budget and print them as `""`.
                budget -= len.min(budget).min(p.config().string_limit as u64);
            }
        }
        p.uint("iov_len", len);
        p.close("}");
    });
}

/// The bytes of an iovec array, concatenated; `None` if any is unreadable.
fn gather_iovecs(p: &mut Printer, addr: u64, count: u64) -> Option<Vec<u8>> {
    let arch = p.arch();
    let word = if arch == Arch::X86_64 { 8 } else { 4 };
    if count > 1024 {
        return None;
    }
    let mut out = Vec::new();
    for i in 0..count {
        let base = p.mem().read_word(addr + i * 2 * word, arch)?;
        let len = p.mem().read_word(addr + i * 2 * word + word, arch)?;
        if out.len() as u64 + len > MAX_EVENT_RECORD {
            return None;
        }
        let start = out.len();
        out.resize(start + len as usize, 0);
        if !p.mem().read_exact(base, &mut out[start..]) {
            return None;
        }
    }
    Some(out)
}

/// `writev(fd, iov, iovcnt)`
pub fn writev_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let fd = c.int(0);
    put_fd(p, c.fds, "fd", fd);
    let gathered = if is_user_events(c, fd) {
        gather_iovecs(p, c.args[1], c.args[2])
    } else {
        None
    };
    match gathered {
        Some(bytes) => user_events::put_writev(p, "iov", &bytes, c.fds, fd as i32),
        None => put_iovecs(p, "iov", c.args[1], c.args[2], None),
    }
    p.uint("iovcnt", c.args[2]);
    CallType::Done
}

/// `pwritev(fd, iov, iovcnt, offset)`
pub fn pwritev_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    put_iovecs(p, "iov", c.args[1], c.args[2], None);
    p.uint("iovcnt", c.args[2]);
    put_vec_offset_flags(p, c, false);
    CallType::Done
}

/// `pwritev2(fd, iov, iovcnt, offset, flags)`
pub fn pwritev2_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    put_iovecs(p, "iov", c.args[1], c.args[2], None);
    p.uint("iovcnt", c.args[2]);
    put_vec_offset_flags(p, c, true);
    CallType::Done
}

/// `vmsplice(fd, iov, nr_segs, flags)`: the buffers as strace shows them,
/// at enter, and the `SPLICE_F_*` flags.
pub fn vmsplice_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    put_iovecs(p, "uiov", c.args[1], c.args[2], None);
    p.uint("nr_segs", c.args[2]);
    p.flags("flags", c.args[3] & 0xffff_ffff, SPLICE_FLAGS);
    CallType::Done
}

/// The offset of preadv/pwritev (low and high words, the high one unused
/// on x86_64) and, for the `2` forms, the `RWF_*` flags.
fn put_vec_offset_flags(p: &mut Printer, c: &CallCtx, with_flags: bool) {
    let offset = match c.arch {
        Arch::I386 => off64_arg(c, 3),
        _ => c.args[3] as i64,
    };
    p.int("offset", offset);
    if with_flags {
        p.flags("flags", c.args[5] & 0xffff_ffff, RWF_FLAGS);
    }
}

/// `readv(fd, iov, iovcnt)`, `preadv2(...)`: the buffers are printed at leave.
pub fn readv_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    CallType::NotDone
}

/// Leave half of readv.
pub fn readv_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    put_readv_iov(p, c, failed);
    p.equals();
    p.result(c.result);
}

/// Leave half of preadv.
pub fn preadv_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    put_readv_iov(p, c, failed);
    put_vec_offset_flags(p, c, false);
    p.equals();
    p.result(c.result);
}

/// Leave half of preadv2.
pub fn preadv2_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    put_readv_iov(p, c, failed);
    put_vec_offset_flags(p, c, true);
    p.equals();
    p.result(c.result);
}

/// The buffers a readv filled; after a failure, where they are (the
/// addresses and lengths, as strace shows them: nothing was read).
fn put_readv_iov(p: &mut Printer, c: &CallCtx, failed: bool) {
    if failed {
        crate::service::raw::put_unread_iovecs(p, "iov", c.args[1], c.args[2]);
    } else {
        put_iovecs(p, "iov", c.args[1], c.args[2], Some(c.result as u64));
    }
    p.uint("iovcnt", c.args[2]);
}

/// `lseek(fd, offset, whence)`: `lseek(3, 0, SEEK_END) = 1234`.
pub fn lseek_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    p.int("offset", long_arg(c, 1));
    put_enum(p, "whence", c.int(2), SEEK_NAMES);
    CallType::Done
}

/// `_llseek(fd, offset_high, offset_low, result, whence)` (i386), printed
/// with the offset whole: `_llseek(3, 0, [1234], SEEK_END) = 0`.
pub fn llseek_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    let offset = ((c.args[1] & 0xffff_ffff) << 32 | (c.args[2] & 0xffff_ffff)) as i64;
    p.int("offset", offset);
    CallType::NotDone
}

/// Leave half of _llseek: the resulting offset, then whence.
pub fn llseek_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if failed {
        p.ptr("result", c.args[3]);
    } else {
        put_off_ptr(p, "result", c.args[3], 8);
    }
    put_enum(p, "whence", c.int(4), SEEK_NAMES);
    p.equals();
    p.result(c.result);
}

/// Record fd `fd` as what /proc says it is now (a pipe, an inotify
/// instance, a memfd, a socket), replacing whatever the table held.
fn track_new(fds: &mut FdTable, mem: &Memory, fd: i32, cloexec: bool) {
    fds.remove(fd);
    // /proc names what the fd is (`socket:[1234]`). Under the BPF engine
    // the process ran on: /proc's name only if the kernel vouches for it;
    // a process already gone leaves the fd unnamed, but known to be open.
    let info = if mem.is_captured() {
        let name = crate::kernel::fds::vouched_path(mem, fd);
        name.map(FdInfo::found)
    } else {
        fds.get(fd)
    };
    let info = info.unwrap_or_else(|| FdInfo::new(Vec::new(), cloexec));
    fds.insert(fd, FdInfo { cloexec, ..info });
}

/// The longest name memfd_create takes (mm/memfd.c's
/// `MFD_NAME_MAX_LEN`: NAME_MAX less its prefix).
const MEMFD_NAME_MAX: usize = 249;

/// What /proc names a memfd called `name`: mm/memfd.c names its file
/// `memfd:NAME` on an internal mount, which d_path shows from that
/// mount's root, and as `(deleted)`, having no link anywhere.
fn memfd_path(name: &[u8]) -> Vec<u8> {
    [b"/memfd:", name, b" (deleted)"].concat()
}

/// Record the two fds a successful pipe/pipe2/socketpair wrote at `addr`.
fn track_pair(fds: &mut FdTable, mem: &mut Memory, addr: u64, cloexec: bool) {
    let mut b = [0u8; 8];
    if mem.read_exact(addr, &mut b) {
        for half in [&b[0..4], &b[4..8]] {
            let fd = i32::from_le_bytes(half.try_into().expect("4 bytes"));
            track_new(fds, mem, fd, cloexec);
        }
    }
}

/// The calls whose result is a new fd that [`track`] names (from the
/// path opened, the fd copied, or /proc): under the BPF engine their exits
/// carry the new fd's file identity, against which /proc's name is
/// checked.
pub const NEW_FD_CALLS: &[&str] = &[
    "dup",
    "dup2",
    "dup3",
    "open",
    "openat",
    "openat2",
    "creat",
    "memfd_create",
    "inotify_init",
    "inotify_init1",
    "epoll_create",
    "epoll_create1",
    "eventfd",
    "eventfd2",
    "userfaultfd",
    "fanotify_init",
    "perf_event_open",
    "io_uring_setup",
    "pidfd_getfd",
    "pidfd_open",
    "open_tree",
    "fsopen",
    "fsmount",
    "fspick",
    "mq_open",
    "open_by_handle_at",
    "signalfd",
    "signalfd4",
    "timerfd_create",
    "accept",
    "accept4",
    "socket",
];

/// The calls that write two new fds to an `int[2]` (success: 0), and the
/// argument that points at it: under the BPF engine their exits carry
/// both fds' file identities.
pub const NEW_FD_PAIRS: &[(&str, usize)] = &[("pipe", 0), ("pipe2", 0), ("socketpair", 3)];

/// The argument of call `name` that points at the two new fds it writes,
/// if it is one of [`NEW_FD_PAIRS`].
pub fn new_fd_pair_arg(name: &str) -> Option<usize> {
    NEW_FD_PAIRS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, arg)| arg)
}

/// The bookkeeping calls: every call [`track`] acts on, and the clones
/// whose flags the engine reads at the fork event (CLONE_FILES: the child
/// shares its parent's fd table). The engine follows them whatever `-e
/// trace=` selects; the seccomp fast path's filter stops them too, and the
/// engine handles them without printing them. read(2) and write(2) are not
/// among them (stopping every read and write would undo the fast path):
/// what they tell the diagnostics is seen only when they are selected.
pub const BOOKKEEPING: &[&str] = &[
    "chdir",
    "fchdir",
    "clone",
    "clone3",
    "open",
    "openat",
    "openat2",
    "creat",
    "close",
    "close_range",
    "mmap",
    "mmap2",
    "munmap",
    "mremap",
    "ioctl",
    "bpf",
    "dup",
    "dup2",
    "dup3",
    "fcntl",
    "fcntl64",
    "pipe",
    "pipe2",
    "socketpair",
    "memfd_create",
    "inotify_init",
    "inotify_init1",
    "epoll_create",
    "epoll_create1",
    "eventfd",
    "eventfd2",
    "signalfd",
    "signalfd4",
    "timerfd_create",
    "socket",
    "accept",
    "accept4",
    "userfaultfd",
    "fanotify_init",
    "perf_event_open",
    "io_uring_setup",
    "pidfd_open",
    "pidfd_getfd",
    "open_tree",
    "fsopen",
    "fsmount",
    "fspick",
    "mq_open",
    "open_by_handle_at",
];

/// At the entry of a bookkeeping call that is not printed (a seccomp stop
/// under the fast path): whether its return matters to the bookkeeping.
/// When it does not, the call's effect (if any) is applied now and the
/// tracee runs on without a stop at its return: half the stops for the
/// calls a program makes most (the loader's mmaps and closes, a terminal's
/// ioctls). What needs the return: an fd a call makes (its number), a
/// mapping or ioctl of a usbmon or user_events fd (the diagnostics), a
/// munmap or mremap while some fd is mapped, an open of a file whose name
/// a decoder knows (`opens_a_known_name`): any other fd is learnt from
/// /proc, what the kernel says it is, when first needed.
pub fn needs_return(
    name: &str,
    arch: Arch,
    args: &[u64; 6],
    fds: &mut FdTable,
    mem: &mut Memory,
) -> bool {
    let special = |fds: &FdTable, fd: i32| !matches!(fds.kind(fd), FdKind::Other | FdKind::Socket);
    let path_arg = |mem: &mut Memory, addr: u64| {
        mem.read_cstr(addr, PATH_MAX)
            .is_none_or(|(path, _)| opens_a_known_name(&path))
    };
    match name {
        "open" | "creat" => path_arg(mem, args[0]),
        "openat" | "openat2" => path_arg(mem, args[1]),
        // Closed whether or not close reports an error (EINTR, EIO): only
        // EBADF leaves the table as it was, and then there was no entry.
        "close" => {
            fds.remove(args[0] as i32);
            false
        }
        "mmap" if arch == Arch::I386 => true,
        "mmap" | "mmap2" => args[3] & 0x20 == 0 && special(fds, args[4] as i32),
        "ioctl" => {
            matches!(
                args[1] as u32,
                DIAG_IOCSREG | DIAG_IOCSREG32 | crate::abi::xlat::ioctl::TIOCGPTPEER
            ) || special(fds, args[0] as i32)
        }
        "munmap" | "mremap" => fds.has_maps(),
        _ => true,
    }
}

/// Whether an open of `path` may make an fd the decoders know by name (a
/// usbmon device, a user_events file), whose open the fd table must see:
/// under an emulation /proc names such an fd otherwise (a memfd). By the
/// last component, so a relative name or one through a symlinked
/// directory counts too; a symlink to such a file named otherwise is
/// learnt from /proc, right on a real kernel.
fn opens_a_known_name(path: &[u8]) -> bool {
    let base = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
    base.starts_with(b"usbmon") || base.starts_with(b"user_events_")
}

/// Calls after which `-yy`'s cached socket answers are asked again: they
/// open, close or duplicate fds, or bind, connect or shut down a socket.
const FD_CHANGES: &[&str] = &[
    "close",
    "close_range",
    "dup",
    "dup2",
    "dup3",
    "socket",
    "socketpair",
    "accept",
    "accept4",
    "bind",
    "connect",
    "listen",
    "shutdown",
    "execve",
    "execveat",
];

/// The path a call took at `addr`: the one its printing saved, else read
/// (whole, or none).
fn called_path(data: &CallData, mem: &mut Memory, addr: u64) -> Option<Vec<u8>> {
    match data {
        CallData::Path(path) => Some(path.clone()),
        _ => mem
            .read_cstr(addr, 4096)
            .and_then(|(bytes, whole)| whole.then_some(bytes)),
    }
}

/// Under the BPF engine, name the fd arguments of call `name` the table
/// knows no name of from /proc, where the identity the call carried
/// vouches for it: later lines, and a child's table, name them even
/// once they are closed.
fn learn_vouched_names(name: &str, arch: Arch, args: &[u64; 6], fds: &mut FdTable, mem: &Memory) {
    // (Without identities, as under ptrace, nothing to vouch with: no
    // look-up of the signature for every call.)
    if !mem.has_file_ids() {
        return;
    }
    let Some(sig) = crate::sysent::signature(arch, name) else {
        return;
    };
    for (i, param) in sig.params.iter().enumerate().take(6) {
        let fd = args[i] as i32;
        if param.kind == crate::sysent::Kind::Fd
            && fd >= 0
            && !fds.names(fd)
            && mem.file_id(fd).is_some()
            && let Some(path) = crate::kernel::fds::vouched_path(mem, fd)
        {
            fds.learn_name(fd, path);
        }
    }
}

/// Apply a successful call's effect on the fd table. Runs for every call,
/// printed or not: bookkeeping is not printing.
pub fn track(
    name: &str,
    arch: Arch,
    args: &[u64; 6],
    data: &CallData,
    rval: i64,
    fds: &mut FdTable,
    mem: &mut Memory,
) {
    learn_vouched_names(name, arch, args, fds, mem);
    let fd = rval as i32;
    let cloexec = |flags: u64| flags & O_CLOEXEC != 0;
    if FD_CHANGES.contains(&name) {
        crate::kernel::fds::fd_table_changed();
    }
    match name {
        _ if crate::sysent::OPENS_BY_PATH.contains(&name) => {
            let flags = match name {
                "open" => args[1],
                "openat" => args[2],
                "openat2" => {
                    let mut how = [0u8; 8];
                    if mem.read_exact(args[2], &mut how) {
                        u64::from_le_bytes(how)
                    } else {
                        0
                    }
                }
                _ => 0,
            };
            // The path the program asked for names a usbmon or user_events
            // file as the program meant it (an emulation's fd is a memfd to
            // /proc); a call that was not printed did not save it: read it.
            let at = if matches!(name, "openat" | "openat2") {
                1
            } else {
                0
            };
            let path = called_path(data, mem, args[at]);
            // A relative path says little: /proc has the absolute one.
            // Under the BPF engine /proc speaks of later: see fs_names.
            match path {
                _ if mem.is_captured() => {
                    let dirfd = matches!(name, "openat" | "openat2").then_some(args[0] as i32);
                    let named = super::fs_names::opened(fds, mem, fd, path.as_deref(), dirfd);
                    fds.insert(fd, FdInfo::new(named, cloexec(flags)))
                }
                Some(path) if path.starts_with(b"/") => {
                    fds.insert(fd, FdInfo::new(path, cloexec(flags)))
                }
                _ => track_new(fds, mem, fd, cloexec(flags)),
            }
        }
        "close" => fds.remove(args[0] as i32),
        "chdir" => {
            let path = called_path(data, mem, args[0]);
            let dir = super::fs_names::changed_directory(fds, path.as_deref(), None);
            fds.set_cwd(dir);
        }
        "fchdir" => {
            let dir = super::fs_names::changed_directory(fds, None, Some(args[0] as i32));
            fds.set_cwd(dir);
        }
        // i386's old mmap takes its six arguments in a struct.
        "mmap" if arch == Arch::I386 => {
            let mut raw = [0u8; 24];
            if mem.read_exact(args[0], &mut raw) {
                let word = |i: usize| u32::from_le_bytes(raw[i * 4..i * 4 + 4].try_into().unwrap());
                if (word(4) as i32) >= 0 && word(3) & 0x20 == 0 {
                    fds.mapped(word(4) as i32, rval as u32 as u64, word(1) as u64);
                }
            }
        }
        "mmap" | "mmap2" if args[4] as i32 >= 0 && args[3] & 0x20 == 0 => {
            let addr = if arch == Arch::I386 {
                rval as u32 as u64
            } else {
                rval as u64
            };
            fds.mapped(args[4] as i32, addr, args[1]);
        }
        "munmap" => fds.unmapped(args[0], args[1]),
        // A moved or resized mapping (a usbmon ring moved by mremap).
        "mremap" => {
            let new = if arch == Arch::I386 {
                rval as u32 as u64
            } else {
                rval as u64
            };
            fds.remapped(args[0], args[1], args[2], args[3], new);
        }
        "ioctl" if matches!(args[1] as u32, DIAG_IOCSREG | DIAG_IOCSREG32) => {
            user_events::track_register(fds, mem, args[0] as i32, args[2]);
        }
        // Opens the pty's peer with the open flags in the argument.
        "ioctl" if args[1] as u32 == crate::abi::xlat::ioctl::TIOCGPTPEER => {
            track_new(fds, mem, fd, cloexec(args[2]))
        }
        // A map's, a program's, a link's... fd: the kernel makes every
        // one close-on-exec.
        "bpf" if crate::sysent::returns_fd(name, args) => track_new(fds, mem, fd, true),
        // CLOSE_RANGE_CLOEXEC only marks them; anything else closes.
        "close_range" if args[2] & CLOSE_RANGE_CLOEXEC == 0 => {
            let first = args[0].min(i32::MAX as u64) as i32;
            fds.remove_range(first, args[1].min(i32::MAX as u64) as i32);
        }
        "dup" | "dup2" => fds.dup(args[0] as i32, fd, false),
        "dup3" => fds.dup(args[0] as i32, fd, cloexec(args[2])),
        "fcntl" | "fcntl64" => match args[1] as u32 {
            // F_DUPFD, F_DUPFD_CLOEXEC
            0 => fds.dup(args[0] as i32, fd, false),
            1030 => fds.dup(args[0] as i32, fd, true),
            // F_SETFD
            2 => fds.set_cloexec(args[0] as i32, args[2] & 1 != 0),
            _ => {}
        },
        "pipe" | "pipe2" | "socketpair" => {
            let close_on_exec = name != "pipe" && cloexec(args[1]);
            if let Some(arg) = new_fd_pair_arg(name) {
                track_pair(fds, mem, args[arg], close_on_exec);
            }
        }
        // MFD_CLOEXEC is 1.
        "memfd_create" => {
            track_new(fds, mem, fd, args[1] & 1 != 0);
            if fds.known_path(fd).is_none() {
                // /proc no longer vouches (the BPF engine, the process
                // gone): the name the kernel gives every memfd.
                let name = mem.read_cstr(args[0], MEMFD_NAME_MAX + 1);
                if let Some((name, true)) = name {
                    fds.insert(fd, FdInfo::new(memfd_path(&name), args[1] & 1 != 0));
                }
            }
        }
        // Creators whose close-on-exec bit is not decoded here (or that
        // have none): what the fd is comes from /proc.
        "inotify_init" | "epoll_create" | "eventfd" | "userfaultfd" | "fanotify_init"
        | "perf_event_open" | "io_uring_setup" | "pidfd_getfd" | "open_tree" | "fsopen"
        | "fsmount" | "fspick" | "mq_open" | "open_by_handle_at" => track_new(fds, mem, fd, false),
        "inotify_init1" | "epoll_create1" => track_new(fds, mem, fd, cloexec(args[0])),
        "eventfd2" | "signalfd4" | "timerfd_create" => {
            let flags = if name == "signalfd4" {
                args[3]
            } else {
                args[1]
            };
            track_new(fds, mem, fd, cloexec(flags));
        }
        // An accepted socket is never a netlink socket.
        "accept4" => {
            track_new(fds, mem, fd, cloexec(args[3]));
            fds.set_socket(fd, FdKind::Socket);
        }
        "accept" => {
            track_new(fds, mem, fd, false);
            fds.set_socket(fd, FdKind::Socket);
        }
        "socket" => {
            track_new(fds, mem, fd, cloexec(args[1]));
            // AF_NETLINK: the protocol picks the message decoder.
            let kind = if args[0] as u32 == 16 {
                FdKind::Netlink(args[2] as u16)
            } else {
                FdKind::Socket
            };
            fds.set_socket(fd, kind);
        }
        "signalfd" => track_new(fds, mem, fd, false),
        // PIDFD_NONBLOCK is O_NONBLOCK; pidfds are always close-on-exec.
        "pidfd_open" => track_new(fds, mem, fd, true),
        _ => {}
    }
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("close", close_out, default_in, Normal),
    h("close_range", close_range_out, default_in, Normal),
    h("creat", creat_out, default_in, Normal),
    h("open", open_out, default_in, Normal),
    h("openat", openat_out, default_in, Normal),
    h("openat2", openat2_out, default_in, Normal),
    h("pread64", read_out, pread_in, Normal),
    h("pwrite64", pwrite_out, default_in, Normal),
    h("read", read_out, read_in, Normal),
    h("readv", readv_out, readv_in, Normal),
    h("preadv", readv_out, preadv_in, Normal),
    h("preadv2", readv_out, preadv2_in, Normal),
    h("write", write_out, default_in, Normal),
    h("writev", writev_out, default_in, Normal),
    h("pwritev", pwritev_out, default_in, Normal),
    h("pwritev2", pwritev2_out, default_in, Normal),
    h("vmsplice", vmsplice_out, default_in, Normal),
    h("lseek", lseek_out, default_in, Normal),
    h("_llseek", llseek_out, llseek_in, Normal),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_memfd_is_named_as_proc_names_it() {
        assert_eq!(memfd_path(b"calls"), b"/memfd:calls (deleted)");
    }
    use std::os::fd::AsRawFd;

    fn own() -> (FdTable, Memory) {
        let pid = std::process::id() as i32;
        (
            FdTable::new(pid),
            Memory::new(nix::unistd::Pid::from_raw(pid)),
        )
    }

    #[test]
    fn tracked_calls_are_real_calls() {
        for name in BOOKKEEPING {
            assert!(
                crate::service::number(Arch::X86_64, name).is_some()
                    || crate::service::number(Arch::I386, name).is_some(),
                "{name}"
            );
        }
    }

    #[test]
    fn pipe_fds_come_from_proc_with_their_cloexec_flag() {
        let (mut fds, mut mem) = own();
        let (r, w) = std::io::pipe().unwrap();
        let pair = [r.as_raw_fd(), w.as_raw_fd()];
        let args = [pair.as_ptr() as u64, O_CLOEXEC, 0, 0, 0, 0];
        track(
            "pipe2",
            Arch::X86_64,
            &args,
            &CallData::None,
            0,
            &mut fds,
            &mut mem,
        );
        for fd in pair {
            let info = fds.get(fd).unwrap();
            assert!(info.path.starts_with(b"pipe:["), "{:?}", info.path);
            assert!(info.cloexec);
        }
        // A closed number is forgotten; dup3 copies with its own flag.
        track(
            "close",
            Arch::X86_64,
            &[pair[1] as u64, 0, 0, 0, 0, 0],
            &CallData::None,
            0,
            &mut fds,
            &mut mem,
        );
        let args = [pair[0] as u64, 99, 0, 0, 0, 0];
        track(
            "dup3",
            Arch::X86_64,
            &args,
            &CallData::None,
            99,
            &mut fds,
            &mut mem,
        );
        let copy = fds.get(99).unwrap();
        assert!(copy.path.starts_with(b"pipe:[") && !copy.cloexec);
    }

    #[test]
    fn a_relative_open_is_recorded_by_its_absolute_path() {
        let (mut fds, mut mem) = own();
        let file = std::fs::File::open("Cargo.toml").unwrap();
        let fd = file.as_raw_fd();
        let data = CallData::Path(b"Cargo.toml".to_vec());
        let args = [0, 0, 0, 0, 0, 0];
        track(
            "open",
            Arch::X86_64,
            &args,
            &data,
            fd as i64,
            &mut fds,
            &mut mem,
        );
        let info = fds.get(fd).unwrap();
        assert!(
            info.path.starts_with(b"/") && info.path.ends_with(b"/Cargo.toml"),
            "{:?}",
            info.path
        );
        let data = CallData::Path(b"/dev/usbmon0".to_vec());
        track(
            "open",
            Arch::X86_64,
            &args,
            &data,
            fd as i64,
            &mut fds,
            &mut mem,
        );
        assert_eq!(fds.get(fd).unwrap().kind, FdKind::Usbmon);
    }
}
