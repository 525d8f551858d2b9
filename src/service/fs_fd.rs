//! Calls on the fd itself: fcntl (every command by name, with its argument
//! and extended result), flock, the dup family and pipe/pipe2.
//!
//! Their effects on the fd table are applied in `fs::track`.

use crate::abi::xlat::fs::{
    DN_FLAGS, FCNTL_CMDS, FD_FLAGS, LOCK_OPS, LOCK_TYPES, OPEN_FLAGS, OPEN_MODE_FLAGS, OWNER_TYPES,
    PIPE_FLAGS, RW_HINTS, SEAL_FLAGS, SEEK_NAMES,
};
use crate::call::{CallClass::Normal, Handler, default_in};
use crate::call::{CallCtx, CallType};
use crate::decode::put_extended;
use crate::decode::put_fd;
use crate::decode::{put_signal, signal_name};
use crate::format::{Naming, Printer};
use crate::kernel::Arch;
use crate::service::fs::{name_of, put_enum, put_fd_pair, put_result};
use crate::service::h;
use crate::service::{ByValue, Mem};

/// What a command's third argument is, and what its result means.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Arg {
    /// No argument.
    None,
    /// A number (F_DUPFD's lowest fd, F_SETPIPE_SZ, F_SETOWN).
    Int,
    /// An fd (F_DUPFD_QUERY's other fd).
    Fd,
    /// `FD_CLOEXEC` (F_SETFD).
    FdFlags,
    /// `O_*` status flags (F_SETFL).
    OpenFlags,
    /// A lock to set: `struct flock` printed at enter.
    SetLock,
    /// A lock to test: printed at leave, as the kernel answered.
    GetLock,
    /// A signal (F_SETSIG).
    Signal,
    /// `struct f_owner_ex` at enter (F_SETOWN_EX).
    SetOwnerEx,
    /// `struct f_owner_ex` at leave (F_GETOWN_EX).
    GetOwnerEx,
    /// A lease type (F_SETLEASE).
    Lease,
    /// `DN_*` events (F_NOTIFY).
    Notify,
    /// `F_SEAL_*` (F_ADD_SEALS).
    Seals,
    /// A `u64` hint behind a pointer, at enter (F_SET_RW_HINT).
    SetHint,
    /// A `u64` hint behind a pointer, at leave (F_GET_RW_HINT).
    GetHint,
    /// Anything else: the raw value.
    Hex,
}

/// How a command's successful result is explained after it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ret {
    Plain,
    FdFlags,
    OpenFlags,
    Lease,
    Seals,
    Signal,
}

fn command(cmd: u64) -> (Arg, Ret) {
    match cmd {
        0 | 1030 => (Arg::Int, Ret::Plain),
        1 => (Arg::None, Ret::FdFlags),
        2 => (Arg::FdFlags, Ret::Plain),
        3 => (Arg::None, Ret::OpenFlags),
        4 => (Arg::OpenFlags, Ret::Plain),
        5 | 12 | 36 => (Arg::GetLock, Ret::Plain),
        6 | 7 | 13 | 14 | 37 | 38 => (Arg::SetLock, Ret::Plain),
        8 | 1031 => (Arg::Int, Ret::Plain),
        9 | 1032 | 1028 => (Arg::None, Ret::Plain),
        10 => (Arg::Signal, Ret::Plain),
        11 => (Arg::None, Ret::Signal),
        15 => (Arg::SetOwnerEx, Ret::Plain),
        16 => (Arg::GetOwnerEx, Ret::Plain),
        1024 => (Arg::Lease, Ret::Plain),
        1025 => (Arg::None, Ret::Lease),
        1026 => (Arg::Notify, Ret::Plain),
        1027 => (Arg::Fd, Ret::Plain),
        1033 => (Arg::Seals, Ret::Plain),
        1034 => (Arg::None, Ret::Seals),
        1035 | 1037 => (Arg::GetHint, Ret::Plain),
        1036 | 1038 => (Arg::SetHint, Ret::Plain),
        _ => (Arg::Hex, Ret::Plain),
    }
}

