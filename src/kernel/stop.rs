//! Stops as values: what a wait reports of a tracee, and the one way a
//! ptrace-stopped tracee goes on.
//!
//! A tracee in a ptrace-stop stays stopped until its tracer resumes it,
//! and resuming it twice is a request to a task that is no longer
//! stopped (ESRCH, or worse, a request meant for an earlier stop applied
//! to a later one). So a stop is a [`Stop`]: only the wait layer here
//! ([`wait`], [`ready`]) makes one, it is neither `Clone` nor `Copy`, and
//! the one way of letting the tracee go on, [`Stop::resume`], takes it by
//! value: a stop resumed twice does not compile. A stop kept stopped on
//! purpose is [`Stop::hold`], which says so where it is done and gives a
//! [`Held`] to resume later. Both return [`Handled`], which nothing else
//! makes: a function that takes a stop and returns `Handled` does not
//! compile with a path that neither resumes nor holds it. The raw ptrace
//! request is reachable only through [`Resume`], from here.

use std::io;

/// How a stopped tracee goes on: the ptrace request that resumes it and
/// the signal it delivers (0 for none). A signal is a plain number:
/// realtime signals have no name in nix's `Signal`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resume {
    /// PTRACE_SYSCALL: run to the next syscall stop (or event, signal).
    Syscall(i32),
    /// PTRACE_CONT: run on; only events, signals and the seccomp filter's
    /// RET_TRACE stop it.
    Cont(i32),
    /// PTRACE_LISTEN: stay in the group-stop the tracee is in, but report
    /// what comes (SIGCONT, an event), as job control needs.
    Listen,
    /// PTRACE_DETACH: let go of the tracee.
    Detach(i32),
}

impl Resume {
    /// The request and the signal it delivers.
    fn request(self) -> (libc::c_uint, i32) {
        match self {
            Resume::Syscall(sig) => (libc::PTRACE_SYSCALL, sig),
            Resume::Cont(sig) => (libc::PTRACE_CONT, sig),
            Resume::Listen => (libc::PTRACE_LISTEN, 0),
            Resume::Detach(sig) => (libc::PTRACE_DETACH, sig),
        }
    }

    /// Whether the tracee runs its own code after it (it neither stays
    /// stopped nor leaves the trace).
    pub fn runs(self) -> bool {
        matches!(self, Resume::Syscall(_) | Resume::Cont(_))
    }
}

/// A tracee in a ptrace-stop, as a wait reported it: it stays stopped
/// until this value is consumed by [`Stop::resume`] (or kept on purpose
/// with [`Stop::hold`]).
///
/// Resumed once, a stop gives the [`Handled`] a stop's handler returns:
///
/// ```no_run
/// use rtrace_cli::kernel::{Handled, Resume, Stop};
/// fn once(stop: Stop) -> Handled {
///     stop.resume(Resume::Syscall(0))
/// }
/// ```
///
/// Resumed twice, it does not compile (use of a moved value):
///
/// ```compile_fail,E0382
/// # use rtrace_cli::kernel::{Handled, Resume, Stop};
/// fn twice(stop: Stop) -> Handled {
///     stop.resume(Resume::Syscall(0));
///     stop.resume(Resume::Cont(0))
/// }
/// ```
///
/// Nor does a handler that forgets it (no `Handled` to return):
///
/// ```compile_fail,E0308
/// # use rtrace_cli::kernel::{Handled, Stop};
/// fn never(stop: Stop) -> Handled {
///     let _ = stop.pid();
/// }
/// ```
#[must_use = "a stopped tracee stays stopped until it is resumed (or held on purpose)"]
#[derive(Debug)]
pub struct Stop {
    pid: i32,
    /// The raw wait status (WIFSTOPPED).
    status: i32,
}

impl Stop {
    /// The stopped task's id.
    pub fn pid(&self) -> i32 {
        self.pid
    }

