//! A tracee's memory: [`Memory`] reads a stopped tracee's address space
//! (process_vm_readv, /proc/PID/mem when that is refused) or answers from
//! the BPF engine's copies ([`Snapshot`]); [`vm_read`] and [`vm_write`]
//! reach a process that runs on, for the emulations' supervisors and for
//! injected results.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

use nix::sys::uio::{RemoteIoVec, process_vm_readv};
use nix::unistd::Pid;
use smallvec::SmallVec;

use super::syscall::Arch;

/// Reads of one tracee's memory. Cheap to create; holds the /proc fallback
/// file open only once it was needed.
///
/// Under the BPF engine the tracee runs on while rtrace prints, so its
/// memory is not read at all: the kernel copied what the call's decoders
/// read when the call entered or left, and the reader answers from that
/// [`Snapshot`] alone (a read of anything not in it fails, and the
/// decoder falls back to the pointer, as for an unreadable address).
pub struct Memory {
    pid: Pid,
    proc_mem: Option<File>,
    vm_readv_works: bool,
    /// A page [`Memory::read_cstr`] reads into, kept between strings.
    scratch: Vec<u8>,
    /// Set: answer from these bytes instead of the live process.
    snapshot: Option<Snapshot>,
    /// The process's mappings (start, end, private and read-only), read
    /// from /proc when a snapshot misses: what a private read-only one
    /// holds cannot have changed since the call, so a miss there is read
    /// from the live process. Read again only for an address in none of
    /// them (a miss in a writable one, a decoder reading past a copied
    /// buffer, would otherwise read /proc at every call).
    mappings: Vec<(u64, u64, bool)>,
    /// Under the BPF engine: whether the process still runs the program
    /// the call being read ran in, asked before a miss is read from it.
    same_program: Option<SameProgram>,
}

/// How the BPF engine tells whether a process has exec'd since a call it
/// reads late: the process (tgid), the execs its records had shown up
/// to that call, and the kernel's count now (`None`: not known).
#[derive(Clone)]
pub struct SameProgram {
    /// The thread group whose execs are counted.
    pub tgid: i32,
    /// Its execs as of the call (`u64::MAX`: not known).
    pub execs: u64,
    /// The kernel's count of its execs now, by tgid.
    pub now: std::rc::Rc<dyn Fn(i32) -> Option<u64>>,
}

impl SameProgram {
    fn holds(&self) -> bool {
        (self.now)(self.tgid) == Some(self.execs)
    }
}

/// Pieces of a tracee's memory copied by the kernel (the BPF engine's
/// captures): each the bytes found at an address; and the identities of
/// the files behind the call's fds, when rtrace names fds.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    /// Every piece's bytes, one after another: one allocation a record
    /// rather than one a piece (the reader takes in every call's pieces).
    bytes: Vec<u8>,
    /// Each piece: its address, and where its bytes start in `bytes` and
    /// how many there are.
    pieces: SmallVec<[(u64, u32, u32); 2]>,
    files: Vec<(i32, FileId)>,
    /// The entries a getdents call returned, counted by the kernel (its
    /// buffer may be longer than the copy).
    dirents: Option<u64>,
}

/// A file as the kernel knew it at a call (`struct rt_file_id`): its
/// filesystem's device, in the kernel's encoding (major << 20 | minor),
/// and its inode number. What /proc says of an fd later names the call's
/// file only if it leads to the same pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileId {
    /// The superblock's device, major << 20 | minor.
    pub dev: u64,
    /// The inode number.
    pub ino: u64,
    /// Its filesystem's magic (`super_block.s_magic`).
    pub magic: u64,
    /// An anonymous inode's file: its dentry's name (`[eventfd]`), NUL
    /// padded; zeros for other files.
    pub name: [u8; FILE_NAME],
}

/// The bytes of [`FileId::name`] (`RT_FILE_NAME`).
pub const FILE_NAME: usize = 32;

impl FileId {
    /// Whether `path` (a /proc link, followed) is this file now.
    pub fn is_at(&self, path: &str) -> bool {
        let Ok(st) = nix::sys::stat::stat(path) else {
            return false;
        };
        let (major, minor) = (self.dev >> 20, self.dev & 0xf_ffff);
        st.st_ino == self.ino && st.st_dev == libc::makedev(major as u32, minor as u32)
    }

