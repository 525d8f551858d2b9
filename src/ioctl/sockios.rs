//! Socket ioctls (`<linux/sockios.h>`, type 0x89), decoded as strace
//! does: the interface requests (`struct ifreq`: the interface name, then
//! the union member the request picks: an address, the hardware address,
//! flags, a number, another name, `struct ifmap`), the bridge requests
//! (a name, an interface index), SIOCGIFCONF's `struct ifconf` and the
//! interfaces it lists, the `int *` requests. These codes predate `_IOC`
//! and carry no direction or size, so each ABI's struct sizes come from
//! the generated layouts (`IFREQ_LAYOUT`, `IFMAP_LAYOUT`, `IFCONF_LAYOUT`
//! and their `_I386`s). Socket addresses and hardware addresses print
//! through the handlers' printers ([`super::lent`]).

use super::raw::{i32_at, u16_at, u32_at, u64_at};
use super::{Arg, IF_IN, IF_OUT, IoctlGroup, Layout, PointedArray, Request, lent};
use crate::abi::layout::{self, Field, extent, field as layout_field, offset};
use crate::abi::xlat::ioctl::{
    ARPHRD, FIOGETOWN, FIOSETOWN, IFCONF_LAYOUT, IFCONF_LAYOUT_I386, IFMAP_LAYOUT,
    IFMAP_LAYOUT_I386, IFREQ_LAYOUT, IFREQ_LAYOUT_I386, SIOCADDMULTI, SIOCADDRT, SIOCATMARK,
    SIOCBRADDBR, SIOCBRADDIF, SIOCBRDELBR, SIOCBRDELIF, SIOCDARP, SIOCDELMULTI, SIOCDELRT,
    SIOCDIFADDR, SIOCETHTOOL, SIOCGARP, SIOCGHWTSTAMP, SIOCGIFADDR, SIOCGIFBRDADDR, SIOCGIFCONF,
    SIOCGIFCOUNT, SIOCGIFDSTADDR, SIOCGIFENCAP, SIOCGIFFLAGS, SIOCGIFHWADDR, SIOCGIFINDEX,
    SIOCGIFMAP, SIOCGIFMETRIC, SIOCGIFMTU, SIOCGIFNAME, SIOCGIFNETMASK, SIOCGIFPFLAGS,
    SIOCGIFSLAVE, SIOCGIFTXQLEN, SIOCGMIIPHY, SIOCGMIIREG, SIOCGPGRP, SIOCGSTAMP_OLD,
    SIOCGSTAMPNS_OLD, SIOCOUTQNSD, SIOCSARP, SIOCSHWTSTAMP, SIOCSIFADDR, SIOCSIFBRDADDR,
    SIOCSIFDSTADDR, SIOCSIFENCAP, SIOCSIFFLAGS, SIOCSIFHWADDR, SIOCSIFHWBROADCAST, SIOCSIFMAP,
    SIOCSIFMETRIC, SIOCSIFMTU, SIOCSIFNAME, SIOCSIFNETMASK, SIOCSIFPFLAGS, SIOCSIFSLAVE,
    SIOCSIFTXQLEN, SIOCSMIIREG, SIOCSPGRP,
};
use crate::abi::xlat::net::IFF_FLAGS;
use crate::decode::lookup;
use crate::format::{Naming, Printer};
use crate::kernel::Arch;

/// `struct ifreq` (x86_64's size; an i386 program's is read at its own,
/// [`ifreq_layout`]).
pub static IFREQ: Layout = Layout {
    name: "ifreq",
    size: extent(IFREQ_LAYOUT),
    fields: &[
        super::field("ifr_name", "char[16]", 0, 16),
        super::field("ifr_ifru", "union", 16, 24),
    ],
};

/// `struct ifconf`.
static IFCONF: Layout = Layout {
    name: "ifconf",
    size: extent(IFCONF_LAYOUT),
    fields: &[],
};

/// A bridge's name (`char[IFNAMSIZ]`).
static BRIDGE_NAME: Layout = Layout {
    name: "char[16]",
    size: 16,
    fields: &[],
};

/// The ABI's `struct ifreq`.
fn ifreq_layout(arch: Arch) -> &'static [Field] {
    if arch == Arch::I386 {
        IFREQ_LAYOUT_I386
    } else {
        IFREQ_LAYOUT
    }
}

