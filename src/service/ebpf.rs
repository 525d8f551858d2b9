//! bpf(2): the command by name and its part of `union bpf_attr` as strace
//! 6 shows it, from `service/ebpf_attr.rs`'s table (the address for a
//! command the table has no row for), then the size. The names come from
//! `abi::xlat::bpf` (the bpf blocks of tools/abi_tables.py).

use crate::abi::xlat::bpf::BPF_CMDS;
use crate::call::{CallClass::Normal, CallCtx, CallType, Handler, default_in};
use crate::format::Printer;
use crate::service::h;
use crate::service::raw::lookup;

/// `bpf(cmd, attr, size)`
pub fn bpf_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let cmd = c.args[0] as u32;
    let name = lookup(BPF_CMDS, cmd as i64);
    match name {
        Some(sym) => p.symbol("cmd", cmd as i64, Some(sym)),
        None => p.int("cmd", cmd as i32 as i64),
    }
    let (addr, size) = (c.args[1], c.args[2] as u32 as u64);
    match name {
        // The attr's layout is the same for i386 (its 64-bit members are
        // `__aligned_u64`).
        Some(name) if super::ebpf_attr::decodes(name) => {
            super::ebpf_attr::put(p, c, name, addr, size);
        }
        _ => p.ptr("uattr", addr),
    }
    p.uint("size", size);
    CallType::Done
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[h("bpf", bpf_out, default_in, Normal)];
