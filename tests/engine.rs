//! The core engine traced against real programs: call shapes, exit codes,
//! signal deaths, -f with preemption and replay, signals at the call split,
//! exec from a thread, attach and detach, options and bad input.

mod common;

use common::{FORK_WAIT, NESTED_SIGNALS, SHAPES, fixture, name, rtrace, s, trace};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;

#[test]
fn call_shapes_escapes_faults_and_exit_code() {
    let bin = fixture("shapes");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(3), "{}", run.stderr());
    let lines = run.lines();
    assert_eq!(lines[0], "Tracing shapes (pid PID1)");
    assert_eq!(
        lines[1],
        format!(
            "execve(\"{}\", [\"shapes\"], &ADDR /* 2 vars */)",
            bin.display()
        )
    );
    assert_eq!(run.after_marker(), s(SHAPES));
}

#[test]
fn all_names_values_only_and_string_limit() {
    let bin = fixture("shapes");
    let named = trace(&["-N", "-s", "3"], &[name(&bin)]).after_marker();
    assert!(
        named.contains(&"read(fd=3, buf=\"hel\".., count=64) = 5".to_string()),
        "{named:#?}"
    );
    assert!(
        named.contains(&"exit_group(status=3)".to_string()),
        "{named:#?}"
    );
    let values = trace(&["-V"], &[name(&bin)]).after_marker();
    assert_eq!(values[0], "write(-1, \"BEGIN\", 5) = -1 [9]");
    assert!(
        values.contains(&"openat(-100, \"/dev/null\", 0x80001) = 5".to_string()),
        "{values:#?}"
    );
}

#[test]
fn shell_command_exit_code_and_banner() {
    let run = trace(&[], &["sh", "-c", "echo hi; exit 3"]);
    assert_eq!(run.code(), Some(3));
    let lines = run.lines();
    assert_eq!(lines[0], "Tracing sh -c \"echo hi; exit 3\" (pid PID1)");
    assert!(
        lines[1].starts_with(
            "execve(\"/usr/bin/sh\", [\"sh\", \"-c\", \"echo hi; exit 3\"], &ADDR /* "
        ),
        "{}",
        lines[1]
    );
    assert!(lines.contains(&"write(1, \"hi\\n\", 3) = 3".to_string()));
    assert_eq!(
        lines[lines.len() - 2..],
        s(&["exit_group(3)", "Process exited normally with code 3"])
    );
}

#[test]
fn signal_death_is_reported_and_reraised() {
    let bin = fixture("segv");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(
        run.output.status.signal(),
        Some(libc_sigsegv()),
        "{:?}",
        run.output.status
    );
    assert_eq!(
        run.after_marker(),
        s(&[
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "** SIGSEGV **",
            "Process terminated from signal SIGSEGV",
        ])
    );
}

fn libc_sigsegv() -> i32 {
    11
}

#[test]
fn missing_command_is_one_line_and_127() {
    let run = trace(&[], &["nosuch-command-xyz"]);
    assert_eq!(run.code(), Some(127));
    assert_eq!(
        run.stderr(),
        "rtrace: cannot run 'nosuch-command-xyz': No such file or directory\n"
    );
    assert_eq!(run.trace, "", "nothing may be traced");
    // An empty name is no file either (not the first PATH directory).
    let run = trace(&[], &[""]);
    assert_eq!(run.code(), Some(127));
    assert_eq!(
        run.stderr(),
        "rtrace: cannot run '': No such file or directory\n"
    );
    assert_eq!(run.trace, "");
}