/// A request on an interface named in its ifreq; the union is decoded only
/// for the requests [`member`] knows, else only the name is shown.
const fn ifreq(code: u32, name: &'static str, dirs: u8) -> Request {
    Request::legacy(code, name, dirs, Arg::Custom(&IFREQ))
}

static REQUESTS: &[Request] = &[
    Request::legacy(FIOSETOWN, "FIOSETOWN", IF_OUT, Arg::Int),
    Request::legacy(SIOCSPGRP, "SIOCSPGRP", IF_OUT, Arg::Int),
    Request::legacy(FIOGETOWN, "FIOGETOWN", IF_IN, Arg::Int),
    Request::legacy(SIOCGPGRP, "SIOCGPGRP", IF_IN, Arg::Int),
    Request::legacy(SIOCATMARK, "SIOCATMARK", IF_IN, Arg::Int),
    Request::legacy(SIOCGIFENCAP, "SIOCGIFENCAP", IF_IN, Arg::Int),
    Request::legacy(SIOCSIFENCAP, "SIOCSIFENCAP", IF_OUT, Arg::Int),
    Request::legacy(SIOCGSTAMP_OLD, "SIOCGSTAMP_OLD", 0, Arg::Ptr),
    Request::legacy(SIOCGSTAMPNS_OLD, "SIOCGSTAMPNS_OLD", 0, Arg::Ptr),
    Request::legacy(SIOCADDRT, "SIOCADDRT", 0, Arg::Ptr),
    Request::legacy(SIOCDELRT, "SIOCDELRT", 0, Arg::Ptr),
    ifreq(SIOCGIFNAME, "SIOCGIFNAME", IF_OUT | IF_IN),
    Request::legacy(
        SIOCGIFCONF,
        "SIOCGIFCONF",
        IF_OUT | IF_IN,
        Arg::Custom(&IFCONF),
    )
    .pointing(IFCONF_BUF),
    ifreq(SIOCGIFFLAGS, "SIOCGIFFLAGS", IF_OUT | IF_IN),
    ifreq(SIOCSIFFLAGS, "SIOCSIFFLAGS", IF_OUT),
    ifreq(SIOCGIFADDR, "SIOCGIFADDR", IF_OUT | IF_IN),
    ifreq(SIOCSIFADDR, "SIOCSIFADDR", IF_OUT),
    ifreq(SIOCGIFDSTADDR, "SIOCGIFDSTADDR", IF_OUT | IF_IN),
    ifreq(SIOCSIFDSTADDR, "SIOCSIFDSTADDR", IF_OUT),
    ifreq(SIOCGIFBRDADDR, "SIOCGIFBRDADDR", IF_OUT | IF_IN),
    ifreq(SIOCSIFBRDADDR, "SIOCSIFBRDADDR", IF_OUT),
    ifreq(SIOCGIFNETMASK, "SIOCGIFNETMASK", IF_OUT | IF_IN),
    ifreq(SIOCSIFNETMASK, "SIOCSIFNETMASK", IF_OUT),
    ifreq(SIOCGIFMETRIC, "SIOCGIFMETRIC", IF_OUT | IF_IN),
    ifreq(SIOCSIFMETRIC, "SIOCSIFMETRIC", IF_OUT),
    ifreq(SIOCGIFMTU, "SIOCGIFMTU", IF_OUT | IF_IN),
    ifreq(SIOCSIFMTU, "SIOCSIFMTU", IF_OUT),
    ifreq(SIOCSIFNAME, "SIOCSIFNAME", IF_OUT),
    ifreq(SIOCSIFHWADDR, "SIOCSIFHWADDR", IF_OUT),
    ifreq(SIOCGIFHWADDR, "SIOCGIFHWADDR", IF_OUT | IF_IN),
    ifreq(SIOCADDMULTI, "SIOCADDMULTI", IF_OUT),
    ifreq(SIOCDELMULTI, "SIOCDELMULTI", IF_OUT),
    ifreq(SIOCGIFINDEX, "SIOCGIFINDEX", IF_OUT | IF_IN),
    ifreq(SIOCGIFSLAVE, "SIOCGIFSLAVE", IF_OUT | IF_IN),
    ifreq(SIOCSIFSLAVE, "SIOCSIFSLAVE", IF_OUT),
    ifreq(SIOCSIFPFLAGS, "SIOCSIFPFLAGS", IF_OUT),
    ifreq(SIOCGIFPFLAGS, "SIOCGIFPFLAGS", IF_OUT),
    ifreq(SIOCDIFADDR, "SIOCDIFADDR", IF_OUT),
    ifreq(SIOCSIFHWBROADCAST, "SIOCSIFHWBROADCAST", IF_OUT),
    Request::legacy(SIOCGIFCOUNT, "SIOCGIFCOUNT", 0, Arg::Ptr),
    ifreq(SIOCGIFTXQLEN, "SIOCGIFTXQLEN", IF_OUT | IF_IN),
    ifreq(SIOCSIFTXQLEN, "SIOCSIFTXQLEN", IF_OUT),
    ifreq(SIOCETHTOOL, "SIOCETHTOOL", IF_OUT),
    ifreq(SIOCGMIIPHY, "SIOCGMIIPHY", IF_OUT),
    ifreq(SIOCGMIIREG, "SIOCGMIIREG", IF_OUT),
    ifreq(SIOCSMIIREG, "SIOCSMIIREG", IF_OUT),
    Request::legacy(SIOCOUTQNSD, "SIOCOUTQNSD", IF_IN, Arg::Int),
    Request::legacy(SIOCDARP, "SIOCDARP", 0, Arg::Ptr),
    Request::legacy(SIOCGARP, "SIOCGARP", 0, Arg::Ptr),
    Request::legacy(SIOCSARP, "SIOCSARP", 0, Arg::Ptr),
    ifreq(SIOCGIFMAP, "SIOCGIFMAP", IF_OUT | IF_IN),
    ifreq(SIOCSIFMAP, "SIOCSIFMAP", IF_OUT),
    ifreq(SIOCSHWTSTAMP, "SIOCSHWTSTAMP", IF_OUT),
    ifreq(SIOCGHWTSTAMP, "SIOCGHWTSTAMP", IF_OUT),
    // The bridge's name, or the interface to add or remove by index.
    Request::legacy(
        SIOCBRADDBR,
        "SIOCBRADDBR",
        IF_OUT,
        Arg::Custom(&BRIDGE_NAME),
    ),
    Request::legacy(
        SIOCBRDELBR,
        "SIOCBRDELBR",
        IF_OUT,
        Arg::Custom(&BRIDGE_NAME),
    ),
    ifreq(SIOCBRADDIF, "SIOCBRADDIF", IF_OUT),
    ifreq(SIOCBRDELIF, "SIOCBRDELIF", IF_OUT),
];

