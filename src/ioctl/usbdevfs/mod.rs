//! The usbdevfs group ('U'): `/dev/bus/usb/BBB/DDD`, as libusb and libpcap
//! use it (`<linux/usbdevice_fs.h>`).
//!
//! Codes and layouts are the x86_64 ones, checked by compiling against the
//! real header; the `*32` codes are what 32-bit programs pass (their structs,
//! `struct usbdevfs_ctrltransfer32` and friends, live in the kernel's
//! include/linux/usbdevice_fs.h, not in the uapi header).
//!
//! Many usbdevfs codes are declared `_IOR` although drivers/usb/core/devio.c
//! reads them from the program (CLAIMINTERFACE, SUBMITURB, ...), or `_IOW`
//! although it writes them (GETDRIVER, CONNECTINFO, REAPURB): those entries
//! are [`Request::legacy`] with the directions devio.c really uses.
//!
//! What a successful call wrote through pointers inside its argument is
//! printed as an extended result on a continuation line:
//!
//! - CONTROL and BULK IN transfers: the bytes read. The call's result is the
//!   count transferred, which only [`IoctlGroup::extended`] sees, so the
//!   struct itself is decoded only before the call (the kernel never writes
//!   it back) and the data follows as `> data="..."`.
//! - REAPURB and REAPURBNDELAY: the kernel stores the address of the
//!   completed URB in the argument (a `void **`) and updates that URB; the
//!   argument prints as a pointer and the reaped URB follows as
//!   `> urb=&0x... {...}`, with the bytes an IN transfer read.
//! - USBDEVFS_IOCTL with the inner code USBDEVFS_HUB_PORTINFO: the port table.

use crate::abi::gen_usbdevfs as k;
use crate::abi::xlat::ioctl::{CAP_FLAGS, DISCONNECT_CLAIM_FLAGS, URB_FLAGS};
mod abi;

use abi::*;

use super::raw::{i32_at, u8_at, u16_at, u32_at, u64_at};
use super::{IF_OUT, IoctlCall, IoctlGroup, Request};
use crate::decode::{put_signal, signal_name};
use crate::format::{Naming, Printer, flags_text, quote};

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

/// `USB_SPEED_*` from `<linux/usb/ch9.h>`.
fn speed_name(speed: u32) -> Option<&'static str> {
    Some(match speed {
        0 => "USB_SPEED_UNKNOWN",
        1 => "USB_SPEED_LOW",
        2 => "USB_SPEED_FULL",
        3 => "USB_SPEED_HIGH",
        4 => "USB_SPEED_WIRELESS",
        5 => "USB_SPEED_SUPER",
        6 => "USB_SPEED_SUPER_PLUS",
        _ => return None,
    })
}

// `USB_DIR_IN`: the direction bit of an endpoint address and of
// `bRequestType`.
use crate::abi::xlat::ioctl::USB_DIR_IN;
/// Bytes of a control transfer's setup packet (`SETUP_LEN` of mon_bin.c,
/// `struct usb_ctrlrequest`).
const SETUP_LEN: usize = crate::abi::gen_usbmon::SETUP_LEN as usize;
/// devio.c's limit on an ISO URB's packets.
const ISO_PACKETS_MAX: usize = 128;
/// Bytes of one `struct usbdevfs_iso_packet_desc`.
const ISO_DESC_LEN: usize = k::usbdevfs_iso_packet_desc::SIZEOF;
/// ISO descriptors a reaped URB shows before `..` (without -v).
const ISO_DESCS_SHOWN: usize = 8;

/// A `struct usbdevfs_urb` or `usbdevfs_urb32`, widened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Urb {
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
    fn parse(d: &[u8], compat: bool) -> Urb {
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

/// A NUL-terminated name in a fixed `char[]` field, cut at the string limit.
fn c_string(bytes: &[u8], limit: usize) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let shown = end.min(limit);
    quote(&bytes[..shown], shown < end)
}

