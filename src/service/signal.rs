//! Signal names, signal sets, `struct sigaction` and `siginfo_t`, and the
//! signal call handlers: kill, tkill, tgkill, rt_sigaction, rt_sigprocmask,
//! rt_sigreturn, rt_sigsuspend, rt_sigtimedwait, rt_sigpending,
//! rt_sigqueueinfo, sigaltstack, signalfd.

use crate::abi::xlat::signal::{
    BUS_CODES, CLD_CODES, FPE_CODES, ILL_CODES, POLL_CODES, SA_FLAGS, SEGV_CODES, SFD_FLAGS,
    SI_CODES, SIGPROCMASK_HOW, SS_FLAGS, SYS_CODES, TRAP_CODES,
};
use crate::call::{
    CallClass::{Normal, Sigreturn},
    Handler, default_in,
};
use crate::call::{CallCtx, CallType};
use crate::decode::{KERNEL_SIGRTMAX, put_extended, put_fd, put_signal, signal_name};
use crate::format::{Naming, Printer};
use crate::kernel::Arch;
use crate::service::h;
use crate::service::raw::out_param_in;
use crate::service::raw::{
    Member, entered_done, i32_at, int_at, lookup, open_struct_dyn, put_named, put_set, read_vec,
    set_text, u32_at, uint_at, word_size,
};
use crate::service::time::put_call_timespec;

/// The members of a signal set held in `bytes` (bit N-1 is signal N), as
/// strace lists them: names without `SIG` (numbers with `-V`); when more
/// than half are in the set, the ones *not* in it and `true` (a
/// complement, `~[...]`).
fn sigset_members(bytes: &[u8], spell: impl Fn(i32) -> Option<String>) -> (Vec<Member>, bool) {
    let nbits = (bytes.len() * 8).min(KERNEL_SIGRTMAX as usize);
    let has = |sig: usize| bytes[(sig - 1) / 8] & (1 << ((sig - 1) % 8)) != 0;
    let count = (1..=nbits).filter(|&s| has(s)).count();
    let invert = count * 2 > nbits;
    let members = (1..=nbits)
        .filter(|&s| has(s) != invert)
        .map(|sig| match spell(sig as i32) {
            Some(name) => Member::Name(name),
            None => Member::Num(sig as u64),
        })
        .collect();
    (members, invert)
}

/// A signal's name without its `SIG`, as sets print it: `USR1`.
fn short_name(sig: i32) -> Option<String> {
    let name = signal_name(sig)?;
    Some(name.strip_prefix("SIG").unwrap_or(&name).to_string())
}

/// The text of a signal set: `[USR1 USR2]`, `~[KILL STOP]`, `[]`.
pub fn sigset_text(bytes: &[u8], symbols: bool) -> String {
    let (members, invert) = sigset_members(bytes, |sig| short_name(sig).filter(|_| symbols));
    set_text(&members, invert)
}

/// Largest signal set read (the kernel's is 8 bytes; callers may pass more).
const MAX_SIGSET: u64 = 128;

/// A signal set of `size` bytes at `addr`: `[USR1 USR2]`, `~[]`. A set the
/// kernel would not accept in size, or that cannot be read, prints as its
/// pointer. Other areas use this for their sigmask parameters.
pub fn put_sigset(p: &mut Printer, name: &str, addr: u64, size: u64) {
    if size == 0 || size > MAX_SIGSET || p.config().values_only >= 2 {
        p.ptr(name, addr);
        return;
    }
    match read_vec(p, addr, size as usize) {
        Some(bytes) => put_sigset_bytes(p, name, &bytes),
        None => p.ptr(name, addr),
    }
}

/// A signal set already copied (a field of a larger struct).
pub fn put_sigset_bytes(p: &mut Printer, name: &str, bytes: &[u8]) {
    // strace's spelling of each member under -X: `10 /* USR1 */`.
    let (members, invert) = sigset_members(bytes, |sig| {
        let (number, name) = (sig.to_string(), short_name(sig)?);
        Some(p.spelling(&number, Some(&name))).filter(|text| *text != number)
    });
    put_set(p, name, &members, invert);
}

/// The kernel's `sizeof(sigset_t)` on x86.
pub(crate) const SIGSET_SIZE: usize = 8;

/// `kill(pid, sig)`
pub fn kill_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("pid", c.int(0));
    put_signal(p, "sig", c.int(1));
    CallType::Done
}

