//! V4L2 formats: `struct v4l2_format` by its buffer type (VIDIOC_G_FMT,
//! VIDIOC_S_FMT, VIDIOC_TRY_FMT and VIDIOC_CREATE_BUFS's `format`), the
//! frame sizes and intervals a pixel format offers
//! (VIDIOC_ENUM_FRAMESIZES, VIDIOC_ENUM_FRAMEINTERVALS).

use super::{put_fourcc, put_fract, put_rect, put_uints, put_value, sub, val};
use crate::abi::layout::{self, Field};
use crate::abi::xlat::ioctl::{
    V4L2_BUF_TYPE_META_CAPTURE, V4L2_BUF_TYPE_META_OUTPUT, V4L2_BUF_TYPE_SDR_CAPTURE,
    V4L2_BUF_TYPE_SDR_OUTPUT, V4L2_BUF_TYPE_SLICED_VBI_CAPTURE, V4L2_BUF_TYPE_SLICED_VBI_OUTPUT,
    V4L2_BUF_TYPE_VBI_CAPTURE, V4L2_BUF_TYPE_VBI_OUTPUT, V4L2_BUF_TYPE_VIDEO_CAPTURE,
    V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE, V4L2_BUF_TYPE_VIDEO_OUTPUT,
    V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE, V4L2_BUF_TYPE_VIDEO_OUTPUT_OVERLAY,
    V4L2_BUF_TYPE_VIDEO_OVERLAY, V4L2_BUF_TYPES, V4L2_CLIP, V4L2_COLORSPACES, V4L2_CREATE_BUFFERS,
    V4L2_FIELDS, V4L2_FORMAT, V4L2_FRMIVAL_TYPE_CONTINUOUS, V4L2_FRMIVAL_TYPE_DISCRETE,
    V4L2_FRMIVAL_TYPE_STEPWISE, V4L2_FRMIVAL_TYPES, V4L2_FRMIVALENUM, V4L2_FRMSIZE_TYPE_DISCRETE,
    V4L2_FRMSIZE_TYPE_STEPWISE, V4L2_FRMSIZE_TYPES, V4L2_FRMSIZEENUM, V4L2_MEMORIES,
    V4L2_META_FMTS, V4L2_META_FORMAT, V4L2_PIX_FMTS, V4L2_PIX_FORMAT, V4L2_PIX_FORMAT_MPLANE,
    V4L2_PLANE_PIX_FORMAT, V4L2_SDR_FMTS, V4L2_SDR_FORMAT, V4L2_SLICED_FLAGS,
    V4L2_SLICED_VBI_FORMAT, V4L2_VBI_FLAGS, V4L2_VBI_FORMAT, V4L2_WINDOW, VIDEO_MAX_PLANES,
};
use crate::decode::array_limit;
use crate::format::{Naming, Printer};
use crate::ioctl::{IF_IN, IF_OUT, PointedArray};

/// `struct v4l2_format`: its type before the call, then (VIDIOC_S_FMT and
/// VIDIOC_TRY_FMT) the format the program asks for; after the call the
/// format the kernel answered. A type with no format prints alone.
pub(super) fn format(p: &mut Printer, d: &[u8], phase: u8, get: bool) -> bool {
    let ty = val(V4L2_FORMAT, "type", d);
    if phase == IF_OUT {
        put_value(p, "type", ty, V4L2_BUF_TYPES);
        if get {
            return true;
        }
    } else if !has_format(ty as u32) {
        put_value(p, "type", ty, V4L2_BUF_TYPES);
        return true;
    }
    put_fmt(p, ty as u32, sub(V4L2_FORMAT, "fmt", d))
}

