//! The system call table: one row per call, in the manner of strace's
//! syscallent files.
//!
//! Each row ([`rows::ROWS`]) gives a call's name, its parameters in
//! register order (each with the name `-N`, `--json` and `--filter` use
//! and the [`Kind`] the generic printer renders it as) and the strace
//! classes `-e trace=%CLASS` selects it by ([`class`]). The call layer
//! carries a call's [`Signature`]; the generic printer and the parameter
//! name check in `service/` walk it; `select/` reads the classes; the
//! `--filter` field check and the BPF engine's captures read the names and
//! kinds. It sits below all of them (it imports only [`crate::kernel::Arch`]),
//! so none of them imports another for it.
//!
//! Which handler prints a call is not in the row: handlers are functions of
//! the `service/` layer above, found by the call's name in each area's
//! `HANDLERS` table (`service::lookup`).
//!
//! `tests` below check the rows' order and shape; `kernel_check` checks
//! every row against the `syscalls` crate's tables and, where the machine
//! has them, the kernel's own syscall trace event formats.

pub mod rows;

#[cfg(test)]
mod kernel_check;

use crate::kernel::Arch;

/// How the generic printer renders one raw argument register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Signed decimal (`int`, `long`).
    Int,
    /// Unsigned decimal (`unsigned int`, `size_t`, counts, lengths).
    Uint,
    /// Hexadecimal (`unsigned long` flags, masks, opaque values).
    Hex,
    /// Octal file mode (`mode_t`).
    Mode,
    /// A file descriptor (`int fd`).
    Fd,
    /// A directory file descriptor that may be `AT_FDCWD`.
    DirFd,
    /// A process or thread id (`pid_t`), printed signed.
    Pid,
    /// A signal number, printed by name.
    Signal,
    /// A pointer to user memory printed as an address.
    Ptr,
    /// A NUL-terminated path name read from the tracee.
    Path,
    /// Any other NUL-terminated string read from the tracee.
    Str,
    /// A file offset (`off_t`, `loff_t`), signed decimal.
    Offset,
    /// The high word of the 64-bit value named by this parameter's name
    /// without its `_high` (`offset_high` of `offset`): i386 passes such
    /// values in two registers. Never printed on its own: the value prints
    /// whole under the low word's name, and a filter on that name sees it
    /// whole. On x86_64 the low register holds all 64 bits and the kernel
    /// ignores this one (preadv's `pos_h`).
    High,
    /// A file offset counted in 4096-byte pages (mmap2's `pgoff`), printed
    /// and filtered in bytes like mmap's offset.
    Pages,
}

/// One named parameter of a system call.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    /// The parameter's name: what `-N` and `--json` print and what a
    /// `--filter` expression calls it (for a call with a handler, the name
    /// its handler prints; else the kernel's SYSCALL_DEFINE spelling).
    pub name: &'static str,
    /// How to print it.
    pub kind: Kind,
}

/// A set of strace's system call classes (`%desc`, `%file`, ...): the bits
/// of [`class`]. Membership is strace's, not derived from the parameter
/// kinds (a socket call takes an fd but strace has it only in `%network`;
/// `pipe2` takes none but creates two).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Classes(pub u32);

impl Classes {
    /// No class.
    pub const NONE: Classes = Classes(0);

    /// Whether the two sets share a class.
    pub fn intersects(self, other: Classes) -> bool {
        self.0 & other.0 != 0
    }
}

/// strace's classes, one bit each, as its syscall tables' flags give them:
/// `TD` is [`DESC`](class::DESC), `TF` `FILE`, `TI` `IPC`, `TN` `NETWORK`,
/// `TP` `PROCESS`, `TS` `SIGNAL`, `TM` `MEMORY`, `TC` `CREDS`, `TCL`
/// `CLOCK`, `TST`/`TLST`/`TFST`/`TSTA` `STAT`/`LSTAT`/`FSTAT`/`STAT_LIKE`,
/// `TSF`/`TFSF`/`TSFA` `STATFS`/`FSTATFS`/`STATFS_LIKE`, `PU` `PURE`. The
/// names `-e trace=%NAME` accepts for them are `select/classes.rs`'s.
pub mod class {
    use super::Classes;

