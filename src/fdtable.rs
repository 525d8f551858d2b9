//! Per-process file descriptor table: what each fd of a tracee is.
//!
//! The engine updates it from the results of successful calls (open, dup,
//! close, exec's close-on-exec sweep, ...), whether or not the call is
//! printed, and falls back to `/proc/PID/fd` for fds it never saw opened
//! (inherited, or opened before `-p` attached). Decoders read it to know that
//! fd 3 is `/dev/usbmon1` or a user_events_data file. Processes that share
//! their fd table (threads, CLONE_FILES) share one `FdTable` through an `Rc`.

use crate::fasthash::IntMap;
use std::cell::RefCell;
use std::os::unix::ffi::OsStringExt;
use std::rc::Rc;

use crate::ioctl::user_events::EventDef;

/// What kind of file an fd refers to, as far as decoders care.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FdKind {
    /// Anything without special decoding.
    Other,
    /// A usbmon binary device (`/dev/usbmonN`).
    Usbmon,
    /// The user_events data file.
    UserEvents,
    /// The user_events status file (mmapped by producers before 6.4).
    UserEventsStatus,
}

/// One open fd.
#[derive(Clone, Debug)]
pub struct FdInfo {
    /// The path it was opened with, or /proc's link text: its bytes as
    /// they are (a file name need not be UTF-8, and -y shows it exactly).
    pub path: Vec<u8>,
    /// Its kind, from the path.
    pub kind: FdKind,
    /// Closed by a successful exec.
    pub cloexec: bool,
    /// Where the fd is mapped in the process's memory: (address, length).
    /// For a usbmon device this is its ring.
    pub maps: Vec<(u64, u64)>,
    /// user_events registrations on this fd: write_index -> event.
    pub events: Vec<(u32, EventDef)>,
}

impl FdInfo {
    /// The user_events event registered under `write_index` on this fd.
    pub fn event(&self, write_index: u32) -> Option<&EventDef> {
        self.events
            .iter()
            .find(|(i, _)| *i == write_index)
            .map(|(_, e)| e)
    }

    /// An fd opened on `path`.
    pub fn new(path: Vec<u8>, cloexec: bool) -> FdInfo {
        let kind = kind_of(&path);
        FdInfo {
            path,
            kind,
            cloexec,
            maps: Vec::new(),
            events: Vec::new(),
        }
    }
}

/// Classify a path for the decoders.
pub fn kind_of(path: &[u8]) -> FdKind {
    if path
        .strip_prefix(b"/dev/usbmon")
        .is_some_and(|n| !n.is_empty() && n.iter().all(|b| b.is_ascii_digit()))
    {
        FdKind::Usbmon
    } else if path.ends_with(b"/tracing/user_events_data") {
        FdKind::UserEvents
    } else if path.ends_with(b"/tracing/user_events_status") {
        FdKind::UserEventsStatus
    } else {
        FdKind::Other
    }
}

/// The fds of one process (or of the threads sharing its table).
#[derive(Clone, Debug, Default)]
pub struct FdTable {
    fds: IntMap<i32, FdInfo>,
    /// The process whose /proc entry answers for unknown fds.
    pub pid: i32,
    /// What /proc said about fds never seen opened, until the table next
    /// changes (a traced open, close or dup may make an answer stale).
    cache: RefCell<IntMap<i32, FdInfo>>,
    /// Opens and closes are not all traced (the seccomp fast path stops
    /// only selected calls): ask /proc every time, never trust the table.
    pub proc_only: bool,
}

/// A table shared by the tasks that share their fds.
pub type SharedFdTable = Rc<RefCell<FdTable>>;

impl FdTable {
    /// An empty table for `pid`, filled lazily from /proc.
    pub fn new(pid: i32) -> FdTable {
        FdTable {
            fds: IntMap::default(),
            pid,
            cache: RefCell::new(IntMap::default()),
            proc_only: false,
        }
    }

    /// What /proc/PID/fd says `fd` is.
    fn ask_proc(&self, fd: i32) -> Option<FdInfo> {
        let link = std::fs::read_link(format!("/proc/{}/fd/{fd}", self.pid)).ok()?;
        Some(FdInfo::new(link.into_os_string().into_vec(), false))
    }

    /// Apply `f` to what `fd` is: the table's entry, or /proc's answer for
    /// an fd never seen opened (remembered until the table changes).
    pub fn with<T>(&self, fd: i32, f: impl FnOnce(&FdInfo) -> T) -> Option<T> {
        if self.proc_only {
            let mut info = self.ask_proc(fd)?;
            if let Some(known) = self.fds.get(&fd) {
                // Registrations are only learnt from calls.
                info.events = known.events.clone();
            }
            return Some(f(&info));
        }
        if let Some(info) = self.fds.get(&fd) {
            return Some(f(info));
        }
        if let Some(info) = self.cache.borrow().get(&fd) {
            return Some(f(info));
        }
        let info = self.ask_proc(fd)?;
        let out = f(&info);
        self.cache.borrow_mut().insert(fd, info);
        Some(out)
    }

