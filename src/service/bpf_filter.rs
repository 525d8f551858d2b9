//! Classic BPF programs: the one printer of `struct sock_fprog` and its
//! instructions, for the socket filters capture tools attach
//! (setsockopt's SO_ATTACH_FILTER and SO_ATTACH_REUSEPORT_CBPF, getsockopt's
//! SO_GET_FILTER) and for seccomp programs (seccomp(SECCOMP_SET_MODE_FILTER),
//! prctl(PR_SET_SECCOMP)). Each instruction prints as the C macro that
//! makes it, as strace writes them: `BPF_STMT(BPF_LD|BPF_H|BPF_ABS, 0xc)`,
//! `BPF_JUMP(BPF_JMP|BPF_K|BPF_JEQ, 0x800, 0, 0xa)`; the two flavours
//! differ only in how an operand `k` is named.

use crate::abi::xlat::bpf::{
    BPF_ALU_OPS, BPF_CLASSES, BPF_JMP_OPS, BPF_MAXINSNS, BPF_MISCOPS, BPF_MODES, BPF_RVALS,
    BPF_SIZES, BPF_SRCS, SECCOMP_RET_ACTION_FULL, SECCOMP_RET_ACTIONS, SKF_AD, SKF_AD_OFF,
    SKF_LL_OFF, SKF_NET_OFF,
};
use crate::format::{Naming, Printer};
use crate::service::raw::{lookup, put_composed, read_vec, u16_at, u32_at, uint_at, word_size};

/// Which program a `struct sock_fprog` holds: it decides how `k` is named.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Flavor {
    /// A socket filter: loads at `SKF_AD_OFF+SKF_AD_PROTOCOL` and the other
    /// special offsets are named.
    Socket,
    /// A seccomp program: the return values are named
    /// (`SECCOMP_RET_ERRNO|0x26`).
    Seccomp,
}

/// Bytes of one instruction (`struct sock_filter`: code, jt, jf, k).
pub const INSN_SIZE: usize = 8;

/// The size of `struct sock_fprog` in the tracee's ABI: an `unsigned
/// short` padded to a pointer, then the pointer.
pub fn fprog_size(p: &Printer) -> u64 {
    2 * word_size(p.arch()) as u64
}

/// A `struct sock_fprog` at `addr`: `{len=13, filter=[...]}`, or the
/// pointer when it cannot be read.
pub fn put_fprog(p: &mut Printer, name: &str, addr: u64, flavor: Flavor) {
    let size = fprog_size(p) as usize;
    if addr == 0 || p.config().values_only >= 2 {
        p.ptr(name, addr);
        return;
    }
    let Some(b) = read_vec(p, addr, size) else {
        p.ptr(name, addr);
        return;
    };
    let len = u16_at(&b, 0);
    let filter = uint_at(&b, size / 2, size / 2);
    p.open(name, "{", Naming::Fields);
    p.uint("len", len as u64);
    put_program(p, "filter", filter, len as usize, flavor);
    p.close("}");
}

/// The `count` instructions at `addr`: `[BPF_STMT(...), ...]`. Without
/// `-v` as many as the string limit (`-s`, 32 by default) allows, then
/// `..`; with `-v` up to BPF_MAXINSNS, the most a program may have.
pub fn put_program(p: &mut Printer, name: &str, addr: u64, count: usize, flavor: Flavor) {
    if addr == 0 || p.config().values_only >= 2 {
        p.ptr(name, addr);
        return;
    }
    let shown = if p.config().verbose > 0 {
        BPF_MAXINSNS as usize
    } else {
        p.config().string_limit.max(1)
    };
    // Only the instructions shown are read; when the program runs past
    // readable memory, the ones before it print and then the address of
    // the first that cannot be read (as arrays do, "raw::put_array").
    let want = count.min(shown);
    let b = match read_vec(p, addr, want * INSN_SIZE) {
        Some(b) => b,
        None => {
            let readable = (0..want)
                .take_while(|&i| {
                    read_vec(p, addr.wrapping_add((i * INSN_SIZE) as u64), INSN_SIZE).is_some()
                })
                .count();
            if readable == 0 {
                p.ptr(name, addr);
                return;
            }
            let head = read_vec(p, addr, readable * INSN_SIZE).unwrap_or_default();
            p.open(name, "[", Naming::Elements);
            for i in 0..head.len() / INSN_SIZE {
                put_insn(p, &head[i * INSN_SIZE..(i + 1) * INSN_SIZE], flavor);
            }
            p.ptr("", addr.wrapping_add((readable * INSN_SIZE) as u64));
            p.close("]");
            return;
        }
    };
    p.open(name, "[", Naming::Elements);
    p.bounded(0..count, shown, |p, i| {
        put_insn(p, &b[i * INSN_SIZE..(i + 1) * INSN_SIZE], flavor);
    });
    p.close("]");
}

