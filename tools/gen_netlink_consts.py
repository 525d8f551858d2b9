#!/usr/bin/env python3
"""Generate src/service/netlink/consts.rs from the Linux uapi headers.

The netlink decoder's names and numbers (NLMSG_*, NLM_F_*, RTM_*, IFLA_*,
IFA_*, RTA_*, INET_DIAG_*, ...) are kernel data: this program takes the
names from the headers (an enum block, a run of #defines, or a list of
names where the header groups them only by comment) and lets the C
compiler give their values, so nothing is typed in by hand.

    python3 tools/gen_netlink_consts.py > src/service/netlink/consts.rs
    python3 tools/gen_netlink_consts.py --digest   # the headers' digest only

The output records a digest of the headers it read, so the test that
regenerates it (tests/netlink.rs) can tell "the file is stale" from "this
machine has other headers".
"""

import hashlib
import os
import re
import subprocess
import sys
import tempfile

INCLUDE = os.environ.get("NETLINK_INCLUDE", "/usr/include")

# Headers read, in the order the C program includes them.
HEADERS = [
    "linux/netlink.h",
    "linux/rtnetlink.h",
    "linux/if_link.h",
    "linux/if_bridge.h",
    "linux/if_tun.h",
    "linux/if_addr.h",
    "linux/if.h",
    "linux/if_arp.h",
    "linux/neighbour.h",
    "linux/fib_rules.h",
    "linux/sock_diag.h",
    "linux/inet_diag.h",
    "linux/genetlink.h",
    "linux/unix_diag.h",
    "linux/packet_diag.h",
    "linux/netlink_diag.h",
    "linux/vm_sockets_diag.h",
    "linux/xdp_diag.h",
    "linux/nexthop.h",
    "linux/netconf.h",
    "linux/lwtunnel.h",
    "linux/if_addrlabel.h",
    "linux/net_namespace.h",
    "linux/pkt_sched.h",
    "linux/gen_stats.h",
    "linux/audit.h",
    "linux/xfrm.h",
    "linux/netfilter/nfnetlink.h",
    "linux/netfilter/nfnetlink_conntrack.h",
    "linux/netfilter/nf_tables.h",
    "linux/netfilter/nfnetlink_queue.h",
    "linux/mroute.h",
    "linux/selinux_netlink.h",
    "linux/mroute6.h",
    "linux/netfilter/nfnetlink_acct.h",
    "linux/netfilter/nfnetlink_cthelper.h",
    "linux/netfilter/nfnetlink_cttimeout.h",
    "linux/netfilter/ipset/ip_set.h",
    "linux/netfilter/nf_tables_compat.h",
    "linux/netfilter/nfnetlink_log.h",
    "linux/ip.h",
    "linux/ipv6.h",
    "linux/snmp.h",
    "linux/mpls.h",
    "linux/if_bonding.h",
    "linux/if_ether.h",
    "linux/pkt_cls.h",
    "linux/dcbnl.h",
    # The TCP states (idiag_state) are not in the kernel's uapi; the C
    # library's header carries the kernel's numbering.
    "netinet/tcp.h",
]


def text_of(header):
    with open(os.path.join(INCLUDE, header), encoding="utf-8") as f:
        src = f.read()
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    return re.sub(r"//[^\n]*", " ", src)


def enum_of(header, member, prefix=None, keep=()):
    """Members of the enum block in `header` that contains `member` (less
    the `__*` and `*_MAX` bounds, but for the real members in `keep`)."""
    src = text_of(header)
    for body in re.findall(r"\benum\b[^{;]*\{(.*?)\}", src, flags=re.S):
        body = re.sub(r"^\s*#.*$", "", body, flags=re.M)
        names = []
        for item in body.split(","):
            m = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)", item)
            if m:
                names.append(m.group(1))
        if member in names:
            return [
                n
                for n in names
                if not n.startswith("__")
                and (not n.endswith("_MAX") or n in keep)
                and (prefix is None or n.startswith(prefix))
            ]
    sys.exit(f"gen_netlink_consts: no enum with {member} in {header}")


def defines(header, prefix, exclude=()):
    """#define NAME VALUE lines of `header` whose name starts with `prefix`."""
    src = text_of(header)
    names = []
    for m in re.finditer(r"^\s*#\s*define\s+(" + prefix + r"[A-Za-z0-9_]*)\s+\S", src, flags=re.M):
        name = m.group(1)
        if name not in exclude and not name.endswith("_MAX") and name not in names:
            names.append(name)
    if not names:
        sys.exit(f"gen_netlink_consts: no {prefix}* in {header}")
    return names


def defines_between(header, first, last, exclude_re=None):
    """The #define names of `header` from `first` to `last` (inclusive),
    in the header's order, less those matching `exclude_re`: a run of
    numbers the header groups only by position (the audit message types)."""
    src = text_of(header)
    names = re.findall(r"^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)\s+\S", src, flags=re.M)
    try:
        run = names[names.index(first):names.index(last) + 1]
    except ValueError:
        sys.exit(f"gen_netlink_consts: no {first}..{last} in {header}")
    return [n for n in run if not (exclude_re and re.search(exclude_re, n))]


