//! ioctl requests whose header's type is not what the kernel copies
//! (tools/ioctl_exceptions.py, applied by the table generator): their
//! lines against what the kernel wrote, for x86_64 and i386 programs.

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::{Run, fixture, fixture_m32, name, quoted, trace_env};

/// What the fixture printed on stdout: `name=value` lines.
fn answers(run: &Run) -> HashMap<String, String> {
    String::from_utf8_lossy(&run.output.stdout)
        .lines()
        .filter_map(|l| {
            let (k, v) = l.split_once('=')?;
            Some((k.to_string(), v.to_string()))
        })
        .collect()
}

fn run_fixture(
    bin: &Path,
    tag: &str,
    env: &[(&str, &str)],
) -> (Vec<String>, HashMap<String, String>) {
    // On the disk file system the tests build in: ext4 keeps inode flags.
    let file = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ioctl_exceptions-{tag}-{}.dat", std::process::id()));
    let file = file.to_str().unwrap().to_string();
    let run = trace_env(&[], &[name(bin), &file], env);
    let _ = std::fs::remove_file(&file);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let a = answers(&run);
    (run.after_marker(), a)
}

/// A `struct ifreq` of `len` bytes as TUN fills it: the name, then
/// `ifr_flags`, then zeros.
fn ifreq(name: &str, flags: u16, len: usize) -> Vec<u8> {
    let mut b = vec![0u8; len];
    b[..name.len()].copy_from_slice(name.as_bytes());
    b[16..18].copy_from_slice(&flags.to_le_bytes());
    b
}

/// The program's request names: an i386 program's `long` is an `int`, so
/// its FS_IOC_GETFLAGS is FS_IOC32_GETFLAGS's code; DMA_BUF_SET_NAME is
/// _A's or _B's (the pointer's size), both printed as the fd picks none.
/// The inode flags (`FS_*_FL`, `<linux/fs.h>`) by bit, as rtrace names
/// FS_IOC_GETFLAGS/SETFLAGS's `int` (FS_BTREE_FL is FS_INDEX_FL's bit).
const FS_FLAGS: &[(u32, &str)] = &[
    (0x1, "FS_SECRM_FL"),
    (0x2, "FS_UNRM_FL"),
    (0x4, "FS_COMPR_FL"),
    (0x8, "FS_SYNC_FL"),
    (0x10, "FS_IMMUTABLE_FL"),
    (0x20, "FS_APPEND_FL"),
    (0x40, "FS_NODUMP_FL"),
    (0x80, "FS_NOATIME_FL"),
    (0x100, "FS_DIRTY_FL"),
    (0x200, "FS_COMPRBLK_FL"),
    (0x400, "FS_NOCOMP_FL"),
    (0x800, "FS_ENCRYPT_FL"),
    (0x1000, "FS_INDEX_FL"),
    (0x2000, "FS_IMAGIC_FL"),
    (0x4000, "FS_JOURNAL_DATA_FL"),
    (0x8000, "FS_NOTAIL_FL"),
    (0x10000, "FS_DIRSYNC_FL"),
    (0x20000, "FS_TOPDIR_FL"),
    (0x40000, "FS_HUGE_FILE_FL"),
    (0x80000, "FS_EXTENT_FL"),
    (0x100000, "FS_VERITY_FL"),
    (0x200000, "FS_EA_INODE_FL"),
    (0x400000, "FS_EOFBLOCKS_FL"),
    (0x800000, "FS_NOCOW_FL"),
    (0x2000000, "FS_DAX_FL"),
    (0x10000000, "FS_INLINE_DATA_FL"),
    (0x20000000, "FS_PROJINHERIT_FL"),
    (0x40000000, "FS_CASEFOLD_FL"),
    (0x80000000, "FS_RESERVED_FL"),
];

