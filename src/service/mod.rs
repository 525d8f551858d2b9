//! Per-area syscall handlers and the table that picks one for each call.
//!
//! A call is looked up by arch and number: its name comes from the `syscalls`
//! crate's tables, its declared parameters from the system call table
//! ([`crate::sysent`]), and its handler from an area's `HANDLERS` (gathered
//! in `TABLES`) when a specific one exists, else the generic printer.

pub mod aio;
pub mod bpf_filter;
pub mod ebpf;
pub mod ebpf_attr;
pub mod family;
pub mod fanotify;
pub mod fs;
pub mod fs_fd;
pub mod fs_names;
pub mod fs_path;
pub mod fs_stat;
pub mod fs_xfer;
pub mod generic;
pub mod ipc;
pub mod keys;
pub mod landlock;
pub mod ldt;
pub mod mm;
pub mod mount_api;
pub mod mq;
pub mod msg;
pub mod net;
pub mod netlink;
pub mod ns;
pub mod numa;
pub mod perf;
pub mod poll;
pub mod prctl;
pub mod process;
pub mod ptrace;
pub mod ptrace_info;
pub mod quota;
pub mod raw;
pub mod resource;
pub mod sched;
pub mod seccomp;
pub mod signal;
pub mod signal_old;
pub mod sockopt;
pub mod sockopt_packet;
pub mod sysadm;
pub mod time;
pub mod uring;
pub mod uring_register;
pub mod xattr;

#[cfg(test)]
mod param_names;

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;

use crate::call::{CallClass, Handler, InFn, OutFn, default_in};
use crate::kernel::Arch;
use crate::sysent::{self, Signature};

/// A handler table entry: `h("read", read_out, read_in, Normal)`.
pub const fn h(name: &'static str, out: OutFn, r#in: InFn, class: CallClass) -> Handler {
    Handler {
        name,
        out,
        r#in,
        class,
    }
}

/// Every area's handler table, searched in order. Each area module owns
/// its `HANDLERS` table (`h(name, out, in, class)` entries).
static TABLES: &[&[Handler]] = &[
    fs::HANDLERS,
    fs_fd::HANDLERS,
    fs_path::HANDLERS,
    fs_stat::HANDLERS,
    fs_xfer::HANDLERS,
    mm::HANDLERS,
    ldt::HANDLERS,
    fanotify::HANDLERS,
    mount_api::HANDLERS,
    process::HANDLERS,
    ptrace::HANDLERS,
    prctl::HANDLERS,
    landlock::HANDLERS,
    ebpf::HANDLERS,
    perf::HANDLERS,
    quota::HANDLERS,
    keys::HANDLERS,
    sysadm::HANDLERS,
    resource::HANDLERS,
    sched::HANDLERS,
    ns::HANDLERS,
    signal::HANDLERS,
    signal_old::HANDLERS,
    time::HANDLERS,
    poll::HANDLERS,
    net::HANDLERS,
    msg::HANDLERS,
    sockopt::HANDLERS,
    seccomp::HANDLERS,
    numa::HANDLERS,
    xattr::HANDLERS,
    ipc::HANDLERS,
    mq::HANDLERS,
    aio::HANDLERS,
    uring::HANDLERS,
    uring_register::HANDLERS,
    IOCTL,
];

/// ioctl(2): its enter and leave halves are the ioctl layer's dispatcher,
/// which sits below the handlers and knows nothing of this table.
static IOCTL: &[Handler] = &[h(
    "ioctl",
    crate::ioctl::ioctl_out,
    crate::ioctl::ioctl_in,
    CallClass::Normal,
)];

/// The generic handler for calls without a specific one.
static GENERIC: Handler = h("", generic::generic_out, default_in, CallClass::Normal);

/// What the call layer needs to print one call number.
#[derive(Clone, Copy)]
pub struct Entry {
    /// The call's name.
    pub name: &'static str,
    /// Its handler.
    pub handler: &'static Handler,
    /// Its declared parameters.
    pub sig: Option<&'static Signature>,
}

