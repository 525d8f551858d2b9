//! How the started command is started: `-E VAR=VAL` / `-E VAR` (its
//! environment), `-u USER` (its user, as strace's `-u`) and `--argv0`,
//! under both engines, against tests/fixtures/launched.c, which prints
//! its argv[0], its ids and the variables it is asked for.

mod common;

use common::{fixture, name, normalise, root_or_skip, rtrace_env, s};
use std::process::Command;

/// rtrace with `args` (and `--bpf` for that engine) on `command`: its
/// exit code, the command's stdout and the trace (rtrace's stderr).
fn run(engine: &str, args: &[&str], command: &[&str]) -> (Option<i32>, String, String) {
    let mut cmd = rtrace_env();
    if engine == "bpf" {
        cmd.arg("--bpf");
    }
    let out = cmd.args(args).args(command).output().expect("run rtrace");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn engines() -> Vec<&'static str> {
    let mut engines = vec!["ptrace"];
    if root_or_skip("launch", "--bpf") {
        engines.push("bpf");
    }
    engines
}

#[test]
fn env_sets_and_removes_variables_in_order() {
    let bin = fixture("launched");
    for engine in engines() {
        let (code, stdout, trace) = run(
            engine,
            &[
                "-E",
                "FOO=bar",
                "-E",
                "LC_ALL",
                "-E",
                "FOO=baz",
                "-E",
                "NEW=a=b",
                "-e",
                "trace=none",
            ],
            &[name(&bin), "FOO", "LC_ALL", "NEW", "PATH"],
        );
        assert_eq!(code, Some(0), "{engine}: {trace}");
        let lines: Vec<&str> = stdout.lines().collect();
        // The last -E of a name wins; the value may hold `=`; what -E
        // does not name stays as rtrace had it.
        assert_eq!(
            lines[2..5],
            ["FOO=baz", "LC_ALL unset", "NEW=a=b"],
            "{engine}"
        );
        assert!(lines[5].starts_with("PATH="), "{engine}: {stdout}");
        // The exec shows the command's environment: rtrace's two
        // variables (rtrace_env's PATH and LC_ALL), less one, plus two.
        let (_, _, trace) = run(
            engine,
            &[
                "-v",
                "-E",
                "FOO=bar",
                "-E",
                "LC_ALL",
                "-E",
                "NEW=1",
                "-e",
                "trace=execve",
            ],
            &[name(&bin)],
        );
        let exec = normalise(&trace)
            .into_iter()
            .find(|l| l.starts_with("execve("))
            .unwrap_or_else(|| panic!("{engine}: {trace}"));
        assert!(
            exec.ends_with(", \"FOO=bar\", \"NEW=1\"])") && !exec.contains("LC_ALL"),
            "{engine}: {exec}"
        );
    }
}

#[test]
fn user_runs_the_command_with_that_users_ids() {
    let bin = fixture("launched");
    for engine in engines() {
        for user in ["nobody", "65534:65534"] {
            let (code, stdout, trace) = run(
                engine,
                &["-u", user, "-e", "trace=getuid,geteuid,setreuid"],
                &[name(&bin)],
            );
            assert_eq!(code, Some(0), "{engine} {user}: {trace}");
            // A name brings the user's groups (nobody's: nogroup), a
            // UID:GID pair none.
            let groups = if user == "nobody" { 1 } else { 0 };
            assert_eq!(
                stdout.lines().nth(1),
                Some(format!("uid=65534 euid=65534 gid=65534 egid=65534 groups={groups}").as_str()),
                "{engine} {user}"
            );
            // rtrace's own setreuid, made before the exec, is not shown.
            assert_eq!(
                normalise(&trace),
                s(&[
                    "Tracing launched (pid PID1)",
                    "getuid() = 65534",
                    "geteuid() = 65534",
                    "Process exited normally with code 0",
                ]),
                "{engine} {user}"
            );
        }
    }
    // The same under the seccomp fast path (-f with -e trace=), where the
    // setreuid made after rtrace's filter stops as a call.
    let (code, _, trace) = run(
        "ptrace",
        &["-f", "-u", "nobody", "-e", "trace=setreuid,getuid"],
        &[name(&bin)],
    );
    assert_eq!(code, Some(0), "{trace}");
    assert_eq!(
        normalise(&trace),
        s(&[
            "Tracing launched (pid PID1)",
            "getuid() = 65534",
            "Process exited normally with code 0",
        ])
    );
}

#[test]
fn a_setuid_program_keeps_its_owner_as_its_effective_user() {
    let bin = fixture("launched");
    let copy = common::scratch_path("launch", "setuid");
    std::fs::copy(&bin, &copy).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o4755)).unwrap();
    for engine in engines() {
        let (code, stdout, trace) = run(
            engine,
            &["-u", "nobody", "-e", "trace=none"],
            &[copy.to_str().unwrap()],
        );
        assert_eq!(code, Some(0), "{engine}: {trace}");
        assert_eq!(
            stdout.lines().nth(1),
            Some("uid=65534 euid=0 gid=65534 egid=65534 groups=1"),
            "{engine}"
        );
    }
    let _ = std::fs::remove_file(&copy);
}

#[test]
fn argv0_names_the_command_as_asked() {
    let bin = fixture("launched");
    for engine in engines() {
        let (code, stdout, trace) = run(
            engine,
            &["--argv0", "hello", "-e", "trace=execve"],
            &[name(&bin), "X"],
        );
        assert_eq!(code, Some(0), "{engine}: {trace}");
        assert_eq!(stdout.lines().next(), Some("argv0=hello"), "{engine}");
        let exec = normalise(&trace)
            .into_iter()
            .find(|l| l.starts_with("execve("))
            .unwrap_or_else(|| panic!("{engine}: {trace}"));
        assert!(exec.contains(", [\"hello\", \"X\"], "), "{engine}: {exec}");
    }
}

