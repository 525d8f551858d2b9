//! `-e inject=` and `-e fault=`: traced against tests/fixtures/inject.c,
//! which prints what each of its calls returned and which signal came, so
//! every test sees the program get what the trace says was injected.

mod common;

use common::{Emulator, fixture, fixture_m32, name, rtrace_env, s, trace, trace_env};
use std::path::Path;

/// The calls the fixture makes after its marker, as selected below.
const CALLS: &str = "trace=chdir,dup,sched_yield,ioctl";

/// The rules of the main scenario: an error on invocations 2 and 4 (a
/// range with a step), a return value from the 2nd on, a signal on the
/// 2nd only, and an ioctl request counted apart from the other ioctls.
const RULES: &[&str] = &[
    "-e",
    "inject=chdir:error=ENOENT:when=2..5+2",
    "-e",
    "inject=dup:retval=42:when=2+",
    "-e",
    "inject=sched_yield:signal=SIGUSR1:when=2",
    "-e",
    "inject=FIONBIO:error=EINTR:when=2+",
];

/// What the program printed, under [`RULES`].
const PROGRAM_SAW: &str = "\
chdir 1: 0
chdir 2: -1 ENOENT
chdir 3: 0
chdir 4: -1 ENOENT
chdir 5: 0
chdir 6: 0
dup 1: -1 EBADF
dup 2: 42
dup 3: 42
sched_yield 1: 0, no signal
sched_yield 2: 0, User defined signal 1
sched_yield 3: 0, no signal
FIONBIO 1: 0
FIOCLEX 1: 0
FIONBIO 2: -1 EINTR
FIOCLEX 2: 0
FIONBIO 3: -1 EINTR
FIOCLEX 3: 0
";

/// The trace under [`RULES`] with `-e` [`CALLS`], after the marker.
const TRACED: &[&str] = &[
    "chdir(\"/\") = 0",
    "chdir(\"/\") = -1 [ENOENT] (INJECTED)",
    "chdir(\"/\") = 0",
    "chdir(\"/\") = -1 [ENOENT] (INJECTED)",
    "chdir(\"/\") = 0",
    "chdir(\"/\") = 0",
    "dup(-1) = -1 [EBADF]",
    "dup(-1) = 42 (INJECTED)",
    "dup(-1) = 42 (INJECTED)",
    "sched_yield() = 0",
    "sched_yield() = 0",
    "** SIGUSR1 **",
    "sched_yield() = 0",
    "ioctl(3, FIONBIO, [1]) = 0",
    "ioctl(3, FIOCLEX) = 0",
    "ioctl(3, FIONBIO, [1]) = -1 [EINTR] (INJECTED)",
    "ioctl(3, FIOCLEX) = 0",
    "ioctl(3, FIONBIO, [1]) = -1 [EINTR] (INJECTED)",
    "ioctl(3, FIOCLEX) = 0",
    "Process exited normally with code 0",
];

fn stdout(run: &common::Run) -> String {
    String::from_utf8_lossy(&run.output.stdout).into_owned()
}

/// The trace of `bin` with `args`, from the first selected call after the
/// marker (the marker itself is not selected).
fn after(run: &common::Run, first: &str) -> Vec<String> {
    let lines = run.lines();
    let start = lines
        .iter()
        .position(|l| l.starts_with(first))
        .unwrap_or_else(|| panic!("no {first} in:\n{}", run.trace));
    lines[start..].to_vec()
}

fn run_rules(bin: &Path, mode: &str) -> common::Run {
    let mut args = vec!["-f", "-e", CALLS, mode];
    args.extend_from_slice(RULES);
    let run = trace(&args, &[name(bin)]);
    assert_eq!(run.code(), Some(0), "{mode}: {}", run.stderr());
    run
}

