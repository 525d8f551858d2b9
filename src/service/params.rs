//! Parameter types for the generic syscall printer.
//!
//! A [`Signature`] names a system call's parameters and says how to print each
//! one when no specific handler exists. The table itself lives in
//! `service/table.rs`; the generic handler in `service/generic.rs` walks it.

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
}

/// One named parameter of a system call.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    /// The parameter's name as in the kernel's SYSCALL_DEFINE or man page.
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

/// Shorthand used by the table: `p("fd", Kind::Fd)`.
pub const fn p(name: &'static str, kind: Kind) -> Param {
    Param { name, kind }
}
