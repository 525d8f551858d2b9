//! V4L2 controls: VIDIOC_G/S_CTRL, VIDIOC_QUERYCTRL, VIDIOC_QUERY_EXT_CTRL
//! and VIDIOC_G/S/TRY_EXT_CTRLS, with the control ids named as strace
//! names them: `V4L2_CID_BRIGHTNESS`, an id the headers do not name as
//! its class and offset (`V4L2_CTRL_CLASS_DETECT+0x1234`), the flags
//! VIDIOC_QUERYCTRL's id carries (`V4L2_CTRL_FLAG_NEXT_CTRL|...`).

use super::{put_int, put_name, put_uints, put_value, val};
use crate::abi::layout::{self, Field};
use crate::abi::xlat::ioctl::{
    V4L2_CIDS, V4L2_CONTROL, V4L2_CTRL_CLASSES, V4L2_CTRL_FLAGS, V4L2_CTRL_NEXT_FLAGS,
    V4L2_CTRL_TYPES, V4L2_EXT_CONTROL, V4L2_EXT_CONTROLS, V4L2_QUERY_EXT_CTRL, V4L2_QUERYCTRL,
};
use crate::decode::{array_limit, put_array};
use crate::format::{Naming, Printer, flags_hex, flags_text};
use crate::ioctl::{IF_ERR, IF_IN, IF_OUT, PointedArray};
use serde_json::json;

/// VIDIOC_G/S/TRY_EXT_CTRLS's controls, behind `controls`, `count` of
/// them: read before the call and after it, as [`ext_controls`] does.
pub(super) const EXT_CONTROL_ARRAY: PointedArray = PointedArray {
    ptr_offset: layout::offset(V4L2_EXT_CONTROLS, "controls"),
    ptr_offset_i386: None,
    count_offset: layout::offset(V4L2_EXT_CONTROLS, "count"),
    count_size: layout::member(V4L2_EXT_CONTROLS, "count").size,
    count_arg: None,
    unit: layout::extent(V4L2_EXT_CONTROL),
    shown: 1,
    dirs: IF_OUT | IF_IN,
    // A string (or compound) control's bytes, as long as its `size`.
    each: Some((
        layout::offset(V4L2_EXT_CONTROL, "string"),
        layout::offset(V4L2_EXT_CONTROL, "size"),
    )),
    trailing: None,
    string: None,
};

/// How far past its class's base a control id may be and still be
/// spelled as the class plus an offset (a class's ids are its low 16 bits).
const CLASS_SPAN: u64 = 0x10000;

/// The name of control id `cid`: its own, else its class and offset.
fn cid_name(cid: u64) -> Option<String> {
    if let Some((_, name)) = V4L2_CIDS.iter().find(|(v, _)| *v == cid) {
        return Some(name.to_string());
    }
    let (base, class) = V4L2_CTRL_CLASSES.iter().rev().find(|(v, _)| *v <= cid)?;
    let off = cid - base;
    (off < CLASS_SPAN).then(|| {
        if off == 0 {
            format!("{class}+0")
        } else {
            format!("{class}+{off:#x}")
        }
    })
}

/// A control id; with `next`, the flags VIDIOC_QUERYCTRL's id may carry
/// to ask for the control after it, printed first.
fn put_cid(p: &mut Printer, name: &str, cid: u64, next: bool) {
    if !p.symbols() {
        // -X raw: the whole id, flags and all, as strace prints it.
        return p.hex(name, cid);
    }
    let mask: u64 = V4L2_CTRL_NEXT_FLAGS.iter().map(|f| f.value).sum();
    let flags = if next { cid & mask } else { 0 };
    let id = cid & !flags;
    let known = cid_name(id);
    if flags != 0 {
        let id_text = known.unwrap_or_else(|| flags_hex(id));
        let parts = [
            (flags, flags_text(flags, V4L2_CTRL_NEXT_FLAGS, true)),
            (id, id_text),
        ];
        return p.flags_parts(name, cid, &parts);
    }
    match known {
        Some(text) => p.spelled(
            name,
            &flags_hex(cid),
            &text,
            || json!({ "value": cid, "name": text }),
        ),
        None => p.hex(name, cid),
    }
}

/// `struct v4l2_control`: the id (and VIDIOC_S_CTRL's value); after the
/// call the value.
pub(super) fn control(p: &mut Printer, d: &[u8], phase: u8, get: bool) -> bool {
    let f = V4L2_CONTROL;
    if phase == IF_OUT {
        put_cid(p, "id", val(f, "id", d), false);
        if get {
            return true;
        }
    }
    put_int(p, f, "value", d);
    true
}

