//! Memory handlers: mmap (x86_64's, i386's old struct form and mmap2),
//! munmap, mprotect, mremap, madvise, brk, msync, the mlock family,
//! mincore, membarrier, process_madvise, remap_file_pages and pkey_alloc.

use crate::abi::xlat::mm::{
    MADV_NAMES, MAP_FLAGS, MAP_HUGE_MASK, MAP_HUGE_SHIFT, MAP_TYPE, MCL_FLAGS, MLOCK_FLAGS,
    MREMAP_FLAGS, MSYNC_FLAGS, PKEY_FLAGS, PROT_FLAGS,
};
use crate::abi::xlat::process::{
    MEMBARRIER_CMD_FLAG_CPU, MEMBARRIER_CMD_GET_REGISTRATIONS, MEMBARRIER_CMD_QUERY,
    MEMBARRIER_CMDS, MEMBARRIER_FLAGS,
};
use crate::call::{CallClass::Normal, Handler, default_in};
use crate::call::{CallCtx, CallType};
use crate::decode::{put_extended, put_fd};
use crate::format::{Naming, Printer, flags_text};
use crate::kernel::Arch;
use crate::service::fs::{name_of, put_result};
use crate::service::generic::no_params_out;
use crate::service::h;
use crate::service::raw::put_remote_iovecs;

/// The page size of x86.
const PAGE: u64 = 4096;

// `MAP_ANONYMOUS`: no fd behind the mapping.
use crate::abi::xlat::mm::MAP_ANONYMOUS;

/// The six mmap arguments, however they were passed.
fn put_mmap(p: &mut Printer, c: &CallCtx, a: [u64; 6]) {
    p.ptr("addr", a[0]);
    p.uint("length", a[1]);
    p.flags("prot", a[2], PROT_FLAGS);
    p.flags("flags", a[3], MAP_FLAGS);
    let fd = a[4] as i32 as i64;
    if a[3] & MAP_ANONYMOUS != 0 {
        p.int("fd", fd);
    } else {
        put_fd(p, c.fds, "fd", fd);
    }
    p.hex("offset", a[5]);
}

/// `mmap(addr, length, prot, flags, fd, offset)`. On i386 this is the old
/// mmap, whose one argument points at the six.
pub fn mmap_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    if c.arch == Arch::I386 {
        let mut d = [0u8; 24];
        if p.config().values_only >= 2 || !p.mem().read_exact(c.args[0], &mut d) {
            p.ptr("args", c.args[0]);
            return CallType::Done;
        }
        let mut a = [0u64; 6];
        for (i, v) in a.iter_mut().enumerate() {
            *v = u32::from_le_bytes(d[i * 4..i * 4 + 4].try_into().expect("4 bytes")) as u64;
        }
        p.open("args", "{", Naming::Fields);
        put_mmap(p, c, a);
        p.close("}");
        return CallType::Done;
    }
    let mut a = c.args;
    for v in &mut a[2..4] {
        *v &= 0xffff_ffff;
    }
    put_mmap(p, c, a);
    CallType::Done
}

/// `mmap2(addr, length, prot, flags, fd, pgoffset)` (i386): the offset is
/// printed in bytes, like mmap's.
pub fn mmap2_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let mut a = c.args;
    a[5] = (c.args[5] & 0xffff_ffff) * PAGE;
    put_mmap(p, c, a);
    CallType::Done
}

/// Leave printer for calls that return an address (mmap, brk, mremap).
/// An i386 address is 32 bits (the result register comes sign-extended).
pub fn addr_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if c.arch == Arch::I386 && !failed {
        p.result_ptr(c.result as u32 as i64);
    } else {
        p.result_ptr(c.result);
    }
}

/// Leave printer of mmap/mmap2: the address, and a note when the mapping
/// is user_events' status page (the interface before Linux 6.4).
pub fn mmap_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    addr_in(p, c, failed);
    let fd = c.args[4] as i32;
    if !failed && fd >= 0 && c.fds.kind(fd) == crate::fdtable::FdKind::UserEventsStatus {
        p.continuation(
            "> user_events status page (kernels before 6.4): byte status_bit is nonzero while the event is enabled",
        );
    }
}

/// `munmap(addr, length)`, `mlock(addr, len)`, `munlock(addr, len)`
pub fn munmap_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.ptr("addr", c.args[0]);
    p.uint("length", c.args[1]);
    CallType::Done
}

/// `mprotect(addr, len, prot)`
pub fn mprotect_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    munmap_out(p, c);
    // `unsigned long prot`: a bit above 32 is the kernel's EINVAL, shown.
    p.flags("prot", c.args[2], PROT_FLAGS);
    CallType::Done
}

/// `pkey_mprotect(addr, len, prot, pkey)`
pub fn pkey_mprotect_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    mprotect_out(p, c);
    p.int("pkey", c.int(3));
    CallType::Done
}

