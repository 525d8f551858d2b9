//! The wait loop and what ends it: statuses collected fairly and handed
//! on, interrupts, the call limit, a failed output, and letting every
//! process go.

use std::sync::atomic::Ordering;

use super::signals::{FLUSH_DELAY_US, FLUSH_DUE, INTERRUPTS, TO_FORWARD, arm_alarm};
use super::{Engine, Life, affinity};
use crate::kernel::{self, Held, Waited};
use nix::unistd::Pid;

/// The most waits in a row that skip collecting the other ready statuses
/// (see `Engine::next_status`): a task kept waiting meanwhile waits this
/// many stops of others at most (well under a millisecond).
const DRAIN_GAP_MAX: u32 = 16;

impl Engine {
    pub(super) fn main_loop(&mut self) {
        // Output is written when the buffer fills, and otherwise at most
        // FLUSH_DELAY after it was produced: a timer, armed when there is
        // something to write, interrupts the wait. The automatic
        // --same-cpu mode's ticks use it too.
        let mut armed: Option<i64> = None;
        while !self.procs.is_empty() {
            self.handle_interrupts();
            self.limit_reached();
            if FLUSH_DUE.swap(false, Ordering::Relaxed) {
                self.out.flush();
                armed = None;
                self.colocation_tick();
            }
            if self.out.error().is_some() && !self.output_lost {
                self.output_failed();
            }
            // A tick is never later than due, even when a longer flush
            // delay was armed before ticks began.
            if let Some(delay) = self.tick_delay_us()
                && armed.is_none_or(|armed| armed > affinity::TICK_US)
            {
                arm_alarm(delay);
                armed = Some(delay);
            } else if armed.is_none() && self.out.unflushed() {
                arm_alarm(FLUSH_DELAY_US);
                armed = Some(FLUSH_DELAY_US);
            }
            let waited = match self.next_status() {
                None => continue,
                Some(r) => r,
            };
            match waited {
                Ok(waited) => self.dispatch(waited),
                Err(_) => {
                    // ECHILD: nothing left to wait for.
                    self.procs.clear();
                }
            }
        }
    }

    fn handle_interrupts(&mut self) {
        let n = INTERRUPTS.load(Ordering::Relaxed);
        if n == self.interrupts_seen {
            return;
        }
        if self.interrupts_seen == 0 {
            // First interrupt (trace(1)'s ^C): let go of attached
            // processes; started ones are left to finish, shown.
            self.forward_interrupt();
            for pid in self.attached_tasks() {
                self.start_detach(pid);
            }
        }
        if n >= 2 {
            self.kill_started();
        }
        self.interrupts_seen = n;
    }

    /// A signal sent to rtrace alone (kill, timeout) goes on to the
    /// command it started, as strace does, which usually ends it.
    pub(super) fn forward_interrupt(&self) {
        let forward = TO_FORWARD.load(Ordering::Relaxed);
        if let Some(main) = self.main_pid.filter(|_| forward != 0)
            && self.procs.get(&main).is_some_and(|p| !p.attached)
        {
            // SAFETY: plain kill.
            unsafe { libc::kill(main, forward) };
        }
    }

    /// Count one call shown toward `--syscall-limit`.
    pub(super) fn limit_count(&mut self) {
        if let Some(left) = self.limit.as_mut() {
            *left = left.saturating_sub(1);
        }
    }

    /// Once `--syscall-limit` calls are shown, every process is let go,
    /// the started ones too, as strace does (they run on untraced).
    fn limit_reached(&mut self) {
        if self.limit != Some(0) || self.limit_hit {
            return;
        }
        self.limit_hit = true;
        if !self.quiet {
            self.out.flush();
            eprintln!("rtrace: system call limit reached, detaching from every process");
        }
        let pids: Vec<i32> = self
            .procs
            .values()
            .filter(|p| !p.detaching)
            .map(|p| p.pid)
            .collect();
        for pid in pids {
            self.start_detach(pid);
        }
    }

    /// The attached tasks not yet being let go.
    pub(super) fn attached_tasks(&self) -> Vec<i32> {
        self.procs
            .values()
            .filter(|p| p.attached && !p.detaching)
            .map(|p| p.pid)
            .collect()
    }

