//! usbdevfs's codes, struct layouts and request table: the ABI facts the
//! decoder in `mod.rs` works from (x86_64 layouts and the `*32` codes of
//! 32-bit programs), every number generated: the native codes from
//! <linux/usbdevice_fs.h> (`abi::xlat::ioctl`), the structs and the 32-bit
//! codes from it and the kernel's include/linux/usbdevice_fs.h
//! (`abi::gen_usbdevfs`). The codes are checked against the ioctl tables
//! by `ioctl::tests::group_codes_match_the_headers`.

use super::super::{Arg, IF_IN, IF_OUT, Layout, PointedArray, Request, Trailing, field, typed};
use crate::abi::gen_usbdevfs as k;
pub use crate::abi::gen_usbdevfs::{
    USBDEVFS_BULK32, USBDEVFS_CONNINFO_EX_CURRENT, USBDEVFS_CONTROL32, USBDEVFS_DISCSIGNAL32,
    USBDEVFS_IOCTL32, USBDEVFS_SUBMITURB32,
};
use crate::abi::layout::Field;
pub(super) use crate::abi::xlat::ioctl::{
    USBDEVFS_ALLOC_STREAMS, USBDEVFS_ALLOW_SUSPEND, USBDEVFS_BULK, USBDEVFS_CLAIM_PORT,
    USBDEVFS_CLAIMINTERFACE, USBDEVFS_CLEAR_HALT, USBDEVFS_CONNECT, USBDEVFS_CONNECTINFO,
    USBDEVFS_CONTROL, USBDEVFS_DISCARDURB, USBDEVFS_DISCONNECT, USBDEVFS_DISCONNECT_CLAIM,
    USBDEVFS_DISCSIGNAL, USBDEVFS_DROP_PRIVILEGES, USBDEVFS_FORBID_SUSPEND, USBDEVFS_FREE_STREAMS,
    USBDEVFS_GET_CAPABILITIES, USBDEVFS_GET_SPEED, USBDEVFS_GETDRIVER, USBDEVFS_HUB_PORTINFO,
    USBDEVFS_IOCTL, USBDEVFS_REAPURB, USBDEVFS_REAPURB32, USBDEVFS_REAPURBNDELAY,
    USBDEVFS_REAPURBNDELAY32, USBDEVFS_RELEASE_PORT, USBDEVFS_RELEASEINTERFACE, USBDEVFS_RESET,
    USBDEVFS_RESETEP, USBDEVFS_SETCONFIGURATION, USBDEVFS_SETINTERFACE, USBDEVFS_SUBMITURB,
    USBDEVFS_WAIT_FOR_RESUME,
};

/// `struct usbdevfs_ctrltransfer`
pub static CTRLTRANSFER: Layout = Layout {
    name: "usbdevfs_ctrltransfer",
    size: k::usbdevfs_ctrltransfer::SIZEOF,
    fields: &[
        typed(k::usbdevfs_ctrltransfer::BREQUESTTYPE, "__u8"),
        typed(k::usbdevfs_ctrltransfer::BREQUEST, "__u8"),
        typed(k::usbdevfs_ctrltransfer::WVALUE, "__u16"),
        typed(k::usbdevfs_ctrltransfer::WINDEX, "__u16"),
        typed(k::usbdevfs_ctrltransfer::WLENGTH, "__u16"),
        typed(k::usbdevfs_ctrltransfer::TIMEOUT, "__u32"),
        typed(k::usbdevfs_ctrltransfer::DATA, "void *"),
    ],
};

/// `struct usbdevfs_ctrltransfer32` (32-bit programs)
pub static CTRLTRANSFER32: Layout = Layout {
    name: "usbdevfs_ctrltransfer32",
    size: k::usbdevfs_ctrltransfer32::SIZEOF,
    fields: &[
        typed(k::usbdevfs_ctrltransfer32::BREQUESTTYPE, "u8"),
        typed(k::usbdevfs_ctrltransfer32::BREQUEST, "u8"),
        typed(k::usbdevfs_ctrltransfer32::WVALUE, "u16"),
        typed(k::usbdevfs_ctrltransfer32::WINDEX, "u16"),
        typed(k::usbdevfs_ctrltransfer32::WLENGTH, "u16"),
        typed(k::usbdevfs_ctrltransfer32::TIMEOUT, "u32"),
        typed(k::usbdevfs_ctrltransfer32::DATA, "compat_caddr_t"),
    ],
};

