//! A user_events event as its registration command defines it: the
//! fields the kernel lays out for it, parsed once at the registration
//! and kept by the fd table for the writes that follow; and the command's
//! grammar itself, the kernel's (`parse_fields`), which the decoder
//! (`ioctl::user_events::parse_command`) and the emulation
//! (`emu::user_events`) both use.

/// A field type of the user_events command grammar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// A signed integer of this many bytes.
    Signed(usize),
    /// An unsigned integer of this many bytes.
    Unsigned(usize),
    /// `char[N]` or `unsigned char[N]`: a string in a fixed array (the
    /// only arrays the kernel takes).
    CharArray(usize),
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

// ---- The registration command's grammar, as the kernel parses it ----
//
// kernel/trace/trace_events_user.c (`user_event_parse_field`,
// `user_field_size`, `user_event_parse_fields`): the one parser rtrace
// has. The decoder builds its `EventDef` from it, so what rtrace decodes
// and what it calls malformed are the kernel's answer; the usbmon-less
// user_events emulation (`emu::user_events`) registers with it.

/// `MAX_FIELD_ARRAY_SIZE`: the longest `char[N]`.
const MAX_FIELD_ARRAY_SIZE: u64 = 1024;
/// `sizeof(struct trace_entry)`: field offsets count from the record's
/// start (the same as [`TRACE_ENTRY_SIZE`], named as the emulation uses it).
pub const ENTRY: usize = TRACE_ENTRY_SIZE;

/// Where a dynamic field's data is counted from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Loc {
    /// A fixed field.
    None,
    /// `__data_loc`: from the record's start.
    Data,
    /// `__rel_loc`: from the end of the field.
    Rel,
}

/// `FILTER_*`: how ftrace prints a field.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Filter {
    /// `char[N]`.
    StaticString,
    /// `__data_loc ...char...`.
    DynString,
    /// `__rel_loc ...char...`.
    RelDynString,
    /// Anything else: printed by size.
    Other,
}

/// One field as the kernel makes it (`struct ftrace_event_field`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// Its type as written (`unsigned int`, `char[8]`, `__data_loc char[]`).
    pub ty: Vec<u8>,
    /// Its name.
    pub name: Vec<u8>,
    /// Offset in the record (the 8-byte entry header included).
    pub offset: usize,
    /// Bytes.
    pub size: usize,
    /// `struct T name SIZE`.
    pub is_struct: bool,
    /// Dynamic data.
    pub loc: Loc,
    /// `type[0] != 'u'`, as the kernel decides it.
    pub signed: bool,
    /// How ftrace prints it.
    pub filter: Filter,
}

impl Field {
    /// A loc field whose type contains "char": its data must end in NUL.
    pub fn ensure_null(&self) -> bool {
        self.loc != Loc::None && contains(&self.ty, b"char")
    }

    /// How the decoder shows it: the kind its type, size and signedness
    /// give (`char[N]` and `unsigned char[N]` are text, as ftrace prints
    /// them).
    pub fn kind(&self) -> FieldKind {
        let chars = contains(&self.ty, b"char");
        match self.loc {
            Loc::Data => return FieldKind::DataLoc { chars },
            Loc::Rel => return FieldKind::RelLoc { chars },
            Loc::None => {}
        }
        if self.is_struct {
            FieldKind::Struct(self.size)
        } else if self.filter == Filter::StaticString {
            FieldKind::CharArray(self.size)
        } else if self.signed {
            FieldKind::Signed(self.size)
        } else {
            FieldKind::Unsigned(self.size)
        }
    }
}

/// Why the kernel refuses a field (always EINVAL): which field, and what
/// about it, for the decoder to say in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// The field's text, white space before it left out.
    pub field: Vec<u8>,
    /// What is wrong.
    pub why: Why,
}

