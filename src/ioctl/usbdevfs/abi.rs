//! usbdevfs's codes, struct layouts and request table: the ABI facts the
//! decoder in `mod.rs` works from (x86_64 layouts and the `*32` codes of
//! 32-bit programs). The codes are checked against the generated tables of
//! the kernel's headers by `ioctl::tests::group_codes_match_the_headers`.

use super::super::{Arg, IF_IN, IF_OUT, Layout, Request, field};
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
    size: 24,
    fields: &[
        field("bRequestType", "__u8", 0, 1),
        field("bRequest", "__u8", 1, 1),
        field("wValue", "__u16", 2, 2),
        field("wIndex", "__u16", 4, 2),
        field("wLength", "__u16", 6, 2),
        field("timeout", "__u32", 8, 4),
        field("data", "void *", 16, 8),
    ],
};

/// `struct usbdevfs_ctrltransfer32` (32-bit programs)
pub static CTRLTRANSFER32: Layout = Layout {
    name: "usbdevfs_ctrltransfer32",
    size: 16,
    fields: &[
        field("bRequestType", "u8", 0, 1),
        field("bRequest", "u8", 1, 1),
        field("wValue", "u16", 2, 2),
        field("wIndex", "u16", 4, 2),
        field("wLength", "u16", 6, 2),
        field("timeout", "u32", 8, 4),
        field("data", "compat_caddr_t", 12, 4),
    ],
};

/// `struct usbdevfs_bulktransfer`
pub static BULKTRANSFER: Layout = Layout {
    name: "usbdevfs_bulktransfer",
    size: 24,
    fields: &[
        field("ep", "unsigned int", 0, 4),
        field("len", "unsigned int", 4, 4),
        field("timeout", "unsigned int", 8, 4),
        field("data", "void *", 16, 8),
    ],
};

/// `struct usbdevfs_bulktransfer32` (32-bit programs)
pub static BULKTRANSFER32: Layout = Layout {
    name: "usbdevfs_bulktransfer32",
    size: 16,
    fields: &[
        field("ep", "compat_uint_t", 0, 4),
        field("len", "compat_uint_t", 4, 4),
        field("timeout", "compat_uint_t", 8, 4),
        field("data", "compat_caddr_t", 12, 4),
    ],
};

/// `struct usbdevfs_setinterface`
pub static SETINTERFACE: Layout = Layout {
    name: "usbdevfs_setinterface",
    size: 8,
    fields: &[
        field("interface", "unsigned int", 0, 4),
        field("altsetting", "unsigned int", 4, 4),
    ],
};

/// `struct usbdevfs_disconnectsignal`
pub static DISCONNECTSIGNAL: Layout = Layout {
    name: "usbdevfs_disconnectsignal",
    size: 16,
    fields: &[
        field("signr", "unsigned int", 0, 4),
        field("context", "void *", 8, 8),
    ],
};

/// `struct usbdevfs_disconnectsignal32` (32-bit programs)
pub static DISCONNECTSIGNAL32: Layout = Layout {
    name: "usbdevfs_disconnectsignal32",
    size: 8,
    fields: &[
        field("signr", "compat_int_t", 0, 4),
        field("context", "compat_caddr_t", 4, 4),
    ],
};

/// `struct usbdevfs_getdriver`
pub static GETDRIVER: Layout = Layout {
    name: "usbdevfs_getdriver",
    size: 260,
    fields: &[
        field("interface", "unsigned int", 0, 4),
        field("driver", "char[256]", 4, 256),
    ],
};

/// `struct usbdevfs_connectinfo`
pub static CONNECTINFO: Layout = Layout {
    name: "usbdevfs_connectinfo",
    size: 8,
    fields: &[
        field("devnum", "unsigned int", 0, 4),
        field("slow", "unsigned char", 4, 1),
    ],
};

/// `struct usbdevfs_conninfo_ex`
pub static CONNINFO_EX: Layout = Layout {
    name: "usbdevfs_conninfo_ex",
    size: 24,
    fields: &[
        field("size", "__u32", 0, 4),
        field("busnum", "__u32", 4, 4),
        field("devnum", "__u32", 8, 4),
        field("speed", "__u32", 12, 4),
        field("num_ports", "__u8", 16, 1),
        field("ports", "__u8[7]", 17, 7),
    ],
};

/// `struct usbdevfs_urb` (followed by `number_of_packets` ISO descriptors
/// for an isochronous URB).
pub static URB: Layout = Layout {
    name: "usbdevfs_urb",
    size: 56,
    fields: &[
        field("type", "unsigned char", 0, 1),
        field("endpoint", "unsigned char", 1, 1),
        field("status", "int", 4, 4),
        field("flags", "unsigned int", 8, 4),
        field("buffer", "void *", 16, 8),
        field("buffer_length", "int", 24, 4),
        field("actual_length", "int", 28, 4),
        field("start_frame", "int", 32, 4),
        field("number_of_packets", "int", 36, 4),
        field("stream_id", "unsigned int", 36, 4),
        field("error_count", "int", 40, 4),
        field("signr", "unsigned int", 44, 4),
        field("usercontext", "void *", 48, 8),
        field("iso_frame_desc", "struct usbdevfs_iso_packet_desc[]", 56, 0),
    ],
};

