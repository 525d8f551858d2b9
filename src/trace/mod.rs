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
//! This file holds the engine's state (the process table, each task's
//! `Proc`) and [`run`]; what callers pass and get back is in
//! `config.rs`. The wait loop and what ends it (interrupts, the call
//! limit, detaching) are in `main_loop.rs`; where each stop goes in
//! `stops.rs`; the process events' banners and JSON in `report.rs`. The
//! events that add and remove tasks (children, exec, exit) are in
//! `tasks.rs`. A call's enter and leave are `calls.rs`, its diagnostics
//! `diags.rs`; a tracee's signals are `signal_stops.rs`, rtrace's own
//! signal handlers `signals.rs`.

mod affinity;
pub mod bpf;
mod calls;
mod config;
mod diags;
pub mod filtering;
mod inject;
mod main_loop;
mod own_seccomp;
pub mod paths;
mod pin_guard;
mod report;
mod seccomp;
mod signal_stops;
mod signals;
mod spawn;
pub mod stats;
mod stops;
mod tasks;
mod timeline;

use crate::fasthash::IntMap;
use signals::install_signal_handlers;
use std::collections::VecDeque;
use std::ffi::OsString;

use nix::unistd::Pid;

use crate::call::Call;
use crate::escape::TraceeText;
use crate::fdtable::SharedFdTable;
use crate::format::FormatConfig;
use crate::kernel::{self, Handled, Held, Memory, Resume, Stop, Waited};
use crate::output::{Output, Recording};
pub use affinity::SameCpu;
pub use config::{Config, Error, Exit, Launch, RunAs, SeccompMode, Selection, Summary};
use report::Report;
pub(crate) use report::signal_json;
pub use signals::record_inherited_signals;
use stats::{SortKey, Stats};

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
    /// The arguments it was started or exec'd with, where rtrace knows
    /// them from its own calls (the started command, an execve's copied
    /// argv, a parent's at fork): the BPF engine reads /proc only after the
    /// fact, when the process may have exec'd another program.
    argv: Option<Vec<TraceeText>>,
    attached: bool,
    life: Life,
    call: Option<Ongoing>,
    suspended: Vec<Suspended>,
    /// The next syscall-exit stop is execve's, after a successful exec.
    skip_exec_exit: bool,
    /// Print no `---`/banner for the first exec (the start banner said it).
    quiet_exec: bool,
    /// `-u` under the seccomp fast path: the started command's setreuid
    /// to the user's ids, made after rtrace's filter and before the exec,
    /// is still to come (rtrace's, not the command's).
    own_setreuid: bool,
    /// Let go by choice (`-b execve`), not for a failure: the started
    /// command let go so does not make rtrace's exit a failure.
    let_go: bool,
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
            argv: None,
            attached,
            life,
            call: None,
            suspended: Vec::new(),
            skip_exec_exit: false,
            quiet_exec: false,
            own_setreuid: false,
            let_go: false,
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
    /// `-E`, `-u`, `--argv0`: how the started command is started.
    launch: config::Launch,
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
    /// `-b execve`: a process that execs (but the started command's first
    /// exec) is let go, and runs on untraced.
    detach_on_exec: bool,
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
    // The option that lets processes go, if any. As strace: a filter stays
    // with a process let go, so the seccomp fast path's selected calls
    // would fail with ENOSYS, and the emulations' user-notification ones
    // once rtrace is gone.
    let lets_go = match (cfg.detach_on_exec, cfg.syscall_limit.is_some()) {
        (true, _) => Some("-b execve"),
        (false, true) => Some("--syscall-limit"),
        (false, false) => None,
    };
    let emulated = cfg.usbmon_replay.is_some() || cfg.user_events.is_some();
    let refused = lets_go.and_then(|other| {
        if cfg.seccomp == SeccompMode::On {
            Some(format!("--seccomp-bpf cannot be used with {other}: the processes let go would keep the filter"))
        } else if emulated {
            Some(format!(
                "{other} cannot be used with --usbmon-replay or --user-events-emulate: the processes let go would keep the emulation's filter"
            ))
        } else {
            None
        }
    });
    if let Some(error) = refused {
        return Err(Error::new(error, 2));
    }
    let seccomp = match cfg.seccomp {
        _ if lets_go.is_some() => false,
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
    // Under -D rtrace goes on as another process after the fork, which
    // the pin guard (watching the process that started it) would not
    // know: no co-location then.
    let same_cpu = match cfg.launch.daemonize {
        0 => cfg.same_cpu,
        _ => affinity::SameCpu::Never,
    };
    let colo = affinity::CoLocation::new(same_cpu)?;
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
    let daemonized = cfg.launch.daemonize > 0;
    let (mut engine, command, attach) = Engine::new(cfg, out, seccomp, colo);
    install_signal_handlers();
    // Under -D the process that attaches must be the tracer, which the
    // fork makes a grandchild: the command first (as strace does).
    if daemonized
        && !command.is_empty()
        && let Err(e) = engine.spawn(&command, filter.as_deref())
    {
        engine.detach_all();
        return Err(e);
    }
    for &pid in &attach {
        if let Err(e) = engine.attach(pid) {
            // Under -D the command runs already: as without -D, a failed
            // -p leaves nothing running that was started.
            if daemonized {
                engine.kill_started();
            }
            engine.detach_all();
            return Err(e);
        }
    }
    if !daemonized
        && !command.is_empty()
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
            launch: cfg.launch,
            user_events: cfg.user_events,
            quiet: cfg.quiet > 0,
            limit: cfg.syscall_limit,
            detach_on_exec: cfg.detach_on_exec,
            limit_hit: false,
            stack_trace: cfg.stack_trace,
            stacks,
        };
        (engine, cfg.command, cfg.attach)
    }

    /// The end of a trace: the summary, the last output, and how rtrace
    /// exits.
    fn conclude(mut self) -> Result<Exit, Error> {
        self.out.end_lines();
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
}
