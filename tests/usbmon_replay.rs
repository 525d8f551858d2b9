//! `rtrace --usbmon-replay FILE COMMAND`: unmodified tcpdump, dumpcap and
//! tshark (with its dumpcap child) capture from rtrace's own usbmon
//! emulation (src/emu/usbmon), which replays tests/data/usbmon's
//! recording. Every event rtrace prints must be the kernel's own text line
//! of that event (qemu-xhci-0u.txt), the file each program writes, read
//! back with `tcpdump -r`, must hold the recording's records byte for byte,
//! and the trace must start at the command's execve. Pacing stamps events
//! with the real time they arrive at (the recording's spacing kept),
//! looping replays the recording again a whole number of seconds later,
//! two clients at once each get their bus's events. Bad recordings and
//! misuse give one-line errors.
//!
//! The programs come from Debian (tcpdump, tshark; .ci/run installs them).
//! A missing one fails its test with a message saying so.

mod common;

use common::{
    Run, USBMON_RECORDING, assert_holds_the_recording, diagnostics, events, normalise,
    pcap_records, scratch_path, trace_env, untimed,
};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The kernel text API's lines for the recording's events, in order.
const KERNEL_TEXT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/usbmon/qemu-xhci-0u.txt"
);

const EVENTS: usize = 34;

/// `program`'s path, or a failure that says plainly it is not installed.
fn require(program: &str, package: &str) -> PathBuf {
    ["/usr/bin", "/usr/sbin", "/bin", "/sbin"]
        .iter()
        .map(|dir| Path::new(dir).join(program))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "{program} is not installed: this test runs the real program \
                 (Debian package {package}; .ci/run installs it)"
            )
        })
}

/// A fresh scratch directory with a HOME for the programs.
fn scratch(tag: &str) -> PathBuf {
    let dir = scratch_path("usbmon-replay", tag);
    std::fs::create_dir_all(dir.join("home")).unwrap();
    dir
}

/// `rtrace -f -s 256 --usbmon-replay RECORDING ARGS... COMMAND...` (the
/// capture file's path is shown whole).
fn replay(dir: &Path, recording: &Path, args: &[&str], command: &[&str]) -> Run {
    let home = dir.join("home");
    let rtrace_args: Vec<&str> = [
        &[
            "-f",
            "-s",
            "256",
            "--usbmon-replay",
            recording.to_str().unwrap(),
        ][..],
        args,
    ]
    .concat();
    trace_env(&rtrace_args, command, &[("HOME", home.to_str().unwrap())])
}

/// The events rtrace printed are the kernel's lines, one for each event
/// of the recording, and no diagnostic.
fn assert_events_are_the_kernels(run: &Run) {
    let lines = run.lines();
    assert_eq!(
        diagnostics(&lines),
        Vec::<String>::new(),
        "a correct program got diagnostics"
    );
    assert_events_match(run);
}

/// The events rtrace printed are the kernel's lines, one for each event
/// of the recording.
fn assert_events_match(run: &Run) {
    let lines = run.lines();
    let kernel = std::fs::read_to_string(KERNEL_TEXT).unwrap();
    let kernel: Vec<&str> = kernel.lines().collect();
    let ours = events(&lines);
    assert_eq!(
        ours.len(),
        EVENTS,
        "rtrace printed {} events:\n{ours:#?}\nstderr:\n{}",
        ours.len(),
        run.stderr()
    );
    for (ours, theirs) in ours.iter().zip(&kernel) {
        assert_eq!(
            untimed(ours),
            untimed(theirs),
            "\n ours:   {ours}\n kernel: {theirs}"
        );
    }
}

/// The trace's first line after rtrace's banner (which names the command
/// and `args`) is `command`'s execve.
fn assert_starts_at_exec(run: &Run, path: &str, args: &str, argv: &str) {
    let lines = run.lines();
    assert_eq!(
        lines[0],
        format!(
            "Tracing {} {args} (pid PID1)",
            Path::new(path).file_name().unwrap().to_str().unwrap()
        )
    );
    assert_eq!(
        lines[1],
        format!("execve(\"{path}\", [{argv}], &ADDR /* 3 vars */)"),
        "{}",
        run.trace
    );
}

