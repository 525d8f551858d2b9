//! The engine's side of `--timeline`: process events (tracks named after
//! the programs, exits) and signals become the timeline's metadata and
//! instants. Calls become slices in the call layer (`call::call_leave`),
//! where their text is complete; the file is written by the output layer.

use super::{Engine, Report};
use crate::decode::signal_name;

impl Engine {
    /// A process event on the timeline: a track name at the start and at
    /// an exec, an instant at an exec, exit, kill or detach. Shown also
    /// under -q, which only quiets the text.
    pub(super) fn timeline_report(&mut self, pid: i32, report: &Report) {
        let tgid = self.procs.get(&pid).map_or(pid, |p| p.tgid);
        let at = self.now();
        let Some(timeline) = self.out.timeline() else {
            return;
        };
        let (name, text) = match report {
            Report::Tracing(name, _) => {
                timeline.name_thread(tgid, pid, &name.to_string());
                return;
            }
            Report::Exec(name, _) => {
                timeline.name_thread(tgid, pid, &name.to_string());
                ("exec", format!("exec {name}"))
            }
            Report::Exited(code) => ("exit", format!("Process exited normally with code {code}")),
            Report::Killed(sig) => (
                "killed",
                match signal_name(*sig) {
                    Some(name) => format!("Process terminated from signal {name}"),
                    None => format!("Process terminated from signal {sig}"),
                },
            ),
            Report::Detached => ("detached", "Process detached".to_string()),
        };
        timeline.instant(tgid.into(), pid.into(), at, name, &text);
    }

    /// Signal `sig` arriving at `pid`: an instant on its thread's track.
    pub(super) fn timeline_signal(&mut self, pid: i32, sig: i32) {
        let tgid = self.procs.get(&pid).map_or(pid, |p| p.tgid);
        let at = self.now();
        let name = signal_name(sig).unwrap_or_else(|| format!("SIGNAL {sig}"));
        if let Some(timeline) = self.out.timeline() {
            timeline.instant(tgid.into(), pid.into(), at, &name, &format!("** {name} **"));
        }
    }
}
