//! `-yy` and `--decode-fds=SET`: what strace shows of each fd, on a
//! fixture holding one fd of each kind (TCP and TCPv6 connections over
//! loopback, UDP, unix stream and datagram pairs, a bound unix socket and a
//! client of it, netlink route, packet, /dev/null, a pidfd, an eventfd, a
//! signalfd, a timerfd, a pipe). Whole lines are compared; only what the
//! kernel picks differs from run to run: the pid (`PID`), the socket
//! path given to the fixture (`SOCK`), the working directory (`CWD`), the
//! eventfd's id (`ID`), and inode numbers and ports, each distinct one
//! named `N1`, `N2`, ... in order of first appearance, so that a socket's
//! peer is still checked to be the other socket's inode.

mod common;

use common::{fixture, name, scratch_path, trace};

/// Whether this test may make a packet socket (CAP_NET_RAW): the fixture's
/// packet socket fails without it.
fn packet_sockets_allowed() -> bool {
    // SAFETY: socket and close take no pointers.
    unsafe {
        let fd = libc::socket(libc::AF_PACKET, libc::SOCK_RAW, 0);
        if fd >= 0 {
            libc::close(fd);
        }
        fd >= 0
    }
}

/// The fixture's trace under `args`, from its marker on, normalised (see
/// the module doc).
fn run(args: &[&str]) -> Vec<String> {
    let bin = fixture("decode_fds");
    let sock = scratch_path("decode_fds", "sock");
    let sock = sock.to_str().unwrap();
    let run = trace(args, &[name(&bin), sock]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    // The raw lines: the pid stands in places common::normalise does not
    // know (a netlink socket's port id inside -yy's details).
    let pid = run
        .trace
        .lines()
        .next()
        .and_then(|l| l.rsplit("(pid ").next())
        .expect("a banner")
        .trim_end_matches(')')
        .to_string();
    let start = run
        .trace
        .lines()
        .position(|l| l.starts_with("write(-1, \"BEGIN\""))
        .expect("the marker");
    let raw: Vec<&str> = run.trace.lines().skip(start).collect();
    let cwd = std::env::current_dir().unwrap();
    let cwd = cwd.to_str().unwrap();
    let mut names: Vec<String> = Vec::new();
    raw.iter()
        .map(|l| {
            let l = l
                .replace(sock, "SOCK")
                .replace(&format!("AT_FDCWD<{cwd}>"), "AT_FDCWD<CWD>");
            let l = renumber(&l, &pid, &mut names);
            match l.find("eventfd-id=") {
                Some(at) => {
                    let end = l[at + 11..]
                        .find(|c: char| !c.is_ascii_digit())
                        .map_or(l.len(), |e| at + 11 + e);
                    format!("{}eventfd-id=ID{}", &l[..at], &l[end..])
                }
                None => l,
            }
        })
        .collect()
}

/// Every number of 1024 and up (inodes, ports) named by first appearance;
/// the pid is `PID`.
fn renumber(line: &str, pid: &str, names: &mut Vec<String>) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find(|c: char| c.is_ascii_digit()) {
        out.push_str(&rest[..start]);
        let digits: String = rest[start..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        rest = &rest[start + digits.len()..];
        // Part of a name (IPv6 `::1`, `127.0.0.1`) stays: only whole
        // numbers of 1024 and up are the kernel's choice.
        let after_word = out.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        if digits == pid {
            out.push_str("PID");
        } else if !after_word && digits.len() >= 4 && digits.parse::<u64>().unwrap() >= 1024 {
            let i = match names.iter().position(|n| *n == digits) {
                Some(i) => i,
                None => {
                    names.push(digits);
                    names.len() - 1
                }
            };
            out.push_str(&format!("N{}", i + 1));
        } else {
            out.push_str(&digits);
        }
    }
    out.push_str(rest);
    out
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

/// The fixture's lines under `-yy`. N1.. are in order of appearance: the
/// inodes and ports of the sockets as the calls first show them.
fn expected_yy() -> Vec<String> {
    let v4 = "sin_addr=inet_addr(\"127.0.0.1\")";
    let v6 = "sin6_flowinfo=htonl(0), sin6_addr=inet_pton(AF_INET6, \"::1\"), sin6_scope_id=0";
    let mut lines: Vec<String> = vec![
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]".into(),
        // TCP: unbound sockets are not in the kernel's tables yet.
        "socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 3<TCP:[N1]>".into(),
        format!("bind(3<TCP:[N1]>, {{sa_family=AF_INET, sin_port=htons(0), {v4}}}, 16) = 0"),
        "listen(3<TCP:[127.0.0.1:N2]>, 1) = 0".into(),
        format!("getsockname(3<TCP:[127.0.0.1:N2]>, {{sa_family=AF_INET, sin_port=htons(N2), {v4}}}, [16]) = 0"),
        "socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 4<TCP:[N3]>".into(),
        format!("connect(4<TCP:[N3]>, {{sa_family=AF_INET, sin_port=htons(N2), {v4}}}, 16) = 0"),
        "accept4(3<TCP:[127.0.0.1:N2]>, NULL, NULL, 0) = 5<TCP:[127.0.0.1:N2->127.0.0.1:N4]>".into(),
        "write(4<TCP:[127.0.0.1:N4->127.0.0.1:N2]>, \"ping\", 4) = 4".into(),
        "read(5<TCP:[127.0.0.1:N2->127.0.0.1:N4]>, \"ping\", 16) = 4".into(),
        "socket(AF_INET6, SOCK_STREAM, IPPROTO_IP) = 6<TCPv6:[N5]>".into(),
        format!("bind(6<TCPv6:[N5]>, {{sa_family=AF_INET6, sin6_port=htons(0), {v6}}}, 28) = 0"),
        "listen(6<TCPv6:[[::1]:N6]>, 1) = 0".into(),
        format!("getsockname(6<TCPv6:[[::1]:N6]>, {{sa_family=AF_INET6, sin6_port=htons(N6), {v6}}}, [28]) = 0"),
        "socket(AF_INET6, SOCK_STREAM, IPPROTO_IP) = 7<TCPv6:[N7]>".into(),
        format!("connect(7<TCPv6:[N7]>, {{sa_family=AF_INET6, sin6_port=htons(N6), {v6}}}, 28) = 0"),
        "accept4(6<TCPv6:[[::1]:N6]>, NULL, NULL, 0) = 8<TCPv6:[[::1]:N6->[::1]:N8]>".into(),
        "write(8<TCPv6:[[::1]:N6->[::1]:N8]>, \"pong\", 4) = 4".into(),
        "read(7<TCPv6:[[::1]:N8->[::1]:N6]>, \"pong\", 16) = 4".into(),
        // UDP: bound, then connected (to itself); shown as it is at each
        // call, where strace keeps showing what it first saw.
        "socket(AF_INET, SOCK_DGRAM, IPPROTO_IP) = 9<UDP:[N9]>".into(),
        format!("bind(9<UDP:[N9]>, {{sa_family=AF_INET, sin_port=htons(0), {v4}}}, 16) = 0"),
        format!("getsockname(9<UDP:[127.0.0.1:N10]>, {{sa_family=AF_INET, sin_port=htons(N10), {v4}}}, [16]) = 0"),
        format!("connect(9<UDP:[127.0.0.1:N10]>, {{sa_family=AF_INET, sin_port=htons(N10), {v4}}}, 16) = 0"),
        "sendto(9<UDP:[127.0.0.1:N10->127.0.0.1:N10]>, \"d\", 1, 0, NULL, 0) = 1".into(),
        "recvfrom(9<UDP:[127.0.0.1:N10->127.0.0.1:N10]>, \"d\", 16, 0, NULL, NULL) = 1".into(),
        // Unix pairs: each end names its peer; once one end is closed the
        // other has none.
        "socketpair(AF_UNIX, SOCK_STREAM, 0, [10<UNIX-STREAM:[N11->N12]>, 11<UNIX-STREAM:[N12->N11]>]) = 0".into(),
        "write(10<UNIX-STREAM:[N11->N12]>, \"x\", 1) = 1".into(),
        "read(11<UNIX-STREAM:[N12->N11]>, \"x\", 16) = 1".into(),
        "close(10<UNIX-STREAM:[N11->N12]>) = 0".into(),
        "close(11<UNIX-STREAM:[N12]>) = 0".into(),
        "socketpair(AF_UNIX, SOCK_DGRAM, 0, [10<UNIX:[N13->N14]>, 11<UNIX:[N14->N13]>]) = 0".into(),
        "write(10<UNIX:[N13->N14]>, \"y\", 1) = 1".into(),
        "close(10<UNIX:[N13->N14]>) = 0".into(),
        "close(11<UNIX:[N14]>) = 0".into(),
        // A socket bound to a path, and a client of it.
        "socket(AF_UNIX, SOCK_STREAM, 0) = 10<UNIX-STREAM:[N15]>".into(),
        "bind(10<UNIX-STREAM:[N15]>, {sa_family=AF_UNIX, sun_path=\"SOCK\"}, 110) = 0".into(),
        "listen(10<UNIX-STREAM:[N15,\"SOCK\"]>, 1) = 0".into(),
        "socket(AF_UNIX, SOCK_STREAM, 0) = 11<UNIX-STREAM:[N16]>".into(),
        "connect(11<UNIX-STREAM:[N16]>, {sa_family=AF_UNIX, sun_path=\"SOCK\"}, 110) = 0".into(),
        "accept4(10<UNIX-STREAM:[N15,\"SOCK\"]>, NULL, NULL, 0) = 12<UNIX-STREAM:[N17->N16,\"SOCK\"]>".into(),
        "write(11<UNIX-STREAM:[N16->N17]>, \"z\", 1) = 1".into(),
        "read(12<UNIX-STREAM:[N17->N16,\"SOCK\"]>, \"z\", 16) = 1".into(),
        // Netlink: in the kernel's table once bound, with its port id.
        "socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE) = 13<NETLINK:[N18]>".into(),
        "bind(13<NETLINK:[N18]>, {sa_family=AF_NETLINK, nl_pid=0, nl_groups=0x0}, 12) = 0".into(),
        "getsockname(13<NETLINK:[ROUTE:PID]>, {sa_family=AF_NETLINK, nl_pid=PID, nl_groups=0x0}, [12]) = 0".into(),
    ];
    // A packet socket: no diag family answers for it; strace shows its
    // link text.
    if packet_sockets_allowed() {
        lines.extend([
            "socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL)) = 14<socket:[N19]>".to_string(),
            "fcntl(14<socket:[N19]>, F_GETFD) = 0".into(),
        ]);
    } else {
        lines.extend([
            "socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL)) = -1 [EPERM]".to_string(),
            "fcntl(-1, F_GETFD) = -1 [EBADF]".into(),
        ]);
    }
    let n = if packet_sockets_allowed() { 15 } else { 14 };
    let fd = |i: i32| n + i;
    lines.extend([
        format!(
            "openat(AT_FDCWD<CWD>, \"/dev/null\", O_WRONLY) = {}</dev/null<char 1:3>>",
            fd(0)
        ),
        format!("write({}</dev/null<char 1:3>>, \"n\", 1) = 1", fd(0)),
        "getpid() = PID".into(),
        format!("pidfd_open(PID, 0) = {}<pid:PID>", fd(1)),
        format!("pidfd_send_signal({}<pid:PID>, 0, NULL, 0x0) = 0", fd(1)),
        format!(
            "eventfd2(0, 0) = {}<{{eventfd-count=0, eventfd-id=ID, eventfd-semaphore=0}}>",
            fd(2)
        ),
        format!(
            "write({}<{{eventfd-count=0, eventfd-id=ID, eventfd-semaphore=0}}>, \"\\1\\0\\0\\0\\0\\0\\0\\0\", 8) = 8",
            fd(2)
        ),
        format!("signalfd4(-1, [USR1 USR2], 8, 0) = {}<signalfd:[USR1 USR2]>", fd(3)),
        format!("fcntl({}<signalfd:[USR1 USR2]>, F_GETFD) = 0", fd(3)),
        // A timerfd: nothing more than its link text, as in strace.
        format!("timerfd_create(CLOCK_MONOTONIC, 0) = {}<anon_inode:[timerfd]>", fd(4)),
        format!("fcntl({}<anon_inode:[timerfd]>, F_GETFD) = 0", fd(4)),
    ]);
    lines
}

#[test]
fn every_kind_of_fd_with_yy() {
    let actual = run(&["-yy"]);
    let mut expected = expected_yy();
    let next = if packet_sockets_allowed() { 20 } else { 19 };
    // The pipe's inode is the next new number after the packet socket's.
    let pipe_ino = if packet_sockets_allowed() {
        "N20"
    } else {
        "N19"
    };
    expected.extend([
        format!(
            "pipe2([{next}<pipe:[{pipe_ino}]>, {}<pipe:[{pipe_ino}]>], 0) = 0",
            next + 1
        ),
        format!(
            "dup(4<TCP:[127.0.0.1:N4->127.0.0.1:N2]>) = {}<TCP:[127.0.0.1:N4->127.0.0.1:N2]>",
            next + 2
        ),
        "select(6, [5<TCP:[127.0.0.1:N2->127.0.0.1:N4]>], NULL, NULL, {tv_sec=0, tv_usec=0}) = 0 (Timeout)".into(),
        "exit_group(0)".into(),
        "Process exited normally with code 0".into(),
    ]);
    assert_lines(&actual, &expected);
}

/// The lines of `actual` that start with `prefix`.
fn starting<'a>(actual: &'a [String], prefix: &str) -> Vec<&'a str> {
    actual
        .iter()
        .filter(|l| l.starts_with(prefix))
        .map(String::as_str)
        .collect()
}

