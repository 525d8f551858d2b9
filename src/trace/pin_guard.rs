//! The pin guard: gives pinned tasks their own CPU masks back when rtrace
//! dies without doing it itself (SIGKILL, a crash).
//!
//! `--same-cpu` pins tracees from outside, and the kernel keeps a pin after
//! the tracer is gone: without this, `kill -9` of an `rtrace -p` would
//! leave a daemon on one CPU for good. The guard is a small process forked
//! from rtrace (twice, so that it is nobody's traced child and rtrace's
//! waits never see it) the first time something is pinned. rtrace keeps it
//! told which tasks are pinned and what their own masks are; the guard
//! only reads. When its pipe ends (rtrace has exited, however), it gives
//! every task still on the list its own mask back, if the task is still
//! the one that was pinned (same start time), and exits. A rtrace that
//! ends normally has emptied the list before.
//!
//! A task a pinned task creates is born with the pin, before rtrace hears
//! of it (its fork event), and a task created after rtrace died too. So
//! the guard also gives back the masks of tasks it was never told of that
//! descend from a listed task whose new tasks rtrace traces: the threads
//! of its thread group and its child processes (/proc/TID/task/TID/
//! children), and theirs in turn, if such a task was born after the guard
//! (so after any pin) and no later than `BORN_PINNED_TICKS` (50 ms)
//! after its creator got its own mask back (later, it was born on that
//! mask, and a pin CPU mask is its own choice), and may still run on
//! exactly one CPU that was the pin. Within that time a task that chose a
//! pin CPU itself cannot be told from one born pinned, and gets the mask
//! too. A child process gets the own mask of the thread that created it; a
//! thread, whose creator /proc does not tell, that of its group's leader,
//! or else of the group's lowest listed thread (threads of one process
//! nearly always share one mask). A group where a thread rtrace traced
//! unpinned runs on the pin CPU is left alone: that thread may have
//! created the others on its own mask. Each task's mask is set before its
//! own threads and children are looked for, so one it creates meanwhile is
//! born with its own mask; a creation under way (the pin copied, the task
//! not yet listed) is found by a later look: the guard looks every 20 ms
//! until one finds nothing after those 50 ms (a fork of a process so
//! large that copying it takes longer is missed).
//!
//! The protocol is lines on a pipe, a snapshot of every task traced while
//! any is pinned (nothing when none is), then `.`; each such snapshot
//! replaces the one before:
//!
//! - `pin CPU`: the CPU tracees are pinned to (first);
//! - `TID HEXMASK`: a pinned task and its own mask; it creates tasks on
//!   its own mask (rtrace does not trace them, or it is in a call that
//!   makes an untraced task: no descendant is looked for);
//! - `TID HEXMASK +`: the same, but the tasks it creates are traced and
//!   born pinned: its descendants are looked for;
//! - `TID -`: a task traced but not pinned (it computes, or cannot be
//!   pinned), or the child of a CLONE_UNTRACED call made on its creator's
//!   own mask: left alone, and so are its descendants.

use crate::kernel;
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::os::fd::{FromRawFd, OwnedFd};