/// `tgkill(tgid, tid, sig)`
pub fn tgkill_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("tgid", c.int(0));
    p.int("tid", c.int(1));
    put_signal(p, "sig", c.int(2));
    CallType::Done
}

/// Where `uc.uc_sigmask` lies from the stack pointer at rt_sigreturn's
/// entry: the handler's return popped the frame's return address, so the
/// pointer is just past it (`struct rt_sigframe` in arch/x86's
/// sigframe.h). x86_64: `struct ucontext` at sp, its mask after uc_flags,
/// uc_link, uc_stack (24) and the sigcontext (256). i386: the frame began
/// 4 bytes lower; `uc` follows pretcode, sig, pinfo, puc and the siginfo
/// (144), its mask after 4 + 4 + 12 + the sigcontext (88).
const RT_SIGRETURN_MASK_X86_64: u64 = 8 + 8 + 24 + 256;
const RT_SIGRETURN_MASK_I386: u64 = 144 - 4 + 4 + 4 + 12 + 88;

/// Where i386's old-style `sigreturn()` (a handler without SA_SIGINFO)
/// finds the mask it restores, from the stack pointer at its entry: the
/// handler's return popped `pretcode` and the restorer popped `sig`, so
/// `struct sigframe_ia32` (arch/x86's sigframe.h) began 8 bytes lower.
/// The mask's low word is `sc.oldmask` (offset 80 in the 88-byte
/// `struct sigcontext_32`), its high word `extramask[0]`, after the
/// sigcontext and the unused 624-byte `struct _fpstate_32`
/// (`<asm/sigcontext.h>`).
const SIGRETURN_OLDMASK: u64 = 80;
const SIGRETURN_EXTRAMASK: u64 = 88 + 624;

/// The memory call `name`'s decoder reads at the stack pointer rather
/// than behind an argument, as (offset from the stack pointer at its
/// entry, bytes): the signal mask a sigreturn restores, in the frame.
/// The BPF engine copies these at the call's entry.
pub fn stack_reads(arch: Arch, name: &str) -> &'static [(u64, usize)] {
    match (arch, name) {
        (Arch::X86_64, "rt_sigreturn") => &[(RT_SIGRETURN_MASK_X86_64, SIGSET_SIZE)],
        (Arch::I386, "rt_sigreturn") => &[(RT_SIGRETURN_MASK_I386, SIGSET_SIZE)],
        (Arch::I386, "sigreturn") => &[(SIGRETURN_OLDMASK, 4), (SIGRETURN_EXTRAMASK, 4)],
        _ => &[],
    }
}

/// The bytes of each of call `name`'s [`stack_reads`], all read or none.
fn read_stack(p: &mut Printer, c: &CallCtx, name: &str) -> Option<Vec<u8>> {
    let reads = stack_reads(c.arch, name);
    if reads.is_empty() {
        return None;
    }
    let mut bytes = Vec::new();
    for &(off, len) in reads {
        bytes.extend(read_vec(p, c.sp.wrapping_add(off), len)?);
    }
    Some(bytes)
}

/// `rt_sigreturn()`: the signal mask it restores, read from the signal
/// frame at the call's entry (strace's form, under the name `frame`):
/// `rt_sigreturn({mask=[USR2]})`.
pub fn rt_sigreturn_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_restored_mask(p, c, "rt_sigreturn");
    CallType::NoReturn
}

/// `sigreturn()` (i386): the signal mask it restores, as rt_sigreturn's:
/// `sigreturn({mask=[USR2]})`.
pub fn old_sigreturn_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_restored_mask(p, c, "sigreturn");
    CallType::NoReturn
}

/// `{mask=[...]}`, the mask sigreturn call `name` restores.
fn put_restored_mask(p: &mut Printer, c: &CallCtx, name: &str) {
    if p.config().values_only < 2
        && let Some(mask) = read_stack(p, c, name)
    {
        p.open("frame", "{", Naming::Fields);
        put_sigset_bytes(p, "mask", &mask);
        p.close("}");
    }
}

/// `sa_flags`' bit saying `sa_restorer` is set (`<asm/signal.h>`).
pub use crate::abi::xlat::signal::SA_RESTORER;

