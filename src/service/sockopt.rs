//! Socket options: level and option names, setsockopt and getsockopt with
//! their values decoded (ints, `struct linger`, timeouts, credentials,
//! names, socket filter programs, multicast requests; the packet and raw
//! sockets' options in `sockopt_packet.rs`).

use crate::abi::layout::{Field, extent, field};
use crate::abi::xlat::net::{
    FAMILIES, GROUP_REQ, GROUP_REQ_I386, IP_MREQ, IP_MREQN, IPPROTOS, IPV6_MREQ, LEVELS,
    SOCK_TXREHASH, SOCK_TYPES, SOL_IP_OPTS, SOL_IPV6_OPTS, SOL_NETLINK_OPTS, SOL_PACKET_OPTS,
    SOL_RAW_OPTS, SOL_SOCKET_INT_OPTS, SOL_SOCKET_OPTS, SOL_TCP_OPTS, SOL_UDP_OPTS,
};
use crate::call::{CallClass::Normal, Handler, default_in};
use crate::call::{CallCtx, CallType, errno_name};
use crate::decode::put_fd;
use crate::format::{Naming, Printer};
use crate::kernel::Arch;
use crate::service::bpf_filter::{Flavor, fprog_size, put_fprog, put_program};
use crate::service::family::put_ip;
use crate::service::h;
use crate::service::net::{put_len_result, put_sockaddr, save_len, saved_len, ucred_fields};
use crate::service::raw::{i32_at, int_at, lookup, read_vec, time_size, u32_at};
use crate::service::sockopt_packet::{put_packet_optval, put_raw_optval};
use crate::service::{ByValue, Mem};

// SO_ATTACH_FILTER is what getsockopt calls SO_GET_FILTER.
use crate::abi::xlat::net::{
    SO_ATTACH_FILTER, SO_ATTACH_REUSEPORT_CBPF, SOL_PACKET, SOL_RAW, SOL_SOCKET, SOL_TCP,
};

/// The option names of `level`, if known.
fn options(level: i64) -> Option<&'static [(i64, &'static str)]> {
    Some(match level {
        0 => SOL_IP_OPTS,
        1 => SOL_SOCKET_OPTS,
        6 => SOL_TCP_OPTS,
        17 => SOL_UDP_OPTS,
        41 => SOL_IPV6_OPTS,
        255 => SOL_RAW_OPTS,
        263 => SOL_PACKET_OPTS,
        270 => SOL_NETLINK_OPTS,
        _ => return None,
    })
}

/// A socket option level: `SOL_SOCKET`, `SOL_TCP`.
pub fn put_level(p: &mut Printer, name: &str, level: i64) {
    p.symbol(name, level, lookup(LEVELS, level));
}

/// An option (or control message type) name of `level`.
pub fn put_optname(p: &mut Printer, name: &str, level: i64, opt: i64) {
    p.symbol(name, opt, options(level).and_then(|t| lookup(t, opt)));
}

/// Longest option value decoded as bytes.
const MAX_OPTVAL: u64 = 4096;
// The SOL_SOCKET options decoded by name beyond the ints (SO_LINGER,
// SO_PEERCRED, SO_ERROR, SO_TYPE, SO_DOMAIN, SO_PROTOCOL, SO_TXREHASH),
// NETLINK_LIST_MEMBERSHIPS (an array of group bits) and PACKET_STATISTICS
// (counters getsockopt reads and resets).
use crate::abi::xlat::net::{
    NETLINK_LIST_MEMBERSHIPS, PACKET_STATISTICS, SO_DOMAIN, SO_ERROR, SO_LINGER, SO_PEERCRED,
    SO_PROTOCOL, SO_TXREHASH, SO_TYPE, SOL_NETLINK,
};

/// Which call an option value belongs to: setsockopt's value goes in
/// (`len` is what the caller gave); getsockopt's comes out (`len` is what
/// the kernel wrote back, `asked` what the caller offered).
#[derive(Clone, Copy, PartialEq)]
enum Dir {
    Set,
    Get { asked: Option<u32> },
}

