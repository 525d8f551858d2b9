//! UBI, the flash volume layer (`<mtd/ubi-user.h>`, `/dev/ubiN`,
//! `/dev/ubi_ctrl`, volume devices), decoded as strace does: volume
//! creation (`struct ubi_mkvol_req`: the type and flags by name, the name
//! as long as `name_len` says), resizing, renaming (the entries up to
//! `count`, at most `-s` of them), attaching an MTD device, atomic LEB
//! change and mapping (their obsolete `dtype` as a number: no installed
//! header names it any more), a volume property; the requests whose
//! argument is one number the kernel reads (`[5]`: a volume id, an
//! eraseblock; UBI_IOCEBISMAP's header says `_IOR`, yet the kernel reads
//! the eraseblock number, `get_user()` in `ubi_cdev_ioctl`), and
//! UBI_IOCVOLUP's 64-bit size. UBI_IOCMKVOL and UBI_IOCATT answer the new
//! volume's or device's number in the struct's first member. Layouts are
//! generated (`UBI_*_LAYOUT`; their `-m32` twins are checked to be the
//! same at build time).

use super::{Arg, IF_IN, IF_OUT, IoctlGroup, Layout, Request};
use crate::abi::layout::{Field, extent, field};
use crate::abi::xlat::ioctl::{
    UBI_ATTACH_LAYOUT, UBI_ATTACH_LAYOUT_I386, UBI_IOCATT, UBI_IOCDET, UBI_IOCEBCH, UBI_IOCEBER,
    UBI_IOCEBISMAP, UBI_IOCEBMAP, UBI_IOCEBUNMAP, UBI_IOCMKVOL, UBI_IOCRMVOL, UBI_IOCRNVOL,
    UBI_IOCRPEB, UBI_IOCRSVOL, UBI_IOCSETVOLPROP, UBI_IOCSPEB, UBI_IOCVOLCRBLK, UBI_IOCVOLRMBLK,
    UBI_IOCVOLUP, UBI_LEB_CHANGE_LAYOUT, UBI_LEB_CHANGE_LAYOUT_I386, UBI_MAP_LAYOUT,
    UBI_MAP_LAYOUT_I386, UBI_MAX_RNVOL, UBI_MKVOL_LAYOUT, UBI_MKVOL_LAYOUT_I386, UBI_RNVOL_LAYOUT,
    UBI_RNVOL_LAYOUT_I386, UBI_RSVOL_LAYOUT, UBI_RSVOL_LAYOUT_I386, UBI_SET_VOL_PROP_LAYOUT,
    UBI_SET_VOL_PROP_LAYOUT_I386, UBI_VOL_FLAGS, UBI_VOL_PROPS, UBI_VOL_TYPES,
};
use crate::format::{Naming, Printer};

/// A struct of the group, its size the code's (`_IOC_SIZE`).
const fn sized(name: &'static str, code: u32) -> Layout {
    Layout {
        name,
        size: ((code >> 16) & 0x3fff) as usize,
        fields: &[],
    }
}

static MKVOL: Layout = sized("ubi_mkvol_req", UBI_IOCMKVOL);
static RSVOL: Layout = sized("ubi_rsvol_req", UBI_IOCRSVOL);
static RNVOL: Layout = sized("ubi_rnvol_req", UBI_IOCRNVOL);
static ATTACH: Layout = sized("ubi_attach_req", UBI_IOCATT);
static MAP: Layout = sized("ubi_map_req", UBI_IOCEBMAP);
static PROP: Layout = sized("ubi_set_vol_prop_req", UBI_IOCSETVOLPROP);
/// UBI_IOCEBCH's header says `__s32`; the kernel copies a whole
/// `struct ubi_leb_change_req` (`ubi_cdev_ioctl`'s `copy_from_user`).
static LEB_CHANGE: Layout = Layout {
    name: "ubi_leb_change_req",
    size: extent(UBI_LEB_CHANGE_LAYOUT),
    fields: &[],
};
/// UBI_IOCVOLUP's `__s64`.
static S64: Layout = sized("__s64", UBI_IOCVOLUP);