/// A signal handler address: `SIG_DFL`, `SIG_IGN`, `SIG_ERR` or a pointer.
pub fn put_handler(p: &mut Printer, name: &str, handler: u64, word: usize) {
    let all_ones = if word == 8 { u64::MAX } else { u32::MAX as u64 };
    let sym = match handler {
        0 => Some("SIG_DFL"),
        1 => Some("SIG_IGN"),
        v if v == all_ones => Some("SIG_ERR"),
        _ => None,
    };
    match sym {
        Some(s) => p.symbol(
            name,
            if handler == all_ones {
                -1
            } else {
                handler as i64
            },
            Some(s),
        ),
        None => p.ptr(name, handler),
    }
}

/// The kernel's `struct sigaction` (`<asm/signal.h>`): handler, flags,
/// restorer, mask; printed in the C library's order, the restorer
/// whenever SA_RESTORER says there is one (as strace does: it tells a
/// libc's trampoline from a program's own).
fn put_sigaction(p: &mut Printer, name: &str, addr: u64, sigsetsize: u64) {
    let word = word_size(p.arch());
    let mask_len = (sigsetsize as usize).clamp(1, SIGSET_SIZE);
    let Some(b) = open_struct_dyn(p, name, addr, 3 * word + mask_len) else {
        return;
    };
    let handler = uint_at(&b, 0, word);
    let flags = uint_at(&b, word, word);
    let restorer = uint_at(&b, 2 * word, word);
    put_handler(p, "sa_handler", handler, word);
    put_sigset_bytes(p, "sa_mask", &b[3 * word..]);
    p.flags("sa_flags", flags, SA_FLAGS);
    if flags & SA_RESTORER != 0 {
        p.ptr("sa_restorer", restorer);
    }
    p.close_struct(true);
}

/// `rt_sigaction(sig, act, oldact, sigsetsize)`: the old action at leave.
pub fn rt_sigaction_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_signal(p, "sig", c.int(0));
    put_sigaction(p, "act", c.args[1], c.args[3]);
    if c.args[2] == 0 {
        p.ptr("oldact", 0);
        p.uint("sigsetsize", c.args[3]);
        return CallType::Done;
    }
    CallType::NotDone
}

/// Leave half of rt_sigaction.
pub fn rt_sigaction_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if entered_done(p, c) {
        return;
    }
    if failed {
        p.ptr("oldact", c.args[2]);
    } else {
        put_sigaction(p, "oldact", c.args[2], c.args[3]);
    }
    p.uint("sigsetsize", c.args[3]);
    p.equals();
    p.result(c.result);
}

/// `rt_sigprocmask(how, set, oldset, sigsetsize)`: the old set at leave.
pub fn rt_sigprocmask_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_named(p, "how", c.int(0), SIGPROCMASK_HOW);
    put_sigset(p, "set", c.args[1], c.args[3]);
    if c.args[2] == 0 {
        p.ptr("oldset", 0);
        p.uint("sigsetsize", c.args[3]);
        return CallType::Done;
    }
    CallType::NotDone
}

/// Leave half of rt_sigprocmask.
pub fn rt_sigprocmask_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if entered_done(p, c) {
        return;
    }
    if failed {
        p.ptr("oldset", c.args[2]);
    } else {
        put_sigset(p, "oldset", c.args[2], c.args[3]);
    }
    p.uint("sigsetsize", c.args[3]);
    p.equals();
    p.result(c.result);
}

/// `rt_sigsuspend(mask, sigsetsize)`
pub fn rt_sigsuspend_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_sigset(p, "mask", c.args[0], c.args[1]);
    p.uint("sigsetsize", c.args[1]);
    CallType::Done
}

/// `rt_sigpending(set, sigsetsize)`: the set at leave.
pub fn rt_sigpending_out(_p: &mut Printer, _c: &mut CallCtx) -> CallType {
    CallType::NotDone
}

/// Leave half of rt_sigpending.
pub fn rt_sigpending_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if failed {
        p.ptr("set", c.args[0]);
    } else {
        put_sigset(p, "set", c.args[0], c.args[1]);
    }
    p.uint("sigsetsize", c.args[1]);
    p.equals();
    p.result(c.result);
}

/// `rt_sigtimedwait(set, info, timeout, sigsetsize)`: info at leave.
pub fn rt_sigtimedwait_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_sigset(p, "set", c.args[0], c.args[3]);
    CallType::NotDone
}

