//! The decoder on crafted and random buffers, printed in memory: framing
//! at its edges (cut messages, short attributes, flags in nla_type,
//! nesting, the `-s` bound) against golden lines, and no panic on
//! anything.

use super::*;
use crate::format::{FormatConfig, FormatState};
use crate::kernel::{Arch, Memory};
use crate::output::{Output, Timestamps};
use std::cell::RefCell;
use std::io::{self, Write};
use std::rc::Rc;

/// A writer the test reads back.
#[derive(Clone, Default)]
struct Shared(Rc<RefCell<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `b` printed as the messages of a socket of `proto`.
fn render(b: &[u8], proto: u16, string_limit: usize, json: bool) -> String {
    let buf = Shared::default();
    let mut out = Output::new(Box::new(buf.clone()), false, Timestamps::Off);
    let cfg = FormatConfig {
        string_limit,
        json,
        ..FormatConfig::default()
    };
    let mut state = FormatState::default();
    let mut mem = Memory::new(nix::unistd::Pid::this());
    {
        let mut p = Printer::new(&mut out, 1, &cfg, &mut state, &mut mem, Arch::X86_64);
        p.open("", "(", Naming::Params);
        put_messages(&mut p, "buf", proto, b, None);
        p.close(")");
    }
    out.flush();
    String::from_utf8(buf.0.borrow().clone()).unwrap()
}

/// `b`, in this process's memory, printed as `put_buf_as` prints what a
/// socket of `proto` carries.
fn render_buf(b: &[u8], proto: Option<u16>) -> String {
    let buf = Shared::default();
    let mut out = Output::new(Box::new(buf.clone()), false, Timestamps::Off);
    let cfg = FormatConfig::default();
    let mut state = FormatState::default();
    let mut mem = Memory::new(nix::unistd::Pid::this());
    {
        let mut p = Printer::new(&mut out, 1, &cfg, &mut state, &mut mem, Arch::X86_64);
        p.open("", "(", Naming::Params);
        put_buf_as(&mut p, proto, "buf", b.as_ptr() as u64, b.len() as u64);
        p.close(")");
    }
    out.flush();
    String::from_utf8(buf.0.borrow().clone()).unwrap()
}

#[test]
fn uevents_and_other_sockets_stay_strings() {
    let uevent = lookup_value(NETLINK_PROTOCOLS, "NETLINK_KOBJECT_UEVENT") as u16;
    let text = b"add@/devices/virtual/net/lo\0ACTION=add\0";
    let want = "(\"add@/devices/virtual/net/lo\\0ACTI\"..)";
    assert_eq!(render_buf(text, Some(uevent)), want);
    assert_eq!(render_buf(text, None), want);
    // The same bytes on a route socket are (nonsense) messages.
    assert!(render_buf(text, Some(0)).starts_with("([{nlmsg_len="));
}

/// A netlink header followed by `payload`, its length as given.
fn msg(len: u32, kind: u16, flags: u16, payload: &[u8]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&len.to_le_bytes());
    b.extend_from_slice(&kind.to_le_bytes());
    b.extend_from_slice(&flags.to_le_bytes());
    b.extend_from_slice(&7u32.to_le_bytes());
    b.extend_from_slice(&0u32.to_le_bytes());
    b.extend_from_slice(payload);
    b
}

/// An attribute, padded to 4 bytes.
fn attr(kind: u16, value: &[u8]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&(4 + value.len() as u16).to_le_bytes());
    b.extend_from_slice(&kind.to_le_bytes());
    b.extend_from_slice(value);
    b.resize(align(b.len()), 0);
    b
}

fn value(table: &[(i64, &str)], name: &str) -> u16 {
    lookup_value(table, name) as u16
}

#[test]
fn a_cut_message_and_a_short_attribute() {
    // An RTM_NEWLINK that says 100 bytes but has 36: its struct, then an
    // attribute whose nla_len (2) does not cover its own header.
    let mut payload = vec![0u8; 16];
    payload.extend_from_slice(&2u16.to_le_bytes());
    payload.extend_from_slice(&value(IFLA_TYPES, "IFLA_IFNAME").to_le_bytes());
    let b = msg(100, value(RTM_TYPES, "RTM_NEWLINK"), 0, &payload);
    assert_eq!(
        render(&b, 0, 32, false),
        "([{nlmsg_len=100, nlmsg_type=RTM_NEWLINK, nlmsg_flags=0, nlmsg_seq=7, nlmsg_pid=0}, \
         {ifi_family=AF_UNSPEC, ifi_type=ARPHRD_NETROM, ifi_index=0, ifi_flags=0, ifi_change=0}, \
         {nla_len=2, nla_type=IFLA_IFNAME}, ..])"
    );
}

