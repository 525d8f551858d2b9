//! ABI misuse diagnostics: where a traced program breaks the usbmon or
//! user_events ABI, said at the call where it happens.
//!
//! Diagnostics come from bookkeeping, never from printing: the engine hands
//! every call on a usbmon or user_events fd to [`enter`] and [`leave`],
//! printed or not, and these keep the open file's state in the fd table
//! ([`crate::fdtable::FileState`]: the ring size, the events fetched and not
//! flushed, the registrations and their enable bits) and compare each call
//! with it and with the kernel's rules (drivers/usb/mon/mon_bin.c,
//! kernel/trace/trace_events_user.c). What they find is a [`Diag`], which
//! the engine prints after the call as a line of its own,
//! `** usbmon: fd 3: ... **` (a `diag` object with `--json`), unless
//! `-e diag=` turned its area off.
//!
//! Layering: the engine calls this module; it reads the fd table and the
//! tracee's memory (through `kernel::Memory`) and uses the ioctl groups'
//! definitions, but never prints: what it finds goes back to the engine.

mod usbmon;
mod user_events;

use crate::fdtable::{FdKind, FdTable, SharedFdTable};
use crate::kernel::{Arch, Memory};

/// Which ABI a diagnostic is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Area {
    /// The usbmon binary API (`/dev/usbmonN`).
    Usbmon,
    /// user_events (`user_events_data`).
    UserEvents,
}

impl Area {
    /// Its name in the trace, in JSON and in `-e diag=`.
    pub fn name(self) -> &'static str {
        match self {
            Area::Usbmon => "usbmon",
            Area::UserEvents => "user_events",
        }
    }
}

/// One diagnostic: what the program did against the ABI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diag {
    /// The ABI.
    pub area: Area,
    /// A stable name for the kind of misuse (JSON's `kind`), listed in
    /// `KINDS`.
    pub kind: &'static str,
    /// The fd of the call.
    pub fd: i32,
    /// What happened, in words, without the `fd N: ` that the line adds.
    pub text: String,
    /// It foretells that the kernel refuses the call: shown only if the
    /// call did fail (rtrace's bookkeeping may lack calls it did not see).
    pub refusal: bool,
}

impl Diag {
    fn new(area: Area, kind: &'static str, fd: i32, text: String) -> Diag {
        debug_assert!(KINDS.iter().any(|&(a, k, _)| a == area && k == kind));
        Diag {
            area,
            kind,
            fd,
            text,
            refusal: false,
        }
    }

    /// The same diagnostic, as a foretold refusal.
    fn refused(self) -> Diag {
        Diag {
            refusal: true,
            ..self
        }
    }

    /// The trace line: `** usbmon: fd 3: TEXT **`.
    pub fn line(&self) -> String {
        format!("** {}: fd {}: {} **", self.area.name(), self.fd, self.text)
    }
}

/// Every kind of diagnostic, with what it means (for `--help`, HACKING.md
/// and the tests that check the documentation lists them all).
pub const KINDS: &[(Area, &str, &str)] = &[
    (
        Area::Usbmon,
        "refetch",
        "MON_IOCX_MFETCH returned events it had returned before: no MON_IOCH_MFLUSH or nflush removed them",
    ),
    (
        Area::Usbmon,
        "overflush",
        "a flush (MON_IOCH_MFLUSH, MFETCH's nflush) of more events than were fetched: the extra ones are discarded unseen",
    ),
    (
        Area::Usbmon,
        "header_buffer",
        "MON_IOCX_GET/GETX: the header the call writes (48 or 64 bytes) runs into the data buffer or past the end of its mapping (EFAULT)",
    ),
    (
        Area::Usbmon,
        "truncated",
        "MON_IOCX_GET/GETX: alloc smaller than the event's data; the rest is lost with the event",
    ),
    (
        Area::Usbmon,
        "ring_size",
        "MON_IOCT_RING_SIZE outside 8192..67108864 (1228800 before 2025; or a pointer where the size belongs), or while mapped: refused (a size between is rounded up to the page, harmlessly: the call's line says so, `= 0 (rounded up to 12288)`)",
    ),
    (
        Area::Usbmon,
        "ring_size_query",
        "an mmap of the ring whose length is what the program's variable held when it gave its address to MON_IOCQ_RING_SIZE, which writes nothing there (the size is the call's return value)",
    ),
    (
        Area::Usbmon,
        "dropped",
        "MON_IOCG_STATS says events were lost because the ring was full",
    ),
    (
        Area::Usbmon,
        "read_header",
        "a read(2) that ends inside an event's 48-byte header: the rest comes first in the next read, not the data",
    ),
    (
        Area::Usbmon,
        "mapping",
        "an mmap of the ring longer than the ring (SIGBUS past its end) or at a nonzero offset",
    ),
    (
        Area::Usbmon,
        "offset",
        "an MFETCH offset that is not 64-byte aligned, outside the ring, or whose event ends past the mapping",
    ),
    (
        Area::UserEvents,
        "write_index",
        "a write without a 4-byte write_index, with a negative one, or with one never registered on that fd",
    ),
    (
        Area::UserEvents,
        "unregistered",
        "a write of an event whose enable bit DIAG_IOCSUNREG removed: the program no longer learns whether it is enabled",
    ),
    (
        Area::UserEvents,
        "disabled",
        "a write while the event's enable bit (read at the write) is clear: the kernel drops it (EBADF)",
    ),
    (
        Area::UserEvents,
        "payload",
        "a payload shorter than the event's fields, or a __data_loc/__rel_loc outside it or not NUL-terminated",
    ),
    (
        Area::UserEvents,
        "register",
        "why the kernel refused DIAG_IOCSREG: size, flags, enable_size, enable_addr, enable_bit, a bit in use, the command",
    ),
    (
        Area::UserEvents,
        "unregister",
        "why the kernel refused DIAG_IOCSUNREG: reserved fields, no such enable bit",
    ),
    (
        Area::UserEvents,
        "delete",
        "DIAG_IOCSDEL refused with EBUSY: which fd still holds the event",
    ),
];

