//! rtrace checked against strace: the same workloads run under
//! `strace -f -qq -o FILE` and `rtrace -f -o FILE`, both traces are parsed
//! into per-process sequences of (call name, result), the processes are
//! matched through the fork tree, and the sequences must be equal call for
//! call.
//!
//! The two tracers print some things differently on purpose; each such
//! difference is normalised away below, and listed in [`KNOWN_DIFFERENCES`]
//! with its reason. Nothing else may differ.
//!
//! strace (and python3 and tar for their workloads) must be installed; CI
//! installs Debian's packages. Without one, its tests say so on stderr and
//! pass, unless `CI` is set.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{fixture, fixture_dir, fixture_m32, name, rtrace};

/// Every way rtrace's trace legitimately differs from strace's, and what
/// the comparison does about it.
pub const KNOWN_DIFFERENCES: &[(&str, &str)] = &[
    (
        "pids",
        "Process ids differ between two runs. Processes are matched through the \
         fork tree (the roots, then each process's n-th child by its fork/clone \
         results), and a result that is a pid (fork, clone, getpid, gettid, \
         set_tid_address, ...) is compared through that matching; a pid outside \
         the traced tree (getppid of the root: strace and rtrace are different \
         parents) only has to be outside it in both.",
    ),
    (
        "addresses",
        "Address space layout randomisation: mmap, mmap2, mremap, brk and shmat \
         results are compared as success or the same error, not as numbers.",
    ),
    (
        "wait results",
        "Which child a wait4/waitid for any child reaps first is up to the \
         scheduler; a successful result only has to be a traced child in both.",
    ),
    (
        "restarts",
        "strace prints a call a signal interrupts as `= ? ERESTART*`, then the \
         restarted call (or restart_syscall) as a new line; rtrace keeps the \
         call open and prints its final result once (HACKING.md). The strace \
         sequence is folded: the interrupted call takes the result of its \
         restart, or the error rt_sigreturn restored (EINTR) when it was not \
         restarted.",
    ),
    (
        "signal handlers",
        "Where a signal arrives (and whether two SIGCHLDs merge into one) is \
         up to the scheduler, so rt_sigreturn calls are dropped from both \
         sequences. Their results differ anyway: strace prints the restored \
         register, rtrace no result (the call does not return).",
    ),
    (
        "exec",
        "A successful execve prints `= 0` in strace; rtrace prints no result \
         (it does not return) and a `---` line and new banner instead: taken \
         as 0.",
    ),
    (
        "fork in the child",
        "rtrace prints a new child's return from fork/clone (`clone(...) = 0`) \
         as the child's first line; strace does not show it. That first line \
         is dropped.",
    ),
    (
        "exit",
        "exit and exit_group print `= ?` in strace and no result in rtrace: \
         both are taken as no result, as is a call a process was killed in.",
    ),
];

/// A call's outcome as printed.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Ret {
    /// A successful result.
    Num(i64),
    /// `-1` with this errno name.
    Err(String),
    /// No result: exit, a successful exec, a killed call.
    None,
    /// strace's `? ERESTART*`.
    Restart,
    /// Not finished yet while parsing.
    Pending,
    /// A result neither grammar explains (always a difference).
    Unparsed(String),
}

#[derive(Clone, Debug)]
struct Call {
    name: String,
    ret: Ret,
    line: String,
}

/// One tracer's view: calls per process, in order of entry, and the
/// processes in order of appearance.
#[derive(Default, Debug)]
struct Trace {
    procs: BTreeMap<i32, Vec<Call>>,
    order: Vec<i32>,
}

impl Trace {
    fn proc(&mut self, pid: i32) -> &mut Vec<Call> {
        if !self.procs.contains_key(&pid) {
            self.order.push(pid);
        }
        self.procs.entry(pid).or_default()
    }
}

