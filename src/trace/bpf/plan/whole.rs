//! The calls whose entry sends no record when nothing shows times
//! (`RT_SPEC2_WHOLE`): their exit's record, which has the arguments (the
//! registers still hold them), is the whole call. A record costs the
//! traced task about as much as the rest of a short call's tracing, so a
//! call sent once is a call traced at nearly half the cost.
//!
//! Only a call that cannot block may be sent so: the entry record is what
//! shows a call in progress (`read(0, <..>`, a task sleeping in it) until
//! it returns, and a call that returns at once has nothing to show
//! meanwhile. And only one that copies nothing at its entry: its entry's
//! captures would have to travel in a record of their own.

use super::{AT_ENTER, SPEC_IPC, SPEC_SOCKETCALL, Spec};

/// `RT_SPEC2_WHOLE`.
pub(super) const SPEC2_WHOLE: u8 = 2;

/// Calls that return without sleeping: they read or set the task's own
/// state (ids, limits, its signal mask's pending set, its memory map's
/// protections) or the clock, and wait on nothing another task or a
/// device holds. Calls on fds are not here, however quick they usually
/// are: a file system or a driver may sleep in any of them (a close on
/// NFS writes back); nor is anything that faults pages in (mlock,
/// madvise), waits for RCU (membarrier) or for entropy (getrandom).
/// x86_64's names and i386's (`getuid32`, `ugetrlimit`).
pub(super) const NEVER_BLOCKING: &[&str] = &[
    "getpid",
    "getppid",
    "gettid",
    "getuid",
    "geteuid",
    "getgid",
    "getegid",
    "getuid32",
    "geteuid32",
    "getgid32",
    "getegid32",
    "getresuid",
    "getresgid",
    "getresuid32",
    "getresgid32",
    "getgroups",
    "getgroups32",
    "getpgrp",
    "getpgid",
    "getsid",
    "getpriority",
    "getcpu",
    "umask",
    "personality",
    "set_tid_address",
    "sched_yield",
    "sched_getscheduler",
    "sched_get_priority_max",
    "sched_get_priority_min",
    "uname",
    "olduname",
    "oldolduname",
    "sysinfo",
    "times",
    "getrusage",
    "getrlimit",
    "ugetrlimit",
    "time",
    "gettimeofday",
    "clock_gettime",
    "clock_gettime64",
    "clock_getres",
    "clock_getres_time64",
    "brk",
    "mprotect",
    "rt_sigpending",
    "sigpending",
    "alarm",
    "getitimer",
];

/// Mark `spec`, call `name`'s, whole if it is one of
/// [`NEVER_BLOCKING`] and its entry copies nothing (its captures all
/// taken at the exit, no fd whose file the entry names, not a
/// multiplexer whose entry reads its call's arguments).
pub(super) fn mark(spec: &mut Spec, name: &str) {
    let quiet_entry = spec.captures().iter().all(|c| c.when & AT_ENTER == 0)
        && spec.fd_args == 0
        && spec.flags & (SPEC_SOCKETCALL | SPEC_IPC) == 0;
    if NEVER_BLOCKING.contains(&name) && quiet_entry {
        spec.flags2 |= SPEC2_WHOLE;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{AT_EXIT, CaptureSpec, I386_BASE, Limits, table};
    use super::*;
    use crate::kernel::Arch;
    use crate::service;

    fn whole_calls(arch: Arch) -> Vec<&'static str> {
        let limits = Limits {
            string_limit: 32,
            verbose: false,
            dumps: false,
        };
        let all = table(limits, &|_| true, &|_| true, &|_| true);
        let base = if arch == Arch::I386 { I386_BASE } else { 0 };
        service::all_calls(arch)
            .filter(|&(nr, name)| {
                let index = base + nr as u32;
                nr < I386_BASE as u64
                    && NEVER_BLOCKING.contains(&name)
                    && all
                        .iter()
                        .any(|(i, s)| *i == index && s.flags2 & SPEC2_WHOLE != 0)
            })
            .map(|(_, name)| name)
            .collect()
    }

    #[test]
    fn every_never_blocking_call_is_a_call_and_is_sent_whole() {
        let x86_64 = whole_calls(Arch::X86_64);
        let i386 = whole_calls(Arch::I386);
        let mut entry_copies = Vec::new();
        for name in NEVER_BLOCKING {
            let known = service::number(Arch::X86_64, name).is_some()
                || service::number(Arch::I386, name).is_some();
            assert!(known, "{name} is no call");
            if !x86_64.contains(name) && !i386.contains(name) {
                entry_copies.push(*name);
            }
        }
        assert!(
            entry_copies.is_empty(),
            "copied at the entry: {entry_copies:?}"
        );
        assert!(x86_64.contains(&"getppid") && i386.contains(&"getuid32"));
    }

    #[test]
    fn a_call_that_copies_at_its_entry_or_may_block_is_not_whole() {
        let mut spec = Spec::default();
        mark(&mut spec, "read");
        assert_eq!(spec.flags2 & SPEC2_WHOLE, 0);
        let mut spec = Spec::default();
        spec.push(CaptureSpec {
            when: AT_ENTER | AT_EXIT,
            ..Default::default()
        });
        mark(&mut spec, "uname");
        assert_eq!(spec.flags2 & SPEC2_WHOLE, 0);
        let mut spec = Spec {
            fd_args: 1,
            ..Default::default()
        };
        mark(&mut spec, "getpid");
        assert_eq!(spec.flags2 & SPEC2_WHOLE, 0);
        let mut spec = Spec::default();
        mark(&mut spec, "getpid");
        assert_eq!(spec.flags2 & SPEC2_WHOLE, SPEC2_WHOLE);
    }
}
