//! bpf(2): the command by name and, for BPF_PROG_LOAD, its part of
//! `union bpf_attr` as far as the caller's size holds it, as strace 6
//! shows it (`kern_version=KERNEL_VERSION(6, 1, 0)`); other commands print
//! the attr's address. Names and the layout from `abi::xlat::bpf` (the
//! procsys block of tools/abi_tables.py).

use crate::abi::layout::{Field, field};
use crate::abi::xlat::bpf::{
    BPF_ATTACH_TYPES, BPF_CMDS, BPF_PROG_LOAD, BPF_PROG_LOAD_ATTR, BPF_PROG_LOAD_FLAGS,
    BPF_PROG_TYPES,
};
use crate::call::{CallClass::Normal, CallCtx, CallType, Handler, default_in};
use crate::decode::put_fd;
use crate::format::Printer;
use crate::kernel::Arch;
use crate::service::h;
use crate::service::raw::{lookup, open_struct_dyn};

/// A value named from `table`, else in hex.
fn named_hex(p: &mut Printer, name: &str, value: u64, table: &[(i64, &'static str)]) {
    match lookup(table, value as i64) {
        Some(sym) => p.symbol(name, value as i64, Some(sym)),
        None => p.hex(name, value),
    }
}

/// A kernel version as the kernel's macro makes it:
/// `KERNEL_VERSION(6, 1, 0)`.
fn put_kernel_version(p: &mut Printer, name: &str, v: u64) {
    let text = format!(
        "KERNEL_VERSION({}, {}, {})",
        v >> 16,
        (v >> 8) & 0xff,
        v & 0xff
    );
    p.symbol(name, v as i64, Some(&text));
}

/// BPF_PROG_LOAD's attr: the fields the caller's `size` holds.
fn put_prog_load(p: &mut Printer, c: &CallCtx, addr: u64, size: u64) {
    let want = (size as usize).min(crate::abi::layout::extent(BPF_PROG_LOAD_ATTR));
    let Some(b) = open_struct_dyn(p, "uattr", addr, want) else {
        return;
    };
    let fds = c.fds;
    let mut all = true;
    for f in BPF_PROG_LOAD_ATTR {
        if f.end() > want {
            all = want >= size as usize;
            break;
        }
        let v = f.read(&b).unwrap_or(0);
        match f.name {
            "prog_type" => named_hex(p, f.name, v, BPF_PROG_TYPES),
            "expected_attach_type" => named_hex(p, f.name, v, BPF_ATTACH_TYPES),
            "insns" | "log_buf" | "func_info" | "line_info" | "fd_array" => p.ptr(f.name, v),
            "license" => p.cstr(f.name, v),
            "kern_version" => put_kernel_version(p, f.name, v),
            "prog_flags" => p.flags(f.name, v, BPF_PROG_LOAD_FLAGS),
            "prog_btf_fd" | "attach_prog_fd" => put_fd(p, fds, f.name, v as u32 as i32 as i64),
            "prog_name" => put_name(p, &b, field(BPF_PROG_LOAD_ATTR, "prog_name")),
            _ => p.uint(f.name, v),
        }
    }
    p.close_struct(all);
}

/// A `char[16]` object name: up to its NUL.
fn put_name(p: &mut Printer, b: &[u8], f: Field) {
    let raw = &b[f.off..f.end()];
    let len = raw.iter().position(|&x| x == 0);
    p.string(f.name, &raw[..len.unwrap_or(raw.len())], len.is_none());
}

/// `bpf(cmd, attr, size)`
pub fn bpf_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let cmd = c.args[0] as u32;
    match lookup(BPF_CMDS, cmd as i64) {
        Some(sym) => p.symbol("cmd", cmd as i64, Some(sym)),
        None => p.int("cmd", cmd as i32 as i64),
    }
    let (addr, size) = (c.args[1], c.args[2] as u32 as u64);
    if cmd == BPF_PROG_LOAD && c.arch == Arch::X86_64 {
        put_prog_load(p, c, addr, size);
    } else {
        p.ptr("uattr", addr);
    }
    p.uint("size", size);
    CallType::Done
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[h("bpf", bpf_out, default_in, Normal)];
