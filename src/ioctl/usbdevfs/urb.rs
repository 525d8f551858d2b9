//! URBs: a `struct usbdevfs_urb` (or the compat `usbdevfs_urb32`) as
//! SUBMITURB passes it, with the bytes an OUT transfer sends, and as
//! REAPURB finds it completed, on a continuation line with the bytes an IN
//! transfer read and an ISO URB's packet descriptors.

use super::USB_DIR_IN;
use super::abi::{ISO_DESCS_SHOWN, ISO_PACKETS_MAX, URB, URB32};
use super::line::{Line, buf_text, ptr_text};
use crate::abi::gen_usbdevfs as k;
use crate::abi::xlat::ioctl::URB_FLAGS;
use crate::decode::{put_signal, signal_name};
use crate::format::{Printer, flags_text};
use crate::ioctl::IoctlCall;
use crate::ioctl::raw::{i32_at, u8_at, u32_at, u64_at};

use crate::abi::xlat::ioctl::{
    USBDEVFS_URB_TYPE_BULK as URB_TYPE_BULK, USBDEVFS_URB_TYPE_CONTROL as URB_TYPE_CONTROL,
    USBDEVFS_URB_TYPE_INTERRUPT as URB_TYPE_INTERRUPT, USBDEVFS_URB_TYPE_ISO as URB_TYPE_ISO,
};

/// The name of a `USBDEVFS_URB_TYPE_*` value.
fn urb_type_name(t: u8) -> Option<&'static str> {
    match t {
        URB_TYPE_ISO => Some("USBDEVFS_URB_TYPE_ISO"),
        URB_TYPE_INTERRUPT => Some("USBDEVFS_URB_TYPE_INTERRUPT"),
        URB_TYPE_CONTROL => Some("USBDEVFS_URB_TYPE_CONTROL"),
        URB_TYPE_BULK => Some("USBDEVFS_URB_TYPE_BULK"),
        _ => None,
    }
}

/// Bytes of a control transfer's setup packet (`SETUP_LEN` of mon_bin.c,
/// `struct usb_ctrlrequest`).
const SETUP_LEN: usize = crate::abi::gen_usbmon::SETUP_LEN as usize;
/// Bytes of one `struct usbdevfs_iso_packet_desc`.
const ISO_DESC_LEN: usize = k::usbdevfs_iso_packet_desc::SIZEOF;
/// A `struct usbdevfs_urb` or `usbdevfs_urb32`, widened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Urb {
    kind: u8,
    endpoint: u8,
    status: i32,
    flags: u32,
    buffer: u64,
    buffer_length: i32,
    actual_length: i32,
    start_frame: i32,
    /// `number_of_packets` or `stream_id` (a union).
    packets: i32,
    error_count: i32,
    signr: u32,
    usercontext: u64,
}

impl Urb {
    /// Decode the native (56-byte) or compat (44-byte) layout.
    pub(super) fn parse(d: &[u8], compat: bool) -> Urb {
        if compat {
            use k::usbdevfs_urb32 as u;
            Urb {
                kind: u8_at(d, u::TYPE.off),
                endpoint: u8_at(d, u::ENDPOINT.off),
                status: i32_at(d, u::STATUS.off),
                flags: u32_at(d, u::FLAGS.off),
                buffer: u32_at(d, u::BUFFER.off) as u64,
                buffer_length: i32_at(d, u::BUFFER_LENGTH.off),
                actual_length: i32_at(d, u::ACTUAL_LENGTH.off),
                start_frame: i32_at(d, u::START_FRAME.off),
                packets: i32_at(d, u::NUMBER_OF_PACKETS.off),
                error_count: i32_at(d, u::ERROR_COUNT.off),
                signr: u32_at(d, u::SIGNR.off),
                usercontext: u32_at(d, u::USERCONTEXT.off) as u64,
            }
        } else {
            use k::usbdevfs_urb as u;
            Urb {
                kind: u8_at(d, u::TYPE.off),
                endpoint: u8_at(d, u::ENDPOINT.off),
                status: i32_at(d, u::STATUS.off),
                flags: u32_at(d, u::FLAGS.off),
                buffer: u64_at(d, u::BUFFER.off),
                buffer_length: i32_at(d, u::BUFFER_LENGTH.off),
                actual_length: i32_at(d, u::ACTUAL_LENGTH.off),
                start_frame: i32_at(d, u::START_FRAME.off),
                packets: i32_at(d, u::NUMBER_OF_PACKETS.off),
                error_count: i32_at(d, u::ERROR_COUNT.off),
                signr: u32_at(d, u::SIGNR.off),
                usercontext: u64_at(d, u::USERCONTEXT.off),
            }
        }
    }

