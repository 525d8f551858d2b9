//! io_uring and the aio calls decoded as strace 6 shows them (issue 25,
//! session 12, helper uring): the `s12_uring` fixture sets up and enters a
//! ring, probes it, passes io_uring_register each kind of argument on fd
//! -1 (the kernel refuses them after rtrace has decoded them), submits and
//! reaps two aio writes, and the whole lines are compared, addresses
//! normalised. What depends on the running kernel (its features, its last
//! opcode) and the aio context's address are replaced by fixed text.

mod common;

use common::{assert_lines, rewrite, trace};

/// Run the fixture under rtrace with `args`.
fn run(args: &[&str]) -> common::Run {
    let bin = common::fixture("s12_uring");
    let run = trace(args, &[bin.file_name().unwrap().to_str().unwrap()]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    run
}

/// The lines from the marker on, the kernel's choices made fixed: the
/// features it has (after the ones every io_uring kernel has), its probe's
/// last opcode, the aio context's and iocbs' addresses (not after `&` or
/// a space, where `normalise` finds addresses).
fn fixed(lines: &[String]) -> Vec<String> {
    rewrite(
        lines,
        &[
            (
                r"features=IORING_FEAT_SINGLE_MMAP\|IORING_FEAT_NODROP\|[^,]*",
                "features=IORING_FEAT_SINGLE_MMAP|IORING_FEAT_NODROP|FEATURES",
            ),
            (r"last_op=\d+", "last_op=LAST"),
            // An aio context is a mapping's address: 0x7f... mostly, but
            // a process's mappings can reach below 0x7f0000000000
            // (0x7eff7dafb000 in one CI run).
            (r"0x7[0-9a-f]{9,}", "ADDR"),
        ],
    )
}

/// The lines from the marker on, with no option.
const PLAIN: &[&str] = &[
    "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
    // What the caller set, then what the kernel wrote.
    "io_uring_setup(2, {flags=0, sq_thread_cpu=0x0, sq_thread_idle=0}) = 4 {sq_entries=2, \
     cq_entries=4, features=IORING_FEAT_SINGLE_MMAP|IORING_FEAT_NODROP|FEATURES, \
     sq_off={head=0, tail=4, ring_mask=16, ring_entries=24, flags=36, dropped=32, array=128}, \
     cq_off={head=8, tail=12, ring_mask=20, ring_entries=28, overflow=44, cqes=64, flags=40}}",
    "io_uring_setup(2, {flags=IORING_SETUP_ATTACH_WQ, sq_thread_cpu=0x0, sq_thread_idle=0, \
     wq_fd=-1, resv=[0x0, 0x1, 0x0]}) = -1 [EINVAL]",
    "io_uring_enter(4, 0, 0, IORING_ENTER_GETEVENTS, [USR1], 8) = 0",
    // strace 6.1 shows the extended argument's address.
    "io_uring_enter(4, 0, 1, IORING_ENTER_GETEVENTS|IORING_ENTER_EXT_ARG, {sigmask=[USR1], \
     sigmask_sz=8, ts={tv_sec=0, tv_nsec=1000}}, 24) = -1 [ETIME]",
    // A registered ring's index is no fd.
    "io_uring_enter(0, 0, 0, IORING_ENTER_REGISTERED_RING, NULL, 0) = -1 [EBADF]",
    // A zeroed probe in, the kernel's answer after the result.
    "io_uring_register(4, IORING_REGISTER_PROBE, &ADDR, 2) = 0 {arg={last_op=LAST, ops_len=2, \
     ops=[{op=IORING_OP_NOP, flags=IO_URING_OP_SUPPORTED}, {op=IORING_OP_READV, \
     flags=IO_URING_OP_SUPPORTED}]}}",
    "io_uring_register(-1, IORING_REGISTER_BUFFERS, [{iov_base=0x*, iov_len=2}, \
     {iov_base=0x*, iov_len=3}], 2) = -1 [EINVAL]",
    "io_uring_register(-1, IORING_REGISTER_FILES, [3, -1, -2], 3) = -1 [EINVAL]",
    "io_uring_register(-1, IORING_REGISTER_FILES_UPDATE, {offset=1, fds=[-1, \
     IORING_REGISTER_FILES_SKIP]}, 2) = -1 [EINVAL]",
    "io_uring_register(-1, IORING_REGISTER_RESTRICTIONS, \
     [{opcode=IORING_RESTRICTION_REGISTER_OP, register_op=IORING_REGISTER_PROBE}, \
     {opcode=IORING_RESTRICTION_SQE_OP, sqe_op=IORING_OP_READV}, \
     {opcode=IORING_RESTRICTION_SQE_FLAGS_ALLOWED, sqe_flags=IOSQE_FIXED_FILE|IOSQE_ASYNC}, \
     {opcode=0x9, op=0x1, resv=0x5}], 4) = -1 [EINVAL]",
    "io_uring_register(-1, IORING_REGISTER_FILES2, {nr=2, flags=IORING_RSRC_REGISTER_SPARSE, \
     data=[3, -1], tags=[0x1, 0x2]}, 32) = -1 [EINVAL]",
    "io_uring_register(-1, IORING_REGISTER_BUFFERS_UPDATE, {offset=0, data=[{iov_base=0x*, \
     iov_len=2}], tags=[0x1], nr=1, /* bytes 32..39 */ \"\\1\\0\\0\\0\\0\\0\\0\\0\"}, 40) = -1 \
     [EINVAL]",
    "io_uring_register(-1, IORING_REGISTER_IOWQ_AFF, [0 2], 1) = -1 [EINVAL]",
    "io_uring_register(-1, IORING_REGISTER_IOWQ_MAX_WORKERS, [[IO_WQ_BOUND]=4, \
     [IO_WQ_UNBOUND]=8], 2) = -1 [EINVAL]",
    "io_uring_register(-1, IORING_REGISTER_RING_FDS, [{offset=-1, data=3}], 1) = -1 [EINVAL]",
    "io_uring_register(-1, IORING_UNREGISTER_RING_FDS, [{offset=2}], 1) = -1 [EINVAL]",
    "io_uring_register(-1, IORING_REGISTER_PBUF_RING, {ring_addr=NULL, ring_entries=8, \
     bgid=1}, 1) = -1 [EINVAL]",
    // strace 6.1 knows no IORING_REGISTER_FILE_ALLOC_RANGE.
    "io_uring_register(-1, IORING_REGISTER_FILE_ALLOC_RANGE, {off=1, len=2}, 0) = -1 [EINVAL]",
    "io_uring_register(-1, 0xbad, NULL, 0) = -1 [EINVAL]",
    // aio: the context the kernel made, the iocbs, the events reaped.
    "io_setup(2, [ADDR]) = 0",
    "io_submit(ADDR, 2, [{aio_data=0x1234, aio_lio_opcode=IOCB_CMD_PWRITE, aio_fildes=3, \
     aio_buf=\"hello\", aio_nbytes=5, aio_offset=0}, {aio_data=0x5678, \
     aio_lio_opcode=IOCB_CMD_PWRITEV, aio_fildes=3, aio_buf=[{iov_base=\"he\", iov_len=2}, \
     {iov_base=\"llo\", iov_len=3}], aio_offset=8}]) = 2",
    "io_getevents(ADDR, 2, 2, [{data=0x1234, obj=ADDR, res=5, res2=0}, {data=0x5678, \
     obj=ADDR, res=5, res2=0}], {tv_sec=1, tv_nsec=0}) = 2",
    "io_submit(ADDR, 1, [{aio_data=0xdead, aio_lio_opcode=IOCB_CMD_PREAD, aio_reqprio=3, \
     aio_fildes=-1, aio_buf=&ADDR, aio_nbytes=4, aio_offset=0, aio_flags=IOCB_FLAG_RESFD, \
     aio_resfd=3}]) = -1 [EBADF]",
    "io_cancel(ADDR, {aio_data=0xdead, aio_lio_opcode=IOCB_CMD_PREAD, aio_reqprio=3, \
     aio_fildes=-1}, &ADDR) = -1 [EINVAL]",
    "io_pgetevents(ADDR, 1, 1, [], {tv_sec=0, tv_nsec=1000}, {sigmask=[USR1], sigsetsize=8}) \
     = 0",
    "io_destroy(ADDR) = 0",
    "exit_group(0)",
    "Process exited normally with code 0",
];

#[test]
fn uring_and_aio_calls() {
    assert_lines(&fixed(&run(&[]).after_marker()), PLAIN);
}

/// `-y`: the fds inside the arguments get their paths, as the ring's.
#[test]
fn uring_and_aio_fds_with_y() {
    let lines = fixed(&run(&["-y"]).after_marker());
    let find = |start: &str| {
        lines
            .iter()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no {start} in:\n{}", lines.join("\n")))
            .clone()
    };
    assert_eq!(
        find("io_uring_register(-1, IORING_REGISTER_FILES,"),
        "io_uring_register(-1, IORING_REGISTER_FILES, [3</dev/null>, -1, -2], 3) = -1 [EINVAL]"
    );
    assert_eq!(
        find("io_uring_enter(4<"),
        "io_uring_enter(4<anon_inode:[io_uring]>, 0, 0, IORING_ENTER_GETEVENTS, [USR1], 8) = 0"
    );
    assert!(
        find("io_uring_setup(2, {flags=0,").contains(") = 4<anon_inode:[io_uring]> {"),
        "{lines:?}"
    );
}

/// `-X raw` numbers what the default names, `-X verbose` shows both,
/// also inside the arguments and what follows the result.
#[test]
fn uring_and_aio_raw_and_verbose() {
    let find = |lines: &[String], start: &str| {
        lines
            .iter()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no {start} in:\n{}", lines.join("\n")))
            .clone()
    };
    let raw = fixed(&run(&["-X", "raw"]).after_marker());
    assert_eq!(
        find(&raw, "io_uring_register(-1, 0x13,"),
        "io_uring_register(-1, 0x13, [[0]=4, [1]=8], 2) = -1 [EINVAL]"
    );
    assert_eq!(
        find(&raw, "io_uring_register(4, 0x8,"),
        "io_uring_register(4, 0x8, &ADDR, 2) = 0 {arg={last_op=LAST, ops_len=2, ops=[{op=0, \
         flags=0x1}, {op=1, flags=0x1}]}}"
    );
    let verbose = fixed(&run(&["-X", "verbose"]).after_marker());
    assert_eq!(
        find(&verbose, "io_submit(ADDR, 1,"),
        "io_submit(ADDR, 1, [{aio_data=0xdead, aio_lio_opcode=0 /* IOCB_CMD_PREAD */, \
         aio_reqprio=3, aio_fildes=-1, aio_buf=&ADDR, aio_nbytes=4, aio_offset=0, \
         aio_flags=0x1 /* IOCB_FLAG_RESFD */, aio_resfd=3}]) = -1 [EBADF]"
    );
    assert_eq!(
        find(&verbose, "io_uring_enter(4, 0, 0,"),
        "io_uring_enter(4, 0, 0, 0x1 /* IORING_ENTER_GETEVENTS */, [10 /* USR1 */], 8) = 0"
    );
}

/// `--json`: the same handlers give names and values; what the kernel
/// wrote back is under `returned`.
#[test]
fn uring_and_aio_json() {
    use serde_json::{Value, json};
    let run = run(&["--json"]);
    let objs: Vec<Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let calls = |name: &str| -> Vec<&Value> { objs.iter().filter(|o| o["name"] == name).collect() };
    let setup = calls("io_uring_setup")[0];
    assert_eq!(
        setup["returned"]["value"]["sq_entries"],
        json!(2),
        "{setup}"
    );
    assert_eq!(
        setup["returned"]["value"]["cq_off"]["cqes"],
        json!(64),
        "{setup}"
    );
    let registers = calls("io_uring_register");
    let probe = registers[0];
    assert_eq!(
        probe["returned"]["value"]["arg"]["ops"][1]["op"],
        json!({"value": 1, "name": "IORING_OP_READV"}),
        "{probe}"
    );
    let rules = registers
        .iter()
        .find(|o| o["args"]["opcode"]["name"] == "IORING_REGISTER_RESTRICTIONS")
        .unwrap();
    assert_eq!(
        rules["args"]["arg"][2]["sqe_flags"],
        json!({"value": 17, "flags": ["IOSQE_FIXED_FILE", "IOSQE_ASYNC"]}),
        "{rules}"
    );
    let events = calls("io_getevents")[0];
    assert_eq!(
        events["args"]["events"][1]["data"],
        json!(0x5678),
        "{events}"
    );
    assert_eq!(events["args"]["events"][1]["res"], json!(5), "{events}");
    let submit = calls("io_submit")[0];
    assert_eq!(
        submit["args"]["iocbpp"][0]["aio_lio_opcode"],
        json!({"value": 1, "name": "IOCB_CMD_PWRITE"}),
        "{submit}"
    );
}

/// An i386 caller: the same lines from the aio context on (its handle a
/// 32-bit word, iocb pointers 4 bytes, `long` counts 32 bits, the
/// timeouts' and `__aio_sigset`'s compat layouts), and io_uring's structs,
/// which have one layout on both ABIs.
#[test]
fn uring_and_aio_calls_i386() {
    let bin = common::fixture_m32("s12_uring");
    let run = trace(&[], &[bin.file_name().unwrap().to_str().unwrap()]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = rewrite(
        &fixed(&run.after_marker()),
        &[(r"\b0x(f7|ff)[0-9a-f]{6}\b", "ADDR")],
    );
    let from = |lines: &[String], start: &str| -> Vec<String> {
        let at = lines
            .iter()
            .position(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no {start} in:\n{}", lines.join("\n")));
        lines[at..].to_vec()
    };
    let expected: Vec<String> = PLAIN.iter().map(|l| l.to_string()).collect();
    assert_lines(&from(&lines, "io_setup("), &from(&expected, "io_setup("));
    // The marker and io_uring_setup's two calls.
    assert_lines(&lines[..3], &expected[..3]);
}
