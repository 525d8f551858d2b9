//! Printing a value of a BTF [`Shape`] with the Printer's primitives, in
//! the grammar of the hand-written decoders: `{fm_start=0, fm_length=4096,
//! ..}`, nested structs in braces, arrays in brackets (cut at `-s`
//! elements, as strace cuts them), `char` arrays as strings, enums by name,
//! enums of bits as flags, pointers as `&0x...`. Members of an anonymous
//! struct or union print as the parent's own. A flexible array member at
//! the end is not in the bytes `_IOC_SIZE` gives: its elements print when
//! a member before it is its count ([`COUNT_NAMES`]: KVM's `nmsrs`,
//! `nent`, `n`, ...) and the caller read them ([`flex_extra`]); else the
//! struct ends with `..`.

use std::fmt::Write as _;

use super::shape::{Kind, Member, Shape};
use crate::format::{Naming, Printer};
use crate::ioctl::named;

/// The names a struct's element count goes by, when a flexible array
/// member follows it: the kernel's uapi spells them so (`struct kvm_msrs`'
/// `nmsrs`, `kvm_cpuid2`'s `nent`, `kvm_reg_list`'s `n`, `kvm_irq_routing`'s
/// `nr`). BTF keeps no `__counted_by`, so a count under another name (a
/// byte length) is not guessed at: those arrays end with `..`.
pub const COUNT_NAMES: &[&str] = &["n", "nr", "nent", "nmsrs", "count", "num"];

/// How many bytes past `shape.size` the elements of `shape`'s trailing
/// flexible array take, at most `limit` of them (the `-s` cut), when a
/// member before it in `data` (the struct's own bytes) counts them.
pub fn flex_extra(shape: &Shape, data: &[u8], limit: usize) -> usize {
    counted_flex(shape).map_or(0, |flex| {
        let count = data
            .get(flex.count_offset..flex.count_offset + flex.count_size)
            .map_or(0, |b| uint_at(b, flex.count_size));
        flex.elem * count.min(limit as u64) as usize
    })
}

/// A counted flexible array ending a struct: where its count is in the
/// struct's bytes and how large each element is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CountedFlex {
    /// The count member's offset in the struct, in bytes.
    pub count_offset: usize,
    /// The count member's size in bytes.
    pub count_size: usize,
    /// Each element's size in bytes.
    pub elem: usize,
}

/// The counted flexible array ending `shape`, if a member before it
/// counts its elements ([`COUNT_NAMES`]): what [`flex_extra`] reads, and
/// what the BPF engine copies.
pub fn counted_flex(shape: &Shape) -> Option<CountedFlex> {
    let Kind::Struct { members, .. } = &shape.kind else {
        return None;
    };
    flex_of(members, 0, None)
}

/// The counted flexible array ending `members` (in an anonymous struct or
/// union at the end too), `count` the last count member seen before them
/// (offset and size), with `base` the members' offset in bits.
fn flex_of(
    members: &[Member],
    base: u32,
    mut count: Option<(usize, usize)>,
) -> Option<CountedFlex> {
    for m in members {
        let at = ((base + m.bit_offset) / 8) as usize;
        match &m.shape.kind {
            Kind::Int { .. } if m.bits.is_none() && COUNT_NAMES.contains(&&*m.name) => {
                count = Some((at, m.shape.size));
            }
            Kind::Array { elem, len: 0 } => {
                let (count_offset, count_size) = count?;
                return Some(CountedFlex {
                    count_offset,
                    count_size,
                    elem: elem.size,
                });
            }
            Kind::Struct { members: inner, .. } if m.name.is_empty() => {
                if let Some(found) = flex_of(inner, base + m.bit_offset, count) {
                    return Some(found);
                }
            }
            _ => {}
        }
    }
    None
}

