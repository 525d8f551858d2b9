//! Escaping: how bytes a tracee controls are made safe to print.
//!
//! A tracee chooses its name (`prctl(PR_SET_NAME)`), its file names, the
//! strings it passes to calls and what it registers with user_events; any
//! of it may hold terminal control sequences. This module owns the three
//! ways such text is rendered, all of them escaping:
//!
//! - [`TraceeText`], the type for tracee text kept outside a call's
//!   arguments (process names): it has no unescaped rendering;
//! - [`c_escape`], the C escaping of strings (`\n`, `\33`), which
//!   [`TraceeText`] and the Printer's strings share;
//! - [`terminal_safe`] and [`json_safe`], the output layer's last line of
//!   defence: whatever a caller hands it, no control character, DEL, C1
//!   control or bidirectional override reaches the terminal raw, in the
//!   text trace or in JSON (where `jq` would print it).

use std::borrow::Cow;
use std::fmt::{self, Write as _};

/// Bytes that came from a tracee (a process or thread name, a file name
/// its program was started from). Printing it goes through [`fmt::Display`],
/// which C-escapes every byte that is not printable ASCII, as strings are
/// escaped (`\33[2J\n`), or through [`TraceeText::json`]; there is no way
/// to get its raw bytes into the output.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceeText(Box<[u8]>);

impl TraceeText {
    /// Text from raw tracee bytes.
    pub fn new(bytes: impl Into<Vec<u8>>) -> TraceeText {
        TraceeText(bytes.into().into_boxed_slice())
    }

    /// The first `max` bytes, as the kernel cuts a task's comm name.
    pub fn truncated(&self, max: usize) -> TraceeText {
        TraceeText::new(&self.0[..self.0.len().min(max)])
    }

    /// The text inside a `<...>` decoration (`-Y`'s `1234<comm>`): escaped
    /// as [`fmt::Display`] escapes it, and `<` and `>` too, so that the
    /// decoration ends where it seems to, as `-y`'s paths do.
    pub fn in_decoration(&self) -> String {
        let mut s = String::with_capacity(self.0.len());
        c_escape_also(&self.0, true, b"<>", &mut s);
        s
    }

    /// The JSON form: a string (invalid UTF-8 shown as U+FFFD). The JSON
    /// writer escapes the control characters in it.
    pub fn json(&self) -> serde_json::Value {
        serde_json::Value::String(String::from_utf8_lossy(&self.0).into_owned())
    }
}

/// A command line as a banner shows it: `name arg1 "an arg"`, each
/// argument bare when it holds only characters a shell leaves alone, else
/// quoted and escaped, as strings are; at most `limit` bytes of the
/// arguments, as `-s` cuts a string: the one that does not fit ends `..`
/// (`sh -c "ls -la /tmp; ec"..`), and those after it are left out.
pub fn command_line(name: &TraceeText, args: &[TraceeText], limit: usize) -> String {
    let mut line = name.to_string();
    let mut left = limit;
    for arg in args {
        let bytes = &arg.0;
        let cut = bytes.len() > left;
        let shown = &bytes[..bytes.len().min(left)];
        let plain = !shown.is_empty()
            && shown
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || b"%+,-./:=@_^".contains(&b));
        line.push(' ');
        if plain && !cut {
            c_escape(shown, true, &mut line);
        } else {
            line.push('"');
            c_escape(shown, true, &mut line);
            line.push('"');
        }
        if cut {
            line.push_str("..");
            break;
        }
        left -= bytes.len();
    }
    line
}

impl From<&str> for TraceeText {
    fn from(text: &str) -> TraceeText {
        TraceeText::new(text.as_bytes())
    }
}

impl fmt::Display for TraceeText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(self.0.len());
        c_escape(&self.0, true, &mut s);
        f.write_str(&s)
    }
}

/// Append `bytes` to `out` C-escaped as strace escapes strings: printable
/// ASCII as itself, `\n`, `\t`, `\r`, `\v`, `\f`, and every other byte
/// in octal (`\33`, `\177`), with three digits when an octal digit
/// follows, so the text means the same bytes when pasted into C (a hex
/// escape would swallow a following hex digit: `"\x7fELF"` is not
/// `"\177ELF"`). With `quotes`, `"` and `\` are escaped too, as inside a
/// quoted string.
pub fn c_escape(bytes: &[u8], quotes: bool, out: &mut String) {
    c_escape_also(bytes, quotes, b"", out);
}

/// [`c_escape`] that also writes the bytes of `also` in octal: `-y`'s
/// `3</tmp/a\76b>` escapes `<` and `>` inside a path, as strace does, so
/// the brackets around it stay unambiguous.
pub fn c_escape_also(bytes: &[u8], quotes: bool, also: &[u8], out: &mut String) {
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            _ if also.contains(&b) => octal(bytes, i, out),
            b'"' if quotes => out.push_str("\\\""),
            b'\\' if quotes => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            b'\r' => out.push_str("\\r"),
            0x0b => out.push_str("\\v"),
            0x0c => out.push_str("\\f"),
            0x20..=0x7e => out.push(b as char),
            _ => octal(bytes, i, out),
        }
    }
}

