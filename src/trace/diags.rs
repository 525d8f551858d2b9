//! A call's ABI-misuse diagnostics (`-e diag=`) as the engine runs them:
//! the bookkeeping at the call's leave, which needs every traced
//! process's fd table, and the lines printed after the call.

use std::rc::Rc;

use super::{Engine, Ongoing, Summary};
use crate::diag::{self, CallInfo, Diag};
use crate::fdtable::SharedFdTable;
use crate::output::Style;

impl Engine {
    /// The ABI misuse diagnostics of a call that returned: bookkeeping of
    /// the open file's state, done whether or not the call is printed.
    pub(super) fn diagnose(&mut self, pid: i32, call: &mut Ongoing, rval: i64) -> Vec<Diag> {
        let entered = std::mem::take(&mut call.diag);
        // A call the diagnostics never look at had nothing at its entry
        // either (`diag::enter` skips it too): nothing to build.
        if !self.select.diag.any() || !diag::looks_at(&call.name) {
            return Vec::new();
        }
        let Some(proc) = self.procs.get(&pid) else {
            return Vec::new();
        };
        // DIAG_IOCSDEL's EBUSY names the fds holding the event, in any
        // traced process: their tables, one per process.
        let mut others: Vec<(i32, SharedFdTable)> = Vec::new();
        if call.name == "ioctl" && rval == -(libc::EBUSY as i64) {
            for other in self.procs.values() {
                if !Rc::ptr_eq(&other.fds, &proc.fds)
                    && !others.iter().any(|(_, t)| Rc::ptr_eq(t, &other.fds))
                {
                    others.push((other.tgid, other.fds.clone()));
                }
            }
        }
        let proc = self.procs.get_mut(&pid).expect("present");
        let info = CallInfo {
            name: &call.name,
            arch: call.arch,
            args: call.args,
            tgid: proc.tgid,
        };
        let mut fds = proc.fds.borrow_mut();
        diag::leave(
            self.select.diag,
            &info,
            rval,
            entered,
            &mut fds,
            &mut proc.mem,
            &|| others.clone(),
        )
    }

    /// Print a call's diagnostics after it, each a line of its own (an
    /// object with --json); they follow `-e diag=`, not the call's
    /// selection, and are not printed with -c or after a traceoff.
    pub(super) fn put_diags(&mut self, pid: i32, diags: &[Diag]) {
        if self.summary == Summary::Only || !self.printing {
            return;
        }
        let tgid = self.procs.get(&pid).map_or(pid, |p| p.tgid);
        for d in diags.iter().filter(|d| self.select.diag.has(d.area)) {
            if self.fmt.json {
                let obj = serde_json::json!({
                    "schema": crate::call::JSON_SCHEMA,
                    "type": "diag",
                    "time": crate::call::json_time(&self.out),
                    "pid": tgid,
                    "tid": pid,
                    "area": d.area.name(),
                    "kind": d.kind,
                    "fd": d.fd,
                    "text": d.text,
                });
                self.out.json_line(&obj);
            } else {
                self.out.newline_for(Some(pid));
                self.out.text(Some(pid), &d.line(), Style::Signal);
                self.out.newline();
            }
        }
    }
}
