//! Netlink messages: what a program sends to or receives from a netlink
//! socket (sendto, sendmsg, recvfrom, recvmsg, write, read), decoded as
//! strace shows it, which is what users of `ip` and `ss` traces expect:
//!
//! ```text
//! [{nlmsg_len=40, nlmsg_type=RTM_GETLINK, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP,
//!   nlmsg_seq=1, nlmsg_pid=0}, {ifi_family=AF_UNSPEC, ...},
//!  [{nla_len=8, nla_type=IFLA_EXT_MASK}, RTEXT_FILTER_VF]]
//! ```
//!
//! A message with a payload is `[header, payload, attributes]`; several
//! messages in one buffer are an array of those. Attributes are
//! `[{nla_len, nla_type}, value]`, a list of them when there are several.
//! Arrays (messages, attributes) are cut after `-s` elements, as strace
//! cuts its arrays; a buffer that was not all readable ends with `..`.
//!
//! The fd table says which sockets are netlink sockets and their protocol;
//! the message types, flags, attribute names and struct layouts come from
//! `consts.rs`, generated from the kernel's headers. This module owns the
//! message framing, the message types of NETLINK_AUDIT, NETLINK_XFRM and
//! NETLINK_NETFILTER (whose payloads, but netfilter's `struct nfgenmsg`,
//! show as bytes) and struct printing; `attr.rs` the attributes;
//! `route.rs`, `route_link.rs` and `route_linkinfo.rs` (rtnetlink), `diag.rs` and
//! `diag_local.rs` (sock_diag) and `genl.rs` (generic netlink) the
//! payloads.

#[allow(dead_code)]
mod attr;
mod consts;
mod diag;
mod diag_local;
mod genl;
mod route;
mod route_link;
mod route_linkinfo;

use crate::abi::xlat::net::FAMILIES;
use crate::fdtable::FdTable;
use crate::format::{FlagDef, Naming, Printer, flags_text};
use crate::service::family::put_mac;
use crate::service::raw::{i32_at, int_at, lookup, put_composed, u16_at, u32_at, uint_at};
use attr::{Attrs, Indexed, Val, put_attrs};
use consts::*;

/// One field of a generated struct layout.
pub struct Field {
    /// Its name in the kernel header.
    pub name: &'static str,
    /// Byte offset.
    pub off: usize,
    /// Size of one element.
    pub size: usize,
    /// Elements (1 unless the field is an array).
    pub count: usize,
    /// Whether the field's (or its elements') type is signed.
    pub signed: bool,
}

impl Field {
    /// An unsigned field (or a struct) at `off` of `count` elements of
    /// `size` bytes.
    pub const fn new(name: &'static str, off: usize, size: usize, count: usize) -> Field {
        Field {
            name,
            off,
            size,
            count,
            signed: false,
        }
    }

    /// A signed field at `off` of `count` elements of `size` bytes.
    pub const fn signed(name: &'static str, off: usize, size: usize, count: usize) -> Field {
        Field {
            signed: true,
            ..Field::new(name, off, size, count)
        }
    }
}

/// A struct layout generated from a kernel header.
pub struct Layout {
    /// `sizeof` the struct.
    pub size: usize,
    /// Its fields in order.
    pub fields: &'static [Field],
}

/// Most bytes of one buffer decoded; the rest shows as `..`.
const MAX_DECODE: usize = 1 << 20;
/// Attribute nesting decoded before the payload shows as bytes.
const MAX_DEPTH: usize = 8;

/// The netlink protocol of socket `fd`, if it is a netlink socket.
pub fn protocol(fds: &FdTable, fd: i64) -> Option<u16> {
    if fd < 0 || fd > i32::MAX as i64 {
        return None;
    }
    fds.netlink_protocol(fd as i32)
}

