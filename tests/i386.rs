//! Real 32-bit processes (fixtures built with `-m32`): calls through the
//! vDSO's sysenter entry, i386 signal frames (sigreturn for plain
//! handlers), restart_syscall, the fast path's i386 filter section, forks,
//! and the pre-5.3 register path telling a 32-bit process by its code
//! segment. The lines are the 64-bit fixtures' lines.

mod common;

use common::{FORK_WAIT, fixture_m32, name, s, trace, trace_env};

#[test]
fn a_32_bit_program_prints_as_a_64_bit_one() {
    let bin = fixture_m32("shapes");
    let expected = s(&[
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
        "pipe2([3, 4], 0) = 0",
        "write(4, \"hello\", 5) = 5",
        "read(3, \"hello\", 64) = 5",
        "openat(AT_FDCWD, \"/dev/null\", O_WRONLY|O_CLOEXEC) = 5",
        "write(5, \"\\x1b[31mred\\x1b[0m\\n\", 13) = 13",
        "write(4, &0x1, 10) = -1 [EFAULT]",
        "openat(AT_FDCWD, \"/nonexistent/x\", O_RDONLY) = -1 [ENOENT]",
        "close(5) = 0",
        "exit_group(3)",
        "Process exited normally with code 3",
    ]);
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(3), "{}", run.stderr());
    assert_eq!(run.after_marker(), expected);
    // Without the syscall-info request the code segment says i386.
    let run = trace_env(&[], &[name(&bin)], &[("RTRACE_NO_SYSCALL_INFO", "1")]);
    assert_eq!(run.code(), Some(3), "{}", run.stderr());
    assert_eq!(run.after_marker(), expected);
}

#[test]
fn signals_interrupt_and_restart_32_bit_calls() {
    let bin = fixture_m32("signals");
    for mode in ["--seccomp-bpf", "--no-seccomp-bpf"] {
        let run = trace(&["-e", "trace=read", mode], &[name(&bin)]);
        assert_eq!(run.code(), Some(0), "{mode}: {}", run.stderr());
        let lines = run.lines();
        assert_eq!(
            lines[lines.len() - 5..],
            s(&[
                "read(3, ** SIGWINCH ** ** SIGURG ** \"a\", 1) = 1",
                "read(3, ** SIGUSR1 ** ** SIGUSR1 ** \"b\", 1) = 1",
                "read(3, ** SIGUSR2 ** &ADDR, 1) = -1 [EINTR]",
                "** SIGRTMIN+1 **",
                "Process exited normally with code 0",
            ]),
            "{mode}: {lines:#?}"
        );
    }
}

#[test]
fn a_32_bit_sleep_continues_through_restart_syscall() {
    let bin = fixture_m32("sleep_restart");
    for mode in ["--seccomp-bpf", "--no-seccomp-bpf"] {
        let run = trace(&["-e", "trace=nanosleep", mode], &[name(&bin)]);
        assert_eq!(run.code(), Some(0), "{mode}: {}", run.stderr());
        let lines = run.lines();
        let line = &lines[lines.len() - 2];
        // The time left is a measurement; its 32-bit timespec must parse.
        let (head, left) = line
            .split_once(" ** SIGUSR1 ** {tv_sec=")
            .unwrap_or_else(|| panic!("{mode}: {lines:#?}"));
        assert_eq!(
            head, "nanosleep({tv_sec=2, tv_nsec=0}, ** SIGWINCH **",
            "{mode}"
        );
        let (sec, rest) = left.split_once(", tv_nsec=").unwrap();
        let (nsec, tail) = rest.split_once('}').unwrap();
        assert!(sec.parse::<u32>().unwrap() < 2 && nsec.parse::<u32>().unwrap() < 1_000_000_000);
        assert_eq!(tail, ") = -1 [EINTR]", "{mode}");
    }
}

#[test]
fn plain_handlers_return_through_sigreturn() {
    let bin = fixture_m32("nested_signals");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = run.after_marker();
    assert_eq!(
        lines[2..],
        s(&[
            "read(3, ** SIGALRM ** <..>",
            "gettid() = PID1",
            "getpid() = PID1",
            "tgkill(PID1, PID1, SIGUSR1) = 0",
            "** SIGUSR1 **",
            "sigreturn()",
            "write(1, \"x\", 1) = 1",
            "sigreturn()",
            "*read(3, &ADDR, 1) = -1 [EINTR]",
            "exit_group(0)",
            "Process exited normally with code 0",
        ]),
        "{lines:#?}"
    );
}

#[test]
fn a_32_bit_fork_is_followed() {
    let bin = fixture_m32("fork_wait");
    let run = trace(&["-f"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let expected: Vec<String> = FORK_WAIT
        .iter()
        .map(|l| l.replace("fork_wait (", "fork_wait_m32 ("))
        .collect();
    assert_eq!(run.after_marker(), expected);
}
