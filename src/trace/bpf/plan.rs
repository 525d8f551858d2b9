//! What the BPF program copies of each call's memory, made at start-up from
//! what the running kernel and the handlers' signatures say, never typed in
//! per call.
//!
//! The kernel describes every system call's parameters with their C types
//! in its syscall trace events (`events/syscalls/sys_enter_NAME/format` in
//! tracefs: `const char * buf`, `size_t count`, `struct stat * statbuf`),
//! which `abi::SYSCALL_ARGS` holds, generated from them (the ptrace
//! engine cuts registers to the same declarations). From those, the signatures' kinds (a `Path` or `Str` is a string) and
//! the kernel's BTF (the size of `struct stat`), each pointer parameter
//! gets a capture:
//!
//! - a string: up to PATH_MAX for a path, the string limit (`-s`) for
//!   other strings, read at the entry;
//! - `char *`/`void *` with a length after it: the bytes, as many as the
//!   length says (an input, read at the entry) or as the call returned
//!   (an output, read at the exit), up to [`BUF_CAP`] or the string limit;
//! - a pointer to a struct or a number: its size from BTF, times the count
//!   that follows it where one does (`struct pollfd *ufds, unsigned int
//!   nfds`), or the byte length that follows (`struct sockaddr *, int
//!   addrlen`, or a pointer to it); read at the entry when `const`, at the
//!   entry and the exit otherwise;
//! - an fd set: as many whole words as the `nfds` bits fill
//!   (`service::ARRAYS`' `Count::Bits`), not the declared fd_set's 1,024
//!   bits;
//! - argv (and envp with -v) as its strings, envp as its pointers;
//! - ioctl's argument: as many bytes as its request's size bits say, in
//!   the directions they say.
//!
//! What no rule reaches (memory behind pointers inside a struct: an
//! iovec's buffers, a msghdr's name and control data; i386 calls' structs)
//! is not copied, and its decoder prints the pointer. HACKING.md lists the
//! differences this makes.

use crate::format::PATH_MAX;
use crate::kernel::Arch;
use crate::service;
use crate::sysent::{self, Kind};

/// One parameter as the kernel declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// Its C type (`const char *`, `size_t`).
    pub ty: &'static str,
    /// Its name.
    pub name: &'static str,
}

mod i386;
mod tables;
mod whole;
use i386::i386_captures;
pub(in crate::trace::bpf) use i386::subcall_calls;
use tables::{
    array_capture, arrays_in_words, bit_set, copied_struct, indirect_captures, ioctl_capture,
    option_capture, stack_captures,
};

/// The parameters x86_64 call `name` declares, where the kernel gives
/// them (`abi::declared`: the calls `SYSCALL_DEFINE` describes).
fn declared(name: &str) -> Option<Vec<Field>> {
    let params = crate::abi::declared(name)?;
    Some(
        params
            .iter()
            .map(|&(name, ty, _)| Field { ty, name })
            .collect(),
    )
}

/// The declaration i386 call `name`'s arguments follow: its own name's,
/// else that of the function the kernel's syscall_32.tbl says it enters
/// (`clock_gettime64` and `recvmmsg_time64` run `sys_clock_gettime` and
/// `sys_recvmmsg`, whose trace events declare them).
fn i386_declared(name: &str) -> Option<Vec<Field>> {
    declared(name).or_else(|| {
        let entry = crate::abi::gen_i386_entry::I386_ENTRY;
        let &(_, function) = entry.iter().find(|&&(call, _)| call == name)?;
        declared(function)
    })
}

/// `RT_CAP_*` kinds (bpf/rtrace.h).
const CAP_STR: u8 = 1;
const CAP_ARGLEN: u8 = 3;
const CAP_RETLEN: u8 = 4;
const CAP_FIXED: u8 = 2;
const CAP_STRVEC: u8 = 5;
const CAP_PTRVEC: u8 = 6;
const CAP_IOCTL: u8 = 7;
const CAP_LENPTR: u8 = 8;
const CAP_GUESS: u8 = 9;
const CAP_ARGMIN: u8 = 10;
const CAP_IOVEC: u8 = 11;
const CAP_MSGHDR: u8 = 12;
const CAP_MMSGHDR: u8 = 13;
const CAP_STACK: u8 = 14;
const CAP_OPTION: u8 = 15;
const CAP_INDIRECT: u8 = 16;
const CAP_IOCBS: u8 = 17;
const CAP_BITS: u8 = 18;
/// What a pointer to a number gets: the type may be the first of an
/// array (pipe2's `int *fildes`, mincore's `unsigned char *vec`).
const GUESS: u16 = 64;
const AT_ENTER: u8 = 1;
const AT_EXIT: u8 = 2;
/// `RT_I386_BASE`, `RT_SPECS`, `RT_MAX_CAPS`, `RT_CAP_MAX`.
pub const I386_BASE: u32 = 512;
/// Entries of the spec table.
pub const SPECS: u32 = 1152;
/// `RT_SUBCALL_BASE`: the specs of the calls i386's socketcall stands
/// for, by `call`, from here; ipc's from `SUBCALL_BASE + 32`, by `call`
/// (32 more for ipc's versions past 0).
pub const SUBCALL_BASE: u32 = 1024;
/// `Spec::from`'s marks.
const WORD: u8 = 0x10;
const NONE: u8 = 0xff;
const MAX_CAPS: usize = 6;
const CAP_MAX: usize = 8192;