/// rtrace's end of the guard's pipe, and what is still to be written.
pub(super) struct PinGuard {
    /// The guard process (a pidfd: never another process that got its
    /// pid), ended when rtrace ends normally.
    pidfd: OwnedFd,
    pipe: std::fs::File,
    /// The last snapshot asked for.
    latest: String,
    /// The rest of a snapshot the pipe took in part: written before
    /// anything newer, so the guard never sees a torn one.
    unwritten: Vec<u8>,
    /// The newest snapshot not yet begun (only the newest is worth
    /// sending).
    queued: Option<String>,
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
        // the intermediate child only forks, writes a number and exits.
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
                drop(pid_write);
                // A panic must never unwind into rtrace's code in this
                // copy of it.
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| guard_main(read)));
                // SAFETY: _exit ends the guard at once.
                unsafe { libc::_exit(1) };
            }
            let _ = std::fs::File::from(pid_write).write_all(&guard.to_ne_bytes());
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
            pipe: std::fs::File::from(write),
            latest: String::new(),
            unwritten: Vec::new(),
            queued: None,
        })
    }

    /// Tell the guard the pin CPU and the traced tasks: for each, its
    /// own mask if it is pinned, and whether the tasks it creates are
    /// traced (and so born pinned). Written if that changed since the last
    /// time.
    pub(super) fn update<'a>(
        &mut self,
        cpu: Option<usize>,
        tasks: impl Iterator<Item = (i32, Option<&'a [u8]>, bool)> + Clone,
    ) {
        let snapshot = snapshot(cpu, tasks);
        if snapshot != self.latest {
            self.latest = snapshot.clone();
            self.queued = Some(snapshot);
        }
        self.write();
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
                // Full (the next update goes on), or the guard is gone: it
                // changes nothing for the trace.
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

/// The snapshot of the pin CPU and the traced tasks (tid, own mask if
/// pinned, whether its new tasks are traced), in the guard's protocol.
fn snapshot<'a>(
    cpu: Option<usize>,
    tasks: impl Iterator<Item = (i32, Option<&'a [u8]>, bool)> + Clone,
) -> String {
    let mut snapshot = String::new();
    if tasks.clone().any(|(_, own, _)| own.is_some()) {
        if let Some(cpu) = cpu {
            snapshot.push_str(&format!("pin {cpu}\n"));
        }
        for (tid, own, follows) in tasks {
            snapshot.push_str(&tid.to_string());
            match own {
                Some(own) => {
                    snapshot.push(' ');
                    for byte in own {
                        snapshot.push_str(&format!("{byte:02x}"));
                    }
                    if follows {
                        snapshot.push_str(" +");
                    }
                }
                None => snapshot.push_str(" -"),
            }
            snapshot.push('\n');
        }
    }
    snapshot.push_str(".\n");
    snapshot
}

/// The guard's life: follow the snapshots until the pipe ends, then give
/// back the masks of the last one. Never returns.
fn guard_main(pipe: OwnedFd) -> ! {
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
        let fd = std::os::fd::AsRawFd::as_raw_fd(&pipe) as u32;
        if fd > 0 {
            libc::syscall(libc::SYS_close_range, 0u32, fd - 1, 0u32);
        }
        libc::syscall(libc::SYS_close_range, fd + 1, u32::MAX, 0u32);
    }
    // Tasks born before the guard cannot have inherited a pin from a
    // tracee: the guard is started before the first tracee is pinned.
    // SAFETY: getpid takes nothing.
    let since = kernel::start_time(unsafe { libc::getpid() });
    let (told, pins) = follow(std::io::BufReader::new(std::fs::File::from(pipe)));
    let given = give_back_listed(&told);
    if let Some(since) = since
        && !pins.is_empty()
    {
        let mut search = Descent {
            told: &told,
            pins: &pins,
            since,
            given,
        };
        search.run();
    }
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
        let own = match second {
            "-" => None,
            hex => match parse_hex(hex) {
                Some(mask) => Some((mask, fields.next() == Some("+"))),
                None => continue,
            },
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

/// What the guard was told of a task.
struct Told {
    /// When it started: the tid names this task only while it is the same.
    start: u64,
    /// Its own mask if it is pinned, and whether the tasks it creates are
    /// born pinned; `None`: traced, not pinned.
    own: Option<(Vec<u8>, bool)>,
}

/// A task the guard gave its own mask back.
struct Given {
    own: Vec<u8>,
    /// Its new tasks are traced, so born pinned: look below it.
    follows: bool,
    /// When it started: the tid names this task only while it is the same.
    start: u64,
    /// When it got its own mask back (in start-time ticks): a task it
    /// created later was born on that mask, not on the pin.
    at: u64,
}

/// Give each pinned task of the last snapshot that is still the same its
/// own mask back: returns those.
fn give_back_listed(told: &HashMap<i32, Told>) -> HashMap<i32, Given> {
    let mut given = HashMap::new();
    for (&tid, task) in told {
        if let Some((own, follows)) = &task.own
            && kernel::start_time(tid) == Some(task.start)
            && kernel::set_affinity(tid, own).is_ok()
            && let Some(at) = kernel::boot_ticks()
        {
            given.insert(
                tid,
                Given {
                    own: own.clone(),
                    follows: *follows,
                    start: task.start,
                    at,
                },
            );
        }
    }
    given
}

/// How long the guard waits between looks for new tasks: a fork under way
/// when its creator got its mask back has copied the pin but shows the
/// child only once done.
const SETTLE: std::time::Duration = std::time::Duration::from_millis(20);

/// How long after its creator got its own mask back a task found on the
/// pin counts as born pinned (a fork under way then, copying a large
/// process), in start-time ticks (10 ms each at the usual 100 Hz): later,
/// it was born on the creator's own mask and chose the pin CPU itself.
const BORN_PINNED_TICKS: u64 = 5;

/// At most this many looks: tasks that keep creating tasks end the search.
const MAX_LOOKS: usize = 20;

/// The search for tasks born pinned that rtrace did not tell of.
struct Descent<'a> {
    told: &'a HashMap<i32, Told>,
    pins: &'a [usize],
    /// The guard's start time: tasks born before it were never pinned by
    /// inheritance.
    since: u64,
    /// Tasks given their own masks (listed, or found here).
    given: HashMap<i32, Given>,
}

impl Descent<'_> {
    /// Look for descendants of the listed tasks whose new tasks are
    /// traced, and of each task found, every [`SETTLE`] until a look
    /// finds none after any fork under way at the give-back must have
    /// ended ([`BORN_PINNED_TICKS`]).
    fn run(&mut self) {
        if !self.given.values().any(|g| g.follows) {
            return;
        }
        let settled = std::time::Instant::now()
            + std::time::Duration::from_secs(BORN_PINNED_TICKS) / kernel::clock_ticks() as u32;
        for _ in 0..MAX_LOOKS {
            let mut queue: Vec<i32> = self
                .given
                .iter()
                .filter(|(_, g)| g.follows)
                .map(|(&tid, _)| tid)
                .collect();
            queue.sort_unstable();
            let mut found = false;
            let mut groups_seen = Vec::new();
            while let Some(tid) = queue.pop() {
                let mut born = self.new_children(tid);
                // A group's threads once per look, from any of them.
                if let Some(group) = kernel::thread_group(tid)
                    && !groups_seen.contains(&group)
                {
                    groups_seen.push(group);
                    born.extend(self.new_threads(tid));
                }
                found |= !born.is_empty();
                queue.extend(born);
            }
            if !found && std::time::Instant::now() >= settled {
                return;
            }
            std::thread::sleep(SETTLE);
        }
    }

    /// What the guard gave task `tid`, if the tid still names that task.
    fn given_to(&self, tid: i32) -> Option<&Given> {
        self.given
            .get(&tid)
            .filter(|g| kernel::start_time(tid) == Some(g.start))
    }

    /// Give the threads of `tid`'s group that were born with the pin
    /// unseen the group's own mask; returns them.
    fn new_threads(&mut self, tid: i32) -> Vec<i32> {
        let threads = kernel::threads(tid);
        // A thread traced unpinned that runs on a pin CPU could have
        // created pinned-looking threads on its own mask.
        if threads.iter().any(|&t| {
            self.told
                .get(&t)
                .is_some_and(|k| k.own.is_none() && kernel::start_time(t) == Some(k.start))
                && self.on_pin(t)
        }) {
            return Vec::new();
        }
        // Which thread made a thread /proc does not say: the leader's
        // mask, or else the lowest given thread's; born pinned only until
        // the last of the group's threads got its mask back.
        let mut ours: Vec<i32> = threads
            .iter()
            .copied()
            .filter(|&t| self.given_to(t).is_some())
            .collect();
        ours.sort_unstable();
        let leader = kernel::thread_group(tid).filter(|l| ours.contains(l));
        let Some(source) = leader.or(ours.first().copied()) else {
            return Vec::new();
        };
        let own = self.given[&source].own.clone();
        let until = ours.iter().map(|t| self.given[t].at).max().unwrap_or(0);
        threads
            .into_iter()
            .filter(|&t| self.adopt(t, &own, until))
            .collect()
    }

    /// Give the child processes thread `tid` created that were born with
    /// the pin unseen `tid`'s own mask; returns them.
    fn new_children(&mut self, tid: i32) -> Vec<i32> {
        let Some((own, at)) = self.given_to(tid).map(|g| (g.own.clone(), g.at)) else {
            return Vec::new();
        };
        kernel::children(tid)
            .into_iter()
            .filter(|&c| self.adopt(c, &own, at))
            .collect()
    }

    /// Whether task `tid` may run on exactly one CPU, one that was the pin.
    fn on_pin(&self, tid: i32) -> bool {
        kernel::get_affinity(tid)
            .ok()
            .and_then(|mask| only_cpu(&mask))
            .is_some_and(|cpu| self.pins.contains(&cpu))
    }

    /// Give task `tid` mask `own` if rtrace never told of it, it was born
    /// after the guard and no later than [`BORN_PINNED_TICKS`] after its
    /// creator got its own mask back (`creator_at`), and it still runs on
    /// the pin; whether it got it.
    fn adopt(&mut self, tid: i32, own: &[u8], creator_at: u64) -> bool {
        if self.given.contains_key(&tid) {
            return false;
        }
        let Some(start) = kernel::start_time(tid) else {
            return false;
        };
        // Told of: given back already, or traced unpinned, or a
        // CLONE_UNTRACED child (or a tid of a later task: unknown).
        if self.told.get(&tid).is_some_and(|k| k.start == start)
            || start < self.since
            || start > creator_at + BORN_PINNED_TICKS
        {
            return false;
        }
        if !self.on_pin(tid) || kernel::set_affinity(tid, own).is_err() {
            return false;
        }
        let Some(at) = kernel::boot_ticks() else {
            return false;
        };
        self.given.insert(
            tid,
            Given {
                own: own.to_vec(),
                follows: true,
                start,
                at,
            },
        );
        true
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
        let tasks = [(me, Some(&own[..]), true), (gone, None, false)];
        let first = snapshot(Some(1), tasks.iter().copied());
        assert_eq!(first, format!("pin 1\n{me} 0300 +\n{gone} -\n.\n"));
        // Nothing pinned: an empty snapshot.
        let none = [(me, None, true)];
        assert_eq!(snapshot(Some(1), none.iter().copied()), ".\n");
        let second = snapshot(Some(0), [(me, Some(&own[..1]), false)].into_iter());
        assert_eq!(second, format!("pin 0\n{me} 03\n.\n"));
        // The last whole snapshot counts (a task gone is dropped), a torn
        // one does not, and every pin is kept.
        let text = format!("{first}{second}{me} 07 +\nbad line\n");
        let (told, pins) = follow(text.as_bytes());
        assert_eq!(pins, vec![1, 0]);
        assert_eq!(told.len(), 1);
        let task = &told[&me];
        assert_eq!(task.own, Some((vec![3], false)));
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
