//! sock_diag payloads of the families that are not IP (NETLINK_SOCK_DIAG
//! asked about AF_UNIX, AF_PACKET, AF_NETLINK, AF_VSOCK or AF_XDP
//! sockets, as `ss -x`, `ss -0`, `ss -A netlink`, `ss -a` ask): the
//! request (`struct unix_diag_req`, `packet_diag_req`, ...), the answer
//! (`unix_diag_msg`, ...) and the answer's UNIX_DIAG_*, PACKET_DIAG_*,
//! NETLINK_DIAG_* or XDP_DIAG_* attributes, spelled as strace does.

use super::consts::*;
use super::put_struct;
use super::{Attrs, Field, Indexed, Layout, Msg, Val, num, put_attrs, put_bit_names, put_bytes};
use crate::abi::xlat::net::{
    ETH_PROTOS, NETLINK_PROTOS, PACKET_MR_TYPES, SOCK_TYPES, TPACKET_VERSIONS,
};
use crate::format::Printer;
use crate::service::family::put_family;
use crate::service::raw::lookup;

/// Which of these families a message is about.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Family {
    /// AF_UNIX: unix_diag.
    Unix,
    /// AF_PACKET: packet_diag.
    Packet,
    /// AF_NETLINK: netlink_diag.
    Netlink,
    /// AF_VSOCK: vsock_diag (no attributes).
    Vsock,
    /// AF_XDP: xdp_diag.
    Xdp,
}

/// The payload of a SOCK_DIAG_BY_FAMILY message about `family`: a
/// request's struct when it is one (NLM_F_REQUEST), else an answer's
/// struct and attributes.
pub(super) fn payload(p: &mut Printer, msg: Msg, b: &[u8], family: Family) {
    let request = msg.has_flag("NLM_F_REQUEST");
    let (layout, attrs): (&Layout, Option<&Attrs>) = match (family, request) {
        (Family::Unix, true) => (&UNIX_DIAG_REQ, None),
        (Family::Unix, false) => (&UNIX_DIAG_MSG, Some(&UNIX_ATTRS)),
        (Family::Packet, true) => (&PACKET_DIAG_REQ, None),
        (Family::Packet, false) => (&PACKET_DIAG_MSG, Some(&PACKET_ATTRS)),
        (Family::Netlink, true) => (&NETLINK_DIAG_REQ, None),
        (Family::Netlink, false) => (&NETLINK_DIAG_MSG, Some(&NETLINK_ATTRS)),
        (Family::Vsock, true) => (&VSOCK_DIAG_REQ, None),
        (Family::Vsock, false) => (&VSOCK_DIAG_MSG, None),
        (Family::Xdp, true) => (&XDP_DIAG_REQ, None),
        (Family::Xdp, false) => (&XDP_DIAG_MSG, Some(&XDP_ATTRS)),
    };
    if b.len() < layout.size {
        return put_bytes(p, "", b);
    }
    put_struct(p, "", layout, b, &mut |p, f, v| {
        let n = num(f, v);
        let i = n as i64;
        match f.name {
            "sdiag_family" | "udiag_family" | "pdiag_family" | "ndiag_family" | "vdiag_family"
            | "xdiag_family" => put_family(p, f.name, i),
            // A netlink_diag request names the protocol (or every one); the
            // other families' requests carry 0.
            "sdiag_protocol" if family == Family::Netlink => {
                let name = lookup(NETLINK_PROTOS, i).or_else(|| lookup(NDIAG_PROTOS, i));
                p.symbol(f.name, i, name);
            }
            "ndiag_protocol" => p.symbol(f.name, i, lookup(NETLINK_PROTOS, i)),
            "udiag_states" | "vdiag_states" => put_bit_names(p, f.name, n, TCP_STATES, false),
            // NETLINK_CONNECTED, or the TCP_CLOSE a socket starts with
            // (the kernel's sock_init_data) while it is not connected.
            "ndiag_state" => {
                let name = lookup(NETLINK_SK_STATES, i);
                p.symbol(f.name, i, name.or_else(|| lookup(TCP_STATES, i)))
            }
            "udiag_state" | "vdiag_state" => p.symbol(f.name, i, lookup(TCP_STATES, i)),
            "udiag_type" | "pdiag_type" | "ndiag_type" | "vdiag_type" | "xdiag_type" => {
                p.flags(f.name, n, SOCK_TYPES)
            }
            "xdiag_show" => p.flags(f.name, n, XDP_SHOW_FLAGS),
            "udiag_show" => p.flags(f.name, n, UDIAG_SHOW_FLAGS),
            "pdiag_show" => p.flags(f.name, n, PACKET_SHOW_FLAGS),
            "ndiag_show" => p.flags(f.name, n, NDIAG_SHOW_FLAGS),
            // The protocol in host order, unlike sll_protocol.
            "pdiag_num" => p.symbol(f.name, i, lookup(ETH_PROTOS, i)),
            _ => return false,
        }
        true
    });
    let rest = b.get(super::align(layout.size)..).unwrap_or(&[]);
    if let Some(attrs) = attrs
        && !rest.is_empty()
    {
        put_attrs(p, rest, attrs, 0);
    }
}

/// An answer's socket memory counters (`SK_MEMINFO_*`), in every family.
static MEMINFO: Val = Val::Array(&Indexed {
    names: SK_MEMINFO,
    size: 4,
    signed: false,
    from_one: false,
});

