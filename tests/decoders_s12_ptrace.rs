//! Session 12 (issue 25, helper ptrace): ptrace's requests, the wait
//! calls, and addresses rtrace must not read, decoded as strace 6 shows
//! them. Each fixture makes its calls with exact arguments and the whole
//! lines are compared: `#` stands for a number the machine decides (a
//! child's pid, a uid), `ADDR` for a tracee address. ptrace's requests
//! are traced by both engines, to the same lines: the BPF engine copies
//! what each request's decoder reads (`service::ptrace::memory`).

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

/// x86_64's general registers, each `name=*` (values the machine decides).
fn any_regs() -> String {
    let names = [
        "r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8", "rax", "rcx", "rdx",
        "rsi", "rdi", "orig_rax", "rip", "cs", "eflags", "rsp", "ss", "fs_base", "gs_base", "ds",
        "es", "fs", "gs",
    ];
    let fields: Vec<String> = names.iter().map(|n| format!("{n}=*")).collect();
    format!("{{{}}}", fields.join(", "))
}

/// `n` zero words and `..` past the array limit.
fn zeros(n: usize, cut: bool) -> String {
    let mut words = vec!["0"; n];
    if cut {
        words.push("..");
    }
    words.join(", ")
}

/// ptrace's requests: on a pid that does not exist, what each would give
/// the kernel (registers, a register set cut to its length, a signal mask,
/// the PEEKSIGINFO and SECCOMP_GET_METADATA structs, siginfos with their
/// fault and seccomp members); x86's register requests take no `addr`;
/// PTRACE_KILL takes only the pid. On a stopped child, what the kernel
/// wrote: the register set and the length it left, the siginfo of the
/// stop, the child's mask, its (empty) queue.
#[test]
fn ptrace_requests_as_strace_shows_them() {
    for engine in [&[][..], &["--bpf"]] {
        ptrace_requests_under(engine);
    }
}

/// [`ptrace_requests_as_strace_shows_them`] under one engine.
fn ptrace_requests_under(engine: &[&str]) {
    let lines = run("s12_ptrace", engine);
    let regs = any_regs();
    let st_space = format!("0, 0xabc, {}", zeros(30, false));
    let expected = [
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]".to_string(),
        "ptrace(PTRACE_SETREGS, 1073741808, {r15=0x1000, r14=0x1001, r13=0x1002, r12=0x1003, \
         rbp=0x1004, rbx=0x1005, r11=0x1006, r10=0x1007, r9=0x1008, r8=0x1009, rax=0x100a, \
         rcx=0x100b, rdx=0x100c, rsi=0x100d, rdi=0x100e, orig_rax=0x100f, rip=0x1010, cs=0x1011, \
         eflags=0x1012, rsp=0x1013, ss=0x1014, fs_base=0x1015, gs_base=0x1016, ds=0x1017, \
         es=0x1018, fs=0x1019, gs=0x101a}) = -1 [ESRCH]"
            .to_string(),
        format!(
            "ptrace(PTRACE_SETFPREGS, 1073741808, {{cwd=0x37f, swd=0, ftw=0, fop=0, rip=0, rdp=0, \
             mxcsr=0x1f80, mxcr_mask=0, st_space=[{st_space}], xmm_space=[{}], padding=[{}]}}) \
             = -1 [ESRCH]",
            zeros(32, true),
            zeros(24, false)
        ),
        "ptrace(PTRACE_SETREGSET, 1073741808, NT_PRSTATUS, {iov_base={r15=0x1000, r14=0x1001}, \
         iov_len=16}) = -1 [ESRCH]"
            .to_string(),
        "ptrace(PTRACE_SETREGSET, 1073741808, NT_X86_XSTATE, {iov_base=&ADDR, iov_len=16}) \
         = -1 [ESRCH]"
            .to_string(),
        "ptrace(PTRACE_SETSIGMASK, 1073741808, 8, [USR1]) = -1 [ESRCH]".to_string(),
        "ptrace(PTRACE_PEEKSIGINFO, 1073741808, {off=0, flags=PTRACE_PEEKSIGINFO_SHARED, nr=4}, \
         &ADDR) = -1 [ESRCH]"
            .to_string(),
        "ptrace(PTRACE_SECCOMP_GET_METADATA, 1073741808, 16, {filter_off=3}) = -1 [ESRCH]"
            .to_string(),
        "ptrace(PTRACE_SETSIGINFO, 1073741808, 0x0, {si_signo=SIGSEGV, si_code=SEGV_BNDERR, \
         si_addr=&0x1234, si_lower=&0x1000, si_upper=&0x2000}) = -1 [ESRCH]"
            .to_string(),
        "ptrace(PTRACE_SETSIGINFO, 1073741808, 0x0, {si_signo=SIGSEGV, si_code=SEGV_PKUERR, \
         si_addr=&0x1234, si_pkey=7}) = -1 [ESRCH]"
            .to_string(),
        "ptrace(PTRACE_SETSIGINFO, 1073741808, 0x0, {si_signo=SIGBUS, si_code=BUS_MCEERR_AR, \
         si_addr=&0x1234, si_addr_lsb=0xc}) = -1 [ESRCH]"
            .to_string(),
        "ptrace(PTRACE_SETSIGINFO, 1073741808, 0x0, {si_signo=SIGSYS, si_code=SYS_SECCOMP, \
         si_call_addr=&0x1234, si_syscall=__NR_read, si_arch=AUDIT_ARCH_X86_64}) = -1 [ESRCH]"
            .to_string(),
        "ptrace(PTRACE_KILL, 1073741808) = -1 [ESRCH]".to_string(),
        format!(
            "ptrace(PTRACE_GETREGSET, #, NT_PRSTATUS, {{iov_base={regs}, iov_len=432 => 216}}) = 0"
        ),
        "ptrace(PTRACE_GETREGSET, #, NT_PRSTATUS, {iov_base={r15=*}, iov_len=8}) = 0".to_string(),
        format!("ptrace(PTRACE_GETREGS, #, {regs}) = 0"),
        "ptrace(PTRACE_GETSIGINFO, #, 0x0, {si_signo=SIGSTOP, si_code=SI_TKILL, si_pid=#, \
         si_uid=#}) = 0"
            .to_string(),
        "ptrace(PTRACE_GETSIGMASK, #, 8, [CHLD]) = 0".to_string(),
        "ptrace(PTRACE_PEEKSIGINFO, #, {off=0, flags=0, nr=4}, []) = 0".to_string(),
        "ptrace(PTRACE_KILL, #) = 0".to_string(),
        "wait4(#, W_SIGNALED(SIGKILL), 0, NULL) = #".to_string(),
        "exit_group(0)".to_string(),
        "Process exited normally with code 0".to_string(),
    ];
    assert_lines(&lines, &expected);
}

