//! user_events diagnostics: writes, registrations and deletions against
//! kernel/trace/trace_events_user.c.
//!
//! Each open user_events_data file keeps its registrations (write_index,
//! command, enable word); a write is checked as `user_events_write_core`
//! checks it, in its order (the write_index, the payload's fixed size, the
//! event enabled, the `__data_loc`/`__rel_loc` words), with the enable
//! word read from the program's memory at the time of the write. A
//! refused DIAG_IOCSREG, DIAG_IOCSUNREG or DIAG_IOCSDEL gets its reason.

use super::{Area, CallInfo, Diag, errno_text, is_error};
use crate::abi::gen_user_events::{
    DIAG_IOCSDEL32, DIAG_IOCSREG32, DIAG_IOCSUNREG32, USER_EVENT_REG_MULTI_FORMAT,
    USER_EVENT_REG_PERSIST, user_reg as REG, user_unreg as UNREG,
};
use crate::abi::layout::Field;
use crate::abi::user_events::{EventDef, FieldKind, TRACE_ENTRY_SIZE};
use crate::fdtable::{FdTable, Registration, SharedFdTable, SharedFileState};
use crate::ioctl::user_events::{
    DIAG_IOCSDEL, DIAG_IOCSREG, DIAG_IOCSUNREG, command_text, escape, parse_command,
};
use crate::kernel::{Arch, Memory};

/// Bytes of a write looked at (the kernel's records are smaller).
const MAX_RECORD: u64 = 64 * 1024;
/// `sizeof(struct user_reg)` since Linux 6.4.
const USER_REG_SIZE: u32 = REG::SIZEOF as u32;
/// `sizeof(struct user_unreg)`.
const USER_UNREG_SIZE: u32 = UNREG::SIZEOF as u32;
/// The kernel reads at most a page of either struct.
const PAGE: u32 = 4096;
/// `USER_EVENT_REG_PERSIST | USER_EVENT_REG_MULTI_FORMAT`.
const KNOWN_FLAGS: u16 = USER_EVENT_REG_PERSIST | USER_EVENT_REG_MULTI_FORMAT;
const REG_PERSIST: u16 = USER_EVENT_REG_PERSIST;
/// The top of user space the kernel's access_ok accepts (x86_64).
const USER_TOP: u64 = 0x7fff_ffff_f000;
/// Longest command the kernel takes (`MAX_EVENT_DESC`, with its NUL).
const MAX_COMMAND: usize = 512;

fn diag(kind: &'static str, fd: i32, text: String) -> Diag {
    Diag::new(Area::UserEvents, kind, fd, text)
}

/// A diagnostic of a write that says the kernel refuses it: shown only
/// if the write did fail.
fn refusal(kind: &'static str, fd: i32, text: String) -> Diag {
    diag(kind, fd, text).refused()
}

/// `write_index 0 <name>`
fn label(index: u32, reg: Option<&Registration>) -> String {
    match reg {
        Some(r) => {
            let name = parse_command(&r.command).name;
            format!("write_index {index} <{}>", escape(&name))
        }
        None => format!("write_index {index}"),
    }
}

/// The bytes a write or writev hands the kernel, when readable.
fn record(call: &CallInfo, mem: &mut Memory) -> Option<Vec<u8>> {
    if call.name == "write" {
        let len = call.args[2].min(MAX_RECORD);
        let mut buf = vec![0u8; len as usize];
        let got = mem.read(call.args[1], &mut buf);
        buf.truncate(got);
        return Some(buf);
    }
    let word = if call.arch == Arch::X86_64 { 8 } else { 4 };
    let (addr, count) = (call.args[1], call.args[2]);
    if count > 1024 {
        return None;
    }
    let mut out = Vec::new();
    for i in 0..count {
        let at = addr.wrapping_add(i * 2 * word);
        let base = mem.read_word(at, call.arch)?;
        let len = mem.read_word(at.wrapping_add(word), call.arch)?;
        if len > MAX_RECORD - out.len() as u64 {
            return None;
        }
        let start = out.len();
        out.resize(start + len as usize, 0);
        if !mem.read_exact(base, &mut out[start..]) {
            return None;
        }
    }
    Some(out)
}