    /// The union's name for this URB's type.
    fn packets_name(&self) -> &'static str {
        if self.kind == URB_TYPE_ISO {
            "number_of_packets"
        } else {
            "stream_id"
        }
    }

    /// Bytes of `buffer` the kernel reads for an OUT URB at submit time,
    /// given the control setup packet (if the URB is a control one and it
    /// was readable); `None` when the buffer is not sent as one run (IN
    /// transfers, ISO URBs) or the URB is invalid.
    fn out_bytes(&self, setup: Option<&[u8; SETUP_LEN]>) -> Option<u64> {
        let len = u64::try_from(self.buffer_length).ok()?;
        match self.kind {
            URB_TYPE_CONTROL => {
                let setup = setup?;
                let wlength = u16::from_le_bytes([setup[6], setup[7]]) as u64;
                let data = if setup[0] & USB_DIR_IN == 0 {
                    wlength
                } else {
                    0
                };
                // The setup packet, then the OUT data (cut at the buffer).
                Some((SETUP_LEN as u64 + data).min(len))
            }
            URB_TYPE_BULK | URB_TYPE_INTERRUPT if self.endpoint & USB_DIR_IN == 0 => Some(len),
            _ => None,
        }
    }

    /// Bytes of `buffer` worth showing after a reap: the setup packet and
    /// the data an IN transfer read; `None` for OUT and ISO URBs.
    fn in_bytes(&self, setup: Option<&[u8; SETUP_LEN]>) -> Option<u64> {
        let actual = u64::try_from(self.actual_length).ok()?;
        match self.kind {
            URB_TYPE_CONTROL => {
                let setup = setup?;
                (setup[0] & USB_DIR_IN != 0).then_some(SETUP_LEN as u64 + actual)
            }
            URB_TYPE_BULK | URB_TYPE_INTERRUPT if self.endpoint & USB_DIR_IN != 0 => Some(actual),
            _ => None,
        }
    }
}

/// Read a control URB's setup packet from the start of its buffer.
fn read_setup(p: &mut Printer, urb: &Urb) -> Option<[u8; SETUP_LEN]> {
    if urb.kind != URB_TYPE_CONTROL || urb.buffer_length < SETUP_LEN as i32 {
        return None;
    }
    let mut setup = [0u8; SETUP_LEN];
    p.mem().read_exact(urb.buffer, &mut setup).then_some(setup)
}

/// The fields of a URB being submitted, with the bytes an OUT URB sends
/// (a control URB's buffer starts with its setup packet).
pub(super) fn put_urb(p: &mut Printer, urb: &Urb) -> bool {
    p.symbol("type", urb.kind as i64, urb_type_name(urb.kind));
    p.hex("endpoint", urb.endpoint as u64);
    p.int("status", urb.status as i64);
    p.flags("flags", urb.flags as u64, URB_FLAGS);
    let setup = read_setup(p, urb);
    match urb.out_bytes(setup.as_ref()) {
        Some(len) if len > 0 => p.buf("buffer", urb.buffer, len),
        _ => p.ptr("buffer", urb.buffer),
    }
    p.int("buffer_length", urb.buffer_length as i64);
    p.int("actual_length", urb.actual_length as i64);
    p.int("start_frame", urb.start_frame as i64);
    if urb.kind == URB_TYPE_ISO {
        p.int(urb.packets_name(), urb.packets as i64);
    } else {
        p.uint(urb.packets_name(), urb.packets as u32 as u64);
    }
    p.int("error_count", urb.error_count as i64);
    put_signal(p, "signr", urb.signr as i64);
    p.ptr("usercontext", urb.usercontext);
    // An ISO URB's packet descriptors follow the struct, out of reach here.
    urb.kind != URB_TYPE_ISO || urb.packets <= 0
}

