//! Names and attributes: mkdir, unlink, rename, link, symlink, chmod,
//! chown, truncate, fsync, chdir/fchdir/getcwd, umask, mount/umount2.

use crate::abi::fs::UMODE_MASK;
use crate::abi::xlat::fs::{
    AT_FLAGS, MS_FLAGS, MS_MGC_MSK, MS_MGC_VAL, RENAME_FLAGS, UMOUNT_FLAGS,
};
use crate::call::{CallClass::Normal, Handler, default_in};
use crate::call::{CallCtx, CallType};
use crate::decode::put_extended;
use crate::decode::put_fd;
use crate::format::{Printer, flags_text};
use crate::service::fs::{off64_arg, put_at_dirfd, put_result};
use crate::service::fs_stat::{S_IFBLK, S_IFCHR, S_IFMT, put_dev, put_file_mode};
use crate::service::h;
use crate::service::raw::put_call_id;
use crate::service::time::{put_timeval_pair, put_utime_pair};

/// `mkdir(pathname, mode)`, `chmod(pathname, mode)`
pub fn path_mode_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.path("pathname", c.args[0]);
    p.mode("mode", c.args[1] & UMODE_MASK);
    CallType::Done
}

/// `mkdirat(dirfd, pathname, mode)`, `fchmodat(dirfd, pathname, mode)`
pub fn at_path_mode_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_at_dirfd(p, c.fds, "dirfd", c.int(0));
    p.path("pathname", c.args[1]);
    p.mode("mode", c.args[2] & UMODE_MASK);
    CallType::Done
}

/// `fchmodat2(dirfd, pathname, mode, flags)`
pub fn fchmodat2_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    at_path_mode_out(p, c);
    p.flags("flags", c.args[3] & 0xffff_ffff, AT_FLAGS);
    CallType::Done
}

/// `fchmod(fd, mode)`
pub fn fchmod_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    p.mode("mode", c.args[1] & UMODE_MASK);
    CallType::Done
}

/// The device number of a new node: `makedev(0x1, 0x3)` for the types
/// that are devices. Other types ignore it, so it stays a plain number.
fn put_node_dev(p: &mut Printer, mode: u64, dev: u64) {
    // The kernel takes `unsigned int dev` (new_decode_dev).
    let dev = dev & 0xffff_ffff;
    if matches!(mode & S_IFMT, S_IFCHR | S_IFBLK) {
        put_dev(p, "dev", dev);
    } else {
        p.hex("dev", dev);
    }
}

/// `mknod(filename, mode, dev)`: `mknod("null", S_IFCHR|0666, makedev(0x1, 0x3))`.
pub fn mknod_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.path("filename", c.args[0]);
    // The kernel takes `umode_t mode`: only the low 16 bits count.
    let mode = c.args[1] & 0xffff;
    put_file_mode(p, "mode", mode);
    put_node_dev(p, mode, c.args[2]);
    CallType::Done
}

/// `mknodat(dfd, filename, mode, dev)`
pub fn mknodat_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_at_dirfd(p, c.fds, "dfd", c.int(0));
    p.path("filename", c.args[1]);
    let mode = c.args[2] & 0xffff;
    put_file_mode(p, "mode", mode);
    put_node_dev(p, mode, c.args[3]);
    CallType::Done
}

/// `utimensat(dfd, filename, utimes, flags)`, `utimensat_time64`:
/// `utimensat(AT_FDCWD, "f1", [{tv_sec=1, tv_nsec=2}, UTIME_NOW], 0)`.
/// A NULL filename is futimens(3) on `dfd`; NULL times mean "now". The
/// flags by every `AT_*` name, as strace shows them, not only the two the
/// call accepts: `AT_REMOVEDIR` is named where the kernel refuses it.
pub fn utimensat_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_at_dirfd(p, c.fds, "dfd", c.int(0));
    p.path("filename", c.args[1]);
    put_utime_pair(p, c, "utimes", c.args[2]);
    p.flags("flags", c.args[3] & 0xffff_ffff, AT_FLAGS);
    CallType::Done
}

/// `utimes(filename, utimes)`: the two timevals with their dates.
pub fn utimes_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.path("filename", c.args[0]);
    put_timeval_pair(p, "utimes", c.args[1]);
    CallType::Done
}

/// `futimesat(dfd, filename, utimes)`: as utimes, from a directory fd.
pub fn futimesat_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_at_dirfd(p, c.fds, "dfd", c.int(0));
    p.path("filename", c.args[1]);
    put_timeval_pair(p, "utimes", c.args[2]);
    CallType::Done
}

