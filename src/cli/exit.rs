//! How rtrace ends: a one-line error, text written to stdout, or the
//! traced command's own death by a signal.

use std::process::ExitCode;

/// Say what went wrong in one line on stderr and exit with `code`. A
/// stderr that cannot take the line (a closed pipe) does not change the
/// exit status: `eprintln!` would panic there. Messages quote what the
/// user typed (`unknown signal 'X'`): its control characters are escaped
/// here, line by line (a filter error is three lines), so none reaches
/// the terminal raw.
pub(crate) fn fail(message: &str, code: u8) -> ExitCode {
    use std::io::Write;
    let message: Vec<_> = message
        .split('\n')
        .map(rtrace_cli::escape::escape_controls)
        .collect();
    let _ = writeln!(std::io::stderr(), "rtrace: {}", message.join("\n"));
    ExitCode::from(code)
}

/// Write `bytes` to stdout; a write error is one line on stderr and exit 1
/// (a closed pipe, as in `rtrace --list-ioctls | head`, is a quiet success).
pub(super) fn write_stdout(bytes: &[u8], what: &str) -> ExitCode {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => fail(&format!("cannot write {what}: {}", os_text(&e)), 1),
    }
}

pub(super) fn os_text(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// End the way the traced command did: by the same signal (without a core
/// dump of our own), or 128+N if the signal cannot kill us.
pub(crate) fn die_by_signal(sig: i32) -> ExitCode {
    // SAFETY: plain libc calls on values; raise() may not return.
    unsafe {
        let no_core = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        libc::setrlimit(libc::RLIMIT_CORE, &no_core);
        libc::signal(sig, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, sig);
        libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::raise(sig);
    }
    ExitCode::from((128 + sig) as u8)
}
