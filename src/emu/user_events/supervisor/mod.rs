//! The supervisor: answers the command's open, openat, ioctl, write and
//! writev calls on the emulated tracefs files as trace_events_user.c
//! would, and lets every other call run (CONTINUE).
//!
//! An open of `user_events_data` or of a writable `enable` file installs
//! the write end of a fresh pipe in the program (SECCOMP_IOCTL_NOTIF_ADDFD)
//! and keeps the read end: the pipe's inode tells the file description in
//! any process (`/proc/TID/fd/N`), and the read end's POLLHUP tells when
//! its last reference is closed, when the kernel releases the file and
//! puts its events. `user_events_status`, `format` and a read-only
//! `enable` are memfds holding the text at the open.

use super::events::{self, ENTRY, Event, Loc, REG_MULTI_FORMAT, REG_PERSIST};
use super::ftrace::{self, Record};
use super::paths::{Target, fifo_of, memfd_with, target};
use crate::emu::notify::{self, AUDIT_ARCH_I386, AUDIT_ARCH_X86_64, Answer};
use crate::kernel::{vm_read, vm_write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::{Arc, Mutex};

mod ioctls;
mod writes;

/// `MAX_EVENT_DESC`: the command's room (with its NUL).
const MAX_EVENT_DESC: usize = 512;
/// `kernel.user_events_max`'s default.
const MAX_EVENTS: usize = 32768;
/// The ring buffer's largest record: bigger ones are dropped.
const RB_MAX_DATA: usize = 4072;
/// x86_64's TASK_SIZE_MAX with 4-level paging: `access_ok`'s limit.
const USER_TOP: u64 = 0x7fff_ffff_f000;
/// `MAX_RW_COUNT`.
const MAX_RW_COUNT: u64 = 0x7fff_f000;
use crate::abi::xlat::fs::UIO_MAXIOV;
const PAGE: u32 = 4096;
/// `DIAG_IOCSREG`, `DIAG_IOCSDEL`, `DIAG_IOCSUNREG`: the decoder's codes.
use crate::abi::gen_user_events::{
    DIAG_IOCSDEL, DIAG_IOCSREG, DIAG_IOCSUNREG, user_reg as REG, user_unreg as UNREG,
};
/// The first id given to an event (dynamic trace event types start above
/// the static ones).
const FIRST_ID: u32 = 1000;

/// A handed-over call, of either ABI.
#[derive(Clone, Copy, PartialEq)]
enum Call {
    Openat,
    Open,
    Ioctl,
    Write,
    Writev,
    Other,
}

impl Call {
    /// The call numbered `nr` in the caller's ABI.
    fn of(nr: i32, compat: bool) -> Call {
        let nr = i64::from(nr);
        let table: [(i64, Call); 5] = if compat {
            use syscalls::x86::Sysno as S;
            [
                (S::openat as i64, Call::Openat),
                (S::open as i64, Call::Open),
                (S::ioctl as i64, Call::Ioctl),
                (S::write as i64, Call::Write),
                (S::writev as i64, Call::Writev),
            ]
        } else {
            [
                (libc::SYS_openat, Call::Openat),
                (libc::SYS_open, Call::Open),
                (libc::SYS_ioctl, Call::Ioctl),
                (libc::SYS_write, Call::Write),
                (libc::SYS_writev, Call::Writev),
            ]
        };
        table
            .iter()
            .find(|(n, _)| *n == nr)
            .map_or(Call::Other, |&(_, c)| c)
    }
}

/// What an emulated file description is.
enum Kind {
    /// `user_events_data`: the events registered on it, by write_index.
    Data(Vec<usize>),
    /// An event's `enable` file, open for writing.
    Enable(usize),
}

/// One emulated file description.
struct File {
    kind: Kind,
    /// The read end of the placeholder pipe.
    rfd: OwnedFd,
    ino: (u64, u64),
    writable: bool,
}

/// An enable bit the kernel keeps up to date (`struct user_event_enabler`).
struct Enabler {
    tgid: i32,
    addr: u64,
    bit: u8,
    ev: usize,
}

/// A process that registered (`user_event_mm`): its pidfd (POLLHUP at its
/// exit) and its memory as it was then: an open `/proc/PID/mem` holds that
/// mm, and a read from it finds nothing (0 bytes) once the mm has no user
/// left, which an exec makes happen (the kernel's `user_events_execve`
/// drops the process's enablers then, as at its exit).
struct Proc {
    tgid: i32,
    pidfd: OwnedFd,
    mem: Option<std::fs::File>,
    /// An address that was mapped (the first enable word).
    probe: u64,
}

impl Proc {
    /// Whether the process exited or exec'd since it registered.
    fn gone(&self) -> bool {
        use std::os::unix::fs::FileExt;
        Supervisor::hup(self.pidfd.as_raw_fd())
            || self
                .mem
                .as_ref()
                .is_some_and(|m| matches!(m.read_at(&mut [0u8], self.probe), Ok(0)))
    }
}

/// The emulated kernel's state.
pub struct Supervisor {
    listener: OwnedFd,
    events: Vec<Event>,
    files: Vec<File>,
    enablers: Vec<Enabler>,
    /// Processes that registered (`user_event_mm`).
    procs: Vec<Proc>,
    multi_id: u64,
    records: Arc<Mutex<Vec<Record>>>,
    /// The events the tracer records from their creation; None: all.
    enable: Option<Arc<Vec<Vec<u8>>>>,
}

/// Serve `listener` until no filtered process is left.
pub fn serve(
    listener: OwnedFd,
    records: Arc<Mutex<Vec<Record>>>,
    enable: Option<Arc<Vec<Vec<u8>>>>,
) {
    let mut s = Supervisor {
        listener,
        events: Vec::new(),
        files: Vec::new(),
        enablers: Vec::new(),
        procs: Vec::new(),
        multi_id: 0,
        records,
        enable,
    };
    s.run();
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_ne_bytes(b[at..at + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_ne_bytes(b[at..at + 8].try_into().unwrap())
}

/// `copy_struct_from_user` of `ksize` bytes from a `usize`-byte struct.
fn copy_struct(pid: i32, addr: u64, ksize: usize, usize_: usize) -> Result<Vec<u8>, i32> {
    let mut dst = vec![0u8; ksize];
    if usize_ > ksize {
        let mut rest = vec![0u8; usize_ - ksize];
        if !vm_read(pid, addr + ksize as u64, &mut rest) {
            return Err(libc::EFAULT);
        }
        if rest.iter().any(|&b| b != 0) {
            return Err(libc::E2BIG);
        }
    }
    let n = usize_.min(ksize);
    if !vm_read(pid, addr, &mut dst[..n]) {
        return Err(libc::EFAULT);
    }
    Ok(dst)
}

/// A struct that starts with its own `u32 size` (user_reg, user_unreg):
/// copied as the kernel's `user_reg_get`/`user_unreg_get` do, refusing a
/// size above a page (E2BIG) or below the first layout's `min` (EINVAL).
fn copy_sized(pid: i32, addr: u64, min: usize) -> Result<Vec<u8>, i32> {
    let mut size = [0u8; 4];
    if !vm_read(pid, addr, &mut size) {
        return Err(libc::EFAULT);
    }
    let size = u32::from_ne_bytes(size);
    if size > PAGE {
        return Err(libc::E2BIG);
    }
    if (size as usize) < min {
        return Err(libc::EINVAL);
    }
    copy_struct(pid, addr, min, size as usize)
}

/// Set or clear bit `bit` of the enable word at `addr` (the byte that
/// holds it: x86_64 is little-endian).
fn write_bit(pid: i32, addr: u64, bit: u8, set: bool) -> bool {
    let at = addr + u64::from(bit / 8);
    let mut b = [0u8];
    if !vm_read(pid, at, &mut b) {
        return false;
    }
    if set {
        b[0] |= 1 << (bit % 8);
    } else {
        b[0] &= !(1 << (bit % 8));
    }
    vm_write(pid, at, &b)
}

/// CAP_PERFMON or CAP_SYS_ADMIN in the caller's effective set.
fn perfmon_capable(tid: i32) -> bool {
    let caps = std::fs::read_to_string(format!("/proc/{tid}/status"))
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| {
                l.strip_prefix("CapEff:")
                    .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
            })
        })
        .unwrap_or(0);
    caps >> 38 & 1 == 1 || caps >> 21 & 1 == 1
}