/// One instruction: `BPF_JUMP(code, k, jt, jf)` when it has a jump
/// target, else `BPF_STMT(code, k)` (strace's choice too: a `BPF_JA` or a
/// jump with both targets 0 is a statement). In JSON `{"code": ..., "k":
/// ..., "jt": ..., "jf": ...}`, code and a named `k` as symbols.
pub fn put_insn(p: &mut Printer, b: &[u8], flavor: Flavor) {
    let code = u16_at(b, 0);
    let (jt, jf) = (b[2], b[3]);
    let k = u32_at(b, 4);
    let symbols = p.symbols();
    let code_name = symbols.then(|| code_name(code));
    let k_name = if symbols {
        k_name(code, k, flavor)
    } else {
        None
    };
    // Each part spelled as -X says, as strace spells them: `BPF_LD|BPF_H|
    // BPF_ABS`, `0|0x8|0x20` under -X raw, `0 /* BPF_LD */|0x8 /* BPF_H
    // */|...` under -X verbose; -V's whole numbers.
    let (code_text, k_text) = if p.values_style() {
        (hex(code as u64), hex(k as u64))
    } else {
        let spell = |p: &Printer, parts: Vec<Part>, sep: &str| -> String {
            let texts: Vec<String> = parts
                .into_iter()
                .map(|(num, name)| p.spelling(&num, name.as_deref()))
                .collect();
            texts.join(sep)
        };
        let code_text = spell(p, code_parts(code), "|");
        let k_text = match k_parts(code, k, flavor) {
            Some((parts, sep)) => spell(p, parts, sep),
            None => hex(k as u64),
        };
        (code_text, k_text)
    };
    let text = if jt != 0 || jf != 0 {
        format!(
            "BPF_JUMP({code_text}, {k_text}, {}, {})",
            hex(jt as u64),
            hex(jf as u64)
        )
    } else {
        format!("BPF_STMT({code_text}, {k_text})")
    };
    put_composed(p, "", &text, |p| {
        p.open("", "{", Naming::Fields);
        p.symbol("code", code as i64, code_name.as_deref());
        p.symbol("k", k as i64, k_name.as_deref());
        p.uint("jt", jt as u64);
        p.uint("jf", jf as u64);
        p.close("}");
    });
}

/// A number as strace prints an instruction's fields: `0` or `0x1f`.
fn hex(v: u64) -> String {
    if v == 0 {
        "0".into()
    } else {
        format!("{v:#x}")
    }
}

/// One part of a composed value: its number as strace's `-X raw` writes
/// it, and its name if it has one.
type Part = (String, Option<String>);

/// The code's parts: the class, then each field of it (see [`code_name`]).
fn code_parts(code: u16) -> Vec<Part> {
    let class = (code & 0x07) as i64;
    let mut parts = vec![(
        hex(class as u64),
        lookup(BPF_CLASSES, class).map(str::to_string),
    )];
    let mut rest = code & !0x07;
    for &(mask, table) in class_fields(class) {
        let v = (code & mask) as i64;
        parts.push((hex(v as u64), lookup(table, v).map(str::to_string)));
        rest &= !mask;
    }
    if rest != 0 {
        parts.push((hex(rest as u64), None));
    }
    parts
}