/// `unlink(pathname)`, `chdir(path)`, `umount(target)`, `rmdir`
pub fn path_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.path("pathname", c.args[0]);
    CallType::Done
}

/// `unlinkat(dirfd, pathname, flags)`: `AT_REMOVEDIR`.
pub fn unlinkat_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_at_dirfd(p, c.fds, "dirfd", c.int(0));
    p.path("pathname", c.args[1]);
    p.flags("flags", c.args[2] & 0xffff_ffff, AT_FLAGS);
    CallType::Done
}

/// `rename(oldpath, newpath)`, `link`, `symlink(target, linkpath)`
pub fn two_paths_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.path("oldpath", c.args[0]);
    p.path("newpath", c.args[1]);
    CallType::Done
}

/// `renameat(olddirfd, oldpath, newdirfd, newpath)`
pub fn renameat_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_at_dirfd(p, c.fds, "olddirfd", c.int(0));
    p.path("oldpath", c.args[1]);
    put_at_dirfd(p, c.fds, "newdirfd", c.int(2));
    p.path("newpath", c.args[3]);
    CallType::Done
}

/// `renameat2(olddirfd, oldpath, newdirfd, newpath, flags)`
pub fn renameat2_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    renameat_out(p, c);
    p.flags("flags", c.args[4] & 0xffff_ffff, RENAME_FLAGS);
    CallType::Done
}

/// `linkat(olddirfd, oldpath, newdirfd, newpath, flags)`
pub fn linkat_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    renameat_out(p, c);
    p.flags("flags", c.args[4] & 0xffff_ffff, AT_FLAGS);
    CallType::Done
}

/// `symlinkat(target, newdirfd, linkpath)`
pub fn symlinkat_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.path("target", c.args[0]);
    put_at_dirfd(p, c.fds, "newdirfd", c.int(1));
    p.path("linkpath", c.args[2]);
    CallType::Done
}

/// `chown(pathname, owner, group)`, `lchown`, and their i386 forms
pub fn chown_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.path("pathname", c.args[0]);
    put_call_id(p, c, "owner", c.args[1]);
    put_call_id(p, c, "group", c.args[2]);
    CallType::Done
}

/// `fchown(fd, owner, group)`
pub fn fchown_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    put_call_id(p, c, "owner", c.args[1]);
    put_call_id(p, c, "group", c.args[2]);
    CallType::Done
}

/// `fchownat(dirfd, pathname, owner, group, flags)`
pub fn fchownat_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_at_dirfd(p, c.fds, "dirfd", c.int(0));
    p.path("pathname", c.args[1]);
    put_call_id(p, c, "owner", c.args[2]);
    put_call_id(p, c, "group", c.args[3]);
    p.flags("flags", c.args[4] & 0xffff_ffff, AT_FLAGS);
    CallType::Done
}

/// `truncate(path, length)`
pub fn truncate_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.path("path", c.args[0]);
    p.int("length", crate::service::fs::long_arg(c, 1));
    CallType::Done
}

/// `ftruncate(fd, length)`
pub fn ftruncate_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    p.int("length", crate::service::fs::long_arg(c, 1));
    CallType::Done
}

/// `truncate64(path, length)` (i386: the length in two registers)
pub fn truncate64_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.path("path", c.args[0]);
    p.int("length", off64_arg(c, 1));
    CallType::Done
}

/// `ftruncate64(fd, length)` (i386)
pub fn ftruncate64_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    p.int("length", off64_arg(c, 1));
    CallType::Done
}

/// `fsync(fd)`, `fdatasync(fd)`, `fchdir(fd)`, `syncfs(fd)`
pub fn fd_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    CallType::Done
}

/// `getcwd(buf, size)`: the directory prints at leave.
pub fn getcwd_out(_p: &mut Printer, _c: &mut CallCtx) -> CallType {
    CallType::NotDone
}

/// Leave half of getcwd: `getcwd("/tmp", 4096) = 5`.
pub fn getcwd_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if failed {
        p.ptr("buf", c.args[0]);
    } else {
        p.path("buf", c.args[0]);
    }
    p.uint("size", c.args[1]);
    put_result(p, c);
}

/// `umask(mask)`: the result is the old mask, explained in octal:
/// `umask(077) = 18 (022)`.
///
/// The mask prints as the `mode_t` (16 bits) the program passed, not as
/// the `mask & 0777` the kernel keeps: `umask(03545)` shows a caller that
/// meant to mask bits umask ignores (strace prints it the same way).
pub fn umask_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.mode("mask", c.args[0] & 0xffff);
    CallType::Done
}