    /// The stop's signal (WSTOPSIG): SIGTRAP|0x80 at a syscall stop,
    /// SIGTRAP at an event, the signal at a signal-delivery stop.
    pub fn sig(&self) -> i32 {
        libc::WSTOPSIG(self.status)
    }

    /// The PTRACE_EVENT_* the stop reports (0: none).
    pub fn event(&self) -> i32 {
        (self.status >> 16) & 0xff
    }

    /// Let the tracee go on as `how` says. The request can fail only
    /// with ESRCH, when the tracee died meanwhile (its exit status will
    /// tell), so the failure is not reported.
    pub fn resume(self, how: Resume) -> Handled {
        let (request, sig) = how.request();
        // SAFETY: these requests take no pointers; `data` is the signal.
        unsafe {
            libc::ptrace(
                request,
                self.pid,
                std::ptr::null_mut::<libc::c_void>(),
                sig as libc::c_long as *mut libc::c_void,
            )
        };
        Handled(())
    }

    /// Keep the tracee stopped, to be resumed later through
    /// [`Held::release`].
    pub fn hold(self) -> (Held, Handled) {
        (Held(self), Handled(()))
    }
}

/// Proof that a stop was dealt with: resumed, or held on purpose. Only
/// [`Stop::resume`] and [`Stop::hold`] make one.
#[derive(Debug)]
pub struct Handled(());

/// A stop kept on purpose: the tracee stays stopped until the stop is
/// released and resumed. Dropping one leaves the tracee stopped for good,
/// which only a task that is gone (or no longer ours) may be left in.
#[must_use = "a held tracee stays stopped until its stop is released and resumed"]
#[derive(Debug)]
pub struct Held(Stop);

impl Held {
    /// The held task's id.
    pub fn pid(&self) -> i32 {
        self.0.pid
    }

    /// The stop again, to be resumed now.
    pub fn release(self) -> Stop {
        self.0
    }
}

/// What a wait reported of a tracee.
#[derive(Debug)]
pub enum Waited {
    /// It is in a ptrace-stop.
    Stopped(Stop),
    /// It exited or was killed: the raw wait status.
    Ended {
        /// The task.
        pid: i32,
        /// Its raw wait status.
        status: i32,
    },
    /// Any other status (a continued one, which rtrace does not ask for).
    Other {
        /// The task.
        pid: i32,
        /// Its raw wait status.
        status: i32,
    },
}

impl Waited {
    /// The task it is about.
    pub fn pid(&self) -> i32 {
        match self {
            Waited::Stopped(stop) => stop.pid,
            Waited::Ended { pid, .. } | Waited::Other { pid, .. } => *pid,
        }
    }
}

/// waitpid(2) for tracees of any kind (`__WALL`): the pid and raw status,
/// `None` when a signal interrupted it.
fn waitpid(pid: i32, flags: libc::c_int) -> Option<io::Result<(i32, i32)>> {
    let mut status = 0;
    // SAFETY: waitpid writes only `status`.
    let r = unsafe { libc::waitpid(pid, &mut status, flags | libc::__WALL) };
    if r < 0 {
        let e = io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::EINTR) {
            return None;
        }
        return Some(Err(e));
    }
    Some(Ok((r, status)))
}

fn waited(pid: i32, status: i32) -> Waited {
    if libc::WIFSTOPPED(status) {
        Waited::Stopped(Stop { pid, status })
    } else if libc::WIFEXITED(status) || libc::WIFSIGNALED(status) {
        Waited::Ended { pid, status }
    } else {
        Waited::Other { pid, status }
    }
}

/// Wait for tracee `pid` (-1: any) to stop or end; `None` when a signal
/// interrupted the wait.
pub fn wait(pid: i32) -> Option<io::Result<Waited>> {
    waitpid(pid, 0).map(|r| r.map(|(pid, status)| waited(pid, status)))
}

/// A status some tracee has ready now, if any (WNOHANG).
pub fn ready() -> Option<Waited> {
    match waitpid(-1, libc::WNOHANG)? {
        Ok((pid, status)) if pid > 0 => Some(waited(pid, status)),
        _ => None,
    }
}
