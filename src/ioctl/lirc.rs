//! Infrared remote controls (`<linux/lirc.h>`, `/dev/lircN`): every
//! request's argument is one `__u32`, printed as strace does: the features
//! LIRC_GET_FEATURES answers as `LIRC_CAN_*` flags, a send or receive mode
//! as its `LIRC_MODE_*` name, the transmitter mask in hex, the others
//! (carriers, timeouts, duty cycle, resolution) as numbers. The setters'
//! value prints before the call, the getters' after it.
//!
//! LIRC_SET_REC_CARRIER_RANGE shares its code with IPMI's
//! IPMICTL_SET_MAINTENANCE_MODE_CMD; both are named where the fd does not
//! decide, and the argument is a `__u32` either way.

use super::{Arg, IF_IN, IF_OUT, IoctlGroup, Layout, Request};
use crate::abi::xlat::ioctl::{
    LIRC_FEATURES, LIRC_GET_FEATURES, LIRC_GET_LENGTH, LIRC_GET_MAX_TIMEOUT, LIRC_GET_MIN_TIMEOUT,
    LIRC_GET_REC_MODE, LIRC_GET_REC_RESOLUTION, LIRC_GET_REC_TIMEOUT, LIRC_GET_SEND_MODE,
    LIRC_MODES, LIRC_SET_MEASURE_CARRIER_MODE, LIRC_SET_REC_CARRIER, LIRC_SET_REC_CARRIER_RANGE,
    LIRC_SET_REC_MODE, LIRC_SET_REC_TIMEOUT, LIRC_SET_REC_TIMEOUT_REPORTS, LIRC_SET_SEND_CARRIER,
    LIRC_SET_SEND_DUTY_CYCLE, LIRC_SET_SEND_MODE, LIRC_SET_TRANSMITTER_MASK,
    LIRC_SET_WIDEBAND_RECEIVER,
};
use crate::format::{Naming, Printer};

/// The one argument type: a `__u32` the request reads or writes.
static U32: Layout = Layout {
    name: "__u32",
    size: 4,
    fields: &[],
};

/// A getter (`_IOR`): the value after the call.
const fn get(code: u32, name: &'static str) -> Request {
    Request::new(code, name, IF_IN, Arg::Custom(&U32))
}

/// A setter (`_IOW`): the value before the call.
const fn set(code: u32, name: &'static str) -> Request {
    Request::new(code, name, IF_OUT, Arg::Custom(&U32))
}

static REQUESTS: &[Request] = &[
    get(LIRC_GET_FEATURES, "LIRC_GET_FEATURES"),
    get(LIRC_GET_SEND_MODE, "LIRC_GET_SEND_MODE"),
    get(LIRC_GET_REC_MODE, "LIRC_GET_REC_MODE"),
    get(LIRC_GET_REC_RESOLUTION, "LIRC_GET_REC_RESOLUTION"),
    get(LIRC_GET_MIN_TIMEOUT, "LIRC_GET_MIN_TIMEOUT"),
    get(LIRC_GET_MAX_TIMEOUT, "LIRC_GET_MAX_TIMEOUT"),
    get(LIRC_GET_LENGTH, "LIRC_GET_LENGTH"),
    get(LIRC_GET_REC_TIMEOUT, "LIRC_GET_REC_TIMEOUT"),
    set(LIRC_SET_SEND_MODE, "LIRC_SET_SEND_MODE"),
    set(LIRC_SET_REC_MODE, "LIRC_SET_REC_MODE"),
    set(LIRC_SET_SEND_CARRIER, "LIRC_SET_SEND_CARRIER"),
    set(LIRC_SET_REC_CARRIER, "LIRC_SET_REC_CARRIER"),
    set(LIRC_SET_SEND_DUTY_CYCLE, "LIRC_SET_SEND_DUTY_CYCLE"),
    set(LIRC_SET_TRANSMITTER_MASK, "LIRC_SET_TRANSMITTER_MASK"),
    set(LIRC_SET_REC_TIMEOUT, "LIRC_SET_REC_TIMEOUT"),
    set(LIRC_SET_REC_TIMEOUT_REPORTS, "LIRC_SET_REC_TIMEOUT_REPORTS"),
    set(
        LIRC_SET_MEASURE_CARRIER_MODE,
        "LIRC_SET_MEASURE_CARRIER_MODE",
    ),
    set(LIRC_SET_REC_CARRIER_RANGE, "LIRC_SET_REC_CARRIER_RANGE"),
    set(LIRC_SET_WIDEBAND_RECEIVER, "LIRC_SET_WIDEBAND_RECEIVER"),
];

/// The LIRC group.
pub struct Lirc;

/// The one instance the dispatcher uses.
pub static LIRC: Lirc = Lirc;

impl IoctlGroup for Lirc {
    fn name(&self) -> &'static str {
        "lirc"
    }

    fn headers(&self) -> &'static [&'static str] {
        &["linux/lirc.h"]
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, _p: &mut Printer, _req: &Request, _d: &[u8], _phase: u8) -> bool {
        false
    }

    fn custom(&self, p: &mut Printer, req: &Request, addr: u64, _phase: u8) {
        let mut raw = [0u8; 4];
        if addr == 0 || p.config().values_only >= 2 || !p.mem().read_exact(addr, &mut raw) {
            p.ptr("arg", addr);
            return;
        }
        let v = u32::from_le_bytes(raw);
        p.open("arg", "[", Naming::Elements);
        match req.code {
            LIRC_GET_FEATURES => p.flags("", v as u64, LIRC_FEATURES),
            LIRC_GET_SEND_MODE | LIRC_GET_REC_MODE | LIRC_SET_SEND_MODE | LIRC_SET_REC_MODE => {
                let name = LIRC_MODES.iter().find(|&&(m, _)| m == v).map(|&(_, n)| n);
                p.symbol("", v as i64, name);
            }
            LIRC_SET_TRANSMITTER_MASK => p.raw_hex("", v as u64),
            _ => p.uint("", v as u64),
        }
        p.close("]");
    }
}
