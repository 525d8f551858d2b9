//! A traced program's own use of seccomp under rtrace's seccomp fast path:
//! a filter of its own must not hide calls from the trace (point 7 of
//! issue 20), and the fast path must not be seen (point 8): PR_GET_SECCOMP
//! answers as untraced and strict mode works exactly as untraced. Each run
//! with the fast path is compared with one that steps every call
//! (`--no-seccomp-bpf`, where the kernel itself answers) and with the
//! program run untraced.

mod common;

use common::{Emulator, fixture, fixture_m32, name, rtrace_env, s, scratch_path, trace};
use std::path::Path;
use std::process::{Command, Stdio};

/// The two ways of tracing: the automatic fast path (`-f` with a
/// selection) and stepping every call.
const MODES: [&[&str]; 2] = [&[], &["--no-seccomp-bpf"]];

/// The program's own stdout and wait status, untraced.
fn untraced(bin: &Path, args: &[&str]) -> (String, std::process::ExitStatus) {
    let out = Command::new(bin)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run the fixture");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status,
    )
}

#[test]
fn a_filter_that_fails_a_call_with_eperm_does_not_hide_it() {
    let bin = fixture("seccomp_own");
    let (stdout, status) = untraced(&bin, &["errno"]);
    assert_eq!(
        stdout,
        "main: Operation not permitted\nchild: Operation not permitted\n"
    );
    assert!(status.success());
    for mode in MODES {
        let args = [&["-f", "-e", "trace=getppid,write"][..], mode].concat();
        let run = trace(&args, &[name(&bin), "errno"]);
        assert_eq!(run.code(), Some(0), "{mode:?}: {}", run.stderr());
        assert_eq!(String::from_utf8_lossy(&run.output.stdout), stdout);
        assert_eq!(
            run.after_marker(),
            s(&[
                "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
                "getppid() = -1 [EPERM]",
                "write(1, \"main: Operation not permitted\\n\", 30) = 30",
                "PID2| Tracing seccomp_own errno (pid PID2)",
                "PID2| getppid() = -1 [EPERM]",
                "PID2| write(1, \"child: Operation not permitted\\n\", 31) = 31",
                "PID2| Process exited normally with code 0",
                "PID1' ** SIGCHLD **",
                "Process exited normally with code 0",
            ]),
            "{mode:?}"
        );
    }
}

#[test]
fn a_filter_that_traps_a_call_does_not_hide_it() {
    let bin = fixture("seccomp_own");
    let (stdout, _) = untraced(&bin, &["trap"]);
    assert_eq!(stdout, "SIGSYS\nmain: ok\n");
    for mode in MODES {
        let args = [&["-f", "-e", "trace=getppid,write"][..], mode].concat();
        let run = trace(&args, &[name(&bin), "trap"]);
        assert_eq!(run.code(), Some(0), "{mode:?}: {}", run.stderr());
        assert_eq!(String::from_utf8_lossy(&run.output.stdout), stdout);
        // SECCOMP_RET_TRAP rolls the call back: its result register holds
        // the call's number (110) when the handler returns.
        assert_eq!(
            run.after_marker(),
            s(&[
                "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
                "getppid() = 110",
                "** SIGSYS **",
                "write(1, \"SIGSYS\\n\", 7) = 7",
                "write(1, \"main: ok\\n\", 9) = 9",
                "Process exited normally with code 0",
            ]),
            "{mode:?}"
        );
    }
}

/// A thread spinning in its own code (resumed with PTRACE_CONT under the
/// fast path) gets the filter from another thread's TSYNC install: it is
/// moved to full syscall stops too, before its next call.
#[test]
fn a_filter_synchronised_to_every_thread_does_not_hide_their_calls() {
    let bin = fixture("seccomp_own");
    let (stdout, _) = untraced(&bin, &["tsync"]);
    assert_eq!(
        stdout,
        "thread: Operation not permitted\nmain: Operation not permitted\n"
    );
    for mode in MODES {
        let args = [&["-f", "-e", "trace=getppid"][..], mode].concat();
        let run = trace(&args, &[name(&bin), "tsync"]);
        assert_eq!(run.code(), Some(0), "{mode:?}: {}", run.stderr());
        assert_eq!(String::from_utf8_lossy(&run.output.stdout), stdout);
        // The thread's exit and the main thread's call come in either
        // order: the thread's lines first, then the main thread's.
        let lines = run.lines();
        let thread: Vec<&String> = lines.iter().filter(|l| l.starts_with("PID2")).collect();
        assert_eq!(
            thread,
            [
                "PID2| Tracing seccomp_own tsync (pid PID2)",
                "PID2| getppid() = -1 [EPERM]",
                "PID2| Process exited normally with code 0",
            ],
            "{mode:?}: {lines:#?}"
        );
        let main: Vec<String> = lines
            .iter()
            .filter(|l| !l.starts_with("PID2"))
            .cloned()
            .collect();
        assert_eq!(
            own_lines(&main),
            [
                "Tracing seccomp_own tsync (pid PID1)",
                "getppid() = -1 [EPERM]",
                "Process exited normally with code 0",
            ],
            "{mode:?}: {lines:#?}"
        );
    }
}