/// Print `data` (at least `shape.size` bytes, and the elements of a
/// counted flexible array after them: [`flex_extra`]) as `name`; return
/// whether everything in it was shown.
pub fn value(p: &mut Printer, name: &str, shape: &Shape, data: &[u8]) -> bool {
    match &shape.kind {
        Kind::Int { signed, .. } => {
            int(p, name, shape.size, *signed, data);
            true
        }
        Kind::Char => {
            p.int(name, data[0] as i8 as i64);
            true
        }
        Kind::Ptr => {
            p.ptr(name, uint_at(data, shape.size));
            true
        }
        Kind::Enum {
            signed,
            names,
            flags,
        } => {
            let raw = uint_at(data, shape.size);
            let v = if *signed {
                sign_extend(raw, shape.size * 8)
            } else {
                raw as i64
            };
            match (names.iter().find(|(n, _)| *n == v), flags) {
                (Some((_, sym)), _) => p.symbol(name, v, Some(sym)),
                (None, Some(table)) => p.flags(name, raw, table),
                (None, None) => p.symbol(name, v, None),
            }
            true
        }
        Kind::Struct { members, .. } => {
            p.open(name, "{", Naming::Fields);
            let all = members_of(p, &shape.ty, members, data, 0);
            p.close_struct(all);
            true
        }
        Kind::Array { elem, len } => array(p, name, elem, *len, data),
        Kind::Opaque => {
            p.string(name, &data[..shape.size], false);
            true
        }
    }
}

/// Print `members` of struct `owner` (`struct fsxattr`: what names its
/// members' numbers, [`named::field`]) whose bytes start `base` bits into
/// `data`; false if some were left out.
fn members_of(p: &mut Printer, owner: &str, members: &[Member], data: &[u8], base: u32) -> bool {
    members_counted(p, owner, members, data, base, None)
}

/// [`members_of`], knowing the count a member of an enclosing struct gave
/// (`count`) for a flexible array in an anonymous member.
fn members_counted(
    p: &mut Printer,
    owner: &str,
    members: &[Member],
    data: &[u8],
    base: u32,
    mut count: Option<u64>,
) -> bool {
    let mut all = true;
    for m in members {
        let bit = base + m.bit_offset;
        let at = (bit / 8) as usize;
        if let Some(width) = m.bits {
            let Some(raw) = bitfield(data, bit, width) else {
                return false;
            };
            let signed = matches!(
                m.shape.kind,
                Kind::Int { signed: true, .. } | Kind::Enum { signed: true, .. }
            );
            if signed {
                p.int(&m.name, sign_extend(raw, width as usize));
            } else {
                p.uint(&m.name, raw);
            }
            continue;
        }
        if let Kind::Array { elem, len: 0 } = &m.shape.kind {
            // A flexible array: its elements follow the struct, printed
            // when counted and read (at most `-s` of them); else `..`.
            let limit = p.config().string_limit;
            let Some(n) = count else {
                all = false;
                continue;
            };
            let shown = n.min(limit as u64) as usize;
            if elem.size == 0 || data.len() < at + elem.size * shown {
                all = false;
            } else if let Kind::Char = elem.kind {
                let text = &data[at..at + shown];
                let text = text.split(|&b| b == 0).next().unwrap_or(text);
                p.string(&m.name, text, (shown as u64) < n && text.len() == shown);
            } else {
                // One more than shown, when there are more: `array` ends
                // the elements with `..` there.
                let len = n.min(limit as u64 + 1) as usize;
                all &= array(p, &m.name, elem, len, &data[at..]);
            }
            continue;
        }
        if is_placeholder(&m.shape) {
            // `struct { } __empty_NAME`, which __DECLARE_FLEX_ARRAY puts
            // before a flexible array to let it stand in a union: no
            // bytes, nothing the kernel copies.
            continue;
        }
        if at + m.shape.size > data.len() {
            return false;
        }
        if m.name.is_empty()
            && let Kind::Struct { members: inner, .. } = &m.shape.kind
        {
            all &= members_counted(p, owner, inner, data, bit, count);
            continue;
        }
        if let Kind::Int { .. } = m.shape.kind
            && COUNT_NAMES.contains(&&*m.name)
        {
            count = Some(uint_at(&data[at..], m.shape.size));
        }
        if let Kind::Int { signed, .. } = m.shape.kind
            && m.shape.size <= 8
            && let Some(naming) = named::field(owner, &m.name)
        {
            let raw = uint_at(&data[at..], m.shape.size);
            match naming {
                named::Naming::SyscallNr(abi) => {
                    // The ABI is a sibling member's value.
                    let arch = members.iter().find(|s| s.name == *abi).and_then(|s| {
                        let at = ((base + s.bit_offset) / 8) as usize;
                        data.get(at..at + s.shape.size)
                            .map(|b| uint_at(b, s.shape.size))
                    });
                    match arch {
                        Some(arch) => named::put_syscall(p, &m.name, raw as i32, arch),
                        None => named::put(p, &m.name, naming, raw, m.shape.size, signed),
                    }
                }
                _ => named::put(p, &m.name, naming, raw, m.shape.size, signed),
            }
            continue;
        }
        all &= value(p, &m.name, &m.shape, &data[at..]);
    }
    all
}

