//! Memory handlers: mmap, munmap, brk.

use crate::call::{CallClass::Normal, Handler, default_in};
use crate::call::{CallCtx, CallType};
use crate::format::{FlagDef, Printer, flag};
use crate::service::h;

/// `PROT_*` from `<asm-generic/mman-common.h>`.
pub const PROT_FLAGS: &[FlagDef] = &[
    FlagDef {
        mask: 7,
        value: 0,
        name: "PROT_NONE",
    },
    flag(1, "PROT_READ"),
    flag(2, "PROT_WRITE"),
    flag(4, "PROT_EXEC"),
    flag(0x1000000, "PROT_GROWSDOWN"),
    flag(0x2000000, "PROT_GROWSUP"),
];

/// `MAP_*` from `<linux/mman.h>` and `<asm-generic/mman.h>` (x86).
pub const MAP_FLAGS: &[FlagDef] = &[
    FlagDef {
        mask: 0xf,
        value: 1,
        name: "MAP_SHARED",
    },
    FlagDef {
        mask: 0xf,
        value: 2,
        name: "MAP_PRIVATE",
    },
    FlagDef {
        mask: 0xf,
        value: 3,
        name: "MAP_SHARED_VALIDATE",
    },
    flag(0x10, "MAP_FIXED"),
    flag(0x20, "MAP_ANONYMOUS"),
    flag(0x40, "MAP_32BIT"),
    flag(0x100, "MAP_GROWSDOWN"),
    flag(0x800, "MAP_DENYWRITE"),
    flag(0x1000, "MAP_EXECUTABLE"),
    flag(0x2000, "MAP_LOCKED"),
    flag(0x4000, "MAP_NORESERVE"),
    flag(0x8000, "MAP_POPULATE"),
    flag(0x10000, "MAP_NONBLOCK"),
    flag(0x20000, "MAP_STACK"),
    flag(0x40000, "MAP_HUGETLB"),
    flag(0x80000, "MAP_SYNC"),
    flag(0x100000, "MAP_FIXED_NOREPLACE"),
    flag(0x4000000, "MAP_UNINITIALIZED"),
];

/// `mmap(addr, length, prot, flags, fd, offset)`
pub fn mmap_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.ptr("addr", c.args[0]);
    p.uint("length", c.args[1]);
    p.flags("prot", c.args[2], PROT_FLAGS);
    p.flags("flags", c.args[3], MAP_FLAGS);
    p.int("fd", c.int(4));
    p.hex("offset", c.args[5]);
    CallType::Done
}

/// Leave printer for calls that return an address (mmap, brk, mremap).
pub fn addr_in(p: &mut Printer, c: &mut CallCtx, _failed: bool) {
    p.result_ptr(c.result);
}

/// `munmap(addr, length)`
pub fn munmap_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.ptr("addr", c.args[0]);
    p.uint("length", c.args[1]);
    CallType::Done
}

/// `brk(addr)`
pub fn brk_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.ptr("addr", c.args[0]);
    CallType::Done
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("brk", brk_out, addr_in, Normal),
    h("mmap", mmap_out, addr_in, Normal),
    h("mmap2", mmap_out, addr_in, Normal),
    h("munmap", munmap_out, default_in, Normal),
];
