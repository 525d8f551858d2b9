//! rtnetlink payloads (NETLINK_ROUTE): links (`struct ifinfomsg` and
//! IFLA_* attributes), addresses (`struct ifaddrmsg`, IFA_*), routes
//! (`struct rtmsg`, RTA_*), neighbours (`struct ndmsg`, NDA_*), routing
//! rules (`struct fib_rule_hdr`, FRA_*; a route's RTA_MULTIPATH as its
//! `struct rtnexthop`s), next hops (`struct nhmsg`, NHA_*), the devices'
//! IP configuration (`struct netconfmsg`, NETCONFA_*), their counters
//! (`struct if_stats_msg`, IFLA_STATS_*), neighbour tables (`struct
//! ndtmsg`, NDTA_*, NDTPA_*), address labels (`struct ifaddrlblmsg`,
//! IFAL_*), namespace ids (`struct rtgenmsg`, NETNSA_*) and traffic control's qdiscs, classes, filters and chains
//! (`struct tcmsg`, TCA_*; a qdisc's own TCA_OPTIONS as bytes). Other
//! RTM_* types show their payload as bytes.

use super::consts::*;
use super::route_linkinfo::{BRPORT_ATTRS, put_linkinfo};
use super::{Attrs, Indexed, Msg, Val, num, put_attrs, put_bit_names, put_bytes, put_struct};
use crate::abi::xlat::net::{FAMILIES, IFF_FLAGS};
use crate::format::Naming;
use crate::format::Printer;
use crate::service::family::put_family;
use crate::service::raw::lookup;

