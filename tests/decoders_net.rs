//! Snapshot tests of the network decoders: sockets, addresses of every
//! decoded family, options, messages with iovecs and control messages,
//! batched messages. The ports the kernel picks are named PORT (the
//! listener's) and CPORT (the client's).

mod common;

use common::{fixture, name, trace};

/// The port in the first `htons(N)` of the line starting with `prefix`.
fn port_in(lines: &[String], prefix: &str) -> String {
    let line = lines
        .iter()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no {prefix} in\n{}", lines.join("\n")));
    let at = line.find("htons(").expect("a port") + 6;
    line[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect()
}

/// Compare whole lines; on a mismatch show where and the whole trace.
fn assert_lines(actual: &[String], expected: &[String]) {
    if actual != expected {
        let first = actual
            .iter()
            .zip(expected)
            .position(|(a, e)| a != e)
            .unwrap_or(actual.len().min(expected.len()));
        panic!(
            "trace differs at line {first}:\n  actual:   {:?}\n  expected: {:?}\nwhole trace:\n{}",
            actual.get(first),
            expected.get(first),
            actual.join("\n")
        );
    }
}

#[test]
fn network_calls() {
    let bin = fixture("calls_net");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let raw = run.after_marker();
    let port = port_in(&raw, "getsockname(3, ");
    let cport = port_in(&raw, "accept4(3, ");
    let lines: Vec<String> = raw
        .iter()
        .map(|l| {
            l.replace(&format!("htons({port})"), "htons(PORT)")
                .replace(&format!("htons({cport})"), "htons(CPORT)")
        })
        .collect();
    // SAFETY: getuid and getgid cannot fail.
    let (u, g) = unsafe { (libc::getuid(), libc::getgid()) };
    // The abstract name holds the pid itself, so its length depends on the
    // pid's digits.
    let pid = run
        .trace
        .lines()
        .next()
        .unwrap()
        .rsplit("pid ")
        .next()
        .unwrap()
        .trim_end_matches(')')
        .to_string();
    let pid_digits = pid.len();
    let sun_len = 2 + 1 + "rtrace-".len() + pid_digits;
    let lo = "sin_addr=inet_addr(\"127.0.0.1\")";
    let expected: Vec<String> = vec![
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]".to_string(),
        "socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, IPPROTO_TCP) = 3".into(),
        "setsockopt(3, SOL_SOCKET, SO_REUSEADDR, [1], 4) = 0".into(),
        format!("bind(3, {{sa_family=AF_INET, sin_port=htons(0), {lo}}}, 16) = 0"),
        "listen(3, 5) = 0".into(),
        format!("getsockname(3, {{sa_family=AF_INET, sin_port=htons(PORT), {lo}}}, [16]) = 0"),
        "socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 4".into(),
        format!("connect(4, {{sa_family=AF_INET, sin_port=htons(PORT), {lo}}}, 16) = 0"),
        format!(
            "accept4(3, {{sa_family=AF_INET, sin_port=htons(CPORT), {lo}}}, [16], SOCK_CLOEXEC) \
             = 5"
        ),
        format!("getpeername(5, {{sa_family=AF_INET, sin_port=htons(CPORT), {lo}}}, [16]) = 0"),
        "sendto(4, \"hello\", 5, MSG_NOSIGNAL, NULL, 0) = 5".into(),
        "recvfrom(5, \"hello\", 64, 0, NULL, NULL) = 5".into(),
        "sendto(4, \"again\", 5, 0, NULL, 0) = 5".into(),
        "recvfrom(5, \"again\", 64, MSG_PEEK, &ADDR, [16 => 0]) = 5".into(),
        "recvfrom(5, \"ag\", 2, MSG_DONTWAIT, NULL, NULL) = 2".into(),
        "getsockopt(3, SOL_SOCKET, SO_TYPE, [SOCK_STREAM], [4]) = 0".into(),
        "getsockopt(3, SOL_SOCKET, SO_DOMAIN, [AF_INET], [4]) = 0".into(),
        "getsockopt(3, SOL_SOCKET, SO_ERROR, [0], [4]) = 0".into(),
        "getsockopt(3, SOL_SOCKET, SO_ACCEPTCONN, [1], [4]) = 0".into(),
        "setsockopt(4, SOL_TCP, TCP_NODELAY, [1], 4) = 0".into(),
        "getsockopt(4, SOL_TCP, TCP_NODELAY, [1], [4]) = 0".into(),
        "setsockopt(4, SOL_SOCKET, SO_LINGER, {l_onoff=1, l_linger=5}, 8) = 0".into(),
        "setsockopt(4, SOL_SOCKET, SO_RCVTIMEO_OLD, {tv_sec=1, tv_usec=500}, 16) = 0".into(),
        "setsockopt(4, SOL_SOCKET, SO_REUSEADDR, &0x1, 4) = -1 [EFAULT]".into(),
        "getsockopt(4, 9999, 1, &ADDR, [4]) = -1 [EOPNOTSUPP]".into(),
        "getsockopt(4, SOL_SOCKET, SO_TYPE, &ADDR, &0x1) = -1 [EFAULT]".into(),
        "getsockopt(4, SOL_SOCKET, SO_GET_FILTER, NULL, [0]) = 0".into(),
        "shutdown(4, SHUT_WR) = 0".into(),
        "shutdown(4, 7) = -1 [EINVAL]".into(),
        "accept(4, NULL, NULL) = -1 [EINVAL]".into(),
        "socketpair(AF_UNIX, SOCK_STREAM, 0, [6, 7]) = 0".into(),
        "setsockopt(7, SOL_SOCKET, SO_PASSCRED, [1], 4) = 0".into(),
        "sendmsg(6, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"hi \", iov_len=3}, \
         {iov_base=\"there\", iov_len=5}], msg_iovlen=2, msg_control=[{cmsg_len=20, \
         cmsg_level=SOL_SOCKET, cmsg_type=SCM_RIGHTS, cmsg_data=[1]}], msg_controllen=24, \
         msg_flags=0}, 0) = 8"
            .into(),
        format!(
            "recvmsg(7, {{msg_name=NULL, msg_namelen=0, msg_iov=[{{iov_base=\"hi t\", \
             iov_len=4}}, {{iov_base=\"here\", iov_len=60}}], msg_iovlen=2, \
             msg_control=[{{cmsg_len=28, cmsg_level=SOL_SOCKET, cmsg_type=SCM_CREDENTIALS, \
             cmsg_data={{pid=PID1, uid={u}, gid={g}}}}}, {{cmsg_len=20, cmsg_level=SOL_SOCKET, \
             cmsg_type=SCM_RIGHTS, cmsg_data=[8]}}], msg_controllen=56, \
             msg_flags=MSG_CMSG_CLOEXEC}}, MSG_CMSG_CLOEXEC) = 8"
        ),
        "recvmsg(7, {msg_namelen=0, ..}, MSG_DONTWAIT) = -1 [EAGAIN]".into(),
        "sendmsg(6, &0x1, 0) = -1 [EFAULT]".into(),
        format!("getuid() = {u}"),
        format!("getgid() = {g}"),
        format!(
            "sendmsg(6, {{msg_name=NULL, msg_namelen=0, msg_iov=[{{iov_base=\"!\", iov_len=1}}], \
             msg_iovlen=1, msg_control=[{{cmsg_len=28, cmsg_level=SOL_SOCKET, \
             cmsg_type=SCM_CREDENTIALS, cmsg_data={{pid=PID1, uid={u}, gid={g}}}}}], \
             msg_controllen=32, msg_flags=0}}, 0) = 1"
        ),
        "socketpair(AF_UNIX, SOCK_DGRAM|SOCK_NONBLOCK, 0, [9, 10]) = 0".into(),
        "sendmmsg(9, [{msg_hdr={msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"one\", \
         iov_len=3}], msg_iovlen=1, msg_control=NULL, msg_controllen=0, msg_flags=0}, \
         msg_len=3}, {msg_hdr={msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"two!\", \
         iov_len=4}], msg_iovlen=1, msg_control=NULL, msg_controllen=0, msg_flags=0}, \
         msg_len=4}], 2, 0) = 2"
            .into(),
        "recvmmsg(10, [{msg_hdr={msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"one\", \
         iov_len=16}], msg_iovlen=1, msg_control=NULL, msg_controllen=0, msg_flags=0}, \
         msg_len=3}, {msg_hdr={msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"two!\", \
         iov_len=16}], msg_iovlen=1, msg_control=NULL, msg_controllen=0, msg_flags=0}, \
         msg_len=4}], 2, 0, NULL) = 2"
            .into(),
        "recvmmsg(10, &ADDR, 2, MSG_DONTWAIT, NULL) = -1 [EAGAIN]".into(),
        "sendto(9, \"abc\", 3, 0, NULL, 0) = 3".into(),
        // The timeout as given; the kernel's rewrite (the time left) after.
        "recvmmsg(10, [{msg_hdr={msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"abc\", \
         iov_len=16}], msg_iovlen=1, msg_control=NULL, msg_controllen=0, msg_flags=0}, \
         msg_len=3}], 1, 0, {tv_sec=0, tv_nsec=1}) = 1 {left={tv_sec=0, tv_nsec=0}}"
            .into(),
        "socket(AF_UNIX, SOCK_DGRAM, 0) = 11".into(),
        format!("bind(11, {{sa_family=AF_UNIX, sun_path=@\"rtrace-{pid}\"}}, {sun_len}) = 0"),
        format!(
            "getsockname(11, {{sa_family=AF_UNIX, sun_path=@\"rtrace-{pid}\"}}, [110 => {sun_len}]) = 0"
        ),
        "connect(11, {sa_family=AF_UNIX, sun_path=\"/nonexistent/sock\"}, 110) = -1 [ENOENT]"
            .into(),
        "sendto(11, \"x\", 1, 0, {sa_family=AF_UNIX, sun_path=\"/nonexistent/sock\"}, 110) \
         = -1 [ENOENT]"
            .into(),
        "socket(AF_NETLINK, SOCK_RAW|SOCK_CLOEXEC, NETLINK_ROUTE) = 12".into(),
        "bind(12, {sa_family=AF_NETLINK, nl_pid=0, nl_groups=0x0}, 12) = 0".into(),
        "getsockname(12, {sa_family=AF_NETLINK, nl_pid=PID1, nl_groups=0x0}, [12]) = 0".into(),
        "socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 13".into(),
        "connect(13, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), \
         sin6_addr=inet_pton(AF_INET6, \"::1\"), sin6_scope_id=0}, 28) = -1 [EAFNOSUPPORT]"
            .into(),
        "connect(13, {sa_family=AF_PACKET, sll_protocol=htons(ETH_P_IP), sll_ifindex=if_nametoindex(\"lo\"), \
         sll_hatype=0, sll_pkttype=PACKET_HOST, sll_halen=6, sll_addr=[0x0, 0x11, 0x22, 0x33, \
         0x44, 0x55]}, 20) = -1 [EAFNOSUPPORT]"
            .into(),
        "connect(13, &0x1, 16) = -1 [EFAULT]".into(),
        "connect(13, &ADDR, 1) = -1 [EINVAL]".into(),
        "socket(99, SOCK_STREAM, 0) = -1 [EAFNOSUPPORT]".into(),
        "exit_group(0)".into(),
        "Process exited normally with code 0".into(),
    ];
    assert_lines(&lines, &expected);
}

