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

use std::borrow::Cow;
use std::fmt;

/// The longest expression [`parse`] accepts, in bytes.
pub const MAX_LEN: usize = 4096;

/// How deep [`parse`] lets parentheses nest. Evaluation recurses once per
/// level, so this bounds the stack both use.
pub const MAX_DEPTH: usize = 32;

/// The value of one field for the current call: a number, a text, or both.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Value<'a> {
    /// The field's number (`errno` 2, `request` 0xc0109207), if it has one.
    pub number: Option<i64>,
    /// The field's text (`ENOENT`, `MON_IOCX_MFETCH`, a path), if it has one.
    pub text: Option<Cow<'a, str>>,
}

impl<'a> Value<'a> {
    /// A field that is only a number (`pid`, `fd`).
    pub fn num(number: i64) -> Self {
        Value {
            number: Some(number),
            text: None,
        }
    }

    /// A field that is only a text (`name`, `fd.path`).
    pub fn str(text: impl Into<Cow<'a, str>>) -> Self {
        Value {
            number: None,
            text: Some(text.into()),
        }
    }

    /// A number that has a name (`errno` 2 `ENOENT`).
    pub fn named(number: i64, text: impl Into<Cow<'a, str>>) -> Self {
        Value {
            number: Some(number),
            text: Some(text.into()),
        }
    }
}

/// The fields of the call being tested, as the caller knows them.
pub trait Fields {
    /// The value of field `name` for the current call, or None when the call
    /// has no such field.
    fn get(&self, name: &str) -> Option<Value<'_>>;
}

/// A closure from field name to value is a set of fields (handy in tests and
/// for callers whose values are computed on demand).
impl<F> Fields for F
where
    F: Fn(&str) -> Option<Value<'static>>,
{
    fn get(&self, name: &str) -> Option<Value<'_>> {
        self(name)
    }
}

/// A parsed filter expression, ready to test calls with [`Filter::matches`].
#[derive(Clone, Debug)]
pub struct Filter {
    root: Node,
}

impl Filter {
    /// Whether the call whose fields are `fields` passes the filter.
    ///
    /// This runs for every traced call: it walks the tree built by [`parse`]
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

/// A text one predicate compares its field with, as [`Filter::text_literals`]
/// lists them.
pub struct TextLiteral<'a> {
    /// The field's name.
    pub field: &'a str,
    /// Byte offset of the literal (its opening quote, if quoted) in the
    /// expression.
    pub position: usize,
    pred: &'a Pred,
}

impl TextLiteral<'_> {
    /// Whether the field having text `name` would satisfy the comparison's
    /// `==` or `~` (for `!=`: whether `name` is the one text it excludes).
    pub fn matches(&self, name: &str) -> bool {
        match &self.pred.test {
            Test::Text { text, .. } => name == &**text,
            Test::Glob(glob) => glob.matches(name),
            Test::Number(..) => false,
        }
    }

    /// Whether it is a `~` pattern rather than one exact text.
    pub fn is_pattern(&self) -> bool {
        matches!(self.pred.test, Test::Glob(_))
    }

    /// The text compared with (unescaped), or the pattern as written.
    pub fn text(&self) -> &str {
        match &self.pred.test {
            Test::Text { text, .. } => text,
            _ => &self.pred.literal,
        }
    }
}

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
    fn new(expression: &str, position: usize, message: impl Into<String>) -> Self {
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
/// byte offset `position` of `expr_text` (as [`Filter::fields`] reports).
pub fn unknown_field(expr_text: &str, position: usize, name: &str) -> FilterError {
    FilterError::new(expr_text, position, format!("Unknown field '{name}'"))
}

/// The error for a value the caller knows a field can never have (an
/// unknown call or errno name): `message`, with the caret under the value
/// at byte offset `position` of `expr_text` (as [`TextLiteral`] reports).
pub fn bad_value(expr_text: &str, position: usize, message: impl Into<String>) -> FilterError {
    FilterError::new(expr_text, position, message)
}

/// Parses `text` into a [`Filter`], or says what is wrong with it and where.
pub fn parse(text: &str) -> Result<Filter, FilterError> {
    if text.len() > MAX_LEN {
        let mut at = MAX_LEN;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        return Err(FilterError::new(
            text,
            at,
            format!("Expression too long (limit {MAX_LEN} bytes)"),
        ));
    }
    let mut parser = Parser {
        text,
        pos: 0,
        depth: 0,
    };
    parser.skip_space();
    if parser.rest().is_empty() {
        return Err(parser.error(parser.pos, "Empty expression"));
    }
    let root = parser.parse_or()?;
    parser.skip_space();
    if parser.rest().starts_with(')') {
        return Err(parser.error(parser.pos, "Unmatched ')'"));
    }
    if !parser.rest().is_empty() {
        return Err(parser.error(parser.pos, "Expected '&&' or '||'"));
    }
    Ok(Filter { root })
}

/// A node of the parsed expression. `&&` and `||` chains are flat lists, so
/// only parentheses (bounded by [`MAX_DEPTH`]) deepen the tree.
#[derive(Clone, Debug)]
enum Node {
    Pred(Pred),
    Not(Box<Node>),
    All(Vec<Node>),
    Any(Vec<Node>),
}

impl Node {
    fn eval(&self, fields: &dyn Fields) -> bool {
        match self {
            Node::Pred(pred) => pred.eval(fields),
            Node::Not(node) => !node.eval(fields),
            Node::All(nodes) => nodes.iter().all(|n| n.eval(fields)),
            Node::Any(nodes) => nodes.iter().any(|n| n.eval(fields)),
        }
    }

    fn collect_literals<'a>(&'a self, out: &mut Vec<TextLiteral<'a>>) {
        match self {
            Node::Pred(pred) => {
                if !matches!(pred.test, Test::Number(..)) {
                    out.push(TextLiteral {
                        field: &pred.field,
                        position: pred.value_position,
                        pred,
                    });
                }
            }
            Node::Not(node) => node.collect_literals(out),
            Node::All(nodes) | Node::Any(nodes) => {
                for node in nodes {
                    node.collect_literals(out);
                }
            }
        }
    }

    fn collect_fields<'a>(&'a self, out: &mut Vec<(&'a str, usize)>) {
        match self {
            Node::Pred(pred) => out.push((&pred.field, pred.position)),
            Node::Not(node) => node.collect_fields(out),
            Node::All(nodes) | Node::Any(nodes) => {
                for node in nodes {
                    node.collect_fields(out);
                }
            }
        }
    }
}

/// One `field op value` comparison.
#[derive(Clone, Debug)]
struct Pred {
    field: Box<str>,
    /// Byte offset of the field name in the expression.
    position: usize,
    /// Byte offset of the value, and the value as written.
    value_position: usize,
    literal: Box<str>,
    test: Test,
}

/// What a predicate does with the field's value; the operator and the
/// literal's kind were checked against each other when parsing.
#[derive(Clone, Debug)]
enum Test {
    Number(NumOp, i64),
    Text { equal: bool, text: Box<str> },
    Glob(Glob),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NumOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    BitAnd,
}

impl Pred {
    fn eval(&self, fields: &dyn Fields) -> bool {
        let Some(value) = fields.get(&self.field) else {
            return false;
        };
        match &self.test {
            Test::Number(op, n) => {
                let Some(x) = value.number else {
                    return false;
                };
                match op {
                    NumOp::Eq => x == *n,
                    NumOp::Ne => x != *n,
                    NumOp::Lt => x < *n,
                    NumOp::Le => x <= *n,
                    NumOp::Gt => x > *n,
                    NumOp::Ge => x >= *n,
                    NumOp::BitAnd => x & *n != 0,
                }
            }
            Test::Text { equal, text } => match value.text.as_deref() {
                Some(s) => (s == &**text) == *equal,
                None => false,
            },
            Test::Glob(glob) => match value.text.as_deref() {
                Some(s) => glob.matches(s),
                None => false,
            },
        }
    }
}

