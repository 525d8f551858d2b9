//! Decoders added from the strace test-program measure
//! (tools/strace_tests, HACKING.md "The strace test-program measure"):
//! the `calls_straceset` fixture makes each call with exact arguments and
//! the whole lines are compared with what strace 6.1 shows of them in
//! rtrace's grammar. The CPU and node getcpu answers are the machine's and
//! are matched by `#` (one or more digits); addresses are normalised.

mod common;

use common::{scratch_path, trace};

/// Whether `line` matches `pattern`, where `#` stands for one or more
/// digits.
fn matches(pattern: &str, line: &str) -> bool {
    let (p, l) = (pattern.as_bytes(), line.as_bytes());
    match p.first() {
        None => l.is_empty(),
        Some(b'#') => {
            let digits = l.iter().take_while(|c| c.is_ascii_digit()).count();
            (1..=digits).any(|k| matches(&pattern[1..], &line[k..]))
        }
        Some(&c) => l.first() == Some(&c) && matches(&pattern[1..], &line[1..]),
    }
}

/// Run the fixture in a fresh directory under rtrace with `args`.
fn run(tag: &str, args: &[&str]) -> common::Run {
    let bin = common::fixture("calls_straceset");
    let dir = scratch_path("decoders_straceset", tag);
    std::fs::create_dir_all(&dir).unwrap();
    let shown = dir.display().to_string();
    let run = trace(args, &[bin.to_str().unwrap(), &shown]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    run
}

const EXPECTED: &[&str] = &[
    "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
    // Both times with their dates, as strace always shows them.
    "utimes(\"f\", [{tv_sec=1, tv_usec=2} /* 1970-01-01T00:00:01.000002+0000 */, \
     {tv_sec=3, tv_usec=4} /* 1970-01-01T00:00:03.000004+0000 */]) = 0",
    "utimes(\"f\", NULL) = 0",
    "futimesat(AT_FDCWD, \"f\", [{tv_sec=1, tv_usec=2} /* 1970-01-01T00:00:01.000002+0000 */, \
     {tv_sec=3, tv_usec=4} /* 1970-01-01T00:00:03.000004+0000 */]) = 0",
    // A tv_usec the kernel refuses has no date.
    "futimesat(AT_FDCWD, \"f\", [{tv_sec=1, tv_usec=2} /* 1970-01-01T00:00:01.000002+0000 */, \
     {tv_sec=3, tv_usec=1000000}]) = -1 [EINVAL]",
    "utimes(\"f\", &0x8) = -1 [EFAULT]",
    "getcpu([#], [#], NULL) = 0",
    "getcpu(NULL, NULL, NULL) = 0",
    "getcpu(&0x8, NULL, NULL) = -1 [EFAULT]",
];

#[test]
fn timeval_pairs_and_getcpu() {
    let run = run("text", &["-e", "trace=write,utimes,futimesat,getcpu"]);
    let lines = run.after_marker();
    let calls: Vec<&String> = lines.iter().filter(|l| l.contains('(')).collect();
    assert_eq!(calls.len(), EXPECTED.len(), "{}", lines.join("\n"));
    for (line, want) in calls.iter().zip(EXPECTED) {
        assert!(
            matches(want, line),
            "\n  actual:   {line}\n  expected: {want}"
        );
    }
}

#[test]
fn timeval_pairs_and_getcpu_json() {
    let run = run("json", &["--json", "-e", "trace=utimes,futimesat,getcpu"]);
    let calls: Vec<serde_json::Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &serde_json::Value| v["type"] == "call")
        .collect();
    assert_eq!(
        calls[0]["args"]["utimes"],
        serde_json::json!([{"tv_sec": 1, "tv_usec": 2}, {"tv_sec": 3, "tv_usec": 4}])
    );
    let getcpu = calls.iter().find(|c| c["name"] == "getcpu").unwrap();
    assert!(getcpu["args"]["cpu"][0].is_u64(), "{getcpu}");
    assert!(getcpu["args"]["node"][0].is_u64(), "{getcpu}");
    assert_eq!(
        getcpu["args"]["tcache"],
        serde_json::Value::Null,
        "{getcpu}"
    );
}
