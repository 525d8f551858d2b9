//! Issue 25's netlink breadth, compared whole with strace 6.x's
//! information: interface indexes named wherever the kernel reads one
//! (`ifindex` fixture: sockaddr_ll, a link-local sockaddr_in6, the
//! multicast requests), in text, `-X verbose` and JSON; unix, packet and
//! netlink sock_diag requests and answers (`netlink_diag` fixture); next
//! hops, qdiscs and the message types of NETLINK_AUDIT, NETLINK_XFRM and
//! NETLINK_NETFILTER (`netlink_rt` fixture). The netlink fixtures run in a
//! new network namespace: they need root, else the test says so and passes.
//!
//! Index 1 is `lo` in every network namespace, rtrace's own included,
//! where the name is looked up (as strace does).

mod common;

use common::{fixture, name, trace};

/// Values the kernel picks per run besides pids: socket inodes and
/// cookies, qdisc handles.
fn normalise_kernel(lines: &[String]) -> Vec<String> {
    let rules = [
        (r"(udiag|pdiag|ndiag)_ino=[1-9]\d*", "${1}_ino=INODE"),
        (
            r"(udiag|pdiag|ndiag)_cookie=\[[1-9]\d*, \d+\]",
            "${1}_cookie=[COOKIE]",
        ),
        // The kernel numbers new qdiscs from a counter of its own.
        (r"tcm_handle=[1-9]\d*", "tcm_handle=HANDLE"),
    ];
    common::rewrite(lines, &rules)
}

/// Whether this test can make network namespaces (root).
fn can_unshare() -> bool {
    common::root_or_skip("netlink_more", "network namespace")
}

/// The `ifindex` fixture's calls, all on fd -1.
const IFINDEX: &[&str] = &[
    "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
    "bind(-1, {sa_family=AF_PACKET, sll_protocol=htons(ETH_P_ALL), sll_ifindex=if_nametoindex(\"lo\"), sll_hatype=0, sll_pkttype=PACKET_HOST, sll_halen=0, sll_addr=[]}, 20) = -1 [EBADF]",
    // No interface has it: the number.
    "bind(-1, {sa_family=AF_PACKET, sll_protocol=htons(ETH_P_ALL), sll_ifindex=999999, sll_hatype=0, sll_pkttype=PACKET_HOST, sll_halen=0, sll_addr=[]}, 20) = -1 [EBADF]",
    "connect(-1, {sa_family=AF_INET6, sin6_port=htons(7), sin6_flowinfo=htonl(0), sin6_addr=inet_pton(AF_INET6, \"fe80::1\"), sin6_scope_id=if_nametoindex(\"lo\")}, 28) = -1 [EBADF]",
    "connect(-1, {sa_family=AF_INET6, sin6_port=htons(7), sin6_flowinfo=htonl(0), sin6_addr=inet_pton(AF_INET6, \"ff02::1\"), sin6_scope_id=if_nametoindex(\"lo\")}, 28) = -1 [EBADF]",
    // Not link-local: a scope is not an interface.
    "connect(-1, {sa_family=AF_INET6, sin6_port=htons(7), sin6_flowinfo=htonl(0), sin6_addr=inet_pton(AF_INET6, \"::1\"), sin6_scope_id=1}, 28) = -1 [EBADF]",
    "setsockopt(-1, SOL_IP, IP_MULTICAST_IF, {imr_multiaddr=inet_addr(\"224.0.0.1\"), imr_address=inet_addr(\"127.0.0.1\"), imr_ifindex=if_nametoindex(\"lo\")}, 12) = -1 [EBADF]",
    "setsockopt(-1, SOL_IP, IP_ADD_MEMBERSHIP, {imr_multiaddr=inet_addr(\"224.0.0.1\"), imr_address=inet_addr(\"127.0.0.1\"), imr_ifindex=if_nametoindex(\"lo\")}, 12) = -1 [EBADF]",
    "setsockopt(-1, SOL_IP, IP_DROP_MEMBERSHIP, {imr_multiaddr=inet_addr(\"224.0.0.1\"), imr_interface=inet_addr(\"127.0.0.1\")}, 8) = -1 [EBADF]",
    "setsockopt(-1, SOL_IPV6, IPV6_ADD_MEMBERSHIP, {ipv6mr_multiaddr=inet_pton(AF_INET6, \"ff02::1\"), ipv6mr_interface=if_nametoindex(\"lo\")}, 20) = -1 [EBADF]",
    // strace shows these two as numbers too.
    "setsockopt(-1, SOL_IPV6, IPV6_MULTICAST_IF, [1], 4) = -1 [EBADF]",
    "setsockopt(-1, SOL_SOCKET, SO_BINDTOIFINDEX, [1], 4) = -1 [EBADF]",
    "exit_group(0)",
    "Process exited normally with code 0",
];

/// Compare whole lines; on a mismatch show where and the whole trace.
fn assert_lines(actual: &[String], expected: &[&str]) {
    let first = actual
        .iter()
        .zip(expected)
        .position(|(a, e)| a != e)
        .unwrap_or(actual.len().min(expected.len()));
    assert!(
        actual.len() == expected.len() && first == actual.len(),
        "trace differs at line {first}:\n  actual:   {:?}\n  expected: {:?}\nwhole trace:\n{}",
        actual.get(first),
        expected.get(first),
        actual.join("\n")
    );
}

#[test]
fn interface_indexes_are_named() {
    let bin = fixture("ifindex");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_lines(&run.after_marker(), IFINDEX);
}

/// The same calls from a 32-bit program (the socket calls read in the
/// i386 layout): the same lines.
#[test]
fn i386_interface_indexes() {
    let bin = common::fixture_m32("ifindex");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_lines(&run.after_marker(), IFINDEX);
}

/// `-X verbose` writes the number and the name in a comment, `-X raw` and
/// `-V` the number alone, as strace does.
#[test]
fn interface_index_styles() {
    let bin = fixture("ifindex");
    for (opt, want) in [
        ("-Xverbose", "sll_ifindex=1 /* if_nametoindex(\"lo\") */"),
        ("-Xraw", "sll_ifindex=1,"),
        ("-V", "sll_ifindex=1,"),
    ] {
        let run = trace(&[opt, "-e", "trace=bind"], &[name(&bin)]);
        let first = run
            .lines()
            .into_iter()
            .find(|l| l.starts_with("bind("))
            .unwrap();
        assert!(first.contains(want), "{opt}: {first}");
    }
}

