//! What the kernel says an fd of a tracee is, for `-y`, `-yy` and
//! `--decode-fds=SET`: the /proc link text (`/etc/hosts`, `pipe:[123]`),
//! and with the other parts of the set what strace adds: a socket's
//! addresses (`sockdiag.rs`), a device's type and numbers (`/dev/null<char
//! 1:3>`), the process a pidfd refers to (`pid:42`), an eventfd's counter,
//! a signalfd's mask. Read at print time, as the link is.

use std::ffi::OsStr;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use super::procfs::fdinfo;
use super::{Memory, sockdiag};

/// The parts of `--decode-fds=SET`: which details an fd is shown with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FdDetails(u8);

/// The words of `--decode-fds=SET`, each with its bit.
const PARTS: &[(&str, u8)] = &[
    ("path", 1),
    ("socket", 2),
    ("dev", 4),
    ("eventfd", 8),
    ("pidfd", 16),
    ("signalfd", 32),
];

impl FdDetails {
    /// Nothing: fds are numbers.
    pub const NONE: FdDetails = FdDetails(0);
    /// `-y`: paths.
    pub const PATH: FdDetails = FdDetails(1);
    /// `-yy`: everything.
    pub const ALL: FdDetails = FdDetails(63);

    /// Parse strace's SET: words of [`PARTS`] separated by commas, `all`,
    /// `none`, each leading `!` negating; anything else is a one-line error.
    pub fn parse(spec: &str) -> Result<FdDetails, String> {
        let mut body = spec;
        let mut negate = false;
        while let Some(rest) = body.strip_prefix('!') {
            negate = !negate;
            body = rest;
        }
        let bits = match body {
            "all" => 63,
            "none" => 0,
            _ => {
                let mut bits = 0;
                for word in body.split(',') {
                    match PARTS.iter().find(|(n, _)| *n == word) {
                        Some((_, b)) => bits |= b,
                        None => {
                            let names: Vec<&str> = PARTS.iter().map(|(n, _)| *n).collect();
                            return Err(format!(
                                "invalid --decode-fds '{word}' (expected {}, all or none)",
                                names.join(", ")
                            ));
                        }
                    }
                }
                bits
            }
        };
        Ok(FdDetails(if negate { !bits & 63 } else { bits }))
    }

    /// Whether any detail is asked for.
    pub fn any(self) -> bool {
        self.0 != 0
    }

    /// Whether paths are shown (`AT_FDCWD`'s working directory too).
    pub fn path(self) -> bool {
        self.has("path")
    }

    fn has(self, part: &str) -> bool {
        PARTS.iter().any(|(n, b)| *n == part && self.0 & b != 0)
    }
}

/// What is shown of an fd between its `<` and `>`, escaped for a terminal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FdText {
    /// The /proc link text, as bytes (JSON's `path`).
    pub path: Vec<u8>,
    /// What `-yy` shows instead of the path, already escaped:
    /// `TCP:[...]`, `/dev/null<char 1:3>`, `pid:42`; `None` for the path.
    pub details: Option<String>,
}

impl FdText {
    /// What goes between the `<` and `>`: the details, or the path escaped.
    pub fn shown(&self) -> String {
        self.details.clone().unwrap_or_else(|| escaped(&self.path))
    }
}

/// `fd` of task `tid` as `set` asks to show it; `None` when nothing is
/// shown (the fd is not open, or no part of the set applies: `socket`
/// alone for a file).
pub fn describe(tid: i32, fd: i32, set: FdDetails) -> Option<FdText> {
    if fd < 0 || !set.any() {
        return None;
    }
    let proc = format!("/proc/{tid}/fd/{fd}");
    let path = std::fs::read_link(&proc)
        .ok()?
        .as_os_str()
        .as_bytes()
        .to_vec();
    let details = details(tid, fd, &proc, &path, set);
    (details.is_some() || set.path()).then_some(FdText { path, details })
}

