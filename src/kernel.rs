//! The unsafe corner: ptrace requests, syscall stop details and tracee memory;
//! waits and stops as values (`stop.rs`).
//!
//! Everything that talks to the kernel about a tracee lives here, so the
//! layers above see plain values: a [`SyscallStop`] with the call's number,
//! arguments or result, and memory reads that report how much they got rather
//! than failing. A failed read is data (the caller prints a pointer), never an
//! error that stops tracing.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

use crate::escape::TraceeText;

pub mod pidns;
use nix::sys::uio::{RemoteIoVec, process_vm_readv};
use nix::unistd::Pid;

pub mod fds;
pub mod genl;
mod sockdiag;
mod stop;
pub use stop::{Handled, Held, Resume, Stop, Waited, ready, wait};

use crate::abi::xlat::process::{
    self, AUDIT_ARCH_I386, AUDIT_ARCH_X86_64, PTRACE_GET_SYSCALL_INFO,
};
/// `__X32_SYSCALL_BIT`: x32 calls use the x86_64 arch with this bit set.
pub const X32_SYSCALL_BIT: u64 = process::__X32_SYSCALL_BIT as u64;

/// The stop kinds PTRACE_GET_SYSCALL_INFO reports (`op`, a `__u8`).
const PTRACE_SYSCALL_INFO_ENTRY: u8 = process::PTRACE_SYSCALL_INFO_ENTRY as u8;
const PTRACE_SYSCALL_INFO_EXIT: u8 = process::PTRACE_SYSCALL_INFO_EXIT as u8;
const PTRACE_SYSCALL_INFO_SECCOMP: u8 = process::PTRACE_SYSCALL_INFO_SECCOMP as u8;

/// The system call ABI a stop belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arch {
    /// Native 64-bit calls.
    X86_64,
    /// i386 calls: a 32-bit binary, or `int 0x80` from a 64-bit one.
    I386,
    /// x32 calls (64-bit registers, 32-bit pointers); numbered like x86_64.
    X32,
}

/// What a syscall-stop tells about the call.
#[derive(Clone, Copy, Debug)]
pub enum SyscallOp {
    /// Entering a call: its number and six raw argument registers.
    Entry {
        /// The call's number, in the stop's architecture.
        nr: u64,
        /// The six argument registers, as the kernel saw them.
        args: [u64; 6],
    },
    /// Leaving a call: the raw return value (negative errno on failure).
    Exit {
        /// The return register: the result, or minus the errno.
        rval: i64,
    },
}

/// A syscall-stop, read in one request where the kernel allows it.
#[derive(Clone, Copy, Debug)]
pub struct SyscallStop {
    /// Which ABI the call was made through.
    pub arch: Arch,
    /// Instruction pointer at the stop (just after the syscall instruction).
    pub ip: u64,
    /// Stack pointer at the stop.
    pub sp: u64,
    /// Entry or exit details.
    pub op: SyscallOp,
}

/// `struct ptrace_syscall_info` from `<linux/ptrace.h>`, x86_64 layout.
#[repr(C)]
#[derive(Clone, Copy)]
struct RawSyscallInfo {
    op: u8,
    pad: [u8; 3],
    arch: u32,
    instruction_pointer: u64,
    stack_pointer: u64,
    /// entry: nr, args[6]; exit: rval, is_error; seccomp: nr, args[6], ret_data.
    data: [u64; 8],
}

fn arch_from_audit(audit: u32, nr: u64) -> Arch {
    match audit {
        AUDIT_ARCH_I386 => Arch::I386,
        AUDIT_ARCH_X86_64 if nr & X32_SYSCALL_BIT != 0 => Arch::X32,
        _ => Arch::X86_64,
    }
}