/// The most bytes of a buffer copied when the string limit asks for fewer:
/// what the decoders of structured buffers (netlink messages, usbmon
/// events, user_events writes, directory entries) need to see whole.
pub const BUF_CAP: usize = 4096;

/// The bytes of a buffer `-e read=`/`-e write=` dumps that a record
/// carries (in pieces of a page, `pieces()`): three quarters of what a
/// record holds (`RT_AREA`), the rest left to the call's other captures.
/// A dump of more ends with a line saying how much more moved.
pub const DUMP_CAP: usize = 12288;

/// `struct rt_capture_spec`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CaptureSpec {
    arg: u8,
    kind: u8,
    when: u8,
    len_arg: u8,
    elem: u16,
    max: u16,
}

/// `struct rt_count`: one call number's counts on one CPU.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Count {
    /// Exits.
    pub calls: u64,
    /// Failed ones.
    pub errors: u64,
    /// Nanoseconds from entry to exit, in all.
    pub ns: u64,
}

// SAFETY: plain integers.
unsafe impl aya::Pod for Count {}

/// `RT_SPEC_SOCKETCALL` and `RT_SPEC_IPC`: i386's multiplexers, whose
/// subcall's captures are taken (`SUBCALL_BASE`), from the subcall's
/// arguments.
const SPEC_SOCKETCALL: u8 = 32;
const SPEC_IPC: u8 = 64;

/// `RT_SPEC_FD_DATA`: the call's first argument is an fd, and its data
/// buffers, where that is a plain file's, a pipe's, a fixed device's or
/// a socket's other than netlink's, are copied only as far as they are
/// printed.
const SPEC_FD_DATA: u8 = 1;

/// `RT_SPEC_RET_FD`: the call's result is a new fd, whose file's identity
/// the exit carries when rtrace names fds.
const SPEC_RET_FD: u8 = 2;

/// `RT_SPEC_DIRENTS` and `RT_SPEC_DIRENTS64`: getdents and getdents64,
/// whose exits carry the number of entries returned (a directory's
/// buffer is often longer than its copy).
const SPEC_DIRENTS: u8 = 4;
const SPEC_DIRENTS64: u8 = 8;
/// `RT_SPEC_SIGNALS`: the call sends signals, and may kill its own task.
const SPEC_SIGNALS: u8 = 16;
/// `RT_SPEC_EXEC`: execve or execveat, whose success replaces the memory
/// its entry pointed into (its exit sends the new program's strings).
const SPEC_EXEC: u8 = 128;

/// The calls that send signals: one may kill its own task (a kill -9 of
/// itself), which dies before the call returns to user space; the
/// program asks, at their exit, whether it is dying, as it asks of every
/// failed call.
const SIGNALLING_CALLS: &[&str] = &[
    "kill",
    "tkill",
    "tgkill",
    "rt_sigqueueinfo",
    "rt_tgsigqueueinfo",
    "pidfd_send_signal",
];

/// The flags and fd arguments of call `name` that do not depend on what is
/// selected or copied: which of its arguments are fds (from rtrace's
/// signature), whether its result is a new fd the fd table learns
/// (`service::fs::NEW_FD_CALLS`), whether its data may be shortened,
/// whether it returns directory entries, whether it is an exec.
fn call_flags(spec: &mut Spec, arch: Arch, name: &str) {
    if FD_DATA_CALLS.contains(&name) {
        spec.flags |= SPEC_FD_DATA;
    }
    if service::fs::NEW_FD_CALLS.contains(&name) {
        spec.flags |= SPEC_RET_FD;
    }
    if let Some(arg) = service::fs::new_fd_pair_arg(name) {
        spec.pair_arg = 1 + arg as u8;
    }
    if SIGNALLING_CALLS.contains(&name) {
        spec.flags |= SPEC_SIGNALS;
    }
    if NETLINK_DATA_CALLS.contains(&name) {
        spec.flags2 |= SPEC2_NETLINK;
    }
    match name {
        "getdents" => spec.flags |= SPEC_DIRENTS,
        "getdents64" => spec.flags |= SPEC_DIRENTS64,
        "execve" | "execveat" => spec.flags |= SPEC_EXEC,
        _ => {}
    }
    if let Some(sig) = sysent::signature(arch, name) {
        for (i, p) in sig.params.iter().enumerate().take(6) {
            if matches!(p.kind, Kind::Fd | Kind::DirFd) {
                spec.fd_args |= 1 << i;
            }
        }
    }
}

/// The calls that move data to or from the fd in their first argument and
/// whose buffers are decoded by content only on sockets, devices and
/// tracefs files (netlink messages, usbmon events, user_events writes):
/// on a plain file, a pipe, a fixed device (/dev/null, a terminal) or
/// another socket their bytes are printed, never more than
/// `-s` of them, so the program copies no more (`short_data`).
/// (The vectored calls are not among them: their budget is shared by
/// every iovec, each of which is printed up to `-s`.)
const FD_DATA_CALLS: &[&str] = &["read", "write", "pread64", "pwrite64"];

/// The calls whose data a netlink socket's messages may be, past the
/// 4 KiB a buffer's copy holds (a dump's answer): copied up to
/// `RT_NETLINK_MAX` on a netlink socket (`RT_SPEC2_NETLINK`; the fd is
/// looked at only when the call moved more). sendmsg's iovecs are not
/// among them (their length is known only once read); requests are short.
const NETLINK_DATA_CALLS: &[&str] = &["sendto", "recvfrom", "recvmsg"];