/// The operators, as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    BitAnd,
    Glob,
}

/// Operator spellings; a two-character one must come before its
/// one-character prefix (`<=` before `<`), as in the kernel's table.
const OPS: [(&str, Op); 8] = [
    ("==", Op::Eq),
    ("!=", Op::Ne),
    ("<=", Op::Le),
    ("<", Op::Lt),
    (">=", Op::Ge),
    (">", Op::Gt),
    ("~", Op::Glob),
    ("&", Op::BitAnd),
];

impl Op {
    fn symbol(self) -> &'static str {
        OPS.iter()
            .find(|(_, op)| *op == self)
            .map_or("?", |&(symbol, _)| symbol)
    }
}

/// A value as written: a number, or text whose characters remember whether
/// they were escaped (an escaped `*` is no wildcard).
enum Literal {
    Number(i64),
    Text(Vec<(char, bool)>),
}

struct Parser<'a> {
    text: &'a str,
    /// Byte offset of the next character to read.
    pos: usize,
    /// Parentheses open around `pos`.
    depth: usize,
}

impl<'a> Parser<'a> {
    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn skip_space(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn error(&self, position: usize, message: impl Into<String>) -> FilterError {
        FilterError::new(self.text, position, message)
    }

    /// Whether the text here ends an operand: the end, `&&`, `||` or `)`.
    fn at_operand_end(&self) -> bool {
        let rest = self.rest();
        rest.is_empty() || rest.starts_with("&&") || rest.starts_with("||") || rest.starts_with(')')
    }

    fn parse_or(&mut self) -> Result<Node, FilterError> {
        let mut terms = vec![self.parse_and()?];
        loop {
            self.skip_space();
            if !self.rest().starts_with("||") {
                break;
            }
            self.pos += 2;
            terms.push(self.parse_and()?);
        }
        Ok(if terms.len() == 1 {
            terms.swap_remove(0)
        } else {
            Node::Any(terms)
        })
    }

    fn parse_and(&mut self) -> Result<Node, FilterError> {
        let mut terms = vec![self.parse_unary()?];
        loop {
            self.skip_space();
            if !self.rest().starts_with("&&") {
                break;
            }
            self.pos += 2;
            terms.push(self.parse_unary()?);
        }
        Ok(if terms.len() == 1 {
            terms.swap_remove(0)
        } else {
            Node::All(terms)
        })
    }

    fn parse_unary(&mut self) -> Result<Node, FilterError> {
        // A run of `!` is counted, not recursed into, so `!!!!...` cannot
        // deepen the stack; `!=` and `!~` are not negations (the kernel's
        // is_not()), they are operators missing their field.
        let mut negate = false;
        loop {
            self.skip_space();
            let rest = self.rest();
            if rest.starts_with('!') && !rest[1..].starts_with(['=', '~']) {
                negate = !negate;
                self.pos += 1;
            } else {
                break;
            }
        }
        let node = self.parse_primary()?;
        Ok(if negate {
            Node::Not(Box::new(node))
        } else {
            node
        })
    }

    fn parse_primary(&mut self) -> Result<Node, FilterError> {
        let start = self.pos;
        match self.peek() {
            Some('(') => {
                if self.depth == MAX_DEPTH {
                    return Err(self.error(
                        start,
                        format!("Parentheses nested too deeply (limit {MAX_DEPTH})"),
                    ));
                }
                self.depth += 1;
                self.pos += 1;
                let node = self.parse_or()?;
                self.skip_space();
                match self.peek() {
                    Some(')') => {
                        self.pos += 1;
                        self.depth -= 1;
                        Ok(node)
                    }
                    None => Err(self.error(start, "Unmatched '('")),
                    Some(_) => Err(self.error(self.pos, "Expected '&&', '||' or ')'")),
                }
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => self.parse_pred().map(Node::Pred),
            Some('=' | '!' | '<' | '>' | '~' | '&' | '|') | None => {
                Err(self.error(start, "Missing operand"))
            }
            Some(_) if self.at_operand_end() => Err(self.error(start, "Missing operand")),
            Some(_) => Err(self.error(start, "Expected a field name")),
        }
    }

    fn parse_pred(&mut self) -> Result<Pred, FilterError> {
        let position = self.pos;
        let rest = self.rest();
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(rest.len());
        self.pos += len;
        let field = &self.text[position..self.pos];
        self.skip_space();
        let op = self.parse_operator()?;
        self.skip_space();
        let value_pos = self.pos;
        let literal = self.parse_value()?;
        let numeric = |op| match op {
            Op::Eq => Some(NumOp::Eq),
            Op::Ne => Some(NumOp::Ne),
            Op::Lt => Some(NumOp::Lt),
            Op::Le => Some(NumOp::Le),
            Op::Gt => Some(NumOp::Gt),
            Op::Ge => Some(NumOp::Ge),
            Op::BitAnd => Some(NumOp::BitAnd),
            Op::Glob => None,
        };
        let test = match literal {
            Literal::Number(n) => match numeric(op) {
                Some(num_op) => Test::Number(num_op, n),
                None => {
                    return Err(self.error(value_pos, "Operator '~' needs a string, not a number"));
                }
            },
            Literal::Text(chars) => match op {
                Op::Glob => Test::Glob(Glob::compile(&chars)),
                Op::Eq | Op::Ne => Test::Text {
                    equal: op == Op::Eq,
                    text: chars.iter().map(|&(c, _)| c).collect(),
                },
                _ => {
                    return Err(self.error(
                        value_pos,
                        format!("Operator '{}' needs a number, not a string", op.symbol()),
                    ));
                }
            },
        };
        Ok(Pred {
            field: field.into(),
            position,
            value_position: value_pos,
            literal: self.text[value_pos..self.pos].into(),
            test,
        })
    }

    fn parse_operator(&mut self) -> Result<Op, FilterError> {
        let rest = self.rest();
        if !rest.starts_with("&&") {
            for (symbol, op) in OPS {
                if rest.starts_with(symbol) {
                    self.pos += symbol.len();
                    return Ok(op);
                }
            }
        }
        // Something that could start a value or end the predicate means the
        // operator was left out; anything else is a wrong operator.
        match self.peek() {
            Some(c) if !self.at_operand_end() && !c.is_alphanumeric() && !"(\"'-_".contains(c) => {
                Err(self.error(
                    self.pos,
                    "Invalid operator (use ==, !=, <, <=, >, >=, & or ~)",
                ))
            }
            _ => Err(self.error(self.pos, "Missing operator")),
        }
    }

    fn parse_value(&mut self) -> Result<Literal, FilterError> {
        if self.at_operand_end() {
            return Err(self.error(self.pos, "Missing operand"));
        }
        match self.peek() {
            Some(q @ ('"' | '\'')) => self.parse_string(q),
            Some('0'..='9' | '-' | '+') => self.parse_number(),
            Some(c) if ends_word(c) || c == '!' => {
                Err(self.error(self.pos, "Invalid value (did you forget quotes?)"))
            }
            _ => self.parse_word(),
        }
    }

    fn parse_number(&mut self) -> Result<Literal, FilterError> {
        let start = self.pos;
        // Like the kernel, take the whole alphanumeric run (and `.`, so that
        // `1.5` is one bad number rather than `1` and garbage) and let the
        // conversion judge it.
        let body = &self.rest()[usize::from(self.rest().starts_with(['-', '+']))..];
        let len = body
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(body.len());
        self.pos += self.rest().len() - body.len() + len;
        match number_value(&self.text[start..self.pos]) {
            Ok(n) => Ok(Literal::Number(n)),
            Err(message) => Err(self.error(start, message)),
        }
    }

    fn parse_string(&mut self, quote: char) -> Result<Literal, FilterError> {
        let open = self.pos;
        self.pos += 1;
        let mut chars = Vec::new();
        loop {
            match self.peek() {
                None => return Err(self.error(open, "Missing matching quote")),
                Some(c) if c == quote => {
                    self.pos += 1;
                    return Ok(Literal::Text(chars));
                }
                Some('\\') if self.rest().len() == 1 => {
                    return Err(self.error(open, "Missing matching quote"));
                }
                Some('\\') => chars.push((self.parse_escape()?, true)),
                Some(c) => {
                    self.pos += c.len_utf8();
                    chars.push((c, false));
                }
            }
        }
    }

    fn parse_word(&mut self) -> Result<Literal, FilterError> {
        let mut chars = Vec::new();
        while let Some(c) = self.peek() {
            if ends_word(c) {
                break;
            }
            if c == '\\' {
                chars.push((self.parse_escape()?, true));
            } else {
                self.pos += c.len_utf8();
                chars.push((c, false));
            }
        }
        Ok(Literal::Text(chars))
    }

    /// Reads the escape at `self.pos` (a backslash) and returns the
    /// character it stands for.
    fn parse_escape(&mut self) -> Result<char, FilterError> {
        let at = self.pos;
        let after = &self.text[at + 1..];
        let bad = || self.error(at, "Invalid escape sequence");
        let (c, len) = match after.chars().next() {
            Some('n') => ('\n', 1),
            Some('t') => ('\t', 1),
            Some('r') => ('\r', 1),
            Some('0') => ('\0', 1),
            Some('x') => {
                let hex = after.get(1..3).ok_or_else(bad)?;
                if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(bad());
                }
                let byte = u8::from_str_radix(hex, 16).map_err(|_| bad())?;
                // Above 0x7f a byte is not a character on its own; field
                // texts are UTF-8, so such an escape could never match.
                if byte > 0x7f {
                    return Err(bad());
                }
                (char::from(byte), 3)
            }
            Some(c) if c.is_ascii_punctuation() || c == ' ' => (c, 1),
            _ => return Err(bad()),
        };
        self.pos = at + 1 + len;
        Ok(c)
    }
}

/// Whether `c` ends a word value (and cannot start one).
fn ends_word(c: char) -> bool {
    c.is_whitespace() || "()&|\"'<>=~".contains(c)
}

/// Converts a number token the way the kernel's kstrtoll(s, 0) does: an
/// optional `-` (or `+`), then `0x`/`0X` and hex digits, or `0` and octal digits, or
/// decimal digits, and nothing else. Values up to `u64::MAX` wrap into i64.
fn number_value(token: &str) -> Result<i64, &'static str> {
    const BAD: &str = "Invalid number";
    let (negative, digits) = match token.strip_prefix('-') {
        Some(digits) => (true, digits),
        None => (false, token.strip_prefix('+').unwrap_or(token)),
    };
    let (radix, body) = if (digits.starts_with("0x") || digits.starts_with("0X"))
        && digits.as_bytes().get(2).is_some_and(u8::is_ascii_hexdigit)
    {
        (16, &digits[2..])
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    // from_str_radix would accept a sign; only digits are valid here.
    if body.is_empty() || !body.chars().all(|c| c.is_digit(radix)) {
        return Err(BAD);
    }
    let magnitude = u64::from_str_radix(body, radix).map_err(|_| "Number out of range")?;
    if negative {
        if magnitude > 1 << 63 {
            return Err("Number out of range");
        }
        // 2^63 becomes i64::MIN, which is its own negation.
        Ok((magnitude as i64).wrapping_neg())
    } else {
        Ok(magnitude as i64)
    }
}

/// A compiled `~` pattern (the kernel's lib/glob.c semantics).
#[derive(Clone, Debug)]
struct Glob {
    tokens: Box<[GlobToken]>,
}

#[derive(Clone, Debug)]
enum GlobToken {
    /// This character.
    Char(char),
    /// `?`: any one character.
    Any,
    /// `*`: any run of characters, including none.
    Star,
    /// `[...]`: one character in (or, negated, not in) the inclusive spans.
    Class {
        negated: bool,
        spans: Box<[(char, char)]>,
    },
}

impl GlobToken {
    /// Whether this one-character token matches `c` (never called on Star).
    fn matches(&self, c: char) -> bool {
        match self {
            GlobToken::Char(x) => *x == c,
            GlobToken::Any => true,
            GlobToken::Class { negated, spans } => {
                spans.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negated
            }
            GlobToken::Star => false,
        }
    }
}

impl Glob {
    /// Compiles pattern characters; escaped ones are always literal.
    fn compile(pattern: &[(char, bool)]) -> Glob {
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < pattern.len() {
            let (c, escaped) = pattern[i];
            i += 1;
            if escaped {
                tokens.push(GlobToken::Char(c));
                continue;
            }
            match c {
                // `**` matches what `*` does; one star keeps matching linear.
                '*' if matches!(tokens.last(), Some(GlobToken::Star)) => {}
                '*' => tokens.push(GlobToken::Star),
                '?' => tokens.push(GlobToken::Any),
                '[' => match Self::class(pattern, i) {
                    Some((token, next)) => {
                        tokens.push(token);
                        i = next;
                    }
                    // An unclosed class is a literal `[`, as in lib/glob.c.
                    None => tokens.push(GlobToken::Char('[')),
                },
                _ => tokens.push(GlobToken::Char(c)),
            }
        }
        Glob {
            tokens: tokens.into(),
        }
    }

