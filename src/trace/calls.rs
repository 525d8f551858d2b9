//! The engine's side of system calls: syscall stops become call-enter and
//! call-leave for the call layer, with selection (which calls print),
//! statistics, and calls interrupted by signals and restarted by the kernel.
//!
//! A call's diagnostics (`-e diag=`) are run and printed by `diags.rs`;
//! the signals that interrupt calls are shown by `signal_stops.rs`.

use nix::unistd::Pid;

use super::{Engine, Life, Ongoing, Summary, Suspended};
use crate::call::{
    Call, CallClass, CallData, CallType, Show, Stopped, call_enter, call_leave, is_error,
    is_restart,
};
use crate::format::{CallStyle, FormatState};
use crate::kernel::{self, Arch, SyscallOp};
use std::borrow::Cow;
use std::cell::RefCell;

use super::filtering::{Action, CallFields};
use crate::diag::{self, CallInfo};
use crate::service;

/// How a call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum End {
    /// It returned (its exit stop).
    Returned,
    /// It was a successful execve: the exec event ended it.
    Exec,
    /// The process exited inside it (exit, exit_group).
    Exit,
    /// The process was killed inside it (JSON: written with no result).
    Killed,
    /// rtrace detached from the process inside it (likewise).
    Detached,
}

impl Engine {
    /// A syscall stop (or a seccomp stop, which is always an entry); the
    /// signal to resume the task with (one `-e inject=` sends).
    pub(super) fn syscall_stop(&mut self, pid: i32, seccomp_stop: bool) -> i32 {
        let Some(proc) = self.procs.get_mut(&pid) else {
            return 0;
        };
        if seccomp_stop && proc.call.is_some() {
            // The same entry already reported as a syscall-enter stop (a
            // tracee that was stepping calls when the filter took over).
            return 0;
        }
        let entering = proc.call.is_none();
        let Ok(stop) = kernel::syscall_stop(Pid::from_raw(pid), entering) else {
            return 0;
        };
        match stop.op {
            SyscallOp::Entry { nr, args } => {
                self.enter(pid, stop.arch, nr, args, stop.ip, stop.sp, seccomp_stop);
                self.own_seccomp_entered(pid, stop.arch, nr);
                self.inject_entered(pid, seccomp_stop)
            }
            SyscallOp::Exit { rval } => {
                // A call skipped for an injected result did not run: the
                // seccomp emulation has nothing to learn from it.
                let skipped = self.inject_skips(pid);
                let (rval, sig) = self.inject_leaving(pid, rval).unwrap_or((rval, 0));
                let rval = if skipped {
                    rval
                } else {
                    self.own_seccomp_leaving(pid, rval)
                };
                self.leave(pid, rval, stop.ip);
                sig
            }
        }
    }

    /// Whether call `nr` of `arch` is selected for printing.
    fn is_selected(&mut self, arch: Arch, nr: u64, name: &str) -> bool {
        if self.select.trace.is_all() {
            return true;
        }
        if let Some(&known) = self.selected.get(&(arch, nr)) {
            return known;
        }
        let selected = self.select.trace.contains(name);
        self.selected.insert((arch, nr), selected);
        selected
    }

    /// How `-e abbrev=`, `-e verbose=` and `-e raw=` print call `nr` of
    /// `arch`, named `name`.
    fn call_style(&mut self, arch: Arch, nr: u64, name: &str) -> CallStyle {
        let select = &self.select;
        if select.abbrev.is_none() && select.verbose.is_none() && select.raw.is_none() {
            return CallStyle::default();
        }
        *self
            .styles
            .entry((arch, nr))
            .or_insert_with(|| style_of(select, name))
    }