/// The payload of an RTM_* message: its struct, then its attributes.
pub(super) fn payload(p: &mut Printer, msg: Msg, b: &[u8]) {
    let name = msg.type_name().unwrap_or("");
    // RTM_NEWLINK, RTM_GETADDR, ...: what follows the verb picks the struct.
    let object = name.get("RTM_NEW".len()..).unwrap_or("");
    let bridge = FAMILIES
        .iter()
        .any(|&(v, n)| n == "AF_BRIDGE" && b.first() == Some(&(v as u8)));
    let (layout, attrs) = match object {
        // A bridge's link messages (`bridge link`, `bridge vlan`) carry
        // the bridge's own attributes in IFLA_AF_SPEC.
        "LINK" if bridge => (&IFINFOMSG, &BRIDGE_LINK_ATTRS),
        "LINK" => (&IFINFOMSG, &LINK_ATTRS),
        // Multicast and anycast address dumps are address messages.
        "ADDR" | "MULTICAST" | "ANYCAST" => (&IFADDRMSG, &ADDR_ATTRS),
        "ROUTE" => (&RTMSG, &ROUTE_ATTRS),
        "NEIGH" => (&NDMSG, &NEIGH_ATTRS),
        "RULE" => (&FIB_RULE_HDR, &RULE_ATTRS),
        "NEXTHOP" => (&NHMSG, &NEXTHOP_ATTRS),
        "NETCONF" => (&NETCONFMSG, &NETCONF_ATTRS),
        "NEIGHTBL" => (&NDTMSG, &NEIGHTBL_ATTRS),
        "ADDRLABEL" => (&IFADDRLBLMSG, &ADDRLABEL_ATTRS),
        "NSID" => (&RTGENMSG, &NSID_ATTRS),
        "STATS" => (&IF_STATS_MSG, &super::route_link::STATS_ATTRS),
        "CACHEREPORT" => (&RTGENMSG, &NSID_ATTRS),
        "MDB" => (&BR_PORT_MSG, &MDB_ATTRS),
        "QDISC" | "TCLASS" | "TFILTER" | "CHAIN" => (&TCMSG, &TC_ATTRS),
        "ACTION" => (&TCAMSG, &TC_ACTION_ATTRS),
        "DCB" => (&DCBMSG, &DCB_ATTRS),
        _ => return super::put_family_data(p, b),
    };
    if b.len() < layout.size {
        return put_short(p, layout, b);
    }
    // A multicast routing cache report (ipmr's RTM_NEWCACHEREPORT): the
    // family, then what the report carries, as bytes (strace too).
    let report = match lookup(RTNL_FAMILIES, b[0] as i64) {
        Some("RTNL_FAMILY_IPMR") => Some(&CREPORT_ATTRS),
        Some("RTNL_FAMILY_IP6MR") => Some(&CREPORT6_ATTRS),
        _ => None,
    };
    let only_family = object == "CACHEREPORT" && report.is_none();
    let attrs = match report {
        Some(set) if object == "CACHEREPORT" => set,
        _ => attrs,
    };
    put_struct(p, "", layout, b, &mut |p, f, v| {
        let n = num(f, v);
        match f.name {
            // rtnetlink's own families (RTNL_FAMILY_IPMR) where a cache
            // report carries them.
            "rtgen_family" if lookup(RTNL_FAMILIES, n as i64).is_some() => {
                p.symbol(f.name, n as i64, lookup(RTNL_FAMILIES, n as i64))
            }
            "ifi_family" | "ifa_family" | "rtm_family" | "ndm_family" | "family" | "nh_family"
            | "tcm_family" | "ncm_family" | "ndtm_family" | "ifal_family" | "rtgen_family"
            | "tca_family" | "dcb_family" => put_family(p, f.name, n as i64),
            "ifal_index" => p.ifindex(f.name, n as u32),
            "ifindex" => p.ifindex(f.name, n as u32),
            // Bit n-1 asks for attribute n (IFLA_STATS_FILTER_BIT); strace
            // spells bit n as attribute n, `1<<IFLA_STATS_LINK_64` for 0x2.
            "filter_mask" => put_bit_names(p, f.name, n, IFLA_STATS_TYPES, false),
            "ifi_type" => p.symbol(f.name, n as i64, lookup(ARPHRD_TYPES, n as i64)),
            "ifi_index" | "ndm_ifindex" | "ifa_index" | "tcm_ifindex" => {
                p.ifindex(f.name, n as u32)
            }
            "nh_scope" => p.symbol(f.name, n as i64, lookup(RT_SCOPES, n as i64)),
            "nh_protocol" => p.symbol(f.name, n as i64, lookup(RTPROT, n as i64)),
            "nh_flags" => p.flags(f.name, n, RTNH_F_FLAGS),
            "ndm_state" => p.flags(f.name, n, NUD_STATES),
            "ndm_flags" => p.flags(f.name, n, NTF_FLAGS),
            "ndm_type" => p.symbol(f.name, n as i64, lookup(RTN_TYPES, n as i64)),
            "table" => p.symbol(f.name, n as i64, lookup(RT_TABLES, n as i64)),
            "action" => p.symbol(f.name, n as i64, lookup(FR_ACTIONS, n as i64)),
            "flags" => p.flags(f.name, n, FIB_RULE_FLAGS),
            "ifi_flags" => p.flags(f.name, n, IFF_FLAGS),
            // A mask of the flags to change: a number, as strace shows it.
            "ifi_change" if n != 0 => p.hex(f.name, n),
            "ifa_flags" => p.flags(f.name, n, IFA_F_FLAGS),
            "ifa_scope" | "rtm_scope" => p.symbol(f.name, n as i64, lookup(RT_SCOPES, n as i64)),
            "rtm_table" => p.symbol(f.name, n as i64, lookup(RT_TABLES, n as i64)),
            "rtm_protocol" => p.symbol(f.name, n as i64, lookup(RTPROT, n as i64)),
            "rtm_type" => p.symbol(f.name, n as i64, lookup(RTN_TYPES, n as i64)),
            "rtm_flags" => {
                let both: Vec<_> = RTNH_F_FLAGS.iter().chain(RTM_F_FLAGS).copied().collect();
                p.flags(f.name, n, &both)
            }
            "rtm_tos" | "tos" => p.flags(f.name, n, IPTOS_FLAGS),
            "cmd" => p.symbol(f.name, n as i64, lookup(DCB_CMDS, n as i64)),
            // Reserved bytes, shown when set (strace too).
            "pad1" | "pad2" | "resvd" if n != 0 => p.hex(f.name, n),
            _ => return false,
        }
        true
    });
    let rest = b.get(super::align(layout.size)..).unwrap_or(&[]);
    if only_family && !rest.is_empty() {
        put_bytes(p, "", rest);
    } else if !rest.is_empty() {
        super::with_family(b[0], || put_attrs(p, rest, attrs, 0));
    }
}

/// A payload shorter than its struct: the family (every rtnetlink
/// struct's first byte), then `..`; when the tracee's unreadable memory
/// cut it, the address of the rest (strace:
/// `{ifi_family=AF_UNIX, 0x7f..}`).
fn put_short(p: &mut Printer, layout: &super::Layout, b: &[u8]) {
    let name = layout.fields.first().map_or("family", |f| f.name);
    p.open("", "{", Naming::Fields);
    put_family(p, name, b[0] as i64);
    match super::cut_at(b) {
        Some(at) => p.ptr("", at + 1),
        None => p.more(),
    }
    p.close("}");
}

/// IPMRA_CREPORT_* of an IPv4 multicast routing cache report
/// (RTNL_FAMILY_IPMR).
static CREPORT_ATTRS: Attrs = Attrs {
    names: IPMRA_CREPORT_TYPES,
    kind: |name| match name {
        "IPMRA_CREPORT_MSGTYPE" => Val::Enum(IGMPMSG_TYPES),
        "IPMRA_CREPORT_VIF_ID" | "IPMRA_CREPORT_TABLE" => Val::U32,
        "IPMRA_CREPORT_SRC_ADDR" | "IPMRA_CREPORT_DST_ADDR" => {
            Val::Custom(|p, v| super::put_ip(p, "", v))
        }
        _ => Val::Bytes,
    },
};