#[test]
fn errors_return_values_signals_and_requests_reach_the_program() {
    // The same with and without the seccomp fast path, for a 64-bit and
    // an i386 program.
    for bin in [fixture("inject"), fixture_m32("inject")] {
        for mode in ["--seccomp-bpf", "--no-seccomp-bpf"] {
            let run = run_rules(&bin, mode);
            assert_eq!(stdout(&run), PROGRAM_SAW, "{} {mode}", name(&bin));
            assert_eq!(after(&run, "chdir("), s(TRACED), "{} {mode}", name(&bin));
        }
    }
}

#[test]
fn calls_left_out_of_the_trace_are_injected_all_the_same() {
    // As strace: -e trace= chooses what is printed, not what is injected.
    let bin = fixture("inject");
    for mode in ["--seccomp-bpf", "--no-seccomp-bpf"] {
        let mut args = vec!["-f", "-e", "trace=chdir", mode];
        args.extend_from_slice(RULES);
        let run = trace(&args, &[name(&bin)]);
        assert_eq!(run.code(), Some(0), "{mode}: {}", run.stderr());
        assert_eq!(stdout(&run), PROGRAM_SAW, "{mode}");
        let chdirs: Vec<&str> = TRACED[..6].to_vec();
        let mut expected = chdirs.clone();
        // The signal still shows; the calls it came with do not.
        expected.extend(["** SIGUSR1 **", "Process exited normally with code 0"]);
        assert_eq!(after(&run, "chdir("), s(&expected), "{mode}");
    }
}

