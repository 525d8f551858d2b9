//! The output layer: the one choke point through which every byte is written.
//!
//! It owns the current line: which process it belongs to, the `PID| ` prefix
//! rules, the soft space that keeps lines from ending in a space, and the
//! per-process recording of a call's enter text. When another process needs
//! the line, the open line is closed with ` <..>`; when the call resumes, its
//! recording is replayed after a `*` marker. Nothing above this layer writes
//! bytes; the engine hands it the number of traced processes and the layers
//! above hand it text.
//!
//! This file holds [`Output`] and the line rules; a call's recording and
//! its replay are in `record.rs`, what starts a line (timestamp and pid
//! prefix) in `prefix.rs`, the buffered writer under it all in `writer.rs`,
//! the `--timeline` file in `timeline.rs`, and `-ff`'s file a task in
//! `split.rs`.

use crate::fasthash::IntMap;
use std::io::{self, Write};

mod prefix;
mod record;
mod split;
pub mod timeline;
mod writer;

pub use prefix::Timestamps;
pub use record::{RECORD_LIMIT, Recording};
use timeline::Timeline;
pub use writer::{BUFFER, GIVE_UP_WRITING, TraceWriter};

use owo_colors::OwoColorize;

/// Semantic styles the colored rendering distinguishes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Plain text.
    Plain,
    /// A call's name.
    CallName,
    /// A failed call's error.
    Error,
    /// A signal report.
    Signal,
    /// A banner line (`Tracing ...`, `Process exited ...`).
    Banner,
}

/// The output sink with line ownership and record/replay.
pub struct Output {
    writer: Box<dyn Write>,
    error: Option<io::Error>,
    color: bool,
    timestamps: Timestamps,
    /// Bytes printed on the current line, prefix included; 0 = at line start.
    line_len: usize,
    /// The process whose text is on the current line.
    line_pid: Option<i32>,
    /// Prefix the next line even if only one process is left (the `'` line).
    print_pid: bool,
    /// Close the current line with `<..>` if it is ended before its call is.
    print_susp: bool,
    /// A space is owed before the next text on this line.
    add_space: bool,
    proc_count: usize,
    records: IntMap<i32, Recording>,
    /// When the previous line began, for relative timestamps.
    last_time: Option<std::time::Instant>,
    /// When the event being printed happened, if not now (the BPF
    /// engine prints a call after the kernel saw it).
    event_time: Option<std::time::Instant>,
    /// `-r` with `-t`: the time since the previous line follows the clock,
    /// as `(+ 0.000123)`, as strace writes both.
    relative_too: bool,
    /// Bytes are buffered that were not flushed yet.
    unflushed: bool,
    /// The trace goes to a terminal: written before every resume.
    terminal: bool,
    /// `--timeline`: the trace-event file, written beside the trace.
    timeline: Option<Box<Timeline>>,
    /// `-ff`: a file for each task; the fields above from `writer` to
    /// `unflushed` are the active file's.
    split: Option<Box<split::Split>>,
}

impl Output {
    /// Also print the time since the previous line after the clock (`-r`
    /// given with `-t`, `-tt` or `-ttt`).
    pub fn with_relative(mut self) -> Output {
        self.relative_too = self.timestamps != Timestamps::Off;
        self
    }

    /// An output layer writing to `writer`.
    pub fn new(writer: Box<dyn Write>, color: bool, timestamps: Timestamps) -> Output {
        Output {
            writer,
            error: None,
            color,
            timestamps,
            relative_too: false,
            line_len: 0,
            line_pid: None,
            print_pid: false,
            print_susp: false,
            add_space: false,
            proc_count: 0,
            records: IntMap::default(),
            last_time: None,
            event_time: None,
            unflushed: false,
            terminal: false,
            timeline: None,
            split: None,
        }
    }

    /// Also write the trace as a timeline (`--timeline`).
    pub fn with_timeline(mut self, timeline: Timeline) -> Output {
        self.timeline = Some(Box::new(timeline));
        self
    }

