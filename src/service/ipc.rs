//! System V IPC: semget, semop, semtimedop, semctl; msgget, msgsnd,
//! msgrcv, msgctl; shmget, shmat, shmdt, shmctl; and i386's `ipc(2)`
//! multiplexer, shown as the call it stands for (as strace shows it).
//!
//! Every name, number and struct layout comes from `abi::xlat::ipc`
//! (generated from `<linux/ipc.h>`, `<linux/sem.h>`, `<linux/msg.h>`,
//! `<linux/shm.h>`, for x86_64 and, compiled `-m32`, for i386: the compat
//! layouts the kernel reads for an i386 caller). Structs print in strace's
//! order of fields, which the generated layouts keep.

use crate::abi::flags::FlagDef;
use crate::abi::layout::{Field, extent};
use crate::abi::xlat::ipc::{
    IPC_CALLS, IPC_GET_FLAGS, IPC64_PERM, IPC64_PERM_I386, MSG_FLAGS, MSGBUF, MSGBUF_I386,
    MSGCTL_CMDS, MSGINFO, MSQID64_DS, MSQID64_DS_I386, SEM_FLAGS, SEMBUF, SEMCTL_CMDS, SEMID64_DS,
    SEMID64_DS_I386, SEMINFO, SHM_GET_FLAGS, SHM_INFO, SHM_INFO_I386, SHMAT_FLAGS, SHMCTL_CMDS,
    SHMID64_DS, SHMID64_DS_I386, SHMINFO64, SHMINFO64_I386,
};
use crate::call::{CallClass::Normal, Handler, default_in};
use crate::call::{CallCtx, CallType};
use crate::format::{Naming, Printer, flags_hex, flags_text};
use crate::kernel::{Arch, Memory};
use crate::service::h;
use crate::service::raw::{lookup, open_struct_dyn, put_composed, read_vec};
use crate::service::time::put_call_timespec;
use crate::service::{ByValue, Mem, Source, Subcall};

/// The flag a `*ctl` command carries for the 64-bit structs
/// (`<linux/ipc.h>`'s IPC_64; i386's C library always sets it).
const IPC_64: u64 = crate::abi::xlat::ipc::IPC_64_FLAG[0].value;

/// The mode bits below an IPC get call's flags.
const MODE_BITS: u64 = 0o777;

/// The layouts of the calling ABI.
struct Layouts {
    perm: &'static [Field],
    sem: &'static [Field],
    msq: &'static [Field],
    shm: &'static [Field],
    shminfo: &'static [Field],
    shm_info: &'static [Field],
    msgbuf: &'static [Field],
}

fn layouts(arch: Arch) -> Layouts {
    match arch {
        Arch::I386 => Layouts {
            perm: IPC64_PERM_I386,
            sem: SEMID64_DS_I386,
            msq: MSQID64_DS_I386,
            shm: SHMID64_DS_I386,
            shminfo: SHMINFO64_I386,
            shm_info: SHM_INFO_I386,
            msgbuf: MSGBUF_I386,
        },
        _ => Layouts {
            perm: IPC64_PERM,
            sem: SEMID64_DS,
            msq: MSQID64_DS,
            shm: SHMID64_DS,
            shminfo: SHMINFO64,
            shm_info: SHM_INFO,
            msgbuf: MSGBUF,
        },
    }
}

/// The most bytes the decoders read through call `name`'s struct
/// argument, as (argument index, bytes), where the kernel's declaration
/// names a smaller struct than x86_64's kernel copies: `struct shmid_ds *`
/// and `struct msqid_ds *`, where the native calls copy the IPC_64
/// structs (and the `*_INFO` commands others). What the BPF engine copies
/// for them, as its plan reads the declaration otherwise.
pub fn copied_struct(arch: Arch, name: &str) -> Option<(u8, usize)> {
    if arch != Arch::X86_64 {
        return None;
    }
    let l = layouts(arch);
    let most = |all: &[&[Field]]| all.iter().map(|f| extent(f)).max().unwrap_or(0);
    match name {
        "shmctl" => Some((2, most(&[l.shm, l.shminfo, l.shm_info]))),
        "msgctl" => Some((2, most(&[l.msq, MSGINFO]))),
        _ => None,
    }
}

