//! Declared parameters of every Linux system call on x86_64 and i386.
//!
//! One [`Signature`] per call name known to the `syscalls` crate's `x86_64`
//! and `x86` tables, giving each parameter's name and the
//! [`Kind`](super::params::Kind) the generic printer renders it as. The
//! name is the one `-N` and `--json` print and `--filter` knows: for a call
//! with a handler, the name its handler prints (mostly the man page's:
//! openat's `dirfd`, `pathname`); for the others the kernel's
//! `SYSCALL_DEFINEn` spelling. Where the two ABIs share a name the x86_64
//! definition is used, unless the i386 entry point takes other registers
//! ([`I386_SIGNATURES`]); calls that exist only on i386 (`_llseek`,
//! `mmap2`, `socketcall`, `truncate64`, ...) follow the i386 entry point,
//! so a 64-bit argument split across two registers appears as its low word
//! under the value's name and a [`High`] word `NAME_high`. Calls with no
//! parameters, and numbers the kernel reserves without implementing, have
//! an empty parameter list. `send` and `recv` are no system call of either
//! table: i386 makes them through socketcall.
//!
//! The slices are sorted by name (byte order) so they can be binary-searched.

use super::params::{Kind::*, Signature, p};
use crate::kernel::Arch;

/// Every system call name on x86_64 and i386, sorted by name.
pub static SIGNATURES: &[Signature] = &[
    Signature {
        name: "_llseek",
        params: &[
            p("fd", Fd),
            p("offset_high", High),
            p("offset", Offset),
            p("result", Ptr),
            p("whence", Int),
        ],
    },
    Signature {
        name: "_newselect",
        params: &[
            p("nfds", Int),
            p("readfds", Ptr),
            p("writefds", Ptr),
            p("exceptfds", Ptr),
            p("timeout", Ptr),
        ],
    },
    Signature {
        name: "_sysctl",
        params: &[p("args", Ptr)],
    },
    Signature {
        name: "accept",
        params: &[p("sockfd", Fd), p("addr", Ptr), p("addrlen", Ptr)],
    },
    Signature {
        name: "accept4",
        params: &[
            p("sockfd", Fd),
            p("addr", Ptr),
            p("addrlen", Ptr),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "access",
        params: &[p("pathname", Path), p("mode", Hex)],
    },
    Signature {
        name: "acct",
        params: &[p("name", Path)],
    },
    Signature {
        name: "add_key",
        params: &[
            p("_type", Str),
            p("_description", Str),
            p("_payload", Ptr),
            p("plen", Uint),
            p("ringid", Int),
        ],
    },
    Signature {
        name: "adjtimex",
        params: &[p("txc_p", Ptr)],
    },
    Signature {
        name: "afs_syscall",
        params: &[],
    },
    Signature {
        name: "alarm",
        params: &[p("seconds", Uint)],
    },
    Signature {
        name: "arch_prctl",
        params: &[p("code", Int), p("arg", Hex)],
    },
    Signature {
        name: "bdflush",
        params: &[p("func", Int), p("data", Int)],
    },
    Signature {
        name: "bind",
        params: &[p("sockfd", Fd), p("addr", Ptr), p("addrlen", Int)],
    },
    Signature {
        name: "bpf",
        params: &[p("cmd", Int), p("uattr", Ptr), p("size", Uint)],
    },
    Signature {
        name: "brk",
        params: &[p("addr", Ptr)],
    },
    Signature {
        name: "cachestat",
        params: &[
            p("fd", Fd),
            p("cstat_range", Ptr),
            p("cstat", Ptr),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "capget",
        params: &[p("hdrp", Ptr), p("datap", Ptr)],
    },
    Signature {
        name: "capset",
        params: &[p("hdrp", Ptr), p("datap", Ptr)],
    },
    Signature {
        name: "chdir",
        params: &[p("pathname", Path)],
    },
    Signature {
        name: "chmod",
        params: &[p("pathname", Path), p("mode", Mode)],
    },
    Signature {
        name: "chown",
        params: &[p("pathname", Path), p("owner", Uint), p("group", Uint)],
    },
    Signature {
        name: "chown32",
        params: &[p("pathname", Path), p("owner", Uint), p("group", Uint)],
    },
    Signature {
        name: "chroot",
        params: &[p("pathname", Path)],
    },
    Signature {
        name: "clock_adjtime",
        params: &[p("which_clock", Int), p("utx", Ptr)],
    },
    Signature {
        name: "clock_adjtime64",
        params: &[p("which_clock", Int), p("utx", Ptr)],
    },
    Signature {
        name: "clock_getres",
        params: &[p("clockid", Int), p("tp", Ptr)],
    },
    Signature {
        name: "clock_getres_time64",
        params: &[p("clockid", Int), p("tp", Ptr)],
    },
    Signature {
        name: "clock_gettime",
        params: &[p("clockid", Int), p("tp", Ptr)],
    },
    Signature {
        name: "clock_gettime64",
        params: &[p("clockid", Int), p("tp", Ptr)],
    },
    Signature {
        name: "clock_nanosleep",
        params: &[
            p("clockid", Int),
            p("flags", Hex),
            p("req", Ptr),
            p("rem", Ptr),
        ],
    },
    Signature {
        name: "clock_nanosleep_time64",
        params: &[
            p("clockid", Int),
            p("flags", Hex),
            p("req", Ptr),
            p("rem", Ptr),
        ],
    },
    Signature {
        name: "clock_settime",
        params: &[p("clockid", Int), p("tp", Ptr)],
    },
    Signature {
        name: "clock_settime64",
        params: &[p("clockid", Int), p("tp", Ptr)],
    },
    Signature {
        name: "clone",
        params: &[
            p("flags", Hex),
            p("stack", Ptr),
            p("parent_tid", Ptr),
            p("child_tid", Ptr),
            p("tls", Hex),
        ],
    },
    Signature {
        name: "clone3",
        params: &[p("cl_args", Ptr), p("size", Uint)],
    },
    Signature {
        name: "close",
        params: &[p("fd", Fd)],
    },
    Signature {
        name: "close_range",
        params: &[p("first", Fd), p("last", Uint), p("flags", Hex)],
    },
    Signature {
        name: "connect",
        params: &[p("sockfd", Fd), p("addr", Ptr), p("addrlen", Int)],
    },
    Signature {
        name: "copy_file_range",
        params: &[
            p("fd_in", Fd),
            p("off_in", Ptr),
            p("fd_out", Fd),
            p("off_out", Ptr),
            p("len", Uint),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "creat",
        params: &[p("pathname", Path), p("mode", Mode)],
    },
    Signature {
        name: "create_module",
        params: &[],
    },
    Signature {
        name: "delete_module",
        params: &[p("name_user", Str), p("flags", Hex)],
    },
    Signature {
        name: "dup",
        params: &[p("oldfd", Fd)],
    },
    Signature {
        name: "dup2",
        params: &[p("oldfd", Fd), p("newfd", Fd)],
    },
    Signature {
        name: "dup3",
        params: &[p("oldfd", Fd), p("newfd", Fd), p("flags", Hex)],
    },
    Signature {
        name: "epoll_create",
        params: &[p("size", Int)],
    },
    Signature {
        name: "epoll_create1",
        params: &[p("flags", Hex)],
    },
    Signature {
        name: "epoll_ctl",
        params: &[p("epfd", Fd), p("op", Int), p("fd", Fd), p("event", Ptr)],
    },
    Signature {
        name: "epoll_ctl_old",
        params: &[],
    },
    Signature {
        name: "epoll_pwait",
        params: &[
            p("epfd", Fd),
            p("events", Ptr),
            p("maxevents", Int),
            p("timeout", Int),
            p("sigmask", Ptr),
            p("sigsetsize", Uint),
        ],
    },
    Signature {
        name: "epoll_pwait2",
        params: &[
            p("epfd", Fd),
            p("events", Ptr),
            p("maxevents", Int),
            p("timeout", Ptr),
            p("sigmask", Ptr),
            p("sigsetsize", Uint),
        ],
    },
    Signature {
        name: "epoll_wait",
        params: &[
            p("epfd", Fd),
            p("events", Ptr),
            p("maxevents", Int),
            p("timeout", Int),
        ],
    },
    Signature {
        name: "epoll_wait_old",
        params: &[],
    },
    Signature {
        name: "eventfd",
        params: &[p("count", Uint)],
    },
    Signature {
        name: "eventfd2",
        params: &[p("initval", Uint), p("flags", Hex)],
    },
    Signature {
        name: "execve",
        params: &[p("pathname", Path), p("argv", Ptr), p("envp", Ptr)],
    },
    Signature {
        name: "execveat",
        params: &[
            p("dirfd", DirFd),
            p("pathname", Path),
            p("argv", Ptr),
            p("envp", Ptr),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "exit",
        params: &[p("status", Int)],
    },
    Signature {
        name: "exit_group",
        params: &[p("status", Int)],
    },
    Signature {
        name: "faccessat",
        params: &[p("dirfd", DirFd), p("pathname", Path), p("mode", Hex)],
    },
    Signature {
        name: "faccessat2",
        params: &[
            p("dirfd", DirFd),
            p("pathname", Path),
            p("mode", Hex),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "fadvise64",
        params: &[
            p("fd", Fd),
            p("offset", Offset),
            p("len", Uint),
            p("advice", Int),
        ],
    },
    Signature {
        name: "fadvise64_64",
        params: &[
            p("fd", Fd),
            p("offset", Offset),
            p("offset_high", High),
            p("len", Offset),
            p("len_high", High),
            p("advice", Int),
        ],
    },
    Signature {
        name: "fallocate",
        params: &[
            p("fd", Fd),
            p("mode", Hex),
            p("offset", Offset),
            p("len", Offset),
        ],
    },
    Signature {
        name: "fanotify_init",
        params: &[p("flags", Hex), p("event_f_flags", Hex)],
    },
    Signature {
        name: "fanotify_mark",
        params: &[
            p("fanotify_fd", Fd),
            p("flags", Hex),
            p("mask", Hex),
            p("dfd", DirFd),
            p("pathname", Path),
        ],
    },
    Signature {
        name: "fchdir",
        params: &[p("fd", Fd)],
    },
    Signature {
        name: "fchmod",
        params: &[p("fd", Fd), p("mode", Mode)],
    },
    Signature {
        name: "fchmodat",
        params: &[p("dirfd", DirFd), p("pathname", Path), p("mode", Mode)],
    },
    Signature {
        name: "fchmodat2",
        params: &[
            p("dirfd", DirFd),
            p("pathname", Path),
            p("mode", Mode),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "fchown",
        params: &[p("fd", Fd), p("owner", Uint), p("group", Uint)],
    },
    Signature {
        name: "fchown32",
        params: &[p("fd", Fd), p("owner", Uint), p("group", Uint)],
    },
    Signature {
        name: "fchownat",
        params: &[
            p("dirfd", DirFd),
            p("pathname", Path),
            p("owner", Uint),
            p("group", Uint),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "fcntl",
        params: &[p("fd", Fd), p("cmd", Int), p("arg", Hex)],
    },
    Signature {
        name: "fcntl64",
        params: &[p("fd", Fd), p("cmd", Int), p("arg", Hex)],
    },
    Signature {
        name: "fdatasync",
        params: &[p("fd", Fd)],
    },
    Signature {
        name: "fgetxattr",
        params: &[
            p("fd", Fd),
            p("name", Str),
            p("value", Ptr),
            p("size", Uint),
        ],
    },
    Signature {
        name: "file_getattr",
        params: &[
            p("dfd", DirFd),
            p("filename", Path),
            p("ufattr", Ptr),
            p("usize", Uint),
            p("at_flags", Hex),
        ],
    },
    Signature {
        name: "file_setattr",
        params: &[
            p("dfd", DirFd),
            p("filename", Path),
            p("ufattr", Ptr),
            p("usize", Uint),
            p("at_flags", Hex),
        ],
    },
    Signature {
        name: "finit_module",
        params: &[p("fd", Fd), p("uargs", Str), p("flags", Hex)],
    },
    Signature {
        name: "flistxattr",
        params: &[p("fd", Fd), p("list", Ptr), p("size", Uint)],
    },
    Signature {
        name: "flock",
        params: &[p("fd", Fd), p("operation", Int)],
    },
    Signature {
        name: "fork",
        params: &[],
    },
    Signature {
        name: "fremovexattr",
        params: &[p("fd", Fd), p("name", Str)],
    },
    Signature {
        name: "fsconfig",
        params: &[
            p("fd", Fd),
            p("cmd", Int),
            p("_key", Str),
            p("_value", Ptr),
            p("aux", Int),
        ],
    },
    Signature {
        name: "fsetxattr",
        params: &[
            p("fd", Fd),
            p("name", Str),
            p("value", Ptr),
            p("size", Uint),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "fsmount",
        params: &[p("fs_fd", Fd), p("flags", Hex), p("attr_flags", Hex)],
    },
    Signature {
        name: "fsopen",
        params: &[p("_fs_name", Str), p("flags", Hex)],
    },
    Signature {
        name: "fspick",
        params: &[p("dfd", DirFd), p("path", Path), p("flags", Hex)],
    },
    Signature {
        name: "fstat",
        params: &[p("fd", Fd), p("statbuf", Ptr)],
    },
    Signature {
        name: "fstat64",
        params: &[p("fd", Fd), p("statbuf", Ptr)],
    },
    Signature {
        name: "fstatat64",
        params: &[
            p("dirfd", DirFd),
            p("pathname", Path),
            p("statbuf", Ptr),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "fstatfs",
        params: &[p("fd", Fd), p("buf", Ptr)],
    },
    Signature {
        name: "fstatfs64",
        params: &[p("fd", Fd), p("sz", Uint), p("buf", Ptr)],
    },
    Signature {
        name: "fsync",
        params: &[p("fd", Fd)],
    },
    Signature {
        name: "ftime",
        params: &[],
    },
    Signature {
        name: "ftruncate",
        params: &[p("fd", Fd), p("length", Offset)],
    },
    Signature {
        name: "ftruncate64",
        params: &[p("fd", Fd), p("length", Offset), p("length_high", High)],
    },
    Signature {
        name: "futex",
        params: &[
            p("uaddr", Ptr),
            p("futex_op", Int),
            p("val", Uint),
            p("timeout", Ptr),
            p("uaddr2", Ptr),
            p("val3", Uint),
        ],
    },
    Signature {
        name: "futex_requeue",
        params: &[
            p("waiters", Ptr),
            p("flags", Hex),
            p("nr_wake", Int),
            p("nr_requeue", Int),
        ],
    },
    Signature {
        name: "futex_time64",
        params: &[
            p("uaddr", Ptr),
            p("futex_op", Int),
            p("val", Uint),
            p("timeout", Ptr),
            p("uaddr2", Ptr),
            p("val3", Uint),
        ],
    },
    Signature {
        name: "futex_wait",
        params: &[
            p("uaddr", Ptr),
            p("val", Uint),
            p("mask", Hex),
            p("flags", Hex),
            p("timeout", Ptr),
            p("clockid", Int),
        ],
    },
    Signature {
        name: "futex_waitv",
        params: &[
            p("waiters", Ptr),
            p("nr_futexes", Uint),
            p("flags", Hex),
            p("timeout", Ptr),
            p("clockid", Int),
        ],
    },
    Signature {
        name: "futex_wake",
        params: &[
            p("uaddr", Ptr),
            p("mask", Hex),
            p("nr", Int),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "futimesat",
        params: &[p("dfd", DirFd), p("filename", Path), p("utimes", Ptr)],
    },
    Signature {
        name: "get_kernel_syms",
        params: &[],
    },
    Signature {
        name: "get_mempolicy",
        params: &[
            p("policy", Ptr),
            p("nmask", Ptr),
            p("maxnode", Uint),
            p("addr", Ptr),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "get_robust_list",
        params: &[p("pid", Pid), p("head_ptr", Ptr), p("len_ptr", Ptr)],
    },
    Signature {
        name: "get_thread_area",
        params: &[p("u_info", Ptr)],
    },
    Signature {
        name: "getcpu",
        params: &[p("cpup", Ptr), p("nodep", Ptr), p("unused", Ptr)],
    },
    Signature {
        name: "getcwd",
        params: &[p("buf", Ptr), p("size", Uint)],
    },
    Signature {
        name: "getdents",
        params: &[p("fd", Fd), p("dirp", Ptr), p("count", Uint)],
    },
    Signature {
        name: "getdents64",
        params: &[p("fd", Fd), p("dirp", Ptr), p("count", Uint)],
    },
    Signature {
        name: "getegid",
        params: &[],
    },
    Signature {
        name: "getegid32",
        params: &[],
    },
    Signature {
        name: "geteuid",
        params: &[],
    },
    Signature {
        name: "geteuid32",
        params: &[],
    },
    Signature {
        name: "getgid",
        params: &[],
    },
    Signature {
        name: "getgid32",
        params: &[],
    },
    Signature {
        name: "getgroups",
        params: &[p("size", Int), p("list", Ptr)],
    },
    Signature {
        name: "getgroups32",
        params: &[p("size", Int), p("list", Ptr)],
    },
    Signature {
        name: "getitimer",
        params: &[p("which", Int), p("curr_value", Ptr)],
    },
    Signature {
        name: "getpeername",
        params: &[p("sockfd", Fd), p("addr", Ptr), p("addrlen", Ptr)],
    },
    Signature {
        name: "getpgid",
        params: &[p("pid", Pid)],
    },
    Signature {
        name: "getpgrp",
        params: &[],
    },
    Signature {
        name: "getpid",
        params: &[],
    },
    Signature {
        name: "getpmsg",
        params: &[],
    },
    Signature {
        name: "getppid",
        params: &[],
    },
    Signature {
        name: "getpriority",
        params: &[p("which", Int), p("who", Int)],
    },
    Signature {
        name: "getrandom",
        params: &[p("buf", Ptr), p("buflen", Uint), p("flags", Hex)],
    },
    Signature {
        name: "getresgid",
        params: &[p("real", Ptr), p("effective", Ptr), p("saved", Ptr)],
    },
    Signature {
        name: "getresgid32",
        params: &[p("real", Ptr), p("effective", Ptr), p("saved", Ptr)],
    },
    Signature {
        name: "getresuid",
        params: &[p("real", Ptr), p("effective", Ptr), p("saved", Ptr)],
    },
    Signature {
        name: "getresuid32",
        params: &[p("real", Ptr), p("effective", Ptr), p("saved", Ptr)],
    },
    Signature {
        name: "getrlimit",
        params: &[p("resource", Int), p("rlim", Ptr)],
    },
    Signature {
        name: "getrusage",
        params: &[p("who", Int), p("usage", Ptr)],
    },
    Signature {
        name: "getsid",
        params: &[p("pid", Pid)],
    },
    Signature {
        name: "getsockname",
        params: &[p("sockfd", Fd), p("addr", Ptr), p("addrlen", Ptr)],
    },
    Signature {
        name: "getsockopt",
        params: &[
            p("sockfd", Fd),
            p("level", Int),
            p("optname", Int),
            p("optval", Ptr),
            p("optlen", Ptr),
        ],
    },
    Signature {
        name: "gettid",
        params: &[],
    },
    Signature {
        name: "gettimeofday",
        params: &[p("tv", Ptr), p("tz", Ptr)],
    },
    Signature {
        name: "getuid",
        params: &[],
    },
    Signature {
        name: "getuid32",
        params: &[],
    },
    Signature {
        name: "getxattr",
        params: &[
            p("pathname", Path),
            p("name", Str),
            p("value", Ptr),
            p("size", Uint),
        ],
    },
    Signature {
        name: "getxattrat",
        params: &[
            p("dfd", DirFd),
            p("pathname", Path),
            p("at_flags", Hex),
            p("name", Str),
            p("uargs", Ptr),
            p("usize", Uint),
        ],
    },
    Signature {
        name: "gtty",
        params: &[],
    },
    Signature {
        name: "idle",
        params: &[],
    },
    Signature {
        name: "init_module",
        params: &[p("umod", Ptr), p("len", Uint), p("uargs", Str)],
    },
    Signature {
        name: "inotify_add_watch",
        params: &[p("fd", Fd), p("pathname", Path), p("mask", Hex)],
    },
    Signature {
        name: "inotify_init",
        params: &[],
    },
    Signature {
        name: "inotify_init1",
        params: &[p("flags", Hex)],
    },
    Signature {
        name: "inotify_rm_watch",
        params: &[p("fd", Fd), p("wd", Int)],
    },
    Signature {
        name: "io_cancel",
        params: &[p("ctx_id", Hex), p("iocb", Ptr), p("result", Ptr)],
    },
    Signature {
        name: "io_destroy",
        params: &[p("ctx", Hex)],
    },
    Signature {
        name: "io_getevents",
        params: &[
            p("ctx_id", Hex),
            p("min_nr", Int),
            p("nr", Int),
            p("events", Ptr),
            p("timeout", Ptr),
        ],
    },
    Signature {
        name: "io_pgetevents",
        params: &[
            p("ctx_id", Hex),
            p("min_nr", Int),
            p("nr", Int),
            p("events", Ptr),
            p("timeout", Ptr),
            p("usig", Ptr),
        ],
    },
    Signature {
        name: "io_pgetevents_time64",
        params: &[
            p("ctx_id", Hex),
            p("min_nr", Int),
            p("nr", Int),
            p("events", Ptr),
            p("timeout", Ptr),
            p("usig", Ptr),
        ],
    },
    Signature {
        name: "io_setup",
        params: &[p("nr_events", Uint), p("ctxp", Ptr)],
    },
    Signature {
        name: "io_submit",
        params: &[p("ctx_id", Hex), p("nr", Int), p("iocbpp", Ptr)],
    },
    Signature {
        name: "io_uring_enter",
        params: &[
            p("fd", Fd),
            p("to_submit", Uint),
            p("min_complete", Uint),
            p("flags", Hex),
            p("argp", Ptr),
            p("argsz", Uint),
        ],
    },
    Signature {
        name: "io_uring_register",
        params: &[
            p("fd", Fd),
            p("opcode", Int),
            p("arg", Ptr),
            p("nr_args", Uint),
        ],
    },
    Signature {
        name: "io_uring_setup",
        params: &[p("entries", Uint), p("params", Ptr)],
    },
    Signature {
        name: "ioctl",
        params: &[p("fd", Fd), p("request", Hex), p("arg", Hex)],
    },
    Signature {
        name: "ioperm",
        params: &[p("from", Hex), p("num", Uint), p("turn_on", Int)],
    },
    Signature {
        name: "iopl",
        params: &[p("level", Int)],
    },
    Signature {
        name: "ioprio_get",
        params: &[p("which", Int), p("who", Int)],
    },
    Signature {
        name: "ioprio_set",
        params: &[p("which", Int), p("who", Int), p("ioprio", Hex)],
    },
    Signature {
        name: "ipc",
        params: &[
            p("call", Int),
            p("first", Int),
            p("second", Hex),
            p("third", Hex),
            p("ptr", Ptr),
            p("fifth", Int),
        ],
    },
    Signature {
        name: "kcmp",
        params: &[
            p("pid1", Pid),
            p("pid2", Pid),
            p("type", Int),
            p("idx1", Uint),
            p("idx2", Uint),
        ],
    },
    Signature {
        name: "kexec_file_load",
        params: &[
            p("kernel_fd", Fd),
            p("initrd_fd", Fd),
            p("cmdline_len", Uint),
            p("cmdline_ptr", Str),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "kexec_load",
        params: &[
            p("entry", Hex),
            p("nr_segments", Uint),
            p("segments", Ptr),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "keyctl",
        params: &[
            p("option", Int),
            p("arg2", Hex),
            p("arg3", Hex),
            p("arg4", Hex),
            p("arg5", Hex),
        ],
    },
    Signature {
        name: "kill",
        params: &[p("pid", Pid), p("sig", Signal)],
    },
    Signature {
        name: "landlock_add_rule",
        params: &[
            p("ruleset_fd", Fd),
            p("rule_type", Int),
            p("rule_attr", Ptr),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "landlock_create_ruleset",
        params: &[p("attr", Ptr), p("size", Uint), p("flags", Hex)],
    },
    Signature {
        name: "landlock_restrict_self",
        params: &[p("ruleset_fd", Fd), p("flags", Hex)],
    },
    Signature {
        name: "lchown",
        params: &[p("pathname", Path), p("owner", Uint), p("group", Uint)],
    },
    Signature {
        name: "lchown32",
        params: &[p("pathname", Path), p("owner", Uint), p("group", Uint)],
    },
    Signature {
        name: "lgetxattr",
        params: &[
            p("pathname", Path),
            p("name", Str),
            p("value", Ptr),
            p("size", Uint),
        ],
    },
    Signature {
        name: "link",
        params: &[p("oldpath", Path), p("newpath", Path)],
    },
    Signature {
        name: "linkat",
        params: &[
            p("olddirfd", DirFd),
            p("oldpath", Path),
            p("newdirfd", DirFd),
            p("newpath", Path),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "listen",
        params: &[p("sockfd", Fd), p("backlog", Int)],
    },
    Signature {
        name: "listmount",
        params: &[
            p("req", Ptr),
            p("mnt_ids", Ptr),
            p("nr_mnt_ids", Uint),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "listxattr",
        params: &[p("pathname", Path), p("list", Ptr), p("size", Uint)],
    },
    Signature {
        name: "listxattrat",
        params: &[
            p("dfd", DirFd),
            p("pathname", Path),
            p("at_flags", Hex),
            p("list", Ptr),
            p("size", Uint),
        ],
    },
    Signature {
        name: "llistxattr",
        params: &[p("pathname", Path), p("list", Ptr), p("size", Uint)],
    },
    Signature {
        name: "lock",
        params: &[],
    },
    Signature {
        name: "lookup_dcookie",
        params: &[p("cookie64", Hex), p("buf", Ptr), p("len", Uint)],
    },
    Signature {
        name: "lremovexattr",
        params: &[p("pathname", Path), p("name", Str)],
    },
    Signature {
        name: "lseek",
        params: &[p("fd", Fd), p("offset", Offset), p("whence", Int)],
    },
    Signature {
        name: "lsetxattr",
        params: &[
            p("pathname", Path),
            p("name", Str),
            p("value", Ptr),
            p("size", Uint),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "lsm_get_self_attr",
        params: &[
            p("attr", Uint),
            p("ctx", Ptr),
            p("size", Ptr),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "lsm_list_modules",
        params: &[p("ids", Ptr), p("size", Ptr), p("flags", Hex)],
    },
    Signature {
        name: "lsm_set_self_attr",
        params: &[
            p("attr", Uint),
            p("ctx", Ptr),
            p("size", Uint),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "lstat",
        params: &[p("pathname", Path), p("statbuf", Ptr)],
    },
    Signature {
        name: "lstat64",
        params: &[p("pathname", Path), p("statbuf", Ptr)],
    },
    Signature {
        name: "madvise",
        params: &[p("addr", Ptr), p("length", Uint), p("advice", Int)],
    },
    Signature {
        name: "map_shadow_stack",
        params: &[p("addr", Ptr), p("size", Uint), p("flags", Hex)],
    },
    Signature {
        name: "mbind",
        params: &[
            p("start", Ptr),
            p("len", Uint),
            p("mode", Int),
            p("nmask", Ptr),
            p("maxnode", Uint),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "membarrier",
        params: &[p("cmd", Int), p("flags", Hex), p("cpu_id", Int)],
    },
    Signature {
        name: "memfd_create",
        params: &[p("name", Str), p("flags", Hex)],
    },
    Signature {
        name: "memfd_secret",
        params: &[p("flags", Hex)],
    },
    Signature {
        name: "migrate_pages",
        params: &[
            p("pid", Pid),
            p("maxnode", Uint),
            p("old_nodes", Ptr),
            p("new_nodes", Ptr),
        ],
    },
    Signature {
        name: "mincore",
        params: &[p("addr", Ptr), p("length", Uint), p("vec", Ptr)],
    },
    Signature {
        name: "mkdir",
        params: &[p("pathname", Path), p("mode", Mode)],
    },
    Signature {
        name: "mkdirat",
        params: &[p("dirfd", DirFd), p("pathname", Path), p("mode", Mode)],
    },
    Signature {
        name: "mknod",
        params: &[p("filename", Path), p("mode", Mode), p("dev", Hex)],
    },
    Signature {
        name: "mknodat",
        params: &[
            p("dfd", DirFd),
            p("filename", Path),
            p("mode", Mode),
            p("dev", Hex),
        ],
    },
    Signature {
        name: "mlock",
        params: &[p("addr", Ptr), p("length", Uint)],
    },
    Signature {
        name: "mlock2",
        params: &[p("addr", Ptr), p("length", Uint), p("flags", Hex)],
    },
    Signature {
        name: "mlockall",
        params: &[p("flags", Hex)],
    },
    Signature {
        name: "mmap",
        params: &[
            p("addr", Ptr),
            p("length", Uint),
            p("prot", Hex),
            p("flags", Hex),
            p("fd", Fd),
            p("offset", Offset),
        ],
    },
    Signature {
        name: "mmap2",
        params: &[
            p("addr", Ptr),
            p("length", Uint),
            p("prot", Hex),
            p("flags", Hex),
            p("fd", Fd),
            p("offset", Pages),
        ],
    },
    Signature {
        name: "modify_ldt",
        params: &[p("func", Int), p("ptr", Ptr), p("bytecount", Uint)],
    },
    Signature {
        name: "mount",
        params: &[
            p("source", Path),
            p("target", Path),
            p("filesystemtype", Str),
            p("mountflags", Hex),
            p("data", Ptr),
        ],
    },
    Signature {
        name: "mount_setattr",
        params: &[
            p("dfd", DirFd),
            p("path", Path),
            p("flags", Hex),
            p("uattr", Ptr),
            p("usize", Uint),
        ],
    },
    Signature {
        name: "move_mount",
        params: &[
            p("from_dfd", DirFd),
            p("from_pathname", Path),
            p("to_dfd", DirFd),
            p("to_pathname", Path),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "move_pages",
        params: &[
            p("pid", Pid),
            p("nr_pages", Uint),
            p("pages", Ptr),
            p("nodes", Ptr),
            p("status", Ptr),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "mprotect",
        params: &[p("addr", Ptr), p("length", Uint), p("prot", Hex)],
    },
    Signature {
        name: "mpx",
        params: &[],
    },
    Signature {
        name: "mq_getsetattr",
        params: &[p("mqdes", Fd), p("u_mqstat", Ptr), p("u_omqstat", Ptr)],
    },
    Signature {
        name: "mq_notify",
        params: &[p("mqdes", Fd), p("u_notification", Ptr)],
    },
    Signature {
        name: "mq_open",
        params: &[
            p("u_name", Str),
            p("oflag", Hex),
            p("mode", Mode),
            p("u_attr", Ptr),
        ],
    },
    Signature {
        name: "mq_timedreceive",
        params: &[
            p("mqdes", Fd),
            p("u_msg_ptr", Ptr),
            p("msg_len", Uint),
            p("u_msg_prio", Ptr),
            p("u_abs_timeout", Ptr),
        ],
    },
    Signature {
        name: "mq_timedreceive_time64",
        params: &[
            p("mqdes", Fd),
            p("u_msg_ptr", Ptr),
            p("msg_len", Uint),
            p("u_msg_prio", Ptr),
            p("u_abs_timeout", Ptr),
        ],
    },
    Signature {
        name: "mq_timedsend",
        params: &[
            p("mqdes", Fd),
            p("u_msg_ptr", Ptr),
            p("msg_len", Uint),
            p("msg_prio", Uint),
            p("u_abs_timeout", Ptr),
        ],
    },
    Signature {
        name: "mq_timedsend_time64",
        params: &[
            p("mqdes", Fd),
            p("u_msg_ptr", Ptr),
            p("msg_len", Uint),
            p("msg_prio", Uint),
            p("u_abs_timeout", Ptr),
        ],
    },
    Signature {
        name: "mq_unlink",
        params: &[p("u_name", Str)],
    },
    Signature {
        name: "mremap",
        params: &[
            p("old_address", Ptr),
            p("old_size", Uint),
            p("new_size", Uint),
            p("flags", Hex),
            p("new_address", Ptr),
        ],
    },
    Signature {
        name: "mseal",
        params: &[p("start", Ptr), p("len", Uint), p("flags", Hex)],
    },
    Signature {
        name: "msgctl",
        params: &[p("msqid", Int), p("cmd", Int), p("buf", Ptr)],
    },
    Signature {
        name: "msgget",
        params: &[p("key", Hex), p("msgflg", Hex)],
    },
    Signature {
        name: "msgrcv",
        params: &[
            p("msqid", Int),
            p("msgp", Ptr),
            p("msgsz", Uint),
            p("msgtyp", Int),
            p("msgflg", Hex),
        ],
    },
    Signature {
        name: "msgsnd",
        params: &[
            p("msqid", Int),
            p("msgp", Ptr),
            p("msgsz", Uint),
            p("msgflg", Hex),
        ],
    },
    Signature {
        name: "msync",
        params: &[p("addr", Ptr), p("length", Uint), p("flags", Hex)],
    },
    Signature {
        name: "munlock",
        params: &[p("addr", Ptr), p("length", Uint)],
    },
    Signature {
        name: "munlockall",
        params: &[],
    },
    Signature {
        name: "munmap",
        params: &[p("addr", Ptr), p("length", Uint)],
    },
    Signature {
        name: "name_to_handle_at",
        params: &[
            p("dfd", DirFd),
            p("name", Path),
            p("handle", Ptr),
            p("mnt_id", Ptr),
            p("flag", Hex),
        ],
    },
    Signature {
        name: "nanosleep",
        params: &[p("req", Ptr), p("rem", Ptr)],
    },
    Signature {
        name: "newfstatat",
        params: &[
            p("dirfd", DirFd),
            p("pathname", Path),
            p("statbuf", Ptr),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "nfsservctl",
        params: &[],
    },
    Signature {
        name: "nice",
        params: &[p("increment", Int)],
    },
    Signature {
        name: "oldfstat",
        params: &[p("fd", Fd), p("statbuf", Ptr)],
    },
    Signature {
        name: "oldlstat",
        params: &[p("filename", Path), p("statbuf", Ptr)],
    },
    Signature {
        name: "oldolduname",
        params: &[p("name", Ptr)],
    },
    Signature {
        name: "oldstat",
        params: &[p("filename", Path), p("statbuf", Ptr)],
    },
    Signature {
        name: "olduname",
        params: &[p("name", Ptr)],
    },
    Signature {
        name: "open",
        params: &[p("pathname", Path), p("flags", Hex), p("mode", Mode)],
    },
    Signature {
        name: "open_by_handle_at",
        params: &[p("mountdirfd", DirFd), p("handle", Ptr), p("flags", Hex)],
    },
    Signature {
        name: "open_tree",
        params: &[p("dfd", DirFd), p("filename", Path), p("flags", Hex)],
    },
    Signature {
        name: "open_tree_attr",
        params: &[
            p("dfd", DirFd),
            p("filename", Path),
            p("flags", Hex),
            p("uattr", Ptr),
            p("usize", Uint),
        ],
    },
    Signature {
        name: "openat",
        params: &[
            p("dirfd", DirFd),
            p("pathname", Path),
            p("flags", Hex),
            p("mode", Mode),
        ],
    },
    Signature {
        name: "openat2",
        params: &[
            p("dirfd", DirFd),
            p("pathname", Path),
            p("how", Ptr),
            p("size", Uint),
        ],
    },
    Signature {
        name: "pause",
        params: &[],
    },
    Signature {
        name: "perf_event_open",
        params: &[
            p("attr_uptr", Ptr),
            p("pid", Pid),
            p("cpu", Int),
            p("group_fd", Fd),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "personality",
        params: &[p("persona", Hex)],
    },
    Signature {
        name: "pidfd_getfd",
        params: &[p("pidfd", Fd), p("fd", Int), p("flags", Hex)],
    },
    Signature {
        name: "pidfd_open",
        params: &[p("pid", Pid), p("flags", Hex)],
    },
    Signature {
        name: "pidfd_send_signal",
        params: &[
            p("pidfd", Fd),
            p("sig", Signal),
            p("info", Ptr),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "pipe",
        params: &[p("pipefd", Ptr)],
    },
    Signature {
        name: "pipe2",
        params: &[p("pipefd", Ptr), p("flags", Hex)],
    },
    Signature {
        name: "pivot_root",
        params: &[p("new_root", Path), p("put_old", Path)],
    },
    Signature {
        name: "pkey_alloc",
        params: &[p("flags", Hex), p("init_val", Hex)],
    },
    Signature {
        name: "pkey_free",
        params: &[p("pkey", Int)],
    },
    Signature {
        name: "pkey_mprotect",
        params: &[
            p("addr", Ptr),
            p("length", Uint),
            p("prot", Hex),
            p("pkey", Int),
        ],
    },
    Signature {
        name: "poll",
        params: &[p("fds", Ptr), p("nfds", Uint), p("timeout", Int)],
    },
    Signature {
        name: "ppoll",
        params: &[
            p("fds", Ptr),
            p("nfds", Uint),
            p("tmo_p", Ptr),
            p("sigmask", Ptr),
            p("sigsetsize", Uint),
        ],
    },
    Signature {
        name: "ppoll_time64",
        params: &[
            p("fds", Ptr),
            p("nfds", Uint),
            p("tmo_p", Ptr),
            p("sigmask", Ptr),
            p("sigsetsize", Uint),
        ],
    },
    Signature {
        name: "prctl",
        params: &[
            p("option", Int),
            p("arg2", Hex),
            p("arg3", Hex),
            p("arg4", Hex),
            p("arg5", Hex),
        ],
    },
    Signature {
        name: "pread64",
        params: &[
            p("fd", Fd),
            p("buf", Ptr),
            p("count", Uint),
            p("offset", Offset),
        ],
    },
    Signature {
        name: "preadv",
        params: &[
            p("fd", Fd),
            p("iov", Ptr),
            p("iovcnt", Uint),
            p("offset", Offset),
            p("offset_high", High),
        ],
    },
    Signature {
        name: "preadv2",
        params: &[
            p("fd", Fd),
            p("iov", Ptr),
            p("iovcnt", Uint),
            p("offset", Offset),
            p("offset_high", High),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "prlimit64",
        params: &[
            p("pid", Pid),
            p("resource", Int),
            p("new_limit", Ptr),
            p("old_limit", Ptr),
        ],
    },
    Signature {
        name: "process_madvise",
        params: &[
            p("pidfd", Fd),
            p("vec", Ptr),
            p("vlen", Uint),
            p("behavior", Int),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "process_mrelease",
        params: &[p("pidfd", Fd), p("flags", Hex)],
    },
    Signature {
        name: "process_vm_readv",
        params: &[
            p("pid", Pid),
            p("lvec", Ptr),
            p("liovcnt", Uint),
            p("rvec", Ptr),
            p("riovcnt", Uint),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "process_vm_writev",
        params: &[
            p("pid", Pid),
            p("lvec", Ptr),
            p("liovcnt", Uint),
            p("rvec", Ptr),
            p("riovcnt", Uint),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "prof",
        params: &[],
    },
    Signature {
        name: "profil",
        params: &[],
    },
    Signature {
        name: "pselect6",
        params: &[
            p("nfds", Int),
            p("readfds", Ptr),
            p("writefds", Ptr),
            p("exceptfds", Ptr),
            p("timeout", Ptr),
            p("sigmask", Ptr),
        ],
    },
    Signature {
        name: "pselect6_time64",
        params: &[
            p("nfds", Int),
            p("readfds", Ptr),
            p("writefds", Ptr),
            p("exceptfds", Ptr),
            p("timeout", Ptr),
            p("sigmask", Ptr),
        ],
    },
    Signature {
        name: "ptrace",
        params: &[
            p("request", Hex),
            p("pid", Pid),
            p("addr", Hex),
            p("data", Hex),
        ],
    },
    Signature {
        name: "putpmsg",
        params: &[],
    },
    Signature {
        name: "pwrite64",
        params: &[
            p("fd", Fd),
            p("buf", Ptr),
            p("count", Uint),
            p("offset", Offset),
        ],
    },
    Signature {
        name: "pwritev",
        params: &[
            p("fd", Fd),
            p("iov", Ptr),
            p("iovcnt", Uint),
            p("offset", Offset),
            p("offset_high", High),
        ],
    },
    Signature {
        name: "pwritev2",
        params: &[
            p("fd", Fd),
            p("iov", Ptr),
            p("iovcnt", Uint),
            p("offset", Offset),
            p("offset_high", High),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "query_module",
        params: &[],
    },
    Signature {
        name: "quotactl",
        params: &[
            p("cmd", Int),
            p("special", Path),
            p("id", Uint),
            p("addr", Ptr),
        ],
    },
    Signature {
        name: "quotactl_fd",
        params: &[p("fd", Fd), p("cmd", Int), p("id", Uint), p("addr", Ptr)],
    },
    Signature {
        name: "r#break",
        params: &[],
    },
    Signature {
        name: "read",
        params: &[p("fd", Fd), p("buf", Ptr), p("count", Uint)],
    },
    Signature {
        name: "readahead",
        params: &[p("fd", Fd), p("offset", Offset), p("count", Uint)],
    },
    Signature {
        name: "readdir",
        params: &[p("fd", Fd), p("dirent", Ptr), p("count", Uint)],
    },
    Signature {
        name: "readlink",
        params: &[p("pathname", Path), p("buf", Ptr), p("bufsiz", Int)],
    },
    Signature {
        name: "readlinkat",
        params: &[
            p("dirfd", DirFd),
            p("pathname", Path),
            p("buf", Ptr),
            p("bufsiz", Int),
        ],
    },
    Signature {
        name: "readv",
        params: &[p("fd", Fd), p("iov", Ptr), p("iovcnt", Uint)],
    },
    Signature {
        name: "reboot",
        params: &[
            p("magic1", Hex),
            p("magic2", Hex),
            p("cmd", Hex),
            p("arg", Ptr),
        ],
    },
    Signature {
        name: "recv",
        params: &[
            p("sockfd", Fd),
            p("buf", Ptr),
            p("len", Uint),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "recvfrom",
        params: &[
            p("sockfd", Fd),
            p("buf", Ptr),
            p("len", Uint),
            p("flags", Hex),
            p("src_addr", Ptr),
            p("addrlen", Ptr),
        ],
    },
    Signature {
        name: "recvmmsg",
        params: &[
            p("sockfd", Fd),
            p("msgvec", Ptr),
            p("vlen", Uint),
            p("flags", Hex),
            p("timeout", Ptr),
        ],
    },
    Signature {
        name: "recvmmsg_time64",
        params: &[
            p("sockfd", Fd),
            p("msgvec", Ptr),
            p("vlen", Uint),
            p("flags", Hex),
            p("timeout", Ptr),
        ],
    },
    Signature {
        name: "recvmsg",
        params: &[p("sockfd", Fd), p("msg", Ptr), p("flags", Hex)],
    },
    Signature {
        name: "remap_file_pages",
        params: &[
            p("start", Ptr),
            p("size", Uint),
            p("prot", Hex),
            p("pgoff", Uint),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "removexattr",
        params: &[p("pathname", Path), p("name", Str)],
    },
    Signature {
        name: "removexattrat",
        params: &[
            p("dfd", DirFd),
            p("pathname", Path),
            p("at_flags", Hex),
            p("name", Str),
        ],
    },
    Signature {
        name: "rename",
        params: &[p("oldpath", Path), p("newpath", Path)],
    },
    Signature {
        name: "renameat",
        params: &[
            p("olddirfd", DirFd),
            p("oldpath", Path),
            p("newdirfd", DirFd),
            p("newpath", Path),
        ],
    },
    Signature {
        name: "renameat2",
        params: &[
            p("olddirfd", DirFd),
            p("oldpath", Path),
            p("newdirfd", DirFd),
            p("newpath", Path),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "request_key",
        params: &[
            p("_type", Str),
            p("_description", Str),
            p("_callout_info", Str),
            p("destringid", Int),
        ],
    },
    Signature {
        name: "restart_syscall",
        params: &[],
    },
    Signature {
        name: "rmdir",
        params: &[p("pathname", Path)],
    },
    Signature {
        name: "rseq",
        params: &[
            p("rseq", Ptr),
            p("rseq_len", Uint),
            p("flags", Hex),
            p("sig", Hex),
        ],
    },
    Signature {
        name: "rt_sigaction",
        params: &[
            p("sig", Signal),
            p("act", Ptr),
            p("oldact", Ptr),
            p("sigsetsize", Uint),
        ],
    },
    Signature {
        name: "rt_sigpending",
        params: &[p("set", Ptr), p("sigsetsize", Uint)],
    },
    Signature {
        name: "rt_sigprocmask",
        params: &[
            p("how", Int),
            p("set", Ptr),
            p("oldset", Ptr),
            p("sigsetsize", Uint),
        ],
    },
    Signature {
        name: "rt_sigqueueinfo",
        params: &[p("tgid", Pid), p("sig", Signal), p("info", Ptr)],
    },
    Signature {
        name: "rt_sigreturn",
        params: &[],
    },
    Signature {
        name: "rt_sigsuspend",
        params: &[p("mask", Ptr), p("sigsetsize", Uint)],
    },
    Signature {
        name: "rt_sigtimedwait",
        params: &[
            p("set", Ptr),
            p("info", Ptr),
            p("timeout", Ptr),
            p("sigsetsize", Uint),
        ],
    },
    Signature {
        name: "rt_sigtimedwait_time64",
        params: &[
            p("set", Ptr),
            p("info", Ptr),
            p("timeout", Ptr),
            p("sigsetsize", Uint),
        ],
    },
    Signature {
        name: "rt_tgsigqueueinfo",
        params: &[
            p("tgid", Pid),
            p("tid", Pid),
            p("sig", Signal),
            p("info", Ptr),
        ],
    },
    Signature {
        name: "sched_get_priority_max",
        params: &[p("policy", Int)],
    },
    Signature {
        name: "sched_get_priority_min",
        params: &[p("policy", Int)],
    },
    Signature {
        name: "sched_getaffinity",
        params: &[p("pid", Pid), p("cpusetsize", Uint), p("mask", Ptr)],
    },
    Signature {
        name: "sched_getattr",
        params: &[
            p("pid", Pid),
            p("uattr", Ptr),
            p("usize", Uint),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "sched_getparam",
        params: &[p("pid", Pid), p("param", Ptr)],
    },
    Signature {
        name: "sched_getscheduler",
        params: &[p("pid", Pid)],
    },
    Signature {
        name: "sched_rr_get_interval",
        params: &[p("pid", Pid), p("tp", Ptr)],
    },
    Signature {
        name: "sched_rr_get_interval_time64",
        params: &[p("pid", Pid), p("tp", Ptr)],
    },
    Signature {
        name: "sched_setaffinity",
        params: &[p("pid", Pid), p("cpusetsize", Uint), p("mask", Ptr)],
    },
    Signature {
        name: "sched_setattr",
        params: &[p("pid", Pid), p("uattr", Ptr), p("flags", Hex)],
    },
    Signature {
        name: "sched_setparam",
        params: &[p("pid", Pid), p("param", Ptr)],
    },
    Signature {
        name: "sched_setscheduler",
        params: &[p("pid", Pid), p("policy", Int), p("param", Ptr)],
    },
    Signature {
        name: "sched_yield",
        params: &[],
    },
    Signature {
        name: "seccomp",
        params: &[p("op", Int), p("flags", Hex), p("uargs", Ptr)],
    },
    Signature {
        name: "security",
        params: &[],
    },
    Signature {
        name: "select",
        params: &[
            p("nfds", Int),
            p("readfds", Ptr),
            p("writefds", Ptr),
            p("exceptfds", Ptr),
            p("timeout", Ptr),
        ],
    },
    Signature {
        name: "semctl",
        params: &[
            p("semid", Int),
            p("semnum", Int),
            p("cmd", Int),
            p("arg", Hex),
        ],
    },
    Signature {
        name: "semget",
        params: &[p("key", Hex), p("nsems", Int), p("semflg", Hex)],
    },
    Signature {
        name: "semop",
        params: &[p("semid", Int), p("tsops", Ptr), p("nsops", Uint)],
    },
    Signature {
        name: "semtimedop",
        params: &[
            p("semid", Int),
            p("tsops", Ptr),
            p("nsops", Uint),
            p("timeout", Ptr),
        ],
    },
    Signature {
        name: "semtimedop_time64",
        params: &[
            p("semid", Int),
            p("tsops", Ptr),
            p("nsops", Uint),
            p("timeout", Ptr),
        ],
    },
    Signature {
        name: "send",
        params: &[
            p("sockfd", Fd),
            p("buf", Ptr),
            p("len", Uint),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "sendfile",
        params: &[
            p("out_fd", Fd),
            p("in_fd", Fd),
            p("offset", Ptr),
            p("count", Uint),
        ],
    },
    Signature {
        name: "sendfile64",
        params: &[
            p("out_fd", Fd),
            p("in_fd", Fd),
            p("offset", Ptr),
            p("count", Uint),
        ],
    },
    Signature {
        name: "sendmmsg",
        params: &[
            p("sockfd", Fd),
            p("msgvec", Ptr),
            p("vlen", Uint),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "sendmsg",
        params: &[p("sockfd", Fd), p("msg", Ptr), p("flags", Hex)],
    },
    Signature {
        name: "sendto",
        params: &[
            p("sockfd", Fd),
            p("buf", Ptr),
            p("len", Uint),
            p("flags", Hex),
            p("dest_addr", Ptr),
            p("addrlen", Int),
        ],
    },
    Signature {
        name: "set_mempolicy",
        params: &[p("mode", Int), p("nmask", Ptr), p("maxnode", Uint)],
    },
    Signature {
        name: "set_mempolicy_home_node",
        params: &[
            p("start", Ptr),
            p("len", Uint),
            p("home_node", Uint),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "set_robust_list",
        params: &[p("head", Ptr), p("len", Uint)],
    },
    Signature {
        name: "set_thread_area",
        params: &[p("u_info", Ptr)],
    },
    Signature {
        name: "set_tid_address",
        params: &[p("tidptr", Ptr)],
    },
    Signature {
        name: "setdomainname",
        params: &[p("name", Str), p("len", Int)],
    },
    Signature {
        name: "setfsgid",
        params: &[p("id", Uint)],
    },
    Signature {
        name: "setfsgid32",
        params: &[p("id", Uint)],
    },
    Signature {
        name: "setfsuid",
        params: &[p("id", Uint)],
    },
    Signature {
        name: "setfsuid32",
        params: &[p("id", Uint)],
    },
    Signature {
        name: "setgid",
        params: &[p("id", Uint)],
    },
    Signature {
        name: "setgid32",
        params: &[p("id", Uint)],
    },
    Signature {
        name: "setgroups",
        params: &[p("size", Int), p("list", Ptr)],
    },
    Signature {
        name: "setgroups32",
        params: &[p("size", Int), p("list", Ptr)],
    },
    Signature {
        name: "sethostname",
        params: &[p("name", Str), p("len", Int)],
    },
    Signature {
        name: "setitimer",
        params: &[p("which", Int), p("new_value", Ptr), p("old_value", Ptr)],
    },
    Signature {
        name: "setns",
        params: &[p("fd", Fd), p("flags", Hex)],
    },
    Signature {
        name: "setpgid",
        params: &[p("pid", Pid), p("pgid", Pid)],
    },
    Signature {
        name: "setpriority",
        params: &[p("which", Int), p("who", Int), p("prio", Int)],
    },
    Signature {
        name: "setregid",
        params: &[p("real", Uint), p("effective", Uint)],
    },
    Signature {
        name: "setregid32",
        params: &[p("real", Uint), p("effective", Uint)],
    },
    Signature {
        name: "setresgid",
        params: &[p("real", Uint), p("effective", Uint), p("saved", Uint)],
    },
    Signature {
        name: "setresgid32",
        params: &[p("real", Uint), p("effective", Uint), p("saved", Uint)],
    },
    Signature {
        name: "setresuid",
        params: &[p("real", Uint), p("effective", Uint), p("saved", Uint)],
    },
    Signature {
        name: "setresuid32",
        params: &[p("real", Uint), p("effective", Uint), p("saved", Uint)],
    },
    Signature {
        name: "setreuid",
        params: &[p("real", Uint), p("effective", Uint)],
    },
    Signature {
        name: "setreuid32",
        params: &[p("real", Uint), p("effective", Uint)],
    },
    Signature {
        name: "setrlimit",
        params: &[p("resource", Int), p("rlim", Ptr)],
    },
    Signature {
        name: "setsid",
        params: &[],
    },
    Signature {
        name: "setsockopt",
        params: &[
            p("sockfd", Fd),
            p("level", Int),
            p("optname", Int),
            p("optval", Ptr),
            p("optlen", Int),
        ],
    },
    Signature {
        name: "settimeofday",
        params: &[p("tv", Ptr), p("tz", Ptr)],
    },
    Signature {
        name: "setuid",
        params: &[p("id", Uint)],
    },
    Signature {
        name: "setuid32",
        params: &[p("id", Uint)],
    },
    Signature {
        name: "setxattr",
        params: &[
            p("pathname", Path),
            p("name", Str),
            p("value", Ptr),
            p("size", Uint),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "setxattrat",
        params: &[
            p("dfd", DirFd),
            p("pathname", Path),
            p("at_flags", Hex),
            p("name", Str),
            p("uargs", Ptr),
            p("usize", Uint),
        ],
    },
    Signature {
        name: "sgetmask",
        params: &[],
    },
    Signature {
        name: "shmat",
        params: &[p("shmid", Int), p("shmaddr", Ptr), p("shmflg", Hex)],
    },
    Signature {
        name: "shmctl",
        params: &[p("shmid", Int), p("cmd", Int), p("buf", Ptr)],
    },
    Signature {
        name: "shmdt",
        params: &[p("shmaddr", Ptr)],
    },
    Signature {
        name: "shmget",
        params: &[p("key", Hex), p("size", Uint), p("shmflg", Hex)],
    },
    Signature {
        name: "shutdown",
        params: &[p("sockfd", Fd), p("how", Int)],
    },
    Signature {
        name: "sigaction",
        params: &[p("sig", Signal), p("act", Ptr), p("oact", Ptr)],
    },
    Signature {
        name: "sigaltstack",
        params: &[p("ss", Ptr), p("old_ss", Ptr)],
    },
    Signature {
        name: "signal",
        params: &[p("sig", Signal), p("handler", Ptr)],
    },
    Signature {
        name: "signalfd",
        params: &[p("fd", Fd), p("mask", Ptr), p("sizemask", Uint)],
    },
    Signature {
        name: "signalfd4",
        params: &[
            p("fd", Fd),
            p("mask", Ptr),
            p("sizemask", Uint),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "sigpending",
        params: &[p("uset", Ptr)],
    },
    Signature {
        name: "sigprocmask",
        params: &[p("how", Int), p("nset", Ptr), p("oset", Ptr)],
    },
    Signature {
        name: "sigreturn",
        params: &[],
    },
    Signature {
        name: "sigsuspend",
        params: &[p("unused1", Int), p("unused2", Int), p("mask", Hex)],
    },
    Signature {
        name: "socket",
        params: &[p("domain", Int), p("type", Int), p("protocol", Int)],
    },
    Signature {
        name: "socketcall",
        params: &[p("call", Int), p("args", Ptr)],
    },
    Signature {
        name: "socketpair",
        params: &[
            p("domain", Int),
            p("type", Int),
            p("protocol", Int),
            p("sv", Ptr),
        ],
    },
    Signature {
        name: "splice",
        params: &[
            p("fd_in", Fd),
            p("off_in", Ptr),
            p("fd_out", Fd),
            p("off_out", Ptr),
            p("len", Uint),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "ssetmask",
        params: &[p("newmask", Hex)],
    },
    Signature {
        name: "stat",
        params: &[p("pathname", Path), p("statbuf", Ptr)],
    },
    Signature {
        name: "stat64",
        params: &[p("pathname", Path), p("statbuf", Ptr)],
    },
    Signature {
        name: "statfs",
        params: &[p("path", Path), p("buf", Ptr)],
    },
    Signature {
        name: "statfs64",
        params: &[p("path", Path), p("sz", Uint), p("buf", Ptr)],
    },
    Signature {
        name: "statmount",
        params: &[
            p("req", Ptr),
            p("buf", Ptr),
            p("bufsize", Uint),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "statx",
        params: &[
            p("dirfd", DirFd),
            p("pathname", Path),
            p("flags", Hex),
            p("mask", Hex),
            p("statxbuf", Ptr),
        ],
    },
    Signature {
        name: "stime",
        params: &[p("tptr", Ptr)],
    },
    Signature {
        name: "stty",
        params: &[],
    },
    Signature {
        name: "swapoff",
        params: &[p("specialfile", Path)],
    },
    Signature {
        name: "swapon",
        params: &[p("specialfile", Path), p("swap_flags", Hex)],
    },
    Signature {
        name: "symlink",
        params: &[p("oldpath", Path), p("newpath", Path)],
    },
    Signature {
        name: "symlinkat",
        params: &[p("target", Path), p("newdirfd", DirFd), p("linkpath", Path)],
    },
    Signature {
        name: "sync",
        params: &[],
    },
    Signature {
        name: "sync_file_range",
        params: &[
            p("fd", Fd),
            p("offset", Offset),
            p("nbytes", Offset),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "syncfs",
        params: &[p("fd", Fd)],
    },
    Signature {
        name: "sysfs",
        params: &[p("option", Int), p("arg1", Hex), p("arg2", Hex)],
    },
    Signature {
        name: "sysinfo",
        params: &[p("info", Ptr)],
    },
    Signature {
        name: "syslog",
        params: &[p("type", Int), p("buf", Ptr), p("len", Int)],
    },
    Signature {
        name: "tee",
        params: &[
            p("fd_in", Fd),
            p("fd_out", Fd),
            p("len", Uint),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "tgkill",
        params: &[p("tgid", Pid), p("tid", Pid), p("sig", Signal)],
    },
    Signature {
        name: "time",
        params: &[p("tloc", Ptr)],
    },
    Signature {
        name: "timer_create",
        params: &[p("clockid", Int), p("sevp", Ptr), p("timerid", Ptr)],
    },
    Signature {
        name: "timer_delete",
        params: &[p("timerid", Int)],
    },
    Signature {
        name: "timer_getoverrun",
        params: &[p("timerid", Int)],
    },
    Signature {
        name: "timer_gettime",
        params: &[p("timerid", Int), p("curr_value", Ptr)],
    },
    Signature {
        name: "timer_gettime64",
        params: &[p("timerid", Int), p("curr_value", Ptr)],
    },
    Signature {
        name: "timer_settime",
        params: &[
            p("timerid", Int),
            p("flags", Hex),
            p("new_value", Ptr),
            p("old_value", Ptr),
        ],
    },
    Signature {
        name: "timer_settime64",
        params: &[
            p("timerid", Int),
            p("flags", Hex),
            p("new_value", Ptr),
            p("old_value", Ptr),
        ],
    },
    Signature {
        name: "timerfd_create",
        params: &[p("clockid", Int), p("flags", Hex)],
    },
    Signature {
        name: "timerfd_gettime",
        params: &[p("fd", Fd), p("curr_value", Ptr)],
    },
    Signature {
        name: "timerfd_gettime64",
        params: &[p("fd", Fd), p("curr_value", Ptr)],
    },
    Signature {
        name: "timerfd_settime",
        params: &[
            p("fd", Fd),
            p("flags", Hex),
            p("new_value", Ptr),
            p("old_value", Ptr),
        ],
    },
    Signature {
        name: "timerfd_settime64",
        params: &[
            p("fd", Fd),
            p("flags", Hex),
            p("new_value", Ptr),
            p("old_value", Ptr),
        ],
    },
    Signature {
        name: "times",
        params: &[p("buf", Ptr)],
    },
    Signature {
        name: "tkill",
        params: &[p("tid", Pid), p("sig", Signal)],
    },
    Signature {
        name: "truncate",
        params: &[p("path", Path), p("length", Offset)],
    },
    Signature {
        name: "truncate64",
        params: &[p("path", Path), p("length", Offset), p("length_high", High)],
    },
    Signature {
        name: "tuxcall",
        params: &[],
    },
    Signature {
        name: "ugetrlimit",
        params: &[p("resource", Int), p("rlim", Ptr)],
    },
    Signature {
        name: "ulimit",
        params: &[],
    },
    Signature {
        name: "umask",
        params: &[p("mask", Mode)],
    },
    Signature {
        name: "umount",
        params: &[p("pathname", Path)],
    },
    Signature {
        name: "umount2",
        params: &[p("target", Path), p("flags", Hex)],
    },
    Signature {
        name: "uname",
        params: &[p("buf", Ptr)],
    },
    Signature {
        name: "unlink",
        params: &[p("pathname", Path)],
    },
    Signature {
        name: "unlinkat",
        params: &[p("dirfd", DirFd), p("pathname", Path), p("flags", Hex)],
    },
    Signature {
        name: "unshare",
        params: &[p("unshare_flags", Hex)],
    },
    Signature {
        name: "uprobe",
        params: &[],
    },
    Signature {
        name: "uretprobe",
        params: &[],
    },
    Signature {
        name: "uselib",
        params: &[p("library", Path)],
    },
    Signature {
        name: "userfaultfd",
        params: &[p("flags", Hex)],
    },
    Signature {
        name: "ustat",
        params: &[p("dev", Hex), p("ubuf", Ptr)],
    },
    Signature {
        name: "utime",
        params: &[p("filename", Path), p("times", Ptr)],
    },
    Signature {
        name: "utimensat",
        params: &[
            p("dfd", DirFd),
            p("filename", Path),
            p("utimes", Ptr),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "utimensat_time64",
        params: &[
            p("dfd", DirFd),
            p("filename", Path),
            p("utimes", Ptr),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "utimes",
        params: &[p("filename", Path), p("utimes", Ptr)],
    },
    Signature {
        name: "vfork",
        params: &[],
    },
    Signature {
        name: "vhangup",
        params: &[],
    },
    Signature {
        name: "vm86",
        params: &[p("cmd", Int), p("arg", Hex)],
    },
    Signature {
        name: "vm86old",
        params: &[p("user_vm86", Ptr)],
    },
    Signature {
        name: "vmsplice",
        params: &[
            p("fd", Fd),
            p("uiov", Ptr),
            p("nr_segs", Uint),
            p("flags", Hex),
        ],
    },
    Signature {
        name: "vserver",
        params: &[],
    },
    Signature {
        name: "wait4",
        params: &[
            p("pid", Pid),
            p("wstatus", Ptr),
            p("options", Hex),
            p("rusage", Ptr),
        ],
    },
    Signature {
        name: "waitid",
        params: &[
            p("idtype", Int),
            p("id", Pid),
            p("infop", Ptr),
            p("options", Hex),
            p("rusage", Ptr),
        ],
    },
    Signature {
        name: "waitpid",
        params: &[p("pid", Pid), p("stat_addr", Ptr), p("options", Hex)],
    },
    Signature {
        name: "write",
        params: &[p("fd", Fd), p("buf", Ptr), p("count", Uint)],
    },
    Signature {
        name: "writev",
        params: &[p("fd", Fd), p("iov", Ptr), p("iovcnt", Uint)],
    },
];

/// The calls whose i386 entry point takes other registers than the x86_64
/// call of the same name, sorted by name. For these the names in
/// [`SIGNATURES`] would point a filter at the wrong register: a 64-bit
/// value here takes two (`offset` and its [`High`] word `offset_high`),
/// clone's last two are swapped, and the old mmap and select take one
/// pointer to all their arguments.
pub static I386_SIGNATURES: &[Signature] = &[
    Signature {
        name: "clone",
        params: &[
            p("flags", Hex),
            p("stack", Ptr),
            p("parent_tid", Ptr),
            p("tls", Hex),
            p("child_tid", Ptr),
        ],
    },
    Signature {
        name: "fadvise64",
        params: &[
            p("fd", Fd),
            p("offset", Offset),
            p("offset_high", High),
            p("len", Uint),
            p("advice", Int),
        ],
    },
    Signature {
        name: "fallocate",
        params: &[
            p("fd", Fd),
            p("mode", Hex),
            p("offset", Offset),
            p("offset_high", High),
            p("len", Offset),
            p("len_high", High),
        ],
    },
    Signature {
        name: "fanotify_mark",
        params: &[
            p("fanotify_fd", Fd),
            p("flags", Hex),
            p("mask", Hex),
            p("mask_high", High),
            p("dfd", DirFd),
            p("pathname", Path),
        ],
    },
    Signature {
        name: "mmap",
        params: &[p("args", Ptr)],
    },
    Signature {
        name: "pread64",
        params: &[
            p("fd", Fd),
            p("buf", Ptr),
            p("count", Uint),
            p("offset", Offset),
            p("offset_high", High),
        ],
    },
    Signature {
        name: "pwrite64",
        params: &[
            p("fd", Fd),
            p("buf", Ptr),
            p("count", Uint),
            p("offset", Offset),
            p("offset_high", High),
        ],
    },
    Signature {
        name: "readahead",
        params: &[
            p("fd", Fd),
            p("offset", Offset),
            p("offset_high", High),
            p("count", Uint),
        ],
    },
    Signature {
        name: "select",
        params: &[p("args", Ptr)],
    },
    Signature {
        name: "sync_file_range",
        params: &[
            p("fd", Fd),
            p("offset", Offset),
            p("offset_high", High),
            p("nbytes", Offset),
            p("nbytes_high", High),
            p("flags", Hex),
        ],
    },
];

/// The declared parameters of call `name` of `arch`.
pub fn signature(arch: Arch, name: &str) -> Option<&'static Signature> {
    let find = |table: &'static [Signature]| {
        table
            .binary_search_by(|s| s.name.cmp(name))
            .ok()
            .map(|i| &table[i])
    };
    match arch {
        Arch::I386 => find(I386_SIGNATURES).or_else(|| find(SIGNATURES)),
        _ => find(SIGNATURES),
    }
}

/// Every signature of both ABIs (a name may come twice).
pub fn all_signatures() -> impl Iterator<Item = &'static Signature> {
    SIGNATURES.iter().chain(I386_SIGNATURES)
}

#[cfg(test)]
mod tests {
    use super::{I386_SIGNATURES, SIGNATURES};

    #[test]
    fn sorted_and_unique() {
        for pair in SIGNATURES.windows(2).chain(I386_SIGNATURES.windows(2)) {
            assert!(
                pair[0].name < pair[1].name,
                "{:?} must sort strictly before {:?}",
                pair[0].name,
                pair[1].name
            );
        }
    }

    #[test]
    fn every_high_word_has_its_low_word() {
        for sig in super::all_signatures() {
            for (i, param) in sig.params.iter().enumerate() {
                if param.kind == super::High {
                    let low = param.name.strip_suffix("_high");
                    let low = low.and_then(|low| sig.position(low));
                    assert!(
                        low.is_some_and(|low| sig.high_word(low) == Some(i)),
                        "{}: {} is the high word of no parameter",
                        sig.name,
                        param.name
                    );
                }
            }
        }
    }

    #[test]
    fn sample_names_present() {
        for name in [
            "read",
            "write",
            "openat",
            "execve",
            "ioctl",
            "mmap",
            "clone3",
            "_llseek",
            "socketcall",
            "mmap2",
        ] {
            assert!(
                SIGNATURES.binary_search_by(|s| s.name.cmp(name)).is_ok(),
                "{name} missing from SIGNATURES"
            );
        }
    }
}
