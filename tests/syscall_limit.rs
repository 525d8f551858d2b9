//! Letting processes go: `--syscall-limit=N` (every process once N calls
//! are shown), traced against tests/fixtures/inject.c (which prints what
//! its calls returned, so the test sees it run on to its end untraced),
//! and `-b execve` (a process at its exec), against a shell running
//! tests/fixtures/launched.c.

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
        (
            &["--syscall-limit=3", "--user-events-emulate", "true"][..],
            "rtrace: --syscall-limit cannot be used with --usbmon-replay or --user-events-emulate: the processes let go would keep the emulation's filter\n",
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

/// `rtrace ARGS sh -c SCRIPT` (with `launched` on PATH): the exit code, the
/// shell's and launched's stdout, and the trace.
fn shell(args: &[&str], script: &str) -> (Option<i32>, String, Vec<String>) {
    fixture("launched");
    let out = rtrace_env()
        .args(args)
        .args(["sh", "-c", script])
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        common::normalise(&String::from_utf8_lossy(&out.stderr)),
    )
}

#[test]
fn b_execve_lets_a_process_go_at_its_exec() {
    // The started command's own exec is traced; a child's exec is the
    // child's last traced call, and what it runs is not traced (its
    // getuid is missing), as with strace's -b execve.
    let (code, stdout, lines) = shell(
        &["-f", "-b", "execve", "-e", "trace=execve,getuid,write"],
        "launched; echo done",
    );
    assert_eq!(code, Some(0), "{lines:?}");
    assert!(
        stdout.starts_with("argv0=launched\n") && stdout.ends_with("done\n"),
        "{stdout}"
    );
    let without_env: Vec<String> = lines
        .iter()
        .map(|l| match l.split_once("], &ADDR") {
            Some((head, _)) => format!("{head}], ..)"),
            None => l.clone(),
        })
        .collect();
    let launched = common::fixture_dir().join("launched");
    assert_eq!(
        without_env,
        [
            "Tracing sh -c \"launched; echo done\" (pid PID1)".to_string(),
            "execve(\"/usr/bin/sh\", [\"sh\", \"-c\", \"launched; echo done\"], ..)".into(),
            "getuid() = 0".into(),
            "PID2| Tracing sh -c \"launched; echo done\" (pid PID2)".into(),
            format!(
                "PID2| execve(\"{}\", [\"launched\"], ..)",
                launched.display()
            ),
            "PID2| Process detached".into(),
            "PID1' ** SIGCHLD **".into(),
            "write(1, \"done\\n\", 5) = 5".into(),
            "Process exited normally with code 0".into(),
        ]
    );
    // Without -f the started command itself is let go at its second
    // exec; rtrace then exits 0, as strace does, whatever the command
    // does after.
    let (code, stdout, lines) = shell(&["-b", "execve", "-e", "trace=getuid"], "exec launched");
    assert_eq!(code, Some(0), "{lines:?}");
    assert!(stdout.contains("uid=0 euid=0"), "{stdout}");
    assert_eq!(
        lines,
        s(&[
            "Tracing sh -c \"exec launched\" (pid PID1)",
            "getuid() = 0",
            "Process detached",
        ])
    );
    // Only execve, only ptrace, and without the seccomp filter, which a
    // process let go would keep.
    for (args, error) in [
        (
            &["-b", "open", "true"][..],
            "rtrace: -b 'open': only execve can be detached on (as in strace)\n",
        ),
        (
            &["--bpf", "-b", "execve", "true"][..],
            "rtrace: -b execve is for the ptrace engine: --bpf never stops or holds the tracee\n",
        ),
        (
            &[
                "--seccomp-bpf",
                "-f",
                "-e",
                "trace=chdir",
                "-b",
                "execve",
                "true",
            ][..],
            "rtrace: --seccomp-bpf cannot be used with -b execve: the processes let go would keep the filter\n",
        ),
        (
            &["-b", "execve", "--user-events-emulate", "true"][..],
            "rtrace: -b execve cannot be used with --usbmon-replay or --user-events-emulate: the processes let go would keep the emulation's filter\n",
        ),
    ] {
        let out = rtrace_env().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), error, "{args:?}");
    }
}
