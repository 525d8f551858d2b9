//! rtrace against hostile programs and bad input: nothing a tracee controls
//! reaches the terminal raw, every bad option is an error, a killed rtrace
//! leaves its command running as strace does, and a failed attach says why
//! and leaves no output file behind.

mod common;

use common::{fixture, fixture_dir, name, normalise, rtrace, s, trace};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A fresh path in the test scratch directory.
fn scratch(tag: &str) -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "security-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ))
}

/// rtrace with the same fixed environment `common::trace` uses.
fn rtrace_env() -> Command {
    let mut cmd = rtrace();
    cmd.env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", fixture_dir().display()))
        .env("LC_ALL", "C");
    cmd
}

/// The state letter of process `pid` (`R`, `S`, `Z`, ...), None if gone.
fn state(pid: i32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit(") ").next()?.chars().next()
}

/// Whether `pid` runs (exists and is not a zombie).
fn alive(pid: i32) -> bool {
    state(pid).is_some_and(|s| !matches!(s, 'Z' | 'X'))
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
fn string_limit_beyond_the_maximum_is_an_error() {
    let out = rtrace().args(["-s", "16777217", "true"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "rtrace: -s 16777217 is more than the most rtrace prints, 16777216 (16 MiB)\n"
    );
    // The maximum itself is taken.
    let bin = fixture("shapes");
    let run = trace(&["-s", "16777216"], &[name(&bin)]);
    assert_eq!(run.code(), Some(3), "{}", run.stderr());
    assert_eq!(run.after_marker(), s(common::SHAPES));
}

#[test]
fn attaching_to_a_zombie_says_so_and_leaves_no_output_file() {
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id() as i32;
    let start = Instant::now();
    while state(pid) != Some('Z') {
        assert!(start.elapsed() < Duration::from_secs(10), "no zombie");
        std::thread::sleep(Duration::from_millis(10));
    }
    let file = scratch("zombie");
    let out = rtrace()
        .arg("-o")
        .arg(&file)
        .args(["-p", &pid.to_string()])
        .output()
        .unwrap();
    child.wait().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "rtrace: cannot attach to pid {pid}: the process has exited and is waiting to be reaped by its parent\n"
        )
    );
    assert!(!file.exists(), "an empty output file was left behind");
}

#[test]
fn a_failed_attach_leaves_no_output_file_but_keeps_an_existing_one() {
    let file = scratch("noproc");
    let out = rtrace()
        .arg("-o")
        .arg(&file)
        .args(["-p", "999999999"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "rtrace: cannot attach to pid 999999999: No such process\n"
    );
    assert!(!file.exists(), "an empty output file was left behind");
    // A file that was there before is the user's: it stays.
    std::fs::write(&file, "old").unwrap();
    let out = rtrace()
        .arg("-o")
        .arg(&file)
        .args(["-p", "999999999"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(file.exists());
    std::fs::remove_file(&file).unwrap();
}

/// Start the ticker under rtrace with `args`, SIGKILL rtrace once the
/// trace shows the ticker at work, and return whether the ticker still
/// runs afterwards (it is killed before returning).
fn ticker_survives_a_killed_rtrace(args: &[&str], shown: &[&str]) -> bool {
    let bin = fixture("ticker");
    let file = scratch("exitkill-trace");
    let dots = scratch("exitkill-stdout");
    let mut tracer = rtrace_env()
        .arg("-o")
        .arg(&file)
        .args(args)
        .arg(name(&bin))
        .stdout(std::fs::File::create(&dots).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let read = || std::fs::read_to_string(&file).unwrap_or_default();
    let start = Instant::now();
    while read()
        .lines()
        .filter(|l| l.starts_with("nanosleep("))
        .count()
        < 2
    {
        if start.elapsed() > Duration::from_secs(10) {
            let _ = tracer.kill();
            panic!("the ticker never showed up:\n{}", read());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: SIGKILL to our own child, rtrace.
    unsafe { libc::kill(tracer.id() as i32, libc::SIGKILL) };
    let status = tracer.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    let trace = read();
    let lines = normalise(&trace);
    let tracee = banner_pid(trace.lines().next().unwrap());
    assert_eq!(lines[0], format!("Tracing {} (pid PID1)", name(&bin)));
    // Every whole line is one of the ticker's two calls (the last may be
    // cut by the kill).
    let whole = if trace.ends_with('\n') {
        &lines[1..]
    } else {
        &lines[1..lines.len() - 1]
    };
    for line in whole {
        assert!(shown.contains(&line.as_str()), "{line:?} in\n{trace}");
    }
    // The ticker is killed at once or runs on: watch it for a while.
    let size = || std::fs::metadata(&dots).map_or(0, |m| m.len());
    std::thread::sleep(Duration::from_millis(300));
    let before = size();
    std::thread::sleep(Duration::from_millis(300));
    let survived = alive(tracee) && size() > before;
    if alive(tracee) {
        // SAFETY: ending the orphaned ticker the test started.
        unsafe { libc::kill(tracee, libc::SIGKILL) };
    }
    let _ = std::fs::remove_file(&file);
    let _ = std::fs::remove_file(&dots);
    survived
}

const TICKER_CALLS: &[&str] = &[
    "write(1, \".\", 1) = 1",
    "nanosleep({tv_sec=0, tv_nsec=20000000}, NULL) = 0",
];

#[test]
fn a_killed_rtrace_leaves_the_started_command_running() {
    assert!(
        ticker_survives_a_killed_rtrace(&["-e", "trace=write,nanosleep"], TICKER_CALLS),
        "the command died with rtrace"
    );
}

#[test]
fn kill_on_exit_takes_the_started_command_along() {
    assert!(
        !ticker_survives_a_killed_rtrace(
            &["--kill-on-exit", "-e", "trace=write,nanosleep"],
            TICKER_CALLS
        ),
        "the command outlived rtrace with --kill-on-exit"
    );
}

#[test]
fn under_the_seccomp_filter_a_killed_rtrace_kills_the_command() {
    // With no tracer the filter's selected calls would fail with ENOSYS.
    assert!(
        !ticker_survives_a_killed_rtrace(
            &["--seccomp-bpf", "-e", "trace=nanosleep"],
            &TICKER_CALLS[1..]
        ),
        "the command outlived rtrace under the seccomp filter"
    );
}
