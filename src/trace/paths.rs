//! `-P PATH` / `--trace-path` and `--trace-fds` / `-e trace-fds=`: the
//! calls that touch given files.
//!
//! A call matches when one of its parameters names a traced file: a path
//! parameter ([`Kind::Path`]) whose string equals a traced path as given
//! or, where the file exists, whose resolution (relative to its directory
//! fd or the task's working directory) is that path's canonical form; an
//! fd parameter ([`Kind::Fd`], [`Kind::DirFd`]) whose `/proc/TID/fd` link
//! (the kernel's name for the open file) or fd-table path (the name the
//! program opened it by: what an emulated device is to the program) is a
//! traced path, or whose number is in the `--trace-fds` set. The link is
//! what the kernel knows, so fds opened before tracing started match too,
//! as they do in strace. The fds a call takes inside memory count too,
//! as in strace: poll's array, select's sets, i386's old select and old
//! mmap argument blocks. The
//! decision is made at the call's entry, from the arguments as the call
//! layer sees them (an i386 socketcall's as the call it stands for); the
//! engine then treats a call that does not match as unselected: it is
//! neither printed nor counted, but its bookkeeping runs all the same.

use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;

use crate::abi::fs::AT_FDCWD;
use crate::abi::xlat::fs::FSCONFIG_CMDS;
use crate::fdtable::FdTable;
use crate::kernel::{Arch, Memory};
use crate::sysent::{Kind, Signature};

/// The longest path the kernel accepts (PATH_MAX, with its NUL).
const PATH_MAX: usize = 4096;

/// The files `-P` and `--trace-fds` restrict the trace to.
#[derive(Clone, Debug, Default)]
pub struct PathTrace {
    /// Each `-P` path as given.
    given: Vec<Vec<u8>>,
    /// The canonical form of each `-P` path that existed at start.
    canonical: Vec<Vec<u8>>,
    /// `--trace-fds`: fd numbers that match whatever they refer to.
    fds: Vec<i32>,
}

impl PathTrace {
    /// Add a `-P` path; an empty one is an error (it names nothing).
    pub fn add_path(&mut self, path: &Path) -> Result<(), String> {
        let bytes = path.as_os_str().as_bytes();
        if bytes.is_empty() {
            return Err("-P needs a path (it was empty)".into());
        }
        self.given.push(bytes.to_vec());
        if let Ok(real) = std::fs::canonicalize(path) {
            let real = real.into_os_string().into_vec();
            if !self.canonical.contains(&real) {
                self.canonical.push(real);
            }
        }
        Ok(())
    }

    /// Add a `--trace-fds` set: fd numbers separated by commas (`0,3`).
    pub fn add_fds(&mut self, spec: &str) -> Result<(), String> {
        for word in spec.split(',') {
            match word.trim().parse::<i32>() {
                Ok(fd) if fd >= 0 => self.fds.push(fd),
                _ => {
                    return Err(format!(
                        "--trace-fds: '{word}' is not a file descriptor (a number from 0 up)"
                    ));
                }
            }
        }
        Ok(())
    }

    /// Whether anything restricts the trace.
    pub fn is_active(&self) -> bool {
        !self.given.is_empty() || !self.fds.is_empty()
    }

    /// Whether a kernel or resolved name is one of the traced paths.
    fn names(&self, name: &[u8]) -> bool {
        self.given.iter().chain(&self.canonical).any(|p| p == name)
    }

