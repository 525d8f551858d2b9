//! What /proc says of a task: its name and arguments, its thread group
//! and threads, fields of its stat file (state, start time), its pid
//! namespace, whether it has CAP_SYS_ADMIN. Read as bytes where the
//! process chose the text (its name need not be UTF-8).

use std::fs::File;

use nix::unistd::Pid;

use crate::escape::TraceeText;

/// The `comm` name of a process, as the banner shows it: the process
/// chooses it (prctl(PR_SET_NAME)), so it is kept as [`TraceeText`].
pub fn process_name(pid: Pid) -> Option<TraceeText> {
    use std::io::Read;
    // One read: comm is at most 16 bytes and procfs hands it over whole.
    // This runs at every fork and exec, so it skips read_to_string's
    // size probe and second read.
    let mut file = std::fs::File::open(format!("/proc/{pid}/comm")).ok()?;
    let mut buf = [0u8; 64];
    let n = file.read(&mut buf).ok()?;
    let comm = buf[..n].strip_suffix(b"\n").unwrap_or(&buf[..n]);
    Some(TraceeText::new(comm))
}

/// The arguments task `pid` runs with, after its program's name
/// (`/proc/PID/cmdline` from argv[1] on): what its banner shows, so that
/// `dumpcap -D` and the capturing dumpcap can be told apart.
pub fn process_args(pid: i32) -> Option<Vec<TraceeText>> {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let cmdline = cmdline.strip_suffix(b"\0").unwrap_or(&cmdline);
    Some(
        cmdline
            .split(|&b| b == 0)
            .skip(1)
            .map(TraceeText::new)
            .collect(),
    )
}

/// Whether task `tid` is a thread of thread group `tgid`. procfs finds
/// /proc/TGID/task/TID only for a thread of that group, so one stat
/// answers; reading /proc/TID/status (its Tgid line) costs ten calls.
pub fn is_thread_of(tgid: i32, tid: i32) -> bool {
    std::fs::symlink_metadata(format!("/proc/{tgid}/task/{tid}")).is_ok()
}

/// Field `n` (numbered from 1 as in proc(5), at least 3) of
/// /proc/TID/stat. The name (field 2) is the process's own choice: it may
/// hold spaces and parentheses and need not be UTF-8, so fields are
/// counted after its last `) `.
pub fn stat_field(tid: i32, n: usize) -> Option<String> {
    let stat = std::fs::read(format!("/proc/{tid}/stat")).ok()?;
    let at = memchr::memmem::rfind(&stat, b") ")?;
    let rest = std::str::from_utf8(&stat[at + 2..]).ok()?;
    rest.split_ascii_whitespace()
        .nth(n.checked_sub(3)?)
        .map(str::to_string)
}

/// When task `tid` started, in clock ticks since boot (field 22 of
/// /proc/TID/stat): with the tid, it names one task for good.
pub fn start_time(tid: i32) -> Option<u64> {
    stat_field(tid, 22)?.parse().ok()
}