    /// The second interrupt: the started processes die.
    pub(super) fn kill_started(&self) {
        for p in self.procs.values().filter(|p| !p.attached) {
            // SAFETY: plain kill.
            unsafe { libc::kill(p.pid, libc::SIGKILL) };
        }
    }

    /// The trace output cannot be written: let go of every process that
    /// can run on untraced. Those under the seccomp filter cannot: with no
    /// tracer their selected calls fail with ENOSYS. They stay traced,
    /// unshown, until they end. Nor are started ones a second interrupt
    /// has killed (it may be what made a blocked write give up): they are
    /// seen to their end, as after any second interrupt.
    fn output_failed(&mut self) {
        self.output_lost = true;
        self.handle_interrupts();
        let killing = self.interrupts_seen >= 2;
        self.colocation_off();
        let mut newborns: Vec<Held> = Vec::new();
        let mut detach = Vec::new();
        for proc in self.procs.values_mut() {
            let killed = killing && !proc.attached;
            if !proc.seccomp && !killed {
                detach.push(proc.pid);
                continue;
            }
            proc.shown = false;
            if let Life::Newborn { ready } = &mut proc.life {
                // No parent line to wait for any more.
                *ready = true;
                newborns.extend(proc.first_stop.take());
            }
        }
        for pid in detach {
            self.start_detach(pid);
        }
        for held in newborns {
            self.dispatch(Waited::Stopped(held.release()));
        }
    }

    pub(super) fn start_detach(&mut self, pid: i32) {
        if let Some(p) = self.procs.get_mut(&pid) {
            p.detaching = true;
            let _ = kernel::interrupt(Pid::from_raw(pid));
        }
    }

    /// Detach from every process, waiting for each to stop first. Used on
    /// fatal errors; processes we started keep running untraced.
    pub(super) fn detach_all(&mut self) {
        let pids: Vec<i32> = self.procs.keys().copied().collect();
        for pid in pids {
            self.start_detach(pid);
        }
        while !self.procs.is_empty() {
            match self.next_status() {
                None => continue,
                Some(Ok(waited)) => self.dispatch(waited),
                Some(Err(_)) => break,
            }
        }
    }

    /// The next status to handle, fairly: `waitpid(-1)` always reports
    /// real children first and then the newest tracees, so a thread among
    /// busy ones could wait seconds for its turn. Once a wait returns,
    /// every status ready by then is collected, and all are handled in
    /// that order before the next wait. `None` when a signal interrupted
    /// the wait.
    fn next_status(&mut self) -> Option<std::io::Result<Waited>> {
        if let Some(ready) = self.pending.pop_front() {
            return Some(Ok(ready));
        }
        let first = match kernel::wait(-1)? {
            Ok(first) => first,
            Err(e) => return Some(Err(e)),
        };
        self.clock_stop(first.pid());
        // One tracee cannot be starved: spare it the extra wait. Nor can
        // several of which one makes all the stops (a shell waiting for
        // its command): a collection that finds nothing doubles the waits
        // that skip it, up to DRAIN_GAP_MAX, so a task left waiting is
        // collected within that many stops and collections resume at once.
        if self.procs.len() > 1 {
            if self.drain_skip > 0 {
                self.drain_skip -= 1;
            } else {
                while let Some(waited) = kernel::ready() {
                    self.clock_stop(waited.pid());
                    self.pending.push_back(waited);
                }
                self.drain_gap = if self.pending.is_empty() {
                    (self.drain_gap * 2).clamp(1, DRAIN_GAP_MAX)
                } else {
                    0
                };
                self.drain_skip = self.drain_gap;
            }
        }
        Some(Ok(first))
    }

    /// Wait for a status of `pid` alone, taking it from the collected
    /// ones first. `None` when a signal interrupted the wait.
    pub(super) fn wait_for(&mut self, pid: i32) -> Option<std::io::Result<Waited>> {
        if let Some(i) = self.pending.iter().position(|w| w.pid() == pid) {
            return Some(Ok(self.pending.remove(i).expect("found")));
        }
        kernel::wait(pid)
    }
}
