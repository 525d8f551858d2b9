//! File handlers: open, openat, creat, close, read, write, their positional
//! and vectored forms, and the fd-table bookkeeping of the calls that make
//! and destroy fds.

use crate::call::{CallClass::Normal, Handler, default_in};
use crate::call::{CallCtx, CallData, CallType};
use crate::fdtable::{FdInfo, FdKind, FdTable};
use crate::format::{FlagDef, Naming, Printer, flag};
use crate::ioctl::user_events;
use crate::kernel::{Arch, Memory};
use crate::service::generic::{put_dirfd, put_fd};
use crate::service::h;

/// `O_*` open flags from `<asm-generic/fcntl.h>` (x86).
pub const OPEN_FLAGS: &[FlagDef] = &[
    FlagDef {
        mask: 3,
        value: 0,
        name: "O_RDONLY",
    },
    FlagDef {
        mask: 3,
        value: 1,
        name: "O_WRONLY",
    },
    FlagDef {
        mask: 3,
        value: 2,
        name: "O_RDWR",
    },
    flag(0o100, "O_CREAT"),
    flag(0o200, "O_EXCL"),
    flag(0o400, "O_NOCTTY"),
    flag(0o1000, "O_TRUNC"),
    flag(0o2000, "O_APPEND"),
    flag(0o4000, "O_NONBLOCK"),
    flag(0o10000, "O_DSYNC"),
    flag(0o20000, "O_ASYNC"),
    flag(0o40000, "O_DIRECT"),
    flag(0o100000, "O_LARGEFILE"),
    FlagDef {
        mask: 0o20200000,
        value: 0o20200000,
        name: "O_TMPFILE",
    },
    flag(0o200000, "O_DIRECTORY"),
    flag(0o400000, "O_NOFOLLOW"),
    flag(0o1000000, "O_NOATIME"),
    flag(0o2000000, "O_CLOEXEC"),
    FlagDef {
        mask: 0o4010000,
        value: 0o4010000,
        name: "O_SYNC",
    },
    flag(0o10000000, "O_PATH"),
];

const O_CREAT: u64 = 0o100;
const O_TMPFILE: u64 = 0o20200000;
const O_CLOEXEC: u64 = 0o2000000;

fn put_open_flags_mode(p: &mut Printer, flags: u64, mode: u64) {
    p.flags("flags", flags, OPEN_FLAGS);
    if flags & O_CREAT != 0 || flags & O_TMPFILE == O_TMPFILE {
        p.mode("mode", mode);
    }
}

fn save_path(p: &mut Printer, c: &mut CallCtx, addr: u64) {
    if let Some((bytes, true)) = p.mem().read_cstr(addr, 4096) {
        *c.data = CallData::Path(String::from_utf8_lossy(&bytes).into_owned());
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
    put_dirfd(p, "dirfd", c.int(0));
    p.path("pathname", c.args[1]);
    put_open_flags_mode(p, c.args[2], c.args[3]);
    save_path(p, c, c.args[1]);
    CallType::Done
}

/// `creat(pathname, mode)`
pub fn creat_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.path("pathname", c.args[0]);
    p.mode("mode", c.args[1]);
    save_path(p, c, c.args[0]);
    CallType::Done
}

/// `close(fd)`
pub fn close_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    CallType::Done
}

/// `read(fd, buf, count)`: the buffer is printed at leave, as much as was read.
pub fn read_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    CallType::NotDone
}

/// Leave half of read/pread64: `"data", count[, offset]) = n`.
pub fn read_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if failed {
        p.ptr("buf", c.args[1]);
    } else {
        p.buf("buf", c.args[1], c.result as u64);
    }
    p.uint("count", c.args[2]);
    if c.nr_is_pread() {
        p.int("offset", c.args[3] as i64);
    }
    p.equals();
    p.result(c.result);
    if !failed
        && c.fds
            .get(c.int(0) as i32)
            .is_some_and(|info| info.kind == FdKind::Usbmon)
    {
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

/// `write(fd, buf, count)`, `pwrite64(fd, buf, count, offset)`
pub fn write_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
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
        p.buf("buf", c.args[1], c.args[2]);
    }
    p.uint("count", c.args[2]);
    if c.nr_is_pread() {
        p.int("offset", c.args[3] as i64);
    }
    CallType::Done
}