    /// `%desc`: calls that take, create or operate on file descriptors.
    pub const DESC: Classes = Classes(1 << 0);
    /// `%file`: calls that take a file name.
    pub const FILE: Classes = Classes(1 << 1);
    /// `%ipc`: System V IPC.
    pub const IPC: Classes = Classes(1 << 2);
    /// `%network` (`%net`): sockets.
    pub const NETWORK: Classes = Classes(1 << 3);
    /// `%process`: process lifecycle (fork, exec, exit, wait, kill).
    pub const PROCESS: Classes = Classes(1 << 4);
    /// `%signal`: signal-related calls.
    pub const SIGNAL: Classes = Classes(1 << 5);
    /// `%memory`: memory mapping.
    pub const MEMORY: Classes = Classes(1 << 6);
    /// `%creds`: user and group ids, capabilities.
    pub const CREDS: Classes = Classes(1 << 7);
    /// `%clock`: reading or changing the system clocks.
    pub const CLOCK: Classes = Classes(1 << 8);
    /// `%stat`: stat by name, following links.
    pub const STAT: Classes = Classes(1 << 9);
    /// `%lstat`: stat by name, not following links.
    pub const LSTAT: Classes = Classes(1 << 10);
    /// `%fstat`: stat of a descriptor (or relative to one).
    pub const FSTAT: Classes = Classes(1 << 11);
    /// `%%stat`: every stat variant.
    pub const STAT_LIKE: Classes = Classes(1 << 12);
    /// `%statfs`: statfs by name.
    pub const STATFS: Classes = Classes(1 << 13);
    /// `%fstatfs`: statfs of a descriptor.
    pub const FSTATFS: Classes = Classes(1 << 14);
    /// `%%statfs`: every statfs variant.
    pub const STATFS_LIKE: Classes = Classes(1 << 15);
    /// `%pure`: calls with no arguments that always succeed.
    pub const PURE: Classes = Classes(1 << 16);
}

/// One row of the table: a call's declared parameters, by name, and its
/// classes.
#[derive(Clone, Copy, Debug)]
pub struct Signature {
    /// The call's name as rtrace prints it: the `syscalls` crate's
    /// spelling (`newfstatat`, `_llseek`), except `break`, which the crate
    /// writes `r#break`.
    pub name: &'static str,
    /// The parameters in register order.
    pub params: &'static [Param],
    /// strace's classes of the call (the same on both ABIs; always none in
    /// [`rows::I386_ROWS`], whose calls take theirs from [`rows::ROWS`]).
    pub classes: Classes,
}

impl Signature {
    /// The index of the parameter named `name`.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p.name == name)
    }

    /// The value of parameter `i` as it prints and as a filter sees it:
    /// its register, joined with its [`Kind::High`] word on i386, or
    /// converted from pages to bytes.
    pub fn value(&self, i: usize, arch: Arch, args: &[u64; 6]) -> u64 {
        let raw = args[i];
        match self.params[i].kind {
            Kind::Pages => (raw & 0xffff_ffff) * PAGE_SIZE,
            _ => match self.high_word(i) {
                Some(h) if arch == Arch::I386 => {
                    (raw & 0xffff_ffff) | (args[h] & 0xffff_ffff) << 32
                }
                _ => raw,
            },
        }
    }

    /// The index of the [`Kind::High`] word that belongs to parameter `i`.
    pub fn high_word(&self, i: usize) -> Option<usize> {
        let name = self.params[i].name;
        self.params
            .iter()
            .position(|p| p.kind == Kind::High && p.name.strip_suffix("_high") == Some(name))
    }
}

/// The page size mmap2's offset is counted in, on every Linux x86 kernel.
const PAGE_SIZE: u64 = 4096;

/// The row called `name` in `table` (sorted by name).
fn find(table: &'static [Signature], name: &str) -> Option<&'static Signature> {
    table
        .binary_search_by(|s| s.name.cmp(name))
        .ok()
        .map(|i| &table[i])
}

/// The declared parameters of call `name` of `arch`: its i386 row where
/// the i386 entry point takes other registers, else its one row. `name` is
/// the printed name (`break`; the crate's `r#break` is found too).
pub fn signature(arch: Arch, name: &str) -> Option<&'static Signature> {
    let name = name.strip_prefix("r#").unwrap_or(name);
    match arch {
        Arch::I386 => find(rows::I386_ROWS, name).or_else(|| find(rows::ROWS, name)),
        _ => find(rows::ROWS, name),
    }
}

