//! Comparing the two engines' traces of one program (tests/bpf.rs,
//! tests/bpf_fixtures.rs): each run with the same address layout and
//! normalised, lines compared per process, a second ptrace run telling
//! the values of the moment, and the differences HACKING.md lists
//! recognised by what they are.

use super::{fixture, name, trace_same_layout};
use std::path::Path;

/// The normalised trace of `bin` by each engine, from the fixture's marker
/// call on if it has one (`write(-1, "BEGIN", 5)`, found by its call: the
/// BPF engine may show its string as a pointer, see [`known_difference`]).
pub fn both(bin: &Path, args: &[&str]) -> (Vec<String>, Vec<String>) {
    let mut traces = runs(bin, args, &[&[], &["--bpf"]]);
    let bpf = traces.pop().expect("two runs");
    (traces.pop().expect("two runs"), bpf)
}

/// The normalised traces of `bin`, one for each of `engines` (rtrace's
/// arguments put before `args`), in that order.
pub fn runs(bin: &Path, args: &[&str], engines: &[&[&str]]) -> Vec<Vec<String>> {
    let scratch = Scratch::for_fixture(name(bin));
    let run = |extra: &[&str]| {
        let mut all = extra.to_vec();
        all.extend_from_slice(args);
        let mut command = vec![name(bin)];
        command.extend(scratch.fresh());
        let run = trace_same_layout(&all, &command);
        assert!(run.code().is_some(), "{}", run.stderr());
        assert_ne!(
            run.code(),
            Some(scratch.usage_code()),
            "{} did not run: {}",
            name(bin),
            run.stderr()
        );
        let lines = run.lines();
        let start = lines
            .iter()
            .position(|l| l.starts_with("write(-1, "))
            .unwrap_or(0);
        lines[start..]
            .iter()
            .map(|l| without_ports(l))
            .collect::<Vec<_>>()
    };
    engines.iter().map(|extra| run(extra)).collect()
}

/// A line's tokens: a quoted string whole (with its escapes), a run of
/// letters, digits and `_.:+-` (a number, a name, a date), or one other
/// character; spaces between them dropped.
pub fn tokens(line: &str) -> Vec<&str> {
    let bytes = line.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b"_.:+-".contains(&b);
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        if bytes[i] == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(bytes.len());
        } else if word(bytes[i]) {
            while i < bytes.len() && word(bytes[i]) {
                i += 1;
            }
        } else {
            i += 1;
        }
        if !line[start..i].trim().is_empty() {
            out.push(&line[start..i]);
        }
    }
    out
}

/// Whether `bpf` is `ptrace` but for the tokens in which `again` (the
/// same line of a second ptrace run) differs from `ptrace`: values of the
/// moment (a fresh file's inode and times, a file system's free blocks,
/// an address, random bytes), which differ from run to run whatever the
/// engine.
pub fn same_but_for_the_moment(ptrace: &str, again: &str, bpf: &str) -> bool {
    let (p, a, b) = (tokens(ptrace), tokens(again), tokens(bpf));
    let moment = moment_values(&p);
    p.len() == a.len()
        && p.len() == b.len()
        && (0..p.len()).all(|i| p[i] == b[i] || p[i] != a[i] || moment[i])
}

/// The fields whose values are of the moment even where two runs happen
/// to agree: a file system's free counts (any write to it, from any
/// process, changes them), the machine's state sysinfo reports (its
/// processes, free memory, load), CPU times and a timer's time left (a
/// timer's value, select's and pselect6's timeout left, which two runs
/// can give to the microsecond and a third not).
pub const MOMENT_FIELDS: &[&str] = &[
    "left",
    "f_bfree",
    "f_bavail",
    "f_ffree",
    "uptime",
    "loads",
    "freeram",
    "sharedram",
    "bufferram",
    "freeswap",
    "freehigh",
    "procs",
    "it_value",
    "ru_utime",
    "ru_stime",
    "tms_utime",
    "tms_stime",
    "tms_cutime",
    "tms_cstime",
];

/// Which of `tokens` are the values of [`MOMENT_FIELDS`]: from after the
/// `=` to the `,` or closing bracket that ends the field.
pub fn moment_values(tokens: &[&str]) -> Vec<bool> {
    let mut moment = vec![false; tokens.len()];
    for i in 0..tokens.len().saturating_sub(1) {
        if !MOMENT_FIELDS.contains(&tokens[i]) || tokens[i + 1] != "=" {
            continue;
        }
        let mut depth = 0;
        for j in i + 2..tokens.len() {
            match tokens[j] {
                "{" | "[" => depth += 1,
                "}" | "]" if depth == 0 => break,
                "}" | "]" => depth -= 1,
                "," if depth == 0 => break,
                _ => {}
            }
            moment[j] = true;
        }
    }
    moment
}