/// `struct usbdevfs_urb32` (32-bit programs)
pub static URB32: Layout = Layout {
    name: "usbdevfs_urb32",
    size: 44,
    fields: &[
        field("type", "unsigned char", 0, 1),
        field("endpoint", "unsigned char", 1, 1),
        field("status", "compat_int_t", 4, 4),
        field("flags", "compat_uint_t", 8, 4),
        field("buffer", "compat_caddr_t", 12, 4),
        field("buffer_length", "compat_int_t", 16, 4),
        field("actual_length", "compat_int_t", 20, 4),
        field("start_frame", "compat_int_t", 24, 4),
        field("number_of_packets", "compat_int_t", 28, 4),
        field("error_count", "compat_int_t", 32, 4),
        field("signr", "compat_uint_t", 36, 4),
        field("usercontext", "compat_caddr_t", 40, 4),
        field("iso_frame_desc", "struct usbdevfs_iso_packet_desc[]", 44, 0),
    ],
};

/// `struct usbdevfs_ioctl`
pub static IOCTL: Layout = Layout {
    name: "usbdevfs_ioctl",
    size: 16,
    fields: &[
        field("ifno", "int", 0, 4),
        field("ioctl_code", "int", 4, 4),
        field("data", "void *", 8, 8),
    ],
};

/// `struct usbdevfs_ioctl32` (32-bit programs)
pub static IOCTL32: Layout = Layout {
    name: "usbdevfs_ioctl32",
    size: 12,
    fields: &[
        field("ifno", "s32", 0, 4),
        field("ioctl_code", "s32", 4, 4),
        field("data", "compat_caddr_t", 8, 4),
    ],
};

/// `struct usbdevfs_hub_portinfo`
pub static HUB_PORTINFO: Layout = Layout {
    name: "usbdevfs_hub_portinfo",
    size: 128,
    fields: &[
        field("nports", "char", 0, 1),
        field("port", "char[127]", 1, 127),
    ],
};

/// `struct usbdevfs_disconnect_claim`
pub static DISCONNECT_CLAIM: Layout = Layout {
    name: "usbdevfs_disconnect_claim",
    size: 264,
    fields: &[
        field("interface", "unsigned int", 0, 4),
        field("flags", "unsigned int", 4, 4),
        field("driver", "char[256]", 8, 256),
    ],
};

/// `struct usbdevfs_streams` (followed by `num_eps` endpoint addresses).
pub static STREAMS: Layout = Layout {
    name: "usbdevfs_streams",
    size: 8,
    fields: &[
        field("num_streams", "unsigned int", 0, 4),
        field("num_eps", "unsigned int", 4, 4),
        field("eps", "unsigned char[]", 8, 0),
    ],
};

/// The `__u32` GET_CAPABILITIES writes: a layout only so that its
/// USBDEVFS_CAP_* bits are decoded (`caps` is devio.c's name for it).
pub static CAPABILITIES: Layout = Layout {
    name: "__u32",
    size: 4,
    fields: &[field("caps", "__u32", 0, 4)],
};

/// `USBDEVFS_CONTROL32`
pub const USBDEVFS_CONTROL32: u32 = 0xC010_5500;
/// `USBDEVFS_BULK32`
pub const USBDEVFS_BULK32: u32 = 0xC010_5502;
/// `USBDEVFS_SUBMITURB32`
pub const USBDEVFS_SUBMITURB32: u32 = 0x802C_550A;
/// `USBDEVFS_DISCSIGNAL32`
pub const USBDEVFS_DISCSIGNAL32: u32 = 0x8008_550E;
/// `USBDEVFS_IOCTL32`
pub const USBDEVFS_IOCTL32: u32 = 0xC00C_5512;
/// `USBDEVFS_CONNINFO_EX(sizeof(struct usbdevfs_conninfo_ex))`: the code is
/// `_IOC(_IOC_READ, 'U', 32, len)`; this is the one for today's 24 bytes.
pub const USBDEVFS_CONNINFO_EX_24: u32 = 0x8018_5520;

pub(super) static REQUESTS: &[Request] = &[
    // devio.c copies the struct in and writes only through `data` (the IN
    // bytes, printed by `extended`): decoded before the call.
    Request::new(
        USBDEVFS_CONTROL,
        "USBDEVFS_CONTROL",
        IF_OUT,
        Arg::Struct(&CTRLTRANSFER),
    ),
    Request::new(
        USBDEVFS_CONTROL32,
        "USBDEVFS_CONTROL32",
        IF_OUT,
        Arg::Struct(&CTRLTRANSFER32),
    ),
    Request::new(
        USBDEVFS_BULK,
        "USBDEVFS_BULK",
        IF_OUT,
        Arg::Struct(&BULKTRANSFER),
    ),
    Request::new(
        USBDEVFS_BULK32,
        "USBDEVFS_BULK32",
        IF_OUT,
        Arg::Struct(&BULKTRANSFER32),
    ),
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
    ),
    Request::legacy(
        USBDEVFS_SUBMITURB32,
        "USBDEVFS_SUBMITURB32",
        IF_OUT,
        Arg::Struct(&URB32),
    ),
    // _IO, but the argument is the address of the URB to cancel.
    Request::legacy(USBDEVFS_DISCARDURB, "USBDEVFS_DISCARDURB", 0, Arg::Ptr),
    // _IOW, but put_user() stores the reaped URB's address: printed by
    // `extended` with the URB it points to.
    Request::legacy(USBDEVFS_REAPURB, "USBDEVFS_REAPURB", IF_IN, Arg::Ptr),
    Request::legacy(USBDEVFS_REAPURB32, "USBDEVFS_REAPURB32", IF_IN, Arg::Ptr),
    Request::legacy(
        USBDEVFS_REAPURBNDELAY,
        "USBDEVFS_REAPURBNDELAY",
        IF_IN,
        Arg::Ptr,
    ),
    Request::legacy(
        USBDEVFS_REAPURBNDELAY32,
        "USBDEVFS_REAPURBNDELAY32",
        IF_IN,
        Arg::Ptr,
    ),
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
        USBDEVFS_CONNINFO_EX_24,
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
