//! Process handlers: the fork and clone family, execve, exit, wait4 and
//! waitid, user and group ids, arch_prctl (prctl is `prctl.rs`), and the thread setup
//! calls (set_tid_address, set_robust_list, rseq). Resource limits, usage,
//! scheduling and system information are in `resource.rs`.

use crate::abi::xlat::process::{
    ARCH_CODES, AT_FLAGS, CLONE_FLAGS, CLONE3_FLAGS, IDTYPES, RSEQ_FLAGS, WAITID_OPTIONS,
    XFEATURE_BITS, XFEATURE_MASKS,
};
use crate::abi::xlat::process::{
    ARCH_GET_CPUID, ARCH_GET_FS, ARCH_GET_GS, ARCH_GET_XCOMP_GUEST_PERM, ARCH_GET_XCOMP_PERM,
    ARCH_GET_XCOMP_SUPP, ARCH_MAP_VDSO_32, ARCH_MAP_VDSO_64, ARCH_MAP_VDSO_X32,
    ARCH_REQ_XCOMP_GUEST_PERM, ARCH_REQ_XCOMP_PERM, ARCH_SET_FS, ARCH_SET_GS, CLONE_PARENT_SETTID,
    CLONE_PIDFD,
};
use crate::call::{
    CallClass::{Exec, Fork, Normal},
    Handler, default_in,
};
use crate::call::{CallCtx, CallType};
use crate::decode::put_dirfd;
use crate::decode::{put_signal, signal_name};
use crate::format::{Naming, Printer, flags_hex};
use crate::kernel::Arch;
use crate::service::generic::no_params_out;
use crate::service::h;
use crate::service::prctl::number_and_name;
use crate::service::raw::lookup;
use crate::service::raw::{
    entered_done, open_returned, put_call_id, put_composed, put_id, put_int_ptr, put_named,
    put_ptr_with, put_word_ptr, read_vec, u32_at, u64_at, wide_ids, word_size,
};
use crate::service::resource::put_rusage;
use crate::service::signal::put_siginfo;
use crate::service::{ByValue, Indirect, Mem};

/// How many argv strings print before `..` without `-v`.
const ARGV_SHOWN: usize = 32;

/// Print a NULL-terminated array of string pointers (argv). A slot that
/// cannot be read ends the array with its address (`["a", &0x7ffd1000]`;
/// strace writes `... /* 0x7ffd1000 */`).
fn put_argv(p: &mut Printer, name: &str, addr: u64) {
    let arch = p.arch();
    let word = if arch == Arch::X86_64 { 8 } else { 4 };
    if addr == 0 {
        p.ptr(name, addr);
        return;
    }
    let Some(first) = p.mem().read_word(addr, arch) else {
        p.ptr(name, addr);
        return;
    };
    p.open(name, "[", Naming::Elements);
    let limit = if p.config().verbose > 0 {
        usize::MAX
    } else {
        ARGV_SHOWN
    };
    let mut ptr = Some(first);
    let mut i = 0;
    while let Some(s) = ptr {
        if s == 0 {
            break;
        }
        if i == limit {
            p.more();
            break;
        }
        p.cstr("", s);
        i += 1;
        let at = addr + i as u64 * word;
        ptr = p.mem().read_word(at, arch);
        if ptr.is_none() {
            p.ptr("", at);
        }
    }
    p.close("]");
}

/// Print an environment array as its address and count, as strace does:
/// `&0x7ffd0fd8 /* 12 vars */` (in JSON `[/* 12 vars */]`); with `-v`
/// every variable, as strace prints it (`["HOME=/root", "TERM=xterm"]`).
/// One whose end cannot be read is its address and the count read
/// (`&0x7ffd0fd8 /* 5 vars, unterminated */`, as strace counts it).
fn put_envp(p: &mut Printer, name: &str, addr: u64) {
    if p.config().verbose > 0 {
        put_argv(p, name, addr);
        return;
    }
    let arch = p.arch();
    let word = if arch == Arch::X86_64 { 8 } else { 4 };
    if addr == 0 {
        p.ptr(name, addr);
        return;
    }
    let mut count = 0u64;
    loop {
        match p.mem().read_word(addr + count * word, arch) {
            Some(0) => break,
            Some(_) if count < 1 << 20 => count += 1,
            None if count > 0 => {
                p.ptr(name, addr);
                p.note(&format!("{}, unterminated", vars(count)));
                return;
            }
            _ => {
                p.ptr(name, addr);
                return;
            }
        }
    }
    if p.json() {
        p.field(name, &format!("[/* {} */]", vars(count)));
    } else {
        p.ptr(name, addr);
        p.note(&vars(count));
    }
}

