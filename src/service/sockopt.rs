//! Socket options: level and option names, setsockopt and getsockopt with
//! their values decoded (ints, `struct linger`, timeouts, credentials,
//! names).

use crate::call::{CallClass::Normal, Handler, default_in};
use crate::call::{CallCtx, CallType, errno_name};
use crate::decode::put_fd;
use crate::format::{Naming, Printer};
use crate::service::family::{FAMILIES, IPPROTOS};
use crate::service::h;
use crate::service::net::{SOCK_TYPES, put_len_result, save_len, saved_len, ucred_fields};
use crate::service::raw::{i32_at, int_at, lookup, read_vec, time_size, u32_at};

/// Socket option levels: `SOL_SOCKET` from `<asm-generic/socket.h>`, the
/// protocol numbers from `<linux/in.h>`, the others from `<linux/socket.h>`.
pub const LEVELS: &[(i64, &str)] = &[
    (0, "SOL_IP"),
    (1, "SOL_SOCKET"),
    (6, "SOL_TCP"),
    (17, "SOL_UDP"),
    (41, "SOL_IPV6"),
    (58, "SOL_ICMPV6"),
    (255, "SOL_RAW"),
    (263, "SOL_PACKET"),
    (270, "SOL_NETLINK"),
    (279, "SOL_ALG"),
    (282, "SOL_TLS"),
    (283, "SOL_XDP"),
];

/// `SO_*` from `<asm-generic/socket.h>` (x86 uses the generic values).
const SOL_SOCKET_OPTS: &[(i64, &str)] = &[
    (1, "SO_DEBUG"),
    (2, "SO_REUSEADDR"),
    (3, "SO_TYPE"),
    (4, "SO_ERROR"),
    (5, "SO_DONTROUTE"),
    (6, "SO_BROADCAST"),
    (7, "SO_SNDBUF"),
    (8, "SO_RCVBUF"),
    (9, "SO_KEEPALIVE"),
    (10, "SO_OOBINLINE"),
    (11, "SO_NO_CHECK"),
    (12, "SO_PRIORITY"),
    (13, "SO_LINGER"),
    (14, "SO_BSDCOMPAT"),
    (15, "SO_REUSEPORT"),
    (16, "SO_PASSCRED"),
    (17, "SO_PEERCRED"),
    (18, "SO_RCVLOWAT"),
    (19, "SO_SNDLOWAT"),
    (20, "SO_RCVTIMEO_OLD"),
    (21, "SO_SNDTIMEO_OLD"),
    (22, "SO_SECURITY_AUTHENTICATION"),
    (23, "SO_SECURITY_ENCRYPTION_TRANSPORT"),
    (24, "SO_SECURITY_ENCRYPTION_NETWORK"),
    (25, "SO_BINDTODEVICE"),
    (26, "SO_ATTACH_FILTER"),
    (27, "SO_DETACH_FILTER"),
    (28, "SO_PEERNAME"),
    (29, "SO_TIMESTAMP_OLD"),
    (30, "SO_ACCEPTCONN"),
    (31, "SO_PEERSEC"),
    (32, "SO_SNDBUFFORCE"),
    (33, "SO_RCVBUFFORCE"),
    (34, "SO_PASSSEC"),
    (35, "SO_TIMESTAMPNS_OLD"),
    (36, "SO_MARK"),
    (37, "SO_TIMESTAMPING_OLD"),
    (38, "SO_PROTOCOL"),
    (39, "SO_DOMAIN"),
    (40, "SO_RXQ_OVFL"),
    (41, "SO_WIFI_STATUS"),
    (42, "SO_PEEK_OFF"),
    (43, "SO_NOFCS"),
    (44, "SO_LOCK_FILTER"),
    (45, "SO_SELECT_ERR_QUEUE"),
    (46, "SO_BUSY_POLL"),
    (47, "SO_MAX_PACING_RATE"),
    (48, "SO_BPF_EXTENSIONS"),
    (49, "SO_INCOMING_CPU"),
    (50, "SO_ATTACH_BPF"),
    (51, "SO_ATTACH_REUSEPORT_CBPF"),
    (52, "SO_ATTACH_REUSEPORT_EBPF"),
    (53, "SO_CNX_ADVICE"),
    (55, "SO_MEMINFO"),
    (56, "SO_INCOMING_NAPI_ID"),
    (57, "SO_COOKIE"),
    (59, "SO_PEERGROUPS"),
    (60, "SO_ZEROCOPY"),
    (61, "SO_TXTIME"),
    (62, "SO_BINDTOIFINDEX"),
    (63, "SO_TIMESTAMP_NEW"),
    (64, "SO_TIMESTAMPNS_NEW"),
    (65, "SO_TIMESTAMPING_NEW"),
    (66, "SO_RCVTIMEO_NEW"),
    (67, "SO_SNDTIMEO_NEW"),
    (68, "SO_DETACH_REUSEPORT_BPF"),
    (69, "SO_PREFER_BUSY_POLL"),
    (70, "SO_BUSY_POLL_BUDGET"),
    (71, "SO_NETNS_COOKIE"),
    (72, "SO_BUF_LOCK"),
    (73, "SO_RESERVE_MEM"),
    (74, "SO_TXREHASH"),
];

