//! Per-process file descriptor table: what each fd of a tracee is.
//!
//! The engine updates it from the results of successful calls (open, dup,
//! close, exec's close-on-exec sweep, mmap, mremap, ...), whether or not
//! the call is printed or selected (the seccomp fast path stops these
//! calls too: `service::fs::BOOKKEEPING`), and falls back to
//! `/proc/PID/fd` for fds it never saw opened (inherited, or opened before
//! `-p` attached). It is bookkeeping only: `-y` prints what the kernel
//! says at the time of printing ([`kernel_path`]), except under the BPF
//! engine where /proc no longer vouches for the call's file (then this
//! table's path, `decode::put_fd`). Decoders read it to know that
//! fd 3 is `/dev/usbmon1` or a user_events_data file. Processes that share
//! their fd table (threads, CLONE_FILES) share one `FdTable` through an `Rc`.

use crate::fasthash::IntMap;
use std::cell::RefCell;
use std::os::unix::ffi::OsStringExt;
use std::rc::Rc;

use crate::abi::user_events::EventDef;

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
    /// A netlink socket of this protocol (`NETLINK_ROUTE` is 0), from a
    /// traced `socket(AF_NETLINK, ..)` or /proc/PID/net/netlink.
    Netlink(u16),
    /// Another socket, known from its socket or accept call.
    Socket,
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
    /// Where the fd is mapped in the process's memory, oldest first. For
    /// a usbmon device this is its ring ([`FdInfo::ring`]).
    pub maps: Vec<Mapping>,
    /// user_events registrations on this fd: write_index -> event.
    pub events: Vec<(u32, EventDef)>,
    /// What the calls did to the open file description (usbmon and
    /// user_events files only): shared by every fd and process that shares
    /// the description, as the kernel shares it.
    pub file: Option<SharedFileState>,
}

/// The state of one usbmon or user_events open file description, learnt
/// from the calls rtrace saw; the diagnostics (`crate::diag`) are made from
/// it. Bookkeeping: updated for every call, printed or not.
#[derive(Debug, Default)]
pub struct FileState {
    /// rtrace saw the open, so every call on the file since is known; an
    /// fd found in /proc has a past rtrace does not know.
    pub from_open: bool,
    /// usbmon: the ring size in bytes, when known.
    pub ring_size: Option<u64>,
    /// usbmon: the address MON_IOCQ_RING_SIZE was last given (it takes
    /// none) and the 8 bytes there, which the kernel leaves as they were:
    /// a later mmap whose length is that value shows the program expected
    /// the size to be written there.
    pub size_query_arg: Option<(u64, u64)>,
    /// usbmon: events MFETCH handed out and no flush has removed yet,
    /// when known (from the open, or since the queue was last emptied).
    pub fetched: Option<u64>,
    /// usbmon: how far read(2) is into the ring's first event (the
    /// kernel's `b_read`), and that event's captured length once the
    /// header part that holds it was read.
    pub read_pos: u64,
    /// See [`FileState::read_pos`].
    pub read_len_cap: Option<u64>,
    /// user_events: the registrations made on this file.
    pub regs: Vec<Registration>,
}

/// A [`FileState`] shared by the fds of one open file description.
pub type SharedFileState = Rc<RefCell<FileState>>;

/// One successful DIAG_IOCSREG: the file's write_index for the event, and
/// the enable bit the kernel keeps up to date in the registering process.
#[derive(Clone, Debug)]
pub struct Registration {
    /// The registering process (enablers belong to its address space).
    pub tgid: i32,
    /// The event's write_index on this file.
    pub index: u32,
    /// The registration command (`name fields`), one char per byte (see
    /// diag/user_events.rs: `command_text`).
    pub command: String,
    /// The size of the struct user_reg it used: 28 and more is the 6.4
    /// layout, 20 and 24 older kernels'.
    pub size: u32,
    /// The enable word (current layout only): address, bit, size in bytes.
    pub enabler: Option<(u64, u8, u8)>,
    /// DIAG_IOCSUNREG removed the enabler: the bit is no longer updated.
    pub unregistered: bool,
}

