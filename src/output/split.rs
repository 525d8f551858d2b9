//! `-ff` (`--output-separately`): each task's trace in a file of its own,
//! `FILE.TID`, as strace writes them. Every file keeps its own line, so no
//! task's call is ever cut by another's: each file reads like the trace of
//! a single process (no `PID| ` prefixes, no `<..>` and `*` replays).
//!
//! The layer above sees one [`Output`]; the line state of the file being
//! written (the writer, the current line, its soft space, ...) lives in
//! the [`Output`]'s own fields, and the other files' are parked here. A
//! method given a pid first makes that task's file the active one
//! ([`Output::activate`]); text of no task (an info line, a summary) goes
//! to the main writer, stderr. A task's file is made when it is first
//! written to (so `-p` of a pid that cannot be traced leaves no file),
//! and closed when the task is forgotten, or while it is idle when many
//! are open ([`OPEN_FILES`]); a file reopened (a tid the kernel hands out
//! again, an idle task writing again) is appended to.

use super::{Output, TraceWriter};
use crate::fasthash::IntMap;
use std::collections::HashSet;
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::time::Instant;

/// How many tasks' files are kept open at once: past it, the idle ones
/// are closed (and reopened to append), so that a trace of thousands of
/// live tasks does not run out of fds, nor changes the limit the traced
/// programs inherit.
const OPEN_FILES: usize = 256;

/// One file's writer and the state of its current line: what
/// [`Output`] holds for the active file, parked while another is active.
pub(super) struct Line {
    pub(super) writer: Box<dyn Write>,
    pub(super) error: Option<io::Error>,
    pub(super) line_len: usize,
    pub(super) line_pid: Option<i32>,
    pub(super) print_pid: bool,
    pub(super) print_susp: bool,
    pub(super) add_space: bool,
    pub(super) last_time: Option<Instant>,
    pub(super) unflushed: bool,
}

impl Line {
    /// A file with nothing written to it yet.
    pub(super) fn new(writer: Box<dyn Write>, error: Option<io::Error>) -> Line {
        Line {
            writer,
            error,
            line_len: 0,
            line_pid: None,
            print_pid: false,
            print_susp: false,
            add_space: false,
            last_time: None,
            unflushed: false,
        }
    }

    fn flush(&mut self) {
        if self.error.is_none() {
            self.unflushed = false;
            if let Err(e) = self.writer.flush() {
                self.error = Some(e);
            }
        }
    }
}

/// The files of `-ff`: where they are made, and those not active.
pub(super) struct Split {
    /// `-o`'s FILE: a task's trace goes to `FILE.TID`.
    base: PathBuf,
    /// `-A`: files are appended to, not truncated.
    append: bool,
    /// Whose file is in [`Output`]'s fields: a task's, or (None) the main
    /// writer's.
    active: Option<i32>,
    /// The main writer's line, while a task's file is active.
    main: Option<Line>,
    /// The other tasks' files.
    parked: IntMap<i32, Line>,
    /// Tids whose file this run made: written again, they append.
    made: HashSet<i32>,
    /// The first error of a file already closed.
    closed_error: Option<io::Error>,
}

impl Split {
    /// The files of `base`.TID, appended to with `append`.
    pub(super) fn new(base: PathBuf, append: bool) -> Split {
        Split {
            base,
            append,
            active: None,
            main: None,
            parked: IntMap::default(),
            made: HashSet::new(),
            closed_error: None,
        }
    }

    /// Open `pid`'s file. A file that cannot be made leaves its line
    /// writing nowhere, with the error kept for the end of the trace.
    fn open(&mut self, pid: i32) -> Line {
        let mut path = self.base.clone().into_os_string();
        path.push(format!(".{pid}"));
        let append = self.append || !self.made.insert(pid);
        if self.parked.len() >= OPEN_FILES {
            self.close_idle();
        }
        let open = || {
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .append(append)
                .truncate(!append)
                .mode(0o600)
                .open(&path)
        };
        let file = match open() {
            Err(e) if e.raw_os_error() == Some(libc::EMFILE) && self.close_idle() => open(),
            file => file,
        };
        match file {
            Ok(f) => Line::new(Box::new(TraceWriter::new(f)), None),
            Err(e) => {
                let mut name = String::new();
                crate::escape::c_escape(path.as_encoded_bytes(), false, &mut name);
                let error = io::Error::new(e.kind(), format!("{name}: {e}"));
                Line::new(Box::new(io::sink()), Some(error))
            }
        }
    }
}

