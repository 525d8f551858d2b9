//! The new mount API (5.2): fsopen, fspick, fsconfig, fsmount, open_tree,
//! move_mount and mount_setattr, with their flags by name and
//! mount_setattr's `struct mount_attr`.

use crate::abi::xlat::fs::{
    FSCONFIG_CMDS, FSMOUNT_FLAGS, FSOPEN_FLAGS, FSPICK_FLAGS, MOUNT_ATTR_LAYOUT, MOUNT_ATTRS,
    MOUNT_PROPAGATION, MOUNT_SETATTR_FLAGS, MOVE_MOUNT_FLAGS, OPEN_TREE_FLAGS,
};
use crate::call::{CallClass::Normal, CallCtx, CallType, Handler, default_in};
use crate::decode::put_fd;
use crate::format::{PATH_MAX, Printer};
use crate::service::fs::{name_of, put_at_dirfd, put_enum};
use crate::service::raw::{open_struct_dyn, uint_at};
use crate::service::{ByValue, Mem, h};

/// `fsopen(fs_name, flags)`: `fsopen("ext4", FSOPEN_CLOEXEC)`.
pub fn fsopen_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.cstr("fs_name", c.args[0]);
    p.flags("flags", c.args[1] & 0xffff_ffff, FSOPEN_FLAGS);
    CallType::Done
}

/// `fspick(dfd, path, flags)`
pub fn fspick_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_at_dirfd(p, c.fds, "dfd", c.int(0));
    p.path("path", c.args[1]);
    p.flags("flags", c.args[2] & 0xffff_ffff, FSPICK_FLAGS);
    CallType::Done
}

/// `fsmount(fs_fd, flags, attr_flags)`: `fsmount(3, FSMOUNT_CLOEXEC,
/// MOUNT_ATTR_RDONLY)`.
pub fn fsmount_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fs_fd", c.int(0));
    p.flags("flags", c.args[1] & 0xffff_ffff, FSMOUNT_FLAGS);
    p.flags("attr_flags", c.args[2] & 0xffff_ffff, MOUNT_ATTRS);
    CallType::Done
}

/// The most bytes FSCONFIG_SET_BINARY takes (the kernel's `1024 * 1024`
/// limit in fsconfig(2)'s man page); a larger `aux` prints the pointer.
const FSCONFIG_BINARY_MAX: i64 = 1 << 20;

/// What fsconfig's decoder reads at `value` for each command
/// (`service::by_value`): a string as far as shown, `aux` bytes, a path.
pub fn fsconfig_memory() -> Vec<ByValue> {
    let mut out = Vec::new();
    for &(cmd, name) in FSCONFIG_CMDS {
        let mem = match name {
            "FSCONFIG_SET_STRING" => Mem::StrShown,
            "FSCONFIG_SET_BINARY" => Mem::InLen(4),
            "FSCONFIG_SET_PATH" | "FSCONFIG_SET_PATH_EMPTY" => Mem::Str(PATH_MAX + 1),
            _ => continue,
        };
        out.push(ByValue {
            selector: 1,
            value: cmd,
            arg: 3,
            mem,
        });
    }
    out
}

/// `fsconfig(fd, cmd, key, value, aux)`: the command by name; the key a
/// string for the commands that take one, the value and `aux` as the
/// command reads them (a string; bytes of `aux` length; a path from the
/// directory fd `aux`; an fd in `aux`); the pointers otherwise.
pub fn fsconfig_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    let cmd = c.args[1] & 0xffff_ffff;
    put_enum(p, "cmd", cmd as i32 as i64, FSCONFIG_CMDS);
    let aux = c.int(4);
    let name = name_of(cmd, FSCONFIG_CMDS).unwrap_or("");
    match name {
        "FSCONFIG_SET_FLAG"
        | "FSCONFIG_SET_STRING"
        | "FSCONFIG_SET_BINARY"
        | "FSCONFIG_SET_PATH"
        | "FSCONFIG_SET_PATH_EMPTY"
        | "FSCONFIG_SET_FD" => p.cstr("key", c.args[2]),
        _ => p.ptr("key", c.args[2]),
    }
    match name {
        "FSCONFIG_SET_STRING" => p.cstr("value", c.args[3]),
        "FSCONFIG_SET_BINARY" if (0..=FSCONFIG_BINARY_MAX).contains(&aux) => {
            p.buf("value", c.args[3], aux as u64)
        }
        "FSCONFIG_SET_PATH" | "FSCONFIG_SET_PATH_EMPTY" => p.path("value", c.args[3]),
        _ => p.ptr("value", c.args[3]),
    }
    match name {
        "FSCONFIG_SET_PATH" | "FSCONFIG_SET_PATH_EMPTY" => put_at_dirfd(p, c.fds, "aux", aux),
        "FSCONFIG_SET_FD" => put_fd(p, c.fds, "aux", aux),
        _ => p.int("aux", aux),
    }
    CallType::Done
}

/// `open_tree(dfd, filename, flags)`: its own flags, then the `AT_*` ones.
pub fn open_tree_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_at_dirfd(p, c.fds, "dfd", c.int(0));
    p.path("filename", c.args[1]);
    p.flags("flags", c.args[2] & 0xffff_ffff, OPEN_TREE_FLAGS);
    CallType::Done
}

/// `move_mount(from_dfd, from_pathname, to_dfd, to_pathname, flags)`
pub fn move_mount_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_at_dirfd(p, c.fds, "from_dfd", c.int(0));
    p.path("from_pathname", c.args[1]);
    put_at_dirfd(p, c.fds, "to_dfd", c.int(2));
    p.path("to_pathname", c.args[3]);
    p.flags("flags", c.args[4] & 0xffff_ffff, MOVE_MOUNT_FLAGS);
    CallType::Done
}

/// The first published `struct mount_attr` (`MOUNT_ATTR_SIZE_VER0`).
const MOUNT_ATTR_SIZE: usize = 32;

/// `mount_setattr(dfd, path, flags, uattr, usize)`: the attributes as
/// far as the layout known; a larger size is `..` after them, a smaller
/// one (which the kernel refuses) the pointer.
pub fn mount_setattr_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_at_dirfd(p, c.fds, "dfd", c.int(0));
    p.path("path", c.args[1]);
    p.flags("flags", c.args[2] & 0xffff_ffff, MOUNT_SETATTR_FLAGS);
    let size = c.args[4];
    let attr = if (size as usize) < MOUNT_ATTR_SIZE || c.args[3] == 0 {
        p.ptr("uattr", c.args[3]);
        None
    } else {
        open_struct_dyn(p, "uattr", c.args[3], MOUNT_ATTR_SIZE)
    };
    if let Some(b) = attr {
        for f in MOUNT_ATTR_LAYOUT {
            let v = uint_at(&b, f.off, f.size);
            match f.name {
                "attr_set" | "attr_clr" => p.flags(f.name, v, MOUNT_ATTRS),
                "propagation" => put_enum(p, f.name, v as i64, MOUNT_PROPAGATION),
                _ => p.uint(f.name, v),
            }
        }
        p.close_struct(size as usize == MOUNT_ATTR_SIZE);
    }
    p.uint("usize", size);
    CallType::Done
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("fsopen", fsopen_out, default_in, Normal),
    h("fspick", fspick_out, default_in, Normal),
    h("fsmount", fsmount_out, default_in, Normal),
    h("fsconfig", fsconfig_out, default_in, Normal),
    h("open_tree", open_tree_out, default_in, Normal),
    h("move_mount", move_mount_out, default_in, Normal),
    h("mount_setattr", mount_setattr_out, default_in, Normal),
];