/// The buffer being decoded, while it is: where its bytes are in rtrace
/// (the host address of the first) and in the tracee, and how many could
/// be read when the tracee's memory ended before the buffer did. A payload
/// the unreadable memory cuts is shown as its tracee address, as strace
/// shows a payload it cannot read; the decoders get slices of the copy,
/// so the address is found from where the slice sits in it.
#[derive(Clone, Copy)]
struct Origin {
    host: usize,
    tracee: u64,
    readable: usize,
}

thread_local! {
    static ORIGIN: std::cell::Cell<Option<Origin>> = const { std::cell::Cell::new(None) };
    /// The address family of the rtnetlink message whose attributes are
    /// being decoded: an address attribute (`Val::Ip`) is an address of
    /// that family, bytes under any family but AF_INET and AF_INET6, as
    /// strace shows it.
    static FAMILY: std::cell::Cell<Option<u8>> = const { std::cell::Cell::new(None) };
}

/// `put` with the attributes' address family set to `family`.
fn with_family(family: u8, put: impl FnOnce()) {
    let before = FAMILY.with(|c| c.replace(Some(family)));
    put();
    FAMILY.with(|c| c.set(before));
}

/// Whether the rtnetlink message being decoded is of address family
/// `name`.
fn family_is(name: &str) -> bool {
    FAMILY
        .with(|c| c.get())
        .is_some_and(|f| f as i64 == lookup_value(FAMILIES, name))
}

/// Whether the message's family (if any) has the addresses `put_ip`
/// prints.
fn ip_family() -> bool {
    FAMILY.with(|c| c.get()).is_none_or(|f| {
        [
            lookup_value(FAMILIES, "AF_INET"),
            lookup_value(FAMILIES, "AF_INET6"),
        ]
        .contains(&(f as i64))
    })
}

/// The tracee address of `v`'s first byte, if `v` is a part of the buffer
/// being decoded whose readable bytes end where `v` ends (so the tracee
/// memory after it could not be read).
fn cut_at(v: &[u8]) -> Option<u64> {
    let o = ORIGIN.with(|c| c.get())?;
    let start = (v.as_ptr() as usize).checked_sub(o.host)?;
    (start + v.len() == o.readable).then_some(o.tracee + start as u64)
}

/// `len` bytes at `addr` sent to or received from socket `fd`: netlink
/// messages if it is a netlink socket, else (and if nothing could be
/// read) the buffer as a string, as `p.buf` prints it.
pub fn put_buf(p: &mut Printer, fds: &FdTable, fd: i64, name: &str, addr: u64, len: u64) {
    put_buf_as(p, protocol(fds, fd), name, addr, len);
}

/// [`put_buf`] for a socket whose protocol is already known (`None`: not
/// a netlink socket).
pub fn put_buf_as(p: &mut Printer, proto: Option<u16>, name: &str, addr: u64, len: u64) {
    // Uevents are text (`add@/devices/...`), not netlink messages.
    let uevent = lookup_value(NETLINK_PROTOCOLS, "NETLINK_KOBJECT_UEVENT");
    if let Some(proto) = proto.filter(|&p| p as i64 != uevent)
        && addr != 0
        && p.config().values_only < 2
        && len >= NLMSGHDR.size as u64
    {
        let want = (len as usize).min(MAX_DECODE);
        let mut b = vec![0u8; want];
        let got = p.mem().read(addr, &mut b);
        if got >= NLMSGHDR.size {
            b.truncate(got);
            let cut = got < len as usize;
            if cut {
                let origin = Origin {
                    host: b.as_ptr() as usize,
                    tracee: addr,
                    readable: got,
                };
                ORIGIN.with(|c| c.set(Some(origin)));
            }
            put_messages(p, name, proto, &b, cut.then_some(len as usize));
            ORIGIN.with(|c| c.set(None));
            return;
        }
    }
    p.buf(name, addr, len);
}

/// Elements shown in one array: `-s`, as strace bounds its arrays.
fn max_items(p: &Printer) -> usize {
    p.config().string_limit.max(1)
}

/// `len` rounded up to netlink's 4-byte alignment (NLMSG_ALIGN, NLA_ALIGN).
fn align(len: usize) -> usize {
    len.saturating_add(3) & !3
}