static REQUESTS: &[Request] = &[
    // `_IOW`, yet the kernel writes the new volume's number back.
    Request::legacy(
        UBI_IOCMKVOL,
        "UBI_IOCMKVOL",
        IF_OUT | IF_IN,
        Arg::Custom(&MKVOL),
    ),
    Request::new(UBI_IOCRMVOL, "UBI_IOCRMVOL", IF_OUT, Arg::Int),
    Request::new(UBI_IOCRSVOL, "UBI_IOCRSVOL", IF_OUT, Arg::Struct(&RSVOL)),
    Request::new(UBI_IOCRNVOL, "UBI_IOCRNVOL", IF_OUT, Arg::Custom(&RNVOL)),
    Request::new(UBI_IOCRPEB, "UBI_IOCRPEB", IF_OUT, Arg::Int),
    Request::new(UBI_IOCSPEB, "UBI_IOCSPEB", IF_OUT, Arg::Int),
    // `_IOW`, yet the kernel writes the new device's number back.
    Request::legacy(
        UBI_IOCATT,
        "UBI_IOCATT",
        IF_OUT | IF_IN,
        Arg::Custom(&ATTACH),
    ),
    Request::new(UBI_IOCDET, "UBI_IOCDET", IF_OUT, Arg::Int),
    Request::new(UBI_IOCVOLUP, "UBI_IOCVOLUP", IF_OUT, Arg::Custom(&S64)),
    Request::new(UBI_IOCEBER, "UBI_IOCEBER", IF_OUT, Arg::Int),
    Request::legacy(UBI_IOCEBCH, "UBI_IOCEBCH", IF_OUT, Arg::Struct(&LEB_CHANGE)),
    Request::new(UBI_IOCEBMAP, "UBI_IOCEBMAP", IF_OUT, Arg::Struct(&MAP)),
    Request::new(UBI_IOCEBUNMAP, "UBI_IOCEBUNMAP", IF_OUT, Arg::Int),
    Request::legacy(UBI_IOCEBISMAP, "UBI_IOCEBISMAP", IF_OUT, Arg::Int),
    Request::new(
        UBI_IOCSETVOLPROP,
        "UBI_IOCSETVOLPROP",
        IF_OUT,
        Arg::Struct(&PROP),
    ),
    Request::new(UBI_IOCVOLCRBLK, "UBI_IOCVOLCRBLK", 0, Arg::None),
    Request::new(UBI_IOCVOLRMBLK, "UBI_IOCVOLRMBLK", 0, Arg::None),
];

/// The UBI group.
pub struct Ubi;

/// The one instance the dispatcher uses.
pub static UBI: Ubi = Ubi;

impl IoctlGroup for Ubi {
    fn name(&self) -> &'static str {
        "ubi"
    }

    fn headers(&self) -> &'static [&'static str] {
        &["mtd/ubi-user.h"]
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, p: &mut Printer, req: &Request, d: &[u8], _phase: u8) -> bool {
        match req.code {
            UBI_IOCRSVOL => {
                p.int("bytes", get(d, UBI_RSVOL_LAYOUT, "bytes"));
                p.int("vol_id", get(d, UBI_RSVOL_LAYOUT, "vol_id"));
            }
            UBI_IOCEBCH => {
                p.int("lnum", get(d, UBI_LEB_CHANGE_LAYOUT, "lnum"));
                p.int("bytes", get(d, UBI_LEB_CHANGE_LAYOUT, "bytes"));
                p.int("dtype", get(d, UBI_LEB_CHANGE_LAYOUT, "dtype"));
            }
            UBI_IOCEBMAP => {
                p.int("lnum", get(d, UBI_MAP_LAYOUT, "lnum"));
                p.int("dtype", get(d, UBI_MAP_LAYOUT, "dtype"));
            }
            UBI_IOCSETVOLPROP => {
                let l = UBI_SET_VOL_PROP_LAYOUT;
                let property = get(d, l, "property") as u64;
                let name = UBI_VOL_PROPS
                    .iter()
                    .find(|&&(v, _)| v == property)
                    .map(|&(_, n)| n);
                p.symbol("property", property as i64, name);
                p.hex("value", get(d, l, "value") as u64);
            }
            _ => return false,
        }
        true
    }

    fn custom(&self, p: &mut Printer, req: &Request, addr: u64, phase: u8) {
        let layout = match req.code {
            UBI_IOCMKVOL => UBI_MKVOL_LAYOUT,
            UBI_IOCRNVOL => UBI_RNVOL_LAYOUT,
            UBI_IOCATT => UBI_ATTACH_LAYOUT,
            _ => &[],
        };
        let size = match req.arg {
            Arg::Custom(l) => l.size,
            _ => 0,
        };
        let mut d = vec![0u8; size];
        if addr == 0 || p.config().values_only >= 2 || !p.mem().read_exact(addr, &mut d) {
            p.ptr("arg", addr);
            return;
        }
        if req.code == UBI_IOCVOLUP {
            p.open("arg", "[", Naming::Elements);
            p.int("", i64::from_le_bytes(d[..8].try_into().unwrap_or([0; 8])));
            p.close("]");
            return;
        }
        p.open("arg", "{", Naming::Fields);
        if phase == IF_IN {
            // The number the kernel gave the new volume or device.
            let first = &layout[0];
            p.int(first.name, get(&d, layout, first.name));
        } else {
            match req.code {
                UBI_IOCMKVOL => put_mkvol(p, &d),
                UBI_IOCRNVOL => put_rnvol(p, &d),
                _ => {
                    for f in layout {
                        p.int(f.name, f.read(&d).unwrap_or(0) as i64);
                    }
                }
            }
        }
        p.close("}");
    }
}

