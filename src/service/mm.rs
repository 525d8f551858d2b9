//! Memory handlers: mmap (x86_64's, i386's old struct form and mmap2),
//! munmap, mprotect, mremap, madvise, brk, msync, the mlock family,
//! mincore, membarrier and process_madvise.

use crate::abi::xlat::mm::{
    MADV_NAMES, MAP_FLAGS, MCL_FLAGS, MLOCK_FLAGS, MREMAP_FLAGS, MSYNC_FLAGS, PROT_FLAGS,
};
use crate::abi::xlat::process::{
    MEMBARRIER_CMD_FLAG_CPU, MEMBARRIER_CMD_GET_REGISTRATIONS, MEMBARRIER_CMD_QUERY,
    MEMBARRIER_CMDS, MEMBARRIER_FLAGS,
};
use crate::call::{CallClass::Normal, Handler, default_in};
use crate::call::{CallCtx, CallType};
use crate::decode::{put_extended, put_fd};
use crate::format::{Naming, Printer};
use crate::kernel::Arch;
use crate::service::fs::{name_of, put_result};
use crate::service::generic::no_params_out;
use crate::service::h;
use crate::service::raw::uint_at;

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

// Most iovecs the kernel takes.
use crate::abi::xlat::fs::UIO_MAXIOV;
/// iovecs shown before `..` without `-v`.
const IOVECS_SHOWN: usize = 8;

/// `process_madvise(pidfd, iovec, vlen, advice, flags)`: the ranges are
/// the other process's, so each prints as its address and length
/// (`[{iov_base=&0x7f.., iov_len=4096}]`), never as bytes read here.
pub fn process_madvise_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "pidfd", c.int(0));
    let (addr, count) = (c.args[1], c.args[2]);
    let word = if p.arch() == Arch::X86_64 { 8 } else { 4 };
    let bytes = if count <= UIO_MAXIOV && p.config().values_only < 2 {
        crate::service::raw::read_vec(p, addr, count as usize * 2 * word)
    } else {
        None
    };
    match bytes {
        Some(b) => {
            let shown = if p.config().verbose > 0 {
                usize::MAX
            } else {
                IOVECS_SHOWN
            };
            p.open("iovec", "[", Naming::Elements);
            p.bounded(b.chunks_exact(2 * word), shown, |p, iov| {
                p.open("", "{", Naming::Fields);
                p.ptr("iov_base", uint_at(iov, 0, word));
                p.uint("iov_len", uint_at(iov, word, word));
                p.close("}");
            });
            p.close("]");
        }
        None => p.ptr("iovec", addr),
    }
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
];