/// Leave half of rt_sigtimedwait (and its i386 `_time64` twin).
pub fn rt_sigtimedwait_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if failed {
        p.ptr("info", c.args[1]);
    } else {
        put_siginfo(p, "info", c.args[1]);
    }
    put_call_timespec(p, c, "timeout", c.args[2]);
    p.uint("sigsetsize", c.args[3]);
    p.equals();
    p.result(c.result);
    // The result is the signal taken: `= 10 (SIGUSR1)`.
    if !failed && p.symbols() {
        let sig = c.result;
        put_extended(p, "signal", |p, n| put_signal(p, n, sig));
    }
}

/// `rt_sigqueueinfo(tgid, sig, info)`
pub fn rt_sigqueueinfo_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("tgid", c.int(0));
    put_signal(p, "sig", c.int(1));
    put_siginfo(p, "info", c.args[2]);
    CallType::Done
}

/// `pidfd_send_signal(pidfd, sig, info, flags)`: the siginfo as
/// rt_sigqueueinfo's.
pub fn pidfd_send_signal_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    crate::decode::put_fd(p, c.fds, "pidfd", c.int(0));
    put_signal(p, "sig", c.int(1));
    put_siginfo(p, "info", c.args[2]);
    p.hex("flags", c.args[3] & 0xffff_ffff);
    CallType::Done
}

/// `rt_tgsigqueueinfo(tgid, tid, sig, info)`
pub fn rt_tgsigqueueinfo_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("tgid", c.int(0));
    p.int("tid", c.int(1));
    put_signal(p, "sig", c.int(2));
    put_siginfo(p, "info", c.args[3]);
    CallType::Done
}

/// `tkill(tid, sig)`
pub fn tkill_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("tid", c.int(0));
    put_signal(p, "sig", c.int(1));
    CallType::Done
}

/// A `stack_t`: `{ss_sp=&0x..., ss_flags=0, ss_size=8192}`.
fn put_stack(p: &mut Printer, name: &str, addr: u64) {
    let word = word_size(p.arch());
    let Some(b) = open_struct_dyn(p, name, addr, 3 * word) else {
        return;
    };
    p.ptr("ss_sp", uint_at(&b, 0, word));
    p.flags("ss_flags", u32_at(&b, word) as u64, SS_FLAGS);
    p.uint("ss_size", uint_at(&b, 2 * word, word));
    p.close_struct(true);
}

/// `sigaltstack(ss, old_ss)`: the old stack at leave.
pub fn sigaltstack_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_stack(p, "ss", c.args[0]);
    if c.args[1] == 0 {
        p.ptr("old_ss", 0);
        return CallType::Done;
    }
    CallType::NotDone
}

/// Leave half of sigaltstack.
pub fn sigaltstack_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if entered_done(p, c) {
        return;
    }
    out_param_in(p, c, failed, "old_ss", c.args[1], put_stack);
}

/// `signalfd(fd, mask, sizemask)`
pub fn signalfd_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    put_sigset(p, "mask", c.args[1], c.args[2]);
    p.uint("sizemask", c.args[2]);
    CallType::Done
}

/// `signalfd4(fd, mask, sizemask, flags)`
pub fn signalfd4_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    signalfd_out(p, c);
    p.flags("flags", c.args[3], SFD_FLAGS);
    CallType::Done
}

use crate::kernel::SIGINFO_SIZE;

/// Which union member of a siginfo the kernel filled (its siginfo_layout).
#[derive(PartialEq)]
enum Layout {
    Kill,
    Timer,
    Rt,
    Chld,
    Fault,
    Poll,
    Sys,
    None,
}

fn siginfo_layout(sig: i32, code: i32) -> Layout {
    if code == 0x80 {
        return Layout::None;
    }
    if code > 0 {
        return match sig {
            4 | 5 | 7 | 8 | 11 => Layout::Fault,
            17 => Layout::Chld,
            29 => Layout::Poll,
            31 => Layout::Sys,
            _ => Layout::Rt,
        };
    }
    match code {
        0 | -6 => Layout::Kill,
        -2 => Layout::Timer,
        -5 => Layout::Poll,
        _ => Layout::Rt,
    }
}

