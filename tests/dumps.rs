//! `-e read=SET` / `-e write=SET`: hex and ASCII dumps of the data moved,
//! traced against tests/fixtures/dumps.c.

mod common;

use common::{USBMON_RECORDING, fixture, name, rtrace_env, s, trace};

const CALLS: &str = "trace=read,write,readv,writev,sendmsg,recvmsg,pread64,preadv,pwritev";

const HELLO: &[&str] = &[
    "  | 00000  68 65 6c 6c 6f 2c 20 77  6f 72 6c 64 21 0a 00 ff  hello, world!... |",
    "  | 00010  7f 58                                             .X               |",
];

#[test]
fn reads_and_writes_on_the_sets_fds_are_dumped_after_their_line() {
    // The same dumps from the 64-bit program and the i386 one (4-byte
    // iovecs and msghdr words; sendmsg through socketcall or not).
    for bin in [fixture("dumps"), common::fixture_m32("dumps")] {
        dumps_of(&bin);
    }
}

fn dumps_of(bin: &std::path::Path) {
    let run = trace(
        &["-e", CALLS, "-e", "read=3,6,8", "-e", "write=4,5,9"],
        &[name(bin)],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    // Not the marker's, /dev/null's (fd 7, not in the set), the empty
    // write's or the failed one's; the iovecs' bytes as far as the result
    // says, in order.
    let mut expected = vec![
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
        "write(4, \"hello, world!\\n\\0\\377\\177X\", 18) = 18",
    ];
    expected.extend(HELLO);
    expected.push("read(3, \"hello, world!\\n\\0\\377\\177X\", 64) = 18");
    expected.extend(HELLO);
    expected.extend([
        // strace's ` * N bytes in buffer K` before each iovec's bytes; the
        // empty one has none, and (unlike strace, which stops there) the
        // one after it still has its dump.
        "writev(4, [{iov_base=\"abc\", iov_len=3}, {iov_base=\"\", iov_len=0}, \
         {iov_base=\"defgh\", iov_len=5}], 3) = 8",
        "  * 3 bytes in buffer 0",
        "  | 00000  61 62 63                                          abc              |",
        "  * 5 bytes in buffer 2",
        "  | 00000  64 65 66 67 68                                    defgh            |",
        // As far as the result says: the second iovec got 4 of its 10.
        "readv(3, [{iov_base=\"abcd\", iov_len=4}, {iov_base=\"efgh\", iov_len=10}], 2) = 8",
        "  * 4 bytes in buffer 0",
        "  | 00000  61 62 63 64                                       abcd             |",
        "  * 4 bytes in buffer 1",
        "  | 00000  65 66 67 68                                       efgh             |",
        "sendmsg(5, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"msg\", iov_len=3}], msg_iovlen=1, msg_control=NULL, msg_controllen=0, msg_flags=0}, 0) = 3",
        "  * 3 bytes in buffer 0",
        "  | 00000  6d 73 67                                          msg              |",
        "recvmsg(6, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"msg\", iov_len=64}], msg_iovlen=1, msg_control=NULL, msg_controllen=0, msg_flags=0}, 0) = 3",
        "  * 3 bytes in buffer 0",
        "  | 00000  6d 73 67                                          msg              |",
        "write(7, \"zz\", 2) = 2",
        "write(4, \"\", 0) = 0",
        "write(-1, \"bad\", 3) = -1 [EBADF]",
        "pread64(8, \"\\177ELF\", 4, 0) = 4",
        "  | 00000  7f 45 4c 46                                       .ELF             |",
        "preadv(8, [{iov_base=\"\\177E\", iov_len=2}, {iov_base=\"LF\", iov_len=2}], 2, 0) = 4",
        "  * 2 bytes in buffer 0",
        "  | 00000  7f 45                                             .E               |",
        "  * 2 bytes in buffer 1",
        "  | 00000  4c 46                                             LF               |",
        "pwritev(9, [{iov_base=\"abc\", iov_len=3}, {iov_base=\"\", iov_len=0}, \
         {iov_base=\"defgh\", iov_len=5}], 3, 0) = 8",
        "  * 3 bytes in buffer 0",
        "  | 00000  61 62 63                                          abc              |",
        "  * 5 bytes in buffer 2",
        "  | 00000  64 65 66 67 68                                    defgh            |",
        "Process exited normally with code 0",
    ]);
    assert_eq!(run.after_marker(), s(&expected), "{}", name(bin));
}

#[test]
fn dumps_follow_deferred_lines_and_json() {
    let bin = fixture("dumps");
    // -z holds each line until its leave: the dump still follows it, and
    // the failed write is left out with its (absent) dump.
    let run = trace(
        &["-z", "-e", "trace=write", "-e", "write=!7"],
        &[name(&bin)],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let mut expected = vec!["write(4, \"hello, world!\\n\\0\\377\\177X\", 18) = 18"];
    expected.extend(HELLO);
    expected.extend([
        "write(7, \"zz\", 2) = 2",
        "write(4, \"\", 0) = 0",
        "Process exited normally with code 0",
    ]);
    let lines = run.lines();
    assert_eq!(lines[lines.len() - expected.len()..], s(&expected));
    let run = trace(
        &["--json", "-e", "trace=writev", "-e", "write=all"],
        &[name(&bin)],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let call = run
        .trace
        .lines()
        .find(|l| l.contains("\"writev\""))
        .expect("a writev object");
    let value: serde_json::Value = serde_json::from_str(call).unwrap();
    assert_eq!(
        value["extended"],
        serde_json::json!([
            {"dump": {"fd": 4, "buffer": 0, "len": 3, "hex": "616263"}},
            {"dump": {"fd": 4, "buffer": 2, "len": 5, "hex": "6465666768"}},
        ])
    );
}

#[test]
fn bad_dump_sets_are_one_line_errors() {
    for (args, error) in [
        (
            &["-e", "read=abc", "true"][..],
            "rtrace: -e read: 'abc' is not a file descriptor (a number from 0 up, all or none)\n",
        ),
        (
            &["-e", "write=3,-2", "true"][..],
            "rtrace: -e write: '-2' is not a file descriptor (a number from 0 up, all or none)\n",
        ),
    ] {
        let out = rtrace_env().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), error, "{args:?}");
    }
}

#[test]
fn a_usbmon_read_clients_events_are_dumped() {
    // usbmon_get's read(2)s of the emulated /dev/usbmon0 (its other reads,
    // of libc at load, are not the device's: -P leaves them out). The
    // dump follows the event line a read decodes.
    let bin = fixture("usbmon_get");
    let run = common::trace_env(
        &[
            "--usbmon-replay",
            USBMON_RECORDING,
            "-e",
            "trace=read",
            "-e",
            "diag=none",
            "-e",
            "read=3",
            "-P",
            "/dev/usbmon0",
        ],
        &[name(&bin)],
        &[("USBMON_EMU_ATTACHED", "1")],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_eq!(
        run.lines(),
        [
            "Tracing usbmon_get (pid PID1)",
            "read(3, &ADDR, 128) = 79",
            "  > ffff8dd8d6f7fd80 1795303051.309555 S Bo:2:002:2 -115 31 = 55534243 0f000000 00100000 80000a28 00000000 00000008 00000000 000000",
            "  | 00000  80 fd f7 d6 d8 8d ff ff  53 03 02 02 02 00 2d 00  ........S.....-. |",
            "  | 00010  8b 26 02 6b 00 00 00 00  33 b9 04 00 8d ff ff ff  .&.k....3....... |",
            "  | 00020  1f 00 00 00 1f 00 00 00  00 00 00 00 00 00 00 00  ................ |",
            "  | 00030  55 53 42 43 0f 00 00 00  00 10 00 00 80 00 0a 28  USBC...........( |",
            "  | 00040  00 00 00 00 00 00 00 08  00 00 00 00 00 00 00     ...............  |",
            "read(3, \"\\200\\375\\367\\326\\330\\215\\377\\377C\\3\\2\\2\\2\\0->\\213&\\2k\", 20) = 20",
            "  | 00000  80 fd f7 d6 d8 8d ff ff  43 03 02 02 02 00 2d 3e  ........C.....-> |",
            "  | 00010  8b 26 02 6b                                       .&.k             |",
            "read(3, \"\\0\\0\\0\\0\\177\\272\\4\\0\\0\\0\\0\\0\\37\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\", 100) = 28",
            "  | 00000  00 00 00 00 7f ba 04 00  00 00 00 00 1f 00 00 00  ................ |",
            "  | 00010  00 00 00 00 00 00 00 00  00 00 00 00              ............     |",
            "read(3, &ADDR, 48) = 48",
            "  > ffff8dd8d6f7fa80 1795303051.309941 S Bi:2:002:1 -115 4096 <",
            "  | 00000  80 fa f7 d6 d8 8d ff ff  53 03 81 02 02 00 2d 3c  ........S.....-< |",
            "  | 00010  8b 26 02 6b 00 00 00 00  b5 ba 04 00 8d ff ff ff  .&.k............ |",
            "  | 00020  00 10 00 00 00 00 00 00  00 00 00 00 00 00 00 00  ................ |",
            "Process exited normally with code 0",
        ]
    );
}
