//! Socket option values (issue 25, session 11): the `s11_net` fixture sets
//! and gets options with values at the end of a page and lengths longer or
//! shorter than their types, and the whole lines are compared with what
//! strace 6 shows of them in rtrace's grammar: an int option is read at
//! its 4 bytes whatever `optlen` says past them, a value too short for its
//! type is the pointer for setsockopt and the bytes the kernel wrote for
//! getsockopt (a struct's partial field as bytes), the multicast requests
//! are read at their own size.

mod common;

use common::{assert_lines, fixture, name, trace};

/// The lines from the marker on, as rtrace prints them with no option.
fn expected(uid: &[u8; 4]) -> Vec<String> {
    let uid2 = format!("\\{}\\{}", uid[0], uid[1]);
    vec![
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]".to_string(),
        "setsockopt(3, SOL_SOCKET, SO_REUSEADDR, [1], 5) = 0".into(),
        "setsockopt(3, SOL_SOCKET, SO_REUSEADDR, &ADDR, 3) = -1 [EINVAL]".into(),
        "getsockopt(3, SOL_SOCKET, SO_REUSEADDR, [1], [5 => 4]) = 0".into(),
        "getsockopt(3, SOL_SOCKET, SO_REUSEADDR, \"\\1\\0\\0\", [3]) = 0".into(),
        // strace 6.1 shows `[2]`; the name is rtrace's.
        "getsockopt(3, SOL_SOCKET, SO_TYPE, [SOCK_DGRAM], [4]) = 0".into(),
        "setsockopt(3, SOL_SOCKET, SO_LINGER, {l_onoff=1, l_linger=5}, 9) = 0".into(),
        "setsockopt(3, SOL_SOCKET, SO_LINGER, &ADDR, 4) = -1 [EINVAL]".into(),
        "getsockopt(3, SOL_SOCKET, SO_LINGER, {l_onoff=1, l_linger=\"\\5\\0\"}, [6]) = 0".into(),
        "getsockopt(4, SOL_SOCKET, SO_PEERCRED, {pid=PID1}, [4]) = 0".into(),
        format!("getsockopt(4, SOL_SOCKET, SO_PEERCRED, {{pid=PID1, uid=\"{uid2}\"}}, [6]) = 0"),
        "setsockopt(-1, SOL_NETLINK, NETLINK_RX_RING, [3], 5) = -1 [EBADF]".into(),
        "setsockopt(-1, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &ADDR, 2) = -1 [EBADF]".into(),
        "setsockopt(-1, SOL_IP, IP_ADD_MEMBERSHIP, {imr_multiaddr=inet_addr(\"224.0.0.3\"), \
         imr_interface=inet_addr(\"127.0.0.1\")}, 2147483647) = -1 [EBADF]"
            .into(),
        "setsockopt(-1, SOL_IPV6, IPV6_JOIN_ANYCAST, {ipv6mr_multiaddr=inet_pton(AF_INET6, \
         \"ff01::c\"), ipv6mr_interface=if_nametoindex(\"lo\")}, 20) = -1 [EBADF]"
            .into(),
        "setsockopt(-1, SOL_IP, MCAST_JOIN_GROUP, {gr_interface=if_nametoindex(\"lo\"), \
         gr_group={sa_family=AF_INET, sin_port=htons(0), sin_addr=inet_addr(\"224.0.0.3\")}}, \
         136) = -1 [EBADF]"
            .into(),
        "setsockopt(-1, SOL_IP, MCAST_LEAVE_GROUP, &ADDR, 135) = -1 [EBADF]".into(),
        "setsockopt(-1, SOL_RAW, ICMP_FILTER, ~[ICMP_ECHOREPLY ICMP_ECHO], 8) = -1 [EBADF]".into(),
        format!("setsockopt(3, SOL_SOCKET, SO_ATTACH_FILTER, {FILTER}, 16) = 0"),
        "exit_group(0)".into(),
    ]
}

/// The fixture's socket filter, as rtrace spells it by default.
const FILTER: &str = "{len=2, filter=[BPF_STMT(BPF_LD|BPF_B|BPF_ABS, SKF_NET_OFF+9), \
                      BPF_STMT(BPF_RET|BPF_K, 0xffff)]}";

