//! Type ids by name for every named struct, union, enum, typedef and
//! integer of vmlinux's BTF, built in one pass the first time a type is
//! wanted.
//!
//! Why a walk of our own: `btf-rs`'s mapped backend finds a name by
//! scanning every type of vmlinux (about 126,000: ~0.45 ms a name), and
//! its cached backend parses everything up front (0.3-0.9 s); it offers no
//! index. Types are still read through the crate, by id (its mapped
//! backend keeps an id-to-offset table, so that is one step); only the
//! name lookup is ours. The walk reads the record headers the BTF format
//! documents (Documentation/bpf/btf.rst: a 24-byte file header, then
//! 12-byte `struct btf_type` records, each followed by a tail whose size
//! its kind and `vlen` give), and keeps the ids of every named struct,
//! union, enum, typedef and integer (about 14,000 of vmlinux's 126,000
//! types): a few milliseconds once, then each first use of a type is a
//! hash lookup and the compilation of that type alone. Every name, not
//! only those of the ioctl tables: the BPF engine's plan asks for a
//! hundred others (`struct stat`, `struct task_struct`, ...), each of
//! which cost a scan of every type, a third of its start-up.

use std::collections::HashMap;

/// `BTF_MAGIC` as a little-endian file starts.
const MAGIC: u16 = crate::abi::xlat::ioctl::BTF_MAGIC;

/// The BTF kinds (`BTF_KIND_*`) whose names a request's type can be.
const INT: u32 = 1;
const STRUCT: u32 = 4;
const UNION: u32 = 5;
const ENUM: u32 = 6;
const TYPEDEF: u32 = 8;
const ENUM64: u32 = 19;

/// The ids of each name, in id order.
#[derive(Debug, Default)]
pub struct NameIndex {
    ids: HashMap<Box<str>, Vec<u32>>,
}

impl NameIndex {
    /// The ids named `name` (none: vmlinux has no such type).
    pub fn get(&self, name: &str) -> &[u32] {
        self.ids.get(name).map_or(&[], |v| v.as_slice())
    }
}

/// The size of the tail after a record of `kind` with `vlen` entries, by
/// the format's documentation; `None` for a kind it does not define (a
/// newer kernel's: the walk stops and the crate's scan answers).
fn tail(kind: u32, vlen: usize) -> Option<usize> {
    Some(match kind {
        // INT: one u32 of encoding, offset and bits.
        INT => 4,
        // PTR, FWD, TYPEDEF, VOLATILE, CONST, RESTRICT, FUNC, FLOAT,
        // TYPE_TAG: nothing.
        2 | 7 | 8 | 9 | 10 | 11 | 12 | 16 | 18 => 0,
        // ARRAY: struct btf_array.
        3 => 12,
        // STRUCT, UNION: struct btf_member each; DATASEC: btf_var_secinfo;
        // ENUM64: btf_enum64.
        STRUCT | UNION | 15 | ENUM64 => 12 * vlen,
        // ENUM: struct btf_enum; FUNC_PROTO: struct btf_param.
        ENUM | 13 => 8 * vlen,
        // VAR: struct btf_var; DECL_TAG: struct btf_decl_tag.
        14 | 17 => 4,
        _ => return None,
    })
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// Index the names of the base (not split) BTF file `bytes`; `None` when
/// it is not little-endian BTF whose every record this walk understands.
pub fn build(bytes: &[u8]) -> Option<NameIndex> {
    if bytes.get(0..2)? != MAGIC.to_le_bytes() {
        return None;
    }
    let hdr_len = u32_at(bytes, 4)? as usize;
    let (type_off, type_len) = (u32_at(bytes, 8)? as usize, u32_at(bytes, 12)? as usize);
    let (str_off, str_len) = (u32_at(bytes, 16)? as usize, u32_at(bytes, 20)? as usize);
    let types = bytes.get(hdr_len + type_off..hdr_len + type_off + type_len)?;
    let strings = bytes.get(hdr_len + str_off..hdr_len + str_off + str_len)?;
    let mut ids: HashMap<Box<str>, Vec<u32>> = HashMap::new();
    let (mut at, mut id) = (0, 1u32);
    while at < types.len() {
        let name_off = u32_at(types, at)? as usize;
        let info = u32_at(types, at + 4)?;
        let (kind, vlen) = ((info >> 24) & 0x1f, (info & 0xffff) as usize);
        let indexed = matches!(kind, INT | STRUCT | UNION | ENUM | TYPEDEF | ENUM64);
        if name_off != 0 && indexed {
            let name = strings.get(name_off..)?;
            let end = name.iter().position(|&c| c == 0)?;
            if let Ok(name) = std::str::from_utf8(&name[..end]) {
                match ids.get_mut(name) {
                    Some(list) => list.push(id),
                    None => {
                        ids.insert(name.into(), vec![id]);
                    }
                }
            }
        }
        at += 12 + tail(kind, vlen)?;
        id += 1;
    }
    (at == types.len()).then_some(NameIndex { ids })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A two-type BTF file: `int` (INT, 4 bytes) and `struct s` with one
    /// member, built by hand in the documented layout.
    fn tiny() -> Vec<u8> {
        let strings = b"\0int\0s\0m\0";
        let mut types = Vec::new();
        let mut rec = |words: &[u32]| words.iter().for_each(|w| types.extend(w.to_le_bytes()));
        rec(&[1, INT << 24, 4, 32]); // id 1: int, 32 bits
        rec(&[5, (STRUCT << 24) | 1, 4, 7, 1, 0]); // id 2: struct s { int m; }
        let mut out = Vec::new();
        out.extend(MAGIC.to_le_bytes());
        out.extend([1, 0]);
        for w in [
            24u32,
            0,
            types.len() as u32,
            types.len() as u32,
            strings.len() as u32,
        ] {
            out.extend(w.to_le_bytes());
        }
        out.extend(types);
        out.extend(strings);
        out
    }

    #[test]
    fn finds_the_names_by_id() {
        let index = build(&tiny()).unwrap();
        assert_eq!(index.get("int"), [1]);
        assert_eq!(index.get("s"), [2]);
        assert_eq!(index.get("absent"), [0u32; 0]);
        // A member's name is not a type's.
        assert_eq!(index.get("m"), [0u32; 0]);
    }

    #[test]
    fn a_truncated_or_foreign_file_is_no_index() {
        let bytes = tiny();
        assert!(build(&bytes[..bytes.len() - 20]).is_none());
        assert!(build(b"\x7fELF").is_none());
    }
}