/// `1 var`, `2 vars`: strace's words for an environment's count.
fn vars(count: u64) -> String {
    format!("{count} var{}", if count == 1 { "" } else { "s" })
}

/// `execve(pathname, argv, envp)`
pub fn execve_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.path("pathname", c.args[0]);
    put_argv(p, "argv", c.args[1]);
    put_envp(p, "envp", c.args[2]);
    CallType::NoReturn
}

/// `execveat(dirfd, pathname, argv, envp, flags)`
pub fn execveat_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_dirfd(p, c.fds, "dirfd", c.int(0));
    p.path("pathname", c.args[1]);
    put_argv(p, "argv", c.args[2]);
    put_envp(p, "envp", c.args[3]);
    p.flags("flags", c.args[4], AT_FLAGS);
    CallType::NoReturn
}

/// `exit(status)`, `exit_group(status)`
pub fn exit_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("status", c.int(0));
    CallType::NoReturn
}

/// Clone flags with the exit signal in the low byte: `CLONE_VM|SIGCHLD`;
/// each part spelled as `-X` says, as strace does: `0x100|17` under
/// `-X raw`, `0x100 /* CLONE_VM */|17 /* SIGCHLD */` under `-X verbose`.
/// `-V`: the whole in hex.
fn put_clone_flags(p: &mut Printer, name: &str, flags: u64) {
    if p.values_style() {
        p.hex(name, flags);
        return;
    }
    let sig = (flags & 0xff) as i32;
    let high = flags & !0xff;
    let names = crate::format::flags_text(high, CLONE_FLAGS, true);
    let mut text = p.spelling(&flags_hex(high), Some(&names));
    // JSON lists the names, whatever -X says.
    let mut json_names = names;
    if sig != 0 {
        let signame = signal_name(sig);
        let spelled = p.spelling(&sig.to_string(), signame.as_deref());
        let signame = signame.unwrap_or_else(|| sig.to_string());
        (text, json_names) = if high == 0 {
            (spelled, signame)
        } else {
            (
                format!("{text}|{spelled}"),
                format!("{json_names}|{signame}"),
            )
        };
    }
    // JSON: the shape p.flags gives, `{"value": .., "flags": [..]}`.
    put_composed(p, name, &text, |p| {
        p.open(name, "{", Naming::Fields);
        p.uint("value", flags);
        p.open("flags", "[", Naming::Elements);
        for f in json_names.split('|').filter(|f| *f != "0") {
            p.field("", f);
        }
        p.close("]");
        p.close("}");
    });
}

/// Whether the kernel writes through `parent_tid` (the child's tid, or a
/// pidfd for clone's CLONE_PIDFD).
fn writes_parent_tid(flags: u64) -> bool {
    flags & (CLONE_PIDFD | CLONE_PARENT_SETTID) != 0
}

/// `clone(flags, stack, parent_tid, child_tid, tls)` (x86_64 order; i386
/// passes tls before child_tid). With CLONE_PARENT_SETTID or CLONE_PIDFD
/// the kernel writes the child's tid or pidfd through `parent_tid`, printed
/// at leave: `clone(CLONE_VM|CLONE_PARENT_SETTID|SIGCHLD, &0x7f.., [1235],
/// NULL, NULL) = 1235`.
pub fn clone_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_clone_flags(p, "flags", c.args[0]);
    p.ptr("stack", c.args[1]);
    if writes_parent_tid(c.args[0]) {
        return CallType::NotDone;
    }
    clone_rest(p, c, false);
    CallType::Done
}

