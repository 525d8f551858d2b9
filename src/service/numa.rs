//! NUMA memory policy: set_mempolicy, get_mempolicy and mbind, with the
//! mode and its flags by name and the node mask as its words; move_pages'
//! pages, nodes and status arrays.

use crate::abi::xlat::mm::{MPOL_GET_FLAGS, MPOL_MF_FLAGS, MPOL_MODES};
use crate::call::errno_name;
use crate::call::{CallClass::Normal, CallCtx, CallType, Handler, default_in};
use crate::format::{Naming, Printer};
use crate::service::h;
use crate::service::raw::{array_limit, i32_at, put_array, read_vec, uint_at, word_size};

/// Mask words shown before `..` without `-v` (4096 nodes on x86_64).
const WORDS_SHOWN: u64 = 64;
/// Most mask words read: the kernel refuses a `maxnode` above a page of
/// bits (`PAGE_SIZE * BITS_PER_BYTE`).
const MAX_WORDS: u64 = 4096 * 8 / 32;

/// A node mask of `maxnode` bits at `addr`, as its `unsigned long` words
/// in hex, lowest nodes first: `[0x1]`, `[0x3, 0x0]`. The kernel reads
/// `maxnode - 1` bits (`get_nodes` and `copy_nodes_to_user` decrement it
/// first), so `maxnode` 65 is one word on x86_64, as strace reads it.
fn put_nodemask(p: &mut Printer, name: &str, addr: u64, maxnode: u64) {
    let word = word_size(p.arch());
    let words = maxnode.saturating_sub(1).div_ceil(8 * word as u64);
    let shown = if p.config().verbose > 0 {
        MAX_WORDS
    } else {
        WORDS_SHOWN
    };
    if words == 0 {
        p.ptr(name, addr);
        return;
    }
    put_array(p, name, addr, (words, word, shown as usize), |p, b| {
        p.hex("", uint_at(b, 0, word));
    });
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

/// `move_pages(pid, nr_pages, pages, nodes, status, flags)`: the pages'
/// addresses and the nodes asked for at enter; the status array at leave.
pub fn move_pages_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let word = word_size(p.arch());
    let limit = array_limit(p);
    let count = c.args[1];
    p.int("pid", c.int(0));
    p.uint("nr_pages", count);
    put_array(p, "pages", c.args[2], (count, word, limit), |p, b| {
        p.ptr("", uint_at(b, 0, word));
    });
    if c.args[3] == 0 {
        p.ptr("nodes", 0);
    } else {
        put_array(p, "nodes", c.args[3], (count, 4, limit), |p, b| {
            p.int("", i32_at(b, 0) as i64);
        });
    }
    CallType::NotDone
}

/// Leave half of move_pages: each page's status, a node or `-EFAULT`
/// (`[0, -EFAULT]`), then the flags.
pub fn move_pages_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    let count = c.args[1];
    if failed {
        p.ptr("status", c.args[4]);
    } else {
        let limit = array_limit(p);
        put_array(p, "status", c.args[4], (count, 4, limit), |p, b| {
            let status = i32_at(b, 0) as i64;
            let name = errno_name(-status)
                .filter(|_| status < 0)
                .map(|n| format!("-{n}"));
            p.symbol_decimal("", status, name.as_deref());
        });
    }
    p.flags("flags", c.args[5] & 0xffff_ffff, MPOL_MF_FLAGS);
    p.equals();
    p.result(c.result);
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("get_mempolicy", get_mempolicy_out, get_mempolicy_in, Normal),
    h("mbind", mbind_out, default_in, Normal),
    h("move_pages", move_pages_out, move_pages_in, Normal),
    h("set_mempolicy", set_mempolicy_out, default_in, Normal),
];