/// IP6MRA_CREPORT_* of an IPv6 multicast routing cache report
/// (RTNL_FAMILY_IP6MR).
static CREPORT6_ATTRS: Attrs = Attrs {
    names: IP6MRA_CREPORT_TYPES,
    kind: |name| match name {
        "IP6MRA_CREPORT_MSGTYPE" => Val::Enum(MRT6MSG_TYPES),
        "IP6MRA_CREPORT_MIF_ID" => Val::U32,
        "IP6MRA_CREPORT_SRC_ADDR" | "IP6MRA_CREPORT_DST_ADDR" => {
            Val::Custom(|p, v| super::put_ip(p, "", v))
        }
        _ => Val::Bytes,
    },
};

/// MDBA_* attributes of a bridge's multicast database message.
static MDB_ATTRS: Attrs = Attrs {
    names: MDBA_TYPES,
    kind: |name| match name {
        "MDBA_MDB" => Val::Nested(&MDB_MDB_ATTRS),
        "MDBA_ROUTER" => Val::Nested(&MDB_ROUTER_ATTRS),
        _ => Val::Bytes,
    },
};

/// MDBA_MDB_* inside MDBA_MDB: the entries, their payloads as bytes.
static MDB_MDB_ATTRS: Attrs = Attrs {
    names: MDBA_MDB_TYPES,
    kind: |name| match name {
        "MDBA_MDB_ENTRY" => Val::Nested(&MDB_ENTRY_ATTRS),
        _ => Val::Bytes,
    },
};

/// MDBA_MDB_ENTRY_* inside MDBA_MDB_ENTRY (`struct br_mdb_entry` and its
/// attributes stay bytes).
static MDB_ENTRY_ATTRS: Attrs = Attrs {
    names: MDBA_MDB_ENTRY_TYPES,
    kind: |_| Val::Bytes,
};

/// MDBA_ROUTER_* inside MDBA_ROUTER.
static MDB_ROUTER_ATTRS: Attrs = Attrs {
    names: MDBA_ROUTER_TYPES,
    kind: |name| match name {
        "MDBA_ROUTER_PORT" => Val::Custom(put_router_port),
        _ => Val::Bytes,
    },
};

/// MDBA_ROUTER_PORT: the port's interface index, then (newer kernels) its
/// MDBA_ROUTER_PATTR_* attributes, as strace shows them.
fn put_router_port(p: &mut Printer, v: &[u8]) {
    if v.len() < 4 {
        return put_bytes(p, "", v);
    }
    let index = u32::from_le_bytes([v[0], v[1], v[2], v[3]]);
    if v.len() == 4 {
        return p.ifindex("", index);
    }
    p.open("", "[", Naming::Elements);
    p.ifindex("", index);
    put_attrs(p, &v[4..], &MDB_ROUTER_PATTRS, 1);
    p.close("]");
}

/// MDBA_ROUTER_PATTR_* after a router port's index.
static MDB_ROUTER_PATTRS: Attrs = Attrs {
    names: MDBA_ROUTER_PATTR_TYPES,
    kind: |name| match name {
        "MDBA_ROUTER_PATTR_TIMER"
        | "MDBA_ROUTER_PATTR_INET_TIMER"
        | "MDBA_ROUTER_PATTR_INET6_TIMER" => Val::ClockT,
        "MDBA_ROUTER_PATTR_TYPE" => Val::Enum(MDB_RTR_TYPES),
        "MDBA_ROUTER_PATTR_VID" => Val::U16,
        _ => Val::Bytes,
    },
};

