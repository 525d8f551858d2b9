//! Netlink attributes: an attribute set's names and how each payload
//! shows ([`Val`]), the framing of `[{nla_len, nla_type}, value]` lists
//! (nested as deep as [`MAX_DEPTH`]), and the payload printers: numbers,
//! strings, addresses, flags, structs, arrays, nested sets. A payload the
//! tracee's unreadable memory cuts shows as far as it can be read, then
//! its address.

use super::*;

/// How an attribute's payload is shown.
#[derive(Clone, Copy)]
pub(super) enum Val {
    U8,
    U16,
    U32,
    U64,
    I32,
    /// A 32-bit mask, in hex.
    X32,
    /// A time in clock ticks (USER_HZ, 100 a second) of up to 8 bytes:
    /// `250 /* 2.50 s */`, as strace shows it.
    ClockT,
    /// A network interface index: `if_nametoindex("lo")`.
    Ifindex,
    /// An interface index, or one of the table's special values
    /// (NETCONFA_IFINDEX_ALL).
    IfindexOr(&'static [(i64, &'static str)]),
    /// RTA_MULTIPATH: `struct rtnexthop`s, each with its attributes.
    Multipath,
    /// A payload its own function prints (the attribute set's module
    /// knows its shape: RTA_VIA's family and address).
    Custom(fn(&mut Printer, &[u8])),
    /// A [`Val::Custom`] that shows a payload the unreadable memory cuts
    /// itself (as far as it can be read; [`cut_at`] says where).
    CustomCut(fn(&mut Printer, &[u8])),
    /// A NUL-terminated string: the payload but its last NUL (`..` when
    /// the payload does not end with one).
    Str,
    /// An IPv4 or IPv6 address, by length.
    Ip,
    /// A hardware address: `00:00:00:00:00:00`.
    Mac,
    /// A flag set of the attribute's size.
    Flags(&'static [FlagDef]),
    /// A named value of the attribute's size.
    Enum(&'static [(i64, &'static str)]),
    /// A named 16-bit value (shorter payloads are bytes).
    Enum16(&'static [(i64, &'static str)]),
    /// A 16-bit flag set read from a payload at least that long.
    Flags16(&'static [FlagDef]),
    /// A big-endian 64-bit number: `htobe64(1)`.
    Be64,
    /// An array of numbers of `size` bytes (in hex with `hex`): `[1, 2]`;
    /// a payload not a whole number of them shows the whole ones.
    Nums {
        size: usize,
        hex: bool,
    },
    /// Attributes of another set.
    Nested(&'static Attrs),
    /// A struct.
    Struct(&'static Layout),
    /// A struct that the kernel's older versions ended after the named
    /// field (a payload that long shows the fields it has).
    StructSince(&'static Layout, &'static str),
    /// A struct some of whose fields print otherwise than as numbers: the
    /// function prints such a field and returns true.
    StructWith(&'static Layout, FieldFn),
    /// An array of such structs.
    Structs(&'static Layout, FieldFn),
    /// A classic BPF program's instructions, as a socket filter's.
    Insns,
    /// A [`Val::StructWith`] whose payload may be longer: the bytes after
    /// the struct follow it, as strace shows them.
    StructTail(&'static Layout, FieldFn),
    /// An array of numbers indexed by a table's names: `[[NAME]=0, ...]`.
    Array(&'static Indexed),
    /// IFLA_AF_SPEC: attributes typed by address family.
    AfSpec,
    /// Bit-fields (name, first bit, width): the ones set, as strace
    /// shows them: `{is_icsk=1, mc_loop=1}`.
    Bits(&'static [(&'static str, u32, u32)]),
    /// Anything else: a string of bytes.
    Bytes,
}

/// Prints one field of a struct itself (true) or leaves it to the
/// default (false); see [`put_struct`]. It gets the field's bytes and the
/// whole struct's (a length another field gives).
pub(super) type FieldFn = fn(&mut Printer, &Field, &[u8], &[u8]) -> bool;

/// An array of numbers whose indexes have names.
pub(super) struct Indexed {
    /// The names of the indexes.
    pub(super) names: &'static [(i64, &'static str)],
    /// Bytes in an element (4 or 8).
    pub(super) size: usize,
    /// Elements are signed (a devconf's -1).
    pub(super) signed: bool,
    /// Element i is named by value i+1, shown `[NAME-1]` as strace does
    /// (IPV4_DEVCONF_*, which count from 1).
    pub(super) from_one: bool,
}

/// An attribute set: the names of its types and how each payload shows.
pub(super) struct Attrs {
    pub(super) names: &'static [(i64, &'static str)],
    pub(super) kind: fn(&str) -> Val,
}

