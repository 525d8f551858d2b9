//! What a socket is connected to, asked of the kernel by the socket's inode
//! over NETLINK_SOCK_DIAG, as strace's `-yy` does: `TCP:[127.0.0.1:8080->
//! 127.0.0.1:40000]`, `UNIX-STREAM:[28140->28141,"/run/x.sock"]`,
//! `NETLINK:[ROUTE:4242]`.
//!
//! The protocol name comes first, from the `system.sockprotoname`
//! attribute of /proc/TID/fd/N (the kernel's `struct proto` name: `TCP`,
//! `UDPv6`, `UNIX-STREAM`, `UNIX` for datagram and seqpacket, `NETLINK`,
//! `PACKET`); it says which diag family to ask. A protocol no diag family
//! answers for, or a socket the kernel's tables do not hold yet (not bound,
//! not connected), is `NAME:[INODE]`.
//!
//! Answers are cached by inode ([`Cache`]): an answer that cannot change
//! while the socket lives (a connected TCP socket's four addresses, a unix
//! socket's peer, a bound netlink socket's port id) until the fd table
//! changes ([`forget`]); any other only for the call being printed
//! ([`next_call`]), so a socket bound or connected by a call the seccomp
//! fast path did not stop is never shown as it was.
//!
//! The request and answer layouts are those of `<linux/sock_diag.h>`,
//! `<linux/inet_diag.h>`, `<linux/unix_diag.h>` and
//! `<linux/netlink_diag.h>` (uapi, stable); offsets are named below.

use std::cell::RefCell;
use std::collections::HashMap;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use crate::abi::xlat::net::NETLINK_PROTOS;

/// `NETLINK_SOCK_DIAG` (`<linux/netlink.h>`).
const NETLINK_SOCK_DIAG: i32 = 4;
/// `SOCK_DIAG_BY_FAMILY` (`<linux/sock_diag.h>`).
const SOCK_DIAG_BY_FAMILY: u16 = 20;
/// `NLM_F_REQUEST`, `NLM_F_DUMP` (`<linux/netlink.h>`).
const NLM_F_REQUEST: u16 = 1;
/// See [`NLM_F_REQUEST`].
const NLM_F_DUMP: u16 = 0x300;
/// `NLMSG_DONE`, `NLMSG_ERROR`.
const NLMSG_DONE: u16 = 3;
/// See [`NLMSG_DONE`].
const NLMSG_ERROR: u16 = 2;
/// `sizeof(struct nlmsghdr)`.
const NLMSG_HDRLEN: usize = 16;
/// `UDIAG_SHOW_NAME | UDIAG_SHOW_PEER` (`<linux/unix_diag.h>`).
const UDIAG_SHOW_NAME_PEER: u32 = 0x1 | 0x4;
/// `UNIX_DIAG_NAME`, `UNIX_DIAG_PEER`: attributes of a unix answer.
const UNIX_DIAG_NAME: u16 = 0;
/// See [`UNIX_DIAG_NAME`].
const UNIX_DIAG_PEER: u16 = 2;
/// `NDIAG_PROTO_ALL` (`<linux/netlink_diag.h>`).
const NDIAG_PROTO_ALL: u8 = 255;
/// `sizeof(struct inet_diag_msg)`; `id` at 4 (sport 4, dport 6, src 8,
/// dst 24), `idiag_inode` at 68.
const INET_DIAG_MSG_SIZE: usize = 72;
/// `sizeof(struct unix_diag_msg)`; `udiag_ino` at 4.
const UNIX_DIAG_MSG_SIZE: usize = 16;
/// `sizeof(struct netlink_diag_msg)`; `ndiag_portid` at 4, `ndiag_ino` at 16.
const NETLINK_DIAG_MSG_SIZE: usize = 28;

/// Which diag family answers for a protocol name, and how to ask it.
#[derive(Clone, Copy)]
enum Ask {
    /// inet_diag: address family and IP protocol.
    Inet(u8, u8),
    /// unix_diag, by inode.
    Unix,
    /// netlink_diag.
    Netlink,
}

