//! A type from the kernel's BTF, compiled once into a [`Shape`]: the few
//! facts the printer needs (sizes, offsets, names, enumerators), owned, so
//! printing a call never goes back to the BTF database.
//!
//! BTF describes the running x86_64 kernel's layout. An i386 program's
//! struct is the same only when it holds no pointer or `long` and its 64-bit
//! members fall where i386's 4-byte alignment puts them too;
//! [`Shape::i386_layout_same`] checks that, and anything else is left to the
//! raw bytes.

use btf_rs::{Btf, BtfType, Type};

use crate::format::FlagDef;

/// Steps deeper than this (nested members, typedefs, qualifiers) are not
/// followed: a struct a program passes to an ioctl never goes this deep,
/// and a broken BTF file (`RTRACE_BTF_DIR`) may loop.
const MAX_DEPTH: u32 = 32;

/// A compiled type.
#[derive(Clone, Debug)]
pub struct Shape {
    /// Its C spelling: `__u64`, `struct fiemap_extent`, `char[16]`.
    pub ty: String,
    /// Its size in bytes.
    pub size: usize,
    /// What it is.
    pub kind: Kind,
    /// Whether its declared type asks for 8-byte alignment whatever the ABI
    /// (`__aligned_u64`): i386 aligns it like x86_64.
    pub aligned8: bool,
}

/// What a [`Shape`] is.
#[derive(Clone, Debug)]
pub enum Kind {
    /// An integer (or `_Bool`).
    Int {
        /// Signed.
        signed: bool,
        /// A `long` (or `unsigned long`): 4 bytes on i386.
        long: bool,
    },
    /// A plain `char`: an array of them is a string.
    Char,
    /// A pointer.
    Ptr,
    /// An enum: exact values by name; `flags` when every enumerator is a
    /// single bit (or zero), so a value may combine them.
    Enum {
        /// Signed values.
        signed: bool,
        /// `(value, name)` in declaration order.
        names: Vec<(i64, String)>,
        /// The enumerators as a flag table, when they are bits.
        flags: Option<&'static [FlagDef]>,
    },
    /// A struct or union.
    Struct {
        /// A union: every member at offset 0.
        union: bool,
        /// Its members in order.
        members: Vec<Member>,
    },
    /// An array (`len` 0: a flexible array member).
    Array {
        /// The element type.
        elem: Box<Shape>,
        /// Number of elements.
        len: usize,
    },
    /// Something printed as raw bytes (a float).
    Opaque,
}

/// A member of a struct or union.
#[derive(Clone, Debug)]
pub struct Member {
    /// Its name; empty for an anonymous struct or union, whose members
    /// print as the parent's.
    pub name: String,
    /// Offset from the start of the parent, in bits.
    pub bit_offset: u32,
    /// Width of a bit-field, in bits.
    pub bits: Option<u32>,
    /// Its type.
    pub shape: Shape,
}

/// Why a type could not be compiled: it is not something a program can
/// pass (a function, a forward declaration), or the BTF is broken.
#[derive(Debug)]
pub struct Unusable;

type Result<T> = std::result::Result<T, Unusable>;

/// Compile `ty` from `btf`.
pub fn compile(btf: &Btf, ty: &Type) -> Result<Shape> {
    compile_at(btf, ty, 0)
}

fn name_of(btf: &Btf, t: &dyn BtfType) -> String {
    btf.resolve_name(t).unwrap_or_default()
}

fn chained(btf: &Btf, t: &dyn BtfType) -> Result<Type> {
    btf.resolve_chained_type(t).map_err(|_| Unusable)
}

