//! A link's nested statistics and virtual-function attributes, as
//! strace shows them: an RTM_*STATS message's IFLA_STATS_* (the 64-bit
//! counters, a bridge's or bond's extended statistics, the offload and
//! per-family ones), a link message's IFLA_VFINFO_LIST (each SR-IOV
//! virtual function's `struct ifla_vf_*` settings and counters) and its
//! IFLA_VF_PORTS / IFLA_PORT_SELF (port profiles, IFLA_PORT_*). The
//! names and layouts are generated from `<linux/if_link.h>`,
//! `<linux/if_bridge.h>`, `<linux/if_bonding.h>` and `<linux/mpls.h>`.

use super::consts::*;
use super::{Attrs, Field, Val, num, put_bytes};
use crate::abi::xlat::net::{ETH_PROTOS, FAMILIES};
use crate::format::{Naming, Printer};
use crate::service::raw::{lookup, put_composed, uint_at};

/// IFLA_STATS_* attributes of a stats message.
pub(super) static STATS_ATTRS: Attrs = Attrs {
    names: IFLA_STATS_TYPES,
    kind: |name| match name {
        "IFLA_STATS_LINK_64" => Val::StructSince(&RTNL_LINK_STATS64, "tx_compressed"),
        "IFLA_STATS_LINK_XSTATS" | "IFLA_STATS_LINK_XSTATS_SLAVE" => Val::Nested(&XSTATS_ATTRS),
        "IFLA_STATS_LINK_OFFLOAD_XSTATS" => Val::Nested(&OFFLOAD_XSTATS_ATTRS),
        "IFLA_STATS_AF_SPEC" => Val::Nested(&STATS_AF_SPEC),
        _ => Val::Bytes,
    },
};

/// LINK_XSTATS_TYPE_*: the extended statistics of a link's type.
static XSTATS_ATTRS: Attrs = Attrs {
    names: LINK_XSTATS_TYPES,
    kind: |name| match name {
        "LINK_XSTATS_TYPE_BRIDGE" => Val::Nested(&BRIDGE_XSTATS_ATTRS),
        "LINK_XSTATS_TYPE_BOND" => Val::Nested(&BOND_XSTATS_ATTRS),
        _ => Val::Bytes,
    },
};

/// BRIDGE_XSTATS_*: per-VLAN, multicast and STP counters. A payload
/// longer than its struct shows the rest as bytes after it, as strace
/// shows it.
static BRIDGE_XSTATS_ATTRS: Attrs = Attrs {
    names: BRIDGE_XSTATS_TYPES,
    kind: |name| match name {
        "BRIDGE_XSTATS_VLAN" => Val::StructTail(&BRIDGE_VLAN_XSTATS, vlan_xstats_field),
        "BRIDGE_XSTATS_MCAST" => Val::StructTail(&BR_MCAST_STATS, mcast_field),
        "BRIDGE_XSTATS_STP" => Val::StructTail(&BRIDGE_STP_XSTATS, |_, _, _, _| false),
        _ => Val::Bytes,
    },
};

/// `struct bridge_vlan_xstats`' flags, and its padding in hex (strace
/// shows it).
fn vlan_xstats_field(p: &mut Printer, f: &Field, v: &[u8], _: &[u8]) -> bool {
    match f.name {
        "flags" => p.flags(f.name, num(f, v), BRIDGE_VLAN_INFO_FLAGS),
        "pad2" => p.hex(f.name, num(f, v)),
        _ => return false,
    }
    true
}

/// `struct br_mcast_stats`' arrays, indexed by direction:
/// `[[BR_MCAST_DIR_RX]=1, [BR_MCAST_DIR_TX]=2]`.
fn mcast_field(p: &mut Printer, f: &Field, v: &[u8], _: &[u8]) -> bool {
    if f.count == 1 {
        return false;
    }
    p.open(f.name, "[", Naming::Fields);
    for i in 0..f.count {
        let index = format!(
            "[{}]",
            p.spelling(&i.to_string(), lookup(BR_MCAST_DIRS, i as i64))
        );
        p.uint(&index, uint_at(v, i * f.size, f.size));
    }
    p.close("]");
    true
}