/// Under the BPF engine, `describe` for a call printed after it ran: the
/// fd may since have been closed and opened again on another file, so
/// /proc's answer is given only while its link still leads to the file
/// the kernel saw at the call (`mem`'s identity of it); else `known` (the
/// path the program opened the fd by, from the fd table) made canonical
/// as /proc makes it, while that leads to the file; else a socket's, a
/// pipe's or an anonymous inode's name made from the identity, as /proc
/// makes it (`-yy`'s details need the file itself: not then); `None`
/// otherwise.
pub fn describe_vouched(
    mem: &Memory,
    fd: i32,
    set: FdDetails,
    known: Option<&[u8]>,
) -> Option<FdText> {
    let id = mem.file_id(fd)?;
    let proc = format!("/proc/{}/fd/{fd}", mem.pid());
    // Checked before and after: a name read between two looks at the
    // same file is that file's (short of two reopenings in between).
    let kernel_name = id.kernel_name();
    if id.is_at(&proc)
        && let Some(text) = describe(mem.pid().as_raw(), fd, set)
        && id.is_at(&proc)
        // Anonymous inodes share one inode: /proc speaks of the same kind
        // of file only if it gives the same name.
        && (!id.shares_inode() || kernel_name.as_deref() == Some(&text.path[..]))
    {
        return Some(text);
    }
    if let Some(real) = known.and_then(|k| std::fs::canonicalize(OsStr::from_bytes(k)).ok())
        && let Some(text) = real.to_str()
        && id.is_at(text)
    {
        // The node at the path is the file the kernel saw: a device's
        // numbers are its (not what a ptmx fd's fdinfo says: that fd may
        // be another file's now).
        let details = if set.has("dev") {
            device_node(text.as_bytes()).map(|(kind, major, minor)| {
                format!("{}<{kind} {major}:{minor}>", escaped(text.as_bytes()))
            })
        } else {
            None
        };
        if details.is_some() || set.path() {
            return Some(FdText {
                path: text.as_bytes().to_vec(),
                details,
            });
        }
    }
    // A socket's or a pipe's name is its inode number, an anonymous
    // inode's its dentry's: the identity says it, whatever became of the
    // fd or the process since.
    let path = kernel_name?;
    let details = (path.starts_with(b"socket:") && set.has("socket")).then(|| escaped(&path));
    (details.is_some() || set.path()).then_some(FdText { path, details })
}

/// What the BPF engine shows of the new fd `fd` a call returned:
/// [`describe_vouched`]'s answer, else the name the fd table gave it
/// (`known`: the path opened, a memfd's name, a dup's source's). The
/// path an open opened by (`opened`) was the file's name at the call,
/// whatever is at it now (a file replaced at its path since, as git
/// replaces its index): given with its directory made canonical, as
/// /proc gave it then. Another name (a dup's source's, which may be
/// older than a rename) is given only while nothing else is at it.
pub fn describe_returned(
    mem: &Memory,
    fd: i32,
    set: FdDetails,
    known: Option<Vec<u8>>,
    opened: bool,
) -> Option<FdText> {
    if let Some(text) = describe_vouched(mem, fd, set, known.as_deref()) {
        return Some(text);
    }
    let path = known.filter(|_| set.path())?;
    if opened && mem.file_id(fd).is_some() {
        return Some(FdText {
            path: canonical_directory(&path),
            details: None,
        });
    }
    // describe_vouched found it leads to another file, if it leads to one.
    let elsewhere =
        mem.file_id(fd).is_some() && std::fs::canonicalize(OsStr::from_bytes(&path)).is_ok();
    (!elsewhere).then_some(FdText {
        path,
        details: None,
    })
}

/// `path` with its directory made canonical (symlinks and `..` resolved,
/// as /proc names a file) and its last component as it is; `path` itself
/// where the directory cannot be resolved now.
fn canonical_directory(path: &[u8]) -> Vec<u8> {
    let Some(cut) = path.iter().rposition(|&b| b == b'/') else {
        return path.to_vec();
    };
    let (dir, name) = (&path[..cut.max(1)], &path[cut + 1..]);
    match std::fs::canonicalize(OsStr::from_bytes(dir)) {
        Ok(real) if !name.is_empty() => {
            let mut out = real.into_os_string().into_vec();
            if out.last() != Some(&b'/') {
                out.push(b'/');
            }
            out.extend_from_slice(name);
            out
        }
        _ => path.to_vec(),
    }
}

/// [`describe`] for the call `mem` holds: at once under ptrace (the task
/// is stopped at the call); under the BPF engine only as vouched for by
/// [`describe_vouched`] (an fd whose file the kernel did not identify,
/// one in a select set or a struct, is then its number alone).
pub fn describe_for(mem: &Memory, fd: i32, set: FdDetails) -> Option<FdText> {
    if mem.is_captured() {
        describe_vouched(mem, fd, set, None)
    } else {
        describe(mem.pid().as_raw(), fd, set)
    }
}

/// The /proc name of `fd` of the call `mem` holds, vouched for as in
/// [`describe_vouched`].
pub fn vouched_path(mem: &Memory, fd: i32) -> Option<Vec<u8>> {
    describe_vouched(mem, fd, FdDetails::PATH, None).map(|t| t.path)
}