/// A write or writev on user_events_data, at its entry.
pub fn write(call: &CallInfo, fd: i32, fds: &FdTable, mem: &mut Memory) -> Vec<Diag> {
    let mut out = Vec::new();
    let Some(file) = fds.with(fd, |info| info.file.clone()).flatten() else {
        return out;
    };
    let Some(bytes) = record(call, mem) else {
        return out;
    };
    if bytes.len() < 4 {
        out.push(refusal(
            "write_index",
            fd,
            format!(
                "a write of {} bytes has no 4-byte write_index: refused (EFAULT)",
                bytes.len()
            ),
        ));
        return out;
    }
    let index = u32::from_le_bytes(bytes[..4].try_into().unwrap());
    if (index as i32) < 0 {
        out.push(refusal(
            "write_index",
            fd,
            format!("write_index {} is negative: refused (EINVAL)", index as i32),
        ));
        return out;
    }
    let st = file.borrow();
    let regs: Vec<&Registration> = st.regs.iter().filter(|r| r.index == index).collect();
    let Some(&first) = regs.first() else {
        if st.from_open {
            let mut known: Vec<(u32, String)> = st
                .regs
                .iter()
                .map(|r| (r.index, label(r.index, Some(r))))
                .collect();
            known.sort();
            known.dedup();
            let list: Vec<String> = known.into_iter().map(|(_, l)| l).collect();
            let registered = if list.is_empty() {
                "nothing is registered on it".to_string()
            } else {
                format!("registered: {}", list.join(", "))
            };
            out.push(refusal(
                "write_index",
                fd,
                format!(
                    "write_index {index} was never registered on this fd ({registered}): refused (ENOENT)"
                ),
            ));
        }
        return out;
    };
    let what = label(index, Some(first));
    let def = parse_command(&first.command);
    let payload = &bytes[4..];
    if def.error.is_none() && payload.len() < def.min_size() {
        let cut = def
            .fields
            .iter()
            .find(|f| f.offset + f.size > payload.len())
            .map(|f| format!(" ({} @{} is cut)", f.name, f.offset))
            .unwrap_or_default();
        out.push(refusal(
            "payload",
            fd,
            format!(
                "{what}: a payload of {} bytes, its fields need {}{cut}: refused (EINVAL)",
                payload.len(),
                def.min_size()
            ),
        ));
        return out;
    }
    // The enable bits this process registered for the event.
    let mine: Vec<&&Registration> = regs
        .iter()
        .filter(|r| r.tgid == call.tgid && r.enabler.is_some())
        .collect();
    if !mine.is_empty() && mine.iter().all(|r| r.unregistered) {
        out.push(diag(
            "unregistered",
            fd,
            format!(
                "a write of {what} after DIAG_IOCSUNREG removed its enable bit: the program no longer learns whether the event is enabled"
            ),
        ));
    } else if !mine.is_empty() {
        let mut enabled = false;
        let mut read_all = true;
        let mut shown = None;
        for r in mine.iter().filter(|r| !r.unregistered) {
            let (addr, bit, size) = r.enabler.expect("filtered");
            let mut raw = [0u8; 8];
            if !mem.read_exact(addr, &mut raw[..size as usize]) {
                read_all = false;
                continue;
            }
            let word = u64::from_le_bytes(raw);
            enabled |= word >> bit & 1 != 0;
            shown.get_or_insert((addr, bit));
        }
        if read_all
            && !enabled
            && let Some((addr, bit)) = shown
        {
            out.push(refusal(
                "disabled",
                fd,
                format!(
                    "a write of {what} while it is disabled (bit {bit} of the enable word at &0x{addr:x} is clear): the kernel drops it (EBADF)"
                ),
            ));
        }
    }
    if def.error.is_none() {
        locs(&def, payload, fd, &what, &mut out);
    }
    out
}

