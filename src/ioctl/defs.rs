//! The types the generated ioctl tables are made of: a request ([`Def`]),
//! a request with parameters in its code ([`Family`]), what the kernel
//! really copies where the header does not say ([`Real`]).
//!
//! They sit below both the generated tables (`gen_x86_64.rs`,
//! `gen_i386.rs`, which build their rows with these constructors) and
//! `names.rs`, the lookup over those tables, so neither imports the other's
//! user.

/// How a request's code is written in its header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Macro {
    /// A plain number (`#define TCGETS 0x5401`): older than the macros.
    Hex,
    /// `_IO(type, nr)`: no argument data.
    Io,
    /// `_IOR(type, nr, T)`: the kernel writes a `T`.
    Ior,
    /// `_IOW(type, nr, T)`: the kernel reads a `T`.
    Iow,
    /// `_IOWR(type, nr, T)`: both.
    Iowr,
    /// `_IOC(dir, type, nr, size)` with a size, not a type.
    Ioc,
}

impl Macro {
    /// The macro's C name (`_IOWR`), or "" for a plain number.
    pub fn c_name(self) -> &'static str {
        match self {
            Macro::Hex => "",
            Macro::Io => "_IO",
            Macro::Ior => "_IOR",
            Macro::Iow => "_IOW",
            Macro::Iowr => "_IOWR",
            Macro::Ioc => "_IOC",
        }
    }
}

/// What the kernel copies for a request whose header does not say it
/// (see [`Real`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Copied {
    /// A value of this C type and size (on the table's architecture) at
    /// the pointer the argument is.
    Pointee(&'static str, u16),
    /// A NUL-terminated string at the pointer, of at most this many bytes
    /// with its NUL (0: no limit the kernel states here).
    Str(u16),
    /// Nothing: the argument itself is the number.
    Value,
    /// Memory of no declared type at the pointer.
    Ptr,
}

/// A request whose header's type is not what the kernel copies: what it
/// copies, which way, why, and the kernel source line that proves it
/// (`tools/ioctl_exceptions.py`, applied by the generator; for a header
/// type that is a pointer, the general rule: its pointee).
#[derive(Debug, PartialEq, Eq)]
pub struct Real {
    /// What the kernel copies.
    pub copied: Copied,
    /// Which way, as `_IOC_DIR` bits: 1 program to kernel, 2 back, 3 both.
    pub dir: u8,
    /// Why the header's type is not it.
    pub reason: &'static str,
    /// The kernel source line that shows it ("" for the pointer rule).
    pub proof: &'static str,
}

impl Real {
    /// A table entry (used by the generated files).
    pub const fn new(copied: Copied, dir: u8, reason: &'static str, proof: &'static str) -> Real {
        Real {
            copied,
            dir,
            reason,
            proof,
        }
    }
}

/// One request in a generated table.
#[derive(Debug)]
pub struct Def {
    /// The code, as the architecture's programs pass it.
    pub code: u32,
    /// The macro's name in its header.
    pub name: &'static str,
    /// Index of its header in the table's `HEADERS`.
    pub(super) header: u16,
    /// How the header writes it.
    pub mac: Macro,
    /// The argument's C type, the macro's third argument (`struct fiemap`,
    /// `__u64`, `int`); "" for `_IO`, `_IOC` and plain numbers.
    pub arg: &'static str,
    /// Index in the table's `REAL` of what the kernel really copies,
    /// where `arg` and the code do not say it.
    pub(super) real: Option<u16>,
}

impl Def {
    /// A table entry (used by the generated files).
    pub const fn new(
        code: u32,
        name: &'static str,
        header: u16,
        mac: Macro,
        arg: &'static str,
    ) -> Def {
        Def {
            code,
            name,
            header,
            mac,
            arg,
            real: None,
        }
    }

    /// A table entry whose argument is not what the header's type says:
    /// what the kernel copies is `REAL[real]` (used by the generated files).
    pub const fn real(
        code: u32,
        name: &'static str,
        header: u16,
        mac: Macro,
        arg: &'static str,
        real: u16,
    ) -> Def {
        let mut def = Def::new(code, name, header, mac, arg);
        def.real = Some(real);
        def
    }
}

/// What a [`Family`]'s parameter sets in the code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// The number: `EVIOCGABS(abs)` is number 0x40 + abs; with the names
    /// its values have in the header (`abs` takes `ABS_*`).
    Nr(&'static [(u32, &'static str)]),
    /// The size, in units: `EVIOCGNAME(len)`, `SPI_IOC_MESSAGE(N)`.
    Size,
}