/// Print an iovec array; `limit` caps the bytes shown across all buffers
/// (what a read returned), `None` shows each buffer's full length.
fn put_iovecs(p: &mut Printer, name: &str, addr: u64, count: u64, limit: Option<u64>) {
    let word = if p.arch() == Arch::X86_64 { 8 } else { 4 };
    let arch = p.arch();
    if addr == 0 || count > 1024 || p.config().values_only >= 2 {
        p.ptr(name, addr);
        return;
    }
    // Check the array is readable before opening it, so a fault prints a pointer.
    let mut probe = vec![0u8; (count * 2 * word) as usize];
    if !p.mem().read_exact(addr, &mut probe) {
        p.ptr(name, addr);
        return;
    }
    p.open(name, "[", Naming::Elements);
    let mut left = limit;
    let shown = count.min(if p.config().verbose > 0 { 1024 } else { 8 });
    for i in 0..shown {
        let at = addr + i * 2 * word;
        let base = p.mem().read_word(at, arch).unwrap_or(0);
        let len = p.mem().read_word(at + word, arch).unwrap_or(0);
        p.open("", "{", Naming::Fields);
        match left {
            Some(l) => {
                p.buf("iov_base", base, len.min(l));
                left = Some(l - len.min(l));
            }
            None => p.buf("iov_base", base, len),
        }
        p.uint("iov_len", len);
        p.close("}");
    }
    if shown < count {
        p.more();
    }
    p.close("]");
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

/// `readv(fd, iov, iovcnt)`: the buffers are printed at leave.
pub fn readv_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    CallType::NotDone
}

/// Leave half of readv.
pub fn readv_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if failed {
        p.ptr("iov", c.args[1]);
    } else {
        put_iovecs(p, "iov", c.args[1], c.args[2], Some(c.result as u64));
    }
    p.uint("iovcnt", c.args[2]);
    p.equals();
    p.result(c.result);
}

impl CallCtx<'_> {
    /// Whether this is a positional read or write (it has an offset).
    fn nr_is_pread(&self) -> bool {
        matches!(
            (self.arch, self.nr),
            (Arch::X86_64, 17 | 18) | (Arch::I386, 180 | 181)
        )
    }
}

/// Apply a successful call's effect on the fd table. Runs for every call,
/// printed or not: bookkeeping is not printing.
pub fn track(
    name: &str,
    args: &[u64; 6],
    data: &CallData,
    rval: i64,
    fds: &mut FdTable,
    mem: &mut Memory,
) {
    let fd = rval as i32;
    match name {
        "open" | "openat" | "creat" | "openat2" => {
            if let CallData::Path(path) = data {
                let flags = match name {
                    "open" => args[1],
                    "openat" => args[2],
                    _ => 0,
                };
                fds.insert(fd, FdInfo::new(path.clone(), flags & O_CLOEXEC != 0));
            }
        }
        "close" => fds.remove(args[0] as i32),
        "mmap" | "mmap2" if args[4] as i32 >= 0 && args[3] & 0x20 == 0 => {
            fds.mapped(args[4] as i32, rval as u64, args[1]);
        }
        "munmap" => fds.unmapped(args[0], args[1]),
        "ioctl" if matches!(args[1] as u32, user_events::DIAG_IOCSREG | 0xC004_2A00) => {
            user_events::track_register(fds, mem, args[0] as i32, args[2]);
        }
        // CLOSE_RANGE_CLOEXEC (4) only marks them; anything else closes.
        "close_range" if args[2] & 4 == 0 => {
            fds.remove_range(args[0] as i32, args[1].min(i32::MAX as u64) as i32);
        }
        "dup" => fds.dup(args[0] as i32, fd, false),
        "dup2" => fds.dup(args[0] as i32, fd, false),
        "dup3" => fds.dup(args[0] as i32, fd, args[2] & O_CLOEXEC != 0),
        "fcntl" | "fcntl64" => match args[1] {
            // F_DUPFD, F_DUPFD_CLOEXEC
            0 => fds.dup(args[0] as i32, fd, false),
            1030 => fds.dup(args[0] as i32, fd, true),
            // F_SETFD
            2 => fds.set_cloexec(args[0] as i32, args[2] & 1 != 0),
            _ => {}
        },
        _ => {}
    }
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("close", close_out, default_in, Normal),
    h("creat", creat_out, default_in, Normal),
    h("open", open_out, default_in, Normal),
    h("openat", openat_out, default_in, Normal),
    h("pread64", read_out, read_in, Normal),
    h("pwrite64", write_out, default_in, Normal),
    h("read", read_out, read_in, Normal),
    h("readv", readv_out, readv_in, Normal),
    h("write", write_out, default_in, Normal),
    h("writev", writev_out, default_in, Normal),
];
