//! The user stack of a stopped tracee, for `-k` / `--stack-trace` and the
//! `stacktrace` trigger: a 64-bit thread's unwound by the `framehop`
//! crate from the modules' `.eh_frame` / `.debug_frame` (frame pointers
//! where a module has neither), with the registers of the ptrace stop and
//! the tracee's memory read through [`crate::kernel::Memory`]; a 32-bit
//! (i386) thread's by elfutils' libdw, loaded at run time
//! (`stack/dwfl.rs`), from the same registers and memory. Each frame is
//! named alike from its module's symbol table (`stack/modules.rs`, the
//! `object` crate; C++ and Rust names demangled), and with `-kk` its
//! source line from the module's DWARF or its separate debug file
//! (`addr2line`).
//!
//! Which code runs is the thread's code segment's to say, not the call's
//! ABI: 64-bit code making an `int 0x80` call has a 64-bit stack.

mod dwfl;
mod modules;

use std::collections::HashMap;
use std::rc::Rc;

use framehop::x86_64::{CacheX86_64, UnwindRegsX86_64, UnwinderX86_64};
use framehop::{ExplicitModuleSectionInfo, Module, Unwinder};

use crate::kernel::{Arch, Memory};
use modules::{Bytes, Files, Mapped};

/// strace's default for `--stack-trace-frame-limit`.
pub const DEFAULT_FRAME_LIMIT: usize = 256;

/// One frame of a stack, innermost first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The file the address is in, as /proc/PID/maps names it; None
    /// outside any mapped file.
    pub module: Option<String>,
    /// The function symbol at or before the address, when the module has
    /// one.
    pub symbol: Option<String>,
    /// How far past the symbol's start the address is.
    pub offset: u64,
    /// The address in the module's own addresses (what `nm` and
    /// `objdump` show), or the process's address outside any module.
    pub address: u64,
    /// The source file and line (`-kk`), where the module's DWARF says.
    pub source: Option<(String, u32)>,
}

impl Frame {
    /// The frame as strace prints it, after `> `:
    /// `/usr/lib/x86_64-linux-gnu/libc.so.6(write+0x14) [0x114a04]`.
    pub fn text(&self) -> String {
        match (&self.module, &self.symbol) {
            (Some(m), Some(s)) => {
                let at = format!("{m}({s}+0x{:x}) [0x{:x}]", self.offset, self.address);
                match &self.source {
                    Some((file, line)) => format!("{at} {file}:{line}"),
                    None => at,
                }
            }
            // strace's own spelling for a frame its file has no symbol
            // for (a stripped program).
            (Some(m), None) => format!("{m}(+0x0) [0x{:x}]", self.address),
            (None, _) => format!("unexpected_backtracing_error [0x{:x}]", self.address),
        }
    }

    /// The frame as a JSON object: `module`, `symbol` (null when
    /// unknown), `offset`, `address` (numbers).
    pub fn json(&self) -> serde_json::Value {
        let mut obj = serde_json::json!({
            "module": self.module,
            "symbol": self.symbol,
            "offset": self.offset,
            "address": self.address,
        });
        if let Some((file, line)) = &self.source {
            obj["file"] = serde_json::Value::from(file.as_str());
            obj["line"] = serde_json::Value::from(*line);
        }
        obj
    }
}

/// What unwinding a stopped call's stack found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stack {
    /// The frames, innermost first (at most the frame limit).
    Frames {
        /// The frames.
        frames: Vec<Frame>,
        /// The frame limit cut the walk: more frames were there.
        truncated: bool,
    },
    /// The stack could not be unwound (an i386 thread without libdw):
    /// why, in one line.
    Unsupported(&'static str),
}

/// The line an i386 call gets where libdw cannot be loaded.
const NO_LIBDW: &str = "stack not unwound: i386 stacks need elfutils' libdw.so.1, not found";
/// The line an i386 call gets where libdw could not take the process.
const LIBDW_FAILED: &str = "stack not unwound: libdw could not read this process's modules";

/// What walks a process's stacks.
enum Walker {
    /// framehop, for 64-bit code.
    X86_64(UnwinderX86_64<Bytes>),
    /// A libdw session, for 32-bit code.
    I386(dwfl::Process),
}

/// One process's modules as its unwinder sees them, valid while its
/// /proc/PID/maps reads the same.
struct Space {
    maps: Vec<u8>,
    modules: Vec<Mapped>,
    walker: Walker,
}