/// The flags a file system answered, named: `FS_EXTENT_FL`, `0` for none.
fn fs_flags(value: &str) -> String {
    let value: u32 = value.parse().unwrap();
    let mut rest = value;
    let mut names: Vec<String> = Vec::new();
    for &(bit, name) in FS_FLAGS {
        if value & bit != 0 {
            names.push(name.into());
            rest &= !bit;
        }
    }
    if rest != 0 {
        names.push(format!("0x{rest:x}"));
    }
    if names.is_empty() {
        "0".into()
    } else {
        names.join("|")
    }
}

fn names(wide: bool) -> [&'static str; 4] {
    if wide {
        [
            "FS_IOC_GETFLAGS",
            "FS_IOC_SETFLAGS",
            "FS_IOC_GETVERSION",
            "DMA_BUF_SET_NAME or DMA_BUF_SET_NAME_B",
        ]
    } else {
        [
            "FS_IOC32_GETFLAGS or FS_IOC_GETFLAGS",
            "FS_IOC32_SETFLAGS or FS_IOC_SETFLAGS",
            "FS_IOC32_GETVERSION or FS_IOC_GETVERSION",
            "DMA_BUF_SET_NAME or DMA_BUF_SET_NAME_A",
        ]
    }
}

/// The DMA_BUF_SET_NAME lines: the name is a string the kernel takes up to
/// 32 bytes; one longer (and longer than -s) is cut, and marked.
fn dma_lines(dma: &str) -> [String; 2] {
    [
        format!("ioctl(5, {dma}, \"rtrace-buffer\") = -1 [ENOTTY]"),
        format!("ioctl(5, {dma}, \"0123456789abcdef0123456789abcdef\"..) = -1 [ENOTTY]"),
    ]
}

/// With the kernel's BTF: FS_IOC_*FLAGS and GETVERSION print the int the
/// kernel copied (not 8 bytes of which 4 are the caller's filler),
/// PERF_EVENT_IOC_ID the id the kernel wrote at the pointer (not the
/// pointer), DMA_BUF_SET_NAME the string; TUNSETIFF the `struct ifreq`.
#[test]
fn arguments_are_what_the_kernel_copies() {
    if !Path::new("/sys/kernel/btf/vmlinux").exists() {
        eprintln!("skipped: this kernel has no /sys/kernel/btf/vmlinux");
        return;
    }
    for (bin, tag, wide) in [
        (fixture("ioctl_exceptions"), "btf64", true),
        (fixture_m32("ioctl_exceptions"), "btf32", false),
    ] {
        let (lines, a) = run_fixture(&bin, tag, &[]);
        let [get, set, version, dma] = names(wide);
        let mut expected = vec![
            format!("ioctl(3, {get}, [{}]) = 0", fs_flags(&a["flags"])),
            format!("ioctl(3, {set}, [{}]) = 0", fs_flags(&a["flags"])),
            format!("ioctl(3, {version}, [{}]) = 0", a["version"]),
            format!("ioctl(4, PERF_EVENT_IOC_ID, [{}]) = 0", a["id"]),
        ];
        expected.extend(dma_lines(dma));
        assert_eq!(lines[1..7], expected, "{lines:#?}");
        if !a.contains_key("tun") {
            eprintln!("skipped TUNSETIFF: no /dev/net/tun, or no new network namespace");
            continue;
        }
        assert_eq!(a["tun"], "0", "TUNSETIFF failed");
        if wide {
            // The kernel's `struct ifreq` from BTF: its union spelled out
            // member by member, as BTF printing shows every member.
            let set = "ioctl(6, TUNSETIFF, {ifr_ifrn={ifrn_name=\"rtr%d\"}, ifr_ifru={";
            assert!(lines[7].starts_with(set), "{}", lines[7]);
            let back = format!(
                "}}) = 0 {{ifr_ifrn={{ifrn_name=\"{}\"}}, ifr_ifru={{",
                a["tun_name"]
            );
            assert!(lines[7].contains(&back), "{}", lines[7]);
            assert!(lines[7].contains(&format!("ifru_flags={}, ", a["tun_flags"])));
            let get = format!(
                "ioctl(6, TUNGETIFF, {{ifr_ifrn={{ifrn_name=\"{}\"}}, ",
                a["tun_name"]
            );
            assert!(lines[8].starts_with(&get), "{}", lines[8]);
        } else {
            // i386's ifreq holds pointers: not BTF's layout, its 32 bytes.
            check_tun_bytes(&lines, &a, 32);
        }
        assert_eq!(lines[9], "ioctl(6, TUNSETPERSIST, 0x0) = 0");
    }
}

