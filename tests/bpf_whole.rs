//! The calls the BPF engine sends as one record, from their exit (the
//! calls that cannot block, src/trace/bpf/plan/whole.rs), and the quick
//! ones whose results it copies at the exit only: each prints as under
//! ptrace, on both architectures, and a call that blocks still shows its
//! entry while the task sleeps in it. Needs root, as tests/bpf.rs.

mod common;

use common::engines::{compare, compare_program};
use common::{fixture, fixture_m32, name, rtrace_env, scratch_path};
use std::io::Write;
use std::process::Stdio;
use std::time::Duration;

#[test]
fn never_blocking_calls_print_as_under_ptrace() {
    if !common::root_or_skip("bpf_whole", "the BPF engine") {
        return;
    }
    compare("never_blocking", &[]);
    compare_program(&fixture_m32("never_blocking"), &[], |_| true);
}

#[test]
fn a_blocked_call_shows_its_entry_and_the_calls_before_it_whole() {
    if !common::root_or_skip("bpf_whole", "the BPF engine") {
        return;
    }
    let bin = fixture("never_blocking");
    let out = scratch_path("bpf_whole", "trace");
    let mut rtrace = rtrace_env()
        .args(["--bpf", "-o"])
        .arg(&out)
        .arg(name(&bin))
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rtrace runs");
    // While the read waits for its byte, its entry is shown, after the
    // calls before it, each whole.
    // (The space after the comma comes with the next argument.)
    let seen = common::trace_file_when(&out, Duration::from_secs(10), |t| t.ends_with("read(0,"));
    let mut stdin = rtrace.stdin.take().unwrap();
    let (blocked, text) = match seen {
        Ok(text) => (true, text),
        Err(text) => (false, text),
    };
    stdin.write_all(b"x").unwrap();
    drop(stdin);
    let status = rtrace.wait().expect("rtrace ends");
    assert!(
        blocked,
        "the read's entry did not show while it waited:\n{text}"
    );
    assert!(status.success(), "rtrace failed");
    let before: Vec<&str> = text.lines().collect();
    let n = before.len();
    assert!(
        before[n - 2].starts_with("getitimer(ITIMER_REAL, {") && before[n - 2].ends_with("}) = 0"),
        "{}",
        before[n - 2]
    );
    let lines = std::fs::read_to_string(&out).unwrap();
    assert!(
        lines.contains("\nread(0, \"x\", 1) = 1\n"),
        "the read did not end on its line:\n{lines}"
    );
    let _ = std::fs::remove_file(&out);
}
