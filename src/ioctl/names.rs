//! Every ioctl request the Linux UAPI headers define, by code: the lookup
//! over the generated tables (`gen_x86_64.rs`, `gen_i386.rs`, written by
//! `tools/gen_ioctls.py`, never by hand).
//!
//! The hand-written groups (usbmon, tty, ...) decode arguments; these tables
//! only name requests and record each one's argument type as the header
//! spells it (`struct fiemap`), for the dispatcher, `--explain-ioctl`,
//! `--list-ioctls` and the BTF decoder. Each table is sorted by code, so a
//! lookup is a binary search. One code can mean several requests (drivers
//! reuse numbers); [`pick`] lets the fd choose among them, as a person would.

use super::gen_i386;
use super::gen_x86_64;
use crate::kernel::Arch;

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

/// One request in a generated table.
#[derive(Debug)]
pub struct Def {
    /// The code, as the architecture's programs pass it.
    pub code: u32,
    /// The macro's name in its header.
    pub name: &'static str,
    /// Index of its header in the table's `HEADERS`.
    header: u16,
    /// How the header writes it.
    pub mac: Macro,
    /// The argument's C type, the macro's third argument (`struct fiemap`,
    /// `__u64`, `int`); "" for `_IO`, `_IOC` and plain numbers.
    pub arg: &'static str,
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
        }
    }
}

/// A request whose size is its parameter (`EVIOCGNAME(len)`,
/// `SPI_IOC_MESSAGE(N)`): one name for every size.
#[derive(Debug)]
pub struct Sized {
    /// The code with the size bits clear.
    pub key: u32,
    /// The macro's name.
    pub name: &'static str,
    /// Index of its header in the table's `HEADERS`.
    header: u16,
    /// Bytes per unit of the parameter (1 for a length; the element size
    /// for an array of structs).
    pub unit: u32,
}

impl Sized {
    /// A table entry (used by the generated files).
    pub const fn new(key: u32, name: &'static str, header: u16, unit: u32) -> Sized {
        Sized {
            key,
            name,
            header,
            unit,
        }
    }
}

/// `_IOC_SIZE`'s bits in a code.
const SIZE_BITS: u32 = 0x3fff << 16;

/// One architecture's generated table.
#[derive(Debug)]
pub struct Table {
    /// Its requests, sorted by code and then name.
    pub defs: &'static [Def],
    /// The requests whose size is a parameter, sorted by key.
    pub sized: &'static [Sized],
    /// The headers, by [`Def`]'s index.
    headers: &'static [&'static str],
    /// Which headers it was generated from (`linux-libc-dev 6.1.187-1`).
    pub source: &'static str,
    /// The architecture, as `--explain-ioctl` names it.
    pub arch: &'static str,
}

static X86_64: Table = Table {
    defs: gen_x86_64::DEFS,
    sized: gen_x86_64::SIZED,
    headers: gen_x86_64::HEADERS,
    source: gen_x86_64::SOURCE,
    arch: "x86_64",
};

static I386: Table = Table {
    defs: gen_i386::DEFS,
    sized: gen_i386::SIZED,
    headers: gen_i386::HEADERS,
    source: gen_i386::SOURCE,
    arch: "i386",
};

/// The table for calls made through `arch`. x32 programs use the x86_64
/// codes (their structs mostly have the 64-bit layout: `__u64` is aligned
/// to 8), which is what the kernel's x32 compat path expects too.
pub fn table(arch: Arch) -> &'static Table {
    match arch {
        Arch::I386 => &I386,
        Arch::X86_64 | Arch::X32 => &X86_64,
    }
}

/// Both tables, x86_64 first.
pub fn tables() -> [&'static Table; 2] {
    [&X86_64, &I386]
}

impl Table {
    /// Every request with this code (usually one, sometimes several, often
    /// none), in name order.
    pub fn lookup(&self, code: u32) -> &'static [Def] {
        let defs = self.defs;
        let start = defs.partition_point(|d| d.code < code);
        let len = defs[start..].partition_point(|d| d.code == code);
        &defs[start..start + len]
    }

    /// The parameterised request `code` is, with its parameter:
    /// (`EVIOCGNAME`, 256) for `EVIOCGNAME(256)`.
    pub fn sized(&self, code: u32) -> Option<(&'static Sized, u32)> {
        let key = code & !SIZE_BITS;
        let i = self.sized.partition_point(|s| s.key < key);
        let s = self.sized.get(i).filter(|s| s.key == key)?;
        let size = (code & SIZE_BITS) >> 16;
        size.is_multiple_of(s.unit).then_some((s, size / s.unit))
    }

    /// The request called `name`, if the headers define it.
    pub fn by_name(&self, name: &str) -> Option<&'static Def> {
        self.defs.iter().find(|d| d.name == name)
    }

    /// The header `def` comes from (`linux/fs.h`).
    pub fn header(&self, def: &Def) -> &'static str {
        self.headers[def.header as usize]
    }

    /// The header a parameterised request comes from.
    pub fn sized_header(&self, s: &Sized) -> &'static str {
        self.headers[s.header as usize]
    }

    /// The group `def` is listed under by `--list-ioctls`: its header
    /// without `linux/` and `.h` (`fs`, `kvm`, `sound/asound`).
    pub fn group(&self, def: &Def) -> &'static str {
        let h = self.header(def);
        let h = h.strip_suffix(".h").unwrap_or(h);
        h.strip_prefix("linux/").unwrap_or(h)
    }
}