# (Rust name, kind, names, doc). kind "values" is a (value, name) table,
# "flags" a FlagDef table (single bits, or masks named by their value).
TABLES = [
    ("NETLINK_PROTOCOLS", "values",
     ["NETLINK_ROUTE", "NETLINK_SOCK_DIAG", "NETLINK_KOBJECT_UEVENT", "NETLINK_GENERIC",
      "NETLINK_AUDIT", "NETLINK_XFRM", "NETLINK_NETFILTER", "NETLINK_SELINUX"],
     "The netlink protocols the decoder tells apart (`<linux/netlink.h>`)."),
    ("NLMSG_LIMITS", "values", ["NLMSG_MIN_TYPE"],
     "The first type that is not a control message."),
    ("NLMSG_TYPES", "values",
     ["NLMSG_NOOP", "NLMSG_ERROR", "NLMSG_DONE", "NLMSG_OVERRUN"],
     "Control message types (`<linux/netlink.h>`)."),
    ("NLM_F_COMMON", "flags",
     ["NLM_F_REQUEST", "NLM_F_MULTI", "NLM_F_ACK", "NLM_F_ECHO",
      "NLM_F_DUMP_INTR", "NLM_F_DUMP_FILTERED"],
     "Flags of every message (`<linux/netlink.h>`)."),
    ("NLM_F_GET", "flags", ["NLM_F_DUMP", "NLM_F_ROOT", "NLM_F_MATCH", "NLM_F_ATOMIC"],
     "Flags of a GET request; NLM_F_DUMP first, as it is ROOT|MATCH."),
    ("NLM_F_NEW", "flags", ["NLM_F_REPLACE", "NLM_F_EXCL", "NLM_F_CREATE", "NLM_F_APPEND"],
     "Flags of a NEW request."),
    ("NLM_F_DELETE", "flags", ["NLM_F_NONREC", "NLM_F_BULK"],
     "Flags of a DELETE request."),
    ("NLM_F_ACK_FLAGS", "flags", ["NLM_F_CAPPED", "NLM_F_ACK_TLVS"],
     "Flags of an NLMSG_ERROR (acknowledgement) message."),
    ("NLA_FLAGS", "flags", ["NLA_F_NESTED", "NLA_F_NET_BYTEORDER"],
     "Flags in an attribute's nla_type (`<linux/netlink.h>`)."),
    ("NLMSGERR_ATTRS", "values", enum_of("linux/netlink.h", "NLMSGERR_ATTR_MSG"),
     "Extended-ack attributes after an NLMSG_ERROR's echoed request."),
    ("RTM_TYPES", "values",
     [n for n in enum_of("linux/rtnetlink.h", "RTM_NEWLINK", "RTM_") if n != "RTM_BASE"],
     "rtnetlink message types (`<linux/rtnetlink.h>`)."),
    ("RTN_TYPES", "values", enum_of("linux/rtnetlink.h", "RTN_UNICAST"),
     "Route types, rtm_type."),
    ("RTPROT", "values", defines("linux/rtnetlink.h", "RTPROT_"),
     "Route origins, rtm_protocol."),
    ("RT_SCOPES", "values", enum_of("linux/rtnetlink.h", "RT_SCOPE_HOST"),
     "Scopes, rtm_scope and ifa_scope."),
    ("RT_TABLES", "values", enum_of("linux/rtnetlink.h", "RT_TABLE_MAIN"),
     "Routing tables, rtm_table and RTA_TABLE."),
    ("RTNH_F_FLAGS", "flags", defines("linux/rtnetlink.h", "RTNH_F_"),
     "A next hop's flags: nh_flags, rtnh_flags, and rtm_flags' low byte."),
    ("RTM_F_FLAGS", "flags", defines("linux/rtnetlink.h", "RTM_F_"),
     "rtm_flags' route flags (after the next-hop flags)."),
    ("RTA_TYPES", "values", enum_of("linux/rtnetlink.h", "RTA_DST"),
     "Route attributes."),
    ("RTAX_TYPES", "values", enum_of("linux/rtnetlink.h", "RTAX_MTU"),
     "Route metrics, inside RTA_METRICS."),
    ("RTEXT_FILTERS", "flags", defines("linux/rtnetlink.h", "RTEXT_FILTER_"),
     "IFLA_EXT_MASK values."),
    ("IFLA_TYPES", "values", enum_of("linux/if_link.h", "IFLA_IFNAME"),
     "Link attributes (`<linux/if_link.h>`)."),
    ("IFLA_INFO_TYPES", "values", enum_of("linux/if_link.h", "IFLA_INFO_KIND"),
     "Attributes inside IFLA_LINKINFO."),
    ("IFLA_BR_TYPES", "values",
     enum_of("linux/if_link.h", "IFLA_BR_FORWARD_DELAY", keep=("IFLA_BR_MCAST_HASH_MAX",)),
     "A bridge's attributes: IFLA_INFO_DATA of a link of kind \"bridge\"."),
    ("BR_BOOLOPT_IDS", "values", enum_of("linux/if_bridge.h", "BR_BOOLOPT_NO_LL_LEARN"),
     "IFLA_BR_MULTI_BOOLOPT's options, by bit number (`<linux/if_bridge.h>`)."),
    ("BRIDGE_QUERIER_TYPES", "values",
     enum_of("linux/if_bridge.h", "BRIDGE_QUERIER_IP_ADDRESS"),
     "A bridge's multicast querier state, inside IFLA_BR_MCAST_QUERIER_STATE."),
    ("IFLA_TUN_TYPES", "values", enum_of("linux/if_link.h", "IFLA_TUN_OWNER"),
     "A tun device's attributes: IFLA_INFO_DATA of a link of kind \"tun\"."),
    ("TUN_DEVICE_TYPES", "values", ["IFF_TUN", "IFF_TAP"],
     "IFLA_TUN_TYPE's values (`<linux/if_tun.h>`)."),
    ("IFLA_XDP_TYPES", "values", enum_of("linux/if_link.h", "IFLA_XDP_FD"),
     "Attributes inside IFLA_XDP."),
    ("XDP_ATTACHED", "values", enum_of("linux/if_link.h", "XDP_ATTACHED_NONE"),
     "IFLA_XDP_ATTACHED values."),
    ("SELNL_MSGS", "values", enum_of("linux/selinux_netlink.h", "SELNL_MSG_SETENFORCE"),
     "NETLINK_SELINUX message types (`<linux/selinux_netlink.h>`)."),
    ("RTNL_FAMILIES", "values",
     defines("linux/rtnetlink.h", "RTNL_FAMILY_", exclude=("RTNL_FAMILY_MAX",)),
     "rtnetlink's own families beyond AF_* (multicast routing's cache reports)."),
    ("IPMRA_CREPORT_TYPES", "values", enum_of("linux/mroute.h", "IPMRA_CREPORT_MSGTYPE"),
     "Attributes of an IPv4 multicast routing cache report."),
    ("IGMPMSG_TYPES", "values", defines("linux/mroute.h", "IGMPMSG_"),
     "IPMRA_CREPORT_MSGTYPE's values."),
    ("IP6MRA_CREPORT_TYPES", "values", enum_of("linux/mroute6.h", "IP6MRA_CREPORT_MSGTYPE"),
     "Attributes of an IPv6 multicast routing cache report."),
    ("MRT6MSG_TYPES", "values", defines("linux/mroute6.h", "MRT6MSG_"),
     "IP6MRA_CREPORT_MSGTYPE's values."),
    ("IFLA_PROTO_DOWN_REASON_TYPES", "values",
     enum_of("linux/if_link.h", "IFLA_PROTO_DOWN_REASON_MASK"),
     "Attributes inside IFLA_PROTO_DOWN_REASON."),
    ("MDBA_TYPES", "values", enum_of("linux/if_bridge.h", "MDBA_MDB"),
     "Attributes of a multicast database message (RTM_*MDB)."),
    ("MDBA_MDB_TYPES", "values", enum_of("linux/if_bridge.h", "MDBA_MDB_ENTRY"),
     "Attributes inside MDBA_MDB."),
    ("MDBA_MDB_ENTRY_TYPES", "values", enum_of("linux/if_bridge.h", "MDBA_MDB_ENTRY_INFO"),
     "Attributes inside MDBA_MDB_ENTRY."),
    ("MDBA_ROUTER_TYPES", "values", enum_of("linux/if_bridge.h", "MDBA_ROUTER_PORT"),
     "Attributes inside MDBA_ROUTER."),
    ("MDBA_ROUTER_PATTR_TYPES", "values",
     enum_of("linux/if_bridge.h", "MDBA_ROUTER_PATTR_TIMER"),
     "A router port's attributes, after its interface index in MDBA_ROUTER_PORT."),
    ("MDB_RTR_TYPES", "values", enum_of("linux/if_bridge.h", "MDB_RTR_TYPE_DISABLED"),
     "MDBA_ROUTER_PATTR_TYPE's values."),
    ("IFLA_BRPORT_TYPES", "values", enum_of("linux/if_link.h", "IFLA_BRPORT_STATE"),
     "A bridge port's attributes, IFLA_PROTINFO of an AF_BRIDGE link message."),
    ("IFLA_EVENTS", "values", enum_of("linux/if_link.h", "IFLA_EVENT_NONE"),
     "IFLA_EVENT values."),
    ("XDP_FLAGS", "flags",
     defines("linux/if_link.h", "XDP_FLAGS_", exclude=("XDP_FLAGS_MODES", "XDP_FLAGS_MASK")),
     "IFLA_XDP_FLAGS values."),
    ("IFLA_INET6_TYPES", "values", enum_of("linux/if_link.h", "IFLA_INET6_FLAGS"),
     "AF_INET6 attributes inside IFLA_AF_SPEC."),
    ("IFLA_INET_TYPES", "values", enum_of("linux/if_link.h", "IFLA_INET_CONF"),
     "AF_INET attributes inside IFLA_AF_SPEC."),
    ("IFLA_BRIDGE_TYPES", "values", enum_of("linux/if_bridge.h", "IFLA_BRIDGE_FLAGS"),
     "Attributes inside an AF_BRIDGE link message's IFLA_AF_SPEC (`<linux/if_bridge.h>`)."),
    ("IN6_ADDR_GEN_MODES", "values", enum_of("linux/if_link.h", "IN6_ADDR_GEN_MODE_EUI64"),
     "IFLA_INET6_ADDR_GEN_MODE values."),
    ("IPV4_DEVCONF", "values", enum_of("linux/ip.h", "IPV4_DEVCONF_FORWARDING"),
     "IFLA_INET_CONF's entries (`<linux/ip.h>`): entry i is value i+1."),
    ("DEVCONF", "values", enum_of("linux/ipv6.h", "DEVCONF_FORWARDING"),
     "IFLA_INET6_CONF's entries (`<linux/ipv6.h>`)."),
    ("IPSTATS_MIB", "values", enum_of("linux/snmp.h", "IPSTATS_MIB_NUM"),
     "IFLA_INET6_STATS's entries (`<linux/snmp.h>`)."),
    ("ICMP6_MIB", "values", enum_of("linux/snmp.h", "ICMP6_MIB_NUM"),
     "IFLA_INET6_ICMP6STATS's entries (`<linux/snmp.h>`)."),
    ("IF_OPER", "values", enum_of("linux/if.h", "IF_OPER_UP"),
     "IFLA_OPERSTATE values (`<linux/if.h>`)."),
    ("IF_LINK_MODE", "values", enum_of("linux/if.h", "IF_LINK_MODE_DORMANT"),
     "IFLA_LINKMODE values."),
    ("ARPHRD_TYPES", "values", defines("linux/if_arp.h", "ARPHRD_"),
     "Hardware types, ifi_type (`<linux/if_arp.h>`)."),
    ("IFA_TYPES", "values", enum_of("linux/if_addr.h", "IFA_ADDRESS"),
     "Address attributes (`<linux/if_addr.h>`)."),
    ("IFA_F_FLAGS", "flags", defines("linux/if_addr.h", "IFA_F_", exclude=("IFA_F_TEMPORARY",)),
     "Address flags, ifa_flags and IFA_FLAGS."),
    ("NDA_TYPES", "values", enum_of("linux/neighbour.h", "NDA_LLADDR"),
     "Neighbour attributes (`<linux/neighbour.h>`)."),
    ("NUD_STATES", "flags", defines("linux/neighbour.h", "NUD_"),
     "Neighbour states, ndm_state."),
    ("NTF_FLAGS", "flags",
     defines("linux/neighbour.h", "NTF_", exclude=("NTF_EXT_MANAGED", "NTF_EXT_LOCKED")),
     "Neighbour flags, ndm_flags (not the NTF_EXT_* of NDA_FLAGS_EXT)."),
    ("FRA_TYPES", "values", enum_of("linux/fib_rules.h", "FRA_PRIORITY"),
     "Routing rule attributes (`<linux/fib_rules.h>`)."),
    ("FR_ACTIONS", "values", enum_of("linux/fib_rules.h", "FR_ACT_TO_TBL"),
     "Routing rule actions."),
    ("FIB_RULE_FLAGS", "flags",
     defines("linux/fib_rules.h", "FIB_RULE_", exclude=("FIB_RULE_DEV_DETACHED",)),
     "Routing rule flags."),
    ("SOCK_DIAG_TYPES", "values",
     defines("linux/sock_diag.h", "SOCK_") + defines("linux/inet_diag.h", "TCPDIAG_")
     + defines("linux/inet_diag.h", "DCCPDIAG_"),
     "sock_diag message types (`<linux/sock_diag.h>`), and the older inet_diag"
     " requests (`<linux/inet_diag.h>`)."),
    ("SK_MEMINFO", "values",
     [n for n in enum_of("linux/sock_diag.h", "SK_MEMINFO_RCVBUF") if n != "SK_MEMINFO_VARS"],
     "Indexes of INET_DIAG_SKMEMINFO's array."),
    ("INET_DIAG_TYPES", "values", enum_of("linux/inet_diag.h", "INET_DIAG_MEMINFO"),
     "inet_diag reply attributes (`<linux/inet_diag.h>`)."),
    ("INET_DIAG_REQ_TYPES", "values", enum_of("linux/inet_diag.h", "INET_DIAG_REQ_BYTECODE"),
     "inet_diag request attributes."),
    ("TCP_STATES", "values", enum_of("netinet/tcp.h", "TCP_ESTABLISHED"),
     "TCP states, idiag_state (`<netinet/tcp.h>`, the kernel's numbering)."),
    ("UNIX_DIAG_ATTRS", "values", enum_of("linux/unix_diag.h", "UNIX_DIAG_NAME"),
     "unix_diag answer attributes (`<linux/unix_diag.h>`)."),
    ("UDIAG_SHOW_FLAGS", "flags", defines("linux/unix_diag.h", "UDIAG_SHOW_"),
     "What a unix_diag request asks for, udiag_show."),
    ("PACKET_DIAG_ATTRS", "values", enum_of("linux/packet_diag.h", "PACKET_DIAG_INFO"),
     "packet_diag answer attributes (`<linux/packet_diag.h>`)."),
    ("PACKET_SHOW_FLAGS", "flags", defines("linux/packet_diag.h", "PACKET_SHOW_"),
     "What a packet_diag request asks for, pdiag_show."),
    ("PDI_FLAGS", "flags", defines("linux/packet_diag.h", "PDI_"),
     "A packet socket's options, pdi_flags."),
    ("NETLINK_DIAG_ATTRS", "values", enum_of("linux/netlink_diag.h", "NETLINK_DIAG_MEMINFO"),
     "netlink_diag answer attributes (`<linux/netlink_diag.h>`)."),
    ("NDIAG_SHOW_FLAGS", "flags", defines("linux/netlink_diag.h", "NDIAG_SHOW_"),
     "What a netlink_diag request asks for, ndiag_show."),
    ("NDIAG_FLAGS", "flags", defines("linux/netlink_diag.h", "NDIAG_FLAG_"),
     "A netlink socket's options, NETLINK_DIAG_FLAGS."),
    ("NDIAG_PROTOS", "values", ["NDIAG_PROTO_ALL"],
     "A netlink_diag request's protocol for every protocol."),
    ("NETCONFA_TYPES", "values", enum_of("linux/netconf.h", "NETCONFA_IFINDEX"),
     "Attributes of a netconf message (`<linux/netconf.h>`)."),
    ("NETCONFA_IFINDEXES", "values", ["NETCONFA_IFINDEX_ALL", "NETCONFA_IFINDEX_DEFAULT"],
     "NETCONFA_IFINDEX's values that are not interfaces."),
    ("IFLA_STATS_TYPES", "values", enum_of("linux/if_link.h", "IFLA_STATS_LINK_64"),
     "Attributes of an RTM_NEWSTATS message; filter_mask bit n-1 asks for n."),
    ("NDTA_TYPES", "values", enum_of("linux/neighbour.h", "NDTA_NAME"),
     "Attributes of a neighbour table message (`<linux/neighbour.h>`)."),
    ("NDTPA_TYPES", "values", enum_of("linux/neighbour.h", "NDTPA_IFINDEX"),
     "A neighbour table's parameters, inside NDTA_PARMS."),
    ("IFAL_TYPES", "values", enum_of("linux/if_addrlabel.h", "IFAL_ADDRESS"),
     "Attributes of an address label message (`<linux/if_addrlabel.h>`)."),
    ("NETNSA_TYPES", "values", enum_of("linux/net_namespace.h", "NETNSA_NSID"),
     "Attributes of a namespace id message (`<linux/net_namespace.h>`)."),
    ("XDP_DIAG_ATTRS", "values", enum_of("linux/xdp_diag.h", "XDP_DIAG_INFO"),
     "xdp_diag answer attributes (`<linux/xdp_diag.h>`)."),
    ("XDP_SHOW_FLAGS", "flags", defines("linux/xdp_diag.h", "XDP_SHOW_"),
     "What an xdp_diag request asks for, xdiag_show."),
    ("XDP_DU_FLAGS", "flags", defines("linux/xdp_diag.h", "XDP_DU_F_"),
     "An XDP socket's umem flags."),
    ("LWTUNNEL_ENCAP_TYPES", "values", enum_of("linux/lwtunnel.h", "LWTUNNEL_ENCAP_MPLS"),
     "RTA_ENCAP_TYPE and NHA_ENCAP_TYPE values (`<linux/lwtunnel.h>`)."),
    ("TCA_STAB_TYPES", "values", enum_of("linux/pkt_sched.h", "TCA_STAB_BASE"),
     "Attributes inside TCA_STAB (`<linux/pkt_sched.h>`)."),
    ("NHA_TYPES", "values", enum_of("linux/nexthop.h", "NHA_ID"),
     "Next-hop attributes (`<linux/nexthop.h>`)."),
    ("NEXTHOP_GRP_TYPES", "values", enum_of("linux/nexthop.h", "NEXTHOP_GRP_TYPE_MPATH"),
     "NHA_GROUP_TYPE values."),
    ("TCA_TYPES", "values", enum_of("linux/rtnetlink.h", "TCA_KIND"),
     "Traffic control attributes of qdiscs, classes and filters (`<linux/rtnetlink.h>`)."),
    ("TCA_DUMP_FLAGS", "flags", defines("linux/rtnetlink.h", "TCA_DUMP_FLAGS_"),
     "TCA_DUMP_FLAGS values."),
    ("TCA_STATS_TYPES", "values", enum_of("linux/gen_stats.h", "TCA_STATS_BASIC"),
     "Attributes inside TCA_STATS2 (`<linux/gen_stats.h>`)."),
    ("AUDIT_TYPES", "values",
     defines_between("linux/audit.h", "AUDIT_GET", "AUDIT_KERNEL", r"_(FIRST|LAST)_"),
     "NETLINK_AUDIT message types (`<linux/audit.h>`)."),
    ("XFRM_TYPES", "values",
     [n for n in enum_of("linux/xfrm.h", "XFRM_MSG_NEWSA") if n != "XFRM_MSG_BASE"],
     "NETLINK_XFRM message types (`<linux/xfrm.h>`)."),
    ("NFNL_SUBSYS", "values", defines("linux/netfilter/nfnetlink.h", "NFNL_SUBSYS_",
                                      exclude=("NFNL_SUBSYS_COUNT",)),
     "NETLINK_NETFILTER subsystems, a message type's high byte"
     " (`<linux/netfilter/nfnetlink.h>`)."),
    ("NFNL_BATCH", "values", ["NFNL_MSG_BATCH_BEGIN", "NFNL_MSG_BATCH_END"],
     "NETLINK_NETFILTER's batch delimiters, whole message types."),
    ("NFNETLINK_VERSIONS", "values", ["NFNETLINK_V0"], "nfgenmsg's version."),
    ("NFT_MSGS", "values", enum_of("linux/netfilter/nf_tables.h", "NFT_MSG_NEWTABLE"),
     "NFNL_SUBSYS_NFTABLES's messages (`<linux/netfilter/nf_tables.h>`)."),
    ("CTNL_MSGS", "values",
     enum_of("linux/netfilter/nfnetlink_conntrack.h", "IPCTNL_MSG_CT_NEW"),
     "NFNL_SUBSYS_CTNETLINK's messages (`<linux/netfilter/nfnetlink_conntrack.h>`)."),
    ("CTNL_EXP_MSGS", "values",
     enum_of("linux/netfilter/nfnetlink_conntrack.h", "IPCTNL_MSG_EXP_NEW"),
     "NFNL_SUBSYS_CTNETLINK_EXP's messages."),
    ("NFQNL_MSGS", "values", enum_of("linux/netfilter/nfnetlink_queue.h", "NFQNL_MSG_PACKET"),
     "NFNL_SUBSYS_QUEUE's messages (`<linux/netfilter/nfnetlink_queue.h>`)."),
    ("NFULNL_MSGS", "values", enum_of("linux/netfilter/nfnetlink_log.h", "NFULNL_MSG_PACKET"),
     "NFNL_SUBSYS_ULOG's messages (`<linux/netfilter/nfnetlink_log.h>`)."),
    ("NFNL_ACCT_MSGS", "values", enum_of("linux/netfilter/nfnetlink_acct.h", "NFNL_MSG_ACCT_NEW"),
     "NFNL_SUBSYS_ACCT's messages (`<linux/netfilter/nfnetlink_acct.h>`)."),
    ("NFNL_CTHELPER_MSGS", "values",
     enum_of("linux/netfilter/nfnetlink_cthelper.h", "NFNL_MSG_CTHELPER_NEW"),
     "NFNL_SUBSYS_CTHELPER's messages (`<linux/netfilter/nfnetlink_cthelper.h>`)."),
    ("CTNL_TIMEOUT_MSGS", "values",
     enum_of("linux/netfilter/nfnetlink_cttimeout.h", "IPCTNL_MSG_TIMEOUT_NEW"),
     "NFNL_SUBSYS_CTNETLINK_TIMEOUT's messages (`<linux/netfilter/nfnetlink_cttimeout.h>`)."),
    # The commands up to IPSET_MSG_MAX; those after it are ipset(8)'s own.
    ("IPSET_CMDS", "values",
     [n for n in enum_of("linux/netfilter/ipset/ip_set.h", "IPSET_CMD_NONE", "IPSET_CMD_")
      if n not in ("IPSET_CMD_RESTORE", "IPSET_CMD_HELP", "IPSET_CMD_VERSION",
                   "IPSET_CMD_QUIT", "IPSET_CMD_COMMIT")],
     "NFNL_SUBSYS_IPSET's messages (`<linux/netfilter/ipset/ip_set.h>`)."),
    ("NFT_COMPAT_MSGS", "values",
     enum_of("linux/netfilter/nf_tables_compat.h", "NFNL_MSG_COMPAT_GET"),
     "NFNL_SUBSYS_NFT_COMPAT's messages (`<linux/netfilter/nf_tables_compat.h>`)."),
    ("GENL_IDS", "values", ["GENL_ID_CTRL"],
     "Generic netlink's fixed family id (`<linux/genetlink.h>`)."),
    ("CTRL_CMDS", "values", enum_of("linux/genetlink.h", "CTRL_CMD_GETFAMILY"),
     "Commands of the generic netlink controller."),
    ("CTRL_ATTRS", "values", enum_of("linux/genetlink.h", "CTRL_ATTR_FAMILY_ID"),
     "Attributes of the generic netlink controller."),
    # helper netlink (session 12): route tos, neighbour extensions,
    # netlink socket states, VF info and link statistics.
    ("IPTOS_FLAGS", "flags",
     ["IPTOS_LOWDELAY", "IPTOS_THROUGHPUT", "IPTOS_RELIABILITY", "IPTOS_MINCOST"],
     "Type-of-service bits, rtm_tos and a rule's tos (`<linux/ip.h>`)."),
    ("NETLINK_SK_STATES", "values", enum_of("linux/netlink.h", "NETLINK_CONNECTED"),
     "A netlink socket's state, ndiag_state (`<linux/netlink.h>`)."),
    ("NFEA_TYPES", "values", enum_of("linux/neighbour.h", "NFEA_ACTIVITY_NOTIFY"),
     "Attributes inside NDA_FDB_EXT_ATTRS."),
    ("FDB_NOTIFY_FLAGS", "flags", enum_of("linux/neighbour.h", "FDB_NOTIFY_BIT"),
     "NFEA_ACTIVITY_NOTIFY's bits."),
    ("NTF_EXT_FLAGS", "flags", defines("linux/neighbour.h", "NTF_EXT_",
                                       exclude=("NTF_EXT_LEARNED",)),
     "NDA_FLAGS_EXT's bits (not ndm_flags' NTF_EXT_LEARNED)."),
    ("IFLA_VFINFO_LIST_TYPES", "values", enum_of("linux/if_link.h", "IFLA_VF_INFO"),
     "Attributes inside IFLA_VFINFO_LIST."),
    ("IFLA_VF_TYPES", "values", enum_of("linux/if_link.h", "IFLA_VF_MAC"),
     "Attributes inside IFLA_VF_INFO."),
    ("IFLA_VF_LINK_STATES", "values", enum_of("linux/if_link.h", "IFLA_VF_LINK_STATE_AUTO"),
     "struct ifla_vf_link_state's link_state."),
    ("IFLA_VF_STATS_TYPES", "values", enum_of("linux/if_link.h", "IFLA_VF_STATS_RX_PACKETS"),
     "Attributes inside IFLA_VF_STATS."),
    ("IFLA_VF_VLAN_LIST_TYPES", "values", enum_of("linux/if_link.h", "IFLA_VF_VLAN_INFO"),
     "Attributes inside IFLA_VF_VLAN_LIST."),
    ("IFLA_VF_PORTS_TYPES", "values", enum_of("linux/if_link.h", "IFLA_VF_PORT"),
     "Attributes inside IFLA_VF_PORTS."),
    ("IFLA_PORT_TYPES", "values", enum_of("linux/if_link.h", "IFLA_PORT_VF"),
     "Attributes inside IFLA_VF_PORT and IFLA_PORT_SELF."),
    ("LINK_XSTATS_TYPES", "values", enum_of("linux/if_link.h", "LINK_XSTATS_TYPE_BRIDGE"),
     "Attributes inside IFLA_STATS_LINK_XSTATS(_SLAVE)."),
    ("IFLA_OFFLOAD_XSTATS_TYPES", "values",
     enum_of("linux/if_link.h", "IFLA_OFFLOAD_XSTATS_CPU_HIT"),
     "Attributes inside IFLA_STATS_LINK_OFFLOAD_XSTATS."),
    ("BRIDGE_XSTATS_TYPES", "values", enum_of("linux/if_bridge.h", "BRIDGE_XSTATS_VLAN"),
     "A bridge's LINK_XSTATS_TYPE_BRIDGE attributes."),
    ("BR_MCAST_DIRS", "values", enum_of("linux/if_bridge.h", "BR_MCAST_DIR_RX"),
     "Indexes of struct br_mcast_stats' arrays."),
    ("BRIDGE_VLAN_INFO_FLAGS", "flags", defines("linux/if_bridge.h", "BRIDGE_VLAN_INFO_"),
     "struct bridge_vlan_xstats' flags."),
    ("BOND_XSTATS_TYPES", "values", enum_of("linux/if_bonding.h", "BOND_XSTATS_3AD"),
     "A bond's LINK_XSTATS_TYPE_BOND attributes."),
    ("BOND_3AD_STAT_TYPES", "values", enum_of("linux/if_bonding.h", "BOND_3AD_STAT_LACPDU_RX"),
     "Attributes inside BOND_XSTATS_3AD."),
    ("TCA_ACT_TYPES", "values", enum_of("linux/pkt_cls.h", "TCA_ACT_KIND"),
     "Attributes of an action message (`<linux/pkt_cls.h>`)."),
    ("TCA_ACT_FLAGS", "flags", defines("linux/pkt_cls.h", "TCA_ACT_FLAGS_"),
     "TCA_ACT_FLAGS values."),
    ("TCA_ACT_HW_STATS_FLAGS", "flags",
     defines("linux/pkt_cls.h", "TCA_ACT_HW_STATS_", exclude=("TCA_ACT_HW_STATS_ANY",)),
     "TCA_ACT_HW_STATS and TCA_ACT_USED_HW_STATS values."),
    ("DCB_CMDS", "values", enum_of("linux/dcbnl.h", "DCB_CMD_GSTATE"),
     "dcbmsg's cmd (`<linux/dcbnl.h>`)."),
    ("DCB_ATTR_TYPES", "values", enum_of("linux/dcbnl.h", "DCB_ATTR_STATE"),
     "Attributes of a data center bridging message."),
    ("INET_DIAG_BC_CODES", "values", enum_of("linux/inet_diag.h", "INET_DIAG_BC_NOP"),
     "inet_diag bytecode operations, struct inet_diag_bc_op's code."),
    ("BRIDGE_FLAGS", "flags", defines("linux/if_bridge.h", "BRIDGE_FLAGS_"),
     "IFLA_BRIDGE_FLAGS values."),
    ("BRIDGE_MODES", "values", defines("linux/if_bridge.h", "BRIDGE_MODE_"),
     "IFLA_BRIDGE_MODE values."),
    ("IFLA_BRIDGE_VLAN_TUNNEL_TYPES", "values",
     enum_of("linux/if_bridge.h", "IFLA_BRIDGE_VLAN_TUNNEL_ID"),
     "Attributes inside IFLA_BRIDGE_VLAN_TUNNEL_INFO."),
    ("IFLA_MCTP_TYPES", "values", enum_of("linux/if_link.h", "IFLA_MCTP_NET"),
     "AF_MCTP attributes inside IFLA_AF_SPEC."),
    ("MPLS_STATS_TYPES", "values", enum_of("linux/mpls.h", "MPLS_STATS_LINK"),
     "AF_MPLS attributes inside IFLA_STATS_AF_SPEC (`<linux/mpls.h>`)."),
]


