//! The tracee's own use of seccomp under rtrace's filter (the fast path):
//! what keeps the fast path from losing calls or being seen.
//!
//! - A filter of the tracee's own whose action outranks SECCOMP_RET_TRACE
//!   (USER_NOTIF, ERRNO, TRAP, KILL) hides a call from rtrace's filter. So
//!   the calls that install one always stop (`seccomp::ALWAYS_STOPPED`),
//!   and from a successful install on the task, every task it creates and,
//!   with SECCOMP_FILTER_FLAG_TSYNC, every thread of its group are resumed
//!   with PTRACE_SYSCALL: ptrace's syscall-enter stop comes before any
//!   filter runs. A selected call then stops twice at entry (syscall-enter,
//!   then rtrace's RET_TRACE), and the engine ignores the second.
//! - Untraced, `prctl(PR_GET_SECCOMP)` says 0 until the program installs a
//!   filter, and strict mode can be entered. rtrace's filter would make
//!   them say 2 and fail with EINVAL, so both are answered as the kernel
//!   would without it: PR_GET_SECCOMP is skipped and returns 0; entering
//!   strict mode becomes `prctl(PR_SET_TSC, PR_TSC_SIGSEGV)` (what strict
//!   mode does besides filtering: rdtsc faults) returning 0, and from then
//!   on the task makes full syscall stops and dies at the entry of any call
//!   but strict mode's four (kernel/seccomp.c, `mode1_syscalls` and
//!   `mode1_syscalls_32`), as the kernel's `do_exit(SIGKILL)` of it.
//! - rtrace's filter needs no-new-privs unless rtrace has CAP_SYS_ADMIN.
//!   When it set it (`Engine::nnp_added`), `prctl(PR_GET_NO_NEW_PRIVS)`
//!   answers 0 until the program sets it, and a filter install the kernel
//!   would refuse without it fails with EACCES.
//!
//! Tasks not under rtrace's filter (attached, or without the fast path)
//! need none of this: the kernel answers them itself. One thing only is
//! kept for them too: that the kernel put a task in strict mode and that
//! it entered a call strict mode kills it for, so that its end is
//! reported as the kernel's `do_exit(SIGKILL)` even when its wait status
//! says otherwise (see `own_seccomp_status`).

use nix::unistd::Pid;

use super::Engine;
use crate::kernel::{self, Arch, SavedCall};
use crate::service;

/// The calls strict mode allows, by ABI (`mode1_syscalls` in
/// kernel/seccomp.c, and `mode1_syscalls_32` for i386 calls: sigreturn,
/// not rt_sigreturn). An x32 call's number carries the x32 bit and
/// matches neither list: the kernel allows none.
fn strict_allows(arch: Arch, name: &str) -> bool {
    let allowed: &[&str] = match arch {
        Arch::X86_64 => &["read", "write", "exit", "rt_sigreturn"],
        Arch::I386 => &["read", "write", "exit", "sigreturn"],
        Arch::X32 => &[],
    };
    allowed.contains(&name)
}

/// A task's own seccomp state, as the kernel would have it without
/// rtrace's filter.
#[derive(Clone, Copy, Default)]
pub(super) struct OwnSeccomp {
    /// It installed a filter of its own (or inherited one).
    filter: bool,
    /// It entered strict mode (emulated under the filter; without it,
    /// the kernel's, observed).
    strict: bool,
    /// It set no-new-privs itself (or inherited it from a task that did).
    nnp: bool,
    /// Strict mode ended it: it entered a forbidden call, which under the
    /// filter rtrace made an exit (one thread of several); reported as the
    /// kernel's SIGKILL whatever its wait status says.
    killed: bool,
    /// The call it is in was rewritten: what to give back at its exit.
    pending: Option<Rewritten>,
}

/// A call rtrace answers itself.
#[derive(Clone, Copy)]
struct Rewritten {
    saved: SavedCall,
    /// What the program gets.
    rval: i64,
    /// It enters strict mode.
    strict: bool,
}

impl OwnSeccomp {
    /// Drop rtrace's answer to the call in progress (an injected result
    /// replaces it); the registers the call entered with, if it had one.
    pub(super) fn take_rewrite(&mut self) -> Option<SavedCall> {
        self.pending.take().map(|done| done.saved)
    }

