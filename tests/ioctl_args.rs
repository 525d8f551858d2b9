//! ioctl arguments beyond the hand-written groups: the bytes an unknown
//! request's code says it carries, struct arguments read from the kernel's
//! BTF, and the UFFDIO_API and FS_IOC_FIEMAP decoders, on a real
//! userfaultfd and a real file; for x86_64 and i386 programs.

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::{Run, fixture, fixture_m32, name, quoted, trace, trace_env};

/// What the fixture printed on stdout: `name=value` lines.
fn answers(run: &Run) -> HashMap<String, u64> {
    String::from_utf8_lossy(&run.output.stdout)
        .lines()
        .filter_map(|l| {
            let (k, v) = l.split_once('=')?;
            Some((k.to_string(), v.parse().ok()?))
        })
        .collect()
}

/// A scratch file on the disk file system the tests build in (FIEMAP
/// needs one; tmpfs has no extents).
fn scratch(tag: &str) -> String {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ioctl_args-{tag}-{}.dat", std::process::id()));
    path.to_str().unwrap().to_string()
}

/// `UFFD_FEATURE_*` in bit order (`<linux/userfaultfd.h>` of Linux 6.1,
/// the headers the flag table is generated from); newer bits stay hex.
const FEATURES: &[&str] = &[
    "UFFD_FEATURE_PAGEFAULT_FLAG_WP",
    "UFFD_FEATURE_EVENT_FORK",
    "UFFD_FEATURE_EVENT_REMAP",
    "UFFD_FEATURE_EVENT_REMOVE",
    "UFFD_FEATURE_MISSING_HUGETLBFS",
    "UFFD_FEATURE_MISSING_SHMEM",
    "UFFD_FEATURE_EVENT_UNMAP",
    "UFFD_FEATURE_SIGBUS",
    "UFFD_FEATURE_THREAD_ID",
    "UFFD_FEATURE_MINOR_HUGETLBFS",
    "UFFD_FEATURE_MINOR_SHMEM",
    "UFFD_FEATURE_EXACT_ADDRESS",
    "UFFD_FEATURE_WP_HUGETLBFS_SHMEM",
];

fn features_text(value: u64) -> String {
    let mut names: Vec<String> = FEATURES
        .iter()
        .enumerate()
        .filter(|(bit, _)| value & (1 << bit) != 0)
        .map(|(_, n)| n.to_string())
        .collect();
    let rest = value & !((1 << FEATURES.len()) - 1);
    if rest != 0 {
        names.push(format!("0x{rest:x}"));
    }
    if names.is_empty() {
        "0".into()
    } else {
        names.join("|")
    }
}

/// The requests a registered range takes (`struct uffdio_register.ioctls`,
/// bit n for request number n), as the header names the numbers.
const IOCTL_BITS: &[(u32, &str)] = &[
    (0, "_UFFDIO_REGISTER"),
    (1, "_UFFDIO_UNREGISTER"),
    (2, "_UFFDIO_WAKE"),
    (3, "_UFFDIO_COPY"),
    (4, "_UFFDIO_ZEROPAGE"),
    (6, "_UFFDIO_WRITEPROTECT"),
    (7, "_UFFDIO_CONTINUE"),
    (63, "_UFFDIO_API"),
];

/// `ioctls` as rtrace names it: `1<<_UFFDIO_WAKE|...`, what the header
/// lacks (this kernel may take newer requests) in hex.
fn ioctls_names(value: u64) -> Vec<String> {
    let mut rest = value;
    let mut names = Vec::new();
    for (bit, name) in IOCTL_BITS {
        if value & (1 << bit) != 0 {
            names.push(format!("1<<{name}"));
            rest &= !(1 << bit);
        }
    }
    if rest != 0 {
        names.push(format!("0x{rest:x}"));
    }
    names
}

fn ioctls_text(value: u64) -> String {
    let names = ioctls_names(value);
    if names.is_empty() {
        "0".into()
    } else {
        names.join("|")
    }
}