/// The URB a REAPURB call reaped: its address is what the kernel stored in
/// the argument; the kernel updated its status, lengths, error count, ISO
/// descriptors and, for IN transfers, its buffer.
pub(super) fn reaped(p: &mut Printer, compat: bool, call: &IoctlCall) {
    let mut raw = [0u8; 8];
    let psize = if compat { 4 } else { 8 };
    if !p.mem().read_exact(call.arg, &mut raw[..psize]) {
        return;
    }
    let addr = u64::from_le_bytes(raw);
    if addr == 0 {
        return;
    }
    let size = if compat { URB32.size } else { URB.size };
    let mut d = vec![0u8; size];
    if p.config().values_only >= 2 || !p.mem().read_exact(addr, &mut d) {
        p.continuation(&format!("> urb={}", ptr_text(addr)));
        return;
    }
    let urb = Urb::parse(&d, compat);
    let setup = read_setup(p, &urb);
    let buffer = match urb.in_bytes(setup.as_ref()) {
        Some(len) if len > 0 => buf_text(p, urb.buffer, len),
        _ => ptr_text(urb.buffer),
    };
    let descs = if urb.kind == URB_TYPE_ISO && urb.packets > 0 {
        let n = (urb.packets as usize).min(ISO_PACKETS_MAX);
        let mut raw = vec![0u8; n * ISO_DESC_LEN];
        let got = p.mem().read(addr + size as u64, &mut raw);
        raw.truncate(got / ISO_DESC_LEN * ISO_DESC_LEN);
        Some((raw, n))
    } else {
        None
    };
    let shown = if p.config().verbose > 0 {
        ISO_PACKETS_MAX
    } else {
        ISO_DESCS_SHOWN
    };
    let text = render_urb(
        &urb,
        &buffer,
        descs.as_ref().map(|(raw, n)| (raw.as_slice(), *n)),
        shown,
        &|number, names| p.spelling(number, names),
    );
    p.continuation(&format!("> urb={} {text}", ptr_text(addr)));
}

/// How a value built into a continuation line is spelled: given its
/// `-X raw` number and its names, [`Printer::spelling`]'s text.
type Spell<'s> = &'s dyn Fn(&str, Option<&str>) -> String;

