//! io_uring_register, as strace 6 shows it: the `IORING_REGISTER_*`
//! opcode and what each one reads at `arg` (`nr_args` tells how many):
//! buffers as iovecs (their addresses: the kernel pins them, it reads
//! nothing), files and eventfds as fd arrays, a files update, the probe,
//! restrictions, the resource register and update structs with their
//! data and tags, the io-wq CPU set and worker limits, ring fds, a
//! provided-buffer ring, the file allocation range. What the kernel
//! writes back (the probe, the worker limits) follows the result:
//! `= 0 {arg=...}`. Names and layouts from `abi::xlat::fs`
//! (`<linux/io_uring.h>`).

use crate::abi::layout::{Field, extent, field, offset};
use crate::abi::xlat::fs::{
    IO_URING_BUF_REG, IO_URING_FILE_INDEX_RANGE, IO_URING_FILES_UPDATE, IO_URING_OP_FLAGS,
    IO_URING_PROBE, IO_URING_PROBE_OP, IO_URING_RESTRICTION, IO_URING_RSRC_REGISTER,
    IO_URING_RSRC_UPDATE, IO_URING_RSRC_UPDATE2, IO_WQ_ACCT, IORING_FILES_UPDATE_FDS, IORING_OPS,
    IORING_REGISTER_BUFFERS, IORING_REGISTER_BUFFERS_UPDATE, IORING_REGISTER_BUFFERS2,
    IORING_REGISTER_EVENTFD, IORING_REGISTER_EVENTFD_ASYNC, IORING_REGISTER_FILE_ALLOC_RANGE,
    IORING_REGISTER_FILES, IORING_REGISTER_FILES_UPDATE, IORING_REGISTER_FILES_UPDATE2,
    IORING_REGISTER_FILES2, IORING_REGISTER_IOWQ_AFF, IORING_REGISTER_IOWQ_MAX_WORKERS,
    IORING_REGISTER_OPS, IORING_REGISTER_PBUF_RING, IORING_REGISTER_PROBE,
    IORING_REGISTER_RESTRICTIONS, IORING_REGISTER_RING_FDS, IORING_RESTRICTION_REGISTER_OP,
    IORING_RESTRICTION_SQE_FLAGS_ALLOWED, IORING_RESTRICTION_SQE_FLAGS_REQUIRED,
    IORING_RESTRICTION_SQE_OP, IORING_RESTRICTIONS, IORING_RSRC_FLAGS, IORING_UNREGISTER_PBUF_RING,
    IORING_UNREGISTER_RING_FDS, IOSQE_FLAGS,
};
use crate::call::{CallClass::Normal, CallCtx, CallType, Handler};
use crate::decode::put_fd;
use crate::fdtable::FdTable;
use crate::format::{Naming, Printer};
use crate::ioctl::{IF_IN, IF_OUT, PointedArray};
use crate::service::raw::{
    array_limit, entered_done, lookup, open_returned, open_struct_dyn, put_array,
    put_remote_iovecs, put_struct_tail, read_vec, u32_at,
};
use crate::service::resource::put_cpu_mask;
use crate::service::{Block, ByValue, Mem, h};

