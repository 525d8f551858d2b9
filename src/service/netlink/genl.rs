//! Generic netlink payloads (NETLINK_GENERIC): `struct genlmsghdr` and
//! attributes. Family ids other than the controller's (GENL_ID_CTRL) are
//! given out at run time, so only the controller's commands and
//! attributes have names; other families show attribute numbers.

use super::consts::*;
use super::{Attrs, Msg, Val, num, put_attrs, put_bytes, put_struct};
use crate::format::Printer;
use crate::service::raw::lookup;

/// The payload of a generic netlink message.
pub(super) fn payload(p: &mut Printer, msg: Msg, b: &[u8]) {
    if b.len() < GENLMSGHDR.size {
        return put_bytes(p, "", b);
    }
    let ctrl = msg.type_name() == Some("GENL_ID_CTRL");
    put_struct(p, "", &GENLMSGHDR, b, &mut |p, f, v| {
        if f.name == "cmd" && ctrl {
            let n = num(f, v) as i64;
            p.symbol(f.name, n, lookup(CTRL_CMDS, n));
            return true;
        }
        false
    });
    let rest = b.get(super::align(GENLMSGHDR.size)..).unwrap_or(&[]);
    if !rest.is_empty() {
        put_attrs(p, rest, if ctrl { &CTRL } else { &OTHER }, 0);
    }
}

/// The controller's CTRL_ATTR_*.
static CTRL: Attrs = Attrs {
    names: CTRL_ATTRS,
    kind: |name| match name {
        "CTRL_ATTR_FAMILY_ID" => Val::U16,
        "CTRL_ATTR_FAMILY_NAME" => Val::Str,
        "CTRL_ATTR_VERSION" | "CTRL_ATTR_HDRSIZE" | "CTRL_ATTR_MAXATTR" | "CTRL_ATTR_OP" => {
            Val::U32
        }
        _ => Val::Bytes,
    },
};

/// Another family's attributes: numbers and bytes.
static OTHER: Attrs = Attrs {
    names: &[],
    kind: |_| Val::Bytes,
};
