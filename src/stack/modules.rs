//! The modules (ELF files) mapped into a tracee, for unwinding and
//! symbols: its /proc/PID/maps read into module ranges and load biases,
//! each file parsed once (by the `object` crate) and kept per (path,
//! device, inode, mtime), so a rebuilt binary is parsed afresh while a
//! library every process maps is parsed once per run. A file without
//! DWARF of its own gives `-kk` its lines from its separate debug file
//! (found by build ID or `.gnu_debuglink`, as gdb and libdw find it).

use std::collections::HashMap;
use std::ops::{Deref, Range};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use object::{
    Object, ObjectSection, ObjectSegment, ObjectSymbol, ObjectSymbolTable, SectionKind, SymbolKind,
};

/// A slice of a file's bytes that several framehop modules may share (a
/// library mapped by many processes is read once).
#[derive(Clone, Default)]
pub struct Bytes {
    data: Arc<Vec<u8>>,
    range: Range<usize>,
}

impl Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.data[self.range.clone()]
    }
}

/// A section's place in the file's address space and its bytes.
#[derive(Clone)]
pub struct Section {
    /// Its addresses as the file states them (SVMA).
    pub svma: Range<u64>,
    /// Its bytes.
    pub bytes: Bytes,
}

/// What one ELF file gives the unwinder and the symboliser.
pub struct Elf {
    /// `.eh_frame`, framehop's main source of unwind rules.
    pub eh_frame: Option<Section>,
    /// `.eh_frame_hdr`, the index into `.eh_frame`.
    pub eh_frame_hdr: Option<Section>,
    /// `.debug_frame`, for files built with it instead of `.eh_frame`.
    pub debug_frame: Option<Section>,
    /// `.text`'s addresses.
    pub text: Option<Range<u64>>,
    /// `.got`'s addresses (DWARF CFI may point relative to it).
    pub got: Option<Range<u64>>,
    /// The loadable segments as (file offset, address), page-aligned
    /// down: a mapping at file offset O sits where the segment starting
    /// at O was linked, which gives the load bias.
    loads: Vec<(u64, u64)>,
    /// Function symbols (address, name), sorted by address: `.symtab`, or
    /// `.dynsym` when the file was stripped.
    symbols: Vec<(u64, String)>,
    /// The whole file, for its DWARF line tables (read only with `-kk`).
    data: Arc<Vec<u8>>,
    /// Where the file is (None for the vDSO's image): its separate debug
    /// file is looked for from there.
    path: Option<PathBuf>,
    /// The line tables (`addr2line`), read at the first source line
    /// asked for; None in a file without (uncompressed) DWARF.
    lines: OnceLock<Option<Lines>>,
}

/// A file's DWARF, as addr2line reads it.
type Lines = addr2line::Context<gimli::EndianArcSlice<gimli::LittleEndian>>;

/// The page size mappings are aligned to.
const PAGE: u64 = 4096;

