//! The ptrace engine: start or attach, the wait loop, the process table and
//! its events.
//!
//! The engine turns wait statuses into events: syscall enter and leave
//! (handed to the call layer), signals, group-stops, fork/clone children,
//! exec, exit and detach. It owns the process table and each process's
//! bookkeeping (current call, calls waiting for a restart, fd table) and
//! tells the output layer how many processes are traced. Every stopped
//! tracee is resumed exactly once, with the signal it stopped for.

mod affinity;
mod calls;
pub mod filtering;
mod pin_guard;
mod seccomp;
mod spawn;
pub mod stats;

use crate::fasthash::IntMap;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::ffi::OsString;
use std::rc::Rc;
use std::sync::atomic::{AtomicI32, AtomicU32, Ordering};

use nix::unistd::Pid;

use crate::call::{Call, CallData, CallType, Show, call_replay};
use crate::escape::TraceeText;
use crate::fdtable::SharedFdTable;
use crate::format::FormatConfig;
use crate::kernel::{self, Memory};
use crate::output::{Output, Recording, Style};
use crate::select::{SignalSet, StatusSet, TraceSet};
use crate::service::signal::signal_name;
pub use affinity::SameCpu;
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

/// Count of SIGINT/SIGTERM/SIGHUP/SIGQUIT received, bumped by the signal
/// handler.
static INTERRUPTS: AtomicU32 = AtomicU32::new(0);

/// The first interrupt's signal, when someone sent it to rtrace alone (not
/// the terminal, whose ^C reaches the whole foreground group): the started
/// command is to get it too, as if rtrace were not there.
static TO_FORWARD: AtomicI32 = AtomicI32::new(0);

/// `si_code` of a signal the kernel sent (a terminal's ^C, ^\\, hangup).
const SI_KERNEL: i32 = 0x80;

/// Who sent the first interrupt sent by a process (its pid), and when
/// (CLOCK_MONOTONIC milliseconds).
static FIRST_SENDER: AtomicI32 = AtomicI32::new(0);
static FIRST_AT_MS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Milliseconds on CLOCK_MONOTONIC (async-signal-safe).
fn monotonic_ms() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes `ts`.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000
}

extern "C" fn on_interrupt(sig: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
    let (code, sender) = unsafe { ((*info).si_code, (*info).si_pid()) };
    let now = monotonic_ms();
    let seen = INTERRUPTS.load(Ordering::Relaxed);
    if code != SI_KERNEL {
        if seen == 0 {
            TO_FORWARD.store(sig, Ordering::Relaxed);
            FIRST_SENDER.store(sender, Ordering::Relaxed);
            FIRST_AT_MS.store(now, Ordering::Relaxed);
        } else if seen == 1
            && TO_FORWARD.load(Ordering::Relaxed) == sig
            && FIRST_SENDER.load(Ordering::Relaxed) == sender
            && now.saturating_sub(FIRST_AT_MS.load(Ordering::Relaxed)) < 100
        {
            // The same signal from the same sender within 100 ms: `timeout`
            // signals its child and then the child's process group, so
            // rtrace gets it twice. That is one request, not a second.
            return;
        }
    }
    INTERRUPTS.fetch_add(1, Ordering::Relaxed);
    // The main loop may have checked the counter just before blocking in
    // waitpid: a short timer's SIGALRM interrupts that wait.
    arm_alarm(20_000);
}

/// Set by SIGALRM: buffered output is due to be written, and the
/// automatic `--same-cpu` mode's tick has come.
static FLUSH_DUE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

extern "C" fn on_alarm(_sig: libc::c_int) {
    FLUSH_DUE.store(true, Ordering::Relaxed);
}

/// How long buffered output may wait before it is written: short enough
/// that a trace on a terminal keeps up with a person, long enough that a
/// busy tracee's lines go out in large writes.
const FLUSH_DELAY_US: i64 = 30_000;

/// Arm a one-shot SIGALRM in `usec` microseconds.
fn arm_alarm(usec: i64) {
    let timer = libc::itimerval {
        it_interval: libc::timeval {
            tv_sec: 0,
            tv_usec: 0,
        },
        it_value: libc::timeval {
            tv_sec: 0,
            tv_usec: usec,
        },
    };
    // SAFETY: setitimer only reads the struct.
    unsafe { libc::setitimer(libc::ITIMER_REAL, &timer, std::ptr::null_mut()) };
}

