//! A process's recording of its current call's enter text, and its
//! replay: when another process takes the line, the open call is closed
//! with ` <..>`, and when it resumes its text is written again after a
//! `*` marker (or, held back for a filter, printed or dropped at its
//! leave).

use super::{Output, Style};

/// How long a call's recorded enter text may grow before replay falls back to
/// the synthesized `name(<..>` form.
pub const RECORD_LIMIT: usize = 512;

/// A process's recording of its current call's enter text. The engine
/// takes it away while a call waits for a restart, so calls made in a signal
/// handler meanwhile cannot overwrite it.
#[derive(Clone, Debug, Default)]
pub struct Recording {
    text: String,
    overflowed: bool,
    active: bool,
    /// The call's text is held back, not printed, until its leave decides
    /// (status and expression filters); the recording then has no limit.
    pub(super) deferred: bool,
}

impl Recording {
    /// Add `text` to an active recording, within the limit unless deferred.
    pub(super) fn add(&mut self, text: &str) {
        if !self.active || self.overflowed {
            return;
        }
        if self.text.len() + text.len() > RECORD_LIMIT && !self.deferred {
            self.overflowed = true;
        } else {
            self.text.push_str(text);
        }
    }
}

impl Output {
    /// Start recording `pid`'s text: a call's enter half begins.
    pub fn record_start(&mut self, pid: i32) {
        if let Some(t) = &mut self.timeline {
            t.begin_text(pid);
        }
        self.activate(Some(pid));
        let rec = self.records.entry(pid).or_default();
        rec.text.clear();
        rec.overflowed = false;
        rec.active = true;
        self.print_susp = true;
    }

    /// Start a call whose text is held back until [`Output::undefer`] or
    /// [`Output::discard`]: nothing of it reaches the line meanwhile.
    pub fn record_start_deferred(&mut self, pid: i32) {
        if let Some(t) = &mut self.timeline {
            t.begin_text(pid);
        }
        let rec = self.records.entry(pid).or_default();
        rec.text.clear();
        rec.overflowed = false;
        rec.active = true;
        rec.deferred = true;
    }

    /// Print a held-back call after all: its text so far on a new line,
    /// which then continues like any call's.
    pub fn undefer(&mut self, pid: i32) {
        self.activate(Some(pid));
        let Some(rec) = self.records.get_mut(&pid) else {
            return;
        };
        rec.deferred = false;
        rec.active = false;
        let text = std::mem::take(&mut rec.text);
        if let Some(t) = &mut self.timeline {
            // The held-back text is printed again below.
            t.restart_text(pid);
        }
        self.newline();
        self.text(Some(pid), &text, Style::Plain);
        self.print_susp = true;
        if let Some(rec) = self.records.get_mut(&pid) {
            // Keep it for a replay, within the usual limit.
            rec.overflowed = text.len() > RECORD_LIMIT;
            if !rec.overflowed {
                rec.text = text;
            }
        }
    }

    /// Drop a held-back call: it is not printed.
    pub fn discard(&mut self, pid: i32) {
        if let Some(t) = &mut self.timeline {
            t.drop_text(pid);
        }
        if let Some(rec) = self.records.get_mut(&pid) {
            rec.text.clear();
            rec.deferred = false;
            rec.active = false;
            rec.overflowed = false;
        }
    }

    /// Stop recording: the call split is reached.
    pub fn record_stop(&mut self, pid: i32) {
        if let Some(rec) = self.records.get_mut(&pid) {
            rec.active = false;
        }
    }

    /// Forget the recording: the call is complete, no `<..>` is owed.
    pub fn record_clear(&mut self, pid: i32) {
        if let Some(rec) = self.records.get_mut(&pid) {
            debug_assert!(!rec.active, "record_clear while recording");
            rec.text.clear();
            rec.overflowed = false;
        }
        self.activate(Some(pid));
        if self.line_pid == Some(pid) {
            self.print_susp = false;
        }
    }

    /// Copy `parent`'s recording to `child`: a fork child resumes its
    /// parent's call (`fork() = 0`).
    pub fn record_copy(&mut self, parent: i32, child: i32) {
        if let Some(t) = &mut self.timeline {
            t.copy_text(parent, child);
        }
        let (text, overflowed) = match self.records.get(&parent) {
            Some(rec) => (rec.text.clone(), rec.overflowed),
            None => (String::new(), false),
        };
        self.records.insert(
            child,
            Recording {
                text,
                overflowed,
                active: false,
                deferred: false,
            },
        );
    }

    /// Take `pid`'s recording away (the call is set aside for a restart).
    pub fn take_record(&mut self, pid: i32) -> Recording {
        self.records.remove(&pid).unwrap_or_default()
    }

    /// Give `pid` back a recording taken with [`Output::take_record`].
    pub fn restore_record(&mut self, pid: i32, mut rec: Recording) {
        rec.active = false;
        self.records.insert(pid, rec);
    }

    /// Drop all state kept for a process that is gone.
    pub fn forget(&mut self, pid: i32) {
        if let Some(t) = &mut self.timeline {
            t.forget(pid);
        }
        self.records.remove(&pid);
        self.close_file(pid);
    }

    /// Replay `pid`'s recorded call on a new line unless its text is still
    /// on the current line. `resuming` marks the line with `*`. Returns true
    /// when the recording overflowed and the caller must print a substitute.
    pub fn record_replay(&mut self, pid: i32, resuming: bool) -> bool {
        self.activate(Some(pid));
        if self.line_len > 0 {
            if self.line_pid == Some(pid) {
                return false;
            }
            self.newline();
        }
        let Some(rec) = self.records.get(&pid) else {
            return false;
        };
        if rec.text.is_empty() && !rec.overflowed {
            return false;
        }
        let overflowed = rec.overflowed;
        let text = rec.text.clone();
        self.put_prefix(Some(pid), resuming);
        self.line_pid = Some(pid);
        self.print_susp = true;
        if overflowed {
            return true;
        }
        let (body, soft) = match text.strip_suffix(' ') {
            Some(body) => (body, true),
            None => (text.as_str(), false),
        };
        self.write_raw(body.as_bytes());
        self.line_len += body.len();
        if soft {
            self.add_space = true;
        }
        false
    }
}