/// In JSON a named index is `{"value", "name"}` as any named constant, an
/// unknown one its number.
#[test]
fn interface_indexes_in_json() {
    let bin = fixture("ifindex");
    let run = trace(&["--json", "-e", "trace=bind,setsockopt"], &[name(&bin)]);
    let calls: Vec<serde_json::Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .filter(|v: &serde_json::Value| v["type"] == "call")
        .collect();
    assert_eq!(
        calls[0]["args"]["addr"]["sll_ifindex"],
        serde_json::json!({"value": 1, "name": "if_nametoindex(\"lo\")"})
    );
    assert_eq!(calls[1]["args"]["addr"]["sll_ifindex"], 999999);
    let v6 = calls
        .iter()
        .find(|c| c["args"]["optname"]["name"] == "IPV6_ADD_MEMBERSHIP")
        .expect("IPV6_ADD_MEMBERSHIP");
    assert_eq!(
        v6["args"]["optval"],
        serde_json::json!({"ipv6mr_multiaddr": "ff02::1",
            "ipv6mr_interface": {"value": 1, "name": "if_nametoindex(\"lo\")"}})
    );
}

/// The `netlink_diag` fixture, `-s 64`: what `ss -xa`, `ss -0` and `ss -A
/// netlink` ask and what the kernel answers. strace 6.1 shows the same
/// but for bit 12 of udiag_states, which it names TCP_NEW_SYN_RECV (a
/// state no uapi header has; here in the hex remainder), and the
/// membership's pdmc_type, which it prints as a number.
const DIAG: &[&str] = &[
    "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
    "sendto(5, [{nlmsg_len=40, nlmsg_type=SOCK_DIAG_BY_FAMILY, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=1, nlmsg_pid=0}, {sdiag_family=AF_UNIX, sdiag_protocol=0, udiag_states=1<<TCP_ESTABLISHED|1<<TCP_SYN_SENT|1<<TCP_SYN_RECV|1<<TCP_FIN_WAIT1|1<<TCP_FIN_WAIT2|1<<TCP_TIME_WAIT|1<<TCP_CLOSE|1<<TCP_CLOSE_WAIT|1<<TCP_LAST_ACK|1<<TCP_LISTEN|1<<TCP_CLOSING|0xfffff001, udiag_ino=0, udiag_show=UDIAG_SHOW_NAME|UDIAG_SHOW_PEER|UDIAG_SHOW_RQLEN, udiag_cookie=[0, 0]}], 40, 0, NULL, 0) = 40",
    "recvfrom(5, [{nlmsg_len=68, nlmsg_type=SOCK_DIAG_BY_FAMILY, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=1, nlmsg_pid=PID1}, {udiag_family=AF_UNIX, udiag_type=SOCK_STREAM, udiag_state=TCP_LISTEN, udiag_ino=INODE, udiag_cookie=[COOKIE]}, [[{nla_len=16, nla_type=UNIX_DIAG_NAME}, \"\\0rtrace-diag\"], [{nla_len=12, nla_type=UNIX_DIAG_RQLEN}, {udiag_rqueue=0, udiag_wqueue=3}], [{nla_len=5, nla_type=UNIX_DIAG_SHUTDOWN}, 0]]], 16384, 0, NULL, NULL) = 68",
    "recvfrom(5, [{nlmsg_len=20, nlmsg_type=NLMSG_DONE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=1, nlmsg_pid=PID1}, 0], 16384, 0, NULL, NULL) = 20",
    "sendto(5, [{nlmsg_len=36, nlmsg_type=SOCK_DIAG_BY_FAMILY, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=2, nlmsg_pid=0}, {sdiag_family=AF_PACKET, sdiag_protocol=0, pdiag_ino=0, pdiag_show=PACKET_SHOW_INFO|PACKET_SHOW_MCLIST, pdiag_cookie=[0, 0]}], 36, 0, NULL, 0) = 36",
    "recvfrom(5, [{nlmsg_len=116, nlmsg_type=SOCK_DIAG_BY_FAMILY, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=2, nlmsg_pid=PID1}, {pdiag_family=AF_PACKET, pdiag_type=SOCK_DGRAM, pdiag_num=ETH_P_IP, pdiag_ino=INODE, pdiag_cookie=[COOKIE]}, [[{nla_len=28, nla_type=PACKET_DIAG_INFO}, {pdi_index=if_nametoindex(\"lo\"), pdi_version=TPACKET_V1, pdi_reserve=0, pdi_copy_thresh=0, pdi_tstamp=0, pdi_flags=0}], [{nla_len=8, nla_type=PACKET_DIAG_UID}, 0], [{nla_len=48, nla_type=PACKET_DIAG_MCLIST}, [{pdmc_index=if_nametoindex(\"lo\"), pdmc_count=1, pdmc_type=PACKET_MR_MULTICAST, pdmc_alen=6, pdmc_addr=\"\\x01\\x00\\x5e\\x00\\x00\\x01\"}]]]], 16384, 0, NULL, NULL) = 116",
    "recvfrom(5, [{nlmsg_len=20, nlmsg_type=NLMSG_DONE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=2, nlmsg_pid=PID1}, 0], 16384, 0, NULL, NULL) = 20",
    "sendto(5, [{nlmsg_len=36, nlmsg_type=SOCK_DIAG_BY_FAMILY, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=3, nlmsg_pid=0}, {sdiag_family=AF_NETLINK, sdiag_protocol=NETLINK_ROUTE, ndiag_ino=0, ndiag_show=NDIAG_SHOW_GROUPS|NDIAG_SHOW_FLAGS, ndiag_cookie=[0, 0]}], 36, 0, NULL, 0) = 36",
    "recvfrom(5, [[{nlmsg_len=52, nlmsg_type=SOCK_DIAG_BY_FAMILY, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=3, nlmsg_pid=PID1}, {ndiag_family=AF_NETLINK, ndiag_type=SOCK_DGRAM, ndiag_protocol=NETLINK_ROUTE, ndiag_state=TCP_CLOSE, ndiag_portid=0, ndiag_dst_portid=0, ndiag_dst_group=0, ndiag_ino=INODE, ndiag_cookie=[COOKIE]}, [{nla_len=8, nla_type=NETLINK_DIAG_FLAGS}, 0]], [{nlmsg_len=20, nlmsg_type=NLMSG_DONE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=3, nlmsg_pid=PID1}, 0]], 16384, 0, NULL, NULL) = 72",
    "close(5) = 0",
    "close(4) = 0",
    "close(3) = 0",
    "exit_group(0)",
    "Process exited normally with code 0",
];