/// Print a `siginfo_t` already copied: `{si_signo=SIGUSR1, si_code=SI_USER,
/// A `union sigval` as strace shows it: both members, `si_int=42,
/// si_ptr=0x2a` (the int is the low 32 bits on x86).
fn put_sigval(p: &mut Printer, value: u64) {
    p.int("si_int", value as u32 as i32 as i64);
    p.hex("si_ptr", value);
}

/// si_pid=42, si_uid=0}`; `{}` when no signal is in it (waitid WNOHANG).
pub fn put_siginfo_fields(p: &mut Printer, b: &[u8], arch: Arch) {
    let signo = i32_at(b, 0);
    if signo == 0 {
        return;
    }
    put_signal(p, "si_signo", signo as i64);
    put_siginfo_details(p, b, arch);
}

/// The fields of a copied `siginfo_t` after `si_signo` (which a signal
/// line already names): `si_code=CLD_EXITED, si_pid=42, ...`.
pub fn put_siginfo_details(p: &mut Printer, b: &[u8], arch: Arch) {
    let word = word_size(arch);
    let signo = i32_at(b, 0);
    let errno = i32_at(b, 4);
    let code = i32_at(b, 8);
    // The union follows three ints, aligned to a pointer.
    let u = if word == 8 { 16 } else { 12 };
    if errno != 0 {
        let name = crate::call::errno_name(errno as i64);
        p.symbol("si_errno", errno as i64, name);
    }
    let table = match (code > 0 && code != 0x80, signo) {
        (true, 4) => ILL_CODES,
        (true, 8) => FPE_CODES,
        (true, 11) => SEGV_CODES,
        (true, 7) => BUS_CODES,
        (true, 5) => TRAP_CODES,
        (true, 17) => CLD_CODES,
        (true, 29) => POLL_CODES,
        (true, 31) => SYS_CODES,
        _ => SI_CODES,
    };
    p.symbol("si_code", code as i64, lookup(table, code as i64));
    match siginfo_layout(signo, code) {
        Layout::Kill => {
            p.pid_field("si_pid", i32_at(b, u) as i64);
            p.uint("si_uid", u32_at(b, u + 4) as u64);
        }
        Layout::Rt => {
            p.pid_field("si_pid", i32_at(b, u) as i64);
            p.uint("si_uid", u32_at(b, u + 4) as u64);
            put_sigval(p, uint_at(b, u + 8, word));
        }
        Layout::Timer => {
            p.int("si_timerid", i32_at(b, u) as i64);
            p.int("si_overrun", i32_at(b, u + 4) as i64);
            put_sigval(p, uint_at(b, u + 8, word));
        }
        Layout::Chld => {
            p.pid_field("si_pid", i32_at(b, u) as i64);
            p.uint("si_uid", u32_at(b, u + 4) as u64);
            let status = i32_at(b, u + 8);
            if code == 1 {
                p.int("si_status", status as i64);
            } else {
                put_signal(p, "si_status", status as i64);
            }
            // si_utime and si_stime are clock_t (long), after the padding.
            // waitid does not write them (the caller's memory shows), but
            // strace prints them always, here and on a SIGCHLD.
            let t = if word == 8 { u + 16 } else { u + 12 };
            p.int("si_utime", int_at(b, t, word));
            p.int("si_stime", int_at(b, t + word, word));
        }
        Layout::Fault => {
            p.ptr("si_addr", uint_at(b, u, word));
            put_fault_extra(p, b, u, word, lookup(table, code as i64));
        }
        Layout::Poll => {
            p.hex("si_band", uint_at(b, u, word));
            // The fd in the printing process's table, as strace's -y
            // shows it (`si_fd=23</dev/null>`): no table of rtrace's own
            // is needed, /proc answers.
            let fds = crate::fdtable::FdTable::new(p.pid());
            put_fd(p, &fds, "si_fd", i32_at(b, u + word) as i64);
        }
        Layout::Sys => {
            p.ptr("si_call_addr", uint_at(b, u, word));
            // The call by its name in the arch the siginfo names, as
            // strace: `si_syscall=__NR_read, si_arch=AUDIT_ARCH_X86_64`.
            let arch = u32_at(b, u + word + 4);
            let nr = i32_at(b, u + word);
            if nr < 0 {
                p.int("si_syscall", nr as i64);
            } else {
                crate::service::ptrace_info::put_nr(p, "si_syscall", arch, nr as u64);
            }
            let name = crate::abi::xlat::process::AUDIT_ARCH_NAMES
                .iter()
                .find(|(v, _)| *v == arch as u64)
                .map(|(_, n)| *n);
            p.symbol("si_arch", arch as i64, name);
        }
        Layout::None => {}
    }
}