/// The socket ioctl group.
pub struct Sockios;

/// The one instance the dispatcher uses.
pub static SOCKIOS: Sockios = Sockios;

impl IoctlGroup for Sockios {
    fn name(&self) -> &'static str {
        "sockios"
    }

    fn headers(&self) -> &'static [&'static str] {
        &["linux/sockios.h", "asm-generic/sockios.h"]
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, _p: &mut Printer, _req: &Request, _d: &[u8], _phase: u8) -> bool {
        // Every struct of the group is read at its ABI's size in `custom`.
        true
    }

    fn custom(&self, p: &mut Printer, req: &Request, addr: u64, phase: u8) {
        match req.code {
            SIOCGIFCONF => put_ifconf(p, addr, phase),
            SIOCBRADDBR | SIOCBRDELBR => {
                // The kernel copies IFNAMSIZ bytes (and ends them with a NUL).
                match p.mem().read_cstr(addr, IFNAMSIZ) {
                    Some((name, ended)) if p.config().values_only < 2 => {
                        p.string("arg", &name, !ended)
                    }
                    _ => p.ptr("arg", addr),
                }
            }
            _ => put_ifreq(p, req, addr, phase),
        }
    }
}

/// `IFNAMSIZ`: an interface name's array, its NUL included.
const IFNAMSIZ: usize = 16;

/// An interface name array as the kernel takes it: up to its NUL, or its
/// first 15 bytes, marked cut, when it has none (the kernel puts one in
/// the last byte).
fn put_ifname(p: &mut Printer, name: &str, d: &[u8]) {
    let d = &d[..IFNAMSIZ.min(d.len())];
    match d.iter().position(|&b| b == 0) {
        Some(n) => p.string(name, &d[..n], false),
        None => p.string(name, &d[..d.len().saturating_sub(1)], true),
    }
}