#[test]
fn unix_packet_and_netlink_diag() {
    if !can_unshare() {
        return;
    }
    let bin = fixture("netlink_diag");
    let run = trace(&["-s", "64"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_lines(&normalise_kernel(&run.after_marker()), DIAG);
}

/// The `netlink_rt` fixture, `-s 64`. strace 6.1 shows the same
/// information (it writes TCA_OPTIONS's bytes in hex, `"\x0a\x00\x00\x00"`,
/// and leaves the audit request's type a number: its socket was never
/// bound, so strace cannot find it in /proc), but for these, where rtrace
/// shows more: NETCONFA_IFINDEX's -1 and -2 (strace: 4294967295,
/// 4294967294), and RTA_SPORT, `htons(80)` (strace: 20480).
const RT: &[&str] = &[
    "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
    "sendto(3, [{nlmsg_len=36, nlmsg_type=RTM_NEWNEXTHOP, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK|NLM_F_EXCL|NLM_F_CREATE, nlmsg_seq=1, nlmsg_pid=0}, {nh_family=AF_INET, nh_scope=RT_SCOPE_UNIVERSE, nh_protocol=RTPROT_UNSPEC, nh_flags=0}, [[{nla_len=8, nla_type=NHA_ID}, 1], {nla_len=4, nla_type=NHA_BLACKHOLE}]], 36, 0, NULL, 0) = 36",
    "recvfrom(3, [{nlmsg_len=36, nlmsg_type=NLMSG_ERROR, nlmsg_flags=NLM_F_CAPPED, nlmsg_seq=1, nlmsg_pid=PID1}, {error=0, msg={nlmsg_len=36, nlmsg_type=RTM_NEWNEXTHOP, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK|NLM_F_EXCL|NLM_F_CREATE, nlmsg_seq=1, nlmsg_pid=0}}], 16384, 0, NULL, NULL) = 36",
    "sendto(3, [{nlmsg_len=40, nlmsg_type=RTM_NEWNEXTHOP, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK|NLM_F_EXCL|NLM_F_CREATE, nlmsg_seq=3, nlmsg_pid=0}, {nh_family=AF_INET, nh_scope=RT_SCOPE_UNIVERSE, nh_protocol=RTPROT_UNSPEC, nh_flags=0}, [[{nla_len=8, nla_type=NHA_ID}, 2], [{nla_len=8, nla_type=NHA_OIF}, if_nametoindex(\"lo\")]]], 40, 0, NULL, 0) = 40",
    "recvfrom(3, [{nlmsg_len=36, nlmsg_type=NLMSG_ERROR, nlmsg_flags=NLM_F_CAPPED, nlmsg_seq=3, nlmsg_pid=PID1}, {error=0, msg={nlmsg_len=40, nlmsg_type=RTM_NEWNEXTHOP, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK|NLM_F_EXCL|NLM_F_CREATE, nlmsg_seq=3, nlmsg_pid=0}}], 16384, 0, NULL, NULL) = 36",
    "sendto(3, [{nlmsg_len=40, nlmsg_type=RTM_NEWNEXTHOP, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK|NLM_F_EXCL|NLM_F_CREATE, nlmsg_seq=9, nlmsg_pid=0}, {nh_family=AF_INET, nh_scope=RT_SCOPE_UNIVERSE, nh_protocol=RTPROT_UNSPEC, nh_flags=0}, [[{nla_len=8, nla_type=NHA_ID}, 3], [{nla_len=8, nla_type=NHA_OIF}, 999]]], 40, 0, NULL, 0) = 40",
    "recvfrom(3, [{nlmsg_len=60, nlmsg_type=NLMSG_ERROR, nlmsg_flags=0, nlmsg_seq=9, nlmsg_pid=PID1}, {error=-EINVAL, msg=[{nlmsg_len=40, nlmsg_type=RTM_NEWNEXTHOP, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK|NLM_F_EXCL|NLM_F_CREATE, nlmsg_seq=9, nlmsg_pid=0}, {nh_family=AF_INET, nh_scope=RT_SCOPE_UNIVERSE, nh_protocol=RTPROT_UNSPEC, nh_flags=0}, [[{nla_len=8, nla_type=NHA_ID}, 3], [{nla_len=8, nla_type=NHA_OIF}, 999]]]}], 16384, 0, NULL, NULL) = 60",
    "sendto(3, [{nlmsg_len=24, nlmsg_type=RTM_GETNEXTHOP, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=2, nlmsg_pid=0}, {nh_family=AF_UNSPEC, nh_scope=RT_SCOPE_UNIVERSE, nh_protocol=RTPROT_UNSPEC, nh_flags=0}], 24, 0, NULL, 0) = 24",
    "recvfrom(3, [[{nlmsg_len=36, nlmsg_type=RTM_NEWNEXTHOP, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=2, nlmsg_pid=PID1}, {nh_family=AF_INET, nh_scope=RT_SCOPE_UNIVERSE, nh_protocol=RTPROT_UNSPEC, nh_flags=0}, [[{nla_len=8, nla_type=NHA_ID}, 1], {nla_len=4, nla_type=NHA_BLACKHOLE}]], [{nlmsg_len=40, nlmsg_type=RTM_NEWNEXTHOP, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=2, nlmsg_pid=PID1}, {nh_family=AF_INET, nh_scope=RT_SCOPE_HOST, nh_protocol=RTPROT_UNSPEC, nh_flags=0}, [[{nla_len=8, nla_type=NHA_ID}, 2], [{nla_len=8, nla_type=NHA_OIF}, if_nametoindex(\"lo\")]]], [{nlmsg_len=20, nlmsg_type=NLMSG_DONE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=2, nlmsg_pid=PID1}, 0]], 16384, 0, NULL, NULL) = 96",
    "sendto(3, [{nlmsg_len=56, nlmsg_type=RTM_NEWQDISC, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK|NLM_F_EXCL|NLM_F_CREATE, nlmsg_seq=10, nlmsg_pid=0}, {tcm_family=AF_UNSPEC, tcm_ifindex=if_nametoindex(\"lo\"), tcm_handle=0, tcm_parent=4294967295, tcm_info=0}, [[{nla_len=10, nla_type=TCA_KIND}, \"pfifo\"], [{nla_len=8, nla_type=TCA_OPTIONS}, \"\\n\\0\\0\\0\"]]], 56, 0, NULL, 0) = 56",
    "recvfrom(3, [{nlmsg_len=36, nlmsg_type=NLMSG_ERROR, nlmsg_flags=NLM_F_CAPPED, nlmsg_seq=10, nlmsg_pid=PID1}, {error=0, msg={nlmsg_len=56, nlmsg_type=RTM_NEWQDISC, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK|NLM_F_EXCL|NLM_F_CREATE, nlmsg_seq=10, nlmsg_pid=0}}], 16384, 0, NULL, NULL) = 36",
    "sendto(3, [{nlmsg_len=36, nlmsg_type=RTM_GETQDISC, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=4, nlmsg_pid=0}, {tcm_family=AF_UNSPEC, tcm_ifindex=0, tcm_handle=0, tcm_parent=0, tcm_info=0}], 36, 0, NULL, 0) = 36",
    "recvfrom(3, [{nlmsg_len=156, nlmsg_type=RTM_NEWQDISC, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=4, nlmsg_pid=PID1}, {tcm_family=AF_UNSPEC, tcm_ifindex=if_nametoindex(\"lo\"), tcm_handle=HANDLE, tcm_parent=4294967295, tcm_info=2}, [[{nla_len=10, nla_type=TCA_KIND}, \"pfifo\"], [{nla_len=8, nla_type=TCA_OPTIONS}, \"\\n\\0\\0\\0\"], [{nla_len=5, nla_type=TCA_HW_OFFLOAD}, 0], [{nla_len=48, nla_type=TCA_STATS2}, [[{nla_len=20, nla_type=TCA_STATS_BASIC}, {bytes=0, packets=0}], [{nla_len=24, nla_type=TCA_STATS_QUEUE}, {qlen=0, backlog=0, drops=0, requeues=0, overlimits=0}]]], [{nla_len=44, nla_type=TCA_STATS}, {bytes=0, packets=0, drops=0, overlimits=0, bps=0, pps=0, qlen=0, backlog=0}]]], 16384, 0, NULL, NULL) = 156",
    "recvfrom(3, [{nlmsg_len=20, nlmsg_type=NLMSG_DONE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=4, nlmsg_pid=PID1}, 0], 16384, 0, NULL, NULL) = 20",
    "sendto(3, [{nlmsg_len=56, nlmsg_type=RTM_NEWROUTE, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK|NLM_F_EXCL|NLM_F_CREATE, nlmsg_seq=11, nlmsg_pid=0}, {rtm_family=AF_INET, rtm_dst_len=8, rtm_src_len=0, rtm_tos=0, rtm_table=RT_TABLE_MAIN, rtm_protocol=RTPROT_BOOT, rtm_scope=RT_SCOPE_LINK, rtm_type=RTN_UNICAST, rtm_flags=0}, [[{nla_len=8, nla_type=RTA_DST}, inet_addr(\"10.0.0.0\")], [{nla_len=20, nla_type=RTA_MULTIPATH}, [{rtnh_len=8, rtnh_flags=0, rtnh_hops=0, rtnh_ifindex=if_nametoindex(\"lo\")}, {rtnh_len=8, rtnh_flags=0, rtnh_hops=1, rtnh_ifindex=if_nametoindex(\"lo\")}]]]], 56, 0, NULL, 0) = 56",
    "recvfrom(3, [{nlmsg_len=36, nlmsg_type=NLMSG_ERROR, nlmsg_flags=NLM_F_CAPPED, nlmsg_seq=11, nlmsg_pid=PID1}, {error=0, msg={nlmsg_len=56, nlmsg_type=RTM_NEWROUTE, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK|NLM_F_EXCL|NLM_F_CREATE, nlmsg_seq=11, nlmsg_pid=0}}], 16384, 0, NULL, NULL) = 36",
    "sendto(3, [{nlmsg_len=20, nlmsg_type=RTM_GETNETCONF, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=12, nlmsg_pid=0}, {ncm_family=AF_INET}], 20, 0, NULL, 0) = 20",
    "recvfrom(3, [[{nlmsg_len=76, nlmsg_type=RTM_NEWNETCONF, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=12, nlmsg_pid=PID1}, {ncm_family=AF_INET}, [[{nla_len=8, nla_type=NETCONFA_IFINDEX}, if_nametoindex(\"lo\")], [{nla_len=8, nla_type=NETCONFA_FORWARDING}, 0], [{nla_len=8, nla_type=NETCONFA_RP_FILTER}, 0], [{nla_len=8, nla_type=NETCONFA_MC_FORWARDING}, 0], [{nla_len=8, nla_type=NETCONFA_BC_FORWARDING}, 0], [{nla_len=8, nla_type=NETCONFA_PROXY_NEIGH}, 0], [{nla_len=8, nla_type=NETCONFA_IGNORE_ROUTES_WITH_LINKDOWN}, 0]]], [{nlmsg_len=76, nlmsg_type=RTM_NEWNETCONF, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=12, nlmsg_pid=PID1}, {ncm_family=AF_INET}, [[{nla_len=8, nla_type=NETCONFA_IFINDEX}, NETCONFA_IFINDEX_ALL], [{nla_len=8, nla_type=NETCONFA_FORWARDING}, 0], [{nla_len=8, nla_type=NETCONFA_RP_FILTER}, 0], [{nla_len=8, nla_type=NETCONFA_MC_FORWARDING}, 0], [{nla_len=8, nla_type=NETCONFA_BC_FORWARDING}, 0], [{nla_len=8, nla_type=NETCONFA_PROXY_NEIGH}, 0], [{nla_len=8, nla_type=NETCONFA_IGNORE_ROUTES_WITH_LINKDOWN}, 0]]], [{nlmsg_len=76, nlmsg_type=RTM_NEWNETCONF, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=12, nlmsg_pid=PID1}, {ncm_family=AF_INET}, [[{nla_len=8, nla_type=NETCONFA_IFINDEX}, NETCONFA_IFINDEX_DEFAULT], [{nla_len=8, nla_type=NETCONFA_FORWARDING}, 0], [{nla_len=8, nla_type=NETCONFA_RP_FILTER}, 0], [{nla_len=8, nla_type=NETCONFA_MC_FORWARDING}, 0], [{nla_len=8, nla_type=NETCONFA_BC_FORWARDING}, 0], [{nla_len=8, nla_type=NETCONFA_PROXY_NEIGH}, 0], [{nla_len=8, nla_type=NETCONFA_IGNORE_ROUTES_WITH_LINKDOWN}, 0]]], [{nlmsg_len=20, nlmsg_type=NLMSG_DONE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=12, nlmsg_pid=PID1}, 0]], 16384, 0, NULL, NULL) = 248",
    "sendto(3, [{nlmsg_len=28, nlmsg_type=RTM_GETSTATS, nlmsg_flags=NLM_F_REQUEST, nlmsg_seq=13, nlmsg_pid=0}, {family=AF_UNSPEC, ifindex=if_nametoindex(\"lo\"), filter_mask=1<<IFLA_STATS_UNSPEC}], 28, 0, NULL, 0) = 28",
    "recvfrom(3, [{nlmsg_len=232, nlmsg_type=RTM_NEWSTATS, nlmsg_flags=0, nlmsg_seq=13, nlmsg_pid=PID1}, {family=AF_UNSPEC, ifindex=if_nametoindex(\"lo\"), filter_mask=1<<IFLA_STATS_UNSPEC}, [{nla_len=204, nla_type=IFLA_STATS_LINK_64}, {rx_packets=0, tx_packets=0, rx_bytes=0, tx_bytes=0, rx_errors=0, tx_errors=0, rx_dropped=0, tx_dropped=0, multicast=0, collisions=0, rx_length_errors=0, rx_over_errors=0, rx_crc_errors=0, rx_frame_errors=0, rx_fifo_errors=0, rx_missed_errors=0, tx_aborted_errors=0, tx_carrier_errors=0, tx_fifo_errors=0, tx_heartbeat_errors=0, tx_window_errors=0, rx_compressed=0, tx_compressed=0, rx_nohandler=0, rx_otherhost_dropped=0}]], 16384, 0, NULL, NULL) = 232",
    "sendto(3, [{nlmsg_len=72, nlmsg_type=RTM_SETLINK, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK, nlmsg_seq=14, nlmsg_pid=0}, {ifi_family=AF_BRIDGE, ifi_type=ARPHRD_NETROM, ifi_index=99, ifi_flags=0, ifi_change=0}, [{nla_len=40, nla_type=NLA_F_NESTED|IFLA_PROTINFO}, [[{nla_len=5, nla_type=IFLA_BRPORT_STATE}, 3], [{nla_len=8, nla_type=IFLA_BRPORT_COST}, 100], [{nla_len=8, nla_type=IFLA_BRPORT_BACKUP_PORT}, if_nametoindex(\"lo\")], [{nla_len=12, nla_type=IFLA_BRPORT_ROOT_ID}, {prio=[128, 0], addr=02:00:00:00:00:01}]]]], 72, 0, NULL, 0) = 72",
    "recvfrom(3, [{nlmsg_len=92, nlmsg_type=NLMSG_ERROR, nlmsg_flags=0, nlmsg_seq=14, nlmsg_pid=PID1}, {error=-ENODEV, msg=[{nlmsg_len=72, nlmsg_type=RTM_SETLINK, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK, nlmsg_seq=14, nlmsg_pid=0}, {ifi_family=AF_BRIDGE, ifi_type=ARPHRD_NETROM, ifi_index=99, ifi_flags=0, ifi_change=0}, [{nla_len=40, nla_type=NLA_F_NESTED|IFLA_PROTINFO}, [[{nla_len=5, nla_type=IFLA_BRPORT_STATE}, 3], [{nla_len=8, nla_type=IFLA_BRPORT_COST}, 100], [{nla_len=8, nla_type=IFLA_BRPORT_BACKUP_PORT}, if_nametoindex(\"lo\")], [{nla_len=12, nla_type=IFLA_BRPORT_ROOT_ID}, {prio=[128, 0], addr=02:00:00:00:00:01}]]]]}], 16384, 0, NULL, NULL) = 92",
    "sendto(3, [{nlmsg_len=60, nlmsg_type=RTM_SETLINK, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK, nlmsg_seq=15, nlmsg_pid=0}, {ifi_family=AF_UNSPEC, ifi_type=ARPHRD_NETROM, ifi_index=99, ifi_flags=0, ifi_change=0}, [[{nla_len=20, nla_type=NLA_F_NESTED|IFLA_XDP}, [[{nla_len=8, nla_type=IFLA_XDP_FD}, -1], [{nla_len=8, nla_type=IFLA_XDP_FLAGS}, XDP_FLAGS_SKB_MODE]]], [{nla_len=8, nla_type=IFLA_EVENT}, IFLA_EVENT_FEATURES]]], 60, 0, NULL, 0) = 60",
    "recvfrom(3, [{nlmsg_len=80, nlmsg_type=NLMSG_ERROR, nlmsg_flags=0, nlmsg_seq=15, nlmsg_pid=PID1}, {error=-ENODEV, msg=[{nlmsg_len=60, nlmsg_type=RTM_SETLINK, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK, nlmsg_seq=15, nlmsg_pid=0}, {ifi_family=AF_UNSPEC, ifi_type=ARPHRD_NETROM, ifi_index=99, ifi_flags=0, ifi_change=0}, [[{nla_len=20, nla_type=NLA_F_NESTED|IFLA_XDP}, [[{nla_len=8, nla_type=IFLA_XDP_FD}, -1], [{nla_len=8, nla_type=IFLA_XDP_FLAGS}, XDP_FLAGS_SKB_MODE]]], [{nla_len=8, nla_type=IFLA_EVENT}, IFLA_EVENT_FEATURES]]]}], 16384, 0, NULL, NULL) = 80",
    // IFLA_LINKINFO's data by its kind: a bridge's (and, as a port, its
    // master's), a tap device's whose data comes before its kind, a veth's
    // (no decoder: bytes).
    "sendto(3, [{nlmsg_len=112, nlmsg_type=RTM_SETLINK, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK, nlmsg_seq=18, nlmsg_pid=0}, {ifi_family=AF_UNSPEC, ifi_type=ARPHRD_NETROM, ifi_index=99, ifi_flags=0, ifi_change=0}, [{nla_len=80, nla_type=IFLA_LINKINFO}, [[{nla_len=11, nla_type=IFLA_INFO_KIND}, \"bridge\"], [{nla_len=40, nla_type=IFLA_INFO_DATA}, [[{nla_len=8, nla_type=IFLA_BR_FORWARD_DELAY}, 1500 /* 15.00 s */], [{nla_len=6, nla_type=IFLA_BR_VLAN_PROTOCOL}, htons(ETH_P_8021AD)], [{nla_len=6, nla_type=IFLA_BR_GROUP_FWD_MASK}, 0x8], [{nla_len=12, nla_type=IFLA_BR_MULTI_BOOLOPT}, {optval=1<<BR_BOOLOPT_NO_LL_LEARN, optmask=1<<BR_BOOLOPT_NO_LL_LEARN|1<<BR_BOOLOPT_MCAST_VLAN_SNOOPING}]]], [{nla_len=11, nla_type=IFLA_INFO_SLAVE_KIND}, \"bridge\"], [{nla_len=12, nla_type=IFLA_INFO_SLAVE_DATA}, [{nla_len=8, nla_type=IFLA_BRPORT_COST}, 100]]]]], 112, 0, NULL, 0) = 112",
    "recvfrom(3, [{nlmsg_len=132, nlmsg_type=NLMSG_ERROR, nlmsg_flags=0, nlmsg_seq=18, nlmsg_pid=PID1}, {error=-ENODEV, msg=[{nlmsg_len=112, nlmsg_type=RTM_SETLINK, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK, nlmsg_seq=18, nlmsg_pid=0}, {ifi_family=AF_UNSPEC, ifi_type=ARPHRD_NETROM, ifi_index=99, ifi_flags=0, ifi_change=0}, [{nla_len=80, nla_type=IFLA_LINKINFO}, [[{nla_len=11, nla_type=IFLA_INFO_KIND}, \"bridge\"], [{nla_len=40, nla_type=IFLA_INFO_DATA}, [[{nla_len=8, nla_type=IFLA_BR_FORWARD_DELAY}, 1500 /* 15.00 s */], [{nla_len=6, nla_type=IFLA_BR_VLAN_PROTOCOL}, htons(ETH_P_8021AD)], [{nla_len=6, nla_type=IFLA_BR_GROUP_FWD_MASK}, 0x8], [{nla_len=12, nla_type=IFLA_BR_MULTI_BOOLOPT}, {optval=1<<BR_BOOLOPT_NO_LL_LEARN, optmask=1<<BR_BOOLOPT_NO_LL_LEARN|1<<BR_BOOLOPT_MCAST_VLAN_SNOOPING}]]], [{nla_len=11, nla_type=IFLA_INFO_SLAVE_KIND}, \"bridge\"], [{nla_len=12, nla_type=IFLA_INFO_SLAVE_DATA}, [{nla_len=8, nla_type=IFLA_BRPORT_COST}, 100]]]]]}], 16384, 0, NULL, NULL) = 132",
    "sendto(3, [{nlmsg_len=64, nlmsg_type=RTM_SETLINK, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK, nlmsg_seq=19, nlmsg_pid=0}, {ifi_family=AF_UNSPEC, ifi_type=ARPHRD_NETROM, ifi_index=99, ifi_flags=0, ifi_change=0}, [{nla_len=32, nla_type=IFLA_LINKINFO}, [[{nla_len=20, nla_type=IFLA_INFO_DATA}, [[{nla_len=8, nla_type=IFLA_TUN_OWNER}, -1], [{nla_len=5, nla_type=IFLA_TUN_TYPE}, IFF_TAP]]], [{nla_len=8, nla_type=IFLA_INFO_KIND}, \"tun\"]]]], 64, 0, NULL, 0) = 64",
    "recvfrom(3, [{nlmsg_len=84, nlmsg_type=NLMSG_ERROR, nlmsg_flags=0, nlmsg_seq=19, nlmsg_pid=PID1}, {error=-ENODEV, msg=[{nlmsg_len=64, nlmsg_type=RTM_SETLINK, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK, nlmsg_seq=19, nlmsg_pid=0}, {ifi_family=AF_UNSPEC, ifi_type=ARPHRD_NETROM, ifi_index=99, ifi_flags=0, ifi_change=0}, [{nla_len=32, nla_type=IFLA_LINKINFO}, [[{nla_len=20, nla_type=IFLA_INFO_DATA}, [[{nla_len=8, nla_type=IFLA_TUN_OWNER}, -1], [{nla_len=5, nla_type=IFLA_TUN_TYPE}, IFF_TAP]]], [{nla_len=8, nla_type=IFLA_INFO_KIND}, \"tun\"]]]]}], 16384, 0, NULL, NULL) = 84",
    "sendto(3, [{nlmsg_len=56, nlmsg_type=RTM_SETLINK, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK, nlmsg_seq=20, nlmsg_pid=0}, {ifi_family=AF_UNSPEC, ifi_type=ARPHRD_NETROM, ifi_index=99, ifi_flags=0, ifi_change=0}, [{nla_len=24, nla_type=IFLA_LINKINFO}, [[{nla_len=9, nla_type=IFLA_INFO_KIND}, \"veth\"], [{nla_len=8, nla_type=IFLA_INFO_DATA}, \"\\7\\0\\0\\0\"]]]], 56, 0, NULL, 0) = 56",
    "recvfrom(3, [{nlmsg_len=76, nlmsg_type=NLMSG_ERROR, nlmsg_flags=0, nlmsg_seq=20, nlmsg_pid=PID1}, {error=-ENODEV, msg=[{nlmsg_len=56, nlmsg_type=RTM_SETLINK, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK, nlmsg_seq=20, nlmsg_pid=0}, {ifi_family=AF_UNSPEC, ifi_type=ARPHRD_NETROM, ifi_index=99, ifi_flags=0, ifi_change=0}, [{nla_len=24, nla_type=IFLA_LINKINFO}, [[{nla_len=9, nla_type=IFLA_INFO_KIND}, \"veth\"], [{nla_len=8, nla_type=IFLA_INFO_DATA}, \"\\7\\0\\0\\0\"]]]]}], 16384, 0, NULL, NULL) = 76",
    "sendto(3, [{nlmsg_len=68, nlmsg_type=RTM_NEWROUTE, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK|NLM_F_CREATE, nlmsg_seq=16, nlmsg_pid=0}, {rtm_family=AF_INET, rtm_dst_len=16, rtm_src_len=0, rtm_tos=0, rtm_table=RT_TABLE_MAIN, rtm_protocol=RTPROT_BOOT, rtm_scope=RT_SCOPE_UNIVERSE, rtm_type=RTN_UNICAST, rtm_flags=0}, [[{nla_len=22, nla_type=RTA_VIA}, {rtvia_family=AF_INET6, rtvia_addr=inet_pton(AF_INET6, \"::1\")}], [{nla_len=6, nla_type=RTA_ENCAP_TYPE}, LWTUNNEL_ENCAP_IP], [{nla_len=6, nla_type=RTA_SPORT}, htons(80)]]], 68, 0, NULL, 0) = 68",
    "recvfrom(3, [{nlmsg_len=88, nlmsg_type=NLMSG_ERROR, nlmsg_flags=0, nlmsg_seq=16, nlmsg_pid=PID1}, {error=-EINVAL, msg=[{nlmsg_len=68, nlmsg_type=RTM_NEWROUTE, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK|NLM_F_CREATE, nlmsg_seq=16, nlmsg_pid=0}, {rtm_family=AF_INET, rtm_dst_len=16, rtm_src_len=0, rtm_tos=0, rtm_table=RT_TABLE_MAIN, rtm_protocol=RTPROT_BOOT, rtm_scope=RT_SCOPE_UNIVERSE, rtm_type=RTN_UNICAST, rtm_flags=0}, [[{nla_len=22, nla_type=RTA_VIA}, {rtvia_family=AF_INET6, rtvia_addr=inet_pton(AF_INET6, \"::1\")}], [{nla_len=6, nla_type=RTA_ENCAP_TYPE}, LWTUNNEL_ENCAP_IP], [{nla_len=6, nla_type=RTA_SPORT}, htons(80)]]]}], 16384, 0, NULL, NULL) = 88",
    "sendto(3, [{nlmsg_len=80, nlmsg_type=RTM_NEWQDISC, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK|NLM_F_EXCL|NLM_F_CREATE, nlmsg_seq=17, nlmsg_pid=0}, {tcm_family=AF_UNSPEC, tcm_ifindex=99, tcm_handle=0, tcm_parent=4294967295, tcm_info=0}, [[{nla_len=10, nla_type=TCA_KIND}, \"pfifo\"], [{nla_len=32, nla_type=NLA_F_NESTED|TCA_STAB}, [{nla_len=28, nla_type=TCA_STAB_BASE}, {cell_log=0, size_log=0, cell_align=-1, overhead=-4, linklayer=0, mpu=0, mtu=2048, tsize=0}]]]], 80, 0, NULL, 0) = 80",
    "recvfrom(3, [{nlmsg_len=100, nlmsg_type=NLMSG_ERROR, nlmsg_flags=0, nlmsg_seq=17, nlmsg_pid=PID1}, {error=-ENODEV, msg=[{nlmsg_len=80, nlmsg_type=RTM_NEWQDISC, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK|NLM_F_EXCL|NLM_F_CREATE, nlmsg_seq=17, nlmsg_pid=0}, {tcm_family=AF_UNSPEC, tcm_ifindex=99, tcm_handle=0, tcm_parent=4294967295, tcm_info=0}, [[{nla_len=10, nla_type=TCA_KIND}, \"pfifo\"], [{nla_len=32, nla_type=NLA_F_NESTED|TCA_STAB}, [{nla_len=28, nla_type=TCA_STAB_BASE}, {cell_log=0, size_log=0, cell_align=-1, overhead=-4, linklayer=0, mpu=0, mtu=2048, tsize=0}]]]]}], 16384, 0, NULL, NULL) = 100",
    "close(3) = 0",
    "socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT) = 3",
    "sendto(3, {nlmsg_len=16, nlmsg_type=AUDIT_GET, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK, nlmsg_seq=5, nlmsg_pid=0}, 16, 0, NULL, 0) = 16",
    "close(3) = 0",
    "socket(AF_NETLINK, SOCK_RAW, NETLINK_XFRM) = 3",
    "bind(3, {sa_family=AF_NETLINK, nl_pid=0, nl_groups=0x0}, 12) = 0",
    "sendto(3, [{nlmsg_len=80, nlmsg_type=XFRM_MSG_GETPOLICY, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=6, nlmsg_pid=0}, \"\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\"], 80, 0, NULL, 0) = 80",
    "recvfrom(3, [{nlmsg_len=20, nlmsg_type=NLMSG_DONE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=6, nlmsg_pid=PID1}, 0], 16384, 0, NULL, NULL) = 20",
    "close(3) = 0",
    "socket(AF_NETLINK, SOCK_RAW, NETLINK_NETFILTER) = 3",
    "bind(3, {sa_family=AF_NETLINK, nl_pid=0, nl_groups=0x0}, 12) = 0",
    "sendto(3, [{nlmsg_len=20, nlmsg_type=NFNL_SUBSYS_NFTABLES<<8|NFT_MSG_GETTABLE, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=7, nlmsg_pid=0}, {nfgen_family=AF_UNSPEC, version=NFNETLINK_V0, res_id=htons(0)}], 20, 0, NULL, 0) = 20",
    "recvfrom(3, [{nlmsg_len=20, nlmsg_type=NLMSG_DONE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=7, nlmsg_pid=PID1}, 0], 16384, 0, NULL, NULL) = 20",
    "sendto(3, [{nlmsg_len=20, nlmsg_type=NFNL_MSG_BATCH_BEGIN, nlmsg_flags=NLM_F_REQUEST, nlmsg_seq=8, nlmsg_pid=0}, {nfgen_family=AF_UNSPEC, version=NFNETLINK_V0, res_id=htons(10)}], 20, 0, NULL, 0) = 20",
    "close(3) = 0",
    "exit_group(0)",
    "Process exited normally with code 0",
];

#[test]
fn next_hops_qdiscs_and_other_protocols() {
    if !can_unshare() {
        return;
    }
    let bin = fixture("netlink_rt");
    let run = trace(&["-s", "64"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_lines(&normalise_kernel(&run.after_marker()), RT);
}

/// `--json`: a next hop's NHA_OIF is a named constant, a netfilter type
/// its composed name with the number, nfgenmsg's res_id the number.
#[test]
fn json_next_hops_and_netfilter() {
    if !can_unshare() {
        return;
    }
    let bin = fixture("netlink_rt");
    let run = trace(&["--json"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let bufs: Vec<serde_json::Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("a JSON line"))
        .filter(|v| v["type"] == "call" && v["args"]["buf"].is_array())
        .map(|v| v["args"]["buf"].clone())
        .collect();
    let dump = bufs
        .iter()
        .find(|b| b[1][0]["nlmsg_type"]["name"] == "RTM_NEWNEXTHOP")
        .expect("the next-hop dump");
    assert_eq!(
        dump[1][2][1],
        serde_json::json!([{"nla_len": 8, "nla_type": {"value": 5, "name": "NHA_OIF"}},
                           {"value": 1, "name": "if_nametoindex(\"lo\")"}])
    );
    let nft = bufs
        .iter()
        .find(|b| b[0]["nlmsg_type"]["value"] == 0x0a01)
        .expect("the nf_tables request");
    assert_eq!(
        nft[0]["nlmsg_type"]["name"],
        "NFNL_SUBSYS_NFTABLES<<8|NFT_MSG_GETTABLE"
    );
    assert_eq!(
        nft[1],
        serde_json::json!({"nfgen_family": {"value": 0, "name": "AF_UNSPEC"},
                           "version": {"value": 0, "name": "NFNETLINK_V0"}, "res_id": 0})
    );
}

/// A generic netlink family's id is named as the controller names it
/// (`ethtool`), in the request and in the error's echo; strace 6.1 shows
/// the same, with genlmsghdr as bytes. In JSON `{"value": ID, "name":
/// "ethtool"}`.
#[test]
fn generic_netlink_family_named() {
    let bin = fixture("netlink_genl");
    let run = trace(&[], &[name(&bin)]);
    if run.code() == Some(77) {
        eprintln!("netlink_more: no ethtool generic netlink family: test skipped");
        return;
    }
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_lines(
        &run.after_marker(),
        &[
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "sendto(3, [{nlmsg_len=20, nlmsg_type=ethtool, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK, nlmsg_seq=2, nlmsg_pid=0}, {cmd=0, version=1}], 20, 0, NULL, 0) = 20",
            "recvfrom(3, [{nlmsg_len=40, nlmsg_type=NLMSG_ERROR, nlmsg_flags=0, nlmsg_seq=2, nlmsg_pid=PID1}, {error=-EOPNOTSUPP, msg=[{nlmsg_len=20, nlmsg_type=ethtool, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK, nlmsg_seq=2, nlmsg_pid=0}, {cmd=0, version=1}]}], 16384, 0, NULL, NULL) = 40",
            "close(3) = 0",
            "exit_group(0)",
            "Process exited normally with code 0",
        ],
    );
    let run = trace(&["--json", "-e", "trace=sendto"], &[name(&bin)]);
    let sent: Vec<serde_json::Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("a JSON line"))
        .filter(|v| v["type"] == "call" && v["name"] == "sendto")
        .collect();
    // (The first is the controller's request: send(2) is sendto.)
    let last = sent.last().expect("sendto");
    assert_eq!(last["args"]["buf"][0]["nlmsg_type"]["name"], "ethtool");
    assert!(last["args"]["buf"][0]["nlmsg_type"]["value"].is_u64());
}

/// `ip ntable` and `ip addrlabel` in a new network namespace: the
/// requests are whole lines (the sequence number is the time), the
/// answers carry no raw netlink bytes, and the neighbour tables' per-device
/// parameters name lo (NDTPA_IFINDEX), as strace shows them.
#[test]
fn ip_ntable_and_addrlabel() {
    if !can_unshare() || !have("ip") {
        return;
    }
    let seq = regex::Regex::new(r"nlmsg_seq=\d{9,}").unwrap();
    let run = trace(
        &["-f", "-s", "64", "-e", "trace=sendto,recvmsg"],
        &["unshare", "-n", "sh", "-c", "ip ntable; ip addrlabel"],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines: Vec<String> = run
        .lines()
        .iter()
        .map(|l| seq.replace_all(l, "nlmsg_seq=SEQ").into_owned())
        .collect();
    let text = lines.join("\n");
    for want in [
        "sendto(3, [{nlmsg_len=20, nlmsg_type=RTM_GETNEIGHTBL, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=SEQ, nlmsg_pid=0}, {ndtm_family=AF_UNSPEC}], 20, 0, NULL, 0) = 20",
        "sendto(3, [{nlmsg_len=28, nlmsg_type=RTM_GETADDRLABEL, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=SEQ, nlmsg_pid=0}, {ifal_family=AF_INET6, ifal_prefixlen=0, ifal_flags=0, ifal_index=0, ifal_seq=0}], 28, 0, NULL, 0) = 28",
    ] {
        assert!(
            lines.iter().any(|l| l.ends_with(want)),
            "no {want} in\n{text}"
        );
    }
    let raw = regex::Regex::new(r#"nlmsg_pid=\w+\}, ""#).unwrap();
    for l in lines
        .iter()
        .filter(|l| l.contains("NEIGHTBL") || l.contains("ADDRLABEL"))
    {
        assert!(!raw.is_match(l), "raw payload: {l}");
    }
    assert!(
        text.contains("[{nla_len=8, nla_type=NDTPA_IFINDEX}, if_nametoindex(\"lo\")]"),
        "{text}"
    );
    assert!(
        text.contains("nla_type=IFAL_ADDRESS}, inet_pton(AF_INET6, \"::1\")]"),
        "{text}"
    );
}

/// Whether `program` is installed; says so on stderr when not.
fn have(program: &str) -> bool {
    let ok = std::process::Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("netlink_more: {program} not installed: test skipped");
    }
    ok
}

/// `ss -a` in a new network namespace asks every family: its requests
/// for unix, packet, netlink, vsock and xdp sockets are decoded whole
/// (strace 6.1 shows the vsock and xdp requests as bytes), and no
/// sock_diag message shows raw bytes.
#[test]
fn ss_a_requests() {
    if !can_unshare() || !have("ss") {
        return;
    }
    let run = trace(
        &["-f", "-e", "trace=sendto,recvmsg"],
        &["unshare", "-n", "ss", "-a"],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = run.lines();
    let text = lines.join("\n");
    let all = "1<<TCP_ESTABLISHED|1<<TCP_SYN_SENT|1<<TCP_SYN_RECV|1<<TCP_FIN_WAIT1|1<<TCP_FIN_WAIT2|1<<TCP_TIME_WAIT|1<<TCP_CLOSE|1<<TCP_CLOSE_WAIT|1<<TCP_LAST_ACK|1<<TCP_LISTEN|1<<TCP_CLOSING|0x1";
    for want in [
        format!(
            "sendto(3, [{{nlmsg_len=40, nlmsg_type=SOCK_DIAG_BY_FAMILY, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=123456, nlmsg_pid=0}}, {{sdiag_family=AF_VSOCK, sdiag_protocol=0, vdiag_states={all}, vdiag_ino=0, vdiag_show=0, vdiag_cookie=[0, 0]}}], 40, 0, NULL, 0) = 40"
        ),
        "sendto(3, [{nlmsg_len=36, nlmsg_type=SOCK_DIAG_BY_FAMILY, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=123456, nlmsg_pid=0}, {sdiag_family=AF_XDP, sdiag_protocol=0, xdiag_ino=0, xdiag_show=XDP_SHOW_INFO|XDP_SHOW_RING_CFG|XDP_SHOW_UMEM|XDP_SHOW_MEMINFO|XDP_SHOW_STATS, xdiag_cookie=[0, 0]}], 36, 0, NULL, 0) = 36".to_string(),
    ] {
        assert!(
            lines.iter().any(|l| l.ends_with(&want)),
            "no {want} in\n{text}"
        );
    }
    let raw = regex::Regex::new(r#"nlmsg_type=SOCK_DIAG_BY_FAMILY, [^}]*\}, ""#).unwrap();
    assert!(!raw.is_match(&text), "{text}");
}

/// `--json`: a packet_diag answer's PACKET_DIAG_INFO and membership, with
/// their interface indexes as named constants.
#[test]
fn json_packet_diag() {
    if !can_unshare() {
        return;
    }
    let bin = fixture("netlink_diag");
    let run = trace(&["--json"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let answer = run
        .trace
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("a JSON line"))
        .find(|v| v["args"]["buf"][1]["pdiag_family"]["name"] == "AF_PACKET")
        .expect("the packet_diag answer");
    let attrs = &answer["args"]["buf"][2];
    let lo = serde_json::json!({"value": 1, "name": "if_nametoindex(\"lo\")"});
    assert_eq!(attrs[0][0]["nla_type"]["name"], "PACKET_DIAG_INFO");
    assert_eq!(attrs[0][1]["pdi_index"], lo);
    assert_eq!(
        attrs[0][1]["pdi_version"],
        serde_json::json!({"value": 0, "name": "TPACKET_V1"})
    );
    assert_eq!(attrs[2][1][0]["pdmc_index"], lo);
    assert_eq!(attrs[2][1][0]["pdmc_alen"], 6);
}
