//! ptrace(2): each request's `addr` and `data` as strace 6 shows them.
//! The requests that take nothing more print only the request and pid;
//! x86's register requests (PTRACE_GETREGS, SETFPREGS, ...) take no
//! `addr` and print three arguments; the rest print what the kernel reads
//! at the call's entry (a signal, options, a siginfo, a signal mask, an
//! iovec of registers) and what it wrote at its leave (the peeked word,
//! the event message, the registers, the queued siginfos, a seccomp
//! filter). The register layouts are `<sys/user.h>`'s, the names
//! `<elf.h>`'s and `<linux/ptrace.h>`'s (`abi::xlat::process`).

use crate::abi::layout::{Field, extent, field};
use crate::abi::xlat::process::{NT_FPREGSET, NT_PRSTATUS};
use crate::abi::xlat::process::{
    NT_TYPES, PTRACE_ATTACH, PTRACE_CONT, PTRACE_DETACH, PTRACE_GET_SYSCALL_INFO,
    PTRACE_GETEVENTMSG, PTRACE_GETFPREGS, PTRACE_GETREGS, PTRACE_GETREGSET, PTRACE_GETSIGINFO,
    PTRACE_GETSIGMASK, PTRACE_INTERRUPT, PTRACE_KILL, PTRACE_LISTEN, PTRACE_OLDSETOPTIONS,
    PTRACE_OPTIONS, PTRACE_PEEKDATA, PTRACE_PEEKSIGINFO, PTRACE_PEEKSIGINFO_ARGS,
    PTRACE_PEEKSIGINFO_FLAGS, PTRACE_PEEKTEXT, PTRACE_PEEKUSR, PTRACE_REQUESTS,
    PTRACE_SECCOMP_GET_FILTER, PTRACE_SECCOMP_GET_METADATA, PTRACE_SEIZE, PTRACE_SETFPREGS,
    PTRACE_SETOPTIONS, PTRACE_SETREGS, PTRACE_SETREGSET, PTRACE_SETSIGINFO, PTRACE_SETSIGMASK,
    PTRACE_SINGLEBLOCK, PTRACE_SINGLESTEP, PTRACE_SYSCALL, PTRACE_SYSEMU, PTRACE_SYSEMU_SINGLESTEP,
    SECCOMP_FILTER_FLAGS, SECCOMP_METADATA, USER_FPREGS, USER_FPREGS_I386, USER_REGS,
    USER_REGS_I386,
};
use crate::call::{CallClass::Normal, CallCtx, CallData, CallType, Handler, default_in};
use crate::decode::put_signal;
use crate::format::{Naming, Printer};
use crate::ioctl::{IF_IN, IF_OUT, PointedArray};
use crate::kernel::{Arch, SIGINFO_SIZE};
use crate::service::bpf_filter::{Flavor, put_program};
use crate::service::raw::{
    array_limit, out_param_in, put_array, put_named, read_vec, uint_at, word_size,
};
use crate::service::signal::{put_siginfo, put_siginfo_fields, put_sigset};
use crate::service::{Block, ByValue, Mem, h};

/// `long request`, sign-extended from the caller's word.
fn request_of(c: &CallCtx) -> i64 {
    match word_size(c.arch) {
        4 => c.args[0] as u32 as i32 as i64,
        _ => c.args[0] as i64,
    }
}

/// The general registers' layout the caller's ABI copies.
fn regs_layout(arch: Arch) -> &'static [Field] {
    match arch {
        Arch::I386 => USER_REGS_I386,
        _ => USER_REGS,
    }
}

/// The FPU registers' layout the caller's ABI copies.
fn fpregs_layout(arch: Arch) -> &'static [Field] {
    match arch {
        Arch::I386 => USER_FPREGS_I386,
        _ => USER_FPREGS,
    }
}

