//! What the forked child does for the emulation before it execs the
//! command, prepared by the parent beforehand so that the child makes only
//! async-signal-safe system calls: a private mount namespace whose `/dev`
//! also lists the emulated nodes (libpcap finds usbmon interfaces by
//! reading `/dev` for `usbmonN` names), and the seccomp filter that hands
//! the emulated calls to the supervisor, whose listener goes to rtrace over
//! a socket pair.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

const AUDIT_ARCH_X86_64: u32 = 0xC000_003E;
const AUDIT_ARCH_I386: u32 = super::supervisor::AUDIT_ARCH_I386;
const X32_SYSCALL_BIT: u32 = 0x4000_0000;
const RET_ALLOW: u32 = 0x7fff_0000;
const RET_USER_NOTIF: u32 = 0x7fc0_0000;
const LD_W_ABS: u16 = 0x20;
const JMP_JEQ_K: u16 = 0x15;
const JMP_JGE_K: u16 = 0x35;
const RET_K: u16 = 0x06;

/// The x86_64 calls handed to the supervisor.
fn native_calls() -> Vec<u32> {
    use syscalls::x86_64::Sysno as S;
    [
        S::openat,
        S::open,
        S::ioctl,
        S::read,
        S::mmap,
        S::poll,
        S::ppoll,
        S::select,
        S::pselect6,
    ]
    .iter()
    .map(|s| *s as u32)
    .collect()
}

/// The i386 calls handed to the supervisor (poll-like calls are not
/// emulated for 32-bit callers).
fn compat_calls() -> Vec<u32> {
    use syscalls::x86::Sysno as S;
    [S::openat, S::open, S::ioctl, S::read, S::mmap2]
        .iter()
        .map(|s| *s as u32)
        .collect()
}

fn op(code: u16, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter { code, jt, jf, k }
}