/// The unwinder's state for a whole run: parsed files, each traced
/// process's modules, framehop's rule cache, libdw once loaded.
pub struct Stacks {
    limit: usize,
    /// `-kk`: each frame's source file and line too.
    source: bool,
    files: Files,
    spaces: HashMap<i32, Space>,
    cache: CacheX86_64,
    /// libdw, loaded at the first i386 stack (None inside: it could not
    /// be).
    libdw: Option<Option<Rc<dwfl::Libdw>>>,
}

impl Stacks {
    /// Unwinding at most `limit` frames a stack, naming each frame's
    /// source line too with `source`.
    pub fn new(limit: usize, source: bool) -> Stacks {
        Stacks {
            limit,
            source,
            files: Files::default(),
            spaces: HashMap::new(),
            cache: CacheX86_64::new(),
            libdw: None,
        }
    }

    /// Forget process `tgid`'s modules: it exec'd or ended.
    pub fn forget(&mut self, tgid: i32) {
        self.spaces.remove(&tgid);
    }

    /// The stack of stopped thread `tid` (of process `tgid`), whose
    /// memory `mem` reads.
    pub fn unwind(&mut self, tid: i32, tgid: i32, mem: &mut Memory) -> Stack {
        let empty = Stack::Frames {
            frames: Vec::new(),
            truncated: false,
        };
        // Registers are read in kernel.rs, the one place that uses ptrace.
        let Some(regs) = crate::kernel::stack_registers(nix::unistd::Pid::from_raw(tid)) else {
            return empty;
        };
        let Ok(maps) = std::fs::read(format!("/proc/{tid}/maps")) else {
            return empty;
        };
        let mut space = match self.spaces.remove(&tgid) {
            Some(s) if s.maps == maps && matches!(s.walker, Walker::I386(_)) == regs.code32 => s,
            _ => match self.space(maps, tgid, regs.code32, mem) {
                Ok(s) => s,
                Err(why) => return Stack::Unsupported(why),
            },
        };
        // Each frame's address, and the address its symbol and line are
        // looked up at: a return address may be just past a call that
        // ends its function, so the call itself (one byte back) says
        // which function it is.
        let mut found: Vec<(u64, u64)> = Vec::new();
        // One more than the limit: whether the limit cut the walk.
        let max = self.limit.saturating_add(1);
        match &mut space.walker {
            Walker::X86_64(unwinder) => {
                let (ip, sp, bp) = (regs.ip, regs.sp, regs.bp);
                let mut read = |addr: u64| mem.read_word(addr, Arch::X86_64).ok_or(());
                let mut iter = unwinder.iter_frames(
                    ip,
                    UnwindRegsX86_64::new(ip, sp, bp),
                    &mut self.cache,
                    &mut read,
                );
                // An error ends the walk: what was found so far is the
                // stack.
                while found.len() < max
                    && let Ok(Some(frame)) = iter.next()
                {
                    found.push((frame.address(), frame.address_for_lookup()));
                }
            }
            Walker::I386(process) => {
                found = process
                    .frames(tid, regs.i386, mem, max)
                    .into_iter()
                    .map(|(pc, activation)| (pc, if activation { pc } else { pc.wrapping_sub(1) }))
                    .collect();
            }
        }
        let truncated = found.len() > self.limit;
        let frames = found
            .into_iter()
            .take(self.limit)
            .map(|(address, lookup)| name(&space.modules, address, lookup, self.source))
            .collect();
        self.spaces.insert(tgid, space);
        Stack::Frames { frames, truncated }
    }

    /// A process's modules from its maps, given to its unwinder: framehop
    /// with the sections it unwinds from, or (`code32`) a libdw session.
    fn space(
        &mut self,
        maps: Vec<u8>,
        tgid: i32,
        code32: bool,
        mem: &mut Memory,
    ) -> Result<Space, &'static str> {
        let modules = self
            .files
            .mapped(&maps, &mut |addr, buf| mem.read_exact(addr, buf));
        let walker = if code32 {
            let lib = self
                .libdw
                .get_or_insert_with(|| dwfl::Libdw::load().map(Rc::new))
                .clone()
                .ok_or(NO_LIBDW)?;
            Walker::I386(dwfl::Process::new(lib, tgid).map_err(|_| LIBDW_FAILED)?)
        } else {
            Walker::X86_64(framehop_unwinder(&modules))
        };
        Ok(Space {
            maps,
            modules,
            walker,
        })
    }
}

