//! The pin guard: gives pinned tasks their own CPU masks back when rtrace
//! dies without doing it itself (SIGKILL, a crash).
//!
//! `--same-cpu` pins tracees from outside, and the kernel keeps a pin after
//! the tracer is gone: without this, `kill -9` of an `rtrace -p` would
//! leave a daemon on one CPU for good. The guard is a small process forked
//! from rtrace (twice, so that it is nobody's traced child and rtrace's
//! waits never see it) before the first tracee starts (so its pids
//! are taken before the program's, never between its forks), unless
//! `--same-cpu=never`. rtrace keeps it
//! told which tasks are pinned and what their own masks are; the guard
//! only reads. When its pipe ends (rtrace has exited, however), it gives
//! every task still on the list its own mask back, if the task is still
//! the one that was pinned (same start time), and exits. A rtrace that
//! ends normally has emptied the list before.
//!
//! No task is ever born pinned: a pinned task makes its fork-class calls
//! on its own mask (`affinity`), so every task the guard was not told of
//! has the mask the kernel gave it, and is left alone. A listed task is
//! given its own mask back only while it still runs on exactly a CPU that
//! was the pin: one on another mask was unpinned by rtrace (its own mask,
//! or the one it set since) and is already right.
//!
//! The protocol is lines on a pipe, a snapshot of the pinned tasks (nothing
//! when none is), then `.`; each such snapshot replaces the one before:
//!
//! - `pin CPU`: the CPU tracees are pinned to (first);
//! - `TID HEXMASK`: a pinned task and its own mask.
//!
//! rtrace pins a task only once the guard has been sent a snapshot that
//! lists it (`PinGuard::update` says when), and tells the guard of a task
//! it unpinned only after giving it its own mask, so whatever moment
//! rtrace dies at, every pinned task is on the guard's last snapshot (a
//! snapshot that takes a task off waits while the pipe is full: the
//! guard may then still list a task it need not restore).

use crate::kernel;
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::os::fd::{FromRawFd, OwnedFd};

/// rtrace's end of the guard's pipe, and what is still to be written.
pub(super) struct PinGuard {
    /// The guard process (a pidfd: never another process that got its
    /// pid), ended when rtrace ends normally.
    pidfd: OwnedFd,
    /// Its pid, while the pidfd says it lives.
    pid: i32,
    pipe: std::fs::File,
    /// The last snapshot asked for.
    latest: String,
    /// The rest of a snapshot the pipe took in part: written before
    /// anything newer, so the guard never sees a torn one.
    unwritten: Vec<u8>,
    /// The newest snapshot not yet begun (only the newest is worth
    /// sending).
    queued: Option<String>,
    /// The guard is gone (its pipe broke): nobody would give masks back.
    gone: bool,
}