#[test]
fn follow_fork_preempts_and_replays() {
    let bin = fixture("fork_wait");
    let run = trace(&["-f"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_eq!(run.after_marker(), s(FORK_WAIT));
}

#[test]
fn signals_split_calls_restart_and_interrupt() {
    let bin = fixture("signals");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_eq!(
        String::from_utf8_lossy(&run.output.stdout),
        "rt 35\n",
        "realtime handler ran"
    );
    assert_eq!(
        run.after_marker(),
        s(&[
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "read(3, ** SIGWINCH ** ** SIGURG ** \"a\", 1) = 1",
            "read(3, ** SIGUSR1 ** <..>",
            "rt_sigreturn({mask=[]}) = 0",
            "*read(3, ** SIGUSR1 ** <..>",
            "rt_sigreturn({mask=[]}) = 0",
            "*read(3, \"b\", 1) = 1",
            "read(3, ** SIGUSR2 ** <..>",
            "rt_sigreturn({mask=[]}) = -1 [EINTR]",
            "*read(3, &ADDR, 1) = -1 [EINTR]",
            "tgkill(PID1, PID1, SIGRTMIN+1) = 0",
            "** SIGRTMIN+1 **",
            "write(1, \"rt 35\\n\", 6) = 6",
            "rt_sigreturn({mask=[]}) = 0",
            "exit_group(0)",
            "Process exited normally with code 0",
        ])
    );
}

#[test]
fn exec_from_a_thread_keeps_the_leader_pid() {
    let bin = fixture("thread_exec");
    let run = trace(&["-f"], &[name(&bin), "/bin/true"]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = run.after_marker();
    let exec = lines
        .iter()
        .position(|l| l == "PID2| execve(\"/bin/true\", [\"true\"], &ADDR /* 0 vars */) <..>")
        .unwrap_or_else(|| panic!("{lines:#?}"));
    assert_eq!(
        lines[exec + 1..exec + 4],
        s(&[
            "PID1'*execve(\"/bin/true\", [\"true\"], &ADDR /* 0 vars */)",
            "---",
            "Tracing true (pid PID1)",
        ])
    );
    assert_eq!(lines.last().unwrap(), "Process exited normally with code 0");
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("Process exited"))
            .count(),
        1
    );
}

#[test]
fn overflowed_recording_replays_a_substitute() {
    let bin = fixture("overflow");
    let run = trace(&["-f", "-s", "1000"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = run.after_marker();
    let long = format!("PID1| write(4, \"{}\", 700) = <..>", "b".repeat(700));
    let at = lines
        .iter()
        .position(|l| *l == long)
        .unwrap_or_else(|| panic!("{lines:#?}"));
    // The child's read preempts the write; which of the two finishes first
    // is up to the scheduler, so look for the replay anywhere after.
    assert!(
        lines[at + 1].starts_with("PID2| read(3, "),
        "{}",
        lines[at + 1]
    );
    // If the child has exited by then, the replay is the `'` line.
    assert!(
        lines[at + 1..]
            .iter()
            .any(|l| l == "PID1|*write(<..>) = 700" || l == "PID1'*write(<..>) = 700"),
        "{lines:#?}"
    );
}

#[test]
fn attach_and_interrupt_detaches_leaving_the_process_running() {
    let bin = fixture("ticker");
    let mut target = std::process::Command::new(&bin)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = target.id() as i32;
    std::thread::sleep(std::time::Duration::from_millis(100));
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join(format!("attach-{pid}.txt"));
    let mut tracer = rtrace()
        .arg("-o")
        .arg(&file)
        .arg("-p")
        .arg(pid.to_string())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(400));
    // SAFETY: sending SIGINT to our own child.
    unsafe { libc::kill(tracer.id() as i32, libc::SIGINT) };
    let status = tracer.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    let trace = std::fs::read_to_string(&file).unwrap();
    let lines = common::normalise(&trace);
    assert_eq!(lines[0], "Tracing ticker (pid PID1)");
    assert!(
        lines.contains(&"write(1, \".\", 1) = 1".to_string()),
        "{trace}"
    );
    assert_eq!(lines.last().unwrap(), "Process detached");
    std::thread::sleep(std::time::Duration::from_millis(100));
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let state = stat.rsplit(") ").next().unwrap().chars().next().unwrap();
    assert!(matches!(state, 'S' | 'R'), "tracee left in state {state}");
    assert!(target.try_wait().unwrap().is_none(), "tracee died");
    target.kill().unwrap();
    target.wait().unwrap();
}

#[test]
fn output_file_is_private_and_truncated() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join("private.txt");
    std::fs::write(&file, "x".repeat(100_000)).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::remove_file(&file).unwrap();
    let status = rtrace().arg("-o").arg(&file).arg("true").status().unwrap();
    assert!(status.success());
    let meta = std::fs::metadata(&file).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    std::fs::write(&file, "x".repeat(100_000)).unwrap();
    rtrace().arg("-o").arg(&file).arg("true").status().unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.starts_with("Tracing true (pid "),
        "not truncated: {}",
        &text[..40]
    );
}

