//! PTRACE_GET_SYSCALL_INFO's answer, `struct ptrace_syscall_info`, as
//! strace 6 shows it: as many fields as the kernel wrote (the smaller of
//! the caller's size and the struct's), the call by its `__NR_` name, the
//! arguments that fit. The layout and names from `abi::xlat::process`.

use crate::abi::layout::{Field, field};
use crate::abi::xlat::process::{
    AUDIT_ARCH_NAMES, PTRACE_SYSCALL_INFO_LAYOUT, PTRACE_SYSCALL_INFO_OPS,
};
use crate::format::{Naming, Printer};
use crate::service::raw::{lookup, read_vec, u64_at};

/// The field `name` of the layout.
fn f(name: &str) -> Field {
    field(PTRACE_SYSCALL_INFO_LAYOUT, name)
}

/// A system call number as `__NR_chdir` for the architecture the info
/// names (an `AUDIT_ARCH_*` value), or the number; also a SIGSYS
/// siginfo's `si_syscall`.
pub fn put_nr(p: &mut Printer, name: &str, arch: u32, nr: u64) {
    let call = match AUDIT_ARCH_NAMES.iter().find(|(v, _)| *v == arch as u64) {
        Some((_, "AUDIT_ARCH_X86_64")) => {
            syscalls::x86_64::Sysno::new(nr as usize).map(|s| s.name())
        }
        Some((_, "AUDIT_ARCH_I386")) => syscalls::x86::Sysno::new(nr as usize).map(|s| s.name()),
        _ => None,
    };
    let text = call.map(|n| format!("__NR_{n}"));
    p.symbol(name, nr as i64, text.as_deref());
}

/// Up to six arguments, as many as `avail` bytes from `at` hold.
fn put_args(p: &mut Printer, b: &[u8], args: Field, avail: usize) {
    let n = avail.saturating_sub(args.off).min(args.size) / 8;
    p.open("args", "[", Naming::Elements);
    for i in 0..n {
        p.hex("", u64_at(b, args.off + i * 8));
    }
    p.close("]");
}

/// The struct the kernel wrote at `addr`: `avail` bytes of it.
pub fn put_syscall_info(p: &mut Printer, name: &str, addr: u64, avail: usize) {
    let full = f("seccomp.ret_data").end();
    let avail = avail.min(full);
    let Some(b) = read_vec(p, addr, avail).filter(|_| avail > 0 && addr != 0) else {
        p.ptr(name, addr);
        return;
    };
    let mut b = b;
    b.resize(full, 0);
    let fits = |fl: Field| fl.end() <= avail;
    p.open(name, "{", Naming::Fields);
    let op = f("op").read(&b).unwrap_or(0);
    p.symbol("op", op as i64, lookup(PTRACE_SYSCALL_INFO_OPS, op as i64));
    let arch = f("arch").read(&b).unwrap_or(0) as u32;
    if fits(f("arch")) {
        let sym = AUDIT_ARCH_NAMES
            .iter()
            .find(|(v, _)| *v == arch as u64)
            .map(|(_, n)| *n);
        p.symbol("arch", arch as i64, sym);
    }
    for fl in ["instruction_pointer", "stack_pointer"] {
        if fits(f(fl)) {
            p.hex(fl, f(fl).read(&b).unwrap_or(0));
        }
    }
    // The union member the op says, when its first field was written.
    match op {
        1 | 3 if fits(f("entry.nr")) => {
            let member = if op == 1 { "entry" } else { "seccomp" };
            p.open(member, "{", Naming::Fields);
            put_nr(
                p,
                "nr",
                arch,
                f(&format!("{member}.nr")).read(&b).unwrap_or(0),
            );
            put_args(p, &b, f(&format!("{member}.args")), avail);
            if op == 3 && fits(f("seccomp.ret_data")) {
                p.uint("ret_data", f("seccomp.ret_data").read(&b).unwrap_or(0));
            }
            p.close("}");
        }
        2 if fits(f("exit.rval")) => {
            p.open("exit", "{", Naming::Fields);
            let rval = f("exit.rval").read(&b).unwrap_or(0) as i64;
            let is_error =
                fits(f("exit.is_error")).then(|| f("exit.is_error").read(&b).unwrap_or(0));
            // A failed call's value as its errno's name: `-ENOENT`.
            let name = match is_error {
                Some(e) if e != 0 && (-4095..0).contains(&rval) => {
                    crate::call::errno_name(-rval).map(|n| format!("-{n}"))
                }
                _ => None,
            };
            p.symbol_decimal("rval", rval, name.as_deref());
            if let Some(e) = is_error {
                p.uint("is_error", e);
            }
            p.close("}");
        }
        _ => {}
    }
    p.close("}");
}