fn compile_at(btf: &Btf, ty: &Type, depth: u32) -> Result<Shape> {
    if depth > MAX_DEPTH {
        return Err(Unusable);
    }
    Ok(match ty {
        Type::Typedef(t) => {
            let name = name_of(btf, t);
            let mut inner = compile_at(btf, &chained(btf, t)?, depth + 1)?;
            inner.aligned8 |= name.contains("aligned_");
            inner.ty = name;
            inner
        }
        Type::Const(t) | Type::Volatile(t) | Type::Restrict(t) => {
            compile_at(btf, &chained(btf, t)?, depth + 1)?
        }
        Type::TypeTag(t) => compile_at(btf, &chained(btf, t)?, depth + 1)?,
        Type::Int(i) => {
            let name = name_of(btf, i);
            let kind = if name == "char" {
                Kind::Char
            } else {
                Kind::Int {
                    signed: i.is_signed(),
                    long: name.starts_with("long") && !name.starts_with("long long"),
                }
            };
            Shape {
                ty: name,
                size: i.size(),
                kind,
                aligned8: false,
            }
        }
        Type::Ptr(t) => {
            let pointee = chained(btf, t)
                .ok()
                .and_then(|p| p.as_btf_type().map(|b| name_of(btf, b)))
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| "void".into());
            Shape {
                ty: format!("{pointee} *"),
                size: 8,
                kind: Kind::Ptr,
                aligned8: false,
            }
        }
        Type::Enum(e) => {
            let names = e
                .members
                .iter()
                .map(|m| {
                    let v = if e.is_signed() {
                        m.val() as i32 as i64
                    } else {
                        m.val() as i64
                    };
                    (v, name_of(btf, m))
                })
                .collect();
            enum_shape(
                format!("enum {}", name_of(btf, e)),
                e.size(),
                e.is_signed(),
                names,
            )
        }
        Type::Enum64(e) => {
            let names = e
                .members
                .iter()
                .map(|m| (m.val() as i64, name_of(btf, m)))
                .collect();
            enum_shape(
                format!("enum {}", name_of(btf, e)),
                e.size(),
                e.is_signed(),
                names,
            )
        }
        Type::Struct(s) | Type::Union(s) => {
            let union = matches!(ty, Type::Union(_));
            let mut members = Vec::with_capacity(s.members.len());
            for m in &s.members {
                let mty = chained(btf, m)?;
                members.push(Member {
                    name: name_of(btf, m),
                    bit_offset: m.bit_offset(),
                    bits: m.bitfield_size().filter(|&b| b != 0),
                    shape: compile_at(btf, &mty, depth + 1)?,
                });
            }
            let tag = name_of(btf, s);
            let word = if union { "union" } else { "struct" };
            Shape {
                ty: if tag.is_empty() {
                    format!("{word} {{...}}")
                } else {
                    format!("{word} {tag}")
                },
                size: s.size(),
                kind: Kind::Struct { union, members },
                aligned8: false,
            }
        }
        Type::Array(a) => {
            let elem = compile_at(btf, &chained(btf, a)?, depth + 1)?;
            Shape {
                ty: format!("{}[{}]", elem.ty, a.len()),
                size: elem.size * a.len(),
                kind: Kind::Array {
                    elem: Box::new(elem),
                    len: a.len(),
                },
                aligned8: false,
            }
        }
        Type::Float(f) => Shape {
            ty: name_of(btf, f),
            size: f.size(),
            kind: Kind::Opaque,
            aligned8: false,
        },
        _ => return Err(Unusable),
    })
}

/// An enum's shape; its flag table when its enumerators are bits.
fn enum_shape(ty: String, size: usize, signed: bool, names: Vec<(i64, String)>) -> Shape {
    let bits = names.len() > 1
        && names
            .iter()
            .all(|&(v, _)| v == 0 || (v > 0 && (v as u64).is_power_of_two()));
    let flags = bits.then(|| {
        // Bounded: one table per distinct enum type printed, cached for the
        // run like the BTF itself. The printer's flag tables are static.
        let table: Vec<FlagDef> = names
            .iter()
            .map(|(v, n)| FlagDef {
                mask: if *v == 0 { u64::MAX } else { *v as u64 },
                value: *v as u64,
                name: Box::leak(n.clone().into_boxed_str()),
            })
            .collect();
        &*Box::leak(table.into_boxed_slice())
    });
    Shape {
        ty,
        size,
        kind: Kind::Enum {
            signed,
            names,
            flags,
        },
        aligned8: false,
    }
}