/// What semctl's decoders read behind its fourth argument (a union the
/// command chooses: `service::ByValue`), with and without IPC_64: the
/// struct a STAT command fills, the one IPC_SET reads, the `*_INFO`
/// answer. GETALL's and SETALL's arrays are shown as pointers.
pub fn semctl_memory() -> Vec<ByValue> {
    let l = layouts(Arch::X86_64);
    let (sem, info) = (extent(l.sem), extent(SEMINFO));
    let mut out = Vec::new();
    for (name, mem) in [
        ("IPC_STAT", Mem::Out(sem)),
        ("SEM_STAT", Mem::Out(sem)),
        ("SEM_STAT_ANY", Mem::Out(sem)),
        ("IPC_SET", Mem::In(sem)),
        ("IPC_INFO", Mem::Out(info)),
        ("SEM_INFO", Mem::Out(info)),
    ] {
        let Some(&(cmd, _)) = SEMCTL_CMDS.iter().find(|(_, n)| *n == name) else {
            continue;
        };
        for value in [cmd as u64, cmd as u64 | IPC_64] {
            out.push(ByValue {
                selector: 2,
                value,
                arg: 3,
                mem,
            });
        }
    }
    out
}

/// A key: `IPC_PRIVATE` (0), else in hex as strace prints it.
fn put_key(p: &mut Printer, name: &str, key: u64) {
    let key = key as u32 as u64;
    if key == 0 && !p.values_style() {
        p.symbol(name, 0, Some("IPC_PRIVATE"));
    } else {
        p.hex(name, key);
    }
}

/// A get call's flags and mode in one word, as strace prints it:
/// `IPC_CREAT|IPC_EXCL|0600`, `000`; in JSON `{"flags": ..., "mode": ...}`.
fn put_get_flags(p: &mut Printer, name: &str, value: u64, table: &[FlagDef]) {
    let value = value as u32 as u64;
    if p.values_style() {
        p.hex(name, value);
        return;
    }
    let (flags, mode) = (value & !MODE_BITS, value & MODE_BITS);
    let mode_text = if mode == 0 {
        "000".to_string()
    } else {
        format!("0{mode:o}")
    };
    let text = if flags == 0 {
        mode_text
    } else {
        // The flags as -X spells them: `0x200 /* IPC_CREAT */|0600`.
        let names = flags_text(flags, table, true);
        format!(
            "{}|{mode_text}",
            p.spelling(&flags_hex(flags), Some(&names))
        )
    };
    put_composed(p, name, &text, |p| {
        p.open(name, "{", Naming::Fields);
        p.flags("flags", flags, table);
        p.mode("mode", mode);
        p.close("}");
    });
}

