//! What the engine is asked to do and what it answers: [`Config`] and its
//! [`Selection`], the modes they choose, and how a trace ends ([`Exit`],
//! [`Error`]).

use std::ffi::OsString;

use super::affinity::SameCpu;
use super::stats::SortKey;
use super::{bpf, filtering, paths};
use crate::format::FormatConfig;
use crate::select::{SignalSet, StatusSet, TraceSet};

/// What to trace and how.
pub struct Config {
    /// A command to start, with its arguments (may be empty with `-p`).
    pub command: Vec<OsString>,
    /// Processes to attach to.
    pub attach: Vec<i32>,
    /// `-f`: follow forks, vforks, clones and threads.
    pub follow: bool,
    /// Formatting choices.
    pub format: FormatConfig,
    /// Which calls and signals are printed.
    pub select: Selection,
    /// `-c`/`-C`: the statistics summary.
    pub summary: Summary,
    /// `-S`: how the summary is sorted.
    pub sort: SortKey,
    /// `-T`: print the time spent in each call.
    pub call_times: bool,
    /// Whether to use the seccomp-bpf fast path.
    pub seccomp: SeccompMode,
    /// `--kill-on-exit`: the started command dies with rtrace
    /// (PTRACE_O_EXITKILL). Without it a killed rtrace leaves the command
    /// running, as strace does, except under the seccomp fast path.
    pub kill_on_exit: bool,
    /// `--same-cpu`: when to run rtrace and its tracees on one CPU.
    pub same_cpu: SameCpu,
    /// `--bpf`: trace with the BPF engine instead of ptrace.
    pub bpf: Option<bpf::Options>,
    /// `--usbmon-replay`: the started command runs on an emulated usbmon
    /// replaying a capture (`crate::emu::usbmon`).
    pub usbmon_replay: Option<crate::emu::usbmon::Replay>,
    /// `--user-events-emulate`: the started command runs on an emulated
    /// user_events (`crate::emu::user_events`), whose trace buffer is
    /// printed after the trace.
    pub user_events: Option<crate::emu::user_events::Emulation>,
    /// `-q` count: 1 and up, no banner, exec, exit or detach lines (the
    /// signal lines `-qq` also hides are off through the selection).
    pub quiet: u8,
    /// `--syscall-limit=N`: let every process go once N calls are shown.
    pub syscall_limit: Option<u64>,
    /// `-b execve` (`--detach-on=execve`): let a process go when it execs,
    /// the started command's own first exec aside.
    pub detach_on_exec: bool,
    /// `-k` / `--stack-trace`: every printed call's user stack after it.
    pub stack_trace: bool,
    /// `--stack-trace-frame-limit=N`: at most N frames a stack (-k and
    /// the `stacktrace` trigger).
    pub frame_limit: usize,
    /// `-kk` / `--stack-trace=source`: each frame's source line too.
    pub stack_source: bool,
    /// How the started command is started: `-E`, `-u`, `--argv0`.
    pub launch: Launch,
}

/// How the started command is started (strace's `-E`, `-u`, `--argv0`,
/// `-D`).
#[derive(Debug, Default)]
pub struct Launch {
    /// `-E VAR=VAL` (set) and `-E VAR` (remove): changes to rtrace's own
    /// environment for the command, applied in order.
    pub env: Vec<OsString>,
    /// `-u USER`: the user the command runs as.
    pub run_as: Option<RunAs>,
    /// `--argv0 NAME`: the command's argv\[0\] (its path stays the one
    /// found).
    pub argv0: Option<OsString>,
    /// `-D` (1), `-DD` (2), `-DDD` (3): rtrace runs as a grandchild of the
    /// process it was started as, which becomes the command: the command
    /// is its caller's child, not rtrace's; with 2 rtrace has a process
    /// group of its own, with 3 a session.
    pub daemonize: u8,
}

/// `-u`'s user: who the command runs as, set in the child after rtrace
/// traces it and before its exec (groups and gid first, while the child
/// may still change them; the uid last).
#[derive(Debug, Clone)]
pub struct RunAs {
    /// The real uid (and effective, unless the program is setuid).
    pub uid: u32,
    /// The real gid (and effective, unless the program is setgid).
    pub gid: u32,
    /// The supplementary groups: the user's (`getgrouplist`), none for a
    /// `UID:GID` given by number.
    pub groups: Vec<u32>,
}

/// What is printed: `-e trace=`, `-e status=`, `-e signal=`.
pub struct Selection {
    /// Calls printed.
    pub trace: TraceSet,
    /// Outcomes printed.
    pub status: StatusSet,
    /// Signals reported.
    pub signals: SignalSet,
    /// `--filter`: calls printed must match it.
    pub filter: Option<crate::filter::Filter>,
    /// `--trigger`: actions fired by matching calls.
    pub triggers: Vec<filtering::Trigger>,
    /// `-e diag=`: which ABI misuse diagnostics are printed.
    pub diag: crate::diag::DiagSet,
    /// `-P` and `--trace-fds`: calls printed must touch these files.
    pub paths: paths::PathTrace,
    /// `-e inject=` and `-e fault=`: calls tampered with, printed or not.
    pub inject: crate::select::inject::InjectSet,
    /// `-e abbrev=`: the calls whose arrays and structs are cut (the
    /// others print whole, as with `-v`); `None`: `-v` decides for all.
    pub abbrev: Option<TraceSet>,
    /// `-e verbose=`: the calls whose structs are read (the others print
    /// them as addresses); `None`: all.
    pub verbose: Option<TraceSet>,
    /// `-e raw=`: the calls printed as numbers, undecoded.
    pub raw: Option<TraceSet>,
}

impl Default for Selection {
    fn default() -> Self {
        Selection {
            trace: TraceSet::all(),
            status: StatusSet::ALL,
            signals: SignalSet::all(),
            filter: None,
            triggers: Vec::new(),
            diag: crate::diag::DiagSet::ALL,
            paths: paths::PathTrace::default(),
            inject: Default::default(),
            abbrev: None,
            verbose: None,
            raw: None,
        }
    }
}

/// `-c` and `-C`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Summary {
    /// The trace only.
    Off,
    /// The summary only (`-c`).
    Only,
    /// The trace and the summary (`-C`).
    Both,
}

/// `--seccomp-bpf` / `--no-seccomp-bpf`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeccompMode {
    /// Use it when the selection allows.
    Auto,
    /// The user asked for it: an error if the selection does not allow.
    On,
    /// Never.
    Off,
}

/// How rtrace itself should end.
#[derive(Debug, PartialEq, Eq)]
pub enum Exit {
    /// Exit with this code.
    Code(i32),
    /// The started command died from this signal: die the same way.
    Signal(i32),
}

/// A fatal problem before or while tracing, printed as one line.
#[derive(Debug)]
pub struct Error {
    /// The message, without the `rtrace: ` prefix.
    pub message: String,
    /// The exit code.
    pub code: i32,
}

impl Error {
    pub(crate) fn new(message: String, code: i32) -> Error {
        Error { message, code }
    }
}
