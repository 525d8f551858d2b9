//! The system administration calls, as strace 6 shows them: reboot,
//! syslog, swapon, kexec_load, kexec_file_load, delete_module,
//! finit_module and _sysctl. Names and layouts from `abi::xlat::process`
//! (the procsys block of tools/abi_tables.py).

use crate::abi::layout::{extent, field};
use crate::abi::xlat::process::{
    DELETE_MODULE_FLAGS, KEXEC_ARCH_MASK, KEXEC_ARCHES, KEXEC_FILE_FLAGS, KEXEC_FLAGS,
    LINUX_REBOOT_CMD_RESTART2, MODULE_INIT_FLAGS, REBOOT_CMDS, REBOOT_MAGICS, SWAP_FLAG_PRIO_MASK,
    SWAP_FLAGS, SYSCTL_ARGS, SYSLOG_ACTIONS, SYSLOG_CONSOLE_LEVELS,
};
use crate::call::{CallClass::Normal, CallCtx, CallType, Handler};
use crate::decode::put_fd;
use crate::format::{Naming, Printer, flags_text};
use crate::service::prctl::number_and_name;
use crate::service::raw::{lookup, open_struct_dyn, put_composed, word_size};
use crate::service::{ByValue, Mem, h};

/// A 32-bit value named from `table`, else in hex.
fn named32(p: &mut Printer, name: &str, value: u64, table: &[(i64, &'static str)]) {
    let value = value as u32 as u64;
    match lookup(table, value as i64) {
        Some(sym) => p.symbol(name, value as i64, Some(sym)),
        None => p.hex(name, value),
    }
}

/// The longest string reboot's LINUX_REBOOT_CMD_RESTART2 takes, with its
/// NUL.
const RESTART2_ARG: usize = 256;

/// What reboot's decoder reads at `arg` (`service::by_value`): the
/// command string of LINUX_REBOOT_CMD_RESTART2.
pub const REBOOT_MEMORY: &[ByValue] = &[ByValue {
    selector: 2,
    value: LINUX_REBOOT_CMD_RESTART2 as u64,
    arg: 3,
    mem: Mem::Str(RESTART2_ARG),
}];

/// `reboot(magic1, magic2, cmd, arg)`: the kernel reads the magics and the
/// command as ints, and `arg` only for LINUX_REBOOT_CMD_RESTART2 (a
/// string of at most 255 bytes).
pub fn reboot_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    named32(p, "magic1", c.args[0], REBOOT_MAGICS);
    named32(p, "magic2", c.args[1], REBOOT_MAGICS);
    named32(p, "cmd", c.args[2], REBOOT_CMDS);
    if c.args[2] as u32 == LINUX_REBOOT_CMD_RESTART2 {
        match p.mem().read_cstr(c.args[3], RESTART2_ARG - 1) {
            Some((bytes, terminated)) => p.string("arg", &bytes, !terminated),
            None => p.ptr("arg", c.args[3]),
        }
    }
    CallType::Done
}

/// syslog's actions that read the log into `buf` (READ, READ_ALL,
/// READ_CLEAR): the text at leave.
fn syslog_reads(action: i32) -> bool {
    matches!(action, 2..=4)
}

/// `syslog(type, buf, len)`: the action with its number, as strace shows
/// it (`10 /* SYSLOG_ACTION_SIZE_BUFFER */`: the names are the kernel's
/// own); `buf` and `len` only for the actions that use them, the text
/// read at leave.
pub fn syslog_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let action = c.int(0) as i32;
    number_and_name(
        p,
        "type",
        action as i64,
        lookup(SYSLOG_ACTIONS, action as i64),
        false,
    );
    match action {
        // CLOSE, OPEN, CLEAR, CONSOLE_OFF, CONSOLE_ON, SIZE_UNREAD,
        // SIZE_BUFFER: buf and len are not read.
        0 | 1 | 5 | 6 | 7 | 9 | 10 => {}
        a if syslog_reads(a) => return CallType::NotDone,
        // CONSOLE_LEVEL: len is the level.
        8 => {
            p.ptr("buf", c.args[1]);
            let level = c.int(2) as i32 as i64;
            // The console shows messages below the level: one past
            // LOGLEVEL_DEBUG (8, the kernel's highest it takes) shows them
            // all, and strace spells it so.
            let debug = SYSLOG_CONSOLE_LEVELS
                .iter()
                .find(|e| e.1 == "LOGLEVEL_DEBUG");
            let past_debug = debug
                .filter(|&&(v, _)| v + 1 == level)
                .map(|_| "LOGLEVEL_DEBUG+1".to_string());
            let sym = lookup(SYSLOG_CONSOLE_LEVELS, level)
                .map(str::to_string)
                .or(past_debug);
            number_and_name(p, "len", level, sym.as_deref(), false);
        }
        _ => {
            p.ptr("buf", c.args[1]);
            p.int("len", c.int(2));
        }
    }
    CallType::Done
}

/// Leave half of syslog's reads: the text, as long as the result.
pub fn syslog_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if p.equals_printed() {
        p.result(c.result);
        return;
    }
    if failed {
        p.ptr("buf", c.args[1]);
    } else {
        p.buf("buf", c.args[1], c.result as u64);
    }
    p.int("len", c.int(2));
    p.equals();
    p.result(c.result);
}

/// `swapon(path, swapflags)`: the flags above the priority, then the
/// priority in decimal (`SWAP_FLAG_PREFER|10`).
pub fn swapon_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.path("specialfile", c.args[0]);
    let value = c.args[1] as u32 as u64;
    let mask = SWAP_FLAG_PRIO_MASK as u64;
    let flags = value & !mask;
    if flags == 0 || !p.symbols() {
        if flags == 0 {
            p.uint("swap_flags", value);
        } else {
            p.hex("swap_flags", value);
        }
    } else {
        let text = format!("{}|{}", flags_text(flags, SWAP_FLAGS, true), value & mask);
        p.symbol("swap_flags", value as i64, Some(&text));
    }
    CallType::Done
}

