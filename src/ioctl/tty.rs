//! Terminal ioctls (`<asm-generic/ioctls.h>`, `<asm-generic/termbits.h>`):
//! termios get/set, window size, process groups, controlling terminal,
//! modem lines, line discipline, flow and flush control, pty peers.
//! Most codes predate `_IOC` and carry no direction bits.

use super::raw::{u8_at, u16_at, u32_at};
use super::{Arg, IF_IN, IF_OUT, IoctlGroup, Layout, Request, field};
use crate::decode::OPEN_FLAGS;
use crate::format::{FlagDef, Naming, Printer, flag};

/// `struct termios` as the kernel's TCGETS uses it (36 bytes).
pub static TERMIOS: Layout = Layout {
    name: "termios",
    size: 36,
    fields: &[
        field("c_iflag", "tcflag_t", 0, 4),
        field("c_oflag", "tcflag_t", 4, 4),
        field("c_cflag", "tcflag_t", 8, 4),
        field("c_lflag", "tcflag_t", 12, 4),
        field("c_line", "cc_t", 16, 1),
        field("c_cc", "cc_t[19]", 17, 19),
    ],
};

/// `struct winsize`
pub static WINSIZE: Layout = Layout {
    name: "winsize",
    size: 8,
    fields: &[
        field("ws_row", "unsigned short", 0, 2),
        field("ws_col", "unsigned short", 2, 2),
        field("ws_xpixel", "unsigned short", 4, 2),
        field("ws_ypixel", "unsigned short", 6, 2),
    ],
};

const TCGETS: u32 = 0x5401;
const TCSETS: u32 = 0x5402;
const TCSETSW: u32 = 0x5403;
const TCSETSF: u32 = 0x5404;
const TIOCGWINSZ: u32 = 0x5413;
const TIOCSWINSZ: u32 = 0x5414;

static REQUESTS: &[Request] = &[
    Request::legacy(TCGETS, "TCGETS", IF_IN, Arg::Struct(&TERMIOS)),
    Request::legacy(TCSETS, "TCSETS", IF_OUT, Arg::Struct(&TERMIOS)),
    Request::legacy(TCSETSW, "TCSETSW", IF_OUT, Arg::Struct(&TERMIOS)),
    Request::legacy(TCSETSF, "TCSETSF", IF_OUT, Arg::Struct(&TERMIOS)),
    Request::legacy(0x5409, "TCSBRK", 0, Arg::Value),
    Request::legacy(0x540A, "TCXONC", 0, Arg::ValueEnum(TCXONC_ACTIONS)),
    Request::legacy(0x540B, "TCFLSH", 0, Arg::ValueEnum(TCFLSH_QUEUES)),
    Request::legacy(0x540C, "TIOCEXCL", 0, Arg::None),
    Request::legacy(0x540D, "TIOCNXCL", 0, Arg::None),
    Request::legacy(0x540E, "TIOCSCTTY", 0, Arg::Value),
    Request::legacy(0x540F, "TIOCGPGRP", IF_IN, Arg::Int),
    Request::legacy(0x5410, "TIOCSPGRP", IF_OUT, Arg::Int),
    Request::legacy(0x5411, "TIOCOUTQ", IF_IN, Arg::Int),
    Request::legacy(0x5412, "TIOCSTI", 0, Arg::Char),
    Request::legacy(TIOCGWINSZ, "TIOCGWINSZ", IF_IN, Arg::Struct(&WINSIZE)),
    Request::legacy(TIOCSWINSZ, "TIOCSWINSZ", IF_OUT, Arg::Struct(&WINSIZE)),
    Request::legacy(0x5415, "TIOCMGET", IF_IN, Arg::IntFlags(MODEM_BITS)),
    Request::legacy(0x5416, "TIOCMBIS", IF_OUT, Arg::IntFlags(MODEM_BITS)),
    Request::legacy(0x5417, "TIOCMBIC", IF_OUT, Arg::IntFlags(MODEM_BITS)),
    Request::legacy(0x5418, "TIOCMSET", IF_OUT, Arg::IntFlags(MODEM_BITS)),
    Request::legacy(0x5422, "TIOCNOTTY", 0, Arg::None),
    Request::legacy(0x5423, "TIOCSETD", IF_OUT, Arg::Int),
    Request::legacy(0x5424, "TIOCGETD", IF_IN, Arg::Int),
    Request::legacy(0x5429, "TIOCGSID", IF_IN, Arg::Int),
    Request::new(0x8004_5430, "TIOCGPTN", IF_IN, Arg::Int),
    Request::new(0x4004_5431, "TIOCSPTLCK", IF_OUT, Arg::Int),
    // _IO('T', 0x41): the open flags travel by value; a new fd is returned.
    Request::new(TIOCGPTPEER, "TIOCGPTPEER", 0, Arg::ValueFlags(OPEN_FLAGS)),
];