/// `bytes[i]` in octal, with three digits when an octal digit follows.
fn octal(bytes: &[u8], i: usize, out: &mut String) {
    let b = bytes[i];
    let octal_next = bytes.get(i + 1).is_some_and(|n| (b'0'..=b'7').contains(n));
    let _ = if octal_next {
        write!(out, "\\{b:03o}")
    } else {
        write!(out, "\\{b:o}")
    };
}

/// `-x`, `-xx`, `--strings-in-hex=`: when a string's bytes print as
/// `\xNN` hex escapes instead of [`c_escape`]'s octal and letter ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HexStrings {
    /// Never (`none`, the default).
    #[default]
    None,
    /// Each byte that is not printable ASCII, one by one
    /// (`non-ascii-chars`); `\n`, `\t`, `\r`, `\v`, `\f` keep their
    /// letters.
    NonAsciiChars,
    /// The whole string, when it holds any byte that is neither printable
    /// ASCII nor one of those five whitespace controls (`-x`,
    /// `non-ascii`).
    NonAscii,
    /// Every byte of every string (`-xx`, `all`).
    All,
}

impl HexStrings {
    /// Parse `--strings-in-hex=`'s value, strace's words.
    pub fn parse(text: &str) -> Result<HexStrings, String> {
        match text {
            "none" => Ok(HexStrings::None),
            "non-ascii-chars" => Ok(HexStrings::NonAsciiChars),
            "non-ascii" => Ok(HexStrings::NonAscii),
            "all" => Ok(HexStrings::All),
            _ => Err("expected none, non-ascii-chars, non-ascii or all".into()),
        }
    }
}

/// Append `bytes` to `out` escaped as `mode` says (see [`HexStrings`]),
/// inside quotes: [`c_escape`] where no hex is asked for.
pub fn c_escape_hex(bytes: &[u8], mode: HexStrings, out: &mut String) {
    let whitespace = |b: u8| (0x09..=0x0d).contains(&b);
    let all = match mode {
        HexStrings::None => return c_escape(bytes, true, out),
        HexStrings::All => true,
        HexStrings::NonAscii => bytes
            .iter()
            .any(|&b| !(0x20..=0x7e).contains(&b) && !whitespace(b)),
        HexStrings::NonAsciiChars => false,
    };
    if !all && mode == HexStrings::NonAscii {
        return c_escape(bytes, true, out);
    }
    for (i, &b) in bytes.iter().enumerate() {
        if all || !((0x20..=0x7e).contains(&b) || whitespace(b)) {
            let _ = write!(out, "\\x{b:02x}");
        } else {
            c_escape(&bytes[i..=i], true, out);
        }
    }
}

/// `text` with every byte that is not printable ASCII C-escaped (a `\n`
/// too, unless `newlines` allows line ends): what the output layer does
/// to all text before writing it, so that no caller can put a raw
/// control sequence on the terminal. Text that is already safe (all of
/// it, when callers escape what they print) is returned as it is.
#[inline]
pub fn terminal_safe(text: &str, newlines: bool) -> Cow<'_, str> {
    if printable_ascii(text.as_bytes()) {
        return Cow::Borrowed(text);
    }
    escape_for_terminal(text, newlines)
}

/// [`terminal_safe`] of text that is not all printable ASCII: kept out of
/// line so the common case costs only the check.
#[cold]
#[inline(never)]
fn escape_for_terminal(text: &str, newlines: bool) -> Cow<'_, str> {
    let safe = |b: u8| (0x20..0x7f).contains(&b) || (newlines && b == b'\n');
    if text.bytes().all(safe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for piece in text.split_inclusive('\n') {
        match piece.strip_suffix('\n').filter(|_| newlines) {
            Some(line) => {
                c_escape(line.as_bytes(), false, &mut out);
                out.push('\n');
            }
            None => c_escape(piece.as_bytes(), false, &mut out),
        }
    }
    Cow::Owned(out)
}

/// Whether every byte is printable ASCII (0x20..=0x7e): the output layer
/// asks this of every piece of text at every stop (pieces of a few bytes:
/// `getppid`, `(`, `= `), so it is one compare per byte with no newline
/// case; text that fails it takes the general check.
fn printable_ascii(bytes: &[u8]) -> bool {
    bytes.iter().all(|&b| b.wrapping_sub(0x20) < 0x5f)
}

