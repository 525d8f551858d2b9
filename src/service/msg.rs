//! Socket messages: `struct msghdr` with its iovecs and control messages
//! (SCM_RIGHTS fds, SCM_CREDENTIALS), and sendmsg, recvmsg, sendmmsg,
//! recvmmsg.

use crate::abi::layout::extent;
use crate::abi::xlat::net::{IN_PKTINFO, MSG_FLAGS, SCM_TYPES, SOL_IP_OPTS};
use crate::call::CallData;
use crate::call::{CallClass::Normal, Handler};
use crate::call::{CallCtx, CallType};
use crate::decode::put_fd;
use crate::format::{Naming, Printer};
use crate::service::family::put_ip;
use crate::service::h;
use crate::service::net::{put_sockaddr, save_len, saved_len, ucred_fields, written_len};
use crate::service::netlink;
use crate::service::raw::lookup;
use crate::service::raw::open_returned;
use crate::service::raw::{i32_at, int_at, open_struct_dyn, read_vec, u32_at, uint_at, word_size};
use crate::service::sockopt::{put_level, put_optname};
use crate::service::time::{call_timespec_size, put_call_timespec, put_timespec_copy};

/// iovecs shown before `..` without `-v`.
const IOVECS_SHOWN: u64 = 8;
// Most iovecs the kernel takes.
use crate::abi::xlat::fs::UIO_MAXIOV;

/// An iovec array: `[{iov_base="hello", iov_len=5}]`; `limit` caps the
/// bytes shown across the buffers (what a receive returned).
/// `netlink` is the socket's netlink protocol, if it is one.
fn put_iovecs(
    p: &mut Printer,
    name: &str,
    addr: u64,
    count: u64,
    limit: Option<u64>,
    netlink: Option<u16>,
) {
    let word = word_size(p.arch());
    if addr == 0 || count > UIO_MAXIOV || p.config().values_only >= 2 {
        p.ptr(name, addr);
        return;
    }
    let Some(b) = read_vec(p, addr, count as usize * 2 * word) else {
        p.ptr(name, addr);
        return;
    };
    let shown = if p.config().verbose > 0 {
        UIO_MAXIOV
    } else {
        IOVECS_SHOWN
    };
    let mut left = limit;
    p.open(name, "[", Naming::Elements);
    for i in 0..count as usize {
        if i as u64 == shown {
            p.more();
            break;
        }
        let base = uint_at(&b, i * 2 * word, word);
        let len = uint_at(&b, i * 2 * word + word, word);
        p.open("", "{", Naming::Fields);
        let show = match left {
            Some(l) => {
                left = Some(l - len.min(l));
                len.min(l)
            }
            None => len,
        };
        netlink::put_buf_as(p, netlink, "iov_base", base, show);
        p.uint("iov_len", len);
        p.close("}");
    }
    p.close("]");
}

/// Largest control buffer decoded.
const MAX_CONTROL: u64 = 65536;
/// Control messages shown before `..` without `-v`.
const CMSGS_SHOWN: usize = 16;

/// Control messages of `len` bytes at `addr`:
/// `[{cmsg_len=20, cmsg_level=SOL_SOCKET, cmsg_type=SCM_RIGHTS, cmsg_data=[5]}]`.
fn put_cmsgs(p: &mut Printer, c: &CallCtx, name: &str, addr: u64, len: u64) {
    let word = word_size(p.arch());
    // struct cmsghdr: a size_t length, level, type; data aligned to size_t.
    let hdr = word + 8;
    if addr == 0 || len > MAX_CONTROL || p.config().values_only >= 2 {
        p.ptr(name, addr);
        return;
    }
    let Some(b) = read_vec(p, addr, len as usize) else {
        p.ptr(name, addr);
        return;
    };
    let shown = if p.config().verbose > 0 {
        usize::MAX
    } else {
        CMSGS_SHOWN
    };
    p.open(name, "[", Naming::Elements);
    let mut off = 0usize;
    let mut n = 0;
    while off + hdr <= b.len() {
        if n == shown {
            p.more();
            break;
        }
        n += 1;
        let cmsg_len = uint_at(&b, off, word) as usize;
        let level = i32_at(&b, off + word) as i64;
        let kind = i32_at(&b, off + word + 4) as i64;
        p.open("", "{", Naming::Fields);
        p.uint("cmsg_len", cmsg_len as u64);
        put_level(p, "cmsg_level", level);
        if level == 1 {
            p.symbol(
                "cmsg_type",
                kind,
                crate::service::raw::lookup(SCM_TYPES, kind),
            );
        } else {
            put_optname(p, "cmsg_type", level, kind);
        }
        if cmsg_len < hdr {
            p.close_struct(false);
            break;
        }
        let end = off.saturating_add(cmsg_len).min(b.len());
        let data = &b[off + hdr..end];
        put_cmsg_data(p, c, level, kind, data, addr + (off + hdr) as u64);
        p.close_struct(off.saturating_add(cmsg_len) <= b.len());
        off = off.saturating_add(cmsg_len.div_ceil(word).saturating_mul(word));
    }
    p.close("]");
}

