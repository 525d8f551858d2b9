//! Byte tables of a length the request fixes (a console's screen map, the
//! sectors HDIO_DRIVE_CMD read), shown as strace shows such a buffer: the
//! bytes up to `-s` as a string, and only when all of them, and one more
//! when the table is longer (the proof that it goes on), can be read;
//! otherwise the pointer, as for memory the kernel could not have copied.

use crate::format::Printer;

/// `-s`'s default, which `-v` raises for strings: a table's bytes past it
/// are shown under `-v` only as far as they can be read, so a table that
/// ends early in memory prints as it does without `-v`.
const DEFAULT_LIMIT: usize = 32;

/// `len` bytes at `addr` (see the module's doc).
pub fn put_table(p: &mut Printer, name: &str, addr: u64, len: u64) {
    let limit = p.config().string_limit;
    let strict = if p.config().verbose > 0 {
        limit.min(DEFAULT_LIMIT)
    } else {
        limit
    };
    let len = len as usize;
    // What must be readable: the bytes shown, and one more past a cut.
    let need = if len > strict { strict + 1 } else { len };
    let mut bytes = vec![0u8; len.min(limit.saturating_add(1))];
    let got = if addr == 0 || p.config().values_only >= 2 {
        0
    } else {
        p.mem().read(addr, &mut bytes)
    };
    if addr == 0 || got < need {
        return p.ptr(name, addr);
    }
    let shown = got.min(limit);
    bytes.truncate(shown);
    p.string(name, &bytes, len > shown);
}
