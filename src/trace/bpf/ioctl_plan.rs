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

/// `struct rt_ioctl`: the argument of a request rtrace's tables know.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IoctlSpec {
    size: u16,
    when: u8,
    str: u8,
}

// SAFETY: plain integers.
unsafe impl aya::Pod for IoctlSpec {}

/// What to copy of the argument of each request the ioctl groups decode
/// (its size and direction from the group's table) and of each the
/// generated tables copy otherwise than their code says.
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
                _ => continue,
            };
            // Printed at the entry (IF_OUT) or the leave (IF_IN); a value
            // the kernel writes back is also printed at the leave.
            let (enter, leave) = (req.dirs & IF_OUT != 0, req.dirs & IF_IN != 0);
            let both = req.dirs == 0;
            merge(
                &mut out,
                req.code,
                spec(size, str, enter || both, leave || both),
            );
        }
    }
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
                Copied::Str(n) => (n as usize, 1),
                // A number, or memory of no type: nothing to copy.
                Copied::Value | Copied::Ptr => (0, 0),
            };
            // `_IOC_DIR` bits: 1 the kernel reads it, 2 it writes it.
            let spec = spec(size, str, real.dir & 1 != 0, real.dir & 2 != 0);
            merge(&mut out, def.code, spec);
        }
    }
    out
}

/// The entry of `size` bytes (`str`: a string), copied at the entry
/// and/or the leave.
fn spec(size: usize, str: u8, at_enter: bool, at_leave: bool) -> IoctlSpec {
    let when = if at_enter { AT_ENTER } else { 0 } | if at_leave { AT_EXIT } else { 0 };
    IoctlSpec {
        size: clamp(size),
        when,
        str,
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
        }
        None => out.push((code, spec)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The program's `ioctls` map holds 4096 entries (bpf/rtrace.bpf.c):
    /// the table must fit it, or loading fails.
    #[test]
    fn the_table_fits_the_programs_map() {
        let limits = Limits {
            string_limit: 32,
            verbose: false,
        };
        let table = table(limits);
        assert!(table.len() <= 4096, "{} entries", table.len());
        let uffdio_wake = table.iter().find(|(code, _)| *code == 0x8010_aa02);
        assert_eq!(
            uffdio_wake.map(|(_, s)| (s.size, s.when)),
            Some((16, AT_ENTER))
        );
    }
}