/// The filter: the emulated calls of both ABIs return USER_NOTIF, every
/// other call (and every x32 call) ALLOW.
pub fn program() -> Vec<libc::sock_filter> {
    let checks = |nrs: &[u32]| {
        let mut v = vec![op(LD_W_ABS, 0, 0, 0)];
        for &nr in nrs {
            v.push(op(JMP_JEQ_K, nr, 0, 1));
            v.push(op(RET_K, RET_USER_NOTIF, 0, 0));
        }
        v.push(op(RET_K, RET_ALLOW, 0, 0));
        v
    };
    let mut native = checks(&native_calls());
    // x32 calls are not emulated.
    native.insert(1, op(JMP_JGE_K, X32_SYSCALL_BIT, 0, 1));
    native.insert(2, op(RET_K, RET_ALLOW, 0, 0));
    let compat = checks(&compat_calls());
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

/// One entry of the real /dev, recreated in the private one.
enum DevEntry {
    /// A symlink: its target.
    Link { dst: CString, target: CString },
    /// A directory, bind-mounted.
    Dir {
        src: CString,
        dst: CString,
        mode: u32,
    },
    /// Anything else, bind-mounted on an empty file.
    File { src: CString, dst: CString },
}

/// The private /dev, planned.
struct DevPlan {
    /// The real /dev, opened before the tmpfs covers it.
    old: OwnedFd,
    entries: Vec<DevEntry>,
    /// `/dev/usbmonN` for bus 0 and each recorded bus.
    nodes: Vec<(CString, u16)>,
}

/// Everything the child needs, made before the fork.
pub struct ChildSetup {
    /// rtrace's end of the socket pair (the listener arrives on it).
    pub(super) parent: OwnedFd,
    child: OwnedFd,
    prog: Vec<libc::sock_filter>,
    dev: Option<DevPlan>,
    dev_failed: &'static str,
    attach_failed: &'static str,
}

fn cstr(s: String) -> Option<CString> {
    CString::new(s).ok()
}

fn plan_dev(buses: &[u16]) -> Option<DevPlan> {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::fs::File::open("/dev").ok()?;
    // Opened close-on-exec: the child uses it before its exec only.
    let old = OwnedFd::from(dir);
    // An entry that cannot be recreated (gone meanwhile, a name that is
    // no C string) is left out rather than the whole listing.
    let entry = |e: std::fs::DirEntry| -> Option<DevEntry> {
        let name = e.file_name().into_string().ok()?;
        let meta = std::fs::symlink_metadata(e.path()).ok()?;
        let src = cstr(format!("/proc/self/fd/{}/{name}", old.as_raw_fd()))?;
        let dst = cstr(format!("/dev/{name}"))?;
        let ft = meta.file_type();
        Some(if ft.is_symlink() {
            let target = std::fs::read_link(e.path()).ok()?;
            DevEntry::Link {
                dst,
                target: CString::new(target.into_os_string().into_encoded_bytes()).ok()?,
            }
        } else if ft.is_dir() {
            DevEntry::Dir {
                src,
                dst,
                mode: meta.permissions().mode() & 0o7777,
            }
        } else {
            DevEntry::File { src, dst }
        })
    };
    let entries = std::fs::read_dir("/dev")
        .ok()?
        .flatten()
        .filter_map(entry)
        .collect();
    let nodes = std::iter::once(0)
        .chain(buses.iter().copied())
        .filter_map(|b| Some((cstr(format!("/dev/usbmon{b}"))?, b)))
        .collect();
    Some(DevPlan {
        old,
        entries,
        nodes,
    })
}

impl ChildSetup {
    /// Prepare for a command that will see `buses`; `private_dev` asks
    /// for the /dev listing (it needs CAP_SYS_ADMIN).
    pub fn new(buses: &[u16], private_dev: bool) -> std::io::Result<ChildSetup> {
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
        Ok(ChildSetup {
            parent,
            child,
            prog: program(),
            dev: if private_dev { plan_dev(buses) } else { None },
            dev_failed: "rtrace: --usbmon-replay: cannot list the usbmonN nodes in /dev (no private mount namespace): listing will not show them, capture by name (-i usbmon0) still works\n",
            attach_failed: "rtrace: --usbmon-replay: cannot install the emulation's seccomp filter\n",
        })
    }

    /// In the child: a private mount namespace whose /dev holds the real
    /// one's entries and the usbmon nodes. On failure it says so and
    /// leaves /dev as it was.
    ///
    /// # Safety
    /// Only in the forked child: it makes raw system calls on data made
    /// before the fork.
    pub unsafe fn private_dev(&self) {
        let Some(plan) = &self.dev else {
            return;
        };
        // SAFETY: raw calls on prepared strings (see the function's contract).
        unsafe {
            let ok = libc::unshare(libc::CLONE_NEWNS) == 0
                && libc::mount(
                    std::ptr::null(),
                    c"/".as_ptr(),
                    std::ptr::null(),
                    libc::MS_REC | libc::MS_PRIVATE,
                    std::ptr::null(),
                ) == 0
                && libc::mount(
                    c"rtrace-usbmon".as_ptr(),
                    c"/dev".as_ptr(),
                    c"tmpfs".as_ptr(),
                    libc::MS_NOSUID,
                    c"mode=0755".as_ptr().cast(),
                ) == 0;
            if !ok {
                libc::write(2, self.dev_failed.as_ptr().cast(), self.dev_failed.len());
                return;
            }
            for e in &plan.entries {
                let bind = |src: &CString, dst: &CString| {
                    libc::mount(
                        src.as_ptr(),
                        dst.as_ptr(),
                        std::ptr::null(),
                        libc::MS_BIND | libc::MS_REC,
                        std::ptr::null(),
                    );
                };
                match e {
                    DevEntry::Link { dst, target } => {
                        libc::symlink(target.as_ptr(), dst.as_ptr());
                    }
                    DevEntry::Dir { src, dst, mode } => {
                        if libc::mkdir(dst.as_ptr(), *mode) == 0 {
                            bind(src, dst);
                        }
                    }
                    DevEntry::File { src, dst } => {
                        let fd = libc::open(
                            dst.as_ptr(),
                            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_CLOEXEC,
                            0o600,
                        );
                        if fd >= 0 {
                            libc::close(fd);
                            bind(src, dst);
                        }
                    }
                }
            }
            libc::close(plan.old.as_raw_fd());
            for (path, bus) in &plan.nodes {
                // The kernel's usbmon major is dynamic; this number is
                // never used: every open of the name goes to the supervisor.
                libc::mknod(
                    path.as_ptr(),
                    libc::S_IFCHR | 0o600,
                    libc::makedev(0, u32::from(*bus)),
                );
            }
        }
    }

    /// In the child: install the filter with a new listener and send the
    /// listener to rtrace. Without CAP_SYS_ADMIN the filter needs
    /// no-new-privs, which is then set. On failure it says so and exits.
    ///
    /// # Safety
    /// Only in the forked child, as [`ChildSetup::private_dev`].
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
                libc::write(
                    2,
                    self.attach_failed.as_ptr().cast(),
                    self.attach_failed.len(),
                );
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

/// Send `fd` over socket `sock` (SCM_RIGHTS), with raw calls only.
///
/// # Safety
/// Plain system calls on stack data.
unsafe fn send_fd(sock: i32, fd: i32) -> bool {
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