    /// The timeline, when one is written: the engine and the call layer
    /// hand it their events (slices, instants, track names) through here.
    pub fn timeline(&mut self) -> Option<&mut Timeline> {
        self.timeline.as_deref_mut()
    }

    /// The trace goes to a terminal, where a person watches it beside the
    /// program's own output: see [`Output::before_resume`].
    pub fn on_terminal(mut self, terminal: bool) -> Output {
        self.terminal = terminal;
        self
    }

    /// A tracee is about to run again. On a terminal everything printed so
    /// far is written now (the complete lines, and the enter half of the
    /// call the tracee is in): what the program then writes to the same
    /// terminal comes after the trace of the calls before it, and inside a
    /// line only at the split of the call that writes it. To a file or
    /// pipe the buffer stays (written when full, on the engine's timer,
    /// and at the end).
    pub fn before_resume(&mut self) {
        if self.terminal && self.unflushed {
            self.flush();
        }
    }

    /// Tell the layer how many processes are traced; it decides prefixes.
    pub fn set_proc_count(&mut self, count: usize) {
        // Under -ff each file is one task's: no line needs a prefix.
        if self.split.is_some() {
            return;
        }
        self.proc_count = count;
    }

    /// Whether text was written since the last flush.
    pub fn unflushed(&self) -> bool {
        self.unflushed || self.parked_unflushed()
    }

    /// The first write error, if any; once set, nothing more is written.
    pub fn error(&self) -> Option<&io::Error> {
        self.error.as_ref().or_else(|| self.parked_error())
    }

    fn write_raw(&mut self, bytes: &[u8]) {
        if self.error.is_some() {
            return;
        }
        self.unflushed = true;
        if let Err(e) = self.writer.write_all(bytes) {
            self.error = Some(e);
        }
    }

    /// Write buffered bytes to the file or terminal.
    pub fn flush(&mut self) {
        if let Some(t) = &mut self.timeline {
            t.flush();
        }
        self.flush_parked();
        if self.error.is_some() {
            return;
        }
        self.unflushed = false;
        if let Err(e) = self.writer.flush() {
            self.error = Some(e);
        }
    }

    /// Write `text` in `style`; plain text is copied straight through.
    fn write_styled(&mut self, text: &str, style: Style) {
        if !self.color || style == Style::Plain {
            self.write_raw(text.as_bytes());
            return;
        }
        let colored = match style {
            Style::CallName => text.bold().to_string(),
            Style::Error => text.red().to_string(),
            Style::Signal => text.yellow().to_string(),
            Style::Banner => text.cyan().to_string(),
            Style::Plain => unreachable!("handled above"),
        };
        self.write_raw(colored.as_bytes());
    }

    /// Whether lines carry a time (`-t`, `-r`).
    pub fn stamps_lines(&self) -> bool {
        !matches!(self.timestamps, Timestamps::Off)
    }

    /// When the event being written happened, if not now.
    pub fn event_time(&self) -> Option<std::time::Instant> {
        self.event_time
    }

    /// Stamp the lines that follow with the time `at` (`None`: now).
    pub fn set_event_time(&mut self, at: Option<std::time::Instant>) {
        self.event_time = at;
    }

    /// End the line before `pid`'s text (None: an info line) is written:
    /// the current line, or under `-ff` the line of `pid`'s own file,
    /// which no other task's text ends.
    pub fn newline_for(&mut self, pid: Option<i32>) {
        self.activate(pid);
        self.newline();
    }

    /// End every open line: the trace is over (under `-ff`, each file's).
    pub fn end_lines(&mut self) {
        for pid in self.split_open_lines() {
            self.newline_for(Some(pid));
        }
        self.newline();
    }

    /// End the current line. If a call on it is still open, mark it ` <..>`.
    pub fn newline(&mut self) {
        if self.line_len == 0 {
            return;
        }
        if self.print_susp {
            if self.add_space {
                self.write_raw(b" ");
            }
            self.write_raw(b"<..>");
        }
        self.write_raw(b"\n");
        self.line_len = 0;
        self.add_space = false;
        self.print_susp = false;
        self.line_pid = None;
    }