/// The attributes in `b`: one as `[{nla_len, nla_type}, value]`, several
/// as a list of those; `depth` counts the nesting.
pub(super) fn put_attrs(p: &mut Printer, b: &[u8], set: &Attrs, depth: usize) {
    let hdr = NLATTR.size;
    // Too short for an attribute: the bytes, or their address when the
    // unreadable memory cut them, as strace shows them.
    if b.len() < hdr {
        match cut_at(b) {
            Some(at) => p.ptr("", at),
            None => put_bytes(p, "", b),
        }
        return;
    }
    let mut starts = Vec::new();
    let mut off = 0;
    while off + hdr <= b.len() {
        starts.push(off);
        let len = u16_at(b, off) as usize;
        if len < hdr {
            off = b.len();
            break;
        }
        off = off.saturating_add(align(len));
    }
    let rest = off < b.len();
    let many = starts.len() > 1 || rest;
    if many {
        p.open("", "[", Naming::Elements);
    }
    let limit = max_items(p);
    for (i, &start) in starts.iter().enumerate() {
        if i == limit {
            p.more();
            break;
        }
        let len = u16_at(b, start) as usize;
        let end = start.saturating_add(len.max(hdr)).min(b.len());
        put_attr(p, &b[start..end], len, set, depth);
    }
    if many {
        if rest && starts.len() < limit {
            // Bytes too few for another attribute: as bytes, or their
            // address when the unreadable memory cut them (strace too).
            let tail = &b[off.min(b.len())..];
            match cut_at(tail) {
                Some(at) => p.ptr("", at),
                None if tail.len() < hdr => put_bytes(p, "", tail),
                None => p.more(),
            }
        } else if rest && starts.len() == limit {
            p.more();
        }
        p.close("]");
    }
}

/// One attribute (`a` is as much of it as the buffer holds).
fn put_attr(p: &mut Printer, a: &[u8], len: usize, set: &Attrs, depth: usize) {
    let hdr = NLATTR.size;
    let raw = u16_at(a, 2);
    let flag_bits = NLA_FLAGS.iter().fold(0, |m, f| m | f.mask) as u16;
    let kind = raw & !flag_bits;
    let name = lookup(set.names, kind as i64);
    let header = |p: &mut Printer| {
        p.open("", "{", Naming::Fields);
        p.uint("nla_len", len as u64);
        if raw & flag_bits != 0 {
            let rest = name.map_or_else(|| kind.to_string(), str::to_string);
            let text = format!(
                "{}|{rest}",
                flags_text((raw & flag_bits) as u64, NLA_FLAGS, true)
            );
            p.symbol("nla_type", raw as i64, Some(&text));
        } else {
            p.symbol("nla_type", raw as i64, name);
        }
        p.close("}");
    };
    // The tracee's address of an attribute the unreadable memory cuts.
    let unread = if a.len() < len { cut_at(a) } else { None };
    if len <= hdr || (a.len() <= hdr && unread.is_none()) {
        header(p);
        return;
    }
    p.open("", "[", Naming::Elements);
    header(p);
    let v = &a[hdr.min(a.len())..];
    let how = match name {
        Some(n) if depth < MAX_DEPTH => (set.kind)(n),
        _ => Val::Bytes,
    };
    match unread {
        // Nested attributes show as far as they can be read, each cut one
        // as its address; any other payload cut short is its address, as
        // strace shows a payload it cannot read.
        Some(_) if matches!(how, Val::Nested(_) | Val::AfSpec) && v.len() >= hdr => {
            put_value(p, v, how, depth)
        }
        // An array shows the elements that could be read, then where the
        // next one is (strace: `[1, ... /* 0x7f.. */]`).
        Some(_) if matches!(how, Val::Nums { size, .. } if v.len() >= size) => {
            put_value(p, v, how, depth)
        }
        Some(_) if matches!(how, Val::Array(a) if v.len() >= a.size) => put_value(p, v, how, depth),
        Some(_) if matches!(how, Val::CustomCut(_)) => put_value(p, v, how, depth),
        Some(_) if matches!(how, Val::Structs(l, _) if v.len() >= l.size) => {
            put_value(p, v, how, depth)
        }
        Some(_) if matches!(how, Val::Insns if v.len() >= crate::service::bpf_filter::INSN_SIZE) => {
            put_value(p, v, how, depth)
        }
        Some(at) => p.ptr("", at + hdr as u64),
        None => put_value(p, v, how, depth),
    }
    if a.len() < len && unread.is_none() {
        p.more();
    }
    p.close("]");
}

