//! The bottom layer: the kernel's names, numbers and declarations, as the
//! kernel itself gives them.
//!
//! Everything here is data a program in `tools/` generated from the
//! kernel's headers, BTF or trace-event formats (each generated file says
//! so at its top and names the command that remakes it: `tools/regen`;
//! the name tables of [`xlat`] are declared in tools/abi_tables.py; the
//! `gen_usbmon`, `gen_usbdevfs`, `gen_user_events`, `gen_ata`, `gen_vt`, `gen_timex`, `gen_inet6_if`, `gen_x86_thread`, `gen_chrdev`, `gen_kdev`, `gen_numa` and `gen_proc_ns` numbers and `gen_i386_entry`'s table, which no
//! installed uapi header gives, come from the kernel's source tarball
//! through tools/gen_kernel_src.py), plus the few
//! plain definitions every decoder shares (the user_events event a
//! registration defines, which the fd table keeps). It imports nothing
//! from the rest of the crate, so any layer above may use any of it.

pub mod flags;
pub mod fs;
#[rustfmt::skip]
pub mod gen_ata;
#[rustfmt::skip]
pub mod gen_chrdev;
#[rustfmt::skip]
pub mod gen_i386_entry;
#[rustfmt::skip]
pub mod gen_inet6_if;
#[rustfmt::skip]
pub mod gen_kdev;
#[rustfmt::skip]
pub mod gen_numa;
#[rustfmt::skip]
pub mod gen_proc_ns;
#[rustfmt::skip]
pub mod gen_usbdevfs;
#[rustfmt::skip]
pub mod gen_usbmon;
#[rustfmt::skip]
pub mod gen_timex;
#[rustfmt::skip]
pub mod gen_user_events;
#[rustfmt::skip]
pub mod gen_vt;
#[rustfmt::skip]
pub mod gen_x86_thread;
pub mod layout;
pub mod signals;
pub mod usbmon;
pub mod user_events;
pub mod xlat;

mod gen_syscall_args;

pub use gen_syscall_args::{SOURCE as SYSCALL_ARGS_SOURCE, SYSCALL_ARGS};

/// One declared parameter: its name, its C type as the kernel spells it,
/// and that type's width.
pub type Declared = (&'static str, &'static str, ArgType);

/// The width and signedness of a parameter's declared C type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgType {
    /// Bits the kernel keeps of the register (8, 16, 32 or 64).
    pub bits: u32,
    /// Whether the type is signed.
    pub signed: bool,
}

impl ArgType {
    /// `long`, `loff_t`, `off_t`.
    pub const LONG: Self = Self::new(64, true);
    /// `unsigned long`, `size_t`, every pointer.
    pub const ULONG: Self = Self::new(64, false);
    /// `int`, `pid_t`, `key_serial_t`, `rwf_t`.
    pub const INT: Self = Self::new(32, true);
    /// `unsigned int`, `u32`, `uid_t`, `qid_t`.
    pub const UINT: Self = Self::new(32, false);
    /// `short`.
    pub const SHORT: Self = Self::new(16, true);
    /// `unsigned short`, `umode_t`.
    pub const USHORT: Self = Self::new(16, false);
    /// `signed char`, `char`.
    pub const CHAR: Self = Self::new(8, true);
    /// `unsigned char`.
    pub const UCHAR: Self = Self::new(8, false);

    const fn new(bits: u32, signed: bool) -> Self {
        Self { bits, signed }
    }

    /// The bits of `register` the kernel reads for this type, zero-extended:
    /// the value a printer must start from. A signed type's printer
    /// sign-extends from [`ArgType::bits`] itself, so that a flags word
    /// declared `int` still shows as 32 bits in hex.
    pub const fn read(self, register: u64) -> u64 {
        if self.bits >= 64 {
            register
        } else {
            register & ((1 << self.bits) - 1)
        }
    }
}

/// The parameters the running kernel's `SYSCALL_DEFINE` of `call`
/// declares (name, C type, width), if the call has trace-event metadata.
pub fn declared(call: &str) -> Option<&'static [Declared]> {
    SYSCALL_ARGS
        .binary_search_by(|(name, _)| name.as_bytes().cmp(call.as_bytes()))
        .ok()
        .map(|i| SYSCALL_ARGS[i].1)
}

/// The argument registers of a call as the kernel reads them: each one cut
/// to its declared type's width. `register_bits` is what the caller's
/// registers hold: 64, or 32 for an i386 call (through an entry point with
/// the x86_64 call's parameters), which only types narrower than 32 bits
/// cut.
pub fn as_declared(call: &str, register_bits: u32, args: [u64; 6]) -> [u64; 6] {
    match declared(call) {
        Some(params) => cut_to(params, register_bits, args),
        None => args,
    }
}

/// [`as_declared`] with the call's parameters already found.
pub fn cut_to(params: &[Declared], register_bits: u32, mut args: [u64; 6]) -> [u64; 6] {
    for (arg, &(_, _, ty)) in args.iter_mut().zip(params) {
        if ty.bits < register_bits {
            *arg = ty.read(*arg);
        }
    }
    args
}
