//! The ioctl table: what the program copies of the argument of each
//! request whose code does not say it. Old requests' codes carry no size
//! or direction (`TCGETS` is 0x5401), and some headers' macros name
//! another type or direction than the kernel copies (`UFFDIO_WAKE` is
//! `_IOR` but read by the kernel): the groups' tables and the generated
//! tables' exceptions say what the decoders read. Requests the code
//! describes are copied as the code says, without an entry here.

use super::plan::{Limits, clamp};
use crate::ioctl::defs::Copied;

/// `RT_AT_ENTER`, `RT_AT_EXIT`.
const AT_ENTER: u8 = 1;
const AT_EXIT: u8 = 2;

/// `struct rt_ioctl`: the argument of a request rtrace's tables know. The
/// C struct is flat; its two groups of fields are grouped here, with the
/// same layout (each of 2-byte alignment).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IoctlSpec {
    size: u16,
    when: u8,
    str: u8,
    /// `flex_*`, `count_*`: the counted flexible array after the struct.
    flex: Flex,
    /// `ptr_*`, `pcount_*`: the array behind a pointer in the struct.
    pointed: Pointed,
}

/// `rt_ioctl`'s flexible array: each element's bytes (0: none), the
/// most elements, the count's offset and bytes, and when.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Flex {
    elem: u16,
    max: u16,
    count_off: u16,
    count_bytes: u8,
    when: u8,
}

/// `struct rt_pointed`: an array behind a pointer member of a struct
/// argument (an ioctl's, or a multiplexed call's: `by_value.rs`): the
/// pointer's offset (and an i386 caller's), the count's offset and bytes
/// (`RT_COUNT_ARG` | n: argument n counts), when, each counted unit's
/// bytes (0: none) and the most units; and the buffer behind a pointer in
/// each unit (`each_ptr` u16::MAX: none), as many bytes as the u32 at
/// `each_len` says, at most `each_max`; and the elements after the one
/// unit (`trail_elem` 0: none) that its `trail_bytes`-byte member at
/// `trail_off` counts, at most `trail_max`. `str`: the pointer is to a
/// NUL-terminated string of at most `unit` bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Pointed {
    off: u16,
    off32: u16,
    count_off: u16,
    count_bytes: u8,
    when: u8,
    unit: u16,
    max: u16,
    each_ptr: u16,
    each_len: u16,
    each_max: u16,
    trail_off: u16,
    trail_elem: u16,
    trail_max: u16,
    trail_bytes: u8,
    str: u8,
}

/// `RT_COUNT_ARG`: `count_bytes` names an argument, not a member's size.
const COUNT_ARG: u8 = 0x80;

/// `RT_AT_*` of the `ioctl::IF_*` directions `dirs`: `IF_OUT` at the
/// entry, `IF_IN` at the exit.
pub(super) fn when_of(dirs: u8) -> u8 {
    use crate::ioctl::{IF_IN, IF_OUT};
    (if dirs & IF_OUT != 0 { AT_ENTER } else { 0 }) | if dirs & IF_IN != 0 { AT_EXIT } else { 0 }
}