/// The lines every build of the fixture prints, whatever the BTF: the
/// unknown requests' bytes and the two hand decoders.
fn check_common(lines: &[String], a: &HashMap<String, u64>) {
    let unknown = [
        r#"ioctl(3, _IOW(0xe9, 0x1, 8), "abcdefgh") = -1 [ENOTTY]"#,
        // _IOR: the bytes are the kernel's answer; a failed call has none.
        "ioctl(3, _IOR(0xe9, 0x2, 8), &ADDR) = -1 [ENOTTY]",
        r#"ioctl(3, _IOWR(0xe9, 0x3, 4), "\1\2\3\4") = -1 [ENOTTY]"#,
        "ioctl(3, _IO(0xe9, 0x4), 0x2a) = -1 [ENOTTY]",
        r#"ioctl(3, _IOW(0xe9, 0x5, 64), "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"..) = -1 [ENOTTY]"#,
    ];
    assert_eq!(lines[1..6], unknown, "{lines:#?}");
    let api = format!(
        "ioctl(6, UFFDIO_API, {{api=0xaa, features=0}}) = 0 {{features={}, \
         ioctls=1<<_UFFDIO_REGISTER|1<<_UFFDIO_UNREGISTER|1<<_UFFDIO_API}}",
        features_text(a["features"])
    );
    assert!(
        a["features"] != 0,
        "the kernel offers no userfaultfd features"
    );
    assert_eq!(lines[9], api);
    if lines[11].ends_with("= -1 [EOPNOTSUPP]") {
        // The scratch file's file system keeps no extents (tmpfs).
        eprintln!("skipped the FIEMAP answers: {}", lines[11]);
        assert_eq!(
            lines[11],
            "ioctl(7, FS_IOC_FIEMAP, {fm_start=0, fm_length=18446744073709551615, \
             fm_flags=FIEMAP_FLAG_SYNC, fm_extent_count=8}) = -1 [EOPNOTSUPP]"
        );
        return;
    }
    assert_eq!(a["mapped"], 1, "one 4 KiB extent after fsync");
    let flags = match a["flags"] {
        1 => "FIEMAP_EXTENT_LAST".to_string(),
        other => panic!("unexpected extent flags {other:#x}"),
    };
    let fiemap = [
        format!(
            "ioctl(7, FS_IOC_FIEMAP, {{fm_start=0, fm_length=18446744073709551615, \
             fm_flags=FIEMAP_FLAG_SYNC, fm_extent_count=8}}) = 0 {{fm_flags=FIEMAP_FLAG_SYNC, \
             fm_mapped_extents=1, fm_extents=[{{fe_logical=0, fe_physical={}, fe_length=4096, \
             fe_flags={flags}}}]}}",
            a["physical"]
        ),
        // No room for extents: the kernel only counts them.
        format!(
            "ioctl(7, FS_IOC_FIEMAP, {{fm_start=0, fm_length=18446744073709551615, \
             fm_flags=0, fm_extent_count=0}}) = 0 {{fm_flags=0, fm_mapped_extents={}}}",
            a["count"]
        ),
    ];
    assert_eq!(lines[11..13], fiemap);
}

fn run_fixture(bin: &Path, tag: &str, env: &[(&str, &str)]) -> (Vec<String>, HashMap<String, u64>) {
    let file = scratch(tag);
    let run = trace_env(&[], &[name(bin), &file], env);
    let _ = std::fs::remove_file(&file);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let a = answers(&run);
    (run.after_marker(), a)
}

#[test]
fn unknown_requests_show_their_bytes_and_hand_decoders_name_flags() {
    for (bin, tag) in [
        (fixture("ioctl_args"), "64"),
        (fixture_m32("ioctl_args"), "32"),
    ] {
        let (lines, a) = run_fixture(&bin, tag, &[]);
        check_common(&lines, &a);
    }
}

/// The uffdio_register the fixture passes, as bytes, with `ioctls`.
fn register_bytes(start: u64, ioctls: u64) -> Vec<u8> {
    [start, 4096, 1, ioctls]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect()
}

