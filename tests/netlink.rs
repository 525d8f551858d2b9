//! Netlink messages decoded: the `netlink` fixture's requests and the
//! kernel's answers (links, an acknowledgement, an error, addresses,
//! routes, an inet_diag dump, the generic netlink controller) in a new network namespace, compared whole;
//! the same with the fd table learning the sockets from /proc; real `ip
//! addr` and `ss -tln` runs; and the generated constants checked against
//! the headers they come from.
//!
//! The namespaces need root: without it the tests say so and pass.

mod common;

use common::{fixture, name, trace};
use std::process::Command;

/// Values the kernel picks per run besides pids and addresses: address
/// timestamps (hundredths of a second since boot), a socket's cookie and
/// inode, the test's cgroup, `ip`'s sequence numbers (the time).
fn normalise_kernel(lines: &[String]) -> Vec<String> {
    let rules = [
        (r"cstamp=\d+", "cstamp=T"),
        (r"tstamp=\d+", "tstamp=T"),
        (r"idiag_cookie=\[[1-9]\d*, \d+\]", "idiag_cookie=[COOKIE]"),
        (r"idiag_inode=\d+", "idiag_inode=INODE"),
        (
            r"INET_DIAG_CGROUP_ID\}, \d+",
            "INET_DIAG_CGROUP_ID}, CGROUP",
        ),
        (r"nlmsg_seq=\d{9,}", "nlmsg_seq=SEQ"),
    ];
    common::rewrite(lines, &rules)
}

/// Whether this test can make network namespaces (root).
fn can_unshare() -> bool {
    common::root_or_skip("netlink", "network namespace")
}

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

