//! Video4Linux2 (`<linux/videodev2.h>`): the requests a capture program
//! makes first on `/dev/videoN`, which the kernel's BTF rarely describes
//! (its structs live in the videodev module): what the device is
//! (VIDIOC_QUERYCAP), which pixel formats it offers (VIDIOC_ENUM_FMT),
//! buffers (VIDIOC_REQBUFS) and the input (VIDIOC_G_INPUT,
//! VIDIOC_S_INPUT). As strace shows them:
//!
//! ```text
//! ioctl(3, VIDIOC_QUERYCAP, {driver="uvcvideo", card="HD Camera", bus_info="usb-0000:00:14.0-1",
//!     version=KERNEL_VERSION(6, 1, 0), capabilities=V4L2_CAP_VIDEO_CAPTURE|...|V4L2_CAP_DEVICE_CAPS,
//!     device_caps=V4L2_CAP_VIDEO_CAPTURE|V4L2_CAP_STREAMING}) = 0
//! ioctl(3, VIDIOC_ENUM_FMT, {index=0, type=V4L2_BUF_TYPE_VIDEO_CAPTURE}) = 0
//!     {flags=V4L2_FMT_FLAG_COMPRESSED, description="Motion-JPEG", pixelformat=V4L2_PIX_FMT_MJPEG}
//! ioctl(3, VIDIOC_REQBUFS, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, memory=V4L2_MEMORY_MMAP, count=4}) = 0 {count=4}
//! ```
//!
//! A pixel format no header names prints as its four characters,
//! `v4l2_fourcc('J', 'P', 'G', 'L')`. The structs hold only `__u32`s and
//! `__u8`s, so they are the same on i386; their layouts and every name
//! are generated (src/abi/xlat/ioctl.rs). The other V4L2 requests print
//! as their bytes ("ioctl arguments no group decodes").

use super::{Arg, IF_IN, IF_OUT, IoctlGroup, Layout, Request};
use crate::abi::layout::{self, Field};
use crate::abi::xlat::ioctl::{
    V4L2_BUF_CAPS, V4L2_BUF_TYPES, V4L2_CAPABILITY, V4L2_CAPS, V4L2_FMT_FLAGS, V4L2_FMTDESC,
    V4L2_MEMORIES, V4L2_PIX_FMTS, V4L2_REQUESTBUFFERS, VIDIOC_ENUM_FMT, VIDIOC_G_INPUT,
    VIDIOC_QUERYCAP, VIDIOC_REQBUFS, VIDIOC_S_INPUT,
};
use crate::format::{Naming, Printer};

/// `struct v4l2_capability` (fields: `V4L2_CAPABILITY`, generated).
pub static CAPABILITY: Layout = Layout {
    name: "v4l2_capability",
    size: 104,
    fields: &[],
};

/// `struct v4l2_fmtdesc` (fields: `V4L2_FMTDESC`, generated).
pub static FMTDESC: Layout = Layout {
    name: "v4l2_fmtdesc",
    size: 64,
    fields: &[],
};

/// `struct v4l2_requestbuffers` (fields: `V4L2_REQUESTBUFFERS`, generated).
pub static REQUESTBUFFERS: Layout = Layout {
    name: "v4l2_requestbuffers",
    size: 20,
    fields: &[],
};

static REQUESTS: &[Request] = &[
    Request::new(
        VIDIOC_QUERYCAP,
        "VIDIOC_QUERYCAP",
        IF_IN,
        Arg::Struct(&CAPABILITY),
    ),
    Request::new(
        VIDIOC_ENUM_FMT,
        "VIDIOC_ENUM_FMT",
        IF_OUT | IF_IN,
        Arg::Struct(&FMTDESC),
    ),
    Request::new(
        VIDIOC_REQBUFS,
        "VIDIOC_REQBUFS",
        IF_OUT | IF_IN,
        Arg::Struct(&REQUESTBUFFERS),
    ),
    Request::new(VIDIOC_G_INPUT, "VIDIOC_G_INPUT", IF_IN, Arg::Int),
    Request::new(VIDIOC_S_INPUT, "VIDIOC_S_INPUT", IF_OUT, Arg::Int),
];

/// The V4L2 group.
pub struct V4l2;

/// The one instance the dispatcher uses.
pub static V4L2: V4l2 = V4l2;

