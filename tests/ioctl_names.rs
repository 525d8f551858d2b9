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
         \x20 printed as size_t (8 bytes, known from its C spelling), decoded after the call\n"
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
    // The columns hold whatever the longest name: the code and the
    // argument start at the same column on every line.
    let rows: Vec<&str> = all.lines().take(count).collect();
    let code_at = |l: &str| l.find(" 0x").unwrap() + 1;
    let text_at = |l: &str| {
        let name = code_at(l) + "0x12345678 ".len();
        let gap = name + l[name..].find(' ').unwrap();
        l.len() - l[gap..].trim_start().len()
    };
    assert!(rows.iter().all(|l| code_at(l) == code_at(rows[0])), "{all}");
    assert!(rows.iter().all(|l| text_at(l) == text_at(rows[0])), "{all}");
    let blk = rows
        .iter()
        .find(|l| l.split_whitespace().nth(2) == Some("BLKGETSIZE64"))
        .unwrap();
    assert_eq!(
        blk.split_whitespace().collect::<Vec<_>>().join(" "),
        "fs 0x80081272 BLKGETSIZE64 _IOR(0x12, 114, size_t) (i386 0x80041272)"
    );
    // A group's requests that only i386 makes are tagged.
    let out = rtrace()
        .args(["--list-ioctls", "user_events"])
        .output()
        .unwrap();
    let ue = String::from_utf8(out.stdout).unwrap();
    let tagged: Vec<String> = ue
        .lines()
        .filter(|l| l.ends_with(" (i386)"))
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(
        tagged,
        [
            "user_events 0xc0042a00 DIAG_IOCSREG",
            "user_events 0x40042a01 DIAG_IOCSDEL",
            "user_events 0x40042a02 DIAG_IOCSUNREG"
        ],
        "{ue}"
    );
    // The groups, each with its count, add up to the whole list.
    let out = rtrace().args(["--list-ioctl-groups"]).output().unwrap();
    assert!(out.status.success());
    let groups = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = groups.lines().collect();
    let counted: usize = lines[..lines.len() - 1]
        .iter()
        .map(|l| {
            l.split_whitespace()
                .nth(1)
                .unwrap()
                .parse::<usize>()
                .unwrap()
        })
        .sum();
    assert_eq!(counted, count);
    assert_eq!(
        lines.last().unwrap().to_string(),
        format!("{} groups, {count} requests", lines.len() - 1)
    );
    assert!(
        lines
            .iter()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["usbmon", "11"])
    );
    // A word that begins group names is answered with them.
    let out = rtrace().args(["--list-ioctls", "usbd"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "rtrace: no ioctl group 'usbd' (did you mean usbdevfs, usbdevice_fs?)\n"
    );
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

/// One code, several requests: the device an fd is open on picks the
/// request, with parameters or plain (the fixture names plain files in a
/// tmpfs /dev of its own mount namespace like the devices); with no path
/// (fd -1), a general subsystem's meaning over a vendor driver's.
#[test]
fn the_device_picks_between_a_family_and_a_plain_request() {
    let bin = fixture("ioctl_by_path");
    let run = trace_env(&[], &[name(&bin)], &[NO_BTF]);
    if run.code() == Some(77) {
        eprintln!("skipped: no mount namespace here: {}", run.stderr());
        return;
    }
    let lines = run.after_marker();
    let bytes = |n: usize| "\\0".repeat(n);
    let ioctls: Vec<&String> = lines.iter().filter(|l| l.starts_with("ioctl(")).collect();
    assert_eq!(
        ioctls,
        [
            // The v4l2 group decodes it, BTF or not.
            &"ioctl(3, VIDIOC_ENUM_FMT, {index=0, type=0}) = -1 [ENOTTY]".to_string(),
            &"ioctl(6, VIDIOC_ENUM_FMT, {index=0, type=0}) = -1 [ENOTTY]".to_string(),
            &format!(
                "ioctl(4, HIDIOCSOUTPUT(24), \"{}\") = -1 [ENOTTY]",
                bytes(24)
            ),
            &format!("ioctl(5, HIDIOCGUSAGE, \"{}\") = -1 [ENOTTY]", bytes(24)),
            &"ioctl(7, VT_GETSTATE, ADDR) = -1 [ENOTTY]".to_string(),
            &"ioctl(-1, VT_GETSTATE, ADDR) = -1 [EBADF]".to_string(),
            &"ioctl(-1, VIDIOC_ENUM_FMT, {index=0, type=0}) = -1 [EBADF]".to_string(),
            &format!(
                "ioctl(-1, _IOWR('V', 0x6, 32), \"{}\") = -1 [EBADF]",
                bytes(32)
            ),
            // Named from the kernel's own headers (libdrm-dev has none).
            &format!(
                "ioctl(8, DRM_IOCTL_ETNAVIV_GEM_WAIT, \"{}\") = -1 [ENOTTY]",
                bytes(32)
            ),
            &format!(
                "ioctl(8, DRM_IOCTL_LIMA_GEM_WAIT, \"{}\") = -1 [ENOTTY]",
                bytes(16)
            ),
            &format!(
                "ioctl(8, DRM_IOCTL_V3D_SUBMIT_TFU, \"{}\"..) = -1 [ENOTTY]",
                bytes(32)
            ),
        ]
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

/// A request its header defines through a family
/// (`#define SOUND_MIXER_READ_VOLUME MIXER_READ(SOUND_MIXER_VOLUME)`) is
/// found by its name, and a trace calls it by that name.
#[test]
fn requests_defined_through_a_family_are_found_by_name() {
    let out = rtrace()
        .args(["--explain-ioctl", "SOUND_MIXER_READ_VOLUME"])
        .env(NO_BTF.0, NO_BTF.1)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "SOUND_MIXER_READ_VOLUME is request 0x80044d00\n\
         request 0x80044d00 = _IOR('M', 0x0, 4)\n\
         \x20 bits 31-30  direction  2 = _IOC_READ (kernel -> program)\n\
         \x20 bits 29-16  size       4 bytes\n\
         \x20 bits 15-8   type       0x4d 'M'\n\
         \x20 bits 7-0    number     0 (0x0)\n\
         MIXER_READ(0) in linux/soundcard.h: a request with parameters in its code\n\
         SOUND_MIXER_READ_VOLUME in linux/soundcard.h: _IOR('M', 0, int)\n\
         \x20 argument: a pointer to int (the header's type; rtrace's tables have no layout for it)\n\
         \x20 printed as int (4 bytes, known from its C spelling), decoded after the call\n"
    );
    let out = rtrace()
        .args(["--explain-ioctl", "SOUND_MIXER_WRITE_PCM"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
