//! The seccomp user-notification machinery the emulations share: the
//! filter that hands a list of calls to a supervisor, the child's side
//! (install it, pass the listener to rtrace over a socket pair: [`Attach`])
//! and the supervisor's (receive a call, answer it, install an fd, read a
//! caller's string, run on a thread of its own: [`spawn`]).
//!
//! Nothing here knows a device: `usbmon` and `user_events` say which calls
//! they take and what they answer.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use crate::abi::xlat::bpf::{
    BPF_ABS, BPF_JEQ, BPF_JGE, BPF_JMP, BPF_K, BPF_LD, BPF_RET, BPF_W,
    SECCOMP_RET_ALLOW as RET_ALLOW, SECCOMP_RET_USER_NOTIF as RET_USER_NOTIF,
};
use crate::abi::xlat::process::__X32_SYSCALL_BIT as X32_SYSCALL_BIT;
/// `AUDIT_ARCH_X86_64` (a notification of a 64-bit call) and
/// `AUDIT_ARCH_I386` (of a 32-bit call).
pub use crate::abi::xlat::process::{AUDIT_ARCH_I386, AUDIT_ARCH_X86_64};
const LD_W_ABS: u16 = BPF_LD | BPF_W | BPF_ABS;
const JMP_JEQ_K: u16 = BPF_JMP | BPF_JEQ | BPF_K;
const JMP_JGE_K: u16 = BPF_JMP | BPF_JGE | BPF_K;
const RET_K: u16 = BPF_RET | BPF_K;

fn op(code: u16, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter { code, jt, jf, k }
}

/// The filter: the `native` (x86_64) and `compat` (i386) call numbers
/// return USER_NOTIF, every other call (and every x32 call) ALLOW.
pub fn filter(native: &[u32], compat: &[u32]) -> Vec<libc::sock_filter> {
    let checks = |nrs: &[u32]| {
        let mut v = vec![op(LD_W_ABS, 0, 0, 0)];
        for &nr in nrs {
            v.push(op(JMP_JEQ_K, nr, 0, 1));
            v.push(op(RET_K, RET_USER_NOTIF, 0, 0));
        }
        v.push(op(RET_K, RET_ALLOW, 0, 0));
        v
    };
    let mut native = checks(native);
    // x32 calls are not emulated.
    native.insert(1, op(JMP_JGE_K, X32_SYSCALL_BIT, 0, 1));
    native.insert(2, op(RET_K, RET_ALLOW, 0, 0));
    let compat = checks(compat);
    let mut prog = vec![
        op(LD_W_ABS, 4, 0, 0),
        op(JMP_JEQ_K, AUDIT_ARCH_X86_64, 0, native.len() as u8),
    ];
    prog.extend(native);
    prog.push(op(JMP_JEQ_K, AUDIT_ARCH_I386, 0, compat.len() as u8));
    prog.extend(compat);
    prog.push(op(RET_K, RET_ALLOW, 0, 0));
    prog
}

/// The child's side, made before the fork: the filter and the socket pair
/// its listener goes to rtrace over.
pub struct Attach {
    /// rtrace's end of the socket pair (the listener arrives on it).
    parent: OwnedFd,
    child: OwnedFd,
    prog: Vec<libc::sock_filter>,
    failed: &'static str,
}