/// One control message's data, by level and type.
fn put_cmsg_data(p: &mut Printer, c: &CallCtx, level: i64, kind: i64, data: &[u8], at: u64) {
    let tsize = crate::service::raw::time_size(p.arch());
    // No data, no field (as strace shows a bare IP_RETOPTS).
    if data.is_empty() {
        return;
    }
    if put_named_cmsg(p, level, kind, data, at) {
        return;
    }
    match (level, kind) {
        // SCM_RIGHTS
        (1, 1) => {
            p.open("cmsg_data", "[", Naming::Elements);
            for i in 0..data.len() / 4 {
                put_fd(p, c.fds, "", i32_at(data, i * 4) as i64);
            }
            p.close("]");
        }
        // SCM_CREDENTIALS
        (1, 2) if data.len() >= 12 => {
            p.open("cmsg_data", "{", Naming::Fields);
            ucred_fields(p, data);
            p.close("}");
        }
        // SO_TIMESTAMP_OLD (a timeval), SO_TIMESTAMPNS_OLD (a timespec)
        (1, 29 | 35) if data.len() >= 2 * tsize => {
            p.open("cmsg_data", "{", Naming::Fields);
            p.int("tv_sec", int_at(data, 0, tsize));
            let sub = if kind == 29 { "tv_usec" } else { "tv_nsec" };
            p.int(sub, int_at(data, tsize, tsize));
            p.close("}");
        }
        _ if data.len() == 4 => {
            p.open("cmsg_data", "[", Naming::Elements);
            p.int("", i32_at(data, 0) as i64);
            p.close("]");
        }
        _ => p.buf("cmsg_data", at, data.len() as u64),
    }
}

/// The control messages decoded by name: SOL_SOCKET's 64-bit timestamps
/// (SO_TIMESTAMP_NEW's `{tv_sec, tv_usec}`, SO_TIMESTAMPNS_NEW's
/// `{tv_sec, tv_nsec}`), SOL_IP's IP_PKTINFO (`struct in_pktinfo`),
/// IP_TOS (one byte), IP_RECVOPTS/IP_RETOPTS (the option bytes) and
/// IP_ORIGDSTADDR (a socket address), as strace shows them. False for the
/// rest.
fn put_named_cmsg(p: &mut Printer, level: i64, kind: i64, data: &[u8], at: u64) -> bool {
    let name = match level {
        1 => lookup(SCM_TYPES, kind),
        0 => lookup(SOL_IP_OPTS, kind),
        _ => None,
    };
    match name {
        Some(n @ ("SO_TIMESTAMP_NEW" | "SO_TIMESTAMPNS_NEW")) if data.len() >= 16 => {
            p.open("cmsg_data", "{", Naming::Fields);
            p.int("tv_sec", int_at(data, 0, 8));
            let sub = if n == "SO_TIMESTAMP_NEW" {
                "tv_usec"
            } else {
                "tv_nsec"
            };
            p.int(sub, int_at(data, 8, 8));
            p.close("}");
        }
        Some("IP_PKTINFO") if data.len() >= extent(IN_PKTINFO) => {
            p.open("cmsg_data", "{", Naming::Fields);
            for f in IN_PKTINFO {
                let v = &data[f.off..f.end()];
                if f.name == "ipi_ifindex" {
                    p.ifindex(f.name, u32_at(v, 0));
                } else if !put_ip(p, f.name, v) {
                    p.uint(f.name, f.read(data).unwrap_or(0));
                }
            }
            p.close("}");
        }
        Some("IP_TOS") => {
            p.open("cmsg_data", "[", Naming::Elements);
            put_byte(p, data[0]);
            p.close("]");
        }
        Some("IP_RECVOPTS" | "IP_RETOPTS") => {
            p.open("cmsg_data", "[", Naming::Elements);
            let limit = p.config().string_limit;
            for &byte in data.iter().take(limit) {
                put_byte(p, byte);
            }
            if data.len() > limit {
                p.more();
            }
            p.close("]");
        }
        Some("IP_ORIGDSTADDR") => put_sockaddr(p, "cmsg_data", at, data.len() as u64),
        _ => return false,
    }
    true
}

/// A byte in hex as `%#x` writes it: `0x1`, but `0`.
fn put_byte(p: &mut Printer, v: u8) {
    if v == 0 {
        p.uint("", 0);
    } else {
        p.hex("", v as u64);
    }
}