#[test]
fn bad_uses_say_so_in_one_line() {
    let cases: &[(&[&str], i32, &str)] = &[
        (
            &["-u", "no-such-user-here", "true"],
            2,
            "rtrace: -u 'no-such-user-here': no such user\n",
        ),
        (
            &["-u", "1:x", "true"],
            2,
            "rtrace: -u '1:x': not a UID:GID pair of numbers\n",
        ),
        (
            &["-u", "4294967295:1", "true"],
            2,
            "rtrace: -u '4294967295:1': not a UID:GID pair of numbers\n",
        ),
        (
            &["-E", "=x", "true"],
            2,
            "rtrace: -E '=x': give VAR=VALUE or VAR\n",
        ),
        (
            &["-E", "A=1", "-p", "1"],
            2,
            "rtrace: -E, -u, --argv0 and -D are for a started command: give a COMMAND\n",
        ),
    ];
    for (args, code, text) in cases {
        let out = rtrace_env().args(*args).output().unwrap();
        assert_eq!(out.status.code(), Some(*code), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), *text, "{args:?}");
    }
    // Only root may take another user's ids.
    if !root_or_skip("launch", "setpriv") {
        return;
    }
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_rtrace"))
        .args(["-u", "nobody", "true"])
        .output();
    let Ok(out) = out else {
        eprintln!("launch: no setpriv here: the non-root case is not run");
        return;
    };
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "rtrace: -u 'nobody' needs rtrace to run as root\n"
    );
}

#[test]
fn daemonize_leaves_the_command_its_callers_child() {
    // Under -D the command is the process rtrace was started as: this
    // test's child, whose exit status it gets, and whose getppid says
    // this test; rtrace, a grandchild, writes the trace on its own.
    let me = std::process::id();
    for engine in engines() {
        for how in [&["-D"][..], &["-DD"][..], &["--daemonize=session"][..]] {
            let file = common::scratch_path("launch", "daemonize");
            let mut cmd = rtrace_env();
            if engine == "bpf" {
                cmd.arg("--bpf");
            }
            let status = cmd
                .args(how)
                .args(["-e", "trace=getppid", "-o", file.to_str().unwrap()])
                .args(["sh", "-c", "exit 3"])
                .status()
                .unwrap();
            assert_eq!(status.code(), Some(3), "{engine} {how:?}");
            let text = common::trace_file_when(&file, std::time::Duration::from_secs(10), |t| {
                t.contains("Process exited")
            })
            .unwrap_or_else(|t| panic!("{engine} {how:?}: no end in {t:?}"));
            assert_eq!(
                normalise(&text),
                [
                    "Tracing sh -c \"exit 3\" (pid PID1)".to_string(),
                    format!("getppid() = {me}"),
                    "Process exited normally with code 3".into(),
                ],
                "{engine} {how:?}"
            );
            let _ = std::fs::remove_file(&file);
        }
    }
}

#[test]
fn daemonize_with_attached_processes_traces_them_from_rtrace() {
    // Under -D the tracer is the grandchild: it attaches to -p's
    // processes after the fork, so their calls are in the trace (and not
    // stopped for good by a command that never asked to trace them).
    let mut sleeper = Command::new("sleep").arg("1").spawn().unwrap();
    let pid = sleeper.id().to_string();
    let file = common::scratch_path("launch", "daemonize_p");
    let status = rtrace_env()
        .args(["-D", "-p", &pid, "-e", "trace=clock_nanosleep,exit_group"])
        .args(["-o", file.to_str().unwrap(), "sh", "-c", "exit 5"])
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(5));
    let text = common::trace_file_when(&file, std::time::Duration::from_secs(10), |t| {
        t.matches("Process exited").count() == 2
    })
    .unwrap_or_else(|t| panic!("not both ends in {t:?}"));
    let _ = sleeper.wait();
    let lines = normalise(&text);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("PID2") && l.ends_with(" exit_group(0)")),
        "{lines:?}"
    );
    // A -p that cannot be attached to: the command, already started, is
    // killed, as without -D it would never have run.
    let status = rtrace_env()
        .args(["-D", "-p", "999999", "sh", "-c", "exit 5"])
        .status()
        .unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    let _ = std::fs::remove_file(&file);
}

#[test]
fn daemonize_in_a_group_of_its_own_still_writes_to_a_tostop_terminal() {
    // -DD puts rtrace in an orphaned process group, whose writes to a
    // terminal with `stty tostop` fail unless SIGTTOU is ignored: the
    // whole trace would be lost. `script` gives the run a terminal.
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("launch: no script here: the terminal case is not run");
        return;
    }
    let line = format!(
        "stty tostop; {} -DD --color never -e trace=getppid sh -c 'exit 0'; sleep 1",
        env!("CARGO_BIN_EXE_rtrace")
    );
    let out = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    let lines = normalise(&text);
    assert_eq!(
        lines.first().map(String::as_str),
        Some("Tracing sh -c \"exit 0\" (pid PID1)"),
        "{text}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("getppid() = ")),
        "{text}"
    );
    assert_eq!(
        lines.last().map(String::as_str),
        Some("Process exited normally with code 0"),
        "{text}"
    );
}
