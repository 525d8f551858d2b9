//! Process resource and information handlers: resource limits and usage,
//! scheduling policy and CPU affinity, priorities, uname, sysinfo,
//! getrandom, personality and capabilities.

use crate::abi::xlat::resource::_LINUX_CAPABILITY_VERSION_1;
use crate::abi::xlat::resource::{
    CAP_VERSIONS, GRND_FLAGS, PERSONALITY, PRIO_WHICH, RLIMITS, RUSAGE_WHO, SCHED_POLICIES,
};
use crate::call::{CallClass::Normal, Handler, default_in};
use crate::call::{CallCtx, CallType};
use crate::decode::put_extended;
use crate::format::{ConstStyle, Naming, Printer};
use crate::service::fs::put_result;
use crate::service::h;
use crate::service::raw::out_param_in;
use crate::service::raw::{
    Member, entered_done, i32_at, int_at, lookup, open_struct_dyn, put_named, put_set, read_vec,
    set_text, u16_at, u32_at, uint_at, word_size,
};
use crate::service::time::{put_call_timespec, put_timeval_at};

/// One limit: `RLIM_INFINITY` (all ones in the field's width) or a number.
/// `-X raw` and `-X verbose` write the number unsigned, as the field is,
/// and verbose a multiple of 1024 as strace comments it too
/// (`8388608 /* 8192*1024 */`, `18446744073709551615 /* RLIM_INFINITY */`).
fn put_limit(p: &mut Printer, name: &str, value: u64, size: usize) {
    let infinity = if size == 8 { u64::MAX } else { u32::MAX as u64 };
    let style = p.config().consts;
    if p.json() || !matches!(style, ConstStyle::Raw | ConstStyle::Verbose) {
        if value == infinity && p.symbols() {
            p.symbol(name, -1, Some("RLIM_INFINITY"));
        } else {
            p.uint(name, value);
        }
        return;
    }
    let names = if value == infinity {
        Some("RLIM_INFINITY".to_string())
    } else if value > 1024 && value.is_multiple_of(1024) {
        Some(format!("{}*1024", value / 1024))
    } else {
        None
    };
    match names {
        Some(names) => p.spelled(name, &value.to_string(), &names, || value.into()),
        None => p.uint(name, value),
    }
}

/// A `struct rlimit` with `size`-byte fields: `{rlim_cur=1024, rlim_max=RLIM_INFINITY}`.
fn put_rlimit(p: &mut Printer, name: &str, addr: u64, size: usize) {
    if let Some(b) = open_struct_dyn(p, name, addr, 2 * size) {
        put_limit(p, "rlim_cur", uint_at(&b, 0, size), size);
        put_limit(p, "rlim_max", uint_at(&b, size, size), size);
        p.close_struct(true);
    }
}

/// `prlimit64(pid, resource, new_limit, old_limit)`: the old limit at leave.
pub fn prlimit64_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("pid", c.int(0));
    put_named(p, "resource", c.int(1), RLIMITS);
    put_rlimit(p, "new_limit", c.args[2], 8);
    if c.args[3] == 0 {
        p.ptr("old_limit", 0);
        return CallType::Done;
    }
    CallType::NotDone
}

/// Leave half of prlimit64.
pub fn prlimit64_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if entered_done(p, c) {
        return;
    }
    if failed {
        p.ptr("old_limit", c.args[3]);
    } else {
        put_rlimit(p, "old_limit", c.args[3], 8);
    }
    p.equals();
    p.result(c.result);
}

/// `getrlimit(resource, rlim)`, `ugetrlimit(...)`: the limit at leave.
pub fn getrlimit_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_named(p, "resource", c.int(0), RLIMITS);
    CallType::NotDone
}

/// Leave half of getrlimit.
pub fn getrlimit_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if failed {
        p.ptr("rlim", c.args[1]);
    } else {
        put_rlimit(p, "rlim", c.args[1], word_size(c.arch));
    }
    p.equals();
    p.result(c.result);
}

/// `setrlimit(resource, rlim)`
pub fn setrlimit_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_named(p, "resource", c.int(0), RLIMITS);
    put_rlimit(p, "rlim", c.args[1], word_size(c.arch));
    CallType::Done
}

