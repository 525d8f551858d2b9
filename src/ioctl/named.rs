//! Names for the numbers inside the arguments of requests no hand-written
//! group decodes.
//!
//! The kernel's BTF gives a struct's layout (`ioctl/btf/`), but a uapi
//! header spells most flag words and enumerations as `#define`s, which BTF
//! does not keep: `struct fsxattr.fsx_xflags` is a `__u32`. These two
//! declarative tables say which name table (generated from the headers,
//! `src/abi/xlat/ioctl.rs`) a number takes, so the BTF printer and the
//! fallback print `fsx_xflags=FS_XFLAG_APPEND|FS_XFLAG_NODUMP`, as strace
//! does, wherever the struct is decoded:
//!
//! - [`FIELDS`]: a struct member (`struct fsxattr`, `fsx_xflags`);
//! - [`ARGS`]: a request's argument, whether passed by value
//!   (`ioctl(-1, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP)`, an fd with
//!   `-y`'s path, an `int` at the kernel's 32 bits) or as the one integer
//!   its pointer points to (`ioctl(3, FS_IOC_SETFLAGS, [FS_NODUMP_FL])`).
//!
//! Every name goes through the Printer's one constant printer (`-X raw`,
//! `-X verbose`, `-V`, JSON).

use crate::abi::xlat::ioctl::{
    AUDIT_ARCHES, FS_FLAGS, FS_XFLAGS, KVM_CAPS, KVM_CPUID_FLAGS, NBD_FLAGS, OPEN_MODE_FLAGS,
    PERF_IOC_FLAGS, SECCOMP_ADDFD_FLAGS, SECCOMP_USER_NOTIF_FLAGS, UFFD_IOCTLS,
    UFFDIO_CONTINUE_MODES, UFFDIO_COPY_MODES, UFFDIO_REGISTER_MODES, UFFDIO_WRITEPROTECT_MODES,
    UFFDIO_ZEROPAGE_MODES,
};
use crate::format::{FlagDef, Printer};

/// How a number is named.
#[derive(Debug)]
pub enum Naming {
    /// A flag set (`FS_XFLAG_APPEND|0x40000`, `1<<_UFFDIO_WAKE`); by value,
    /// the low 32 bits (the kernels' flag words are `int`s).
    Flags(&'static [FlagDef]),
    /// One of a set of values (`AUDIT_ARCH_X86_64`, `KVM_CAP_USER_MEMORY`).
    Values(&'static [(u64, &'static str)]),
    /// A signed `int`: by value, the register's low 32 bits.
    Int,
    /// An `unsigned long` by value, in decimal.
    Ulong,
    /// A file descriptor (by value: the low 32 bits, with `-y`'s path).
    Fd,
    /// A negated errno, `-ENOSR` (seccomp's answer to a notification).
    NegErrno,
    /// A system call number, `__NR_gettid`, of the ABI the struct's member
    /// of this name gives as an `AUDIT_ARCH_*` value (`struct
    /// seccomp_data.arch`).
    SyscallNr(&'static str),
}

/// Struct members whose numbers have names: (the struct as BTF names it,
/// the member, its naming). The header each table comes from is in
/// `tools/abi_tables.py`.
pub static FIELDS: &[(&str, &str, Naming)] = &[
    ("struct fsxattr", "fsx_xflags", Naming::Flags(FS_XFLAGS)),
    // KVM's CPUID entries (`<asm/kvm.h>`): KVM_GET_SUPPORTED_CPUID's answer,
    // KVM_SET_CPUID2's table.
    (
        "struct kvm_cpuid_entry2",
        "flags",
        Naming::Flags(KVM_CPUID_FLAGS),
    ),
    // userfaultfd (`<linux/userfaultfd.h>`): the modes, and the requests a
    // registered range takes, bit n for request number n.
    (
        "struct uffdio_register",
        "mode",
        Naming::Flags(UFFDIO_REGISTER_MODES),
    ),
    (
        "struct uffdio_register",
        "ioctls",
        Naming::Flags(UFFD_IOCTLS),
    ),
    (
        "struct uffdio_copy",
        "mode",
        Naming::Flags(UFFDIO_COPY_MODES),
    ),
    (
        "struct uffdio_zeropage",
        "mode",
        Naming::Flags(UFFDIO_ZEROPAGE_MODES),
    ),
    (
        "struct uffdio_writeprotect",
        "mode",
        Naming::Flags(UFFDIO_WRITEPROTECT_MODES),
    ),
    (
        "struct uffdio_continue",
        "mode",
        Naming::Flags(UFFDIO_CONTINUE_MODES),
    ),
    // seccomp's user notifications (`<linux/seccomp.h>`, `<linux/audit.h>`).
    ("struct seccomp_data", "nr", Naming::SyscallNr("arch")),
    ("struct seccomp_data", "arch", Naming::Values(AUDIT_ARCHES)),
    ("struct seccomp_notif_resp", "error", Naming::NegErrno),
    (
        "struct seccomp_notif_resp",
        "flags",
        Naming::Flags(SECCOMP_USER_NOTIF_FLAGS),
    ),
    (
        "struct seccomp_notif_addfd",
        "flags",
        Naming::Flags(SECCOMP_ADDFD_FLAGS),
    ),
    (
        "struct seccomp_notif_addfd",
        "newfd_flags",
        Naming::Flags(OPEN_MODE_FLAGS),
    ),
];