    /// The name /proc gives a socket or a pipe (`socket:[INODE]`,
    /// `pipe:[INODE]`: made from the inode number alone), an anonymous
    /// inode's file (`anon_inode:[eventfd]`: from its dentry's name) or a
    /// pidfd on pidfs (Linux 6.9 on: `anon_inode:[pidfd]`, the name its
    /// anonymous inode had before), which the identity says without /proc;
    /// a terminal on devpts by its dentry's name under devpts' usual
    /// mount (`/dev/pts/0`: /proc would give the mount the process saw);
    /// `None` for other files.
    pub fn kernel_name(&self) -> Option<Vec<u8>> {
        use crate::abi::xlat::fs::{
            ANON_INODE_FS_MAGIC, DEVPTS_SUPER_MAGIC, PID_FS_MAGIC, PIPEFS_MAGIC, SOCKFS_MAGIC,
        };
        let kind = match self.magic {
            DEVPTS_SUPER_MAGIC => {
                let len = self.name.iter().position(|&b| b == 0)?;
                return (len > 0).then(|| [b"/dev/pts/", &self.name[..len]].concat());
            }
            SOCKFS_MAGIC => "socket",
            PIPEFS_MAGIC => "pipe",
            PID_FS_MAGIC => return Some(b"anon_inode:[pidfd]".to_vec()),
            ANON_INODE_FS_MAGIC => {
                let len = self.name.iter().position(|&b| b == 0)?;
                let mut text = b"anon_inode:".to_vec();
                text.extend_from_slice(&self.name[..len]);
                return (len > 0).then_some(text);
            }
            _ => return None,
        };
        Some(format!("{kind}:[{}]", self.ino).into_bytes())
    }

    /// Whether files of this identity's kind share their inode (anonymous
    /// inodes): then the inode alone cannot tell one from another.
    pub fn shares_inode(&self) -> bool {
        self.magic == crate::abi::xlat::fs::ANON_INODE_FS_MAGIC
    }
}

impl Snapshot {
    /// An empty snapshot with room for `bytes` bytes of pieces.
    pub fn with_capacity(bytes: usize) -> Snapshot {
        Snapshot {
            bytes: Vec::with_capacity(bytes),
            ..Snapshot::default()
        }
    }

    /// Add the bytes found at `addr`. A later piece at an address an
    /// earlier one covers is the fresher copy and is consulted first.
    pub fn add(&mut self, addr: u64, bytes: &[u8]) {
        self.add_parts(addr, bytes, &[]);
    }

    /// Add the string found at `addr` (its bytes, without their NUL), with
    /// the NUL that ended it.
    pub fn add_terminated(&mut self, addr: u64, bytes: &[u8]) {
        self.add_parts(addr, bytes, &[0]);
    }

    fn add_parts(&mut self, addr: u64, bytes: &[u8], end: &[u8]) {
        let start = self.bytes.len() as u32;
        self.bytes.extend_from_slice(bytes);
        self.bytes.extend_from_slice(end);
        self.pieces
            .push((addr, start, (bytes.len() + end.len()) as u32));
    }

    /// Add every piece of `more`.
    pub fn add_all(&mut self, more: Snapshot) {
        // An exit's pieces after an entry that copied nothing (read's
        // buffer), or none after an entry's (open's path): nothing to
        // copy.
        if self.pieces.is_empty() {
            self.bytes = more.bytes;
            self.pieces = more.pieces;
        } else {
            let base = self.bytes.len() as u32;
            self.bytes.extend_from_slice(&more.bytes);
            self.pieces.extend(
                more.pieces
                    .into_iter()
                    .map(|(addr, start, len)| (addr, start + base, len)),
            );
        }
        self.files.extend(more.files);
        self.dirents = more.dirents.or(self.dirents);
    }

    /// Record that the call returned `count` directory entries.
    pub fn set_dirents(&mut self, count: u64) {
        self.dirents = Some(count);
    }

    /// Add the identity of the file behind `fd` (AT_FDCWD: the working
    /// directory). A later one for the same fd is the fresher.
    pub fn add_file(&mut self, fd: i32, id: FileId) {
        self.files.push((fd, id));
    }

    /// Whether nothing was captured.
    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// The captured bytes from `addr` to the end of the piece holding it
    /// (none where no piece holds it).
    pub fn at(&self, addr: u64) -> &[u8] {
        self.pieces
            .iter()
            .rev()
            .find_map(|&(at, start, len)| {
                let off = addr.checked_sub(at)?;
                (off < len as u64).then(|| {
                    let start = start as usize;
                    &self.bytes[start + off as usize..start + len as usize]
                })
            })
            .unwrap_or(&[])
    }
}

