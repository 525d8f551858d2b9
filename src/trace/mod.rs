//! The ptrace engine: start or attach, the wait loop, the process table and
//! its events.
//!
//! The engine turns wait statuses into events: syscall enter and leave
//! (handed to the call layer), signals, group-stops, fork/clone children,
//! exec, exit and detach. It owns the process table and each process's
//! bookkeeping (current call, calls waiting for a restart, fd table) and
//! tells the output layer how many processes are traced. Every stopped
//! tracee is resumed exactly once, with the signal it stopped for: a stop
//! is a `kernel::Stop` value, consumed by `Engine::resume` (or kept on
//! purpose with `Stop::hold`), and the functions that take one return the
//! `kernel::Handled` only those make.
//!
//! The events that add and remove tasks (children, exec, exit) are in
//! `tasks.rs`; rtrace's own signal handlers in `signals.rs`.

mod affinity;
pub mod bpf;
mod calls;
pub mod filtering;
mod inject;
mod own_seccomp;
pub mod paths;
mod pin_guard;
mod seccomp;
mod signals;
mod spawn;
pub mod stats;
mod tasks;
mod timeline;

use crate::fasthash::IntMap;
use signals::{
    FLUSH_DELAY_US, FLUSH_DUE, INTERRUPTS, TO_FORWARD, arm_alarm, install_signal_handlers,
};
use std::collections::VecDeque;
use std::ffi::OsString;
use std::sync::atomic::Ordering;

use nix::unistd::Pid;

use crate::call::{Call, Show};
use crate::decode::signal_name;
use crate::escape::TraceeText;
use crate::fdtable::SharedFdTable;
use crate::format::FormatConfig;
use crate::kernel::{self, Handled, Held, Memory, Resume, Stop, Waited};
use crate::output::{Output, Recording, Style};
use crate::select::{SignalSet, StatusSet, TraceSet};
pub use affinity::SameCpu;
pub use signals::record_inherited_signals;
use stats::{SortKey, Stats};

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
    /// `-k` / `--stack-trace`: every printed call's user stack after it.
    pub stack_trace: bool,
    /// `--stack-trace-frame-limit=N`: at most N frames a stack (-k and
    /// the `stacktrace` trigger).
    pub frame_limit: usize,
    /// `-kk` / `--stack-trace=source`: each frame's source line too.
    pub stack_source: bool,
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

/// The most waits in a row that skip collecting the other ready statuses
/// (see `Engine::next_status`): a task kept waiting meanwhile waits this
/// many stops of others at most (well under a millisecond).
const DRAIN_GAP_MAX: u32 = 16;

/// Where a process is in its life as a tracee.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Life {
    /// Started by us, before its first execve: its calls are ours, not shown.
    Starting,
    /// Attached with -p, waiting for the stop PTRACE_INTERRUPT asked for.
    Attaching,
    /// Auto-attached child waiting for its first stop and for its parent to
    /// finish printing the call that created it (its first stop, if it
    /// came first, is held in `Proc::first_stop`).
    Newborn { ready: bool },
    /// Traced normally.
    Running,
}

/// A call in progress as the engine keeps it: the call layer's state and
/// what the ABI diagnostics saw at its entry, for its leave. The
/// diagnostics sit above the call layer (they use the ioctl decoders,
/// which use it), so their part travels beside the [`Call`], not inside
/// it: wherever the call goes (suspended for a signal, restarted, copied
/// to a new child), its diagnostics' state goes too.
#[derive(Clone)]
struct Ongoing {
    /// The call layer's state.
    call: Call,
    /// What [`crate::diag::enter`] saw, taken by the leave's diagnostics.
    diag: crate::diag::Entered,
}

impl std::ops::Deref for Ongoing {
    type Target = Call;

    fn deref(&self) -> &Call {
        &self.call
    }
}

impl std::ops::DerefMut for Ongoing {
    fn deref_mut(&mut self) -> &mut Call {
        &mut self.call
    }
}

/// A call set aside because it returned ERESTART* for a signal; the kernel
/// will restart it (same number, same ip/sp) or turn it into EINTR.
struct Suspended {
    call: Ongoing,
    record: Recording,
    rval: i64,
    /// A signal handler has made calls since: signals now belong to the
    /// handler, not to this call's split.
    handler_ran: bool,
    /// A signal was delivered since this call was suspended, so a handler
    /// may be running. Kept per call: a call of the handler may itself be
    /// suspended (by a stop, with no signal of its own) and restarted.
    signalled: bool,
}

