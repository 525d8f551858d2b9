//! `-x`, `-xx` and `--strings-in-hex=`: strings and paths in `\xNN`
//! escapes, traced against tests/fixtures/dumps.c; JSON keeps its strings.

mod common;

use common::{fixture, name, rtrace_env, s, trace};

const CALLS: &str = "trace=write,openat";

/// The fixture's writes and opens after its marker, as `args` print them.
fn lines(args: &[&str]) -> Vec<String> {
    let bin = fixture("dumps");
    let mut all = vec!["-e", CALLS];
    all.extend_from_slice(args);
    let run = trace(&all, &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = run.lines();
    let start = lines
        .iter()
        .position(|l| l.starts_with("write(-1, "))
        .unwrap_or_else(|| panic!("no marker: {lines:#?}"));
    lines[start..].to_vec()
}

#[test]
fn x_puts_a_string_with_a_non_ascii_byte_wholly_in_hex() {
    let expected = s(&[
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
        "write(4, \"\\x68\\x65\\x6c\\x6c\\x6f\\x2c\\x20\\x77\\x6f\\x72\\x6c\\x64\\x21\\x0a\\x00\\xff\\x7f\\x58\", 18) = 18",
        "openat(AT_FDCWD, \"/dev/null\", O_WRONLY) = 7",
        "write(7, \"zz\", 2) = 2",
        "write(4, \"\", 0) = 0",
        "write(-1, \"bad\", 3) = -1 [EBADF]",
        "openat(AT_FDCWD, \"/proc/self/exe\", O_RDONLY) = 8",
        "Process exited normally with code 0",
    ]);
    assert_eq!(lines(&["-x"]), expected);
    assert_eq!(lines(&["--strings-in-hex=non-ascii"]), expected);
}

#[test]
fn xx_puts_every_string_in_hex() {
    let expected = s(&[
        "write(-1, \"\\x42\\x45\\x47\\x49\\x4e\", 5) = -1 [EBADF]",
        "write(4, \"\\x68\\x65\\x6c\\x6c\\x6f\\x2c\\x20\\x77\\x6f\\x72\\x6c\\x64\\x21\\x0a\\x00\\xff\\x7f\\x58\", 18) = 18",
        "openat(AT_FDCWD, \"\\x2f\\x64\\x65\\x76\\x2f\\x6e\\x75\\x6c\\x6c\", O_WRONLY) = 7",
        "write(7, \"\\x7a\\x7a\", 2) = 2",
        "write(4, \"\", 0) = 0",
        "write(-1, \"\\x62\\x61\\x64\", 3) = -1 [EBADF]",
        "openat(AT_FDCWD, \"\\x2f\\x70\\x72\\x6f\\x63\\x2f\\x73\\x65\\x6c\\x66\\x2f\\x65\\x78\\x65\", O_RDONLY) = 8",
        "Process exited normally with code 0",
    ]);
    assert_eq!(lines(&["-xx"]), expected);
    assert_eq!(lines(&["--strings-in-hex"]), expected);
    assert_eq!(lines(&["--strings-in-hex=all"]), expected);
}

#[test]
fn non_ascii_chars_escapes_only_those_bytes() {
    let got = lines(&["--strings-in-hex=non-ascii-chars"]);
    assert_eq!(
        got[1],
        "write(4, \"hello, world!\\n\\x00\\xff\\x7fX\", 18) = 18"
    );
    assert_eq!(got[2], "openat(AT_FDCWD, \"/dev/null\", O_WRONLY) = 7");
    // none is the default form.
    assert_eq!(
        lines(&["--strings-in-hex=none"])[1],
        "write(4, \"hello, world!\\n\\0\\377\\177X\", 18) = 18"
    );
}

#[test]
fn json_strings_do_not_change() {
    let bin = fixture("dumps");
    let json = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["--json", "-e", "trace=write"];
        all.extend_from_slice(args);
        let run = trace(&all, &[name(&bin)]);
        assert_eq!(run.code(), Some(0), "{}", run.stderr());
        run.trace
            .lines()
            .filter_map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).ok()?;
                (v["name"] == "write").then(|| v["args"].to_string())
            })
            .collect()
    };
    let plain = json(&[]);
    assert!(
        plain.iter().any(|a| a.contains(r#""buf":"BEGIN""#)),
        "{plain:?}"
    );
    assert_eq!(json(&["-xx"]), plain);
}

#[test]
fn a_bad_strings_in_hex_word_is_a_one_line_error() {
    let out = rtrace_env()
        .args(["--strings-in-hex=some", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "rtrace: invalid value 'some' for '--strings-in-hex[=<WHICH>]': expected none, non-ascii-chars, non-ascii or all (see rtrace --help)\n"
    );
}
