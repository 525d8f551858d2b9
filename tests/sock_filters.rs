//! The classic BPF programs capture tools and sandboxes install (socket
//! filters by setsockopt and getsockopt, seccomp programs by seccomp and
//! prctl), the packet socket options libpcap sets and the raw ICMP
//! socket's filter, traced from tests/fixtures/sock_filters.c and compared
//! as whole lines (strace 6.1 prints the same instructions with -v; without
//! it only the program's address).

mod common;

use common::{fixture, fixture_m32, name, trace};
use serde_json::Value;

/// Whether the fixture can make its packet and raw sockets (root).
fn root() -> bool {
    common::root_or_skip("sock_filters", "packet or raw socket")
}

/// The trace from the marker on with pointers (`&0x7ffc...`) as `&ADDR`:
/// the common normaliser would also take the program's 8-digit constants
/// (`0xc000003e`) for addresses.
fn after_marker(trace: &str) -> Vec<String> {
    let pointer = regex::Regex::new("&0x[0-9a-f]+").unwrap();
    let lines: Vec<&str> = trace.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("write(-1, \"BEGIN\""))
        .unwrap_or_else(|| panic!("no marker in\n{trace}"));
    lines[start..]
        .iter()
        .map(|l| pointer.replace_all(l, "&ADDR").into_owned())
        .collect()
}