/// A `*ctl` command: its name in the call's table, `IPC_64|` before it
/// when the flag is set.
fn put_cmd(p: &mut Printer, name: &str, cmd: u64, table: &[(i64, &'static str)]) {
    let cmd = cmd as u32 as u64;
    let base = cmd & !IPC_64;
    match lookup(table, base as i64).filter(|_| p.symbols()) {
        Some(sym) if cmd & IPC_64 != 0 => put_composed(p, name, &format!("IPC_64|{sym}"), |p| {
            p.symbol(name, cmd as i64, Some(sym));
        }),
        Some(sym) => p.symbol(name, cmd as i64, Some(sym)),
        None if p.symbols() => p.hex(name, cmd),
        None => p.int(name, cmd as u32 as i32 as i64),
    }
}

/// Whether a command's struct has the layouts rtrace knows: always on
/// x86_64 (which has only the 64-bit structs), only with IPC_64 on i386
/// (the old 16-bit-id structs are not decoded).
fn known_layout(c: &CallCtx, cmd: u64) -> bool {
    c.arch != Arch::I386 || cmd & IPC_64 != 0
}

/// The command of a `*ctl` call without its IPC_64 flag; a command whose
/// struct has a layout rtrace does not know ([`known_layout`]) is "".
fn base_cmd(c: &CallCtx, i: usize) -> &'static str {
    let cmd = c.args[i] as u32 as u64;
    let table = match c.sig.map(|s| s.name) {
        Some("semctl") => SEMCTL_CMDS,
        Some("msgctl") => MSGCTL_CMDS,
        _ => SHMCTL_CMDS,
    };
    let name = lookup(table, (cmd & !IPC_64) as i64).unwrap_or("");
    let with_struct = name.contains("STAT") || name.contains("INFO") || name == "IPC_SET";
    if with_struct && !known_layout(c, cmd) {
        return "";
    }
    name
}

/// The fields of `layout` in `b`: numbers (the key too, as strace prints
/// it there), the permission struct nested (`only` limits both to the
/// fields IPC_SET reads).
fn put_fields(p: &mut Printer, b: &[u8], layout: &[Field], perm: &[Field], only: Option<&[&str]>) {
    for f in layout {
        if only.is_some_and(|o| !o.contains(&f.name)) {
            continue;
        }
        if f.name.ends_with("_perm") {
            let sub = &b[f.off..f.off + f.size];
            p.open(f.name, "{", Naming::Fields);
            put_fields(p, sub, perm, &[], only);
            p.close("}");
            continue;
        }
        let Some(v) = f.read(b) else { continue };
        match f.name {
            "mode" => p.mode(f.name, v),
            _ if f.signed => p.int(f.name, v as i64),
            _ => p.uint(f.name, v),
        }
    }
}

/// A struct of `layout` at `addr` (its pointer if unreadable).
fn put_struct(p: &mut Printer, name: &str, addr: u64, layout: &[Field], perm: &[Field]) {
    put_struct_only(p, name, addr, layout, perm, None);
}

fn put_struct_only(
    p: &mut Printer,
    name: &str,
    addr: u64,
    layout: &[Field],
    perm: &[Field],
    only: Option<&[&str]>,
) {
    if let Some(b) = open_struct_dyn(p, name, addr, extent(layout)) {
        put_fields(p, &b, layout, perm, only);
        p.close("}");
    }
}

/// The fields IPC_SET reads: the owner and mode, and a queue's size.
const SET_FIELDS: &[&str] = &[
    "sem_perm",
    "msg_perm",
    "shm_perm",
    "uid",
    "gid",
    "mode",
    "msg_qbytes",
];

/// `semget(key, nsems, semflg)`
pub fn semget_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_key(p, "key", c.args[0]);
    p.int("nsems", c.int(1));
    put_get_flags(p, "semflg", c.args[2], IPC_GET_FLAGS);
    CallType::Done
}

/// `msgget(key, msgflg)`
pub fn msgget_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_key(p, "key", c.args[0]);
    put_get_flags(p, "msgflg", c.args[1], IPC_GET_FLAGS);
    CallType::Done
}

/// `shmget(key, size, shmflg)`
pub fn shmget_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_key(p, "key", c.args[0]);
    p.uint("size", c.args[1]);
    put_get_flags(p, "shmflg", c.args[2], SHM_GET_FLAGS);
    CallType::Done
}

/// An array of `n` `struct sembuf` at `addr`: `[{sem_num=0, sem_op=-1,
/// sem_flg=SEM_UNDO}]`, bounded as strace bounds arrays.
fn put_sembufs(p: &mut Printer, name: &str, addr: u64, n: u64) {
    let size = extent(SEMBUF);
    let limit = p.config().string_limit;
    if n == 0 {
        p.ptr(name, addr);
        return;
    }
    // An unreadable tail shows where it is (`decode::put_array`).
    crate::service::raw::put_array(p, name, addr, (n, size, limit), |p, one| {
        p.open("", "{", Naming::Fields);
        for f in SEMBUF {
            let v = f.read(one).unwrap_or(0);
            match f.name {
                "sem_flg" => p.flags(f.name, v & 0xffff, SEM_FLAGS),
                _ if f.signed => p.int(f.name, v as i64),
                _ => p.uint(f.name, v),
            }
        }
        p.close("}");
    });
}

/// `semop(semid, sops, nsops)`
pub fn semop_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("semid", c.int(0));
    put_sembufs(p, "tsops", c.args[1], c.args[2] as u32 as u64);
    p.uint("nsops", c.args[2] as u32 as u64);
    CallType::Done
}

/// `semtimedop(semid, sops, nsops, timeout)` (and i386's `_time64`).
pub fn semtimedop_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    semop_out(p, c);
    put_call_timespec(p, c, "timeout", c.args[3]);
    CallType::Done
}