/// Whether a buffer type has a member of `struct v4l2_format.fmt`.
fn has_format(ty: u32) -> bool {
    matches!(
        ty,
        V4L2_BUF_TYPE_VIDEO_CAPTURE
            | V4L2_BUF_TYPE_VIDEO_OUTPUT
            | V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE
            | V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE
            | V4L2_BUF_TYPE_VIDEO_OVERLAY
            | V4L2_BUF_TYPE_VIDEO_OUTPUT_OVERLAY
            | V4L2_BUF_TYPE_VBI_CAPTURE
            | V4L2_BUF_TYPE_VBI_OUTPUT
            | V4L2_BUF_TYPE_SLICED_VBI_CAPTURE
            | V4L2_BUF_TYPE_SLICED_VBI_OUTPUT
            | V4L2_BUF_TYPE_SDR_CAPTURE
            | V4L2_BUF_TYPE_SDR_OUTPUT
            | V4L2_BUF_TYPE_META_CAPTURE
            | V4L2_BUF_TYPE_META_OUTPUT
    )
}

/// The member of the `fmt` union buffer type `ty` uses, named as strace
/// names it (`fmt.pix={...}`); nothing for a type with none. False when
/// something was left out (clip rectangles that could not be read).
fn put_fmt(p: &mut Printer, ty: u32, u: &[u8]) -> bool {
    match ty {
        V4L2_BUF_TYPE_VIDEO_CAPTURE | V4L2_BUF_TYPE_VIDEO_OUTPUT => {
            let f = V4L2_PIX_FORMAT;
            p.open("fmt.pix", "{", Naming::Fields);
            put_uints(p, f, &["width", "height"], u);
            put_fourcc(p, "pixelformat", val(f, "pixelformat", u), V4L2_PIX_FMTS);
            put_value(p, "field", val(f, "field", u), V4L2_FIELDS);
            put_uints(p, f, &["bytesperline", "sizeimage"], u);
            put_value(p, "colorspace", val(f, "colorspace", u), V4L2_COLORSPACES);
            p.close("}");
        }
        V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE | V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE => {
            put_pix_mp(p, u);
        }
        V4L2_BUF_TYPE_VIDEO_OVERLAY | V4L2_BUF_TYPE_VIDEO_OUTPUT_OVERLAY => {
            return put_window(p, u);
        }
        V4L2_BUF_TYPE_VBI_CAPTURE | V4L2_BUF_TYPE_VBI_OUTPUT => {
            let f = V4L2_VBI_FORMAT;
            p.open("fmt.vbi", "{", Naming::Fields);
            put_uints(p, f, &["sampling_rate", "offset", "samples_per_line"], u);
            put_fourcc(
                p,
                "sample_format",
                val(f, "sample_format", u),
                V4L2_PIX_FMTS,
            );
            put_array(p, layout::field(f, "start"), u, 4, Number::Signed);
            put_array(p, layout::field(f, "count"), u, 4, Number::Unsigned);
            p.flags("flags", val(f, "flags", u), V4L2_VBI_FLAGS);
            p.close("}");
        }
        V4L2_BUF_TYPE_SLICED_VBI_CAPTURE | V4L2_BUF_TYPE_SLICED_VBI_OUTPUT => {
            let f = V4L2_SLICED_VBI_FORMAT;
            p.open("fmt.sliced", "{", Naming::Fields);
            p.flags("service_set", val(f, "service_set", u), V4L2_SLICED_FLAGS);
            // `__u16 service_lines[2][24]`: one row a field.
            let lines = layout::field(f, "service_lines");
            let row = lines.size / 2;
            p.open("service_lines", "[", Naming::Elements);
            for i in 0..2 {
                let part = Field {
                    name: "",
                    off: lines.off + i * row,
                    size: row,
                    signed: false,
                };
                put_array(p, part, u, 2, Number::Hex);
            }
            p.close("]");
            p.uint("io_size", val(f, "io_size", u));
            p.close("}");
        }
        V4L2_BUF_TYPE_SDR_CAPTURE | V4L2_BUF_TYPE_SDR_OUTPUT => {
            let f = V4L2_SDR_FORMAT;
            p.open("fmt.sdr", "{", Naming::Fields);
            put_fourcc(p, "pixelformat", val(f, "pixelformat", u), V4L2_SDR_FMTS);
            let size = val(f, "buffersize", u);
            if size != 0 {
                p.uint("buffersize", size);
            }
            p.close("}");
        }
        V4L2_BUF_TYPE_META_CAPTURE | V4L2_BUF_TYPE_META_OUTPUT => {
            let f = V4L2_META_FORMAT;
            p.open("fmt.meta", "{", Naming::Fields);
            put_fourcc(p, "dataformat", val(f, "dataformat", u), V4L2_META_FMTS);
            p.uint("buffersize", val(f, "buffersize", u));
            p.close("}");
        }
        _ => {}
    }
    true
}

