//! Tracing changes nothing the program can see, and what rtrace shows
//! comes when and as the kernel did it: the signal state a command starts
//! with, what a program sees of itself (dispositions, mask, affinity,
//! fds), the order of trace and program output on a terminal, a stalled
//! output that must still give way to a second interrupt, and the
//! command line's bad inputs.

mod common;

use common::{fixture, rtrace_env, scratch_path};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The signal state the test hands to the program it starts (rtrace, or
/// the fixture untraced): signals ignored and signals blocked.
#[derive(Clone, Copy)]
struct Given {
    ignore: &'static [i32],
    block: &'static [i32],
}

/// Nothing ignored or blocked.
const PLAIN: Given = Given {
    ignore: &[],
    block: &[],
};

/// What `nohup`, a script's `trap ''` or a background job hands down,
/// and a mask, real-time signals included.
const NOHUP_LIKE: Given = Given {
    ignore: &[
        libc::SIGINT,
        libc::SIGHUP,
        libc::SIGQUIT,
        libc::SIGPIPE,
        libc::SIGTERM,
        libc::SIGALRM,
        libc::SIGUSR1,
        36,
    ],
    block: &[libc::SIGUSR2, libc::SIGWINCH, 40],
};

/// Start `cmd` with only fds 0-2 and the signal state `given`.
fn hand_down(cmd: &mut Command, given: Given) {
    // SAFETY: close_range, signal and sigprocmask are async-signal-safe
    // and touch only this child's state. (This runs after the standard
    // library has reset the child's mask and SIGPIPE.)
    unsafe {
        cmd.pre_exec(move || {
            libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32);
            for &sig in given.ignore {
                if libc::signal(sig, libc::SIG_IGN) == libc::SIG_ERR {
                    return Err(std::io::Error::last_os_error());
                }
            }
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            for &sig in given.block {
                libc::sigaddset(&mut set, sig);
            }
            libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
            Ok(())
        });
    }
}

