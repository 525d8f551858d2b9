//! Session 12 (issue 25, helper ptrace): ptrace's requests, the wait
//! calls, and addresses rtrace must not read, decoded as strace 6 shows
//! them. Each fixture makes its calls with exact arguments and the whole
//! lines are compared: `#` stands for a number the machine decides (a
//! child's pid, a uid), `ADDR` for a tracee address.

mod common;

use common::{assert_lines, trace};

/// Run fixture `name` under rtrace with `args`; the lines from the marker.
fn run(name: &str, args: &[&str]) -> Vec<String> {
    let bin = common::fixture(name);
    let run = trace(args, &[bin.to_str().unwrap()]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    run.after_marker()
}

/// process_vm_writev's remote ranges and kexec_load's segments are
/// addresses (plain `0x`, never `&`: rtrace does not mean to read them);
/// an unreadable local buffer with a huge length leaves the next ones
/// their bytes; wait4 names bit 2 WSTOPPED; waitid's siginfo has
/// si_utime and si_stime.
#[test]
fn addresses_not_read_and_wait_calls() {
    let lines = run("s12_waits", &[]);
    assert_lines(
        &lines,
        &[
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "process_vm_writev(0, [{iov_base=&ADDR, iov_len=18446744073709551615}, \
             {iov_base=\"abc\", iov_len=3}], 2, [{iov_base=0x10000, iov_len=4}], 1, 0x1) \
             = -1 [EINVAL]",
            "kexec_load(0x1000, 3, [{buf=0x2000, bufsz=16, mem=0x100000, memsz=4096}, \
             {buf=NULL, bufsz=0, mem=0x200000, memsz=4096}, &ADDR], KEXEC_ARCH_DEFAULT) \
             = -1 [E*]",
            "wait4(#, W_STOPPED(SIGSTOP), WSTOPPED, NULL) = #",
            "kill(#, SIGKILL) = 0",
            "waitid(P_PID, #, {si_signo=SIGCHLD, si_code=CLD_KILLED, si_pid=#, si_uid=#, \
             si_status=SIGKILL, si_utime=0, si_stime=0}, WEXITED, NULL) = 0",
            "exit_group(0)",
            "Process exited normally with code 0",
        ],
    );
}
