//! Decoding pieces shared by the syscall handlers (`service/`) and the
//! ioctl groups (`ioctl/`): an fd with its path, a value's name from a
//! table, the open flags, signal names, an extended result. They live
//! here, below both, so the ioctl layer never imports the handlers above
//! it.

use crate::abi::fs::AT_FDCWD;
use crate::fdtable::FdTable;
use crate::format::{ConstStyle, Naming, Printer, flags_hex};
use crate::kernel::fds::{FdDetails, FdText};

/// A file descriptor; with `-y` also what the kernel says it is now
/// (with `-yy` or `--decode-fds=SET` what strace adds: `3<TCP:[...]>`,
/// `3</dev/null<char 1:3>>`, `3<pid:42>`; `crate::kernel::fds`):
/// `3</usr/lib/x86_64-linux-gnu/libc.so.6>`, `3</tmp/f (deleted)>`. The
/// fd table's path (what the program asked to open) is bookkeeping and is
/// never printed: it goes stale on rename and unlink, and a path through a
/// symlink is not the file's. An fd not open at this moment (a close that
/// failed) is its number only.
///
/// Under the BPF engine the call is printed after it ran: see
/// [`put_fd_after`].
pub fn put_fd(p: &mut Printer, fds: &FdTable, name: &str, fd: i64) {
    match i32::try_from(fd).ok().and_then(|fd| fd_text(p, fds, fd)) {
        Some(shown) => p.fd_text(name, fd, &shown),
        None => p.int(name, fd),
    }
}

/// What `-y`/`-yy` show of `fd` between its `<` and `>` ([`put_fd`]), in
/// an argument or a set of fds; `None` for the number alone.
pub fn fd_text(p: &mut Printer, fds: &FdTable, fd: i32) -> Option<FdText> {
    let set = p.config().decode_fds;
    if !set.any() {
        None
    } else if p.mem().is_captured() {
        fd_text_after(p, fds, fd, set)
    } else {
        crate::kernel::fds::describe(p.pid(), fd, set)
    }
}

/// [`fd_text`] for a call printed after it ran (the BPF engine): by then
/// the fd may have been closed and opened again on another file, or the
/// process be gone. /proc's answer is shown only while its link still
/// leads to the file the kernel saw at the call (the identity copied with
/// the call); otherwise the fd table's path (what the calls before this
/// one opened, in their order), else the number alone.
fn fd_text_after(p: &mut Printer, fds: &FdTable, fd: i32, set: FdDetails) -> Option<FdText> {
    let known = fds.known_path(fd);
    crate::kernel::fds::describe_vouched(p.mem(), fd, set, known.as_deref()).or_else(|| {
        let path = known.filter(|_| set.path())?;
        Some(FdText {
            path,
            details: None,
        })
    })
}

/// A directory fd that may be `AT_FDCWD`.
/// Under `-y`, `AT_FDCWD` shows the working directory it stands for,
/// as strace does (`AT_FDCWD</home/u>`), and another fd its path.
pub fn put_dirfd(p: &mut Printer, fds: &FdTable, name: &str, fd: i64) {
    if fd != AT_FDCWD {
        return put_fd(p, fds, name, fd);
    }
    // Under the BPF engine the task may have changed directory since the
    // call, or be gone.
    let cwd = if !p.config().decode_fds.path() {
        None
    } else if p.mem().is_captured() {
        // /proc's answer while it still leads to the call's directory,
        // else the one the traced chdir calls left.
        crate::kernel::fds::vouched_cwd(p.mem()).or_else(|| fds.cwd().map(<[u8]>::to_vec))
    } else {
        crate::fdtable::kernel_cwd(p.pid())
    };
    match cwd {
        Some(cwd) if p.config().consts != ConstStyle::Values => {
            p.symbol_path(name, fd, "AT_FDCWD", &cwd)
        }
        _ => p.symbol_decimal(name, fd, Some("AT_FDCWD")),
    }
}