/// `k`'s parts and their separator where the flavour names it (see
/// [`k_name`]): `SKF_AD_OFF` `+` `SKF_AD_PROTOCOL`, `SKF_NET_OFF` `+`
/// `14`, `SECCOMP_RET_ERRNO` `|` `0x26`.
fn k_parts(code: u16, k: u32, flavor: Flavor) -> Option<(Vec<Part>, &'static str)> {
    let class = code & 0x07;
    let named = |v: u32, name: &str| (hex(v as u64), Some(name.to_string()));
    match flavor {
        Flavor::Socket if class == 0 && code & 0xe0 == 0x20 => {
            if k >= SKF_AD_OFF {
                let ad = (k - SKF_AD_OFF) as i64;
                let what = (hex(ad as u64), lookup(SKF_AD, ad).map(str::to_string));
                Some((vec![named(SKF_AD_OFF, "SKF_AD_OFF"), what], "+"))
            } else if k >= SKF_NET_OFF {
                let off = ((k - SKF_NET_OFF).to_string(), None);
                Some((vec![named(SKF_NET_OFF, "SKF_NET_OFF"), off], "+"))
            } else if k >= SKF_LL_OFF {
                let off = ((k - SKF_LL_OFF).to_string(), None);
                Some((vec![named(SKF_LL_OFF, "SKF_LL_OFF"), off], "+"))
            } else {
                None
            }
        }
        Flavor::Seccomp if class == 6 => {
            let action = k & SECCOMP_RET_ACTION_FULL;
            let data = k & !action;
            let name = lookup(SECCOMP_RET_ACTIONS, action as i64).map(str::to_string);
            let mut parts = vec![(hex(action as u64), name)];
            if data != 0 {
                parts.push((hex(data as u64), None));
            }
            Some((parts, "|"))
        }
        _ => None,
    }
}

