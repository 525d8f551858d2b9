//! Process handlers: execve, exit, fork and clone family, wait4.

use crate::call::{
    CallClass::{Exec, Fork, Normal},
    Handler, default_in,
};
use crate::call::{CallCtx, CallType};
use crate::format::{FlagDef, Naming, Printer, flag};
use crate::kernel::Arch;
use crate::service::generic::no_params_out;
use crate::service::generic::put_dirfd;
use crate::service::h;
use crate::service::signal::{put_signal, signal_name};

/// How many argv strings print before `..` without `-v`.
const ARGV_SHOWN: usize = 32;

/// Print a NULL-terminated array of string pointers (argv).
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
        ptr = p.mem().read_word(addr + i as u64 * word, arch);
        if ptr.is_none() {
            p.more();
        }
    }
    p.close("]");
}

/// Print an environment array as its count: `[/* 12 vars */]`.
fn put_envp(p: &mut Printer, name: &str, addr: u64) {
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
            _ => {
                p.ptr(name, addr);
                return;
            }
        }
    }
    p.field(name, &format!("[/* {count} vars */]"));
}

/// `execve(pathname, argv, envp)`
pub fn execve_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.path("pathname", c.args[0]);
    put_argv(p, "argv", c.args[1]);
    put_envp(p, "envp", c.args[2]);
    CallType::NoReturn
}

/// `AT_*` flags accepted by execveat.
const AT_FLAGS: &[FlagDef] = &[
    flag(0x100, "AT_SYMLINK_NOFOLLOW"),
    flag(0x1000, "AT_EMPTY_PATH"),
];

/// `execveat(dirfd, pathname, argv, envp, flags)`
pub fn execveat_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_dirfd(p, "dirfd", c.int(0));
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

/// `CLONE_*` from `<linux/sched.h>`; the low byte is the exit signal.
pub const CLONE_FLAGS: &[FlagDef] = &[
    flag(0x100, "CLONE_VM"),
    flag(0x200, "CLONE_FS"),
    flag(0x400, "CLONE_FILES"),
    flag(0x800, "CLONE_SIGHAND"),
    flag(0x1000, "CLONE_PIDFD"),
    flag(0x2000, "CLONE_PTRACE"),
    flag(0x4000, "CLONE_VFORK"),
    flag(0x8000, "CLONE_PARENT"),
    flag(0x10000, "CLONE_THREAD"),
    flag(0x20000, "CLONE_NEWNS"),
    flag(0x40000, "CLONE_SYSVSEM"),
    flag(0x80000, "CLONE_SETTLS"),
    flag(0x100000, "CLONE_PARENT_SETTID"),
    flag(0x200000, "CLONE_CHILD_CLEARTID"),
    flag(0x400000, "CLONE_DETACHED"),
    flag(0x800000, "CLONE_UNTRACED"),
    flag(0x1000000, "CLONE_CHILD_SETTID"),
    flag(0x2000000, "CLONE_NEWCGROUP"),
    flag(0x4000000, "CLONE_NEWUTS"),
    flag(0x8000000, "CLONE_NEWIPC"),
    flag(0x10000000, "CLONE_NEWUSER"),
    flag(0x20000000, "CLONE_NEWPID"),
    flag(0x40000000, "CLONE_NEWNET"),
    flag(0x80000000, "CLONE_IO"),
    flag(0x100000000, "CLONE_CLEAR_SIGHAND"),
    flag(0x200000000, "CLONE_INTO_CGROUP"),
];

/// Clone flags with the exit signal in the low byte: `CLONE_VM|SIGCHLD`.
fn put_clone_flags(p: &mut Printer, name: &str, flags: u64) {
    let sig = (flags & 0xff) as i32;
    let mut text = crate::format::flags_text(flags & !0xff, CLONE_FLAGS, p.symbols());
    if sig != 0 {
        let signame = signal_name(sig)
            .filter(|_| p.symbols())
            .unwrap_or_else(|| sig.to_string());
        text = if flags & !0xff == 0 {
            signame
        } else {
            format!("{text}|{signame}")
        };
    }
    p.field(name, &text);
}

/// `clone(flags, stack, parent_tid, child_tid, tls)` (x86_64 order).
pub fn clone_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_clone_flags(p, "flags", c.args[0]);
    p.ptr("stack", c.args[1]);
    p.ptr("parent_tid", c.args[2]);
    if c.arch == Arch::I386 {
        // i386 passes tls before child_tid.
        p.ptr("tls", c.args[3]);
        p.ptr("child_tid", c.args[4]);
    } else {
        p.ptr("child_tid", c.args[3]);
        p.ptr("tls", c.args[4]);
    }
    CallType::Done
}

/// `clone3(cl_args, size)` with `struct clone_args` from `<linux/sched.h>`.
pub fn clone3_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    if let Some(raw) = p.open_struct::<64>("cl_args", c.args[0]) {
        let u = |i: usize| u64::from_ne_bytes(raw[i * 8..i * 8 + 8].try_into().unwrap());
        put_clone_flags(p, "flags", u(0));
        p.ptr("pidfd", u(1));
        p.ptr("child_tid", u(2));
        p.ptr("parent_tid", u(3));
        put_signal(p, "exit_signal", u(4) as i64);
        p.ptr("stack", u(5));
        p.uint("stack_size", u(6));
        p.ptr("tls", u(7));
        p.close_struct(c.args[1] <= 64);
    }
    p.uint("size", c.args[1]);
    CallType::Done
}

/// `wait4(pid, wstatus, options, rusage)`: the status is printed at leave.
pub fn wait4_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("pid", c.int(0));
    CallType::NotDone
}

/// `WNOHANG` and friends from `<linux/wait.h>`.
const WAIT_OPTIONS: &[FlagDef] = &[
    flag(1, "WNOHANG"),
    flag(2, "WUNTRACED"),
    flag(4, "WEXITED"),
    flag(8, "WCONTINUED"),
    flag(0x01000000, "WNOWAIT"),
    flag(0x20000000, "__WNOTHREAD"),
    flag(0x40000000, "__WALL"),
    flag(0x80000000, "__WCLONE"),
];

/// A wait status as trace(1) prints it: `W_EXITED(0)`, `W_SIGNALED(SIGKILL)`.
pub fn wait_status_text(status: i32, symbols: bool) -> String {
    let sig = |n: i32| {
        signal_name(n)
            .filter(|_| symbols)
            .unwrap_or_else(|| n.to_string())
    };
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

/// Leave half of wait4.
pub fn wait4_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    let addr = c.args[1];
    if failed || addr == 0 || c.result == 0 {
        p.ptr("wstatus", addr);
    } else {
        let mut raw = [0u8; 4];
        if p.mem().read_exact(addr, &mut raw) {
            let text = wait_status_text(i32::from_ne_bytes(raw), p.symbols());
            p.field("wstatus", &text);
        } else {
            p.ptr("wstatus", addr);
        }
    }
    p.flags("options", c.args[2], WAIT_OPTIONS);
    p.ptr("rusage", c.args[3]);
    p.equals();
    p.result(c.result);
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("clone", clone_out, default_in, Fork),
    h("clone3", clone3_out, default_in, Fork),
    h("execve", execve_out, default_in, Exec),
    h("execveat", execveat_out, default_in, Exec),
    h("exit", exit_out, default_in, Normal),
    h("exit_group", exit_out, default_in, Normal),
    h("fork", no_params_out, default_in, Fork),
    h("vfork", no_params_out, default_in, Fork),
    h("wait4", wait4_out, wait4_in, Normal),
];
