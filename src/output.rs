//! The output layer: the one choke point through which every byte is written.
//!
//! It owns the current line: which process it belongs to, the `PID| ` prefix
//! rules, the soft space that keeps lines from ending in a space, and the
//! per-process recording of a call's enter text. When another process needs
//! the line, the open line is closed with ` <..>`; when the call resumes, its
//! recording is replayed after a `*` marker. Nothing above this layer writes
//! bytes; the engine hands it the number of traced processes and the layers
//! above hand it text.

use crate::fasthash::IntMap;
use std::io::{self, Write};

pub mod timeline;
use std::sync::atomic::{AtomicBool, Ordering};
use timeline::Timeline;

use owo_colors::OwoColorize;

/// How long a call's recorded enter text may grow before replay falls back to
/// the synthesized `name(<..>` form.
pub const RECORD_LIMIT: usize = 512;

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

/// Timestamp form printed before each line's prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Timestamps {
    /// None.
    #[default]
    Off,
    /// `HH:MM:SS`.
    Seconds,
    /// `HH:MM:SS.uuuuuu`.
    Micros,
    /// Seconds since the epoch with microseconds (`-ttt`).
    Epoch,
    /// Seconds since the previous line (`-r`).
    Relative,
}

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
    deferred: bool,
}

impl Recording {
    /// Add `text` to an active recording, within the limit unless deferred.
    fn add(&mut self, text: &str) {
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
        self.proc_count = count;
    }

    /// Whether text was written since the last flush.
    pub fn unflushed(&self) -> bool {
        self.unflushed
    }

