//! More of the engine and the command line traced against real programs:
//! i386 calls from a 64-bit process, unknown call numbers, job control,
//! Ctrl-C twice, timestamps, colors, the informational options, vfork and
//! threads.

mod common;

use common::{FORK_WAIT, fixture, name, normalise, rtrace, rtrace_env, s, trace};
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A fresh file name in the test scratch directory.
fn scratch(tag: &str) -> PathBuf {
    let mut path = common::scratch_path("more", tag).into_os_string();
    path.push(".txt");
    path.into()
}

/// Wait for `child` at most `limit`; on timeout kill it and fail.
fn wait_timeout(child: &mut Child, limit: Duration, what: &str) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: rtrace still running after {limit:?}: killed it");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The normalised lines from the marker call on.
fn from_marker(lines: &[String]) -> Vec<String> {
    let start = lines
        .iter()
        .position(|l| l.contains("write(") && l.contains("\"BEGIN\""))
        .unwrap_or_else(|| panic!("no marker in trace:\n{lines:#?}"));
    lines[start..].to_vec()
}

/// The pid in a `Tracing NAME (pid N)` banner.
fn banner_pid(line: &str) -> i32 {
    let at = line
        .find("(pid ")
        .unwrap_or_else(|| panic!("no banner: {line}"));
    line[at + 5..]
        .trim_end_matches(')')
        .parse()
        .unwrap_or_else(|_| panic!("bad banner: {line}"))
}

#[test]
fn i386_calls_from_a_64_bit_process_use_the_i386_table() {
    let bin = fixture("compat_i386");
    let run = trace(&[], &[name(&bin)]);
    // exit_group(4) through int $0x80 ends the process with code 4.
    assert_eq!(run.code(), Some(4), "{}", run.stderr());
    assert_eq!(
        String::from_utf8_lossy(&run.output.stdout),
        "compat\n",
        "the i386 write really wrote"
    );
    assert_eq!(
        run.after_marker(),
        s(&[
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "getpid() = PID1",
            "write(1, \"compat\\n\", 7) = 7",
            "write(-1, \"compat\\n\", 7) = -1 [EBADF]",
            "exit_group(4)",
            "Process exited normally with code 4",
        ])
    );
}

/// The kernel uses only the low 32 bits of an i386 call's argument
/// registers, whatever the upper halves hold; rtrace must print those.
#[test]
fn i386_call_arguments_are_32_bits() {
    let bin = fixture("compat_i386");
    let run = trace(&[], &[name(&bin), "dirty"]);
    assert_eq!(run.code(), Some(4), "{}", run.stderr());
    assert_eq!(String::from_utf8_lossy(&run.output.stdout), "compat\n");
    let lines = run.after_marker();
    assert_eq!(lines[2], "write(1, \"compat\\n\", 7) = 7", "{lines:#?}");
}

#[test]
fn unknown_call_numbers_get_a_generic_name() {
    let bin = fixture("unknown_call");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_eq!(
        run.after_marker(),
        s(&[
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "syscall_1000(0x1, 0x2, 0x3, 0x4, 0x5, 0x6) = -1 [ENOSYS]",
            "exit_group(0)",
            "Process exited normally with code 0",
        ])
    );
    let named = trace(&["-N"], &[name(&bin)]).after_marker();
    assert_eq!(
        named[1],
        "syscall_1000(arg0=0x1, arg1=0x2, arg2=0x3, arg3=0x4, arg4=0x5, arg5=0x6) = -1 [ENOSYS]"
    );
    let values = trace(&["-V"], &[name(&bin)]).after_marker();
    assert_eq!(
        values[1],
        "syscall_1000(0x1, 0x2, 0x3, 0x4, 0x5, 0x6) = -1 [38]"
    );
}

