//! Network handlers: socket and socketpair, bind, connect, listen, accept,
//! the socket names, sendto and recvfrom, shutdown; and the socket address
//! printer the message (`msg.rs`) and option (`sockopt.rs`) handlers use.

use crate::abi::xlat::net::{
    ARPHRD, IPPROTOS, MSG_FLAGS, NETLINK_PROTOS, PACKET_TYPES, SHUT_HOW, SOCK_TYPES,
};
use std::net::{Ipv4Addr, Ipv6Addr};

use crate::call::{CallClass::Normal, Handler, default_in};
use crate::call::{CallCtx, CallData, CallType};
use crate::decode::put_fd;
use crate::format::{FlagDef, Naming, Printer, quote};
use crate::kernel::Memory;
use crate::service::family::{put_eth_proto, put_family, put_port};
use crate::service::netlink;
use crate::service::raw::{i32_at, put_composed, put_named, read_vec, u16_at, u32_at};
use crate::service::{Source, Subcall, h};

use crate::abi::xlat::net::{AF_INET, AF_INET6, AF_NETLINK, AF_PACKET, AF_UNIX};

/// The flags accept4 takes: SOCK_TYPES's last two entries, without the
/// types (whose values would name stray low bits).
const SOCK_FLAGS: &[FlagDef] = SOCK_TYPES.split_at(SOCK_TYPES.len() - 2).1;

/// `socket(domain, type, protocol)`, also the first three of socketpair.
pub fn socket_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let domain = c.int(0);
    put_family(p, "domain", domain);
    p.flags("type", c.args[1] as u32 as u64, SOCK_TYPES);
    let protocol = c.int(2);
    match domain as u16 {
        AF_INET | AF_INET6 => put_named(p, "protocol", protocol, IPPROTOS),
        AF_NETLINK => put_named(p, "protocol", protocol, NETLINK_PROTOS),
        AF_PACKET => put_eth_proto(p, "protocol", protocol as u16),
        _ => p.int("protocol", protocol),
    }
    CallType::Done
}

/// `socketpair(domain, type, protocol, sv)`: the pair at leave.
pub fn socketpair_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    socket_out(p, c);
    CallType::NotDone
}

/// Leave half of socketpair: `[3, 4]`.
pub fn socketpair_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    let addr = c.args[3];
    match read_vec(p, addr, 8).filter(|_| !failed && p.config().values_only < 2) {
        Some(b) => {
            p.open("sv", "[", Naming::Elements);
            put_fd(p, c.fds, "", i32_at(&b, 0) as i64);
            put_fd(p, c.fds, "", i32_at(&b, 4) as i64);
            p.close("]");
        }
        None => p.ptr("sv", addr),
    }
    p.equals();
    p.result(c.result);
}

/// `sizeof(struct sockaddr_storage)`.
const SOCKADDR_MAX: u64 = 128;
/// `offsetof(struct sockaddr_un, sun_path)` and the path's size.
const SUN_PATH_AT: usize = 2;
const SUN_PATH_MAX: usize = 108;