/// What the decoders read behind fcntl's argument, by command
/// (`service::ByValue`), from [`command`]'s kinds: the BPF engine copies
/// these. A lock is copied at x86_64's size, the largest of its layouts:
/// of an i386 program's, the bytes after it are copied and not read.
pub fn memory() -> Vec<ByValue> {
    FCNTL_CMDS
        .iter()
        .filter_map(|&(cmd, _)| {
            let mem = match command(cmd).0 {
                Arg::SetLock => Mem::In(FLOCK_64.size),
                Arg::GetLock => Mem::Out(FLOCK_64.size),
                Arg::SetOwnerEx => Mem::In(OWNER_EX_SIZE),
                Arg::GetOwnerEx => Mem::Out(OWNER_EX_SIZE),
                Arg::SetHint => Mem::In(HINT_SIZE),
                Arg::GetHint => Mem::Out(HINT_SIZE),
                _ => return None,
            };
            Some(ByValue {
                selector: 1,
                value: cmd,
                arg: 2,
                mem,
            })
        })
        .collect()
}

/// `struct f_owner_ex`: a type and a pid.
const OWNER_EX_SIZE: usize = 8;
/// A write-life hint: a `u64`.
const HINT_SIZE: usize = 8;

/// Where `struct flock` keeps l_type, l_whence, l_start, l_len, l_pid.
struct FlockLayout {
    size: usize,
    start: usize,
    len: usize,
    pid: usize,
    word: usize,
}

/// `struct flock` on x86_64 (`<asm-generic/fcntl.h>`, 64-bit off_t).
const FLOCK_64: FlockLayout = FlockLayout {
    size: 32,
    start: 8,
    len: 16,
    pid: 24,
    word: 8,
};
/// `struct flock` on i386 (32-bit off_t).
const FLOCK_I386: FlockLayout = FlockLayout {
    size: 16,
    start: 4,
    len: 8,
    pid: 12,
    word: 4,
};
/// `struct flock64` on i386 (64-bit offsets aligned to 4).
const FLOCK64_I386: FlockLayout = FlockLayout {
    size: 24,
    start: 4,
    len: 12,
    pid: 20,
    word: 8,
};

fn flock_layout(c: &CallCtx, fcntl64: bool) -> &'static FlockLayout {
    let cmd = c.args[1] & 0xffff_ffff;
    match c.arch {
        Arch::I386 if matches!(cmd, 12..=14) || (fcntl64 && matches!(cmd, 36..=38)) => {
            &FLOCK64_I386
        }
        Arch::I386 => &FLOCK_I386,
        _ => &FLOCK_64,
    }
}

fn le(d: &[u8], off: usize, size: usize) -> i64 {
    let mut b = [0u8; 8];
    b[..size].copy_from_slice(&d[off..off + size]);
    let shift = 64 - 8 * size as u32;
    ((u64::from_le_bytes(b) << shift) as i64) >> shift
}

/// `{l_type=F_WRLCK, l_whence=SEEK_SET, l_start=0, l_len=0[, l_pid=N]}`
fn put_flock(p: &mut Printer, addr: u64, l: &FlockLayout, with_pid: bool) {
    let mut d = vec![0u8; l.size];
    if addr == 0 || p.config().values_only >= 2 || !p.mem().read_exact(addr, &mut d) {
        p.ptr("arg", addr);
        return;
    }
    p.open("arg", "{", Naming::Fields);
    put_enum(p, "l_type", le(&d, 0, 2), LOCK_TYPES);
    put_enum(p, "l_whence", le(&d, 2, 2), SEEK_NAMES);
    p.int("l_start", le(&d, l.start, l.word));
    p.int("l_len", le(&d, l.len, l.word));
    if with_pid {
        p.pid_field("l_pid", le(&d, l.pid, 4));
    }
    p.close("}");
}