# (Rust name, C struct): payload layouts, with every field's offset, element
# size and element count from the compiler.
STRUCTS = [
    ("NLMSGHDR", "nlmsghdr"),
    ("BR_PORT_MSG", "br_port_msg"),
    ("SELNL_MSG_SETENFORCE", "selnl_msg_setenforce"),
    ("SELNL_MSG_POLICYLOAD", "selnl_msg_policyload"),
    ("NLATTR", "nlattr"),
    ("NLMSGERR", "nlmsgerr"),
    ("IFINFOMSG", "ifinfomsg"),
    ("IFADDRMSG", "ifaddrmsg"),
    ("IFA_CACHEINFO", "ifa_cacheinfo"),
    ("RTMSG", "rtmsg"),
    ("RTA_CACHEINFO", "rta_cacheinfo"),
    ("RTNL_LINK_STATS", "rtnl_link_stats"),
    ("RTNL_LINK_STATS64", "rtnl_link_stats64"),
    ("IFLA_CACHEINFO", "ifla_cacheinfo"),
    ("RTNL_LINK_IFMAP", "rtnl_link_ifmap"),
    ("IFLA_BRIDGE_ID", "ifla_bridge_id"),
    ("BR_BOOLOPT_MULTI", "br_boolopt_multi"),
    ("NDMSG", "ndmsg"),
    ("NDA_CACHEINFO", "nda_cacheinfo"),
    ("FIB_RULE_HDR", "fib_rule_hdr"),
    ("FIB_RULE_UID_RANGE", "fib_rule_uid_range"),
    ("FIB_RULE_PORT_RANGE", "fib_rule_port_range"),
    ("INET_DIAG_SOCKID", "inet_diag_sockid"),
    ("INET_DIAG_REQ_V2", "inet_diag_req_v2"),
    ("INET_DIAG_REQ", "inet_diag_req"),
    ("INET_DIAG_MSG", "inet_diag_msg"),
    ("INET_DIAG_MEMINFO", "inet_diag_meminfo"),
    ("GENLMSGHDR", "genlmsghdr"),
    ("UNIX_DIAG_REQ", "unix_diag_req"),
    ("UNIX_DIAG_MSG", "unix_diag_msg"),
    ("UNIX_DIAG_VFS", "unix_diag_vfs"),
    ("UNIX_DIAG_RQLEN", "unix_diag_rqlen"),
    ("PACKET_DIAG_REQ", "packet_diag_req"),
    ("PACKET_DIAG_MSG", "packet_diag_msg"),
    ("PACKET_DIAG_INFO", "packet_diag_info"),
    ("PACKET_DIAG_MCLIST", "packet_diag_mclist"),
    ("PACKET_DIAG_RING", "packet_diag_ring"),
    ("NETLINK_DIAG_REQ", "netlink_diag_req"),
    ("NETLINK_DIAG_MSG", "netlink_diag_msg"),
    ("NETLINK_DIAG_RING", "netlink_diag_ring"),
    ("VSOCK_DIAG_REQ", "vsock_diag_req"),
    ("VSOCK_DIAG_MSG", "vsock_diag_msg"),
    ("XDP_DIAG_REQ", "xdp_diag_req"),
    ("XDP_DIAG_MSG", "xdp_diag_msg"),
    ("XDP_DIAG_INFO", "xdp_diag_info"),
    ("XDP_DIAG_RING", "xdp_diag_ring"),
    ("XDP_DIAG_UMEM", "xdp_diag_umem"),
    ("XDP_DIAG_STATS", "xdp_diag_stats"),
    ("RTNEXTHOP", "rtnexthop"),
    ("RTA_MFC_STATS", "rta_mfc_stats"),
    ("TC_SIZESPEC", "tc_sizespec"),
    ("NETCONFMSG", "netconfmsg"),
    ("IF_STATS_MSG", "if_stats_msg"),
    ("NDTMSG", "ndtmsg"),
    ("NDT_CONFIG", "ndt_config"),
    ("NDT_STATS", "ndt_stats"),
    ("IFADDRLBLMSG", "ifaddrlblmsg"),
    ("RTGENMSG", "rtgenmsg"),
    ("NHMSG", "nhmsg"),
    ("NEXTHOP_GRP", "nexthop_grp"),
    ("TCMSG", "tcmsg"),
    ("TC_STATS", "tc_stats"),
    ("TC_ESTIMATOR", "tc_estimator"),
    ("GNET_STATS_BASIC", "gnet_stats_basic"),
    ("GNET_STATS_RATE_EST", "gnet_stats_rate_est"),
    ("GNET_STATS_RATE_EST64", "gnet_stats_rate_est64"),
    ("GNET_STATS_QUEUE", "gnet_stats_queue"),
    ("NFGENMSG", "nfgenmsg"),
    # helper netlink (session 12)
    ("IFLA_VF_MAC", "ifla_vf_mac"),
    ("IFLA_VF_BROADCAST", "ifla_vf_broadcast"),
    ("IFLA_VF_VLAN", "ifla_vf_vlan"),
    ("IFLA_VF_VLAN_INFO", "ifla_vf_vlan_info"),
    ("IFLA_VF_TX_RATE", "ifla_vf_tx_rate"),
    ("IFLA_VF_RATE", "ifla_vf_rate"),
    ("IFLA_VF_SPOOFCHK", "ifla_vf_spoofchk"),
    ("IFLA_VF_LINK_STATE", "ifla_vf_link_state"),
    ("IFLA_VF_RSS_QUERY_EN", "ifla_vf_rss_query_en"),
    ("IFLA_VF_TRUST", "ifla_vf_trust"),
    ("IFLA_VF_GUID", "ifla_vf_guid"),
    ("IFLA_PORT_VSI", "ifla_port_vsi"),
    ("BRIDGE_VLAN_XSTATS", "bridge_vlan_xstats"),
    ("BRIDGE_STP_XSTATS", "bridge_stp_xstats"),
    ("BR_MCAST_STATS", "br_mcast_stats"),
    ("MPLS_LINK_STATS", "mpls_link_stats"),
    ("TCAMSG", "tcamsg"),
    ("BRIDGE_VLAN_INFO", "bridge_vlan_info"),
    ("INET_DIAG_BC_OP", "inet_diag_bc_op"),
    ("INET_DIAG_HOSTCOND", "inet_diag_hostcond"),
    ("INET_DIAG_MARKCOND", "inet_diag_markcond"),
    ("DCBMSG", "dcbmsg"),
]


