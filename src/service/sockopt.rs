//! Socket options: level and option names, setsockopt and getsockopt with
//! their values decoded (ints, `struct linger`, timeouts, credentials,
//! names, socket filter programs, multicast requests; the packet and raw
//! sockets' options in `sockopt_packet.rs`).

use crate::abi::layout::{Field, extent};
use crate::abi::xlat::net::{
    FAMILIES, IP_MREQ, IP_MREQN, IPPROTOS, IPV6_MREQ, LEVELS, SOCK_TYPES, SOL_IP_OPTS,
    SOL_IPV6_OPTS, SOL_NETLINK_OPTS, SOL_PACKET_OPTS, SOL_RAW_OPTS, SOL_SOCKET_OPTS, SOL_TCP_OPTS,
    SOL_UDP_OPTS,
};
use crate::call::{CallClass::Normal, Handler, default_in};
use crate::call::{CallCtx, CallType, errno_name};
use crate::decode::put_fd;
use crate::format::{Naming, Printer};
use crate::service::bpf_filter::{Flavor, fprog_size, put_fprog, put_program};
use crate::service::family::put_ip;
use crate::service::h;
use crate::service::net::{put_len_result, save_len, saved_len, ucred_fields};
use crate::service::raw::{i32_at, int_at, lookup, read_vec, time_size, u32_at};
use crate::service::sockopt_packet::{put_packet_optval, put_raw_optval};

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

/// An option value of `len` bytes: decoded for the options whose type is
/// known, `[N]` for any other 4-byte value, else the bytes.
fn put_optval(p: &mut Printer, name: &str, level: i64, opt: i64, addr: u64, len: u64) {
    if addr == 0 || len > MAX_OPTVAL || p.config().values_only >= 2 {
        p.ptr(name, addr);
        return;
    }
    let Some(b) = read_vec(p, addr, len as usize) else {
        p.ptr(name, addr);
        return;
    };
    let done = match level {
        SOL_PACKET => put_packet_optval(p, name, opt, &b),
        SOL_RAW => put_raw_optval(p, name, opt, &b),
        _ => put_mreq(p, name, options(level).and_then(|t| lookup(t, opt)), &b),
    };
    if done {
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
        // SO_LINGER
        (SOL_SOCKET, 13) if len >= 8 => {
            p.open(name, "{", Naming::Fields);
            p.int("l_onoff", i32_at(&b, 0) as i64);
            p.int("l_linger", i32_at(&b, 4) as i64);
            p.close("}");
        }
        // SO_PEERCRED
        (SOL_SOCKET, 17) if len >= 12 => {
            p.open(name, "{", Naming::Fields);
            ucred_fields(p, &b);
            p.close("}");
        }
        // SO_RCVTIMEO_OLD, SO_SNDTIMEO_OLD: the ABI's timeval; the _NEW
        // ones: 64-bit fields.
        (SOL_SOCKET, 20 | 21 | 66 | 67) => {
            let size = if opt > 60 { 8 } else { tsize };
            if b.len() >= 2 * size {
                p.open(name, "{", Naming::Fields);
                p.int("tv_sec", int_at(&b, 0, size));
                p.int("tv_usec", int_at(&b, size, size));
                p.close("}");
            } else {
                p.buf(name, addr, len);
            }
        }
        // SO_BINDTODEVICE, TCP_CONGESTION, TCP_ULP: names.
        (SOL_SOCKET, 25) | (SOL_TCP, 13 | 31) => p.buf(name, addr, len),
        // SO_TYPE, SO_ERROR, SO_DOMAIN, SO_PROTOCOL: `[SOCK_STREAM]`.
        (SOL_SOCKET, 3 | 4 | 39 | 38) if len == 4 => {
            let v = i32_at(&b, 0) as i64;
            p.open(name, "[", Naming::Elements);
            match opt {
                3 => p.flags("", v as u64, SOCK_TYPES),
                4 => p.symbol("", v, errno_name(v).filter(|_| v != 0)),
                39 => p.symbol("", v, lookup(FAMILIES, v)),
                _ => p.symbol("", v, lookup(IPPROTOS, v)),
            }
            p.close("]");
        }
        _ if len == 4 => {
            p.open(name, "[", Naming::Elements);
            p.int("", i32_at(&b, 0) as i64);
            p.close("]");
        }
        _ => p.buf(name, addr, len),
    }
}

/// The multicast options' requests, by option name and by the size the
/// kernel tells them apart by: `struct ip_mreqn` (with an interface
/// index) or `struct ip_mreq` for IP_ADD_MEMBERSHIP, IP_DROP_MEMBERSHIP
/// and IP_MULTICAST_IF, `struct ipv6_mreq` for IPV6_ADD_MEMBERSHIP and
/// IPV6_DROP_MEMBERSHIP (whose index strace calls `ipv6mr_interface`, as
/// the C library does). False for anything else.
fn put_mreq(p: &mut Printer, name: &str, opt: Option<&str>, b: &[u8]) -> bool {
    let (v4, v6) = match opt {
        Some("IP_ADD_MEMBERSHIP" | "IP_DROP_MEMBERSHIP" | "IP_MULTICAST_IF") => (true, false),
        Some("IPV6_ADD_MEMBERSHIP" | "IPV6_DROP_MEMBERSHIP") => (false, true),
        _ => return false,
    };
    let (layout, shown): (&[Field], &[&str]) = match b.len() {
        n if v4 && n == extent(IP_MREQN) => (IP_MREQN, &[]),
        n if v4 && n == extent(IP_MREQ) => (IP_MREQ, &[]),
        n if v6 && n == extent(IPV6_MREQ) => (IPV6_MREQ, &["ipv6mr_multiaddr", "ipv6mr_interface"]),
        _ => return false,
    };
    p.open(name, "{", Naming::Fields);
    for (i, f) in layout.iter().enumerate() {
        let field = shown.get(i).copied().unwrap_or(f.name);
        let v = &b[f.off..f.end()];
        if f.size == 4 && f.name.ends_with("ifindex") {
            p.ifindex(field, u32_at(v, 0));
        } else if !put_ip(p, field, v) {
            p.uint(field, f.read(b).unwrap_or(0));
        }
    }
    p.close("}");
    true
}

/// `setsockopt(sockfd, level, optname, optval, optlen)`
pub fn setsockopt_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let level = c.int(1);
    let opt = c.int(2);
    put_fd(p, c.fds, "sockfd", c.int(0));
    put_level(p, "level", level);
    put_optname(p, "optname", level, opt);
    let len = c.args[4] as u32 as u64;
    put_optval(p, "optval", level, opt, c.args[3], len);
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
        Some(len) if !failed => put_optval(p, "optval", level, opt, c.args[3], len),
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