/// The messages in `b`; `whole` the buffer's length when it went on
/// beyond `b` (its memory could not all be read).
fn put_messages(p: &mut Printer, name: &str, proto: u16, b: &[u8], whole: Option<usize>) {
    let hdr = NLMSGHDR.size;
    // Where each message starts, and whether bytes follow the last one.
    let mut starts = Vec::new();
    let mut off = 0;
    while off + hdr <= b.len() {
        starts.push(off);
        let len = u32_at(b, off) as usize;
        if len < hdr {
            // A header that does not cover itself ends the walk (the
            // kernel's NLMSG_OK): nothing after it can be framed.
            off = b.len();
            break;
        }
        off = off.saturating_add(align(len));
    }
    // Unread bytes past the last message's end are more messages; those
    // inside it are its own (shown where its payload is cut).
    let rest = off < b.len() || whole.is_some_and(|w| off < w);
    let many = starts.len() > 1 || rest;
    if many {
        p.open(name, "[", Naming::Elements);
    }
    let limit = max_items(p);
    for (i, &start) in starts.iter().enumerate() {
        if i == limit {
            p.more();
            break;
        }
        let len = (u32_at(b, start) as usize).max(hdr);
        let end = start.saturating_add(len).min(b.len());
        put_message(p, if many { "" } else { name }, proto, &b[start..end]);
    }
    if many {
        if rest && starts.len() <= limit {
            // Bytes too few for another header: as bytes; where the
            // unreadable memory cut the buffer, the address of what could
            // not be read (strace too).
            let tail = b.get(off..).unwrap_or(&[]);
            match cut_at(tail).filter(|_| off <= b.len()) {
                Some(at) => p.ptr("", at),
                None if !tail.is_empty() && tail.len() < hdr => put_bytes(p, "", tail),
                None => p.more(),
            }
        }
        p.close("]");
    }
}

/// What one message's header says, for its payload's decoder.
#[derive(Clone, Copy)]
struct Msg {
    proto: u16,
    kind: u16,
    flags: u16,
}