/// Run `bin` with `args` untraced and with `-f -e trace=SET` in both
/// modes: the program's output and wait status must be the same in all
/// three; returns the traces by mode.
fn strict_runs(bin: &Path, args: &[&str], set: &str) -> Vec<Vec<String>> {
    let (stdout, status) = untraced(bin, args);
    let mut traces = Vec::new();
    for mode in MODES {
        let rtrace_args = [&["-f", "-e", set][..], mode].concat();
        let run = trace(&rtrace_args, &[&[name(bin)][..], args].concat());
        assert_eq!(
            String::from_utf8_lossy(&run.output.stdout),
            stdout,
            "{mode:?} {args:?}: {}",
            run.stderr()
        );
        // rtrace ends as its command did (killed by the same signal).
        assert_eq!(run.output.status, status, "{mode:?} {args:?}");
        traces.push(run.after_marker());
    }
    traces
}

#[test]
fn pr_get_seccomp_and_strict_mode_as_untraced() {
    let bin = fixture("seccomp_strict");
    for (how, set_line) in [
        ("prctl", "prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT) = 0"),
        ("seccomp", "seccomp(SECCOMP_SET_MODE_STRICT, 0, NULL) = 0"),
    ] {
        let (stdout, status) = untraced(&bin, &[how]);
        assert_eq!(stdout, "mode 0\nstrict\n");
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(libc::SIGKILL));
        let traces = strict_runs(&bin, &[how], "trace=write,prctl,seccomp,getppid");
        for lines in traces {
            assert_eq!(
                lines,
                s(&[
                    "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
                    "prctl(PR_GET_SECCOMP) = 0",
                    "write(1, \"mode 0\\n\", 7) = 7",
                    set_line,
                    "write(1, \"strict\\n\", 7) = 7",
                    "getppid() = <..>",
                    "Process terminated from signal SIGKILL",
                ]),
                "{how}"
            );
        }
        // Only writes selected: the fast path still stops the rest.
        for lines in strict_runs(&bin, &[how], "trace=write") {
            assert_eq!(
                lines,
                s(&[
                    "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
                    "write(1, \"mode 0\\n\", 7) = 7",
                    "write(1, \"strict\\n\", 7) = 7",
                    "Process terminated from signal SIGKILL",
                ]),
                "{how}"
            );
        }
    }
}

/// Strict mode also makes the time stamp counter fault.
#[test]
fn strict_mode_makes_rdtsc_fault_as_untraced() {
    let bin = fixture("seccomp_strict");
    let (stdout, status) = untraced(&bin, &["prctl", "tsc"]);
    assert_eq!(stdout, "mode 0\nstrict\n");
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(libc::SIGSEGV));
    for lines in strict_runs(&bin, &["prctl", "tsc"], "trace=write") {
        assert_eq!(
            lines,
            s(&[
                "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
                "write(1, \"mode 0\\n\", 7) = 7",
                "write(1, \"strict\\n\", 7) = 7",
                "** SIGSEGV **",
                "Process terminated from signal SIGSEGV",
            ])
        );
    }
}