impl Shape {
    /// A scalar shape from its C spelling, for pointer arguments whose type
    /// is spelled with `*`: the pointer itself (`void *`).
    pub fn pointer(ty: &str, size: usize) -> Shape {
        Shape {
            ty: ty.to_string(),
            size,
            kind: Kind::Ptr,
            aligned8: false,
        }
    }

    /// A plain integer type by its C spelling (`int`, `__u64`, `size_t`),
    /// `size` bytes as the program's code carries it (0: any), for an
    /// `i386` (4-byte `long`) or x86_64 program: known without any
    /// BTF, so a request whose argument is one prints the number (`[42]`)
    /// where the kernel has no BTF. `None` for any other spelling, or a
    /// size the spelling cannot have.
    pub fn scalar(ty: &str, size: usize, i386: bool) -> Option<Shape> {
        let ty = ty.trim();
        let bare = ty.strip_prefix("const ").unwrap_or(ty);
        // (spelling, signed, fixed size or 0 where the ABI decides)
        static INTS: &[(&str, bool, usize)] = &[
            ("int", true, 4),
            ("signed int", true, 4),
            ("unsigned", false, 4),
            ("unsigned int", false, 4),
            ("short", true, 2),
            ("unsigned short", false, 2),
            ("long", true, 0),
            ("unsigned long", false, 0),
            ("long long", true, 8),
            ("unsigned long long", false, 8),
            ("size_t", false, 0),
            ("ssize_t", true, 0),
            ("__kernel_size_t", false, 0),
            ("__u8", false, 1),
            ("__s8", true, 1),
            ("__u16", false, 2),
            ("__s16", true, 2),
            ("__u32", false, 4),
            ("__s32", true, 4),
            ("__u64", false, 8),
            ("__s64", true, 8),
            ("__aligned_u64", false, 8),
            ("uint8_t", false, 1),
            ("int8_t", true, 1),
            ("uint16_t", false, 2),
            ("int16_t", true, 2),
            ("uint32_t", false, 4),
            ("int32_t", true, 4),
            ("uint64_t", false, 8),
            ("int64_t", true, 8),
            ("loff_t", true, 8),
        ];
        let &(_, signed, fixed) = INTS.iter().find(|(name, ..)| *name == bare)?;
        // A `long` or `size_t` is 4 bytes for i386 (and x32) programs.
        let fixed = match fixed {
            0 if i386 => 4,
            0 => 8,
            n => n,
        };
        // Size 0: any size, so the spelling's own.
        let fits = size == 0 || size == fixed;
        let size = fixed;
        fits.then(|| Shape {
            ty: bare.to_string(),
            size,
            // The size is already the program's (`long` is 4 bytes on i386).
            kind: Kind::Int {
                signed,
                long: false,
            },
            aligned8: false,
        })
    }

    /// An array of `len` `elem`s (`char[16]` spelled in a request's type).
    pub fn array(elem: Shape, len: usize) -> Shape {
        Shape {
            ty: format!("{}[{len}]", elem.ty),
            size: elem.size * len,
            kind: Kind::Array {
                elem: Box::new(elem),
                len,
            },
            aligned8: false,
        }
    }

    /// Whether an i386 program lays this type out as the x86_64 kernel
    /// does: no pointers or `long`s, and every member where 4-byte
    /// alignment of 64-bit integers puts it.
    pub fn i386_layout_same(&self) -> bool {
        self.i386_align().is_some()
    }