/// A socket address of `len` bytes at `addr`, by family:
/// `{sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("127.0.0.1")}`,
/// `{sa_family=AF_UNIX, sun_path=@"abstract"}`. A length too short for the
/// family's fields ends the struct with `..`; an unreadable one prints the
/// pointer.
pub fn put_sockaddr(p: &mut Printer, name: &str, addr: u64, len: u64) {
    if addr == 0 || len < 2 || p.config().values_only >= 2 {
        p.ptr(name, addr);
        return;
    }
    let want = len.min(SOCKADDR_MAX) as usize;
    let Some(b) = read_vec(p, addr, want) else {
        p.ptr(name, addr);
        return;
    };
    p.open(name, "{", Naming::Fields);
    let family = u16_at(&b, 0);
    put_family(p, "sa_family", family as i64);
    let all = match family {
        // An address cut short (a buffer smaller than the address) shows
        // the fields that fit, then `..`.
        AF_INET if b.len() >= 4 => {
            put_port(p, "sin_port", u16_at(&b, 2));
            if b.len() < 8 {
                p.close_struct(false);
                return;
            }
            let ip = Ipv4Addr::from([b[4], b[5], b[6], b[7]]).to_string();
            put_composed(p, "sin_addr", &format!("inet_addr(\"{ip}\")"), |p| {
                p.string("sin_addr", ip.as_bytes(), false)
            });
            true
        }
        AF_INET6 if b.len() >= 4 => {
            put_port(p, "sin6_port", u16_at(&b, 2));
            if b.len() < 24 {
                p.close_struct(false);
                return;
            }
            let flow = u32::from_be(u32_at(&b, 4));
            put_composed(p, "sin6_flowinfo", &format!("htonl({flow})"), |p| {
                p.uint("sin6_flowinfo", flow as u64)
            });
            let mut raw = [0u8; 16];
            raw.copy_from_slice(&b[8..24]);
            let ip = Ipv6Addr::from(raw).to_string();
            let text = format!("inet_pton(AF_INET6, \"{ip}\")");
            put_composed(p, "sin6_addr", &text, |p| {
                p.string("sin6_addr", ip.as_bytes(), false)
            });
            if b.len() >= 28 {
                // A link-local address's scope is an interface, as strace
                // shows it; any other's a number.
                let scope = u32_at(&b, 24);
                let link_local = raw[0] == 0xfe && raw[1] & 0xc0 == 0x80
                    || raw[0] == 0xff && raw[1] & 0x0f == 0x02;
                if link_local {
                    p.ifindex("sin6_scope_id", scope);
                } else {
                    p.uint("sin6_scope_id", scope as u64);
                }
                true
            } else {
                false
            }
        }
        AF_UNIX => {
            put_sun_path(p, &b[SUN_PATH_AT.min(b.len())..]);
            true
        }
        AF_NETLINK if b.len() >= 12 => {
            p.uint("nl_pid", u32_at(&b, 4) as u64);
            p.hex("nl_groups", u32_at(&b, 8) as u64);
            true
        }
        AF_PACKET if b.len() >= 12 => {
            put_eth_proto(p, "sll_protocol", u16_at(&b, 2));
            p.ifindex("sll_ifindex", u32_at(&b, 4));
            put_named(p, "sll_hatype", u16_at(&b, 8) as i64, ARPHRD);
            put_named(p, "sll_pkttype", b[10] as i64, PACKET_TYPES);
            let halen = b[11] as usize;
            p.uint("sll_halen", halen as u64);
            let avail = b.len().saturating_sub(12).min(8).min(halen);
            p.open("sll_addr", "[", Naming::Elements);
            for byte in &b[12..12 + avail] {
                p.hex("", *byte as u64);
            }
            if avail < halen.min(8) {
                p.more();
            }
            p.close("]");
            true
        }
        AF_INET | AF_INET6 | AF_NETLINK | AF_PACKET => false,
        _ => {
            p.buf("sa_data", addr + 2, want as u64 - 2);
            true
        }
    };
    p.close_struct(all);
}

/// `sun_path`: up to its NUL, or `@"name"` for an abstract address (the
/// whole length, NULs and all); absent for an unnamed socket.
fn put_sun_path(p: &mut Printer, path: &[u8]) {
    let path = &path[..path.len().min(SUN_PATH_MAX)];
    if path.is_empty() {
        return;
    }
    if path[0] == 0 {
        // JSON: the name as it is, with its leading NUL.
        let text = format!("@{}", quote(&path[1..], false));
        put_composed(p, "sun_path", &text, |p| p.string("sun_path", path, false));
    } else {
        let end = path.iter().position(|&b| b == 0).unwrap_or(path.len());
        p.string("sun_path", &path[..end], false);
    }
}

/// `bind(sockfd, addr, addrlen)`, `connect(sockfd, addr, addrlen)`
pub fn bind_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "sockfd", c.int(0));
    put_sockaddr(p, "addr", c.args[1], c.args[2] as u32 as u64);
    p.uint("addrlen", c.args[2] as u32 as u64);
    CallType::Done
}

/// `listen(sockfd, backlog)`
pub fn listen_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "sockfd", c.int(0));
    p.int("backlog", c.int(1));
    CallType::Done
}

/// `accept(sockfd, addr, addrlen)`, `getsockname(...)`, `getpeername(...)`,
/// `accept4(sockfd, addr, addrlen, flags)`: the address at leave.
pub fn sockname_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "sockfd", c.int(0));
    save_len(p, c, c.args[2]);
    CallType::NotDone
}

/// Keep the `socklen_t` at `addr` as the call was given it (the kernel
/// overwrites it with the length it used) for [`put_len_result`].
pub fn save_len(p: &mut Printer, c: &mut CallCtx, addr: u64) {
    if let Some(b) = read_vec(p, addr, 4) {
        *c.data = CallData::Len(u32_at(&b, 0));
    }
}

/// The length [`save_len`] kept.
pub fn saved_len(c: &CallCtx) -> Option<u32> {
    match &*c.data {
        CallData::Len(len) => Some(*len),
        _ => None,
    }
}

