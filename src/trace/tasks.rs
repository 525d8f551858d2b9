//! Tasks coming and going: fork, vfork and clone children (their first
//! stop, the parent's event, whichever comes first), exec, exit and
//! death, and the orphans a detached parent leaves.
//!
//! The wait loop (src/trace/main_loop.rs) and the stop dispatch
//! (src/trace/stops.rs) turn wait statuses into these events; here the
//! process table changes.

use std::cell::RefCell;
use std::rc::Rc;

use nix::unistd::Pid;

use super::calls::End;
use super::{Engine, Exit, Life, Proc, Report};
use crate::call::{CallData, CallType, Show, call_replay};
use crate::escape::TraceeText;
use crate::fdtable::SharedFdTable;
use crate::kernel::{self, Handled, Memory, Resume, Stop, Waited};
use crate::output::Style;

impl Engine {
    pub(super) fn remove(&mut self, pid: i32) {
        if let Some(p) = self.procs.remove(&pid) {
            self.out.forget(pid);
            if p.tgid == pid
                && let Some(stacks) = &mut self.stacks
            {
                stacks.forget(pid);
            }
            // Gone in a call that held another task on its own mask.
            if let Some(target) = p.holding {
                self.release(target);
            }
            for child in p.children {
                self.release_child(child);
            }
        }
        self.set_count();
        self.adopt_orphans();
    }

    /// Detach the child a detaching process's fork event announced, once
    /// its first stop is in (it stops before running any code of its own).
    pub(super) fn detach_unborn(&mut self, parent: i32) {
        let Some(child) = kernel::event_msg(Pid::from_raw(parent)) else {
            return;
        };
        if self.procs.contains_key(&child) {
            return;
        }
        let stop = match self.orphans.remove(&child) {
            Some(held) => held.release(),
            None => loop {
                match self.wait_for(child) {
                    None => continue,
                    Some(Ok(Waited::Stopped(stop))) => break stop,
                    // It is gone already: nothing to let go of.
                    _ => return,
                }
            },
        };
        self.resume(stop, Resume::Detach(0));
    }

    /// Start the parked first stops of children whose parent can no longer
    /// announce them: a process killed inside fork() reports no fork event.
    pub(super) fn adopt_orphans(&mut self) {
        let waiting: Vec<i32> = self.orphans.keys().copied().collect();
        for pid in waiting {
            let (ppid, tgid) = parent_ids(pid);
            let announcer_left = |p: Option<i32>| {
                p.is_none_or(|p| {
                    p == pid
                        || self
                            .procs
                            .get(&p)
                            .is_none_or(|proc| proc.call.is_none() && proc.suspended.is_empty())
                })
            };
            if !announcer_left(ppid) || (tgid != Some(pid) && !announcer_left(tgid)) {
                continue;
            }
            let Some(held) = self.orphans.remove(&pid) else {
                continue;
            };
            let name = kernel::process_name(Pid::from_raw(pid))
                .unwrap_or_else(|| TraceeText::from("<unknown>"));
            let table = crate::fdtable::FdTable::new(pid);
            let mut proc = Proc::new(
                pid,
                name,
                false,
                Life::Newborn { ready: true },
                Rc::new(RefCell::new(table)),
            );
            proc.seccomp = self.seccomp;
            proc.tgid = tgid.unwrap_or(pid);
            proc.shown = self.follow && !self.output_lost;
            // A thread's creator is a thread of its group; the leader
            // stands for it.
            let creator = if tgid != Some(pid) { tgid } else { ppid };
            if let Some(creator) = creator.and_then(|c| self.procs.get(&c)) {
                proc.own = creator.own.inherited();
            }
            self.procs.insert(pid, proc);
            self.set_count();
            self.child_start(held.release());
        }
    }

