//! user_events decoding against a userspace emulation of
//! user_events_data with the kernel's semantics (tests/fixtures/uevents_*):
//! registrations in all three struct layouts, writes decoded by the
//! registered fields, unregistration, deletion, and the same calls on a
//! plain file where the ioctls fail.

mod common;

use common::{Emulator, diagnostics, fixture, s, trace, trace_env};

const REG_PROBE: &str = "ioctl(3, DIAG_IOCSREG, {size=28, enable_bit=31, enable_size=4, flags=0, enable_addr=&ADDR, name_args=\"rtrace_probe u32 count;char[8] tag\"})";

#[test]
fn registrations_writes_and_deletes_with_events_enabled() {
    let emu = Emulator::start(
        "uevents_emu",
        &["--enable", "rtrace_probe", "--enable", "rtrace_multi"],
    );
    fixture("uevents_producer");
    let run = trace_env(
        &[],
        &["uevents_producer"],
        &[("UEVENTS_EMU_SOCKET", emu.socket())],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = run.after_marker();
    let expected = [
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
        "openat(AT_FDCWD, \"/sys/kernel/tracing/user_events_data\", O_RDWR|O_CLOEXEC) = 3",
        &format!("{REG_PROBE} = 0 {{write_index=0}}"),
        "ioctl(3, DIAG_IOCSREG, {size=28, enable_bit=31, enable_size=4, flags=0, enable_addr=&ADDR, name_args=\"rtrace_multi s64 a;u16 b;unsigned char c;__data_loc char[] msg;__rel_loc char[] note\"}) = 0 {write_index=1}",
        "ioctl(3, DIAG_IOCSREG, {size=28, enable_bit=0, enable_size=4, flags=0, enable_addr=&ADDR, name_args=\"rtrace_probe u32 count;char[8] tag\"}) = 0 {write_index=0}",
        &format!("{REG_PROBE} = -1 [EADDRINUSE]"),
        "** user_events: fd 3: DIAG_IOCSREG refused (EADDRINUSE): bit 31 at &ADDR is already the enable bit of <rtrace_probe> (fd 3, write_index 0); each registration needs its own bit **",
        "ioctl(3, DIAG_IOCSREG, {size=28, enable_bit=31, enable_size=4, flags=0, enable_addr=&ADDR, name_args=\"rtrace_probe u64 count\"}) = -1 [EADDRINUSE]",
        "** user_events: fd 3: DIAG_IOCSREG refused (EADDRINUSE): event <rtrace_probe> exists with other fields (u32 count;char[8] tag); USER_EVENT_REG_MULTI_FORMAT allows several **",
        // Writes of enabled events with the right payloads: no diagnostic.
        "write(3, {write_index=0 <rtrace_probe>, count=5, tag=\"abc\"}, 16) = 16",
        "writev(3, [{write_index=0 <rtrace_probe>}, {count=7, tag=\"xyz\"}], 2) = 16",
        "write(3, {write_index=1 <rtrace_multi>, a=-42, b=48879, c=200, msg=\"hello\", note=\"world!\"}, 36) = 36",
        "write(3, {write_index=1 <rtrace_multi>, a=-42, b=48879, c=200, msg=<bad loc 0x40001b>, note=\"world!\"}, 36) = -1 [EFAULT]",
        "** user_events: fd 3: write_index 1 <rtrace_multi>: __data_loc msg (offset 27, size 64) ends at payload byte 83, past the 32-byte payload: the kernel refuses it (EFAULT) while the event is enabled **",
        "write(3, {write_index=0 <rtrace_probe>, count=5, ..}, 8) = -1 [EINVAL]",
        "** user_events: fd 3: write_index 0 <rtrace_probe>: a payload of 4 bytes, its fields need 12 (tag @4 is cut): refused (EINVAL) **",
        "write(3, {write_index=7 <unknown>, raw=\"\\5\\0\\0\\0a\\0\\0\\0\\0\\0\\0\\0\"}, 16) = -1 [ENOENT]",
        "** user_events: fd 3: write_index 7 was never registered on this fd (registered: write_index 0 <rtrace_probe>, write_index 1 <rtrace_multi>): refused (ENOENT) **",
        "write(3, {write_index=4294967295 <unknown>, raw=\"\\5\\0\\0\\0a\\0\\0\\0\\0\\0\\0\\0\"}, 16) = -1 [EINVAL]",
        "** user_events: fd 3: write_index -1 is negative: refused (EINVAL) **",
        "write(3, \"\\0\\0\", 2) = -1 [EFAULT]",
        "** user_events: fd 3: a write of 2 bytes has no 4-byte write_index: refused (EFAULT) **",
        "ioctl(3, DIAG_IOCSREG, {size=28, enable_bit=31, enable_size=3, flags=0, enable_addr=&ADDR, name_args=\"rtrace_probe u32 count;char[8] tag\"}) = -1 [EINVAL]",
        "** user_events: fd 3: DIAG_IOCSREG refused (EINVAL): enable_size 3 is not 4 or 8 (the enable word is a u32 or a u64) **",
        "ioctl(3, DIAG_IOCSREG, {size=28, enable_bit=31, enable_size=4, flags=0, enable_addr=&ADDR, name_args=\"rtrace_probe u32 count;char[8] tag\"}) = -1 [EINVAL]",
        "** user_events: fd 3: DIAG_IOCSREG refused (EINVAL): enable_addr &ADDR is not aligned to its enable_size 4 **",
        "ioctl(3, DIAG_IOCSREG, {size=28, enable_bit=32, enable_size=4, flags=0, enable_addr=&ADDR, name_args=\"rtrace_probe u32 count;char[8] tag\"}) = -1 [EINVAL]",
        "** user_events: fd 3: DIAG_IOCSREG refused (EINVAL): enable_bit 32 does not fit a 4-byte enable word (bits 0 to 31) **",
        "ioctl(3, DIAG_IOCSREG, {size=20, name_args=&ADDR}) = -1 [EINVAL]",
        "** user_events: fd 3: DIAG_IOCSREG refused (EINVAL): size 20 is the struct user_reg of Linux 6.1 to 6.3; since 6.4 it has 28 bytes (enable_bit, enable_size, flags, enable_addr) **",
        "ioctl(3, DIAG_IOCSREG, {size=28, enable_bit=31, enable_size=4, flags=0, enable_addr=&ADDR, name_args=\"bad long x\"}) = -1 [EINVAL]",
        "** user_events: fd 3: DIAG_IOCSREG refused (EINVAL): the command is malformed: field 'long x': 'long' is rejected by the kernel (its size depends on the ABI) **",
    ];
    assert_eq!(lines[..expected.len()], s(&expected));
    for line in [
        "ioctl(3, DIAG_IOCSREG, {size=28, enable_bit=31, enable_size=4, flags=USER_EVENT_REG_PERSIST, enable_addr=&ADDR, name_args=\"rtrace_keep u32 v\"}) = 0 {write_index=2}",
        "write(3, {write_index=0 <rtrace_probe>, count=5, tag=\"abc\"}, 16) = -1 [EBADF]",
        "ioctl(3, DIAG_IOCSUNREG, {size=16, disable_bit=31, disable_addr=&ADDR}) = 0",
        "ioctl(3, DIAG_IOCSUNREG, {size=16, disable_bit=31, disable_addr=&ADDR}) = -1 [ENOENT]",
        "ioctl(3, DIAG_IOCSUNREG, {size=16, disable_bit=31, __reserved=1, disable_addr=&ADDR}) = -1 [EINVAL]",
        "ioctl(3, DIAG_IOCSDEL, \"rtrace_probe\") = -1 [EBUSY]",
        "open(\"/sys/kernel/debug/tracing/user_events_data\", O_RDWR) = 3",
        "ioctl(3, DIAG_IOCSDEL, \"rtrace_keep\") = 0",
        "ioctl(3, DIAG_IOCSDEL, \"rtrace_keep\") = -1 [ENOENT]",
    ] {
        assert!(
            lines.contains(&line.to_string()),
            "missing {line}\n{lines:#?}"
        );
    }
    for (call, diag) in [
        // The program writes without looking at its enable bit.
        (
            "write(3, {write_index=0 <rtrace_probe>, count=5, tag=\"abc\"}, 16) = -1 [EBADF]",
            "** user_events: fd 3: a write of write_index 0 <rtrace_probe> while it is disabled (bit 31 of the enable word at &ADDR is clear): the kernel drops it (EBADF) **",
        ),
        (
            "ioctl(3, DIAG_IOCSUNREG, {size=16, disable_bit=31, disable_addr=&ADDR}) = -1 [ENOENT]",
            "** user_events: fd 3: DIAG_IOCSUNREG refused (ENOENT): bit 31 at &ADDR was unregistered already; it is no longer an enable bit **",
        ),
        (
            "ioctl(3, DIAG_IOCSUNREG, {size=16, disable_bit=31, __reserved=1, disable_addr=&ADDR}) = -1 [EINVAL]",
            "** user_events: fd 3: DIAG_IOCSUNREG refused (EINVAL): __reserved and __reserved2 must be zero **",
        ),
        (
            "ioctl(3, DIAG_IOCSDEL, \"rtrace_probe\") = -1 [EBUSY]",
            "** user_events: fd 3: DIAG_IOCSDEL \"rtrace_probe\" refused (EBUSY): fd 3 (write_index 0) still holds it: close it first **",
        ),
        (
            "ioctl(3, DIAG_IOCSDEL, \"rtrace_multi\") = -1 [EBUSY]",
            "** user_events: fd 3: DIAG_IOCSDEL \"rtrace_multi\" refused (EBUSY): fd 3 (write_index 1) still holds it: close it first **",
        ),
    ] {
        assert_followed_by(&lines, call, diag);
    }
    // After the close nothing holds the events: the rest is right.
    let reopened = lines
        .iter()
        .position(|l| l.starts_with("open(\"/sys/kernel/debug/tracing/user_events_data\""))
        .unwrap();
    assert_eq!(diagnostics(&lines[reopened..]), Vec::<String>::new());
    assert_eq!(lines.last().unwrap(), "Process exited normally with code 0");
}

/// `call` is in the trace, and `diag` is the line right after it.
fn assert_followed_by(lines: &[String], call: &str, diag: &str) {
    assert!(
        lines.windows(2).any(|w| w[0] == call && w[1] == diag),
        "missing\n  {call}\n  {diag}\nin {lines:#?}"
    );
}

#[test]
fn writes_fail_ebadf_when_no_tracer_enabled_the_events() {
    let emu = Emulator::start("uevents_emu", &[]);
    fixture("uevents_producer");
    let run = trace_env(
        &[],
        &["uevents_producer"],
        &[("UEVENTS_EMU_SOCKET", emu.socket())],
    );
    let lines = run.after_marker();
    for line in [
        "write(3, {write_index=0 <rtrace_probe>, count=5, tag=\"abc\"}, 16) = -1 [EBADF]",
        "writev(3, [{write_index=0 <rtrace_probe>}, {count=7, tag=\"xyz\"}], 2) = -1 [EBADF]",
        "write(3, {write_index=1 <rtrace_multi>, a=-42, b=48879, c=200, msg=\"hello\", note=\"world!\"}, 36) = -1 [EBADF]",
    ] {
        assert!(
            lines.contains(&line.to_string()),
            "missing {line}\n{lines:#?}"
        );
    }
    // A producer that writes without looking at its enable bits.
    let probe = "** user_events: fd 3: a write of write_index 0 <rtrace_probe> while it is disabled (bit 31 of the enable word at &ADDR is clear): the kernel drops it (EBADF) **";
    let multi = "** user_events: fd 3: a write of write_index 1 <rtrace_multi> while it is disabled (bit 31 of the enable word at &ADDR is clear): the kernel drops it (EBADF) **";
    assert_followed_by(
        &lines,
        "write(3, {write_index=0 <rtrace_probe>, count=5, tag=\"abc\"}, 16) = -1 [EBADF]",
        probe,
    );
    assert_followed_by(
        &lines,
        "writev(3, [{write_index=0 <rtrace_probe>}, {count=7, tag=\"xyz\"}], 2) = -1 [EBADF]",
        probe,
    );
    assert_followed_by(
        &lines,
        "write(3, {write_index=1 <rtrace_multi>, a=-42, b=48879, c=200, msg=\"hello\", note=\"world!\"}, 36) = -1 [EBADF]",
        multi,
    );
    // Disabled and a bad __data_loc: both said, in the kernel's order.
    let at = lines
        .iter()
        .position(|l| l.contains("msg=<bad loc 0x40001b>"))
        .unwrap();
    assert_eq!(lines[at + 1], multi);
    assert_eq!(
        lines[at + 2],
        "** user_events: fd 3: write_index 1 <rtrace_multi>: __data_loc msg (offset 27, size 64) ends at payload byte 83, past the 32-byte payload: the kernel refuses it (EFAULT) while the event is enabled **"
    );
}

#[test]
fn verbose_registrations_show_the_parsed_command() {
    let emu = Emulator::start("uevents_emu", &["--enable", "rtrace_probe"]);
    fixture("uevents_producer");
    let run = trace_env(
        &["-v"],
        &["uevents_producer"],
        &[("UEVENTS_EMU_SOCKET", emu.socket())],
    );
    let lines = run.after_marker();
    let at = lines.iter().position(|l| l.starts_with(REG_PROBE)).unwrap();
    assert_eq!(
        lines[at + 1],
        "  > event \"rtrace_probe\": u32 count @0 (4 bytes); char[8] tag @4 (8 bytes)"
    );
    let bad = lines
        .iter()
        .position(|l| l.contains("\"bad long x\""))
        .unwrap();
    assert!(
        !lines[bad + 1].starts_with("  >"),
        "a failed call has no extended result"
    );
}

#[test]
fn old_layouts_are_told_apart_by_size() {
    for (abi, outs) in [("6.1", "status_bit"), ("5.18", "status_index")] {
        let emu = Emulator::start("uevents_emu", &["--abi", abi]);
        fixture("uevents_old_abi");
        let run = trace_env(
            &[],
            &["uevents_old_abi", abi],
            &[("UEVENTS_EMU_SOCKET", emu.socket())],
        );
        assert_eq!(run.code(), Some(0), "{abi}: {}", run.stderr());
        let lines = run.after_marker();
        let size = if abi == "6.1" { 20 } else { 24 };
        let error = if abi == "6.1" { "EINVAL" } else { "EFAULT" };
        for line in [
            format!("ioctl(3, DIAG_IOCSREG, {{size={size}, name_args=\"rtrace_old u32 v;char[4] t\"}}) = 0 {{{outs}=1, write_index=0}}"),
            format!("ioctl(3, DIAG_IOCSREG, {{size={size}, name_args=\"rtrace_old2 u64 x\"}}) = 0 {{{outs}=2, write_index=1}}"),
            format!("ioctl(3, DIAG_IOCSREG, {{size=12, ..}}) = -1 [{error}]"),
            "write(3, {write_index=0 <rtrace_old>, v=9, t=\"ab\"}, 12) = 12".to_string(),
            "ioctl(3, DIAG_IOCSUNREG, {size=16, disable_bit=31, disable_addr=&0x1000}) = -1 [ENOTTY]".to_string(),
            "ioctl(3, DIAG_IOCSDEL, \"rtrace_old\") = -1 [EBUSY]".to_string(),
        ] {
            assert!(lines.contains(&line), "{abi}: missing {line}\n{lines:#?}");
        }
        // The kernel is told by the layout that worked: a 6.1 kernel wants
        // 20 bytes at least; 5.18 had no minimum (EFAULT is a short read).
        let short = format!("ioctl(3, DIAG_IOCSREG, {{size=12, ..}}) = -1 [{error}]");
        let at = lines.iter().position(|l| *l == short).unwrap();
        if abi == "6.1" {
            assert_eq!(
                lines[at + 1],
                "** user_events: fd 3: DIAG_IOCSREG refused (EINVAL): size 12 is smaller than this kernel's struct user_reg (20 bytes, Linux 6.1 to 6.3) **"
            );
        } else {
            assert!(!lines[at + 1].starts_with("** "), "{}", lines[at + 1]);
        }
        // Correct registrations and writes on old kernels say nothing.
        let first_error = lines.iter().position(|l| l.contains("= -1")).unwrap();
        assert_eq!(diagnostics(&lines[..first_error]), Vec::<String>::new());
        assert_followed_by(
            &lines,
            "write(3, {write_index=5 <unknown>, raw=\"\\t\\0\\0\\0ab\\0\\0\"}, 12) = -1 [ENOENT]",
            "** user_events: fd 3: write_index 5 was never registered on this fd (registered: write_index 0 <rtrace_old>, write_index 1 <rtrace_old2>): refused (ENOENT) **",
        );
    }
}

#[test]
fn diagnostics_of_a_wrong_producer() {
    let emu = Emulator::start(
        "uevents_emu",
        &["--enable", "rtrace_probe", "--enable", "rtrace_rel"],
    );
    fixture("uevents_misuse");
    let run = trace_env(
        &[],
        &["uevents_misuse"],
        &[("UEVENTS_EMU_SOCKET", emu.socket())],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let reg = |fd: u32, bit: u32, flags: &str, addr: &str, command: &str| {
        format!(
            "ioctl({fd}, DIAG_IOCSREG, {{size=28, enable_bit={bit}, enable_size=4, flags={flags}, enable_addr={addr}, name_args=\"{command}\"}})"
        )
    };
    let probe = "rtrace_probe u32 count;char[8] tag";
    let expected = [
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]".to_string(),
        "openat(AT_FDCWD, \"/sys/kernel/tracing/user_events_data\", O_RDWR|O_CLOEXEC) = 3".to_string(),
        format!("{} = 0 {{write_index=0}}", reg(3, 31, "0", "&ADDR", probe)),
        "ioctl(3, DIAG_IOCSUNREG, {size=16, disable_bit=31, disable_addr=&ADDR}) = 0".to_string(),
        "write(3, {write_index=0 <rtrace_probe>, count=5, tag=\"abc\"}, 16) = 16".to_string(),
        "** user_events: fd 3: a write of write_index 0 <rtrace_probe> after DIAG_IOCSUNREG removed its enable bit: the program no longer learns whether the event is enabled **".to_string(),
        format!("{} = -1 [EINVAL]", reg(3, 31, "0x4", "&ADDR", probe)),
        "** user_events: fd 3: DIAG_IOCSREG refused (EINVAL): unknown flags 0x4 (USER_EVENT_REG_PERSIST is 1, USER_EVENT_REG_MULTI_FORMAT 2) **".to_string(),
        format!("{} = -1 [EFAULT]", reg(3, 31, "0", "&ADDR", probe)),
        "** user_events: fd 3: DIAG_IOCSREG refused (EFAULT): enable_addr &ADDR is not a user-space address **".to_string(),
        format!(
            "{} = -1 [EINVAL]",
            reg(3, 31, "0", "&ADDR", "rtrace_probe:BPF_ITER u32 count;char[8] tag")
        ),
        "** user_events: fd 3: DIAG_IOCSREG refused (EINVAL): \":BPF_ITER\" after the name: the kernel takes no flags in the command **".to_string(),
        "ioctl(3, DIAG_IOCSUNREG, {size=16, disable_bit=5, disable_addr=&ADDR}) = -1 [ENOENT]".to_string(),
        "** user_events: fd 3: DIAG_IOCSUNREG refused (ENOENT): this process registered no enable bit 5 at &ADDR **".to_string(),
        format!(
            "{} = 0 {{write_index=1}}",
            reg(3, 31, "0", "&ADDR", "rtrace_rel __rel_loc char[] note")
        ),
        format!(
            "{} = 0 {{write_index=2}}",
            reg(3, 31, "0", "&ADDR", "rtrace_dl __data_loc char[] msg")
        ),
        "write(3, {write_index=1 <rtrace_rel>, note=\"abc\"}, 12) = -1 [EFAULT]".to_string(),
        "** user_events: fd 3: write_index 1 <rtrace_rel>: __rel_loc note (offset 0, size 3) does not end in a NUL byte: the kernel refuses it (EFAULT) while the event is enabled **".to_string(),
        "write(3, {write_index=2 <rtrace_dl>, msg=<bad loc 0x30004>}, 11) = -1 [EBADF]".to_string(),
        "** user_events: fd 3: a write of write_index 2 <rtrace_dl> while it is disabled (bit 31 of the enable word at &ADDR is clear): the kernel drops it (EBADF) **".to_string(),
        "** user_events: fd 3: write_index 2 <rtrace_dl>: __data_loc msg (offset 4) points into the record's 8-byte header; __data_loc offsets count from the record's start, payload byte 0 is offset 8 **".to_string(),
        "openat(AT_FDCWD, \"/sys/kernel/tracing/user_events_data\", O_RDWR|O_CLOEXEC) = 4".to_string(),
        format!(
            "{} = 0 {{write_index=0}}",
            reg(4, 0, "0", "&ADDR", "rtrace_other u32 v")
        ),
        "ioctl(3, DIAG_IOCSDEL, \"rtrace_other\") = -1 [EBUSY]".to_string(),
        "** user_events: fd 3: DIAG_IOCSDEL \"rtrace_other\" refused (EBUSY): fd 4 (write_index 0) still holds it: close it first **".to_string(),
        "close(4) = 0".to_string(),
        "close(3) = 0".to_string(),
        "exit_group(0)".to_string(),
        "Process exited normally with code 0".to_string(),
    ];
    assert_eq!(run.after_marker(), expected);

    // -e diag=none and -e diag=usbmon: the same calls, no diagnostic.
    for set in ["diag=none", "diag=usbmon"] {
        let emu = Emulator::start(
            "uevents_emu",
            &["--enable", "rtrace_probe", "--enable", "rtrace_rel"],
        );
        let run = trace_env(
            &["-e", set],
            &["uevents_misuse"],
            &[("UEVENTS_EMU_SOCKET", emu.socket())],
        );
        let without: Vec<String> = expected
            .iter()
            .filter(|l| !l.starts_with("** "))
            .cloned()
            .collect();
        assert_eq!(run.after_marker(), without, "-e {set}");
    }
}

/// Under both engines: the BPF engine copies the command string behind
/// `name_args` (`ioctl::user_events::NAME_ARGS`, a pointed array), which
/// it showed as its address.
#[test]
fn on_a_plain_file_the_out_half_decodes_and_the_in_half_prints_nothing() {
    for engine in [&[][..], &["--bpf"]] {
        on_a_plain_file_under(engine);
    }
}

fn on_a_plain_file_under(engine: &[&str]) {
    fixture("uevents_plainfile");
    let lines = trace(engine, &["uevents_plainfile"]).after_marker();
    assert_eq!(
        lines[1..5],
        s(&[
            "openat(AT_FDCWD, \"/dev/null\", O_RDWR|O_CLOEXEC) = 3",
            "ioctl(3, DIAG_IOCSREG, {size=28, enable_bit=31, enable_size=4, flags=0, enable_addr=&ADDR, name_args=\"rtrace_probe u32 count;char[8] tag\"}) = -1 [ENOTTY]",
            "ioctl(3, DIAG_IOCSUNREG, {size=16, disable_bit=31, disable_addr=&ADDR}) = -1 [ENOTTY]",
            "ioctl(3, DIAG_IOCSDEL, \"rtrace_probe\") = -1 [ENOTTY]",
        ]),
        "{engine:?}"
    );
    assert_eq!(
        lines[5],
        "write(3, \"\\0\\0\\0\\0\\5\\0\\0\\0abc\\0\\0\\0\\0\\0\", 16) = 16"
    );
    // Not a user_events file: nothing to say about the ABI.
    assert_eq!(diagnostics(&lines), Vec::<String>::new());
}

#[test]
fn status_page_and_dynamic_events_commands() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ue-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    fixture("uevents_files");
    let run = trace(&[], &["uevents_files", dir.to_str().unwrap()]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let d = dir.display();
    let lines = run.after_marker();
    assert_eq!(
        lines[1..9],
        s(&[
            &format!("openat(AT_FDCWD, \"{d}/tracing/user_events_status\", O_RDONLY) = 3"),
            "read(3, \"0:rtrace_probe\", 14) = 14",
            "mmap(NULL, 4096, PROT_READ, MAP_SHARED, 3, 0x0) = ADDR",
            "  > user_events status page (kernels before 6.4): byte status_bit is nonzero while the event is enabled",
            "munmap(&ADDR, 4096) = 0",
            "close(3) = 0",
            &format!(
                "openat(AT_FDCWD, \"{d}/tracing/dynamic_events\", O_WRONLY|O_CREAT|O_TRUNC, 0600) = 3"
            ),
            "write(3, \"u:rtrace_dyn u32 count\", 22) = 22",
        ])
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A regular file named like user_events_data: its writes succeed, so no
/// diagnostic may say the kernel refused them, whether every call is seen
/// (the DIAG_IOCSREG failed: nothing is registered) or, under the seccomp
/// fast path, the ioctls are not stopped at all.
#[test]
fn a_write_that_succeeded_is_never_said_to_be_refused() {
    fixture("uevents_lookalike");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("lookalike-{}", std::process::id()))
        .join("tracing");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("user_events_data");
    let path = path.to_str().unwrap();
    for args in [&[][..], &["-e", "trace=openat,write"][..]] {
        let run = trace(args, &["uevents_lookalike", path]);
        assert_eq!(run.code(), Some(0), "{args:?}: {}", run.stderr());
        let lines: Vec<String> = run
            .after_marker()
            .into_iter()
            .filter(|l| {
                !["ioctl(", "close(", "exit_group("]
                    .iter()
                    .any(|c| l.starts_with(c))
            })
            .collect();
        assert_eq!(
            lines[1..],
            s(&[
                &format!(
                    "openat(AT_FDCWD, \"{path}\", O_RDWR|O_CREAT|O_TRUNC|O_CLOEXEC, 0600) = 3"
                ),
                "write(3, {write_index=0 <unknown>, raw=\"\\5\\0\\0\\0abc\\0\\0\\0\\0\\0\"}, 16) = 16",
                "write(3, \"\\0\\0\", 2) = 2",
                "Process exited normally with code 0",
            ]),
            "{args:?}"
        );
    }
}

/// A `__data_loc` counted from the payload that the kernel still takes
/// (its NUL falls on a zero byte of the record's header): the write
/// succeeds, and the diagnostic, which foretells no refusal, is shown.
#[test]
fn a_data_loc_into_the_header_is_told_when_the_kernel_takes_the_write() {
    let emu = Emulator::start("uevents_emu", &["--enable", "rtrace_dl"]);
    fixture("uevents_dl_header");
    let run = trace_env(
        &[],
        &["uevents_dl_header"],
        &[("UEVENTS_EMU_SOCKET", emu.socket())],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_followed_by(
        &run.after_marker(),
        "write(3, {write_index=0 <rtrace_dl>, msg=<bad loc 0x30004>}, 11) = 11",
        "** user_events: fd 3: write_index 0 <rtrace_dl>: __data_loc msg (offset 4) points into the record's 8-byte header; __data_loc offsets count from the record's start, payload byte 0 is offset 8 **",
    );
}

/// What is followed does not depend on what is printed: with only the
/// writes selected (the open and the DIAG_IOCSREG ioctls hidden), the
/// writes decode by their registered fields and every diagnostic comes,
/// exactly as in the full trace.
#[test]
fn writes_decode_with_only_the_writes_selected() {
    let kept = |lines: Vec<String>| -> Vec<String> {
        lines
            .into_iter()
            .filter(|l| l.starts_with("write") || l.starts_with("** "))
            .collect()
    };
    let run_with = |args: &[&str]| {
        let emu = Emulator::start(
            "uevents_emu",
            &["--enable", "rtrace_probe", "--enable", "rtrace_multi"],
        );
        fixture("uevents_producer");
        let run = trace_env(
            args,
            &["uevents_producer"],
            &[("UEVENTS_EMU_SOCKET", emu.socket())],
        );
        assert_eq!(run.code(), Some(0), "{args:?}: {}", run.stderr());
        kept(run.after_marker())
    };
    let all = run_with(&[]);
    assert!(
        all.contains(
            &"write(3, {write_index=0 <rtrace_probe>, count=5, tag=\"abc\"}, 16) = 16".to_string()
        ),
        "{all:#?}"
    );
    assert_eq!(run_with(&["-e", "trace=write,writev"]), all);
}
