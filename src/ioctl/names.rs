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

use super::defs::{Copied, Def, Family, Real};
use super::gen_i386;
use super::gen_x86_64;
use crate::kernel::Arch;

/// One architecture's generated table.
#[derive(Debug)]
pub struct Table {
    /// Its requests, sorted by code and then name.
    pub defs: &'static [Def],
    /// The requests with parameters in their codes, sorted by key.
    pub families: &'static [Family],
    /// The headers, by [`Def`]'s index.
    headers: &'static [&'static str],
    /// What the kernel copies for the requests whose header does not say
    /// it, by [`Def`]'s index.
    reals: &'static [Real],
    /// Which headers it was generated from (`linux-libc-dev 6.1.187-1`).
    pub source: &'static str,
    /// The architecture, as `--explain-ioctl` names it.
    pub arch: &'static str,
}

static X86_64: Table = Table {
    defs: gen_x86_64::DEFS,
    families: gen_x86_64::FAMILIES,
    headers: gen_x86_64::HEADERS,
    reals: gen_x86_64::REAL,
    source: gen_x86_64::SOURCE,
    arch: "x86_64",
};

static I386: Table = Table {
    defs: gen_i386::DEFS,
    families: gen_i386::FAMILIES,
    headers: gen_i386::HEADERS,
    reals: gen_i386::REAL,
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

    /// The request with parameters `code` is, and its text:
    /// `EVIOCGNAME(256)`, `EVIOCGBIT(1, 96)`.
    pub fn family(&self, code: u32) -> Option<(&'static Family, String)> {
        let key = code & 0xc000_ff00;
        let start = self.families.partition_point(|f| f.key < key);
        self.families[start..]
            .iter()
            .take_while(|f| f.key == key)
            .find_map(|f| f.params_of(code).map(|args| (f, f.call_text(args))))
    }

    /// The request called `name`, if the headers define it.
    pub fn by_name(&self, name: &str) -> Option<&'static Def> {
        self.defs.iter().find(|d| d.name == name)
    }

    /// What the kernel copies for `def` where its header's type and code do
    /// not say it (FS_IOC_GETFLAGS: an `int`, not a `long`).
    pub fn real(&self, def: &Def) -> Option<&'static Real> {
        def.real.map(|i| &self.reals[i as usize])
    }

    /// The header `def` comes from (`linux/fs.h`).
    pub fn header(&self, def: &Def) -> &'static str {
        self.headers[def.header as usize]
    }

    /// The header a request with parameters comes from.
    pub fn family_header(&self, f: &Family) -> &'static str {
        self.headers[f.header as usize]
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

/// How a request's argument travels, as the kernel copies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Argument {
    /// What is copied: the header's type at the code's size, or what
    /// [`Real`] says.
    pub copied: Copied,
    /// Which way, as `_IOC_DIR` bits.
    pub dir: u64,
}

/// How the argument of `code`, made through `arch` on an fd opened on
/// `path`, travels: what the kernel copies (the header's type, the type a
/// request with parameters takes, or the exception the table records) and
/// which way. `None` when no header names the code, it carries no typed
/// argument, or the requests the fd leaves ([`requests`]) disagree.
pub fn argument(arch: Arch, code: u32, path: Option<&str>) -> Option<Argument> {
    let t = table(arch);
    let one = |d: &Def| -> Option<Argument> {
        if let Some(real) = t.real(d) {
            return Some(Argument {
                copied: real.copied,
                dir: real.dir as u64,
            });
        }
        (!d.arg.is_empty()).then_some(Argument {
            copied: Copied::Pointee(d.arg, ((code >> 16) & 0x3fff) as u16),
            dir: (code >> 30) as u64 & 3,
        })
    };
    let (family, defs) = requests(arch, code, path);
    let Some(def) = defs.first() else {
        // A request with parameters that leave the size alone has one
        // type (`EVIOCGABS(ABS_X)`: `struct input_absinfo`).
        let (f, _) = family?;
        return (!f.arg.is_empty()).then_some(Argument {
            copied: Copied::Pointee(f.arg, ((code >> 16) & 0x3fff) as u16),
            dir: (code >> 30) as u64 & 3,
        });
    };
    let first = one(def)?;
    let same = defs.iter().all(|d| one(d) == Some(first));
    // The request with parameters too, where it names the code beside
    // plain ones: the type must be the same.
    let family_same =
        family.is_none_or(|(f, _)| matches!(first.copied, Copied::Pointee(ty, _) if ty == f.arg));
    (same && family_same).then_some(first)
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
/// belongs to, the ones from that subsystem's headers; when the path says
/// nothing (fd -1, a regular file), the ones of general subsystems over
/// those of a single vendor's driver ([`vendor`]); otherwise all.
pub fn pick(arch: Arch, code: u32, path: Option<&str>) -> &'static [Def] {
    let t = table(arch);
    let defs = t.lookup(code);
    if defs.len() < 2 {
        return defs;
    }
    let hints = path.and_then(headers_for_path);
    let fits = |d: &Def| match hints {
        Some(hints) => hints.iter().any(|h| t.header(d).starts_with(h)),
        None => !vendor(t.header(d)),
    };
    // The matches are contiguous only by luck; keep the slice form by
    // choosing the single match, else everything.
    let mut matching = defs.iter().filter(|d| fits(d));
    match (matching.next(), matching.next()) {
        (Some(one), None) => std::slice::from_ref(one),
        _ => defs,
    }
}

