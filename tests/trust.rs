//! Tracing changes nothing the program can see, and what rtrace shows
//! comes when and as the kernel did it: the signal state a command starts
//! with, what a program sees of itself (dispositions, mask, affinity,
//! fds), the order of trace and program output on a terminal, a stalled
//! output that must still give way to a second interrupt, and the
//! command line's bad inputs.

mod common;

use common::{fixture, rtrace_env, scratch_path};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The signal state the test hands to the program it starts (rtrace, or
/// the fixture untraced): signals ignored and signals blocked.
#[derive(Clone, Copy)]
struct Given {
    ignore: &'static [i32],
    block: &'static [i32],
}

/// Nothing ignored or blocked.
const PLAIN: Given = Given {
    ignore: &[],
    block: &[],
};

/// What `nohup`, a script's `trap ''` or a background job hands down,
/// and a mask, real-time signals included.
const NOHUP_LIKE: Given = Given {
    ignore: &[
        libc::SIGINT,
        libc::SIGHUP,
        libc::SIGQUIT,
        libc::SIGPIPE,
        libc::SIGTERM,
        libc::SIGALRM,
        libc::SIGUSR1,
        36,
    ],
    block: &[libc::SIGUSR2, libc::SIGWINCH, 40],
};

/// Start `cmd` with only fds 0-2 and the signal state `given`.
fn hand_down(cmd: &mut Command, given: Given) {
    // SAFETY: close_range, signal and sigprocmask are async-signal-safe
    // and touch only this child's state. (This runs after the standard
    // library has reset the child's mask and SIGPIPE.)
    unsafe {
        cmd.pre_exec(move || {
            libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32);
            for &sig in given.ignore {
                if libc::signal(sig, libc::SIG_IGN) == libc::SIG_ERR {
                    return Err(std::io::Error::last_os_error());
                }
            }
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            for &sig in given.block {
                libc::sigaddset(&mut set, sig);
            }
            libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
            Ok(())
        });
    }
}

/// The self_view fixture's report, run untraced (`rtrace_args` None) or
/// under rtrace with those options, started with `given`. Its stdout is
/// the file `out` (the same path for every run compared, since the report
/// names it), stdin /dev/null.
fn self_view(rtrace_args: Option<&[&str]>, given: Given, out: &Path) -> Vec<String> {
    let bin = fixture("self_view");
    let err = out.with_extension("err");
    let trace_file = out.with_extension("trace");
    let mut cmd = match rtrace_args {
        None => {
            let mut cmd = Command::new(&bin);
            cmd.env_clear().env("LC_ALL", "C");
            cmd
        }
        Some(args) => {
            let mut cmd = rtrace_env();
            cmd.arg("-o").arg(&trace_file).args(args).arg("self_view");
            cmd
        }
    };
    hand_down(&mut cmd, given);
    let status = cmd
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .status()
        .expect("start the program");
    let errors = std::fs::read_to_string(&err).unwrap_or_default();
    assert!(status.success(), "{rtrace_args:?}: {status:?} {errors}");
    assert_eq!(errors, "", "{rtrace_args:?}");
    let _ = std::fs::remove_file(&trace_file);
    std::fs::read_to_string(out)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// rtrace's option sets the rule is checked under: plain, following
/// children, and following under the seccomp fast path.
const OPTION_SETS: &[&[&str]] = &[&[], &["-f"], &["-f", "-e", "trace=ioctl"]];

/// The scratch file a comparison's runs write their reports to.
fn report_file(tag: &str) -> PathBuf {
    scratch_path("trust", tag)
}

/// The general rule: a program that prints what it can observe about
/// itself prints the same traced and untraced, under every option set.
#[test]
fn a_program_sees_the_same_of_itself_traced_and_untraced() {
    let out = report_file("self-view");
    let untraced = self_view(None, PLAIN, &out);
    // The report is complete: each part is there (so a comparison of two
    // empty outputs cannot pass).
    for part in ["ignored:", "caught:", "blocked:", "pending:", "affinity:"] {
        assert!(
            untraced.iter().any(|l| l.starts_with(part)),
            "{part} {untraced:?}"
        );
    }
    assert!(
        untraced.contains(&"fd 0: /dev/null".to_string()),
        "{untraced:?}"
    );
    for args in OPTION_SETS {
        assert_eq!(self_view(Some(args), PLAIN, &out), untraced, "{args:?}");
    }
}

/// The `ignored:` or `blocked:` line the fixture prints for `signals`.
fn set_line(what: &str, signals: &[i32]) -> String {
    let mut signals = signals.to_vec();
    signals.sort_unstable();
    signals.dedup();
    let numbers: Vec<String> = signals.iter().map(i32::to_string).collect();
    if numbers.is_empty() {
        format!("{what}: (none)")
    } else {
        format!("{what}: {}", numbers.join(" "))
    }
}

/// The signal numbers of a report line (`ignored: 1 2 3`).
fn numbers(line: &str) -> Vec<i32> {
    line.split(' ').filter_map(|w| w.parse().ok()).collect()
}

/// Issue 20, point 1: signals ignored and blocked when rtrace starts are
/// ignored and blocked in the command; rtrace's own handlers (its
/// interrupts, SIGALRM, its ignored SIGPIPE) do not reach it.
#[test]
fn the_command_starts_with_the_signal_state_rtrace_was_given() {
    let out = report_file("signals");
    // What this test process hands down anyway (the test harness ignores
    // a signal of its own), to which the test adds its own.
    let plain = self_view(None, PLAIN, &out);
    let mut ignored = numbers(&plain[0]);
    ignored.extend_from_slice(NOHUP_LIKE.ignore);
    let mut blocked = numbers(&plain[2]);
    blocked.extend_from_slice(NOHUP_LIKE.block);
    let untraced = self_view(None, NOHUP_LIKE, &out);
    assert_eq!(
        untraced[..4],
        [
            set_line("ignored", &ignored),
            "caught: (none)".to_string(),
            set_line("blocked", &blocked),
            "pending: (none)".to_string(),
        ],
        "the test's own setup"
    );
    for args in OPTION_SETS {
        assert_eq!(
            self_view(Some(args), NOHUP_LIKE, &out),
            untraced,
            "{args:?}"
        );
    }
}

/// The shell form of the report: `trap ''` in a script, then the
/// command's SigIgn as /proc says it, traced and untraced.
#[test]
fn a_script_s_trap_reaches_the_command() {
    let path = format!(
        "{}:/usr/bin:/bin",
        Path::new(env!("CARGO_BIN_EXE_rtrace"))
            .parent()
            .unwrap()
            .display(),
    );
    let run = |tracer: &str| {
        let script = format!(
            "trap '' INT HUP QUIT PIPE TERM ALRM; \
             exec {tracer} sh -c 'grep SigIgn /proc/self/status'"
        );
        let run = Command::new("sh")
            .args(["-c", &script])
            .env_clear()
            .env("PATH", &path)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(run.stderr, b"", "{tracer}");
        String::from_utf8(run.stdout).unwrap()
    };
    let untraced = run("");
    let mask = untraced
        .strip_prefix("SigIgn:\t")
        .and_then(|m| u64::from_str_radix(m.trim_end(), 16).ok())
        .unwrap_or_else(|| panic!("{untraced:?}"));
    assert_eq!(mask & 0x7007, 0x7007, "the trap's signals: {untraced:?}");
    assert_eq!(run("rtrace -o /dev/null"), untraced);
}