/// BOND_XSTATS_*.
static BOND_XSTATS_ATTRS: Attrs = Attrs {
    names: BOND_XSTATS_TYPES,
    kind: |name| match name {
        "BOND_XSTATS_3AD" => Val::Nested(&BOND_3AD_ATTRS),
        _ => Val::Bytes,
    },
};

/// BOND_3AD_STAT_*: 802.3ad counters, 64-bit.
static BOND_3AD_ATTRS: Attrs = Attrs {
    names: BOND_3AD_STAT_TYPES,
    kind: |name| match name {
        "BOND_3AD_STAT_PAD" => Val::Bytes,
        _ => Val::U64,
    },
};

/// IFLA_OFFLOAD_XSTATS_*.
static OFFLOAD_XSTATS_ATTRS: Attrs = Attrs {
    names: IFLA_OFFLOAD_XSTATS_TYPES,
    kind: |name| match name {
        "IFLA_OFFLOAD_XSTATS_CPU_HIT" => Val::StructSince(&RTNL_LINK_STATS64, "tx_compressed"),
        _ => Val::Bytes,
    },
};

/// IFLA_STATS_AF_SPEC: one attribute per address family; AF_MPLS's are
/// MPLS_STATS_*, the others bytes.
static STATS_AF_SPEC: Attrs = Attrs {
    names: FAMILIES,
    kind: |name| match name {
        "AF_MPLS" => Val::Nested(&MPLS_STATS_ATTRS),
        _ => Val::Bytes,
    },
};

/// MPLS_STATS_*.
static MPLS_STATS_ATTRS: Attrs = Attrs {
    names: MPLS_STATS_TYPES,
    kind: |name| match name {
        "MPLS_STATS_LINK" => Val::StructTail(&MPLS_LINK_STATS, |_, _, _, _| false),
        _ => Val::Bytes,
    },
};

/// IFLA_VFINFO_LIST: one IFLA_VF_INFO per virtual function.
pub(super) static VFINFO_LIST_ATTRS: Attrs = Attrs {
    names: IFLA_VFINFO_LIST_TYPES,
    kind: |name| match name {
        "IFLA_VF_INFO" => Val::Nested(&VF_ATTRS),
        _ => Val::Bytes,
    },
};

/// IFLA_VF_*: a virtual function's settings, each a `struct ifla_vf_*`
/// that starts with the function's number.
static VF_ATTRS: Attrs = Attrs {
    names: IFLA_VF_TYPES,
    kind: |name| match name {
        "IFLA_VF_MAC" => Val::StructWith(&IFLA_VF_MAC, vf_field),
        "IFLA_VF_BROADCAST" => Val::StructWith(&IFLA_VF_BROADCAST, vf_field),
        "IFLA_VF_VLAN" => Val::Struct(&IFLA_VF_VLAN),
        "IFLA_VF_TX_RATE" => Val::Struct(&IFLA_VF_TX_RATE),
        "IFLA_VF_RATE" => Val::Struct(&IFLA_VF_RATE),
        "IFLA_VF_SPOOFCHK" => Val::Struct(&IFLA_VF_SPOOFCHK),
        "IFLA_VF_RSS_QUERY_EN" => Val::Struct(&IFLA_VF_RSS_QUERY_EN),
        "IFLA_VF_TRUST" => Val::Struct(&IFLA_VF_TRUST),
        "IFLA_VF_LINK_STATE" => Val::StructWith(&IFLA_VF_LINK_STATE, vf_field),
        "IFLA_VF_IB_NODE_GUID" | "IFLA_VF_IB_PORT_GUID" => Val::StructWith(&IFLA_VF_GUID, vf_field),
        "IFLA_VF_STATS" => Val::Nested(&VF_STATS_ATTRS),
        "IFLA_VF_VLAN_LIST" => Val::Nested(&VF_VLAN_LIST_ATTRS),
        _ => Val::Bytes,
    },
};