/// The threads of the thread group task `tid` belongs to (/proc/TID/task
/// lists the whole group for any of its threads); none if it is gone.
pub fn threads(tid: i32) -> Vec<i32> {
    std::fs::read_dir(format!("/proc/{tid}/task"))
        .map(|dir| {
            dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Whether task `tid` is awake: running, waiting for a CPU, or stopped
/// for its tracer to look at (state R or t in /proc/TID/stat), not asleep
/// in a call.
pub fn is_awake(tid: i32) -> bool {
    stat_field(tid, 3).is_some_and(|state| state == "R" || state == "t")
}

/// The pid namespace task `tid` is in (0: rtrace), as the link
/// /proc/TID/ns/pid names it (`pid:[4026531836]`).
pub fn pid_namespace(tid: i32) -> Option<std::path::PathBuf> {
    match tid {
        0 => std::fs::read_link("/proc/thread-self/ns/pid").ok(),
        tid => std::fs::read_link(format!("/proc/{tid}/ns/pid")).ok(),
    }
}

/// Task `tid`'s ids in the pid namespaces it is in, from the namespace
/// of /proc down to its own: the NSpid line of /proc/TID/status.
fn namespace_pids(tid: i32) -> Option<Vec<i32>> {
    // Bytes: the Name line is the process's own choice.
    let status = std::fs::read(format!("/proc/{tid}/status")).ok()?;
    let status = String::from_utf8_lossy(&status);
    let line = status.lines().find(|l| l.starts_with("NSpid:"))?;
    line.split_ascii_whitespace()
        .skip(1)
        .map(|pid| pid.parse().ok())
        .collect()
}

/// A pid namespace as the tasks in it name other tasks: how deep it is
/// below the namespace of /proc, and which one it is (the device and
/// inode of its nsfs file, as the kernel names namespaces).
pub struct PidNamespace {
    depth: usize,
    id: (u64, u64),
}

impl PidNamespace {
    /// The pid namespace task `tid` is in.
    pub fn of(tid: i32) -> Option<Self> {
        use std::os::unix::fs::MetadataExt;
        let depth = namespace_pids(tid)?.len().checked_sub(1)?;
        let ns = std::fs::metadata(format!("/proc/{tid}/ns/pid")).ok()?;
        Some(Self {
            depth,
            id: (ns.dev(), ns.ino()),
        })
    }

    /// Whether `pid`, in this namespace, names task `task` (a tid as
    /// rtrace sees it): the task is in this namespace or one nested below
    /// it, and its id at this namespace's depth is `pid`. A task of a
    /// sibling namespace (or of one below a sibling) has an id at that
    /// depth too, from another namespace: so the task's namespace is
    /// walked up to this depth (NS_GET_PARENT) and must be this one.
    pub fn names(&self, pid: i32, task: i32) -> bool {
        use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
        use std::os::unix::fs::MetadataExt;
        // The namespace first: the ids read after it are of the same
        // task unless it is gone and its tid reused in between.
        let Ok(ns) = File::open(format!("/proc/{task}/ns/pid")) else {
            return false;
        };
        let Some(pids) = namespace_pids(task) else {
            return false;
        };
        if pids.get(self.depth) != Some(&pid) {
            return false;
        }
        let mut ns = OwnedFd::from(ns);
        for _ in self.depth + 1..pids.len() {
            // SAFETY: NS_GET_PARENT takes no argument; it returns a new
            // file descriptor of the parent namespace, or -1.
            let parent = unsafe { libc::ioctl(ns.as_raw_fd(), libc::NS_GET_PARENT) };
            if parent < 0 {
                return false;
            }
            // SAFETY: `parent` was just opened for us and nothing else
            // owns it.
            ns = unsafe { OwnedFd::from_raw_fd(parent) };
        }
        File::from(ns)
            .metadata()
            .is_ok_and(|m| (m.dev(), m.ino()) == self.id)
    }
}

/// How many fds task `tid`'s fd table has room for now (`FDSize` in
/// /proc/TID/status): the most bits select's and pselect6's sets are read
/// for, whatever `nfds` says.
pub fn fd_table_size(tid: i32) -> Option<i64> {
    let status = std::fs::read(format!("/proc/{tid}/status")).ok()?;
    String::from_utf8_lossy(&status)
        .lines()
        .find_map(|l| l.strip_prefix("FDSize:"))
        .and_then(|v| v.trim().parse().ok())
        // A process that has ended (a zombie, which the BPF engine may
        // decode a call of) says 0: no table to tell, not an empty one.
        .filter(|&size| size > 0)
}

use crate::abi::xlat::resource::CAP_SYS_ADMIN;

/// Whether task `tid` (0: rtrace) has CAP_SYS_ADMIN in its own user
/// namespace: its effective set (CapEff in /proc/TID/status), which is
/// what lets it install a seccomp filter without no-new-privs.
pub fn has_cap_sys_admin(tid: i32) -> bool {
    let path = match tid {
        0 => "/proc/thread-self/status".to_string(),
        tid => format!("/proc/{tid}/status"),
    };
    // Bytes: the Name line is the task's own choice and need not be UTF-8.
    let Ok(status) = std::fs::read(path) else {
        return false;
    };
    let status = String::from_utf8_lossy(&status);
    status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
        .is_some_and(|caps| caps & (1 << CAP_SYS_ADMIN) != 0)
}

/// The fds task `pid` has open, from /proc: each with its link text and
/// whether it closes at exec (`O_CLOEXEC` among its fdinfo flags). Exact
/// only while the task is held (a started command before its exec).
pub fn open_fds(pid: i32) -> Vec<(i32, Vec<u8>, bool)> {
    use std::os::unix::ffi::OsStringExt;
    let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return Vec::new();
    };
    let mut fds: Vec<(i32, Vec<u8>, bool)> = dir
        .filter_map(|entry| {
            let fd: i32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
            let link = std::fs::read_link(format!("/proc/{pid}/fd/{fd}")).ok()?;
            // The open flags, in octal.
            let flags = u64::from_str_radix(&fdinfo(pid, fd, "flags:")?, 8).ok()?;
            let cloexec = flags & crate::abi::xlat::fs::O_CLOEXEC != 0;
            Some((fd, link.into_os_string().into_vec(), cloexec))
        })
        .collect();
    fds.sort_by_key(|&(fd, _, _)| fd);
    fds
}

/// The value of the line starting `key` in /proc/TID/fdinfo/FD, trimmed.
pub fn fdinfo(tid: i32, fd: i32, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(format!("/proc/{tid}/fdinfo/{fd}")).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix(key))
        .map(|v| v.trim().to_string())
}
