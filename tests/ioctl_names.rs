//! Every ioctl request the kernel headers define is named: the
//! `ioctl_names` fixture makes requests from over 30 subsystems (on
//! /dev/null, where they fail harmlessly, and real nsfs and random ones),
//! and each line must be whole and exact. The same names as strace's are
//! checked in tests/strace_diff.rs; the 32-bit build in tests/i386.rs.

mod common;

use common::{NO_BTF, fixture, ioctl_names_expected, name, trace_env};

#[test]
fn requests_from_every_subsystem_are_named() {
    let bin = fixture("ioctl_names");
    let run = trace_env(&[], &[name(&bin)], &[NO_BTF]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_eq!(run.after_marker(), ioctl_names_expected());
}

#[test]
fn values_only_prints_the_numbers() {
    let bin = fixture("ioctl_names");
    let run = trace_env(&["-V"], &[name(&bin)], &[NO_BTF]);
    let lines = run.after_marker();
    assert!(
        lines.contains(&"ioctl(5, 0xb703) = 1073741824".to_string()),
        "{lines:#?}"
    );
    // BLKSSZGET, _IO(0x12, 104).
    assert!(
        lines.contains(&"ioctl(3, 0x1268, ADDR) = -1 [25]".to_string()),
        "{lines:#?}"
    );
}