    /// Whether the type holds no pointer and no `long` at any depth: its
    /// members are as wide on i386 as on x86_64 (where they sit may
    /// still differ: [`Shape::i386_layout_same`]).
    pub fn fixed_width(&self) -> bool {
        match &self.kind {
            Kind::Ptr | Kind::Int { long: true, .. } => false,
            Kind::Array { elem, .. } => elem.fixed_width(),
            Kind::Struct { members, .. } => members.iter().all(|m| m.shape.fixed_width()),
            _ => true,
        }
    }

    /// The type's alignment on i386, or `None` if its layout differs there.
    fn i386_align(&self) -> Option<usize> {
        match &self.kind {
            Kind::Ptr | Kind::Int { long: true, .. } => None,
            Kind::Int { .. } | Kind::Enum { .. } | Kind::Char | Kind::Opaque => {
                Some(if self.aligned8 {
                    8
                } else {
                    self.size.clamp(1, 4)
                })
            }
            Kind::Array { elem, .. } => elem.i386_align(),
            Kind::Struct { union, members } => {
                let mut align = 1;
                let mut end = 0;
                for m in members {
                    let a = m.shape.i386_align()?;
                    align = align.max(a);
                    if m.bits.is_some() {
                        // Bit-fields pack the same way on both ABIs for the
                        // int types uapi uses.
                        end = end.max((m.bit_offset as usize).div_ceil(8));
                        continue;
                    }
                    let at = if *union { 0 } else { end.next_multiple_of(a) };
                    if at * 8 != m.bit_offset as usize {
                        return None;
                    }
                    end = end.max(at + m.shape.size);
                }
                (end.next_multiple_of(align) == self.size).then_some(align)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(ty: &str, size: usize) -> Shape {
        Shape {
            ty: ty.into(),
            size,
            kind: Kind::Int {
                signed: false,
                long: false,
            },
            aligned8: ty.contains("aligned_"),
        }
    }

    fn record(size: usize, members: &[(u32, Shape)]) -> Shape {
        Shape {
            ty: "struct t".into(),
            size,
            kind: Kind::Struct {
                union: false,
                members: members
                    .iter()
                    .map(|(at, s)| Member {
                        name: "m".into(),
                        bit_offset: at * 8,
                        bits: None,
                        shape: s.clone(),
                    })
                    .collect(),
            },
            aligned8: false,
        }
    }

    #[test]
    fn a_u64_after_a_u32_moves_on_i386_unless_it_is_aligned() {
        // { __u32; __u64; }: x86_64 puts the u64 at 8, i386 at 4.
        let moved = record(16, &[(0, int("__u32", 4)), (8, int("__u64", 8))]);
        assert!(!moved.i386_layout_same());
        // __aligned_u64 is at 8 on both.
        let aligned = record(16, &[(0, int("__u32", 4)), (8, int("__aligned_u64", 8))]);
        assert!(aligned.i386_layout_same());
        // { __u64; __u32; } has tail padding on x86_64 only: 16 vs 12.
        let padded = record(16, &[(0, int("__u64", 8)), (8, int("__u32", 4))]);
        assert!(!padded.i386_layout_same());
        let same = record(
            16,
            &[
                (0, int("__u64", 8)),
                (8, int("__u32", 4)),
                (12, int("__u32", 4)),
            ],
        );
        assert!(same.i386_layout_same());
    }

    #[test]
    fn enums_of_bits_become_flag_tables() {
        let bits = enum_shape(
            "enum b".into(),
            4,
            false,
            vec![(0, "NONE".into()), (1, "A".into()), (8, "D".into())],
        );
        let Kind::Enum {
            flags: Some(table), ..
        } = bits.kind
        else {
            panic!("no flag table");
        };
        assert_eq!(crate::format::flags_text(9, table, true), "A|D");
        assert_eq!(crate::format::flags_text(0, table, true), "NONE");
        let values = enum_shape(
            "enum v".into(),
            4,
            false,
            vec![(1, "ONE".into()), (3, "THREE".into())],
        );
        assert!(matches!(values.kind, Kind::Enum { flags: None, .. }));
    }
}
