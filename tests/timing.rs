//! Timestamps in epoch (`-ttt`) and relative (`-r`) form.

mod common;

use common::{fixture, name, trace};

/// Split `SECONDS.MICROS REST` into the number and the rest.
fn stamp(line: &str) -> (f64, &str) {
    // -r right-aligns the seconds.
    let line = line.trim_start();
    let (time, rest) = line.split_once(' ').unwrap_or_else(|| panic!("{line}"));
    let (whole, frac) = time
        .trim_start()
        .split_once('.')
        .unwrap_or_else(|| panic!("{line}"));
    assert_eq!(frac.len(), 6, "{line}");
    assert!(whole.chars().all(|c| c.is_ascii_digit()), "{line}");
    (time.trim_start().parse().unwrap(), rest)
}

#[test]
fn epoch_timestamps_are_now_and_never_go_back() {
    let bin = fixture("shapes");
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let run = trace(&["-ttt", "-e", "trace=write"], &[name(&bin)]);
    let mut last = before - 1.0;
    for line in run.trace.lines() {
        let (t, rest) = stamp(line);
        assert!(t >= last && t < before + 60.0, "{line}");
        assert!(!rest.is_empty());
        last = t;
    }
    let (_, first) = stamp(run.trace.lines().next().unwrap());
    assert!(first.starts_with("Tracing shapes (pid "), "{first}");
}

#[test]
fn relative_timestamps_count_from_the_previous_line() {
    let bin = fixture("fork_wait");
    let run = trace(&["-r", "-f", "-e", "trace=wait4,exit_group"], &[name(&bin)]);
    let lines: Vec<&str> = run.trace.lines().collect();
    let (first, _) = stamp(lines[0]);
    assert_eq!(first, 0.0, "{}", lines[0]);
    // The child spins 300 ms before it exits: some line waited that long.
    let longest = lines.iter().map(|l| stamp(l).0).fold(0.0, f64::max);
    assert!(longest >= 0.25, "{lines:#?}");
    for line in &lines {
        let (t, _) = stamp(line);
        assert!((0.0..10.0).contains(&t), "{line}");
    }
}

#[test]
fn call_times_end_every_line_after_one_space() {
    // Every line, rt_sigreturn's too (its restored register is its
    // result), ends with one space before its time.
    let bin = fixture("signals");
    let run = trace(&["-T", "-e", "trace=rt_sigreturn,read"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let timed: Vec<String> = run
        .lines()
        .into_iter()
        .filter(|l| l.starts_with("rt_sigreturn(") || l.starts_with("read("))
        .filter(|l| !l.ends_with("<..>"))
        .collect();
    assert!(
        timed.iter().any(|l| l.starts_with("rt_sigreturn(")),
        "{timed:#?}"
    );
    for line in &timed {
        let (head, time) = line.rsplit_once(" <").unwrap_or_else(|| panic!("{line}"));
        assert!(!head.ends_with(' '), "two spaces: {line}");
        let time = time.strip_suffix('>').unwrap();
        assert!(time.parse::<f64>().is_ok() && time.len() == 8, "{line}");
    }
}

#[test]
fn clock_and_relative_times_combine() {
    // -t with -r: the clock, then the time since the previous line.
    let bin = fixture("fork_wait");
    let run = trace(&["-tt", "-r", "-e", "trace=exit_group"], &[name(&bin)]);
    let lines: Vec<&str> = run.trace.lines().collect();
    assert!(lines.len() >= 2, "{lines:#?}");
    for (i, line) in lines.iter().enumerate() {
        // HH:MM:SS.uuuuuu (+ S.uuuuuu) text
        let (clock, rest) = line.split_once(' ').unwrap();
        assert_eq!(clock.len(), 15, "{line}");
        assert_eq!(&clock[2..3], ":", "{line}");
        let rest = rest.strip_prefix("(+").unwrap_or_else(|| panic!("{line}"));
        let (delta, text) = rest.split_once(") ").unwrap_or_else(|| panic!("{line}"));
        let delta: f64 = delta.trim().parse().unwrap_or_else(|_| panic!("{line}"));
        if i == 0 {
            assert_eq!(delta, 0.0, "{line}");
            assert!(text.starts_with("Tracing fork_wait"), "{line}");
        }
    }
}