/// `struct usbdevfs_bulktransfer`
pub static BULKTRANSFER: Layout = Layout {
    name: "usbdevfs_bulktransfer",
    size: k::usbdevfs_bulktransfer::SIZEOF,
    fields: &[
        typed(k::usbdevfs_bulktransfer::EP, "unsigned int"),
        typed(k::usbdevfs_bulktransfer::LEN, "unsigned int"),
        typed(k::usbdevfs_bulktransfer::TIMEOUT, "unsigned int"),
        typed(k::usbdevfs_bulktransfer::DATA, "void *"),
    ],
};

/// `struct usbdevfs_bulktransfer32` (32-bit programs)
pub static BULKTRANSFER32: Layout = Layout {
    name: "usbdevfs_bulktransfer32",
    size: k::usbdevfs_bulktransfer32::SIZEOF,
    fields: &[
        typed(k::usbdevfs_bulktransfer32::EP, "compat_uint_t"),
        typed(k::usbdevfs_bulktransfer32::LEN, "compat_uint_t"),
        typed(k::usbdevfs_bulktransfer32::TIMEOUT, "compat_uint_t"),
        typed(k::usbdevfs_bulktransfer32::DATA, "compat_caddr_t"),
    ],
};

/// `struct usbdevfs_setinterface`
pub static SETINTERFACE: Layout = Layout {
    name: "usbdevfs_setinterface",
    size: k::usbdevfs_setinterface::SIZEOF,
    fields: &[
        typed(k::usbdevfs_setinterface::INTERFACE, "unsigned int"),
        typed(k::usbdevfs_setinterface::ALTSETTING, "unsigned int"),
    ],
};

/// `struct usbdevfs_disconnectsignal`
pub static DISCONNECTSIGNAL: Layout = Layout {
    name: "usbdevfs_disconnectsignal",
    size: k::usbdevfs_disconnectsignal::SIZEOF,
    fields: &[
        typed(k::usbdevfs_disconnectsignal::SIGNR, "unsigned int"),
        typed(k::usbdevfs_disconnectsignal::CONTEXT, "void *"),
    ],
};

/// `struct usbdevfs_disconnectsignal32` (32-bit programs)
pub static DISCONNECTSIGNAL32: Layout = Layout {
    name: "usbdevfs_disconnectsignal32",
    size: k::usbdevfs_disconnectsignal32::SIZEOF,
    fields: &[
        typed(k::usbdevfs_disconnectsignal32::SIGNR, "compat_int_t"),
        typed(k::usbdevfs_disconnectsignal32::CONTEXT, "compat_caddr_t"),
    ],
};

/// `struct usbdevfs_getdriver`
pub static GETDRIVER: Layout = Layout {
    name: "usbdevfs_getdriver",
    size: k::usbdevfs_getdriver::SIZEOF,
    fields: &[
        typed(k::usbdevfs_getdriver::INTERFACE, "unsigned int"),
        typed(k::usbdevfs_getdriver::DRIVER, "char[256]"),
    ],
};

/// `struct usbdevfs_connectinfo`
pub static CONNECTINFO: Layout = Layout {
    name: "usbdevfs_connectinfo",
    size: k::usbdevfs_connectinfo::SIZEOF,
    fields: &[
        typed(k::usbdevfs_connectinfo::DEVNUM, "unsigned int"),
        typed(k::usbdevfs_connectinfo::SLOW, "unsigned char"),
    ],
};

/// `struct usbdevfs_conninfo_ex`
pub static CONNINFO_EX: Layout = Layout {
    name: "usbdevfs_conninfo_ex",
    size: k::usbdevfs_conninfo_ex::SIZEOF,
    fields: &[
        typed(k::usbdevfs_conninfo_ex::SIZE, "__u32"),
        typed(k::usbdevfs_conninfo_ex::BUSNUM, "__u32"),
        typed(k::usbdevfs_conninfo_ex::DEVNUM, "__u32"),
        typed(k::usbdevfs_conninfo_ex::SPEED, "__u32"),
        typed(k::usbdevfs_conninfo_ex::NUM_PORTS, "__u8"),
        typed(k::usbdevfs_conninfo_ex::PORTS, "__u8[7]"),
    ],
};

