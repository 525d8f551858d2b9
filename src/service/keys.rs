//! The key management calls, as strace 6 shows them: add_key, request_key
//! and keyctl, whose operation says what each of its arguments is (a key
//! serial number, `KEY_SPEC_THREAD_KEYRING` for the special ones; a
//! string; a buffer; a uid). The DH and public key operations' structs
//! print as their addresses. Names from `abi::xlat::process`.

use crate::abi::xlat::process::*;
use crate::call::{CallClass::Normal, CallCtx, CallType, Handler, errno_name};
use crate::format::Printer;
use crate::service::h;
use crate::service::raw::{lookup, put_id};

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
        KEYCTL_INSTANTIATE_IOV => {
            put_key(p, "arg2", a[1]);
            p.ptr("arg3", a[2]);
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
        // DH_COMPUTE, the PKEY operations, CAPABILITIES, WATCH_KEY and
        // unknown operations: the four words.
        _ => {
            for i in 1..5 {
                p.hex(ARG[i], a[i]);
            }
        }
    }
    CallType::Done
}

/// Leave half of keyctl's DESCRIBE, READ and GET_SECURITY: the text the
/// kernel wrote (at most the buffer's length; the result is the whole
/// text's), then the length.
pub fn keyctl_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if p.equals_printed() {
        p.result(c.result);
        return;
    }
    let (addr, len) = (c.args[2], c.args[3]);
    if failed || addr == 0 {
        p.ptr("arg3", addr);
    } else {
        let shown = (c.result as u64).min(len);
        // DESCRIBE and GET_SECURITY write a C string: its NUL is not text.
        let mut bytes = vec![0u8; shown as usize];
        if shown > 0 && !p.mem().read_exact(addr, &mut bytes) {
            p.ptr("arg3", addr);
        } else {
            if c.args[0] as u32 != KEYCTL_READ && bytes.last() == Some(&0) {
                bytes.pop();
            }
            let limit = p.config().string_limit;
            let cut = bytes.len() > limit;
            bytes.truncate(limit);
            p.string("arg3", &bytes, cut);
        }
    }
    p.uint("arg4", len);
    p.equals();
    p.result(c.result);
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
