//! The BPF engine (`--bpf`): the same calls, handlers, output, filters,
//! statistics and diagnostics as the ptrace engine, from another source of
//! events. A BPF program at the kernel's raw_syscalls tracepoints (and at
//! fork, exec, exit and signal delivery) sends each traced task's calls,
//! with the memory their decoders read copied at the entry and the exit
//! (`plan.rs` says what), through a ring buffer; this loop reads the ring
//! and hands each record to the engine's own enter, leave, exec, exit and
//! signal paths, with the task's memory reader answering from the copy.
//!
//! The tracee never stops: it is slowed far less than under ptrace (its
//! calls cost two tracepoint programs and one or two records each;
//! HACKING.md has the measurements), and rtrace can watch the whole machine (`-a`). The price: rtrace cannot
//! change or hold the tracee (no `--same-cpu`, no seccomp fast path), what
//! was not copied is shown as a pointer, and a reader that falls behind
//! loses records, which are counted and shown where they were lost.

mod batch;
mod by_value;
mod exec_strings;
mod ioctl_plan;
mod load;
mod members;
mod offsets;
pub mod plan;
mod records;
mod ring;
mod typed_btf;
mod wire;

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use nix::unistd::Pid;

use super::signals::{FLUSH_DUE, INTERRUPTS, install_signal_handlers};
use super::{Config, Engine, Error, Exit, Life, Proc, Report, affinity};
use crate::call::CallClass;
use crate::escape::TraceeText;
use crate::fasthash::IntMap;
use crate::fdtable::FdTable;
use crate::kernel::{self, Arch, SIGINFO_SIZE};
use crate::output::{Output, Style};
use load::{Loaded, counts_in_kernel, load};
use wire::Record;

/// How long trace output may wait in rtrace's buffer while records keep
/// coming.
const FLUSH_EVERY: Duration = Duration::from_millis(30);

/// The ring buffer's default size: 16 MiB holds about 100,000 calls.
pub const DEFAULT_RING: usize = 16 << 20;

/// `-a`, `--bpf-ring`, `--bpf-lossless`: what only the BPF engine has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Trace every process on the machine.
    pub all: bool,
    /// The ring buffer's size in bytes (a power of two, whole pages).
    pub ring: usize,
    /// `--bpf-lossless`: stop a process that makes calls while half the
    /// ring waits, until rtrace has read it, rather than lose records.
    pub lossless: bool,
}

/// Trace with the BPF engine.
pub fn run(cfg: Config, out: Output) -> Result<Exit, Error> {
    let opts = cfg.bpf.unwrap_or(Options {
        all: false,
        ring: DEFAULT_RING,
        lossless: false,
    });
    if !opts.all && cfg.command.is_empty() && cfg.attach.is_empty() {
        return Err(Error::new("--bpf needs a command, -p PID or -a".into(), 2));
    }
    let colo = affinity::CoLocation::new(affinity::SameCpu::Never)?;
    let (mut engine, command, attach) = Engine::new(cfg, out, false, colo);
    engine.proc_is_current = false;
    let mut bpf = Bpf {
        engine,
        loaded: None,
        all: opts.all,
        lossless: opts.lossless,
        held: IntMap::default(),
        refetching: IntMap::default(),
        exec_between: IntMap::default(),
        execs: IntMap::default(),
        newborns: IntMap::default(),
        ignored_in_call: IntMap::default(),
        clock: Clock::new(),
        lost: 0,
        stopped: Vec::new(),
    };
    // The command is forked first, to wait for its release: before the
    // program's maps and rtrace's threads exist, its fork copies little
    // (the ring's 16 MiB mapping would be copied page by page) and it
    // runs beside the load.
    let forked = match command.is_empty() {
        true => None,
        false => Some(bpf.engine.fork_command(&command, None)?),
    };
    match load(&bpf.engine, opts) {
        Ok(loaded) => bpf.loaded = Some(loaded),
        Err(e) => {
            if let Some(forked) = forked {
                forked.abandon();
            }
            return Err(e);
        }
    }
    install_signal_handlers();
    if opts.all && !bpf.engine.fmt.json && bpf.engine.summary != super::Summary::Only {
        // Said once the programs are attached: from here on nothing is
        // missed.
        bpf.engine.out.raw("Tracing every process\n");
        bpf.engine.out.flush();
    }
    for pid in attach {
        if let Err(e) = bpf.attach(pid) {
            if let Some(forked) = forked {
                forked.abandon();
            }
            return Err(e);
        }
    }
    if let Some(forked) = forked {
        let pid = forked.pid;
        if let Err(e) = bpf.trace_task(pid, true) {
            forked.abandon();
            return Err(e);
        }
        bpf.engine.adopt_command(forked, false);
    }
    bpf.main_loop()?;
    bpf.report_unsent_losses();
    if counts_in_kernel(&bpf.engine) {
        bpf.collect_counts();
    }
    if bpf.lost > 0 {
        bpf.engine.stats.lost = bpf.lost;
    }
    bpf.engine.conclude()
}

