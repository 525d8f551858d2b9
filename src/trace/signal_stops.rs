//! A tracee's signals as the engine shows them: the signal-delivery stop,
//! the `--- SIGCHLD {...} ---` text (at the split of an interrupted call,
//! inside a held-back one, or on a line of its own with its stack) and
//! the delivered siginfo (with -v, and always in JSON). rtrace's own
//! signal handlers are `signals.rs`.

use nix::unistd::Pid;

use super::{Engine, Life, Summary};
use crate::call::{Show, call_replay};
use crate::decode::signal_name;
use crate::format::{FormatState, Naming, Printer};
use crate::kernel::{self, Arch, Handled, Stop};
use crate::output::Style;
use crate::service::signal::put_siginfo_details;

impl Engine {
    pub(super) fn signal_stop(&mut self, stop: Stop) -> Handled {
        // (calls that end without returning are finished by the engine's
        // exec and exit events through `finish`.)
        let (pid, sig) = (stop.pid(), stop.sig());
        let Some(proc) = self.procs.get_mut(&pid) else {
            return self.resume_tracee(stop, sig);
        };
        if let Some(top) = proc.suspended.last_mut() {
            // Printed or not, the signal decides the suspended call's fate.
            top.signalled = true;
        }
        if proc.life == Life::Starting
            || !self.select.signals.contains(sig)
            || self.summary == Summary::Only
        {
            return self.resume_tracee(stop, sig);
        }
        // What the kernel delivers: with -v on the signal's line, always
        // in JSON.
        let info = (self.fmt.json || self.fmt.verbose > 0)
            .then(|| kernel::siginfo(Pid::from_raw(pid)))
            .flatten();
        self.put_signal(pid, sig, info);
        self.resume_tracee(stop, sig)
    }

    /// Show signal `sig` arriving at `pid`, with its siginfo if given.
    pub(super) fn put_signal(
        &mut self,
        pid: i32,
        sig: i32,
        info: Option<[u8; kernel::SIGINFO_SIZE]>,
    ) {
        if self.out.timeline().is_some() {
            self.timeline_signal(pid, sig);
        }
        let Some(proc) = self.procs.get_mut(&pid) else {
            return;
        };
        // -k: the stack where the signal found the thread, as strace
        // shows after its `--- SIG... ---` line (ptrace only: the BPF
        // engine never gets here with -k).
        let stack = match &mut self.stacks {
            Some(stacks) if self.stack_trace => Some(stacks.unwind(pid, proc.tgid, &mut proc.mem)),
            _ => None,
        };
        if self.fmt.json {
            let tgid = proc.tgid;
            let mut obj = serde_json::json!({
                "schema": crate::call::JSON_SCHEMA,
                "type": "signal",
                "time": crate::call::json_time(&self.out),
                "pid": tgid,
                "tid": pid,
                "signal": super::signal_json(sig),
            });
            if let Some(info) = info {
                obj["siginfo"] = self.siginfo_json(pid, &info);
            }
            crate::call::stack_json(&mut obj, stack);
            self.out.json_line(&obj);
            return;
        }
        let text = match signal_name(sig).filter(|_| self.fmt.values_only == 0) {
            Some(name) => format!("** {name}"),
            None => format!("** SIGNAL {sig}"),
        };
        let proc = self.procs.get_mut(&pid).expect("present");
        let proc_line_free = proc.call.is_none();
        match proc.suspended.last().filter(|top| !top.handler_ran) {
            Some(top) if top.call.show == Show::Live => {
                // At the split of the interrupted call.
                self.out.restore_record(pid, top.record.clone());
                call_replay(&mut self.out, &self.fmt, pid, &top.call, true);
                self.put_signal_text(pid, &text, info.as_ref());
            }
            Some(top) if top.call.show == Show::Deferred => {
                // Into the held-back call's text, shown if the call is.
                let record = top.record.clone();
                self.out.restore_record(pid, record);
                self.put_signal_text(pid, &text, info.as_ref());
                let updated = self.out.take_record(pid);
                let proc = self.procs.get_mut(&pid).expect("present");
                if let Some(top) = proc.suspended.last_mut() {
                    top.record = updated.clone();
                }
                self.out.restore_record(pid, updated);
            }
            _ => {
                // A call still in progress (the BPF engine's ignored
                // signal, shown inside the line) resumes its line, `*`.
                self.out.record_replay(pid, !proc_line_free);
                self.put_signal_text(pid, &text, info.as_ref());
                // On a line of its own: the stack follows it. (Inside a
                // call's line it would cut the call in two: not shown.)
                if proc_line_free && let Some(stack) = stack {
                    crate::call::put_stack(&mut self.out, pid, stack);
                }
            }
        }
    }

    /// A signal's text where it belongs: `** SIGCHLD ** `, or with its
    /// siginfo `** SIGCHLD {si_code=CLD_EXITED, si_pid=42, ..} ** `.
    fn put_signal_text(&mut self, pid: i32, name: &str, info: Option<&[u8; kernel::SIGINFO_SIZE]>) {
        let (Some(info), Some(proc)) = (info, self.procs.get_mut(&pid)) else {
            self.out
                .text(Some(pid), &format!("{name} ** "), Style::Signal);
            return;
        };
        self.out.text(Some(pid), &format!("{name} "), Style::Signal);
        let mut state = FormatState::default();
        put_siginfo(
            &mut self.out,
            &self.fmt,
            &mut state,
            pid,
            &mut proc.mem,
            "",
            info,
        );
        self.out.text(Some(pid), " ** ", Style::Signal);
    }

    /// A delivered siginfo as JSON, printed by the same primitives.
    fn siginfo_json(&mut self, pid: i32, info: &[u8; kernel::SIGINFO_SIZE]) -> serde_json::Value {
        let Some(proc) = self.procs.get_mut(&pid) else {
            return serde_json::Value::Null;
        };
        let mut state = FormatState::default();
        put_siginfo(
            &mut self.out,
            &self.fmt,
            &mut state,
            pid,
            &mut proc.mem,
            "siginfo",
            info,
        );
        state
            .json_mut()
            .returned
            .remove("siginfo")
            .unwrap_or_default()
    }
}

/// A delivered signal's siginfo, `{si_code=..., ..}`, printed through the
/// primitives under `name` into `state` (text, or JSON when `cfg` says).
/// PTRACE_GETSIGINFO answers in rtrace's own layout, whatever the tracee's
/// ABI: x86_64's.
fn put_siginfo(
    out: &mut crate::output::Output,
    cfg: &crate::format::FormatConfig,
    state: &mut FormatState,
    pid: i32,
    mem: &mut kernel::Memory,
    name: &str,
    info: &[u8; kernel::SIGINFO_SIZE],
) {
    let mut p = Printer::new(out, pid, cfg, state, mem, Arch::X86_64);
    p.open(name, "{", Naming::Fields);
    put_siginfo_details(&mut p, info, Arch::X86_64);
    p.close("}");
}
