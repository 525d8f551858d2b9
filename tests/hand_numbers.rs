//! Kernel numbers are generated, never typed (HACKING.md, "Generated
//! tables"): this test reads the crate's code outside `src/abi/` (the
//! bottom floor, where the generated tables and the few documented hand
//! numbers live) and outside the generated files and the tests, and fails
//! on the two shapes a typed kernel number takes:
//!
//! 1. a named constant whose value is a hex literal,
//!    `const MON_IOCX_GET: u32 = 0x4018_9206;`;
//! 2. a literal that reads as an ioctl request code (a direction, a size
//!    and a type, `0xC010_9207`, or an `_IO` code written as eight
//!    digits, `0x0000_9204`), wherever it stands;
//! 3. a constant named after a kernel name the generated tables know
//!    (`src/abi/xlat/`, `src/abi/gen_*.rs`), given a number of its own:
//!    `const AF_INET: u16 = 2;`.
//!
//! Numbers rtrace itself invents, or that no header or kernel source gives
//! a program, are listed in [`ALLOWED`] with their reason; an entry that no
//! longer matches anything fails too, so the list stays true.

#[path = "common/source.rs"]
mod source;

use source::{code_of, sources};

/// The hex numbers that may stay typed: (file under `src/`, the constant's
/// name or the literal as written, why).
const ALLOWED: &[(&str, &str, &str)] = &[
    ("fasthash.rs", "SEED", "rtrace's own hash seed"),
    (
        "trace/bpf/plan.rs",
        "WORD",
        "rtrace's own mark in its spec table (RT_FROM_WORD, bpf/rtrace.h)",
    ),
    (
        "trace/bpf/plan.rs",
        "NONE",
        "rtrace's own mark in its spec table (RT_FROM_NONE, bpf/rtrace.h)",
    ),
    (
        "trace/bpf/ioctl_plan.rs",
        "COUNT_ARG",
        "rtrace's own mark in its pointed arrays (RT_COUNT_ARG, bpf/rtrace.h)",
    ),
    (
        "ioctl/v4l2/controls.rs",
        "CLASS_SPAN",
        "the low bit of V4L2_CTRL_ID2CLASS's mask (0x0fff0000 in <linux/videodev2.h>, a function-like macro, not a constant a table can hold)",
    ),
    (
        "decode.rs",
        "0xffff_f000",
        "glibc's dev_t layout (gnu_dev_major in <sys/sysmacros.h>, a function, not a constant a table can hold)",
    ),
    (
        "decode.rs",
        "0xffff_ff00",
        "glibc's dev_t layout (gnu_dev_minor in <sys/sysmacros.h>, a function, not a constant a table can hold)",
    ),
    (
        "diag/user_events.rs",
        "USER_TOP",
        "x86_64's TASK_SIZE_MAX: kernel-internal (arch/x86), no header gives it",
    ),
    (
        "emu/user_events/supervisor/mod.rs",
        "USER_TOP",
        "x86_64's TASK_SIZE_MAX: kernel-internal (arch/x86), no header gives it",
    ),
    (
        "emu/usbmon/requests.rs",
        "USER_TOP",
        "x86_64's TASK_SIZE_MAX: kernel-internal (arch/x86), no header gives it",
    ),
    (
        "emu/user_events/supervisor/mod.rs",
        "MAX_RW_COUNT",
        "include/linux/fs.h's INT_MAX & PAGE_MASK: kernel-internal",
    ),
    (
        "emu/user_events/events.rs",
        "0xdead_beef_u32",
        "JHASH_INITVAL of the kernel's jhash (include/linux/jhash.h), whose algorithm the \
         emulation re-implements to hash event names as the kernel does",
    ),
    (
        "emu/user_events/events.rs",
        "0x61c8_8647",
        "GOLDEN_RATIO_32 of the kernel's hash_32 (include/linux/hash.h), re-implemented \
         with jhash",
    ),
    (
        "emu/usbmon/recording.rs",
        "0xa1b2_c3d4",
        "a pcap file's magic (libpcap's format)",
    ),
    (
        "emu/usbmon/recording.rs",
        "0xd4c3_b2a1",
        "a pcap file's magic, byte-swapped",
    ),
    (
        "emu/usbmon/recording.rs",
        "0xa1b2_3c4d",
        "a nanosecond pcap file's magic",
    ),
    (
        "emu/usbmon/recording.rs",
        "0x4d3c_b2a1",
        "a nanosecond pcap file's magic, byte-swapped",
    ),
];

/// Whether a file is made by a generator (its first line says so).
fn generated(text: &str) -> bool {
    text.lines()
        .next()
        .is_some_and(|l| l.contains("@generated"))
}

