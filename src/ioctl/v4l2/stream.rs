//! V4L2 buffers and the stream's setting: VIDIOC_QUERYBUF/QBUF/DQBUF,
//! VIDIOC_STREAMON/OFF, VIDIOC_G/S_FBUF, VIDIOC_G/S_PARM, VIDIOC_G/S_STD,
//! VIDIOC_ENUMSTD, VIDIOC_ENUMINPUT, VIDIOC_G/S_TUNER, VIDIOC_CROPCAP,
//! VIDIOC_G/S_CROP.

use super::{put_fract, put_int, put_name, put_rect, put_uints, put_value, val};
use crate::abi::xlat::ioctl::{
    V4L2_BUF_FLAG_TIMESTAMP_MASK, V4L2_BUF_FLAG_TSTAMP_SRC_MASK, V4L2_BUF_FLAGS, V4L2_BUF_TS_SRCS,
    V4L2_BUF_TS_TYPES, V4L2_BUF_TYPE_VIDEO_CAPTURE, V4L2_BUF_TYPE_VIDEO_OUTPUT, V4L2_BUF_TYPES,
    V4L2_BUFFER, V4L2_CAPTURE_MODES, V4L2_CAPTUREPARM, V4L2_CROP, V4L2_CROPCAP, V4L2_FRAMEBUFFER,
    V4L2_INPUT, V4L2_INPUT_TYPES, V4L2_MEMORIES, V4L2_MEMORY_MMAP, V4L2_MEMORY_USERPTR,
    V4L2_OUTPUTPARM, V4L2_STANDARD, V4L2_STREAMING_CAPS, V4L2_STREAMPARM, V4L2_TUNER,
    V4L2_TUNER_CAPS, V4L2_TUNER_MODES, V4L2_TUNER_SUBS, V4L2_TUNER_TYPES,
};
use crate::format::{Naming, Printer, flags_hex, flags_text};
use crate::ioctl::IF_OUT;

/// `struct v4l2_buffer`: which buffer (VIDIOC_DQBUF asks for none); after
/// the call where it is and what it holds. The rest (timecode, sequence,
/// planes) is elided, as strace does.
pub(super) fn buffer(p: &mut Printer, d: &[u8], phase: u8, dequeue: bool) -> bool {
    let f = V4L2_BUFFER;
    if phase == IF_OUT {
        put_value(p, "type", val(f, "type", d), V4L2_BUF_TYPES);
        if !dequeue {
            p.uint("index", val(f, "index", d));
        }
        return true;
    }
    if dequeue {
        p.uint("index", val(f, "index", d));
    }
    let memory = val(f, "memory", d);
    put_value(p, "memory", memory, V4L2_MEMORIES);
    match memory as u32 {
        V4L2_MEMORY_MMAP => p.raw_hex("m.offset", val(f, "m.offset", d)),
        V4L2_MEMORY_USERPTR => p.ptr("m.userptr", val(f, "m.userptr", d)),
        _ => {}
    }
    put_uints(p, f, &["length", "bytesused"], d);
    put_buffer_flags(p, val(f, "flags", d));
    if dequeue {
        p.open("timestamp", "{", Naming::Fields);
        p.int("tv_sec", val(f, "timestamp.tv_sec", d) as i64);
        p.int("tv_usec", val(f, "timestamp.tv_usec", d) as i64);
        p.close("}");
    }
    false
}

/// `struct v4l2_buffer.flags`: the flags, then the timestamp's type and
/// source, each a value of its field (`V4L2_BUF_FLAG_MAPPED|
/// V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC|V4L2_BUF_FLAG_TSTAMP_SRC_EOF`).
fn put_buffer_flags(p: &mut Printer, value: u64) {
    let ts_type = value & V4L2_BUF_FLAG_TIMESTAMP_MASK as u64;
    let ts_src = value & V4L2_BUF_FLAG_TSTAMP_SRC_MASK as u64;
    let flags = value & !ts_type & !ts_src;
    let mut parts = Vec::new();
    if flags != 0 {
        parts.push((flags, flags_text(flags, V4L2_BUF_FLAGS, true)));
    }
    for (v, table) in [(ts_type, V4L2_BUF_TS_TYPES), (ts_src, V4L2_BUF_TS_SRCS)] {
        let name = table
            .iter()
            .find(|(t, _)| *t == v)
            .map(|(_, n)| n.to_string());
        parts.push((v, name.unwrap_or_else(|| flags_hex(v))));
    }
    // Under -X raw the whole number, as strace prints it.
    if p.symbols() {
        p.flags_parts("flags", value, &parts);
    } else {
        p.raw_hex("flags", value);
    }
}

/// VIDIOC_G_FBUF/S_FBUF's `struct v4l2_framebuffer`: what it can do,
/// its flags and where it is (the format is left out, as strace does).
pub(super) fn framebuffer(p: &mut Printer, d: &[u8]) -> bool {
    let f = V4L2_FRAMEBUFFER;
    p.raw_hex("capability", val(f, "capability", d));
    p.raw_hex("flags", val(f, "flags", d));
    p.ptr("base", val(f, "base", d));
    true
}

