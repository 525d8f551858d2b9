//! Reading a usbmon capture: pcap or pcapng (the container is read with the
//! `pcap-file` crate), link type 220 (`LINKTYPE_USB_LINUX_MMAPPED`, each
//! record a 64-byte `struct mon_bin_hdr` then the data) or 189
//! (`LINKTYPE_USB_LINUX`, the 48-byte header of MON_IOCX_GET and read(2)).
//! The usbmon header is decoded here, field by field, from the capture's
//! byte order (a header is in the byte order of the host that captured it,
//! which is the file's), and kept in this host's (x86: little-endian) as
//! the kernel would have written it into the ring.

use super::abi::{H_BUSNUM, H_LEN_CAP, H_NDESC, H_TS_SEC, H_TS_USEC, H_TYPE, MAX_MINOR};
use pcap_file::pcapng::Block;
use pcap_file::{DataLink, Endianness, PcapError};

/// One recorded event, as the device will place it.
pub struct Event {
    /// The 64-byte header in host byte order (`len_cap` as recorded, or
    /// lowered to the bytes the file has).
    pub hdr: [u8; 64],
    /// The captured data: `len_cap` bytes.
    pub data: Vec<u8>,
    /// Its bus.
    pub bus: u16,
    /// Its time stamp in microseconds (the header's `ts_sec`, `ts_usec`).
    pub ts_us: i64,
}

impl Event {
    /// The header's `len_cap`.
    pub fn len_cap(&self) -> u32 {
        u32::from_ne_bytes(self.hdr[H_LEN_CAP..H_LEN_CAP + 4].try_into().unwrap())
    }

    /// The header's `ndesc` (ISO descriptors at the start of the data).
    pub fn ndesc(&self) -> u32 {
        u32::from_ne_bytes(self.hdr[H_NDESC..H_NDESC + 4].try_into().unwrap())
    }

    /// The event type (`'S'`, `'C'`, `'E'`).
    pub fn kind(&self) -> u8 {
        self.hdr[H_TYPE]
    }
}

/// A loaded recording.
pub struct Recording {
    /// Its events, in order ('@' fillers left out).
    pub events: Vec<Event>,
    /// Which buses occur (index: bus number below [`MAX_MINOR`]).
    pub buses: Vec<bool>,
    /// [`Recording::period_us`], worked out once at the load.
    period: i64,
}

impl Recording {
    /// Whether `/dev/usbmonN` exists: bus 0 (all buses) or a recorded one.
    pub fn has_bus(&self, bus: u32) -> bool {
        bus == 0 || self.buses.get(bus as usize).copied().unwrap_or(false)
    }

    /// How far apart two passes of a looped replay are, in microseconds:
    /// the time from the first event to the latest, rounded up to the next
    /// whole second (so a pass starts after the one before has ended, and
    /// an event's stamp in pass K is its first-pass stamp plus K whole
    /// seconds times this).
    pub fn period_us(&self) -> i64 {
        self.period
    }

    /// The bus numbers that occur, in order.
    pub fn bus_list(&self) -> Vec<u16> {
        (1..MAX_MINOR).filter(|&b| self.buses[b as usize]).collect()
    }
}

/// `LINKTYPE_USB_LINUX`: the 48-byte header.
const LINKTYPE_USB_LINUX: u32 = 189;
/// `LINKTYPE_USB_LINUX_MMAPPED`: the 64-byte header.
const LINKTYPE_USB_LINUX_MMAPPED: u32 = 220;

/// Names of link types a user may give by mistake (tcpdump's
/// `pcap_datalink_val_to_description`); others are named by number.
const LINK_NAMES: &[(u32, &str)] = &[
    (0, "BSD loopback"),
    (1, "Ethernet"),
    (101, "Raw IP"),
    (105, "802.11"),
    (113, "Linux cooked v1"),
    (127, "802.11 plus radiotap header"),
    (228, "Raw IPv4"),
    (229, "Raw IPv6"),
    (249, "USB packets with USBPcap header"),
    (253, "Linux netlink"),
    (276, "Linux cooked v2"),
];