/// `semctl(semid, semnum, cmd, arg)`: arg is a struct the call fills
/// (IPC_STAT, IPC_INFO: printed at leave), one it reads (IPC_SET), the
/// value of SETVAL, or a pointer.
pub fn semctl_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("semid", c.int(0));
    p.int("semnum", c.int(1));
    put_cmd(p, "cmd", c.args[2], SEMCTL_CMDS);
    let arg = c.args[3];
    match base_cmd(c, 2) {
        "IPC_STAT" | "SEM_STAT" | "SEM_STAT_ANY" | "IPC_INFO" | "SEM_INFO" => {
            return CallType::NotDone;
        }
        "IPC_SET" => {
            let l = layouts(c.arch);
            put_struct_only(p, "arg", arg, l.sem, l.perm, Some(SET_FIELDS));
        }
        "SETVAL" => p.hex("arg", arg),
        _ => p.ptr("arg", arg),
    }
    CallType::Done
}

/// The leave half of the `*ctl` calls that fill a struct: the struct (its
/// pointer if the call failed), then the result.
fn ctl_in(p: &mut Printer, c: &mut CallCtx, failed: bool, name: &str, arg: u64) {
    if crate::service::raw::entered_done(p, c) {
        return;
    }
    let l = layouts(c.arch);
    let call = c.sig.map_or("", |s| s.name);
    let cmd = base_cmd(c, if call == "semctl" { 2 } else { 1 });
    let layout = match (call, cmd) {
        ("semctl", "IPC_INFO" | "SEM_INFO") => SEMINFO,
        ("semctl", _) => l.sem,
        ("msgctl", "IPC_INFO" | "MSG_INFO") => MSGINFO,
        ("msgctl", _) => l.msq,
        (_, "IPC_INFO") => l.shminfo,
        (_, "SHM_INFO") => l.shm_info,
        _ => l.shm,
    };
    if failed {
        p.ptr(name, arg);
    } else {
        put_struct(p, name, arg, layout, l.perm);
    }
    p.equals();
    p.result(c.result);
}

/// Leave half of semctl.
pub fn semctl_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    ctl_in(p, c, failed, "arg", c.args[3]);
}

/// `msgctl(msqid, cmd, buf)`
pub fn msgctl_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("msqid", c.int(0));
    put_cmd(p, "cmd", c.args[1], MSGCTL_CMDS);
    match base_cmd(c, 1) {
        "IPC_STAT" | "MSG_STAT" | "MSG_STAT_ANY" | "IPC_INFO" | "MSG_INFO" => CallType::NotDone,
        "IPC_SET" => {
            let l = layouts(c.arch);
            put_struct_only(p, "buf", c.args[2], l.msq, l.perm, Some(SET_FIELDS));
            CallType::Done
        }
        _ => {
            p.ptr("buf", c.args[2]);
            CallType::Done
        }
    }
}

/// Leave half of msgctl.
pub fn msgctl_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    ctl_in(p, c, failed, "buf", c.args[2]);
}

/// `shmctl(shmid, cmd, buf)`
pub fn shmctl_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("shmid", c.int(0));
    put_cmd(p, "cmd", c.args[1], SHMCTL_CMDS);
    match base_cmd(c, 1) {
        "IPC_STAT" | "SHM_STAT" | "SHM_STAT_ANY" | "IPC_INFO" | "SHM_INFO" => CallType::NotDone,
        "IPC_SET" => {
            let l = layouts(c.arch);
            put_struct_only(p, "buf", c.args[2], l.shm, l.perm, Some(SET_FIELDS));
            CallType::Done
        }
        _ => {
            p.ptr("buf", c.args[2]);
            CallType::Done
        }
    }
}

/// Leave half of shmctl.
pub fn shmctl_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    ctl_in(p, c, failed, "buf", c.args[2]);
}

/// A message of `len` text bytes at `addr`: `{mtype=7, mtext="hello"}`
/// (the text cut at the string limit); its pointer if unreadable.
fn put_msgbuf(p: &mut Printer, name: &str, addr: u64, len: u64, arch: Arch) {
    let layout = layouts(arch).msgbuf;
    let (mtype, mtext) = (layout[0], layout[1]);
    let limit = p.config().string_limit as u64;
    let want = len.min(limit) as usize;
    let structs = p.config().values_only < 2;
    let Some(b) = read_vec(p, addr, mtext.off + want).filter(|_| structs) else {
        p.ptr(name, addr);
        return;
    };
    p.open(name, "{", Naming::Fields);
    p.int(mtype.name, mtype.read(&b).unwrap_or(0) as i64);
    p.string(mtext.name, &b[mtext.off..], len > limit);
    p.close("}");
}