/// Every handler by name; the first table to name a call wins. Built once:
/// a linear search per call number made startup measurably slower.
fn handlers() -> &'static HashMap<&'static str, &'static Handler> {
    static BY_NAME: OnceLock<HashMap<&'static str, &'static Handler>> = OnceLock::new();
    BY_NAME.get_or_init(|| {
        // The ioctl layer prints socket and hardware addresses with the
        // socket calls' printers (`ioctl::Lent`).
        crate::ioctl::lend(crate::ioctl::Lent {
            sockaddr: net::put_sockaddr,
            mac: family::put_mac,
        });
        let mut map = HashMap::new();
        for h in TABLES.iter().flat_map(|t| t.iter()) {
            map.entry(h.name).or_insert(h);
        }
        map
    })
}

fn handler(name: &str) -> &'static Handler {
    handlers().get(name).copied().unwrap_or(&GENERIC)
}

fn build(arch: Arch, names: impl Iterator<Item = (usize, &'static str)>) -> Vec<Option<Entry>> {
    let mut entries: Vec<Option<Entry>> = Vec::new();
    for (nr, name) in names {
        if entries.len() <= nr {
            entries.resize(nr + 1, None);
        }
        // The crate spells the reserved word `break` as `r#break`.
        let shown = name.strip_prefix("r#").unwrap_or(name);
        entries[nr] = Some(Entry {
            name: shown,
            handler: handler(shown),
            sig: sysent::signature(arch, shown),
        });
    }
    entries
}

fn x86_64_table() -> &'static [Option<Entry>] {
    static TABLE: OnceLock<Vec<Option<Entry>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        use syscalls::x86_64::Sysno;
        // Sysno::iter() skips the last call; walk the numbers instead.
        build(
            Arch::X86_64,
            (0..=Sysno::last().id() as usize).filter_map(|n| Sysno::new(n).map(|s| (n, s.name()))),
        )
    })
}

fn i386_table() -> &'static [Option<Entry>] {
    static TABLE: OnceLock<Vec<Option<Entry>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        use syscalls::x86::Sysno;
        build(
            Arch::I386,
            (0..=Sysno::last().id() as usize).filter_map(|n| Sysno::new(n).map(|s| (n, s.name()))),
        )
    })
}

/// Look up call `nr` of `arch`: its entry, or a name `syscall_N` with the
/// generic handler when the table is older than the kernel.
pub fn lookup(arch: Arch, nr: u64) -> (Cow<'static, str>, Entry) {
    let table = match arch {
        Arch::X86_64 => x86_64_table(),
        Arch::X32 => x86_64_table(),
        Arch::I386 => i386_table(),
    };
    let index = match arch {
        Arch::X32 => nr & !0x4000_0000,
        _ => nr,
    };
    match table.get(index as usize).copied().flatten() {
        Some(entry) => (Cow::Borrowed(entry.name), entry),
        None => (
            Cow::Owned(format!("syscall_{nr}")),
            Entry {
                name: "",
                handler: &GENERIC,
                sig: None,
            },
        ),
    }
}

/// The entry for a call known by name only: a socketcall's or ipc's subcall.
pub fn lookup_name(name: &'static str) -> Entry {
    Entry {
        name,
        handler: handler(name),
        // Only i386 makes calls through socketcall and ipc.
        sig: sysent::signature(Arch::I386, name),
    }
}

/// Every call of `arch`'s table: number and name.
pub fn all_calls(arch: Arch) -> impl Iterator<Item = (u64, &'static str)> {
    let table = match arch {
        Arch::I386 => i386_table(),
        _ => x86_64_table(),
    };
    table
        .iter()
        .enumerate()
        .filter_map(|(nr, e)| e.map(|e| (nr as u64, e.name)))
}

/// The number of `name` in `arch`'s table.
pub fn number(arch: Arch, name: &str) -> Option<u64> {
    let table = match arch {
        Arch::I386 => i386_table(),
        _ => x86_64_table(),
    };
    table
        .iter()
        .position(|e| e.is_some_and(|e| e.name == name))
        .map(|n| n as u64)
}