/// Requests the ioctl tables name, whose argument types are in vmlinux's
/// BTF and no hand-written group decodes: an `int`, `struct fsxattr`
/// (_IOR, then _IOW) and `struct uffdio_register` (_IOWR: the kernel
/// writes `ioctls` back), field by field.
#[test]
fn struct_arguments_are_decoded_from_the_kernels_btf() {
    if !Path::new("/sys/kernel/btf/vmlinux").exists() {
        eprintln!("skipped: this kernel has no /sys/kernel/btf/vmlinux");
        return;
    }
    for (bin, tag) in [
        (fixture("ioctl_args"), "btf64"),
        (fixture_m32("ioctl_args"), "btf32"),
    ] {
        let (lines, a) = run_fixture(&bin, tag, &[]);
        check_common(&lines, &a);
        let fsx = "{fsx_xflags=0, fsx_extsize=0, fsx_nextents=0, fsx_projid=0, \
                   fsx_cowextsize=0, fsx_pad=[0, 0, 0, 0, 0, 0, 0, 0]}";
        let range = format!("range={{start={}, len=4096}}", a["start"]);
        let expected = [
            format!("ioctl(4, RNDGETENTCNT, [{}]) = 0", a["entropy"]),
            format!("ioctl(5, FS_IOC_FSGETXATTR, {fsx}) = 0"),
            format!("ioctl(5, FS_IOC_FSSETXATTR, {fsx}) = 0"),
        ];
        assert_eq!(lines[6..9], expected, "{tag}");
        assert_eq!(
            lines[10],
            format!(
                "ioctl(6, UFFDIO_REGISTER, {{{range}, mode=UFFDIO_REGISTER_MODE_MISSING, \
                 ioctls=0}}) = 0 {{{range}, mode=UFFDIO_REGISTER_MODE_MISSING, ioctls={}}}",
                ioctls_text(a["ioctls"])
            ),
            "{tag}"
        );
    }
}

/// With no BTF (here: RTRACE_BTF_DIR names an empty directory) the same
/// requests print the bytes their codes carry, quietly; a plain integer
/// type (RNDGETENTCNT's `int`) is still a number.
#[test]
fn without_btf_the_arguments_are_bytes() {
    let empty = Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-btf");
    std::fs::create_dir_all(&empty).unwrap();
    for (bin, tag) in [
        (fixture("ioctl_args"), "nobtf64"),
        (fixture_m32("ioctl_args"), "nobtf32"),
    ] {
        let (lines, a) = run_fixture(&bin, tag, &[("RTRACE_BTF_DIR", empty.to_str().unwrap())]);
        check_common(&lines, &a);
        let fsx = quoted(&[0; 28], false);
        let expected = [
            format!("ioctl(4, RNDGETENTCNT, [{}]) = 0", a["entropy"]),
            format!("ioctl(5, FS_IOC_FSGETXATTR, {fsx}) = 0"),
            format!("ioctl(5, FS_IOC_FSSETXATTR, {fsx}) = 0"),
        ];
        assert_eq!(lines[6..9], expected, "{tag}");
        assert_eq!(
            lines[10],
            format!(
                "ioctl(6, UFFDIO_REGISTER, {}) = 0 {}",
                quoted(&register_bytes(a["start"], 0), false),
                quoted(&register_bytes(a["start"], a["ioctls"]), false)
            ),
            "{tag}"
        );
        assert_eq!(
            lines[13], r#"ioctl(3, VHOST_SET_VRING_NUM, "\1\0\0\0\0\1\0\0") = -1 [ENOTTY]"#,
            "{tag}"
        );
    }
}

/// Split BTF as a module's (`/sys/kernel/btf/MODULE`) is: types numbered on
/// from vmlinux's last and names on from vmlinux's strings, here one
/// `struct vhost_vring_state {unsigned int index; unsigned int num;}`
/// (vhost is a module this host does not load).
/// With `looping`, the members' type is instead a typedef of itself, as
/// only a broken file could have it.
fn vhost_module_btf(vmlinux: &Path, looping: bool) -> Vec<u8> {
    let base = btf_rs::Btf::from_file(vmlinux).unwrap();
    let first_id = base.base().type_id_range().1 + 1;
    let uint = base.resolve_ids_by_name("unsigned int").unwrap()[0];
    let head = std::fs::read(vmlinux).unwrap();
    let base_str_len = u32::from_le_bytes(head[20..24].try_into().unwrap());
    let strings = b"\0vhost_vring_state\0index\0num\0loop_t\0";
    let name = |rel: u32| base_str_len + rel;
    let mut words = Vec::new();
    let member = if looping {
        // Type first_id: typedef (kind 8) loop_t of type first_id.
        words.extend([name(29), 8 << 24, first_id]);
        first_id
    } else {
        uint
    };
    // struct (kind 4), 2 members, 8 bytes; then each member's name, type
    // and bit offset.
    words.extend([
        name(1),
        4 << 24 | 2,
        8,
        name(19),
        member,
        0,
        name(25),
        member,
        32,
    ]);
    let types: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut btf = Vec::new();
    btf.extend_from_slice(&0xeb9f_u16.to_le_bytes());
    btf.extend_from_slice(&[1, 0]);
    for word in [
        24,
        0,
        types.len() as u32,
        types.len() as u32,
        strings.len() as u32,
    ] {
        btf.extend_from_slice(&word.to_le_bytes());
    }
    btf.extend_from_slice(&types);
    btf.extend_from_slice(strings);
    btf
}