#[test]
fn a_set_shows_only_its_parts() {
    // socket and pidfd: files and devices are numbers, AT_FDCWD has no
    // directory, sockets and pidfds their details.
    let actual = run(&["--decode-fds=socket,pidfd"]);
    let fd = if packet_sockets_allowed() { 15 } else { 14 };
    assert_eq!(
        starting(&actual, "openat(")
            .into_iter()
            .chain(starting(&actual, "write("))
            .chain(starting(&actual, "pidfd_"))
            .chain(starting(&actual, "timerfd_create"))
            .collect::<Vec<_>>(),
        vec![
            format!("openat(AT_FDCWD, \"/dev/null\", O_WRONLY) = {fd}"),
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]".into(),
            "write(4<TCP:[127.0.0.1:N4->127.0.0.1:N2]>, \"ping\", 4) = 4".into(),
            "write(8<TCPv6:[[::1]:N6->[::1]:N8]>, \"pong\", 4) = 4".into(),
            "write(10<UNIX-STREAM:[N11->N12]>, \"x\", 1) = 1".into(),
            "write(10<UNIX:[N13->N14]>, \"y\", 1) = 1".into(),
            "write(11<UNIX-STREAM:[N16->N17]>, \"z\", 1) = 1".into(),
            format!("write({fd}, \"n\", 1) = 1"),
            format!("write({}, \"\\1\\0\\0\\0\\0\\0\\0\\0\", 8) = 8", fd + 2),
            format!("pidfd_open(PID, 0) = {}<pid:PID>", fd + 1),
            format!("pidfd_send_signal({}<pid:PID>, 0, NULL, 0x0) = 0", fd + 1),
            format!("timerfd_create(CLOCK_MONOTONIC, 0) = {}", fd + 4),
        ]
    );
    // dev alone: the device with its path, nothing else.
    let actual = run(&["-e", "decode-fds=dev"]);
    assert_eq!(
        starting(&actual, "openat("),
        vec![format!(
            "openat(AT_FDCWD, \"/dev/null\", O_WRONLY) = {fd}</dev/null<char 1:3>>"
        )]
    );
    assert_eq!(
        starting(&actual, "socket(AF_INET, SOCK_DGRAM"),
        vec!["socket(AF_INET, SOCK_DGRAM, IPPROTO_IP) = 9"]
    );
}