    pub(super) fn fork_event(&mut self, pid: i32, event: i32) {
        let Some(child) = kernel::event_msg(Pid::from_raw(pid)) else {
            return;
        };
        if self.procs.contains_key(&child) {
            // Its first stop came first and it was started already.
            return;
        }
        let Some(parent) = self.procs.get_mut(&pid) else {
            return;
        };
        let flags = match parent.call.as_ref() {
            Some(c) => clone_flags(&c.name, &c.args, &mut parent.mem),
            // The clone itself did not stop (fast path): ask procfs. (Not
            // the event: clone(CLONE_THREAD|SIGCHLD) reports a fork event.)
            None if kernel::is_thread_of(parent.tgid, child) => {
                (libc::CLONE_THREAD | libc::CLONE_FILES) as u64
            }
            None => 0,
        };
        let fds = child_fds(parent, flags, child);
        let call = parent_call(parent);
        let vfork = event == libc::PTRACE_EVENT_VFORK;
        let shown = parent.shown && self.follow;
        // The child waits for its parent's fork line, if the parent's call
        // is traced at all (under the fast path it may not stop).
        let wait_for_parent = shown && !vfork && parent.call.is_some();
        if wait_for_parent {
            parent.children.push(child);
        }
        let name = parent.name.clone();
        let seccomp = parent.seccomp;
        let own = parent.own.inherited();
        let tgid = if flags & libc::CLONE_THREAD as u64 != 0 {
            parent.tgid
        } else {
            child
        };
        let mut proc = Proc::new(
            child,
            name,
            parent.attached,
            Life::Newborn {
                ready: !wait_for_parent,
            },
            fds,
        );
        proc.first_stop = self.orphans.remove(&child);
        proc.call = call.filter(|_| shown);
        proc.seccomp = seccomp;
        proc.own = own;
        proc.tgid = tgid;
        proc.shown = shown;
        self.add_child(pid, proc);
        if !wait_for_parent {
            // A vfork parent sleeps until the child execs or exits, and an
            // untraced fork prints no line to wait for: start the child now.
            self.release_child(child);
        }
    }

    /// The parent has printed the call that created `child`: it may start.
    pub(super) fn release_child(&mut self, child: i32) {
        let Some(proc) = self.procs.get_mut(&child) else {
            return;
        };
        let Life::Newborn { ready } = &mut proc.life else {
            return;
        };
        *ready = true;
        let waited = match proc.first_stop.take() {
            Some(held) => Waited::Stopped(held.release()),
            None => {
                // The child stops before running any of its own code, so its
                // first stop is imminent: take it now, which keeps its banner
                // right after the parent's call in the trace.
                loop {
                    match self.wait_for(child) {
                        None => continue,
                        Some(Ok(waited)) => break waited,
                        Some(Err(_)) => return,
                    }
                }
            }
        };
        match waited {
            Waited::Stopped(stop) => {
                self.child_start(stop);
            }
            Waited::Ended { status, .. } | Waited::Other { status, .. } => self.gone(child, status),
        }
    }

    /// A new child's first stop: banner, its half of the parent's call
    /// (`fork() = 0`), then it runs.
    pub(super) fn child_start(&mut self, stop: Stop) -> Handled {
        let pid = stop.pid();
        let Some(proc) = self.procs.get_mut(&pid) else {
            return self.resume_tracee(stop, 0);
        };
        proc.life = Life::Running;
        let sig = stop.sig();
        // An ordinary signal that arrived before the first stop.
        let signal = stop.event() == 0 && sig != libc::SIGSTOP && sig != (libc::SIGTRAP | 0x80);
        if !proc.shown {
            return self.resume(stop, Resume::Cont(if signal { sig } else { 0 }));
        }
        self.announce_child(pid);
        if signal {
            // An ordinary signal arrived first: report and deliver it.
            self.signal_stop(stop)
        } else {
            self.resume_tracee(stop, 0)
        }
    }

    /// A new child's banner and its half of its parent's call.
    pub(super) fn announce_child(&mut self, pid: i32) {
        let Some(proc) = self.procs.get_mut(&pid) else {
            return;
        };
        proc.life = Life::Running;
        // Under the BPF engine the task runs on: /proc tells what it is
        // now, not at its start, and its name is its parent's.
        if self.proc_is_current
            && let Some(name) = kernel::process_name(Pid::from_raw(pid))
        {
            proc.name = name;
        }
        let name = proc.name.clone();
        // Under the BPF engine /proc's arguments may be a later program's:
        // a new process has its parent's.
        let argv = proc.argv.clone().filter(|_| !self.proc_is_current);
        let call = proc.call.take();
        self.report(pid, Report::Tracing(name, argv));
        if self.fmt.json {
            // The child's half of the call, `fork() = 0`, as an object.
            if let Some(mut call) = call.filter(|c| c.show != Show::Hidden) {
                let proc = self.procs.get_mut(&pid).expect("present");
                let fds = proc.fds.borrow();
                crate::call::call_leave(
                    crate::call::Stopped {
                        out: &mut self.out,
                        cfg: &self.fmt,
                        mem: &mut proc.mem,
                        pid,
                        tgid: proc.tgid,
                        fds: &fds,
                    },
                    &mut call,
                    0,
                    false,
                    true,
                    None,
                );
            }
        } else if let Some(call) = call.filter(|c| c.show == Show::Live) {
            call_replay(&mut self.out, &self.fmt, pid, &call, false);
            let text = if call.kind == CallType::NotDone {
                "..) = 0"
            } else {
                "0"
            };
            self.out.text(Some(pid), text, Style::Plain);
            let tgid = self.procs.get(&pid).map_or(pid, |p| p.tgid);
            crate::call::timeline_slice(&mut self.out, tgid, pid, &call, Some(0), None);
            self.out.record_clear(pid);
            self.out.newline();
        }
    }