/// The `long` fields of `struct rusage` after the two timevals.
const RUSAGE_LONGS: [&str; 14] = [
    "ru_maxrss",
    "ru_ixrss",
    "ru_idrss",
    "ru_isrss",
    "ru_minflt",
    "ru_majflt",
    "ru_nswap",
    "ru_inblock",
    "ru_oublock",
    "ru_msgsnd",
    "ru_msgrcv",
    "ru_nsignals",
    "ru_nvcsw",
    "ru_nivcsw",
];

/// A `struct rusage`: the user and system times, and with `-v` every field.
pub fn put_rusage(p: &mut Printer, name: &str, addr: u64) {
    let word = word_size(p.arch());
    let tv = 2 * crate::service::raw::time_size(p.arch());
    let Some(b) = open_struct_dyn(p, name, addr, 2 * tv + RUSAGE_LONGS.len() * word) else {
        return;
    };
    put_timeval_at(p, "ru_utime", &b, 0);
    put_timeval_at(p, "ru_stime", &b, tv);
    let verbose = p.config().verbose > 0;
    if verbose {
        for (i, field) in RUSAGE_LONGS.iter().enumerate() {
            p.int(field, int_at(&b, 2 * tv + i * word, word));
        }
    }
    p.close_struct(verbose);
}

/// `getrusage(who, usage)`: the usage at leave.
pub fn getrusage_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_named(p, "who", c.int(0), RUSAGE_WHO);
    CallType::NotDone
}

/// Leave half of getrusage.
pub fn getrusage_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    out_param_in(p, c, failed, "usage", c.args[1], put_rusage);
}

/// `getpriority(which, who)`
pub fn getpriority_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_named(p, "which", c.int(0), PRIO_WHICH);
    p.int("who", c.int(1));
    CallType::Done
}

/// `setpriority(which, who, prio)`
pub fn setpriority_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    getpriority_out(p, c);
    p.int("prio", c.int(2));
    CallType::Done
}

/// A `struct sched_param`: `{sched_priority=0}`.
fn put_sched_param(p: &mut Printer, name: &str, addr: u64) {
    if let Some(b) = p.open_struct::<4>(name, addr) {
        p.int("sched_priority", i32_at(&b, 0) as i64);
        p.close_struct(true);
    }
}

/// `sched_setscheduler(pid, policy, param)`
pub fn sched_setscheduler_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("pid", c.int(0));
    p.flags("policy", c.args[1] as u32 as u64, SCHED_POLICIES);
    put_sched_param(p, "param", c.args[2]);
    CallType::Done
}

/// Leave half of `sched_getscheduler(pid)`: the policy by name, `= 3
/// (SCHED_BATCH)`.
pub fn sched_getscheduler_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    put_result(p, c);
    if !failed && p.symbols() {
        let policy = c.result as u64;
        put_extended(p, "policy", |p, n| p.flags(n, policy, SCHED_POLICIES));
    }
}

/// `sched_setparam(pid, param)`
pub fn sched_setparam_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("pid", c.int(0));
    put_sched_param(p, "param", c.args[1]);
    CallType::Done
}

/// `sched_getparam(pid, param)`: the parameters at leave.
pub fn sched_getparam_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("pid", c.int(0));
    CallType::NotDone
}

/// Leave half of sched_getparam.
pub fn sched_getparam_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    out_param_in(p, c, failed, "param", c.args[1], put_sched_param);
}

/// `sched_get_priority_max(policy)`, `sched_get_priority_min(policy)`: a
/// plain policy (SCHED_RESET_ON_FORK is for sched_setscheduler only).
pub fn sched_priority_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let plain = SCHED_POLICIES.split_at(SCHED_POLICIES.len() - 1).0;
    p.flags("policy", c.args[0] as u32 as u64, plain);
    CallType::Done
}

/// `sched_rr_get_interval(pid, tp)`: the interval at leave.
pub fn sched_rr_get_interval_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("pid", c.int(0));
    CallType::NotDone
}

/// Leave half of sched_rr_get_interval.
pub fn sched_rr_get_interval_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    out_param_in(p, c, failed, "tp", c.args[1], |p, name, addr| {
        put_call_timespec(p, c, name, addr)
    });
}

/// Largest CPU mask decoded.
const MAX_CPU_MASK: u64 = 8192;

/// The set bits of `bytes`, as set members: `[0 1 5]`.
pub fn bit_members(bytes: &[u8]) -> Vec<Member> {
    (0..bytes.len() * 8)
        .filter(|&bit| bytes[bit / 8] & (1 << (bit % 8)) != 0)
        .map(|bit| Member::Num(bit as u64))
        .collect()
}

