//! Terminal ioctls (`<asm-generic/ioctls.h>`, `<asm-generic/termbits.h>`):
//! termios get/set, window size, process groups, controlling terminal,
//! modem lines, line discipline, flow and flush control, pty peers.
//! Most codes predate `_IOC` and carry no direction bits.

use super::raw::{u8_at, u16_at, u32_at};
use super::{Arg, IF_IN, IF_OUT, IoctlGroup, Layout, Request, field};
use crate::abi::xlat::fs::OPEN_FLAGS;
use crate::abi::xlat::ioctl::{
    TCFLSH, TCGETS, TCSBRK, TCSETS, TCSETSF, TCSETSW, TCXONC, TIOCEXCL, TIOCGETD, TIOCGPGRP,
    TIOCGPTN, TIOCGPTPEER, TIOCGSID, TIOCGWINSZ, TIOCMBIC, TIOCMBIS, TIOCMGET, TIOCMSET, TIOCNOTTY,
    TIOCNXCL, TIOCOUTQ, TIOCSCTTY, TIOCSETD, TIOCSPGRP, TIOCSPTLCK, TIOCSTI, TIOCSWINSZ,
};
use crate::abi::xlat::tty::{
    CC_INDEXES, CFLAGS, IFLAGS, LFLAGS, LINE_DISCIPLINES, MODEM_BITS, OFLAGS, TCFLSH_QUEUES,
    TCXONC_ACTIONS,
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
            TCGETS | TCSETS | TCSETSW | TCSETSF => {
                p.flags("c_iflag", u32_at(d, 0) as u64, IFLAGS);
                p.flags("c_oflag", u32_at(d, 4) as u64, OFLAGS);
                p.flags("c_cflag", u32_at(d, 8) as u64, CFLAGS);
                p.flags("c_lflag", u32_at(d, 12) as u64, LFLAGS);
                if p.config().verbose == 0 {
                    return false;
                }
                let line = u8_at(d, 16) as i64;
                p.symbol("c_line", line, lookup(LINE_DISCIPLINES, line));
                put_cc(p, &d[17..36]);
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