/// `IP_*` from `<linux/in.h>`.
const SOL_IP_OPTS: &[(i64, &str)] = &[
    (1, "IP_TOS"),
    (2, "IP_TTL"),
    (3, "IP_HDRINCL"),
    (4, "IP_OPTIONS"),
    (5, "IP_ROUTER_ALERT"),
    (6, "IP_RECVOPTS"),
    (7, "IP_RETOPTS"),
    (8, "IP_PKTINFO"),
    (9, "IP_PKTOPTIONS"),
    (10, "IP_MTU_DISCOVER"),
    (11, "IP_RECVERR"),
    (12, "IP_RECVTTL"),
    (13, "IP_RECVTOS"),
    (14, "IP_MTU"),
    (15, "IP_FREEBIND"),
    (16, "IP_IPSEC_POLICY"),
    (17, "IP_XFRM_POLICY"),
    (18, "IP_PASSSEC"),
    (19, "IP_TRANSPARENT"),
    (20, "IP_ORIGDSTADDR"),
    (21, "IP_MINTTL"),
    (22, "IP_NODEFRAG"),
    (23, "IP_CHECKSUM"),
    (24, "IP_BIND_ADDRESS_NO_PORT"),
    (25, "IP_RECVFRAGSIZE"),
    (26, "IP_RECVERR_RFC4884"),
    (32, "IP_MULTICAST_IF"),
    (33, "IP_MULTICAST_TTL"),
    (34, "IP_MULTICAST_LOOP"),
    (35, "IP_ADD_MEMBERSHIP"),
    (36, "IP_DROP_MEMBERSHIP"),
    (37, "IP_UNBLOCK_SOURCE"),
    (38, "IP_BLOCK_SOURCE"),
    (39, "IP_ADD_SOURCE_MEMBERSHIP"),
    (40, "IP_DROP_SOURCE_MEMBERSHIP"),
    (41, "IP_MSFILTER"),
    (49, "IP_MULTICAST_ALL"),
    (50, "IP_UNICAST_IF"),
];

