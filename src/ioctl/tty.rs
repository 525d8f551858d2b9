//! Terminal ioctls (`<asm-generic/ioctls.h>`, `<asm-generic/termbits.h>`):
//! termios get/set (`struct termios`, `struct termios2` with its speeds,
//! the old `struct termio`, the locked termios), window size, process
//! groups, controlling terminal, modem lines, line discipline, flow and
//! flush control, pty peers. Most codes predate `_IOC` and carry no
//! direction bits.

use super::raw::u16_at;
use super::{Arg, IF_IN, IF_OUT, IoctlGroup, Layout, Request, field};
use crate::abi::layout::Field;
use crate::abi::xlat::fs::OPEN_FLAGS;
use crate::abi::xlat::ioctl::{
    TCFLSH, TCGETA, TCGETS, TCGETS2, TCSBRK, TCSETA, TCSETAF, TCSETAW, TCSETS, TCSETS2, TCSETSF,
    TCSETSF2, TCSETSW, TCSETSW2, TCXONC, TIOCEXCL, TIOCGETD, TIOCGLCKTRMIOS, TIOCGPGRP, TIOCGPTN,
    TIOCGPTPEER, TIOCGSID, TIOCGWINSZ, TIOCMBIC, TIOCMBIS, TIOCMGET, TIOCMSET, TIOCNOTTY, TIOCNXCL,
    TIOCOUTQ, TIOCSCTTY, TIOCSETD, TIOCSLCKTRMIOS, TIOCSPGRP, TIOCSPTLCK, TIOCSTI, TIOCSWINSZ,
};
use crate::abi::xlat::tty::{
    BAUD_RATES, CC_INDEXES, CFLAGS, CIBAUD, IBSHIFT, IFLAGS, LFLAGS, LINE_DISCIPLINES, MODEM_BITS,
    OFLAGS, TCFLSH_QUEUES, TCXONC_ACTIONS, TERMIO_LAYOUT, TERMIOS2_LAYOUT,
};
use crate::decode::lookup;
use crate::format::{Naming, Printer};

/// A termios's control characters, each labelled with its index's name as
/// strace prints them: `[[VINTR]=0x3, ..., [VTIME]=0, [17]=0]` (in JSON
/// the array of values, whose index is the label).
fn put_cc(p: &mut Printer, cc: &[u8]) {
    p.open("c_cc", "[", Naming::Fields);
    for (i, &c) in cc.iter().enumerate() {
        let label = match lookup(CC_INDEXES, i as i64) {
            Some(name) => format!("[{name}]"),
            None => format!("[{i}]"),
        };
        if c == 0 {
            p.uint(&label, 0);
        } else {
            p.hex(&label, c as u64);
        }
    }
    p.close("]");
}

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

/// `struct termios2` (44 bytes: `struct termios` and the two speeds), the
/// same on i386.
pub static TERMIOS2: Layout = Layout {
    name: "termios2",
    size: 44,
    fields: &[],
};

/// The old `struct termio` (18 bytes: 16-bit flag words).
pub static TERMIO: Layout = Layout {
    name: "termio",
    size: 18,
    fields: &[],
};

/// `c_cflag` as strace spells it: the output speed, the input speed when
/// set apart (`B1800<<IBSHIFT`), the character size, the bits:
/// `B600|B1800<<IBSHIFT|CS5|CREAD`.
fn put_cflag(p: &mut Printer, value: u64) {
    let ibaud = (value & CIBAUD as u64) >> IBSHIFT;
    if ibaud == 0 {
        return p.flags("c_cflag", value, CFLAGS);
    }
    let ibaud_name = match BAUD_RATES.iter().find(|&&(v, _)| v == ibaud) {
        Some((_, name)) => format!("{name}<<IBSHIFT"),
        None => format!("{ibaud:#x}<<IBSHIFT"),
    };
    let rest = crate::format::flags_text(value & !(CIBAUD as u64), CFLAGS, true);
    // The output speed is the first name (B0 when none).
    let mut parts: Vec<&str> = rest.split('|').collect();
    parts.insert(1.min(parts.len()), &ibaud_name);
    p.flags_spelled("c_cflag", value, parts.join("|"));
}

/// A termios's fields, by `layout` (termios, termios2, termio: each
/// names the same fields at its own offsets and sizes); the flags always,
/// the rest with `-v` (`..` otherwise, as strace).
fn put_termios(p: &mut Printer, d: &[u8], layout: &[Field]) -> bool {
    let get = |name: &str| crate::abi::layout::field(layout, name).read(d).unwrap_or(0);
    p.flags("c_iflag", get("c_iflag"), IFLAGS);
    p.flags("c_oflag", get("c_oflag"), OFLAGS);
    put_cflag(p, get("c_cflag"));
    p.flags("c_lflag", get("c_lflag"), LFLAGS);
    if p.config().verbose == 0 {
        return false;
    }
    let line = get("c_line") as i64;
    p.symbol("c_line", line, lookup(LINE_DISCIPLINES, line));
    let cc = crate::abi::layout::field(layout, "c_cc");
    put_cc(p, &d[cc.off..cc.end()]);
    for speed in ["c_ispeed", "c_ospeed"] {
        if layout.iter().any(|f| f.name == speed) {
            p.uint(speed, get(speed));
        }
    }
    true
}