/// The pointer arguments the kernel only writes, by call (both arches'
/// names), which their decoders print at the leave only: a buffer read
/// into, a stat or statfs buffer, directory entries, a link's target,
/// times, a wait status, ids, limits, the system's name and state. The BPF engine copies them at the exit alone
/// (what they hold at the entry is never printed), which the kernel's
/// declarations cannot tell it: a buffer the kernel reads is not always
/// declared `const` (sendto's).
pub const RESULTS_ONLY: &[(&str, &[u8])] = &[
    ("read", &[1]),
    ("pread64", &[1]),
    ("recvfrom", &[1]),
    ("readlink", &[1]),
    ("readlinkat", &[2]),
    ("getdents", &[1]),
    ("getdents64", &[1]),
    ("stat", &[1]),
    ("lstat", &[1]),
    ("fstat", &[1]),
    ("newfstatat", &[2]),
    ("stat64", &[1]),
    ("lstat64", &[1]),
    ("fstat64", &[1]),
    ("fstatat64", &[2]),
    ("statx", &[4]),
    ("statfs", &[1]),
    ("fstatfs", &[1]),
    ("getcwd", &[0]),
    ("getrandom", &[0]),
    ("clock_gettime", &[1]),
    ("gettimeofday", &[0, 1]),
    ("getrusage", &[1]),
    ("wait4", &[1, 3]),
    ("pipe", &[0]),
    ("pipe2", &[0]),
    ("getresuid", &[0, 1, 2]),
    ("getresgid", &[0, 1, 2]),
    ("getresuid32", &[0, 1, 2]),
    ("getresgid32", &[0, 1, 2]),
    ("getgroups32", &[1]),
    ("getcpu", &[0, 1, 2]),
    ("uname", &[0]),
    ("olduname", &[0]),
    ("oldolduname", &[0]),
    ("sysinfo", &[0]),
    ("times", &[0]),
    ("getrlimit", &[1]),
    ("ugetrlimit", &[1]),
    ("time", &[0]),
    ("clock_gettime64", &[1]),
    ("clock_getres", &[1]),
    ("clock_getres_time64", &[1]),
    ("rt_sigpending", &[0]),
    ("sigpending", &[0]),
    ("getitimer", &[1]),
];

/// The arguments of call `name` listed in [`RESULTS_ONLY`].
pub fn results_only(name: &str) -> &'static [u8] {
    RESULTS_ONLY
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(&[], |&(_, args)| args)
}

/// Where one argument of the call an i386 multiplexer (socketcall, ipc)
/// stands for comes from: the decoders read it so, and the BPF engine's
/// program takes that call's memory from the same places.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The multiplexer's argument N.
    Arg(u8),
    /// 32-bit word N of the block behind the multiplexer's argument
    /// [`Subcall::block`] (socketcall's `args`, ipc's kludge or semun).
    Word(u8),
    /// None: 0.
    Zero,
}

/// One call an i386 multiplexer stands for, and where its arguments are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Subcall {
    /// The call's name.
    pub name: &'static str,
    /// The multiplexer's argument the words of [`Source::Word`] are
    /// behind.
    pub block: u8,
    /// Its arguments, in order.
    pub args: [Source; 6],
}

impl Subcall {
    /// How many words of the block the arguments use.
    pub fn words(&self) -> usize {
        self.args
            .iter()
            .filter_map(|a| match a {
                Source::Word(n) => Some(*n as usize + 1),
                _ => None,
            })
            .max()
            .unwrap_or(0)
    }

    /// The call's arguments, from the multiplexer's `args` and the block
    /// its [`Subcall::block`] points at (32-bit words); None where the
    /// block cannot be read.
    pub fn resolve(&self, args: [u64; 6], mem: &mut crate::kernel::Memory) -> Option<[u64; 6]> {
        let words = self.words();
        let mut block = [0u8; 24];
        let at = args[self.block as usize % 6];
        if words > 0 && (at == 0 || !mem.read_exact(at, &mut block[..words * 4])) {
            return None;
        }
        let mut out = [0u64; 6];
        for (value, source) in out.iter_mut().zip(self.args) {
            *value = match source {
                Source::Arg(n) => args[n as usize % 6],
                Source::Word(n) => raw::u32_at(&block, n as usize * 4) as u64,
                Source::Zero => 0,
            };
        }
        Some(out)
    }
}

/// Memory a multiplexed call's decoder reads behind one argument, which
/// another argument's value chooses (prctl's option, arch_prctl's code):
/// what the BPF engine copies for that value, as the declarations cannot
/// say (prctl's arguments are `unsigned long`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByValue {
    /// The argument whose value chooses (prctl's option: 0).
    pub selector: u8,
    /// That value (`PR_SET_NAME`).
    pub value: u64,
    /// The argument the memory is behind.
    pub arg: u8,
    /// What the decoder reads there.
    pub mem: Mem,
}

impl ByValue {
    /// The memory behind argument `arg` when the first argument (prctl's
    /// option, keyctl's operation) is `value`.
    pub const fn by_first(value: u32, arg: u8, mem: Mem) -> ByValue {
        ByValue {
            selector: 0,
            value: value as u64,
            arg,
            mem,
        }
    }
}