/// `{type=F_OWNER_PID, pid=42}`
fn put_owner_ex(p: &mut Printer, addr: u64) {
    if let Some(d) = p.open_struct::<OWNER_EX_SIZE>("arg", addr) {
        put_enum(p, "type", le(&d, 0, 4), OWNER_TYPES);
        p.pid_field("pid", le(&d, 4, 4));
        p.close_struct(true);
    }
}

/// `[RWH_WRITE_LIFE_SHORT]`: a `u64` write-life hint behind a pointer.
fn put_hint(p: &mut Printer, addr: u64) {
    let mut b = [0u8; HINT_SIZE];
    if addr == 0 || p.config().values_only >= 2 || !p.mem().read_exact(addr, &mut b) {
        p.ptr("arg", addr);
        return;
    }
    let hint = u64::from_le_bytes(b);
    p.open("arg", "[", Naming::Elements);
    p.symbol("", hint as i64, name_of(hint, RW_HINTS));
    p.close("]");
}

fn fcntl_enter(p: &mut Printer, c: &mut CallCtx, fcntl64: bool) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    let cmd = c.args[1] & 0xffff_ffff;
    put_enum(p, "cmd", cmd as i64, FCNTL_CMDS);
    let arg = c.args[2];
    let int = c.int(2);
    match command(cmd).0 {
        Arg::None => {}
        Arg::Int => p.int("arg", int),
        Arg::Fd => put_fd(p, c.fds, "arg", int),
        Arg::FdFlags => p.flags("arg", arg & 0xffff_ffff, FD_FLAGS),
        Arg::OpenFlags => p.flags("arg", arg & 0xffff_ffff, OPEN_FLAGS),
        Arg::SetLock => put_flock(p, arg, flock_layout(c, fcntl64), false),
        Arg::Signal => put_signal(p, "arg", int),
        Arg::SetOwnerEx => put_owner_ex(p, arg),
        Arg::Lease => put_enum(p, "arg", int, LOCK_TYPES),
        Arg::Notify => p.flags("arg", arg & 0xffff_ffff, DN_FLAGS),
        Arg::Seals => p.flags("arg", arg & 0xffff_ffff, SEAL_FLAGS),
        Arg::SetHint => put_hint(p, arg),
        Arg::Hex => p.hex("arg", arg),
        Arg::GetLock | Arg::GetOwnerEx | Arg::GetHint => return CallType::NotDone,
    }
    CallType::Done
}

fn fcntl_leave(p: &mut Printer, c: &mut CallCtx, failed: bool, fcntl64: bool) {
    let cmd = c.args[1] & 0xffff_ffff;
    let (arg, ret) = command(cmd);
    if failed && !p.equals_printed() {
        p.ptr("arg", c.args[2]);
    } else {
        match arg {
            Arg::GetLock => put_flock(p, c.args[2], flock_layout(c, fcntl64), true),
            Arg::GetOwnerEx => put_owner_ex(p, c.args[2]),
            Arg::GetHint => put_hint(p, c.args[2]),
            _ => {}
        }
    }
    put_result(p, c);
    // The explanation repeats the result: only worth it as symbols.
    if failed || !p.symbols() {
        return;
    }
    let value = c.result as u64;
    match ret {
        Ret::Plain => {}
        Ret::FdFlags | Ret::Seals if value == 0 => {}
        Ret::FdFlags => put_extended(p, "flags", |p, n| p.flags(n, value, FD_FLAGS)),
        Ret::OpenFlags => put_extended(p, "flags", |p, n| p.flags(n, value, OPEN_FLAGS)),
        Ret::Seals => put_extended(p, "seals", |p, n| p.flags(n, value, SEAL_FLAGS)),
        Ret::Lease => put_extended(p, "lease", |p, n| {
            p.symbol(n, value as i64, name_of(value, LOCK_TYPES))
        }),
        Ret::Signal => {
            if let Some(name) = signal_name(value as i32).filter(|_| value != 0) {
                put_extended(p, "signal", |p, n| p.field(n, &name));
            }
        }
    }
}