impl Attach {
    /// Prepare filter `prog`; `failed` is the line the child writes when
    /// it cannot install it.
    pub fn new(prog: Vec<libc::sock_filter>, failed: &'static str) -> std::io::Result<Attach> {
        let mut fds = [0; 2];
        // SAFETY: socketpair writes two fds.
        if unsafe {
            libc::socketpair(
                libc::AF_UNIX,
                libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
                0,
                fds.as_mut_ptr(),
            )
        } < 0
        {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: both fds are ours.
        let (parent, child) =
            unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        Ok(Attach {
            parent,
            child,
            prog,
            failed,
        })
    }

    /// In the child: install the filter with a new listener and send the
    /// listener to rtrace. Without CAP_SYS_ADMIN the filter needs
    /// no-new-privs, which is then set. On failure it says so and exits.
    ///
    /// # Safety
    /// Only in the forked child: it makes raw system calls on data made
    /// before the fork.
    pub unsafe fn attach(&self) {
        let prog = libc::sock_fprog {
            len: self.prog.len() as u16,
            filter: self.prog.as_ptr() as *mut libc::sock_filter,
        };
        // SAFETY: raw calls on prepared data (see the function's contract).
        unsafe {
            let install = || {
                libc::syscall(
                    libc::SYS_seccomp,
                    libc::SECCOMP_SET_MODE_FILTER,
                    libc::SECCOMP_FILTER_FLAG_NEW_LISTENER | libc::SECCOMP_FILTER_FLAG_SPEC_ALLOW,
                    &prog as *const libc::sock_fprog,
                ) as i32
            };
            let mut listener = install();
            if listener < 0
                && *libc::__errno_location() == libc::EACCES
                && libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
            {
                listener = install();
            }
            if listener < 0 || !send_fd(self.child.as_raw_fd(), listener) {
                libc::write(2, self.failed.as_ptr().cast(), self.failed.len());
                libc::_exit(127);
            }
            libc::close(listener);
            libc::close(self.child.as_raw_fd());
            libc::close(self.parent.as_raw_fd());
        }
    }

    /// In the parent after the fork: drop the child's end.
    pub fn forked(self) -> OwnedFd {
        drop(self.child);
        self.parent
    }
}

/// Run `serve` with the listener that arrives on `sock`, on a thread named
/// `name` started with every signal blocked (rtrace's handlers run on its
/// main thread). Nothing runs if the child failed before sending it.
pub fn spawn<F>(name: &str, sock: OwnedFd, serve: F) -> Option<std::thread::JoinHandle<()>>
where
    F: FnOnce(OwnedFd) + Send + 'static,
{
    // SAFETY: sigset and pthread_sigmask on locals.
    let old = unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_BLOCK, &all, &mut old);
        old
    };
    let handle = std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            if let Some(listener) = receive_fd(&sock) {
                drop(sock);
                serve(listener);
            }
        })
        .ok();
    // SAFETY: restoring our mask.
    unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut()) };
    handle
}

/// What a call gets.
pub enum Answer {
    /// Returns this value.
    Val(i64),
    /// Fails with this (positive) errno.
    Err(i32),
    /// Runs in the kernel as if nothing intervened.
    Continue,
    /// Already answered, or held (answered later, or never: a caller
    /// that sleeps on a used-up recording).
    Done,
}

/// Receive the next notification on `listener` (None: the caller went
/// away, or a signal).
pub fn recv(listener: i32) -> Option<libc::seccomp_notif> {
    // The kernel writes its own `struct seccomp_notif`, whose size
    // SECCOMP_GET_NOTIF_SIZES tells; room to spare if a later kernel's
    // is bigger than libc's.
    #[repr(C)]
    struct Buf {
        req: libc::seccomp_notif,
        spare: [u8; 256],
    }
    // SAFETY: a zeroed seccomp_notif is valid; the kernel fills it.
    let mut buf: Buf = unsafe { std::mem::zeroed() };
    // SAFETY: SECCOMP_IOCTL_NOTIF_RECV writes into `buf`.
    let rc = unsafe { libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_RECV, &mut buf) };
    (rc == 0).then_some(buf.req)
}

/// Whether notification `id` is still waiting for its answer.
pub fn valid(listener: i32, id: u64) -> bool {
    let mut id = id;
    // SAFETY: the ioctl reads a u64.
    unsafe { libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_ID_VALID, &mut id) == 0 }
}

/// Send `answer` for notification `id` (nothing for [`Answer::Done`]).
pub fn send(listener: i32, id: u64, answer: Answer) {
    let (val, error, flags) = match answer {
        Answer::Done => return,
        Answer::Val(v) => (v, 0, 0),
        Answer::Err(e) => (0, -e, 0),
        Answer::Continue => (0, 0, libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32),
    };
    // Zeroed room after it, as for the request (see `recv`).
    #[repr(C)]
    struct Buf {
        resp: libc::seccomp_notif_resp,
        spare: [u8; 256],
    }
    let mut resp = Buf {
        resp: libc::seccomp_notif_resp {
            id,
            val,
            error,
            flags,
        },
        spare: [0; 256],
    };
    // SAFETY: the ioctl reads `resp`. A caller gone meanwhile (ENOENT)
    // loses its answer, as documented.
    unsafe { libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_SEND, &mut resp) };
}

