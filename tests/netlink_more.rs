//! Issue 25's netlink breadth, compared whole with strace 6.x's
//! information: interface indexes named wherever the kernel reads one
//! (`ifindex` fixture: sockaddr_ll, a link-local sockaddr_in6, the
//! multicast requests), in text, `-X verbose` and JSON.
//!
//! Index 1 is `lo` in every network namespace, rtrace's own included,
//! where the name is looked up (as strace does).

mod common;

use common::{fixture, name, trace};

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
        let first = run.lines().into_iter().find(|l| l.starts_with("bind(")).unwrap();
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