# (Rust name, C struct) of structs made of bit-fields: each field's first
# bit and width, found by the compiler (set it to all ones, see which bits
# of the struct changed).
BITFIELDS = [
    ("INET_DIAG_SOCKOPT_BITS", "inet_diag_sockopt"),
]


def bitfield_names(tag):
    """Bit-field names of `struct tag`, in order."""
    for header in HEADERS:
        m = re.search(r"\bstruct\s+" + tag + r"\s*\{(.*?)\};", text_of(header), flags=re.S)
        if m:
            return re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*:\s*\d+", m.group(1))
    sys.exit(f"gen_netlink_consts: no struct {tag}")


def struct_fields(tag):
    """(name, is an array, is a struct or union, is a flexible array) of
    each field of `struct tag`, from whichever header defines it."""
    for header in HEADERS:
        src = text_of(header)
        m = re.search(r"\bstruct\s+" + tag + r"\s*\{(.*?)\};", src, flags=re.S)
        if m:
            body = re.sub(r"^\s*#.*$", "", m.group(1), flags=re.M)
            names = []
            for decl in body.split(";"):
                f = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*(\[[^]]*\])?\s*$", decl)
                if f:
                    record = re.match(r"\s*(struct|union)\b", decl) is not None
                    names.append((f.group(1), f.group(2) is not None, record,
                                  re.fullmatch(r"\[\s*\]", f.group(2) or "") is not None))
            return names
    sys.exit(f"gen_netlink_consts: no struct {tag}")