/// Which areas' diagnostics are printed (`-e diag=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiagSet {
    /// usbmon diagnostics.
    pub usbmon: bool,
    /// user_events diagnostics.
    pub user_events: bool,
}

impl Default for DiagSet {
    fn default() -> Self {
        DiagSet::ALL
    }
}

impl DiagSet {
    /// Every diagnostic (the default).
    pub const ALL: DiagSet = DiagSet {
        usbmon: true,
        user_events: true,
    };
    /// None.
    pub const NONE: DiagSet = DiagSet {
        usbmon: false,
        user_events: false,
    };

    /// Parse `all`, `none`, or a list of `usbmon`, `user_events`; a
    /// leading `!` negates.
    pub fn parse(spec: &str) -> Result<DiagSet, String> {
        let (negated, body) = match spec.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, spec),
        };
        let mut set = DiagSet::NONE;
        for word in body.split(',').map(str::trim) {
            match word {
                "all" => set = DiagSet::ALL,
                "none" => {}
                "usbmon" => set.usbmon = true,
                "user_events" => set.user_events = true,
                _ => {
                    return Err(format!(
                        "unknown diagnostics '{word}' in -e diag={spec} (all, none, usbmon, user_events)"
                    ));
                }
            }
        }
        if negated {
            set.usbmon = !set.usbmon;
            set.user_events = !set.user_events;
        }
        Ok(set)
    }

    /// Whether any diagnostic is on.
    pub fn any(self) -> bool {
        self.usbmon || self.user_events
    }

    /// Whether `area`'s diagnostics are on.
    pub fn has(self, area: Area) -> bool {
        match area {
            Area::Usbmon => self.usbmon,
            Area::UserEvents => self.user_events,
        }
    }
}

/// What one call is, for the diagnostics.
pub struct CallInfo<'a> {
    /// The call's name (`ioctl`, `write`, ...).
    pub name: &'a str,
    /// Its ABI.
    pub arch: Arch,
    /// Its arguments.
    pub args: [u64; 6],
    /// The calling process (thread group).
    pub tgid: i32,
}

/// Whether the diagnostics look at a call of this name at all: the engine
/// asks at every stop before building anything for [`enter`] and
/// [`leave`], which do nothing for the other calls (see [`fd_of`]).
pub fn looks_at(name: &str) -> bool {
    matches!(
        name,
        "ioctl" | "write" | "writev" | "read" | "mmap" | "mmap2"
    )
}

/// Calls whose diagnostics need what the call's memory held before it
/// ran; the rest are looked at when the call returns.
fn fd_of(call: &CallInfo) -> Option<i32> {
    match call.name {
        "ioctl" | "write" | "writev" | "read" => Some(call.args[0] as i32),
        "mmap" | "mmap2" if call.arch != Arch::I386 || call.name == "mmap2" => {
            Some(call.args[4] as i32)
        }
        _ => None,
    }
}

/// What [`enter`] saw, for [`leave`]: facts of the moment of the call.
#[derive(Clone, Debug, Default)]
pub struct Entered {
    /// Diagnostics already complete (a write's).
    pub diags: Vec<Diag>,
    /// MON_IOCX_MFETCH's nflush as the program passed it (the kernel
    /// overwrites it).
    pub nflush: Option<u64>,
}