    /// Whether the task must make full syscall stops.
    pub(super) fn steps(&self) -> bool {
        self.filter || self.strict
    }

    /// The state of the started command under the usbmon emulation's
    /// filter (`--usbmon-replay`): a filter of its own, so that it steps
    /// every call (the emulated calls never reach the fast path's filter).
    pub(super) fn emulated() -> OwnSeccomp {
        OwnSeccomp {
            filter: true,
            ..OwnSeccomp::default()
        }
    }

    /// What a task it creates starts with: its filters (strict mode
    /// cannot create tasks).
    pub(super) fn inherited(&self) -> OwnSeccomp {
        OwnSeccomp {
            filter: self.filter,
            nnp: self.nnp,
            ..OwnSeccomp::default()
        }
    }
}

/// What a seccomp-related call asks for.
enum Request {
    /// prctl(PR_GET_SECCOMP).
    GetMode,
    /// prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT) or
    /// seccomp(SECCOMP_SET_MODE_STRICT, 0, NULL).
    Strict,
    /// A filter install, with its seccomp(2) flags (0 for prctl) and its
    /// `struct sock_fprog`.
    Filter { flags: u64, prog: u64 },
    /// prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0).
    GetNnp,
    /// prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0).
    SetNnp,
}

fn request(name: &str, args: &[u64; 6]) -> Option<Request> {
    match name {
        "prctl" if args[0] == libc::PR_GET_SECCOMP as u64 => Some(Request::GetMode),
        "prctl" if args[0] == libc::PR_SET_SECCOMP as u64 => match args[1] {
            m if m == u64::from(libc::SECCOMP_MODE_STRICT) => Some(Request::Strict),
            m if m == u64::from(libc::SECCOMP_MODE_FILTER) => Some(Request::Filter {
                flags: 0,
                prog: args[2],
            }),
            _ => None,
        },
        // Other arguments than these are EINVAL: the kernel answers.
        "prctl" if args[..5] == [libc::PR_GET_NO_NEW_PRIVS as u64, 0, 0, 0, 0] => {
            Some(Request::GetNnp)
        }
        "prctl" if args[..5] == [libc::PR_SET_NO_NEW_PRIVS as u64, 1, 0, 0, 0] => {
            Some(Request::SetNnp)
        }
        // Strict mode with flags or a pointer is EINVAL before any mode
        // check: the kernel answers that itself.
        "seccomp" if args[0] == u64::from(libc::SECCOMP_SET_MODE_STRICT) => {
            (args[1] == 0 && args[2] == 0).then_some(Request::Strict)
        }
        "seccomp" if args[0] == u64::from(libc::SECCOMP_SET_MODE_FILTER) => Some(Request::Filter {
            flags: args[1],
            prog: args[2],
        }),
        _ => None,
    }
}

/// Whether a filter install returned success: 0, or a listener fd with
/// SECCOMP_FILTER_FLAG_NEW_LISTENER (without it, TSYNC's failure is the
/// id of the thread that could not be synchronised, a positive number).
fn installed(flags: u64, rval: i64) -> bool {
    rval == 0 || (flags & libc::SECCOMP_FILTER_FLAG_NEW_LISTENER != 0 && rval > 0)
}