/// The `__data_loc` and `__rel_loc` words of a payload, as the kernel's
/// `user_event_validate` checks them.
fn locs(def: &EventDef, payload: &[u8], fd: i32, what: &str, out: &mut Vec<Diag>) {
    for f in &def.fields {
        let (rel, chars) = match f.kind {
            FieldKind::DataLoc { chars } => (false, chars),
            FieldKind::RelLoc { chars } => (true, chars),
            _ => continue,
        };
        let Some(word) = payload.get(f.offset..f.offset + 4) else {
            continue;
        };
        let loc = u32::from_le_bytes(word.try_into().unwrap()) as usize;
        let (off, size) = (loc & 0xffff, loc >> 16);
        let kind = if rel { "__rel_loc" } else { "__data_loc" };
        let name = f.name.clone();
        let start = if rel {
            f.offset + 4 + off
        } else if off < TRACE_ENTRY_SIZE {
            out.push(diag(
                "payload",
                fd,
                format!(
                    "{what}: {kind} {name} (offset {off}) points into the record's {TRACE_ENTRY_SIZE}-byte header; __data_loc offsets count from the record's start, payload byte 0 is offset {TRACE_ENTRY_SIZE}"
                ),
            ));
            continue;
        } else {
            off - TRACE_ENTRY_SIZE
        };
        let end = start + size;
        if end > payload.len() {
            out.push(refusal(
                "payload",
                fd,
                format!(
                    "{what}: {kind} {name} (offset {off}, size {size}) ends at payload byte {end}, past the {}-byte payload: the kernel refuses it (EFAULT) while the event is enabled",
                    payload.len()
                ),
            ));
        } else if chars && size > 0 && payload[end - 1] != 0 {
            out.push(refusal(
                "payload",
                fd,
                format!(
                    "{what}: {kind} {name} (offset {off}, size {size}) does not end in a NUL byte: the kernel refuses it (EFAULT) while the event is enabled"
                ),
            ));
        }
    }
}

/// A DIAG_* ioctl on user_events_data, at its return.
#[allow(clippy::too_many_arguments)]
pub fn ioctl(
    call: &CallInfo,
    fd: i32,
    rval: i64,
    file: &SharedFileState,
    fds: &FdTable,
    mem: &mut Memory,
    others: &dyn Fn() -> Vec<(i32, SharedFdTable)>,
) -> Vec<Diag> {
    // 32-bit callers' codes differ in the size field (a pointer's).
    let mut out = Vec::new();
    let req = match call.args[1] as u32 {
        DIAG_IOCSREG | DIAG_IOCSREG32 => DIAG_IOCSREG,
        DIAG_IOCSDEL | DIAG_IOCSDEL32 => DIAG_IOCSDEL,
        DIAG_IOCSUNREG | DIAG_IOCSUNREG32 => DIAG_IOCSUNREG,
        _ => return out,
    };
    let arg = call.args[2];
    let failed = is_error(rval);
    match req {
        DIAG_IOCSREG if failed => {
            if let Some(why) = register_refused(call, rval, fds, mem) {
                out.push(diag(
                    "register",
                    fd,
                    format!("DIAG_IOCSREG refused ({}): {why}", errno_text(rval)),
                ));
            }
        }
        DIAG_IOCSREG => {
            if let Some(reg) = read_registration(call.tgid, arg, mem) {
                file.borrow_mut().regs.push(reg);
            }
        }
        DIAG_IOCSUNREG => {
            let mut raw = [0u8; UNREG::SIZEOF];
            if !mem.read_exact(arg, &mut raw) {
                return out;
            }
            let field = |f: Field| f.read(&raw).unwrap_or(0);
            let size = field(UNREG::SIZE) as u32;
            let bit = field(UNREG::DISABLE_BIT) as u8;
            let reserved = field(UNREG::__RESERVED) != 0 || field(UNREG::__RESERVED2) != 0;
            let addr = field(UNREG::DISABLE_ADDR);
            let matching = |r: &Registration| {
                r.tgid == call.tgid && r.enabler.is_some_and(|(a, b, _)| a == addr && b == bit)
            };
            if !failed {
                for (_, f) in fds.files() {
                    for r in f.borrow_mut().regs.iter_mut().filter(|r| matching(r)) {
                        r.unregistered = true;
                    }
                }
                return out;
            }
            let why = match -rval as i32 {
                libc::E2BIG if size > PAGE => format!("size {size} is more than a page"),
                libc::EINVAL if size < USER_UNREG_SIZE => {
                    format!("size {size} is smaller than struct user_unreg ({USER_UNREG_SIZE})")
                }
                libc::EINVAL if reserved => "__reserved and __reserved2 must be zero".to_string(),
                libc::ENOENT => {
                    let before = fds
                        .files()
                        .any(|(_, f)| f.borrow().regs.iter().any(&matching));
                    if before {
                        format!(
                            "bit {bit} at &0x{addr:x} was unregistered already; it is no longer an enable bit"
                        )
                    } else {
                        format!("this process registered no enable bit {bit} at &0x{addr:x}")
                    }
                }
                _ => return out,
            };
            out.push(diag(
                "unregister",
                fd,
                format!("DIAG_IOCSUNREG refused ({}): {why}", errno_text(rval)),
            ));
        }
        DIAG_IOCSDEL if rval == -libc::EBUSY as i64 => {
            let Some((name, _)) = mem.read_cstr(arg, MAX_COMMAND) else {
                return out;
            };
            let name = command_text(&name);
            let mut holders = Vec::new();
            holders_in(fds, &name, None, &mut holders);
            for (tgid, table) in others() {
                if let Ok(table) = table.try_borrow() {
                    holders_in(&table, &name, Some(tgid), &mut holders);
                }
            }
            let why = if holders.is_empty() {
                "the event is still in use (an fd, an enable bit or a tracer holds it)".to_string()
            } else {
                format!(
                    "{} still {} it: close {} first",
                    holders.join(", "),
                    if holders.len() == 1 { "holds" } else { "hold" },
                    if holders.len() == 1 { "it" } else { "them" },
                )
            };
            out.push(diag(
                "delete",
                fd,
                format!("DIAG_IOCSDEL \"{}\" refused (EBUSY): {why}", escape(&name)),
            ));
        }
        _ => {}
    }
    out
}

