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
//!
//! This file holds the request table's decoding and the transfers; URBs,
//! submitted and reaped, are `urb.rs`; the text of a continuation line is
//! built by `line.rs`; the codes and layouts are `abi.rs`.

use crate::abi::gen_usbdevfs as k;
use crate::abi::xlat::ioctl::{CAP_FLAGS, DISCONNECT_CLAIM_FLAGS};
mod abi;
mod line;
mod urb;

use abi::*;
use line::{Line, buf_text, ptr_text};
use urb::{Urb, put_urb, reaped};

use super::raw::{i32_at, u8_at, u16_at, u32_at, u64_at};
use super::{IF_OUT, IoctlCall, IoctlGroup, Request};
use crate::decode::put_signal;
use crate::format::{Naming, Printer, quote};

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

/// A NUL-terminated name in a fixed `char[]` field, cut at the string limit.
fn c_string(bytes: &[u8], limit: usize) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let shown = end.min(limit);
    quote(&bytes[..shown], shown < end)
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
        u32_at(&d, k::usbdevfs_bulktransfer32::DATA.off) as u64
    } else {
        u64_at(&d, k::usbdevfs_bulktransfer::DATA.off)
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
        u32_at(&d, k::usbdevfs_ctrltransfer32::DATA.off) as u64
    } else {
        u64_at(&d, k::usbdevfs_ctrltransfer::DATA.off)
    };
    let text = buf_text(p, data, call.result as u64);
    p.continuation(&format!("> data={text}"));
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