impl Msg {
    /// The type's name: a control message, or the protocol's own.
    fn type_name(self) -> Option<&'static str> {
        let kind = self.kind as i64;
        if kind < lookup_value(NLMSG_LIMITS, "NLMSG_MIN_TYPE") {
            return lookup(NLMSG_TYPES, kind);
        }
        match lookup(NETLINK_PROTOCOLS, self.proto as i64)? {
            "NETLINK_ROUTE" => lookup(RTM_TYPES, kind),
            "NETLINK_SOCK_DIAG" => lookup(SOCK_DIAG_TYPES, kind),
            "NETLINK_GENERIC" => lookup(GENL_IDS, kind),
            "NETLINK_AUDIT" => lookup(AUDIT_TYPES, kind),
            "NETLINK_XFRM" => lookup(XFRM_TYPES, kind),
            "NETLINK_SELINUX" => lookup(SELNL_MSGS, kind),
            // A batch delimiter, or the subsystem's message.
            "NETLINK_NETFILTER" => lookup(NFNL_BATCH, kind).or_else(|| self.netfilter().1),
            _ => None,
        }
    }

    /// A NETLINK_NETFILTER message type's two halves, named: the
    /// subsystem (high byte) and its message (low byte).
    fn netfilter(self) -> (Option<&'static str>, Option<&'static str>) {
        let (subsys, msg) = ((self.kind >> 8) as i64, (self.kind & 0xff) as i64);
        let name = lookup(NFNL_SUBSYS, subsys);
        let msgs: &[(i64, &str)] = match name.unwrap_or("") {
            "NFNL_SUBSYS_CTNETLINK" => CTNL_MSGS,
            "NFNL_SUBSYS_CTNETLINK_EXP" => CTNL_EXP_MSGS,
            "NFNL_SUBSYS_QUEUE" => NFQNL_MSGS,
            "NFNL_SUBSYS_ULOG" => NFULNL_MSGS,
            "NFNL_SUBSYS_NFTABLES" => NFT_MSGS,
            "NFNL_SUBSYS_ACCT" => NFNL_ACCT_MSGS,
            "NFNL_SUBSYS_CTHELPER" => NFNL_CTHELPER_MSGS,
            "NFNL_SUBSYS_CTNETLINK_TIMEOUT" => CTNL_TIMEOUT_MSGS,
            "NFNL_SUBSYS_IPSET" => IPSET_CMDS,
            "NFNL_SUBSYS_NFT_COMPAT" => NFT_COMPAT_MSGS,
            "NFNL_SUBSYS_OSF" => OSF_MSGS,
            _ => &[],
        };
        (name, lookup(msgs, msg))
    }

    /// The header's spelling of the type: its name, for a netfilter
    /// message `NFNL_SUBSYS_NFTABLES<<8|NFT_MSG_GETTABLE`, for a generic
    /// netlink family its name (`ethtool`), as strace writes them.
    fn type_text(self) -> Option<String> {
        let proto = lookup(NETLINK_PROTOCOLS, self.proto as i64);
        let control = (self.kind as i64) < lookup_value(NLMSG_LIMITS, "NLMSG_MIN_TYPE");
        if let Some(name) = self.type_name() {
            if control
                || proto != Some("NETLINK_NETFILTER")
                || lookup(NFNL_BATCH, self.kind as i64).is_some()
            {
                return Some(name.to_string());
            }
        } else if control || proto != Some("NETLINK_NETFILTER") {
            // A generic netlink family other than the controller: its
            // id is given out at run time; the controller names it.
            return (!control && proto == Some("NETLINK_GENERIC"))
                .then(|| crate::kernel::genl::family_name(self.kind))
                .flatten();
        }
        let (subsys, msg) = self.netfilter();
        let msg = msg.map_or_else(|| format!("{:#x}", self.kind & 0xff), str::to_string);
        // An unknown subsystem in hex too (strace: `0xff /* NFNL_SUBSYS_???
        // */<<8|0xff`).
        let subsys = subsys.map_or_else(|| format!("{:#x}", self.kind >> 8), str::to_string);
        Some(format!("{subsys}<<8|{msg}"))
    }

    /// The flags this type can carry: the common ones, and the bits a
    /// GET, NEW or DELETE request (or an acknowledgement) gives a meaning.
    fn flag_table(self) -> Vec<FlagDef> {
        let name = self.type_name().unwrap_or("");
        // RTM_GETLINK, XFRM_MSG_NEWSA, NFT_MSG_DELTABLE,
        // IPCTNL_MSG_CT_GET, NFNL_MSG_ACCT_GET_CTRZERO,
        // IPCTNL_MSG_TIMEOUT_DELETE: the verb is the first word after the
        // family's prefix that is one.
        let verb = match name.rsplit_once("MSG_") {
            Some((_, rest)) => rest
                .split('_')
                .find(|w| ["GET", "NEW", "DEL"].iter().any(|v| w.starts_with(v)))
                .unwrap_or(""),
            None => name.strip_prefix("RTM_").unwrap_or(""),
        };
        let extra: &[FlagDef] = if name == "NLMSG_ERROR" {
            NLM_F_ACK_FLAGS
        } else if verb.starts_with("GET")
            // tc's action deletes are GET-like, dumps too (strace too).
            || name == "RTM_DELACTION"
            || name == "SOCK_DIAG_BY_FAMILY"
            || name.ends_with("DIAG_GETSOCK")
        {
            NLM_F_GET
        } else if verb.starts_with("NEW") {
            NLM_F_NEW
        } else if verb.starts_with("DEL") || name == "SOCK_DESTROY" {
            NLM_F_DELETE
        } else {
            &[]
        };
        NLM_F_COMMON.iter().chain(extra).copied().collect()
    }

    /// Whether a flag this type can carry is set, by name.
    fn has_flag(self, name: &str) -> bool {
        self.flag_table()
            .iter()
            .any(|f| f.name == name && self.flags as u64 & f.mask == f.value)
    }
}