    /// Print text for `pid` (or an info line for `None`), starting a new
    /// line first when the current one belongs to someone else. A trailing
    /// space becomes a soft space, so no line ever ends in one.
    ///
    /// Whatever `text` holds, no control character reaches the output raw:
    /// bytes other than printable ASCII are C-escaped here (callers render
    /// tracee text escaped already, with [`crate::escape::TraceeText`] or
    /// the Printer's strings; this is the guarantee behind them).
    pub fn text(&mut self, pid: Option<i32>, text: &str, style: Style) {
        let text = &*crate::escape::terminal_safe(text, false);
        self.activate(pid);
        if let Some(t) = &mut self.timeline
            && let Some(pid) = pid
            && style != Style::Banner
        {
            // A banner (a child's, inside its fork) is no call's text.
            t.add_text(pid, text);
        }
        let (body, soft) = match text.strip_suffix(' ') {
            Some(body) => (body, true),
            None => (text, false),
        };
        // One look-up of the recording per piece of text (this runs for
        // every piece at every stop); starting the line below does not
        // touch recordings, so adding to it first changes nothing.
        if let Some(pid) = pid
            && let Some(rec) = self.records.get_mut(&pid)
        {
            if rec.deferred {
                rec.add(text);
                return;
            }
            rec.add(body);
        }
        if self.line_len > 0 && (pid.is_none() || pid != self.line_pid) {
            self.newline();
        }
        if self.line_len == 0 {
            self.put_prefix(pid, false);
        }
        if self.add_space && !body.is_empty() {
            self.write_raw(b" ");
            self.line_len += 1;
            self.add_space = false;
        }
        self.write_styled(body, style);
        self.line_len += body.len();
        self.line_pid = pid;
        if soft {
            if let Some(pid) = pid {
                self.space(pid);
            } else {
                self.add_space = true;
            }
        }
    }

    /// Owe a space on `pid`'s line, printed only if more text follows.
    pub fn space(&mut self, pid: i32) {
        self.activate(Some(pid));
        if let Some(rec) = self.records.get_mut(&pid) {
            rec.add(" ");
            if rec.deferred {
                return;
            }
        }
        debug_assert_eq!(
            self.line_pid,
            Some(pid),
            "space() after another process's text"
        );
        self.add_space = true;
    }

    /// Print a continuation line of `pid`'s current call (an extended
    /// result, one item a line): the process's prefix, an indent, `text`.
    /// The call's own line is complete by then, so it gets no `<..>`.
    pub fn continuation(&mut self, pid: i32, text: &str) {
        let text = &*crate::escape::terminal_safe(text, false);
        self.activate(Some(pid));
        if let Some(t) = &mut self.timeline {
            t.add_text(pid, &format!("\n  {text}"));
        }
        if self.line_pid == Some(pid) {
            self.print_susp = false;
        }
        self.newline();
        self.put_prefix(Some(pid), false);
        self.write_raw(b"  ");
        self.write_raw(text.as_bytes());
        self.line_len += 2 + text.len();
        self.line_pid = Some(pid);
        self.newline();
    }

    /// Write a block of whole lines outside the trace grammar (the `-c`
    /// summary), after ending the current line. Only line ends pass raw;
    /// other control characters are escaped as in [`Output::text`].
    pub fn raw(&mut self, text: &str) {
        self.activate(None);
        self.print_susp = false;
        self.newline();
        let text = crate::escape::terminal_safe(text, true);
        self.write_raw(text.as_bytes());
    }

    /// Write `value` as one line of JSON (`--json`), valid and safe on a
    /// terminal: DEL, C1 controls and bidirectional overrides in its
    /// strings are `\u` escapes too (see [`crate::escape::json_safe`]).
    pub fn json_line(&mut self, value: &serde_json::Value) {
        let mut line = crate::escape::json_safe(value);
        line.push('\n');
        if self.split.is_some() {
            // Under -ff a record goes to its task's file (its thread's).
            let pid = ["tid", "pid"]
                .iter()
                .find_map(|key| value.get(*key).and_then(serde_json::Value::as_i64));
            self.activate(pid.and_then(|p| i32::try_from(p).ok()));
        }
        self.print_susp = false;
        self.newline();
        self.write_raw(line.as_bytes());
    }