fn clone_rest(p: &mut Printer, c: &mut CallCtx, written: bool) {
    if written && c.args[0] & CLONE_PARENT_SETTID != 0 {
        // The child's tid: `-Y` decorates it, as strace does.
        put_ptr_with(p, "parent_tid", c.args[2], |p, tid| {
            p.pid_field("", tid as i64)
        });
    } else if written {
        // CLONE_PIDFD: the pidfd.
        put_int_ptr(p, "parent_tid", c.args[2]);
    } else {
        p.ptr("parent_tid", c.args[2]);
    }
    if c.arch == Arch::I386 {
        p.ptr("tls", c.args[3]);
        p.ptr("child_tid", c.args[4]);
    } else {
        p.ptr("child_tid", c.args[3]);
        p.ptr("tls", c.args[4]);
    }
}

/// Leave half of clone (when the kernel wrote through parent_tid).
pub fn clone_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if entered_done(p, c) {
        return;
    }
    clone_rest(p, c, !failed);
    p.equals();
    p.result(c.result);
}

/// Size of `struct clone_args` up to `tls` (`CLONE_ARGS_SIZE_VER0`).
const CLONE_ARGS_VER0: u64 = 64;
/// Size with `set_tid` and `set_tid_size` (`CLONE_ARGS_SIZE_VER1`).
const CLONE_ARGS_VER1: u64 = 80;
/// Size with `cgroup` (`CLONE_ARGS_SIZE_VER2`).
const CLONE_ARGS_VER2: u64 = 88;

/// Largest `set_tid` array the kernel takes (`MAX_PID_NS_LEVEL`).
const MAX_SET_TID: u64 = 32;

/// `clone3(cl_args, size)` with `struct clone_args` from `<linux/sched.h>`,
/// every field the caller's size holds; bytes past the last layout known
/// are shown when one is not zero, as strace does. What the kernel wrote
/// through `pidfd` and `parent_tid` follows the result: `= 1235
/// {parent_tid=[1235]}`.
pub fn clone3_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let size = c.args[1];
    let want = size.clamp(CLONE_ARGS_VER0, CLONE_ARGS_VER2) as usize;
    if let Some(raw) = crate::service::raw::open_struct_dyn(p, "cl_args", c.args[0], want) {
        let u = |i: usize| u64_at(&raw, i * 8);
        let flags = u(0);
        if !p.values_style() {
            // clone3 has CLONE_NEWTIME where clone has its exit signal,
            // and rejects CLONE_DETACHED: it is no clone3 flag.
            let mut table: Vec<_> = CLONE_FLAGS
                .iter()
                .filter(|f| f.name != "CLONE_DETACHED")
                .copied()
                .collect();
            table.insert(0, CLONE3_FLAGS[0]);
            p.flags("flags", flags, &table);
        } else {
            p.hex("flags", flags);
        }
        p.ptr("pidfd", u(1));
        p.ptr("child_tid", u(2));
        p.ptr("parent_tid", u(3));
        put_signal(p, "exit_signal", u(4) as i64);
        p.ptr("stack", u(5));
        p.uint("stack_size", u(6));
        p.ptr("tls", u(7));
        if size >= CLONE_ARGS_VER1 {
            put_pid_array(p, "set_tid", u(8), u(9));
            p.uint("set_tid_size", u(9));
        }
        if size >= CLONE_ARGS_VER2 {
            p.uint("cgroup", u(10));
        }
        let all = crate::service::raw::put_struct_tail(p, c.args[0], CLONE_ARGS_VER2, size);
        p.close_struct(all);
    }
    p.uint("size", size);
    CallType::Done
}

/// clone3's `set_tid`: an array of `count` pids.
fn put_pid_array(p: &mut Printer, name: &str, addr: u64, count: u64) {
    if count == 0 || count > MAX_SET_TID {
        p.ptr(name, addr);
        return;
    }
    match read_vec(p, addr, count as usize * 4) {
        Some(b) if p.config().values_only < 2 => {
            p.open(name, "[", Naming::Elements);
            for i in 0..count as usize {
                p.int("", u32_at(&b, i * 4) as i32 as i64);
            }
            p.close("]");
        }
        _ => p.ptr(name, addr),
    }
}