/// An option value of `len` bytes, read as far as its decoder needs (an
/// int option given 8 bytes is `[N]`, not the 8 bytes): decoded for the
/// options whose type is known, `[N]` for any other 4-byte value, else
/// the bytes. A value shorter than its type is the pointer for
/// setsockopt (the kernel rejects it) and the bytes the kernel wrote for
/// getsockopt (`{pid="\4\0\0"}` for a struct's partial field).
fn put_optval(p: &mut Printer, name: &str, level: i64, opt: i64, addr: u64, len: i64, dir: Dir) {
    if addr == 0 || len < 0 || p.config().values_only >= 2 || (dir != Dir::Set && len == 0) {
        p.ptr(name, addr);
        return;
    }
    let len = len as u64;
    let set = dir == Dir::Set;
    // The values whose size is fixed, read at that size.
    let int_sized = |p: &mut Printer, put: &dyn Fn(&mut Printer, i32)| {
        if len < 4 {
            if set {
                p.ptr(name, addr)
            } else {
                p.buf(name, addr, len)
            }
            return;
        }
        match read_vec(p, addr, 4) {
            Some(b) => {
                p.open(name, "[", Naming::Elements);
                put(p, i32_at(&b, 0));
                p.close("]");
            }
            None => p.ptr(name, addr),
        }
    };
    match (level, opt) {
        (SOL_SOCKET, o) if lookup(SOL_SOCKET_INT_OPTS, o).is_some() => {
            return int_sized(p, &|p, v| p.int("", v as i64));
        }
        (SOL_SOCKET, SO_TXREHASH) => {
            return int_sized(p, &|p, v| {
                p.symbol("", v as i64, lookup(SOCK_TXREHASH, v as i64))
            });
        }
        (SOL_SOCKET, SO_ERROR) if !set => {
            return int_sized(p, &|p, v| {
                p.symbol("", v as i64, errno_name(v as i64).filter(|_| v != 0))
            });
        }
        // What getsockopt tells of the socket: `[SOCK_STREAM]`.
        (SOL_SOCKET, SO_TYPE) if !set && len == 4 => {
            return int_sized(p, &|p, v| p.flags("", v as u32 as u64, SOCK_TYPES));
        }
        (SOL_SOCKET, SO_DOMAIN) if !set && len == 4 => {
            return int_sized(p, &|p, v| {
                p.symbol("", v as i64, lookup(FAMILIES, v as i64))
            });
        }
        (SOL_SOCKET, SO_PROTOCOL) if !set && len == 4 => {
            return int_sized(p, &|p, v| {
                p.symbol("", v as i64, lookup(IPPROTOS, v as i64))
            });
        }
        (SOL_NETLINK, NETLINK_LIST_MEMBERSHIPS) if !set => {
            let Dir::Get { asked } = dir else {
                unreachable!()
            };
            let n = len.min(asked.map_or(len, |a| a as u64)) / 4;
            put_u32_array(p, name, addr, n);
            return;
        }
        (SOL_NETLINK, _) => return int_sized(p, &|p, v| p.int("", v as i64)),
        (SOL_SOCKET, SO_LINGER) => {
            let fields: &[(&str, bool)] = &[("l_onoff", true), ("l_linger", true)];
            return put_int_struct(p, name, addr, len, set, fields);
        }
        // PACKET_STATISTICS: tpacket_stats, or tpacket_stats_v3 (one
        // more counter) on a TPACKET_V3 socket; the counters the kernel
        // wrote.
        (SOL_PACKET, PACKET_STATISTICS) if !set => {
            let fields: &[(&str, bool)] = &[
                ("tp_packets", false),
                ("tp_drops", false),
                ("tp_freeze_q_cnt", false),
            ];
            return put_int_struct(p, name, addr, len, set, fields);
        }
        (SOL_SOCKET, SO_PEERCRED) if !set => {
            return put_ucred(p, name, addr, len);
        }
        (0, 42 | 45) | (41, 42 | 45) => return put_group_req(p, name, addr, len, set),
        _ => {}
    }
    if let Some(done) = put_mreq(
        p,
        name,
        options(level).and_then(|t| lookup(t, opt)),
        addr,
        len,
    ) {
        if !done {
            p.ptr(name, addr);
        }
        return;
    }
    if level == SOL_RAW {
        // ICMP_FILTER reads at most its 4 bytes; fewer leave the rest set.
        let want = len.min(4) as usize;
        if let Some(mut b) = read_vec(p, addr, want) {
            b.resize(4, 0xff);
            if put_raw_optval(p, name, opt, &b) {
                return;
            }
        }
    }
    let b = if len > MAX_OPTVAL {
        None
    } else {
        read_vec(p, addr, len as usize)
    };
    let Some(b) = b else {
        if len == 4 {
            p.ptr(name, addr);
        } else {
            p.buf(name, addr, len);
        }
        return;
    };
    if level == SOL_PACKET && put_packet_optval(p, name, opt, &b) {
        return;
    }
    let tsize = time_size(p.arch());
    match (level, opt) {
        // The classic BPF program a socket filter attaches: a `struct
        // sock_fprog` or nothing the kernel takes.
        (SOL_SOCKET, SO_ATTACH_FILTER | SO_ATTACH_REUSEPORT_CBPF) => {
            if len == fprog_size(p) {
                put_fprog(p, name, addr, Flavor::Socket);
            } else {
                p.ptr(name, addr);
            }
        }
        // SO_RCVTIMEO_OLD, SO_SNDTIMEO_OLD: the ABI's timeval; the _NEW
        // ones: 64-bit fields.
        (SOL_SOCKET, 20 | 21 | 66 | 67) if b.len() >= 2 * if opt > 60 { 8 } else { tsize } => {
            let size = if opt > 60 { 8 } else { tsize };
            p.open(name, "{", Naming::Fields);
            p.int("tv_sec", int_at(&b, 0, size));
            p.int("tv_usec", int_at(&b, size, size));
            p.close("}");
        }
        // SO_BINDTODEVICE, TCP_CONGESTION, TCP_ULP: names.
        (SOL_SOCKET, 25) | (SOL_TCP, 13 | 31) => p.buf(name, addr, len),
        _ if len == 4 => {
            p.open(name, "[", Naming::Elements);
            p.int("", i32_at(&b, 0) as i64);
            p.close("]");
        }
        _ => p.buf(name, addr, len),
    }
}