/// A `long` argument of the calling ABI (msgrcv's msgtyp), sign-extended.
fn long_arg(c: &CallCtx, i: usize) -> i64 {
    match c.arch {
        Arch::I386 => c.args[i] as i32 as i64,
        _ => c.args[i] as i64,
    }
}

/// `msgsnd(msqid, msgp, msgsz, msgflg)`
pub fn msgsnd_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("msqid", c.int(0));
    put_msgbuf(p, "msgp", c.args[1], c.args[2], c.arch);
    p.uint("msgsz", c.args[2]);
    p.flags("msgflg", c.args[3] as u32 as u64, MSG_FLAGS);
    CallType::Done
}

/// `msgrcv(msqid, msgp, msgsz, msgtyp, msgflg)`: the message at leave.
pub fn msgrcv_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("msqid", c.int(0));
    CallType::NotDone
}

/// Leave half of msgrcv: the message received (as many text bytes as the
/// call returned), then the rest.
pub fn msgrcv_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if failed {
        p.ptr("msgp", c.args[1]);
    } else {
        put_msgbuf(p, "msgp", c.args[1], c.result as u64, c.arch);
    }
    p.uint("msgsz", c.args[2]);
    p.int("msgtyp", long_arg(c, 3));
    p.flags("msgflg", c.args[4] as u32 as u64, MSG_FLAGS);
    p.equals();
    p.result(c.result);
}

/// `shmat(shmid, shmaddr, shmflg)`: returns the address.
pub fn shmat_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("shmid", c.int(0));
    p.ptr("shmaddr", c.args[1]);
    p.flags("shmflg", c.args[2] as u32 as u64, SHMAT_FLAGS);
    CallType::Done
}

/// Leave half of shmat: the address. Through i386's ipc(2) the call
/// returns 0 and writes the address where `args[3]` (ipc's `third`)
/// points; that address is shown, as strace shows it.
pub fn shmat_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    // Every parameter printed at enter (`CallType::Done`): the call layer
    // printed the `=`, unless the line was split.
    if !p.equals_printed() {
        p.equals();
    }
    if !failed && c.arch == Arch::I386 && Some(c.nr) == crate::service::number(Arch::I386, "ipc") {
        let mut b = [0u8; 4];
        if p.mem().read_exact(c.args[3], &mut b) {
            p.result_ptr(u32::from_le_bytes(b) as i64);
        } else {
            // ipc's own result (0), not an address: none is known.
            p.result(c.result);
        }
        return;
    }
    p.result_ptr(c.result);
}

/// What the decoders read behind i386 `ipc(2)`'s arguments that its
/// signature does not say, by call (`service::ByValue`): the address
/// SHMAT writes where `third` points (its `ptr` is a plain pointer,
/// copied as such).
pub fn ipc_memory() -> Vec<ByValue> {
    IPC_CALLS
        .iter()
        .filter(|&&(_, name)| name == "SHMAT")
        .map(|&(call, _)| ByValue {
            selector: 0,
            value: call as u64,
            arg: 3,
            mem: Mem::Out(4),
        })
        .collect()
}