/// A value-result length pointer at leave: `[110 => 2]` (what went in and
/// what the kernel wrote), `[16]` when they agree; after a failure what
/// went in, as the kernel wrote nothing; the pointer if unreadable.
pub fn put_len_result(p: &mut Printer, name: &str, addr: u64, before: Option<u32>, failed: bool) {
    let after = if failed {
        None
    } else {
        read_vec(p, addr, 4).map(|b| u32_at(&b, 0))
    };
    if p.config().values_only >= 2 {
        p.ptr(name, addr);
        return;
    }
    match (before, after) {
        (Some(before), Some(after)) => {
            p.open(name, "[", Naming::Elements);
            p.changed("", before as u64, after as u64);
            p.close("]");
        }
        (_, Some(len)) | (Some(len), None) => {
            p.open(name, "[", Naming::Elements);
            p.uint("", len as u64);
            p.close("]");
        }
        (None, None) => p.ptr(name, addr),
    }
}

/// The bytes of an address the kernel wrote into a buffer of `given`
/// bytes when it reports the address as `len` long: it copies only what
/// fits and still says the full length (move_addr_to_user), so past
/// `given` the buffer holds whatever was there before.
pub fn written_len(given: Option<u32>, len: u32) -> u64 {
    given.map_or(len, |given| given.min(len)) as u64
}

/// An address and its length pointer as the kernel left them: the address
/// as far as the kernel wrote it, the length as [`put_len_result`] shows
/// it; the address as a pointer if the call failed.
pub fn put_sockaddr_out(
    p: &mut Printer,
    c: &CallCtx,
    addr: u64,
    len_addr: u64,
    failed: bool,
    names: [&str; 2],
) {
    let len = read_vec(p, len_addr, 4).map(|b| u32_at(&b, 0));
    match len {
        Some(len) if !failed && addr != 0 => {
            put_sockaddr(p, names[0], addr, written_len(saved_len(c), len))
        }
        _ => p.ptr(names[0], addr),
    }
    put_len_result(p, names[1], len_addr, saved_len(c), failed);
}

/// Leave half of accept, getsockname and getpeername.
pub fn sockname_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    put_sockaddr_out(p, c, c.args[1], c.args[2], failed, ["addr", "addrlen"]);
    p.equals();
    p.result(c.result);
}

/// Leave half of accept4.
pub fn accept4_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    put_sockaddr_out(p, c, c.args[1], c.args[2], failed, ["addr", "addrlen"]);
    p.flags("flags", c.args[3] as u32 as u64, SOCK_FLAGS);
    p.equals();
    p.result(c.result);
}

/// `sendto(sockfd, buf, len, flags, dest_addr, addrlen)`
pub fn sendto_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    send_out(p, c);
    put_sockaddr(p, "dest_addr", c.args[4], c.args[5] as u32 as u64);
    p.uint("addrlen", c.args[5] as u32 as u64);
    CallType::Done
}

/// Leave half of recvfrom(sockfd, buf, len, flags, src_addr, addrlen).
pub fn recvfrom_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    put_received(p, c, failed);
    if c.args[4] == 0 {
        p.ptr("src_addr", 0);
        p.ptr("addrlen", c.args[5]);
    } else {
        put_sockaddr_out(p, c, c.args[4], c.args[5], failed, ["src_addr", "addrlen"]);
    }
    p.equals();
    p.result(c.result);
}

/// `send(sockfd, buf, len, flags)` (only an i386 socketcall, SYS_SEND);
/// also sendto's first four.
pub fn send_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "sockfd", c.int(0));
    netlink::put_buf(p, c.fds, c.int(0), "buf", c.args[1], c.args[2]);
    p.uint("len", c.args[2]);
    p.flags("flags", c.args[3] as u32 as u64, MSG_FLAGS);
    CallType::Done
}

/// `recv(sockfd, buf, len, flags)` (only an i386 socketcall, SYS_RECV):
/// everything after the fd at leave.
pub fn recv_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "sockfd", c.int(0));
    CallType::NotDone
}

/// `recvfrom(sockfd, buf, len, flags, src_addr, addrlen)`: as recv, and
/// the address length as given, to show what the kernel changed.
pub fn recvfrom_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    if c.args[4] != 0 {
        save_len(p, c, c.args[5]);
    }
    recv_out(p, c)
}

/// The buffer received (as much as the result says), its length, flags.
fn put_received(p: &mut Printer, c: &CallCtx, failed: bool) {
    if failed {
        p.ptr("buf", c.args[1]);
    } else {
        // With MSG_TRUNC the result is the datagram's length, which may be
        // more than the buffer holds.
        let got = (c.result as u64).min(c.args[2]);
        netlink::put_buf(p, c.fds, c.int(0), "buf", c.args[1], got);
    }
    p.uint("len", c.args[2]);
    p.flags("flags", c.args[3] as u32 as u64, MSG_FLAGS);
}