/// TUNSETIFF and TUNGETIFF as the bytes of the `struct ifreq` the kernel
/// copies (40 bytes, or a 32-bit program's 32), cut at -s.
fn check_tun_bytes(lines: &[String], a: &HashMap<String, String>, len: usize) {
    let flags: u16 = a["tun_flags"].parse().unwrap();
    let got: u16 = a["got_flags"].parse().unwrap();
    let cut = len > 32;
    let shown = len.min(32);
    let before = ifreq("rtr%d", flags, len);
    let after = ifreq(&a["tun_name"], flags, len);
    let gotten = ifreq(&a["tun_name"], got, len);
    assert_eq!(
        lines[7..9],
        [
            format!(
                "ioctl(6, TUNSETIFF, {}) = 0 {}",
                quoted(&before[..shown], cut),
                quoted(&after[..shown], cut)
            ),
            format!("ioctl(6, TUNGETIFF, {}) = 0", quoted(&gotten[..shown], cut)),
        ],
        "{lines:#?}"
    );
}

/// Without BTF: what the kernel copies, at the size it copies it (an
/// `int` for FS_IOC_GETFLAGS, not the code's 8 bytes; a `__u64` for
/// PERF_EVENT_IOC_ID on i386 too, not the pointer's 4; integer types as
/// numbers, all of a `struct ifreq`'s bytes for TUNSETIFF).
#[test]
fn without_btf_the_bytes_the_kernel_copies() {
    let empty = Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-btf-exceptions");
    std::fs::create_dir_all(&empty).unwrap();
    let dir = empty.to_str().unwrap();
    for (bin, tag, wide) in [
        (fixture("ioctl_exceptions"), "raw64", true),
        (fixture_m32("ioctl_exceptions"), "raw32", false),
    ] {
        let (lines, a) = run_fixture(&bin, tag, &[("RTRACE_BTF_DIR", dir)]);
        let [get, set, version, dma] = names(wide);
        let flags = fs_flags(&a["flags"]);
        let ver: i32 = a["version"].parse().unwrap();
        let id: u64 = a["id"].parse().unwrap();
        // The integer types print as numbers without BTF too (the inode
        // flags named).
        let mut expected = vec![
            format!("ioctl(3, {get}, [{flags}]) = 0"),
            format!("ioctl(3, {set}, [{flags}]) = 0"),
            format!("ioctl(3, {version}, [{ver}]) = 0"),
            format!("ioctl(4, PERF_EVENT_IOC_ID, [{id}]) = 0"),
        ];
        expected.extend(dma_lines(dma));
        assert_eq!(lines[1..7], expected, "{lines:#?}");
        if a.contains_key("tun") {
            check_tun_bytes(&lines, &a, if wide { 40 } else { 32 });
            assert_eq!(lines[9], "ioctl(6, TUNSETPERSIST, 0x0) = 0");
        }
    }
}