    /// A successful execve, reported under `pid`, the pid the process has
    /// now (a thread that execs takes over the leader's pid).
    pub(super) fn exec_event(&mut self, pid: i32) {
        let former = kernel::event_msg(Pid::from_raw(pid)).unwrap_or(pid);
        self.exec_of(pid, former);
    }

    /// A successful execve by task `former`, which is now `pid` (the
    /// leader's tid, where a thread exec'd).
    pub(super) fn exec_of(&mut self, pid: i32, former: i32) -> i32 {
        // The old image's modules are gone (the new ones are read when a
        // stack is next wanted).
        if let Some(stacks) = &mut self.stacks {
            stacks.forget(pid);
        }
        if former != pid && self.procs.contains_key(&former) {
            // The old leader is gone without an exit report; the execing
            // thread carries on under the leader's pid, shown as the leader
            // was (without -f a thread under the filter is not shown).
            let leader_shown = self.procs.get(&pid).map(|p| p.shown);
            if leader_shown.is_some() {
                self.out.newline_for(Some(pid));
                self.remove(pid);
            }
            let mut proc = self.procs.remove(&former).expect("checked");
            if let Some(shown) = leader_shown {
                proc.shown = shown;
            }
            let record = self.out.take_record(former);
            self.out.forget(former);
            self.out.restore_record(pid, record);
            proc.pid = pid;
            proc.tgid = pid;
            // (Its memory, which holds the execve's copy under the BPF
            // engine, is replaced below, once its arguments are read.)
            self.procs.insert(pid, proc);
            self.set_count();
            if self.out.line_is(former) {
                self.out.newline();
            }
        }
        let Some(proc) = self.procs.get_mut(&pid) else {
            return pid;
        };
        proc.life = Life::Running;
        // (The BPF engine names it from its exec record.)
        if self.proc_is_current
            && let Some(name) = kernel::process_name(Pid::from_raw(pid))
        {
            proc.name = name;
        }
        // Under the BPF engine, the arguments the execve copied (/proc may
        // be a later program's by now).
        proc.argv = if self.proc_is_current {
            None
        } else {
            proc.call
                .as_ref()
                .and_then(|c| exec_argv(&c.name, c.arch, &c.args, &mut proc.mem))
        };
        // Exec gives the process its own fd table minus close-on-exec fds.
        let mut table = proc.fds.borrow().clone();
        table.pid = pid;
        table.exec();
        proc.fds = Rc::new(RefCell::new(table));
        proc.suspended.clear();
        proc.mem = Memory::new(Pid::from_raw(pid));
        // execve's exit stop follows the exec event, unless the process is
        // resumed with PTRACE_CONT (under the fast path), which reports none.
        proc.skip_exec_exit = proc.steps_every_call();
        let quiet = std::mem::take(&mut proc.quiet_exec);
        let name = proc.name.clone();
        if let Some(mut call) = proc.call.take() {
            self.finish(pid, &mut call, 0, End::Exec);
        }
        if quiet {
            return pid;
        }
        if self.detach_on_exec {
            // -b execve: the new program runs on untraced (strace's
            // "detach on execve"); its execve's line is the last.
            if let Some(proc) = self.procs.get_mut(&pid) {
                proc.let_go = true;
            }
            self.start_detach(pid);
            return pid;
        }
        let argv = self.procs.get(&pid).and_then(|p| p.argv.clone());
        self.report(pid, Report::Exec(name, argv));
        pid
    }

