//! `-k` / `--stack-trace` and `--stack-trace-frame-limit`: the user stack
//! after each printed call, traced against tests/fixtures/stack_trace.c,
//! whose stacks are known (main -> middle -> leaf -> getppid; main ->
//! qsort -> by_value -> getpgrp), built for x86_64 and for i386 (unwound
//! by libdw). Frame lines are compared whole, with only the offsets and
//! addresses (`+0xOFF`, `[0xADDR]`), the fixture's directory and libc's
//! path normalised.

mod common;

use common::{fixture, fixture_dir, fixture_m32, name, rtrace_env, trace, trace_env};

/// libc's path as /proc/PID/maps names it: the test binary maps the same
/// libc as the fixtures.
fn libc_path() -> String {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    maps.lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .find(|p| p.ends_with("/libc.so.6"))
        .expect("libc.so.6 in /proc/self/maps")
        .to_string()
}

/// A frame line with its offset and address normalised, the fixture's
/// directory dropped and libc's path spelled `LIBC` (the i386 libc's,
/// /usr/lib32/libc.so.6 on Debian, too).
fn frame(line: &str, libc: &str) -> String {
    let dir = format!("{}/", fixture_dir().display());
    let mut out = line.replace(&dir, "").replace(libc, "LIBC");
    if let Some(i) = out.find("  > /")
        && let Some(j) = out.find("/libc.so.6(")
        && i < j
    {
        out.replace_range(i + 4..j + "/libc.so.6".len(), "LIBC");
    }
    for (open, close, word) in [("+0x", ")", "+OFF)"), ("[0x", "]", "[ADDR]")] {
        // (`FILE(+0x0)`, a frame without a symbol, stays as it is.)
        if let Some(i) = out.find(open)
            && !out[..i].ends_with('(')
            && let Some(j) = out[i..].find(close)
            && out[i + open.len()..i + j]
                .bytes()
                .all(|b| b.is_ascii_hexdigit())
        {
            out.replace_range(i..i + j + 1, word);
        }
    }
    out
}

/// `lines` with the results of getppid and getpgrp (rtrace's pid and the
/// test's process group) checked to be numbers and spelled `N`.
fn results(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .map(|l| match l.split_once(") = ") {
            Some((call, n))
                if (call == "getppid(" || call == "getpgrp(")
                    && n.parse::<u32>().is_ok_and(|n| n > 0) =>
            {
                format!("{call}) = N")
            }
            _ => l.clone(),
        })
        .collect()
}

/// The stack lines following the first line that starts with `call`,
/// normalised.
fn stack_after(lines: &[String], call: &str, libc: &str) -> Vec<String> {
    let at = lines
        .iter()
        .position(|l| l.starts_with(call))
        .unwrap_or_else(|| panic!("no {call} in {lines:#?}"));
    lines[at + 1..]
        .iter()
        .take_while(|l| l.contains("  > "))
        .map(|l| frame(l, libc))
        .collect()
}

