//! Flags named as strace names them even beside bits the kernel refuses,
//! and calls that printed raw before (issue 25, session 11): the
//! `calls_s11_memfs` fixture makes each with exact arguments and the whole
//! lines are compared with what strace 6 shows of them, in rtrace's
//! grammar; pids and addresses are normalised, `#` is one or more digits.

mod common;

use common::{assert_lines, trace};

/// Run the fixture under rtrace with `args`.
fn run_raw(args: &[&str]) -> common::Run {
    let bin = common::fixture("calls_s11_memfs");
    let run = trace(args, &[bin.file_name().unwrap().to_str().unwrap()]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    run
}

/// Run the fixture under rtrace with `args`; its lines from the marker on.
fn run(args: &[&str]) -> Vec<String> {
    run_raw(args).after_marker()
}

/// The trace's lines as written: the lines checked hold no pid or address.
fn written(args: &[&str]) -> Vec<String> {
    run_raw(args).trace.lines().map(str::to_string).collect()
}

/// The lines from the marker on, as rtrace prints them with no option.
const LINES: &[&str] = &[
    "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
    // Every O_* name but the access mode, though dup3 takes O_CLOEXEC only.
    "dup3(-2, -1, O_TRUNC|O_CLOEXEC) = -1 [EINVAL]",
    // Every AT_* name, though utimensat takes two.
    "utimensat(AT_FDCWD, \"/nonexistent/rtrace\", NULL, AT_REMOVEDIR) = -1 [EINVAL]",
    "mount(\"none\", \"/nonexistent/rtrace\", \"tmpfs\", MS_NOSUID|MS_SUBMOUNT, NULL) = -1 [ENOENT]",
    "mount(\"none\", \"/nonexistent/rtrace\", \"tmpfs\", MS_MGC_VAL|MS_RDONLY, NULL) = -1 [ENOENT]",
    // The hugetlb size as its field's value, as strace writes it.
    "memfd_create(\"m\", MFD_CLOEXEC|63<<MFD_HUGE_SHIFT) = -1 [EINVAL]",
    "pidfd_open(0, PIDFD_NONBLOCK) = -1 [EINVAL]",
    "userfaultfd(UFFD_USER_MODE_ONLY|O_CLOEXEC|0x4) = -1 [EINVAL]",
    "pkey_alloc(0x0, PKEY_DISABLE_WRITE|0x100) = -1 [EINVAL]",
    "remap_file_pages(NULL, 4096, PROT_READ|PROT_WRITE, 0, MAP_PRIVATE|MAP_ANONYMOUS) = -1 [EINVAL]",
    // An unknown mapping type first, the page size last.
    "remap_file_pages(NULL, 0, PROT_NONE, 0, 0xf|MAP_FIXED|MAP_HUGETLB|21<<MAP_HUGE_SHIFT) \
     = -1 [EINVAL]",
    // The class always first, also one no name has.
    "fanotify_init(0xc|FAN_CLOEXEC, O_RDWR) = -1 [EINVAL]",
    "fanotify_mark(-1, FAN_MARK_ADD|FAN_MARK_MOUNT, FAN_OPEN|FAN_ONDIR, FAN_NOFD, NULL) \
     = -1 [EBADF]",
    "fsopen(\"nosuchfs\", FSOPEN_CLOEXEC) = -1 [ENODEV]",
    "fspick(-1, \"\", FSPICK_EMPTY_PATH|0x100) = -1 [EINVAL]",
    "fsconfig(-1, FSCONFIG_SET_STRING, \"source\", \"none\", 0) = -1 [EINVAL]",
    "fsconfig(-1, FSCONFIG_SET_BINARY, \"k\", \"ab\\0\", 3) = -1 [EINVAL]",
    "fsconfig(-1, FSCONFIG_CMD_CREATE, NULL, NULL, 0) = -1 [EINVAL]",
    "fsmount(-1, FSMOUNT_CLOEXEC, MOUNT_ATTR_RDONLY|MOUNT_ATTR_NOATIME) = -1 [EBADF]",
    "open_tree(-1, \"\", OPEN_TREE_CLONE|AT_EMPTY_PATH) = -1 [EBADF]",
    "move_mount(-1, \"\", AT_FDCWD, \"/nonexistent/rtrace\", MOVE_MOUNT_F_EMPTY_PATH) = -1 [ENOENT]",
    "mount_setattr(-1, \"\", AT_EMPTY_PATH, {attr_set=MOUNT_ATTR_RDONLY, \
     attr_clr=MOUNT_ATTR_NOEXEC, propagation=MS_SLAVE, userns_fd=0}, 32) = -1 [EBADF]",
    // A node, or the error of a page that is not there.
    "move_pages(0, 2, [&ADDR, &ADDR], NULL, [#, -EFAULT], MPOL_MF_MOVE) = 0",
    // An array whose tail is unmapped ends with the address of the element
    // that could not be read (strace: `... /* 0x... */`).
    "move_pages(0, 3, [&ADDR, &ADDR, &ADDR], NULL, &ADDR, MPOL_MF_MOVE) = -1 [EFAULT]",
    "set_mempolicy(MPOL_DEFAULT, [0x0, &ADDR], 129) = -1 [EFAULT]",
    "pwritev(-1, [{iov_base=\"abc\", iov_len=3}, &ADDR], 2, 0) = -1 [EBADF]",
    "process_madvise(-1, [{iov_base=0x*, iov_len=3}, &ADDR], 2, MADV_COLD, 0x0) = -1 [EFAULT]",
    // Where a failed read's buffers are.
    "preadv(-1, [{iov_base=&ADDR, iov_len=3}], 1, 0) = -1 [EBADF]",
    "vmsplice(-1, [{iov_base=\"abc\", iov_len=3}], 1, SPLICE_F_NONBLOCK) = -1 [EBADF]",
    "process_vm_writev(0, [{iov_base=\"abc\", iov_len=3}], 1, [{iov_base=0x*, iov_len=3}], 1, \
     0x0) = -1 [ESRCH]",
    "utime(\"/nonexistent/rtrace\", {actime=1492350678 /* 2017-04-16T13:51:18+0000 */, \
     modtime=1492350679 /* 2017-04-16T13:51:19+0000 */}) = -1 [ENOENT]",
    "clock_adjtime(CLOCK_MONOTONIC, NULL) = -1 [EFAULT]",
    // A class no name has, in hex: it has bits above the class field.
    "ioprio_set(IOPRIO_WHO_PROCESS, 0, IOPRIO_PRIO_VALUE(0x7d677, 7917)) = -1 [EINVAL]",
    "ustat(makedev(0xfff, 0xfffff), NULL) = -1 [EINVAL]",
    "time([# /* #-#-#T#:#:#+# */]) = # (#-#-#T#:#:#+#)",
    "semop(-1, [{sem_num=1, sem_op=-2, sem_flg=SEM_UNDO|IPC_NOWAIT}, &ADDR], 2) = -1 [EFAULT]",
    "setgroups(2, [100, &ADDR]) = -1 [EFAULT]",
    // The value's two members, as strace shows them.
    "pidfd_send_signal(-1, SIGUSR1, {si_signo=SIGUSR1, si_code=SI_QUEUE, si_pid=4, si_uid=0, \
     si_int=42, si_ptr=0x2a}, 0x0) = -1 [EBADF]",
    "futex_waitv([{val=0x1, uaddr=&ADDR, flags=FUTEX_32|FUTEX_PRIVATE_FLAG}], 1, 0x0, NULL, \
     CLOCK_MONOTONIC) = -1 [EAGAIN]",
    // An unreadable slot is where the array stops; the environment's count
    // is what could be read.
    "execve(\"/nonexistent/rtrace\", [\"abcdefgh\", &ADDR], &ADDR /* 1 var, unterminated */) \
     = -1 [ENOENT]",
    // Each time with its seconds (clock ticks of the uapi HZ).
    "times({tms_utime=# /* #.# s */, tms_stime=# /* #.# s */, tms_cutime=0 /* 0.00 s */, \
     tms_cstime=0 /* 0.00 s */}) = #",
    "exit_group(0)",
    "Process exited normally with code 0",
];

#[test]
fn flags_and_arrays_as_strace_shows_them() {
    assert_lines(&run(&[]), LINES);
}

/// `-X raw` and `-X verbose`: mount's old magic number is its own part,
/// as strace writes it; a composed flag set is one number.
#[test]
fn raw_and_verbose_spell_the_parts() {
    let raw = written(&["-X", "raw"]);
    let verbose = written(&["-X", "verbose"]);
    for (lines, want) in [
        (
            &raw,
            [
                "mount(\"none\", \"/nonexistent/rtrace\", \"tmpfs\", 0xc0ed0000|0x1, NULL) = -1 [ENOENT]",
                "memfd_create(\"m\", 0xfc000001) = -1 [EINVAL]",
                "remap_file_pages(NULL, 0, 0, 0, 0x5404001f) = -1 [EINVAL]",
            ],
        ),
        (
            &verbose,
            [
                "mount(\"none\", \"/nonexistent/rtrace\", \"tmpfs\", 0xc0ed0000 /* MS_MGC_VAL */|0x1 \
                 /* MS_RDONLY */, NULL) = -1 [ENOENT]",
                "memfd_create(\"m\", 0xfc000001 /* MFD_CLOEXEC|63<<MFD_HUGE_SHIFT */) = -1 [EINVAL]",
                "remap_file_pages(NULL, 0, 0 /* PROT_NONE */, 0, 0x5404001f /* 0xf|MAP_FIXED|MAP_HUGETLB|\
                 21<<MAP_HUGE_SHIFT */) = -1 [EINVAL]",
            ],
        ),
    ] {
        for line in want {
            assert!(lines.iter().any(|l| l == line), "no {line:?} in {lines:#?}");
        }
    }
    // -X raw has no comments: times' seconds are left out, as strace does.
    let times = raw.iter().find(|l| l.starts_with("times(")).unwrap();
    assert!(!times.contains("/*"), "{times}");
    assert!(times.contains("tms_cutime=0, tms_cstime=0}"), "{times}");
}

/// `--json`: the same handlers give structured values.
#[test]
fn json_values() {
    use serde_json::{Value, json};
    let calls: Vec<Value> = written(&["--json"])
        .iter()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let args = |name: &str| {
        calls
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {calls:#?}"))["args"]
            .clone()
    };
    assert_eq!(
        args("dup3")["flags"],
        json!({"value": 0x80200, "flags": ["O_TRUNC", "O_CLOEXEC"]})
    );
    assert_eq!(
        args("memfd_create")["flags"],
        json!({"value": 0xfc000001u64, "flags": ["MFD_CLOEXEC", "63<<MFD_HUGE_SHIFT"]})
    );
    assert_eq!(args("fanotify_mark")["dfd"]["name"], json!("FAN_NOFD"));
    assert_eq!(
        args("mount_setattr")["uattr"]["propagation"]["name"],
        json!("MS_SLAVE")
    );
    assert_eq!(args("set_mempolicy")["nmask"][0], json!(0));
}