#[test]
fn nested_attributes_with_their_flag() {
    let nested = NLA_FLAGS
        .iter()
        .find(|f| f.name == "NLA_F_NESTED")
        .map_or(0, |f| f.value as u16);
    let kind = attr(value(IFLA_INFO_TYPES, "IFLA_INFO_KIND"), b"veth\0");
    let info = attr(value(IFLA_TYPES, "IFLA_LINKINFO") | nested, &kind);
    let mut payload = vec![0u8; 16];
    payload.extend_from_slice(&info);
    let b = msg(
        16 + payload.len() as u32,
        value(RTM_TYPES, "RTM_NEWLINK"),
        0x2,
        &payload,
    );
    assert_eq!(
        render(&b, 0, 32, false),
        "([{nlmsg_len=48, nlmsg_type=RTM_NEWLINK, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=7, nlmsg_pid=0}, \
         {ifi_family=AF_UNSPEC, ifi_type=ARPHRD_NETROM, ifi_index=0, ifi_flags=0, ifi_change=0}, \
         [{nla_len=16, nla_type=NLA_F_NESTED|IFLA_LINKINFO}, [{nla_len=9, nla_type=IFLA_INFO_KIND}, \"veth\"]]])"
    );
}

#[test]
fn arrays_are_cut_at_the_string_limit() {
    let done = msg(20, value(NLMSG_TYPES, "NLMSG_DONE"), 0x2, &[0, 0, 0, 0]);
    let three = [done.clone(), done.clone(), done].concat();
    let one = "[{nlmsg_len=20, nlmsg_type=NLMSG_DONE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=7, nlmsg_pid=0}, 0]";
    assert_eq!(render(&three, 0, 2, false), format!("([{one}, {one}, ..])"));
    assert_eq!(
        render(&three, 0, 3, false),
        format!("([{one}, {one}, {one}])")
    );
}

#[test]
fn nesting_is_bounded() {
    // IFLA_PROP_LIST holds link attributes: 40 levels of it.
    let mut inner = attr(value(IFLA_TYPES, "IFLA_MTU"), &1500u32.to_le_bytes());
    for _ in 0..40 {
        inner = attr(value(IFLA_TYPES, "IFLA_PROP_LIST"), &inner);
    }
    let mut payload = vec![0u8; 16];
    payload.extend_from_slice(&inner);
    let b = msg(
        16 + payload.len() as u32,
        value(RTM_TYPES, "RTM_NEWLINK"),
        0,
        &payload,
    );
    let text = render(&b, 0, 32, false);
    assert_eq!(
        text.matches("IFLA_PROP_LIST").count(),
        MAX_DEPTH + 1,
        "{text}"
    );
    assert!(!text.contains("IFLA_MTU"), "{text}");
}

#[test]
fn random_buffers_never_panic() {
    // A fixed-seed LCG: the same buffers every run.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as u32
    };
    for round in 0..3000 {
        let len = (next() % 300) as usize + 16;
        let mut b: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        // Mostly plausible lengths and types, so the decoders are reached.
        if round % 2 == 0 {
            b[0..4].copy_from_slice(&(next() % (len as u32 + 8)).to_le_bytes());
            let mut kinds = vec![2u16, 3, 16, 18, 20, 22, 24, 26, 20, 21];
            // The newer payloads: next hops, tc, netconf, stats,
            // neighbour tables, address labels, namespace ids.
            for name in [
                "RTM_NEWNEXTHOP",
                "RTM_NEWQDISC",
                "RTM_NEWTFILTER",
                "RTM_NEWNETCONF",
                "RTM_NEWSTATS",
                "RTM_NEWNEIGHTBL",
                "RTM_NEWADDRLABEL",
                "RTM_NEWNSID",
            ] {
                kinds.push(value(RTM_TYPES, name));
            }
            b[4..6].copy_from_slice(&kinds[next() as usize % kinds.len()].to_le_bytes());
            // A sock_diag payload's family: the ones with decoders.
            let families = [1u8, 2, 10, 16, 17, 40, 44];
            if let Some(family) = b.get_mut(16) {
                *family = families[next() as usize % families.len()];
            }
        }
        // ROUTE, SOCK_DIAG, GENERIC, AUDIT, XFRM, NETFILTER.
        let proto = [0u16, 4, 16, 9, 6, 12][next() as usize % 6];
        render(&b, proto, 32, round % 3 == 0);
    }
}

#[test]
fn generated_layouts_match_the_framing() {
    assert_eq!(NLMSGHDR.size, 16);
    assert_eq!(NLATTR.size, 4);
    assert_eq!(align(5), 8);
    assert_eq!(lookup_value(NLMSG_LIMITS, "NLMSG_MIN_TYPE"), 16);
}

#[test]
fn flags_depend_on_the_request() {
    let get = Msg {
        proto: 0,
        kind: value(RTM_TYPES, "RTM_GETLINK"),
        flags: 0x301,
    };
    let text = flags_text(0x301, &get.flag_table(), true);
    assert_eq!(text, "NLM_F_REQUEST|NLM_F_DUMP");
    let new = Msg {
        kind: value(RTM_TYPES, "RTM_NEWADDR"),
        flags: 0x601,
        ..get
    };
    let text = flags_text(0x601, &new.flag_table(), true);
    assert_eq!(text, "NLM_F_REQUEST|NLM_F_EXCL|NLM_F_CREATE");
}

