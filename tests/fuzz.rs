//! Robustness: every system call made with hostile arguments (the
//! `syscall_fuzz` fixture: random structs, pointers off the end of a
//! mapping, NULL, kernel addresses, huge counts, through `syscall` and
//! through `int $0x80`) is traced by the debug rtrace under several option
//! sets, and no decoder may panic: rtrace exits with the fixture's status,
//! says nothing about a panic, and with `--json` every line parses.

mod common;

use common::{fixture, fixture_dir, name, rtrace};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// The option sets; each runs with two seeds (an odd seed fills the buffer
/// with mostly small counts and pointers, an even one with random bytes).
const OPTION_SETS: &[&[&str]] = &[
    &[],
    &["-v"],
    &["-vv", "-N"],
    &["-V"],
    &["-VV"],
    &["--json"],
    &["-y"],
    // Stacks unwound through hostile processes' memory (-k).
    &["-k"],
    &["-e", "trace=%file", "--filter", "fd > 2"],
    // The fast path (automatic with -f) with signals and i386 socketcalls.
    &["-e", "trace=%network,%ipc,%signal,ioctl", "-T"],
];

/// A run that takes longer than this has hung.
const TIMEOUT: Duration = Duration::from_secs(120);

/// Trace `syscall_fuzz SEED all` with `-f` and `opts`; on a failure, what
/// went wrong.
fn fuzz_run(bin: &Path, opts: &[&str], seed: u32) -> Result<(), String> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let tag = format!("fuzz-{}-{seed}", std::process::id());
    let trace_file = dir.join(format!("{tag}.trace"));
    let err_file = dir.join(format!("{tag}.stderr"));
    let mut cmd = rtrace();
    // SAFETY: close_range is async-signal-safe and touches only fds.
    unsafe {
        use std::os::unix::process::CommandExt;
        cmd.pre_exec(|| {
            libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32);
            Ok(())
        });
    }
    let started = Instant::now();
    let mut child = cmd
        .arg("-o")
        .arg(&trace_file)
        .arg("-f")
        .args(opts)
        .args([name(bin), &seed.to_string(), "all"])
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", fixture_dir().display()))
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&err_file).unwrap())
        .spawn()
        .expect("run rtrace");
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{opts:?} seed {seed}: rtrace hung"));
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let trace = std::fs::read_to_string(&trace_file).unwrap_or_default();
    let stderr = std::fs::read_to_string(&err_file).unwrap_or_default();
    let _ = std::fs::remove_file(&trace_file);
    let _ = std::fs::remove_file(&err_file);
    let what = format!("{opts:?} seed {seed}");
    if stderr.contains("panicked") {
        return Err(format!("{what}: rtrace panicked:\n{stderr}"));
    }
    if status.code() != Some(0) {
        return Err(format!("{what}: exit status {status}\n{stderr}"));
    }
    // A call every child makes that the option set shows.
    let expected = if opts.contains(&"trace=%file") {
        None
    } else if opts.iter().any(|o| o.contains("%network")) {
        Some("socket")
    } else {
        Some("alarm")
    };
    if expected.is_some_and(|call| !trace.contains(call)) {
        return Err(format!("{what}: the children's calls are missing"));
    }
    for line in trace.lines() {
        if line.ends_with(' ') {
            return Err(format!("{what}: line ends in a space: {line:?}"));
        }
        if opts.contains(&"--json")
            && let Err(e) = serde_json::from_str::<serde_json::Value>(line)
        {
            return Err(format!("{what}: {e}: {line}"));
        }
    }
    Ok(())
}

#[test]
fn hostile_arguments_to_every_call_never_panic() {
    let bin = fixture("syscall_fuzz");
    // All runs at once: most of their time is children sleeping in blocking
    // calls until their alarm.
    let failures: Vec<String> = std::thread::scope(|s| {
        let runs: Vec<_> = OPTION_SETS
            .iter()
            .enumerate()
            .flat_map(|(i, opts)| {
                let bin = &bin;
                [1, 2].map(move |k| {
                    let seed = 2 * i as u32 + k;
                    s.spawn(move || fuzz_run(bin, opts, seed))
                })
            })
            .collect();
        runs.into_iter()
            .filter_map(|r| r.join().unwrap().err())
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
