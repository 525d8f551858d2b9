//! Address families, IP protocols and ports: the pieces of a socket
//! address that the socket calls (`net.rs`, `sockopt.rs`) and the netlink
//! decoders (`netlink/route.rs`, `netlink/diag.rs`) share. They live here,
//! below all of them, so no decoder imports another's module for them.

use crate::format::Printer;
use crate::service::raw::{put_composed, put_named};

/// `AF_*` address families from `<linux/socket.h>`.
pub const FAMILIES: &[(i64, &str)] = &[
    (0, "AF_UNSPEC"),
    (1, "AF_UNIX"),
    (2, "AF_INET"),
    (3, "AF_AX25"),
    (4, "AF_IPX"),
    (5, "AF_APPLETALK"),
    (6, "AF_NETROM"),
    (7, "AF_BRIDGE"),
    (8, "AF_ATMPVC"),
    (9, "AF_X25"),
    (10, "AF_INET6"),
    (11, "AF_ROSE"),
    (12, "AF_DECnet"),
    (13, "AF_NETBEUI"),
    (14, "AF_SECURITY"),
    (15, "AF_KEY"),
    (16, "AF_NETLINK"),
    (17, "AF_PACKET"),
    (18, "AF_ASH"),
    (19, "AF_ECONET"),
    (20, "AF_ATMSVC"),
    (21, "AF_RDS"),
    (22, "AF_SNA"),
    (23, "AF_IRDA"),
    (24, "AF_PPPOX"),
    (25, "AF_WANPIPE"),
    (26, "AF_LLC"),
    (27, "AF_IB"),
    (28, "AF_MPLS"),
    (29, "AF_CAN"),
    (30, "AF_TIPC"),
    (31, "AF_BLUETOOTH"),
    (32, "AF_IUCV"),
    (33, "AF_RXRPC"),
    (34, "AF_ISDN"),
    (35, "AF_PHONET"),
    (36, "AF_IEEE802154"),
    (37, "AF_CAIF"),
    (38, "AF_ALG"),
    (39, "AF_NFC"),
    (40, "AF_VSOCK"),
    (41, "AF_KCM"),
    (42, "AF_QIPCRTR"),
    (43, "AF_SMC"),
    (44, "AF_XDP"),
    (45, "AF_MCTP"),
];

/// `IPPROTO_*` from `<linux/in.h>` and `<linux/in6.h>`.
pub const IPPROTOS: &[(i64, &str)] = &[
    (0, "IPPROTO_IP"),
    (1, "IPPROTO_ICMP"),
    (2, "IPPROTO_IGMP"),
    (4, "IPPROTO_IPIP"),
    (6, "IPPROTO_TCP"),
    (8, "IPPROTO_EGP"),
    (12, "IPPROTO_PUP"),
    (17, "IPPROTO_UDP"),
    (22, "IPPROTO_IDP"),
    (29, "IPPROTO_TP"),
    (33, "IPPROTO_DCCP"),
    (41, "IPPROTO_IPV6"),
    (46, "IPPROTO_RSVP"),
    (47, "IPPROTO_GRE"),
    (50, "IPPROTO_ESP"),
    (51, "IPPROTO_AH"),
    (58, "IPPROTO_ICMPV6"),
    (92, "IPPROTO_MTP"),
    (94, "IPPROTO_BEETPH"),
    (98, "IPPROTO_ENCAP"),
    (103, "IPPROTO_PIM"),
    (108, "IPPROTO_COMP"),
    (132, "IPPROTO_SCTP"),
    (136, "IPPROTO_UDPLITE"),
    (137, "IPPROTO_MPLS"),
    (143, "IPPROTO_ETHERNET"),
    (255, "IPPROTO_RAW"),
    (262, "IPPROTO_MPTCP"),
];

/// An address family field.
pub fn put_family(p: &mut Printer, name: &str, family: i64) {
    put_named(p, name, family, FAMILIES);
}

/// A port in network order: `htons(80)`.
pub fn put_port(p: &mut Printer, name: &str, be: u16) {
    let port = u16::from_be(be);
    put_composed(p, name, &format!("htons({port})"), |p| {
        p.uint(name, port as u64)
    });
}
