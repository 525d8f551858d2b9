//! The key management calls, as strace 6 shows them: add_key, request_key
//! and keyctl, whose operation says what each of its arguments is (a key
//! serial number, `KEY_SPEC_THREAD_KEYRING` for the special ones; a
//! string; a buffer; a uid; the DH and public key operations' structs,
//! x86_64's layouts: an i386 caller's print as their addresses). Names
//! and layouts from `abi::xlat::process`.

use crate::abi::layout::{Field, extent, field, offset};
use crate::abi::xlat::process::*;
use crate::call::{CallClass::Normal, CallCtx, CallType, Handler, errno_name};
use crate::format::{Naming, Printer};
use crate::ioctl::{IF_OUT, PointedArray};
use crate::kernel::Arch;
use crate::service::raw::{lookup, open_struct_dyn, put_id, read_vec, u32_at};
use crate::service::{Block, ByValue, Mem, h};

/// A key serial number (`key_serial_t`, an int): a `KEY_SPEC_*` name or
/// the number.
fn put_key(p: &mut Printer, name: &str, raw: u64) {
    let id = raw as u32 as i32 as i64;
    p.symbol_decimal(name, id, lookup(KEY_SPECS, id));
}

/// `add_key(type, description, payload, plen, keyring)`: the payload as
/// the `plen` bytes the kernel copies.
pub fn add_key_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.cstr("_type", c.args[0]);
    p.cstr("_description", c.args[1]);
    p.buf("_payload", c.args[2], c.args[3]);
    p.uint("plen", c.args[3]);
    put_key(p, "ringid", c.args[4]);
    CallType::Done
}

/// `request_key(type, description, callout_info, dest_keyring)`
pub fn request_key_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.cstr("_type", c.args[0]);
    p.cstr("_description", c.args[1]);
    p.cstr("_callout_info", c.args[2]);
    put_key(p, "destringid", c.args[3]);
    CallType::Done
}

/// The argument names keyctl's row gives, by index into `c.args`.
const ARG: [&str; 5] = ["option", "arg2", "arg3", "arg4", "arg5"];

/// A string argument.
fn put_str(p: &mut Printer, c: &CallCtx, i: usize) {
    p.cstr(ARG[i], c.args[i]);
}