/// `-X raw` and `-X verbose` spell each part of an instruction's code and
/// operand, as strace does: `0|0x10|0x20`, `0xfff00000+9`.
#[test]
fn socket_filter_parts() {
    let bin = fixture("s11_net");
    let last = |args: &[&str]| {
        let run = trace(args, &[name(&bin)]);
        assert_eq!(run.code(), Some(0), "{}", run.stderr());
        // The raw trace: its numbers are no addresses to normalise.
        run.trace
            .lines()
            .find(|l| l.contains("0x1a"))
            .unwrap_or_else(|| panic!("no SO_ATTACH_FILTER in {}", run.trace))
            .to_string()
    };
    assert_eq!(
        last(&["-X", "raw"]),
        "setsockopt(3, 0x1, 0x1a, {len=2, filter=[BPF_STMT(0|0x10|0x20, 0xfff00000+9), \
         BPF_STMT(0x6|0, 0xffff)]}, 16) = 0"
    );
    assert_eq!(
        last(&["-X", "verbose"]),
        "setsockopt(3, 0x1 /* SOL_SOCKET */, 0x1a /* SO_ATTACH_FILTER */, {len=2, \
         filter=[BPF_STMT(0 /* BPF_LD */|0x10 /* BPF_B */|0x20 /* BPF_ABS */, \
         0xfff00000 /* SKF_NET_OFF */+9), BPF_STMT(0x6 /* BPF_RET */|0 /* BPF_K */, 0xffff)]}, \
         16) = 0"
    );
}

/// The caller's uid as the bytes SO_PEERCRED writes.
fn uid_bytes() -> [u8; 4] {
    // SAFETY: getuid cannot fail.
    unsafe { libc::getuid() }.to_le_bytes()
}

#[test]
fn socket_option_values() {
    let bin = fixture("s11_net");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines: Vec<String> = run
        .after_marker()
        .into_iter()
        .filter(|l| !l.starts_with("Process exited"))
        .collect();
    assert_lines(&lines, &expected(&uid_bytes()));
}