impl PinGuard {
    /// Start the guard; `None` if it cannot be (no fork, no pipe): rtrace
    /// then traces as it did without one.
    pub(super) fn start() -> Option<PinGuard> {
        let mut fds = [0; 2];
        // SAFETY: pipe2 writes two fds into `fds`.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return None;
        }
        // SAFETY: both fds are ours and open.
        let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        // A guard that stops reading (someone stopped it) must never
        // block the trace.
        // SAFETY: fcntl on our own fd.
        if unsafe { libc::fcntl(fds[1], libc::F_SETFL, libc::O_NONBLOCK) } != 0 {
            return None;
        }
        // The middle child tells the guard's pid through a second pipe.
        let mut pid_fds = [0; 2];
        // SAFETY: pipe2 writes two fds into `pid_fds`.
        if unsafe { libc::pipe2(pid_fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return None;
        }
        // SAFETY: both fds are ours and open.
        let (pid_read, pid_write) = unsafe {
            (
                OwnedFd::from_raw_fd(pid_fds[0]),
                OwnedFd::from_raw_fd(pid_fds[1]),
            )
        };
        // SAFETY: rtrace has one thread, so the child may run Rust code;
        // the intermediate child only forks and exits.
        let middle = unsafe { libc::fork() };
        if middle < 0 {
            return None;
        }
        if middle == 0 {
            drop(write);
            drop(pid_read);
            // SAFETY: as above.
            let guard = unsafe { libc::fork() };
            if guard == 0 {
                // A panic must never unwind into rtrace's code in this
                // copy of it.
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    guard_main(read, pid_write)
                }));
                // SAFETY: _exit ends the guard at once.
                unsafe { libc::_exit(1) };
            }
            drop(pid_write);
            // SAFETY: _exit ends the intermediate child at once.
            unsafe { libc::_exit(0) };
        }
        drop(read);
        drop(pid_write);
        let mut status = 0;
        // SAFETY: waits for our own child, which exits at once; a signal
        // (rtrace's handlers do not restart calls) must not leave it.
        while unsafe { libc::waitpid(middle, &mut status, libc::__WALL) } < 0
            && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
        {}
        let mut pid = [0u8; 4];
        std::io::Read::read_exact(&mut std::fs::File::from(pid_read), &mut pid).ok()?;
        let pid = i32::from_ne_bytes(pid);
        // SAFETY: pidfd_open takes a pid and flags.
        let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        if pid <= 0 || pidfd < 0 {
            // Not one rtrace could end: unneeded, it exits with rtrace
            // after giving back the masks of an empty list.
            return None;
        }
        // SAFETY: a new fd of ours.
        let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd as i32) };
        Some(PinGuard {
            pidfd,
            pid,
            pipe: std::fs::File::from(write),
            latest: String::new(),
            unwritten: Vec::new(),
            queued: None,
            gone: false,
        })
    }

    /// Tell the guard the pin CPU and the pinned tasks with their own
    /// masks (written if that changed since the last time); whether the
    /// guard has been sent all of it: a task may be pinned only then.
    pub(super) fn update<'a>(
        &mut self,
        cpu: Option<usize>,
        tasks: impl Iterator<Item = (i32, &'a [u8])> + Clone,
    ) -> bool {
        let snapshot = snapshot(cpu, tasks);
        if snapshot != self.latest {
            self.latest = snapshot.clone();
            self.queued = Some(snapshot);
        }
        self.write();
        self.unwritten.is_empty() && self.queued.is_none()
    }

    /// Whether the guard is gone: no pin may stay then.
    pub(super) fn gone(&self) -> bool {
        self.gone
    }

    /// Move the guard to `mask` (the pin CPU): it must run where rtrace
    /// runs, so that woken by rtrace's end it runs before rtrace's exit
    /// lets the tracees go.
    pub(super) fn move_to(&self, mask: &[u8]) {
        let fd = std::os::fd::AsRawFd::as_raw_fd(&self.pidfd);
        // SAFETY: signal 0 through the pidfd only checks that it lives, so
        // that the pid is still the guard's.
        let alive = unsafe {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                fd,
                0,
                std::ptr::null::<libc::siginfo_t>(),
                0,
            )
        } == 0;
        if alive {
            let _ = kernel::set_affinity(self.pid, mask);
        }
    }

    /// Write what the pipe takes now: the rest of a snapshot begun, then
    /// the newest one.
    fn write(&mut self) {
        loop {
            if self.unwritten.is_empty() {
                match self.queued.take() {
                    Some(next) => self.unwritten = next.into_bytes(),
                    None => return,
                }
            }
            match self.pipe.write(&self.unwritten) {
                Ok(n) if n > 0 => {
                    self.unwritten.drain(..n);
                }
                // Gone: someone killed it (`pkill rtrace` matches it too).
                Err(e) if e.raw_os_error() == Some(libc::EPIPE) => {
                    self.gone = true;
                    return;
                }
                // Full: the next update goes on.
                _ => return,
            }
        }
    }
}

