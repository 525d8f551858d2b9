//! Video4Linux2 (`<linux/videodev2.h>`): the requests a capture program
//! makes on `/dev/videoN`, which the kernel's BTF rarely describes (its
//! structs live in the videodev module), decoded as strace shows them:
//! what the device is (VIDIOC_QUERYCAP), its formats (VIDIOC_ENUM_FMT,
//! VIDIOC_G_FMT/S_FMT/TRY_FMT by buffer type, VIDIOC_ENUM_FRAMESIZES,
//! VIDIOC_ENUM_FRAMEINTERVALS), buffers (VIDIOC_REQBUFS, VIDIOC_CREATE_BUFS,
//! VIDIOC_QUERYBUF/QBUF/DQBUF, VIDIOC_STREAMON/OFF), streaming parameters,
//! standards, inputs, tuners, cropping, the frame buffer and controls
//! (VIDIOC_G/S_CTRL, VIDIOC_QUERYCTRL, VIDIOC_QUERY_EXT_CTRL,
//! VIDIOC_G/S/TRY_EXT_CTRLS):
//!
//! ```text
//! ioctl(3, VIDIOC_QUERYCAP, {driver="uvcvideo", card="HD Camera", bus_info="usb-0000:00:14.0-1",
//!     version=KERNEL_VERSION(6, 1, 0), capabilities=V4L2_CAP_VIDEO_CAPTURE|...|V4L2_CAP_DEVICE_CAPS,
//!     device_caps=V4L2_CAP_VIDEO_CAPTURE|V4L2_CAP_STREAMING}) = 0
//! ioctl(3, VIDIOC_ENUM_FMT, {index=0, type=V4L2_BUF_TYPE_VIDEO_CAPTURE}) = 0 {flags=V4L2_FMT_FLAG_COMPRESSED,
//!     description="Motion-JPEG", pixelformat=v4l2_fourcc('M', 'J', 'P', 'G') /* V4L2_PIX_FMT_MJPEG */}
//! ioctl(3, VIDIOC_S_FMT, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, fmt.pix={width=640, height=480, ...}}) = 0 {fmt.pix={...}}
//! ```
//!
//! What the program passes is printed before the call, what the kernel
//! answered after `=` (only the fields it may change, as strace shows
//! them after `=>`). A four-character code prints as strace spells it,
//! `v4l2_fourcc('Y', 'U', 'Y', 'V') /* V4L2_PIX_FMT_YUYV */`, its number
//! under `-X raw`. Every name and layout is generated from the headers
//! (src/abi/xlat/ioctl.rs). The layouts are x86_64's: the structs with a
//! pointer or a timeval have other sizes on i386, so other request codes,
//! which the group leaves to the fallback; the others are the same on both.

mod controls;
mod format;
mod stream;

use super::{Arg, IF_ERR, IF_IN, IF_OUT, IoctlGroup, Layout, Request};
use crate::abi::layout::{self, Field};
use crate::abi::xlat::ioctl::{
    _IOC_SIZEMASK, _IOC_SIZESHIFT, V4L2_BUF_CAPS, V4L2_BUF_TYPES, V4L2_CAPABILITY, V4L2_CAPS,
    V4L2_FMT_FLAGS, V4L2_FMTDESC, V4L2_MEMORIES, V4L2_PIX_FMTS, V4L2_RECT, V4L2_REQUESTBUFFERS,
    VIDIOC_CREATE_BUFS, VIDIOC_CROPCAP, VIDIOC_DQBUF, VIDIOC_ENUM_FMT, VIDIOC_ENUM_FRAMEINTERVALS,
    VIDIOC_ENUM_FRAMESIZES, VIDIOC_ENUMINPUT, VIDIOC_ENUMSTD, VIDIOC_G_CROP, VIDIOC_G_CTRL,
    VIDIOC_G_EXT_CTRLS, VIDIOC_G_FBUF, VIDIOC_G_FMT, VIDIOC_G_INPUT, VIDIOC_G_PARM, VIDIOC_G_STD,
    VIDIOC_G_TUNER, VIDIOC_QBUF, VIDIOC_QUERY_EXT_CTRL, VIDIOC_QUERYBUF, VIDIOC_QUERYCAP,
    VIDIOC_QUERYCTRL, VIDIOC_REQBUFS, VIDIOC_S_CROP, VIDIOC_S_CTRL, VIDIOC_S_EXT_CTRLS,
    VIDIOC_S_FBUF, VIDIOC_S_FMT, VIDIOC_S_INPUT, VIDIOC_S_PARM, VIDIOC_S_STD, VIDIOC_S_TUNER,
    VIDIOC_STREAMOFF, VIDIOC_STREAMON, VIDIOC_TRY_EXT_CTRLS, VIDIOC_TRY_FMT,
};
use crate::format::{Naming, Printer};

