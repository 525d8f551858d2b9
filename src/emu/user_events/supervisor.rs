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

    /// DIAG_IOCSREG (`user_events_ioctl_reg`).
    fn reg(&mut self, tid: i32, f: usize, arg: u64) -> Result<i64, i32> {
        let reg = copy_sized(tid, arg, REG::SIZEOF)?;
        let (bit, esize) = (reg[REG::ENABLE_BIT.off], reg[REG::ENABLE_SIZE.off]);
        let flags = u16::from_ne_bytes([reg[REG::FLAGS.off], reg[REG::FLAGS.off + 1]]);
        let (addr, name_args) = (
            u64_at(&reg, REG::ENABLE_ADDR.off),
            u64_at(&reg, REG::NAME_ARGS.off),
        );
        if flags & !(REG_PERSIST | REG_MULTI_FORMAT) != 0 {
            return Err(libc::EINVAL);
        }
        if esize != 4 && esize != 8 {
            return Err(libc::EINVAL);
        }
        if addr % u64::from(esize) != 0 || bit > esize * 8 - 1 {
            return Err(libc::EINVAL);
        }
        if addr
            .checked_add(u64::from(esize))
            .is_none_or(|end| end > USER_TOP)
        {
            return Err(libc::EFAULT);
        }
        let tgid = notify::tgid_of(tid);
        if !self.procs.iter().any(|p| p.tgid == tgid) {
            // SAFETY: pidfd_open takes plain values; the fd is owned at once.
            let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, tgid, 0) } as i32;
            if fd >= 0 {
                self.procs.push(Proc {
                    tgid,
                    // SAFETY: a new fd of ours.
                    pidfd: unsafe { OwnedFd::from_raw_fd(fd) },
                    mem: std::fs::File::open(format!("/proc/{tgid}/mem")).ok(),
                    probe: addr,
                });
            }
        }
        if self
            .enablers
            .iter()
            .any(|e| e.tgid == tgid && e.addr == addr && e.bit == bit)
        {
            return Err(libc::EADDRINUSE);
        }
        let cmd = match notify::read_cstr(tid, name_args, MAX_EVENT_DESC) {
            Ok(c) => c,
            Err(libc::E2BIG) => return Err(libc::EINVAL),
            Err(e) => return Err(e),
        };
        let e = self.find_or_create(tid, &cmd, flags)?;
        let Kind::Data(refs) = &mut self.files[f].kind else {
            return Err(libc::ENOTTY);
        };
        let index = match refs.iter().position(|&r| r == e) {
            Some(i) => i,
            None => {
                refs.push(e);
                self.events[e].refs += 1;
                refs.len() - 1
            }
        };
        self.put(e); // the parse's reference
        if !write_bit(tid, addr, bit, self.events[e].enabled) {
            return Err(libc::ENOMEM);
        }
        self.enablers.push(Enabler {
            tgid,
            addr,
            bit,
            ev: e,
        });
        self.events[e].refs += 1;
        vm_write(
            tid,
            arg + REG::WRITE_INDEX.off as u64,
            &(index as u32).to_ne_bytes(),
        );
        Ok(0)
    }

    /// `user_event_parse_cmd` and `user_event_parse`: the event the command
    /// names, with a reference for the caller.
    fn find_or_create(&mut self, tid: i32, cmd: &[u8], flags: u16) -> Result<usize, i32> {
        let (name, args) = match cmd.iter().position(|&b| b == b' ') {
            Some(i) => (&cmd[..i], Some(&cmd[i + 1..])),
            None => (cmd, None),
        };
        // No text flags are supported.
        if name.contains(&b':') {
            return Err(libc::EINVAL);
        }
        if flags & REG_PERSIST != 0 && !perfmon_capable(tid) {
            return Err(libc::EPERM);
        }
        let multi = flags & REG_MULTI_FORMAT != 0;
        let argv = args.map(events::argv_split).unwrap_or_default();
        for (i, e) in self.events.iter_mut().enumerate() {
            if !e.alive || (e.flags & REG_MULTI_FORMAT != 0) != multi || e.name != name {
                continue;
            }
            if events::fields_match(&e.fields, &argv) {
                e.refs += 1;
                return Ok(i);
            }
            if !multi {
                return Err(libc::EADDRINUSE);
            }
        }
        let fields = events::parse_fields(args).map_err(|_| libc::EINVAL)?;
        if self.events.iter().filter(|e| e.alive).count() >= MAX_EVENTS {
            return Err(libc::EMFILE);
        }
        let (tp_name, system) = if multi {
            let t = [name, format!(".{:x}", self.multi_id).as_bytes()].concat();
            self.multi_id += 1;
            (t, "user_events_multi")
        } else {
            (name.to_vec(), "user_events")
        };
        self.events.push(Event {
            name: name.to_vec(),
            tp_name,
            system,
            flags,
            fields,
            refs: if flags & REG_PERSIST != 0 { 2 } else { 1 },
            enabled: false,
            // The lowest ID no live event has, as the kernel's IDA
            // (alloc_trace_event_type) hands a deleted event's ID out again.
            id: (FIRST_ID..)
                .find(|i| !self.events.iter().any(|e| e.alive && e.id == *i))
                .unwrap_or(FIRST_ID),
            alive: true,
        });
        let e = self.events.len() - 1;
        // The emulated tracer records the events it was told (all by
        // default) from their creation.
        if self
            .enable
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == name))
        {
            self.set_enabled(e, true);
        }
        Ok(e)
    }

    /// DIAG_IOCSDEL (`user_events_ioctl_del`).
    fn del(&mut self, tid: i32, arg: u64) -> Result<i64, i32> {
        let name = match notify::read_cstr(tid, arg, MAX_EVENT_DESC) {
            Ok(c) => c,
            Err(libc::E2BIG) => return Err(libc::EINVAL),
            Err(e) => return Err(e),
        };
        let mut r = Err(libc::ENOENT);
        for i in 0..self.events.len() {
            let e = &self.events[i];
            if !e.alive || e.name != name {
                continue;
            }
            let persist = e.flags & REG_PERSIST != 0;
            if e.refs != u32::from(persist) {
                return Err(libc::EBUSY);
            }
            if persist && !perfmon_capable(tid) {
                return Err(libc::EPERM);
            }
            self.events[i].alive = false;
            r = Ok(0);
        }
        r
    }

    /// DIAG_IOCSUNREG (`user_events_ioctl_unreg`).
    fn unreg(&mut self, tid: i32, arg: u64) -> Result<i64, i32> {
        let u = copy_sized(tid, arg, UNREG::SIZEOF)?;
        if UNREG::__RESERVED.read(&u) != Some(0) || UNREG::__RESERVED2.read(&u) != Some(0) {
            return Err(libc::EINVAL);
        }
        let (bit, addr) = (
            u[UNREG::DISABLE_BIT.off],
            u64_at(&u, UNREG::DISABLE_ADDR.off),
        );
        let tgid = notify::tgid_of(tid);
        if !self.procs.iter().any(|p| p.tgid == tgid) {
            return Err(libc::ENOENT);
        }
        let gone: Vec<usize> = self
            .enablers
            .iter()
            .filter(|e| e.tgid == tgid && e.addr == addr && e.bit == bit)
            .map(|e| e.ev)
            .collect();
        if gone.is_empty() {
            return Err(libc::ENOENT);
        }
        self.enablers
            .retain(|e| !(e.tgid == tgid && e.addr == addr && e.bit == bit));
        for e in gone {
            self.put(e);
        }
        if write_bit(tid, addr, bit, false) {
            Ok(0)
        } else {
            Err(libc::EFAULT)
        }
    }

    /// writev: the vfs's checks, then [`Supervisor::write`] on the segments
    /// (a 32-bit caller's iovecs are two 32-bit words).
    fn writev(
        &mut self,
        tid: i32,
        f: usize,
        uiov: u64,
        vlen: u64,
        compat: bool,
    ) -> Result<i64, i32> {
        if !self.files[f].writable {
            return Err(libc::EBADF);
        }
        if vlen > UIO_MAXIOV {
            return Err(libc::EINVAL);
        }
        if vlen == 0 {
            return Ok(0);
        }
        let width = if compat { 8 } else { 16 };
        let mut raw = vec![0u8; vlen as usize * width];
        if !vm_read(tid, uiov, &mut raw) {
            return Err(libc::EFAULT);
        }
        let mut segs = Vec::new();
        let mut total = 0u64;
        for c in raw.chunks(width) {
            let (base, len) = if compat {
                // compat_iovec: a negative length is one with the top
                // bit set once sign-extended (iov_iter's check).
                let len = u32_at(c, 4) as i32;
                (u64::from(u32_at(c, 0)), len as i64 as u64)
            } else {
                (u64_at(c, 0), u64_at(c, 8))
            };
            if (len as i64) < 0 {
                return Err(libc::EINVAL);
            }
            if base.checked_add(len).is_none_or(|end| end > USER_TOP) {
                return Err(libc::EFAULT);
            }
            let len = len.min(MAX_RW_COUNT - total);
            segs.push((base, len));
            total += len;
        }
        if total == 0 {
            return Ok(0);
        }
        self.write(tid, f, &segs, true)
    }

    /// write(2) on an emulated file; `vectored`: the segments are checked
    /// already.
    fn write(
        &mut self,
        tid: i32,
        f: usize,
        segs: &[(u64, u64)],
        vectored: bool,
    ) -> Result<i64, i32> {
        if !self.files[f].writable {
            return Err(libc::EBADF);
        }
        let segs: Vec<(u64, u64)> = if vectored {
            segs.to_vec()
        } else {
            let (buf, count) = (segs[0].0, segs[0].1.min(MAX_RW_COUNT));
            if buf.checked_add(count).is_none_or(|end| end > USER_TOP) {
                return Err(libc::EFAULT);
            }
            vec![(buf, count)]
        };
        let count: u64 = segs.iter().map(|s| s.1).sum();
        match self.files[f].kind {
            Kind::Enable(e) => self.enable_write(tid, e, &segs),
            Kind::Data(_) => self.data_write(tid, f, &segs, count),
        }
    }

    /// `event_enable_write`: "0" or "1" (each segment a write of its own,
    /// as for a file without write_iter).
    fn enable_write(&mut self, tid: i32, e: usize, segs: &[(u64, u64)]) -> Result<i64, i32> {
        let mut sum = 0i64;
        for &(base, len) in segs.iter().filter(|s| s.1 > 0) {
            let r = (|| {
                let mut tmp = vec![0u8; len.min(24) as usize];
                if !vm_read(tid, base, &mut tmp) {
                    return Err(libc::EFAULT);
                }
                let v = events::kstrtoull(&tmp, 10).ok_or(libc::EINVAL)?;
                if v > 1 {
                    return Err(libc::EINVAL);
                }
                if !self.events[e].alive {
                    return Err(libc::ENODEV);
                }
                self.set_enabled(e, v == 1);
                Ok(len as i64)
            })();
            match r {
                Ok(n) => sum += n,
                Err(err) if sum == 0 => return Err(err),
                Err(_) => break,
            }
        }
        Ok(sum)
    }

    /// `count` bytes at byte `off` of the segments.
    fn gather(tid: i32, segs: &[(u64, u64)], mut off: u64, len: u64) -> Option<Vec<u8>> {
        let mut out = Vec::with_capacity(len as usize);
        for &(base, n) in segs {
            if out.len() as u64 == len {
                break;
            }
            if off >= n {
                off -= n;
                continue;
            }
            let take = (n - off).min(len - out.len() as u64);
            let mut buf = vec![0u8; take as usize];
            if !vm_read(tid, base + off, &mut buf) {
                return None;
            }
            out.extend_from_slice(&buf);
            off = 0;
        }
        (out.len() as u64 == len).then_some(out)
    }

    /// `user_events_write_core`, and the record ftrace keeps.
    fn data_write(
        &mut self,
        tid: i32,
        f: usize,
        segs: &[(u64, u64)],
        count: u64,
    ) -> Result<i64, i32> {
        if count < 4 {
            return Err(libc::EFAULT);
        }
        let idx = Self::gather(tid, segs, 0, 4).ok_or(libc::EFAULT)?;
        let idx = i32::from_ne_bytes(idx[..4].try_into().unwrap());
        if idx < 0 {
            return Err(libc::EINVAL);
        }
        let Kind::Data(refs) = &self.files[f].kind else {
            return Err(libc::EBADF);
        };
        let e = *refs.get(idx as usize).ok_or(libc::ENOENT)?;
        let plen = count - 4;
        let ev = &self.events[e];
        if plen < ev.min_size() as u64 {
            return Err(libc::EINVAL);
        }
        if !ev.enabled {
            return Err(libc::EBADF);
        }
        let payload = Self::gather(tid, segs, 4, plen).ok_or(libc::EFAULT)?;
        if ENTRY + payload.len() > RB_MAX_DATA {
            // Too big for the ring buffer: dropped, the write succeeds.
            return Ok(count as i64);
        }
        let data = ftrace::entry(ev.id, tid, &payload);
        for fl in &ev.fields {
            if fl.loc == Loc::None {
                continue;
            }
            let word = u32_at(&data, fl.offset);
            let (off, size) = ((word & 0xffff) as usize, (word >> 16) as usize);
            let pos = if fl.loc == Loc::Rel {
                fl.offset + 4 + off
            } else {
                off
            } + size;
            if pos > data.len() || (fl.ensure_null() && (pos == 0 || data[pos - 1] != 0)) {
                return Err(libc::EFAULT);
            }
        }
        let record = Record {
            tid,
            comm: std::fs::read_to_string(format!("/proc/{tid}/comm"))
                .map(|c| c.trim_end_matches('\n').to_string())
                .unwrap_or_else(|_| "<...>".into()),
            cpu: cpu_of(tid),
            ns: monotonic_ns(),
            event: String::from_utf8_lossy(&ev.tp_name).into_owned(),
            fields: ev.fields.clone(),
            data,
        };
        if let Ok(mut r) = self.records.lock() {
            r.push(record);
        }
        Ok(count as i64)
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
