//! Tests against this machine's own BTF (skipped, with a message, where
//! the kernel publishes none).

use super::*;
use crate::ioctl::{Arg, groups};

/// Whether the kernel's BTF is here; says so when it is not.
fn have_btf() -> bool {
    if available() {
        return true;
    }
    eprintln!("skipped: no kernel BTF in {SYS_BTF} (or RTRACE_BTF_DIR)");
    false
}

#[test]
fn struct_layouts_come_from_vmlinux() {
    if !have_btf() {
        return;
    }
    let found = lookup("struct fiemap", 32, false).expect("struct fiemap in vmlinux BTF");
    assert!(found.source.ends_with("vmlinux"), "{:?}", found.source);
    let members = flat_members(&found.shape);
    let names: Vec<&str> = members.iter().map(|m| m.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "fm_start",
            "fm_length",
            "fm_flags",
            "fm_mapped_extents",
            "fm_extent_count",
            "fm_reserved",
            "fm_extents"
        ]
    );
    assert_eq!(members[2], ("fm_flags".into(), 16, 4));
    // The wrong size is another type (or none).
    assert!(lookup("struct fiemap", 24, false).is_none());
    assert!(lookup("struct no_such_struct_in_any_kernel", 8, false).is_none());
    // Base types in C spelling, typedefs, arrays and pointers.
    assert_eq!(lookup("int", 4, false).unwrap().shape.ty, "int");
    assert_eq!(lookup("unsigned long", 8, false).unwrap().shape.size, 8);
    assert_eq!(lookup("__u64", 8, false).unwrap().shape.ty, "__u64");
    assert_eq!(lookup("char[16]", 16, false).unwrap().shape.ty, "char[16]");
    assert_eq!(
        lookup("__u8[(0x3f +1)]", 64, false).unwrap().shape.ty,
        "__u8[64]"
    );
    assert!(lookup("char[16]", 15, false).is_none());
    assert_eq!(lookup("void *", 8, false).unwrap().shape.size, 8);
    assert!(lookup("void *", 8, true).is_none());
}

#[test]
fn i386_uses_btf_only_where_the_layout_is_the_same() {
    if !have_btf() {
        return;
    }
    // All 64-bit members at 8-byte offsets: the same on i386.
    assert!(lookup("struct uffdio_api", 24, true).is_some());
    assert!(lookup("struct file_clone_range", 32, true).is_some());
    // Pointers and longs change size.
    assert!(lookup("struct iovec", 16, false).is_some());
    assert!(lookup("struct iovec", 16, true).is_none());
    assert!(lookup("long", 8, true).is_none());
    // A u64 after a u32 moves on i386: struct timespec64 is fine (two
    // s64), struct ethtool_drvinfo has no 64-bit members at all.
    assert!(lookup("struct ethtool_drvinfo", 196, true).is_some());
}

#[test]
fn explain_text_lists_the_members() {
    if !have_btf() {
        return;
    }
    let found = describe("struct fiemap").unwrap();
    let text = print::layout_text(&found.shape);
    assert!(text.contains("    @16  4  __u32 fm_flags\n"), "{text}");
    assert!(
        text.contains("    @32  0  struct fiemap_extent[0] fm_extents\n"),
        "{text}"
    );
}

/// The hand-written usbmon and user_events struct layouts (and the file
/// group's, which every vmlinux has, so the comparison runs everywhere)
/// against the kernel's own: every field the table names must sit where
/// BTF says, with BTF's size. A struct this kernel's BTF lacks (usbmon is
/// a module the host may not have; user_events needs CONFIG_USER_EVENTS)
/// is skipped with a message. (Other groups name some fields by the
/// uapi's macros, `ifr_name` for `ifr_ifrn.ifrn_name`, which BTF does not
/// know.)
#[test]
fn hand_written_layouts_match_the_kernel() {
    if !have_btf() {
        return;
    }
    let mut checked = 0;
    let mut seen = std::collections::HashSet::new();
    for &group in groups() {
        if !["usbmon", "user_events", "file", "userfaultfd", "loop"].contains(&group.name()) {
            continue;
        }
        for req in group.requests() {
            let (Arg::Struct(layout) | Arg::Custom(layout)) = req.arg else {
                continue;
            };
            if !seen.insert(layout.name) {
                continue;
            }
            match check_layout(layout) {
                None => eprintln!(
                    "skipped: struct {} ({}) is not in this kernel's BTF",
                    layout.name,
                    group.name()
                ),
                Some(Agreement::Agrees(_)) => checked += 1,
                Some(Agreement::Differs(source, diffs)) => {
                    panic!("struct {} differs from {source:?}: {diffs:?}", layout.name)
                }
            }
        }
    }
    eprintln!("{checked} hand-written layouts match the kernel's BTF");
    // vmlinux always has struct file_clone_range and file_dedupe_range.
    assert!(checked >= 2, "no layout was compared");
}

/// The name index (`index.rs`, our walk of the record headers) finds the
/// same ids as the crate's scan of every type, for names the tables use
/// and names only the BPF engine's plan asks for.
#[test]
fn the_index_agrees_with_the_crates_scan() {
    if !have_btf() {
        return;
    }
    let k = kernel().unwrap();
    assert!(lookup("struct fiemap", 32, false).is_some());
    let index = k.index.get().unwrap().as_ref().expect("vmlinux indexed");
    for name in [
        "fiemap",
        "__u32",
        "uffdio_api",
        "task_struct",
        "stat",
        "size_t",
    ] {
        let scanned: Vec<u32> = k
            .vmlinux
            .resolve_ids_by_name(name)
            .unwrap()
            .into_iter()
            .filter(|&id| {
                matches!(
                    k.vmlinux.resolve_type_by_id(id),
                    Ok(Type::Struct(_)
                        | Type::Union(_)
                        | Type::Enum(_)
                        | Type::Enum64(_)
                        | Type::Typedef(_)
                        | Type::Int(_))
                )
            })
            .collect();
        assert_eq!(index.get(name), &scanned[..], "{name}");
        assert!(!scanned.is_empty(), "{name}");
    }
}
