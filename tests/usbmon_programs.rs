//! The real capture programs under `rtrace -f`: unmodified tcpdump, dumpcap,
//! tshark and wireshark (Qt, offscreen) capture from /dev/usbmon0 of the
//! usbmon emulation (tests/fixtures/usbmon_emu.c), started through the
//! launcher tests/fixtures/usbmon_run.c, which hands them and all their
//! children to the emulator. Every event rtrace prints must be the kernel's
//! own text line of that event (tests/data/usbmon/qemu-xhci-0u.txt), and
//! the capture file each program writes, read back with `tcpdump -r`, must
//! hold the recording's events byte for byte.
//!
//! The programs come from Debian (tcpdump, tshark, wireshark-qt; .ci/run
//! installs them). A missing one fails its test with a message saying so.

mod common;

use common::{
    Emulator, USBMON_RECORDING, assert_holds_the_recording, diagnostics, events, fixture,
    fixture_dir, normalise, rtrace, untimed,
};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The kernel text API's lines for the recording's events, in order.
const KERNEL_TEXT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/usbmon/qemu-xhci-0u.txt"
);

const EVENTS: usize = 34;

/// Where the traced programs are looked for (and the PATH they get).
const SYSTEM_PATH: &str = "/usr/bin:/bin:/usr/sbin:/sbin";

/// `program`'s path, or a failure that says plainly it is not installed.
fn require(program: &str, package: &str) -> PathBuf {
    SYSTEM_PATH
        .split(':')
        .map(|dir| Path::new(dir).join(program))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "{program} is not installed: this test runs the real program \
                 (Debian package {package}; .ci/run installs it)"
            )
        })
}

/// A fresh scratch directory for one test: the capture file, the trace,
/// the programs' HOME and their output.
fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("usbmon-programs-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("home")).unwrap();
    dir
}

/// A finished traced run.
struct Traced {
    /// The normalised trace.
    lines: Vec<String>,
    /// rtrace's exit code (None: killed by a signal).
    code: Option<i32>,
    /// What the traced programs wrote on stdout.
    stdout: String,
    /// What the traced programs and rtrace wrote on stderr.
    stderr: String,
}

/// Run `rtrace -f usbmon_run COMMAND...` against a fresh emulator in
/// `dir`. With `stop_when`, rtrace gets SIGTERM (which it passes on to the
/// command) once the raw trace satisfies it. Fails after `limit`.
fn trace_program(
    dir: &Path,
    command: &[&str],
    env: &[(&str, &str)],
    stop_when: Option<&dyn Fn(&str) -> bool>,
    limit: Duration,
) -> Traced {
    let emu = Emulator::start(
        "usbmon_emu",
        &[
            USBMON_RECORDING,
            "--timeout",
            &(limit.as_secs() + 30).to_string(),
        ],
    );
    fixture("usbmon_run");
    let trace_file = dir.join("trace.txt");
    let stdout_file = dir.join("stdout.txt");
    let stderr_file = dir.join("stderr.txt");
    let mut cmd = rtrace();
    // SAFETY: close_range is async-signal-safe and touches only fds.
    unsafe {
        use std::os::unix::process::CommandExt;
        cmd.pre_exec(|| {
            libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32);
            Ok(())
        });
    }
    let mut child = cmd
        .arg("-f")
        // The timeout below SIGKILLs rtrace: the programs must not live on
        // (pinned to one CPU, holding the emulator) after a failed test.
        .arg("--kill-on-exit")
        .arg("-o")
        .arg(&trace_file)
        .arg("usbmon_run")
        .args(command)
        .env_clear()
        .env("PATH", format!("{}:{SYSTEM_PATH}", fixture_dir().display()))
        .env("LC_ALL", "C")
        .env("HOME", dir.join("home"))
        .env("USBMON_EMU_SOCKET", emu.socket())
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout_file).unwrap())
        .stderr(std::fs::File::create(&stderr_file).unwrap())
        .spawn()
        .expect("run rtrace");
    let start = Instant::now();
    let mut stopped = false;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{command:?} under rtrace did not finish within {limit:?}; stderr:\n{}\ntrace tail:\n{}",
                std::fs::read_to_string(&stderr_file).unwrap_or_default(),
                tail(&std::fs::read_to_string(&trace_file).unwrap_or_default())
            );
        }
        if let Some(done) = stop_when
            && !stopped
            && done(&std::fs::read_to_string(&trace_file).unwrap_or_default())
        {
            // SAFETY: a plain kill(2) of our own child.
            unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
            stopped = true;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let trace = std::fs::read_to_string(&trace_file).unwrap_or_default();
    for line in trace.lines() {
        assert!(!line.ends_with(' '), "line ends in a space: {line:?}");
    }
    Traced {
        lines: normalise(&trace),
        code: status.code(),
        stdout: std::fs::read_to_string(&stdout_file).unwrap_or_default(),
        stderr: std::fs::read_to_string(&stderr_file).unwrap_or_default(),
    }
}

