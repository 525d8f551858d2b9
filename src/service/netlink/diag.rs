//! sock_diag payloads (NETLINK_SOCK_DIAG): an inet_diag request (`struct
//! inet_diag_req_v2` and INET_DIAG_REQ_* attributes), what the kernel
//! answers (`struct inet_diag_msg` and INET_DIAG_* attributes); unix,
//! packet and netlink diag in `diag_local.rs`. Other families show their
//! payload as bytes.

use super::consts::*;
use super::{Attrs, Msg, Val, num, put_attrs, put_bit_names, put_bytes, put_ip};
use super::{put_struct, u16_at};
use crate::abi::xlat::net::{FAMILIES, IPPROTOS};
use crate::format::Printer;
use crate::service::family::{put_family, put_port};
use crate::service::raw::lookup;

/// The payload of a SOCK_DIAG_BY_FAMILY or SOCK_DESTROY message.
pub(super) fn payload(p: &mut Printer, msg: Msg, b: &[u8]) {
    let family = b
        .first()
        .map_or("", |&f| lookup(FAMILIES, f as i64).unwrap_or(""));
    if let Some(other) = super::diag_local::family_of(family) {
        return super::diag_local::payload(p, msg, b, other);
    }
    if !matches!(family, "AF_INET" | "AF_INET6") {
        return super::put_family_data(p, b);
    }
    let v6 = family == "AF_INET6";
    // SOCK_DIAG_BY_FAMILY asks with `struct inet_diag_req_v2`, the older
    // TCPDIAG_GETSOCK and DCCPDIAG_GETSOCK with `struct inet_diag_req`;
    // the answers are `struct inet_diag_msg`.
    let old = matches!(
        msg.type_name(),
        Some("TCPDIAG_GETSOCK" | "DCCPDIAG_GETSOCK")
    );
    let (layout, attrs) = match (msg.has_flag("NLM_F_REQUEST"), old) {
        (true, false) => (&INET_DIAG_REQ_V2, &REQ_ATTRS),
        (true, true) => (&INET_DIAG_REQ, &REQ_ATTRS),
        (false, _) => (&INET_DIAG_MSG, &MSG_ATTRS),
    };
    if b.len() < layout.size {
        return put_bytes(p, "", b);
    }
    put_struct(p, "", layout, b, &mut |p, f, v| {
        let n = num(f, v);
        match f.name {
            "sdiag_family" | "idiag_family" => put_family(p, f.name, n as i64),
            "sdiag_protocol" => p.symbol(f.name, n as i64, lookup(IPPROTOS, n as i64)),
            "idiag_ext" => put_bit_names(p, f.name, n, INET_DIAG_TYPES, true),
            "idiag_states" => put_bit_names(p, f.name, n, TCP_STATES, false),
            "idiag_state" => p.symbol(f.name, n as i64, lookup(TCP_STATES, n as i64)),
            "id" => put_sockid(p, f.name, v, v6),
            _ => return false,
        }
        true
    });
    let rest = b.get(super::align(layout.size)..).unwrap_or(&[]);
    if !rest.is_empty() {
        put_attrs(p, rest, attrs, 0);
    }
}

/// `struct inet_diag_sockid`: ports in network order, addresses of the
/// message's family.
fn put_sockid(p: &mut Printer, name: &str, v: &[u8], v6: bool) {
    put_struct(p, name, &INET_DIAG_SOCKID, v, &mut |p, f, v| {
        match f.name {
            "idiag_sport" | "idiag_dport" => put_port(p, f.name, u16_at(v, 0)),
            "idiag_if" => p.ifindex(f.name, super::num(f, v) as u32),
            "idiag_src" | "idiag_dst" => put_ip(p, f.name, &v[..if v6 { 16 } else { 4 }]),
            _ => return false,
        }
        true
    });
}

/// INET_DIAG_REQ_* attributes of a request.
static REQ_ATTRS: Attrs = Attrs {
    names: INET_DIAG_REQ_TYPES,
    kind: |name| match name {
        "INET_DIAG_REQ_PROTOCOL" => Val::Enum(IPPROTOS),
        "INET_DIAG_REQ_BYTECODE" => Val::CustomCut(put_bytecode),
        _ => Val::Bytes,
    },
};