/// The members a fault's siginfo has after `si_addr` (the union at `u`),
/// by its code's name (`<asm-generic/siginfo.h>`): a machine check's
/// `si_addr_lsb`, a bounds violation's `si_lower` and `si_upper`, a
/// protection key fault's `si_pkey`. They follow `si_addr` after a pad
/// of a pointer's alignment.
fn put_fault_extra(p: &mut Printer, b: &[u8], u: usize, word: usize, code: Option<&str>) {
    let after = u + word;
    match code {
        Some("BUS_MCEERR_AR" | "BUS_MCEERR_AO") => {
            p.hex("si_addr_lsb", uint_at(b, after, 2));
        }
        Some("SEGV_BNDERR") => {
            p.ptr("si_lower", uint_at(b, after + word, word));
            p.ptr("si_upper", uint_at(b, after + 2 * word, word));
        }
        Some("SEGV_PKUERR") => p.uint("si_pkey", u32_at(b, after + word) as u64),
        _ => {}
    }
}

/// A `siginfo_t` at `addr`, or its pointer.
pub fn put_siginfo(p: &mut Printer, name: &str, addr: u64) {
    if let Some(b) = open_struct_dyn(p, name, addr, SIGINFO_SIZE) {
        put_siginfo_fields(p, &b, p.arch());
        p.close_struct(true);
    }
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("kill", kill_out, default_in, Normal),
    h("rt_sigaction", rt_sigaction_out, rt_sigaction_in, Normal),
    h("rt_sigpending", rt_sigpending_out, rt_sigpending_in, Normal),
    h(
        "rt_sigprocmask",
        rt_sigprocmask_out,
        rt_sigprocmask_in,
        Normal,
    ),
    h("rt_sigqueueinfo", rt_sigqueueinfo_out, default_in, Normal),
    h(
        "pidfd_send_signal",
        pidfd_send_signal_out,
        default_in,
        Normal,
    ),
    h("rt_sigreturn", rt_sigreturn_out, default_in, Sigreturn),
    h("rt_sigsuspend", rt_sigsuspend_out, default_in, Normal),
    h(
        "rt_sigtimedwait",
        rt_sigtimedwait_out,
        rt_sigtimedwait_in,
        Normal,
    ),
    h(
        "rt_sigtimedwait_time64",
        rt_sigtimedwait_out,
        rt_sigtimedwait_in,
        Normal,
    ),
    h(
        "rt_tgsigqueueinfo",
        rt_tgsigqueueinfo_out,
        default_in,
        Normal,
    ),
    h("sigaltstack", sigaltstack_out, sigaltstack_in, Normal),
    h("signalfd", signalfd_out, default_in, Normal),
    h("signalfd4", signalfd4_out, default_in, Normal),
    h("sigreturn", old_sigreturn_out, default_in, Sigreturn),
    h("tgkill", tgkill_out, default_in, Normal),
    h("tkill", tkill_out, default_in, Normal),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(signal_name(10).as_deref(), Some("SIGUSR1"));
        assert_eq!(signal_name(31).as_deref(), Some("SIGSYS"));
        let rtmin = libc::SIGRTMIN();
        assert_eq!(signal_name(rtmin).as_deref(), Some("SIGRTMIN"));
        assert_eq!(signal_name(rtmin + 2).as_deref(), Some("SIGRTMIN+2"));
        assert_eq!(signal_name(65), None);
    }

    #[test]
    fn sets() {
        assert_eq!(sigset_text(&[0; 8], true), "[]");
        // SIGUSR1 (10) and SIGUSR2 (12).
        let set = (1u64 << 9 | 1 << 11).to_le_bytes();
        assert_eq!(sigset_text(&set, true), "[USR1 USR2]");
        assert_eq!(sigset_text(&set, false), "[10 12]");
        assert_eq!(sigset_text(&[0xff; 8], true), "~[]");
        let most = (!(1u64 << 8)).to_le_bytes();
        assert_eq!(sigset_text(&most, true), "~[KILL]");
        assert_eq!(sigset_text(&[1], true), "[HUP]");
    }
}
