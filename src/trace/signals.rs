//! rtrace's own signals: the interrupts that end or detach a trace
//! (SIGINT, SIGTERM, SIGHUP, SIGQUIT) and the SIGALRM that flushes output
//! and ticks the automatic `--same-cpu` mode.
//!
//! The handlers only touch atomics; the main loop reads them between
//! waits. No handler restarts a call, so a blocking wait returns EINTR and
//! the loop sees the signal at once.
//!
//! None of this may reach the started command: it must start with the
//! signal state rtrace itself was given (which signals are ignored, which
//! blocked), as it would untraced. [`record_inherited_signals`] notes that
//! state before anything changes it (the binary calls it from
//! `.init_array`, before the Rust runtime ignores SIGPIPE), and
//! [`restore_dispositions`] and [`restore_mask`] put it back in the child
//! before exec.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64, Ordering};

/// Signals ignored when rtrace started (bit N-1 for signal N, as SigIgn in
/// /proc/PID/status), and those blocked (SigBlk).
static INHERITED_IGNORED: AtomicU64 = AtomicU64::new(0);
static INHERITED_BLOCKED: AtomicU64 = AtomicU64::new(0);
static INHERITED_RECORDED: AtomicBool = AtomicBool::new(false);

/// The kernel's `struct sigaction` as rt_sigaction(2) takes it on x86_64
/// (handler, flags, restorer, mask). Only SIG_DFL and SIG_IGN are read and
/// set here, which need neither restorer nor mask. The raw call reaches
/// the signals the C library keeps for itself (32 and 33) too.
#[repr(C)]
#[derive(Default)]
struct KernelSigaction {
    handler: usize,
    flags: u64,
    restorer: usize,
    mask: u64,
}

/// The highest signal number (SIGRTMAX).
const LAST_SIGNAL: i32 = 64;

/// Note which signals rtrace was started with ignored and blocked, once:
/// the first call wins. Async-signal-safe and allocation-free, so it can
/// run before `main`.
pub fn record_inherited_signals() {
    if INHERITED_RECORDED.swap(true, Ordering::Relaxed) {
        return;
    }
    let mut ignored = 0u64;
    for sig in 1..=LAST_SIGNAL {
        let mut old = KernelSigaction::default();
        // SAFETY: rt_sigaction with no new action only writes `old`.
        let r = unsafe {
            libc::syscall(
                libc::SYS_rt_sigaction,
                sig,
                std::ptr::null::<KernelSigaction>(),
                &mut old as *mut KernelSigaction,
                8usize,
            )
        };
        if r == 0 && old.handler == libc::SIG_IGN {
            ignored |= 1 << (sig - 1);
        }
    }
    let mut blocked = 0u64;
    // SAFETY: rt_sigprocmask with no new set only writes `blocked`.
    unsafe {
        libc::syscall(
            libc::SYS_rt_sigprocmask,
            libc::SIG_BLOCK,
            std::ptr::null::<u64>(),
            &mut blocked as *mut u64,
            8usize,
        )
    };
    INHERITED_IGNORED.store(ignored, Ordering::Relaxed);
    INHERITED_BLOCKED.store(blocked, Ordering::Relaxed);
}

/// Block every signal, returning the mask to give back with
/// [`unblock`]: around the fork of the command, so none of rtrace's
/// handlers runs in the child before [`restore_dispositions`].
pub(super) fn block_all() -> u64 {
    let all = u64::MAX;
    let mut old = 0u64;
    // SAFETY: rt_sigprocmask reads `all` and writes `old`.
    unsafe {
        libc::syscall(
            libc::SYS_rt_sigprocmask,
            libc::SIG_SETMASK,
            &all as *const u64,
            &mut old as *mut u64,
            8usize,
        )
    };
    old
}

/// Give back the mask [`block_all`] returned.
pub(super) fn unblock(mask: u64) {
    // SAFETY: rt_sigprocmask reads `mask`.
    unsafe {
        libc::syscall(
            libc::SYS_rt_sigprocmask,
            libc::SIG_SETMASK,
            &mask as *const u64,
            std::ptr::null_mut::<u64>(),
            8usize,
        )
    };
}

/// Dispositions as rtrace was started with them: every signal rtrace
/// found ignored is ignored, every other one default (exec would reset a
/// handler to default anyway, but not an ignored signal rtrace catches or
/// a default one it ignores, such as SIGPIPE). Called in the forked child
/// with every signal blocked; async-signal-safe.
pub(super) fn restore_dispositions() {
    let ignored = INHERITED_IGNORED.load(Ordering::Relaxed);
    for sig in 1..=LAST_SIGNAL {
        if sig == libc::SIGKILL || sig == libc::SIGSTOP {
            continue;
        }
        let act = KernelSigaction {
            handler: if ignored & (1 << (sig - 1)) != 0 {
                libc::SIG_IGN
            } else {
                libc::SIG_DFL
            },
            ..KernelSigaction::default()
        };
        // SAFETY: rt_sigaction reads `act`.
        unsafe {
            libc::syscall(
                libc::SYS_rt_sigaction,
                sig,
                &act as *const KernelSigaction,
                std::ptr::null_mut::<KernelSigaction>(),
                8usize,
            )
        };
    }
}

