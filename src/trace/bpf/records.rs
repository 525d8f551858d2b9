//! What each record from the ring does, in the order it must be done:
//! a call's entry and exit handed to the engine (an exit sent whole
//! begins its call too), a fork, an exec, an exit, a signal. An entry
//! whose copies failed waits for its exit, which has them again, and a
//! new task's records wait until its parent's line that created it is
//! printed.

use super::*;

impl Bpf {
    /// Handle one record, or keep it until what it waits for comes.
    pub(super) fn dispatch(&mut self, record: Record) {
        let head = record.head;
        let tid = head.tid as i32;
        if let Some(queue) = self.held.get_mut(&tid) {
            queue.push_back(record);
            return;
        }
        // A thread's exec: its entry waits under the tid it had; the exec
        // event and the exit come under the leader's, which it takes.
        if head.kind == wire::EXEC
            && head.nr as i32 != tid
            && let Some(entry) = self.refetching.remove(&(head.nr as i32))
        {
            if let Some(leader) = self.refetching.remove(&tid) {
                // The leader's own call, which de_thread ended.
                self.dispatch_now(leader);
            }
            self.refetching.insert(tid, entry);
            self.exec_between.insert(tid, record);
            return;
        }
        // An entry whose captures failed waits for its exit, which has
        // them again (or for whatever comes next from the task).
        if let Some(mut entry) = self.refetching.remove(&tid) {
            // An exec's own event comes between its entry and its exit:
            // the exit, which has the strings, is the one to wait for.
            if head.kind == wire::EXEC && !self.exec_between.contains_key(&tid) {
                self.exec_between.insert(tid, record);
                self.refetching.insert(tid, entry);
                return;
            }
            let mut record = record;
            if head.kind == wire::LEAVE {
                let late = std::mem::take(&mut record.late);
                entry.snapshot.add_all(late);
                exec_strings::fill(&mut entry, &record.exec_strings);
            }
            self.dispatch_now(entry);
            if let Some(exec) = self.exec_between.remove(&tid) {
                self.dispatch_now(exec);
            }
            self.dispatch_now(record);
            return;
        }
        if head.kind == wire::ENTER && head.flags & wire::REFETCH != 0 {
            self.refetching.insert(tid, record);
            return;
        }
        self.dispatch_now(record);
    }

    /// Hand one record to the engine.
    fn dispatch_now(&mut self, record: Record) {
        let head = record.head;
        let tid = head.tid as i32;
        // The kernel sends records of traced tasks only: one rtrace does
        // not know is a task of -a's, or one whose fork record was lost.
        match head.kind {
            wire::ENTER | wire::LEAVE | wire::SIGNAL | wire::SIGNAL_IGNORED
                if !self.engine.procs.contains_key(&tid) =>
            {
                self.adopt(tid, head.tgid as i32);
            }
            _ => {}
        }
        let at = (head.time != 0).then(|| self.clock.at(head.time));
        self.engine.clock = at;
        self.engine.out.set_event_time(at);
        match head.kind {
            wire::ENTER => self.enter(record),
            wire::LEAVE => self.leave(record),
            wire::FORK => self.fork(tid, head.nr as i32, head.args[0] as i32),
            wire::HELD => self.stopped.push(head.tgid as i32),
            wire::EXEC => {
                let former = head.nr as i32;
                if self.all && !self.engine.procs.contains_key(&former) {
                    self.adopt(former, head.tgid as i32);
                }
                if let Some(proc) = self.engine.procs.get_mut(&former) {
                    proc.name = comm(&head.args);
                }
                let execs = match head.args[2] {
                    0 => u64::MAX,
                    n => n,
                };
                self.execs.insert(head.tgid as i32, execs);
                self.engine.exec_of(tid, former);
            }
            wire::EXIT if self.engine.procs.contains_key(&tid) => {
                self.ignored_in_call.remove(&tid);
                if tid == head.tgid as i32 {
                    self.execs.remove(&tid);
                }
                self.engine.gone(tid, head.nr as i32);
                if self.engine.main_pid == Some(tid) {
                    let mut status = 0;
                    // SAFETY: reaping our own child (once its last thread is gone).
                    unsafe { libc::waitpid(tid, &mut status, libc::WNOHANG | libc::__WALL) };
                }
            }
            // An ignored signal is shown as it is discarded, at its
            // sending: a ptrace tracer sees it as the task takes it, which
            // in a call is where it interrupts the call (shown inline,
            // `read(0, ** SIGWINCH ** ...`). But a child's SIGCHLD to a
            // task waiting for children comes with the child's end, which
            // ends the wait: a wait that returns that child is not
            // interrupted, and the signal is taken after it. Held until
            // the wait's end decides (`leave`); forgotten if the task
            // never gets back (killed in the call).
            wire::SIGNAL_IGNORED if head.nr as i32 == libc::SIGCHLD && self.in_wait(tid) => {
                self.ignored_in_call.entry(tid).or_default().push(head);
            }
            wire::SIGNAL | wire::SIGNAL_IGNORED => self.signal(tid, head),
            _ => {}
        }
        self.engine.clock = None;
        self.engine.out.set_event_time(None);
    }

