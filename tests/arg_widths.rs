//! Arguments print at the width the kernel declares them, not the
//! register's: an `int` is its register's low 32 bits whatever the upper
//! half holds, a `umode_t` its low 16, and an `unsigned long` all 64.
//! The widths come from src/abi/gen_syscall_args.rs, which
//! tools/gen_syscall_args.py makes from the running kernel's trace-event
//! formats and BTF; the last test checks it is what the generator makes.

mod common;

use common::{fixture, fixture_m32, trace};
use std::path::Path;

/// The arguments of each call of tests/fixtures/arg_widths.c (the text up
/// to the result, which is the kernel's to choose), in order.
const CALLS: &[&str] = &[
    r#"open("/nonexistent/rtrace", O_RDONLY)"#,
    r#"mkdirat(AT_FDCWD, "/nonexistent/rtrace", 0755)"#,
    r#"fchmodat(AT_FDCWD, "/nonexistent/rtrace", 0600)"#,
    "wait4(-1, NULL, WNOHANG|__WALL, NULL)",
    "waitid(P_PID, 999999, NULL, WNOHANG|WEXITED, NULL)",
    "pidfd_open(0, PIDFD_NONBLOCK)",
    "pidfd_getfd(-1, 0, 0x0)",
    "pidfd_send_signal(-1, SIGUSR1, NULL, 0x0)",
    r#"execveat(-1, "", NULL, NULL, AT_EMPTY_PATH)"#,
    r#"name_to_handle_at(-1, "", NULL, NULL, 0x0)"#,
    "bpf(1000, NULL, 0)",
    "io_uring_setup(0, NULL)",
    "io_uring_enter(-1, 1, 0, 0, NULL, 0)",
    "io_uring_register(-1, IORING_REGISTER_BUFFERS, NULL, 3735928559)",
    "io_setup(0, NULL)",
    "fanotify_init(FAN_CLASS_NOTIF|0x80000000, O_RDONLY)",
    "fanotify_mark(-1, 0, 0, AT_FDCWD, NULL)",
    "landlock_add_rule(-1, LANDLOCK_RULE_PATH_BENEATH, NULL, 0x0)",
    "landlock_restrict_self(-1, 0x0)",
    "seccomp(SECCOMP_GET_ACTION_AVAIL, 0, NULL)",
    "process_madvise(-1, NULL, 0, MADV_FREE, 0x0)",
    "futex_waitv(NULL, 0, 0x0, NULL, CLOCK_MONOTONIC)",
    "keyctl(0x7fff, 0x0, 0x0, 0x0, 0x0)",
    "semop(-1, NULL, 0)",
    "mq_timedsend(-1, NULL, 0, 0, NULL)",
    "alarm(0)",
    "reboot(0x0, 0x0, LINUX_REBOOT_CMD_CAD_OFF)",
    "kcmp(-1, -1, KCMP_FILE, 0, 0)",
    "setns(-1, 0)",
    r#"open_tree(-1, "", 0)"#,
    "fsopen(NULL, 0)",
    r#"fspick(-1, "", 0)"#,
    "fsmount(-1, 0, 0)",
    r#"move_mount(-1, "", -1, "", 0)"#,
    r#"mount_setattr(-1, "", 0, NULL, 0)"#,
    "userfaultfd(0x4)",
    "sched_setattr(-1, NULL, 0x0)",
    "sched_getattr(-1, NULL, 0, 0x0)",
    "kill(999999, 0)",
    "lseek(-1, 0, SEEK_CUR)",
    "dup3(-1, -1, 0)",
];

/// The calls after the marker, up to the exit.
fn calls(bin: &Path, mode: &str) -> Vec<String> {
    let run = trace(&[], &[bin.to_str().unwrap(), mode]);
    let lines = run.after_marker();
    lines[1..]
        .iter()
        .take_while(|l| !l.starts_with("exit_group("))
        .cloned()
        .collect()
}

/// The part of a line before its result.
fn arguments(line: &str) -> &str {
    line.rsplit_once(" = ").map_or(line, |(args, _)| args)
}

#[test]
fn garbage_in_the_upper_halves_changes_no_line() {
    let bin = fixture("arg_widths");
    let clean = calls(&bin, "clean");
    let dirty = calls(&bin, "dirty");
    // The kernel did the same both times; so must the trace say.
    assert_eq!(dirty, clean, "upper halves leaked into the trace");
    let shown: Vec<&str> = dirty.iter().map(|l| arguments(l)).collect();
    assert_eq!(shown, CALLS);
}

#[test]
fn a_umode_t_is_sixteen_bits_on_i386_too() {
    let bin = fixture_m32("arg_widths");
    let clean = calls(&bin, "clean");
    let dirty = calls(&bin, "dirty");
    assert_eq!(
        dirty, clean,
        "bits 16-31 of a umode_t leaked into the trace"
    );
    let shown: Vec<&str> = dirty.iter().map(|l| arguments(l)).collect();
    assert_eq!(shown, CALLS[..3]);
}

#[test]
fn what_the_kernel_reads_whole_is_not_cut() {
    let lines = calls(&fixture("arg_widths"), "wide");
    assert_eq!(
        lines,
        [
            "pkey_mprotect(NULL, 4096, PROT_READ|0x100000000, -1) = -1 [EINVAL]",
            "mbind(NULL, 4096, MPOL_DEFAULT|0x100000000, NULL, 0, 0) = -1 [EFAULT]",
            "prctl(PR_SET_PDEATHSIG, 4294967306) = -1 [EINVAL]",
        ]
    );
}

#[test]
fn errno_text_describes_each_error_as_perror_would() {
    let bin = fixture("arg_widths");
    let run = trace(&["--errno-text"], &[bin.to_str().unwrap(), "clean"]);
    let lines = run.after_marker();
    for expected in [
        "pidfd_open(0, PIDFD_NONBLOCK) = -1 [EINVAL] (Invalid argument)",
        "kill(999999, 0) = -1 [ESRCH] (No such process)",
        "keyctl(0x7fff, 0x0, 0x0, 0x0, 0x0) = -1 [EOPNOTSUPP] (Operation not supported)",
        // A success has nothing to describe.
        "alarm(0) = 0",
    ] {
        assert!(
            lines.iter().any(|l| l == expected),
            "no line {expected:?} in:\n{}",
            lines.join("\n")
        );
    }
    // JSON carries the description always.
    let run = trace(&["--json", "-e", "kill"], &[bin.to_str().unwrap(), "clean"]);
    let kill: serde_json::Value = run
        .trace
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|o| o["name"] == "kill")
        .expect("a kill call");
    assert_eq!(kill["errno"], "ESRCH");
    assert_eq!(kill["error"], "No such process");
}
