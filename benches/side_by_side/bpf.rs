//! The BPF engine's table (`BENCH_ONLY=bpf`): see the top of
//! side_by_side.rs and HACKING.md ("The BPF engine", Measurements).

use super::{build, have, ratio, strings, time_once};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `selftime FILE COMMAND...`: the program's own time, fork to reaped.
const SELFTIME: &str = include_str!("../bpf_selftime.c");
/// `paced RATE MS FILE`: getppid at a given rate, for the loss sweep.
const PACED: &str = include_str!("../bpf_paced.c");
/// `bpf_floor MODE COMMAND...`: the least programs at the two syscall
/// tracepoints, the floor under any tracer built on them.
const FLOOR: &str = include_str!("../bpf_floor.c");

/// Runs of the forms that cost seconds (ptrace, strace, perf trace),
/// and of the others (`BENCH_BPF_RUNS`).
const SLOW_RUNS: usize = 3;
const RUNS: usize = 5;

/// The columns: a label, and whether the form runs on the workloads
/// marked `fast_only` (the 2,000,000-call loop, where ptrace, strace
/// and perf trace would take minutes a run).
const COLUMNS: &[(&str, bool)] = &[
    ("untraced", true),
    ("rtrace", false),
    ("strace", false),
    ("perf", false),
    ("bpf", true),
    ("bpf -c", true),
    ("floor", true),
    ("clk floor", true),
];

/// The target rates of the loss sweep, calls a second (0: as fast as
/// the program can).
const RATES: &[u64] = &[50_000, 100_000, 200_000, 300_000, 400_000, 600_000, 0];

/// A smaller ring run beside the default, where the reader's own rate
/// shows sooner.
const SMALL_RING: &str = "64K";

/// One column's runs of one workload.
struct Column {
    label: &'static str,
    prefix: Vec<String>,
    runs: usize,
    /// rtrace's (or the tracer's) whole run.
    whole: Vec<Duration>,
    /// The traced program's own, as `selftime` measured it.
    own: Vec<Duration>,
    /// The CPU time the program used (user and system).
    cpu: Vec<Duration>,
    failed: bool,
}

fn median(v: &[Duration]) -> Option<Duration> {
    let mut v = v.to_vec();
    v.sort();
    v.get(v.len() / 2).copied()
}

impl Column {
    fn whole(&self) -> Option<Duration> {
        median(&self.whole).filter(|_| !self.failed)
    }
    fn own(&self) -> Option<Duration> {
        median(&self.own).filter(|_| !self.failed)
    }
    fn cpu(&self) -> Option<Duration> {
        median(&self.cpu).filter(|_| !self.failed)
    }
}

/// One workload: a row.
struct Workload {
    name: String,
    cmd: Vec<String>,
    fast_only: bool,
    /// The file the workload writes, removed before each run with the
    /// machine's dirty pages written out: otherwise a run pays for the
    /// previous run's writeback (ext4 writes a file's delayed blocks out
    /// when it is truncated for rewriting), and more after a slow column
    /// than after a quick one.
    output: Option<PathBuf>,
    /// The workload rewrites its output file in place (`1<>`), which is
    /// then kept between runs and only synced: it is run once before the
    /// rounds to make the file and read its tree into the page cache.
    /// On this VM a fresh 1.3 GB file's pages cost every run a different
    /// time to allocate (the untraced runs of one round took 0.9 s to
    /// 3.3 s), more than the tracing being measured.
    rewrite: bool,
}

fn secs(d: Option<Duration>) -> String {
    d.map_or("-".into(), |d| format!("{:.3}", d.as_secs_f64()))
}

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(default)
}

