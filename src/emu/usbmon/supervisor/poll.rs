//! poll, ppoll, select and pselect6 on usbmon fds, as `mon_bin_poll`: a
//! reader is readable (POLLIN | POLLRDNORM) while its queue is not empty,
//! and never anything else. The program's fd is a memfd, which the kernel
//! would call always ready, so a call naming a usbmon fd is answered here:
//! usbmon fds by their queue (after the device produced), the other fds by
//! a zero-timeout poll(2) of the supervisor's copy of them (pidfd_getfd).
//! When nothing is ready and time is left the call is held: its other fds
//! join the supervisor's poll until one is ready, the timeout expires, or
//! the caller is gone. Calls the kernel would refuse (bad pointers, counts,
//! timeouts) and calls naming no usbmon fd are the kernel's (CONTINUE).
//! 32-bit callers' poll-like calls are left to the kernel.

use super::{Answer, Supervisor};
use crate::kernel::{vm_read, vm_write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};

/// Which call.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum PollKind {
    /// poll(fds, n, ms)
    Poll,
    /// ppoll(fds, n, timespec, sigmask, size)
    Ppoll,
    /// select(n, r, w, x, timeval)
    Select,
    /// pselect6(n, r, w, x, timespec, sigmask)
    Pselect6,
}

/// FD_SETSIZE: larger sets are left to the kernel.
const SELECT_MAX: usize = 1024;
/// Pollfds at most (more are left to the kernel).
const POLL_MAX: u64 = 4096;
const POLLIN_SET: i16 =
    libc::POLLRDNORM | libc::POLLRDBAND | libc::POLLIN | libc::POLLHUP | libc::POLLERR;
const POLLOUT_SET: i16 = libc::POLLWRBAND | libc::POLLWRNORM | libc::POLLOUT | libc::POLLERR;
const POLLEX_SET: i16 = libc::POLLPRI;

/// One entry: an fd and what is asked of it.
struct Entry {
    fd: i32,
    events: i16,
    /// Its reader, for a usbmon fd.
    reader: Option<usize>,
    /// The supervisor's copy of another fd.
    local: Option<OwnedFd>,
}

/// A poll-like call being answered.
pub struct Waiter {
    id: u64,
    pid: i32,
    kind: PollKind,
    args: [u64; 6],
    entries: Vec<Entry>,
    /// None: no timeout.
    deadline: Option<Instant>,
}

/// A poll-like call: answered now, held, or the kernel's.
pub fn call(s: &mut Supervisor, n: &libc::seccomp_notif, kind: PollKind) -> Answer {
    let mut w = Waiter {
        id: n.id,
        pid: n.pid as i32,
        kind,
        args: n.data.args,
        entries: Vec::new(),
        deadline: None,
    };
    if s.readers.is_empty() || w.read_entries().is_none() || w.read_timeout().is_none() {
        return Answer::Continue;
    }
    for e in &mut w.entries {
        e.reader = s.find_reader(w.pid, e.fd as u64);
    }
    if w.entries.iter().all(|e| e.reader.is_none()) {
        return Answer::Continue;
    }
    // SAFETY: pidfd_open of the caller; the fd is owned at once.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, w.pid, 0) } as i32;
    if pidfd < 0 {
        return Answer::Continue;
    }
    // SAFETY: pidfd is ours.
    let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd) };
    for e in &mut w.entries {
        if e.reader.is_none() && e.fd >= 0 {
            // SAFETY: pidfd_getfd takes plain values.
            let fd =
                unsafe { libc::syscall(libc::SYS_pidfd_getfd, pidfd.as_raw_fd(), e.fd, 0) } as i32;
            // SAFETY: a new fd of ours.
            e.local = (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) });
        }
    }
    if !s.valid(w.id) {
        return Answer::Done;
    }
    if !w.try_answer(s) {
        s.hold(w);
    }
    Answer::Done
}

fn ns(d: Duration) -> u64 {
    d.as_nanos() as u64
}