# (Rust name, header, a member, doc): enums of headers that cannot be
# compiled beside the others (<linux/netfilter/nfnetlink_osf.h> clashes
# with <netinet/tcp.h>), each valued by a program of its own.
ALONE = [
    ("OSF_MSGS", "linux/netfilter/nfnetlink_osf.h", "OSF_MSG_ADD",
     "NFNL_SUBSYS_OSF's messages (`<linux/netfilter/nfnetlink_osf.h>`)."),
]


def run_c(prog):
    """Compile and run `prog`; its output's `KEY NUM..` lines as a dict."""
    with tempfile.TemporaryDirectory() as d:
        c = os.path.join(d, "v.c")
        exe = os.path.join(d, "v")
        with open(c, "w") as f:
            f.write(prog)
        cc = os.environ.get("CC", "gcc")
        subprocess.run([cc, "-I", INCLUDE, "-o", exe, c], check=True)
        out = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        key, *nums = line.split()
        if key in found:
            sys.exit(f"gen_netlink_consts: {key} named twice")
        found[key] = [int(x) for x in nums]
    return found


def alone_values():
    """The ALONE tables: (Rust name, doc, [(value, name)])."""
    tables = []
    for rust, header, member, doc in ALONE:
        names = enum_of(header, member)
        prog = f"#include <{header}>\n#include <stdio.h>\nint main(void) {{\n"
        for n in names:
            prog += f'    printf("%s %lld\\n", "{n}", (long long)({n}));\n'
        prog += "    return 0;\n}\n"
        v = run_c(prog)
        tables.append((rust, doc, [(v[n][0], n) for n in names]))
    return tables