/// The argument type of the request `code` made through `arch`, as its
/// header spells it (`struct uffdio_api`): `None` when no header names the
/// code, the code carries no typed argument, or the requests sharing the
/// code disagree about it.
pub fn arg_type(arch: Arch, code: u32) -> Option<&'static str> {
    let defs = table(arch).lookup(code);
    let first = defs.first()?.arg;
    (!first.is_empty() && defs.iter().all(|d| d.arg == first)).then_some(first)
}

/// [`arg_type`] on an fd opened on `path`: where several requests share
/// the code, the type of the one the fd picks (see [`pick`]).
pub fn arg_type_on(arch: Arch, code: u32, path: Option<&str>) -> Option<&'static str> {
    let defs = pick(arch, code, path);
    let first = defs.first()?.arg;
    (!first.is_empty() && defs.iter().all(|d| d.arg == first)).then_some(first)
}

/// The requests `code` may be on an fd opened on `path`: when several
/// requests share the code and the fd's path says which subsystem it
/// belongs to, the ones from that subsystem's headers; otherwise all.
pub fn pick(arch: Arch, code: u32, path: Option<&str>) -> &'static [Def] {
    let t = table(arch);
    let defs = t.lookup(code);
    if defs.len() < 2 {
        return defs;
    }
    let Some(hints) = path.and_then(headers_for_path) else {
        return defs;
    };
    let fits = |d: &Def| hints.iter().any(|h| t.header(d).starts_with(h));
    // The matches are contiguous only by luck; keep the slice form by
    // choosing the single match, else everything.
    let mut matching = defs.iter().filter(|d| fits(d));
    match (matching.next(), matching.next()) {
        (Some(one), None) => std::slice::from_ref(one),
        _ => defs,
    }
}

/// The headers (prefixes) whose requests an fd on `path` takes.
fn headers_for_path(path: &str) -> Option<&'static [&'static str]> {
    const TTY: &[&str] = &["asm-generic/ioctls.h", "asm/ioctls.h"];
    static BY_PREFIX: &[(&str, &[&str])] = &[
        (
            "socket:",
            &[
                "asm-generic/sockios.h",
                "linux/sockios.h",
                "linux/wireless.h",
            ],
        ),
        ("/dev/pts/", TTY),
        ("/dev/tty", TTY),
        ("/dev/ptmx", TTY),
        ("/dev/console", TTY),
        (
            "/dev/input/",
            &["linux/input.h", "linux/joystick.h", "linux/uinput.h"],
        ),
        ("/dev/uinput", &["linux/uinput.h"]),
        ("/dev/hidraw", &["linux/hidraw.h"]),
        ("/dev/usb/hiddev", &["linux/hiddev.h"]),
        ("/dev/snd/", &["sound/", "linux/soundcard.h"]),
        ("/dev/dsp", &["linux/soundcard.h"]),
        ("/dev/mixer", &["linux/soundcard.h"]),
        ("/dev/sequencer", &["linux/soundcard.h"]),
        ("/dev/video", &["linux/videodev2.h", "linux/v4l2-"]),
        ("/dev/media", &["linux/media.h"]),
        ("/dev/kvm", &["linux/kvm.h"]),
        ("anon_inode:kvm", &["linux/kvm.h"]),
        ("/dev/loop", &["linux/loop.h", "linux/fs.h"]),
        ("/dev/rtc", &["linux/rtc.h"]),
        ("/dev/watchdog", &["linux/watchdog.h"]),
        ("/dev/net/tun", &["linux/if_tun.h"]),
        ("/dev/gpiochip", &["linux/gpio.h"]),
        ("/dev/spidev", &["linux/spi/"]),
        ("/dev/i2c-", &["linux/i2c-dev.h"]),
        ("/dev/fb", &["linux/fb.h"]),
        ("/dev/sg", &["scsi/"]),
        ("/dev/sr", &["linux/cdrom.h", "scsi/"]),
        ("/dev/userfaultfd", &["linux/userfaultfd.h"]),
        ("anon_inode:[userfaultfd]", &["linux/userfaultfd.h"]),
        ("anon_inode:[perf_event]", &["linux/perf_event.h"]),
        ("/proc/", &["linux/nsfs.h", "linux/fs.h"]),
        ("net:[", &["linux/nsfs.h"]),
    ];
    BY_PREFIX
        .iter()
        .find(|(prefix, _)| path.starts_with(prefix))
        .map(|&(_, hints)| hints)
}