/// Leave half of recv.
pub fn recv_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    put_received(p, c, failed);
    p.equals();
    p.result(c.result);
}

/// The calls an i386 `socketcall(call, args)` stands for, by `call` (1 is
/// SYS_SOCKET, `<linux/net.h>`): name, how many `unsigned long` arguments
/// its `args` array holds (`nargs` in net/socket.c), and `call`'s name.
pub const SOCKETCALLS: &[(&str, usize, &str)] = &[
    ("socket", 3, "SYS_SOCKET"),
    ("bind", 3, "SYS_BIND"),
    ("connect", 3, "SYS_CONNECT"),
    ("listen", 2, "SYS_LISTEN"),
    ("accept", 3, "SYS_ACCEPT"),
    ("getsockname", 3, "SYS_GETSOCKNAME"),
    ("getpeername", 3, "SYS_GETPEERNAME"),
    ("socketpair", 4, "SYS_SOCKETPAIR"),
    ("send", 4, "SYS_SEND"),
    ("recv", 4, "SYS_RECV"),
    ("sendto", 6, "SYS_SENDTO"),
    ("recvfrom", 6, "SYS_RECVFROM"),
    ("shutdown", 2, "SYS_SHUTDOWN"),
    ("setsockopt", 5, "SYS_SETSOCKOPT"),
    ("getsockopt", 5, "SYS_GETSOCKOPT"),
    ("sendmsg", 3, "SYS_SENDMSG"),
    ("recvmsg", 3, "SYS_RECVMSG"),
    ("accept4", 4, "SYS_ACCEPT4"),
    ("recvmmsg", 5, "SYS_RECVMMSG"),
    ("sendmmsg", 4, "SYS_SENDMMSG"),
];

/// The SOCKETCALLS entry of `call`.
fn socketcall_entry(call: u64) -> Option<&'static (&'static str, usize, &'static str)> {
    SOCKETCALLS.get((call as usize).checked_sub(1)?)
}

/// `socketcall(call, args)` itself, when it could not be shown as the call
/// it stands for (unknown `call`, unreadable `args`).
pub fn socketcall_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let call = c.args[0] as u32 as u64;
    p.symbol("call", call as i64, socketcall_entry(call).map(|e| e.2));
    p.ptr("args", c.args[1]);
    CallType::Done
}

/// The call an i386 `socketcall(call, args)` stands for: its arguments
/// are the words of `args`.
pub fn socketcall_subcall(call: u64) -> Option<Subcall> {
    let &(name, nargs, _) = socketcall_entry(call)?;
    let mut args = [Source::Zero; 6];
    for (i, arg) in args.iter_mut().enumerate().take(nargs) {
        *arg = Source::Word(i as u8);
    }
    Some(Subcall {
        name,
        block: 1,
        args,
    })
}

/// What an i386 `socketcall(call, args)` does: the call's name and its
/// arguments, read from the caller's array of 32-bit words. None for an
/// unknown `call` or an unreadable array: the call is then shown as
/// socketcall itself, as the kernel would fail it.
pub fn socketcall(call: u64, array: u64, mem: &mut Memory) -> Option<(&'static str, [u64; 6])> {
    let sub = socketcall_subcall(call)?;
    Some((sub.name, sub.resolve([call, array, 0, 0, 0, 0], mem)?))
}

/// `shutdown(sockfd, how)`
pub fn shutdown_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "sockfd", c.int(0));
    put_named(p, "how", c.int(1), SHUT_HOW);
    CallType::Done
}

/// A `struct ucred` already copied: `{pid=42, uid=0, gid=0}`.
pub fn ucred_fields(p: &mut Printer, b: &[u8]) {
    p.pid_field("pid", i32_at(b, 0) as i64);
    p.uint("uid", u32_at(b, 4) as u64);
    p.uint("gid", u32_at(b, 8) as u64);
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("accept", sockname_out, sockname_in, Normal),
    h("accept4", sockname_out, accept4_in, Normal),
    h("bind", bind_out, default_in, Normal),
    h("connect", bind_out, default_in, Normal),
    h("getpeername", sockname_out, sockname_in, Normal),
    h("getsockname", sockname_out, sockname_in, Normal),
    h("listen", listen_out, default_in, Normal),
    h("recv", recv_out, recv_in, Normal),
    h("recvfrom", recvfrom_out, recvfrom_in, Normal),
    h("send", send_out, default_in, Normal),
    h("sendto", sendto_out, default_in, Normal),
    h("shutdown", shutdown_out, default_in, Normal),
    h("socket", socket_out, default_in, Normal),
    h("socketcall", socketcall_out, default_in, Normal),
    h("socketpair", socketpair_out, socketpair_in, Normal),
];
