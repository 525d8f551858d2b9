//! The pre-5.3 path: syscall stops decoded from the registers instead of
//! PTRACE_GET_SYSCALL_INFO (forced with RTRACE_NO_SYSCALL_INFO=1). Each
//! scenario must print exactly what the syscall-info path prints, for plain
//! stops, seccomp stops under the fast path, signals and restarts, and -f.

mod common;

use common::{FORK_WAIT, SLEEP_RESTART, fixture, name, s, time_left, trace, trace_env};

const REGISTERS: &[(&str, &str)] = &[("RTRACE_NO_SYSCALL_INFO", "1")];

/// The normalised trace from the marker on (after the banner when the
/// marker is not selected), with the measured time left of an interrupted
/// sleep replaced by `LEFT`.
fn lines_of(run: &common::Run, marked: bool) -> Vec<String> {
    let lines = if marked {
        run.after_marker()
    } else {
        run.lines()[1..].to_vec()
    };
    lines.into_iter().map(|l| time_left(&l)).collect()
}

/// Trace `fixture_name` both ways with `args`; both must agree and exit
/// with `code`. Returns the lines.
fn both_ways(fixture_name: &str, args: &[&str], code: i32) -> Vec<String> {
    let bin = fixture(fixture_name);
    let info = trace(args, &[name(&bin)]);
    let regs = trace_env(args, &[name(&bin)], REGISTERS);
    assert_eq!(info.code(), Some(code), "{}", info.stderr());
    assert_eq!(regs.code(), Some(code), "{}", regs.stderr());
    let marked = !args.contains(&"-e");
    let (info, regs) = (lines_of(&info, marked), lines_of(&regs, marked));
    assert!(info.len() > 1, "{fixture_name} {args:?}: {info:#?}");
    assert_eq!(regs, info, "{fixture_name} {args:?}");
    info
}

#[test]
fn plain_stops_read_from_registers() {
    let lines = both_ways("shapes", &[], 3);
    assert_eq!(lines[1], "pipe2([3, 4], 0) = 0");
}

#[test]
fn forks_followed_with_stops_read_from_registers() {
    let lines = both_ways("fork_wait", &["-f"], 0);
    assert_eq!(lines, s(FORK_WAIT));
}

#[test]
fn interrupted_calls_with_stops_read_from_registers() {
    let lines = both_ways("nested_signals", &[], 0);
    assert!(
        lines.contains(&"*read(3, &ADDR, 1) = -1 [EINTR]".to_string()),
        "{lines:#?}"
    );
    both_ways("longjmp_out", &[], 0);
}

#[test]
fn seccomp_stops_read_from_registers() {
    let lines = both_ways("signals", &["-e", "trace=read", "--seccomp-bpf"], 0);
    assert_eq!(
        lines[lines.len() - 4..],
        s(&[
            "read(3, ** SIGUSR1 ** ** SIGUSR1 ** \"b\", 1) = 1",
            "read(3, ** SIGUSR2 ** &ADDR, 1) = -1 [EINTR]",
            "** SIGRTMIN+1 **",
            "Process exited normally with code 0",
        ])
    );
    let lines = both_ways(
        "sleep_restart",
        &["-e", "trace=nanosleep", "--seccomp-bpf"],
        0,
    );
    assert_eq!(lines, s(&[&["** SIGCHLD **"][..], SLEEP_RESTART].concat()));
}
