//! Generic file ioctls that work on any fd (`<asm-generic/ioctls.h>`):
//! FIONBIO, FIOASYNC, FIOCLEX, FIONCLEX, FIONREAD and friends.

use super::{Arg, IF_IN, IF_OUT, IoctlGroup, Request};
use crate::format::Printer;

static REQUESTS: &[Request] = &[
    Request::legacy(0x5421, "FIONBIO", IF_OUT, Arg::Int),
    Request::legacy(0x5452, "FIOASYNC", IF_OUT, Arg::Int),
    Request::legacy(0x5451, "FIOCLEX", 0, Arg::None),
    Request::legacy(0x5450, "FIONCLEX", 0, Arg::None),
    Request::legacy(0x541B, "FIONREAD", IF_IN, Arg::Int),
    Request::legacy(0x5460, "FIOQSIZE", 0, Arg::Ptr),
];

/// The generic file group.
pub struct File;

/// The one instance the dispatcher uses.
pub static FILE: File = File;

impl IoctlGroup for File {
    fn name(&self) -> &'static str {
        "file"
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, _p: &mut Printer, _req: &Request, _data: &[u8], _phase: u8) -> bool {
        false
    }
}