/// A pointer as [`Printer::ptr`] prints it.
fn ptr_text(addr: u64) -> String {
    if addr == 0 {
        "NULL".to_string()
    } else {
        format!("&0x{addr:x}")
    }
}

/// `len` bytes at `addr` as [`Printer::buf`] prints them, for a
/// continuation line.
fn buf_text(p: &mut Printer, addr: u64, len: u64) -> String {
    let limit = p.config().string_limit;
    let want = (len as usize).min(limit);
    let mut bytes = vec![0u8; want];
    if addr == 0 || p.mem().read(addr, &mut bytes) < want {
        return ptr_text(addr);
    }
    quote(&bytes, len as usize > want)
}

/// A struct on a continuation line, in the Printer's field grammar.
#[derive(Default)]
struct Line {
    text: String,
    /// Per open level: whether a separator is owed.
    seps: Vec<bool>,
}

impl Line {
    fn item(&mut self, name: &str) {
        if let Some(sep) = self.seps.last_mut() {
            if *sep {
                self.text.push_str(", ");
            }
            *sep = true;
        }
        if !name.is_empty() {
            self.text.push_str(name);
            self.text.push('=');
        }
    }

    fn field(&mut self, name: &str, value: &str) {
        self.item(name);
        self.text.push_str(value);
    }

    fn open(&mut self, name: &str, opener: &str) {
        self.item(name);
        self.text.push_str(opener);
        self.seps.push(false);
    }

    fn close(&mut self, closer: &str) {
        self.seps.pop();
        self.text.push_str(closer);
    }

    fn more(&mut self) {
        self.item("");
        self.text.push_str("..");
    }
}

/// The usbdevfs group.
pub struct Usbdevfs;

/// The one instance the dispatcher uses.
pub static USBDEVFS: Usbdevfs = Usbdevfs;

