//! Namespace file ioctls (`<linux/nsfs.h>`), made on `/proc/PID/ns/*` fds:
//! which namespace type a file is, its owning user namespace or parent
//! (new fds, as results), and a user namespace's owner. The answers are
//! results, printed as strace prints them:
//! `ioctl(3, NS_GET_NSTYPE) = 1073741824 (CLONE_NEWNET)`,
//! `ioctl(4, NS_GET_OWNER_UID, [0]) = 0`.

use super::{Arg, IF_IN, IoctlCall, IoctlGroup, Request};
use crate::abi::xlat::ioctl::{
    NS_GET_NSTYPE, NS_GET_OWNER_UID, NS_GET_PARENT, NS_GET_USERNS, NS_TYPES,
};
use crate::decode::put_extended;
use crate::format::Printer;

static REQUESTS: &[Request] = &[
    Request::new(NS_GET_USERNS, "NS_GET_USERNS", 0, Arg::None),
    Request::new(NS_GET_PARENT, "NS_GET_PARENT", 0, Arg::None),
    Request::new(NS_GET_NSTYPE, "NS_GET_NSTYPE", 0, Arg::None),
    // _IO, yet the kernel writes a uid_t through the argument.
    Request::legacy(NS_GET_OWNER_UID, "NS_GET_OWNER_UID", IF_IN, Arg::Int),
];

/// The nsfs group.
pub struct Nsfs;

/// The nsfs group's instance.
pub static NSFS: Nsfs = Nsfs;

impl IoctlGroup for Nsfs {
    fn name(&self) -> &'static str {
        "nsfs"
    }

    fn headers(&self) -> &'static [&'static str] {
        &["linux/nsfs.h"]
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, _p: &mut Printer, _req: &Request, _data: &[u8], _phase: u8) -> bool {
        true
    }

    /// NS_GET_NSTYPE's result by name: ` (CLONE_NEWNET)`.
    fn extended(&self, p: &mut Printer, req: &Request, call: &IoctlCall) {
        if req.code != NS_GET_NSTYPE || !p.symbols() {
            return;
        }
        let value = call.result as u64;
        if let Some(&(_, name)) = NS_TYPES.iter().find(|&&(v, _)| v == value) {
            put_extended(p, "nstype", |p, n| p.symbol(n, call.result, Some(name)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ioctl::names::table;
    use crate::kernel::Arch;

    #[test]
    fn codes_are_the_headers() {
        for arch in [Arch::X86_64, Arch::I386] {
            for req in REQUESTS {
                let def = table(arch).by_name(req.name).expect(req.name);
                assert_eq!(def.code, req.code, "{}", req.name);
            }
        }
    }
}