impl Drop for PinGuard {
    /// rtrace ends normally, having given every mask back itself: the
    /// guard must not act on what it was told last.
    fn drop(&mut self) {
        let fd = std::os::fd::AsRawFd::as_raw_fd(&self.pidfd);
        // SAFETY: pidfd_send_signal with no siginfo.
        unsafe {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                fd,
                libc::SIGKILL,
                std::ptr::null::<libc::siginfo_t>(),
                0,
            )
        };
    }
}

/// The snapshot of the pin CPU and the pinned tasks (tid, own mask), in
/// the guard's protocol.
fn snapshot<'a>(
    cpu: Option<usize>,
    tasks: impl Iterator<Item = (i32, &'a [u8])> + Clone,
) -> String {
    let mut snapshot = String::new();
    if tasks.clone().next().is_some() {
        if let Some(cpu) = cpu {
            snapshot.push_str(&format!("pin {cpu}\n"));
        }
        for (tid, own) in tasks {
            snapshot.push_str(&tid.to_string());
            snapshot.push(' ');
            for byte in own {
                snapshot.push_str(&format!("{byte:02x}"));
            }
            snapshot.push('\n');
        }
    }
    snapshot.push_str(".\n");
    snapshot
}

/// The guard's life: follow the snapshots until the pipe ends, then give
/// back the masks of the last one. Never returns.
/// Its pid goes to `ready` once it is set up: a guard still starting
/// could not act before the tracees are let go, so nothing is pinned
/// before.
fn guard_main(pipe: OwnedFd, ready: OwnedFd) -> ! {
    // SAFETY: setsid and prctl take no pointers we do not own; signals
    // that end a terminal session must not end the guard before rtrace.
    unsafe {
        libc::setsid();
        libc::prctl(libc::PR_SET_NAME, c"rtrace-guard".as_ptr());
        for sig in [
            libc::SIGINT,
            libc::SIGQUIT,
            libc::SIGTERM,
            libc::SIGHUP,
            libc::SIGPIPE,
        ] {
            libc::signal(sig, libc::SIG_IGN);
        }
        // Nothing of rtrace's (its output file, the terminal) stays open.
        let keep = std::os::fd::AsRawFd::as_raw_fd(&pipe) as u32;
        let ready = std::os::fd::AsRawFd::as_raw_fd(&ready) as u32;
        let (low, high) = (keep.min(ready), keep.max(ready));
        if low > 0 {
            libc::syscall(libc::SYS_close_range, 0u32, low - 1, 0u32);
        }
        if high > low + 1 {
            libc::syscall(libc::SYS_close_range, low + 1, high - 1, 0u32);
        }
        libc::syscall(libc::SYS_close_range, high + 1, u32::MAX, 0u32);
    }
    // The guard runs on the pin CPU (rtrace moves it there when it pins
    // itself, and with every move of the pin) as a real-time task (where
    // it may): woken by
    // rtrace's end, it runs before any pinned task, which may run on that
    // CPU alone, so none can make a task or set a mask of its own before
    // the guard has given it its own mask back.
    let param = libc::sched_param { sched_priority: 1 };
    // SAFETY: a plain struct the call reads.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO | libc::SCHED_RESET_ON_FORK, &param) };
    // SAFETY: getpid takes nothing.
    let pid = unsafe { libc::getpid() };
    let _ = std::fs::File::from(ready).write_all(&pid.to_ne_bytes());
    let (told, pins) = follow(std::io::BufReader::new(std::fs::File::from(pipe)));
    give_back(&told, &pins);
    // SAFETY: _exit ends the guard without running rtrace's atexit work.
    unsafe { libc::_exit(0) }
}