impl Pointed {
    /// The copy of the array behind a pointer in the struct, `array`, at
    /// most as many elements as the decoders show.
    pub(super) fn of(array: &crate::ioctl::PointedArray, limits: Limits) -> Pointed {
        let narrow = |n: usize| n.min(u16::MAX as usize) as u16;
        if let Some(kind) = array.string {
            use crate::ioctl::PointedString;
            // One unit: the string, as far as the decoder reads it, and
            // a byte more (its NUL, or that it goes on).
            let bytes = match kind {
                PointedString::Shown => limits.string_limit + 2,
                PointedString::Path => crate::format::PATH_MAX + 1,
            };
            return Pointed {
                off: narrow(array.ptr_offset),
                off32: array.ptr_offset_i386.map_or(u16::MAX, narrow),
                when: when_of(array.dirs),
                unit: narrow(bytes),
                max: 1,
                each_ptr: u16::MAX,
                str: 1,
                ..Pointed::default()
            };
        }
        let elements = if limits.verbose {
            crate::decode::VERBOSE_ELEMENTS
        } else {
            limits.string_limit.max(1)
        };
        Pointed {
            off: narrow(array.ptr_offset),
            off32: array.ptr_offset_i386.map_or(u16::MAX, narrow),
            count_off: narrow(array.count_offset),
            count_bytes: match array.count_arg {
                Some(arg) => COUNT_ARG | arg,
                None => array.count_size.min(4) as u8,
            },
            when: when_of(array.dirs),
            unit: narrow(array.unit),
            // And one more element, which tells the decoder the array
            // goes on (`..`).
            max: narrow((elements + 1).saturating_mul(array.shown)),
            // As far as shown, and a byte to tell that it goes on.
            each_ptr: array.each.map_or(u16::MAX, |(ptr, _)| narrow(ptr)),
            each_len: array.each.map_or(0, |(_, len)| narrow(len)),
            each_max: narrow(limits.string_limit + 1),
            trail_off: array.trailing.map_or(0, |t| narrow(t.count_offset)),
            trail_elem: array.trailing.map_or(0, |t| narrow(t.elem)),
            trail_max: array.trailing.map_or(0, |t| {
                narrow(if limits.verbose {
                    t.shown_verbose
                } else {
                    t.shown
                })
            }),
            trail_bytes: array.trailing.map_or(0, |t| t.count_size.min(4) as u8),
            str: 0,
        }
    }
}

// SAFETY: plain integers.
unsafe impl aya::Pod for IoctlSpec {}

/// What to copy of the argument of each request the ioctl groups decode
/// (its size and direction from the group's table), of each the
/// generated tables copy otherwise than their code says, and of each
/// whose struct ends with a counted flexible array.
pub fn table(limits: Limits) -> Vec<(u32, IoctlSpec)> {
    use crate::ioctl::{Arg, IF_IN, IF_OUT};
    let mut out: Vec<(u32, IoctlSpec)> = Vec::new();
    for group in crate::ioctl::groups() {
        for req in group.requests() {
            let (size, str) = match &req.arg {
                Arg::Int | Arg::IntFlags(_) => (4, 0),
                Arg::Char => (1, 0),
                Arg::Struct(layout) | Arg::Custom(layout) => (layout.size, 0),
                Arg::Str => (limits.string_limit + 2, 1),
                // A pointer the kernel stores (REAPURB's URB address), as
                // wide as the code's size bits say, for what it points at.
                Arg::Ptr if req.pointed.is_some() => (((req.code >> 16) & 0x3fff) as usize, 0),
                _ => continue,
            };
            // Printed at the entry (IF_OUT) or the leave (IF_IN); a value
            // the kernel writes back is also printed at the leave.
            let (enter, leave) = (req.dirs & IF_OUT != 0, req.dirs & IF_IN != 0);
            let both = req.dirs == 0;
            let mut spec = spec(size, str, enter || both, leave || both);
            if let Some(flex) = req.flex {
                let when = when_of(flex.dirs);
                spec.counted(flex.count_offset, flex.count_size, flex.elem, when, limits);
            }
            if let Some(array) = req.pointed {
                spec.pointed = Pointed::of(&array, limits);
            }
            merge(&mut out, req.code, spec);
        }
    }
    let decoded: Vec<u32> = out.iter().map(|&(code, _)| code).collect();
    // The generated tables' exceptions, both architectures' (a code is
    // the same on both where the struct is).
    for t in crate::ioctl::names::tables() {
        for def in t.defs {
            let Some(real) = t.real(def) else {
                continue;
            };
            let (size, str) = match real.copied {
                Copied::Pointee(_, size) => (size as usize, 0),
                Copied::Str(0) => (limits.string_limit + 2, 1),
                // The decoder reads the kernel's most and one byte more,
                // to tell a longer string: the program's copy of a string
                // holds one less than its size, its own NUL.
                Copied::Str(n) => (n as usize + 1, 1),
                // A number, or memory of no type: nothing to copy.
                Copied::Value | Copied::Ptr => (0, 0),
            };
            // `_IOC_DIR` bits: 1 the kernel reads it, 2 it writes it.
            let spec = spec(size, str, real.dir & 1 != 0, real.dir & 2 != 0);
            merge(&mut out, def.code, spec);
        }
    }
    // Structs that end with a flexible array a member counts, which the
    // BTF printer shows (`btf::print::counted_flex`), read at every phase
    // the struct is: as the code says where no entry says otherwise. An
    // i386 table's struct only where it is laid out as x86_64's (the
    // kernel's BTF is x86_64's).
    for t in crate::ioctl::names::tables() {
        for def in t.defs {
            if !def.arg.starts_with("struct ") || decoded.contains(&def.code) {
                continue;
            }
            let Some(found) = crate::ioctl::btf::describe(def.arg) else {
                continue;
            };
            let Some(flex) = crate::ioctl::btf::print::counted_flex(&found.shape) else {
                continue;
            };
            if t.arch != "x86_64" && !found.shape.i386_layout_same() {
                continue;
            }
            let have = entry_by_code(&mut out, def.code, found.shape.size);
            let when = have.when;
            have.counted(flex.count_offset, flex.count_size, flex.elem, when, limits);
        }
    }
    // The requests whose result is a new fd: its file's identity at the
    // exit (`RT_NEW_FD`), copied as the code says where no entry says.
    for &(code, _) in crate::abi::xlat::ioctl::IOCTL_FD_RESULTS {
        let code = code as u32;
        entry_by_code(&mut out, code, ((code >> 16) & 0x3fff) as usize).when |= NEW_FD;
    }
    out
}

