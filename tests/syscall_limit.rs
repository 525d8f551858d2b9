//! `--syscall-limit=N`: every process is let go once N calls are shown,
//! traced against tests/fixtures/inject.c (which prints what its calls
//! returned, so the test sees it run on to its end untraced).

mod common;

use common::{fixture, name, rtrace_env, s, trace};

#[test]
fn every_process_is_let_go_after_n_calls_shown() {
    let bin = fixture("inject");
    let run = trace(
        &["-f", "--syscall-limit=2", "-e", "trace=chdir"],
        &[name(&bin), "fork"],
    );
    // As strace: exit 0, the command (and its child) run on untraced.
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_eq!(
        run.stderr(),
        "rtrace: system call limit reached, detaching from every process\n"
    );
    assert_eq!(
        String::from_utf8_lossy(&run.output.stdout),
        "parent chdir 1: 0\nchild chdir 1: 0\nchild chdir 2: 0\nparent chdir 2: 0\n"
    );
    let lines = run.lines();
    assert_eq!(
        lines[..3],
        s(&[
            "Tracing inject fork (pid PID1)",
            "chdir(\"/\") = 0",
            "PID2| Tracing inject fork (pid PID2)",
        ])
    );
    assert_eq!(lines[3], "PID2| chdir(\"/\") = 0");
    // Both are let go, in the order their stops come; the prefix says
    // whose line it is (`'` when the other process printed last).
    let mut rest: Vec<String> = lines[4..].iter().map(|l| l.replace('\'', "|")).collect();
    rest.sort();
    assert_eq!(
        rest,
        s(&["PID1| Process detached", "PID2| Process detached"])
    );
}

#[test]
fn calls_left_out_do_not_count() {
    // -Z shows failed calls only: the six successful chdirs before the
    // dups do not count toward the limit, as in strace.
    let bin = fixture("inject");
    let run = trace(
        &["--syscall-limit=2", "-Z", "-e", "trace=chdir,dup"],
        &[name(&bin)],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_eq!(
        run.lines(),
        s(&[
            "Tracing inject (pid PID1)",
            "dup(-1) = -1 [EBADF]",
            "dup(-1) = -1 [EBADF]",
            "Process detached",
        ])
    );
    assert!(String::from_utf8_lossy(&run.output.stdout).ends_with("FIOCLEX 3: 0\n"));
}

#[test]
fn bad_limits_are_one_line_errors() {
    for (args, error) in [
        (
            &[
                "--syscall-limit=3",
                "--seccomp-bpf",
                "-e",
                "trace=chdir",
                "true",
            ][..],
            "rtrace: --seccomp-bpf cannot be used with --syscall-limit: the processes let go would keep the filter\n",
        ),
        (
            &["--syscall-limit=3", "--bpf", "true"][..],
            "rtrace: --syscall-limit is for the ptrace engine: --bpf never stops or holds the tracee\n",
        ),
    ] {
        let out = rtrace_env().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), error, "{args:?}");
    }
    let out = rtrace_env()
        .args(["--syscall-limit=0", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
}
