//! The options map: the memory multiplexed calls' decoders read behind one
//! argument, chosen by another argument's value (prctl's option,
//! arch_prctl's code), from `service::by_value`. The program's
//! `RT_CAP_OPTION` capture looks the value up here, by the call's spec
//! index and the value (`struct rt_option`, bpf/rtrace.h).

use super::ioctl_plan::{Pointed, when_of};
use super::plan::{I386_BASE, Limits};
use crate::kernel::Arch;
use crate::service::{self, Mem};

/// `struct rt_option`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OptionSpec {
    size: u16,
    arg: u8,
    when: u8,
    kind: u8,
    /// 1 + the argument that says how many bytes, or elements of `elem`
    /// bytes after `base` (0: `size` alone).
    len_arg: u8,
    /// The result says how many too (the fewer).
    by_result: u8,
    /// Or 1 + the argument whose struct's u32 at `len_off` says how many
    /// bytes.
    len_struct: u8,
    /// Each element's bytes `len_arg` counts (0: a byte).
    elem: u16,
    /// The bytes before them.
    base: u16,
    len_off: u16,
    /// Arrays behind pointer members of what is copied.
    pointed: [Pointed; 2],
}

/// `RT_OPT_SLOTS`: the memories one value may name, an argument each.
pub const SLOTS: usize = 4;

/// `struct rt_options`: the options map's value, the memories of one
/// value (a slot of size 0 is none).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OptionSlots([OptionSpec; SLOTS]);

// SAFETY: plain integers.
unsafe impl aya::Pod for OptionSlots {}

/// The entries of [`table`] gathered by key, in their order: the options
/// map's contents.
pub fn slots(table: &[(u64, OptionSpec)]) -> Vec<(u64, OptionSlots)> {
    let mut out: Vec<(u64, OptionSlots)> = Vec::new();
    for &(key, spec) in table {
        let at = match out.iter().position(|(k, _)| *k == key) {
            Some(at) => at,
            None => {
                out.push((key, OptionSlots::default()));
                out.len() - 1
            }
        };
        let slots = &mut out[at].1.0;
        let free = slots.iter().position(|s| s.size == 0);
        debug_assert!(
            free.is_some(),
            "more than {SLOTS} memories for key {key:#x}"
        );
        if let Some(free) = free {
            slots[free] = spec;
        }
    }
    out
}
/// `RT_OPT_*` kinds (bpf/rtrace.h).
const OPT_BYTES: u8 = 0;
const OPT_STR: u8 = 1;
const OPT_FPROG: u8 = 2;

/// `BPF_MAXINSNS` and a classic BPF instruction's bytes.
const MAX_INSNS: usize = 4096;
const INSN_SIZE: usize = 8;

// SAFETY: plain integers.
unsafe impl aya::Pod for OptionSpec {}

/// `RT_AT_ENTER`, `RT_AT_EXIT`.
const AT_ENTER: u8 = 1;
const AT_EXIT: u8 = 2;

