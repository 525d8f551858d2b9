//! Socket ioctls (`<linux/sockios.h>`, type 0x89): the interface requests
//! a capture tool makes on start (tcpdump, dumpcap: the interface's index,
//! flags, MTU, hardware address, ethtool). Their argument is a `struct
//! ifreq`: the interface name, then a union whose member the request picks.
//! These codes predate `_IOC` and carry no direction or size.

use super::raw::{i32_at, u16_at, u32_at, u64_at};
use super::{Arg, IF_IN, IF_OUT, IoctlGroup, Layout, Request, field};
use crate::abi::xlat::ioctl::ARPHRD;
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

const SIOCGIFNAME: u32 = 0x8910;
const SIOCGIFFLAGS: u32 = 0x8913;
const SIOCSIFFLAGS: u32 = 0x8914;
const SIOCGIFMTU: u32 = 0x8921;
const SIOCSIFMTU: u32 = 0x8922;
const SIOCGIFHWADDR: u32 = 0x8927;
const SIOCGIFINDEX: u32 = 0x8933;
const SIOCGIFTXQLEN: u32 = 0x8942;
const SIOCSIFTXQLEN: u32 = 0x8943;
const SIOCETHTOOL: u32 = 0x8946;

/// A request on an interface named in its ifreq; the union is decoded only
/// for the requests `fields` knows, else only the name is shown.
const fn ifreq(code: u32, name: &'static str, dirs: u8) -> Request {
    Request::legacy(code, name, dirs, Arg::Struct(&IFREQ))
}

static REQUESTS: &[Request] = &[
    Request::legacy(0x8901, "FIOSETOWN", IF_OUT, Arg::Int),
    Request::legacy(0x8902, "SIOCSPGRP", IF_OUT, Arg::Int),
    Request::legacy(0x8903, "FIOGETOWN", IF_IN, Arg::Int),
    Request::legacy(0x8904, "SIOCGPGRP", IF_IN, Arg::Int),
    Request::legacy(0x8905, "SIOCATMARK", IF_IN, Arg::Int),
    Request::legacy(0x8906, "SIOCGSTAMP_OLD", 0, Arg::Ptr),
    Request::legacy(0x8907, "SIOCGSTAMPNS_OLD", 0, Arg::Ptr),
    Request::legacy(0x890B, "SIOCADDRT", 0, Arg::Ptr),
    Request::legacy(0x890C, "SIOCDELRT", 0, Arg::Ptr),
    ifreq(SIOCGIFNAME, "SIOCGIFNAME", IF_OUT | IF_IN),
    Request::legacy(0x8912, "SIOCGIFCONF", 0, Arg::Ptr),
    ifreq(SIOCGIFFLAGS, "SIOCGIFFLAGS", IF_OUT | IF_IN),
    ifreq(SIOCSIFFLAGS, "SIOCSIFFLAGS", IF_OUT),
    ifreq(0x8915, "SIOCGIFADDR", IF_OUT),
    ifreq(0x8916, "SIOCSIFADDR", IF_OUT),
    ifreq(0x8917, "SIOCGIFDSTADDR", IF_OUT),
    ifreq(0x8918, "SIOCSIFDSTADDR", IF_OUT),
    ifreq(0x8919, "SIOCGIFBRDADDR", IF_OUT),
    ifreq(0x891A, "SIOCSIFBRDADDR", IF_OUT),
    ifreq(0x891B, "SIOCGIFNETMASK", IF_OUT),
    ifreq(0x891C, "SIOCSIFNETMASK", IF_OUT),
    ifreq(0x891D, "SIOCGIFMETRIC", IF_OUT),
    ifreq(0x891E, "SIOCSIFMETRIC", IF_OUT),
    ifreq(SIOCGIFMTU, "SIOCGIFMTU", IF_OUT | IF_IN),
    ifreq(SIOCSIFMTU, "SIOCSIFMTU", IF_OUT),
    ifreq(0x8923, "SIOCSIFNAME", IF_OUT),
    ifreq(0x8924, "SIOCSIFHWADDR", IF_OUT),
    ifreq(SIOCGIFHWADDR, "SIOCGIFHWADDR", IF_OUT | IF_IN),
    ifreq(0x8931, "SIOCADDMULTI", IF_OUT),
    ifreq(0x8932, "SIOCDELMULTI", IF_OUT),
    ifreq(SIOCGIFINDEX, "SIOCGIFINDEX", IF_OUT | IF_IN),
    ifreq(0x8934, "SIOCSIFPFLAGS", IF_OUT),
    ifreq(0x8935, "SIOCGIFPFLAGS", IF_OUT),
    ifreq(0x8936, "SIOCDIFADDR", IF_OUT),
    ifreq(0x8937, "SIOCSIFHWBROADCAST", IF_OUT),
    Request::legacy(0x8938, "SIOCGIFCOUNT", 0, Arg::Ptr),
    ifreq(SIOCGIFTXQLEN, "SIOCGIFTXQLEN", IF_OUT | IF_IN),
    ifreq(SIOCSIFTXQLEN, "SIOCSIFTXQLEN", IF_OUT),
    ifreq(SIOCETHTOOL, "SIOCETHTOOL", IF_OUT),
    ifreq(0x8947, "SIOCGMIIPHY", IF_OUT),
    ifreq(0x8948, "SIOCGMIIREG", IF_OUT),
    ifreq(0x8949, "SIOCSMIIREG", IF_OUT),
    Request::legacy(0x894B, "SIOCOUTQNSD", IF_IN, Arg::Int),
    Request::legacy(0x8953, "SIOCDARP", 0, Arg::Ptr),
    Request::legacy(0x8954, "SIOCGARP", 0, Arg::Ptr),
    Request::legacy(0x8955, "SIOCSARP", 0, Arg::Ptr),
    ifreq(0x8970, "SIOCGIFMAP", IF_OUT),
    ifreq(0x8971, "SIOCSIFMAP", IF_OUT),
    ifreq(0x89B0, "SIOCSHWTSTAMP", IF_OUT),
    ifreq(0x89B1, "SIOCGHWTSTAMP", IF_OUT),
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