/// The protocols strace resolves, by the kernel's protocol name.
const PROTOCOLS: &[(&str, Ask)] = &[
    (
        "TCP",
        Ask::Inet(libc::AF_INET as u8, libc::IPPROTO_TCP as u8),
    ),
    (
        "UDP",
        Ask::Inet(libc::AF_INET as u8, libc::IPPROTO_UDP as u8),
    ),
    (
        "UDPLITE",
        Ask::Inet(libc::AF_INET as u8, libc::IPPROTO_UDPLITE as u8),
    ),
    (
        "DCCP",
        Ask::Inet(libc::AF_INET as u8, libc::IPPROTO_DCCP as u8),
    ),
    (
        "SCTP",
        Ask::Inet(libc::AF_INET as u8, libc::IPPROTO_SCTP as u8),
    ),
    (
        "PING",
        Ask::Inet(libc::AF_INET as u8, libc::IPPROTO_ICMP as u8),
    ),
    (
        "RAW",
        Ask::Inet(libc::AF_INET as u8, libc::IPPROTO_RAW as u8),
    ),
    (
        "TCPv6",
        Ask::Inet(libc::AF_INET6 as u8, libc::IPPROTO_TCP as u8),
    ),
    (
        "UDPv6",
        Ask::Inet(libc::AF_INET6 as u8, libc::IPPROTO_UDP as u8),
    ),
    (
        "UDPLITEv6",
        Ask::Inet(libc::AF_INET6 as u8, libc::IPPROTO_UDPLITE as u8),
    ),
    (
        "DCCPv6",
        Ask::Inet(libc::AF_INET6 as u8, libc::IPPROTO_DCCP as u8),
    ),
    (
        "SCTPv6",
        Ask::Inet(libc::AF_INET6 as u8, libc::IPPROTO_SCTP as u8),
    ),
    (
        "PINGv6",
        Ask::Inet(libc::AF_INET6 as u8, libc::IPPROTO_ICMP as u8),
    ),
    (
        "RAWv6",
        Ask::Inet(libc::AF_INET6 as u8, libc::IPPROTO_RAW as u8),
    ),
    ("UNIX", Ask::Unix),
    ("UNIX-STREAM", Ask::Unix),
    ("NETLINK", Ask::Netlink),
];

/// One cached answer: the text, and whether it can change while the
/// socket lives.
struct Entry {
    /// `TCP:[...]`, or `None` when the socket was not found.
    text: Option<String>,
    /// Kept across calls (see the module doc).
    lasting: bool,
    /// The call it was asked for.
    call: u64,
}

/// Answers by inode, and the one sock_diag socket they are asked over.
#[derive(Default)]
struct Cache {
    entries: HashMap<u64, Entry>,
    /// Counts printed calls: an answer that may change is reused only
    /// within the call it was asked for.
    call: u64,
    socket: Option<OwnedFd>,
}

thread_local! {
    static CACHE: RefCell<Cache> = RefCell::new(Cache::default());
}

/// The fd table or a socket's addresses changed: ask again for every
/// socket.
pub fn forget() {
    CACHE.with(|c| c.borrow_mut().entries.clear());
}

/// A new call is being printed: answers that may change are stale.
pub fn next_call() {
    CACHE.with(|c| c.borrow_mut().call += 1);
}

/// What socket `inode` of protocol `proto` (its `system.sockprotoname`)
/// is: `TCP:[127.0.0.1:8080->127.0.0.1:40000]`, or `PROTO:[INODE]` when
/// the kernel's tables do not hold it; `None` for a protocol no diag
/// family answers for (strace then shows the link text, `socket:[INODE]`).
pub fn describe(proto: &str, inode: u64) -> Option<String> {
    let ask = PROTOCOLS.iter().find(|(n, _)| *n == proto)?.1;
    let text = CACHE.with(|c| {
        let mut cache = c.borrow_mut();
        let call = cache.call;
        if let Some(e) = cache.entries.get(&inode)
            && (e.lasting || e.call == call)
        {
            return e.text.clone();
        }
        let (text, lasting) = lookup(&mut cache, ask, proto, inode).unwrap_or((None, false));
        cache.entries.insert(
            inode,
            Entry {
                text: text.clone(),
                lasting,
                call,
            },
        );
        text
    });
    Some(text.unwrap_or_else(|| format!("{proto}:[{inode}]")))
}