    fn enter(&mut self, record: Record) {
        let head = record.head;
        let tid = head.tid as i32;
        let Some(proc) = self.engine.procs.get_mut(&tid) else {
            return;
        };
        if let Life::Newborn { .. } = proc.life {
            // Its first call: the fork's return in the child was not seen.
            self.engine.announce_child(tid);
        }
        let same = self.same_program(head.tgid as i32);
        let Some(proc) = self.engine.procs.get_mut(&tid) else {
            return;
        };
        proc.mem.set_same_program(same);
        if proc.suspended.is_empty() {
            proc.mem.set_snapshot(Some(record.snapshot));
        } else {
            // A call a signal interrupted is finished later (EINTR once
            // its handler returns, or restarted): what its exit copied
            // (nanosleep's time left) stays beside the handler's calls'.
            proc.mem.add_snapshot(record.snapshot);
        }
        let (arch, nr) = arch_of(&head);
        self.engine
            .enter(tid, arch, nr, head.args, head.ip, head.sp, false);
    }

    fn leave(&mut self, mut record: Record) {
        let head = record.head;
        let tid = head.tid as i32;
        if head.flags & wire::WHOLE != 0 {
            // Its entry sent nothing: the call begins here, from the
            // registers at its exit (which copied all there is to copy).
            self.enter(Record {
                head: wire::Header {
                    kind: wire::ENTER,
                    ..head
                },
                snapshot: Default::default(),
                late: Default::default(),
                exec_strings: Default::default(),
            });
        }
        if head.flags & wire::DYING != 0 {
            // Its task is being killed: the call never returns to user
            // space, and ptrace never sees this exit. It stays in
            // progress until the task's end finishes it.
            return;
        }
        let Some(proc) = self.engine.procs.get_mut(&tid) else {
            return;
        };
        if let Life::Newborn { .. } = proc.life {
            // The child's return from the call that created it.
            self.engine.announce_child(tid);
            return;
        }
        if proc.call.is_none() && proc.life == Life::Running && !proc.skip_exec_exit {
            // An exit with no entry: a call in progress when tracing
            // began, or one seccomp settled (the kernel skips the entry
            // tracepoint for those), in a signal handler too, while the
            // call the signal interrupted is suspended. The registers
            // still hold its arguments: it is shown whole, from its exit.
            let (arch, nr) = arch_of(&head);
            let same = self.same_program(head.tgid as i32);
            let Some(proc) = self.engine.procs.get_mut(&tid) else {
                return;
            };
            proc.mem.set_same_program(same);
            // Its entry's captures, where the exit took them (a call
            // seccomp settled: the kernel never ran it), over the exit's.
            let mut entry = record.snapshot.clone();
            entry.add_all(std::mem::take(&mut record.late));
            proc.mem.set_snapshot(Some(entry));
            self.engine
                .enter(tid, arch, nr, head.args, head.ip, head.sp, false);
        }
        let Some(proc) = self.engine.procs.get_mut(&tid) else {
            return;
        };
        let fork = proc
            .call
            .as_ref()
            .is_some_and(|c| c.handler.class == CallClass::Fork);
        proc.mem.add_snapshot(record.snapshot);
        // The entry's captures the exit took again although the entry
        // was seen (its task's seccomp filter came during the call, from
        // another thread's SECCOMP_FILTER_FLAG_TSYNC): copied at the exit,
        // so they are what the exit's decoding reads.
        proc.mem.add_snapshot(std::mem::take(&mut record.late));
        // SIGCHLDs held through a wait: the one from the child it
        // returns came after it (waitid returns 0 and names the child in
        // its siginfo: any is taken as that one); another interrupted
        // it, and shows inside its line, as it was sent.
        let waitid = proc.call.as_ref().is_some_and(|c| c.name == "waitid");
        let (after, inside): (Vec<_>, Vec<_>) = self
            .ignored_in_call
            .remove(&tid)
            .unwrap_or_default()
            .into_iter()
            .partition(|sig| {
                head.ret >= 0 && (waitid || i64::from(sig.args[2] as i32) == head.ret)
            });
        for sig in inside {
            self.signal(tid, sig);
        }
        self.engine.leave(tid, head.ret, head.ip);
        if fork {
            self.release_children(tid);
        }
        for sig in after {
            self.signal(tid, sig);
        }
    }

