//! Shared test support: builds the C fixture programs, runs rtrace on them
//! and normalises the trace (pids, addresses) for whole-line comparison.

#![allow(dead_code)]

pub mod engines;
mod ioctl_names;
#[allow(unused_imports)]
pub use ioctl_names::{IOCTL_NAMES, NO_BTF, ioctl_names_expected};

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

/// A fixture binary's command name (fixtures are on the traced PATH).
pub fn name(bin: &Path) -> &str {
    bin.file_name().unwrap().to_str().unwrap()
}

/// Expected lines as owned strings, for comparing with normalised output.
pub fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|l| l.to_string()).collect()
}

/// The trace of the shapes fixture from its marker on.
pub const SHAPES: &[&str] = &[
    "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
    "pipe2([3, 4], 0) = 0",
    "write(4, \"hello\", 5) = 5",
    "read(3, \"hello\", 64) = 5",
    "openat(AT_FDCWD, \"/dev/null\", O_WRONLY|O_CLOEXEC) = 5",
    "write(5, \"\\33[31mred\\33[0m\\n\", 13) = 13",
    "write(4, &0x1, 10) = -1 [EFAULT]",
    "openat(AT_FDCWD, \"/nonexistent/x\", O_RDONLY) = -1 [ENOENT]",
    "close(5) = 0",
    "exit_group(3)",
    "Process exited normally with code 3",
];

/// The signals fixture's last lines with `-e trace=read`.
pub const SIGNAL_READS: &[&str] = &[
    "read(3, ** SIGWINCH ** ** SIGURG ** \"a\", 1) = 1",
    "read(3, ** SIGUSR1 ** ** SIGUSR1 ** \"b\", 1) = 1",
    "read(3, ** SIGUSR2 ** &ADDR, 1) = -1 [EINTR]",
    "** SIGRTMIN+1 **",
    "Process exited normally with code 0",
];

/// Trace `bin` with `-e trace=SET` through the seccomp fast path and by
/// stepping every call; each run must exit 0. Its normalised lines, by mode.
pub fn in_both_modes(bin: &Path, set: &str) -> Vec<(&'static str, Vec<String>)> {
    ["--seccomp-bpf", "--no-seccomp-bpf"]
        .into_iter()
        .map(|mode| {
            let run = trace(&["-e", set, mode], &[name(bin)]);
            assert_eq!(run.code(), Some(0), "{mode}: {}", run.stderr());
            (mode, run.lines())
        })
        .collect()
}

/// The trace of the fork_wait fixture with -f, from its marker on.
pub const FORK_WAIT: &[&str] = &[
    "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
    "fork() = PID2",
    "PID2| Tracing fork_wait (pid PID2)",
    "PID2| fork() = 0",
    "PID1| wait4(-1, <..>",
    "PID2| exit_group(7)",
    "PID2| Process exited normally with code 7",
    "PID1'*wait4(-1, W_EXITED(7), 0, NULL) = PID2",
    "** SIGCHLD **",
    "exit_group(0)",
    "Process exited normally with code 0",
];

/// The nested_signals fixture's trace after its marker and pipe calls.
pub const NESTED_SIGNALS: &[&str] = &[
    "read(3, ** SIGALRM ** <..>",
    "gettid() = PID1",
    "getpid() = PID1",
    "tgkill(PID1, PID1, SIGUSR1) = 0",
    "** SIGUSR1 **",
    "rt_sigreturn({mask=[ALRM]}) = 0",
    "write(1, \"x\", 1) = 1",
    "rt_sigreturn({mask=[]}) = -1 [EINTR]",
    "*read(3, &ADDR, 1) = -1 [EINTR]",
    "exit_group(0)",
    "Process exited normally with code 0",
];

/// The sleep_restart fixture's last lines with `-e trace=nanosleep`, the
/// time left shown as `LEFT` (see [`time_left`]).
pub const SLEEP_RESTART: &[&str] = &[
    "nanosleep({tv_sec=2, tv_nsec=0}, ** SIGWINCH ** ** SIGUSR1 ** LEFT) = -1 [EINTR]",
    "Process exited normally with code 0",
];

