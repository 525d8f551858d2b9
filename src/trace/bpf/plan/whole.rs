//! The calls whose entry sends no record when nothing shows times
//! (`RT_SPEC2_WHOLE`): their exit's record, which has the arguments (the
//! registers still hold them), is the whole call. A record costs the
//! traced task about as much as the rest of a short call's tracing, so a
//! call sent once is a call traced at nearly half the cost.
//!
//! Only a call that cannot block may be sent so: the entry record is what
//! shows a call in progress (`read(0, <..>`, a task sleeping in it) until
//! it returns, and a call that returns at once has nothing to show
//! meanwhile. And only one whose records carry nothing but its
//! registers.

use super::Spec;

/// `RT_SPEC2_WHOLE`.
pub(super) const SPEC2_WHOLE: u8 = 2;

/// `RT_SPEC2_QUICK`: the call cannot block ([`NEVER_BLOCKING`]), so its
/// success's exit does not ask whether its task is being killed (a kill
/// would have to land in the instant the call runs).
pub(super) const SPEC2_QUICK: u8 = 4;

/// Calls that return without sleeping and touch no user memory: they
/// read or set the task's own ids, priority, umask, personality, alarm
/// or scheduling class, and wait on nothing another task or a device
/// holds. A call that writes a result through a pointer is not here,
/// however quick it usually is: the kernel's copy may wait for a page a
/// userfaultfd handler or a network file system must bring in. Nor is a
/// call on an fd (a file system or driver may sleep in any of them: a
/// close on NFS writes back), one that takes the address space's lock
/// for writing (brk, mprotect: other threads' faults hold it), a clock
/// read (a dynamic clock is a device's), or anything that waits for
/// RCU (membarrier) or for entropy (getrandom). x86_64's names and
/// i386's (`getuid32`).
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
    "getpgrp",
    "getpgid",
    "getsid",
    "getpriority",
    "umask",
    "personality",
    "sched_yield",
    "sched_getscheduler",
    "sched_get_priority_max",
    "sched_get_priority_min",
    "alarm",
];

/// Mark `spec`, call `name`'s, whole if it is one of
/// [`NEVER_BLOCKING`] and its records carry nothing but registers: no
/// capture at either end, no fd whose file a record names, no flag that
/// asks the exit for more (a new fd, a pair of them, a dying task's
/// signals, directory entries, an exec's strings, a multiplexer's call,
/// netlink data). The program's fast path (`send_whole`) sends such an
/// exit's record and nothing else.
pub(super) fn mark(spec: &mut Spec, name: &str) {
    let registers_only = spec.ncaps == 0
        && spec.fd_args == 0
        && spec.pair_arg == 0
        && spec.flags == 0
        && spec.flags2 == 0;
    if NEVER_BLOCKING.contains(&name) {
        spec.flags2 |= SPEC2_QUICK;
        if registers_only {
            spec.flags2 |= SPEC2_WHOLE;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{AT_EXIT, CaptureSpec, I386_BASE, Limits, SPEC_SIGNALS, table};
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
        let mut not_whole = Vec::new();
        for name in NEVER_BLOCKING {
            let known = service::number(Arch::X86_64, name).is_some()
                || service::number(Arch::I386, name).is_some();
            assert!(known, "{name} is no call");
            if !x86_64.contains(name) && !i386.contains(name) {
                not_whole.push(*name);
            }
        }
        assert!(
            not_whole.is_empty(),
            "records with more than registers: {not_whole:?}"
        );
        assert!(x86_64.contains(&"getppid") && i386.contains(&"getuid32"));
        // Quick, but they write through a pointer or may wait on a lock.
        for name in ["uname", "brk", "mprotect", "clock_gettime", "read"] {
            assert!(!x86_64.contains(&name), "{name}");
        }
    }

    #[test]
    fn a_call_that_copies_or_may_block_is_not_whole() {
        let mut spec = Spec::default();
        mark(&mut spec, "read");
        assert_eq!(spec.flags2 & SPEC2_WHOLE, 0);
        let mut spec = Spec::default();
        spec.push(CaptureSpec {
            when: AT_EXIT,
            ..Default::default()
        });
        mark(&mut spec, "getpid");
        assert_eq!(spec.flags2 & SPEC2_WHOLE, 0);
        let mut spec = Spec {
            fd_args: 1,
            ..Default::default()
        };
        mark(&mut spec, "getpid");
        assert_eq!(spec.flags2 & SPEC2_WHOLE, 0);
        let mut spec = Spec {
            flags: SPEC_SIGNALS,
            ..Default::default()
        };
        mark(&mut spec, "getpid");
        assert_eq!(spec.flags2 & SPEC2_WHOLE, 0);
        let mut spec = Spec::default();
        mark(&mut spec, "getpid");
        assert_eq!(spec.flags2 & SPEC2_WHOLE, SPEC2_WHOLE);
    }
}
