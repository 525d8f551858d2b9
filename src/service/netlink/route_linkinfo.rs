//! IFLA_LINKINFO: a link's kind and the attributes of that kind in
//! IFLA_INFO_DATA (a bridge's IFLA_BR_*, a tun device's IFLA_TUN_*), and,
//! for a port, those of its master's kind in IFLA_INFO_SLAVE_DATA (a
//! bridge port's IFLA_BRPORT_*), as strace decodes them. Any other kind's
//! data stays bytes. The bridge port's attributes live here too: an
//! AF_BRIDGE link message's IFLA_PROTINFO (`route.rs`) holds them as well.

use std::cell::RefCell;

use super::consts::*;
use super::{Attrs, Val, num, put_attrs, put_bit_names, put_bytes};
use crate::format::Printer;
use crate::service::raw::{u16_at, u32_at};

thread_local! {
    /// The kind and the master's kind (IFLA_INFO_KIND, IFLA_INFO_SLAVE_KIND)
    /// of the IFLA_LINKINFO being decoded: they say what its data is.
    static KINDS: RefCell<(Vec<u8>, Vec<u8>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// How deep an IFLA_LINKINFO's attributes sit: inside a link message's.
const LINKINFO_DEPTH: usize = 2;

/// IFLA_LINKINFO's payload: its attributes, each data by the kind the
/// same nest names (wherever in it the kind comes).
pub(super) fn put_linkinfo(p: &mut Printer, v: &[u8]) {
    let kinds = (
        nested_string(v, "IFLA_INFO_KIND"),
        nested_string(v, "IFLA_INFO_SLAVE_KIND"),
    );
    let before = KINDS.with(|k| k.replace(kinds));
    put_attrs(p, v, &LINKINFO_ATTRS, LINKINFO_DEPTH);
    KINDS.with(|k| k.replace(before));
}

/// The string payload (up to its NUL) of the first attribute named
/// `name` among the attributes in `b`, or nothing.
fn nested_string(b: &[u8], name: &str) -> Vec<u8> {
    let hdr = NLATTR.size;
    let want = super::lookup_value(IFLA_INFO_TYPES, name);
    let type_mask = !(NLA_FLAGS.iter().fold(0, |m, f| m | f.mask) as u16);
    let mut off = 0;
    while off + hdr <= b.len() {
        let len = u16_at(b, off) as usize;
        if len < hdr {
            break;
        }
        let end = (off + len).min(b.len());
        if (u16_at(b, off + 2) & type_mask) as i64 == want {
            let payload = &b[off + hdr..end];
            let upto = payload
                .iter()
                .position(|&c| c == 0)
                .unwrap_or(payload.len());
            return payload[..upto].to_vec();
        }
        off += len.next_multiple_of(4);
    }
    Vec::new()
}

/// Whether the nest's kind (`slave`: its master's) is `kind`.
fn kind_is(slave: bool, kind: &str) -> bool {
    KINDS.with(|k| {
        let k = k.borrow();
        (if slave { &k.1 } else { &k.0 }).as_slice() == kind.as_bytes()
    })
}

/// IFLA_INFO_* inside IFLA_LINKINFO.
static LINKINFO_ATTRS: Attrs = Attrs {
    names: IFLA_INFO_TYPES,
    kind: |name| match name {
        "IFLA_INFO_KIND" | "IFLA_INFO_SLAVE_KIND" => Val::Str,
        "IFLA_INFO_DATA" if kind_is(false, "bridge") => Val::Nested(&BRIDGE_ATTRS),
        "IFLA_INFO_DATA" if kind_is(false, "tun") => Val::Nested(&TUN_ATTRS),
        "IFLA_INFO_SLAVE_DATA" if kind_is(true, "bridge") => Val::Nested(&BRPORT_ATTRS),
        _ => Val::Bytes,
    },
};

/// IFLA_BR_*: a bridge's settings and state.
static BRIDGE_ATTRS: Attrs = Attrs {
    names: IFLA_BR_TYPES,
    kind: |name| match name {
        "IFLA_BR_FORWARD_DELAY"
        | "IFLA_BR_HELLO_TIME"
        | "IFLA_BR_MAX_AGE"
        | "IFLA_BR_AGEING_TIME"
        | "IFLA_BR_HELLO_TIMER"
        | "IFLA_BR_TCN_TIMER"
        | "IFLA_BR_TOPOLOGY_CHANGE_TIMER"
        | "IFLA_BR_GC_TIMER"
        | "IFLA_BR_MCAST_LAST_MEMBER_INTVL"
        | "IFLA_BR_MCAST_MEMBERSHIP_INTVL"
        | "IFLA_BR_MCAST_QUERIER_INTVL"
        | "IFLA_BR_MCAST_QUERY_INTVL"
        | "IFLA_BR_MCAST_QUERY_RESPONSE_INTVL"
        | "IFLA_BR_MCAST_STARTUP_QUERY_INTVL" => Val::ClockT,
        "IFLA_BR_STP_STATE"
        | "IFLA_BR_ROOT_PATH_COST"
        | "IFLA_BR_MCAST_HASH_ELASTICITY"
        | "IFLA_BR_MCAST_HASH_MAX"
        | "IFLA_BR_MCAST_LAST_MEMBER_CNT"
        | "IFLA_BR_MCAST_STARTUP_QUERY_CNT" => Val::U32,
        "IFLA_BR_PRIORITY" | "IFLA_BR_ROOT_PORT" | "IFLA_BR_VLAN_DEFAULT_PVID" => Val::U16,
        "IFLA_BR_VLAN_PROTOCOL" => Val::Custom(put_ether_proto),
        "IFLA_BR_GROUP_FWD_MASK" => Val::Custom(put_x16),
        "IFLA_BR_ROOT_ID" | "IFLA_BR_BRIDGE_ID" => {
            Val::StructWith(&IFLA_BRIDGE_ID, bridge_id_field)
        }
        "IFLA_BR_GROUP_ADDR" => Val::Mac,
        "IFLA_BR_MULTI_BOOLOPT" => Val::StructWith(&BR_BOOLOPT_MULTI, boolopt_field),
        "IFLA_BR_MCAST_QUERIER_STATE" => Val::Nested(&QUERIER_ATTRS),
        // No value (a request to flush, padding), or newer than strace's
        // table: bytes.
        "IFLA_BR_UNSPEC" | "IFLA_BR_FDB_FLUSH" | "IFLA_BR_PAD" => Val::Bytes,
        name if BR_SWITCHES.contains(&name) => Val::U8,
        _ => Val::Bytes,
    },
};

/// IFLA_BR_*'s one-byte switches and states.
const BR_SWITCHES: &[&str] = &[
    "IFLA_BR_VLAN_FILTERING",
    "IFLA_BR_TOPOLOGY_CHANGE",
    "IFLA_BR_TOPOLOGY_CHANGE_DETECTED",
    "IFLA_BR_MCAST_ROUTER",
    "IFLA_BR_MCAST_SNOOPING",
    "IFLA_BR_MCAST_QUERY_USE_IFADDR",
    "IFLA_BR_MCAST_QUERIER",
    "IFLA_BR_NF_CALL_IPTABLES",
    "IFLA_BR_NF_CALL_IP6TABLES",
    "IFLA_BR_NF_CALL_ARPTABLES",
    "IFLA_BR_VLAN_STATS_ENABLED",
    "IFLA_BR_MCAST_STATS_ENABLED",
    "IFLA_BR_MCAST_IGMP_VERSION",
    "IFLA_BR_MCAST_MLD_VERSION",
    "IFLA_BR_VLAN_STATS_PER_PORT",
];

/// BRIDGE_QUERIER_*: the multicast querier a bridge heard.
static QUERIER_ATTRS: Attrs = Attrs {
    names: BRIDGE_QUERIER_TYPES,
    kind: |name| match name {
        "BRIDGE_QUERIER_IP_ADDRESS" | "BRIDGE_QUERIER_IPV6_ADDRESS" => Val::Ip,
        "BRIDGE_QUERIER_IP_PORT" | "BRIDGE_QUERIER_IPV6_PORT" => Val::Ifindex,
        "BRIDGE_QUERIER_IP_OTHER_TIMER" | "BRIDGE_QUERIER_IPV6_OTHER_TIMER" => Val::ClockT,
        _ => Val::Bytes,
    },
};

/// IFLA_TUN_*: a tun or tap device's owner, type and flags.
static TUN_ATTRS: Attrs = Attrs {
    names: IFLA_TUN_TYPES,
    kind: |name| match name {
        "IFLA_TUN_OWNER" | "IFLA_TUN_GROUP" => Val::Custom(put_id),
        "IFLA_TUN_TYPE" => Val::Custom(put_tun_type),
        "IFLA_TUN_PI" | "IFLA_TUN_VNET_HDR" | "IFLA_TUN_PERSIST" | "IFLA_TUN_MULTI_QUEUE" => {
            Val::U8
        }
        "IFLA_TUN_NUM_QUEUES" | "IFLA_TUN_NUM_DISABLED_QUEUES" => Val::U32,
        _ => Val::Bytes,
    },
};

/// `struct br_boolopt_multi`'s two sets, by option bit:
/// `1<<BR_BOOLOPT_NO_LL_LEARN`.
fn boolopt_field(p: &mut Printer, f: &super::Field, v: &[u8], _: &[u8]) -> bool {
    put_bit_names(p, f.name, num(f, v), BR_BOOLOPT_IDS, false);
    true
}

/// A big-endian Ethernet protocol: `htons(ETH_P_8021Q)`.
fn put_ether_proto(p: &mut Printer, v: &[u8]) {
    if v.len() < 2 {
        return put_bytes(p, "", v);
    }
    crate::service::family::put_eth_proto(p, "", u16_at(v, 0));
}

/// A tun device's type, one byte (as the kernel reads it: `nla_get_u8`):
/// `IFF_TAP`.
fn put_tun_type(p: &mut Printer, v: &[u8]) {
    match v.first() {
        Some(&t) => p.symbol(
            "",
            t as i64,
            crate::service::raw::lookup(TUN_DEVICE_TYPES, t as i64),
        ),
        None => put_bytes(p, "", v),
    }
}

/// A 16-bit mask, in hex.
fn put_x16(p: &mut Printer, v: &[u8]) {
    if v.len() < 2 {
        return put_bytes(p, "", v);
    }
    p.hex("", u16_at(v, 0) as u64);
}

/// A user or group id: `-1` (none) as strace shows it, else the number.
fn put_id(p: &mut Printer, v: &[u8]) {
    if v.len() < 4 {
        return put_bytes(p, "", v);
    }
    match u32_at(v, 0) {
        u32::MAX => p.int("", -1),
        id => p.uint("", id as u64),
    }
}

/// IFLA_BRPORT_* inside an AF_BRIDGE link message's IFLA_PROTINFO: a
/// bridge port's settings and state.
pub(super) static BRPORT_ATTRS: Attrs = Attrs {
    names: IFLA_BRPORT_TYPES,
    kind: |name| match name {
        "IFLA_BRPORT_PRIORITY"
        | "IFLA_BRPORT_DESIGNATED_PORT"
        | "IFLA_BRPORT_DESIGNATED_COST"
        | "IFLA_BRPORT_ID"
        | "IFLA_BRPORT_NO"
        | "IFLA_BRPORT_GROUP_FWD_MASK" => Val::U16,
        "IFLA_BRPORT_COST"
        | "IFLA_BRPORT_MCAST_EHT_HOSTS_LIMIT"
        | "IFLA_BRPORT_MCAST_EHT_HOSTS_CNT" => Val::U32,
        "IFLA_BRPORT_MESSAGE_AGE_TIMER"
        | "IFLA_BRPORT_FORWARD_DELAY_TIMER"
        | "IFLA_BRPORT_HOLD_TIMER" => Val::ClockT,
        "IFLA_BRPORT_ROOT_ID" | "IFLA_BRPORT_BRIDGE_ID" => {
            Val::StructWith(&IFLA_BRIDGE_ID, bridge_id_field)
        }
        "IFLA_BRPORT_BACKUP_PORT" => Val::Ifindex,
        // No value: a request to flush, padding.
        "IFLA_BRPORT_UNSPEC" | "IFLA_BRPORT_FLUSH" | "IFLA_BRPORT_PAD" => Val::Bytes,
        // The rest are one-byte switches and states.
        _ => Val::U8,
    },
};

/// `struct ifla_bridge_id`'s address, as a MAC address.
fn bridge_id_field(p: &mut Printer, f: &super::Field, v: &[u8], _: &[u8]) -> bool {
    if f.name != "addr" {
        return false;
    }
    crate::service::family::put_mac(p, f.name, v);
    true
}