/// `keyctl(operation, arg2, arg3, arg4, arg5)`.
pub fn keyctl_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let op = c.args[0] as u32;
    match lookup(KEYCTL_CMDS, op as i64) {
        Some(name) => p.symbol("option", op as i64, Some(name)),
        None => p.hex("option", op as u64),
    }
    let a = c.args;
    match op {
        KEYCTL_GET_KEYRING_ID => {
            put_key(p, "arg2", a[1]);
            p.int("arg3", a[2] as u32 as i32 as i64);
        }
        KEYCTL_JOIN_SESSION_KEYRING => put_str(p, c, 1),
        KEYCTL_UPDATE => {
            put_key(p, "arg2", a[1]);
            p.buf("arg3", a[2], a[3]);
            p.uint("arg4", a[3]);
        }
        KEYCTL_REVOKE | KEYCTL_CLEAR | KEYCTL_INVALIDATE | KEYCTL_ASSUME_AUTHORITY => {
            put_key(p, "arg2", a[1]);
        }
        KEYCTL_LINK | KEYCTL_UNLINK => {
            put_key(p, "arg2", a[1]);
            put_key(p, "arg3", a[2]);
        }
        // The text the kernel writes, at leave.
        KEYCTL_DESCRIBE | KEYCTL_READ | KEYCTL_GET_SECURITY => {
            put_key(p, "arg2", a[1]);
            return CallType::NotDone;
        }
        KEYCTL_SEARCH => {
            put_key(p, "arg2", a[1]);
            put_str(p, c, 2);
            put_str(p, c, 3);
            put_key(p, "arg5", a[4]);
        }
        KEYCTL_CHOWN => {
            put_key(p, "arg2", a[1]);
            put_id(p, "arg3", a[2] as u32 as u64);
            put_id(p, "arg4", a[3] as u32 as u64);
        }
        KEYCTL_SETPERM => {
            put_key(p, "arg2", a[1]);
            p.flags("arg3", a[2] as u32 as u64, KEY_PERMS);
        }
        KEYCTL_INSTANTIATE => {
            put_key(p, "arg2", a[1]);
            p.buf("arg3", a[2], a[3]);
            p.uint("arg4", a[3]);
            put_key(p, "arg5", a[4]);
        }
        KEYCTL_NEGATE => {
            put_key(p, "arg2", a[1]);
            p.uint("arg3", a[2] as u32 as u64);
            put_key(p, "arg4", a[3]);
        }
        KEYCTL_REJECT => {
            put_key(p, "arg2", a[1]);
            p.uint("arg3", a[2] as u32 as u64);
            let err = a[3] as u32 as i64;
            p.symbol_decimal("arg4", err, errno_name(err));
            put_key(p, "arg5", a[4]);
        }
        KEYCTL_SET_REQKEY_KEYRING => {
            let v = a[1] as u32 as i32 as i64;
            p.symbol_decimal("arg2", v, lookup(KEY_REQKEY_DEFLS, v));
        }
        KEYCTL_SET_TIMEOUT => {
            put_key(p, "arg2", a[1]);
            p.uint("arg3", a[2] as u32 as u64);
        }
        KEYCTL_SESSION_TO_PARENT => {}
        KEYCTL_GET_PERSISTENT => {
            put_id(p, "arg2", a[1] as u32 as u64);
            put_key(p, "arg3", a[2]);
        }
        KEYCTL_RESTRICT_KEYRING => {
            put_key(p, "arg2", a[1]);
            put_str(p, c, 2);
            put_str(p, c, 3);
        }
        KEYCTL_MOVE => {
            put_key(p, "arg2", a[1]);
            put_key(p, "arg3", a[2]);
            put_key(p, "arg4", a[3]);
            p.flags("arg5", a[4] as u32 as u64, KEYCTL_MOVE_FLAGS);
        }
        KEYCTL_INSTANTIATE_IOV => {
            put_key(p, "arg2", a[1]);
            crate::service::fs::put_iovecs(p, "arg3", a[2], a[3], None);
            p.uint("arg4", a[3]);
            put_key(p, "arg5", a[4]);
        }
        KEYCTL_DH_COMPUTE => {
            if let Some(b) = open_layout(p, c, "arg2", a[1], KEYCTL_DH_PARAMS) {
                for f in KEYCTL_DH_PARAMS {
                    put_key(p, f.name, f.read(&b).unwrap_or(0));
                }
                p.close("}");
            }
            return CallType::NotDone;
        }
        KEYCTL_PKEY_QUERY => {
            put_key(p, "arg2", a[1]);
            p.hex("arg3", a[2]);
            put_str(p, c, 3);
            return CallType::NotDone;
        }
        KEYCTL_PKEY_ENCRYPT | KEYCTL_PKEY_DECRYPT | KEYCTL_PKEY_SIGN | KEYCTL_PKEY_VERIFY => {
            let verify = op == KEYCTL_PKEY_VERIFY;
            let lens = put_pkey_params(p, c, verify);
            put_str(p, c, 2);
            match lens {
                Some((in_len, second)) => {
                    p.buf("arg4", a[3], in_len);
                    if !verify {
                        return CallType::NotDone;
                    }
                    p.buf("arg5", a[4], second);
                }
                None => {
                    p.ptr("arg4", a[3]);
                    p.ptr("arg5", a[4]);
                }
            }
        }
        KEYCTL_CAPABILITIES => return CallType::NotDone,
        // WATCH_KEY and unknown operations: the four words.
        _ => {
            for i in 1..5 {
                p.hex(ARG[i], a[i]);
            }
        }
    }
    CallType::Done
}