/// Look at a call at its entry: a write on user_events_data (its payload,
/// the enable word at the time of the write) and MFETCH's input.
pub fn enter(set: DiagSet, call: &CallInfo, fds: &FdTable, mem: &mut Memory) -> Entered {
    let mut out = Entered::default();
    let Some(fd) = fd_of(call) else {
        return out;
    };
    match (fds.kind(fd), call.name) {
        (FdKind::Usbmon, "ioctl") if set.usbmon => {
            out.nflush = usbmon::mfetch_nflush(call, mem);
        }
        (FdKind::UserEvents, "write" | "writev") if set.user_events => {
            out.diags = user_events::write(call, fd, fds, mem);
        }
        _ => {}
    }
    out
}

/// Look at a call at its return with raw result `rval`: update the open
/// file's state and say what the program did wrong. `others` are the fd
/// tables of the other traced processes (for DIAG_IOCSDEL's holders),
/// with their process ids.
pub fn leave(
    set: DiagSet,
    call: &CallInfo,
    rval: i64,
    entered: Entered,
    fds: &mut FdTable,
    mem: &mut Memory,
    others: &dyn Fn() -> Vec<(i32, SharedFdTable)>,
) -> Vec<Diag> {
    let mut out = entered.diags;
    if !is_error(rval) {
        // A write's diagnostics foretell the kernel's refusal. The write
        // went through: what rtrace knew of the file was incomplete (its
        // ioctls not stopped by the fast path, a look-alike file), and
        // a refusal must not be reported for a call that succeeded.
        out.retain(|d| !d.refusal);
    }
    let Some(fd) = fd_of(call) else {
        return out;
    };
    match fds.kind(fd) {
        FdKind::Usbmon if set.usbmon => {
            if let Some(file) = fds.file_state(fd) {
                let info = fds.get(fd);
                let ctx = usbmon::Ctx {
                    call,
                    fd,
                    rval,
                    nflush: entered.nflush,
                    info: info.as_ref(),
                    pid: fds.pid,
                };
                out.extend(usbmon::leave(&ctx, &mut file.borrow_mut(), mem));
            }
        }
        FdKind::UserEvents if set.user_events && call.name == "ioctl" => {
            if let Some(file) = fds.file_state(fd) {
                out.extend(user_events::ioctl(call, fd, rval, &file, fds, mem, others));
            }
        }
        _ => {}
    }
    out
}

/// The symbolic name of a failed call's errno, for the texts.
fn errno_text(rval: i64) -> String {
    syscalls::Errno::new(-rval as i32)
        .name()
        .map_or_else(|| (-rval).to_string(), str::to_string)
}

/// Whether a raw return value is an error (the kernel's -4095..-1). The
/// call layer has the same test; this layer sits below it.
fn is_error(rval: i64) -> bool {
    (-4095..0).contains(&rval)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_at_every_call_with_an_fd_of_its_own() {
        for name in [
            "ioctl", "write", "writev", "mmap", "mmap2", "read", "getppid",
        ] {
            for arch in [Arch::X86_64, Arch::I386] {
                let info = CallInfo {
                    name,
                    arch,
                    args: [0; 6],
                    tgid: 1,
                };
                if fd_of(&info).is_some() {
                    assert!(looks_at(name), "{name}");
                }
            }
        }
        assert!(!looks_at("getppid") && !looks_at("close"));
    }

    #[test]
    fn diag_sets_parse() {
        assert_eq!(DiagSet::parse("all"), Ok(DiagSet::ALL));
        assert_eq!(DiagSet::parse("none"), Ok(DiagSet::NONE));
        assert_eq!(
            DiagSet::parse("usbmon"),
            Ok(DiagSet {
                usbmon: true,
                user_events: false
            })
        );
        assert_eq!(
            DiagSet::parse("!usbmon"),
            Ok(DiagSet {
                usbmon: false,
                user_events: true
            })
        );
        assert_eq!(DiagSet::parse("usbmon,user_events"), Ok(DiagSet::ALL));
        assert!(DiagSet::parse("usb").unwrap_err().contains("'usb'"));
    }

    #[test]
    fn kinds_are_unique_and_described() {
        for (i, &(area, kind, what)) in KINDS.iter().enumerate() {
            assert!(!what.is_empty() && kind.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'));
            assert!(
                !KINDS[..i].iter().any(|&(a, k, _)| a == area && k == kind),
                "{kind} twice"
            );
        }
    }

    #[test]
    fn lines_have_the_signal_shape() {
        let d = Diag::new(Area::Usbmon, "dropped", 3, "2 events lost".into());
        assert_eq!(d.line(), "** usbmon: fd 3: 2 events lost **");
    }
}