/// Characters JSON allows raw in a string that a terminal acts on: DEL, the
/// C1 controls (some terminals take U+009B as CSI), and the bidirectional
/// marks, embeddings, overrides and isolates, which reorder what is shown
/// (the "Trojan Source" trick), and the Unicode line and paragraph
/// separators.
fn json_unsafe(c: char) -> bool {
    matches!(c,
        '\u{7f}'..='\u{9f}'
        | '\u{61c}'
        | '\u{200e}' | '\u{200f}'
        | '\u{2028}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}')
}

/// Whether a terminal acts on `c` rather than showing it: a control
/// character (C0, DEL, C1) or one of the marks [`json_unsafe`] names.
pub fn is_terminal_control(c: char) -> bool {
    c.is_control() || json_unsafe(c)
}

/// `text` with the characters [`is_terminal_control`] names C-escaped
/// (`\33`, `\342\200\256`) and every other character as it is (`é`
/// stays `é`): for user input quoted back in an error message, which
/// must stay one line and readable.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_terminal_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut buf = [0u8; 4];
    for c in text.chars() {
        if is_terminal_control(c) {
            c_escape(c.encode_utf8(&mut buf).as_bytes(), false, &mut out);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A value as one line of JSON that is also safe on a terminal: serde's
/// escaping (control characters below U+0020, quotes, backslashes) plus
/// `\uXXXX` for the characters [`json_unsafe`] names. Outside strings JSON
/// text is ASCII, so escaping them anywhere in the text keeps it valid.
pub fn json_safe(value: &serde_json::Value) -> String {
    let text = value.to_string();
    if text.bytes().all(|b| b < 0x7f) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if json_unsafe(c) {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_modes_follow_strace() {
        let hex = |bytes: &[u8], mode| {
            let mut out = String::new();
            c_escape_hex(bytes, mode, &mut out);
            out
        };
        // Whitespace controls alone keep a string out of -x's hex.
        assert_eq!(hex(b"a\tb\n\"", HexStrings::NonAscii), "a\\tb\\n\\\"");
        assert_eq!(hex(b"a\x1b", HexStrings::NonAscii), "\\x61\\x1b");
        assert_eq!(hex(b"a\x1b\n", HexStrings::NonAsciiChars), "a\\x1b\\n");
        assert_eq!(hex(b"a\"", HexStrings::All), "\\x61\\x22");
        assert_eq!(hex(b"\x7fELF", HexStrings::None), "\\177ELF");
        assert!(HexStrings::parse("most").is_err());
    }

    #[test]
    fn tracee_text_prints_only_escaped() {
        let name = TraceeText::new(b"\x1b[2J\x1b]0;pwn\x07\n".to_vec());
        assert_eq!(name.to_string(), "\\33[2J\\33]0;pwn\\7\\n");
        assert_eq!(
            TraceeText::new(b"a\"b\\c\x7f\xc3\xa9".to_vec()).to_string(),
            "a\\\"b\\\\c\\177\\303\\251"
        );
        assert_eq!(TraceeText::from("sleep").to_string(), "sleep");
        assert_eq!(
            TraceeText::from("0123456789abcdefgh")
                .truncated(15)
                .to_string(),
            "0123456789abcde"
        );
    }

    #[test]
    fn printable_ascii_agrees_with_a_byte_loop() {
        // Every byte value at every position of a 1..=17 byte text.
        for len in 1..=17 {
            for pos in 0..len {
                for b in 0..=255u8 {
                    let mut text = vec![b'a'; len];
                    text[pos] = b;
                    let expected = (0x20..0x7f).contains(&b);
                    assert_eq!(printable_ascii(&text), expected, "{len} {pos} {b:#x}");
                }
            }
        }
        assert!(printable_ascii(b""));
    }

    #[test]
    fn terminal_safe_escapes_what_callers_missed() {
        assert!(matches!(terminal_safe("read(3, ", false), Cow::Borrowed(_)));
        assert_eq!(terminal_safe("a\x1b[31mb\n", false), "a\\33[31mb\\n");
        assert_eq!(terminal_safe("x\u{202e}y", false), "x\\342\\200\\256y");
        assert_eq!(terminal_safe("a\x07\nb\n", true), "a\\7\nb\n");
        assert_eq!(terminal_safe("\"\\", false), "\"\\");
    }

    #[test]
    fn json_safe_stays_valid_and_escapes_terminal_controls() {
        let value = serde_json::json!({
            "name": "\x1b[2J\u{7f}\u{9b}1m\u{202e}txt.exe\u{2066}\u{200f}\u{61c}é",
            "\u{202e}key": 1,
        });
        let text = json_safe(&value);
        assert_eq!(
            text,
            "{\"name\":\"\\u001b[2J\\u007f\\u009b1m\\u202etxt.exe\\u2066\\u200f\\u061cé\",\"\\u202ekey\":1}"
        );
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, value);
    }
}
