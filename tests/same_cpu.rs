//! `--same-cpu`: tracees pinned to rtrace's CPU see their own masks, and
//! get them back when rtrace lets go (detach, SIGTERM, an output error);
//! in the automatic mode a task that computes while another is traced
//! runs on its own mask, and one that sleeps or is alone is pinned. The `affinity` fixture reports what a thread sees
//! (sched_getaffinity) and where it really may run (its status file).
//!
//! The tests need two CPUs to tell a pin from a task's own mask; with one
//! they say so and pass.

mod common;

use common::{fixture, name, rtrace, s, trace};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The CPUs this test may run on (from its own status file).
fn my_cpus() -> Vec<usize> {
    let list = allowed_list(std::process::id() as i32);
    let mut cpus = Vec::new();
    for part in list.split(',') {
        match part.split_once('-') {
            Some((a, b)) => cpus.extend(a.parse::<usize>().unwrap()..=b.parse().unwrap()),
            None => cpus.push(part.parse().unwrap()),
        }
    }
    cpus
}

/// Two CPUs to work with, or None (the test then has nothing to tell).
fn two_cpus() -> Option<(usize, usize)> {
    let cpus = my_cpus();
    if cpus.len() < 2 {
        eprintln!("only one CPU: --same-cpu cannot be told from no pinning here");
        return None;
    }
    Some((cpus[0], cpus[1]))
}

/// Cpus_allowed_list of task `pid`.
fn allowed_list(pid: i32) -> String {
    // Bytes: the `affinity wait` target's name is not UTF-8.
    let status = std::fs::read(format!("/proc/{pid}/status")).unwrap();
    String::from_utf8_lossy(&status)
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim()
        .to_string()
}

/// `sched_getaffinity(0, 128, mask)`'s result here: how many bytes the
/// kernel's CPU mask has.
fn mask_bytes() -> i64 {
    let mut buf = [0u8; 128];
    // SAFETY: the kernel writes at most 128 bytes into `buf`.
    unsafe { libc::syscall(libc::SYS_sched_getaffinity, 0, 128, buf.as_mut_ptr()) }
}

/// `0-1` as the trace prints a mask: `[0 1]`.
fn as_set(cpus: &[usize]) -> String {
    let names: Vec<String> = cpus.iter().map(|c| c.to_string()).collect();
    format!("[{}]", names.join(" "))
}

/// A CPU list as the status file writes it, written by the kernel itself
/// (not by a copy of the code under test): a thread of this test pinned
/// to `cpus` reads its own Cpus_allowed_list.
fn list(cpus: &[usize]) -> String {
    let cpus = cpus.to_vec();
    std::thread::spawn(move || {
        // SAFETY: a zeroed cpu_set_t is a valid empty set; CPU_SET and
        // sched_setaffinity only touch it and this thread's mask.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            for &c in &cpus {
                libc::CPU_SET(c, &mut set);
            }
            let rc = libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set);
            assert_eq!(rc, 0, "sched_setaffinity({cpus:?})");
        }
        let status = std::fs::read_to_string("/proc/thread-self/status").unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
            .unwrap()
            .trim()
            .to_string()
    })
    .join()
    .unwrap()
}

#[test]
fn a_pinned_tracee_sees_and_sets_its_own_mask() {
    let Some((c0, c1)) = two_cpus() else { return };
    let all = my_cpus();
    let bin = fixture("affinity");
    let n = mask_bytes();
    // Printed or not, stepped or under the seccomp filter (which must then
    // stop the affinity calls too), the program sees its own mask.
    for args in [
        &["-e", "trace=sched_getaffinity,sched_setaffinity"][..],
        &["-f", "-e", "trace=sched_getaffinity,sched_setaffinity"],
        &["-f", "--seccomp-bpf", "-e", "trace=write"],
        &[],
    ] {
        let pin = format!("--same-cpu={c0}");
        let run = trace(
            &[&[pin.as_str()][..], args].concat(),
            &[name(&bin), "get", &c1.to_string()],
        );
        assert_eq!(run.code(), Some(0), "{args:?}: {}", run.stderr());
        let stdout = String::from_utf8_lossy(&run.output.stdout);
        assert_eq!(
            stdout.lines().collect::<Vec<_>>(),
            [
                format!("start: sees {}, runs on {c0}", list(&all)),
                format!("after set: sees {c1}, runs on {c0}"),
            ],
            "{args:?}"
        );
        let calls: Vec<String> = run
            .lines()
            .into_iter()
            .filter(|l| l.starts_with("sched_"))
            .collect();
        let expected = if args.contains(&"trace=write") {
            vec![]
        } else {
            vec![
                format!("sched_getaffinity(0, 128, {}) = {n}", as_set(&all)),
                format!("sched_setaffinity(0, 128, [{c1}]) = 0"),
                format!("sched_getaffinity(0, 128, [{c1}]) = {n}"),
            ]
        };
        assert_eq!(calls, expected, "{args:?}:\n{}", run.trace);
    }
}