impl Engine {
    /// A task under rtrace's filter entered call `nr` of `arch` (its call,
    /// if it makes a new one, is the current one): strict mode's end, or a
    /// seccomp call answered as untraced.
    pub(super) fn own_seccomp_entered(&mut self, pid: i32, arch: Arch, nr: u64) {
        let Some(proc) = self.procs.get_mut(&pid) else {
            return;
        };
        if proc.own.strict {
            if strict_allows(arch, &service::lookup(arch, nr).0) {
                return;
            }
            if !proc.seccomp {
                // The kernel's own strict mode: resumed, the call ends this
                // thread with do_exit(SIGKILL) (kernel/seccomp.c,
                // `__secure_computing_strict`). Only noted, for its report.
                proc.own.killed = true;
                return;
            }
            // The kernel ends this thread alone, as killed by SIGKILL:
            // alone in its group, a SIGKILL does exactly that; among
            // others, an exit ends it alone and `status` reports it.
            // (Threads that have exited but are not reaped yet do not count.)
            let live = kernel::threads(proc.tgid)
                .into_iter()
                .filter(|&tid| kernel::stat_field(tid, 3).is_some_and(|s| s != "Z" && s != "X"))
                .count();
            if live <= 1 {
                kernel::kill(pid);
            } else if let Some(exit) = service::number(arch, "exit") {
                let exit = if arch == Arch::X32 {
                    exit | 0x4000_0000
                } else {
                    exit
                };
                proc.own.killed = true;
                let _ = kernel::rewrite_call(Pid::from_raw(pid), arch, exit as i64, Some([0; 6]));
            }
            return;
        }
        if !proc.seccomp {
            return;
        }
        let Some(call) = proc.call.as_ref().filter(|c| c.nr == nr && c.arch == arch) else {
            return;
        };
        let Some(request) = request(&call.name, &call.args) else {
            return;
        };
        // With a filter of its own the kernel's answers about seccomp are
        // the untraced ones; no-new-privs, if rtrace set it, is still not
        // the program's.
        let (own_filter, own_nnp) = (proc.own.filter, proc.own.nnp);
        let nnp_added = self.nnp_added && !own_nnp;
        let rewrite = match request {
            Request::GetMode if !own_filter => Some((-1, None, 0, false)),
            Request::GetNnp if nnp_added => Some((-1, None, 0, false)),
            Request::Filter { flags, prog }
                if nnp_added && self.refused(pid, arch, flags, prog) =>
            {
                Some((-1, None, -i64::from(libc::EACCES), false))
            }
            Request::Strict if !own_filter => {
                let prctl = service::number(arch, "prctl").map(|n| match arch {
                    Arch::X32 => n | 0x4000_0000,
                    _ => n,
                });
                let tsc = [
                    libc::PR_SET_TSC as u64,
                    libc::PR_TSC_SIGSEGV as u64,
                    0,
                    0,
                    0,
                    0,
                ];
                prctl.map(|n| (n as i64, Some(tsc), 0, true))
            }
            _ => None,
        };
        if let Some((nr, args, rval, strict)) = rewrite
            && let Ok(saved) = kernel::rewrite_call(Pid::from_raw(pid), arch, nr, args)
            && let Some(proc) = self.procs.get_mut(&pid)
        {
            proc.own.pending = Some(Rewritten {
                saved,
                rval,
                strict,
            });
        }
    }

    /// Whether the kernel would refuse filter install `flags`, `prog` of
    /// task `pid` with EACCES for want of no-new-privs (the task lacks
    /// CAP_SYS_ADMIN): it checks that after the flags and the
    /// `struct sock_fprog` (its length), and before the program itself
    /// (kernel/seccomp.c, `seccomp_prepare_filter`). Earlier errors are
    /// left to the kernel, which gives the same ones with rtrace's
    /// no-new-privs.
    fn refused(&mut self, pid: i32, arch: Arch, flags: u64, prog: u64) -> bool {
        let Some(proc) = self.procs.get_mut(&pid) else {
            return false;
        };
        // `struct sock_fprog`: a u16 length, then the pointer (aligned).
        let mut fprog = [0u8; 16];
        let size = if arch == Arch::X86_64 { 16 } else { 8 };
        if !proc.mem.read_exact(prog, &mut fprog[..size]) {
            return false;
        }
        let len = u16::from_ne_bytes([fprog[0], fprog[1]]);
        // BPF_MAXINSNS
        (1..=4096).contains(&len)
            && kernel::seccomp_filter_flags_valid(flags)
            && !kernel::has_cap_sys_admin(pid)
    }