/// The kernel's clock (CLOCK_MONOTONIC, bpf_ktime_get_ns) as Instants.
struct Clock {
    base: Instant,
    base_ns: u64,
}

impl Clock {
    fn new() -> Clock {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        let base = Instant::now();
        // SAFETY: clock_gettime writes the timespec.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
        Clock {
            base,
            base_ns: ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64,
        }
    }

    /// The Instant of kernel time `ns`.
    fn at(&self, ns: u64) -> Instant {
        if ns >= self.base_ns {
            self.base + Duration::from_nanos(ns - self.base_ns)
        } else {
            self.base
                .checked_sub(Duration::from_nanos(self.base_ns - ns))
                .unwrap_or(self.base)
        }
    }
}

struct Bpf {
    engine: Engine,
    loaded: Option<Loaded>,
    all: bool,
    /// `--bpf-lossless`: the program stops processes with SIGSTOP.
    lossless: bool,
    /// A new task's records, held until its parent's line that created it
    /// is printed (as the ptrace engine starts a child only then).
    held: IntMap<i32, VecDeque<Record>>,
    /// Entry records waiting for their exit's second copy, by task.
    refetching: IntMap<i32, Record>,
    /// The exec event of a task whose exec's entry is in `refetching`,
    /// held with it until the exit.
    exec_between: IntMap<i32, Record>,
    /// Each process's execs as far as its records have been read (the
    /// kernel's count its exec records carry; `u64::MAX`: not counted),
    /// by tgid: a miss in a call's memory is read from the live process
    /// only while the kernel's count is the same (`kernel::SameProgram`).
    execs: IntMap<i32, u64>,
    /// The tasks whose records are held, by the parent whose line they
    /// wait for.
    newborns: IntMap<i32, Vec<i32>>,
    /// SIGCHLDs a task ignores, sent while it waits for children: held
    /// until the wait's end says where each shows, after the wait or
    /// inside its line (`records.rs`, `leave`), by task.
    ignored_in_call: IntMap<i32, Vec<wire::Header>>,
    clock: Clock,
    /// Records the kernel dropped, in all.
    lost: u64,
    /// Processes the lossless mode stopped, continued once the ring is
    /// read.
    stopped: Vec<i32>,
}

impl Bpf {
    fn loaded(&mut self) -> &mut Loaded {
        self.loaded.as_mut().expect("loaded")
    }

    /// Put `tid` in the kernel's table of traced tasks; `starting`: it
    /// is a started command, not yet exec'd.
    fn trace_task(&mut self, tid: i32, starting: bool) -> Result<(), Error> {
        if let Some(members) = &self.loaded().members
            && !members.add(tid, starting)
        {
            return Err(Error::new(
                format!("--bpf: task {tid} is past the kernel's table of traced tasks"),
                1,
            ));
        }
        Ok(())
    }

    /// `-c` counted in the kernel: the counts into the summary.
    fn collect_counts(&mut self) {
        let mut rows = Vec::new();
        for index in 0..plan::SPECS {
            let Ok(per_cpu) = self.loaded().counts.get(&index, 0) else {
                continue;
            };
            let (mut calls, mut errors, mut ns) = (0, 0, 0);
            for c in per_cpu.iter() {
                calls += c.calls;
                errors += c.errors;
                ns += c.ns;
            }
            if calls > 0 {
                rows.push((index, calls, errors, ns));
            }
        }
        for (index, calls, errors, ns) in rows {
            let (arch, nr) = if index >= plan::I386_BASE {
                (Arch::I386, (index - plan::I386_BASE) as u64)
            } else {
                (Arch::X86_64, index as u64)
            };
            let (name, _) = crate::service::lookup(arch, nr);
            self.engine
                .stats
                .add(&name, calls, errors, Duration::from_nanos(ns));
        }
    }

