//! The supervisor: answers the seccomp user notifications of the command's
//! filtered calls (see [`super::child`] for the filter) as mon_bin.c would
//! for the usbmon nodes, and lets every other call run (CONTINUE). It runs
//! on a thread of rtrace's own, so rtrace's ptrace engine traces the
//! command as on a real kernel: a call enters, waits here, and leaves with
//! the answer and the memory written.
//!
//! A program's fd of a reader is recognised with kcmp(KCMP_FILE) against
//! the description the supervisor keeps (so dup, fork and fd passing share
//! the reader, as in the kernel); its memory is read and written through
//! [`crate::kernel::vm_read`] and [`crate::kernel::vm_write`].

mod poll;

use super::device::{Pace, Reader, World};
use super::recording::Recording;
use poll::{PollKind, Waiter};
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::Arc;
use std::time::Instant;

pub use crate::emu::notify::{AUDIT_ARCH_I386, Answer};

/// A blocking request that waits for its next event with pacing: where
/// it goes on when the event is due (after its flush, for MFETCH).
pub(super) enum Resume {
    Get {
        hdr: u64,
        hdrbytes: u32,
        data: u64,
        alloc: u32,
    },
    Fetch {
        nfetch_at: u64,
        offvec: u64,
        nfetch: u32,
    },
    Read {
        buf: u64,
        count: u64,
    },
}

/// A paced request waiting for its event.
struct Deferred {
    id: u64,
    pid: i32,
    reader: usize,
    resume: Resume,
}

/// The emulation's state, owned by the supervisor thread.
pub struct Supervisor {
    listener: OwnedFd,
    rec: Arc<Recording>,
    pace: Pace,
    /// The readers, one per open.
    pub readers: Vec<Reader>,
    /// Thread group ids that made filtered calls: whether a ring is mapped
    /// is looked up in their maps and their descendants'.
    seen: Vec<i32>,
    last_tid: i32,
    waiters: Vec<Waiter>,
    deferred: Vec<Deferred>,
    self_pid: i32,
}

/// Run the supervisor on `listener` until no filtered process is left.
pub fn serve(listener: OwnedFd, rec: Arc<Recording>, pace: Pace) {
    let mut s = Supervisor {
        listener,
        rec,
        pace,
        readers: Vec::new(),
        seen: Vec::new(),
        last_tid: -1,
        waiters: Vec::new(),
        deferred: Vec::new(),
        self_pid: std::process::id() as i32,
    };
    s.run();
}

use crate::emu::notify::tgid_of;

/// Whether process `pid` maps the memfd of inode `ino` (a ring).
fn maps_have(pid: i32, ino: u64) -> bool {
    let Ok(maps) = std::fs::read_to_string(format!("/proc/{pid}/maps")) else {
        return false;
    };
    maps.lines().any(|l| {
        let mut w = l.split_ascii_whitespace();
        w.nth(4).and_then(|i| i.parse::<u64>().ok()) == Some(ino)
            && w.next()
                .is_some_and(|name| name.contains("memfd:usbmon-ring-"))
    })
}

