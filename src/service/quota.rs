//! quotactl and quotactl_fd, as strace 6 shows them: the command as the
//! kernel's macro makes it (`QCMD(Q_GETQUOTA, USRQUOTA)`), then what that
//! command reads (an id, a format, a path, a struct) or writes (at leave:
//! `struct if_dqblk`, `if_nextdqblk`, `if_dqinfo`, XFS's `fs_disk_quota`,
//! `fs_quota_stat`, `fs_quota_statv`, a format, flags). Names and layouts
//! from `abi::xlat::fs` (the procsys block of tools/abi_tables.py); the
//! structs are x86_64's: an i386 caller's print as their address.

use crate::abi::flags::FlagDef;
use crate::abi::layout::{Field, extent};
use crate::abi::xlat::fs::*;
use crate::call::{CallClass::Normal, CallCtx, CallType, Handler};
use crate::decode::put_fd;
use crate::format::{Naming, Printer, flags_hex};
use crate::kernel::Arch;
use crate::service::raw::{lookup, open_struct_dyn, put_id, read_vec, u32_at};
use crate::service::{ByValue, Mem, h};

/// `QCMD(cmd, type)`: the command in the upper bits, the type in the low
/// byte (`<linux/quota.h>`).
pub const SUBCMD_SHIFT: u32 = 8;

/// The command part of a `QCMD` value.
fn qcmd_cmd(qcmd: u32) -> u32 {
    qcmd >> SUBCMD_SHIFT
}

/// A quotactl command word: `QCMD(Q_QUOTAON, USRQUOTA)`, unknown parts in
/// hex; under `-X raw` the number (strace's decimal), under `-X verbose`
/// both.
fn put_qcmd(p: &mut Printer, name: &str, qcmd: u32) {
    let (cmd, kind) = (qcmd_cmd(qcmd), qcmd & 0xff);
    let part = |v: u32, table: &[(i64, &'static str)]| {
        lookup(table, v as i64).map_or_else(|| flags_hex(v as u64), str::to_string)
    };
    let text = format!(
        "QCMD({}, {})",
        part(cmd, QUOTA_CMDS),
        part(kind, QUOTA_TYPES)
    );
    p.symbol_decimal(name, qcmd as i64, Some(&text));
}

/// Whether a command's data is written by the kernel (shown at leave).
fn written(cmd: u32) -> bool {
    matches!(
        cmd,
        Q_GETQUOTA
            | Q_GETNEXTQUOTA
            | Q_XGETQUOTA
            | Q_XGETNEXTQUOTA
            | Q_GETFMT
            | Q_GETINFO
            | Q_XGETQSTAT
            | Q_XGETQSTATV
    )
}

/// The flags some struct fields hold.
fn field_flags(name: &str) -> Option<&'static [FlagDef]> {
    Some(match name {
        "dqb_valid" => IF_DQBLK_VALID,
        "dqi_flags" => IF_DQINFO_FLAGS,
        "dqi_valid" => IF_DQINFO_VALID,
        "d_flags" => XFS_DQBLK_FLAGS,
        "qs_flags" => XFS_QUOTA_FLAGS,
        _ => return None,
    })
}

/// The fields of `layout` in `b`: numbers, flags where a field holds
/// them, the XFS file stats as structs of their own.
fn put_fields(p: &mut Printer, b: &[u8], layout: &[Field]) {
    for f in layout {
        let Some(v) = f.read(b) else {
            // A member struct: qs_uquota and its kin.
            let sub = &b[f.off..f.off + f.size];
            let inner = if std::ptr::eq(layout, FS_QUOTA_STAT) {
                FS_QFILESTAT
            } else {
                FS_QFILESTATV
            };
            p.open(f.name, "{", Naming::Fields);
            put_fields(p, sub, inner);
            p.close("}");
            continue;
        };
        match field_flags(f.name) {
            // A signed __s8 d_flags holds bits, not a number.
            Some(table) => p.flags(f.name, v & (u64::MAX >> (64 - 8 * f.size)), table),
            None if f.name == "d_fieldmask" => p.hex(f.name, v),
            None if f.signed => p.int(f.name, v as i64),
            None => p.uint(f.name, v),
        }
    }
}

/// A struct of `layout` at `addr`, or its address.
fn put_struct(p: &mut Printer, c: &CallCtx, name: &str, addr: u64, layout: &[Field]) {
    if c.arch != Arch::X86_64 {
        p.ptr(name, addr);
        return;
    }
    if let Some(b) = open_struct_dyn(p, name, addr, extent(layout)) {
        put_fields(p, &b, layout);
        p.close_struct(true);
    }
}

/// A 32-bit value at `addr` printed by `put`, `[...]`, or the address.
fn put_u32_at(p: &mut Printer, name: &str, addr: u64, put: impl FnOnce(&mut Printer, u32)) {
    match read_vec(p, addr, 4) {
        Some(b) if addr != 0 && p.config().values_only < 2 => {
            p.open(name, "[", Naming::Elements);
            put(p, u32_at(&b, 0));
            p.close("]");
        }
        _ => p.ptr(name, addr),
    }
}