    /// `-p PID`: trace each of its threads from now on.
    fn attach(&mut self, pid: i32) -> Result<(), Error> {
        let tids = super::spawn::tasks_of(pid)?;
        let fds = Rc::new(RefCell::new(FdTable::new(pid)));
        for tid in tids {
            self.trace_task(tid, false)?;
            let name = kernel::process_name(Pid::from_raw(tid))
                .unwrap_or_else(|| TraceeText::from("<unknown>"));
            let mut proc = Proc::new(tid, name.clone(), true, Life::Running, fds.clone());
            proc.tgid = pid;
            self.engine.procs.insert(tid, proc);
            if tid == pid {
                self.engine.report(tid, Report::Tracing(name, None));
            }
        }
        // Where it works now: its chdir calls are traced from here on.
        fds.borrow_mut().set_cwd(crate::fdtable::kernel_cwd(pid));
        self.engine.set_count();
        Ok(())
    }

    /// A task seen for the first time with `-a`: it joins the table, with
    /// its process's fd table.
    fn adopt(&mut self, tid: i32, tgid: i32) {
        if self.engine.procs.contains_key(&tid) {
            return;
        }
        let fds = self
            .engine
            .procs
            .values()
            .find(|p| p.tgid == tgid)
            .map(|p| p.fds.clone())
            .unwrap_or_else(|| Rc::new(RefCell::new(FdTable::new(tgid))));
        let name = kernel::process_name(Pid::from_raw(tid))
            .unwrap_or_else(|| TraceeText::from("<unknown>"));
        let mut proc = Proc::new(tid, name.clone(), true, Life::Running, fds);
        proc.tgid = tgid;
        self.engine.procs.insert(tid, proc);
        self.engine.set_count();
        self.engine.report(tid, Report::Tracing(name, None));
    }

    /// Read the ring until tracing is over; an error if the ring holds
    /// what the kernel cannot have written.
    fn main_loop(&mut self) -> Result<(), Error> {
        /// The most records handled before interrupts, the output's
        /// flush and the lossless mode's held processes are seen to.
        const BATCH: usize = 4096;
        let mut idle_since: Option<Instant> = None;
        let mut last_flush = Instant::now();
        loop {
            self.handle_interrupts();
            // Each record is handled in the ring's own memory (the ring is
            // out of `Loaded` meanwhile, as handling needs all of `self`),
            // and the batch's space given back at its end.
            let mut ring = self.loaded().ring.take().expect("the ring is in place");
            let taken = ring.drain(BATCH, |bytes| {
                let Some(record) = wire::parse(bytes) else {
                    return;
                };
                let head = record.head;
                if head.lost > 0 {
                    self.report_lost(Some(head.tid as i32), head.lost as u64, head.cpu);
                }
                self.dispatch(record);
            });
            self.loaded().ring = Some(ring);
            let taken = match taken {
                Ok(taken) => taken,
                Err(ring::Corrupt(len)) => {
                    // Nothing after it can be read: the processes held
                    // for rtrace go on, and what was read is written.
                    self.continue_stopped();
                    self.engine.out.flush();
                    return Err(Error::new(
                        format!(
                            "--bpf: the ring buffer holds a record of {len} bytes, \
                             which the kernel cannot have written; tracing stopped"
                        ),
                        1,
                    ));
                }
            };
            let got = taken > 0;
            let drained = taken < BATCH;
            if drained && !self.stopped.is_empty() {
                self.continue_stopped();
            }
            // Written when nothing more waits, and at least every 30 ms
            // while records keep coming (as the ptrace engine's timer).
            FLUSH_DUE.store(false, Ordering::Relaxed);
            if !got || last_flush.elapsed() >= FLUSH_EVERY {
                self.engine.out.flush();
                last_flush = Instant::now();
            }
            if self.done() {
                break;
            }
            if got {
                idle_since = None;
                continue;
            }
            let idle = *idle_since.get_or_insert_with(Instant::now);
            if idle.elapsed() > Duration::from_millis(100) {
                self.reap_vanished();
                idle_since = Some(Instant::now());
            }
            self.wait_for_records();
        }
        Ok(())
    }

    /// The ring is read: let the processes the lossless mode stopped go
    /// on. Each leaves the table first, so that it can be held again.
    fn continue_stopped(&mut self) {
        for tgid in std::mem::take(&mut self.stopped) {
            let _ = self.loaded().holding.remove(&(tgid as u32));
            // SAFETY: plain kill.
            unsafe { libc::kill(tgid, libc::SIGCONT) };
        }
    }

    /// Sleep until the ring has records or 10 ms pass (the program wakes
    /// the reader only once much waits, so a few records can sit until
    /// the timeout).
    fn wait_for_records(&mut self) {
        use std::os::fd::{AsFd, AsRawFd};
        let fd = self
            .loaded()
            .ring
            .as_ref()
            .expect("the ring is in place")
            .as_fd()
            .as_raw_fd();
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd.
        unsafe { libc::poll(&mut pfd, 1, 10) };
    }