/// The fds of `table` holding event `name`: `fd 3 (write_index 0)`, with
/// `of process N` for another process's.
fn holders_in(table: &FdTable, name: &str, tgid: Option<i32>, out: &mut Vec<String>) {
    let mut found: Vec<(i32, u32)> = Vec::new();
    for (fd, f) in table.files() {
        for r in &f.borrow().regs {
            if parse_command(&r.command).name == name && !found.contains(&(fd, r.index)) {
                found.push((fd, r.index));
            }
        }
    }
    found.sort();
    for (fd, index) in found {
        let of = tgid.map(|t| format!(" of process {t}")).unwrap_or_default();
        out.push(format!("fd {fd}{of} (write_index {index})"));
    }
}

/// A successful registration, in whichever struct layout it came.
fn read_registration(tgid: i32, arg: u64, mem: &mut Memory) -> Option<Registration> {
    let mut raw = [0u8; REG::SIZEOF];
    if !mem.read_exact(arg, &mut raw[..4]) {
        return None;
    }
    let size = u32::from_le_bytes(raw[..4].try_into().unwrap());
    let len = match size {
        USER_REG_SIZE.. => REG::SIZEOF,
        24 => 24,
        20 => 20,
        _ => return None,
    };
    if !mem.read_exact(arg, &mut raw[..len]) {
        return None;
    }
    let u32_at = |o: usize| u32::from_le_bytes(raw[o..o + 4].try_into().unwrap());
    let u64_at = |o: usize| u64::from_le_bytes(raw[o..o + 8].try_into().unwrap());
    // The kernel took an enable_size of 4 or 8 and a bit inside it, but
    // the program may have changed the struct since (another thread):
    // what is read now is used only if the kernel could have taken it.
    let (bit, esize) = (raw[REG::ENABLE_BIT.off], raw[REG::ENABLE_SIZE.off]);
    let enabler = (matches!(esize, 4 | 8) && u32::from(bit) < u32::from(esize) * 8)
        .then(|| (u64_at(REG::ENABLE_ADDR.off), bit, esize));
    // The older layouts (24: 5.18 to 6.0, 20: 6.1 to 6.3) are no longer in
    // any header: their offsets are typed, as in ioctl::user_events.
    let (name_args, index, enabler) = match len {
        REG::SIZEOF => (
            u64_at(REG::NAME_ARGS.off),
            u32_at(REG::WRITE_INDEX.off),
            enabler,
        ),
        24 => (u64_at(8), u32_at(20), None),
        _ => (u64_at(4), u32_at(16), None),
    };
    let (command, _) = mem.read_cstr(name_args, MAX_COMMAND)?;
    Some(Registration {
        tgid,
        index,
        command: command_text(&command),
        size,
        enabler,
        unregistered: false,
    })
}