/// What a fixture works in, the same path for both engines' runs (it
/// shows in their lines): calls_files and calls_more want a fresh empty
/// directory, ioctl_args a file of its own; without one they stop at
/// once (exit 2), and a comparison of them would compare nothing.
pub struct Scratch {
    path: Option<std::path::PathBuf>,
    directory: bool,
}

impl Scratch {
    pub fn for_fixture(fixture_name: &str) -> Scratch {
        let (path, directory) = match fixture_name {
            "calls_files"
            | "calls_more"
            | "calls_single"
            | "verbose_details"
            | "calls_files_i386_m32"
            | "verbose_details_m32" => (Some(super::scratch_path("bpf", fixture_name)), true),
            "ioctl_args" | "ioctl_exceptions" => {
                (Some(super::scratch_path("bpf", fixture_name)), false)
            }
            _ => (None, false),
        };
        Scratch { path, directory }
    }

    /// The fixture's argument, made afresh (an empty directory, no file).
    pub fn fresh(&self) -> Option<&str> {
        let path = self.path.as_ref()?;
        let _ = std::fs::remove_dir_all(path);
        let _ = std::fs::remove_file(path);
        if self.directory {
            std::fs::create_dir_all(path).unwrap();
        }
        Some(path.to_str().unwrap())
    }

