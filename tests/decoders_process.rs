//! Snapshot tests of the process, signal, time and polling decoders: each
//! fixture makes exact calls (successes and failures) and the whole
//! rendered lines are compared. Values the machine decides (child pids,
//! uids, CPUs, clock readings) are substituted or matched by pattern: `#`
//! in an expected line stands for a decimal number, `*` for any text.

mod common;

use common::{assert_lines, fixture, matches_digits, name, trace};

/// Replace the whole number `from` by `to` in every line.
fn replace_number(lines: &mut [String], from: &str, to: &str) {
    for line in lines.iter_mut() {
        let mut out = String::new();
        let b = line.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) {
                let len = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
                let word = &line[i..i + len];
                let next_alnum = b.get(i + len).is_some_and(|c| c.is_ascii_alphanumeric());
                out.push_str(if word == from && !next_alnum {
                    to
                } else {
                    word
                });
                i += len;
            } else {
                out.push(b[i] as char);
                i += 1;
            }
        }
        *line = out;
    }
}

/// Name the untraced children by the results of the clone calls that
/// made them: CHILD1, CHILD2...
fn name_children(lines: &mut [String]) {
    let pids: Vec<String> = lines
        .iter()
        .filter(|l| l.starts_with("clone"))
        .filter_map(|l| {
            let at = l.rfind(") = ")?;
            let n: String = l[at + 4..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            (!n.is_empty()).then_some(n)
        })
        .collect();
    for (i, pid) in pids.iter().enumerate() {
        replace_number(lines, pid, &format!("CHILD{}", i + 1));
    }
}

fn uid() -> u32 {
    // SAFETY: getuid cannot fail.
    unsafe { libc::getuid() }
}

/// This process's CPU mask as sched_getaffinity(0, 128, ...) returns it to
/// the traced child (which inherits it): the byte count and `[0 1 ...]`.
fn cpus() -> (i64, String) {
    let mut mask = [0u8; 128];
    // SAFETY: the buffer is 128 bytes, as passed.
    let n = unsafe { libc::syscall(libc::SYS_sched_getaffinity, 0, 128, mask.as_mut_ptr()) };
    assert!(n > 0);
    let list: Vec<String> = (0..n as usize * 8)
        .filter(|&b| mask[b / 8] & (1 << (b % 8)) != 0)
        .map(|b| b.to_string())
        .collect();
    (n, format!("[{}]", list.join(" ")))
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap()
        .trim_end()
        .to_string()
}

fn owned(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn process_calls() {
    let bin = fixture("calls_proc");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let mut lines = run.after_marker();
    name_children(&mut lines);
    let (u, (ncpu, cpu_list)) = (uid(), cpus());
    let expected = vec![
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]".to_string(),
        "clone(SIGCHLD, NULL, NULL, NULL, NULL) = CHILD1".into(),
        "wait4(CHILD1, W_EXITED(3), 0, {ru_utime={tv_sec=#, tv_usec=#}, \
         ru_stime={tv_sec=#, tv_usec=#}, ..}) = CHILD1"
            .into(),
        "clone(CLONE_PARENT_SETTID|SIGCHLD, NULL, [CHILD2], NULL, NULL) = CHILD2".into(),
        "wait4(-1, W_EXITED(0), __WALL, NULL) = CHILD2".into(),
        "clone3({flags=CLONE_PIDFD|CLONE_PARENT_SETTID, pidfd=&ADDR, child_tid=NULL, \
         parent_tid=&ADDR, exit_signal=SIGCHLD, stack=NULL, stack_size=0, tls=NULL}, 64) \
         = CHILD3 {pidfd=[3], parent_tid=[CHILD3]}"
            .into(),
        format!(
            "waitid(P_PIDFD, 3, {{si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=CHILD3, \
             si_uid={u}, si_status=4, si_utime=#, si_stime=#}}, WEXITED, NULL) = 0"
        ),
        "close(3) = 0".into(),
        "clone3(&0x1, 64) = -1 [EFAULT]".into(),
        "clone3({flags=CLONE_THREAD, pidfd=NULL, child_tid=NULL, parent_tid=NULL, exit_signal=0, \
         stack=NULL, stack_size=0, tls=NULL, set_tid=NULL, set_tid_size=0, cgroup=0}, 88) \
         = -1 [EINVAL]"
            .into(),
        "wait4(-1, &ADDR, WNOHANG, NULL) = -1 [ECHILD]".into(),
        "waitid(7, 0, &ADDR, WEXITED, NULL) = -1 [EINVAL]".into(),
        "execve(\"/nonexistent\", [\"x\"], &ADDR /* 0 vars */) = -1 [ENOENT]".into(),
        "execveat(AT_FDCWD, \"/nonexistent\", [\"x\"], &ADDR /* 0 vars */, AT_EMPTY_PATH) \
         = -1 [ENOENT]"
            .into(),
        "getpid() = PID1".into(),
        "kill(PID1, 0) = 0".into(),
        "gettid() = PID1".into(),
        "tkill(PID1, 0) = 0".into(),
        "setresuid(-1, -1, -1) = 0".into(),
        "setreuid(-1, -1) = 0".into(),
        format!("getresuid([{u}], [{u}], [{u}]) = 0"),
        "getresgid(&0x1, &ADDR, &ADDR) = -1 [EFAULT]".into(),
        "prctl(PR_SET_NAME, \"rtrace-test\") = 0".into(),
        "prctl(PR_GET_NAME, \"rtrace-test\") = 0".into(),
        "prctl(PR_SET_PDEATHSIG, SIGUSR1) = 0".into(),
        "prctl(PR_GET_PDEATHSIG, [SIGUSR1]) = 0".into(),
        "prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) = 0".into(),
        "prctl(PR_GET_NO_NEW_PRIVS) = 1".into(),
        "prctl(PR_SET_SECCOMP, 0x3, 0, 0, 0) = -1 [EINVAL]".into(),
        "prctl(PR_CAPBSET_READ, 99) = -1 [EINVAL]".into(),
        "prctl(2130706432, 0x1, 0x2, 0x3, 0x4) = -1 [EINVAL]".into(),
        "arch_prctl(ARCH_GET_FS, [&ADDR]) = 0".into(),
        "arch_prctl(39321, 0) = -1 [EINVAL]".into(),
        "set_robust_list(&0x1, 1) = -1 [EINVAL]".into(),
        "rseq(NULL, 32, 0x2, ADDR) = -1 [EINVAL]".into(),
        "prlimit64(0, RLIMIT_CORE, {rlim_cur=0, rlim_max=0}, NULL) = 0".into(),
        "prlimit64(0, RLIMIT_CORE, NULL, {rlim_cur=0, rlim_max=0}) = 0".into(),
        "getrlimit(RLIMIT_CORE, {rlim_cur=0, rlim_max=0}) = 0".into(),
        "setrlimit(99, {rlim_cur=RLIM_INFINITY, rlim_max=RLIM_INFINITY}) = -1 [EINVAL]".into(),
        "getrusage(99, &ADDR) = -1 [EINVAL]".into(),
        "getrusage(RUSAGE_SELF, &0x1) = -1 [EFAULT]".into(),
        "sched_yield() = 0".into(),
        format!("sched_getaffinity(0, 128, {cpu_list}) = {ncpu}"),
        "sched_setaffinity(0, 8, []) = -1 [EINVAL]".into(),
        "sched_getparam(0, {sched_priority=0}) = 0".into(),
        "sched_setscheduler(0, SCHED_OTHER|SCHED_RESET_ON_FORK, {sched_priority=0}) = 0".into(),
        "sched_getscheduler(0) = 1073741824 (SCHED_OTHER|SCHED_RESET_ON_FORK)".into(),
        "sched_get_priority_max(SCHED_FIFO) = 99".into(),
        "sched_rr_get_interval(0, &0x1) = -1 [EFAULT]".into(),
        format!(
            "uname({{sysname=\"Linux\", nodename=\"{}\", ..}}) = 0",
            hostname()
        ),
        "uname(&0x1) = -1 [EFAULT]".into(),
        "getrandom(\"\", 0, GRND_NONBLOCK) = 0".into(),
        "getrandom(&ADDR, 8, 0x100) = -1 [EINVAL]".into(),
        "personality(0xffffffff) = #".into(),
        "sysinfo({uptime=#, loads=[#, #, #], totalram=#, freeram=#, sharedram=#, \
         bufferram=#, totalswap=#, freeswap=#, procs=#, totalhigh=#, freehigh=#, mem_unit=#}) = 0"
            .into(),
        "capget({version=0x0, pid=0}, NULL) = 0".into(),
        "capget({version=_LINUX_CAPABILITY_VERSION_3, pid=0}, {effective=*[*], \
         permitted=*[*], inheritable=*[*]}) = 0"
            .into(),
        "capset({version=_LINUX_CAPABILITY_VERSION_3, pid=0}, NULL) = -1 [EFAULT]".into(),
        "capset({version=_LINUX_CAPABILITY_VERSION_3, pid=0}, {effective=*[*], \
         permitted=*[*], inheritable=*[*]}) = 0"
            .into(),
        "capget(&0x1, &ADDR) = -1 [EFAULT]".into(),
        "exit_group(0)".into(),
        "Process exited normally with code 0".into(),
    ];
    assert_lines(&lines, &expected);
}

#[test]
fn process_calls_verbose_and_values_only() {
    let bin = fixture("calls_proc");
    let mut verbose = trace(&["-v"], &[name(&bin)]).after_marker();
    name_children(&mut verbose);
    let u = uid();
    for want in [
        "wait4(CHILD1, W_EXITED(3), 0, {ru_utime={tv_sec=#, tv_usec=#}, \
         ru_stime={tv_sec=#, tv_usec=#}, ru_maxrss=#, ru_ixrss=0, ru_idrss=0, ru_isrss=0, \
         ru_minflt=#, ru_majflt=#, ru_nswap=0, ru_inblock=#, ru_oublock=#, ru_msgsnd=0, \
         ru_msgrcv=0, ru_nsignals=0, ru_nvcsw=#, ru_nivcsw=#}) = CHILD1"
            .to_string(),
        format!(
            "waitid(P_PIDFD, 3, {{si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=CHILD3, \
             si_uid={u}, si_status=4, si_utime=#, si_stime=#}}, WEXITED, NULL) = 0"
        ),
    ] {
        assert!(
            verbose.iter().any(|l| matches_digits(&want, l)),
            "no {want:?} in\n{}",
            verbose.join("\n")
        );
    }
    assert!(
        verbose.contains(
            &"clone3({flags=CLONE_THREAD, pidfd=NULL, child_tid=NULL, parent_tid=NULL, \
              exit_signal=0, stack=NULL, stack_size=0, tls=NULL, set_tid=NULL, set_tid_size=0, \
              cgroup=0}, 88) = -1 [EINVAL]"
                .to_string()
        ),
        "{}",
        verbose.join("\n")
    );
    let uname = verbose
        .iter()
        .find(|l| l.starts_with("uname({"))
        .expect("uname line");
    assert!(
        uname.contains(", release=\"")
            && uname.contains(", domainname=\"")
            && !uname.contains(".."),
        "{uname}"
    );

    let mut values = trace(&["-V"], &[name(&bin)]).after_marker();
    name_children(&mut values);
    for want in [
        "clone(0x100011, NULL, [CHILD2], NULL, NULL) = CHILD2",
        "wait4(-1, &ADDR, 0x1, NULL) = -1 [10]",
        "prctl(15, \"rtrace-test\") = 0",
        "prctl(2, [10]) = 0",
        "clone3({flags=0x101000, pidfd=&ADDR, child_tid=NULL, parent_tid=&ADDR, \
         exit_signal=17, stack=NULL, stack_size=0, tls=NULL}, 64) \
         = CHILD3 {pidfd=[3], parent_tid=[CHILD3]}",
        "setrlimit(99, {rlim_cur=18446744073709551615, rlim_max=18446744073709551615}) = -1 [22]",
        "getrandom(\"\", 0, 0x1) = 0",
    ] {
        assert!(
            values.iter().any(|l| l == want),
            "no {want:?} in\n{}",
            values.join("\n")
        );
    }
}

#[test]
fn signal_calls() {
    let bin = fixture("calls_sig");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let u = uid();
    let expected = vec![
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]".to_string(),
        "rt_sigaction(SIGUSR1, {sa_handler=&ADDR, sa_mask=[USR2], \
         sa_flags=SA_RESTORER|SA_RESTART, sa_restorer=&ADDR}, {sa_handler=SIG_DFL, sa_mask=[], \
         sa_flags=0}, 8) = 0"
        .into(),
        "rt_sigaction(SIGUSR2, {sa_handler=SIG_IGN, sa_mask=~[], sa_flags=SA_SIGINFO|SA_NODEFER}, \
         NULL, 8) = 0"
            .into(),
        "rt_sigaction(SIGUSR1, NULL, {sa_handler=&ADDR, sa_mask=[USR2], \
         sa_flags=SA_RESTORER|SA_RESTART, sa_restorer=&ADDR}, 8) = 0"
            .into(),
        "rt_sigaction(SIGKILL, {sa_handler=SIG_IGN, sa_mask=~[], \
         sa_flags=SA_SIGINFO|SA_INTERRUPT|SA_NODEFER}, NULL, 8) = -1 [EINVAL]"
            .into(),
        "rt_sigaction(SIGUSR1, &0x1, NULL, 8) = -1 [EFAULT]".into(),
        "rt_sigaction(SIGUSR1, NULL, NULL, 4) = -1 [EINVAL]".into(),
        "rt_sigprocmask(SIG_BLOCK, [USR1 USR2], [], 8) = 0".into(),
        "rt_sigprocmask(SIG_SETMASK, ~[], NULL, 8) = 0".into(),
        "rt_sigprocmask(SIG_UNBLOCK, NULL, ~[KILL STOP], 8) = 0".into(),
        "rt_sigprocmask(SIG_SETMASK, [USR1 USR2 ALRM], NULL, 8) = 0".into(),
        "rt_sigprocmask(3, [USR1 USR2 ALRM], NULL, 8) = -1 [EINVAL]".into(),
        "rt_sigprocmask(SIG_BLOCK, &0x1, NULL, 8) = -1 [EFAULT]".into(),
        "tgkill(PID1, PID1, SIGUSR1) = 0".into(),
        "rt_sigpending([USR1], 8) = 0".into(),
        format!(
            "rt_sigtimedwait([USR1 USR2], {{si_signo=SIGUSR1, si_code=SI_TKILL, si_pid=PID1, \
             si_uid={u}}}, {{tv_sec=0, tv_nsec=0}}, 8) = 10 (SIGUSR1)"
        ),
        "rt_sigtimedwait([USR1 USR2], &ADDR, {tv_sec=0, tv_nsec=1000}, 8) = -1 [EAGAIN]".into(),
        format!("getuid() = {u}"),
        format!(
            "rt_sigqueueinfo(PID1, SIGUSR2, {{si_signo=SIGUSR2, si_code=SI_QUEUE, si_pid=PID1, \
             si_uid={u}, si_int=42, si_ptr=0x2a}}) = 0"
        ),
        format!(
            "rt_tgsigqueueinfo(PID1, PID1, SIGUSR1, {{si_signo=SIGUSR2, si_code=SI_QUEUE, \
             si_pid=PID1, si_uid={u}, si_int=42, si_ptr=0x2a}}) = 0"
        ),
        format!(
            "rt_sigtimedwait([USR1 USR2], {{si_signo=SIGUSR1, si_code=SI_QUEUE, si_pid=PID1, \
             si_uid={u}, si_int=42, si_ptr=0x2a}}, NULL, 8) = 10 (SIGUSR1)"
        ),
        "rt_sigtimedwait([USR1 USR2], NULL, NULL, 8) = 12 (SIGUSR2)".into(),
        "rt_sigqueueinfo(PID1, SIGUSR2, &0x1) = -1 [EFAULT]".into(),
        "sigaltstack({ss_sp=&ADDR, ss_flags=0, ss_size=65536}, \
         {ss_sp=NULL, ss_flags=SS_DISABLE, ss_size=0}) = 0"
            .into(),
        "sigaltstack(NULL, {ss_sp=&ADDR, ss_flags=0, ss_size=65536}) = 0".into(),
        "sigaltstack({ss_sp=&ADDR, ss_flags=0, ss_size=1}, NULL) = -1 [ENOMEM]".into(),
        "sigaltstack({ss_sp=&ADDR, ss_flags=SS_DISABLE, ss_size=1}, NULL) = 0".into(),
        "signalfd4(-1, [USR1], 8, SFD_NONBLOCK|SFD_CLOEXEC) = 3".into(),
        "close(3) = 0".into(),
        "signalfd4(-1, [USR1], 8, 0x1) = -1 [EINVAL]".into(),
        "kill(PID1, 0) = 0".into(),
        "tkill(PID1, 0) = 0".into(),
        "tgkill(PID1, PID1, 0) = 0".into(),
        "kill(PID1, 99) = -1 [EINVAL]".into(),
        "alarm(100) = 0".into(),
        "alarm(0) = #".into(),
        "rt_sigaction(SIGUSR1, {sa_handler=&ADDR, sa_mask=[], sa_flags=SA_RESTORER, sa_restorer=&ADDR}, NULL, 8) \
         = 0"
        .into(),
        "rt_sigaction(SIGALRM, {sa_handler=&ADDR, sa_mask=[], sa_flags=SA_RESTORER, sa_restorer=&ADDR}, NULL, 8) \
         = 0"
        .into(),
        "tgkill(PID1, PID1, SIGUSR1) = 0".into(),
        "rt_sigsuspend([], 8) = ** SIGUSR1 ** <..>".into(),
        "rt_sigreturn({mask=[USR1 USR2 ALRM]}) = -1 [EINTR]".into(),
        "*rt_sigsuspend([], 8) = -1 [EINTR]".into(),
        "rt_sigprocmask(SIG_SETMASK, [], NULL, 8) = 0".into(),
        "setitimer(ITIMER_REAL, {it_interval={tv_sec=0, tv_usec=0}, \
         it_value={tv_sec=0, tv_usec=20000}}, NULL) = 0"
            .into(),
        "pause() = ** SIGALRM ** <..>".into(),
        "rt_sigreturn({mask=[]}) = -1 [EINTR]".into(),
        "*pause() = -1 [EINTR]".into(),
        "exit_group(0)".into(),
        "Process exited normally with code 0".into(),
    ];
    assert_lines(&run.after_marker(), &expected);

    // -v changes nothing here (the restorer shows always, as strace shows
    // it); -V prints sets and flags as numbers; -VV prints structs as
    // their addresses.
    let verbose = trace(&["-v"], &[name(&bin)]).after_marker();
    assert_eq!(
        verbose[1],
        "rt_sigaction(SIGUSR1, {sa_handler=&ADDR, sa_mask=[USR2], \
         sa_flags=SA_RESTORER|SA_RESTART, sa_restorer=&ADDR}, \
         {sa_handler=SIG_DFL, sa_mask=[], sa_flags=0}, 8) = 0"
    );
    let values = trace(&["-V"], &[name(&bin)]).after_marker();
    assert_eq!(
        values[1],
        "rt_sigaction(10, {sa_handler=&ADDR, sa_mask=[12], sa_flags=0x14000000, sa_restorer=&ADDR}, \
         {sa_handler=0, sa_mask=[], sa_flags=0x0}, 8) = 0"
    );
    assert_eq!(values[7], "rt_sigprocmask(0, [10 12], [], 8) = 0");
    let structs = trace(&["-VV"], &[name(&bin)]).after_marker();
    assert_eq!(structs[1], "rt_sigaction(10, &ADDR, &ADDR, 8) = 0");
    assert_eq!(structs[7], "rt_sigprocmask(0, &ADDR, &ADDR, 8) = 0");
}

