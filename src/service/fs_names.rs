//! The name the fd table keeps for an fd an open returned, under the BPF
//! engine: the process ran on before rtrace read the call, so by then
//! the fd may have been closed and opened again on another file. /proc's
//! name is taken only while it still leads to the file the kernel saw the
//! call return (its identity, copied with the call's exit); otherwise the
//! path the program gave, made absolute by a directory whose name is
//! known (an fd's, or the working directory: /proc's while it still
//! leads to the call's, else the one the traced chdir calls left);
//! otherwise none (the fd is known to be open, unnamed). Without
//! identities (no option names fds by path) the program's path, and
//! /proc's unchecked for one relative to the working directory.

use crate::abi::fs::AT_FDCWD;
use crate::fdtable::FdTable;
use crate::kernel::Memory;

/// The name for new fd `fd` of the open call `mem` holds, opened by
/// `path` (relative to `dirfd` where the call takes one).
pub fn opened(
    fds: &FdTable,
    mem: &Memory,
    fd: i32,
    path: Option<&[u8]>,
    dirfd: Option<i32>,
) -> Vec<u8> {
    if let Some(name) = crate::kernel::fds::vouched_path(mem, fd) {
        return name;
    }
    let Some(path) = path.filter(|p| !p.is_empty()) else {
        return Vec::new();
    };
    let own = |path: Vec<u8>| own_proc(path, fds.pid, mem.pid().as_raw());
    if path.starts_with(b"/") {
        return own(path.to_vec());
    }
    let dir = match dirfd {
        Some(d) if i64::from(d) != AT_FDCWD => fds.known_path(d),
        _ => crate::kernel::fds::vouched_cwd(mem).or_else(|| fds.cwd().map(<[u8]>::to_vec)),
    };
    if let Some(dir) = dir {
        return own(joined(&dir, path));
    }
    if mem.file_id(fd).is_none() {
        // The kernel sent no identities (nothing names fds by path): the
        // name serves the decoders only (a device opened relative to the
        // working directory), and /proc's, unchecked, is the best there is.
        return crate::fdtable::kernel_path(fds.pid, fd).unwrap_or_default();
    }
    Vec::new()
}

/// The working directory after a successful `chdir(path)` (`fd`:
/// `fchdir(fd)`): `path` itself if absolute, else under the directory
/// before it; `None` where that is not known.
pub fn changed_directory(fds: &FdTable, path: Option<&[u8]>, fd: Option<i32>) -> Option<Vec<u8>> {
    if let Some(fd) = fd {
        return fds.known_path(fd).filter(|p| p.starts_with(b"/"));
    }
    let path = path?;
    if path.starts_with(b"/") {
        return Some(joined(b"/", path));
    }
    Some(joined(fds.cwd()?, path))
}

/// `path` with /proc's links to the caller resolved as the kernel resolved
/// them for process `tgid`'s task `tid`: `/proc/self` is its
/// `/proc/TGID`, `/proc/thread-self` its `/proc/TGID/task/TID` (read by
/// rtrace, they would name rtrace's own files).
fn own_proc(path: Vec<u8>, tgid: i32, tid: i32) -> Vec<u8> {
    let (rest, own) = if let Some(rest) = path.strip_prefix(b"/proc/self") {
        (rest, format!("/proc/{tgid}"))
    } else if let Some(rest) = path.strip_prefix(b"/proc/thread-self") {
        (rest, format!("/proc/{tgid}/task/{tid}"))
    } else {
        return path;
    };
    if !rest.is_empty() && !rest.starts_with(b"/") {
        return path;
    }
    [own.as_bytes(), rest].concat()
}

/// `path` under directory `dir`, as the kernel resolved it (no `.`
/// components; `..` and symlinks left as they are: still a name of the
/// file, if not the kernel's own).
fn joined(dir: &[u8], path: &[u8]) -> Vec<u8> {
    let mut out = dir.to_vec();
    for part in path.split(|&b| b == b'/') {
        if part.is_empty() || part == b"." {
            continue;
        }
        if out.last() != Some(&b'/') {
            out.push(b'/');
        }
        out.extend_from_slice(part);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relative_path_is_joined_without_dots() {
        assert_eq!(
            joined(b"/usr/include", b"linux/fs.h"),
            b"/usr/include/linux/fs.h"
        );
        assert_eq!(joined(b"/", b"./etc//hosts"), b"/etc/hosts");
        assert_eq!(joined(b"/tmp/", b"../x"), b"/tmp/../x");
        assert_eq!(joined(b"/tmp", b"."), b"/tmp");
    }

    #[test]
    fn proc_self_is_the_callers_own() {
        let own = |p: &[u8]| own_proc(p.to_vec(), 40, 42);
        assert_eq!(own(b"/proc/self/maps"), b"/proc/40/maps");
        assert_eq!(own(b"/proc/self"), b"/proc/40");
        assert_eq!(own(b"/proc/thread-self/comm"), b"/proc/40/task/42/comm");
        assert_eq!(own(b"/proc/selfish"), b"/proc/selfish");
        assert_eq!(own(b"/proc/1/maps"), b"/proc/1/maps");
    }

    #[test]
    fn the_working_directory_follows_chdir_and_fchdir() {
        use crate::fdtable::FdInfo;
        let mut fds = FdTable::new(0);
        // Unknown until tracing began somewhere known.
        assert_eq!(changed_directory(&fds, Some(b"d"), None), None);
        assert_eq!(
            changed_directory(&fds, Some(b"/srv//data"), None).as_deref(),
            Some(&b"/srv/data"[..])
        );
        fds.set_cwd(Some(b"/home/u".to_vec()));
        assert_eq!(
            changed_directory(&fds, Some(b"./src"), None).as_deref(),
            Some(&b"/home/u/src"[..])
        );
        fds.insert(5, FdInfo::new(b"/var/log".to_vec(), false));
        assert_eq!(
            changed_directory(&fds, None, Some(5)).as_deref(),
            Some(&b"/var/log"[..])
        );
        // An fd the table knows no name of leaves the directory unknown.
        assert_eq!(changed_directory(&fds, None, Some(6)), None);
    }
}