def values():
    """Every name's value, from the C compiler."""
    names = [n for (_, _, ns, _) in TABLES for n in ns]
    prog = "".join(f"#include <{h}>\n" for h in HEADERS)
    prog += "#include <stdio.h>\n#include <stddef.h>\n#include <string.h>\n"
    prog += "int main(void) {\n"
    for n in names:
        prog += f'    printf("%s %lld\\n", "{n}", (long long)({n}));\n'
    for rust, tag in STRUCTS:
        t = f"struct {tag}"
        prog += f'    printf("struct.{rust} %zu\\n", sizeof({t}));\n'
        for f, array, record, flexible in struct_fields(tag):
            elem = f"((({t} *)0)->{f}" + ("[0])" if array else ")")
            # A flexible array member has no size: no elements.
            count = "0" if flexible else f"sizeof((({t} *)0)->{f}) / sizeof{elem}"
            # A scalar's (or an array element's) signedness; a struct is
            # not signed.
            signed = "0" if record else f"(__typeof__{elem})-1 < 0"
            prog += (f'    printf("struct.{rust}.{f} %zu %zu %zu %d\\n", offsetof({t}, {f}), '
                     f"sizeof{elem}, (size_t)({count}), {signed});\n")
    for rust, tag in BITFIELDS:
        for f in bitfield_names(tag):
            prog += (f"    {{ struct {tag} s; memset(&s, 0, sizeof(s)); s.{f} = ~s.{f};\n"
                     f"      unsigned char *b = (unsigned char *)&s; int first = -1, n = 0;\n"
                     f"      for (int i = 0; i < (int)sizeof(s) * 8; i++)\n"
                     f"        if (b[i / 8] & (1 << (i % 8))) {{ if (first < 0) first = i; n++; }}\n"
                     f'      printf("bits.{rust}.{f} %d %d\\n", first, n); }}\n')
    prog += "    return 0;\n}\n"
    return run_c(prog)


