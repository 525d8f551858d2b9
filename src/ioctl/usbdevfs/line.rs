//! Continuation lines: what a call wrote through pointers inside its
//! argument is printed after its result (`> urb=&0x... {...}`) as text
//! built here in the Printer's field grammar, since the Printer's own
//! fields are closed by then.

use crate::format::{Printer, quote};

/// A struct on a continuation line, in the Printer's field grammar.
#[derive(Default)]
pub(super) struct Line {
    pub(super) text: String,
    /// Per open level: whether a separator is owed.
    seps: Vec<bool>,
}

impl Line {
    fn item(&mut self, name: &str) {
        if let Some(sep) = self.seps.last_mut() {
            if *sep {
                self.text.push_str(", ");
            }
            *sep = true;
        }
        if !name.is_empty() {
            self.text.push_str(name);
            self.text.push('=');
        }
    }

    pub(super) fn field(&mut self, name: &str, value: &str) {
        self.item(name);
        self.text.push_str(value);
    }

    pub(super) fn open(&mut self, name: &str, opener: &str) {
        self.item(name);
        self.text.push_str(opener);
        self.seps.push(false);
    }

    pub(super) fn close(&mut self, closer: &str) {
        self.seps.pop();
        self.text.push_str(closer);
    }

    pub(super) fn more(&mut self) {
        self.item("");
        self.text.push_str("..");
    }
}

/// A pointer as [`Printer::ptr`] prints it.
pub(super) fn ptr_text(addr: u64) -> String {
    if addr == 0 {
        "NULL".to_string()
    } else {
        format!("&0x{addr:x}")
    }
}

/// `len` bytes at `addr` as [`Printer::buf`] prints them, for a
/// continuation line.
pub(super) fn buf_text(p: &mut Printer, addr: u64, len: u64) -> String {
    let limit = p.config().string_limit;
    let want = (len as usize).min(limit);
    let mut bytes = vec![0u8; want];
    if addr == 0 || p.mem().read(addr, &mut bytes) < want {
        return ptr_text(addr);
    }
    quote(&bytes, len as usize > want)
}