/// The end of the item that starts at `at` in blanked code: its matching
/// `}` when a `{` comes before any `;`, else that `;`.
fn item_end(code: &str, at: usize) -> usize {
    let b = code.as_bytes();
    let Some(open) = b[at..].iter().position(|&c| c == b'{' || c == b';') else {
        return b.len();
    };
    if b[at + open] == b';' {
        return at + open + 1;
    }
    let mut depth = 0;
    for (i, &c) in b.iter().enumerate().skip(at + open) {
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    b.len()
}

/// The code of a file without its `#[cfg(test)]` items, and the names of
/// the module files those items declare (`#[cfg(test)] mod param_names;`),
/// which are test code as a whole.
fn without_tests(code: &str) -> (String, Vec<String>) {
    let mut out = code.to_string();
    let mut test_mods = Vec::new();
    let mut from = 0;
    while let Some(n) = code[from..].find("#[cfg(test)]") {
        let at = from + n;
        let end = item_end(code, at);
        let item = code[at + "#[cfg(test)]".len()..end].trim();
        if let Some(name) = item.strip_prefix("mod ").and_then(|m| m.strip_suffix(';')) {
            test_mods.push(name.trim().to_string());
        }
        out.replace_range(at..end, &" ".repeat(end - at));
        from = end;
    }
    (out, test_mods)
}

/// Whether the hex digits (no `0x`, no `_`) read as an ioctl request code.
fn looks_like_a_request(digits: &str) -> bool {
    let Ok(v) = u32::from_str_radix(digits, 16) else {
        return false;
    };
    let (dir, size, ty) = (v >> 30, (v >> 16) & 0x3fff, (v >> 8) & 0xff);
    digits.len() == 8 && v != u32::MAX && ty != 0 && (dir != 0 && size != 0 || v >> 16 == 0)
}

/// The kernel names the generated files define: their top-level numbers
/// and the names in their tables.
fn kernel_names(files: &[(String, String)]) -> std::collections::BTreeSet<String> {
    let kernel_name = |w: &str| {
        w.len() > 1
            && w.starts_with(|c: char| c.is_ascii_uppercase() || c == '_')
            && w.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    };
    let mut names = std::collections::BTreeSet::new();
    for (path, text) in files {
        if !(path.starts_with("abi/xlat/") || path.starts_with("abi/gen_")) {
            continue;
        }
        for line in text.lines() {
            // A number (`pub const AF_INET: u16`), not a table's name.
            if let Some(rest) = line.strip_prefix("pub const ")
                && let Some((name, ty)) = rest.split_once(": ")
                && ty.starts_with(['u', 'i'])
                && kernel_name(name)
            {
                names.insert(name.to_string());
            }
            for quoted in line.split('"').skip(1).step_by(2) {
                if kernel_name(quoted) {
                    names.insert(quoted.to_string());
                }
            }
        }
    }
    names
}

/// Every typed kernel number in `files` (path under `src/`, text) that
/// [`ALLOWED`] does not list, and every entry of `allowed` that matched
/// nothing.
fn hand_numbers(files: &[(String, String)], allowed: &[(&str, &str, &str)]) -> Vec<String> {
    let known = kernel_names(files);
    let mut found = Vec::new();
    let mut used = vec![false; allowed.len()];
    // Files a `#[cfg(test)] mod x;` declares: `dir/x.rs`, or `dir/x/mod.rs`
    // and the modules under it.
    let mut test_files = Vec::new();
    for (path, text) in files {
        let (_, mods) = without_tests(&code_of(text));
        let dir = path.trim_end_matches("mod.rs").trim_end_matches(".rs");
        let dir = if path.ends_with("mod.rs") || path == "lib.rs" || path == "main.rs" {
            path.trim_end_matches("mod.rs")
                .trim_end_matches("lib.rs")
                .trim_end_matches("main.rs")
                .to_string()
        } else {
            format!("{dir}/")
        };
        test_files.extend(mods.iter().map(|m| format!("{dir}{m}.rs")));
        test_files.extend(mods.iter().map(|m| format!("{dir}{m}/")));
    }
    let test_only = |path: &str| {
        test_files
            .iter()
            .any(|t| path == t || (t.ends_with('/') && path.starts_with(t.as_str())))
    };
    for (path, text) in files {
        if path.starts_with("abi/") || generated(text) || test_only(path) {
            continue;
        }
        let (code, _) = without_tests(&code_of(text));
        let mut allow = |what: &str| {
            let hit = allowed.iter().position(|&(p, w, _)| p == path && w == what);
            if let Some(i) = hit {
                used[i] = true;
            }
            hit.is_some()
        };
        for (no, line) in code.lines().enumerate() {
            let words: Vec<&str> = line
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .collect();
            // 1. `const NAME: TYPE = 0x...;`, 3. `const AF_INET: u16 = 2;`
            if let Some(i) = words.iter().position(|&w| w == "const")
                && let Some(&name) = words.get(i + 1)
                && let Some(eq) = line.find('=')
            {
                let value = line[eq + 1..].trim_start();
                let why = if value.starts_with("0x") {
                    Some("is a hex number typed by hand")
                } else if value.starts_with(|c: char| c.is_ascii_digit()) && known.contains(name) {
                    Some("is a kernel name the generated tables know, typed by hand")
                } else {
                    None
                };
                if let Some(why) = why
                    && !allow(name)
                {
                    found.push(format!(
                        "src/{path}:{}: {name} {why}: {}",
                        no + 1,
                        line.trim()
                    ));
                }
                continue;
            }
            // 2. A request code anywhere.
            for w in words.iter().filter(|w| w.starts_with("0x")) {
                let digits: String = w[2..]
                    .chars()
                    .take_while(|&c| c != 'u' && c != 'i')
                    .filter(|&c| c != '_')
                    .collect();
                if looks_like_a_request(&digits) && !allow(w) {
                    found.push(format!(
                        "src/{path}:{}: {w} reads as an ioctl request code typed by hand: {}",
                        no + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    for (i, &(p, w, why)) in allowed.iter().enumerate() {
        if !used[i] {
            found.push(format!(
                "ALLOWED lists {w} in src/{p} ({why}), which is no longer there"
            ));
        }
    }
    found
}

#[test]
fn kernel_numbers_are_generated_not_typed() {
    let files = sources();
    assert!(files.len() > 50, "src/ was read ({} files)", files.len());
    let found = hand_numbers(&files, ALLOWED);
    assert!(
        found.is_empty(),
        "kernel numbers typed outside src/abi/: generate them (tools/abi_tables.py, \
         tools/gen_kernel_src.py; HACKING.md, \"Generated tables\") or, for a number no \
         header or kernel source gives, list it in ALLOWED with its reason:\n{}",
        found.join("\n")
    );
}

// The check itself, on made-up files: each shape must be seen.

fn file(path: &str, text: &str) -> Vec<(String, String)> {
    vec![(path.to_string(), text.to_string())]
}

#[test]
fn a_typed_request_code_or_hex_constant_is_seen() {
    let code = "/// A request.\npub const MON_IOCX_GET: u32 = 0x4018_9206;\n";
    assert_eq!(
        hand_numbers(&file("ioctl/usbmon.rs", code), &[]),
        [
            "src/ioctl/usbmon.rs:2: MON_IOCX_GET is a hex number typed by hand: \
          pub const MON_IOCX_GET: u32 = 0x4018_9206;"
        ]
    );
    let code = "fn f(c: u32) -> bool {\n    matches!(c, 0xC010_9207 | 0x0000_9204)\n}\n";
    let found = hand_numbers(&file("diag/usbmon.rs", code), &[]);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("src/diag/usbmon.rs:2: 0xC010_9207 reads as an ioctl"));
    assert!(found[1].starts_with("src/diag/usbmon.rs:2: 0x0000_9204 reads as an ioctl"));
    let code = "const X32_BIT: u64 = 0x4000_0000;\n";
    assert_eq!(hand_numbers(&file("kernel.rs", code), &[]).len(), 1);
    // A decimal number under a name the generated tables have.
    let files = vec![
        (
            "abi/xlat/net.rs".to_string(),
            "pub const FAMILIES: &[(i64, &str)] = &[\n    (2, \"AF_INET\"),\n];\n".to_string(),
        ),
        (
            "service/net.rs".to_string(),
            "const AF_INET: u16 = 2;\nconst SHOWN: u64 = 32;\n".to_string(),
        ),
    ];
    assert_eq!(
        hand_numbers(&files, &[]),
        [
            "src/service/net.rs:1: AF_INET is a kernel name the generated tables know, typed by \
          hand: const AF_INET: u16 = 2;"
        ]
    );
}

#[test]
fn masks_tests_comments_abi_and_allowed_numbers_pass() {
    let code = "// 0xC010_9207 in a comment\nfn f(a: u64) -> u64 {\n    a & 0xffff_ffff\n}\n\
                const NAME: &str = \"0x4018_9206\";\n\
                #[cfg(test)]\nmod tests {\n    const T: u32 = 0xC010_9207;\n}\n";
    assert_eq!(
        hand_numbers(&file("ioctl/mod.rs", code), &[]),
        Vec::<String>::new()
    );
    let code = "pub const MON_IOCX_GET: u32 = 0x4018_9206;\n";
    assert!(hand_numbers(&file("abi/gen_usbmon.rs", code), &[]).is_empty());
    let generated = format!("// @generated by tools/x.py\n{code}");
    assert!(hand_numbers(&file("ioctl/gen_x86_64.rs", &generated), &[]).is_empty());
    let allowed = [("fasthash.rs", "SEED", "rtrace's own")];
    let code = "const SEED: u64 = 0x9e37_79b9_7f4a_7c15;\n";
    assert!(hand_numbers(&file("fasthash.rs", code), &allowed).is_empty());
    // A test module declared as a file is test code as a whole.
    let files = vec![
        (
            "service/mod.rs".to_string(),
            "#[cfg(test)]\nmod param_names;\n".to_string(),
        ),
        (
            "service/param_names.rs".to_string(),
            "const P: u32 = 0x5356_4d41;\n".to_string(),
        ),
    ];
    assert!(hand_numbers(&files, &[]).is_empty());
}

#[test]
fn a_stale_allowance_is_reported() {
    let allowed = [("fasthash.rs", "SEED", "rtrace's own")];
    assert_eq!(
        hand_numbers(&file("fasthash.rs", "const SEED: u64 = 7;\n"), &allowed),
        ["ALLOWED lists SEED in src/fasthash.rs (rtrace's own), which is no longer there"]
    );
}