/// The value of `name` in a generated table (which always has it).
fn lookup_value(table: &[(i64, &str)], name: &str) -> i64 {
    table
        .iter()
        .find(|(_, n)| *n == name)
        .map_or(i64::MAX, |(v, _)| *v)
}

/// One message of `m.len()` bytes (less than its nlmsg_len when cut):
/// its header alone, or `[header, payload..]`.
fn put_message(p: &mut Printer, name: &str, proto: u16, m: &[u8]) {
    let hdr = NLMSGHDR.size;
    let msg = Msg {
        proto,
        kind: u16_at(m, 4),
        flags: u16_at(m, 6),
    };
    let len = u32_at(m, 0) as usize;
    let payload = &m[hdr.min(m.len())..];
    let with_payload = len > hdr && !payload.is_empty();
    // A payload the unreadable memory cuts off whole: its address, as
    // strace shows it.
    let unread = (len > hdr && payload.is_empty())
        .then(|| cut_at(m))
        .flatten();
    if let Some(at) = unread {
        p.open(name, "[", Naming::Elements);
        put_header(p, "", msg, m);
        p.ptr("", at + hdr as u64);
        p.close("]");
    } else if with_payload {
        p.open(name, "[", Naming::Elements);
        put_header(p, "", msg, m);
        put_payload(p, msg, payload);
        // A message the unreadable memory cuts ends where its last
        // attribute shows that.
        if m.len() < len && cut_at(m).is_none() {
            p.more();
        }
        p.close("]");
    } else {
        put_header(p, name, msg, m);
    }
}

/// `{nlmsg_len=.., nlmsg_type=.., nlmsg_flags=.., nlmsg_seq=.., nlmsg_pid=..}`.
fn put_header(p: &mut Printer, name: &str, msg: Msg, m: &[u8]) {
    put_struct(p, name, &NLMSGHDR, m, &mut |p, f, _| match f.name {
        "nlmsg_type" => {
            p.symbol(f.name, msg.kind as i64, msg.type_text().as_deref());
            true
        }
        "nlmsg_flags" => {
            p.flags(f.name, msg.flags as u64, &msg.flag_table());
            true
        }
        _ => false,
    });
}

/// A message's payload by type and protocol.
fn put_payload(p: &mut Printer, msg: Msg, b: &[u8]) {
    match msg.type_name() {
        Some("NLMSG_ERROR") => put_error(p, msg, b),
        Some("NLMSG_DONE") if b.len() >= 4 => p.int("", i32_at(b, 0) as i64),
        Some(_) | None if (msg.kind as i64) < lookup_value(NLMSG_LIMITS, "NLMSG_MIN_TYPE") => {
            put_bytes(p, "", b)
        }
        _ => match lookup(NETLINK_PROTOCOLS, msg.proto as i64) {
            Some("NETLINK_ROUTE") => route::payload(p, msg, b),
            Some("NETLINK_SOCK_DIAG") => diag::payload(p, msg, b),
            Some("NETLINK_GENERIC") => genl::payload(p, msg, b),
            Some("NETLINK_NETFILTER") => put_nfgenmsg(p, msg, b),
            Some("NETLINK_SELINUX") => put_selinux(p, msg, b),
            _ => put_bytes(p, "", b),
        },
    }
}

/// A NETLINK_SELINUX notification's struct (`{val=1}`, `{seqno=2}`);
/// too short, its bytes, or its address when the unreadable memory cut it.
fn put_selinux(p: &mut Printer, msg: Msg, b: &[u8]) {
    let layout = match msg.type_name() {
        Some("SELNL_MSG_SETENFORCE") => &SELNL_MSG_SETENFORCE,
        Some("SELNL_MSG_POLICYLOAD") => &SELNL_MSG_POLICYLOAD,
        _ => return put_bytes(p, "", b),
    };
    match cut_at(b) {
        Some(at) if b.len() < layout.size => p.ptr("", at),
        _ if b.len() < layout.size => put_bytes(p, "", b),
        _ => put_struct(p, "", layout, b, &mut |_, _, _| false),
    }
}