/// Ask the kernel; `None` when the sock_diag socket cannot be used.
fn lookup(cache: &mut Cache, ask: Ask, proto: &str, inode: u64) -> Option<(Option<String>, bool)> {
    if cache.socket.is_none() {
        // SAFETY: socket(2) takes no pointers; a valid fd is owned here.
        let fd = unsafe {
            libc::socket(
                libc::AF_NETLINK,
                libc::SOCK_RAW | libc::SOCK_CLOEXEC,
                NETLINK_SOCK_DIAG,
            )
        };
        if fd < 0 {
            return None;
        }
        // SAFETY: fd was just returned by socket(2) and nothing else owns it.
        cache.socket = Some(unsafe { OwnedFd::from_raw_fd(fd) });
    }
    let sock = cache.socket.as_ref()?.as_raw_fd();
    let ino32 = u32::try_from(inode).ok()?;
    let mut req = Vec::with_capacity(64);
    let (flags, body): (u16, Vec<u8>) = match ask {
        // struct inet_diag_req_v2: family, protocol, ext, pad, states, id.
        Ask::Inet(family, protocol) => {
            let mut b = vec![family, protocol, 0, 0];
            b.extend_from_slice(&u32::MAX.to_ne_bytes());
            b.extend_from_slice(&[0; 48]);
            (NLM_F_REQUEST | NLM_F_DUMP, b)
        }
        // struct unix_diag_req: family, protocol, pad, states, ino, show,
        // cookie (all ones: any).
        Ask::Unix => {
            let mut b = vec![libc::AF_UNIX as u8, 0, 0, 0];
            b.extend_from_slice(&u32::MAX.to_ne_bytes());
            b.extend_from_slice(&ino32.to_ne_bytes());
            b.extend_from_slice(&UDIAG_SHOW_NAME_PEER.to_ne_bytes());
            b.extend_from_slice(&[0xff; 8]);
            (NLM_F_REQUEST, b)
        }
        // struct netlink_diag_req: family, protocol, pad, ino, show, cookie.
        Ask::Netlink => {
            let mut b = vec![libc::AF_NETLINK as u8, NDIAG_PROTO_ALL, 0, 0];
            b.extend_from_slice(&[0; 16]);
            (NLM_F_REQUEST | NLM_F_DUMP, b)
        }
    };
    req.extend_from_slice(&((NLMSG_HDRLEN + body.len()) as u32).to_ne_bytes());
    req.extend_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
    req.extend_from_slice(&flags.to_ne_bytes());
    req.extend_from_slice(&[0; 8]);
    req.extend_from_slice(&body);
    // SAFETY: the buffer is valid for its length; the kernel is the
    // destination (a netlink socket's default).
    let sent = unsafe { libc::send(sock, req.as_ptr().cast(), req.len(), 0) };
    if sent != req.len() as isize {
        return None;
    }
    let mut found = None;
    let mut buf = vec![0u8; 32768];
    'recv: loop {
        // SAFETY: buf is valid for writes of its length.
        let n = unsafe { libc::recv(sock, buf.as_mut_ptr().cast(), buf.len(), 0) };
        if n <= 0 {
            return None;
        }
        let mut msgs = &buf[..n as usize];
        while msgs.len() >= NLMSG_HDRLEN {
            let len = u32_at(msgs, 0) as usize;
            let kind = u16::from_ne_bytes([msgs[4], msgs[5]]);
            if len < NLMSG_HDRLEN || len > msgs.len() {
                return None;
            }
            match kind {
                NLMSG_DONE => break 'recv,
                NLMSG_ERROR => break 'recv,
                SOCK_DIAG_BY_FAMILY if found.is_none() => {
                    found = answer(ask, proto, inode, &msgs[NLMSG_HDRLEN..len]);
                }
                _ => {}
            }
            msgs = &msgs[len.next_multiple_of(4).min(msgs.len())..];
        }
        // A unix request is answered by one message, without NLMSG_DONE.
        if matches!(ask, Ask::Unix) {
            break;
        }
    }
    Some(match found {
        Some((text, lasting)) => (Some(text), lasting),
        None => (None, false),
    })
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_ne_bytes(b[at..at + 4].try_into().unwrap())
}