    /// A task is leaving its call with `rval`: give a rewritten call its
    /// answer, and notice a filter of the task's own. Returns the result
    /// the program gets.
    pub(super) fn own_seccomp_leaving(&mut self, pid: i32, rval: i64) -> i64 {
        let Some(proc) = self.procs.get_mut(&pid) else {
            return rval;
        };
        if !proc.seccomp {
            // Untouched, the kernel itself answers; strict mode entered is
            // noted for how the task ends (`own_seccomp_entered`).
            let strict = proc
                .call
                .as_ref()
                .is_some_and(|c| matches!(request(&c.name, &c.args), Some(Request::Strict)));
            proc.own.strict |= strict && rval == 0;
            return rval;
        }
        if let Some(done) = proc.own.pending.take() {
            let _ = kernel::finish_rewritten(Pid::from_raw(pid), &done.saved, done.rval);
            proc.own.strict |= done.strict;
            return done.rval;
        }
        let Some(call) = proc.call.as_ref() else {
            return rval;
        };
        let flags = match request(&call.name, &call.args) {
            Some(Request::Filter { flags, .. }) => flags,
            Some(Request::SetNnp) if rval == 0 => {
                proc.own.nnp = true;
                return rval;
            }
            _ => return rval,
        };
        if !installed(flags, rval) {
            return rval;
        }
        proc.own.filter = true;
        if flags & libc::SECCOMP_FILTER_FLAG_TSYNC != 0 {
            // Every thread of the group has the filter now: those running
            // under PTRACE_CONT stop (an interrupt) and go on stepping.
            let tgid = proc.tgid;
            let others: Vec<i32> = self
                .procs
                .values_mut()
                .filter(|p| p.tgid == tgid && p.pid != pid)
                .map(|p| {
                    p.own.filter = true;
                    p.pid
                })
                .collect();
            for tid in others {
                let _ = kernel::interrupt(Pid::from_raw(tid));
            }
        }
        rval
    }

    /// The wait status a task ended with, as the kernel ended it: strict
    /// mode's SIGKILL for a thread that entered a call strict mode
    /// forbids. Under the filter rtrace made that call an exit (its
    /// status says exited). Without it the kernel killed the thread, but
    /// the status of a thread reaped after its whole group has ended is
    /// the group's, not its own (kernel/exit.c, `wait_task_zombie`:
    /// `SIGNAL_GROUP_EXIT` set, `group_exit_code`; since Linux 5.19 the
    /// last thread's exit sets it, `synchronize_group_exit`): a main
    /// thread that exits while rtrace has yet to reap the killed thread
    /// would make it read "exited with code 0".
    pub(super) fn own_seccomp_status(&self, pid: i32, status: i32) -> i32 {
        match self.procs.get(&pid) {
            Some(p) if p.own.killed && libc::WIFEXITED(status) => libc::SIGKILL,
            _ => status,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names strict mode allows are the kernel's numbers.
    #[test]
    fn strict_mode_allows_the_kernels_numbers() {
        let allowed = |arch| {
            let mut nrs: Vec<u64> = service::all_calls(arch)
                .filter(|(_, name)| strict_allows(arch, name))
                .map(|(nr, _)| nr)
                .collect();
            nrs.sort_unstable();
            nrs
        };
        // read, write, rt_sigreturn, exit.
        assert_eq!(allowed(Arch::X86_64), [0, 1, 15, 60]);
        // exit, read, write, sigreturn.
        assert_eq!(allowed(Arch::I386), [1, 3, 4, 119]);
        assert!(!strict_allows(Arch::X32, "read"));
    }

    #[test]
    fn seccomp_requests() {
        let args = |a: &[u64]| {
            let mut all = [0; 6];
            all[..a.len()].copy_from_slice(a);
            all
        };
        assert!(matches!(
            request("prctl", &args(&[21])),
            Some(Request::GetMode)
        ));
        assert!(matches!(
            request("prctl", &args(&[22, 1, 0xdead])),
            Some(Request::Strict)
        ));
        assert!(matches!(
            request("prctl", &args(&[22, 2, 0x1000])),
            Some(Request::Filter {
                flags: 0,
                prog: 0x1000
            })
        ));
        assert!(request("prctl", &args(&[22, 3])).is_none());
        assert!(matches!(
            request("seccomp", &args(&[0, 0, 0])),
            Some(Request::Strict)
        ));
        assert!(request("seccomp", &args(&[0, 1, 0])).is_none());
        assert!(matches!(
            request("seccomp", &args(&[1, 8, 0x1000])),
            Some(Request::Filter {
                flags: 8,
                prog: 0x1000
            })
        ));
        assert!(matches!(
            request("prctl", &args(&[39])),
            Some(Request::GetNnp)
        ));
        assert!(request("prctl", &args(&[39, 1])).is_none());
        assert!(matches!(
            request("prctl", &args(&[38, 1])),
            Some(Request::SetNnp)
        ));
        assert!(request("prctl", &args(&[38, 2])).is_none());
        assert!(installed(0, 0));
        assert!(installed(8, 5));
        assert!(!installed(1, 1234), "TSYNC's failing thread");
        assert!(!installed(8, -22));
    }
}