impl IoctlGroup for Usbdevfs {
    fn name(&self) -> &'static str {
        "usbdevfs"
    }

    fn headers(&self) -> &'static [&'static str] {
        &["linux/usbdevice_fs.h"]
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, p: &mut Printer, req: &Request, d: &[u8], phase: u8) -> bool {
        match req.code {
            USBDEVFS_CONTROL => {
                put_ctrltransfer(p, d, u64_at(d, k::usbdevfs_ctrltransfer::DATA.off))
            }
            USBDEVFS_CONTROL32 => {
                put_ctrltransfer(p, d, u32_at(d, k::usbdevfs_ctrltransfer32::DATA.off) as u64)
            }
            USBDEVFS_BULK => put_bulktransfer(p, d, u64_at(d, k::usbdevfs_bulktransfer::DATA.off)),
            USBDEVFS_BULK32 => {
                put_bulktransfer(p, d, u32_at(d, k::usbdevfs_bulktransfer32::DATA.off) as u64)
            }
            USBDEVFS_SETINTERFACE => {
                p.uint("interface", u32_at(d, 0) as u64);
                p.uint("altsetting", u32_at(d, 4) as u64);
                true
            }
            USBDEVFS_GETDRIVER => {
                p.uint("interface", u32_at(d, 0) as u64);
                if phase == IF_OUT {
                    // The driver name is the kernel's answer.
                    return false;
                }
                let limit = p.config().string_limit;
                p.field("driver", &c_string(&d[4..260], limit));
                true
            }
            USBDEVFS_SUBMITURB => put_urb(p, &Urb::parse(d, false)),
            USBDEVFS_SUBMITURB32 => put_urb(p, &Urb::parse(d, true)),
            USBDEVFS_DISCSIGNAL => {
                put_signal(
                    p,
                    "signr",
                    u32_at(d, k::usbdevfs_disconnectsignal::SIGNR.off) as i64,
                );
                p.ptr(
                    "context",
                    u64_at(d, k::usbdevfs_disconnectsignal::CONTEXT.off),
                );
                true
            }
            USBDEVFS_DISCSIGNAL32 => {
                use k::usbdevfs_disconnectsignal32 as ds;
                put_signal(p, "signr", i32_at(d, ds::SIGNR.off) as i64);
                p.ptr("context", u32_at(d, ds::CONTEXT.off) as u64);
                true
            }
            USBDEVFS_CONNECTINFO => {
                p.uint("devnum", u32_at(d, 0) as u64);
                p.uint("slow", u8_at(d, 4) as u64);
                true
            }
            USBDEVFS_IOCTL => put_ioctl(p, d, u64_at(d, k::usbdevfs_ioctl::DATA.off)),
            USBDEVFS_IOCTL32 => put_ioctl(p, d, u32_at(d, k::usbdevfs_ioctl32::DATA.off) as u64),
            USBDEVFS_HUB_PORTINFO => {
                put_portinfo(p, d);
                true
            }
            USBDEVFS_GET_CAPABILITIES => {
                p.flags("caps", u32_at(d, 0) as u64, CAP_FLAGS);
                true
            }
            USBDEVFS_DISCONNECT_CLAIM => {
                p.uint("interface", u32_at(d, 0) as u64);
                p.flags("flags", u32_at(d, 4) as u64, DISCONNECT_CLAIM_FLAGS);
                let limit = p.config().string_limit;
                p.field("driver", &c_string(&d[8..264], limit));
                true
            }
            USBDEVFS_ALLOC_STREAMS | USBDEVFS_FREE_STREAMS => {
                let num_eps = u32_at(d, 4);
                p.uint("num_streams", u32_at(d, 0) as u64);
                p.uint("num_eps", num_eps as u64);
                // The endpoint addresses follow the struct, out of reach here.
                num_eps == 0
            }
            USBDEVFS_CONNINFO_EX_CURRENT => {
                p.uint("size", u32_at(d, 0) as u64);
                p.uint("busnum", u32_at(d, 4) as u64);
                p.uint("devnum", u32_at(d, 8) as u64);
                let speed = u32_at(d, 12);
                p.symbol("speed", speed as i64, speed_name(speed));
                let num_ports = u8_at(d, 16);
                p.uint("num_ports", num_ports as u64);
                p.open("ports", "[", Naming::Elements);
                for i in 0..(num_ports as usize).min(7) {
                    p.uint("", u8_at(d, 17 + i) as u64);
                }
                p.close("]");
                true
            }
            _ => false,
        }
    }

    fn extended(&self, p: &mut Printer, req: &Request, call: &IoctlCall) {
        match req.code {
            USBDEVFS_CONTROL | USBDEVFS_CONTROL32 => control_read(p, req.code, call),
            USBDEVFS_BULK | USBDEVFS_BULK32 => bulk_read(p, req.code, call),
            USBDEVFS_REAPURB | USBDEVFS_REAPURBNDELAY => reaped(p, false, call),
            USBDEVFS_REAPURB32 | USBDEVFS_REAPURBNDELAY32 => reaped(p, true, call),
            USBDEVFS_IOCTL | USBDEVFS_IOCTL32 => inner_ioctl_result(p, req.code, call),
            _ => {}
        }
    }
}

/// The fields of a control transfer; `data` is the OUT bytes, or the
/// pointer for an IN transfer (what it reads follows the result).
fn put_ctrltransfer(p: &mut Printer, d: &[u8], data: u64) -> bool {
    let request_type = u8_at(d, 0);
    let wlength = u16_at(d, 6);
    p.hex("bRequestType", request_type as u64);
    p.uint("bRequest", u8_at(d, 1) as u64);
    p.hex("wValue", u16_at(d, 2) as u64);
    p.hex("wIndex", u16_at(d, 4) as u64);
    p.uint("wLength", wlength as u64);
    p.uint("timeout", u32_at(d, 8) as u64);
    if request_type & USB_DIR_IN == 0 && wlength > 0 {
        p.buf("data", data, wlength as u64);
    } else {
        p.ptr("data", data);
    }
    true
}