/// Where `struct clone_args` (`<linux/sched.h>`, 64-bit fields on every
/// ABI) holds the addresses the kernel writes the pidfd and the child's
/// tid through.
const CLONE_ARGS_PIDFD: u16 = 8;
const CLONE_ARGS_PARENT_TID: u16 = 24;
/// And the pids the caller asks the child to have (`set_tid`), which
/// the kernel reads.
const CLONE_ARGS_SET_TID: u16 = CLONE_ARGS_VER0 as u16;

/// What clone3's decoders read through the pointers in its struct
/// (`service::Indirect`): an int each at the leave, the pids at the
/// entry.
pub const CLONE3_INDIRECT: &[Indirect] = &[
    Indirect {
        arg: 0,
        offset: CLONE_ARGS_PIDFD,
        mem: Mem::Out(4),
    },
    Indirect {
        arg: 0,
        offset: CLONE_ARGS_PARENT_TID,
        mem: Mem::Out(4),
    },
    // As many as the kernel takes: `set_tid_size` counts pids, not the
    // bytes an `InMember` length is.
    Indirect {
        arg: 0,
        offset: CLONE_ARGS_SET_TID,
        mem: Mem::In(MAX_SET_TID as usize * 4),
    },
];

/// Leave half of clone3: the result, then what the kernel wrote.
pub fn clone3_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    p.result(c.result);
    if failed || c.result == 0 || p.config().values_only >= 2 {
        return;
    }
    let Some(raw) = read_vec(p, c.args[0], 32) else {
        return;
    };
    let flags = u64_at(&raw, 0);
    if !writes_parent_tid(flags) {
        return;
    }
    open_returned(p);
    if flags & CLONE_PIDFD != 0 {
        put_int_ptr(p, "pidfd", u64_at(&raw, CLONE_ARGS_PIDFD as usize));
    }
    if flags & CLONE_PARENT_SETTID != 0 {
        let at = u64_at(&raw, CLONE_ARGS_PARENT_TID as usize);
        put_ptr_with(p, "parent_tid", at, |p, tid| p.pid_field("", tid as i64));
    }
    p.close("}");
}

/// `wait4(pid, wstatus, options, rusage)`: the status is printed at leave.
pub fn wait4_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("pid", c.int(0));
    CallType::NotDone
}

/// A wait status as trace(1) prints it: `W_EXITED(0)`, `W_SIGNALED(SIGKILL)`,
/// its signal spelled as `-X` says (`W_SIGNALED(9 /* SIGKILL */)` under
/// `-X verbose`, `W_SIGNALED(9)` under `-X raw` and `-V`).
pub fn wait_status_text(p: &Printer, status: i32) -> String {
    let sig = |n: i32| p.spelling(&n.to_string(), signal_name(n).as_deref());
    if libc::WIFEXITED(status) {
        format!("W_EXITED({})", libc::WEXITSTATUS(status))
    } else if libc::WIFSIGNALED(status) {
        let core = if libc::WCOREDUMP(status) {
            "|W_COREDUMP"
        } else {
            ""
        };
        format!("W_SIGNALED({}){core}", sig(libc::WTERMSIG(status)))
    } else if libc::WIFSTOPPED(status) {
        format!("W_STOPPED({})", sig(libc::WSTOPSIG(status)))
    } else if libc::WIFCONTINUED(status) {
        "W_CONTINUED".to_string()
    } else {
        format!("0x{status:x}")
    }
}

/// A `struct rusage` a wait call filled: the times, and with `-v` every
/// field (as getrusage prints it).
fn put_wait_rusage(p: &mut Printer, addr: u64, failed: bool) {
    if failed || addr == 0 {
        p.ptr("rusage", addr);
    } else {
        put_rusage(p, "rusage", addr);
    }
}

