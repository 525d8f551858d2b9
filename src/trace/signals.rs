//! rtrace's own signals: the interrupts that end or detach a trace
//! (SIGINT, SIGTERM, SIGHUP, SIGQUIT) and the SIGALRM that flushes output
//! and ticks the automatic `--same-cpu` mode.
//!
//! The handlers only touch atomics; the main loop reads them between
//! waits. No handler restarts a call, so a blocking wait returns EINTR and
//! the loop sees the signal at once.

use std::sync::atomic::{AtomicI32, AtomicU32, Ordering};

/// Count of SIGINT/SIGTERM/SIGHUP/SIGQUIT received, bumped by the signal
/// handler.
pub(super) static INTERRUPTS: AtomicU32 = AtomicU32::new(0);

/// The first interrupt's signal, when someone sent it to rtrace alone (not
/// the terminal, whose ^C reaches the whole foreground group): the started
/// command is to get it too, as if rtrace were not there.
pub(super) static TO_FORWARD: AtomicI32 = AtomicI32::new(0);

/// `si_code` of a signal the kernel sent (a terminal's ^C, ^\\, hangup).
const SI_KERNEL: i32 = 0x80;

/// Who sent the first interrupt sent by a process (its pid), and when
/// (CLOCK_MONOTONIC milliseconds).
pub(super) static FIRST_SENDER: AtomicI32 = AtomicI32::new(0);
pub(super) static FIRST_AT_MS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

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
    INTERRUPTS.fetch_add(1, Ordering::Relaxed);
    // The main loop may have checked the counter just before blocking in
    // waitpid: a short timer's SIGALRM interrupts that wait.
    arm_alarm(20_000);
}

/// Set by SIGALRM: buffered output is due to be written, and the
/// automatic `--same-cpu` mode's tick has come.
pub(super) static FLUSH_DUE: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

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
    }
}
