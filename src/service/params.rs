//! Parameter types for the generic syscall printer.
//!
//! A [`Signature`] names a system call's parameters and says how to print each
//! one when no specific handler exists. Its names are the ones `-N` and
//! `--json` show and `--filter` accepts, so a handler prints each parameter
//! under its name here (a unit test, `service/param_names.rs`, holds every
//! handler to that). The table itself lives in `service/table.rs`; the
//! generic handler in `service/generic.rs` walks it.

use crate::kernel::Arch;

/// How the generic printer renders one raw argument register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Signed decimal (`int`, `long`).
    Int,
    /// Unsigned decimal (`unsigned int`, `size_t`, counts, lengths).
    Uint,
    /// Hexadecimal (`unsigned long` flags, masks, opaque values).
    Hex,
    /// Octal file mode (`mode_t`).
    Mode,
    /// A file descriptor (`int fd`).
    Fd,
    /// A directory file descriptor that may be `AT_FDCWD`.
    DirFd,
    /// A process or thread id (`pid_t`), printed signed.
    Pid,
    /// A signal number, printed by name.
    Signal,
    /// A pointer to user memory printed as an address.
    Ptr,
    /// A NUL-terminated path name read from the tracee.
    Path,
    /// Any other NUL-terminated string read from the tracee.
    Str,
    /// A file offset (`off_t`, `loff_t`), signed decimal.
    Offset,
    /// The high word of the 64-bit value named by this parameter's name
    /// without its `_high` (`offset_high` of `offset`): i386 passes such
    /// values in two registers. Never printed on its own: the value prints
    /// whole under the low word's name, and a filter on that name sees it
    /// whole. On x86_64 the low register holds all 64 bits and the kernel
    /// ignores this one (preadv's `pos_h`).
    High,
    /// A file offset counted in 4096-byte pages (mmap2's `pgoff`), printed
    /// and filtered in bytes like mmap's offset.
    Pages,
}

/// One named parameter of a system call.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    /// The parameter's name: what `-N` and `--json` print and what a
    /// `--filter` expression calls it (for a call with a handler, the name
    /// its handler prints; else the kernel's SYSCALL_DEFINE spelling).
    pub name: &'static str,
    /// How to print it.
    pub kind: Kind,
}

/// The declared parameters of a system call, by name.
#[derive(Clone, Copy, Debug)]
pub struct Signature {
    /// The call's name as the `syscalls` crate spells it (`newfstatat`, `_llseek`).
    pub name: &'static str,
    /// The parameters in register order.
    pub params: &'static [Param],
}

impl Signature {
    /// The index of the parameter named `name`.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p.name == name)
    }

    /// The value of parameter `i` as it prints and as a filter sees it:
    /// its register, joined with its [`Kind::High`] word on i386, or
    /// converted from pages to bytes.
    pub fn value(&self, i: usize, arch: Arch, args: &[u64; 6]) -> u64 {
        let raw = args[i];
        match self.params[i].kind {
            Kind::Pages => (raw & 0xffff_ffff) * PAGE_SIZE,
            _ => match self.high_word(i) {
                Some(h) if arch == Arch::I386 => {
                    (raw & 0xffff_ffff) | (args[h] & 0xffff_ffff) << 32
                }
                _ => raw,
            },
        }
    }

    /// The index of the [`Kind::High`] word that belongs to parameter `i`.
    pub fn high_word(&self, i: usize) -> Option<usize> {
        let name = self.params[i].name;
        self.params
            .iter()
            .position(|p| p.kind == Kind::High && p.name.strip_suffix("_high") == Some(name))
    }
}

/// The page size mmap2's offset is counted in, on every Linux x86 kernel.
const PAGE_SIZE: u64 = 4096;

/// Shorthand used by the table: `p("fd", Kind::Fd)`.
pub const fn p(name: &'static str, kind: Kind) -> Param {
    Param { name, kind }
}