impl Supervisor {
    fn run(&mut self) {
        loop {
            let mut fds = vec![libc::pollfd {
                fd: self.listener.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            }];
            let mut deadline: Option<Instant> = None;
            for w in &self.waiters {
                w.pollset(&mut fds, &mut deadline);
            }
            // With pacing, a held call is looked at again when an event of
            // one of its readers comes due.
            let mut waiting: Vec<usize> = self.deferred.iter().map(|d| d.reader).collect();
            for w in &self.waiters {
                waiting.extend(w.readers());
            }
            for r in waiting {
                if let Some(due) = self.next_due(r) {
                    deadline = Some(deadline.map_or(due, |d| d.min(due)));
                }
            }
            let timeout = match deadline {
                None if self.waiters.is_empty() && self.deferred.is_empty() => -1,
                // While a call is held, look now and then whether its
                // caller went away (a signal).
                None => 100,
                Some(t) => {
                    let ms = t
                        .saturating_duration_since(Instant::now())
                        .as_micros()
                        .div_ceil(1000);
                    ms.min(100) as i32
                }
            };
            // SAFETY: poll on our own array.
            let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout) };
            if n < 0 {
                if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                return;
            }
            if fds[0].revents & libc::POLLIN != 0 {
                self.receive();
            } else if fds[0].revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
                return; // no filtered process is left
            }
            self.service_deferred();
            self.service_waiters();
        }
    }

    fn receive(&mut self) {
        let Some(req) = crate::emu::notify::recv(self.listener.as_raw_fd()) else {
            return; // the caller went away (ENOENT) or a signal
        };
        let answer = self.handle(&req);
        self.send(req.id, answer);
    }

    /// Whether notification `id` is still waiting for its answer.
    pub fn valid(&self, id: u64) -> bool {
        crate::emu::notify::valid(self.listener.as_raw_fd(), id)
    }

    /// Send `answer` for notification `id` (nothing for [`Answer::Done`]).
    pub fn send(&self, id: u64, answer: Answer) {
        crate::emu::notify::send(self.listener.as_raw_fd(), id, answer)
    }

    fn note_pid(&mut self, tid: i32) {
        if tid == self.last_tid {
            return;
        }
        self.last_tid = tid;
        let pid = tgid_of(tid);
        if !self.seen.contains(&pid) {
            self.seen.push(pid);
        }
    }

    /// The reader behind fd `fd` of `pid`.
    pub fn find_reader(&self, pid: i32, fd: u64) -> Option<usize> {
        let fd = i32::try_from(fd as u32).ok().filter(|&fd| fd >= 0)?;
        self.readers.iter().position(|r| {
            // SAFETY: kcmp compares two fds; no memory is passed.
            unsafe {
                libc::syscall(
                    libc::SYS_kcmp,
                    pid,
                    self.self_pid,
                    0, /* KCMP_FILE */
                    fd,
                    r.cfd.as_raw_fd(),
                ) == 0
            }
        })
    }

    /// The kernel's `mmap_active != 0` for reader `r`: a process that made
    /// a filtered call, or a descendant of one, maps its memfd.
    fn is_mapped(seen: &mut Vec<i32>, self_pid: i32, r: &Reader) -> bool {
        // SAFETY: kill with signal 0 only checks the pid.
        seen.retain(|&p| unsafe { libc::kill(p, 0) } == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH));
        let mut set = seen.clone();
        let parents: Vec<(i32, i32)> = std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .filter_map(|e| {
                let pid: i32 = e.ok()?.file_name().to_str()?.parse().ok()?;
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
                let rest = &stat[stat.rfind(')')? + 1..];
                let ppid = rest.split_ascii_whitespace().nth(1)?.parse().ok()?;
                Some((pid, ppid))
            })
            .collect();
        loop {
            let before = set.len();
            for &(pid, ppid) in &parents {
                if set.contains(&ppid) && !set.contains(&pid) {
                    set.push(pid);
                }
            }
            if set.len() == before {
                break;
            }
        }
        set.iter().any(|&p| p != self_pid && maps_have(p, r.ino))
    }

    /// Let reader `i` produce (see [`Reader::produce`]).
    pub fn produce(&mut self, i: usize) {
        let (seen, self_pid) = (&mut self.seen, self.self_pid);
        let mut mapped = |r: &Reader| Supervisor::is_mapped(seen, self_pid, r);
        let mut world = World {
            rec: &self.rec,
            pace: self.pace,
            mapped: &mut mapped,
        };
        self.readers[i].produce(&mut world);
    }

    /// When reader `i`'s next event is due with pacing.
    fn next_due(&mut self, i: usize) -> Option<Instant> {
        let mut never = |_: &Reader| false;
        let world = World {
            rec: &self.rec,
            pace: self.pace,
            mapped: &mut never,
        };
        self.readers[i].next_due(&world)
    }

    fn nonblocking(&self, i: usize) -> bool {
        // SAFETY: F_GETFL on our own fd.
        let fl = unsafe { libc::fcntl(self.readers[i].cfd.as_raw_fd(), libc::F_GETFL) };
        fl >= 0 && fl & libc::O_NONBLOCK != 0
    }

    pub(super) fn access(&self, i: usize) -> i32 {
        // SAFETY: F_GETFL on our own fd.
        let fl = unsafe { libc::fcntl(self.readers[i].cfd.as_raw_fd(), libc::F_GETFL) };
        fl.max(0) & libc::O_ACCMODE
    }

    /// `mon_bin_wait_event`: None when an event is queued, else what the
    /// call gets: EAGAIN without blocking; with blocking, held until the
    /// next event is due (pacing), or for ever once the recording is used
    /// up (the caller sleeps as on a quiet bus, until a signal).
    pub(super) fn wait_event(
        &mut self,
        i: usize,
        id: u64,
        pid: i32,
        resume: Resume,
    ) -> Option<Answer> {
        if self.readers[i].b_cnt != 0 {
            return None;
        }
        if self.nonblocking(i) {
            return Some(Answer::Err(libc::EAGAIN));
        }
        if self.next_due(i).is_some() {
            self.deferred.push(Deferred {
                id,
                pid,
                reader: i,
                resume,
            });
        }
        Some(Answer::Done)
    }

    fn handle(&mut self, n: &libc::seccomp_notif) -> Answer {
        let a = n.data.args;
        let pid = n.pid as i32;
        self.note_pid(pid);
        let nr = n.data.nr as i64;
        if n.data.arch == AUDIT_ARCH_I386 {
            use syscalls::x86::Sysno as S;
            let reader = |s: &Self| s.find_reader(pid, a[0]);
            return match nr {
                x if x == S::openat as i64 => {
                    self.open(pid, n.id, a[0] as i32, a[1] & 0xffff_ffff, a[2] as i32)
                }
                x if x == S::open as i64 => {
                    self.open(pid, n.id, libc::AT_FDCWD, a[0] & 0xffff_ffff, a[1] as i32)
                }
                x if x == S::ioctl as i64 => match reader(self) {
                    Some(r) => self.ioctl(pid, n.id, r, a[1] as u32, a[2] & 0xffff_ffff, true),
                    None => Answer::Continue,
                },
                x if x == S::read as i64 => match reader(self) {
                    Some(r) => self.read(pid, n.id, r, a[1] & 0xffff_ffff, a[2] & 0xffff_ffff),
                    None => Answer::Continue,
                },
                x if x == S::mmap2 as i64 => match self.find_reader(pid, a[4]) {
                    Some(r) if a[3] & libc::MAP_ANONYMOUS as u64 == 0 => self.mmap(
                        r,
                        a[1] & 0xffff_ffff,
                        a[2],
                        a[3],
                        (a[5] & 0xffff_ffff) << 12,
                    ),
                    _ => Answer::Continue,
                },
                _ => Answer::Continue,
            };
        }
        use libc as l;
        match nr {
            l::SYS_openat => self.open(pid, n.id, a[0] as i32, a[1], a[2] as i32),
            l::SYS_open => self.open(pid, n.id, libc::AT_FDCWD, a[0], a[1] as i32),
            l::SYS_ioctl => match self.find_reader(pid, a[0]) {
                Some(r) => self.ioctl(pid, n.id, r, a[1] as u32, a[2], false),
                None => Answer::Continue,
            },
            l::SYS_read => match self.find_reader(pid, a[0]) {
                Some(r) => self.read(pid, n.id, r, a[1], a[2]),
                None => Answer::Continue,
            },
            l::SYS_mmap if a[3] & libc::MAP_ANONYMOUS as u64 == 0 => {
                match self.find_reader(pid, a[4]) {
                    Some(r) => self.mmap(r, a[1], a[2], a[3], a[5]),
                    None => Answer::Continue,
                }
            }
            l::SYS_poll => poll::call(self, n, PollKind::Poll),
            l::SYS_ppoll => poll::call(self, n, PollKind::Ppoll),
            l::SYS_select => poll::call(self, n, PollKind::Select),
            l::SYS_pselect6 => poll::call(self, n, PollKind::Pselect6),
            _ => Answer::Continue,
        }
    }

    /// The recording.
    pub(super) fn rec(&self) -> &Recording {
        &self.rec
    }

    /// The listener's fd.
    pub(super) fn listener_fd(&self) -> i32 {
        self.listener.as_raw_fd()
    }

    /// Whether reader `r`'s ring is mapped now.
    pub(super) fn mapped(&mut self, r: usize) -> bool {
        Supervisor::is_mapped(&mut self.seen, self.self_pid, &self.readers[r])
    }

    /// A queued waiter (poll-like call held).
    pub fn hold(&mut self, w: Waiter) {
        self.waiters.push(w);
    }

    fn service_waiters(&mut self) {
        let mut waiters = std::mem::take(&mut self.waiters);
        waiters.retain_mut(|w| !(w.gone(self) || w.try_answer(self)));
        waiters.append(&mut self.waiters);
        self.waiters = waiters;
    }

    fn service_deferred(&mut self) {
        let now = Instant::now();
        let deferred = std::mem::take(&mut self.deferred);
        for d in deferred {
            let due = self.next_due(d.reader);
            if due.is_some_and(|t| t > now) {
                self.deferred.push(d);
                continue;
            }
            if !self.valid(d.id) {
                continue;
            }
            let answer = self.resume(d.pid, d.id, d.reader, d.resume);
            self.send(d.id, answer);
        }
    }

    fn resume(&mut self, pid: i32, id: u64, r: usize, resume: Resume) -> Answer {
        self.produce(r);
        match resume {
            Resume::Get {
                hdr,
                hdrbytes,
                data,
                alloc,
            } => self.get_event(pid, id, r, hdr, hdrbytes, data, alloc),
            Resume::Fetch {
                nfetch_at,
                offvec,
                nfetch,
            } => self.fetch(pid, id, r, nfetch_at, offvec, nfetch),
            Resume::Read { buf, count } => self.read_event(pid, id, r, buf, count),
        }
    }
}