    /// Whether the call `sig` with `args`, made by task `tid`, touches a
    /// traced file. `current`: /proc shows the task as it is at this call
    /// (false under the BPF engine, whose records are read later: the fd
    /// table's paths stand in for the links then).
    pub fn matches(&self, call: Entry<'_>, mem: &mut Memory, fds: &FdTable) -> bool {
        let Some(sig) = call.sig else {
            return false;
        };
        // An fd names a traced file by the kernel's name for it (the
        // /proc link), or by the name the program opened it with (the fd
        // table's): an emulated device (--usbmon-replay) is a memfd to
        // the kernel but /dev/usbmon0 to the program. Under --bpf the
        // links are no longer current: the table alone.
        let fd_names = |fd: i32| -> bool {
            fd >= 0
                && ((call.current
                    && crate::fdtable::kernel_path(call.tid, fd).is_some_and(|n| self.names(&n)))
                    || fds.with(fd, |info| self.names(&info.path)) == Some(true))
        };
        // The directory a relative path parameter is resolved from: the
        // nearest directory fd before it (openat's dirfd, renameat's
        // newdirfd for newpath), else the working directory.
        let mut dir: Option<i32> = None;
        for (i, p) in sig.params.iter().enumerate() {
            let raw = sig.value(i, call.arch, call.args) as i32;
            match p.kind {
                Kind::Fd | Kind::DirFd if NOT_FILES.contains(&(sig.name, i)) => {}
                Kind::Fd | Kind::DirFd => {
                    if p.kind == Kind::DirFd {
                        dir = Some(raw);
                    }
                    if raw >= 0 && self.fds.contains(&raw) {
                        return true;
                    }
                    if !self.given.is_empty() && fd_names(raw) {
                        return true;
                    }
                }
                Kind::Path if !self.given.is_empty() => {
                    let Some((path, _)) = mem.read_cstr(call.args[i], PATH_MAX) else {
                        continue;
                    };
                    if self.names(&path) || self.resolves(&call, dir, &path) {
                        return true;
                    }
                }
                _ => {}
            }
        }
        // The fd and path a command word says a parameter holds.
        let (fd, path) = command_files(sig.name, call.args);
        if let Some(fd) = fd
            && (self.fds.contains(&fd) || (!self.given.is_empty() && fd_names(fd)))
        {
            return true;
        }
        if let Some((addr, dir)) = path
            && !self.given.is_empty()
            && let Some((path, _)) = mem.read_cstr(addr, PATH_MAX)
            && (self.names(&path) || self.resolves(&call, Some(dir), &path))
        {
            return true;
        }
        // The fds a call takes in memory, as strace's path tracing reads
        // them too.
        memory_fds(sig.name, call.arch, call.args, mem)
            .into_iter()
            .any(|fd| self.fds.contains(&fd) || (!self.given.is_empty() && fd_names(fd)))
    }

    /// Whether `path`, as task `tid` would resolve it from directory fd
    /// `dir` (None or AT_FDCWD: its working directory), is an existing
    /// file whose canonical name is a traced path's.
    fn resolves(&self, call: &Entry<'_>, dir: Option<i32>, path: &[u8]) -> bool {
        if self.canonical.is_empty() || path.is_empty() || !call.current {
            return false;
        }
        let mut full = if path.starts_with(b"/") {
            Vec::new()
        } else {
            // /proc's links resolve to the directory the task has open.
            match dir {
                Some(fd) if fd as i64 != AT_FDCWD => {
                    format!("/proc/{}/fd/{fd}/", call.tid).into_bytes()
                }
                _ => format!("/proc/{}/cwd/", call.tid).into_bytes(),
            }
        };
        full.extend_from_slice(path);
        let full = Path::new(std::ffi::OsStr::from_bytes(&full));
        std::fs::canonicalize(full).is_ok_and(|real| {
            self.canonical
                .iter()
                .any(|c| c == real.as_os_str().as_bytes())
        })
    }
}

/// Fd parameters that are no file a call touches, as strace's path
/// tracing leaves them out too: fsconfig's `fd` is a filesystem context
/// being configured (the files it reaches are in `value` and `aux`,
/// [`command_files`]).
const NOT_FILES: &[(&str, usize)] = &[("fsconfig", 0)];

/// The fd, and the path with the directory fd it is resolved from, that
/// a parameter typed by the call's command holds (its row cannot type
/// it): fsconfig's `aux` is an fd for FSCONFIG_SET_FD, and `value` a path
/// from directory fd `aux` for FSCONFIG_SET_PATH and _PATH_EMPTY, as
/// strace's path tracing reads them.
fn command_files(name: &str, args: &[u64; 6]) -> (Option<i32>, Option<(u64, i32)>) {
    if name != "fsconfig" {
        return (None, None);
    }
    let cmd = args[1] & 0xffff_ffff;
    let aux = args[4] as i32;
    match FSCONFIG_CMDS
        .iter()
        .find(|&&(v, _)| v == cmd)
        .map(|&(_, n)| n)
    {
        Some("FSCONFIG_SET_FD") => (Some(aux), None),
        Some("FSCONFIG_SET_PATH" | "FSCONFIG_SET_PATH_EMPTY") => (Some(aux), Some((args[3], aux))),
        _ => (None, None),
    }
}

