//! Where each stop goes: to the task's state (a newborn held, an attach
//! completed, a task being let go or not shown), to the call layer, or to
//! the events that add and remove tasks; and how it is resumed.

use nix::unistd::Pid;

use super::{Engine, Exit, Life, Report, calls};
use crate::call::Show;
use crate::kernel::{self, Handled, Resume, Stop, Waited};

const PTRACE_EVENT_STOP: i32 = crate::abi::xlat::process::PTRACE_EVENT_STOP as i32;

impl Engine {
    pub(super) fn dispatch(&mut self, waited: Waited) {
        let pid = waited.pid();
        self.stopped(pid);
        match waited {
            Waited::Ended { status, .. } => self.gone(pid, status),
            Waited::Stopped(stop) => {
                self.dispatch_stop(stop);
            }
            Waited::Other { .. } => {}
        }
    }

    fn dispatch_stop(&mut self, stop: Stop) -> Handled {
        let pid = stop.pid();
        let Some(proc) = self.procs.get(&pid) else {
            // A child announced before its parent's fork event: keep its
            // stop until the event says whose it is (or start it now if no
            // traced parent is in a call that could announce it).
            let (held, handled) = stop.hold();
            self.orphans.insert(pid, held);
            self.adopt_orphans();
            return handled;
        };
        let sig = stop.sig();
        let event = stop.event();
        if proc.detaching {
            if matches!(
                event,
                libc::PTRACE_EVENT_FORK | libc::PTRACE_EVENT_VFORK | libc::PTRACE_EVENT_CLONE
            ) {
                // The new child is already ours: let it go too.
                self.detach_unborn(pid);
            }
            let deliver = if event == 0 && sig != (libc::SIGTRAP | 0x80) {
                sig
            } else {
                0
            };
            return self.finish_detach(stop, deliver);
        }
        // A newborn's first stop goes to child_start even when it is not
        // shown (an output error may have hidden it meanwhile): only that
        // makes it Running, so that releasing it later does not wait for
        // a first stop that has already come.
        if !proc.shown && !matches!(proc.life, Life::Newborn { .. }) {
            return self.unshown_stop(stop);
        }
        match proc.life {
            Life::Newborn { ready: false } => {
                // Held until its parent has printed the call that made it.
                let (held, handled) = stop.hold();
                if let Some(proc) = self.procs.get_mut(&pid) {
                    proc.first_stop = Some(held);
                }
                return handled;
            }
            Life::Newborn { ready: true } => return self.child_start(stop),
            Life::Attaching if event == PTRACE_EVENT_STOP => {
                let name = proc.name.clone();
                if let Some(p) = self.procs.get_mut(&pid) {
                    p.life = Life::Running;
                }
                // Stopped at last: it may be pinned now (`colocate`).
                self.colocation_update();
                self.report(pid, Report::Tracing(name, None));
                return if is_stop_signal(sig) {
                    self.resume(stop, Resume::Listen)
                } else {
                    self.resume(stop, Resume::Syscall(0))
                };
            }
            _ => {}
        }
        if sig == libc::SIGTRAP | 0x80 {
            let sig = self.syscall_stop(pid, false);
            return self.resume_tracee(stop, sig);
        }
        match event {
            0 => self.signal_stop(stop),
            libc::PTRACE_EVENT_SECCOMP => {
                let sig = self.syscall_stop(pid, true);
                self.resume_tracee(stop, sig)
            }
            libc::PTRACE_EVENT_FORK | libc::PTRACE_EVENT_VFORK | libc::PTRACE_EVENT_CLONE => {
                self.fork_event(pid, event);
                self.resume_tracee(stop, 0)
            }
            libc::PTRACE_EVENT_EXEC => {
                // The kernel reports the exec under the pid the process
                // has now (a thread that execs takes the leader's): the
                // stop's.
                self.exec_event(pid);
                self.resume_tracee(stop, 0)
            }
            PTRACE_EVENT_STOP if is_stop_signal(sig) => {
                // Group-stop: stay stopped, but keep reporting (job control).
                self.resume(stop, Resume::Listen)
            }
            _ => self.resume_tracee(stop, 0),
        }
    }