/// A `struct msghdr`: `{msg_name=..., msg_namelen=16, msg_iov=[...],
/// msg_iovlen=1, msg_control=[...], msg_controllen=24, msg_flags=0}`.
/// `limit` caps the data shown (a receive's result). `namelen_was`: the
/// msg_namelen the call was given when it is a value-result (recvmsg,
/// recvmmsg): `msg_namelen=110 => 16`, and the address is only the bytes
/// the kernel wrote.
fn put_msghdr_fields(
    p: &mut Printer,
    c: &CallCtx,
    b: &[u8],
    limit: Option<u64>,
    namelen_was: Option<u32>,
) {
    let w = word_size(p.arch());
    let name = uint_at(b, 0, w);
    let namelen = u32_at(b, w) as u64;
    if name == 0 {
        p.ptr("msg_name", 0);
    } else {
        let written = written_len(namelen_was, namelen as u32);
        put_sockaddr(p, "msg_name", name, written);
    }
    match namelen_was {
        Some(was) => p.changed("msg_namelen", was as u64, namelen),
        None => p.uint("msg_namelen", namelen),
    }
    let iovlen = uint_at(b, 3 * w, w);
    let nl = netlink::protocol(c.fds, c.int(0));
    put_iovecs(p, "msg_iov", uint_at(b, 2 * w, w), iovlen, limit, nl);
    p.uint("msg_iovlen", iovlen);
    let control = uint_at(b, 4 * w, w);
    let controllen = uint_at(b, 5 * w, w);
    if control == 0 || controllen == 0 {
        p.ptr("msg_control", control);
    } else {
        put_cmsgs(p, c, "msg_control", control, controllen);
    }
    p.uint("msg_controllen", controllen);
    p.flags("msg_flags", u32_at(b, 6 * w) as u64, MSG_FLAGS);
}

/// `sizeof(struct msghdr)` of the ABI.
fn msghdr_size(c: &CallCtx) -> usize {
    7 * word_size(c.arch)
}

fn put_msghdr(p: &mut Printer, c: &CallCtx, name: &str, addr: u64, limit: Option<u64>) {
    if let Some(b) = open_struct_dyn(p, name, addr, msghdr_size(c)) {
        put_msghdr_fields(p, c, &b, limit, saved_len(c));
        p.close_struct(true);
    }
}

/// `sendmsg(sockfd, msg, flags)`
pub fn sendmsg_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "sockfd", c.int(0));
    put_msghdr(p, c, "msg", c.args[1], None);
    p.flags("flags", c.args[2] as u32 as u64, MSG_FLAGS);
    CallType::Done
}

/// `recvmsg(sockfd, msg, flags)`: the message at leave, as received.
pub fn recvmsg_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "sockfd", c.int(0));
    // msg_namelen is a value-result: keep what the call was given.
    if c.args[1] != 0 {
        save_len(p, c, c.args[1].wrapping_add(word_size(c.arch) as u64));
    }
    CallType::NotDone
}

/// Leave half of recvmsg.
pub fn recvmsg_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    match saved_len(c) {
        Some(namelen) if failed && p.config().values_only < 2 => {
            // What the call was given and strace shows of a failed
            // receive: the name's length (the buffers hold nothing).
            p.open("msg", "{", Naming::Fields);
            p.uint("msg_namelen", namelen as u64);
            p.close_struct(false);
        }
        _ if failed => p.ptr("msg", c.args[1]),
        _ => put_msghdr(p, c, "msg", c.args[1], Some(c.result as u64)),
    }
    p.flags("flags", c.args[2] as u32 as u64, MSG_FLAGS);
    p.equals();
    p.result(c.result);
}

/// `struct mmsghdr` entries shown before `..` without `-v` (as many as
/// the other arrays show, strace's 32).
const MMSGS_SHOWN: usize = 32;
/// Most entries the kernel takes (`UIO_MAXIOV`).
const MAX_MMSGS: u64 = 1024;

/// The size of one `struct mmsghdr` of the ABI: msg_len follows the
/// msghdr, and the struct is padded to a word.
fn mmsghdr_size(c: &CallCtx) -> usize {
    let w = word_size(c.arch);
    (msghdr_size(c) + 4).div_ceil(w) * w
}