/// A CPU mask of `len` bytes as the list of its CPUs: `[0 1 2 3]`.
pub fn put_cpu_mask(p: &mut Printer, name: &str, addr: u64, len: u64) {
    if len > MAX_CPU_MASK || p.config().values_only >= 2 {
        p.ptr(name, addr);
        return;
    }
    match read_vec(p, addr, len as usize) {
        Some(b) => put_set(p, name, &bit_members(&b), false),
        None => p.ptr(name, addr),
    }
}

/// `sched_setaffinity(pid, cpusetsize, mask)`
pub fn sched_setaffinity_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("pid", c.int(0));
    p.uint("cpusetsize", c.args[1]);
    put_cpu_mask(p, "mask", c.args[2], c.args[1]);
    CallType::Done
}

/// `sched_getaffinity(pid, cpusetsize, mask)`: the mask at leave, as many
/// bytes as the call returned.
pub fn sched_getaffinity_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("pid", c.int(0));
    p.uint("cpusetsize", c.args[1]);
    CallType::NotDone
}

/// Leave half of sched_getaffinity.
pub fn sched_getaffinity_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if failed {
        p.ptr("mask", c.args[2]);
    } else {
        put_cpu_mask(p, "mask", c.args[2], c.result as u64);
    }
    p.equals();
    p.result(c.result);
}

/// `sched_getscheduler(pid)`
pub fn pid_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("pid", c.int(0));
    CallType::Done
}

/// Bytes in each `struct utsname` field (`__NEW_UTS_LEN + 1`).
const UTS_FIELD: u64 = 65;
/// The fields of `struct new_utsname`, in order.
const UTS_FIELDS: [&str; 6] = [
    "sysname",
    "nodename",
    "release",
    "version",
    "machine",
    "domainname",
];

/// `uname(buf)`: the struct at leave.
pub fn uname_out(_p: &mut Printer, _c: &mut CallCtx) -> CallType {
    CallType::NotDone
}

/// Leave half of uname: sysname and nodename, every field with `-v`.
pub fn uname_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    let addr = c.args[0];
    if failed {
        p.ptr("buf", addr);
    } else if open_struct_dyn(p, "buf", addr, 6 * UTS_FIELD as usize).is_some() {
        let verbose = p.config().verbose > 0;
        let shown = if verbose { 6 } else { 2 };
        for (i, field) in UTS_FIELDS.iter().enumerate().take(shown) {
            p.cstr(field, addr + i as u64 * UTS_FIELD);
        }
        p.close_struct(verbose);
    }
    p.equals();
    p.result(c.result);
}

/// `sysinfo(info)`: the struct at leave.
pub fn sysinfo_out(_p: &mut Printer, _c: &mut CallCtx) -> CallType {
    CallType::NotDone
}

/// Leave half of sysinfo. `struct sysinfo` (`<linux/sysinfo.h>`) is all
/// `long`s but for `procs` (u16) and `mem_unit` (u32); every field
/// prints, as strace prints them.
pub fn sysinfo_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    let w = word_size(c.arch);
    if failed {
        p.ptr("info", c.args[0]);
    } else if let Some(b) = open_struct_dyn(p, "info", c.args[0], 13 * w + 4) {
        let long = |i: usize| uint_at(&b, i * w, w);
        p.int("uptime", int_at(&b, 0, w));
        p.open("loads", "[", Naming::Elements);
        for i in 1..4 {
            p.uint("", long(i));
        }
        p.close("]");
        for (i, field) in [
            "totalram",
            "freeram",
            "sharedram",
            "bufferram",
            "totalswap",
            "freeswap",
        ]
        .iter()
        .enumerate()
        {
            p.uint(field, long(4 + i));
        }
        p.uint("procs", u16_at(&b, 10 * w) as u64);
        p.uint("totalhigh", long(11));
        p.uint("freehigh", long(12));
        p.uint("mem_unit", u32_at(&b, 13 * w) as u64);
        p.close_struct(true);
    }
    p.equals();
    p.result(c.result);
}

/// `getrandom(buf, buflen, flags)`: the bytes at leave.
pub fn getrandom_out(_p: &mut Printer, _c: &mut CallCtx) -> CallType {
    CallType::NotDone
}

/// Leave half of getrandom.
pub fn getrandom_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if failed {
        p.ptr("buf", c.args[0]);
    } else {
        p.buf("buf", c.args[0], c.result as u64);
    }
    p.uint("buflen", c.args[1]);
    p.flags("flags", c.args[2] as u32 as u64, GRND_FLAGS);
    p.equals();
    p.result(c.result);
}