impl IoctlGroup for V4l2 {
    fn name(&self) -> &'static str {
        "v4l2"
    }

    fn headers(&self) -> &'static [&'static str] {
        &["linux/videodev2.h"]
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, p: &mut Printer, req: &Request, d: &[u8], phase: u8) -> bool {
        match req.code {
            VIDIOC_QUERYCAP => put_capability(p, d),
            VIDIOC_ENUM_FMT => put_fmtdesc(p, d, phase),
            VIDIOC_REQBUFS => put_requestbuffers(p, d, phase),
            _ => false,
        }
    }
}

/// The value of field `name` of `fields` in `d`.
fn val(fields: &[Field], name: &str, d: &[u8]) -> u64 {
    layout::field(fields, name).read(d).unwrap_or(0)
}

/// A name array of `fields` in `d`: a C string the driver fills with
/// `strscpy()`, so at most all but the last byte; up to its NUL, or cut
/// there and marked when the bytes have none.
fn put_name(p: &mut Printer, fields: &[Field], name: &str, d: &[u8]) {
    let f = layout::field(fields, name);
    let room = &d[f.off..f.end() - 1];
    match room.iter().position(|&b| b == 0) {
        Some(end) => p.string(name, &room[..end], false),
        None => p.string(name, room, true),
    }
}

/// A value of one of the generated tables, by name.
fn put_value(p: &mut Printer, name: &str, value: u64, table: &[(u64, &'static str)]) {
    let sym = table.iter().find(|(v, _)| *v == value).map(|(_, n)| *n);
    p.symbol(name, value as i64, sym);
}

fn put_capability(p: &mut Printer, d: &[u8]) -> bool {
    let f = V4L2_CAPABILITY;
    for name in ["driver", "card", "bus_info"] {
        put_name(p, f, name, d);
    }
    let version = val(f, "version", d);
    if p.symbols() {
        p.open("version", "KERNEL_VERSION(", Naming::Elements);
        p.uint("", version >> 16);
        p.uint("", (version >> 8) & 0xff);
        p.uint("", version & 0xff);
        p.close(")");
    } else {
        p.hex("version", version);
    }
    let caps = val(f, "capabilities", d);
    p.flags("capabilities", caps, V4L2_CAPS);
    // device_caps is filled in only when the driver says so.
    let device_caps = V4L2_CAPS
        .iter()
        .find(|c| c.name == "V4L2_CAP_DEVICE_CAPS")
        .map_or(0, |c| c.value);
    if caps & device_caps != 0 {
        p.flags("device_caps", val(f, "device_caps", d), V4L2_CAPS);
    }
    true
}

fn put_fmtdesc(p: &mut Printer, d: &[u8], phase: u8) -> bool {
    let f = V4L2_FMTDESC;
    if phase == IF_OUT {
        p.uint("index", val(f, "index", d));
        put_value(p, "type", val(f, "type", d), V4L2_BUF_TYPES);
        return true;
    }
    p.flags("flags", val(f, "flags", d), V4L2_FMT_FLAGS);
    put_name(p, f, "description", d);
    let code = val(f, "pixelformat", d);
    match V4L2_PIX_FMTS.iter().find(|(v, _)| *v == code) {
        Some((_, name)) => p.symbol("pixelformat", code as i64, Some(name)),
        None => put_fourcc(p, "pixelformat", code as u32),
    }
    true
}

/// An unnamed four-character code, `v4l2_fourcc('a', 'b', 'c', 'd')`.
fn put_fourcc(p: &mut Printer, name: &str, code: u32) {
    if !p.symbols() {
        p.hex(name, code as u64);
        return;
    }
    p.open(name, "v4l2_fourcc(", Naming::Elements);
    for b in code.to_le_bytes() {
        let text = if b.is_ascii_graphic() && b != b'\'' && b != b'\\' || b == b' ' {
            format!("'{}'", b as char)
        } else {
            format!("'\\x{b:02x}'")
        };
        p.field("", &text);
    }
    p.close(")");
}

fn put_requestbuffers(p: &mut Printer, d: &[u8], phase: u8) -> bool {
    let f = V4L2_REQUESTBUFFERS;
    if phase == IF_OUT {
        put_value(p, "type", val(f, "type", d), V4L2_BUF_TYPES);
        put_value(p, "memory", val(f, "memory", d), V4L2_MEMORIES);
        p.uint("count", val(f, "count", d));
        return true;
    }
    p.uint("count", val(f, "count", d));
    let caps = val(f, "capabilities", d);
    if caps != 0 {
        p.flags("capabilities", caps, V4L2_BUF_CAPS);
    }
    true
}