#[test]
fn group_stop_holds_the_process_until_sigcont() {
    let bin = fixture("stop_cont");
    let file = scratch("stop");
    let err = scratch("stop-err");
    // The untraced helper keeps stdout/stderr open a little longer than the
    // traced process: send them to files, not pipes we would wait on.
    let mut tracer = rtrace_env()
        .arg("-o")
        .arg(&file)
        .arg(name(&bin))
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let status = wait_timeout(&mut tracer, Duration::from_secs(10), "group-stop");
    let trace = std::fs::read_to_string(&file).unwrap();
    let stderr = std::fs::read_to_string(&err).unwrap();
    let _ = std::fs::remove_file(&file);
    let _ = std::fs::remove_file(&err);
    assert_eq!(status.code(), Some(0), "{stderr}\n{trace}");
    assert_eq!(stderr, "");
    let lines = normalise(&trace);
    assert_eq!(lines[0], "Tracing stop_cont (pid PID1)");
    assert_eq!(
        from_marker(&lines),
        s(&[
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "write(4, \"s\", 1) = 1",
            "kill(PID1, SIGSTOP) = 0",
            "** SIGSTOP ** ** SIGCONT **",
            // The fixture measured that it stood still until SIGCONT.
            "write(-1, \"stopped\", 7) = -1 [EBADF]",
            "exit_group(0)",
            "Process exited normally with code 0",
        ])
    );
}