/// The mask rtrace was started with, set in the child just before exec
/// (after [`restore_dispositions`]: a signal that came meanwhile is
/// delivered now, as the command would have got it).
pub(super) fn restore_mask() {
    unblock(INHERITED_BLOCKED.load(Ordering::Relaxed));
}

/// Count of SIGINT/SIGTERM/SIGHUP/SIGQUIT received, bumped by the signal
/// handler.
pub(super) static INTERRUPTS: AtomicU32 = AtomicU32::new(0);

/// The first interrupt's signal, when someone sent it to rtrace alone (not
/// the terminal, whose ^C reaches the whole foreground group): the started
/// command is to get it too, as if rtrace were not there.
pub(super) static TO_FORWARD: AtomicI32 = AtomicI32::new(0);

/// `si_code` of a signal the kernel sent (a terminal's ^C, ^\\, hangup).
const SI_KERNEL: i32 = crate::abi::xlat::signal::SI_KERNEL as i32;

/// Who sent the first interrupt sent by a process (its pid), and when
/// (CLOCK_MONOTONIC milliseconds).
pub(super) static FIRST_SENDER: AtomicI32 = AtomicI32::new(0);
pub(super) static FIRST_AT_MS: AtomicU64 = AtomicU64::new(0);

/// Milliseconds on CLOCK_MONOTONIC (async-signal-safe).
fn monotonic_ms() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes `ts`.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000
}

extern "C" fn on_interrupt(sig: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
    let (code, sender) = unsafe { ((*info).si_code, (*info).si_pid()) };
    let now = monotonic_ms();
    let seen = INTERRUPTS.load(Ordering::Relaxed);
    if code != SI_KERNEL {
        if seen == 0 {
            TO_FORWARD.store(sig, Ordering::Relaxed);
            FIRST_SENDER.store(sender, Ordering::Relaxed);
            FIRST_AT_MS.store(now, Ordering::Relaxed);
        } else if seen == 1
            && TO_FORWARD.load(Ordering::Relaxed) == sig
            && FIRST_SENDER.load(Ordering::Relaxed) == sender
            && now.saturating_sub(FIRST_AT_MS.load(Ordering::Relaxed)) < 100
        {
            // The same signal from the same sender within 100 ms: `timeout`
            // signals its child and then the child's process group, so
            // rtrace gets it twice. That is one request, not a second.
            return;
        }
    }
    if INTERRUPTS.fetch_add(1, Ordering::Relaxed) >= 1 {
        // The second interrupt ends rtrace even while a write of the trace
        // is blocked (a reader that stopped reading): the write, which
        // this signal interrupts, gives up (the timer armed below
        // interrupts it too if it began just after this).
        crate::output::GIVE_UP_WRITING.store(true, Ordering::Relaxed);
    }
    // The main loop may have checked the counter just before blocking in
    // waitpid: a short timer's SIGALRM interrupts that wait.
    arm_alarm(20_000);
}

/// Set by SIGALRM: buffered output is due to be written, and the
/// automatic `--same-cpu` mode's tick has come.
pub(super) static FLUSH_DUE: AtomicBool = AtomicBool::new(false);

extern "C" fn on_alarm(_sig: libc::c_int) {
    FLUSH_DUE.store(true, Ordering::Relaxed);
}

/// How long buffered output may wait before it is written: short enough
/// that a trace on a terminal keeps up with a person, long enough that a
/// busy tracee's lines go out in large writes.
pub(super) const FLUSH_DELAY_US: i64 = 30_000;

/// Arm a one-shot SIGALRM in `usec` microseconds.
pub(super) fn arm_alarm(usec: i64) {
    let timer = libc::itimerval {
        it_interval: libc::timeval {
            tv_sec: 0,
            tv_usec: 0,
        },
        it_value: libc::timeval {
            tv_sec: 0,
            tv_usec: usec,
        },
    };
    // SAFETY: setitimer only reads the struct.
    unsafe { libc::setitimer(libc::ITIMER_REAL, &timer, std::ptr::null_mut()) };
}

/// Install the handlers of the interrupting signals and of SIGALRM.
pub(super) fn install_signal_handlers() {
    // Used as a library without the binary's early call: what is seen now
    // is the best there is.
    record_inherited_signals();
    // SAFETY: the handler only touches an atomic; no SA_RESTART, so a blocking
    // waitpid returns EINTR and the loop sees the interrupt at once.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_interrupt as *const () as usize;
        sa.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&mut sa.sa_mask);
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT] {
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
        sa.sa_flags = 0;
        sa.sa_sigaction = on_alarm as *const () as usize;
        libc::sigaction(libc::SIGALRM, &sa, std::ptr::null_mut());
        // A broken output pipe is reported as a write error, not a signal.
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        // Handed a mask that blocks them, rtrace would not hear its
        // interrupts or its timer; the command gets the mask back.
        let mut own: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut own);
        for sig in [
            libc::SIGINT,
            libc::SIGTERM,
            libc::SIGHUP,
            libc::SIGQUIT,
            libc::SIGALRM,
        ] {
            libc::sigaddset(&mut own, sig);
        }
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &own, std::ptr::null_mut());
    }
}
