//! The BPF engine (`--bpf`): the same fixture programs traced by both
//! engines print the same lines, but for the differences HACKING.md lists
//! ("The BPF engine"), each recognised here by what it is; a system-wide
//! trace sees a process rtrace did not start; lost records are counted and
//! shown; the committed BPF object is what its source builds to; the
//! engine's bad inputs fail with one line.
//!
//! The engine needs root (or CAP_BPF and CAP_PERFMON) and the kernel's
//! BTF, as the ptrace tests need ptrace: the suite runs as root.

mod common;

use common::engines::*;
use common::{fixture, name, rtrace_env, trace};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn file_calls_print_the_same() {
    compare("calls_files", &[]);
    compare("calls_more", &[]);
    compare("shapes", &[]);
}

/// A plain file's, a pipe's, a fixed device's and a unix socket's data
/// are copied only as far as printed: the lines are the same for any -s,
/// and dumps (which need every byte) are whole. (A netlink socket's data
/// is decoded whole: `socket_and_netlink_calls_print_the_same`.)
#[test]
fn plain_data_prints_the_same_and_dumps_whole() {
    compare("plain_data", &[]);
    compare("plain_data", &["-s", "120"]);
    compare("plain_data", &["-e", "read=3,4,7,9", "-e", "write=3,5,6,8"]);
    let bin = fixture("plain_data");
    let (_, bpf) = both(&bin, &["-e", "read=4,9", "-e", "write=6"]);
    let dump: Vec<&String> = bpf.iter().filter(|l| l.contains("  | 0")).collect();
    // 300 bytes three times: 19 lines of 16 each.
    assert_eq!(dump.len(), 3 * 19, "{bpf:#?}");
}

/// A dump longer than a record holds (`plan::DUMP_CAP`, 12 KiB) shows
/// what was copied and says how much more moved: never a dump that looks
/// whole and is not.
#[test]
fn a_dump_past_the_copy_says_so() {
    let file = common::scratch_path("bpf", "dump40k");
    let bytes: Vec<u8> = (0..40000u32).map(|i| (i * 7) as u8).collect();
    std::fs::write(&file, &bytes).unwrap();
    let file = file.display().to_string();
    let run = trace(
        &["--bpf", "-e", "trace=read", "-e", "read=3"],
        &["cat", &file],
    );
    let lines = run.lines();
    let at = lines
        .iter()
        .position(|l| l.starts_with("read(3, ") && l.ends_with(") = 40000"))
        .unwrap_or_else(|| panic!("no read of the file:\n{lines:#?}"));
    let dump = lines[at + 1..]
        .iter()
        .take_while(|l| l.starts_with("  | "))
        .count();
    assert_eq!(dump, 12288 / 16, "{lines:#?}");
    assert_eq!(
        lines[at + 1 + dump],
        format!("  * {} more bytes moved, not shown", 40000 - 12288)
    );
}

/// A plain file's data is copied only as far as it is printed
/// (`plain_data()` in the program): in the smallest ring, 4096 bytes, the
/// record of a read of 8000 bytes from a file fits, where a record with
/// the whole copy could never be sent (a dump, which copies it whole,
/// loses it). The lossless mode keeps the other records from being
/// dropped while rtrace catches up.
#[test]
fn a_plain_file_s_data_is_copied_as_far_as_printed() {
    let file = common::scratch_path("bpf", "plain8000");
    let bytes: Vec<u8> = (0..8000u32).map(|i| b'a' + (i % 26) as u8).collect();
    std::fs::write(&file, &bytes).unwrap();
    let file = file.display().to_string();
    let ptrace = trace(&["-e", "trace=read"], &["cat", &file]).lines();
    let bpf = trace(
        &[
            "--bpf",
            "--bpf-ring",
            "4096",
            "--bpf-lossless",
            "-e",
            "trace=read",
        ],
        &["cat", &file],
    )
    .lines();
    assert!(
        ptrace.iter().any(|l| l.ends_with(") = 8000")),
        "no read of the file under ptrace:\n{ptrace:#?}"
    );
    assert_eq!(bpf, ptrace);
}

/// A successful exec's strings in a page nothing had touched: the kernel
/// faults it in after the entry could not copy them, and by the exit the
/// memory is the new program's (where the old addresses may hold
/// anything). The strings are the ones the kernel copied onto the new
/// program's stack, as ptrace shows them.
#[test]
fn an_exec_s_untouched_strings_are_the_new_program_s_copy() {
    compare("exec_untouched", &[]);
    // A string longer than -v's 256 bytes: as far as -s says, not one
    // byte short, nor 255 where -s is larger.
    compare("exec_untouched", &["-v"]);
    compare("exec_untouched", &["-s", "400"]);
}

/// A thread's exec: its entry waits under its own tid, its exit and the
/// exec's event come under the leader's, and the leader's death in the
/// exec ends nothing. The line was lost, the banner had no arguments
/// and the leader was reported exited.
#[test]
fn a_thread_s_exec_prints_as_under_ptrace() {
    // (The leader's last calls race with the thread's exec: execs only.)
    compare("thread_exec_untouched", &["-f", "-e", "trace=execve"]);
}

/// A leader whose own thread ends while another thread lives: the
/// process goes on, and ends with its last thread, with that thread's
/// status; the leader's exit stays unfinished until then, as ptrace
/// shows it. The BPF engine had reported the process ended, with the
/// leader's status, when the leader's thread ended.
#[test]
fn a_leader_s_own_exit_ends_the_process_with_its_last_thread() {
    compare("leader_exits_first", &["-f"]);
}

/// A call the task's death ends with success: the leader's futex in
/// pthread_join, woken as the joined thread's exit_group clears its tid
/// and kills the leader. The futex returns 0 in the kernel, but the
/// leader never gets back to user space: ptrace never sees its exit, and
/// neither engine shows or counts it. The BPF engine had printed
/// `futex(...) = 0` (it asked whether a task was dying only of failed
/// calls).
#[test]
fn a_call_that_succeeds_as_its_task_is_killed_stays_unfinished() {
    compare("joined_exit_group", &["-f"]);
    let bin = fixture("joined_exit_group");
    let ptrace = summary_rows(&[], &["-f", "-c"], &bin);
    assert!(
        !ptrace.iter().any(|r| r.starts_with("futex ")),
        "{ptrace:?}"
    );
    assert_eq!(summary_rows(&[], &["-f", "-c", "--bpf"], &bin), ptrace);
}

/// A thread's exec after its leader has ended: the exec gives the thread
/// the leader's tid at once, waiting for nothing, and the new program's
/// calls are that tid's, every one of them, as ptrace shows them. The
/// program's note of who calls on each CPU kept the thread's old tid
/// through the exec, and the new program's calls were lost.
#[test]
fn an_exec_after_the_leader_s_end_traces_the_new_program() {
    compare("leader_gone_exec", &["-f"]);
}

/// The getdents64 lines of `ls -f` on a fresh directory `name` of
/// `entries` files with longer names, traced with `args`, by each engine.
fn getdents_of_a_directory(
    name: &str,
    entries: usize,
    args: &[&str],
) -> (Vec<String>, Vec<String>) {
    let dir = common::scratch_path("bpf", name);
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..entries {
        std::fs::write(dir.join(format!("an-entry-with-a-longer-name-{i:03}")), "").unwrap();
    }
    let dir = dir.display().to_string();
    let getdents = |engine: &[&str]| -> Vec<String> {
        let mut all = engine.to_vec();
        all.extend(args);
        all.extend(["-e", "trace=getdents64"]);
        let run = trace(&all, &["ls", "-f", &dir]);
        assert_eq!(run.code(), Some(0), "{}", run.stderr());
        run.lines()
            .into_iter()
            .filter(|l| l.starts_with("getdents64("))
            .collect()
    };
    (getdents(&[]), getdents(&["--bpf"]))
}