/// `code`'s entry in `out`, added where it has none as its `_IOC` bits
/// say: `size` bytes, read at the entry for `_IOC_WRITE`, written at the
/// leave for `_IOC_READ`.
fn entry_by_code(out: &mut Vec<(u32, IoctlSpec)>, code: u32, size: usize) -> &mut IoctlSpec {
    let at = match out.iter().position(|(c, _)| *c == code) {
        Some(at) => at,
        None => {
            let dir = code >> 30;
            out.push((code, spec(size, 0, dir & 1 != 0, dir & 2 != 0)));
            out.len() - 1
        }
    };
    &mut out[at].1
}

/// `RT_NEW_FD` in `IoctlSpec::when`: the request's result is a new fd.
const NEW_FD: u8 = 4;

impl IoctlSpec {
    /// Copy, at `when`, the elements after the struct that the
    /// `count_size`-byte member at `count_offset` counts, `elem` bytes
    /// each, at most `-s` of them (as the decoders show).
    fn counted(
        &mut self,
        count_offset: usize,
        count_size: usize,
        elem: usize,
        when: u8,
        limits: Limits,
    ) {
        self.flex.elem = elem.min(u16::MAX as usize) as u16;
        self.flex.max = limits.string_limit.min(u16::MAX as usize) as u16;
        self.flex.count_off = count_offset.min(u16::MAX as usize) as u16;
        self.flex.count_bytes = count_size.min(4) as u8;
        self.flex.when = when;
    }
}

/// The entry of `size` bytes (`str`: a string), copied at the entry
/// and/or the leave.
fn spec(size: usize, str: u8, at_enter: bool, at_leave: bool) -> IoctlSpec {
    let when = if at_enter { AT_ENTER } else { 0 } | if at_leave { AT_EXIT } else { 0 };
    IoctlSpec {
        size: clamp(size),
        when,
        str,
        ..IoctlSpec::default()
    }
}