/// The result after a parameter list: `s` is the text after the call's
/// `(`. `None` if the list does not close on this line.
fn result_after_params(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let mut depth = 1;
    let mut in_str = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if in_str {
            if c == b'\\' {
                i += 1;
            } else if c == b'"' {
                in_str = false;
            }
        } else {
            match c {
                b'"' => in_str = true,
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(s[i + 1..].trim_start());
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// A number as either tracer prints it: decimal, `0x` hex, `0` octal.
fn number(tok: &str) -> Option<i64> {
    if let Some(hex) = tok.strip_prefix("0x") {
        return u64::from_str_radix(hex, 16).ok().map(|v| v as i64);
    }
    if tok.len() > 1 && tok.starts_with('0') && tok.bytes().all(|b| b.is_ascii_digit()) {
        return i64::from_str_radix(&tok[1..], 8).ok();
    }
    tok.parse().ok()
}

/// strace's `= ...`: `3`, `0x7f..`, `-1 ENOENT (..)`, `? ERESTARTSYS (..)`, `?`.
fn strace_ret(after: &str) -> Ret {
    let Some(r) = after.strip_prefix('=') else {
        return Ret::Pending;
    };
    let mut toks = r.split_whitespace();
    match toks.next() {
        Some("?") => match toks.next() {
            Some(e) if e.starts_with("ERESTART") => Ret::Restart,
            _ => Ret::None,
        },
        Some("-1") => match toks.next() {
            Some(e) if e.starts_with('E') => Ret::Err(e.to_string()),
            _ => Ret::Num(-1),
        },
        Some(tok) => number(tok).map_or_else(|| Ret::Unparsed(r.to_string()), Ret::Num),
        None => Ret::Pending,
    }
}

fn parse_strace(text: &str) -> Trace {
    let mut t = Trace::default();
    for line in text.lines() {
        let digits = line.bytes().take_while(u8::is_ascii_digit).count();
        let pid: i32 = line[..digits]
            .parse()
            .unwrap_or_else(|_| panic!("strace line without a pid: {line:?}"));
        let rest = line[digits..].trim_start();
        if rest.starts_with("+++") || rest.starts_with("---") {
            continue;
        }
        if let Some(resumed) = rest.strip_prefix("<... ") {
            let (name, tail) = resumed
                .split_once(" resumed>")
                .unwrap_or_else(|| panic!("{line:?}"));
            let call = t
                .proc(pid)
                .iter_mut()
                .rev()
                .find(|c| c.ret == Ret::Pending)
                .unwrap_or_else(|| panic!("resumed without a start: {line:?}"));
            assert_eq!(call.name, name, "{line:?}");
            call.ret = match result_after_params(tail) {
                Some(after) => strace_ret(after),
                None => Ret::Pending,
            };
            call.line.push_str(" ... ");
            call.line.push_str(tail);
            continue;
        }
        let Some(open) = rest.find('(') else {
            panic!("unparsed strace line {line:?}");
        };
        let name = rest[..open].to_string();
        let ret = if rest.ends_with("<unfinished ...>") {
            Ret::Pending
        } else {
            match result_after_params(&rest[open + 1..]) {
                Some(after) => strace_ret(after),
                None => Ret::Pending,
            }
        };
        t.proc(pid).push(Call {
            name,
            ret,
            line: rest.to_string(),
        });
    }
    t
}

/// rtrace's result text: `3`, `0x7f..`, `-1 [ENOENT]`, `<..>`, or none;
/// signals that arrived at the split (`= ** SIGTERM ** 0`) are skipped.
fn rtrace_ret(after: &str) -> Ret {
    let Some(mut r) = after.strip_prefix('=') else {
        return if after.starts_with("<..>") {
            Ret::Pending
        } else {
            Ret::None
        };
    };
    while let Some(rest) = r.trim_start().strip_prefix("** ") {
        r = rest.split_once(" **").map_or("", |(_, tail)| tail);
    }
    let mut toks = r.split_whitespace();
    match toks.next() {
        Some("<..>") | None => Ret::Pending,
        Some("-1") => match toks.next() {
            Some(e) if e.starts_with('[') => Ret::Err(e.trim_matches(['[', ']']).to_string()),
            _ => Ret::Num(-1),
        },
        Some(tok) => number(tok).map_or_else(|| Ret::Unparsed(r.to_string()), Ret::Num),
    }
}

/// Split rtrace's line prefix: `(pid, resuming, text)`; `pid` is `None`
/// for a line without one (a single traced process).
fn rtrace_prefix(line: &str) -> (Option<i32>, bool, &str) {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && matches!(line.as_bytes().get(digits), Some(b'|' | b'\'')) {
        let pid = line[..digits].parse().ok();
        let rest = &line[digits + 1..];
        return match rest.strip_prefix('*') {
            Some(text) => (pid, true, text),
            None => (pid, false, rest.strip_prefix(' ').unwrap_or(rest)),
        };
    }
    // A replay starts `*`; a signal line starts `** `.
    match line.strip_prefix('*') {
        Some(text) if !text.starts_with("* ") => (None, true, text),
        _ => (None, false, line),
    }
}

fn parse_rtrace(text: &str) -> Trace {
    let mut t = Trace::default();
    let mut current = 0;
    let mut open: HashMap<i32, Vec<usize>> = HashMap::new();
    for line in text.lines() {
        let (pid, resuming, text) = rtrace_prefix(line);
        let pid = pid.unwrap_or(current);
        current = pid;
        if let Some(banner) = text.strip_prefix("Tracing ") {
            let at = banner.rfind("(pid ").expect("banner pid");
            let new: i32 = banner[at + 5..banner.len() - 1].parse().expect("pid");
            t.proc(new);
            current = new;
            continue;
        }
        if text.starts_with("Process ")
            || text == "---"
            || text.starts_with(' ')
            || text.is_empty()
            || (text.starts_with("** ") && text.ends_with(" **") && !text.contains('('))
        {
            continue;
        }
        let still_open = text.ends_with("<..>");
        if resuming {
            let at = open
                .get_mut(&pid)
                .and_then(|s| s.pop())
                .unwrap_or_else(|| panic!("replay without an open call: {line:?}"));
            let open_at = text.find('(').expect("call");
            let ret = match result_after_params(&text[open_at + 1..]) {
                Some(after) => rtrace_ret(after),
                None => Ret::Pending,
            };
            let call = &mut t.proc(pid)[at];
            call.ret = ret;
            call.line = text.to_string();
            if still_open {
                open.entry(pid).or_default().push(at);
            }
            continue;
        }
        let Some(open_at) = text.find('(') else {
            panic!("unparsed rtrace line {line:?}");
        };
        let ret = match result_after_params(&text[open_at + 1..]) {
            Some(after) => rtrace_ret(after),
            None => Ret::Pending,
        };
        let calls = t.proc(pid);
        calls.push(Call {
            name: text[..open_at].to_string(),
            ret,
            line: text.to_string(),
        });
        if still_open {
            let at = calls.len() - 1;
            open.entry(pid).or_default().push(at);
        }
    }
    t
}

const FORKS: &[&str] = &["clone", "clone3", "fork", "vfork"];
const ADDRESS_CALLS: &[&str] = &["mmap", "mmap2", "mremap", "brk", "shmat"];
const PID_CALLS: &[&str] = &[
    "clone",
    "clone3",
    "fork",
    "vfork",
    "getpid",
    "gettid",
    "getppid",
    "set_tid_address",
    "getpgrp",
    "getpgid",
    "getsid",
    "setsid",
];
const WAIT_CALLS: &[&str] = &["wait4", "waitid"];

/// Fold strace's restarts (see KNOWN_DIFFERENCES) and apply the common
/// normalisation.
fn normalise_strace(calls: &[Call]) -> Vec<Call> {
    let mut out: Vec<Call> = Vec::new();
    let mut interrupted: Vec<usize> = Vec::new();
    for call in calls {
        if call.ret == Ret::Restart {
            out.push(call.clone());
            interrupted.push(out.len() - 1);
            continue;
        }
        if let Some(&top) = interrupted.last() {
            if call.name == out[top].name || call.name == "restart_syscall" {
                out[top].ret = call.ret.clone();
                out[top].line.push_str(" ... ");
                out[top].line.push_str(&call.line);
                interrupted.pop();
                continue;
            }
            if is_sigreturn(&call.name)
                && let Ret::Err(e) = &call.ret
                && !e.starts_with("ERESTART")
            {
                out[top].ret = call.ret.clone();
                interrupted.pop();
            }
        }
        out.push(call.clone());
    }
    common_normalise(out, false)
}

fn is_sigreturn(name: &str) -> bool {
    name == "rt_sigreturn" || name == "sigreturn"
}

fn common_normalise(calls: Vec<Call>, rtrace_child: bool) -> Vec<Call> {
    let mut out = Vec::new();
    for (i, mut call) in calls.into_iter().enumerate() {
        if is_sigreturn(&call.name) {
            continue;
        }
        if rtrace_child && i == 0 && FORKS.contains(&call.name.as_str()) {
            continue;
        }
        if matches!(call.ret, Ret::Pending | Ret::Restart) {
            call.ret = Ret::None;
        }
        if matches!(call.name.as_str(), "execve" | "execveat") && call.ret == Ret::None {
            call.ret = Ret::Num(0);
        }
        out.push(call);
    }
    out
}

/// The children each process forked, in order.
fn children(t: &Trace) -> HashMap<i32, Vec<i32>> {
    let mut kids = HashMap::new();
    for (&pid, calls) in &t.procs {
        let list: Vec<i32> = calls
            .iter()
            .filter(|c| FORKS.contains(&c.name.as_str()))
            .filter_map(|c| match c.ret {
                Ret::Num(n) if n > 0 && t.procs.contains_key(&(n as i32)) => Some(n as i32),
                _ => None,
            })
            .collect();
        kids.insert(pid, list);
    }
    kids
}

/// Match strace's processes to rtrace's through the fork tree.
fn match_processes(s: &Trace, r: &Trace, problems: &mut Vec<String>) -> BTreeMap<i32, i32> {
    let (sk, rk) = (children(s), children(r));
    let mut map = BTreeMap::new();
    let mut todo = vec![(s.order[0], r.order[0])];
    while let Some((sp, rp)) = todo.pop() {
        map.insert(sp, rp);
        let (a, b) = (&sk[&sp], &rk[&rp]);
        if a.len() != b.len() {
            problems.push(format!(
                "process {sp}/{rp}: strace saw {} children, rtrace {}",
                a.len(),
                b.len()
            ));
        }
        todo.extend(a.iter().copied().zip(b.iter().copied()));
    }
    for &pid in &s.order {
        if !map.contains_key(&pid) {
            problems.push(format!("strace process {pid} has no rtrace match"));
        }
    }
    for &pid in &r.order {
        if !map.values().any(|&v| v == pid) {
            problems.push(format!("rtrace process {pid} has no strace match"));
        }
    }
    map
}

fn same_result(name: &str, s: &Ret, r: &Ret, map: &BTreeMap<i32, i32>) -> bool {
    let traced_r = |n: i64| map.values().any(|&v| v as i64 == n);
    match (s, r) {
        (Ret::Num(_), Ret::Num(_)) if ADDRESS_CALLS.contains(&name) => true,
        (Ret::Num(a), Ret::Num(b)) if WAIT_CALLS.contains(&name) && *a > 0 => {
            map.contains_key(&(*a as i32)) && traced_r(*b)
        }
        (Ret::Num(a), Ret::Num(b)) if PID_CALLS.contains(&name) && *a > 0 => {
            match map.get(&(*a as i32)) {
                Some(&m) => m as i64 == *b,
                None => !traced_r(*b),
            }
        }
        _ => s == r,
    }
}

/// Compare two traces; the problems found, each with context.
fn compare(s: &Trace, r: &Trace) -> Vec<String> {
    let mut problems = Vec::new();
    let map = match_processes(s, r, &mut problems);
    for (&sp, &rp) in &map {
        let a = normalise_strace(&s.procs[&sp]);
        let child = rp != r.order[0];
        let b = common_normalise(r.procs[&rp].clone(), child);
        let mut shown = 0;
        for i in 0..a.len().max(b.len()) {
            let (x, y) = (a.get(i), b.get(i));
            let same = match (x, y) {
                (Some(x), Some(y)) => {
                    x.name == y.name && same_result(&x.name, &x.ret, &y.ret, &map)
                }
                _ => false,
            };
            if !same {
                let show = |c: Option<&Call>| {
                    c.map_or("(nothing)".to_string(), |c| {
                        format!("{} {:?}    <- {}", c.name, c.ret, c.line)
                    })
                };
                let before: Vec<String> = a[i.saturating_sub(3)..i]
                    .iter()
                    .map(|c| format!("    {} {:?}", c.name, c.ret))
                    .collect();
                problems.push(format!(
                    "process {sp} (rtrace {rp}), call #{i}:\n  after:\n{}\n  strace: {}\n  rtrace: {}",
                    before.join("\n"),
                    show(x),
                    show(y)
                ));
                // A different result keeps the sequences aligned; a
                // different call does not.
                shown += 1;
                if shown == 20 || x.zip(y).is_none_or(|(x, y)| x.name != y.name) {
                    break;
                }
            }
        }
    }
    problems
}

/// A fresh directory for one side of one workload. Both sides' paths have
/// the same length: programs print their working directory (getcwd).
fn scratch(tag: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("strace-diff-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Whether `program` is installed. Without it the workload is skipped
/// with a note on stderr, unless `CI` is set: CI must install it.
fn have(program: &str) -> bool {
    let found = ["/usr/bin", "/bin", "/usr/local/bin"]
        .iter()
        .any(|dir| Path::new(dir).join(program).exists());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "{program} is not installed (CI must install it)"
        );
        eprintln!("{program} is not installed: skipping this workload");
    }
    found
}

/// Run `command` (built by `make`, given a fresh scratch directory) under
/// `tracer` with a fixed environment; return the trace file's text.
fn run(tracer: Command, make: &dyn Fn(&Path) -> Vec<String>, tag: &str) -> String {
    let dir = scratch(tag);
    let out = dir.join("trace.txt");
    let command = make(&dir);
    let mut tracer = tracer;
    let status = tracer
        .arg("-o")
        .arg(&out)
        .args(&command)
        .current_dir(&dir)
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", fixture_dir().display()))
        .env("LC_ALL", "C")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("PYTHONHASHSEED", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        // Not the test runner's stderr: its offset moves under other tests,
        // and python's lseek(2, 0, SEEK_CUR) would differ between runs.
        .stderr(Stdio::null())
        .status()
        .expect("run the tracer");
    assert!(status.success(), "{tag}: {command:?} failed: {status:?}");
    let text = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    text
}

/// Trace one workload with both tracers and require equal sequences.
fn check(tag: &str, make: &dyn Fn(&Path) -> Vec<String>) {
    if !have("strace") {
        return;
    }
    let mut strace = Command::new("strace");
    strace.args(["-f", "-qq"]);
    let strace_text = run(strace, make, &format!("{tag}-s"));
    let mut rt = rtrace();
    rt.arg("-f");
    let rtrace_text = run(rt, make, &format!("{tag}-r"));
    let (s, r) = (parse_strace(&strace_text), parse_rtrace(&rtrace_text));
    let calls: usize = s.procs.values().map(Vec::len).sum();
    assert!(calls > 10, "{tag}: strace saw only {calls} calls");
    let problems = compare(&s, &r);
    assert!(
        problems.is_empty(),
        "{tag}: rtrace and strace differ:\n{}\n\n--- strace ---\n{}\n--- rtrace ---\n{}",
        problems.join("\n"),
        tail(&strace_text),
        tail(&rtrace_text)
    );
}

/// The send/recv lines of a netlink trace from its marker on, with what
/// differs between two runs masked (pids, a socket's cookie and inode,
/// address timestamps) and the spellings that differ between the two
/// tracers made one (listed in the rules below, each with its reason).
fn netlink_lines(text: &str, strace: bool) -> Vec<String> {
    // Both sides.
    let both: &[(&str, &str)] = &[
        (r"nlmsg_pid=[1-9]\d*", "nlmsg_pid=PID"),
        (r"idiag_cookie=\[[1-9]\d*, \d+\]", "idiag_cookie=[COOKIE]"),
        (r"idiag_inode=\d+", "idiag_inode=INODE"),
        (r"([ct])stamp=\d+", "${1}stamp=T"),
        // The names of array entries (`[DEVCONF_HOPLIMIT]=64`): the
        // headers rtrace's tables come from are newer than strace's, which
        // writes `[58 /* DEVCONF_??? */]` where rtrace has a name. The
        // values are compared.
        (r"\[[^\[\]]*\]=", "[]="),
        // The kernel picks a neighbour table's reachable time at random.
        (r"reachable_time=\d+", "reachable_time=T"),
        // rtrace names what strace prints as a number.
        (r"(IFLA_OPERSTATE|IFLA_LINKMODE)\}, \w+", "$1}, V"),
        // strace prints IFA_PROTO (newer than its table) as bytes.
        (r#"IFA_PROTO\}, (\d+|"[^"]*")"#, "IFA_PROTO}, V"),
    ];
    // strace's spellings, as rtrace writes them.
    let strace_only: &[(&str, &str)] = &[
        (r"\s+= ", " = "),
        (r"nl_groups=0+\b", "nl_groups=0x0"),
        (r"nlmsg_type=nlctrl", "nlmsg_type=GENL_ID_CTRL"),
        // A cut string or array.
        (r#""\.\.\."#, r#"".."#),
        (r"\.\.\.\]", "..]"),
    ];
    // rtrace prints an empty control buffer's pointer; strace leaves it out.
    let rtrace_only: &[(&str, &str)] = &[(r"msg_control=NULL, ", "")];
    let unknown = regex::Regex::new(r"0x([0-9a-f]+) /\* \w+_\?\?\? \*/").unwrap();
    let hex = regex::Regex::new(r"\\x([0-9a-f]{2})").unwrap();
    let apply = |line: String, rules: &[(&str, &str)]| {
        rules.iter().fold(line, |l, (re, to)| {
            regex::Regex::new(re)
                .unwrap()
                .replace_all(&l, *to)
                .into_owned()
        })
    };
    let mut lines = Vec::new();
    for line in text.lines().skip_while(|l| !l.contains("\"BEGIN\"")) {
        if !(line.starts_with("send") || line.starts_with("recv")) {
            continue;
        }
        let mut l = apply(line.to_string(), both);
        if strace {
            l = apply(l, strace_only);
            // strace writes an attribute's bytes with hex escapes
            // (`\x01`); rtrace in octal, three digits before an octal
            // digit (`\1`, `\0017`), so that C reads them as one byte.
            l = hex
                .replace_all(&l, |c: &regex::Captures| {
                    let byte = u8::from_str_radix(&c[1], 16).unwrap();
                    let end = c.get(0).unwrap().end();
                    let digit_next = l[end..].starts_with(|n: char| ('0'..='7').contains(&n));
                    if digit_next {
                        format!("\\{byte:03o}")
                    } else {
                        format!("\\{byte:o}")
                    }
                })
                .into_owned();
            // An attribute type strace has no name for: the number.
            l = unknown
                .replace_all(&l, |c: &regex::Captures| {
                    u64::from_str_radix(&c[1], 16).unwrap().to_string()
                })
                .into_owned();
        } else {
            l = apply(l, rtrace_only);
        }
        lines.push(l);
    }
    lines
}

/// The netlink fixture under both tracers, started inside one new network
/// namespace each (strace finds a socket's protocol only in its own): the
/// send/recv lines are the same, whole, but for the spellings
/// [`netlink_lines`] makes one. Where strace shows a payload as bytes
/// (generic netlink, a recvmsg without msg_name) only the message
/// headers are compared; where it shows a whole buffer as bytes (write,
/// read) nothing is; nor is the crafted 64 KiB error buffer, whose echoes
/// of echoes strace decodes as deep as they go and rtrace does not.
#[test]
fn netlink_messages_match_strace() {
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 || !have("strace") || !have("unshare") {
        eprintln!("netlink_messages_match_strace: needs root, strace and unshare: skipped");
        return;
    }
    let bin = fixture("netlink");
    let make = |_: &Path| vec![bin.display().to_string(), "in-netns".to_string()];
    let mut strace = Command::new("unshare");
    // -s 64: every attribute of the link dump, the longest message.
    strace.args(["-n", "strace", "-qq", "-s", "64"]);
    let strace_text = run(strace, &make, "netlink-s");
    let mut rt = Command::new("unshare");
    rt.arg("-n").arg(rtrace().get_program()).args(["-s", "64"]);
    let rtrace_text = run(rt, &make, "netlink-r");
    let s = netlink_lines(&strace_text, true);
    let r = netlink_lines(&rtrace_text, false);
    assert_eq!(
        s.len(),
        r.len(),
        "not the same calls:\n{strace_text}\n{rtrace_text}"
    );
    let header = regex::Regex::new(r"\{nlmsg_len=\d+, [^{}]*\}").unwrap();
    let headers = |l: &str| -> Vec<String> {
        header
            .find_iter(l)
            .map(|m| m.as_str().to_string())
            .collect()
    };
    let undecoded = regex::Regex::new(r#"nlmsg_pid=\w+\}, "|iov_base=""#).unwrap();
    let (mut whole, mut partly) = (0, 0);
    for (s, r) in s.iter().zip(&r) {
        if !s.contains("{nlmsg_len=") || s.contains("{nlmsg_len=65536,") {
            continue;
        }
        if undecoded.is_match(s) {
            partly += 1;
            assert_eq!(headers(s), headers(r), "\nstrace: {s}\nrtrace: {r}");
        } else {
            whole += 1;
            let at = s
                .bytes()
                .zip(r.bytes())
                .position(|(a, b)| a != b)
                .unwrap_or(s.len().min(r.len()));
            let near = |l: &str| {
                l.get(at.saturating_sub(120)..(at + 120).min(l.len()))
                    .unwrap_or(l)
                    .to_string()
            };
            assert!(
                s == r,
                "lines differ at byte {at}:\nstrace: ..{}..\nrtrace: ..{}..\n\nstrace: {s}\nrtrace: {r}",
                near(s),
                near(r)
            );
        }
    }
    assert!(
        whole >= 13 && partly >= 2,
        "only {whole} lines compared whole, {partly} by headers:\n{strace_text}"
    );
}

/// The end of a trace, for failure messages.
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(60)..].join("\n")
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn fixture_calls_files() {
    let bin = fixture("calls_files");
    check("calls_files", &|dir| {
        vec![bin.display().to_string(), dir.display().to_string()]
    });
}

#[test]
fn fixture_calls_mem() {
    let bin = fixture("calls_mem");
    check("calls_mem", &|_| vec![bin.display().to_string()]);
}

/// `/usr`, not `/`: the link count of `/proc` is the number of processes,
/// which changes between the two runs (and with it the column widths).
#[test]
fn ls_la_usr() {
    check("ls", &|_| strings(&["ls", "-la", "/usr"]));
}

#[test]
fn cat_a_file() {
    check("cat", &|dir| {
        let file = dir.join("input.txt");
        std::fs::write(&file, "one\ntwo\nthree\n").unwrap();
        vec!["cat".into(), file.display().to_string()]
    });
}

#[test]
fn sh_pipeline() {
    check("sh", &|_| {
        strings(&["sh", "-c", "echo hello world | tr a-z A-Z | wc -c"])
    });
}

#[test]
fn python_imports() {
    if !have("python3") {
        return;
    }
    check("python", &|_| {
        strings(&["python3", "-c", "import socket, json"])
    });
}

#[test]
fn tar_a_directory() {
    if !have("tar") {
        return;
    }
    check("tar", &|dir| {
        let data = dir.join("data");
        std::fs::create_dir_all(data.join("sub")).unwrap();
        std::fs::write(data.join("a.txt"), "alpha\n").unwrap();
        std::fs::write(data.join("sub/b.txt"), "beta\n".repeat(100)).unwrap();
        std::os::unix::fs::symlink("a.txt", data.join("link")).unwrap();
        vec![
            "tar".into(),
            "-cf".into(),
            dir.join("out.tar").display().to_string(),
            "-C".into(),
            dir.display().to_string(),
            "data".into(),
        ]
    });
}

/// Any command, for exploring: `RTRACE_DIFF_CMD='find /etc -name x'
/// cargo test --test strace_diff any_command -- --ignored`.
#[test]
#[ignore = "runs the command in RTRACE_DIFF_CMD"]
fn any_command() {
    let Ok(command) = std::env::var("RTRACE_DIFF_CMD") else {
        return;
    };
    check("any", &|_| strings(&["sh", "-c", &command]));
}

#[test]
fn parsers_read_both_grammars() {
    let s = parse_strace(
        "10 read(0,  <unfinished ...>\n\
         11 write(1, \"a)\\\"b\", 4) = 4\n\
         10 <... read resumed>\"x\", 1) = ? ERESTARTSYS (To be restarted)\n\
         10 --- SIGINT {si_signo=SIGINT} ---\n\
         10 rt_sigreturn({mask=[]}) = 0\n\
         10 read(0, \"y\", 1) = 1\n\
         10 umask(022) = 02\n\
         10 fcntl(3, F_GETFL) = 0x8002 (flags O_RDWR|O_LARGEFILE)\n\
         10 openat(AT_FDCWD, \"x\", O_RDONLY) = -1 ENOENT (No such file)\n\
         10 exit_group(0) = ?\n\
         10 +++ exited with 0 +++\n",
    );
    let got: Vec<(String, Ret)> = normalise_strace(&s.procs[&10])
        .into_iter()
        .map(|c| (c.name, c.ret))
        .collect();
    assert_eq!(
        got,
        vec![
            ("read".into(), Ret::Num(1)),
            ("umask".into(), Ret::Num(2)),
            ("fcntl".into(), Ret::Num(0x8002)),
            ("openat".into(), Ret::Err("ENOENT".into())),
            ("exit_group".into(), Ret::None),
        ]
    );
    assert_eq!(s.procs[&11][0].ret, Ret::Num(4));
    let r = parse_rtrace(
        "Tracing a (pid 5)\n\
         fork() = 6\n\
         6| Tracing a (pid 6)\n\
         6| fork() = 0\n\
         5| read(3, <..>\n\
         6| write(1, \"(\", 1) = <..>\n\
         5|*read(3, ** SIGWINCH ** \"a\", 1) = 1\n\
         6|*write(1, \"(\", 1) = 1\n\
         6| exit_group(0)\n\
         5| wait4(-1, <..>\n\
         6| Process exited normally with code 0\n\
         5'*wait4(-1, W_EXITED(0), 0, NULL) = 6\n\
         ** SIGCHLD **\n\
         nanosleep({tv_sec=1, tv_nsec=0}, NULL) = ** SIGALRM ** 0\n\
         fcntl(3, F_GETFL) = 32770 (O_RDWR|O_LARGEFILE)\n\
         open(\"x\", O_RDONLY) = -1 [ENOENT]\n\
         execve(\"/bin/true\", [\"true\"], [/* 0 vars */])\n\
         ---\n\
         Tracing true (pid 5)\n",
    );
    let five: Vec<(String, Ret)> = common_normalise(r.procs[&5].clone(), false)
        .into_iter()
        .map(|c| (c.name, c.ret))
        .collect();
    assert_eq!(
        five,
        vec![
            ("fork".into(), Ret::Num(6)),
            ("read".into(), Ret::Num(1)),
            ("wait4".into(), Ret::Num(6)),
            ("nanosleep".into(), Ret::Num(0)),
            ("fcntl".into(), Ret::Num(32770)),
            ("open".into(), Ret::Err("ENOENT".into())),
            ("execve".into(), Ret::Num(0)),
        ]
    );
    let six: Vec<String> = common_normalise(r.procs[&6].clone(), true)
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert_eq!(six, vec!["write", "exit_group"]);
    for (what, why) in KNOWN_DIFFERENCES {
        assert!(!what.is_empty() && why.len() > 40);
    }
}

/// The process, signal, time, polling and network fixtures: call for call
/// the same names and results as strace.
#[test]
fn fixtures_process_signal_time_poll_net() {
    for name in [
        "calls_proc",
        "calls_sig",
        "calls_time",
        "calls_poll",
        "calls_net",
    ] {
        let bin = fixture(name);
        check(name, &|_| vec![bin.display().to_string()]);
    }
}

/// `-c`'s rows as name -> (calls, errors).
fn summary_rows(text: &str) -> BTreeMap<String, (u64, u64)> {
    text.lines()
        .filter(|l| !l.starts_with('%') && !l.starts_with('-') && !l.ends_with(" total"))
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            // time, seconds, usecs/call, calls, [errors,] name
            match f.len() {
                5 => Some((f[4].to_string(), (f[3].parse().ok()?, 0))),
                6 => Some((f[5].to_string(), (f[3].parse().ok()?, f[4].parse().ok()?))),
                _ => None,
            }
        })
        .collect()
}

#[test]
fn summaries_count_what_strace_counts() {
    // Interrupted calls and their restarts count as two (restart_syscall
    // under its own name), calls that never return not at all. The signals
    // come from untraced helpers, so the fixtures run without -f.
    if !have("strace") {
        return;
    }
    for fixture_name in ["signals", "sleep_restart", "fork_wait"] {
        let bin = fixture(fixture_name);
        let make = |_: &Path| vec![bin.display().to_string()];
        let mut strace = Command::new("strace");
        strace.args(["-c", "-qq"]);
        let strace_rows = summary_rows(&run(strace, &make, &format!("c-{fixture_name}-s")));
        let mut rt = rtrace();
        rt.arg("-c");
        let rtrace_rows = summary_rows(&run(rt, &make, &format!("c-{fixture_name}-r")));
        assert!(strace_rows.len() > 3, "{strace_rows:?}");
        assert_eq!(rtrace_rows, strace_rows, "{fixture_name}");
    }
}

/// Each `-e trace=` class as rtrace and strace spell it: strace's classes
/// under their own names, `%net` as well as `%network`, a negated class,
/// and rtrace's own `%ioctl` against strace's `ioctl`.
const CLASS_SPECS: &[(&str, &str)] = &[
    ("%desc", "%desc"),
    ("%file", "%file"),
    ("%network", "%network"),
    ("%net", "%net"),
    ("%process", "%process"),
    ("%signal", "%signal"),
    ("%ipc", "%ipc"),
    ("%memory", "%memory"),
    ("%creds", "%creds"),
    ("%clock", "%clock"),
    ("%stat", "%stat"),
    ("%lstat", "%lstat"),
    ("%fstat", "%fstat"),
    ("%%stat", "%%stat"),
    ("%statfs", "%statfs"),
    ("%fstatfs", "%fstatfs"),
    ("%%statfs", "%%statfs"),
    ("%pure", "%pure"),
    ("!%desc", "!%desc"),
    ("%ioctl", "ioctl"),
];

/// The names of the calls a trace shows, over all its processes.
fn call_names(t: &Trace) -> BTreeSet<String> {
    t.procs.values().flatten().map(|c| c.name.clone()).collect()
}

/// `-e trace=%class` selects what strace's does: the classes fixture, as
/// a 64-bit and as a 32-bit program, is traced with `-f` and each class by
/// both tracers (rtrace through its seccomp fast path), and the two must
/// show the same set of call names. The fixture makes calls of every
/// class, so each set must also be non-empty.
#[test]
fn classes_select_what_strace_selects() {
    if !have("strace") {
        return;
    }
    for bin in [fixture("classes"), fixture_m32("classes")] {
        let program = name(&bin).to_string();
        let make = |_: &Path| vec![program.clone()];
        let mut problems = Vec::new();
        for (i, &(ours, theirs)) in CLASS_SPECS.iter().enumerate() {
            let mut strace = Command::new("strace");
            strace.args(["-f", "-qq", "-e", &format!("trace={theirs}")]);
            let strace_text = run(strace, &make, &format!("{program}-class{i}-s"));
            let mut rt = rtrace();
            rt.args(["-f", "-e", &format!("trace={ours}")]);
            let rtrace_text = run(rt, &make, &format!("{program}-class{i}-r"));
            let s = call_names(&parse_strace(&strace_text));
            let r = call_names(&parse_rtrace(&rtrace_text));
            if s.is_empty() {
                problems.push(format!("{ours}: strace shows no call"));
            }
            if s != r {
                problems.push(format!(
                    "{ours}: only strace shows {:?}; only rtrace shows {:?}",
                    s.difference(&r).collect::<Vec<_>>(),
                    r.difference(&s).collect::<Vec<_>>()
                ));
            }
        }
        assert!(
            problems.is_empty(),
            "{program}: classes differ from strace's:\n{}",
            problems.join("\n")
        );
    }
}

/// The request names of a trace's ioctl lines, in order, each line's as a
/// set (`A or B` is two names; `EVIOCGNAME(256)` one).
fn ioctl_request_names(text: &str) -> Vec<BTreeSet<String>> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(i) = line.find("ioctl(") else {
            continue;
        };
        let rest = &line[i + "ioctl(".len()..];
        let Some(comma) = rest.find(", ") else {
            continue;
        };
        let mut s = &rest[comma + 2..];
        let mut names = BTreeSet::new();
        loop {
            let mut end = s
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(s.len());
            if s[end..].starts_with('(') {
                end += s[end..].find(')').map_or(0, |j| j + 1);
            }
            names.insert(s[..end].to_string());
            match s[end..].strip_prefix(" or ") {
                Some(next) => s = next,
                None => break,
            }
        }
        out.push(names);
    }
    out
}

/// What the ioctl-name comparison does about the ways strace names a
/// request differently on purpose, each with its reason.
pub const IOCTL_NAME_DIFFERENCES: &[(&str, &str)] = &[
    (
        "MIXER_READ(n)",
        "strace calls every _IOR/_IOW request of type 'M' MIXER_READ(nr) or \
         MIXER_WRITE(nr), whatever its size (`MIXER_READ(1) or MEMGETINFO`); \
         the header's MIXER_READ(dev) is an int-sized request, which rtrace \
         names only at that size. strace's MIXER_* names rtrace does not print \
         are dropped.",
    ),
    (
        "SOUND_MIXER_READ_*",
        "where the header names a MIXER_READ/MIXER_WRITE code itself \
         (`#define SOUND_MIXER_READ_VOLUME MIXER_READ(SOUND_MIXER_VOLUME)`), \
         rtrace prints that name and strace the family's, MIXER_READ(0): \
         strace's MIXER_ name stands for rtrace's SOUND_MIXER_ one.",
    ),
    (
        "SPI_IOC_MESSAGE(n)",
        "strace prints SPI_IOC_MESSAGE's size in bytes; the header's parameter \
         (and rtrace's) is the number of 32-byte transfers. strace's is \
         divided by 32.",
    ),
    (
        "i386 table",
        "strace's i386 table lacks some requests whose -m32 code equals \
         another's (FS_IOC_GETFLAGS is FS_IOC32_GETFLAGS there, a pointer-sized \
         AGPIOC_INFO is SNDRV_PCM_IOCTL_PVERSION); rtrace, whose i386 table is \
         the headers compiled with -m32, names them too. For the 32-bit \
         program rtrace's names must include strace's; for the 64-bit one \
         they must be equal.",
    ),
];

/// strace's names for one line with the differences above applied
/// (`rtrace` is rtrace's names for the same line).
fn strace_names_normalised(
    names: &BTreeSet<String>,
    rtrace: &BTreeSet<String>,
) -> BTreeSet<String> {
    let sound_mixer = rtrace.iter().find(|n| n.starts_with("SOUND_MIXER_"));
    names
        .iter()
        .filter_map(|n| match (n.starts_with("MIXER_"), sound_mixer) {
            (true, _) if rtrace.contains(n) => Some(n.clone()),
            (true, Some(own)) => Some(own.clone()),
            (true, None) => None,
            (false, _) => Some(n.clone()),
        })
        .map(|n| match n.strip_prefix("SPI_IOC_MESSAGE(") {
            Some(size) => {
                let bytes: u32 = size.trim_end_matches(')').parse().unwrap();
                format!("SPI_IOC_MESSAGE({})", bytes / 32)
            }
            None => n.clone(),
        })
        .collect()
}

/// Every request strace names in the ioctl_names fixture (ioctls from over
/// 30 subsystems), rtrace names the same, line for line, for the 64-bit
/// and the 32-bit program.
#[test]
fn ioctl_names_match_strace() {
    if !have("strace") {
        return;
    }
    for (bin, wide) in [
        (fixture("ioctl_names"), true),
        (fixture_m32("ioctl_names"), false),
    ] {
        let program = name(&bin).to_string();
        let make = |_: &Path| vec![program.clone()];
        let mut strace = Command::new("strace");
        strace.args(["-qq", "-e", "trace=ioctl"]);
        let strace_text = run(strace, &make, &format!("{program}-ioctl-s"));
        let mut rt = rtrace();
        rt.args(["-e", "trace=ioctl"]);
        let rtrace_text = run(rt, &make, &format!("{program}-ioctl-r"));
        let (s, r) = (
            ioctl_request_names(&strace_text),
            ioctl_request_names(&rtrace_text),
        );
        assert!(
            s.len() >= 70,
            "{program}: strace shows only {} ioctls",
            s.len()
        );
        assert_eq!(s.len(), r.len(), "{program}: ioctl counts differ");
        assert!(
            s[0].contains("BLKGETSIZE64"),
            "{program}: parsed {:?}",
            s[0]
        );
        let mut problems = Vec::new();
        for (i, (s, r)) in s.iter().zip(&r).enumerate() {
            let s = strace_names_normalised(s, r);
            let same = if wide { *r == s } else { r.is_superset(&s) };
            if !same || r.is_empty() {
                problems.push(format!("ioctl #{i}: strace {s:?}, rtrace {r:?}"));
            }
        }
        assert!(
            problems.is_empty(),
            "{program}: ioctl names differ from strace's:\n{}",
            problems.join("\n")
        );
    }
}