#[test]
fn fault_fails_with_enosys_by_default_and_error_takes_numbers() {
    let bin = fixture("inject");
    let run = trace(
        &[
            "-e",
            "trace=chdir,dup",
            "-e",
            "fault=chdir:when=6",
            "-e",
            "fault=dup:error=1:when=1..2",
        ],
        &[name(&bin)],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_eq!(
        after(&run, "chdir("),
        s(&[
            "chdir(\"/\") = 0",
            "chdir(\"/\") = 0",
            "chdir(\"/\") = 0",
            "chdir(\"/\") = 0",
            "chdir(\"/\") = 0",
            "chdir(\"/\") = -1 [ENOSYS] (INJECTED)",
            "dup(-1) = -1 [EPERM] (INJECTED)",
            "dup(-1) = -1 [EPERM] (INJECTED)",
            "dup(-1) = -1 [EBADF]",
            "Process exited normally with code 0",
        ])
    );
    assert!(
        stdout(&run)
            .contains("chdir 6: -1 ENOSYS\ndup 1: -1 EPERM\ndup 2: -1 EPERM\ndup 3: -1 EBADF\n")
    );
}

#[test]
fn long_options_are_the_same_rules_in_command_line_order() {
    // strace's --inject= and --fault=; of several rules naming a call the
    // last given wins, -e or long alike.
    let bin = fixture("inject");
    let run = trace(
        &[
            "-e",
            "trace=chdir,dup",
            "--fault=chdir:when=6",
            "-e",
            "inject=dup:error=EACCES",
            "--inject=dup:error=1:when=1..2",
        ],
        &[name(&bin)],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_eq!(
        after(&run, "chdir("),
        s(&[
            "chdir(\"/\") = 0",
            "chdir(\"/\") = 0",
            "chdir(\"/\") = 0",
            "chdir(\"/\") = 0",
            "chdir(\"/\") = 0",
            "chdir(\"/\") = -1 [ENOSYS] (INJECTED)",
            "dup(-1) = -1 [EPERM] (INJECTED)",
            "dup(-1) = -1 [EPERM] (INJECTED)",
            "dup(-1) = -1 [EBADF]",
            "Process exited normally with code 0",
        ])
    );
    // The -e rule given after the long one wins.
    let run = trace(
        &[
            "-e",
            "trace=dup",
            "--inject=dup:error=1",
            "-e",
            "inject=dup:error=EACCES:when=3",
        ],
        &[name(&bin)],
    );
    assert_eq!(
        after(&run, "dup("),
        s(&[
            "dup(-1) = -1 [EBADF]",
            "dup(-1) = -1 [EBADF]",
            "dup(-1) = -1 [EACCES] (INJECTED)",
            "Process exited normally with code 0",
        ])
    );
}

#[test]
fn syscall_runs_a_harmless_call_in_its_place() {
    // strace's syscall=: the kernel runs getpid instead of the chdir, and
    // the program gets the rule's result; the line is the chdir's.
    for bin in [fixture("inject"), fixture_m32("inject")] {
        for mode in ["--seccomp-bpf", "--no-seccomp-bpf"] {
            let run = trace(
                &[
                    "-e",
                    "trace=chdir",
                    mode,
                    "--inject=chdir:syscall=getpid:error=EPERM:when=2",
                    "-e",
                    "inject=chdir:syscall=gettid:retval=7:when=4",
                ],
                &[name(&bin)],
            );
            assert_eq!(run.code(), Some(0), "{}", run.stderr());
            let what = format!("{} {mode}", name(&bin));
            assert_eq!(
                after(&run, "chdir("),
                s(&[
                    "chdir(\"/\") = 0",
                    "chdir(\"/\") = 0",
                    "chdir(\"/\") = 0",
                    "chdir(\"/\") = 7 (INJECTED)",
                    "chdir(\"/\") = 0",
                    "chdir(\"/\") = 0",
                    "Process exited normally with code 0",
                ]),
                "{what}"
            );
            // The later rule names chdir too, so it alone counts (when=2
            // of the first never comes).
            assert!(
                stdout(&run)
                    .starts_with("chdir 1: 0\nchdir 2: 0\nchdir 3: 0\nchdir 4: 7\nchdir 5: 0\n"),
                "{what}: {}",
                stdout(&run)
            );
        }
    }
    let run = trace(
        &[
            "-e",
            "trace=dup",
            "--inject=dup:syscall=getuid:error=EPERM:when=2",
        ],
        &[name(&fixture("inject"))],
    );
    assert_eq!(
        after(&run, "dup("),
        s(&[
            "dup(-1) = -1 [EBADF]",
            "dup(-1) = -1 [EPERM] (INJECTED)",
            "dup(-1) = -1 [EBADF]",
            "Process exited normally with code 0",
        ])
    );
}

#[test]
fn several_actions_combine_and_delays_are_marked() {
    // An error, a realtime signal (libc's SIGRTMIN+2, not the kernel's
    // 34+2) and a delay at the exit on one call; a delay alone on another.
    let bin = fixture("inject");
    let run = trace(
        &[
            "-e",
            "trace=chdir,sched_yield",
            "-e",
            "inject=sched_yield:error=EAGAIN:signal=SIGRTMIN+2:delay_exit=1ms:when=3",
            "-e",
            "inject=chdir:delay_enter=100us:when=1",
        ],
        &[name(&bin)],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = after(&run, "sched_yield(");
    assert_eq!(
        lines,
        s(&[
            "sched_yield() = 0",
            "sched_yield() = 0",
            "sched_yield() = -1 [EAGAIN] (INJECTED) (DELAYED)",
            "** SIGRTMIN+2 **",
            "Process exited normally with code 0",
        ])
    );
    assert!(
        run.lines()
            .contains(&"chdir(\"/\") = 0 (DELAYED)".to_string())
    );
    let rt = stdout(&run);
    assert!(
        rt.contains("sched_yield 3: -1, Real-time signal 2\n"),
        "{rt}"
    );
}

#[test]
fn each_process_counts_its_own_invocations() {
    // strace counts per tracee: a forked child's chdirs count from 1, not
    // on from its parent's.
    let bin = fixture("inject");
    for mode in ["--seccomp-bpf", "--no-seccomp-bpf"] {
        let run = trace(
            &[
                "-f",
                mode,
                "-e",
                "trace=chdir",
                "-e",
                "inject=chdir:error=ENOENT:when=2",
            ],
            &[name(&bin), "fork"],
        );
        assert_eq!(run.code(), Some(0), "{mode}: {}", run.stderr());
        assert_eq!(
            stdout(&run),
            "parent chdir 1: 0\nchild chdir 1: 0\nchild chdir 2: -1 ENOENT\nparent chdir 2: -1 ENOENT\n",
            "{mode}"
        );
        assert_eq!(
            after(&run, "chdir("),
            s(&[
                "chdir(\"/\") = 0",
                "PID2| Tracing inject fork (pid PID2)",
                "PID2| chdir(\"/\") = 0",
                "PID2| chdir(\"/\") = -1 [ENOENT] (INJECTED)",
                "PID2| Process exited normally with code 0",
                "PID1' ** SIGCHLD **",
                "chdir(\"/\") = -1 [ENOENT] (INJECTED)",
                "Process exited normally with code 0",
            ]),
            "{mode}"
        );
    }
}

#[test]
fn pokes_change_what_the_kernel_reads_and_what_the_program_gets() {
    // poke_enter before the kernel reads the buffer (and before rtrace
    // reads it for the line), poke_exit after the kernel wrote it.
    let bin = fixture("inject");
    for mode in ["--seccomp-bpf", "--no-seccomp-bpf"] {
        let run = trace(
            &[
                "-f",
                mode,
                "-e",
                "trace=sendto,recvfrom",
                "-e",
                "inject=sendto:poke_enter=@arg2=7879:when=2",
                "-e",
                "inject=recvfrom:poke_exit=@arg2=51:when=2",
            ],
            &[name(&bin), "poke"],
        );
        assert_eq!(run.code(), Some(0), "{mode}: {}", run.stderr());
        assert_eq!(
            stdout(&run),
            "recvfrom 1: 4 \"abcd\"\nrecvfrom 2: 4 \"Qycd\"\n",
            "{mode}"
        );
        assert_eq!(
            after(&run, "sendto("),
            s(&[
                "sendto(3, \"abcd\", 4, 0, NULL, 0) = 4",
                "sendto(3, \"xycd\", 4, 0, NULL, 0) = 4 (INJECTED: args)",
                "recvfrom(4, \"abcd\", 4, 0, NULL, NULL) = 4",
                "recvfrom(4, \"Qycd\", 4, 0, NULL, NULL) = 4 (INJECTED: args)",
                "Process exited normally with code 0",
            ]),
            "{mode}"
        );
    }
    // A poke with a result; of two rules for recvfrom the last wins (the
    // first, on the 1st call, does nothing), as in strace.
    let run = trace(
        &[
            "-e",
            "trace=recvfrom",
            "-e",
            "inject=recvfrom:poke_exit=@arg2=51:when=1",
            "-e",
            "inject=recvfrom:poke_enter=@arg2=5a:error=EAGAIN:when=2",
        ],
        &[name(&bin), "poke"],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_eq!(
        stdout(&run),
        "recvfrom 1: 4 \"abcd\"\nrecvfrom 2: -1 \"Z\"\n"
    );
    assert_eq!(
        after(&run, "recvfrom("),
        s(&[
            "recvfrom(4, \"abcd\", 4, 0, NULL, NULL) = 4",
            "recvfrom(4, &ADDR, 4, 0, NULL, NULL) = -1 [EAGAIN] (INJECTED: args, retval)",
            "Process exited normally with code 0",
        ])
    );
}

#[test]
fn summary_counts_injected_calls_and_their_errors() {
    let bin = fixture("inject");
    let run = trace(
        &[
            "-c",
            "-e",
            "trace=chdir,dup",
            "-e",
            "inject=chdir:error=ENOENT:when=2..5+2",
            "-e",
            "fault=dup:when=3",
        ],
        &[name(&bin)],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = run.lines();
    let row = |call: &str| -> String {
        lines
            .iter()
            .find(|l| l.ends_with(&format!(" {call}")))
            .unwrap_or_else(|| panic!("no {call} row: {lines:#?}"))
            .split_whitespace()
            .skip(3)
            .collect::<Vec<_>>()
            .join(" ")
    };
    // strace -c: chdir 6 calls, 2 errors; dup 3 calls, 3 errors.
    assert_eq!(row("chdir"), "6 2 chdir");
    assert_eq!(row("dup"), "3 3 dup");
    assert_eq!(row("total"), "9 5 total");
}

#[test]
fn json_says_which_calls_were_injected() {
    let bin = fixture("inject");
    let run = trace(
        &[
            "--json",
            "-e",
            "trace=dup",
            "-e",
            "inject=dup:retval=42:when=2",
        ],
        &[name(&bin)],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let dups: Vec<serde_json::Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["name"] == "dup")
        .collect();
    assert_eq!(dups.len(), 3);
    assert_eq!(dups[0]["result"], -9);
    assert!(dups[0].get("injected").is_none());
    assert_eq!(dups[1]["result"], 42);
    assert_eq!(dups[1]["injected"], true);
    assert!(dups[2].get("injected").is_none());
}

#[test]
fn an_mfetch_fails_with_eintr_on_its_third_call_and_the_client_retries() {
    // The capture-tool author's question: the client (libpcap's way,
    // usbmon_pcap) retries the failed fetch, and still gets every event.
    // The injected call did not run, so the kernel's state (and the
    // diagnostics' model of it) is unchanged: the retry's nflush is right.
    let pcap = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/usbmon/qemu-xhci-0u.pcap"
    );
    for mode in ["--seccomp-bpf", "--no-seccomp-bpf"] {
        let emu = Emulator::start("usbmon_emu", &[pcap]);
        fixture("usbmon_pcap");
        let run = trace_env(
            &[
                "-f",
                mode,
                "-e",
                "trace=ioctl",
                "-e",
                "inject=MON_IOCX_MFETCH:error=EINTR:when=3",
            ],
            &["usbmon_pcap", "1", "8192"],
            &[("USBMON_EMU_SOCKET", emu.socket())],
        );
        assert_eq!(run.code(), Some(0), "{mode}: {}", run.stderr());
        let lines: Vec<String> = run
            .lines()
            .into_iter()
            .filter(|l| !l.starts_with("  > "))
            .collect();
        let fetch = "ioctl(3, MON_IOCX_MFETCH, {offvec=&ADDR, nfetch=1, nflush=";
        assert_eq!(
            lines[1..6],
            s(&[
                "ioctl(3, MON_IOCT_RING_SIZE, 8192) = 0",
                &format!("{fetch}0}}) = 0 {{nfetch=1, nflush=0, offvec=[0]}}"),
                &format!("{fetch}1}}) = 0 {{nfetch=1, nflush=1, offvec=[64]}}"),
                &format!("{fetch}1}}) = -1 [EINTR] (INJECTED)"),
                &format!("{fetch}1}}) = 0 {{nfetch=1, nflush=1, offvec=[128]}}"),
            ]),
            "{mode}"
        );
        // No diagnostic: the client did nothing wrong.
        assert_eq!(common::diagnostics(&lines), Vec::<String>::new(), "{mode}");
        // Every captured event still came: 34 and the ring's fillers.
        let events = run.lines().iter().filter(|l| l.starts_with("  > ")).count();
        assert!(events >= 34, "{mode}: {events} events");
    }
}

#[test]
fn bad_specs_are_one_line_errors() {
    for (spec, error) in [
        (
            "inject=chdir",
            "rtrace: -e inject: 'chdir' does nothing: give error=, retval=, signal=, delay_enter=, delay_exit=, poke_enter= or poke_exit=\n",
        ),
        (
            "inject=chdir:error=ENOENTT",
            "rtrace: -e inject: unknown errno 'ENOENTT' (did you mean ENOENT?)\n",
        ),
        (
            "inject=chdir:error=ENOENT:when=0",
            "rtrace: -e inject: 'when=0': expected FIRST[..LAST][+[STEP]], FIRST and STEP 1 to 65535\n",
        ),
        (
            "inject=chdir:error=ENOENT:when=5..3",
            "rtrace: -e inject: 'when=5..3': LAST must be from FIRST to 65534\n",
        ),
        (
            "inject=chdir:error=1:retval=2",
            "rtrace: -e inject: error= and retval= exclude each other, and each comes once\n",
        ),
        (
            "inject=chdir:retval=-2",
            "rtrace: -e inject: 'retval=-2': a program reads that as an error: use error=2\n",
        ),
        (
            "inject=chdir:signal=SIGFOO",
            "rtrace: -e inject: 'SIGFOO' is no signal (a name, SIGRTMIN+N, or 1 to 64)\n",
        ),
        (
            "inject=chdir:delay_enter=1h",
            "rtrace: -e inject: '1h': expected a delay, a number with s, ms, us (the default) or ns\n",
        ),
        (
            "inject=chdirr:error=1",
            "rtrace: -e inject: unknown system call 'chdirr' (did you mean chdir?)\n",
        ),
        (
            "inject=MON_IOCX_FETCH:error=EINTR",
            "rtrace: -e inject: unknown ioctl request 'MON_IOCX_FETCH' (did you mean MON_IOCX_MFETCH?)\n",
        ),
        (
            "inject=write:poke_enter=@arg9=00",
            "rtrace: -e inject: 'poke_enter=@arg9=00': expected @argN=HEXBYTES,... (N 1 to 7)\n",
        ),
        (
            "inject=chdir:syscall=getpid",
            "rtrace: -e inject: 'chdir:syscall=getpid': syscall= needs error= or retval= (the result the program sees)\n",
        ),
        (
            "inject=chdir:syscall=chdir:error=1",
            "rtrace: -e inject: syscall=chdir: only a harmless call of %pure (getpid, gettid, getuid, ...) can run instead\n",
        ),
        (
            "inject=chdir:syscall=nosuch:error=1",
            "rtrace: -e inject: syscall=nosuch: not a system call of both x86_64 and i386\n",
        ),
        (
            "fault=chdir:retval=1",
            "rtrace: -e fault: 'retval=1': -e fault takes error= and when= only (-e inject takes the rest)\n",
        ),
    ] {
        let out = rtrace_env().args(["-e", spec, "true"]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{spec}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), error, "{spec}");
    }
    // BPF programs cannot change a call.
    let out = rtrace_env()
        .args(["--bpf", "-e", "inject=chdir:error=EPERM", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "rtrace: -e inject and -e fault need ptrace: --bpf only watches, it cannot change a call\n"
    );
}

#[test]
fn help_man_page_and_completions_offer_it() {
    let help = rtrace_env().arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    assert!(help.contains("inject=SET:ACTION"), "{help}");
    assert!(
        help.contains("fault=SET[:error=ERRNO][:when=...]"),
        "{help}"
    );
    assert!(
        help.contains("--inject <SPEC>") && help.contains("--fault <SPEC>"),
        "{help}"
    );
    let out = rtrace_env()
        .args(["--inject=chdir:error=ENOENTT", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "rtrace: -e inject: unknown errno 'ENOENTT' (did you mean ENOENT?)\n"
    );
    let man = rtrace_env().arg("--man").output().unwrap();
    assert!(String::from_utf8_lossy(&man.stdout).contains("inject=SET:ACTION"));
    let bash = rtrace_env()
        .args(["--completions", "bash"])
        .output()
        .unwrap();
    let bash = String::from_utf8_lossy(&bash.stdout).into_owned();
    assert!(bash.contains("inject=") && bash.contains("fault="));
}