/// `line` with the time left of the sleep_restart fixture's 2 s sleep (a
/// measurement) replaced by `LEFT`, after checking it is a timespec within
/// the 2 s asked for; other lines unchanged.
pub fn time_left(line: &str) -> String {
    let Some((head, left)) = line.split_once("** SIGUSR1 ** {tv_sec=") else {
        return line.to_string();
    };
    let parsed = left.split_once(", tv_nsec=").and_then(|(sec, rest)| {
        let (nsec, tail) = rest.split_once('}')?;
        let ns = sec.parse::<u64>().ok()? * 1_000_000_000 + nsec.parse::<u64>().ok()?;
        Some((ns, tail))
    });
    match parsed {
        Some((ns, tail)) if ns > 0 && ns < 2_000_000_000 => {
            format!("{head}** SIGUSR1 ** LEFT{tail}")
        }
        _ => panic!("no time left within 2 s: {line}"),
    }
}

/// The rtrace binary under test.
pub fn rtrace() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rtrace"))
}

/// rtrace with the same fixed environment [`trace`] uses: only the
/// fixtures and the system's programs on PATH, the C locale.
pub fn rtrace_env() -> Command {
    let mut cmd = rtrace();
    cmd.env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", fixture_dir().display()))
        .env("LC_ALL", "C");
    cmd
}

/// A fresh path in the test scratch directory, `SUITE-TAG-PID-N`, made
/// unique per call so that tests running at once never share one.
pub fn scratch_path(suite: &str, tag: &str) -> std::path::PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "{suite}-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ))
}

static BUILD_LOCK: Mutex<()> = Mutex::new(());

/// Compile `tests/fixtures/NAME.c` (once per test run) and return its path.
pub fn fixture(name: &str) -> PathBuf {
    build_fixture(name, name, &[])
}

/// `tests/fixtures/NAME.c` compiled with the compiler options `flags`,
/// as `BIN_NAME`.
pub fn fixture_with(name: &str, bin_name: &str, flags: &[&str]) -> PathBuf {
    build_fixture(name, bin_name, flags)
}

/// `tests/fixtures/NAME.c` compiled as a 32-bit (i386) program, `NAME_m32`.
/// Needs the compiler's 32-bit libraries (Debian: gcc-multilib), which
/// .ci/run installs.
pub fn fixture_m32(name: &str) -> PathBuf {
    build_fixture(name, &format!("{name}_m32"), &["-m32"])
}

fn build_fixture(name: &str, bin_name: &str, flags: &[&str]) -> PathBuf {
    let _guard = BUILD_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let src_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let out_dir = fixture_dir();
    std::fs::create_dir_all(&out_dir).unwrap();
    let src = src_dir.join(format!("{name}.c"));
    let bin = out_dir.join(bin_name);
    let fresh = |p: &Path| p.metadata().and_then(|m| m.modified()).ok();
    // A fixture may include any header of the directory.
    let headers = std::fs::read_dir(&src_dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "h"));
    let newest_src = std::iter::once(src.clone())
        .chain(headers)
        .filter_map(|p| fresh(&p))
        .max();
    if fresh(&bin).is_some() && fresh(&bin) >= newest_src {
        return bin;
    }
    // Build under a temporary name and rename, so concurrent test binaries
    // never run a half-written executable.
    let tmp = out_dir.join(format!("{bin_name}.{}.tmp", std::process::id()));
    let status = Command::new("cc")
        .args(flags)
        .args(["-O1", "-pthread", "-Wall", "-o"])
        .arg(&tmp)
        .arg(&src)
        .status()
        .expect("a C compiler (cc) is needed to build the test fixtures");
    assert!(
        status.success(),
        "building fixture {bin_name} failed{}",
        if flags.contains(&"-m32") {
            " (32-bit fixtures need gcc-multilib)"
        } else {
            ""
        }
    );
    std::fs::rename(&tmp, &bin).unwrap();
    bin
}

/// Where fixture binaries are built; on the PATH of traced commands, so
/// tests run them by name and their argv[0] does not depend on the checkout.
pub fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("fixtures")
}

/// A finished rtrace run: its trace (from -o), exit status and stderr.
pub struct Run {
    pub trace: String,
    pub output: Output,
}

impl Run {
    /// The trace lines, normalised.
    pub fn lines(&self) -> Vec<String> {
        normalise(&self.trace)
    }