#[test]
fn time_calls() {
    let bin = fixture("calls_time");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let expected = owned(&[
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
        "nanosleep({tv_sec=0, tv_nsec=1000}, NULL) = 0",
        "nanosleep({tv_sec=0, tv_nsec=1000000000}, NULL) = -1 [EINVAL]",
        "nanosleep(&0x1, NULL) = -1 [EFAULT]",
        "clock_nanosleep(CLOCK_MONOTONIC, 0, {tv_sec=0, tv_nsec=1000}, &ADDR) = 0",
        "clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, {tv_sec=0, tv_nsec=0}, NULL) = 0",
        "clock_nanosleep(CLOCK_THREAD_CPUTIME_ID, 0, {tv_sec=0, tv_nsec=1000}, NULL) \
         = -1 [EOPNOTSUPP]",
        "clock_getres(CLOCK_MONOTONIC, {tv_sec=0, tv_nsec=#}) = 0",
        "clock_gettime(CLOCK_BOOTTIME, {tv_sec=#, tv_nsec=#}) = 0",
        "clock_gettime(99, &ADDR) = -1 [EINVAL]",
        "clock_gettime(CLOCK_REALTIME, &0x1) = -1 [EFAULT]",
        "clock_settime(CLOCK_MONOTONIC, {tv_sec=0, tv_nsec=0}) = -1 [EINVAL]",
        "gettimeofday({tv_sec=#, tv_usec=#}, NULL) = 0",
        "settimeofday({tv_sec=0, tv_usec=2000000}, NULL) = -1 [EINVAL]",
        "timer_create(CLOCK_MONOTONIC, {sigev_value={sival_int=42, sival_ptr=0x2a}, sigev_signo=SIGUSR1, \
         sigev_notify=SIGEV_SIGNAL}, [0]) = 0",
        "timer_settime(0, 0, {it_interval={tv_sec=0, tv_nsec=0}, it_value={tv_sec=100, \
         tv_nsec=0}}, {it_interval={tv_sec=0, tv_nsec=0}, it_value={tv_sec=0, tv_nsec=0}}) = 0",
        "timer_gettime(0, {it_interval={tv_sec=0, tv_nsec=0}, it_value={tv_sec=#, tv_nsec=#}}) \
         = 0",
        "timer_settime(0, TIMER_ABSTIME, {it_interval={tv_sec=0, tv_nsec=0}, \
         it_value={tv_sec=0, tv_nsec=0}}, NULL) = 0",
        "timer_getoverrun(0) = 0",
        "timer_delete(0) = 0",
        "timer_delete(0) = -1 [EINVAL]",
        "gettid() = PID1",
        "timer_create(CLOCK_REALTIME, {sigev_value={sival_int=42, sival_ptr=0x2a}, sigev_signo=SIGUSR1, \
         sigev_notify=SIGEV_THREAD_ID, sigev_notify_thread_id=PID1}, [1]) = 0",
        "timer_create(CLOCK_MONOTONIC, NULL, &0x1) = -1 [EFAULT]",
        "timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK|TFD_CLOEXEC) = 3",
        "timerfd_settime(3, 0, {it_interval={tv_sec=1, tv_nsec=0}, it_value={tv_sec=100, \
         tv_nsec=0}}, {it_interval={tv_sec=0, tv_nsec=0}, it_value={tv_sec=0, tv_nsec=0}}) = 0",
        "timerfd_gettime(3, {it_interval={tv_sec=1, tv_nsec=0}, it_value={tv_sec=#, \
         tv_nsec=#}}) = 0",
        "timerfd_settime(3, TFD_TIMER_ABSTIME, {it_interval={tv_sec=0, tv_nsec=0}, \
         it_value={tv_sec=0, tv_nsec=0}}, NULL) = 0",
        "timerfd_gettime(3, &0x1) = -1 [EFAULT]",
        "close(3) = 0",
        "timerfd_create(CLOCK_MONOTONIC, 0x1) = -1 [EINVAL]",
        "setitimer(ITIMER_REAL, {it_interval={tv_sec=0, tv_usec=0}, it_value={tv_sec=100, \
         tv_usec=0}}, {it_interval={tv_sec=0, tv_usec=0}, it_value={tv_sec=0, tv_usec=0}}) = 0",
        "getitimer(ITIMER_REAL, {it_interval={tv_sec=0, tv_usec=0}, it_value={tv_sec=#, \
         tv_usec=#}}) = 0",
        "setitimer(ITIMER_REAL, {it_interval={tv_sec=0, tv_usec=0}, it_value={tv_sec=0, \
         tv_usec=0}}, NULL) = 0",
        "getitimer(99, &ADDR) = -1 [EINVAL]",
        "adjtimex(NULL) = -1 [EFAULT]",
        &read_timex("adjtimex(", "0"),
        &read_timex("adjtimex(", "ADJ_OFFSET_SS_READ"),
        &format!("adjtimex({}) = -1 [{}]", refused_tick(), refused()),
        &format!(
            "clock_adjtime(CLOCK_REALTIME, {{modes=ADJ_SETOFFSET|ADJ_NANO, {}, time={{tv_sec=3, \
             tv_usec=18446744073709551615}}, {}}}) = -1 [{}]",
            zero_fields("offset", "tolerance"),
            zero_fields("tick", "tai"),
            refused()
        ),
        &format!(
            "clock_adjtime(CLOCK_MONOTONIC, {{modes=0, {}, time={{tv_sec=0, tv_usec=0}}, {}}}) \
             = -1 [EOPNOTSUPP]",
            zero_fields("offset", "tolerance"),
            zero_fields("tick", "tai")
        ),
        &read_timex("clock_adjtime(CLOCK_REALTIME, ", "0"),
        "exit_group(0)",
        "Process exited normally with code 0",
    ]);
    assert_lines(&run.after_marker(), &expected);
}