    /// Resume a stop the way its task's state needs, delivering `sig`. A
    /// task no longer in the table (it left it while its stop was being
    /// handled) is not ours to resume: its stop is only held.
    pub(super) fn resume_tracee(&mut self, stop: Stop, sig: i32) -> Handled {
        match self.procs.get(&stop.pid()) {
            Some(proc) => {
                let how = proc.resume_with(sig);
                self.resume(stop, how)
            }
            None => stop.hold().1,
        }
    }

    /// A stop of a process that is traced but not shown: only keep it
    /// running, as if untraced (signals delivered, job control kept).
    fn unshown_stop(&mut self, stop: Stop) -> Handled {
        let (pid, sig) = (stop.pid(), stop.sig());
        match stop.event() {
            event @ (libc::PTRACE_EVENT_FORK
            | libc::PTRACE_EVENT_VFORK
            | libc::PTRACE_EVENT_CLONE) => {
                // Its children inherit the filter too.
                self.fork_event(pid, event);
                self.resume(stop, Resume::Cont(0))
            }
            libc::PTRACE_EVENT_EXEC => {
                // Exec from a thread: the thread's old id is gone.
                if let Some(former) = kernel::event_msg(Pid::from_raw(pid))
                    && former != pid
                {
                    self.procs.remove(&former);
                }
                self.resume(stop, Resume::Cont(0))
            }
            PTRACE_EVENT_STOP if is_stop_signal(sig) => self.resume(stop, Resume::Listen),
            0 if sig != (libc::SIGTRAP | 0x80) => self.resume(stop, Resume::Cont(sig)),
            _ => self.resume(stop, Resume::Cont(0)),
        }
    }

    fn finish_detach(&mut self, stop: Stop, sig: i32) -> Handled {
        let pid = stop.pid();
        self.unpin(pid);
        let handled = self.resume(stop, Resume::Detach(sig));
        // The call it was in ends here for us: in JSON an object with no
        // result; a held-back line is shown if -e status= has `detached`.
        // (A live line is left open: the banner ends it with `<..>`.)
        let call = self.procs.get_mut(&pid).and_then(|p| {
            // A newborn's call is its parent's (for `fork() = 0`).
            let own = p.shown && !matches!(p.life, Life::Newborn { .. });
            p.call.take_if(|c| c.show != Show::Hidden && own)
        });
        if let Some(mut call) = call {
            if self.fmt.json {
                self.finish(pid, &mut call, 0, calls::End::Detached);
            } else if call.show == Show::Deferred {
                if self.select.status.detached && self.printing {
                    self.out.undefer(pid);
                } else {
                    self.out.discard(pid);
                }
            }
        }
        // (As strace, rtrace's exit is then 0: the command runs on.)
        let started = self
            .procs
            .get(&pid)
            .is_some_and(|p| !p.attached && !p.let_go);
        // A process let go before its first stop was never announced
        // (`-p A -p BAD`): no "Process detached" without a "Tracing".
        let shown = self
            .procs
            .get(&pid)
            .is_some_and(|p| p.shown && p.life != Life::Attaching);
        if shown && self.out.error().is_none() {
            self.report(pid, Report::Detached);
        }
        self.remove(pid);
        if started && self.main_pid == Some(pid) && !self.limit_hit {
            self.main_exit = Some(Exit::Code(1));
        }
        handled
    }
}

/// Whether a stop signal puts the tracee in a group-stop.
fn is_stop_signal(sig: i32) -> bool {
    matches!(
        sig,
        libc::SIGSTOP | libc::SIGTSTP | libc::SIGTTIN | libc::SIGTTOU
    )
}