/// The mappings of `pid` from its maps: start, end, and whether private
/// and not writable.
fn mappings(pid: Pid) -> Vec<(u64, u64, bool)> {
    let Ok(maps) = std::fs::read(format!("/proc/{pid}/maps")) else {
        return Vec::new();
    };
    maps.split(|&b| b == b'\n')
        .filter_map(|line| {
            // Only the address range and permissions are read; a mapped
            // file's name need not be UTF-8.
            let line = String::from_utf8_lossy(line);
            let mut words = line.split_ascii_whitespace();
            let (start, end) = words.next()?.split_once('-')?;
            let perms = words.next()?.as_bytes();
            let read_only = perms.get(1) == Some(&b'-') && perms.get(3) == Some(&b'p');
            Some((
                u64::from_str_radix(start, 16).ok()?,
                u64::from_str_radix(end, 16).ok()?,
                read_only,
            ))
        })
        .collect()
}

/// The page size on x86 (both ABIs): what the kernel rounds mappings and
/// usbmon rings to.
pub const PAGE: u64 = 4096;

impl Memory {
    /// A reader for `pid`'s address space. Only valid while it is stopped.
    pub fn new(pid: Pid) -> Memory {
        Memory {
            pid,
            proc_mem: None,
            vm_readv_works: true,
            scratch: Vec::new(),
            snapshot: None,
            mappings: Vec::new(),
            same_program: None,
        }
    }

    /// A reader that answers from `snapshot` only (the BPF engine).
    pub fn captured(pid: Pid, snapshot: Snapshot) -> Memory {
        Memory {
            snapshot: Some(snapshot),
            ..Memory::new(pid)
        }
    }

    /// Read a miss from the live process only while `check` says it runs
    /// the program the call did (the BPF engine reads calls late).
    pub fn set_same_program(&mut self, check: SameProgram) {
        self.same_program = Some(check);
    }

    /// Answer from `snapshot` from now on (`None`: the live process).
    pub fn set_snapshot(&mut self, snapshot: Option<Snapshot>) {
        self.snapshot = snapshot;
    }

    /// Add pieces to the snapshot (a call's exit copies after its entry's:
    /// a decoder may print an input at the leave); the added ones win
    /// where both hold an address.
    pub fn add_snapshot(&mut self, more: Snapshot) {
        match &mut self.snapshot {
            Some(have) => have.add_all(more),
            None => self.snapshot = Some(more),
        }
    }

    /// Whether the kernel copied any file's identity with the call (the
    /// BPF engine, when rtrace names fds).
    pub fn has_file_ids(&self) -> bool {
        self.snapshot.as_ref().is_some_and(|s| !s.files.is_empty())
    }

    /// The identity of the file behind `fd` (AT_FDCWD: the working
    /// directory) as the kernel copied it with the call (the BPF engine,
    /// when rtrace names fds); `None` otherwise.
    pub fn file_id(&self, fd: i32) -> Option<FileId> {
        let snapshot = self.snapshot.as_ref()?;
        snapshot
            .files
            .iter()
            .rev()
            .find(|(f, _)| *f == fd)
            .map(|(_, id)| *id)
    }

    /// How many directory entries the getdents call returned, as the
    /// kernel counted them (the BPF engine); `None` otherwise.
    pub fn dirent_count(&self) -> Option<u64> {
        self.snapshot.as_ref()?.dirents
    }

    /// The task whose memory this is.
    pub fn pid(&self) -> Pid {
        self.pid
    }

    /// Whether reads are answered from a snapshot.
    pub fn is_captured(&self) -> bool {
        self.snapshot.is_some()
    }