/// The fields of a class's code: (mask, its names).
fn class_fields(class: i64) -> &'static [(u16, &'static [(i64, &'static str)])] {
    match class {
        // BPF_LD, BPF_LDX: BPF_SIZE, BPF_MODE
        0 | 1 => &[(0x18, BPF_SIZES), (0xe0, BPF_MODES)],
        // BPF_ALU: BPF_SRC, BPF_OP
        4 => &[(0x08, BPF_SRCS), (0xf0, BPF_ALU_OPS)],
        // BPF_JMP: BPF_SRC, BPF_OP
        5 => &[(0x08, BPF_SRCS), (0xf0, BPF_JMP_OPS)],
        // BPF_RET: BPF_RVAL
        6 => &[(0x18, BPF_RVALS)],
        // BPF_MISC: BPF_MISCOP
        7 => &[(0xf8, BPF_MISCOPS)],
        // BPF_ST, BPF_STX: the class alone
        _ => &[],
    }
}

/// The instruction code by its fields, as `<linux/bpf_common.h>` splits
/// it per class: `BPF_LD|BPF_H|BPF_ABS`, `BPF_JMP|BPF_K|BPF_JEQ`,
/// `BPF_RET|BPF_K`, `BPF_MISC|BPF_TAX`; bits no field of the class uses
/// follow as a number (`BPF_ST|0x8`).
fn code_name(code: u16) -> String {
    let class = (code & 0x07) as i64;
    // (mask of the field, its table) for each field of the class.
    let fields: &[(u16, &[(i64, &'static str)])] = match class {
        // BPF_LD, BPF_LDX: BPF_SIZE, BPF_MODE
        0 | 1 => &[(0x18, BPF_SIZES), (0xe0, BPF_MODES)],
        // BPF_ALU: BPF_SRC, BPF_OP
        4 => &[(0x08, BPF_SRCS), (0xf0, BPF_ALU_OPS)],
        // BPF_JMP: BPF_SRC, BPF_OP
        5 => &[(0x08, BPF_SRCS), (0xf0, BPF_JMP_OPS)],
        // BPF_RET: BPF_RVAL
        6 => &[(0x18, BPF_RVALS)],
        // BPF_MISC: BPF_MISCOP
        7 => &[(0xf8, BPF_MISCOPS)],
        // BPF_ST, BPF_STX: the class alone
        _ => &[],
    };
    let mut text = lookup(BPF_CLASSES, class).map_or_else(|| hex(class as u64), str::to_string);
    let mut rest = code & !0x07;
    for &(mask, table) in fields {
        let v = (code & mask) as i64;
        text.push('|');
        match lookup(table, v) {
            Some(n) => text.push_str(n),
            None => text.push_str(&hex(v as u64)),
        }
        rest &= !mask;
    }
    if rest != 0 {
        text.push('|');
        text.push_str(&hex(rest as u64));
    }
    text
}

/// `k` by name where the flavour gives it one: a socket filter's load
/// from a special offset (`SKF_AD_OFF+SKF_AD_PROTOCOL`, `SKF_NET_OFF+14`),
/// a seccomp program's return value (`SECCOMP_RET_ERRNO|0x26`).
fn k_name(code: u16, k: u32, flavor: Flavor) -> Option<String> {
    let class = code & 0x07;
    match flavor {
        // BPF_LD|BPF_ABS
        Flavor::Socket if class == 0 && code & 0xe0 == 0x20 => {
            if k >= SKF_AD_OFF {
                let ad = (k - SKF_AD_OFF) as i64;
                let what = lookup(SKF_AD, ad).map_or_else(|| hex(ad as u64), str::to_string);
                Some(format!("SKF_AD_OFF+{what}"))
            } else if k >= SKF_NET_OFF {
                Some(format!("SKF_NET_OFF+{}", k - SKF_NET_OFF))
            } else if k >= SKF_LL_OFF {
                Some(format!("SKF_LL_OFF+{}", k - SKF_LL_OFF))
            } else {
                None
            }
        }
        // BPF_RET
        Flavor::Seccomp if class == 6 => {
            let action = k & SECCOMP_RET_ACTION_FULL;
            let data = k & !action;
            let mut text = lookup(SECCOMP_RET_ACTIONS, action as i64)
                .map_or_else(|| hex(action as u64), str::to_string);
            if data != 0 {
                text.push('|');
                text.push_str(&hex(data as u64));
            }
            Some(text)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_split_by_class() {
        assert_eq!(code_name(0x28), "BPF_LD|BPF_H|BPF_ABS");
        assert_eq!(code_name(0xb1), "BPF_LDX|BPF_B|BPF_MSH");
        assert_eq!(code_name(0x15), "BPF_JMP|BPF_K|BPF_JEQ");
        assert_eq!(code_name(0x05), "BPF_JMP|BPF_K|BPF_JA");
        assert_eq!(code_name(0x84), "BPF_ALU|BPF_K|BPF_NEG");
        assert_eq!(code_name(0x16), "BPF_RET|BPF_A");
        assert_eq!(code_name(0x87), "BPF_MISC|BPF_TXA");
        assert_eq!(code_name(0x02), "BPF_ST");
        // Bits the class does not use, and a field value with no name.
        assert_eq!(code_name(0x0a), "BPF_ST|0x8");
        assert_eq!(code_name(0x18), "BPF_LD|0x18|BPF_IMM");
        assert_eq!(code_name(0x0f), "BPF_MISC|0x8");
    }

    #[test]
    fn operands_named_by_flavor() {
        let ld_abs_w = 0x20;
        assert_eq!(
            k_name(ld_abs_w, SKF_AD_OFF + 4, Flavor::Socket).as_deref(),
            Some("SKF_AD_OFF+SKF_AD_PKTTYPE")
        );
        assert_eq!(
            k_name(ld_abs_w, SKF_AD_OFF + 0x100, Flavor::Socket).as_deref(),
            Some("SKF_AD_OFF+0x100")
        );
        assert_eq!(
            k_name(ld_abs_w, SKF_NET_OFF + 9, Flavor::Socket).as_deref(),
            Some("SKF_NET_OFF+9")
        );
        assert_eq!(k_name(ld_abs_w, 12, Flavor::Socket), None);
        assert_eq!(k_name(ld_abs_w, SKF_AD_OFF, Flavor::Seccomp), None);
        assert_eq!(
            k_name(0x06, 0x7fff0000, Flavor::Seccomp).as_deref(),
            Some("SECCOMP_RET_ALLOW")
        );
        assert_eq!(
            k_name(0x06, 0x00050001, Flavor::Seccomp).as_deref(),
            Some("SECCOMP_RET_ERRNO|0x1")
        );
        assert_eq!(k_name(0x06, 0x7fff0000, Flavor::Socket), None);
    }
}
