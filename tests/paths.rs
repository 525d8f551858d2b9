//! `-P PATH` / `--trace-path` and `--trace-fds`: only the calls that touch
//! given files, traced against a fixture that reaches one file every way
//! a call can (tests/fixtures/trace_path.c).

mod common;

use common::{USBMON_RECORDING, fixture, name, normalise, rtrace_env, scratch_path};
use std::path::{Path, PathBuf};

/// The files the fixture works on: a traced file in its own directory, a
/// symlink to it and another file.
struct Files {
    dir: PathBuf,
    traced: PathBuf,
    other: PathBuf,
    link: PathBuf,
}

fn files(tag: &str) -> Files {
    let dir = scratch_path("paths", tag);
    std::fs::create_dir_all(&dir).unwrap();
    let traced = dir.join("traced");
    let other = dir.join("other");
    let link = dir.join("link");
    std::fs::write(&traced, "abcdefghi").unwrap();
    std::fs::write(&other, "xyz").unwrap();
    std::os::unix::fs::symlink(&traced, &link).unwrap();
    Files {
        dir,
        traced,
        other,
        link,
    }
}

/// Run rtrace with `args` on the fixture, its stdin the traced file
/// (opened here, before tracing starts); the trace's lines, normalised,
/// with the scratch directory written `DIR`.
fn run(f: &Files, args: &[&str]) -> (Option<i32>, Vec<String>, String) {
    let bin = fixture("trace_path");
    let out = scratch_path("paths", "trace");
    let result = rtrace_env()
        .arg("-o")
        .arg(&out)
        .args(args)
        .arg(name(&bin))
        .args([&f.traced, &f.other, &f.dir])
        .arg("traced")
        .arg(&f.link)
        .stdin(std::fs::File::open(&f.traced).unwrap())
        .output()
        .unwrap();
    let trace = std::fs::read_to_string(&out).unwrap_or_default();
    let dir = f.dir.to_str().unwrap();
    let lines = normalise(&trace)
        .into_iter()
        .map(|l| l.replace(dir, "DIR"))
        .map(|l| match l.split_once("Tracing trace_path ") {
            // The banner's arguments are cut at -s, mid-directory.
            Some((head, tail)) => {
                let pid = tail.rsplit_once(" (pid ").map_or("", |(_, p)| p);
                format!("{head}Tracing trace_path ARGS (pid {pid}")
            }
            None => l,
        })
        .collect();
    (
        result.status.code(),
        lines,
        String::from_utf8_lossy(&result.stderr).into_owned(),
    )
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn trace_path_shows_the_calls_that_touch_the_file_across_a_fork() {
    let f = files("fork");
    let (code, lines, stderr) = run(&f, &["-f", "-P", path(&f.traced)]);
    assert_eq!(code, Some(0), "{stderr}");
    // Not the marker, the other file's calls, the directory's open,
    // chdir, fork, wait4 or the directory's close; the fd opened before
    // tracing (stdin), the path through a dirfd, the cwd and a symlink,
    // and the fd the child shares.
    assert_eq!(
        lines,
        [
            "Tracing trace_path ARGS (pid PID1)",
            "read(0, \"abc\", 3) = 3",
            "openat(AT_FDCWD, \"DIR/traced\", O_RDONLY) = 3",
            "read(3, \"abc\", 3) = 3",
            "openat(5, \"traced\", O_RDONLY) = 6",
            "openat(AT_FDCWD, \"DIR/link\", O_RDONLY) = 7",
            "openat(AT_FDCWD, \"traced\", O_RDONLY) = 8",
            "PID2| Tracing trace_path ARGS (pid PID2)",
            "PID2| read(3, \"def\", 3) = 3",
            "PID2| Process exited normally with code 0",
            "PID1' ** SIGCHLD **",
            "close(3) = 0",
            "close(6) = 0",
            "close(7) = 0",
            "close(8) = 0",
            "Process exited normally with code 0",
        ]
    );
}

#[test]
fn trace_path_combines_with_trace_and_with_trace_fds() {
    let f = files("combined");
    // Both must hold: reads of the traced file only; in both engines'
    // modes (the fast path stops only reads and the bookkeeping calls).
    for mode in ["--seccomp-bpf", "--no-seccomp-bpf"] {
        let (code, lines, stderr) =
            run(&f, &["-f", "-e", "trace=read", mode, "-P", path(&f.traced)]);
        assert_eq!(code, Some(0), "{stderr}");
        assert_eq!(
            lines,
            [
                "Tracing trace_path ARGS (pid PID1)",
                "read(0, \"abc\", 3) = 3",
                "read(3, \"abc\", 3) = 3",
                "PID2| Tracing trace_path ARGS (pid PID2)",
                "PID2| read(3, \"def\", 3) = 3",
                "PID2| Process exited normally with code 0",
                "PID1' ** SIGCHLD **",
                "Process exited normally with code 0",
            ],
            "{mode}"
        );
    }
    // An fd set alone, and with a path: calls that match either.
    let (code, lines, stderr) = run(&f, &["--trace-fds=4", "-e", "trace-fds=0"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        lines,
        [
            "Tracing trace_path ARGS (pid PID1)",
            "read(0, \"abc\", 3) = 3",
            "read(4, \"xyz\", 3) = 3",
            "** SIGCHLD **",
            "close(4) = 0",
            "Process exited normally with code 0",
        ]
    );
    let (code, lines, stderr) = run(
        &f,
        &[
            "-e",
            "trace=read",
            "-P",
            path(&f.other),
            "-e",
            "trace-fds=0",
        ],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        lines,
        [
            "Tracing trace_path ARGS (pid PID1)",
            "read(0, \"abc\", 3) = 3",
            "read(4, \"xyz\", 3) = 3",
            "** SIGCHLD **",
            "Process exited normally with code 0",
        ]
    );
}

#[test]
fn trace_path_hides_the_calls_from_the_summary_too() {
    let f = files("summary");
    let (code, lines, stderr) = run(
        &f,
        &[
            "-c",
            "-S",
            "name",
            "-e",
            "trace=read,close",
            "-P",
            path(&f.other),
        ],
    );
    assert_eq!(code, Some(0), "{stderr}");
    let calls: Vec<(String, String)> = lines
        .iter()
        .filter_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            let name = *words.last()?;
            ["read", "close"]
                .contains(&name)
                .then(|| (name.to_string(), words[3].to_string()))
        })
        .collect();
    assert_eq!(
        calls,
        [("close".into(), "1".into()), ("read".into(), "1".into())],
        "{lines:#?}"
    );
}