/// An attribute's payload `v` shown as `how` says, or as bytes when its
/// size does not fit.
fn put_value(p: &mut Printer, v: &[u8], how: Val, depth: usize) {
    // A number is read from the payload's first bytes, as the kernel
    // reads it (strace too); a shorter payload is bytes.
    let sized = |n: usize| v.len() >= n;
    match how {
        Val::U8 if sized(1) => p.uint("", v[0] as u64),
        Val::U16 if sized(2) => p.uint("", u16_at(v, 0) as u64),
        Val::U32 if sized(4) => p.uint("", u32_at(v, 0) as u64),
        Val::U64 if sized(8) => p.uint("", uint_at(v, 0, 8)),
        Val::I32 if sized(4) => p.int("", i32_at(v, 0) as i64),
        Val::X32 if sized(4) => p.hex("", u32_at(v, 0) as u64),
        Val::Ifindex if sized(4) => p.ifindex("", u32_at(v, 0)),
        Val::ClockT if (1..=8).contains(&v.len()) => {
            let t = uint_at(v, 0, v.len());
            if t == 0 || !p.symbols() {
                p.uint("", t);
            } else {
                let text = format!("{t} /* {}.{:02} s */", t / 100, t % 100);
                put_composed(p, "", &text, |p| p.uint("", t));
            }
        }
        Val::IfindexOr(special) if sized(4) => match lookup(special, i32_at(v, 0) as i64) {
            Some(name) => p.symbol("", i32_at(v, 0) as i64, Some(name)),
            None => p.ifindex("", u32_at(v, 0)),
        },
        Val::Multipath if v.len() >= RTNEXTHOP.size => route::put_multipath(p, v, depth),
        Val::Custom(f) | Val::CustomCut(f) => f(p, v),
        // The whole payload but its terminating NUL (bytes after an
        // inner NUL show too); without one, marked cut (strace too).
        Val::Str => {
            let (body, cut) = match v.split_last() {
                Some((0, body)) => (body, false),
                _ => (v, true),
            };
            let limit = p.config().string_limit;
            p.string(
                "",
                &body[..body.len().min(limit)],
                cut || body.len() > limit,
            );
        }
        Val::Ip if ip_family() => put_ip(p, "", v),
        Val::Mac => put_mac(p, "", v),
        Val::Flags(t) if matches!(v.len(), 1 | 2 | 4) => p.flags("", uint_at(v, 0, v.len()), t),
        Val::Enum(t) if matches!(v.len(), 1 | 2 | 4) => {
            let n = uint_at(v, 0, v.len()) as i64;
            p.symbol("", n, lookup(t, n));
        }
        Val::Flags16(t) if sized(2) => p.flags("", u16_at(v, 0) as u64, t),
        Val::Enum16(t) if sized(2) => {
            let n = u16_at(v, 0) as i64;
            p.symbol("", n, lookup(t, n));
        }
        Val::Be64 if sized(8) => {
            let mut raw = [0u8; 8];
            raw.copy_from_slice(&v[..8]);
            let n = u64::from_be_bytes(raw);
            put_composed(p, "", &format!("htobe64({n})"), |p| p.uint("", n));
        }
        Val::Nums { size, hex } if size > 0 && v.len() >= size => {
            p.open("", "[", Naming::Elements);
            let count = v.len() / size;
            let limit = max_items(p);
            p.bounded(0..count, limit, |p, i| {
                let n = uint_at(v, i * size, size);
                if hex { p.hex("", n) } else { p.uint("", n) }
            });
            put_cut_tail(p, v, count * size, count <= limit);
            p.close("]");
        }
        Val::Nested(set) => put_attrs(p, v, set, depth + 1),
        // A struct the payload cannot hold is bytes, as strace shows it,
        // unless it is an older, shorter version of the struct.
        Val::Struct(layout) if fits(layout, v, None) => {
            put_struct(p, "", layout, v, &mut |_, _, _| false)
        }
        Val::StructSince(layout, last) if fits(layout, v, Some(last)) => {
            put_struct(p, "", layout, v, &mut |_, _, _| false)
        }
        Val::StructWith(layout, f) if fits(layout, v, None) => {
            put_struct(p, "", layout, v, &mut |p, fl, b| f(p, fl, b, v))
        }
        Val::StructTail(layout, f) if fits(layout, v, None) => {
            put_struct(p, "", layout, v, &mut |p, fl, b| f(p, fl, b, v));
            if let Some(rest) = v.get(layout.size..).filter(|r| !r.is_empty()) {
                put_bytes(p, "", rest);
            }
        }
        // The whole elements (strace too: not even one is bytes), then
        // where the unreadable memory cut the array.
        Val::Structs(layout, f) if layout.size > 0 && v.len() >= layout.size => {
            p.open("", "[", Naming::Elements);
            let limit = max_items(p);
            let count = v.len() / layout.size;
            p.bounded(0..count, limit, |p, i| {
                let one = &v[i * layout.size..(i + 1) * layout.size];
                put_struct(p, "", layout, one, &mut |p, fl, b| f(p, fl, b, one));
            });
            put_cut_tail(p, v, count * layout.size, count <= limit);
            p.close("]");
        }
        Val::Insns if v.len() >= crate::service::bpf_filter::INSN_SIZE => {
            let size = crate::service::bpf_filter::INSN_SIZE;
            p.open("", "[", Naming::Elements);
            let limit = max_items(p);
            let count = v.len() / size;
            p.bounded(0..count, limit, |p, i| {
                crate::service::bpf_filter::put_insn(
                    p,
                    &v[i * size..(i + 1) * size],
                    crate::service::bpf_filter::Flavor::Socket,
                );
            });
            put_cut_tail(p, v, count * size, count <= limit);
            p.close("]");
        }
        // Not even one element: bytes, as strace shows them.
        Val::Array(a) if v.len() >= a.size => {
            p.open("", "[", Naming::Fields);
            let limit = max_items(p);
            p.bounded(0..v.len() / a.size, limit, |p, i| {
                let key = i as i64 + a.from_one as i64;
                // The index spelled as -X says (`[0 /* DEVCONF_FORWARDING
                // */]` under -X verbose, strace too).
                let name = match lookup(a.names, key) {
                    Some(n) if p.symbols() && a.from_one => format!("[{n}-1]"),
                    name => format!("[{}]", p.spelling(&i.to_string(), name)),
                };
                if a.signed {
                    p.int(&name, int_at(v, i * a.size, a.size));
                } else {
                    p.uint(&name, uint_at(v, i * a.size, a.size));
                }
            });
            let whole = v.len() / a.size * a.size;
            put_cut_tail(p, v, whole, v.len() / a.size <= limit);
            p.close("]");
        }
        Val::AfSpec => put_attrs(p, v, &route::AF_SPEC, depth + 1),
        Val::Bits(bits) if v.len() <= 8 => {
            let all = uint_at(v, 0, v.len());
            p.open("", "{", Naming::Fields);
            for &(name, first, width) in bits {
                let mask = 1u64.checked_shl(width).map_or(u64::MAX, |m| m - 1);
                let field = all.checked_shr(first).unwrap_or(0) & mask;
                if field != 0 && name != "unused" {
                    p.uint(name, field);
                }
            }
            p.close("}");
        }
        _ => put_bytes(p, "", v),
    }
}

/// After an array's `shown` bytes of `v`: the address of the next
/// element when the tracee's unreadable memory cut the array there, as
/// `decode::put_array` ends an array (`[1, &0x7f..]`).
fn put_cut_tail(p: &mut Printer, v: &[u8], shown: usize, all_shown: bool) {
    if all_shown && let Some(at) = cut_at(v) {
        p.ptr("", at + shown as u64);
    }
}