    /// Whether the current line holds text of `pid`.
    pub fn line_is(&self, pid: i32) -> bool {
        if let Some(line) = self.parked_line(pid) {
            return line.line_len > 0 && line.line_pid == Some(pid);
        }
        self.line_len > 0 && self.line_pid == Some(pid)
    }
}
#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;

    /// A writer tests can read back.
    #[derive(Clone, Default)]
    pub(crate) struct Shared(pub(crate) Rc<RefCell<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn output() -> (Output, Shared) {
        let buf = Shared::default();
        (
            Output::new(Box::new(buf.clone()), false, Timestamps::Off),
            buf,
        )
    }

    fn text(buf: &Shared) -> String {
        String::from_utf8(buf.0.borrow().clone()).unwrap()
    }

    #[test]
    fn preempted_call_is_marked_and_replayed() {
        let (mut out, buf) = output();
        out.set_proc_count(2);
        out.record_start(10);
        out.text(Some(10), "read(", Style::CallName);
        out.text(Some(10), "0, ", Style::Plain);
        out.record_stop(10);
        out.record_start(11);
        out.text(Some(11), "write(1, \"x\", 1) = ", Style::Plain);
        out.record_stop(11);
        out.text(Some(11), "1", Style::Plain);
        out.record_clear(11);
        out.newline();
        assert!(!out.record_replay(10, true));
        out.text(Some(10), "\"abc\", 4) = 3", Style::Plain);
        out.record_clear(10);
        out.newline();
        assert_eq!(
            text(&buf),
            "10| read(0, <..>\n11| write(1, \"x\", 1) = 1\n10|*read(0, \"abc\", 4) = 3\n"
        );
    }

    #[test]
    fn last_process_gets_quote_prefix_once() {
        let (mut out, buf) = output();
        out.set_proc_count(2);
        out.text(Some(5), "a", Style::Plain);
        out.newline();
        out.set_proc_count(1);
        out.text(Some(5), "b", Style::Plain);
        out.newline();
        out.text(Some(5), "c", Style::Plain);
        out.newline();
        assert_eq!(text(&buf), "5| a\n5' b\nc\n");
    }

    #[test]
    fn soft_space_never_ends_a_line() {
        let (mut out, buf) = output();
        out.set_proc_count(1);
        out.record_start(1);
        out.text(Some(1), "exit_group(0) ", Style::Plain);
        out.record_stop(1);
        out.record_clear(1);
        out.newline();
        assert_eq!(text(&buf), "exit_group(0)\n");
    }

    #[test]
    fn no_caller_can_write_a_control_character_raw() {
        let (mut out, buf) = output();
        out.set_proc_count(1);
        out.record_start(1);
        out.text(Some(1), "write_index=0 <\x1b[2J\u{202e}>, ", Style::Plain);
        out.record_stop(1);
        out.continuation(1, "> event \"a\x07\nb\"");
        out.raw("a\x1bb\nc\n");
        out.json_line(&serde_json::json!({ "name": "\x1b\u{9b}\u{202e}" }));
        assert_eq!(
            text(&buf),
            "write_index=0 <\\33[2J\\342\\200\\256>,\n  > event \"a\\7\\nb\"\n\
             a\\33b\nc\n{\"name\":\"\\u001b\\u009b\\u202e\"}\n"
        );
    }

    #[test]
    fn overflowed_recording_asks_for_a_substitute() {
        let (mut out, buf) = output();
        out.set_proc_count(2);
        out.record_start(1);
        out.text(Some(1), &"x".repeat(RECORD_LIMIT + 1), Style::Plain);
        out.record_stop(1);
        out.text(Some(2), "y", Style::Plain);
        out.newline();
        assert!(out.record_replay(1, true));
        out.text(Some(1), "z", Style::Plain);
        out.record_clear(1);
        out.newline();
        assert!(
            text(&buf).ends_with("x<..>\n2| y\n1|*z\n"),
            "{}",
            text(&buf)
        );
    }
}
