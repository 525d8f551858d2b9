//! userfaultfd's handshake (`<linux/userfaultfd.h>`): UFFDIO_API, where the
//! program names the API it speaks and the features it wants (0: all), and
//! the kernel answers with the features it has and the requests the fd
//! takes, as flags from the header (BTF has the struct, but not the names
//! of its `#define`d bits: src/abi/xlat/ioctl.rs, generated). The other
//! userfaultfd requests carry plain numbers and print from BTF.
//!
//! The answer shows what the kernel wrote (`api` is the one sent back):
//! `ioctl(3, UFFDIO_API, {api=0xaa, features=0}) = 0 {features=UFFD_FEATURE_...,
//! ioctls=1<<_UFFDIO_REGISTER|1<<_UFFDIO_UNREGISTER|1<<_UFFDIO_API}`.

use super::raw::u64_at;
use super::{Arg, IF_IN, IF_OUT, IoctlGroup, Layout, Request, field};
use crate::abi::xlat::ioctl::{UFFD_FEATURES, UFFD_IOCTLS, UFFDIO_API};
use crate::format::Printer;

/// `struct uffdio_api`.
pub static UFFDIO_API_ARG: Layout = Layout {
    name: "uffdio_api",
    size: 24,
    fields: &[
        field("api", "__u64", 0, 8),
        field("features", "__u64", 8, 8),
        field("ioctls", "__u64", 16, 8),
    ],
};

static REQUESTS: &[Request] = &[Request::new(
    UFFDIO_API,
    "UFFDIO_API",
    IF_OUT | IF_IN,
    Arg::Struct(&UFFDIO_API_ARG),
)];

/// The userfaultfd group.
pub struct Uffd;

/// The one instance the dispatcher uses.
pub static UFFD: Uffd = Uffd;

impl IoctlGroup for Uffd {
    fn name(&self) -> &'static str {
        "userfaultfd"
    }

    fn headers(&self) -> &'static [&'static str] {
        &["linux/userfaultfd.h"]
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, p: &mut Printer, _req: &Request, d: &[u8], phase: u8) -> bool {
        if phase == IF_OUT {
            p.hex("api", u64_at(d, 0));
        }
        p.flags("features", u64_at(d, 8), UFFD_FEATURES);
        if phase == IF_IN {
            p.flags("ioctls", u64_at(d, 16), UFFD_IOCTLS);
        }
        true
    }
}