impl Elf {
    /// Parse `data`, the file at `path`; None when it is not an ELF file
    /// `object` can read.
    fn parse(data: Arc<Vec<u8>>, path: Option<PathBuf>) -> Option<Elf> {
        let file = object::File::parse(&data[..]).ok()?;
        let section = |name: &str| {
            let s = file.section_by_name(name)?;
            let (start, len) = s.file_range()?;
            // A header may lie (the tracee chose the file): stay inside.
            if start.checked_add(len)? > data.len() as u64 {
                return None;
            }
            Some(Section {
                svma: s.address()..s.address() + s.size(),
                bytes: Bytes {
                    data: data.clone(),
                    range: start as usize..(start + len) as usize,
                },
            })
        };
        let range = |name: &str| {
            let s = file.section_by_name(name)?;
            Some(s.address()..s.address() + s.size())
        };
        let loads = file
            .segments()
            .map(|seg| {
                let (offset, _) = seg.file_range();
                (offset & !(PAGE - 1), seg.address() & !(PAGE - 1))
            })
            .collect();
        // The symbol table when there is one; a stripped file keeps only
        // its exported symbols, which is what strace (libdw) names too.
        let table = file.symbol_table().or_else(|| file.dynamic_symbol_table());
        // Functions, and untyped labels in code (hand-written assembly
        // rarely says `.type f, @function`).
        let in_code = |s: &object::Symbol| {
            s.section_index()
                .and_then(|i| file.section_by_index(i).ok())
                .is_some_and(|sec| sec.kind() == SectionKind::Text)
        };
        let mut symbols: Vec<(u64, u8, String)> = table
            .into_iter()
            .flat_map(|t| t.symbols())
            .filter(|s| s.is_definition() && s.address() != 0)
            .filter_map(|s| {
                let rank = match s.kind() {
                    SymbolKind::Text => 0,
                    SymbolKind::Unknown if in_code(&s) => 1,
                    _ => return None,
                };
                Some((s.address(), rank, s.name().ok()?.to_string()))
            })
            .filter(|(_, _, name)| !name.is_empty())
            .collect();
        // Of the names one address has (`__write` and `write`), a
        // function's before a label's, then the first in the table, as
        // strace (libdw) picks: a stable sort keeps the table's order.
        symbols.sort_by_key(|&(addr, rank, _)| (addr, rank));
        symbols.dedup_by_key(|(addr, _, _)| *addr);
        let symbols = symbols
            .into_iter()
            .map(|(addr, _, name)| (addr, name))
            .collect();
        Some(Elf {
            data: data.clone(),
            path,
            lines: OnceLock::new(),
            eh_frame: section(".eh_frame"),
            eh_frame_hdr: section(".eh_frame_hdr"),
            debug_frame: section(".debug_frame"),
            text: range(".text"),
            got: range(".got"),
            loads,
            symbols,
        })
    }

    /// The source file and line of the code at file address `addr`, from
    /// the file's DWARF line tables where it has them, else its separate
    /// debug file's (`-kk`).
    pub fn source(&self, addr: u64) -> Option<(String, u32)> {
        let lines = self
            .lines
            .get_or_init(|| {
                read_lines(&self.data).or_else(|| {
                    let path = self.path.as_deref()?;
                    read_lines(&separate_debug_file(&self.data, path)?)
                })
            })
            .as_ref()?;
        let loc = lines.find_location(addr).ok()??;
        Some((loc.file?.to_string(), loc.line?))
    }

    /// The function symbol at or before file address `addr`, and how far
    /// past it `addr` is.
    pub fn symbol(&self, addr: u64) -> Option<(&str, u64)> {
        let i = self.symbols.partition_point(|(a, _)| *a <= addr);
        let (start, name) = self.symbols.get(i.checked_sub(1)?)?;
        Some((name, addr - start))
    }
}

/// The DWARF sections of ELF file `data` for addr2line; None without
/// `.debug_info` or with compressed sections (not decompressed here).
fn read_lines(data: &[u8]) -> Option<Lines> {
    let file = object::File::parse(data).ok()?;
    file.section_by_name(".debug_info")?;
    let mut compressed = false;
    let dwarf = gimli::Dwarf::load(|id| -> Result<_, gimli::Error> {
        let bytes: &[u8] = match file.section_by_name(id.name()) {
            Some(s) => {
                let plain = s
                    .compressed_file_range()
                    .is_ok_and(|r| r.format == object::CompressionFormat::None);
                compressed |= !plain;
                s.data().ok().filter(|_| plain).unwrap_or(&[])
            }
            None => &[],
        };
        Ok(gimli::EndianArcSlice::new(
            Arc::from(bytes),
            gimli::LittleEndian,
        ))
    })
    .ok()?;
    if compressed {
        return None;
    }
    addr2line::Context::from_dwarf(dwarf).ok()
}

/// Where separate debug files are installed (Debian's `-dbg` and
/// `-dbgsym` packages; gdb's `debug-file-directory`, libdw's default).
const DEBUG_ROOT: &str = "/usr/lib/debug";

