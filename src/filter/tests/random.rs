//! Random and mangled expressions: nothing panics, evaluation follows the
//! text, and `~` agrees with an obviously correct reference matcher.

use super::*;
use crate::filter::glob::Glob;

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
pub(super) fn reference_glob(pattern: &str, text: &str) -> bool {
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
