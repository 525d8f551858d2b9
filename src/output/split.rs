//! `-ff` (`--output-separately`): each task's trace in a file of its own,
//! `FILE.TID`, as strace writes them. Every file keeps its own line, so no
//! task's call is ever cut by another's: each file reads like the trace of
//! a single process (no `PID| ` prefixes, no `<..>` and `*` replays but a
//! call's own).
//!
//! The layer above sees one [`Output`]; the line state of the file being
//! written (the writer, the current line, its soft space, ...) lives in
//! the [`Output`]'s own fields, and the other files' are parked here. A
//! method given a pid first makes that task's file the active one
//! ([`Output::activate`]); text of no task (an info line, a summary) goes
//! to the main writer, stderr. A task's file is made when it is first
//! written to (so `-p` of a pid that cannot be traced leaves no file),
//! and closed when the task is forgotten. At most [`OPEN_FILES`] are open
//! at once (fewer under a low fd limit): past that, parked files are written out and closed, their
//! line's state kept, and reopened to append when their task writes
//! again (as is the file of a tid the kernel hands out again).

use super::{Output, TraceWriter};
use crate::fasthash::IntMap;
use std::collections::HashSet;
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::time::Instant;

/// How many tasks' files are open at once, at most: a trace of thousands
/// of live tasks (threads blocked in a call included) then needs no more
/// fds than this, nor a raised limit, which the traced programs would
/// inherit. Fewer under a low fd limit ([`open_files`]).
const OPEN_FILES: usize = 256;

/// How many task files may be open under the fd limit rtrace was given:
/// [`OPEN_FILES`], or under a lower limit half of what is left after the
/// fds rtrace needs for itself (its /proc reads, the BPF engine's maps).
fn open_files() -> usize {
    const OWN: u64 = 64;
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct passed.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return OPEN_FILES;
    }
    let spare = limit.rlim_cur.saturating_sub(OWN) / 2;
    (spare.min(OPEN_FILES as u64) as usize).max(4)
}

/// One file's writer and the state of its current line: what [`Output`]
/// holds for the active file, parked while another is active. A parked
/// file may be closed (`writer` None) with its line's state kept.
pub(super) struct Line {
    pub(super) writer: Option<Box<dyn Write>>,
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
    fn new(writer: Box<dyn Write>, error: Option<io::Error>) -> Line {
        Line {
            writer: Some(writer),
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

    /// Write out what is buffered (a partial line too: the file is
    /// appended to after it).
    fn flush(&mut self) {
        if let Some(writer) = self.writer.as_mut()
            && self.error.is_none()
        {
            self.unflushed = false;
            if let Err(e) = writer.flush() {
                self.error = Some(e);
            }
        }
    }

    /// Write out and close the file, keeping the line's state.
    fn close(&mut self) {
        self.flush();
        self.writer = None;
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
    /// The other tasks' files, open or closed.
    parked: IntMap<i32, Line>,
    /// How many task files are open, the active one included.
    open: usize,
    /// How many may be ([`open_files`]).
    max_open: usize,
    /// Tids whose file this run made: made again, they append.
    made: HashSet<i32>,
    /// The first error of a file already closed for good.
    closed_error: Option<io::Error>,
}

impl Split {
    /// The files of `base`.TID, appended to with `append`.
    fn new(base: PathBuf, append: bool) -> Split {
        Split {
            base,
            append,
            active: None,
            main: None,
            parked: IntMap::default(),
            open: 0,
            max_open: open_files(),
            made: HashSet::new(),
            closed_error: None,
        }
    }

    /// Open `pid`'s file, truncating it unless `-A` or this run made it
    /// before. A file that cannot be opened writes nowhere, with the
    /// error kept for the end of the trace.
    fn open(&mut self, pid: i32) -> (Box<dyn Write>, Option<io::Error>) {
        if self.open >= self.max_open {
            self.close_some();
        }
        let mut path = self.base.clone().into_os_string();
        path.push(format!(".{pid}"));
        let append = self.append || !self.made.insert(pid);
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
            // Out of fds for another reason: make room, once.
            Err(e) if e.raw_os_error() == Some(libc::EMFILE) && self.close_some() => open(),
            file => file,
        };
        // (A file that could not be opened counts too: its line holds a
        // writer, to nowhere, until it is closed.)
        self.open += 1;
        match file {
            Ok(f) => (Box::new(TraceWriter::new(f)), None),
            Err(e) => {
                let mut name = String::new();
                crate::escape::c_escape(path.as_encoded_bytes(), false, &mut name);
                let error = io::Error::new(e.kind(), format!("{name}: {e}"));
                (Box::new(io::sink()), Some(error))
            }
        }
    }

    /// Close half the open parked files (their state kept; the active
    /// file stays open). Returns whether one was closed.
    fn close_some(&mut self) -> bool {
        let mut closed = 0;
        for line in self.parked.values_mut() {
            if closed == self.max_open.div_ceil(2) {
                break;
            }
            if line.writer.is_some() {
                line.close();
                closed += 1;
            }
        }
        self.open -= closed;
        closed > 0
    }

    /// `pid`'s parked line, made ready to write: a closed file reopened.
    fn unpark(&mut self, pid: i32) -> Line {
        let Some(mut line) = self.parked.remove(&pid) else {
            let (writer, error) = self.open(pid);
            return Line::new(writer, error);
        };
        if line.writer.is_none() {
            let (writer, error) = self.open(pid);
            line.writer = Some(writer);
            line.error = line.error.or(error);
        }
        line
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
            None => split
                .main
                .take()
                .expect("the main line is parked while a task's is active"),
            Some(pid) => split.unpark(pid),
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

    /// Put `line` (an open one) in `self`'s fields, and return what was
    /// there.
    fn swap_line(&mut self, line: Line) -> Line {
        let writer = line.writer.expect("an active line's file is open");
        Line {
            writer: Some(std::mem::replace(&mut self.writer, writer)),
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

    /// `pid`'s parked line, where `pid` has a file that is not the active
    /// one (`-ff`).
    pub(super) fn parked_line(&self, pid: i32) -> Option<&Line> {
        self.split.as_ref()?.parked.get(&pid)
    }

    /// `-ff`: the tasks whose line is open (in a file open or parked).
    pub(super) fn split_open_lines(&self) -> Vec<i32> {
        let Some(split) = self.split.as_ref() else {
            return Vec::new();
        };
        let open_lines = split.parked.iter().filter(|(_, l)| l.line_len > 0);
        open_lines
            .map(|(&pid, _)| pid)
            .chain(split.active)
            .collect()
    }

    /// Whether each task's trace goes to a file of its own (`-ff`).
    pub fn is_split(&self) -> bool {
        self.split.is_some()
    }

    /// `-ff`: close `pid`'s file for good, its task gone. Its open line is
    /// ended as the trace's last line is (` <..>` after a call still
    /// open: a thread's execve, which the leader's file finishes).
    pub(super) fn close_file(&mut self, pid: i32) {
        let Some(split) = self.split.as_ref() else {
            return;
        };
        let has_file = split.active == Some(pid) || split.parked.contains_key(&pid);
        if !has_file {
            return;
        }
        // A closed file whose line is ended has nothing left to write:
        // not reopened.
        if self.parked_line(pid).is_none_or(|l| l.line_len > 0) {
            self.activate(Some(pid));
            self.newline();
        }
        self.activate(None);
        let split = self.split.as_mut().expect("checked above");
        if let Some(mut line) = split.parked.remove(&pid) {
            if line.writer.is_some() {
                split.open -= 1;
            }
            line.close();
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

    /// `-ff`: a parked file's error, or a closed one's.
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