/// Read snapshots until the input ends: the tasks of the last whole one
/// (a torn one at the end is not taken), and every CPU that was the pin.
fn follow(reader: impl BufRead) -> (HashMap<i32, Told>, Vec<usize>) {
    let mut told: HashMap<i32, Told> = HashMap::new();
    let mut next: HashMap<i32, Told> = HashMap::new();
    // Every CPU that was the pin: a task born pinned before a move of the
    // co-location (`follow_mask`) still has the old one.
    let mut pins: Vec<usize> = Vec::new();
    for line in reader.lines() {
        let Ok(line) = line else { break };
        if line == "." {
            told = std::mem::take(&mut next);
            continue;
        }
        let mut fields = line.split(' ');
        let (Some(first), Some(second)) = (fields.next(), fields.next()) else {
            continue;
        };
        if first == "pin" {
            if let Ok(cpu) = second.parse::<usize>()
                && !pins.contains(&cpu)
            {
                pins.push(cpu);
            }
            continue;
        }
        let Ok(tid) = first.parse::<i32>() else {
            continue;
        };
        let Some(own) = parse_hex(second) else {
            continue;
        };
        // The start time tells a task from a later one with its tid.
        let start = match told.get(&tid) {
            Some(known) => Some(known.start),
            None => kernel::start_time(tid),
        };
        if let Some(start) = start {
            next.insert(tid, Told { start, own });
        }
    }
    (told, pins)
}

/// What the guard was told of a pinned task.
struct Told {
    /// When it started: the tid names this task only while it is the same.
    start: u64,
    /// The mask it has without rtrace.
    own: Vec<u8>,
}

/// Give each task of the last snapshot that is still the same, and still
/// runs on exactly a CPU that was the pin, its own mask back.
fn give_back(told: &HashMap<i32, Told>, pins: &[usize]) {
    for (&tid, task) in told {
        let on_pin = kernel::get_affinity(tid)
            .ok()
            .and_then(|mask| only_cpu(&mask))
            .is_some_and(|cpu| pins.contains(&cpu));
        if on_pin && kernel::start_time(tid) == Some(task.start) {
            let _ = kernel::set_affinity(tid, &task.own);
        }
    }
}

/// The one CPU a mask holds, if it holds exactly one.
fn only_cpu(mask: &[u8]) -> Option<usize> {
    let mut set = mask.iter().enumerate().flat_map(|(i, &b)| {
        (0..8)
            .filter(move |bit| b >> bit & 1 != 0)
            .map(move |bit| i * 8 + bit)
    });
    let cpu = set.next()?;
    set.next().is_none().then_some(cpu)
}

/// Bytes from pairs of hex digits.
fn parse_hex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_masks() {
        assert_eq!(parse_hex("0300ff"), Some(vec![3, 0, 0xff]));
        assert_eq!(parse_hex(""), Some(vec![]));
        assert_eq!(parse_hex("0"), None);
        assert_eq!(parse_hex("zz"), None);
    }

    #[test]
    fn snapshots_round_trip() {
        let me = std::process::id() as i32;
        let gone = i32::MAX;
        let own = [3u8, 0];
        let tasks = [(me, &own[..]), (gone, &own[..1])];
        let first = snapshot(Some(1), tasks.iter().copied());
        assert_eq!(first, format!("pin 1\n{me} 0300\n{gone} 03\n.\n"));
        // Nothing pinned: an empty snapshot.
        assert_eq!(snapshot(Some(1), std::iter::empty()), ".\n");
        let second = snapshot(Some(0), [(me, &own[..1])].into_iter());
        assert_eq!(second, format!("pin 0\n{me} 03\n.\n"));
        // The last whole snapshot counts (a task gone is dropped), a torn
        // one does not, and every pin is kept.
        let text = format!("{first}{second}{me} 07\nbad line\n");
        let (told, pins) = follow(text.as_bytes());
        assert_eq!(pins, vec![1, 0]);
        assert_eq!(told.len(), 1);
        let task = &told[&me];
        assert_eq!(task.own, vec![3]);
        assert_eq!(Some(task.start), kernel::start_time(me));
    }

    #[test]
    fn one_cpu_masks() {
        assert_eq!(only_cpu(&[0b100, 0]), Some(2));
        assert_eq!(only_cpu(&[0, 0, 1]), Some(16));
        assert_eq!(only_cpu(&[0b101]), None);
        assert_eq!(only_cpu(&[1, 1]), None);
        assert_eq!(only_cpu(&[0, 0]), None);
        assert_eq!(only_cpu(&[]), None);
    }
}