/// IFLA_* attributes of a link message.
static LINK_ATTRS: Attrs = Attrs {
    names: IFLA_TYPES,
    kind: |name| match name {
        "IFLA_IFNAME"
        | "IFLA_QDISC"
        | "IFLA_IFALIAS"
        | "IFLA_ALT_IFNAME"
        | "IFLA_PHYS_PORT_NAME"
        | "IFLA_PARENT_DEV_NAME"
        | "IFLA_PARENT_DEV_BUS_NAME" => Val::Str,
        "IFLA_ADDRESS" | "IFLA_BROADCAST" | "IFLA_PERM_ADDRESS" => Val::Mac,
        "IFLA_LINK" | "IFLA_MASTER" | "IFLA_NEW_IFINDEX" => Val::Ifindex,
        "IFLA_MTU"
        | "IFLA_TXQLEN"
        | "IFLA_WEIGHT"
        | "IFLA_NET_NS_PID"
        | "IFLA_NET_NS_FD"
        | "IFLA_GROUP"
        | "IFLA_PROMISCUITY"
        | "IFLA_ALLMULTI"
        | "IFLA_NUM_TX_QUEUES"
        | "IFLA_NUM_RX_QUEUES"
        | "IFLA_NUM_VF"
        | "IFLA_GSO_MAX_SEGS"
        | "IFLA_GSO_MAX_SIZE"
        | "IFLA_GRO_MAX_SIZE"
        | "IFLA_TSO_MAX_SIZE"
        | "IFLA_TSO_MAX_SEGS"
        | "IFLA_MIN_MTU"
        | "IFLA_MAX_MTU"
        | "IFLA_CARRIER_CHANGES"
        | "IFLA_CARRIER_UP_COUNT"
        | "IFLA_CARRIER_DOWN_COUNT"
        | "IFLA_COST"
        | "IFLA_PRIORITY" => Val::U32,
        "IFLA_LINK_NETNSID" | "IFLA_IF_NETNSID" | "IFLA_NEW_NETNSID" => Val::I32,
        "IFLA_CARRIER" | "IFLA_PROTO_DOWN" => Val::U8,
        "IFLA_OPERSTATE" => Val::Enum(IF_OPER),
        "IFLA_EVENT" => Val::Enum(IFLA_EVENTS),
        "IFLA_LINKMODE" => Val::Enum(IF_LINK_MODE),
        "IFLA_EXT_MASK" => Val::Flags(RTEXT_FILTERS),
        // Both as long as before rx_nohandler (Linux 4.6) at least.
        "IFLA_STATS" => Val::StructSince(&RTNL_LINK_STATS, "tx_compressed"),
        "IFLA_STATS64" => Val::StructSince(&RTNL_LINK_STATS64, "tx_compressed"),
        "IFLA_MAP" => Val::Struct(&RTNL_LINK_IFMAP),
        "IFLA_LINKINFO" => Val::CustomCut(put_linkinfo),
        "IFLA_XDP" => Val::Nested(&XDP_ATTRS),
        "IFLA_PROP_LIST" => Val::Nested(&LINK_ATTRS),
        "IFLA_PROTO_DOWN_REASON" => Val::Nested(&PROTO_DOWN_REASON_ATTRS),
        // The protocol's own attributes: an AF_INET6 link message's are
        // IFLA_INET6_* (an AF_BRIDGE one's: BRIDGE_LINK_ATTRS).
        "IFLA_PROTINFO" if super::family_is("AF_INET6") => Val::Nested(&INET6_ATTRS),
        "IFLA_AF_SPEC" => Val::AfSpec,
        "IFLA_VFINFO_LIST" => Val::Nested(&super::route_link::VFINFO_LIST_ATTRS),
        "IFLA_VF_PORTS" => Val::Nested(&super::route_link::VF_PORTS_ATTRS),
        "IFLA_PORT_SELF" => Val::Nested(&super::route_link::PORT_ATTRS),
        _ => Val::Bytes,
    },
};

/// IFLA_* of an AF_BRIDGE link message: [`LINK_ATTRS`], but IFLA_AF_SPEC
/// holds IFLA_BRIDGE_* (`<linux/if_bridge.h>`), not one attribute per
/// address family.
static BRIDGE_LINK_ATTRS: Attrs = Attrs {
    names: IFLA_TYPES,
    kind: |name| match name {
        "IFLA_AF_SPEC" => Val::Nested(&BRIDGE_AF_SPEC),
        "IFLA_PROTINFO" => Val::Nested(&BRPORT_ATTRS),
        other => (LINK_ATTRS.kind)(other),
    },
};

/// IFLA_PROTO_DOWN_REASON_*: the reason bits a link is down for.
static PROTO_DOWN_REASON_ATTRS: Attrs = Attrs {
    names: IFLA_PROTO_DOWN_REASON_TYPES,
    kind: |name| match name {
        "IFLA_PROTO_DOWN_REASON_MASK" | "IFLA_PROTO_DOWN_REASON_VALUE" => Val::X32,
        _ => Val::Bytes,
    },
};

/// IFLA_BRIDGE_* inside an AF_BRIDGE link message's IFLA_AF_SPEC: flags,
/// mode, a VLAN (`struct bridge_vlan_info`), VLAN tunnels; the MRP and CFM
/// sets print as bytes.
static BRIDGE_AF_SPEC: Attrs = Attrs {
    names: IFLA_BRIDGE_TYPES,
    kind: |name| match name {
        "IFLA_BRIDGE_FLAGS" => Val::Flags16(BRIDGE_FLAGS),
        "IFLA_BRIDGE_MODE" => Val::Enum16(BRIDGE_MODES),
        "IFLA_BRIDGE_VLAN_INFO" => Val::StructTail(&BRIDGE_VLAN_INFO, vlan_flags),
        "IFLA_BRIDGE_VLAN_TUNNEL_INFO" => Val::Nested(&BRIDGE_VLAN_TUNNEL_ATTRS),
        _ => Val::Bytes,
    },
};

/// A VLAN's flags (`struct bridge_vlan_info`).
fn vlan_flags(p: &mut Printer, f: &super::Field, v: &[u8], _: &[u8]) -> bool {
    f.name == "flags" && {
        p.flags(f.name, num(f, v), BRIDGE_VLAN_INFO_FLAGS);
        true
    }
}