/// `perf trace` runs and works here (it needs root and tracefs).
fn have_perf_trace() -> bool {
    std::process::Command::new("perf")
        .args(["trace", "-o", "/dev/null", "--", "true"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The big real workload: tar of the whole of /usr/include (about 130 MB,
/// 100,000 calls, 0.4 s here) into a file, long enough that rtrace's
/// start-up is not most of it; `None` where there is no /usr/include.
fn big_tar_workload(dir: &Path) -> Option<Workload> {
    if !Path::new("/usr/include/stdio.h").is_file() {
        return None;
    }
    let out = dir.join("bpf_tar_include.tar");
    Some(Workload {
        name: "tar_include".into(),
        cmd: strings(&[
            "tar",
            "cf",
            &out.display().to_string(),
            "-C",
            "/usr",
            "include",
        ]),
        fast_only: false,
        output: Some(out),
        rewrite: false,
    })
}

/// The issue's own example of a real workload: tar of a source tree, the
/// kernel's (Debian's linux-source package, which .ci/run installs for
/// the e2e suite, unpacked once into the bench's directory: 1.5 GB,
/// 75,000 files, about 780,000 calls, a second here), into a file it
/// rewrites in place (`Workload::rewrite`). Only
/// the BPF columns run it: strace would take a minute a run. `None`
/// where no /usr/src/linux-source-*.tar.xz is installed.
fn source_tree_workload(dir: &Path) -> Option<Workload> {
    let tarball = std::fs::read_dir("/usr/src")
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("linux-source-") && n.ends_with(".tar.xz"))
        })
        .min()?;
    let stem = tarball.file_name()?.to_str()?.strip_suffix(".tar.xz")?;
    let parent = dir.join("source_tree");
    // Unpacked whole, or again: the mark is written after tar succeeds.
    let done = parent.join(format!("{stem}.unpacked"));
    if !done.is_file() {
        let _ = std::fs::remove_dir_all(&parent);
        std::fs::create_dir_all(&parent).ok()?;
        println!("unpacking {} for tar_kernel_src", tarball.display());
        let ok = std::process::Command::new("tar")
            .arg("xf")
            .arg(&tarball)
            .arg("-C")
            .arg(&parent)
            .status()
            .is_ok_and(|s| s.success());
        if !ok || std::fs::write(&done, "").is_err() {
            println!(
                "cannot unpack {}: tar_kernel_src left out",
                tarball.display()
            );
            return None;
        }
    }
    let out = dir.join("bpf_tar_source.tar");
    let script = format!(
        "exec tar cf - -C '{}' '{stem}' 1<>'{}'",
        parent.display(),
        out.display()
    );
    Some(Workload {
        name: "tar_kernel_src".into(),
        cmd: strings(&["sh", "-c", &script]),
        fast_only: true,
        output: Some(out),
        rewrite: true,
    })
}

/// The real workload: tar of the kernel's uapi headers, or of this
/// repository's sources where they are missing, into a file.
fn tar_workload(dir: &Path) -> Workload {
    let (parent, tree) = if Path::new("/usr/include/linux").is_dir() {
        ("/usr/include".to_string(), "linux")
    } else {
        (env!("CARGO_MANIFEST_DIR").to_string(), "src")
    };
    let out = dir.join("bpf_tar_out.tar");
    Workload {
        name: format!("tar_{tree}"),
        cmd: strings(&["tar", "cf", &out.display().to_string(), "-C", &parent, tree]),
        fast_only: false,
        output: Some(out),
        rewrite: false,
    }
}

/// The processes (but this one) that hold a BPF program or link: a
/// tracer left running (an `rtrace --bpf -a`, say) charges every call
/// on the machine, untraced runs included.
fn bpf_holders() -> Vec<String> {
    let me = std::process::id().to_string();
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in procs.flatten() {
        let pid = entry.file_name().to_string_lossy().into_owned();
        if !pid.bytes().all(|b| b.is_ascii_digit()) || pid == me {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else {
            continue;
        };
        let holds = fds.flatten().any(|fd| {
            std::fs::read_link(fd.path()).is_ok_and(|l| {
                let l = l.to_string_lossy();
                l == "anon_inode:bpf-prog" || l == "anon_inode:bpf_link"
            })
        });
        if holds {
            let comm = std::fs::read_to_string(entry.path().join("comm")).unwrap_or_default();
            found.push(format!("{pid} ({})", comm.trim()));
        }
    }
    found
}

/// The table: `BENCH_BPF_PART=times` or `=loss` runs one of its two
/// parts.
pub fn table() {
    let rtrace = env!("CARGO_BIN_EXE_rtrace");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench");
    std::fs::create_dir_all(&dir).unwrap();
    let holders = bpf_holders();
    if !holders.is_empty() {
        println!(
            "\nwarning: other processes hold BPF programs: {}; if attached to the syscall \
             tracepoints they charge every call here, untraced runs included",
            holders.join(", ")
        );
    }
    let part = std::env::var("BENCH_BPF_PART").unwrap_or_default();
    if part != "loss" {
        times(rtrace, &dir);
    }
    if part != "times" {
        loss_sweep(rtrace, &dir);
    }
}

/// Each workload under each column: the whole run, the program's own
/// time and CPU time, the ratios and the targets.
fn times(rtrace: &str, dir: &Path) {
    let runs = env_num("BENCH_BPF_RUNS", RUNS as u64) as usize;
    let slow_runs = SLOW_RUNS.min(runs);
    let selftime = build(dir, "bpf_selftime", SELFTIME).display().to_string();
    let floor = build(dir, "bpf_floor", FLOOR).display().to_string();
    let getppid = build(dir, "getppid_n", super::UNPINNED_WORKLOADS[0].1);
    let pipe = build(dir, "pipe_rw_n", super::UNPINNED_WORKLOADS[1].1);
    let getppid = getppid.display().to_string();
    let pipe = pipe.display().to_string();
    let usable = [("strace", have("strace")), ("perf", have_perf_trace())];
    for (tool, ok) in usable {
        if !ok {
            println!("{tool} cannot run here: its column is left out");
        }
    }
    let workloads = [
        Workload {
            name: "start_true".into(),
            cmd: strings(&["true"]),
            fast_only: false,
            output: None,
            rewrite: false,
        },
        Workload {
            name: "getppid_200k".into(),
            cmd: vec![getppid.clone(), "200000".into()],
            fast_only: false,
            output: None,
            rewrite: false,
        },
        Workload {
            name: "getppid_2M".into(),
            cmd: vec![getppid.clone(), "2000000".into()],
            fast_only: true,
            output: None,
            rewrite: false,
        },
        Workload {
            name: "pipe_rw_50k".into(),
            cmd: vec![pipe, "50000".into()],
            fast_only: false,
            output: None,
            rewrite: false,
        },
        Workload {
            name: "sh_fork_100".into(),
            cmd: strings(&[
                "sh",
                "-c",
                "i=0; while [ $i -lt 100 ]; do /bin/true; i=$((i+1)); done",
            ]),
            fast_only: false,
            output: None,
            rewrite: false,
        },
        tar_workload(dir),
    ]
    .into_iter()
    .chain(big_tar_workload(dir))
    .chain(source_tree_workload(dir))
    .collect::<Vec<_>>();
    let out = ["-o", "/dev/null"];
    let prefix = |label: &str| -> Vec<String> {
        match label {
            "untraced" => vec![],
            "rtrace" => strings(&[&[rtrace, "-f"][..], &out].concat()),
            "strace" => strings(&[&["strace", "-f"][..], &out].concat()),
            "perf" => strings(&["perf", "trace", "-o", "/dev/null", "--"]),
            "bpf" => strings(&[&[rtrace, "--bpf", "-f"][..], &out].concat()),
            "bpf -c" => strings(&[&[rtrace, "--bpf", "-f", "-c"][..], &out].concat()),
            "floor" => vec![floor.clone(), "0".into()],
            "clk floor" => vec![floor.clone(), "1".into()],
            _ => unreachable!("a column without a command"),
        }
    };
    println!(
        "\nBPF engine: both engines, strace -f and perf trace, unpinned, to /dev/null; \
         medians of {runs} runs ({slow_runs} for rtrace, strace, perf)"
    );
    let own_file = dir.join("bpf_selftime.out");
    let mut rows = Vec::new();
    for w in &workloads {
        let mut columns: Vec<Column> = COLUMNS
            .iter()
            .map(|&(label, fast)| Column {
                label,
                prefix: prefix(label),
                runs: if matches!(label, "untraced" | "bpf" | "bpf -c" | "floor" | "clk floor") {
                    runs
                } else {
                    slow_runs
                },
                whole: Vec::new(),
                own: Vec::new(),
                cpu: Vec::new(),
                failed: (w.fast_only && !fast)
                    || usable.iter().any(|&(tool, ok)| tool == label && !ok),
            })
            .collect();
        if w.rewrite && time_once(&w.cmd, None).is_none() {
            println!("{}: its warm-up run failed", w.name);
        }
        // Interleaved rounds, so a noisy neighbour hits every column; each
        // round starts one column further on, so no column always follows
        // the same one (a run just after `perf trace`'s, whose teardown
        // the kernel is still doing, starts about 20 ms slower).
        for round in 0..runs {
            let first = round % columns.len();
            let (before, after) = columns.split_at_mut(first);
            for c in after
                .iter_mut()
                .chain(before.iter_mut())
                .filter(|c| round < c.runs && !c.failed)
            {
                let _ = std::fs::remove_file(&own_file);
                if let Some(output) = &w.output {
                    if !w.rewrite {
                        let _ = std::fs::remove_file(output);
                    }
                    // SAFETY: sync takes no arguments.
                    unsafe { libc::sync() };
                }
                let argv: Vec<String> = c
                    .prefix
                    .iter()
                    .cloned()
                    .chain([selftime.clone(), own_file.display().to_string()])
                    .chain(w.cmd.iter().cloned())
                    .collect();
                match time_once(&argv, None).zip(read_own(&own_file)) {
                    Some((t, (own, cpu))) => {
                        c.whole.push(t);
                        c.own.push(own);
                        c.cpu.push(cpu);
                    }
                    None => c.failed = true,
                }
            }
        }
        rows.push((w.name.clone(), columns));
    }
    print_rows("whole run, s", &rows, Column::whole);
    print_rows("program's own time (fork to reaped), s", &rows, Column::own);
    print_rows(
        "program's own CPU time (user + system), s",
        &rows,
        Column::cpu,
    );
    print_ratios(&rows);
}

/// `selftime`'s report: the program's wall time and CPU time.
fn read_own(file: &Path) -> Option<(Duration, Duration)> {
    let text = std::fs::read_to_string(file).ok()?;
    let mut ns = text
        .split_whitespace()
        .map(|w| w.parse().ok().map(Duration::from_nanos));
    Some((ns.next()??, ns.next()??))
}

/// A table of each row's medians.
fn print_rows(title: &str, rows: &[(String, Vec<Column>)], get: fn(&Column) -> Option<Duration>) {
    println!("\n{title}");
    let mut header = format!("{:<14}", "workload");
    for (label, _) in COLUMNS {
        header += &format!(" {label:>10}");
    }
    println!("{header}");
    for (name, columns) in rows {
        let mut line = format!("{name:<14}");
        for c in columns {
            line += &format!(" {:>10}", secs(get(c)));
        }
        println!("{line}");
    }
}

/// The ratios to untraced, and the targets.
fn print_ratios(rows: &[(String, Vec<Column>)]) {
    let find = |row: &str, label: &str| {
        rows.iter()
            .find(|(name, _)| name == row)
            .and_then(|(_, cs)| cs.iter().find(|c| c.label == label))
    };
    let whole = |row: &str, label: &str| find(row, label).and_then(Column::whole);
    let own = |row: &str, label: &str| find(row, label).and_then(Column::own);
    let cpu = |row: &str, label: &str| find(row, label).and_then(Column::cpu);
    // rtrace --bpf's fixed cost: loading and attaching the program,
    // and the exit, measured on /bin/true.
    let start = |label: &str| {
        let w = whole("start_true", label)?;
        let o = own("start_true", label)?;
        Some(w.saturating_sub(o))
    };
    let labels = [
        "bpf cpu",
        "bpf own",
        "bpf",
        "bpf-start",
        "-c own",
        "-c",
        "-c-start",
        "rtrace",
        "strace",
        "perf",
        "perf own",
        "floor own",
        "clk own",
    ];
    println!(
        "\nratios to untraced (own: the program's own time; -start: less the start-up of start_true)"
    );
    let mut header = format!("{:<14}", "x untraced");
    for l in labels {
        header += &format!(" {l:>9}");
    }
    println!("{header}");
    for (name, _) in rows.iter().filter(|(n, _)| n != "start_true") {
        let un = whole(name, "untraced");
        let un_own = own(name, "untraced");
        // None where the run was shorter than /bin/true's start-up (a
        // ratio of 0.00x said nothing).
        let less_start = |label: &str| whole(name, label)?.checked_sub(start(label)?);
        let cells = [
            ratio(cpu(name, "bpf"), cpu(name, "untraced")),
            ratio(own(name, "bpf"), un_own),
            ratio(whole(name, "bpf"), un),
            ratio(less_start("bpf"), un),
            ratio(own(name, "bpf -c"), un_own),
            ratio(whole(name, "bpf -c"), un),
            ratio(less_start("bpf -c"), un),
            ratio(whole(name, "rtrace"), un),
            ratio(whole(name, "strace"), un),
            ratio(whole(name, "perf"), un),
            ratio(own(name, "perf"), un_own),
            ratio(own(name, "floor"), un_own),
            ratio(own(name, "clk floor"), un_own),
        ];
        let mut line = format!("{name:<14}");
        for c in cells {
            line += &format!(" {c:>9}");
        }
        println!("{line}");
    }
    println!(
        "\nstart-up (whole less own on /bin/true): bpf {} s, bpf -c {} s, perf {} s",
        secs(start("bpf")),
        secs(start("bpf -c")),
        secs(start("perf"))
    );
    // Beside each target, what the least programs at the same tracepoints
    // cost the same run: a target below its floor is out of any
    // tracepoint tracer's reach on this machine.
    let floor = |row: &str, label: &str| ratio(own(row, label), own(row, "untraced"));
    let targets = [
        (
            "getppid_200k: program's own time under --bpf",
            ratio(own("getppid_200k", "bpf"), own("getppid_200k", "untraced")),
            2.0,
            floor("getppid_200k", "floor"),
        ),
        (
            "getppid_200k: rtrace --bpf's whole run",
            ratio(
                whole("getppid_200k", "bpf"),
                whole("getppid_200k", "untraced"),
            ),
            10.0,
            floor("getppid_200k", "floor"),
        ),
        (
            "getppid_2M: rtrace --bpf -c's whole run",
            ratio(
                whole("getppid_2M", "bpf -c"),
                whole("getppid_2M", "untraced"),
            ),
            2.0,
            floor("getppid_2M", "clk floor"),
        ),
        (
            "getppid_2M: program's own time under --bpf -c",
            ratio(own("getppid_2M", "bpf -c"), own("getppid_2M", "untraced")),
            2.0,
            floor("getppid_2M", "clk floor"),
        ),
    ];
    // The real workloads but the smallest (its 0.01 s is mostly start-up).
    let tars: Vec<&str> = rows
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| n.starts_with("tar_"))
        .skip(1)
        .collect();
    println!(
        "\ntargets (issue 21), and the floor: the least programs at the same tracepoints \
         (clk floor, with the two clock reads timing needs, for -c)"
    );
    for (what, got, limit, floor) in targets {
        println!("  {what:<50} {got:>7}  (target <= {limit}x; floor {floor})");
    }
    for tar in tars {
        println!(
            "  {:<50} {:>7}  (target <= 1.3x; floor {})",
            format!("{tar}: rtrace --bpf's whole run"),
            ratio(whole(tar, "bpf"), whole(tar, "untraced")),
            floor(tar, "floor")
        );
        println!(
            "  {:<50} {:>7}  (target <= 1.3x; floor {})",
            format!("{tar}: program's own time under --bpf"),
            ratio(own(tar, "bpf"), own(tar, "untraced")),
            floor(tar, "floor")
        );
    }
}

/// `paced` at increasing rates under `rtrace --bpf -f`, the trace in
/// a file: the rate reached, the calls in the trace and the records
/// the trace says were lost, with the default ring and a small one;
/// then two programs at once as fast as they can.
fn loss_sweep(rtrace: &str, dir: &Path) {
    let paced = build(dir, "bpf_paced", PACED).display().to_string();
    let ms = env_num("BENCH_LOSS_MS", 2000);
    let trace: PathBuf = dir.join("bpf_loss.trace");
    let reports = [dir.join("bpf_paced1.out"), dir.join("bpf_paced2.out")];
    // The calls made and the rate reached, summed over the programs.
    let reached = |procs: usize| -> Option<(u64, f64)> {
        let mut total = (0, 0.0);
        for report in &reports[..procs] {
            let text = std::fs::read_to_string(report).ok()?;
            let mut it = text.split_whitespace().map(|w| w.parse::<u64>().ok());
            let calls = it.next()??;
            let ns = it.next()??;
            total.0 += calls;
            total.1 += calls as f64 / (ns as f64 / 1e9);
        }
        Some(total)
    };
    // One run of `procs` paced programs at `rate`, under `prefix`.
    let run = |prefix: &[String], rate: u64, procs: usize| {
        let mut script = String::new();
        for (i, report) in reports[..procs].iter().enumerate() {
            let sep = if i + 1 < procs { "&" } else { ";" };
            script += &format!("{paced} {rate} {ms} {} {sep} ", report.display());
        }
        script += "wait";
        for report in &reports {
            let _ = std::fs::remove_file(report);
        }
        let argv: Vec<String> = prefix
            .iter()
            .cloned()
            .chain(strings(&["sh", "-c", &script]))
            .collect();
        time_once(&argv, None)?;
        reached(procs)
    };
    let untraced = run(&[], 0, 1).map_or("-".into(), |(_, r)| format!("{r:.0}"));
    println!(
        "\nloss sweep: getppid at a target rate for {ms} ms under rtrace --bpf -f, the trace \
         to a file\n(untraced, one program reaches {untraced} calls/s; reached: the rate \
         under tracing; made: the calls the programs made; in trace: their complete lines \
         (the shell's one getppid included); lost: the records the `events lost` lines count, \
         an entry and an exit each)"
    );
    println!(
        "{:>12} {:>5} {:>10} {:>10} {:>10} {:>9} {:>10}",
        "target/s", "ring", "reached/s", "made", "in trace", "lost", "first lost"
    );
    let cases = RATES
        .iter()
        .map(|&rate| ("16M", rate, 1))
        .chain(RATES.iter().map(|&rate| (SMALL_RING, rate, 1)))
        .chain([("16M", 0, 2)]);
    // Per ring: the highest rate reached without loss, and the target
    // rates that lost (losses need not grow with the rate: the reader's
    // wakeups and the machine's load decide as much).
    let mut summary: Vec<(&str, f64, Vec<String>)> = Vec::new();
    for (ring, rate, procs) in cases {
        let _ = std::fs::remove_file(&trace);
        let prefix: Vec<String> = strings(&[rtrace, "--bpf", "-f", "--bpf-ring", ring, "-o"])
            .into_iter()
            .chain([trace.display().to_string()])
            .collect();
        let mut target = if rate == 0 {
            "max".into()
        } else {
            rate.to_string()
        };
        if procs > 1 {
            target = format!("{procs}x {target}");
        }
        let Some((calls, reached)) = run(&prefix, rate, procs) else {
            println!("{target:>12} {ring:>5} failed");
            continue;
        };
        let text = std::fs::read_to_string(&trace).unwrap_or_default();
        // A call shown in two parts (`<..>`, then its `*` line) once.
        let shown = text
            .lines()
            .filter(|l| l.contains("getppid(") && !l.ends_with("<..>"))
            .count();
        let (lost, lines) = lost_in(&text);
        let at = lines.first().map_or("-".into(), |&l| format!("line {l}"));
        println!(
            "{target:>12} {ring:>5} {reached:>10.0} {calls:>10} {shown:>10} {lost:>9} {at:>10}"
        );
        if procs > 1 {
            continue;
        }
        let i = match summary.iter().position(|(r, _, _)| *r == ring) {
            Some(i) => i,
            None => {
                summary.push((ring, 0.0, Vec::new()));
                summary.len() - 1
            }
        };
        let entry = &mut summary[i];
        if lost > 0 {
            entry.2.push(format!("{target} (reached {reached:.0})"));
        } else {
            entry.1 = entry.1.max(reached);
        }
    }
    for (ring, clean, lossy) in summary {
        let lossy = if lossy.is_empty() {
            "none".to_string()
        } else {
            lossy.join(", ")
        };
        println!(
            "  ring {ring}: highest rate reached without loss {clean:.0} calls/s; \
             losses at target rates: {lossy} ({ms} ms runs)"
        );
    }
}

/// The records lost, from the `** N events lost (CPU c) **` lines,
/// and the line numbers where they are.
fn lost_in(text: &str) -> (u64, Vec<usize>) {
    let mut total = 0;
    let mut at = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some(rest) = line.split("** ").nth(1) else {
            continue;
        };
        if let Some(n) = rest.strip_suffix(" **").and_then(|r| {
            r.split_once(" events lost")
                .and_then(|(n, _)| n.parse::<u64>().ok())
        }) {
            total += n;
            at.push(i + 1);
        }
    }
    (total, at)
}
