//! Every ioctl request the kernel headers define is named: the
//! `ioctl_names` fixture makes requests from over 30 subsystems (on
//! /dev/null, where they fail harmlessly, and real nsfs and random ones),
//! and each line must be whole and exact. The same names as strace's are
//! checked in tests/strace_diff.rs; the 32-bit build in tests/i386.rs.

mod common;

use common::{NO_BTF, fixture, ioctl_names_expected, name, rtrace, trace_env};

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

#[test]
fn explain_takes_a_name() {
    let out = rtrace()
        .args(["--explain-ioctl", "BLKGETSIZE64"])
        .env(NO_BTF.0, NO_BTF.1)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "BLKGETSIZE64 is request 0x80081272 on x86_64, 0x80041272 on i386\n\
         request 0x80081272 = _IOR(0x12, 0x72, 8)\n\
         \x20 bits 31-30  direction  2 = _IOC_READ (kernel -> program)\n\
         \x20 bits 29-16  size       8 bytes\n\
         \x20 bits 15-8   type       0x12\n\
         \x20 bits 7-0    number     114 (0x72)\n\
         BLKGETSIZE64 in linux/fs.h: _IOR(0x12, 114, size_t)\n\
         \x20 argument: a pointer to size_t (the header's type; rtrace's tables have no layout for it)\n\
         \x20 printed as the 8 bytes its code carries, as a string after the call \
         (no kernel BTF to read its type from)\n"
    );
    // One code, several names: every one, with the group's decoder.
    let out = rtrace()
        .args(["--explain-ioctl", "0x5402"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\nTCSETS in group tty: 0x5402\n"), "{text}");
    assert!(
        text.contains("\nSNDCTL_TMR_START in linux/soundcard.h: _IO('T', 2)\n"),
        "{text}"
    );
    // A code with other names in i386 programs.
    let out = rtrace()
        .args(["--explain-ioctl", "0x80046601"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("in i386 programs:\nFS_IOC32_GETFLAGS in linux/fs.h: _IOR('f', 1, int)\n"),
        "{text}"
    );
}

#[test]
fn an_unknown_name_is_one_line_and_a_failure() {
    for (arg, err) in [
        (
            "BLKGETSIZE46",
            "rtrace: no ioctl request named 'BLKGETSIZE46' (did you mean BLKGETSIZE64?)\n",
        ),
        (
            "NOT_AN_IOCTL_AT_ALL",
            "rtrace: no ioctl request named 'NOT_AN_IOCTL_AT_ALL'\n",
        ),
        (
            "0x1ffffffff",
            "rtrace: '0x1ffffffff': request codes are 32 bits\n",
        ),
    ] {
        let out = rtrace().args(["--explain-ioctl", arg]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{arg}");
        assert!(out.stdout.is_empty(), "{arg}");
        assert_eq!(String::from_utf8(out.stderr).unwrap(), err);
    }
}

#[test]
fn list_ioctls_counts_every_request_and_each_header_group() {
    let out = rtrace().args(["--list-ioctls"]).output().unwrap();
    assert!(out.status.success());
    let all = String::from_utf8(out.stdout).unwrap();
    let last = all.lines().last().unwrap();
    let count: usize = last.split(' ').next().unwrap().parse().unwrap();
    assert_eq!(count, all.lines().count() - 1, "{last}");
    assert!(count > 2500, "{last}");
    assert!(all.contains("\nfs         0x80081272 BLKGETSIZE64                 _IOR(0x12, 114, size_t) (i386 0x80041272)\n"));
    let out = rtrace().args(["--list-ioctls", "nsfs"]).output().unwrap();
    let nsfs = String::from_utf8(out.stdout).unwrap();
    assert_eq!(nsfs.lines().last(), Some("4 requests in 1 group"), "{nsfs}");
    let out = rtrace().args(["--list-ioctls", "kvmm"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "rtrace: no ioctl group 'kvmm' (did you mean kvm?)\n"
    );
}

/// Requests a header defines as plain numbers (`#define I2C_SLAVE 0x0703`
/// in `<linux/i2c-dev.h>`, `LPGETSTATUS` in `<linux/lp.h>`,
/// `SIOCGBPQETHPARAM` in `<linux/bpqether.h>`) are in the generated table:
/// named when traced, found by `--explain-ioctl`.
#[test]
fn requests_defined_as_plain_numbers_are_named() {
    let bin = fixture("ioctl_plain_numbers");
    let run = trace_env(&[], &[name(&bin)], &[NO_BTF]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_eq!(
        run.after_marker()[1..],
        [
            "ioctl(3, I2C_SLAVE, 0x50) = -1 [ENOTTY]",
            "ioctl(3, I2C_RDWR, 0x0) = -1 [ENOTTY]",
            "ioctl(3, LPGETSTATUS, 0x0) = -1 [ENOTTY]",
            // 0x5000 is also OSS's SNDCTL_DSP_RESET: both, as for every shared code.
            "ioctl(3, SIOCGBPQETHPARAM or SNDCTL_DSP_RESET, 0x0) = -1 [ENOTTY]",
            "exit_group(0)",
            "Process exited normally with code 0",
        ]
    );
    let out = rtrace()
        .args(["--explain-ioctl", "I2C_SLAVE"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "I2C_SLAVE is request 0x00000703\n\
         request 0x00000703 = _IO(0x7, 0x3)\n\
         \x20 bits 31-30  direction  0 = _IOC_NONE (no data, or data by value)\n\
         \x20 bits 29-16  size       0 bytes\n\
         \x20 bits 15-8   type       0x07\n\
         \x20 bits 7-0    number     3 (0x3)\n\
         I2C_SLAVE in linux/i2c-dev.h: 0x0703\n"
    );
}