/// IFLA_BRIDGE_VLAN_TUNNEL_* inside IFLA_BRIDGE_VLAN_TUNNEL_INFO.
static BRIDGE_VLAN_TUNNEL_ATTRS: Attrs = Attrs {
    names: IFLA_BRIDGE_VLAN_TUNNEL_TYPES,
    kind: |name| match name {
        "IFLA_BRIDGE_VLAN_TUNNEL_ID" => Val::U32,
        "IFLA_BRIDGE_VLAN_TUNNEL_VID" => Val::U16,
        "IFLA_BRIDGE_VLAN_TUNNEL_FLAGS" => Val::Flags16(BRIDGE_VLAN_INFO_FLAGS),
        _ => Val::Bytes,
    },
};

/// IFLA_XDP_* inside IFLA_XDP.
static XDP_ATTRS: Attrs = Attrs {
    names: IFLA_XDP_TYPES,
    kind: |name| match name {
        "IFLA_XDP_ATTACHED" => Val::Enum(XDP_ATTACHED),
        "IFLA_XDP_FD" | "IFLA_XDP_EXPECTED_FD" => Val::I32,
        "IFLA_XDP_FLAGS" => Val::Flags(XDP_FLAGS),
        "IFLA_XDP_PROG_ID"
        | "IFLA_XDP_DRV_PROG_ID"
        | "IFLA_XDP_SKB_PROG_ID"
        | "IFLA_XDP_HW_PROG_ID" => Val::U32,
        _ => Val::Bytes,
    },
};

/// IFLA_AF_SPEC: one attribute per address family, whose type is the
/// family (`AF_INET`, `AF_INET6`).
pub(super) static AF_SPEC: Attrs = Attrs {
    names: FAMILIES,
    kind: |name| match name {
        "AF_INET" => Val::Nested(&INET_ATTRS),
        "AF_INET6" => Val::Nested(&INET6_ATTRS),
        "AF_MCTP" => Val::Nested(&MCTP_ATTRS),
        _ => Val::Bytes,
    },
};

/// AF_MCTP's IFLA_MCTP_*: the device's MCTP network.
static MCTP_ATTRS: Attrs = Attrs {
    names: IFLA_MCTP_TYPES,
    kind: |name| match name {
        "IFLA_MCTP_NET" => Val::U32,
        _ => Val::Bytes,
    },
};

/// AF_INET's IFLA_INET_*: the device's configuration.
static INET_ATTRS: Attrs = Attrs {
    names: IFLA_INET_TYPES,
    kind: |name| match name {
        "IFLA_INET_CONF" => Val::Array(&Indexed {
            names: IPV4_DEVCONF,
            size: 4,
            signed: false,
            from_one: true,
        }),
        _ => Val::Bytes,
    },
};

/// AF_INET6's IFLA_INET6_*.
static INET6_ATTRS: Attrs = Attrs {
    names: IFLA_INET6_TYPES,
    kind: |name| match name {
        "IFLA_INET6_FLAGS" => Val::Flags(INET6_IF_FLAGS),
        "IFLA_INET6_RA_MTU" => Val::U32,
        // An IPv6 address whatever the link message's family.
        "IFLA_INET6_TOKEN" => Val::Custom(|p, v| super::put_ip(p, "", v)),
        "IFLA_INET6_CACHEINFO" => Val::Struct(&IFLA_CACHEINFO),
        "IFLA_INET6_CONF" => Val::Array(&Indexed {
            names: DEVCONF,
            size: 4,
            signed: true,
            from_one: false,
        }),
        "IFLA_INET6_STATS" => Val::Array(&Indexed {
            names: IPSTATS_MIB,
            size: 8,
            signed: false,
            from_one: false,
        }),
        "IFLA_INET6_ICMP6STATS" => Val::Array(&Indexed {
            names: ICMP6_MIB,
            size: 8,
            signed: false,
            from_one: false,
        }),
        "IFLA_INET6_ADDR_GEN_MODE" => Val::Enum(IN6_ADDR_GEN_MODES),
        _ => Val::Bytes,
    },
};

/// IFLA_INET6_FLAGS' bits, in the order of their values (the kernel's
/// include/net/if_inet6.h, generated: `abi::gen_inet6_if`).
static INET6_IF_FLAGS: &[crate::format::FlagDef] = {
    use crate::abi::gen_inet6_if::*;
    use crate::format::flag;
    &[
        flag(IF_RS_SENT as u64, "IF_RS_SENT"),
        flag(IF_RA_RCVD as u64, "IF_RA_RCVD"),
        flag(IF_RA_MANAGED as u64, "IF_RA_MANAGED"),
        flag(IF_RA_OTHERCONF as u64, "IF_RA_OTHERCONF"),
        flag(IF_READY as u64, "IF_READY"),
    ]
};

/// IFA_* attributes of an address message.
static ADDR_ATTRS: Attrs = Attrs {
    names: IFA_TYPES,
    kind: |name| match name {
        "IFA_ADDRESS" | "IFA_LOCAL" | "IFA_BROADCAST" | "IFA_ANYCAST" | "IFA_MULTICAST" => Val::Ip,
        "IFA_LABEL" => Val::Str,
        "IFA_CACHEINFO" => Val::Struct(&IFA_CACHEINFO),
        "IFA_FLAGS" => Val::Flags(IFA_F_FLAGS),
        "IFA_RT_PRIORITY" => Val::U32,
        "IFA_TARGET_NETNSID" => Val::I32,
        "IFA_PROTO" => Val::U8,
        _ => Val::Bytes,
    },
};