    /// The normalised lines from the fixture's marker call on.
    pub fn after_marker(&self) -> Vec<String> {
        let lines = self.lines();
        let start = lines
            .iter()
            .position(|l| l.contains("write(") && l.contains("\"BE"))
            .unwrap_or_else(|| panic!("no marker in trace:\n{}", self.trace));
        lines[start..].to_vec()
    }

    /// rtrace's exit code.
    pub fn code(&self) -> Option<i32> {
        self.output.status.code()
    }

    /// rtrace's stderr.
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }
}

/// Run rtrace with `args` before the command, writing the trace to a file.
/// The environment is fixed so `&ADDR /* N vars */` is stable.
pub fn trace(args: &[&str], command: &[&str]) -> Run {
    trace_env(args, command, &[])
}

/// [`trace`] with extra environment variables for the traced command.
pub fn trace_env(args: &[&str], command: &[&str], env: &[(&str, &str)]) -> Run {
    trace_in(rtrace(), args, command, env)
}

/// [`trace`] with rtrace started by `prefix` (a program and its
/// arguments, to which rtrace's path and arguments are added): rtrace in
/// a namespace of its own, say.
pub fn trace_under(prefix: &[&str], args: &[&str], command: &[&str]) -> Run {
    let mut cmd = Command::new(prefix[0]);
    cmd.args(&prefix[1..]).arg(env!("CARGO_BIN_EXE_rtrace"));
    trace_in(cmd, args, command, &[])
}