/// Whether PTRACE_GET_SYSCALL_INFO is known to be missing on this kernel
/// (or is not to be used).
static NO_SYSCALL_INFO: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Decode every syscall stop from the registers, as on kernels before 5.3
/// that lack PTRACE_GET_SYSCALL_INFO: how that path is tested on newer ones.
pub fn decode_from_registers() {
    NO_SYSCALL_INFO.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Read the details of a syscall-stop. `entering` is the engine's own idea of
/// the direction, used only when the kernel is too old to say (pre-5.3).
pub fn syscall_stop(pid: Pid, entering: bool) -> io::Result<SyscallStop> {
    use std::sync::atomic::Ordering;
    if !NO_SYSCALL_INFO.load(Ordering::Relaxed) {
        let mut raw = RawSyscallInfo {
            op: 0,
            pad: [0; 3],
            arch: 0,
            instruction_pointer: 0,
            stack_pointer: 0,
            data: [0; 8],
        };
        // SAFETY: the kernel writes at most the size we pass into `raw`,
        // which is a plain-old-data struct of exactly that size.
        let r = unsafe {
            libc::ptrace(
                PTRACE_GET_SYSCALL_INFO,
                pid.as_raw(),
                std::mem::size_of::<RawSyscallInfo>(),
                &mut raw as *mut RawSyscallInfo,
            )
        };
        if r > 0 {
            let op = match raw.op {
                PTRACE_SYSCALL_INFO_ENTRY | PTRACE_SYSCALL_INFO_SECCOMP => SyscallOp::Entry {
                    nr: raw.data[0],
                    args: [
                        raw.data[1],
                        raw.data[2],
                        raw.data[3],
                        raw.data[4],
                        raw.data[5],
                        raw.data[6],
                    ],
                },
                PTRACE_SYSCALL_INFO_EXIT => SyscallOp::Exit {
                    rval: raw.data[0] as i64,
                },
                _ => return Err(io::Error::from_raw_os_error(libc::EINVAL)),
            };
            let nr = match op {
                SyscallOp::Entry { nr, .. } => nr,
                SyscallOp::Exit { .. } => 0,
            };
            let arch = arch_from_audit(raw.arch, nr);
            // An i386 call uses only the low 32 bits of each register; the
            // kernel reports whatever the upper halves held.
            let op = match (arch, op) {
                (Arch::I386, SyscallOp::Entry { nr, args }) => SyscallOp::Entry {
                    nr,
                    args: args.map(|a| a & 0xffff_ffff),
                },
                (Arch::I386, SyscallOp::Exit { rval }) => SyscallOp::Exit {
                    rval: rval as i32 as i64,
                },
                (_, op) => op,
            };
            return Ok(SyscallStop {
                arch,
                ip: raw.instruction_pointer,
                sp: raw.stack_pointer,
                op,
            });
        }
        let err = io::Error::last_os_error();
        if err.raw_os_error() != Some(libc::EIO) {
            return Err(err);
        }
        NO_SYSCALL_INFO.store(true, Ordering::Relaxed);
    }
    syscall_stop_from_regs(pid, entering)
}

/// Pre-5.3 fallback: decode the stop from the general registers.
fn syscall_stop_from_regs(pid: Pid, entering: bool) -> io::Result<SyscallStop> {
    let regs = nix::sys::ptrace::getregs(pid).map_err(io::Error::from)?;
    // A 32-bit code segment selector means a 32-bit process; int 0x80 from a
    // 64-bit process cannot be told apart here, which is why the syscall-info
    // request is preferred.
    let compat = regs.cs == 0x23;
    let arch = if compat {
        Arch::I386
    } else if regs.orig_rax & X32_SYSCALL_BIT != 0 {
        Arch::X32
    } else {
        Arch::X86_64
    };
    // At an entry the kernel has already set the result register to
    // -ENOSYS. Anything else there means an exit the engine took for an
    // entry; reporting it as an exit lets the engine fall back into step
    // (it drops an exit with no call) instead of swapping every call after.
    let entering = entering && regs.rax as i64 == -i64::from(libc::ENOSYS);
    let op = if entering {
        let args = if compat {
            [regs.rbx, regs.rcx, regs.rdx, regs.rsi, regs.rdi, regs.rbp].map(|r| r & 0xffff_ffff)
        } else {
            [regs.rdi, regs.rsi, regs.rdx, regs.r10, regs.r8, regs.r9]
        };
        SyscallOp::Entry {
            nr: regs.orig_rax,
            args,
        }
    } else {
        let rval = if compat {
            regs.rax as u32 as i32 as i64
        } else {
            regs.rax as i64
        };
        SyscallOp::Exit { rval }
    };
    Ok(SyscallStop {
        arch,
        ip: regs.rip,
        sp: regs.rsp,
        op,
    })
}

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
    /// The process's private read-only mappings (start, end), read from
    /// /proc when a snapshot misses: what they hold cannot have changed
    /// since the call, so a miss there is read from the live process.
    read_only: Vec<(u64, u64)>,
}

