//! strace's system call classes (`-e trace=%desc`, `%file`, ...) by call
//! name.
//!
//! Users write `%desc` expecting strace's set, so membership is not derived
//! from rtrace's own parameter kinds (a socket call takes an fd but strace
//! has it only in `%network`; `pipe2` takes none but creates two). The
//! table below lists, for every call of the x86_64 and i386 tables (and the
//! calls i386 makes only through socketcall and ipc), the classes strace's
//! syscall tables give it: strace's `TD` is `%desc`, `TF` `%file`, `TI`
//! `%ipc`, `TN` `%network`, `TP` `%process`, `TS` `%signal`, `TM` `%memory`,
//! `TC` `%creds`, `TCL` `%clock`, `TST`/`TLST`/`TFST`/`TSTA` `%stat`/
//! `%lstat`/`%fstat`/`%%stat`, `TSF`/`TFSF`/`TSFA` `%statfs`/`%fstatfs`/
//! `%%statfs`, `PU` `%pure`. A call in no class is not listed. No call has
//! different classes in the two tables, so one name-keyed table serves
//! both.

/// `%desc`: calls that take, create or operate on file descriptors.
const DESC: u32 = 1 << 0;
/// `%file`: calls that take a file name.
const FILE: u32 = 1 << 1;
/// `%ipc`: System V IPC.
const IPC: u32 = 1 << 2;
/// `%network` (`%net`): sockets.
const NETWORK: u32 = 1 << 3;
/// `%process`: process lifecycle (fork, exec, exit, wait, kill).
const PROCESS: u32 = 1 << 4;
/// `%signal`: signal-related calls.
const SIGNAL: u32 = 1 << 5;
/// `%memory`: memory mapping.
const MEMORY: u32 = 1 << 6;
/// `%creds`: user and group ids, capabilities.
const CREDS: u32 = 1 << 7;
/// `%clock`: reading or changing the system clocks.
const CLOCK: u32 = 1 << 8;
/// `%stat`: stat by name, following links.
const STAT: u32 = 1 << 9;
/// `%lstat`: stat by name, not following links.
const LSTAT: u32 = 1 << 10;
/// `%fstat`: stat of a descriptor (or relative to one).
const FSTAT: u32 = 1 << 11;
/// `%%stat`: every stat variant.
const STAT_LIKE: u32 = 1 << 12;
/// `%statfs`: statfs by name.
const STATFS: u32 = 1 << 13;
/// `%fstatfs`: statfs of a descriptor.
const FSTATFS: u32 = 1 << 14;
/// `%%statfs`: every statfs variant.
const STATFS_LIKE: u32 = 1 << 15;
/// `%pure`: calls with no arguments that always succeed.
const PURE: u32 = 1 << 16;

/// The class names `-e trace=%NAME` accepts for the table (without their
/// `%`), with their bits; `net` is strace's short name for `network`.
const NAMES: &[(&str, u32)] = &[
    ("file", FILE),
    ("desc", DESC),
    ("process", PROCESS),
    ("network", NETWORK),
    ("net", NETWORK),
    ("signal", SIGNAL),
    ("ipc", IPC),
    ("memory", MEMORY),
    ("creds", CREDS),
    ("clock", CLOCK),
    ("stat", STAT),
    ("lstat", LSTAT),
    ("fstat", FSTAT),
    ("%stat", STAT_LIKE),
    ("statfs", STATFS),
    ("fstatfs", FSTATFS),
    ("%statfs", STATFS_LIKE),
    ("pure", PURE),
];

/// A class of the table, as [`class`] found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Class(u32);

/// The names of the table's classes, in the order `--help` lists them.
pub fn names() -> impl Iterator<Item = &'static str> {
    NAMES.iter().map(|&(name, _)| name)
}

/// The class called `name` (without its `%`). Case does not matter, as in
/// strace.
pub fn class(name: &str) -> Option<Class> {
    NAMES
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|&(_, bits)| Class(bits))
}

/// Whether call `call` belongs to `class`.
pub fn member(class: Class, call: &str) -> bool {
    MEMBERS
        .binary_search_by(|&(name, _)| name.cmp(call))
        .is_ok_and(|at| MEMBERS[at].1 & class.0 != 0)
}