/// `struct usbdevfs_urb` (followed by `number_of_packets` ISO descriptors
/// for an isochronous URB).
pub static URB: Layout = Layout {
    name: "usbdevfs_urb",
    size: k::usbdevfs_urb::SIZEOF,
    fields: &[
        typed(k::usbdevfs_urb::TYPE, "unsigned char"),
        typed(k::usbdevfs_urb::ENDPOINT, "unsigned char"),
        typed(k::usbdevfs_urb::STATUS, "int"),
        typed(k::usbdevfs_urb::FLAGS, "unsigned int"),
        typed(k::usbdevfs_urb::BUFFER, "void *"),
        typed(k::usbdevfs_urb::BUFFER_LENGTH, "int"),
        typed(k::usbdevfs_urb::ACTUAL_LENGTH, "int"),
        typed(k::usbdevfs_urb::START_FRAME, "int"),
        typed(k::usbdevfs_urb::NUMBER_OF_PACKETS, "int"),
        typed(k::usbdevfs_urb::STREAM_ID, "unsigned int"),
        typed(k::usbdevfs_urb::ERROR_COUNT, "int"),
        typed(k::usbdevfs_urb::SIGNR, "unsigned int"),
        typed(k::usbdevfs_urb::USERCONTEXT, "void *"),
        typed(
            k::usbdevfs_urb::ISO_FRAME_DESC,
            "struct usbdevfs_iso_packet_desc[]",
        ),
    ],
};

/// `struct usbdevfs_urb32` (32-bit programs)
pub static URB32: Layout = Layout {
    name: "usbdevfs_urb32",
    size: k::usbdevfs_urb32::SIZEOF,
    fields: &[
        typed(k::usbdevfs_urb32::TYPE, "unsigned char"),
        typed(k::usbdevfs_urb32::ENDPOINT, "unsigned char"),
        typed(k::usbdevfs_urb32::STATUS, "compat_int_t"),
        typed(k::usbdevfs_urb32::FLAGS, "compat_uint_t"),
        typed(k::usbdevfs_urb32::BUFFER, "compat_caddr_t"),
        typed(k::usbdevfs_urb32::BUFFER_LENGTH, "compat_int_t"),
        typed(k::usbdevfs_urb32::ACTUAL_LENGTH, "compat_int_t"),
        typed(k::usbdevfs_urb32::START_FRAME, "compat_int_t"),
        typed(k::usbdevfs_urb32::NUMBER_OF_PACKETS, "compat_int_t"),
        typed(k::usbdevfs_urb32::ERROR_COUNT, "compat_int_t"),
        typed(k::usbdevfs_urb32::SIGNR, "compat_uint_t"),
        typed(k::usbdevfs_urb32::USERCONTEXT, "compat_caddr_t"),
        typed(
            k::usbdevfs_urb32::ISO_FRAME_DESC,
            "struct usbdevfs_iso_packet_desc[]",
        ),
    ],
};

/// `struct usbdevfs_ioctl`
pub static IOCTL: Layout = Layout {
    name: "usbdevfs_ioctl",
    size: k::usbdevfs_ioctl::SIZEOF,
    fields: &[
        typed(k::usbdevfs_ioctl::IFNO, "int"),
        typed(k::usbdevfs_ioctl::IOCTL_CODE, "int"),
        typed(k::usbdevfs_ioctl::DATA, "void *"),
    ],
};

/// `struct usbdevfs_ioctl32` (32-bit programs)
pub static IOCTL32: Layout = Layout {
    name: "usbdevfs_ioctl32",
    size: k::usbdevfs_ioctl32::SIZEOF,
    fields: &[
        typed(k::usbdevfs_ioctl32::IFNO, "s32"),
        typed(k::usbdevfs_ioctl32::IOCTL_CODE, "s32"),
        typed(k::usbdevfs_ioctl32::DATA, "compat_caddr_t"),
    ],
};

/// `struct usbdevfs_hub_portinfo`
pub static HUB_PORTINFO: Layout = Layout {
    name: "usbdevfs_hub_portinfo",
    size: k::usbdevfs_hub_portinfo::SIZEOF,
    fields: &[
        typed(k::usbdevfs_hub_portinfo::NPORTS, "char"),
        typed(k::usbdevfs_hub_portinfo::PORT, "char[127]"),
    ],
};

