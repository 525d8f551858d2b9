//! bpf(2): the command by name and its part of `union bpf_attr` as strace
//! 6 shows it, from `service/ebpf_attr.rs`'s table (the address for a
//! command the table has no row for), then the size. The names come from
//! `abi::xlat::bpf` (the bpf blocks of tools/abi_tables.py).

use crate::abi::xlat::bpf::BPF_CMDS;
use crate::call::{CallClass::Normal, CallCtx, CallData, CallType, Handler, default_in};
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
            if let Some(bytes) = super::ebpf_attr::put(p, c, name, addr, size) {
                *c.data = CallData::Input(bytes);
            }
        }
        _ => p.ptr("uattr", addr),
    }
    p.uint("size", size);
    CallType::Done
}

/// The result, then what the kernel wrote back into the attr.
pub fn bpf_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    default_in(p, c, failed);
    if failed {
        return;
    }
    if let (CallData::Input(before), Some(name)) =
        (&*c.data, lookup(BPF_CMDS, c.args[0] as u32 as i64))
    {
        let before = before.clone();
        super::ebpf_attr::put_written(p, name, c.args[1], &before);
    }
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[h("bpf", bpf_out, bpf_in, Normal)];