/// A struct of `layout` at `addr` opened as `{`, or its address (an
/// i386 caller's too: the layouts are x86_64's).
fn open_layout(
    p: &mut Printer,
    c: &CallCtx,
    name: &str,
    addr: u64,
    layout: &[Field],
) -> Option<Vec<u8>> {
    if c.arch != Arch::X86_64 {
        p.ptr(name, addr);
        return None;
    }
    open_struct_dyn(p, name, addr, extent(layout))
}

/// A `__spare` array of u32s, shown only when one is not zero.
fn put_spare(p: &mut Printer, b: &[u8], f: Field) {
    let words: Vec<u32> = (f.off..f.end()).step_by(4).map(|o| u32_at(b, o)).collect();
    if words.iter().any(|&w| w != 0) {
        p.open(f.name, "[", Naming::Elements);
        for w in words {
            p.hex("", w as u64);
        }
        p.close("]");
    }
}

/// The public key operations' `struct keyctl_pkey_params` (arg2):
/// `out_len` for the operations that write, `in2_len` for VERIFY. The
/// lengths (input, output or second input), None when unreadable.
fn put_pkey_params(p: &mut Printer, c: &CallCtx, verify: bool) -> Option<(u64, u64)> {
    let b = open_layout(p, c, "arg2", c.args[1], KEYCTL_PKEY_PARAMS)?;
    let get = |n: &str| field(KEYCTL_PKEY_PARAMS, n).read(&b).unwrap_or(0);
    put_key(p, "key_id", get("key_id"));
    let (in_len, second) = (
        get("in_len"),
        get(if verify { "in2_len" } else { "out_len" }),
    );
    p.uint("in_len", in_len);
    p.uint(if verify { "in2_len" } else { "out_len" }, second);
    put_spare(p, &b, field(KEYCTL_PKEY_PARAMS, "__spare"));
    p.close("}");
    Some((in_len, second))
}

/// KEYCTL_DH_COMPUTE's `struct keyctl_kdf_params` (arg5).
fn put_kdf(p: &mut Printer, c: &CallCtx, addr: u64) {
    if addr == 0 {
        p.ptr("arg5", addr);
        return;
    }
    let Some(b) = open_layout(p, c, "arg5", addr, KEYCTL_KDF_PARAMS) else {
        return;
    };
    let get = |n: &str| field(KEYCTL_KDF_PARAMS, n).read(&b).unwrap_or(0);
    p.cstr("hashname", get("hashname"));
    let len = get("otherinfolen");
    // The kernel does not read otherinfo when its length is 0.
    if len != 0 {
        p.buf("otherinfo", get("otherinfo"), len);
    } else {
        p.ptr("otherinfo", get("otherinfo"));
    }
    p.uint("otherinfolen", len);
    put_spare(p, &b, field(KEYCTL_KDF_PARAMS, "__spare"));
    p.close("}");
}