/// Calls whose successful result is a new file descriptor (strace's
/// `RVAL_FD` decoders), sorted: `-y` shows its path after the number,
/// `openat(...) = 3</etc/hosts>`.
const RETURN_FDS: &[&str] = &[
    "accept",
    "accept4",
    "creat",
    "dup",
    "dup2",
    "dup3",
    "epoll_create",
    "epoll_create1",
    "eventfd",
    "eventfd2",
    "fanotify_init",
    "fsmount",
    "fsopen",
    "fspick",
    "inotify_init",
    "inotify_init1",
    "io_uring_setup",
    "landlock_create_ruleset",
    "memfd_create",
    "memfd_secret",
    "mq_open",
    "open",
    "open_by_handle_at",
    "open_tree",
    "openat",
    "openat2",
    "perf_event_open",
    "pidfd_getfd",
    "pidfd_open",
    "signalfd",
    "signalfd4",
    "socket",
    "timerfd_create",
    "userfaultfd",
];

/// The calls that open a file by a path they are given: the fd table
/// names the fd each returns by that path, the file's name as of the
/// call.
pub const OPENS_BY_PATH: &[&str] = &["creat", "open", "openat", "openat2"];

/// Whether a successful `name` called with `args` returns a new file
/// descriptor: the calls of [`RETURN_FDS`], fcntl's F_DUPFD and
/// F_DUPFD_CLOEXEC, the ioctl requests of `IOCTL_FD_RESULTS`
/// (`KVM_CREATE_VM`: `_IO` codes, the same on every ABI) and bpf's
/// [`BPF_FD_CMDS`].
pub fn returns_fd(name: &str, args: &[u64; 6]) -> bool {
    match name {
        "fcntl" | "fcntl64" => {
            let cmd = args[1] as i32;
            cmd == libc::F_DUPFD || cmd == libc::F_DUPFD_CLOEXEC
        }
        "ioctl" => {
            // The request is an `unsigned int`.
            let code = args[1] & 0xffff_ffff;
            crate::abi::xlat::ioctl::IOCTL_FD_RESULTS
                .iter()
                .any(|&(c, _)| c == code)
        }
        "bpf" => {
            let cmd = crate::abi::xlat::bpf::BPF_CMDS
                .iter()
                .find(|(v, _)| *v == args[0] as u32 as i64)
                .map(|(_, n)| *n);
            cmd.is_some_and(|n| BPF_FD_CMDS.contains(&n))
        }
        _ => RETURN_FDS.binary_search(&name).is_ok(),
    }
}

/// [`BPF_FD_CMDS`] as a mask of their numbers (all below 64): bit `cmd`
/// set for each, which the BPF engine's program tests at bpf(2)'s exit.
pub fn bpf_fd_cmd_mask() -> u64 {
    crate::abi::xlat::bpf::BPF_CMDS
        .iter()
        .filter(|(v, n)| BPF_FD_CMDS.contains(n) && (0..64).contains(v))
        .fold(0, |mask, (v, _)| mask | 1 << v)
}

/// The bpf(2) commands whose result is a new fd (a map, program, BTF
/// object, link or iterator).
const BPF_FD_CMDS: &[&str] = &[
    "BPF_MAP_CREATE",
    "BPF_PROG_LOAD",
    "BPF_OBJ_GET",
    "BPF_PROG_GET_FD_BY_ID",
    "BPF_MAP_GET_FD_BY_ID",
    "BPF_RAW_TRACEPOINT_OPEN",
    "BPF_BTF_LOAD",
    "BPF_BTF_GET_FD_BY_ID",
    "BPF_LINK_CREATE",
    "BPF_LINK_GET_FD_BY_ID",
    "BPF_ENABLE_STATS",
    "BPF_ITER_CREATE",
];