/// `RT_SPEC2_NETLINK`.
const SPEC2_NETLINK: u8 = 1;

/// The bytes of a plain file's data a record carries for string limit
/// `limit` (`short_data`): what `Printer::buf` reads, and one more; 0 (no
/// shortening) where that is no less than any buffer's copy.
pub fn short_data(limit: usize) -> u32 {
    if limit + 1 >= BUF_CAP {
        0
    } else {
        (limit + 1) as u32
    }
}

/// `struct rt_spec`: what to do with one call number.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spec {
    /// Send its events at all.
    pub wanted: u8,
    ncaps: u8,
    /// Selected: counted by the kernel when `-c` is counted there.
    pub counted: u8,
    /// `RT_SPEC_*`.
    flags: u8,
    caps: [CaptureSpec; MAX_CAPS],
    /// The arguments (a bit each) that are fds or directory fds, whose
    /// files' identities the entry carries when rtrace names fds.
    fd_args: u8,
    /// The calls that write two new fds (`service::fs::NEW_FD_PAIRS`):
    /// 1 + the argument pointing at them, whose files' identities the
    /// exit carries when rtrace names fds; 0 for the other calls.
    pair_arg: u8,
    /// A multiplexer's subcall (`SUBCALL_BASE` and up): the argument the
    /// words of `from` are behind, and how many words it reads.
    block: u8,
    words: u8,
    /// A subcall's arguments: the multiplexer's argument N, `WORD | N`
    /// the block's word N, `NONE` nothing.
    from: [u8; 6],
    /// `RT_SPEC2_*`.
    flags2: u8,
    pad: u8,
}

// SAFETY: plain integers with no padding the kernel could misread.
unsafe impl aya::Pod for Spec {}

impl Spec {
    fn push(&mut self, cap: CaptureSpec) {
        if (self.ncaps as usize) < MAX_CAPS {
            self.caps[self.ncaps as usize] = cap;
            self.ncaps += 1;
        }
    }

    /// Copy `args` at the exit only (`service::RESULTS_ONLY`): their
    /// entry copies go, and a capture left with no phase with them.
    fn results_only(&mut self, args: &[u8]) {
        let kept: Vec<CaptureSpec> = self
            .captures()
            .iter()
            .map(|&cap| match args.contains(&cap.arg) {
                true => CaptureSpec {
                    when: cap.when & !AT_ENTER,
                    ..cap
                },
                false => cap,
            })
            .filter(|cap| cap.when != 0)
            .collect();
        self.caps = [CaptureSpec::default(); MAX_CAPS];
        self.ncaps = 0;
        for cap in kept {
            self.push(cap);
        }
    }

    /// The captures, for tests and `--explain`-like output.
    pub fn captures(&self) -> &[CaptureSpec] {
        &self.caps[..self.ncaps as usize]
    }
}

/// The user's choices the captures depend on.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// `-s`.
    pub string_limit: usize,
    /// `-v`: envp's strings too.
    pub verbose: bool,
    /// `-e read=`/`-e write=`: the data of the calls that move it is
    /// dumped whole, so copied up to [`DUMP_CAP`].
    pub dumps: bool,
}

pub(super) fn clamp(n: usize) -> u16 {
    n.min(CAP_MAX - 1) as u16
}

fn is_pointer(ty: &str) -> bool {
    ty.contains('*')
}

/// The pointed-to type of `ty` without its qualifiers (`struct stat`),
/// the pointer's own included (landlock's `const void *const`).
fn pointee(ty: &str) -> String {
    let mut base = ty.trim();
    while let Some(rest) = ["const", "volatile"]
        .iter()
        .find_map(|q| base.strip_suffix(q))
    {
        base = rest.trim_end();
    }
    let base = base.trim_end_matches('*').trim();
    base.split_whitespace()
        .filter(|w| *w != "const" && *w != "volatile" && *w != "__user")
        .collect::<Vec<_>>()
        .join(" ")
}

fn is_bytes(base: &str) -> bool {
    matches!(
        base,
        "char" | "void" | "unsigned char" | "u8" | "__u8" | "signed char"
    )
}

/// Whether integer parameter `name` counts bytes (else elements).
fn counts_bytes(name: &str) -> bool {
    ["len", "size", "byte", "siz"]
        .iter()
        .any(|w| name.contains(w))
        || name == "count"
}

/// Whether integer parameter `name` is a length or count at all.
fn is_length(name: &str) -> bool {
    counts_bytes(name)
        || name.starts_with('n')
        || name.starts_with("max")
        || name.starts_with("vlen")
        || name.ends_with("cnt")
}

/// Whether `base` is a struct or union (else a number, or a typedef of
/// one, which may be an array's first element).
fn is_record(base: &str) -> bool {
    base.starts_with("struct ") || base.starts_with("union ") || base.ends_with("set_t")
}

/// The size of what typedef `ty` points at, where it names a pointer
/// type (`cap_user_data_t`, capset's `const cap_user_data_t`); `None` for
/// anything else (one word besides qualifiers: a base type such as
/// `unsigned int` is none).
fn typedef_pointee_size(ty: &str) -> Option<usize> {
    let words: Vec<&str> = ty
        .split_whitespace()
        .filter(|w| !matches!(*w, "const" | "volatile"))
        .collect();
    let [ty] = words[..] else {
        return None;
    };
    Some(crate::ioctl::btf::typedef_pointee(ty)?.size).filter(|&s| s > 0)
}

