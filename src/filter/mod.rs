//! The `--filter EXPR` language: parsing an expression once, before tracing
//! starts, and testing each traced call against it.
//!
//! This module owns the grammar, the error reports (the expression with a
//! caret under the fault) and the evaluation. It knows no field names: the
//! caller checks the names [`Filter::fields`] returns (rejecting unknown ones
//! with [`unknown_field`]) and supplies each call's values through
//! [`Fields`].
//!
//! The language is the Linux kernel's event filter language
//! (Documentation/trace/events.rst, section 5, and
//! kernel/trace/trace_events_filter.c), with the differences listed below.
//!
//! # Grammar
//!
//! ```text
//! expr      := and ( "||" and )*
//! and       := unary ( "&&" unary )*
//! unary     := "!"* primary            a "!" before "=" or "~" is not a negation
//! primary   := "(" expr ")" | predicate
//! predicate := field op value
//! field     := [A-Za-z_] [A-Za-z0-9_.]*
//! op        := "==" | "!=" | "<" | "<=" | ">" | ">=" | "&" | "~"
//! value     := number | string | word
//! number    := "-"? [A-Za-z0-9_.]+     parsed like the kernel's kstrtoll(s, 0):
//!                                      0x.. hex, 0.. octal, else decimal
//! string    := '"' ... '"' | "'" ... "'"
//! word      := a run of characters other than white space, parentheses,
//!              quotes and & | < > = ~, not starting with a digit, "-" or "!"
//! ```
//!
//! White space may appear between any two tokens. `&&` binds tighter than
//! `||`, as in the kernel; `!` applies to the predicate or parenthesised
//! group after it. Parentheses nest at most [`MAX_DEPTH`] deep and an
//! expression is at most [`MAX_LEN`] bytes long, so a hostile expression can
//! neither overflow the stack nor make parsing slow.
//!
//! In strings and words a backslash makes the next character literal:
//! `\n`, `\t`, `\r`, `\0` and `\xHH` (up to `\x7f`) name characters, and a
//! backslash before punctuation or a space stands for that character, so
//! `\"`, `\\`, `\*` and `\ ` work; any other escape is an error.
//!
//! # Meaning
//!
//! A field can carry a number, a text, or both (`errno` is 2 and `ENOENT`).
//! A number literal compares with the field's number (as signed 64-bit
//! values); a string or word compares with its text. `<`, `<=`, `>`, `>=`
//! and `&` (true when `field & value != 0`) take numbers only, `~` takes a
//! string or word only, and `==` and `!=` take either; other pairings are
//! parse errors.
//!
//! A predicate whose field the call does not have, or whose field lacks the
//! kind of value the literal needs (a word against a field with only a
//! number), is false, whatever the operator: `errno != ENOENT` is false for
//! a call that did not fail, while `!(errno == ENOENT)` is true. This keeps
//! "has another value" apart from "has no value"; the kernel likewise counts
//! a string field it cannot read as no match even under `!=`
//! (filter_pred_pchar).
//!
//! `==` and `!=` on text compare exactly; only `~` matches globs: `*` (any
//! run), `?` (any one character), `[abc]`, `[a-z]`, `[!x]` (a class; `]`
//! first in a class is a member, and `^` is not a negation), with a `[`
//! that has no closing `]` matching itself. This is the kernel's lib/glob.c.
//!
//! # Where this differs from the kernel, and why
//!
//! - Words as values (`name == openat`, `errno == ENOENT`): the kernel
//!   rejects them ("did you forget quotes"), though its own documentation
//!   still shows `comm != bash`. rtrace's fields are mostly names.
//! - Backslash escapes in strings: the kernel has none (a string ends at the
//!   first matching quote, and backslashes reach the glob matcher as they
//!   were written). Here one level of escaping serves both, so `"a\*"` and
//!   `"a\\b"` match `a*` and `a\b` with `~`, as in the kernel, while `==`
//!   sees the unescaped text. Inside a class an escaped `]`, `-` or `!` is a
//!   plain member, where the kernel's classes know no escapes.
//! - The kernel's `~` quirks are not copied: a pattern starting with `!` is
//!   a negated match there (the ftrace function-filter syntax leaking in)
//!   and one starting with a digit is compared exactly (MATCH_INDEX); here
//!   both are ordinary globs, and `!(f ~ "pat")` negates.
//! - Numbers from `i64::MAX + 1` to `u64::MAX` are accepted and wrap to
//!   negative values (`0xffffffffffffffff` is -1), since a field's
//!   signedness is not known when parsing; the kernel takes them only for
//!   unsigned fields.
//! - Type mismatches between a literal and the field (`pid == "x"`) are not
//!   parse errors, since fields are looked up per call: they are false.
//! - Errors point where the fault is found reading left to right; the kernel
//!   checks quotes and parentheses in a first pass, and lets a trailing `&&`
//!   or `||` pass, which is rejected here.
//!
//! The pieces: `parse` reads the text into the expression tree; `tree` is
//! that tree, the [`Fields`] it is tested against and how; `glob` compiles
//! and matches `~` patterns; `error` is [`FilterError`], what is wrong and
//! where. This file holds [`Filter`], what callers keep.

mod error;
mod glob;
mod parse;
mod tree;

pub use error::{FilterError, bad_value, unknown_field};
pub use parse::{MAX_DEPTH, MAX_LEN};
use tree::Node;
pub use tree::{Fields, TextLiteral, Value};

/// A parsed filter expression, ready to test calls with [`Filter::matches`].
#[derive(Clone, Debug)]
pub struct Filter {
    root: Node,
}

impl Filter {
    /// Whether the call whose fields are `fields` passes the filter.
    ///
    /// This runs for every traced call: it walks the tree built by [`parse()`]
    /// and allocates nothing of its own (what `fields` allocates is its
    /// business), stopping at the first operand of `&&`/`||` that decides.
    pub fn matches(&self, fields: &dyn Fields) -> bool {
        self.root.eval(fields)
    }

    /// Every field name the expression uses, with its byte offset in the
    /// text, in the order they appear (a name used twice is listed twice),
    /// so the caller can reject unknown names with [`unknown_field`].
    pub fn fields(&self) -> Vec<(&str, usize)> {
        let mut out = Vec::new();
        self.root.collect_fields(&mut out);
        out
    }

    /// Every text a field is compared with (`name == openat`, `errno ~
    /// "EN*"`), in the order they appear, so the caller can reject a name
    /// its field can never have with [`bad_value`].
    pub fn text_literals(&self) -> Vec<TextLiteral<'_>> {
        let mut out = Vec::new();
        self.root.collect_literals(&mut out);
        out
    }
}

/// Parses `text` into a [`Filter`], or says what is wrong with it and where.
pub fn parse(text: &str) -> Result<Filter, FilterError> {
    parse::tree(text).map(|root| Filter { root })
}

#[cfg(test)]
mod tests;