impl Waiter {
    /// The entries: the pollfd array, or the fds of the three sets.
    fn read_entries(&mut self) -> Option<()> {
        let a = self.args;
        if matches!(self.kind, PollKind::Poll | PollKind::Ppoll) {
            if a[1] > POLL_MAX {
                return None;
            }
            let mut raw = vec![0u8; a[1] as usize * 8];
            vm_read(self.pid, a[0], &mut raw).then_some(())?;
            for p in raw.chunks(8) {
                self.entries.push(Entry {
                    fd: i32::from_ne_bytes(p[..4].try_into().unwrap()),
                    events: i16::from_ne_bytes(p[4..6].try_into().unwrap()),
                    reader: None,
                    local: None,
                });
            }
            return Some(());
        }
        let nfds = a[0] as i32;
        if !(0..=SELECT_MAX as i32).contains(&nfds) {
            return None;
        }
        let bytes = (nfds as usize).div_ceil(64) * 8;
        let mut sets = [[0u8; SELECT_MAX / 8]; 3];
        for (s, set) in sets.iter_mut().enumerate() {
            if a[1 + s] != 0 {
                vm_read(self.pid, a[1 + s], &mut set[..bytes]).then_some(())?;
            }
        }
        for fd in 0..nfds as usize {
            let bit = |s: usize| sets[s][fd / 8] >> (fd % 8) & 1 != 0;
            let mut ev = 0;
            if bit(0) {
                ev |= POLLIN_SET;
            }
            if bit(1) {
                ev |= POLLOUT_SET;
            }
            if bit(2) {
                ev |= POLLEX_SET;
            }
            if ev != 0 {
                self.entries.push(Entry {
                    fd: fd as i32,
                    events: ev,
                    reader: None,
                    local: None,
                });
            }
        }
        Some(())
    }

    /// The deadline from the timeout argument.
    fn read_timeout(&mut self) -> Option<()> {
        let a = self.args;
        let now = Instant::now();
        let after = match self.kind {
            PollKind::Poll => {
                let ms = a[2] as i32;
                (ms >= 0).then(|| Duration::from_millis(ms as u64))
            }
            PollKind::Select => {
                if a[4] == 0 {
                    None
                } else {
                    let mut tv = [0u8; 16];
                    vm_read(self.pid, a[4], &mut tv).then_some(())?;
                    let sec = i64::from_ne_bytes(tv[..8].try_into().unwrap());
                    let usec = i64::from_ne_bytes(tv[8..].try_into().unwrap());
                    if sec < 0 || usec < 0 {
                        return None;
                    }
                    // select normalises the microseconds itself.
                    Some(Duration::from_secs(sec as u64) + Duration::from_micros(usec as u64))
                }
            }
            PollKind::Ppoll | PollKind::Pselect6 => {
                let p = if self.kind == PollKind::Ppoll {
                    a[2]
                } else {
                    a[4]
                };
                if p == 0 {
                    None
                } else {
                    let mut ts = [0u8; 16];
                    vm_read(self.pid, p, &mut ts).then_some(())?;
                    let sec = i64::from_ne_bytes(ts[..8].try_into().unwrap());
                    let nsec = i64::from_ne_bytes(ts[8..].try_into().unwrap());
                    if sec < 0 || !(0..1_000_000_000).contains(&nsec) {
                        return None;
                    }
                    Some(Duration::new(sec as u64, nsec as u32))
                }
            }
        };
        self.deadline = after.map(|d| now + d);
        Some(())
    }