/// What is wrong with a field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Why {
    /// A type and no name (`u32`, `unsigned`).
    NoName,
    /// A size after a field that is no struct (`u32 x 4`).
    SizeNotStruct,
    /// A struct's size that is no number up to `u32::MAX`.
    BadSize(Vec<u8>),
    /// More than `type name [size]`.
    TooManyWords,
    /// `long`, whose size depends on the ABI.
    AbiDependent(Vec<u8>),
    /// `char[N]` with N no number, or above 1024.
    BadArray(Vec<u8>),
    /// A type the kernel does not know (including arrays of numbers).
    UnknownType(Vec<u8>),
    /// A struct of size 0.
    ZeroSize,
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// `kstrtoull(s, base)`: a whole number (one trailing newline allowed).
pub fn kstrtoull(s: &[u8], base: u32) -> Option<u64> {
    let mut s = s.strip_prefix(b"+").unwrap_or(s);
    let mut base = base;
    let lower = |i: usize, s: &[u8]| s.get(i).map(|b| b.to_ascii_lowercase());
    if base == 0 {
        if s.first() == Some(&b'0')
            && lower(1, s) == Some(b'x')
            && s.get(2).is_some_and(u8::is_ascii_hexdigit)
        {
            base = 16;
            s = &s[2..];
        } else if s.first() == Some(&b'0') {
            base = 8;
        } else {
            base = 10;
        }
    } else if base == 16 && s.first() == Some(&b'0') && lower(1, s) == Some(b'x') {
        s = &s[2..];
    }
    let mut v: u64 = 0;
    let mut i = 0;
    while let Some(d) = s.get(i).and_then(|c| (*c as char).to_digit(base)) {
        v = v.checked_mul(u64::from(base))?.checked_add(u64::from(d))?;
        i += 1;
    }
    if i == 0 {
        return None;
    }
    let rest = &s[i..];
    (rest.is_empty() || rest == b"\n").then_some(v)
}

/// `user_field_array_size`: N of `char[N]`.
fn array_size(ty: &[u8]) -> Option<usize> {
    let start = ty.iter().position(|&b| b == b'[')?;
    let inner = &ty[start + 1..];
    // strscpy into 8 bytes: empty or cut is EINVAL.
    if inner.is_empty() || inner.len() >= 8 {
        return None;
    }
    let end = inner.iter().position(|&b| b == b']')?;
    let n = kstrtoull(&inner[..end], 0)?;
    (n <= MAX_FIELD_ARRAY_SIZE).then_some(n as usize)
}

/// `user_field_size`: a field's size by its type, or why there is none.
fn field_size(ty: &[u8]) -> Result<usize, Why> {
    Ok(match ty {
        b"s64" | b"u64" => 8,
        b"s32" | b"u32" | b"int" | b"unsigned int" => 4,
        b"s16" | b"u16" | b"short" | b"unsigned short" => 2,
        b"s8" | b"u8" | b"char" | b"unsigned char" => 1,
        _ if ty.starts_with(b"char[") || ty.starts_with(b"unsigned char[") => {
            return array_size(ty).ok_or_else(|| Why::BadArray(ty.to_vec()));
        }
        _ if ty.starts_with(b"__data_loc ") || ty.starts_with(b"__rel_loc ") => 4,
        b"long" | b"unsigned long" => return Err(Why::AbiDependent(ty.to_vec())),
        _ => return Err(Why::UnknownType(ty.to_vec())),
    })
}

/// `filter_assign_type`.
fn filter_of(ty: &[u8]) -> Filter {
    let chars = contains(ty, b"char");
    if contains(ty, b"__data_loc") {
        return if chars {
            Filter::DynString
        } else {
            Filter::Other
        };
    }
    if contains(ty, b"__rel_loc") {
        return if chars {
            Filter::RelDynString
        } else {
            Filter::Other
        };
    }
    if ty.contains(&b'[') && chars {
        return Filter::StaticString;
    }
    Filter::Other
}

