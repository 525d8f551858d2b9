//! `-e read=SET` / `-e write=SET`: every byte a successful read or write
//! on an fd of the set moved, as a hex and ASCII dump on continuation
//! lines after the call's line (strace's ` | 00000  68 65 ...  he.. |`).
//!
//! Which calls move data, and where their bytes are, is a table: a buffer
//! argument, an iovec array with its count, or a msghdr's iovec array.
//! The bytes are read at the call's leave (a read's buffer is filled
//! then; a write's still holds what was written), as many as the result
//! says moved, iovec by iovec (each under strace's ` * N bytes in buffer
//! K` header). The dump is the whole transfer, not cut at `-s`: that is
//! what it is asked for.

use crate::format::{FormatConfig, Printer};
use crate::kernel::{Arch, Memory};

/// Where a call's data is.
#[derive(Clone, Copy)]
enum Data {
    /// A buffer at this argument.
    Buf(usize),
    /// An iovec array at this argument, its count at the next.
    Iov(usize),
    /// A msghdr at this argument (its msg_iov and msg_iovlen).
    Msg(usize),
}

/// The calls that move data through their fd (argument 0): name, whether
/// they write, where the data is.
const CALLS: &[(&str, bool, Data)] = &[
    ("pread64", false, Data::Buf(1)),
    ("preadv", false, Data::Iov(1)),
    ("preadv2", false, Data::Iov(1)),
    ("pwrite64", true, Data::Buf(1)),
    ("pwritev", true, Data::Iov(1)),
    ("pwritev2", true, Data::Iov(1)),
    ("read", false, Data::Buf(1)),
    ("readv", false, Data::Iov(1)),
    ("recv", false, Data::Buf(1)),
    ("recvfrom", false, Data::Buf(1)),
    ("recvmsg", false, Data::Msg(1)),
    ("send", true, Data::Buf(1)),
    ("sendmsg", true, Data::Msg(1)),
    ("sendto", true, Data::Buf(1)),
    ("write", true, Data::Buf(1)),
    ("writev", true, Data::Iov(1)),
];

/// What one call moved, piece by piece: one piece for a buffer (no
/// number), one for each iovec that moved bytes (its number in the array,
/// which strace's ` * N bytes in buffer K` header names).
pub type Transfer = Vec<Moved>;

/// One buffer's part of a transfer.
pub struct Moved {
    /// The iovec's index, for a vectored call.
    pub buffer: Option<usize>,
    /// The bytes that could be read.
    pub bytes: Vec<u8>,
    /// How many the call moved through this buffer: more than `bytes`
    /// where the rest could not be read (under the BPF engine, past what
    /// the kernel copied).
    pub moved: usize,
}

/// The argument of call `name` whose buffer holds the data a dump shows,
/// where it is a plain buffer (read's, write's).
pub fn dumped_buffer(name: &str) -> Option<usize> {
    match CALLS.iter().find(|(n, _, _)| *n == name)? {
        &(_, _, Data::Buf(i)) => Some(i),
        _ => None,
    }
}

/// The bytes call `name` moved, when it returned `rval` (not an error)
/// on an fd `cfg` dumps; `None` for any other call.
pub fn transferred(
    cfg: &FormatConfig,
    name: &str,
    arch: Arch,
    args: &[u64; 6],
    rval: i64,
    mem: &mut Memory,
) -> Option<Transfer> {
    if cfg.dump_reads.is_empty() && cfg.dump_writes.is_empty() {
        return None;
    }
    let &(_, writes, data) = CALLS.iter().find(|(n, _, _)| *n == name)?;
    let set = if writes {
        &cfg.dump_writes
    } else {
        &cfg.dump_reads
    };
    if rval <= 0 || !set.contains(args[0] as i32) {
        return None;
    }
    let total = rval as usize;
    let word = match arch {
        Arch::X86_64 => 8,
        Arch::I386 | Arch::X32 => 4,
    };
    let (iov, count) = match data {
        Data::Buf(i) => {
            return Some(vec![Moved {
                buffer: None,
                bytes: read_n(mem, args[i], total),
                moved: total,
            }]);
        }
        Data::Iov(i) => (args[i], args[i + 1]),
        Data::Msg(i) => (
            mem.read_word(args[i] + 2 * word, arch)?,
            mem.read_word(args[i] + 3 * word, arch)?,
        ),
    };
    let mut pieces = Vec::new();
    let mut left = total;
    // The kernel fills (or takes from) the iovecs in order; UIO_MAXIOV
    // bounds the count it accepts. An empty iovec moved nothing and has
    // no piece, but the ones after it still do (strace stops at it).
    for k in 0..count.min(1024) {
        if left == 0 {
            break;
        }
        let at = iov + k * 2 * word;
        let base = mem.read_word(at, arch)?;
        let len = mem.read_word(at + word, arch)? as usize;
        let n = len.min(left);
        if n > 0 {
            left -= n;
            pieces.push(Moved {
                buffer: Some(k as usize),
                bytes: read_n(mem, base, n),
                moved: n,
            });
        }
    }
    Some(pieces)
}