/// The text of trace file `out` once `ready` holds of it, polled every
/// 5 ms for at most `within`; the text last read if it never does.
pub fn trace_file_when(
    out: &Path,
    within: std::time::Duration,
    ready: impl Fn(&str) -> bool,
) -> Result<String, String> {
    let start = std::time::Instant::now();
    loop {
        let text = std::fs::read_to_string(out).unwrap_or_default();
        if ready(&text) {
            return Ok(text);
        }
        if start.elapsed() > within {
            return Err(text);
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// [`trace`] with the address space laid out the same in every run
/// (`personality(ADDR_NO_RANDOMIZE)`, which rtrace's child inherits): two
/// runs' addresses are then equal, so comparing runs needs no guess at
/// which numbers are addresses. An i386 program's random base takes one
/// of 256 values, too few to tell an address from a constant by a third
/// run.
pub fn trace_same_layout(args: &[&str], command: &[&str]) -> Run {
    let mut cmd = rtrace();
    same_layout(&mut cmd);
    trace_in(cmd, args, command, &[])
}

/// `cmd` run with its address space laid out the same in every run
/// (`personality(ADDR_NO_RANDOMIZE)`, inherited by what it starts): two
/// tracers' runs of one program then see the same addresses.
pub fn same_layout(cmd: &mut Command) -> &mut Command {
    // SAFETY: personality is async-signal-safe and changes only this
    // (forked) process's execution domain.
    unsafe {
        use std::os::unix::process::CommandExt;
        cmd.pre_exec(|| {
            // Added to the persona inherited, which is kept. Where a
            // seccomp profile refuses the change, the run goes on laid
            // out at random: a comparison may then fail by chance, as
            // before, but it still runs.
            let now = libc::personality(0xffff_ffff);
            if now != -1 {
                libc::personality(
                    (now as libc::c_ulong) | libc::ADDR_NO_RANDOMIZE as libc::c_ulong,
                );
            }
            Ok(())
        })
    }
}

fn trace_in(mut cmd: Command, args: &[&str], command: &[&str], env: &[(&str, &str)]) -> Run {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join(format!(
        "trace-{}-{}.txt",
        std::process::id(),
        COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    // Fixtures count on fds from 3 up being free: close whatever the test
    // runner inherited.
    // SAFETY: close_range is async-signal-safe and touches only fds.
    unsafe {
        use std::os::unix::process::CommandExt;
        cmd.pre_exec(|| {
            libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32);
            Ok(())
        });
    }
    let output = cmd
        .arg("-o")
        .arg(&file)
        .args(args)
        .args(command)
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", fixture_dir().display()))
        .env("LC_ALL", "C")
        .envs(env.iter().copied())
        .output()
        .expect("run rtrace");
    let trace = std::fs::read_to_string(&file).unwrap_or_default();
    let _ = std::fs::remove_file(&file);
    for line in trace.lines() {
        assert!(!line.ends_with(' '), "line ends in a space: {line:?}");
    }
    Run { trace, output }
}

/// A device emulator (a seccomp user-notification supervisor from
/// tests/fixtures) listening on a unix socket until dropped.
pub struct Emulator {
    child: std::process::Child,
    /// The socket the traced client connects to.
    pub socket: PathBuf,
}

impl Emulator {
    /// Start fixture `name` with `args` after its socket path, and wait
    /// until it says `ready`.
    pub fn start(name: &str, args: &[&str]) -> Emulator {
        use std::io::BufRead;
        let bin = fixture(name);
        let socket = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "{name}-{}-{}.sock",
            std::process::id(),
            COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        let _ = std::fs::remove_file(&socket);
        let mut child = Command::new(bin)
            .arg(&socket)
            .args(args)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("start the emulator");
        let mut line = String::new();
        let stdout = child.stdout.take().unwrap();
        std::io::BufReader::new(stdout)
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line, "ready\n", "{name} did not start");
        Emulator { child, socket }
    }

    /// The socket path as a string, for the client's environment.
    pub fn socket(&self) -> &str {
        self.socket.to_str().unwrap()
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        // It exits by itself once its client is gone; don't wait forever.
        for _ in 0..50 {
            if let Ok(Some(_)) = self.child.try_wait() {
                let _ = std::fs::remove_file(&self.socket);
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.socket);
    }
}

static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Calls whose arguments or result are pids: in their lines every number
/// equal to a traced pid is taken to be that pid.
const PID_CALLS: &[&str] = &[
    "clone",
    "clone3",
    "fork",
    "vfork",
    "getpid",
    "kcmp",
    "getppid",
    "gettid",
    "getpgid",
    "getpgrp",
    "getsid",
    "setpgid",
    "setsid",
    "kill",
    "tkill",
    "tgkill",
    "rt_sigqueueinfo",
    "rt_tgsigqueueinfo",
    "set_tid_address",
    "wait4",
    "waitid",
    "pidfd_open",
    "prlimit64",
    "ptrace",
    "sched_getaffinity",
    "sched_setaffinity",
    "sched_getparam",
    "sched_setparam",
    "sched_getscheduler",
    "sched_setscheduler",
    "process_vm_readv",
    "process_vm_writev",
];

/// Replace pids by PID1, PID2... (in order of their banners) and tracee
/// addresses by ADDR; nothing else changes.
///
/// Only numbers that stand where a pid stands are replaced (the line's pid
/// prefix, `pid N`, `si_pid=N` and the like, and the calls of
/// [`PID_CALLS`]): a byte count or a usbmon length that happens to equal a
/// pid stays a number.
pub fn normalise(trace: &str) -> Vec<String> {
    let mut pids: HashMap<String, String> = HashMap::new();
    for line in trace.lines() {
        if let Some(i) = line.find("(pid ") {
            let rest = &line[i + 5..];
            let pid: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
            let n = pids.len() + 1;
            pids.entry(pid).or_insert_with(|| format!("PID{n}"));
        }
    }
    trace
        .lines()
        .map(|line| normalise_line(line, &pids))
        .collect()
}

/// One line of [`normalise`].
fn normalise_line(line: &str, pids: &HashMap<String, String>) -> String {
    let pid_call = PID_CALLS.contains(&call_name(line));
    let mut out = String::with_capacity(line.len());
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let word_start = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        if line[i..].starts_with("0x")
            && word_start
            && i >= 1
            && matches!(bytes[i - 1], b'&' | b' ')
            && is_address(&line[i..])
        {
            let len = 2 + line[i + 2..]
                .bytes()
                .take_while(u8::is_ascii_hexdigit)
                .count();
            out.push_str("ADDR");
            i += len;
            continue;
        }
        if c.is_ascii_digit() && word_start {
            let len = line[i..].bytes().take_while(u8::is_ascii_digit).count();
            let word = &line[i..i + len];
            let next = bytes.get(i + len).copied();
            if !next.is_some_and(|b| b.is_ascii_alphanumeric())
                && (pid_call || stands_for_a_pid(&line[..i], next))
                && let Some(name) = pids.get(word)
            {
                out.push_str(name);
            } else {
                out.push_str(word);
            }
            i += len;
            continue;
        }
        out.push(c as char);
        i += 1;
    }
    out
}

/// Whether a number after `before` and before `next` is in a pid's place:
/// the line's prefix (`1234|`, `1234'`), `pid 1234`, or the value of a
/// field named for a pid or thread id (`si_pid=`, `nl_pid=`, `"pid":`,
/// `sigev_notify_thread_id=`).
fn stands_for_a_pid(before: &str, next: Option<u8>) -> bool {
    if before.is_empty() {
        return matches!(next, Some(b'|' | b'\''));
    }
    if before.ends_with("pid ") {
        return true;
    }
    let Some(key) = before
        .strip_suffix('=')
        .or_else(|| before.strip_suffix("\":"))
    else {
        return false;
    };
    let key = key.trim_end_matches('"');
    key.ends_with("pid") || key.ends_with("tid") || key.ends_with("thread_id")
}

/// The name of the call a trace line is about (`wait4` in `1234|*wait4(`),
/// or "" for other lines.
fn call_name(line: &str) -> &str {
    let body = line.trim_start_matches(|c: char| c.is_ascii_digit());
    let body = body.trim_start_matches(['|', '\'', '*', ' ']);
    let body = body.strip_prefix("<... ").unwrap_or(body);
    let end = body
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(body.len());
    if body[end..].starts_with('(') || body[end..].starts_with(" resumed") {
        &body[..end]
    } else {
        ""
    }
}

/// A hex number long enough to be a user-space address (not a flag value).
fn is_address(s: &str) -> bool {
    s[2..].bytes().take_while(u8::is_ascii_hexdigit).count() >= 8
}

/// The diagnostic lines of a trace (`** usbmon: ... **`, `** user_events:
/// ... **`), with or without a pid prefix before them.
pub fn diagnostics(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| {
            let text = l
                .split_once(['|', '\''])
                .filter(|(pid, _)| pid.starts_with("PID"))
                .map_or(l.as_str(), |(_, rest)| rest.trim_start());
            text.starts_with("** usbmon:") || text.starts_with("** user_events:")
        })
        .cloned()
        .collect()
}

/// Bytes as rtrace quotes them, in strace's octal (`"\0\1"`, `"\0017"`
/// before an octal digit); `cut` adds the `..` of a cut string.
pub fn quoted(bytes: &[u8], cut: bool) -> String {
    let mut s = String::from("\"");
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'\n' => s.push_str("\\n"),
            b'\t' => s.push_str("\\t"),
            b'\r' => s.push_str("\\r"),
            0x0b => s.push_str("\\v"),
            0x0c => s.push_str("\\f"),
            b'"' | b'\\' => {
                s.push('\\');
                s.push(b as char);
            }
            0x20..=0x7e => s.push(b as char),
            _ if bytes.get(i + 1).is_some_and(|n| (b'0'..=b'7').contains(n)) => {
                s.push_str(&format!("\\{b:03o}"))
            }
            _ => s.push_str(&format!("\\{b:o}")),
        }
    }
    s.push('"');
    if cut {
        s.push_str("..");
    }
    s
}

