//! rtrace against strace, side by side in one run: `cargo bench`.
//!
//! Runs each workload untraced, under `strace -f`, under `rtrace -f`, and
//! filtered to ioctls (rtrace with and without its seccomp-bpf fast path,
//! strace with `--seccomp-bpf`), all writing to /dev/null, and prints wall
//! times and ratios. A benchmark, not a test: nothing here asserts a time.
//! The targets: filtered tracing within 1.05x of untraced, full tracing no
//! slower than strace.
//!
//! What it showed on the development machine (ratios move by ±0.2 from run
//! to run on a shared 2-core machine; compare columns of one run only):
//! full tracing 0.83x to 1.01x of strace's time on all three workloads;
//! filtered tracing 1.2x to 1.7x of untraced, the same as strace's own
//! `--seccomp-bpf` in the same run. The filtered overhead is the kernel's:
//! with any seccomp filter installed every system call takes the slow entry
//! path (about 30 ns more for getppid), and every fork and exec still stops
//! the tracer for its events.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 3;

/// The C workloads, built into the target directory.
const WORKLOADS: &[(&str, &str)] = &[
    (
        "getppid_500k",
        r#"#include <unistd.h>
#include <sys/syscall.h>
int main(void) { for (int i = 0; i < 500000; i++) syscall(SYS_getppid); return 0; }
"#,
    ),
    (
        "pipe_rw_100k",
        r#"#include <unistd.h>
int main(void) {
    int p[2]; char c = 'x';
    if (pipe(p)) return 1;
    for (int i = 0; i < 100000; i++) { write(p[1], &c, 1); read(p[0], &c, 1); }
    return 0;
}
"#,
    ),
];

fn build(dir: &Path, name: &str, source: &str) -> PathBuf {
    let src = dir.join(format!("{name}.c"));
    let bin = dir.join(name);
    std::fs::write(&src, source).unwrap();
    let ok = Command::new("cc")
        .args(["-O2", "-o"])
        .arg(&bin)
        .arg(&src)
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    assert!(ok, "building {name} needs a C compiler (cc)");
    bin
}

/// The median wall time of RUNS runs of `argv`, or None if it cannot run.
fn time(argv: &[String]) -> Option<Duration> {
    let mut times = Vec::new();
    for _ in 0..RUNS {
        let start = Instant::now();
        let status = Command::new(&argv[0])
            .args(&argv[1..])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .ok()?;
        if !status.success() {
            return None;
        }
        times.push(start.elapsed());
    }
    times.sort();
    Some(times[RUNS / 2])
}

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn main() {
    let rtrace = env!("CARGO_BIN_EXE_rtrace").to_string();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench");
    std::fs::create_dir_all(&dir).unwrap();
    let strace = have("strace");
    if !strace {
        println!("strace is not installed: its columns are left out");
    }
    let mut workloads: Vec<(String, Vec<String>)> = WORKLOADS
        .iter()
        .map(|(name, src)| {
            let bin = build(&dir, name, src);
            (name.to_string(), vec![bin.display().to_string()])
        })
        .collect();
    workloads.push((
        "sh_fork_300".into(),
        vec![
            "sh".into(),
            "-c".into(),
            "i=0; while [ $i -lt 300 ]; do /bin/true; i=$((i+1)); done".into(),
        ],
    ));

    let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    println!(
        "{:<14} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}  ratios",
        "workload", "untraced", "strace", "rtrace", "st ioctl", "rt ioctl", "rt nobpf", ""
    );
    for (name, cmd) in &workloads {
        let with = |prefix: Vec<String>| -> Vec<String> {
            prefix.into_iter().chain(cmd.iter().cloned()).collect()
        };
        let base = time(cmd);
        let st = strace
            .then(|| time(&with(s(&["strace", "-f", "-o", "/dev/null"]))))
            .flatten();
        let rt = time(&with(vec![
            rtrace.clone(),
            "-f".into(),
            "-o".into(),
            "/dev/null".into(),
        ]));
        let st_f = strace
            .then(|| {
                time(&with(s(&[
                    "strace",
                    "-f",
                    "--seccomp-bpf",
                    "-e",
                    "trace=ioctl",
                    "-o",
                    "/dev/null",
                ])))
            })
            .flatten();
        let rt_f = time(&with(vec![
            rtrace.clone(),
            "-f".into(),
            "-e".into(),
            "trace=ioctl".into(),
            "-o".into(),
            "/dev/null".into(),
        ]));
        let rt_nobpf = time(&with(vec![
            rtrace.clone(),
            "-f".into(),
            "--no-seccomp-bpf".into(),
            "-e".into(),
            "trace=ioctl".into(),
            "-o".into(),
            "/dev/null".into(),
        ]));
        let secs =
            |d: Option<Duration>| d.map_or("-".into(), |d| format!("{:.3}", d.as_secs_f64()));
        let ratio = |a: Option<Duration>, b: Option<Duration>| match (a, b) {
            (Some(a), Some(b)) if !b.is_zero() => {
                format!("{:.2}x", a.as_secs_f64() / b.as_secs_f64())
            }
            _ => "-".into(),
        };
        println!(
            "{:<14} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}  rtrace/strace {}, rtrace ioctl/untraced {}, strace ioctl/untraced {}",
            name,
            secs(base),
            secs(st),
            secs(rt),
            secs(st_f),
            secs(rt_f),
            secs(rt_nobpf),
            ratio(rt, st),
            ratio(rt_f, base),
            ratio(st_f, base),
        );
    }
}
