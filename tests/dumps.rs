//! `-e read=SET` / `-e write=SET`: hex and ASCII dumps of the data moved,
//! traced against tests/fixtures/dumps.c.

mod common;

use common::{fixture, name, rtrace_env, s, trace};

const CALLS: &str = "trace=read,write,readv,writev,sendmsg,recvmsg,pread64";

const HELLO: &[&str] = &[
    "  | 00000  68 65 6c 6c 6f 2c 20 77  6f 72 6c 64 21 0a 00 ff  hello, world!... |",
    "  | 00010  7f 58                                             .X               |",
];

#[test]
fn reads_and_writes_on_the_sets_fds_are_dumped_after_their_line() {
    let bin = fixture("dumps");
    let run = trace(
        &["-e", CALLS, "-e", "read=3,6,8", "-e", "write=4,5"],
        &[name(&bin)],
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
        "writev(4, [{iov_base=\"abc\", iov_len=3}, {iov_base=\"defgh\", iov_len=5}], 2) = 8",
        "  | 00000  61 62 63 64 65 66 67 68                           abcdefgh         |",
        "readv(3, [{iov_base=\"abcd\", iov_len=4}, {iov_base=\"efgh\", iov_len=10}], 2) = 8",
        "  | 00000  61 62 63 64 65 66 67 68                           abcdefgh         |",
        "sendmsg(5, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"msg\", iov_len=3}], msg_iovlen=1, msg_control=NULL, msg_controllen=0, msg_flags=0}, 0) = 3",
        "  | 00000  6d 73 67                                          msg              |",
        "recvmsg(6, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"msg\", iov_len=64}], msg_iovlen=1, msg_control=NULL, msg_controllen=0, msg_flags=0}, 0) = 3",
        "  | 00000  6d 73 67                                          msg              |",
        "write(7, \"zz\", 2) = 2",
        "write(4, \"\", 0) = 0",
        "write(-1, \"bad\", 3) = -1 [EBADF]",
        "pread64(8, \"\\177ELF\", 4, 0) = 4",
        "  | 00000  7f 45 4c 46                                       .ELF             |",
        "Process exited normally with code 0",
    ]);
    assert_eq!(run.after_marker(), s(&expected));
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
        serde_json::json!([{"dump": {"fd": 4, "len": 8, "hex": "6162636465666768"}}])
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