/// Leave half of umask.
pub fn umask_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    put_result(p, c);
    if !failed && p.symbols() {
        let old = c.result as u64;
        put_extended(p, "old_mask", |p, n| p.mode(n, old));
    }
}

/// `mount(source, target, filesystemtype, mountflags, data)`:
/// `mount("none", "/mnt", "tmpfs", MS_NOSUID|MS_NODEV, "size=1m")`.
pub fn mount_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.path("source", c.args[0]);
    p.path("target", c.args[1]);
    // `unsigned long mountflags`: all 64 bits reach the kernel.
    let flags = c.args[3];
    // A remount or bind takes no filesystem type; the kernel ignores it.
    if flags & (32 | 4096) != 0 && c.args[2] != 0 {
        p.ptr("filesystemtype", c.args[2]);
    } else {
        p.cstr("filesystemtype", c.args[2]);
    }
    // The old magic number is its own part, as strace writes it
    // (`0xc0ed0000|0x1` under -X raw).
    let rest = flags & !MS_MGC_MSK;
    if flags & MS_MGC_MSK == MS_MGC_VAL {
        let mut parts = vec![(MS_MGC_VAL, flags_text(MS_MGC_VAL, MS_FLAGS, true))];
        if rest != 0 {
            parts.push((rest, flags_text(rest, MS_FLAGS, true)));
        }
        p.flags_parts("mountflags", flags, &parts);
    } else {
        p.flags("mountflags", flags, MS_FLAGS);
    }
    if c.args[4] == 0 {
        p.ptr("data", 0);
    } else {
        p.cstr("data", c.args[4]);
    }
    CallType::Done
}

/// `umount2(target, flags)`
pub fn umount2_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.path("target", c.args[0]);
    p.flags("flags", c.args[1] & 0xffff_ffff, UMOUNT_FLAGS);
    CallType::Done
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("mkdir", path_mode_out, default_in, Normal),
    h("mkdirat", at_path_mode_out, default_in, Normal),
    h("mknod", mknod_out, default_in, Normal),
    h("mknodat", mknodat_out, default_in, Normal),
    h("rmdir", path_out, default_in, Normal),
    h("unlink", path_out, default_in, Normal),
    h("unlinkat", unlinkat_out, default_in, Normal),
    h("rename", two_paths_out, default_in, Normal),
    h("renameat", renameat_out, default_in, Normal),
    h("renameat2", renameat2_out, default_in, Normal),
    h("link", two_paths_out, default_in, Normal),
    h("linkat", linkat_out, default_in, Normal),
    h("symlink", two_paths_out, default_in, Normal),
    h("symlinkat", symlinkat_out, default_in, Normal),
    h("chmod", path_mode_out, default_in, Normal),
    h("fchmod", fchmod_out, default_in, Normal),
    h("fchmodat", at_path_mode_out, default_in, Normal),
    h("fchmodat2", fchmodat2_out, default_in, Normal),
    h("chown", chown_out, default_in, Normal),
    h("lchown", chown_out, default_in, Normal),
    h("chown32", chown_out, default_in, Normal),
    h("lchown32", chown_out, default_in, Normal),
    h("fchown", fchown_out, default_in, Normal),
    h("fchown32", fchown_out, default_in, Normal),
    h("fchownat", fchownat_out, default_in, Normal),
    h("truncate", truncate_out, default_in, Normal),
    h("ftruncate", ftruncate_out, default_in, Normal),
    h("truncate64", truncate64_out, default_in, Normal),
    h("ftruncate64", ftruncate64_out, default_in, Normal),
    h("fsync", fd_out, default_in, Normal),
    h("fdatasync", fd_out, default_in, Normal),
    h("syncfs", fd_out, default_in, Normal),
    h("chdir", path_out, default_in, Normal),
    h("fchdir", fd_out, default_in, Normal),
    h("chroot", path_out, default_in, Normal),
    h("getcwd", getcwd_out, getcwd_in, Normal),
    h("umask", umask_out, umask_in, Normal),
    h("utimensat", utimensat_out, default_in, Normal),
    h("utimensat_time64", utimensat_out, default_in, Normal),
    h("utimes", utimes_out, default_in, Normal),
    h("futimesat", futimesat_out, default_in, Normal),
    h("mount", mount_out, default_in, Normal),
    h("umount", path_out, default_in, Normal),
    h("umount2", umount2_out, default_in, Normal),
];