/// RTA_* attributes of a route message.
static ROUTE_ATTRS: Attrs = Attrs {
    names: RTA_TYPES,
    kind: |name| match name {
        "RTA_DST" | "RTA_SRC" | "RTA_GATEWAY" | "RTA_PREFSRC" | "RTA_NEWDST" => Val::Ip,
        "RTA_IIF" | "RTA_OIF" => Val::Ifindex,
        "RTA_MULTIPATH" => Val::Multipath,
        "RTA_VIA" => Val::Custom(put_via),
        "RTA_MFC_STATS" => Val::Struct(&RTA_MFC_STATS),
        "RTA_SPORT" | "RTA_DPORT" => Val::Custom(put_port),
        "RTA_PRIORITY" | "RTA_MARK" | "RTA_FLOW" | "RTA_UID" | "RTA_NH_ID" => Val::U32,
        "RTA_TABLE" => Val::Enum(RT_TABLES),
        "RTA_CACHEINFO" => Val::Struct(&RTA_CACHEINFO),
        "RTA_METRICS" => Val::Nested(&METRICS_ATTRS),
        "RTA_PREF" | "RTA_TTL_PROPAGATE" | "RTA_IP_PROTO" => Val::U8,
        "RTA_ENCAP_TYPE" => Val::Enum16(LWTUNNEL_ENCAP_TYPES),
        "RTA_EXPIRES" => Val::U64,
        _ => Val::Bytes,
    },
};

/// RTAX_* inside RTA_METRICS.
static METRICS_ATTRS: Attrs = Attrs {
    names: RTAX_TYPES,
    kind: |name| match name {
        "RTAX_CC_ALGO" => Val::Str,
        _ => Val::U32,
    },
};

/// NDA_* attributes of a neighbour message.
static NEIGH_ATTRS: Attrs = Attrs {
    names: NDA_TYPES,
    kind: |name| match name {
        "NDA_DST" => Val::Ip,
        "NDA_LLADDR" => Val::Mac,
        "NDA_CACHEINFO" => Val::Struct(&NDA_CACHEINFO),
        "NDA_IFINDEX" | "NDA_MASTER" => Val::Ifindex,
        "NDA_PROBES" | "NDA_VNI" | "NDA_SRC_VNI" | "NDA_NH_ID" => Val::U32,
        "NDA_VLAN" => Val::U16,
        "NDA_LINK_NETNSID" => Val::I32,
        "NDA_PROTOCOL" => Val::Enum(RTPROT),
        "NDA_NDM_STATE_MASK" => Val::Flags(NUD_STATES),
        "NDA_NDM_FLAGS_MASK" => Val::Flags(NTF_FLAGS),
        "NDA_PORT" => Val::Custom(put_port),
        "NDA_FDB_EXT_ATTRS" => Val::Nested(&NFEA_ATTRS),
        "NDA_FLAGS_EXT" => Val::Flags(NTF_EXT_FLAGS),
        _ => Val::Bytes,
    },
};

/// NFEA_* inside NDA_FDB_EXT_ATTRS: a bridge entry's activity settings.
static NFEA_ATTRS: Attrs = Attrs {
    names: NFEA_TYPES,
    kind: |name| match name {
        "NFEA_ACTIVITY_NOTIFY" => Val::Flags(FDB_NOTIFY_FLAGS),
        _ => Val::Bytes,
    },
};

/// A port in network order, `htons(80)`; another length as bytes.
fn put_port(p: &mut Printer, v: &[u8]) {
    if v.len() == 2 {
        crate::service::family::put_port(p, "", super::u16_at(v, 0));
    } else {
        put_bytes(p, "", v);
    }
}

/// FRA_* attributes of a routing rule.
static RULE_ATTRS: Attrs = Attrs {
    names: FRA_TYPES,
    kind: |name| match name {
        "FRA_DST" | "FRA_SRC" => Val::Ip,
        "FRA_IIFNAME" | "FRA_OIFNAME" => Val::Str,
        "FRA_GOTO"
        | "FRA_PRIORITY"
        | "FRA_FWMARK"
        | "FRA_FWMASK"
        | "FRA_FLOW"
        | "FRA_SUPPRESS_IFGROUP"
        | "FRA_SUPPRESS_PREFIXLEN" => Val::U32,
        "FRA_TABLE" => Val::Enum(RT_TABLES),
        "FRA_TUN_ID" => Val::Be64,
        "FRA_L3MDEV" => Val::U8,
        "FRA_IP_PROTO" => Val::Enum(crate::abi::xlat::net::IPPROTOS),
        "FRA_PROTOCOL" => Val::Enum(RTPROT),
        "FRA_UID_RANGE" => Val::Struct(&FIB_RULE_UID_RANGE),
        "FRA_SPORT_RANGE" | "FRA_DPORT_RANGE" => Val::Struct(&FIB_RULE_PORT_RANGE),
        _ => Val::Bytes,
    },
};

