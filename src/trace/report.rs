//! Process events as the engine reports them: a banner line (`Tracing ...`,
//! `Process exited normally ...`) or a JSON object, and the timeline's
//! copy.

use super::{Engine, Summary};
use crate::decode::signal_name;
use crate::escape::TraceeText;
use crate::kernel;
use crate::output::Style;

impl Engine {
    /// Report a process event: a banner line, or a JSON object.
    pub(super) fn report(&mut self, pid: i32, report: Report) {
        if self.out.timeline().is_some() {
            self.timeline_report(pid, &report);
        }
        if self.summary == Summary::Only || self.quiet {
            // -c prints the summary and nothing else; -q the calls.
            return;
        }
        if self.fmt.json {
            let tgid = self.procs.get(&pid).map_or(pid, |p| p.tgid);
            let mut obj = serde_json::json!({
                "schema": crate::call::JSON_SCHEMA,
                "type": report.kind(),
                "time": crate::call::json_time(&self.out),
                "pid": tgid,
                "tid": pid,
            });
            let map = obj.as_object_mut().expect("an object");
            match &report {
                Report::Tracing(name, args) | Report::Exec(name, args) => {
                    map.insert("name".into(), name.json());
                    let args = match args {
                        Some(args) => args.clone(),
                        None => kernel::process_args(pid).unwrap_or_default(),
                    };
                    let args: Vec<_> = args.iter().map(TraceeText::json).collect();
                    map.insert("args".into(), args.into());
                }
                Report::Exited(code) => {
                    map.insert("code".into(), (*code).into());
                }
                Report::Killed(sig) => {
                    map.insert("signal".into(), signal_json(*sig));
                }
                Report::Detached => {}
            }
            self.out.json_line(&obj);
            return;
        }
        match report {
            Report::Exec(name, args) => {
                self.banner(pid, "---");
                let args = args
                    .or_else(|| kernel::process_args(pid))
                    .unwrap_or_default();
                let command = crate::escape::command_line(&name, &args, self.fmt.string_limit);
                self.banner(pid, &format!("Tracing {command} (pid {pid})"));
            }
            Report::Tracing(name, args) => {
                let args = args
                    .or_else(|| kernel::process_args(pid))
                    .unwrap_or_default();
                let command = crate::escape::command_line(&name, &args, self.fmt.string_limit);
                self.banner(pid, &format!("Tracing {command} (pid {pid})"))
            }
            Report::Exited(code) => {
                self.banner(pid, &format!("Process exited normally with code {code}"))
            }
            Report::Killed(sig) => {
                let text = match signal_name(sig) {
                    Some(name) => format!("Process terminated from signal {name}"),
                    None => format!("Process terminated from signal {sig}"),
                };
                self.banner(pid, &text);
            }
            Report::Detached => self.banner(pid, "Process detached"),
        }
    }

    fn banner(&mut self, pid: i32, text: &str) {
        self.out.newline_for(Some(pid));
        self.out.text(Some(pid), text, Style::Banner);
        self.out.newline();
    }
}

/// A process event the engine reports.
pub(super) enum Report {
    /// Tracing starts (started, attached or a new child); the process's
    /// name, which it chose, and its arguments when known better than
    /// from /proc (the started command, before its exec).
    Tracing(TraceeText, Option<Vec<TraceeText>>),
    /// A successful execve: the process runs a new program; its
    /// arguments when known better than from /proc (the BPF engine's copy
    /// of the execve's).
    Exec(TraceeText, Option<Vec<TraceeText>>),
    /// The process exited with this code.
    Exited(i32),
    /// A signal killed the process.
    Killed(i32),
    /// rtrace let go of the process.
    Detached,
}

impl Report {
    /// The JSON `type`.
    fn kind(&self) -> &'static str {
        match self {
            Report::Tracing(..) => "start",
            Report::Exec(..) => "exec",
            Report::Exited(_) => "exit",
            Report::Killed(_) => "killed",
            Report::Detached => "detach",
        }
    }
}

/// A signal in JSON: its name, or its number when it has none.
pub(crate) fn signal_json(sig: i32) -> serde_json::Value {
    match signal_name(sig) {
        Some(name) => serde_json::json!({ "name": name, "number": sig }),
        None => serde_json::json!({ "number": sig }),
    }
}