/// A member that holds nothing: an empty struct (the `__empty_NAME` of
/// `__DECLARE_FLEX_ARRAY`).
fn is_placeholder(shape: &Shape) -> bool {
    matches!(&shape.kind, Kind::Struct { members, .. } if members.is_empty() && shape.size == 0)
}

fn array(p: &mut Printer, name: &str, elem: &Shape, len: usize, data: &[u8]) -> bool {
    let limit = p.config().string_limit;
    if let Kind::Char = elem.kind {
        // A C string in a fixed buffer: up to its NUL.
        let bytes = &data[..len];
        let text = bytes.split(|&b| b == 0).next().unwrap_or(bytes);
        let shown = text.len().min(limit);
        p.string(name, &text[..shown], shown < text.len());
        return true;
    }
    p.open(name, "[", Naming::Elements);
    let mut all = true;
    for i in 0..len {
        if i == limit || elem.size == 0 {
            p.more();
            break;
        }
        all &= value(p, "", elem, &data[i * elem.size..]);
    }
    p.close("]");
    all
}

fn int(p: &mut Printer, name: &str, size: usize, signed: bool, data: &[u8]) {
    if size > 8 {
        // __int128: as hex, most significant byte first.
        let mut text = String::from("0x");
        for b in data[..size].iter().rev() {
            let _ = write!(text, "{b:02x}");
        }
        p.field(name, &text);
        return;
    }
    let raw = uint_at(data, size);
    if signed {
        p.int(name, sign_extend(raw, size * 8));
    } else {
        p.uint(name, raw);
    }
}

/// A little-endian unsigned value of `size` (at most 8) bytes.
fn uint_at(data: &[u8], size: usize) -> u64 {
    let mut raw = [0u8; 8];
    let n = size.min(8);
    raw[..n].copy_from_slice(&data[..n]);
    u64::from_le_bytes(raw)
}

fn sign_extend(raw: u64, bits: usize) -> i64 {
    if bits == 0 || bits >= 64 {
        return raw as i64;
    }
    let shift = 64 - bits;
    ((raw << shift) as i64) >> shift
}

/// `width` bits at bit `bit` of `data` (little-endian), if they are there.
fn bitfield(data: &[u8], bit: u32, width: u32) -> Option<u64> {
    if width == 0 || width > 64 {
        return None;
    }
    let first = (bit / 8) as usize;
    let last = ((bit + width).div_ceil(8)) as usize;
    if last > data.len() || last - first > 9 {
        return None;
    }
    let mut raw: u128 = 0;
    for (i, b) in data[first..last].iter().enumerate() {
        raw |= (*b as u128) << (8 * i);
    }
    let v = (raw >> (bit % 8)) & ((1u128 << width) - 1);
    Some(v as u64)
}

