//! The one usbmon number rtrace keeps by hand, with its reason: everything
//! else of mon_bin.c is generated (`abi::gen_usbmon`).

/// The largest ring MON_IOCT_RING_SIZE accepted until 2025 (`BUFF_MAX`,
/// `CHUNK_ALIGN(1200*1024)`). mon_bin.c then raised it to 64 MiB (also in
/// the stable 6.1.y and 6.12.y series, so the generated
/// `gen_usbmon::BUFF_MAX` of today's linux-source tarball is 64 MiB); the
/// usbmon diagnostics and the replay keep the older limit, which every
/// kernel accepts and which libpcap's and Wireshark's ring sizes were made
/// for, until a test kernel with the new one is measured.
pub const BUFF_MAX_BEFORE_2025: u32 = 1200 * 1024;