/// `personality(persona)`: `0xffffffff` only asks for the current one.
pub fn personality_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let persona = c.args[0] as u32 as u64;
    if persona == 0xffff_ffff {
        p.hex("persona", persona);
    } else {
        p.flags("persona", persona, PERSONALITY);
    }
    CallType::Done
}

/// `CAP_*` capability numbers from `<linux/capability.h>`.
const CAPS: [&str; 41] = [
    "CAP_CHOWN",
    "CAP_DAC_OVERRIDE",
    "CAP_DAC_READ_SEARCH",
    "CAP_FOWNER",
    "CAP_FSETID",
    "CAP_KILL",
    "CAP_SETGID",
    "CAP_SETUID",
    "CAP_SETPCAP",
    "CAP_LINUX_IMMUTABLE",
    "CAP_NET_BIND_SERVICE",
    "CAP_NET_BROADCAST",
    "CAP_NET_ADMIN",
    "CAP_NET_RAW",
    "CAP_IPC_LOCK",
    "CAP_IPC_OWNER",
    "CAP_SYS_MODULE",
    "CAP_SYS_RAWIO",
    "CAP_SYS_CHROOT",
    "CAP_SYS_PTRACE",
    "CAP_SYS_PACCT",
    "CAP_SYS_ADMIN",
    "CAP_SYS_BOOT",
    "CAP_SYS_NICE",
    "CAP_SYS_RESOURCE",
    "CAP_SYS_TIME",
    "CAP_SYS_TTY_CONFIG",
    "CAP_MKNOD",
    "CAP_LEASE",
    "CAP_AUDIT_WRITE",
    "CAP_AUDIT_CONTROL",
    "CAP_SETFCAP",
    "CAP_MAC_OVERRIDE",
    "CAP_MAC_ADMIN",
    "CAP_SYSLOG",
    "CAP_WAKE_ALARM",
    "CAP_BLOCK_SUSPEND",
    "CAP_AUDIT_READ",
    "CAP_PERFMON",
    "CAP_BPF",
    "CAP_CHECKPOINT_RESTORE",
];

/// A capability number: `CAP_SYS_ADMIN`.
pub fn put_cap(p: &mut Printer, name: &str, cap: u64) {
    let sym = CAPS.get(cap as usize).copied();
    p.symbol(name, cap as i64, sym);
}

/// A capability set as a list like a signal set: `[CHOWN KILL]`, or
/// `~[...]` naming the capabilities missing when most are present; bits
/// beyond the known capabilities print as numbers.
fn cap_members(set: u64) -> (Vec<Member>, bool) {
    let known = CAPS.len();
    let count = (0..known).filter(|&i| set & (1 << i) != 0).count();
    let invert = count * 2 > known;
    let mut members: Vec<Member> = (0..known)
        .filter(|&i| (set & (1 << i) != 0) != invert)
        .map(|i| Member::Name(CAPS[i].trim_start_matches("CAP_").to_string()))
        .collect();
    members.extend(
        (known..64)
            .filter(|&i| set & (1 << i) != 0)
            .map(|i| Member::Num(i as u64)),
    );
    (members, invert)
}

/// A capability set: a list with names, a hex mask with `-V`.
fn put_cap_set(p: &mut Printer, name: &str, set: u64) {
    if p.values_style() {
        return p.hex(name, set);
    }
    let (members, invert) = cap_members(set);
    if p.json() {
        return put_set(p, name, &members, invert);
    }
    // -X raw: the mask; -X verbose: `0x3 /* [CHOWN DAC_OVERRIDE] */`.
    let text = set_text(&members, invert);
    let number = crate::format::flags_hex(set);
    p.spelled(name, &number, &text, || serde_json::Value::Null);
}

/// A `struct __user_cap_header_struct`: `{version=..., pid=0}`. Returns the
/// version, if the header could be read.
fn put_cap_header(p: &mut Printer, name: &str, addr: u64) -> Option<u32> {
    let b = p.open_struct::<8>(name, addr)?;
    let version = u32_at(&b, 0);
    let sym = lookup(CAP_VERSIONS, version as i64);
    match sym {
        Some(s) if p.symbols() => p.symbol("version", version as i64, Some(s)),
        _ => p.hex("version", version as u64),
    }
    p.int("pid", i32_at(&b, 4) as i64);
    p.close_struct(true);
    Some(version)
}

