//! x86 segment descriptors: set_thread_area, get_thread_area and
//! modify_ldt, which pass a `struct user_desc` (a TLS or LDT entry). Every
//! i386 program's start sets its TLS entry through set_thread_area.

use crate::abi::layout::{BitField, Field, extent};
use crate::abi::xlat::process::{USER_DESC, USER_DESC_BITS};
use crate::call::{CallClass::Normal, Handler};
use crate::call::{CallCtx, CallType};
use crate::decode::put_extended;
use crate::format::Printer;
use crate::kernel::Arch;
use crate::service::fs::put_result;
use crate::service::h;
use crate::service::raw::{open_struct_dyn, read_vec};

/// The bytes of a `struct user_desc`: its words and the flags' word.
const USER_DESC_SIZE: usize = {
    let last = USER_DESC_BITS[USER_DESC_BITS.len() - 1];
    let bits_end = (last.bit + last.width).div_ceil(32) * 4;
    let words_end = extent(USER_DESC);
    if bits_end > words_end {
        bits_end
    } else {
        words_end
    }
};

/// The flags an `arch` caller's kernel reads: i386's ignores `lm`.
fn flag_fields(arch: Arch) -> impl Iterator<Item = &'static BitField> {
    USER_DESC_BITS
        .iter()
        .filter(move |f| arch == Arch::X86_64 || f.name != "lm")
}

/// The fields after `entry_number`: base and limit in hex, then the flags.
fn put_rest(p: &mut Printer, b: &[u8], arch: Arch) {
    for f in &USER_DESC[1..] {
        if let Some(v) = f.read(b) {
            p.hex(f.name, v);
        }
    }
    for f in flag_fields(arch) {
        if let Some(v) = f.read(b) {
            p.uint(f.name, v);
        }
    }
}

/// The entry's number: `-1` (ask the kernel to choose) as strace shows
/// it, any other unsigned.
fn put_entry_number(p: &mut Printer, b: &[u8]) {
    let entry: Field = USER_DESC[0];
    match entry.read(b) {
        Some(v) if v as u32 == u32::MAX => p.int(entry.name, -1),
        Some(v) => p.uint(entry.name, v),
        None => {}
    }
}

/// A whole `struct user_desc` at `addr` (its pointer if unreadable).
fn put_user_desc(p: &mut Printer, name: &str, addr: u64, arch: Arch) {
    if let Some(b) = open_struct_dyn(p, name, addr, USER_DESC_SIZE) {
        put_entry_number(p, &b);
        put_rest(p, &b, arch);
        p.close_struct(true);
    }
}

/// `set_thread_area(u_info)`: the entry asked for, whole.
pub fn set_thread_area_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_user_desc(p, "u_info", c.args[0], c.arch);
    CallType::Done
}

/// Leave half of set_thread_area: after the result, the entry the kernel
/// chose (it writes `entry_number` back): `= 0 (entry_number=12)`.
pub fn set_thread_area_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    crate::call::default_in(p, c, failed);
    if failed {
        return;
    }
    if let Some(b) = read_vec(p, c.args[0], extent(&USER_DESC[..1])) {
        let number = USER_DESC[0].read(&b).unwrap_or(0) as u32;
        let text = format!("entry_number={number}");
        put_extended(p, "entry_number", |p, n| {
            if n.is_empty() {
                p.field(n, &text)
            } else {
                p.uint(n, number as u64)
            }
        });
    }
}

/// `get_thread_area(u_info)`: the struct at leave.
pub fn get_thread_area_out(_p: &mut Printer, _c: &mut CallCtx) -> CallType {
    CallType::NotDone
}

/// Leave half of get_thread_area: the entry the kernel filled in, or after
/// a failure only the number asked for.
pub fn get_thread_area_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if failed {
        if let Some(b) = open_struct_dyn(p, "u_info", c.args[0], extent(&USER_DESC[..1])) {
            put_entry_number(p, &b);
            p.close_struct(false);
        }
    } else {
        put_user_desc(p, "u_info", c.args[0], c.arch);
    }
    p.equals();
    p.result(c.result);
}

/// `modify_ldt(func, ptr, bytecount)`: an entry to write is a `struct
/// user_desc` (`bytecount` its size); anything else (the LDT read into a
/// buffer) is the pointer, as strace shows it.
pub fn modify_ldt_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("func", c.int(0));
    if c.args[2] == USER_DESC_SIZE as u64 {
        put_user_desc(p, "ptr", c.args[1], c.arch);
    } else {
        p.ptr("ptr", c.args[1]);
    }
    p.uint("bytecount", c.args[2]);
    CallType::Done
}

/// Leave half of `modify_ldt(func, ptr, bytecount)`: x86_64's entry
/// point returns an `int` zero-extended into the register (the kernel's
/// own comment says so), so an error reaches the program as a large
/// number, which `syscall(2)` does not take for one: the number, and the
/// error its low 32 bits are, as strace shows both (`= 4294967258
/// (-ENOSYS)`; strace `4294967258 ENOSYS (...)`).
pub fn modify_ldt_in(p: &mut Printer, c: &mut CallCtx, _failed: bool) {
    put_result(p, c);
    let low = c.result as u32 as i32;
    if c.arch == Arch::X86_64
        && c.result == low as u32 as i64
        && (-4095..0).contains(&low)
        && let Some(name) = crate::call::errno_name(-(low as i64))
    {
        let text = format!("-{name}");
        put_extended(p, "error", |p, n| p.field(n, &text));
    }
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h(
        "set_thread_area",
        set_thread_area_out,
        set_thread_area_in,
        Normal,
    ),
    h(
        "get_thread_area",
        get_thread_area_out,
        get_thread_area_in,
        Normal,
    ),
    h("modify_ldt", modify_ldt_out, modify_ldt_in, Normal),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flags_are_read_from_their_bits() {
        // entry 12, base 0x1000, limit 0xfffff, seg_32bit, contents 2,
        // limit_in_pages, useable.
        let mut b = [0u8; USER_DESC_SIZE];
        b[0] = 12;
        b[5] = 0x10;
        b[8..12].copy_from_slice(&0xfffffu32.to_le_bytes());
        b[12] = 0b0101_0101;
        let flag = |name: &str| {
            let f = USER_DESC_BITS.iter().find(|f| f.name == name).unwrap();
            f.read(&b).unwrap()
        };
        assert_eq!(USER_DESC_SIZE, 16);
        assert_eq!(USER_DESC[1].read(&b), Some(0x1000));
        assert_eq!(
            [
                flag("seg_32bit"),
                flag("contents"),
                flag("read_exec_only"),
                flag("limit_in_pages"),
                flag("seg_not_present"),
                flag("useable"),
                flag("lm"),
            ],
            [1, 2, 0, 1, 0, 1, 0]
        );
        assert_eq!(flag_fields(Arch::I386).count(), USER_DESC_BITS.len() - 1);
    }
}