/// `n` unsigned ints at `addr`, as many as `-s` allows: `[0, 4]`.
fn put_u32_array(p: &mut Printer, name: &str, addr: u64, n: u64) {
    let shown = n.min(p.config().string_limit as u64);
    let Some(b) = read_vec(p, addr, shown as usize * 4) else {
        p.ptr(name, addr);
        return;
    };
    p.open(name, "[", Naming::Elements);
    for i in 0..shown as usize {
        p.uint("", u32_at(&b, i * 4) as u64);
    }
    if shown < n {
        p.more();
    }
    p.close("]");
}

/// A struct of int fields (`struct linger`): setsockopt shows it whole
/// or, shorter than the struct, the pointer the kernel rejects;
/// getsockopt shows the fields the kernel wrote, a partial one as bytes.
fn put_int_struct(
    p: &mut Printer,
    name: &str,
    addr: u64,
    len: u64,
    set: bool,
    fields: &[(&str, bool)],
) {
    let size = 4 * fields.len() as u64;
    if set && len < size {
        p.ptr(name, addr);
        return;
    }
    let want = len.min(size) as usize;
    let Some(b) = read_vec(p, addr, want) else {
        p.ptr(name, addr);
        return;
    };
    p.open(name, "{", Naming::Fields);
    for (i, (field, signed)) in fields.iter().enumerate() {
        let off = i * 4;
        if off >= want {
            break;
        }
        if off + 4 > want {
            p.string(field, &b[off..], false);
        } else if *signed {
            p.int(field, i32_at(&b, off) as i64);
        } else {
            p.uint(field, u32_at(&b, off) as u64);
        }
    }
    p.close("}");
}