/// The working directory of the call `mem` holds, if the task is still in
/// the directory the kernel saw at the call (what `AT_FDCWD` stood for).
pub fn vouched_cwd(mem: &Memory) -> Option<Vec<u8>> {
    let id = mem.file_id(crate::abi::fs::AT_FDCWD as i32)?;
    let proc = format!("/proc/{}/cwd", mem.pid());
    if !id.is_at(&proc) {
        return None;
    }
    let link = std::fs::read_link(&proc).ok()?;
    id.is_at(&proc)
        .then(|| link.as_os_str().as_bytes().to_vec())
}

/// The -yy details, in strace's order of trying: socket, device, eventfd,
/// pidfd, signalfd.
fn details(tid: i32, fd: i32, proc: &str, path: &[u8], set: FdDetails) -> Option<String> {
    if set.has("socket")
        && let Some(inode) = bracketed(path, b"socket:[")
    {
        let proto = sock_proto(proc);
        return Some(
            match proto.as_deref().and_then(|p| sockdiag::describe(p, inode)) {
                Some(text) => text,
                None => escaped(path),
            },
        );
    }
    if set.has("dev")
        && path.starts_with(b"/")
        && let Some(dev) = device(tid, fd, path)
    {
        return Some(dev);
    }
    if set.has("eventfd") && path == b"anon_inode:[eventfd]" {
        return Some(eventfd(tid, fd).unwrap_or_else(|| escaped(path)));
    }
    if set.has("pidfd") && (path.starts_with(b"pidfd:") || path == b"anon_inode:[pidfd]") {
        return Some(
            match fdinfo(tid, fd, "Pid:").and_then(|v| v.parse::<i32>().ok()) {
                Some(pid) if pid > 0 => format!("pid:{pid}"),
                _ => escaped(path),
            },
        );
    }
    if set.has("signalfd") && path == b"anon_inode:[signalfd]" {
        return fdinfo(tid, fd, "sigmask:")
            .and_then(|v| u64::from_str_radix(&v, 16).ok())
            .map(|mask| format!("signalfd:{}", sigmask_text(mask)));
    }
    None
}

/// A path escaped as `-y` prints it (C escapes, as a string's inside its
/// quotes, and `<`, `>` in octal so the brackets around it stay the only
/// ones: `3</tmp/a\74b>`, as strace writes them).
fn escaped(path: &[u8]) -> String {
    let mut s = String::with_capacity(path.len());
    crate::escape::c_escape_also(path, true, b"<>", &mut s);
    s
}

/// The number in `PREFIX<digits>]`.
fn bracketed(path: &[u8], prefix: &[u8]) -> Option<u64> {
    let rest = path.strip_prefix(prefix)?.strip_suffix(b"]")?;
    std::str::from_utf8(rest).ok()?.parse().ok()
}

/// The kernel's protocol name of a socket (`system.sockprotoname`).
fn sock_proto(proc: &str) -> Option<String> {
    let name = std::ffi::CString::new(proc).ok()?;
    let mut buf = [0u8; 64];
    // SAFETY: both strings are NUL-terminated; buf is valid for its length.
    let n = unsafe {
        libc::getxattr(
            name.as_ptr(),
            c"system.sockprotoname".as_ptr(),
            buf.as_mut_ptr().cast(),
            buf.len(),
        )
    };
    let text = buf.get(..usize::try_from(n).ok()?)?;
    let end = text.iter().position(|&b| b == 0).unwrap_or(text.len());
    String::from_utf8(text[..end].to_vec()).ok()
}

/// `/dev/null<char 1:3>` for a device file, as strace shows it (and the
/// pty a /dev/ptmx fd is the master of: `char 5:2 @/dev/pts/3`).
fn device(tid: i32, fd: i32, path: &[u8]) -> Option<String> {
    let (kind, major, minor) = device_node(path)?;
    // /dev/ptmx (char 5:2): fdinfo's tty-index names the pty.
    let pty = match (kind, major, minor) {
        ("char", 5, 2) => fdinfo(tid, fd, "tty-index:")
            .and_then(|i| i.parse::<u32>().ok())
            .map(|i| format!(" @/dev/pts/{i}"))
            .unwrap_or_default(),
        _ => String::new(),
    };
    Some(format!("{}<{kind} {major}:{minor}{pty}>", escaped(path)))
}

/// The kind (`char`, `block`) and numbers of the device node at `path`;
/// `None` for any other file.
fn device_node(path: &[u8]) -> Option<(&'static str, u32, u32)> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let meta = std::fs::metadata(std::ffi::OsStr::from_bytes(path)).ok()?;
    let kind = if meta.file_type().is_char_device() {
        "char"
    } else if meta.file_type().is_block_device() {
        "block"
    } else {
        return None;
    };
    let rdev = meta.rdev();
    Some((kind, libc::major(rdev), libc::minor(rdev)))
}