/// Every classified call and its classes, sorted by name (binary search).
static MEMBERS: &[(&str, u32)] = &[
    ("_llseek", DESC),
    ("_newselect", DESC),
    ("accept", NETWORK),
    ("accept4", NETWORK),
    ("access", FILE),
    ("acct", FILE),
    ("adjtimex", CLOCK),
    ("bind", NETWORK),
    ("bpf", DESC),
    ("break", MEMORY),
    ("brk", MEMORY),
    ("cachestat", DESC),
    ("capget", CREDS),
    ("capset", CREDS),
    ("chdir", FILE),
    ("chmod", FILE),
    ("chown", FILE),
    ("chown32", FILE),
    ("chroot", FILE),
    ("clock_adjtime", CLOCK),
    ("clock_adjtime64", CLOCK),
    ("clock_getres", CLOCK),
    ("clock_getres_time64", CLOCK),
    ("clock_gettime", CLOCK),
    ("clock_gettime64", CLOCK),
    ("clock_settime", CLOCK),
    ("clock_settime64", CLOCK),
    ("clone", PROCESS),
    ("clone3", PROCESS),
    ("close", DESC),
    ("connect", NETWORK),
    ("copy_file_range", DESC),
    ("creat", DESC | FILE),
    ("dup", DESC),
    ("dup2", DESC),
    ("dup3", DESC),
    ("epoll_create", DESC),
    ("epoll_create1", DESC),
    ("epoll_ctl", DESC),
    ("epoll_pwait", DESC),
    ("epoll_pwait2", DESC),
    ("epoll_wait", DESC),
    ("eventfd", DESC),
    ("eventfd2", DESC),
    ("execve", FILE | PROCESS),
    ("execveat", DESC | FILE | PROCESS),
    ("exit", PROCESS),
    ("exit_group", PROCESS),
    ("faccessat", DESC | FILE),
    ("faccessat2", DESC | FILE),
    ("fadvise64", DESC),
    ("fadvise64_64", DESC),
    ("fallocate", DESC),
    ("fanotify_init", DESC),
    ("fanotify_mark", DESC | FILE),
    ("fchdir", DESC),
    ("fchmod", DESC),
    ("fchmodat", DESC | FILE),
    ("fchmodat2", DESC | FILE),
    ("fchown", DESC),
    ("fchown32", DESC),
    ("fchownat", DESC | FILE),
    ("fcntl", DESC),
    ("fcntl64", DESC),
    ("fdatasync", DESC),
    ("fgetxattr", DESC),
    ("file_getattr", DESC | FILE),
    ("file_setattr", DESC | FILE),
    ("finit_module", DESC),
    ("flistxattr", DESC),
    ("flock", DESC),
    ("fork", PROCESS),
    ("fremovexattr", DESC),
    ("fsconfig", DESC | FILE),
    ("fsetxattr", DESC),
    ("fsmount", DESC),
    ("fsopen", DESC),
    ("fspick", DESC | FILE),
    ("fstat", DESC | FSTAT | STAT_LIKE),
    ("fstat64", DESC | FSTAT | STAT_LIKE),
    ("fstatat64", DESC | FILE | FSTAT | STAT_LIKE),
    ("fstatfs", DESC | FSTATFS | STATFS_LIKE),
    ("fstatfs64", DESC | FSTATFS | STATFS_LIKE),
    ("fsync", DESC),
    ("ftruncate", DESC),
    ("ftruncate64", DESC),
    ("futimesat", DESC | FILE),
    ("get_mempolicy", MEMORY),
    ("getcwd", FILE),
    ("getdents", DESC),
    ("getdents64", DESC),
    ("getegid", CREDS | PURE),
    ("getegid32", CREDS | PURE),
    ("geteuid", CREDS | PURE),
    ("geteuid32", CREDS | PURE),
    ("getgid", CREDS | PURE),
    ("getgid32", CREDS | PURE),
    ("getgroups", CREDS),
    ("getgroups32", CREDS),
    ("getpeername", NETWORK),
    ("getpgrp", PURE),
    ("getpid", PURE),
    ("getpmsg", NETWORK),
    ("getppid", PURE),
    ("getresgid", CREDS),
    ("getresgid32", CREDS),
    ("getresuid", CREDS),
    ("getresuid32", CREDS),
    ("getsockname", NETWORK),
    ("getsockopt", NETWORK),
    ("gettid", PURE),
    ("gettimeofday", CLOCK),
    ("getuid", CREDS | PURE),
    ("getuid32", CREDS | PURE),
    ("getxattr", FILE),
    ("getxattrat", DESC | FILE),
    ("inotify_add_watch", DESC | FILE),
    ("inotify_init", DESC),
    ("inotify_init1", DESC),
    ("inotify_rm_watch", DESC),
    ("io_destroy", MEMORY),
    ("io_setup", MEMORY),
    ("io_uring_enter", DESC | SIGNAL),
    ("io_uring_register", DESC | MEMORY),
    ("io_uring_setup", DESC),
    ("ioctl", DESC),
    ("ipc", IPC),
    ("kexec_file_load", DESC),
    ("kill", PROCESS | SIGNAL),
    ("landlock_add_rule", DESC),
    ("landlock_create_ruleset", DESC),
    ("landlock_restrict_self", DESC),
    ("lchown", FILE),
    ("lchown32", FILE),
    ("lgetxattr", FILE),
    ("link", FILE),
    ("linkat", DESC | FILE),
    ("listen", NETWORK),
    ("listxattr", FILE),
    ("listxattrat", DESC | FILE),
    ("llistxattr", FILE),
    ("lremovexattr", FILE),
    ("lseek", DESC),
    ("lsetxattr", FILE),
    ("lstat", FILE | LSTAT | STAT_LIKE),
    ("lstat64", FILE | LSTAT | STAT_LIKE),
    ("madvise", MEMORY),
    ("map_shadow_stack", MEMORY),
    ("mbind", MEMORY),
    ("memfd_create", DESC),
    ("memfd_secret", DESC),
    ("migrate_pages", MEMORY),
    ("mincore", MEMORY),
    ("mkdir", FILE),
    ("mkdirat", DESC | FILE),
    ("mknod", FILE),
    ("mknodat", DESC | FILE),
    ("mlock", MEMORY),
    ("mlock2", MEMORY),
    ("mlockall", MEMORY),
    ("mmap", DESC | MEMORY),
    ("mmap2", DESC | MEMORY),
    ("mount", FILE),
    ("mount_setattr", DESC | FILE),
    ("move_mount", DESC | FILE),
    ("move_pages", MEMORY),
    ("mprotect", MEMORY),
    ("mq_getsetattr", DESC),
    ("mq_notify", DESC),
    ("mq_open", DESC),
    ("mq_timedreceive", DESC),
    ("mq_timedreceive_time64", DESC),
    ("mq_timedsend", DESC),
    ("mq_timedsend_time64", DESC),
    ("mremap", MEMORY),
    ("mseal", MEMORY),
    ("msgctl", IPC),
    ("msgget", IPC),
    ("msgrcv", IPC),
    ("msgsnd", IPC),
    ("msync", MEMORY),
    ("munlock", MEMORY),
    ("munlockall", MEMORY),
    ("munmap", MEMORY),
    ("name_to_handle_at", DESC | FILE),
    ("newfstatat", DESC | FILE | FSTAT | STAT_LIKE),
    ("oldfstat", DESC | FSTAT | STAT_LIKE),
    ("oldlstat", FILE | LSTAT | STAT_LIKE),
    ("oldstat", FILE | STAT | STAT_LIKE),
    ("open", DESC | FILE),
    ("open_by_handle_at", DESC),
    ("open_tree", DESC | FILE),
    ("open_tree_attr", DESC | FILE),
    ("openat", DESC | FILE),
    ("openat2", DESC | FILE),
    ("pause", SIGNAL),
    ("perf_event_open", DESC),
    ("pidfd_getfd", DESC),
    ("pidfd_open", DESC),
    ("pidfd_send_signal", DESC | PROCESS | SIGNAL),
    ("pipe", DESC),
    ("pipe2", DESC),
    ("pivot_root", FILE),
    ("pkey_mprotect", MEMORY),
    ("poll", DESC),
    ("ppoll", DESC),
    ("ppoll_time64", DESC),
    ("prctl", CREDS),
    ("pread64", DESC),
    ("preadv", DESC),
    ("preadv2", DESC),
    ("process_madvise", DESC),
    ("process_mrelease", DESC),
    ("pselect6", DESC),
    ("pselect6_time64", DESC),
    ("putpmsg", NETWORK),
    ("pwrite64", DESC),
    ("pwritev", DESC),
    ("pwritev2", DESC),
    ("quotactl", FILE),
    ("quotactl_fd", DESC),
    ("read", DESC),
    ("readahead", DESC),
    ("readdir", DESC),
    ("readlink", FILE),
    ("readlinkat", DESC | FILE),
    ("readv", DESC),
    ("recv", NETWORK),
    ("recvfrom", NETWORK),
    ("recvmmsg", NETWORK),
    ("recvmmsg_time64", NETWORK),
    ("recvmsg", NETWORK),
    ("remap_file_pages", MEMORY),
    ("removexattr", FILE),
    ("removexattrat", DESC | FILE),
    ("rename", FILE),
    ("renameat", DESC | FILE),
    ("renameat2", DESC | FILE),
    ("rmdir", FILE),
    ("rt_sigaction", SIGNAL),
    ("rt_sigpending", SIGNAL),
    ("rt_sigprocmask", SIGNAL),
    ("rt_sigqueueinfo", PROCESS | SIGNAL),
    ("rt_sigreturn", SIGNAL),
    ("rt_sigsuspend", SIGNAL),
    ("rt_sigtimedwait", SIGNAL),
    ("rt_sigtimedwait_time64", SIGNAL),
    ("rt_tgsigqueueinfo", PROCESS | SIGNAL),
    ("select", DESC),
    ("semctl", IPC),
    ("semget", IPC),
    ("semop", IPC),
    ("semtimedop", IPC),
    ("semtimedop_time64", IPC),
    ("send", NETWORK),
    ("sendfile", DESC | NETWORK),
    ("sendfile64", DESC | NETWORK),
    ("sendmmsg", NETWORK),
    ("sendmsg", NETWORK),
    ("sendto", NETWORK),
    ("set_mempolicy", MEMORY),
    ("set_mempolicy_home_node", MEMORY),
    ("setfsgid", CREDS),
    ("setfsgid32", CREDS),
    ("setfsuid", CREDS),
    ("setfsuid32", CREDS),
    ("setgid", CREDS),
    ("setgid32", CREDS),
    ("setgroups", CREDS),
    ("setgroups32", CREDS),
    ("setns", DESC),
    ("setregid", CREDS),
    ("setregid32", CREDS),
    ("setresgid", CREDS),
    ("setresgid32", CREDS),
    ("setresuid", CREDS),
    ("setresuid32", CREDS),
    ("setreuid", CREDS),
    ("setreuid32", CREDS),
    ("setsockopt", NETWORK),
    ("settimeofday", CLOCK),
    ("setuid", CREDS),
    ("setuid32", CREDS),
    ("setxattr", FILE),
    ("setxattrat", DESC | FILE),
    ("sgetmask", SIGNAL),
    ("shmat", IPC | MEMORY),
    ("shmctl", IPC),
    ("shmdt", IPC | MEMORY),
    ("shmget", IPC),
    ("shutdown", NETWORK),
    ("sigaction", SIGNAL),
    ("sigaltstack", SIGNAL),
    ("signal", SIGNAL),
    ("signalfd", DESC | SIGNAL),
    ("signalfd4", DESC | SIGNAL),
    ("sigpending", SIGNAL),
    ("sigprocmask", SIGNAL),
    ("sigreturn", SIGNAL),
    ("sigsuspend", SIGNAL),
    ("socket", NETWORK),
    ("socketcall", DESC),
    ("socketpair", NETWORK),
    ("splice", DESC),
    ("ssetmask", SIGNAL),
    ("stat", FILE | STAT | STAT_LIKE),
    ("stat64", FILE | STAT | STAT_LIKE),
    ("statfs", FILE | STATFS | STATFS_LIKE),
    ("statfs64", FILE | STATFS | STATFS_LIKE),
    ("statx", DESC | FILE | FSTAT | STAT_LIKE),
    ("swapoff", FILE),
    ("swapon", FILE),
    ("symlink", FILE),
    ("symlinkat", DESC | FILE),
    ("sync_file_range", DESC),
    ("syncfs", DESC),
    ("tee", DESC),
    ("tgkill", PROCESS | SIGNAL),
    ("time", CLOCK),
    ("timerfd_create", DESC),
    ("timerfd_gettime", DESC),
    ("timerfd_gettime64", DESC),
    ("timerfd_settime", DESC),
    ("timerfd_settime64", DESC),
    ("tkill", PROCESS | SIGNAL),
    ("truncate", FILE),
    ("truncate64", FILE),
    ("umount", FILE),
    ("umount2", FILE),
    ("unlink", FILE),
    ("unlinkat", DESC | FILE),
    ("uselib", FILE),
    ("userfaultfd", DESC),
    ("ustat", STATFS_LIKE),
    ("utime", FILE),
    ("utimensat", DESC | FILE),
    ("utimensat_time64", DESC | FILE),
    ("utimes", FILE),
    ("vfork", PROCESS),
    ("vmsplice", DESC),
    ("wait4", PROCESS),
    ("waitid", PROCESS),
    ("waitpid", PROCESS),
    ("write", DESC),
    ("writev", DESC),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_unique() {
        for pair in MEMBERS.windows(2) {
            assert!(pair[0].0 < pair[1].0, "{} / {}", pair[0].0, pair[1].0);
        }
        assert!(MEMBERS.iter().all(|&(_, bits)| bits != 0));
    }
}
