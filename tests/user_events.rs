//! user_events decoding against a userspace emulation of
//! user_events_data with the kernel's semantics (tests/fixtures/uevents_*):
//! registrations in all three struct layouts, writes decoded by the
//! registered fields, unregistration, deletion, and the same calls on a
//! plain file where the ioctls fail.

mod common;

use common::{Emulator, fixture, s, trace, trace_env};

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
        "ioctl(3, DIAG_IOCSREG, {size=28, enable_bit=31, enable_size=4, flags=0, enable_addr=&ADDR, name_args=\"rtrace_probe u64 count\"}) = -1 [EADDRINUSE]",
        "write(3, {write_index=0 <rtrace_probe>, count=5, tag=\"abc\"}, 16) = 16",
        "writev(3, [{write_index=0 <rtrace_probe>}, {count=7, tag=\"xyz\"}], 2) = 16",
        "write(3, {write_index=1 <rtrace_multi>, a=-42, b=48879, c=200, msg=\"hello\", note=\"world!\"}, 36) = 36",
        "write(3, {write_index=1 <rtrace_multi>, a=-42, b=48879, c=200, msg=<bad loc 0x40001b>, note=\"world!\"}, 36) = -1 [EFAULT]",
        "write(3, {write_index=0 <rtrace_probe>, count=5, ..}, 8) = -1 [EINVAL]",
        "write(3, {write_index=7 <unknown>, raw=\"\\5\\0\\0\\0a\\0\\0\\0\\0\\0\\0\\0\"}, 16) = -1 [ENOENT]",
        "write(3, {write_index=4294967295 <unknown>, raw=\"\\5\\0\\0\\0a\\0\\0\\0\\0\\0\\0\\0\"}, 16) = -1 [EINVAL]",
        "write(3, \"\\0\\0\", 2) = -1 [EFAULT]",
        "ioctl(3, DIAG_IOCSREG, {size=28, enable_bit=31, enable_size=3, flags=0, enable_addr=&ADDR, name_args=\"rtrace_probe u32 count;char[8] tag\"}) = -1 [EINVAL]",
    ];
    assert_eq!(lines[..expected.len()], s(&expected));
    for line in [
        "ioctl(3, DIAG_IOCSREG, {size=28, enable_bit=31, enable_size=4, flags=0, enable_addr=&ADDR, name_args=\"bad long x\"}) = -1 [EINVAL]",
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
    assert_eq!(lines.last().unwrap(), "Process exited normally with code 0");
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
    }
}

#[test]
fn on_a_plain_file_the_out_half_decodes_and_the_in_half_prints_nothing() {
    fixture("uevents_plainfile");
    let lines = trace(&[], &["uevents_plainfile"]).after_marker();
    assert_eq!(
        lines[1..5],
        s(&[
            "openat(AT_FDCWD, \"/dev/null\", O_RDWR|O_CLOEXEC) = 3",
            "ioctl(3, DIAG_IOCSREG, {size=28, enable_bit=31, enable_size=4, flags=0, enable_addr=&ADDR, name_args=\"rtrace_probe u32 count;char[8] tag\"}) = -1 [ENOTTY]",
            "ioctl(3, DIAG_IOCSUNREG, {size=16, disable_bit=31, disable_addr=&ADDR}) = -1 [ENOTTY]",
            "ioctl(3, DIAG_IOCSDEL, \"rtrace_probe\") = -1 [ENOTTY]",
        ])
    );
    assert_eq!(
        lines[5],
        "write(3, \"\\0\\0\\0\\0\\5\\0\\0\\0abc\\0\\0\\0\\0\\0\", 16) = 16"
    );
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