fn not_usbmon(link: u32) -> String {
    match LINK_NAMES.iter().find(|(n, _)| *n == link) {
        Some((_, name)) => format!("link type {link} ({name}) is not a usbmon capture"),
        None => format!("link type {link} is not a usbmon capture"),
    }
    .to_string()
        + " (record one from a usbmonN interface, link type 220 or 189)"
}

/// The header length of a usbmon link type, or the error for another.
fn header_len(link: DataLink) -> Result<usize, String> {
    match u32::from(link) {
        LINKTYPE_USB_LINUX_MMAPPED => Ok(64),
        LINKTYPE_USB_LINUX => Ok(48),
        other => Err(not_usbmon(other)),
    }
}

/// An I/O error's text without Rust's "(os error N)".
fn os_text(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// What a container error means for the user.
fn container_error(e: &PcapError, what: &str) -> String {
    match e {
        PcapError::IncompleteBuffer => format!("truncated file: {what} is cut short"),
        PcapError::IoError(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            format!("truncated file: {what} is cut short")
        }
        PcapError::IoError(io) => os_text(io),
        other => format!("{what} is damaged: {other}"),
    }
}

/// Load the capture at `path`. The error is one line, without the path.
pub fn load(path: &std::path::Path) -> Result<Recording, String> {
    let bytes = std::fs::read(path).map_err(|e| os_text(&e))?;
    let magic = bytes
        .get(..4)
        .map(|m| u32::from_le_bytes(m.try_into().unwrap()));
    let mut rec = Recording {
        events: Vec::new(),
        buses: vec![false; MAX_MINOR as usize],
        period: 0,
    };
    match magic {
        Some(0xa1b2_c3d4 | 0xd4c3_b2a1 | 0xa1b2_3c4d | 0x4d3c_b2a1) => pcap(&bytes, &mut rec)?,
        Some(0x0a0d_0d0a) => pcapng(&bytes, &mut rec)?,
        _ if bytes.is_empty() => return Err("empty file: not a capture".into()),
        _ => return Err("not a capture (neither pcap nor pcapng)".into()),
    }
    let t0 = rec.events.first().map_or(0, |e| e.ts_us);
    let span = rec.events.iter().map(|e| e.ts_us - t0).max().unwrap_or(0);
    rec.period = (span.max(0) / 1_000_000 + 1) * 1_000_000;
    Ok(rec)
}

fn pcap(bytes: &[u8], rec: &mut Recording) -> Result<(), String> {
    let mut reader = pcap_file::pcap::PcapReader::new(bytes)
        .map_err(|e| container_error(&e, "the pcap file header"))?;
    let header = reader.header();
    let hlen = header_len(header.datalink)?;
    let mut n = 0;
    while let Some(packet) = reader.next_packet() {
        n += 1;
        let packet = packet.map_err(|e| container_error(&e, &format!("record {n}")))?;
        add(rec, &packet.data, hlen, header.endianness, n)?;
    }
    Ok(())
}

fn pcapng(bytes: &[u8], rec: &mut Recording) -> Result<(), String> {
    let mut reader = pcap_file::pcapng::PcapNgReader::new(bytes)
        .map_err(|e| container_error(&e, "the pcapng section header"))?;
    let mut n = 0;
    let mut blocks = 0;
    loop {
        blocks += 1;
        let endianness = reader.section().endianness;
        let Some(block) = reader.next_block() else {
            break;
        };
        let block = block.map_err(|e| container_error(&e, &format!("block {blocks}")))?;
        let (interface, data) = match &block {
            Block::InterfaceDescription(idb) => {
                header_len(idb.linktype)?;
                continue;
            }
            Block::EnhancedPacket(p) => (p.interface_id, p.data.to_vec()),
            Block::SimplePacket(p) => (0, p.data.to_vec()),
            _ => continue,
        };
        n += 1;
        let link = reader
            .interfaces()
            .get(interface as usize)
            .map(|i| i.linktype)
            .ok_or_else(|| {
                format!("record {n} names interface {interface}, which the file does not describe")
            })?;
        add(rec, &data, header_len(link)?, endianness, n)?;
    }
    Ok(())
}

/// Field widths of `struct mon_bin_hdr`, in order, for byte swapping; the
/// setup bytes (40..48) are bytes (an ISO event's `error_count` and
/// `numdesc` are ints there: swapped as such when `type` is ISO).
const FIELDS: &[(usize, usize)] = &[
    (0, 8),  // id
    (8, 1),  // type
    (9, 1),  // xfer_type
    (10, 1), // epnum
    (11, 1), // devnum
    (12, 2), // busnum
    (14, 1), // flag_setup
    (15, 1), // flag_data
    (16, 8), // ts_sec
    (24, 4), // ts_usec
    (28, 4), // status
    (32, 4), // len_urb
    (36, 4), // len_cap
    (48, 4), // interval
    (52, 4), // start_frame
    (56, 4), // xfer_flags
    (60, 4), // ndesc
];

/// Add record number `n`, whose usbmon header is `hlen` bytes.
fn add(
    rec: &mut Recording,
    raw: &[u8],
    hlen: usize,
    order: Endianness,
    n: usize,
) -> Result<(), String> {
    if raw.len() < hlen {
        return Err(format!(
            "record {n} holds {} bytes, less than a {hlen}-byte usbmon header",
            raw.len()
        ));
    }
    let mut hdr = [0u8; 64];
    hdr[..hlen].copy_from_slice(&raw[..hlen]);
    let swap = match order {
        Endianness::Big => cfg!(target_endian = "little"),
        Endianness::Little => cfg!(target_endian = "big"),
    };
    if swap {
        let iso = hdr[9] == 0;
        for &(at, len) in FIELDS
            .iter()
            .chain(if iso { &[(40, 4), (44, 4)][..] } else { &[] })
        {
            if at + len <= hlen {
                hdr[at..at + len].reverse();
            }
        }
    }
    if hdr[H_TYPE] == b'@' {
        // A ring filler libpcap let through: no event.
        return Ok(());
    }
    let word = |at: usize| u32::from_ne_bytes(hdr[at..at + 4].try_into().unwrap());
    let have = (raw.len() - hlen) as u32;
    let len_cap = word(H_LEN_CAP).min(have);
    hdr[H_LEN_CAP..H_LEN_CAP + 4].copy_from_slice(&len_cap.to_ne_bytes());
    let bus = u16::from_ne_bytes([hdr[H_BUSNUM], hdr[H_BUSNUM + 1]]);
    if bus >= MAX_MINOR || bus == 0 {
        return Err(format!(
            "record {n} is on bus {bus}: buses are 1 to {}",
            MAX_MINOR - 1
        ));
    }
    rec.buses[bus as usize] = true;
    let sec = i64::from_ne_bytes(hdr[H_TS_SEC..H_TS_SEC + 8].try_into().unwrap());
    let usec = i32::from_ne_bytes(hdr[H_TS_USEC..H_TS_USEC + 4].try_into().unwrap());
    rec.events.push(Event {
        hdr,
        data: raw[hlen..hlen + len_cap as usize].to_vec(),
        bus,
        ts_us: sec
            .saturating_mul(1_000_000)
            .saturating_add(i64::from(usec)),
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recording() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/usbmon/qemu-xhci-0u.pcap")
    }

    #[test]
    fn loads_the_test_recording() {
        let rec = load(&recording()).unwrap();
        assert_eq!(rec.events.len(), 34);
        assert_eq!(rec.bus_list(), vec![1, 2]);
        assert!(rec.has_bus(0) && rec.has_bus(2) && !rec.has_bus(3));
        // Its events span 1.56 s: passes are 2 s apart.
        assert_eq!(rec.period_us(), 2_000_000);
    }

    #[test]
    fn names_other_link_types() {
        let mut bytes = std::fs::read(recording()).unwrap();
        bytes[20..24].copy_from_slice(&1u32.to_le_bytes());
        let dir = std::env::temp_dir().join(format!("rtrace-rec-{}", std::process::id()));
        std::fs::write(&dir, &bytes).unwrap();
        let err = load(&dir).err().unwrap();
        let _ = std::fs::remove_file(&dir);
        assert!(
            err.starts_with("link type 1 (Ethernet) is not a usbmon capture"),
            "{err}"
        );
    }
}
