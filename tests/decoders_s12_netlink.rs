//! Netlink payloads (issue 25, session 12): the `s12_netlink` fixture sends
//! crafted messages on NETLINK_ROUTE, NETLINK_SOCK_DIAG and
//! NETLINK_NETFILTER sockets; whole lines compared with what strace 6.1
//! shows (its differences in spelling listed at [`expected`]), and JSON.

mod common;

use common::{assert_lines, fixture, name, trace};

/// The header of a message of `kind` with `flags`.
fn nlh(len: u32, kind: &str, flags: &str) -> String {
    format!("{{nlmsg_len={len}, nlmsg_type={kind}, nlmsg_flags={flags}, nlmsg_seq=0, nlmsg_pid=0}}")
}

/// `sendto(fd, [header, struct, attribute], len, ...) = result`.
fn sent(fd: u32, len: u32, (kind, flags): (&str, &str), head: &str, attr: &str) -> String {
    format!(
        "sendto({fd}, [{}, {head}, {attr}], {len}, MSG_DONTWAIT, NULL, 0) = {len}",
        nlh(len, kind, flags)
    )
}

/// The fixture's trace from its marker on, as strace 6.1 shows it but for
/// these spellings: a type no table names is a number (strace:
/// `0x17 /* RTM_??? */`), as is an unknown netfilter subsystem (strace:
/// `0xfe /* NFNL_SUBSYS_??? */`); NETLINK_DIAG_GROUPS' masks are plain hex
/// (strace: `0x00000000000011`); an array cut by unreadable memory ends
/// with the next element's address (strace: `... /* 0x7f.. */`); a
/// packet socket's filter is its instructions (strace: only under `-v`).
fn expected() -> Vec<String> {
    let dump = "NLM_F_REQUEST|NLM_F_DUMP";
    vec![
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]".into(),
        sent(
            3,
            36,
            ("RTM_GETROUTE", dump),
            "{rtm_family=AF_INET, rtm_dst_len=0, rtm_src_len=0, rtm_tos=IPTOS_LOWDELAY, \
             rtm_table=RT_TABLE_MAIN, rtm_protocol=RTPROT_UNSPEC, rtm_scope=RT_SCOPE_UNIVERSE, \
             rtm_type=RTN_UNICAST, rtm_flags=0}",
            "[{nla_len=6, nla_type=RTA_ENCAP_TYPE}, LWTUNNEL_ENCAP_MPLS]",
        ),
        sent(
            3,
            80,
            ("RTM_GETSTATS", "NLM_F_REQUEST"),
            "{family=AF_UNSPEC, ifindex=if_nametoindex(\"lo\"), filter_mask=1<<IFLA_STATS_LINK_64}",
            "[{nla_len=52, nla_type=IFLA_STATS_LINK_XSTATS}, [{nla_len=48, \
             nla_type=LINK_XSTATS_TYPE_BRIDGE}, [{nla_len=44, nla_type=BRIDGE_XSTATS_VLAN}, \
             {rx_bytes=1, rx_packets=0, tx_bytes=0, tx_packets=2, vid=10, \
             flags=BRIDGE_VLAN_INFO_PVID, pad2=0xbadc0ded}]]]",
        ),
        sent(
            3,
            64,
            ("RTM_GETLINK", dump),
            "{ifi_family=AF_UNSPEC, ifi_type=ARPHRD_NETROM, ifi_index=if_nametoindex(\"lo\"), \
             ifi_flags=0, ifi_change=0}",
            "[{nla_len=32, nla_type=IFLA_VFINFO_LIST}, [{nla_len=28, nla_type=IFLA_VF_INFO}, \
             [{nla_len=24, nla_type=IFLA_VF_VLAN_LIST}, [{nla_len=20, \
             nla_type=IFLA_VF_VLAN_INFO}, {vf=1, vlan=100, qos=2, \
             vlan_proto=htons(ETH_P_8021Q)}]]]]",
        ),
        sent(
            3,
            44,
            ("RTM_GETLINK", dump),
            "{ifi_family=AF_BRIDGE, ifi_type=ARPHRD_NETROM, ifi_index=if_nametoindex(\"lo\"), \
             ifi_flags=0, ifi_change=0}",
            "[{nla_len=12, nla_type=IFLA_AF_SPEC}, [{nla_len=8, nla_type=IFLA_BRIDGE_VLAN_INFO}, \
             {flags=BRIDGE_VLAN_INFO_PVID, vid=10}]]",
        ),
        sent(
            3,
            36,
            ("RTM_GETNEIGH", dump),
            "{ndm_family=AF_INET, ndm_ifindex=if_nametoindex(\"lo\"), ndm_state=NUD_PERMANENT, \
             ndm_flags=0, ndm_type=RTN_UNSPEC}",
            "[{nla_len=6, nla_type=NDA_PORT}, htons(4789)]",
        ),
        sent(
            3,
            28,
            ("RTM_GETACTION", dump),
            "{tca_family=AF_UNSPEC}",
            "[{nla_len=8, nla_type=TCA_ACT_FLAGS}, TCA_ACT_FLAGS_SKIP_HW|TCA_ACT_FLAGS_SKIP_SW]",
        ),
        format!(
            "sendto(3, [{}, {{family=AF_INET, data=\"abc\"}}], 20, MSG_DONTWAIT, NULL, 0) = 20",
            nlh(20, "23", "NLM_F_REQUEST")
        ),
        "socket(AF_NETLINK, SOCK_RAW, NETLINK_SOCK_DIAG) = 4".into(),
        "bind(4, {sa_family=AF_NETLINK, nl_pid=0, nl_groups=0x0}, 12) = 0".into(),
        sent(
            4,
            56,
            ("SOCK_DIAG_BY_FAMILY", "NLM_F_DUMP"),
            "{ndiag_family=AF_NETLINK, ndiag_type=SOCK_RAW, ndiag_protocol=NETLINK_ROUTE, \
             ndiag_state=NETLINK_CONNECTED, ndiag_portid=0, ndiag_dst_portid=0, \
             ndiag_dst_group=0, ndiag_ino=0, ndiag_cookie=[0, 0]}",
            "[{nla_len=12, nla_type=NETLINK_DIAG_GROUPS}, [0x11]]",
        ),
        sent(
            4,
            92,
            ("SOCK_DIAG_BY_FAMILY", dump),
            "{sdiag_family=AF_INET, sdiag_protocol=IPPROTO_TCP, idiag_ext=0, \
             idiag_states=1<<TCP_LISTEN, id={idiag_sport=htons(0), idiag_dport=htons(0), \
             idiag_src=inet_addr(\"0.0.0.0\"), idiag_dst=inet_addr(\"0.0.0.0\"), idiag_if=0, \
             idiag_cookie=[0, 0]}}",
            "[{nla_len=20, nla_type=INET_DIAG_REQ_BYTECODE}, {code=INET_DIAG_BC_S_COND, yes=4, \
             no=8}, {family=AF_INET, prefix_len=8, port=80, addr=inet_addr(\"127.0.0.1\")}]",
        ),
        sent(
            4,
            52,
            ("SOCK_DIAG_BY_FAMILY", "NLM_F_DUMP"),
            "{pdiag_family=AF_PACKET, pdiag_type=SOCK_RAW, pdiag_num=ETH_P_ALL, pdiag_ino=0, \
             pdiag_cookie=[0, 0]}",
            "[{nla_len=20, nla_type=PACKET_DIAG_FILTER}, [BPF_STMT(BPF_LD|BPF_B|BPF_ABS, \
             SKF_AD_OFF+SKF_AD_PKTTYPE), BPF_STMT(BPF_RET|BPF_K, 0x2a)]]",
        ),
        format!(
            "sendto(4, [{}, {{udiag_family=AF_UNIX, udiag_type=SOCK_STREAM, \
             udiag_state=TCP_ESTABLISHED, udiag_ino=0, udiag_cookie=[0, 0]}}, [{{nla_len=12, \
             nla_type=UNIX_DIAG_ICONS}}, [7, &ADDR]]], 44, MSG_DONTWAIT, NULL, 0) = -1 [EFAULT]",
            nlh(44, "SOCK_DIAG_BY_FAMILY", "NLM_F_DUMP")
        ),
        "socket(AF_NETLINK, SOCK_RAW, NETLINK_NETFILTER) = 5".into(),
        "bind(5, {sa_family=AF_NETLINK, nl_pid=0, nl_groups=0x0}, 12) = 0".into(),
        format!(
            "sendto(5, {}, 16, MSG_DONTWAIT, NULL, 0) = 16",
            nlh(16, "NFNL_SUBSYS_OSF<<8|OSF_MSG_ADD", "NLM_F_REQUEST")
        ),
        format!(
            "sendto(5, {}, 16, MSG_DONTWAIT, NULL, 0) = 16",
            nlh(16, "0xfe<<8|0x1", "NLM_F_REQUEST")
        ),
        "exit_group(0)".into(),
    ]
}