/// The size of C type `base` from the kernel's BTF.
fn type_size(base: &str) -> Option<usize> {
    let found = crate::ioctl::btf::describe(base)?;
    Some(found.shape.size).filter(|&s| s > 0)
}

/// The captures for one x86_64 call, from its trace event's fields and
/// its signature.
pub fn captures(name: &str, fields: &[Field], limits: Limits) -> Spec {
    let mut spec = Spec::default();
    let sig = sysent::signature(Arch::X86_64, name);
    let buf_cap = clamp(limits.string_limit.max(BUF_CAP) + 1);
    if name == "ioctl" && fields.len() == 3 {
        spec.push(ioctl_capture(limits));
        return spec;
    }
    for (i, field) in fields.iter().enumerate().take(6) {
        if !is_pointer(field.ty) {
            // A typedef of a pointer (capget's `cap_user_header_t`): the
            // struct it points at, as many as `service::ARRAYS` says.
            if let Some(size) = typedef_pointee_size(field.ty) {
                let arg = i as u8;
                let count = service::array_count(name, arg).unwrap_or(service::Count::Fixed(1));
                spec.push(array_capture(arg, count, size, AT_ENTER | AT_EXIT, buf_cap));
            }
            continue;
        }
        let kind = sig.and_then(|s| s.params.get(i)).map(|p| p.kind);
        let arg = i as u8;
        let input = field.ty.trim_start().starts_with("const") || service::read_only(name, arg);
        if field.ty.matches('*').count() == 2 && field.ty.contains("char") {
            // argv, envp: envp's strings only with -v.
            let strings = field.name != "envp" || limits.verbose;
            // Each string as far as -s shows it, and a byte to tell it
            // goes on (and the copy's NUL).
            spec.push(CaptureSpec {
                arg,
                kind: if strings { CAP_STRVEC } else { CAP_PTRVEC },
                when: AT_ENTER,
                max: clamp(limits.string_limit + 2),
                ..Default::default()
            });
            continue;
        }
        match kind {
            Some(Kind::Path) => {
                spec.push(CaptureSpec {
                    arg,
                    kind: CAP_STR,
                    when: AT_ENTER,
                    max: clamp(PATH_MAX + 2),
                    ..Default::default()
                });
                continue;
            }
            Some(Kind::Str) => {
                spec.push(CaptureSpec {
                    arg,
                    kind: CAP_STR,
                    when: AT_ENTER,
                    max: clamp(string_copy(name, arg, limits)),
                    ..Default::default()
                });
                continue;
            }
            _ => {}
        }
        let base = pointee(field.ty);
        if matches!(name, "getdents" | "getdents64") && i == 1 {
            // The entries the kernel wrote, as many bytes as it returned
            // (nothing is there at the entry); -v lists them one by one,
            // so then up to DUMP_CAP, else as far as the printer reads.
            spec.push(CaptureSpec {
                arg,
                kind: CAP_RETLEN,
                when: AT_EXIT,
                len_arg: 2,
                elem: 1,
                max: if limits.verbose {
                    DUMP_CAP as u16
                } else {
                    buf_cap
                },
            });
            continue;
        }
        // The length that goes with the pointer: the parameter right
        // after it, when named as one (`buf, count`, `addr, addrlen`,
        // `ufds, nfds`), or a pointer to a byte length (`int *addrlen`;
        // a pointer named as a count is an array: get_mempolicy's
        // `nmask`, getcpu's `nodep`).
        // A pointer to a pointer (get_robust_list's `head_ptr`) is one
        // pointer the kernel reads or writes, whatever follows it.
        let to_pointer = field.ty.matches('*').count() >= 2;
        let len = fields
            .get(i + 1)
            .filter(|_| !to_pointer)
            .filter(|f| {
                let name = f.name.to_ascii_lowercase();
                !f.ty.contains("char")
                    && if is_pointer(f.ty) {
                        counts_bytes(&name)
                    } else {
                        is_length(&name)
                    }
            })
            .map(|f| (i + 1, f));
        let when = if input { AT_ENTER } else { AT_ENTER | AT_EXIT };
        // io_submit's `struct iocb **`: the iocbs and what each command
        // reads (a write's buffer as far as shown, a vectored command's
        // iovecs), followed in the kernel, as many as `service::ARRAYS`'
        // argument counts.
        if let ("struct iocb *", Some(service::Count::Arg(j))) =
            (base.as_str(), service::array_count(name, arg))
        {
            spec.push(CaptureSpec {
                arg,
                kind: CAP_IOCBS,
                when: AT_ENTER,
                len_arg: j,
                elem: clamp(limits.string_limit + 1),
                max: buf_cap,
            });
            continue;
        }
        if let Some(count) = service::array_count(name, arg) {
            // An array whose count is not the next parameter: of pointers
            // (move_pages' pages), bytes, or the declared type.
            let elem = if field.ty.matches('*').count() >= 2 {
                Some(8)
            } else if is_bytes(&base) {
                Some(1)
            } else {
                type_size(&base)
            };
            if let Some(elem) = elem {
                spec.push(array_capture(arg, count, elem, when, buf_cap));
                continue;
            }
        }
        if is_bytes(&base) {
            // A buffer -e read=/write= may dump: whole, up to DUMP_CAP.
            let buf_cap = match limits.dumps && crate::call::dumped_buffer(name) == Some(i) {
                true => DUMP_CAP as u16,
                false => buf_cap,
            };
            match len.filter(|(_, f)| !is_pointer(f.ty)) {
                // A declared `const` buffer is an input; any other may be
                // either (sendto's `void *buff` is not declared const):
                // what it held at the entry, and at the exit what the
                // call returned.
                Some((j, _)) => {
                    spec.push(CaptureSpec {
                        arg,
                        kind: CAP_ARGLEN,
                        when: AT_ENTER,
                        len_arg: j as u8,
                        elem: 1,
                        max: buf_cap,
                    });
                    if !input {
                        spec.push(CaptureSpec {
                            arg,
                            kind: CAP_RETLEN,
                            when: AT_EXIT,
                            len_arg: j as u8,
                            elem: 1,
                            max: buf_cap,
                        });
                    }
                }
                None => spec.push(CaptureSpec {
                    arg,
                    kind: CAP_GUESS,
                    when,
                    elem: 1,
                    max: GUESS,
                    ..Default::default()
                }),
            }
            continue;
        }
        // Structs whose pointers the decoders follow: named by the
        // kernel's declaration, followed one level in the kernel.
        let nested = match base.as_str() {
            "struct iovec" => Some(CAP_IOVEC),
            "struct user_msghdr" => Some(CAP_MSGHDR),
            "struct mmsghdr" => Some(CAP_MMSGHDR),
            _ => None,
        };
        if let Some(kind) = nested {
            spec.push(CaptureSpec {
                arg,
                kind,
                when: AT_ENTER | AT_EXIT,
                len_arg: len.map_or(0, |(j, _)| j as u8),
                elem: 0,
                max: buf_cap,
            });
            continue;
        }
        // (A pointer's pointee that is itself a pointer: one word.)
        let Some(size) = type_size(&base).or_else(|| to_pointer.then_some(8)) else {
            continue;
        };
        if len.is_none() && !is_record(&base) {
            spec.push(CaptureSpec {
                arg,
                kind: CAP_GUESS,
                when,
                elem: size.min(GUESS as usize) as u16,
                max: GUESS.max(size as u16),
                ..Default::default()
            });
            continue;
        }
        let cap = match len {
            Some((j, lf)) if is_pointer(lf.ty) => CaptureSpec {
                arg,
                kind: CAP_LENPTR,
                when,
                len_arg: j as u8,
                elem: 1,
                max: clamp(size.max(128)),
            },
            // A byte length: the struct's own size at least, since the
            // length may be another parameter's (rt_sigaction's `oact,
            // sigsetsize`).
            Some((j, lf)) if counts_bytes(&lf.name.to_ascii_lowercase()) => CaptureSpec {
                arg,
                kind: CAP_ARGMIN,
                when,
                len_arg: j as u8,
                elem: size.min(CAP_MAX - 1) as u16,
                max: clamp(size.max(BUF_CAP)),
            },
            Some((j, _)) => CaptureSpec {
                arg,
                kind: CAP_ARGLEN,
                when,
                len_arg: j as u8,
                elem: size.min(u16::MAX as usize) as u16,
                max: clamp(BUF_CAP.max(size)),
            },
            None => CaptureSpec {
                arg,
                kind: CAP_FIXED,
                when,
                max: clamp(size),
                ..Default::default()
            },
        };
        spec.push(cap);
    }
    spec
}

