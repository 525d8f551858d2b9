//! A user_events event as its registration command defines it: the
//! fields the kernel lays out for it, parsed once at the registration
//! (`ioctl::user_events::parse_command`, the kernel's grammar) and kept
//! by the fd table for the writes that follow.
//!
//! Only the definition lives here, below the fd table that stores it;
//! parsing it and showing it need the format layer and stay in
//! `ioctl/user_events.rs`.

/// A field type of the user_events command grammar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// A signed integer of this many bytes.
    Signed(usize),
    /// An unsigned integer of this many bytes.
    Unsigned(usize),
    /// `char[N]`: a string in a fixed array.
    CharArray(usize),
    /// `T[N]` for a numeric T: (element size, signed, count).
    Array(usize, bool, usize),
    /// `__data_loc T`: a u32 `size << 16 | offset` from the entry start.
    DataLoc {
        /// The data is text (`char`, `unsigned char`), shown as a string.
        chars: bool,
    },
    /// `__rel_loc T`: a u32 `size << 16 | offset` from the field's end.
    RelLoc {
        /// The data is text (`char`, `unsigned char`), shown as a string.
        chars: bool,
    },
    /// `struct T name SIZE`: opaque bytes.
    Struct(usize),
}

/// One field of a registered event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventField {
    /// Its type as written.
    pub ty: String,
    /// Its name, escaped as a string's bytes are (`no\377te`): ready to
    /// show.
    pub name: String,
    /// How to decode it.
    pub kind: FieldKind,
    /// Offset in the payload (after the 4-byte write_index).
    pub offset: usize,
    /// Size in the payload.
    pub size: usize,
}

/// A parsed registration command.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct EventDef {
    /// The event's name, one char per byte (`ioctl::user_events::command_text`).
    pub name: String,
    /// Flags after `:` (`name:BPF_ITER,...`).
    pub flags: Vec<String>,
    /// Its fields in order.
    pub fields: Vec<EventField>,
    /// Why the kernel would reject the command, if it would.
    pub error: Option<String>,
}

impl EventDef {
    /// Bytes a write's payload needs at least.
    pub fn min_size(&self) -> usize {
        self.fields.last().map_or(0, |f| f.offset + f.size)
    }
}

/// Bytes of `struct trace_entry` before the payload in the kernel's record;
/// `__data_loc` offsets count from the record's start.
pub const TRACE_ENTRY_SIZE: usize = 8;
