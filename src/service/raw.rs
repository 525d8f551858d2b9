//! Helpers the process, signal, time, poll and net handlers share: field
//! access in structs copied from the tracee (whose layout depends on the
//! call's ABI), value-name tables, and the few composite shapes built from
//! the Printer's primitives (`[N]` for an int written through a pointer,
//! values returned after the result, `(..)`).

use crate::call::CallCtx;
use crate::format::{Naming, Printer};
use crate::kernel::Arch;
use crate::output::Style;

/// Bytes in a C `long` or pointer of `arch`.
pub fn word_size(arch: Arch) -> usize {
    if arch == Arch::X86_64 { 8 } else { 4 }
}

/// Bytes in a `time_t` of `arch` (x32 has a 64-bit time_t).
pub fn time_size(arch: Arch) -> usize {
    if arch == Arch::I386 { 4 } else { 8 }
}

/// An unsigned little-endian field of `size` bytes at `off` (0 when the
/// struct is shorter than that).
pub fn uint_at(b: &[u8], off: usize, size: usize) -> u64 {
    let Some(field) = b.get(off..off + size) else {
        return 0;
    };
    let mut v = [0u8; 8];
    v[..size].copy_from_slice(field);
    u64::from_le_bytes(v)
}

/// A signed little-endian field of `size` bytes at `off`.
pub fn int_at(b: &[u8], off: usize, size: usize) -> i64 {
    let v = uint_at(b, off, size);
    let shift = 64 - 8 * size as u32;
    ((v << shift) as i64) >> shift
}

/// `u16` at `off`.
pub fn u16_at(b: &[u8], off: usize) -> u16 {
    uint_at(b, off, 2) as u16
}

/// `u32` at `off`.
pub fn u32_at(b: &[u8], off: usize) -> u32 {
    uint_at(b, off, 4) as u32
}

/// `i32` at `off`.
pub fn i32_at(b: &[u8], off: usize) -> i32 {
    u32_at(b, off) as i32
}

/// `u64` at `off`.
pub fn u64_at(b: &[u8], off: usize) -> u64 {
    uint_at(b, off, 8)
}

pub use crate::decode::MAX_READ;

/// The tail of a leave printer whose last parameter is an out parameter:
/// `put` prints it (its pointer if the call failed), then `= result`.
pub fn out_param_in(
    p: &mut Printer,
    c: &CallCtx,
    failed: bool,
    name: &str,
    addr: u64,
    put: impl FnOnce(&mut Printer, &str, u64),
) {
    if failed {
        p.ptr(name, addr);
    } else {
        put(p, name, addr);
    }
    p.equals();
    p.result(c.result);
}

/// Read `len` bytes at `addr`, all or nothing.
pub fn read_vec(p: &mut Printer, addr: u64, len: usize) -> Option<Vec<u8>> {
    if addr == 0 || len > MAX_READ {
        return None;
    }
    let mut v = vec![0u8; len];
    p.mem().read_exact(addr, &mut v).then_some(v)
}

pub use crate::decode::{VERBOSE_ELEMENTS, array_limit, put_array};

/// An iovec array whose ranges are another process's memory: each range
/// as its address and length (`[{iov_base=0x7f.., iov_len=4096}]`, plain:
/// an address rtrace never reads, `Printer::addr`), never as bytes read
/// here; an unreadable tail ends it (`decode::put_array`).
pub fn put_remote_iovecs(p: &mut Printer, name: &str, addr: u64, count: u64) {
    put_iovec_ranges(p, name, addr, count, true);
}

/// An iovec array of the tracee's own buffers that are not read (a failed
/// read's): each range as an unread pointer (`iov_base=&0x7f..`).
pub fn put_unread_iovecs(p: &mut Printer, name: &str, addr: u64, count: u64) {
    put_iovec_ranges(p, name, addr, count, false);
}