/// Strict mode is a thread's own: its forbidden call ends that thread
/// alone, as killed by SIGKILL, and the process goes on.
#[test]
fn strict_mode_in_one_thread_ends_that_thread_alone() {
    let bin = fixture("seccomp_strict");
    let (stdout, status) = untraced(&bin, &["seccomp", "thread"]);
    assert_eq!(stdout, "mode 0\nstrict\nmain alive\n");
    assert!(status.success());
    for lines in strict_runs(&bin, &["seccomp", "thread"], "trace=write,getppid") {
        // The thread's death and the main thread's write come in either
        // order: each task's lines are compared on their own.
        let (thread, main): (Vec<String>, Vec<String>) =
            lines.into_iter().partition(|l| l.starts_with("PID2"));
        assert_eq!(
            thread,
            s(&[
                "PID2| Tracing seccomp_strict seccomp thread (pid PID2)",
                "PID2| write(1, \"mode 0\\n\", 7) = 7",
                "PID2| write(1, \"strict\\n\", 7) = 7",
                "PID2| getppid() = <..>",
                "PID2| Process terminated from signal SIGKILL",
            ])
        );
        assert_eq!(
            own_lines(&main),
            s(&[
                "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
                "write(1, \"main alive\\n\", 11) = 11",
                "Process exited normally with code 0",
            ])
        );
    }
}

/// One task's lines without the prefix that says whose they are, and
/// a call split by another task's line joined again (its `<..>` half
/// dropped, its resumed half unmarked).
fn own_lines(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| !l.ends_with(" = <..>"))
        .map(|l| {
            let l = ["PID1| ", "PID1' ", "PID1'*"]
                .iter()
                .find_map(|p| l.strip_prefix(p))
                .unwrap_or(l);
            l.to_string()
        })
        .collect()
}

/// An i386 program: strict mode allows i386's read, write, exit and
/// sigreturn by their own numbers.
#[test]
fn strict_mode_of_an_i386_program_as_untraced() {
    let bin = fixture_m32("seccomp_strict");
    for lines in strict_runs(&bin, &["prctl"], "trace=write,prctl,getppid") {
        assert_eq!(
            lines,
            s(&[
                "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
                "prctl(PR_GET_SECCOMP) = 0",
                "write(1, \"mode 0\\n\", 7) = 7",
                "prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT) = 0",
                "write(1, \"strict\\n\", 7) = 7",
                "getppid() = <..>",
                "Process terminated from signal SIGKILL",
            ])
        );
    }
}

/// The capture lines of a real capture program (tcpdump, which fetches
/// with MON_IOCX_MFETCH) under the usbmon emulation's launcher, whose
/// user-notification filter outranks rtrace's: `-f -e trace=ioctl` shows
/// them under the fast path as when every call is stepped.
#[test]
fn ioctls_under_the_usbmon_launcher_with_the_fast_path() {
    let tcpdump = ["/usr/bin", "/usr/sbin", "/bin", "/sbin"]
        .iter()
        .map(|d| Path::new(d).join("tcpdump"))
        .find(|p| p.is_file())
        .expect(
            "tcpdump is not installed: this test runs the real program \
             (Debian package tcpdump; .ci/run installs it)",
        );
    fixture("usbmon_run");
    let recording = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/usbmon/qemu-xhci-0u.pcap"
    );
    let mut fetches = Vec::new();
    for mode in MODES {
        let emu = Emulator::start("usbmon_emu", &[recording, "--timeout", "120"]);
        let dir = scratch_path("own-seccomp", "tcpdump");
        std::fs::create_dir_all(&dir).unwrap();
        let trace_file = dir.join("trace.txt");
        let out = rtrace_env()
            .args(["-f", "--kill-on-exit", "-e", "trace=ioctl"])
            .args(mode)
            .arg("-o")
            .arg(&trace_file)
            .arg("usbmon_run")
            .arg(&tcpdump)
            .args(["-i", "usbmon0", "-c", "34", "-w"])
            .arg(dir.join("capture.pcap"))
            .env("USBMON_EMU_SOCKET", emu.socket())
            .env("HOME", &dir)
            .stdin(Stdio::null())
            .output()
            .expect("run rtrace");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{mode:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let lines = common::normalise(&std::fs::read_to_string(&trace_file).unwrap());
        let _ = std::fs::remove_dir_all(&dir);
        let mfetch: Vec<String> = lines
            .into_iter()
            .filter(|l| l.contains("MON_IOCX_MFETCH"))
            .collect();
        // 34 events: 32, then the last 2, released by the fetch after.
        assert_eq!(mfetch.len(), 2, "{mode:?}: {mfetch:#?}");
        assert!(
            mfetch[0].ends_with("= 0 {nfetch=32, nflush=0, offvec=[0, 64, 128, 192, 256, 320, 448, 512, 576, 640, 832, 960, 1024, 1088, 5248, 5312, 5440, 5568, 5632, 5696, 9856, 9920, 10048, 10176, 10240, 10304, 14464, 14528, 14656, 14784, 14848, 14912]}"),
            "{mode:?}: {mfetch:#?}"
        );
        fetches.push(mfetch);
    }
    assert_eq!(fetches[0], fetches[1]);
}

