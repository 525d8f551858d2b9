//! Data moved between fds inside the kernel (sendfile, copy_file_range,
//! splice, tee), space management (fallocate) and special files (inotify,
//! memfd_create, memfd_secret, userfaultfd, pidfd_open).

use crate::abi::xlat::fs::{
    FADVICE, FALLOC_FLAGS, INOTIFY_INIT_FLAGS, INOTIFY_MASK, MFD_BASE_FLAGS, MFD_HUGE_MASK,
    MFD_HUGE_SHIFT, PIDFD_FLAGS, SECRET_FLAGS, SPLICE_FLAGS, SYNC_FILE_RANGE_FLAGS, UFFD_FLAGS,
};
use crate::call::{CallClass::Normal, Handler, default_in};
use crate::call::{CallCtx, CallType};
use crate::decode::put_fd;
use crate::format::Printer;
use crate::kernel::Arch;
use crate::service::fs::{after_off64, off64_arg, put_enum, put_off_ptr};
use crate::service::generic::no_params_out;
use crate::service::h;
use crate::service::raw::open_returned;

/// `sendfile(out_fd, in_fd, offset, count)`: the offset as passed in,
/// `[0]`, or NULL. `off_t` is 32 bits in i386's sendfile.
pub fn sendfile_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let width = if c.arch == Arch::I386 { 4 } else { 8 };
    put_sendfile(p, c, width)
}

/// `sendfile64(out_fd, in_fd, offset, count)` (i386, 64-bit offset)
pub fn sendfile64_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_sendfile(p, c, 8)
}

fn put_sendfile(p: &mut Printer, c: &CallCtx, width: usize) -> CallType {
    put_fd(p, c.fds, "out_fd", c.int(0));
    put_fd(p, c.fds, "in_fd", c.int(1));
    put_off_ptr(p, "offset", c.args[2], width);
    p.uint("count", c.args[3]);
    CallType::Done
}

/// After the result, the offsets the kernel moved on, as strace's
/// `[7] => [17]`: `= 10 {offset=[17]}`. `offsets` are (name, argument,
/// width in bytes); NULL ones are left out.
fn put_moved_offsets(p: &mut Printer, c: &CallCtx, failed: bool, offsets: &[(&str, usize, usize)]) {
    // A Done call's `=` is printed before its leave half runs.
    if !p.equals_printed() {
        p.equals();
    }
    p.result(c.result);
    let shown: Vec<_> = offsets
        .iter()
        .filter(|&&(_, arg, _)| c.args[arg] != 0)
        .collect();
    if failed || shown.is_empty() || p.config().values_only >= 2 {
        return;
    }
    open_returned(p);
    for &&(name, arg, width) in &shown {
        put_off_ptr(p, name, c.args[arg], width);
    }
    p.close("}");
}

/// Leave half of sendfile: the offset moved on.
pub fn sendfile_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    let width = if c.arch == Arch::I386 { 4 } else { 8 };
    put_moved_offsets(p, c, failed, &[("offset", 2, width)]);
}

/// Leave half of sendfile64.
pub fn sendfile64_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    put_moved_offsets(p, c, failed, &[("offset", 2, 8)]);
}

/// Leave half of copy_file_range and splice: both offsets moved on.
pub fn two_offsets_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    put_moved_offsets(p, c, failed, &[("off_in", 1, 8), ("off_out", 3, 8)]);
}

/// `copy_file_range(fd_in, off_in, fd_out, off_out, len, flags)`
pub fn copy_file_range_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd_in", c.int(0));
    put_off_ptr(p, "off_in", c.args[1], 8);
    put_fd(p, c.fds, "fd_out", c.int(2));
    put_off_ptr(p, "off_out", c.args[3], 8);
    p.uint("len", c.args[4]);
    p.uint("flags", c.args[5] & 0xffff_ffff);
    CallType::Done
}

/// `splice(fd_in, off_in, fd_out, off_out, len, flags)`
pub fn splice_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd_in", c.int(0));
    put_off_ptr(p, "off_in", c.args[1], 8);
    put_fd(p, c.fds, "fd_out", c.int(2));
    put_off_ptr(p, "off_out", c.args[3], 8);
    p.uint("len", c.args[4]);
    p.flags("flags", c.args[5] & 0xffff_ffff, SPLICE_FLAGS);
    CallType::Done
}

/// `tee(fd_in, fd_out, len, flags)`
pub fn tee_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd_in", c.int(0));
    put_fd(p, c.fds, "fd_out", c.int(1));
    p.uint("len", c.args[2]);
    p.flags("flags", c.args[3] & 0xffff_ffff, SPLICE_FLAGS);
    CallType::Done
}

/// `fallocate(fd, mode, offset, len)`: `fallocate(3, FALLOC_FL_KEEP_SIZE, 0, 4096)`.
pub fn fallocate_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    p.flags("mode", c.args[1] & 0xffff_ffff, FALLOC_FLAGS);
    p.int("offset", off64_arg(c, 2));
    p.int("len", off64_arg(c, after_off64(c, 2)));
    CallType::Done
}

