//! Address families, IP protocols and ports: the pieces of a socket
//! address that the socket calls (`net.rs`, `sockopt.rs`) and the netlink
//! decoders (`netlink/route.rs`, `netlink/diag.rs`) share. They live here,
//! below all of them, so no decoder imports another's module for them.

use crate::abi::xlat::net::FAMILIES;
use crate::format::Printer;
use crate::service::raw::{put_composed, put_named};

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
