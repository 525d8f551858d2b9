//! The filter language's tests: what expressions mean (here), what is
//! rejected and how it is shown (`errors`), and random expressions, garbage
//! and globs against a reference (`random`).

mod errors;
mod random;

use super::parse::number_value;
use super::*;
use random::reference_glob;
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