/// What a decoder reads behind an argument, and when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mem {
    /// A NUL-terminated string of at most this many bytes with its NUL,
    /// at the entry.
    Str(usize),
    /// A NUL-terminated string as far as the string limit (`-s`) shows
    /// it, at the entry.
    StrShown,
    /// This many bytes the kernel reads, at the entry.
    In(usize),
    /// This many bytes the kernel writes, at the leave.
    Out(usize),
    /// A `struct sock_fprog` and the instructions it points at, as many
    /// as are shown (`bpf_filter::put_fprog`), at the entry.
    Fprog,
    /// Classic BPF instructions the kernel writes, as many as are shown
    /// (`bpf_filter::put_program`), at the leave.
    Insns,
    /// As many bytes as argument N says, the kernel reads, at the entry
    /// (as far as they are shown: `-s`).
    InLen(u8),
    /// As many bytes as argument N says and the result (the fewer), the
    /// kernel writes, at the leave (as far as they are shown: `-s`).
    OutLen(u8),
    /// Behind an [`Indirect`] pointer: as many bytes as the `u32` member
    /// at this offset of the same struct says, the kernel reads, at the
    /// entry (as far as they are shown).
    InMember(u8),
    /// The same, the kernel writes, at the leave: as many as the member
    /// and the result say, the fewer.
    OutMember(u8),
    /// As many bytes as the `u32` member at `offset` of the struct behind
    /// argument `arg` says, the kernel reads, at the entry (as far as they
    /// are shown: a `struct keyctl_pkey_params`' `in_len`).
    InMemberOf {
        /// The argument the struct is behind.
        arg: u8,
        /// The member's offset in it.
        offset: u16,
    },
    /// The same, the kernel writes, at the leave: as many as the member
    /// and the result say, the fewer.
    OutMemberOf {
        /// The argument the struct is behind.
        arg: u8,
        /// The member's offset in it.
        offset: u16,
    },
    /// A struct or an array of a [`Block`]'s shape, with the arrays
    /// behind its pointer members (io_uring_register's, by opcode).
    Block(&'static Block),
}

/// Memory whose shape [`Mem`]'s sizes alone cannot say: `base` bytes,
/// then as many `unit`-byte elements as an argument counts, read by the
/// kernel at the entry and/or written at the leave, and the arrays
/// behind pointer members of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    /// The bytes before the counted elements (a struct's).
    pub base: usize,
    /// The argument that counts the elements after `base`, and each
    /// one's bytes (None: `base` alone).
    pub units: Option<(u8, usize)>,
    /// `ioctl::IF_OUT`: the kernel reads it, at the entry; `IF_IN`: it
    /// writes it, at the leave.
    pub dirs: u8,
    /// The arrays behind pointer members of it (two at most).
    pub pointed: &'static [crate::ioctl::PointedArray],
}

/// How many elements an array argument has, where the declaration does
/// not put its length right after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    /// Always this many (utimensat's two times).
    Fixed(usize),
    /// As many as this argument says (move_pages' `nr_pages`, before it).
    Arg(u8),
    /// As many as the call returns, written by the kernel (io_getevents'
    /// events, getgroups' list).
    Result,
    /// As many bits as this argument says, in whole words of the
    /// caller's, which the kernel reads and writes (select's fd sets,
    /// `nfds`).
    Bits(u8),
    /// As many bytes as this argument says, and at least the declared
    /// type's (a signal set's `sigsetsize`, which a program may make
    /// larger than the kernel's set).
    Bytes(u8),
}