/// The fields of a bulk transfer; `data` as for a control transfer, by the
/// endpoint's direction.
fn put_bulktransfer(p: &mut Printer, d: &[u8], data: u64) -> bool {
    let ep = u32_at(d, 0);
    let len = u32_at(d, 4);
    p.hex("ep", ep as u64);
    p.uint("len", len as u64);
    p.uint("timeout", u32_at(d, 8) as u64);
    if ep & USB_DIR_IN as u32 == 0 && len > 0 {
        p.buf("data", data, len as u64);
    } else {
        p.ptr("data", data);
    }
    true
}

/// The fields of a URB being submitted, with the bytes an OUT URB sends
/// (a control URB's buffer starts with its setup packet).
fn put_urb(p: &mut Printer, urb: &Urb) -> bool {
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

/// The fields of `struct usbdevfs_ioctl`: the inner code by name.
fn put_ioctl(p: &mut Printer, d: &[u8], data: u64) -> bool {
    let code = u32_at(d, 4);
    p.int("ifno", i32_at(d, 0) as i64);
    if !p.values_style() {
        // Inner codes are the interface driver's; the ones usbdevfs
        // defines for this use (DISCONNECT, CONNECT, HUB_PORTINFO) by name.
        let text = match REQUESTS.iter().find(|r| r.code == code) {
            Some(req) => req.name.to_string(),
            None => super::request_text(code as u64),
        };
        let json = serde_json::Value::String(text.clone());
        p.spelled("ioctl_code", &format!("0x{code:x}"), &text, || json);
    } else {
        p.hex("ioctl_code", code as u64);
    }
    p.ptr("data", data);
    true
}

/// The fields of `struct usbdevfs_hub_portinfo`: the first `nports` ports.
fn put_portinfo(p: &mut Printer, d: &[u8]) {
    let nports = d[0] as i8;
    p.int("nports", nports as i64);
    p.open("port", "[", Naming::Elements);
    for i in 0..(nports.max(0) as usize).min(127) {
        p.int("", d[1 + i] as i8 as i64);
    }
    p.close("]");
}

/// The struct of a CONTROL or BULK call, read again after it: the kernel
/// does not change it.
fn reread(p: &mut Printer, addr: u64, compat: bool) -> Option<Vec<u8>> {
    let mut raw = vec![0u8; if compat { 16 } else { 24 }];
    p.mem().read_exact(addr, &mut raw).then_some(raw)
}

/// The bytes a CONTROL IN transfer read: as many as the call returned.
fn control_read(p: &mut Printer, code: u32, call: &IoctlCall) {
    let compat = code == USBDEVFS_CONTROL32;
    if call.result <= 0 {
        return;
    }
    let Some(d) = reread(p, call.arg, compat) else {
        return;
    };
    if u8_at(&d, 0) & USB_DIR_IN == 0 {
        return;
    }
    let data = if compat {
        u32_at(&d, k::usbdevfs_ctrltransfer32::DATA.off) as u64
    } else {
        u64_at(&d, k::usbdevfs_ctrltransfer::DATA.off)
    };
    let text = buf_text(p, data, call.result as u64);
    p.continuation(&format!("> data={text}"));
}

/// The bytes a BULK IN transfer read: as many as the call returned.
fn bulk_read(p: &mut Printer, code: u32, call: &IoctlCall) {
    let compat = code == USBDEVFS_BULK32;
    if call.result <= 0 {
        return;
    }
    let Some(d) = reread(p, call.arg, compat) else {
        return;
    };
    if u32_at(&d, 0) & USB_DIR_IN as u32 == 0 {
        return;
    }
    let data = if compat {
        u32_at(&d, k::usbdevfs_bulktransfer32::DATA.off) as u64
    } else {
        u64_at(&d, k::usbdevfs_bulktransfer::DATA.off)
    };
    let text = buf_text(p, data, call.result as u64);
    p.continuation(&format!("> data={text}"));
}

/// The URB a REAPURB call reaped: its address is what the kernel stored in
/// the argument; the kernel updated its status, lengths, error count, ISO
/// descriptors and, for IN transfers, its buffer.
fn reaped(p: &mut Printer, compat: bool, call: &IoctlCall) {
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

/// What an inner USBDEVFS_HUB_PORTINFO wrote to the caller's `data`.
fn inner_ioctl_result(p: &mut Printer, code: u32, call: &IoctlCall) {
    let compat = code == USBDEVFS_IOCTL32;
    let mut raw = vec![0u8; if compat { IOCTL32.size } else { IOCTL.size }];
    // ifno and ioctl_code sit alike in both layouts.
    let code_at = k::usbdevfs_ioctl::IOCTL_CODE.off;
    if !p.mem().read_exact(call.arg, &mut raw) || u32_at(&raw, code_at) != USBDEVFS_HUB_PORTINFO {
        return;
    }
    let data = if compat {
        u32_at(&raw, k::usbdevfs_ioctl32::DATA.off) as u64
    } else {
        u64_at(&raw, k::usbdevfs_ioctl::DATA.off)
    };
    let mut info = [0u8; 128];
    if p.config().values_only >= 2 || !p.mem().read_exact(data, &mut info) {
        p.continuation(&format!("> data={}", ptr_text(data)));
        return;
    }
    p.continuation(&format!("> data={}", render_portinfo(&info)));
}

/// `struct usbdevfs_hub_portinfo` as text: `{nports=2, port=[0, 3]}`.
fn render_portinfo(d: &[u8]) -> String {
    let nports = d[0] as i8;
    let mut l = Line::default();
    l.open("", "{");
    l.field("nports", &nports.to_string());
    l.open("port", "[");
    for i in 0..(nports.max(0) as usize).min(127) {
        l.field("", &(d[1 + i] as i8).to_string());
    }
    l.close("]");
    l.close("}");
    l.text
}

#[cfg(test)]
mod tests {
    use super::super::{Arg, Layout, ioc_fields};
    use super::*;

    /// Values printed by a C program compiled against `<linux/usbdevice_fs.h>`
    /// on x86_64 (the `*32` codes with the compat structs of the kernel's
    /// include/linux/usbdevice_fs.h, and again as i386's native codes).
    const VERIFIED: &[(&str, u32)] = &[
        ("USBDEVFS_CONTROL", 0xc018_5500),
        ("USBDEVFS_CONTROL32", 0xc010_5500),
        ("USBDEVFS_BULK", 0xc018_5502),
        ("USBDEVFS_BULK32", 0xc010_5502),
        ("USBDEVFS_RESETEP", 0x8004_5503),
        ("USBDEVFS_SETINTERFACE", 0x8008_5504),
        ("USBDEVFS_SETCONFIGURATION", 0x8004_5505),
        ("USBDEVFS_GETDRIVER", 0x4104_5508),
        ("USBDEVFS_SUBMITURB", 0x8038_550a),
        ("USBDEVFS_SUBMITURB32", 0x802c_550a),
        ("USBDEVFS_DISCARDURB", 0x0000_550b),
        ("USBDEVFS_REAPURB", 0x4008_550c),
        ("USBDEVFS_REAPURB32", 0x4004_550c),
        ("USBDEVFS_REAPURBNDELAY", 0x4008_550d),
        ("USBDEVFS_REAPURBNDELAY32", 0x4004_550d),
        ("USBDEVFS_DISCSIGNAL", 0x8010_550e),
        ("USBDEVFS_DISCSIGNAL32", 0x8008_550e),
        ("USBDEVFS_CLAIMINTERFACE", 0x8004_550f),
        ("USBDEVFS_RELEASEINTERFACE", 0x8004_5510),
        ("USBDEVFS_CONNECTINFO", 0x4008_5511),
        ("USBDEVFS_IOCTL", 0xc010_5512),
        ("USBDEVFS_IOCTL32", 0xc00c_5512),
        ("USBDEVFS_HUB_PORTINFO", 0x8080_5513),
        ("USBDEVFS_RESET", 0x0000_5514),
        ("USBDEVFS_CLEAR_HALT", 0x8004_5515),
        ("USBDEVFS_DISCONNECT", 0x0000_5516),
        ("USBDEVFS_CONNECT", 0x0000_5517),
        ("USBDEVFS_CLAIM_PORT", 0x8004_5518),
        ("USBDEVFS_RELEASE_PORT", 0x8004_5519),
        ("USBDEVFS_GET_CAPABILITIES", 0x8004_551a),
        ("USBDEVFS_DISCONNECT_CLAIM", 0x8108_551b),
        ("USBDEVFS_ALLOC_STREAMS", 0x8008_551c),
        ("USBDEVFS_FREE_STREAMS", 0x8008_551d),
        ("USBDEVFS_DROP_PRIVILEGES", 0x4004_551e),
        ("USBDEVFS_GET_SPEED", 0x0000_551f),
        ("USBDEVFS_CONNINFO_EX(24)", 0x8018_5520),
        ("USBDEVFS_FORBID_SUSPEND", 0x0000_5521),
        ("USBDEVFS_ALLOW_SUSPEND", 0x0000_5522),
        ("USBDEVFS_WAIT_FOR_RESUME", 0x0000_5523),
    ];

    #[test]
    fn codes_match_the_header() {
        assert_eq!(REQUESTS.len(), VERIFIED.len());
        for &(name, code) in VERIFIED {
            let req = REQUESTS
                .iter()
                .find(|r| r.name == name)
                .unwrap_or_else(|| panic!("{name} missing"));
            assert_eq!(req.code, code, "{name}");
        }
    }

    #[test]
    fn struct_sizes_match_the_codes_even_where_directions_lie() {
        for req in REQUESTS {
            if let Arg::Struct(layout) = req.arg {
                assert_eq!(
                    layout.size as u64,
                    ioc_fields(req.code as u64).size,
                    "{}",
                    req.name
                );
            }
        }
    }

    #[test]
    fn layouts_match_the_header() {
        // offsetof() values from <linux/usbdevice_fs.h> on x86_64.
        let at = |l: &Layout, name: &str| {
            let f = l.fields.iter().find(|f| f.name == name).unwrap();
            (f.offset, f.size)
        };
        assert_eq!(at(&CTRLTRANSFER, "timeout"), (8, 4));
        assert_eq!(at(&CTRLTRANSFER, "data"), (16, 8));
        assert_eq!(at(&BULKTRANSFER, "data"), (16, 8));
        assert_eq!(at(&DISCONNECTSIGNAL, "context"), (8, 8));
        assert_eq!(at(&URB, "buffer"), (16, 8));
        assert_eq!(at(&URB, "stream_id"), (36, 4));
        assert_eq!(at(&URB, "usercontext"), (48, 8));
        assert_eq!(at(&URB32, "usercontext"), (40, 4));
        assert_eq!(at(&CONNINFO_EX, "ports"), (17, 7));
        assert_eq!(at(&DISCONNECT_CLAIM, "driver"), (8, 256));
        assert_eq!(at(&IOCTL, "data"), (8, 8));
    }

    #[test]
    fn explain_shows_the_control_layout() {
        let text = crate::ioctl::explain::explain(0xc018_5500);
        assert!(
            text.contains(
                "  argument: pointer to struct usbdevfs_ctrltransfer, decoded before the call"
            ),
            "{text}"
        );
        assert!(text.contains("    @16  8  void * data"), "{text}");
    }

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

    #[test]
    fn port_tables_and_driver_names() {
        let mut info = [0u8; 128];
        info[0] = 3;
        info[1..4].copy_from_slice(&[0, 5, 0]);
        assert_eq!(render_portinfo(&info), "{nports=3, port=[0, 5, 0]}");
        let mut name = [0u8; 256];
        name[..5].copy_from_slice(b"usbfs");
        assert_eq!(c_string(&name, 32), "\"usbfs\"");
        assert_eq!(c_string(&name, 3), "\"usb\"..");
        assert_eq!(c_string(&[b'x'; 256], 256).len(), 258);
    }
}