    /// Parses the class whose `[` is just before `pattern[start]`: its
    /// token and the index after its `]`, or None if it is not closed.
    fn class(pattern: &[(char, bool)], start: usize) -> Option<(GlobToken, usize)> {
        let unescaped = |i: usize, want: char| pattern.get(i) == Some(&(want, false));
        let mut i = start;
        let negated = unescaped(i, '!');
        if negated {
            i += 1;
        }
        let mut spans = Vec::new();
        loop {
            let &(lo, _) = pattern.get(i)?;
            // A `]` right after `[` or `[!` is a member, not the end.
            if i > start + usize::from(negated) && unescaped(i, ']') {
                return Some((
                    GlobToken::Class {
                        negated,
                        spans: spans.into(),
                    },
                    i + 1,
                ));
            }
            if unescaped(i + 1, '-') && !unescaped(i + 2, ']') {
                let &(hi, _) = pattern.get(i + 2)?;
                spans.push((lo, hi));
                i += 3;
            } else {
                spans.push((lo, lo));
                i += 1;
            }
        }
    }

    /// Whether the whole of `text` matches. Like lib/glob.c this backtracks
    /// only to the last `*` (which is enough, since `*` matches anything),
    /// so it takes at most pattern length times text length steps.
    fn matches(&self, text: &str) -> bool {
        let tokens = &self.tokens;
        let (mut t, mut s) = (0, 0);
        // Token index after the last `*`, and where in the text its match
        // would end next time we backtrack.
        let mut back: Option<(usize, usize)> = None;
        loop {
            if let Some(token) = tokens.get(t) {
                if let GlobToken::Star = token {
                    t += 1;
                    back = Some((t, s));
                    continue;
                }
                if let Some(c) = text[s..].chars().next()
                    && token.matches(c)
                {
                    t += 1;
                    s += c.len_utf8();
                    continue;
                }
            } else if s == text.len() {
                return true;
            }
            // Mismatch: let the last `*` swallow one more character.
            match back {
                Some((bt, bs)) if bs < text.len() => {
                    let next = bs + text[bs..].chars().next().map_or(1, char::len_utf8);
                    back = Some((bt, next));
                    t = bt;
                    s = next;
                }
                _ => return false,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Fields from a fixed table.
    struct Table(HashMap<&'static str, Value<'static>>);

    impl Fields for Table {
        fn get(&self, name: &str) -> Option<Value<'_>> {
            self.0.get(name).cloned()
        }
    }

    fn table(entries: &[(&'static str, Value<'static>)]) -> Table {
        Table(entries.iter().cloned().collect())
    }

    /// A typical call: openat of /etc/passwd that failed with ENOENT.
    fn openat() -> Table {
        table(&[
            ("name", Value::str("openat")),
            ("pid", Value::num(42)),
            ("fd", Value::num(-100)),
            ("flags", Value::named(0o2000000, "O_RDONLY|O_CLOEXEC")),
            ("errno", Value::named(2, "ENOENT")),
            ("result", Value::num(-1)),
            ("fd.path", Value::str("/etc/passwd")),
            (
                "request",
                Value::named(0xc0109207_u32 as i64, "MON_IOCX_MFETCH"),
            ),
        ])
    }

    fn eval(expr: &str, fields: &dyn Fields) -> bool {
        match parse(expr) {
            Ok(filter) => filter.matches(fields),
            Err(e) => panic!("{expr:?} did not parse:\n{e}"),
        }
    }

    fn check(expr: &str) -> bool {
        eval(expr, &openat())
    }

    /// The whole rendered error for `expr`.
    fn error(expr: &str) -> String {
        match parse(expr) {
            Ok(_) => panic!("{expr:?} parsed"),
            Err(e) => e.to_string(),
        }
    }

    /// A rendered error: message, the expression, caret at `column`.
    fn rendered(message: &str, expr: &str, column: usize) -> String {
        format!(
            "bad filter: {message}\n{}\n{}^",
            format!("  Filter: {expr}").trim_end(),
            " ".repeat(10 + column)
        )
    }

    /// Asserts `expr` is rejected with `message` and the caret at byte
    /// offset `position` (all ASCII here, so also the column).
    fn assert_error(expr: &str, message: &str, position: usize) {
        let err = parse(expr)
            .err()
            .unwrap_or_else(|| panic!("{expr:?} parsed"));
        assert_eq!(err.message, message, "message for {expr:?}");
        assert_eq!(err.position, position, "position for {expr:?}");
        assert_eq!(err.expression, expr);
        assert_eq!(error(expr), rendered(message, expr.trim_end(), position));
    }

    /// Three boolean fields a, b, c as numbers 0/1.
    fn abc(a: bool, b: bool, c: bool) -> Table {
        table(&[
            ("a", Value::num(a.into())),
            ("b", Value::num(b.into())),
            ("c", Value::num(c.into())),
        ])
    }

    fn all_abc() -> impl Iterator<Item = (bool, bool, bool)> {
        (0..8).map(|i| (i & 4 != 0, i & 2 != 0, i & 1 != 0))
    }

    #[test]
    // The expected values spell out the expression under test, unsimplified.
    #[allow(clippy::nonminimal_bool)]
    fn and_binds_tighter_than_or() {
        for (a, b, c) in all_abc() {
            let f = abc(a, b, c);
            assert_eq!(eval("a == 1 || b == 1 && c == 1", &f), a || (b && c));
            assert_eq!(eval("a == 1 && b == 1 || c == 1", &f), (a && b) || c);
            assert_eq!(
                eval("a == 1 && b == 1 || b == 1 && c == 1", &f),
                (a && b) || (b && c)
            );
        }
    }

    #[test]
    fn parentheses_group() {
        for (a, b, c) in all_abc() {
            let f = abc(a, b, c);
            assert_eq!(eval("(a == 1 || b == 1) && c == 1", &f), (a || b) && c);
            assert_eq!(eval("a == 1 && (b == 1 || c == 1)", &f), a && (b || c));
            assert_eq!(eval("((a == 1))", &f), a);
            assert_eq!(
                eval("((a == 1 || (b == 1)) && ((c == 1)))", &f),
                (a || b) && c
            );
        }
    }

    #[test]
    // The expected values spell out the expression under test, unsimplified.
    #[allow(clippy::nonminimal_bool)]
    fn negation() {
        for (a, b, c) in all_abc() {
            let f = abc(a, b, c);
            assert_eq!(eval("!a == 1", &f), !a);
            assert_eq!(eval("!!a == 1", &f), a);
            assert_eq!(eval("! ! ! a == 1", &f), !a);
            assert_eq!(eval("!(a == 1 || b == 1)", &f), !(a || b));
            assert_eq!(eval("!(a == 1) && b == 1", &f), !a && b);
            assert_eq!(eval("a == 1 && !b == 1 || c == 1", &f), (a && !b) || c);
            assert_eq!(eval("!a == 1 || !b == 1 && !c == 1", &f), !a || (!b && !c));
            assert_eq!(eval("!(!(a == 1) && b == 1)", &f), !(!a && b));
            // `!=` is an operator, not a negation.
            assert_eq!(eval("a != 1", &f), !a);
        }
    }

    #[test]
    fn numeric_operators() {
        let cases: &[(&str, i64, bool)] = &[
            ("==", 42, true),
            ("==", 41, false),
            ("!=", 42, false),
            ("!=", 41, true),
            ("<", 43, true),
            ("<", 42, false),
            ("<=", 42, true),
            ("<=", 41, false),
            (">", 41, true),
            (">", 42, false),
            (">=", 42, true),
            (">=", 43, false),
            ("&", 2, true),
            ("&", 8, true),
            ("&", 5, false),
            ("&", 0, false),
        ];
        for &(op, n, want) in cases {
            assert_eq!(check(&format!("pid {op} {n}")), want, "pid {op} {n}");
            assert_eq!(check(&format!("pid{op}{n}")), want, "pid{op}{n}");
        }
        // Comparisons are signed.
        assert!(check("fd < 0"));
        assert!(check("fd < -99"));
        assert!(check("fd >= -100"));
        assert!(!check("fd > 0"));
        assert!(check("fd & 4"));
        assert!(check("result == -1 && result & 0x8000000000000000"));
    }

    #[test]
    fn number_formats() {
        let cases: &[(&str, i64)] = &[
            ("0", 0),
            ("7", 7),
            ("42", 42),
            ("-42", -42),
            ("-0", 0),
            ("0x2a", 42),
            ("0X2A", 42),
            ("0xc0109207", 0xc0109207),
            ("-0x10", -16),
            ("010", 8),
            ("-010", -8),
            ("00", 0),
            ("0777", 0o777),
            ("9223372036854775807", i64::MAX),
            ("-9223372036854775808", i64::MIN),
            ("0x7fffffffffffffff", i64::MAX),
            ("0x8000000000000000", i64::MIN),
            ("0xffffffffffffffff", -1),
            ("18446744073709551615", -1),
            ("-0x8000000000000000", i64::MIN),
        ];
        for &(text, want) in cases {
            assert_eq!(number_value(text), Ok(want), "{text}");
            let f = table(&[("x", Value::num(want))]);
            assert!(eval(&format!("x == {text}"), &f), "x == {text}");
        }
        for bad in [
            "-", "0x", "0xg", "0x1g", "09", "08", "1a", "1_000", "1.5", "--1", "-x", "0b1", "12e3",
        ] {
            assert_eq!(number_value(bad), Err("Invalid number"), "{bad}");
        }
        for big in [
            "18446744073709551616",
            "0x10000000000000000",
            "-9223372036854775809",
            "-0xffffffffffffffff",
            "99999999999999999999999",
        ] {
            assert_eq!(number_value(big), Err("Number out of range"), "{big}");
        }
    }

    #[test]
    fn string_operators() {
        assert!(check("name == \"openat\""));
        assert!(check("name == 'openat'"));
        assert!(check("name == openat"));
        assert!(!check("name == open"));
        assert!(check("name != open"));
        assert!(!check("name != openat"));
        assert!(check("name ~ \"open*\""));
        assert!(!check("name ~ \"read*\""));
        assert!(check("fd.path ~ \"/etc/*\""));
        assert!(check("fd.path == \"/etc/passwd\""));
        // `==` and `!=` compare exactly: no globbing, as in the kernel.
        assert!(!check("name == \"open*\""));
        assert!(check("name != \"open*\""));
        let star = table(&[("name", Value::str("open*"))]);
        assert!(eval("name == \"open*\"", &star));
        assert!(eval("name == open*", &star));
        // Case matters.
        assert!(!check("name == OPENAT"));
        assert!(!check("name ~ OPEN*"));
        // Empty strings.
        let empty = table(&[("name", Value::str(""))]);
        assert!(eval("name == \"\"", &empty));
        assert!(eval("name ~ \"*\"", &empty));
        assert!(eval("name ~ ''", &empty));
        assert!(!eval("name ~ \"?\"", &empty));
        assert!(!check("name == ''"));
    }

    #[test]
    fn words_as_values() {
        assert!(check("errno == ENOENT"));
        assert!(!check("errno == EACCES"));
        assert!(check("errno != EACCES"));
        assert!(check("errno == 2"));
        assert!(check("request == MON_IOCX_MFETCH"));
        assert!(check("request == 0xc0109207"));
        assert!(check("request ~ MON_IOCX_*"));
        assert!(check("name ~ open*"));
        assert!(check("name ~ ?pen[a-z]t"));
        assert!(check("name ~ [!x]penat"));
        assert!(check("fd.path ~ /etc/*"));
        assert!(check("fd.path ~ */passwd"));
        assert!(check("fd.path == /etc/passwd&&name==openat"));
        assert!(check("(name == openat)"));
        assert!(check("flags ~ *O_CLOEXEC*"));
        let spaced = table(&[("fd.path", Value::str("/tmp/a b"))]);
        assert!(eval("fd.path == /tmp/a\\ b", &spaced));
        assert!(eval("fd.path ~ /tmp/a\\ *", &spaced));
        // A word may contain `!` and `-` after its first character.
        let odd = table(&[("name", Value::str("a!b-c"))]);
        assert!(eval("name == a!b-c", &odd));
        let unicode = table(&[("fd.path", Value::str("/tmp/ünï"))]);
        assert!(eval("fd.path == /tmp/ünï", &unicode));
        assert!(eval("fd.path ~ /tmp/?n?", &unicode));
    }

    #[test]
    fn literal_kinds_against_field_kinds() {
        // A number literal needs the field's number.
        assert!(!check("name == 0"));
        assert!(!check("name != 0"));
        assert!(!check("fd.path < 5"));
        // A string or word needs the field's text.
        assert!(!check("pid == \"42\""));
        assert!(!check("pid != \"42\""));
        assert!(!check("pid == abc"));
        assert!(!check("pid ~ \"*\""));
        // A named number answers to both.
        assert!(check("errno == 2 && errno == ENOENT && errno ~ \"EN*\""));
        assert!(check("errno < 3 && errno != EPERM"));
    }

    #[test]
    fn missing_fields_are_false_for_every_operator() {
        let f = openat();
        for op in ["==", "!=", "<", "<=", ">", ">=", "&"] {
            assert!(!eval(&format!("signal {op} 9"), &f), "{op}");
        }
        for expr in [
            "signal == SIGKILL",
            "signal != SIGKILL",
            "signal ~ \"*\"",
            "signal == \"\"",
        ] {
            assert!(!eval(expr, &f), "{expr}");
        }
        // Negating the predicate is how to say "not this, or absent".
        assert!(eval("!(signal == 9)", &f));
        assert!(eval("!signal == 9", &f));
        assert!(eval("signal == 9 || pid == 42", &f));
        let success = table(&[("result", Value::num(3))]);
        assert!(!eval("errno != ENOENT", &success));
        assert!(eval("!(errno == ENOENT)", &success));
    }

    #[test]
    fn globs() {
        let cases: &[(&str, &str, bool)] = &[
            ("*", "", true),
            ("*", "anything", true),
            ("", "", true),
            ("", "a", false),
            ("abc", "abc", true),
            ("abc", "abcd", false),
            ("abc", "ab", false),
            ("a*", "a", true),
            ("a*", "abc", true),
            ("a*", "ba", false),
            ("*c", "abc", true),
            ("*c", "abcd", false),
            ("*b*", "abc", true),
            ("*b*", "ac", false),
            ("a*c", "ac", true),
            ("a*c", "abbbc", true),
            ("a*c", "abcd", false),
            ("a*b*c", "aXbYc", true),
            ("a*b*c", "aXcYb", false),
            ("**", "x", true),
            ("a**b", "ab", true),
            ("*aaaaa", "aaaaaaaaaa", true),
            ("*aaaaa", "aaaa", false),
            ("*ab", "aab", true),
            ("*aab", "aaab", true),
            ("?", "a", true),
            ("?", "", false),
            ("?", "ab", false),
            ("a?c", "abc", true),
            ("a?c", "ac", false),
            ("??", "ü!", true),
            ("[abc]", "b", true),
            ("[abc]", "d", false),
            ("[a-c]x", "bx", true),
            ("[a-c]x", "dx", false),
            ("[a-cx-z]", "y", true),
            ("[a-cx-z]", "m", false),
            ("[!a-c]", "d", true),
            ("[!a-c]", "b", false),
            ("[!x]", "", false),
            ("[]]", "]", true),
            ("[]a]", "a", true),
            ("[!]]", "]", false),
            ("[!]]", "a", true),
            ("[a-]", "-", true),
            ("[a-]", "a", true),
            ("[a-]", "b", false),
            ("[-a]", "-", true),
            ("[z-a]", "m", false),
            ("[^a]", "^", true),
            ("[^a]", "b", false),
            ("[*]", "*", true),
            ("[*]", "a", false),
            ("[?]", "?", true),
            ("[[]", "[", true),
            ("[ab", "[ab", true),
            ("[ab", "a", false),
            ("[", "[", true),
            ("a[", "a[", true),
            ("[]", "[]", true),
            ("[!]", "[!]", true),
            ("[a-", "[a-", true),
            ("*[0-9].so", "libc.so.6", false),
            ("*.so.[0-9]", "libc.so.6", true),
            ("/proc/[0-9]*/maps", "/proc/123/maps", true),
            ("/proc/[0-9]*/maps", "/proc/self/maps", false),
            ("[α-ω]", "λ", true),
            ("[α-ω]", "l", false),
        ];
        for &(pattern, text, want) in cases {
            let f = table(&[("s", Value::str(text))]);
            let expr = format!("s ~ '{pattern}'");
            assert_eq!(eval(&expr, &f), want, "{pattern:?} ~ {text:?}");
            assert_eq!(reference_glob(pattern, text), want, "reference {pattern:?}");
        }
    }

    #[test]
    fn escapes() {
        let f = |text: &'static str| table(&[("s", Value::str(text))]);
        // Escaped glob characters are literal.
        assert!(eval(r#"s ~ "a\*""#, &f("a*")));
        assert!(!eval(r#"s ~ "a\*""#, &f("ab")));
        assert!(eval(r#"s ~ "\?""#, &f("?")));
        assert!(!eval(r#"s ~ "\?""#, &f("x")));
        assert!(eval(r#"s ~ "\[a]""#, &f("[a]")));
        assert!(!eval(r#"s ~ "\[a]""#, &f("a")));
        assert!(eval(r#"s ~ "a\\b""#, &f("a\\b")));
        assert!(eval(r#"s ~ "*\\""#, &f("dir\\")));
        // In a class, escaped `]`, `-` and `!` are members.
        assert!(eval(r#"s ~ "[\]]""#, &f("]")));
        assert!(eval(r#"s ~ "[a\-z]""#, &f("-")));
        assert!(!eval(r#"s ~ "[a\-z]""#, &f("m")));
        assert!(eval(r#"s ~ "[\!a]""#, &f("!")));
        assert!(eval(r#"s ~ "[+-\]]""#, &f("]")));
        assert!(eval(r#"s ~ "[+-\]]""#, &f("A")));
        assert!(!eval(r#"s ~ "[+-\]]""#, &f("a")));
        // `==` sees the unescaped text.
        assert!(eval(r#"s == "a\*""#, &f("a*")));
        assert!(eval(r#"s == "say \"hi\"""#, &f("say \"hi\"")));
        assert!(eval(r#"s == 'it\'s'"#, &f("it's")));
        assert!(eval(r#"s == 'say "hi"'"#, &f("say \"hi\"")));
        assert!(eval(r#"s == "it's""#, &f("it's")));
        assert!(eval(r#"s == "a\nb\tc\rd""#, &f("a\nb\tc\rd")));
        assert!(eval(r#"s == "\x41\x7e\x00""#, &f("A~\0")));
        assert!(eval(r#"s == "\0""#, &f("\0")));
        assert!(eval(r#"s == "\ \(\)""#, &f(" ()")));
        assert!(eval(r#"s == a\"b"#, &f("a\"b")));
        assert!(eval(r#"s == a\&\&b"#, &f("a&&b")));
    }

    #[test]
    fn white_space() {
        assert!(check("pid==42&&name==openat"));
        assert!(check("  pid  ==  42  "));
        assert!(check("\tpid\t==\n42\n&&\r\nname ~ 'open*'\n"));
        assert!(check("(pid==42)||(pid==43)"));
        assert!(check("!(pid==41)"));
        assert!(check("pid\u{a0}==\u{a0}42"));
    }

    #[test]
    fn fields_lists_every_use_in_order() {
        let text = "pid == 1 || (fd.path ~ '/x' && !errno == 2) || pid == 2";
        let filter = parse(text).unwrap();
        assert_eq!(
            filter.fields(),
            vec![
                ("pid", 0),
                ("fd.path", text.find("fd.path").unwrap()),
                ("errno", text.find("errno").unwrap()),
                ("pid", text.rfind("pid").unwrap()),
            ]
        );
        assert_eq!(parse("  x == 1").unwrap().fields(), vec![("x", 2)]);
    }

    #[test]
    fn unknown_field_renders_like_a_parse_error() {
        let text = "pid == 1 && bogus == 2";
        let filter = parse(text).unwrap();
        let (name, position) = filter.fields()[1];
        assert_eq!(
            unknown_field(text, position, name).to_string(),
            rendered("Unknown field 'bogus'", text, 12)
        );
    }

    #[test]
    fn closures_are_fields() {
        let fields = |name: &str| match name {
            "pid" => Some(Value::num(7)),
            "name" => Some(Value::str("read")),
            _ => None,
        };
        let filter = parse("pid == 7 && name == read && !(fd == 3)").unwrap();
        assert!(filter.matches(&fields));
    }

    #[test]
    fn borrowed_text_is_enough() {
        struct Call {
            path: String,
        }
        impl Fields for Call {
            fn get(&self, name: &str) -> Option<Value<'_>> {
                (name == "fd.path").then(|| Value::str(self.path.as_str()))
            }
        }
        let call = Call {
            path: "/dev/usbmon0".to_owned(),
        };
        assert!(parse("fd.path ~ /dev/usbmon*").unwrap().matches(&call));
    }

    #[test]
    fn error_empty() {
        assert_error("", "Empty expression", 0);
        assert_error("   ", "Empty expression", 3);
    }

    #[test]
    fn error_missing_operand() {
        assert_eq!(
            error("count > && pid == 3"),
            "bad filter: Missing operand\n  Filter: count > && pid == 3\n                  ^"
        );
        assert_error("count > && pid == 3", "Missing operand", 8);
        assert_error("pid ==", "Missing operand", 6);
        assert_error("pid == ", "Missing operand", 7);
        assert_error("(pid == )", "Missing operand", 8);
        assert_error("pid == 1 ||", "Missing operand", 11);
        assert_error("pid == 1 && ", "Missing operand", 12);
        assert_error("&& pid == 1", "Missing operand", 0);
        assert_error("pid == 1 && || pid == 2", "Missing operand", 12);
        assert_error("()", "Missing operand", 1);
        assert_error("!", "Missing operand", 1);
        assert_error("!()", "Missing operand", 2);
        assert_error("== 3", "Missing operand", 0);
        assert_error("pid == 1 && != 3", "Missing operand", 12);
        assert_error("!~ x", "Missing operand", 0);
    }

    #[test]
    fn error_missing_operator() {
        assert_error("pid", "Missing operator", 3);
        assert_error("pid 3", "Missing operator", 4);
        assert_error("pid openat", "Missing operator", 4);
        assert_error("pid \"x\"", "Missing operator", 4);
        assert_error("(pid)", "Missing operator", 4);
        assert_error("pid && x == 1", "Missing operator", 4);
        assert_error("pid || x == 1", "Missing operator", 4);
        assert_error("pid -1", "Missing operator", 4);
    }

    #[test]
    fn error_invalid_operator() {
        const M: &str = "Invalid operator (use ==, !=, <, <=, >, >=, & or ~)";
        assert_error("pid = 3", M, 4);
        assert_error("pid => 3", M, 4);
        assert_error("pid =< 3", M, 4);
        assert_error("name !~ \"x\"", M, 5);
        assert_error("pid ! 3", M, 4);
        assert_error("pid | 3", M, 4);
        assert_error("pid % 3", M, 4);
        assert_error("pid ≠ 3", M, 4);
    }

    #[test]
    fn error_expected_field_name() {
        assert_error("3 == pid", "Expected a field name", 0);
        assert_error("\"pid\" == 3", "Expected a field name", 0);
        assert_error("pid == 1 && -x == 2", "Expected a field name", 12);
        assert_error("pid == 1 || .x == 2", "Expected a field name", 12);
    }

    #[test]
    fn error_invalid_value() {
        const M: &str = "Invalid value (did you forget quotes?)";
        assert_error("pid == (3)", M, 7);
        assert_error("pid === 3", M, 6);
        assert_error("name == !x", M, 8);
        assert_error("pid <> 3", M, 5);
        assert_error("pid > < 3", M, 6);
        assert_error("pid == ~", M, 7);
    }

    #[test]
    fn error_operator_and_literal_kinds() {
        assert_error("pid ~ 3", "Operator '~' needs a string, not a number", 6);
        assert_error("name ~ -1", "Operator '~' needs a string, not a number", 7);
        assert_error(
            "name < \"x\"",
            "Operator '<' needs a number, not a string",
            7,
        );
        assert_error("name <= x", "Operator '<=' needs a number, not a string", 8);
        assert_error("name > 'x'", "Operator '>' needs a number, not a string", 7);
        assert_error("name >= x", "Operator '>=' needs a number, not a string", 8);
        assert_error(
            "flags & O_CLOEXEC",
            "Operator '&' needs a number, not a string",
            8,
        );
    }

    #[test]
    fn error_unbalanced_parentheses() {
        assert_error("(pid == 1", "Unmatched '('", 0);
        assert_error("pid == 1 && (x == 2 || (y == 3)", "Unmatched '('", 12);
        assert_error("((pid == 1)", "Unmatched '('", 0);
        assert_error("pid == 1)", "Unmatched ')'", 8);
        assert_error("(pid == 1))", "Unmatched ')'", 10);
        assert_error(")", "Missing operand", 0);
    }

    #[test]
    fn error_trailing_garbage() {
        assert_error("pid == 1 2", "Expected '&&' or '||'", 9);
        assert_error("pid == 1 and x == 2", "Expected '&&' or '||'", 9);
        assert_error("pid == 1 & x == 2", "Expected '&&' or '||'", 9);
        assert_error("pid == 1 | x == 2", "Expected '&&' or '||'", 9);
        assert_error("name == a\"b\"", "Expected '&&' or '||'", 9);
        assert_error("pid == 1 (", "Expected '&&' or '||'", 9);
        assert_error("(pid == 1 x)", "Expected '&&', '||' or ')'", 10);
        assert_error("(pid == 1 (x == 2))", "Expected '&&', '||' or ')'", 10);
    }

    #[test]
    fn error_bad_number() {
        assert_error("pid == 0x1g", "Invalid number", 7);
        assert_error("pid == 09", "Invalid number", 7);
        assert_error("pid == 1.5", "Invalid number", 7);
        assert_error("pid == -", "Invalid number", 7);
        assert_error("pid == - 3", "Invalid number", 7);
        assert_error("pid == 3com", "Invalid number", 7);
        assert_error("pid == 18446744073709551616", "Number out of range", 7);
        assert_error("(pid == -99999999999999999999)", "Number out of range", 8);
    }

    #[test]
    fn error_strings() {
        assert_error("name == \"openat", "Missing matching quote", 8);
        assert_error("name == 'openat", "Missing matching quote", 8);
        assert_error("name == \"open'", "Missing matching quote", 8);
        assert_error("name == \"a\\\"", "Missing matching quote", 8);
        assert_error("name == \"a\\", "Missing matching quote", 8);
        assert_error("name == \"\\q\"", "Invalid escape sequence", 9);
        assert_error("name == \"\\x8\"", "Invalid escape sequence", 9);
        assert_error("name == \"\\xg0\"", "Invalid escape sequence", 9);
        assert_error("name == \"\\x+1\"", "Invalid escape sequence", 9);
        assert_error("name == \"\\x80\"", "Invalid escape sequence", 9);
        assert_error("name == \"\\x", "Invalid escape sequence", 9);
        assert_error("name == \"ab\\é\"", "Invalid escape sequence", 11);
        assert_error("name == a\\", "Invalid escape sequence", 9);
        assert_error("name == a\\b", "Invalid escape sequence", 9);
    }

    #[test]
    fn nesting_is_bounded() {
        let ok = format!("{}pid == 1{}", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
        assert!(!check(&ok));
        let deep = format!(
            "{}pid == 42{}",
            "(".repeat(MAX_DEPTH + 1),
            ")".repeat(MAX_DEPTH + 1)
        );
        assert_error(
            &deep,
            &format!("Parentheses nested too deeply (limit {MAX_DEPTH})"),
            MAX_DEPTH,
        );
        // Many negations are counted, not nested.
        let nots = format!("{}pid == 42", "!".repeat(MAX_LEN - 9));
        assert_eq!(nots.len(), MAX_LEN);
        assert_eq!(check(&nots), (MAX_LEN - 9).is_multiple_of(2));
        // Long chains of && and || are flat.
        let chain = ["pid == 42"; 250].join(" && ");
        assert!(chain.len() <= MAX_LEN);
        assert!(check(&chain));
        let chain = ["pid == 1"; 250].join("||");
        assert!(!check(&chain));
    }

    #[test]
    fn length_is_bounded() {
        let longest = format!("name == '{}'", "x".repeat(MAX_LEN - 10));
        assert_eq!(longest.len(), MAX_LEN);
        assert!(!check(&longest));
        let too_long = format!("name == '{}'", "x".repeat(MAX_LEN - 9));
        let err = parse(&too_long).unwrap_err();
        assert_eq!(err.message, "Expression too long (limit 4096 bytes)");
        assert_eq!(err.position, MAX_LEN);
        assert_eq!(
            err.to_string(),
            rendered("Expression too long (limit 4096 bytes)", &too_long, MAX_LEN)
        );
        // The caret lands on a character boundary.
        let wide = format!("name == '{}'", "é".repeat(MAX_LEN / 2));
        let err = parse(&wide).unwrap_err();
        assert!(wide.is_char_boundary(err.position));
        assert_eq!(err.position, MAX_LEN - 1);
    }

    #[test]
    fn rendering_counts_columns_and_blanks_control_characters() {
        let err = parse("name == 'ü' &&").unwrap_err();
        assert_eq!(err.position, 15);
        assert_eq!(
            err.to_string(),
            "bad filter: Missing operand\n  Filter: name == 'ü' &&\n                        ^"
        );
        let err = parse("pid\t==\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "bad filter: Missing operand\n  Filter: pid ==\n                 ^"
        );
        // Wide characters take two columns each.
        let err = parse("name == '日本' &&").unwrap_err();
        assert_eq!(
            err.to_string(),
            "bad filter: Missing operand\n  Filter: name == '日本' &&\n                           ^"
        );
        // A position past the end (from a careless caller) still renders.
        let err = unknown_field("ab", 99, "ab");
        assert_eq!(
            err.to_string(),
            "bad filter: Unknown field 'ab'\n  Filter: ab\n            ^"
        );
    }

    /// A tiny deterministic PRNG (xorshift64*), so the fuzz tests need no
    /// crates and fail the same way every run.
    struct Rng(u64);

    impl Rng {
        fn next_u64(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next_u64() % n as u64) as usize
        }

        fn pick<T: Copy>(&mut self, items: &[T]) -> T {
            items[self.below(items.len())]
        }
    }

    /// Pieces garbage is made of: tokens, fragments of tokens, odd
    /// characters.
    const PIECES: &[&str] = &[
        "pid",
        "name",
        "fd.path",
        "errno",
        "x",
        " ",
        "  ",
        "\t",
        "\n",
        "(",
        ")",
        "!",
        "!=",
        "==",
        "=",
        "<",
        "<=",
        ">",
        ">=",
        "&",
        "&&",
        "|",
        "||",
        "~",
        "!~",
        "\"",
        "'",
        "\\",
        "\\x",
        "\\x4",
        "\\x41",
        "\\n",
        "\\*",
        "*",
        "?",
        "[",
        "]",
        "[!",
        "-",
        "0",
        "0x",
        "0x1f",
        "07",
        "09",
        "1",
        "42",
        "-1",
        "18446744073709551615",
        "99999999999999999999",
        ".",
        "_",
        "openat",
        "ENOENT",
        "é",
        "ü",
        "λ",
        "\u{0}",
        "\u{a0}",
        "€",
        "\"abc\"",
        "'x'",
    ];

    /// Parses `text` and checks whatever comes back is sound: a filter
    /// evaluates and lists fields that are in the text; an error points at a
    /// character boundary and renders as three lines. Returns whether it
    /// parsed.
    fn parse_soundly(text: &str, fields: &dyn Fields) -> bool {
        match parse(text) {
            Ok(filter) => {
                filter.matches(fields);
                for (name, position) in filter.fields() {
                    assert_eq!(&text[position..position + name.len()], name);
                }
                true
            }
            Err(e) => {
                assert!(e.position <= text.len(), "{text:?}: {e:?}");
                assert!(text.is_char_boundary(e.position), "{text:?}: {e:?}");
                assert_eq!(e.expression, text);
                let shown = e.to_string();
                assert_eq!(shown.lines().count(), 3, "{text:?}: {shown}");
                assert!(shown.ends_with('^'));
                assert!(!shown.lines().any(|l| l.ends_with(' ')), "{shown}");
                false
            }
        }
    }

    #[test]
    fn garbage_never_panics() {
        let fields = openat();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            let mut text = String::new();
            for _ in 0..rng.below(16) {
                text.push_str(rng.pick(PIECES));
            }
            parse_soundly(&text, &fields);
        }
        // Random bytes (made valid UTF-8) as well.
        for _ in 0..5_000 {
            let bytes: Vec<u8> = (0..rng.below(40)).map(|_| rng.next_u64() as u8).collect();
            parse_soundly(&String::from_utf8_lossy(&bytes), &fields);
        }
    }

    /// Valid expressions with a few random edits: near misses exercise the
    /// error paths deep inside an expression, not just at its start.
    #[test]
    fn mutated_expressions_never_panic() {
        const SEEDS: &[&str] = &[
            "pid == 42 && name == openat",
            "(errno == ENOENT || errno == 2) && !(fd.path ~ \"/etc/*\")",
            "!(x & 0x10) || request == MON_IOCX_MFETCH && name ~ 'ioc[a-z]?'",
            "fd.path ~ \"/tmp/a\\ b*\" || name != \"say \\\"hi\\\"\"",
            "((a < -1 || b >= 010) && c <= 0xff) || d > 7",
        ];
        let fields = openat();
        let mut rng = Rng(99);
        let (mut good, mut bad) = (0, 0);
        for _ in 0..20_000 {
            let mut text = rng.pick(SEEDS).to_owned();
            for _ in 0..1 + rng.below(3) {
                let mut at = rng.below(text.len() + 1);
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                match rng.below(3) {
                    0 => text.insert_str(at, rng.pick(PIECES)),
                    1 => {
                        let mut end = (at + 1 + rng.below(3)).min(text.len());
                        while !text.is_char_boundary(end) {
                            end += 1;
                        }
                        text.replace_range(at..end, "");
                    }
                    _ => {
                        let mut end = (at + 1).min(text.len());
                        while !text.is_char_boundary(end) {
                            end += 1;
                        }
                        text.replace_range(at..end, rng.pick(PIECES));
                    }
                }
            }
            if parse_soundly(&text, &fields) {
                good += 1;
            } else {
                bad += 1;
            }
        }
        // Both outcomes are well represented.
        assert!(good > 1_000 && bad > 1_000, "{good} parsed, {bad} rejected");
    }

    /// A random expression over fields a, b, c (numbers 0..4) and s (text),
    /// with its expected value computed directly.
    fn random_expr(rng: &mut Rng, depth: usize, vals: &[i64; 3]) -> (String, bool) {
        if depth == 0 || rng.below(3) == 0 {
            if rng.below(4) == 0 {
                let (pat, want) = rng.pick(&[
                    ("'ab*'", true),
                    ("\"*c\"", true),
                    ("a?c", true),
                    ("[!a]*", false),
                    ("\"\\*\"", false),
                ]);
                return (format!("s ~ {pat}"), want);
            }
            let field = rng.below(3);
            let x = vals[field];
            let n = rng.below(4) as i64;
            let (op, want) = rng.pick(&[
                ("==", x == n),
                ("!=", x != n),
                ("<", x < n),
                ("<=", x <= n),
                (">", x > n),
                (">=", x >= n),
                ("&", x & n != 0),
            ]);
            let sp = if rng.below(2) == 0 { " " } else { "" };
            return (format!("{}{sp}{op}{sp}{n}", ["a", "b", "c"][field]), want);
        }
        match rng.below(4) {
            0 => {
                let (e, v) = random_expr(rng, depth - 1, vals);
                (format!("!({e})"), !v)
            }
            1 => {
                let (e, v) = random_expr(rng, depth - 1, vals);
                (format!("({e})"), v)
            }
            2 => {
                let (l, lv) = random_expr(rng, depth - 1, vals);
                let (r, rv) = random_expr(rng, depth - 1, vals);
                (format!("({l} && {r})"), lv && rv)
            }
            _ => {
                let (l, lv) = random_expr(rng, depth - 1, vals);
                let (r, rv) = random_expr(rng, depth - 1, vals);
                (format!("({l} || {r})"), lv || rv)
            }
        }
    }

    #[test]
    fn random_expressions_evaluate_as_written() {
        let mut rng = Rng(12345);
        for _ in 0..3_000 {
            let vals = [
                rng.below(4) as i64,
                rng.below(4) as i64,
                rng.below(4) as i64,
            ];
            let fields = table(&[
                ("a", Value::num(vals[0])),
                ("b", Value::num(vals[1])),
                ("c", Value::num(vals[2])),
                ("s", Value::str("abc")),
            ]);
            let (text, want) = random_expr(&mut rng, 5, &vals);
            assert_eq!(eval(&text, &fields), want, "{text} with {vals:?}");
        }
    }

    /// Chains without parentheses, checked against a direct evaluation
    /// that applies `&&` before `||`.
    #[test]
    fn random_chains_follow_precedence() {
        let mut rng = Rng(777);
        for _ in 0..3_000 {
            let vals: Vec<bool> = (0..6).map(|_| rng.below(2) == 1).collect();
            let terms = 1 + rng.below(6);
            let mut text = String::new();
            // Sum of products: a list of && groups joined by ||.
            let mut groups = vec![vec![]];
            for i in 0..terms {
                let negated = rng.below(3) == 0;
                if i > 0 {
                    if rng.below(2) == 0 {
                        text.push_str(" && ");
                    } else {
                        text.push_str(" || ");
                        groups.push(vec![]);
                    }
                }
                let v = rng.below(6);
                text.push_str(&format!("{}v{v} == 1", if negated { "!" } else { "" }));
                groups.last_mut().unwrap().push(vals[v] != negated);
            }
            let want = groups.iter().any(|g| g.iter().all(|&t| t));
            let filter = parse(&text).unwrap();
            let values: Vec<i64> = vals.iter().map(|&v| i64::from(v)).collect();
            let fields = |name: &str| {
                let i = name.strip_prefix('v')?.parse::<usize>().ok()?;
                Some(Value::num(*values.get(i)?))
            };
            assert_eq!(filter.matches(&fields), want, "{text} with {vals:?}");
        }
    }

    /// An obviously correct (exponential, recursive) glob matcher over
    /// unescaped patterns, following lib/glob.c's class rules.
    fn reference_glob(pattern: &str, text: &str) -> bool {
        fn class(p: &[char], c: char) -> Option<(bool, usize)> {
            // Returns (matched, length of the class including brackets).
            let mut i = 1;
            let negated = p.get(i) == Some(&'!');
            if negated {
                i += 1;
            }
            let first = i;
            let mut hit = false;
            loop {
                let lo = *p.get(i)?;
                if i > first && lo == ']' {
                    return Some((hit != negated, i + 1));
                }
                if p.get(i + 1) == Some(&'-') && p.get(i + 2) != Some(&']') {
                    let hi = *p.get(i + 2)?;
                    hit |= lo <= c && c <= hi;
                    i += 3;
                } else {
                    hit |= lo == c;
                    i += 1;
                }
            }
        }
        fn go(p: &[char], t: &[char]) -> bool {
            match p.first() {
                None => t.is_empty(),
                Some('*') => (0..=t.len()).any(|k| go(&p[1..], &t[k..])),
                Some('?') => !t.is_empty() && go(&p[1..], &t[1..]),
                Some('[') if t.is_empty() => false,
                Some('[') => match class(p, t[0]) {
                    Some((true, len)) => go(&p[len..], &t[1..]),
                    Some((false, _)) => false,
                    None => t[0] == '[' && go(&p[1..], &t[1..]),
                },
                Some(&c) => t.first() == Some(&c) && go(&p[1..], &t[1..]),
            }
        }
        let p: Vec<char> = pattern.chars().collect();
        let t: Vec<char> = text.chars().collect();
        go(&p, &t)
    }

    #[test]
    fn random_globs_agree_with_reference() {
        const PATTERN: &[&str] = &[
            "a", "b", "c", "*", "*", "?", "[", "]", "!", "-", "[ab]", "[!a]", "[a-c]", "[]a]",
        ];
        const TEXT: &[char] = &['a', 'b', 'c', '[', ']', '-', '!', 'é'];
        let mut rng = Rng(4242);
        for _ in 0..20_000 {
            let pattern: String = (0..rng.below(7)).map(|_| rng.pick(PATTERN)).collect();
            let text: String = (0..rng.below(7)).map(|_| rng.pick(TEXT)).collect();
            let chars: Vec<(char, bool)> = pattern.chars().map(|c| (c, false)).collect();
            assert_eq!(
                Glob::compile(&chars).matches(&text),
                reference_glob(&pattern, &text),
                "{pattern:?} ~ {text:?}"
            );
        }
    }
}