#[test]
fn a_directory_longer_than_its_copy_is_counted() {
    // 300 entries of 40-odd bytes: about 12 KiB of records, three times
    // what a buffer's copy holds; the kernel counts them at the exit.
    let (ptrace, bpf) = getdents_of_a_directory("dir", 300, &[]);
    assert_eq!(ptrace, bpf);
    assert!(bpf[0].contains("/* 302 entries */"), "{bpf:#?}");
}

/// `-v` lists a directory's entries one by one: under `--bpf` too, for
/// the entries of a call up to `plan::DUMP_CAP` (12 KiB; glibc asks for
/// 32 KiB, a directory of a few hundred entries).
#[test]
fn a_directory_s_entries_are_listed_with_v() {
    let (ptrace, bpf) = getdents_of_a_directory("dir_v", 150, &["-v"]);
    assert_eq!(ptrace, bpf);
    assert_eq!(bpf[0].matches("d_name=").count(), 152, "{bpf:#?}");
}

#[test]
fn memory_and_poll_calls_print_the_same() {
    compare("calls_mem", &[]);
    compare("calls_poll", &[]);
}

#[test]
fn socket_and_netlink_calls_print_the_same() {
    compare("calls_net", &[]);
    // The kernel's answers carry times, cookies and inodes of their own
    // run: the requests, and the answers' shapes as far as they are the
    // same from run to run.
    compare_lines("netlink", &[], |l| {
        !l.contains("cstamp=") && !l.contains("idiag_cookie=") && !l.contains("IFLA_STATS")
    });
    compare("sockios", &[]);
}

#[test]
fn arguments_are_cut_to_their_declared_width_alike() {
    // Garbage in every narrow argument's upper half (tests/arg_widths.rs
    // shows the ptrace engine's lines equal the clean run's).
    compare("arg_widths", &[]);
}

#[test]
fn signals_and_children_print_the_same() {
    compare("calls_sig", &[]);
    compare("signals", &[]);
    compare("fork_wait", &["-f"]);
}

/// A child's SIGCHLD to a parent that ignores it, sent as the child ends
/// while the parent waits for it (fork_wait's child runs 300 ms first):
/// ptrace sees it as the parent takes it, after the wait returns; the BPF
/// engine, which sees it sent, holds it until the wait's end. (Until
/// session 26 it showed inside the wait's line, as a signal that had
/// interrupted the wait.)
#[test]
fn a_child_s_sigchld_shows_after_the_wait_it_ends() {
    if !common::root_or_skip("bpf", "the BPF engine") {
        return;
    }
    let (ptrace, bpf) = both(&fixture("fork_wait"), &["-f"]);
    for (engine, lines) in [("ptrace", &ptrace), ("bpf", &bpf)] {
        let at = lines
            .iter()
            .position(|l| l.contains("wait4(-1, W_EXITED(7), 0, NULL) = PID2"))
            .unwrap_or_else(|| panic!("{engine}: no finished wait4:\n{lines:#?}"));
        assert_eq!(
            lines[at..(at + 2).min(lines.len())],
            [
                "PID1'*wait4(-1, W_EXITED(7), 0, NULL) = PID2",
                "** SIGCHLD **"
            ],
            "{engine}: the wait and then its SIGCHLD:\n{lines:#?}"
        );
    }
}

/// The other side: a child's SIGCHLD that comes during a wait for
/// another child does not end that wait; ptrace shows it where it
/// interrupted the wait, inside the wait's line, and so does the BPF
/// engine once the wait's end shows it returned another child.
#[test]
fn a_sigchld_during_a_wait_for_another_child_shows_inside_it() {
    if !common::root_or_skip("bpf", "the BPF engine") {
        return;
    }
    let (ptrace, bpf) = both(&fixture("wait_other"), &["-f"]);
    let waits = |lines: &[String]| -> Vec<String> {
        lines
            .iter()
            .filter(|l| l.contains("wait4(PID"))
            .cloned()
            .collect()
    };
    // ptrace: interrupted, the signal taken, the wait restarted.
    assert_eq!(
        waits(&ptrace),
        [
            "PID1| wait4(PID2, <..>",
            "PID1|*wait4(PID2, ** SIGCHLD ** <..>",
            "PID1'*wait4(PID2, W_EXITED(1), 0, NULL) = PID2",
            "wait4(PID3, W_EXITED(2), 0, NULL) = PID3",
        ],
        "ptrace:\n{ptrace:#?}"
    );
    // BPF: never interrupted, the signal shown where it came, inside the
    // line the wait resumes (`*`).
    assert_eq!(
        waits(&bpf),
        [
            "PID1| wait4(PID2, <..>",
            "PID1'*wait4(PID2, ** SIGCHLD ** W_EXITED(1), 0, NULL) = PID2",
            "wait4(PID3, W_EXITED(2), 0, NULL) = PID3",
        ],
        "bpf:\n{bpf:#?}"
    );
}

#[test]
fn ioctls_print_the_same() {
    compare("ioctl_args", &[]);
    compare("tty_ioctls", &[]);
    // Requests whose code says no size (BLKROSET, KDGKBENT) or another
    // direction than the kernel's (UFFDIO_WAKE): copied as the generated
    // tables' exceptions say; BLKPG's partition, behind a pointer in its
    // argument, too (`PointedArray` with no count).
    compare("ioctl_kdhdio", &[]);
    compare("ioctl_names", &[]);
    compare("ioctl_named", &[]);
}

/// i386 programs: their strings, byte buffers, ioctl arguments and the
/// structs laid out alike on both ABIs.
#[test]
fn i386_programs_print_the_same() {
    for bin in [
        common::fixture_m32("shapes"),
        common::fixture_m32("fork_wait"),
    ] {
        let (ptrace, bpf) = both(&bin, &["-f"]);
        assert_same(name(&bin), &ptrace, &bpf, None);
    }
}

/// A filter that comes to a thread in the middle of its call (another
/// thread's SECCOMP_FILTER_FLAG_TSYNC): the poll entered without one and
/// its exit takes its entry's memory again; what the kernel wrote at the
/// exit (revents) is shown under both engines, not the entry's copy.
#[test]
fn a_filter_that_comes_mid_call_leaves_the_exits_memory() {
    for engine in [&["-f"][..], &["--bpf", "-f"]] {
        let run = trace(engine, &[name(&fixture("seccomp_tsync"))]);
        assert_eq!(run.code(), Some(0), "{engine:?}: {}", run.stderr());
        let lines = run.after_marker();
        let ended = lines
            .iter()
            .find(|l| l.contains("poll([{fd=3, events=POLLIN}], 1, 5000) = 1"));
        assert!(
            ended.is_some_and(|l| l.ends_with(
                "poll([{fd=3, events=POLLIN}], 1, 5000) = 1 \
                 [{fd=3, revents=POLLIN}]"
            )),
            "{engine:?}: {lines:#?}"
        );
    }
}