/// VIDIOC_STREAMON/OFF's `int *` buffer type: `[V4L2_BUF_TYPE_VIDEO_CAPTURE]`.
pub(super) fn buf_type(p: &mut Printer, addr: u64) {
    let Some(d) = super::read(p, addr, 4) else {
        return;
    };
    let ty = u32::from_le_bytes([d[0], d[1], d[2], d[3]]);
    p.open("arg", "[", Naming::Elements);
    put_value(p, "", ty as u64, V4L2_BUF_TYPES);
    p.close("]");
}

/// VIDIOC_G/S_STD's `v4l2_std_id *`: `[0xb000]`, in hex as strace prints it.
pub(super) fn std_id(p: &mut Printer, addr: u64) {
    let Some(d) = super::read(p, addr, 8) else {
        return;
    };
    let id = u64::from_le_bytes(d[..8].try_into().expect("8 bytes"));
    p.open("arg", "[", Naming::Elements);
    p.raw_hex("", id);
    p.close("]");
}

/// `struct v4l2_streamparm`: the buffer type, and for video capture and
/// output the parameters (VIDIOC_S_PARM's before the call, both after).
pub(super) fn streamparm(p: &mut Printer, d: &[u8], phase: u8, get: bool) -> bool {
    let f = V4L2_STREAMPARM;
    let ty = val(f, "type", d) as u32;
    if phase == IF_OUT {
        put_value(p, "type", ty as u64, V4L2_BUF_TYPES);
        if get {
            return true;
        }
    }
    let parm = super::sub(f, "parm", d);
    let (name, f, mode, buffers) = match ty {
        V4L2_BUF_TYPE_VIDEO_CAPTURE => (
            "parm.capture",
            V4L2_CAPTUREPARM,
            "capturemode",
            "readbuffers",
        ),
        V4L2_BUF_TYPE_VIDEO_OUTPUT => {
            ("parm.output", V4L2_OUTPUTPARM, "outputmode", "writebuffers")
        }
        _ => {
            if phase != IF_OUT {
                put_value(p, "type", ty as u64, V4L2_BUF_TYPES);
            }
            return true;
        }
    };
    p.open(name, "{", Naming::Fields);
    p.flags(
        "capability",
        val(f, "capability", parm),
        V4L2_STREAMING_CAPS,
    );
    p.flags(mode, val(f, mode, parm), V4L2_CAPTURE_MODES);
    put_fract(p, f, "timeperframe", parm);
    p.raw_hex("extendedmode", val(f, "extendedmode", parm));
    p.uint(buffers, val(f, buffers, parm));
    p.close("}");
    true
}

/// VIDIOC_ENUMSTD: which standard; after the call its name and timing.
pub(super) fn standard(p: &mut Printer, d: &[u8], phase: u8) -> bool {
    let f = V4L2_STANDARD;
    if phase == IF_OUT {
        p.uint("index", val(f, "index", d));
        return true;
    }
    put_name(p, f, "name", d);
    put_fract(p, f, "frameperiod", d);
    p.uint("framelines", val(f, "framelines", d));
    true
}

/// VIDIOC_ENUMINPUT: which input; after the call its name and type.
pub(super) fn input(p: &mut Printer, d: &[u8], phase: u8) -> bool {
    let f = V4L2_INPUT;
    if phase == IF_OUT {
        p.uint("index", val(f, "index", d));
        return true;
    }
    put_name(p, f, "name", d);
    put_value(p, "type", val(f, "type", d), V4L2_INPUT_TYPES);
    true
}

/// `struct v4l2_tuner`: which tuner (VIDIOC_G_TUNER) or the whole setting
/// (VIDIOC_S_TUNER); after VIDIOC_G_TUNER what it is.
pub(super) fn tuner(p: &mut Printer, d: &[u8], phase: u8, get: bool) -> bool {
    let f = V4L2_TUNER;
    if phase == IF_OUT {
        p.uint("index", val(f, "index", d));
        if get {
            return true;
        }
    }
    put_name(p, f, "name", d);
    put_value(p, "type", val(f, "type", d), V4L2_TUNER_TYPES);
    p.flags("capability", val(f, "capability", d), V4L2_TUNER_CAPS);
    put_uints(p, f, &["rangelow", "rangehigh"], d);
    p.flags("rxsubchans", val(f, "rxsubchans", d), V4L2_TUNER_SUBS);
    put_value(p, "audmode", val(f, "audmode", d), V4L2_TUNER_MODES);
    put_int(p, f, "signal", d);
    put_int(p, f, "afc", d);
    true
}

/// VIDIOC_CROPCAP: which buffer type; after the call its bounds, default
/// rectangle and pixel aspect.
pub(super) fn cropcap(p: &mut Printer, d: &[u8], phase: u8) -> bool {
    let f = V4L2_CROPCAP;
    if phase == IF_OUT {
        put_value(p, "type", val(f, "type", d), V4L2_BUF_TYPES);
        return true;
    }
    put_rect(p, f, "bounds", d);
    put_rect(p, f, "defrect", d);
    put_fract(p, f, "pixelaspect", d);
    true
}

/// `struct v4l2_crop`: the buffer type and (VIDIOC_S_CROP) the rectangle;
/// after VIDIOC_G_CROP the rectangle.
pub(super) fn crop(p: &mut Printer, d: &[u8], phase: u8, get: bool) -> bool {
    let f = V4L2_CROP;
    if phase == IF_OUT {
        put_value(p, "type", val(f, "type", d), V4L2_BUF_TYPES);
        if get {
            return true;
        }
    }
    put_rect(p, f, "c", d);
    true
}