/// The capability data of a header's version: one `struct
/// __user_cap_data_struct` for version 1, two (the high words) after.
fn put_cap_data(p: &mut Printer, name: &str, addr: u64, version: Option<u32>) {
    let count = if version == Some(_LINUX_CAPABILITY_VERSION_1) {
        1
    } else {
        2
    };
    if let Some(b) = open_struct_dyn(p, name, addr, 12 * count) {
        let word = |field: usize| {
            let low = u32_at(&b, field * 4) as u64;
            let high = if count == 2 {
                u32_at(&b, 12 + field * 4) as u64
            } else {
                0
            };
            low | high << 32
        };
        for (i, field) in ["effective", "permitted", "inheritable"].iter().enumerate() {
            put_cap_set(p, field, word(i));
        }
        p.close_struct(true);
    }
}

/// The header's version, read again at leave.
fn cap_version(p: &mut Printer, addr: u64) -> Option<u32> {
    read_vec(p, addr, 4).map(|b| u32_at(&b, 0))
}

/// `capget(hdrp, datap)`: the data at leave.
pub fn capget_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_cap_header(p, "hdrp", c.args[0]);
    CallType::NotDone
}

/// Leave half of capget.
pub fn capget_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if failed || c.args[1] == 0 {
        p.ptr("datap", c.args[1]);
    } else {
        let version = cap_version(p, c.args[0]);
        put_cap_data(p, "datap", c.args[1], version);
    }
    p.equals();
    p.result(c.result);
}

/// `capset(hdrp, datap)`
pub fn capset_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let version = put_cap_header(p, "hdrp", c.args[0]);
    put_cap_data(p, "datap", c.args[1], version);
    CallType::Done
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("capget", capget_out, capget_in, Normal),
    h("capset", capset_out, default_in, Normal),
    h("getpriority", getpriority_out, default_in, Normal),
    h("getrandom", getrandom_out, getrandom_in, Normal),
    h("getrlimit", getrlimit_out, getrlimit_in, Normal),
    h("getrusage", getrusage_out, getrusage_in, Normal),
    h("personality", personality_out, default_in, Normal),
    h("prlimit64", prlimit64_out, prlimit64_in, Normal),
    h(
        "sched_get_priority_max",
        sched_priority_out,
        default_in,
        Normal,
    ),
    h(
        "sched_get_priority_min",
        sched_priority_out,
        default_in,
        Normal,
    ),
    h(
        "sched_getaffinity",
        sched_getaffinity_out,
        sched_getaffinity_in,
        Normal,
    ),
    h(
        "sched_getparam",
        sched_getparam_out,
        sched_getparam_in,
        Normal,
    ),
    h("sched_getscheduler", pid_out, sched_getscheduler_in, Normal),
    h(
        "sched_rr_get_interval",
        sched_rr_get_interval_out,
        sched_rr_get_interval_in,
        Normal,
    ),
    h(
        "sched_rr_get_interval_time64",
        sched_rr_get_interval_out,
        sched_rr_get_interval_in,
        Normal,
    ),
    h(
        "sched_setaffinity",
        sched_setaffinity_out,
        default_in,
        Normal,
    ),
    h("sched_setparam", sched_setparam_out, default_in, Normal),
    h(
        "sched_setscheduler",
        sched_setscheduler_out,
        default_in,
        Normal,
    ),
    h("setpriority", setpriority_out, default_in, Normal),
    h("setrlimit", setrlimit_out, default_in, Normal),
    h("sysinfo", sysinfo_out, sysinfo_in, Normal),
    h("ugetrlimit", getrlimit_out, getrlimit_in, Normal),
    h("uname", uname_out, uname_in, Normal),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::raw::set_text;

    #[test]
    fn capability_sets() {
        let text = |set: u64| {
            let (m, inv) = cap_members(set);
            set_text(&m, inv)
        };
        assert_eq!(text(0), "[]");
        assert_eq!(text(1 | 1 << 5), "[CHOWN KILL]");
        assert_eq!(text((1 << 41) - 1), "~[]");
        assert_eq!(text(((1 << 41) - 1) & !2), "~[DAC_OVERRIDE]");
        assert_eq!(text(1 << 45), "[45]");
    }

    #[test]
    fn bit_lists() {
        assert_eq!(set_text(&bit_members(&[0b1011, 0, 1]), false), "[0 1 3 16]");
        assert_eq!(set_text(&bit_members(&[0]), false), "[]");
    }
}
