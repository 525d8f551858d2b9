//! The usbdevfs group ('U'): `/dev/bus/usb/BBB/DDD`, as libusb and libpcap
//! use it (`<linux/usbdevice_fs.h>`).

use super::{IoctlGroup, Request};
use crate::format::Printer;

static REQUESTS: &[Request] = &[];

/// The usbdevfs group.
pub struct Usbdevfs;

/// The one instance the dispatcher uses.
pub static USBDEVFS: Usbdevfs = Usbdevfs;

impl IoctlGroup for Usbdevfs {
    fn name(&self) -> &'static str {
        "usbdevfs"
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, _p: &mut Printer, _req: &Request, _data: &[u8], _phase: u8) -> bool {
        false
    }
}