    /// Read up to `buf.len()` bytes at `addr`; returns how many bytes were
    /// read before the first unreadable byte (0 when `addr` is unmapped).
    pub fn read(&mut self, addr: u64, buf: &mut [u8]) -> usize {
        if buf.is_empty() || addr == 0 {
            return 0;
        }
        if let Some(snapshot) = &self.snapshot {
            // Contiguous pieces (a string after the array holding its
            // pointer) are read across, as from the process.
            let mut done = 0;
            while done < buf.len() {
                let have = snapshot.at(addr + done as u64);
                if have.is_empty() {
                    break;
                }
                let n = have.len().min(buf.len() - done);
                buf[done..done + n].copy_from_slice(&have[..n]);
                done += n;
            }
            if done == 0
                && self.is_read_only(addr, buf.len())
                && self.same_program.as_ref().is_none_or(SameProgram::holds)
            {
                // The kernel could not copy it (a page of a program's
                // constants nothing had touched yet); it cannot differ
                // from what the call saw, unless the process has exec'd
                // since (then it is another program's memory).
                return self.read_live(addr, buf);
            }
            return done;
        }
        self.read_live(addr, buf)
    }

    /// Whether `len` bytes at `addr` lie in one private mapping that
    /// cannot be written (a program's read-only data or code).
    fn is_read_only(&mut self, addr: u64, len: usize) -> bool {
        let end = addr.saturating_add(len as u64);
        let holding = |maps: &[(u64, u64, bool)]| {
            maps.iter()
                .find(|&&(s, e, _)| s <= addr && addr < e)
                .map(|&(_, e, read_only)| read_only && end <= e)
        };
        if let Some(known) = holding(&self.mappings) {
            return known;
        }
        self.mappings = mappings(self.pid);
        holding(&self.mappings).unwrap_or(false)
    }

    /// Read from the live process.
    fn read_live(&mut self, addr: u64, buf: &mut [u8]) -> usize {
        if self.vm_readv_works {
            let mut done = 0usize;
            // process_vm_readv stops at the first bad page of a remote iovec,
            // so one call reads as much as is readable.
            while done < buf.len() {
                let remote = [RemoteIoVec {
                    base: (addr + done as u64) as usize,
                    len: buf.len() - done,
                }];
                let mut local = [io::IoSliceMut::new(&mut buf[done..])];
                match process_vm_readv(self.pid, &mut local, &remote) {
                    Ok(0) => return done,
                    Ok(n) => done += n,
                    Err(nix::errno::Errno::ENOSYS) | Err(nix::errno::Errno::EPERM) => {
                        self.vm_readv_works = false;
                        break;
                    }
                    Err(_) => return done,
                }
            }
            if self.vm_readv_works {
                return done;
            }
        }
        self.read_proc_mem(addr, buf)
    }

    fn read_proc_mem(&mut self, addr: u64, buf: &mut [u8]) -> usize {
        if self.proc_mem.is_none() {
            self.proc_mem = File::open(format!("/proc/{}/mem", self.pid)).ok();
        }
        let Some(file) = &self.proc_mem else {
            return 0;
        };
        let mut done = 0;
        while done < buf.len() {
            match file.read_at(&mut buf[done..], addr + done as u64) {
                Ok(0) | Err(_) => break,
                Ok(n) => done += n,
            }
        }
        done
    }

    /// Read exactly `buf.len()` bytes, or report failure.
    pub fn read_exact(&mut self, addr: u64, buf: &mut [u8]) -> bool {
        self.read(addr, buf) == buf.len()
    }

    /// Read a NUL-terminated string of at most `max` bytes (not counting the
    /// NUL). Returns the bytes and whether the NUL was seen; `None` when not
    /// even the first byte could be read.
    pub fn read_cstr(&mut self, addr: u64, max: usize) -> Option<(Vec<u8>, bool)> {
        if addr == 0 {
            return None;
        }
        // Read page-sized chunks that never cross a page boundary, so a
        // string ending just before an unmapped page is still read whole.
        // They land in a page kept for the purpose (zeroing a fresh one for
        // every string cost more than the read); only the string is kept.
        let mut chunk = std::mem::take(&mut self.scratch);
        chunk.resize(PAGE as usize, 0);
        let mut out = Vec::new();
        let mut at = addr;
        let found = loop {
            let want = ((PAGE - at % PAGE) as usize).min(max.saturating_add(1) - out.len());
            let got = self.read(at, &mut chunk[..want]);
            let part = &chunk[..got];
            if let Some(nul) = memchr::memchr(0, part) {
                out.extend_from_slice(&part[..nul]);
                break Some((out, true));
            }
            if got == 0 && out.is_empty() {
                break None;
            }
            out.extend_from_slice(part);
            if got < want || out.len() > max {
                out.truncate(max.min(out.len()));
                break Some((out, false));
            }
            at += got as u64;
        };
        self.scratch = chunk;
        found
    }