/// Pieces of a tracee's memory copied by the kernel (the BPF engine's
/// captures): each the bytes found at an address.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    pieces: Vec<(u64, Vec<u8>)>,
}

impl Snapshot {
    /// Add the bytes found at `addr`. A later piece at an address an
    /// earlier one covers is the fresher copy and is consulted first.
    pub fn add(&mut self, addr: u64, bytes: Vec<u8>) {
        self.pieces.push((addr, bytes));
    }

    /// Add every piece of `more`.
    pub fn add_all(&mut self, more: Snapshot) {
        self.pieces.extend(more.pieces);
    }

    /// Whether nothing was captured.
    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// The captured bytes from `addr` to the end of the piece holding it.
    fn at(&self, addr: u64) -> &[u8] {
        self.pieces
            .iter()
            .rev()
            .find_map(|(start, bytes)| {
                let off = addr.checked_sub(*start)?;
                (off < bytes.len() as u64).then(|| &bytes[off as usize..])
            })
            .unwrap_or(&[])
    }
}

/// The private mappings of `pid` that are not writable, from its maps.
fn read_only_mappings(pid: Pid) -> Vec<(u64, u64)> {
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
            (perms.get(1) == Some(&b'-') && perms.get(3) == Some(&b'p')).then_some(())?;
            Some((
                u64::from_str_radix(start, 16).ok()?,
                u64::from_str_radix(end, 16).ok()?,
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
            read_only: Vec::new(),
        }
    }

    /// A reader that answers from `snapshot` only (the BPF engine).
    pub fn captured(pid: Pid, snapshot: Snapshot) -> Memory {
        Memory {
            snapshot: Some(snapshot),
            ..Memory::new(pid)
        }
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
            Some(have) => have.pieces.extend(more.pieces),
            None => self.snapshot = Some(more),
        }
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
            if done == 0 && self.is_read_only(addr, buf.len()) {
                // The kernel could not copy it (a page of a program's
                // constants nothing had touched yet); it cannot differ
                // from what the call saw.
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
        let inside = |maps: &[(u64, u64)]| maps.iter().any(|&(s, e)| s <= addr && end <= e);
        if inside(&self.read_only) {
            return true;
        }
        self.read_only = read_only_mappings(self.pid);
        inside(&self.read_only)
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

/// The name of network interface `index` in rtrace's own network namespace
/// (as strace names them: the tracee's namespace is usually the same, and
/// a name it cannot have is not printed wrongly, only as the number).
pub fn interface_name(index: u32) -> Option<String> {
    if index == 0 {
        return None;
    }
    let mut buf = [0 as libc::c_char; libc::IF_NAMESIZE];
    // SAFETY: `buf` has the IF_NAMESIZE bytes if_indextoname writes at most.
    let got = unsafe { libc::if_indextoname(index, buf.as_mut_ptr()) };
    if got.is_null() {
        return None;
    }
    // SAFETY: on success `buf` holds a NUL-terminated name.
    let name = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) };
    Some(name.to_string_lossy().into_owned())
}

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

/// `sizeof(siginfo_t)`: what PTRACE_GETSIGINFO copies.
pub const SIGINFO_SIZE: usize = 128;

/// PTRACE_GETSIGINFO at a signal-delivery stop: the `siginfo_t` the kernel
/// is delivering, as raw bytes in rtrace's own (x86_64) layout whatever
/// the tracee's ABI; `None` if the request fails (the process is gone).
pub fn siginfo(pid: Pid) -> Option<[u8; SIGINFO_SIZE]> {
    let mut buf = [0u8; SIGINFO_SIZE];
    // SAFETY: PTRACE_GETSIGINFO writes one siginfo_t (128 bytes) to `data`,
    // which points at a buffer of that size.
    let r = unsafe {
        libc::ptrace(
            libc::PTRACE_GETSIGINFO,
            pid.as_raw(),
            std::ptr::null_mut::<libc::c_void>(),
            buf.as_mut_ptr() as *mut libc::c_void,
        )
    };
    (r == 0).then_some(buf)
}