/// `n` bytes at `addr` (fewer if some are unreadable).
fn read_n(mem: &mut Memory, addr: u64, n: usize) -> Vec<u8> {
    let mut buf = vec![0; n];
    let got = mem.read(addr, &mut buf);
    buf.truncate(got);
    buf
}

/// The dump's lines: 16 bytes each, offset, hex in two groups of eight,
/// the printable ASCII bytes (`.` for the others), closed by `|` so that
/// no line ends in padding.
pub fn lines(bytes: &[u8]) -> Vec<String> {
    bytes
        .chunks(16)
        .enumerate()
        .map(|(row, chunk)| {
            let mut hex = String::with_capacity(49);
            let mut ascii = String::with_capacity(16);
            for j in 0..16 {
                match chunk.get(j) {
                    Some(b) => hex.push_str(&format!("{b:02x} ")),
                    None => hex.push_str("   "),
                }
                if j == 7 {
                    hex.push(' ');
                }
            }
            for &b in chunk {
                ascii.push(if (0x20..0x7f).contains(&b) {
                    b as char
                } else {
                    '.'
                });
            }
            format!("| {:05x}  {hex} {ascii:<16} |", row * 16)
        })
        .collect()
}

/// Print the dump of `transfer` after the call's result: continuation
/// lines, an iovec's under strace's header `* 6 bytes in buffer 0`; in
/// JSON one extended value for each piece, with the bytes in hex (and
/// an iovec's number, `"buffer"`).
pub fn put(p: &mut Printer, json: bool, fd: i32, transfer: &Transfer) {
    for Moved {
        buffer,
        bytes,
        moved,
    } in transfer
    {
        let short = bytes.len() < *moved;
        if json {
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            p.continuation_with("", || {
                let mut dump = serde_json::json!({ "fd": fd, "len": bytes.len(), "hex": hex });
                if let Some(k) = buffer {
                    dump["buffer"] = serde_json::Value::from(*k);
                }
                if short {
                    dump["moved"] = serde_json::Value::from(*moved);
                }
                serde_json::json!({ "dump": dump })
            });
            continue;
        }
        if let Some(k) = buffer {
            p.continuation(&format!("* {} bytes in buffer {k}", bytes.len()));
        }
        for line in lines(bytes) {
            p.continuation(&line);
        }
        // Never a dump that looks whole and is not.
        if short {
            p.continuation(&format!(
                "* {} more bytes moved, not shown",
                moved - bytes.len()
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_straces_layout_closed_by_a_bar() {
        assert_eq!(
            lines(b"hello, world!\n\x00\xff\x7fX"),
            [
                "| 00000  68 65 6c 6c 6f 2c 20 77  6f 72 6c 64 21 0a 00 ff  hello, world!... |",
                "| 00010  7f 58                                             .X               |",
            ]
        );
        assert!(lines(b"").is_empty());
    }

    #[test]
    fn fd_sets_take_numbers_all_none_and_negation() {
        use crate::format::FdSet;
        let set = FdSet::parse("-e read", "3,5").unwrap();
        assert!(set.contains(3) && set.contains(5) && !set.contains(4));
        let all = FdSet::parse("-e read", "all").unwrap();
        assert!(all.contains(0) && all.contains(99) && !all.contains(-1));
        assert!(FdSet::parse("-e read", "none").unwrap().is_empty());
        assert!(FdSet::parse("-e read", "!all").unwrap().is_empty());
        let but = FdSet::parse("-e read", "!3").unwrap();
        assert!(!but.contains(3) && but.contains(4));
        assert!(FdSet::parse("-e read", "").is_err());
    }
}