/// The self_view fixture's report, run untraced (`rtrace_args` None) or
/// under rtrace with those options, started with `given`. Its stdout is
/// the file `out` (the same path for every run compared, since the report
/// names it), stdin /dev/null.
fn self_view(rtrace_args: Option<&[&str]>, given: Given, out: &Path) -> Vec<String> {
    let bin = fixture("self_view");
    let err = out.with_extension("err");
    let trace_file = out.with_extension("trace");
    let mut cmd = match rtrace_args {
        None => {
            let mut cmd = Command::new(&bin);
            cmd.env_clear().env("LC_ALL", "C");
            cmd
        }
        Some(args) => {
            let mut cmd = rtrace_env();
            cmd.arg("-o").arg(&trace_file).args(args).arg("self_view");
            cmd
        }
    };
    hand_down(&mut cmd, given);
    let status = cmd
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .status()
        .expect("start the program");
    let errors = std::fs::read_to_string(&err).unwrap_or_default();
    assert!(status.success(), "{rtrace_args:?}: {status:?} {errors}");
    assert_eq!(errors, "", "{rtrace_args:?}");
    let _ = std::fs::remove_file(&trace_file);
    std::fs::read_to_string(out)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// rtrace's option sets the rule is checked under: plain, following
/// children, and following under the seccomp fast path.
const OPTION_SETS: &[&[&str]] = &[&[], &["-f"], &["-f", "-e", "trace=ioctl"]];

/// The scratch file a comparison's runs write their reports to.
fn report_file(tag: &str) -> PathBuf {
    scratch_path("trust", tag)
}

/// The general rule: a program that prints what it can observe about
/// itself prints the same traced and untraced, under every option set.
#[test]
fn a_program_sees_the_same_of_itself_traced_and_untraced() {
    let out = report_file("self-view");
    let untraced = self_view(None, PLAIN, &out);
    // The report is complete: each part is there (so a comparison of two
    // empty outputs cannot pass).
    for part in ["ignored:", "caught:", "blocked:", "pending:", "affinity:"] {
        assert!(
            untraced.iter().any(|l| l.starts_with(part)),
            "{part} {untraced:?}"
        );
    }
    assert!(
        untraced.contains(&"fd 0: /dev/null".to_string()),
        "{untraced:?}"
    );
    for args in OPTION_SETS {
        assert_eq!(self_view(Some(args), PLAIN, &out), untraced, "{args:?}");
    }
}

/// The `ignored:` or `blocked:` line the fixture prints for `signals`.
fn set_line(what: &str, signals: &[i32]) -> String {
    let mut signals = signals.to_vec();
    signals.sort_unstable();
    signals.dedup();
    let numbers: Vec<String> = signals.iter().map(i32::to_string).collect();
    if numbers.is_empty() {
        format!("{what}: (none)")
    } else {
        format!("{what}: {}", numbers.join(" "))
    }
}

/// The signal numbers of a report line (`ignored: 1 2 3`).
fn numbers(line: &str) -> Vec<i32> {
    line.split(' ').filter_map(|w| w.parse().ok()).collect()
}

/// Issue 20, point 1: signals ignored and blocked when rtrace starts are
/// ignored and blocked in the command; rtrace's own handlers (its
/// interrupts, SIGALRM, its ignored SIGPIPE) do not reach it.
#[test]
fn the_command_starts_with_the_signal_state_rtrace_was_given() {
    let out = report_file("signals");
    // What this test process hands down anyway (the test harness ignores
    // a signal of its own), to which the test adds its own.
    let plain = self_view(None, PLAIN, &out);
    let mut ignored = numbers(&plain[0]);
    ignored.extend_from_slice(NOHUP_LIKE.ignore);
    let mut blocked = numbers(&plain[2]);
    blocked.extend_from_slice(NOHUP_LIKE.block);
    let untraced = self_view(None, NOHUP_LIKE, &out);
    assert_eq!(
        untraced[..4],
        [
            set_line("ignored", &ignored),
            "caught: (none)".to_string(),
            set_line("blocked", &blocked),
            "pending: (none)".to_string(),
        ],
        "the test's own setup"
    );
    for args in OPTION_SETS {
        assert_eq!(
            self_view(Some(args), NOHUP_LIKE, &out),
            untraced,
            "{args:?}"
        );
    }
}

/// The shell form of the report: `trap ''` in a script, then the
/// command's SigIgn as /proc says it, traced and untraced.
#[test]
fn a_script_s_trap_reaches_the_command() {
    let path = format!(
        "{}:/usr/bin:/bin",
        Path::new(env!("CARGO_BIN_EXE_rtrace"))
            .parent()
            .unwrap()
            .display(),
    );
    let run = |tracer: &str| {
        let script = format!(
            "trap '' INT HUP QUIT PIPE TERM ALRM; \
             exec {tracer} sh -c 'grep SigIgn /proc/self/status'"
        );
        let run = Command::new("sh")
            .args(["-c", &script])
            .env_clear()
            .env("PATH", &path)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(run.stderr, b"", "{tracer}");
        String::from_utf8(run.stdout).unwrap()
    };
    let untraced = run("");
    let mask = untraced
        .strip_prefix("SigIgn:\t")
        .and_then(|m| u64::from_str_radix(m.trim_end(), 16).ok())
        .unwrap_or_else(|| panic!("{untraced:?}"));
    assert_eq!(mask & 0x7007, 0x7007, "the trap's signals: {untraced:?}");
    assert_eq!(run("rtrace -o /dev/null"), untraced);
}

/// Run rtrace with `args` on a new terminal (a pty: its stdin, stdout and
/// stderr, so the trace and the program's output share it) and return
/// everything the terminal showed, its line ends as `\n`.
fn on_a_terminal(args: &[&str]) -> (std::process::ExitStatus, String) {
    use std::io::Read;
    use std::os::fd::FromRawFd;
    let (mut master, mut slave) = (-1, -1);
    // SAFETY: openpty writes the two fds; no name, settings or size given.
    let r = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(r, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both fds are ours from here on.
    let (mut master, slave) = unsafe {
        (
            std::fs::File::from_raw_fd(master),
            std::fs::File::from_raw_fd(slave),
        )
    };
    let mut cmd = rtrace_env();
    cmd.args(args)
        .stdin(slave.try_clone().unwrap())
        .stdout(slave.try_clone().unwrap())
        .stderr(slave.try_clone().unwrap());
    hand_down(&mut cmd, PLAIN);
    let mut child = cmd.spawn().expect("start rtrace");
    // Only the child may hold the terminal's other side (the command keeps
    // its copies until dropped).
    drop(cmd);
    drop(slave);
    // The terminal is read as it is written (its buffer is small); reading
    // ends with EIO once the last fd of its other side is closed.
    let reader = std::thread::spawn(move || {
        let mut shown = Vec::new();
        let mut chunk = [0u8; 4096];
        while let Ok(n) = master.read(&mut chunk) {
            if n == 0 {
                break;
            }
            shown.extend_from_slice(&chunk[..n]);
        }
        shown
    });
    let status = wait_or_fail(&mut child, "rtrace on a terminal");
    let shown = reader.join().unwrap();
    (
        status,
        String::from_utf8_lossy(&shown).replace("\r\n", "\n"),
    )
}

/// Wait for `child`, failing the test (and killing it) if it has not
/// ended after a minute: a hang, not a measurement.
fn wait_or_fail(child: &mut std::process::Child, what: &str) -> std::process::ExitStatus {
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not end");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Issue 20, point 3: on a terminal the trace of each call is shown
/// before the tracee runs on, so the program's output comes after the
/// trace of the calls before it, and inside a line only at the split of
/// the call that writes it (after its enter half, before its result).
#[test]
fn on_a_terminal_trace_and_program_output_come_in_order() {
    let bin = fixture("tty_order");
    let (status, shown) = on_a_terminal(&["--color=never", common::name(&bin)]);
    assert!(status.success(), "{status:?}: {shown}");
    let lines = common::normalise(&shown);
    assert_eq!(
        lines.first().map(String::as_str),
        Some("Tracing tty_order (pid PID1)"),
        "{shown}"
    );
    let start = lines
        .iter()
        .position(|l| l.starts_with("write(-1, \"BEGIN\""))
        .unwrap_or_else(|| panic!("no marker: {shown}"));
    assert_eq!(
        lines[start..],
        [
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "write(1, \"one\\n\", 4) =one",
            " 4",
            "nanosleep({tv_sec=0, tv_nsec=300000000}, NULL) = 0",
            "write(1, \"two\\n\", 4) =two",
            " 4",
            "exit_group(0)",
            "Process exited normally with code 0",
        ],
        "{shown}"
    );
}

/// Whether process `pid` has ended: gone, or a zombie (whose parent may
/// be a pid 1 that does not reap).
fn ended(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat.rsplit(") ").next().is_some_and(|s| s.starts_with('Z')),
    }
}

/// Issue 20, point 9: with `-o FIFO` whose reader stopped reading, rtrace
/// blocks writing the trace; two interrupts still end it, and the
/// command it started is gone with it.
#[test]
fn two_interrupts_end_rtrace_while_its_output_is_stalled() {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let fifo = scratch_path("trust", "fifo");
    let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo reads the path.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    // The reader is there before rtrace opens the FIFO, and reads only
    // the first line.
    let mut reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    let mut cmd = rtrace_env();
    cmd.arg("-o").arg(&fifo).arg("yes").stdout(Stdio::null());
    hand_down(&mut cmd, PLAIN);
    let mut rt = cmd.stderr(Stdio::piped()).spawn().unwrap();
    let start = std::time::Instant::now();
    let mut head = Vec::new();
    while !head.contains(&b'\n') {
        let mut chunk = [0u8; 64];
        match reader.read(&mut chunk) {
            Ok(n) => head.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(std::time::Duration::from_millis(10))
            }
            Err(e) => panic!("{e}"),
        }
        assert!(start.elapsed().as_secs() < 60, "no trace: {head:?}");
    }
    let first = String::from_utf8_lossy(&head);
    let first = first.lines().next().unwrap();
    let tracee: i32 = first
        .strip_prefix("Tracing yes (pid ")
        .and_then(|rest| rest.strip_suffix(')'))
        .and_then(|pid| pid.parse().ok())
        .unwrap_or_else(|| panic!("{first:?}"));
    // Wait until rtrace is blocked writing (in write(2), sleeping).
    let rt_pid = rt.id() as i32;
    loop {
        let call = std::fs::read_to_string(format!("/proc/{rt_pid}/syscall")).unwrap_or_default();
        let state = std::fs::read_to_string(format!("/proc/{rt_pid}/stat")).unwrap_or_default();
        let sleeping = state
            .rsplit(") ")
            .next()
            .is_some_and(|s| s.starts_with('S'));
        if call.starts_with(&format!("{} ", libc::SYS_write)) && sleeping {
            break;
        }
        assert!(
            start.elapsed().as_secs() < 60,
            "rtrace never blocked writing"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    // Two interrupts, further apart than the 100 ms in which a repeated
    // signal from one sender counts once (see HACKING.md).
    // SAFETY: plain kill.
    unsafe { libc::kill(rt_pid, libc::SIGINT) };
    std::thread::sleep(std::time::Duration::from_millis(300));
    // SAFETY: plain kill.
    unsafe { libc::kill(rt_pid, libc::SIGINT) };
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = rt.try_wait().unwrap() {
            break status;
        }
        if start.elapsed().as_secs() > 60 {
            // SAFETY: plain kills, of the processes this test started.
            unsafe {
                libc::kill(rt_pid, libc::SIGKILL);
                libc::kill(tracee, libc::SIGKILL);
            }
            let _ = rt.wait();
            panic!("two interrupts did not end rtrace with a stalled output");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let start = std::time::Instant::now();
    while !ended(tracee) {
        assert!(
            start.elapsed().as_secs() < 60,
            "the tracee {tracee} lives on"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    // (Read only now: a tracee left running would hold the pipe open.)
    let mut errors = String::new();
    rt.stderr
        .take()
        .unwrap()
        .read_to_string(&mut errors)
        .unwrap();
    assert_eq!(
        errors,
        "rtrace: cannot write trace output: it was blocked when rtrace was interrupted a second time\n"
    );
    assert_eq!(status.code(), Some(1));
    drop(reader);
    let _ = std::fs::remove_file(&fifo);
}

/// rtrace's stdout, stderr and exit code for `args`.
fn answer(args: &[&str]) -> (String, String, Option<i32>) {
    let out = rtrace_env().args(args).output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

/// Issue 20's smaller points: a negative request code is a value (not an
/// option) and an error of its own; an empty group name is an error, not
/// every group; a huge name gets its one-line answer (the did-you-mean
/// search skips names its length rules out).
#[test]
fn bad_ioctl_questions_get_one_line_answers() {
    for (args, line) in [
        (
            &["--explain-ioctl", "-1"][..],
            "rtrace: '-1': request codes are not negative (0 to 0xffffffff)\n",
        ),
        (
            &["--explain-ioctl", "-0x5401"][..],
            "rtrace: '-0x5401': request codes are not negative (0 to 0xffffffff)\n",
        ),
        (
            &["--explain-ioctl=-TCGETS"][..],
            "rtrace: no ioctl request named '-TCGETS' (did you mean TCGETS?)\n",
        ),
        (
            &["--list-ioctls", ""][..],
            "rtrace: an empty ioctl group name (rtrace --list-ioctls alone lists every group)\n",
        ),
        (
            &["--list-ioctls="][..],
            "rtrace: an empty ioctl group name (rtrace --list-ioctls alone lists every group)\n",
        ),
    ] {
        assert_eq!(
            answer(args),
            (String::new(), line.to_string(), Some(2)),
            "{args:?}"
        );
    }
    // Without a group, every group still.
    let (all, errors, code) = answer(&["--list-ioctls"]);
    assert_eq!((errors.as_str(), code), ("", Some(0)));
    let last = all.lines().last().unwrap();
    assert!(
        last.ends_with(" groups") && last.contains(" requests in "),
        "{last}"
    );
    let huge = "A".repeat(10_000);
    assert_eq!(
        answer(&["--explain-ioctl", &huge]),
        (
            String::new(),
            format!("rtrace: no ioctl request named '{huge}'\n"),
            Some(2)
        )
    );
}

/// Issue 20, smaller point: a user_events field name that is not UTF-8
/// is quoted in the `**` diagnostic and in the write's payload as in the
/// registration's argument (`\377`), not as the bytes of U+FFFD.
#[test]
fn a_user_events_name_that_is_not_utf8_is_quoted_as_in_the_argument() {
    let emu = common::Emulator::start("uevents_emu", &["--enable", "rtrace_rel"]);
    fixture("uevents_badname");
    let run = common::trace_env(
        &[],
        &["uevents_badname"],
        &[("UEVENTS_EMU_SOCKET", emu.socket())],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_eq!(
        run.after_marker(),
        [
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "openat(AT_FDCWD, \"/sys/kernel/tracing/user_events_data\", O_RDWR|O_CLOEXEC) = 3",
            "ioctl(3, DIAG_IOCSREG, {size=28, enable_bit=31, enable_size=4, flags=0, enable_addr=&ADDR, name_args=\"rtrace_rel __rel_loc char[] no\\377te\"}) = 0 {write_index=0}",
            "write(3, {write_index=0 <rtrace_rel>, no\\377te=\"abc\"}, 12) = -1 [EFAULT]",
            "** user_events: fd 3: write_index 0 <rtrace_rel>: __rel_loc no\\377te (offset 0, size 3) does not end in a NUL byte: the kernel refuses it (EFAULT) while the event is enabled **",
            "close(3) = 0",
            "exit_group(0)",
            "Process exited normally with code 0",
        ]
    );
}

/// rtrace takes no pid between a program's own: in a fresh pid namespace,
/// where the kernel hands pids out in order, a traced program's children
/// get the pids right after its own, whether or not tracees are pinned
/// (the pin guard's two forks come before the program starts), as under
/// strace.
#[test]
fn no_pids_taken_between_the_programs_own() {
    if !common::root_or_skip("no_pids_taken_between_the_programs_own", "unshare -p") {
        return;
    }
    let bin = fixture("fork_pids");
    for same_cpu in ["--same-cpu=always", "--same-cpu=auto", "--same-cpu=never"] {
        let out = Command::new("unshare")
            .args(["-pf", "--mount-proc"])
            .arg(env!("CARGO_BIN_EXE_rtrace"))
            .args([same_cpu, "-f", "-o", "/dev/null"])
            .arg(&bin)
            .output()
            .unwrap();
        assert!(out.status.success(), "{same_cpu}: {out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        let nums: Vec<i32> = text
            .trim()
            .split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().unwrap())
            .collect();
        assert_eq!(
            nums,
            [nums[0], nums[0] + 1, nums[0] + 2],
            "{same_cpu}: {text}"
        );
    }
}