/// The fixture's messages, whole lines.
#[test]
fn netlink_payloads() {
    let bin = fixture("s12_netlink");
    let run = trace(&["-s", "64"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines: Vec<String> = run
        .after_marker()
        .into_iter()
        .filter(|l| !l.starts_with("Process exited"))
        .collect();
    assert_lines(&lines, &expected());
}

/// `-X raw`: names are numbers, an address its bytes (strace too).
#[test]
fn netlink_payloads_raw() {
    let bin = fixture("s12_netlink");
    let run = trace(&["-X", "raw", "-e", "trace=sendto"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let bytecode = run
        .trace
        .lines()
        .find(|l| l.contains("code=0x7"))
        .unwrap_or_else(|| panic!("no bytecode in {}", run.trace));
    assert!(
        bytecode.contains(
            "[{nla_len=20, nla_type=0x1}, {code=0x7, yes=4, no=8}, {family=0x2, prefix_len=8, \
             port=80, addr=\"\\177\\0\\0\\1\"}]"
        ),
        "{bytecode}"
    );
}

/// `--json`: names and numbers as JSON values; an address a string, an
/// array's first element its number.
#[test]
fn netlink_payloads_json() {
    use serde_json::{Value, json};
    let bin = fixture("s12_netlink");
    let run = trace(&["--json", "-e", "trace=sendto"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let sends: Vec<Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .filter(|o| o["name"] == "sendto")
        .collect();
    let route = &sends[0]["args"]["buf"];
    assert_eq!(
        route[1]["rtm_tos"]["flags"],
        json!(["IPTOS_LOWDELAY"]),
        "{route}"
    );
    let vlan = &sends[1]["args"]["buf"][2][1][1][1];
    assert_eq!(
        vlan["flags"]["flags"],
        json!(["BRIDGE_VLAN_INFO_PVID"]),
        "{vlan}"
    );
    assert_eq!(vlan["pad2"], json!(0xbadc0ded_u32), "{vlan}");
    let bytecode = &sends[8]["args"]["buf"][2];
    assert_eq!(bytecode[2]["addr"], json!("127.0.0.1"), "{bytecode}");
    let filter = &sends[9]["args"]["buf"][2][1];
    assert_eq!(filter[1]["k"], json!(0x2a), "{filter}");
    let icons = &sends[10]["args"]["buf"][2][1];
    assert_eq!(icons[0], json!(7), "{icons}");
}