    /// The first write error, if any; once set, nothing more is written.
    pub fn error(&self) -> Option<&io::Error> {
        self.error.as_ref()
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

    fn put_prefix(&mut self, pid: Option<i32>, resuming: bool) {
        debug_assert_eq!(self.line_len, 0);
        if matches!(self.timestamps, Timestamps::Off)
            && pid.is_some()
            && !resuming
            && !self.print_pid
            && self.proc_count <= 1
        {
            // One process, no timestamps: a line starts with nothing (the
            // common case of full tracing, at every call).
            return;
        }
        let event = self.event_time;
        let mut since_last = || {
            let now = event.unwrap_or_else(std::time::Instant::now);
            let delta = self.last_time.map_or(0.0, |t| (now - t).as_secs_f64());
            self.last_time = Some(now);
            delta
        };
        let mut clock = String::new();
        match self.timestamps {
            Timestamps::Off => {}
            Timestamps::Relative => clock = format!("{:12.6} ", since_last()),
            form => {
                clock = timestamp(form, event);
                clock.push(' ');
                if self.relative_too {
                    clock.push_str(&format!("(+{:9.6}) ", since_last()));
                }
            }
        }
        // The pid part is built on the stack: with -f it starts every line.
        let mut pid_buf = [0u8; 24];
        let many = self.proc_count > 1;
        let mark: &[u8] = match pid {
            Some(pid) if self.print_pid || many => {
                let digits = decimal(pid, &mut pid_buf);
                pid_buf[digits] = if many { b'|' } else { b'\'' };
                pid_buf[digits + 1] = if resuming { b'*' } else { b' ' };
                &pid_buf[..digits + 2]
            }
            Some(_) if resuming => b"*",
            Some(_) => b"",
            None => b"INFO| ",
        };
        self.line_len += clock.len() + mark.len();
        if !clock.is_empty() {
            self.write_raw(clock.as_bytes());
        }
        self.write_raw(mark);
        self.print_pid = many || pid.is_none();
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

    /// Start recording `pid`'s text: a call's enter half begins.
    pub fn record_start(&mut self, pid: i32) {
        if let Some(t) = &mut self.timeline {
            t.begin_text(pid);
        }
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
    }

    /// Print a continuation line of `pid`'s current call (an extended
    /// result, one item a line): the process's prefix, an indent, `text`.
    /// The call's own line is complete by then, so it gets no `<..>`.
    pub fn continuation(&mut self, pid: i32, text: &str) {
        let text = &*crate::escape::terminal_safe(text, false);
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
        self.print_susp = false;
        self.newline();
        self.write_raw(line.as_bytes());
    }

    /// Whether the current line holds text of `pid`.
    pub fn line_is(&self, pid: i32) -> bool {
        self.line_len > 0 && self.line_pid == Some(pid)
    }

    /// Replay `pid`'s recorded call on a new line unless its text is still
    /// on the current line. `resuming` marks the line with `*`. Returns true
    /// when the recording overflowed and the caller must print a substitute.
    pub fn record_replay(&mut self, pid: i32, resuming: bool) -> bool {
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

/// Set when a write that cannot go on (its reader stopped reading) must
/// give up: rtrace's second interrupt sets it, and a blocked write
/// interrupted by a signal then fails instead of trying again, so the
/// interrupt can end rtrace (HACKING.md, "The output layer's rules").
pub static GIVE_UP_WRITING: AtomicBool = AtomicBool::new(false);

/// How much trace is kept before it is written.
pub const BUFFER: usize = 64 * 1024;

/// The trace's buffered writer. Text is kept until [`BUFFER`] bytes are
/// there, and then written up to the last complete line only: the partial
/// line stays for the next write, so a reader of the file or pipe that
/// also gets the program's output never sees it inside a trace line.
/// [`Write::flush`] writes everything. A write interrupted by a signal is
/// tried again, unless [`GIVE_UP_WRITING`] is set.
pub struct TraceWriter<W: Write> {
    inner: W,
    buf: Vec<u8>,
}

impl<W: Write> TraceWriter<W> {
    /// A writer to `inner` with a buffer of [`BUFFER`] bytes.
    pub fn new(inner: W) -> TraceWriter<W> {
        TraceWriter {
            inner,
            buf: Vec::with_capacity(BUFFER),
        }
    }

    /// Write the first `len` buffered bytes and drop them from the buffer
    /// (those written, also when the write fails).
    fn write_out(&mut self, len: usize) -> io::Result<()> {
        let mut done = 0;
        let result = loop {
            if done == len {
                break Ok(());
            }
            match self.inner.write(&self.buf[done..len]) {
                Ok(0) => break Err(io::Error::from(io::ErrorKind::WriteZero)),
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                    if GIVE_UP_WRITING.load(Ordering::Relaxed) {
                        // Not `Interrupted`, which write_all would retry.
                        break Err(io::Error::other(
                            "it was blocked when rtrace was interrupted a second time",
                        ));
                    }
                }
                Err(e) => break Err(e),
            }
        };
        self.buf.drain(..done);
        result
    }
}

impl<W: Write> Write for TraceWriter<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= BUFFER
            && let Some(last) = self.buf.iter().rposition(|&b| b == b'\n')
        {
            self.write_out(last + 1)?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.write_out(self.buf.len())?;
        self.inner.flush()
    }
}

/// Local wall-clock time as `HH:MM:SS` or `HH:MM:SS.uuuuuu`.
fn timestamp(form: Timestamps, at: Option<std::time::Instant>) -> String {
    let mut tv = libc::timeval {
        tv_sec: 0,
        tv_usec: 0,
    };
    // SAFETY: gettimeofday and localtime_r only write the structs passed.
    let tm = unsafe {
        libc::gettimeofday(&mut tv, std::ptr::null_mut());
        if let Some(at) = at {
            // As long ago as `at` was.
            let ago = at.elapsed().as_micros() as i64;
            let us = tv.tv_sec * 1_000_000 + tv.tv_usec - ago;
            tv.tv_sec = us.div_euclid(1_000_000);
            tv.tv_usec = us.rem_euclid(1_000_000);
        }
        let mut tm: libc::tm = std::mem::zeroed();
        libc::localtime_r(&tv.tv_sec, &mut tm);
        tm
    };
    match form {
        Timestamps::Micros => format!(
            "{:02}:{:02}:{:02}.{:06}",
            tm.tm_hour, tm.tm_min, tm.tm_sec, tv.tv_usec
        ),
        Timestamps::Epoch => format!("{}.{:06}", tv.tv_sec, tv.tv_usec),
        _ => format!("{:02}:{:02}:{:02}", tm.tm_hour, tm.tm_min, tm.tm_sec),
    }
}

/// Write `n` in decimal at the start of `buf`; returns how many bytes.
fn decimal(n: i32, buf: &mut [u8; 24]) -> usize {
    let mut digits = [0u8; 12];
    let mut rest = n.unsigned_abs();
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let mut len = 0;
    if n < 0 {
        buf[0] = b'-';
        len = 1;
    }
    let digits = &digits[at..];
    buf[len..len + digits.len()].copy_from_slice(digits);
    len + digits.len()
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
    /// A writer that records each write it is given.
    #[derive(Clone, Default)]
    struct Writes(Rc<RefCell<Vec<Vec<u8>>>>);
    impl Write for Writes {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.borrow_mut().push(buf.to_vec());
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_full_buffer_is_written_up_to_its_last_complete_line() {
        let writes = Writes::default();
        let mut w = TraceWriter::new(writes.clone());
        let line = format!("{}\n", "x".repeat(99));
        let lines = BUFFER / line.len();
        for _ in 0..lines {
            w.write_all(line.as_bytes()).unwrap();
        }
        assert!(writes.0.borrow().is_empty(), "written before full");
        // The write that fills the buffer ends inside a line: the lines
        // before it go out, the partial one stays.
        w.write_all(b"read(0, ").unwrap();
        w.write_all(&vec![b'y'; line.len()]).unwrap();
        assert_eq!(*writes.0.borrow(), [line.repeat(lines).into_bytes()]);
        w.write_all(b"\n").unwrap();
        w.flush().unwrap();
        let mut tail = b"read(0, ".to_vec();
        tail.extend(vec![b'y'; line.len()]);
        tail.push(b'\n');
        assert_eq!(writes.0.borrow()[1], tail);
        assert_eq!(writes.0.borrow().len(), 2);
    }

    #[test]
    fn decimals_for_prefixes() {
        let mut buf = [0u8; 24];
        for n in [0, 7, 1234, i32::MAX, -1, i32::MIN] {
            let len = decimal(n, &mut buf);
            assert_eq!(&buf[..len], n.to_string().as_bytes());
        }
    }
}