    /// The readers it waits on.
    pub fn readers(&self) -> impl Iterator<Item = usize> + '_ {
        self.entries.iter().filter_map(|e| e.reader)
    }

    /// Its other fds and its deadline, for the supervisor's poll.
    pub fn pollset(&self, fds: &mut Vec<libc::pollfd>, deadline: &mut Option<Instant>) {
        for e in &self.entries {
            if let Some(l) = &e.local {
                fds.push(libc::pollfd {
                    fd: l.as_raw_fd(),
                    events: e.events,
                    revents: 0,
                });
            }
        }
        if let Some(d) = self.deadline {
            *deadline = Some(deadline.map_or(d, |x| x.min(d)));
        }
    }

    /// Whether its caller went away.
    pub fn gone(&self, s: &Supervisor) -> bool {
        !s.valid(self.id)
    }

    /// The events ready on entry `i` now.
    fn ready(&self, s: &mut Supervisor, i: usize) -> i16 {
        let e = &self.entries[i];
        if e.fd < 0 {
            return 0;
        }
        if let Some(r) = e.reader {
            s.produce(r);
            return if s.readers[r].b_cnt != 0 {
                libc::POLLIN | libc::POLLRDNORM
            } else {
                0
            };
        }
        let Some(l) = &e.local else {
            return libc::POLLNVAL;
        };
        let mut p = libc::pollfd {
            fd: l.as_raw_fd(),
            events: e.events,
            revents: 0,
        };
        // SAFETY: a zero-timeout poll of our own fd.
        if unsafe { libc::poll(&mut p, 1, 0) } == 1 {
            p.revents
        } else {
            0
        }
    }

    /// Answer if something is ready or the time is up; whether it did.
    pub fn try_answer(&mut self, s: &mut Supervisor) -> bool {
        let finish = self.deadline.is_some_and(|d| d <= Instant::now());
        let pollish = matches!(self.kind, PollKind::Poll | PollKind::Ppoll);
        let mut rev = vec![0i16; self.entries.len()];
        let mut count = 0i64;
        for (i, slot) in rev.iter_mut().enumerate() {
            let mut m = self.ready(s, i);
            let e = &self.entries[i];
            if pollish {
                m &= e.events | libc::POLLERR | libc::POLLHUP | libc::POLLNVAL;
                count += i64::from(m != 0);
            } else {
                if m & libc::POLLNVAL != 0 {
                    // select: a bad fd fails the call.
                    s.send(self.id, Answer::Err(libc::EBADF));
                    return true;
                }
                m &= e.events;
                count += i64::from(e.events & libc::POLLIN != 0 && m & POLLIN_SET != 0);
                count += i64::from(e.events & libc::POLLOUT != 0 && m & POLLOUT_SET != 0);
                count += i64::from(e.events & libc::POLLPRI != 0 && m & POLLEX_SET != 0);
            }
            *slot = m;
        }
        if count == 0 && !finish {
            return false;
        }
        let a = self.args;
        let written = if pollish {
            rev.iter()
                .enumerate()
                .all(|(i, r)| vm_write(self.pid, a[0] + 8 * i as u64 + 6, &r.to_ne_bytes()))
        } else {
            let nfds = a[0] as usize;
            let mut sets = [[0u8; SELECT_MAX / 8]; 3];
            for (e, r) in self.entries.iter().zip(&rev) {
                let (byte, bit) = (e.fd as usize / 8, 1u8 << (e.fd % 8));
                for (s, (want, got)) in [
                    (libc::POLLIN, POLLIN_SET),
                    (libc::POLLOUT, POLLOUT_SET),
                    (libc::POLLPRI, POLLEX_SET),
                ]
                .into_iter()
                .enumerate()
                {
                    if e.events & want != 0 && r & got != 0 {
                        sets[s][byte] |= bit;
                    }
                }
            }
            (0..3).all(|s| {
                a[1 + s] == 0 || vm_write(self.pid, a[1 + s], &sets[s][..nfds.div_ceil(64) * 8])
            })
        };
        if !written {
            s.send(self.id, Answer::Err(libc::EFAULT));
            return true;
        }
        // ppoll, select and pselect6 write back the time left.
        if let Some(d) = self.deadline.filter(|_| self.kind != PollKind::Poll) {
            let left = if count == 0 {
                0
            } else {
                ns(d.saturating_duration_since(Instant::now()))
            };
            let (sec, sub) = (left / 1_000_000_000, left % 1_000_000_000);
            let sub = if self.kind == PollKind::Select {
                sub / 1000
            } else {
                sub
            };
            let p = if self.kind == PollKind::Ppoll {
                a[2]
            } else {
                a[4]
            };
            let mut t = [0u8; 16];
            t[..8].copy_from_slice(&(sec as i64).to_ne_bytes());
            t[8..].copy_from_slice(&(sub as i64).to_ne_bytes());
            vm_write(self.pid, p, &t);
        }
        s.send(self.id, Answer::Val(count));
        true
    }
}