def digest():
    h = hashlib.sha256()
    for header in HEADERS + [a[1] for a in ALONE]:
        with open(os.path.join(INCLUDE, header), "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def main():
    if sys.argv[1:] == ["--digest"]:
        print(digest())
        return
    v = values()
    out = []
    w = out.append
    w("//! Netlink names and numbers from the Linux uapi headers.\n")
    w("//!\n")
    w("//! GENERATED by tools/gen_netlink_consts.py; do not edit. Regenerate with\n")
    w("//! `python3 tools/gen_netlink_consts.py > src/service/netlink/consts.rs`.\n")
    w("//! Headers: " + ", ".join(HEADERS + [a[1] for a in ALONE]) + "\n")
    w(f"//! headers-sha256: {digest()}\n\n")
    w("use super::{Field, Layout};\n")
    w("use crate::format::{FlagDef, flag};\n")
    for rust, kind, names, doc in TABLES:
        w(f"\n/// {doc}\n")
        if kind == "values":
            w(f"pub const {rust}: &[(i64, &str)] = &[\n")
            for n in names:
                w(f'    ({v[n][0]}, "{n}"),\n')
        else:
            w(f"pub const {rust}: &[FlagDef] = &[\n")
            for n in names:
                w(f'    flag({v[n][0]:#x}, "{n}"),\n')
        w("];\n")
    for rust, doc, table in alone_values():
        w(f"\n/// {doc}\n")
        w(f"pub const {rust}: &[(i64, &str)] = &[\n")
        for value, n in table:
            w(f'    ({value}, "{n}"),\n')
        w("];\n")
    for rust, tag in STRUCTS:
        w(f"\n/// `struct {tag}`.\n")
        w(f"pub const {rust}: Layout = Layout {{\n")
        w(f"    size: {v['struct.' + rust][0]},\n")
        w("    fields: &[\n")
        for f, _, _, _ in struct_fields(tag):
            off, size, count, signed = v[f"struct.{rust}.{f}"]
            kind = "Field::signed" if signed else "Field::new"
            w(f'        {kind}("{f}", {off}, {size}, {count}),\n')
        w("    ],\n")
        w("};\n")
    for rust, tag in BITFIELDS:
        w(f"\n/// The bit-fields of `struct {tag}`: name, first bit, width.\n")
        w(f"pub const {rust}: &[(&str, u32, u32)] = &[\n")
        for f in bitfield_names(tag):
            first, width = v[f"bits.{rust}.{f}"]
            w(f'    ("{f}", {first}, {width}),\n')
        w("];\n")
    # rustfmt's layout, so that `cargo fmt` leaves the file as generated.
    fmt = subprocess.run(["rustfmt", "--edition", "2024"], input="".join(out),
                         check=True, capture_output=True, text=True)
    sys.stdout.write(fmt.stdout)


if __name__ == "__main__":
    main()