/// rtrace's filter needs no-new-privs without CAP_SYS_ADMIN, which the
/// program would not have untraced: PR_GET_NO_NEW_PRIVS answers 0 until
/// the program sets it, and a filter install before that fails with
/// EACCES, as untraced. Run without CAP_SYS_ADMIN (root drops it from its
/// bounding set) and, as root, with it, where rtrace leaves no-new-privs
/// unset.
#[test]
fn no_new_privs_as_untraced() {
    let bin = fixture("seccomp_own");
    // SAFETY: geteuid reads nothing of ours.
    let root = unsafe { libc::geteuid() } == 0;
    let mut wrappers: Vec<&[&str]> = vec![&[]];
    if root {
        wrappers.push(&[
            "setpriv",
            "--bounding-set",
            "-sys_admin",
            "--inh-caps",
            "-sys_admin",
            "--",
        ]);
    }
    for wrapper in wrappers {
        // Without CAP_SYS_ADMIN the first install needs no-new-privs.
        let privileged = root && wrapper.is_empty();
        let first = if privileged { "ok" } else { "EACCES" };
        let run = |prefix: &[&str], tail: &[&str]| {
            let all = [prefix, tail].concat();
            let out = Command::new(all[0])
                .args(&all[1..])
                .env_clear()
                .env(
                    "PATH",
                    format!("{}:/usr/bin:/bin", common::fixture_dir().display()),
                )
                .env("LC_ALL", "C")
                .stdin(Stdio::null())
                .output()
                .expect("run");
            assert!(
                out.status.success(),
                "{all:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        let stdout = run(wrapper, &[bin.to_str().unwrap(), "nnp"]);
        assert_eq!(
            stdout,
            format!("nnp 0, install: {first}\nnnp 1, install: ok\nmain: Operation not permitted\n"),
            "{wrapper:?}"
        );
        for mode in MODES {
            let file = scratch_path("own-seccomp", "nnp");
            let rtrace = env!("CARGO_BIN_EXE_rtrace");
            let args = [
                &[rtrace, "-o", file.to_str().unwrap()][..],
                &["-f", "-e", "trace=prctl,seccomp,write"],
                mode,
                &["seccomp_own", "nnp"],
            ]
            .concat();
            assert_eq!(run(wrapper, &args), stdout, "{wrapper:?} {mode:?}");
            let lines = common::normalise(&std::fs::read_to_string(&file).unwrap());
            let _ = std::fs::remove_file(&file);
            let start = lines.iter().position(|l| l.contains("\"BEGIN\"")).unwrap();
            let failed = if privileged { "0" } else { "-1 [EACCES]" };
            // The fixture's program (the normaliser takes its 8-digit
            // AUDIT_ARCH_X86_64 for an address).
            let install = "seccomp(SECCOMP_SET_MODE_FILTER, 0, {len=7, filter=[\
                 BPF_STMT(BPF_LD|BPF_W|BPF_ABS, 0x4), BPF_JUMP(BPF_JMP|BPF_K|BPF_JEQ, ADDR, 0x1, 0), \
                 BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_ALLOW), BPF_STMT(BPF_LD|BPF_W|BPF_ABS, 0), \
                 BPF_JUMP(BPF_JMP|BPF_K|BPF_JEQ, 0x6e, 0, 0x1), \
                 BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_ERRNO|0x1), \
                 BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_ALLOW)]})";
            let first_line = format!(
                "write(1, \"nnp 0, install: {first}\\n\", {}) = {}",
                17 + first.len(),
                17 + first.len()
            );
            assert_eq!(
                lines[start..],
                [
                    "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
                    "prctl(PR_GET_NO_NEW_PRIVS) = 0",
                    &format!("{install} = {failed}"),
                    &first_line,
                    "prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) = 0",
                    "prctl(PR_GET_NO_NEW_PRIVS) = 1",
                    &format!("{install} = 0"),
                    "write(1, \"nnp 1, install: ok\\n\", 19) = 19",
                    "write(1, \"main: Operation not permitted\\n\", 30) = 30",
                    "Process exited normally with code 0",
                ],
                "{wrapper:?} {mode:?}"
            );
        }
    }
}