#[test]
fn second_interrupt_kills_the_started_command() {
    let bin = fixture("sigint_loop");
    let file = scratch("sigint");
    let err = scratch("sigint-err");
    let mut tracer = rtrace_env()
        .arg("-o")
        .arg(&file)
        .arg(name(&bin))
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let read = || std::fs::read_to_string(&file).unwrap_or_default();
    let sleeps = |t: &str| {
        normalise(t)
            .iter()
            .filter(|l| *l == "nanosleep({tv_sec=0, tv_nsec=50000000}, NULL) = 0")
            .count()
    };
    // rtrace flushes whenever it waits, so the file follows the tracee.
    let start = Instant::now();
    while sleeps(&read()) < 2 {
        if start.elapsed() > Duration::from_secs(10) || tracer.try_wait().unwrap().is_some() {
            let _ = tracer.kill();
            panic!("the loop never showed up:\n{}", read());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let tracee = banner_pid(read().lines().next().unwrap());

    // SAFETY: signals to our own child (rtrace) and a probe of its child.
    unsafe { libc::kill(tracer.id() as i32, libc::SIGINT) };
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        tracer.try_wait().unwrap().is_none(),
        "rtrace ended on the first interrupt"
    );
    assert_eq!(unsafe { libc::kill(tracee, 0) }, 0, "the tracee is gone");
    let before = sleeps(&read());
    std::thread::sleep(Duration::from_millis(300));
    let after = read();
    assert!(
        sleeps(&after) > before,
        "tracing stopped after the first interrupt:\n{after}"
    );
    assert!(!after.contains("Process detached"), "{after}");

    unsafe { libc::kill(tracer.id() as i32, libc::SIGINT) };
    let status = wait_timeout(&mut tracer, Duration::from_secs(10), "second SIGINT");
    let trace = read();
    let stderr = std::fs::read_to_string(&err).unwrap();
    let _ = std::fs::remove_file(&file);
    let _ = std::fs::remove_file(&err);
    // rtrace ends the way its command did: it re-raises SIGKILL.
    assert_eq!(status.signal(), Some(libc::SIGKILL), "{status:?}");
    assert_eq!(stderr, "");
    assert_eq!(
        unsafe { libc::kill(tracee, 0) },
        -1,
        "the tracee survived rtrace"
    );
    let lines = from_marker(&normalise(&trace));
    let n = lines.len();
    assert_eq!(lines[n - 1], "Process terminated from signal SIGKILL");
    // Killed in its sleep (the usual case) or just after one.
    assert!(
        [
            "nanosleep({tv_sec=0, tv_nsec=50000000}, NULL) = <..>",
            "nanosleep({tv_sec=0, tv_nsec=50000000}, NULL) = 0"
        ]
        .contains(&lines[n - 2].as_str()),
        "{lines:#?}"
    );
    // The first SIGINT was sent to rtrace alone, so the command got it too
    // (and ignored it): it shows once, in a sleep or between two.
    let sleep = "nanosleep({tv_sec=0, tv_nsec=50000000}, NULL) = 0";
    assert!(
        lines[1..n - 2]
            .iter()
            .all(|l| l == sleep || l.replace("** SIGINT ** ", "") == sleep || l == "** SIGINT **"),
        "{lines:#?}"
    );
    let forwarded = lines.iter().filter(|l| l.contains("** SIGINT **")).count();
    assert_eq!(forwarded, 1, "{lines:#?}");
}

/// `HH:MM:SS` at the start of `line`, as seconds of the day.
fn hms(line: &str) -> Option<u32> {
    let b = line.as_bytes();
    if b.len() < 8 || b[2] != b':' || b[5] != b':' {
        return None;
    }
    let two = |i: usize| {
        (b[i].is_ascii_digit() && b[i + 1].is_ascii_digit())
            .then(|| u32::from(b[i] - b'0') * 10 + u32::from(b[i + 1] - b'0'))
    };
    let (h, m, s) = (two(0)?, two(3)?, two(6)?);
    (h < 24 && m < 60 && s <= 60).then_some(h * 3600 + m * 60 + s)
}

/// `HH:MM:SS.uuuuuu ` at the start of `line`: microseconds of the day.
fn hms_micros(line: &str) -> Option<u64> {
    let secs = hms(line)?;
    let b = line.as_bytes();
    if b.len() < 16 || b[8] != b'.' || b[15] != b' ' || !b[9..15].iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(u64::from(secs) * 1_000_000 + line[9..15].parse::<u64>().ok()?)
}

#[test]
fn timestamps_start_every_line() {
    let bin = fixture("fork_wait");

    let run = trace(&["-f", "-t"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let mut plain = String::new();
    for line in run.trace.lines() {
        assert!(hms(line).is_some(), "no HH:MM:SS: {line:?}");
        assert_eq!(
            line.as_bytes()[8],
            b' ',
            "not HH:MM:SS then a space: {line:?}"
        );
        plain.push_str(&line[9..]);
        plain.push('\n');
    }
    // Without the time, the lines are those of a run without -t.
    assert_eq!(from_marker(&normalise(&plain)), s(FORK_WAIT));

    // -tt, in UTC so the times can be checked against the clock.
    let file = scratch("tt");
    let day = |t: std::time::SystemTime| {
        let d = t.duration_since(std::time::UNIX_EPOCH).unwrap();
        (d.as_secs() % 86400) * 1_000_000 + u64::from(d.subsec_micros())
    };
    let before = day(std::time::SystemTime::now());
    let status = rtrace_env()
        .env("TZ", "UTC0")
        .args(["-f", "-tt", "-o"])
        .arg(&file)
        .arg(name(&bin))
        .status()
        .unwrap();
    let after = day(std::time::SystemTime::now());
    let trace = std::fs::read_to_string(&file).unwrap();
    let _ = std::fs::remove_file(&file);
    assert_eq!(status.code(), Some(0));
    let mut plain = String::new();
    let mut last = None;
    for line in trace.lines() {
        let t = hms_micros(line).unwrap_or_else(|| panic!("no HH:MM:SS.uuuuuu: {line:?}"));
        // Within the run (modulo midnight), and never going back.
        let since = (t + 86_400_000_000 - before) % 86_400_000_000;
        let span = (after + 86_400_000_000 - before) % 86_400_000_000;
        assert!(since <= span + 1_000_000, "{line:?} not within the run");
        if let Some(prev) = last {
            assert!(
                (t + 86_400_000_000 - prev) % 86_400_000_000 < 3_600_000_000,
                "time went back: {line:?}"
            );
        }
        last = Some(t);
        plain.push_str(&line[16..]);
        plain.push('\n');
    }
    assert_eq!(from_marker(&normalise(&plain)), s(FORK_WAIT));
}

/// Remove `ESC [ ... m` sequences.
fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find('\x1b') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let end = tail.find('m').expect("unterminated escape");
        assert!(tail[1..].starts_with('['), "not a CSI: {tail:?}");
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    out
}

const BOLD: &str = "\x1b[1m";
const UNBOLD: &str = "\x1b[0m";
const RED: &str = "\x1b[31m";
const YELLOW: &str = "\x1b[33m";
const CYAN: &str = "\x1b[36m";
const DEFAULT: &str = "\x1b[39m";

/// Run rtrace on `command` with `args` and extra environment, the trace on
/// stderr (captured, so not a terminal).
fn trace_on_stderr(args: &[&str], env: &[(&str, &str)], command: &str) -> String {
    let out = rtrace_env()
        .envs(env.iter().copied())
        .args(args)
        .arg(command)
        .output()
        .unwrap();
    String::from_utf8(out.stderr).unwrap()
}

/// Run rtrace on `command` with its stderr on a new pseudo-terminal; return
/// its exit status and what the terminal shows (line ends back to `\n`).
/// The fds are close-on-exec: tests run in threads, and other tests' traced
/// programs must not inherit them.
fn trace_on_terminal(env: &[(&str, &str)], command: &str) -> (ExitStatus, String) {
    use std::io::Read;
    use std::os::fd::FromRawFd;
    // SAFETY: plain libc pty setup; each fd is owned by one File.
    let (mut master, slave) = unsafe {
        let m = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC);
        assert!(m >= 0, "posix_openpt");
        assert_eq!(libc::grantpt(m), 0);
        assert_eq!(libc::unlockpt(m), 0);
        let mut name = [0 as libc::c_char; 128];
        assert_eq!(libc::ptsname_r(m, name.as_mut_ptr(), name.len()), 0);
        let s = libc::open(
            name.as_ptr(),
            libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC,
        );
        assert!(s >= 0, "open pty slave");
        (std::fs::File::from_raw_fd(m), std::fs::File::from_raw_fd(s))
    };
    let mut cmd = rtrace_env();
    cmd.envs(env.iter().copied())
        .arg(command)
        .stdout(Stdio::null())
        .stderr(slave);
    let mut child = cmd.spawn().unwrap();
    drop(cmd); // our copy of the slave: EOF (EIO) once rtrace is done
    let reader = std::thread::spawn(move || {
        let mut all = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            match master.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => all.extend_from_slice(&buf[..n]),
            }
        }
        all
    });
    let status = wait_timeout(&mut child, Duration::from_secs(10), "pty");
    let text = String::from_utf8(reader.join().unwrap()).unwrap();
    (status, text.replace("\r\n", "\n"))
}

