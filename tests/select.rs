//! Selection and statistics traced on real programs: `-e trace=` by name,
//! class, regex and negation (with and without the seccomp-bpf fast path),
//! `-e status=`, `-z`/`-Z`, `-e signal=`, `-c`/`-C`, `-T`, strace's long
//! spellings of the `-e` qualifiers, and bad input.

mod common;

use common::{
    SHAPES, SIGNAL_READS, SLEEP_RESTART, fixture, in_both_modes, name, rtrace, s, time_left, trace,
};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

const WRITES: &[&str] = &[
    "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
    "write(4, \"hello\", 5) = 5",
    "write(5, \"\\33[31mred\\33[0m\\n\", 13) = 13",
    "write(4, &0x1, 10) = -1 [EFAULT]",
    "Process exited normally with code 3",
];

#[test]
fn trace_by_name_with_and_without_seccomp() {
    let bin = fixture("shapes");
    for mode in [&[][..], &["--seccomp-bpf"][..], &["--no-seccomp-bpf"][..]] {
        let mut args = vec!["-e", "trace=write"];
        args.extend_from_slice(mode);
        let run = trace(&args, &[name(&bin)]);
        assert_eq!(run.code(), Some(3), "{mode:?}: {}", run.stderr());
        let lines = run.lines();
        assert_eq!(lines[0], "Tracing shapes (pid PID1)", "{mode:?}");
        assert_eq!(lines[1..], s(WRITES), "{mode:?}");
    }
}

#[test]
fn classes_regexes_and_negation() {
    let bin = fixture("shapes");
    let file = trace(&["-e", "trace=%file"], &[name(&bin)]).lines();
    assert!(
        file.contains(&"openat(AT_FDCWD, \"/nonexistent/x\", O_RDONLY) = -1 [ENOENT]".to_string()),
        "{file:#?}"
    );
    assert!(!file.iter().any(|l| l.starts_with("write(")), "{file:#?}");

    let re = trace(&["-e", "trace=/^(pipe2|close)$"], &[name(&bin)]).lines();
    assert!(
        re[1..re.len() - 1]
            .iter()
            .all(|l| l.starts_with("pipe2(") || l.starts_with("close(")),
        "{re:#?}"
    );
    assert_eq!(
        re[re.len() - 3..],
        s(&[
            "pipe2([3, 4], 0) = 0",
            "close(5) = 0",
            "Process exited normally with code 3"
        ])
    );

    // The classes are strace's: pipe2 makes fds without taking one, and
    // is in %desc all the same.
    let not = trace(
        &["-e", "trace=!%desc,%memory,%process,%file"],
        &[name(&bin)],
    )
    .lines();
    assert!(
        not.iter().any(|l| l.starts_with("set_tid_address(")),
        "{not:#?}"
    );
    assert!(
        !not.iter().any(|l| l.starts_with("write(")
            || l.starts_with("pipe2(")
            || l.starts_with("exit_group")),
        "{not:#?}"
    );
}

#[test]
fn status_filters_print_only_matching_outcomes() {
    let bin = fixture("shapes");
    let failed = trace(&["-Z"], &[name(&bin)]).after_marker();
    assert_eq!(
        failed,
        s(&[
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "write(4, &0x1, 10) = -1 [EFAULT]",
            "openat(AT_FDCWD, \"/nonexistent/x\", O_RDONLY) = -1 [ENOENT]",
            "Process exited normally with code 3",
        ])
    );
    let ok = trace(&["-z", "-e", "trace=write,openat"], &[name(&bin)]).lines();
    let tail = &ok[ok.len() - 4..];
    assert_eq!(
        tail,
        s(&[
            "write(4, \"hello\", 5) = 5",
            "openat(AT_FDCWD, \"/dev/null\", O_WRONLY|O_CLOEXEC) = 5",
            "write(5, \"\\33[31mred\\33[0m\\n\", 13) = 13",
            "Process exited normally with code 3",
        ])
    );
    let unfinished = trace(&["-e", "status=unfinished"], &[name(&bin)]).lines();
    assert_eq!(
        unfinished[1..],
        s(&["exit_group(3)", "Process exited normally with code 3"])
    );
}