/// Compare whole lines; on a mismatch show where and the whole trace.
fn assert_lines(actual: &[String], expected: &[String]) {
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

/// The tcpdump program ('ip and tcp port 80', cut), as both calls print it.
const TCP80: &str = "BPF_STMT(BPF_LD|BPF_H|BPF_ABS, 0xc), \
    BPF_JUMP(BPF_JMP|BPF_K|BPF_JEQ, 0x800, 0, 0xa), \
    BPF_STMT(BPF_LD|BPF_B|BPF_ABS, 0x17), \
    BPF_JUMP(BPF_JMP|BPF_K|BPF_JEQ, 0x6, 0, 0x8), \
    BPF_STMT(BPF_LD|BPF_H|BPF_ABS, 0x14), \
    BPF_JUMP(BPF_JMP|BPF_K|BPF_JSET, 0x1fff, 0x6, 0), \
    BPF_STMT(BPF_LDX|BPF_B|BPF_MSH, 0xe), \
    BPF_STMT(BPF_LD|BPF_H|BPF_IND, 0xe), \
    BPF_JUMP(BPF_JMP|BPF_K|BPF_JEQ, 0x50, 0x2, 0), \
    BPF_STMT(BPF_LD|BPF_H|BPF_IND, 0x10), \
    BPF_JUMP(BPF_JMP|BPF_K|BPF_JEQ, 0x50, 0, 0x1), \
    BPF_STMT(BPF_RET|BPF_K, 0x40000), \
    BPF_STMT(BPF_RET|BPF_K, 0)";

/// The first 19 instructions of the 40-instruction program: every other
/// opcode shape.
const SHAPES: &str = "BPF_STMT(BPF_LD|BPF_W|BPF_LEN, 0), \
    BPF_STMT(BPF_LD|BPF_W|BPF_IMM, 0x7), \
    BPF_STMT(BPF_LDX|BPF_W|BPF_IMM, 0x3), \
    BPF_STMT(BPF_LDX|BPF_W|BPF_LEN, 0), \
    BPF_STMT(BPF_LDX|BPF_W|BPF_MEM, 0x1), \
    BPF_STMT(BPF_LD|BPF_W|BPF_MEM, 0x2), \
    BPF_STMT(BPF_ST, 0x3), \
    BPF_STMT(BPF_STX, 0x4), \
    BPF_STMT(BPF_ALU|BPF_K|BPF_ADD, 0x1), \
    BPF_STMT(BPF_ALU|BPF_X|BPF_SUB, 0), \
    BPF_STMT(BPF_ALU|BPF_K|BPF_AND, 0xff), \
    BPF_STMT(BPF_ALU|BPF_K|BPF_LSH, 0x2), \
    BPF_STMT(BPF_ALU|BPF_K|BPF_NEG, 0), \
    BPF_STMT(BPF_MISC|BPF_TAX, 0), \
    BPF_STMT(BPF_MISC|BPF_TXA, 0), \
    BPF_JUMP(BPF_JMP|BPF_X|BPF_JGT, 0, 0x1, 0), \
    BPF_STMT(BPF_JMP|BPF_K|BPF_JA, 0x1), \
    BPF_STMT(BPF_LD|BPF_W|BPF_ABS, SKF_AD_OFF+SKF_AD_PROTOCOL), \
    BPF_STMT(BPF_RET|BPF_A, 0)";

/// The seccomp program, with its return actions named.
const SECCOMP: &str = "{len=7, filter=[BPF_STMT(BPF_LD|BPF_W|BPF_ABS, 0x4), \
    BPF_JUMP(BPF_JMP|BPF_K|BPF_JEQ, 0xc000003e, 0x1, 0), \
    BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_KILL_PROCESS), \
    BPF_STMT(BPF_LD|BPF_W|BPF_ABS, 0), \
    BPF_JUMP(BPF_JMP|BPF_K|BPF_JEQ, 0x270f, 0, 0x1), \
    BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_ERRNO|0x26), \
    BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_ALLOW)]}";

/// `BPF_STMT(BPF_RET|BPF_K, n)` for n in `from..to`: the 40-instruction
/// program's tail.
fn rets(from: u32, to: u32) -> String {
    (from..to)
        .map(|n| format!("BPF_STMT(BPF_RET|BPF_K, {n:#x})"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The whole trace from the marker on; `long` is how the 40-instruction
/// program prints.
fn expected(long: &str) -> Vec<String> {
    let packet = "setsockopt(3, SOL_PACKET";
    let mr =
        "{mr_ifindex=if_nametoindex(\"lo\"), mr_type=PACKET_MR_PROMISC, mr_alen=0, mr_address=}";
    vec![
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]".to_string(),
        "socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL)) = 3".into(),
        format!("setsockopt(3, SOL_SOCKET, SO_ATTACH_FILTER, {{len=13, filter=[{TCP80}]}}, 16) = 0"),
        "getsockopt(3, SOL_SOCKET, SO_GET_FILTER, NULL, [0 => 13]) = 0".into(),
        format!("getsockopt(3, SOL_SOCKET, SO_GET_FILTER, [{TCP80}], [16 => 13]) = 0"),
        "setsockopt(3, SOL_SOCKET, SO_LOCK_FILTER, [1], 4) = 0".into(),
        format!("setsockopt(-1, SOL_SOCKET, SO_ATTACH_FILTER, {{len=40, filter=[{long}]}}, 16) = -1 [EBADF]"),
        "setsockopt(-1, SOL_SOCKET, SO_ATTACH_FILTER, {len=0, filter=NULL}, 16) = -1 [EBADF]".into(),
        // Not the size of a struct sock_fprog: the kernel takes nothing.
        "setsockopt(-1, SOL_SOCKET, SO_ATTACH_FILTER, &ADDR, 4) = -1 [EBADF]".into(),
        "socket(AF_INET, SOCK_DGRAM, IPPROTO_IP) = 4".into(),
        "setsockopt(4, SOL_SOCKET, SO_REUSEPORT, [1], 4) = 0".into(),
        "setsockopt(4, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, {len=1, filter=[BPF_STMT(BPF_RET|BPF_K, 0)]}, 16) = 0".into(),
        "setsockopt(4, SOL_SOCKET, SO_DETACH_FILTER, [1], 4) = -1 [ENOENT]".into(),
        format!("{packet}, PACKET_VERSION, [TPACKET_V3], 4) = 0"),
        "getsockopt(3, SOL_PACKET, PACKET_VERSION, [TPACKET_V3], [4]) = 0".into(),
        "getsockopt(3, SOL_PACKET, PACKET_HDRLEN, [48], [4]) = 0".into(),
        format!("{packet}, PACKET_RESERVE, [4], 4) = 0"),
        format!("{packet}, PACKET_AUXDATA, [1], 4) = 0"),
        format!("{packet}, PACKET_ORIGDEV, [1], 4) = 0"),
        format!("{packet}, PACKET_TIMESTAMP, [SOF_TIMESTAMPING_SOFTWARE|SOF_TIMESTAMPING_RAW_HARDWARE], 4) = 0"),
        format!("{packet}, PACKET_ADD_MEMBERSHIP, {mr}, 16) = 0"),
        format!("{packet}, PACKET_DROP_MEMBERSHIP, {mr}, 16) = 0"),
        "setsockopt(-1, SOL_PACKET, PACKET_ADD_MEMBERSHIP, {mr_ifindex=if_nametoindex(\"lo\"), \
         mr_type=PACKET_MR_MULTICAST, mr_alen=6, mr_address=01:00:5e:00:00:01}, 16) = -1 [EBADF]"
            .into(),
        // tpacket_req3 on this TPACKET_V3 socket, tpacket_req by its size.
        format!(
            "{packet}, PACKET_RX_RING, {{tp_block_size=4096, tp_block_nr=2, tp_frame_size=2048, \
             tp_frame_nr=4, tp_retire_blk_tov=60, tp_sizeof_priv=0, \
             tp_feature_req_word=TP_FT_REQ_FILL_RXHASH}}, 28) = 0"
        ),
        "setsockopt(-1, SOL_PACKET, PACKET_TX_RING, {tp_block_size=4096, tp_block_nr=1, \
         tp_frame_size=2048, tp_frame_nr=2}, 16) = -1 [EBADF]"
            .into(),
        "setsockopt(-1, SOL_PACKET, PACKET_FANOUT, \
         [7|(PACKET_FANOUT_HASH|PACKET_FANOUT_FLAG_DEFRAG)<<16], 4) = -1 [EBADF]"
            .into(),
        "getsockopt(3, SOL_PACKET, PACKET_STATISTICS, {tp_packets=0, tp_drops=0, tp_freeze_q_cnt=0}, [12]) = 0".into(),
        "socket(AF_PACKET, SOCK_DGRAM, htons(0x0)) = 5".into(),
        "getsockopt(5, SOL_PACKET, PACKET_STATISTICS, {tp_packets=0, tp_drops=0}, [8]) = 0".into(),
        "socket(AF_INET, SOCK_RAW, IPPROTO_ICMP) = 6".into(),
        "setsockopt(6, SOL_RAW, ICMP_FILTER, ~[ICMP_ECHOREPLY ICMP_DEST_UNREACH], 4) = 0".into(),
        "getsockopt(6, SOL_RAW, ICMP_FILTER, ~[ICMP_ECHOREPLY ICMP_DEST_UNREACH], [4]) = 0".into(),
        "setsockopt(-1, SOL_RAW, ICMP_FILTER, [ICMP_TIMESTAMP], 4) = -1 [EBADF]".into(),
        "prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) = 0".into(),
        format!("seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_LOG, {SECCOMP}) = 0"),
        // The upper halves of op and flags are not the kernel's.
        "seccomp(SECCOMP_GET_ACTION_AVAIL, 0, [SECCOMP_RET_LOG]) = 0".into(),
        "seccomp(SECCOMP_GET_NOTIF_SIZES, 0, {seccomp_notif=80, seccomp_notif_resp=24, \
         seccomp_data=64}) = 0"
            .into(),
        format!("prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, {SECCOMP}) = 0"),
        "exit_group(0)".into(),
        "Process exited normally with code 0".into(),
    ]
}

/// Without -v a program prints up to the string limit (32) instructions,
/// then `..`.
#[test]
fn programs_and_packet_options() {
    if !root() {
        return;
    }
    let bin = fixture("sock_filters");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let long = format!("{SHAPES}, {}, ..", rets(19, 32));
    assert_lines(&after_marker(&run.trace), &expected(&long));
}

/// With -v every instruction prints (up to BPF_MAXINSNS), as strace -v
/// prints them; `-s 3` bounds the programs too.
#[test]
fn verbose_and_string_limit_bound_programs() {
    if !root() {
        return;
    }
    let bin = fixture("sock_filters");
    let run = trace(&["-v", "-e", "trace=setsockopt"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let long = format!("{SHAPES}, {}", rets(19, 40));
    let want = format!(
        "setsockopt(-1, SOL_SOCKET, SO_ATTACH_FILTER, {{len=40, filter=[{long}]}}, 16) = -1 [EBADF]"
    );
    assert!(run.trace.lines().any(|l| l == want), "{}", run.trace);

    let run = trace(&["-s", "3", "-e", "trace=seccomp"], &[name(&bin)]);
    let want = "seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_LOG, {len=7, \
                filter=[BPF_STMT(BPF_LD|BPF_W|BPF_ABS, 0x4), \
                BPF_JUMP(BPF_JMP|BPF_K|BPF_JEQ, 0xc000003e, 0x1, 0), \
                BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_KILL_PROCESS), ..]}) = 0";
    assert!(run.trace.lines().any(|l| l == want), "{}", run.trace);
}

/// In JSON an instruction is an object: its code and a named `k` as
/// symbols, the jump offsets as numbers.
#[test]
fn programs_in_json() {
    if !root() {
        return;
    }
    let bin = fixture("sock_filters");
    let run = trace(&["--json", "-e", "trace=setsockopt"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let calls: Vec<Value> = run
        .trace
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "call")
        .collect();
    let attach = calls
        .iter()
        .find(|v| v["args"]["optname"]["name"] == "SO_ATTACH_REUSEPORT_CBPF")
        .unwrap_or_else(|| panic!("no SO_ATTACH_REUSEPORT_CBPF in\n{}", run.trace));
    assert_eq!(
        attach["args"]["optval"],
        serde_json::json!({"len": 1, "filter": [
            {"code": {"value": 6, "name": "BPF_RET|BPF_K"}, "k": 0, "jt": 0, "jf": 0}
        ]})
    );
    let first = calls
        .iter()
        .find(|v| v["args"]["optname"]["name"] == "SO_ATTACH_FILTER")
        .unwrap();
    assert_eq!(
        first["args"]["optval"]["filter"][1],
        serde_json::json!({"code": {"value": 0x15, "name": "BPF_JMP|BPF_K|BPF_JEQ"},
                           "k": 0x800, "jt": 0, "jf": 10})
    );
    let mreq = calls
        .iter()
        .find(|v| v["args"]["optname"]["name"] == "PACKET_ADD_MEMBERSHIP")
        .unwrap();
    // SAFETY: the name is a NUL-terminated string.
    let lo = unsafe { libc::if_nametoindex(c"lo".as_ptr()) };
    assert_eq!(
        mreq["args"]["optval"],
        serde_json::json!({"mr_ifindex": {"value": lo, "name": "if_nametoindex(\"lo\")"}, "mr_type": {"value": 1, "name": "PACKET_MR_PROMISC"},
                           "mr_alen": 0, "mr_address": ""})
    );
}

/// An i386 program's `struct sock_fprog` is 8 bytes (a 4-byte pointer):
/// the same programs, the options through socketcall or the direct calls.
/// Under both engines: the BPF engine looks a socketcall's option up
/// under its subcall's index (the filter had shown as its address).
#[test]
fn i386_programs() {
    if !root() {
        return;
    }
    for engine in [&[][..], &["--bpf"]] {
        i386_programs_under(engine);
    }
}

fn i386_programs_under(engine: &[&str]) {
    let bin = fixture_m32("sock_filters");
    let mut args = vec!["-e", "trace=setsockopt,prctl"];
    args.extend_from_slice(engine);
    let run = trace(&args, &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines: Vec<&str> = run.trace.lines().collect();
    for want in [
        format!("setsockopt(3, SOL_SOCKET, SO_ATTACH_FILTER, {{len=13, filter=[{TCP80}]}}, 8) = 0"),
        "setsockopt(4, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, {len=1, filter=[BPF_STMT(BPF_RET|BPF_K, 0)]}, 8) = 0".into(),
        // AUDIT_ARCH_I386 where the x86_64 program has AUDIT_ARCH_X86_64.
        format!(
            "prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, {}) = 0",
            SECCOMP.replace("0xc000003e", "0x40000003")
        ),
    ] {
        assert!(
            lines.contains(&want.as_str()),
            "{engine:?}: no {want:?} in\n{}",
            run.trace
        );
    }
}