/// Requests whose argument has names, by every name the headers give the
/// code (the `FS_IOC32_*` forms are i386's codes of the plain ones).
pub static ARGS: &[(&str, Naming)] = &[
    // `int *`: the inode's flags.
    ("FS_IOC_GETFLAGS", Naming::Flags(FS_FLAGS)),
    ("FS_IOC_SETFLAGS", Naming::Flags(FS_FLAGS)),
    ("FS_IOC32_GETFLAGS", Naming::Flags(FS_FLAGS)),
    ("FS_IOC32_SETFLAGS", Naming::Flags(FS_FLAGS)),
    // By value (drivers/block/loop.c lo_ioctl(), loop_control_ioctl()).
    ("LOOP_SET_FD", Naming::Fd),
    ("LOOP_CHANGE_FD", Naming::Fd),
    ("LOOP_CTL_ADD", Naming::Int),
    ("LOOP_CTL_REMOVE", Naming::Int),
    // fs/notify/inotify/inotify_user.c: the next watch descriptor, all of
    // the `unsigned long` compared with INT_MAX.
    ("INOTIFY_IOC_SETNEXTWD", Naming::Ulong),
    // kernel/events/core.c _perf_ioctl().
    ("PERF_EVENT_IOC_ENABLE", Naming::Flags(PERF_IOC_FLAGS)),
    ("PERF_EVENT_IOC_DISABLE", Naming::Flags(PERF_IOC_FLAGS)),
    ("PERF_EVENT_IOC_RESET", Naming::Flags(PERF_IOC_FLAGS)),
    ("PERF_EVENT_IOC_REFRESH", Naming::Int),
    ("PERF_EVENT_IOC_SET_OUTPUT", Naming::Fd),
    ("PERF_EVENT_IOC_SET_BPF", Naming::Fd),
    // drivers/block/nbd.c __nbd_ioctl().
    ("NBD_SET_SOCK", Naming::Fd),
    ("NBD_SET_FLAGS", Naming::Flags(NBD_FLAGS)),
    // virt/kvm/kvm_main.c kvm_dev_ioctl(), kvm_vm_ioctl().
    ("KVM_CHECK_EXTENSION", Naming::Values(KVM_CAPS)),
    ("KVM_CREATE_VM", Naming::Ulong),
    ("KVM_CREATE_VCPU", Naming::Int),
];

/// The naming of member `member` of `owner` (`struct fsxattr`).
pub fn field(owner: &str, member: &str) -> Option<&'static Naming> {
    FIELDS
        .iter()
        .find(|(o, m, _)| *o == owner && *m == member)
        .map(|(_, _, n)| n)
}

/// The naming of the argument of a request the headers call `names` (every
/// name its code has on the fd): only when every one of them has the same.
pub fn argument<'a>(mut names: impl Iterator<Item = &'a str>) -> Option<&'static Naming> {
    let of = |name: &str| ARGS.iter().find(|(n, _)| *n == name).map(|(_, n)| n);
    let first = of(names.next()?)?;
    names
        .all(|n| of(n).is_some_and(|o| same(o, first)))
        .then_some(first)
}