/// Where a process is in its life as a tracee.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Life {
    /// Started by us, before its first execve: its calls are ours, not shown.
    Starting,
    /// Attached with -p, waiting for the stop PTRACE_INTERRUPT asked for.
    Attaching,
    /// Auto-attached child waiting for its first stop and for its parent to
    /// finish printing the call that created it.
    Newborn { ready: bool, stashed: Option<i32> },
    /// Traced normally.
    Running,
}

/// A call set aside because it returned ERESTART* for a signal; the kernel
/// will restart it (same number, same ip/sp) or turn it into EINTR.
struct Suspended {
    call: Call,
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
    call: Option<Call>,
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
    /// The process runs under rtrace's seccomp filter: it stops only on
    /// selected calls, so it is resumed with PTRACE_CONT between calls.
    seccomp: bool,
    /// Printed. Without -f, a started command's children and threads are
    /// traced all the same when it runs under the fast path: they inherit
    /// the filter, and a selected call with no tracer fails with ENOSYS.
    /// Such a process is only resumed at each stop and never shown.
    shown: bool,
    /// `--same-cpu`: the task is pinned to rtrace's CPU, and this is the
    /// mask it would have without rtrace (see `affinity`).
    own_mask: Option<Vec<u8>>,
    /// Pinning it failed (another owner, a cpuset without the CPU).
    unpinnable: bool,
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
            seccomp: false,
            shown: true,
            own_mask: None,
            unpinnable: false,
            user_since: None,
            user_time: std::time::Duration::ZERO,
            computing: false,
        }
    }

    /// How to resume this process from a stop: between calls under the
    /// seccomp filter nothing needs to stop it; in a call its exit must, and
    /// while a call waits for its restart every call must (the handler's,
    /// rt_sigreturn, restart_syscall: the filter does not stop those).
    fn resume_request(&self) -> libc::c_uint {
        let in_call = self.call.is_some() || self.skip_exec_exit || !self.suspended.is_empty();
        if self.seccomp && !in_call && matches!(self.life, Life::Running | Life::Starting) {
            libc::PTRACE_CONT
        } else {
            libc::PTRACE_SYSCALL
        }
    }
}

const PTRACE_EVENT_STOP: i32 = 128;

struct Engine {
    out: Output,
    fmt: FormatConfig,
    follow: bool,
    /// `--kill-on-exit`: PTRACE_O_EXITKILL on the started command.
    kill_on_exit: bool,
    select: Selection,
    /// Selection by (arch, number), computed once per call number.
    selected: IntMap<(kernel::Arch, u64), bool>,
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
    /// fork event named them.
    orphans: IntMap<i32, i32>,
    main_pid: Option<i32>,
    main_exit: Option<Exit>,
    /// Started processes run under the seccomp fast path.
    seccomp: bool,
    /// ... whose filter does not stop ioctl (see `FdTable::ioctls_unseen`).
    ioctls_unseen: bool,
    interrupts_seen: u32,
    /// Statuses collected but not yet handled, oldest first (see
    /// `next_status`).
    pending: VecDeque<(i32, i32)>,
    /// The output failed: nothing is shown any more (see `output_failed`).
    output_lost: bool,
    /// `--same-cpu`.
    colo: affinity::CoLocation,
}

