//! The BTF that loading a typed (`tp_btf`) tracepoint's program needs.
//!
//! aya's `BtfTracePoint::load` takes a parsed `aya::Btf` and looks one
//! name up in it: the id of the typedef `btf_trace_TRACEPOINT`, which the
//! kernel checks the program's arguments against. A parse of vmlinux's 5 MB
//! for that cost a sixth of the start-up's time (and rtrace keeps aya's
//! loader from making one: `load::without_vmlinux`). So rtrace's own
//! index (which the start-up builds anyway, for the kernel's offsets) finds
//! those ids, and [`for_tracepoints`] hands aya a BTF of its own making
//! that holds just those typedefs at the kernel's ids, each id before them
//! taken by a nameless pointer. Where the index cannot say, vmlinux is
//! parsed as before.

use aya::{Btf, BtfError, Endianness};

/// `BTF_KIND_PTR` and `BTF_KIND_TYPEDEF` (include/uapi/linux/btf.h).
const KIND_PTR: u32 = 2;
const KIND_TYPEDEF: u32 = 8;

/// `BTF_MAGIC`.
const MAGIC: u16 = crate::abi::xlat::ioctl::BTF_MAGIC;

/// What `BtfTracePoint::load` needs for `tracepoints` (`sys_enter`): their
/// typedefs at the running kernel's ids.
pub fn for_tracepoints(tracepoints: &[&str]) -> Result<Btf, BtfError> {
    let typedefs: Option<Vec<(u32, String)>> = tracepoints
        .iter()
        .map(|tp| {
            let name = format!("btf_trace_{tp}");
            crate::ioctl::btf::vmlinux_typedef_id(&name).map(|id| (id, name))
        })
        .collect();
    match typedefs {
        Some(named) => Btf::parse(&with_typedefs(&named), Endianness::Little),
        None => Btf::from_sys_fs(),
    }
}

/// A little-endian BTF file whose types are the typedefs `named` (id,
/// name) at their ids, every other id up to the last a nameless pointer
/// (a 12-byte record, the least the format has).
fn with_typedefs(named: &[(u32, String)]) -> Vec<u8> {
    let last = named.iter().map(|(id, ..)| *id).max().unwrap_or(0);
    let mut strings = vec![0u8];
    let mut types = Vec::with_capacity(last as usize * 12);
    for id in 1..=last {
        let (name_off, kind) = match named.iter().find(|(at, ..)| *at == id) {
            Some((_, name)) => {
                let off = strings.len() as u32;
                strings.extend_from_slice(name.as_bytes());
                strings.push(0);
                (off, KIND_TYPEDEF)
            }
            None => (0, KIND_PTR),
        };
        // name_off, info (the kind in bits 24-28), the type referred to.
        for word in [name_off, kind << 24, 0] {
            types.extend_from_slice(&word.to_le_bytes());
        }
    }
    let mut file = Vec::with_capacity(24 + types.len() + strings.len());
    file.extend_from_slice(&MAGIC.to_le_bytes());
    file.extend_from_slice(&[1, 0]); // version, flags
    // hdr_len, type_off, type_len, str_off, str_len
    let header = [
        24,
        0,
        types.len() as u32,
        types.len() as u32,
        strings.len() as u32,
    ];
    for word in header {
        file.extend_from_slice(&word.to_le_bytes());
    }
    file.extend_from_slice(&types);
    file.extend_from_slice(&strings);
    file
}

#[cfg(test)]
mod tests {
    use super::*;
    use aya_obj::btf::BtfKind;

    #[test]
    fn the_typedefs_are_found_at_their_ids_and_nothing_else_by_name() {
        let named = [
            (7, "btf_trace_a".to_string()),
            (3, "btf_trace_b".to_string()),
        ];
        let btf = Btf::parse(&with_typedefs(&named), Endianness::Little).expect("parses");
        let id = |name| btf.id_by_type_name_kind(name, BtfKind::Typedef).ok();
        assert_eq!(id("btf_trace_a"), Some(7));
        assert_eq!(id("btf_trace_b"), Some(3));
        assert_eq!(id("btf_trace_c"), None);
        assert_eq!(btf.id_by_type_name_kind("", BtfKind::Ptr).ok(), Some(1));
    }

    /// The ids aya's load would find in the kernel's own BTF: the one
    /// thing it asks of the BTF it is given.
    #[test]
    fn the_kernels_tracepoint_ids_are_the_ones_vmlinux_has() {
        let Ok(vmlinux) = Btf::from_sys_fs() else {
            eprintln!("no /sys/kernel/btf/vmlinux here: nothing to compare");
            return;
        };
        let tracepoints = ["sys_enter", "sys_exit", "sched_process_exec"];
        let ours = for_tracepoints(&tracepoints).expect("made");
        for tp in tracepoints {
            let name = format!("btf_trace_{tp}");
            let want = vmlinux.id_by_type_name_kind(&name, BtfKind::Typedef).ok();
            assert!(want.is_some(), "vmlinux has {name}");
            // Found by rtrace's index, not by the fallback's parse.
            assert_eq!(crate::ioctl::btf::vmlinux_typedef_id(&name), want);
            assert_eq!(
                ours.id_by_type_name_kind(&name, BtfKind::Typedef).ok(),
                want
            );
        }
    }
}