/// Install our `src` in the caller of notification `id` as the lowest
/// free fd and answer the call with it (an open's result). The error is
/// the errno of the failure (ENOENT: the caller went away).
pub fn add_fd(listener: i32, id: u64, src: i32, cloexec: bool) -> Result<i32, i32> {
    let add = libc::seccomp_notif_addfd {
        id,
        flags: libc::SECCOMP_ADDFD_FLAG_SEND as u32,
        srcfd: src as u32,
        newfd: 0,
        newfd_flags: if cloexec { libc::O_CLOEXEC as u32 } else { 0 },
    };
    // SAFETY: the ioctl reads `add`; with SEND it also answers the call
    // with the new fd.
    let fd = unsafe { libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_ADDFD, &add) };
    if fd < 0 {
        Err(std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::ENOMEM))
    } else {
        Ok(fd)
    }
}

/// A NUL-terminated string of `pid` at `addr`, as `strncpy_from_user`
/// with `max` bytes of room: Err(EFAULT) if unreadable, Err(E2BIG) if no
/// NUL comes within `max` bytes.
pub fn read_cstr(pid: i32, addr: u64, max: usize) -> Result<Vec<u8>, i32> {
    let mut out = Vec::new();
    let mut at = addr;
    while out.len() < max {
        let step = ((4096 - (at & 4095)) as usize).min(max - out.len());
        let mut page = vec![0u8; step];
        if !crate::kernel::vm_read(pid, at, &mut page) {
            return Err(libc::EFAULT);
        }
        if let Some(end) = page.iter().position(|&b| b == 0) {
            out.extend_from_slice(&page[..end]);
            return Ok(out);
        }
        out.extend_from_slice(&page);
        at += step as u64;
    }
    Err(libc::E2BIG)
}

/// The thread group of task `tid`.
pub fn tgid_of(tid: i32) -> i32 {
    std::fs::read_to_string(format!("/proc/{tid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Tgid:").and_then(|v| v.trim().parse().ok()))
        })
        .unwrap_or(tid)
}

/// Send `fd` over socket `sock` (SCM_RIGHTS), with raw calls only.
///
/// # Safety
/// Plain system calls on stack data.
pub unsafe fn send_fd(sock: i32, fd: i32) -> bool {
    #[repr(C)]
    struct Cmsg {
        hdr: libc::cmsghdr,
        fd: i32,
    }
    // SAFETY: zeroed POD structs filled below.
    unsafe {
        let mut byte = 0u8;
        let mut iov = libc::iovec {
            iov_base: (&mut byte as *mut u8).cast(),
            iov_len: 1,
        };
        let mut cmsg: Cmsg = std::mem::zeroed();
        cmsg.hdr.cmsg_len = libc::CMSG_LEN(4) as usize;
        cmsg.hdr.cmsg_level = libc::SOL_SOCKET;
        cmsg.hdr.cmsg_type = libc::SCM_RIGHTS;
        cmsg.fd = fd;
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = (&mut cmsg as *mut Cmsg).cast();
        msg.msg_controllen = libc::CMSG_SPACE(4) as usize;
        libc::sendmsg(sock, &msg, 0) == 1
    }
}

/// Receive the listener rtrace's child sent on `sock` (None: the child
/// failed before sending it).
pub fn receive_fd(sock: &OwnedFd) -> Option<OwnedFd> {
    #[repr(C)]
    struct Cmsg {
        hdr: libc::cmsghdr,
        fd: i32,
        pad: i32,
    }
    // SAFETY: zeroed POD structs the kernel fills.
    unsafe {
        let mut byte = 0u8;
        let mut iov = libc::iovec {
            iov_base: (&mut byte as *mut u8).cast(),
            iov_len: 1,
        };
        let mut cmsg: Cmsg = std::mem::zeroed();
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = (&mut cmsg as *mut Cmsg).cast();
        msg.msg_controllen = std::mem::size_of::<Cmsg>();
        loop {
            let n = libc::recvmsg(sock.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC);
            if n == 1
                && cmsg.hdr.cmsg_level == libc::SOL_SOCKET
                && cmsg.hdr.cmsg_type == libc::SCM_RIGHTS
            {
                return Some(OwnedFd::from_raw_fd(cmsg.fd));
            }
            if n < 0 && *libc::__errno_location() == libc::EINTR {
                continue;
            }
            return None;
        }
    }
}