/// The name of `value` in a `(value, name)` table.
pub fn lookup(table: &[(i64, &'static str)], value: i64) -> Option<&'static str> {
    table.iter().find(|(v, _)| *v == value).map(|(_, n)| *n)
}

pub use crate::abi::signals::{KERNEL_SIGRTMAX, KERNEL_SIGRTMIN, signal_name};

/// Print a signal number parameter by name (`-V`: the number).
pub fn put_signal(p: &mut Printer, name: &str, sig: i64) {
    // A value beyond an int names no signal, whatever its low half says.
    let sym = match i32::try_from(sig) {
        Ok(sig) if p.symbols() => signal_name(sig),
        _ => None,
    };
    p.symbol_decimal(name, sig, sym.as_deref());
}

/// After the result, an extended part in parentheses printed by `body`
/// with the name it is given: `fcntl(3, F_GETFD) = 1 (FD_CLOEXEC)`. In
/// JSON the value goes to the call's `returned` object under `name` (a
/// top-level `)` would read as the parameter list's end there).
pub fn put_extended(p: &mut Printer, name: &str, body: impl FnOnce(&mut Printer, &str)) {
    if p.json() {
        body(p, name);
        return;
    }
    p.open("", " (", Naming::Elements);
    body(p, "");
    p.close(")");
}

/// A device number as `makedev(0x8, 0x1)` (glibc's major/minor split);
/// `-V` and `-X raw`: the raw number; `-X verbose` both. (Moved from
/// `service/fs_stat.rs` so the ioctl decoders can print one too.)
pub fn put_dev(p: &mut Printer, name: &str, dev: u64) {
    if !p.symbols() {
        p.hex(name, dev);
        return;
    }
    // glibc's gnu_dev_major/gnu_dev_minor: the minor's high bits are
    // 20..43 of the number, not everything above bit 20.
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & 0xffff_f000);
    let minor = (dev & 0xff) | ((dev >> 12) & 0xffff_ff00);
    // -X verbose: the number with the macro beside it, as strace writes it
    // (`0xfe00 /* makedev(0xfe, 0) */`).
    if p.config().consts == ConstStyle::Verbose && !p.json() {
        let names = format!("makedev({}, {})", flags_hex(major), flags_hex(minor));
        return p.spelled(name, &flags_hex(dev), &names, || dev.into());
    }
    p.open(name, "makedev(", Naming::Elements);
    p.hex("major", major);
    p.hex("minor", minor);
    p.close(")");
}

/// A time in seconds and nanoseconds since the epoch as a UTC date, as
/// strace's -v comments show stat times: `2026-11-22T19:44:07.112524250+0000`
/// (no fraction when `nsec` is 0). `None` for a year beyond four digits.
pub fn date_text(sec: i64, nsec: u64) -> Option<String> {
    date_in(sec, nsec, 0..=9999)
}

/// [`date_text`] for any year C's `gmtime` can hold (an `int` past 1900),
/// as strace's comments on PTP clock times show them:
/// `-1943-10-23T01:57:57+0000`, `10150477-10-18T23:25:01+0000`.
pub fn date_text_any_year(sec: i64, nsec: u64) -> Option<String> {
    date_in(sec, nsec, i32::MIN as i64 + 1900..=i32::MAX as i64 + 1900)
}

/// The date of `sec`/`nsec` if its year is in `years`.
fn date_in(sec: i64, nsec: u64, years: std::ops::RangeInclusive<i64>) -> Option<String> {
    let days = sec.div_euclid(86400);
    let secs = sec.rem_euclid(86400);
    // Civil date from a day count (days since 1970-01-01), in 400-year eras.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    if !years.contains(&year) {
        return None;
    }
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    let frac = if nsec == 0 || nsec >= 1_000_000_000 {
        String::new()
    } else {
        format!(".{nsec:09}")
    };
    Some(format!(
        "{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}{frac}+0000"
    ))
}

/// The most bytes a decoder copies of one array or buffer: a length the
/// tracee passed can be anything, and a larger copy prints as its pointer
/// instead.
pub const MAX_READ: usize = 1 << 20;

/// An array of `count` elements of `size` bytes at `addr`, read up to the
/// first unreadable byte (strace reads it element by element, with the
/// same outcome): the first `limit` by `each`, then `..` if more are
/// left. An element that cannot be read ends the array with its address
/// as an unread pointer (`[{iov_base=0x1000, iov_len=8}, &0x7ffd1000]`;
/// strace writes `... /* 0x7ffd1000 */`), so a bad tail does not hide the
/// good head; one just past the limit too. NULL, or an array whose first
/// element is unreadable, is the pointer; an empty one is `[]`. Returns
/// whether every element up to the limit was read (`false`: an address
/// was printed in an element's place, which some callers' results mark).
pub fn put_array(
    p: &mut Printer,
    name: &str,
    addr: u64,
    (count, size, limit): (u64, usize, usize),
    mut each: impl FnMut(&mut Printer, &[u8]),
) -> bool {
    if addr == 0 || p.config().values_only >= 2 || size == 0 {
        p.ptr(name, addr);
        return true;
    }
    // One copy of the elements that can show, and of the one after the
    // limit: strace reads an element before it looks at the limit, so an
    // unreadable one just past it is still said. The copy stops at the
    // first unreadable byte.
    // At most MAX_READ bytes, whatever count and limit the caller has.
    let limit = limit.min((MAX_READ / size).saturating_sub(1));
    let wanted = count.min(limit as u64 + 1) as usize;
    let mut b = vec![0u8; wanted * size];
    let got = p.mem().read(addr, &mut b) / size;
    if wanted > 0 && got == 0 {
        p.ptr(name, addr);
        return true;
    }
    p.open(name, "[", Naming::Elements);
    let mut complete = true;
    for (i, elem) in b.chunks_exact(size).enumerate().take(wanted) {
        if i >= got {
            p.ptr("", addr.wrapping_add((i * size) as u64));
            complete = false;
            break;
        }
        if i >= limit {
            p.more();
            break;
        }
        each(p, elem);
    }
    p.close("]");
    complete
}

/// The most elements an array shows under `-v`: as many as the kernel
/// takes of an iovec array (`UIO_MAXIOV`), few enough that a huge count
/// the program passed cannot keep the tracer reading and printing.
pub const VERBOSE_ELEMENTS: usize = 1024;

/// The most elements an array shows: the string limit (`-s`), as strace
/// counts them, or under `-v` [`VERBOSE_ELEMENTS`].
pub fn array_limit(p: &Printer) -> usize {
    if p.config().verbose > 0 {
        VERBOSE_ELEMENTS
    } else {
        p.config().string_limit.max(1)
    }
}