/// `fmt.pix_mp`, with the planes it says it has (at most VIDEO_MAX_PLANES).
fn put_pix_mp(p: &mut Printer, u: &[u8]) {
    let f = V4L2_PIX_FORMAT_MPLANE;
    p.open("fmt.pix_mp", "{", Naming::Fields);
    put_uints(p, f, &["width", "height"], u);
    put_fourcc(p, "pixelformat", val(f, "pixelformat", u), V4L2_PIX_FMTS);
    put_value(p, "field", val(f, "field", u), V4L2_FIELDS);
    put_value(p, "colorspace", val(f, "colorspace", u), V4L2_COLORSPACES);
    let planes = layout::field(f, "plane_fmt");
    let elem = planes.size / VIDEO_MAX_PLANES as usize;
    let n = (val(f, "num_planes", u) as usize).min(VIDEO_MAX_PLANES as usize);
    p.open("plane_fmt", "[", Naming::Elements);
    for i in 0..n {
        let plane = &u[planes.off + i * elem..planes.off + (i + 1) * elem];
        p.open("", "{", Naming::Fields);
        put_uints(
            p,
            V4L2_PLANE_PIX_FORMAT,
            &["sizeimage", "bytesperline"],
            plane,
        );
        p.close("}");
    }
    p.close("]");
    p.uint("num_planes", val(f, "num_planes", u));
    p.close("}");
}

/// The clip rectangles a window format's `fmt.win.clips` points to, as
/// many as its `clipcount` says: what the BPF engine copies for
/// VIDIOC_G/S/TRY_FMT. The union holds a window only for an overlay
/// type; for any other the copy through those bytes is never read (and
/// mostly fails). x86_64's codes only: i386's union starts at 4.
pub(super) const CLIP_ARRAY: PointedArray = PointedArray {
    ptr_offset: layout::offset(V4L2_FORMAT, "fmt") + layout::offset(V4L2_WINDOW, "clips"),
    ptr_offset_i386: None,
    count_offset: layout::offset(V4L2_FORMAT, "fmt") + layout::offset(V4L2_WINDOW, "clipcount"),
    count_size: layout::member(V4L2_WINDOW, "clipcount").size,
    count_arg: None,
    unit: layout::extent(V4L2_CLIP),
    shown: 1,
    dirs: IF_OUT | IF_IN,
    each: None,
    trailing: None,
    string: None,
};

/// `fmt.win`, with the clip rectangles its `clips` points to.
fn put_window(p: &mut Printer, u: &[u8]) -> bool {
    let f = V4L2_WINDOW;
    p.open("fmt.win", "{", Naming::Fields);
    put_rect(p, f, "w", u);
    put_value(p, "field", val(f, "field", u), V4L2_FIELDS);
    p.raw_hex("chromakey", val(f, "chromakey", u));
    let count = val(f, "clipcount", u);
    let complete = put_clips(p, val(f, "clips", u), count);
    p.uint("clipcount", count);
    p.ptr("bitmap", val(f, "bitmap", u));
    let alpha = val(f, "global_alpha", u);
    if alpha != 0 {
        p.raw_hex("global_alpha", alpha);
    }
    p.close("}");
    complete
}

/// The `count` clip rectangles at `addr`, up to the array limit; the
/// address of the first one that cannot be read in its place.
fn put_clips(p: &mut Printer, addr: u64, count: u64) -> bool {
    if count == 0 {
        p.open("clips", "[", Naming::Elements);
        p.close("]");
        return true;
    }
    let elem = layout::extent(V4L2_CLIP);
    let limit = array_limit(p);
    crate::decode::put_array(p, "clips", addr, (count, elem, limit), |p, d| {
        p.open("", "{", Naming::Fields);
        put_rect(p, V4L2_CLIP, "c", d);
        p.close("}");
    })
}

/// How an array's numbers print.
#[derive(Clone, Copy)]
enum Number {
    Signed,
    Unsigned,
    Hex,
}