    /// Read one pointer-sized word of the given arch (8 bytes, or 4 for i386/x32).
    pub fn read_word(&mut self, addr: u64, arch: Arch) -> Option<u64> {
        match arch {
            Arch::X86_64 => {
                let mut b = [0u8; 8];
                self.read_exact(addr, &mut b).then(|| u64::from_ne_bytes(b))
            }
            Arch::I386 | Arch::X32 => {
                let mut b = [0u8; 4];
                self.read_exact(addr, &mut b)
                    .then(|| u32::from_ne_bytes(b) as u64)
            }
        }
    }
}

/// Read all of `buf` from process `pid` at `addr`, running or not
/// (process_vm_readv): for the usbmon emulation's supervisor
/// (`emu::usbmon`), which answers a call while its caller waits in it.
pub fn vm_read(pid: i32, addr: u64, buf: &mut [u8]) -> bool {
    if buf.is_empty() {
        return true;
    }
    let local = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    let remote = libc::iovec {
        iov_base: addr as *mut libc::c_void,
        iov_len: buf.len(),
    };
    // SAFETY: the local iovec covers `buf`; the remote one is only an
    // address for the kernel to check.
    let n = unsafe { libc::process_vm_readv(pid, &local, 1, &remote, 1, 0) };
    n == buf.len() as isize
}

/// Write `buf` into process `pid` at `addr` page by page, as the kernel's
/// copy_to_user does: up to the first page that cannot be written.
/// Whether all was written.
pub fn vm_write(pid: i32, addr: u64, buf: &[u8]) -> bool {
    let mut done = 0;
    while done < buf.len() {
        let at = addr.wrapping_add(done as u64);
        let step = ((PAGE - (at & (PAGE - 1))) as usize).min(buf.len() - done);
        let local = libc::iovec {
            iov_base: buf[done..].as_ptr() as *mut libc::c_void,
            iov_len: step,
        };
        let remote = libc::iovec {
            iov_base: at as *mut libc::c_void,
            iov_len: step,
        };
        // SAFETY: the local iovec covers part of `buf`, which the kernel
        // only reads; the remote one is an address for it to check.
        if unsafe { libc::process_vm_writev(pid, &local, 1, &remote, 1, 0) } != step as isize {
            return false;
        }
        done += step;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_terminal_on_devpts_is_named_by_its_dentry_under_dev_pts() {
        let mut name = [0u8; FILE_NAME];
        name[..2].copy_from_slice(b"17");
        let pty = FileId {
            dev: 25,
            ino: 20,
            magic: crate::abi::xlat::fs::DEVPTS_SUPER_MAGIC,
            name,
        };
        assert_eq!(pty.kernel_name().as_deref(), Some(&b"/dev/pts/17"[..]));
        // No name read: not named.
        let unread = FileId {
            name: [0; FILE_NAME],
            ..pty
        };
        assert_eq!(unread.kernel_name(), None);
        assert!(!pty.shares_inode());
    }

    /// What a decoder reads of `snapshot` (of no process: nothing is read
    /// past the pieces).
    fn read(snapshot: Snapshot, addr: u64, len: usize) -> Vec<u8> {
        let mut mem = Memory::captured(Pid::from_raw(i32::MAX), snapshot);
        let mut buf = vec![0u8; len];
        let got = mem.read(addr, &mut buf);
        buf.truncate(got);
        buf
    }

    #[test]
    fn an_exits_pieces_come_after_the_entrys() {
        let mut entry = Snapshot::default();
        entry.add(0x1000, b"old!");
        entry.add_terminated(0x2000, b"path");
        let mut exit = Snapshot::default();
        exit.add(0x1000, b"new");
        entry.add_all(exit);
        // The exit's copy is the fresher: consulted first, and the
        // entry's goes on where it ends.
        assert_eq!(read(entry.clone(), 0x1000, 4), b"new!");
        assert_eq!(read(entry, 0x2000, 5), b"path\0");
    }

    #[test]
    fn either_half_may_have_copied_nothing() {
        let mut exit = Snapshot::default();
        exit.add(0x1000, b"data");
        let mut empty_entry = Snapshot::default();
        empty_entry.add_all(exit.clone());
        assert_eq!(read(empty_entry, 0x1000, 4), b"data");
        let mut entry = exit;
        entry.add_all(Snapshot::default());
        assert_eq!(read(entry, 0x1000, 8), b"data");
    }
}