/// NHA_* attributes of a next-hop message.
static NEXTHOP_ATTRS: Attrs = Attrs {
    names: NHA_TYPES,
    kind: |name| match name {
        "NHA_ID" => Val::U32,
        "NHA_OIF" | "NHA_MASTER" => Val::Ifindex,
        "NHA_GATEWAY" => Val::Ip,
        "NHA_GROUP" => Val::Structs(&NEXTHOP_GRP, |_, _, _, _| false),
        "NHA_GROUP_TYPE" => Val::Enum(NEXTHOP_GRP_TYPES),
        "NHA_ENCAP_TYPE" => Val::Enum(LWTUNNEL_ENCAP_TYPES),
        _ => Val::Bytes,
    },
};

/// TCA_* attributes of a qdisc, class, filter or chain message.
static TC_ATTRS: Attrs = Attrs {
    names: TCA_TYPES,
    kind: |name| match name {
        "TCA_KIND" | "TCA_EXT_WARN_MSG" => Val::Str,
        "TCA_STATS" => Val::Struct(&TC_STATS),
        "TCA_RATE" => Val::Struct(&TC_ESTIMATOR),
        "TCA_STATS2" => Val::Nested(&TC_STATS_ATTRS),
        "TCA_STAB" => Val::Nested(&TC_STAB_ATTRS),
        "TCA_FCNT" | "TCA_CHAIN" | "TCA_INGRESS_BLOCK" | "TCA_EGRESS_BLOCK" => Val::U32,
        "TCA_HW_OFFLOAD" => Val::U8,
        "TCA_DUMP_FLAGS" => Val::Flags(TCA_DUMP_FLAGS),
        _ => Val::Bytes,
    },
};

/// TCA_ACT_* attributes of an action message (`struct tcamsg`).
static TC_ACTION_ATTRS: Attrs = Attrs {
    names: TCA_ACT_TYPES,
    kind: |name| match name {
        "TCA_ACT_KIND" => Val::Str,
        "TCA_ACT_INDEX" | "TCA_ACT_IN_HW_COUNT" => Val::U32,
        "TCA_ACT_STATS" => Val::Nested(&TC_STATS_ATTRS),
        "TCA_ACT_FLAGS" => Val::Flags(TCA_ACT_FLAGS),
        "TCA_ACT_HW_STATS" | "TCA_ACT_USED_HW_STATS" => Val::Flags(TCA_ACT_HW_STATS_FLAGS),
        _ => Val::Bytes,
    },
};

/// DCB_ATTR_* of a data center bridging message: named, their payloads
/// bytes (strace too).
static DCB_ATTRS: Attrs = Attrs {
    names: DCB_ATTR_TYPES,
    kind: |_| Val::Bytes,
};

/// TCA_STATS_* inside TCA_STATS2.
static TC_STATS_ATTRS: Attrs = Attrs {
    names: TCA_STATS_TYPES,
    kind: |name| match name {
        "TCA_STATS_BASIC" | "TCA_STATS_BASIC_HW" => Val::Struct(&GNET_STATS_BASIC),
        "TCA_STATS_RATE_EST" => Val::Struct(&GNET_STATS_RATE_EST),
        "TCA_STATS_RATE_EST64" => Val::Struct(&GNET_STATS_RATE_EST64),
        "TCA_STATS_QUEUE" => Val::Struct(&GNET_STATS_QUEUE),
        "TCA_STATS_PKT64" => Val::U64,
        _ => Val::Bytes,
    },
};

/// RTA_MULTIPATH's `struct rtnexthop`s, each `rtnh_len` bytes long with
/// its own RTA_* attributes after the struct: `[{rtnh_len=8, ...,
/// rtnh_ifindex=if_nametoindex("lo")}, ...]`, an entry with attributes
/// `[{...}, [attributes]]`.
pub(super) fn put_multipath(p: &mut Printer, v: &[u8], depth: usize) {
    let size = RTNEXTHOP.size;
    p.open("", "[", Naming::Elements);
    let limit = super::max_items(p);
    let mut off = 0;
    let mut shown = 0;
    while off + size <= v.len() {
        if shown == limit {
            p.more();
            break;
        }
        let len = (super::u16_at(v, off) as usize).max(size);
        let one = &v[off..(off + len).min(v.len())];
        let attrs = &one[super::align(size).min(one.len())..];
        if !attrs.is_empty() {
            p.open("", "[", Naming::Elements);
        }
        put_struct(p, "", &RTNEXTHOP, one, &mut |p, f, b| {
            let n = num(f, b);
            match f.name {
                "rtnh_flags" => p.flags(f.name, n, RTNH_F_FLAGS),
                "rtnh_ifindex" => p.ifindex(f.name, n as u32),
                _ => return false,
            }
            true
        });
        if !attrs.is_empty() {
            put_attrs(p, attrs, &ROUTE_ATTRS, depth + 1);
            p.close("]");
        }
        off += super::align(len);
        shown += 1;
    }
    if off < v.len() && shown < limit {
        p.more();
    }
    p.close("]");
}

