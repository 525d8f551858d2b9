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
//! `<linux/netlink_diag.h>`: the constants, offsets and sizes come from
//! `abi::xlat::netlink` (generated, tools/abi_tables.py), never typed.

use std::cell::RefCell;
use std::collections::HashMap;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use crate::abi::layout::{Field, extent, field};
use crate::abi::xlat::net::NETLINK_PROTOS;
use crate::abi::xlat::netlink::{
    self as sd, INET_DIAG_MSG_LAYOUT as INET_MSG, INET_DIAG_REQ_V2_LAYOUT as INET_REQ,
    INET_DIAG_SOCKID_LAYOUT as SOCKID, NETLINK_DIAG_MSG_LAYOUT as NL_MSG,
    NETLINK_DIAG_REQ_LAYOUT as NL_REQ, UNIX_DIAG_MSG_LAYOUT as UNIX_MSG,
    UNIX_DIAG_REQ_LAYOUT as UNIX_REQ,
};

/// `sizeof(struct nlmsghdr)`, where a message's payload starts.
const NLMSG_HDRLEN: usize = sd::NLMSG_HDRLEN as usize;

/// The offset of field `name` of a generated layout.
fn off(layout: &[Field], name: &str) -> usize {
    field(layout, name).off
}

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
                sd::NETLINK_SOCK_DIAG as i32,
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
    let put = |b: &mut [u8], layout: &[Field], name: &str, v: &[u8]| {
        let f = field(layout, name);
        b[f.off..f.off + v.len().min(f.size)].copy_from_slice(&v[..v.len().min(f.size)]);
    };
    let request = sd::NLM_F_REQUEST as u16;
    let (flags, body): (u16, Vec<u8>) = match ask {
        // Every socket of the family and protocol in any state; the
        // answer is picked by inode.
        Ask::Inet(family, protocol) => {
            let mut b = vec![0u8; extent(INET_REQ)];
            put(&mut b, INET_REQ, "sdiag_family", &[family]);
            put(&mut b, INET_REQ, "sdiag_protocol", &[protocol]);
            put(&mut b, INET_REQ, "idiag_states", &u32::MAX.to_ne_bytes());
            (request | sd::NLM_F_DUMP as u16, b)
        }
        // One socket by inode, with its name and peer; any cookie (all ones).
        Ask::Unix => {
            let mut b = vec![0u8; extent(UNIX_REQ)];
            put(&mut b, UNIX_REQ, "sdiag_family", &[libc::AF_UNIX as u8]);
            put(&mut b, UNIX_REQ, "udiag_states", &u32::MAX.to_ne_bytes());
            put(&mut b, UNIX_REQ, "udiag_ino", &ino32.to_ne_bytes());
            let show = sd::UDIAG_SHOW_NAME | sd::UDIAG_SHOW_PEER;
            put(&mut b, UNIX_REQ, "udiag_show", &show.to_ne_bytes());
            put(&mut b, UNIX_REQ, "udiag_cookie", &[0xff; 8]);
            (request, b)
        }
        // Every netlink socket of every protocol.
        Ask::Netlink => {
            let mut b = vec![0u8; extent(NL_REQ)];
            put(&mut b, NL_REQ, "sdiag_family", &[libc::AF_NETLINK as u8]);
            put(
                &mut b,
                NL_REQ,
                "sdiag_protocol",
                &[sd::NDIAG_PROTO_ALL as u8],
            );
            (request | sd::NLM_F_DUMP as u16, b)
        }
    };
    req.extend_from_slice(&((NLMSG_HDRLEN + body.len()) as u32).to_ne_bytes());
    req.extend_from_slice(&(sd::SOCK_DIAG_BY_FAMILY as u16).to_ne_bytes());
    req.extend_from_slice(&flags.to_ne_bytes());
    req.resize(NLMSG_HDRLEN, 0);
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
            match kind as u32 {
                sd::NLMSG_DONE | sd::NLMSG_ERROR => break 'recv,
                sd::SOCK_DIAG_BY_FAMILY if found.is_none() => {
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
            if m.len() < extent(INET_MSG) || u32_at(m, off(INET_MSG, "idiag_inode")) as u64 != inode
            {
                return None;
            }
            let v6 = m[off(INET_MSG, "idiag_family")] == libc::AF_INET6 as u8;
            // The socket's addresses, inside the answer's `id`.
            let id = off(INET_MSG, "id");
            let (sport, dport) = (
                id + off(SOCKID, "idiag_sport"),
                id + off(SOCKID, "idiag_dport"),
            );
            let (src, dst) = (id + off(SOCKID, "idiag_src"), id + off(SOCKID, "idiag_dst"));
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
            let connected = port(dport) != 0 || m[dst..dst + dst_len].iter().any(|&b| b != 0);
            let src = format!("{}:{}", addr(src), port(sport));
            Some(if connected {
                let dst = format!("{}:{}", addr(dst), port(dport));
                // A stream's four addresses are fixed once connected; a
                // datagram socket may connect elsewhere.
                (format!("{proto}:[{src}->{dst}]"), proto.starts_with("TCP"))
            } else {
                (format!("{proto}:[{src}]"), false)
            })
        }
        Ask::Unix => {
            if m.len() < extent(UNIX_MSG) || u32_at(m, off(UNIX_MSG, "udiag_ino")) as u64 != inode {
                return None;
            }
            let (mut name, mut peer) = (None, 0u32);
            let mut attrs = &m[extent(UNIX_MSG)..];
            while attrs.len() >= 4 {
                let len = u16::from_ne_bytes([attrs[0], attrs[1]]) as usize;
                let kind = u16::from_ne_bytes([attrs[2], attrs[3]]);
                if len < 4 || len > attrs.len() {
                    break;
                }
                let data = &attrs[4..len];
                match kind as u32 {
                    sd::UNIX_DIAG_NAME if name.is_none() => name = Some(data.to_vec()),
                    sd::UNIX_DIAG_PEER if data.len() >= 4 => peer = u32_at(data, 0),
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
            if m.len() < extent(NL_MSG) || u32_at(m, off(NL_MSG, "ndiag_ino")) as u64 != inode {
                return None;
            }
            let portid = u32_at(m, off(NL_MSG, "ndiag_portid"));
            let protocol = m[off(NL_MSG, "ndiag_protocol")];
            let text = match NETLINK_PROTOS.iter().find(|(v, _)| *v == protocol as i64) {
                Some((_, n)) => {
                    format!(
                        "{proto}:[{}:{portid}]",
                        n.strip_prefix("NETLINK_").unwrap_or(n)
                    )
                }
                None => format!("{proto}:[{protocol}]"),
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