#[test]
fn color_when_asked_or_forced_on_a_pipe_or_a_terminal() {
    let shapes = fixture("shapes");
    let segv = fixture("segv");

    // always: escapes even into a file; stripped, the very same trace.
    let plain = trace(&[], &[name(&shapes)]);
    let colored = trace(&["--color", "always"], &[name(&shapes)]);
    assert_eq!(colored.code(), Some(3));
    let lines = colored.lines();
    assert_eq!(
        lines[0],
        format!("{CYAN}Tracing shapes (pid PID1){DEFAULT}")
    );
    let marker = format!("{BOLD}write{UNBOLD}(-1, \"BEGIN\", 5) = {RED}-1 [EBADF]{DEFAULT}");
    let at = lines
        .iter()
        .position(|l| *l == marker)
        .unwrap_or_else(|| panic!("{lines:#?}"));
    assert_eq!(
        lines[at..],
        [
            marker.clone(),
            format!("{BOLD}pipe2{UNBOLD}([3, 4], 0) = 0"),
            format!("{BOLD}write{UNBOLD}(4, \"hello\", 5) = 5"),
            format!("{BOLD}read{UNBOLD}(3, \"hello\", 64) = 5"),
            format!("{BOLD}openat{UNBOLD}(AT_FDCWD, \"/dev/null\", O_WRONLY|O_CLOEXEC) = 5"),
            // The traced program's own escapes stay escaped text.
            format!("{BOLD}write{UNBOLD}(5, \"\\33[31mred\\33[0m\\n\", 13) = 13"),
            format!("{BOLD}write{UNBOLD}(4, &0x1, 10) = {RED}-1 [EFAULT]{DEFAULT}"),
            format!(
                "{BOLD}openat{UNBOLD}(AT_FDCWD, \"/nonexistent/x\", O_RDONLY) = {RED}-1 [ENOENT]{DEFAULT}"
            ),
            format!("{BOLD}close{UNBOLD}(5) = 0"),
            format!("{BOLD}exit_group{UNBOLD}(3)"),
            format!("{CYAN}Process exited normally with code 3{DEFAULT}"),
        ]
    );
    assert_eq!(
        normalise(&strip_ansi(&colored.trace)),
        plain.lines(),
        "color changes more than the escapes"
    );
    let died = trace(&["--color", "always"], &[name(&segv)]).lines();
    assert_eq!(
        died[died.len() - 2..],
        [
            format!("{YELLOW}** SIGSEGV **{DEFAULT}"),
            format!("{CYAN}Process terminated from signal SIGSEGV{DEFAULT}"),
        ]
    );

    // never, and auto into a file (even when forced: auto is for stderr).
    assert!(!plain.trace.contains('\x1b'), "default into a file");
    for args in [&["--color", "never"][..], &["--color", "auto"][..]] {
        let run = trace(args, &[name(&shapes)]);
        assert!(!run.trace.contains('\x1b'), "{args:?}");
        assert_eq!(run.lines()[1..], plain.lines()[1..], "{args:?}");
    }
    let file = scratch("forced");
    rtrace_env()
        .env("CLICOLOR_FORCE", "1")
        .arg("-o")
        .arg(&file)
        .arg(name(&shapes))
        .status()
        .unwrap();
    let forced_file = std::fs::read_to_string(&file).unwrap();
    let _ = std::fs::remove_file(&file);
    assert!(forced_file.starts_with("Tracing shapes (pid "));
    assert!(
        !forced_file.contains('\x1b'),
        "auto + CLICOLOR_FORCE into -o"
    );

    // The trace on stderr, a pipe: auto colors only when forced, and
    // NO_COLOR (non-empty) wins over CLICOLOR_FORCE; always and never win
    // over both.
    let sh = name(&shapes);
    for (args, env, want) in [
        (&[][..], &[][..], false),
        (&[], &[("CLICOLOR_FORCE", "1")], true),
        (&["--color", "auto"], &[("CLICOLOR_FORCE", "yes")], true),
        (&[], &[("CLICOLOR_FORCE", "0")], false),
        (&[], &[("CLICOLOR_FORCE", "")], false),
        (&[], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")], false),
        (&[], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "")], true),
        (&["--color", "never"], &[("CLICOLOR_FORCE", "1")], false),
        (&["--color", "always"], &[("NO_COLOR", "1")], true),
    ] {
        let text = trace_on_stderr(args, env, sh);
        let lines = normalise(&text);
        let want_line = if want {
            format!("{BOLD}exit_group{UNBOLD}(3)")
        } else {
            "exit_group(3)".to_string()
        };
        assert!(lines.contains(&want_line), "{args:?} {env:?}:\n{text}");
        assert_eq!(text.contains('\x1b'), want, "{args:?} {env:?}:\n{text}");
    }

    // On a terminal, auto colors unless NO_COLOR says otherwise.
    let (status, tty) = trace_on_terminal(&[], sh);
    assert_eq!(status.code(), Some(3));
    let lines = normalise(&tty);
    assert_eq!(
        lines[0],
        format!("{CYAN}Tracing shapes (pid PID1){DEFAULT}")
    );
    assert_eq!(
        lines.last().unwrap(),
        &format!("{CYAN}Process exited normally with code 3{DEFAULT}")
    );
    let (status, tty) = trace_on_terminal(&[("NO_COLOR", "1")], sh);
    assert_eq!(status.code(), Some(3));
    assert!(!tty.contains('\x1b'), "{tty}");
    assert_eq!(
        normalise(&tty).last().unwrap(),
        "Process exited normally with code 3"
    );
}