/// One traced task (a process or a thread: each has its own calls).
struct Proc {
    pid: i32,
    /// Its thread group (process) id.
    tgid: i32,
    name: TraceeText,
    attached: bool,
    life: Life,
    call: Option<Ongoing>,
    suspended: Vec<Suspended>,
    /// The next syscall-exit stop is execve's, after a successful exec.
    skip_exec_exit: bool,
    /// Print no `---`/banner for the first exec (the start banner said it).
    quiet_exec: bool,
    detaching: bool,
    fds: SharedFdTable,
    mem: Memory,
    /// Auto-attached children that start once this process leaves its call.
    children: Vec<i32>,
    /// A newborn's first stop, held until its parent has printed the call
    /// that created it (`Life::Newborn`).
    first_stop: Option<Held>,
    /// The process runs under rtrace's seccomp filter: it stops only on
    /// selected calls, so it is resumed with PTRACE_CONT between calls.
    seccomp: bool,
    /// Its own seccomp use under rtrace's filter: a filter of its own or
    /// strict mode makes it step every call (see `own_seccomp`).
    own: own_seccomp::OwnSeccomp,
    /// Printed. Without -f, a started command's children and threads are
    /// traced all the same when it runs under the fast path: they inherit
    /// the filter, and a selected call with no tracer fails with ENOSYS.
    /// Such a process is only resumed at each stop and never shown.
    shown: bool,
    /// `-e inject=`: its invocations counted and the injection under way.
    inject: inject::TaskInject,
    /// `--same-cpu`: the task is pinned to rtrace's CPU, and this is the
    /// mask it would have without rtrace (see `affinity`).
    own_mask: Option<Vec<u8>>,
    /// Pinning it failed (another owner, a cpuset without the CPU).
    unpinnable: bool,
    /// How many open calls need the task on its own mask (its own, or
    /// another task's affinity call naming it): it is not pinned
    /// meanwhile (`affinity::own_mask_entered`).
    held: u32,
    /// The task whose mask the task's open call holds (`held`), if any.
    holding: Option<i32>,
    /// `--same-cpu=auto` with several tasks: since when the task has run
    /// its own code (resumed outside a call), the time it did so in this
    /// tick before that, and whether it computes (see `affinity`).
    user_since: Option<std::time::Instant>,
    user_time: std::time::Duration,
    computing: bool,
}

impl Proc {
    fn new(pid: i32, name: TraceeText, attached: bool, life: Life, fds: SharedFdTable) -> Proc {
        Proc {
            pid,
            tgid: pid,
            name,
            attached,
            life,
            call: None,
            suspended: Vec::new(),
            skip_exec_exit: false,
            quiet_exec: false,
            detaching: false,
            fds,
            mem: Memory::new(Pid::from_raw(pid)),
            children: Vec::new(),
            first_stop: None,
            seccomp: false,
            own: Default::default(),
            inject: Default::default(),
            shown: true,
            own_mask: None,
            unpinnable: false,
            held: 0,
            holding: None,
            user_since: None,
            user_time: std::time::Duration::ZERO,
            computing: false,
        }
    }

    /// How to resume this process from a stop, delivering `sig`: between
    /// calls under the seccomp filter nothing needs to stop it; in a call
    /// its exit must, and while a call waits for its restart every call
    /// must (the handler's, rt_sigreturn, restart_syscall: the filter does
    /// not stop those), as must every call of a task with a filter of its
    /// own or in strict mode (`own_seccomp`).
    fn resume_with(&self, sig: i32) -> Resume {
        let in_call = self.call.is_some() || self.skip_exec_exit || !self.suspended.is_empty();
        if !self.steps_every_call()
            && !in_call
            && matches!(self.life, Life::Running | Life::Starting)
        {
            Resume::Cont(sig)
        } else {
            Resume::Syscall(sig)
        }
    }

    /// Whether every call stops (PTRACE_SYSCALL between calls).
    fn steps_every_call(&self) -> bool {
        !self.seccomp || self.own.steps()
    }
}