/// The words of a `struct kexec_segment` (`buf`, `bufsz`, `mem`,
/// `memsz`: pointers and sizes, a word each): what the BPF engine copies
/// of each, as no generated declaration describes kexec_load (the kernel
/// they come from was built without kexec).
pub const KEXEC_SEGMENT_WORDS: usize = 4;

/// kexec_load's `struct kexec_segment`s (four words each), at most
/// `KEXEC_SEGMENT_MAX` (16) of them, as `decode::put_array` reads arrays: an
/// unreadable tail ends with its address. `buf` and `mem` are addresses
/// rtrace does not read (the image's bytes; a physical address), plain.
fn put_kexec_segments(p: &mut Printer, c: &CallCtx, addr: u64, count: u64) {
    let word = word_size(c.arch);
    let words = KEXEC_SEGMENT_WORDS;
    if count > 16 || count == 0 {
        p.ptr("segments", addr);
        return;
    }
    let shown = crate::service::raw::array_limit(p);
    crate::service::raw::put_array(p, "segments", addr, (count, words * word, shown), |p, b| {
        let at = |k: usize| crate::service::raw::uint_at(b, k * word, word);
        p.open("", "{", Naming::Fields);
        p.addr("buf", at(0));
        p.uint("bufsz", at(1));
        p.addr("mem", at(2));
        p.uint("memsz", at(3));
        p.close("}");
    });
}

/// `kexec_load(entry, nr_segments, segments, flags)`: the flags as the
/// arch field and the flags below it (`KEXEC_ARCH_X86_64|KEXEC_ON_CRASH`).
pub fn kexec_load_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    // The kernel's entry point, never an address of the tracee's.
    p.addr("entry", c.args[0]);
    p.uint("nr_segments", c.args[1]);
    put_kexec_segments(p, c, c.args[2], c.args[1]);
    let value = c.args[3];
    let mask = KEXEC_ARCH_MASK as u64;
    let (arch, rest) = (value & mask, value & !mask);
    if !p.symbols() {
        p.hex("flags", value);
        return CallType::Done;
    }
    let name = lookup(KEXEC_ARCHES, arch as i64);
    let arch_text = name.map_or_else(|| format!("0x{arch:x}"), str::to_string);
    let text = if rest == 0 {
        arch_text.clone()
    } else {
        format!("{arch_text}|{}", flags_text(rest, KEXEC_FLAGS, true))
    };
    put_composed(p, "flags", &text, |p| {
        p.open("flags", "{", Naming::Fields);
        p.uint("value", value);
        p.symbol("arch", arch as i64, name);
        p.flags("flags", rest, KEXEC_FLAGS);
        p.close("}");
    });
    CallType::Done
}

/// `kexec_file_load(kernel_fd, initrd_fd, cmdline_len, cmdline, flags)`:
/// the command line as the `cmdline_len` bytes the kernel copies.
pub fn kexec_file_load_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "kernel_fd", c.int(0));
    put_fd(p, c.fds, "initrd_fd", c.int(1));
    p.uint("cmdline_len", c.args[2]);
    p.buf("cmdline_ptr", c.args[3], c.args[2]);
    p.flags("flags", c.args[4], KEXEC_FILE_FLAGS);
    CallType::Done
}

/// `delete_module(name, flags)`: `unsigned int flags` (O_NONBLOCK,
/// O_TRUNC), cut to its declared width here because the running kernel,
/// built without modules, declares no width for it.
pub fn delete_module_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.cstr("name_user", c.args[0]);
    p.flags("flags", c.args[1] as u32 as u64, DELETE_MODULE_FLAGS);
    CallType::Done
}

/// `finit_module(fd, uargs, flags)`: `int flags` (`MODULE_INIT_*`), cut
/// as delete_module's.
pub fn finit_module_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    p.cstr("uargs", c.args[1]);
    p.flags("flags", c.args[2] as u32 as u64, MODULE_INIT_FLAGS);
    CallType::Done
}

/// `_sysctl(args)`: `struct __sysctl_args`, its pointers as addresses.
pub fn sysctl_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    if c.arch == crate::kernel::Arch::I386 {
        // The generated layout is x86_64's.
        p.ptr("args", c.args[0]);
        return CallType::Done;
    }
    if let Some(b) = open_struct_dyn(p, "args", c.args[0], extent(SYSCTL_ARGS)) {
        let get = |name: &str| field(SYSCTL_ARGS, name).read(&b).unwrap_or(0);
        p.ptr("name", get("name"));
        p.int("nlen", get("nlen") as i64);
        p.ptr("oldval", get("oldval"));
        p.ptr("oldlenp", get("oldlenp"));
        p.ptr("newval", get("newval"));
        p.uint("newlen", get("newlen"));
        p.close_struct(true);
    }
    CallType::Done
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("_sysctl", sysctl_out, crate::call::default_in, Normal),
    h(
        "delete_module",
        delete_module_out,
        crate::call::default_in,
        Normal,
    ),
    h(
        "finit_module",
        finit_module_out,
        crate::call::default_in,
        Normal,
    ),
    h(
        "kexec_file_load",
        kexec_file_load_out,
        crate::call::default_in,
        Normal,
    ),
    h(
        "kexec_load",
        kexec_load_out,
        crate::call::default_in,
        Normal,
    ),
    h("reboot", reboot_out, crate::call::default_in, Normal),
    h("swapon", swapon_out, crate::call::default_in, Normal),
    h("syslog", syslog_out, syslog_in, Normal),
];