/// The names of `defs` as strace joins them: `A or B`.
pub fn joined(defs: &[Def]) -> String {
    let names: Vec<&str> = defs.iter().map(|d| d.name).collect();
    names.join(" or ")
}

/// Every name the headers give `code` on an fd opened on `path`, as
/// strace prints them: a parameterised request first (`EVIOCGNAME(256)`),
/// then the requests [`pick`] leaves, joined with ` or `. `None` when no
/// header names the code.
pub fn name(arch: Arch, code: u32, path: Option<&str>) -> Option<String> {
    let defs = pick(arch, code, path);
    let sized = table(arch).sized(code);
    match (sized, defs) {
        (None, []) => None,
        (None, defs) => Some(joined(defs)),
        (Some((s, n)), []) => Some(format!("{}({n})", s.name)),
        (Some((s, n)), defs) => Some(format!("{}({n}) or {}", s.name, joined(defs))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted_and_found() {
        for t in tables() {
            assert!(t.defs.len() > 2000, "{} has {}", t.arch, t.defs.len());
            assert!(
                t.defs
                    .windows(2)
                    .all(|w| (w[0].code, w[0].name) < (w[1].code, w[1].name))
            );
            for d in t.defs {
                assert!(t.lookup(d.code).iter().any(|e| std::ptr::eq(e, d)));
            }
        }
    }

    #[test]
    fn codes_and_types_per_arch() {
        let x = table(Arch::X86_64).by_name("BLKGETSIZE64").unwrap();
        assert_eq!((x.code, x.arg, x.mac), (0x8008_1272, "size_t", Macro::Ior));
        // size_t is 4 bytes on i386: a different code.
        let i = table(Arch::I386).by_name("BLKGETSIZE64").unwrap();
        assert_eq!(i.code, 0x8004_1272);
        assert_eq!(
            arg_type(Arch::X86_64, 0xc018_aa3f),
            Some("struct uffdio_api")
        );
        assert_eq!(arg_type(Arch::X86_64, 0x0000_b701), None);
        // HIDIOCGRDESCSIZE (hidraw) and HIDIOCGVERSION (hiddev): both int.
        assert_eq!(arg_type(Arch::X86_64, 0x8004_4801), Some("int"));
        // 0x5402: TCSETS (no type) or SNDCTL_TMR_START (no type either).
        assert_eq!(arg_type_on(Arch::X86_64, 0x5402, Some("/dev/pts/0")), None);
        let fiemap = arg_type_on(Arch::I386, 0xc020_660b, Some("/tmp/f"));
        assert_eq!(fiemap, Some("struct fiemap"));
        assert_eq!(table(Arch::X86_64).group(x), "fs");
    }

    #[test]
    fn sized_requests_name_their_parameter() {
        // EVIOCGNAME(256) = _IOC(_IOC_READ, 'E', 0x06, 256)
        assert_eq!(
            name(Arch::X86_64, 0x8100_4506, None).as_deref(),
            Some("EVIOCGNAME(256)")
        );
        // SPI_IOC_MESSAGE(2): two 32-byte struct spi_ioc_transfer
        assert_eq!(
            name(Arch::I386, 0x4040_6b00, None).as_deref(),
            Some("SPI_IOC_MESSAGE(2)")
        );
        assert_eq!(name(Arch::X86_64, 0x4041_6b00, None), None);
    }

    #[test]
    fn the_fd_picks_among_shared_codes() {
        // 0x5402 is TCSETS and the OSS timer's SNDCTL_TMR_START.
        let all = pick(Arch::X86_64, 0x5402, None);
        assert_eq!(joined(all), "SNDCTL_TMR_START or TCSETS");
        assert_eq!(
            joined(pick(Arch::X86_64, 0x5402, Some("/dev/pts/3"))),
            "TCSETS"
        );
        assert_eq!(
            joined(pick(Arch::X86_64, 0x5402, Some("/dev/snd/timer"))),
            "SNDCTL_TMR_START"
        );
    }
}
