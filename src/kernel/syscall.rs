//! A syscall-stop read as a value: which ABI the call came through
//! ([`Arch`]), its number and arguments or its result ([`SyscallStop`]),
//! from PTRACE_GET_SYSCALL_INFO where the kernel has it and from the
//! general registers on kernels before 5.3 (or when asked to, for tests).

use std::io;

use nix::unistd::Pid;

use crate::abi::xlat::process::{
    self, AUDIT_ARCH_I386, AUDIT_ARCH_X86_64, PTRACE_GET_SYSCALL_INFO,
};
/// `__X32_SYSCALL_BIT`: x32 calls use the x86_64 arch with this bit set.
pub const X32_SYSCALL_BIT: u64 = process::__X32_SYSCALL_BIT as u64;

/// The stop kinds PTRACE_GET_SYSCALL_INFO reports (`op`, a `__u8`).
const PTRACE_SYSCALL_INFO_ENTRY: u8 = process::PTRACE_SYSCALL_INFO_ENTRY as u8;
const PTRACE_SYSCALL_INFO_EXIT: u8 = process::PTRACE_SYSCALL_INFO_EXIT as u8;
const PTRACE_SYSCALL_INFO_SECCOMP: u8 = process::PTRACE_SYSCALL_INFO_SECCOMP as u8;

/// The system call ABI a stop belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arch {
    /// Native 64-bit calls.
    X86_64,
    /// i386 calls: a 32-bit binary, or `int 0x80` from a 64-bit one.
    I386,
    /// x32 calls (64-bit registers, 32-bit pointers); numbered like x86_64.
    X32,
}

/// What a syscall-stop tells about the call.
#[derive(Clone, Copy, Debug)]
pub enum SyscallOp {
    /// Entering a call: its number and six raw argument registers.
    Entry {
        /// The call's number, in the stop's architecture.
        nr: u64,
        /// The six argument registers, as the kernel saw them.
        args: [u64; 6],
    },
    /// Leaving a call: the raw return value (negative errno on failure).
    Exit {
        /// The return register: the result, or minus the errno.
        rval: i64,
    },
}

/// A syscall-stop, read in one request where the kernel allows it.
#[derive(Clone, Copy, Debug)]
pub struct SyscallStop {
    /// Which ABI the call was made through.
    pub arch: Arch,
    /// Instruction pointer at the stop (just after the syscall instruction).
    pub ip: u64,
    /// Stack pointer at the stop.
    pub sp: u64,
    /// Entry or exit details.
    pub op: SyscallOp,
}

/// `struct ptrace_syscall_info` from `<linux/ptrace.h>`, x86_64 layout.
#[repr(C)]
#[derive(Clone, Copy)]
struct RawSyscallInfo {
    op: u8,
    pad: [u8; 3],
    arch: u32,
    instruction_pointer: u64,
    stack_pointer: u64,
    /// entry: nr, args[6]; exit: rval, is_error; seccomp: nr, args[6], ret_data.
    data: [u64; 8],
}

fn arch_from_audit(audit: u32, nr: u64) -> Arch {
    match audit {
        AUDIT_ARCH_I386 => Arch::I386,
        AUDIT_ARCH_X86_64 if nr & X32_SYSCALL_BIT != 0 => Arch::X32,
        _ => Arch::X86_64,
    }
}