/// The registers of `layout` that `b` holds (strace prints each member
/// the copy reaches, an array as the 32-bit words it holds, up to the
/// array limit), in hex as strace prints registers (`0` for zero); `more`
/// appends `..` (the caller's buffer is larger than the set).
fn put_regs(p: &mut Printer, name: &str, b: &[u8], layout: &[Field], more: bool) {
    let limit = array_limit(p);
    p.open(name, "{", Naming::Fields);
    for f in layout.iter().filter(|f| f.off < b.len()) {
        if f.size > 8 {
            let end = (f.off + f.size).min(b.len());
            let words: Vec<u64> = (f.off..end)
                .step_by(4)
                .filter(|at| at + 4 <= end)
                .map(|at| uint_at(b, at, 4))
                .collect();
            p.open(f.name, "[", Naming::Elements);
            for (i, word) in words.iter().enumerate() {
                if i == limit {
                    p.more();
                    break;
                }
                p.raw_hex("", *word);
            }
            p.close("]");
        } else if f.off + f.size <= b.len() {
            p.raw_hex(f.name, uint_at(b, f.off, f.size));
        }
    }
    if more {
        p.more();
    }
    p.close("}");
}

/// A whole register struct at `addr` (PTRACE_GETREGS, SETFPREGS, ...),
/// or its pointer.
fn put_regs_at(p: &mut Printer, name: &str, addr: u64, layout: &[Field]) {
    match read_vec(p, addr, extent(layout)) {
        Some(b) if p.config().values_only < 2 => put_regs(p, name, &b, layout, false),
        _ => p.ptr(name, addr),
    }
}

/// A register set `nt` of `len` bytes at `base`: NT_PRSTATUS and
/// NT_FPREGSET as their structs (the members the length reaches; `..`
/// past the struct), any other set, or a length that is not a whole
/// number of words, as the pointer.
fn put_regset(p: &mut Printer, arch: Arch, nt: u64, base: u64, len: u64) {
    let layout = match nt {
        NT_PRSTATUS => regs_layout(arch),
        NT_FPREGSET => fpregs_layout(arch),
        _ => return p.ptr("iov_base", base),
    };
    let size = extent(layout);
    let word = word_size(arch) as u64;
    if len == 0 || !len.is_multiple_of(word) || p.config().values_only >= 2 {
        return p.ptr("iov_base", base);
    }
    match read_vec(p, base, (len as usize).min(size)) {
        Some(b) => put_regs(p, "iov_base", &b, layout, len as usize > size),
        None => p.ptr("iov_base", base),
    }
}

/// The iovec at `addr` (base, length), in the caller's word size.
fn read_iovec(p: &mut Printer, arch: Arch, addr: u64) -> Option<(u64, u64)> {
    let word = word_size(arch);
    let b = read_vec(p, addr, 2 * word)?;
    Some((uint_at(&b, 0, word), uint_at(&b, word, word)))
}

/// PTRACE_PEEKSIGINFO's `addr`: `{off=0, flags=PTRACE_PEEKSIGINFO_SHARED,
/// nr=4}`.
fn put_peeksiginfo_args(p: &mut Printer, addr: u64) {
    let l = PTRACE_PEEKSIGINFO_ARGS;
    match read_vec(p, addr, extent(l)) {
        Some(b) if p.config().values_only < 2 => {
            let get = |n: &str| field(l, n).read(&b).unwrap_or(0);
            p.open("addr", "{", Naming::Fields);
            p.uint("off", get("off"));
            p.flags("flags", get("flags"), PTRACE_PEEKSIGINFO_FLAGS);
            p.uint("nr", get("nr"));
            p.close("}");
        }
        _ => p.ptr("addr", addr),
    }
}

