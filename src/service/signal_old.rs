//! i386's old signal calls, which take a one-word `old_sigset_t` instead
//! of a sized `sigset_t`: sigaction (`struct old_sigaction`, its layout
//! generated: `abi::xlat::signal::OLD_SIGACTION_I386`), sigprocmask,
//! sigpending, sigsuspend, signal, sgetmask and ssetmask, printed as
//! strace prints them (`signal(SIGUSR2, SIG_IGN) = 0 (SIG_DFL)`,
//! `ssetmask([USR2]) = 0x201 (old mask [HUP USR1])`). Only i386 has them,
//! so every word here is 4 bytes.

use crate::abi::layout::{extent, field};
use crate::abi::xlat::signal::{OLD_SIGACTION_I386, SA_FLAGS, SIGPROCMASK_HOW};
use crate::call::{CallClass::Normal, Handler, default_in};
use crate::call::{CallCtx, CallType};
use crate::decode::{put_extended, put_signal};
use crate::format::Printer;
use crate::output::Style;
use crate::service::h;
use crate::service::raw::{entered_done, open_struct_dyn, put_named};
use crate::service::signal::{SA_RESTORER, put_handler, put_sigset, put_sigset_bytes};

/// An `old_sigset_t`'s size: one 32-bit word.
const OLD_SIGSET: u64 = 4;

/// A `struct old_sigaction` at `addr`: `{sa_handler=SIG_IGN,
/// sa_mask=[USR2], sa_flags=SA_RESTART}`; the restorer as the rt_sigaction
/// printer shows it (always, when SA_RESTORER says it is set).
fn put_old_sigaction(p: &mut Printer, name: &str, addr: u64) {
    let layout = OLD_SIGACTION_I386;
    let Some(b) = open_struct_dyn(p, name, addr, extent(layout)) else {
        return;
    };
    let value = |f: &str| field(layout, f).read(&b).unwrap_or(0);
    let mask = field(layout, "sa_mask");
    let flags = value("sa_flags");
    put_handler(p, "sa_handler", value("sa_handler"), 4);
    put_sigset_bytes(p, "sa_mask", &b[mask.off..mask.end()]);
    p.flags("sa_flags", flags, SA_FLAGS);
    if flags & SA_RESTORER != 0 {
        p.ptr("sa_restorer", value("sa_restorer"));
    }
    p.close_struct(true);
}

/// `sigaction(sig, act, oact)`: the old action at leave.
pub fn sigaction_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_signal(p, "sig", c.int(0));
    put_old_sigaction(p, "act", c.args[1]);
    if c.args[2] == 0 {
        p.ptr("oact", 0);
        return CallType::Done;
    }
    CallType::NotDone
}

/// Leave half of sigaction.
pub fn sigaction_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if entered_done(p, c) {
        return;
    }
    if failed {
        p.ptr("oact", c.args[2]);
    } else {
        put_old_sigaction(p, "oact", c.args[2]);
    }
    p.equals();
    p.result(c.result);
}

/// `sigprocmask(how, nset, oset)`: the old set at leave.
pub fn sigprocmask_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_named(p, "how", c.int(0), SIGPROCMASK_HOW);
    put_sigset(p, "nset", c.args[1], OLD_SIGSET);
    if c.args[2] == 0 {
        p.ptr("oset", 0);
        return CallType::Done;
    }
    CallType::NotDone
}

/// Leave half of sigprocmask.
pub fn sigprocmask_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if entered_done(p, c) {
        return;
    }
    if failed {
        p.ptr("oset", c.args[2]);
    } else {
        put_sigset(p, "oset", c.args[2], OLD_SIGSET);
    }
    p.equals();
    p.result(c.result);
}

/// `sigpending(uset)`: the set at leave.
pub fn sigpending_out(_p: &mut Printer, _c: &mut CallCtx) -> CallType {
    CallType::NotDone
}

/// Leave half of sigpending.
pub fn sigpending_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if failed {
        p.ptr("uset", c.args[0]);
    } else {
        put_sigset(p, "uset", c.args[0], OLD_SIGSET);
    }
    p.equals();
    p.result(c.result);
}

/// The `=` before a result these calls print themselves: their enter
/// half printed every parameter (`CallType::Done`), so the call layer has
/// printed it already, unless the line was split and resumed.
fn equals_once(p: &mut Printer) {
    if !p.equals_printed() {
        p.equals();
    }
}

/// A mask passed by value in a register (an `old_sigset_t`).
fn put_mask_value(p: &mut Printer, name: &str, mask: u64) {
    put_sigset_bytes(p, name, &(mask as u32).to_le_bytes());
}

/// `sigsuspend(unused1, unused2, mask)`: x86's takes the mask in its third
/// register; the first two are not read (strace shows the mask alone).
pub fn sigsuspend_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_mask_value(p, "mask", c.args[2]);
    CallType::Done
}

/// `signal(sig, handler)`: returns the old handler.
pub fn signal_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_signal(p, "sig", c.int(0));
    put_handler(p, "handler", c.args[1], 4);
    CallType::Done
}

/// Leave half of signal: the old handler, in hex with its name when it
/// has one: `= 0x1 (SIG_IGN)`, `= 0 (SIG_DFL)`.
pub fn signal_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    equals_once(p);
    let old = c.result as u32 as u64;
    if failed || old == 0 {
        p.result(c.result);
    } else {
        p.result_ptr(old as i64);
    }
    if !failed && p.symbols() && (old <= 1 || old == u32::MAX as u64) {
        put_extended(p, "old", |p, n| put_handler(p, n, old, 4));
    }
}

/// The leave of sgetmask and ssetmask: the mask (the old one for
/// ssetmask) in hex, and as a set: `= 0x201 (old mask [HUP USR1])`.
fn mask_result(p: &mut Printer, c: &CallCtx, failed: bool, label: &'static str) {
    equals_once(p);
    let mask = c.result as u32 as u64;
    if failed || mask == 0 {
        p.result(c.result);
    } else {
        p.result_ptr(mask as i64);
    }
    if !failed && p.symbols() {
        put_extended(p, "mask", |p, n| {
            if !p.json() {
                p.text(label, Style::Plain);
            }
            put_mask_value(p, n, mask);
        });
    }
}

/// `sgetmask()`: the blocked mask, at leave.
pub fn sgetmask_out(_p: &mut Printer, _c: &mut CallCtx) -> CallType {
    CallType::Done
}

/// Leave half of sgetmask.
pub fn sgetmask_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    mask_result(p, c, failed, "mask ");
}

/// `ssetmask(newmask)`: returns the old mask.
pub fn ssetmask_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_mask_value(p, "newmask", c.args[0]);
    CallType::Done
}

/// Leave half of ssetmask.
pub fn ssetmask_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    mask_result(p, c, failed, "old mask ");
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("sgetmask", sgetmask_out, sgetmask_in, Normal),
    h("sigaction", sigaction_out, sigaction_in, Normal),
    h("signal", signal_out, signal_in, Normal),
    h("sigpending", sigpending_out, sigpending_in, Normal),
    h("sigprocmask", sigprocmask_out, sigprocmask_in, Normal),
    h("sigsuspend", sigsuspend_out, default_in, Normal),
    h("ssetmask", ssetmask_out, ssetmask_in, Normal),
];