/// The separate debug file of ELF file `data` (at `path`), as gdb and
/// libdw look for it: by the file's build ID,
/// `/usr/lib/debug/.build-id/xx/rest.debug` (used when it has the same
/// ID), then by its `.gnu_debuglink` name in the file's directory, that
/// directory's `.debug`, and `/usr/lib/debug/DIR` (used when its CRC is
/// the link's). None when there is none.
fn separate_debug_file(data: &[u8], path: &Path) -> Option<Vec<u8>> {
    let file = object::File::parse(data).ok()?;
    if let Some(id) = file.build_id().ok().flatten().filter(|id| id.len() > 1) {
        let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
        let by_id = format!("{DEBUG_ROOT}/.build-id/{}/{}.debug", &hex[..2], &hex[2..]);
        if let Ok(debug) = std::fs::read(by_id)
            && object::File::parse(&debug[..])
                .ok()
                .and_then(|d| d.build_id().ok().flatten())
                == Some(id)
        {
            return Some(debug);
        }
    }
    let (name, crc) = file.gnu_debuglink().ok().flatten()?;
    // A link names a file, never a path elsewhere.
    if name.is_empty() || name.contains(&b'/') {
        return None;
    }
    let name = std::ffi::OsStr::from_bytes(name);
    let dir = path.parent()?;
    let mut places = vec![dir.join(name), dir.join(".debug").join(name)];
    if let Ok(rel) = dir.strip_prefix("/") {
        places.push(Path::new(DEBUG_ROOT).join(rel).join(name));
    }
    places.into_iter().find_map(|place| {
        let debug = std::fs::read(place).ok()?;
        let mut sum = crc32fast::Hasher::new();
        sum.update(&debug);
        (sum.finalize() == crc).then_some(debug)
    })
}

/// One file mapped into a tracee.
pub struct Mapped {
    /// Its path as /proc/PID/maps shows it (lossy UTF-8).
    pub path: String,
    /// The addresses its mappings cover, lowest to highest.
    pub range: Range<u64>,
    /// What its addresses are moved by: file address = address - bias.
    pub bias: u64,
    /// The parsed file; None when it could not be read (gone, replaced,
    /// not ELF, as `[vdso]`), so frames in it are named by path alone.
    pub elf: Option<Arc<Elf>>,
}

/// Which file a mapping is: a file rebuilt in place has a new mtime (or
/// inode) and is parsed again.
#[derive(Clone, PartialEq, Eq, Hash)]
struct FileKey {
    path: Vec<u8>,
    dev: u64,
    inode: u64,
    mtime: (i64, i64),
}

/// Parsed files, kept for the whole run (a library is parsed once).
#[derive(Default)]
pub struct Files {
    parsed: HashMap<FileKey, Option<Arc<Elf>>>,
}

impl Files {
    /// The file at `path`, when it is still the one mapped (inode
    /// `inode`), parsed once.
    fn get(&mut self, path: &[u8], inode: u64) -> Option<Arc<Elf>> {
        let os = std::ffi::OsStr::from_bytes(path);
        let meta = std::fs::metadata(os).ok()?;
        if meta.ino() != inode {
            // Replaced since it was mapped: its symbols would lie.
            return None;
        }
        let key = FileKey {
            path: path.to_vec(),
            dev: meta.dev(),
            inode,
            mtime: (meta.mtime(), meta.mtime_nsec()),
        };
        self.parsed
            .entry(key)
            .or_insert_with(|| {
                let data = std::fs::read(os).ok()?;
                Elf::parse(Arc::new(data), Some(PathBuf::from(os))).map(Arc::new)
            })
            .clone()
    }

