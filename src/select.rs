//! Call selection: strace's `-e trace=`, `-e status=`, `-e signal=` sets
//! (and, in `inject.rs`, the `-e inject=` / `-e fault=` rules).
//!
//! A [`TraceSet`] says which calls are printed, by name, `%class`,
//! `/regex` or `all`/`none`, optionally negated with a leading `!`. It is
//! compiled once into a per-arch table of call numbers, which is also what
//! the seccomp fast path turns into a BPF filter. Selection decides only
//! printing: the engine still does its bookkeeping for calls not printed.

mod classes;
pub mod inject;

use crate::kernel::Arch;

/// What a `%class` term names: one of strace's classes, or rtrace's own
/// `%ioctl`.
#[derive(Clone, Copy, Debug)]
enum ClassTerm {
    /// A class of strace's tables (`%desc`, `%file`, ...).
    Strace(classes::Class),
    /// Every ioctl: strace has no such class, and ioctl decoding is much of
    /// what rtrace is for.
    Ioctl,
}

impl ClassTerm {
    /// The class called `name` (without its `%`).
    fn parse(name: &str) -> Option<ClassTerm> {
        if name.eq_ignore_ascii_case("ioctl") {
            return Some(ClassTerm::Ioctl);
        }
        classes::class(name).map(ClassTerm::Strace)
    }

    /// Whether call `name` belongs to the class.
    fn contains(self, name: &str) -> bool {
        match self {
            ClassTerm::Strace(class) => classes::member(class, name),
            ClassTerm::Ioctl => name == "ioctl",
        }
    }
}

/// The names `-e trace=%NAME` accepts (without their `%`): strace's
/// classes, then rtrace's own `ioctl`.
pub fn class_names() -> Vec<&'static str> {
    classes::names().chain(["ioctl"]).collect()
}

/// Whether call `name` is in `%class` (`class` without its `%`); false for
/// an unknown class.
pub fn in_class(class: &str, name: &str) -> bool {
    ClassTerm::parse(class).is_some_and(|c| c.contains(name))
}