/// SO_PEERCRED's `struct ucred`, the fields the kernel wrote.
fn put_ucred(p: &mut Printer, name: &str, addr: u64, len: u64) {
    if len >= 12 {
        let Some(b) = read_vec(p, addr, 12) else {
            p.ptr(name, addr);
            return;
        };
        p.open(name, "{", Naming::Fields);
        ucred_fields(p, &b);
        p.close("}");
        return;
    }
    if len >= 4 {
        // The pid as the tracee's pid (`-Y`), the rest by put_int_struct.
        let Some(b) = read_vec(p, addr, len as usize) else {
            p.ptr(name, addr);
            return;
        };
        p.open(name, "{", Naming::Fields);
        p.pid_field("pid", i32_at(&b, 0) as i64);
        if len >= 8 {
            p.uint("uid", u32_at(&b, 4) as u64);
            if len > 8 {
                p.string("gid", &b[8..], false);
            }
        } else if len > 4 {
            p.string("uid", &b[4..], false);
        }
        p.close("}");
        return;
    }
    put_int_struct(p, name, addr, len, false, &[("pid", true)]);
}

/// MCAST_JOIN_GROUP's and MCAST_LEAVE_GROUP's `struct group_req`: the
/// interface and the group's socket address; shorter than the struct,
/// the pointer the kernel rejects.
fn put_group_req(p: &mut Printer, name: &str, addr: u64, len: u64, set: bool) {
    let layout = if p.arch() == Arch::I386 {
        GROUP_REQ_I386
    } else {
        GROUP_REQ
    };
    let size = extent(layout) as u64;
    if len < size || !set {
        p.ptr(name, addr);
        return;
    }
    let Some(b) = read_vec(p, addr, size as usize) else {
        p.ptr(name, addr);
        return;
    };
    let group = field(layout, "gr_group");
    p.open(name, "{", Naming::Fields);
    p.ifindex("gr_interface", u32_at(&b, 0));
    put_sockaddr(p, "gr_group", addr + group.off as u64, group.size as u64);
    p.close("}");
}

/// The multicast options' requests, by option name and by the size the
/// kernel tells them apart by: `struct ip_mreqn` (with an interface
/// index) or `struct ip_mreq` for IP_ADD_MEMBERSHIP, IP_DROP_MEMBERSHIP
/// and IP_MULTICAST_IF, `struct ipv6_mreq` for IPV6_ADD/DROP_MEMBERSHIP
/// and IPV6_JOIN/LEAVE_ANYCAST (whose index strace calls
/// `ipv6mr_interface`, as the C library does). The kernel reads the
/// struct's size whatever larger `optlen` says; an `ip_mreqn` whose last
/// field cannot be read shows as the `ip_mreq` the caller likely meant.
/// None for any other option, Some(false) when nothing could be read.
fn put_mreq(p: &mut Printer, name: &str, opt: Option<&str>, addr: u64, len: u64) -> Option<bool> {
    let (v4, v6) = match opt {
        Some("IP_ADD_MEMBERSHIP" | "IP_DROP_MEMBERSHIP" | "IP_MULTICAST_IF") => (true, false),
        Some(
            "IPV6_ADD_MEMBERSHIP"
            | "IPV6_DROP_MEMBERSHIP"
            | "IPV6_JOIN_ANYCAST"
            | "IPV6_LEAVE_ANYCAST",
        ) => (false, true),
        _ => return None,
    };
    let (mreqn, mreq, mreq6) = (
        extent(IP_MREQN) as u64,
        extent(IP_MREQ) as u64,
        extent(IPV6_MREQ) as u64,
    );
    let read = |p: &mut Printer, n: u64| read_vec(p, addr, n as usize);
    let (layout, shown, b): (&[Field], &[&str], _) = if v4 && len >= mreqn {
        match read(p, mreqn) {
            Some(b) => (IP_MREQN, &[], b),
            None => match read(p, mreq) {
                Some(b) => (IP_MREQ, &[], b),
                None => return Some(false),
            },
        }
    } else if v4 && len >= mreq {
        match read(p, mreq) {
            Some(b) => (IP_MREQ, &[], b),
            None => return Some(false),
        }
    } else if v6 && len >= mreq6 {
        match read(p, mreq6) {
            Some(b) => (IPV6_MREQ, &["ipv6mr_multiaddr", "ipv6mr_interface"], b),
            None => return Some(false),
        }
    } else {
        return None;
    };
    p.open(name, "{", Naming::Fields);
    for (i, f) in layout.iter().enumerate() {
        let field = shown.get(i).copied().unwrap_or(f.name);
        let v = &b[f.off..f.end()];
        if f.size == 4 && f.name.ends_with("ifindex") {
            p.ifindex(field, u32_at(v, 0));
        } else if !put_ip(p, field, v) {
            p.uint(field, f.read(&b).unwrap_or(0));
        }
    }
    p.close("}");
    Some(true)
}