    /// The exit code of a fixture run without what it needs.
    pub fn usage_code(&self) -> i32 {
        if self.path.is_some() { 2 } else { -1 }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Some(path) = &self.path {
            let _ = std::fs::remove_dir_all(path);
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Ports the kernel picks (`htons(40213)`) differ from run to run, as pids
/// do: `htons(PORT)`; and calls_net names a socket by its pid.
pub fn without_ports(line: &str) -> String {
    let line = &match line.find("@\"rtrace-") {
        Some(i) => {
            let digits = line[i + 9..].bytes().take_while(u8::is_ascii_digit).count();
            format!("{}PID{}", &line[..i + 9], &line[i + 9 + digits..])
        }
        None => line.to_string(),
    };
    let mut out = String::new();
    let mut rest: &str = line;
    while let Some(i) = rest.find("htons(") {
        out.push_str(&rest[..i + 6]);
        rest = &rest[i + 6..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && rest[digits..].starts_with(')') && &rest[..digits] != "0" {
            out.push_str("PORT");
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}

/// Whether `bpf` is `ptrace` with some of its strings shown as pointers
/// (`&ADDR`): of a call that failed before the kernel read them, strings
/// in a page nothing had touched ([`known_difference`]).
pub fn same_but_unread_strings(ptrace: &str, bpf: &str) -> bool {
    let (p, b) = (ptrace.as_bytes(), bpf.as_bytes());
    let (mut i, mut j) = (0, 0);
    while i < p.len() && j < b.len() {
        if p[i] == b'"' && b[j..].starts_with(b"&ADDR") {
            // Past the string, its escapes and a `..` that says it goes on.
            i += 1;
            while i < p.len() && p[i] != b'"' {
                i += if p[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            if p.get(i..i + 2) == Some(b"..") {
                i += 2;
            }
            j += "&ADDR".len();
        } else if p[i] == b[j] {
            i += 1;
            j += 1;
        } else {
            return false;
        }
    }
    i >= p.len() && j == b.len()
}

/// Why line `bpf` of the BPF engine may differ from line `ptrace`, if it
/// is one of the differences HACKING.md lists.
pub fn known_difference(ptrace: &str, bpf: &str) -> Option<&'static str> {
    // A string the kernel never read, in a page nothing had touched (the
    // fixtures' marker: write(2) to fd -1 fails before reading it): the
    // kernel cannot copy it without a page fault, which a tracepoint's
    // program may not take, and the process is gone when rtrace looks.
    if ptrace.contains(") = -1 [") && same_but_unread_strings(ptrace, bpf) {
        return Some("a constant never faulted in");
    }
    // -y of a process already gone: the path the fd was opened with
    // (/lib/...), which is the file /proc named (/usr/lib/...).
    if fd_paths(ptrace).0 == fd_paths(bpf).0 {
        let (p, b) = (fd_paths(ptrace).1, fd_paths(bpf).1);
        let same_file = p.len() == b.len()
            && p.iter()
                .zip(&b)
                .all(|(p, b)| p == b || std::fs::canonicalize(b).is_ok_and(|b| b == Path::new(p)));
        if same_file && p != b {
            return Some("-y's path as opened, the process being gone");
        }
    }
    // A buffer longer than the copy limit (BUF_CAP) is decoded as far as
    // it was copied.
    if bpf.contains("..], ..]") && ptrace.split('(').next() == bpf.split('(').next() {
        return Some("a buffer beyond the copy limit");
    }
    None
}

/// A line with its `-y` paths (`3</usr/lib/libc.so.6>`) taken out, and
/// the paths.
pub fn fd_paths(line: &str) -> (String, Vec<String>) {
    let (mut rest, mut text, mut paths) = (line, String::new(), Vec::new());
    while let Some(open) = rest.find("</") {
        let Some(close) = rest[open..].find('>') else {
            break;
        };
        text.push_str(&rest[..open]);
        paths.push(rest[open + 1..open + close].to_string());
        rest = &rest[open + close + 1..];
    }
    text.push_str(rest);
    (text, paths)
}

/// Each process's lines of a trace, in order, with the marks of a line
/// split by another process's (`<..>`, `*`) taken out: the engines agree
/// on what each process did, but the BPF engine orders the processes'
/// lines as the kernel ran them, where ptrace shows a new child's first
/// lines before its parent goes on. Where a child's SIGCHLD to a parent
/// that ignores it falls (before the parent's wait, inside it or after
/// it) depends on which ran first, which ptrace's stops change, so its
/// place is not compared either (tests/bpf.rs
/// `a_child_s_sigchld_shows_after_the_wait_it_ends` fixes one).
/// A line without a pid is the one traced process's (the prefix shows
/// while there are more): the last one left, the started command's
/// (PID1) before any other showed.
pub fn by_process(lines: &[String]) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut live: Vec<String> = vec!["PID1".to_string()];
    for line in lines {
        let (who, text) = match line.split_once(['|', '\'']) {
            Some((pid, rest)) if pid.starts_with("PID") => (pid.to_string(), rest.trim_start()),
            _ => (
                match live.as_slice() {
                    [only] => only.clone(),
                    _ => String::new(),
                },
                line.as_str(),
            ),
        };
        if !live.contains(&who) && !who.is_empty() {
            live.push(who.clone());
        }
        if text.starts_with("Process exited") || text.starts_with("Process terminated") {
            live.retain(|w| *w != who);
        }
        if text.ends_with(" <..>") || text == "** SIGCHLD **" {
            continue;
        }
        let text = text.trim_start_matches('*').replace("** SIGCHLD ** ", "");
        match out.iter_mut().find(|(w, _)| *w == who) {
            Some((_, v)) => v.push(text),
            None => out.push((who, vec![text])),
        }
    }
    out
}

/// Per process, each line of `bpf` is the line of `ptrace`, or differs
/// as HACKING.md says the engines do ([`known_difference`]), or (given
/// `again`, a second ptrace run) only in what varies from run to run.
pub fn assert_same(fixture: &str, ptrace: &[String], bpf: &[String], again: Option<&[String]>) {
    let (p_all, b_all) = (by_process(ptrace), by_process(bpf));
    let a_all = again.map(by_process).unwrap_or_default();
    let mut problems = Vec::new();
    for (who, p_lines) in &p_all {
        let Some((_, b_lines)) = b_all.iter().find(|(w, _)| w == who) else {
            problems.push(format!("no lines of {who:?} with bpf"));
            continue;
        };
        let a_lines = a_all.iter().find(|(w, _)| w == who).map(|(_, l)| l);
        for (i, (p, b)) in p_lines.iter().zip(b_lines).enumerate() {
            let moment = a_lines
                .and_then(|a| a.get(i))
                .is_some_and(|a| same_but_for_the_moment(p, a, b));
            if p != b && !moment && known_difference(p, b).is_none() {
                problems.push(format!("{who} line {i}:\n  ptrace: {p}\n  bpf:    {b}"));
            }
        }
        if p_lines.len() != b_lines.len() {
            problems.push(format!(
                "{who}: {} lines with ptrace, {} with bpf",
                p_lines.len(),
                b_lines.len()
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{fixture}: the engines differ:\n{}\n\nptrace:\n{}\n\nbpf:\n{}",
        problems.join("\n"),
        ptrace.join("\n"),
        bpf.join("\n")
    );
}

pub fn compare(fixture_name: &str, args: &[&str]) {
    compare_lines(fixture_name, args, |_| true);
}

/// [`compare`] on the lines `keep` keeps (of both traces).
/// A second ptrace run tells what varies from run to run.
pub fn compare_lines(fixture_name: &str, args: &[&str], keep: impl Fn(&str) -> bool) {
    compare_program(&fixture(fixture_name), args, keep);
}

/// [`compare_lines`] of a program already built (an i386 fixture).
pub fn compare_program(bin: &Path, args: &[&str], keep: impl Fn(&str) -> bool) {
    let fixture_name = name(bin);
    let traces = runs(bin, args, &[&[], &["--bpf"], &[]]);
    let only = |lines: &[String]| {
        lines
            .iter()
            .filter(|l| keep(l))
            .cloned()
            .collect::<Vec<_>>()
    };
    let (ptrace, bpf, again) = (only(&traces[0]), only(&traces[1]), only(&traces[2]));
    assert_same(fixture_name, &ptrace, &bpf, Some(&again));
}
