//! Real 32-bit processes (fixtures built with `-m32`): calls through the
//! vDSO's sysenter entry, i386 signal frames (sigreturn for plain
//! handlers), restart_syscall, the fast path's i386 filter section, forks,
//! and the pre-5.3 register path telling a 32-bit process by its code
//! segment. The lines are the 64-bit fixtures' lines.

mod common;

use common::{
    FORK_WAIT, NESTED_SIGNALS, SHAPES, SIGNAL_READS, SLEEP_RESTART, fixture_m32, in_both_modes,
    ioctl_names_expected, name, s, time_left, trace, trace_env,
};

#[test]
fn a_32_bit_program_prints_as_a_64_bit_one() {
    let bin = fixture_m32("shapes");
    let expected = s(SHAPES);
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(3), "{}", run.stderr());
    assert_eq!(run.after_marker(), expected);
    // Without the syscall-info request the code segment says i386.
    let run = trace_env(&[], &[name(&bin)], &[("RTRACE_NO_SYSCALL_INFO", "1")]);
    assert_eq!(run.code(), Some(3), "{}", run.stderr());
    assert_eq!(run.after_marker(), expected);
}

#[test]
fn signals_interrupt_and_restart_32_bit_calls() {
    for (mode, lines) in in_both_modes(&fixture_m32("signals"), "trace=read") {
        let tail = &lines[lines.len() - SIGNAL_READS.len()..];
        assert_eq!(tail, s(SIGNAL_READS), "{mode}: {lines:#?}");
    }
}

#[test]
fn a_32_bit_sleep_continues_through_restart_syscall() {
    // Its 32-bit timespec, the time left included, reads as 64-bit's.
    for (mode, lines) in in_both_modes(&fixture_m32("sleep_restart"), "trace=nanosleep") {
        let lines: Vec<String> = lines.iter().map(|l| time_left(l)).collect();
        assert_eq!(lines[lines.len() - 2..], s(SLEEP_RESTART), "{mode}");
    }
}

#[test]
fn plain_handlers_return_through_sigreturn() {
    let bin = fixture_m32("nested_signals");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = run.after_marker();
    // i386 returns from a plain handler through sigreturn.
    let expected: Vec<String> = NESTED_SIGNALS
        .iter()
        .map(|l| l.replace("rt_sigreturn(", "sigreturn("))
        .collect();
    assert_eq!(lines[2..], expected, "{lines:#?}");
}