/// The ranges of an iovec array, each base an address (`remote`) or an
/// unread pointer.
fn put_iovec_ranges(p: &mut Printer, name: &str, addr: u64, count: u64, remote: bool) {
    let word = if p.arch() == Arch::X86_64 { 8 } else { 4 };
    let shown = array_limit(p);
    put_array(p, name, addr, (count, 2 * word, shown), |p, iov| {
        p.open("", "{", Naming::Fields);
        let base = uint_at(iov, 0, word);
        if remote {
            p.addr("iov_base", base);
        } else {
            p.ptr("iov_base", base);
        }
        p.uint("iov_len", uint_at(iov, word, word));
        p.close("}");
    });
}

/// `open_struct` for a struct whose size depends on the ABI: copy `len`
/// bytes and open `{`, or print the pointer (also with `-VV`).
pub fn open_struct_dyn(p: &mut Printer, name: &str, addr: u64, len: usize) -> Option<Vec<u8>> {
    if addr == 0 || p.config().values_only >= 2 {
        p.ptr(name, addr);
        return None;
    }
    match read_vec(p, addr, len) {
        Some(v) => {
            p.open(name, "{", Naming::Fields);
            Some(v)
        }
        None => {
            p.ptr(name, addr);
            None
        }
    }
}

pub use crate::decode::lookup;