#[test]
fn signal_selection_hides_signals() {
    let bin = fixture("fork_wait");
    let all = trace(&["-f"], &[name(&bin)]).after_marker();
    assert!(all.contains(&"** SIGCHLD **".to_string()), "{all:#?}");
    let none = trace(&["-f", "-e", "signal=!SIGCHLD"], &[name(&bin)]).after_marker();
    assert!(!none.iter().any(|l| l.contains("SIGCHLD")), "{none:#?}");
    assert_eq!(none.last().unwrap(), "Process exited normally with code 0");
}

#[test]
fn summary_counts_calls_and_errors() {
    let bin = fixture("shapes");
    let run = trace(&["-c", "-S", "name"], &[name(&bin)]);
    assert_eq!(run.code(), Some(3));
    let lines = run.lines();
    assert_eq!(
        lines[0],
        "% time     seconds  usecs/call     calls    errors syscall"
    );
    let row = |call: &str| {
        lines
            .iter()
            .find(|l| l.ends_with(&format!(" {call}")))
            .unwrap_or_else(|| panic!("no {call} row: {lines:#?}"))
            .split_whitespace()
            .skip(3)
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(row("write"), "4 2 write");
    // As in strace, a call that never returns is not counted.
    assert!(
        !lines.iter().any(|l| l.ends_with(" exit_group")),
        "{lines:#?}"
    );
    assert_eq!(row("pipe2"), "1 pipe2");
    assert!(lines.last().unwrap().ends_with(" total"));
    // -c prints nothing but the table.
    assert!(
        !lines
            .iter()
            .any(|l| l.starts_with("Tracing") || l.contains("("))
    );
    // The rows are sorted by name.
    let names: Vec<&str> = lines[2..lines.len() - 2]
        .iter()
        .map(|l| l.split_whitespace().last().unwrap())
        .collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);

    let both = trace(&["-C", "-e", "trace=write"], &[name(&bin)]).lines();
    assert_eq!(both[1..6], s(WRITES));
    assert!(both[6].starts_with("% time"), "{both:#?}");
    assert_eq!(both.len(), 6 + 5, "one row: write");
}

#[test]
fn call_times_end_each_line() {
    let bin = fixture("shapes");
    let lines = trace(&["-T", "-e", "trace=write"], &[name(&bin)]).lines();
    for line in &lines[1..5] {
        let (call, time) = line.rsplit_once(" <").unwrap_or_else(|| panic!("{line}"));
        assert!(WRITES.contains(&call), "{call}");
        let secs = time.strip_suffix('>').unwrap();
        let (whole, frac) = secs.split_once('.').unwrap();
        assert!(whole.parse::<u64>().is_ok() && frac.len() == 6, "{line}");
    }
}

