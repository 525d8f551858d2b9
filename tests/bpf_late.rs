//! What the BPF engine shows of calls it reads after they ran. By then the
//! process may have closed an fd and opened it again on another file,
//! changed directory or exec'd another program: `-y` shows /proc's name
//! only while it leads to the file the kernel saw at the call (else the fd
//! table's path, else the number), and a new process's banner has its
//! parent's arguments, not those /proc shows later.
//!
//! Each command runs its calls while rtrace is stopped, so that rtrace
//! reads them only afterwards: without the checks, every line named the
//! second file, and the child's banner the program it exec'd.

mod common;

use common::{assert_lines, assert_lines_in, fixture, name, normalise, rtrace_env, scratch_path};
use std::io::Write;
use std::path::Path;
use std::process::Stdio;

/// Wait until `pid` is blocked reading fd 0 (its /proc syscall line is
/// `0 0x0 ...`: read(2) on stdin) with `cwd` its working directory.
fn wait_blocked_on_stdin(pid: u32, cwd: &Path) {
    for _ in 0..2000 {
        let now = std::fs::read_to_string(format!("/proc/{pid}/syscall")).unwrap_or_default();
        let here = std::fs::read_link(format!("/proc/{pid}/cwd")).unwrap_or_default();
        if now.starts_with("0 0x0 ") && here == cwd {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    panic!("pid {pid} never blocked reading stdin in {}", cwd.display());
}

/// The traced command's pid: rtrace's only child.
fn child_of(pid: u32) -> u32 {
    for _ in 0..2000 {
        let children =
            std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
        if let Some(child) = children.split_whitespace().next() {
            return child.parse().expect("a pid");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    panic!("rtrace started no child");
}

/// The normalised trace of `rtrace --bpf OPTIONS COMMAND`, run in `dir`.
/// The command first waits for a byte on stdin, then makes the calls of
/// interest, moves to / and waits for stdin to close: rtrace is stopped
/// from the byte until the command waits in /, and the command waits
/// there until rtrace has written a line containing `last`. Its stdout is
/// `stdout`.
fn traced_late(
    options: &[&str],
    command: &[&str],
    dir: &Path,
    last: &str,
    stdout: Stdio,
) -> Vec<String> {
    let out = scratch_path("bpf_late", "trace");
    let mut rtrace = rtrace_env()
        .arg("--bpf")
        .args(options)
        .arg("-o")
        .arg(&out)
        .args(command)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .expect("rtrace runs");
    let traced = child_of(rtrace.id());
    wait_blocked_on_stdin(traced, dir);
    let rtrace_pid = nix::unistd::Pid::from_raw(rtrace.id() as i32);
    nix::sys::signal::kill(rtrace_pid, nix::sys::signal::Signal::SIGSTOP).unwrap();
    let mut stdin = rtrace.stdin.take().unwrap();
    stdin.write_all(b"x\n").unwrap();
    stdin.flush().unwrap();
    wait_blocked_on_stdin(traced, Path::new("/"));
    nix::sys::signal::kill(rtrace_pid, nix::sys::signal::Signal::SIGCONT).unwrap();
    for _ in 0..2000 {
        if std::fs::read_to_string(&out).is_ok_and(|t| t.contains(last)) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    drop(stdin);
    let status = rtrace.wait().expect("rtrace ends");
    assert!(status.success(), "rtrace failed");
    normalise(&std::fs::read_to_string(&out).unwrap())
}

#[test]
fn a_reused_fd_and_a_changed_directory_show_what_they_were() {
    if !common::root_or_skip("bpf_late", "the BPF engine") {
        return;
    }
    let bin = fixture("fd_reuse");
    let dir = scratch_path("bpf_late", "files");
    std::fs::create_dir_all(&dir).unwrap();
    let (first, second) = (dir.join("first"), dir.join("second"));
    std::fs::write(&first, "one").unwrap();
    std::fs::write(&second, "two").unwrap();
    let (first, second) = (first.display().to_string(), second.display().to_string());
    let lines = traced_late(
        &["-y", "-e", "trace=openat,read,close,chdir"],
        &[name(&bin), &first, &second, "/"],
        &dir,
        "chdir(",
        Stdio::inherit(),
    );
    let start = lines
        .iter()
        .position(|l| l.contains("/first\""))
        .unwrap_or_else(|| panic!("no open of the first file:\n{lines:#?}"));
    let cwd = std::fs::canonicalize(&dir).unwrap().display().to_string();
    assert_lines(
        &lines[start..start + 6],
        &[
            // Its working directory was the scratch directory, not / (now):
            // the one rtrace saw it start in, no chdir since. fd 3 is now
            // the second file, but the path it opened still leads to the
            // file the kernel saw: named so.
            format!("openat(AT_FDCWD<{cwd}>, \"{first}\", O_RDONLY) = 3<{first}>"),
            // The table's path for fd 3: what the open before opened.
            format!("read(3<{first}>, \"one\", 3) = 3"),
            format!("close(3<{first}>) = 0"),
            // Still the file the kernel saw: /proc's name.
            format!("openat(AT_FDCWD<{cwd}>, \"{second}\", O_RDONLY) = 3<{second}>"),
            format!("read(3<{second}>, \"two\", 3) = 3"),
            "chdir(\"/\") = 0".to_string(),
        ],
    );
}

#[test]
fn a_child_that_exec_d_since_is_announced_with_its_parent_s_arguments() {
    if !common::root_or_skip("bpf_late", "the BPF engine") {
        return;
    }
    let dir = scratch_path("bpf_late", "exec");
    std::fs::create_dir_all(&dir).unwrap();
    let script = "read x; (exec true one two); cd /; read y; exit 0";
    let lines = traced_late(
        &["-f", "-e", "trace=chdir"],
        &["sh", "-c", script],
        &dir,
        "Tracing true",
        Stdio::inherit(),
    );
    let banners: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.split_once("Tracing ").map(|(_, b)| b))
        .collect();
    assert_eq!(
        banners,
        [
            "sh -c \"read x; (exec true one two); c\".. (pid PID1)",
            "sh -c \"read x; (exec true one two); c\".. (pid PID2)",
            "true one two (pid PID2)",
        ],
        "{lines:#?}"
    );
}

/// An fd the command had from the start (its stdout, a file), closed
/// before rtrace reads the calls: named from the fd table, which the
/// command's fds fill while it waits to exec, as ptrace names it.
#[test]
fn an_inherited_fd_closed_since_keeps_its_name() {
    if !common::root_or_skip("bpf_late", "the BPF engine") {
        return;
    }
    let dir = scratch_path("bpf_late", "inherited");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("stdout.txt");
    let stdout = std::fs::File::create(&file).unwrap();
    let script = "read x; echo hi; exec >&-; cd /; read y; exit 0";
    let lines = traced_late(
        &["-y", "-e", "trace=write,chdir"],
        &["sh", "-c", script],
        &dir,
        "chdir(",
        Stdio::from(stdout),
    );
    let writes: Vec<&String> = lines.iter().filter(|l| l.starts_with("write(")).collect();
    assert_eq!(
        writes,
        [&format!("write(1<{}>, \"hi\\n\", 3) = 3", file.display())],
        "{lines:#?}"
    );
}

#[test]
fn an_anonymous_inode_replaced_since_keeps_its_own_name() {
    if !common::root_or_skip("bpf_late", "the BPF engine") {
        return;
    }
    let bin = fixture("anon_reuse");
    let dir = scratch_path("bpf_late", "anon");
    std::fs::create_dir_all(&dir).unwrap();
    let lines = traced_late(
        &[
            "-y",
            "-e",
            "trace=eventfd2,write,close,timerfd_create,chdir",
        ],
        &[name(&bin), "/"],
        &dir,
        "chdir(",
        Stdio::inherit(),
    );
    let start = lines
        .iter()
        .position(|l| l.starts_with("eventfd2("))
        .unwrap_or_else(|| panic!("no eventfd2:\n{lines:#?}"));
    // /proc's fd 3 is the timerfd by the time rtrace reads these: the same
    // inode as the eventfd (every anonymous inode is one), another name.
    assert_lines(
        &lines[start..start + 5],
        &[
            "eventfd2(0, 0) = 3<anon_inode:[eventfd]>",
            "write(3<anon_inode:[eventfd]>, \"\\1\\0\\0\\0\\0\\0\\0\\0\", 8) = 8",
            "close(3<anon_inode:[eventfd]>) = 0",
            "timerfd_create(CLOCK_MONOTONIC, 0) = 3<anon_inode:[timerfd]>",
            "chdir(\"/\") = 0",
        ]
        .map(String::from),
    );
}

#[test]
fn a_path_replaced_since_still_names_the_file_it_opened() {
    if !common::root_or_skip("bpf_late", "the BPF engine") {
        return;
    }
    let bin = fixture("replaced_file");
    let dir = scratch_path("bpf_late", "replaced");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("file");
    std::fs::write(&file, "old").unwrap();
    let file = file.display().to_string();
    let lines = traced_late(
        &["-y", "-e", "trace=openat,close,rename,chdir"],
        &[name(&bin), &file, "/"],
        &dir,
        "chdir(",
        Stdio::inherit(),
    );
    let cwd = std::fs::canonicalize(&dir).unwrap().display().to_string();
    let at = format!("AT_FDCWD<{cwd}>");
    let start = lines
        .iter()
        .position(|l| l.starts_with(&format!("openat({at}, \"{file}\", O_RDONLY)")))
        .unwrap_or_else(|| panic!("no open of the file:\n{lines:#?}"));
    assert_lines(
        &lines[start..start + 5],
        &[
            // fd 3 and the path are both the new file's now, but the
            // path the open took was the old file's name at the call, as
            // ptrace shows it.
            format!("openat({at}, \"{file}\", O_RDONLY) = 3<{file}>"),
            // The fd table's path: what the open before opened.
            format!("close(3<{file}>) = 0"),
            // The file it opened, under its name now (/proc's).
            format!("openat({at}, \"{file}.new\", O_WRONLY|O_CREAT|O_EXCL, 0600) = 3<{file}>"),
            format!("rename(\"{file}.new\", \"{file}\") = 0"),
            "chdir(\"/\") = 0".to_string(),
        ],
    );
}

/// fds closed before rtrace reads the calls: named from the fd table in
/// a set of fds as in an argument, and /proc/self/... as the process's
/// own /proc entry (rtrace's own /proc/self is another file), as ptrace
/// names them.
#[test]
fn a_closed_fd_in_a_set_and_proc_self_keep_their_names() {
    if !common::root_or_skip("bpf_late", "the BPF engine") {
        return;
    }
    let bin = fixture("fd_sets_late");
    let dir = scratch_path("bpf_late", "sets");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("file");
    std::fs::write(&file, "data").unwrap();
    let file = file.display().to_string();
    let lines = traced_late(
        &["-y", "-e", "trace=openat,select,pselect6,close,chdir"],
        &[name(&bin), &file, "/"],
        &dir,
        "chdir(",
        Stdio::inherit(),
    );
    // No banner names the command's pid: its /proc directory, by hand.
    let lines: Vec<String> = lines
        .iter()
        .map(|l| match l.split_once("</proc/") {
            Some((head, tail)) => {
                let rest = tail.trim_start_matches(|c: char| c.is_ascii_digit());
                format!("{head}</proc/PID{rest}")
            }
            None => l.clone(),
        })
        .collect();
    let cwd = std::fs::canonicalize(&dir).unwrap().display().to_string();
    let start = lines
        .iter()
        .position(|l| l.contains("\"/proc/self/status\""))
        .unwrap_or_else(|| panic!("no open of /proc/self/status:\n{lines:#?}"));
    assert_lines(
        &lines[start..start + 6],
        &[
            format!(
                "openat(AT_FDCWD<{cwd}>, \"/proc/self/status\", O_RDONLY) = 3</proc/PID/status>"
            ),
            format!("openat(AT_FDCWD<{cwd}>, \"{file}\", O_RDONLY) = 4<{file}>"),
            format!(
                "pselect6(5, [4<{file}>], NULL, NULL, {{tv_sec=0, tv_nsec=0}}, NULL) = 1 \
                 {{readfds=[4<{file}>], left={{tv_sec=0, tv_nsec=0}}}}"
            ),
            format!("close(4<{file}>) = 0"),
            "close(3</proc/PID/status>) = 0".to_string(),
            "chdir(\"/\") = 0".to_string(),
        ],
    );
}

/// An fd whose opening call names no file (a pty's peer, from
/// TIOCGPTPEER) is named once a call that uses it carries an identity
/// /proc vouches for: a child's close, read after the child has gone,
/// names it from the table it inherited, as ptrace names it.
#[test]
fn an_fd_an_ioctl_returned_is_named_where_its_use_vouched_for_it() {
    if !common::root_or_skip("bpf_late", "the BPF engine") {
        return;
    }
    let bin = fixture("pty_peer");
    let out = scratch_path("bpf_late", "pty");
    let mut rtrace = rtrace_env()
        .args(["--bpf", "-f", "-y", "-e", "trace=ioctl,close", "-o"])
        .arg(&out)
        .arg(&bin)
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rtrace runs");
    let mut seen = String::new();
    for _ in 0..2000 {
        seen = std::fs::read_to_string(&out).unwrap_or_default();
        if seen.contains("exited") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    drop(rtrace.stdin.take());
    assert!(rtrace.wait().expect("rtrace ends").success(), "{seen}");
    let lines = normalise(&std::fs::read_to_string(&out).unwrap());
    let close = lines
        .iter()
        .find(|l| l.contains("close(4"))
        .unwrap_or_else(|| panic!("no close of the peer:\n{lines:#?}"));
    let pts = lines
        .iter()
        .find_map(|l| l.split_once("ioctl(4</dev/pts/").map(|(_, r)| r))
        .and_then(|r| r.split_once('>'))
        .map(|(n, _)| n)
        .unwrap_or_else(|| panic!("the peer's TCGETS is not named:\n{lines:#?}"));
    assert!(
        close.ends_with(&format!("close(4</dev/pts/{pts}>) = 0")),
        "{lines:#?}"
    );
}

/// A pty's peer from TIOCGPTPEER (an ioctl whose result is a new fd)
/// made another file at once, as `login_tty` does: the kernel's identity
/// of the new fd, sent at the ioctl's exit with or without `-y`, names
/// it, so TCSETS (a code OSS's SNDCTL_TMR_START shares, which only the
/// fd's file tells apart) is named as ptrace names it from /proc at the
/// stop, and `-y` shows the peer's path; under both engines, whole lines.
#[test]
fn a_pty_peer_moved_at_once_names_its_requests_as_ptrace_does() {
    if !common::root_or_skip("bpf_late", "the BPF engine") {
        return;
    }
    let bin = fixture("pty_peer_moved");
    let termios = "{c_iflag=ICRNL|IXON, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|OPOST|ONLCR, \
                   c_cflag=B38400|CS8|CREAD, c_lflag=ISIG|ICANON|ECHO|ECHOE|ECHOK|ECHOCTL|\
                   ECHOKE|IEXTEN, ..}";
    if common::trace(&["-e", "trace=none"], &[name(&bin)]).code() == Some(1) {
        eprintln!("no pseudoterminals here: test skipped");
        return;
    }
    for y in [false, true] {
        let mut runs = Vec::new();
        for engine in [&[][..], &["--bpf"]] {
            let mut args = vec!["-e", "trace=ioctl,write,dup2"];
            if y {
                args.push("-y");
            }
            args.extend_from_slice(engine);
            let run = common::trace(&args, &[name(&bin)]);
            assert_eq!(run.code(), Some(0), "{engine:?}: {}", run.stderr());
            runs.push((engine, run.after_marker()));
        }
        // The peer's number, as ptrace's /proc read named it.
        let pts = runs[0]
            .1
            .iter()
            .find_map(|l| {
                l.split_once("= 4</dev/pts/")
                    .map(|(_, r)| r.trim_end_matches('>'))
            })
            .unwrap_or("N")
            .to_string();
        let expected: Vec<String> = if y {
            vec![
                "write(-1, \"BEGIN\", 5) = -1 [EBADF]".to_string(),
                format!("ioctl(3</dev/ptmx>, TIOCGPTPEER, O_RDWR|O_NOCTTY) = 4</dev/pts/{pts}>"),
                format!("ioctl(4</dev/pts/{pts}>, TCGETS, {termios}) = 0"),
                format!("ioctl(4</dev/pts/{pts}>, TCSETS, {termios}) = 0"),
                format!("dup2(5</dev/null>, 4</dev/pts/{pts}>) = 4</dev/null>"),
                "Process exited normally with code 0".to_string(),
            ]
        } else {
            vec![
                "write(-1, \"BEGIN\", 5) = -1 [EBADF]".to_string(),
                "ioctl(3, TIOCGPTPEER, O_RDWR|O_NOCTTY) = 4".to_string(),
                format!("ioctl(4, TCGETS, {termios}) = 0"),
                format!("ioctl(4, TCSETS, {termios}) = 0"),
                "dup2(5, 4) = 4".to_string(),
                "Process exited normally with code 0".to_string(),
            ]
        };
        for (engine, lines) in &runs {
            assert_lines_in(lines, &expected, &format!("-y {y} {engine:?}"));
        }
    }
}

/// A call's memory the kernel never read (a constant in a page nothing
/// had touched; the write failed first) is read from the live process
/// only while it runs the same program: read after the process exec'd
/// a program with other bytes at that address, it is the pointer, never
/// the new program's bytes.
#[test]
fn memory_read_after_an_exec_is_never_the_new_program_s() {
    if !common::root_or_skip("bpf_late", "the BPF engine") {
        return;
    }
    let static_exe = ["-static", "-no-pie"];
    let first = common::fixture_with("exec_late", "exec_late_first", &static_exe);
    let second = common::fixture_with(
        "exec_late",
        "exec_late_second",
        &["-static", "-no-pie", "-DWORD=\"second\""],
    );
    let dir = scratch_path("bpf_late", "exec_late");
    std::fs::create_dir_all(&dir).unwrap();
    let second = second.display().to_string();
    let lines = traced_late(
        &["-e", "trace=write,chdir"],
        &[name(&first), &second],
        &dir,
        "chdir(",
        Stdio::inherit(),
    );
    let write = lines
        .iter()
        .find(|l| l.starts_with("write(-1, "))
        .unwrap_or_else(|| panic!("no write:\n{lines:#?}"));
    assert!(
        write.starts_with("write(-1, &") && write.ends_with(", 8) = -1 [EBADF]"),
        "{lines:#?}"
    );
}
