//! `rtrace --user-events-emulate`: the user_events producers of
//! tests/fixtures run on rtrace's own emulation (src/emu/user_events/),
//! with no launcher and no socket. Each program checks its own results
//! (exit 0), its trace must equal, line for line, its trace on the C
//! emulator (the independent second implementation, tests/user_events.rs),
//! and the records printed after the trace are ftrace's text of the
//! accepted writes.

mod common;

use common::{Emulator, fixture, trace_env};

/// The trace part and the ftrace part of a run's output.
fn split(trace: &str) -> (String, Vec<String>) {
    let at = trace
        .find("# tracer: nop\n")
        .unwrap_or_else(|| panic!("no ftrace records after the trace:\n{trace}"));
    let records = trace[at..]
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(untimed)
        .collect();
    (trace[..at].to_string(), records)
}

/// A record line without its pid, CPU and time stamp.
fn untimed(line: &str) -> String {
    let (task, rest) = line.split_once(": ").expect("a record line");
    let comm = task.trim_start().rsplit_once('-').expect("comm-pid").0;
    let flags = task.split_once("] ").expect("the CPU").1;
    assert!(flags.starts_with("..... "), "{line}");
    format!("{comm}: {rest}")
}

/// The trace lines from the marker on, normalised.
fn after_marker(trace: &str) -> Vec<String> {
    let lines = common::normalise(trace);
    let start = lines
        .iter()
        .position(|l| l.contains("\"BEGIN\""))
        .expect("marker");
    lines[start..].to_vec()
}

fn compare(program: &str, enable: &[&str], extra: &[&str]) -> Vec<String> {
    fixture(program);
    let emu_args: Vec<&str> = enable.iter().flat_map(|n| ["--enable", n]).collect();
    let emu = Emulator::start("uevents_emu", &emu_args);
    let theirs = trace_env(&[], &[program], &[("UEVENTS_EMU_SOCKET", emu.socket())]);
    assert_eq!(theirs.code(), Some(0), "{}", theirs.stderr());
    let names = enable.join(",");
    let mut args = vec!["--user-events-emulate", "--user-events-enable", &names];
    args.extend_from_slice(extra);
    let ours = trace_env(&args, &[program], &[("UEVENTS_EMU_ATTACHED", "1")]);
    assert_eq!(ours.code(), Some(0), "{}\n{}", ours.stderr(), ours.trace);
    let (trace, records) = split(&ours.trace);
    assert_eq!(after_marker(&trace), after_marker(&theirs.trace));
    records
}

#[test]
fn the_producer_traces_as_on_the_c_emulator_and_ftrace_records_its_writes() {
    let records = compare("uevents_producer", &["rtrace_probe", "rtrace_multi"], &[]);
    assert_eq!(
        records,
        [
            "uevents_produce: rtrace_probe: count=0x5 (5) tag=abc",
            "uevents_produce: rtrace_probe: count=0x7 (7) tag=xyz",
            // 200 is printable in the kernel's Latin-1 ctype: it writes
            // the byte in quotes; here U+FFFD, escaped by rtrace's output.
            "uevents_produce: rtrace_multi: a=0xffffffffffffffd6 (-42) b=0xbeef (48879) c='\\357\\277\\275'(200) msg=hello note=world!",
        ]
    );
}

#[test]
fn the_misuse_fixture_traces_as_on_the_c_emulator() {
    let records = compare("uevents_misuse", &["rtrace_probe", "rtrace_rel"], &[]);
    // The write after DIAG_IOCSUNREG is accepted (a tracer has it).
    assert_eq!(
        records,
        ["uevents_misuse: rtrace_probe: count=0x5 (5) tag=abc"]
    );
}