/// The pointer arguments that are arrays of the declared type whose
/// count the BPF engine's plan cannot see (it looks for a length right
/// after the pointer), as (call, argument, count): as many elements as
/// their decoders read.
pub const ARRAYS: &[(&str, u8, Count)] = &[
    ("utimensat", 2, Count::Fixed(2)),
    ("utimensat_time64", 2, Count::Fixed(2)),
    ("utimes", 1, Count::Fixed(2)),
    ("futimesat", 2, Count::Fixed(2)),
    ("io_getevents", 3, Count::Result),
    ("io_pgetevents", 3, Count::Result),
    ("io_pgetevents_time64", 3, Count::Result),
    ("move_pages", 2, Count::Arg(1)),
    ("move_pages", 3, Count::Arg(1)),
    ("move_pages", 4, Count::Arg(1)),
    ("kexec_load", 2, Count::Arg(1)),
    // Pointers to iocbs, which the BPF engine follows (`plan.rs`).
    ("io_submit", 2, Count::Arg(1)),
    ("getgroups", 1, Count::Result),
    ("getgroups32", 1, Count::Result),
    ("setgroups", 1, Count::Arg(0)),
    ("setgroups32", 1, Count::Arg(0)),
    // _LINUX_CAPABILITY_VERSION_2 and _3's two `struct
    // __user_cap_data_struct` (version 1's one is the first).
    ("capget", 1, Count::Fixed(2)),
    ("capset", 1, Count::Fixed(2)),
    // The fd sets, `nfds` bits each (its declaration names an fd_set of
    // 1,024: a program may pass more).
    ("select", 1, Count::Bits(0)),
    ("select", 2, Count::Bits(0)),
    ("select", 3, Count::Bits(0)),
    ("_newselect", 1, Count::Bits(0)),
    ("_newselect", 2, Count::Bits(0)),
    ("_newselect", 3, Count::Bits(0)),
    ("pselect6", 1, Count::Bits(0)),
    ("pselect6", 2, Count::Bits(0)),
    ("pselect6", 3, Count::Bits(0)),
    ("pselect6_time64", 1, Count::Bits(0)),
    ("pselect6_time64", 2, Count::Bits(0)),
    ("pselect6_time64", 3, Count::Bits(0)),
    // Signal sets, as many bytes as their `sigsetsize` (`sigset_t` is 8:
    // the decoders read what the size says, as strace does), where it is
    // not the parameter right after the set (ppoll's, rt_sigpending's).
    ("rt_sigprocmask", 1, Count::Bytes(3)),
    ("rt_sigprocmask", 2, Count::Bytes(3)),
    ("rt_sigtimedwait", 0, Count::Bytes(3)),
    ("rt_sigtimedwait_time64", 0, Count::Bytes(3)),
];

/// Pointer arguments the kernel only reads, though its declaration does
/// not say `const`: a decoder prints them with the call's entry, and the
/// kernel writes nothing there, so what is behind them at the exit is
/// what it read (the BPF engine copies them again there when the entry
/// could not).
const READ_ONLY: &[(&str, u8)] = &[
    ("rt_sigprocmask", 1),
    ("rt_sigsuspend", 0),
    ("sigprocmask", 1),
];

/// The string arguments a decoder prints whole, as a path, though their
/// row says `Str`: mq_open's queue name, which strace prints as a path
/// (`Printer::path`) but `-P` must not match, as a `Path` row would make
/// it. The BPF engine copies them as far as a path, not as far as `-s`.
const SHOWN_WHOLE: &[(&str, u8)] = &[("mq_open", 0)];

/// Whether call `name`'s string argument `arg` is printed whole
/// ([`SHOWN_WHOLE`]).
pub fn shown_whole(name: &str, arg: u8) -> bool {
    SHOWN_WHOLE.contains(&(name, arg))
}

/// Whether the kernel only reads what call `name`'s argument `arg`
/// points at, though it is not declared `const` ([`READ_ONLY`]).
pub fn read_only(name: &str, arg: u8) -> bool {
    READ_ONLY.contains(&(name, arg))
}

/// The words an element of an [`ARRAYS`] array is, where rtrace's
/// declarations may lack its call (they are generated from a kernel
/// built without kexec): as many as its decoder reads.
pub fn array_words(name: &str, arg: u8) -> Option<usize> {
    match (name, arg) {
        ("kexec_load", 2) => Some(sysadm::KEXEC_SEGMENT_WORDS),
        _ => None,
    }
}

/// The [`ARRAYS`] count of call `name`'s argument `arg`.
pub fn array_count(name: &str, arg: u8) -> Option<Count> {
    ARRAYS
        .iter()
        .find(|&&(n, a, _)| n == name && a == arg)
        .map(|&(.., count)| count)
}

/// Memory a decoder reads through a pointer inside a struct argument
/// (clone3's pidfd and parent_tid, pselect6's sigmask): the struct is
/// behind argument `arg`, the pointer at byte `offset` in it (its low 32
/// bits for an i386 caller, whose pointers are 32-bit). What the BPF
/// engine copies through it, as the declarations say nothing of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Indirect {
    /// The argument the struct is behind.
    pub arg: u8,
    /// The pointer's offset in the struct.
    pub offset: u16,
    /// What the decoder reads through it (`In` or `Out`).
    pub mem: Mem,
}