const PTRACE_EVENT_STOP: i32 = crate::abi::xlat::process::PTRACE_EVENT_STOP as i32;

struct Engine {
    out: Output,
    fmt: FormatConfig,
    follow: bool,
    /// `--kill-on-exit`: PTRACE_O_EXITKILL on the started command.
    kill_on_exit: bool,
    select: Selection,
    /// Selection by (arch, number), computed once per call number.
    selected: IntMap<(kernel::Arch, u64), bool>,
    /// How `-e abbrev=`, `-e verbose=`, `-e raw=` print each call, by
    /// ABI and number (made at its first entry).
    styles: IntMap<(kernel::Arch, u64), crate::format::CallStyle>,
    /// Calls are held back until their leave decides (status filters,
    /// `--filter`, triggers).
    deferring: bool,
    /// Whether calls are printed now (triggers switch it).
    printing: bool,
    summary: Summary,
    sort: SortKey,
    stats: Stats,
    call_times: bool,
    procs: IntMap<i32, Proc>,
    /// Stops of auto-attached children that arrived before their parent's
    /// fork event named them, held until it does.
    orphans: IntMap<i32, Held>,
    main_pid: Option<i32>,
    main_exit: Option<Exit>,
    /// Started processes run under the seccomp fast path.
    seccomp: bool,
    /// ... and run with no-new-privs they would not have untraced: the
    /// filter needed it (see `own_seccomp`).
    nnp_added: bool,
    interrupts_seen: u32,
    /// Statuses collected but not yet handled, oldest first (see
    /// `next_status`).
    pending: VecDeque<Waited>,
    /// Waits to come that skip collecting the other ready statuses, and
    /// how many the next collection that finds none will skip (see
    /// `next_status`).
    drain_skip: u32,
    drain_gap: u32,
    /// The output failed: nothing is shown any more (see `output_failed`).
    output_lost: bool,
    /// `--same-cpu`.
    colo: affinity::CoLocation,
    /// When the event being handled happened, if not now (the BPF
    /// engine's records carry the kernel's time).
    clock: Option<std::time::Instant>,
    /// /proc tells what a task is at the event being handled: ptrace
    /// holds it stopped there; the BPF engine reads its records later.
    proc_is_current: bool,
    /// `--usbmon-replay`: the emulation the started command gets.
    usbmon_replay: Option<crate::emu::usbmon::Replay>,
    /// `--user-events-emulate`: the emulation the started command gets.
    user_events: Option<crate::emu::user_events::Emulation>,
    /// `-q`: no process event lines.
    quiet: bool,
    /// `--syscall-limit`: how many more calls are shown before every
    /// process is let go (0: the limit is reached).
    limit: Option<u64>,
    /// The limit was reached: the started command let go exits rtrace
    /// with 0, as strace does, not as one lost.
    limit_hit: bool,
    /// `-k`: every printed call's stack.
    stack_trace: bool,
    /// The unwinder's state, with `-k` or a `stacktrace` trigger.
    stacks: Option<crate::stack::Stacks>,
}