    /// The files mapped by a process, from its /proc/PID/maps text; its
    /// vDSO (no file: the kernel's image in its memory) is read with
    /// `read`, the process's memory.
    pub fn mapped(
        &mut self,
        maps: &[u8],
        read: &mut dyn FnMut(u64, &mut [u8]) -> bool,
    ) -> Vec<Mapped> {
        let mut out: Vec<Mapped> = Vec::new();
        // Bytes: a mapped file's name need not be UTF-8.
        for line in maps.split(|&b| b == b'\n') {
            let Some(m) = MapLine::parse(line) else {
                continue;
            };
            if !m.path.starts_with(b"/") && !m.path.starts_with(b"[") {
                continue;
            }
            // A file's mappings are consecutive lines: extend the last.
            if let Some(last) = out.last_mut()
                && last.path.as_bytes() == String::from_utf8_lossy(m.path).as_bytes()
                && m.start >= last.range.end
            {
                last.range.end = m.end;
                continue;
            }
            let elf = if m.inode != 0 {
                self.get(m.path, m.inode)
            } else if m.path == b"[vdso]" && m.end - m.start <= VDSO_MAX {
                // A whole ELF image: named from its own symbols.
                let mut image = vec![0; (m.end - m.start) as usize];
                read(m.start, &mut image)
                    .then(|| Elf::parse(Arc::new(image), None).map(Arc::new))
                    .flatten()
            } else {
                None
            };
            // The segment this mapping's file offset starts gives the
            // bias; without the file, the mapping's own start does.
            let bias = elf
                .as_ref()
                .and_then(|e| e.loads.iter().find(|(off, _)| *off == m.offset))
                .map_or(m.start.wrapping_sub(m.offset), |(_, addr)| {
                    m.start.wrapping_sub(*addr)
                });
            out.push(Mapped {
                path: String::from_utf8_lossy(m.path).into_owned(),
                range: m.start..m.end,
                bias,
                elf,
            });
        }
        out
    }
}

/// The largest vDSO read (a few pages; a bigger mapping is not one).
const VDSO_MAX: u64 = 1 << 20;

/// One line of /proc/PID/maps.
struct MapLine<'a> {
    start: u64,
    end: u64,
    offset: u64,
    inode: u64,
    path: &'a [u8],
}

impl<'a> MapLine<'a> {
    /// `START-END PERMS OFFSET DEV INODE   PATH`; None for a line that is
    /// not that (the last, empty one).
    fn parse(line: &'a [u8]) -> Option<MapLine<'a>> {
        let mut rest = line;
        let mut field = || {
            let start = rest.iter().position(|&b| b != b' ')?;
            rest = &rest[start..];
            let end = rest.iter().position(|&b| b == b' ').unwrap_or(rest.len());
            let (f, r) = rest.split_at(end);
            rest = r;
            std::str::from_utf8(f).ok()
        };
        let (range, _perms, offset, _dev, inode) =
            (field()?, field()?, field()?, field()?, field()?);
        let (start, end) = range.split_once('-')?;
        let path = match rest.iter().position(|&b| b != b' ') {
            Some(i) => &rest[i..],
            None => &[][..],
        };
        Some(MapLine {
            start: u64::from_str_radix(start, 16).ok()?,
            end: u64::from_str_radix(end, 16).ok()?,
            offset: u64::from_str_radix(offset, 16).ok()?,
            inode: inode.parse().ok()?,
            path,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_lines_with_spaces_and_without_paths() {
        let m =
            MapLine::parse(b"7f1c2a000000-7f1c2a026000 r--p 00001000 08:01 1234     /tmp/a b.so")
                .unwrap();
        assert_eq!(
            (m.start, m.end, m.offset, m.inode, m.path),
            (
                0x7f1c2a000000,
                0x7f1c2a026000,
                0x1000,
                1234,
                &b"/tmp/a b.so"[..]
            )
        );
        let anon = MapLine::parse(b"7ffd1000-7ffd2000 rw-p 00000000 00:00 0 ").unwrap();
        assert_eq!(anon.path, b"");
        assert!(MapLine::parse(b"").is_none());
    }

    #[inline(never)]
    fn a_function_to_find() -> u64 {
        a_function_to_find as *const () as u64
    }

    #[test]
    fn own_functions_are_found_through_the_load_bias() {
        // This test binary as a tracee would be: its address of a function
        // of its own, through the bias from /proc/self/maps, names it.
        let addr = a_function_to_find();
        let maps = std::fs::read("/proc/self/maps").unwrap();
        let mapped = Files::default().mapped(&maps, &mut |_, _| false);
        let m = mapped
            .iter()
            .find(|m| m.range.contains(&addr))
            .expect("the test binary is mapped");
        let elf = m.elf.as_ref().expect("the test binary parses");
        let (name, offset) = elf.symbol(addr - m.bias).expect("a symbol");
        assert!(name.contains("a_function_to_find"), "{name}");
        assert_eq!(offset, 0);
        // A file's mappings are one module; libc is another.
        assert_eq!(
            mapped.iter().filter(|x| x.path == m.path).count(),
            1,
            "{}",
            m.path
        );
    }
}