/// The usbmon events rtrace printed, in order, without the pid prefix and
/// the `  > ` marker.
pub fn events(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter_map(|l| {
            let body = match l.strip_prefix("PID") {
                Some(rest) => rest[rest.find(['|', '\''])? + 1..].strip_prefix(' ')?,
                None => l.as_str(),
            };
            body.strip_prefix("  > ").map(str::to_string)
        })
        .collect()
}

/// All words of a usbmon event line but the timestamp (the kernel's text
/// API has its own clock).
pub fn untimed(line: &str) -> Vec<&str> {
    line.split(' ')
        .enumerate()
        .filter(|&(i, _)| i != 1)
        .map(|(_, w)| w)
        .collect()
}

/// The real usbmon capture the replay tests play: 34 events of a qemu
/// xhci bus, with the kernel's own text rendering beside it.
pub const USBMON_RECORDING: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/usbmon/qemu-xhci-0u.pcap"
);

/// The records of a little-endian microsecond pcap of link type `link`:
/// (seconds, microseconds, original length, captured bytes).
pub fn pcap_records(bytes: &[u8], link: u32) -> Vec<(u32, u32, u32, Vec<u8>)> {
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    assert!(bytes.len() >= 24, "not a pcap file");
    assert_eq!(word(0), 0xa1b2_c3d4, "not a microsecond little-endian pcap");
    assert_eq!(word(20), link, "link type");
    let mut records = Vec::new();
    let mut at = 24;
    while at + 16 <= bytes.len() {
        let incl = word(at + 8) as usize;
        let data = bytes[at + 16..at + 16 + incl].to_vec();
        records.push((word(at), word(at + 4), word(at + 12), data));
        at += 16 + incl;
    }
    records
}