/// The last lines of a trace, for failure messages.
fn tail(trace: &str) -> String {
    let lines: Vec<&str> = trace.lines().collect();
    lines[lines.len().saturating_sub(30)..].join("\n")
}

/// Every event rtrace printed equals the kernel's line of it, in order,
/// there is one for each event of the recording, and no diagnostic.
fn assert_events_are_the_kernels(traced: &Traced) {
    let kernel = std::fs::read_to_string(KERNEL_TEXT).unwrap();
    let kernel: Vec<&str> = kernel.lines().collect();
    assert_eq!(kernel.len(), EVENTS);
    // A correct capture program breaks no rule of the ABI.
    assert_eq!(
        diagnostics(&traced.lines),
        Vec::<String>::new(),
        "a correct program got diagnostics"
    );
    let ours = events(&traced.lines);
    assert_eq!(
        ours.len(),
        EVENTS,
        "rtrace printed {} events, want {EVENTS}:\n{ours:#?}\nstderr:\n{}",
        ours.len(),
        traced.stderr
    );
    for (ours, theirs) in ours.iter().zip(&kernel) {
        assert_eq!(
            untimed(ours),
            untimed(theirs),
            "\n ours:   {ours}\n kernel: {theirs}"
        );
    }
}

/// The capture file `file` the program wrote, read back with `tcpdump -r`
/// (which also reads pcapng) and written as pcap, holds the recording's
/// events: same headers, same data, same time stamps.
fn assert_file_holds_the_recording(file: &Path) {
    let tcpdump = require("tcpdump", "tcpdump");
    let out = Command::new(tcpdump)
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
    assert_holds_the_recording(&out.stdout, file, EVENTS);
}

/// A capture program that stops by itself after `-c 34`.
fn capture_and_check(
    test: &str,
    program: &str,
    package: &str,
    file_name: &str,
    extra: &[&str],
) -> Vec<String> {
    require(program, package);
    let dir = scratch(test);
    let file = dir.join(file_name);
    let count = EVENTS.to_string();
    let traced = trace_program(
        &dir,
        &[
            &[program][..],
            extra,
            &["-i", "usbmon0", "-c", &count, "-w", file.to_str().unwrap()],
        ]
        .concat(),
        &[],
        None,
        Duration::from_secs(300),
    );
    assert_eq!(
        traced.code,
        Some(0),
        "{program}: rtrace exit {:?}; stderr:\n{}",
        traced.code,
        traced.stderr
    );
    assert_events_are_the_kernels(&traced);
    assert_file_holds_the_recording(&file);
    let _ = std::fs::remove_dir_all(&dir);
    traced.lines
}

#[test]
fn tcpdump_captures_usbmon0() {
    capture_and_check("tcpdump", "tcpdump", "tcpdump", "capture.pcap", &[]);
}

/// A snapshot length makes libpcap ask for a ring size that is not a
/// multiple of the page (327355 bytes for 65535), which the kernel rounds
/// up: no misuse, and no diagnostic, but the call's line says what the
/// kernel made of it.
#[test]
fn tcpdump_with_a_snapshot_length_captures_usbmon0() {
    let lines = capture_and_check(
        "tcpdump-s",
        "tcpdump",
        "tcpdump",
        "capture.pcap",
        &["-s", "65535"],
    );
    let ring = "MON_IOCT_RING_SIZE, 327355) = 0 (rounded up to 327680)";
    assert!(
        lines
            .iter()
            .any(|l| l.contains("ioctl(") && l.ends_with(ring)),
        "no line ending {ring:?}:\n{}",
        lines.join("\n")
    );
}

#[test]
fn dumpcap_captures_usbmon0() {
    capture_and_check(
        "dumpcap",
        "dumpcap",
        "wireshark-common",
        "capture.pcapng",
        &[],
    );
}

#[test]
fn tshark_captures_usbmon0() {
    capture_and_check("tshark", "tshark", "tshark", "capture.pcapng", &[]);
}

/// The pid of the dumpcap that captures to a file (wireshark's capture
/// child, `dumpcap ... -i usbmon0 ... -w FILE`) in a raw `-f` trace.
fn capture_child(trace: &str) -> Option<&str> {
    trace
        .lines()
        .find(|l| l.contains("execve(\"") && l.contains("/dumpcap\", [") && l.contains("\"-w\""))
        .and_then(|l| l.split(['|', '\'']).next())
}