/// set_thread_area, get_thread_area and modify_ldt's `struct user_desc`:
/// its flags are bit-fields (`abi::layout::BitField`); `lm` is shown only
/// to x86_64 callers; the entry set_thread_area chose after its result.
#[test]
fn segment_descriptors() {
    let bin = fixture("calls_ldt");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let tls = "base_addr=0x1000, limit=0xfffff, seg_32bit=1, contents=0, read_exec_only=0, \
               limit_in_pages=1, seg_not_present=0, useable=1";
    let expected = owned(&[
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
        &format!("set_thread_area({{entry_number=-1, {tls}}}) = 0 (entry_number=12)"),
        &format!("get_thread_area({{entry_number=12, {tls}}}) = 0"),
        "get_thread_area({entry_number=99, ..}) = -1 [EINVAL]",
        // Only -1 is signed.
        "get_thread_area({entry_number=2718281828, ..}) = -1 [EINVAL]",
        "set_thread_area(&0x1) = -1 [EFAULT]",
        "modify_ldt(1, {entry_number=0, base_addr=0x0, limit=0xff, seg_32bit=1, contents=2, \
         read_exec_only=1, limit_in_pages=0, seg_not_present=0, useable=0, lm=0}, 16) = 0",
        "modify_ldt(0, &ADDR, 64) = 64",
        "exit_group(0)",
        "Process exited normally with code 0",
    ]);
    assert_lines(&run.after_marker(), &expected);
}

