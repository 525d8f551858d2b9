//! Argument types read from the running kernel's BTF (BPF Type Format),
//! for requests no group decodes whose argument type the request table
//! names (`_IOWR('f', 11, struct fiemap)` says `struct fiemap`).
//!
//! The kernel publishes its own types in `/sys/kernel/btf/vmlinux` and each
//! module's in `/sys/kernel/btf/MODULE` (split BTF: its ids and strings
//! continue vmlinux's). The `btf-rs` crate parses them (HACKING.md says why
//! that crate). Nothing is read until the first request that needs a type:
//! a trace with no such ioctl pays nothing. vmlinux is mapped (or read
//! where the kernel cannot map it) once; modules are read only when a name
//! is not in vmlinux, all of them once. Each type is compiled once into a
//! [`Shape`] and kept for the run. With no BTF (an old kernel, a container
//! without /sys/kernel/btf) every look-up quietly finds nothing and the
//! caller prints the argument as it would without.
//!
//! `RTRACE_BTF_DIR` names another directory to read instead of
//! /sys/kernel/btf (the tests point it at an empty one to see the fallback).

pub mod index;
pub mod print;
pub mod shape;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use btf_rs::{Backend, Btf, Type};

pub use shape::{Kind, Member, Shape};

/// The [`Found::source`] of a type known from its C spelling alone (a
/// pointer, a plain integer type), without BTF.
pub const C_TYPE: &str = "(C)";

/// The BTF directory the kernel publishes.
const SYS_BTF: &str = "/sys/kernel/btf";

/// The kernel's BTF, loaded on first use.
struct KernelBtf {
    /// Where it was read from.
    dir: PathBuf,
    /// vmlinux's types.
    vmlinux: Btf,
    /// vmlinux's type ids by name, built on the first look-up (`None`:
    /// the file could not be indexed).
    index: OnceLock<Option<index::NameIndex>>,
    /// Every module's types, read on the first name vmlinux lacks.
    modules: OnceLock<Vec<(String, Btf)>>,
    /// Compiled types by name and size, found or not.
    shapes: Mutex<HashMap<(String, usize), Option<Found>>>,
}

/// A compiled type and the BTF file it came from.
#[derive(Clone, Debug)]
pub struct Found {
    /// The type.
    pub shape: Arc<Shape>,
    /// The file it was read from (`/sys/kernel/btf/vmlinux`).
    pub source: PathBuf,
}

/// The process-wide BTF database. A cache of what the kernel says about
/// itself, read-only once loaded; kept here rather than in the engine so
/// the ioctl decoders below the engine need no plumbing for it.
static KERNEL: OnceLock<Option<KernelBtf>> = OnceLock::new();

fn kernel() -> Option<&'static KernelBtf> {
    KERNEL.get_or_init(load).as_ref()
}