#[test]
fn completions_man_page_help_and_version() {
    let out = rtrace().args(["--completions", "bash"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty());
    let bash = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = bash.lines().collect();
    assert_eq!(lines[0], "_rtrace() {");
    assert!(
        lines.contains(&"    complete -F _rtrace -o bashdefault -o default rtrace"),
        "{bash}"
    );
    assert!(bash.contains(" --follow-forks "), "{bash}");
    // -e completes to call names and classes, --list-ioctls to groups;
    // neither to file names.
    let words_after = |option: &str| -> Vec<String> {
        let at = lines
            .iter()
            .position(|l| l.trim() == format!("{option})"))
            .unwrap_or_else(|| panic!("no case for {option}:\n{bash}"));
        let reply = lines[at + 1].trim();
        let words = reply
            .strip_prefix("COMPREPLY=($(compgen -W \"")
            .and_then(|r| r.split_once('"'))
            .unwrap_or_else(|| panic!("{option}: {reply}"))
            .0;
        words.split(' ').map(str::to_string).collect()
    };
    let e = words_after("-e");
    for word in ["trace=", "openat", "ioctl", "%desc", "%ioctl", "%%stat"] {
        assert!(e.iter().any(|w| w == word), "-e lacks {word}: {e:?}");
    }
    let groups = words_after("--list-ioctls");
    for word in ["usbmon", "user_events", "kvm"] {
        assert!(
            groups.iter().any(|w| w == word),
            "--list-ioctls lacks {word}"
        );
    }

    let out = rtrace().args(["--completions", "zsh"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().next(),
        Some("#compdef rtrace")
    );

    let out = rtrace().arg("--man").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty());
    let man = String::from_utf8(out.stdout).unwrap();
    // clap_mangen puts two string definitions (.ie/.el) before the title.
    let title = man
        .lines()
        .position(|l| l.starts_with(".TH"))
        .unwrap_or_else(|| panic!("no .TH:\n{man}"));
    assert!(
        man.lines()
            .take(title)
            .all(|l| l.starts_with(".ie ") || l.starts_with(".el ")),
        "{man}"
    );
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(
        man.lines().nth(title).unwrap().trim_end(),
        format!(".TH rtrace 1  \"rtrace {version}\"")
    );
    for section in [".SH NAME", ".SH SYNOPSIS", ".SH OPTIONS"] {
        assert!(man.lines().any(|l| l == section), "{section}:\n{man}");
    }
    assert!(man.contains("\\-\\-follow\\-forks"), "{man}");
    // man renders the examples as written, one a line, not reflowed.
    if Command::new("man").arg("--version").output().is_ok() {
        let file = scratch("man");
        std::fs::write(&file, &man).unwrap();
        let out = Command::new("man")
            .arg("-l")
            .arg(&file)
            .env("MANWIDTH", "100")
            .env_remove("MAN_KEEP_FORMATTING")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<&str> = text.lines().collect();
        let at = lines
            .iter()
            .position(|l| *l == "EXAMPLES")
            .unwrap_or_else(|| panic!("{text}"));
        assert_eq!(
            lines[at + 1..at + 4],
            [
                "         rtrace ls /tmp                     trace a command",
                "         rtrace -f -o trace.txt tcpdump -i usbmon1",
                "                                            follow children, write the trace to a file",
            ],
            "{text}"
        );
    } else {
        eprintln!("man is not installed: the page's rendering is not checked");
    }

    let out = rtrace().arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty());
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(help.lines().any(|l| l == "Examples:"), "{help}");
    for option in ["--man", "--completions <SHELL>", "--errno-text"] {
        assert!(
            help.lines().any(|l| l.trim_start().starts_with(option)),
            "--help lacks {option}:\n{help}"
        );
    }
    // A misspelt option gets the nearest one.
    let out = rtrace().args(["--folow-forks", "true"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "rtrace: unexpected argument '--folow-forks' found (did you mean --follow-forks?)\n"
    );
    assert!(
        help.lines()
            .any(|l| l == "Usage: rtrace [OPTIONS] COMMAND [ARGS...]"),
        "{help}"
    );

    let out = rtrace().arg("--version").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("rtrace {version}\n")
    );
}