/// What setsockopt's decoder reads behind `optval` beyond its bytes, by
/// option (`service::ByValue`): a socket filter's instructions. (By the
/// option number alone: another level's option of the same number gets
/// the copy too, which its decoder never reads.)
pub const SETSOCKOPT_MEMORY: &[ByValue] = &[
    ByValue {
        selector: 2,
        value: SO_ATTACH_FILTER as u64,
        arg: 3,
        mem: Mem::Fprog,
    },
    ByValue {
        selector: 2,
        value: SO_ATTACH_REUSEPORT_CBPF as u64,
        arg: 3,
        mem: Mem::Fprog,
    },
];

/// What getsockopt's decoder reads behind `optval` beyond what `optlen`
/// says, by option (`service::ByValue`): SO_GET_FILTER's `optlen` counts
/// instructions, not bytes.
pub const GETSOCKOPT_MEMORY: &[ByValue] = &[ByValue {
    selector: 2,
    value: SO_ATTACH_FILTER as u64,
    arg: 3,
    mem: Mem::Insns,
}];

/// `setsockopt(sockfd, level, optname, optval, optlen)`
pub fn setsockopt_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let level = c.int(1);
    let opt = c.int(2);
    put_fd(p, c.fds, "sockfd", c.int(0));
    put_level(p, "level", level);
    put_optname(p, "optname", level, opt);
    let len = c.args[4] as u32 as u64;
    put_optval(
        p,
        "optval",
        level,
        opt,
        c.args[3],
        len as u32 as i32 as i64,
        Dir::Set,
    );
    p.uint("optlen", len);
    CallType::Done
}

/// getsockopt's own name for an option number setsockopt names otherwise:
/// `<asm-generic/socket.h>` defines `SO_GET_FILTER` as `SO_ATTACH_FILTER`.
fn get_optname(level: i64, opt: i64) -> Option<&'static str> {
    (level == SOL_SOCKET && opt == SO_ATTACH_FILTER).then_some("SO_GET_FILTER")
}

/// `getsockopt(sockfd, level, optname, optval, optlen)`: the value at leave.
pub fn getsockopt_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let level = c.int(1);
    let opt = c.int(2);
    put_fd(p, c.fds, "sockfd", c.int(0));
    put_level(p, "level", level);
    match get_optname(level, opt) {
        Some(own) => p.symbol("optname", opt, Some(own)),
        None => put_optname(p, "optname", level, opt),
    }
    save_len(p, c, c.args[4]);
    CallType::NotDone
}

/// Leave half of getsockopt: the value with the length the kernel wrote.
pub fn getsockopt_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    let len = read_vec(p, c.args[4], 4).map(|b| u32_at(&b, 0) as u64);
    let (level, opt) = (c.int(1), c.int(2));
    match len {
        // SO_GET_FILTER: its lengths count instructions, not bytes; asked
        // with 0 it writes only how many there are.
        Some(count) if !failed && level == SOL_SOCKET && opt == SO_ATTACH_FILTER => {
            if saved_len(c) == Some(0) || count > u16::MAX as u64 {
                p.ptr("optval", c.args[3]);
            } else {
                put_program(p, "optval", c.args[3], count as usize, Flavor::Socket);
            }
        }
        Some(len) if !failed => {
            let dir = Dir::Get {
                asked: saved_len(c),
            };
            put_optval(
                p,
                "optval",
                level,
                opt,
                c.args[3],
                len as u32 as i32 as i64,
                dir,
            )
        }
        _ => p.ptr("optval", c.args[3]),
    }
    put_len_result(p, "optlen", c.args[4], saved_len(c), failed);
    p.equals();
    p.result(c.result);
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("getsockopt", getsockopt_out, getsockopt_in, Normal),
    h("setsockopt", setsockopt_out, default_in, Normal),
];