/// Array member `f` of `d`, of `elem`-byte numbers, every element.
fn put_array(p: &mut Printer, f: Field, d: &[u8], elem: usize, how: Number) {
    p.open(f.name, "[", Naming::Elements);
    for i in 0..f.size / elem {
        let e = Field {
            name: "",
            off: f.off + i * elem,
            size: elem,
            signed: matches!(how, Number::Signed),
        };
        let v = e.read(d).unwrap_or(0);
        match how {
            Number::Signed => p.int("", v as i64),
            Number::Unsigned => p.uint("", v),
            Number::Hex => p.raw_hex("", v),
        }
    }
    p.close("]");
}

/// VIDIOC_CREATE_BUFS: the buffers and format the program asks for; after
/// the call the index of the first buffer made and how many.
pub(super) fn create_buffers(p: &mut Printer, d: &[u8], phase: u8) -> bool {
    let f = V4L2_CREATE_BUFFERS;
    if phase != IF_OUT {
        put_uints(p, f, &["index", "count"], d);
        return true;
    }
    p.uint("count", val(f, "count", d));
    put_value(p, "memory", val(f, "memory", d), V4L2_MEMORIES);
    let format = sub(f, "format", d);
    let ty = val(V4L2_FORMAT, "type", format);
    p.open("format", "{", Naming::Fields);
    put_value(p, "type", ty, V4L2_BUF_TYPES);
    let complete = put_fmt(p, ty as u32, sub(V4L2_FORMAT, "fmt", format));
    p.close("}");
    complete
}

/// VIDIOC_ENUM_FRAMESIZES: which size of which pixel format; after the
/// call the size, one (discrete) or a range (stepwise).
pub(super) fn frmsizeenum(p: &mut Printer, d: &[u8], phase: u8) -> bool {
    let f = V4L2_FRMSIZEENUM;
    if phase == IF_OUT {
        p.uint("index", val(f, "index", d));
        put_fourcc(p, "pixel_format", val(f, "pixel_format", d), V4L2_PIX_FMTS);
        return true;
    }
    let ty = val(f, "type", d);
    put_value(p, "type", ty, V4L2_FRMSIZE_TYPES);
    let (name, members): (&str, &[&str]) = match ty as u32 {
        V4L2_FRMSIZE_TYPE_DISCRETE => ("discrete", &["width", "height"]),
        V4L2_FRMSIZE_TYPE_STEPWISE => (
            "stepwise",
            &[
                "min_width",
                "max_width",
                "step_width",
                "min_height",
                "max_height",
                "step_height",
            ],
        ),
        _ => return true,
    };
    p.open(name, "{", Naming::Fields);
    for m in members {
        p.uint(m, val(f, &format!("{name}.{m}"), d));
    }
    p.close("}");
    true
}

/// VIDIOC_ENUM_FRAMEINTERVALS: which interval of which format and size;
/// after the call the interval, one (discrete) or a range.
pub(super) fn frmivalenum(p: &mut Printer, d: &[u8], phase: u8) -> bool {
    let f = V4L2_FRMIVALENUM;
    if phase == IF_OUT {
        p.uint("index", val(f, "index", d));
        put_fourcc(p, "pixel_format", val(f, "pixel_format", d), V4L2_PIX_FMTS);
        put_uints(p, f, &["width", "height"], d);
        return true;
    }
    let ty = val(f, "type", d);
    put_value(p, "type", ty, V4L2_FRMIVAL_TYPES);
    match ty as u32 {
        V4L2_FRMIVAL_TYPE_DISCRETE => put_fract(p, f, "discrete", d),
        V4L2_FRMIVAL_TYPE_STEPWISE | V4L2_FRMIVAL_TYPE_CONTINUOUS => {
            p.open("stepwise", "{", Naming::Fields);
            for m in ["min", "max", "step"] {
                let num = val(f, &format!("stepwise.{m}.numerator"), d);
                let den = val(f, &format!("stepwise.{m}.denominator"), d);
                p.field(m, &format!("{num}/{den}"));
            }
            p.close("}");
        }
        _ => {}
    }
    true
}
