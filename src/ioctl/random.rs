//! The random device's requests (`<linux/random.h>`, `/dev/random`,
//! `/dev/urandom`), decoded as strace does: the entropy count read or
//! added (`[6]`), RNDADDENTROPY's `struct rand_pool_info` with the bytes
//! it adds (`{entropy_count=3, buf_size=8, buf="12345678"}`, cut at `-s`),
//! and the requests that take no argument. Layout generated
//! (`RAND_POOL_INFO_LAYOUT`: two `int`s and the bytes, the same on i386).

use super::{Arg, FlexArray, IF_IN, IF_OUT, IoctlGroup, Layout, Request};
use crate::abi::layout::{self, field};
use crate::abi::xlat::ioctl::{
    RAND_POOL_INFO_LAYOUT, RNDADDENTROPY, RNDADDTOENTCNT, RNDCLEARPOOL, RNDGETENTCNT,
    RNDRESEEDCRNG, RNDZAPENTCNT,
};
use crate::format::{Naming, Printer};

/// `struct rand_pool_info`'s two counts (its code says `int[2]`); the
/// bytes follow.
static POOL_INFO: Layout = Layout {
    name: "rand_pool_info",
    size: layout::offset(RAND_POOL_INFO_LAYOUT, "buf[0]"),
    fields: &[],
};

/// RNDADDENTROPY's bytes after the counts: `buf_size` of them, read
/// before the call (as far as `-s` shows).
const POOL_BYTES: FlexArray = FlexArray {
    count_offset: layout::offset(RAND_POOL_INFO_LAYOUT, "buf_size"),
    count_size: layout::member(RAND_POOL_INFO_LAYOUT, "buf_size").size,
    elem: 1,
    dirs: IF_OUT,
};

static REQUESTS: &[Request] = &[
    Request::new(RNDGETENTCNT, "RNDGETENTCNT", IF_IN, Arg::Int),
    Request::new(RNDADDTOENTCNT, "RNDADDTOENTCNT", IF_OUT, Arg::Int),
    Request::new(
        RNDADDENTROPY,
        "RNDADDENTROPY",
        IF_OUT,
        Arg::Custom(&POOL_INFO),
    )
    .counted(POOL_BYTES),
    Request::new(RNDZAPENTCNT, "RNDZAPENTCNT", 0, Arg::None),
    Request::new(RNDCLEARPOOL, "RNDCLEARPOOL", 0, Arg::None),
    Request::new(RNDRESEEDCRNG, "RNDRESEEDCRNG", 0, Arg::None),
];

/// The random device group.
pub struct Random;

/// The one instance the dispatcher uses.
pub static RANDOM: Random = Random;

impl IoctlGroup for Random {
    fn name(&self) -> &'static str {
        "random"
    }

    fn headers(&self) -> &'static [&'static str] {
        &["linux/random.h"]
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, _p: &mut Printer, _req: &Request, _d: &[u8], _phase: u8) -> bool {
        true
    }

    /// RNDADDENTROPY: the counts, then `buf_size` bytes after them.
    fn custom(&self, p: &mut Printer, _req: &Request, addr: u64, _phase: u8) {
        let l = RAND_POOL_INFO_LAYOUT;
        let buf_at = field(l, "buf[0]").off;
        let mut d = vec![0u8; buf_at];
        if addr == 0 || p.config().values_only >= 2 || !p.mem().read_exact(addr, &mut d) {
            p.ptr("arg", addr);
            return;
        }
        let count = field(l, "entropy_count").read(&d).unwrap_or(0) as i64;
        let size = field(l, "buf_size").read(&d).unwrap_or(0) as i64;
        p.open("arg", "{", Naming::Fields);
        p.int("entropy_count", count);
        p.int("buf_size", size);
        p.buf("buf", addr + buf_at as u64, size.max(0) as u64);
        p.close("}");
    }
}
