//! Rejected expressions: each message and where its caret points.

use super::*;

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