/// Whether wireshark's capture child has ended (exited: it fetched every
/// event it was asked for; or killed, which the checks then report).
fn capture_done(trace: &str) -> bool {
    let Some(pid) = capture_child(trace) else {
        return false;
    };
    trace.lines().any(|l| {
        l.strip_prefix(pid)
            .and_then(|rest| rest.strip_prefix(['|', '\'']))
            .is_some_and(|rest| rest.starts_with(" Process "))
    })
}

#[test]
fn wireshark_captures_usbmon0() {
    require("wireshark", "wireshark-qt");
    require("dumpcap", "wireshark-common");
    let dir = scratch("wireshark");
    let file = dir.join("capture.pcapng");
    let count = EVENTS.to_string();
    // The GUI stays up after its capture stopped (-c): once the capture
    // child has exited, rtrace gets SIGTERM, which it passes on to
    // wireshark.
    let traced = trace_program(
        &dir,
        &[
            "wireshark",
            "-k",
            "-i",
            "usbmon0",
            "-c",
            &count,
            "-w",
            file.to_str().unwrap(),
        ],
        &[("QT_QPA_PLATFORM", "offscreen")],
        Some(&capture_done),
        Duration::from_secs(600),
    );
    // The capture child is one of wireshark's dumpcap children; others
    // list the interfaces (-D, and -S, which opens every usbmon bus for
    // its statistics) but fetch no event.
    for args in [
        "/dumpcap\", \"-D\", \"-Z\", \"none\"]",
        "/dumpcap\", \"-S\", \"-Z\", \"none\"]",
    ] {
        assert!(
            traced.lines.iter().any(|l| l.contains(args)),
            "wireshark did not run dumpcap {args}"
        );
    }
    // The GUI was still up when its capture had ended, and the SIGTERM
    // ended it.
    let end = "Process terminated from signal SIGTERM";
    assert!(
        traced
            .lines
            .iter()
            .any(|l| *l == format!("PID1' {end}") || *l == format!("PID1| {end}")),
        "wireshark did not end by the SIGTERM; stderr:\n{}",
        traced.stderr
    );
    assert_events_are_the_kernels(&traced);
    assert_file_holds_the_recording(&file);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `dumpcap -D` (what wireshark runs for its interface list) finds the
/// usbmon interfaces by reading /dev: the launcher's /dev lists the nodes
/// the emulated device has, and libpcap names them.
#[test]
fn dumpcap_lists_the_usbmon_interfaces() {
    require("dumpcap", "wireshark-common");
    let dir = scratch("list");
    let traced = trace_program(
        &dir,
        &["dumpcap", "-D"],
        &[],
        None,
        Duration::from_secs(120),
    );
    assert_eq!(traced.code, Some(0), "stderr:\n{}", traced.stderr);
    // "N. usbmon2": the numbers depend on the host's other interfaces.
    let usbmon: Vec<&str> = traced
        .stdout
        .lines()
        .filter_map(|l| l.split_once(". ").map(|(_, name)| name))
        .filter(|name| name.starts_with("usbmon"))
        .collect();
    assert_eq!(
        usbmon,
        ["usbmon2", "usbmon1", "usbmon0"],
        "stdout:\n{}",
        traced.stdout
    );
    // The launcher asked the device which nodes exist, as a program would.
    for (bus, result) in [
        (0, "ENOTDIR"),
        (1, "ENOTDIR"),
        (2, "ENOTDIR"),
        (3, "ENOENT"),
    ] {
        let line = format!(
            "openat(AT_FDCWD, \"/dev/usbmon{bus}\", O_RDONLY|O_DIRECTORY|O_CLOEXEC) = -1 [{result}]"
        );
        assert!(traced.lines.contains(&line), "missing {line}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// dumpcap waits for its device in pselect6 between fetches: readable while
/// events are queued, and once the recording is used up the wait times out
/// (250 ms) as it does on a quiet bus, so `-a duration:2` ends the capture.
/// (Were the ring always readable, dumpcap would block in MFETCH for ever.)
#[test]
fn dumpcap_waits_in_pselect6_until_its_duration_is_up() {
    require("dumpcap", "wireshark-common");
    let dir = scratch("duration");
    let file = dir.join("capture.pcapng");
    let traced = trace_program(
        &dir,
        &[
            "dumpcap",
            "-i",
            "usbmon0",
            "-a",
            "duration:2",
            "-w",
            file.to_str().unwrap(),
        ],
        &[],
        None,
        Duration::from_secs(300),
    );
    assert_eq!(traced.code, Some(0), "stderr:\n{}", traced.stderr);
    let select = "pselect6(4, [3], NULL, NULL, {tv_sec=0, tv_nsec=250000000}, NULL) = ";
    let waits: Vec<&str> = traced
        .lines
        .iter()
        .filter_map(|l| l.strip_prefix(select))
        .collect();
    // One ready wait per event (with what is left of the 250 ms), then
    // only timeouts.
    let ready = waits
        .iter()
        .take_while(|r| {
            r.strip_prefix("1 {readfds=[3], left={tv_sec=0, tv_nsec=")
                .and_then(|r| r.strip_suffix("}}"))
                .is_some_and(|ns| ns.parse::<u32>().is_ok())
        })
        .count();
    assert_eq!(ready, EVENTS, "{waits:#?}");
    assert!(waits.len() > EVENTS, "no wait timed out: {waits:#?}");
    assert!(
        waits[EVENTS..].iter().all(|r| *r == "0 (Timeout)"),
        "{waits:#?}"
    );
    assert_events_are_the_kernels(&traced);
    assert_file_holds_the_recording(&file);
    let _ = std::fs::remove_dir_all(&dir);
}

/// What dumpcap's wait needs from the emulation, call by call: a usbmon fd
/// is readable while events are queued and never writable, mixed with a
/// pipe and a bad fd, through poll, ppoll, select and pselect6, with and
/// without a wait (the fixture checks every result and the time left).
#[test]
fn poll_and_select_on_usbmon_fds() {
    let emu = Emulator::start("usbmon_emu", &[USBMON_RECORDING, "--timeout", "60"]);
    fixture("usbmon_poll");
    let run = common::trace_env(
        &["-f"],
        &["usbmon_poll"],
        &[("USBMON_EMU_SOCKET", emu.socket())],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = run.after_marker();
    for line in [
        "poll([{fd=3, events=POLLIN}], 1, 0) = 1 [{fd=3, revents=POLLIN}]",
        "poll([{fd=3, events=POLLIN|POLLRDNORM}], 1, 0) = 1 [{fd=3, revents=POLLIN|POLLRDNORM}]",
        "poll([{fd=3, events=POLLOUT}], 1, 0) = 0 (Timeout)",
        "ioctl(3, MON_IOCH_MFLUSH, 1000) = 34",
        "poll([{fd=3, events=POLLIN}], 1, 30) = 0 (Timeout)",
        "poll([{fd=3, events=POLLIN}, {fd=4, events=POLLIN}], 2, 0) = 1 [{fd=4, revents=POLLIN}]",
        "poll([{fd=3, events=POLLIN}, {fd=99, events=POLLIN}], 2, 0) = 1 [{fd=99, revents=POLLNVAL}]",
        "ppoll([{fd=3, events=POLLIN}], 1, {tv_sec=0, tv_nsec=20000000}, NULL, 8) = 0 (Timeout)",
        "pselect6(4, [3], NULL, NULL, {tv_sec=0, tv_nsec=20000000}, NULL) = 0 (Timeout)",
        "select(4, [3], NULL, NULL, {tv_sec=0, tv_usec=20000}) = 0 (Timeout)",
        "pselect6(100, [3 99], NULL, NULL, {tv_sec=0, tv_nsec=0}, NULL) = -1 [EBADF]",
        "poll([{fd=3, events=POLLIN}, {fd=6, events=POLLIN}], 2, 0) = 1 [{fd=6, revents=POLLIN}]",
    ] {
        assert!(
            lines.contains(&line.to_string()),
            "missing {line}\n{lines:#?}"
        );
    }
    // The wait a pipe's data ends, with the time left, which the machine
    // decides.
    let pselect = "pselect6(5, [3 4], NULL, NULL, {tv_sec=1, tv_nsec=0}, {sigmask=NULL, sigsetsize=8}) \
                   = 1 {readfds=[4], left={tv_sec=";
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with(pselect) && l.ends_with("}}")),
        "missing {pselect}...\n{lines:#?}"
    );
    // The wait only the child's write ends: cut by the child's lines and
    // replayed (`*`), unless the child wrote before the wait began.
    let wait =
        "poll([{fd=3, events=POLLIN}, {fd=4, events=POLLIN}], 2, -1) = 1 [{fd=4, revents=POLLIN}]";
    assert!(
        lines
            .iter()
            .any(|l| *l == format!("PID1|*{wait}") || *l == format!("PID1| {wait}")),
        "missing {wait}\n{lines:#?}"
    );
}