/// A field's value, sign-extended where it is signed.
fn get(d: &[u8], layout: &[Field], name: &str) -> i64 {
    field(layout, name).read(d).unwrap_or(0) as i64
}

/// A volume name as the kernel reads it: `name_len` bytes (clamped to the
/// array, less its NUL) and the NUL after them; up to a NUL before, else
/// cut there.
fn put_vol_name(p: &mut Printer, name: &[u8], name_len: i64) {
    let n = 1 + name_len.clamp(0, name.len() as i64 - 1) as usize;
    let bytes = &name[..n];
    match bytes.iter().position(|&b| b == 0) {
        Some(end) => p.string("name", &bytes[..end], false),
        None => p.string("name", &bytes[..n - 1], true),
    }
}

/// UBI_IOCMKVOL's request.
fn put_mkvol(p: &mut Printer, d: &[u8]) {
    let l = UBI_MKVOL_LAYOUT;
    p.int("vol_id", get(d, l, "vol_id"));
    p.int("alignment", get(d, l, "alignment"));
    p.int("bytes", get(d, l, "bytes"));
    let vol_type = get(d, l, "vol_type") as u64;
    let name = UBI_VOL_TYPES
        .iter()
        .find(|&&(v, _)| v == vol_type)
        .map(|&(_, n)| n);
    p.symbol("vol_type", vol_type as i64, name);
    p.flags("flags", get(d, l, "flags") as u64, UBI_VOL_FLAGS);
    let name_len = get(d, l, "name_len");
    p.int("name_len", name_len);
    let f = field(l, "name");
    put_vol_name(p, &d[f.off..f.end()], name_len);
}

/// UBI_IOCRNVOL's renames: the entries `count` says, at most
/// UBI_MAX_RNVOL (the array's size) and `-s` of them.
fn put_rnvol(p: &mut Printer, d: &[u8]) {
    let l = UBI_RNVOL_LAYOUT;
    let count = get(d, l, "count");
    p.int("count", count);
    let ents = field(l, "ents").off;
    let size = field(l, "ents[1]").off - ents;
    let at = |name: &str| field(l, name).off - ents;
    let (vol_id, name_len, name) = (
        at("ents[0].vol_id"),
        at("ents[0].name_len"),
        field(l, "ents[0].name"),
    );
    let n = count.clamp(0, UBI_MAX_RNVOL as i64) as usize;
    let shown = n.min(p.config().string_limit);
    p.open("ents", "[", Naming::Elements);
    for i in 0..shown {
        let e = &d[ents + i * size..ents + (i + 1) * size];
        let len = i16::from_le_bytes([e[name_len], e[name_len + 1]]) as i64;
        p.open("", "{", Naming::Fields);
        p.int(
            "vol_id",
            i32::from_le_bytes(e[vol_id..vol_id + 4].try_into().unwrap_or([0; 4])) as i64,
        );
        p.int("name_len", len);
        let off = name.off - ents;
        put_vol_name(p, &e[off..off + name.size], len);
        p.close("}");
    }
    if shown < n {
        p.more();
    }
    p.close("]");
}

/// Whether two layouts put every field at the same place.
const fn same_layouts(a: &[Field], b: &[Field]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i].off != b[i].off || a[i].size != b[i].size {
            return false;
        }
        i += 1;
    }
    true
}

// The structs are the same for i386 (`__s64`s at 8-byte offsets, packed
// arrays), so one layout reads both ABIs' requests.
const _: () = assert!(
    same_layouts(UBI_MKVOL_LAYOUT, UBI_MKVOL_LAYOUT_I386)
        && same_layouts(UBI_RSVOL_LAYOUT, UBI_RSVOL_LAYOUT_I386)
        && same_layouts(UBI_RNVOL_LAYOUT, UBI_RNVOL_LAYOUT_I386)
        && same_layouts(UBI_LEB_CHANGE_LAYOUT, UBI_LEB_CHANGE_LAYOUT_I386)
        && same_layouts(UBI_MAP_LAYOUT, UBI_MAP_LAYOUT_I386)
        && same_layouts(UBI_ATTACH_LAYOUT, UBI_ATTACH_LAYOUT_I386)
        && same_layouts(UBI_SET_VOL_PROP_LAYOUT, UBI_SET_VOL_PROP_LAYOUT_I386)
);