#[test]
fn the_same_under_the_seccomp_fast_path_and_with_only_the_ioctls() {
    fixture("uevents_producer");
    let env = [("UEVENTS_EMU_ATTACHED", "1")];
    let args = [
        "--user-events-emulate",
        "--user-events-enable",
        "rtrace_probe,rtrace_multi",
    ];
    let full = trace_env(&args, &["uevents_producer"], &env);
    assert_eq!(full.code(), Some(0), "{}", full.stderr());
    let ioctls: Vec<String> = common::normalise(&split(&full.trace).0)
        .into_iter()
        .filter(|l| l.starts_with("ioctl(") || l.starts_with("** user_events: fd 3: DIAG"))
        .collect();
    assert!(ioctls.len() > 10, "{ioctls:#?}");
    for extra in [
        &["-e", "trace=ioctl"][..],
        &["-e", "trace=ioctl", "--seccomp-bpf"],
    ] {
        let mut a = args.to_vec();
        a.extend_from_slice(extra);
        let run = trace_env(&a, &["uevents_producer"], &env);
        assert_eq!(run.code(), Some(0), "{}", run.stderr());
        let (trace, records) = split(&run.trace);
        let lines: Vec<String> = common::normalise(&trace)
            .into_iter()
            .filter(|l| l.starts_with("ioctl(") || l.starts_with("** user_events: fd 3: DIAG"))
            .collect();
        assert_eq!(lines, ioctls, "{extra:?}");
        assert_eq!(records.len(), 3, "{extra:?}");
    }
    // The emulation's setup is not the command's: the first call is its
    // execve.
    let first = common::normalise(&full.trace)
        .into_iter()
        .find(|l| !l.starts_with("Tracing"))
        .unwrap();
    assert!(first.starts_with("execve(\""), "{first}");
}

#[test]
fn bad_uses_are_one_line_errors() {
    for (args, msg) in [
        (
            &["--user-events-emulate", "-p", "1"][..],
            "rtrace: --user-events-emulate cannot be used with -p: the emulated files are given to the command rtrace starts, before its exec\n",
        ),
        (
            &["--user-events-emulate"][..],
            "rtrace: --user-events-emulate needs a COMMAND to run on the emulated user_events\n",
        ),
        (
            &["--user-events-enable", "x", "true"][..],
            "rtrace: --user-events-enable needs --user-events-emulate\n",
        ),
    ] {
        let out = common::rtrace().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), msg, "{args:?}");
    }
}

/// The program's own reads of tracefs's `trace` file see the buffer so far,
/// the text rtrace prints after the trace: the producer's three records
/// read back by `cat` while the command runs, line for line the ones
/// printed at the end (the deleted events' records as `Unknown type ID`).
/// `: > trace` (an open for writing with O_TRUNC)
/// empties it, as the kernel's `tracing_open`: `cat` then finds no record,
/// and neither does the text printed at the end.
#[test]
fn the_trace_file_is_readable_while_the_command_runs() {
    let producer = fixture("uevents_producer");
    let trace = "/sys/kernel/tracing/trace";
    let env = [("UEVENTS_EMU_ATTACHED", "1")];
    let args = [
        "--user-events-emulate",
        "--user-events-enable",
        "rtrace_probe,rtrace_multi",
    ];
    let read = format!("{} >/dev/null && cat {trace}", producer.display());
    let run = trace_env(&args, &["/bin/sh", "-c", &read], &env);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let printed = &run.trace[run.trace.find("# tracer: nop\n").expect("records")..];
    let stdout = String::from_utf8_lossy(&run.output.stdout);
    let (_, records) = split(&run.trace);
    assert_eq!(records.len(), 3, "{printed}");
    // The producer deleted its events before the cat: the kernel's file
    // then prints each record as `Unknown type ID` (the e2e suite's real
    // kernel does; the emulation's IDs start at 1000, rtrace_probe's
    // first), while rtrace's print at the end decodes them.
    let unknown: Vec<String> = printed
        .lines()
        .map(|l| match l.split_once(": rtrace_") {
            Some((context, rest)) => {
                let id = if rest.starts_with("probe:") {
                    1000
                } else {
                    1001
                };
                format!("{context}: Unknown type {id}")
            }
            None => l.to_string(),
        })
        .collect();
    assert_eq!(stdout.lines().collect::<Vec<_>>(), unknown);
    let cleared = format!(
        "{} >/dev/null && : > {trace} && cat {trace}",
        producer.display()
    );
    let run = trace_env(&args, &["/bin/sh", "-c", &cleared], &env);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let printed = &run.trace[run.trace.find("# tracer: nop\n").expect("records")..];
    let stdout = String::from_utf8_lossy(&run.output.stdout);
    assert_eq!(stdout, printed);
    assert!(
        printed.contains("# entries-in-buffer/entries-written: 0/0   #P:"),
        "{printed}"
    );
    assert_eq!(split(&run.trace).1, Vec::<String>::new());
}

