//! Byte tables of a length the request fixes (a console's screen map, the
//! sectors HDIO_DRIVE_CMD read), shown as strace shows such a table: the
//! bytes up to `-s` as a string (`-v` does not raise the limit for them:
//! `FormatConfig::table_limit`), and only when all of them, and one more
//! when the table is longer (the proof that it goes on), can be read;
//! otherwise the pointer, as for memory the kernel could not have copied.

use crate::format::Printer;

/// `len` bytes at `addr` (see the module's doc).
pub fn put_table(p: &mut Printer, name: &str, addr: u64, len: u64) {
    let limit = p.config().table_limit;
    let len = len as usize;
    let shown = len.min(limit);
    // The bytes shown, and one more past a cut.
    let mut bytes = vec![0u8; if len > shown { shown + 1 } else { len }];
    if addr == 0 || p.config().values_only >= 2 || !p.mem().read_exact(addr, &mut bytes) {
        return p.ptr(name, addr);
    }
    bytes.truncate(shown);
    p.string(name, &bytes, len > shown);
}
