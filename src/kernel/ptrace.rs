//! The ptrace requests other than a syscall-stop's details (`syscall.rs`)
//! and resuming (`stop.rs`): taking hold of a task (PTRACE_SEIZE,
//! PTRACE_INTERRUPT), what an event or signal stop carries (the event
//! message, the siginfo), the registers a stack walk starts from, a call
//! rewritten at its entry and put back at its exit; and killing a tracee.

use std::io;

use nix::unistd::Pid;

use super::syscall::Arch;

/// PTRACE_SEIZE with `options`.
pub fn seize(pid: Pid, options: libc::c_int) -> io::Result<()> {
    // SAFETY: PTRACE_SEIZE takes the options in `data` and no pointers.
    let r = unsafe {
        libc::ptrace(
            libc::PTRACE_SEIZE,
            pid.as_raw(),
            std::ptr::null_mut::<libc::c_void>(),
            options as libc::c_long as *mut libc::c_void,
        )
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// PTRACE_INTERRUPT: make a seized tracee stop soon.
pub fn interrupt(pid: Pid) -> io::Result<()> {
    nix::sys::ptrace::interrupt(pid).map_err(io::Error::from)
}

/// PTRACE_GETEVENTMSG: the new child's pid, or the former thread id at exec.
pub fn event_msg(pid: Pid) -> Option<i32> {
    nix::sys::ptrace::getevent(pid).ok().map(|v| v as i32)
}

/// `sizeof(siginfo_t)`: what PTRACE_GETSIGINFO copies.
pub const SIGINFO_SIZE: usize = 128;

/// PTRACE_GETSIGINFO at a signal-delivery stop: the `siginfo_t` the kernel
/// is delivering, as raw bytes in rtrace's own (x86_64) layout whatever
/// the tracee's ABI; `None` if the request fails (the process is gone).
pub fn siginfo(pid: Pid) -> Option<[u8; SIGINFO_SIZE]> {
    let mut buf = [0u8; SIGINFO_SIZE];
    // SAFETY: PTRACE_GETSIGINFO writes one siginfo_t (128 bytes) to `data`,
    // which points at a buffer of that size.
    let r = unsafe {
        libc::ptrace(
            libc::PTRACE_GETSIGINFO,
            pid.as_raw(),
            std::ptr::null_mut::<libc::c_void>(),
            buf.as_mut_ptr() as *mut libc::c_void,
        )
    };
    (r == 0).then_some(buf)
}

/// The registers a stack walk starts from, for `-k`, of a stopped tracee;
/// `None` if they cannot be read (the process is gone).
pub struct StackRegisters {
    /// The instruction pointer (rip, or eip zero-extended).
    pub ip: u64,
    /// The stack pointer.
    pub sp: u64,
    /// The frame pointer.
    pub bp: u64,
    /// The thread runs 32-bit code (its code segment is not the one
    /// 64-bit code, rtrace's own, runs with): its stack holds 4-byte words. Not the call's ABI:
    /// 64-bit code making an `int 0x80` call has a 64-bit stack.
    pub code32: bool,
    /// The general registers in DWARF's i386 numbering (eax, ecx, edx,
    /// ebx, esp, ebp, esi, edi, eip), each its low 32 bits: what libdw
    /// starts a 32-bit thread's walk from.
    pub i386: [u64; 9],
}

/// The code segment 64-bit user code runs with: rtrace's own (the
/// kernel's `__USER_CS`, read rather than typed: it is no UAPI number).
fn own_code_segment() -> u64 {
    let cs: u64;
    // SAFETY: reading the CS selector touches no memory and no flags.
    unsafe {
        std::arch::asm!("mov {0:r}, cs", out(reg) cs, options(nomem, nostack, preserves_flags));
    }
    cs & 0xffff
}

/// The registers of stopped tracee `pid` a stack walk starts from.
pub fn stack_registers(pid: Pid) -> Option<StackRegisters> {
    let regs = nix::sys::ptrace::getregs(pid).ok()?;
    Some(StackRegisters {
        ip: regs.rip,
        sp: regs.rsp,
        bp: regs.rbp,
        code32: regs.cs != own_code_segment(),
        i386: [
            regs.rax, regs.rcx, regs.rdx, regs.rbx, regs.rsp, regs.rbp, regs.rsi, regs.rdi,
            regs.rip,
        ]
        .map(|r| r & 0xffff_ffff),
    })
}

/// A tracee's registers at the syscall-enter stop of a call rtrace
/// rewrote ([`rewrite_call`]): what [`finish_rewritten`] puts back.
#[derive(Clone, Copy)]
pub struct SavedCall {
    regs: libc::user_regs_struct,
    arch: Arch,
}

/// The argument registers of a call made through `arch`, in order: the
/// ones both ABIs keep across a call, so the tracee must find them as it
/// left them. (A 64-bit `syscall` itself clobbers only rcx and r11.)
fn arg_registers(regs: &mut libc::user_regs_struct, arch: Arch) -> [&mut u64; 6] {
    let libc::user_regs_struct {
        rbx,
        rcx,
        rdx,
        rsi,
        rdi,
        rbp,
        r10,
        r8,
        r9,
        ..
    } = regs;
    match arch {
        Arch::I386 => [rbx, rcx, rdx, rsi, rdi, rbp],
        Arch::X86_64 | Arch::X32 => [rdi, rsi, rdx, r10, r8, r9],
    }
}

/// At a syscall-enter stop: make the tracee's call number `nr` instead
/// (-1: no call, which the kernel skips with -ENOSYS) and, if given, its
/// arguments `args`. Used only to emulate what the kernel would do
/// without rtrace's own seccomp filter (see `trace/own_seccomp.rs`).
pub fn rewrite_call(
    pid: Pid,
    arch: Arch,
    nr: i64,
    args: Option<[u64; 6]>,
) -> io::Result<SavedCall> {
    let saved = nix::sys::ptrace::getregs(pid).map_err(io::Error::from)?;
    let mut regs = saved;
    regs.orig_rax = nr as u64;
    if let Some(args) = args {
        for (reg, value) in arg_registers(&mut regs, arch).into_iter().zip(args) {
            *reg = value;
        }
    }
    nix::sys::ptrace::setregs(pid, regs).map_err(io::Error::from)?;
    Ok(SavedCall { regs: saved, arch })
}

/// At the syscall-exit stop of a call rewritten by [`rewrite_call`]: the
/// tracee sees `rval` as the call's result and its argument registers as
/// they were at entry.
pub fn finish_rewritten(pid: Pid, saved: &SavedCall, rval: i64) -> io::Result<()> {
    let mut regs = nix::sys::ptrace::getregs(pid).map_err(io::Error::from)?;
    let mut original = saved.regs;
    for (reg, value) in arg_registers(&mut regs, saved.arch)
        .into_iter()
        .zip(arg_registers(&mut original, saved.arch))
    {
        *reg = *value;
    }
    regs.rax = rval as u64;
    nix::sys::ptrace::setregs(pid, regs).map_err(io::Error::from)
}

/// Kill task `tid`'s whole thread group with SIGKILL (it may be stopped
/// for rtrace: SIGKILL wakes it, and a call it is entering does not run).
pub fn kill(tid: i32) {
    // SAFETY: plain kill.
    unsafe { libc::kill(tid, libc::SIGKILL) };
}