/// A device's details under both engines: under `--bpf` the process may
/// be gone when its lines are printed, and the node at the path the fd
/// table knows, which the identity copied with the call vouches for,
/// gives its numbers (`kernel::fds::describe_vouched`).
#[test]
fn dev_details_under_both_engines() {
    let lines: Vec<Vec<String>> = [&[][..], &["--bpf"]]
        .iter()
        .map(|engine| {
            let mut args = vec!["-e", "decode-fds=dev"];
            args.extend_from_slice(engine);
            run(&args)
                .into_iter()
                .filter(|l| l.contains("</dev/null<char 1:3>>"))
                .collect()
        })
        .collect();
    let fd = if packet_sockets_allowed() { 15 } else { 14 };
    assert_eq!(
        lines[0],
        vec![
            format!("openat(AT_FDCWD, \"/dev/null\", O_WRONLY) = {fd}</dev/null<char 1:3>>"),
            format!("write({fd}</dev/null<char 1:3>>, \"n\", 1) = 1"),
        ]
    );
    assert_eq!(lines[1], lines[0], "--bpf");
}

#[test]
fn y_is_the_path_alone() {
    for args in [&["-y"][..], &["--decode-fds"], &["--decode-fds=path"]] {
        let actual = run(args);
        assert_eq!(
            starting(&actual, "write(4"),
            vec!["write(4<socket:[N3]>, \"ping\", 4) = 4"],
            "{args:?}"
        );
        let fd = if packet_sockets_allowed() { 15 } else { 14 };
        assert_eq!(
            starting(&actual, "openat("),
            vec![format!(
                "openat(AT_FDCWD<CWD>, \"/dev/null\", O_WRONLY) = {fd}</dev/null>"
            )],
            "{args:?}"
        );
    }
}

