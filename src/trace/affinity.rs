//! `--same-cpu`: the tracer and its tracees on one CPU.
//!
//! Every ptrace stop wakes the tracer and every resume wakes the tracee.
//! On two CPUs each of those is a cross-CPU wakeup, and an idle CPU has to
//! leave its sleep state for it; on one CPU it is a context switch. Traced
//! code that makes many calls runs several times faster that way.
//!
//! This module owns the chosen CPU, rtrace's own mask, and which tracees
//! are pinned: `Proc::own_mask` holds, for a pinned task, the mask it would
//! have without rtrace. It gives every task its own mask back when the
//! task leaves the trace (detach), when co-location ends (an output
//! error) and, in the automatic mode, while the task computes alongside
//! another (see [`SameCpu::Auto`]).
//!
//! A pinned task must never see the pin. The calls that would show it or
//! hand it on ([`VIRTUALISED`]: sched_getaffinity, sched_setaffinity and
//! the calls that create tasks) are made on the task's own mask: it is
//! given that mask at the call's entry and pinned again at its leave, with
//! the mask the kernel then holds as its own. So the kernel itself answers
//! them as it would untraced, a mask set is the task's own, and a new task
//! is born with its creator's real mask, never with the pin: its own mask
//! is read from the kernel when it is pinned, and the pin guard never has
//! a task it was not told of to find.

use super::pin_guard::PinGuard;
use super::{Engine, Error, Life};
use crate::call::CallClass;
use crate::kernel;
use std::time::{Duration, Instant};

/// When to run the tracer and its tracees on one CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SameCpu {
    /// Never: every task keeps its own mask.
    Never,
    /// Every task on one CPU but those that compute: while two or more
    /// tasks are traced, a task that spent most of the last tick
    /// ([`TICK_US`]) running its own code, and is not asleep, gets its own
    /// mask back, so a parallel program keeps its parallelism; it is
    /// pinned again once it mostly makes calls or sleeps, or is the only
    /// task left. Tasks that stop often (and a shell waiting for its
    /// commands) gain most from one CPU, and a task that computes gains
    /// nothing from it.
    Auto,
    /// Always: every task on one CPU, the one given or else the one the
    /// command (rtrace) or the first attached process is on.
    Always(Option<usize>),
}

/// The calls a pinned task makes on its own mask, so that it never sees
/// or hands on the pin: they must stop (they are added to the seccomp
/// fast path's filter).
pub const VIRTUALISED: &[&str] = &[
    "sched_getaffinity",
    "sched_setaffinity",
    "clone",
    "clone3",
    "fork",
    "vfork",
];

/// Whether a call of `class` named `name` is one of [`VIRTUALISED`].
pub(super) fn on_own_mask(class: CallClass, name: &str) -> bool {
    class == CallClass::Fork || matches!(name, "sched_getaffinity" | "sched_setaffinity")
}

/// The engine's co-location state.
pub(super) struct CoLocation {
    mode: SameCpu,
    /// The CPU, once chosen.
    cpu: Option<usize>,
    /// rtrace's own mask while rtrace itself is pinned.
    pub(super) tracer_own: Option<Vec<u8>>,
    /// Tracees are being pinned (a pinned task exists only while this is
    /// set).
    pub(super) active: bool,
    /// The automatic mode with two or more tasks traced: when the current
    /// tick began. Tasks' time in their own code is measured only then.
    tick_start: Option<Instant>,
    /// Ticks need the timer: some task is pinned and might compute
    /// without ever stopping. With none pinned, a task that no longer
    /// computes stops, and its stops tick instead.
    timer: bool,
    /// A tick has come since ticks began.
    ticked: bool,
    /// The process that gives masks back if rtrace dies without doing it,
    /// started before the first tracee whenever pinning may happen;
    /// `Some(None)` when it could not be, and then nothing is pinned.
    guard: Option<Option<PinGuard>>,
}

/// How often, in microseconds, the automatic mode looks for tasks that
/// compute: short against a parallel program's run, long against the
/// stops of a task that makes calls.
pub(super) const TICK_US: i64 = 10_000;

