//! Socket ioctls (`<linux/sockios.h>`, type 0x89): the interface requests
//! a capture tool makes on start (tcpdump, dumpcap: the interface's index,
//! flags, MTU, hardware address, ethtool). Their argument is a `struct
//! ifreq`: the interface name, then a union whose member the request picks.
//! These codes predate `_IOC` and carry no direction or size.

use super::raw::{i32_at, u16_at, u32_at, u64_at};
use super::{Arg, IF_IN, IF_OUT, IoctlGroup, Layout, Request, field};
use crate::abi::xlat::ioctl::{
    ARPHRD, FIOGETOWN, FIOSETOWN, SIOCADDMULTI, SIOCADDRT, SIOCATMARK, SIOCDARP, SIOCDELMULTI,
    SIOCDELRT, SIOCDIFADDR, SIOCETHTOOL, SIOCGARP, SIOCGHWTSTAMP, SIOCGIFADDR, SIOCGIFBRDADDR,
    SIOCGIFCONF, SIOCGIFCOUNT, SIOCGIFDSTADDR, SIOCGIFFLAGS, SIOCGIFHWADDR, SIOCGIFINDEX,
    SIOCGIFMAP, SIOCGIFMETRIC, SIOCGIFMTU, SIOCGIFNAME, SIOCGIFNETMASK, SIOCGIFPFLAGS,
    SIOCGIFTXQLEN, SIOCGMIIPHY, SIOCGMIIREG, SIOCGPGRP, SIOCGSTAMP_OLD, SIOCGSTAMPNS_OLD,
    SIOCOUTQNSD, SIOCSARP, SIOCSHWTSTAMP, SIOCSIFADDR, SIOCSIFBRDADDR, SIOCSIFDSTADDR,
    SIOCSIFFLAGS, SIOCSIFHWADDR, SIOCSIFHWBROADCAST, SIOCSIFMAP, SIOCSIFMETRIC, SIOCSIFMTU,
    SIOCSIFNAME, SIOCSIFNETMASK, SIOCSIFPFLAGS, SIOCSIFTXQLEN, SIOCSMIIREG, SIOCSPGRP,
};
use crate::abi::xlat::net::IFF_FLAGS;
use crate::decode::lookup;
use crate::format::{Naming, Printer};
use crate::kernel::Arch;

/// `struct ifreq`: `ifr_name[IFNAMSIZ]`, then the union (24 bytes on
/// x86_64, its `struct ifmap` member being the largest; 16 on i386, where
/// a failed copy of the 40 bytes falls back to the pointer).
pub static IFREQ: Layout = Layout {
    name: "ifreq",
    size: 40,
    fields: &[
        field("ifr_name", "char[16]", 0, 16),
        field("ifr_ifru", "union", 16, 24),
    ],
};

/// A request on an interface named in its ifreq; the union is decoded only
/// for the requests `fields` knows, else only the name is shown.
const fn ifreq(code: u32, name: &'static str, dirs: u8) -> Request {
    Request::legacy(code, name, dirs, Arg::Struct(&IFREQ))
}