/// The size a request's code carries: its struct's, as the headers made it.
const fn size_of(code: u32) -> usize {
    ((code >> _IOC_SIZESHIFT) & _IOC_SIZEMASK) as usize
}

/// A layout for the [`Request`] table: the struct's name and size (its
/// fields are the generated `V4L2_*` layouts the printers read).
macro_rules! layouts {
    ($($(#[$doc:meta])* $id:ident = $name:literal, $code:ident;)*) => {
        $($(#[$doc])* pub static $id: Layout = Layout {
            name: $name,
            size: size_of($code),
            fields: &[],
        };)*
    };
}

layouts! {
    /// `struct v4l2_capability` (fields: `V4L2_CAPABILITY`).
    CAPABILITY = "v4l2_capability", VIDIOC_QUERYCAP;
    /// `struct v4l2_fmtdesc` (fields: `V4L2_FMTDESC`).
    FMTDESC = "v4l2_fmtdesc", VIDIOC_ENUM_FMT;
    /// `struct v4l2_requestbuffers` (fields: `V4L2_REQUESTBUFFERS`).
    REQUESTBUFFERS = "v4l2_requestbuffers", VIDIOC_REQBUFS;
    /// `struct v4l2_format` (fields: `V4L2_FORMAT`).
    FORMAT = "v4l2_format", VIDIOC_G_FMT;
    /// `struct v4l2_buffer` (fields: `V4L2_BUFFER`).
    BUFFER = "v4l2_buffer", VIDIOC_QUERYBUF;
    /// `struct v4l2_framebuffer` (fields: `V4L2_FRAMEBUFFER`).
    FRAMEBUFFER = "v4l2_framebuffer", VIDIOC_G_FBUF;
    /// The `int` buffer type of VIDIOC_STREAMON/OFF.
    BUF_TYPE = "v4l2_buf_type", VIDIOC_STREAMON;
    /// `struct v4l2_streamparm` (fields: `V4L2_STREAMPARM`).
    STREAMPARM = "v4l2_streamparm", VIDIOC_G_PARM;
    /// `v4l2_std_id`, a `__u64` set of standards.
    STD_ID = "v4l2_std_id", VIDIOC_G_STD;
    /// `struct v4l2_standard` (fields: `V4L2_STANDARD`).
    STANDARD = "v4l2_standard", VIDIOC_ENUMSTD;
    /// `struct v4l2_input` (fields: `V4L2_INPUT`).
    INPUT = "v4l2_input", VIDIOC_ENUMINPUT;
    /// `struct v4l2_control` (fields: `V4L2_CONTROL`).
    CONTROL = "v4l2_control", VIDIOC_G_CTRL;
    /// `struct v4l2_tuner` (fields: `V4L2_TUNER`).
    TUNER = "v4l2_tuner", VIDIOC_G_TUNER;
    /// `struct v4l2_queryctrl` (fields: `V4L2_QUERYCTRL`).
    QUERYCTRL = "v4l2_queryctrl", VIDIOC_QUERYCTRL;
    /// `struct v4l2_query_ext_ctrl` (fields: `V4L2_QUERY_EXT_CTRL`).
    QUERY_EXT_CTRL = "v4l2_query_ext_ctrl", VIDIOC_QUERY_EXT_CTRL;
    /// `struct v4l2_cropcap` (fields: `V4L2_CROPCAP`).
    CROPCAP = "v4l2_cropcap", VIDIOC_CROPCAP;
    /// `struct v4l2_crop` (fields: `V4L2_CROP`).
    CROP = "v4l2_crop", VIDIOC_G_CROP;
    /// `struct v4l2_ext_controls` (fields: `V4L2_EXT_CONTROLS`).
    EXT_CONTROLS = "v4l2_ext_controls", VIDIOC_G_EXT_CTRLS;
    /// `struct v4l2_frmsizeenum` (fields: `V4L2_FRMSIZEENUM`).
    FRMSIZEENUM = "v4l2_frmsizeenum", VIDIOC_ENUM_FRAMESIZES;
    /// `struct v4l2_frmivalenum` (fields: `V4L2_FRMIVALENUM`).
    FRMIVALENUM = "v4l2_frmivalenum", VIDIOC_ENUM_FRAMEINTERVALS;
    /// `struct v4l2_create_buffers` (fields: `V4L2_CREATE_BUFFERS`).
    CREATE_BUFFERS = "v4l2_create_buffers", VIDIOC_CREATE_BUFS;
}

/// Both directions: what the program asks, what the kernel answered.
const RW: u8 = IF_OUT | IF_IN;

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
        RW,
        Arg::Struct(&FMTDESC),
    ),
    Request::new(
        VIDIOC_REQBUFS,
        "VIDIOC_REQBUFS",
        RW,
        Arg::Struct(&REQUESTBUFFERS),
    ),
    Request::new(VIDIOC_G_INPUT, "VIDIOC_G_INPUT", IF_IN, Arg::Int),
    Request::new(VIDIOC_S_INPUT, "VIDIOC_S_INPUT", IF_OUT, Arg::Int),
    // The window format points to its clip rectangles: read by the group.
    Request::new(VIDIOC_G_FMT, "VIDIOC_G_FMT", RW, Arg::Custom(&FORMAT))
        .pointing(format::CLIP_ARRAY),
    Request::new(VIDIOC_S_FMT, "VIDIOC_S_FMT", RW, Arg::Custom(&FORMAT))
        .pointing(format::CLIP_ARRAY),
    Request::new(VIDIOC_TRY_FMT, "VIDIOC_TRY_FMT", RW, Arg::Custom(&FORMAT))
        .pointing(format::CLIP_ARRAY),
    Request::new(VIDIOC_QUERYBUF, "VIDIOC_QUERYBUF", RW, Arg::Struct(&BUFFER)),
    Request::new(VIDIOC_QBUF, "VIDIOC_QBUF", RW, Arg::Struct(&BUFFER)),
    Request::new(VIDIOC_DQBUF, "VIDIOC_DQBUF", RW, Arg::Struct(&BUFFER)),
    Request::new(
        VIDIOC_G_FBUF,
        "VIDIOC_G_FBUF",
        IF_IN,
        Arg::Struct(&FRAMEBUFFER),
    ),
    Request::new(
        VIDIOC_S_FBUF,
        "VIDIOC_S_FBUF",
        IF_OUT,
        Arg::Struct(&FRAMEBUFFER),
    ),
    Request::new(
        VIDIOC_STREAMON,
        "VIDIOC_STREAMON",
        IF_OUT,
        Arg::Custom(&BUF_TYPE),
    ),
    Request::new(
        VIDIOC_STREAMOFF,
        "VIDIOC_STREAMOFF",
        IF_OUT,
        Arg::Custom(&BUF_TYPE),
    ),
    Request::new(VIDIOC_G_PARM, "VIDIOC_G_PARM", RW, Arg::Struct(&STREAMPARM)),
    Request::new(VIDIOC_S_PARM, "VIDIOC_S_PARM", RW, Arg::Struct(&STREAMPARM)),
    Request::new(VIDIOC_G_STD, "VIDIOC_G_STD", IF_IN, Arg::Custom(&STD_ID)),
    Request::new(VIDIOC_S_STD, "VIDIOC_S_STD", IF_OUT, Arg::Custom(&STD_ID)),
    Request::new(VIDIOC_ENUMSTD, "VIDIOC_ENUMSTD", RW, Arg::Struct(&STANDARD)),
    Request::new(
        VIDIOC_ENUMINPUT,
        "VIDIOC_ENUMINPUT",
        RW,
        Arg::Struct(&INPUT),
    ),
    Request::new(VIDIOC_G_CTRL, "VIDIOC_G_CTRL", RW, Arg::Struct(&CONTROL)),
    Request::new(VIDIOC_S_CTRL, "VIDIOC_S_CTRL", RW, Arg::Struct(&CONTROL)),
    Request::new(VIDIOC_G_TUNER, "VIDIOC_G_TUNER", RW, Arg::Struct(&TUNER)),
    Request::new(
        VIDIOC_S_TUNER,
        "VIDIOC_S_TUNER",
        IF_OUT,
        Arg::Struct(&TUNER),
    ),
    Request::new(
        VIDIOC_QUERYCTRL,
        "VIDIOC_QUERYCTRL",
        RW,
        Arg::Struct(&QUERYCTRL),
    ),
    Request::new(
        VIDIOC_QUERY_EXT_CTRL,
        "VIDIOC_QUERY_EXT_CTRL",
        RW,
        Arg::Struct(&QUERY_EXT_CTRL),
    ),
    Request::new(VIDIOC_CROPCAP, "VIDIOC_CROPCAP", RW, Arg::Struct(&CROPCAP)),
    Request::new(VIDIOC_G_CROP, "VIDIOC_G_CROP", RW, Arg::Struct(&CROP)),
    Request::new(VIDIOC_S_CROP, "VIDIOC_S_CROP", IF_OUT, Arg::Struct(&CROP)),
    // The kernel says which control failed (`error_idx`) when the call
    // fails too: the answer is printed then as well.
    Request::new(
        VIDIOC_G_EXT_CTRLS,
        "VIDIOC_G_EXT_CTRLS",
        RW | IF_ERR,
        Arg::Custom(&EXT_CONTROLS),
    )
    .pointing(controls::EXT_CONTROL_ARRAY),
    Request::new(
        VIDIOC_S_EXT_CTRLS,
        "VIDIOC_S_EXT_CTRLS",
        RW | IF_ERR,
        Arg::Custom(&EXT_CONTROLS),
    )
    .pointing(controls::EXT_CONTROL_ARRAY),
    Request::new(
        VIDIOC_TRY_EXT_CTRLS,
        "VIDIOC_TRY_EXT_CTRLS",
        RW | IF_ERR,
        Arg::Custom(&EXT_CONTROLS),
    )
    .pointing(controls::EXT_CONTROL_ARRAY),
    Request::new(
        VIDIOC_ENUM_FRAMESIZES,
        "VIDIOC_ENUM_FRAMESIZES",
        RW,
        Arg::Struct(&FRMSIZEENUM),
    ),
    Request::new(
        VIDIOC_ENUM_FRAMEINTERVALS,
        "VIDIOC_ENUM_FRAMEINTERVALS",
        RW,
        Arg::Struct(&FRMIVALENUM),
    ),
    Request::new(
        VIDIOC_CREATE_BUFS,
        "VIDIOC_CREATE_BUFS",
        RW,
        Arg::Custom(&CREATE_BUFFERS),
    ),
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
        // A sub-device node takes the same standard requests
        // (VIDIOC_SUBDEV_S_STD is VIDIOC_S_STD's code), decoded alike.
        &["linux/videodev2.h", "linux/v4l2-subdev.h"]
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, p: &mut Printer, req: &Request, d: &[u8], phase: u8) -> bool {
        match req.code {
            VIDIOC_QUERYCAP => put_capability(p, d),
            VIDIOC_ENUM_FMT => put_fmtdesc(p, d, phase),
            VIDIOC_REQBUFS => put_requestbuffers(p, d, phase),
            VIDIOC_QUERYBUF | VIDIOC_QBUF | VIDIOC_DQBUF => {
                stream::buffer(p, d, phase, req.code == VIDIOC_DQBUF)
            }
            VIDIOC_G_FBUF | VIDIOC_S_FBUF => stream::framebuffer(p, d),
            VIDIOC_G_PARM | VIDIOC_S_PARM => {
                stream::streamparm(p, d, phase, req.code == VIDIOC_G_PARM)
            }
            VIDIOC_ENUMSTD => stream::standard(p, d, phase),
            VIDIOC_ENUMINPUT => stream::input(p, d, phase),
            VIDIOC_G_TUNER | VIDIOC_S_TUNER => {
                stream::tuner(p, d, phase, req.code == VIDIOC_G_TUNER)
            }
            VIDIOC_CROPCAP => stream::cropcap(p, d, phase),
            VIDIOC_G_CROP | VIDIOC_S_CROP => stream::crop(p, d, phase, req.code == VIDIOC_G_CROP),
            VIDIOC_ENUM_FRAMESIZES => format::frmsizeenum(p, d, phase),
            VIDIOC_ENUM_FRAMEINTERVALS => format::frmivalenum(p, d, phase),
            VIDIOC_G_CTRL | VIDIOC_S_CTRL => {
                controls::control(p, d, phase, req.code == VIDIOC_G_CTRL)
            }
            VIDIOC_QUERYCTRL => controls::queryctrl(p, d, phase),
            VIDIOC_QUERY_EXT_CTRL => controls::query_ext_ctrl(p, d, phase),
            _ => false,
        }
    }

    fn custom(&self, p: &mut Printer, req: &Request, addr: u64, phase: u8) {
        let Arg::Custom(layout) = req.arg else {
            return p.ptr("arg", addr);
        };
        match req.code {
            VIDIOC_STREAMON | VIDIOC_STREAMOFF => stream::buf_type(p, addr),
            VIDIOC_G_STD | VIDIOC_S_STD => stream::std_id(p, addr),
            _ => {
                let Some(d) = read(p, addr, layout.size) else {
                    return;
                };
                p.open("arg", "{", Naming::Fields);
                let complete = match req.code {
                    VIDIOC_CREATE_BUFS => format::create_buffers(p, &d, phase),
                    VIDIOC_G_EXT_CTRLS | VIDIOC_S_EXT_CTRLS | VIDIOC_TRY_EXT_CTRLS => {
                        controls::ext_controls(p, &d, phase, req.code == VIDIOC_G_EXT_CTRLS)
                    }
                    _ => format::format(p, &d, phase, req.code == VIDIOC_G_FMT),
                };
                p.close_struct(complete);
            }
        }
    }
}