/// The bytes copied of call `name`'s `Str` argument `arg`: as far as `-s`
/// shows it, a byte to tell it goes on and the copy's NUL; as far as a
/// path where its decoder prints it whole (`service::shown_whole`).
fn string_copy(name: &str, arg: u8, limits: Limits) -> usize {
    if service::shown_whole(name, arg) {
        PATH_MAX + 2
    } else {
        limits.string_limit + 2
    }
}

/// The captures a call's signature alone gives: its strings and ioctl's
/// argument. What i386 calls get (their structs have i386 layouts the
/// trace events do not describe), and x86_64 calls the kernel defines
/// without trace-event metadata.
fn strings_only(arch: Arch, name: &str, limits: Limits) -> Spec {
    let mut spec = Spec::default();
    if name == "ioctl" {
        spec.push(ioctl_capture(limits));
        return spec;
    }
    let Some(sig) = sysent::signature(arch, name) else {
        return spec;
    };
    for (i, p) in sig.params.iter().enumerate().take(6) {
        let max = match p.kind {
            Kind::Path => PATH_MAX + 2,
            Kind::Str => string_copy(name, i as u8, limits),
            _ => continue,
        };
        spec.push(CaptureSpec {
            arg: i as u8,
            kind: CAP_STR,
            when: AT_ENTER,
            max: clamp(max),
            ..Default::default()
        });
    }
    spec
}

