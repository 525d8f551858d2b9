//! Call selection: strace's `-e trace=`, `-e status=`, `-e signal=` sets.
//!
//! A [`TraceSet`] says which calls are printed, by name, `%class`,
//! `/regex` or `all`/`none`, optionally negated with a leading `!`. It is
//! compiled once into a per-arch table of call numbers, which is also what
//! the seccomp fast path turns into a BPF filter. Selection decides only
//! printing: the engine still does its bookkeeping for calls not printed.

use crate::kernel::Arch;
use crate::service::params::Kind;

/// The classes `-e trace=%name` accepts.
pub const CLASSES: &[&str] = &[
    "file", "desc", "process", "network", "net", "signal", "ipc", "memory", "creds", "clock",
    "ioctl",
];

const PROCESS: &[&str] = &[
    "fork",
    "vfork",
    "clone",
    "clone3",
    "execve",
    "execveat",
    "exit",
    "exit_group",
    "wait4",
    "waitid",
    "waitpid",
    "kill",
    "tkill",
    "tgkill",
    "rt_sigqueueinfo",
    "rt_tgsigqueueinfo",
    "pidfd_open",
    "pidfd_send_signal",
    "pidfd_getfd",
    "unshare",
    "setns",
];

const NETWORK: &[&str] = &[
    "socket",
    "socketpair",
    "bind",
    "connect",
    "listen",
    "accept",
    "accept4",
    "getsockname",
    "getpeername",
    "sendto",
    "recvfrom",
    "sendmsg",
    "recvmsg",
    "sendmmsg",
    "recvmmsg",
    "setsockopt",
    "getsockopt",
    "shutdown",
    "socketcall",
    "send",
    "recv",
];

const SIGNAL: &[&str] = &[
    "kill",
    "tkill",
    "tgkill",
    "signal",
    "sigaction",
    "rt_sigaction",
    "sigprocmask",
    "rt_sigprocmask",
    "sigpending",
    "rt_sigpending",
    "sigsuspend",
    "rt_sigsuspend",
    "rt_sigtimedwait",
    "rt_sigtimedwait_time64",
    "rt_sigqueueinfo",
    "rt_tgsigqueueinfo",
    "sigreturn",
    "rt_sigreturn",
    "sigaltstack",
    "pause",
    "signalfd",
    "signalfd4",
    "sgetmask",
    "ssetmask",
    "pidfd_send_signal",
];

const IPC: &[&str] = &[
    "ipc",
    "msgget",
    "msgsnd",
    "msgrcv",
    "msgctl",
    "semget",
    "semop",
    "semctl",
    "semtimedop",
    "semtimedop_time64",
    "shmget",
    "shmat",
    "shmdt",
    "shmctl",
];

const MEMORY: &[&str] = &[
    "brk",
    "mmap",
    "mmap2",
    "old_mmap",
    "munmap",
    "mremap",
    "mprotect",
    "pkey_mprotect",
    "madvise",
    "process_madvise",
    "mlock",
    "mlock2",
    "munlock",
    "mlockall",
    "munlockall",
    "msync",
    "mincore",
    "mbind",
    "set_mempolicy",
    "get_mempolicy",
    "migrate_pages",
    "move_pages",
    "remap_file_pages",
    "memfd_secret",
    "map_shadow_stack",
    "mseal",
    "shmat",
    "shmdt",
];

const CREDS: &[&str] = &[
    "getuid",
    "getuid32",
    "geteuid",
    "geteuid32",
    "getgid",
    "getgid32",
    "getegid",
    "getegid32",
    "setuid",
    "setuid32",
    "setgid",
    "setgid32",
    "setreuid",
    "setreuid32",
    "setregid",
    "setregid32",
    "setresuid",
    "setresuid32",
    "setresgid",
    "setresgid32",
    "getresuid",
    "getresuid32",
    "getresgid",
    "getresgid32",
    "setfsuid",
    "setfsuid32",
    "setfsgid",
    "setfsgid32",
    "getgroups",
    "getgroups32",
    "setgroups",
    "setgroups32",
    "capget",
    "capset",
    "prctl",
];

const CLOCK: &[&str] = &[
    "time",
    "stime",
    "gettimeofday",
    "settimeofday",
    "adjtimex",
    "clock_adjtime",
    "clock_adjtime64",
    "clock_gettime",
    "clock_gettime64",
    "clock_settime",
    "clock_settime64",
    "clock_getres",
    "clock_getres_time64",
    "clock_nanosleep",
    "clock_nanosleep_time64",
    "nanosleep",
];