#[test]
fn bad_path_and_fd_sets_are_one_line_errors() {
    for (args, error) in [
        (
            &["-P"][..],
            "rtrace: a value is required for '--trace-path <PATH>' but none was supplied (see rtrace --help)\n",
        ),
        (
            &["-e", "trace-fds=a", "true"][..],
            "rtrace: --trace-fds: 'a' is not a file descriptor (a number from 0 up)\n",
        ),
        (
            &["--trace-fds=3,-1", "true"][..],
            "rtrace: --trace-fds: '-1' is not a file descriptor (a number from 0 up)\n",
        ),
    ] {
        let out = rtrace_env().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), error, "{args:?}");
    }
}

#[test]
fn trace_path_follows_an_emulated_usbmon_fd_into_a_forked_helper() {
    // Under the replay the fd is a memfd to the kernel; the program
    // opened /dev/usbmon0, which is what -P names. The stats request
    // takes in every recorded event (34), as the replay does.
    let bin = fixture("usbmon_fork");
    let run = common::trace(
        &[
            "-f",
            "--usbmon-replay",
            USBMON_RECORDING,
            "-P",
            "/dev/usbmon0",
        ],
        &[name(&bin)],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_eq!(
        run.lines(),
        [
            "Tracing usbmon_fork (pid PID1)",
            "openat(AT_FDCWD, \"/dev/usbmon0\", O_RDONLY) = 3",
            "PID2| Tracing usbmon_fork (pid PID2)",
            "PID2| ioctl(3, MON_IOCG_STATS, {queued=34, dropped=0}) = 0",
            "PID2| Process exited normally with code 0",
            "PID1' ** SIGCHLD **",
            "ioctl(3, MON_IOCQ_RING_SIZE) = 307200",
            "close(3) = 0",
            "Process exited normally with code 0",
        ]
    );
}

#[test]
fn an_unshown_open_still_tells_which_fd_is_the_device() {
    // -e trace=ioctl: the openat is neither selected nor printed, but its
    // bookkeeping records the fd's path, by which the ioctls match; with
    // the fast path too (openat is a bookkeeping call it stops).
    let bin = fixture("usbmon_fork");
    for mode in ["--seccomp-bpf", "--no-seccomp-bpf"] {
        let run = common::trace(
            &[
                "-f",
                mode,
                "-e",
                "trace=ioctl",
                "--usbmon-replay",
                USBMON_RECORDING,
                "-P",
                "/dev/usbmon0",
            ],
            &[name(&bin)],
        );
        assert_eq!(run.code(), Some(0), "{mode}: {}", run.stderr());
        assert_eq!(
            run.lines(),
            [
                "Tracing usbmon_fork (pid PID1)",
                "PID2| Tracing usbmon_fork (pid PID2)",
                "PID2| ioctl(3, MON_IOCG_STATS, {queued=34, dropped=0}) = 0",
                "PID2| Process exited normally with code 0",
                "PID1' ** SIGCHLD **",
                "ioctl(3, MON_IOCQ_RING_SIZE) = 307200",
                "Process exited normally with code 0",
            ],
            "{mode}"
        );
    }
}

#[test]
fn trace_path_matches_the_fds_an_attached_process_opened_before() {
    // strace resolves an attached process's fds through /proc/PID/fd, so
    // -P names calls on fds rtrace never saw opened; so does rtrace (its
    // fd table is empty for them).
    use std::io::{BufRead, Write};
    use std::os::unix::fs::PermissionsExt;
    let f = files("attach");
    std::fs::set_permissions(&f.traced, std::fs::Permissions::from_mode(0o644)).unwrap();
    let bin = fixture("attach_path");
    let mut target = std::process::Command::new(&bin)
        .args([&f.traced, &f.other])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = target.id().to_string();
    let mut ready = String::new();
    std::io::BufReader::new(target.stdout.take().unwrap())
        .read_line(&mut ready)
        .unwrap();
    assert_eq!(ready, "ready\n");
    let out = scratch_path("paths", "attach");
    let tracer = rtrace_env()
        .arg("-o")
        .arg(&out)
        .args(["-P", path(&f.traced), "-p", &pid])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Let the target go once it is traced (TracerPid in its status).
    let traced = || {
        std::fs::read_to_string(format!("/proc/{pid}/status"))
            .unwrap_or_default()
            .lines()
            .any(|l| l.starts_with("TracerPid:") && l.split_whitespace().nth(1) != Some("0"))
    };
    for _ in 0..3000 {
        if traced() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(traced(), "rtrace did not attach");
    target.stdin.take().unwrap().write_all(b"go\n").unwrap();
    let result = tracer.wait_with_output().unwrap();
    assert_eq!(
        result.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    assert_eq!(target.wait().unwrap().code(), Some(0));
    let trace = std::fs::read_to_string(&out).unwrap();
    let mut lines = normalise(&trace);
    // The banner's arguments are cut at -s, mid-directory.
    if let Some((head, tail)) = lines[0].split_once("Tracing attach_path ") {
        let pid = tail.rsplit_once(" (pid ").map_or("", |(_, p)| p);
        lines[0] = format!("{head}Tracing attach_path ARGS (pid {pid}");
    }
    assert_eq!(
        lines,
        [
            "Tracing attach_path ARGS (pid PID1)",
            "pread64(3, \"abc\", 3, 0) = 3",
            "fstat(3, {st_mode=S_IFREG|0644, st_size=9, ..}) = 0",
            "close(3) = 0",
            "Process exited normally with code 0",
        ]
    );
}

#[test]
fn trace_path_reads_the_fds_calls_take_in_memory() {
    // strace 6.1 -P shows the same calls: poll's and ppoll's arrays,
    // select's and pselect6's sets, and i386's old select and old mmap,
    // each when the traced file's fd is among theirs.
    let f = files("memory");
    for (bin, select) in [
        (fixture("trace_path_mem"), "select"),
        (common::fixture_m32("trace_path_mem"), "_newselect"),
    ] {
        for opts in [&["-P", path(&f.traced)][..], &["--trace-fds=3"]] {
            let run = common::trace(opts, &[name(&bin), path(&f.traced), path(&f.other)]);
            assert_eq!(run.code(), Some(0), "{}", run.stderr());
            // From the first poll: before the marker are the loader's
            // calls on fd 3 and the fixture's open of the traced file.
            let all = run.lines();
            let first = all.iter().position(|l| l.starts_with("poll(")).unwrap_or(0);
            let lines = all[first..].to_vec();
            let mut expected = vec![
                "poll([{fd=4, events=POLLIN}, {fd=3, events=POLLIN}], 2, 0) = 2 \
                 [{fd=4, revents=POLLIN}, {fd=3, revents=POLLIN}]"
                    .to_string(),
                "ppoll([{fd=4, events=POLLIN}, {fd=3, events=POLLIN}], 2, {tv_sec=0, tv_nsec=0}, \
                 NULL, 8) = 2 {fds=[{fd=4, revents=POLLIN}, {fd=3, revents=POLLIN}], \
                 left={tv_sec=0, tv_nsec=0}}"
                    .to_string(),
                format!(
                    "{select}(5, NULL, [3], NULL, {{tv_sec=0, tv_usec=0}}) = 1 \
                     {{writefds=[3], left={{tv_sec=0, tv_usec=0}}}}"
                ),
            ];
            if select == "_newselect" {
                expected.extend([
                    "select(&ADDR) = 2".to_string(),
                    "mmap({addr=NULL, length=4096, prot=PROT_READ, flags=MAP_PRIVATE, fd=3, \
                     offset=0x0}) = ADDR"
                        .to_string(),
                ]);
            }
            expected.extend([
                "pselect6(4, NULL, [3], NULL, {tv_sec=0, tv_nsec=0}, NULL) = 1 \
                 {writefds=[3], left={tv_sec=0, tv_nsec=0}}"
                    .to_string(),
                "Process exited normally with code 0".to_string(),
            ]);
            assert_eq!(lines, expected, "{} {opts:?}", name(&bin));
        }
    }
}
