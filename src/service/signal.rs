//! Signal names and the signal-related call handlers (kill, tgkill, tkill).

use crate::call::{
    CallClass::{Normal, Sigreturn},
    Handler, default_in,
};
use crate::call::{CallCtx, CallType};
use crate::format::Printer;
use crate::service::h;

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
const KERNEL_SIGRTMIN: i32 = 32;
/// The kernel's last signal number.
const KERNEL_SIGRTMAX: i32 = 64;

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

/// Print a signal number parameter by name (`-V`: the number).
pub fn put_signal(p: &mut Printer, name: &str, sig: i64) {
    let sym = if p.symbols() {
        signal_name(sig as i32)
    } else {
        None
    };
    match sym {
        Some(sym) => p.field(name, &sym),
        None => p.int(name, sig),
    }
}

/// `kill(pid, sig)`
pub fn kill_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("pid", c.int(0));
    put_signal(p, "sig", c.int(1));
    CallType::Done
}

/// `tgkill(tgid, tid, sig)`
pub fn tgkill_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("tgid", c.int(0));
    p.int("tid", c.int(1));
    put_signal(p, "sig", c.int(2));
    CallType::Done
}

/// `rt_sigreturn()`, `sigreturn()`: no parameters, no return on success.
pub fn sigreturn_out(_p: &mut Printer, _c: &mut CallCtx) -> CallType {
    CallType::NoReturn
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("kill", kill_out, default_in, Normal),
    h("rt_sigreturn", sigreturn_out, default_in, Sigreturn),
    h("sigreturn", sigreturn_out, default_in, Sigreturn),
    h("tgkill", tgkill_out, default_in, Normal),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(signal_name(10).as_deref(), Some("SIGUSR1"));
        assert_eq!(signal_name(31).as_deref(), Some("SIGSYS"));
        let rtmin = libc::SIGRTMIN();
        assert_eq!(signal_name(rtmin).as_deref(), Some("SIGRTMIN"));
        assert_eq!(signal_name(rtmin + 2).as_deref(), Some("SIGRTMIN+2"));
        assert_eq!(signal_name(65), None);
    }
}