/// UNIX_DIAG_* attributes of an answer.
static UNIX_ATTRS: Attrs = Attrs {
    names: UNIX_DIAG_ATTRS,
    kind: |name| match name {
        // A path, or an abstract name that starts with a NUL: its bytes.
        "UNIX_DIAG_NAME" => Val::Bytes,
        "UNIX_DIAG_VFS" => Val::StructWith(&UNIX_DIAG_VFS, |p, f, v, _| {
            f.name == "udiag_vfs_dev" && {
                crate::decode::put_dev(p, f.name, super::num(f, v));
                true
            }
        }),
        "UNIX_DIAG_ICONS" => Val::Nums {
            size: 4,
            hex: false,
        },
        "UNIX_DIAG_PEER" | "UNIX_DIAG_UID" => Val::U32,
        "UNIX_DIAG_RQLEN" => Val::Struct(&UNIX_DIAG_RQLEN),
        "UNIX_DIAG_MEMINFO" => MEMINFO,
        "UNIX_DIAG_SHUTDOWN" => Val::U8,
        _ => Val::Bytes,
    },
};

/// PACKET_DIAG_* attributes of an answer.
static PACKET_ATTRS: Attrs = Attrs {
    names: PACKET_DIAG_ATTRS,
    kind: |name| match name {
        "PACKET_DIAG_INFO" => Val::StructWith(&PACKET_DIAG_INFO, packet_field),
        "PACKET_DIAG_MCLIST" => Val::Structs(&PACKET_DIAG_MCLIST, packet_field),
        "PACKET_DIAG_FILTER" => Val::Insns,
        "PACKET_DIAG_RX_RING" | "PACKET_DIAG_TX_RING" => Val::Struct(&PACKET_DIAG_RING),
        "PACKET_DIAG_FANOUT" | "PACKET_DIAG_UID" => Val::U32,
        "PACKET_DIAG_MEMINFO" => MEMINFO,
        _ => Val::Bytes,
    },
};

/// The fields of packet_diag's structs that are not plain numbers.
fn packet_field(p: &mut Printer, f: &Field, v: &[u8], whole: &[u8]) -> bool {
    let n = num(f, v);
    match f.name {
        "pdi_index" | "pdmc_index" => p.ifindex(f.name, n as u32),
        "pdi_version" => p.symbol(f.name, n as i64, lookup(TPACKET_VERSIONS, n as i64)),
        "pdi_flags" => p.flags(f.name, n, PDI_FLAGS),
        "pdmc_type" => p.symbol(f.name, n as i64, lookup(PACKET_MR_TYPES, n as i64)),
        // The address's pdmc_alen bytes, in hex as strace shows them.
        "pdmc_addr" => {
            let alen = PACKET_DIAG_MCLIST
                .fields
                .iter()
                .find(|a| a.name == "pdmc_alen");
            let len = alen
                .and_then(|a| Some(num(a, whole.get(a.off..a.off + a.size)?) as usize))
                .unwrap_or(0);
            let addr = &v[..len.min(v.len())];
            let text: String = addr.iter().map(|b| format!("\\x{b:02x}")).collect();
            let text = format!("\"{text}\"");
            crate::service::raw::put_composed(p, f.name, &text, |p| p.string(f.name, addr, false));
        }
        _ => return false,
    }
    true
}

/// NETLINK_DIAG_* attributes of an answer.
static NETLINK_ATTRS: Attrs = Attrs {
    names: NETLINK_DIAG_ATTRS,
    kind: |name| match name {
        "NETLINK_DIAG_MEMINFO" => MEMINFO,
        "NETLINK_DIAG_RX_RING" | "NETLINK_DIAG_TX_RING" => Val::Struct(&NETLINK_DIAG_RING),
        "NETLINK_DIAG_FLAGS" => Val::Flags(NDIAG_FLAGS),
        "NETLINK_DIAG_GROUPS" => Val::Nums { size: 8, hex: true },
        _ => Val::Bytes,
    },
};

/// XDP_DIAG_* attributes of an answer.
static XDP_ATTRS: Attrs = Attrs {
    names: XDP_DIAG_ATTRS,
    kind: |name| match name {
        "XDP_DIAG_INFO" => Val::StructWith(&XDP_DIAG_INFO, xdp_field),
        "XDP_DIAG_UID" => Val::U32,
        "XDP_DIAG_RX_RING"
        | "XDP_DIAG_TX_RING"
        | "XDP_DIAG_UMEM_FILL_RING"
        | "XDP_DIAG_UMEM_COMPLETION_RING" => Val::Struct(&XDP_DIAG_RING),
        "XDP_DIAG_UMEM" => Val::StructWith(&XDP_DIAG_UMEM, xdp_field),
        "XDP_DIAG_MEMINFO" => MEMINFO,
        "XDP_DIAG_STATS" => Val::Struct(&XDP_DIAG_STATS),
        _ => Val::Bytes,
    },
};

/// The fields of xdp_diag's structs that are not plain numbers.
fn xdp_field(p: &mut Printer, f: &Field, v: &[u8], _: &[u8]) -> bool {
    let n = num(f, v);
    match f.name {
        "ifindex" => p.ifindex(f.name, n as u32),
        "flags" => p.flags(f.name, n, XDP_DU_FLAGS),
        _ => return false,
    }
    true
}

/// Which of these families the payload's first byte names, if any.
pub(super) fn family_of(name: &str) -> Option<Family> {
    match name {
        "AF_UNIX" => Some(Family::Unix),
        "AF_PACKET" => Some(Family::Packet),
        "AF_NETLINK" => Some(Family::Netlink),
        "AF_VSOCK" => Some(Family::Vsock),
        "AF_XDP" => Some(Family::Xdp),
        _ => None,
    }
}
