//! seccomp's user-notification ioctls (`<linux/seccomp.h>`), made on the
//! listener fd SECCOMP_FILTER_FLAG_NEW_LISTENER returns, printed as strace
//! 6 prints them: ids, flags and a call's arguments in hex, the call's
//! number named by the ABI its `arch` gives (`nr=__NR_gettid,
//! arch=AUDIT_ARCH_X86_64`), the answer's error as `-ENOSR`, ADDFD's
//! source fd with `-y`'s path. ID_VALID's first code, `_IOR` by mistake
//! (kernel/seccomp.c still takes it as SECCOMP_IOCTL_NOTIF_ID_VALID_WRONG_DIR),
//! is named and decoded as the right one.
//!
//! ```text
//! ioctl(4, SECCOMP_IOCTL_NOTIF_RECV, {id=0, ..}) = 0 {id=0x1f, pid=42, flags=0,
//!     data={nr=__NR_getpid, arch=AUDIT_ARCH_X86_64, instruction_pointer=&0x401000,
//!     args=[0, 0, 0, 0, 0, 0]}}
//! ioctl(4, SECCOMP_IOCTL_NOTIF_ID_VALID, [0x1f]) = 0
//! ```

use super::named::put_syscall;
use super::raw::{i32_at, i64_at, u32_at, u64_at};
use super::{Arg, IF_FAILED_PTR, IF_IN, IF_OUT, IoctlGroup, Layout, Request, typed};
use crate::abi::layout::Field;
use crate::abi::xlat::ioctl::{
    AUDIT_ARCHES, OPEN_MODE_FLAGS, SECCOMP_ADDFD_FLAGS, SECCOMP_IOCTL_NOTIF_ADDFD,
    SECCOMP_IOCTL_NOTIF_ID_VALID, SECCOMP_IOCTL_NOTIF_ID_VALID_WRONG_DIR, SECCOMP_IOCTL_NOTIF_RECV,
    SECCOMP_IOCTL_NOTIF_SEND, SECCOMP_NOTIF_ADDFD_LAYOUT as ADDFD,
    SECCOMP_NOTIF_DATA_LAYOUT as DATA, SECCOMP_NOTIF_LAYOUT as NOTIF,
    SECCOMP_NOTIF_RESP_LAYOUT as RESP, SECCOMP_USER_NOTIF_FLAGS,
};
use crate::format::{Naming, Printer};

const fn at(layout: &[Field], i: usize) -> Field {
    layout[i]
}

static NOTIF_FIELDS: [super::Field; 4] = [
    typed(at(NOTIF, 0), "__u64"),
    typed(at(NOTIF, 1), "__u32"),
    typed(at(NOTIF, 2), "__u32"),
    typed(at(NOTIF, 3), "struct seccomp_data"),
];
static NOTIF_STRUCT: Layout = Layout {
    name: "struct seccomp_notif",
    size: NOTIF[3].off + NOTIF[3].size,
    fields: &NOTIF_FIELDS,
};

static RESP_FIELDS: [super::Field; 4] = [
    typed(at(RESP, 0), "__u64"),
    typed(at(RESP, 1), "__s64"),
    typed(at(RESP, 2), "__s32"),
    typed(at(RESP, 3), "__u32"),
];
static RESP_STRUCT: Layout = Layout {
    name: "struct seccomp_notif_resp",
    size: 24,
    fields: &RESP_FIELDS,
};

static ADDFD_FIELDS: [super::Field; 5] = [
    typed(at(ADDFD, 0), "__u64"),
    typed(at(ADDFD, 1), "__u32"),
    typed(at(ADDFD, 2), "__u32"),
    typed(at(ADDFD, 3), "__u32"),
    typed(at(ADDFD, 4), "__u32"),
];
static ADDFD_STRUCT: Layout = Layout {
    name: "struct seccomp_notif_addfd",
    size: 24,
    fields: &ADDFD_FIELDS,
};

static ID_FIELDS: [super::Field; 1] = [super::field("id", "__u64", 0, 8)];
static ID: Layout = Layout {
    name: "__u64",
    size: 8,
    fields: &ID_FIELDS,
};

static REQUESTS: &[Request] = &[
    // The program passes a zeroed struct (the kernel refuses anything
    // else) and gets the notification; a failed call's answer is the
    // pointer, where strace shows `=> 0x7ff..`.
    Request::new(
        SECCOMP_IOCTL_NOTIF_RECV,
        "SECCOMP_IOCTL_NOTIF_RECV",
        IF_OUT | IF_IN | IF_FAILED_PTR,
        Arg::Struct(&NOTIF_STRUCT),
    ),
    // _IOWR, but the kernel only reads the answer.
    Request::new(
        SECCOMP_IOCTL_NOTIF_SEND,
        "SECCOMP_IOCTL_NOTIF_SEND",
        IF_OUT,
        Arg::Struct(&RESP_STRUCT),
    ),
    Request::new(
        SECCOMP_IOCTL_NOTIF_ID_VALID,
        "SECCOMP_IOCTL_NOTIF_ID_VALID",
        IF_OUT,
        Arg::Custom(&ID),
    ),
    // _IOR, yet the kernel reads the id (kernel/seccomp.c).
    Request::legacy(
        SECCOMP_IOCTL_NOTIF_ID_VALID_WRONG_DIR,
        "SECCOMP_IOCTL_NOTIF_ID_VALID_WRONG_DIR",
        IF_OUT,
        Arg::Custom(&ID),
    ),
    Request::new(
        SECCOMP_IOCTL_NOTIF_ADDFD,
        "SECCOMP_IOCTL_NOTIF_ADDFD",
        IF_OUT,
        Arg::Struct(&ADDFD_STRUCT),
    ),
];