/// An NLMSG_ERROR (or acknowledgement): `{error=-ENODEV, msg=[..]}`, the
/// request it answers echoed whole or (NLM_F_CAPPED) its header only,
/// then the extended-ack attributes (NLM_F_ACK_TLVS; shown whenever bytes
/// follow the echo).
fn put_error(p: &mut Printer, msg: Msg, b: &[u8]) {
    // Too short for the error and a header: bytes, or their address when
    // the unreadable memory cut them (strace too).
    if b.len() < NLMSGERR.size {
        return match cut_at(b) {
            Some(at) => p.ptr("", at),
            None => put_bytes(p, "", b),
        };
    }
    let err_off = NLMSGERR.fields.first().map_or(0, |f| f.off);
    let echo_at = NLMSGERR.fields.get(1).map_or(4, |f| f.off);
    let echo = b.get(echo_at..).unwrap_or(&[]);
    let echo_len = if msg.has_flag("NLM_F_CAPPED") {
        NLMSGHDR.size
    } else {
        align((u32_at(echo, 0) as usize).max(NLMSGHDR.size))
    };
    let mut echo = &echo[..echo_len.min(echo.len())];
    if u16_at(echo, 4) as i64 == lookup_value(NLMSG_TYPES, "NLMSG_ERROR") {
        // The kernel echoes requests, never errors: an error "echoing" an
        // error is made up, and decoding it in turn would nest as deep as
        // the buffer is long. Its header is enough.
        echo = &echo[..NLMSGHDR.size.min(echo.len())];
    }
    put_struct(p, "", &NLMSGERR, b, &mut |p, f, _| {
        if f.off == err_off {
            put_errno(p, f.name, i32_at(b, err_off));
        } else {
            put_message(p, f.name, msg.proto, echo);
        }
        true
    });
    let tlvs = b.get(echo_at + echo_len..).unwrap_or(&[]);
    // Extended-ack attributes (NLM_F_ACK_TLVS): whatever follows the echo,
    // as strace shows it whether or not the flag says so.
    if !tlvs.is_empty() {
        put_attrs(p, tlvs, &ERR_ATTRS, 0);
    }
}

/// A NETLINK_NETFILTER payload: `struct nfgenmsg` (`res_id` in network
/// order, as strace shows it), then its attributes, by number (each
/// subsystem has its own sets).
fn put_nfgenmsg(p: &mut Printer, msg: Msg, b: &[u8]) {
    if b.len() < NFGENMSG.size {
        return match cut_at(b) {
            Some(at) => p.ptr("", at),
            None => put_bytes(p, "", b),
        };
    }
    let nftables = msg.netfilter().0 == Some("NFNL_SUBSYS_NFTABLES");
    let nft_id = lookup_value(NFNL_SUBSYS, "NFNL_SUBSYS_NFTABLES");
    put_struct(p, "", &NFGENMSG, b, &mut |p, f, v| {
        let n = num(f, v);
        match f.name {
            "nfgen_family" => crate::service::family::put_family(p, f.name, n as i64),
            "version" => p.symbol(f.name, n as i64, lookup(NFNETLINK_VERSIONS, n as i64)),
            // nf_tables' requests carry their subsystem here, in network
            // order (older nft: in host order), as strace names it.
            "res_id" => {
                let id = u16::from_be(n as u16);
                let text = match (id as i64, n as i64) {
                    (i, _) if nftables && i == nft_id => "htons(NFNL_SUBSYS_NFTABLES)".into(),
                    (_, raw) if nftables && raw == nft_id => "NFNL_SUBSYS_NFTABLES".into(),
                    _ => format!("htons({id})"),
                };
                put_composed(p, f.name, &text, |p| p.uint(f.name, id as u64));
            }
            _ => return false,
        }
        true
    });
    let rest = b.get(align(NFGENMSG.size)..).unwrap_or(&[]);
    // A batch delimiter's payload after the struct is bytes (strace too).
    if !rest.is_empty() && lookup(NFNL_BATCH, msg.kind as i64).is_some() {
        put_bytes(p, "", rest);
    } else if !rest.is_empty() {
        put_attrs(p, rest, &NUMBERED, 0);
    }
}