/// `{eventfd-count=0x1, eventfd-id=12, eventfd-semaphore=0}` from the
/// fd's fdinfo, as the newest strace shows it (the count in hex, as the
/// kernel writes it; the other two as far as the kernel gives them).
fn eventfd(tid: i32, fd: i32) -> Option<String> {
    let count = fdinfo(tid, fd, "eventfd-count:")?;
    let count = if count.starts_with('0') {
        count
    } else {
        format!("0x{count}")
    };
    let mut text = format!("{{eventfd-count={count}");
    if let Some(id) = fdinfo(tid, fd, "eventfd-id:") {
        text.push_str(&format!(", eventfd-id={id}"));
        if let Some(sem) = fdinfo(tid, fd, "eventfd-semaphore:") {
            text.push_str(&format!(", eventfd-semaphore={sem}"));
        }
    }
    text.push('}');
    Some(text)
}

/// A signal mask as rtrace prints sets: `[USR1 USR2]`, `~[KILL STOP]` when
/// more than half the signals are in it.
fn sigmask_text(mask: u64) -> String {
    use crate::abi::signals::{KERNEL_SIGRTMAX, signal_name};
    let n = KERNEL_SIGRTMAX;
    let has = |s: i32| mask & (1u64 << (s - 1)) != 0;
    let invert = (1..=n).filter(|&s| has(s)).count() * 2 > n as usize;
    let names: Vec<String> = (1..=n)
        .filter(|&s| has(s) != invert)
        .map(|s| match signal_name(s) {
            Some(name) => name.strip_prefix("SIG").unwrap_or(&name).to_string(),
            None => s.to_string(),
        })
        .collect();
    format!("{}[{}]", if invert { "~" } else { "" }, names.join(" "))
}

/// A call is about to be printed: socket answers that may change are asked
/// again (see `sockdiag.rs`).
pub fn next_call() {
    sockdiag::next_call();
}

/// The fd table changed (an fd opened, closed or duplicated, a socket bound
/// or connected): every cached socket answer is asked again.
pub fn fd_table_changed() {
    sockdiag::forget();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_opened_path_takes_its_directory_s_real_name() {
        let dir = std::env::temp_dir().join(format!("rtrace-fds-{}", std::process::id()));
        let real = dir.join("real");
        std::fs::create_dir_all(&real).unwrap();
        let link = dir.join("link");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let real = std::fs::canonicalize(&real).unwrap();
        let via_link = format!("{}/../link/gone", real.display());
        assert_eq!(
            canonical_directory(via_link.as_bytes()),
            format!("{}/gone", real.display()).into_bytes()
        );
        // A directory that is gone too: the path as it was.
        let lost = format!("{}/nowhere/gone", real.display());
        assert_eq!(canonical_directory(lost.as_bytes()), lost.into_bytes());
        assert_eq!(canonical_directory(b"/gone"), b"/gone".to_vec());
        assert_eq!(canonical_directory(b"gone"), b"gone".to_vec());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sets_parse_as_strace_takes_them() {
        assert_eq!(FdDetails::parse("path").unwrap(), FdDetails::PATH);
        assert_eq!(FdDetails::parse("all").unwrap(), FdDetails::ALL);
        assert_eq!(FdDetails::parse("!all").unwrap(), FdDetails::NONE);
        assert_eq!(FdDetails::parse("none").unwrap(), FdDetails::NONE);
        let s = FdDetails::parse("socket,dev").unwrap();
        assert!(s.has("socket") && s.has("dev") && !s.path());
        assert_eq!(FdDetails::parse("!path").unwrap(), FdDetails(62));
        assert_eq!(
            FdDetails::parse("path,sock").unwrap_err(),
            "invalid --decode-fds 'sock' (expected path, socket, dev, eventfd, pidfd, signalfd, all or none)"
        );
        assert!(FdDetails::parse("").is_err());
    }

    #[test]
    fn masks_print_as_sets() {
        assert_eq!(sigmask_text(0), "[]");
        assert_eq!(sigmask_text((1 << 9) | (1 << 11)), "[USR1 USR2]");
    }

    #[test]
    fn dev_null_is_a_char_device() {
        assert_eq!(device(0, -1, b"/dev/null").unwrap(), "/dev/null<char 1:3>");
        assert_eq!(device(0, -1, b"/etc/hostname"), None);
    }
}
