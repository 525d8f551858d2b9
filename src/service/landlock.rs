//! The Landlock calls, as strace 6 shows them: landlock_create_ruleset's
//! `struct landlock_ruleset_attr` (as far as the caller's size holds the
//! fields rtrace knows, `...` past them) and flags, landlock_add_rule's
//! rule type and its `struct landlock_path_beneath_attr`,
//! landlock_restrict_self's fd. Names and layouts from `abi::xlat::fs`.

use crate::abi::layout::{extent, field};
use crate::abi::xlat::fs::{
    LANDLOCK_ACCESS_FS, LANDLOCK_CREATE_FLAGS, LANDLOCK_PATH_BENEATH_ATTR, LANDLOCK_RULE_TYPES,
    LANDLOCK_RULESET_ATTR,
};
use crate::call::{CallClass::Normal, CallCtx, CallType, Handler, default_in};
use crate::decode::put_fd;
use crate::format::Printer;
use crate::service::h;
use crate::service::raw::{lookup, open_struct_dyn};

/// `landlock_create_ruleset(attr, size, flags)`
pub fn landlock_create_ruleset_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let (addr, size) = (c.args[0], c.args[1]);
    let known = extent(LANDLOCK_RULESET_ATTR) as u64;
    if size < known {
        p.ptr("attr", addr);
    } else if let Some(b) = open_struct_dyn(p, "attr", addr, known as usize) {
        let fs = field(LANDLOCK_RULESET_ATTR, "handled_access_fs");
        p.flags(fs.name, fs.read(&b).unwrap_or(0), LANDLOCK_ACCESS_FS);
        p.close_struct(size == known);
    }
    p.uint("size", size);
    p.flags("flags", c.args[2] as u32 as u64, LANDLOCK_CREATE_FLAGS);
    CallType::Done
}

/// `landlock_add_rule(ruleset_fd, rule_type, rule_attr, flags)`
pub fn landlock_add_rule_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "ruleset_fd", c.int(0));
    let kind = c.args[1] as u32;
    match lookup(LANDLOCK_RULE_TYPES, kind as i64) {
        Some(sym) => p.symbol("rule_type", kind as i64, Some(sym)),
        None => p.hex("rule_type", kind as u64),
    }
    let addr = c.args[2];
    // LANDLOCK_RULE_PATH_BENEATH
    if kind == 1 {
        let len = extent(LANDLOCK_PATH_BENEATH_ATTR);
        if let Some(b) = open_struct_dyn(p, "rule_attr", addr, len) {
            let access = field(LANDLOCK_PATH_BENEATH_ATTR, "allowed_access");
            let parent = field(LANDLOCK_PATH_BENEATH_ATTR, "parent_fd");
            p.flags(
                access.name,
                access.read(&b).unwrap_or(0),
                LANDLOCK_ACCESS_FS,
            );
            put_fd(p, c.fds, parent.name, parent.read(&b).unwrap_or(0) as i64);
            p.close_struct(true);
        }
    } else {
        p.ptr("rule_attr", addr);
    }
    p.hex("flags", c.args[3] as u32 as u64);
    CallType::Done
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h(
        "landlock_add_rule",
        landlock_add_rule_out,
        default_in,
        Normal,
    ),
    h(
        "landlock_create_ruleset",
        landlock_create_ruleset_out,
        default_in,
        Normal,
    ),
];