/// The seccomp user-notification group.
pub struct Seccomp;

/// The seccomp group's instance.
pub static SECCOMP: Seccomp = Seccomp;

/// A `__u64`/`__u32` field in hex, `0` as `0` (strace's `%#x`).
fn hex_field(p: &mut Printer, d: &[u8], f: &Field) {
    let v = if f.size == 8 {
        u64_at(d, f.off)
    } else {
        u32_at(d, f.off) as u64
    };
    p.raw_hex(f.name, v);
}

/// An fd inside a struct: with `-y` its path, as the kernel names it now.
fn put_fd_field(p: &mut Printer, name: &str, fd: i32) {
    let set = p.config().decode_fds;
    match crate::kernel::fds::describe_for(p.mem(), fd, set) {
        Some(shown) => p.fd_text(name, fd as i64, &shown),
        None => p.int(name, fd as i64),
    }
}

/// `struct seccomp_data`: the call that stopped, named by its ABI.
fn put_data(p: &mut Printer, d: &[u8]) {
    let f = |name| crate::abi::layout::field(DATA, name);
    let arch = u32_at(d, f("arch").off) as u64;
    p.open("data", "{", Naming::Fields);
    put_syscall(p, "nr", i32_at(d, f("nr").off), arch);
    match AUDIT_ARCHES.iter().find(|(v, _)| *v == arch) {
        Some((_, name)) => p.symbol("arch", arch as i64, Some(name)),
        None => p.raw_hex("arch", arch),
    }
    p.ptr(
        "instruction_pointer",
        u64_at(d, f("instruction_pointer").off),
    );
    let args = f("args");
    p.open("args", "[", Naming::Elements);
    for i in 0..args.size / 8 {
        p.raw_hex("", u64_at(d, args.off + i * 8));
    }
    p.close("]");
    p.close("}");
}

impl IoctlGroup for Seccomp {
    fn name(&self) -> &'static str {
        "seccomp"
    }

    fn headers(&self) -> &'static [&'static str] {
        &["linux/seccomp.h"]
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, p: &mut Printer, req: &Request, d: &[u8], _phase: u8) -> bool {
        match req.code {
            SECCOMP_IOCTL_NOTIF_RECV => {
                hex_field(p, d, &NOTIF[0]);
                p.pid_field("pid", u32_at(d, NOTIF[1].off) as i32 as i64);
                hex_field(p, d, &NOTIF[2]);
                put_data(p, &d[NOTIF[3].off..NOTIF[3].off + NOTIF[3].size]);
            }
            SECCOMP_IOCTL_NOTIF_SEND => {
                hex_field(p, d, &RESP[0]);
                p.int("val", i64_at(d, RESP[1].off));
                let error = i32_at(d, RESP[2].off) as i64;
                let sym = (error < 0)
                    .then(|| crate::call::errno_name(-error))
                    .flatten()
                    .map(|e| format!("-{e}"));
                p.symbol_decimal("error", error, sym.as_deref());
                p.flags(
                    "flags",
                    u32_at(d, RESP[3].off) as u64,
                    SECCOMP_USER_NOTIF_FLAGS,
                );
            }
            _ => {
                hex_field(p, d, &ADDFD[0]);
                p.flags("flags", u32_at(d, ADDFD[1].off) as u64, SECCOMP_ADDFD_FLAGS);
                put_fd_field(p, "srcfd", i32_at(d, ADDFD[2].off));
                p.int("newfd", i32_at(d, ADDFD[3].off) as i64);
                p.flags(
                    "newfd_flags",
                    u32_at(d, ADDFD[4].off) as u64,
                    OPEN_MODE_FLAGS,
                );
            }
        }
        true
    }

    /// ID_VALID's id: `[0x1f]`, or the pointer.
    fn custom(&self, p: &mut Printer, _req: &Request, addr: u64, _phase: u8) {
        let mut raw = [0u8; 8];
        if addr == 0 || p.config().values_only >= 2 || !p.mem().read_exact(addr, &mut raw) {
            p.ptr("arg", addr);
            return;
        }
        p.open("arg", "[", Naming::Elements);
        p.raw_hex("", u64::from_le_bytes(raw));
        p.close("]");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_structs_are_the_headers() {
        assert_eq!(NOTIF_STRUCT.size, 80);
        assert_eq!(DATA.last().map(|f| f.off + f.size), Some(64));
        assert_eq!(RESP[3].off + RESP[3].size, RESP_STRUCT.size);
        assert_eq!(ADDFD[4].off + ADDFD[4].size, ADDFD_STRUCT.size);
    }
}