/// The first tick once a second task appears comes sooner: two processes
/// that compute share one CPU only that long. A window this short is the
/// least any tick judges by.
const FIRST_TICK_US: i64 = 2_000;

/// A mask of `len` bytes (at least enough for `cpu`) with only `cpu` set.
fn single(cpu: usize, len: usize) -> Vec<u8> {
    let len = len.max((cpu / 64 + 1) * 8);
    let mut mask = vec![0u8; len];
    mask[cpu / 8] |= 1 << (cpu % 8);
    mask
}

/// `mask` without `cpu`, if that leaves any CPU.
fn without(mask: &[u8], cpu: usize) -> Option<Vec<u8>> {
    let mut rest = mask.to_vec();
    if let Some(byte) = rest.get_mut(cpu / 8) {
        *byte &= !(1 << (cpu % 8));
    }
    rest.iter().any(|&b| b != 0).then_some(rest)
}

fn has_cpu(mask: &[u8], cpu: usize) -> bool {
    mask.get(cpu / 8).is_some_and(|b| b & (1 << (cpu % 8)) != 0)
}

/// A mask as a CPU list, `0-3,6`, as /proc/PID/status shows it.
fn cpu_list(mask: &[u8]) -> String {
    let cpus: Vec<usize> = (0..mask.len() * 8).filter(|&c| has_cpu(mask, c)).collect();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

impl CoLocation {
    /// Co-location in `mode`; an error when the CPU asked for is not one
    /// rtrace may run on.
    pub(super) fn new(mode: SameCpu) -> Result<CoLocation, Error> {
        if let SameCpu::Always(Some(cpu)) = mode {
            let allowed = kernel::get_affinity(0).map_err(|e| {
                Error::new(format!("--same-cpu: cannot read rtrace's CPU mask: {e}"), 1)
            })?;
            if !has_cpu(&allowed, cpu) {
                return Err(Error::new(
                    format!(
                        "--same-cpu={cpu}: no such CPU for rtrace (it may run on {})",
                        cpu_list(&allowed)
                    ),
                    2,
                ));
            }
        }
        // The guard is started now, before any tracee exists, though it
        // may never be needed: its two forks then take pids before the
        // traced program's, as strace's start-up probes do, never between
        // the program's own forks, whose pids it can see.
        let guard = (mode != SameCpu::Never).then(PinGuard::start);
        Ok(CoLocation {
            mode,
            cpu: None,
            tracer_own: None,
            active: false,
            tick_start: None,
            timer: false,
            ticked: false,
            guard,
        })
    }

    /// Whether tracees may be pinned at all (the filter must then stop the
    /// affinity calls).
    pub(super) fn enabled(&self) -> bool {
        self.mode != SameCpu::Never
    }
}

impl Engine {
    /// The set of traced tasks, or of those that compute, changed:
    /// co-locate or spread as the mode says. Costs no system call unless
    /// that changes where a task may run.
    pub(super) fn colocation_update(&mut self) {
        let watch = self.colo.mode == SameCpu::Auto && self.procs.len() >= 2;
        if watch && self.colo.tick_start.is_none() {
            let now = Instant::now();
            self.colo.tick_start = Some(now);
            self.colo.ticked = false;
            for proc in self.procs.values_mut() {
                // Those stopped now start their clocks when resumed.
                proc.user_since = proc.call.is_none().then_some(now);
            }
        } else if !watch && self.colo.tick_start.is_some() {
            self.colo.tick_start = None;
            for proc in self.procs.values_mut() {
                proc.user_since = None;
                proc.user_time = Duration::ZERO;
                proc.computing = false;
            }
        }
        if self.colo.mode != SameCpu::Never && !self.procs.is_empty() {
            self.colocate();
        } else if self.colo.active {
            self.spread();
        }
        self.colo.timer =
            self.colo.tick_start.is_some() && self.procs.values().any(|p| p.own_mask.is_some());
        self.guard_update();
    }

    /// Tell the pin guard the pin and the pinned tasks (not those on their
    /// own masks for a call) with their own masks; whether it has been
    /// sent all of it, which a pin needs (false without a guard).
    fn guard_update(&mut self) -> bool {
        let Some(Some(guard)) = self.colo.guard.as_mut() else {
            return false;
        };
        let told = guard.update(
            self.colo.cpu,
            self.procs
                .values()
                .filter(|p| p.held == 0)
                .filter_map(|p| Some((p.pid, p.own_mask.as_deref()?))),
        );
        if guard.gone() {
            // Nobody would give the masks back if rtrace were killed: give
            // them back now, and pin nothing more.
            self.colo.guard = Some(None);
            self.spread();
            return false;
        }
        told
    }

    /// When the automatic mode needs the timer to call
    /// `colocation_tick`: in [`FIRST_TICK_US`] microseconds for the first
    /// tick, then every [`TICK_US`]; `None` when it does not.
    pub(super) fn tick_delay_us(&self) -> Option<i64> {
        if !self.colo.timer {
            return None;
        }
        Some(if self.colo.ticked {
            TICK_US
        } else {
            FIRST_TICK_US
        })
    }

    /// Task `pid` is resumed as `how` says: outside a call it runs its own
    /// code from now on (or waits for a CPU to run it).
    pub(super) fn resumed(&mut self, pid: i32, how: kernel::Resume) {
        if self.colo.tick_start.is_none() {
            return;
        }
        if let Some(proc) = self.procs.get_mut(&pid) {
            let runs = proc.call.is_none() && how.runs();
            proc.user_since = runs.then(Instant::now);
        }
    }

    /// Task `pid` has stopped (its status is collected): add the time it
    /// ran its own code since resumed. Time it then waits for rtrace to
    /// look at it is not its own.
    pub(super) fn clock_stop(&mut self, pid: i32) {
        if self.colo.tick_start.is_none() {
            return;
        }
        if let Some(proc) = self.procs.get_mut(&pid)
            && let Some(since) = proc.user_since.take()
        {
            proc.user_time += since.elapsed();
        }
    }

    /// rtrace handles a stop of task `pid`: tick here when the timer does
    /// not.
    pub(super) fn stopped(&mut self, pid: i32) {
        let Some(start) = self.colo.tick_start else {
            return;
        };
        self.clock_stop(pid);
        if !self.colo.timer && start.elapsed() >= Duration::from_micros(TICK_US as u64) {
            self.colocation_tick();
        }
    }

    /// The timer ticked: a task computes if it ran its own code for three
    /// quarters of the tick and is not asleep now (under the seccomp filter
    /// a task between stops may as well be asleep in a call not stopped
    /// for); then co-locate all but those.
    pub(super) fn colocation_tick(&mut self) {
        let Some(start) = self.colo.tick_start else {
            return;
        };
        let now = Instant::now();
        let tick = now - start;
        if tick < Duration::from_micros(FIRST_TICK_US as u64) {
            // Another alarm (a flush, an interrupt): too short to judge.
            return;
        }
        self.colo.tick_start = Some(now);
        self.colo.ticked = true;
        for proc in self.procs.values_mut() {
            let mut user = std::mem::take(&mut proc.user_time);
            if let Some(since) = proc.user_since {
                user += now - since;
                proc.user_since = Some(now);
            }
            proc.computing = user * 4 >= tick * 3 && kernel::is_awake(proc.pid);
        }
        self.colocation_update();
    }

    /// Stop co-locating for good (the trace output is lost: nothing is
    /// shown any more, so every task gets its own mask back).
    pub(super) fn colocation_off(&mut self) {
        self.colo.mode = SameCpu::Never;
        self.spread();
    }

    /// The CPU to co-locate on: the one asked for, or the one the command
    /// (rtrace, whose child has not run yet) or the first attached process
    /// last ran on, if rtrace may run there.
    fn colocation_cpu(&mut self) -> Option<usize> {
        if let Some(cpu) = self.colo.cpu {
            return Some(cpu);
        }
        let cpu = match self.colo.mode {
            SameCpu::Always(Some(cpu)) => Some(cpu),
            _ => {
                let first = self
                    .procs
                    .values()
                    .filter(|p| p.attached)
                    .map(|p| p.tgid)
                    .min();
                let allowed = kernel::get_affinity(0).unwrap_or_default();
                first
                    .filter(|_| self.main_pid.is_none())
                    .and_then(kernel::last_cpu)
                    .filter(|&cpu| has_cpu(&allowed, cpu))
                    .or_else(kernel::current_cpu)
            }
        };
        self.colo.cpu = cpu;
        cpu
    }

    /// Pin rtrace and every task not pinned yet to the CPU, but for those
    /// that compute (the automatic mode), which get their own masks.
    fn colocate(&mut self) {
        if matches!(self.colo.guard, Some(None)) {
            // The guard could not be started, or is gone.
            return;
        }
        let Some(cpu) = self.colocation_cpu() else {
            return;
        };
        if self.colo.tracer_own.is_none()
            && let Ok(own) = kernel::get_affinity(0)
            && kernel::set_affinity(0, &single(cpu, own.len())).is_ok()
        {
            // The guard, forked before any tracee, goes to the pin CPU
            // too, before any task is pinned there: woken by rtrace's end
            // it must run before the pinned tasks, which it does as a
            // real-time task on their CPU (pin_guard.rs).
            if let Some(Some(guard)) = &self.colo.guard {
                guard.move_to(&single(cpu, own.len()));
            }
            self.colo.tracer_own = Some(own);
        }
        if self.colo.tracer_own.is_none() {
            // rtrace may not pin itself (a seccomp policy, a cpuset
            // without the CPU): tracees pinned without it gain nothing.
            return;
        }
        if self.colo.guard.is_none() {
            self.colo.guard = Some(PinGuard::start());
        }
        if matches!(self.colo.guard, Some(None)) {
            // No guard: a pin could outlive a killed rtrace. rtrace alone
            // on one CPU gains nothing either.
            if let Some(own) = self.colo.tracer_own.take() {
                let _ = kernel::set_affinity(0, &own);
            }
            return;
        }
        self.colo.active = true;
        // Tasks that compute leave the CPU they shared: all but one are
        // first sent off it, so they run in parallel at once rather than
        // when the scheduler next balances (an idle virtual CPU may take
        // tens of milliseconds to be woken for that).
        let mut one_stays = false;
        let mut pinning = Vec::new();
        for proc in self.procs.values_mut() {
            if proc.held > 0 || proc.life == Life::Attaching || !proc.shown {
                // On its own mask for a call: pinned when it leaves it.
                // Being attached: it runs on, maybe into a call that makes
                // a task, until its first stop. Traced unshown (the fast
                // path's children without -f): its calls are only resumed
                // (`unshown_stop`), so none would be made on its own mask.
                continue;
            }
            if proc.computing {
                if let Some(own) = proc.own_mask.take() {
                    if std::mem::replace(&mut one_stays, true)
                        && let Some(away) = without(&own, cpu)
                    {
                        let _ = kernel::set_affinity(proc.pid, &away);
                    }
                    let _ = kernel::set_affinity(proc.pid, &own);
                }
                continue;
            }
            if proc.own_mask.is_some() || proc.unpinnable {
                continue;
            }
            match kernel::get_affinity(proc.pid) {
                Ok(own) => {
                    pinning.push((proc.pid, own.len()));
                    proc.own_mask = Some(own);
                }
                _ => proc.unpinnable = true,
            }
        }
        if pinning.is_empty() {
            self.guard_update();
            return;
        }
        // The guard learns the own masks before the pins exist: giving a
        // task its own mask when it was never pinned does no harm. One
        // that cannot be told (its pipe full) is not pinned yet.
        if !self.guard_update() {
            for (pid, _) in pinning {
                if let Some(proc) = self.procs.get_mut(&pid) {
                    proc.own_mask = None;
                }
            }
            self.guard_update();
            return;
        }
        for (pid, len) in pinning {
            if kernel::set_affinity(pid, &single(cpu, len)).is_err()
                && let Some(proc) = self.procs.get_mut(&pid)
            {
                // A task that cannot be pinned (another owner, a cpuset
                // without the CPU) is traced as it is.
                proc.own_mask = None;
                proc.unpinnable = true;
            }
        }
        self.guard_update();
    }

    /// Give every task, and rtrace, its own mask back.
    fn spread(&mut self) {
        self.colo.active = false;
        for proc in self.procs.values_mut() {
            proc.unpinnable = false;
            if let Some(own) = proc.own_mask.take()
                && proc.held == 0
            {
                // ESRCH: it is gone; nothing to give back. (A task held
                // for a call is on its own mask, perhaps one it set since.)
                let _ = kernel::set_affinity(proc.pid, &own);
            }
        }
        if let Some(own) = self.colo.tracer_own.take() {
            let _ = kernel::set_affinity(0, &own);
        }
        self.guard_update();
    }

    /// Give task `pid` its own mask back before it leaves the trace.
    pub(super) fn unpin(&mut self, pid: i32) {
        let Some(proc) = self.procs.get_mut(&pid) else {
            return;
        };
        if let Some(own) = proc.own_mask.take() {
            // A task held for a call is on its own mask already.
            if proc.held == 0 {
                let _ = kernel::set_affinity(pid, &own);
            }
            self.guard_update();
        }
    }

    /// Task `pid` enters one of the [`VIRTUALISED`] calls (`name`, with
    /// `args`): the task it concerns (itself, or the task an affinity
    /// call names by tid) makes it on its own mask, and is not pinned
    /// until the call is left (`own_mask_left`). Counted even while
    /// nothing is pinned, so that a pin that begins meanwhile waits too.
    pub(super) fn own_mask_entered(&mut self, pid: i32, name: &str, args: &[u64; 6]) {
        let target = match (name, args[0] as i32) {
            ("sched_getaffinity" | "sched_setaffinity", tid) if tid != 0 => {
                match self.tid_of(pid, tid) {
                    Some(tid) => tid,
                    None => return,
                }
            }
            _ => pid,
        };
        if self
            .procs
            .get(&pid)
            .is_none_or(|p| p.life == Life::Starting)
        {
            // rtrace's own child before its exec: not the command's call.
            return;
        }
        let Some(task) = self.procs.get_mut(&target) else {
            return;
        };
        let mut unpinned = false;
        if task.held == 0
            && let Some(own) = &task.own_mask
        {
            if kernel::set_affinity(target, own).is_err() {
                // Still pinned (its own mask is no longer allowed): it
                // stays on the guard's list, and the call is made pinned.
                return;
            }
            unpinned = true;
        }
        task.held += 1;
        if let Some(proc) = self.procs.get_mut(&pid) {
            proc.holding = Some(target);
        }
        if unpinned {
            // After the mask is back: the guard then never gives back the
            // mask of a task that may set its own during the call.
            self.guard_update();
        }
    }

    /// Task `pid` leaves a call `own_mask_entered` saw (returned, or to be
    /// restarted, when it is entered again): the task the call concerned
    /// is pinned again once no call needs it on its own mask, with the
    /// mask the kernel holds now as its own (after a sched_setaffinity, the
    /// one it set). A mask without rtrace's CPU takes rtrace along
    /// (`follow_mask`).
    pub(super) fn own_mask_left(&mut self, pid: i32) {
        let Some(target) = self.procs.get_mut(&pid).and_then(|p| p.holding.take()) else {
            return;
        };
        self.release(target);
    }

    /// One call fewer needs task `target` on its own mask: see
    /// `own_mask_left`.
    pub(super) fn release(&mut self, target: i32) {
        let Some(task) = self.procs.get_mut(&target) else {
            return;
        };
        if task.held == 0 {
            // Not held (the tid now names another task: an exec took the
            // leader's, or it was reused): nothing to end.
            return;
        }
        task.held -= 1;
        if task.held > 0 || task.own_mask.is_none() {
            return;
        }
        // Pinned again by `colocate`, which reads its mask anew.
        task.own_mask = None;
        if let (Ok(mask), Some(cpu)) = (kernel::get_affinity(target), self.colo.cpu) {
            self.follow_mask(cpu, &mask);
        }
        self.colocation_update();
    }
}

impl Engine {
    /// The traced task that task `caller` names `tid`, as rtrace names
    /// it: `tid` itself, unless the caller is in a pid namespace of its
    /// own (`unshare -p`, a container), where the task meant is the traced
    /// one, of that namespace or of one nested below it, whose pid in the
    /// caller's namespace is `tid` (never one of a sibling namespace's).
    /// Read from /proc only for a caller in another namespace, and only at
    /// its affinity calls that name a task.
    fn tid_of(&self, caller: i32, tid: i32) -> Option<i32> {
        let theirs = kernel::pid_namespace(caller)?;
        if kernel::pid_namespace(0).as_ref() == Some(&theirs) {
            return Some(tid);
        }
        let theirs = kernel::PidNamespace::of(caller)?;
        self.procs.keys().copied().find(|&t| theirs.names(tid, t))
    }

    /// A pinned task set its own mask to one without the CPU (`taskset -c
    /// 1 PROGRAM` under rtrace): unless the CPU was given (`--same-cpu=N`),
    /// rtrace and every pinned task move to the first CPU of that mask
    /// rtrace may run on, so the task runs where it asked to.
    fn follow_mask(&mut self, cpu: usize, mask: &[u8]) {
        if has_cpu(mask, cpu) || matches!(self.colo.mode, SameCpu::Always(Some(_))) {
            return;
        }
        let Some(allowed) = self.colo.tracer_own.as_ref() else {
            return;
        };
        let Some(new) = (0..mask.len().min(allowed.len()) * 8)
            .find(|&c| has_cpu(mask, c) && has_cpu(allowed, c))
        else {
            return;
        };
        let pin = single(new, allowed.len());
        if let Some(Some(guard)) = &self.colo.guard {
            guard.move_to(&pin);
        }
        if kernel::set_affinity(0, &pin).is_err() {
            return;
        }
        self.colo.cpu = Some(new);
        // The guard learns the new pin before any task has it; if it
        // cannot, the tasks get their own masks and are pinned later. A
        // task on its own mask for a call is pinned when it leaves it.
        let told = self.guard_update();
        for proc in self.procs.values_mut().filter(|p| p.held == 0) {
            if let Some(own) = &proc.own_mask {
                if told {
                    let _ = kernel::set_affinity(proc.pid, &single(new, own.len()));
                } else {
                    let _ = kernel::set_affinity(proc.pid, own);
                    proc.own_mask = None;
                }
            }
        }
        if !told {
            self.guard_update();
        }
    }
}

impl Drop for Engine {
    /// However the engine ends (an early error return, a panic), no task
    /// it pinned stays pinned.
    fn drop(&mut self) {
        self.spread();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks() {
        assert_eq!(single(0, 8), vec![1, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(single(9, 0), vec![0, 2, 0, 0, 0, 0, 0, 0]);
        assert_eq!(single(70, 8).len(), 16);
        assert!(has_cpu(&single(70, 8), 70));
        assert!(!has_cpu(&single(70, 8), 69));
        assert!(!has_cpu(&[0xff], 8));
        assert_eq!(cpu_list(&[0b0100_1111, 0, 1]), "0-3,6,16");
        assert_eq!(cpu_list(&[0b10]), "1");
        assert_eq!(cpu_list(&[]), "");
        assert_eq!(without(&[0b11], 0), Some(vec![0b10]));
        assert_eq!(without(&[0b01, 0], 0), None);
        assert_eq!(without(&[0b01], 9), Some(vec![0b01]));
    }
}