/// A name from `table`, or the value in hex when it has none (strace's
/// `0x18 /* IORING_REGISTER_??? */`).
fn put_xval(p: &mut Printer, name: &str, value: u64, table: &[(i64, &'static str)]) {
    match lookup(table, value as i64) {
        Some(sym) => p.symbol(name, value as i64, Some(sym)),
        None => p.hex(name, value),
    }
}

/// A name from `table`, or the value in decimal (strace's
/// `47 /* IORING_OP_??? */`).
fn put_uval(p: &mut Printer, name: &str, value: u64, table: &[(i64, &'static str)]) {
    p.symbol_decimal(name, value as i64, lookup(table, value as i64));
}

/// A reserved field or array of `word`-byte words, shown in hex when one
/// is not zero: `resv=0x77`, `resv2=[0, 0x1, 0]`.
fn put_resv(p: &mut Printer, f: Field, b: &[u8], word: usize) {
    let Some(bytes) = b.get(f.off..f.off + f.size) else {
        return;
    };
    if bytes.iter().all(|&x| x == 0) {
        return;
    }
    if f.size <= word {
        p.hex(f.name, f.read(b).unwrap_or(0));
        return;
    }
    p.open(f.name, "[", Naming::Elements);
    for w in bytes.chunks_exact(word) {
        let mut v = [0u8; 8];
        v[..word].copy_from_slice(w);
        p.hex("", u64::from_le_bytes(v));
    }
    p.close("]");
}

/// An fd of a files update: an fd, or a name for the values below -1
/// (`IORING_REGISTER_FILES_SKIP`).
fn put_update_fd(p: &mut Printer, fds: &FdTable, fd: i32) {
    if fd < -1 {
        p.symbol_decimal("", fd as i64, lookup(IORING_FILES_UPDATE_FDS, fd as i64));
    } else {
        put_fd(p, fds, "", fd as i64);
    }
}

/// An array of `count` ints at `addr`: fds, or (for updates) fds and skips.
fn put_fd_array(p: &mut Printer, fds: &FdTable, name: &str, addr: u64, count: u64, update: bool) {
    let limit = array_limit(p);
    put_array(p, name, addr, (count, 4, limit), |p, b| {
        let fd = u32_at(b, 0) as i32;
        if update {
            put_update_fd(p, fds, fd);
        } else {
            put_fd(p, fds, "", fd as i64);
        }
    });
}

/// An array of `count` u64 tags, in hex.
fn put_tags(p: &mut Printer, addr: u64, count: u64) {
    let limit = array_limit(p);
    put_array(p, "tags", addr, (count, 8, limit), |p, b| {
        p.hex("", crate::service::raw::u64_at(b, 0));
    });
}

/// The data of a resource register or update: fds, or buffers.
fn put_rsrc_data(p: &mut Printer, fds: &FdTable, op: u32, addr: u64, count: u64) {
    match op {
        IORING_REGISTER_FILES2 => put_fd_array(p, fds, "data", addr, count, false),
        IORING_REGISTER_FILES_UPDATE2 => put_fd_array(p, fds, "data", addr, count, true),
        _ => put_remote_iovecs(p, "data", addr, count),
    }
}

/// `struct io_uring_rsrc_register` (FILES2, BUFFERS2) or
/// `struct io_uring_rsrc_update2` (FILES_UPDATE2, BUFFERS_UPDATE) of
/// `size` bytes (nr_args): a smaller size is its address; the bytes past
/// the struct when one is not zero.
fn put_rsrc(p: &mut Printer, fds: &FdTable, op: u32, addr: u64, size: u64) {
    let register = matches!(op, IORING_REGISTER_FILES2 | IORING_REGISTER_BUFFERS2);
    let layout = if register {
        IO_URING_RSRC_REGISTER
    } else {
        IO_URING_RSRC_UPDATE2
    };
    let known = extent(layout);
    if size < known as u64 {
        p.ptr("arg", addr);
        return;
    }
    let Some(b) = open_struct_dyn(p, "arg", addr, known) else {
        return;
    };
    let get = |name: &str| field(layout, name).read(&b).unwrap_or(0);
    let nr = get("nr");
    if register {
        p.uint("nr", nr);
        p.flags("flags", get("flags"), IORING_RSRC_FLAGS);
        put_resv(p, field(layout, "resv2"), &b, 8);
    } else {
        p.uint("offset", get("offset"));
        put_resv(p, field(layout, "resv"), &b, 4);
    }
    put_rsrc_data(p, fds, op, get("data"), nr);
    put_tags(p, get("tags"), nr);
    if !register {
        p.uint("nr", nr);
        put_resv(p, field(layout, "resv2"), &b, 4);
    }
    let all = put_struct_tail(p, addr, known as u64, size);
    p.close_struct(all);
}

/// `struct io_uring_files_update`: the offset and `count` fds.
fn put_files_update(p: &mut Printer, fds: &FdTable, addr: u64, count: u64) {
    let layout = IO_URING_FILES_UPDATE;
    let Some(b) = open_struct_dyn(p, "arg", addr, extent(layout)) else {
        return;
    };
    let get = |name: &str| field(layout, name).read(&b).unwrap_or(0);
    p.uint("offset", get("offset"));
    put_resv(p, field(layout, "resv"), &b, 4);
    put_fd_array(p, fds, "fds", get("fds"), count, true);
    p.close_struct(true);
}

/// One `struct io_uring_restriction`: its opcode and the operand the
/// opcode says (`register_op`, `sqe_op` or `sqe_flags`, one byte).
fn put_restriction(p: &mut Printer, b: &[u8]) {
    let layout = IO_URING_RESTRICTION;
    let get = |name: &str| field(layout, name).read(b).unwrap_or(0);
    let (opcode, operand) = (get("opcode"), get("register_op"));
    p.open("", "{", Naming::Fields);
    put_xval(p, "opcode", opcode, IORING_RESTRICTIONS);
    match opcode as u32 {
        IORING_RESTRICTION_REGISTER_OP => put_xval(p, "register_op", operand, IORING_REGISTER_OPS),
        IORING_RESTRICTION_SQE_OP => put_xval(p, "sqe_op", operand, IORING_OPS),
        IORING_RESTRICTION_SQE_FLAGS_ALLOWED | IORING_RESTRICTION_SQE_FLAGS_REQUIRED => {
            p.flags("sqe_flags", operand, IOSQE_FLAGS)
        }
        // The operand byte of an opcode the kernel does not know.
        _ => p.hex("op", operand),
    }
    put_resv(p, field(layout, "resv"), b, 2);
    put_resv(p, field(layout, "resv2"), b, 4);
    p.close("}");
}

/// `struct io_uring_probe` with `count` ops (the caller's nr_args, or at
/// leave as many as the kernel filled in); `..` when the kernel has more.
fn put_probe(p: &mut Printer, name: &str, b: &[u8], count: u64, more: bool) {
    let layout = IO_URING_PROBE;
    let get = |name: &str| field(layout, name).read(b).unwrap_or(0);
    p.open(name, "{", Naming::Fields);
    put_uval(p, "last_op", get("last_op"), IORING_OPS);
    p.uint("ops_len", get("ops_len"));
    put_resv(p, field(layout, "resv"), b, 2);
    put_resv(p, field(layout, "resv2"), b, 4);
    p.open("ops", "[", Naming::Elements);
    let size = extent(IO_URING_PROBE_OP);
    let ops = b[extent(layout)..].chunks_exact(size).take(count as usize);
    let limit = array_limit(p);
    p.bounded(ops, limit, |p, op| {
        let get = |name: &str| field(IO_URING_PROBE_OP, name).read(op).unwrap_or(0);
        p.open("", "{", Naming::Fields);
        put_uval(p, "op", get("op"), IORING_OPS);
        put_resv(p, field(IO_URING_PROBE_OP, "resv"), op, 1);
        p.flags("flags", get("flags"), IO_URING_OP_FLAGS);
        put_resv(p, field(IO_URING_PROBE_OP, "resv2"), op, 4);
        p.close("}");
    });
    if more {
        p.more();
    }
    p.close("]");
    p.close("}");
}

/// The most probe ops read (strace's bound too): an op is a byte, so no
/// kernel fills in more; a larger nr_args prints as the pointer.
const PROBE_MAX_OPS: u64 = 256;

/// The bytes of a probe of `count` ops at `addr`.
fn read_probe(p: &mut Printer, addr: u64, count: u64) -> Option<Vec<u8>> {
    if count > PROBE_MAX_OPS {
        return None;
    }
    let len = extent(IO_URING_PROBE) + count as usize * extent(IO_URING_PROBE_OP);
    read_vec(p, addr, len)
}

/// IORING_REGISTER_IOWQ_MAX_WORKERS' array, by index:
/// `[[IO_WQ_BOUND]=4, [IO_WQ_UNBOUND]=8]`.
fn put_workers(p: &mut Printer, name: &str, addr: u64, count: u64) {
    let limit = array_limit(p);
    let mut index = 0i64;
    put_array(p, name, addr, (count, 4, limit), |p, b| {
        let value = u32_at(b, 0) as u64;
        if p.json() {
            p.uint("", value);
        } else {
            // strace's indexed element: `[IO_WQ_BOUND]=4`.
            let label = p.spelling(&index.to_string(), lookup(IO_WQ_ACCT, index));
            p.field("", &format!("[{label}]={value}"));
        }
        index += 1;
    });
}

/// IORING_REGISTER_RING_FDS' or IORING_UNREGISTER_RING_FDS' array of
/// `struct io_uring_rsrc_update`: where each ring fd goes (-1: the first
/// free slot) and the fd, or the slot to free.
fn put_ring_fds(p: &mut Printer, fds: &FdTable, addr: u64, count: u64, register: bool) {
    let layout = IO_URING_RSRC_UPDATE;
    let limit = array_limit(p);
    put_array(p, "arg", addr, (count, extent(layout), limit), |p, b| {
        let get = |name: &str| field(layout, name).read(b).unwrap_or(0);
        p.open("", "{", Naming::Fields);
        let offset = get("offset");
        if register && offset == u32::MAX as u64 {
            p.int("offset", -1);
        } else {
            p.uint("offset", offset);
        }
        put_resv(p, field(layout, "resv"), b, 4);
        if register {
            put_fd(p, fds, "data", get("data") as u32 as i32 as i64);
        } else if get("data") != 0 {
            p.hex("data", get("data"));
        }
        p.close("}");
    });
}

/// `struct io_uring_buf_reg`: a provided-buffer ring.
fn put_buf_reg(p: &mut Printer, addr: u64) {
    let layout = IO_URING_BUF_REG;
    let Some(b) = open_struct_dyn(p, "arg", addr, extent(layout)) else {
        return;
    };
    let get = |name: &str| field(layout, name).read(&b).unwrap_or(0);
    p.ptr("ring_addr", get("ring_addr"));
    p.uint("ring_entries", get("ring_entries"));
    p.uint("bgid", get("bgid"));
    put_resv(p, field(layout, "pad"), &b, 2);
    put_resv(p, field(layout, "resv"), &b, 8);
    p.close_struct(true);
}

/// `struct io_uring_file_index_range`: the fixed-file slots new files go to.
fn put_file_range(p: &mut Printer, addr: u64) {
    let layout = IO_URING_FILE_INDEX_RANGE;
    let Some(b) = open_struct_dyn(p, "arg", addr, extent(layout)) else {
        return;
    };
    let get = |name: &str| field(layout, name).read(&b).unwrap_or(0);
    p.uint("off", get("off"));
    p.uint("len", get("len"));
    put_resv(p, field(layout, "resv"), &b, 8);
    p.close_struct(true);
}

/// A 64-bit `struct iovec`'s bytes (an i386 caller's are 8: copying
/// 16 a unit copies them too).
const IOVEC: usize = 16;

/// `nr_args` elements of `unit` bytes at `arg`, which the kernel reads.
const fn read_units(unit: usize) -> Block {
    Block {
        base: 0,
        units: Some((3, unit)),
        dirs: IF_OUT,
        pointed: &[],
    }
}

/// A struct of `size` bytes at `arg`, which the kernel reads.
const fn read_struct(size: usize) -> Block {
    Block {
        base: size,
        units: None,
        dirs: IF_OUT,
        pointed: &[],
    }
}

/// An array behind the pointer at `at` in a struct at `arg`, `unit`
/// bytes an element, as many as the u32 member at `count_at` says, or
/// (`count_at` None) as `nr_args` says; the kernel reads it.
const fn behind(at: usize, count_at: Option<usize>, unit: usize) -> PointedArray {
    PointedArray {
        ptr_offset: at,
        // The io_uring structs are laid out alike for an i386 caller.
        ptr_offset_i386: Some(at),
        count_offset: match count_at {
            Some(at) => at,
            None => 0,
        },
        count_size: if count_at.is_some() { 4 } else { 0 },
        count_arg: if count_at.is_some() { None } else { Some(3) },
        unit,
        shown: 1,
        dirs: IF_OUT,
        each: None,
        trailing: None,
        string: None,
    }
}

const BUFFERS: Block = read_units(IOVEC);
const FDS: Block = read_units(4);
const RESTRICTIONS: Block = read_units(extent(IO_URING_RESTRICTION));
const IOWQ_AFF: Block = read_units(1);
const RING_FDS: Block = read_units(extent(IO_URING_RSRC_UPDATE));
const BUF_REG: Block = read_struct(extent(IO_URING_BUF_REG));
const FILE_RANGE: Block = read_struct(extent(IO_URING_FILE_INDEX_RANGE));
/// The probe the kernel fills in (and requires zeroed): read at the
/// entry, written at the leave.
const PROBE: Block = Block {
    base: extent(IO_URING_PROBE),
    units: Some((3, extent(IO_URING_PROBE_OP))),
    dirs: IF_OUT | IF_IN,
    pointed: &[],
};
/// The worker limits: read, and the old ones written back.
const MAX_WORKERS: Block = Block {
    dirs: IF_OUT | IF_IN,
    ..read_units(4)
};
const FILES_UPDATE: Block = Block {
    pointed: &[behind(offset(IO_URING_FILES_UPDATE, "fds"), None, 4)],
    ..read_struct(extent(IO_URING_FILES_UPDATE))
};
/// A resource register or update struct, `nr_args` bytes of it (the
/// decoder shows the bytes past the struct it knows), with its data
/// (`unit` bytes an element) and tags, `nr` of each.
const fn rsrc(layout: &'static [Field], unit: usize) -> [PointedArray; 2] {
    let nr = Some(offset(layout, "nr"));
    [
        behind(offset(layout, "data"), nr, unit),
        behind(offset(layout, "tags"), nr, 8),
    ]
}
const RSRC_FILES: Block = Block {
    pointed: &rsrc(IO_URING_RSRC_REGISTER, 4),
    ..read_units(1)
};
const RSRC_BUFFERS: Block = Block {
    pointed: &rsrc(IO_URING_RSRC_REGISTER, IOVEC),
    ..read_units(1)
};
const RSRC_FILES_UPDATE: Block = Block {
    pointed: &rsrc(IO_URING_RSRC_UPDATE2, 4),
    ..read_units(1)
};
const RSRC_BUFFERS_UPDATE: Block = Block {
    pointed: &rsrc(IO_URING_RSRC_UPDATE2, IOVEC),
    ..read_units(1)
};

/// What the decoder reads at `arg` for each opcode (`service::by_value`):
/// what the BPF engine copies.
pub fn memory() -> Vec<ByValue> {
    let of = |op: u32, block: &'static Block| ByValue {
        selector: 1,
        value: op as u64,
        arg: 2,
        mem: Mem::Block(block),
    };
    vec![
        of(IORING_REGISTER_BUFFERS, &BUFFERS),
        of(IORING_REGISTER_FILES, &FDS),
        of(IORING_REGISTER_EVENTFD, &FDS),
        of(IORING_REGISTER_EVENTFD_ASYNC, &FDS),
        of(IORING_REGISTER_FILES_UPDATE, &FILES_UPDATE),
        of(IORING_REGISTER_PROBE, &PROBE),
        of(IORING_REGISTER_RESTRICTIONS, &RESTRICTIONS),
        of(IORING_REGISTER_FILES2, &RSRC_FILES),
        of(IORING_REGISTER_BUFFERS2, &RSRC_BUFFERS),
        of(IORING_REGISTER_FILES_UPDATE2, &RSRC_FILES_UPDATE),
        of(IORING_REGISTER_BUFFERS_UPDATE, &RSRC_BUFFERS_UPDATE),
        of(IORING_REGISTER_IOWQ_AFF, &IOWQ_AFF),
        of(IORING_REGISTER_IOWQ_MAX_WORKERS, &MAX_WORKERS),
        of(IORING_REGISTER_RING_FDS, &RING_FDS),
        of(IORING_UNREGISTER_RING_FDS, &RING_FDS),
        of(IORING_REGISTER_PBUF_RING, &BUF_REG),
        of(IORING_UNREGISTER_PBUF_RING, &BUF_REG),
        of(IORING_REGISTER_FILE_ALLOC_RANGE, &FILE_RANGE),
    ]
}

/// `io_uring_register(fd, opcode, arg, nr_args)`.
pub fn io_uring_register_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    let op = c.args[1] as u32;
    put_xval(p, "opcode", op as u64, IORING_REGISTER_OPS);
    let (arg, nargs) = (c.args[2], c.args[3] as u32 as u64);
    match op {
        IORING_REGISTER_BUFFERS => put_remote_iovecs(p, "arg", arg, nargs),
        IORING_REGISTER_FILES | IORING_REGISTER_EVENTFD | IORING_REGISTER_EVENTFD_ASYNC => {
            put_fd_array(p, c.fds, "arg", arg, nargs, false)
        }
        IORING_REGISTER_FILES_UPDATE => put_files_update(p, c.fds, arg, nargs),
        IORING_REGISTER_PROBE => match read_probe(p, arg, nargs) {
            // The kernel requires a zeroed probe: a zeroed one says
            // nothing the answer after the result will not.
            Some(b) if p.config().values_only < 2 && b.iter().any(|&x| x != 0) => {
                put_probe(p, "arg", &b, nargs, false)
            }
            _ => p.ptr("arg", arg),
        },
        IORING_REGISTER_RESTRICTIONS => {
            let limit = array_limit(p);
            let size = extent(IO_URING_RESTRICTION);
            put_array(p, "arg", arg, (nargs, size, limit), put_restriction);
        }
        IORING_REGISTER_FILES2
        | IORING_REGISTER_BUFFERS2
        | IORING_REGISTER_FILES_UPDATE2
        | IORING_REGISTER_BUFFERS_UPDATE => put_rsrc(p, c.fds, op, arg, nargs),
        IORING_REGISTER_IOWQ_AFF => put_cpu_mask(p, "arg", arg, nargs),
        IORING_REGISTER_IOWQ_MAX_WORKERS => put_workers(p, "arg", arg, nargs),
        IORING_REGISTER_RING_FDS => put_ring_fds(p, c.fds, arg, nargs, true),
        IORING_UNREGISTER_RING_FDS => put_ring_fds(p, c.fds, arg, nargs, false),
        IORING_REGISTER_PBUF_RING | IORING_UNREGISTER_PBUF_RING => put_buf_reg(p, arg),
        IORING_REGISTER_FILE_ALLOC_RANGE => put_file_range(p, arg),
        _ => p.ptr("arg", arg),
    }
    p.uint("nr_args", nargs);
    CallType::Done
}

/// Leave half of io_uring_register: what the kernel wrote back, after the
/// result: the probe (`= 0 {arg={last_op=..., ops=[...]}}`, as many ops
/// as it filled in), the worker limits it had before.
pub fn io_uring_register_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    entered_done(p, c);
    if failed || p.config().values_only >= 2 {
        return;
    }
    let (op, arg, nargs) = (c.args[1] as u32, c.args[2], c.args[3] as u32 as u64);
    match op {
        IORING_REGISTER_PROBE => {
            let Some(b) = read_probe(p, arg, nargs) else {
                return;
            };
            let ops_len = field(IO_URING_PROBE, "ops_len").read(&b).unwrap_or(0);
            open_returned(p);
            put_probe(p, "arg", &b, ops_len.min(nargs), nargs < ops_len);
            p.close("}");
        }
        IORING_REGISTER_IOWQ_MAX_WORKERS if arg != 0 => {
            open_returned(p);
            put_workers(p, "arg", arg, nargs);
            p.close("}");
        }
        _ => {}
    }
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[h(
    "io_uring_register",
    io_uring_register_out,
    io_uring_register_in,
    Normal,
)];