fn load() -> Option<KernelBtf> {
    let dir = std::env::var_os("RTRACE_BTF_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(SYS_BTF));
    let path = dir.join("vmlinux");
    // Mapping is fast (types are parsed as they are asked for); sysfs
    // allows it since Linux 6.15. Before that the file is read and parsed.
    let vmlinux = Btf::from_file_with_backend(&path, Backend::Mmap)
        .or_else(|_| Btf::from_file(&path))
        .ok()?;
    Some(KernelBtf {
        dir,
        vmlinux,
        index: OnceLock::new(),
        modules: OnceLock::new(),
        shapes: Mutex::new(HashMap::new()),
    })
}

impl KernelBtf {
    fn modules(&self) -> &[(String, Btf)] {
        self.modules.get_or_init(|| {
            let Ok(entries) = std::fs::read_dir(&self.dir) else {
                return Vec::new();
            };
            let mut names: Vec<String> = entries
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| n != "vmlinux")
                .collect();
            names.sort();
            names
                .into_iter()
                .filter_map(|n| {
                    let btf = Btf::from_split_file(self.dir.join(&n), &self.vmlinux).ok()?;
                    Some((n, btf))
                })
                .collect()
        })
    }

    /// vmlinux's type ids by name, built on the first call (`None`: the
    /// file could not be indexed).
    fn index(&self) -> Option<&index::NameIndex> {
        self.index
            .get_or_init(|| {
                let path = self.dir.join("vmlinux");
                let file = std::fs::File::open(&path).ok()?;
                // Mapped where sysfs allows it (privately: it refuses a
                // shared map), as the crate maps it: sysfs reads the 5 MB
                // file out 4 KiB a call, a thousand calls.
                // SAFETY: the kernel's BTF is read-only and lasts as long
                // as the kernel (a file under RTRACE_BTF_DIR is a test's
                // copy).
                match unsafe { memmap2::MmapOptions::new().map_copy_read_only(&file) } {
                    Ok(map) => index::build(&map),
                    Err(_) => index::build(&std::fs::read(&path).ok()?),
                }
            })
            .as_ref()
    }

    /// Find `name` (`struct fiemap`, `int`, `__u32`) of `size` bytes (any
    /// size if 0) in vmlinux, then in the modules.
    fn find(&self, name: &str, size: usize) -> Option<Found> {
        let key = (name.to_string(), size);
        if let Some(found) = self.shapes.lock().ok()?.get(&key) {
            return found.clone();
        }
        let (kind, bare) = split_kind(name);
        let ids = self.index().map(|i| i.get(bare));
        let found = find_in(&self.vmlinux, ids, kind, bare, size)
            .map(|s| (s, self.dir.join("vmlinux")))
            .or_else(|| {
                self.modules().iter().find_map(|(module, btf)| {
                    find_in(btf, None, kind, bare, size).map(|s| (s, self.dir.join(module)))
                })
            })
            .map(|(shape, source)| Found {
                shape: Arc::new(shape),
                source,
            });
        self.shapes.lock().ok()?.insert(key, found.clone());
        found
    }
}

/// Which BTF kind a C type name asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TypeKind {
    Struct,
    Union,
    Enum,
    /// A typedef or a base type (`__u32`, `int`).
    Plain,
}

/// Split `struct foo` into its kind and tag; base types in the spelling
/// BTF uses (`unsigned long` is `long unsigned int` there).
fn split_kind(name: &str) -> (TypeKind, &str) {
    let name = name.trim();
    for (word, kind) in [
        ("struct ", TypeKind::Struct),
        ("union ", TypeKind::Union),
        ("enum ", TypeKind::Enum),
    ] {
        if let Some(tag) = name.strip_prefix(word) {
            return (kind, tag.trim());
        }
    }
    let base = match name {
        "unsigned" => "unsigned int",
        "long" | "signed long" => "long int",
        "unsigned long" => "long unsigned int",
        "long long" => "long long int",
        "unsigned long long" => "long long unsigned int",
        "short" => "short int",
        "unsigned short" => "short unsigned int",
        other => other,
    };
    (TypeKind::Plain, base)
}

/// Every distinct `(type, size)` the request tables (both architectures)
/// give an argument as the kernel copies it: the header's type at the
/// code's size, an exception's type, a request with parameters' type.
/// What `cargo bench`'s first-use measure looks up.
pub fn table_types() -> Vec<(&'static str, usize)> {
    let mut out = HashSet::new();
    for t in super::names::tables() {
        for d in t.defs {
            match t.real(d).map(|r| r.copied) {
                Some(super::defs::Copied::Pointee(ty, size)) => {
                    out.insert((ty, size as usize));
                }
                Some(_) => {}
                None if !d.arg.is_empty() => {
                    out.insert((d.arg, ((d.code >> 16) & 0x3fff) as usize));
                }
                None => {}
            }
        }
        for f in t.families.iter().filter(|f| !f.arg.is_empty()) {
            out.insert((f.arg, f.size as usize));
        }
    }
    let mut out: Vec<_> = out.into_iter().collect();
    out.sort_unstable();
    out
}

/// `name` of `kind` and `size` in `btf`, from `ids` where the file is
/// indexed, else by the crate's scan of every type.
fn find_in(
    btf: &Btf,
    ids: Option<&[u32]>,
    kind: TypeKind,
    name: &str,
    size: usize,
) -> Option<Shape> {
    let types = match ids {
        Some(ids) => ids
            .iter()
            .filter_map(|&id| btf.resolve_type_by_id(id).ok())
            .collect(),
        None => btf.resolve_types_by_name(name).ok()?,
    };
    types.iter().find_map(|ty| {
        let wanted = matches!(
            (kind, ty),
            (TypeKind::Struct, Type::Struct(_))
                | (TypeKind::Union, Type::Union(_))
                | (TypeKind::Enum, Type::Enum(_) | Type::Enum64(_))
                | (TypeKind::Plain, Type::Typedef(_) | Type::Int(_))
        );
        if !wanted {
            return None;
        }
        let shape = shape::compile(btf, ty).ok()?;
        (size == 0 || shape.size == size).then_some(shape)
    })
}

