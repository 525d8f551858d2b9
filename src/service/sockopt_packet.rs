//! The values of the packet socket options (SOL_PACKET: membership, rings,
//! version, fanout, timestamps) and of the raw ICMP socket's
//! ICMP_FILTER (SOL_RAW), which capture tools set; `sockopt.rs` hands them
//! here by level.

use crate::abi::xlat::net::{
    ICMP_TYPES, PACKET_FANOUT_FLAGS, PACKET_FANOUT_TYPES, PACKET_MR_TYPES, SOF_TIMESTAMPING_FLAGS,
    TP_FT_REQ_FLAGS, TPACKET_VERSIONS,
};
use crate::format::{Naming, Printer, flags_hex, flags_text};
use crate::service::family::put_mac;
use crate::service::raw::{Member, i32_at, lookup, put_composed, put_set, u16_at, u32_at};

/// `struct packet_mreq`: int, two unsigned shorts, 8 address bytes.
const PACKET_MREQ_SIZE: usize = 16;
/// `struct tpacket_req`: four unsigned ints.
const TPACKET_REQ_SIZE: usize = 16;
/// `struct tpacket_req3`: seven unsigned ints.
const TPACKET_REQ3_SIZE: usize = 28;

/// A SOL_PACKET option's value `b` (the `optlen` bytes read), if `opt` is
/// one whose type is known and `b` has its size; false leaves it to the
/// generic forms (`[N]`, bytes).
pub fn put_packet_optval(p: &mut Printer, name: &str, opt: i64, b: &[u8]) -> bool {
    match (opt, b.len()) {
        // PACKET_ADD_MEMBERSHIP, PACKET_DROP_MEMBERSHIP
        (1 | 2, PACKET_MREQ_SIZE) => {
            let alen = u16_at(b, 6);
            p.open(name, "{", Naming::Fields);
            p.ifindex("mr_ifindex", u32_at(b, 0));
            let kind = u16_at(b, 4) as i64;
            p.symbol("mr_type", kind, lookup(PACKET_MR_TYPES, kind));
            p.uint("mr_alen", alen as u64);
            put_mac(p, "mr_address", &b[8..8 + (alen as usize).min(8)]);
            p.close("}");
        }
        // PACKET_RX_RING, PACKET_TX_RING: which struct the kernel reads
        // depends on the socket's PACKET_VERSION (tpacket_req3 for
        // TPACKET_V3); the length tells them apart.
        (5 | 13, TPACKET_REQ_SIZE | TPACKET_REQ3_SIZE) => {
            p.open(name, "{", Naming::Fields);
            for (i, field) in [
                "tp_block_size",
                "tp_block_nr",
                "tp_frame_size",
                "tp_frame_nr",
            ]
            .iter()
            .enumerate()
            {
                p.uint(field, u32_at(b, i * 4) as u64);
            }
            if b.len() == TPACKET_REQ3_SIZE {
                p.uint("tp_retire_blk_tov", u32_at(b, 16) as u64);
                p.uint("tp_sizeof_priv", u32_at(b, 20) as u64);
                p.flags("tp_feature_req_word", u32_at(b, 24) as u64, TP_FT_REQ_FLAGS);
            }
            p.close("}");
        }
        // PACKET_VERSION
        (10, 4) => {
            let v = i32_at(b, 0) as i64;
            p.open(name, "[", Naming::Elements);
            p.symbol("", v, lookup(TPACKET_VERSIONS, v));
            p.close("]");
        }
        // PACKET_TIMESTAMP
        (17, 4) => {
            p.open(name, "[", Naming::Elements);
            p.flags("", u32_at(b, 0) as u64, SOF_TIMESTAMPING_FLAGS);
            p.close("]");
        }
        // PACKET_FANOUT: the group id in the low 16 bits, the mode and its
        // flags above: `[7|(PACKET_FANOUT_HASH|PACKET_FANOUT_FLAG_DEFRAG)<<16]`.
        (18, 4) if !p.values_style() => {
            let v = u32_at(b, 0);
            let id = v & 0xffff;
            let mode = (v >> 16) & 0xff;
            let flags = (v >> 16) & 0xff00;
            // Each part as -X spells it: `0 /* PACKET_FANOUT_HASH */`.
            let mode_text = p.spelling(&mode.to_string(), lookup(PACKET_FANOUT_TYPES, mode as i64));
            let text = if flags == 0 {
                format!("{id}|{mode_text}<<16")
            } else {
                let names = flags_text(flags as u64, PACKET_FANOUT_FLAGS, true);
                let flags_text = p.spelling(&flags_hex(flags as u64), Some(&names));
                format!("{id}|({mode_text}|{flags_text})<<16")
            };
            p.open(name, "[", Naming::Elements);
            put_composed(p, "", &text, |p| p.int("", i32_at(b, 0) as i64));
            p.close("]");
        }
        _ => return false,
    }
    true
}

/// A SOL_RAW option's value: ICMP_FILTER's `struct icmp_filter`, the
/// set of ICMP types the socket drops, as strace prints it: the types
/// set, or `~[...]` the types not set when more than half are.
pub fn put_raw_optval(p: &mut Printer, name: &str, opt: i64, b: &[u8]) -> bool {
    // ICMP_FILTER: a __u32 the kernel reads from the first 4 bytes.
    if opt != 1 || b.len() < 4 || !p.symbols() {
        return false;
    }
    let data = u32_at(b, 0);
    let complement = data.count_ones() > 16;
    let shown = if complement { !data } else { data };
    let members: Vec<Member> = (0u64..32)
        .filter(|bit| shown & (1 << bit) != 0)
        .map(|bit| match lookup(ICMP_TYPES, bit as i64) {
            // As -X verbose spells it: `0 /* ICMP_ECHOREPLY */`.
            Some(n) => Member::Name(p.spelling(&bit.to_string(), Some(n))),
            None => Member::Num(bit),
        })
        .collect();
    put_set(p, name, &members, complement);
    true
}