/// The first `count` entries of a `struct mmsghdr` array, as the kernel
/// left them: `[{msg_hdr={...}, msg_len=5}]`; received data is cut at each
/// entry's msg_len. `lens`: how many entries have a msg_len the call set
/// (the result; 0 for a failed sendmmsg, whose messages print as they
/// were given). `namelens`: the msg_namelen each entry was given, when
/// the call overwrote them (recvmmsg). An entry that cannot be read ends
/// the array with its address, as `decode::put_array` does (`[{...},
/// &0x7f..]`; strace `... /* 0x7f.. */`).
#[allow(clippy::too_many_arguments)]
fn put_mmsghdrs(
    p: &mut Printer,
    c: &CallCtx,
    name: &str,
    addr: u64,
    count: u64,
    lens: u64,
    recv: bool,
    namelens: &[u32],
) {
    let hdr = msghdr_size(c);
    let size = mmsghdr_size(c);
    if addr == 0 || count > MAX_MMSGS || p.config().values_only >= 2 {
        p.ptr(name, addr);
        return;
    }
    let mut b = vec![0u8; count as usize * size];
    let got = p.mem().read(addr, &mut b) / size;
    if got == 0 && count > 0 {
        p.ptr(name, addr);
        return;
    }
    let shown = if p.config().verbose > 0 {
        usize::MAX
    } else {
        MMSGS_SHOWN
    };
    // The entries read, then the first that could not be.
    let items = (count as usize).min(got + 1);
    p.open(name, "[", Naming::Elements);
    p.bounded(0..items, shown, |p, i| {
        if i == got {
            p.ptr("", addr + (i * size) as u64);
            return;
        }
        let entry = &b[i * size..(i + 1) * size];
        let msg_len = u32_at(entry, hdr) as u64;
        let has_len = (i as u64) < lens;
        p.open("", "{", Naming::Fields);
        p.open("msg_hdr", "{", Naming::Fields);
        let namelen_was = namelens.get(i).copied();
        let limit = (recv && has_len).then_some(msg_len);
        put_msghdr_fields(p, c, entry, limit, namelen_was);
        p.close("}");
        if has_len {
            p.uint("msg_len", msg_len);
        }
        p.close("}");
    });
    p.close("]");
}

/// `sendmmsg(sockfd, msgvec, vlen, flags)`, `recvmmsg(sockfd, msgvec, vlen,
/// flags, timeout)`: the messages at leave, with the lengths sent or
/// received.
pub fn mmsg_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "sockfd", c.int(0));
    CallType::NotDone
}

/// `recvmmsg(...)`: as sendmmsg, and the timeout and each message's
/// msg_namelen are copied now, since the kernel overwrites them (with the
/// time left, with each address's length).
pub fn recvmmsg_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let size = call_timespec_size(p, c);
    let timeout = (c.args[4] != 0 && p.config().values_only < 2)
        .then(|| read_vec(p, c.args[4], size))
        .flatten();
    let vlen = (c.args[2] as u32 as u64).min(MAX_MMSGS) as usize;
    let entry = mmsghdr_size(c);
    let namelen_at = word_size(c.arch);
    let namelens = match read_vec(p, c.args[1], vlen * entry).filter(|_| c.args[1] != 0) {
        Some(b) => (0..vlen)
            .map(|i| u32_at(&b, i * entry + namelen_at))
            .collect(),
        None => Vec::new(),
    };
    *c.data = CallData::Mmsg { timeout, namelens };
    mmsg_out(p, c)
}

fn mmsg_in(p: &mut Printer, c: &mut CallCtx, failed: bool, recv: bool) {
    let (given, namelens) = match &*c.data {
        CallData::Mmsg { timeout, namelens } if recv => (timeout.clone(), namelens.clone()),
        _ => (None, Vec::new()),
    };
    let sent = if failed { 0 } else { c.result as u64 };
    if failed && recv {
        p.ptr("msgvec", c.args[1]);
    } else if recv {
        put_mmsghdrs(p, c, "msgvec", c.args[1], sent, sent, true, &namelens);
    } else {
        // Every message given (the kernel takes at most UIO_MAXIOV), as
        // strace shows them: those sent with their msg_len.
        let vlen = (c.args[2] as u32 as u64).min(MAX_MMSGS);
        put_mmsghdrs(p, c, "msgvec", c.args[1], vlen, sent, false, &[]);
    }
    p.uint("vlen", c.args[2] as u32 as u64);
    p.flags("flags", c.args[3] as u32 as u64, MSG_FLAGS);
    match &given {
        Some(b) => put_timespec_copy(p, "timeout", b),
        None if recv => put_call_timespec(p, c, "timeout", c.args[4]),
        None => {}
    }
    p.equals();
    p.result(c.result);
    if given.is_some() && !failed {
        // What the kernel wrote back: the time left.
        open_returned(p);
        put_call_timespec(p, c, "left", c.args[4]);
        p.close("}");
    }
}

/// Leave half of sendmmsg.
pub fn sendmmsg_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    mmsg_in(p, c, failed, false);
}

/// Leave half of recvmmsg.
pub fn recvmmsg_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    mmsg_in(p, c, failed, true);
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("recvmmsg", recvmmsg_out, recvmmsg_in, Normal),
    h("recvmmsg_time64", recvmmsg_out, recvmmsg_in, Normal),
    h("recvmsg", recvmsg_out, recvmsg_in, Normal),
    h("sendmmsg", mmsg_out, sendmmsg_in, Normal),
    h("sendmsg", sendmsg_out, crate::call::default_in, Normal),
];