/// Every entry of the options map for the calls `captured` says carry
/// their memory: key `spec index << 32 | value`. A filter program's
/// instructions are copied as far as they are shown (`-s`, or all with
/// `-v`).
pub fn table(limits: Limits, captured: &dyn Fn(&str) -> bool) -> Vec<(u64, OptionSpec)> {
    let shown_insns = if limits.verbose {
        MAX_INSNS
    } else {
        limits.string_limit.clamp(1, MAX_INSNS)
    };
    let mut calls: Vec<(u32, Arch, &str)> = Vec::new();
    for (arch, base) in [(Arch::X86_64, 0), (Arch::I386, I386_BASE)] {
        for (nr, name) in service::all_calls(arch) {
            if nr < I386_BASE as u64 && captured(name) {
                calls.push((base + nr as u32, arch, name));
            }
        }
    }
    // The calls i386's socketcall and ipc stand for, under their own spec
    // index, which the program looks the value up by (`caps_at`).
    calls.extend(
        super::plan::subcall_calls(captured)
            .into_iter()
            .map(|(index, _, name)| (index, Arch::I386, name)),
    );
    let mut out = Vec::new();
    for (index, arch, name) in calls {
        for entry in service::by_value(arch, name) {
            // Buffers as long as an argument says: as far as shown,
            // and one byte more to tell that they go on.
            let shown = limits.string_limit + 1;
            let (size, when, kind) = match entry.mem {
                // And one byte more: a string as long as the most
                // shown ends with its NUL there, which the copy must
                // see to tell it ended (`"123456789abcdef"`, not
                // `..`).
                Mem::Str(n) => (n + 1, AT_ENTER, OPT_STR),
                // As far as shown, a byte more to tell it goes on, and
                // its NUL.
                Mem::StrShown => (limits.string_limit + 2, AT_ENTER, OPT_STR),
                Mem::In(n) => (n, AT_ENTER, OPT_BYTES),
                Mem::Out(n) => (n, AT_EXIT, OPT_BYTES),
                Mem::Fprog => (shown_insns * INSN_SIZE, AT_ENTER, OPT_FPROG),
                Mem::Insns => (shown_insns * INSN_SIZE, AT_EXIT, OPT_BYTES),
                Mem::InLen(_) => (shown, AT_ENTER, OPT_BYTES),
                Mem::OutLen(_) => (shown, AT_EXIT, OPT_BYTES),
                // As many as the counting argument says, at most what one
                // capture holds (the elements are often bytes: a
                // struct's size, a CPU mask); a struct alone, its size.
                Mem::Block(block) => {
                    let size = if block.units.is_some() {
                        usize::MAX
                    } else {
                        block.base
                    };
                    (size, when_of(block.dirs), OPT_BYTES)
                }
                Mem::InMemberOf { .. } => (shown, AT_ENTER, OPT_BYTES),
                Mem::OutMemberOf { .. } => (shown, AT_EXIT, OPT_BYTES),
                // A struct's member: only behind an `Indirect`.
                Mem::InMember(_) | Mem::OutMember(_) => continue,
            };
            let (len_arg, by_result) = match entry.mem {
                Mem::InLen(n) => (n + 1, 0),
                Mem::OutLen(n) => (n + 1, 1),
                Mem::Block(block) => (block.units.map_or(0, |(n, _)| n + 1), 0),
                Mem::OutMemberOf { .. } => (0, 1),
                _ => (0, 0),
            };
            let (len_struct, len_off) = match entry.mem {
                Mem::InMemberOf { arg, offset } | Mem::OutMemberOf { arg, offset } => {
                    (arg + 1, offset)
                }
                _ => (0, 0),
            };
            let mut spec = OptionSpec {
                size: size.min(u16::MAX as usize) as u16,
                arg: entry.arg,
                when,
                kind,
                len_arg,
                by_result,
                len_struct,
                len_off,
                ..Default::default()
            };
            if let Mem::Block(block) = entry.mem {
                let narrow = |n: usize| n.min(u16::MAX as usize) as u16;
                spec.base = narrow(block.base);
                spec.elem = block.units.map_or(0, |(_, unit)| narrow(unit));
                for (slot, array) in spec.pointed.iter_mut().zip(block.pointed) {
                    *slot = Pointed::of(array, limits);
                }
            }
            let key = u64::from(index) << 32 | (entry.value as u32 as u64);
            out.push((key, spec));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The default limits: `-s 32`, no `-v`, no dumps.
    fn limits() -> Limits {
        Limits {
            string_limit: 32,
            verbose: false,
            dumps: false,
        }
    }

    #[test]
    fn prctl_set_name_is_a_string_at_the_entry_of_both_arches() {
        let limits = limits();
        let prctl = table(limits, &|name| name == "prctl");
        let set_name = crate::abi::xlat::process::PR_SET_NAME as u64;
        let at = |arch| {
            let nr = service::number(arch, "prctl").expect("prctl") as u32;
            let base = if arch == Arch::I386 { I386_BASE } else { 0 };
            u64::from(base + nr) << 32 | set_name
        };
        for arch in [Arch::X86_64, Arch::I386] {
            let (_, spec) = prctl
                .iter()
                .find(|(key, _)| *key == at(arch))
                .expect("PR_SET_NAME");
            // TASK_COMM_LEN with its NUL, and a byte more to see that
            // NUL after the longest name.
            assert_eq!(
                (spec.size, spec.arg, spec.when, spec.kind),
                (17, 1, AT_ENTER, OPT_STR)
            );
        }
        assert!(table(limits, &|_| false).is_empty());
    }

    #[test]
    fn io_uring_registers_blocks_carry_their_elements_and_pointed_arrays() {
        use crate::abi::xlat::fs::{
            IORING_REGISTER_FILES_UPDATE, IORING_REGISTER_FILES2, IORING_REGISTER_PROBE,
        };
        let limits = limits();
        let register = table(limits, &|name| name == "io_uring_register");
        let nr = service::number(Arch::X86_64, "io_uring_register").expect("a call");
        let of = |op: u32| {
            register
                .iter()
                .find(|(key, _)| *key == (nr << 32 | op as u64))
                .map(|(_, spec)| *spec)
                .expect("an entry")
        };
        // The probe: its 16 bytes and nr_args ops of 8, read and written.
        let probe = of(IORING_REGISTER_PROBE);
        assert_eq!(
            (probe.arg, probe.when, probe.len_arg, probe.base, probe.elem),
            (2, AT_ENTER | AT_EXIT, 4, 16, 8)
        );
        assert_eq!(probe.pointed, [Pointed::default(); 2]);
        // A files update: its struct, and the fds behind its `fds`
        // member, as many as nr_args (argument 3) says.
        let update = of(IORING_REGISTER_FILES_UPDATE);
        // Its struct alone: its 16 bytes, not as much as a capture holds
        // (which ran past a struct at a page's end into a fault).
        assert_eq!((update.size, update.base, update.len_arg), (16, 16, 0));
        let fds = Pointed::of(
            &crate::ioctl::PointedArray {
                ptr_offset: 8,
                ptr_offset_i386: Some(8),
                count_offset: 0,
                count_size: 0,
                count_arg: Some(3),
                unit: 4,
                shown: 1,
                dirs: crate::ioctl::IF_OUT,
                each: None,
                trailing: None,
                string: None,
            },
            limits,
        );
        assert_eq!(update.pointed, [fds, Pointed::default()]);
        // A resource register: nr_args bytes of it, its data and tags
        // counted by its `nr`.
        let files2 = of(IORING_REGISTER_FILES2);
        assert_eq!((files2.len_arg, files2.elem), (4, 1));
        assert!(files2.pointed.iter().all(|p| *p != Pointed::default()));
    }

    #[test]
    fn ptraces_register_set_is_behind_its_iovec_in_the_callers_layout() {
        use crate::abi::xlat::process::{PTRACE_GETREGSET, PTRACE_PEEKSIGINFO};
        let limits = limits();
        let ptrace = slots(&table(limits, &|name| name == "ptrace"));
        let of = |arch, request: i64| {
            let nr = service::number(arch, "ptrace").expect("ptrace") as u32;
            let base = if arch == Arch::I386 { I386_BASE } else { 0 };
            let key = u64::from(base + nr) << 32 | request as u32 as u64;
            ptrace
                .iter()
                .find(|(k, _)| *k == key)
                .expect("an entry")
                .1
                .0
        };
        for (arch, word) in [(Arch::X86_64, 8), (Arch::I386, 4)] {
            let [iovec, ..] = of(arch, PTRACE_GETREGSET);
            // The iovec at both ends, the set behind it at the exit, as
            // long as its iov_len says.
            assert_eq!(
                (iovec.arg, iovec.when, iovec.size),
                (3, AT_ENTER | AT_EXIT, 2 * word)
            );
            let set = Pointed::of(
                &crate::ioctl::PointedArray {
                    ptr_offset: 0,
                    ptr_offset_i386: Some(0),
                    count_offset: word as usize,
                    count_size: 4,
                    count_arg: None,
                    unit: 1,
                    shown: crate::abi::layout::extent(crate::abi::xlat::process::USER_FPREGS),
                    dirs: crate::ioctl::IF_IN,
                    each: None,
                    trailing: None,
                    string: None,
                },
                limits,
            );
            assert_eq!(iovec.pointed, [set, Pointed::default()], "{arch:?}");
        }
        // PEEKSIGINFO: its args struct read, the siginfos written.
        let [args, siginfos, none, ..] = of(Arch::X86_64, PTRACE_PEEKSIGINFO);
        assert_eq!((args.arg, args.when, args.size), (2, AT_ENTER, 16));
        assert_eq!((siginfos.arg, siginfos.when), (3, AT_EXIT));
        assert_eq!(none.size, 0);
    }

    #[test]
    fn quotactls_structs_are_chosen_by_the_command_above_the_type() {
        use crate::abi::xlat::fs::{Q_GETQUOTA, Q_SETQUOTA};
        let limits = limits();
        let all = table(limits, &|name| name.starts_with("quotactl"));
        let of = |call: &str, cmd: u32| {
            let nr = service::number(Arch::X86_64, call).expect("a call");
            all.iter()
                .find(|(key, _)| *key == (nr << 32 | cmd as u64))
                .map(|(_, spec)| (spec.arg, spec.when, spec.size))
        };
        // struct if_dqblk as far as the decoder reads (68 of its 72
        // bytes: the rest is padding), read or written.
        assert_eq!(of("quotactl", Q_SETQUOTA), Some((3, AT_ENTER, 68)));
        assert_eq!(of("quotactl_fd", Q_GETQUOTA), Some((3, AT_EXIT, 68)));
        // The program looks up the command: the value above the type.
        assert_eq!(service::selector_shift("quotactl"), 8);
        assert_eq!(service::selector_shift("prctl"), 0);
    }

    #[test]
    fn a_public_key_operation_has_a_slot_for_each_argument() {
        use crate::abi::xlat::process::KEYCTL_PKEY_ENCRYPT;
        let limits = limits();
        let nr = service::number(Arch::X86_64, "keyctl").expect("keyctl");
        let key = nr << 32 | KEYCTL_PKEY_ENCRYPT as u64;
        let all = slots(&table(limits, &|name| name == "keyctl"));
        let (_, OptionSlots(found)) = all.iter().find(|(k, _)| *k == key).expect("an entry");
        let args: Vec<(u8, u8, u8, u8, u16, u8)> = found
            .iter()
            .map(|o| (o.arg, o.when, o.kind, o.len_struct, o.len_off, o.by_result))
            .collect();
        assert_eq!(
            args,
            [
                // The params (40 bytes), the info string, the input as
                // long as in_len (at 4 in the params behind argument 1)
                // says, the output as long as out_len (at 8) and the
                // result say.
                (1, AT_ENTER, OPT_BYTES, 0, 0, 0),
                (2, AT_ENTER, OPT_STR, 0, 0, 0),
                (3, AT_ENTER, OPT_BYTES, 2, 4, 0),
                (4, AT_EXIT, OPT_BYTES, 2, 8, 1),
            ]
        );
    }

    #[test]
    fn no_value_names_more_memories_than_the_map_holds() {
        let limits = limits();
        let all = table(limits, &|_| true);
        for &(key, _) in &all {
            let n = all.iter().filter(|(k, _)| *k == key).count();
            assert!(n <= SLOTS, "{n} memories for {key:#x}");
        }
    }

    #[test]
    fn keyctls_buffers_are_as_long_as_their_length_and_result_say() {
        let limits = limits();
        let keyctl = table(limits, &|name| name == "keyctl");
        let nr = service::number(Arch::X86_64, "keyctl").expect("keyctl");
        let of = |op: u32| {
            keyctl
                .iter()
                .find(|(key, _)| *key == (nr << 32 | op as u64))
                .map(|(_, spec)| *spec)
                .expect("an entry")
        };
        // keyctl(KEYCTL_READ, key, buffer, buflen): buffer, at most
        // buflen bytes and the result, as far as -s shows and one more.
        let read = of(crate::abi::xlat::process::KEYCTL_READ);
        assert_eq!(
            (read.arg, read.when, read.size, read.len_arg, read.by_result),
            (2, AT_EXIT, 33, 4, 1)
        );
        // keyctl(KEYCTL_UPDATE, key, payload, plen): plen bytes read.
        let update = of(crate::abi::xlat::process::KEYCTL_UPDATE);
        assert_eq!(
            (update.arg, update.when, update.len_arg, update.by_result),
            (2, AT_ENTER, 4, 0)
        );
    }
}