/// A 32-bit program on the emulation: a 64-bit one registers
/// rtrace_probe and execs the 32-bit build, which keeps the file (fd 3).
/// Its DIAG_IOCSREG is ENOTTY (the kernel has no compat ioctl for
/// user_events), its write and compat writev of the registered event are
/// recorded, an unknown index and a file without events are ENOENT; the
/// program checks each result itself, the trace shows them, and the
/// records are the two writes.
#[test]
fn a_32_bit_program_writes_and_cannot_register() {
    fixture("uevents_compat");
    let m32 = common::fixture_m32("uevents_compat");
    let run = trace_env(
        &[
            "--user-events-emulate",
            "--user-events-enable",
            "rtrace_probe",
        ],
        &["uevents_compat", m32.to_str().unwrap()],
        &[("UEVENTS_EMU_ATTACHED", "1")],
    );
    assert_eq!(run.code(), Some(0), "{}\n{}", run.stderr(), run.trace);
    let (trace, records) = split(&run.trace);
    let lines = after_marker(&trace);
    assert_eq!(
        lines,
        [
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "ioctl(3, DIAG_IOCSREG, {size=28, enable_bit=0, enable_size=4, flags=0, enable_addr=&ADDR, name_args=\"rtrace_probe u32 count;char[8] tag\"}) = -1 [ENOTTY]",
            "write(3, {write_index=0 <rtrace_probe>, count=7, tag=\"xyz\"}, 16) = 16",
            "writev(3, [{write_index=0 <rtrace_probe>}, {count=9, tag=\"vec\"}], 2) = 16",
            "writev(3, [{write_index=1 <unknown>}, {raw=\"\\t\\0\\0\\0vec\\0\\0\\0\\0\\0\"}], 2) = -1 [ENOENT]",
            "** user_events: fd 3: write_index 1 was never registered on this fd (registered: write_index 0 <rtrace_probe>): refused (ENOENT) **",
            "openat(AT_FDCWD, \"/sys/kernel/tracing/user_events_data\", O_RDWR) = 4",
            "write(4, {write_index=0 <unknown>, raw=\"\\7\\0\\0\\0xyz\\0\\0\\0\\0\\0\"}, 16) = -1 [ENOENT]",
            "** user_events: fd 4: write_index 0 was never registered on this fd (nothing is registered on it): refused (ENOENT) **",
            "exit_group(0)",
            "Process exited normally with code 0",
        ],
        "{trace}"
    );
    assert_eq!(
        records,
        [
            "uevents_compat_: rtrace_probe: count=0x7 (7) tag=xyz",
            "uevents_compat_: rtrace_probe: count=0x9 (9) tag=vec",
        ]
    );
}

/// An exec drops the enablers its process registered, as the kernel's
/// `user_events_execve`: after the exec, closing the registering file
/// deletes the event (no tracer holds it), so its format file is gone.
#[test]
fn an_exec_drops_the_processs_enablers() {
    fixture("uevents_exec");
    let run = trace_env(
        &[
            "--user-events-emulate",
            "--user-events-enable",
            "rtrace_other",
        ],
        &["uevents_exec"],
        &[("UEVENTS_EMU_ATTACHED", "1")],
    );
    assert_eq!(run.code(), Some(0), "{}\n{}", run.stderr(), run.trace);
    let (trace, records) = split(&run.trace);
    assert_eq!(
        after_marker(&trace),
        [
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "openat(AT_FDCWD, \"/sys/kernel/tracing/events/user_events/rtrace_probe/format\", O_RDONLY) = 4",
            "close(3) = 0",
            "close(4) = 0",
            "openat(AT_FDCWD, \"/sys/kernel/tracing/events/user_events/rtrace_probe/format\", O_RDONLY) = -1 [ENOENT]",
            "exit_group(0)",
            "Process exited normally with code 0",
        ],
        "{trace}"
    );
    assert_eq!(records, Vec::<String>::new());
}