/// `struct termios` as the kernel's TCGETS uses it, as a generated-style
/// layout for [`put_termios`].
static TERMIOS_FIELDS: &[Field] = &[
    Field {
        name: "c_iflag",
        off: 0,
        size: 4,
        signed: false,
    },
    Field {
        name: "c_oflag",
        off: 4,
        size: 4,
        signed: false,
    },
    Field {
        name: "c_cflag",
        off: 8,
        size: 4,
        signed: false,
    },
    Field {
        name: "c_lflag",
        off: 12,
        size: 4,
        signed: false,
    },
    Field {
        name: "c_line",
        off: 16,
        size: 1,
        signed: false,
    },
    Field {
        name: "c_cc",
        off: 17,
        size: 19,
        signed: false,
    },
];

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

static REQUESTS: &[Request] = &[
    Request::legacy(TCGETS, "TCGETS", IF_IN, Arg::Struct(&TERMIOS)),
    Request::legacy(TCSETS, "TCSETS", IF_OUT, Arg::Struct(&TERMIOS)),
    Request::legacy(TCSETSW, "TCSETSW", IF_OUT, Arg::Struct(&TERMIOS)),
    Request::legacy(TCSETSF, "TCSETSF", IF_OUT, Arg::Struct(&TERMIOS)),
    Request::new(TCGETS2, "TCGETS2", IF_IN, Arg::Struct(&TERMIOS2)),
    Request::new(TCSETS2, "TCSETS2", IF_OUT, Arg::Struct(&TERMIOS2)),
    Request::new(TCSETSW2, "TCSETSW2", IF_OUT, Arg::Struct(&TERMIOS2)),
    Request::new(TCSETSF2, "TCSETSF2", IF_OUT, Arg::Struct(&TERMIOS2)),
    Request::legacy(TCGETA, "TCGETA", IF_IN, Arg::Struct(&TERMIO)),
    Request::legacy(TCSETA, "TCSETA", IF_OUT, Arg::Struct(&TERMIO)),
    Request::legacy(TCSETAW, "TCSETAW", IF_OUT, Arg::Struct(&TERMIO)),
    Request::legacy(TCSETAF, "TCSETAF", IF_OUT, Arg::Struct(&TERMIO)),
    Request::legacy(
        TIOCGLCKTRMIOS,
        "TIOCGLCKTRMIOS",
        IF_IN,
        Arg::Struct(&TERMIOS),
    ),
    Request::legacy(
        TIOCSLCKTRMIOS,
        "TIOCSLCKTRMIOS",
        IF_OUT,
        Arg::Struct(&TERMIOS),
    ),
    Request::legacy(TCSBRK, "TCSBRK", 0, Arg::Value),
    Request::legacy(TCXONC, "TCXONC", 0, Arg::ValueEnum(TCXONC_ACTIONS)),
    Request::legacy(TCFLSH, "TCFLSH", 0, Arg::ValueEnum(TCFLSH_QUEUES)),
    Request::legacy(TIOCEXCL, "TIOCEXCL", 0, Arg::None),
    Request::legacy(TIOCNXCL, "TIOCNXCL", 0, Arg::None),
    Request::legacy(TIOCSCTTY, "TIOCSCTTY", 0, Arg::Value),
    Request::legacy(TIOCGPGRP, "TIOCGPGRP", IF_IN, Arg::Int),
    Request::legacy(TIOCSPGRP, "TIOCSPGRP", IF_OUT, Arg::Int),
    Request::legacy(TIOCOUTQ, "TIOCOUTQ", IF_IN, Arg::Int),
    Request::legacy(TIOCSTI, "TIOCSTI", 0, Arg::Char),
    Request::legacy(TIOCGWINSZ, "TIOCGWINSZ", IF_IN, Arg::Struct(&WINSIZE)),
    Request::legacy(TIOCSWINSZ, "TIOCSWINSZ", IF_OUT, Arg::Struct(&WINSIZE)),
    Request::legacy(TIOCMGET, "TIOCMGET", IF_IN, Arg::IntFlags(MODEM_BITS)),
    Request::legacy(TIOCMBIS, "TIOCMBIS", IF_OUT, Arg::IntFlags(MODEM_BITS)),
    Request::legacy(TIOCMBIC, "TIOCMBIC", IF_OUT, Arg::IntFlags(MODEM_BITS)),
    Request::legacy(TIOCMSET, "TIOCMSET", IF_OUT, Arg::IntFlags(MODEM_BITS)),
    Request::legacy(TIOCNOTTY, "TIOCNOTTY", 0, Arg::None),
    Request::legacy(TIOCSETD, "TIOCSETD", IF_OUT, Arg::Int),
    Request::legacy(TIOCGETD, "TIOCGETD", IF_IN, Arg::Int),
    Request::legacy(TIOCGSID, "TIOCGSID", IF_IN, Arg::Int),
    Request::new(TIOCGPTN, "TIOCGPTN", IF_IN, Arg::Int),
    Request::new(TIOCSPTLCK, "TIOCSPTLCK", IF_OUT, Arg::Int),
    // _IO('T', 0x41): the open flags travel by value; a new fd is returned.
    Request::new(TIOCGPTPEER, "TIOCGPTPEER", 0, Arg::ValueFlags(OPEN_FLAGS)),
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
            TCGETS | TCSETS | TCSETSW | TCSETSF | TIOCGLCKTRMIOS | TIOCSLCKTRMIOS => {
                put_termios(p, d, TERMIOS_FIELDS)
            }
            TCGETS2 | TCSETS2 | TCSETSW2 | TCSETSF2 => put_termios(p, d, TERMIOS2_LAYOUT),
            TCGETA | TCSETA | TCSETAW | TCSETAF => put_termios(p, d, TERMIO_LAYOUT),
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
