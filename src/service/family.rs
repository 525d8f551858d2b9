//! Address families, IP protocols, link-layer protocols, ports and IP addresses: the pieces of a socket
//! address that the socket calls (`net.rs`, `sockopt.rs`) and the netlink
//! decoders (`netlink/route.rs`, `netlink/diag.rs`) share. They live here,
//! below all of them, so no decoder imports another's module for them.

use std::net::{Ipv4Addr, Ipv6Addr};

use crate::abi::xlat::net::{ETH_PROTOS, FAMILIES};
use crate::format::Printer;
use crate::service::raw::{lookup, put_composed, put_named};

/// A link-layer protocol in network order: `htons(ETH_P_ALL)` (a packet
/// socket's, a bridge's VLAN protocol).
pub fn put_eth_proto(p: &mut Printer, name: &str, be: u16) {
    let host = u16::from_be(be);
    let sym = lookup(ETH_PROTOS, host as i64);
    // The protocol as -X spells it: `htons(0x3 /* ETH_P_ALL */)`.
    let text = format!("htons({})", p.spelling(&format!("{host:#x}"), sym));
    put_composed(p, name, &text, |p| p.symbol(name, host as i64, sym));
}

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

/// An IP address of 4 or 16 bytes: `inet_addr("127.0.0.1")`,
/// `inet_pton(AF_INET6, "::1")` (in JSON the address as a string); false
/// for any other length, which the caller shows otherwise.
pub fn put_ip(p: &mut Printer, name: &str, b: &[u8]) -> bool {
    let (ip, text) = match b.len() {
        4 => {
            let ip = Ipv4Addr::from([b[0], b[1], b[2], b[3]]).to_string();
            let text = format!("inet_addr(\"{ip}\")");
            (ip, text)
        }
        16 => {
            let mut raw = [0u8; 16];
            raw.copy_from_slice(b);
            let ip = Ipv6Addr::from(raw).to_string();
            let text = format!("inet_pton(AF_INET6, \"{ip}\")");
            (ip, text)
        }
        _ => return false,
    };
    put_composed(p, name, &text, |p| p.string(name, ip.as_bytes(), false));
    true
}

/// A hardware address: `00:11:22:33:44:55`; under `-X raw` the bytes as
/// strace shows them (`"\x00\x11..."`), under `-X verbose` both; in JSON
/// the colon form.
pub fn put_mac(p: &mut Printer, name: &str, v: &[u8]) {
    // No address (a zero length): nothing after the `=`, as strace shows
    // it, in every style.
    if v.is_empty() {
        return put_composed(p, name, "", |p| p.string(name, v, false));
    }
    let text: Vec<String> = v.iter().map(|b| format!("{b:02x}")).collect();
    let text = text.join(":");
    let json = serde_json::Value::String(text.clone());
    p.spelled(name, &crate::format::quote(v, false), &text, || json);
}
