//! `-n` (each call's line starts with its number, `[ 102] `) and `-i`
//! (with the instruction pointer at the call, `[00007f...] `), as strace
//! prints them, under both engines, against tests/fixtures/launched.c
//! (which calls getuid and geteuid one after the other).

mod common;

use common::{fixture, fixture_m32, name, normalise, root_or_skip, rtrace, same_layout};
use std::path::Path;
use std::process::Command;

fn engines() -> Vec<&'static str> {
    let mut engines = vec!["ptrace"];
    if root_or_skip("call_prefixes", "--bpf") {
        engines.push("bpf");
    }
    engines
}

/// The trace lines of `bin`'s id calls under rtrace (`engine`) with
/// `args`.
fn id_calls(engine: &str, args: &[&str], bin: &Path, calls: &str) -> Vec<String> {
    let mut cmd = rtrace();
    if engine == "bpf" {
        cmd.arg("--bpf");
    }
    let out = same_layout(&mut cmd)
        .args(args)
        .args(["-e", &format!("trace={calls}")])
        .arg(bin)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{engine}");
    normalise(&String::from_utf8_lossy(&out.stderr))
        .into_iter()
        .filter(|l| l.starts_with('['))
        .collect()
}

#[test]
fn numbers_are_of_the_callers_abi() {
    let x86_64 = fixture("launched");
    let i386 = fixture_m32("launched");
    for engine in engines() {
        assert_eq!(
            id_calls(engine, &["-n"], &x86_64, "getuid,geteuid"),
            ["[ 102] getuid() = 0", "[ 107] geteuid() = 0"],
            "{engine}"
        );
        assert_eq!(
            id_calls(engine, &["-n"], &i386, "getuid32,geteuid32"),
            ["[ 199] getuid32() = 0", "[ 201] geteuid32() = 0"],
            "{engine}"
        );
    }
}

#[test]
fn instruction_pointers_are_straces() {
    if Command::new("strace").arg("-V").output().is_err() {
        eprintln!("call_prefixes: no strace here: -i is not compared");
        return;
    }
    let file = common::scratch_path("call_prefixes", "strace");
    for (bin, calls, digits) in [
        (fixture("launched"), "getuid,geteuid", 16),
        (fixture_m32("launched"), "getuid32,geteuid32", 8),
    ] {
        let status = same_layout(&mut Command::new("strace"))
            .args(["-i", "-e", &format!("trace={calls}"), "-o"])
            .arg(&file)
            .arg(&bin)
            .output()
            .unwrap()
            .status;
        assert!(status.success());
        // strace's `[IP] getuid()    = 0`, its result aligned in a column.
        let theirs: Vec<String> = std::fs::read_to_string(&file)
            .unwrap()
            .lines()
            .filter(|l| l.starts_with('[') && !l.contains("+++"))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        assert_eq!(theirs.len(), 2, "{theirs:?}");
        for engine in engines() {
            let ours = id_calls(engine, &["-i"], &bin, calls);
            assert_eq!(ours, theirs, "{engine} {}", name(&bin));
            assert!(
                ours.iter().all(|l| l.as_bytes()[digits + 1] == b']'),
                "{ours:?}"
            );
        }
        // Both at once: the number first, as strace prints them.
        let both = id_calls("ptrace", &["-i", "-n"], &bin, calls);
        assert!(
            both[0].starts_with("[ ") && both[0].contains("] ["),
            "{both:?}"
        );
    }
    let _ = std::fs::remove_file(&file);
}

#[test]
fn with_a_summary_only_they_say_they_do_nothing() {
    let bin = fixture("launched");
    let out = rtrace()
        .args(["-c", "-n", "-i"])
        .arg(&bin)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines[..2],
        [
            "rtrace: -n has no effect with -c: no call's line is printed",
            "rtrace: -i has no effect with -c: no call's line is printed",
        ]
    );
    // And the summary follows.
    assert!(lines.iter().any(|l| l.ends_with(" total")), "{stderr}");
}
