//! A rejected expression: what is wrong and where, rendered like the
//! kernel's tracing error_log with a caret under the fault.

use std::fmt;

/// Why an expression was rejected: what is wrong and where.
///
/// Its [`Display`](fmt::Display) form follows the kernel's tracing
/// error_log: a first line that stands alone (`bad filter: Missing
/// operand`), then the expression and a caret under the fault:
///
/// ```text
/// bad filter: Missing operand
///   Filter: count > && pid == 3
///                   ^
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilterError {
    /// Byte offset in `expression` of the fault (its length when the fault
    /// is that the expression ended too soon).
    pub position: usize,
    /// What is wrong, capitalised like the kernel's messages
    /// (`Missing operand`, `Unmatched '('`).
    pub message: String,
    /// The expression as given.
    pub expression: String,
}

/// What the expression line of a rendered [`FilterError`] starts with (the
/// kernel's error_log says `  Command: `).
const ERROR_PREFIX: &str = "  Filter: ";

impl FilterError {
    pub(super) fn new(expression: &str, position: usize, message: impl Into<String>) -> Self {
        FilterError {
            position,
            message: message.into(),
            expression: expression.to_owned(),
        }
    }
}

/// The terminal columns a character takes: two for the East Asian wide
/// and fullwidth ranges (CJK, Hangul, fullwidth forms, most emoji), one
/// for the rest (control characters are shown as one space).
fn columns(c: char) -> usize {
    const WIDE: &[(u32, u32)] = &[
        (0x1100, 0x115f),
        (0x2e80, 0x303e),
        (0x3041, 0x33ff),
        (0x3400, 0x4dbf),
        (0x4e00, 0x9fff),
        (0xa000, 0xa4cf),
        (0xac00, 0xd7a3),
        (0xf900, 0xfaff),
        (0xfe30, 0xfe4f),
        (0xff00, 0xff60),
        (0xffe0, 0xffe6),
        (0x1f300, 0x1f64f),
        (0x1f900, 0x1f9ff),
        (0x20000, 0x3fffd),
    ];
    let c = c as u32;
    if WIDE.iter().any(|&(lo, hi)| (lo..=hi).contains(&c)) {
        2
    } else {
        1
    }
}

impl fmt::Display for FilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Control characters (a tab, a newline from a quoted shell argument)
        // and bidirectional overrides show as one space each, so the line
        // stays one line, shown in order, and every character before the
        // caret takes one column.
        let shown: String = self
            .expression
            .chars()
            .map(|c| {
                if crate::escape::is_terminal_control(c) {
                    ' '
                } else {
                    c
                }
            })
            .collect();
        let before = self
            .expression
            .get(..self.position)
            .unwrap_or(&self.expression);
        let column: usize = before.chars().map(columns).sum();
        // No trailing white space, even for an empty expression.
        let line = format!("{ERROR_PREFIX}{shown}");
        // The message may quote the expression (an unknown name): its
        // control characters are escaped.
        let message = crate::escape::escape_controls(&self.message);
        writeln!(f, "bad filter: {message}")?;
        writeln!(f, "{}", line.trim_end())?;
        write!(f, "{:width$}^", "", width = ERROR_PREFIX.len() + column)
    }
}

impl std::error::Error for FilterError {}

/// The error for a field name the caller does not know: `name`, used at
/// byte offset `position` of `expr_text` (as
/// [`Filter::fields`](super::Filter::fields) reports).
pub fn unknown_field(expr_text: &str, position: usize, name: &str) -> FilterError {
    FilterError::new(expr_text, position, format!("Unknown field '{name}'"))
}

/// The error for a value the caller knows a field can never have (an
/// unknown call or errno name): `message`, with the caret under the value
/// at byte offset `position` of `expr_text` (as
/// [`TextLiteral`](super::TextLiteral) reports).
pub fn bad_value(expr_text: &str, position: usize, message: impl Into<String>) -> FilterError {
    FilterError::new(expr_text, position, message)
}