static REQUESTS: &[Request] = &[
    Request::legacy(FIOSETOWN, "FIOSETOWN", IF_OUT, Arg::Int),
    Request::legacy(SIOCSPGRP, "SIOCSPGRP", IF_OUT, Arg::Int),
    Request::legacy(FIOGETOWN, "FIOGETOWN", IF_IN, Arg::Int),
    Request::legacy(SIOCGPGRP, "SIOCGPGRP", IF_IN, Arg::Int),
    Request::legacy(SIOCATMARK, "SIOCATMARK", IF_IN, Arg::Int),
    Request::legacy(SIOCGSTAMP_OLD, "SIOCGSTAMP_OLD", 0, Arg::Ptr),
    Request::legacy(SIOCGSTAMPNS_OLD, "SIOCGSTAMPNS_OLD", 0, Arg::Ptr),
    Request::legacy(SIOCADDRT, "SIOCADDRT", 0, Arg::Ptr),
    Request::legacy(SIOCDELRT, "SIOCDELRT", 0, Arg::Ptr),
    ifreq(SIOCGIFNAME, "SIOCGIFNAME", IF_OUT | IF_IN),
    Request::legacy(SIOCGIFCONF, "SIOCGIFCONF", 0, Arg::Ptr),
    ifreq(SIOCGIFFLAGS, "SIOCGIFFLAGS", IF_OUT | IF_IN),
    ifreq(SIOCSIFFLAGS, "SIOCSIFFLAGS", IF_OUT),
    ifreq(SIOCGIFADDR, "SIOCGIFADDR", IF_OUT),
    ifreq(SIOCSIFADDR, "SIOCSIFADDR", IF_OUT),
    ifreq(SIOCGIFDSTADDR, "SIOCGIFDSTADDR", IF_OUT),
    ifreq(SIOCSIFDSTADDR, "SIOCSIFDSTADDR", IF_OUT),
    ifreq(SIOCGIFBRDADDR, "SIOCGIFBRDADDR", IF_OUT),
    ifreq(SIOCSIFBRDADDR, "SIOCSIFBRDADDR", IF_OUT),
    ifreq(SIOCGIFNETMASK, "SIOCGIFNETMASK", IF_OUT),
    ifreq(SIOCSIFNETMASK, "SIOCSIFNETMASK", IF_OUT),
    ifreq(SIOCGIFMETRIC, "SIOCGIFMETRIC", IF_OUT),
    ifreq(SIOCSIFMETRIC, "SIOCSIFMETRIC", IF_OUT),
    ifreq(SIOCGIFMTU, "SIOCGIFMTU", IF_OUT | IF_IN),
    ifreq(SIOCSIFMTU, "SIOCSIFMTU", IF_OUT),
    ifreq(SIOCSIFNAME, "SIOCSIFNAME", IF_OUT),
    ifreq(SIOCSIFHWADDR, "SIOCSIFHWADDR", IF_OUT),
    ifreq(SIOCGIFHWADDR, "SIOCGIFHWADDR", IF_OUT | IF_IN),
    ifreq(SIOCADDMULTI, "SIOCADDMULTI", IF_OUT),
    ifreq(SIOCDELMULTI, "SIOCDELMULTI", IF_OUT),
    ifreq(SIOCGIFINDEX, "SIOCGIFINDEX", IF_OUT | IF_IN),
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
    ifreq(SIOCGIFMAP, "SIOCGIFMAP", IF_OUT),
    ifreq(SIOCSIFMAP, "SIOCSIFMAP", IF_OUT),
    ifreq(SIOCSHWTSTAMP, "SIOCSHWTSTAMP", IF_OUT),
    ifreq(SIOCGHWTSTAMP, "SIOCGHWTSTAMP", IF_OUT),
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

    fn fields(&self, p: &mut Printer, req: &Request, d: &[u8], phase: u8) -> bool {
        let name = &d[..16];
        let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(16)];
        // What the program passes: the name (SIOCGIFNAME: the index), and
        // the value a set request carries.
        if phase == IF_OUT {
            if req.code == SIOCGIFNAME {
                p.int("ifr_ifindex", i32_at(d, 16) as i64);
                return true;
            }
            p.string("ifr_name", name, false);
        }
        let answer = phase == IF_IN;
        match req.code {
            SIOCGIFNAME if answer => p.string("ifr_name", name, false),
            SIOCGIFINDEX if answer => p.int("ifr_ifindex", i32_at(d, 16) as i64),
            SIOCGIFFLAGS | SIOCSIFFLAGS if answer == (req.code == SIOCGIFFLAGS) => {
                p.flags("ifr_flags", u16_at(d, 16) as u64, IFF_FLAGS)
            }
            SIOCGIFMTU | SIOCSIFMTU if answer == (req.code == SIOCGIFMTU) => {
                p.int("ifr_mtu", i32_at(d, 16) as i64)
            }
            SIOCGIFTXQLEN | SIOCSIFTXQLEN if answer == (req.code == SIOCGIFTXQLEN) => {
                p.int("ifr_qlen", i32_at(d, 16) as i64)
            }
            SIOCGIFHWADDR if answer => {
                let family = u16_at(d, 16) as i64;
                let mac: Vec<String> = d[18..24].iter().map(|b| format!("{b:02x}")).collect();
                p.open("ifr_hwaddr", "{", Naming::Fields);
                p.symbol("sa_family", family, lookup(ARPHRD, family));
                p.string("sa_data", mac.join(":").as_bytes(), false);
                p.close("}");
            }
            SIOCETHTOOL if !answer => {
                // The ethtool command struct lives behind ifr_data.
                let data = if p.arch() == Arch::X86_64 {
                    u64_at(d, 16)
                } else {
                    u32_at(d, 16) as u64
                };
                p.ptr("ifr_data", data);
            }
            _ => {}
        }
        true
    }
}