/// Trace according to `cfg`, printing to `out`; returns how rtrace should exit.
pub fn run(cfg: Config, out: Output) -> Result<Exit, Error> {
    if cfg.bpf.is_some() {
        if !cfg.select.inject.is_empty() {
            return Err(Error::new(
                "-e inject and -e fault need ptrace: --bpf only watches, it cannot change a call"
                    .into(),
                2,
            ));
        }
        return bpf::run(cfg, out);
    }
    // As strace: the filter's processes could not run on untraced once the
    // limit lets them go (their selected calls would fail with ENOSYS).
    if cfg.syscall_limit.is_some() && cfg.seccomp == SeccompMode::On {
        return Err(Error::new(
            "--seccomp-bpf cannot be used with --syscall-limit: the processes let go would keep the filter".into(),
            2,
        ));
    }
    let seccomp = match cfg.seccomp {
        _ if cfg.syscall_limit.is_some() => false,
        SeccompMode::Off => false,
        mode => {
            let usable = cfg.select.trace.static_only
                && !cfg.select.trace.is_all()
                && !cfg.command.is_empty();
            // A filter or trigger sees only the calls that stop; the
            // selection still decides which those are, so both combine.
            if mode == SeccompMode::On && !usable {
                return Err(Error::new(
                    "--seccomp-bpf needs a command and a selection of calls by name or class (-e trace=...)"
                        .into(),
                    2,
                ));
            }
            // Without -f the children would have to be traced unshown (they
            // inherit the filter), which a command that traces its own
            // children (gdb, strace) cannot live with: only when asked.
            usable && (cfg.follow || mode == SeccompMode::On)
        }
    };
    let colo = affinity::CoLocation::new(cfg.same_cpu)?;
    // Calls the filter stops whether or not they are printed: the
    // bookkeeping (the fd table is followed whatever is selected), the
    // calls that install or report seccomp state (answered as untraced),
    // and the calls a pinned task makes on its own mask.
    let mut extra: Vec<&str> = crate::service::fs::BOOKKEEPING.to_vec();
    extra.extend_from_slice(seccomp::ALWAYS_STOPPED);
    if colo.enabled() {
        extra.extend_from_slice(affinity::VIRTUALISED);
    }
    // Injected calls stop whether or not they are printed (strace injects
    // into calls -e trace= leaves out too).
    extra.extend(cfg.select.inject.stopped_calls());
    let filter = seccomp.then(|| seccomp::program(&cfg.select.trace, &extra));
    let (mut engine, command, attach) = Engine::new(cfg, out, seccomp, colo);
    install_signal_handlers();
    for &pid in &attach {
        if let Err(e) = engine.attach(pid) {
            engine.detach_all();
            return Err(e);
        }
    }
    if !command.is_empty()
        && let Err(e) = engine.spawn(&command, filter.as_deref())
    {
        engine.detach_all();
        return Err(e);
    }
    engine.main_loop();
    engine.conclude()
}

impl Engine {
    /// An engine for `cfg` writing to `out`; the command and the pids to
    /// attach to are handed back.
    fn new(
        cfg: Config,
        out: Output,
        seccomp: bool,
        colo: affinity::CoLocation,
    ) -> (Engine, Vec<OsString>, Vec<i32>) {
        let stacks = (cfg.stack_trace
            || cfg
                .select
                .triggers
                .iter()
                .any(|t| t.action == filtering::Action::StackTrace))
        .then(|| crate::stack::Stacks::new(cfg.frame_limit, cfg.stack_source));
        let engine = Engine {
            out,
            fmt: cfg.format,
            follow: cfg.follow,
            kill_on_exit: cfg.kill_on_exit,
            deferring: !cfg.select.status.is_all()
                || cfg.select.filter.is_some()
                || !cfg.select.triggers.is_empty(),
            printing: !cfg
                .select
                .triggers
                .iter()
                .any(|t| t.action == filtering::Action::TraceOn),
            select: cfg.select,
            selected: IntMap::default(),
            styles: IntMap::default(),
            summary: cfg.summary,
            sort: cfg.sort,
            stats: Stats::default(),
            call_times: cfg.call_times,
            procs: IntMap::default(),
            orphans: IntMap::default(),
            main_pid: None,
            main_exit: None,
            seccomp,
            nnp_added: seccomp && !kernel::no_new_privs() && !kernel::has_cap_sys_admin(0),
            interrupts_seen: 0,
            pending: VecDeque::new(),
            drain_skip: 0,
            drain_gap: 0,
            output_lost: false,
            colo,
            clock: None,
            proc_is_current: true,
            usbmon_replay: cfg.usbmon_replay,
            user_events: cfg.user_events,
            quiet: cfg.quiet > 0,
            limit: cfg.syscall_limit,
            limit_hit: false,
            stack_trace: cfg.stack_trace,
            stacks,
        };
        (engine, cfg.command, cfg.attach)
    }

    /// The end of a trace: the summary, the last output, and how rtrace
    /// exits.
    fn conclude(mut self) -> Result<Exit, Error> {
        self.out.newline();
        if self.summary != Summary::Off {
            let table = if self.fmt.json {
                format!("{}\n", self.stats.summary_json(self.sort))
            } else {
                self.stats.summary(self.sort)
            };
            self.out.raw(&table);
        }
        if let Some(ue) = &self.user_events {
            // What ftrace recorded, after the trace (as -c's table).
            let text = ue.trace_text();
            if self.fmt.json {
                for line in text.lines() {
                    self.out.json_line(&serde_json::json!({ "ftrace": line }));
                }
            } else {
                self.out.raw(&text);
            }
        }
        self.out.flush();
        if let Some(e) = self.out.error() {
            return Err(Error::new(
                format!("cannot write trace output: {}", io_message(e)),
                1,
            ));
        }
        Ok(self.main_exit.take().unwrap_or(Exit::Code(0)))
    }
}