/// Calls a seccomp filter refuses before the kernel runs them fire no
/// sys_enter: their exits, finding that, take the memory the program
/// passed (paths on its stack, an execve's file and arguments), one
/// straight after a signal handler's return, one inside a handler while
/// the call the signal interrupted is suspended. (A string on a page
/// nothing has touched yet stays a pointer: the kernel never read it,
/// and a tracepoint's program cannot fault a page in.)
#[test]
fn calls_seccomp_refuses_show_what_the_program_passed() {
    let run = trace(&["--bpf"], &[name(&fixture("seccomp_errno"))]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = run.after_marker();
    assert_eq!(
        lines[..3],
        [
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "chdir(\"/nonexistent/refused\") = -1 [EPERM]",
            "mkdir(\"/tmp/never-made\", 0755) = -1 [EACCES]",
        ],
        "{lines:#?}"
    );
    assert!(
        lines.contains(
            &"execve(\"/nonexistent/refused-prog\", [\"refused-prog\"], &ADDR /* 0 vars */) \
              = -1 [EACCES]"
                .to_string()
        ),
        "{lines:#?}"
    );
    let after_handler = lines.iter().rfind(|l| l.starts_with("chdir(\"/n"));
    assert_eq!(
        after_handler.map(String::as_str),
        Some("chdir(\"/nonexistent/refused\") = -1 [EPERM]"),
        "{lines:#?}"
    );
    // Inside a handler, while the interrupted sleep is suspended.
    assert!(
        lines.contains(&"chdir(\"/in/handler\") = -1 [EPERM]".to_string()),
        "{lines:#?}"
    );
}

/// A sleep a signal interrupted: the time left it wrote is copied at the
/// exit that wrote it, whether the call then ends at once (EINTR once
/// the handler returns) or the kernel first restarts it through
/// restart_syscall (stopped and continued): the last one, which the
/// program got (sleep_stopped writes it out after the call).
#[test]
fn interrupted_sleeps_show_the_time_left() {
    compare_lines("sleep_restart", &[], |l| l.contains("sleep("));
    for engine in [&[][..], &["--bpf"]] {
        let run = trace(engine, &[name(&fixture("sleep_stopped"))]);
        let lines = run.after_marker();
        let ended = lines
            .iter()
            .find(|l| l.contains("nanosleep(") && l.ends_with("= -1 [EINTR]"))
            .unwrap_or_else(|| panic!("{engine:?}: no interrupted sleep: {lines:#?}"));
        let seen = lines
            .iter()
            .find_map(|l| l.strip_prefix("write(-1, \"{"))
            .and_then(|l| l.split('"').next())
            .map(|l| format!("{{{l}"))
            .unwrap_or_else(|| panic!("{engine:?}: no time left written: {lines:#?}"));
        assert!(
            ended.ends_with(&format!(", {seen}) = -1 [EINTR]")),
            "{engine:?}: the program got {seen}: {lines:#?}"
        );
    }
}

#[test]
fn verbose_and_filtered_traces_print_the_same() {
    compare("calls_files", &["-v"]);
    // -y of a process already gone: the path its fd was opened with.
    compare("calls_files", &["-y"]);
    compare("calls_net", &["-e", "trace=%network"]);
    compare("shapes", &["-e", "trace=write,read,close"]);
}

/// `socket:[123]` and `pipe:[123]` as `socket:[N]`: inode numbers differ
/// from run to run.
fn without_inodes(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find(":[") {
        let (head, tail) = rest.split_at(at + 2);
        out.push_str(head);
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && (head.ends_with("socket:[") || head.ends_with("pipe:[")) {
            out.push('N');
        } else {
            out.push_str(&tail[..digits]);
        }
        rest = &tail[digits..];
    }
    out.push_str(rest);
    out
}

/// A socket's and a pipe's name is made of its inode number, an
/// anonymous inode's (eventfd, signalfd, timerfd) of its dentry's name,
/// which the kernel's copy of each fd's identity carries: under `--bpf
/// -y` they are named as ptrace names them though the process is gone
/// when the records are read: arguments, results, the pairs pipe2 and
/// socketpair return, and dup's copies; and a pidfd, which from Linux 6.9
/// is pidfs's, named as the anonymous inode it was (it had shown as its
/// bare number). (A select set's members carry no identity.)
#[test]
fn files_without_paths_are_named_from_the_kernels_copy() {
    let bin = fixture("decode_fds");
    let sock = common::scratch_path("bpf", "named.sock");
    let run = |engine: &[&str]| {
        let _ = std::fs::remove_file(&sock);
        let mut args = engine.to_vec();
        args.push("-y");
        let run = trace(&args, &[name(&bin), sock.to_str().unwrap()]);
        assert_eq!(run.code(), Some(0), "{}", run.stderr());
        let lines = run.lines();
        let start = lines
            .iter()
            .position(|l| l.starts_with("write(-1, "))
            .expect("the marker");
        lines[start..]
            .iter()
            .map(|l| without_inodes(&without_ports(l)))
            .collect::<Vec<_>>()
    };
    let (ptrace, bpf) = (run(&[]), run(&["--bpf"]));
    assert_eq!(ptrace.len(), bpf.len(), "{ptrace:#?}\n{bpf:#?}");
    let mut named = 0;
    for (p, b) in ptrace.iter().zip(&bpf) {
        let anon = p.contains("anon_inode:[");
        if (p.contains("socket:[") || p.contains("pipe:[") || anon) && !p.starts_with("select(") {
            assert_eq!(b, p);
            named += 1;
        }
    }
    // TCP, UDP, unix, netlink and packet sockets, eventfd, signalfd and
    // timerfd, pipe2 and dup lines.
    assert!(named >= 36, "{named} lines: {ptrace:#?}");
}

/// An rtrace started in the background, killed if a test fails before it
/// ends: a tracer left behind would tax every call on the machine (-a)
/// or hold its tracee.
struct Stop(std::process::Child);

impl Drop for Stop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Wait (up to 30 s) until the trace file `out` satisfies `ready`.
fn wait_for(out: &Path, who: &str, ready: impl Fn(&str) -> bool) {
    if common::trace_file_when(out, Duration::from_secs(30), ready).is_err() {
        panic!("{who} did not start");
    }
}

/// `-a` sees a process rtrace did not start, named by its banner with its
/// real pid, and its calls.
#[test]
fn a_system_wide_trace_sees_a_process_it_did_not_start() {
    let bin = fixture("call_loop");
    let out = common::scratch_path("bpf", "all.txt");
    let probe = format!("/nonexistent/rtrace-bpf-probe-{}", std::process::id());
    let tracer = rtrace_env()
        .args(["--bpf", "-a", "-e", "trace=open,openat", "-o"])
        .arg(&out)
        .stderr(Stdio::piped())
        .spawn()
        .expect("start rtrace");
    let mut tracer = Stop(tracer);
    // Its first line says the programs are attached; then start a
    // process it was not told about.
    wait_for(&out, "rtrace -a", |t| {
        t.starts_with("Tracing every process\n")
    });
    let status = Command::new(&bin)
        .args(["10", &probe])
        .status()
        .expect("run the fixture");
    assert!(status.success());
    let pid_line = format!("openat(AT_FDCWD, \"{probe}\", O_RDONLY) = -1 [ENOENT]");
    let mut found = None;
    for _ in 0..100 {
        let text = std::fs::read_to_string(&out).unwrap_or_default();
        if let Some(line) = text.lines().find(|l| l.ends_with(&pid_line)) {
            found = Some((line.to_string(), text.clone()));
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: signalling our own child.
    unsafe { libc::kill(tracer.0.id() as i32, libc::SIGINT) };
    let exited = tracer.0.wait().expect("rtrace ends");
    let (line, text) = found.unwrap_or_else(|| {
        panic!(
            "no {pid_line} in:\n{}",
            std::fs::read_to_string(&out).unwrap_or_default()
        )
    });
    assert!(exited.success(), "rtrace -a after SIGINT: {exited:?}");
    let pid: i32 = line
        .split(['|', '\''])
        .next()
        .and_then(|p| p.trim().parse().ok())
        .unwrap_or_else(|| panic!("no pid prefix: {line}"));
    // Its arguments are read from /proc when the record is handled: a
    // process gone by then is named alone.
    assert!(
        text.lines()
            .any(|l| l.contains("Tracing call_loop") && l.ends_with(&format!("(pid {pid})"))),
        "no banner for pid {pid} in:\n{text}"
    );
}

/// `-p`: a running process's calls from the attach on, to its exit.
#[test]
fn an_attached_process_is_traced_to_its_end() {
    let bin = fixture("call_loop");
    let probe = format!("/nonexistent/rtrace-bpf-attach-{}", std::process::id());
    let script = format!("read line; exec {} 10 {probe}", bin.display());
    let mut target = Command::new("sh")
        .args(["-c", &script])
        .stdin(Stdio::piped())
        .spawn()
        .expect("start the target");
    let pid = target.id().to_string();
    let out = common::scratch_path("bpf", "attach.txt");
    let tracer = rtrace_env()
        .args([
            "--bpf",
            "-e",
            "trace=openat",
            "--filter",
            "path ~ \"/nonexistent/*\"",
            // The banners' arguments whole.
            "-s",
            "256",
            "-o",
        ])
        .arg(&out)
        .args(["-p", &pid])
        .spawn()
        .expect("start rtrace");
    let mut tracer = Stop(tracer);
    // Its banner says it is attached.
    wait_for(&out, "rtrace -p", |t| t.contains("Tracing sh -c "));
    use std::io::Write;
    target.stdin.take().unwrap().write_all(b"go\n").unwrap();
    assert!(target.wait().unwrap().success());
    let exited = tracer.0.wait().expect("rtrace ends with its tracee");
    assert_eq!(exited.code(), Some(0));
    let text = std::fs::read_to_string(&out).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    // The exec's banner reads the arguments from /proc when its record is
    // handled: the program may have ended by then, and is named alone.
    let named_alone = format!("Tracing call_loop (pid {pid})");
    let with_args = format!("Tracing call_loop 10 {probe} (pid {pid})");
    if lines.get(2) == Some(&named_alone.as_str()) {
        lines[2] = &with_args;
    }
    assert_eq!(
        lines,
        [
            format!("Tracing sh -c \"{script}\" (pid {pid})").as_str(),
            "---",
            with_args.as_str(),
            format!("openat(AT_FDCWD, \"{probe}\", O_RDONLY) = -1 [ENOENT]").as_str(),
            "Process exited normally with code 0",
        ],
        "{text}"
    );
}

/// A ring too small for the call rate loses records; they are counted
/// where they were lost and in -C's summary, never silently.
#[test]
fn lost_records_are_counted_and_shown() {
    let bin = fixture("call_loop");
    let run = trace(
        &["--bpf", "--bpf-ring", "16K", "-C"],
        &[name(&bin), "200000"],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lost: Vec<&str> = run
        .trace
        .lines()
        .filter(|l| l.contains(" events lost (CPU "))
        .collect();
    assert!(!lost.is_empty(), "no loss reported:\n{}", run.trace);
    let shown: u64 = lost
        .iter()
        .map(|l| {
            let n = l.split("** ").nth(1).and_then(|r| r.split(' ').next());
            n.and_then(|n| n.parse::<u64>().ok())
                .unwrap_or_else(|| panic!("not a count: {l}"))
        })
        .sum();
    let summary = run
        .trace
        .lines()
        .find(|l| l.ends_with("events lost (the BPF ring was full): their calls are not counted"))
        .unwrap_or_else(|| panic!("no loss in the summary:\n{}", run.trace));
    assert_eq!(
        summary
            .split(' ')
            .next()
            .and_then(|n| n.parse::<u64>().ok()),
        Some(shown),
        "{summary}"
    );
    // What was not lost is whole: every getppid line shown has its
    // result (or is split by a loss report and replayed with it).
    let mut calls = 0;
    for line in run.trace.lines().filter(|l| l.contains("getppid()")) {
        let result = line
            .trim_start_matches('*')
            .strip_prefix("getppid() = ")
            .filter(|r| r.parse::<u32>().is_ok());
        let summary_row = line.ends_with(" getppid");
        assert!(
            result.is_some() || line == "getppid() = <..>" || summary_row,
            "{line}"
        );
        calls += result.is_some() as usize;
    }
    assert!(calls < 200000, "nothing was lost: {calls} calls shown");
}

/// JSON: the same objects from both engines, but for times, pids and
/// addresses (replaced as the text trace's normalisation does).
#[test]
fn json_objects_are_the_same() {
    use serde_json::Value;
    /// Addresses (`"0x7f..."`, or numbers beyond 32 bits) and `pid` as
    /// words; the rest as it is.
    fn normalised(v: &Value, pid: u64) -> Value {
        match v {
            Value::String(s)
                if s.len() >= 10
                    && s.starts_with("0x")
                    && s[2..].bytes().all(|b| b.is_ascii_hexdigit()) =>
            {
                Value::from("ADDR")
            }
            Value::Number(n) if n.as_u64() == Some(pid) => Value::from("PID"),
            Value::Number(n) if n.as_u64().is_some_and(|n| n > u32::MAX as u64) => {
                Value::from("ADDR")
            }
            Value::Array(a) => Value::Array(a.iter().map(|x| normalised(x, pid)).collect()),
            Value::Object(o) => Value::Object(
                o.iter()
                    .filter(|(k, _)| !matches!(k.as_str(), "time" | "pid" | "tid"))
                    .map(|(k, x)| (k.clone(), normalised(x, pid)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
    /// `a == b`, where a number one run left as it was and the other
    /// turned into `PID` is the same if it is that run's pid: a constant
    /// that happens to equal it (ARCH_SET_FS is 4098).
    fn same(a: &Value, b: &Value, pid_a: u64, pid_b: u64) -> bool {
        match (a, b) {
            (Value::String(s), Value::Number(n)) if s == "PID" => n.as_u64() == Some(pid_a),
            (Value::Number(n), Value::String(s)) if s == "PID" => n.as_u64() == Some(pid_b),
            (Value::Array(x), Value::Array(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y, pid_a, pid_b))
            }
            (Value::Object(x), Value::Object(y)) => {
                x.len() == y.len()
                    && x.iter()
                        .all(|(k, v)| y.get(k).is_some_and(|w| same(v, w, pid_a, pid_b)))
            }
            _ => a == b,
        }
    }
    let bin = fixture("calls_more");
    let objects = |extra: &[&str]| -> (Vec<Value>, u64) {
        let mut args = vec!["--json"];
        args.extend_from_slice(extra);
        let run = trace(&args, &[name(&bin)]);
        assert!(run.code().is_some(), "{}", run.stderr());
        let all: Vec<Value> = run
            .trace
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect();
        let pid = all[0]["pid"].as_u64().expect("the start object's pid");
        let objects = all
            .iter()
            .filter(|v| v["type"] != "summary")
            .map(|v| normalised(v, pid))
            .collect();
        (objects, pid)
    };
    let ((ptrace, ptrace_pid), (bpf, bpf_pid)) = (objects(&[]), objects(&["--bpf"]));
    assert!(ptrace.len() > 10);
    for (p, b) in ptrace.iter().zip(&bpf) {
        assert!(same(b, p, bpf_pid, ptrace_pid), "{b}\n{p}");
    }
    assert_eq!(bpf.len(), ptrace.len());
}

/// `-c` alone is counted in the kernel (no record per call): the same
/// calls and errors as ptrace counts, the command's own from its exec;
/// an i386 program's calls under their i386 names, and so a 64-bit
/// program's `int $0x80` calls (told by the task's TS_COMPAT, their
/// registers not being a `syscall`'s).
#[test]
fn a_summary_counts_what_ptrace_counts() {
    for (bin, own_call) in [
        (fixture("calls_files"), "openat "),
        (common::fixture_m32("shapes"), "mmap2 "),
        (fixture("compat_i386"), "getpid "),
    ] {
        summaries_agree(&bin, own_call);
    }
}

/// `-c` counted in the kernel keeps each call's start by tid below the
/// kernel's pid_max, and in the task's own storage for a tid beyond it
/// (pid_max raised while rtrace runs): with a pid_max of 1 (a file
/// bind-mounted over /proc/sys/kernel/pid_max in a mount namespace of
/// rtrace's own) every task's start is kept there, and the counts are
/// still ptrace's.
#[test]
fn a_summary_counts_the_same_for_tids_beyond_pid_max() {
    let fake = common::scratch_path("bpf", "pid_max");
    std::fs::write(&fake, "1\n").unwrap();
    let fake = fake.display().to_string();
    let prefix = [
        "unshare",
        "-m",
        "sh",
        "-c",
        "mount --bind \"$0\" /proc/sys/kernel/pid_max && exec \"$@\"",
        &fake,
    ];
    summaries_agree_under(&prefix, &fixture("calls_files"), "openat ");
    // A thread's exec is counted under the leader's tid, where its start
    // moved, as ptrace counts it; the leader's futex, which the exec ends
    // with SIGKILL, is not (see `a_call_its_tasks_death_ended_is_not_counted`).
    let bin = fixture("thread_exec");
    let ptrace = summary_rows(&[], &["-f", "-c"], &bin);
    assert!(ptrace.iter().any(|r| r == "execve 2"), "{ptrace:?}");
    assert_eq!(summary_rows(&[], &["-f", "-c", "--bpf"], &bin), ptrace);
    assert_eq!(summary_rows(&prefix, &["-f", "-c", "--bpf"], &bin), ptrace);
}

/// A call that fails because its task is being killed (here the leader's
/// futex wait, ended by another thread's exec) never returns to user
/// space: ptrace never sees its exit, and the BPF engine, which does,
/// leaves it out as well, in the kernel's `-c`, in `-c` from the records
/// (an outcome selection sends them) and in the trace, where the call
/// stays unfinished.
#[test]
fn a_call_its_tasks_death_ended_is_not_counted() {
    let bin = fixture("thread_exec");
    let every = "status=successful,failed,unfinished,unavailable,detached";
    let ptrace = summary_rows(&[], &["-f", "-c", "-e", every], &bin);
    assert!(
        !ptrace.iter().any(|r| r.starts_with("futex ")),
        "{ptrace:?}"
    );
    assert_eq!(
        summary_rows(&[], &["-f", "-c", "--bpf", "-e", every], &bin),
        ptrace
    );
    assert_eq!(
        summary_rows(&[], &["-f", "-c", "--bpf"], &bin),
        summary_rows(&[], &["-f", "-c"], &bin)
    );
    let run = trace(&["--bpf", "-f"], &[name(&bin)]);
    let waits: Vec<String> = run
        .lines()
        .into_iter()
        .filter(|l| l.contains("futex(") && l.contains("FUTEX_WAIT_BITSET"))
        .collect();
    assert!(!waits.is_empty(), "{}", run.trace);
    for wait in &waits {
        assert!(wait.ends_with("<..>"), "{wait}\n{}", run.trace);
    }
}

/// Memory that ends at an unmapped page is copied as far as it can be
/// read (an int option passed with a length of 5 at a page's end, the
/// iovecs before an unreadable one), as ptrace reads what the decoder
/// needs of it.
#[test]
fn memory_before_an_unmapped_page_prints_the_same() {
    compare_lines("s11_net", &[], |l| {
        (l.starts_with("setsockopt(") || l.starts_with("getsockopt(")) && !l.contains("_FILTER")
    });
    compare_lines("calls_s11_memfs", &[], |l| l.starts_with("pwritev("));
}

/// select's sets past what the process's fd table holds are cut to its
/// size, which /proc tells while the process lives: a process that has
/// ended by the time its line is printed shows them as pointers, never
/// as empty sets.
#[test]
fn select_never_shows_sets_it_could_not_size_as_empty() {
    let bin = fixture("s12_misc");
    let (ptrace, bpf) = both(&bin, &[]);
    let huge = |lines: &[String]| -> Option<String> {
        lines
            .iter()
            .find(|l| l.starts_with("select(2147483647, "))
            .cloned()
    };
    let want = huge(&ptrace).expect("the fixture's select(INT_MAX, ...)");
    assert!(want.starts_with("select(2147483647, [3], [4], "), "{want}");
    let got = huge(&bpf).expect("the fixture's select(INT_MAX, ...) under --bpf");
    // Each set is read on its own: one may be read before the process
    // ends and the next not.
    let sets = got
        .strip_prefix("select(2147483647, ")
        .and_then(|rest| rest.split_once(", "))
        .and_then(|(first, rest)| Some((first, rest.split_once(", ")?.0)));
    let shown_or_pointer = matches!(sets, Some(("[3]" | "&ADDR", "[4]" | "&ADDR")));
    assert!(
        got == want || (shown_or_pointer && !got.contains("[]")),
        "{got}"
    );
}

/// `line` with each run of digits as `N` (ids, times and counts that
/// differ from run to run).
fn digits_out(line: &str) -> String {
    let mut out = String::new();
    for c in line.chars() {
        if !c.is_ascii_digit() {
            out.push(c);
        } else if !out.ends_with('N') {
            out.push('N');
        }
    }
    out
}

/// Both engines' lines of `bin` that `pick` keeps, as `pick` rewrites
/// them (leaving out what differs from run to run): equal, and ptrace's
/// holding one that `sample` accepts (so that the test cannot pass on no
/// lines at all).
fn compare_picked(
    bin: &Path,
    pick: impl Fn(&str) -> Option<String>,
    sample: impl Fn(&str) -> bool,
) {
    let (ptrace, bpf) = both(bin, &[]);
    let picked =
        |lines: &[String]| -> Vec<String> { lines.iter().filter_map(|l| pick(l)).collect() };
    let want = picked(&ptrace);
    assert!(want.iter().any(|l| sample(l)), "{want:?}");
    assert_eq!(picked(&bpf), want);
}

/// A line of call `name` without its first argument (an address that
/// differs from run to run: an AIO context).
fn after_first_arg(line: &str, name: &str) -> Option<String> {
    line.strip_prefix(name)?.strip_prefix('(')?;
    line.split_once(", ").map(|(_, rest)| rest.to_string())
}

/// Multiplexed calls' memory, which an argument's value chooses, is
/// copied by that value (`service::by_value`) and prints as ptrace prints
/// it: prctl's and arch_prctl's (a name set and read back, a signal and
/// an address written back), kcmp's epoll slot, socket and seccomp
/// filters, semctl's union (numbers left out: ids and times differ from
/// run to run).
#[test]
fn multiplexed_calls_print_the_same() {
    compare_lines("calls_proc", &[], |l| {
        l.starts_with("prctl(") || l.starts_with("arch_prctl(")
    });
    compare_lines("s12_misc", &[], |l| l.starts_with("kcmp("));
    // Filter programs behind a struct sock_fprog (seccomp, PR_SET_SECCOMP,
    // SO_ATTACH_FILTER) and the ones SO_GET_FILTER writes, as far as -s
    // shows them and whole with -v.
    compare("sock_filters", &[]);
    compare("sock_filters", &["-v"]);
    compare_picked(
        &fixture("calls_ipc"),
        |l| (l.starts_with("semctl(") && !l.contains("ALL, &")).then(|| digits_out(l)),
        |l| l.starts_with("semctl(N, N, IPC_STAT, {sem_perm={"),
    );
    let bin = fixture("calls_proc");
    let (_, bpf) = both(&bin, &[]);
    assert!(
        bpf.iter()
            .any(|l| l == "prctl(PR_SET_NAME, \"rtrace-test\") = 0"),
        "{bpf:?}"
    );
}

/// Memory behind pointers inside a struct argument (`service::indirect`)
/// is copied through them: clone3's pidfd and parent_tid, which the
/// kernel writes, and io_pgetevents' and pselect6's signal masks.
#[test]
fn pointers_inside_structs_print_the_same() {
    compare_lines("calls_proc", &["-f"], |l| l.contains("clone3("));
    compare_picked(
        &fixture("s12_uring"),
        |l| after_first_arg(l, "io_pgetevents"),
        |l| l.contains("{sigmask=[USR1], sigsetsize=8}"),
    );
    compare_lines("s12_misc", &[], |l| l.starts_with("pselect6("));
}

/// Arrays whose count is not the parameter after them
/// (`service::ARRAYS`) are copied whole: utimensat's two times, declared
/// as one struct; move_pages' pages, nodes and status, counted by the
/// parameter before them; io_getevents' events, as many as it returns.
#[test]
fn arrays_counted_elsewhere_print_the_same() {
    compare_lines("s12_misc", &[], |l| l.starts_with("utimensat("));
    compare_lines("calls_s11_memfs", &[], |l| l.starts_with("move_pages("));
    // (Each event's `obj` is an address that differs from run to run.)
    let without_objs = |text: String| -> String {
        let mut out = text;
        while let Some(at) = out.find("obj=0x") {
            let end = out[at..].find(", ").map_or(out.len(), |e| at + e + 2);
            out.replace_range(at..end, "");
        }
        out
    };
    compare_picked(
        &fixture("s12_uring"),
        |l| after_first_arg(l, "io_getevents").map(without_objs),
        |l| l.contains("res=5, res2=0}, {data=0x5678"),
    );
}

/// Arguments whose declared type is a typedef of a pointer (capget's
/// `cap_user_header_t` and `cap_user_data_t`, capset's `const
/// cap_user_data_t`) are copied as what the kernel's BTF says they point
/// at: the header, and the two data structs version 3 has.
#[test]
fn typedefs_of_pointers_print_the_same() {
    compare_lines("calls_proc", &[], |l| {
        l.starts_with("capget(") || l.starts_with("capset(")
    });
}

/// Structs the kernel copies more of than the declaration names are
/// copied as far as the decoder reads them: decoded, not pointers.
/// shmctl's and msgctl's, declared as `struct shmid_ds *` and `struct
/// msqid_ds *` but copied by x86_64's kernel as the larger IPC_64 structs
/// (numbers are left out: ids, times and the highest index differ from
/// run to run).
#[test]
fn structs_larger_than_declared_print_the_same() {
    compare_picked(
        &fixture("calls_ipc"),
        |l| (l.starts_with("shmctl(") || l.starts_with("msgctl(")).then(|| digits_out(l)),
        |l| l.starts_with("shmctl(N, IPC_STAT, {shm_perm={"),
    );
}

/// An i386 program's sigreturns: the mask each restores, read from the
/// signal frame at the stack pointer, and the result it restores, a
/// 32-bit register the kernel leaves unwidened (`-1 [EINTR]`, not
/// 4294967292), print and count as ptrace prints and counts them. (The
/// fixture's other lines differ as HACKING.md lists: i386 structs with
/// pointers are not copied; an ignored signal under ptrace interrupts a
/// read that it does not interrupt untraced.)
#[test]
fn i386_sigreturns_print_and_count_the_same() {
    let bin = common::fixture_m32("signals");
    // Each line from the call on (a pid's prefix left out).
    compare_picked(
        &bin,
        |l| {
            let at = l.find("sigreturn(")?;
            (!l[..at].ends_with("rt_")).then(|| l[at..].to_string())
        },
        |l| l == "sigreturn({mask=[]}) = -1 [EINTR]",
    );
    let row = |rows: Vec<String>| rows.into_iter().find(|r| r.starts_with("sigreturn "));
    let counted = row(summary_rows(&[], &["-c"], &bin));
    assert_eq!(counted.as_deref(), Some("sigreturn 4 1"));
    assert_eq!(row(summary_rows(&[], &["-c", "--bpf"], &bin)), counted);
    let every = "status=successful,failed,unfinished,unavailable,detached";
    assert_eq!(
        row(summary_rows(&[], &["-c", "--bpf", "-e", every], &bin)),
        counted
    );
}

/// The name, calls and errors columns of `-c`'s table of `bin` traced with
/// `args`, sorted; rtrace started by `prefix` if any.
fn summary_rows(prefix: &[&str], args: &[&str], bin: &Path) -> Vec<String> {
    let run = if prefix.is_empty() {
        trace(args, &[name(bin)])
    } else {
        common::trace_under(prefix, args, &[name(bin)])
    };
    assert!(run.code().is_some(), "{}", run.stderr());
    let mut rows: Vec<String> = run
        .trace
        .lines()
        .filter(|l| !l.starts_with('%') && !l.starts_with('-'))
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            match words.len() {
                6 => format!("{} {} {}", words[5], words[3], words[4]),
                _ => format!("{} {}", words[words.len() - 1], words[3]),
            }
        })
        .collect();
    assert!(
        rows.iter().any(|r| r.starts_with("total ")),
        "no summary: {}\n{}",
        run.trace,
        run.stderr()
    );
    rows.sort();
    rows
}

/// `-c`'s name, calls and errors columns of `bin` by both engines are the
/// same, and ptrace's has a row starting with `own_call`.
fn summaries_agree(bin: &Path, own_call: &str) {
    summaries_agree_under(&[], bin, own_call)
}

/// [`summaries_agree`], rtrace under `--bpf` started by `prefix` if any.
fn summaries_agree_under(prefix: &[&str], bin: &Path, own_call: &str) {
    let ptrace = summary_rows(&[], &["-c"], bin);
    assert!(ptrace.iter().any(|r| r.starts_with(own_call)), "{ptrace:?}");
    assert_eq!(summary_rows(prefix, &["-c", "--bpf"], bin), ptrace);
}

/// `-c` counted in the kernel keeps each task's traced state in the task:
/// a process detached at the first ^C (`-p`) while the started command
/// goes on is counted no more. Its calls before the detach are (1000
/// sched_yield at a time, when the test says), those after are not.
#[test]
fn a_summary_stops_counting_a_detached_process() {
    use std::io::{BufRead, BufReader, Write};
    let bin = fixture("call_bursts");
    let mut target = Command::new(&bin)
        .arg("1000")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the target");
    let mut to_target = target.stdin.take().unwrap();
    let mut from_target = BufReader::new(target.stdout.take().unwrap());
    let mut burst = || {
        to_target.write_all(b"go\n").unwrap();
        let mut line = String::new();
        from_target.read_line(&mut line).unwrap();
        assert_eq!(line, "done\n");
    };
    let started = common::scratch_path("bpf", "detach-started");
    let _ = std::fs::remove_file(&started);
    let out = common::scratch_path("bpf", "detach-summary.txt");
    // The started command ignores ^C and ends when told (a line on its
    // stdin), so the trace goes on past the detach.
    let script = format!("trap '' INT; echo > {}; read x", started.display());
    let tracer = rtrace_env()
        .args(["--bpf", "-c", "-o"])
        .arg(&out)
        .args(["-p", &target.id().to_string(), "--", "sh", "-c", &script])
        .stdin(Stdio::piped())
        .spawn()
        .expect("start rtrace");
    let mut tracer = Stop(tracer);
    // The -p process is in the table before the command is started.
    for _ in 0..600 {
        if started.exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(started.exists(), "the command did not start");
    burst();
    // SAFETY: plain kill.
    unsafe { libc::kill(tracer.0.id() as i32, libc::SIGINT) };
    // rtrace takes the ^C within its 10 ms poll; a second of margin.
    std::thread::sleep(Duration::from_secs(1));
    burst();
    tracer.0.stdin.take().unwrap().write_all(b"x\n").unwrap();
    let status = tracer.0.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    drop(to_target);
    assert!(target.wait().unwrap().success());
    let text = std::fs::read_to_string(&out).unwrap();
    let calls: Vec<&str> = text
        .lines()
        .filter(|l| l.ends_with(" sched_yield"))
        .map(|l| l.split_whitespace().nth(3).unwrap_or(""))
        .collect();
    assert_eq!(calls, ["1000"], "{text}");
}

/// The lossless mode: with the same small ring, every call is shown, and
/// the stops that held the program back are not.
#[test]
fn the_lossless_mode_loses_nothing() {
    let bin = fixture("call_loop");
    let run = trace(
        &["--bpf", "--bpf-ring", "16K", "--bpf-lossless"],
        &[name(&bin), "200000"],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let calls = run
        .trace
        .lines()
        .filter(|l| {
            l.strip_prefix("getppid() = ")
                .is_some_and(|r| r.parse::<u32>().is_ok())
        })
        .count();
    assert_eq!(calls, 200000);
    for line in run.trace.lines() {
        assert!(
            !line.contains("events lost") && !line.contains("SIGSTOP") && !line.contains("SIGCONT"),
            "{line}"
        );
    }
    assert!(run.trace.ends_with("Process exited normally with code 0\n"));
}

#[test]
fn bad_uses_fail_with_one_line() {
    let cases: &[(&[&str], &str, i32)] = &[
        (
            &["--bpf"],
            "rtrace: nothing to trace: give a COMMAND, -p PID or -a (see rtrace --help)",
            2,
        ),
        (
            &["--bpf", "--bpf-ring", "5000", "true"],
            "'5000' is not a power of two from 4K to 1G",
            2,
        ),
        (
            &["-a", "true"],
            "rtrace: -a needs --bpf (ptrace cannot see the whole machine)",
            2,
        ),
        (
            &["--bpf-lossless", "true"],
            "rtrace: --bpf-lossless needs --bpf (ptrace loses nothing: it stops the tracee at each call)",
            2,
        ),
        (
            &["--bpf-ring", "64K", "true"],
            "rtrace: --bpf-ring needs --bpf (ptrace has no ring buffer)",
            2,
        ),
        (
            &["--bpf", "--same-cpu", "true"],
            "rtrace: --same-cpu is for the ptrace engine: --bpf never stops or holds the tracee",
            2,
        ),
        (
            &["--bpf", "-a", "--bpf-lossless"],
            "rtrace: --bpf-lossless cannot be used with -a: it would stop the processes rtrace's own output goes through",
            2,
        ),
    ];
    for (args, expect, code) in cases {
        let out = rtrace_env().args(*args).output().expect("run rtrace");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(*code), "{args:?}: {stderr}");
        assert!(stderr.contains(expect), "{args:?}: {stderr}");
    }
    // Without privilege: one line saying what is missing.
    let out = unsafe_as_nobody(&["--bpf", "true"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("rtrace: --bpf: ")
            && stderr.contains("needs root, or CAP_BPF and CAP_PERFMON"),
        "{stderr}"
    );
}

/// The command is forked before the program loads, to wait there: when
/// rtrace cannot trace it (no privilege to load, a `-p` it cannot attach
/// to), it must never run, untraced.
#[test]
fn a_command_that_cannot_be_traced_never_runs() {
    use std::os::unix::fs::PermissionsExt;
    let dir = common::scratch_path("bpf", "never_runs");
    std::fs::create_dir_all(&dir).unwrap();
    // Writable by nobody, so that only rtrace's refusal keeps the file
    // from being made.
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let made = dir.join("made");
    let touch = ["touch", made.to_str().unwrap()];
    let out = unsafe_as_nobody(&[&["--bpf"][..], &touch].concat());
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let out = rtrace_env()
        .args(["--bpf", "-p", "999999999"])
        .args(touch)
        .output()
        .expect("run rtrace");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    std::thread::sleep(Duration::from_millis(200));
    assert!(!made.exists(), "the command ran");
    let _ = std::fs::remove_dir_all(&dir);
}

/// rtrace run as user nobody.
fn unsafe_as_nobody(args: &[&str]) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    let mut cmd = rtrace_env();
    cmd.args(args);
    // SAFETY: setgid/setuid in the child before exec.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setgid(65534) != 0 || libc::setuid(65534) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.output().expect("run rtrace as nobody")
}

/// The committed object is what tools/build_bpf.sh builds from the source,
/// where clang is installed (CI installs it).
#[test]
fn the_committed_object_is_what_its_source_builds_to() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Ok(clang) = Command::new("clang").arg("--version").output() else {
        eprintln!("skipped: no clang to rebuild bpf/rtrace.bpf.o with");
        return;
    };
    let installed = String::from_utf8_lossy(&clang.stdout);
    let used = std::fs::read_to_string(root.join("bpf/rtrace.bpf.o.clang")).unwrap();
    if installed.lines().next() != used.lines().next() {
        eprintln!("skipped: bpf/rtrace.bpf.o was built by {used} and this is {installed}");
        return;
    }
    let out = common::scratch_path("bpf", "rtrace.bpf.o");
    let status = Command::new("sh")
        .arg(root.join("tools/build_bpf.sh"))
        .arg(&out)
        .status()
        .expect("run tools/build_bpf.sh");
    assert!(status.success());
    let built = std::fs::read(&out).unwrap();
    let committed = std::fs::read(root.join("bpf/rtrace.bpf.o")).unwrap();
    assert!(
        built == committed,
        "bpf/rtrace.bpf.o is not what bpf/rtrace.bpf.c builds to: run tools/build_bpf.sh and commit it"
    );
}

/// The pid each line of a raw trace (`run.trace`, pids not normalised)
/// belongs to, with the line less its prefix: a line without one is the
/// last named process's, the started command's (its banner) before any.
fn raw_pids(trace: &str) -> Vec<(u32, String)> {
    let mut current = 0;
    let mut out = Vec::new();
    for line in trace.lines() {
        let text = match line.split_once(['|', '\'']) {
            Some((pid, rest)) if pid.parse::<u32>().is_ok() => {
                current = pid.parse().expect("a pid");
                rest.trim_start().trim_start_matches('*')
            }
            _ => line,
        };
        if let Some(banner) = text.strip_prefix("Tracing ")
            && current == 0
        {
            let pid = banner.rsplit_once("(pid ").expect("a banner's pid").1;
            current = pid.trim_end_matches(')').parse().expect("a pid");
        }
        out.push((current, text.to_string()));
    }
    out
}

/// rtrace in a pid namespace of its own, as in a container: every pid
/// the trace shows is the namespace's, the one the calls return (gettid()
/// on the line of that tid, getpid() the process's, the child's pid from
/// fork and wait), a thread's exec included, under both engines. The BPF
/// engine knew tasks by the initial namespace's ids and traced nothing
/// of the command it started in one.
#[test]
fn in_a_pid_namespace_the_trace_names_tasks_by_its_ids() {
    let bin = fixture("ns_ids");
    for engine in [&[][..], &["--bpf"][..]] {
        let mut args = engine.to_vec();
        args.extend(["-f", "-e", "trace=getpid,gettid,clone,execve,wait4"]);
        let run = common::trace_under(&["unshare", "-pf", "--mount-proc"], &args, &[name(&bin)]);
        assert_eq!(run.code(), Some(0), "{engine:?}: {}", run.stderr());
        let lines = raw_pids(&run.trace);
        let result = |call: &str| {
            lines
                .iter()
                .filter_map(|(pid, l)| {
                    let value = l.strip_prefix(call)?.rsplit_once(" = ")?.1;
                    Some((*pid, value.parse::<u32>().ok()?))
                })
                .collect::<Vec<_>>()
        };
        let root = lines[0].0;
        let child = result("clone(CLONE_CHILD_CLEARTID")
            .into_iter()
            .find(|&(pid, value)| pid == root && value != 0)
            .unwrap_or_else(|| panic!("{engine:?}: no fork in\n{}", run.trace))
            .1;
        let gettids = result("gettid()");
        assert_eq!(gettids.len(), 3, "{engine:?}:\n{}", run.trace);
        for (pid, tid) in &gettids {
            assert_eq!(
                pid, tid,
                "{engine:?}: gettid() of {tid} on {pid}'s line:\n{}",
                run.trace
            );
        }
        let getpids: Vec<u32> = result("getpid()").into_iter().map(|(_, v)| v).collect();
        assert_eq!(getpids, [root, child, child], "{engine:?}:\n{}", run.trace);
        // The thread's exec: the new program is the child's, under its pid.
        assert!(
            lines
                .iter()
                .any(|(pid, l)| *pid == child && l == &format!("Tracing exe again (pid {child})")),
            "{engine:?}:\n{}",
            run.trace
        );
        assert!(
            lines.iter().any(|(pid, l)| *pid == root
                && l.starts_with(&format!("wait4({child}, NULL, 0, NULL) = {child}"))),
            "{engine:?}:\n{}",
            run.trace
        );
    }
}

/// rtrace's run, given at most 30 s: its exit status, or a failure naming
/// `what` if it had not ended by then (a hang).
fn ends_within_30s(mut cmd: Command, what: &str) -> std::process::ExitStatus {
    let mut child = Stop(cmd.spawn().expect("start rtrace"));
    for _ in 0..600 {
        if let Some(status) = child.0.try_wait().expect("wait for rtrace") {
            return status;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("{what}: rtrace had not ended after 30 s");
}

/// `-a` with a command traces the machine while the command runs, and
/// ends with it, with its status (as `perf trace -a CMD` does): it ran on
/// until interrupted.
#[test]
fn a_system_wide_trace_with_a_command_ends_with_it() {
    let out = common::scratch_path("bpf", "all_cmd.txt");
    let mut cmd = rtrace_env();
    cmd.args(["--bpf", "-a", "-e", "trace=exit_group", "-o"])
        .arg(&out)
        .args(["sh", "-c", "exit 3"]);
    let status = ends_within_30s(cmd, "rtrace --bpf -a sh -c 'exit 3'");
    assert_eq!(status.code(), Some(3));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.lines()
            .any(|l| l.ends_with("Process exited normally with code 3")),
        "{text}"
    );
}

/// `-a` in a pid namespace of its own (a container) traces the
/// namespace's processes, not the machine's others, which have no pid
/// there: a process outside that makes calls all along is not seen, one
/// inside is. It saw every process, by pids of the initial namespace.
#[test]
fn in_a_pid_namespace_a_system_wide_trace_sees_only_its_processes() {
    let bin = fixture("call_loop");
    let host_probe = format!("/nonexistent/rtrace-host-{}", std::process::id());
    let ns_probe = format!("/nonexistent/rtrace-ns-{}", std::process::id());
    let looping = format!(
        "while :; do {} 1 {host_probe}; sleep 0.01; done",
        bin.display()
    );
    let _host = Stop(
        Command::new("sh")
            .args(["-c", &looping])
            .spawn()
            .expect("start the host's loop"),
    );
    let out = common::scratch_path("bpf", "ns_all.txt");
    let inside = format!("sleep 0.3; {} 1 {ns_probe}; sleep 0.3", bin.display());
    let mut cmd = Command::new("unshare");
    cmd.args(["-pf", "--mount-proc"])
        .arg(env!("CARGO_BIN_EXE_rtrace"))
        .args(["--bpf", "-a", "-e", "trace=open,openat", "-o"])
        .arg(&out)
        .args(["sh", "-c", &inside]);
    let status = ends_within_30s(cmd, "rtrace --bpf -a in a pid namespace");
    assert_eq!(status.code(), Some(0));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains(&format!("\"{ns_probe}\"")), "{text}");
    assert!(!text.contains(&host_probe), "{text}");
}

/// A string with no NUL before an unmapped page (strace's tests put their
/// strings at a page's end): the bytes up to the page, unterminated, as
/// ptrace reads them, in a path longer than a page's copy and in short
/// strings. The BPF engine's string copy failed whole, and showed the
/// pointer.
#[test]
fn a_string_that_runs_into_an_unmapped_page_shows_its_readable_bytes() {
    // Compared whole, not as `compare` does: a string shown as a pointer
    // is a listed difference there (a page nothing had touched).
    for args in [&[][..], &["-s", "3"][..]] {
        let (ptrace, bpf) = both(&fixture("page_end_strings"), args);
        let calls = |lines: &[String]| -> Vec<String> {
            lines
                .iter()
                .filter(|l| {
                    ["chdir(", "memfd_create(", "add_key("]
                        .iter()
                        .any(|c| l.starts_with(c))
                })
                .cloned()
                .collect()
        };
        assert_eq!(calls(&ptrace).len(), 5, "{ptrace:#?}");
        assert!(
            !calls(&ptrace).iter().any(|l| l.contains("&ADDR")),
            "{ptrace:#?}"
        );
        assert_eq!(calls(&bpf), calls(&ptrace), "{args:?}");
    }
}

/// get_robust_list's head, written through a `struct robust_list_head
/// **`: copied as the one pointer it is. The plan had no copy for a
/// pointer to a pointer (the head showed as its address), unless the
/// length's copy after it happened to cover it.
#[test]
fn a_pointer_written_through_a_pointer_to_a_pointer_is_shown() {
    let (ptrace, bpf) = both(&fixture("robust_list"), &[]);
    let calls = |lines: &[String]| -> Vec<String> {
        lines
            .iter()
            .filter(|l| l.starts_with("get_robust_list("))
            .cloned()
            .collect()
    };
    assert_eq!(calls(&ptrace).len(), 2, "{ptrace:#?}");
    assert!(
        calls(&ptrace)
            .iter()
            .all(|l| l.contains(", [&ADDR], [24]) = 0")),
        "{ptrace:#?}"
    );
    assert_eq!(calls(&bpf), calls(&ptrace));
}