/// framehop's unwinder over `modules`, each with the sections it unwinds
/// from.
fn framehop_unwinder(modules: &[Mapped]) -> UnwinderX86_64<Bytes> {
    let mut unwinder = UnwinderX86_64::new();
    for m in modules {
        let Some(elf) = &m.elf else {
            continue;
        };
        let info = ExplicitModuleSectionInfo {
            base_svma: 0,
            text_svma: elf.text.clone(),
            got_svma: elf.got.clone(),
            eh_frame_svma: elf.eh_frame.as_ref().map(|s| s.svma.clone()),
            eh_frame: elf.eh_frame.as_ref().map(|s| s.bytes.clone()),
            eh_frame_hdr_svma: elf.eh_frame_hdr.as_ref().map(|s| s.svma.clone()),
            eh_frame_hdr: elf.eh_frame_hdr.as_ref().map(|s| s.bytes.clone()),
            debug_frame: elf.debug_frame.as_ref().map(|s| s.bytes.clone()),
            ..Default::default()
        };
        unwinder.add_module(Module::new(m.path.clone(), m.range.clone(), m.bias, info));
    }
    unwinder
}

/// Name the frame at `address` from the module it is in, looking its
/// symbol (and its source line, with `source`) up at `lookup`.
fn name(modules: &[Mapped], address: u64, lookup: u64, source: bool) -> Frame {
    let Some(m) = modules.iter().find(|m| m.range.contains(&lookup)) else {
        return Frame {
            module: None,
            symbol: None,
            offset: 0,
            address,
            source: None,
        };
    };
    let file_addr = address.wrapping_sub(m.bias);
    let symbol = m
        .elf
        .as_ref()
        .and_then(|e| e.symbol(lookup.wrapping_sub(m.bias)));
    // strace shows a source line with a symbol only.
    let source = source && symbol.is_some();
    Frame {
        module: Some(m.path.clone()),
        symbol: symbol.map(|(s, _)| demangle(s)),
        offset: symbol.map_or(0, |(_, off)| off.wrapping_add(address.wrapping_sub(lookup))),
        address: file_addr,
        source: m
            .elf
            .as_ref()
            .filter(|_| source)
            .and_then(|e| e.source(lookup.wrapping_sub(m.bias))),
    }
}

/// A symbol as strace built with its demangler shows it: a Rust name
/// (legacy `_ZN...17h<hash>E` or v0 `_R...`) without its hash, a C++ name
/// with its parameters; any other name as it is.
fn demangle(name: &str) -> String {
    if let Ok(rust) = rustc_demangle::try_demangle(name) {
        return format!("{rust:#}");
    }
    if name.starts_with("_Z")
        && let Ok(sym) = cpp_demangle::Symbol::new(name)
        && let Ok(text) = sym.demangle()
    {
        return text;
    }
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_print_as_strace_prints_them() {
        let mut f = Frame {
            module: Some("/usr/lib/x86_64-linux-gnu/libc.so.6".into()),
            symbol: Some("write".into()),
            offset: 0x14,
            address: 0x114a04,
            source: None,
        };
        assert_eq!(
            f.text(),
            "/usr/lib/x86_64-linux-gnu/libc.so.6(write+0x14) [0x114a04]"
        );
        assert_eq!(
            f.json().to_string(),
            r#"{"module":"/usr/lib/x86_64-linux-gnu/libc.so.6","symbol":"write","offset":20,"address":1133060}"#
        );
        f.symbol = None;
        assert_eq!(
            f.text(),
            "/usr/lib/x86_64-linux-gnu/libc.so.6(+0x0) [0x114a04]"
        );
        f.module = None;
        assert_eq!(f.text(), "unexpected_backtracing_error [0x114a04]");
    }

    #[test]
    fn names_are_demangled_as_strace_demangles_them() {
        for (mangled, shown) in [
            // C++, with its parameters.
            ("_ZN3foo4leafEi", "foo::leaf(int)"),
            (
                "_ZNSt6vectorIiSaIiEE9push_backERKi",
                "std::vector<int, std::allocator<int> >::push_back(int const&)",
            ),
            // Rust's legacy mangling without its hash, and v0.
            ("_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write"),
            ("_RNvCs1234_7mycrate3foo", "mycrate::foo"),
            // C names, and what only looks mangled, stay as they are.
            ("write", "write"),
            ("_Zq", "_Zq"),
        ] {
            assert_eq!(demangle(mangled), shown, "{mangled}");
        }
    }
}