/// The id of vmlinux's one type named `name` that `is` accepts, or
/// `None` where there is not exactly one.
fn vmlinux_unique_id(name: &str, is: fn(&Type) -> bool) -> Option<u32> {
    let kernel = kernel()?;
    let mut found = kernel
        .index()?
        .get(name)
        .iter()
        .filter(|&&id| kernel.vmlinux.resolve_type_by_id(id).is_ok_and(|t| is(&t)));
    let id = *found.next()?;
    found.next().is_none().then_some(id)
}

/// The id of vmlinux's one typedef named `name` (`btf_trace_sys_enter`),
/// or `None` where there is not exactly one.
pub fn vmlinux_typedef_id(name: &str) -> Option<u32> {
    vmlinux_unique_id(name, |t| matches!(t, Type::Typedef(_)))
}

/// What vmlinux's typedef `name` points at, where it is a pointer type
/// (`cap_user_header_t`, a `struct __user_cap_header_struct *`): the
/// pointee's shape (its size, its layout). `None` for any other typedef.
pub fn typedef_pointee(name: &str) -> Option<Shape> {
    let kernel = kernel()?;
    let btf = &kernel.vmlinux;
    let id = vmlinux_typedef_id(name)?;
    let mut ty = btf.resolve_type_by_id(id).ok()?;
    // Through the typedef (and any others, and qualifiers) to the pointer.
    for _ in 0..8 {
        ty = match &ty {
            Type::Typedef(t) => btf.resolve_chained_type(t).ok()?,
            Type::Const(t) | Type::Volatile(t) | Type::Restrict(t) => {
                btf.resolve_chained_type(t).ok()?
            }
            Type::Ptr(t) => return shape::compile(btf, &btf.resolve_chained_type(t).ok()?).ok(),
            _ => return None,
        };
    }
    None
}

/// The type a request's table spells `ty` (`struct fiemap`, `int`,
/// `char[16]`, `void *`), of `size` bytes, laid out for `i386` (or x32:
/// any program with 4-byte pointers and longs) or x86_64 programs; `None` when the kernel's BTF does not have it, has it with
/// another size, or lays it out differently from the program.
pub fn lookup(ty: &str, size: usize, i386: bool) -> Option<Found> {
    let ty = ty.trim();
    if ty.ends_with('*') {
        // A pointer to a pointer: the pointer is the value.
        let width = if i386 { 4 } else { 8 };
        return (size == width).then(|| Found {
            shape: Arc::new(Shape::pointer(ty, width)),
            source: PathBuf::from(C_TYPE),
        });
    }
    let found = if let Some((elem, count)) = array_spelling(ty) {
        // A count the header spells as an expression (`[(0x3f + 1)]`) is
        // whatever the code's size makes it.
        let e = match count {
            Some(n) if n == 0 || !size.is_multiple_of(n) => return None,
            Some(n) => find_or_scalar(elem, size / n, i386)?,
            None => find_or_scalar(elem, 0, i386)?,
        };
        let esize = e.shape.size;
        if esize == 0 || !size.is_multiple_of(esize) {
            return None;
        }
        let count = size / esize;
        let shape = Shape::array((*e.shape).clone(), count);
        Found {
            shape: Arc::new(shape),
            source: e.source,
        }
    } else {
        let found = find_or_scalar(ty, size, i386)?;
        if found.source == Path::new(C_TYPE) {
            // The program's own size: no layout to compare.
            return Some(found);
        }
        found
    };
    if i386 && !found.shape.i386_layout_same() {
        // A `long` is the program's own size at its code's size.
        return Shape::scalar(ty, size, i386).map(|shape| Found {
            shape: Arc::new(shape),
            source: PathBuf::from(C_TYPE),
        });
    }
    Some(found)
}