/// The layout of `shape` for `--explain-ioctl`, in the format of the
/// tables' layouts: one line per member, `@offset size type name`.
pub fn layout_text(shape: &Shape) -> String {
    let mut out = String::new();
    if let Kind::Struct { members, .. } = &shape.kind {
        layout_members(&mut out, members, 0);
    }
    out
}

fn layout_members(out: &mut String, members: &[Member], base: u32) {
    for m in members {
        let bit = base + m.bit_offset;
        if m.name.is_empty()
            && let Kind::Struct { members: inner, .. } = &m.shape.kind
        {
            layout_members(out, inner, bit);
            continue;
        }
        if is_placeholder(&m.shape) {
            continue;
        }
        let size = match m.bits {
            Some(width) => format!("{width}b"),
            None => m.shape.size.to_string(),
        };
        let at = if bit.is_multiple_of(8) {
            (bit / 8).to_string()
        } else {
            format!("{}.{}", bit / 8, bit % 8)
        };
        let _ = writeln!(out, "    @{at:<3} {size:<2} {} {}", m.shape.ty, m.name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{FlagDef, FormatConfig, FormatState};
    use crate::kernel::{Arch, Memory};
    use crate::output::{Output, Timestamps};
    use std::cell::RefCell;
    use std::io::{self, Write};
    use std::rc::Rc;

    /// A writer the test can read back.
    #[derive(Clone, Default)]
    struct Buf(Rc<RefCell<Vec<u8>>>);

    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn shape(ty: &str, size: usize, kind: Kind) -> Shape {
        Shape {
            ty: ty.into(),
            size,
            kind,
            aligned8: false,
        }
    }

    fn member(name: &str, bit_offset: u32, bits: Option<u32>, shape: Shape) -> Member {
        Member {
            name: name.into(),
            bit_offset,
            bits,
            shape,
        }
    }

    fn u32_shape() -> Shape {
        shape(
            "__u32",
            4,
            Kind::Int {
                signed: false,
                long: false,
            },
        )
    }

    static BITS: &[FlagDef] = &[
        FlagDef {
            mask: 1,
            value: 1,
            name: "F_A",
        },
        FlagDef {
            mask: 4,
            value: 4,
            name: "F_C",
        },
    ];

    /// Every kind of member the printer knows, in one struct.
    fn sample() -> Shape {
        let enum_of = |flags| Kind::Enum {
            signed: false,
            names: vec![(1, "F_A".into()), (4, "F_C".into())],
            flags,
        };
        let chars = Shape::array(shape("char", 1, Kind::Char), 8);
        let inner = shape(
            "union {...}",
            4,
            Kind::Struct {
                union: true,
                members: vec![member("u_a", 0, None, u32_shape())],
            },
        );
        let flex = Shape::array(u32_shape(), 0);
        shape(
            "struct sample",
            24,
            Kind::Struct {
                union: false,
                members: vec![
                    member("flags", 0, None, shape("enum f", 4, enum_of(Some(BITS)))),
                    member("mode", 32, None, shape("enum m", 4, enum_of(None))),
                    member("lo", 64, Some(3), u32_shape()),
                    member("hi", 67, Some(5), u32_shape()),
                    member("name", 96, None, chars),
                    member("", 160, None, inner),
                    member("rest", 192, None, flex),
                ],
            },
        )
    }

    fn render(shape: &Shape, data: &[u8], json: bool) -> String {
        let buf = Buf::default();
        let cfg = FormatConfig {
            json,
            ..FormatConfig::default()
        };
        let mut out = Output::new(Box::new(buf.clone()), false, Timestamps::Off);
        let mut state = FormatState::default();
        let mut mem = Memory::new(nix::unistd::Pid::this());
        {
            let mut p = Printer::new(&mut out, 1, &cfg, &mut state, &mut mem, Arch::X86_64);
            value(&mut p, "arg", shape, data);
        }
        out.flush();
        if json {
            return serde_json::to_string(&state.json_mut().returned).unwrap();
        }
        String::from_utf8(buf.0.borrow().clone()).unwrap()
    }

    #[test]
    fn every_kind_of_member_prints_in_the_groups_grammar() {
        let mut d = vec![0u8; 24];
        d[0] = 5; // F_A|F_C
        d[4] = 3; // no enumerator: a number
        d[8] = 0b1010_1101; // lo = 0b101, hi = 0b10101
        d[12..15].copy_from_slice(b"ab\0");
        d[20] = 9;
        let s = sample();
        assert_eq!(
            render(&s, &d, false),
            "{flags=F_A|F_C, mode=3, lo=5, hi=21, name=\"ab\", u_a=9, ..}"
        );
        d[0] = 4;
        d[4] = 1;
        assert!(render(&s, &d, false).starts_with("{flags=F_C, mode=F_A, "));
        assert_eq!(
            render(&s, &d, true),
            r#"{"arg":{"flags":{"value":4,"name":"F_C"},"mode":{"value":1,"name":"F_A"},"lo":5,"hi":21,"name":"ab","u_a":9,"..":true}}"#
        );
    }

    #[test]
    fn a_declared_flex_array_prints_no_empty_struct() {
        // __DECLARE_FLEX_ARRAY(struct e, entries) after a count:
        // `struct { struct { } __empty_entries; struct e entries[]; }`.
        let empty = shape(
            "struct {...}",
            0,
            Kind::Struct {
                union: false,
                members: vec![],
            },
        );
        let flex = shape(
            "struct {...}",
            0,
            Kind::Struct {
                union: false,
                members: vec![
                    member("__empty_entries", 0, None, empty),
                    member("entries", 0, None, Shape::array(u32_shape(), 0)),
                ],
            },
        );
        let s = shape(
            "struct kvm_like",
            8,
            Kind::Struct {
                union: false,
                members: vec![
                    member("nent", 0, None, u32_shape()),
                    member("padding", 32, None, u32_shape()),
                    member("", 64, None, flex),
                ],
            },
        );
        let mut d = vec![0u8; 8];
        d[0] = 2;
        // The elements not read: cut.
        assert_eq!(render(&s, &d, false), "{nent=2, padding=0, ..}");
        assert_eq!(flex_extra(&s, &d, 32), 8);
        assert_eq!(flex_extra(&s, &d, 1), 4);
        // Read: printed, counted by nent.
        d.extend_from_slice(&[7, 0, 0, 0, 9, 0, 0, 0]);
        assert_eq!(render(&s, &d, false), "{nent=2, padding=0, entries=[7, 9]}");
        // More than -s of them: cut at the limit.
        d[0] = 40;
        d.resize(8 + 32 * 4, 0);
        let text = render(&s, &d, false);
        assert!(text.ends_with(", 0, ..]}"), "{text}");
        assert_eq!(
            layout_text(&s),
            "    @0   4  __u32 nent\n    @4   4  __u32 padding\n    @8   0  __u32[0] entries\n"
        );
    }

    #[test]
    fn arrays_are_cut_at_the_string_limit() {
        let a = Shape::array(u32_shape(), 40);
        let text = render(&a, &[0u8; 160], false);
        assert!(text.starts_with("[0, 0, "), "{text}");
        assert!(text.ends_with(", 0, ..]"), "{text}");
        assert_eq!(text.matches('0').count(), 32);
    }

    #[test]
    fn bitfields_and_signs() {
        assert_eq!(bitfield(&[0b1011_0000, 0x01], 4, 5), Some(0b1_1011));
        assert_eq!(bitfield(&[0xff], 4, 8), None);
        assert_eq!(sign_extend(0b11111, 5), -1);
        assert_eq!(sign_extend(0x7f, 8), 127);
        assert_eq!(uint_at(&[1, 2, 3, 4, 5], 2), 0x0201);
    }
}