/// Leave half of the operations that write: DESCRIBE, READ and
/// GET_SECURITY's text (at most the buffer's length; the result is the
/// whole text's), DH_COMPUTE's result, PKEY_QUERY's answer, the public
/// key operations' output, CAPABILITIES' bytes.
pub fn keyctl_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if p.equals_printed() {
        p.result(c.result);
        return;
    }
    let op = c.args[0] as u32;
    match op {
        KEYCTL_DH_COMPUTE => {
            let (addr, len) = (c.args[2], c.args[3]);
            if failed {
                p.ptr("arg3", addr);
            } else {
                p.buf("arg3", addr, (c.result as u64).min(len));
            }
            p.uint("arg4", len);
            put_kdf(p, c, c.args[4]);
        }
        KEYCTL_PKEY_QUERY => {
            if failed {
                p.ptr("arg5", c.args[4]);
            } else if let Some(b) = open_layout(p, c, "arg5", c.args[4], KEYCTL_PKEY_QUERY_LAYOUT) {
                for f in KEYCTL_PKEY_QUERY_LAYOUT {
                    match f.name {
                        "supported_ops" => {
                            p.flags(f.name, f.read(&b).unwrap_or(0), KEYCTL_SUPPORTS)
                        }
                        "__spare" => put_spare(p, &b, *f),
                        _ => p.uint(f.name, f.read(&b).unwrap_or(0)),
                    }
                }
                p.close("}");
            }
        }
        KEYCTL_PKEY_ENCRYPT | KEYCTL_PKEY_DECRYPT | KEYCTL_PKEY_SIGN => {
            let out_len = read_vec(p, c.args[1], extent(KEYCTL_PKEY_PARAMS))
                .and_then(|b| field(KEYCTL_PKEY_PARAMS, "out_len").read(&b))
                .unwrap_or(0);
            if failed {
                p.ptr("arg5", c.args[4]);
            } else {
                p.buf("arg5", c.args[4], out_len);
            }
        }
        KEYCTL_CAPABILITIES => {
            let (addr, len) = (c.args[1], c.args[2]);
            let shown = (c.result as u64).min(len) as usize;
            match read_vec(p, addr, shown) {
                Some(b) if !failed && addr != 0 => {
                    p.open("arg2", "[", Naming::Elements);
                    for (i, &byte) in b.iter().enumerate() {
                        match i {
                            0 => p.flags("", byte as u64, KEYCTL_CAPS0),
                            1 => p.flags("", byte as u64, KEYCTL_CAPS1),
                            _ => p.hex("", byte as u64),
                        }
                    }
                    p.close("]");
                }
                _ => p.ptr("arg2", addr),
            }
            p.uint("arg3", len);
        }
        _ => put_text(p, c, failed),
    }
    p.equals();
    p.result(c.result);
}

/// DESCRIBE, READ and GET_SECURITY: the text and the buffer's length.
fn put_text(p: &mut Printer, c: &CallCtx, failed: bool) {
    let (addr, len) = (c.args[2], c.args[3]);
    if failed || addr == 0 {
        p.ptr("arg3", addr);
    } else {
        let shown = (c.result as u64).min(len) as usize;
        // Read no more than is shown: the string limit, and one byte more
        // to tell whether the text goes on.
        let limit = p.config().string_limit;
        let mut bytes = vec![0u8; shown.min(limit + 1)];
        if shown > 0 && !p.mem().read_exact(addr, &mut bytes) {
            p.ptr("arg3", addr);
        } else {
            // DESCRIBE and GET_SECURITY write a C string: its NUL is not
            // text.
            if c.args[0] as u32 != KEYCTL_READ && bytes.len() == shown && bytes.last() == Some(&0) {
                bytes.pop();
            }
            let cut = bytes.len() > limit;
            bytes.truncate(limit);
            p.string("arg3", &bytes, cut);
        }
    }
    p.uint("arg4", len);
}

/// What keyctl's decoders read behind its arguments, by operation
/// (`service::ByValue`): the payloads the kernel reads and the texts it
/// writes, as long as the lengths beside them say; DH_COMPUTE's and
/// PKEY_QUERY's memory ([`memory`] adds the public key operations').
const MEMORY: &[ByValue] = &[
    ByValue::by_first(KEYCTL_UPDATE, 2, Mem::InLen(3)),
    ByValue::by_first(KEYCTL_INSTANTIATE, 2, Mem::InLen(3)),
    ByValue::by_first(KEYCTL_DESCRIBE, 2, Mem::OutLen(3)),
    ByValue::by_first(KEYCTL_READ, 2, Mem::OutLen(3)),
    ByValue::by_first(KEYCTL_GET_SECURITY, 2, Mem::OutLen(3)),
    ByValue::by_first(KEYCTL_CAPABILITIES, 1, Mem::OutLen(2)),
    // DH_COMPUTE: which keys, the result, the derivation's struct with
    // its hash's name and other info.
    ByValue::by_first(KEYCTL_DH_COMPUTE, 1, Mem::In(extent(KEYCTL_DH_PARAMS))),
    ByValue::by_first(KEYCTL_DH_COMPUTE, 2, Mem::OutLen(3)),
    ByValue::by_first(KEYCTL_DH_COMPUTE, 4, Mem::Block(&KDF)),
    // PKEY_QUERY: the info string, the answer.
    ByValue::by_first(KEYCTL_PKEY_QUERY, 3, Mem::Str(INFO_MAX)),
    ByValue::by_first(
        KEYCTL_PKEY_QUERY,
        4,
        Mem::Out(extent(KEYCTL_PKEY_QUERY_LAYOUT)),
    ),
];

