//! usbmon decoding against a userspace emulation of /dev/usbmonN with the
//! kernel's semantics (tests/fixtures/usbmon_emu.c, fed the real capture in
//! tests/data/usbmon), traced clients that do what libpcap (tcpdump,
//! dumpcap) and usbmon(8) do, and every decoded event compared with the
//! kernel's own text rendering of it.

mod common;

use common::{Emulator, fixture, s, trace_env};

fn pcap() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/usbmon/qemu-xhci-0u.pcap"
    )
    .to_string()
}

/// The kernel text API's lines for the 34 captured events.
fn kernel_lines() -> Vec<String> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/usbmon/qemu-xhci-0u.txt"
    ))
    .unwrap();
    text.lines().map(str::to_string).collect()
}

/// All words of an event line but the timestamp (the text API uses its own
/// clock).
fn untimed(line: &str) -> Vec<&str> {
    line.split(' ')
        .enumerate()
        .filter(|&(i, _)| i != 1)
        .map(|(_, w)| w)
        .collect()
}

/// The events rtrace decoded, in order, without the `  > ` marker.
fn events(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter_map(|l| l.strip_prefix("  > "))
        .map(str::to_string)
        .collect()
}

/// Run client `name` with `args` against a fresh emulator.
fn run_client(name: &str, args: &[&str], emu_args: &[&str], rtrace_args: &[&str]) -> Vec<String> {
    let pcap = pcap();
    let mut all = vec![pcap.as_str()];
    all.extend_from_slice(emu_args);
    let emu = Emulator::start("usbmon_emu", &all);
    fixture(name);
    let mut command = vec![name];
    command.extend_from_slice(args);
    let run = trace_env(
        rtrace_args,
        &command,
        &[("USBMON_EMU_SOCKET", emu.socket())],
    );
    assert_eq!(run.code(), Some(0), "{name} {args:?}: {}", run.stderr());
    run.after_marker()
}

/// Every decoded event that is not a filler equals its kernel line.
fn assert_events_match_kernel(decoded: &[String]) {
    let kernel = kernel_lines();
    let real: Vec<&String> = decoded.iter().filter(|e| !e.starts_with("@ ")).collect();
    assert_eq!(real.len(), kernel.len(), "{decoded:#?}");
    for (ours, theirs) in real.iter().zip(&kernel) {
        assert_eq!(
            untimed(ours),
            untimed(theirs),
            "\n ours:   {ours}\n kernel: {theirs}"
        );
    }
}

#[test]
fn libpcap_style_capture_with_mfetch_32() {
    let lines = run_client("usbmon_pcap", &["32", "1228800"], &[], &[]);
    assert_eq!(
        lines[..4],
        s(&[
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "openat(AT_FDCWD, \"/dev/usbmon0\", O_RDONLY) = 3",
            "ioctl(3, MON_IOCT_RING_SIZE, 1228800) = 0",
            "mmap(NULL, 1228800, PROT_READ, MAP_SHARED, 3, 0x0) = ADDR",
        ])
    );
    // 64-byte aligned events of roundup(64 + len_cap, 64) bytes each.
    let offsets = "0, 64, 128, 192, 256, 320, 448, 512, 576, 640, 832, 960, 1024, 1088, 5248, 5312, 5440, 5568, 5632, 5696, 9856, 9920, 10048, 10176, 10240, 10304, 14464, 14528, 14656, 14784, 14848, 14912";
    assert_eq!(
        lines[4],
        format!(
            "ioctl(3, MON_IOCX_MFETCH, {{offvec=&ADDR, nfetch=32, nflush=0}}) = 0 {{nfetch=32, nflush=0, offvec=[{offsets}]}}"
        )
    );
    assert_eq!(lines[37], "ioctl(3, MON_IOCH_MFLUSH, 32) = 32");
    assert_eq!(
        lines[38],
        "ioctl(3, MON_IOCX_MFETCH, {offvec=&ADDR, nfetch=32, nflush=0}) = 0 {nfetch=2, nflush=0, offvec=[19072, 19136]}"
    );
    assert_eq!(lines[41], "ioctl(3, MON_IOCH_MFLUSH, 2) = 2");
    assert_eq!(
        lines[42],
        "ioctl(3, MON_IOCG_STATS, {queued=0, dropped=0}) = 0"
    );
    assert_eq!(
        lines[43],
        "munmap(ADDR, 1228800) = 0".replace("ADDR", "&ADDR")
    );
    assert_events_match_kernel(&events(&lines));
}

#[test]
fn dumpcap_style_capture_one_event_per_fetch_on_a_small_ring() {
    let lines = run_client("usbmon_pcap", &["1", "8192"], &[], &[]);
    let decoded = events(&lines);
    // The small ring wraps: the tail is covered by a filler event.
    assert!(
        decoded.iter().any(|e| e.starts_with("@ ring filler, ")),
        "{decoded:#?}"
    );
    assert_events_match_kernel(&decoded);
    // nflush is carried into the next fetch instead of a separate MFLUSH.
    assert!(lines.contains(
        &"ioctl(3, MON_IOCX_MFETCH, {offvec=&ADDR, nfetch=1, nflush=1}) = 0 {nfetch=1, nflush=1, offvec=[64]}"
            .to_string()
    ), "{lines:#?}");
}