#[test]
fn each_call_is_followed_by_its_stack_named_from_the_symbols() {
    let bin = fixture("stack_trace");
    let run = trace(&["-k", "-e", "trace=getppid,getpgrp"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = run.lines();
    let libc = libc_path();
    // The fixture's own frames whole, innermost first: libc's wrapper,
    // leaf, middle, main; below main libc's start-up (named from its
    // exported symbols), then the fixture's _start.
    let stack = stack_after(&lines, "getppid() = ", &libc);
    assert_eq!(
        stack[..4],
        [
            "  > LIBC(getppid+OFF) [ADDR]",
            "  > stack_trace(leaf+OFF) [ADDR]",
            "  > stack_trace(middle+OFF) [ADDR]",
            "  > stack_trace(main+OFF) [ADDR]",
        ],
        "{}",
        run.trace
    );
    libc_frames_then_start(&stack[4..], &run.trace);
    // A call through libc: the comparison function qsort calls, with
    // qsort's own frames between it and main.
    let stack = stack_after(&lines, "getpgrp() = ", &libc);
    assert_eq!(
        stack[..2],
        [
            "  > LIBC(getpgrp+OFF) [ADDR]",
            "  > stack_trace(by_value+OFF) [ADDR]",
        ],
        "{}",
        run.trace
    );
    let main = stack
        .iter()
        .position(|f| f == "  > stack_trace(main+OFF) [ADDR]")
        .unwrap_or_else(|| panic!("no main in {stack:#?}"));
    assert!(main > 2, "qsort's frames: {stack:#?}");
    assert!(
        stack[2..main]
            .iter()
            .all(|f| f.starts_with("  > LIBC(") && f.ends_with("+OFF) [ADDR]")),
        "{stack:#?}"
    );
    libc_frames_then_start(&stack[main + 1..], &run.trace);
    // Nothing else is printed after a call but its stack.
    assert_eq!(lines.last().unwrap(), "Process exited normally with code 0");
}

/// What sits below main: libc's start-up frames, each named, then the
/// fixture's `_start`, the last frame.
fn libc_frames_then_start(below_main: &[String], trace: &str) {
    libc_frames_then_start_of("stack_trace", below_main, trace);
}

/// [`libc_frames_then_start`] for the fixture built as `program`.
fn libc_frames_then_start_of(program: &str, below_main: &[String], trace: &str) {
    let (start, libc) = below_main.split_last().unwrap_or_else(|| panic!("{trace}"));
    assert_eq!(
        start,
        &format!("  > {program}(_start+OFF) [ADDR]"),
        "{trace}"
    );
    assert!(!libc.is_empty(), "{trace}");
    assert!(
        libc.iter()
            .all(|f| f.starts_with("  > LIBC(") && f.ends_with("+OFF) [ADDR]")),
        "{trace}"
    );
}

#[test]
fn a_signal_is_followed_by_the_stack_it_stopped() {
    // As strace shows after `--- SIGURG ... ---`: where the signal found
    // the thread (here right after the kill that sent it).
    let bin = fixture("stack_trace");
    let run = trace(&["-k", "-e", "trace=kill"], &[name(&bin), "signal"]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let libc = libc_path();
    let lines: Vec<String> = run.lines().iter().map(|l| frame(l, &libc)).collect();
    let chain = [
        "  > LIBC(kill+OFF) [ADDR]",
        "  > stack_trace(signal_self+OFF) [ADDR]",
        "  > stack_trace(main+OFF) [ADDR]",
    ];
    assert_eq!(lines[1], "kill(PID1, SIGURG) = 0", "{}", run.trace);
    assert_eq!(lines[2..5], chain, "{}", run.trace);
    let signal = lines
        .iter()
        .position(|l| l == "** SIGURG **")
        .unwrap_or_else(|| panic!("{}", run.trace));
    assert_eq!(lines[signal + 1..signal + 4], chain, "{}", run.trace);
    let rest = &lines[signal + 4..];
    let end = rest.iter().position(|l| !l.starts_with("  > ")).unwrap();
    libc_frames_then_start(&rest[..end], &run.trace);
    assert_eq!(rest[end..], ["Process exited normally with code 0"]);
    // JSON: the signal object carries it too.
    let run = trace(
        &["--json", "-k", "-e", "trace=kill"],
        &[name(&bin), "signal"],
    );
    let signal: serde_json::Value = run
        .trace
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["type"] == "signal")
        .unwrap_or_else(|| panic!("{}", run.trace));
    let symbols: Vec<&str> = signal["stack"]
        .as_array()
        .unwrap_or_else(|| panic!("{signal}"))
        .iter()
        .map(|f| f["symbol"].as_str().unwrap())
        .collect();
    assert_eq!(symbols[..3], ["kill", "signal_self", "main"], "{signal}");
}

#[test]
fn an_execs_stack_is_the_old_images() {
    // Taken at the execve's entry, before the image goes: the program's
    // run_again called it. The started command's own execve has none (its
    // old image is rtrace's child).
    let bin = fixture("stack_trace");
    let run = trace(&["-k", "-e", "trace=execve"], &[name(&bin), "exec"]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let libc = libc_path();
    let lines: Vec<String> = run.lines().iter().map(|l| frame(l, &libc)).collect();
    assert_eq!(
        lines[1..3],
        [
            "execve(\"stack_trace\", [\"stack_trace\", \"exec\"], &ADDR /* 2 vars */)",
            "execve(\"/proc/self/exe\", [\"stack_trace\"], &ADDR /* 2 vars */)",
        ],
        "{}",
        run.trace
    );
    assert_eq!(
        lines[3..6],
        [
            "  > LIBC(execve+OFF) [ADDR]",
            "  > stack_trace(run_again+OFF) [ADDR]",
            "  > stack_trace(main+OFF) [ADDR]",
        ],
        "{}",
        run.trace
    );
    let rest = &lines[6..];
    let end = rest.iter().position(|l| !l.starts_with("  > ")).unwrap();
    libc_frames_then_start(&rest[..end], &run.trace);
    // The new image's banner (its name is /proc/self/exe's, `exe`).
    assert_eq!(
        rest[end..],
        [
            "---",
            "Tracing exe (pid PID1)",
            "Process exited normally with code 0"
        ]
    );
}

#[test]
fn frames_of_a_stripped_program_are_its_file_and_address() {
    // strace's spelling for a frame whose file has no symbol there:
    // `FILE(+0x0) [0xADDR]`; libc's exported names still show.
    let bin = fixture("stack_trace");
    let stripped = common::scratch_path("stack_trace", "stripped");
    std::fs::copy(&bin, &stripped).unwrap();
    let status = std::process::Command::new("strip")
        .arg(&stripped)
        .status()
        .expect("strip (binutils)");
    assert!(status.success());
    let path = stripped.display().to_string();
    let run = trace(&["-k", "-e", "trace=getppid"], &[&path]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let libc = libc_path();
    let lines: Vec<String> = run
        .lines()
        .iter()
        .map(|l| frame(&l.replace(&path, "STRIPPED"), &libc))
        .collect();
    assert_eq!(
        lines[2..6],
        [
            "  > LIBC(getppid+OFF) [ADDR]",
            "  > STRIPPED(+0x0) [ADDR]",
            "  > STRIPPED(+0x0) [ADDR]",
            "  > STRIPPED(+0x0) [ADDR]",
        ],
        "{}",
        run.trace
    );
    std::fs::remove_file(&stripped).unwrap();
}

/// The 1-based number of the line of tests/fixtures/stack_trace.c that
/// holds `text`.
fn source_line(text: &str) -> usize {
    let src = std::fs::read_to_string(source_path()).unwrap();
    src.lines()
        .position(|l| l.contains(text))
        .unwrap_or_else(|| panic!("{text} not in the fixture"))
        + 1
}

fn source_path() -> String {
    format!(
        "{}/tests/fixtures/stack_trace.c",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn kk_adds_each_frames_source_line_from_dwarf() {
    // Built with -g into a scratch file: the calls' own lines (the return
    // address's call, as strace's libdw finds them); libc, without DWARF
    // here, has none. `--stack-trace=source` is -kk's long form. The same
    // for an i386 build, whose first frame is the vDSO's.
    for (cflags, first) in [
        (&[][..], &[][..]),
        (&["-m32"], &["  > [vdso](__kernel_vsyscall+OFF) [ADDR]"]),
    ] {
        let bin = built_with(&[cflags, &["-g"]].concat(), "g");
        for opt in [&["-kk"][..], &["--stack-trace=source"]] {
            let lines = source_lines_of(&bin, opt);
            let mut expect: Vec<String> = first.iter().map(|s| s.to_string()).collect();
            expect.extend(fixture_source_frames());
            assert_eq!(
                lines[2..2 + expect.len()],
                expect,
                "{cflags:?} {opt:?}: {lines:#?}"
            );
        }
        std::fs::remove_file(&bin).unwrap();
    }
}

#[test]
fn kk_reads_lines_from_a_separate_debug_file() {
    // The -g build's DWARF split out with objcopy (--only-keep-debug, then
    // --strip-debug and --add-gnu-debuglink), as distributions ship it:
    // the debug file is found by its link name beside the program, then
    // in its .debug directory, as gdb and strace's libdw look. A debug
    // file whose CRC is not the link's (another build's) is not used.
    let objcopy = |args: &[&std::ffi::OsStr]| {
        let status = std::process::Command::new("objcopy")
            .args(args)
            .status()
            .expect("objcopy (binutils)");
        assert!(status.success(), "objcopy {args:?}");
    };
    for (cflags, first) in [
        (&[][..], &[][..]),
        (&["-m32"], &["  > [vdso](__kernel_vsyscall+OFF) [ADDR]"]),
    ] {
        let dir = common::scratch_path("stack_trace", "split");
        std::fs::create_dir_all(dir.join(".debug")).unwrap();
        let bin = dir.join("prog");
        std::fs::rename(built_with(&[cflags, &["-g"]].concat(), "split"), &bin).unwrap();
        let debug = dir.join("prog.debug");
        objcopy(&[
            "--only-keep-debug".as_ref(),
            bin.as_os_str(),
            debug.as_os_str(),
        ]);
        objcopy(&["--strip-debug".as_ref(), bin.as_os_str()]);
        let link = format!("--add-gnu-debuglink={}", debug.display());
        objcopy(&[link.as_ref(), bin.as_os_str()]);
        let mut expect: Vec<String> = first.iter().map(|s| s.to_string()).collect();
        expect.extend(fixture_source_frames());
        let lines = source_lines_of(&bin, &["-kk"]);
        assert_eq!(lines[2..2 + expect.len()], expect, "{cflags:?}: {lines:#?}");
        let moved = dir.join(".debug/prog.debug");
        std::fs::rename(&debug, &moved).unwrap();
        let lines = source_lines_of(&bin, &["-kk"]);
        assert_eq!(lines[2..2 + expect.len()], expect, "{cflags:?}: {lines:#?}");
        // Another build's debug file: its bytes differ, so its CRC does.
        let mut stale = std::fs::read(&moved).unwrap();
        stale.push(0);
        std::fs::write(&moved, stale).unwrap();
        let lines = source_lines_of(&bin, &["-kk"]);
        let unlined: Vec<String> = expect
            .iter()
            .map(|l| l.split(" SRC:").next().unwrap().to_string())
            .collect();
        assert_eq!(
            lines[2..2 + expect.len()],
            unlined,
            "{cflags:?}: {lines:#?}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn kk_finds_a_debug_file_by_build_id() {
    // The layout Debian's -dbgsym packages install:
    // /usr/lib/debug/.build-id/xx/rest.debug named by the program's build
    // ID note, here an ID no real file has (linked in with --build-id),
    // removed afterwards. A file there with another ID is not used.
    if !common::root_or_skip(
        "kk_finds_a_debug_file_by_build_id",
        "write access to /usr/lib/debug",
    ) {
        return;
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let id = |tag: u32| {
        format!(
            "72747261{tag:08x}{:08x}{:016x}",
            std::process::id(),
            nanos as u64
        )
    };
    let bin = built_with(&["-g", &format!("-Wl,--build-id=0x{}", id(1))], "buildid");
    let other = built_with(&["-g", &format!("-Wl,--build-id=0x{}", id(2))], "buildid");
    let hex = id(1);
    let dir = std::path::PathBuf::from(format!("/usr/lib/debug/.build-id/{}", &hex[..2]));
    std::fs::create_dir_all(&dir).unwrap();
    /// Removes the debug file (and its directory, when it made it empty).
    struct Remove(std::path::PathBuf);
    impl Drop for Remove {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
            let _ = std::fs::remove_dir(self.0.parent().unwrap());
        }
    }
    let debug = Remove(dir.join(format!("{}.debug", &hex[2..])));
    let objcopy = |args: &[&std::ffi::OsStr]| {
        let status = std::process::Command::new("objcopy")
            .args(args)
            .status()
            .expect("objcopy (binutils)");
        assert!(status.success(), "objcopy {args:?}");
    };
    objcopy(&[
        "--only-keep-debug".as_ref(),
        bin.as_os_str(),
        debug.0.as_os_str(),
    ]);
    objcopy(&["--strip-debug".as_ref(), bin.as_os_str()]);
    let expect = fixture_source_frames();
    let lines = source_lines_of(&bin, &["-kk"]);
    assert_eq!(lines[2..6], expect, "{lines:#?}");
    // Another build's debug file under this ID's name.
    objcopy(&[
        "--only-keep-debug".as_ref(),
        other.as_os_str(),
        debug.0.as_os_str(),
    ]);
    let lines = source_lines_of(&bin, &["-kk"]);
    let unlined: Vec<String> = expect
        .iter()
        .map(|l| l.split(" SRC:").next().unwrap().to_string())
        .collect();
    assert_eq!(lines[2..6], unlined, "{lines:#?}");
    drop(debug);
    std::fs::remove_file(&bin).unwrap();
    std::fs::remove_file(&other).unwrap();
}

/// The fixture compiled (-O1) with `cflags` into a fresh scratch file.
fn built_with(cflags: &[&str], tag: &str) -> std::path::PathBuf {
    let bin = common::scratch_path("stack_trace", tag);
    let status = std::process::Command::new("cc")
        .arg("-O1")
        .args(cflags)
        .arg("-o")
        .arg(&bin)
        .arg(source_path())
        .status()
        .unwrap();
    assert!(status.success(), "cc {cflags:?}");
    bin
}

/// The trace lines of `bin` run under `opt` (a -kk form) tracing getppid,
/// normalised: the program spelled `G`, the fixture's source `SRC`.
fn source_lines_of(bin: &std::path::Path, opt: &[&str]) -> Vec<String> {
    let path = bin.display().to_string();
    let src = source_path();
    let libc = libc_path();
    let mut args = opt.to_vec();
    args.extend(["-e", "trace=getppid"]);
    let run = trace(&args, &[&path]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    run.lines()
        .iter()
        .map(|l| frame(&l.replace(&path, "G").replace(&src, "SRC"), &libc))
        .collect()
}

/// libc's getppid and the fixture's three frames under it with their
/// source lines, as -kk prints them.
fn fixture_source_frames() -> [String; 4] {
    [
        "  > LIBC(getppid+OFF) [ADDR]".to_string(),
        format!(
            "  > G(leaf+OFF) [ADDR] SRC:{}",
            source_line("long r = getppid();")
        ),
        format!(
            "  > G(middle+OFF) [ADDR] SRC:{}",
            source_line("long r = leaf();")
        ),
        format!(
            "  > G(main+OFF) [ADDR] SRC:{}",
            source_line("main's call, for -kk")
        ),
    ]
}

#[test]
fn the_long_options_are_ks() {
    // strace 6.1's --stack-traces too; -k's form, no source lines.
    let bin = fixture("stack_trace");
    let libc = libc_path();
    let expect = trace(&["-k", "-e", "trace=getppid"], &[name(&bin)]).lines();
    for opt in ["--stack-trace", "--stack-trace=symbol", "--stack-traces"] {
        let run = trace(&[opt, "-e", "trace=getppid"], &[name(&bin)]);
        assert_eq!(run.code(), Some(0), "{}", run.stderr());
        let norm = |lines: &[String]| -> Vec<String> {
            results(lines).iter().map(|l| frame(l, &libc)).collect()
        };
        let lines = run.lines();
        assert_eq!(norm(&lines[1..]), norm(&expect[1..]), "{opt}");
        assert!(lines.len() > 4, "{opt}: {}", run.trace);
    }
}

#[test]
fn the_frame_limit_cuts_the_stack() {
    let bin = fixture("stack_trace");
    let run = trace(
        &["-k", "--stack-trace-frame-limit=2", "-e", "trace=getppid"],
        &[name(&bin)],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let libc = libc_path();
    let lines: Vec<String> = results(&run.lines())
        .iter()
        .map(|l| frame(l, &libc))
        .collect();
    assert_eq!(
        lines[1..],
        [
            "getppid() = N",
            "  > LIBC(getppid+OFF) [ADDR]",
            "  > stack_trace(leaf+OFF) [ADDR]",
            "  > too many stack frames",
            "Process exited normally with code 0",
        ],
        "{}",
        run.trace
    );
}

#[test]
fn json_says_when_the_frame_limit_cut_the_stack() {
    let bin = fixture("stack_trace");
    let run = trace(
        &[
            "--json",
            "-k",
            "--stack-trace-frame-limit=3",
            "-e",
            "trace=getppid",
        ],
        &[name(&bin)],
    );
    let call: serde_json::Value = run
        .trace
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["name"] == "getppid")
        .unwrap_or_else(|| panic!("{}", run.trace));
    let symbols: Vec<&str> = call["stack"]
        .as_array()
        .unwrap_or_else(|| panic!("{call}"))
        .iter()
        .map(|f| f["symbol"].as_str().unwrap())
        .collect();
    assert_eq!(symbols, ["getppid", "leaf", "middle"], "{call}");
    assert_eq!(call["stack_truncated"], true, "{call}");
}

#[test]
fn each_process_prints_its_own_stack_under_its_prefix() {
    let bin = fixture("stack_trace");
    let run = trace(&["-f", "-k", "-e", "trace=getppid"], &[name(&bin), "fork"]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let libc = libc_path();
    let lines = run.lines();
    let stack = stack_after(&lines, "PID2| getppid() = ", &libc);
    assert_eq!(
        stack[..4],
        [
            "PID2|   > LIBC(getppid+OFF) [ADDR]",
            "PID2|   > stack_trace(leaf+OFF) [ADDR]",
            "PID2|   > stack_trace(middle+OFF) [ADDR]",
            "PID2|   > stack_trace(main+OFF) [ADDR]",
        ],
        "{}",
        run.trace
    );
}

#[test]
fn json_calls_carry_their_stack_as_frames() {
    let bin = fixture("stack_trace");
    let run = trace(&["--json", "-k", "-e", "trace=getppid"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let call: serde_json::Value = run
        .trace
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["name"] == "getppid")
        .unwrap_or_else(|| panic!("{}", run.trace));
    let stack = call["stack"].as_array().unwrap_or_else(|| panic!("{call}"));
    let libc = libc_path();
    let path = bin.display().to_string();
    let named: Vec<(&str, &str)> = stack
        .iter()
        .map(|f| (f["module"].as_str().unwrap(), f["symbol"].as_str().unwrap()))
        .collect();
    assert_eq!(
        named[..4],
        [
            (libc.as_str(), "getppid"),
            (path.as_str(), "leaf"),
            (path.as_str(), "middle"),
            (path.as_str(), "main"),
        ],
        "{call}"
    );
    assert_eq!(named.last(), Some(&(path.as_str(), "_start")), "{call}");
    assert_eq!(call.get("stack_truncated"), None, "{call}");
    // Offsets and addresses are numbers, as the text's hex: the text of
    // the same run would show `leaf+0x{offset}` at `[0x{address}]`.
    for f in stack {
        assert!(f["offset"].as_u64().is_some(), "{f}");
        assert!(f["address"].as_u64().is_some_and(|a| a > 0), "{f}");
        assert_eq!(f.as_object().unwrap().len(), 4, "{f}");
    }
}

#[test]
fn cxx_and_rust_names_are_demangled_as_strace_shows_them() {
    // C functions given mangled symbol names (asm labels): Debian's strace,
    // built with its demangler, shows these very lines. JSON's symbol is
    // the demangled name too.
    let bin = fixture("stack_trace");
    let libc = libc_path();
    let run = trace(&["-k", "-e", "trace=getppid"], &[name(&bin), "mangled"]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let stack = stack_after(&run.lines(), "getppid() = ", &libc);
    assert_eq!(
        stack[..4],
        [
            "  > LIBC(getppid+OFF) [ADDR]",
            "  > stack_trace(foo::leaf(int)+OFF) [ADDR]",
            "  > stack_trace(rtest::middle+OFF) [ADDR]",
            "  > stack_trace(main+OFF) [ADDR]",
        ],
        "{}",
        run.trace
    );
    let run = trace(
        &["--json", "-k", "-e", "trace=getppid"],
        &[name(&bin), "mangled"],
    );
    let call: serde_json::Value = run
        .trace
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["name"] == "getppid")
        .unwrap_or_else(|| panic!("{}", run.trace));
    assert_eq!(call["stack"][1]["symbol"], "foo::leaf(int)", "{call}");
    assert_eq!(call["stack"][2]["symbol"], "rtest::middle", "{call}");
}

#[test]
fn a_call_the_vdso_makes_is_named_from_its_image_and_unwound_through_it() {
    // The vDSO has no file: its image in the process's memory names its
    // frame, and its CFI leads on to libc's clock_gettime and the
    // fixture's frames (Debian's strace shows `[vdso]()` and loses the
    // stack after libc's frame).
    let bin = fixture("stack_trace");
    let libc = libc_path();
    let run = trace(&["-k", "-e", "trace=clock_gettime"], &[name(&bin), "clock"]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let stack = stack_after(
        &run.lines(),
        "clock_gettime(CLOCK_PROCESS_CPUTIME_ID, ",
        &libc,
    );
    // The vDSO's own name for its function differs between kernels
    // (`clock_gettime`, `__vdso_clock_gettime`).
    assert!(
        stack[0].starts_with("  > [vdso](") && stack[0].contains("clock_gettime+OFF) [ADDR]"),
        "{}",
        run.trace
    );
    assert_eq!(
        stack[1..4],
        [
            "  > LIBC(clock_gettime+OFF) [ADDR]",
            "  > stack_trace(read_clock+OFF) [ADDR]",
            "  > stack_trace(main+OFF) [ADDR]",
        ],
        "{}",
        run.trace
    );
    libc_frames_then_start(&stack[4..], &run.trace);
}

#[test]
fn i386_stacks_are_unwound_by_libdw_and_named_alike() {
    // A 32-bit program's calls go through the vDSO's __kernel_vsyscall,
    // named from the vDSO's own symbols; then libc's wrapper and the
    // fixture's frames, as x86_64's.
    let bin = fixture_m32("stack_trace");
    let run = trace(&["-k", "-e", "trace=getppid,getpgrp"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = run.lines();
    let libc = libc_path();
    let stack = stack_after(&lines, "getppid() = ", &libc);
    assert_eq!(
        stack[..5],
        [
            "  > [vdso](__kernel_vsyscall+OFF) [ADDR]",
            "  > LIBC(getppid+OFF) [ADDR]",
            "  > stack_trace_m32(leaf+OFF) [ADDR]",
            "  > stack_trace_m32(middle+OFF) [ADDR]",
            "  > stack_trace_m32(main+OFF) [ADDR]",
        ],
        "{}",
        run.trace
    );
    libc_frames_then_start_of("stack_trace_m32", &stack[5..], &run.trace);
    let stack = stack_after(&lines, "getpgrp() = ", &libc);
    assert_eq!(
        stack[..3],
        [
            "  > [vdso](__kernel_vsyscall+OFF) [ADDR]",
            "  > LIBC(getpgrp+OFF) [ADDR]",
            "  > stack_trace_m32(by_value+OFF) [ADDR]",
        ],
        "{}",
        run.trace
    );
    let main = stack
        .iter()
        .position(|f| f == "  > stack_trace_m32(main+OFF) [ADDR]")
        .unwrap_or_else(|| panic!("no main in {stack:#?}"));
    assert!(main > 3, "qsort's frames: {stack:#?}");
    assert!(
        stack[3..main]
            .iter()
            .all(|f| f.starts_with("  > LIBC(") && f.ends_with("+OFF) [ADDR]")),
        "{stack:#?}"
    );
    libc_frames_then_start_of("stack_trace_m32", &stack[main + 1..], &run.trace);
    assert_eq!(lines.last().unwrap(), "Process exited normally with code 0");
}

#[test]
fn i386_frames_show_the_return_address_and_the_calls_function() {
    // As for x86_64: a caller's frame shows the return address itself
    // (the instruction after the call, in the file's own addresses) and
    // is named by the call's function. The JSON's numbers say it exactly:
    // leaf's frame sits right after its call to getppid.
    let bin = fixture_m32("stack_trace");
    let run = trace(&["--json", "-k", "-e", "trace=getppid"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let call: serde_json::Value = run
        .trace
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["name"] == "getppid")
        .unwrap_or_else(|| panic!("{}", run.trace));
    let stack = call["stack"].as_array().unwrap_or_else(|| panic!("{call}"));
    let symbols: Vec<&str> = stack
        .iter()
        .map(|f| f["symbol"].as_str().unwrap())
        .collect();
    assert_eq!(
        symbols[..5],
        ["__kernel_vsyscall", "getppid", "leaf", "middle", "main"],
        "{call}"
    );
    assert_eq!(symbols.last(), Some(&"_start"), "{call}");
    assert_eq!(call.get("stack_error"), None, "{call}");
    // objdump names the instruction after leaf's call.
    let out = std::process::Command::new("objdump")
        .args(["-d", "--no-show-raw-insn"])
        .arg(&bin)
        .output()
        .expect("objdump (binutils)");
    let text = String::from_utf8_lossy(&out.stdout);
    let after_call = after_call_in(&text, "leaf", "getppid")
        .unwrap_or_else(|| panic!("no call to getppid in leaf:\n{text}"));
    assert_eq!(stack[2]["address"].as_u64(), Some(after_call), "{call}");
}

/// The address of the instruction after `function`'s call to `callee`
/// in `objdump -d` text.
fn after_call_in(objdump: &str, function: &str, callee: &str) -> Option<u64> {
    let body = objdump.split(&format!("<{function}>:\n")).nth(1)?;
    let mut lines = body.lines().take_while(|l| !l.is_empty());
    lines.find(|l| l.contains("call") && l.contains(&format!("<{callee}")))?;
    let next = lines.next()?;
    u64::from_str_radix(next.trim().split(':').next()?, 16).ok()
}

#[test]
fn a_garbage_stack_pointer_ends_the_stack_at_its_frame() {
    // The fixture's `smashed` makes getppid itself with its stack and
    // frame pointers pointing nowhere: both unwinders name the frame the
    // call is in and stop there, for either arch.
    for (bin, program) in [
        (fixture("stack_trace"), "stack_trace"),
        (fixture_m32("stack_trace"), "stack_trace_m32"),
    ] {
        let run = trace(&["-k", "-e", "trace=getppid"], &[name(&bin), "smashed"]);
        assert_eq!(run.code(), Some(0), "{}", run.stderr());
        let libc = libc_path();
        let lines: Vec<String> = results(&run.lines())
            .iter()
            .map(|l| frame(l, &libc))
            .collect();
        assert_eq!(
            lines[1..],
            [
                "getppid() = N".to_string(),
                format!("  > {program}(smashed+OFF) [ADDR]"),
                "Process exited normally with code 0".to_string(),
            ],
            "{}",
            run.trace
        );
    }
}

#[test]
fn without_libdw_i386_calls_say_so_in_one_line() {
    // RTRACE_LIBDW names the library to load in its place: one that is
    // not there stands for a machine without elfutils.
    let bin = fixture_m32("stack_trace");
    let env = [("RTRACE_LIBDW", "/nonexistent/libdw.so.1")];
    let run = trace_env(&["-k", "-e", "trace=getppid,getpgrp"], &[name(&bin)], &env);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    const NOTE: &str = "  > (stack not unwound: i386 stacks need elfutils' libdw.so.1, not found)";
    assert_eq!(
        results(&run.lines())[1..],
        [
            "getppid() = N",
            NOTE,
            "getpgrp() = N",
            NOTE,
            "Process exited normally with code 0",
        ],
        "{}",
        run.trace
    );
    let run = trace_env(
        &["--json", "-k", "-e", "trace=getppid"],
        &[name(&bin)],
        &env,
    );
    let call: serde_json::Value = run
        .trace
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["name"] == "getppid")
        .unwrap_or_else(|| panic!("{}", run.trace));
    assert_eq!(
        call["stack_error"], "stack not unwound: i386 stacks need elfutils' libdw.so.1, not found",
        "{call}"
    );
    assert_eq!(call.get("stack"), None, "{call}");
    // A 64-bit program does not need it.
    let bin = fixture("stack_trace");
    let run = trace_env(&["-k", "-e", "trace=getppid"], &[name(&bin)], &env);
    let lines = run.lines();
    assert_eq!(
        stack_after(&lines, "getppid() = ", &libc_path())[1],
        "  > stack_trace(leaf+OFF) [ADDR]",
        "{}",
        run.trace
    );
}

#[test]
fn bpf_refuses_stack_traces_in_one_line() {
    for args in [
        &["--bpf", "-k", "true"][..],
        &["--bpf", "--stack-trace", "true"],
    ] {
        let out = rtrace_env().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "rtrace: -k (--stack-trace) is for the ptrace engine: --bpf never stops the tracee, so its stack is gone by the time rtrace reads it\n",
            "{args:?}"
        );
    }
}

#[test]
fn a_zero_frame_limit_is_refused() {
    let out = rtrace_env()
        .args(["-k", "--stack-trace-frame-limit=0", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err,
        "rtrace: invalid value '0' for '--stack-trace-frame-limit <N>': 0 is not in 1..18446744073709551615 (see rtrace --help)\n"
    );
}