/// `--json`: a struct cut inside a field keeps the field as its bytes.
#[test]
fn socket_option_values_json() {
    use serde_json::{Value, json};
    let bin = fixture("s11_net");
    let run = trace(&["--json"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let objs: Vec<Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let gets: Vec<&Value> = objs.iter().filter(|o| o["name"] == "getsockopt").collect();
    let linger = &gets[3]["args"]["optval"];
    assert_eq!(linger["l_onoff"], json!(1), "{linger}");
    assert_eq!(linger["l_linger"], json!("\u{5}\0"), "{linger}");
    let sets: Vec<&Value> = objs.iter().filter(|o| o["name"] == "setsockopt").collect();
    let group = &sets[8]["args"]["optval"];
    assert_eq!(group["gr_group"]["sin_addr"], json!("224.0.0.3"), "{group}");
    assert_eq!(group["gr_interface"]["value"], json!(1), "{group}");
}

/// The header of a request of `kind` with NLM_F_REQUEST and `flags`.
fn nlh(len: u32, kind: &str, flags: &str) -> String {
    format!("{{nlmsg_len={len}, nlmsg_type={kind}, nlmsg_flags={flags}, nlmsg_seq=0, nlmsg_pid=0}}")
}

/// `sendto(3, [header, struct, attribute], len, ...) = result`.
fn sent(len: u32, kind: &str, flags: &str, head: &str, attr: &str, result: &str) -> String {
    format!(
        "sendto(3, [{}, {head}, {attr}], {len}, MSG_DONTWAIT, NULL, 0) = {result}",
        nlh(len, kind, flags)
    )
}

/// Netlink attributes as strace 6 shows them: a clock-tick timer, a
/// switch read from a longer payload, IFLA_PROTINFO by the link's family,
/// addresses only under AF_INET/AF_INET6, a struct too short for its
/// layout as bytes, a cache report's family then bytes, a payload past
/// the readable memory as its address, bytes too few for an attribute,
/// and a netfilter subsystem's message name and its verb's flags.
#[test]
fn netlink_attributes() {
    let bin = fixture("s11_netlink");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines: Vec<String> = run
        .after_marker()
        .into_iter()
        .filter(|l| !l.starts_with("Process exited"))
        .collect();
    let dump = "NLM_F_REQUEST|NLM_F_DUMP";
    let link = |family: &str| {
        format!(
            "{{ifi_family={family}, ifi_type=ARPHRD_NETROM, ifi_index=if_nametoindex(\"lo\"), \
             ifi_flags=0, ifi_change=0}}"
        )
    };
    let addr = |family: &str| {
        format!(
            "{{ifa_family={family}, ifa_prefixlen=0, ifa_flags=0, ifa_scope=RT_SCOPE_UNIVERSE, \
             ifa_index=if_nametoindex(\"lo\")}}"
        )
    };
    let expected = vec![
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]".to_string(),
        sent(
            48,
            "RTM_GETLINK",
            dump,
            &link("AF_BRIDGE"),
            "[{nla_len=16, nla_type=IFLA_PROTINFO}, [{nla_len=12, \
             nla_type=IFLA_BRPORT_FORWARD_DELAY_TIMER}, 250 /* 2.50 s */]]",
            "48",
        ),
        sent(
            44,
            "RTM_GETLINK",
            dump,
            &link("AF_BRIDGE"),
            "[{nla_len=12, nla_type=IFLA_PROTINFO}, [{nla_len=8, nla_type=IFLA_BRPORT_STATE}, 3]]",
            "44",
        ),
        sent(
            44,
            "RTM_GETLINK",
            dump,
            &link("AF_INET6"),
            "[{nla_len=12, nla_type=IFLA_PROTINFO}, [{nla_len=8, nla_type=IFLA_INET6_FLAGS}, IF_RS_SENT]]",
            "44",
        ),
        sent(
            44,
            "RTM_GETLINK",
            dump,
            &link("AF_INET6"),
            "[{nla_len=12, nla_type=IFLA_PROTO_DOWN_REASON}, [{nla_len=8, \
             nla_type=IFLA_PROTO_DOWN_REASON_MASK}, 0xff]]",
            "44",
        ),
        sent(
            32,
            "RTM_GETADDR",
            dump,
            &addr("AF_UNIX"),
            "[{nla_len=8, nla_type=IFA_ADDRESS}, \"abcd\"]",
            "32",
        ),
        sent(
            32,
            "RTM_GETADDR",
            dump,
            &addr("AF_INET"),
            "[{nla_len=8, nla_type=IFA_ADDRESS}, inet_addr(\"127.0.0.1\")]",
            "32",
        ),
        sent(
            47,
            "RTM_GETNEIGH",
            dump,
            "{ndm_family=AF_INET, ndm_ifindex=if_nametoindex(\"lo\"), ndm_state=NUD_NONE, \
             ndm_flags=0, ndm_type=RTN_UNSPEC}",
            "[{nla_len=19, nla_type=NDA_CACHEINFO}, \"abcdefghijklmno\"]",
            "47",
        ),
        sent(
            28,
            "RTM_NEWCACHEREPORT",
            "NLM_F_REQUEST",
            "{rtgen_family=AF_INET}",
            "\"\\10\\0\\1\\0wxyz\"",
            "28",
        ),
        sent(
            25,
            "RTM_NEWCACHEREPORT",
            "NLM_F_REQUEST",
            "{rtgen_family=RTNL_FAMILY_IPMR}",
            "[{nla_len=5, nla_type=IPMRA_CREPORT_MSGTYPE}, IGMPMSG_NOCACHE]",
            "25",
        ),
        sent(
            36,
            "RTM_GETMDB",
            dump,
            "{family=AF_BRIDGE, ifindex=if_nametoindex(\"lo\")}",
            "[{nla_len=12, nla_type=MDBA_ROUTER}, [{nla_len=8, nla_type=MDBA_ROUTER_PORT}, \
             if_nametoindex(\"lo\")]]",
            "36",
        ),
        sent(
            32,
            "RTM_GETADDR",
            dump,
            &addr("AF_INET"),
            "[{nla_len=8, nla_type=IFA_ADDRESS}, &ADDR]",
            "-1 [EFAULT]",
        ),
        sent(
            30,
            "RTM_GETADDR",
            dump,
            &addr("AF_INET"),
            "[{nla_len=4, nla_type=IFA_LABEL}, \"12\"]",
            "30",
        ),
        format!(
            "sendto(3, [{}, {{error=-EACCES, msg={}}}, [{{nla_len=6, \
             nla_type=NLMSGERR_ATTR_COOKIE}}, [171, 254]]], 42, MSG_DONTWAIT, NULL, 0) = 42",
            nlh(42, "NLMSG_ERROR", "NLM_F_REQUEST|NLM_F_CAPPED"),
            nlh(20, "NLMSG_NOOP", "NLM_F_REQUEST")
        ),
        "socket(AF_NETLINK, SOCK_RAW, NETLINK_NETFILTER) = 4".into(),
        format!(
            "sendto(4, {}, 16, MSG_DONTWAIT, NULL, 0) = 16",
            nlh(
                16,
                "NFNL_SUBSYS_ACCT<<8|NFNL_MSG_ACCT_NEW",
                "NLM_F_REQUEST|NLM_F_CREATE"
            )
        ),
    ];
    // NETLINK_SELINUX exists where the kernel has SELinux: its message, or
    // the socket's refusal.
    let mut expected = expected;
    let selinux = "socket(AF_NETLINK, SOCK_RAW, NETLINK_SELINUX) = ";
    match lines.iter().find(|l| l.starts_with(selinux)) {
        Some(l) if l.ends_with("= 5") => {
            expected.push(l.clone());
            expected.push(format!(
                "sendto(5, [{}, {{val=1}}], 20, MSG_DONTWAIT, NULL, 0) = {}",
                nlh(20, "SELNL_MSG_SETENFORCE", "NLM_F_REQUEST"),
                lines[expected.len()].rsplit(" = ").next().unwrap_or("")
            ));
        }
        Some(l) => expected.push(l.clone()),
        None => panic!("no NETLINK_SELINUX socket in {}", lines.join("\n")),
    }
    expected.push("exit_group(0)".into());
    assert_lines(&lines, &expected);
}

/// `--json`: a clock-tick timer is its number, a cut payload its address.
#[test]
fn netlink_attributes_json() {
    use serde_json::{Value, json};
    let bin = fixture("s11_netlink");
    let run = trace(&["--json"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let sends: Vec<Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .filter(|o| o["name"] == "sendto")
        .collect();
    let timer = &sends[0]["args"]["buf"][2][1][1];
    assert_eq!(timer, &json!(250), "{}", sends[0]);
    let cut = &sends[10]["args"]["buf"][2][1];
    assert!(
        cut.as_str().is_some_and(|s| s.starts_with("0x")),
        "{}",
        sends[10]
    );
}

/// A queue's name longer than `-s`: mq_open prints it whole, as a path
/// (mq_unlink as far as `-s`), under both engines: the BPF engine copies
/// it as far as a path (`service::shown_whole`), where it had cut it at
/// `-s` for its row's `Str`.
#[test]
fn a_long_queue_name_is_shown_whole_under_both_engines() {
    let bin = fixture("s11_mq");
    let mut lines = Vec::new();
    for engine in [&[][..], &["--bpf"]] {
        let queue = format!(
            "/rtrace-s11-mq-long-{}-{}",
            "q".repeat(60),
            std::process::id()
        );
        let q = &queue[1..];
        let run = trace(engine, &[name(&bin), &queue]);
        assert_eq!(run.code(), Some(0), "{engine:?}: {}", run.stderr());
        let opens: Vec<String> = run
            .after_marker()
            .into_iter()
            .filter(|l| l.starts_with("mq_open("))
            .collect();
        assert_eq!(opens.len(), 2, "{engine:?}: {opens:?}");
        for open in &opens {
            assert!(
                open.starts_with(&format!("mq_open(\"{q}\", ")),
                "{engine:?}: {open}"
            );
        }
        lines.push(run.after_marker().join("\n").replace(&queue, "/QUEUE"));
    }
    // The rest the same too (mq_unlink's name cut alike).
    let pid_free = |t: &str| {
        t.split(std::process::id().to_string().as_str())
            .collect::<Vec<_>>()
            .join("PID")
    };
    assert_eq!(pid_free(&lines[0]), pid_free(&lines[1]));
}

/// POSIX message queues: mq_open's mode and attributes only with
/// O_CREAT, the message and its priority, the attributes mq_getsetattr
/// reads back; whole lines and JSON.
#[test]
fn message_queues() {
    let bin = fixture("s11_mq");
    let queue = format!("/rtrace-s11-mq-{}", std::process::id());
    let q = &queue[1..];
    let run = trace(&[], &[name(&bin), &queue]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines: Vec<String> = run
        .after_marker()
        .into_iter()
        .filter(|l| !l.starts_with("Process exited"))
        .collect();
    let expected = vec![
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]".to_string(),
        format!(
            "mq_open(\"{q}\", O_RDWR|O_CREAT|O_EXCL, 0600, {{mq_flags=0, mq_maxmsg=2, \
             mq_msgsize=8, mq_curmsgs=0}}) = 3"
        ),
        "mq_timedsend(3, \"hello\", 5, 7, {tv_sec=0, tv_nsec=0}) = 0".into(),
        "mq_timedreceive(3, \"hello\", 8, [7], {tv_sec=0, tv_nsec=0}) = 5".into(),
        "mq_getsetattr(3, NULL, {mq_flags=0, mq_maxmsg=2, mq_msgsize=8, mq_curmsgs=0}) = 0".into(),
        format!("mq_open(\"{q}\", O_RDONLY) = 4"),
        "mq_timedsend(-1, \"x\", 1, 0, NULL) = -1 [EBADF]".into(),
        format!("mq_unlink(\"{q}\") = 0"),
        "exit_group(0)".into(),
    ];
    assert_lines(&lines, &expected);

    use serde_json::{Value, json};
    let queue = format!("/rtrace-s11-mqj-{}", std::process::id());
    let run = trace(&["--json"], &[name(&bin), &queue]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let objs: Vec<Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let open = objs
        .iter()
        .find(|o| o["name"] == "mq_open")
        .expect("mq_open");
    assert_eq!(open["args"]["u_attr"]["mq_maxmsg"], json!(2), "{open}");
    let recv = objs
        .iter()
        .find(|o| o["name"] == "mq_timedreceive")
        .expect("receive");
    assert_eq!(recv["args"]["u_msg_ptr"], json!("hello"), "{recv}");
}

/// SOL_IP's control messages: IP_PKTINFO's `struct in_pktinfo`, IP_TTL,
/// IP_TOS's one byte, IP_ORIGDSTADDR's socket address (its port, the
/// kernel's choice, is PORT).
#[test]
fn ip_control_messages() {
    let bin = fixture("s11_cmsg");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines: Vec<String> = run
        .after_marker()
        .into_iter()
        .filter(|l| !l.starts_with("Process exited"))
        .map(|l| match l.find("htons(") {
            Some(at) => {
                let end = at + l[at..].find(')').expect("htons(N)");
                format!("{}htons(PORT{}", &l[..at], &l[end..])
            }
            None => l,
        })
        .collect();
    let lo = "inet_addr(\"127.0.0.1\")";
    let expected = vec![
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]".to_string(),
        format!(
            "recvmsg(3, {{msg_name=NULL, msg_namelen=0, msg_iov=[{{iov_base=\"data\", iov_len=8}}], \
             msg_iovlen=1, msg_control=[{{cmsg_len=28, cmsg_level=SOL_IP, cmsg_type=IP_PKTINFO, \
             cmsg_data={{ipi_ifindex=if_nametoindex(\"lo\"), ipi_spec_dst={lo}, ipi_addr={lo}}}}}, \
             {{cmsg_len=20, cmsg_level=SOL_IP, cmsg_type=IP_TTL, cmsg_data=[64]}}, \
             {{cmsg_len=17, cmsg_level=SOL_IP, cmsg_type=IP_TOS, cmsg_data=[0]}}, \
             {{cmsg_len=32, cmsg_level=SOL_IP, cmsg_type=IP_ORIGDSTADDR, \
             cmsg_data={{sa_family=AF_INET, sin_port=htons(PORT), sin_addr={lo}}}}}], \
             msg_controllen=112, msg_flags=0}}, 0) = 4"
        ),
        "exit_group(0)".into(),
    ];
    assert_lines(&lines, &expected);
}