/// Most fds read from a call's memory: poll's array and select's sets
/// can be as long as the fd limit, which may be large; past this the rest
/// is not looked at.
const MEMORY_FDS_MAX: u64 = 65536;

/// The fds call `name` takes inside memory rather than as parameters:
/// poll's and ppoll's `struct pollfd` arrays, the fd sets of select,
/// `_newselect`, pselect6 (and its time64 twin), and on i386 the old
/// select's and old mmap's argument blocks (one pointer to five or six
/// words). What cannot be read is no fd.
fn memory_fds(name: &str, arch: Arch, args: &[u64; 6], mem: &mut Memory) -> Vec<i32> {
    match (name, arch) {
        ("poll" | "ppoll" | "ppoll_time64", _) => {
            let count = args[1].min(MEMORY_FDS_MAX) as usize;
            // struct pollfd: int fd; short events, revents.
            let mut raw = vec![0u8; count * 8];
            let got = mem.read(args[0], &mut raw) / 8;
            raw.chunks_exact(8)
                .take(got)
                .map(|e| i32::from_ne_bytes([e[0], e[1], e[2], e[3]]))
                .collect()
        }
        ("select", Arch::I386) => {
            // The old select: {n, inp, outp, exp, tvp}, 32-bit words.
            let mut block = [0u8; 16];
            if !mem.read_exact(args[0], &mut block) {
                return Vec::new();
            }
            let word = |i: usize| u32::from_ne_bytes(block[i * 4..i * 4 + 4].try_into().unwrap());
            let sets = [word(1) as u64, word(2) as u64, word(3) as u64];
            set_fds(word(0) as u64, &sets, mem)
        }
        ("mmap", Arch::I386) => {
            // The old mmap: {addr, len, prot, flags, fd, offset}.
            let mut fd = [0u8; 4];
            if mem.read_exact(args[0] + 16, &mut fd) {
                vec![i32::from_ne_bytes(fd)]
            } else {
                Vec::new()
            }
        }
        ("select" | "_newselect" | "pselect6" | "pselect6_time64", _) => {
            set_fds(args[0], &[args[1], args[2], args[3]], mem)
        }
        _ => Vec::new(),
    }
}

/// The fds below `nfds` in the fd sets at `sets` (NULL: none): bitmaps,
/// fd N at bit N % 8 of byte N / 8 on x86 whatever the word size.
fn set_fds(nfds: u64, sets: &[u64], mem: &mut Memory) -> Vec<i32> {
    let nfds = (nfds as i32).clamp(0, MEMORY_FDS_MAX as i32) as usize;
    let mut fds = Vec::new();
    for &addr in sets.iter().filter(|&&a| a != 0) {
        let mut bits = vec![0u8; nfds.div_ceil(8)];
        let got = mem.read(addr, &mut bits);
        fds.extend(
            (0..nfds.min(got * 8))
                .filter(|fd| bits[fd / 8] & (1 << (fd % 8)) != 0)
                .map(|fd| fd as i32),
        );
    }
    fds
}

/// A call at its entry, as [`PathTrace::matches`] needs it.
pub struct Entry<'a> {
    /// Its parameters (`None`: a call rtrace has no row for).
    pub sig: Option<&'static Signature>,
    /// Its ABI.
    pub arch: Arch,
    /// Its arguments as the kernel reads them.
    pub args: &'a [u64; 6],
    /// The calling task.
    pub tid: i32,
    /// /proc shows the task at this call (ptrace); false under --bpf.
    pub current: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_inputs_are_one_line_errors() {
        let mut t = PathTrace::default();
        assert_eq!(
            t.add_path(Path::new("")).unwrap_err(),
            "-P needs a path (it was empty)"
        );
        assert!(!t.is_active());
        assert_eq!(
            t.add_fds("3,x").unwrap_err(),
            "--trace-fds: 'x' is not a file descriptor (a number from 0 up)"
        );
        assert!(t.add_fds("-1").is_err());
        let mut t = PathTrace::default();
        t.add_fds("0, 3").unwrap();
        assert_eq!(t.fds, [0, 3]);
        t.add_path(Path::new("/")).unwrap();
        assert!(t.names(b"/"));
        assert!(!t.names(b"/x"));
    }
}
