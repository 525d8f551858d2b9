//! The engine's side of `-e inject=` and `-e fault=` (the rules are
//! `select::inject`'s): counting each task's invocations of each call,
//! and tampering with the ones a rule's `when=` picks, as strace does.
//!
//! A call given a result does not run: at its entry its number becomes -1,
//! which the kernel skips (with -ENOSYS), and at its exit the result
//! register gets the rule's value and the argument registers their values
//! from the entry (`kernel::rewrite_call`, `kernel::finish_rewritten`);
//! with `syscall=NAME` the number becomes that harmless call's instead,
//! which the kernel runs, and its result is replaced the same way.
//! A signal is passed with the resume from the entry stop, so the kernel
//! sends it to the task as strace's does (`si_code=SI_KERNEL`), except at
//! the seccomp fast path's entry stop (a PTRACE_EVENT stop, whose resume
//! ignores a signal): there it goes with the exit stop's resume, which
//! makes no difference to a call that does not run. A poke writes the
//! rule's bytes where a pointer argument points (`kernel::vm_write`): at
//! the entry before the call's arguments are read for its line, at the
//! exit before its results are. A delay holds the
//! task stopped at the entry or exit stop (rtrace sleeps: other tracees
//! wait too, where strace's timers let them run).

use std::collections::HashMap;

use nix::unistd::Pid;

use super::Engine;
use crate::call::Tamper;
use crate::kernel::{self, Arch};
use crate::select::inject::{Action, Counter, Matched, Poke};

/// One task's injection state.
#[derive(Default)]
pub(super) struct TaskInject {
    /// Invocations counted, by rule, ABI, call number and what tells calls
    /// of one number apart (an i386 socketcall's call, an ioctl's
    /// request when the rule names requests).
    counters: HashMap<(usize, Arch, u64, u64), Counter>,
    /// What is done to the call in progress.
    pending: Option<Pending>,
}

/// An injection under way: decided at the call's entry, finished at its
/// exit.
struct Pending {
    action: Action,
    arch: Arch,
    /// The registers at entry, when the call was skipped for a result.
    saved: Option<kernel::SavedCall>,
    /// The signal still to deliver, at the exit stop.
    signal_at_exit: Option<i32>,
    /// A poke wrote into the task's memory.
    poked: bool,
}

/// The number a skipped call's becomes at its entry: -1 (no call, which
/// the kernel skips), or that of `syscall=`'s harmless call in `arch`
/// (x32's with its ABI bit), which the kernel runs in its place.
fn substitute_number(arch: Arch, substitute: Option<&str>) -> i64 {
    let Some(nr) = substitute.and_then(|name| crate::service::number(arch, name)) else {
        return -1;
    };
    match arch {
        Arch::X32 => (nr | kernel::X32_SYSCALL_BIT) as i64,
        _ => nr as i64,
    }
}

impl Engine {
    /// Count an invocation of call `name` (number `nr`; `sub`: what tells
    /// apart calls of one number, see [`TaskInject::counters`]) entering
    /// in task `pid` with `nargs` arguments, and whether a rule injects
    /// into it; if so, its entry pokes are written and the rest is
    /// pending for [`Engine::inject_entered`].
    #[allow(clippy::too_many_arguments)]
    pub(super) fn inject_decide(
        &mut self,
        pid: i32,
        arch: Arch,
        nr: u64,
        sub: u64,
        name: &str,
        args: &[u64; 6],
        nargs: usize,
    ) -> bool {
        let inject = &self.select.inject;
        let Some(proc) = self.procs.get_mut(&pid) else {
            return false;
        };
        let request = (name == "ioctl" && inject.names_requests()).then(|| {
            let fd = proc.fds.borrow().get(args[0] as i32);
            crate::ioctl::request_name(arch, args[1] & 0xffff_ffff, fd.as_ref())
        });
        let Some((i, rule, matched)) = inject.rule(name, request.as_deref()) else {
            return false;
        };
        let sub = match matched {
            Matched::Request => args[1] & 0xffff_ffff,
            Matched::Call => sub,
        };
        let counter = proc
            .inject
            .counters
            .entry((i, arch, nr, sub))
            .or_insert(rule.when);
        if !counter.hit() {
            return false;
        }
        let poked = poke(pid, &rule.action.poke_enter, args, nargs);
        proc.inject.pending = Some(Pending {
            action: rule.action.clone(),
            arch,
            saved: None,
            signal_at_exit: None,
            poked,
        });
        true
    }

