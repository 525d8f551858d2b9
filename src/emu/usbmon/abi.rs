//! The usbmon binary ABI the emulation answers with, under the names its
//! code uses: request codes, the ring's limits and the header's field
//! offsets, all generated from drivers/usb/mon/mon_bin.c
//! (`abi::gen_usbmon`; the kernel has no uapi header for them), but the
//! largest ring (`abi::usbmon`, with its reason).

use crate::abi::gen_usbmon::{self as k, mon_bin_hdr as hdr};

pub use crate::abi::gen_usbmon::{
    BUFF_DFL, BUFF_MIN, MON_IOCG_STATS, MON_IOCH_MFLUSH, MON_IOCQ_RING_SIZE, MON_IOCQ_URB_LEN,
    MON_IOCT_RING_SIZE, MON_IOCX_GET, MON_IOCX_GET32, MON_IOCX_GETX, MON_IOCX_GETX32,
    MON_IOCX_MFETCH, MON_IOCX_MFETCH32, PKT_ALIGN, PKT_SIZE, PKT_SZ_API0, PKT_SZ_API1,
};
/// The largest ring MON_IOCT_RING_SIZE accepts (the limit before 2025).
pub const BUFF_MAX: u32 = crate::abi::usbmon::BUFF_MAX_BEFORE_2025;
/// `MON_BIN_MAX_MINOR`: bus numbers are below it.
pub const MAX_MINOR: u16 = k::MON_BIN_MAX_MINOR as u16;

/// `struct mon_bin_hdr` field offsets (host endian): `unsigned char type`.
pub const H_TYPE: usize = hdr::TYPE.off;
/// `u16 busnum`.
pub const H_BUSNUM: usize = hdr::BUSNUM.off;
/// `s64 ts_sec`.
pub const H_TS_SEC: usize = hdr::TS_SEC.off;
/// `s32 ts_usec`.
pub const H_TS_USEC: usize = hdr::TS_USEC.off;
/// `u32 len_cap`.
pub const H_LEN_CAP: usize = hdr::LEN_CAP.off;
/// `u32 ndesc`: ISO descriptors at the start of the data.
pub const H_NDESC: usize = hdr::NDESC.off;
/// Bytes of one ISO descriptor (`struct mon_bin_isodesc`).
pub const ISODESC_LEN: u32 = k::mon_bin_isodesc::SIZEOF as u32;

/// Rounds `x` up to the ring's event alignment.
pub const fn align64(x: u32) -> u32 {
    (x + PKT_ALIGN - 1) & !(PKT_ALIGN - 1)
}