/// NETCONFA_* attributes of a netconf message: the device (or all, or
/// the default) and its settings, ints.
static NETCONF_ATTRS: Attrs = Attrs {
    names: NETCONFA_TYPES,
    kind: |name| match name {
        "NETCONFA_IFINDEX" => Val::IfindexOr(NETCONFA_IFINDEXES),
        _ => Val::I32,
    },
};

/// NDTA_* attributes of a neighbour table message.
static NEIGHTBL_ATTRS: Attrs = Attrs {
    names: NDTA_TYPES,
    kind: |name| match name {
        "NDTA_NAME" => Val::Str,
        "NDTA_THRESH1" | "NDTA_THRESH2" | "NDTA_THRESH3" => Val::U32,
        "NDTA_CONFIG" => Val::Struct(&NDT_CONFIG),
        "NDTA_PARMS" => Val::Nested(&NEIGHTBL_PARMS),
        "NDTA_STATS" => Val::Struct(&NDT_STATS),
        "NDTA_GC_INTERVAL" => Val::U64,
        _ => Val::Bytes,
    },
};

/// NDTPA_* inside NDTA_PARMS: a device's (or the table's) parameters.
static NEIGHTBL_PARMS: Attrs = Attrs {
    names: NDTPA_TYPES,
    kind: |name| match name {
        "NDTPA_IFINDEX" => Val::Ifindex,
        "NDTPA_REFCNT"
        | "NDTPA_QUEUE_LEN"
        | "NDTPA_APP_PROBES"
        | "NDTPA_UCAST_PROBES"
        | "NDTPA_MCAST_PROBES"
        | "NDTPA_PROXY_QLEN"
        | "NDTPA_QUEUE_LENBYTES"
        | "NDTPA_MCAST_REPROBES" => Val::U32,
        "NDTPA_REACHABLE_TIME"
        | "NDTPA_BASE_REACHABLE_TIME"
        | "NDTPA_RETRANS_TIME"
        | "NDTPA_GC_STALETIME"
        | "NDTPA_DELAY_PROBE_TIME"
        | "NDTPA_ANYCAST_DELAY"
        | "NDTPA_PROXY_DELAY"
        | "NDTPA_LOCKTIME"
        | "NDTPA_INTERVAL_PROBE_TIME_MS" => Val::U64,
        _ => Val::Bytes,
    },
};

/// IFAL_* attributes of an address label message.
static ADDRLABEL_ATTRS: Attrs = Attrs {
    names: IFAL_TYPES,
    kind: |name| match name {
        "IFAL_ADDRESS" => Val::Ip,
        "IFAL_LABEL" => Val::U32,
        _ => Val::Bytes,
    },
};

/// NETNSA_* attributes of a namespace id message.
static NSID_ATTRS: Attrs = Attrs {
    names: NETNSA_TYPES,
    kind: |name| match name {
        "NETNSA_NSID" | "NETNSA_TARGET_NSID" | "NETNSA_CURRENT_NSID" => Val::I32,
        "NETNSA_PID" | "NETNSA_FD" => Val::U32,
        _ => Val::Bytes,
    },
};

/// TCA_STAB_* inside TCA_STAB: a size table's parameters and data.
static TC_STAB_ATTRS: Attrs = Attrs {
    names: TCA_STAB_TYPES,
    kind: |name| match name {
        "TCA_STAB_BASE" => Val::Struct(&TC_SIZESPEC),
        "TCA_STAB_DATA" => Val::Nums {
            size: 2,
            hex: false,
        },
        _ => Val::Bytes,
    },
};

/// RTA_VIA's `struct rtvia`: an address family (a `sa_family_t`), then an
/// address of that family: `{rtvia_family=AF_INET6,
/// rtvia_addr=inet_pton(AF_INET6, "::1")}`.
fn put_via(p: &mut Printer, v: &[u8]) {
    let at = std::mem::size_of::<libc::sa_family_t>();
    if v.len() < at {
        return put_bytes(p, "", v);
    }
    let family = super::u16_at(v, 0) as i64;
    // The family's address from the bytes after it (more are ignored, as
    // the kernel ignores them); anything else as bytes.
    let len = match lookup(FAMILIES, family) {
        Some("AF_INET") => 4,
        Some("AF_INET6") => 16,
        _ => usize::MAX,
    };
    p.open("", "{", Naming::Fields);
    put_family(p, "rtvia_family", family);
    match v.get(at..at.saturating_add(len)) {
        Some(addr) => super::put_ip(p, "rtvia_addr", addr),
        None => put_bytes(p, "rtvia_addr", &v[at..]),
    }
    p.close("}");
}