/// Whether PTRACE_GET_SYSCALL_INFO is known to be missing on this kernel
/// (or is not to be used).
static NO_SYSCALL_INFO: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Decode every syscall stop from the registers, as on kernels before 5.3
/// that lack PTRACE_GET_SYSCALL_INFO: how that path is tested on newer ones.
pub fn decode_from_registers() {
    NO_SYSCALL_INFO.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Read the details of a syscall-stop. `entering` is the engine's own idea of
/// the direction, used only when the kernel is too old to say (pre-5.3).
pub fn syscall_stop(pid: Pid, entering: bool) -> io::Result<SyscallStop> {
    use std::sync::atomic::Ordering;
    if !NO_SYSCALL_INFO.load(Ordering::Relaxed) {
        let mut raw = RawSyscallInfo {
            op: 0,
            pad: [0; 3],
            arch: 0,
            instruction_pointer: 0,
            stack_pointer: 0,
            data: [0; 8],
        };
        // SAFETY: the kernel writes at most the size we pass into `raw`,
        // which is a plain-old-data struct of exactly that size.
        let r = unsafe {
            libc::ptrace(
                PTRACE_GET_SYSCALL_INFO,
                pid.as_raw(),
                std::mem::size_of::<RawSyscallInfo>(),
                &mut raw as *mut RawSyscallInfo,
            )
        };
        if r > 0 {
            let op = match raw.op {
                PTRACE_SYSCALL_INFO_ENTRY | PTRACE_SYSCALL_INFO_SECCOMP => SyscallOp::Entry {
                    nr: raw.data[0],
                    args: [
                        raw.data[1],
                        raw.data[2],
                        raw.data[3],
                        raw.data[4],
                        raw.data[5],
                        raw.data[6],
                    ],
                },
                PTRACE_SYSCALL_INFO_EXIT => SyscallOp::Exit {
                    rval: raw.data[0] as i64,
                },
                _ => return Err(io::Error::from_raw_os_error(libc::EINVAL)),
            };
            let nr = match op {
                SyscallOp::Entry { nr, .. } => nr,
                SyscallOp::Exit { .. } => 0,
            };
            let arch = arch_from_audit(raw.arch, nr);
            // An i386 call uses only the low 32 bits of each register; the
            // kernel reports whatever the upper halves held.
            let op = match (arch, op) {
                (Arch::I386, SyscallOp::Entry { nr, args }) => SyscallOp::Entry {
                    nr,
                    args: args.map(|a| a & 0xffff_ffff),
                },
                (Arch::I386, SyscallOp::Exit { rval }) => SyscallOp::Exit {
                    rval: rval as i32 as i64,
                },
                (_, op) => op,
            };
            return Ok(SyscallStop {
                arch,
                ip: raw.instruction_pointer,
                sp: raw.stack_pointer,
                op,
            });
        }
        let err = io::Error::last_os_error();
        if err.raw_os_error() != Some(libc::EIO) {
            return Err(err);
        }
        NO_SYSCALL_INFO.store(true, Ordering::Relaxed);
    }
    syscall_stop_from_regs(pid, entering)
}

/// Pre-5.3 fallback: decode the stop from the general registers.
fn syscall_stop_from_regs(pid: Pid, entering: bool) -> io::Result<SyscallStop> {
    let regs = nix::sys::ptrace::getregs(pid).map_err(io::Error::from)?;
    // A 32-bit code segment selector means a 32-bit process; int 0x80 from a
    // 64-bit process cannot be told apart here, which is why the syscall-info
    // request is preferred.
    let compat = regs.cs == 0x23;
    let arch = if compat {
        Arch::I386
    } else if regs.orig_rax & X32_SYSCALL_BIT != 0 {
        Arch::X32
    } else {
        Arch::X86_64
    };
    // At an entry the kernel has already set the result register to
    // -ENOSYS. Anything else there means an exit the engine took for an
    // entry; reporting it as an exit lets the engine fall back into step
    // (it drops an exit with no call) instead of swapping every call after.
    let entering = entering && regs.rax as i64 == -i64::from(libc::ENOSYS);
    let op = if entering {
        let args = if compat {
            [regs.rbx, regs.rcx, regs.rdx, regs.rsi, regs.rdi, regs.rbp].map(|r| r & 0xffff_ffff)
        } else {
            [regs.rdi, regs.rsi, regs.rdx, regs.r10, regs.r8, regs.r9]
        };
        SyscallOp::Entry {
            nr: regs.orig_rax,
            args,
        }
    } else {
        let rval = if compat {
            regs.rax as u32 as i32 as i64
        } else {
            regs.rax as i64
        };
        SyscallOp::Exit { rval }
    };
    Ok(SyscallStop {
        arch,
        ip: regs.rip,
        sp: regs.rsp,
        op,
    })
}