impl Supervisor {
    fn run(&mut self) {
        loop {
            let lfd = self.listener.as_raw_fd();
            let mut fds = vec![libc::pollfd {
                fd: lfd,
                events: libc::POLLIN,
                revents: 0,
            }];
            // SAFETY: poll on our own array.
            let n = unsafe { libc::poll(fds.as_mut_ptr(), 1, -1) };
            if n < 0 {
                if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                return;
            }
            if fds[0].revents & libc::POLLIN != 0 {
                // A file closed or a process gone before this call came
                // is released first, as in the kernel.
                self.reap();
                if let Some(req) = notify::recv(lfd) {
                    let answer = self.handle(&req);
                    notify::send(lfd, req.id, answer);
                }
            } else if fds[0].revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
                return; // no filtered process is left
            }
        }
    }

    fn hup(fd: i32) -> bool {
        let mut p = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: poll on one local pollfd.
        unsafe { libc::poll(&mut p, 1, 0) == 1 && p.revents != 0 }
    }

    /// Release the files whose last fd went and forget the enablers of
    /// processes that exited.
    fn reap(&mut self) {
        while let Some(i) = self.files.iter().position(|f| Self::hup(f.rfd.as_raw_fd())) {
            let f = self.files.remove(i);
            if let Kind::Data(refs) = f.kind {
                for e in refs {
                    self.put(e);
                }
            }
        }
        while let Some(i) = self.procs.iter().position(Proc::gone) {
            let tgid = self.procs.remove(i).tgid;
            let gone: Vec<usize> = self
                .enablers
                .iter()
                .filter(|e| e.tgid == tgid)
                .map(|e| e.ev)
                .collect();
            self.enablers.retain(|e| e.tgid != tgid);
            for e in gone {
                self.put(e);
            }
        }
    }

    /// `user_event_put`: the last reference of a non-persistent event
    /// deletes it.
    fn put(&mut self, e: usize) {
        let ev = &mut self.events[e];
        ev.refs = ev.refs.saturating_sub(1);
        if ev.refs == 0 && ev.flags & REG_PERSIST == 0 {
            ev.alive = false;
        }
    }

    /// A tracer attaches to (`on`) or lets go of event `e`.
    fn set_enabled(&mut self, e: usize, on: bool) {
        if self.events[e].enabled == on {
            return;
        }
        self.events[e].enabled = on;
        if on {
            self.events[e].refs += 1;
        }
        for en in self.enablers.iter().filter(|en| en.ev == e) {
            write_bit(en.tgid, en.addr, en.bit, on);
        }
        if !on {
            self.put(e);
        }
    }

    fn file_of(&self, tid: i32, fd: u64) -> Option<usize> {
        let ino = fifo_of(tid, fd)?;
        self.files.iter().position(|f| f.ino == ino)
    }

    fn handle(&mut self, n: &libc::seccomp_notif) -> Answer {
        let compat = n.data.arch == AUDIT_ARCH_I386;
        if !compat && n.data.arch != AUDIT_ARCH_X86_64 {
            return Answer::Continue;
        }
        // A 32-bit caller's arguments are 32-bit words.
        let a = if compat {
            n.data.args.map(|x| x & 0xffff_ffff)
        } else {
            n.data.args
        };
        let tid = n.pid as i32;
        let call = Call::of(n.data.nr, compat);
        match call {
            Call::Openat => return self.open(tid, n.id, a[1], a[2] as i32),
            Call::Open => return self.open(tid, n.id, a[0], a[1] as i32),
            Call::Other => return Answer::Continue,
            _ => {}
        }
        let Some(f) = self.file_of(tid, a[0]) else {
            return Answer::Continue;
        };
        if !notify::valid(self.listener.as_raw_fd(), n.id) {
            return Answer::Done;
        }
        let r = match call {
            Call::Ioctl => {
                let cmd = a[1] as u32;
                // Generic ioctls act on the fd: the kernel's.
                if [libc::FIOCLEX, libc::FIONCLEX, libc::FIONBIO, libc::FIOASYNC]
                    .contains(&u64::from(cmd))
                {
                    return Answer::Continue;
                }
                match (&self.files[f].kind, cmd) {
                    // user_data_fops has no compat_ioctl: compat_sys_ioctl
                    // answers ENOTTY to every request of a 32-bit caller.
                    _ if compat => Err(libc::ENOTTY),
                    (Kind::Data(_), DIAG_IOCSREG) => self.reg(tid, f, a[2]),
                    (Kind::Data(_), DIAG_IOCSDEL) => self.del(tid, a[2]),
                    (Kind::Data(_), DIAG_IOCSUNREG) => self.unreg(tid, a[2]),
                    _ => Err(libc::ENOTTY),
                }
            }
            Call::Write => self.write(tid, f, &[(a[1], a[2])], false),
            Call::Writev => self.writev(tid, f, a[1], a[2], compat),
            _ => return Answer::Continue,
        };
        match r {
            Ok(v) => Answer::Val(v),
            Err(e) => Answer::Err(e),
        }
    }

    fn open(&mut self, tid: i32, id: u64, upath: u64, flags: i32) -> Answer {
        let Ok(path) = notify::read_cstr(tid, upath, 4096) else {
            return Answer::Continue;
        };
        let Some(t) = target(&path) else {
            return Answer::Continue;
        };
        if flags & libc::O_PATH != 0 {
            return Answer::Continue;
        }
        let event = match &t {
            Target::EventFile(sys, name, _) => {
                match self.events.iter().position(|e| {
                    e.alive && e.system.as_bytes() == sys.as_slice() && &e.tp_name == name
                }) {
                    Some(e) => Some(e),
                    None => return Answer::Err(libc::ENOENT),
                }
            }
            _ => None,
        };
        if flags & (libc::O_CREAT | libc::O_EXCL) == libc::O_CREAT | libc::O_EXCL {
            return Answer::Err(libc::EEXIST);
        }
        if flags & libc::O_DIRECTORY != 0 {
            return Answer::Err(libc::ENOTDIR);
        }
        let writable = (flags + 1) & 2 != 0;
        let cloexec = flags & libc::O_CLOEXEC != 0;
        let lfd = self.listener.as_raw_fd();
        let text = match (&t, event) {
            (Target::Trace, _) => {
                let Ok(mut records) = self.records.lock() else {
                    return Answer::Err(libc::ENOMEM);
                };
                // tracing_open: opened for writing with O_TRUNC (`echo >
                // trace`) empties the buffer; writes are then accepted
                // and ignored (the memfd takes them).
                if writable && flags & libc::O_TRUNC != 0 {
                    records.clear();
                }
                // Each record is rendered with the event that has its type
                // now: a deleted event's records are `Unknown type ID`, or
                // another event's once the ID is handed out again (the
                // e2e suite's real kernel shows both).
                let live = &self.events;
                Some(ftrace::trace_file(&records, |r| {
                    live.iter()
                        .find(|e| e.alive && e.id as u16 == r.type_id())
                        .map(|e| {
                            (
                                String::from_utf8_lossy(&e.tp_name).into_owned(),
                                e.fields.clone(),
                            )
                        })
                }))
            }
            (Target::Status, _) => {
                Some(events::status_file(self.events.iter().filter(|e| e.alive)))
            }
            (Target::EventFile(_, _, false), Some(e)) => Some(self.events[e].format_file()),
            (Target::EventFile(_, _, true), Some(e)) if !writable => {
                Some(format!("{}\n", u8::from(self.events[e].enabled)))
            }
            _ => None,
        };
        if let Some(text) = text {
            let Some(fd) = memfd_with(&text) else {
                return Answer::Err(libc::ENOMEM);
            };
            return match notify::add_fd(lfd, id, fd.as_raw_fd(), cloexec) {
                Ok(_) | Err(libc::ENOENT) => Answer::Done,
                Err(e) => Answer::Err(e),
            };
        }
        let kind = match event {
            Some(e) => Kind::Enable(e),
            None => Kind::Data(Vec::new()),
        };
        let mut p = [0; 2];
        // SAFETY: pipe2 writes two fds.
        if unsafe { libc::pipe2(p.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
            return Answer::Err(libc::ENFILE);
        }
        // SAFETY: both are ours.
        let (rfd, wfd) = unsafe { (OwnedFd::from_raw_fd(p[0]), OwnedFd::from_raw_fd(p[1])) };
        let Ok(meta) = std::fs::File::from(rfd.try_clone().expect("dup")).metadata() else {
            return Answer::Err(libc::ENOMEM);
        };
        use std::os::unix::fs::MetadataExt;
        let file = File {
            kind,
            rfd,
            ino: (meta.dev(), meta.ino()),
            writable,
        };
        match notify::add_fd(lfd, id, wfd.as_raw_fd(), cloexec) {
            Ok(_) => {
                self.files.push(file);
                Answer::Done
            }
            Err(libc::ENOENT) => Answer::Done,
            Err(e) => Answer::Err(e),
        }
    }
}

/// The CPU task `tid` last ran on (field 39 of /proc/TID/stat).
fn cpu_of(tid: i32) -> u32 {
    std::fs::read_to_string(format!("/proc/{tid}/stat"))
        .ok()
        .and_then(|s| {
            let rest = &s[s.rfind(')')? + 1..];
            rest.split_ascii_whitespace().nth(36)?.parse().ok()
        })
        .unwrap_or(0)
}

fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the local timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}
