//! The BPF engine against ptrace on the rest of the fixtures: every
//! fixture that runs on its own, and i386 builds, traced by both engines,
//! the same lines but for the differences HACKING.md lists ("Where the
//! engines differ"), which the comparison recognises or the test leaves
//! out by name. Needs root, as tests/bpf.rs.

mod common;

use common::engines::*;
use common::fixture;

/// The comparison's own rule: what two ptrace runs agree on must be the
/// same under BPF; only what they disagree on, and the fields of the
/// moment, may differ.
#[test]
fn only_values_of_the_moment_may_differ() {
    let p = "stat(\"f\", {st_ino=12, st_size=16}) = 0";
    let again = "stat(\"f\", {st_ino=13, st_size=16}) = 0";
    let bpf = |line: &str| same_but_for_the_moment(p, again, line);
    assert!(bpf("stat(\"f\", {st_ino=99, st_size=16}) = 0"));
    assert!(!bpf("stat(\"f\", {st_ino=99, st_size=17}) = 0"));
    assert!(!bpf("stat(\"f\", &ADDR) = 0"));
    let statfs = "statfs(\".\", {f_bfree=10, f_files=5}) = 0";
    let same = |line: &str| same_but_for_the_moment(statfs, statfs, line);
    assert!(same("statfs(\".\", {f_bfree=11, f_files=5}) = 0"));
    assert!(!same("statfs(\".\", {f_bfree=10, f_files=6}) = 0"));
    let wait = "wait4(7, [0], 0, {ru_utime={tv_sec=0, tv_usec=47}, ru_maxrss=3}) = 7";
    let select = "select(4, [3], NULL, NULL, {tv_sec=5}) = 1 {left={tv_sec=4, tv_usec=999998}}";
    assert!(same_but_for_the_moment(
        select,
        select,
        "select(4, [3], NULL, NULL, {tv_sec=5}) = 1 {left={tv_sec=4, tv_usec=999999}}"
    ));
    let cpu = |line: &str| same_but_for_the_moment(wait, wait, line);
    assert!(cpu(
        "wait4(7, [0], 0, {ru_utime={tv_sec=0, tv_usec=50}, ru_maxrss=3}) = 7"
    ));
    assert!(!cpu(
        "wait4(7, [0], 0, {ru_utime={tv_sec=0, tv_usec=50}, ru_maxrss=4}) = 7"
    ));
    // A failed call's strings the kernel never read may be pointers.
    assert!(same_but_unread_strings(
        r#"f("a\"b".., 3, "c") = -1 [EINVAL]"#,
        r#"f(&ADDR, 3, "c") = -1 [EINVAL]"#
    ));
    assert!(!same_but_unread_strings(
        r#"f("ab", 3) = -1 [EINVAL]"#,
        r#"f(&ADDR, 4) = -1 [EINVAL]"#
    ));
    // A string is one token, its commas and escaped quotes included.
    assert_eq!(
        tokens(r#"write(1, "a, b\"", 5)"#),
        ["write", "(", "1", ",", r#""a, b\"""#, ",", "5", ")"]
    );
}

/// The other fixtures that run on their own (without a device, an
/// emulation or a second program), each traced with -f by both engines.
/// Not two_threads: its threads are numbered (PID2, PID3) in the order
/// their lines first show, which is the kernel's order under BPF.
const MORE_FIXTURES: &[&str] = &[
    "affinity",
    "anon_reuse",
    "bigcount",
    "calls_ldt",
    "calls_straceset",
    "calls_time",
    "classes",
    "dumps",
    "flag_tables",
    "fork_pids",
    "ifindex",
    "ioctl_by_path",
    "ioctl_drivers",
    "ioctl_families",
    "ioctl_plain_numbers",
    "ipc_libc",
    "kvm_flex",
    "long_arrays",
    "longjmp_out",
    "mask_chaos",
    "mmsg_many",
    "nested_signals",
    "net_libc",
    "netlink_diag",
    "netlink_genl",
    "netlink_long",
    "netlink_rt",
    "overflow",
    "pidns",
    "s11_cmsg",
    "s11_mq",
    "s11_netlink",
    "s12_bpf",
    "s12_netlink",
    "s12_uring",
    // Calls a seccomp filter refuses: no sys_enter fires for them, and
    // their exits take their entry's memory.
    "seccomp_errno",
    "select_wide",
    "self_view",
    "spelled",
    "tty_order",
    "unknown_call",
    "value_result",
    "verbose_details",
    "vfork_exit",
];

/// [`MORE_FIXTURES`], in two halves the test runner runs side by side.
#[test]
fn more_fixtures_print_the_same() {
    for fixture_name in &MORE_FIXTURES[..MORE_FIXTURES.len() / 2] {
        compare_lines(fixture_name, &["-f"], |_| true);
    }
}

/// The second half of [`MORE_FIXTURES`].
#[test]
fn more_fixtures_print_the_same_too() {
    for fixture_name in &MORE_FIXTURES[MORE_FIXTURES.len() / 2..] {
        compare_lines(fixture_name, &["-f"], |_| true);
    }
}

/// Fixtures with calls of the differences HACKING.md lists, compared
/// without those calls (calls_single whole: its setxattrat's and
/// getxattrat's value was one until session 19; s12_waits, ioctl_v4l2,
/// s12_ioctls and procsys whole since session 21, when kexec_load's
/// segments were copied without a declaration, V4L2's clips behind their
/// union, an ioctl's struct past 4096 bytes, UBI_IOCRNVOL's, and
/// keyctl's DH and PKEY structs and the buffers their members count).
#[test]
fn fixtures_with_listed_differences_print_the_same_elsewhere() {
    let listed: &[(&str, &[&str])] = &[
        ("calls_single", &[]),
        ("procsys", &[]),
        ("s12_waits", &[]),
        ("s12_ioctls", &[]),
        ("ioctl_v4l2", &[]),
        // Not a difference: its report's length varies with values of
        // the moment (a perf event's id, a file's generation).
        ("ioctl_exceptions", &["write(1, "]),
    ];
    for (fixture_name, calls) in listed {
        compare_lines(fixture_name, &["-f"], |line| {
            !calls.iter().any(|call| line.contains(call))
        });
    }
}

/// i386 builds of fixtures (and x86_64 programs making i386 calls),
/// traced with -f by both engines: what no
/// declaration describes is copied as much as the decoders read
/// (`plan::i386_captures`), and socketcall's and ipc's calls take the
/// captures of the calls they stand for (net_libc and ifindex are
/// socketcall's throughout). Left out: signals, which reads its own
/// /proc status, whose TracerPid says which engine.
#[test]
fn i386_fixtures_print_the_same() {
    let listed: &[(&str, &[&str])] = &[
        ("calls_sig_i386", &[]),
        ("calls_time_i386", &[]),
        ("net_libc", &[]),
        ("ifindex", &[]),
        ("compat_i386", &[]),
        ("ids_i386", &[]),
        ("affinity", &[]),
        ("classes", &[]),
        ("ioctl_drivers", &[]),
        ("ioctl_families", &[]),
        ("ioctl_names", &[]),
        ("kvm_flex", &[]),
        ("nested_signals", &[]),
        ("sockios", &[]),
        ("spelled", &[]),
        ("verbose_details", &[]),
        ("calls_files_i386", &[]),
        ("net_i386", &[]),
        ("dumps", &[]),
        ("calls_ipc_i386", &[]),
        ("ipc_libc", &[]),
        ("s12_uring", &[]),
        ("select_wide", &[]),
        // glibc's recvmmsg is recvmmsg_time64, which enters recvmmsg's
        // function (gen_i386_entry).
        ("mmsg_many", &[]),
    ];
    for (fixture_name, calls) in listed {
        // x86_64 programs making i386 calls (int $0x80), and i386 builds.
        let int80 = [
            "calls_files_i386",
            "calls_ipc_i386",
            "net_i386",
            "calls_sig_i386",
            "calls_time_i386",
            "compat_i386",
        ];
        let bin = if int80.contains(fixture_name) {
            fixture(fixture_name)
        } else {
            common::fixture_m32(fixture_name)
        };
        compare_program(&bin, &["-f"], |line| {
            !calls.iter().any(|call| line.contains(call))
        });
    }
}