/// Leave half of wait4.
pub fn wait4_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    let addr = c.args[1];
    if failed || addr == 0 || c.result == 0 {
        p.ptr("wstatus", addr);
    } else {
        let mut raw = [0u8; 4];
        if p.mem().read_exact(addr, &mut raw) {
            let text = wait_status_text(p, i32::from_ne_bytes(raw));
            p.field("wstatus", &text);
        } else {
            p.ptr("wstatus", addr);
        }
    }
    // strace names bit 2 WSTOPPED for every wait call (WUNTRACED is the
    // same bit): one table, waitid's.
    p.flags("options", c.args[2], WAITID_OPTIONS);
    put_wait_rusage(p, c.args[3], failed || c.result == 0);
    p.equals();
    p.result(c.result);
}

/// Leave half of i386's `waitpid(pid, stat_addr, options)` (its enter
/// half is wait4's): wait4 without the rusage.
pub fn waitpid_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    let addr = c.args[1];
    let mut raw = [0u8; 4];
    if failed || addr == 0 || c.result == 0 || !p.mem().read_exact(addr, &mut raw) {
        p.ptr("stat_addr", addr);
    } else {
        let text = wait_status_text(p, i32::from_ne_bytes(raw));
        p.field("stat_addr", &text);
    }
    p.flags("options", c.args[2] as u32 as u64, WAITID_OPTIONS);
    p.equals();
    p.result(c.result);
}

/// `waitid(idtype, id, infop, options, rusage)`: the siginfo at leave.
pub fn waitid_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_named(p, "idtype", c.int(0), IDTYPES);
    p.int("id", c.int(1));
    CallType::NotDone
}

/// Leave half of waitid.
pub fn waitid_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if failed {
        p.ptr("infop", c.args[2]);
    } else {
        put_siginfo(p, "infop", c.args[2]);
    }
    p.flags("options", c.args[3], WAITID_OPTIONS);
    put_wait_rusage(p, c.args[4], failed);
    p.equals();
    p.result(c.result);
}

/// `setuid(uid)`, `setgid(gid)`, `setfsuid(fsuid)`...: one id.
pub fn id1_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_call_id(p, c, "id", c.args[0]);
    CallType::Done
}

/// `setreuid(ruid, euid)`, `setregid(rgid, egid)`
pub fn id2_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_call_id(p, c, "real", c.args[0]);
    put_call_id(p, c, "effective", c.args[1]);
    CallType::Done
}

/// `setresuid(ruid, euid, suid)`, `setresgid(rgid, egid, sgid)`
pub fn id3_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_call_id(p, c, "real", c.args[0]);
    put_call_id(p, c, "effective", c.args[1]);
    put_call_id(p, c, "saved", c.args[2]);
    CallType::Done
}

/// `getresuid(ruid, euid, suid)`, `getresgid(...)`: the ids at leave.
pub fn getres_out(_p: &mut Printer, _c: &mut CallCtx) -> CallType {
    CallType::NotDone
}

/// Leave half of getresuid and getresgid: `[0], [0], [0]` (16-bit ids
/// for i386's calls without `32`).
pub fn getres_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    let size = if wide_ids(c) { 4 } else { 2 };
    for (i, name) in ["real", "effective", "saved"].into_iter().enumerate() {
        match read_vec(p, c.args[i], size) {
            Some(b) if !failed && p.config().values_only < 2 => {
                let mut raw = [0u8; 4];
                raw[..size].copy_from_slice(&b);
                p.open(name, "[", Naming::Elements);
                put_call_id(p, c, "", u32::from_le_bytes(raw) as u64);
                p.close("]");
            }
            _ => p.ptr(name, c.args[i]),
        }
    }
    p.equals();
    p.result(c.result);
}

/// Group ids shown before `..` without `-v`.
const GROUPS_SHOWN: usize = 32;
/// `NGROUPS_MAX` from `<linux/limits.h>`.
const NGROUPS_MAX: u64 = 65536;