/// Headers of drivers for one vendor's device (or one hypervisor's guest
/// device) that reuse a general subsystem's type letter: VirtualBox's
/// guest driver numbers its requests in V4L2's `'V'` (`VBG_IOCTL_
/// VMMDEV_REQUEST(64)` is `VIDIOC_ENUM_FMT`'s code, `VBG_IOCTL_VMMDEV_
/// REQUEST_BIG` is `VT_GETSTATE`'s), `misc/`'s accelerators (habanalabs,
/// HiSilicon's uacce) in hidraw's `'H'`. Where no path decides, a program
/// is far likelier to be talking to the general subsystem, so these yield
/// to it (and are shown only when every meaning is a vendor's); an fd open
/// on the driver's own device still names them.
const VENDOR_HEADERS: &[&str] = &["linux/vboxguest.h", "misc/"];

/// Whether `header` is a single vendor's driver ([`VENDOR_HEADERS`]).
fn vendor(header: &str) -> bool {
    VENDOR_HEADERS.iter().any(|v| header.starts_with(v))
}

/// The headers (prefixes) whose requests an fd on `path` takes.
fn headers_for_path(path: &str) -> Option<&'static [&'static str]> {
    // A terminal takes the tty requests and, on a virtual console, the
    // console's (`VT_GETSTATE`, `KDGKBMODE`).
    const TTY: &[&str] = &[
        "asm-generic/ioctls.h",
        "asm/ioctls.h",
        "linux/vt.h",
        "linux/kd.h",
    ];
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
        ("/dev/vboxguest", &["linux/vboxguest.h"]),
        ("/dev/vboxuser", &["linux/vboxguest.h"]),
        ("/dev/usb/hiddev", &["linux/hiddev.h"]),
        ("/dev/snd/", &["sound/", "linux/soundcard.h"]),
        ("/dev/dsp", &["linux/soundcard.h"]),
        ("/dev/mixer", &["linux/soundcard.h"]),
        ("/dev/sequencer", &["linux/soundcard.h"]),
        ("/dev/video", &["linux/videodev2.h"]),
        ("/dev/v4l-subdev", &["linux/v4l2-subdev.h"]),
        ("/dev/dri/", &["drm/"]),
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

/// The requests `code` is on an fd opened on `path`: the request with
/// parameters it is one of, if any, and the plain requests [`pick`]
/// leaves. Where the fd's path says which subsystem it belongs to and only
/// the request with parameters or only the plain ones come from it, those
/// alone (`/dev/video0`: `VIDIOC_ENUM_FMT`, not also
/// `VBG_IOCTL_VMMDEV_REQUEST(64)`); where no path decides, a general
/// subsystem's over a vendor driver's ([`VENDOR_HEADERS`]), and a vendor
/// driver's request with parameters not at all: it takes every size at
/// its number, so it would name any code of the general subsystem's type
/// letter (`_IOWR('V', 0x6, 32)`, V4L2's retired VIDIOC_G_MPEGCOMP, is
/// also `VBG_IOCTL_HGCM_CALL_32(32)`), which only the driver's own device
/// makes likely.
pub fn requests(
    arch: Arch,
    code: u32,
    path: Option<&str>,
) -> (Option<(&'static Family, String)>, &'static [Def]) {
    let t = table(arch);
    let mut defs = pick(arch, code, path);
    let hints = path.and_then(headers_for_path);
    let mut family = t
        .family(code)
        .filter(|(f, _)| hints.is_some() || !vendor(t.family_header(f)));
    if let (Some((f, _)), [_, ..]) = (&family, defs) {
        let fits = |header: &str| match hints {
            Some(hints) => hints.iter().any(|h| header.starts_with(h)),
            None => !vendor(header),
        };
        let family_fits = fits(t.family_header(f));
        let defs_fit = defs.iter().any(|d| fits(t.header(d)));
        match (family_fits, defs_fit) {
            (true, false) => defs = &[],
            (false, true) => family = None,
            _ => {}
        }
    }
    // A request its header names through the family (`SOUND_MIXER_READ_
    // VOLUME` is `MIXER_READ(SOUND_MIXER_VOLUME)`) is called by its name.
    if let Some((f, _)) = &family
        && defs.iter().any(|d| t.header(d) == t.family_header(f))
    {
        family = None;
    }
    (family, defs)
}

/// Every name the headers give `code` on an fd opened on `path`, as
/// strace prints them: the request with parameters first
/// (`EVIOCGNAME(256)`), then the plain requests, joined with ` or `; the
/// ones [`requests`] leaves. `None` when no header names the code.
pub fn name(arch: Arch, code: u32, path: Option<&str>) -> Option<String> {
    match requests(arch, code, path) {
        (None, []) => None,
        (None, defs) => Some(joined(defs)),
        (Some((_, text)), []) => Some(text),
        (Some((_, text)), defs) => Some(format!("{text} or {}", joined(defs))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ioctl::defs::Macro;

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
    fn families_name_their_parameters() {
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
        // EVIOCGBIT(EV_KEY, 96): the number and the size are parameters.
        let bit = name(Arch::X86_64, 0x8060_4521, None);
        assert_eq!(bit.as_deref(), Some("EVIOCGBIT(EV_KEY, 96)"));
        // EVIOCGABS(ABS_Y) = _IOR('E', 0x40 + 1, struct input_absinfo)
        let abs = name(Arch::X86_64, 0x8018_4541, None);
        assert_eq!(abs.as_deref(), Some("EVIOCGABS(ABS_Y)"));
        // An unnamed value prints as a number.
        assert_eq!(
            name(Arch::X86_64, 0x8018_457e, None).as_deref(),
            Some("EVIOCGABS(62)")
        );
        let bit = table(Arch::X86_64)
            .families
            .iter()
            .find(|f| f.name == "EVIOCGBIT")
            .unwrap();
        assert_eq!(bit.code(&[1, 96]), Some(0x8060_4521));
        assert_eq!(bit.code(&[32, 96]), None);
    }

    #[test]
    fn the_fd_picks_between_a_family_and_plain_requests() {
        // _IOWR('V', 2, struct v4l2_fmtdesc) is also VBG_IOCTL_VMMDEV_REQUEST(64).
        let enum_fmt = table(Arch::X86_64).by_name("VIDIOC_ENUM_FMT").unwrap().code;
        assert_eq!(
            name(Arch::X86_64, enum_fmt, None).as_deref(),
            Some("VIDIOC_ENUM_FMT")
        );
        // VirtualBox's device names its own request.
        assert_eq!(
            name(Arch::X86_64, enum_fmt, Some("/dev/vboxguest")).as_deref(),
            Some("VBG_IOCTL_VMMDEV_REQUEST(64)")
        );
        // A retired V4L2 number is no VirtualBox request on fd -1 (strace's
        // ioctl_v4l2 makes them: `_IOC(_IOC_READ|_IOC_WRITE, 0x56, 0x6, 0x20)`).
        assert_eq!(name(Arch::X86_64, 0xc020_5606, None), None);
        assert_eq!(
            name(Arch::X86_64, 0xc020_5606, Some("/dev/vboxuser")).as_deref(),
            Some("VBG_IOCTL_HGCM_CALL_32(32)")
        );
        // VT_GETSTATE shares 0x5603 with VBG_IOCTL_VMMDEV_REQUEST_BIG.
        let state = table(Arch::X86_64).by_name("VT_GETSTATE").unwrap().code;
        for path in [None, Some("/dev/tty1")] {
            assert_eq!(
                name(Arch::X86_64, state, path).as_deref(),
                Some("VT_GETSTATE")
            );
        }
        // Two general subsystems stay ambiguous without a path.
        let usage = table(Arch::X86_64).by_name("HIDIOCGUSAGE").unwrap().code;
        assert_eq!(
            name(Arch::X86_64, usage, None).as_deref(),
            Some("HIDIOCSOUTPUT(24) or HIDIOCGUSAGE")
        );
        assert_eq!(
            name(Arch::X86_64, enum_fmt, Some("/dev/video0")).as_deref(),
            Some("VIDIOC_ENUM_FMT")
        );
        // HIDIOCSOUTPUT(24) (hidraw) is HIDIOCGUSAGE's code (hiddev).
        let usage = table(Arch::X86_64).by_name("HIDIOCGUSAGE").unwrap().code;
        assert_eq!(
            name(Arch::X86_64, usage, Some("/dev/hidraw0")).as_deref(),
            Some("HIDIOCSOUTPUT(24)")
        );
        assert_eq!(
            name(Arch::X86_64, usage, Some("/dev/usb/hiddev0")).as_deref(),
            Some("HIDIOCGUSAGE")
        );
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