/// TIOCGPTPEER opens the pty's peer and returns the new fd.
pub const TIOCGPTPEER: u32 = 0x5441;

/// TCXONC's actions (tcflow(3)), from `<asm-generic/termbits-common.h>`.
const TCXONC_ACTIONS: &[(u64, &str)] = &[(0, "TCOOFF"), (1, "TCOON"), (2, "TCIOFF"), (3, "TCION")];

/// TCFLSH's queue selectors (tcflush(3)), from the same header.
const TCFLSH_QUEUES: &[(u64, &str)] = &[(0, "TCIFLUSH"), (1, "TCOFLUSH"), (2, "TCIOFLUSH")];

/// `TIOCM_*` modem lines from `<asm-generic/termios.h>` (TIOCM_CD and
/// TIOCM_RI are other names of CAR and RNG).
const MODEM_BITS: &[FlagDef] = &[
    flag(0x001, "TIOCM_LE"),
    flag(0x002, "TIOCM_DTR"),
    flag(0x004, "TIOCM_RTS"),
    flag(0x008, "TIOCM_ST"),
    flag(0x010, "TIOCM_SR"),
    flag(0x020, "TIOCM_CTS"),
    flag(0x040, "TIOCM_CAR"),
    flag(0x080, "TIOCM_RNG"),
    flag(0x100, "TIOCM_DSR"),
    flag(0x2000, "TIOCM_OUT1"),
    flag(0x4000, "TIOCM_OUT2"),
    flag(0x8000, "TIOCM_LOOP"),
];

/// A multi-bit field's value: `{mask, value, name}`.
const fn field_value(mask: u64, value: u64, name: &'static str) -> FlagDef {
    FlagDef { mask, value, name }
}

/// `c_iflag` bits from `<asm-generic/termbits-common.h>` and `termbits.h`.
const IFLAGS: &[FlagDef] = &[
    flag(0x001, "IGNBRK"),
    flag(0x002, "BRKINT"),
    flag(0x004, "IGNPAR"),
    flag(0x008, "PARMRK"),
    flag(0x010, "INPCK"),
    flag(0x020, "ISTRIP"),
    flag(0x040, "INLCR"),
    flag(0x080, "IGNCR"),
    flag(0x100, "ICRNL"),
    flag(0x200, "IUCLC"),
    flag(0x400, "IXON"),
    flag(0x800, "IXANY"),
    flag(0x1000, "IXOFF"),
    flag(0x2000, "IMAXBEL"),
    flag(0x4000, "IUTF8"),
];

const NLDLY: u64 = 0x100;
const CRDLY: u64 = 0x600;
const TABDLY: u64 = 0x1800;
const BSDLY: u64 = 0x2000;
const VTDLY: u64 = 0x4000;
const FFDLY: u64 = 0x8000;

/// `c_oflag`: the delay fields first, each always named (NL0 is a
/// setting, not an absent flag), then the bits; from `termbits.h`.
const OFLAGS: &[FlagDef] = &[
    field_value(NLDLY, 0, "NL0"),
    field_value(NLDLY, 0x100, "NL1"),
    field_value(CRDLY, 0, "CR0"),
    field_value(CRDLY, 0x200, "CR1"),
    field_value(CRDLY, 0x400, "CR2"),
    field_value(CRDLY, 0x600, "CR3"),
    field_value(TABDLY, 0, "TAB0"),
    field_value(TABDLY, 0x800, "TAB1"),
    field_value(TABDLY, 0x1000, "TAB2"),
    // Also spelled XTABS: expand tabs to spaces.
    field_value(TABDLY, 0x1800, "TAB3"),
    field_value(BSDLY, 0, "BS0"),
    field_value(BSDLY, 0x2000, "BS1"),
    field_value(VTDLY, 0, "VT0"),
    field_value(VTDLY, 0x4000, "VT1"),
    field_value(FFDLY, 0, "FF0"),
    field_value(FFDLY, 0x8000, "FF1"),
    flag(0x01, "OPOST"),
    flag(0x02, "OLCUC"),
    flag(0x04, "ONLCR"),
    flag(0x08, "OCRNL"),
    flag(0x10, "ONOCR"),
    flag(0x20, "ONLRET"),
    flag(0x40, "OFILL"),
    flag(0x80, "OFDEL"),
];

const CBAUD: u64 = 0x100f;
const CSIZE: u64 = 0x30;