/// `written`, the pcap a capture program wrote to `file` (as pcap, link
/// type 220), holds the `events` records of [`USBMON_RECORDING`]: same
/// headers, same data, same time stamps.
pub fn assert_holds_the_recording(written: &[u8], file: &Path, events: usize) {
    let written = pcap_records(written, 220);
    let recorded = pcap_records(&std::fs::read(USBMON_RECORDING).unwrap(), 220);
    assert_eq!(recorded.len(), events);
    assert_eq!(
        written.len(),
        events,
        "{} holds {} events",
        file.display(),
        written.len()
    );
    for (i, (w, r)) in written.iter().zip(&recorded).enumerate() {
        assert_eq!(
            w,
            r,
            "event {} of {} differs from the recording",
            i + 1,
            file.display()
        );
    }
}

/// Whether `line` matches `pattern`, where `#` stands for one or more
/// digits (a value that varies from run to run: a time left, an id) and
/// `*` for any text.
pub fn matches_digits(pattern: &str, line: &str) -> bool {
    let (p, l) = (pattern.as_bytes(), line.as_bytes());
    match p.first() {
        None => l.is_empty(),
        Some(b'*') => (0..=l.len()).any(|k| matches_digits(&pattern[1..], &line[k..])),
        Some(b'#') => {
            let digits = l.iter().take_while(|c| c.is_ascii_digit()).count();
            (1..=digits).any(|k| matches_digits(&pattern[1..], &line[k..]))
        }
        Some(&c) => l.first() == Some(&c) && matches_digits(&pattern[1..], &line[1..]),
    }
}

/// Compare whole lines against patterns of [`matches_digits`]; on a
/// mismatch show the first difference and the whole trace, saying which
/// run (`what`, may be empty) differed.
pub fn assert_lines_in<E: AsRef<str> + std::fmt::Debug>(
    actual: &[String],
    expected: &[E],
    what: &str,
) {
    let first = actual
        .iter()
        .zip(expected)
        .position(|(a, e)| !matches_digits(e.as_ref(), a))
        .or((actual.len() != expected.len()).then(|| actual.len().min(expected.len())));
    if let Some(at) = first {
        panic!(
            "{what} trace differs at line {at}:\n  actual:   {:?}\n  expected: {:?}\nwhole trace:\n{}",
            actual.get(at),
            expected.get(at),
            actual.join("\n")
        );
    }
}

/// [`assert_lines_in`] for the one run of a test.
pub fn assert_lines<E: AsRef<str> + std::fmt::Debug>(actual: &[String], expected: &[E]) {
    assert_lines_in(actual, expected, "");
}

/// Whether the tests run as root; if not, say on stderr that `test` is
/// skipped because it needs `what` (network namespaces, packet sockets),
/// and the caller passes without asserting.
pub fn root_or_skip(test: &str, what: &str) -> bool {
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    if !root {
        eprintln!("{test}: not root, no {what}: test skipped");
    }
    root
}

/// Each line with every `(regex, replacement)` rule applied in order: the
/// values the kernel picks per run (inodes, cookies, handles) made fixed.
pub fn rewrite(lines: &[String], rules: &[(&str, &str)]) -> Vec<String> {
    let rules: Vec<(regex::Regex, &str)> = rules
        .iter()
        .map(|(re, to)| (regex::Regex::new(re).expect("a valid rule"), *to))
        .collect();
    lines
        .iter()
        .map(|l| {
            rules.iter().fold(l.clone(), |l, (re, to)| {
                re.replace_all(&l, *to).into_owned()
            })
        })
        .collect()
}