/// Trace according to `cfg`, printing to `out`; returns how rtrace should exit.
pub fn run(cfg: Config, out: Output) -> Result<Exit, Error> {
    let seccomp = match cfg.seccomp {
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
    // A pinned task's affinity calls are virtualised: they must stop.
    let extra = if colo.enabled() {
        affinity::VIRTUALISED
    } else {
        &[]
    };
    let filter = seccomp.then(|| seccomp::program(&cfg.select.trace, extra));
    let ioctls_unseen = seccomp && !cfg.select.trace.contains("ioctl");
    let mut engine = Engine {
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
        summary: cfg.summary,
        sort: cfg.sort,
        stats: Stats::default(),
        call_times: cfg.call_times,
        procs: IntMap::default(),
        orphans: IntMap::default(),
        main_pid: None,
        main_exit: None,
        seccomp,
        ioctls_unseen,
        interrupts_seen: 0,
        pending: VecDeque::new(),
        output_lost: false,
        colo,
    };
    install_signal_handlers();
    for &pid in &cfg.attach {
        if let Err(e) = engine.attach(pid) {
            engine.detach_all();
            return Err(e);
        }
    }
    if !cfg.command.is_empty()
        && let Err(e) = engine.spawn(&cfg.command, filter.as_deref())
    {
        engine.detach_all();
        return Err(e);
    }
    engine.main_loop();
    engine.out.newline();
    if engine.summary != Summary::Off {
        let table = if engine.fmt.json {
            format!("{}\n", engine.stats.summary_json(engine.sort))
        } else {
            engine.stats.summary(engine.sort)
        };
        engine.out.raw(&table);
    }
    engine.out.flush();
    if let Some(e) = engine.out.error() {
        return Err(Error::new(
            format!("cannot write trace output: {}", io_message(e)),
            1,
        ));
    }
    Ok(engine.main_exit.take().unwrap_or(Exit::Code(0)))
}

fn install_signal_handlers() {
    // SAFETY: the handler only touches an atomic; no SA_RESTART, so a blocking
    // waitpid returns EINTR and the loop sees the interrupt at once.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_interrupt as *const () as usize;
        sa.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&mut sa.sa_mask);
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT] {
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
        sa.sa_flags = 0;
        sa.sa_sigaction = on_alarm as *const () as usize;
        libc::sigaction(libc::SIGALRM, &sa, std::ptr::null_mut());
        // A broken output pipe is reported as a write error, not a signal.
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
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

/// waitpid(2) returning the raw status; `None` when interrupted.
fn wait(pid: i32, flags: libc::c_int) -> Option<Result<(i32, i32), std::io::Error>> {
    let mut status = 0;
    // SAFETY: waitpid writes only `status`.
    let r = unsafe { libc::waitpid(pid, &mut status, flags | libc::__WALL) };
    if r < 0 {
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::EINTR) {
            return None;
        }
        return Some(Err(e));
    }
    Some(Ok((r, status)))
}

impl Engine {
    fn set_count(&mut self) {
        let shown = self.procs.values().filter(|p| p.shown).count();
        self.out.set_proc_count(shown);
        self.colocation_update();
    }

    fn resume(&mut self, pid: i32, request: libc::c_uint, sig: i32) {
        self.resumed(pid, request);
        // ESRCH: the tracee died meanwhile; its exit status will tell.
        let _ = kernel::resume(Pid::from_raw(pid), request, sig);
    }