/// The calls whose successful result is a process, process group,
/// session or thread id (`-Y` prints its command after it), sorted.
const RETURN_PIDS: &[&str] = &[
    "clone", "clone3", "fork", "getpgid", "getpgrp", "getpid", "getppid", "getsid", "gettid",
    "setsid", "vfork", "wait4", "waitpid",
];

/// Whether a successful `name` returns a pid ([`RETURN_PIDS`]).
pub fn returns_pid(name: &str) -> bool {
    RETURN_PIDS.binary_search(&name).is_ok()
}

/// strace's classes of call `name` (none for a name the table lacks).
pub fn classes(name: &str) -> Classes {
    find(rows::ROWS, name).map_or(Classes::NONE, |s| s.classes)
}

/// Every row of both ABIs (a name may come twice).
pub fn all_signatures() -> impl Iterator<Item = &'static Signature> {
    rows::ROWS.iter().chain(rows::I386_ROWS)
}

#[cfg(test)]
mod tests {
    use super::rows::{I386_ROWS, ROWS};
    use super::*;

    #[test]
    fn pid_returning_calls_are_sorted_rows() {
        assert!(RETURN_PIDS.windows(2).all(|w| w[0] < w[1]));
        for name in RETURN_PIDS {
            assert!(
                find(ROWS, name).or(find(I386_ROWS, name)).is_some(),
                "{name}"
            );
        }
    }

    #[test]
    fn fd_returning_calls_are_sorted_rows() {
        assert!(RETURN_FDS.windows(2).all(|w| w[0] < w[1]));
        for name in RETURN_FDS {
            assert!(find(ROWS, name).is_some(), "{name} has no row");
        }
        assert!(returns_fd(
            "fcntl",
            &[3, libc::F_DUPFD_CLOEXEC as u64, 0, 0, 0, 0]
        ));
        assert!(!returns_fd("fcntl", &[3, libc::F_GETFD as u64, 0, 0, 0, 0]));
        let vm = crate::abi::xlat::ioctl::IOCTL_FD_RESULTS[0].0;
        assert!(returns_fd("ioctl", &[3, vm | 1 << 32, 0, 0, 0, 0]));
        assert!(!returns_fd("ioctl", &[3, 0x5401, 0, 0, 0, 0]));
        // Every command the mask has is one returns_fd says so of.
        let mask = bpf_fd_cmd_mask();
        assert_eq!(mask.count_ones() as usize, BPF_FD_CMDS.len());
        for cmd in 0..64u64 {
            assert_eq!(
                mask >> cmd & 1 == 1,
                returns_fd("bpf", &[cmd, 0, 0, 0, 0, 0]),
                "{cmd}"
            );
        }
    }

    #[test]
    fn sorted_and_unique() {
        for pair in ROWS.windows(2).chain(I386_ROWS.windows(2)) {
            assert!(
                pair[0].name < pair[1].name,
                "{:?} must sort strictly before {:?}",
                pair[0].name,
                pair[1].name
            );
        }
    }

    #[test]
    fn i386_rows_override_a_row_and_carry_no_classes() {
        for row in I386_ROWS {
            assert!(find(ROWS, row.name).is_some(), "{}: no row", row.name);
            assert_eq!(row.classes, Classes::NONE, "{}", row.name);
        }
    }

    #[test]
    fn every_high_word_has_its_low_word() {
        for sig in all_signatures() {
            for (i, param) in sig.params.iter().enumerate() {
                if param.kind == Kind::High {
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
    fn lookups() {
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
            "break",
            "r#break",
        ] {
            assert!(signature(Arch::X86_64, name).is_some(), "{name} has no row");
        }
        // clone's i386 row swaps the last two registers.
        let x86_64 = signature(Arch::X86_64, "clone").unwrap();
        let i386 = signature(Arch::I386, "clone").unwrap();
        assert_eq!(x86_64.params[3].name, "child_tid");
        assert_eq!(i386.params[3].name, "tls");
        assert_eq!(classes("clone"), class::PROCESS);
        assert!(classes("statx").intersects(class::FSTAT));
        assert_eq!(classes("afs_syscall"), Classes::NONE);
        assert_eq!(classes("no_such_call"), Classes::NONE);
    }
}