    /// At the entry stop of a call [`Engine::inject_decide`] picked: skip
    /// it for a result, hold it for a delay; the signal to resume it with.
    pub(super) fn inject_entered(&mut self, pid: i32, seccomp_stop: bool) -> i32 {
        let Some(proc) = self.procs.get_mut(&pid) else {
            return 0;
        };
        let Some(pending) = proc.inject.pending.as_mut() else {
            return 0;
        };
        if pending.action.result.is_some() {
            // rtrace's own answer to a seccomp query (`own_seccomp`) gives
            // way: the call does not run at all. Its saved registers are
            // the ones the call entered with.
            let own = proc.own.take_rewrite();
            let tid = Pid::from_raw(pid);
            let nr = substitute_number(pending.arch, pending.action.substitute);
            if let Ok(saved) = kernel::rewrite_call(tid, pending.arch, nr, None) {
                pending.saved = Some(own.unwrap_or(saved));
            }
        }
        if let Some(delay) = pending.action.delay_enter {
            std::thread::sleep(delay);
        }
        match pending.action.signal {
            Some(sig) if seccomp_stop => {
                pending.signal_at_exit = Some(sig);
                0
            }
            Some(sig) => sig,
            None => 0,
        }
    }

    /// At the exit stop of task `pid`'s call, whose kernel result is
    /// `rval`: an injected result replaces it (`Some`, with the signal to
    /// resume with); the call is marked for its line.
    pub(super) fn inject_leaving(&mut self, pid: i32, rval: i64) -> Option<(i64, i32)> {
        let proc = self.procs.get_mut(&pid)?;
        let mut pending = proc.inject.pending.take()?;
        if let Some(call) = proc.call.as_ref() {
            let nargs = call.sig.map_or(6, |s| s.params.len());
            pending.poked |= poke(pid, &pending.action.poke_exit, &call.args, nargs);
        }
        let mut rval = rval;
        if let (Some(saved), Some(result)) = (pending.saved, pending.action.result) {
            rval = match pending.arch {
                Arch::I386 => result as i32 as i64,
                _ => result,
            };
            let _ = kernel::finish_rewritten(Pid::from_raw(pid), &saved, rval);
        }
        let delayed = pending.action.delay_enter.is_some() || pending.action.delay_exit.is_some();
        if let Some(delay) = pending.action.delay_exit {
            std::thread::sleep(delay);
        }
        if let Some(call) = proc.call.as_mut() {
            call.tamper = Tamper {
                injected: pending.saved.is_some(),
                poked: pending.poked,
                delayed,
            };
        }
        Some((rval, pending.signal_at_exit.unwrap_or(0)))
    }

    /// Whether task `pid`'s call in progress was skipped for an injected
    /// result (then nothing of it ran: no bookkeeping of its effects).
    pub(super) fn inject_skips(&self, pid: i32) -> bool {
        self.procs
            .get(&pid)
            .and_then(|p| p.inject.pending.as_ref())
            .is_some_and(|p| p.saved.is_some())
    }
}

/// Write each of `pokes` where its argument of `args` points, for a call
/// of `nargs` arguments (a poke past them is skipped, as strace skips it);
/// whether any was written.
fn poke(pid: i32, pokes: &[Poke], args: &[u64; 6], nargs: usize) -> bool {
    let mut poked = false;
    for p in pokes.iter().filter(|p| p.arg <= nargs.min(6)) {
        poked |= kernel::vm_write(pid, args[p.arg - 1], &p.data);
    }
    poked
}