/// A request with parameters in its code (a function-like macro:
/// `EVIOCGNAME(len)`, `EVIOCGBIT(ev, len)`): one name for many codes.
#[derive(Debug)]
pub struct Family {
    /// The code's direction and type bits.
    pub key: u32,
    /// The macro's name.
    pub name: &'static str,
    /// Index of its header in the table's `HEADERS`.
    pub(super) header: u16,
    /// The number; with a [`Param::Nr`], the number the parameter 0 gives.
    pub nr: u8,
    /// With a [`Param::Nr`], where the family's numbers end (exclusive).
    pub nr_end: u16,
    /// The size; with a [`Param::Size`], the bytes per unit of it.
    pub size: u16,
    /// The parameters in the macro's order.
    pub params: &'static [Param],
    /// The argument's C type where the parameters leave the size alone
    /// (`EVIOCGABS(abs)`: `struct input_absinfo`); "" where a parameter
    /// is the size (the argument is that many bytes).
    pub arg: &'static str,
}

impl Family {
    /// A table entry (used by the generated files): one row of the
    /// generated table, each column a field, so the arguments are many.
    #[allow(clippy::too_many_arguments)]
    pub const fn new(
        key: u32,
        name: &'static str,
        header: u16,
        nr: u8,
        nr_end: u16,
        size: u16,
        params: &'static [Param],
        arg: &'static str,
    ) -> Family {
        Family {
            key,
            name,
            header,
            nr,
            nr_end,
            size,
            params,
            arg,
        }
    }

    /// The parameters that make `code`, if it is one of the family's.
    pub(super) fn params_of(&self, code: u32) -> Option<[u32; 2]> {
        let (nr, size) = (code & 0xff, (code & SIZE_BITS) >> 16);
        let mut out = [0; 2];
        let (mut nr_ok, mut size_ok) = (nr == self.nr as u32, size == self.size as u32);
        for (i, p) in self.params.iter().enumerate() {
            match p {
                Param::Nr(_) => {
                    nr_ok = (self.nr as u32..self.nr_end as u32).contains(&nr);
                    out[i] = nr.wrapping_sub(self.nr as u32);
                }
                Param::Size => {
                    size_ok = size.is_multiple_of(self.size as u32);
                    out[i] = size / self.size as u32;
                }
            }
        }
        (nr_ok && size_ok).then_some(out)
    }

    /// The code for parameters `args` (in the macro's order), if they fit.
    pub fn code(&self, args: &[u32]) -> Option<u32> {
        if args.len() != self.params.len() {
            return None;
        }
        let (mut nr, mut size) = (self.nr as u32, self.size as u32);
        for (p, &a) in self.params.iter().zip(args) {
            match p {
                Param::Nr(_) => nr = nr.checked_add(a).filter(|&n| n < self.nr_end as u32)?,
                Param::Size => size = a.checked_mul(self.size as u32).filter(|&s| s < 1 << 14)?,
            }
        }
        Some(self.key | size << 16 | nr)
    }

    /// `EVIOCGBIT(EV_KEY, 96)`: the family's name with the parameters
    /// that make `code`, by name where the header names them.
    pub fn call_text(&self, args: [u32; 2]) -> String {
        let args: Vec<String> = self
            .params
            .iter()
            .zip(args)
            .map(|(p, a)| match p {
                Param::Nr(_) if a == 0 && ZERO_IS_NO_NAME.contains(&self.name) => a.to_string(),
                Param::Nr(names) => match names.binary_search_by_key(&a, |&(v, _)| v) {
                    Ok(i) => names[i].1.to_string(),
                    Err(_) => a.to_string(),
                },
                Param::Size => a.to_string(),
            })
            .collect();
        format!("{}({})", self.name, args.join(", "))
    }
}

/// Families whose number parameter 0 is not the header's name for 0:
/// `EVIOCGBIT(0, len)` asks for the bitmap of event types the device
/// has, not for EV_SYN's codes (the kernel's `evdev_do_ioctl` hands type 0
/// to `handle_eventbits` with `dev->evbit`), so it prints as `0`, as
/// strace does.
const ZERO_IS_NO_NAME: &[&str] = &["EVIOCGBIT"];

/// `_IOC_SIZE`'s bits in a code.
const SIZE_BITS: u32 =
    crate::abi::xlat::ioctl::_IOC_SIZEMASK << crate::abi::xlat::ioctl::_IOC_SIZESHIFT;