/// `file` (pcap or pcapng) as pcap, through `tcpdump -r FILE -w -`.
fn as_pcap(file: &Path) -> Vec<u8> {
    let out = Command::new(require("tcpdump", "tcpdump"))
        .arg("-r")
        .arg(file)
        .args(["-w", "-"])
        .stdin(Stdio::null())
        .output()
        .expect("run tcpdump -r");
    assert!(
        out.status.success(),
        "tcpdump -r {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The capture `file` holds the recording's records: same headers, same
/// data, same time stamps.
fn assert_file_holds_the_recording(file: &Path) {
    assert_holds_the_recording(&as_pcap(file), file, EVENTS);
}

/// `program -i usbmon0 -c 34 -w FILE` under the replay of `recording`.
fn capture(
    tag: &str,
    recording: &Path,
    program: &str,
    package: &str,
    file_name: &str,
    args: &[&str],
) -> (Run, PathBuf) {
    let path = require(program, package);
    let dir = scratch(tag);
    let file = dir.join(file_name);
    let count = EVENTS.to_string();
    let run = replay(
        &dir,
        recording,
        args,
        &[
            path.to_str().unwrap(),
            "-i",
            "usbmon0",
            "-c",
            &count,
            "-w",
            file.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code(), Some(0), "{program}: stderr:\n{}", run.stderr());
    (run, file)
}

#[test]
fn tcpdump_captures_the_recording() {
    let (run, file) = capture(
        "tcpdump",
        Path::new(USBMON_RECORDING),
        "tcpdump",
        "tcpdump",
        "capture.pcap",
        &[],
    );
    assert_starts_at_exec(
        &run,
        "/usr/bin/tcpdump",
        &format!("-i usbmon0 -c 34 -w {}", file.display()),
        &format!(
            "\"/usr/bin/tcpdump\", \"-i\", \"usbmon0\", \"-c\", \"34\", \"-w\", \"{}\"",
            file.display()
        ),
    );
    assert_events_are_the_kernels(&run);
    assert_file_holds_the_recording(&file);
}

#[test]
fn dumpcap_captures_the_recording() {
    let (run, file) = capture(
        "dumpcap",
        Path::new(USBMON_RECORDING),
        "dumpcap",
        "wireshark-common",
        "capture.pcapng",
        &[],
    );
    assert_events_are_the_kernels(&run);
    assert_file_holds_the_recording(&file);
}

/// Two clients: tshark lists the interfaces with one dumpcap child and
/// captures with another; the last opens usbmon0 while tshark lives.
#[test]
fn tshark_and_its_dumpcap_capture_the_recording() {
    let (run, file) = capture(
        "tshark",
        Path::new(USBMON_RECORDING),
        "tshark",
        "tshark",
        "capture.pcapng",
        &[],
    );
    let lines = run.lines();
    let capturing = format!(
        "\"-i\", \"usbmon0\", \"-Z\", \"none\", \"-w\", \"{}\"]",
        file.display()
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("execve(\"/usr/bin/dumpcap\"") && l.contains(&capturing)),
        "no capture child in:\n{}",
        run.trace
    );
    assert_events_are_the_kernels(&run);
    assert_file_holds_the_recording(&file);
}

/// With `-e trace=ioctl` (the seccomp fast path) the usbmon calls are
/// shown, the same lines as in the full trace.
#[test]
fn trace_ioctl_shows_the_same_usbmon_calls() {
    let (full, _) = capture(
        "ioctl-full",
        Path::new(USBMON_RECORDING),
        "tcpdump",
        "tcpdump",
        "capture.pcap",
        &[],
    );
    let (only, _) = capture(
        "ioctl-only",
        Path::new(USBMON_RECORDING),
        "tcpdump",
        "tcpdump",
        "capture.pcap",
        &["-e", "trace=ioctl"],
    );
    let usbmon = |lines: Vec<String>| -> Vec<String> {
        lines
            .into_iter()
            .filter(|l| l.starts_with("ioctl(3, MON_") || l.starts_with("  > "))
            .collect()
    };
    let (full, only) = (usbmon(full.lines()), usbmon(only.lines()));
    assert!(
        full.iter()
            .any(|l| l.starts_with("ioctl(3, MON_IOCX_MFETCH, {")),
        "{full:#?}"
    );
    assert_eq!(only, full);
}

/// libpcap lists usbmon0 and the recorded buses (it reads /dev).
#[test]
fn tcpdump_lists_the_recorded_buses() {
    let path = require("tcpdump", "tcpdump");
    let dir = scratch("list");
    let run = replay(
        &dir,
        Path::new(USBMON_RECORDING),
        &[],
        &[path.to_str().unwrap(), "-D"],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let listed: Vec<String> = String::from_utf8_lossy(&run.output.stdout)
        .lines()
        .filter_map(|l| l.split_once('.').map(|(_, name)| name.to_string()))
        .filter(|l| l.starts_with("usbmon"))
        .collect();
    // The listing needs a mount namespace: rtrace must run as root (CI does).
    assert_eq!(
        listed,
        [
            "usbmon2 (Raw USB traffic, bus number 2)",
            "usbmon1 (Raw USB traffic, bus number 1)",
            "usbmon0 (Raw USB traffic, all USB buses) [none]",
        ]
    );
}

/// A bus the recording does not have is no node: ENOENT, as the kernel.
#[test]
fn a_bus_the_recording_lacks_is_enoent() {
    let path = require("tcpdump", "tcpdump");
    let dir = scratch("nobus");
    let run = replay(
        &dir,
        Path::new(USBMON_RECORDING),
        &["-e", "trace=openat"],
        &[path.to_str().unwrap(), "-i", "usbmon3", "-c", "1"],
    );
    let lines = run.lines();
    assert!(
        lines
            .iter()
            .any(|l| l == "openat(AT_FDCWD, \"/dev/usbmon3\", O_RDONLY) = -1 [ENOENT]"),
        "{}",
        run.trace
    );
    assert_eq!(lines.last().unwrap(), "Process exited normally with code 1");
}

/// The recording as pcapng (editcap converts it) replays the same.
#[test]
fn a_pcapng_recording_replays() {
    let dir = scratch("pcapng");
    let ng = dir.join("recording.pcapng");
    let status = Command::new(require("editcap", "wireshark-common"))
        .args(["-F", "pcapng", USBMON_RECORDING])
        .arg(&ng)
        .status()
        .unwrap();
    assert!(status.success());
    let (run, file) = capture("pcapng-run", &ng, "tcpdump", "tcpdump", "capture.pcap", &[]);
    assert_events_are_the_kernels(&run);
    assert_file_holds_the_recording(&file);
}

/// A recording with the 48-byte header (link type 189), made from the
/// test recording: the events keep their first 48 header bytes and their
/// data; the other 16 (interval, start_frame, xfer_flags, ndesc) were not
/// recorded and are zero.
#[test]
fn a_48_byte_header_recording_replays() {
    let dir = scratch("api0");
    let old = std::fs::read(USBMON_RECORDING).unwrap();
    let mut new = old[..24].to_vec();
    new[20..24].copy_from_slice(&189u32.to_le_bytes());
    let records = pcap_records(&old, 220);
    for (sec, usec, orig, data) in &records {
        let body = [&data[..48], &data[64..]].concat();
        for w in [*sec, *usec, body.len() as u32, orig - 16] {
            new.extend_from_slice(&w.to_le_bytes());
        }
        new.extend_from_slice(&body);
    }
    let recording = dir.join("api0.pcap");
    std::fs::write(&recording, &new).unwrap();
    let (run, file) = capture(
        "api0-run",
        &recording,
        "tcpdump",
        "tcpdump",
        "capture.pcap",
        &[],
    );
    assert_eq!(events(&run.lines()).len(), EVENTS);
    let written = pcap_records(&as_pcap(&file), 220);
    assert_eq!(written.len(), EVENTS);
    for (w, r) in written.iter().zip(&records) {
        let mut want = r.clone();
        want.3[48..64].fill(0);
        assert_eq!(w, &want);
    }
}

/// Microseconds since the epoch of a usbmon record's stamp: its header's
/// `ts_sec` and `ts_usec`, which must be the pcap record's own.
fn stamp(record: &(u32, u32, u32, Vec<u8>)) -> i64 {
    let d = &record.3;
    let sec = i64::from_le_bytes(d[16..24].try_into().unwrap());
    let usec = i32::from_le_bytes(d[24..28].try_into().unwrap());
    assert_eq!(
        (i64::from(record.0), i64::from(record.1)),
        (sec, i64::from(usec)),
        "the pcap record's stamp is not its usbmon header's"
    );
    sec * 1_000_000 + i64::from(usec)
}

/// The capture `file` holds `count` events: the recording's records over
/// and over, each the same as recorded but for its stamp, which is
/// `restamp(pass, recorded stamp)` (in the pcap record and the usbmon
/// header alike). The stamps, in microseconds.
fn assert_holds_restamped(
    file: &Path,
    count: usize,
    restamp: impl Fn(i64, i64) -> i64,
) -> Vec<i64> {
    let written = pcap_records(&as_pcap(file), 220);
    let recorded = pcap_records(&std::fs::read(USBMON_RECORDING).unwrap(), 220);
    assert_eq!(written.len(), count, "{}", file.display());
    let mut stamps = Vec::new();
    for (j, w) in written.iter().enumerate() {
        let r = &recorded[j % EVENTS];
        let ts = restamp((j / EVENTS) as i64, stamp(r));
        let mut want = r.clone();
        want.0 = (ts / 1_000_000) as u32;
        want.1 = (ts % 1_000_000) as u32;
        want.3[16..24].copy_from_slice(&(ts / 1_000_000).to_le_bytes());
        want.3[24..28].copy_from_slice(&((ts % 1_000_000) as i32).to_le_bytes());
        assert_eq!(w, &want, "event {} of {}", j + 1, file.display());
        stamps.push(stamp(w));
    }
    stamps
}

/// The stamps of the events rtrace printed (`ID SECONDS.MICROSECONDS
/// ...`), in microseconds.
fn printed_stamps(run: &Run) -> Vec<i64> {
    events(&run.lines())
        .iter()
        .map(|e| {
            let (sec, usec) = e.split(' ').nth(1).unwrap().split_once('.').unwrap();
            sec.parse::<i64>().unwrap() * 1_000_000 + usec.parse::<i64>().unwrap()
        })
        .collect()
}

/// The events rtrace printed are the kernel's lines of the recording,
/// over and over, `count` in all, and no diagnostic.
fn assert_events_are_the_kernels_looped(run: &Run, count: usize) {
    let lines = run.lines();
    assert_eq!(diagnostics(&lines), Vec::<String>::new());
    let kernel = std::fs::read_to_string(KERNEL_TEXT).unwrap();
    let ours = events(&lines);
    assert_eq!(ours.len(), count, "{}", run.stderr());
    for (ours, theirs) in ours.iter().zip(kernel.lines().cycle()) {
        assert_eq!(untimed(ours), untimed(theirs));
    }
}

/// The real time now, in microseconds since the epoch.
fn now_us() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_micros() as i64
}

/// At the recording's pace the program gets every event all the same,
/// each stamped with the real time it arrived at, as a live kernel stamps
/// it: the first during the run, the others as far after it as in the
/// recording (to the microsecond).
#[test]
fn paced_replay_captures_the_recording_stamped_at_its_arrival() {
    let before = now_us();
    let (run, file) = capture(
        "pace",
        Path::new(USBMON_RECORDING),
        "tcpdump",
        "tcpdump",
        "capture.pcap",
        &["--usbmon-replay-pace"],
    );
    let after = now_us();
    assert_events_are_the_kernels(&run);
    let t0 = stamp(&pcap_records(&std::fs::read(USBMON_RECORDING).unwrap(), 220)[0]);
    let first = stamp(&pcap_records(&as_pcap(&file), 220)[0]);
    let stamps = assert_holds_restamped(&file, EVENTS, |_, ts| first + ts - t0);
    assert!(
        before <= first && *stamps.last().unwrap() <= after,
        "stamps {first}..{} outside the run {before}..{after}",
        stamps.last().unwrap()
    );
    assert_eq!(printed_stamps(&run), stamps);
}

/// `--usbmon-replay-loop=2`: the recording twice, the second pass stamped
/// two seconds after the first (its events span 1.56 s, rounded up to
/// whole seconds), URB ids as recorded (a kernel's recur); the printed
/// events are the kernel's lines twice, with the file's stamps.
#[test]
fn a_looped_replay_plays_the_recording_again_a_period_later() {
    let (run, file) = capture_n("loop2", &["--usbmon-replay-loop=2"], 2 * EVENTS);
    assert_events_are_the_kernels_looped(&run, 2 * EVENTS);
    let stamps = assert_holds_restamped(&file, 2 * EVENTS, |pass, ts| ts + pass * 2_000_000);
    assert_eq!(printed_stamps(&run), stamps);
    assert!(stamps.windows(2).all(|w| w[0] <= w[1]), "{stamps:?}");
    // The JSON form: the same events, each with its text line and its
    // stamp as numbers.
    let dir = scratch("loop2-json");
    let json = replay(
        &dir,
        Path::new(USBMON_RECORDING),
        &["--json", "--usbmon-replay-loop=2"],
        &[
            require("tcpdump", "tcpdump").to_str().unwrap(),
            "-i",
            "usbmon0",
            "-c",
            "68",
            "-w",
            "/dev/null",
        ],
    );
    assert_eq!(json.code(), Some(0), "{}", json.stderr());
    let events: Vec<serde_json::Value> = json
        .trace
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .flat_map(|o| o["extended"].as_array().cloned().unwrap_or_default())
        .filter(|e| e["usbmon"] == "event")
        .collect();
    let texts: Vec<&str> = events.iter().map(|e| e["text"].as_str().unwrap()).collect();
    assert_eq!(texts, events_of(&run));
    let json_stamps: Vec<i64> = events
        .iter()
        .map(|e| e["ts_sec"].as_i64().unwrap() * 1_000_000 + e["ts_usec"].as_i64().unwrap())
        .collect();
    assert_eq!(json_stamps, stamps);
}

/// The event lines rtrace printed.
fn events_of(run: &Run) -> Vec<String> {
    events(&run.lines())
}

/// `--usbmon-replay-loop` (for ever) goes on past any number of passes.
#[test]
fn a_replay_looped_for_ever_goes_on() {
    let (run, file) = capture_n("loop-ever", &["--usbmon-replay-loop"], 100);
    assert_events_are_the_kernels_looped(&run, 100);
    assert_holds_restamped(&file, 100, |pass, ts| ts + pass * 2_000_000);
}

/// With pacing and a loop, the second pass arrives a period after the
/// first, each event stamped at its arrival.
#[test]
fn a_paced_loop_keeps_the_recordings_spacing_across_passes() {
    let (run, file) = capture_n(
        "loop-pace",
        &["--usbmon-replay-loop=2", "--usbmon-replay-pace"],
        2 * EVENTS,
    );
    assert_events_are_the_kernels_looped(&run, 2 * EVENTS);
    let t0 = stamp(&pcap_records(&std::fs::read(USBMON_RECORDING).unwrap(), 220)[0]);
    let first = stamp(&pcap_records(&as_pcap(&file), 220)[0]);
    let stamps = assert_holds_restamped(&file, 2 * EVENTS, |pass, ts| {
        first + ts - t0 + pass * 2_000_000
    });
    assert_eq!(printed_stamps(&run), stamps);
}

/// The passes are as many as asked, then the bus is quiet: a libpcap-like
/// client on a big ring, non-blocking, fetches 64 events in two MFETCHes
/// and finds the rest queued (STATS): 4 of two passes, 38 of three.
#[test]
fn a_replay_loops_as_many_times_as_asked() {
    let client = common::fixture("usbmon_pcap");
    let dir = scratch("loop-count");
    for (passes, queued) in [("2", 4), ("3", 38)] {
        let run = trace_env(
            &[
                "--usbmon-replay",
                USBMON_RECORDING,
                &format!("--usbmon-replay-loop={passes}"),
            ],
            &[client.to_str().unwrap(), "32", "1228800", "nonblock"],
            &[
                ("HOME", dir.join("home").to_str().unwrap()),
                ("USBMON_EMU_ATTACHED", "1"),
            ],
        );
        assert_eq!(run.code(), Some(0), "{}", run.stderr());
        assert_eq!(
            String::from_utf8_lossy(&run.output.stdout),
            format!("events 64\nqueued {queued}\ndropped 0\n"),
            "{passes} passes"
        );
    }
}

/// `tcpdump -i usbmon0 -c COUNT -w capture.pcap` under the replay with
/// `args`.
fn capture_n(tag: &str, args: &[&str], count: usize) -> (Run, PathBuf) {
    let path = require("tcpdump", "tcpdump");
    let dir = scratch(tag);
    let file = dir.join("capture.pcap");
    let count = count.to_string();
    let run = replay(
        &dir,
        Path::new(USBMON_RECORDING),
        args,
        &[
            path.to_str().unwrap(),
            "-i",
            "usbmon0",
            "-c",
            &count,
            "-w",
            file.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code(), Some(0), "stderr:\n{}", run.stderr());
    (run, file)
}

/// rtrace's whole stderr for `args`, and its exit code.
fn refused(args: &[&str]) -> (String, Option<i32>) {
    let out = common::rtrace_env()
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

/// A file made from the recording by `change`.
fn doctored(tag: &str, change: impl FnOnce(&mut Vec<u8>)) -> PathBuf {
    let mut bytes = std::fs::read(USBMON_RECORDING).unwrap();
    change(&mut bytes);
    let path = scratch_path("usbmon-replay", tag);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn bad_recordings_and_misuse_are_one_line_errors() {
    let text = doctored("text", |b| *b = b"hello\n".to_vec());
    let ether = doctored("ether", |b| b[20..24].copy_from_slice(&1u32.to_le_bytes()));
    let cut = doctored("cut", |b| b.truncate(5000));
    let cut_header = doctored("cut-header", |b| b.truncate(10));
    let short = doctored("short", |b| {
        // The first record claims 20 bytes: less than a usbmon header.
        b[24 + 8..24 + 12].copy_from_slice(&20u32.to_le_bytes());
    });
    let p = |p: &PathBuf| p.to_str().unwrap().to_string();
    let cases: Vec<(Vec<String>, String)> = vec![
        (
            vec![p(&text)],
            format!(
                "--usbmon-replay {}: not a capture (neither pcap nor pcapng)",
                p(&text)
            ),
        ),
        (
            vec![p(&ether)],
            format!(
                "--usbmon-replay {}: link type 1 (Ethernet) is not a usbmon capture (record one from a usbmonN interface, link type 220 or 189)",
                p(&ether)
            ),
        ),
        (
            vec![p(&cut)],
            format!(
                "--usbmon-replay {}: truncated file: record 14 is cut short",
                p(&cut)
            ),
        ),
        (
            vec![p(&cut_header)],
            format!(
                "--usbmon-replay {}: truncated file: the pcap file header is cut short",
                p(&cut_header)
            ),
        ),
        (
            vec![p(&short)],
            format!(
                "--usbmon-replay {}: record 1 holds 20 bytes, less than a 64-byte usbmon header",
                p(&short)
            ),
        ),
        (
            vec!["/nonexistent/x.pcap".into()],
            "--usbmon-replay /nonexistent/x.pcap: No such file or directory".into(),
        ),
    ];
    for (file, want) in cases {
        let (stderr, code) = refused(&["--usbmon-replay", &file[0], "true"]);
        assert_eq!(stderr, format!("rtrace: {want}\n"));
        assert_eq!(code, Some(2));
    }
    let misuse: &[(&[&str], &str)] = &[
        (
            &["--usbmon-replay", USBMON_RECORDING, "--bpf", "true"],
            "--usbmon-replay cannot be used with --bpf: the emulation answers the command's calls, which only the ptrace engine can have answered",
        ),
        (
            &["--usbmon-replay", USBMON_RECORDING, "-p", "1"],
            "--usbmon-replay cannot be used with -p: the emulated device is given to the command rtrace starts, before its exec",
        ),
        (
            &["--usbmon-replay", USBMON_RECORDING],
            "--usbmon-replay needs a COMMAND to run on the emulated usbmon",
        ),
        (
            &["--usbmon-replay-pace", "true"],
            "--usbmon-replay-pace needs --usbmon-replay FILE",
        ),
        (
            &["--usbmon-replay-loop=2", "true"],
            "--usbmon-replay-loop needs --usbmon-replay FILE",
        ),
        (
            &[
                "--usbmon-replay",
                USBMON_RECORDING,
                "--usbmon-replay-loop=0",
                "true",
            ],
            "--usbmon-replay-loop=0: N is how many times to play the recording, a number from 1 (leave =N out to loop for ever)",
        ),
        (
            &[
                "--usbmon-replay",
                USBMON_RECORDING,
                "--usbmon-replay-loop=twice",
                "true",
            ],
            "--usbmon-replay-loop=twice: N is how many times to play the recording, a number from 1 (leave =N out to loop for ever)",
        ),
    ];
    for (args, want) in misuse {
        let (stderr, code) = refused(args);
        assert_eq!(stderr, format!("rtrace: {want}\n"), "{args:?}");
        assert_eq!(code, Some(2));
    }
}

/// The normalised trace of a run is what `normalise` makes of it (used to
/// keep the helpers honest).
#[test]
fn normalise_keeps_event_lines() {
    let lines = normalise(
        "Tracing x (pid 12)\n  > ffff8dd8d6f7f3c0 1.5 S Co:1:002:0 s 00 09 0000 0000 0000 0\n",
    );
    assert_eq!(
        events(&lines),
        ["ffff8dd8d6f7f3c0 1.5 S Co:1:002:0 s 00 09 0000 0000 0000 0"]
    );
}

/// The end-to-end suite's own capture client (tests/e2e/usbmon_client.c,
/// checked there against a real kernel), built here, 64-bit or 32-bit.
fn e2e_client(m32: bool) -> PathBuf {
    let out = scratch_path("usbmon-replay", if m32 { "client32" } else { "client64" });
    let mut cc = Command::new("cc");
    if m32 {
        cc.arg("-m32");
    }
    let status = cc
        .args(["-O1", "-Wall", "-Werror", "-o"])
        .arg(&out)
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/e2e/usbmon_client.c"
        ))
        .status()
        .expect("run cc");
    assert!(
        status.success(),
        "cannot build usbmon_client (m32: {m32}; 32-bit needs gcc-multilib)"
    );
    out
}

/// The client's GETX, GET and read(2), 64-bit and as a 32-bit program
/// (the compat MON_IOCX_GETX32 and MON_IOCX_GET32), and its libpcap-like
/// MFETCH on the mapped ring (MON_IOCX_MFETCH32 for the 32-bit one): every
/// event is the kernel's, the client's own checks pass.
#[test]
fn the_e2e_client_fetches_every_way_in_both_abis() {
    for m32 in [false, true] {
        let client = e2e_client(m32);
        let dir = scratch("client");
        for (mode, summary, request) in [
            (
                None,
                "usbmon_client: fetched 34 events (getx=12 get=11 read=11) ring=307200 dropped=0 bad_urb_len=0\n",
                if m32 {
                    "MON_IOCX_GET32"
                } else {
                    "MON_IOCX_GET"
                },
            ),
            (
                Some("mmap"),
                "usbmon_client: fetched 34 events (mfetch=2) ring=262144 dropped=0\n",
                if m32 {
                    "MON_IOCX_MFETCH32"
                } else {
                    "MON_IOCX_MFETCH"
                },
            ),
        ] {
            let mut command = vec![client.to_str().unwrap(), "0", "34"];
            command.extend(mode);
            let run = replay(&dir, Path::new(USBMON_RECORDING), &[], &command);
            assert_eq!(run.code(), Some(0), "{}", run.stderr());
            assert_eq!(String::from_utf8_lossy(&run.output.stdout), summary);
            let call = format!("ioctl(3, {request}, {{");
            assert!(
                run.lines().iter().any(|l| l.starts_with(&call)),
                "no {call} in:\n{}",
                run.trace
            );
            if mode.is_some() {
                assert_events_are_the_kernels(&run);
            } else {
                // Its GET gives a 64-byte data buffer on purpose: the
                // bigger events are cut, which rtrace says.
                for diag in diagnostics(&run.lines()) {
                    let get = if m32 {
                        "MON_IOCX_GET32"
                    } else {
                        "MON_IOCX_GET"
                    };
                    let cut = format!("** usbmon: fd 3: {get} copied 64 of the event's ");
                    assert!(diag.starts_with(&cut), "{diag}");
                }
                assert_events_match(&run);
            }
        }
    }
}

/// The C emulator's self-checking clients (tests/fixtures/usbmon_*.c, whose
/// expectations are mon_bin.c's, see usbmon_README.md) run against the
/// replay instead: `USBMON_EMU_ATTACHED` makes their attach a no-op, so
/// their /dev/usbmon0 is rtrace's. Each must find every result the one it
/// expects; the libpcap-like one reports its counts (EAGAIN at the end).
#[test]
fn the_c_emulators_clients_pass_against_the_replay() {
    let dir = scratch("fixtures");
    let cases: &[(&str, &[&str], &str)] = &[
        (
            "usbmon_pcap",
            &["32", "1228800", "nonblock"],
            "events 34\nqueued 0\ndropped 0\n",
        ),
        (
            "usbmon_pcap",
            &["1", "1228800", "nonblock"],
            "events 34\nqueued 1\ndropped 0\n",
        ),
        (
            "usbmon_pcap",
            &["32", "8192", "nonblock"],
            "events 34\nqueued 0\ndropped 0\n",
        ),
        ("usbmon_get", &[], ""),
        ("usbmon_errors", &[], ""),
        ("usbmon_poll", &[], ""),
    ];
    for (name, args, want) in cases {
        let client = common::fixture(name);
        let mut command = vec![client.to_str().unwrap()];
        command.extend_from_slice(args);
        let home = dir.join("home");
        let run = trace_env(
            &["-f", "--usbmon-replay", USBMON_RECORDING],
            &command,
            &[
                ("HOME", home.to_str().unwrap()),
                ("USBMON_EMU_ATTACHED", "1"),
            ],
        );
        assert_eq!(run.code(), Some(0), "{name} {args:?}: {}", run.stderr());
        assert_eq!(
            String::from_utf8_lossy(&run.output.stdout),
            *want,
            "{name} {args:?}"
        );
        assert_eq!(run.stderr(), "", "{name} {args:?}");
    }
}

/// `-c` counts the command's calls only: the emulation's setup in the
/// child (mounts, the filter, the listener's transfer) is not among them,
/// so the table's calls and errors are those of an ordinary run.
#[test]
fn the_summary_counts_only_the_commands_calls() {
    let counts = |args: &[&str]| -> Vec<String> {
        let out = common::rtrace_env()
            .args(args)
            .arg("/bin/true")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter(|l| !l.starts_with('%') && !l.starts_with('-'))
            // calls, errors, name: the columns that are no time
            .map(|l| l.split_whitespace().skip(3).collect::<Vec<_>>().join(" "))
            .collect()
    };
    // The table is sorted by time, which varies: compare sorted.
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    let plain = sorted(counts(&["-c"]));
    assert!(plain.iter().any(|l| l.ends_with(" execve")), "{plain:#?}");
    assert_eq!(
        sorted(counts(&["-c", "--usbmon-replay", USBMON_RECORDING])),
        plain
    );
}

/// Whether wireshark's capture child (`dumpcap ... -w FILE`) has ended, in
/// a raw `-f` trace.
fn capture_done(trace: &str) -> bool {
    let Some(pid) = trace
        .lines()
        .find(|l| l.contains("execve(\"/usr/bin/dumpcap\", [") && l.contains("\"-w\""))
        .and_then(|l| l.split(['|', '\'']).next())
    else {
        return false;
    };
    trace.lines().any(|l| {
        l.strip_prefix(pid)
            .and_then(|rest| rest.strip_prefix(['|', '\'']))
            .is_some_and(|rest| rest.starts_with(" Process "))
    })
}

/// wireshark's GUI (Qt, offscreen) and its dumpcap children: the capture
/// child writes the recording. The GUI stays up after its capture (-c):
/// once the capture child has exited, rtrace gets SIGTERM, which it passes
/// on to wireshark.
#[test]
fn wireshark_captures_the_recording() {
    let wireshark = require("wireshark", "wireshark-qt");
    let dir = scratch("wireshark");
    let file = dir.join("capture.pcapng");
    let trace_file = dir.join("trace.txt");
    let mut child = common::rtrace_env()
        .args(["-f", "-s", "256", "--kill-on-exit", "-o"])
        .arg(&trace_file)
        .args(["--usbmon-replay", USBMON_RECORDING])
        .arg(&wireshark)
        .args(["-k", "-i", "usbmon0", "-c", "34", "-w"])
        .arg(&file)
        .env("HOME", dir.join("home"))
        .env("QT_QPA_PLATFORM", "offscreen")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    let mut stopped = false;
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        let trace = std::fs::read_to_string(&trace_file).unwrap_or_default();
        if !stopped && capture_done(&trace) {
            // SAFETY: a plain kill(2) of our own child.
            unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
            stopped = true;
        }
        if start.elapsed() > std::time::Duration::from_secs(300) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("wireshark under rtrace did not finish; trace:\n{trace}");
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let trace = std::fs::read_to_string(&trace_file).unwrap();
    assert!(stopped, "wireshark ended before its capture did:\n{trace}");
    let lines = normalise(&trace);
    // The GUI (PID1, the command) was killed by the SIGTERM: its end line
    // (`|` or `'` after the pid, by what came before). It need not be the
    // trace's last: the capture child may still be closing its files,
    // and once it is the only process left its lines have no pid. Where
    // the GUI is the last, its end may be the bare last line.
    let end = lines
        .iter()
        .filter_map(|l| l.strip_prefix("PID1")?.strip_prefix(['|', '\'']))
        .rfind(|rest| rest.starts_with(" Process "))
        .map(str::trim_start)
        .or_else(|| lines.last().map(String::as_str));
    assert_eq!(
        end,
        Some("Process terminated from signal SIGTERM"),
        "{trace}"
    );
    assert_file_holds_the_recording(&file);
}

/// Two clients at once, each a reader of its own: a tcpdump on usbmon0
/// takes the whole recording and then waits in its next fetch (it asks
/// for one event more), held by the emulation as on a quiet bus; only
/// then (the shell waits until its file holds the 34 records) a second
/// tcpdump captures bus 1's 10 events from usbmon1 while the first one's
/// call is held; then SIGINT ends the first, which writes its file. Each
/// file holds its bus's records of the recording, and the events printed
/// are, in order, the kernel's lines of all buses and then of bus 1.
#[test]
fn two_tcpdumps_on_two_buses_at_once() {
    let tcpdump = require("tcpdump", "tcpdump");
    let dir = scratch("two");
    let (all, bus1) = (dir.join("all.pcap"), dir.join("bus1.pcap"));
    let full = std::fs::metadata(USBMON_RECORDING).unwrap().len();
    let script = format!(
        "{t} -i usbmon0 -c 35 -U -w {all} & a=$!\n\
         i=0\n\
         until [ \"$(stat -c %s {all} 2>/dev/null)\" = {full} ]; do\n\
         \x20 i=$((i+1)); [ $i -gt 3000 ] && exit 9; sleep 0.1\n\
         done\n\
         {t} -i usbmon1 -c 10 -w {bus1} || exit 8\n\
         kill -INT $a\n\
         wait $a\n",
        t = tcpdump.display(),
        all = all.display(),
        bus1 = bus1.display(),
    );
    let run = replay(
        &dir,
        Path::new(USBMON_RECORDING),
        &[],
        &["/bin/sh", "-c", &script],
    );
    assert_eq!(run.code(), Some(0), "stderr:\n{}", run.stderr());
    let lines = run.lines();
    assert_eq!(diagnostics(&lines), Vec::<String>::new());
    // The first one's held fetch was ended by the SIGINT.
    assert!(
        lines
            .iter()
            .any(|l| l.contains("ioctl(3, MON_IOCX_MFETCH, {offvec=")
                && l.ends_with(") = -1 [EINTR]")),
        "{}",
        run.trace
    );
    let kernel = std::fs::read_to_string(KERNEL_TEXT).unwrap();
    let on_bus1 = |l: &&str| l.split(' ').nth(3).unwrap().split(':').nth(1) == Some("1");
    let want: Vec<&str> = kernel
        .lines()
        .chain(kernel.lines().filter(on_bus1))
        .collect();
    let ours = events(&lines);
    assert_eq!(ours.len(), want.len(), "{}", run.trace);
    for (ours, theirs) in ours.iter().zip(&want) {
        assert_eq!(untimed(ours), untimed(theirs));
    }
    assert_file_holds_the_recording(&all);
    let recorded = pcap_records(&std::fs::read(USBMON_RECORDING).unwrap(), 220);
    let want: Vec<_> = recorded
        .into_iter()
        .filter(|r| u16::from_le_bytes([r.3[12], r.3[13]]) == 1)
        .collect();
    assert_eq!(want.len(), 10);
    assert_eq!(pcap_records(&as_pcap(&bus1), 220), want);
}