#[test]
fn old_inet_diag_requests_have_their_own_struct() {
    let mut req = vec![0u8; INET_DIAG_REQ.size];
    req[0] = 2; // AF_INET
    let b = msg(
        16 + req.len() as u32,
        value(SOCK_DIAG_TYPES, "DCCPDIAG_GETSOCK"),
        0x301,
        &req,
    );
    assert_eq!(
        render(&b, 4, 32, false),
        "([{nlmsg_len=76, nlmsg_type=DCCPDIAG_GETSOCK, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=7, nlmsg_pid=0}, \
         {idiag_family=AF_INET, idiag_src_len=0, idiag_dst_len=0, idiag_ext=0, id={idiag_sport=htons(0), \
         idiag_dport=htons(0), idiag_src=inet_addr(\"0.0.0.0\"), idiag_dst=inet_addr(\"0.0.0.0\"), idiag_if=0, \
         idiag_cookie=[0, 0]}, idiag_states=0, idiag_dbs=0}])"
    );
}

#[test]
fn a_neighbour() {
    let mut nd = vec![0u8; NDMSG.size];
    nd[0] = 2; // AF_INET
    nd[4] = 1; // ndm_ifindex
    nd[8] = 0x80; // NUD_PERMANENT
    nd[11] = 1; // RTN_UNICAST
    nd.extend(attr(value(NDA_TYPES, "NDA_DST"), &[127, 0, 0, 2]));
    nd.extend(attr(value(NDA_TYPES, "NDA_LLADDR"), &[2, 0, 0, 0, 0, 1]));
    let b = msg(
        16 + nd.len() as u32,
        value(RTM_TYPES, "RTM_NEWNEIGH"),
        0x2,
        &nd,
    );
    assert_eq!(
        render(&b, 0, 32, false),
        "([{nlmsg_len=48, nlmsg_type=RTM_NEWNEIGH, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=7, nlmsg_pid=0}, \
         {ndm_family=AF_INET, ndm_ifindex=if_nametoindex(\"lo\"), ndm_state=NUD_PERMANENT, ndm_flags=0, ndm_type=RTN_UNICAST}, \
         [[{nla_len=8, nla_type=NDA_DST}, inet_addr(\"127.0.0.2\")], \
         [{nla_len=10, nla_type=NDA_LLADDR}, 02:00:00:00:00:01]]])"
    );
}

/// Print `len` bytes at `addr` of this process as a route socket's.
fn render_at(addr: u64, len: u64) -> String {
    let buf = Shared::default();
    let mut out = Output::new(Box::new(buf.clone()), false, Timestamps::Off);
    let cfg = FormatConfig::default();
    let mut state = FormatState::default();
    let mut mem = Memory::new(nix::unistd::Pid::this());
    {
        let mut p = Printer::new(&mut out, 1, &cfg, &mut state, &mut mem, Arch::X86_64);
        p.open("", "(", Naming::Params);
        put_buf_as(&mut p, Some(0), "buf", addr, len);
        p.close(")");
    }
    out.flush();
    String::from_utf8(buf.0.borrow().clone()).unwrap()
}

#[test]
fn unreadable_and_partly_readable_buffers() {
    assert_eq!(render_at(0x10, 100), "(&0x10)");
    // Two pages, the second inaccessible; two NLMSG_DONE messages end the
    // first, and the buffer claims 40 bytes more: the array ends with the
    // address of what could not be read, as strace ends it.
    // SAFETY: a fresh private anonymous mapping, used only here.
    let page = unsafe {
        let size = 2 * 4096;
        let p = libc::mmap(
            std::ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        assert_ne!(p, libc::MAP_FAILED);
        assert_eq!(
            libc::mprotect(p.cast::<u8>().add(4096).cast(), 4096, libc::PROT_NONE),
            0
        );
        p.cast::<u8>()
    };
    let done = msg(20, value(NLMSG_TYPES, "NLMSG_DONE"), 0x2, &[0, 0, 0, 0]);
    let two = [done.clone(), done].concat();
    // SAFETY: the 40 bytes end the mapping's readable first page.
    unsafe { std::ptr::copy_nonoverlapping(two.as_ptr(), page.add(4096 - 40), 40) };
    let one = "[{nlmsg_len=20, nlmsg_type=NLMSG_DONE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=7, nlmsg_pid=0}, 0]";
    assert_eq!(
        render_at(page as u64 + 4096 - 40, 80),
        format!("([{one}, {one}, &{:#x}])", page as u64 + 4096)
    );
    // SAFETY: unmapping what this test mapped.
    unsafe { libc::munmap(page.cast(), 2 * 4096) };
}