/// A reaped URB as text: `{type=..., ..., usercontext=...}`, with the
/// buffer already rendered and the ISO descriptors read (`raw`, of `n`
/// wanted; the ones that could not be read end the array with `..`).
fn render_urb(
    urb: &Urb,
    buffer: &str,
    descs: Option<(&[u8], usize)>,
    shown: usize,
    spell: Spell,
) -> String {
    let mut l = Line::default();
    l.open("", "{");
    l.field(
        "type",
        &spell(&urb.kind.to_string(), urb_type_name(urb.kind)),
    );
    l.field("endpoint", &format!("0x{:x}", urb.endpoint));
    l.field("status", &urb.status.to_string());
    let flags = urb.flags as u64;
    let names = flags_text(flags, URB_FLAGS, true);
    l.field("flags", &spell(&format!("0x{flags:x}"), Some(&names)));
    l.field("buffer", buffer);
    l.field("buffer_length", &urb.buffer_length.to_string());
    l.field("actual_length", &urb.actual_length.to_string());
    l.field("start_frame", &urb.start_frame.to_string());
    let packets = if urb.kind == URB_TYPE_ISO {
        urb.packets.to_string()
    } else {
        (urb.packets as u32).to_string()
    };
    l.field(urb.packets_name(), &packets);
    l.field("error_count", &urb.error_count.to_string());
    let signr = urb.signr as i32;
    l.field(
        "signr",
        &spell(&signr.to_string(), signal_name(signr).as_deref()),
    );
    l.field("usercontext", &ptr_text(urb.usercontext));
    if let Some((raw, n)) = descs {
        l.open("iso_frame_desc", "[");
        let read = raw.len() / ISO_DESC_LEN;
        for i in 0..read.min(shown) {
            let at = i * ISO_DESC_LEN;
            l.open("", "{");
            use k::usbdevfs_iso_packet_desc as desc;
            l.field("length", &u32_at(raw, at + desc::LENGTH.off).to_string());
            l.field(
                "actual_length",
                &u32_at(raw, at + desc::ACTUAL_LENGTH.off).to_string(),
            );
            l.field("status", &i32_at(raw, at + desc::STATUS.off).to_string());
            l.close("}");
        }
        if read.min(shown) < n {
            l.more();
        }
        l.close("]");
    }
    l.close("}");
    l.text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urb_bytes(kind: u8, endpoint: u8, buffer: u64, len: i32, actual: i32) -> [u8; 56] {
        let mut d = [0u8; 56];
        d[0] = kind;
        d[1] = endpoint;
        d[16..24].copy_from_slice(&buffer.to_le_bytes());
        d[24..28].copy_from_slice(&len.to_le_bytes());
        d[28..32].copy_from_slice(&actual.to_le_bytes());
        d
    }

    #[test]
    fn native_and_compat_urbs_decode_alike() {
        let native = urb_bytes(URB_TYPE_BULK, 0x81, 0x1234_5678, 64, 5);
        let mut compat = [0u8; 44];
        compat[0] = URB_TYPE_BULK;
        compat[1] = 0x81;
        compat[12..16].copy_from_slice(&0x1234_5678u32.to_le_bytes());
        compat[16..20].copy_from_slice(&64i32.to_le_bytes());
        compat[20..24].copy_from_slice(&5i32.to_le_bytes());
        assert_eq!(Urb::parse(&native, false), Urb::parse(&compat, true));
    }

    #[test]
    fn urb_data_directions() {
        let out = Urb::parse(&urb_bytes(URB_TYPE_BULK, 0x02, 1, 10, 0), false);
        assert_eq!(out.out_bytes(None), Some(10));
        assert_eq!(out.in_bytes(None), None);
        let inb = Urb::parse(&urb_bytes(URB_TYPE_INTERRUPT, 0x81, 1, 64, 3), false);
        assert_eq!(inb.out_bytes(None), None);
        assert_eq!(inb.in_bytes(None), Some(3));
        // Control URBs: the setup packet decides; OUT data follows it.
        let ctl = Urb::parse(&urb_bytes(URB_TYPE_CONTROL, 0, 1, 12, 18), false);
        let set_report = [0x21, 0x09, 0, 2, 0, 0, 4, 0];
        assert_eq!(ctl.out_bytes(Some(&set_report)), Some(12));
        assert_eq!(ctl.in_bytes(Some(&set_report)), None);
        let get_descriptor = [0x80, 0x06, 0, 1, 0, 0, 18, 0];
        assert_eq!(ctl.out_bytes(Some(&get_descriptor)), Some(8));
        assert_eq!(ctl.in_bytes(Some(&get_descriptor)), Some(26));
        let iso = Urb::parse(&urb_bytes(URB_TYPE_ISO, 0x02, 1, 10, 0), false);
        assert_eq!(iso.out_bytes(None), None);
    }

    /// The default spelling: the names.
    fn names(number: &str, names: Option<&str>) -> String {
        names.unwrap_or(number).to_string()
    }

    /// `-X raw`'s spelling: the numbers.
    fn numbers(number: &str, _: Option<&str>) -> String {
        number.to_string()
    }

    #[test]
    fn reaped_urbs_render_in_struct_order() {
        let mut d = urb_bytes(URB_TYPE_BULK, 0x81, 0x5000_0000, 64, 5);
        d[44..48].copy_from_slice(&10u32.to_le_bytes());
        let urb = Urb::parse(&d, false);
        assert_eq!(
            render_urb(&urb, "\"hello\"", None, 8, &names),
            "{type=USBDEVFS_URB_TYPE_BULK, endpoint=0x81, status=0, flags=0, \
             buffer=\"hello\", buffer_length=64, actual_length=5, start_frame=0, \
             stream_id=0, error_count=0, signr=SIGUSR1, usercontext=NULL}"
        );
        assert_eq!(
            render_urb(&urb, "&0x50000000", None, 8, &numbers),
            "{type=3, endpoint=0x81, status=0, flags=0x0, buffer=&0x50000000, \
             buffer_length=64, actual_length=5, start_frame=0, stream_id=0, \
             error_count=0, signr=10, usercontext=NULL}"
        );
    }

    #[test]
    fn reaped_iso_urbs_show_their_packets() {
        let mut d = urb_bytes(URB_TYPE_ISO, 0x82, 0x5000_0000, 0, 7);
        d[4..8].copy_from_slice(&(-18i32).to_le_bytes());
        d[8..12].copy_from_slice(&2u32.to_le_bytes());
        d[36..40].copy_from_slice(&3i32.to_le_bytes());
        let urb = Urb::parse(&d, false);
        let mut descs = Vec::new();
        for (len, actual, status) in [(4u32, 4u32, 0i32), (4, 3, 0), (4, 0, -18)] {
            descs.extend_from_slice(&len.to_le_bytes());
            descs.extend_from_slice(&actual.to_le_bytes());
            descs.extend_from_slice(&status.to_le_bytes());
        }
        let text = render_urb(&urb, "&0x50000000", Some((&descs, 3)), 2, &names);
        assert_eq!(
            text,
            "{type=USBDEVFS_URB_TYPE_ISO, endpoint=0x82, status=-18, \
             flags=USBDEVFS_URB_ISO_ASAP, buffer=&0x50000000, buffer_length=0, \
             actual_length=7, start_frame=0, number_of_packets=3, error_count=0, \
             signr=0, usercontext=NULL, iso_frame_desc=[{length=4, actual_length=4, \
             status=0}, {length=4, actual_length=3, status=0}, ..]}"
        );
    }
}
