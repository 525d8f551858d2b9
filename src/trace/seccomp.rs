//! The seccomp-bpf fast path: a filter that stops a started tracee only on
//! the calls that are printed or that rtrace's bookkeeping needs.
//!
//! The child installs it right before its exec (with no-new-privs, as
//! strace does, unless it has CAP_SYS_ADMIN); it is inherited by every
//! child. What the tracee could see of it is answered as untraced in
//! `own_seccomp.rs`. Selected calls return
//! SECCOMP_RET_TRACE (a PTRACE_EVENT_SECCOMP stop at entry); all others run
//! at full speed (SECCOMP_RET_ALLOW) and the engine resumes with PTRACE_CONT.

use crate::kernel::Arch;
use crate::select::TraceSet;
use crate::service;

use crate::abi::layout::offset;
use crate::abi::xlat::bpf::{
    BPF_ABS, BPF_JA, BPF_JEQ, BPF_JGE, BPF_JMP, BPF_K, BPF_LD, BPF_RET, BPF_W, SECCOMP_DATA,
    SECCOMP_RET_ALLOW as RET_ALLOW, SECCOMP_RET_TRACE as RET_TRACE,
};
use crate::abi::xlat::process::{
    __X32_SYSCALL_BIT as X32_SYSCALL_BIT, AUDIT_ARCH_I386, AUDIT_ARCH_X86_64,
};
/// Offsets in `struct seccomp_data`.
const DATA_NR: u32 = offset(SECCOMP_DATA, "nr") as u32;
const DATA_ARCH: u32 = offset(SECCOMP_DATA, "arch") as u32;
/// The instructions the filter is made of.
const LD_W_ABS: u16 = BPF_LD | BPF_W | BPF_ABS;
const JMP_JEQ_K: u16 = BPF_JMP | BPF_JEQ | BPF_K;
const JMP_JGE_K: u16 = BPF_JMP | BPF_JGE | BPF_K;
const RET_K: u16 = BPF_RET | BPF_K;

// The bookkeeping calls (`service::fs::BOOKKEEPING`: opens, closes, dups,
// mmap/mremap/munmap, ioctl, ...) come in `extra`: they stop whether or not
// they are printed, so the fd table is the same as without the filter. A
// selected call interrupted by a signal is
// followed by the engine itself: that thread is resumed with PTRACE_SYSCALL
// until the call restarts or ends, so rt_sigreturn and restart_syscall stop
// only then, not on every signal handler's return.

/// Calls that stop whatever is selected: the tracee's own seccomp use,
/// which the engine must see to keep the fast path from losing calls or
/// being seen (`own_seccomp.rs`): a filter of its own, strict mode and
/// PR_GET_SECCOMP (prctl).
pub const ALWAYS_STOPPED: &[&str] = &["seccomp", "prctl"];

fn stmt(code: u16, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter { code, jt, jf, k }
}

/// The numbers of `arch`'s calls that must stop: the selected ones, i386's
/// socketcall or ipc when a call it stands for is selected, and `extra` (calls
/// the engine needs to see, printed or not).
pub fn traced_numbers(arch: Arch, set: &TraceSet, extra: &[&str]) -> Vec<u32> {
    let socket_calls = service::net::SOCKETCALLS
        .iter()
        .any(|&(name, _, _)| set.contains(name));
    let ipc_calls = service::ipc::IPC_SUBCALLS_BY_CALL
        .iter()
        .any(|(.., sub)| set.contains(sub.name));
    service::all_calls(arch)
        .filter(|(_, name)| {
            set.contains(name)
                || extra.contains(name)
                || (socket_calls && *name == "socketcall")
                || (ipc_calls && *name == "ipc")
        })
        .map(|(nr, _)| nr as u32)
        .collect()
}

/// Append `jeq nr -> RET_TRACE` checks for `numbers`, then `RET_ALLOW`.
/// Each check is followed by its own return, so every jump is short.
fn checks(prog: &mut Vec<libc::sock_filter>, numbers: &[u32]) {
    for &nr in numbers {
        prog.push(jump(JMP_JEQ_K, nr, 0, 1));
        prog.push(stmt(RET_K, RET_TRACE));
    }
    prog.push(stmt(RET_K, RET_ALLOW));
}

/// `BPF_JMP|BPF_JA`: jump forward by `k` instructions.
const JMP_JA: u16 = BPF_JMP | BPF_JA;