/// `TCP_*` from `<linux/tcp.h>`.
const SOL_TCP_OPTS: &[(i64, &str)] = &[
    (1, "TCP_NODELAY"),
    (2, "TCP_MAXSEG"),
    (3, "TCP_CORK"),
    (4, "TCP_KEEPIDLE"),
    (5, "TCP_KEEPINTVL"),
    (6, "TCP_KEEPCNT"),
    (7, "TCP_SYNCNT"),
    (8, "TCP_LINGER2"),
    (9, "TCP_DEFER_ACCEPT"),
    (10, "TCP_WINDOW_CLAMP"),
    (11, "TCP_INFO"),
    (12, "TCP_QUICKACK"),
    (13, "TCP_CONGESTION"),
    (14, "TCP_MD5SIG"),
    (16, "TCP_THIN_LINEAR_TIMEOUTS"),
    (17, "TCP_THIN_DUPACK"),
    (18, "TCP_USER_TIMEOUT"),
    (19, "TCP_REPAIR"),
    (20, "TCP_REPAIR_QUEUE"),
    (21, "TCP_QUEUE_SEQ"),
    (22, "TCP_REPAIR_OPTIONS"),
    (23, "TCP_FASTOPEN"),
    (24, "TCP_TIMESTAMP"),
    (25, "TCP_NOTSENT_LOWAT"),
    (26, "TCP_CC_INFO"),
    (27, "TCP_SAVE_SYN"),
    (28, "TCP_SAVED_SYN"),
    (29, "TCP_REPAIR_WINDOW"),
    (30, "TCP_FASTOPEN_CONNECT"),
    (31, "TCP_ULP"),
    (32, "TCP_MD5SIG_EXT"),
    (33, "TCP_FASTOPEN_KEY"),
    (34, "TCP_FASTOPEN_NO_COOKIE"),
    (35, "TCP_ZEROCOPY_RECEIVE"),
    (36, "TCP_INQ"),
    (37, "TCP_TX_DELAY"),
];

/// `UDP_*` from `<linux/udp.h>`.
const SOL_UDP_OPTS: &[(i64, &str)] = &[
    (1, "UDP_CORK"),
    (100, "UDP_ENCAP"),
    (101, "UDP_NO_CHECK6_TX"),
    (102, "UDP_NO_CHECK6_RX"),
    (103, "UDP_SEGMENT"),
    (104, "UDP_GRO"),
];

/// `IPV6_*` from `<linux/in6.h>` and `<linux/ipv6.h>`.
const SOL_IPV6_OPTS: &[(i64, &str)] = &[
    (1, "IPV6_ADDRFORM"),
    (2, "IPV6_2292PKTINFO"),
    (3, "IPV6_2292HOPOPTS"),
    (4, "IPV6_2292DSTOPTS"),
    (5, "IPV6_2292RTHDR"),
    (6, "IPV6_2292PKTOPTIONS"),
    (7, "IPV6_CHECKSUM"),
    (8, "IPV6_2292HOPLIMIT"),
    (9, "IPV6_NEXTHOP"),
    (10, "IPV6_AUTHHDR"),
    (11, "IPV6_FLOWINFO"),
    (16, "IPV6_UNICAST_HOPS"),
    (17, "IPV6_MULTICAST_IF"),
    (18, "IPV6_MULTICAST_HOPS"),
    (19, "IPV6_MULTICAST_LOOP"),
    (20, "IPV6_ADD_MEMBERSHIP"),
    (21, "IPV6_DROP_MEMBERSHIP"),
    (22, "IPV6_ROUTER_ALERT"),
    (23, "IPV6_MTU_DISCOVER"),
    (24, "IPV6_MTU"),
    (25, "IPV6_RECVERR"),
    (26, "IPV6_V6ONLY"),
    (27, "IPV6_JOIN_ANYCAST"),
    (28, "IPV6_LEAVE_ANYCAST"),
    (29, "IPV6_MULTICAST_ALL"),
    (30, "IPV6_ROUTER_ALERT_ISOLATE"),
    (31, "IPV6_RECVERR_RFC4884"),
    (32, "IPV6_FLOWLABEL_MGR"),
    (33, "IPV6_FLOWINFO_SEND"),
    (34, "IPV6_IPSEC_POLICY"),
    (35, "IPV6_XFRM_POLICY"),
    (36, "IPV6_HDRINCL"),
    (49, "IPV6_RECVPKTINFO"),
    (50, "IPV6_PKTINFO"),
    (51, "IPV6_RECVHOPLIMIT"),
    (52, "IPV6_HOPLIMIT"),
    (53, "IPV6_RECVHOPOPTS"),
    (54, "IPV6_HOPOPTS"),
    (55, "IPV6_RTHDRDSTOPTS"),
    (56, "IPV6_RECVRTHDR"),
    (57, "IPV6_RTHDR"),
    (58, "IPV6_RECVDSTOPTS"),
    (59, "IPV6_DSTOPTS"),
    (60, "IPV6_RECVPATHMTU"),
    (61, "IPV6_PATHMTU"),
    (62, "IPV6_DONTFRAG"),
    (66, "IPV6_RECVTCLASS"),
    (67, "IPV6_TCLASS"),
    (70, "IPV6_AUTOFLOWLABEL"),
    (72, "IPV6_ADDR_PREFERENCES"),
    (73, "IPV6_MINHOPCOUNT"),
    (74, "IPV6_ORIGDSTADDR"),
    (75, "IPV6_TRANSPARENT"),
    (76, "IPV6_UNICAST_IF"),
    (77, "IPV6_RECVFRAGSIZE"),
    (78, "IPV6_FREEBIND"),
];