/// A payload of a family or type with no struct known: its family (the
/// first byte), then the rest as bytes (`{family=AF_INET, data="..."}`),
/// as strace shows it.
fn put_family_data(p: &mut Printer, b: &[u8]) {
    p.open("", "{", Naming::Fields);
    crate::service::family::put_family(p, "family", b[0] as i64);
    if b.len() > 1 {
        put_bytes(p, "data", &b[1..]);
    }
    p.close("}");
}

/// Attributes known only by number.
static NUMBERED: Attrs = Attrs {
    names: &[],
    kind: |_| Val::Bytes,
};

/// A negated errno as the kernel returns it: `-ENODEV`; `0` for success.
pub fn put_errno(p: &mut Printer, name: &str, err: i32) {
    let sym = (err < 0)
        .then(|| crate::call::errno_name(-(err as i64)))
        .flatten()
        .map(|n| format!("-{n}"));
    p.symbol(name, err as i64, sym.as_deref());
}

/// Extended-ack attributes.
static ERR_ATTRS: Attrs = Attrs {
    names: NLMSGERR_ATTRS,
    kind: |name| match name {
        "NLMSGERR_ATTR_MSG" => Val::Str,
        "NLMSGERR_ATTR_OFFS" | "NLMSGERR_ATTR_MISS_TYPE" | "NLMSGERR_ATTR_MISS_NEST" => Val::U32,
        // An opaque cookie: its bytes as numbers, as strace shows them.
        "NLMSGERR_ATTR_COOKIE" => Val::Custom(put_byte_array),
        _ => Val::Bytes,
    },
};

/// Bytes as an array of numbers, `-s` of them: `[171, 254]`.
fn put_byte_array(p: &mut Printer, v: &[u8]) {
    p.open("", "[", Naming::Elements);
    let limit = max_items(p);
    p.bounded(0..v.len(), limit, |p, i| p.uint("", v[i] as u64));
    p.close("]");
}

/// Bytes shown as a string, cut at the string limit.
fn put_bytes(p: &mut Printer, name: &str, b: &[u8]) {
    let limit = p.config().string_limit;
    p.string(name, &b[..b.len().min(limit)], b.len() > limit);
}

/// Print `b` as `layout`'s fields, in order. `special` prints a field
/// itself and returns true, or leaves it to the default (unsigned
/// numbers, `[..]` for arrays). Padding ([`is_padding`]) is not shown
/// unless `special` shows it, as in strace; a struct longer than `b`
/// ends with `..`.
fn put_struct(
    p: &mut Printer,
    name: &str,
    layout: &Layout,
    b: &[u8],
    special: &mut dyn FnMut(&mut Printer, &Field, &[u8]) -> bool,
) {
    p.open(name, "{", Naming::Fields);
    let mut all = true;
    for f in layout.fields {
        let Some(v) = b.get(f.off..f.off + f.size * f.count) else {
            if is_padding(f.name) {
                continue;
            }
            all = false;
            break;
        };
        // Padding shows only where `special` shows it.
        if !special(p, f, v) && !is_padding(f.name) {
            put_plain(p, f, v);
        }
    }
    p.close_struct(all);
}

