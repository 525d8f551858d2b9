//! Device mapper (`<linux/dm-ioctl.h>`, `/dev/mapper/control`): every
//! request's `struct dm_ioctl` header, decoded as strace does.
//!
//! Before the call: the interface version, then (only for the major
//! version this header describes, and a `data_size` that holds the
//! header) the sizes, the device the request names (`dev`, `name`,
//! `uuid`, each when set; none for the requests about every device), the
//! values the request reads (`target_count` for DM_TABLE_LOAD, `event_nr`
//! for the waits, renames, removals and a resume), and the flags
//! (`DM_*_FLAG`). A request that carries data after the header (targets,
//! a message, a new name) ends with `..`: the payloads are not decoded.
//! After a successful call: the header as the kernel rewrote it, with the
//! device's counts for the requests that report them (`target_count`,
//! `open_count`, `event_nr`). The layout is generated (`DM_IOCTL_LAYOUT`;
//! the same on i386, which a unit test checks).

use super::raw::u32_at;
use super::{Arg, IF_IN, IF_OUT, IoctlGroup, Layout, Request};
use crate::abi::layout::{Field, field};
use crate::abi::xlat::ioctl::{
    DM_DEV_ARM_POLL, DM_DEV_CREATE, DM_DEV_REMOVE, DM_DEV_RENAME, DM_DEV_SET_GEOMETRY,
    DM_DEV_STATUS, DM_DEV_SUSPEND, DM_DEV_WAIT, DM_FLAGS, DM_GET_TARGET_VERSION, DM_IOCTL_LAYOUT,
    DM_LIST_DEVICES, DM_LIST_VERSIONS, DM_REMOVE_ALL, DM_SUSPEND_FLAG, DM_TABLE_CLEAR,
    DM_TABLE_DEPS, DM_TABLE_LOAD, DM_TABLE_STATUS, DM_TARGET_MSG, DM_VERSION, DM_VERSION_MAJOR,
};
use crate::decode::put_dev;
use crate::format::{Naming, Printer};

/// `struct dm_ioctl` (the code's size).
static DM_IOCTL: Layout = Layout {
    name: "dm_ioctl",
    size: ((DM_VERSION >> 16) & 0x3fff) as usize,
    fields: &[],
};

/// A request of the group: the header both ways.
const fn dm(code: u32, name: &'static str) -> Request {
    Request::new(code, name, IF_OUT | IF_IN, Arg::Custom(&DM_IOCTL))
}

static REQUESTS: &[Request] = &[
    dm(DM_VERSION, "DM_VERSION"),
    dm(DM_REMOVE_ALL, "DM_REMOVE_ALL"),
    dm(DM_LIST_DEVICES, "DM_LIST_DEVICES"),
    dm(DM_DEV_CREATE, "DM_DEV_CREATE"),
    dm(DM_DEV_REMOVE, "DM_DEV_REMOVE"),
    dm(DM_DEV_RENAME, "DM_DEV_RENAME"),
    dm(DM_DEV_SUSPEND, "DM_DEV_SUSPEND"),
    dm(DM_DEV_STATUS, "DM_DEV_STATUS"),
    dm(DM_DEV_WAIT, "DM_DEV_WAIT"),
    dm(DM_DEV_ARM_POLL, "DM_DEV_ARM_POLL"),
    dm(DM_TABLE_LOAD, "DM_TABLE_LOAD"),
    dm(DM_TABLE_CLEAR, "DM_TABLE_CLEAR"),
    dm(DM_TABLE_DEPS, "DM_TABLE_DEPS"),
    dm(DM_TABLE_STATUS, "DM_TABLE_STATUS"),
    dm(DM_LIST_VERSIONS, "DM_LIST_VERSIONS"),
    dm(DM_GET_TARGET_VERSION, "DM_GET_TARGET_VERSION"),
    dm(DM_TARGET_MSG, "DM_TARGET_MSG"),
    dm(DM_DEV_SET_GEOMETRY, "DM_DEV_SET_GEOMETRY"),
];

/// The device mapper group.
pub struct Dm;

/// The one instance the dispatcher uses.
pub static DM: Dm = Dm;

impl IoctlGroup for Dm {
    fn name(&self) -> &'static str {
        "dm"
    }

    fn headers(&self) -> &'static [&'static str] {
        &["linux/dm-ioctl.h"]
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, _p: &mut Printer, _req: &Request, _d: &[u8], _phase: u8) -> bool {
        // The header is read in `custom`: its own `data_size` says whether
        // it can be decoded at all.
        true
    }

    fn custom(&self, p: &mut Printer, req: &Request, addr: u64, phase: u8) {
        let l = DM_IOCTL_LAYOUT;
        let mut d = vec![0u8; field(l, "data").off];
        let readable = addr != 0 && p.config().values_only < 2 && p.mem().read_exact(addr, &mut d);
        // The kernel refuses a header whose size does not reach data_size
        // (as strace, it is then shown as its address).
        if !readable || get(&d, "data_size") < field(l, "data_size").off as u64 {
            p.ptr("arg", addr);
            return;
        }
        p.open("arg", "{", Naming::Fields);
        let all = put_header(p, req.code, &d, phase);
        p.close_struct(all);
    }
}