/// The ipc(2) `call`s, by their name in IPC_CALLS and the version they
/// are for (`call >> 16`; None: any): the call each stands for and how
/// its arguments come from ipc's `first`, `second`, `third`, `ptr` and
/// `fifth` (ipc/syscall.c's `ksys_ipc`). The first entry that fits is
/// the one. The fast path stops at ipc when one of these calls is
/// selected.
#[rustfmt::skip]
pub const IPC_SUBCALLS_BY_CALL: &[(&str, Option<u64>, Subcall)] = {
    use Source::{Arg, Word, Zero};
    const FIRST: Source = Arg(1);
    const SECOND: Source = Arg(2);
    const THIRD: Source = Arg(3);
    const PTR: Source = Arg(4);
    const FIFTH: Source = Arg(5);
    type Entry = (&'static str, Option<u64>, Subcall);
    const fn sub(op: &'static str, v: Option<u64>, name: &'static str, args: [Source; 6]) -> Entry {
        (op, v, Subcall { name, block: 4, args })
    }
    &[
        sub("SEMOP", None, "semop", [FIRST, PTR, SECOND, Zero, Zero, Zero]),
        sub("SEMTIMEDOP", None, "semtimedop", [FIRST, PTR, SECOND, FIFTH, Zero, Zero]),
        sub("SEMGET", None, "semget", [FIRST, SECOND, THIRD, Zero, Zero, Zero]),
        // The union semun is passed by reference: its one word.
        sub("SEMCTL", None, "semctl", [FIRST, SECOND, THIRD, Word(0), Zero, Zero]),
        sub("MSGSND", None, "msgsnd", [FIRST, PTR, SECOND, THIRD, Zero, Zero]),
        // Version 0 passes `struct ipc_kludge { msgp; msgtyp; }` at ptr.
        sub("MSGRCV", Some(0), "msgrcv", [FIRST, Word(0), SECOND, Word(1), THIRD, Zero]),
        sub("MSGRCV", None, "msgrcv", [FIRST, PTR, SECOND, FIFTH, THIRD, Zero]),
        sub("MSGGET", None, "msgget", [FIRST, SECOND, Zero, Zero, Zero, Zero]),
        sub("MSGCTL", None, "msgctl", [FIRST, SECOND, PTR, Zero, Zero, Zero]),
        // The address attached is written to `third`, kept beyond shmat's
        // own arguments for its leave printer.
        sub("SHMAT", Some(0), "shmat", [FIRST, PTR, SECOND, THIRD, Zero, Zero]),
        sub("SHMDT", None, "shmdt", [PTR, Zero, Zero, Zero, Zero, Zero]),
        sub("SHMGET", None, "shmget", [FIRST, SECOND, THIRD, Zero, Zero, Zero]),
        sub("SHMCTL", None, "shmctl", [FIRST, SECOND, PTR, Zero, Zero, Zero]),
    ]
};

/// The entry of [`IPC_SUBCALLS_BY_CALL`] for ipc's `call`, with its code
/// and version.
pub fn ipc_subcall(call: u64) -> Option<&'static Subcall> {
    let op = lookup(IPC_CALLS, (call & 0xffff) as i64)?;
    let version = call >> 16;
    IPC_SUBCALLS_BY_CALL
        .iter()
        .find(|(name, v, _)| *name == op && v.is_none_or(|v| v == version))
        .map(|(.., sub)| sub)
}

/// What an i386 `ipc(call, first, second, third, ptr, fifth)` does: the
/// call's name and its arguments as the kernel passes them on. None for an
/// unknown `call` or an argument block that cannot be read: the call is
/// then shown as ipc itself.
pub fn ipc_call(args: [u64; 6], mem: &mut Memory) -> Option<(&'static str, [u64; 6])> {
    let sub = ipc_subcall(args[0] as u32 as u64)?;
    Some((sub.name, sub.resolve(args, mem)?))
}

/// `ipc(call, ...)` itself, when it could not be shown as the call it
/// stands for.
pub fn ipc_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let call = c.args[0] as u32 as u64;
    match lookup(IPC_CALLS, (call & 0xffff) as i64).filter(|_| call >> 16 == 0) {
        Some(sym) => p.symbol("call", call as i64, Some(sym)),
        None => p.hex("call", call),
    }
    p.int("first", c.int(1));
    p.hex("second", c.args[2]);
    p.hex("third", c.args[3]);
    p.ptr("ptr", c.args[4]);
    p.int("fifth", c.int(5));
    CallType::Done
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("ipc", ipc_out, default_in, Normal),
    h("msgctl", msgctl_out, msgctl_in, Normal),
    h("msgget", msgget_out, default_in, Normal),
    h("msgrcv", msgrcv_out, msgrcv_in, Normal),
    h("msgsnd", msgsnd_out, default_in, Normal),
    h("semctl", semctl_out, semctl_in, Normal),
    h("semget", semget_out, default_in, Normal),
    h("semop", semop_out, default_in, Normal),
    h("semtimedop", semtimedop_out, default_in, Normal),
    h("semtimedop_time64", semtimedop_out, default_in, Normal),
    h("shmat", shmat_out, shmat_in, Normal),
    h("shmctl", shmctl_out, shmctl_in, Normal),
    h("shmdt", shmdt_out, default_in, Normal),
    h("shmget", shmget_out, default_in, Normal),
];

/// `shmdt(shmaddr)`
pub fn shmdt_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.ptr("shmaddr", c.args[0]);
    CallType::Done
}