/// Whether a field is padding or reserved (`__ifi_pad`, `pad`,
/// `ndm_pad1`, `reserved`, `res1`), which strace does not show either.
fn is_padding(name: &str) -> bool {
    name.starts_with("__")
        || name.contains("pad")
        || name == "reserved"
        || name == "resvd"
        || name
            .strip_prefix("res")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// A field by its size and signedness: a number, an array of numbers, or
/// bytes.
fn put_plain(p: &mut Printer, f: &Field, v: &[u8]) {
    if f.size > 8 {
        put_bytes(p, f.name, v);
    } else if f.count == 1 && f.signed {
        p.int(f.name, int_at(v, 0, f.size));
    } else if f.count == 1 {
        p.uint(f.name, uint_at(v, 0, f.size));
    } else {
        p.open(f.name, "[", Naming::Elements);
        for i in 0..f.count {
            if f.signed {
                p.int("", int_at(v, i * f.size, f.size));
            } else {
                p.uint("", uint_at(v, i * f.size, f.size));
            }
        }
        p.close("]");
    }
}

/// Whether `v` holds `layout`: all its fields (the tail padding may be
/// missing), or, with `since`, at least the fields up to that one and
/// then whole fields (an older version of the struct).
fn fits(layout: &Layout, v: &[u8], since: Option<&str>) -> bool {
    let end = |f: &Field| f.off + f.size * f.count;
    let all = layout.fields.iter().map(end).max().unwrap_or(0);
    if v.len() >= all {
        return true;
    }
    let Some(first) = since.and_then(|n| layout.fields.iter().find(|f| f.name == n)) else {
        return false;
    };
    v.len() >= end(first) && layout.fields.iter().any(|f| end(f) == v.len())
}

/// A field's value as a number.
fn num(f: &Field, v: &[u8]) -> u64 {
    uint_at(v, 0, f.size.min(8))
}

/// An IP address of 4 or 16 bytes (`inet_addr("127.0.0.1")`); other
/// lengths as bytes.
pub(super) fn put_ip(p: &mut Printer, name: &str, b: &[u8]) {
    let (ip, text) = match b.len() {
        4 => {
            let ip = std::net::Ipv4Addr::from([b[0], b[1], b[2], b[3]]).to_string();
            let text = format!("inet_addr(\"{ip}\")");
            (ip, text)
        }
        16 => {
            let mut raw = [0u8; 16];
            raw.copy_from_slice(b);
            let ip = std::net::Ipv6Addr::from(raw).to_string();
            let text = format!("inet_pton(AF_INET6, \"{ip}\")");
            (ip, text)
        }
        _ => return put_bytes(p, name, b),
    };
    // strace shows an address's bytes under `-X raw`, both under `-X
    // verbose` (`"\xde\xad\xfa\xce" /* inet_addr("222.173.250.206") */`);
    // JSON has the address.
    p.spelled(name, &crate::format::quote(b, false), &text, || {
        serde_json::Value::String(ip)
    });
}

/// A set of bits each naming a table entry by its bit number:
/// `1<<TCP_CLOSE|1<<TCP_LISTEN`, or with `minus_one` (bit n is value
/// n+1) `1<<(INET_DIAG_MEMINFO-1)`; under `-X raw` the mask in hex, under
/// `-X verbose` both. In JSON the number.
fn put_bit_names(
    p: &mut Printer,
    name: &str,
    value: u64,
    table: &[(i64, &'static str)],
    minus_one: bool,
) {
    if value == 0 || p.values_style() {
        p.uint(name, value);
        return;
    }
    let mut parts = Vec::new();
    // Bits no name has, written together in hex at the end as strace
    // writes them (`..|1<<TCP_CLOSING|0xffffe001`).
    let mut rest = 0u64;
    for bit in 0..64 {
        if value & (1 << bit) == 0 {
            continue;
        }
        let key = bit as i64 + minus_one as i64;
        match lookup(table, key) {
            Some(n) if minus_one => parts.push(format!("1<<({n}-1)")),
            Some(n) => parts.push(format!("1<<{n}")),
            None => rest |= 1 << bit,
        }
    }
    if rest != 0 {
        parts.push(format!("{rest:#x}"));
    }
    // As -X spells a flag set: `0x2 /* 1<<TCP_ESTABLISHED */`, `0x2`.
    let text = parts.join("|");
    p.spelled(name, &crate::format::flags_hex(value), &text, || {
        serde_json::Value::from(value)
    });
}

#[cfg(test)]
mod tests;