/// `struct usbdevfs_disconnect_claim`
pub static DISCONNECT_CLAIM: Layout = Layout {
    name: "usbdevfs_disconnect_claim",
    size: k::usbdevfs_disconnect_claim::SIZEOF,
    fields: &[
        typed(k::usbdevfs_disconnect_claim::INTERFACE, "unsigned int"),
        typed(k::usbdevfs_disconnect_claim::FLAGS, "unsigned int"),
        typed(k::usbdevfs_disconnect_claim::DRIVER, "char[256]"),
    ],
};

/// `struct usbdevfs_streams` (followed by `num_eps` endpoint addresses).
pub static STREAMS: Layout = Layout {
    name: "usbdevfs_streams",
    size: k::usbdevfs_streams::SIZEOF,
    fields: &[
        typed(k::usbdevfs_streams::NUM_STREAMS, "unsigned int"),
        typed(k::usbdevfs_streams::NUM_EPS, "unsigned int"),
        typed(k::usbdevfs_streams::EPS, "unsigned char[]"),
    ],
};

/// The `__u32` GET_CAPABILITIES writes: a layout only so that its
/// USBDEVFS_CAP_* bits are decoded (`caps` is devio.c's name for it).
pub static CAPABILITIES: Layout = Layout {
    name: "__u32",
    size: 4,
    fields: &[field("caps", "__u32", 0, 4)],
};

/// The bytes behind a transfer's pointer member `data` (a field of the
/// request's own layout: the compat codes' structs are i386's), as many as
/// its `count` member says, read when `dirs` says: what the decoders show
/// of them (as far as `-s`), which the BPF engine copies with the struct.
const fn transfer_data(data: Field, count: Field, dirs: u8) -> PointedArray {
    PointedArray {
        ptr_offset: data.off,
        ptr_offset_i386: Some(data.off),
        count_offset: count.off,
        count_size: count.size,
        count_arg: None,
        unit: 1,
        shown: 1,
        dirs,
        each: None,
        trailing: None,
        string: None,
    }
}

/// devio.c's limit on an ISO URB's packets (what `-v` shows of them).
pub(super) const ISO_PACKETS_MAX: usize = 128;
/// ISO descriptors a reaped URB shows before `..` (without -v).
pub(super) const ISO_DESCS_SHOWN: usize = 8;

/// The URB whose address REAPURB stores through its argument (a pointer
/// at offset 0 of it), with what the decoder shows of it after the call
/// (`urb::reaped`): the struct, its ISO packet descriptors after it, and
/// its buffer as far as `-s`. The buffer is copied as far as
/// `buffer_length` allows rather than `actual_length` says: a control
/// URB's data follows its 8-byte setup packet, which the length leaves
/// out.
const fn reaped(urb: usize, buffer: Field, buffer_length: Field, packets: Field) -> PointedArray {
    PointedArray {
        ptr_offset: 0,
        ptr_offset_i386: Some(0),
        count_offset: 0,
        count_size: 0,
        count_arg: None,
        unit: urb,
        shown: 1,
        dirs: IF_IN,
        each: Some((buffer.off, buffer_length.off)),
        trailing: Some(Trailing {
            count_offset: packets.off,
            count_size: packets.size,
            elem: k::usbdevfs_iso_packet_desc::SIZEOF,
            shown: ISO_DESCS_SHOWN,
            shown_verbose: ISO_PACKETS_MAX,
        }),
        string: None,
    }
}

/// A native caller's reaped URB.
const REAPED: PointedArray = reaped(
    k::usbdevfs_urb::SIZEOF,
    k::usbdevfs_urb::BUFFER,
    k::usbdevfs_urb::BUFFER_LENGTH,
    k::usbdevfs_urb::NUMBER_OF_PACKETS,
);

/// A 32-bit caller's (`compat_uptr_t` pointers, `struct usbdevfs_urb32`).
const REAPED32: PointedArray = reaped(
    k::usbdevfs_urb32::SIZEOF,
    k::usbdevfs_urb32::BUFFER,
    k::usbdevfs_urb32::BUFFER_LENGTH,
    k::usbdevfs_urb32::NUMBER_OF_PACKETS,
);