#[test]
fn bad_command_lines_get_one_line_errors() {
    for (args, code, start) in [
        (
            &["--bogus"][..],
            2,
            "rtrace: unexpected argument '--bogus' found",
        ),
        (&[][..], 2, "rtrace: nothing to trace"),
        (&["-p", "abc"][..], 2, "rtrace: invalid value 'abc'"),
        (
            &["-p", "2147483647"][..],
            1,
            "rtrace: cannot attach to pid 2147483647: No such process",
        ),
        (&["-s"][..], 2, "rtrace: "),
        (
            &["-z", "-Z", "true"][..],
            2,
            "rtrace: the argument '--successful-only' cannot be used with '--failed-only'",
        ),
        (
            &["-Z", "-e", "status=successful", "true"][..],
            2,
            "rtrace: -z and -Z are -e status= too: give one of them",
        ),
    ] {
        let out = rtrace().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
        assert!(err.starts_with(start), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn write_errors_on_the_output_end_the_trace_with_a_message() {
    let out = rtrace().args(["-o", "/dev/full", "true"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "rtrace: cannot write trace output: No space left on device\n"
    );
}

#[test]
fn a_call_interrupted_by_nested_handlers_ends_when_the_outer_one_returns() {
    let bin = fixture("nested_signals");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = run.after_marker();
    assert_eq!(lines[2..], s(NESTED_SIGNALS), "{lines:#?}");
}

#[test]
fn a_call_abandoned_by_longjmp_is_not_mistaken_for_the_next() {
    let bin = fixture("longjmp_out");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = run.after_marker();
    for line in [
        "*read(3, &ADDR, 1) = -1 [ERESTARTSYS]",
        "*read(3, &ADDR, 2) = -1 [ERESTARTSYS]",
        "read(3, \"x\", 7) = 1",
    ] {
        assert!(
            lines.contains(&line.to_string()),
            "missing {line}: {lines:#?}"
        );
    }
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("read(3, ** SIGALRM ** <..>"))
            .count(),
        2,
        "{lines:#?}"
    );
}

#[test]
fn huge_counts_and_limits_neither_abort_nor_lose_output() {
    let bin = fixture("shapes");
    for args in [&["-vv"][..], &["-s", "16777216"][..]] {
        let run = trace(args, &[name(&bin)]);
        assert_eq!(run.code(), Some(3), "{args:?}: {}", run.stderr());
        let lines = run.after_marker();
        assert!(
            lines.contains(&"write(4, &0x1, 10) = -1 [EFAULT]".to_string()),
            "{lines:#?}"
        );
        assert_eq!(lines.last().unwrap(), "Process exited normally with code 3");
    }
}

#[test]
fn counts_beyond_the_mapped_memory_print_what_is_there() {
    let bin = fixture("bigcount");
    let run = trace(&["-vv"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = run.after_marker();
    assert!(lines[1].starts_with("write(-1, \"hello\\0"), "{}", lines[1]);
    assert!(
        lines[1].ends_with("\".., 70368744177664) = -1 [EBADF]"),
        "{}",
        lines[1]
    );
    assert_eq!(
        lines[2],
        "read(-1, &ADDR, 18446744073709551615) = -1 [EBADF]"
    );
    assert_eq!(lines[3], "poll(&ADDR, 2147483647, 0) = -1 [EINVAL]");
}

#[test]
fn an_old_thread_is_not_starved_by_busy_new_ones() {
    // waitpid(-1) reports the newest tracee first; served in that order, the
    // sleeper would wait until the busy threads gave up (exit code 1).
    let bin = fixture("starved_thread");
    let run = trace(&["-f"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "the sleeper was starved");
    let lines = run.after_marker();
    let slept = lines
        .iter()
        .filter(|l| {
            *l == "PID2|*nanosleep({tv_sec=0, tv_nsec=1000000}, NULL) = 0"
                || *l == "PID2| nanosleep({tv_sec=0, tv_nsec=1000000}, NULL) = 0"
        })
        .count();
    assert_eq!(slept, 20, "{lines:#?}");
}

#[test]
fn a_closed_stderr_changes_no_exit_status() {
    // `rtrace ... 2>&1 | head -1`: the reader is gone before rtrace's last
    // words. Error messages must not panic (exit 101) on the dead pipe.
    let run = |args: &[&str]| {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        rtrace().args(args).stderr(writer).status().unwrap().code()
    };
    assert_eq!(run(&["-e", "trace=nosuchcall", "true"]), Some(2));
    assert_eq!(run(&["-p", "0"]), Some(2));
    // The trace itself goes to the dead pipe: a write error, exit 1.
    assert_eq!(run(&["sh", "-c", "echo hi >/dev/null"]), Some(1));
}

#[test]
fn a_signal_sent_to_rtrace_alone_goes_on_to_the_command() {
    // `kill PID` or `timeout` signal rtrace only: the command gets the
    // signal too (as strace does), so the pair ends as one.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join(format!("forward-{}.txt", std::process::id()));
    let mut tracer = rtrace()
        .arg("-o")
        .arg(&file)
        .args(["sleep", "30"])
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while !std::fs::read_to_string(&file)
        .unwrap_or_default()
        .contains("nanosleep(")
    {
        assert!(started.elapsed().as_secs() < 20, "sleep never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SAFETY: signalling our own child.
    unsafe { libc::kill(tracer.id() as i32, libc::SIGTERM) };
    let status = tracer.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGTERM));
    let lines = common::normalise(&std::fs::read_to_string(&file).unwrap());
    assert_eq!(
        lines[lines.len() - 2..],
        s(&[
            "clock_nanosleep(CLOCK_REALTIME, 0, {tv_sec=30, tv_nsec=0}, ** SIGTERM ** <..>",
            "Process terminated from signal SIGTERM",
        ])
    );
}

#[test]
fn a_failed_attach_lets_go_of_the_others_silently() {
    let mut target = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let pid = target.id() as i32;
    let run = trace(&["-p", &pid.to_string(), "-p", "999999999"], &[]);
    assert_eq!(run.code(), Some(1));
    assert_eq!(
        run.stderr(),
        "rtrace: cannot attach to pid 999999999: No such process\n"
    );
    // Never announced, so no "Process detached" either.
    assert_eq!(run.trace, "");
    std::thread::sleep(std::time::Duration::from_millis(50));
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    assert!(status.contains("\nTracerPid:\t0\n"), "{status}");
    assert!(!status.contains("State:\tT"), "{status}");
    target.kill().unwrap();
    target.wait().unwrap();
}

#[test]
fn the_call_in_progress_at_detach_is_kept() {
    // Held back by a status filter, or as JSON, the call the process is in
    // when rtrace lets go must not vanish.
    for (args, json) in [
        (&["-e", "status=detached"][..], false),
        (&["--json"][..], true),
    ] {
        let mut target = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = target.id() as i32;
        std::thread::sleep(std::time::Duration::from_millis(100));
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
        let file = dir.join(format!("detached-{pid}.txt"));
        let mut tracer = rtrace()
            .args(args)
            .arg("-o")
            .arg(&file)
            .args(["-p", &pid.to_string()])
            .spawn()
            .unwrap();
        // Interrupt only once rtrace holds the process (a loaded machine
        // can take longer than any fixed sleep to get there).
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !std::fs::read_to_string(format!("/proc/{pid}/status"))
            .is_ok_and(|s| !s.contains("\nTracerPid:\t0\n"))
            && std::time::Instant::now() < deadline
        {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        // SAFETY: signalling our own child.
        unsafe { libc::kill(tracer.id() as i32, libc::SIGINT) };
        assert_eq!(tracer.wait().unwrap().code(), Some(0));
        target.kill().unwrap();
        target.wait().unwrap();
        let trace = std::fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = trace.lines().collect();
        let n = lines.len();
        assert!(n >= 3, "{trace}");
        if json {
            let call: serde_json::Value = serde_json::from_str(lines[n - 2]).unwrap();
            let detach: serde_json::Value = serde_json::from_str(lines[n - 1]).unwrap();
            assert_eq!(call["type"], "call", "{trace}");
            assert!(call["result"].is_null(), "{trace}");
            assert_eq!(detach["type"], "detach", "{trace}");
        } else {
            assert!(lines[n - 2].ends_with(" <..>"), "{trace}");
            assert_eq!(lines[n - 1], "Process detached");
        }
    }
}

#[test]
fn timeout_ends_the_command_through_its_own_handler() {
    // GNU timeout signals rtrace, then rtrace's whole process group: two
    // SIGTERMs from one sender are one request, so the command gets the
    // signal once (forwarded or from the group) and cleans up; it is not
    // killed as after a second, separate interrupt.
    let bin = fixture("term_cleanup");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    for round in 0..4 {
        let file = dir.join(format!("timeout-{}-{round}.txt", std::process::id()));
        let status = std::process::Command::new("timeout")
            .arg("0.5")
            .arg(env!("CARGO_BIN_EXE_rtrace"))
            .arg("-o")
            .arg(&file)
            .arg(&bin)
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(124), "round {round}");
        let trace = std::fs::read_to_string(&file).unwrap();
        assert_eq!(
            trace.lines().last(),
            Some("Process exited normally with code 7"),
            "round {round}: {trace}"
        );
    }
}

/// With -v a signal carries the siginfo the kernel delivered (from
/// PTRACE_GETSIGINFO): who sent it, a queued value, a child's exit, a
/// fault's address. Without -v only the name.
#[test]
fn verbose_signals_carry_their_siginfo() {
    let bin = fixture("siginfo");
    let plain = trace(&[], &[name(&bin)]);
    let run = trace(&["-v"], &[name(&bin)]);
    assert_eq!(run.output.status.signal(), Some(libc_sigsegv()));
    // SAFETY: getuid cannot fail.
    let uid = unsafe { libc::getuid() };
    let mut lines = run.after_marker();
    // The child's pid, and the CPU time it used (in clock ticks).
    let clone = lines.iter().find(|l| l.starts_with("clone(")).unwrap();
    let child = clone.rsplit(" = ").next().unwrap();
    let child = regex::Regex::new(&format!(r"\b{child}\b")).unwrap();
    for line in lines.iter_mut() {
        *line = child.replace_all(line, "CHILD").into_owned();
        if let Some(at) = line.find("si_utime=") {
            let end = line[at..].find('}').unwrap() + at;
            line.replace_range(at..end, "si_utime=T, si_stime=T");
        }
    }
    let q = "si_code=SI_QUEUE, si_pid=PID1, si_uid=0, si_int=42, si_ptr=0x2a";
    assert_eq!(
        lines,
        [
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]".to_string(),
            "kill(PID1, SIGUSR1) = 0".into(),
            format!("** SIGUSR1 {{si_code=SI_USER, si_pid=PID1, si_uid={uid}}} **"),
            format!("rt_sigqueueinfo(PID1, SIGUSR2, {{si_signo=SIGUSR2, {q}}}) = 0"),
            format!("** SIGUSR2 {{{q}}} **"),
            "clone(SIGCHLD, NULL, NULL, NULL, NULL) = CHILD".into(),
            format!(
                "** SIGCHLD {{si_code=CLD_EXITED, si_pid=CHILD, si_uid={uid}, si_status=7, \
                 si_utime=T, si_stime=T}} **"
            ),
            "wait4(CHILD, NULL, 0, NULL) = CHILD".into(),
            "** SIGSEGV {si_code=SEGV_MAPERR, si_addr=&0x10} **".into(),
            "Process terminated from signal SIGSEGV".into(),
        ]
    );
    let plain: Vec<String> = plain
        .after_marker()
        .into_iter()
        .filter(|l| l.starts_with("**"))
        .collect();
    assert_eq!(
        plain,
        [
            "** SIGUSR1 **",
            "** SIGUSR2 **",
            "** SIGCHLD **",
            "** SIGSEGV **"
        ]
    );
}

/// The tests' normaliser replaces a pid only where a pid stands: a byte
/// count or a usbmon length equal to a traced pid stays a number (a CI run
/// once failed because a tracee's pid was 4096).
#[test]
fn normalising_replaces_pids_only_in_their_places() {
    let trace = "Tracing reader (pid 4096)\n\
                 4096|read(3, \"\", 4096) = 4096\n\
                 4096|kill(4096, SIGTERM) = 0\n\
                 4096|*wait4(-1, W_EXITED(0), 0, NULL) = 4096\n\
                 4096|--- SIGCHLD {si_pid=4096, si_status=4096} ---\n\
                 4096|  > ffff8dd8d6f7fa80 12151972 S Bi:2:002:1 -115 4096 <";
    assert_eq!(
        common::normalise(trace),
        [
            "Tracing reader (pid PID1)",
            "PID1|read(3, \"\", 4096) = 4096",
            "PID1|kill(PID1, SIGTERM) = 0",
            "PID1|*wait4(-1, W_EXITED(0), 0, NULL) = PID1",
            "PID1|--- SIGCHLD {si_pid=PID1, si_status=4096} ---",
            "PID1|  > ffff8dd8d6f7fa80 12151972 S Bi:2:002:1 -115 4096 <",
        ]
    );
}

#[test]
fn quick_calls_print_once_while_another_process_has_its_line_open() {
    // The child blocks in ppoll; the parent's quick calls each come
    // between nothing else of theirs: each prints once, whole, and only
    // the blocked ppoll is cut and replayed.
    let bin = fixture("open_line");
    let run = trace(
        &["-f", "-e", "trace=ppoll,ioctl,sched_yield"],
        &[name(&bin)],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let quick = [
        "PID1| ioctl(1, MON_IOCH_MFLUSH, 1) = -1 [ENOTTY]",
        "PID1| sched_yield() = 0",
    ];
    let mut expected = vec![
        "Tracing open_line (pid PID1)".to_string(),
        "PID2| Tracing open_line (pid PID2)".to_string(),
        "PID2| ppoll([{fd=3, events=POLLIN}], 1, NULL, NULL, 8) = <..>".to_string(),
    ];
    for _ in 0..3 {
        expected.extend(quick.iter().map(|l| l.to_string()));
    }
    expected.push(
        "PID2|*ppoll([{fd=3, events=POLLIN}], 1, NULL, NULL, 8) = 1 [{fd=3, revents=POLLIN}]"
            .to_string(),
    );
    let lines = run.lines();
    assert_eq!(lines[..expected.len()], expected[..], "{lines:#?}");
    // Then the two ends, whose order is the kernel's to choose.
    let rest = lines[expected.len()..].join("\n");
    assert_eq!(lines.len(), expected.len() + 3, "{lines:#?}");
    assert!(
        rest.contains("PID2| Process exited normally with code 0"),
        "{rest}"
    );
    assert!(rest.contains("** SIGCHLD **"), "{rest}");
    assert!(
        rest.ends_with("Process exited normally with code 0"),
        "{rest}"
    );
}