/// `fcntl(fd, cmd, arg)`: `fcntl(3, F_SETFD, FD_CLOEXEC)`,
/// `fcntl(3, F_GETFL) = 32770 (O_RDWR|O_LARGEFILE)`,
/// `fcntl(3, F_GETLK, {l_type=F_UNLCK, ..., l_pid=0}) = 0`.
pub fn fcntl_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    fcntl_enter(p, c, false)
}

/// Leave half of fcntl: a queried struct, the result and what it means.
pub fn fcntl_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    fcntl_leave(p, c, failed, false);
}

/// `fcntl64(fd, cmd, arg)` (i386: the `*64` and OFD locks use flock64).
pub fn fcntl64_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    fcntl_enter(p, c, true)
}

/// Leave half of fcntl64.
pub fn fcntl64_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    fcntl_leave(p, c, failed, true);
}

/// `flock(fd, operation)`: `flock(3, LOCK_EX|LOCK_NB)`.
pub fn flock_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    p.flags("operation", c.args[1] & 0xffff_ffff, LOCK_OPS);
    CallType::Done
}

/// `dup(oldfd)`
pub fn dup_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "oldfd", c.int(0));
    CallType::Done
}

/// `dup2(oldfd, newfd)`
pub fn dup2_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "oldfd", c.int(0));
    put_fd(p, c.fds, "newfd", c.int(1));
    CallType::Done
}

/// `dup3(oldfd, newfd, flags)`: the flags by the `O_*` names (less the
/// access mode), as strace shows them, so a wrong flag the kernel refuses
/// is named too (`O_TRUNC|O_CLOEXEC`).
pub fn dup3_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    dup2_out(p, c);
    p.flags("flags", c.args[2] & 0xffff_ffff, OPEN_MODE_FLAGS);
    CallType::Done
}

/// `pipe(pipefd)`, `pipe2(pipefd, flags)`: the fds print at leave.
pub fn pipe_out(_p: &mut Printer, _c: &mut CallCtx) -> CallType {
    CallType::NotDone
}

fn put_pipefd(p: &mut Printer, c: &CallCtx, failed: bool) {
    if failed {
        p.ptr("pipefd", c.args[0]);
    } else {
        put_fd_pair(p, c.fds, "pipefd", c.args[0]);
    }
}

/// Leave half of pipe: `pipe([3, 4]) = 0`.
pub fn pipe_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    put_pipefd(p, c, failed);
    put_result(p, c);
}

/// Leave half of pipe2: `pipe2([3, 4], O_CLOEXEC) = 0`.
pub fn pipe2_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    put_pipefd(p, c, failed);
    p.flags("flags", c.args[1] & 0xffff_ffff, PIPE_FLAGS);
    put_result(p, c);
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("fcntl", fcntl_out, fcntl_in, Normal),
    h("fcntl64", fcntl64_out, fcntl64_in, Normal),
    h("flock", flock_out, default_in, Normal),
    h("dup", dup_out, default_in, Normal),
    h("dup2", dup2_out, default_in, Normal),
    h("dup3", dup3_out, default_in, Normal),
    h("pipe", pipe_out, pipe_in, Normal),
    h("pipe2", pipe_out, pipe2_in, Normal),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locks_owners_and_hints_are_copied_when_their_decoder_reads_them() {
        let memory = memory();
        let mem_of = |cmd: u64| memory.iter().find(|m| m.value == cmd).map(|m| m.mem);
        // F_SETLK, F_GETLK, F_SETOWN_EX, F_GET_RW_HINT.
        assert_eq!(mem_of(6), Some(Mem::In(32)));
        assert_eq!(mem_of(5), Some(Mem::Out(32)));
        assert_eq!(mem_of(15), Some(Mem::In(8)));
        assert_eq!(mem_of(1035), Some(Mem::Out(8)));
        // F_SETFL's argument is a number.
        assert_eq!(mem_of(4), None);
        assert!(memory.iter().all(|m| m.selector == 1 && m.arg == 2));
    }
}
