//! The row type of every generated struct layout (`kind="layout"` in
//! tools/abi_tables.py): a field's name, where it sits and how wide it is,
//! as the C compiler placed it. A decoder walks a layout to print a
//! struct, so the offsets are never typed by hand.

/// One field of a generated layout.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// The member's name (what is printed).
    pub name: &'static str,
    /// Its offset in the struct, in bytes.
    pub off: usize,
    /// Its size in bytes (a member struct's or array's whole size).
    pub size: usize,
    /// Whether a scalar member's type is signed.
    pub signed: bool,
}

impl Field {
    /// The field's value in `bytes` (little-endian, sign-extended when its
    /// type is signed), or None when `bytes` is too short to hold it.
    pub fn read(&self, bytes: &[u8]) -> Option<u64> {
        let raw = bytes.get(self.off..self.off + self.size)?;
        if self.size > 8 {
            return None;
        }
        let mut b = [0u8; 8];
        b[..self.size].copy_from_slice(raw);
        let v = u64::from_le_bytes(b);
        let shift = 64 - 8 * self.size as u32;
        Some(if self.signed && shift > 0 {
            (((v << shift) as i64) >> shift) as u64
        } else {
            v
        })
    }

    /// The end of the struct up to this field: how many bytes must be read
    /// to print it.
    pub const fn end(&self) -> usize {
        self.off + self.size
    }
}

/// One bit-field of a generated struct (`kind="bitfields"` in
/// tools/abi_tables.py): where its bits start, counted from the struct's
/// first byte's lowest bit, and how many there are.
#[derive(Clone, Copy, Debug)]
pub struct BitField {
    /// The member's name (what is printed).
    pub name: &'static str,
    /// Its first bit, little-endian from the struct's start.
    pub bit: usize,
    /// Its width in bits.
    pub width: usize,
    /// Whether its type is signed.
    pub signed: bool,
}

impl BitField {
    /// The field's value in `bytes` (sign-extended when its type is
    /// signed), or None when `bytes` is too short to hold it.
    pub fn read(&self, bytes: &[u8]) -> Option<u64> {
        debug_assert!(
            self.width > 0 && self.width <= 57,
            "a bit-field fits 8 bytes"
        );
        let first = self.bit / 8;
        let last = (self.bit + self.width - 1) / 8;
        let raw = bytes.get(first..=last)?;
        let mut b = [0u8; 8];
        b[..raw.len()].copy_from_slice(raw);
        let v = u64::from_le_bytes(b) >> (self.bit % 8);
        let unused = 64 - self.width as u32;
        Some(if self.signed {
            (((v << unused) as i64) >> unused) as u64
        } else {
            (v << unused) >> unused
        })
    }
}

/// The field `name` of `layout`. Panics on a name the layout lacks: the
/// layouts are generated from a list the decoders are written against.
pub fn field(layout: &[Field], name: &str) -> Field {
    *layout
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no field {name} in the layout"))
}

/// The field `name` of `layout`, usable in a `const`: a name the layout
/// lacks fails the build.
pub const fn member(layout: &[Field], name: &str) -> Field {
    let mut i = 0;
    while i < layout.len() {
        let (a, b) = (layout[i].name.as_bytes(), name.as_bytes());
        let mut same = a.len() == b.len();
        let mut j = 0;
        while same && j < a.len() {
            same = a[j] == b[j];
            j += 1;
        }
        if same {
            return layout[i];
        }
        i += 1;
    }
    panic!("no such field in the layout")
}

/// The offset of the field `name` of `layout`, usable in a `const`: a
/// name the layout lacks fails the build.
pub const fn offset(layout: &[Field], name: &str) -> usize {
    member(layout, name).off
}

/// The bytes a decoder must read to print every field of `layout`.
pub const fn extent(layout: &[Field]) -> usize {
    let mut most = 0;
    let mut i = 0;
    while i < layout.len() {
        if layout[i].end() > most {
            most = layout[i].end();
        }
        i += 1;
    }
    most
}
