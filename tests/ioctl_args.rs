//! ioctl arguments beyond the hand-written groups: the bytes an unknown
//! request's code says it carries, struct arguments read from the kernel's
//! BTF, and the UFFDIO_API and FS_IOC_FIEMAP decoders, on a real
//! userfaultfd and a real file; for x86_64 and i386 programs.

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::{Run, fixture, fixture_m32, name, trace, trace_env};

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

/// The lines every build of the fixture prints, whatever the BTF: the
/// unknown requests' bytes and the two hand decoders.
fn check_common(lines: &[String], a: &HashMap<String, u64>) {
    let unknown = [
        r#"ioctl(3, _IOW(0xe9, 0x1, 8), "abcdefgh") = -1 [ENOTTY]"#,
        // _IOR: the bytes are the kernel's answer; a failed call has none.
        "ioctl(3, _IOR(0xe9, 0x2, 8), &ADDR) = -1 [ENOTTY]",
        r#"ioctl(3, _IOWR(0xe9, 0x3, 4), "\x01\x02\x03\x04") = -1 [ENOTTY]"#,
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

/// tools/gen_flags.py, run again on this machine, writes the committed
/// src/ioctl/gen_flags.rs byte for byte (skipped, with a message, where
/// the headers are another version than the table was made from).
#[test]
fn regenerating_the_flag_tables_changes_nothing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let committed = std::fs::read_to_string(root.join("src/ioctl/gen_flags.rs")).unwrap();
    let out =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("gen_flags-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let status = std::process::Command::new("python3")
        .arg(root.join("tools/gen_flags.py"))
        .arg("--out")
        .arg(&out)
        .status()
        .expect("python3 runs the generator");
    assert!(status.success(), "tools/gen_flags.py failed");
    let fresh = std::fs::read_to_string(out.join("gen_flags.rs")).unwrap();
    let _ = std::fs::remove_dir_all(&out);
    let source = |text: &str| {
        text.lines()
            .find(|l| l.starts_with("pub const SOURCE"))
            .map(str::to_string)
    };
    if source(&fresh) != source(&committed) {
        eprintln!(
            "skipped: this machine's headers ({:?}) are not the table's ({:?})",
            source(&fresh),
            source(&committed)
        );
        return;
    }
    assert!(
        fresh == committed,
        "src/ioctl/gen_flags.rs is stale: run tools/gen_flags.py"
    );
}