#[test]
fn a_32_bit_tracee_sees_its_own_mask_too() {
    let Some((c0, c1)) = two_cpus() else { return };
    let all = my_cpus();
    let bin = common::fixture_m32("affinity");
    for args in [&[][..], &["-f", "--seccomp-bpf", "-e", "trace=write"]] {
        let pin = format!("--same-cpu={c0}");
        let run = trace(
            &[&[pin.as_str()][..], args].concat(),
            &[name(&bin), "get", &c1.to_string()],
        );
        assert_eq!(run.code(), Some(0), "{args:?}: {}", run.stderr());
        let stdout = String::from_utf8_lossy(&run.output.stdout);
        assert_eq!(
            stdout.lines().collect::<Vec<_>>(),
            [
                format!("start: sees {}, runs on {c0}", list(&all)),
                format!("after set: sees {c1}, runs on {c0}"),
            ],
            "{args:?}"
        );
    }
}

/// Without a CPU given, a tracee that sets its mask to one without
/// rtrace's CPU runs where it asked, and rtrace moves there with it. One
/// of the two runs starts on another CPU than the one it asks for.
#[test]
fn a_tracee_that_moves_itself_takes_rtrace_along() {
    let Some((c0, c1)) = two_cpus() else { return };
    let all = my_cpus();
    let bin = fixture("affinity");
    for mode in ["--same-cpu", "--same-cpu=auto"] {
        for cpu in [c0, c1] {
            let run = trace(&[mode], &[name(&bin), "get", &cpu.to_string()]);
            assert_eq!(run.code(), Some(0), "{mode}: {}", run.stderr());
            let stdout = String::from_utf8_lossy(&run.output.stdout);
            let start = stdout.lines().next().unwrap_or_default();
            assert!(
                start.starts_with(&format!("start: sees {}, runs on ", list(&all))),
                "{mode}: {stdout}"
            );
            assert_eq!(
                stdout.lines().nth(1).unwrap_or_default(),
                format!("after set: sees {cpu}, runs on {cpu}"),
                "{mode}"
            );
        }
    }
}

#[test]
fn never_leaves_the_mask_alone() {
    let Some((_, c1)) = two_cpus() else { return };
    let all = my_cpus();
    let bin = fixture("affinity");
    let run = trace(&["--same-cpu=never"], &[name(&bin), "get", &c1.to_string()]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let stdout = String::from_utf8_lossy(&run.output.stdout);
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            format!("start: sees {0}, runs on {0}", list(&all)),
            format!("after set: sees {c1}, runs on {c1}"),
        ]
    );
}

/// Whether `unshare --pid --fork` works here (it needs root); says so
/// when not, and the test that asked has nothing to tell.
fn can_make_pid_namespaces() -> bool {
    let unshare = Command::new("unshare")
        .args(["--pid", "--fork", "true"])
        .status();
    let ok = unshare.is_ok_and(|s| s.success());
    if !ok {
        eprintln!("skipped: `unshare --pid --fork` cannot run here (it needs root)");
    }
    ok
}