/// Whether call `name` with parameter kinds `params` is in `%class`.
pub fn in_class(class: &str, name: &str, params: &[Kind]) -> bool {
    match class {
        "file" => params.contains(&Kind::Path),
        "desc" => params.iter().any(|k| matches!(k, Kind::Fd | Kind::DirFd)),
        "process" => PROCESS.contains(&name),
        "network" | "net" => NETWORK.contains(&name),
        "signal" => SIGNAL.contains(&name),
        "ipc" => IPC.contains(&name),
        "memory" => MEMORY.contains(&name),
        "creds" => CREDS.contains(&name),
        "clock" => CLOCK.contains(&name),
        "ioctl" => name == "ioctl",
        _ => false,
    }
}

/// One term of a trace set.
#[derive(Debug)]
enum Term {
    All,
    Name(String),
    Class(String),
    Regex(regex::Regex),
}

/// A parsed `-e trace=SET`.
#[derive(Debug)]
pub struct TraceSet {
    terms: Vec<Term>,
    negated: bool,
    /// Whether the set names calls only (names, classes): then the seccomp
    /// fast path can stop the tracee on exactly these calls.
    pub static_only: bool,
}

impl TraceSet {
    /// Every call.
    pub fn all() -> TraceSet {
        TraceSet {
            terms: vec![Term::All],
            negated: false,
            static_only: true,
        }
    }

    /// Parse `name,%class,/regex,...`, `all`, `none`, `!SET`.
    pub fn parse(spec: &str) -> Result<TraceSet, String> {
        let (negated, body) = match spec.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, spec),
        };
        let mut terms = Vec::new();
        for raw in body.split(',') {
            let word = raw.trim();
            if word.is_empty() {
                return Err(format!("empty name in trace set '{spec}'"));
            }
            let (optional, word) = match word.strip_prefix('?') {
                Some(w) => (true, w),
                None => (false, word),
            };
            let term = if word == "all" {
                Term::All
            } else if word == "none" {
                continue;
            } else if let Some(class) = word.strip_prefix('%') {
                if !CLASSES.contains(&class) {
                    return Err(format!(
                        "unknown class '%{class}' (classes: %{})",
                        CLASSES.join(" %")
                    ));
                }
                Term::Class(class.to_string())
            } else if let Some(pattern) = word.strip_prefix('/') {
                let re = regex::Regex::new(pattern).map_err(|e| {
                    // The regex crate's message spans lines; keep its last.
                    let text = e.to_string();
                    let last = text.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
                    let last = last.trim().trim_start_matches("error: ");
                    format!("bad regex '{pattern}': {last}")
                })?;
                // As strace: a pattern that names nothing is a mistake.
                let names = crate::service::all_calls(crate::kernel::Arch::X86_64)
                    .chain(crate::service::all_calls(crate::kernel::Arch::I386));
                if !names.map(|(_, name, _)| name).any(|n| re.is_match(n)) {
                    return Err(format!("regex '/{pattern}' matches no system call"));
                }
                Term::Regex(re)
            } else {
                if !optional && !known_name(word) {
                    return Err(format!("unknown system call '{word}'"));
                }
                Term::Name(word.to_string())
            };
            terms.push(term);
        }
        Ok(TraceSet {
            terms,
            negated,
            static_only: true,
        })
    }

    /// Whether call `name` (with its parameter kinds) is selected.
    pub fn contains(&self, name: &str, params: &[Kind]) -> bool {
        let hit = self.terms.iter().any(|t| match t {
            Term::All => true,
            Term::Name(n) => n == name,
            Term::Class(c) => in_class(c, name, params),
            Term::Regex(re) => re.is_match(name),
        });
        hit != self.negated
    }

    /// Whether every call is selected (nothing to filter).
    pub fn is_all(&self) -> bool {
        !self.negated && self.terms.iter().any(|t| matches!(t, Term::All))
    }
}

/// A call name of either table, or one that i386 makes only through
/// socketcall (send, recv).
fn known_name(name: &str) -> bool {
    [Arch::X86_64, Arch::I386]
        .iter()
        .any(|&arch| crate::service::number(arch, name).is_some())
        || crate::service::net::SOCKETCALLS
            .iter()
            .any(|&(call, _, _)| call == name)
}

/// Which outcomes of a call are printed (`-e status=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StatusSet {
    /// Calls that returned without error.
    pub successful: bool,
    /// Calls that failed.
    pub failed: bool,
    /// Calls that never returned (exit, a process killed in a call).
    pub unfinished: bool,
    /// Calls whose result could not be read.
    pub unavailable: bool,
    /// Calls cut off by detaching.
    pub detached: bool,
}

impl StatusSet {
    /// Every outcome.
    pub const ALL: StatusSet = StatusSet {
        successful: true,
        failed: true,
        unfinished: true,
        unavailable: true,
        detached: true,
    };