/// PTRACE_SECCOMP_GET_METADATA's `data` at the leave: the filter asked
/// for (`size` bytes given), and its flags when the kernel wrote them
/// (`result` bytes).
fn put_seccomp_metadata(p: &mut Printer, addr: u64, size: u64, result: Option<u64>) {
    let l = SECCOMP_METADATA;
    let off = field(l, "filter_off");
    let shown = size >= off.size as u64 && p.config().values_only < 2;
    let Some(b) = read_vec(p, addr, off.size).filter(|_| shown) else {
        return p.ptr("data", addr);
    };
    p.open("data", "{", Naming::Fields);
    p.uint("filter_off", off.read(&b).unwrap_or(0));
    if let Some(written) = result.filter(|&n| n > off.size as u64) {
        let flags = field(l, "flags");
        match read_vec(p, addr + flags.off as u64, flags.size) {
            Some(f) if written >= extent(l) as u64 => {
                p.flags("flags", uint_at(&f, 0, flags.size), SECCOMP_FILTER_FLAGS);
                if written > extent(l) as u64 {
                    p.more();
                }
            }
            _ => p.more(),
        }
    }
    p.close("}");
}

/// `ptrace(request, pid, addr, data)`: see the module's doc.
pub fn ptrace_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let request = request_of(c);
    put_named(p, "request", request, PTRACE_REQUESTS);
    // PTRACE_TRACEME: pid, addr and data are ignored.
    if request == 0 {
        return CallType::Done;
    }
    p.int("pid", c.int(1));
    let (addr, data) = (c.args[2], c.args[3]);
    match request {
        PTRACE_ATTACH | PTRACE_INTERRUPT | PTRACE_KILL | PTRACE_LISTEN => {
            return CallType::Done;
        }
        // x86 takes the registers at `data` and ignores `addr`.
        PTRACE_GETREGS | PTRACE_GETFPREGS => return CallType::NotDone,
        PTRACE_SETREGS => {
            put_regs_at(p, "data", data, regs_layout(c.arch));
            return CallType::Done;
        }
        PTRACE_SETFPREGS => {
            put_regs_at(p, "data", data, fpregs_layout(c.arch));
            return CallType::Done;
        }
        PTRACE_GETREGSET | PTRACE_SETREGSET => put_named(p, "addr", addr as i64, NT_TYPES),
        // A size or an index.
        PTRACE_GETSIGMASK
        | PTRACE_SETSIGMASK
        | PTRACE_SECCOMP_GET_FILTER
        | PTRACE_SECCOMP_GET_METADATA => p.uint("addr", addr),
        r if r == PTRACE_GET_SYSCALL_INFO as i64 => p.uint("addr", addr),
        PTRACE_PEEKSIGINFO => put_peeksiginfo_args(p, addr),
        _ => p.hex("addr", addr),
    }
    match request {
        PTRACE_CONT
        | PTRACE_SINGLESTEP
        | PTRACE_DETACH
        | PTRACE_SYSCALL
        | PTRACE_SYSEMU
        | PTRACE_SYSEMU_SINGLESTEP
        | PTRACE_SINGLEBLOCK => put_signal(p, "data", data as i64),
        PTRACE_SETOPTIONS | PTRACE_SEIZE | PTRACE_OLDSETOPTIONS => {
            p.flags("data", data, PTRACE_OPTIONS)
        }
        PTRACE_SETSIGINFO => put_siginfo(p, "data", data),
        PTRACE_SETSIGMASK => put_sigset(p, "data", data, addr),
        // The iovec's length as given, to show what the kernel made of it;
        // the registers a SETREGSET gives print with it, at the leave.
        PTRACE_GETREGSET | PTRACE_SETREGSET => {
            if let Some((_, len)) = read_iovec(p, c.arch, data) {
                *c.data = CallData::Input(len.to_le_bytes().to_vec());
            }
            return CallType::NotDone;
        }
        // What the kernel stores at `data`, at the leave.
        PTRACE_PEEKTEXT
        | PTRACE_PEEKDATA
        | PTRACE_PEEKUSR
        | PTRACE_GETEVENTMSG
        | PTRACE_GETSIGINFO
        | PTRACE_GETSIGMASK
        | PTRACE_PEEKSIGINFO
        | PTRACE_SECCOMP_GET_FILTER
        | PTRACE_SECCOMP_GET_METADATA => return CallType::NotDone,
        r if r == PTRACE_GET_SYSCALL_INFO as i64 => return CallType::NotDone,
        _ => p.hex("data", data),
    }
    CallType::Done
}