/// The [`Indirect`] memory of call `name`.
pub fn indirect(name: &str) -> &'static [Indirect] {
    match name {
        "clone3" => process::CLONE3_INDIRECT,
        "pselect6" | "pselect6_time64" => poll::PSELECT6_INDIRECT,
        "io_pgetevents" | "io_pgetevents_time64" => aio::IO_PGETEVENTS_INDIRECT,
        "setxattrat" => xattr::SETXATTRAT_INDIRECT,
        "getxattrat" => xattr::GETXATTRAT_INDIRECT,
        "io_uring_enter" => uring::IO_URING_ENTER_INDIRECT,
        _ => &[],
    }
}

/// The [`ByValue`] memory of call `name` made by an `arch` caller (the
/// same for both but where a struct's layout differs: ptrace's).
pub fn by_value(arch: Arch, name: &str) -> Vec<ByValue> {
    match name {
        "ptrace" => ptrace::memory(arch),
        "prctl" => prctl::MEMORY.to_vec(),
        "arch_prctl" => process::ARCH_PRCTL_MEMORY.to_vec(),
        "semctl" => ipc::semctl_memory(),
        "kcmp" => ns::KCMP_MEMORY.to_vec(),
        "seccomp" => seccomp::MEMORY.to_vec(),
        "setsockopt" => sockopt::SETSOCKOPT_MEMORY.to_vec(),
        "getsockopt" => sockopt::GETSOCKOPT_MEMORY.to_vec(),
        "fcntl" | "fcntl64" => fs_fd::memory(),
        "keyctl" => keys::memory(),
        "ipc" => ipc::ipc_memory(),
        "io_uring_register" => uring_register::memory(),
        "quotactl" | "quotactl_fd" => quota::memory(name),
        "reboot" => sysadm::REBOOT_MEMORY.to_vec(),
        "fsconfig" => mount_api::fsconfig_memory(),
        "bpf" => ebpf_attr::memory(),
        _ => Vec::new(),
    }
}

/// The bits of call `name`'s choosing argument below its [`ByValue`]
/// values (`value` is the argument shifted right by them): quotactl's
/// command is above its quota type's byte.
pub fn selector_shift(name: &str) -> u8 {
    match name {
        "quotactl" | "quotactl_fd" => quota::SUBCMD_SHIFT as u8,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_handler_names_a_real_call() {
        let mut seen = std::collections::HashSet::new();
        for h in TABLES.iter().flat_map(|t| t.iter()) {
            assert!(seen.insert(h.name), "{} has two handlers", h.name);
            let socketcall_only = net::SOCKETCALLS.iter().any(|&(n, _, _)| n == h.name);
            assert!(
                number(Arch::X86_64, h.name).is_some()
                    || number(Arch::I386, h.name).is_some()
                    || socketcall_only,
                "{}",
                h.name
            );
        }
    }

    #[test]
    fn every_socketcall_has_a_handler_and_a_signature() {
        for &(name, nargs, _) in net::SOCKETCALLS {
            let entry = lookup_name(name);
            assert!(!std::ptr::eq(entry.handler, &GENERIC), "{name}: no handler");
            let sig = entry.sig.unwrap_or_else(|| panic!("{name}: no signature"));
            assert_eq!(sig.params.len(), nargs, "{name}");
        }
    }

    #[test]
    fn every_call_has_a_signature() {
        for arch in [Arch::X86_64, Arch::I386] {
            let table = match arch {
                Arch::I386 => i386_table(),
                _ => x86_64_table(),
            };
            for e in table.iter().flatten() {
                assert!(e.sig.is_some(), "{} has no signature", e.name);
            }
        }
    }

    #[test]
    fn unknown_numbers_get_a_name() {
        assert_eq!(lookup(Arch::X86_64, 9999).0, "syscall_9999");
        assert_eq!(lookup(Arch::X86_64, 0).0, "read");
        assert_eq!(lookup(Arch::I386, 3).0, "read");
        assert_eq!(lookup(Arch::I386, 17).0, "break");
        let last = syscalls::x86_64::Sysno::last();
        assert_eq!(lookup(Arch::X86_64, last.id() as u64).0, last.name());
    }
}