    pub(super) fn gone(&mut self, pid: i32, status: i32) {
        let status = self.own_seccomp_status(pid, status);
        if self.orphans.remove(&pid).is_some() || !self.procs.contains_key(&pid) {
            return;
        }
        // A child that dies before its first stop was never announced (as
        // trace(1), do not report it), and the call it holds is its
        // parent's, kept for the `fork() = 0` half.
        if !self.procs[&pid].shown || matches!(self.procs[&pid].life, Life::Newborn { .. }) {
            self.remove(pid);
            return;
        }
        let proc = self.procs.get_mut(&pid).expect("checked");
        let unfinished = self.select.status.unfinished && self.printing;
        if let Some(mut call) = proc.call.take() {
            let exits = matches!(&*call.name, "exit" | "exit_group");
            if libc::WIFEXITED(status) && (call.kind == CallType::NoReturn || exits) {
                // exit(): no leave event comes; show the call as finished.
                self.finish(pid, &mut call, 0, End::Exit);
            } else if self.fmt.json {
                self.finish(pid, &mut call, 0, End::Killed);
            } else if call.show == Show::Deferred {
                // Killed inside a held-back call: it never finished.
                if unfinished {
                    self.out.undefer(pid);
                } else {
                    self.out.discard(pid);
                }
            }
        }
        let report = if libc::WIFEXITED(status) {
            Report::Exited(libc::WEXITSTATUS(status))
        } else {
            Report::Killed(libc::WTERMSIG(status))
        };
        self.report(pid, report);
        self.remove(pid);
        if self.main_pid == Some(pid) {
            self.main_exit = Some(if libc::WIFEXITED(status) {
                Exit::Code(libc::WEXITSTATUS(status))
            } else {
                Exit::Signal(libc::WTERMSIG(status))
            });
        }
    }
}

impl Engine {
    /// A new task joins the table; shown, it inherits its parent's
    /// recorded line (for its half of the fork call).
    pub(super) fn add_child(&mut self, parent: i32, proc: Proc) {
        if proc.shown {
            self.out.record_copy(parent, proc.pid);
        }
        self.procs.insert(proc.pid, proc);
        self.set_count();
    }
}

/// A new task's fd table: its parent's, shared (CLONE_FILES), or a copy.
pub(super) fn child_fds(parent: &Proc, clone_flags: u64, child: i32) -> SharedFdTable {
    if clone_flags & libc::CLONE_FILES as u64 != 0 {
        parent.fds.clone()
    } else {
        let mut copy = parent.fds.borrow().clone();
        copy.pid = child;
        Rc::new(RefCell::new(copy))
    }
}

/// The parent's open call, for the child's half of it (`fork() = 0`),
/// without what its enter half kept for its own leave.
pub(super) fn parent_call(parent: &Proc) -> Option<super::Ongoing> {
    let mut call = parent.call.clone();
    if let Some(c) = call.as_mut() {
        c.data = CallData::None;
    }
    call
}

/// A task's parent pid and thread group id, from /proc/PID/status.
fn parent_ids(pid: i32) -> (Option<i32>, Option<i32>) {
    // Bytes: its Name line is the task's own choice and need not be UTF-8.
    let Ok(status) = std::fs::read(format!("/proc/{pid}/status")) else {
        return (None, None);
    };
    let status = String::from_utf8_lossy(&status);
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
    };
    (field("PPid:"), field("Tgid:"))
}

/// The clone flags of fork-class call `name` with `args` (none for fork
/// and vfork): clone takes them first on x86_64 and i386 alike, and
/// clone3's are the first field of its `struct clone_args` (a u64 on both).
/// Whether the fd table is shared, and whether the new task is traced.
pub(super) fn clone_flags(name: &str, args: &[u64; 6], mem: &mut Memory) -> u64 {
    match name {
        "clone" => args[0],
        "clone3" => {
            let mut raw = [0u8; 8];
            if mem.read_exact(args[0], &mut raw) {
                u64::from_ne_bytes(raw)
            } else {
                0
            }
        }
        _ => 0,
    }
}

/// The arguments after argv[0] that execve (or execveat) `name` passed, as
/// the call's memory holds them (the BPF engine's copy), up to one the
/// copy has only the start of; `None` where any is missing.
fn exec_argv(
    name: &str,
    arch: crate::kernel::Arch,
    args: &[u64; 6],
    mem: &mut Memory,
) -> Option<Vec<TraceeText>> {
    let array = match name {
        "execve" => args[1],
        "execveat" => args[2],
        _ => return None,
    };
    let word = if arch == crate::kernel::Arch::I386 {
        4
    } else {
        8
    };
    let mut out = Vec::new();
    for i in 0..MAX_EXEC_ARGS {
        let at = mem.read_word(array + i * word, arch)?;
        if at == 0 {
            return Some(out);
        }
        let (text, whole) = mem.read_cstr(at, crate::format::PATH_MAX)?;
        if i > 0 {
            out.push(TraceeText::new(text));
        }
        if !whole {
            // Copied as far as -s shows a string, one byte more: the
            // banner, which shows -s bytes of them all, ends there.
            return Some(out);
        }
    }
    None
}

/// The most arguments of an exec the BPF engine copies (RT_VEC_MAX).
const MAX_EXEC_ARGS: u64 = 64;