/// One answer's text if it is about `inode`, and whether it lasts.
fn answer(ask: Ask, proto: &str, inode: u64, m: &[u8]) -> Option<(String, bool)> {
    match ask {
        Ask::Inet(..) => {
            if m.len() < INET_DIAG_MSG_SIZE || u32_at(m, 68) as u64 != inode {
                return None;
            }
            let v6 = m[0] == libc::AF_INET6 as u8;
            let port = |at: usize| u16::from_be_bytes([m[at], m[at + 1]]);
            let addr = |at: usize| -> String {
                if v6 {
                    let a: [u8; 16] = m[at..at + 16].try_into().unwrap();
                    format!("[{}]", Ipv6Addr::from(a))
                } else {
                    let a: [u8; 4] = m[at..at + 4].try_into().unwrap();
                    Ipv4Addr::from(a).to_string()
                }
            };
            let dst_len = if v6 { 16 } else { 4 };
            let connected = port(6) != 0 || m[24..24 + dst_len].iter().any(|&b| b != 0);
            let src = format!("{}:{}", addr(8), port(4));
            Some(if connected {
                let dst = format!("{}:{}", addr(24), port(6));
                // A stream's four addresses are fixed once connected; a
                // datagram socket may connect elsewhere.
                (format!("{proto}:[{src}->{dst}]"), proto.starts_with("TCP"))
            } else {
                (format!("{proto}:[{src}]"), false)
            })
        }
        Ask::Unix => {
            if m.len() < UNIX_DIAG_MSG_SIZE || u32_at(m, 4) as u64 != inode {
                return None;
            }
            let (mut name, mut peer) = (None, 0u32);
            let mut attrs = &m[UNIX_DIAG_MSG_SIZE..];
            while attrs.len() >= 4 {
                let len = u16::from_ne_bytes([attrs[0], attrs[1]]) as usize;
                let kind = u16::from_ne_bytes([attrs[2], attrs[3]]);
                if len < 4 || len > attrs.len() {
                    break;
                }
                let data = &attrs[4..len];
                match kind {
                    UNIX_DIAG_NAME if name.is_none() => name = Some(data.to_vec()),
                    UNIX_DIAG_PEER if data.len() >= 4 => peer = u32_at(data, 0),
                    _ => {}
                }
                attrs = &attrs[len.next_multiple_of(4).min(attrs.len())..];
            }
            if peer == 0 && name.is_none() {
                return None;
            }
            let mut text = format!("{proto}:[{inode}");
            if peer != 0 {
                text.push_str(&format!("->{peer}"));
            }
            if let Some(name) = &name {
                text.push(',');
                // An abstract name starts with a NUL: strace writes `@`.
                let shown = match name.split_first() {
                    Some((0, rest)) => {
                        text.push('@');
                        rest
                    }
                    _ => &name[..],
                };
                let end = shown.iter().position(|&b| b == 0).unwrap_or(shown.len());
                text.push('"');
                crate::escape::c_escape(&shown[..end], true, &mut text);
                text.push('"');
            }
            text.push(']');
            // A stream's peer and a bound name stay; a datagram socket may
            // connect elsewhere.
            Some((text, proto == "UNIX-STREAM" && peer != 0))
        }
        Ask::Netlink => {
            if m.len() < NETLINK_DIAG_MSG_SIZE || u32_at(m, 16) as u64 != inode {
                return None;
            }
            let portid = u32_at(m, 4);
            let text = match NETLINK_PROTOS.iter().find(|(v, _)| *v == m[2] as i64) {
                Some((_, n)) => {
                    format!(
                        "{proto}:[{}:{portid}]",
                        n.strip_prefix("NETLINK_").unwrap_or(n)
                    )
                }
                None => format!("{proto}:[{}]", m[2]),
            };
            // Only a bound socket is in the table, and its port id stays.
            Some((text, true))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connected_tcp_socket_shows_both_ends() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let c = std::net::TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let ino = |fd: i32| {
            let link = std::fs::read_link(format!("/proc/self/fd/{fd}")).unwrap();
            let s = link.to_string_lossy().into_owned();
            s["socket:[".len()..s.len() - 1].parse::<u64>().unwrap()
        };
        let text = describe("TCP", ino(c.as_raw_fd())).unwrap();
        let want = format!(
            "TCP:[{}->{}]",
            c.local_addr().unwrap(),
            c.peer_addr().unwrap()
        );
        assert_eq!(text, want);
        assert_eq!(
            describe("TCP", ino(l.as_raw_fd())).unwrap(),
            format!("TCP:[{}]", l.local_addr().unwrap())
        );
        assert_eq!(describe("PACKET", 1), None);
        assert_eq!(describe("UDP", 1).unwrap(), "UDP:[1]");
    }
}