/// `c_cflag`: the output speed (CBAUD), the character size (CSIZE), then
/// the bits; from `termbits.h`. The input speed (CIBAUD, the same codes
/// shifted by IBSHIFT) is 0 unless set apart from the output speed; it
/// prints as the leftover number then.
const CFLAGS: &[FlagDef] = &[
    field_value(CBAUD, 0, "B0"),
    field_value(CBAUD, 0x1, "B50"),
    field_value(CBAUD, 0x2, "B75"),
    field_value(CBAUD, 0x3, "B110"),
    field_value(CBAUD, 0x4, "B134"),
    field_value(CBAUD, 0x5, "B150"),
    field_value(CBAUD, 0x6, "B200"),
    field_value(CBAUD, 0x7, "B300"),
    field_value(CBAUD, 0x8, "B600"),
    field_value(CBAUD, 0x9, "B1200"),
    field_value(CBAUD, 0xa, "B1800"),
    field_value(CBAUD, 0xb, "B2400"),
    field_value(CBAUD, 0xc, "B4800"),
    field_value(CBAUD, 0xd, "B9600"),
    field_value(CBAUD, 0xe, "B19200"),
    field_value(CBAUD, 0xf, "B38400"),
    // The speed is in termios2's c_ospeed.
    field_value(CBAUD, 0x1000, "BOTHER"),
    field_value(CBAUD, 0x1001, "B57600"),
    field_value(CBAUD, 0x1002, "B115200"),
    field_value(CBAUD, 0x1003, "B230400"),
    field_value(CBAUD, 0x1004, "B460800"),
    field_value(CBAUD, 0x1005, "B500000"),
    field_value(CBAUD, 0x1006, "B576000"),
    field_value(CBAUD, 0x1007, "B921600"),
    field_value(CBAUD, 0x1008, "B1000000"),
    field_value(CBAUD, 0x1009, "B1152000"),
    field_value(CBAUD, 0x100a, "B1500000"),
    field_value(CBAUD, 0x100b, "B2000000"),
    field_value(CBAUD, 0x100c, "B2500000"),
    field_value(CBAUD, 0x100d, "B3000000"),
    field_value(CBAUD, 0x100e, "B3500000"),
    field_value(CBAUD, 0x100f, "B4000000"),
    field_value(CSIZE, 0, "CS5"),
    field_value(CSIZE, 0x10, "CS6"),
    field_value(CSIZE, 0x20, "CS7"),
    field_value(CSIZE, 0x30, "CS8"),
    flag(0x40, "CSTOPB"),
    flag(0x80, "CREAD"),
    flag(0x100, "PARENB"),
    flag(0x200, "PARODD"),
    flag(0x400, "HUPCL"),
    flag(0x800, "CLOCAL"),
    flag(0x2000_0000, "ADDRB"),
    flag(0x4000_0000, "CMSPAR"),
    flag(0x8000_0000, "CRTSCTS"),
];

/// `c_lflag` bits from `termbits.h`.
const LFLAGS: &[FlagDef] = &[
    flag(0x1, "ISIG"),
    flag(0x2, "ICANON"),
    flag(0x4, "XCASE"),
    flag(0x8, "ECHO"),
    flag(0x10, "ECHOE"),
    flag(0x20, "ECHOK"),
    flag(0x40, "ECHONL"),
    flag(0x80, "NOFLSH"),
    flag(0x100, "TOSTOP"),
    flag(0x200, "ECHOCTL"),
    flag(0x400, "ECHOPRT"),
    flag(0x800, "ECHOKE"),
    flag(0x1000, "FLUSHO"),
    flag(0x4000, "PENDIN"),
    flag(0x8000, "IEXTEN"),
    flag(0x10000, "EXTPROC"),
];

/// The terminal group.
pub struct Tty;

/// The one instance the dispatcher uses.
pub static TTY: Tty = Tty;

impl IoctlGroup for Tty {
    fn name(&self) -> &'static str {
        "tty"
    }

    fn headers(&self) -> &'static [&'static str] {
        &["asm-generic/ioctls.h"]
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, p: &mut Printer, req: &Request, d: &[u8], _phase: u8) -> bool {
        match req.code {
            TCGETS | TCSETS | TCSETSW | TCSETSF => {
                p.flags("c_iflag", u32_at(d, 0) as u64, IFLAGS);
                p.flags("c_oflag", u32_at(d, 4) as u64, OFLAGS);
                p.flags("c_cflag", u32_at(d, 8) as u64, CFLAGS);
                p.flags("c_lflag", u32_at(d, 12) as u64, LFLAGS);
                if p.config().verbose == 0 {
                    return false;
                }
                p.uint("c_line", u8_at(d, 16) as u64);
                p.open("c_cc", "[", Naming::Elements);
                for i in 0..19 {
                    p.hex("", u8_at(d, 17 + i) as u64);
                }
                p.close("]");
                true
            }
            TIOCGWINSZ | TIOCSWINSZ => {
                p.uint("ws_row", u16_at(d, 0) as u64);
                p.uint("ws_col", u16_at(d, 2) as u64);
                p.uint("ws_xpixel", u16_at(d, 4) as u64);
                p.uint("ws_ypixel", u16_at(d, 6) as u64);
                true
            }
            _ => false,
        }
    }
}