/// `PACKET_*` options from `<linux/if_packet.h>`.
const SOL_PACKET_OPTS: &[(i64, &str)] = &[
    (1, "PACKET_ADD_MEMBERSHIP"),
    (2, "PACKET_DROP_MEMBERSHIP"),
    (3, "PACKET_RECV_OUTPUT"),
    (5, "PACKET_RX_RING"),
    (6, "PACKET_STATISTICS"),
    (7, "PACKET_COPY_THRESH"),
    (8, "PACKET_AUXDATA"),
    (9, "PACKET_ORIGDEV"),
    (10, "PACKET_VERSION"),
    (11, "PACKET_HDRLEN"),
    (12, "PACKET_RESERVE"),
    (13, "PACKET_TX_RING"),
    (14, "PACKET_LOSS"),
    (15, "PACKET_VNET_HDR"),
    (16, "PACKET_TX_TIMESTAMP"),
    (17, "PACKET_TIMESTAMP"),
    (18, "PACKET_FANOUT"),
    (19, "PACKET_TX_HAS_OFF"),
    (20, "PACKET_QDISC_BYPASS"),
    (21, "PACKET_ROLLOVER_STATS"),
    (22, "PACKET_FANOUT_DATA"),
    (23, "PACKET_IGNORE_OUTGOING"),
];

/// `NETLINK_*` options from `<linux/netlink.h>`.
const SOL_NETLINK_OPTS: &[(i64, &str)] = &[
    (1, "NETLINK_ADD_MEMBERSHIP"),
    (2, "NETLINK_DROP_MEMBERSHIP"),
    (3, "NETLINK_PKTINFO"),
    (4, "NETLINK_BROADCAST_ERROR"),
    (5, "NETLINK_NO_ENOBUFS"),
    (8, "NETLINK_LISTEN_ALL_NSID"),
    (9, "NETLINK_LIST_MEMBERSHIPS"),
    (10, "NETLINK_CAP_ACK"),
    (11, "NETLINK_EXT_ACK"),
    (12, "NETLINK_GET_STRICT_CHK"),
];

const SOL_SOCKET: i64 = 1;
const SOL_TCP: i64 = 6;

/// The option names of `level`, if known.
fn options(level: i64) -> Option<&'static [(i64, &'static str)]> {
    Some(match level {
        0 => SOL_IP_OPTS,
        1 => SOL_SOCKET_OPTS,
        6 => SOL_TCP_OPTS,
        17 => SOL_UDP_OPTS,
        41 => SOL_IPV6_OPTS,
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
    let tsize = time_size(p.arch());
    match (level, opt) {
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
    (level == SOL_SOCKET && opt == 26).then_some("SO_GET_FILTER")
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
    match len {
        Some(len) if !failed => put_optval(p, "optval", c.int(1), c.int(2), c.args[3], len),
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