/// The arguments of process_vm_readv and process_vm_writev after the
/// local buffers: the other process's ranges, their count, the flags.
fn put_process_vm_rest(p: &mut Printer, c: &CallCtx) {
    p.uint("liovcnt", c.args[2]);
    put_remote_iovecs(p, "rvec", c.args[3], c.args[4]);
    p.uint("riovcnt", c.args[4]);
    p.hex("flags", c.args[5]);
}

/// `process_vm_writev(pid, local_iov, liovcnt, remote_iov, riovcnt,
/// flags)`: the local buffers' bytes (what is written), the remote ranges
/// by address.
pub fn process_vm_writev_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("pid", c.int(0));
    crate::service::fs::put_iovecs(p, "lvec", c.args[1], c.args[2], None);
    put_process_vm_rest(p, c);
    CallType::Done
}

/// `process_vm_readv(...)`: the local buffers at leave, with the bytes
/// read (as many as the result says).
pub fn process_vm_readv_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("pid", c.int(0));
    CallType::NotDone
}

/// Leave half of process_vm_readv; after a failure the local buffers'
/// addresses.
pub fn process_vm_readv_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if failed {
        crate::service::raw::put_unread_iovecs(p, "lvec", c.args[1], c.args[2]);
    } else {
        crate::service::fs::put_iovecs(p, "lvec", c.args[1], c.args[2], Some(c.result as u64));
    }
    put_process_vm_rest(p, c);
    p.equals();
    p.result(c.result);
}

/// mmap's flags as strace spells them: the mapping type first (its
/// number when no type has it: `0xf|MAP_FIXED`), the flags, and the
/// hugetlb page size as its field's value (`MAP_HUGETLB|21<<MAP_HUGE_SHIFT`).
fn map_flags_text(flags: u64) -> String {
    let type_mask = MAP_TYPE as u64;
    let huge_mask = (MAP_HUGE_MASK as u64) << MAP_HUGE_SHIFT;
    let kind = flags & type_mask;
    let named = MAP_FLAGS
        .iter()
        .any(|d| d.mask == type_mask && d.value == kind);
    let rest = flags & !huge_mask & if named { !0 } else { !type_mask };
    let mut parts = Vec::new();
    if !named {
        parts.push(if kind == 0 {
            "0".to_string()
        } else {
            format!("{kind:#x}")
        });
    }
    if rest != 0 || parts.is_empty() {
        parts.push(flags_text(rest, MAP_FLAGS, true));
    }
    if flags & huge_mask != 0 {
        parts.push(format!(
            "{}<<MAP_HUGE_SHIFT",
            (flags & huge_mask) >> MAP_HUGE_SHIFT
        ));
    }
    parts.join("|")
}

/// `remap_file_pages(addr, size, prot, pgoff, flags)`: prot and flags by
/// mmap's names (the kernel reads all 64 bits of each).
pub fn remap_file_pages_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.ptr("start", c.args[0]);
    p.uint("size", c.args[1]);
    p.flags("prot", c.args[2], PROT_FLAGS);
    p.uint("pgoff", c.args[3]);
    p.flags_spelled("flags", c.args[4], map_flags_text(c.args[4]));
    CallType::Done
}

/// `pkey_alloc(flags, access_rights)`: `pkey_alloc(0, PKEY_DISABLE_WRITE)`.
pub fn pkey_alloc_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.hex("flags", c.args[0]);
    p.flags("init_val", c.args[1], PKEY_FLAGS);
    CallType::Done
}

/// `mremap(old_address, old_size, new_size, flags[, new_address])`: the
/// new address only when MREMAP_FIXED says it is used.
pub fn mremap_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.ptr("old_address", c.args[0]);
    p.uint("old_size", c.args[1]);
    p.uint("new_size", c.args[2]);
    // `unsigned long flags`, whole.
    let flags = c.args[3];
    p.flags("flags", flags, MREMAP_FLAGS);
    if flags & 2 != 0 {
        p.ptr("new_address", c.args[4]);
    }
    CallType::Done
}

/// `madvise(addr, length, advice)`: `madvise(&0x7f.., 4096, MADV_DONTNEED)`.
pub fn madvise_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    munmap_out(p, c);
    let advice = c.int(2);
    p.symbol("advice", advice, name_of(advice as u64, MADV_NAMES));
    CallType::Done
}

/// `membarrier(cmd, flags, cpu_id)`: `cpu_id` only where the flags say
/// the kernel reads it (MEMBARRIER_CMD_FLAG_CPU).
pub fn membarrier_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let cmd = c.args[0] as u32;
    // The commands are single bits (QUERY is 0): a value, not a set.
    let name = MEMBARRIER_CMDS
        .iter()
        .find(|f| f.value == cmd as u64)
        .map(|f| f.name);
    p.symbol("cmd", cmd as i32 as i64, name);
    let flags = c.args[1] as u32;
    p.flags("flags", flags as u64, MEMBARRIER_FLAGS);
    if flags & MEMBARRIER_CMD_FLAG_CPU != 0 {
        p.int("cpu_id", c.int(2));
    }
    CallType::Done
}