/// What a command reads, after the command and the file system: `id` and
/// `addr` as the command uses them (quotactl's and quotactl_fd's last two
/// parameters).
fn quota_args(p: &mut Printer, c: &CallCtx, cmd: u32) -> CallType {
    let (id, addr) = (c.args[2] as u32, c.args[3]);
    match cmd {
        Q_QUOTAOFF | Q_SYNC | Q_XQUOTASYNC => {}
        Q_QUOTAON => {
            match lookup(QUOTA_FORMATS, id as i64) {
                Some(sym) => p.symbol("id", id as i64, Some(sym)),
                None => p.hex("id", id as u64),
            }
            p.path("addr", addr);
        }
        Q_SETQUOTA => {
            put_id(p, "id", id as u64);
            put_struct(p, c, "addr", addr, IF_DQBLK);
        }
        Q_XSETQLIM => {
            put_id(p, "id", id as u64);
            put_struct(p, c, "addr", addr, FS_DISK_QUOTA);
        }
        Q_SETINFO => put_struct(p, c, "addr", addr, IF_DQINFO),
        Q_XQUOTAON | Q_XQUOTAOFF => {
            put_u32_at(p, "addr", addr, |p, v| {
                p.flags("", v as u64, XFS_QUOTA_FLAGS)
            });
        }
        Q_XQUOTARM => {
            put_u32_at(p, "addr", addr, |p, v| {
                p.flags("", v as u64, XFS_DQBLK_FLAGS)
            });
        }
        Q_GETQUOTA | Q_GETNEXTQUOTA | Q_XGETQUOTA | Q_XGETNEXTQUOTA => {
            put_id(p, "id", id as u64);
            return CallType::NotDone;
        }
        c if written(c) => return CallType::NotDone,
        _ => {
            put_id(p, "id", id as u64);
            p.ptr("addr", addr);
        }
    }
    CallType::Done
}

/// The leave half of both calls: what a getter wrote.
fn quota_written(p: &mut Printer, c: &mut CallCtx, cmd: u32, failed: bool) {
    if p.equals_printed() {
        p.result(c.result);
        return;
    }
    let addr = c.args[3];
    if failed {
        p.ptr("addr", addr);
    } else {
        match cmd {
            Q_GETQUOTA => put_struct(p, c, "addr", addr, IF_DQBLK),
            Q_GETNEXTQUOTA => put_struct(p, c, "addr", addr, IF_NEXTDQBLK),
            Q_XGETQUOTA | Q_XGETNEXTQUOTA => put_struct(p, c, "addr", addr, FS_DISK_QUOTA),
            Q_GETINFO => put_struct(p, c, "addr", addr, IF_DQINFO),
            Q_XGETQSTAT => put_struct(p, c, "addr", addr, FS_QUOTA_STAT),
            Q_XGETQSTATV => put_struct(p, c, "addr", addr, FS_QUOTA_STATV),
            // Q_GETFMT
            _ => put_u32_at(p, "addr", addr, |p, v| {
                match lookup(QUOTA_FORMATS, v as i64) {
                    Some(sym) => p.symbol("", v as i64, Some(sym)),
                    None => p.hex("", v as u64),
                }
            }),
        }
    }
    p.equals();
    p.result(c.result);
}

/// `quotactl(cmd, special, id, addr)`
pub fn quotactl_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let qcmd = c.args[0] as u32;
    put_qcmd(p, "cmd", qcmd);
    p.path("special", c.args[1]);
    quota_args(p, c, qcmd_cmd(qcmd))
}

/// Leave half of quotactl.
pub fn quotactl_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    let cmd = qcmd_cmd(c.args[0] as u32);
    quota_written(p, c, cmd, failed);
}

/// `quotactl_fd(fd, cmd, id, addr)`
pub fn quotactl_fd_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    let qcmd = c.args[1] as u32;
    put_qcmd(p, "cmd", qcmd);
    quota_args(p, c, qcmd_cmd(qcmd))
}

/// Leave half of quotactl_fd.
pub fn quotactl_fd_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    let cmd = qcmd_cmd(c.args[1] as u32);
    quota_written(p, c, cmd, failed);
}

/// What the decoders read at `addr` for each command (`service::by_value`,
/// its value the command above the type: `service::selector_shift`), for
/// quotactl (`name`, the command its first argument) and quotactl_fd (its
/// second): the structs an x86_64 caller's decoder shows.
pub fn memory(name: &str) -> Vec<ByValue> {
    let selector = if name == "quotactl_fd" { 1 } else { 0 };
    let at = |cmd: u32, mem: Mem| ByValue {
        selector,
        value: cmd as u64,
        arg: 3,
        mem,
    };
    vec![
        at(Q_QUOTAON, Mem::Str(crate::format::PATH_MAX + 1)),
        at(Q_SETQUOTA, Mem::In(extent(IF_DQBLK))),
        at(Q_XSETQLIM, Mem::In(extent(FS_DISK_QUOTA))),
        at(Q_SETINFO, Mem::In(extent(IF_DQINFO))),
        at(Q_XQUOTAON, Mem::In(4)),
        at(Q_XQUOTAOFF, Mem::In(4)),
        at(Q_XQUOTARM, Mem::In(4)),
        at(Q_GETQUOTA, Mem::Out(extent(IF_DQBLK))),
        at(Q_GETNEXTQUOTA, Mem::Out(extent(IF_NEXTDQBLK))),
        at(Q_XGETQUOTA, Mem::Out(extent(FS_DISK_QUOTA))),
        at(Q_XGETNEXTQUOTA, Mem::Out(extent(FS_DISK_QUOTA))),
        at(Q_GETINFO, Mem::Out(extent(IF_DQINFO))),
        at(Q_XGETQSTAT, Mem::Out(extent(FS_QUOTA_STAT))),
        at(Q_XGETQSTATV, Mem::Out(extent(FS_QUOTA_STATV))),
        at(Q_GETFMT, Mem::Out(4)),
    ]
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("quotactl", quotactl_out, quotactl_in, Normal),
    h("quotactl_fd", quotactl_fd_out, quotactl_fd_in, Normal),
];
