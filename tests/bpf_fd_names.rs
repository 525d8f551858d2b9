//! `-y` under the BPF engine names each fd as it was at its call. The
//! engine prints a call after it ran, and the process may by then have
//! closed the fd and opened it again on another file, or changed
//! directory: /proc's answer is shown only while it leads to the file the
//! kernel saw at the call, otherwise the fd table's path (what the calls
//! before it opened), otherwise the number.
//!
//! The fixture runs its calls while rtrace is stopped, so rtrace reads
//! them only once fd 3 is the second file and the directory is another:
//! without the check every line would name the second file.

mod common;

use common::{assert_lines, fixture, name, normalise, rtrace_env, scratch_path};
use std::io::Write;
use std::process::Stdio;

/// Wait until `pid` is blocked reading fd 0 (its /proc syscall line is
/// `0 0x0 ...`: read(2) on stdin) with `cwd` its working directory.
fn wait_blocked_on_stdin(pid: u32, cwd: &std::path::Path) {
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

/// The traced fixture's pid: rtrace's only child.
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

#[test]
fn a_reused_fd_and_a_changed_directory_show_what_they_were() {
    if !common::root_or_skip("bpf_fd_names", "the BPF engine") {
        return;
    }
    let bin = fixture("fd_reuse");
    let dir = scratch_path("bpf_fd_names", "files");
    std::fs::create_dir_all(&dir).unwrap();
    let (first, second) = (dir.join("first"), dir.join("second"));
    std::fs::write(&first, "one").unwrap();
    std::fs::write(&second, "two").unwrap();
    let out = scratch_path("bpf_fd_names", "trace");
    let mut rtrace = rtrace_env()
        .args(["--bpf", "-y", "-e", "trace=openat,read,close,chdir", "-o"])
        .arg(&out)
        .arg(name(&bin))
        .arg(&first)
        .arg(&second)
        .arg("/")
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rtrace runs");
    let fixture_pid = child_of(rtrace.id());
    wait_blocked_on_stdin(fixture_pid, &dir);
    // rtrace stopped, the fixture makes its calls; rtrace reads them
    // when continued, with fd 3 the second file and the directory /.
    let rtrace_pid = nix::unistd::Pid::from_raw(rtrace.id() as i32);
    nix::sys::signal::kill(rtrace_pid, nix::sys::signal::Signal::SIGSTOP).unwrap();
    let mut stdin = rtrace.stdin.take().unwrap();
    stdin.write_all(b"x").unwrap();
    stdin.flush().unwrap();
    // Its second wait on stdin, in /, comes after every call of interest.
    wait_blocked_on_stdin(fixture_pid, std::path::Path::new("/"));
    nix::sys::signal::kill(rtrace_pid, nix::sys::signal::Signal::SIGCONT).unwrap();
    // The fixture stays, fd 3 still the second file, until rtrace has
    // written the calls.
    for _ in 0..2000 {
        if std::fs::read_to_string(&out).is_ok_and(|t| t.contains("chdir(")) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    drop(stdin);
    let status = rtrace.wait().expect("rtrace ends");
    assert!(status.success(), "rtrace failed");
    let trace = std::fs::read_to_string(&out).unwrap();
    let lines = normalise(&trace);
    let start = lines
        .iter()
        .position(|l| l.contains("\"first\"") || l.contains("/first\""))
        .unwrap_or_else(|| panic!("no open of the first file:\n{trace}"));
    let (first, second) = (first.display(), second.display());
    assert_lines(
        &lines[start..start + 6],
        &[
            // Its working directory was the scratch directory, not / (now):
            // left out; fd 3 is now the second file: the result bare.
            format!("openat(AT_FDCWD, \"{first}\", O_RDONLY) = 3"),
            // The table's path for fd 3: what the open before opened.
            format!("read(3<{first}>, \"one\", 3) = 3"),
            format!("close(3<{first}>) = 0"),
            // Still the file the kernel saw: /proc's name.
            format!("openat(AT_FDCWD, \"{second}\", O_RDONLY) = 3<{second}>"),
            format!("read(3<{second}>, \"two\", 3) = 3"),
            "chdir(\"/\") = 0".to_string(),
        ],
    );
}