/// Copy an ifreq of the program's ABI, or print its pointer.
fn read_ifreq(p: &mut Printer, addr: u64) -> Option<Vec<u8>> {
    let size = extent(ifreq_layout(p.arch()));
    let mut d = vec![0u8; size];
    if addr == 0 || p.config().values_only >= 2 || !p.mem().read_exact(addr, &mut d) {
        p.ptr("arg", addr);
        return None;
    }
    Some(d)
}

/// An ifreq request's argument for `phase`: what the program passes
/// (the name, the value a set request carries), what the kernel answered.
fn put_ifreq(p: &mut Printer, req: &Request, addr: u64, phase: u8) {
    let Some(d) = read_ifreq(p, addr) else {
        return;
    };
    let union = layout_field(ifreq_layout(p.arch()), "ifr_ifru").off;
    p.open("arg", "{", Naming::Fields);
    let answer = phase == IF_IN;
    if !answer {
        match req.code {
            // The index asks for the name; a bridge takes an interface.
            SIOCGIFNAME => p.int("ifr_ifindex", i32_at(&d, union) as i64),
            SIOCBRADDIF | SIOCBRDELIF => p.ifindex("ifr_ifindex", u32_at(&d, union)),
            _ => put_ifname(p, "ifr_name", &d),
        }
    }
    // A getter's member is the answer, a setter's what it sets.
    let getter = matches!(
        req.code,
        SIOCGIFNAME
            | SIOCGIFINDEX
            | SIOCGIFFLAGS
            | SIOCGIFMTU
            | SIOCGIFTXQLEN
            | SIOCGIFHWADDR
            | SIOCGIFADDR
            | SIOCGIFDSTADDR
            | SIOCGIFBRDADDR
            | SIOCGIFNETMASK
            | SIOCGIFMETRIC
            | SIOCGIFMAP
            | SIOCGIFSLAVE
    );
    if answer == getter {
        member(p, req.code, &d, addr + union as u64, union);
    }
    if req.code == SIOCETHTOOL && !answer {
        // The ethtool command struct lives behind ifr_data.
        let data = if p.arch() == Arch::I386 {
            u32_at(&d, union) as u64
        } else {
            u64_at(&d, union)
        };
        p.ptr("ifr_data", data);
    }
    p.close("}");
}

/// The union member `code` picks, at `union` in `d` (`at` in the tracee).
fn member(p: &mut Printer, code: u32, d: &[u8], at: u64, union: usize) {
    let lent = lent();
    match code {
        SIOCGIFNAME => put_ifname(p, "ifr_name", d),
        SIOCGIFINDEX => p.int("ifr_ifindex", i32_at(d, union) as i64),
        SIOCGIFFLAGS | SIOCSIFFLAGS => p.flags("ifr_flags", u16_at(d, union) as u64, IFF_FLAGS),
        SIOCGIFMTU | SIOCSIFMTU => p.int("ifr_mtu", i32_at(d, union) as i64),
        SIOCGIFTXQLEN | SIOCSIFTXQLEN => p.int("ifr_qlen", i32_at(d, union) as i64),
        SIOCGIFMETRIC | SIOCSIFMETRIC => p.int("ifr_metric", i32_at(d, union) as i64),
        SIOCGIFSLAVE | SIOCSIFSLAVE => put_ifname(p, "ifr_slave", &d[union..]),
        SIOCSIFNAME => put_ifname(p, "ifr_newname", &d[union..]),
        // A `struct sockaddr`: 16 bytes.
        SIOCGIFADDR | SIOCSIFADDR => (lent.sockaddr)(p, "ifr_addr", at, 16),
        SIOCGIFDSTADDR | SIOCSIFDSTADDR => (lent.sockaddr)(p, "ifr_dstaddr", at, 16),
        SIOCGIFBRDADDR | SIOCSIFBRDADDR => (lent.sockaddr)(p, "ifr_broadaddr", at, 16),
        SIOCGIFNETMASK | SIOCSIFNETMASK => (lent.sockaddr)(p, "ifr_netmask", at, 16),
        SIOCGIFHWADDR | SIOCSIFHWADDR | SIOCSIFHWBROADCAST | SIOCADDMULTI | SIOCDELMULTI => {
            let family = u16_at(d, union) as i64;
            p.open("ifr_hwaddr", "{", Naming::Fields);
            p.symbol("sa_family", family, lookup(ARPHRD, family));
            (lent.mac)(p, "sa_data", &d[union + 2..union + 8]);
            p.close("}");
        }
        SIOCGIFMAP | SIOCSIFMAP => {
            let l = if p.arch() == Arch::I386 {
                IFMAP_LAYOUT_I386
            } else {
                IFMAP_LAYOUT
            };
            let map = &d[union..];
            p.open("ifr_map", "{", Naming::Fields);
            for f in l {
                p.hex(f.name, f.read(map).unwrap_or(0));
            }
            p.close("}");
        }
        _ => {}
    }
}