/// The most bytes of an info string the kernel takes (a page:
/// `strndup_user(_info, PAGE_SIZE)` in security/keys/keyctl_pkey.c).
const INFO_MAX: usize = crate::kernel::PAGE as usize;

/// A public key operation's `struct keyctl_pkey_params`.
const PKEY_PARAMS: Mem = Mem::In(extent(KEYCTL_PKEY_PARAMS));
/// Its input, as long as the params' `in_len` says.
const PKEY_IN: Mem = Mem::InMemberOf {
    arg: 1,
    offset: offset(KEYCTL_PKEY_PARAMS, "in_len") as u16,
};
/// VERIFY's second input, as long as `in2_len` says.
const PKEY_IN2: Mem = Mem::InMemberOf {
    arg: 1,
    offset: offset(KEYCTL_PKEY_PARAMS, "in2_len") as u16,
};
/// Its output, as long as `out_len` and the result say.
const PKEY_OUT: Mem = Mem::OutMemberOf {
    arg: 1,
    offset: offset(KEYCTL_PKEY_PARAMS, "out_len") as u16,
};

/// DH_COMPUTE's `struct keyctl_kdf_params`, its hash's name (a short
/// string: the first 64 bytes, past what `-s` shows by default) and its
/// other info, as long as `otherinfolen` says.
const KDF: Block = Block {
    base: extent(KEYCTL_KDF_PARAMS),
    units: None,
    dirs: IF_OUT,
    pointed: &[
        PointedArray {
            ptr_offset: offset(KEYCTL_KDF_PARAMS, "hashname"),
            ptr_offset_i386: None,
            count_offset: 0,
            count_size: 0,
            count_arg: None,
            unit: 64,
            shown: 1,
            dirs: IF_OUT,
            each: None,
            trailing: None,
            string: None,
        },
        PointedArray {
            ptr_offset: offset(KEYCTL_KDF_PARAMS, "otherinfo"),
            ptr_offset_i386: None,
            count_offset: offset(KEYCTL_KDF_PARAMS, "otherinfolen"),
            count_size: 4,
            count_arg: None,
            unit: 1,
            // Bytes shown as a string: -s of them, and one more to tell
            // that they go on.
            shown: 2,
            dirs: IF_OUT,
            each: None,
            trailing: None,
            string: None,
        },
    ],
};

/// What keyctl's decoders read, by operation (`service::by_value`): the
/// operations above, and for each public key operation its params, its
/// info string, its input as long as `in_len` says and its output as
/// long as `out_len` (and the result) says, or VERIFY's second input as
/// long as `in2_len`.
pub fn memory() -> Vec<ByValue> {
    let mut out = MEMORY.to_vec();
    for op in [
        KEYCTL_PKEY_ENCRYPT,
        KEYCTL_PKEY_DECRYPT,
        KEYCTL_PKEY_SIGN,
        KEYCTL_PKEY_VERIFY,
    ] {
        let last = if op == KEYCTL_PKEY_VERIFY {
            PKEY_IN2
        } else {
            PKEY_OUT
        };
        out.extend([
            ByValue::by_first(op, 1, PKEY_PARAMS),
            ByValue::by_first(op, 2, Mem::Str(INFO_MAX)),
            ByValue::by_first(op, 3, PKEY_IN),
            ByValue::by_first(op, 4, last),
        ]);
    }
    out
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("add_key", add_key_out, crate::call::default_in, Normal),
    h("keyctl", keyctl_out, keyctl_in, Normal),
    h(
        "request_key",
        request_key_out,
        crate::call::default_in,
        Normal,
    ),
];