#[test]
fn usbmon8_style_get_getx_urb_len_and_read() {
    let lines = run_client("usbmon_get", &[], &[], &[]);
    for line in [
        "ioctl(3, MON_IOCQ_RING_SIZE) = 307200",
        "ioctl(3, MON_IOCQ_URB_LEN) = 0",
        "ioctl(3, MON_IOCX_GETX, {hdr=&ADDR, data=&ADDR, alloc=4096}) = 0",
        "ioctl(3, MON_IOCQ_URB_LEN) = 42",
        "ioctl(3, _IO(0x92, 0x9), 0x1) = -1 [ENOTTY]",
        "ioctl(3, MON_IOCX_GET, {hdr=&ADDR, data=&ADDR, alloc=16}) = 0",
        // A whole event read: the header is decoded below, not dumped.
        "read(3, &ADDR, 128) = 79",
        "read(3, &ADDR, 48) = 48",
    ] {
        assert!(
            lines.contains(&line.to_string()),
            "missing {line}\n{lines:#?}"
        );
    }
    let decoded = events(&lines);
    let kernel = kernel_lines();
    // GETX and GET fetch events 1-10 in order; GET's 16-byte buffer holds
    // only the first 16 data bytes of event 10.
    for (i, ours) in decoded[..9].iter().enumerate() {
        assert_eq!(untimed(ours), untimed(&kernel[i]), "event {}", i + 1);
    }
    assert_eq!(
        untimed(&decoded[9]),
        untimed("ffff8dd8d6f7f3c0 0 C Ci:1:002:0 0 74 = 05010902 a1010901 a1000509 19012903")
    );
    // read(2) decodes whole headers: events 11 and 13 (12 was read in parts).
    assert_eq!(untimed(&decoded[10]), untimed(&kernel[10]));
    assert_eq!(untimed(&decoded[11]), untimed(&kernel[12]));
    assert_eq!(decoded.len(), 12);
}

#[test]
fn error_paths() {
    let lines = run_client("usbmon_errors", &[], &[], &[]);
    for line in [
        "ioctl(3, MON_IOCT_RING_SIZE, 100) = -1 [EINVAL]",
        "ioctl(3, MON_IOCT_RING_SIZE, 1228801) = -1 [EINVAL]",
        "ioctl(3, MON_IOCQ_RING_SIZE) = 12288",
        "ioctl(3, MON_IOCX_MFETCH, {offvec=&0x1, nfetch=4, nflush=2}) = -1 [EFAULT]",
        "ioctl(3, MON_IOCX_MFETCH, NULL) = -1 [EFAULT]",
        "ioctl(3, MON_IOCG_STATS, NULL) = -1 [EFAULT]",
        "ioctl(3, _IO(0x92, 0xb), 0x0) = -1 [ENOTTY]",
        "ioctl(3, TCGETS, &ADDR) = -1 [ENOTTY]",
        "mmap(NULL, 12288, PROT_READ|PROT_WRITE, MAP_PRIVATE, 3, 0x0) = -1 [EPERM]",
        "ioctl(3, MON_IOCT_RING_SIZE, 16384) = -1 [EBUSY]",
        "ioctl(4, MON_IOCH_MFLUSH, 1000) = 34",
        "ioctl(4, MON_IOCX_MFETCH, {offvec=&ADDR, nfetch=4, nflush=0}) = -1 [EAGAIN]",
        "ioctl(5, MON_IOCG_STATS, {queued=10, dropped=0}) = 0",
        // A usbmon request on a file that is not a usbmon device.
        "ioctl(6, MON_IOCG_STATS, &ADDR) = -1 [ENOTTY]",
    ] {
        assert!(
            lines.contains(&line.to_string()),
            "missing {line}\n{lines:#?}"
        );
    }
}

#[test]
fn verbose_events_show_every_header_field_and_json_has_objects() {
    let lines = run_client("usbmon_pcap", &["32", "1228800"], &[], &["-v"]);
    let at = lines
        .iter()
        .position(|l| l.starts_with("  > ffff8dd8d6f7fd80 ") && l.contains(" S Bo:2:002:2 "))
        .unwrap();
    let fields = lines[at + 1].trim_start();
    assert!(
        fields.starts_with("{id=0xffff8dd8d6f7fd80, type='S', xfer_type=3, epnum=0x02, devnum=2, busnum=2, flag_setup='-', flag_data=0, ts_sec="),
        "{fields}"
    );
    assert!(
        fields.ends_with(", status=-115, len_urb=31, len_cap=31, setup=[00 00 00 00 00 00 00 00], interval=0, start_frame=0, xfer_flags=0x4, ndesc=0}"),
        "{fields}"
    );

    let pcap = pcap();
    let emu = Emulator::start("usbmon_emu", &[pcap.as_str()]);
    let run = trace_env(
        // The client's own seccomp filter (the emulator's) outranks a
        // SECCOMP_RET_TRACE filter, so the fast path would not see its
        // ioctls: trace without it.
        &["--json", "-e", "trace=ioctl", "--no-seccomp-bpf"],
        &["usbmon_pcap", "32", "1228800"],
        &[("USBMON_EMU_SOCKET", emu.socket())],
    );
    let fetch: Vec<serde_json::Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &serde_json::Value| {
            v["name"] == "ioctl" && v["args"]["request"] == "MON_IOCX_MFETCH"
        })
        .collect();
    let first = &fetch[0];
    assert_eq!(first["returned"]["arg"]["nfetch"], 32);
    let ev = &first["extended"][10];
    assert_eq!(ev["usbmon"], "event");
    assert_eq!(ev["type"], "S");
    assert_eq!(ev["busnum"], 2);
    assert_eq!(ev["len_urb"], 31);
    let kernel_data: String = kernel_lines()[10]
        .split(" = ")
        .nth(1)
        .unwrap()
        .replace(' ', "");
    assert_eq!(ev["data"], kernel_data);
    assert_eq!(
        ev["text"].as_str().map(untimed),
        Some(untimed(&kernel_lines()[10]))
    );
}