#[test]
fn vfork_child_runs_while_the_parent_waits_in_the_call() {
    let bin = fixture("vfork_exit");
    let run = trace(&["-f"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = run.after_marker();
    assert_eq!(
        lines[..4],
        s(&[
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "vfork() = <..>",
            "PID2| Tracing vfork_exit (pid PID2)",
            "PID2| vfork() = 0",
        ]),
        "{lines:#?}"
    );
    // The parent wakes when the child lets go of its memory, while the
    // child is still on its way out: either may be reported first.
    let child_first = s(&[
        "PID2| exit_group(5)",
        "PID2| Process exited normally with code 5",
        "PID1'*vfork() = PID2",
        "** SIGCHLD **",
    ]);
    let parent_first = s(&[
        "PID2| exit_group(5) <..>",
        "PID1|*vfork() = PID2",
        "PID2|*exit_group(5)",
        "PID2| Process exited normally with code 5",
        "PID1' ** SIGCHLD **",
    ]);
    let rest = &lines[4..];
    let tail = if rest.starts_with(&child_first) {
        &rest[child_first.len()..]
    } else if rest.starts_with(&parent_first) {
        &rest[parent_first.len()..]
    } else {
        panic!("{lines:#?}");
    };
    assert_eq!(
        tail,
        s(&[
            "wait4(PID2, W_EXITED(5), 0, NULL) = PID2",
            "exit_group(0)",
            "Process exited normally with code 0",
        ]),
        "{lines:#?}"
    );
}

#[test]
fn threads_get_their_own_banners_prefixes_and_exits() {
    let bin = fixture("two_threads");
    let run = trace(&["-f"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = run.after_marker();
    let find = |want: &str| {
        let hits: Vec<usize> = (0..lines.len()).filter(|&i| lines[i] == want).collect();
        assert_eq!(hits.len(), 1, "{want:?} once in {lines:#?}");
        hits[0]
    };
    // The threads' calls come 200 and 500 ms after they start, so these
    // lines are whole and in this order.
    let order = [
        find("PID2| Tracing two_threads (pid PID2)"),
        find("PID3| Tracing two_threads (pid PID3)"),
        find("PID2| write(-1, \"thread1\", 7) = -1 [EBADF]"),
        find("PID2| Process exited normally with code 0"),
        find("PID3| write(-1, \"thread2\", 7) = -1 [EBADF]"),
        find("PID3| Process exited normally with code 0"),
    ];
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{lines:#?}");
    // Each thread's first line after its banner is its half of the clone.
    for banner in &order[..2] {
        let first = &lines[banner + 1];
        let prefix = &lines[*banner][..6];
        assert!(
            first.starts_with(&format!("{prefix}clone")) && first.ends_with(") = 0"),
            "{first}"
        );
    }
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("Process exited"))
            .count(),
        3,
        "{lines:#?}"
    );
    // The main thread ends last: its exit_group is its first line after the
    // threads are gone (so it may carry the one-time `PID1'` prefix).
    let n = lines.len();
    assert_eq!(lines[n - 1], "Process exited normally with code 0");
    assert!(
        ["exit_group(0)", "PID1' exit_group(0)"].contains(&lines[n - 2].as_str()),
        "{lines:#?}"
    );
}

/// `-q` leaves out the process lines, `-qq` the signal lines too: only
/// the calls are left, each as it is without them.
#[test]
fn quiet_leaves_the_calls() {
    let bin = fixture("fork_wait");
    // No banner names the pids: take them from the calls.
    let calls = |args: &[&str]| -> Vec<String> {
        let run = trace(args, &[name(&bin)]);
        assert_eq!(run.code(), Some(0), "{}", run.stderr());
        let lines = run.after_marker();
        let child = lines[1].strip_prefix("fork() = ").unwrap().to_string();
        let parent = lines
            .iter()
            .find_map(|l| l.strip_suffix("| wait4(-1, <..>"))
            .unwrap()
            .to_string();
        lines
            .iter()
            .map(|l| l.replace(&child, "PID2").replace(&parent, "PID1"))
            .collect()
    };
    let without = |skip: &[&str]| -> Vec<String> {
        FORK_WAIT
            .iter()
            .filter(|l| !skip.iter().any(|s| l.contains(s)))
            .map(|l| l.to_string())
            .collect()
    };
    assert_eq!(calls(&["-f", "-q"]), without(&["Tracing ", "Process "]));
    assert_eq!(
        calls(&["-f", "-qq"]),
        without(&["Tracing ", "Process ", "** SIG"])
    );
    // An -e signal= given says which signals -qq shows.
    assert_eq!(
        calls(&["-f", "-qq", "-e", "signal=SIGCHLD"]),
        without(&["Tracing ", "Process "])
    );
}

/// A banner names the process with its arguments (quoted where a shell
/// would need it, cut at -s), so that two runs of one program can be told
/// apart; JSON's start and exec objects carry them as `args`.
#[test]
fn banners_say_the_arguments() {
    let bin = fixture("fork_wait");
    let banner = |args: &[&str], command: &[&str]| -> String {
        let mut all = vec![name(&bin)];
        all.extend_from_slice(command);
        trace(args, &all).lines()[0].clone()
    };
    assert_eq!(
        banner(&[], &["-D", "two words", ""]),
        "Tracing fork_wait -D \"two words\" \"\" (pid PID1)"
    );
    assert_eq!(
        banner(&["-s", "4"], &["-i", "usbmon1"]),
        "Tracing fork_wait -i \"us\".. (pid PID1)"
    );
    let run = trace(&["-f", "--json"], &[name(&bin), "x"]);
    let starts: Vec<serde_json::Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|o| o["type"] == "start")
        .map(|o| o["args"].clone())
        .collect();
    // The command as given, and its fork with the same arguments.
    assert_eq!(starts, [serde_json::json!(["x"]), serde_json::json!(["x"])]);
}
