//! Calls with a decoder of their own (issue 25's "single decoders"): the
//! `calls_single` fixture makes each with exact arguments, successes and
//! failures, and the whole lines are compared with what strace 6 shows of
//! them in rtrace's grammar. Values the machine decides (sysinfo's
//! counters, the time a select left, the kernel's default runtime) are
//! matched by `#`, one or more digits; pids and addresses are normalised.

mod common;

use common::{assert_lines, scratch_path, trace};

/// Run the fixture in a fresh directory under rtrace with `args`.
fn run(tag: &str, args: &[&str]) -> common::Run {
    let bin = common::fixture("calls_single");
    let dir = scratch_path("decoders_single", tag);
    std::fs::create_dir_all(&dir).unwrap();
    let shown = dir.display().to_string();
    let run = trace(args, &[bin.file_name().unwrap().to_str().unwrap(), &shown]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    run
}

/// The lines from the marker on, as rtrace prints them with no option.
const SINGLE: &[&str] = &[
    "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
    // The restorer always, as strace shows it.
    "rt_sigaction(SIGUSR1, {sa_handler=&ADDR, sa_mask=[USR2], \
     sa_flags=SA_RESTORER|SA_RESTART, sa_restorer=&ADDR}, NULL, 8) = 0",
    // Every field, totalhigh and freehigh included.
    "sysinfo({uptime=#, loads=[#, #, #], totalram=#, freeram=#, sharedram=#, bufferram=#, \
     totalswap=#, freeswap=#, procs=#, totalhigh=#, freehigh=#, mem_unit=1}) = 0",
    "write(4, \"x\", 1) = 1",
    // What is left of the timeout, after the ready sets.
    "pselect6(4, [3], NULL, NULL, {tv_sec=5, tv_nsec=0}, NULL) \
     = 1 {readfds=[3], left={tv_sec=#, tv_nsec=#}}",
    "select(4, [3], NULL, NULL, {tv_sec=5, tv_usec=0}) \
     = 1 {readfds=[3], left={tv_sec=#, tv_usec=#}}",
    "epoll_create1(0) = 5",
    // The data union: its low 32 bits and all 64.
    "epoll_ctl(5, EPOLL_CTL_ADD, 3, {events=EPOLLIN, data={u32=6, u64=4294967302}}) = 0",
    "epoll_wait(5, [{events=EPOLLIN, data={u32=6, u64=4294967302}}], 4, 0) = 1",
    "epoll_pwait(5, [{events=EPOLLIN, data={u32=6, u64=4294967302}}], 4, 0, NULL, 8) = 1",
    "epoll_pwait2(5, [{events=EPOLLIN, data={u32=6, u64=4294967302}}], 4, \
     {tv_sec=0, tv_nsec=0}, NULL, 8) = 1",
    "unshare(CLONE_NEWUTS|CLONE_NEWNET) = 0",
    "unshare(0x1) = -1 [EINVAL]",
    "openat(AT_FDCWD, \"/proc/self/ns/uts\", O_RDONLY) = 6",
    "setns(6, CLONE_NEWUTS) = 0",
    "setns(6, 0) = 0",
    "setns(6, CLONE_NEWNET) = -1 [EINVAL]",
    "ioprio_set(IOPRIO_WHO_PROCESS, 0, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 7)) = 0",
    "ioprio_get(IOPRIO_WHO_PROCESS, 0) = 24583 (IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 7))",
    "ioprio_set(IOPRIO_WHO_PGRP, 0, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4)) = 0",
    "ioprio_get(9, 0) = -1 [EINVAL]",
    "sched_setattr(0, {size=56, sched_policy=SCHED_BATCH, sched_flags=SCHED_FLAG_RESET_ON_FORK, \
     sched_nice=3, sched_priority=0, sched_runtime=0, sched_deadline=0, sched_period=0, \
     sched_util_min=0, sched_util_max=0}, 0x0) = 0",
    "sched_getattr(0, {size=56, sched_policy=SCHED_BATCH, sched_flags=SCHED_FLAG_RESET_ON_FORK, \
     sched_nice=3, sched_priority=0, sched_runtime=#, sched_deadline=0, sched_period=0, \
     sched_util_min=0, sched_util_max=0}, 56, 0x0) = 0",
    "sched_setattr(0, &0x1, 0x0) = -1 [EFAULT]",
    // The kernel's answer to a size below the first layout: its own size,
    // written back.
    "sched_setattr(0, {size=8}, 0x0) = -1 [E2BIG] {size=56}",
    "sched_getattr(0, &ADDR, 8, 0x0) = -1 [EINVAL]",
    // The indexes as the type reads them.
    "kcmp(PID1, PID1, KCMP_FILE, 3, 3) = 0",
    "kcmp(PID1, PID1, KCMP_VM) = 0",
    "kcmp(PID1, PID1, KCMP_EPOLL_TFD, 3, {efd=5, tfd=3, toff=0}) = 0",
    "kcmp(PID1, PID1, 99, 0x0, 0x0) = -1 [EINVAL]",
    "membarrier(MEMBARRIER_CMD_QUERY, 0) = # (MEMBARRIER_CMD_GLOBAL|\
     MEMBARRIER_CMD_GLOBAL_EXPEDITED|MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED|\
     MEMBARRIER_CMD_PRIVATE_EXPEDITED|MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED|\
     MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE|MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE|\
     MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ|MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ|\
     MEMBARRIER_CMD_GET_REGISTRATIONS)",
    "membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) = 0",
    // cpu_id only with the flag that makes the kernel read it.
    "membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ, MEMBARRIER_CMD_FLAG_CPU, 0) = -1 [EPERM]",
    "pidfd_open(PID1, 0) = 7",
    "process_madvise(7, [{iov_base=0x*, iov_len=4096}], 1, MADV_COLD, 0x0) = 4096",
    "process_madvise(7, [{iov_base=0x*, iov_len=4096}], 1, MADV_DONTNEED, 0x0) = 4096",
    "openat(AT_FDCWD, \"f\", O_WRONLY|O_CREAT, 0644) = 8",
    "setxattrat(AT_FDCWD, \"f\", 0, \"user.k\", {value=\"hello\", size=5, flags=XATTR_CREATE}, 16) \
     = 0",
    // The value as long as the result says; the struct's size is the
    // buffer's.
    "getxattrat(AT_FDCWD, \"f\", AT_SYMLINK_NOFOLLOW, \"user.k\", {value=\"hello\", size=16, \
     flags=0}, 16) = 5",
    // Size 0 only measures: nothing was written.
    "getxattrat(AT_FDCWD, \"f\", 0, \"user.k\", {value=&ADDR, size=0, flags=0}, 16) = 5",
    "listxattrat(AT_FDCWD, \"f\", 0, [\"user.k\"], 64) = 7",
    "removexattrat(AT_FDCWD, \"f\", 0, \"user.k\") = 0",
    "getxattrat(AT_FDCWD, \"f\", 0, \"user.k\", {value=&ADDR, size=0, flags=0}, 16) \
     = -1 [ENODATA]",
    "setxattrat(AT_FDCWD, \"f\", 0, \"user.k\", &0x1, 16) = -1 [EFAULT]",
    "exit_group(0)",
    "Process exited normally with code 0",
];

#[test]
fn single_decoders() {
    assert_lines(&run("plain", &[]).after_marker(), SINGLE);
}

/// `-v` changes none of these lines: what strace shows always, rtrace
/// shows without `-v` too.
#[test]
fn verbose_shows_the_same() {
    assert_lines(&run("verbose", &["-v"]).after_marker(), SINGLE);
}

/// `-V` prints numbers for names: the I/O priority, the flags and the
/// commands as the numbers the kernel reads.
#[test]
fn values_only() {
    let lines = run("values", &["-V"]).after_marker();
    let find = |start: &str| {
        lines
            .iter()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no {start} in:\n{}", lines.join("\n")))
            .as_str()
    };
    assert_eq!(find("ioprio_set(1,"), "ioprio_set(1, 0, 24583) = 0");
    assert_eq!(find("ioprio_get(1,"), "ioprio_get(1, 0) = 24583");
    assert_eq!(find("unshare(0x4"), "unshare(0x44000000) = 0");
    assert_eq!(find("membarrier(0,"), "membarrier(0, 0x0) = 1023");
    assert_eq!(
        find("kcmp(PID1, PID1, 7"),
        "kcmp(PID1, PID1, 7, 3, {efd=5, tfd=3, toff=0}) = 0"
    );
}

/// `--json`: the same handlers give structured values; what the text
/// prints after a result goes to `returned`.
#[test]
fn json_values() {
    use serde_json::{Value, json};
    let run = run("json", &["--json"]);
    let objs: Vec<Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let find = |name: &str| {
        objs.iter()
            .find(|o| o["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {}", run.trace))
    };
    let act = &find("rt_sigaction")["args"]["act"];
    assert!(act["sa_restorer"].is_string(), "{act}");
    let info = &find("sysinfo")["args"]["info"];
    assert!(
        info["totalhigh"].is_u64() && info["freehigh"].is_u64(),
        "{info}"
    );
    let left = &find("pselect6")["returned"]["value"]["left"];
    assert!(
        left["tv_sec"].is_i64() && left["tv_nsec"].is_i64(),
        "{left}"
    );
    assert_eq!(
        find("epoll_ctl")["args"]["event"]["data"],
        json!({"u32": 6, "u64": 4294967302u64})
    );
    assert_eq!(
        find("unshare")["args"]["flags"],
        json!({"value": 0x44000000, "flags": ["CLONE_NEWUTS", "CLONE_NEWNET"]})
    );
    assert_eq!(
        find("ioprio_set")["args"]["ioprio"],
        json!({"value": 24583, "name": "IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 7)"})
    );
    assert_eq!(
        find("ioprio_get")["returned"]["ioprio"],
        json!({"value": 24583, "name": "IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 7)"})
    );
    let attr = &find("sched_setattr")["args"]["attr"];
    assert_eq!(
        attr["sched_policy"],
        json!({"value": 3, "name": "SCHED_BATCH"})
    );
    assert_eq!(attr["sched_nice"], json!(3));
    assert_eq!(
        find("membarrier")["returned"]["cmds"]["flags"][0],
        json!("MEMBARRIER_CMD_GLOBAL")
    );
    assert_eq!(
        find("setxattrat")["args"]["args"],
        json!({"value": "hello", "size": 5, "flags": {"value": 1, "flags": ["XATTR_CREATE"]}})
    );
}