/// The whole table: index `nr` for x86_64, `I386_BASE + nr` for i386.
/// `wanted` says which call names send events at all, `counted` which
/// `-c` counts in the kernel, `captured` which carry their memory (the
/// calls whose records are sent: no other needs its types looked up).
pub fn table(
    limits: Limits,
    wanted: &dyn Fn(&str) -> bool,
    counted: &dyn Fn(&str) -> bool,
    captured: &dyn Fn(&str) -> bool,
) -> Vec<(u32, Spec)> {
    let mut out = Vec::new();
    for (nr, name) in service::all_calls(Arch::X86_64) {
        if nr >= I386_BASE as u64 {
            continue;
        }
        let mut spec = Spec::default();
        if captured(name) {
            spec = match declared(name) {
                Some(f) => captures(name, &f, limits),
                None => {
                    let mut spec = strings_only(Arch::X86_64, name, limits);
                    arrays_in_words(&mut spec, name, limits);
                    spec
                }
            };
            stack_captures(&mut spec, Arch::X86_64, name);
            option_capture(&mut spec, Arch::X86_64, name, limits);
            indirect_captures(&mut spec, name, limits);
            copied_struct(&mut spec, Arch::X86_64, name);
        }
        spec.results_only(service::results_only(name));
        spec.wanted = wanted(name) as u8;
        spec.counted = counted(name) as u8;
        call_flags(&mut spec, Arch::X86_64, name);
        whole::mark(&mut spec, name);
        out.push((nr as u32, spec));
    }
    for (nr, name) in service::all_calls(Arch::I386) {
        if nr >= I386_BASE as u64 {
            continue;
        }
        let mut spec = Spec::default();
        if captured(name) {
            spec = i386_captures(name, i386_declared(name).as_deref(), limits);
            stack_captures(&mut spec, Arch::I386, name);
            option_capture(&mut spec, Arch::I386, name, limits);
            indirect_captures(&mut spec, name, limits);
        }
        spec.results_only(service::results_only(name));
        spec.wanted = wanted(name) as u8;
        spec.counted = counted(name) as u8;
        call_flags(&mut spec, Arch::I386, name);
        if captured(name) {
            match name {
                "socketcall" => spec.flags |= SPEC_SOCKETCALL,
                "ipc" => spec.flags |= SPEC_IPC,
                _ => {}
            }
        }
        whole::mark(&mut spec, name);
        out.push((I386_BASE + nr as u32, spec));
    }
    let subcalls = i386::subcalls(&out, captured);
    out.extend(subcalls);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// read's parameters as the kernel declares them.
    fn read() -> Vec<Field> {
        declared("read").expect("read is declared")
    }

    #[test]
    fn only_an_i386_call_that_runs_its_declared_function_natively_reads_x86_64s_layout() {
        use i386::runs_declared_function as native;
        // Enters sys_clock_adjtime, which x86_64's clock_adjtime declares.
        assert!(native("clock_adjtime64"));
        assert!(native("getdents64"));
        // Declared by x86_64's calls of their names, but they enter the
        // 32-bit functions (sys_adjtimex_time32, sys_clock_adjtime32).
        assert!(!native("adjtimex"));
        assert!(!native("clock_adjtime"));
        // Compat entry points.
        assert!(!native("sysinfo"));
        assert!(!native("rt_sigaction"));
    }

    #[test]
    fn the_spec_has_the_c_size() {
        // sizeof(struct rt_spec) in bpf/rtrace.h.
        assert_eq!(std::mem::size_of::<Spec>(), 64);
    }

    #[test]
    fn socketcalls_and_ipc_calls_take_their_calls_captures_from_where_their_arguments_are() {
        let all = table(limits(), &|_| true, &|_| true, &|_| true);
        let at = |index: u32| all.iter().find(|(i, _)| *i == index).map(|(_, s)| *s);
        let i386 = |name| at(I386_BASE + service::number(Arch::I386, name).unwrap() as u32);
        // socketcall(SYS_SENDTO = 11, args): sendto's, from args' six words.
        let sendto = at(SUBCALL_BASE + 11).expect("SYS_SENDTO");
        assert_eq!(sendto.captures(), i386("sendto").unwrap().captures());
        assert_eq!((sendto.block, sendto.words), (1, 6));
        assert_eq!(
            sendto.from,
            [WORD, WORD | 1, WORD | 2, WORD | 3, WORD | 4, WORD | 5]
        );
        // socketcall(SYS_SEND = 9): sendto's, from four words.
        let send = at(SUBCALL_BASE + 9).expect("SYS_SEND");
        assert_eq!(send.words, 4);
        assert_eq!(send.from[4..], [NONE, NONE]);
        // ipc(MSGRCV = 12) version 0: msgp and msgtyp from the kludge
        // behind ptr; a later version has them in ptr and fifth.
        let kludge = at(SUBCALL_BASE + 32 + 12).expect("MSGRCV");
        assert_eq!((kludge.block, kludge.words), (4, 2));
        assert_eq!(kludge.from, [1, WORD, 2, WORD | 1, 3, NONE]);
        let direct = at(SUBCALL_BASE + 64 + 12).expect("MSGRCV version 1");
        assert_eq!((direct.words, direct.from), (0, [1, 4, 2, 5, 3, NONE]));
        // SHMAT keeps ipc's own capture (its address behind `third`).
        assert!(at(SUBCALL_BASE + 32 + 21).is_none());
        let ipc = i386("ipc").unwrap();
        assert_eq!(ipc.flags & SPEC_IPC, SPEC_IPC);
        assert_eq!(
            i386("socketcall").unwrap().flags & SPEC_SOCKETCALL,
            SPEC_SOCKETCALL
        );
    }

    #[test]
    fn fds_are_marked_by_position_and_new_fds_by_call() {
        let mut spec = Spec::default();
        call_flags(&mut spec, Arch::X86_64, "openat");
        // openat(dfd, filename, flags, mode): its first argument.
        assert_eq!(spec.fd_args, 1);
        assert_eq!(spec.flags & SPEC_RET_FD, SPEC_RET_FD);
        let mut spec = Spec::default();
        call_flags(&mut spec, Arch::X86_64, "renameat");
        assert_eq!(spec.fd_args, 0b101);
        assert_eq!(spec.flags & SPEC_RET_FD, 0);
    }

    fn limits() -> Limits {
        Limits {
            string_limit: 32,
            verbose: false,
            dumps: false,
        }
    }

    #[test]
    fn a_call_not_sent_copies_nothing_and_the_others_copy_the_same() {
        let all = table(limits(), &|_| true, &|_| true, &|_| true);
        let few = ["ioctl", "openat", "read", "execve"];
        let wanted = |n: &str| few.contains(&n);
        let some = table(limits(), &wanted, &|_| false, &wanted);
        // The subcalls of socketcall and ipc only when those are sent.
        let calls = |t: &[(u32, Spec)]| t.iter().filter(|(i, _)| *i < SUBCALL_BASE).count();
        assert_eq!(calls(&some), some.len());
        assert!(calls(&all) < all.len());
        assert_eq!(calls(&all), calls(&some));
        let mut compared = 0;
        for ((index, a), (same, b)) in all.iter().zip(&some) {
            assert_eq!(index, same);
            if b.wanted == 1 {
                // Only what is sent differs: wanted and counted.
                assert_eq!(a.captures(), b.captures(), "call {index}");
                assert_eq!(b.counted, 0);
                compared += 1;
            } else {
                assert!(b.captures().is_empty(), "call {index}");
            }
        }
        // The four on x86_64, and those of them i386 has.
        assert!(compared >= 7, "{compared} calls compared");
        let read = all.iter().find(|(i, _)| *i == 0).map(|(_, s)| s);
        // Its buffer, at its exit only (`service::RESULTS_ONLY`).
        assert_eq!(read.map(|s| s.captures().len()), Some(1), "read's buffer");
    }

    #[test]
    fn calls_the_kernel_names_by_their_entry_points_are_declared() {
        // The trace events are `sys_enter_newfstat`, `sys_enter_newuname`,
        // `sys_enter_sendfile64`: the table's names find them.
        let names = |call: &str| -> Vec<(&str, &str)> {
            declared(call)
                .unwrap_or_default()
                .iter()
                .map(|f| (f.ty, f.name))
                .collect()
        };
        assert_eq!(
            names("read"),
            [
                ("unsigned int", "fd"),
                ("char *", "buf"),
                ("size_t", "count")
            ]
        );
        assert_eq!(names("uname"), [("struct new_utsname *", "name")]);
        assert_eq!(
            names("fstat"),
            [("unsigned int", "fd"), ("struct stat *", "statbuf")]
        );
        assert_eq!(names("sendfile").len(), 4);
    }

    #[test]
    fn read_copies_what_it_returned_at_its_exit() {
        // read's buffer is not declared const: it might be an input too
        // (sendto's is not declared const either), so from the declaration
        // alone the entry's bytes are copied as well (the table then
        // keeps the exit's only: `a_result_is_copied_at_the_exit_only`).
        let spec = captures("read", &read(), limits());
        assert_eq!(
            spec.captures(),
            [
                CaptureSpec {
                    arg: 1,
                    kind: CAP_ARGLEN,
                    when: AT_ENTER,
                    len_arg: 2,
                    elem: 1,
                    max: (BUF_CAP + 1) as u16,
                },
                CaptureSpec {
                    arg: 1,
                    kind: CAP_RETLEN,
                    when: AT_EXIT,
                    len_arg: 2,
                    elem: 1,
                    max: (BUF_CAP + 1) as u16,
                }
            ]
        );
    }

    #[test]
    fn a_by_value_capture_carries_its_selectors_shift() {
        let option = |name: &str| {
            let mut spec = Spec::default();
            option_capture(&mut spec, Arch::X86_64, name, limits());
            spec.captures()
                .iter()
                .map(|c| (c.kind, c.len_arg, c.elem))
                .collect::<Vec<_>>()
        };
        // quotactl_fd's command is its second argument, above a byte.
        assert_eq!(option("quotactl_fd"), [(CAP_OPTION, 1, 8)]);
        assert_eq!(option("prctl"), [(CAP_OPTION, 0, 0)]);
    }

    #[test]
    fn select_sets_are_as_many_words_as_nfds_bits_fill() {
        // Each set, read at the entry and written at the exit, as many
        // bits as nfds (argument 0) says in the caller's words: not the
        // 1,024 bits of the fd_set its declaration names.
        let sets = |spec: &Spec| -> Vec<(u8, u8, u8, u8, u16)> {
            spec.captures()
                .iter()
                .filter(|c| c.kind == CAP_BITS)
                .map(|c| (c.arg, c.kind, c.when, c.len_arg, c.elem))
                .collect()
        };
        let each = |word| -> Vec<(u8, u8, u8, u8, u16)> {
            (1..4)
                .map(|arg| (arg, CAP_BITS, AT_ENTER | AT_EXIT, 0, word))
                .collect()
        };
        for name in ["select", "pselect6"] {
            let fields = declared(name).expect("declared");
            assert_eq!(sets(&captures(name, &fields, limits())), each(8), "{name}");
        }
        for name in ["_newselect", "pselect6"] {
            let spec = i386_captures(name, declared(name).as_deref(), limits());
            assert_eq!(sets(&spec), each(4), "i386 {name}");
        }
        // i386's old select takes one pointer to its five arguments.
        let old = i386_captures("select", declared("select").as_deref(), limits());
        assert!(sets(&old).is_empty());
    }

    #[test]
    fn a_result_is_copied_at_the_exit_only() {
        // read's buffer: what the kernel wrote, not what it held before.
        let mut spec = captures("read", &read(), limits());
        spec.results_only(service::results_only("read"));
        let kept: Vec<(u8, u8, u8)> = spec
            .captures()
            .iter()
            .map(|c| (c.arg, c.kind, c.when))
            .collect();
        assert_eq!(kept, [(1, CAP_RETLEN, AT_EXIT)]);
        // A call not listed keeps both copies.
        let mut spec = captures("read", &read(), limits());
        spec.results_only(service::results_only("sendto"));
        assert_eq!(spec.captures().len(), 2);
    }

    #[test]
    fn io_submits_iocbs_are_followed_as_many_as_nr_says() {
        let fields = [
            Field {
                ty: "aio_context_t",
                name: "ctx_id",
            },
            Field {
                ty: "long",
                name: "nr",
            },
            Field {
                ty: "struct iocb * *",
                name: "iocbpp",
            },
        ];
        let spec = captures("io_submit", &fields, limits());
        assert_eq!(
            spec.captures(),
            [CaptureSpec {
                arg: 2,
                kind: CAP_IOCBS,
                when: AT_ENTER,
                len_arg: 1,
                elem: 33,
                max: (BUF_CAP + 1) as u16,
            }]
        );
    }

    #[test]
    fn kexec_loads_segments_are_copied_without_a_declaration() {
        let mut spec = strings_only(Arch::X86_64, "kexec_load", limits());
        arrays_in_words(&mut spec, "kexec_load", limits());
        let kept: Vec<(u8, u8, u8, u16)> = spec
            .captures()
            .iter()
            .map(|c| (c.arg, c.kind, c.len_arg, c.elem))
            .collect();
        assert_eq!(kept, [(2, CAP_ARGLEN, 1, 32)]);
    }

    #[test]
    fn every_result_only_call_is_a_call() {
        for (name, args) in service::RESULTS_ONLY {
            let arch = [Arch::X86_64, Arch::I386]
                .into_iter()
                .find(|&arch| service::number(arch, name).is_some())
                .unwrap_or_else(|| panic!("{name} is no call"));
            let params = sysent::signature(arch, name).map_or(0, |s| s.params.len());
            for &arg in *args {
                assert!((arg as usize) < params, "{name} has no argument {arg}");
            }
        }
    }

    #[test]
    fn a_const_pointer_points_at_its_type() {
        assert_eq!(
            pointee("const struct landlock_ruleset_attr *const"),
            "struct landlock_ruleset_attr"
        );
        assert_eq!(pointee("const void *const"), "void");
        assert_eq!(pointee("struct stat *"), "struct stat");
        let spec = captures(
            "landlock_create_ruleset",
            &declared("landlock_create_ruleset").unwrap(),
            limits(),
        );
        assert_eq!(spec.captures()[0].kind, CAP_ARGMIN);
    }

    #[test]
    fn a_pointer_named_as_a_count_is_no_length() {
        // get_mempolicy(int *policy, unsigned long *nmask, ...): the
        // policy is one int, not as many bytes as the mask's first word.
        let spec = captures(
            "get_mempolicy",
            &declared("get_mempolicy").unwrap(),
            limits(),
        );
        let policy: Vec<u8> = spec
            .captures()
            .iter()
            .filter(|c| c.arg == 0)
            .map(|c| c.kind)
            .collect();
        assert_eq!(policy, [CAP_GUESS]);
        // accept's `int *upeer_addrlen` is one.
        let spec = captures("accept", &declared("accept").unwrap(), limits());
        assert_eq!(spec.captures()[0].kind, CAP_LENPTR);
        // get_robust_list's `struct robust_list_head **head_ptr` is one
        // pointer, whatever `len_ptr` after it says; it had no capture.
        let spec = captures(
            "get_robust_list",
            &declared("get_robust_list").unwrap(),
            limits(),
        );
        let head = spec
            .captures()
            .iter()
            .find(|c| c.arg == 1)
            .map(|c| (c.kind, c.max));
        assert_eq!(head, Some((CAP_FIXED, 8)));
    }

    #[test]
    fn write_and_paths_are_copied_at_the_entry() {
        let field = |ty: &'static str, name: &'static str| Field { ty, name };
        let write = [
            field("unsigned int", "fd"),
            field("const char *", "buf"),
            field("size_t", "count"),
        ];
        let spec = captures("write", &write, limits());
        assert_eq!(spec.captures()[0].kind, CAP_ARGLEN);
        assert_eq!(spec.captures()[0].when, AT_ENTER);
        let openat = [
            field("int", "dfd"),
            field("const char *", "filename"),
            field("int", "flags"),
            field("umode_t", "mode"),
        ];
        let spec = captures("openat", &openat, limits());
        assert_eq!(spec.captures()[0].kind, CAP_STR);
        assert_eq!(spec.captures()[0].arg, 1);
        let execve = [
            field("const char *", "filename"),
            field("const char *const *", "argv"),
            field("const char *const *", "envp"),
        ];
        let kinds: Vec<u8> = captures("execve", &execve, limits())
            .captures()
            .iter()
            .map(|c| c.kind)
            .collect();
        assert_eq!(kinds, [CAP_STR, CAP_STRVEC, CAP_PTRVEC]);
    }
}