/// The fixture's trace from its marker on, with `-s 8`: at most 8
/// attributes of a message, so the kernel's long link attribute list is
/// cut with `..` (also what is tested of the bound).
const FIXTURE: &[&str] = &[
    "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
    "socket(AF_NETLINK, SOCK_RAW|SOCK_CLOEXEC, NETLINK_ROUTE) = 3",
    "bind(3, {sa_family=AF_NETLINK, nl_pid=0, nl_groups=0x0}, 12) = 0",
    "sendto(3, [{nlmsg_len=32, nlmsg_type=RTM_GETLINK, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=1, nlmsg_pid=0}, {ifi_family=AF_UNSPEC, ifi_type=ARPHRD_NETROM, ifi_index=0, ifi_flags=0, ifi_change=0}], 32, 0, NULL, 0) = 32",
    "recvfrom(3, [{nlmsg_len=1468, nlmsg_type=RTM_NEWLINK, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=1, nlmsg_pid=PID1}, {ifi_family=AF_UNSPEC, ifi_type=ARPHRD_LOOPBACK, ifi_index=if_nametoindex(\"lo\"), ifi_flags=IFF_LOOPBACK, ifi_change=0}, [[{nla_len=7, nla_type=IFLA_IFNAME}, \"lo\"], [{nla_len=8, nla_type=IFLA_TXQLEN}, 1000], [{nla_len=5, nla_type=IFLA_OPERSTATE}, IF_OPER_DOWN], [{nla_len=5, nla_type=IFLA_LINKMODE}, IF_LINK_MODE_DEFAULT], [{nla_len=5, nla_type=67}, \"\\1\"], [{nla_len=8, nla_type=IFLA_MTU}, 65536], [{nla_len=8, nla_type=IFLA_MIN_MTU}, 0], [{nla_len=8, nla_type=IFLA_MAX_MTU}, 0], ..]], 16384, 0, NULL, NULL) = 1468",
    "recvfrom(3, [{nlmsg_len=20, nlmsg_type=NLMSG_DONE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=1, nlmsg_pid=PID1}, 0], 16384, 0, NULL, NULL) = 20",
    "sendto(3, [{nlmsg_len=32, nlmsg_type=RTM_NEWLINK, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK, nlmsg_seq=2, nlmsg_pid=0}, {ifi_family=AF_UNSPEC, ifi_type=ARPHRD_NETROM, ifi_index=if_nametoindex(\"lo\"), ifi_flags=IFF_UP, ifi_change=0x1}], 32, 0, NULL, 0) = 32",
    "recvfrom(3, [{nlmsg_len=36, nlmsg_type=NLMSG_ERROR, nlmsg_flags=NLM_F_CAPPED, nlmsg_seq=2, nlmsg_pid=PID1}, {error=0, msg={nlmsg_len=32, nlmsg_type=RTM_NEWLINK, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK, nlmsg_seq=2, nlmsg_pid=0}}], 16384, 0, NULL, NULL) = 36",
    "write(3, [{nlmsg_len=32, nlmsg_type=RTM_GETLINK, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK, nlmsg_seq=3, nlmsg_pid=0}, {ifi_family=AF_UNSPEC, ifi_type=ARPHRD_NETROM, ifi_index=99, ifi_flags=0, ifi_change=0}], 32) = 32",
    "read(3, [{nlmsg_len=52, nlmsg_type=NLMSG_ERROR, nlmsg_flags=0, nlmsg_seq=3, nlmsg_pid=PID1}, {error=-ENODEV, msg=[{nlmsg_len=32, nlmsg_type=RTM_GETLINK, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK, nlmsg_seq=3, nlmsg_pid=0}, {ifi_family=AF_UNSPEC, ifi_type=ARPHRD_NETROM, ifi_index=99, ifi_flags=0, ifi_change=0}]}], 16384) = 52",
    // An AF_BRIDGE message's IFLA_AF_SPEC holds IFLA_BRIDGE_* (not AF_IPX).
    "write(3, [{nlmsg_len=48, nlmsg_type=RTM_SETLINK, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK, nlmsg_seq=10, nlmsg_pid=0}, {ifi_family=AF_BRIDGE, ifi_type=ARPHRD_NETROM, ifi_index=99, ifi_flags=0, ifi_change=0}, [{nla_len=16, nla_type=IFLA_AF_SPEC}, [[{nla_len=6, nla_type=IFLA_BRIDGE_MODE}, BRIDGE_MODE_VEPA], {nla_len=4, nla_type=NLA_F_NESTED|IFLA_BRIDGE_MRP}]]], 48) = 48",
    "read(3, [{nlmsg_len=68, nlmsg_type=NLMSG_ERROR, nlmsg_flags=0, nlmsg_seq=10, nlmsg_pid=PID1}, {error=-ENODEV, msg=[{nlmsg_len=48, nlmsg_type=RTM_SETLINK, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK, nlmsg_seq=10, nlmsg_pid=0}, {ifi_family=AF_BRIDGE, ifi_type=ARPHRD_NETROM, ifi_index=99, ifi_flags=0, ifi_change=0}, [{nla_len=16, nla_type=IFLA_AF_SPEC}, [[{nla_len=6, nla_type=IFLA_BRIDGE_MODE}, BRIDGE_MODE_VEPA], {nla_len=4, nla_type=NLA_F_NESTED|IFLA_BRIDGE_MRP}]]]}], 16384) = 68",
    "sendto(3, [{nlmsg_len=24, nlmsg_type=RTM_GETADDR, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=4, nlmsg_pid=0}, {ifa_family=AF_UNSPEC, ifa_prefixlen=0, ifa_flags=0, ifa_scope=RT_SCOPE_UNIVERSE, ifa_index=0}], 24, 0, NULL, 0) = 24",
    "recvfrom(3, [[{nlmsg_len=76, nlmsg_type=RTM_NEWADDR, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=4, nlmsg_pid=PID1}, {ifa_family=AF_INET, ifa_prefixlen=8, ifa_flags=IFA_F_PERMANENT, ifa_scope=RT_SCOPE_HOST, ifa_index=if_nametoindex(\"lo\")}, [[{nla_len=8, nla_type=IFA_ADDRESS}, inet_addr(\"127.0.0.1\")], [{nla_len=8, nla_type=IFA_LOCAL}, inet_addr(\"127.0.0.1\")], [{nla_len=7, nla_type=IFA_LABEL}, \"lo\"], [{nla_len=8, nla_type=IFA_FLAGS}, IFA_F_PERMANENT], [{nla_len=20, nla_type=IFA_CACHEINFO}, {ifa_prefered=4294967295, ifa_valid=4294967295, cstamp=T, tstamp=T}]]], [{nlmsg_len=80, nlmsg_type=RTM_NEWADDR, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=4, nlmsg_pid=PID1}, {ifa_family=AF_INET6, ifa_prefixlen=128, ifa_flags=IFA_F_PERMANENT, ifa_scope=RT_SCOPE_HOST, ifa_index=if_nametoindex(\"lo\")}, [[{nla_len=20, nla_type=IFA_ADDRESS}, inet_pton(AF_INET6, \"::1\")], [{nla_len=20, nla_type=IFA_CACHEINFO}, {ifa_prefered=4294967295, ifa_valid=4294967295, cstamp=T, tstamp=T}], [{nla_len=8, nla_type=IFA_FLAGS}, IFA_F_PERMANENT], [{nla_len=5, nla_type=IFA_PROTO}, 1]]]], 16384, 0, NULL, NULL) = 156",
    "recvfrom(3, [{nlmsg_len=20, nlmsg_type=NLMSG_DONE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=4, nlmsg_pid=PID1}, 0], 16384, 0, NULL, NULL) = 20",
    "sendmsg(3, {msg_name={sa_family=AF_NETLINK, nl_pid=0, nl_groups=0x0}, msg_namelen=12, msg_iov=[{iov_base=[{nlmsg_len=28, nlmsg_type=RTM_GETROUTE, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=5, nlmsg_pid=0}, {rtm_family=AF_INET, rtm_dst_len=0, rtm_src_len=0, rtm_tos=0, rtm_table=RT_TABLE_UNSPEC, rtm_protocol=RTPROT_UNSPEC, rtm_scope=RT_SCOPE_UNIVERSE, rtm_type=RTN_UNSPEC, rtm_flags=0}], iov_len=28}], msg_iovlen=1, msg_control=NULL, msg_controllen=0, msg_flags=0}, 0) = 28",
    "recvmsg(3, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=[[{nlmsg_len=60, nlmsg_type=RTM_NEWROUTE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=5, nlmsg_pid=PID1}, {rtm_family=AF_INET, rtm_dst_len=8, rtm_src_len=0, rtm_tos=0, rtm_table=RT_TABLE_LOCAL, rtm_protocol=RTPROT_KERNEL, rtm_scope=RT_SCOPE_HOST, rtm_type=RTN_LOCAL, rtm_flags=0}, [[{nla_len=8, nla_type=RTA_TABLE}, RT_TABLE_LOCAL], [{nla_len=8, nla_type=RTA_DST}, inet_addr(\"127.0.0.0\")], [{nla_len=8, nla_type=RTA_PREFSRC}, inet_addr(\"127.0.0.1\")], [{nla_len=8, nla_type=RTA_OIF}, if_nametoindex(\"lo\")]]], [{nlmsg_len=60, nlmsg_type=RTM_NEWROUTE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=5, nlmsg_pid=PID1}, {rtm_family=AF_INET, rtm_dst_len=32, rtm_src_len=0, rtm_tos=0, rtm_table=RT_TABLE_LOCAL, rtm_protocol=RTPROT_KERNEL, rtm_scope=RT_SCOPE_HOST, rtm_type=RTN_LOCAL, rtm_flags=0}, [[{nla_len=8, nla_type=RTA_TABLE}, RT_TABLE_LOCAL], [{nla_len=8, nla_type=RTA_DST}, inet_addr(\"127.0.0.1\")], [{nla_len=8, nla_type=RTA_PREFSRC}, inet_addr(\"127.0.0.1\")], [{nla_len=8, nla_type=RTA_OIF}, if_nametoindex(\"lo\")]]], [{nlmsg_len=60, nlmsg_type=RTM_NEWROUTE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=5, nlmsg_pid=PID1}, {rtm_family=AF_INET, rtm_dst_len=32, rtm_src_len=0, rtm_tos=0, rtm_table=RT_TABLE_LOCAL, rtm_protocol=RTPROT_KERNEL, rtm_scope=RT_SCOPE_LINK, rtm_type=RTN_BROADCAST, rtm_flags=0}, [[{nla_len=8, nla_type=RTA_TABLE}, RT_TABLE_LOCAL], [{nla_len=8, nla_type=RTA_DST}, inet_addr(\"127.255.255.255\")], [{nla_len=8, nla_type=RTA_PREFSRC}, inet_addr(\"127.0.0.1\")], [{nla_len=8, nla_type=RTA_OIF}, if_nametoindex(\"lo\")]]]], iov_len=16384}], msg_iovlen=1, msg_control=NULL, msg_controllen=0, msg_flags=0}, 0) = 180",
    "recvfrom(3, [{nlmsg_len=20, nlmsg_type=NLMSG_DONE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=5, nlmsg_pid=PID1}, 0], 16384, 0, NULL, NULL) = 20",
    "sendto(3, [{nlmsg_len=28, nlmsg_type=RTM_GETRULE, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=8, nlmsg_pid=0}, {family=AF_INET, dst_len=0, src_len=0, tos=0, table=RT_TABLE_UNSPEC, action=FR_ACT_UNSPEC, flags=0}], 28, 0, NULL, 0) = 28",
    "recvfrom(3, [[{nlmsg_len=52, nlmsg_type=RTM_NEWRULE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=8, nlmsg_pid=PID1}, {family=AF_INET, dst_len=0, src_len=0, tos=0, table=RT_TABLE_LOCAL, action=FR_ACT_TO_TBL, flags=0}, [[{nla_len=8, nla_type=FRA_TABLE}, RT_TABLE_LOCAL], [{nla_len=8, nla_type=FRA_SUPPRESS_PREFIXLEN}, 4294967295], [{nla_len=5, nla_type=FRA_PROTOCOL}, RTPROT_KERNEL]]], [{nlmsg_len=60, nlmsg_type=RTM_NEWRULE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=8, nlmsg_pid=PID1}, {family=AF_INET, dst_len=0, src_len=0, tos=0, table=RT_TABLE_MAIN, action=FR_ACT_TO_TBL, flags=0}, [[{nla_len=8, nla_type=FRA_TABLE}, RT_TABLE_MAIN], [{nla_len=8, nla_type=FRA_SUPPRESS_PREFIXLEN}, 4294967295], [{nla_len=5, nla_type=FRA_PROTOCOL}, RTPROT_KERNEL], [{nla_len=8, nla_type=FRA_PRIORITY}, 32766]]], [{nlmsg_len=60, nlmsg_type=RTM_NEWRULE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=8, nlmsg_pid=PID1}, {family=AF_INET, dst_len=0, src_len=0, tos=0, table=RT_TABLE_DEFAULT, action=FR_ACT_TO_TBL, flags=0}, [[{nla_len=8, nla_type=FRA_TABLE}, RT_TABLE_DEFAULT], [{nla_len=8, nla_type=FRA_SUPPRESS_PREFIXLEN}, 4294967295], [{nla_len=5, nla_type=FRA_PROTOCOL}, RTPROT_KERNEL], [{nla_len=8, nla_type=FRA_PRIORITY}, 32767]]], [{nlmsg_len=20, nlmsg_type=NLMSG_DONE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=8, nlmsg_pid=PID1}, 0]], 16384, 0, NULL, NULL) = 192",
    "sendto(3, [{nlmsg_len=28, nlmsg_type=RTM_GETNEIGH, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=9, nlmsg_pid=0}, {ndm_family=AF_INET, ndm_ifindex=0, ndm_state=NUD_NONE, ndm_flags=0, ndm_type=RTN_UNSPEC}], 28, 0, NULL, 0) = 28",
    "recvfrom(3, [{nlmsg_len=20, nlmsg_type=NLMSG_DONE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=9, nlmsg_pid=PID1}, 0], 16384, 0, NULL, NULL) = 20",
    // Errors nested 64 KiB deep: the echo of a control message is its header.
    "sendto(3, [{nlmsg_len=65536, nlmsg_type=NLMSG_ERROR, nlmsg_flags=0, nlmsg_seq=0, nlmsg_pid=0}, {error=0, msg={nlmsg_len=65516, nlmsg_type=NLMSG_ERROR, nlmsg_flags=0, nlmsg_seq=0, nlmsg_pid=0}}], 65536, 0, NULL, 0) = 65536",
    "close(3) = 0",
    "socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 3",
    "bind(3, {sa_family=AF_INET, sin_port=htons(40404), sin_addr=inet_addr(\"127.0.0.1\")}, 16) = 0",
    "listen(3, 5) = 0",
    "socket(AF_NETLINK, SOCK_DGRAM, NETLINK_SOCK_DIAG) = 4",
    "bind(4, {sa_family=AF_NETLINK, nl_pid=0, nl_groups=0x0}, 12) = 0",
    "sendmsg(4, {msg_name={sa_family=AF_NETLINK, nl_pid=0, nl_groups=0x0}, msg_namelen=12, msg_iov=[{iov_base=[{nlmsg_len=72, nlmsg_type=SOCK_DIAG_BY_FAMILY, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=6, nlmsg_pid=0}, {sdiag_family=AF_INET, sdiag_protocol=IPPROTO_TCP, idiag_ext=1<<(INET_DIAG_MEMINFO-1), idiag_states=1<<TCP_LISTEN, id={idiag_sport=htons(0), idiag_dport=htons(0), idiag_src=inet_addr(\"0.0.0.0\"), idiag_dst=inet_addr(\"0.0.0.0\"), idiag_if=0, idiag_cookie=[0, 0]}}], iov_len=72}], msg_iovlen=1, msg_control=NULL, msg_controllen=0, msg_flags=0}, 0) = 72",
    "recvfrom(4, [{nlmsg_len=144, nlmsg_type=SOCK_DIAG_BY_FAMILY, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=6, nlmsg_pid=PID1}, {idiag_family=AF_INET, idiag_state=TCP_LISTEN, idiag_timer=0, idiag_retrans=0, id={idiag_sport=htons(40404), idiag_dport=htons(0), idiag_src=inet_addr(\"127.0.0.1\"), idiag_dst=inet_addr(\"0.0.0.0\"), idiag_if=0, idiag_cookie=[COOKIE]}, idiag_expires=0, idiag_rqueue=0, idiag_wqueue=5, idiag_uid=0, idiag_inode=INODE}, [[{nla_len=5, nla_type=INET_DIAG_SHUTDOWN}, 0], [{nla_len=8, nla_type=INET_DIAG_MARK}, 0], [{nla_len=12, nla_type=INET_DIAG_CGROUP_ID}, CGROUP], [{nla_len=6, nla_type=INET_DIAG_SOCKOPT}, {is_icsk=1, mc_loop=1, mc_all=1}], [{nla_len=20, nla_type=INET_DIAG_MEMINFO}, {idiag_rmem=0, idiag_wmem=0, idiag_fmem=0, idiag_tmem=0}]]], 16384, 0, NULL, NULL) = 144",
    "recvfrom(4, [{nlmsg_len=20, nlmsg_type=NLMSG_DONE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=6, nlmsg_pid=PID1}, 0], 16384, 0, NULL, NULL) = 20",
    "close(4) = 0",
    "close(3) = 0",
    "socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC) = 3",
    "bind(3, {sa_family=AF_NETLINK, nl_pid=0, nl_groups=0x0}, 12) = 0",
    "sendto(3, [{nlmsg_len=32, nlmsg_type=GENL_ID_CTRL, nlmsg_flags=NLM_F_REQUEST, nlmsg_seq=7, nlmsg_pid=0}, {cmd=CTRL_CMD_GETFAMILY, version=1}, [{nla_len=11, nla_type=CTRL_ATTR_FAMILY_NAME}, \"nlctrl\"]], 32, 0, NULL, 0) = 32",
    "recvfrom(3, [{nlmsg_len=136, nlmsg_type=GENL_ID_CTRL, nlmsg_flags=0, nlmsg_seq=7, nlmsg_pid=PID1}, {cmd=CTRL_CMD_NEWFAMILY, version=2}, [[{nla_len=11, nla_type=CTRL_ATTR_FAMILY_NAME}, \"nlctrl\"], [{nla_len=6, nla_type=CTRL_ATTR_FAMILY_ID}, 16], [{nla_len=8, nla_type=CTRL_ATTR_VERSION}, 2], [{nla_len=8, nla_type=CTRL_ATTR_HDRSIZE}, 0], [{nla_len=8, nla_type=CTRL_ATTR_MAXATTR}, 0], [{nla_len=44, nla_type=CTRL_ATTR_OPS}, \"\\24\\0\\1\\0\\10\\0\\1\\0\"..], [{nla_len=28, nla_type=CTRL_ATTR_MCAST_GROUPS}, \"\\30\\0\\1\\0\\10\\0\\2\\0\"..]]], 16384, 0, NULL, NULL) = 136",
    "close(3) = 0",
    "exit_group(0)",
    "Process exited normally with code 0",
];