/// The JSON form carries the same values: the register set's members and
/// the length the kernel left.
#[test]
fn ptrace_regset_in_json() {
    for engine in [&[][..], &["--bpf"]] {
        ptrace_regset_in_json_under(engine);
    }
}

/// [`ptrace_regset_in_json`] under one engine.
fn ptrace_regset_in_json_under(engine: &[&str]) {
    let bin = common::fixture("s12_ptrace");
    let mut args = vec!["--json"];
    args.extend_from_slice(engine);
    let run = trace(&args, &[bin.to_str().unwrap()]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let calls: Vec<serde_json::Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .filter(|v: &serde_json::Value| v["name"] == "ptrace")
        .collect();
    let set = calls
        .iter()
        .find(|c| c["args"]["request"]["name"] == "PTRACE_SETREGSET")
        .unwrap_or_else(|| panic!("no SETREGSET: {calls:?}"));
    assert_eq!(set["args"]["addr"]["name"], "NT_PRSTATUS", "{set}");
    assert_eq!(set["args"]["data"]["iov_base"]["r14"], 0x1001, "{set}");
    assert_eq!(set["args"]["data"]["iov_len"], 16, "{set}");
    let got = calls
        .iter()
        .find(|c| c["args"]["request"]["name"] == "PTRACE_GETREGSET")
        .unwrap_or_else(|| panic!("no GETREGSET: {calls:?}"));
    assert_eq!(got["args"]["data"]["iov_len"]["before"], 432, "{got}");
    assert_eq!(got["args"]["data"]["iov_len"]["value"], 216, "{got}");
    assert_eq!(got["args"]["data"]["iov_base"]["cs"], 0x33, "{got}");
}

/// An i386 program's registers: i386's layouts (`ebx`..`xss`, the FPU's
/// `twd`..`fos` and 20 words of `st_space`), a set cut to its length.
#[test]
fn i386_register_requests() {
    for engine in [&[][..], &["--bpf"]] {
        i386_register_requests_under(engine);
    }
}

/// [`i386_register_requests`] under one engine.
fn i386_register_requests_under(engine: &[&str]) {
    let bin = common::fixture_m32("s12_ptrace32");
    let run = trace(engine, &[bin.to_str().unwrap()]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_lines(
        &run.after_marker(),
        &[
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]".to_string(),
            "ptrace(PTRACE_SETREGS, 1073741808, {ebx=0x1000, ecx=0x1001, edx=0x1002, esi=0x1003, \
             edi=0x1004, ebp=0x1005, eax=0x1006, xds=0x1007, xes=0x1008, xfs=0x1009, xgs=0x100a, \
             orig_eax=0x100b, eip=0x100c, xcs=0x100d, eflags=0x100e, esp=0x100f, xss=0x1010}) \
             = -1 [ESRCH]"
                .to_string(),
            format!(
                "ptrace(PTRACE_SETFPREGS, 1073741808, {{cwd=0x37f, swd=0, twd=0, fip=0, fcs=0, \
                 foo=0, fos=0, st_space=[{}]}}) = -1 [ESRCH]",
                zeros(20, false)
            ),
            "ptrace(PTRACE_SETREGSET, 1073741808, NT_PRSTATUS, {iov_base={ebx=0x1000, \
             ecx=0x1001}, iov_len=8}) = -1 [ESRCH]"
                .to_string(),
            "exit_group(0)".to_string(),
            "Process exited normally with code 0".to_string(),
        ],
    );
}
