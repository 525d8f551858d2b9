//! What the forked child does for the emulation before it execs the
//! command, prepared by the parent beforehand so that the child makes only
//! async-signal-safe system calls: a private mount namespace whose `/dev`
//! also lists the emulated nodes (libpcap finds usbmon interfaces by
//! reading `/dev` for `usbmonN` names), and the seccomp filter that hands
//! the emulated calls to the supervisor, whose listener goes to rtrace over
//! a socket pair.

use std::ffi::CString;
use std::os::fd::{AsRawFd, OwnedFd};

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

/// The filter: the emulated calls of both ABIs return USER_NOTIF, every
/// other call (and every x32 call) ALLOW.
pub fn program() -> Vec<libc::sock_filter> {
    crate::emu::notify::filter(&native_calls(), &compat_calls())
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
    /// The filter and the socket pair its listener goes over.
    attach: crate::emu::notify::Attach,
    dev: Option<DevPlan>,
    dev_failed: &'static str,
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
        Ok(ChildSetup {
            attach: crate::emu::notify::Attach::new(
                program(),
                "rtrace: --usbmon-replay: cannot install the emulation's seccomp filter\n",
            )?,
            dev: if private_dev { plan_dev(buses) } else { None },
            dev_failed: "rtrace: --usbmon-replay: cannot list the usbmonN nodes in /dev (no private mount namespace): listing will not show them, capture by name (-i usbmon0) still works\n",
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

    /// In the child: install the filter and send its listener to rtrace
    /// ([`crate::emu::notify::Attach::attach`]).
    ///
    /// # Safety
    /// Only in the forked child, as [`ChildSetup::private_dev`].
    pub unsafe fn attach(&self) {
        // SAFETY: the same contract.
        unsafe { self.attach.attach() }
    }

    /// In the parent after the fork: drop the child's end.
    pub fn forked(self) -> OwnedFd {
        self.attach.forked()
    }
}
