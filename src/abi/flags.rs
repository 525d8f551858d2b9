//! The row type of every flag and field table: `{mask, value, name}` as in
//! MINIX trace(1). It sits at the bottom so the generated tables
//! (`abi::xlat`) and every decoder above can share it; `format` prints it.

/// A flag or value name table entry: `{mask, value, name}` as in trace(1).
#[derive(Clone, Copy, Debug)]
pub struct FlagDef {
    /// Bits this entry looks at.
    pub mask: u64,
    /// Value those bits must have.
    pub value: u64,
    /// Symbol printed when they do.
    pub name: &'static str,
}

/// Shorthand for a single-bit (or exact-match-within-itself) flag.
pub const fn flag(value: u64, name: &'static str) -> FlagDef {
    FlagDef {
        mask: value,
        value,
        name,
    }
}