/// Two namings that print alike (FS_IOC_GETFLAGS and FS_IOC32_GETFLAGS),
/// by their tables' contents: a `const` table has no one address.
fn same(a: &Naming, b: &Naming) -> bool {
    match (a, b) {
        (Naming::Flags(x), Naming::Flags(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|(f, g)| (f.mask, f.value, f.name) == (g.mask, g.value, g.name))
        }
        (Naming::Values(x), Naming::Values(y)) => x == y,
        (Naming::SyscallNr(x), Naming::SyscallNr(y)) => x == y,
        _ => std::mem::discriminant(a) == std::mem::discriminant(b),
    }
}

/// Print `raw`, a number of `size` bytes (`signed` in its C type), as
/// `name` by `naming`. An fd prints as its number here (a struct member):
/// by value the dispatcher prints it with its path.
pub fn put(p: &mut Printer, name: &str, naming: &Naming, raw: u64, size: usize, signed: bool) {
    let value = if signed || matches!(naming, Naming::Int | Naming::Fd | Naming::NegErrno) {
        sign_extend(raw, size)
    } else {
        raw as i64
    };
    match naming {
        Naming::Flags(table) => p.flags(name, raw, table),
        Naming::Values(table) => {
            let sym = table.iter().find(|(v, _)| *v == raw).map(|(_, n)| *n);
            p.symbol(name, value, sym);
        }
        Naming::Int | Naming::Fd | Naming::SyscallNr(_) => p.int(name, value),
        Naming::Ulong => p.uint(name, raw),
        Naming::NegErrno => {
            let sym = (value < 0)
                .then(|| crate::call::errno_name(-value))
                .flatten()
                .map(|e| format!("-{e}"));
            p.symbol_decimal(name, value, sym.as_deref());
        }
    }
}

/// Print `nr`, a system call number of the ABI `arch` (an `AUDIT_ARCH_*`
/// value) names: `__NR_gettid`, as strace spells it; the number where the
/// ABI is not one rtrace knows (or x32's).
pub fn put_syscall(p: &mut Printer, name: &str, nr: i32, arch: u64) {
    let abi = AUDIT_ARCHES
        .iter()
        .find(|(v, _)| *v == arch)
        .map(|(_, n)| *n);
    let call = usize::try_from(nr).ok().and_then(|n| match abi {
        Some("AUDIT_ARCH_X86_64") => syscalls::x86_64::Sysno::new(n).map(|s| s.name()),
        Some("AUDIT_ARCH_I386") => syscalls::x86::Sysno::new(n).map(|s| s.name()),
        _ => None,
    });
    let sym = call.map(|c| format!("__NR_{}", c.strip_prefix("r#").unwrap_or(c)));
    p.symbol_decimal(name, nr as i64, sym.as_deref());
}

/// Print an argument passed by value, `arg`, by `naming`, at the width the
/// kernel reads it: flag words and ints are the low 32 bits. Fds are the
/// dispatcher's (they need the fd table).
pub fn put_value(p: &mut Printer, naming: &Naming, arg: u64) {
    match naming {
        Naming::Ulong => p.uint("arg", arg),
        Naming::Values(_) => put(p, "arg", naming, arg, 8, false),
        _ => put(p, "arg", naming, arg & 0xffff_ffff, 4, false),
    }
}

fn sign_extend(raw: u64, size: usize) -> i64 {
    match size {
        1 => raw as u8 as i8 as i64,
        2 => raw as u16 as i16 as i64,
        4 => raw as u32 as i32 as i64,
        _ => raw as i64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_request_is_in_the_headers() {
        use crate::ioctl::names;
        use crate::kernel::Arch;
        for (name, _) in ARGS {
            let known = names::table(Arch::X86_64).by_name(name).is_some()
                || names::table(Arch::I386).by_name(name).is_some();
            assert!(known, "{name} is no request the headers define");
        }
    }

    #[test]
    fn a_code_with_two_names_of_one_naming_is_named() {
        let n = argument(["FS_IOC32_GETFLAGS", "FS_IOC_GETFLAGS"].into_iter());
        assert!(n.is_some_and(|n| same(n, &Naming::Flags(FS_FLAGS))));
        assert!(!same(&Naming::Flags(FS_FLAGS), &Naming::Flags(FS_XFLAGS)));
        assert!(argument(["FS_IOC_GETFLAGS", "TCGETS"].into_iter()).is_none());
        assert!(argument(std::iter::empty()).is_none());
    }
}
