//! Signal names: the kernel's standard signals by number, and the
//! realtime ones named relative to the C library's SIGRTMIN. Here, at the
//! bottom, so that every layer can name a signal (`decode` for call
//! arguments, `kernel::fds` for a signalfd's mask under `-yy`).

/// Kernel names of the standard signals, indexed by number (x86).
const NAMES: [&str; 32] = [
    "0",
    "SIGHUP",
    "SIGINT",
    "SIGQUIT",
    "SIGILL",
    "SIGTRAP",
    "SIGABRT",
    "SIGBUS",
    "SIGFPE",
    "SIGKILL",
    "SIGUSR1",
    "SIGSEGV",
    "SIGUSR2",
    "SIGPIPE",
    "SIGALRM",
    "SIGTERM",
    "SIGSTKFLT",
    "SIGCHLD",
    "SIGCONT",
    "SIGSTOP",
    "SIGTSTP",
    "SIGTTIN",
    "SIGTTOU",
    "SIGURG",
    "SIGXCPU",
    "SIGXFSZ",
    "SIGVTALRM",
    "SIGPROF",
    "SIGWINCH",
    "SIGIO",
    "SIGPWR",
    "SIGSYS",
];

/// The kernel's first realtime signal; the C library reserves a few above it.
pub const KERNEL_SIGRTMIN: i32 = 32;
/// The kernel's last signal number.
pub const KERNEL_SIGRTMAX: i32 = 64;

/// The name of signal `sig`: `SIGUSR1`, `SIGRTMIN+3` (relative to the C
/// library's SIGRTMIN, as `kill -s` spells it), `SIGRT_1` for the realtime
/// signals the C library reserves, or `None` for a number out of range.
pub fn signal_name(sig: i32) -> Option<String> {
    if (1..KERNEL_SIGRTMIN).contains(&sig) {
        return Some(NAMES[sig as usize].to_string());
    }
    if !(KERNEL_SIGRTMIN..=KERNEL_SIGRTMAX).contains(&sig) {
        return None;
    }
    let rtmin = libc::SIGRTMIN();
    Some(if sig < rtmin {
        format!("SIGRT_{}", sig - KERNEL_SIGRTMIN)
    } else if sig == rtmin {
        "SIGRTMIN".to_string()
    } else if sig == libc::SIGRTMAX() {
        "SIGRTMAX".to_string()
    } else {
        format!("SIGRTMIN+{}", sig - rtmin)
    })
}