pub(super) static REQUESTS: &[Request] = &[
    // devio.c copies the struct in and writes only through `data` (the IN
    // bytes, printed by `extended`): decoded before the call.
    Request::new(
        USBDEVFS_CONTROL,
        "USBDEVFS_CONTROL",
        IF_OUT,
        Arg::Struct(&CTRLTRANSFER),
    )
    .pointing(transfer_data(
        k::usbdevfs_ctrltransfer::DATA,
        k::usbdevfs_ctrltransfer::WLENGTH,
        IF_OUT | IF_IN,
    )),
    Request::new(
        USBDEVFS_CONTROL32,
        "USBDEVFS_CONTROL32",
        IF_OUT,
        Arg::Struct(&CTRLTRANSFER32),
    )
    .pointing(transfer_data(
        k::usbdevfs_ctrltransfer32::DATA,
        k::usbdevfs_ctrltransfer32::WLENGTH,
        IF_OUT | IF_IN,
    )),
    Request::new(
        USBDEVFS_BULK,
        "USBDEVFS_BULK",
        IF_OUT,
        Arg::Struct(&BULKTRANSFER),
    )
    .pointing(transfer_data(
        k::usbdevfs_bulktransfer::DATA,
        k::usbdevfs_bulktransfer::LEN,
        IF_OUT | IF_IN,
    )),
    Request::new(
        USBDEVFS_BULK32,
        "USBDEVFS_BULK32",
        IF_OUT,
        Arg::Struct(&BULKTRANSFER32),
    )
    .pointing(transfer_data(
        k::usbdevfs_bulktransfer32::DATA,
        k::usbdevfs_bulktransfer32::LEN,
        IF_OUT | IF_IN,
    )),
    // _IOR, but get_user(): the kernel reads them.
    Request::legacy(USBDEVFS_RESETEP, "USBDEVFS_RESETEP", IF_OUT, Arg::Int),
    Request::legacy(
        USBDEVFS_SETINTERFACE,
        "USBDEVFS_SETINTERFACE",
        IF_OUT,
        Arg::Struct(&SETINTERFACE),
    ),
    Request::legacy(
        USBDEVFS_SETCONFIGURATION,
        "USBDEVFS_SETCONFIGURATION",
        IF_OUT,
        Arg::Int,
    ),
    // _IOW, but the interface is read and the whole struct written back.
    Request::legacy(
        USBDEVFS_GETDRIVER,
        "USBDEVFS_GETDRIVER",
        IF_OUT | IF_IN,
        Arg::Struct(&GETDRIVER),
    ),
    // _IOR, but copy_from_user(); the kernel writes the URB at reap time.
    Request::legacy(
        USBDEVFS_SUBMITURB,
        "USBDEVFS_SUBMITURB",
        IF_OUT,
        Arg::Struct(&URB),
    )
    .pointing(transfer_data(
        k::usbdevfs_urb::BUFFER,
        k::usbdevfs_urb::BUFFER_LENGTH,
        IF_OUT,
    )),
    Request::legacy(
        USBDEVFS_SUBMITURB32,
        "USBDEVFS_SUBMITURB32",
        IF_OUT,
        Arg::Struct(&URB32),
    )
    .pointing(transfer_data(
        k::usbdevfs_urb32::BUFFER,
        k::usbdevfs_urb32::BUFFER_LENGTH,
        IF_OUT,
    )),
    // _IO, but the argument is the address of the URB to cancel.
    Request::legacy(USBDEVFS_DISCARDURB, "USBDEVFS_DISCARDURB", 0, Arg::Ptr),
    // _IOW, but put_user() stores the reaped URB's address: printed by
    // `extended` with the URB it points to.
    Request::legacy(USBDEVFS_REAPURB, "USBDEVFS_REAPURB", IF_IN, Arg::Ptr).pointing(REAPED),
    Request::legacy(USBDEVFS_REAPURB32, "USBDEVFS_REAPURB32", IF_IN, Arg::Ptr).pointing(REAPED32),
    Request::legacy(
        USBDEVFS_REAPURBNDELAY,
        "USBDEVFS_REAPURBNDELAY",
        IF_IN,
        Arg::Ptr,
    )
    .pointing(REAPED),
    Request::legacy(
        USBDEVFS_REAPURBNDELAY32,
        "USBDEVFS_REAPURBNDELAY32",
        IF_IN,
        Arg::Ptr,
    )
    .pointing(REAPED32),
    Request::legacy(
        USBDEVFS_DISCSIGNAL,
        "USBDEVFS_DISCSIGNAL",
        IF_OUT,
        Arg::Struct(&DISCONNECTSIGNAL),
    ),
    Request::legacy(
        USBDEVFS_DISCSIGNAL32,
        "USBDEVFS_DISCSIGNAL32",
        IF_OUT,
        Arg::Struct(&DISCONNECTSIGNAL32),
    ),
    Request::legacy(
        USBDEVFS_CLAIMINTERFACE,
        "USBDEVFS_CLAIMINTERFACE",
        IF_OUT,
        Arg::Int,
    ),
    Request::legacy(
        USBDEVFS_RELEASEINTERFACE,
        "USBDEVFS_RELEASEINTERFACE",
        IF_OUT,
        Arg::Int,
    ),
    // _IOW, but copy_to_user(): the kernel writes it.
    Request::legacy(
        USBDEVFS_CONNECTINFO,
        "USBDEVFS_CONNECTINFO",
        IF_IN,
        Arg::Struct(&CONNECTINFO),
    ),
    Request::new(
        USBDEVFS_IOCTL,
        "USBDEVFS_IOCTL",
        IF_OUT,
        Arg::Struct(&IOCTL),
    ),
    Request::new(
        USBDEVFS_IOCTL32,
        "USBDEVFS_IOCTL32",
        IF_OUT,
        Arg::Struct(&IOCTL32),
    ),
    // Served by the hub driver as the inner code of USBDEVFS_IOCTL.
    Request::new(
        USBDEVFS_HUB_PORTINFO,
        "USBDEVFS_HUB_PORTINFO",
        IF_IN,
        Arg::Struct(&HUB_PORTINFO),
    ),
    Request::new(USBDEVFS_RESET, "USBDEVFS_RESET", 0, Arg::None),
    Request::legacy(USBDEVFS_CLEAR_HALT, "USBDEVFS_CLEAR_HALT", IF_OUT, Arg::Int),
    // Inner codes of USBDEVFS_IOCTL.
    Request::new(USBDEVFS_DISCONNECT, "USBDEVFS_DISCONNECT", 0, Arg::None),
    Request::new(USBDEVFS_CONNECT, "USBDEVFS_CONNECT", 0, Arg::None),
    Request::legacy(USBDEVFS_CLAIM_PORT, "USBDEVFS_CLAIM_PORT", IF_OUT, Arg::Int),
    Request::legacy(
        USBDEVFS_RELEASE_PORT,
        "USBDEVFS_RELEASE_PORT",
        IF_OUT,
        Arg::Int,
    ),
    Request::new(
        USBDEVFS_GET_CAPABILITIES,
        "USBDEVFS_GET_CAPABILITIES",
        IF_IN,
        Arg::Struct(&CAPABILITIES),
    ),
    Request::legacy(
        USBDEVFS_DISCONNECT_CLAIM,
        "USBDEVFS_DISCONNECT_CLAIM",
        IF_OUT,
        Arg::Struct(&DISCONNECT_CLAIM),
    ),
    Request::legacy(
        USBDEVFS_ALLOC_STREAMS,
        "USBDEVFS_ALLOC_STREAMS",
        IF_OUT,
        Arg::Struct(&STREAMS),
    ),
    Request::legacy(
        USBDEVFS_FREE_STREAMS,
        "USBDEVFS_FREE_STREAMS",
        IF_OUT,
        Arg::Struct(&STREAMS),
    ),
    Request::new(
        USBDEVFS_DROP_PRIVILEGES,
        "USBDEVFS_DROP_PRIVILEGES",
        IF_OUT,
        Arg::Int,
    ),
    // The speed is the call's result.
    Request::new(USBDEVFS_GET_SPEED, "USBDEVFS_GET_SPEED", 0, Arg::None),
    Request::new(
        USBDEVFS_CONNINFO_EX_CURRENT,
        "USBDEVFS_CONNINFO_EX(24)",
        IF_IN,
        Arg::Struct(&CONNINFO_EX),
    ),
    Request::new(
        USBDEVFS_FORBID_SUSPEND,
        "USBDEVFS_FORBID_SUSPEND",
        0,
        Arg::None,
    ),
    Request::new(
        USBDEVFS_ALLOW_SUSPEND,
        "USBDEVFS_ALLOW_SUSPEND",
        0,
        Arg::None,
    ),
    Request::new(
        USBDEVFS_WAIT_FOR_RESUME,
        "USBDEVFS_WAIT_FOR_RESUME",
        0,
        Arg::None,
    ),
];