/// A type only a module's BTF has is read from the module's file, split
/// against vmlinux: traced (64- and 32-bit) and explained.
#[test]
fn module_btf_is_read_split_against_vmlinux() {
    let vmlinux = Path::new("/sys/kernel/btf/vmlinux");
    if !vmlinux.exists() {
        eprintln!("skipped: this kernel has no /sys/kernel/btf/vmlinux");
        return;
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("btf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let _ = std::fs::remove_file(dir.join("vmlinux"));
    std::os::unix::fs::symlink(vmlinux, dir.join("vmlinux")).unwrap();
    std::fs::write(dir.join("vhost"), vhost_module_btf(vmlinux, false)).unwrap();
    let env = [("RTRACE_BTF_DIR", dir.to_str().unwrap())];
    for (bin, tag) in [
        (fixture("ioctl_args"), "mod64"),
        (fixture_m32("ioctl_args"), "mod32"),
    ] {
        let (lines, a) = run_fixture(&bin, tag, &env);
        check_common(&lines, &a);
        assert_eq!(
            lines[13], "ioctl(3, VHOST_SET_VRING_NUM, {index=1, num=256}) = -1 [ENOTTY]",
            "{tag}"
        );
    }
    let out = common::rtrace()
        .args(["--explain-ioctl", "VHOST_SET_VRING_NUM"])
        .env("RTRACE_BTF_DIR", &dir)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.ends_with(&format!(
            "  layout from the kernel's BTF ({}/vhost): struct vhost_vring_state (8 bytes), \
             decoded before the call\n    @0   4  unsigned int index\n    @4   4  unsigned int num\n",
            dir.display()
        )),
        "{text}"
    );
    // A type that loops is given up on: the bytes, and no crash.
    std::fs::write(dir.join("vhost"), vhost_module_btf(vmlinux, true)).unwrap();
    let out = common::rtrace()
        .args(["--explain-ioctl", "VHOST_SET_VRING_NUM"])
        .env("RTRACE_BTF_DIR", &dir)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.ends_with(
            "  printed as the 8 bytes its code carries, as a string before the call \
             (the kernel's BTF has no struct vhost_vring_state of 8 bytes)\n"
        ),
        "{text}"
    );
}

#[test]
fn the_string_limit_cuts_unknown_bytes() {
    let bin = fixture("ioctl_args");
    let file = scratch("s");
    let run = trace(&["-s", "4"], &[name(&bin), &file]);
    let _ = std::fs::remove_file(&file);
    let lines = run.after_marker();
    assert_eq!(
        lines[1], r#"ioctl(3, _IOW(0xe9, 0x1, 8), "abcd"..) = -1 [ENOTTY]"#,
        "{lines:#?}"
    );
}