/// Leave half of the requests that write at `data`.
pub fn ptrace_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if p.equals_printed() {
        return default_in(p, c, failed);
    }
    let (arch, request) = (c.arch, request_of(c));
    let (addr, data) = (c.args[2], c.args[3]);
    match request {
        // As much of the struct as the kernel wrote.
        r if r == PTRACE_GET_SYSCALL_INFO as i64 && !failed => {
            let avail = (c.result as u64).min(addr) as usize;
            crate::service::ptrace_info::put_syscall_info(p, "data", data, avail);
        }
        PTRACE_GETREGS if !failed => put_regs_at(p, "data", data, regs_layout(arch)),
        PTRACE_GETFPREGS if !failed => put_regs_at(p, "data", data, fpregs_layout(arch)),
        PTRACE_GETSIGINFO if !failed => put_siginfo(p, "data", data),
        PTRACE_GETSIGMASK if !failed => put_sigset(p, "data", data, addr),
        // The siginfos the result counts.
        PTRACE_PEEKSIGINFO if !failed => {
            let count = c.result as u64;
            let limit = array_limit(p);
            put_array(p, "data", data, (count, SIGINFO_SIZE, limit), |p, b| {
                p.open("", "{", Naming::Fields);
                put_siginfo_fields(p, b, arch);
                p.close("}");
            });
        }
        // The filter's instructions, as many as the result says.
        PTRACE_SECCOMP_GET_FILTER if !failed && data != 0 => {
            put_program(p, "data", data, c.result as usize, Flavor::Seccomp);
        }
        // The filter asked for, and on success its flags.
        PTRACE_SECCOMP_GET_METADATA => {
            let written = (!failed).then_some(c.result as u64);
            put_seccomp_metadata(p, data, addr, written);
        }
        // The iovec: the registers (GETREGSET's as long as the kernel
        // left them, after a failure their address; SETREGSET's as long
        // as given), the length the kernel left (`iov_len=224 => 216`).
        PTRACE_GETREGSET | PTRACE_SETREGSET => match read_iovec(p, arch, data) {
            Some((base, len)) if p.config().values_only < 2 => {
                let before = match &*c.data {
                    CallData::Input(b) if b.len() == 8 => uint_at(b, 0, 8),
                    _ => len,
                };
                p.open("data", "{", Naming::Fields);
                if request == PTRACE_SETREGSET {
                    put_regset(p, arch, addr, base, before);
                } else if failed {
                    p.ptr("iov_base", base);
                } else {
                    put_regset(p, arch, addr, base, len);
                }
                p.changed("iov_len", before, len);
                p.close("}");
            }
            _ => p.ptr("data", data),
        },
        // PEEK* and GETEVENTMSG: the word stored at `data`.
        _ => {
            return out_param_in(p, c, failed, "data", data, |p, name, addr| {
                match p.mem().read_word(addr, arch) {
                    Some(word) if p.config().values_only < 2 => {
                        p.open(name, "[", Naming::Elements);
                        p.hex("", word);
                        p.close("]");
                    }
                    _ => p.ptr(name, addr),
                }
            });
        }
    }
    p.equals();
    p.result(c.result);
}

/// The register set behind the `iov_base` of PTRACE_GETREGSET's and
/// SETREGSET's iovec in a caller of `word`-byte words, as many bytes as
/// its `iov_len` says (at most the larger of the two sets the decoder
/// shows), read when `dirs` says.
const fn regset_behind(word: usize, dirs: u8) -> PointedArray {
    PointedArray {
        ptr_offset: 0,
        ptr_offset_i386: Some(0),
        count_offset: word,
        count_size: 4,
        count_arg: None,
        unit: 1,
        // One element: the whole set.
        shown: max(extent(USER_REGS), extent(USER_FPREGS)),
        dirs,
        each: None,
        trailing: None,
        string: None,
    }
}

