//! NUMA memory policy: set_mempolicy, get_mempolicy and mbind, with the
//! mode and its flags by name and the node mask as its words.

use crate::abi::xlat::mm::{MPOL_GET_FLAGS, MPOL_MF_FLAGS, MPOL_MODES};
use crate::call::{CallClass::Normal, CallCtx, CallType, Handler, default_in};
use crate::format::{Naming, Printer};
use crate::service::h;
use crate::service::raw::{i32_at, read_vec, uint_at, word_size};

/// Mask words shown before `..` without `-v` (4096 nodes on x86_64).
const WORDS_SHOWN: u64 = 64;
/// Most mask words read: the kernel refuses a `maxnode` above a page of
/// bits (`PAGE_SIZE * BITS_PER_BYTE`).
const MAX_WORDS: u64 = 4096 * 8 / 32;

/// A node mask of `maxnode` bits at `addr`, as its `unsigned long` words
/// in hex, lowest nodes first: `[0x1]`, `[0x3, 0x0]`.
fn put_nodemask(p: &mut Printer, name: &str, addr: u64, maxnode: u64) {
    let word = word_size(p.arch());
    let words = maxnode.div_ceil(8 * word as u64);
    let shown = if p.config().verbose > 0 {
        MAX_WORDS
    } else {
        WORDS_SHOWN
    };
    let read = words.min(shown);
    let data = read_vec(p, addr, read as usize * word).filter(|_| p.config().values_only < 2);
    let Some(b) = data.filter(|_| addr != 0 && words > 0) else {
        p.ptr(name, addr);
        return;
    };
    p.open(name, "[", Naming::Elements);
    p.bounded(0..words as usize, read as usize, |p, i| {
        p.hex("", uint_at(&b, i * word, word));
    });
    p.close("]");
}

/// `set_mempolicy(mode, nmask, maxnode)`
pub fn set_mempolicy_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.flags("mode", c.args[0] as u32 as u64, MPOL_MODES);
    put_nodemask(p, "nmask", c.args[1], c.args[2]);
    p.uint("maxnode", c.args[2]);
    CallType::Done
}

/// `mbind(start, len, mode, nmask, maxnode, flags)`
pub fn mbind_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.ptr("start", c.args[0]);
    p.uint("len", c.args[1]);
    // `unsigned long mode`: shown whole, as the kernel is given it.
    p.flags("mode", c.args[2], MPOL_MODES);
    put_nodemask(p, "nmask", c.args[3], c.args[4]);
    p.uint("maxnode", c.args[4]);
    p.flags("flags", c.args[5] as u32 as u64, MPOL_MF_FLAGS);
    CallType::Done
}

/// `get_mempolicy(policy, nmask, maxnode, addr, flags)`: the policy and
/// mask at leave.
pub fn get_mempolicy_out(_p: &mut Printer, _c: &mut CallCtx) -> CallType {
    CallType::NotDone
}

// `MPOL_F_NODE`: the policy word is a node.
use crate::abi::xlat::mm::MPOL_F_NODE;

/// Leave half of get_mempolicy: `[MPOL_BIND|MPOL_F_STATIC_NODES]`, or with
/// MPOL_F_NODE the node number `[0]`.
pub fn get_mempolicy_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    let flags = c.args[4] as u32 as u64;
    match read_vec(p, c.args[0], 4) {
        Some(b) if !failed && p.config().values_only < 2 => {
            let value = i32_at(&b, 0);
            p.open("policy", "[", Naming::Elements);
            if flags & MPOL_F_NODE != 0 {
                p.int("", value as i64);
            } else {
                p.flags("", value as u32 as u64, MPOL_MODES);
            }
            p.close("]");
        }
        _ => p.ptr("policy", c.args[0]),
    }
    if failed {
        p.ptr("nmask", c.args[1]);
    } else {
        put_nodemask(p, "nmask", c.args[1], c.args[2]);
    }
    p.uint("maxnode", c.args[2]);
    p.ptr("addr", c.args[3]);
    p.flags("flags", flags, MPOL_GET_FLAGS);
    p.equals();
    p.result(c.result);
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("get_mempolicy", get_mempolicy_out, get_mempolicy_in, Normal),
    h("mbind", mbind_out, default_in, Normal),
    h("set_mempolicy", set_mempolicy_out, default_in, Normal),
];