#[test]
fn bad_selections_are_one_line_errors() {
    for (args, start) in [
        (
            &["-e", "trace=nosuchcall", "true"][..],
            "rtrace: unknown system call 'nosuchcall'",
        ),
        (
            &["-e", "trace=%bogus", "true"][..],
            "rtrace: unknown class '%bogus'",
        ),
        (&["-e", "trace=/(", "true"][..], "rtrace: bad regex '('"),
        (
            &["-e", "bogus=1", "true"][..],
            "rtrace: unknown -e qualifier 'bogus'",
        ),
        (
            &["-e", "status=maybe", "true"][..],
            "rtrace: unknown status 'maybe'",
        ),
        (
            &["-e", "signal=SIGNOPE", "true"][..],
            "rtrace: unknown signal 'SIGNOPE'",
        ),
        (
            &["-e", "trace=opne", "true"][..],
            "rtrace: unknown system call 'opne' (did you mean open?)\n",
        ),
        (
            &["-e", "signal=SIGUSRR", "true"][..],
            "rtrace: unknown signal 'SIGUSRR' (did you mean SIGUSR1?)\n",
        ),
        (
            &["-S", "bogus", "true"][..],
            "rtrace: unknown sort key 'bogus'",
        ),
        (
            &["--seccomp-bpf", "true"][..],
            "rtrace: --seccomp-bpf needs",
        ),
    ] {
        let out = rtrace().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with(start), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn filter_expressions_select_calls() {
    let bin = fixture("shapes");
    let lines = trace(&["--filter", "fd == 4 && count > 3"], &[name(&bin)]).lines();
    assert_eq!(
        lines[1..],
        s(&[
            "write(4, \"hello\", 5) = 5",
            "write(4, &0x1, 10) = -1 [EFAULT]",
            "Process exited normally with code 3",
        ])
    );
    let lines = trace(
        &["--filter", "errno == ENOENT && path ~ \"/non*\""],
        &[name(&bin)],
    )
    .lines();
    assert_eq!(
        lines[1..],
        s(&[
            "openat(AT_FDCWD, \"/nonexistent/x\", O_RDONLY) = -1 [ENOENT]",
            "Process exited normally with code 3",
        ])
    );
    let lines = trace(
        &[
            "--filter",
            "fd.path == \"/dev/null\" || (name == close && fd == 5)",
        ],
        &[name(&bin)],
    )
    .lines();
    assert_eq!(
        lines[1..],
        s(&[
            "write(5, \"\\33[31mred\\33[0m\\n\", 13) = 13",
            "close(5) = 0",
            "Process exited normally with code 3",
        ])
    );
    // A call that did not return has no result: no comparison holds.
    for expr in [
        "name == exit_group && result == 0",
        "name == exit_group && result != 0",
    ] {
        let lines = trace(&["--filter", expr], &[name(&bin)]).lines();
        assert_eq!(
            lines[1..],
            s(&["Process exited normally with code 3"]),
            "{expr}"
        );
    }
}

#[test]
fn filters_know_parameters_by_the_names_n_prints() {
    // The names -N shows are the fields a filter knows: openat's `dirfd`
    // and `pathname` (not the kernel's `dfd` and `filename`).
    let bin = fixture("shapes");
    let lines = trace(
        &[
            "-N",
            "--filter",
            "dirfd == AT_FDCWD && pathname ~ \"/dev/*\"",
        ],
        &[name(&bin)],
    )
    .lines();
    assert_eq!(
        lines[1..],
        s(&[
            "openat(dirfd=AT_FDCWD, pathname=\"/dev/null\", flags=O_WRONLY|O_CLOEXEC) = 5",
            "Process exited normally with code 3",
        ])
    );
    // i386 passes a 64-bit value in two registers; the filter sees it
    // whole under the one name printed (`offset`, `length`, `len`), and
    // the i386 pread64's offset where i386 puts it.
    let bin = fixture("calls_files_i386");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("filter-names-i386");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let filter = "offset == 4294967296 || (name == pread64 && offset == 2) \
                  || length == 8 || len == 4096";
    let run = trace(
        &["-N", "--filter", filter],
        &[name(&bin), dir.to_str().unwrap()],
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        run.lines()[1..],
        s(&[
            "_llseek(fd=3, offset=4294967296, result=[4294967296], whence=SEEK_SET) = 0",
            "pread64(fd=3, buf=\"2345\", count=4, offset=2) = 4",
            "ftruncate64(fd=3, length=8) = 0",
            "fallocate(fd=3, mode=FALLOC_FL_KEEP_SIZE, offset=0, len=4096) = 0",
            "fadvise64(fd=3, offset=4294967296, len=4096, advice=POSIX_FADV_DONTNEED) = 0",
            "sync_file_range(fd=3, offset=4294967296, nbytes=4096, flags=SYNC_FILE_RANGE_WRITE) = 0",
            "Process exited normally with code 0",
        ])
    );
}

#[test]
fn triggers_switch_printing_and_print_stacks() {
    let bin = fixture("shapes");
    let lines = trace(
        &[
            "--trigger",
            "traceon if name == pipe2",
            "--trigger",
            "traceoff if path == \"/nonexistent/x\"",
        ],
        &[name(&bin)],
    )
    .lines();
    // From the call after pipe2 to the openat of /nonexistent/x.
    let on = [&SHAPES[2..8], &["Process exited normally with code 3"]].concat();
    assert_eq!(lines[1..], s(&on));
    let lines = trace(
        &["-e", "trace=write", "--trigger", "stacktrace:1 if fd == 4"],
        &[name(&bin)],
    )
    .lines();
    assert_eq!(lines[2], "write(4, \"hello\", 5) = 5");
    // The stack, one frame a line (-k's form, tests/stack_trace.rs): the
    // libc wrapper first, the fixture's main below it.
    let frames: Vec<&String> = lines[3..]
        .iter()
        .take_while(|l| l.starts_with("  > "))
        .collect();
    assert!(frames.len() >= 2, "{lines:#?}");
    assert!(frames[0].contains("/libc.so.6("), "{lines:#?}");
    assert!(
        frames.iter().any(|f| f.contains("/shapes(main+0x")),
        "{lines:#?}"
    );
    let rest = &lines[3 + frames.len()..];
    // :1 fires once: the second write on fd 4 has no stack.
    assert_eq!(rest[1], "write(4, &0x1, 10) = -1 [EFAULT]");
    assert_eq!(rest[2], "Process exited normally with code 3");
}

#[test]
fn bad_filters_show_the_expression_and_a_caret() {
    let out = rtrace()
        .args(["--filter", "count > && pid == 3", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "rtrace: bad filter: Missing operand\n  Filter: count > && pid == 3\n                  ^\n"
    );
    let out = rtrace()
        .args(["--filter", "nosuch == 1", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .starts_with("rtrace: bad filter: Unknown field 'nosuch'")
    );
    let out = rtrace()
        .args(["--trigger", "boom", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("rtrace: unknown trigger 'boom'"));
    for (args, message) in [
        (
            &["--trigger", "traceon if"][..],
            "rtrace: trigger 'traceon if': no expression after 'if' \
             (as in 'traceon if name == ioctl')\n",
        ),
        (
            &["-e", "trace=/zzz"][..],
            "rtrace: regex '/zzz' matches no system call\n",
        ),
        (
            &["-e", "trace=file"][..],
            "rtrace: unknown system call 'file' (the class is '%file')\n",
        ),
    ] {
        let out = rtrace().args(args).arg("true").output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), message);
    }
    // A number may carry a sign, as kstrtoll allows.
    let bin = fixture("shapes");
    let lines = trace(&["--filter", "fd == +5 && name == close"], &[name(&bin)]).lines();
    assert_eq!(
        lines[1..],
        s(&["close(5) = 0", "Process exited normally with code 3"])
    );
}

#[test]
fn selected_calls_interrupted_by_handlers_under_the_fast_path() {
    // The handlers run while the engine steps the thread; nothing of theirs prints.
    for (mode, lines) in in_both_modes(&fixture("signals"), "trace=read") {
        let tail = &lines[lines.len() - SIGNAL_READS.len()..];
        assert_eq!(tail, s(SIGNAL_READS), "{mode}: {lines:#?}");
    }
}

#[test]
fn interrupted_calls_are_followed_without_stopping_on_every_handler() {
    // The filter does not stop rt_sigreturn or restart_syscall: the engine
    // steps the thread of a suspended call instead. The output must be the
    // same as when every call stops.
    let cases: [(&str, &str, &[&str]); 2] = [
        (
            "nested_signals",
            "trace=read",
            &[
                "read(3, ** SIGALRM ** ** SIGUSR1 ** &ADDR, 1) = -1 [EINTR]",
                "Process exited normally with code 0",
            ],
        ),
        (
            "longjmp_out",
            "trace=read",
            &[
                "read(3, ** SIGALRM ** &ADDR, 1) = -1 [ERESTARTSYS]",
                "read(3, ** SIGALRM ** &ADDR, 2) = -1 [ERESTARTSYS]",
                "read(3, \"x\", 7) = 1",
                "Process exited normally with code 0",
            ],
        ),
    ];
    for (fixture_name, set, tail) in cases {
        let bin = fixture(fixture_name);
        for mode in ["--seccomp-bpf", "--no-seccomp-bpf"] {
            // The fixtures' own stdout (handler writes) stays out of the trace.
            let run = trace(&["-e", set, mode], &[name(&bin)]);
            assert_eq!(
                run.code(),
                Some(0),
                "{fixture_name} {mode}: {}",
                run.stderr()
            );
            let lines = run.lines();
            assert_eq!(
                lines[lines.len() - tail.len()..],
                s(tail),
                "{fixture_name} {mode}: {lines:#?}"
            );
        }
    }
}

#[test]
fn a_sleep_continued_by_restart_syscall_then_interrupted_shows_the_time_left() {
    // The SIGWINCH (ignored) restarts the sleep through restart_syscall,
    // which the filter does not stop; the SIGUSR1 handler ends it.
    for (mode, lines) in in_both_modes(&fixture("sleep_restart"), "trace=nanosleep") {
        let lines: Vec<String> = lines.iter().map(|l| time_left(l)).collect();
        assert_eq!(lines[lines.len() - 2..], s(SLEEP_RESTART), "{mode}");
    }
}

#[test]
fn a_call_interrupted_inside_a_handler_by_a_stop_keeps_the_outer_calls_signal() {
    // The handler's nanosleep is cut by a group-stop (no signal of its
    // own) and restarted; the outer read must still end as the handler's
    // return decides: EINTR, or restarted with SA_RESTART.
    let bin = fixture("nested_stop");
    for (arg, end) in [
        ("", "read(3, &ADDR, 1) = -1 [EINTR]"),
        ("r", "read(3, \"x\", 1) = 1"),
    ] {
        for mode in ["--seccomp-bpf", "--no-seccomp-bpf"] {
            let mut command = vec![name(&bin)];
            if !arg.is_empty() {
                command.push(arg);
            }
            let run = trace(&["-f", "-e", "trace=read", mode], &command);
            assert_eq!(run.code(), Some(0), "{mode}: {}", run.stderr());
            let lines = run.lines();
            let ends = lines.iter().filter(|l| l.ends_with(end)).count();
            let restarts = lines.iter().filter(|l| l.contains("ERESTART")).count();
            assert_eq!((ends, restarts), (1, 0), "{arg} {mode}: {lines:#?}");
        }
    }
}

#[test]
fn a_failed_exec_of_the_command_still_shows_what_follows() {
    // Under the filter the execve (not selected) does not stop; the calls
    // after it failed are the command's to show all the same.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let script = dir.join("not-a-program");
    std::fs::write(&script, "garbage\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let shown = script.display().to_string();
    for mode in ["--seccomp-bpf", "--no-seccomp-bpf"] {
        let run = trace(
            &["-s", "200", "-e", "trace=write,exit_group", mode],
            &[&shown],
        );
        assert_eq!(run.code(), Some(127), "{mode}: {}", run.stderr());
        let message = format!("rtrace: cannot run '{shown}': ");
        assert_eq!(
            run.lines()[1..],
            s(&[
                &format!(
                    "write(2, \"{message}\", {}) = {}",
                    message.len(),
                    message.len()
                ),
                "write(2, \"Exec format error\", 17) = 17",
                "write(2, \"\\n\", 1) = 1",
                "exit_group(127)",
                "Process exited normally with code 127",
            ]),
            "{mode}"
        );
    }
}

#[test]
fn without_f_children_under_the_filter_run_unharmed_and_unshown() {
    // Children inherit the filter; a selected call with no tracer would
    // fail with ENOSYS, so they are traced but not shown.
    let bin = fixture("fork_wait");
    for mode in ["--seccomp-bpf", "--no-seccomp-bpf"] {
        let run = trace(&["-e", "trace=wait4,exit_group", mode], &[name(&bin)]);
        assert_eq!(run.code(), Some(0), "{mode}: {}", run.stderr());
        let lines = run.lines();
        assert_eq!(lines.len(), 5, "{mode}: {lines:#?}");
        assert_eq!(lines[0], "Tracing fork_wait (pid PID1)");
        // The child's exit_group(7) worked: its parent sees code 7.
        assert!(
            lines[1].starts_with("wait4(-1, W_EXITED(7), 0, NULL) = "),
            "{mode}: {lines:#?}"
        );
        assert_eq!(
            lines[2..],
            s(&[
                "** SIGCHLD **",
                "exit_group(0)",
                "Process exited normally with code 0"
            ]),
            "{mode}"
        );
    }
}

#[test]
fn exec_from_an_unshown_thread_continues_the_shown_process() {
    // Without -f the thread is traced unshown; after its exec it is the
    // process, which is shown.
    let bin = fixture("thread_exec");
    let run = trace(&["--seccomp-bpf", "-e", "trace=exit_group"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_eq!(
        run.lines(),
        s(&[
            "Tracing thread_exec (pid PID1)",
            "---",
            "Tracing true (pid PID1)",
            "exit_group(0)",
            "Process exited normally with code 0",
        ])
    );
}

#[test]
fn an_output_error_keeps_unshown_children_working() {
    // Without -f the background child is traced unshown, under the filter.
    // Let go, its selected write would fail with ENOSYS: rtrace stays
    // until it ends, then reports the output error.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join(format!("unshown-{}.txt", std::process::id()));
    let script = format!(
        "(sleep 0.3; echo late >{}) </dev/null >/dev/null 2>&1 & echo hi",
        file.display()
    );
    let out = rtrace()
        .args(["--seccomp-bpf", "-e", "trace=write", "-o", "/dev/full"])
        .args(["sh", "-c", &script])
        .stdout(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let written = std::fs::read_to_string(&file).unwrap();
    let _ = std::fs::remove_file(&file);
    assert_eq!(written, "late\n");
}

#[test]
fn without_f_a_command_can_still_trace_its_own_children() {
    // The automatic fast path needs -f: without it the children would have
    // to be traced by rtrace, and a debugger could not trace them.
    let bin = fixture("traces_its_child");
    let run = trace(&["-e", "trace=wait4"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_eq!(
        String::from_utf8_lossy(&run.output.stdout),
        "child exited with 0\n"
    );
}

#[test]
fn threads_started_under_the_filter_belong_to_their_process() {
    // The clone does not stop under the filter; the thread's process id
    // must still be its group's.
    let bin = fixture("two_threads");
    for mode in ["--seccomp-bpf", "--no-seccomp-bpf"] {
        let run = trace(&["-f", "--json", "-e", "trace=write", mode], &[name(&bin)]);
        assert_eq!(run.code(), Some(0), "{mode}: {}", run.stderr());
        let starts: Vec<(i64, i64)> = run
            .trace
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|o| o["type"] == "start")
            .map(|o| (o["pid"].as_i64().unwrap(), o["tid"].as_i64().unwrap()))
            .collect();
        assert_eq!(starts.len(), 3, "{mode}: {starts:?}");
        let main = starts[0].0;
        assert!(
            starts.iter().all(|&(pid, _)| pid == main),
            "{mode}: {starts:?}"
        );
    }
}

#[test]
fn children_start_when_their_fork_is_not_traced() {
    // Under the fast path fork itself never stops: the child must not wait
    // for its parent's fork line.
    let bin = fixture("fork_wait");
    for mode in ["--seccomp-bpf", "--no-seccomp-bpf"] {
        let run = trace(&["-f", "-e", "trace=wait4,exit_group", mode], &[name(&bin)]);
        assert_eq!(run.code(), Some(0), "{mode}: {}", run.stderr());
        let lines = run.lines();
        assert_eq!(
            lines[1..],
            s(&[
                "PID2| Tracing fork_wait (pid PID2)",
                "PID1| wait4(-1, <..>",
                "PID2| exit_group(7)",
                "PID2| Process exited normally with code 7",
                "PID1'*wait4(-1, W_EXITED(7), 0, NULL) = PID2",
                "** SIGCHLD **",
                "exit_group(0)",
                "Process exited normally with code 0",
            ]),
            "{mode}"
        );
    }
}

#[test]
fn an_output_error_leaves_filtered_processes_working() {
    // 80 KB of trace fills the output buffer, so the write to /dev/full
    // fails while the shell still runs. Detached, its selected calls would
    // fail with ENOSYS (the filter stays); it must stay traced, unshown.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    for mode in ["--seccomp-bpf", "--no-seccomp-bpf"] {
        let file = dir.join(format!("after-output-error{mode}"));
        let _ = std::fs::remove_file(&file);
        let script = format!(
            "i=0; while [ $i -lt 2000 ]; do echo x >/dev/null; i=$((i+1)); done; echo hello >{}",
            file.display()
        );
        let out = rtrace()
            .args(["-f", mode, "-e", "trace=write", "-o", "/dev/full"])
            .args(["sh", "-c", &script])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{mode}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "rtrace: cannot write trace output: No space left on device\n"
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "hello\n", "{mode}");
    }
}

#[test]
fn stacks_include_the_caller_of_a_frameless_wrapper() {
    // The fixture prints the return address its frameless getuid wrapper
    // used: it must be the stack's second entry, right after the call's ip;
    // also when a mapping's name in /proc/PID/maps is not UTF-8 (memfd).
    let bin = fixture("leaf_stack");
    for mode in [None, Some("memfd")] {
        let mut command = vec![name(&bin)];
        command.extend(mode);
        leaf_stack_has_the_wrappers_caller(&command);
    }
}

fn leaf_stack_has_the_wrappers_caller(command: &[&str]) {
    let run = trace(
        &[
            "-e",
            "trace=getuid",
            "--trigger",
            "stacktrace if name == getuid",
        ],
        command,
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let ret = String::from_utf8_lossy(&run.output.stdout)
        .trim()
        .to_string();
    let ret = u64::from_str_radix(&ret, 16).unwrap();
    // `  > FILE(SYMBOL+0xOFF) [0xADDR]`: the functions in order, the
    // wrapper's caller right after the wrapper.
    let frames: Vec<(String, u64)> = run
        .trace
        .lines()
        .filter_map(|l| l.strip_prefix("  > "))
        .map(|f| {
            let (file, rest) = f.split_once('(').unwrap_or_else(|| panic!("{f}"));
            let (symbol, addr) = rest.split_once(") [0x").unwrap_or_else(|| panic!("{f}"));
            let name = symbol.split('+').next().unwrap();
            let addr = u64::from_str_radix(addr.trim_end_matches(']'), 16).unwrap();
            (
                format!("{}:{name}", common::name(std::path::Path::new(file))),
                addr,
            )
        })
        .collect();
    let names: Vec<&str> = frames.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names[..4],
        [
            "leaf_stack:leaf_getuid",
            "leaf_stack:inner",
            "leaf_stack:outer",
            "leaf_stack:main"
        ],
        "{command:?}: {}",
        run.trace
    );
    // The second frame is the return address the wrapper used, in the
    // file's own addresses: the two differ by the page-aligned load bias.
    assert_eq!((ret - frames[1].1) % 4096, 0, "{ret:x}: {}", run.trace);
    assert_eq!(ret & 0xfff, frames[1].1 & 0xfff, "{ret:x}: {}", run.trace);
}

#[test]
fn straces_long_spellings_are_its_e_forms() {
    let bin = fixture("shapes");
    // --trace=, --status=, --raw=, --abbrev=, --signals=, --write=,
    // --arg-names and --failing-only against -e trace=, ... -N and -Z,
    // in the same order.
    let long = trace(
        &[
            "--trace=write,close",
            "--raw=close",
            "--abbrev=none",
            "--signals=none",
            "--write=4",
            "--arg-names",
        ],
        &[name(&bin)],
    );
    let short = trace(
        &[
            "-e",
            "trace=write,close",
            "-e",
            "raw=close",
            "-e",
            "abbrev=none",
            "-e",
            "signal=none",
            "-e",
            "write=4",
            "-N",
        ],
        &[name(&bin)],
    );
    assert_eq!(long.code(), Some(3), "{}", long.stderr());
    assert_eq!(long.lines(), short.lines());
    // What each asks for is there: names, a raw close, a dump of fd 4.
    let lines = long.lines();
    assert!(
        lines.contains(&"write(fd=4, buf=\"hello\", count=5) = 5".to_string()),
        "{lines:?}"
    );
    assert!(
        lines.contains(&"close(fd=0x3) = 0".to_string()),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("  | 00000  68 65 6c 6c 6f")),
        "{lines:?}"
    );
    // A long spelling before an -e inject= leaves the injection as it was.
    let long = trace(
        &["--trace=write", "-e", "inject=write:error=ENOSPC:when=1"],
        &[name(&bin)],
    );
    let short = trace(
        &[
            "-e",
            "trace=write",
            "-e",
            "inject=write:error=ENOSPC:when=1",
        ],
        &[name(&bin)],
    );
    assert_eq!(long.lines(), short.lines());
    assert!(
        long.lines()
            .contains(&"write(-1, \"BEGIN\", 5) = -1 [ENOSPC] (INJECTED)".to_string()),
        "{:?}",
        long.lines()
    );
    let long = trace(&["--trace=write", "--status=failed"], &[name(&bin)]);
    let short = trace(&["-e", "trace=write", "--failing-only"], &[name(&bin)]);
    assert_eq!(long.lines(), short.lines());
    assert_eq!(
        long.lines()[1..],
        s(&[
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "write(4, &0x1, 10) = -1 [EFAULT]",
            "Process exited normally with code 3",
        ])
    );
}