/// A program in a pid namespace of its own names its threads by their
/// ids there (glibc's pthread_getaffinity_np does): those calls are
/// virtualised as well.
#[test]
fn a_tracee_in_its_own_pid_namespace_sees_its_own_mask_by_tid() {
    let Some((_, c1)) = two_cpus() else { return };
    if !can_make_pid_namespaces() {
        return;
    }
    let all = list(&my_cpus());
    let full = as_set(&my_cpus());
    let n = mask_bytes();
    let c1s = c1.to_string();
    let bin = fixture("affinity");
    let run = trace(
        &[
            "--same-cpu",
            "-f",
            "-e",
            "trace=sched_getaffinity,sched_setaffinity",
        ],
        &["unshare", "--pid", "--fork", name(&bin), "tid", &c1s],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let stdout = String::from_utf8_lossy(&run.output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    // Pid 1 of its namespace, pinned, sees its own mask.
    assert_pinned(lines[0], "by tid", &all);
    assert_eq!(lines[1], format!("set by tid: sees {c1}, runs on {c1}"));
    let calls: Vec<String> = run
        .lines()
        .iter()
        .filter_map(|l| Some(l.split_once("| ")?.1.to_string()))
        .filter(|l| l.starts_with("sched_"))
        .collect();
    assert_eq!(
        calls,
        [
            format!("sched_getaffinity(1, 128, {full}) = {n}"),
            format!("sched_setaffinity(1, 128, [{c1}]) = 0"),
            format!("sched_getaffinity(1, 128, [{c1}]) = {n}"),
        ],
        "{}",
        run.trace
    );
}

/// A tracee in a pid namespace of its own names a task of a namespace
/// nested below its own by the pid it has in the caller's: that task's
/// affinity is virtualised. A task of a sibling namespace with the same
/// pid at that depth (the decoy's child) is never the one meant: the
/// caller sets the mask of its pid 2, a zombie out of the trace, first.
/// And a tracee of rtrace's namespace names one in a deeper namespace by
/// its pid here.
#[test]
fn a_tracee_names_a_task_of_a_nested_pid_namespace_by_its_pid() {
    let Some((c0, c1)) = two_cpus() else { return };
    if !can_make_pid_namespaces() {
        return;
    }
    let all = list(&my_cpus());
    let full = as_set(&my_cpus());
    let n = mask_bytes();
    let bin = fixture("affinity");
    let pin = format!("--same-cpu={c0}");
    let run = trace(
        &[
            &pin,
            "-f",
            "-e",
            "trace=sched_getaffinity,sched_setaffinity",
        ],
        &[name(&bin), "nested", &c1.to_string()],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let stdout = String::from_utf8_lossy(&run.output.stdout);
    // All pinned to c0; each sees the mask it would have untraced.
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            format!("caller by pid: sees {all}, runs on {c0}"),
            format!("target by pid: sees {all}, runs on {c0}"),
            format!("target set by pid: sees {c1}, runs on {c0}"),
            format!("target: sees {c1}, runs on {c0}"),
            format!("decoy's child: sees {all}, runs on {c0}"),
        ],
        "{}",
        run.trace
    );
    // PID3 is the decoy's child, PID4 the caller, PID6 the target.
    let calls: Vec<String> = run
        .lines()
        .into_iter()
        .filter(|l| l.contains("| sched_"))
        .collect();
    assert_eq!(
        calls,
        [
            format!("PID1| sched_getaffinity(PID4, 128, {full}) = {n}"),
            format!("PID4| sched_setaffinity(2, 128, [{c1}]) = 0"),
            format!("PID4| sched_getaffinity(3, 128, {full}) = {n}"),
            format!("PID4| sched_setaffinity(3, 128, [{c1}]) = 0"),
            format!("PID4| sched_getaffinity(3, 128, [{c1}]) = {n}"),
            format!("PID6| sched_getaffinity(0, 128, [{c1}]) = {n}"),
            format!("PID3| sched_getaffinity(0, 128, {full}) = {n}"),
        ],
        "{}",
        run.trace
    );
}

/// `line` is the report `when`: sees `all`, runs on one of them (pinned).
fn assert_pinned(line: &str, when: &str, all: &str) {
    let cpu = line
        .strip_prefix(&format!("{when}: sees {all}, runs on "))
        .unwrap_or_else(|| panic!("{line}"));
    assert!(
        my_cpus().iter().any(|c| c.to_string() == cpu),
        "not pinned: {line}"
    );
}

#[test]
fn auto_mode_gives_threads_that_compute_their_own_masks() {
    let Some((c0, c1)) = two_cpus() else { return };
    let all = list(&my_cpus());
    let bin = fixture("affinity");
    let n = mask_bytes();
    // The thread sets its mask to all CPUs: pinned, it runs on one.
    let set = format!("{c0},{c1}");
    let run = trace(
        &[
            "--same-cpu=auto",
            "-f",
            "-e",
            "trace=sched_getaffinity,sched_setaffinity",
        ],
        &[name(&bin), "threads", &set],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let stdout = String::from_utf8_lossy(&run.output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{stdout}");
    // Alone, the main thread is pinned to one CPU and sees its own mask.
    assert_pinned(lines[0], "alone", &all);
    // Both compute: each runs on its own mask.
    let both = list(&[c0, c1]);
    assert_eq!(
        lines[1],
        format!("thread computing: sees {both}, runs on {both}")
    );
    assert_eq!(
        lines[2],
        format!("computing with a thread: sees {all}, runs on {all}")
    );
    // A thread asleep in a read does not compute: one CPU again.
    assert_pinned(lines[3], "with a sleeping thread", &all);
    assert_pinned(lines[4], "alone again", &all);
    let full = as_set(&my_cpus());
    let pair = as_set(&[c0, c1]);
    let expected = s(&[
        &format!("sched_getaffinity(0, 128, {full}) = {n}"),
        &format!("sched_getaffinity(0, 128, {full}) = {n}"),
        &format!("PID2| Tracing affinity threads {set} (pid PID2)"),
        &format!("PID2| sched_setaffinity(0, 128, {pair}) = 0"),
        &format!("PID2| sched_getaffinity(0, 128, {pair}) = {n}"),
        &format!("PID2| sched_getaffinity(0, 128, {pair}) = {n}"),
        &format!("PID1| sched_getaffinity(0, 128, {full}) = {n}"),
        "PID2| Process exited normally with code 0",
        &format!("PID1' sched_getaffinity(0, 128, {full}) = {n}"),
        "Process exited normally with code 0",
    ]);
    assert_eq!(run.lines()[1..], expected[..], "{}", run.trace);
}

#[test]
fn auto_mode_gives_processes_that_compute_their_own_masks() {
    if two_cpus().is_none() {
        return;
    }
    let all = list(&my_cpus());
    let bin = fixture("affinity");
    let run = trace(&["--same-cpu=auto", "-f"], &[name(&bin), "fork"]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let stdout = String::from_utf8_lossy(&run.output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{stdout}");
    assert_pinned(lines[0], "alone", &all);
    // Both compute: each on its own mask.
    assert_eq!(
        lines[1],
        format!("child computing: sees {all}, runs on {all}")
    );
    assert_eq!(
        lines[2],
        format!("parent computing with a child: sees {all}, runs on {all}")
    );
    // The parent sleeps in wait4 and the child polls: one CPU again.
    assert_pinned(lines[3], "child while the parent waits", &all);
    assert_pinned(lines[4], "alone again", &all);
}

/// The `affinity wait` fixture started untraced with its own mask `own`,
/// its stdin and stdout piped; returns it after its first report.
fn waiting_target(own: usize, set: &str) -> (Child, BufReader<std::process::ChildStdout>) {
    untraced_target(&["wait", set], own)
}

/// Start `cmd` on CPU `cpu` alone: its own mask.
fn on_cpu(cmd: &mut Command, cpu: usize) {
    use std::os::unix::process::CommandExt;
    // SAFETY: sched_setaffinity is async-signal-safe and touches no memory
    // of ours but the local set.
    unsafe {
        cmd.pre_exec(move || {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
            Ok(())
        });
    }
}

/// The `affinity` fixture started untraced with `args` and its own mask
/// `own`, its stdin and stdout piped; returns it after its first report.
fn untraced_target(args: &[&str], own: usize) -> (Child, BufReader<std::process::ChildStdout>) {
    let bin = fixture("affinity");
    let mut cmd = Command::new(bin);
    cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped());
    on_cpu(&mut cmd, own);
    let mut child = cmd.spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert_eq!(line, format!("started: sees {own}, runs on {own}\n"));
    (child, out)
}

/// Wait until `pid`'s allowed CPUs are `want` (rtrace pins and unpins it
/// from outside); its list as last seen.
fn wait_for_list(pid: i32, want: &str) -> String {
    let start = Instant::now();
    loop {
        let now = allowed_list(pid);
        if now == want || start.elapsed() > Duration::from_secs(10) {
            return now;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Attach to a waiting target with `--same-cpu=PIN`, make it set its mask
/// to `set` while traced (if given), end rtrace with `signal`, and return
/// the target's allowed list after rtrace has exited.
fn attach_and_end(signal: i32, set: Option<&[usize]>) -> Option<(String, String)> {
    let (c0, c1) = two_cpus()?;
    let arg: Vec<String> = set.unwrap_or(&[c0]).iter().map(|c| c.to_string()).collect();
    let (mut target, mut out) = waiting_target(c1, &arg.join(","));
    let pid = target.id() as i32;
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join(format!("samecpu-{pid}.txt"));
    let mut tracer = rtrace()
        .arg("-o")
        .arg(&file)
        .arg(format!("--same-cpu={c0}"))
        .args(["-p", &pid.to_string()])
        .spawn()
        .unwrap();
    assert_eq!(
        wait_for_list(pid, &c0.to_string()),
        c0.to_string(),
        "not pinned"
    );
    let mut seen = String::new();
    if let Some(set) = set {
        let mut stdin = target.stdin.take().unwrap();
        stdin.write_all(b"go\n").unwrap();
        out.read_line(&mut seen).unwrap();
        assert_eq!(seen, format!("set: sees {}, runs on {c0}\n", list(set)));
        target.stdin = Some(stdin);
    }
    // SAFETY: signalling our own child.
    unsafe { libc::kill(tracer.id() as i32, signal) };
    let status = tracer.wait().unwrap();
    let trace = std::fs::read_to_string(&file).unwrap();
    let _ = std::fs::remove_file(&file);
    let after = if signal == libc::SIGKILL {
        // No detach: rtrace's pin guard gives the mask back after it.
        assert_eq!(status.signal(), Some(libc::SIGKILL));
        let own = set.map_or(c1.to_string(), list);
        wait_for_list(pid, &own)
    } else {
        assert_eq!(status.code(), Some(0));
        assert_eq!(
            common::normalise(&trace).last().map(String::as_str),
            Some("Process detached"),
            "{trace}"
        );
        allowed_list(pid)
    };
    target.kill().unwrap();
    target.wait().unwrap();
    Some((after, c1.to_string()))
}

#[test]
fn detach_gives_back_the_mask_the_process_had() {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        if let Some((after, own)) = attach_and_end(signal, None) {
            assert_eq!(after, own, "signal {signal}");
        }
    }
}

#[test]
fn detach_gives_back_the_mask_the_process_set_while_traced() {
    let Some((c0, c1)) = two_cpus() else { return };
    if let Some((after, _)) = attach_and_end(libc::SIGTERM, Some(&[c0, c1])) {
        assert_eq!(after, list(&[c0, c1]));
    }
}

/// SIGKILL leaves rtrace no time to detach: its pin guard gives the mask
/// back, the one the process had and the one it set while traced.
#[test]
fn a_killed_rtrace_still_gives_back_the_mask() {
    let Some((c0, c1)) = two_cpus() else { return };
    if let Some((after, own)) = attach_and_end(libc::SIGKILL, None) {
        assert_eq!(after, own);
    }
    if let Some((after, _)) = attach_and_end(libc::SIGKILL, Some(&[c0, c1])) {
        assert_eq!(after, list(&[c0, c1]));
    }
}

/// Wait (at most 10 s) until `found` gives something; what it gave last.
fn wait_until<T>(what: &str, mut found: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(it) = found() {
            return it;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "waited for {what}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A pinned task's new task exists before rtrace hears of it (at its fork
/// event). It must never be born with the pin, which the guard knows
/// nothing of: the creator makes the call on its own mask, so the task is
/// born with it, and rtrace killed in that window leaves every task its
/// own mask. The window is made to last: this test traces rtrace and holds
/// it right after it has let the process go into the call that creates
/// the task.
#[test]
fn a_killed_rtrace_gives_back_the_mask_of_a_task_it_never_saw() {
    let Some((c0, c1)) = two_cpus() else { return };
    for new in ["fork", "thread"] {
        let (mut target, _out) = untraced_target(&["hold", new], c1);
        let pid = target.id() as i32;
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
        let file = dir.join(format!("samecpu-hold-{pid}.txt"));
        // Reaped below by its pid: it is this test's tracee too.
        let rt = rtrace()
            .arg("-o")
            .arg(&file)
            .arg(format!("--same-cpu={c0}"))
            .args(["-f", "-p", &pid.to_string()])
            .spawn()
            .unwrap()
            .id() as i32;
        assert_eq!(
            wait_for_list(pid, &c0.to_string()),
            c0.to_string(),
            "{new}: not pinned"
        );
        let mut stdin = target.stdin.take().unwrap();
        hold_after_resuming_into_fork(rt, pid, || stdin.write_all(b"\n").unwrap());
        let born = wait_until("the new task", || new_task(pid));
        let own = c1.to_string();
        assert_eq!(allowed_list(born), own, "{new}: born on its own mask");
        // SAFETY: signalling our own child.
        unsafe { libc::kill(rt, libc::SIGKILL) };
        let mut status = 0;
        // SAFETY: waiting for our own child (and tracee).
        while unsafe { libc::waitpid(rt, &mut status, libc::__WALL) } == rt
            && !libc::WIFSIGNALED(status)
        {}
        assert!(libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGKILL);
        assert_eq!(
            wait_for_list(born, &own),
            own,
            "{new}: the task rtrace never saw"
        );
        assert_eq!(wait_for_list(pid, &own), own, "{new}: its creator");
        // At the end of input both end.
        drop(stdin);
        target.wait().unwrap();
        let _ = std::fs::remove_file(&file);
    }
}

/// The task process `pid` created: a child, or a second thread.
fn new_task(pid: i32) -> Option<i32> {
    let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"));
    if let Some(child) = children.ok()?.split_whitespace().next() {
        return child.parse().ok();
    }
    kernel_threads(pid).into_iter().find(|&t| t != pid)
}

/// As the tracer of rtrace (`rt`, a child of this test), call `go`, then
/// let rtrace run until it resumes task `pid` stopped at the entry of a
/// fork-class call (before the task it creates exists), and hold rtrace
/// stopped right after that: the new task will be born pinned, and rtrace
/// cannot hear of it.
fn hold_after_resuming_into_fork(rt: i32, pid: i32, go: impl FnOnce()) {
    /// PTRACE_GET_SYSCALL_INFO, and its `op` for a call's entry.
    const GET_SYSCALL_INFO: libc::c_uint = 0x420e;
    const ENTRY: u64 = 1;
    let ptrace = |request: libc::c_uint, data: usize| {
        // SAFETY: requests on our own tracee, with no pointer but `data`
        // where the request takes one.
        unsafe { libc::ptrace(request, rt, 0usize, data) }
    };
    assert_eq!(
        ptrace(libc::PTRACE_SEIZE, libc::PTRACE_O_TRACESYSGOOD as usize),
        0
    );
    assert_eq!(ptrace(libc::PTRACE_INTERRUPT, 0), 0);
    go();
    let mut held = false;
    loop {
        let mut status = 0;
        // SAFETY: waiting for our own tracee.
        assert_eq!(unsafe { libc::waitpid(rt, &mut status, libc::__WALL) }, rt);
        assert!(libc::WIFSTOPPED(status), "rtrace ended: {status:#x}");
        let sig = libc::WSTOPSIG(status);
        if sig == libc::SIGTRAP | 0x80 {
            if held {
                // The resume's return: rtrace stays here.
                return;
            }
            // struct ptrace_syscall_info: op, arch, ip, sp, then the
            // entry's nr and args.
            let mut info = [0u64; 11];
            let size = std::mem::size_of_val(&info);
            // SAFETY: the kernel writes at most `size` bytes into `info`.
            unsafe { libc::ptrace(GET_SYSCALL_INFO, rt, size, info.as_mut_ptr()) };
            let resumes = [libc::PTRACE_SYSCALL, libc::PTRACE_CONT].map(u64::from);
            held = info[0] & 0xff == ENTRY
                && info[3] == libc::SYS_ptrace as u64
                && resumes.contains(&info[4])
                && info[5] as i32 == pid
                && in_fork(pid);
        }
        // A signal (SIGCHLD, rtrace's timer) goes on to rtrace; a stop
        // for an event or a call does not.
        let deliver = if sig == libc::SIGTRAP | 0x80 || status >> 16 != 0 {
            0
        } else {
            sig as usize
        };
        assert_eq!(ptrace(libc::PTRACE_SYSCALL, deliver), 0);
    }
}

/// Whether task `pid` is stopped at the entry of a fork-class call: in
/// clone, fork, vfork or clone3, with no new task yet.
fn in_fork(pid: i32) -> bool {
    let call = std::fs::read_to_string(format!("/proc/{pid}/syscall")).unwrap_or_default();
    let nr = call.split(' ').next().and_then(|n| n.parse::<i64>().ok());
    let forks = [
        libc::SYS_clone,
        libc::SYS_fork,
        libc::SYS_vfork,
        libc::SYS_clone3,
    ];
    nr.is_some_and(|nr| forks.contains(&nr)) && new_task(pid).is_none()
}

/// The threads of process `pid`.
fn kernel_threads(pid: i32) -> Vec<i32> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn an_output_error_gives_back_the_mask() {
    let Some((c0, c1)) = two_cpus() else { return };
    let (mut target, mut out) = waiting_target(c1, &format!("{c0},{c1}"));
    let pid = target.id() as i32;
    // The trace goes to stderr, a pipe that this test closes once the
    // first line has come: the next write fails.
    let mut tracer = rtrace()
        .arg(format!("--same-cpu={c0}"))
        .args(["-p", &pid.to_string()])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(tracer.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    // Its name as prctl set it, escaped.
    assert_eq!(
        first,
        format!("Tracing w\\377) x ( wait {c0},{c1} (pid {pid})\n")
    );
    assert_eq!(allowed_list(pid), c0.to_string(), "not pinned");
    drop(err);
    let mut stdin = target.stdin.take().unwrap();
    stdin.write_all(b"go\n").unwrap();
    let mut seen = String::new();
    out.read_line(&mut seen).unwrap();
    let status = tracer.wait().unwrap();
    assert_eq!(status.code(), Some(1));
    let both = list(&[c0, c1]);
    assert_eq!(allowed_list(pid), both, "the mask it set");
    // And it runs on untraced: the next line sets it again, for real.
    stdin.write_all(b"go\n").unwrap();
    seen.clear();
    out.read_line(&mut seen).unwrap();
    assert_eq!(seen, format!("set: sees {both}, runs on {both}\n"));
    drop(stdin);
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    target.wait().unwrap();
}

#[test]
fn bad_cpus_are_refused() {
    let cpus = my_cpus();
    let missing = cpus.last().unwrap() + 1;
    let out = rtrace()
        .arg(format!("--same-cpu={missing}"))
        .arg("true")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "rtrace: --same-cpu={missing}: no such CPU for rtrace (it may run on {})\n",
            list(&cpus)
        )
    );
    let out = rtrace()
        .args(["--same-cpu=often", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).starts_with(
            "rtrace: invalid value 'often' for '--same-cpu[=<N|always|auto|never>]': expected a CPU number"
        ),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = rtrace()
        .args(["--same-cpu=99999", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).starts_with(
            "rtrace: invalid value '99999' for '--same-cpu[=<N|always|auto|never>]': CPU numbers go up to 8191 (Linux has at most 8192 CPUs)"
        ),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // `always`, which a bare --same-cpu means, may be spelt out.
    let out = rtrace()
        .args(["--same-cpu=always", "-o", "/dev/null", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    // A bare --same-cpu takes no value: the command is the command.
    let out = rtrace()
        .args(["--same-cpu", "-o", "/dev/null", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

/// `line` with the result of the call, an untraced child's pid (no banner
/// names it), as `CHILD`.
fn child_result(line: &str) -> String {
    match line.rsplit_once(") = ") {
        Some((call, pid)) if pid.parse::<i32>().is_ok_and(|p| p > 0) => {
            format!("{call}) = CHILD")
        }
        _ => line.to_string(),
    }
}

/// A clone or clone3 with CLONE_UNTRACED makes a child that rtrace never
/// traces, even under -f: it must be born on its creator's own mask, not
/// rtrace's pin, which nobody would take off. The creator is pinned again
/// once the call returns.
#[test]
fn an_untraced_clone_child_is_born_on_its_own_mask() {
    let Some((c0, c1)) = two_cpus() else { return };
    let both = list(&[c0, c1]);
    let pair = format!("{c0},{c1}");
    let bin = fixture("affinity");
    let bin32 = common::fixture_m32("affinity");
    // Stepped, or under the seccomp filter with the clones selected (with
    // -f, and without -f, where the filter's children are traced too).
    for (bin, args) in [
        (&bin, &["-f"][..]),
        (&bin32, &["-f"]),
        (
            &bin,
            &["-f", "--no-seccomp-bpf", "-e", "trace=clone,clone3"],
        ),
        (&bin, &["-f", "-e", "trace=clone,clone3"]),
        (&bin, &["--seccomp-bpf", "-e", "trace=clone,clone3"]),
    ] {
        let pin = format!("--same-cpu={c0}");
        let run = trace(
            &[&[pin.as_str()][..], args].concat(),
            &[name(bin), "untraced", &pair],
        );
        assert_eq!(run.code(), Some(0), "{args:?}: {}", run.stderr());
        // An untraced child keeps rtrace's filter, and with no tracer
        // the calls it stops for fail (sched_getaffinity among them, and
        // the opens, which the filter stops for the fd table): there the
        // mask is checked by the runs that step every call.
        let (seen, runs) = if args.contains(&"--no-seccomp-bpf") || args.len() == 1 {
            (both.as_str(), both.as_str())
        } else {
            ("error", "error")
        };
        let stdout = String::from_utf8_lossy(&run.output.stdout);
        assert_eq!(
            stdout.lines().collect::<Vec<_>>(),
            [
                format!("clone child: sees {seen}, runs on {runs}"),
                format!("clone3 child: sees {seen}, runs on {runs}"),
                format!("parent: sees {both}, runs on {c0}"),
            ],
            "{args:?} {bin:?}"
        );
        let clones: Vec<String> = run
            .lines()
            .iter()
            .filter(|l| l.starts_with("clone"))
            .map(|l| child_result(l))
            .collect();
        assert_eq!(
            clones,
            [
                "clone(CLONE_UNTRACED|SIGCHLD, NULL, NULL, NULL, NULL) = CHILD",
                "clone3({flags=CLONE_UNTRACED, pidfd=NULL, child_tid=NULL, parent_tid=NULL, \
                 exit_signal=SIGCHLD, stack=NULL, stack_size=0, tls=NULL}, 64) = CHILD",
            ],
            "{args:?} {bin:?}:\n{}",
            run.trace
        );
    }
}

/// A CLONE_UNTRACED child of a traced task is born on its creator's own
/// mask and may choose the pin CPU itself: the guard, when rtrace is
/// killed, must leave it there (rtrace told it of the child), though it
/// looks below its creator for tasks born pinned.
#[test]
fn a_killed_rtrace_leaves_an_untraced_child_its_own_choice() {
    let Some((c0, _)) = two_cpus() else { return };
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join(format!("samecpu-untraced-hold-{}.txt", std::process::id()));
    let mut rt = rtrace()
        .arg("-o")
        .arg(&file)
        .arg(format!("--same-cpu={c0}"))
        .arg("-f")
        .arg(fixture("affinity"))
        .args(["untraced-hold", &c0.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = rt.stdin.take().unwrap();
    let mut out = BufReader::new(rt.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let child: i32 = line
        .strip_prefix("child ")
        .and_then(|pid| pid.trim().parse().ok())
        .unwrap_or_else(|| panic!("{line:?}"));
    let pin = c0.to_string();
    assert_eq!(wait_for_list(child, &pin), pin, "the child's own choice");
    // SAFETY: signalling our own child.
    unsafe { libc::kill(rt.id() as i32, libc::SIGKILL) };
    rt.wait().unwrap();
    // The guard gives masks back at once: it has long done so by now.
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        allowed_list(child),
        pin,
        "the guard took the child's choice"
    );
    // At the end of input the child ends, and then its creator.
    drop(stdin);
    let _ = std::fs::remove_file(&file);
}

/// A task created by a pinned tracee is born on its creator's own mask
/// (the call is made on it). When co-location ends (here: the output
/// fails) after its creator entered the call and before rtrace hears of
/// the task, the task keeps that mask and the creator gets its own back:
/// rtrace is held (as above) until the task exists and its output is
/// gone, so it ends co-location first.
#[test]
fn co_location_ending_during_a_fork_still_gives_the_new_task_its_mask() {
    let Some((c0, c1)) = two_cpus() else { return };
    for new in ["fork", "thread"] {
        let (mut target, _out) = untraced_target(&["hold", new], c1);
        let pid = target.id() as i32;
        let mut tracer = rtrace()
            .arg(format!("--same-cpu={c0}"))
            .args(["-f", "-p", &pid.to_string()])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let rt = tracer.id() as i32;
        let err = tracer.stderr.take().unwrap();
        let pin = c0.to_string();
        assert_eq!(wait_for_list(pid, &pin), pin, "{new}: not pinned");
        let mut stdin = target.stdin.take().unwrap();
        hold_after_resuming_into_fork(rt, pid, || stdin.write_all(b"\n").unwrap());
        let born = wait_until("the new task", || new_task(pid));
        assert_eq!(
            allowed_list(born),
            c1.to_string(),
            "{new}: born on its own mask"
        );
        // Its next write fails; its flush timer comes due meanwhile.
        drop(err);
        std::thread::sleep(Duration::from_millis(100));
        // SAFETY: letting our own tracee go.
        assert_eq!(
            unsafe { libc::ptrace(libc::PTRACE_DETACH, rt, 0usize, 0usize) },
            0
        );
        let own = c1.to_string();
        assert_eq!(wait_for_list(pid, &own), own, "{new}: its creator");
        assert_eq!(wait_for_list(born, &own), own, "{new}: the new task");
        drop(stdin);
        target.wait().unwrap();
        assert_eq!(
            tracer.wait().unwrap().code(),
            Some(1),
            "{new}: the output error"
        );
    }
}

/// Run `mask_chaos` (threads that set their own masks while others create
/// threads) with `tracer` (rtrace's arguments, or untraced), let it run
/// for `run` and end rtrace with `end` (a signal; 0 lets it run on), wait
/// 100 ms, and return what the program then reports about every thread's
/// mask, as seen by the kernel.
fn mask_chaos(
    tracer: Option<&[&str]>,
    run: Duration,
    end: i32,
    cpus: (usize, usize),
) -> Vec<String> {
    let bin = fixture("mask_chaos");
    let args = [cpus.0.to_string(), cpus.1.to_string()];
    let mut cmd = match tracer {
        Some(opts) => {
            let mut cmd = rtrace();
            cmd.args(opts).arg("-o").arg("/dev/null").arg(&bin);
            cmd
        }
        None => Command::new(&bin),
    };
    let mut child = cmd.args(&args).stdout(Stdio::piped()).spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    let pid: i32 = first
        .trim()
        .strip_prefix("pid ")
        .unwrap_or_else(|| panic!("mask_chaos said {first:?}"))
        .parse()
        .unwrap();
    std::thread::sleep(run);
    if end != 0 {
        // SAFETY: signalling our own child.
        unsafe { libc::kill(child.id() as i32, end) };
        child.wait().unwrap();
        // Every task must have its own mask back within 100 ms.
        std::thread::sleep(Duration::from_millis(100));
    }
    // SAFETY: a signal to the program (rtrace's child, or ours).
    assert_eq!(unsafe { libc::kill(pid, libc::SIGUSR1) }, 0);
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    let _ = child.wait();
    rest.lines().map(str::to_string).collect()
}

/// The default mode is invisible: threads that set their own masks see
/// them, new threads start on their creator's mask, and whenever rtrace
/// is SIGKILLed every thread has its own mask back within 100 ms, as
/// untraced and with `--same-cpu=always`. The moments of the kills spread
/// over the program's start and its run.
#[test]
fn a_random_kill_leaves_every_task_its_own_mask() {
    let Some(cpus) = two_cpus() else { return };
    let fine = s(&[
        "masks set: seen as set",
        "new threads: started on their creator's mask",
        "live threads: on their own masks",
    ]);
    let ms = Duration::from_millis;
    assert_eq!(mask_chaos(None, ms(200), 0, cpus), fine, "untraced");
    assert_eq!(
        mask_chaos(
            Some(&["-f", "--same-cpu=always"]),
            ms(200),
            libc::SIGKILL,
            cpus
        ),
        fine,
        "--same-cpu=always"
    );
    // A fixed spread of moments (no randomness to make a failure
    // unrepeatable): the first stops, the first pins and ticks, later on.
    for (trial, wait) in [
        0, 1, 2, 3, 5, 8, 12, 17, 23, 30, 40, 55, 70, 90, 120, 150, 190, 240, 300, 370,
    ]
    .into_iter()
    .enumerate()
    {
        let seen = mask_chaos(Some(&["-f"]), ms(wait), libc::SIGKILL, cpus);
        assert_eq!(seen, fine, "trial {trial}: rtrace killed after {wait} ms");
    }
}

/// Without -f, the fast path's children are traced unshown: their calls
/// are only resumed, so none could be made on their own masks, and they
/// are never pinned: a child sees and runs on its own mask.
#[test]
fn the_fast_paths_unshown_children_are_not_pinned() {
    let Some((c0, _)) = two_cpus() else { return };
    let all = list(&my_cpus());
    fixture("affinity");
    let pin = format!("--same-cpu={c0}");
    let run = trace(
        &[&pin, "--seccomp-bpf", "-e", "trace=write"],
        // `; true`: the shell forks for the command rather than exec it.
        &["sh", "-c", "affinity get; true"],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_eq!(
        String::from_utf8_lossy(&run.output.stdout)
            .lines()
            .collect::<Vec<_>>(),
        [format!("start: sees {all}, runs on {all}")]
    );
}

/// A command started while rtrace is pinned already (`-p PID` with a
/// command) is forked with rtrace's pin: it gets rtrace's own mask, its
/// own, before it runs, and then sees it while pinned.
#[test]
fn a_command_started_beside_an_attached_process_sees_its_own_mask() {
    let Some((c0, c1)) = two_cpus() else { return };
    let all = list(&my_cpus());
    fixture("affinity");
    // Attached: a process that ends by itself, on its own mask.
    let mut target = Command::new("sleep");
    target.arg("1");
    on_cpu(&mut target, c1);
    let mut target = target.spawn().unwrap();
    let pid = target.id().to_string();
    let pin = format!("--same-cpu={c0}");
    let run = trace(&[&pin, "-f", "-p", &pid], &["affinity", "get"]);
    target.wait().unwrap();
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_eq!(
        String::from_utf8_lossy(&run.output.stdout)
            .lines()
            .collect::<Vec<_>>(),
        [format!("start: sees {all}, runs on {c0}")]
    );
}