/// The registers a stack walk starts from, for `-k`, of a stopped tracee;
/// `None` if they cannot be read (the process is gone).
pub struct StackRegisters {
    /// The instruction pointer (rip, or eip zero-extended).
    pub ip: u64,
    /// The stack pointer.
    pub sp: u64,
    /// The frame pointer.
    pub bp: u64,
    /// The thread runs 32-bit code (its code segment is not the one
    /// 64-bit code, rtrace's own, runs with): its stack holds 4-byte words. Not the call's ABI:
    /// 64-bit code making an `int 0x80` call has a 64-bit stack.
    pub code32: bool,
}

/// The code segment 64-bit user code runs with: rtrace's own (the
/// kernel's `__USER_CS`, read rather than typed: it is no UAPI number).
fn own_code_segment() -> u64 {
    let cs: u64;
    // SAFETY: reading the CS selector touches no memory and no flags.
    unsafe {
        std::arch::asm!("mov {0:r}, cs", out(reg) cs, options(nomem, nostack, preserves_flags));
    }
    cs & 0xffff
}

/// The registers of stopped tracee `pid` a stack walk starts from.
pub fn stack_registers(pid: Pid) -> Option<StackRegisters> {
    let regs = nix::sys::ptrace::getregs(pid).ok()?;
    Some(StackRegisters {
        ip: regs.rip,
        sp: regs.rsp,
        bp: regs.rbp,
        code32: regs.cs != own_code_segment(),
    })
}

/// PTRACE_GETEVENTMSG: the new child's pid, or the former thread id at exec.
pub fn event_msg(pid: Pid) -> Option<i32> {
    nix::sys::ptrace::getevent(pid).ok().map(|v| v as i32)
}