/// A header field (`d` holds the header up to `data`).
fn get(d: &[u8], name: &str) -> u64 {
    field(DM_IOCTL_LAYOUT, name).read(d).unwrap_or(0)
}

/// Whether `code` takes data after the header (`data_start` matters).
fn has_params(code: u32) -> bool {
    !matches!(
        code,
        DM_VERSION
            | DM_REMOVE_ALL
            | DM_DEV_CREATE
            | DM_DEV_REMOVE
            | DM_DEV_SUSPEND
            | DM_DEV_STATUS
            | DM_TABLE_CLEAR
            | DM_DEV_ARM_POLL
    )
}

/// The header's fields for `phase`; false when a payload follows that is
/// not shown.
fn put_header(p: &mut Printer, code: u32, d: &[u8], phase: u8) -> bool {
    let at = field(DM_IOCTL_LAYOUT, "version").off;
    let version: Vec<u64> = (0..3).map(|i| u32_at(d, at + i * 4) as u64).collect();
    if version[0] != DM_VERSION_MAJOR as u64 {
        put_noted_version(p, &version);
        return true;
    }
    put_version(p, &version);
    let size = get(d, "data_size");
    let data_at = field(DM_IOCTL_LAYOUT, "data").off as u64;
    if size < data_at {
        put_noted(p, "data_size", size, "data_size too small");
        return true;
    }
    p.uint("data_size", size);
    if has_params(code) {
        p.uint("data_start", get(d, "data_start"));
    }
    if !matches!(code, DM_REMOVE_ALL | DM_LIST_DEVICES | DM_LIST_VERSIONS) {
        let dev = get(d, "dev");
        if dev != 0 {
            put_dev(p, "dev", dev);
        }
        for name in ["name", "uuid"] {
            let f = field(DM_IOCTL_LAYOUT, name);
            put_name(p, name, &d[f.off..f.end()]);
        }
    }
    let flags = get(d, "flags");
    if phase == IF_OUT {
        match code {
            DM_TABLE_LOAD => p.uint("target_count", get(d, "target_count")),
            DM_DEV_SUSPEND if flags & DM_SUSPEND_FLAG as u64 != 0 => {}
            DM_DEV_SUSPEND | DM_DEV_RENAME | DM_DEV_REMOVE | DM_DEV_WAIT => {
                p.uint("event_nr", get(d, "event_nr"))
            }
            _ => {}
        }
    } else if matches!(
        code,
        DM_DEV_CREATE
            | DM_DEV_RENAME
            | DM_DEV_SUSPEND
            | DM_DEV_STATUS
            | DM_DEV_WAIT
            | DM_TABLE_LOAD
            | DM_TABLE_CLEAR
            | DM_TABLE_DEPS
            | DM_TABLE_STATUS
            | DM_TARGET_MSG
    ) {
        // What the kernel reports of the device.
        p.uint("target_count", get(d, "target_count"));
        p.int("open_count", get(d, "open_count") as i32 as i64);
        p.uint("event_nr", get(d, "event_nr"));
    }
    p.flags("flags", flags, DM_FLAGS);
    // The data the program passes after the header (targets, a message, a
    // new name) or the kernel's answer there is not decoded.
    let payload = match code {
        DM_TABLE_LOAD => phase == IF_OUT && get(d, "target_count") != 0,
        DM_TARGET_MSG | DM_DEV_RENAME | DM_DEV_SET_GEOMETRY => phase == IF_OUT,
        DM_LIST_DEVICES
        | DM_LIST_VERSIONS
        | DM_TABLE_DEPS
        | DM_TABLE_STATUS
        | DM_GET_TARGET_VERSION => phase == IF_IN,
        _ => false,
    };
    !payload
}

/// A name array, when set: up to its NUL, or all of it marked cut.
fn put_name(p: &mut Printer, name: &str, bytes: &[u8]) {
    if bytes[0] == 0 {
        return;
    }
    match bytes.iter().position(|&b| b == 0) {
        Some(n) => p.string(name, &bytes[..n], false),
        None => p.string(name, &bytes[..bytes.len() - 1], true),
    }
}

/// The interface version, `[4, 1, 2]`.
fn put_version(p: &mut Printer, version: &[u64]) {
    p.open("version", "[", Naming::Elements);
    for &v in version {
        p.uint("", v);
    }
    p.close("]");
}

/// A version this decoder does not know, with strace's note (in JSON the
/// note is its own member).
fn put_noted_version(p: &mut Printer, version: &[u64]) {
    let note = "unsupported device mapper ABI version";
    if p.json() {
        put_version(p, version);
        p.field("note", note);
    } else {
        let text: Vec<String> = version.iter().map(u64::to_string).collect();
        p.field("version", &format!("[{}] /* {note} */", text.join(", ")));
    }
}

/// A number with strace's note after it.
fn put_noted(p: &mut Printer, name: &str, value: u64, note: &str) {
    if p.json() {
        p.uint(name, value);
        p.field("note", note);
    } else {
        p.field(name, &format!("{value} /* {note} */"));
    }
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

// The i386 layout is the native one (its `__u64 dev` is at 40 either way),
// so one layout reads both ABIs' headers.
const _: () = assert!(same_layouts(
    DM_IOCTL_LAYOUT,
    crate::abi::xlat::ioctl::DM_IOCTL_LAYOUT_I386
));