    /// What `fd` is, as a copy (see [`FdTable::with`]).
    pub fn get(&self, fd: i32) -> Option<FdInfo> {
        self.with(fd, FdInfo::clone)
    }

    /// What kind of file `fd` is; `Other` when unknown.
    pub fn kind(&self, fd: i32) -> FdKind {
        self.with(fd, |info| info.kind.clone())
            .unwrap_or(FdKind::Other)
    }

    /// The table changed: answers from /proc may be stale.
    fn changed(&mut self) {
        self.cache.get_mut().clear();
    }

    /// Record a newly opened fd.
    pub fn insert(&mut self, fd: i32, info: FdInfo) {
        self.changed();
        self.fds.insert(fd, info);
    }

    /// Forget a closed fd.
    pub fn remove(&mut self, fd: i32) {
        self.changed();
        self.fds.remove(&fd);
    }

    /// Forget fds in `first..=last` (close_range).
    pub fn remove_range(&mut self, first: i32, last: i32) {
        self.changed();
        self.fds.retain(|&fd, _| fd < first || fd > last);
    }

    /// `newfd` becomes a copy of `oldfd` (dup family).
    pub fn dup(&mut self, oldfd: i32, newfd: i32, cloexec: bool) {
        self.changed();
        if let Some(mut info) = self.get(oldfd) {
            info.cloexec = cloexec;
            self.fds.insert(newfd, info);
        }
    }

    /// Record that `fd` was mapped at `addr` for `len` bytes.
    pub fn mapped(&mut self, fd: i32, addr: u64, len: u64) {
        if !self.fds.contains_key(&fd)
            && let Some(info) = self.get(fd)
        {
            self.fds.insert(fd, info);
        }
        if let Some(info) = self.fds.get_mut(&fd) {
            info.maps.push((addr, len));
        }
    }

    /// Forget mappings inside `addr..addr+len` (munmap). A partial unmap
    /// keeps the mapping's remaining start, which is where the ring's
    /// offsets are counted from only if the start survives; drop otherwise.
    pub fn unmapped(&mut self, addr: u64, len: u64) {
        let end = addr.saturating_add(len);
        for info in self.fds.values_mut() {
            info.maps
                .retain(|&(a, l)| a.saturating_add(l) <= addr || a >= end || a < addr);
        }
    }

    /// Remember a user_events registration on `fd`.
    pub fn register_event(&mut self, fd: i32, write_index: u32, event: EventDef) {
        if !self.fds.contains_key(&fd)
            && let Some(info) = self.get(fd)
        {
            self.fds.insert(fd, info);
        }
        if let Some(info) = self.fds.get_mut(&fd) {
            info.events.retain(|(i, _)| *i != write_index);
            info.events.push((write_index, event));
        }
    }

    /// Apply a successful exec: close-on-exec fds are gone, and so is
    /// every mapping (a new address space).
    pub fn exec(&mut self) {
        self.changed();
        self.fds.retain(|_, info| !info.cloexec);
        for info in self.fds.values_mut() {
            info.maps.clear();
        }
    }

    /// Set or clear the close-on-exec flag (fcntl F_SETFD).
    pub fn set_cloexec(&mut self, fd: i32, cloexec: bool) {
        self.changed();
        if let Some(info) = self.fds.get_mut(&fd) {
            info.cloexec = cloexec;
        } else if let Some(mut info) = self.get(fd) {
            info.cloexec = cloexec;
            self.fds.insert(fd, info);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_from_paths() {
        assert_eq!(kind_of(b"/dev/usbmon0"), FdKind::Usbmon);
        assert_eq!(kind_of(b"/dev/usbmon"), FdKind::Other);
        assert_eq!(
            kind_of(b"/sys/kernel/tracing/user_events_data"),
            FdKind::UserEvents
        );
        assert_eq!(
            kind_of(b"/sys/kernel/debug/tracing/user_events_data"),
            FdKind::UserEvents
        );
    }

    #[test]
    fn exec_drops_cloexec_and_dup_copies() {
        let mut t = FdTable::new(0);
        t.insert(3, FdInfo::new(b"/dev/usbmon1".to_vec(), true));
        t.dup(3, 4, false);
        t.exec();
        assert!(!t.fds.contains_key(&3));
        assert_eq!(t.fds[&4].kind, FdKind::Usbmon);
    }
}