/// PTRACE_SEIZE with `options`.
pub fn seize(pid: Pid, options: libc::c_int) -> io::Result<()> {
    // SAFETY: PTRACE_SEIZE takes the options in `data` and no pointers.
    let r = unsafe {
        libc::ptrace(
            libc::PTRACE_SEIZE,
            pid.as_raw(),
            std::ptr::null_mut::<libc::c_void>(),
            options as libc::c_long as *mut libc::c_void,
        )
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// PTRACE_INTERRUPT: make a seized tracee stop soon.
pub fn interrupt(pid: Pid) -> io::Result<()> {
    nix::sys::ptrace::interrupt(pid).map_err(io::Error::from)
}

/// Bytes of CPU mask asked for: room for 8192 CPUs. The kernel answers
/// with as many bytes as its own mask has (`cpumask_size()`), fewer.
const AFFINITY_BYTES: usize = 1024;

/// A task's CPU affinity mask, `sched_getaffinity(tid)`: the kernel's
/// bitmap bytes, as many as it returns (a multiple of 8). `tid` 0 is the
/// calling thread.
pub fn get_affinity(tid: i32) -> io::Result<Vec<u8>> {
    let mut buf = vec![0u8; AFFINITY_BYTES];
    // SAFETY: the kernel writes at most `AFFINITY_BYTES` into `buf`. The raw
    // call, because the C library's wrapper hides how many bytes it wrote.
    let r = unsafe {
        libc::syscall(
            libc::SYS_sched_getaffinity,
            tid,
            AFFINITY_BYTES,
            buf.as_mut_ptr(),
        )
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    buf.truncate(r as usize);
    Ok(buf)
}

/// Set task `tid`'s CPU affinity mask (0 is the calling thread). Works on
/// a tracee whether it runs or is stopped; needs the same owner or
/// CAP_SYS_NICE, as for any process.
pub fn set_affinity(tid: i32, mask: &[u8]) -> io::Result<()> {
    // SAFETY: the kernel reads `mask.len()` bytes from `mask`.
    let r = unsafe { libc::syscall(libc::SYS_sched_setaffinity, tid, mask.len(), mask.as_ptr()) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// The CPU the calling thread runs on now.
pub fn current_cpu() -> Option<usize> {
    // SAFETY: sched_getcpu takes no arguments.
    let cpu = unsafe { libc::sched_getcpu() };
    (cpu >= 0).then_some(cpu as usize)
}

/// The CPU task `tid` last ran on: field 39 (`processor`) of
/// /proc/TID/stat.
pub fn last_cpu(tid: i32) -> Option<usize> {
    stat_field(tid, 39)?.parse().ok()
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

/// A tracee's registers at the syscall-enter stop of a call rtrace
/// rewrote ([`rewrite_call`]): what [`finish_rewritten`] puts back.
#[derive(Clone, Copy)]
pub struct SavedCall {
    regs: libc::user_regs_struct,
    arch: Arch,
}

/// The argument registers of a call made through `arch`, in order: the
/// ones both ABIs keep across a call, so the tracee must find them as it
/// left them. (A 64-bit `syscall` itself clobbers only rcx and r11.)
fn arg_registers(regs: &mut libc::user_regs_struct, arch: Arch) -> [&mut u64; 6] {
    let libc::user_regs_struct {
        rbx,
        rcx,
        rdx,
        rsi,
        rdi,
        rbp,
        r10,
        r8,
        r9,
        ..
    } = regs;
    match arch {
        Arch::I386 => [rbx, rcx, rdx, rsi, rdi, rbp],
        Arch::X86_64 | Arch::X32 => [rdi, rsi, rdx, r10, r8, r9],
    }
}

/// At a syscall-enter stop: make the tracee's call number `nr` instead
/// (-1: no call, which the kernel skips with -ENOSYS) and, if given, its
/// arguments `args`. Used only to emulate what the kernel would do
/// without rtrace's own seccomp filter (see `trace/own_seccomp.rs`).
pub fn rewrite_call(
    pid: Pid,
    arch: Arch,
    nr: i64,
    args: Option<[u64; 6]>,
) -> io::Result<SavedCall> {
    let saved = nix::sys::ptrace::getregs(pid).map_err(io::Error::from)?;
    let mut regs = saved;
    regs.orig_rax = nr as u64;
    if let Some(args) = args {
        for (reg, value) in arg_registers(&mut regs, arch).into_iter().zip(args) {
            *reg = value;
        }
    }
    nix::sys::ptrace::setregs(pid, regs).map_err(io::Error::from)?;
    Ok(SavedCall { regs: saved, arch })
}

/// At the syscall-exit stop of a call rewritten by [`rewrite_call`]: the
/// tracee sees `rval` as the call's result and its argument registers as
/// they were at entry.
pub fn finish_rewritten(pid: Pid, saved: &SavedCall, rval: i64) -> io::Result<()> {
    let mut regs = nix::sys::ptrace::getregs(pid).map_err(io::Error::from)?;
    let mut original = saved.regs;
    for (reg, value) in arg_registers(&mut regs, saved.arch)
        .into_iter()
        .zip(arg_registers(&mut original, saved.arch))
    {
        *reg = *value;
    }
    regs.rax = rval as u64;
    nix::sys::ptrace::setregs(pid, regs).map_err(io::Error::from)
}

/// Kill task `tid`'s whole thread group with SIGKILL (it may be stopped
/// for rtrace: SIGKILL wakes it, and a call it is entering does not run).
pub fn kill(tid: i32) {
    // SAFETY: plain kill.
    unsafe { libc::kill(tid, libc::SIGKILL) };
}

/// Whether rtrace itself runs with no-new-privs (PR_GET_NO_NEW_PRIVS):
/// then so would the command it starts, untraced.
pub fn no_new_privs() -> bool {
    // SAFETY: PR_GET_NO_NEW_PRIVS takes no pointers.
    unsafe { libc::prctl(libc::PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1 }
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

/// Whether this kernel accepts `flags` for SECCOMP_SET_MODE_FILTER. It
/// checks them before it reads the program, so asking with none (NULL)
/// installs nothing: EINVAL for flags it refuses, EFAULT otherwise.
pub fn seccomp_filter_flags_valid(flags: u64) -> bool {
    // SAFETY: a NULL program is never read past the flags check.
    let r = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            flags,
            std::ptr::null::<libc::sock_fprog>(),
        )
    };
    r < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::EFAULT)
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
