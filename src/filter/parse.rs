//! The expression's text read into a tree: tokens, operators, literals and
//! their escapes, numbers the kernel's way, each fault reported where it is
//! found.

use super::error::FilterError;
use super::glob::Glob;
use super::tree::{Node, NumOp, Pred, Test};

/// The longest expression [`parse`](fn@super::parse) accepts, in bytes.
pub const MAX_LEN: usize = 4096;

/// How deep [`parse`](fn@super::parse) lets parentheses nest. Evaluation
/// recurses once per level, so this bounds the stack both use.
pub const MAX_DEPTH: usize = 32;

/// Reads `text` into the tree [`parse`](fn@super::parse) makes a
/// [`Filter`](super::Filter) of.
pub(super) fn tree(text: &str) -> Result<Node, FilterError> {
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
    Ok(root)
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
pub(super) fn number_value(token: &str) -> Result<i64, &'static str> {
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