/// One term of a trace set.
#[derive(Debug)]
enum Term {
    All,
    Name(String),
    Class(ClassTerm),
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
                let Some(class) = ClassTerm::parse(class) else {
                    return Err(format!(
                        "unknown class '%{class}' (classes: %{})",
                        class_names().join(" %")
                    ));
                };
                Term::Class(class)
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
                if !names.map(|(_, name)| name).any(|n| re.is_match(n)) {
                    return Err(format!("regex '/{pattern}' matches no system call"));
                }
                Term::Regex(re)
            } else {
                if !optional && !known_name(word) {
                    // strace's oldest spelling of a class has no `%`.
                    if ClassTerm::parse(word).is_some() {
                        return Err(format!(
                            "unknown system call '{word}' (the class is '%{word}')"
                        ));
                    }
                    return Err(match nearest_call(word) {
                        Some(near) => {
                            format!("unknown system call '{word}' (did you mean {near}?)")
                        }
                        None => format!("unknown system call '{word}'"),
                    });
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

    /// Whether call `name` is selected.
    pub fn contains(&self, name: &str) -> bool {
        let hit = self.terms.iter().any(|t| match t {
            Term::All => true,
            Term::Name(n) => n == name,
            Term::Class(c) => c.contains(name),
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
/// The call name nearest to a misspelt one, of either ABI.
fn nearest_call(word: &str) -> Option<&'static str> {
    let names = crate::service::all_calls(Arch::X86_64)
        .chain(crate::service::all_calls(Arch::I386))
        .map(|(_, name)| name)
        .chain(
            crate::service::net::SOCKETCALLS
                .iter()
                .map(|&(call, _, _)| call),
        );
    crate::spelling::nearest(word, names)
}

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
                    let sig = signal_number(word).ok_or_else(|| {
                        let names = (1..=64).filter_map(crate::decode::signal_name);
                        let names: Vec<String> = names.map(|n| n.to_string()).collect();
                        match crate::spelling::nearest(word, names.iter().map(String::as_str)) {
                            Some(near) => format!("unknown signal '{word}' (did you mean {near}?)"),
                            None => format!("unknown signal '{word}'"),
                        }
                    })?;
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
    (1..=64).find(|&n| crate::decode::signal_name(n).as_deref() == Some(name.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_classes_regex_and_negation() {
        let set = TraceSet::parse("openat,%network,/^mmap").unwrap();
        assert!(set.contains("openat"));
        assert!(set.contains("socket"));
        assert!(set.contains("mmap2"));
        assert!(!set.contains("read"));
        let not = TraceSet::parse("!%desc").unwrap();
        assert!(!not.contains("read"));
        assert!(not.contains("getpid"));
        assert!(TraceSet::parse("%file").unwrap().contains("openat"));
        assert!(TraceSet::parse("nosuchcall").is_err());
        assert!(TraceSet::parse("?nosuchcall").is_ok());
        assert!(TraceSet::parse("%bogus").is_err());
        assert!(TraceSet::parse("/(").is_err());
        assert!(TraceSet::parse("%ioctl").unwrap().contains("ioctl"));
        assert!(TraceSet::parse("%DESC").unwrap().contains("read"));
        let like = TraceSet::parse("%%stat,%%statfs").unwrap();
        assert!(like.contains("newfstatat") && like.contains("fstatfs64"));
        assert!(!like.contains("openat"));
    }

    /// Memberships as strace's tables give them: for each class, calls in
    /// it and calls that are not (among them what a rule derived from
    /// parameter kinds would get wrong), with x86_64 and i386 names.
    #[test]
    fn classes_follow_strace() {
        // (class, calls in it, calls not in it)
        let cases: &[(&str, &str, &str)] = &[
            (
                "desc",
                "read pipe pipe2 poll eventfd2 epoll_create1 creat open select pselect6 ppoll \
                 memfd_create timerfd_create pidfd_open inotify_init ioctl mmap openat fstat \
                 sendfile io_uring_enter _llseek _newselect fstat64 fcntl64 mmap2 ppoll_time64 \
                 socketcall",
                "bind connect accept accept4 socket sendmsg getpid stat execve close_range \
                 futex",
            ),
            (
                "file",
                "open openat getcwd fsconfig execve stat statx chdir stat64 lchown32 \
                 truncate64 utimensat_time64",
                "read fchdir fstat close socket fstat64",
            ),
            (
                "memory",
                "mmap brk io_setup io_destroy io_uring_register set_mempolicy_home_node mmap2 \
                 madvise shmat mseal",
                "io_submit read shmget memfd_create",
            ),
            (
                "network",
                "socket bind connect accept sendfile sendfile64 recvmmsg_time64 send recv",
                "read socketcall pipe splice",
            ),
            (
                "signal",
                "kill rt_sigaction io_uring_enter signalfd4 sigaction sigreturn \
                 rt_sigtimedwait_time64 pidfd_send_signal",
                "read pidfd_open exit",
            ),
            (
                "process",
                "fork clone clone3 execve exit_group wait4 kill waitpid pidfd_send_signal \
                 rt_sigqueueinfo",
                "pidfd_open pidfd_getfd setns unshare getpid prctl",
            ),
            (
                "clock",
                "clock_gettime gettimeofday adjtimex time settimeofday clock_gettime64 \
                 clock_settime64",
                "nanosleep clock_nanosleep clock_nanosleep_time64 stime",
            ),
            (
                "ipc",
                "shmget semop msgrcv ipc semtimedop_time64",
                "mq_open pipe mq_timedsend",
            ),
            (
                "creds",
                "getuid setresuid32 capget prctl getgroups32",
                "getpid setsid setpgid",
            ),
            ("stat", "stat stat64 oldstat", "lstat fstat statx"),
            ("lstat", "lstat lstat64 oldlstat", "stat"),
            ("fstat", "fstat fstat64 newfstatat fstatat64 statx", "stat"),
            ("%stat", "stat lstat64 statx oldfstat", "statfs"),
            ("statfs", "statfs statfs64", "fstatfs ustat"),
            ("fstatfs", "fstatfs fstatfs64", "statfs"),
            ("%statfs", "statfs fstatfs64 ustat", "stat"),
            ("pure", "getpid gettid getuid32 getppid", "getpgid kill"),
            ("ioctl", "ioctl", "fcntl read"),
        ];
        for &(class, inside, outside) in cases {
            // A misspelt name would be outside every class.
            for call in inside.split_whitespace().chain(outside.split_whitespace()) {
                assert!(known_name(call), "no call {call}");
            }
            for call in inside.split_whitespace() {
                assert!(in_class(class, call), "{call} should be in %{class}");
            }
            for call in outside.split_whitespace() {
                assert!(!in_class(class, call), "{call} should not be in %{class}");
            }
        }
        assert!(in_class("net", "connect"));
        // Every class the parser accepts has members.
        for class in class_names() {
            let known = [Arch::X86_64, Arch::I386]
                .iter()
                .flat_map(|&arch| crate::service::all_calls(arch))
                .any(|(_, name)| in_class(class, name));
            assert!(known, "%{class} selects no call");
        }
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
