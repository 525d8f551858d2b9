//! bpf(2), perf_event_open(2) and seccomp's user-notification ioctls
//! (issue 25, session 12): the `s12_bpf` fixture makes each call with
//! arguments the kernel refuses (fd -1, garbage in the upper halves of int
//! arguments, structs at the end of a page), and the whole lines are
//! compared with what strace 6 shows of them, in rtrace's grammar.

mod common;

use common::{assert_lines, fixture, name, trace};

/// The lines of the fixture's `part` after its marker, traced with `args`
/// (the exit line left out).
fn part(part: &str, args: &[&str]) -> Vec<String> {
    let bin = fixture("s12_bpf");
    let run = trace(args, &[name(&bin), part]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    run.after_marker()
        .into_iter()
        .skip(1)
        .filter(|l| !l.starts_with("Process exited"))
        .collect()
}

/// seccomp's notification ioctls: ids, flags and arguments in hex, the
/// call named by its ABI, an unknown ABI in hex, the answer's errno, the
/// mistaken `_IOR` code of ID_VALID by its kernel name, ADDFD's source fd
/// with `-y`'s path; a struct that does not fit the page is its pointer.
#[test]
fn seccomp_notification_ioctls() {
    let expected = |fd3: &str| -> Vec<String> {
        vec![
            "ioctl(-1, SECCOMP_IOCTL_NOTIF_RECV, {id=0, pid=0, flags=0, data={nr=0, arch=0, \
             instruction_pointer=NULL, args=[0, 0, 0, 0, 0, 0]}}) = -1 [EBADF]"
                .to_string(),
            "ioctl(-1, SECCOMP_IOCTL_NOTIF_RECV, {id=0xdeadc0debadc0ded, pid=7, flags=0x10, \
             data={nr=__NR_gettid, arch=AUDIT_ARCH_X86_64, instruction_pointer=&0x401000, \
             args=[0, 0x10, 0x20, 0x30, 0x40, 0x50]}}) = -1 [EBADF]"
                .into(),
            "ioctl(-1, SECCOMP_IOCTL_NOTIF_RECV, {id=0xdeadc0debadc0ded, pid=7, flags=0x10, \
             data={nr=186, arch=0xfeedface, instruction_pointer=&0x401000, \
             args=[0, 0x10, 0x20, 0x30, 0x40, 0x50]}}) = -1 [EBADF]"
                .into(),
            "ioctl(-1, SECCOMP_IOCTL_NOTIF_RECV, &ADDR) = -1 [EBADF]".into(),
            "ioctl(-1, SECCOMP_IOCTL_NOTIF_SEND, {id=0x2a, val=-1, error=-ENOSR, \
             flags=SECCOMP_USER_NOTIF_FLAG_CONTINUE|0x10}) = -1 [EBADF]"
                .into(),
            "ioctl(-1, SECCOMP_IOCTL_NOTIF_ID_VALID, [0x2a]) = -1 [EBADF]".into(),
            "ioctl(-1, SECCOMP_IOCTL_NOTIF_ID_VALID_WRONG_DIR, [0x2a]) = -1 [EBADF]".into(),
            "ioctl(-1, SECCOMP_IOCTL_NOTIF_ID_VALID, &ADDR) = -1 [EBADF]".into(),
            format!(
                "ioctl(-1, SECCOMP_IOCTL_NOTIF_ADDFD, {{id=0x2a, flags=SECCOMP_ADDFD_FLAG_SETFD, \
                 srcfd={fd3}, newfd=5, newfd_flags=O_CLOEXEC}}) = -1 [EBADF]"
            ),
        ]
    };
    assert_lines(
        &part("seccomp", &["-e", "trace=ioctl,write"]),
        &expected("3"),
    );
    assert_lines(
        &part("seccomp", &["-y", "-e", "trace=ioctl,write"]),
        &expected("3</dev/null>"),
    );
    // -X verbose: the wrong-way code's number and name (the normaliser
    // takes the long request number for an address).
    let verbose = part("seccomp", &["-X", "verbose", "-e", "trace=ioctl,write"]);
    assert_eq!(
        verbose[6],
        "ioctl(-1, ADDR /* SECCOMP_IOCTL_NOTIF_ID_VALID_WRONG_DIR */, [0x2a]) = -1 [EBADF]"
    );
}

/// JSON: the same fields, hex numbers as numbers.
#[test]
fn seccomp_notification_ioctls_json() {
    use serde_json::{Value, json};
    let bin = fixture("s12_bpf");
    let run = trace(
        &["--json", "-e", "trace=ioctl,write"],
        &[name(&bin), "seccomp"],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let calls: Vec<Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .filter(|v: &Value| v["name"] == "ioctl")
        .collect();
    let recv = &calls[1]["args"]["arg"];
    assert_eq!(recv["id"], json!(0xdeadc0debadc0ded_u64), "{recv}");
    assert_eq!(
        recv["data"]["nr"],
        json!({"value": 186, "name": "__NR_gettid"})
    );
    assert_eq!(recv["data"]["args"][5], json!(0x50));
    let send = &calls[4]["args"]["arg"];
    assert_eq!(send["error"], json!({"value": -63, "name": "-ENOSR"}));
}