/// `struct ifreq`'s size in the program's ABI.
fn ifreq_size(arch: Arch) -> usize {
    extent(ifreq_layout(arch))
}

/// SIOCGIFCONF's buffer, `ifc_len` bytes behind `ifc_buf` (the union
/// `ifc_ifcu`), which [`put_ifconf`] reads after the call: the interfaces
/// the kernel listed.
const IFCONF_BUF: PointedArray = PointedArray {
    ptr_offset: offset(IFCONF_LAYOUT, "ifc_ifcu"),
    ptr_offset_i386: Some(offset(IFCONF_LAYOUT_I386, "ifc_ifcu")),
    count_offset: offset(IFCONF_LAYOUT, "ifc_len"),
    count_size: layout::member(IFCONF_LAYOUT, "ifc_len").size,
    count_arg: None,
    unit: 1,
    shown: extent(IFREQ_LAYOUT),
    dirs: IF_IN,
    each: None,
    trailing: None,
    string: None,
};

// The length is where it is on both.
const _: () = assert!(offset(IFCONF_LAYOUT, "ifc_len") == offset(IFCONF_LAYOUT_I386, "ifc_len"));

/// SIOCGIFCONF's `struct ifconf`. Before the call: the buffer's length
/// (none with no buffer, where the kernel answers the length it needs)
/// and address; after it: the length the kernel wrote and the interfaces
/// it listed, each `{ifr_name="lo", ifr_addr={...}}`.
fn put_ifconf(p: &mut Printer, addr: u64, phase: u8) {
    let l = if p.arch() == Arch::I386 {
        IFCONF_LAYOUT_I386
    } else {
        IFCONF_LAYOUT
    };
    let mut d = vec![0u8; extent(l)];
    if addr == 0 || p.config().values_only >= 2 || !p.mem().read_exact(addr, &mut d) {
        p.ptr("arg", addr);
        return;
    }
    let len = layout_field(l, "ifc_len").read(&d).unwrap_or(0) as i64;
    let buf = layout_field(l, "ifc_ifcu").read(&d).unwrap_or(0);
    let size = ifreq_size(p.arch());
    p.open("arg", "{", Naming::Fields);
    if phase == IF_IN || buf != 0 {
        put_ifc_len(p, len, size);
    }
    if phase == IF_OUT || buf == 0 {
        p.ptr("ifc_buf", buf);
    } else {
        put_ifc_buf(p, buf, len, size);
    }
    p.close("}");
}

/// The length, with the interfaces it holds as strace shows them:
/// `80 /* 2 * sizeof(struct ifreq) */`.
fn put_ifc_len(p: &mut Printer, len: i64, size: usize) {
    let n = len as u64 / size as u64;
    if len > 0 && n * size as u64 == len as u64 && !p.json() {
        p.field(
            "ifc_len",
            &format!("{len} /* {n} * sizeof(struct ifreq) */"),
        );
    } else {
        p.int("ifc_len", len);
    }
}

/// The interfaces the kernel wrote: `len / sizeof(struct ifreq)` of them,
/// at most `-s` shown (`..` after), up to the first that cannot be read.
fn put_ifc_buf(p: &mut Printer, buf: u64, len: i64, size: usize) {
    let n = (len.max(0) as u64 / size as u64) as usize;
    let shown = n.min(p.config().string_limit);
    let union = layout_field(ifreq_layout(p.arch()), "ifr_ifru").off;
    let lent = lent();
    p.open("ifc_buf", "[", Naming::Elements);
    for i in 0..shown {
        let at = buf + (i * size) as u64;
        let mut d = vec![0u8; size];
        if !p.mem().read_exact(at, &mut d) {
            p.ptr("", at);
            p.close("]");
            return;
        }
        p.open("", "{", Naming::Fields);
        put_ifname(p, "ifr_name", &d);
        (lent.sockaddr)(p, "ifr_addr", at + union as u64, 16);
        p.close("}");
    }
    if shown < n {
        p.more();
    }
    p.close("]");
}