/// Leave half of membarrier: MEMBARRIER_CMD_QUERY and
/// MEMBARRIER_CMD_GET_REGISTRATIONS answer a set of commands, named after
/// the number: `= 1023 (MEMBARRIER_CMD_GLOBAL|...)`.
pub fn membarrier_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    put_result(p, c);
    let cmd = c.args[0] as u32;
    if !failed
        && c.result > 0
        && p.symbols()
        && (cmd == MEMBARRIER_CMD_QUERY || cmd == MEMBARRIER_CMD_GET_REGISTRATIONS)
    {
        let set = c.result as u64;
        put_extended(p, "cmds", |p, n| p.flags(n, set, MEMBARRIER_CMDS));
    }
}

/// `process_madvise(pidfd, iovec, vlen, advice, flags)`: the ranges are
/// the other process's (`put_remote_iovecs`).
pub fn process_madvise_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "pidfd", c.int(0));
    let (addr, count) = (c.args[1], c.args[2]);
    put_remote_iovecs(p, "iovec", addr, count);
    p.uint("vlen", count);
    let advice = c.int(3);
    p.symbol("advice", advice, name_of(advice as u64, MADV_NAMES));
    p.hex("flags", c.args[4] as u32 as u64);
    CallType::Done
}

/// `brk(addr)`
pub fn brk_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.ptr("addr", c.args[0]);
    CallType::Done
}

/// `msync(addr, length, flags)`
pub fn msync_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    munmap_out(p, c);
    p.flags("flags", c.args[2] & 0xffff_ffff, MSYNC_FLAGS);
    CallType::Done
}

/// `mlock2(addr, len, flags)`
pub fn mlock2_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    munmap_out(p, c);
    p.flags("flags", c.args[2] & 0xffff_ffff, MLOCK_FLAGS);
    CallType::Done
}

/// `mlockall(flags)`
pub fn mlockall_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.flags("flags", c.args[0] & 0xffff_ffff, MCL_FLAGS);
    CallType::Done
}

/// `mincore(addr, length, vec)`: the residency vector prints at leave.
pub fn mincore_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    munmap_out(p, c);
    CallType::NotDone
}

/// Pages of a mincore vector shown without `-v`.
const MINCORE_SHOWN: u64 = 32;

/// Leave half of mincore: one byte per page, `[1, 1, 0, ..]`.
pub fn mincore_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    let addr = c.args[2];
    let pages = c.args[1].div_ceil(PAGE);
    let limit = if p.config().verbose > 0 {
        1024
    } else {
        MINCORE_SHOWN
    };
    let shown = pages.min(limit) as usize;
    let mut v = vec![0u8; shown];
    if failed || p.config().values_only >= 2 || !p.mem().read_exact(addr, &mut v) {
        p.ptr("vec", addr);
    } else {
        p.open("vec", "[", Naming::Elements);
        for b in v {
            p.uint("", b as u64);
        }
        if (shown as u64) < pages {
            p.more();
        }
        p.close("]");
    }
    put_result(p, c);
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("brk", brk_out, addr_in, Normal),
    h("mmap", mmap_out, mmap_in, Normal),
    h("mmap2", mmap2_out, mmap_in, Normal),
    h("munmap", munmap_out, default_in, Normal),
    h("mprotect", mprotect_out, default_in, Normal),
    h("pkey_mprotect", pkey_mprotect_out, default_in, Normal),
    h("mremap", mremap_out, addr_in, Normal),
    h("madvise", madvise_out, default_in, Normal),
    h("msync", msync_out, default_in, Normal),
    h("mlock", munmap_out, default_in, Normal),
    h("munlock", munmap_out, default_in, Normal),
    h("mlock2", mlock2_out, default_in, Normal),
    h("mlockall", mlockall_out, default_in, Normal),
    h("munlockall", no_params_out, default_in, Normal),
    h("mincore", mincore_out, mincore_in, Normal),
    h("membarrier", membarrier_out, membarrier_in, Normal),
    h("process_madvise", process_madvise_out, default_in, Normal),
    h("remap_file_pages", remap_file_pages_out, default_in, Normal),
    h("pkey_alloc", pkey_alloc_out, default_in, Normal),
    h(
        "process_vm_readv",
        process_vm_readv_out,
        process_vm_readv_in,
        Normal,
    ),
    h(
        "process_vm_writev",
        process_vm_writev_out,
        default_in,
        Normal,
    ),
];