fn explain(what: &str) -> Vec<String> {
    let out = common::rtrace()
        .args(["--explain-ioctl", what])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

/// `--explain-ioctl` shows the header's type, what the kernel copies
/// instead, why, and the kernel source line that proves it.
#[test]
fn explain_shows_the_exception_and_its_proof() {
    let text = explain("FS_IOC_GETFLAGS");
    let at = text
        .iter()
        .position(|l| l == "FS_IOC_GETFLAGS in linux/fs.h: _IOR('f', 1, long)")
        .unwrap_or_else(|| panic!("{text:#?}"));
    assert_eq!(
        text[at + 1..at + 4],
        [
            "  argument: the header says `long`; the kernel copies `int` (4 bytes) at the pointer",
            "  why: declared `long`, but the kernel copies an `unsigned int` (the 32-bit forms \
             FS_IOC32_* say `int` and mean the same)",
            "  kernel source: fs/ioctl.c:704 ioctl_getflags(file, unsigned int __user *argp): \
             put_user(fa.flags, argp) (:711); fs/ioctl.c:723 ioctl_setflags(): get_user(flags, \
             argp); fs/ioctl.c:950 compat: FS_IOC32_GETFLAGS is FS_IOC_GETFLAGS, `These access \
             32-bit values anyway`",
        ]
    );
    // The pointer rule: `__u64 *` is followed to the __u64.
    let text = explain("PERF_EVENT_IOC_ID");
    assert!(
        text.contains(
            &"  argument: the header says `__u64 *`; the kernel copies `__u64` (8 bytes) at the pointer"
                .to_string()
        ),
        "{text:#?}"
    );
}

/// A group's request whose header declares a pointer type: the code's
/// size is the pointer's, and the explanation says so beside the layout.
#[test]
fn explain_says_diag_iocsreg_takes_a_pointer() {
    let text = explain("DIAG_IOCSREG");
    let at = text
        .iter()
        .position(|l| l.starts_with("DIAG_IOCSREG in group user_events"))
        .unwrap_or_else(|| panic!("{text:#?}"));
    assert_eq!(
        text[at..at + 11],
        [
            "DIAG_IOCSREG in group user_events: _IOWR('*', 0, struct user_reg *)",
            "  argument: pointer to struct user_reg, decoded before and after the call",
            "  layout from rtrace's user_events decoder: struct user_reg (28 bytes)",
            "    @0   4  u32 size",
            "    @4   1  u8 enable_bit",
            "    @5   1  u8 enable_size",
            "    @6   2  u16 flags",
            "    @8   8  u64 enable_addr",
            "    @16  8  u64 (char *) name_args",
            "    @24  4  u32 (out) write_index",
            "  the code's size (8 bytes) is a pointer's: the header's type is `struct user_reg *`; \
             the argument is that pointer, and the kernel copies the 28-byte struct it points to",
        ]
    );
}

/// A flexible array member whose count a member before it gives (KVM's
/// `nmsrs`): its elements print, the program's before the call and the
/// kernel's after it, cut at `-s` (32) with `..`, never an empty
/// `__empty_*` struct. On /dev/kvm, where the kernel fills the list.
#[test]
fn a_counted_flexible_array_prints_its_elements() {
    if !Path::new("/sys/kernel/btf/vmlinux").exists() {
        eprintln!("skipped: this kernel has no /sys/kernel/btf/vmlinux");
        return;
    }
    for bin in [fixture("kvm_flex"), fixture_m32("kvm_flex")] {
        let run = trace_env(&[], &[name(&bin)], &[]);
        assert_eq!(run.code(), Some(0), "{}", run.stderr());
        let a = answers(&run);
        if String::from_utf8_lossy(&run.output.stdout).trim() == "none" {
            eprintln!("skipped: no /dev/kvm");
            return;
        }
        let n: usize = a["nmsrs"].parse().unwrap();
        let more = if n > 32 { ", .." } else { "" };
        let zeros = vec!["0"; n.min(32)].join(", ");
        assert_eq!(a["first"], "-1");
        assert_eq!(
            run.after_marker()[1..3],
            [
                "ioctl(3, KVM_GET_MSR_INDEX_LIST, {nmsrs=2, indices=[0, 0]}) = -1 [E2BIG]"
                    .to_string(),
                format!(
                    "ioctl(3, KVM_GET_MSR_INDEX_LIST, {{nmsrs={n}, indices=[{zeros}{more}]}}) = 0 \
                     {{nmsrs={n}, indices=[{}{more}]}}",
                    a["indices"]
                ),
            ],
            "{bin:?}"
        );
    }
}