#[test]
fn bad_sets_are_one_line_errors() {
    let bin = fixture("decode_fds");
    for (args, message) in [
        (
            &["--decode-fds=sock"][..],
            "invalid --decode-fds 'sock' (expected path, socket, dev, eventfd, pidfd, signalfd, all or none)",
        ),
        (
            &["-e", "decode-fds=path,"],
            "invalid --decode-fds '' (expected path, socket, dev, eventfd, pidfd, signalfd, all or none)",
        ),
        (
            &["-y", "--decode-fds=all"],
            "-y and --decode-fds cannot be given together",
        ),
    ] {
        let out = common::rtrace()
            .args(args)
            .arg(&bin)
            .arg("/nonexistent")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.trim_end().ends_with(message), "{args:?}: {stderr}");
    }
}

#[test]
fn json_carries_path_and_details() {
    let bin = fixture("decode_fds");
    let sock = scratch_path("decode_fds", "json");
    let run = trace(
        &["--json", "-yy", "-e", "trace=write"],
        &[name(&bin), sock.to_str().unwrap()],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let writes: Vec<serde_json::Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["name"] == "write" && v["args"]["fd"]["value"] == 4)
        .collect();
    assert_eq!(writes.len(), 1, "{}", run.trace);
    let fd = &writes[0]["args"]["fd"];
    let path = fd["path"].as_str().unwrap();
    let details = fd["details"].as_str().unwrap();
    assert!(path.starts_with("socket:[") && path.ends_with(']'), "{fd}");
    assert!(
        details.starts_with("TCP:[127.0.0.1:") && details.contains("->127.0.0.1:"),
        "{fd}"
    );
    let dev: Vec<serde_json::Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["name"] == "write" && v["args"]["fd"]["path"] == "/dev/null")
        .collect();
    assert_eq!(dev.len(), 1, "{}", run.trace);
    assert_eq!(dev[0]["args"]["fd"]["details"], "/dev/null<char 1:3>");
}