/// A value printed by name from a `(value, name)` table, else as a number.
pub fn put_named(p: &mut Printer, name: &str, value: i64, table: &[(i64, &'static str)]) {
    p.symbol(name, value, lookup(table, value));
}

/// An `int` the call reads or writes through a pointer: `[5]`, or the
/// pointer when it cannot be read.
pub fn put_int_ptr(p: &mut Printer, name: &str, addr: u64) {
    match read_vec(p, addr, 4) {
        Some(b) if p.config().values_only < 2 => {
            p.open(name, "[", Naming::Elements);
            p.int("", i32_at(&b, 0) as i64);
            p.close("]");
        }
        _ => p.ptr(name, addr),
    }
}

/// Like [`put_int_ptr`], with the value printed by `put`.
pub fn put_ptr_with(p: &mut Printer, name: &str, addr: u64, put: impl FnOnce(&mut Printer, i32)) {
    match read_vec(p, addr, 4) {
        Some(b) if p.config().values_only < 2 => {
            p.open(name, "[", Naming::Elements);
            put(p, i32_at(&b, 0));
            p.close("]");
        }
        _ => p.ptr(name, addr),
    }
}

/// A pointer-sized value the call writes through a pointer: `[&0x7f...]`.
pub fn put_word_ptr(p: &mut Printer, name: &str, addr: u64) {
    let arch = p.arch();
    match p.mem().read_word(addr, arch) {
        Some(w) if addr != 0 && p.config().values_only < 2 => {
            p.open(name, "[", Naming::Elements);
            p.ptr("", w);
            p.close("]");
        }
        _ => p.ptr(name, addr),
    }
}

/// Start what a call returned besides its result, after the result as an
/// ioctl's IF_IN struct is: `= 1 [{fd=3, revents=POLLIN}]`. The values
/// printed next go under `returned` in JSON. Only after `p.result()`.
pub fn returned_sep(p: &mut Printer) {
    p.text(" ", Style::Plain);
}

/// Open a struct of values returned besides the result: `= 2 {readfds=[3],
/// writefds=[4]}`. Close it with `p.close("}")`.
pub fn open_returned(p: &mut Printer) {
    returned_sep(p);
    p.open("", "{", Naming::Fields);
}

/// A member of a set printed as a list: a name, or a number.
pub enum Member {
    /// A symbol (`USR1`, `CHOWN`).
    Name(String),
    /// A number (an fd, a CPU, a signal without a name).
    Num(u64),
}

/// A set as the list of its members, space-separated as strace writes
/// sets: `[USR1 USR2]`, `[3 4]`; `~[KILL STOP]` when `complement` (the
/// members are those *not* in the set); `[]` when empty. In JSON an array
/// of the members, or `{"complement": [...]}`.
pub fn put_set(p: &mut Printer, name: &str, members: &[Member], complement: bool) {
    if p.json() {
        if complement {
            p.open(name, "{", Naming::Fields);
            p.open("complement", "[", Naming::Elements);
        } else {
            p.open(name, "[", Naming::Elements);
        }
        for m in members {
            match m {
                Member::Name(s) => p.field("", s),
                Member::Num(n) => p.uint("", *n),
            }
        }
        p.close("]");
        if complement {
            p.close("}");
        }
        return;
    }
    let text = set_text(members, complement);
    p.field(name, &text);
}

/// The text form of [`put_set`].
pub fn set_text(members: &[Member], complement: bool) -> String {
    let items: Vec<String> = members
        .iter()
        .map(|m| match m {
            Member::Name(s) => s.clone(),
            Member::Num(n) => n.to_string(),
        })
        .collect();
    format!("{}[{}]", if complement { "~" } else { "" }, items.join(" "))
}

/// A value whose text is a composed notation (`htons(80)`,
/// `inet_addr("127.0.0.1")`): that text in the text grammar; in JSON what
/// `json` prints with the primitives (the plain port, the address string).
pub fn put_composed(p: &mut Printer, name: &str, text: &str, json: impl FnOnce(&mut Printer)) {
    if p.json() {
        json(p);
    } else {
        p.field(name, text);
    }
}

/// For a leave printer whose enter half may have finished the line
/// (`CallType::Done`, then the call layer printed `=`): print the result
/// and return true; the leave printer has nothing more to do.
pub fn entered_done(p: &mut Printer, c: &CallCtx) -> bool {
    if p.equals_printed() {
        p.result(c.result);
        return true;
    }
    false
}

/// Whether call `c` takes 32-bit uids and gids: all but i386's calls
/// without `32` (setuid, getresuid, chown, getgroups...), which take the
/// 16-bit `old_uid_t`.
pub fn wide_ids(c: &CallCtx) -> bool {
    c.arch != Arch::I386 || c.sig.is_some_and(|s| s.name.ends_with("32"))
}

/// A uid or gid as call `c` takes it ([`wide_ids`]): unsigned, but `-1`
/// ("unchanged", 0xffff in 16 bits) prints as `-1`.
pub fn put_call_id(p: &mut Printer, c: &CallCtx, name: &str, raw: u64) {
    if wide_ids(c) {
        put_id(p, name, raw);
    } else if raw as u16 == u16::MAX {
        p.int(name, -1);
    } else {
        p.uint(name, raw as u16 as u64);
    }
}

/// A uid or gid: unsigned, but `-1` ("unchanged") prints as `-1`.
pub fn put_id(p: &mut Printer, name: &str, raw: u64) {
    let id = raw as u32;
    if id == u32::MAX {
        p.int(name, -1);
    } else {
        p.uint(name, id as u64);
    }
}

/// The bytes of an extensible struct (open_how, clone_args) from `known`,
/// the end of the fields rtrace decodes, to `size`, the caller's size:
/// the kernel requires them to be zero (E2BIG otherwise), so they are
/// shown when one is not, all of them as strace shows them,
/// `/* bytes 24..31 */ "\0\0\0\0\0\0\200\0"` (in JSON `tail`, a
/// string). At most a page is read (the kernel refuses larger). Returns
/// false when they cannot be read (the struct then ends with `..`).
pub fn put_struct_tail(p: &mut Printer, addr: u64, known: u64, size: u64) -> bool {
    let size = size.min(4096);
    if size <= known {
        return true;
    }
    let mut tail = vec![0u8; (size - known) as usize];
    if !p.mem().read_exact(addr + known, &mut tail) {
        return false;
    }
    if tail.iter().all(|&b| b == 0) {
        return true;
    }
    let limit = p.config().string_limit;
    let (bytes, cut) = (&tail[..tail.len().min(limit)], tail.len() > limit);
    if p.json() {
        p.string("tail", bytes, cut);
    } else {
        let text = format!(
            "/* bytes {known}..{} */ {}",
            size - 1,
            crate::format::quote(bytes, cut)
        );
        p.field("", &text);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields() {
        let b = [0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0];
        assert_eq!(int_at(&b, 0, 4), -1);
        assert_eq!(uint_at(&b, 0, 4), 0xffff_ffff);
        assert_eq!(u64_at(&b, 0), 0x1_ffff_ffff);
        assert_eq!(u32_at(&b, 4), 1);
        assert_eq!(u32_at(&b, 6), 0, "short struct reads as 0");
    }
}