    /// Parse `successful,failed,...`, `all`, `none`, `!SET`.
    pub fn parse(spec: &str) -> Result<StatusSet, String> {
        let (negated, body) = match spec.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, spec),
        };
        let mut set = StatusSet {
            successful: false,
            failed: false,
            unfinished: false,
            unavailable: false,
            detached: false,
        };
        for word in body.split(',').map(str::trim) {
            match word {
                "all" => set = StatusSet::ALL,
                "none" => {}
                "successful" => set.successful = true,
                "failed" => set.failed = true,
                "unfinished" => set.unfinished = true,
                "unavailable" => set.unavailable = true,
                "detached" => set.detached = true,
                _ => {
                    return Err(format!(
                        "unknown status '{word}' (successful, failed, unfinished, unavailable, detached)"
                    ));
                }
            }
        }
        if negated {
            set = StatusSet {
                successful: !set.successful,
                failed: !set.failed,
                unfinished: !set.unfinished,
                unavailable: !set.unavailable,
                detached: !set.detached,
            };
        }
        Ok(set)
    }

    /// Whether anything is filtered out.
    pub fn is_all(&self) -> bool {
        *self == StatusSet::ALL
    }
}

/// Which signals are reported (`-e signal=`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignalSet {
    reported: [bool; 65],
}

impl SignalSet {
    /// Every signal.
    pub fn all() -> SignalSet {
        SignalSet {
            reported: [true; 65],
        }
    }

    /// Parse `SIGUSR1,USR2,10,...`, `all`, `none`, `!SET`.
    pub fn parse(spec: &str) -> Result<SignalSet, String> {
        let (negated, body) = match spec.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, spec),
        };
        let mut reported = [false; 65];
        for word in body.split(',').map(str::trim) {
            match word {
                "all" => reported = [true; 65],
                "none" => {}
                _ => {
                    let sig =
                        signal_number(word).ok_or_else(|| format!("unknown signal '{word}'"))?;
                    reported[sig as usize] = true;
                }
            }
        }
        if negated {
            for r in reported.iter_mut() {
                *r = !*r;
            }
        }
        Ok(SignalSet { reported })
    }

    /// Whether signal `sig` is reported.
    pub fn contains(&self, sig: i32) -> bool {
        self.reported.get(sig as usize).copied().unwrap_or(true)
    }
}

/// A signal by number, `SIGUSR1`, `USR1` or `SIGRTMIN+2`.
fn signal_number(word: &str) -> Option<i32> {
    if let Ok(n) = word.parse::<i32>() {
        return (1..=64).contains(&n).then_some(n);
    }
    let upper = word.to_ascii_uppercase();
    let name = if upper.starts_with("SIG") {
        upper
    } else {
        format!("SIG{upper}")
    };
    (1..=64).find(|&n| crate::service::signal::signal_name(n).as_deref() == Some(name.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_classes_regex_and_negation() {
        let set = TraceSet::parse("openat,%network,/^mmap").unwrap();
        assert!(set.contains("openat", &[]));
        assert!(set.contains("socket", &[]));
        assert!(set.contains("mmap2", &[]));
        assert!(!set.contains("read", &[Kind::Fd]));
        let not = TraceSet::parse("!%desc").unwrap();
        assert!(!not.contains("read", &[Kind::Fd, Kind::Ptr, Kind::Uint]));
        assert!(not.contains("getpid", &[]));
        let file = TraceSet::parse("%file").unwrap();
        assert!(file.contains("openat", &[Kind::DirFd, Kind::Path, Kind::Hex]));
        assert!(TraceSet::parse("nosuchcall").is_err());
        assert!(TraceSet::parse("?nosuchcall").is_ok());
        assert!(TraceSet::parse("%bogus").is_err());
        assert!(TraceSet::parse("/(").is_err());
        assert!(TraceSet::parse("%ioctl").unwrap().contains("ioctl", &[]));
    }

    #[test]
    fn statuses_and_signals() {
        let s = StatusSet::parse("failed").unwrap();
        assert!(s.failed && !s.successful);
        let s = StatusSet::parse("!failed").unwrap();
        assert!(!s.failed && s.successful && s.unfinished);
        assert!(StatusSet::parse("bogus").is_err());
        let sigs = SignalSet::parse("USR1,SIGTERM,2").unwrap();
        assert!(sigs.contains(10) && sigs.contains(15) && sigs.contains(2));
        assert!(!sigs.contains(17));
        assert!(!SignalSet::parse("!SIGCHLD").unwrap().contains(17));
        assert!(SignalSet::parse("SIGNOPE").is_err());
    }
}