/// One mapping of an fd, followed through mremap and partial munmap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mapping {
    /// Where the mapping's first byte was when it was made (the ring's
    /// start: MFETCH offsets count from it); moved with the mapping.
    pub base: u64,
    /// The part still mapped: `start..end`.
    pub start: u64,
    /// See [`Mapping::start`].
    pub end: u64,
}

// `MREMAP_DONTUNMAP`: the old range stays mapped.
use crate::abi::xlat::mm::MREMAP_DONTUNMAP;

/// `BUFF_DFL` of mon_bin.c: a new usbmon reader's ring size.
pub const USBMON_RING_DEFAULT: u64 = crate::abi::gen_usbmon::BUFF_DFL as u64;

impl FdInfo {
    /// The ring of a usbmon fd, as its latest mapping: (the address of
    /// ring offset 0, how far from there the mapping reaches).
    pub fn ring(&self) -> Option<(u64, u64)> {
        self.maps
            .last()
            .map(|m| (m.base, m.end.saturating_sub(m.base)))
    }

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
        let file = match kind {
            FdKind::Usbmon => Some(FileState {
                from_open: true,
                ring_size: Some(USBMON_RING_DEFAULT),
                fetched: Some(0),
                ..FileState::default()
            }),
            FdKind::UserEvents => Some(FileState {
                from_open: true,
                ..FileState::default()
            }),
            _ => None,
        };
        FdInfo {
            path,
            kind,
            cloexec,
            maps: Vec::new(),
            events: Vec::new(),
            file: file.map(|f| Rc::new(RefCell::new(f))),
        }
    }

    /// An fd whose open rtrace did not see (or saw only by its result):
    /// nothing of its past is known.
    pub fn found(path: Vec<u8>) -> FdInfo {
        let mut info = FdInfo::new(path, false);
        if info.file.is_some() {
            info.file = Some(Rc::new(RefCell::new(FileState::default())));
        }
        info
    }
}

/// What the kernel says fd `fd` of task `tid` is right now: the text of
/// the /proc/TID/fd/FD link (`/usr/lib/x86_64-linux-gnu/libc.so.6`,
/// `/tmp/f (deleted)`, `pipe:[1234]`), as `-y` prints it; nothing for a
/// negative fd or one that is not open. The task's own entry, not its
/// process's: a task that unshared its fd table has fds of its own.
pub fn kernel_path(tid: i32, fd: i32) -> Option<Vec<u8>> {
    if fd < 0 {
        return None;
    }
    let link = std::fs::read_link(format!("/proc/{tid}/fd/{fd}")).ok()?;
    Some(link.into_os_string().into_vec())
}