/// INET_DIAG_* attributes of an answer.
static MSG_ATTRS: Attrs = Attrs {
    names: INET_DIAG_TYPES,
    kind: |name| match name {
        "INET_DIAG_MEMINFO" => Val::Struct(&INET_DIAG_MEMINFO),
        "INET_DIAG_CONG" => Val::Str,
        "INET_DIAG_TOS" | "INET_DIAG_TCLASS" | "INET_DIAG_SHUTDOWN" | "INET_DIAG_SKV6ONLY" => {
            Val::U8
        }
        "INET_DIAG_PROTOCOL" => Val::Enum(IPPROTOS),
        "INET_DIAG_MARK" | "INET_DIAG_CLASS_ID" => Val::U32,
        "INET_DIAG_CGROUP_ID" => Val::U64,
        "INET_DIAG_SKMEMINFO" => Val::Array(&super::Indexed {
            names: SK_MEMINFO,
            size: 4,
            signed: false,
            from_one: false,
        }),
        "INET_DIAG_SOCKOPT" => Val::Bits(INET_DIAG_SOCKOPT_BITS),
        _ => Val::Bytes,
    },
};

/// INET_DIAG_REQ_BYTECODE: the first operation (`{code=INET_DIAG_BC_S_COND,
/// yes=0, no=0}`) and what its code says follows it: a host condition, an
/// interface, a mark condition, or the operation holding a port; other
/// bytes as bytes, as strace shows them. A part the unreadable memory
/// cuts is its address.
fn put_bytecode(p: &mut Printer, v: &[u8]) {
    let op = INET_DIAG_BC_OP.size;
    if v.len() < op {
        return put_cut_or_bytes(p, "", v);
    }
    let code = v[0] as i64;
    put_struct(p, "", &INET_DIAG_BC_OP, v, &mut |p, f, b| {
        f.name == "code" && {
            p.symbol(f.name, num(f, b) as i64, lookup(INET_DIAG_BC_CODES, code));
            true
        }
    });
    let rest = &v[op..];
    if rest.is_empty() {
        return;
    }
    let (need, kind) = match lookup(INET_DIAG_BC_CODES, code).unwrap_or("") {
        "INET_DIAG_BC_S_COND" | "INET_DIAG_BC_D_COND" => (INET_DIAG_HOSTCOND.size, 0),
        "INET_DIAG_BC_DEV_COND" => (4, 1),
        "INET_DIAG_BC_S_GE" | "INET_DIAG_BC_S_LE" | "INET_DIAG_BC_D_GE" | "INET_DIAG_BC_D_LE" => {
            (op, 2)
        }
        "INET_DIAG_BC_MARK_COND" => (INET_DIAG_MARKCOND.size, 3),
        _ => return put_bytes(p, "", rest),
    };
    if rest.len() < need {
        return put_cut_or_bytes(p, "", rest);
    }
    match kind {
        0 => put_hostcond(p, rest),
        1 => p.ifindex("", super::u32_at(rest, 0)),
        2 => put_bytecode(p, &rest[..op]),
        _ => put_struct(p, "", &INET_DIAG_MARKCOND, rest, &mut |_, _, _| false),
    }
}

/// `struct inet_diag_hostcond` and the address after it, of its family.
fn put_hostcond(p: &mut Printer, v: &[u8]) {
    let family = lookup(FAMILIES, v[0] as i64).unwrap_or("");
    let addr = &v[INET_DIAG_HOSTCOND.size..];
    put_struct(p, "", &INET_DIAG_HOSTCOND, v, &mut |p, f, b| {
        match f.name {
            "family" => put_family(p, f.name, num(f, b) as i64),
            "addr" => {
                let len = match family {
                    "AF_INET" => 4,
                    "AF_INET6" => 16,
                    _ => return true,
                };
                match addr.get(..len) {
                    Some(a) => put_ip(p, f.name, a),
                    None => put_cut_or_bytes(p, f.name, addr),
                }
            }
            _ => return false,
        }
        true
    });
}

/// Bytes too few for what they should hold: their address when the
/// unreadable memory cut them, else the bytes.
fn put_cut_or_bytes(p: &mut Printer, name: &str, v: &[u8]) {
    match super::cut_at(v) {
        Some(at) => p.ptr(name, at),
        None => put_bytes(p, name, v),
    }
}
