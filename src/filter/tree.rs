//! The parsed expression: its nodes and predicates, the [`Fields`] of a
//! call it is tested against and how, and the views
//! [`Filter`](super::Filter) gives of it (field names, text literals).

use super::glob::Glob;
use std::borrow::Cow;

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

/// A text one predicate compares its field with, as
/// [`Filter::text_literals`](super::Filter::text_literals) lists them.
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

/// A node of the parsed expression. `&&` and `||` chains are flat lists, so
/// only parentheses (bounded by [`MAX_DEPTH`](super::MAX_DEPTH)) deepen the tree.
#[derive(Clone, Debug)]
pub(super) enum Node {
    Pred(Pred),
    Not(Box<Node>),
    All(Vec<Node>),
    Any(Vec<Node>),
}

impl Node {
    pub(super) fn eval(&self, fields: &dyn Fields) -> bool {
        match self {
            Node::Pred(pred) => pred.eval(fields),
            Node::Not(node) => !node.eval(fields),
            Node::All(nodes) => nodes.iter().all(|n| n.eval(fields)),
            Node::Any(nodes) => nodes.iter().any(|n| n.eval(fields)),
        }
    }

    pub(super) fn collect_literals<'a>(&'a self, out: &mut Vec<TextLiteral<'a>>) {
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

    pub(super) fn collect_fields<'a>(&'a self, out: &mut Vec<(&'a str, usize)>) {
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
pub(super) struct Pred {
    pub(super) field: Box<str>,
    /// Byte offset of the field name in the expression.
    pub(super) position: usize,
    /// Byte offset of the value, and the value as written.
    pub(super) value_position: usize,
    pub(super) literal: Box<str>,
    pub(super) test: Test,
}

/// What a predicate does with the field's value; the operator and the
/// literal's kind were checked against each other when parsing.
#[derive(Clone, Debug)]
pub(super) enum Test {
    Number(NumOp, i64),
    Text { equal: bool, text: Box<str> },
    Glob(Glob),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NumOp {
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