    /// Whether tracing is over: every traced task has ended; with -a,
    /// interrupted, or the command it started has ended (as `perf trace
    /// -a CMD` ends with CMD: the machine traced for the command's time).
    fn done(&self) -> bool {
        if self.all {
            return self.engine.interrupts_seen > 0 || self.engine.main_exit.is_some();
        }
        self.engine.procs.is_empty()
    }

    /// Tasks whose exit record was lost (a full ring) are gone all the
    /// same: the started command's status comes from waitpid, the others
    /// end without a report.
    fn reap_vanished(&mut self) {
        if let Some(main) = self.engine.main_pid
            && self.engine.procs.contains_key(&main)
        {
            let mut status = 0;
            // SAFETY: waitpid writes status.
            let r = unsafe { libc::waitpid(main, &mut status, libc::WNOHANG | libc::__WALL) };
            if r == main {
                self.engine.gone(main, status);
            }
        }
        let vanished: Vec<i32> = self
            .engine
            .procs
            .keys()
            .copied()
            // A process that is a zombie, all its threads gone, after
            // the ring has been idle lost its exit record: under -D the
            // command is its caller's to reap, and would stay one while
            // rtrace waited for it. (A leader whose threads live on is a
            // zombie too, and not gone.)
            .filter(|&tid| {
                !std::path::Path::new(&format!("/proc/{tid}")).exists()
                    || (super::spawn::is_zombie(tid) && only_task(tid))
            })
            .collect();
        for tid in vanished {
            self.engine.remove(tid);
        }
    }

    /// The first interrupt stops tracing attached processes (and with -a
    /// ends the trace); a started command is left to finish, traced; the
    /// second kills it.
    fn handle_interrupts(&mut self) {
        let n = INTERRUPTS.load(Ordering::Relaxed);
        let engine = &mut self.engine;
        if n == engine.interrupts_seen {
            return;
        }
        if engine.interrupts_seen == 0 {
            engine.forward_interrupt();
            for tid in engine.attached_tasks() {
                if let Some(members) = self.loaded.as_ref().and_then(|l| l.members.as_ref()) {
                    members.remove(tid);
                }
                let engine = &mut self.engine;
                // A child whose creating call has not printed yet was
                // never announced: nothing of it is shown, its detach
                // neither (under -a a fork just before the interrupt).
                let announced = engine
                    .procs
                    .get(&tid)
                    .is_some_and(|p| !matches!(p.life, Life::Newborn { .. }));
                if announced {
                    engine.out.newline_for(Some(tid));
                    engine.report(tid, Report::Detached);
                }
                engine.remove(tid);
            }
        }
        let engine = &mut self.engine;
        if n >= 2 {
            engine.kill_started();
        }
        engine.interrupts_seen = n;
    }

    /// Losses a CPU counted but never reported, having sent nothing
    /// since (its count travels in its next record): read from the
    /// program's per-CPU counts once tracing is over.
    fn report_unsent_losses(&mut self) {
        let counts: Vec<u64> = self
            .loaded()
            .lost
            .get(&0, 0)
            .map(|v| v.iter().copied().collect())
            .unwrap_or_default();
        for (cpu, n) in counts.into_iter().enumerate() {
            if n > 0 {
                self.report_lost(None, n, cpu as u16);
            }
        }
    }

    fn report_lost(&mut self, tid: Option<i32>, n: u64, cpu: u16) {
        self.lost += n;
        let engine = &mut self.engine;
        if engine.summary == super::Summary::Only {
            return;
        }
        if engine.fmt.json {
            let obj = serde_json::json!({
                "schema": crate::call::JSON_SCHEMA,
                "type": "lost",
                "time": crate::call::json_time(&engine.out),
                "count": n,
                "cpu": cpu,
            });
            engine.out.json_line(&obj);
            return;
        }
        let text = format!("** {n} events lost (CPU {cpu}) **");
        engine.out.newline_for(tid);
        match tid {
            Some(tid) => {
                engine.out.text(Some(tid), &text, Style::Banner);
                engine.out.newline();
            }
            // After the trace: no task's line.
            None => engine.out.raw(&format!("{text}\n")),
        }
    }
}

/// Whether `tid`'s thread group has no task left but `tid` itself.
fn only_task(tid: i32) -> bool {
    std::fs::read_dir(format!("/proc/{tid}/task")).is_ok_and(|d| d.count() == 1)
}
