//! rtrace against hostile programs and bad input: nothing a tracee controls
//! reaches the terminal raw, every bad option is an error, a killed rtrace
//! leaves its command running as strace does, and a failed attach says why
//! and leaves no output file behind.

mod common;

use common::{fixture, name, normalise, rtrace, rtrace_env, s, trace};
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A fresh path in the test scratch directory.
fn scratch(tag: &str) -> PathBuf {
    common::scratch_path("security", tag)
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

/// A zombie is known for one whatever name it gave itself: bytes that are
/// not UTF-8, a `) R ` that looks like the end of the name and a state.
#[test]
fn attaching_to_a_zombie_with_a_hostile_name_says_so() {
    let mut child = Command::new(fixture("hostile_name"))
        .arg("zombie")
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    let start = Instant::now();
    while !std::fs::read(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.ends_with(b"\n") && {
            let at = s.windows(2).rposition(|w| w == b") ").unwrap();
            s[at + 2] == b'Z'
        }
    }) {
        assert!(start.elapsed() < Duration::from_secs(10), "no zombie");
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = rtrace().args(["-p", &pid.to_string()]).output().unwrap();
    child.wait().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "rtrace: cannot attach to pid {pid}: the process has exited and is waiting to be reaped by its parent\n"
        )
    );
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

/// Run rtrace with `args` on `command` (trace to a file, fixed environment)
/// and return the trace's bytes as written, and rtrace's exit code.
fn trace_bytes(args: &[&str], command: &[&std::ffi::OsStr]) -> (Vec<u8>, Option<i32>) {
    let file = scratch("trace");
    let out = rtrace_env()
        .arg("-o")
        .arg(&file)
        .args(args)
        .args(command)
        .stdout(Stdio::null())
        .output()
        .unwrap();
    let bytes = std::fs::read(&file).unwrap_or_default();
    let _ = std::fs::remove_file(&file);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (bytes, out.status.code())
}

/// Fails on any byte of `trace` a terminal could act on: everything but
/// printable ASCII and line ends (the fixtures' output is ASCII once
/// escaped, in text and in JSON).
fn assert_no_raw_controls(what: &str, trace: &[u8]) {
    for (i, &b) in trace.iter().enumerate() {
        assert!(
            b == b'\n' || (0x20..0x7f).contains(&b),
            "{what}: raw byte 0x{b:02x} at offset {i} in\n{}",
            String::from_utf8_lossy(trace)
        );
    }
}

/// The hostile name as the banner must print it: escaped as strings are.
const ESCAPED_NAME: &str = "\\33[2J\\33]0;pwn\\7\\n";

#[test]
fn a_name_the_process_gives_itself_prints_escaped() {
    let bin = fixture("hostile_name");
    let (trace, code) = trace_bytes(&["-f"], &[name(&bin).as_ref()]);
    assert_eq!(code, Some(0));
    assert_no_raw_controls("text", &trace);
    let text = String::from_utf8(trace).unwrap();
    let lines = normalise(&text);
    let start = lines.iter().position(|l| l.contains("\"BEGIN\"")).unwrap();
    assert_eq!(
        lines[start..],
        s(&[
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            &format!("prctl(PR_SET_NAME, \"{ESCAPED_NAME}\") = 0"),
            "fork() = PID2",
            &format!("PID2| Tracing {ESCAPED_NAME} (pid PID2)"),
            "PID2| fork() = 0",
            "PID1| wait4(-1, <..>",
            "PID2| exit_group(7)",
            "PID2| Process exited normally with code 7",
            "PID1'*wait4(-1, W_EXITED(7), 0, NULL) = PID2",
            "** SIGCHLD **",
            "exit_group(0)",
            "Process exited normally with code 0",
        ])[..]
    );
}

