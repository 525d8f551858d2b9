//! `-X raw|abbrev|verbose`, `-e raw=`, `-e abbrev=`, `-e verbose=`,
//! `--no-abbrev` and `-Y` (`--decode-pids=comm`), traced against the
//! fixtures calls_files.c, tty_ioctls.c and calls_proc.c, in strace's
//! spelling and rtrace's grammar. JSON carries names and values whatever
//! `-X` says.

mod common;

use common::{fixture, name, rtrace_env, s, trace};
use std::path::{Path, PathBuf};

/// A fresh empty directory for calls_files to work in.
fn scratch(tag: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("x-styles-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The trace of calls_files with `opts`, from its marker on, as written
/// (not normalised: hex values of eight digits and more must stay).
fn calls_files(opts: &[&str]) -> Vec<String> {
    let bin = fixture("calls_files");
    let dir = scratch(&opts.join("").replace(['=', '!', ','], "_"));
    let shown = dir.display().to_string();
    let run = trace(opts, &[name(&bin), &shown]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let _ = std::fs::remove_dir_all(&dir);
    let lines: Vec<String> = run.trace.lines().map(String::from).collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("write(-1, \"BEGIN\""))
        .unwrap_or_else(|| panic!("no marker: {lines:#?}"));
    lines[start..].to_vec()
}

/// Whether `line` is `expected` with each `ADDR` in it standing for a
/// tracee address (`0x` and hex digits): the one thing that changes from
/// run to run in these lines.
fn matches(expected: &str, line: &str) -> bool {
    let mut parts = expected.split("ADDR");
    let Some(first) = parts.next() else {
        return false;
    };
    let Some(mut rest) = line.strip_prefix(first) else {
        return false;
    };
    for part in parts {
        let Some(hex) = rest.strip_prefix("0x") else {
            return false;
        };
        let digits = hex.bytes().take_while(u8::is_ascii_hexdigit).count();
        if digits == 0 {
            return false;
        }
        match hex[digits..].strip_prefix(part) {
            Some(after) => rest = after,
            None => return false,
        }
    }
    rest.is_empty()
}

/// `got` is `expected` line for line (see [`matches`]).
fn assert_lines(got: &[String], expected: &[&str]) {
    let bad: Vec<String> = got
        .iter()
        .zip(expected)
        .filter(|(g, e)| !matches(e, g))
        .map(|(g, e)| format!("  expected {e}\n       got {g}"))
        .collect();
    assert!(
        bad.is_empty() && got.len() >= expected.len(),
        "{}\nwhole trace: {got:#?}",
        bad.join("\n")
    );
}

/// calls_files's first calls, in the form `-X` chooses.
const FILES_ABBREV: &[&str] = &[
    "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
    "open(\"f1\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3",
    "write(3, \"hello world\\n\", 12) = 12",
    "pwrite64(3, \"HE\", 2, 0) = 2",
    "writev(3, [{iov_base=\"ab\", iov_len=2}, {iov_base=\"cd\", iov_len=2}], 2) = 4",
    "pwritev(3, [{iov_base=\"ab\", iov_len=2}], 1, 2) = 2",
    "pwritev2(3, [{iov_base=\"ab\", iov_len=2}, {iov_base=\"cd\", iov_len=2}], 2, 0, RWF_DSYNC|RWF_SYNC) = 4",
    "lseek(3, 0, SEEK_SET) = 0",
    "lseek(3, -2, SEEK_END) = 14",
    "lseek(3, 0, 99) = -1 [EINVAL]",
    "write(3, &0x1, 4) = -1 [EFAULT]",
    "close(3) = 0",
    "close(99) = -1 [EBADF]",
    "openat(AT_FDCWD, \"f1\", O_RDONLY) = 3",
];

#[test]
fn x_abbrev_is_the_default() {
    assert_lines(&calls_files(&[]), FILES_ABBREV);
    assert_lines(&calls_files(&["-X", "abbrev"]), FILES_ABBREV);
}

#[test]
fn x_raw_prints_constants_and_flags_as_strace_numbers() {
    assert_lines(
        &calls_files(&["-X", "raw"]),
        &[
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "open(\"f1\", 0x241, 0644) = 3",
            "write(3, \"hello world\\n\", 12) = 12",
            "pwrite64(3, \"HE\", 2, 0) = 2",
            "writev(3, [{iov_base=\"ab\", iov_len=2}, {iov_base=\"cd\", iov_len=2}], 2) = 4",
            "pwritev(3, [{iov_base=\"ab\", iov_len=2}], 1, 2) = 2",
            "pwritev2(3, [{iov_base=\"ab\", iov_len=2}, {iov_base=\"cd\", iov_len=2}], 2, 0, 0x6) = 4",
            "lseek(3, 0, 0) = 0",
            "lseek(3, -2, 0x2) = 14",
            "lseek(3, 0, 0x63) = -1 [EINVAL]",
            "write(3, &0x1, 4) = -1 [EFAULT]",
            "close(3) = 0",
            "close(99) = -1 [EBADF]",
            "openat(-100, \"f1\", 0) = 3",
            "read(3, \"abcdo\", 5) = 5",
            "pread64(3, \"worl\", 4, 6) = 4",
            "readv(3, [{iov_base=\" wo\", iov_len=3}, {iov_base=\"rld\", iov_len=3}], 2) = 6",
            "preadv(3, [{iov_base=\"bcd\", iov_len=3}], 1, 1) = 3",
            "preadv2(3, [{iov_base=\"abc\", iov_len=3}, {iov_base=\"do \", iov_len=3}], 2, 0, 0x1) = 6",
            "read(3, \"\\nabcd\", 16) = 5",
            "read(-1, &ADDR, 1) = -1 [EBADF]",
            "openat(-100, \"missing\", 0x10000) = -1 [ENOENT]",
            "openat(-100, \"new\", 0x800c2, 0600) = 4",
            "creat(\"f2\", 0640) = 5",
            "openat2(-100, \"f1\", {flags=0x80000, resolve=0x8}, 24) = 6",
            "openat2(-100, \"f1\", &ADDR, 8) = -1 [EINVAL]",
            "close_range(6, 0xffffffff, 0x4) = 0",
            "close_range(5, 0xffffffff, 0) = 0",
            "close_range(5, 0x4, 0) = -1 [EINVAL]",
            "open(\"f1\", 0) = 5",
        ],
    );
}

#[test]
fn x_verbose_prints_the_number_and_the_name() {
    assert_lines(
        &calls_files(&["-X", "verbose"]),
        &[
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "open(\"f1\", 0x241 /* O_WRONLY|O_CREAT|O_TRUNC */, 0644) = 3",
            "write(3, \"hello world\\n\", 12) = 12",
            "pwrite64(3, \"HE\", 2, 0) = 2",
            "writev(3, [{iov_base=\"ab\", iov_len=2}, {iov_base=\"cd\", iov_len=2}], 2) = 4",
            "pwritev(3, [{iov_base=\"ab\", iov_len=2}], 1, 2) = 2",
            "pwritev2(3, [{iov_base=\"ab\", iov_len=2}, {iov_base=\"cd\", iov_len=2}], 2, 0, \
             0x6 /* RWF_DSYNC|RWF_SYNC */) = 4",
            "lseek(3, 0, 0 /* SEEK_SET */) = 0",
            "lseek(3, -2, 0x2 /* SEEK_END */) = 14",
            // A value with no name is the number alone.
            "lseek(3, 0, 0x63) = -1 [EINVAL]",
            "write(3, &0x1, 4) = -1 [EFAULT]",
            "close(3) = 0",
            "close(99) = -1 [EBADF]",
            "openat(-100 /* AT_FDCWD */, \"f1\", 0 /* O_RDONLY */) = 3",
            "read(3, \"abcdo\", 5) = 5",
            "pread64(3, \"worl\", 4, 6) = 4",
            "readv(3, [{iov_base=\" wo\", iov_len=3}, {iov_base=\"rld\", iov_len=3}], 2) = 6",
            "preadv(3, [{iov_base=\"bcd\", iov_len=3}], 1, 1) = 3",
            "preadv2(3, [{iov_base=\"abc\", iov_len=3}, {iov_base=\"do \", iov_len=3}], 2, 0, \
             0x1 /* RWF_HIPRI */) = 6",
            "read(3, \"\\nabcd\", 16) = 5",
            "read(-1, &ADDR, 1) = -1 [EBADF]",
            "openat(-100 /* AT_FDCWD */, \"missing\", 0x10000 /* O_RDONLY|O_DIRECTORY */) \
             = -1 [ENOENT]",
            "openat(-100 /* AT_FDCWD */, \"new\", 0x800c2 /* O_RDWR|O_CREAT|O_EXCL|O_CLOEXEC */, \
             0600) = 4",
            "creat(\"f2\", 0640) = 5",
            "openat2(-100 /* AT_FDCWD */, \"f1\", {flags=0x80000 /* O_RDONLY|O_CLOEXEC */, \
             resolve=0x8 /* RESOLVE_BENEATH */}, 24) = 6",
        ],
    );
}

#[test]
fn x_styles_spell_ioctl_requests_and_their_arguments() {
    fixture("tty_ioctls");
    let run = |style: &str| {
        let run = trace(&["-X", style], &["tty_ioctls"]);
        assert_eq!(run.code(), Some(0), "{}", run.stderr());
        let lines: Vec<String> = run.trace.lines().map(String::from).collect();
        let start = lines
            .iter()
            .position(|l| l.starts_with("write(-1, \"BEGIN\""))
            .expect("marker");
        lines[start..].to_vec()
    };
    assert_lines(
        &run("raw"),
        &[
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "ioctl(4, 0x5401, {c_iflag=0x500, c_oflag=0x5, c_cflag=0xbf, c_lflag=0x803b, ..}) = 0",
            "ioctl(4, 0x5402, {c_iflag=0x500, c_oflag=0x5, c_cflag=0xbf, c_lflag=0x803b, ..}) = 0",
            "ioctl(4, 0x5414, {ws_row=24, ws_col=80, ws_xpixel=0, ws_ypixel=0}) = 0",
            "ioctl(4, 0x5413, {ws_row=24, ws_col=80, ws_xpixel=0, ws_ypixel=0}) = 0",
            "ioctl(4, 0x541b, [0]) = 0",
            "ioctl(4, 0x5421, [1]) = 0",
            "ioctl(4, 0x5451) = 0",
            "ioctl(4, 0x540f, &ADDR) = -1 [ENOTTY]",
            "ioctl(3, 0x80045430, [0]) = 0",
            "ioctl(4, 0x540a, 0x1) = 0",
            "ioctl(4, 0x540b, 0x2) = 0",
            "ioctl(4, 0x540b, 0x7) = -1 [EINVAL]",
            "ioctl(4, 0x5416, [0x6]) = -1 [ENOTTY]",
        ],
    );
    assert_lines(
        &run("verbose"),
        &[
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "ioctl(4, 0x5401 /* TCGETS */, {c_iflag=0x500 /* ICRNL|IXON */, \
             c_oflag=0x5 /* NL0|CR0|TAB0|BS0|VT0|FF0|OPOST|ONLCR */, \
             c_cflag=0xbf /* B38400|CS8|CREAD */, \
             c_lflag=0x803b /* ISIG|ICANON|ECHO|ECHOE|ECHOK|IEXTEN */, ..}) = 0",
            "ioctl(4, 0x5402 /* TCSETS */, {c_iflag=0x500 /* ICRNL|IXON */, \
             c_oflag=0x5 /* NL0|CR0|TAB0|BS0|VT0|FF0|OPOST|ONLCR */, \
             c_cflag=0xbf /* B38400|CS8|CREAD */, \
             c_lflag=0x803b /* ISIG|ICANON|ECHO|ECHOE|ECHOK|IEXTEN */, ..}) = 0",
            "ioctl(4, 0x5414 /* TIOCSWINSZ */, {ws_row=24, ws_col=80, ws_xpixel=0, ws_ypixel=0}) = 0",
            "ioctl(4, 0x5413 /* TIOCGWINSZ */, {ws_row=24, ws_col=80, ws_xpixel=0, ws_ypixel=0}) = 0",
            "ioctl(4, 0x541b /* FIONREAD */, [0]) = 0",
            "ioctl(4, 0x5421 /* FIONBIO */, [1]) = 0",
            "ioctl(4, 0x5451 /* FIOCLEX */) = 0",
            "ioctl(4, 0x540f /* TIOCGPGRP */, &ADDR) = -1 [ENOTTY]",
            "ioctl(3, 0x80045430 /* TIOCGPTN */, [0]) = 0",
            "ioctl(4, 0x540a /* TCXONC */, 0x1 /* TCOON */) = 0",
            "ioctl(4, 0x540b /* TCFLSH */, 0x2 /* TCIOFLUSH */) = 0",
            "ioctl(4, 0x540b /* TCFLSH */, 0x7) = -1 [EINVAL]",
            "ioctl(4, 0x5416 /* TIOCMBIS */, [0x6 /* TIOCM_DTR|TIOCM_RTS */]) = -1 [ENOTTY]",
            "ioctl(4, 0x5417 /* TIOCMBIC */, [0x6 /* TIOCM_DTR|TIOCM_RTS */]) = -1 [ENOTTY]",
            "ioctl(4, 0x5418 /* TIOCMSET */, [0x18002 /* TIOCM_DTR|TIOCM_LOOP|0x10000 */]) \
             = -1 [ENOTTY]",
        ],
    );
}

#[test]
fn x_verbose_names_the_usbmon_requests_beside_their_codes() {
    // A libpcap-style client of the usbmon emulation (tests/usbmon.rs).
    let pcap = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/usbmon/qemu-xhci-0u.pcap"
    );
    let emu = common::Emulator::start("usbmon_emu", &[pcap]);
    fixture("usbmon_pcap");
    let run = common::trace_env(
        &["-X", "verbose", "-e", "trace=openat,ioctl"],
        &["usbmon_pcap", "32", "1228800"],
        &[("USBMON_EMU_SOCKET", emu.socket())],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let calls: Vec<String> = run
        .trace
        .lines()
        .filter(|l| l.starts_with("openat(") || l.starts_with("ioctl("))
        .filter(|l| l.contains("usbmon") || l.starts_with("ioctl(3, "))
        .map(String::from)
        .collect();
    assert_lines(
        &calls,
        &[
            "openat(-100 /* AT_FDCWD */, \"/dev/usbmon0\", 0 /* O_RDONLY */) = 3",
            "ioctl(3, 0x9204 /* MON_IOCT_RING_SIZE */, 1228800) = 0",
            "ioctl(3, 0xc0109207 /* MON_IOCX_MFETCH */, {offvec=&ADDR, nfetch=32, nflush=0}) = 0 \
             {nfetch=32, nflush=0, offvec=[0, 64, 128, 192, 256, 320, 448, 512, 576, 640, 832, 960, \
             1024, 1088, 5248, 5312, 5440, 5568, 5632, 5696, 9856, 9920, 10048, 10176, 10240, \
             10304, 14464, 14528, 14656, 14784, 14848, 14912]}",
            "ioctl(3, 0x9208 /* MON_IOCH_MFLUSH */, 32) = 32",
        ],
    );
}

#[test]
fn x_styles_leave_signal_lines_named_and_v_numbers_them() {
    // strace -X raw keeps `--- SIGCHLD`; rtrace's own -V numbers it.
    let bin = fixture("fork_wait");
    let lines = |opts: &[&str]| {
        let run = trace(opts, &[name(&bin)]);
        assert_eq!(run.code(), Some(0), "{}", run.stderr());
        run.after_marker()
    };
    assert!(lines(&["-X", "raw"]).contains(&"** SIGCHLD **".to_string()));
    assert!(lines(&["-V"]).contains(&"** SIGNAL 17 **".to_string()));
}

#[test]
fn e_raw_prints_the_listed_calls_undecoded() {
    let got = calls_files(&[
        "-e",
        "raw=lseek,close,openat,read,creat",
        "-e",
        "trace=lseek,close,openat,read,readv,creat,write",
    ]);
    assert_lines(
        &got,
        &[
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "write(3, \"hello world\\n\", 12) = 12",
            "lseek(0x3, 0, 0) = 0",
            "lseek(0x3, 0xfffffffffffffffe, 0x2) = 0xe",
            "lseek(0x3, 0, 0x63) = -1 [EINVAL]",
            "write(3, &0x1, 4) = -1 [EFAULT]",
            "close(0x3) = 0",
            "close(0x63) = -1 [EBADF]",
            // The dirfd is an int: the kernel reads the register's low half.
            "openat(0xffffff9c, ADDR, 0, 0) = 0x3",
            "read(0x3, ADDR, 0x5) = 0x5",
            // Not listed: decoded.
            "readv(3, [{iov_base=\" wo\", iov_len=3}, {iov_base=\"rld\", iov_len=3}], 2) = 6",
            "read(0x3, ADDR, 0x10) = 0x5",
            "read(0xffffffff, ADDR, 0x1) = -1 [EBADF]",
            "openat(0xffffff9c, ADDR, 0x10000, 0) = -1 [ENOENT]",
            "openat(0xffffff9c, ADDR, 0x800c2, 0x180) = 0x4",
            "creat(ADDR, 0x1a0) = 0x5",
        ],
    );
}

#[test]
fn e_raw_keeps_a_call_that_does_not_return_without_a_result() {
    let bin = fixture("shapes");
    let run = trace(&["-e", "raw=exit_group"], &[name(&bin)]);
    assert_eq!(run.code(), Some(3), "{}", run.stderr());
    let lines = run.after_marker();
    assert_eq!(
        lines[lines.len() - 2..],
        s(&["exit_group(0x3)", "Process exited normally with code 3"])
    );
}

#[test]
fn e_verbose_and_e_abbrev_choose_per_call() {
    // The marker, then the first stat, lstat and fstat.
    let stats = |opts: &[&str]| -> Vec<String> {
        let mut all = vec!["-e", "trace=write,stat,lstat,fstat"];
        all.extend_from_slice(opts);
        let lines = calls_files(&all);
        let first = |call: &str| {
            lines
                .iter()
                .find(|l| l.starts_with(call))
                .cloned()
                .unwrap_or_else(|| panic!("no {call}: {lines:#?}"))
        };
        vec![
            lines[0].clone(),
            first("stat(\"f1\""),
            first("lstat("),
            first("fstat(5, "),
        ]
    };
    // Not in -e verbose=: the struct as its address.
    assert_lines(
        &stats(&["-e", "verbose=!stat"]),
        &[
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "stat(\"f1\", &ADDR) = 0",
            "lstat(\"f1\", {st_mode=S_IFREG|0644, st_size=16, ..}) = 0",
            "fstat(5, {st_mode=S_IFREG|0644, st_size=16, ..}) = 0",
        ],
    );
    // Not in -e abbrev=: whole, as -v prints it.
    let whole = stats(&["-e", "abbrev=!fstat"]);
    let v = stats(&["-v"]);
    assert_eq!(
        whole[1],
        "stat(\"f1\", {st_mode=S_IFREG|0644, st_size=16, ..}) = 0"
    );
    assert_eq!(
        whole[2],
        "lstat(\"f1\", {st_mode=S_IFREG|0644, st_size=16, ..}) = 0"
    );
    assert!(whole[3].starts_with("fstat(5, {st_dev="), "{}", whole[3]);
    assert_eq!(untimed(&whole[3]), untimed(&v[3]));
    // -e abbrev=none is -v's structs; --no-abbrev is -v.
    assert_eq!(untimed(&stats(&["-e", "abbrev=none"])[1]), untimed(&v[1]));
    assert_eq!(untimed(&stats(&["--no-abbrev"])[1]), untimed(&v[1]));
    assert!(v[1].starts_with("stat(\"f1\", {st_dev="), "{}", v[1]);
    // -v with -e abbrev=SET: the calls listed are cut again.
    assert_eq!(
        stats(&["-v", "-e", "abbrev=stat"])[1],
        "stat(\"f1\", {st_mode=S_IFREG|0644, st_size=16, ..}) = 0"
    );
}

/// A stat line with the values that differ between two runs (the inode
/// of the file each run creates, its times) written `#`.
fn untimed(line: &str) -> String {
    let mut out = line.to_string();
    for key in ["st_ino=", "st_atime", "st_mtime", "st_ctime"] {
        let mut from = 0;
        while let Some(at) = out[from..].find(key) {
            let start = from + at + out[from + at..].find('=').unwrap() + 1;
            let len = out[start..].find([',', '}']).unwrap_or(out.len() - start);
            out.replace_range(start..start + len, "#");
            from = start;
        }
    }
    out
}

/// calls_proc's pid calls under `-Y`, its children named CHILD1...
#[test]
fn y_prints_the_command_of_each_pid() {
    let bin = fixture("calls_proc");
    let run = trace(
        &["-Y", "-e", "trace=clone,wait4,getpid,kill,gettid,tkill"],
        &[name(&bin)],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let mut lines = run.lines();
    let children: Vec<String> = lines
        .iter()
        .filter(|l| l.starts_with("clone("))
        .filter_map(|l| {
            let n: String = l[l.rfind(") = ")? + 4..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            (!n.is_empty()).then_some(n)
        })
        .collect();
    for line in &mut lines {
        for (i, pid) in children.iter().enumerate() {
            for before in ["(", "= ", "["] {
                *line = line.replace(
                    &format!("{before}{pid}"),
                    &format!("{before}CHILD{}", i + 1),
                );
            }
        }
    }
    let wait_usage = lines[2].clone();
    assert!(
        wait_usage.starts_with("wait4(CHILD1<calls_proc>, W_EXITED(3), 0, {ru_utime="),
        "{wait_usage}"
    );
    assert_eq!(
        [&lines[..2], &lines[3..]].concat(),
        s(&[
            "Tracing calls_proc (pid PID1)",
            // The child is there (a zombie) until the wait4 reaps it: then
            // its pid names no process and prints alone.
            "clone(SIGCHLD, NULL, NULL, NULL, NULL) = CHILD1<calls_proc>",
            // strace 6.1: `parent_tid=[23724<calls_proc>]`.
            "clone(CLONE_PARENT_SETTID|SIGCHLD, NULL, [CHILD2<calls_proc>], NULL, NULL) \
             = CHILD2<calls_proc>",
            "wait4(-1, W_EXITED(0), __WALL, NULL) = CHILD2",
            "wait4(-1, &ADDR, WNOHANG, NULL) = -1 [ECHILD]",
            "getpid() = PID1<calls_proc>",
            "kill(PID1<calls_proc>, 0) = 0",
            "gettid() = PID1<calls_proc>",
            "tkill(PID1<calls_proc>, 0) = 0",
            "Process exited normally with code 0",
        ])
    );
    assert!(wait_usage.ends_with(") = CHILD1"), "{wait_usage}");
    // --decode-pids=comm and -e decode-pids=comm are -Y.
    for opt in [&["--decode-pids=comm"][..], &["-e", "decode-pids=comm"]] {
        let mut all = opt.to_vec();
        all.extend(["-e", "trace=getpid"]);
        let run = trace(&all, &[name(&bin)]);
        assert_eq!(run.lines()[1], "getpid() = PID1<calls_proc>", "{opt:?}");
    }
    // A command named with angle brackets cannot end its decoration
    // early: they are escaped, as in -y's paths (strace: `<a\74b\76>`).
    let dir = scratch("angle-name");
    let link = dir.join("a<b>");
    std::os::unix::fs::symlink(&bin, &link).unwrap();
    let run = trace(&["-Y", "-e", "trace=getpid"], &[link.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        run.lines()[1],
        "getpid() = PID1<a\\74b\\76>",
        "{}",
        run.trace
    );
    // clone3's parent_tid too (strace 6.1: `parent_tid=[23725<calls_proc>]`).
    let run = trace(&["-Y", "-e", "trace=clone3"], &[name(&bin)]);
    let line = run.lines()[1].clone();
    let child = &line[line.rfind(") = ").unwrap() + 4..line.find('<').unwrap()];
    assert_eq!(
        line.replace(child, "CHILD"),
        "clone3({flags=CLONE_PIDFD|CLONE_PARENT_SETTID, pidfd=&ADDR, child_tid=NULL, \
         parent_tid=&ADDR, exit_signal=SIGCHLD, stack=NULL, stack_size=0, tls=NULL}, 64) \
         = CHILD<calls_proc> {pidfd=[3], parent_tid=[CHILD<calls_proc>]}"
    );
    // JSON: the pid with its command.
    let run = trace(&["-Y", "--json", "-e", "trace=kill"], &[name(&bin)]);
    let call: serde_json::Value = run
        .trace
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["name"] == "kill")
        .expect("a kill call");
    assert_eq!(call["args"]["pid"]["comm"], "calls_proc", "{call}");
    assert_eq!(call["args"]["pid"]["value"], call["pid"], "{call}");
}

/// The child's lines of the pidns fixture traced with `opts` (its calls
/// in a pid namespace of its own), each whole once: a line its parent's
/// wait4 cut (`<..>`) is left for its replay, which loses its `*`. None
/// where no pid namespace can be made here.
fn in_a_pid_namespace(opts: &[&str]) -> Option<Vec<String>> {
    let bin = fixture("pidns");
    let mut all = vec!["-f", "-e", "trace=getpid,kill,fork,wait4,getppid"];
    all.extend_from_slice(opts);
    let run = trace(&all, &[name(&bin)]);
    if run.code() == Some(77) {
        eprintln!("skipped: no new pid namespace here (unshare: EPERM)");
        return None;
    }
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    Some(
        run.lines()
            .iter()
            .filter_map(|l| l.strip_prefix("PID2|"))
            .map(|l| {
                l.strip_prefix(' ')
                    .or(l.strip_prefix('*'))
                    .unwrap_or(l)
                    .to_string()
            })
            .filter(|l| !l.ends_with("<..>"))
            .collect(),
    )
}

#[test]
fn pidns_translation_says_which_process_a_pid_is_here() {
    let Some(lines) = in_a_pid_namespace(&["--pidns-translation"]) else {
        return;
    };
    let expected = s(&[
        "Tracing pidns (pid PID2)",
        "fork() = 0",
        "getpid() = 1 /* PID2 in rtrace's PID NS */",
        "kill(1 /* PID2 in rtrace's PID NS */, 0) = 0",
        "fork() = 2 /* PID3 in rtrace's PID NS */",
        // The inner child is a zombie, still there; reaped, it is not.
        "wait4(2 /* PID3 in rtrace's PID NS */, NULL, 0, NULL) = 2",
        "getppid() = 0",
        "Process exited normally with code 0",
    ]);
    assert_eq!(lines, expected);
    // With -Y, the command of the right process (the one numbered so in
    // the tracee's namespace, not rtrace's pid 1); the outer pids too.
    let both = in_a_pid_namespace(&["-Y", "--decode-pids=pidns"]).expect("made once");
    assert_eq!(both[2], "getpid() = 1<pidns> /* PID2 in rtrace's PID NS */");
    assert_eq!(both[4], "fork() = 2<pidns> /* PID3 in rtrace's PID NS */");
    let same = in_a_pid_namespace(&["-e", "decode-pids=comm,pidns"]).expect("made once");
    assert_eq!(same, both);
}

#[test]
fn json_is_the_same_whatever_x_says() {
    let bin = fixture("calls_files");
    let args = |opts: &[&str]| -> Vec<serde_json::Value> {
        let dir = scratch(&format!("json{}", opts.join("")));
        let shown = dir.display().to_string();
        let mut all = vec!["--json", "-e", "trace=open,openat,lseek,close"];
        all.extend_from_slice(opts);
        let run = trace(&all, &[name(&bin), &shown]);
        assert_eq!(run.code(), Some(0), "{}", run.stderr());
        let _ = std::fs::remove_dir_all(&dir);
        run.trace
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|v| v["type"] == "call")
            .map(|v| serde_json::json!([v["name"], v["args"], v["result"], v["errno"]]))
            .collect()
    };
    let abbrev = args(&[]);
    assert!(
        abbrev.contains(&serde_json::json!([
            "open",
            {"pathname": "f1", "flags": {"value": 577, "flags": ["O_WRONLY", "O_CREAT", "O_TRUNC"]}, "mode": "0644"},
            3,
            null
        ])),
        "{abbrev:#?}"
    );
    assert!(
        abbrev.contains(&serde_json::json!([
            "lseek",
            {"fd": 3, "offset": -2, "whence": {"value": 2, "name": "SEEK_END"}},
            14,
            null
        ])),
        "{abbrev:#?}"
    );
    assert_eq!(args(&["-X", "raw"]), abbrev);
    assert_eq!(args(&["-X", "verbose"]), abbrev);
}

#[test]
fn bad_values_are_one_line_errors() {
    for (args, error) in [
        (
            &["-X", "bogus", "true"][..],
            "rtrace: invalid value 'bogus' for '--const-print-style <STYLE>': expected abbrev, raw or verbose (see rtrace --help)\n",
        ),
        (
            &["-V", "-X", "raw", "true"][..],
            "rtrace: the argument '--values...' cannot be used with '--const-print-style <STYLE>' (see rtrace --help)\n",
        ),
        (
            &["-e", "raw=nosuch", "true"][..],
            "rtrace: -e raw: unknown system call 'nosuch'\n",
        ),
        (
            &["-e", "abbrev=opn", "true"][..],
            "rtrace: -e abbrev: unknown system call 'opn' (did you mean open?)\n",
        ),
        (
            &["-e", "verbose=/[", "true"][..],
            "rtrace: -e verbose: bad regex '[': unclosed character class\n",
        ),
        (
            &["--decode-pids=pid", "true"][..],
            "rtrace: invalid value 'pid' for '--decode-pids <WHAT>': 'pid' is not comm, pidns, all or none (see rtrace --help)\n",
        ),
        (
            &["-e", "decode-pids=foo", "true"][..],
            "rtrace: -e decode-pids: 'foo' is not comm, pidns, all or none\n",
        ),
    ] {
        let out = rtrace_env().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), error, "{args:?}");
    }
}

/// The spelled fixture's lines with `opts`, from its marker on, its
/// children's pids written CHILD1 and CHILD2 (from clone's results) and
/// shmget's id ID.
fn spelled(opts: &[&str]) -> Vec<String> {
    spelled_by(&fixture("spelled"), opts)
}

/// [`spelled`] for the program `bin` (the 64-bit or the i386 build).
fn spelled_by(bin: &Path, opts: &[&str]) -> Vec<String> {
    let mut all = vec![
        "-e",
        "trace=write,fchmod,fstat,rt_sigprocmask,clone,wait4,waitid,statfs,shmget",
    ];
    all.extend_from_slice(opts);
    let run = trace(&all, &[name(bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let mut lines = run.after_marker();
    let result = |l: &String| -> Option<String> {
        let n: String = l[l.rfind(") = ")? + 4..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        (!n.is_empty()).then_some(n)
    };
    let children: Vec<String> = lines
        .iter()
        .filter(|l| l.starts_with("clone("))
        .filter_map(result)
        .collect();
    let ids: Vec<String> = lines
        .iter()
        .filter(|l| l.starts_with("shmget("))
        .filter_map(result)
        .collect();
    for line in &mut lines {
        for (i, pid) in children.iter().enumerate() {
            for before in ["(", "= ", ", ", "="] {
                *line = line.replace(
                    &format!("{before}{pid}"),
                    &format!("{before}CHILD{}", i + 1),
                );
            }
        }
        for id in &ids {
            *line = line.replace(&format!("= {id}"), "= ID");
        }
        // /proc's counts and flags are the machine's: its magic is not.
        if let Some(at) = line.find(", f_bsize=") {
            let end = line.find("}) = ").unwrap_or(line.len());
            line.replace_range(at..end, ", ..");
        }
    }
    lines
}

#[test]
fn x_styles_spell_the_values_decoders_build_themselves() {
    // strace 6.1 -X verbose: `st_mode=0100640 /* S_IFREG|0640 */`,
    // `flags=0x200 /* CLONE_FS */|17 /* SIGCHLD */`, `[10 /* USR1 */ 17
    // /* CHLD */]`, `0x200 /* IPC_CREAT */|0600`.
    assert_eq!(
        spelled(&["-X", "verbose"]),
        s(&[
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "fchmod(3, 0640) = 0",
            "fstat(3, {st_mode=0100640 /* S_IFREG|0640 */, st_size=0, ..}) = 0",
            "rt_sigprocmask(0 /* SIG_BLOCK */, [10 /* USR1 */ 17 /* CHLD */], NULL, 8) = 0",
            "clone(0x200 /* CLONE_FS */|17 /* SIGCHLD */, NULL, NULL, NULL, NULL) = CHILD1",
            "wait4(CHILD1, W_SIGNALED(9 /* SIGKILL */), 0, NULL) = CHILD1",
            "clone(17 /* SIGCHLD */, NULL, NULL, NULL, NULL) = CHILD2",
            "waitid(0x1 /* P_PID */, CHILD2, {si_signo=17 /* SIGCHLD */, si_code=0x1 /* CLD_EXITED */, \
             si_pid=CHILD2, si_uid=0, si_status=0, si_utime=0, si_stime=0}, 0x1000004 /* WEXITED|WNOWAIT */, NULL) = 0",
            "waitid(0x1 /* P_PID */, CHILD2, {si_signo=17 /* SIGCHLD */, si_code=0x1 /* CLD_EXITED */, \
             si_pid=CHILD2, si_uid=0, si_status=0, si_utime=0, si_stime=0}, 0x4 /* WEXITED */, NULL) = 0",
            "statfs(\"/proc\", {f_type=0x9fa0 /* PROC_SUPER_MAGIC */, ..}) = 0",
            "shmget(0 /* IPC_PRIVATE */, 4096, 0x200 /* IPC_CREAT */|0600) = ID",
            "Process exited normally with code 0",
        ])
    );
    // strace 6.1 -X raw: `st_mode=0100640`, `flags=0x200|17`, `[10 17]`,
    // `shmget(0, 4096, 0x200|0600)`.
    assert_eq!(
        spelled(&["-X", "raw"]),
        s(&[
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "fchmod(3, 0640) = 0",
            "fstat(3, {st_mode=0100640, st_size=0, ..}) = 0",
            "rt_sigprocmask(0, [10 17], NULL, 8) = 0",
            "clone(0x200|17, NULL, NULL, NULL, NULL) = CHILD1",
            "wait4(CHILD1, W_SIGNALED(9), 0, NULL) = CHILD1",
            "clone(17, NULL, NULL, NULL, NULL) = CHILD2",
            "waitid(0x1, CHILD2, {si_signo=17, si_code=0x1, si_pid=CHILD2, si_uid=0, si_status=0, si_utime=0, si_stime=0}, \
             0x1000004, NULL) = 0",
            "waitid(0x1, CHILD2, {si_signo=17, si_code=0x1, si_pid=CHILD2, si_uid=0, si_status=0, si_utime=0, si_stime=0}, \
             0x4, NULL) = 0",
            "statfs(\"/proc\", {f_type=0x9fa0, ..}) = 0",
            "shmget(0, 4096, 0x200|0600) = ID",
            "Process exited normally with code 0",
        ])
    );
    // The i386 program's calls spell the same.
    let m32 = common::fixture_m32("spelled");
    for style in ["raw", "verbose"] {
        assert_eq!(
            spelled_by(&m32, &["-X", style]),
            spelled(&["-X", style]),
            "{style}"
        );
    }
    // The default is unchanged.
    assert_eq!(
        spelled(&[]),
        s(&[
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "fchmod(3, 0640) = 0",
            "fstat(3, {st_mode=S_IFREG|0640, st_size=0, ..}) = 0",
            "rt_sigprocmask(SIG_BLOCK, [USR1 CHLD], NULL, 8) = 0",
            "clone(CLONE_FS|SIGCHLD, NULL, NULL, NULL, NULL) = CHILD1",
            "wait4(CHILD1, W_SIGNALED(SIGKILL), 0, NULL) = CHILD1",
            "clone(SIGCHLD, NULL, NULL, NULL, NULL) = CHILD2",
            "waitid(P_PID, CHILD2, {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=CHILD2, si_uid=0, \
             si_status=0, si_utime=0, si_stime=0}, WEXITED|WNOWAIT, NULL) = 0",
            "waitid(P_PID, CHILD2, {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=CHILD2, si_uid=0, \
             si_status=0, si_utime=0, si_stime=0}, WEXITED, NULL) = 0",
            "statfs(\"/proc\", {f_type=PROC_SUPER_MAGIC, ..}) = 0",
            "shmget(IPC_PRIVATE, 4096, IPC_CREAT|0600) = ID",
            "Process exited normally with code 0",
        ])
    );
}

#[test]
fn json_of_self_spelled_values_is_the_same_whatever_x_says() {
    let bin = fixture("spelled");
    let calls = |opts: &[&str]| -> Vec<serde_json::Value> {
        let mut all = vec![
            "--json",
            "-e",
            "trace=fstat,rt_sigprocmask,clone,wait4,shmget",
        ];
        all.extend_from_slice(opts);
        let run = trace(&all, &[name(&bin)]);
        assert_eq!(run.code(), Some(0), "{}", run.stderr());
        run.trace
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|v| v["type"] == "call")
            .map(|v| serde_json::json!([v["name"], v["args"]]))
            .map(|v| {
                // The children's pids differ from run to run.
                let mut v = v;
                if let Some(pid) = v[1].get_mut("pid") {
                    *pid = serde_json::Value::Null;
                }
                v
            })
            .collect()
    };
    let abbrev = calls(&[]);
    let fstat = abbrev.iter().find(|c| c[0] == "fstat").expect("fstat");
    assert_eq!(fstat[1]["statbuf"]["st_mode"], "S_IFREG|0640", "{fstat}");
    let clone = abbrev.iter().find(|c| c[0] == "clone").expect("clone");
    assert_eq!(
        clone[1]["flags"],
        serde_json::json!({"value": 0x211, "flags": ["CLONE_FS", "SIGCHLD"]}),
        "{clone}"
    );
    let mask = abbrev
        .iter()
        .find(|c| c[0] == "rt_sigprocmask")
        .expect("mask");
    assert_eq!(
        mask[1]["set"],
        serde_json::json!(["USR1", "CHLD"]),
        "{mask}"
    );
    assert_eq!(calls(&["-X", "raw"]), abbrev);
    assert_eq!(calls(&["-X", "verbose"]), abbrev);
}

/// strace -Y decorates the pids inside structs it knows (siginfo's
/// si_pid): `si_pid=516<spelled>` while the child is there, a plain
/// number once it is reaped.
#[test]
fn y_decorates_the_pids_inside_structs() {
    let lines = spelled(&["-Y"]);
    let waits: Vec<&String> = lines.iter().filter(|l| l.starts_with("waitid(")).collect();
    assert_eq!(
        waits,
        [
            "waitid(P_PID, CHILD2<spelled>, {si_signo=SIGCHLD, si_code=CLD_EXITED, \
             si_pid=CHILD2<spelled>, si_uid=0, si_status=0, si_utime=0, si_stime=0}, WEXITED|WNOWAIT, NULL) = 0",
            "waitid(P_PID, CHILD2<spelled>, {si_signo=SIGCHLD, si_code=CLD_EXITED, \
             si_pid=CHILD2, si_uid=0, si_status=0, si_utime=0, si_stime=0}, WEXITED, NULL) = 0",
        ]
    );
}

/// The lines of `bin` traced with `opts` that start with one of `calls`.
fn lines_of(bin: &str, opts: &[&str], calls: &[&str]) -> Vec<String> {
    let bin = fixture(bin);
    let run = trace(opts, &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    run.trace
        .lines()
        .filter(|l| calls.iter().any(|c| l.starts_with(c)))
        .map(String::from)
        .collect()
}

#[test]
fn x_verbose_spells_filters_interfaces_and_capability_sets() {
    // A capability set as rtrace writes it, after the mask: strace 6.1
    // writes `0xfeffffff /* 1<<CAP_CHOWN|... */` there (-X raw: the mask,
    // `inheritable=0`).
    let caps = |style: &str| {
        lines_of(
            "calls_proc",
            &["-X", style, "-e", "trace=capget"],
            &["capget({version=0x2"],
        )
    };
    assert_eq!(
        caps("verbose")[0],
        "capget({version=0x20080522 /* _LINUX_CAPABILITY_VERSION_3 */, pid=0}, \
         {effective=0x1fffeffffff /* ~[SYS_RESOURCE] */, permitted=0x1fffeffffff /* ~[SYS_RESOURCE] */, \
         inheritable=0 /* [] */}) = 0"
    );
    assert_eq!(
        caps("raw")[0],
        "capget({version=0x20080522, pid=0}, {effective=0x1fffeffffff, permitted=0x1fffeffffff, \
         inheritable=0}) = 0"
    );
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("not root: no packet or raw socket, the rest skipped");
        return;
    }
    let calls = [
        "socket(0x11",
        "setsockopt(4, 0x1 /* SOL_SOCKET */, 0x33",
        "setsockopt(3, 0x107 /* SOL_PACKET */, 0x1 ",
        "setsockopt(-1, 0x107 /* SOL_PACKET */, 0x12",
        "setsockopt(6, 0xff",
    ];
    assert_eq!(
        lines_of("sock_filters", &["-X", "verbose"], &calls),
        [
            // strace 6.1: `htons(ETH_P_ALL)` is `"\x00\x03" /* htons(ETH_P_ALL) */`.
            "socket(0x11 /* AF_PACKET */, 0x3 /* SOCK_RAW */, htons(0x3 /* ETH_P_ALL */)) = 3",
            "setsockopt(4, 0x1 /* SOL_SOCKET */, 0x33 /* SO_ATTACH_REUSEPORT_CBPF */, \
             {len=1, filter=[BPF_STMT(0x6 /* BPF_RET */|0 /* BPF_K */, 0)]}, 16) = 0",
            // strace 6.1: `sll_ifindex=1 /* if_nametoindex("lo") */`.
            "setsockopt(3, 0x107 /* SOL_PACKET */, 0x1 /* PACKET_ADD_MEMBERSHIP */, \
             {mr_ifindex=1 /* if_nametoindex(\"lo\") */, mr_type=0x1 /* PACKET_MR_PROMISC */, \
             mr_alen=0, mr_address=}, 16) = 0",
            "setsockopt(-1, 0x107 /* SOL_PACKET */, 0x12 /* PACKET_FANOUT */, \
             [7|(0 /* PACKET_FANOUT_HASH */|0x8000 /* PACKET_FANOUT_FLAG_DEFRAG */)<<16], 4) \
             = -1 [EBADF]",
            // A protocol with no name: the number alone.
            "socket(0x11 /* AF_PACKET */, 0x2 /* SOCK_DGRAM */, htons(0x0)) = 5",
            "setsockopt(6, 0xff /* SOL_RAW */, 0x1 /* ICMP_FILTER */, \
             ~[0 /* ICMP_ECHOREPLY */ 3 /* ICMP_DEST_UNREACH */], 4) = 0",
        ]
    );
    // The default is unchanged.
    let calls = [
        "socket(AF_PACKET, SOCK_RAW",
        "setsockopt(3, SOL_PACKET, PACKET_ADD_MEMBERSHIP",
    ];
    assert_eq!(
        lines_of("sock_filters", &[], &calls),
        [
            "socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL)) = 3",
            "setsockopt(3, SOL_PACKET, PACKET_ADD_MEMBERSHIP, {mr_ifindex=if_nametoindex(\"lo\"), \
             mr_type=PACKET_MR_PROMISC, mr_alen=0, mr_address=}, 16) = 0",
        ]
    );
}

#[test]
fn x_styles_spell_netlink_bit_sets() {
    // inet_diag's request: its extension and state sets are masks, as
    // strace prints flag sets: `0x400 /* 1<<TCP_LISTEN */`, raw `0x400`.
    let request = |style: &str| -> String {
        lines_of("netlink", &["-X", style], &["sendmsg(4, "])
            .into_iter()
            .find(|l| l.contains("idiag_states"))
            .expect("the inet_diag request")
    };
    // The addresses as strace spells them: bytes under -X raw, both under
    // -X verbose.
    let line = |family: &str, proto: &str, ext: &str, states: &str, addr: &str| {
        format!(
            "sendmsg(4, {{msg_name={{sa_family={family}, nl_pid=0, nl_groups=0x0}}, msg_namelen=12, \
             msg_iov=[{{iov_base=[{{nlmsg_len=72, nlmsg_type={proto}, {ext}, {states}, \
             id={{idiag_sport=htons(0), idiag_dport=htons(0), idiag_src={addr}, \
             idiag_dst={addr}, idiag_if=0, idiag_cookie=[0, 0]}}}}], iov_len=72}}], \
             msg_iovlen=1, msg_control=NULL, msg_controllen=0, msg_flags=0}}, 0) = 72"
        )
    };
    assert_eq!(
        request("verbose"),
        line(
            "0x10 /* AF_NETLINK */",
            "0x14 /* SOCK_DIAG_BY_FAMILY */, nlmsg_flags=0x301 /* NLM_F_REQUEST|NLM_F_DUMP */, \
             nlmsg_seq=6, nlmsg_pid=0}, {sdiag_family=0x2 /* AF_INET */, \
             sdiag_protocol=0x6 /* IPPROTO_TCP */",
            "idiag_ext=0x1 /* 1<<(INET_DIAG_MEMINFO-1) */",
            "idiag_states=0x400 /* 1<<TCP_LISTEN */",
            "\"\\0\\0\\0\\0\" /* inet_addr(\"0.0.0.0\") */",
        )
    );
    assert_eq!(
        request("raw"),
        line(
            "0x10",
            "0x14, nlmsg_flags=0x301, nlmsg_seq=6, nlmsg_pid=0}, {sdiag_family=0x2, \
             sdiag_protocol=0x6",
            "idiag_ext=0x1",
            "idiag_states=0x400",
            "\"\\0\\0\\0\\0\"",
        )
    );
}