    /// Count one attempt of a call for `-c`, as strace does: each time the
    /// kernel leaves it (an interrupted call and its restart are two), and
    /// a successful exec; a call that never returns is not counted.
    pub(super) fn count(&mut self, call: &Call, rval: i64) {
        if self.summary != Summary::Off && call.selected {
            let name = call.attempt_name.unwrap_or(&call.name);
            self.stats.record(
                name,
                is_error(rval),
                self.now().saturating_duration_since(call.attempt),
            );
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn enter(
        &mut self,
        pid: i32,
        arch: Arch,
        nr: u64,
        args: [u64; 6],
        ip: u64,
        sp: u64,
        seccomp_stop: bool,
    ) {
        let Some(proc) = self.procs.get_mut(&pid) else {
            return;
        };
        let (mut name, mut entry) = service::lookup(arch, nr);
        let mut args = args;
        let socketcall = args[0];
        // An i386 socketcall is shown, selected and filtered as the call it
        // stands for (strace does the same); its number stays socketcall's.
        let mut demultiplexed = false;
        if arch == Arch::I386
            && name == "socketcall"
            && let Some((sub, sub_args)) = service::net::socketcall(args[0], args[1], &mut proc.mem)
        {
            (name, entry, args) = (Cow::Borrowed(sub), service::lookup_name(sub), sub_args);
            demultiplexed = true;
        }
        // So is an i386 ipc(2) (semop, shmat, ...).
        if arch == Arch::I386
            && name == "ipc"
            && let Some((sub, sub_args)) = service::ipc::ipc_call(args, &mut proc.mem)
        {
            (name, entry, args) = (Cow::Borrowed(sub), service::lookup_name(sub), sub_args);
            demultiplexed = true;
        }
        args = as_the_kernel_reads(arch, (!demultiplexed).then_some(nr), &name, args);
        let selected = if demultiplexed {
            self.select.trace.is_all() || self.select.trace.contains(&name)
        } else {
            self.is_selected(arch, nr, &name)
        };
        if self.colo.enabled() && super::affinity::on_own_mask(entry.handler.class, &name) {
            self.own_mask_entered(pid, &name, &args);
        }
        // -e inject=: every invocation counts, printed or not; our own
        // child's calls before its exec are not the command's.
        let starting = self
            .procs
            .get(&pid)
            .is_some_and(|p| p.life == Life::Starting);
        let injecting = !self.select.inject.is_empty()
            && (!starting || entry.handler.class == CallClass::Exec)
            && self.inject_decide(
                pid,
                arch,
                nr,
                if demultiplexed { socketcall } else { u64::MAX },
                &name,
                &args,
                entry.sig.map_or(6, |s| s.params.len()),
            );
        let Some(proc) = self.procs.get_mut(&pid) else {
            return;
        };
        // -P and --trace-fds: a call that touches none of the files is
        // unselected (neither printed nor counted, as in strace).
        let selected = selected
            && (!self.select.paths.is_active()
                || self.select.paths.matches(
                    super::paths::Entry {
                        sig: entry.sig,
                        arch,
                        args: &args,
                        tid: pid,
                        current: self.proc_is_current,
                    },
                    &mut proc.mem,
                    &proc.fds.borrow(),
                ));
        // A bookkeeping call the fast path stopped only for its effect:
        // when its return tells nothing, it runs on (PTRACE_CONT, no
        // return stop; not while a call is suspended, which steps calls).
        if seccomp_stop
            && !selected
            && !injecting
            && proc.life == Life::Running
            && proc.suspended.is_empty()
            && !service::fs::needs_return(
                &name,
                arch,
                &args,
                &mut proc.fds.borrow_mut(),
                &mut proc.mem,
            )
        {
            return;
        }
        if proc.life == Life::Starting {
            // Our own child's calls before its exec are not the command's.
            // Under the filter nothing of ours stops but the execve: any
            // other call comes after an execve (not selected) that failed.
            // A child that steps every call (the usbmon emulation's
            // filter) shows its own calls before the exec as without it.
            if entry.handler.class != CallClass::Exec && (!proc.seccomp || proc.own.steps()) {
                return;
            }
            // (-u's setreuid, the one call of ours after the filter.)
            if proc.own_setreuid && name == "setreuid" {
                proc.own_setreuid = false;
                return;
            }
            proc.life = Life::Running;
        }
        let now = self.clock.unwrap_or_else(std::time::Instant::now);
        if let Some(top) = proc.suspended.last() {
            // A restart re-runs the same instruction with the same stack and
            // registers (restart_syscall carries its own arguments).
            let same_site = top.call.arch == arch && top.call.ip == ip && top.call.sp == sp;
            let restart = name == "restart_syscall" || (top.call.nr == nr && top.call.args == args);
            if restart && same_site {
                // The kernel restarts the interrupted call: it continues.
                let s = proc.suspended.pop().expect("checked above");
                self.out.restore_record(pid, s.record);
                let mut call = s.call;
                call.attempt = now;
                call.attempt_name = (name == "restart_syscall").then_some("restart_syscall");
                proc.call = Some(call);
                return;
            }
            if !top.signalled || same_site {
                // No signal came to turn the ERESTART* into a restart or
                // an error, or the same call site runs again with other
                // arguments (a handler left by longjmp and abandoned the
                // call): show what the kernel returned.
                let s = proc.suspended.pop().expect("checked above");
                self.out.restore_record(pid, s.record);
                let mut call = s.call;
                self.finish(pid, &mut call, s.rval, End::Returned);
            } else if let Some(top) = proc.suspended.last_mut() {
                top.handler_ran = true;
            }
        }
        let show = if !selected || self.summary == Summary::Only {
            Show::Hidden
        } else if self.deferring {
            Show::Deferred
        } else {
            Show::Live
        };
        let proc = self.procs.get_mut(&pid).expect("present");
        if proc.call.is_some() {
            // An enter without a leave: under ptrace it cannot happen; under
            // --bpf it is a call whose exit record the full ring lost. Its
            // line ends unfinished (` <..>`, while it is still the current
            // line) and is never replayed: no result was seen.
            proc.call = None;
            self.out.newline_for(Some(pid));
            self.out.record_clear(pid);
        }
        let style = if demultiplexed {
            // A socketcall's subcalls share its number: not cached.
            style_of(&self.select, &name)
        } else {
            self.call_style(arch, nr, &name)
        };
        let proc = self.procs.get_mut(&pid).expect("present");
        let mut call = Call {
            nr,
            arch,
            name,
            args,
            handler: entry.handler,
            sig: entry.sig,
            kind: CallType::Done,
            fmt: FormatState::styled(style),
            data: CallData::None,
            ip,
            sp,
            show,
            selected,
            entered: now,
            attempt: now,
            attempt_name: None,
            tamper: Default::default(),
            stack: None,
        };
        // An exec's stack is the old image's: taken now, before it goes
        // (not for the started command's own, whose old image is rtrace's
        // child before the exec: rtrace's frames, not the program's).
        if self.stack_trace
            && call.handler.class == CallClass::Exec
            && show != Show::Hidden
            && !starting
            && let Some(stacks) = &mut self.stacks
        {
            call.stack = Some(stacks.unwind(pid, proc.tgid, &mut proc.mem));
        }
        let fds = proc.fds.borrow();
        let mut entered = diag::Entered::default();
        if self.select.diag.any() && diag::looks_at(&call.name) {
            let info = CallInfo {
                name: &call.name,
                arch,
                args,
                tgid: proc.tgid,
            };
            entered = diag::enter(self.select.diag, &info, &fds, &mut proc.mem);
        }
        call_enter(
            Stopped {
                out: &mut self.out,
                cfg: &self.fmt,
                mem: &mut proc.mem,
                pid,
                tgid: proc.tgid,
                fds: &fds,
            },
            &mut call,
        );
        drop(fds);
        proc.call = Some(Ongoing {
            call,
            diag: entered,
        });
    }

    pub(super) fn leave(&mut self, pid: i32, rval: i64, ip: u64) {
        let Some(proc) = self.procs.get_mut(&pid) else {
            return;
        };
        if proc.skip_exec_exit {
            proc.skip_exec_exit = false;
            proc.call = None;
            return;
        }
        let Some(mut call) = proc.call.take() else {
            return;
        };
        if proc.holding.is_some() {
            self.own_mask_left(pid);
        }
        if is_restart(rval) && call.handler.class != CallClass::Sigreturn {
            self.count(&call, rval);
            // The line stays open for the signal and the restart; the call
            // keeps its own copy of the recording for handler calls to come.
            let proc = self.procs.get_mut(&pid).expect("present");
            // Its stack now: it may be finished at another call's stop.
            if self.stack_trace
                && call.call.show != Show::Hidden
                && let Some(stacks) = &mut self.stacks
            {
                call.call.stack = Some(stacks.unwind(pid, proc.tgid, &mut proc.mem));
            }
            let record = self.out.take_record(pid);
            self.out.restore_record(pid, record.clone());
            proc.suspended.push(Suspended {
                call,
                record,
                rval,
                handler_ran: false,
                signalled: false,
            });
            return;
        }
        // A call skipped for an injected result did not run: the file's
        // state (the diagnostics' bookkeeping, the fd table) is unchanged.
        let diags = if call.tamper.injected {
            Vec::new()
        } else {
            self.diagnose(pid, &mut call, rval)
        };
        let proc = self.procs.get_mut(&pid).expect("present");
        if !is_error(rval) && !call.tamper.injected {
            let mut fds = proc.fds.borrow_mut();
            service::fs::track(
                &call.name,
                call.arch,
                &call.args,
                &call.data,
                rval,
                &mut fds,
                &mut proc.mem,
            );
        }
        // rt_sigreturn's result register and ip are the restored context.
        // Back at the interrupted call's return address with an error, the
        // call did not restart: it ends with that error (EINTR). Rewound to
        // its syscall instruction, it restarts; anywhere else (a handler
        // returning into an outer handler) it is still pending.
        let interrupted_ends = call.handler.class == CallClass::Sigreturn
            && is_error(rval)
            && proc.suspended.last().is_some_and(|top| top.call.ip == ip);
        self.finish(pid, &mut call, rval, End::Returned);
        self.put_diags(pid, &diags);
        self.count(&call, rval);
        if interrupted_ends {
            let proc = self.procs.get_mut(&pid).expect("present");
            let s = proc.suspended.pop().expect("checked above");
            self.out.restore_record(pid, s.record);
            let mut interrupted = s.call;
            self.finish(pid, &mut interrupted, rval, End::Returned);
        }
        if call.handler.class == CallClass::Fork {
            let proc = self.procs.get_mut(&pid).expect("present");
            let children = std::mem::take(&mut proc.children);
            for child in children {
                self.release_child(child);
            }
        }
    }

    /// Print the leave half of `call` (if it is shown) and count it.
    pub(super) fn finish(&mut self, pid: i32, call: &mut Call, rval: i64, end: End) {
        let status = self.select.status;
        let outcome_selected = match end {
            End::Returned if is_error(rval) => status.failed,
            End::Returned | End::Exec => status.successful,
            End::Exit | End::Killed => status.unfinished,
            End::Detached => status.detached,
        };
        let mut print = self.printing && outcome_selected;
        let duration = match end {
            End::Returned => self
                .call_times
                .then(|| self.now().saturating_duration_since(call.entered)),
            _ => None,
        };
        // rt_sigreturn's result is the register it restored (the
        // interrupted code's: `= 0`, `= -1 [EINTR]`), printed as strace
        // does; a successful exec or an exit ends without a result.
        let skip = match end {
            End::Returned => false,
            End::Exec | End::Exit => call.kind == CallType::NoReturn,
            End::Killed | End::Detached => true,
        };
        let Some(proc) = self.procs.get_mut(&pid) else {
            return;
        };
        let mut stack = false;
        if call.selected && (self.select.filter.is_some() || !self.select.triggers.is_empty()) {
            let fds = proc.fds.borrow();
            let fields = CallFields {
                call,
                rval: (end == End::Returned && !skip).then_some(rval),
                tid: pid,
                tgid: proc.tgid,
                fds: &fds,
                mem: RefCell::new(&mut proc.mem),
            };
            if let Some(filter) = &self.select.filter
                && !filter.matches(&fields)
            {
                print = false;
            }
            // Triggers see every selected call; the call itself is printed
            // by the state before they fire, as with the kernel's.
            for trigger in &mut self.select.triggers {
                if trigger.remaining == Some(0)
                    || !trigger.filter.as_ref().is_none_or(|f| f.matches(&fields))
                {
                    continue;
                }
                match trigger.action {
                    Action::TraceOn => self.printing = true,
                    Action::TraceOff => self.printing = false,
                    Action::StackTrace => stack = true,
                }
                if let Some(n) = trigger.remaining.as_mut() {
                    *n -= 1;
                }
            }
        }
        // --syscall-limit counts what is shown (or counted by -c), as
        // strace does: what -e trace=, -P, -e status= and --filter leave
        // out does not count.
        if print && call.selected && matches!(end, End::Returned | End::Exec) {
            self.limit_count();
        }
        let Some(proc) = self.procs.get_mut(&pid) else {
            return;
        };
        // The stack at the stop, for a line that is printed (an exec's,
        // failed or not, was taken at its entry, before the old image
        // went; a call finished after its suspension has the stack of
        // then).
        let live = matches!(end, End::Returned) && call.handler.class != CallClass::Exec;
        if !((stack || self.stack_trace) && print && call.show != Show::Hidden) {
            call.stack = None;
        } else if live
            && call.stack.is_none()
            && let Some(stacks) = &mut self.stacks
        {
            call.stack = Some(stacks.unwind(pid, proc.tgid, &mut proc.mem));
        }
        let fds = proc.fds.borrow();
        call_leave(
            Stopped {
                out: &mut self.out,
                cfg: &self.fmt,
                mem: &mut proc.mem,
                pid,
                tgid: proc.tgid,
                fds: &fds,
            },
            call,
            rval,
            skip,
            print,
            duration,
        );
        drop(fds);
        // Attempts are counted where the kernel leaves them (`leave`); a
        // successful exec has no leave stop to count it.
        if end == End::Exec {
            self.count(call, rval);
        }
    }
}

/// How `-e abbrev=`, `-e verbose=` and `-e raw=` in `select` print call
/// `name`.
fn style_of(select: &super::Selection, name: &str) -> CallStyle {
    CallStyle {
        abbrev: select.abbrev.as_ref().map(|set| set.contains(name)),
        addresses: select
            .verbose
            .as_ref()
            .is_some_and(|set| !set.contains(name)),
        raw: select.raw.as_ref().is_some_and(|set| set.contains(name)),
    }
}

/// A call's arguments as its kernel function receives them: each register
/// cut to its parameter's declared width (an `int` is the low 32 bits,
/// whatever the upper half holds), so every printer, filter and fd-table
/// update sees what the kernel saw. An i386 call is cut only where its
/// entry point takes the x86_64 call's parameters in the same registers.
/// `nr`: the call's number, when `name` is its own (not a socketcall's or
/// ipc's): then the widths come from a table made once by number.
fn as_the_kernel_reads(arch: Arch, nr: Option<u64>, name: &str, args: [u64; 6]) -> [u64; 6] {
    let widths = match nr {
        Some(nr) => widths_by_number(arch, nr),
        None => widths_of(arch, name),
    };
    match widths {
        Some((params, register_bits)) => crate::abi::cut_to(params, register_bits, args),
        None => args,
    }
}

/// The declared parameters of call `name` of `arch` and the width of the
/// registers they are read from, where the kernel cuts them.
fn widths_of(arch: Arch, name: &str) -> Option<(&'static [crate::abi::Declared], u32)> {
    use crate::sysent::signature;
    let same_registers = match arch {
        // x32 passes x86_64's parameters in x86_64's registers.
        Arch::X86_64 | Arch::X32 => true,
        Arch::I386 => match (signature(Arch::I386, name), signature(Arch::X86_64, name)) {
            (Some(i386), Some(x86_64)) => std::ptr::eq(i386, x86_64),
            _ => false,
        },
    };
    let register_bits = if arch == Arch::I386 { 32 } else { 64 };
    same_registers
        .then(|| crate::abi::declared(name))
        .flatten()
        .map(|params| (params, register_bits))
}

/// The call numbers [`widths_by_number`] has a table for; above them, by
/// name.
const NUMBERED: u64 = 1024;

/// [`widths_of`] by number: a look-up by name (a binary search of strings)
/// at every call was a visible part of the reader's time per record.
fn widths_by_number(arch: Arch, nr: u64) -> Option<(&'static [crate::abi::Declared], u32)> {
    type Table = Vec<Option<(&'static [crate::abi::Declared], u32)>>;
    static TABLES: std::sync::OnceLock<[Table; 2]> = std::sync::OnceLock::new();
    let index = match arch {
        Arch::X32 => nr & !0x4000_0000,
        _ => nr,
    };
    if index >= NUMBERED {
        return widths_of(arch, &service::lookup(arch, nr).0);
    }
    let tables = TABLES.get_or_init(|| {
        let table = |arch| {
            (0..NUMBERED)
                .map(|nr| widths_of(arch, &service::lookup(arch, nr).0))
                .collect()
        };
        [table(Arch::X86_64), table(Arch::I386)]
    });
    let table = if arch == Arch::I386 {
        &tables[1]
    } else {
        &tables[0]
    };
    table[index as usize]
}