/// A list of `count` gids: `[0, 4, 27]`. i386's getgroups and setgroups
/// (without `32`) take 16-bit gids (`old_gid_t`).
fn put_groups(p: &mut Printer, c: &CallCtx, name: &str, addr: u64, count: u64) {
    if count > NGROUPS_MAX || p.config().values_only >= 2 {
        p.ptr(name, addr);
        return;
    }
    let wide = wide_ids(c);
    let size = if wide { 4 } else { 2 };
    let shown = if p.config().verbose > 0 {
        usize::MAX
    } else {
        GROUPS_SHOWN
    };
    // An unreadable tail shows where it is (`decode::put_array`).
    crate::service::raw::put_array(p, name, addr, (count, size, shown), |p, b| {
        if wide {
            put_id(p, "", u32_at(b, 0) as u64);
        } else {
            p.uint("", u16::from_le_bytes([b[0], b[1]]) as u64);
        }
    });
}

/// `setgroups(size, list)`
pub fn setgroups_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("size", c.int(0));
    put_groups(p, c, "list", c.args[1], c.args[0] as u32 as u64);
    CallType::Done
}

/// `getgroups(size, list)`: the list at leave (none when size is 0).
pub fn getgroups_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("size", c.int(0));
    CallType::NotDone
}

/// Leave half of getgroups.
pub fn getgroups_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if failed || c.int(0) == 0 {
        p.ptr("list", c.args[1]);
    } else {
        put_groups(p, c, "list", c.args[1], c.result as u64);
    }
    p.equals();
    p.result(c.result);
}

/// What arch_prctl's getters write behind `addr`, by code
/// (`service::ByValue`): the BPF engine copies these.
pub const ARCH_PRCTL_MEMORY: &[ByValue] = &[
    arch_get(ARCH_GET_FS),
    arch_get(ARCH_GET_GS),
    arch_get(ARCH_GET_XCOMP_SUPP),
    arch_get(ARCH_GET_XCOMP_PERM),
    arch_get(ARCH_GET_XCOMP_GUEST_PERM),
];

/// An arch_prctl getter `code`: 8 bytes written behind `addr`.
const fn arch_get(code: i64) -> ByValue {
    ByValue {
        selector: 0,
        value: code as u64,
        arg: 1,
        mem: Mem::Out(8),
    }
}

/// `arch_prctl(code, addr)`: the getters print what they wrote at leave.
pub fn arch_prctl_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let code = c.int(0);
    put_named(p, "code", code, ARCH_CODES);
    match code {
        ARCH_GET_FS
        | ARCH_GET_GS
        | ARCH_GET_XCOMP_SUPP
        | ARCH_GET_XCOMP_PERM
        | ARCH_GET_XCOMP_GUEST_PERM => return CallType::NotDone,
        ARCH_SET_GS | ARCH_SET_FS | ARCH_MAP_VDSO_X32 | ARCH_MAP_VDSO_32 | ARCH_MAP_VDSO_64 => {
            p.ptr("addr", c.args[1])
        }
        ARCH_GET_CPUID => {}
        // An XSAVE feature number, shown with its name as strace does
        // (the kernel does not export the names).
        ARCH_REQ_XCOMP_PERM | ARCH_REQ_XCOMP_GUEST_PERM => {
            let bit = c.args[1] as i64;
            number_and_name(p, "arg", bit, lookup(XFEATURE_BITS, bit), true);
        }
        // ARCH_SET_CPUID: a number.
        _ => p.uint("arg", c.args[1]),
    }
    CallType::Done
}

/// Leave half of the arch_prctl getters.
pub fn arch_prctl_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if entered_done(p, c) {
        return;
    }
    let addr = c.args[1];
    if failed {
        p.ptr("addr", addr);
    } else if matches!(c.int(0), ARCH_GET_FS | ARCH_GET_GS) {
        put_word_ptr(p, "addr", addr);
    } else {
        // The XCOMP getters write a 64-bit feature mask, shown with its
        // names as strace shows it: `[0x7 /* XFEATURE_MASK_FPSSE|..._YMM */]`.
        match read_vec(p, addr, 8) {
            Some(b) if p.config().values_only < 2 => {
                let mask = u64_at(&b, 0);
                let names = crate::format::flags_text(mask, XFEATURE_MASKS, true);
                p.open("addr", "[", Naming::Elements);
                if mask == 0 {
                    p.hex("", mask);
                } else {
                    number_and_name(p, "", mask as i64, Some(&names), true);
                }
                p.close("]");
            }
            _ => p.ptr("addr", addr),
        }
    }
    p.equals();
    p.result(c.result);
}