fn io_message(e: &std::io::Error) -> String {
    let text = e.to_string();
    // "No such file or directory (os error 2)" -> "No such file or directory"
    match text.find(" (os error") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

impl Engine {
    /// The time of the event being handled.
    fn now(&self) -> std::time::Instant {
        self.clock.unwrap_or_else(std::time::Instant::now)
    }

    fn set_count(&mut self) {
        let shown = self.procs.values().filter(|p| p.shown).count();
        self.out.set_proc_count(shown);
        self.colocation_update();
    }

    /// The one place a stopped tracee is resumed.
    fn resume(&mut self, stop: Stop, how: Resume) -> Handled {
        // On a terminal the trace so far is written before the tracee
        // writes anything more there (see Output::before_resume).
        self.out.before_resume();
        self.resumed(stop.pid(), how);
        stop.resume(how)
    }

    /// Report a process event: a banner line, or a JSON object.
    fn report(&mut self, pid: i32, report: Report) {
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
                Report::Tracing(name, _) | Report::Exec(name) => {
                    map.insert("name".into(), name.json());
                    let args = match &report {
                        Report::Tracing(_, Some(args)) => args.clone(),
                        _ => kernel::process_args(pid).unwrap_or_default(),
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
            Report::Exec(name) => {
                self.banner(pid, "---");
                let args = kernel::process_args(pid).unwrap_or_default();
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
        self.out.newline();
        self.out.text(Some(pid), text, Style::Banner);
        self.out.newline();
    }

    fn main_loop(&mut self) {
        // Output is written when the buffer fills, and otherwise at most
        // FLUSH_DELAY after it was produced: a timer, armed when there is
        // something to write, interrupts the wait. The automatic
        // --same-cpu mode's ticks use it too.
        let mut armed: Option<i64> = None;
        while !self.procs.is_empty() {
            self.handle_interrupts();
            self.limit_reached();
            if FLUSH_DUE.swap(false, Ordering::Relaxed) {
                self.out.flush();
                armed = None;
                self.colocation_tick();
            }
            if self.out.error().is_some() && !self.output_lost {
                self.output_failed();
            }
            // A tick is never later than due, even when a longer flush
            // delay was armed before ticks began.
            if let Some(delay) = self.tick_delay_us()
                && armed.is_none_or(|armed| armed > affinity::TICK_US)
            {
                arm_alarm(delay);
                armed = Some(delay);
            } else if armed.is_none() && self.out.unflushed() {
                arm_alarm(FLUSH_DELAY_US);
                armed = Some(FLUSH_DELAY_US);
            }
            let waited = match self.next_status() {
                None => continue,
                Some(r) => r,
            };
            match waited {
                Ok(waited) => self.dispatch(waited),
                Err(_) => {
                    // ECHILD: nothing left to wait for.
                    self.procs.clear();
                }
            }
        }
    }

    fn handle_interrupts(&mut self) {
        let n = INTERRUPTS.load(Ordering::Relaxed);
        if n == self.interrupts_seen {
            return;
        }
        if self.interrupts_seen == 0 {
            // First interrupt (trace(1)'s ^C): let go of attached
            // processes; started ones are left to finish, shown.
            self.forward_interrupt();
            for pid in self.attached_tasks() {
                self.start_detach(pid);
            }
        }
        if n >= 2 {
            self.kill_started();
        }
        self.interrupts_seen = n;
    }

    /// A signal sent to rtrace alone (kill, timeout) goes on to the
    /// command it started, as strace does, which usually ends it.
    fn forward_interrupt(&self) {
        let forward = TO_FORWARD.load(Ordering::Relaxed);
        if let Some(main) = self.main_pid.filter(|_| forward != 0)
            && self.procs.get(&main).is_some_and(|p| !p.attached)
        {
            // SAFETY: plain kill.
            unsafe { libc::kill(main, forward) };
        }
    }

    /// Count one call shown toward `--syscall-limit`.
    fn limit_count(&mut self) {
        if let Some(left) = self.limit.as_mut() {
            *left = left.saturating_sub(1);
        }
    }

    /// Once `--syscall-limit` calls are shown, every process is let go,
    /// the started ones too, as strace does (they run on untraced).
    fn limit_reached(&mut self) {
        if self.limit != Some(0) || self.limit_hit {
            return;
        }
        self.limit_hit = true;
        if !self.quiet {
            self.out.flush();
            eprintln!("rtrace: system call limit reached, detaching from every process");
        }
        let pids: Vec<i32> = self
            .procs
            .values()
            .filter(|p| !p.detaching)
            .map(|p| p.pid)
            .collect();
        for pid in pids {
            self.start_detach(pid);
        }
    }

    /// The attached tasks not yet being let go.
    fn attached_tasks(&self) -> Vec<i32> {
        self.procs
            .values()
            .filter(|p| p.attached && !p.detaching)
            .map(|p| p.pid)
            .collect()
    }

    /// The second interrupt: the started processes die.
    fn kill_started(&self) {
        for p in self.procs.values().filter(|p| !p.attached) {
            // SAFETY: plain kill.
            unsafe { libc::kill(p.pid, libc::SIGKILL) };
        }
    }

    /// The trace output cannot be written: let go of every process that
    /// can run on untraced. Those under the seccomp filter cannot: with no
    /// tracer their selected calls fail with ENOSYS. They stay traced,
    /// unshown, until they end. Nor are started ones a second interrupt
    /// has killed (it may be what made a blocked write give up): they are
    /// seen to their end, as after any second interrupt.
    fn output_failed(&mut self) {
        self.output_lost = true;
        self.handle_interrupts();
        let killing = self.interrupts_seen >= 2;
        self.colocation_off();
        let mut newborns: Vec<Held> = Vec::new();
        let mut detach = Vec::new();
        for proc in self.procs.values_mut() {
            let killed = killing && !proc.attached;
            if !proc.seccomp && !killed {
                detach.push(proc.pid);
                continue;
            }
            proc.shown = false;
            if let Life::Newborn { ready } = &mut proc.life {
                // No parent line to wait for any more.
                *ready = true;
                newborns.extend(proc.first_stop.take());
            }
        }
        for pid in detach {
            self.start_detach(pid);
        }
        for held in newborns {
            self.dispatch(Waited::Stopped(held.release()));
        }
    }

    fn start_detach(&mut self, pid: i32) {
        if let Some(p) = self.procs.get_mut(&pid) {
            p.detaching = true;
            let _ = kernel::interrupt(Pid::from_raw(pid));
        }
    }

    /// Detach from every process, waiting for each to stop first. Used on
    /// fatal errors; processes we started keep running untraced.
    fn detach_all(&mut self) {
        let pids: Vec<i32> = self.procs.keys().copied().collect();
        for pid in pids {
            self.start_detach(pid);
        }
        while !self.procs.is_empty() {
            match self.next_status() {
                None => continue,
                Some(Ok(waited)) => self.dispatch(waited),
                Some(Err(_)) => break,
            }
        }
    }

    /// The next status to handle, fairly: `waitpid(-1)` always reports
    /// real children first and then the newest tracees, so a thread among
    /// busy ones could wait seconds for its turn. Once a wait returns,
    /// every status ready by then is collected, and all are handled in
    /// that order before the next wait. `None` when a signal interrupted
    /// the wait.
    fn next_status(&mut self) -> Option<std::io::Result<Waited>> {
        if let Some(ready) = self.pending.pop_front() {
            return Some(Ok(ready));
        }
        let first = match kernel::wait(-1)? {
            Ok(first) => first,
            Err(e) => return Some(Err(e)),
        };
        self.clock_stop(first.pid());
        // One tracee cannot be starved: spare it the extra wait. Nor can
        // several of which one makes all the stops (a shell waiting for
        // its command): a collection that finds nothing doubles the waits
        // that skip it, up to DRAIN_GAP_MAX, so a task left waiting is
        // collected within that many stops and collections resume at once.
        if self.procs.len() > 1 {
            if self.drain_skip > 0 {
                self.drain_skip -= 1;
            } else {
                while let Some(waited) = kernel::ready() {
                    self.clock_stop(waited.pid());
                    self.pending.push_back(waited);
                }
                self.drain_gap = if self.pending.is_empty() {
                    (self.drain_gap * 2).clamp(1, DRAIN_GAP_MAX)
                } else {
                    0
                };
                self.drain_skip = self.drain_gap;
            }
        }
        Some(Ok(first))
    }

    /// Wait for a status of `pid` alone, taking it from the collected
    /// ones first. `None` when a signal interrupted the wait.
    fn wait_for(&mut self, pid: i32) -> Option<std::io::Result<Waited>> {
        if let Some(i) = self.pending.iter().position(|w| w.pid() == pid) {
            return Some(Ok(self.pending.remove(i).expect("found")));
        }
        kernel::wait(pid)
    }

    fn dispatch(&mut self, waited: Waited) {
        let pid = waited.pid();
        self.stopped(pid);
        match waited {
            Waited::Ended { status, .. } => self.gone(pid, status),
            Waited::Stopped(stop) => {
                self.dispatch_stop(stop);
            }
            Waited::Other { .. } => {}
        }
    }

    fn dispatch_stop(&mut self, stop: Stop) -> Handled {
        let pid = stop.pid();
        let Some(proc) = self.procs.get(&pid) else {
            // A child announced before its parent's fork event: keep its
            // stop until the event says whose it is (or start it now if no
            // traced parent is in a call that could announce it).
            let (held, handled) = stop.hold();
            self.orphans.insert(pid, held);
            self.adopt_orphans();
            return handled;
        };
        let sig = stop.sig();
        let event = stop.event();
        if proc.detaching {
            if matches!(
                event,
                libc::PTRACE_EVENT_FORK | libc::PTRACE_EVENT_VFORK | libc::PTRACE_EVENT_CLONE
            ) {
                // The new child is already ours: let it go too.
                self.detach_unborn(pid);
            }
            let deliver = if event == 0 && sig != (libc::SIGTRAP | 0x80) {
                sig
            } else {
                0
            };
            return self.finish_detach(stop, deliver);
        }
        // A newborn's first stop goes to child_start even when it is not
        // shown (an output error may have hidden it meanwhile): only that
        // makes it Running, so that releasing it later does not wait for
        // a first stop that has already come.
        if !proc.shown && !matches!(proc.life, Life::Newborn { .. }) {
            return self.unshown_stop(stop);
        }
        match proc.life {
            Life::Newborn { ready: false } => {
                // Held until its parent has printed the call that made it.
                let (held, handled) = stop.hold();
                if let Some(proc) = self.procs.get_mut(&pid) {
                    proc.first_stop = Some(held);
                }
                return handled;
            }
            Life::Newborn { ready: true } => return self.child_start(stop),
            Life::Attaching if event == PTRACE_EVENT_STOP => {
                let name = proc.name.clone();
                if let Some(p) = self.procs.get_mut(&pid) {
                    p.life = Life::Running;
                }
                // Stopped at last: it may be pinned now (`colocate`).
                self.colocation_update();
                self.report(pid, Report::Tracing(name, None));
                return if is_stop_signal(sig) {
                    self.resume(stop, Resume::Listen)
                } else {
                    self.resume(stop, Resume::Syscall(0))
                };
            }
            _ => {}
        }
        if sig == libc::SIGTRAP | 0x80 {
            let sig = self.syscall_stop(pid, false);
            return self.resume_tracee(stop, sig);
        }
        match event {
            0 => self.signal_stop(stop),
            libc::PTRACE_EVENT_SECCOMP => {
                let sig = self.syscall_stop(pid, true);
                self.resume_tracee(stop, sig)
            }
            libc::PTRACE_EVENT_FORK | libc::PTRACE_EVENT_VFORK | libc::PTRACE_EVENT_CLONE => {
                self.fork_event(pid, event);
                self.resume_tracee(stop, 0)
            }
            libc::PTRACE_EVENT_EXEC => {
                // The kernel reports the exec under the pid the process
                // has now (a thread that execs takes the leader's): the
                // stop's.
                self.exec_event(pid);
                self.resume_tracee(stop, 0)
            }
            PTRACE_EVENT_STOP if is_stop_signal(sig) => {
                // Group-stop: stay stopped, but keep reporting (job control).
                self.resume(stop, Resume::Listen)
            }
            _ => self.resume_tracee(stop, 0),
        }
    }

    /// Resume a stop the way its task's state needs, delivering `sig`. A
    /// task no longer in the table (it left it while its stop was being
    /// handled) is not ours to resume: its stop is only held.
    fn resume_tracee(&mut self, stop: Stop, sig: i32) -> Handled {
        match self.procs.get(&stop.pid()) {
            Some(proc) => {
                let how = proc.resume_with(sig);
                self.resume(stop, how)
            }
            None => stop.hold().1,
        }
    }

    /// A stop of a process that is traced but not shown: only keep it
    /// running, as if untraced (signals delivered, job control kept).
    fn unshown_stop(&mut self, stop: Stop) -> Handled {
        let (pid, sig) = (stop.pid(), stop.sig());
        match stop.event() {
            event @ (libc::PTRACE_EVENT_FORK
            | libc::PTRACE_EVENT_VFORK
            | libc::PTRACE_EVENT_CLONE) => {
                // Its children inherit the filter too.
                self.fork_event(pid, event);
                self.resume(stop, Resume::Cont(0))
            }
            libc::PTRACE_EVENT_EXEC => {
                // Exec from a thread: the thread's old id is gone.
                if let Some(former) = kernel::event_msg(Pid::from_raw(pid))
                    && former != pid
                {
                    self.procs.remove(&former);
                }
                self.resume(stop, Resume::Cont(0))
            }
            PTRACE_EVENT_STOP if is_stop_signal(sig) => self.resume(stop, Resume::Listen),
            0 if sig != (libc::SIGTRAP | 0x80) => self.resume(stop, Resume::Cont(sig)),
            _ => self.resume(stop, Resume::Cont(0)),
        }
    }

    fn finish_detach(&mut self, stop: Stop, sig: i32) -> Handled {
        let pid = stop.pid();
        self.unpin(pid);
        let handled = self.resume(stop, Resume::Detach(sig));
        // The call it was in ends here for us: in JSON an object with no
        // result; a held-back line is shown if -e status= has `detached`.
        // (A live line is left open: the banner ends it with `<..>`.)
        let call = self.procs.get_mut(&pid).and_then(|p| {
            // A newborn's call is its parent's (for `fork() = 0`).
            let own = p.shown && !matches!(p.life, Life::Newborn { .. });
            p.call.take_if(|c| c.show != Show::Hidden && own)
        });
        if let Some(mut call) = call {
            if self.fmt.json {
                self.finish(pid, &mut call, 0, calls::End::Detached);
            } else if call.show == Show::Deferred {
                if self.select.status.detached && self.printing {
                    self.out.undefer(pid);
                } else {
                    self.out.discard(pid);
                }
            }
        }
        let started = self.procs.get(&pid).is_some_and(|p| !p.attached);
        // A process let go before its first stop was never announced
        // (`-p A -p BAD`): no "Process detached" without a "Tracing".
        let shown = self
            .procs
            .get(&pid)
            .is_some_and(|p| p.shown && p.life != Life::Attaching);
        if shown && self.out.error().is_none() {
            self.report(pid, Report::Detached);
        }
        self.remove(pid);
        if started && self.main_pid == Some(pid) && !self.limit_hit {
            self.main_exit = Some(Exit::Code(1));
        }
        handled
    }
}

/// A process event the engine reports.
enum Report {
    /// Tracing starts (started, attached or a new child); the process's
    /// name, which it chose, and its arguments when known better than
    /// from /proc (the started command, before its exec).
    Tracing(TraceeText, Option<Vec<TraceeText>>),
    /// A successful execve: the process runs a new program.
    Exec(TraceeText),
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
            Report::Exec(_) => "exec",
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

/// Whether a stop signal puts the tracee in a group-stop.
fn is_stop_signal(sig: i32) -> bool {
    matches!(
        sig,
        libc::SIGSTOP | libc::SIGTSTP | libc::SIGTTIN | libc::SIGTTOU
    )
}