/// Why the kernel refused a DIAG_IOCSREG with `rval`, checked in the
/// order of `user_reg_get` and `user_events_ioctl_reg`; `None` when rtrace
/// finds no reason that gives this error.
fn register_refused(call: &CallInfo, rval: i64, fds: &FdTable, mem: &mut Memory) -> Option<String> {
    let arg = call.args[2];
    let errno = -rval as i32;
    let mut raw = [0u8; REG::SIZEOF];
    if !mem.read_exact(arg, &mut raw[..4]) {
        return None;
    }
    let size = u32::from_le_bytes(raw[..4].try_into().unwrap());
    if size > PAGE {
        return (errno == libc::E2BIG).then(|| format!("size {size} is more than a page"));
    }
    // A kernel before 6.4 took an older layout: one that succeeded says
    // which kernel this is.
    let old = fds.files().find_map(|(_, f)| {
        f.borrow()
            .regs
            .iter()
            .find(|r| r.size < USER_REG_SIZE)
            .map(|r| r.size)
    });
    match old {
        // 5.18 to 6.0 had no lower bound (a short struct reads zeros).
        Some(24) => return None,
        Some(min) if size < min => {
            return (errno == libc::EINVAL).then(|| {
                format!("size {size} is smaller than this kernel's struct user_reg ({min} bytes, Linux 6.1 to 6.3)")
            });
        }
        Some(_) => return None,
        None => {}
    }
    if size < USER_REG_SIZE {
        let why = match size {
            20 => "size 20 is the struct user_reg of Linux 6.1 to 6.3; since 6.4 it has 28 bytes (enable_bit, enable_size, flags, enable_addr)".to_string(),
            24 => "size 24 is the struct user_reg of Linux 5.18 to 6.0; since 6.4 it has 28 bytes (enable_bit, enable_size, flags, enable_addr)".to_string(),
            _ => format!("size {size} is smaller than struct user_reg ({USER_REG_SIZE} bytes)"),
        };
        return (errno == libc::EINVAL).then_some(why);
    }
    if !mem.read_exact(arg, &mut raw) {
        return None;
    }
    let field = |f: Field| f.read(&raw).unwrap_or(0);
    let bit = field(REG::ENABLE_BIT) as u8;
    let esize = field(REG::ENABLE_SIZE) as u8;
    let flags = field(REG::FLAGS) as u16;
    let addr = field(REG::ENABLE_ADDR);
    let name_args = field(REG::NAME_ARGS);
    let einval = |why: String| (errno == libc::EINVAL).then_some(why);
    if flags & !KNOWN_FLAGS != 0 {
        return einval(format!(
            "unknown flags 0x{:x} (USER_EVENT_REG_PERSIST is 1, USER_EVENT_REG_MULTI_FORMAT 2)",
            flags & !KNOWN_FLAGS
        ));
    }
    if esize != 4 && esize != 8 {
        return einval(format!(
            "enable_size {esize} is not 4 or 8 (the enable word is a u32 or a u64)"
        ));
    }
    if addr % esize as u64 != 0 {
        return einval(format!(
            "enable_addr &0x{addr:x} is not aligned to its enable_size {esize}"
        ));
    }
    if bit as u32 > esize as u32 * 8 - 1 {
        return einval(format!(
            "enable_bit {bit} does not fit a {esize}-byte enable word (bits 0 to {})",
            esize as u32 * 8 - 1
        ));
    }
    if addr.saturating_add(esize as u64) > USER_TOP {
        return (errno == libc::EFAULT)
            .then(|| format!("enable_addr &0x{addr:x} is not a user-space address"));
    }
    let mut in_use = None;
    for (fd, f) in fds.files() {
        for r in &f.borrow().regs {
            if r.tgid == call.tgid
                && !r.unregistered
                && r.enabler.is_some_and(|(a, b, _)| a == addr && b == bit)
            {
                in_use.get_or_insert((fd, r.index, r.command.clone()));
            }
        }
    }
    if let Some((fd, index, command)) = in_use {
        let name = escape(&parse_command(&command).name);
        return (errno == libc::EADDRINUSE).then(|| {
            format!(
                "bit {bit} at &0x{addr:x} is already the enable bit of <{name}> (fd {fd}, write_index {index}); each registration needs its own bit"
            )
        });
    }
    let (command, _) = mem.read_cstr(name_args, MAX_COMMAND)?;
    let command = command_text(&command);
    let def = parse_command(&command);
    if let Some(e) = &def.error {
        return einval(format!("the command is malformed: {}", escape(e)));
    }
    if !def.flags.is_empty() {
        return einval(format!(
            "\":{}\" after the name: the kernel takes no flags in the command",
            escape(&def.flags.join(","))
        ));
    }
    if flags & REG_PERSIST != 0 && errno == libc::EPERM {
        return Some("USER_EVENT_REG_PERSIST needs CAP_PERFMON or CAP_SYS_ADMIN".to_string());
    }
    // The same name registered with other fields.
    let fields = |d: &EventDef| -> Vec<(String, String)> {
        d.fields
            .iter()
            .map(|f| (f.ty.clone(), f.name.clone()))
            .collect()
    };
    for (_, f) in fds.files() {
        for r in &f.borrow().regs {
            let other = parse_command(&r.command);
            if other.name == def.name && fields(&other) != fields(&def) {
                return (errno == libc::EADDRINUSE).then(|| {
                    let text: Vec<String> = other
                        .fields
                        .iter()
                        .map(|f| format!("{} {}", f.ty, f.name))
                        .collect();
                    format!(
                        "event <{}> exists with other fields ({}); USER_EVENT_REG_MULTI_FORMAT allows several",
                        escape(&def.name),
                        escape(&text.join(";"))
                    )
                });
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `struct user_reg` (28 bytes) in this process's memory.
    fn reg(bit: u8, esize: u8, addr: u64, name: &std::ffi::CStr) -> [u8; 28] {
        let mut raw = [0u8; 28];
        raw[..4].copy_from_slice(&28u32.to_le_bytes());
        raw[4] = bit;
        raw[5] = esize;
        raw[8..16].copy_from_slice(&addr.to_le_bytes());
        raw[16..24].copy_from_slice(&(name.as_ptr() as u64).to_le_bytes());
        raw
    }

    /// A registration read back after the call returned may hold what the
    /// program wrote there since: an enable word the kernel would never
    /// take is not used (reading it would index past 8 bytes, shifting by
    /// 64 or more).
    #[test]
    fn an_enable_word_the_kernel_would_refuse_is_not_kept() {
        let mut mem = Memory::new(nix::unistd::Pid::this());
        let name = c"rtrace_probe u32 count";
        let word = 0u64;
        let addr = &word as *const u64 as u64;
        for (bit, esize, kept) in [
            (63, 8, true),
            (31, 4, true),
            (5, 200, false),
            (0, 0, false),
            (32, 4, false),
            (64, 8, false),
        ] {
            let raw = reg(bit, esize, addr, name);
            let r = read_registration(1, raw.as_ptr() as u64, &mut mem).expect("readable");
            assert_eq!(r.command, "rtrace_probe u32 count");
            let want = kept.then_some((addr, bit, esize));
            assert_eq!(r.enabler, want, "bit {bit} size {esize}");
        }
    }
}
