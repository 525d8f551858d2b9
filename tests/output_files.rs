//! Where the trace goes: `-ff` / `--output-separately` (each task's trace
//! in FILE.TID, as strace writes them) and `-A` (`-o`'s file appended to),
//! traced against tests/fixtures/fork_pair.c, a parent and a child that
//! write ten lines each while the other runs.

mod common;

use common::{fixture, normalise, root_or_skip, rtrace_env, s, scratch_path};
use std::path::{Path, PathBuf};

/// The files `base`.TID a run made, by tid.
fn task_files(base: &Path) -> Vec<(i32, PathBuf)> {
    let dir = base.parent().unwrap();
    let stem = format!("{}.", base.file_name().unwrap().to_str().unwrap());
    let mut files: Vec<(i32, PathBuf)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let tid = name.strip_prefix(&stem)?.parse().ok()?;
            Some((tid, e.path()))
        })
        .collect();
    files.sort();
    files
}

/// Run rtrace with `args` on fork_pair; its exit code and stderr.
fn run(args: &[&str]) -> (Option<i32>, String) {
    let bin = fixture("fork_pair");
    let out = rtrace_env()
        .args(args)
        .arg(&bin)
        .output()
        .expect("run rtrace");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn writes(who: &str) -> Vec<String> {
    (0..10)
        .map(|i| {
            let text = format!("{who} {i}\\n");
            let len = who.len() + 3;
            format!("write(1, \"{text}\", {len}) = {len}")
        })
        .collect()
}

#[test]
fn each_task_has_a_file_of_whole_lines_under_both_engines() {
    for engine in ["ptrace", "bpf"] {
        if engine == "bpf" && !root_or_skip("output_files", "--bpf") {
            continue;
        }
        let dir = scratch_path("output_files", engine);
        std::fs::create_dir_all(&dir).unwrap();
        let base = dir.join("trace");
        let mut args = vec!["-ff", "-o", base.to_str().unwrap()];
        if engine == "bpf" {
            args.insert(0, "--bpf");
        }
        let (code, stderr) = run(&args);
        assert_eq!(code, Some(0), "{engine}: {stderr}");
        // rtrace writes nothing of its own, and no file FILE itself.
        assert_eq!(stderr, "", "{engine}");
        assert!(!base.exists(), "{engine}: -ff made {}", base.display());
        let files = task_files(&base);
        assert_eq!(files.len(), 2, "{engine}: {files:?}");
        let (parent, child) = (files[0].0, files[1].0);
        let text = |path: &Path| std::fs::read_to_string(path).unwrap();
        let (parent_text, child_text) = (text(&files[0].1), text(&files[1].1));
        // A file is one task's: its own pid in its banner, the other's
        // only as the value clone and wait4 return.
        assert!(
            parent_text.starts_with(&format!("Tracing fork_pair (pid {parent})\n")),
            "{engine}:\n{parent_text}"
        );
        assert!(
            parent_text.contains(&format!(", NULL) = {child}\n")),
            "{engine}:\n{parent_text}"
        );
        let tail = |lines: Vec<String>, from: &str| -> Vec<String> {
            let at = lines.iter().position(|l| l.starts_with(from));
            lines[at.unwrap_or_else(|| panic!("{engine}: no {from} in {lines:?}"))..].to_vec()
        };
        // (The child's pid is no pid of this file's: not normalised.)
        let mut expected = vec![
            "rt_sigprocmask(SIG_BLOCK, [CHLD], NULL, 8) = 0".to_string(),
            format!(
                "clone(CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, NULL, NULL, &ADDR, NULL) = {child}"
            ),
        ];
        expected.extend(writes("parent"));
        expected.extend([
            format!("wait4({child}, W_EXITED(0), 0, NULL) = {child}"),
            "exit_group(0)".to_string(),
            "Process exited normally with code 0".to_string(),
        ]);
        // Whole lines: no `PID| ` prefix, no ` <..>` and `*` replay,
        // whatever the child did between a call's two halves.
        assert_eq!(
            tail(normalise(&parent_text), "rt_sigprocmask("),
            expected,
            "{engine}"
        );
        let mut expected = s(&[
            "Tracing fork_pair (pid PID1)",
            "clone(CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, NULL, NULL, &ADDR, NULL) = 0",
            // glibc's fork sets the child's robust list again.
            "set_robust_list(&ADDR, 24) = 0",
        ]);
        expected.extend(writes("child"));
        expected.extend(s(&["exit_group(0)", "Process exited normally with code 0"]));
        assert_eq!(normalise(&child_text), expected, "{engine}");
        assert!(
            child_text.starts_with(&format!("Tracing fork_pair (pid {child})\n")),
            "{engine}:\n{child_text}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn more_tasks_than_open_files_keep_whole_files() {
    // 300 threads alive at once, each blocked in the barrier's futex
    // between its two getppids, with rtrace's (and the program's) fds
    // limited to 200: rtrace keeps 68 files open then ((200 - 64) / 2),
    // so files with a call's line open are closed and reopened to
    // append, and rtrace's own /proc reads still find fds (the banners
    // carry the command's arguments).
    let bin = fixture("threads_many");
    for (what, select) in [("selected", &["-e", "trace=getppid"][..]), ("all", &[][..])] {
        let dir = scratch_path("output_files", what);
        std::fs::create_dir_all(&dir).unwrap();
        let base = dir.join("trace");
        let mut cmd = rtrace_env();
        // SAFETY: setrlimit is async-signal-safe and touches only this
        // (forked) process's limits.
        unsafe {
            use std::os::unix::process::CommandExt;
            cmd.pre_exec(|| {
                let limit = libc::rlimit {
                    rlim_cur: 200,
                    rlim_max: 200,
                };
                libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
                Ok(())
            });
        }
        let out = cmd
            .arg("-ff")
            .args(select)
            .args(["-o", base.to_str().unwrap(), bin.to_str().unwrap(), "300"])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{what}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let files = task_files(&base);
        assert_eq!(files.len(), 301, "{what}: the leader and 300 threads");
        for (tid, path) in &files[1..] {
            let lines = normalise(&std::fs::read_to_string(path).unwrap());
            // Each thread's file is whole: its banner, its two getppids
            // (the parent is rtrace: the same number for all), no call
            // cut, its end.
            let getppids: Vec<&String> = lines
                .iter()
                .filter(|l| l.starts_with("getppid() = "))
                .collect();
            assert_eq!(getppids.len(), 2, "{what}: thread {tid}: {lines:?}");
            assert_eq!(getppids[0], getppids[1], "{what}: thread {tid}");
            assert_eq!(
                lines[0], "Tracing threads_many 300 (pid PID1)",
                "{what}: thread {tid}"
            );
            assert_eq!(
                lines.last().map(String::as_str),
                Some("Process exited normally with code 0"),
                "{what}: thread {tid}"
            );
            assert!(
                lines
                    .iter()
                    .all(|l| !l.ends_with("<..>") && !l.starts_with('*')),
                "{what}: thread {tid}: {lines:?}"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn json_records_go_to_their_tasks_files() {
    let dir = scratch_path("output_files", "json");
    std::fs::create_dir_all(&dir).unwrap();
    let base = dir.join("trace");
    let (code, stderr) = run(&["--json", "-ff", "-o", base.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    let files = task_files(&base);
    assert_eq!(files.len(), 2, "{files:?}");
    for (tid, path) in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut calls = 0;
        for line in text.lines() {
            let record: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_eq!(record["tid"], tid, "{}: {line}", path.display());
            calls += (record["type"] == "call") as usize;
        }
        assert!(calls > 10, "{}:\n{text}", path.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_o_ff_is_f() {
    let (code, stderr) = run(&["-ff"]);
    assert_eq!(code, Some(0), "{stderr}");
    // One trace of both, each line with its pid (the child's last write
    // may be cut by the parent's line and resumed: `PID2|*write(`).
    let lines = normalise(&stderr);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("PID2|") && l.ends_with("write(1, \"child 9\\n\", 8) = 8")),
        "{lines:?}"
    );
}

#[test]
fn append_mode_keeps_what_was_there() {
    let file = scratch_path("output_files", "append");
    let banners = |file: &Path| {
        std::fs::read_to_string(file)
            .unwrap()
            .lines()
            .filter(|l| l.starts_with("Tracing fork_pair"))
            .count()
    };
    let path = file.to_str().unwrap();
    for round in 1..=2 {
        let (code, stderr) = run(&["-A", "-o", path]);
        assert_eq!(code, Some(0), "{stderr}");
        assert_eq!(banners(&file), round);
    }
    // Without -A the file is made anew.
    let (code, stderr) = run(&["-o", path]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(banners(&file), 1);
    let _ = std::fs::remove_file(&file);
}

#[test]
fn bad_uses_say_so_in_one_line() {
    let dir = scratch_path("output_files", "bad");
    std::fs::create_dir_all(&dir).unwrap();
    let base = dir.join("trace");
    let base = base.to_str().unwrap();
    // One summary counts every task: strace refuses it too.
    for summary in ["-c", "-C"] {
        let (code, stderr) = run(&["-ff", "-o", base, summary]);
        assert_eq!(code, Some(2));
        assert_eq!(
            stderr,
            "rtrace: -c and -C count every task in one summary: not with -ff or --output-separately\n"
        );
    }
    let (code, stderr) = run(&["--output-separately", "-f", "-c", "-o", base]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(task_files(Path::new(base)).is_empty());
    // A directory the files cannot be made in is said before the command runs.
    let (code, stderr) = run(&["-ff", "-o", "/nonexistent/dir/trace"]);
    assert_eq!(code, Some(1));
    assert_eq!(
        stderr,
        "rtrace: cannot make -ff's files in '/nonexistent/dir': No such file or directory\n"
    );
    // -A and --output-separately without -o: said, and the trace goes on.
    let (code, stderr) = run(&["-A", "--output-separately"]);
    assert_eq!(code, Some(0));
    assert!(
        stderr.starts_with("rtrace: -A has no effect without -o FILE\n"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