    /// Whether task `tid` is in a call that waits for children.
    fn in_wait(&self, tid: i32) -> bool {
        self.engine.procs.get(&tid).is_some_and(|p| {
            p.call
                .as_ref()
                .is_some_and(|c| matches!(&*c.name, "wait4" | "waitpid" | "waitid"))
        })
    }

    /// What a call of process `tgid` read now may read from it live: while
    /// the kernel counts as many execs as its records have shown.
    fn same_program(&mut self, tgid: i32) -> kernel::SameProgram {
        kernel::SameProgram {
            tgid,
            execs: self.execs.get(&tgid).copied().unwrap_or(0),
            now: self.loaded().execs_now.clone(),
        }
    }

    /// Task `parent` created `child` (of thread group `child_tgid`).
    fn fork(&mut self, parent: i32, child: i32, child_tgid: i32) {
        let engine = &mut self.engine;
        if engine.procs.contains_key(&child) {
            return;
        }
        let Some(p) = engine.procs.get_mut(&parent) else {
            return;
        };
        let thread = child_tgid == p.tgid;
        // The call's own memory, as copied at its entry (clone3's args).
        let flags = match p.call.as_ref() {
            Some(c) => super::super::tasks::clone_flags(&c.name, &c.args, &mut p.mem),
            None if thread => (libc::CLONE_THREAD | libc::CLONE_FILES) as u64,
            None => 0,
        };
        let p = engine.procs.get(&parent).expect("present");
        let fds = super::super::tasks::child_fds(p, flags, child);
        let shown = p.shown && (engine.follow || self.all);
        let waits = shown && p.call.is_some();
        let call = super::super::tasks::parent_call(p).filter(|_| shown);
        let mut proc = Proc::new(
            child,
            p.name.clone(),
            p.attached,
            Life::Newborn { ready: !waits },
            fds,
        );
        proc.tgid = child_tgid;
        proc.shown = shown;
        proc.call = call;
        proc.argv = engine.procs.get(&parent).and_then(|p| p.argv.clone());
        engine.add_child(parent, proc);
        if waits {
            self.newborns.entry(parent).or_default().push(child);
            self.held.insert(child, VecDeque::new());
        }
    }

    /// The parent's line is printed: its new tasks' records go on.
    fn release_children(&mut self, parent: i32) {
        let Some(children) = self.newborns.remove(&parent) else {
            return;
        };
        for child in children {
            if let Some(queue) = self.held.remove(&child) {
                for record in queue {
                    self.dispatch(record);
                }
            }
        }
    }

    fn signal(&mut self, tid: i32, head: wire::Header) {
        // The lossless mode's own stop (bpf_send_signal's SI_KERNEL), when
        // it was taken after rtrace had let the process go again: the
        // program leaves out only those it takes while the process is held.
        let si_code = head.args[1] as i32 as u64;
        if self.lossless
            && head.nr as i32 == libc::SIGSTOP
            && si_code == crate::abi::xlat::signal::SI_KERNEL
        {
            return;
        }
        let Some(proc) = self.engine.procs.get_mut(&tid) else {
            return;
        };
        if let Some(top) = proc.suspended.last_mut() {
            top.signalled = true;
        }
        let sig = head.nr as i32;
        // SIGKILL is taken without a stop ptrace could show: the task's
        // end line names it, under either engine.
        if sig == libc::SIGKILL
            || proc.life == Life::Starting
            || !self.engine.select.signals.contains(sig)
            || self.engine.summary == super::super::Summary::Only
        {
            return;
        }
        let info = (self.engine.fmt.json || self.engine.fmt.verbose > 0).then(|| {
            let mut info = [0u8; SIGINFO_SIZE];
            for (i, word) in head.args.iter().enumerate() {
                info[i * 8..i * 8 + 8].copy_from_slice(&word.to_ne_bytes());
            }
            info
        });
        self.engine.put_signal(tid, sig, info);
    }
}

/// The task name (`comm`, 16 bytes with its NUL) an exec record carries.
fn comm(args: &[u64; 6]) -> TraceeText {
    let mut bytes: Vec<u8> = args[..2].iter().flat_map(|w| w.to_ne_bytes()).collect();
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    bytes.truncate(end);
    TraceeText::new(bytes)
}

/// The ABI and number of a call record.
pub(super) fn arch_of(head: &wire::Header) -> (Arch, u64) {
    let nr = head.nr as u64;
    if head.flags & wire::COMPAT != 0 {
        (Arch::I386, nr)
    } else if nr & 0x4000_0000 != 0 {
        (Arch::X32, nr)
    } else {
        (Arch::X86_64, nr)
    }
}