/// The fields VIDIOC_QUERYCTRL and VIDIOC_QUERY_EXT_CTRL answer with
/// first: the id it answered for, the type and name. Whether `-v` shows
/// the rest.
fn query_head(p: &mut Printer, f: &[Field], d: &[u8], phase: u8) -> Option<bool> {
    let id = val(f, "id", d);
    if phase == IF_OUT {
        put_cid(p, "id", id, true);
        return None;
    }
    // The id the kernel answered for (the next control's, without the flags).
    put_cid(p, "id", id, true);
    put_value(p, "type", val(f, "type", d), V4L2_CTRL_TYPES);
    put_name(p, f, "name", d);
    Some(p.config().verbose > 0)
}

/// The reserved words, printed only when one is set, in hex.
fn put_reserved(p: &mut Printer, f: &[Field], d: &[u8]) {
    let r = layout::field(f, "reserved");
    let words: Vec<u64> = d[r.off..r.end()]
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")) as u64)
        .collect();
    if words.iter().any(|&w| w != 0) {
        p.open("reserved", "[", Naming::Elements);
        for w in words {
            p.raw_hex("", w);
        }
        p.close("]");
    }
}

/// VIDIOC_QUERYCTRL: which control (and whether the next); after the
/// call what it is (its range and flags under `-v`).
pub(super) fn queryctrl(p: &mut Printer, d: &[u8], phase: u8) -> bool {
    let f = V4L2_QUERYCTRL;
    match query_head(p, f, d, phase) {
        None => true,
        Some(false) => false,
        Some(true) => {
            for name in ["minimum", "maximum", "step", "default_value"] {
                put_int(p, f, name, d);
            }
            p.flags("flags", val(f, "flags", d), V4L2_CTRL_FLAGS);
            put_reserved(p, f, d);
            true
        }
    }
}

/// VIDIOC_QUERY_EXT_CTRL: as VIDIOC_QUERYCTRL, with 64-bit bounds and
/// the dimensions of an array control.
pub(super) fn query_ext_ctrl(p: &mut Printer, d: &[u8], phase: u8) -> bool {
    let f = V4L2_QUERY_EXT_CTRL;
    match query_head(p, f, d, phase) {
        None => true,
        Some(false) => false,
        Some(true) => {
            put_int(p, f, "minimum", d);
            put_int(p, f, "maximum", d);
            p.uint("step", val(f, "step", d));
            put_int(p, f, "default_value", d);
            p.flags("flags", val(f, "flags", d), V4L2_CTRL_FLAGS);
            put_uints(p, f, &["elem_size", "elems", "nr_of_dims"], d);
            let dims = layout::field(f, "dims");
            let n = (val(f, "nr_of_dims", d) as usize).min(dims.size / 4);
            p.open("dims", "[", Naming::Elements);
            for i in 0..n {
                let at = dims.off + 4 * i;
                p.uint(
                    "",
                    u32::from_le_bytes(d[at..at + 4].try_into().expect("4")) as u64,
                );
            }
            p.close("]");
            put_reserved(p, f, d);
            true
        }
    }
}

/// `struct v4l2_ext_controls`: the class and count, then the controls
/// (VIDIOC_S/TRY_EXT_CTRLS's before the call, all after it); after a
/// failed call also `error_idx`, the control the kernel stopped at.
pub(super) fn ext_controls(p: &mut Printer, d: &[u8], phase: u8, get: bool) -> bool {
    let f = V4L2_EXT_CONTROLS;
    let count = val(f, "count", d);
    if phase == IF_OUT {
        put_value(p, "ctrl_class", val(f, "ctrl_class", d), V4L2_CTRL_CLASSES);
        p.uint("count", count);
        if count == 0 || get {
            return true;
        }
    } else if count == 0 {
        return true;
    }
    // The controls up to the array limit; the address of the first one
    // that cannot be read in its place.
    let elem = layout::extent(V4L2_EXT_CONTROL);
    let limit = array_limit(p);
    let complete = put_array(
        p,
        "controls",
        val(f, "controls", d),
        (count, elem, limit),
        put_ext_control,
    );
    if phase == IF_ERR {
        p.uint("error_idx", val(f, "error_idx", d));
    }
    complete
}

/// One `struct v4l2_ext_control`: its id, and its value, or the bytes its
/// `string` points to when it has a size.
fn put_ext_control(p: &mut Printer, d: &[u8]) {
    let f = V4L2_EXT_CONTROL;
    p.open("", "{", Naming::Fields);
    put_value(p, "id", val(f, "id", d), V4L2_CIDS);
    let size = val(f, "size", d);
    p.uint("size", size);
    if size > 0 {
        p.buf("string", val(f, "string", d), size);
    } else {
        put_int(p, f, "value", d);
        put_int(p, f, "value64", d);
    }
    p.close("}");
}
