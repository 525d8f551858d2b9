//! Calls whose lines session 12 brought to strace 6's information (issue
//! 25): the `s12_misc` fixture makes each with exact arguments and the
//! whole lines are compared, in rtrace's grammar; pids and addresses are
//! normalised, `#` is one or more digits. syslog's console level is set
//! under an injected error, so the test never changes it.

mod common;

use common::{assert_lines, trace};

/// The fixture under rtrace with `args` (syslog always fails, injected;
/// the temporary directory's calls are left out: its name is random).
fn run(args: &[&str]) -> common::Run {
    let bin = common::fixture("s12_misc");
    let mut all = vec![
        "-e",
        "inject=syslog:error=EPERM",
        "-e",
        "trace=!mkdir,rmdir,openat,getrandom",
    ];
    all.extend_from_slice(args);
    let run = trace(&all, &[bin.file_name().unwrap().to_str().unwrap()]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    run
}

/// The lines from the marker on, as rtrace prints them with no option.
const LINES: &[&str] = &[
    "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
    "memfd_create(\"a<b>c\", 0) = 3",
    "fsync(3) = 0",
    "close(3) = 0",
    "pipe2([3, 4], 0) = 0",
    // Only the sets with an fd ready.
    "select(5, [3], [4], NULL, {tv_sec=0, tv_usec=0}) = 1 {writefds=[4], left={tv_sec=0, tv_usec=0}}",
    // The kernel reads no more bits than the fd table has room for.
    "select(2147483647, [3], [4], NULL, {tv_sec=0, tv_usec=0}) = 1 {writefds=[4], left={tv_sec=0, \
     tv_usec=0}}",
    "pselect6(5, [3], [4], NULL, {tv_sec=0, tv_nsec=0}, {sigmask=[USR1], sigsetsize=8}) = 1 \
     {writefds=[4], left={tv_sec=0, tv_nsec=0}}",
    // A policy alone: unknown in hex, and SCHED_RESET_ON_FORK is no policy.
    "sched_setattr(0, {size=48, sched_policy=0xca7faced, sched_flags=0, sched_nice=0, \
     sched_priority=0, sched_runtime=0, sched_deadline=0, sched_period=0}, 0x0) = -1 [EINVAL]",
    "sched_setattr(0, {size=48, sched_policy=0x40000000, sched_flags=0, sched_nice=0, \
     sched_priority=0, sched_runtime=0, sched_deadline=0, sched_period=0}, 0x0) = -1 [EINVAL]",
    "getpid() = PID1",
    // The fds' low 32 bits, the garbage above them dropped.
    "kcmp(PID1, PID1, KCMP_FILE, 5, 5) = 0",
    "kcmp(PID1, PID1, KCMP_EPOLL_TFD, 5, {efd=-2, tfd=-3, toff=0}) = -1 [EBADF]",
    "pkey_alloc(0x0, PKEY_DISABLE_ACCESS|PKEY_DISABLE_EXECUTE) = -1 [EINVAL]",
    // The environment's address and count, as strace shows them.
    "execveat(AT_FDCWD, \"/nonexistent/rtrace\", [\"x\"], &ADDR /* 2 vars */, 0) = -1 [ENOENT]",
    "execveat(AT_FDCWD, \"/nonexistent/rtrace\", [\"x\"], &ADDR /* 1 var */, 0) = -1 [ENOENT]",
    "getdents64(6, &ADDR /* 2 entries */, 4096) = 48",
    "getdents64(6, &ADDR /* 0 entries */, 4096) = 0",
    "close(6) = 0",
    "prlimit64(-1, RLIMIT_STACK, {rlim_cur=8388608, rlim_max=RLIM_INFINITY}, NULL) = -1 [ESRCH]",
    "utimensat(AT_FDCWD, \"/nonexistent/rtrace\", [UTIME_NOW, UTIME_OMIT], 0) = -1 [ENOENT]",
    "ustat(makedev(0xfff, 0x0), NULL) = -1 [EINVAL]",
    "syslog(8 /* SYSLOG_ACTION_CONSOLE_LEVEL */, NULL, 8 /* LOGLEVEL_DEBUG+1 */) = -1 [EPERM] \
     (INJECTED)",
    // The value's last NUL is counted by the size, not shown.
    "fsetxattr(-1, \"user.rtrace\", \"foo\\0bar\", 8, 0) = -1 [EBADF]",
    "fsconfig(5, FSCONFIG_CMD_CREATE, NULL, NULL, 0) = -1 [EINVAL]",
    "fsconfig(-1, FSCONFIG_SET_PATH, \"source\", \"/dev/null\", AT_FDCWD) = -1 [EINVAL]",
    "fsconfig(-1, FSCONFIG_SET_FD, \"source\", NULL, 5) = -1 [EINVAL]",
    "fsconfig(-1, FSCONFIG_SET_STRING, \"source\", \"/dev/null\", 0) = -1 [EINVAL]",
    "socketpair(AF_UNIX, SOCK_DGRAM, 0, [6, 7]) = 0",
    // A failed receive: the name's length it was given, as strace shows it.
    "recvmsg(6, {msg_namelen=16, ..}, MSG_DONTWAIT) = -1 [EAGAIN]",
    "mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0x0) = ADDR",
    "munmap(&ADDR, 4096) = 0",
    // A failed send's messages as given, to the one that cannot be read.
    "sendmmsg(-1, [{msg_hdr={msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"a\", iov_len=1}], \
     msg_iovlen=1, msg_control=NULL, msg_controllen=0, msg_flags=0}}, &ADDR], 2, MSG_DONTWAIT) \
     = -1 [EBADF]",
    "sendmmsg(7, [{msg_hdr={msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"a\", iov_len=1}], \
     msg_iovlen=1, msg_control=NULL, msg_controllen=0, msg_flags=0}, msg_len=1}, {msg_hdr={msg_name=NULL, \
     msg_namelen=0, msg_iov=[{iov_base=\"a\", iov_len=1}], msg_iovlen=1, msg_control=NULL, \
     msg_controllen=0, msg_flags=0}, msg_len=1}], 2, MSG_DONTWAIT) = 2",
    // The int modify_ldt returns, zero-extended: the number and its error.
    "modify_ldt(5, NULL, 0) = 4294967258 (-ENOSYS)",
    "exit_group(0)",
    "Process exited normally with code 0",
];

#[test]
fn calls_as_strace_shows_them() {
    assert_lines(&run(&[]).after_marker(), LINES);
}

/// `-y`: `<` and `>` inside a path in octal, as strace writes them; kcmp's
/// fds with their paths in the processes named.
#[test]
fn fd_paths_escape_brackets_and_kcmp_names_their_files() {
    let lines = run(&["-y", "-e", "trace=fsync,kcmp"]).lines();
    assert_lines(
        &lines[1..],
        &[
            "fsync(3</memfd:a\\74b\\76c (deleted)>) = 0",
            "kcmp(PID1, PID1, KCMP_FILE, 5</dev/null>, 5</dev/null>) = 0",
            "kcmp(PID1, PID1, KCMP_EPOLL_TFD, 5</dev/null>, {efd=-2, tfd=-3, toff=0}) = -1 [EBADF]",
            "Process exited normally with code 0",
        ],
    );
}

/// `-X verbose` and `-X raw`: a limit unsigned with strace's comments, the
/// special times as whole structs, a device number beside its macro.
#[test]
fn raw_and_verbose_spell_limits_times_and_devices() {
    // glibc's own prlimit64 at startup comes before the marker.
    let calls = ["-e", "trace=write,prlimit64,utimensat,ustat"];
    let verbose = run(&[&["-X", "verbose"][..], &calls].concat()).after_marker();
    assert_lines(
        &verbose[1..],
        &[
            "prlimit64(-1, 0x3 /* RLIMIT_STACK */, {rlim_cur=8388608 /* 8192*1024 */, \
             rlim_max=18446744073709551615 /* RLIM_INFINITY */}, NULL) = -1 [ESRCH]",
            "utimensat(-100 /* AT_FDCWD */, \"/nonexistent/rtrace\", [{tv_sec=1, \
             tv_nsec=1073741823} /* UTIME_NOW */, {tv_sec=2, tv_nsec=1073741822} /* UTIME_OMIT */], \
             0) = -1 [ENOENT]",
            "ustat(0xfff00 /* makedev(0xfff, 0) */, NULL) = -1 [EINVAL]",
            "Process exited normally with code 0",
        ],
    );
    let raw = run(&[&["-X", "raw"][..], &calls].concat()).after_marker();
    assert_lines(
        &raw[1..],
        &[
            "prlimit64(-1, 0x3, {rlim_cur=8388608, rlim_max=18446744073709551615}, NULL) \
             = -1 [ESRCH]",
            "utimensat(-100, \"/nonexistent/rtrace\", [{tv_sec=1, tv_nsec=1073741823}, \
             {tv_sec=2, tv_nsec=1073741822}], 0) = -1 [ENOENT]",
            "ustat(0xfff00, NULL) = -1 [EINVAL]",
            "Process exited normally with code 0",
        ],
    );
}

/// `-P`: fsconfig's path (`value`) and fd (`aux`) as its command types
/// them, not the filesystem context it configures.
#[test]
fn trace_path_reads_fsconfig_by_its_command() {
    let lines = run(&["-P", "/dev/null", "-e", "trace=fsconfig"]).lines();
    assert_lines(
        &lines[1..],
        &[
            "fsconfig(-1, FSCONFIG_SET_PATH, \"source\", \"/dev/null\", AT_FDCWD) = -1 [EINVAL]",
            "fsconfig(-1, FSCONFIG_SET_FD, \"source\", NULL, 5) = -1 [EINVAL]",
            "Process exited normally with code 0",
        ],
    );
}

/// `--json`: the same handlers give structured values; the counts that
/// text writes as comments are fields there.
#[test]
fn json_values() {
    use serde_json::{Value, json};
    let calls: Vec<Value> = run(&["--json"])
        .trace
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let find = |name: &str| {
        calls
            .iter()
            .filter(|c| c["name"] == name)
            .cloned()
            .collect::<Vec<Value>>()
    };
    let select = &find("select")[0];
    assert_eq!(select["args"]["readfds"], json!([3]));
    assert_eq!(
        select["returned"]["value"],
        json!({"writefds": [4], "left": {"tv_sec": 0, "tv_usec": 0}})
    );
    assert_eq!(
        find("pselect6")[0]["args"]["sigmask"]["sigsetsize"],
        json!(8)
    );
    assert_eq!(
        find("sched_setattr")[0]["args"]["attr"]["sched_policy"],
        json!(0xca7facedu32)
    );
    assert_eq!(find("kcmp")[0]["args"]["idx1"], json!(5));
    assert_eq!(find("execveat")[0]["args"]["envp"], json!("[/* 2 vars */]"));
    assert_eq!(
        find("getdents64")[0]["args"]["dirp"],
        json!({"entries": 2, "..": true})
    );
    assert_eq!(
        find("recvmsg")[0]["args"]["msg"],
        json!({"msg_namelen": 16, "..": true})
    );
    let msgvec = &find("sendmmsg")[0]["args"]["msgvec"];
    assert_eq!(msgvec[0]["msg_hdr"]["msg_iov"][0]["iov_base"], json!("a"));
    assert!(
        msgvec[1].as_str().is_some_and(|p| p.starts_with("0x")),
        "{msgvec}"
    );
    assert_eq!(
        find("modify_ldt")[0]["returned"],
        json!({"error": "-ENOSYS"})
    );
    assert_eq!(find("fsetxattr")[0]["args"]["value"], json!("foo\u{0}bar"));
}