    /// Report a process event: a banner line, or a JSON object.
    fn report(&mut self, pid: i32, report: Report) {
        if self.summary == Summary::Only {
            // -c prints the summary and nothing else.
            return;
        }
        if self.fmt.json {
            let tgid = self.procs.get(&pid).map_or(pid, |p| p.tgid);
            let mut obj = serde_json::json!({
                "schema": crate::call::JSON_SCHEMA,
                "type": report.kind(),
                "time": crate::call::json_time(),
                "pid": tgid,
                "tid": pid,
            });
            let map = obj.as_object_mut().expect("an object");
            match &report {
                Report::Tracing(name) | Report::Exec(name) => {
                    map.insert("name".into(), name.json());
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
                self.banner(pid, &format!("Tracing {name} (pid {pid})"));
            }
            Report::Tracing(name) => self.banner(pid, &format!("Tracing {name} (pid {pid})")),
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
                Ok((pid, status)) => self.dispatch(pid, status),
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
            // processes; started ones are left to finish, shown. A signal
            // sent to rtrace alone (kill, timeout) goes on to the command
            // it started, as strace does, which usually ends it.
            let forward = TO_FORWARD.load(Ordering::Relaxed);
            if let Some(main) = self.main_pid.filter(|_| forward != 0)
                && self.procs.get(&main).is_some_and(|p| !p.attached)
            {
                // SAFETY: plain kill.
                unsafe { libc::kill(main, forward) };
            }
            let attached: Vec<i32> = self
                .procs
                .values()
                .filter(|p| p.attached && !p.detaching)
                .map(|p| p.pid)
                .collect();
            for pid in attached {
                self.start_detach(pid);
            }
        }
        if n >= 2 {
            for p in self.procs.values().filter(|p| !p.attached) {
                // SAFETY: plain kill.
                unsafe { libc::kill(p.pid, libc::SIGKILL) };
            }
        }
        self.interrupts_seen = n;
    }

    /// The trace output cannot be written: let go of every process that
    /// can run on untraced. Those under the seccomp filter cannot: with no
    /// tracer their selected calls fail with ENOSYS. They stay traced,
    /// unshown, until they end.
    fn output_failed(&mut self) {
        self.output_lost = true;
        self.colocation_off();
        let mut newborns = Vec::new();
        let mut detach = Vec::new();
        for proc in self.procs.values_mut() {
            if !proc.seccomp {
                detach.push(proc.pid);
                continue;
            }
            proc.shown = false;
            if let Life::Newborn { ready, stashed } = &mut proc.life {
                // No parent line to wait for any more.
                *ready = true;
                if let Some(status) = stashed.take() {
                    newborns.push((proc.pid, status));
                }
            }
        }
        for pid in detach {
            self.start_detach(pid);
        }
        for (pid, status) in newborns {
            self.dispatch(pid, status);
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
                Some(Ok((pid, status))) => self.dispatch(pid, status),
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
    fn next_status(&mut self) -> Option<std::io::Result<(i32, i32)>> {
        if let Some(ready) = self.pending.pop_front() {
            return Some(Ok(ready));
        }
        let first = match wait(-1, 0)? {
            Ok(first) => first,
            Err(e) => return Some(Err(e)),
        };
        self.clock_stop(first.0);
        // One tracee cannot be starved: spare it the extra wait.
        if self.procs.len() > 1 {
            while let Some(Ok((pid, status))) = wait(-1, libc::WNOHANG) {
                if pid == 0 {
                    break;
                }
                self.clock_stop(pid);
                self.pending.push_back((pid, status));
            }
        }
        Some(Ok(first))
    }

    /// Wait for a status of `pid` alone, taking it from the collected
    /// ones first. `None` when a signal interrupted the wait.
    fn wait_for(&mut self, pid: i32) -> Option<std::io::Result<i32>> {
        if let Some(i) = self.pending.iter().position(|&(p, _)| p == pid) {
            let (_, status) = self.pending.remove(i).expect("found");
            return Some(Ok(status));
        }
        wait(pid, 0).map(|r| r.map(|(_, status)| status))
    }

    fn dispatch(&mut self, pid: i32, status: i32) {
        self.stopped(pid);
        if libc::WIFEXITED(status) || libc::WIFSIGNALED(status) {
            self.gone(pid, status);
            return;
        }
        if !libc::WIFSTOPPED(status) {
            return;
        }
        let Some(proc) = self.procs.get(&pid) else {
            // A child announced before its parent's fork event: keep its
            // stop until the event says whose it is (or start it now if no
            // traced parent is in a call that could announce it).
            self.orphans.insert(pid, status);
            self.adopt_orphans();
            return;
        };
        let sig = libc::WSTOPSIG(status);
        let event = (status >> 16) & 0xff;
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
            self.finish_detach(pid, deliver);
            return;
        }
        // A newborn's first stop goes to child_start even when it is not
        // shown (an output error may have hidden it meanwhile): only that
        // makes it Running, so that releasing it later does not wait for
        // a first stop that has already come.
        if !proc.shown && !matches!(proc.life, Life::Newborn { .. }) {
            self.unshown_stop(pid, sig, event);
            return;
        }
        match proc.life {
            Life::Newborn { ready: false, .. } => {
                if let Some(Proc {
                    life: Life::Newborn { stashed, .. },
                    ..
                }) = self.procs.get_mut(&pid)
                {
                    *stashed = Some(status);
                }
                return;
            }
            Life::Newborn { ready: true, .. } => {
                self.child_start(pid, status);
                return;
            }
            Life::Attaching if event == PTRACE_EVENT_STOP => {
                let name = proc.name.clone();
                if let Some(p) = self.procs.get_mut(&pid) {
                    p.life = Life::Running;
                }
                self.report(pid, Report::Tracing(name));
                if is_stop_signal(sig) {
                    self.resume(pid, libc::PTRACE_LISTEN, 0);
                } else {
                    self.resume(pid, libc::PTRACE_SYSCALL, 0);
                }
                return;
            }
            _ => {}
        }
        if sig == libc::SIGTRAP | 0x80 {
            self.syscall_stop(pid, false);
            self.resume_tracee(pid, 0);
            return;
        }
        match event {
            0 => self.signal_stop(pid, sig),
            libc::PTRACE_EVENT_SECCOMP => {
                self.syscall_stop(pid, true);
                self.resume_tracee(pid, 0);
            }
            libc::PTRACE_EVENT_FORK | libc::PTRACE_EVENT_VFORK | libc::PTRACE_EVENT_CLONE => {
                self.fork_event(pid, event);
                self.resume_tracee(pid, 0);
            }
            libc::PTRACE_EVENT_EXEC => {
                let pid = self.exec_event(pid);
                self.resume_tracee(pid, 0);
            }
            PTRACE_EVENT_STOP if is_stop_signal(sig) => {
                // Group-stop: stay stopped, but keep reporting (job control).
                self.resume(pid, libc::PTRACE_LISTEN, 0);
            }
            _ => self.resume_tracee(pid, 0),
        }
    }

    /// Resume `pid` the way its state needs, delivering `sig`.
    fn resume_tracee(&mut self, pid: i32, sig: i32) {
        if let Some(proc) = self.procs.get(&pid) {
            let request = proc.resume_request();
            self.resume(pid, request, sig);
        }
    }

    /// A stop of a process that is traced but not shown: only keep it
    /// running, as if untraced (signals delivered, job control kept).
    fn unshown_stop(&mut self, pid: i32, sig: i32, event: i32) {
        match event {
            libc::PTRACE_EVENT_FORK | libc::PTRACE_EVENT_VFORK | libc::PTRACE_EVENT_CLONE => {
                // Its children inherit the filter too.
                self.fork_event(pid, event);
                self.resume(pid, libc::PTRACE_CONT, 0);
            }
            libc::PTRACE_EVENT_EXEC => {
                // Exec from a thread: the thread's old id is gone.
                if let Some(former) = kernel::event_msg(Pid::from_raw(pid))
                    && former != pid
                {
                    self.procs.remove(&former);
                }
                self.resume(pid, libc::PTRACE_CONT, 0);
            }
            PTRACE_EVENT_STOP if is_stop_signal(sig) => self.resume(pid, libc::PTRACE_LISTEN, 0),
            0 if sig != (libc::SIGTRAP | 0x80) => self.resume(pid, libc::PTRACE_CONT, sig),
            _ => self.resume(pid, libc::PTRACE_CONT, 0),
        }
    }

    fn finish_detach(&mut self, pid: i32, sig: i32) {
        self.unpin(pid);
        self.resume(pid, libc::PTRACE_DETACH, sig);
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
        if started && self.main_pid == Some(pid) {
            self.main_exit = Some(Exit::Code(1));
        }
    }

    fn remove(&mut self, pid: i32) {
        if let Some(p) = self.procs.remove(&pid) {
            self.out.forget(pid);
            for child in p.children {
                self.release_child(child);
            }
        }
        self.set_count();
        self.adopt_orphans();
    }

    /// Detach the child a detaching process's fork event announced, once
    /// its first stop is in (it stops before running any code of its own).
    fn detach_unborn(&mut self, parent: i32) {
        let Some(child) = kernel::event_msg(Pid::from_raw(parent)) else {
            return;
        };
        if self.procs.contains_key(&child) {
            return;
        }
        if self.orphans.remove(&child).is_none() {
            loop {
                match self.wait_for(child) {
                    None => continue,
                    Some(Ok(status)) if libc::WIFSTOPPED(status) => break,
                    // It is gone already: nothing to let go of.
                    _ => return,
                }
            }
        }
        // It was born with its parent's pin: give it the parent's own mask.
        if let Some(own) = self.procs.get(&parent).and_then(|p| p.own_mask.as_ref()) {
            let _ = kernel::set_affinity(child, own);
        }
        self.resume(child, libc::PTRACE_DETACH, 0);
    }

    /// Start the parked first stops of children whose parent can no longer
    /// announce them: a process killed inside fork() reports no fork event.
    fn adopt_orphans(&mut self) {
        let waiting: Vec<(i32, i32)> = self.orphans.iter().map(|(&p, &s)| (p, s)).collect();
        for (pid, status) in waiting {
            let (ppid, tgid) = parent_ids(pid);
            let announcer_left = |p: Option<i32>| {
                p.is_none_or(|p| {
                    p == pid
                        || self
                            .procs
                            .get(&p)
                            .is_none_or(|proc| proc.call.is_none() && proc.suspended.is_empty())
                })
            };
            if !announcer_left(ppid) || (tgid != Some(pid) && !announcer_left(tgid)) {
                continue;
            }
            self.orphans.remove(&pid);
            let name = kernel::process_name(Pid::from_raw(pid))
                .unwrap_or_else(|| TraceeText::from("<unknown>"));
            let mut table = crate::fdtable::FdTable::new(pid);
            table.proc_only = self.seccomp;
            table.ioctls_unseen = self.ioctls_unseen;
            let mut proc = Proc::new(
                pid,
                name,
                false,
                Life::Newborn {
                    ready: true,
                    stashed: None,
                },
                Rc::new(RefCell::new(table)),
            );
            proc.seccomp = self.seccomp;
            proc.tgid = tgid.unwrap_or(pid);
            proc.shown = self.follow && !self.output_lost;
            // Born with its creator's pin (a thread's creator is a thread
            // of its group; the leader stands for it).
            let creator = if tgid != Some(pid) { tgid } else { ppid };
            proc.own_mask = creator
                .and_then(|c| self.procs.get(&c))
                .and_then(|c| c.own_mask.clone());
            self.procs.insert(pid, proc);
            self.set_count();
            self.child_start(pid, status);
        }
    }

    fn fork_event(&mut self, pid: i32, event: i32) {
        let Some(child) = kernel::event_msg(Pid::from_raw(pid)) else {
            return;
        };
        if self.procs.contains_key(&child) {
            // Its first stop came first and it was started already.
            return;
        }
        let Some(parent) = self.procs.get_mut(&pid) else {
            return;
        };
        let flags = match parent.call.as_ref() {
            Some(c) => clone_flags(c, &mut parent.mem),
            // The clone itself did not stop (fast path): ask procfs. (Not
            // the event: clone(CLONE_THREAD|SIGCHLD) reports a fork event.)
            None if kernel::is_thread_of(parent.tgid, child) => {
                (libc::CLONE_THREAD | libc::CLONE_FILES) as u64
            }
            None => 0,
        };
        let fds = if flags & libc::CLONE_FILES as u64 != 0 {
            parent.fds.clone()
        } else {
            let mut copy = parent.fds.borrow().clone();
            copy.pid = child;
            Rc::new(RefCell::new(copy))
        };
        let mut call = parent.call.clone();
        if let Some(c) = call.as_mut() {
            c.data = CallData::None;
        }
        let vfork = event == libc::PTRACE_EVENT_VFORK;
        let shown = parent.shown && self.follow;
        // The child waits for its parent's fork line, if the parent's call
        // is traced at all (under the fast path it may not stop).
        let wait_for_parent = shown && !vfork && parent.call.is_some();
        if wait_for_parent {
            parent.children.push(child);
        }
        let name = parent.name.clone();
        let seccomp = parent.seccomp;
        // A child starts with its parent's mask: rtrace's pin, if the
        // parent is pinned, and then the parent's own mask is its own.
        let own_mask = parent.own_mask.clone();
        let tgid = if flags & libc::CLONE_THREAD as u64 != 0 {
            parent.tgid
        } else {
            child
        };
        let mut proc = Proc::new(
            child,
            name,
            parent.attached,
            Life::Newborn {
                ready: !wait_for_parent,
                stashed: self.orphans.remove(&child),
            },
            fds,
        );
        proc.call = call.filter(|_| shown);
        proc.seccomp = seccomp;
        proc.tgid = tgid;
        proc.shown = shown;
        proc.own_mask = own_mask;
        if shown {
            self.out.record_copy(pid, child);
        }
        self.procs.insert(child, proc);
        self.set_count();
        if !wait_for_parent {
            // A vfork parent sleeps until the child execs or exits, and an
            // untraced fork prints no line to wait for: start the child now.
            self.release_child(child);
        }
    }

    /// The parent has printed the call that created `child`: it may start.
    fn release_child(&mut self, child: i32) {
        let Some(proc) = self.procs.get_mut(&child) else {
            return;
        };
        let Life::Newborn { ready, stashed } = &mut proc.life else {
            return;
        };
        *ready = true;
        let status = match stashed.take() {
            Some(status) => status,
            None => {
                // The child stops before running any of its own code, so its
                // first stop is imminent: take it now, which keeps its banner
                // right after the parent's call in the trace.
                loop {
                    match self.wait_for(child) {
                        None => continue,
                        Some(Ok(status)) => break status,
                        Some(Err(_)) => return,
                    }
                }
            }
        };
        if libc::WIFSTOPPED(status) {
            self.child_start(child, status);
        } else {
            self.gone(child, status);
        }
    }

    /// A new child's first stop: banner, its half of the parent's call
    /// (`fork() = 0`), then it runs.
    fn child_start(&mut self, pid: i32, status: i32) {
        let Some(proc) = self.procs.get_mut(&pid) else {
            return;
        };
        proc.life = Life::Running;
        let sig = libc::WSTOPSIG(status);
        let event = (status >> 16) & 0xff;
        // An ordinary signal that arrived before the first stop.
        let signal = event == 0 && sig != libc::SIGSTOP && sig != (libc::SIGTRAP | 0x80);
        if !proc.shown {
            self.resume(pid, libc::PTRACE_CONT, if signal { sig } else { 0 });
            return;
        }
        if let Some(name) = kernel::process_name(Pid::from_raw(pid)) {
            proc.name = name;
        }
        let name = proc.name.clone();
        let call = proc.call.take();
        self.report(pid, Report::Tracing(name));
        if self.fmt.json {
            // The child's half of the call, `fork() = 0`, as an object.
            if let Some(mut call) = call.filter(|c| c.show != Show::Hidden) {
                let proc = self.procs.get_mut(&pid).expect("present");
                let fds = proc.fds.borrow();
                crate::call::call_leave(
                    crate::call::Stopped {
                        out: &mut self.out,
                        cfg: &self.fmt,
                        mem: &mut proc.mem,
                        pid,
                        tgid: proc.tgid,
                        fds: &fds,
                    },
                    &mut call,
                    0,
                    false,
                    true,
                    None,
                );
            }
        } else if let Some(call) = call.filter(|c| c.show == Show::Live) {
            call_replay(&mut self.out, pid, &call, false);
            let text = if call.kind == CallType::NotDone {
                "..) = 0"
            } else {
                "0"
            };
            self.out.text(Some(pid), text, Style::Plain);
            self.out.record_clear(pid);
            self.out.newline();
        }
        if signal {
            // An ordinary signal arrived first: report and deliver it.
            self.signal_stop(pid, sig);
        } else {
            self.resume_tracee(pid, 0);
        }
    }

    /// A successful execve. Returns the pid the process has now (a thread
    /// that execs takes over the leader's pid).
    fn exec_event(&mut self, pid: i32) -> i32 {
        let former = kernel::event_msg(Pid::from_raw(pid)).unwrap_or(pid);
        if former != pid && self.procs.contains_key(&former) {
            // The old leader is gone without an exit report; the execing
            // thread carries on under the leader's pid, shown as the leader
            // was (without -f a thread under the filter is not shown).
            let leader_shown = self.procs.get(&pid).map(|p| p.shown);
            if leader_shown.is_some() {
                self.out.newline();
                self.remove(pid);
            }
            let mut proc = self.procs.remove(&former).expect("checked");
            if let Some(shown) = leader_shown {
                proc.shown = shown;
            }
            let record = self.out.take_record(former);
            self.out.forget(former);
            self.out.restore_record(pid, record);
            proc.pid = pid;
            proc.tgid = pid;
            proc.mem = Memory::new(Pid::from_raw(pid));
            self.procs.insert(pid, proc);
            self.set_count();
            if self.out.line_is(former) {
                self.out.newline();
            }
        }
        let Some(proc) = self.procs.get_mut(&pid) else {
            return pid;
        };
        proc.life = Life::Running;
        if let Some(name) = kernel::process_name(Pid::from_raw(pid)) {
            proc.name = name;
        }
        // Exec gives the process its own fd table minus close-on-exec fds.
        let mut table = proc.fds.borrow().clone();
        table.pid = pid;
        table.exec();
        proc.fds = Rc::new(RefCell::new(table));
        proc.suspended.clear();
        proc.mem = Memory::new(Pid::from_raw(pid));
        // execve's exit stop follows the exec event, unless the process is
        // resumed with PTRACE_CONT (under the fast path), which reports none.
        proc.skip_exec_exit = !proc.seccomp;
        let quiet = std::mem::take(&mut proc.quiet_exec);
        let name = proc.name.clone();
        if let Some(mut call) = proc.call.take() {
            self.finish(pid, &mut call, 0, calls::End::Exec);
        }
        if quiet {
            return pid;
        }
        self.report(pid, Report::Exec(name));
        pid
    }

    fn gone(&mut self, pid: i32, status: i32) {
        if self.orphans.remove(&pid).is_some() || !self.procs.contains_key(&pid) {
            return;
        }
        // A child that dies before its first stop was never announced (as
        // trace(1), do not report it), and the call it holds is its
        // parent's, kept for the `fork() = 0` half.
        if !self.procs[&pid].shown || matches!(self.procs[&pid].life, Life::Newborn { .. }) {
            self.remove(pid);
            return;
        }
        let proc = self.procs.get_mut(&pid).expect("checked");
        let unfinished = self.select.status.unfinished && self.printing;
        if let Some(mut call) = proc.call.take() {
            let exits = matches!(&*call.name, "exit" | "exit_group");
            if libc::WIFEXITED(status) && (call.kind == CallType::NoReturn || exits) {
                // exit(): no leave event comes; show the call as finished.
                self.finish(pid, &mut call, 0, calls::End::Exit);
            } else if self.fmt.json {
                self.finish(pid, &mut call, 0, calls::End::Killed);
            } else if call.show == Show::Deferred {
                // Killed inside a held-back call: it never finished.
                if unfinished {
                    self.out.undefer(pid);
                } else {
                    self.out.discard(pid);
                }
            }
        }
        let report = if libc::WIFEXITED(status) {
            Report::Exited(libc::WEXITSTATUS(status))
        } else {
            Report::Killed(libc::WTERMSIG(status))
        };
        self.report(pid, report);
        self.remove(pid);
        if self.main_pid == Some(pid) {
            self.main_exit = Some(if libc::WIFEXITED(status) {
                Exit::Code(libc::WEXITSTATUS(status))
            } else {
                Exit::Signal(libc::WTERMSIG(status))
            });
        }
    }
}

/// A process event the engine reports.
enum Report {
    /// Tracing starts (started, attached or a new child); the process's
    /// name, which it chose.
    Tracing(TraceeText),
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
            Report::Tracing(_) => "start",
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

/// A task's parent pid and thread group id, from /proc/PID/status.
fn parent_ids(pid: i32) -> (Option<i32>, Option<i32>) {
    // Bytes: its Name line is the task's own choice and need not be UTF-8.
    let Ok(status) = std::fs::read(format!("/proc/{pid}/status")) else {
        return (None, None);
    };
    let status = String::from_utf8_lossy(&status);
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
    };
    (field("PPid:"), field("Tgid:"))
}

/// Whether a stop signal puts the tracee in a group-stop.
fn is_stop_signal(sig: i32) -> bool {
    matches!(
        sig,
        libc::SIGSTOP | libc::SIGTSTP | libc::SIGTTIN | libc::SIGTTOU
    )
}

/// The clone flags of a fork-class call, to know whether the fd table is
/// shared; clone3's are the first field of its `struct clone_args`.
fn clone_flags(call: &Call, mem: &mut Memory) -> u64 {
    match &*call.name {
        "clone" => call.args[0],
        "clone3" => {
            let mut raw = [0u8; 8];
            if mem.read_exact(call.args[0], &mut raw) {
                u64::from_ne_bytes(raw)
            } else {
                0
            }
        }
        _ => 0,
    }
}