/// The filter program for a trace set, for x86_64 and i386 callers.
///
/// ```text
/// 0  ld arch
/// 1  jeq X86_64 ? 3 : 2
/// 2  ja compat                      (a long jump: the section may be long)
/// 3  ld nr
/// 4  jge X32_BIT ? 5 : 6            x32 calls are all traced
/// 5  ret TRACE
/// 6  (jeq NR ? next : skip; ret TRACE)*  ret ALLOW
/// compat:
///    jeq I386 ? +2 : +1;  ret ALLOW;  ld nr;  (jeq NR; ret TRACE)*  ret ALLOW
/// ```
pub fn program(set: &TraceSet, extra: &[&str]) -> Vec<libc::sock_filter> {
    let native = traced_numbers(Arch::X86_64, set, extra);
    let compat = traced_numbers(Arch::I386, set, extra);
    let mut prog = vec![
        stmt(LD_W_ABS, DATA_ARCH),
        jump(JMP_JEQ_K, AUDIT_ARCH_X86_64, 1, 0),
        stmt(JMP_JA, 4 + 2 * native.len() as u32),
        stmt(LD_W_ABS, DATA_NR),
        jump(JMP_JGE_K, X32_SYSCALL_BIT, 0, 1),
        stmt(RET_K, RET_TRACE),
    ];
    checks(&mut prog, &native);
    debug_assert_eq!(prog.len(), 7 + 2 * native.len());
    prog.push(jump(JMP_JEQ_K, AUDIT_ARCH_I386, 1, 0));
    prog.push(stmt(RET_K, RET_ALLOW));
    prog.push(stmt(LD_W_ABS, DATA_NR));
    checks(&mut prog, &compat);
    prog
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Run a BPF program the way the kernel would, for the opcodes we emit.
    fn run(prog: &[libc::sock_filter], arch: u32, nr: u32) -> u32 {
        let mut acc = 0u32;
        let mut pc = 0usize;
        loop {
            let i = prog[pc];
            match i.code {
                LD_W_ABS => acc = if i.k == DATA_ARCH { arch } else { nr },
                JMP_JEQ_K => {
                    pc += if acc == i.k { i.jt } else { i.jf } as usize;
                }
                JMP_JGE_K => {
                    pc += if acc >= i.k { i.jt } else { i.jf } as usize;
                }
                JMP_JA => pc += i.k as usize,
                RET_K => return i.k,
                other => panic!("unexpected opcode {other:#x}"),
            }
            pc += 1;
        }
    }

    #[test]
    fn selected_calls_stop_others_run() {
        let set = TraceSet::parse("getppid,write").unwrap();
        let prog = program(&set, &[]);
        assert!(prog.len() < 4096);
        let x = AUDIT_ARCH_X86_64;
        assert_eq!(run(&prog, x, 110), RET_TRACE, "getppid");
        assert_eq!(run(&prog, x, 1), RET_TRACE, "write");
        // ioctl (user_events registrations) stops through the engine's
        // bookkeeping list, whatever is selected: not the selection's.
        assert_eq!(run(&prog, x, 16), RET_ALLOW, "ioctl");
        let kept = program(&set, crate::service::fs::BOOKKEEPING);
        assert_eq!(run(&kept, x, 16), RET_TRACE, "ioctl: bookkeeping");
        assert_eq!(
            run(&prog, x, 15),
            RET_ALLOW,
            "rt_sigreturn: followed only when needed"
        );
        assert_eq!(run(&prog, x, 219), RET_ALLOW, "restart_syscall");
        assert_eq!(run(&prog, x, 257), RET_ALLOW, "openat: /proc answers");
        assert_eq!(run(&prog, x, 0), RET_ALLOW, "read");
        assert_eq!(run(&prog, x, 39), RET_ALLOW, "getpid");
        assert_eq!(run(&prog, x, 0x4000_0001), RET_TRACE, "x32");
        let i = AUDIT_ARCH_I386;
        assert_eq!(run(&prog, i, 64), RET_TRACE, "i386 getppid");
        assert_eq!(run(&prog, i, 4), RET_TRACE, "i386 write");
        assert_eq!(run(&prog, i, 3), RET_ALLOW, "i386 read");
        assert_eq!(run(&prog, i, 173), RET_ALLOW, "i386 rt_sigreturn");
        assert_eq!(run(&prog, i, 102), RET_ALLOW, "i386 socketcall");
        let prog = program(&TraceSet::parse("connect").unwrap(), &[]);
        assert_eq!(run(&prog, i, 102), RET_TRACE, "socketcall: connect");
        assert_eq!(run(&prog, x, 42), RET_TRACE, "x86_64 connect");
        assert_eq!(run(&prog, i, 117), RET_ALLOW, "i386 ipc");
        let prog = program(&TraceSet::parse("shmat").unwrap(), &[]);
        assert_eq!(run(&prog, i, 117), RET_TRACE, "ipc: shmat");
        let prog = program(&TraceSet::parse("%desc").unwrap(), &[]);
        assert_eq!(
            run(&prog, i, 102),
            RET_TRACE,
            "socketcall is in %desc itself"
        );
        assert_eq!(run(&prog, 0x1234, 1), RET_ALLOW, "other arch");
    }

    #[test]
    fn extra_calls_stop_too() {
        let set = TraceSet::parse("ioctl").unwrap();
        let extra = ["sched_getaffinity", "sched_setaffinity"];
        let prog = program(&set, &extra);
        let (x, i) = (AUDIT_ARCH_X86_64, AUDIT_ARCH_I386);
        assert_eq!(run(&prog, x, 16), RET_TRACE, "ioctl");
        assert_eq!(run(&prog, x, 203), RET_TRACE, "sched_setaffinity");
        assert_eq!(run(&prog, x, 204), RET_TRACE, "sched_getaffinity");
        assert_eq!(run(&prog, i, 241), RET_TRACE, "i386 sched_setaffinity");
        assert_eq!(run(&prog, i, 242), RET_TRACE, "i386 sched_getaffinity");
        assert_eq!(run(&prog, x, 110), RET_ALLOW, "getppid");
        let prog = program(&set, &[]);
        assert_eq!(run(&prog, x, 204), RET_ALLOW, "not asked for");
    }

    #[test]
    fn a_large_selection_still_jumps_right() {
        let set = TraceSet::parse("!getpid").unwrap();
        let prog = program(&set, &[]);
        assert!(prog.len() < 4096);
        assert_eq!(run(&prog, AUDIT_ARCH_X86_64, 39), RET_ALLOW);
        assert_eq!(run(&prog, AUDIT_ARCH_X86_64, 0), RET_TRACE);
        assert_eq!(run(&prog, AUDIT_ARCH_I386, 20), RET_ALLOW);
        assert_eq!(run(&prog, AUDIT_ARCH_I386, 3), RET_TRACE);
    }
}