#[test]
fn a_32_bit_fork_is_followed() {
    let bin = fixture_m32("fork_wait");
    let run = trace(&["-f"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let expected: Vec<String> = FORK_WAIT
        .iter()
        .map(|l| l.replace("fork_wait (", "fork_wait_m32 ("))
        .collect();
    assert_eq!(run.after_marker(), expected);
}

#[test]
fn socket_calls_through_socketcall_print_as_the_calls_they_stand_for() {
    let common = [
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
        "socketpair(AF_UNIX, SOCK_DGRAM, 0, [3, 4]) = 0",
        "sendto(3, \"ping\", 4, 0, NULL, 0) = 4",
        "recvfrom(4, \"ping\", 16, 0, NULL, NULL) = 4",
        "socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 5",
        "setsockopt(5, SOL_SOCKET, SO_REUSEADDR, [1], 4) = 0",
        "connect(5, {sa_family=AF_INET, sin_port=htons(1), \
         sin_addr=inet_addr(\"127.0.0.1\")}, 16) = -1 [ECONNREFUSED]",
        "shutdown(3, SHUT_RDWR) = 0",
        "getsockname(9, &ADDR, [16]) = -1 [EBADF]",
        "listen(9, 1) = -1 [EBADF]",
    ];
    let end = ["exit_group(0)", "Process exited normally with code 0"];
    // The 64-bit build makes the same calls directly.
    let direct = trace(&[], &[name(&common::fixture("net_libc"))]);
    assert_eq!(direct.code(), Some(0), "{}", direct.stderr());
    assert_eq!(direct.after_marker(), s(&[&common[..], &end[..]].concat()));

    let bin = fixture_m32("net_libc");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let only_i386 = [
        "send(4, \"pong\", 4, 0) = -1 [EPIPE]",
        "recv(3, &ADDR, 16, MSG_DONTWAIT) = -1 [EAGAIN]",
        // An unknown subcall or an unreadable array: socketcall itself.
        "socketcall(21, &ADDR) = -1 [EINVAL]",
        "socketcall(SYS_CONNECT, &0x1) = -1 [EFAULT]",
    ];
    assert_eq!(
        run.after_marker(),
        s(&[&common[..], &only_i386[..], &end[..]].concat())
    );
    // Selected by the name they stand for, also by the fast path's filter.
    for mode in ["--seccomp-bpf", "--no-seccomp-bpf"] {
        let run = trace(&["-e", "trace=connect,recv", mode], &[name(&bin)]);
        assert_eq!(run.code(), Some(0), "{mode}: {}", run.stderr());
        assert_eq!(
            run.lines()[1..],
            s(&[
                common[6],
                only_i386[1],
                "Process exited normally with code 0"
            ]),
            "{mode}"
        );
    }
}

/// `-v` on i386: rt_sigreturn's and the old sigreturn's restored mask from
/// the 32-bit signal frames (its high word too), and fstatat64's times
/// with their dates.
#[test]
fn verbose_sigreturn_mask_and_dates_from_32_bit_layouts() {
    let bin = fixture_m32("verbose_details");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("verbose_details_m32-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let run = trace(&["-v"], &[name(&bin), dir.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = run.after_marker();
    let returns: Vec<&String> = lines.iter().filter(|l| l.contains("sigreturn(")).collect();
    assert_eq!(
        returns,
        [
            "rt_sigreturn({mask=[USR2 PIPE RTMIN+2]}) = 0",
            "sigreturn({mask=[USR2 PIPE RTMIN+2]}) = 0"
        ],
        "{lines:?}"
    );
    let stat = lines.iter().find(|l| l.starts_with("fstatat64(")).unwrap();
    assert!(
        stat.contains(
            "st_atime=1700000000 /* 2023-11-14T22:13:20.123456789+0000 */, \
             st_atime_nsec=123456789, st_mtime=1000000000 /* 2001-09-09T01:46:40+0000 */, \
             st_mtime_nsec=0, "
        ),
        "{stat}"
    );
}

/// The ioctl_names fixture as a 32-bit program: the 64-bit lines, with the
/// i386 codes looked up in the i386 table. Three codes mean more there:
/// `long` is an `int`, so FS_IOC_GETFLAGS is FS_IOC32_GETFLAGS's code (and
/// GETVERSION likewise), and a pointer-sized AGPIOC_INFO shares
/// SNDRV_PCM_IOCTL_PVERSION's; a /dev/null fd cannot choose. TUNSETIFF's
/// `struct ifreq` is 32 bytes there, 40 on x86_64.
#[test]
fn a_32_bit_program_s_ioctls_are_named_from_the_i386_table() {
    let bin = fixture_m32("ioctl_names");
    let run = trace_env(&[], &[name(&bin)], &[common::NO_BTF]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let expected: Vec<String> = ioctl_names_expected()
        .iter()
        .map(|l| {
            l.replace("FS_IOC_GETFLAGS", "FS_IOC32_GETFLAGS or FS_IOC_GETFLAGS")
                .replace(
                    "FS_IOC_GETVERSION",
                    "FS_IOC32_GETVERSION or FS_IOC_GETVERSION",
                )
                .replace(
                    "SNDRV_PCM_IOCTL_PVERSION",
                    "AGPIOC_INFO or SNDRV_PCM_IOCTL_PVERSION",
                )
        })
        // i386's `struct v4l2_format` (204 bytes, a pointer in its window
        // format) is another code, which the v4l2 group leaves to the
        // fallback's bytes.
        .map(|l| {
            if l == "ioctl(3, VIDIOC_G_FMT, {type=0}) = -1 [ENOTTY]" {
                format!(
                    r#"ioctl(3, VIDIOC_G_FMT, "{}"..) = -1 [ENOTTY]"#,
                    "\\0".repeat(32)
                )
            } else {
                l
            }
        })
        // i386's `struct ifreq` is 32 bytes: TUNSETIFF's is whole at -s 32.
        .map(|l| match l.strip_suffix(r#""..) = -1 [ENOTTY]"#) {
            Some(head) if head.starts_with("ioctl(3, TUNSETIFF, ") => {
                format!(r#"{head}") = -1 [ENOTTY]"#)
            }
            _ => l,
        })
        .collect();
    assert_eq!(run.after_marker(), expected);
}

/// i386's uid and gid calls without `32` take 16-bit ids (0xffff is -1),
/// their `32` forms 32-bit ones: each list and result reads with its own
/// size.
#[test]
fn sixteen_and_thirty_two_bit_ids() {
    let bin = fixture_m32("ids_i386");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_eq!(
        run.after_marker(),
        s(&[
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "setgroups(3, [1, 2, 65534]) = 0",
            "getgroups(8, [1, 2, 65534]) = 3",
            "setgroups32(2, [100, 70000]) = 0",
            "getgroups32(8, [100, 70000]) = 2",
            "setresuid(-1, -1, 0) = 0",
            "setresuid32(-1, -1, 0) = 0",
            "getresuid([0], [0], [0]) = 0",
            "getresuid32([0], [0], [0]) = 0",
            "setfsgid(-1) = 0",
            "exit_group(0)",
            "Process exited normally with code 0",
        ])
    );
}