#[test]
fn fixture_messages_are_decoded() {
    if !can_unshare() {
        return;
    }
    let bin = fixture("netlink");
    let run = trace(&["-s", "8"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_lines(&normalise_kernel(&run.after_marker()), FIXTURE);
}

/// The same fixture built as a 32-bit program: netlink's structs have one
/// layout for both ABIs, so the lines are the 64-bit program's (sendmsg's
/// msghdr and the socket calls are read in the i386 layout).
#[test]
fn i386_messages_are_the_same() {
    if !can_unshare() {
        return;
    }
    let bin = common::fixture_m32("netlink");
    let run = trace(&["-s", "8"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_lines(&normalise_kernel(&run.after_marker()), FIXTURE);
}

/// `--json` renders the same primitives: messages as arrays, headers and
/// payloads as objects, the error by name.
#[test]
fn json_messages() {
    if !can_unshare() {
        return;
    }
    let bin = fixture("netlink");
    let run = trace(&["--json"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let calls: Vec<serde_json::Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .filter(|v: &serde_json::Value| v["type"] == "call")
        .collect();
    // (The dynamic loader's reads come first.)
    let read = calls
        .iter()
        .find(|c| c["name"] == "read" && c["args"]["buf"].is_array())
        .expect("read");
    let buf = &read["args"]["buf"];
    assert_eq!(
        buf[0]["nlmsg_type"],
        serde_json::json!({"value": 2, "name": "NLMSG_ERROR"})
    );
    assert_eq!(
        buf[1]["error"],
        serde_json::json!({"value": -19, "name": "-ENODEV"})
    );
    assert_eq!(buf[1]["msg"][1]["ifi_index"], 99);
    let addrs = calls
        .iter()
        .find(|c| {
            c["name"] == "recvfrom" && c["args"]["buf"][0][0]["nlmsg_type"]["name"] == "RTM_NEWADDR"
        })
        .expect("the address dump");
    let attrs = &addrs["args"]["buf"][0][2];
    assert_eq!(attrs[0][0]["nla_type"]["name"], "IFA_ADDRESS");
    assert_eq!(attrs[0][1], "127.0.0.1");
    assert_eq!(attrs[2][1], "lo");
}

/// Under the seccomp fast path the fd table does not see socket calls:
/// it finds the netlink sockets in /proc/PID/net/netlink, and every
/// message decodes as with the socket calls seen. (The kernel lists a
/// socket there once bound: the fixture binds its sockets, as ip and ss
/// do; an unbound socket's first request would print as bytes.)
#[test]
fn sockets_are_found_in_proc() {
    if !can_unshare() {
        return;
    }
    let bin = fixture("netlink");
    let run = trace(
        &["-f", "-s", "8", "-e", "trace=sendto,recvfrom,sendmsg"],
        &[name(&bin)],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = normalise_kernel(&run.lines());
    let mut expected = vec!["Tracing netlink (pid PID1)"];
    expected.extend(FIXTURE.iter().filter(|l| {
        l.starts_with("send") || l.starts_with("recvfrom") || l.starts_with("Process")
    }));
    assert_lines(&lines, &expected);
}

/// `ip addr` in a new network namespace (only lo, down): the requests and
/// the end of each dump are whole lines; no netlink call shows raw bytes.
#[test]
fn ip_addr() {
    if !can_unshare() || !have("ip") {
        return;
    }
    let run = trace(
        &["-e", "trace=sendto,recvmsg"],
        &["unshare", "-n", "ip", "addr"],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = normalise_kernel(&run.lines());
    for l in &lines {
        assert!(
            !l.starts_with("sendto(3, \"") && !l.contains("iov_base=\"\\"),
            "raw netlink bytes: {l}"
        );
    }
    for want in [
        "sendto(3, [{nlmsg_len=40, nlmsg_type=RTM_GETLINK, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=SEQ, nlmsg_pid=0}, {ifi_family=AF_UNSPEC, ifi_type=ARPHRD_NETROM, ifi_index=0, ifi_flags=0, ifi_change=0}, [{nla_len=8, nla_type=IFLA_EXT_MASK}, RTEXT_FILTER_VF]], 40, 0, NULL, 0) = 40",
        // ip sends its request in a larger buffer: the rest is a zeroed header.
        "sendto(3, [[{nlmsg_len=24, nlmsg_type=RTM_GETADDR, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=SEQ, nlmsg_pid=0}, {ifa_family=AF_UNSPEC, ifa_prefixlen=0, ifa_flags=0, ifa_scope=RT_SCOPE_UNIVERSE, ifa_index=0}], {nlmsg_len=0, nlmsg_type=0, nlmsg_flags=0, nlmsg_seq=0, nlmsg_pid=0}], 152, 0, NULL, 0) = 152",
    ] {
        assert!(
            lines.iter().any(|l| l == want),
            "no {want} in\n{}",
            lines.join("\n")
        );
    }
    let done = lines
        .iter()
        .filter(|l| l.contains("iov_base=[{nlmsg_len=20, nlmsg_type=NLMSG_DONE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=SEQ, nlmsg_pid=PID1}, 0], iov_len=32768}]"))
        .count();
    assert_eq!(done, 2, "{}", lines.join("\n"));
    let link = lines
        .iter()
        .find(|l| l.contains("nlmsg_type=RTM_NEWLINK"))
        .expect("the link");
    assert!(
        link.contains("{ifi_family=AF_UNSPEC, ifi_type=ARPHRD_LOOPBACK, ifi_index=if_nametoindex(\"lo\"), ifi_flags=IFF_LOOPBACK, ifi_change=0}, [[{nla_len=7, nla_type=IFLA_IFNAME}, \"lo\"], "),
        "{link}"
    );
}

/// `ss -tln` in a new network namespace where python listens on
/// 127.0.0.1:40405: the inet_diag requests for both families and the
/// answer naming the listener.
#[test]
fn ss_tln() {
    if !can_unshare() || !have("ss") || !have("python3") {
        return;
    }
    let script = "import socket, subprocess\n\
                  s = socket.socket()\n\
                  s.bind(('127.0.0.1', 40405))\n\
                  s.listen()\n\
                  subprocess.run(['ss', '-tln'], check=True)\n";
    let run = trace(
        &["-f", "-e", "trace=sendmsg,recvmsg"],
        &["unshare", "-n", "python3", "-c", script],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = normalise_kernel(&run.lines());
    let text = lines.join("\n");
    for family in [
        "idiag_src=inet_addr(\"0.0.0.0\"), idiag_dst=inet_addr(\"0.0.0.0\")",
        "idiag_src=inet_pton(AF_INET6, \"::\"), idiag_dst=inet_pton(AF_INET6, \"::\")",
    ] {
        let v6 = family.contains("AF_INET6");
        let want = format!(
            "sendmsg(3, {{msg_name={{sa_family=AF_NETLINK, nl_pid=0, nl_groups=0x0}}, msg_namelen=12, msg_iov=[{{iov_base=[{{nlmsg_len=72, nlmsg_type=SOCK_DIAG_BY_FAMILY, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=123456, nlmsg_pid=0}}, {{sdiag_family={}, sdiag_protocol=IPPROTO_TCP, idiag_ext=0, idiag_states=1<<TCP_CLOSE|1<<TCP_LISTEN, id={{idiag_sport=htons(0), idiag_dport=htons(0), {family}, idiag_if=0, idiag_cookie=[0, 0]}}}}], iov_len=72}}], msg_iovlen=1, msg_control=NULL, msg_controllen=0, msg_flags=0}}, 0) = 72",
            if v6 { "AF_INET6" } else { "AF_INET" }
        );
        assert!(
            lines.iter().any(|l| l.ends_with(&want)),
            "no {want} in\n{text}"
        );
    }
    assert!(
        text.contains("{idiag_family=AF_INET, idiag_state=TCP_LISTEN, idiag_timer=0, idiag_retrans=0, id={idiag_sport=htons(40405), idiag_dport=htons(0), idiag_src=inet_addr(\"127.0.0.1\"), idiag_dst=inet_addr(\"0.0.0.0\"), idiag_if=0, idiag_cookie=[COOKIE]}, idiag_expires=0, idiag_rqueue=0, idiag_wqueue=128, idiag_uid=0, idiag_inode=INODE}"),
        "{text}"
    );
}

/// Whether `program` is installed; says so on stderr when not.
fn have(program: &str) -> bool {
    let ok = Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("netlink: {program} not installed: test skipped");
    }
    ok
}