/// The `type` and `name` of every process event in a JSON trace.
fn json_events(trace: &str) -> Vec<(String, String)> {
    trace
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("a JSON line"))
        .filter(|v| v["type"] == "start" || v["type"] == "exec")
        .map(|v| {
            (
                v["type"].as_str().unwrap().to_string(),
                v["name"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn json_escapes_controls_del_c1_and_bidirectional_overrides() {
    let bin = fixture("hostile_name");
    for (mode, name) in [
        ("rename", "\x1b[2J\x1b]0;pwn\x07\n"),
        ("bidi", "\u{202e}\u{9b}\u{7f}gpj.exe"),
    ] {
        let (trace, code) = trace_bytes(&["--json", "-f"], &[bin.as_os_str(), mode.as_ref()]);
        assert_eq!(code, Some(0), "{mode}");
        assert_no_raw_controls(mode, &trace);
        let text = String::from_utf8(trace).unwrap();
        assert_eq!(
            json_events(&text),
            [
                ("start".to_string(), "hostile_name".to_string()),
                ("start".to_string(), name.to_string()),
            ],
            "{mode}"
        );
    }
    // The escapes themselves, as jq's input shows them.
    let (trace, _) = trace_bytes(&["--json", "-f"], &[bin.as_os_str(), "bidi".as_ref()]);
    let text = String::from_utf8(trace).unwrap();
    assert!(
        text.contains(r#""name":"\u202e\u009b\u007fgpj.exe","args":["bidi"]}"#),
        "{text}"
    );
}

/// A copy of the hostile_name fixture under a file name holding an escape
/// sequence, a newline and a control byte.
fn hostile_path() -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    let dir = scratch("dir");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(std::ffi::OsStr::from_bytes(b"evil\x1b[31m\nX\x01"));
    std::fs::copy(fixture("hostile_name"), &path).unwrap();
    path
}

/// The file name of [`hostile_path`] as banners print it.
const ESCAPED_FILE: &str = "evil\\33[31m\\nX\\1";

#[test]
fn a_command_started_from_a_hostile_file_name_prints_escaped() {
    let path = hostile_path();
    for json in [false, true] {
        let args: &[&str] = if json {
            &["--json", "-e", "trace=exit_group"]
        } else {
            &["-e", "trace=exit_group"]
        };
        let (trace, code) = trace_bytes(args, &[path.as_os_str(), "quiet".as_ref()]);
        assert_eq!(code, Some(0));
        assert_no_raw_controls(&format!("json={json}"), &trace);
        let text = String::from_utf8(trace).unwrap();
        if json {
            assert_eq!(
                json_events(&text),
                [("start".to_string(), "evil\x1b[31m\nX\x01".to_string())]
            );
        } else {
            assert_eq!(
                normalise(&text),
                s(&[
                    &format!("Tracing {ESCAPED_FILE} quiet (pid PID1)"),
                    "exit_group(0)",
                    "Process exited normally with code 0",
                ])
            );
        }
    }
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

#[test]
fn a_program_executed_from_a_hostile_file_name_prints_escaped() {
    let path = hostile_path();
    let bin = fixture("hostile_name");
    let command = [bin.as_os_str(), "exec".as_ref(), path.as_os_str()];
    // -s: the banner's arguments whole (the file's path among them).
    let (trace, code) = trace_bytes(&["-f", "-s", "4096", "-e", "trace=execve"], &command);
    assert_eq!(code, Some(0));
    assert_no_raw_controls("text", &trace);
    let text = String::from_utf8(trace).unwrap();
    // The child's banners; its execve line may be cut by the parent's.
    let child: Vec<String> = normalise(&text)
        .into_iter()
        .filter(|l| l.starts_with("PID2| ") && !l.contains("execve("))
        .collect();
    assert_eq!(
        child,
        s(&[
            &format!(
                "PID2| Tracing hostile_name exec \"{}/{ESCAPED_FILE}\" (pid PID2)",
                path.parent().unwrap().display()
            ),
            "PID2| ---",
            &format!("PID2| Tracing {ESCAPED_FILE} quiet (pid PID2)"),
            "PID2| Process exited normally with code 0",
        ])
    );
    let (trace, code) = trace_bytes(&["--json", "-f", "-e", "trace=execve"], &command);
    assert_eq!(code, Some(0));
    assert_no_raw_controls("json", &trace);
    let text = String::from_utf8(trace).unwrap();
    assert_eq!(
        json_events(&text),
        [
            ("start".to_string(), "hostile_name".to_string()),
            ("start".to_string(), "hostile_name".to_string()),
            ("exec".to_string(), "evil\x1b[31m\nX\x01".to_string()),
        ]
    );
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

#[test]
fn an_attached_process_with_a_hostile_name_prints_escaped() {
    use std::io::Read;
    let bin = fixture("hostile_name");
    let mut target = Command::new(&bin)
        .arg("wait")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut ready = [0u8; 1];
    target
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut ready)
        .unwrap();
    let pid = target.id() as i32;
    let file = scratch("attach");
    let mut tracer = rtrace()
        .arg("-o")
        .arg(&file)
        .args(["-p", &pid.to_string()])
        .spawn()
        .unwrap();
    let start = Instant::now();
    let banner = |t: &[u8]| t.windows(5).any(|w| w == b"(pid ");
    while !std::fs::read(&file).is_ok_and(|t| banner(&t)) {
        if start.elapsed() > Duration::from_secs(10) {
            let _ = tracer.kill();
            let _ = target.kill();
            panic!("no banner");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: SIGINT to our own child, rtrace: it detaches.
    unsafe { libc::kill(tracer.id() as i32, libc::SIGINT) };
    let status = tracer.wait().unwrap();
    target.kill().unwrap();
    target.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    let trace = std::fs::read(&file).unwrap();
    let _ = std::fs::remove_file(&file);
    assert_no_raw_controls("attach", &trace);
    let lines = normalise(&String::from_utf8(trace).unwrap());
    assert_eq!(
        lines,
        s(&[
            &format!("Tracing {ESCAPED_NAME} wait (pid PID1)"),
            "pause() = <..>",
            "Process detached",
        ])
    );
}

#[test]
fn filters_with_unknown_names_are_errors_with_a_caret() {
    for (expr, error) in [
        (
            "errno == ENOSUCHERR",
            "rtrace: bad filter: Unknown errno 'ENOSUCHERR'\n  Filter: errno == ENOSUCHERR\n                   ^\n",
        ),
        (
            "name == nosuchcall",
            "rtrace: bad filter: Unknown system call 'nosuchcall'\n  Filter: name == nosuchcall\n                  ^\n",
        ),
        (
            "name == opnat && errno == ENOENT",
            "rtrace: bad filter: Unknown system call 'opnat' (did you mean openat?)\n  Filter: name == opnat && errno == ENOENT\n                  ^\n",
        ),
        (
            "sig != SIGUSR3",
            "rtrace: bad filter: Unknown signal 'SIGUSR3' (did you mean SIGUSR1?)\n  Filter: sig != SIGUSR3\n                 ^\n",
        ),
        (
            "request == MON_IOCX_MFECH",
            "rtrace: bad filter: Unknown ioctl request 'MON_IOCX_MFECH' (did you mean MON_IOCX_MFETCH?)\n  Filter: request == MON_IOCX_MFECH\n                     ^\n",
        ),
    ] {
        let file = scratch("filter");
        let out = rtrace()
            .arg("-o")
            .arg(&file)
            .args(["--filter", expr, "true"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{expr}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), error, "{expr}");
        assert!(!file.exists(), "{expr}: an output file was created");
    }
}

#[test]
fn filters_compare_signal_parameters_by_name() {
    let bin = fixture("nested_signals");
    let run = trace(
        &["--filter", "sig == SIGUSR1", "-e", "signal=none"],
        &[name(&bin)],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_eq!(
        run.lines(),
        s(&[
            "Tracing nested_signals (pid PID1)",
            "rt_sigaction(SIGUSR1, {sa_handler=&ADDR, sa_mask=[], sa_flags=SA_RESTORER, sa_restorer=&ADDR}, NULL, 8) = 0",
            "tgkill(PID1, PID1, SIGUSR1) = 0",
            "Process exited normally with code 0",
        ])
    );
}

/// A command or output file name with control bytes is escaped in the
/// error, which stays one line: whether the name is not found, found but
/// not a program (the message then comes from the child after its exec
/// failed), or an output file that cannot be created.
#[test]
fn names_in_errors_are_escaped_and_keep_the_error_one_line() {
    use std::os::unix::fs::PermissionsExt;
    let out = rtrace_env().arg("no\x1b[31m\nsuch").output().unwrap();
    assert_eq!(out.status.code(), Some(127));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "rtrace: cannot run 'no\\33[31m\\nsuch': No such file or directory\n"
    );
    let dir = scratch("badprog");
    std::fs::create_dir(&dir).unwrap();
    let script = dir.join("x\x07\ny");
    std::fs::write(&script, "garbage\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = rtrace_env()
        .args(["-o", "/dev/null"])
        .arg(&script)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(127));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "rtrace: cannot run '{}/x\\7\\ny': Exec format error\n",
            dir.display()
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
    let out = rtrace_env()
        .args(["-o", "/nonexistent-dir/a\x1b\nb", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "rtrace: cannot open '/nonexistent-dir/a\\33\\nb': No such file or directory\n"
    );
}

/// `-y` shows an fd's path with its own bytes, escaped as strings are,
/// whether rtrace saw the path opened or asked /proc (a relative open):
/// a name that is not UTF-8 is not turned into U+FFFD's bytes, and in JSON
/// it is hex as other strings that are not UTF-8.
#[test]
fn fd_paths_keep_their_bytes_and_print_escaped() {
    let bin = fixture("hostile_name");
    let dir = scratch("files");
    std::fs::create_dir(&dir).unwrap();
    let d = dir.to_str().unwrap();
    let command = [bin.as_os_str(), "files".as_ref(), dir.as_os_str()];
    let select = [
        "-y",
        "-e",
        "trace=openat,write,close,unlink,chdir,exit_group",
    ];
    let (trace, code) = trace_bytes(&select, &command);
    assert_eq!(code, Some(0));
    assert_no_raw_controls("text", &trace);
    let text = String::from_utf8(trace).unwrap();
    let lines = normalise(&text);
    let start = lines.iter().position(|l| l.contains("\"BEGIN\"")).unwrap();
    let name = "\\377\\33[1m\\n7";
    // AT_FDCWD shows the working directory, and a new fd its file.
    let cwd = std::fs::canonicalize(std::env::current_dir().unwrap()).unwrap();
    let cwd = cwd.display();
    assert_eq!(
        lines[start + 1..],
        s(&[
            &format!(
                "openat(AT_FDCWD<{cwd}>, \"{d}/{name}\", O_WRONLY|O_CREAT|O_CLOEXEC, 0600) = 3<{d}/{name}>"
            ),
            &format!("write(3<{d}/{name}>, \"a\", 1) = 1"),
            &format!("close(3<{d}/{name}>) = 0"),
            &format!("chdir(\"{d}\") = 0"),
            &format!("openat(AT_FDCWD<{d}>, \"{name}\", O_WRONLY) = 3<{d}/{name}>"),
            &format!("write(3<{d}/{name}>, \"b\", 1) = 1"),
            &format!("close(3<{d}/{name}>) = 0"),
            &format!("unlink(\"{name}\") = 0"),
            "exit_group(0)",
            "Process exited normally with code 0",
        ])
    );
    let mut args = vec!["--json"];
    args.extend(select);
    let (trace, code) = trace_bytes(&args, &command);
    assert_eq!(code, Some(0));
    let hex: String = format!("{d}/")
        .bytes()
        .chain(*b"\xff\x1b[1m\n7")
        .map(|b| format!("{b:02x}"))
        .collect();
    let paths: Vec<serde_json::Value> = String::from_utf8(trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["name"] == "write" && v["args"]["fd"]["value"] == 3)
        .map(|v| v["args"]["fd"]["path"].clone())
        .collect();
    assert_eq!(paths, vec![serde_json::json!({ "hex": hex }); 2]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// What the user typed is quoted back in errors with its control
/// characters escaped, whichever option it was given to.
#[test]
fn option_values_in_errors_are_escaped() {
    for (args, error) in [
        (
            ["-e", "trace=a\x1b[31m"],
            "rtrace: unknown system call 'a\\33[31m'\n",
        ),
        (["-e", "signal=\x1bX"], "rtrace: unknown signal '\\33X'\n"),
        (
            ["-e", "status=\x07"],
            "rtrace: unknown status '\\7' (successful, failed, unfinished, unavailable, detached)\n",
        ),
        (
            ["-S", "\u{202e}x"],
            "rtrace: unknown sort key '\\342\\200\\256x' (time, calls, errors, name, avg_time, nothing)\n",
        ),
    ] {
        let out = rtrace_env().args(args).arg("true").output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), error, "{args:?}");
    }
}