/// Add `spec` for `code`: where the code has one already (several groups
/// or tables, the fd tells which), enough for every one of them.
fn merge(out: &mut Vec<(u32, IoctlSpec)>, code: u32, spec: IoctlSpec) {
    match out.iter_mut().find(|(c, _)| *c == code) {
        Some((_, have)) => {
            have.size = have.size.max(spec.size);
            have.when |= spec.when;
            have.str &= spec.str;
            if spec.flex.elem != 0 {
                have.flex = spec.flex;
            }
            if spec.pointed.unit != 0 {
                have.pointed = spec.pointed;
            }
        }
        None => out.push((code, spec)),
    }
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
    fn the_spec_has_the_c_size() {
        // sizeof(struct rt_ioctl) in bpf/rtrace.h.
        assert_eq!(std::mem::size_of::<IoctlSpec>(), 38);
    }

    /// The program's `ioctls` map holds 4096 entries (bpf/rtrace.bpf.c):
    /// the table must fit it, or loading fails.
    #[test]
    fn the_table_fits_the_programs_map() {
        let limits = limits();
        let table = table(limits);
        assert!(table.len() <= 4096, "{} entries", table.len());
        let uffdio_wake = table.iter().find(|(code, _)| *code == 0x8010_aa02);
        assert_eq!(
            uffdio_wake.map(|(_, s)| (s.size, s.when)),
            Some((16, AT_ENTER))
        );
    }

    #[test]
    fn v4l2s_clips_and_controls_bytes_are_followed() {
        use crate::abi::xlat::ioctl::{VIDIOC_S_EXT_CTRLS, VIDIOC_S_FMT};
        let limits = limits();
        let table = table(limits);
        let of = |request: u32| {
            table
                .iter()
                .find(|(code, _)| *code == request)
                .map(|(_, spec)| spec.pointed)
                .expect("an entry")
        };
        // fmt.win.clips (8 + 24), counted by clipcount (8 + 32), clips
        // of 24 bytes (a rectangle and a `next` nothing follows).
        let clips = of(VIDIOC_S_FMT);
        assert_eq!(
            (clips.off, clips.count_off, clips.count_bytes, clips.unit),
            (32, 40, 4, 24)
        );
        assert_eq!(clips.each_ptr, u16::MAX);
        // Each control's bytes: its pointer at 12, its size at 4, as
        // far as -s shows and a byte more.
        let controls = of(VIDIOC_S_EXT_CTRLS);
        assert_eq!(
            (controls.each_ptr, controls.each_len, controls.each_max),
            (12, 4, 33)
        );
    }

    #[test]
    fn fiemaps_extents_are_counted_at_the_leave() {
        let limits = limits();
        let fiemap = crate::abi::xlat::ioctl::FS_IOC_FIEMAP;
        let (_, spec) = *table(limits)
            .iter()
            .find(|(code, _)| *code == fiemap)
            .expect("FS_IOC_FIEMAP");
        assert_eq!(
            (
                spec.size,
                spec.flex.elem,
                spec.flex.max,
                spec.flex.count_off
            ),
            (32, 56, 32, 20)
        );
        assert_eq!((spec.flex.count_bytes, spec.flex.when), (4, AT_EXIT));
    }

    #[test]
    fn requests_that_return_an_fd_carry_its_identity_and_others_not() {
        let limits = limits();
        let all = table(limits);
        let when = |code: u32| all.iter().find(|(c, _)| *c == code).map(|(_, s)| s.when);
        use crate::abi::xlat::ioctl::{TCGETS, TIOCGPTPEER};
        // TIOCGPTPEER is `_IO`: nothing to copy, its result's file only.
        assert_eq!(when(TIOCGPTPEER), Some(NEW_FD));
        let tcgets = when(TCGETS).expect("TCGETS");
        assert_eq!(tcgets & NEW_FD, 0);
        // KVM_CREATE_VM's entry too, whatever else a group says of it.
        let vm = crate::abi::xlat::ioctl::IOCTL_FD_RESULTS[0];
        assert_eq!(vm.1, "KVM_CREATE_VM");
        assert_ne!(when(vm.0 as u32).expect("KVM_CREATE_VM") & NEW_FD, 0);
    }
}