/// `size` bytes of the tracee at `addr`, or None with its pointer printed
/// (NULL, unreadable, or `-VV`'s pointers only).
fn read(p: &mut Printer, addr: u64, size: usize) -> Option<Vec<u8>> {
    if addr == 0 || p.config().values_only >= 2 {
        p.ptr("arg", addr);
        return None;
    }
    let mut d = vec![0u8; size];
    if !p.mem().read_exact(addr, &mut d) {
        p.ptr("arg", addr);
        return None;
    }
    Some(d)
}

/// The value of field `name` of `fields` in `d`.
fn val(fields: &[Field], name: &str, d: &[u8]) -> u64 {
    layout::field(fields, name).read(d).unwrap_or(0)
}

/// The bytes of the member `name` of `fields` in `d` (a nested struct).
fn sub<'a>(fields: &[Field], name: &str, d: &'a [u8]) -> &'a [u8] {
    let f = layout::field(fields, name);
    &d[f.off..f.end()]
}

/// Fields of `fields` in `d` printed as unsigned decimals.
fn put_uints(p: &mut Printer, fields: &[Field], names: &[&str], d: &[u8]) {
    for name in names {
        p.uint(name, val(fields, name, d));
    }
}

/// A field of `fields` in `d` as a signed decimal.
fn put_int(p: &mut Printer, fields: &[Field], name: &str, d: &[u8]) {
    p.int(name, val(fields, name, d) as i64);
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

/// A fraction, `30/1` (`struct v4l2_fract`'s numerator and denominator,
/// the members `name.numerator` and `name.denominator` of `fields`).
fn put_fract(p: &mut Printer, fields: &[Field], name: &str, d: &[u8]) {
    let num = val(fields, &format!("{name}.numerator"), d);
    let den = val(fields, &format!("{name}.denominator"), d);
    p.field(name, &format!("{num}/{den}"));
}

/// A `struct v4l2_rect` member of `fields` in `d`.
fn put_rect(p: &mut Printer, fields: &[Field], name: &str, d: &[u8]) {
    let r = sub(fields, name, d);
    p.open(name, "{", Naming::Fields);
    put_int(p, V4L2_RECT, "left", r);
    put_int(p, V4L2_RECT, "top", r);
    put_uints(p, V4L2_RECT, &["width", "height"], r);
    p.close("}");
}

/// A four-character code as strace spells it, `v4l2_fourcc('Y', 'U',
/// 'Y', 'V') /* V4L2_PIX_FMT_YUYV */` (the comment when `table` names
/// it); its number under `-X raw` and `-V`; in JSON the number and name.
fn put_fourcc(p: &mut Printer, name: &str, code: u64, table: &[(u64, &'static str)]) {
    let known = table.iter().find(|(v, _)| *v == code).map(|(_, n)| *n);
    if p.json() {
        return p.symbol(name, code as i64, known);
    }
    if !p.symbols() {
        return p.hex(name, code);
    }
    let chars: Vec<String> = (code as u32)
        .to_le_bytes()
        .iter()
        .map(|&b| match b {
            b'\'' | b'\\' => format!("'\\{}'", b as char),
            b' '..=b'~' => format!("'{}'", b as char),
            _ => format!("'\\x{b:02x}'"),
        })
        .collect();
    p.field(name, &format!("v4l2_fourcc({})", chars.join(", ")));
    if let Some(known) = known {
        p.note(known);
    }
}

fn put_capability(p: &mut Printer, d: &[u8]) -> bool {
    let f = V4L2_CAPABILITY;
    for name in ["driver", "card", "bus_info"] {
        put_name(p, f, name, d);
    }
    let version = val(f, "version", d);
    if !p.json() && p.symbols() {
        // `KERNEL_VERSION(6, 1, 0)`; `0x60100 /* ... */` under -X verbose.
        let text = format!(
            "KERNEL_VERSION({}, {}, {})",
            version >> 16,
            (version >> 8) & 0xff,
            version & 0xff
        );
        p.spelled("version", &format!("{version:#x}"), &text, || {
            version.into()
        });
    } else if p.symbols() {
        p.open("version", "KERNEL_VERSION(", Naming::Elements);
        p.uint("", version >> 16);
        p.uint("", (version >> 8) & 0xff);
        p.uint("", version & 0xff);
        p.close(")");
    } else {
        p.hex("version", version);
    }
    p.flags("capabilities", val(f, "capabilities", d), V4L2_CAPS);
    // device_caps is filled in only when the driver says so.
    let device_caps = val(f, "device_caps", d);
    if device_caps != 0 {
        p.flags("device_caps", device_caps, V4L2_CAPS);
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
    put_fourcc(p, "pixelformat", val(f, "pixelformat", d), V4L2_PIX_FMTS);
    true
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