/// The working directory of task `tid` as the kernel names it now
/// (`/proc/TID/cwd`): what `AT_FDCWD` stands for under `-y`.
pub fn kernel_cwd(tid: i32) -> Option<Vec<u8>> {
    let link = std::fs::read_link(format!("/proc/{tid}/cwd")).ok()?;
    Some(link.into_os_string().into_vec())
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
    /// What [`FdTable::netlink_protocol`] found out, until the table
    /// changes: a socket's protocol costs a read of /proc/PID/net/netlink.
    netlink: RefCell<IntMap<i32, Option<u16>>>,
    /// The working directory as the calls rtrace saw left it (chdir,
    /// fchdir), from what /proc said when tracing began; `None` when not
    /// known. Kept with the fds, as the processes that share one (threads,
    /// a fork's copy) share the other, but for a clone with `CLONE_FS`
    /// and not `CLONE_FILES`, or the reverse.
    cwd: Option<Vec<u8>>,
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
            netlink: RefCell::new(IntMap::default()),
            cwd: None,
        }
    }

    /// The working directory as the calls rtrace saw left it, if known:
    /// what the BPF engine names a relative path by once /proc can no
    /// longer vouch for its answer (`service::fs_names`).
    pub fn cwd(&self) -> Option<&[u8]> {
        self.cwd.as_deref()
    }

    /// The working directory is now `dir` (`None`: not known).
    pub fn set_cwd(&mut self, dir: Option<Vec<u8>>) {
        self.cwd = dir;
    }

    /// What /proc/PID/fd says `fd` is; nothing for a negative one (mmap's
    /// -1, AT_FDCWD), which no process can have open.
    fn ask_proc(&self, fd: i32) -> Option<FdInfo> {
        if fd < 0 {
            return None;
        }
        let link = std::fs::read_link(format!("/proc/{}/fd/{fd}", self.pid)).ok()?;
        Some(FdInfo::found(link.into_os_string().into_vec()))
    }

    /// Apply `f` to what `fd` is: the table's entry, or /proc's answer for
    /// an fd never seen opened (remembered until the table changes).
    pub fn with<T>(&self, fd: i32, f: impl FnOnce(&FdInfo) -> T) -> Option<T> {
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

    /// The path the table itself holds for `fd` (what the calls it saw
    /// opened, in their order), never /proc's; `None` for an fd it does
    /// not know or knows no name of.
    pub fn known_path(&self, fd: i32) -> Option<Vec<u8>> {
        self.fds
            .get(&fd)
            .map(|info| info.path.clone())
            .filter(|p| !p.is_empty())
    }

    /// Whether the table itself names `fd` (/proc not asked).
    pub fn names(&self, fd: i32) -> bool {
        self.fds.get(&fd).is_some_and(|info| !info.path.is_empty())
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

    /// The netlink protocol of `fd`, if it is a netlink socket: from the
    /// socket call that made it, else looked up by the socket's inode in
    /// /proc/PID/net/netlink (a socket that predates tracing or came
    /// through SCM_RIGHTS; it is listed once bound, which its first send
    /// does); the answer is remembered until the table changes.
    pub fn netlink_protocol(&self, fd: i32) -> Option<u16> {
        if let Some(&known) = self.netlink.borrow().get(&fd) {
            return known;
        }
        /// What the table says: the answer, or a socket's inode to look up.
        enum Known {
            Answer(Option<u16>),
            Inode(u64),
        }
        let known = self.with(fd, |info| match info.kind {
            FdKind::Netlink(proto) => Known::Answer(Some(proto)),
            FdKind::Other => info
                .path
                .strip_prefix(b"socket:[")
                .and_then(|s| s.strip_suffix(b"]"))
                .and_then(|s| std::str::from_utf8(s).ok()?.parse().ok())
                .map_or(Known::Answer(None), Known::Inode),
            _ => Known::Answer(None),
        })?;
        let found = match known {
            Known::Answer(found) => return found,
            Known::Inode(inode) => {
                let path = format!("/proc/{}/net/netlink", self.pid);
                netlink_proto_of(&std::fs::read_to_string(path).ok()?, inode)
            }
        };
        self.netlink.borrow_mut().insert(fd, found);
        found
    }

    /// Record what kind of socket `fd` is (its socket call).
    pub fn set_socket(&mut self, fd: i32, kind: FdKind) {
        self.changed();
        if !self.fds.contains_key(&fd)
            && let Some(info) = self.get(fd)
        {
            self.fds.insert(fd, info);
        }
        if let Some(info) = self.fds.get_mut(&fd) {
            info.kind = kind;
        }
    }

    /// The table changed: answers from /proc may be stale.
    fn changed(&mut self) {
        self.cache.get_mut().clear();
        self.netlink.get_mut().clear();
    }

    /// Give `fd` the name /proc vouched for where the table knows none: an
    /// fd whose opening call names nothing (a pty's peer from
    /// TIOCGPTPEER, an fd received from another process), seen later as
    /// an argument. A name the table has is kept.
    pub fn learn_name(&mut self, fd: i32, path: Vec<u8>) {
        match self.fds.get_mut(&fd) {
            Some(info) if info.path.is_empty() => {
                let named = FdInfo::new(path, info.cloexec);
                info.path = named.path;
                if info.kind == FdKind::Other {
                    info.kind = named.kind;
                }
            }
            Some(_) => return,
            None => {
                self.fds.insert(fd, FdInfo::found(path));
            }
        }
        self.changed();
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
            info.maps.push(Mapping {
                base: addr,
                start: addr,
                end: addr.saturating_add(len),
            });
        }
    }

    /// Whether any fd of the table is mapped (a munmap or mremap can
    /// matter to it).
    pub fn has_maps(&self) -> bool {
        self.fds.values().any(|info| !info.maps.is_empty())
    }

    /// Forget `addr..addr+len` (munmap): a mapping it covers is gone; what
    /// is left of one it cuts stays, with its base (the ring's offsets
    /// still count from where its start was).
    pub fn unmapped(&mut self, addr: u64, len: u64) {
        let end = addr.saturating_add(len);
        for info in self.fds.values_mut() {
            info.maps = cut(&info.maps, addr, end);
        }
    }

    /// mremap moved `old..old+old_len` to `new` with `new_len` bytes (in
    /// place if `new == old`): the part of a mapping there moves, with its
    /// base, as the kernel moves the pages; the old range is unmapped
    /// unless MREMAP_DONTUNMAP. An `old_len` of 0 (a shared mapping
    /// duplicated) leaves the old mapping as it is.
    pub fn remapped(&mut self, old: u64, old_len: u64, new_len: u64, flags: u64, new: u64) {
        let old_end = old.saturating_add(old_len);
        for info in self.fds.values_mut() {
            let moved: Vec<Mapping> = info
                .maps
                .iter()
                .filter(|m| m.start <= old && old < m.end)
                .map(|m| Mapping {
                    base: m.base.wrapping_add(new.wrapping_sub(old)),
                    start: new,
                    end: new.saturating_add(new_len),
                })
                .collect();
            if moved.is_empty() {
                continue;
            }
            if old_len != 0 && flags & MREMAP_DONTUNMAP == 0 {
                info.maps = cut(&info.maps, old, old_end);
            }
            // The new range replaced whatever was mapped there.
            info.maps = cut(&info.maps, new, new.saturating_add(new_len));
            info.maps.extend(moved);
        }
    }

    /// The state of `fd`'s open file description (usbmon and user_events
    /// files), kept in the table from now on so that what the calls do to
    /// it is remembered.
    pub fn file_state(&mut self, fd: i32) -> Option<SharedFileState> {
        let info = self.get(fd)?;
        let file = info.file.clone()?;
        let keep = self
            .fds
            .get(&fd)
            .is_none_or(|known| known.file.as_ref().is_none_or(|k| !Rc::ptr_eq(k, &file)));
        if keep {
            // Not `insert`: that would clear the cache and lose nothing else.
            self.fds.insert(fd, info);
        }
        Some(file)
    }

    /// Every fd of the table and its state (the fds rtrace knows of).
    pub fn files(&self) -> impl Iterator<Item = (i32, &SharedFileState)> {
        self.fds
            .iter()
            .filter_map(|(&fd, info)| info.file.as_ref().map(|f| (fd, f)))
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
            // The kernel drops a process's enable bits with its old
            // address space; the write indexes stay with the file.
            if let Some(file) = &info.file {
                for reg in file.borrow_mut().regs.iter_mut() {
                    if reg.tgid == self.pid {
                        reg.enabler = None;
                    }
                }
            }
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

/// `maps` without `start..end`: the pieces of each mapping left outside it.
fn cut(maps: &[Mapping], start: u64, end: u64) -> Vec<Mapping> {
    let mut out = Vec::with_capacity(maps.len());
    for m in maps {
        if m.end <= start || m.start >= end {
            out.push(*m);
            continue;
        }
        if m.start < start {
            out.push(Mapping { end: start, ..*m });
        }
        if m.end > end {
            out.push(Mapping { start: end, ..*m });
        }
    }
    out
}

/// The protocol (`Eth` column) of the socket with `inode` in the text of
/// /proc/PID/net/netlink (columns: sk Eth Pid Groups Rmem Wmem Dump Locks
/// Drops Inode).
fn netlink_proto_of(table: &str, inode: u64) -> Option<u16> {
    table.lines().skip(1).find_map(|line| {
        let cols: Vec<&str> = line.split_whitespace().collect();
        (cols.len() >= 10 && cols[9].parse() == Ok(inode))
            .then(|| cols[1].parse().ok())
            .flatten()
    })
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
    fn netlink_sockets_of_this_process_are_found_in_proc() {
        use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
        // SAFETY: socket(2) with constant arguments; the fd is owned below.
        let raw = unsafe { libc::socket(libc::AF_NETLINK, libc::SOCK_RAW, 4) };
        assert!(raw >= 0);
        // SAFETY: `raw` is a fresh fd nothing else owns.
        let sock = unsafe { OwnedFd::from_raw_fd(raw) };
        // Only bound netlink sockets are listed (one that sent is bound).
        // SAFETY: a zeroed sockaddr_nl with its family set, of its size.
        let bound = unsafe {
            let mut addr: libc::sockaddr_nl = std::mem::zeroed();
            addr.nl_family = libc::AF_NETLINK as u16;
            let len = std::mem::size_of::<libc::sockaddr_nl>() as u32;
            libc::bind(raw, (&raw const addr).cast(), len)
        };
        assert_eq!(bound, 0);
        let t = FdTable::new(std::process::id() as i32);
        assert_eq!(t.netlink_protocol(sock.as_raw_fd()), Some(4));
        // What a traced socket call recorded wins, and a change forgets
        // the remembered answer.
        let mut t = t;
        t.set_socket(sock.as_raw_fd(), FdKind::Netlink(0));
        assert_eq!(t.netlink_protocol(sock.as_raw_fd()), Some(0));
        t.set_socket(sock.as_raw_fd(), FdKind::Socket);
        assert_eq!(t.netlink_protocol(sock.as_raw_fd()), None);
        let table = "sk Eth Pid\nffff 16 1 0 0 0 0 2 0 77\n";
        assert_eq!(netlink_proto_of(table, 77), Some(16));
        assert_eq!(netlink_proto_of(table, 78), None);
    }

    #[test]
    fn mappings_follow_mremap_and_partial_munmap() {
        let mut t = FdTable::new(0);
        t.insert(3, FdInfo::new(b"/dev/usbmon1".to_vec(), true));
        let ring = |t: &FdTable| t.fds[&3].ring();
        t.mapped(3, 0x10000, 0x8000);
        // Moved: offsets count from the new place.
        t.remapped(0x10000, 0x8000, 0x8000, 1, 0x40000);
        assert_eq!(ring(&t), Some((0x40000, 0x8000)));
        // Grown in place.
        t.remapped(0x40000, 0x8000, 0xc000, 0, 0x40000);
        assert_eq!(ring(&t), Some((0x40000, 0xc000)));
        // Its head unmapped: the base stays where offset 0 was.
        t.unmapped(0x40000, 0x1000);
        assert_eq!(ring(&t), Some((0x40000, 0xc000)));
        // Its tail unmapped: it reaches less far.
        t.unmapped(0x48000, 0x4000);
        assert_eq!(ring(&t), Some((0x40000, 0x8000)));
        // What is left moved: the base moves with it.
        t.remapped(0x41000, 0x7000, 0x7000, 1, 0x91000);
        assert_eq!(ring(&t), Some((0x90000, 0x8000)));
        // Kept by MREMAP_DONTUNMAP: the old range stays, the new is last.
        t.remapped(0x91000, 0x7000, 0x7000, 1 | 2 | MREMAP_DONTUNMAP, 0xa1000);
        assert_eq!(t.fds[&3].maps.len(), 2);
        assert_eq!(ring(&t), Some((0xa0000, 0x8000)));
        // All of it unmapped.
        t.unmapped(0x0, 0x100000);
        assert_eq!(ring(&t), None);
        // An mremap of memory that is no fd's mapping changes nothing.
        t.mapped(3, 0x10000, 0x1000);
        t.remapped(0x20000, 0x1000, 0x1000, 1, 0x30000);
        assert_eq!(ring(&t), Some((0x10000, 0x1000)));
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
