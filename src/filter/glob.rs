//! `~` patterns: compiled once when parsing, matched for every call with
//! the kernel's lib/glob.c semantics.

/// A compiled `~` pattern (the kernel's lib/glob.c semantics).
#[derive(Clone, Debug)]
pub(super) struct Glob {
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
    pub(super) fn compile(pattern: &[(char, bool)]) -> Glob {
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
    pub(super) fn matches(&self, text: &str) -> bool {
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