#[test]
fn network_calls_values_only_and_struct_pointers() {
    let bin = fixture("calls_net");
    let values = trace(&["-V"], &[name(&bin)]).after_marker();
    for want in [
        "socket(2, 0x80001, 6) = 3",
        "setsockopt(3, 1, 2, [1], 4) = 0",
        "listen(3, 5) = 0",
        "getsockopt(3, 1, 3, [0x1], [4]) = 0",
        "shutdown(4, 1) = 0",
        "bind(12, {sa_family=16, nl_pid=0, nl_groups=0x0}, 12) = 0",
    ] {
        assert!(
            values.iter().any(|l| l == want),
            "no {want:?} in\n{}",
            values.join("\n")
        );
    }
    let structs = trace(&["-VV"], &[name(&bin)]).after_marker();
    for want in [
        "bind(3, &ADDR, 16) = 0",
        "getsockname(3, &ADDR, &ADDR) = 0",
        "sendmsg(6, &ADDR, 0x0) = 8",
        "socketpair(1, 0x1, 0, &ADDR) = 0",
    ] {
        assert!(
            structs.iter().any(|l| l == want),
            "no {want:?} in\n{}",
            structs.join("\n")
        );
    }
}

/// Addresses in JSON: ports and addresses as plain values, an abstract
/// UNIX name with its leading NUL.
#[test]
fn json_addresses() {
    use serde_json::{Value, json};
    let bin = fixture("calls_net");
    let run = trace(&["--json"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let calls: Vec<Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .filter(|v: &Value| v["type"] == "call")
        .collect();
    let binds: Vec<&Value> = calls.iter().filter(|v| v["name"] == "bind").collect();
    assert_eq!(
        binds[0]["args"]["addr"],
        json!({"sa_family": {"value": 2, "name": "AF_INET"}, "sin_port": 0, "sin_addr": "127.0.0.1"})
    );
    assert_eq!(
        binds[1]["args"]["addr"],
        json!({
            "sa_family": {"value": 1, "name": "AF_UNIX"},
            "sun_path": format!("\u{0}rtrace-{}", calls[0]["pid"])
        })
    );
    let connects: Vec<&Value> = calls.iter().filter(|v| v["name"] == "connect").collect();
    let in6 = &connects[2]["args"]["addr"];
    assert_eq!(in6["sin6_port"], 443);
    assert_eq!(in6["sin6_addr"], "::1");
    assert_eq!(
        connects[3]["args"]["addr"]["sll_protocol"],
        json!({"value": 0x800, "name": "ETH_P_IP"})
    );
    let pair = calls.iter().find(|v| v["name"] == "socketpair").unwrap();
    assert_eq!(pair["args"]["sv"], json!([6, 7]));
}

/// Value-result lengths show what went in and what the kernel wrote
/// (`[110 => 2]`, `msg_namelen=110 => 0`), as strace prints them; a NULL
/// iovec base is `NULL`, never `""`; escapes are octal, so a string means
/// the same bytes when pasted into C (`"\177ELF"`, not `"\x7fELF"`, which
/// C reads as the escape `\x7fE`).
#[test]
fn value_results_null_bases_and_escapes() {
    let bin = fixture("value_result");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let esc = "\\177ELF\\1\\33[0m\\v\\f\\09\\0017";
    let port = port_in(&run.after_marker(), "getsockname(7, ");
    let expected: Vec<String> = vec![
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]".to_string(),
        "socketpair(AF_UNIX, SOCK_DGRAM, 0, [3, 4]) = 0".into(),
        "getsockname(3, {sa_family=AF_UNIX}, [110 => 2]) = 0".into(),
        "getpeername(3, {sa_family=AF_UNIX}, [110 => 2]) = 0".into(),
        "getsockname(3, {sa_family=AF_UNIX}, [2]) = 0".into(),
        "getsockname(3, &0x1, [110]) = -1 [EFAULT]".into(),
        "getsockopt(3, SOL_SOCKET, SO_TYPE, [SOCK_DGRAM], [8 => 4]) = 0".into(),
        "getsockopt(3, SOL_SOCKET, SO_TYPE, [SOCK_DGRAM], [4]) = 0".into(),
        "getsockopt(3, 9999, 1, &ADDR, [4]) = -1 [EOPNOTSUPP]".into(),
        "sendto(4, \"hi\", 2, 0, NULL, 0) = 2".into(),
        "recvfrom(3, \"hi\", 16, 0, &ADDR, [110 => 0]) = 2".into(),
        format!("write(4, \"{esc}\", 15) = 15"),
        format!(
            "recvmsg(3, {{msg_name=&ADDR, msg_namelen=110 => 0, msg_iov=[{{iov_base=NULL, \
             iov_len=0}}, {{iov_base=\"{esc}\", iov_len=16}}], msg_iovlen=2, msg_control=NULL, \
             msg_controllen=0, msg_flags=0}}, 0) = 15"
        ),
        "sendmsg(4, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=NULL, iov_len=0}, \
         {iov_base=\"\\177ELF\", iov_len=4}], msg_iovlen=2, msg_control=NULL, \
         msg_controllen=0, msg_flags=0}, 0) = 4"
            .into(),
        "write(4, NULL, 0) = 0".into(),
        "socket(AF_UNIX, SOCK_DGRAM, 0) = 5".into(),
        "bind(5, {sa_family=AF_UNIX, sun_path=@\"vr-to\"}, 8) = 0".into(),
        "socket(AF_UNIX, SOCK_DGRAM, 0) = 6".into(),
        "bind(6, {sa_family=AF_UNIX, sun_path=@\"vr-from\"}, 10) = 0".into(),
        "sendto(6, \"hi\", 2, 0, {sa_family=AF_UNIX, sun_path=@\"vr-to\"}, 8) = 2".into(),
        // Only the 4 bytes the kernel wrote are the address, never the
        // stale 'A's after them.
        "getsockname(5, {sa_family=AF_UNIX, sun_path=@\"v\"}, [4 => 8]) = 0".into(),
        "recvfrom(5, \"h\", 1, MSG_PEEK, {sa_family=AF_UNIX, sun_path=@\"v\"}, [4 => 10]) = 1"
            .into(),
        "recvmsg(5, {msg_name={sa_family=AF_UNIX, sun_path=@\"v\"}, msg_namelen=4 => 10, \
         msg_iov=[{iov_base=NULL, iov_len=0}, {iov_base=\"hi\", iov_len=16}], msg_iovlen=2, \
         msg_control=NULL, msg_controllen=0, msg_flags=0}, 0) = 2"
            .into(),
        "sendto(6, \"yo\", 2, 0, {sa_family=AF_UNIX, sun_path=@\"vr-to\"}, 8) = 2".into(),
        "recvmmsg(5, [{msg_hdr={msg_name={sa_family=AF_UNIX, sun_path=@\"v\"}, \
         msg_namelen=4 => 10, msg_iov=[{iov_base=NULL, iov_len=0}, {iov_base=\"yo\", \
         iov_len=16}], msg_iovlen=2, msg_control=NULL, msg_controllen=0, msg_flags=0}, \
         msg_len=2}], 1, 0, NULL) = 1"
            .into(),
        "socket(AF_INET, SOCK_DGRAM, IPPROTO_IP) = 7".into(),
        "bind(7, {sa_family=AF_INET, sin_port=htons(0), sin_addr=inet_addr(\"127.0.0.1\")}, 16) = 0"
            .into(),
        format!(
            "getsockname(7, {{sa_family=AF_INET, sin_port=htons({port}), \
             sin_addr=inet_addr(\"127.0.0.1\")}}, [16]) = 0"
        ),
        // Cut short: the fields that fit, then `..`.
        format!("getsockname(7, {{sa_family=AF_INET, sin_port=htons({port}), ..}}, [4 => 16]) = 0"),
        "exit_group(0)".into(),
        "Process exited normally with code 0".into(),
    ];
    assert_lines(&run.after_marker(), &expected);
}

/// In JSON a changed length is its value with what went in; strings keep
/// JSON's own escapes, whatever the text trace's are.
#[test]
fn json_value_results_and_escapes() {
    use serde_json::{Value, json};
    let bin = fixture("value_result");
    let run = trace(&["--json"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let calls: Vec<Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .filter(|v: &Value| v["type"] == "call")
        .collect();
    let named = |n: &str| -> Vec<&Value> { calls.iter().filter(|v| v["name"] == n).collect() };
    let names = named("getsockname");
    assert_eq!(
        names[0]["args"]["addrlen"],
        json!([{"value": 2, "before": 110}])
    );
    assert_eq!(names[1]["args"]["addrlen"], json!([2]));
    let recvmsg = &named("recvmsg")[0]["args"]["msg"];
    assert_eq!(recvmsg["msg_namelen"], json!({"value": 0, "before": 110}));
    assert_eq!(recvmsg["msg_iov"][0]["iov_base"], Value::Null);
    let write = named("write")[1];
    assert_eq!(
        write["args"]["buf"],
        "\u{7f}ELF\u{1}\u{1b}[0m\u{b}\u{c}\u{0}9\u{1}7"
    );
}