/// `fadvise64(fd, offset, len, advice)`:
/// `fadvise64(3, 0, 4096, POSIX_FADV_DONTNEED)`. On i386 the offset takes
/// two registers and `len` one (`size_t`).
pub fn fadvise64_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    p.int("offset", off64_arg(c, 1));
    let len = after_off64(c, 1);
    p.uint("len", c.args[len]);
    put_enum(p, "advice", c.int(len + 1), FADVICE);
    CallType::Done
}

/// `fadvise64_64(fd, offset, len, advice)` (i386): offset and len both
/// take two registers; printed whole, as fallocate's are.
pub fn fadvise64_64_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    p.int("offset", off64_arg(c, 1));
    let len = after_off64(c, 1);
    p.int("len", off64_arg(c, len));
    put_enum(p, "advice", c.int(after_off64(c, len)), FADVICE);
    CallType::Done
}

/// `sync_file_range(fd, offset, nbytes, flags)`:
/// `sync_file_range(3, 0, 4096, SYNC_FILE_RANGE_WRITE)`.
pub fn sync_file_range_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    p.int("offset", off64_arg(c, 1));
    let nbytes = after_off64(c, 1);
    p.int("nbytes", off64_arg(c, nbytes));
    let flags = after_off64(c, nbytes);
    p.flags("flags", c.args[flags] & 0xffff_ffff, SYNC_FILE_RANGE_FLAGS);
    CallType::Done
}

/// `inotify_init1(flags)`
pub fn inotify_init1_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.flags("flags", c.args[0] & 0xffff_ffff, INOTIFY_INIT_FLAGS);
    CallType::Done
}

/// `inotify_add_watch(fd, pathname, mask)`: `IN_CREATE|IN_DELETE`.
pub fn inotify_add_watch_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    p.path("pathname", c.args[1]);
    p.flags("mask", c.args[2] & 0xffff_ffff, INOTIFY_MASK);
    CallType::Done
}

/// `inotify_rm_watch(fd, wd)`
pub fn inotify_rm_watch_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    p.int("wd", c.int(1));
    CallType::Done
}

/// `memfd_create(name, flags)`: `memfd_create("buf", MFD_CLOEXEC)`. The
/// hugetlb page size is its field's value, as strace writes it
/// (`MFD_HUGETLB|30<<MFD_HUGE_SHIFT` for 1 GiB pages), whatever the size.
pub fn memfd_create_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.cstr("name", c.args[0]);
    let flags = c.args[1] & 0xffff_ffff;
    let mask = (MFD_HUGE_MASK as u64) << MFD_HUGE_SHIFT;
    let field = format!("{}<<MFD_HUGE_SHIFT", (flags & mask) >> MFD_HUGE_SHIFT);
    p.flags_with_field("flags", (flags, mask), MFD_BASE_FLAGS, &field, false);
    CallType::Done
}

/// `memfd_secret(flags)`: `memfd_secret(O_CLOEXEC)`.
pub fn memfd_secret_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.flags("flags", c.args[0] & 0xffff_ffff, SECRET_FLAGS);
    CallType::Done
}

/// `userfaultfd(flags)`: `userfaultfd(UFFD_USER_MODE_ONLY|O_CLOEXEC)`.
pub fn userfaultfd_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.flags("flags", c.args[0] & 0xffff_ffff, UFFD_FLAGS);
    CallType::Done
}

/// `pidfd_open(pid, flags)`: `pidfd_open(42, PIDFD_NONBLOCK)`.
pub fn pidfd_open_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("pid", c.int(0));
    p.flags("flags", c.args[1] & 0xffff_ffff, PIDFD_FLAGS);
    CallType::Done
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("sendfile", sendfile_out, sendfile_in, Normal),
    h("sendfile64", sendfile64_out, sendfile64_in, Normal),
    h(
        "copy_file_range",
        copy_file_range_out,
        two_offsets_in,
        Normal,
    ),
    h("splice", splice_out, two_offsets_in, Normal),
    h("tee", tee_out, default_in, Normal),
    h("fallocate", fallocate_out, default_in, Normal),
    h("fadvise64", fadvise64_out, default_in, Normal),
    h("fadvise64_64", fadvise64_64_out, default_in, Normal),
    h("sync_file_range", sync_file_range_out, default_in, Normal),
    h("inotify_init", no_params_out, default_in, Normal),
    h("inotify_init1", inotify_init1_out, default_in, Normal),
    h(
        "inotify_add_watch",
        inotify_add_watch_out,
        default_in,
        Normal,
    ),
    h("inotify_rm_watch", inotify_rm_watch_out, default_in, Normal),
    h("memfd_create", memfd_create_out, default_in, Normal),
    h("memfd_secret", memfd_secret_out, default_in, Normal),
    h("userfaultfd", userfaultfd_out, default_in, Normal),
    h("pidfd_open", pidfd_open_out, default_in, Normal),
];