/// `--explain-ioctl` of a request no group decodes: the argument's layout
/// from BTF (saying so) when the kernel has its type, else how its bytes
/// print.
#[test]
fn explain_shows_the_btf_layout_where_no_table_has_one() {
    let explain = |code: &str, env: Option<&Path>| {
        let mut cmd = common::rtrace();
        cmd.args(["--explain-ioctl", code]);
        if let Some(dir) = env {
            cmd.env("RTRACE_BTF_DIR", dir);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    // FS_IOC_FSGETXATTR: _IOR('X', 31, struct fsxattr).
    if Path::new("/sys/kernel/btf/vmlinux").exists() {
        let text = explain("FS_IOC_FSGETXATTR", None);
        let lines: Vec<&str> = text.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.starts_with("FS_IOC_FSGETXATTR in "))
            .unwrap_or_else(|| panic!("{text}"));
        assert_eq!(
            lines[at..],
            [
                "FS_IOC_FSGETXATTR in linux/fs.h: _IOR('X', 31, struct fsxattr)",
                "  argument: a pointer to struct fsxattr (the header's type; \
                 rtrace's tables have no layout for it)",
                "  layout from the kernel's BTF (/sys/kernel/btf/vmlinux): struct fsxattr \
                 (28 bytes), decoded after the call",
                "    @0   4  __u32 fsx_xflags",
                "    @4   4  __u32 fsx_extsize",
                "    @8   4  __u32 fsx_nextents",
                "    @12  4  __u32 fsx_projid",
                "    @16  4  __u32 fsx_cowextsize",
                "    @20  8  unsigned char[8] fsx_pad",
            ]
        );
        // A hand-written table's layout is checked against the kernel's:
        // FICLONERANGE's struct file_clone_range.
        let text = explain("0x4020940d", None);
        assert!(
            text.contains(
                "    @24  8  __u64 dest_offset\n  \
                 the kernel's BTF agrees (/sys/kernel/btf/vmlinux)\n"
            ),
            "{text}"
        );
    } else {
        eprintln!("skipped the BTF half: this kernel has no /sys/kernel/btf/vmlinux");
    }
    let empty = Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-btf");
    std::fs::create_dir_all(&empty).unwrap();
    let text = explain("0x801c581f", Some(&empty));
    assert!(
        text.ends_with(
            "  printed as the 28 bytes its code carries, as a string after the call \
             (no kernel BTF to read its type from)\n"
        ),
        "{text}"
    );
    // A code no header names: its bytes, or its number.
    let text = explain("0x4008e901", None);
    assert!(
        text.ends_with(
            "no header and no group rtrace knows names this request\n  \
             printed as the 8 bytes its code carries, as a string before the call\n"
        ),
        "{text}"
    );
    let text = explain("0xe904", None);
    assert!(
        text.ends_with("  argument: passed by value, printed as a number\n"),
        "{text}"
    );
}

/// --json: a BTF struct is an object of its fields (in `args` before the
/// call, in `returned` after it); unknown bytes are a string.
#[test]
fn json_renders_btf_structs_and_bytes() {
    if !Path::new("/sys/kernel/btf/vmlinux").exists() {
        eprintln!("skipped: this kernel has no /sys/kernel/btf/vmlinux");
        return;
    }
    let bin = fixture("ioctl_args");
    let file = scratch("json");
    let run = trace(&["--json"], &[name(&bin), &file]);
    let _ = std::fs::remove_file(&file);
    let a = answers(&run);
    let calls: Vec<serde_json::Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &serde_json::Value| v["name"] == "ioctl")
        .collect();
    let by_request = |r: &str| {
        calls
            .iter()
            .find(|c| c["args"]["request"] == r)
            .unwrap_or_else(|| panic!("no {r}"))
    };
    assert_eq!(by_request("_IOW(0xe9, 0x1, 8)")["args"]["arg"], "abcdefgh");
    let reg = by_request("UFFDIO_REGISTER");
    assert_eq!(
        reg["args"]["arg"],
        serde_json::json!({"range": {"start": a["start"], "len": 4096},
            "mode": {"value": 1, "flags": ["UFFDIO_REGISTER_MODE_MISSING"]},
            "ioctls": {"value": 0, "flags": []}})
    );
    assert_eq!(
        reg["returned"]["arg"],
        serde_json::json!({"range": {"start": a["start"], "len": 4096},
            "mode": {"value": 1, "flags": ["UFFDIO_REGISTER_MODE_MISSING"]},
            "ioctls": {"value": a["ioctls"], "flags": ioctls_names(a["ioctls"])}})
    );
    assert_eq!(
        by_request("RNDGETENTCNT")["args"]["arg"],
        serde_json::json!([a["entropy"]])
    );
}

