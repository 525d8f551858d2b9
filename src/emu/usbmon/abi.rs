//! The usbmon binary ABI the emulation answers with (drivers/usb/mon/
//! mon_bin.c; the kernel has no uapi header for it): request codes made
//! with the `_IOC` encoding from the structs' sizes, the ring's limits and
//! the header's field offsets. `tests` checks the codes against the
//! decoder's (`ioctl::usbmon`).

/// `_IOC(dir, 0x92, nr, size)` as <asm-generic/ioctl.h> encodes it.
const fn mon_ioc(dir: u32, nr: u32, size: u32) -> u32 {
    (dir << 30) | (size << 16) | (0x92 << 8) | nr
}
const NONE: u32 = 0;
const WRITE: u32 = 1;
const READ: u32 = 2;

/// `_IO(0x92, 1)`: the oldest event's `len_cap`.
pub const MON_IOCQ_URB_LEN: u32 = mon_ioc(NONE, 1, 0);
/// `_IOR(0x92, 3, struct mon_bin_stats)` (8 bytes).
pub const MON_IOCG_STATS: u32 = mon_ioc(READ, 3, 8);
/// `_IO(0x92, 4)`: set the ring size (by value).
pub const MON_IOCT_RING_SIZE: u32 = mon_ioc(NONE, 4, 0);
/// `_IO(0x92, 5)`: the ring size.
pub const MON_IOCQ_RING_SIZE: u32 = mon_ioc(NONE, 5, 0);
/// `_IOW(0x92, 6, struct mon_bin_get)` (24 bytes).
pub const MON_IOCX_GET: u32 = mon_ioc(WRITE, 6, 24);
/// `_IOWR(0x92, 7, struct mon_bin_mfetch)` (16 bytes).
pub const MON_IOCX_MFETCH: u32 = mon_ioc(READ | WRITE, 7, 16);
/// `_IO(0x92, 8)`: flush a count of events (by value).
pub const MON_IOCH_MFLUSH: u32 = mon_ioc(NONE, 8, 0);
/// `_IOW(0x92, 10, struct mon_bin_get)`: GET with the 64-byte header.
pub const MON_IOCX_GETX: u32 = mon_ioc(WRITE, 10, 24);
/// `_IOW(0x92, 6, struct mon_bin_get32)` (12 bytes): 32-bit callers.
pub const MON_IOCX_GET32: u32 = mon_ioc(WRITE, 6, 12);
/// `_IOWR(0x92, 7, struct mon_bin_mfetch32)` (12 bytes).
pub const MON_IOCX_MFETCH32: u32 = mon_ioc(READ | WRITE, 7, 12);
/// `_IOW(0x92, 10, struct mon_bin_get32)`.
pub const MON_IOCX_GETX32: u32 = mon_ioc(WRITE, 10, 12);

/// Events start at multiples of this in the ring (`PKT_ALIGN`).
pub const PKT_ALIGN: u32 = 64;
/// The header's size in the ring (`PKT_SIZE`).
pub const PKT_SIZE: u32 = 64;
/// Header bytes of read(2) and MON_IOCX_GET (`PKT_SZ_API0`).
pub const PKT_SZ_API0: u32 = 48;
/// Header bytes of MON_IOCX_GETX (`PKT_SZ_API1`).
pub const PKT_SZ_API1: u32 = 64;
/// `BUFF_MAX`, `BUFF_DFL`, `BUFF_MIN`: ring sizes.
pub const BUFF_MAX: u32 = 1200 * 1024;
/// The ring size of a new reader.
pub const BUFF_DFL: u32 = 300 * 1024;
/// The smallest ring MON_IOCT_RING_SIZE accepts.
pub const BUFF_MIN: u32 = 8 * 1024;
/// `MON_BIN_MAX_MINOR`: bus numbers are below it.
pub const MAX_MINOR: u16 = 128;

/// `struct mon_bin_hdr` field offsets (host endian).
pub const H_TYPE: usize = 8;
/// `u16 busnum`.
pub const H_BUSNUM: usize = 12;
/// `s64 ts_sec`.
pub const H_TS_SEC: usize = 16;
/// `s32 ts_usec`.
pub const H_TS_USEC: usize = 24;
/// `u32 len_cap`.
pub const H_LEN_CAP: usize = 36;
/// `u32 ndesc`: ISO descriptors (16 bytes each) at the start of the data.
pub const H_NDESC: usize = 60;
/// Bytes of one ISO descriptor (`struct mon_bin_isodesc`).
pub const ISODESC_LEN: u32 = 16;

/// Rounds `x` up to the ring's event alignment.
pub const fn align64(x: u32) -> u32 {
    (x + PKT_ALIGN - 1) & !(PKT_ALIGN - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ioctl::usbmon as decoder;

    #[test]
    fn codes_are_the_decoders() {
        let pairs = [
            (MON_IOCQ_URB_LEN, decoder::MON_IOCQ_URB_LEN),
            (MON_IOCG_STATS, decoder::MON_IOCG_STATS),
            (MON_IOCT_RING_SIZE, decoder::MON_IOCT_RING_SIZE),
            (MON_IOCQ_RING_SIZE, decoder::MON_IOCQ_RING_SIZE),
            (MON_IOCX_GET, decoder::MON_IOCX_GET),
            (MON_IOCX_MFETCH, decoder::MON_IOCX_MFETCH),
            (MON_IOCH_MFLUSH, decoder::MON_IOCH_MFLUSH),
            (MON_IOCX_GETX, decoder::MON_IOCX_GETX),
            (MON_IOCX_GET32, decoder::MON_IOCX_GET32),
            (MON_IOCX_MFETCH32, decoder::MON_IOCX_MFETCH32),
            (MON_IOCX_GETX32, decoder::MON_IOCX_GETX32),
        ];
        for (ours, theirs) in pairs {
            assert_eq!(ours, theirs, "{ours:#x}");
        }
        assert_eq!(PKT_SZ_API0 as usize, decoder::HDR_LEN_API0);
        assert_eq!(PKT_SIZE as usize, decoder::HDR_LEN);
    }
}