/// `struct timex`'s fields in order, the time's two apart.
const TIMEX_FIELDS: [&str; 18] = [
    "offset",
    "freq",
    "maxerror",
    "esterror",
    "status",
    "constant",
    "precision",
    "tolerance",
    "tick",
    "ppsfreq",
    "jitter",
    "shift",
    "stabil",
    "jitcnt",
    "calcnt",
    "errcnt",
    "stbcnt",
    "tai",
];

/// `from=0, ..., to=0`: the struct's fields from `from` to `to`, zero.
fn zero_fields(from: &str, to: &str) -> String {
    let at = |f: &str| TIMEX_FIELDS.iter().position(|n| *n == f).unwrap();
    TIMEX_FIELDS[at(from)..=at(to)]
        .iter()
        .map(|f| format!("{f}=0"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The struct with `modes=ADJ_TICK, tick=1` and the rest zero.
fn refused_tick() -> String {
    format!(
        "{{modes=ADJ_TICK, {}, time={{tv_sec=0, tv_usec=0}}, tick=1, {}}}",
        zero_fields("offset", "tolerance"),
        zero_fields("ppsfreq", "tai")
    )
}

/// What the kernel answers a change it refuses: a bad value to a
/// process with CAP_SYS_TIME (bit 25 of its effective set), the want of
/// it to any other.
fn refused() -> &'static str {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let effective = status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .expect("CapEff in /proc/self/status");
    if effective & 1 << 25 != 0 {
        "EINVAL"
    } else {
        "EPERM"
    }
}

/// A read of the clock's state through `call` (its text up to the
/// struct) with `modes`: the state and status the kernel reports now
/// (asked here, and named by the kernel's own header's list, written out
/// so that a wrong generated table fails), the values of the moment as
/// `*` and `#`.
fn read_timex(call: &str, modes: &str) -> String {
    let mut tx: libc::timex = unsafe { std::mem::zeroed() };
    let state = unsafe { libc::adjtimex(&mut tx) };
    assert!(state >= 0, "adjtimex: {}", std::io::Error::last_os_error());
    let states = [
        "TIME_OK",
        "TIME_INS",
        "TIME_DEL",
        "TIME_OOP",
        "TIME_WAIT",
        "TIME_ERROR",
    ];
    let bits = [
        "STA_PLL",
        "STA_PPSFREQ",
        "STA_PPSTIME",
        "STA_FLL",
        "STA_INS",
        "STA_DEL",
        "STA_UNSYNC",
        "STA_FREQHOLD",
        "STA_PPSSIGNAL",
        "STA_PPSJITTER",
        "STA_PPSWANDER",
        "STA_PPSERROR",
        "STA_CLOCKERR",
        "STA_NANO",
        "STA_MODE",
        "STA_CLK",
    ];
    let status: Vec<&str> = (0..16)
        .filter(|b| tx.status & (1 << b) != 0)
        .map(|b| bits[b])
        .collect();
    let status = if status.is_empty() {
        "0".to_string()
    } else {
        status.join("|")
    };
    format!(
        "{call}{{modes={modes}, offset=*, freq=*, maxerror=#, esterror=#, status={status}, \
         constant=#, precision=#, tolerance=#, time={{tv_sec=#, tv_usec=#}}, tick=#, \
         ppsfreq=*, jitter=#, shift=#, stabil=#, jitcnt=#, calcnt=#, errcnt=#, stbcnt=#, \
         tai=#}}) = {state} ({})",
        states[state as usize]
    )
}

#[test]
fn i386_struct_layouts() {
    let bin = fixture("calls_time_i386");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let expected = owned(&[
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
        "nanosleep({tv_sec=0, tv_nsec=1000}, NULL) = 0",
        "clock_getres(CLOCK_MONOTONIC, {tv_sec=0, tv_nsec=#}) = 0",
        "clock_getres_time64(CLOCK_MONOTONIC, {tv_sec=0, tv_nsec=#}) = 0",
        "clock_gettime64(CLOCK_MONOTONIC, &0x1) = -1 [EFAULT]",
        "rt_sigaction(SIGUSR2, {sa_handler=SIG_IGN, sa_mask=[USR1], sa_flags=SA_RESTART}, \
         {sa_handler=SIG_DFL, sa_mask=[], sa_flags=0}, 8) = 0",
        "rt_sigaction(SIGUSR2, NULL, {sa_handler=SIG_IGN, sa_mask=[USR1], sa_flags=SA_RESTART}, \
         8) = 0",
        "rt_sigprocmask(SIG_BLOCK, [USR2], [], 8) = 0",
        "sigaltstack({ss_sp=&0x10000, ss_flags=SS_DISABLE, ss_size=0}, NULL) = 0",
        "setrlimit(RLIMIT_CORE, {rlim_cur=0, rlim_max=0}) = 0",
        "ugetrlimit(RLIMIT_CORE, {rlim_cur=0, rlim_max=0}) = 0",
        // i386's own struct timex for adjtimex and clock_adjtime (the
        // kernel's old_timex32), the 64-bit one for clock_adjtime64.
        &read_timex("adjtimex(", "0"),
        &format!("adjtimex({}) = -1 [{}]", refused_tick(), refused()),
        &format!(
            "clock_adjtime(CLOCK_MONOTONIC, {}) = -1 [EOPNOTSUPP]",
            refused_tick()
        ),
        &format!(
            "clock_adjtime64(CLOCK_REALTIME, {}) = -1 [{}]",
            refused_tick(),
            refused()
        ),
        "exit_group(0)",
        "Process exited normally with code 0",
    ]);
    assert_lines(&run.after_marker(), &expected);
}

/// -y in select's fd sets: each fd with its path, the pipe's inode as
/// `$$` (it differs from run to run).
#[test]
fn fd_sets_show_their_paths_with_y() {
    let bin = fixture("calls_poll");
    let run = trace(&["-y", "-e", "trace=select,pselect6"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let inode = |line: &str| {
        let mut out = String::new();
        let mut rest = line;
        while let Some(at) = rest.find("pipe:[") {
            out.push_str(&rest[..at + 6]);
            rest = &rest[at + 6..];
            let digits = rest.find(']').unwrap_or(0);
            out.push_str("$$");
            rest = &rest[digits..];
        }
        out + rest
    };
    let lines: Vec<String> = run.lines()[1..3].iter().map(|l| inode(l)).collect();
    assert_eq!(
        lines,
        [
            "select(5, [3<pipe:[$$]> 4<pipe:[$$]>], [4<pipe:[$$]>], NULL, {tv_sec=0, tv_usec=0}) \
             = 2 {readfds=[3<pipe:[$$]>], writefds=[4<pipe:[$$]>], left={tv_sec=0, tv_usec=0}}",
            "select(-1, NULL, NULL, NULL, {tv_sec=0, tv_usec=0}) = -1 [EINVAL]",
        ]
    );
}

#[test]
fn poll_calls() {
    let bin = fixture("calls_poll");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let expected = owned(&[
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
        "write(4, \"x\", 1) = 1",
        "poll([{fd=3, events=POLLIN|POLLPRI}, {fd=4, events=POLLOUT}, {fd=99, events=POLLIN}], \
         3, 0) = 3 [{fd=3, revents=POLLIN}, {fd=4, revents=POLLOUT}, {fd=99, revents=POLLNVAL}]",
        "poll(NULL, 0, 1) = 0 (Timeout)",
        "poll(&0x1, 1, 0) = -1 [EFAULT]",
        "ppoll([{fd=3, events=POLLIN|POLLPRI}], 1, {tv_sec=0, tv_nsec=0}, [USR1], 8) \
         = 1 {fds=[{fd=3, revents=POLLIN}], left={tv_sec=0, tv_nsec=0}}",
        "ppoll([{fd=4, events=POLLOUT}], 1, NULL, NULL, 8) = 1 [{fd=4, revents=POLLOUT}]",
        "select(5, [3 4], [4], NULL, {tv_sec=0, tv_usec=0}) \
         = 2 {readfds=[3], writefds=[4], left={tv_sec=0, tv_usec=0}}",
        "select(-1, NULL, NULL, NULL, {tv_sec=0, tv_usec=0}) = -1 [EINVAL]",
        "pselect6(4, [3], NULL, NULL, {tv_sec=0, tv_nsec=0}, {sigmask=[USR1], sigsetsize=8}) \
         = 1 {readfds=[3], left={tv_sec=0, tv_nsec=0}}",
        "pselect6(1, NULL, NULL, NULL, {tv_sec=0, tv_nsec=1000}, NULL) = 0 (Timeout)",
        "epoll_create1(EPOLL_CLOEXEC) = 5",
        "epoll_ctl(5, EPOLL_CTL_ADD, 3, {events=EPOLLIN|EPOLLET, data={u32=42, u64=42}}) = 0",
        "epoll_ctl(5, 9, 3, {events=EPOLLIN|EPOLLET, data={u32=42, u64=42}}) = -1 [EINVAL]",
        "epoll_ctl(5, EPOLL_CTL_MOD, 3, &0x1) = -1 [EFAULT]",
        "epoll_wait(5, [{events=EPOLLIN, data={u32=42, u64=42}}], 8, 0) = 1",
        "epoll_pwait(5, [], 8, 0, [USR1], 8) = 0",
        "epoll_pwait2(5, [], 8, {tv_sec=0, tv_nsec=0}, NULL, 8) = 0",
        "epoll_wait(5, &ADDR, 0, 0) = -1 [EINVAL]",
        "epoll_ctl(5, EPOLL_CTL_DEL, 3, NULL) = 0",
        "epoll_wait(5, [], 8, 0) = 0",
        "epoll_create1(0x1) = -1 [EINVAL]",
        "eventfd2(7, EFD_SEMAPHORE|EFD_NONBLOCK|EFD_CLOEXEC) = 6",
        "eventfd2(0, 0x2) = -1 [EINVAL]",
        "futex(&ADDR, FUTEX_WAIT|FUTEX_PRIVATE_FLAG, 0, NULL) = -1 [EAGAIN]",
        "futex(&ADDR, FUTEX_WAKE|FUTEX_PRIVATE_FLAG, 1) = 0",
        "futex(&ADDR, FUTEX_WAIT, 1, {tv_sec=0, tv_nsec=1000}) = -1 [ETIMEDOUT]",
        "futex(&ADDR, FUTEX_WAIT_BITSET|FUTEX_CLOCK_REALTIME, 1, {tv_sec=0, tv_nsec=0}, NULL, \
         FUTEX_BITSET_MATCH_ANY) = -1 [ETIMEDOUT]",
        "futex(&ADDR, FUTEX_WAKE_OP|FUTEX_PRIVATE_FLAG, 1, 1, &ADDR, {op=FUTEX_OP_SET, oparg=1, \
         cmp=FUTEX_OP_CMP_GT, cmparg=0}) = 0",
        "futex(&ADDR, FUTEX_CMP_REQUEUE|FUTEX_PRIVATE_FLAG, 1, 1, &ADDR, 1) = 0",
        "futex(&ADDR, FUTEX_WAKE_BITSET, 1, NULL, NULL, 0x3) = 0",
        "futex(&ADDR, 0x63, 0x1, 0x0, 0x0, 0x0) = -1 [ENOSYS]",
        "futex(&0x1, FUTEX_WAIT, 0, NULL) = -1 [EINVAL]",
        "exit_group(0)",
        "Process exited normally with code 0",
    ]);
    assert_lines(&run.after_marker(), &expected);
}

#[test]
fn pattern_matcher() {
    assert!(matches_digits("a=#, b", "a=12, b"));
    assert!(!matches_digits("a=#, b", "a=, b"));
    assert!(!matches_digits("a=#", "a=1x"));
    assert!(matches_digits("{e=*[*], p", "{e=~[CHOWN KILL], p"));
    assert!(!matches_digits("{e=*[*]}", "{e=1}"));
    let mut lines = vec!["clone() = 123".to_string(), "wait4(123, 1234) = 123".into()];
    name_children(&mut lines);
    assert_eq!(lines, ["clone() = CHILD1", "wait4(CHILD1, 1234) = CHILD1"]);
}

/// The JSON rendering of the same decoders: sets are arrays (a complement
/// an object), values printed after the result go under `returned`.
#[test]
fn json_sets_and_returned_values() {
    use serde_json::Value;
    let calls = |fixture_name: &str| -> Vec<Value> {
        let bin = fixture(fixture_name);
        let run = trace(&["--json"], &[name(&bin)]);
        assert_eq!(run.code(), Some(0), "{}", run.stderr());
        run.trace
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .filter(|v: &Value| v["type"] == "call")
            .collect()
    };
    let sig = calls("calls_sig");
    let masks: Vec<&Value> = sig
        .iter()
        .filter(|v| v["name"] == "rt_sigprocmask")
        .collect();
    assert_eq!(masks[0]["args"]["set"], serde_json::json!(["USR1", "USR2"]));
    assert_eq!(masks[0]["args"]["oldset"], serde_json::json!([]));
    assert_eq!(
        masks[2]["args"]["oldset"],
        serde_json::json!({"complement": ["KILL", "STOP"]})
    );
    let poll = calls("calls_poll");
    let first = poll.iter().find(|v| v["name"] == "poll").unwrap();
    assert_eq!(
        first["returned"]["fds"][2],
        serde_json::json!({"fd": 99, "revents": {"value": 32, "flags": ["POLLNVAL"]}})
    );
    let select = poll.iter().find(|v| v["name"] == "select").unwrap();
    assert_eq!(
        select["returned"]["value"],
        serde_json::json!({"readfds": [3], "writefds": [4], "left": {"tv_sec": 0, "tv_usec": 0}})
    );
    let proc = calls("calls_proc");
    let clone = proc
        .iter()
        .find(|v| v["name"] == "clone" && v["raw"][0] == 0x100011)
        .unwrap();
    assert_eq!(
        clone["args"]["flags"],
        serde_json::json!({"value": 0x100011, "flags": ["CLONE_PARENT_SETTID", "SIGCHLD"]})
    );
    assert_eq!(
        clone["args"]["parent_tid"],
        serde_json::json!([clone["result"]])
    );
}

/// The pid a trace's first line, a PTRACE_SEIZE, names.
fn seized(lines: &[String]) -> &str {
    lines[1]
        .strip_prefix("ptrace(PTRACE_SEIZE, ")
        .and_then(|rest| rest.split(',').next())
        .unwrap_or_else(|| panic!("{lines:#?}"))
}

/// ptrace requests by name, with options and signals decoded: rtrace
/// itself (tracing `true`) is the traced program.
#[test]
fn ptrace_requests_options_and_signals() {
    let rtrace_bin = env!("CARGO_BIN_EXE_rtrace");
    let run = trace(
        // Not the SIGCHLD of the pin guard's middle process, which the
        // inner rtrace forks before its tracee.
        &["-e", "trace=ptrace", "-e", "signal=none"],
        // --kill-on-exit: so PTRACE_O_EXITKILL is among the options.
        &[rtrace_bin, "--kill-on-exit", "-o", "/dev/null", "true"],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = run.lines();
    // The inner rtrace's child has no banner here: its pid stays a number.
    let child = seized(&lines);
    assert_eq!(
        lines[1..3],
        [
            format!(
                "ptrace(PTRACE_SEIZE, {child}, 0x0, \
                 PTRACE_O_TRACESYSGOOD|PTRACE_O_TRACEEXEC|PTRACE_O_EXITKILL) = 0"
            ),
            format!("ptrace(PTRACE_INTERRUPT, {child}) = 0"),
        ]
    );
    assert!(
        lines.contains(&format!("ptrace(PTRACE_SYSCALL, {child}, 0x0, 0) = 0")),
        "{lines:#?}"
    );
    // A tracer of its own, 64- and 32-bit: PEEKDATA and GETEVENTMSG show
    // the word the kernel stored; rejected requests show as numbers. Both
    // engines (the BPF engine copies the words: `service::ptrace::memory`).
    let tracers = [fixture("ptrace_calls"), common::fixture_m32("ptrace_calls")];
    for (bin, engine) in tracers
        .iter()
        .flat_map(|bin| [(bin, None), (bin, Some("--bpf"))])
    {
        let mut args = vec!["-e", "trace=ptrace", "-e", "signal=none"];
        args.extend(engine);
        let run = trace(&args, &[name(bin)]);
        assert_eq!(run.code(), Some(0), "{}", run.stderr());
        let lines = run.lines();
        let child = seized(&lines);
        let peek = format!("ptrace(PTRACE_PEEKDATA, {child}, ");
        assert!(
            lines[3].starts_with(&peek) && lines[3].ends_with(", [0x11223344]) = 0"),
            "{lines:#?}"
        );
        let expected: Vec<String> = [
            "ptrace(PTRACE_SEIZE, {C}, 0x0, PTRACE_O_TRACEEXIT) = 0",
            "ptrace(PTRACE_INTERRUPT, {C}) = 0",
            "ptrace(PTRACE_GETEVENTMSG, {C}, 0x0, [0x0]) = 0",
            "ptrace(39321, {C}, 0x0, 0x0) = -1 [EIO]",
            "ptrace(-1, {C}, 0x0, 0x0) = -1 [EIO]",
            "ptrace(PTRACE_DETACH, {C}, 0x0, SIGCONT) = 0",
        ]
        .iter()
        .map(|l| l.replace("{C}", child))
        .collect();
        let mut shown = lines[1..3].to_vec();
        shown.extend_from_slice(&lines[4..8]);
        assert_eq!(shown, expected, "{} {engine:?}", bin.display());
    }
    // A child asking to be traced by its already traced parent (-f).
    let bin = fixture("traces_its_child");
    let run = trace(&["-f", "-e", "trace=ptrace"], &[name(&bin)]);
    assert!(
        run.lines()
            .contains(&"PID2| ptrace(PTRACE_TRACEME) = -1 [EPERM]".to_string()),
        "{:#?}",
        run.lines()
    );
}

/// Calls that printed raw before: times' struct tms, the memory policy
/// calls (modes and flags by name, node masks), extended attributes (the
/// value as a string of its length, a list as names), the group list,
/// sched_getscheduler's and rt_sigtimedwait's results by name, wait4's
/// rusage. Needs root (setgroups) and a NUMA kernel.
#[test]
fn times_numa_xattr_groups_and_named_results() {
    let bin = fixture("calls_more");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("calls_more-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let run = trace(&[], &[name(&bin), dir.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let mut lines = run.after_marker();
    name_children(&mut lines);
    let expected = owned(&[
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
        "times({tms_utime=# /* #.# s */, tms_stime=# /* #.# s */, tms_cutime=0 /* 0.00 s */, \
         tms_cstime=0 /* 0.00 s */}) = #",
        "times(NULL) = #",
        "set_mempolicy(MPOL_BIND|MPOL_F_STATIC_NODES, [0x1], 64) = 0",
        "get_mempolicy([MPOL_BIND|MPOL_F_STATIC_NODES], [0x1, 0x0], 128, NULL, 0) = 0",
        "set_mempolicy(MPOL_DEFAULT, NULL, 0) = 0",
        "mbind(&ADDR, 4096, MPOL_BIND, [0x1], 64, MPOL_MF_STRICT|MPOL_MF_MOVE) = 0",
        "get_mempolicy([0], NULL, 0, &ADDR, MPOL_F_NODE|MPOL_F_ADDR) = 0",
        "mbind(&ADDR, 4096, MPOL_F_NUMA_BALANCING|0x7, [0x1], 64, 0) = -1 [EINVAL]",
        "get_mempolicy(&0x1, NULL, 0, NULL, 0) = -1 [EFAULT]",
        "openat(AT_FDCWD, \"xf\", O_RDWR|O_CREAT, 0644) = 3",
        "setxattr(\"xf\", \"user.a\", \"val\\1771\", 5, XATTR_CREATE) = 0",
        "lsetxattr(\"xf\", \"user.b\", \"bb\", 2, 0) = 0",
        "fsetxattr(3, \"user.c\", \"c\", 1, XATTR_REPLACE) = -1 [ENODATA]",
        "getxattr(\"xf\", \"user.a\", \"val\\1771\", 64) = 5",
        "getxattr(\"xf\", \"user.a\", NULL, 0) = 5",
        "lgetxattr(\"xf\", \"user.b\", \"bb\", 64) = 2",
        "fgetxattr(3, \"user.nope\", &ADDR, 64) = -1 [ENODATA]",
        "getxattr(\"xf\", \"user.a\", &ADDR, 2) = -1 [ERANGE]",
        "listxattr(\"xf\", [\"user.a\", \"user.b\"], 64) = 14",
        "llistxattr(\"xf\", NULL, 0) = 14",
        "flistxattr(3, [\"user.a\", \"user.b\"], 64) = 14",
        "removexattr(\"xf\", \"user.a\") = 0",
        "lremovexattr(\"xf\", \"user.b\") = 0",
        "fremovexattr(3, \"user.c\") = -1 [ENODATA]",
        "flistxattr(3, [], 64) = 0",
        "unlink(\"xf\") = 0",
        "setgroups(2, [100, 200]) = 0",
        "getgroups(0, NULL) = 2",
        "getgroups(8, [100, 200]) = 2",
        "sched_getscheduler(0) = 0 (SCHED_OTHER)",
        "sched_setscheduler(0, SCHED_BATCH|SCHED_RESET_ON_FORK, {sched_priority=0}) = 0",
        "sched_getscheduler(0) = 1073741827 (SCHED_BATCH|SCHED_RESET_ON_FORK)",
        "getpid() = PID1",
        "kill(PID1, SIGUSR1) = 0",
        "rt_sigtimedwait([USR1], {si_signo=SIGUSR1, si_code=SI_USER, si_pid=PID1, si_uid=0}, \
         {tv_sec=1, tv_nsec=0}, 8) = 10 (SIGUSR1)",
        "clone(SIGCHLD, NULL, NULL, NULL, NULL) = CHILD1",
        "wait4(CHILD1, W_EXITED(7), 0, {ru_utime={tv_sec=#, tv_usec=#}, \
         ru_stime={tv_sec=#, tv_usec=#}, ..}) = CHILD1",
        "exit_group(0)",
        "Process exited normally with code 0",
    ]);
    assert_lines(&lines, &expected);
}

/// -v prints the environment whole, each variable cut at -s as a string
/// is (strace -v); without it the count, as strace prints it.
#[test]
fn verbose_prints_every_environment_variable() {
    let bin = fixture("shapes");
    let env = [("A_LONG", "0123456789abcdefghij"), ("B", "")];
    let path = format!("PATH={}:/usr/bin:/bin", common::fixture_dir().display());
    let verbose = common::trace_env(
        &["-v", "-s", "16", "-e", "trace=execve"],
        &[name(&bin)],
        &env,
    );
    assert_eq!(verbose.code(), Some(3), "{}", verbose.stderr());
    let cut = |v: &str| {
        if v.len() > 16 {
            format!("\"{}\"..", &v[..16])
        } else {
            format!("\"{v}\"")
        }
    };
    assert_eq!(
        verbose.lines()[1],
        format!(
            "execve(\"{}\", [\"shapes\"], [{}, \"B=\", \"LC_ALL=C\", {}])",
            bin.display(),
            cut("A_LONG=0123456789abcdefghij"),
            cut(&path)
        )
    );
    let plain = common::trace_env(&["-e", "trace=execve"], &[name(&bin)], &env);
    assert_eq!(
        plain.lines()[1],
        format!(
            "execve(\"{}\", [\"shapes\"], &ADDR /* 4 vars */)",
            bin.display()
        )
    );
}

/// i386's old signal calls (one-word masks, `struct old_sigaction`), as
/// strace prints them: the old handler and masks they return named.
#[test]
fn i386_old_signal_calls() {
    let bin = fixture("calls_sig_i386");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let expected = owned(&[
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
        "sigaction(SIGUSR1, {sa_handler=SIG_IGN, sa_mask=[USR2], sa_flags=SA_RESTART}, \
         {sa_handler=SIG_DFL, sa_mask=[], sa_flags=0}) = 0",
        "sigaction(SIGUSR1, NULL, {sa_handler=SIG_IGN, sa_mask=[USR2], sa_flags=SA_RESTART}) = 0",
        "sigaction(SIGUSR1, &0x1, NULL) = -1 [EFAULT]",
        "sigprocmask(SIG_BLOCK, [HUP USR1], []) = 0",
        "sigprocmask(SIG_SETMASK, NULL, [HUP USR1]) = 0",
        "sigpending([]) = 0",
        "signal(SIGUSR2, SIG_IGN) = 0 (SIG_DFL)",
        "signal(SIGUSR2, SIG_DFL) = 0x1 (SIG_IGN)",
        "sgetmask() = 0x201 (mask [HUP USR1])",
        "ssetmask([USR2]) = 0x201 (old mask [HUP USR1])",
        "ssetmask([]) = 0x800 (old mask [USR2])",
        "fork() = #",
        "** SIGCHLD **",
        "waitpid(#, W_EXITED(3), 0) = #",
        "waitpid(#, &ADDR, 0) = -1 [ECHILD]",
        "setitimer(ITIMER_REAL, {it_interval={tv_sec=0, tv_usec=0}, \
         it_value={tv_sec=0, tv_usec=20000}}, NULL) = 0",
        "sigsuspend([USR1]) = ** SIGALRM ** <..>",
        "rt_sigreturn({mask=[]}) = -1 [EINTR]",
        "*sigsuspend([USR1]) = -1 [EINTR]",
        "exit_group(0)",
        "Process exited normally with code 0",
    ]);
    assert_lines(&run.after_marker(), &expected);
}

/// clone3's `set_tid`: the pids the caller asks for, which the kernel
/// reads, under both engines (the BPF engine copies them through the
/// struct's pointer: `service::process::CLONE3_INDIRECT`), at a page's
/// end too.
#[test]
fn clone3_set_tid_under_both_engines() {
    let bin = fixture("clone3_set_tid");
    let head = "clone3({flags=CLONE_THREAD, pidfd=NULL, child_tid=NULL, parent_tid=NULL, \
                exit_signal=0, stack=NULL, stack_size=0, tls=NULL, ";
    let expected = [
        format!("{head}set_tid=[1234, 5678], set_tid_size=2, cgroup=0}}, 88) = -1 [EINVAL]"),
        format!("{head}set_tid=[4321], set_tid_size=1, cgroup=0}}, 88) = -1 [EINVAL]"),
    ];
    for engine in [&[][..], &["--bpf"]] {
        let mut args = vec!["-e", "trace=clone3"];
        args.extend_from_slice(engine);
        let run = trace(&args, &[name(&bin)]);
        assert_eq!(run.code(), Some(0), "{engine:?}: {}", run.stderr());
        let lines: Vec<String> = run
            .lines()
            .into_iter()
            .filter(|l| l.starts_with("clone3("))
            .collect();
        assert_eq!(lines, expected, "{engine:?}");
    }
}

/// Signal sets as long as their `sigsetsize` (16 and 128 bytes, at a
/// page's end; the kernel refuses them), and task names of the 15
/// characters the kernel keeps and longer, under both engines: the BPF
/// engine copies each set as its size says (`service::ARRAYS`'
/// `Count::Bytes`) and a name a byte past the longest shown, to see its
/// NUL.
#[test]
fn sized_signal_sets_and_task_names_under_both_engines() {
    let bin = fixture("sized_sets");
    let expected = [
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
        "rt_sigprocmask(SIG_SETMASK, ~[], NULL, 16) = -1 [EINVAL]",
        "rt_sigtimedwait([], NULL, {tv_sec=0, tv_nsec=42}, 128) = -1 [EINVAL]",
        "ppoll(NULL, 0, {tv_sec=0, tv_nsec=42}, ~[], 16) = -1 [EINVAL]",
        "signalfd4(-1, ~[], 16, 0) = -1 [EINVAL]",
        "prctl(PR_SET_NAME, \"123456789abcdef\") = 0",
        "prctl(PR_SET_NAME, \"0123456789abcde\"..) = 0",
        "exit_group(0)",
        "Process exited normally with code 0",
    ];
    for engine in [&[][..], &["--bpf"]] {
        let run = trace(engine, &[name(&bin)]);
        assert_eq!(run.code(), Some(0), "{engine:?}: {}", run.stderr());
        assert_eq!(run.after_marker(), expected, "{engine:?}");
    }
}