/// The `ioctl_families` fixture's lines (on /dev/null, all ENOTTY): a
/// request with parameters takes its family's type (`EVIOCSABS(ABS_X)`:
/// `struct input_absinfo`), LOOP_SET_STATUS64 its `struct loop_info64`
/// (the loop group's, as strace shows it without -v), the old
/// LOOP_SET_STATUS the `struct loop_info` the kernel copies (the loop
/// group's, at each ABI's offsets, BTF or not), and plain integer types are
/// numbers (MIXER_WRITE(40)'s `int` is its family's); the `_IOR` ones
/// failed, so their pointers. `abs` is the family's struct as printed (from
/// BTF, or as bytes without it).
fn families_lines(abs: &str) -> Vec<String> {
    vec![
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]".to_string(),
        format!("ioctl(3, EVIOCSABS(ABS_X), {abs}) = -1 [ENOTTY]"),
        "ioctl(3, EVIOCGABS(ABS_Y), &ADDR) = -1 [ENOTTY]".to_string(),
        "ioctl(3, LOOP_SET_STATUS64, {lo_offset=0x1000, lo_number=7, \
         lo_flags=LO_FLAGS_READ_ONLY, lo_file_name=\"disk.img\", ..}) = -1 [ENOTTY]"
            .to_string(),
        "ioctl(3, LOOP_GET_STATUS64, &ADDR) = -1 [ENOTTY]".to_string(),
        "ioctl(3, LOOP_SET_STATUS, {lo_number=3, lo_offset=0x0, lo_flags=0, \
         lo_name=\"old.img\", ..}) = -1 [ENOTTY]"
            .to_string(),
        "ioctl(3, PERF_EVENT_IOC_PERIOD, [42]) = -1 [ENOTTY]".to_string(),
        "ioctl(3, RNDADDTOENTCNT, [-5]) = -1 [ENOTTY]".to_string(),
        "ioctl(3, MIXER_WRITE(40), [-5]) = -1 [ENOTTY]".to_string(),
        "exit_group(0)".to_string(),
        "Process exited normally with code 0".to_string(),
    ]
}

fn families_run(bin: &Path, args: &[&str], env: &[(&str, &str)]) -> Vec<String> {
    let run = trace_env(args, &[name(bin)], env);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    run.after_marker()
}

/// With the kernel's BTF: `struct input_absinfo` field by field, for x86_64
/// and i386 programs (its layout is the same on both).
#[test]
fn families_and_loop_status_are_decoded_from_btf() {
    if !Path::new("/sys/kernel/btf/vmlinux").exists() {
        eprintln!("skipped: this kernel has no /sys/kernel/btf/vmlinux");
        return;
    }
    let abs = "{value=1, minimum=-2, maximum=3, fuzz=4, flat=5, resolution=6}";
    let lines = families_run(&fixture("ioctl_families"), &[], &[]);
    assert_eq!(lines, families_lines(abs));
    let lines = families_run(&fixture_m32("ioctl_families"), &[], &[]);
    assert_eq!(lines, families_lines(abs));
}

/// Without BTF the family's struct is the bytes the kernel copies, the loop group's
/// `struct loop_info64` is decoded all the same (every field with -v, as
/// strace does), and a `__u64` or `int` argument is still the number.
#[test]
fn without_btf_families_are_bytes_and_integers_numbers() {
    let empty = Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-btf");
    std::fs::create_dir_all(&empty).unwrap();
    let env = [("RTRACE_BTF_DIR", empty.to_str().unwrap())];
    let abs: Vec<u8> = [1i32, -2, 3, 4, 5, 6]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    for bin in [fixture("ioctl_families"), fixture_m32("ioctl_families")] {
        let lines = families_run(&bin, &[], &env);
        assert_eq!(lines, families_lines(&quoted(&abs, false)));
    }
    let lines = families_run(&fixture("ioctl_families"), &["-v"], &env);
    assert_eq!(
        lines[3],
        "ioctl(3, LOOP_SET_STATUS64, {lo_device=makedev(0x0, 0x0), lo_inode=0, \
         lo_rdevice=makedev(0x0, 0x0), lo_offset=0x1000, lo_sizelimit=0, lo_number=7, \
         lo_encrypt_type=LO_CRYPT_NONE, lo_encrypt_key_size=0, lo_flags=LO_FLAGS_READ_ONLY, \
         lo_file_name=\"disk.img\", lo_crypt_name=\"\", lo_encrypt_key=\"\", \
         lo_init=[0, 0]}) = -1 [ENOTTY]"
    );
    // --json: the number is an array of one number; the loop status an
    // object with its flags named.
    let run = trace_env(&["--json"], &[name(&fixture("ioctl_families"))], &env);
    let calls: Vec<serde_json::Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .collect();
    let arg = |request: &str| {
        calls
            .iter()
            .find(|v| v["args"]["request"] == request)
            .unwrap_or_else(|| panic!("no {request}"))["args"]["arg"]
            .clone()
    };
    assert_eq!(arg("PERF_EVENT_IOC_PERIOD"), serde_json::json!([42]));
    assert_eq!(
        arg("LOOP_SET_STATUS64"),
        serde_json::json!({"lo_offset": 4096, "lo_number": 7,
            "lo_flags": {"value": 1, "flags": ["LO_FLAGS_READ_ONLY"]},
            "lo_file_name": "disk.img", "..": true})
    );
}