impl Split {
    /// Close half the parked files whose line is at its start (written
    /// out): a task's file is reopened, to append, when it writes again.
    /// Returns whether one was closed.
    fn close_idle(&mut self) -> bool {
        let idle: Vec<i32> = self
            .parked
            .iter()
            .filter(|(_, line)| line.line_len == 0)
            .map(|(&pid, _)| pid)
            .take(self.parked.len().div_ceil(2))
            .collect();
        for pid in &idle {
            if let Some(mut line) = self.parked.remove(pid) {
                line.flush();
                if self.closed_error.is_none() {
                    self.closed_error = line.error;
                }
            }
        }
        !idle.is_empty()
    }
}

impl Output {
    /// Write each task's trace to `base`.TID (`-ff`), appending with
    /// `append` (`-A`); the writer given to [`Output::new`] takes what
    /// belongs to no task.
    pub fn split(mut self, base: PathBuf, append: bool) -> Output {
        self.split = Some(Box::new(Split::new(base, append)));
        self
    }

    /// Make `pid`'s file (None: the main writer) the one the line state
    /// in `self` belongs to. Without `-ff` there is only one.
    pub(super) fn activate(&mut self, pid: Option<i32>) {
        let Some(split) = self.split.as_mut() else {
            return;
        };
        if split.active == pid {
            return;
        }
        let incoming = match pid {
            None => split.main.take(),
            Some(pid) => split.parked.remove(&pid),
        };
        let incoming = match (incoming, pid) {
            (Some(line), _) => line,
            (None, Some(pid)) => split.open(pid),
            (None, None) => Line::new(Box::new(io::sink()), None),
        };
        let was = split.active;
        split.active = pid;
        let outgoing = self.swap_line(incoming);
        let split = self.split.as_mut().expect("checked above");
        match was {
            None => split.main = Some(outgoing),
            Some(pid) => {
                split.parked.insert(pid, outgoing);
            }
        }
    }

    /// Put `line` in `self`'s fields, and return what was there.
    fn swap_line(&mut self, line: Line) -> Line {
        Line {
            writer: std::mem::replace(&mut self.writer, line.writer),
            error: std::mem::replace(&mut self.error, line.error),
            line_len: std::mem::replace(&mut self.line_len, line.line_len),
            line_pid: std::mem::replace(&mut self.line_pid, line.line_pid),
            print_pid: std::mem::replace(&mut self.print_pid, line.print_pid),
            print_susp: std::mem::replace(&mut self.print_susp, line.print_susp),
            add_space: std::mem::replace(&mut self.add_space, line.add_space),
            last_time: std::mem::replace(&mut self.last_time, line.last_time),
            unflushed: std::mem::replace(&mut self.unflushed, line.unflushed),
        }
    }

    /// Whether `pid` has a file of its own (`-ff`) that is not the active
    /// one: its line's state is parked.
    pub(super) fn parked_line(&self, pid: i32) -> Option<&Line> {
        self.split.as_ref()?.parked.get(&pid)
    }

    /// `-ff`: the tasks whose files are open.
    pub(super) fn split_pids(&self) -> Vec<i32> {
        let Some(split) = self.split.as_ref() else {
            return Vec::new();
        };
        split.parked.keys().copied().chain(split.active).collect()
    }

    /// Whether each task's trace goes to a file of its own (`-ff`).
    pub fn is_split(&self) -> bool {
        self.split.is_some()
    }

    /// `-ff`: close `pid`'s file, its task gone (an open line is ended
    /// as the trace's last line would be).
    pub(super) fn close_file(&mut self, pid: i32) {
        let Some(split) = self.split.as_ref() else {
            return;
        };
        if split.active == Some(pid) {
            self.activate(None);
        }
        let split = self.split.as_mut().expect("checked above");
        if let Some(mut line) = split.parked.remove(&pid) {
            if line.line_len > 0 && line.error.is_none() {
                line.error = line.writer.write_all(b"\n").err();
            }
            line.flush();
            if split.closed_error.is_none() {
                split.closed_error = line.error;
            }
        }
    }

    /// `-ff`: write every parked file's buffer out.
    pub(super) fn flush_parked(&mut self) {
        if let Some(split) = self.split.as_mut() {
            split.parked.values_mut().for_each(Line::flush);
            if let Some(main) = split.main.as_mut() {
                main.flush();
            }
        }
    }

    /// `-ff`: a parked file's error, or whether one holds unwritten text.
    pub(super) fn parked_error(&self) -> Option<&io::Error> {
        let split = self.split.as_ref()?;
        split.closed_error.as_ref().or_else(|| {
            split
                .main
                .iter()
                .chain(split.parked.values())
                .find_map(|l| l.error.as_ref())
        })
    }

    /// `-ff`: whether a parked file holds text not yet flushed.
    pub(super) fn parked_unflushed(&self) -> bool {
        self.split
            .as_ref()
            .is_some_and(|s| s.main.iter().chain(s.parked.values()).any(|l| l.unflushed))
    }
}