/// The fields of the `struct ifla_vf_*` that are not plain numbers: the
/// hardware addresses (`80:81:..`), the link state, a GUID in hex, the
/// VLAN protocol in network order (`htons(ETH_P_8021Q)`).
fn vf_field(p: &mut Printer, f: &Field, v: &[u8], _: &[u8]) -> bool {
    match f.name {
        "mac" | "broadcast" => crate::service::family::put_mac(p, f.name, v),
        "link_state" => {
            let n = num(f, v) as i64;
            p.symbol(f.name, n, lookup(IFLA_VF_LINK_STATES, n));
        }
        "guid" => p.hex(f.name, num(f, v)),
        "vlan_proto" => {
            let proto = u16::from_be_bytes([v[0], v[1]]);
            let number = match proto {
                0 => "0".to_string(),
                n => format!("{n:#x}"),
            };
            let text = format!(
                "htons({})",
                p.spelling(&number, lookup(ETH_PROTOS, proto as i64))
            );
            put_composed(p, f.name, &text, |p| p.uint(f.name, proto as u64));
        }
        _ => return false,
    }
    true
}

/// IFLA_VF_STATS_*: a virtual function's counters, 64-bit.
static VF_STATS_ATTRS: Attrs = Attrs {
    names: IFLA_VF_STATS_TYPES,
    kind: |name| match name {
        "IFLA_VF_STATS_PAD" => Val::Bytes,
        _ => Val::U64,
    },
};

/// IFLA_VF_VLAN_LIST: `struct ifla_vf_vlan_info`s.
static VF_VLAN_LIST_ATTRS: Attrs = Attrs {
    names: IFLA_VF_VLAN_LIST_TYPES,
    kind: |name| match name {
        // The whole struct, its tail padding too, or bytes (strace too).
        "IFLA_VF_VLAN_INFO" => Val::Custom(|p, v| {
            if v.len() < IFLA_VF_VLAN_INFO.size {
                return put_bytes(p, "", v);
            }
            super::put_struct(p, "", &IFLA_VF_VLAN_INFO, v, &mut |p, f, b| {
                vf_field(p, f, b, v)
            });
        }),
        _ => Val::Bytes,
    },
};

/// IFLA_VF_PORTS: one IFLA_VF_PORT per virtual function.
pub(super) static VF_PORTS_ATTRS: Attrs = Attrs {
    names: IFLA_VF_PORTS_TYPES,
    kind: |name| match name {
        "IFLA_VF_PORT" => Val::Nested(&PORT_ATTRS),
        _ => Val::Bytes,
    },
};

/// IFLA_PORT_*: a port profile (IFLA_VF_PORT's and IFLA_PORT_SELF's).
pub(super) static PORT_ATTRS: Attrs = Attrs {
    names: IFLA_PORT_TYPES,
    kind: |name| match name {
        "IFLA_PORT_VF" => Val::U32,
        "IFLA_PORT_PROFILE" => Val::Str,
        "IFLA_PORT_VSI_TYPE" => Val::Custom(put_port_vsi),
        "IFLA_PORT_REQUEST" => Val::U8,
        "IFLA_PORT_RESPONSE" => Val::U16,
        _ => Val::Bytes,
    },
};

/// `struct ifla_port_vsi`: the manager's id, the type id's three bytes,
/// the version, and the padding only when it is not zero, as strace
/// shows it.
fn put_port_vsi(p: &mut Printer, v: &[u8]) {
    if v.len() < IFLA_PORT_VSI.size {
        return put_bytes(p, "", v);
    }
    p.open("", "{", Naming::Fields);
    for f in IFLA_PORT_VSI.fields {
        let b = &v[f.off..f.off + f.size * f.count];
        if f.count > 1 {
            if f.name == "pad" && b.iter().all(|&c| c == 0) {
                continue;
            }
            put_bytes(p, f.name, b);
        } else {
            p.uint(f.name, num(f, b));
        }
    }
    p.close("}");
}