/// `user_event_parse_field`: `type name [size]` at `offset`; Ok(None) for
/// an empty field.
fn parse_field(field: &[u8], offset: usize) -> Result<Option<Field>, Why> {
    const SPACED: [&[u8]; 6] = [
        b"unsigned ",
        b"struct ",
        b"__data_loc unsigned ",
        b"__data_loc ",
        b"__rel_loc unsigned ",
        b"__rel_loc ",
    ];
    if field.is_empty() {
        return Ok(None);
    }
    let mut ty: Option<&[u8]> = None;
    let mut rest = field;
    let mut depth = 0;
    let mut is_struct = false;
    if let Some(i) = SPACED.iter().position(|p| field.starts_with(p)) {
        is_struct = i == 1;
        // The type runs to the next space after the prefix.
        let len = SPACED[i].len();
        let sp = field[len..]
            .iter()
            .position(|&b| b == b' ')
            .ok_or(Why::NoName)?;
        ty = Some(&field[..len + sp]);
        rest = &field[len + sp + 1..];
        depth = 1;
    }
    let mut name: Option<&[u8]> = None;
    let mut size: Option<usize> = None;
    for part in rest.split(|&b| b == b' ') {
        match depth {
            0 => ty = Some(part),
            1 => name = Some(part),
            2 => {
                if !is_struct {
                    return Err(Why::SizeNotStruct);
                }
                let v = kstrtoull(part, 10).filter(|&v| v <= u64::from(u32::MAX));
                size = Some(v.ok_or_else(|| Why::BadSize(part.to_vec()))? as u32 as usize);
            }
            _ => return Err(Why::TooManyWords),
        }
        depth += 1;
    }
    let (Some(ty), Some(name)) = (ty, name) else {
        return Err(Why::NoName);
    };
    if depth < 2 {
        return Err(Why::NoName);
    }
    let size = match size {
        Some(s) => s,
        None => field_size(ty)?,
    };
    if size == 0 {
        return Err(Why::ZeroSize);
    }
    let loc = if ty.starts_with(b"__data_loc ") {
        Loc::Data
    } else if ty.starts_with(b"__rel_loc ") {
        Loc::Rel
    } else {
        Loc::None
    };
    Ok(Some(Field {
        ty: ty.to_vec(),
        name: name.to_vec(),
        offset,
        size,
        is_struct,
        loc,
        signed: ty.first() != Some(&b'u'),
        filter: filter_of(ty),
    }))
}

/// `user_event_parse_fields`: the `;`-separated fields of a command's
/// arguments, laid out one after another from the record's start
/// ([`ENTRY`]); the first field the kernel refuses makes the whole
/// registration EINVAL.
pub fn parse_fields(args: Option<&[u8]>) -> Result<Vec<Field>, FieldError> {
    let mut fields: Vec<Field> = Vec::new();
    let Some(args) = args else {
        return Ok(fields);
    };
    let mut offset = ENTRY;
    for part in args.split(|&b| b == b';') {
        let start = part
            .iter()
            .position(|&b| !is_space(b))
            .unwrap_or(part.len());
        let part = &part[start..];
        match parse_field(part, offset) {
            Ok(Some(f)) => {
                offset += f.size;
                fields.push(f);
            }
            Ok(None) => {}
            Err(why) => {
                return Err(FieldError {
                    field: part.to_vec(),
                    why,
                });
            }
        }
    }
    Ok(fields)
}

/// `user_event_argv_split`: a space after each `;`, then split on white
/// space.
pub fn argv_split(args: &[u8]) -> Vec<Vec<u8>> {
    let mut fixed = Vec::with_capacity(args.len() * 2);
    for (i, &b) in args.iter().enumerate() {
        fixed.push(b);
        if b == b';' && !args.get(i + 1).copied().is_some_and(is_space) {
            fixed.push(b' ');
        }
    }
    fixed
        .split(|&b| is_space(b))
        .filter(|w| !w.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}