/// `ty` of `size` bytes (any if 0) from the kernel's BTF, or, where there
/// is none or it lacks the name, a plain integer type known from its
/// spelling (`__u64` prints `[42]`, not its bytes).
fn find_or_scalar(ty: &str, size: usize, i386: bool) -> Option<Found> {
    kernel().and_then(|k| k.find(ty, size)).or_else(|| {
        Shape::scalar(ty, size, i386).map(|shape| Found {
            shape: Arc::new(shape),
            source: PathBuf::from(C_TYPE),
        })
    })
}

/// The layout of `ty` whatever its size, for `--explain-ioctl`.
pub fn describe(ty: &str) -> Option<Found> {
    kernel()?.find(ty, 0)
}

/// `char[16]` as `("char", Some(16))`; a count that is not a plain number
/// as `None`.
fn array_spelling(ty: &str) -> Option<(&str, Option<usize>)> {
    let open = ty.find('[')?;
    let count = ty[open + 1..].strip_suffix(']')?.trim();
    Some((ty[..open].trim(), count.parse().ok()))
}

/// How a hand-written table's struct layout compares with the kernel's.
#[derive(Debug)]
pub enum Agreement {
    /// Every field the table names is where BTF puts it, with its size,
    /// and the sizes agree; the BTF file it was read from.
    Agrees(PathBuf),
    /// The differences, one per field (or the size), and the file.
    Differs(PathBuf, Vec<String>),
}

/// Compare a hand-written `layout` (`struct NAME`) with the kernel's BTF;
/// `None` when the kernel's BTF has no such struct.
pub fn check_layout(layout: &super::Layout) -> Option<Agreement> {
    let found = describe(&format!("struct {}", layout.name))?;
    let kernel = flat_members(&found.shape);
    let mut diffs = Vec::new();
    if layout.size != found.shape.size {
        diffs.push(format!(
            "size {} in the table, {} in BTF",
            layout.size, found.shape.size
        ));
    }
    for f in layout.fields {
        match kernel.iter().find(|k| k.0 == f.name) {
            None => diffs.push(format!("{}: not in BTF", f.name)),
            Some(&(_, at, size)) if (at, size) != (f.offset, f.size) => diffs.push(format!(
                "{}: @{} {} in the table, @{at} {size} in BTF",
                f.name, f.offset, f.size
            )),
            Some(_) => {}
        }
    }
    Some(if diffs.is_empty() {
        Agreement::Agrees(found.source)
    } else {
        Agreement::Differs(found.source, diffs)
    })
}

/// For `--explain-ioctl`, under a table's layout: whether the running
/// kernel's BTF (vmlinux's, or a loaded module's) lays the struct out as
/// the table does, or why it could not be checked.
pub fn agreement_line(layout: &super::Layout) -> String {
    match check_layout(layout) {
        None if !available() => "  (no kernel BTF here to check this layout against)\n".into(),
        None => format!(
            "  (the kernel's BTF has no struct {}: its module is not loaded, or not built with BTF)\n",
            layout.name
        ),
        Some(Agreement::Agrees(source)) => {
            format!("  the kernel's BTF agrees ({})\n", source.display())
        }
        Some(Agreement::Differs(source, diffs)) => format!(
            "  the kernel's BTF differs ({}): {}\n",
            source.display(),
            diffs.join("; ")
        ),
    }
}

/// A struct's members flattened through anonymous structs and unions:
/// `(name, byte offset, size)`.
pub fn flat_members(shape: &Shape) -> Vec<(String, usize, usize)> {
    fn walk(members: &[Member], base: u32, out: &mut Vec<(String, usize, usize)>) {
        for m in members {
            let bit = base + m.bit_offset;
            match (&m.shape.kind, m.name.is_empty()) {
                (Kind::Struct { members, .. }, true) => walk(members, bit, out),
                _ => out.push((m.name.clone(), (bit / 8) as usize, m.shape.size)),
            }
        }
    }
    let mut out = Vec::new();
    if let Kind::Struct { members, .. } = &shape.kind {
        walk(members, 0, &mut out);
    }
    out
}

/// Whether the kernel's BTF could be read (for tests and `--explain-ioctl`).
pub fn available() -> bool {
    kernel().is_some()
}

/// Where the kernel's BTF is read from.
pub fn dir() -> Option<&'static Path> {
    kernel().map(|k| k.dir.as_path())
}

#[cfg(test)]
mod tests;