const fn max(a: usize, b: usize) -> usize {
    if a > b { a } else { b }
}

/// The iovec, read at the entry (the length given) and the leave (the
/// length the kernel left), and `set` behind it.
const fn regset_iovec(word: usize, set: &'static [PointedArray]) -> Block {
    Block {
        base: 2 * word,
        units: None,
        dirs: IF_OUT | IF_IN,
        pointed: set,
    }
}

/// GETREGSET's set is written at the leave, SETREGSET's read at the
/// entry; of x86_64's and i386's callers.
const GETREGSET_64: Block = regset_iovec(8, &[regset_behind(8, IF_IN)]);
const GETREGSET_32: Block = regset_iovec(4, &[regset_behind(4, IF_IN)]);
const SETREGSET_64: Block = regset_iovec(8, &[regset_behind(8, IF_OUT)]);
const SETREGSET_32: Block = regset_iovec(4, &[regset_behind(4, IF_OUT)]);

/// As many bytes as `addr` says, written at the leave (GETSIGMASK's
/// mask, GET_SYSCALL_INFO's struct) or read at the entry (SETSIGMASK's).
const ADDR_SIZED_OUT: Block = Block {
    base: 0,
    units: Some((2, 1)),
    dirs: IF_IN,
    pointed: &[],
};
const ADDR_SIZED_IN: Block = Block {
    dirs: IF_OUT,
    ..ADDR_SIZED_OUT
};

/// What the decoders read behind `addr` and `data` for each request, in
/// an `arch` caller's layouts (`service::by_value`): the BPF engine's
/// copies. PEEKSIGINFO's siginfos are copied as far as one capture
/// holds; the decoder shows as many as the result says.
pub fn memory(arch: Arch) -> Vec<ByValue> {
    let (regs, fpregs) = (extent(regs_layout(arch)), extent(fpregs_layout(arch)));
    let word = word_size(arch);
    let (getregset, setregset) = match arch {
        Arch::I386 => (&GETREGSET_32, &SETREGSET_32),
        _ => (&GETREGSET_64, &SETREGSET_64),
    };
    let data = |request: i64, mem: Mem| ByValue::by_first(request as u32, 3, mem);
    vec![
        data(PTRACE_PEEKTEXT, Mem::Out(word)),
        data(PTRACE_PEEKDATA, Mem::Out(word)),
        data(PTRACE_PEEKUSR, Mem::Out(word)),
        data(PTRACE_GETEVENTMSG, Mem::Out(word)),
        data(PTRACE_GETREGS, Mem::Out(regs)),
        data(PTRACE_SETREGS, Mem::In(regs)),
        data(PTRACE_GETFPREGS, Mem::Out(fpregs)),
        data(PTRACE_SETFPREGS, Mem::In(fpregs)),
        data(PTRACE_GETSIGINFO, Mem::Out(SIGINFO_SIZE)),
        data(PTRACE_SETSIGINFO, Mem::In(SIGINFO_SIZE)),
        data(PTRACE_GETSIGMASK, Mem::Block(&ADDR_SIZED_OUT)),
        data(PTRACE_SETSIGMASK, Mem::Block(&ADDR_SIZED_IN)),
        ByValue::by_first(
            PTRACE_PEEKSIGINFO as u32,
            2,
            Mem::In(extent(PTRACE_PEEKSIGINFO_ARGS)),
        ),
        data(PTRACE_PEEKSIGINFO, Mem::Out(usize::MAX)),
        data(PTRACE_SECCOMP_GET_FILTER, Mem::Insns),
        data(
            PTRACE_SECCOMP_GET_METADATA,
            Mem::Out(extent(SECCOMP_METADATA)),
        ),
        data(PTRACE_GET_SYSCALL_INFO as i64, Mem::Block(&ADDR_SIZED_OUT)),
        data(PTRACE_GETREGSET, Mem::Block(getregset)),
        data(PTRACE_SETREGSET, Mem::Block(setregset)),
    ]
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[h("ptrace", ptrace_out, ptrace_in, Normal)];