/// `set_tid_address(tidptr)`
pub fn set_tid_address_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.ptr("tidptr", c.args[0]);
    CallType::Done
}

/// `set_robust_list(head, len)`
pub fn set_robust_list_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.ptr("head", c.args[0]);
    p.uint("len", c.args[1]);
    CallType::Done
}

/// `get_robust_list(pid, head_ptr, len_ptr)`: both at leave.
pub fn get_robust_list_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("pid", c.int(0));
    CallType::NotDone
}

/// Leave half of get_robust_list.
pub fn get_robust_list_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if failed {
        p.ptr("head_ptr", c.args[1]);
        p.ptr("len_ptr", c.args[2]);
    } else {
        put_word_ptr(p, "head_ptr", c.args[1]);
        let word = word_size(c.arch);
        match read_vec(p, c.args[2], word) {
            Some(b) if p.config().values_only < 2 => {
                p.open("len_ptr", "[", Naming::Elements);
                p.uint("", crate::service::raw::uint_at(&b, 0, word));
                p.close("]");
            }
            _ => p.ptr("len_ptr", c.args[2]),
        }
    }
    p.equals();
    p.result(c.result);
}

/// `rseq(rseq, rseq_len, flags, sig)`
pub fn rseq_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.ptr("rseq", c.args[0]);
    p.uint("rseq_len", c.args[1] as u32 as u64);
    p.flags("flags", c.args[2] as u32 as u64, RSEQ_FLAGS);
    p.hex("sig", c.args[3] as u32 as u64);
    CallType::Done
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("arch_prctl", arch_prctl_out, arch_prctl_in, Normal),
    h("clone", clone_out, clone_in, Fork),
    h("clone3", clone3_out, clone3_in, Fork),
    h("execve", execve_out, default_in, Exec),
    h("execveat", execveat_out, default_in, Exec),
    h("exit", exit_out, default_in, Normal),
    h("exit_group", exit_out, default_in, Normal),
    h("fork", no_params_out, default_in, Fork),
    h(
        "get_robust_list",
        get_robust_list_out,
        get_robust_list_in,
        Normal,
    ),
    h("getgroups", getgroups_out, getgroups_in, Normal),
    h("getgroups32", getgroups_out, getgroups_in, Normal),
    h("getresgid", getres_out, getres_in, Normal),
    h("getresgid32", getres_out, getres_in, Normal),
    h("getresuid", getres_out, getres_in, Normal),
    h("getresuid32", getres_out, getres_in, Normal),
    h("rseq", rseq_out, default_in, Normal),
    h("set_robust_list", set_robust_list_out, default_in, Normal),
    h("set_tid_address", set_tid_address_out, default_in, Normal),
    h("setfsgid", id1_out, default_in, Normal),
    h("setfsgid32", id1_out, default_in, Normal),
    h("setfsuid", id1_out, default_in, Normal),
    h("setfsuid32", id1_out, default_in, Normal),
    h("setgid", id1_out, default_in, Normal),
    h("setgid32", id1_out, default_in, Normal),
    h("setgroups", setgroups_out, default_in, Normal),
    h("setgroups32", setgroups_out, default_in, Normal),
    h("setregid", id2_out, default_in, Normal),
    h("setregid32", id2_out, default_in, Normal),
    h("setresgid", id3_out, default_in, Normal),
    h("setresgid32", id3_out, default_in, Normal),
    h("setresuid", id3_out, default_in, Normal),
    h("setresuid32", id3_out, default_in, Normal),
    h("setreuid", id2_out, default_in, Normal),
    h("setreuid32", id2_out, default_in, Normal),
    h("setuid", id1_out, default_in, Normal),
    h("setuid32", id1_out, default_in, Normal),
    h("vfork", no_params_out, default_in, Fork),
    h("wait4", wait4_out, wait4_in, Normal),
    h("waitpid", wait4_out, waitpid_in, Normal),
    h("waitid", waitid_out, waitid_in, Normal),
];
