//! usbmon decoding against a userspace emulation of /dev/usbmonN with the
//! kernel's semantics (tests/fixtures/usbmon_emu.c, fed the real capture in
//! tests/data/usbmon), traced clients that do what libpcap (tcpdump,
//! dumpcap) and usbmon(8) do, and every decoded event compared with the
//! kernel's own text rendering of it.

mod common;

use common::{Emulator, diagnostics, fixture, s, trace_env, untimed};

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
    client_run(name, args, emu_args, rtrace_args).after_marker()
}

/// Run client `name` with `args` against a fresh emulator: every line
/// (for selections that do not show the marker).
fn run_client_all(
    name: &str,
    args: &[&str],
    emu_args: &[&str],
    rtrace_args: &[&str],
) -> Vec<String> {
    client_run(name, args, emu_args, rtrace_args).lines()
}

fn client_run(name: &str, args: &[&str], emu_args: &[&str], rtrace_args: &[&str]) -> common::Run {
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
    run
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
    // A correct client: no diagnostic.
    assert_eq!(diagnostics(&lines), Vec::<String>::new());
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
    // A correct client: no diagnostic.
    assert_eq!(diagnostics(&lines), Vec::<String>::new());
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
    // Its one mistake: GET's 16-byte buffer loses the rest of event 10;
    // and the header of event 11 read in two pieces is said (the kernel
    // allows it).
    assert_eq!(
        diagnostics(&lines),
        [
            "** usbmon: fd 3: MON_IOCX_GET copied 16 of the event's 74 data bytes (alloc=16): 58 bytes lost with the event; MON_IOCQ_URB_LEN tells the size first **",
            "** usbmon: fd 3: read(2) of 20 bytes ends inside the event's 48-byte header (struct mon_bin_hdr, bytes 0..20): the rest of it comes first in the next read **"
        ]
    );
    // Each at its call.
    assert_eq!(
        diag_after(
            &lines,
            "ioctl(3, MON_IOCX_GET, {hdr=&ADDR, data=&ADDR, alloc=16}) = 0"
        ),
        diagnostics(&lines)[..1]
    );
    let piece = lines
        .iter()
        .find(|l| l.starts_with("read(3, ") && l.ends_with(", 20) = 20"))
        .unwrap();
    assert_eq!(diag_after(&lines, piece), diagnostics(&lines)[1..]);
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
    // What the kernel did with each wrong request, said after it.
    for (call, diags) in [
        (
            "ioctl(3, MON_IOCT_RING_SIZE, 100) = -1 [EINVAL]",
            vec![
                "** usbmon: fd 3: ring size 100 is below the kernel's minimum of 8192: refused (EINVAL) **",
            ],
        ),
        (
            "ioctl(3, MON_IOCT_RING_SIZE, 1228801) = -1 [EINVAL]",
            vec![
                "** usbmon: fd 3: ring size 1228801 is above this kernel's maximum of 1228800 (kernels since 2025 take up to 67108864): refused (EINVAL) **",
            ],
        ),
        (
            // Rounded up to 12288, harmlessly: libpcap asks for such
            // sizes (tcpdump -s 65535: 327355), so it is no misuse, but
            // what the kernel did is said with the result.
            "ioctl(3, MON_IOCT_RING_SIZE, 10000) = 0 (rounded up to 12288)",
            vec![],
        ),
        (
            "ioctl(3, MON_IOCX_MFETCH, {offvec=&0x1, nfetch=4, nflush=2}) = -1 [EFAULT]",
            vec![
                "** usbmon: fd 3: MON_IOCX_MFETCH nflush of 2 events but none was fetched and not flushed: the kernel discarded 2 events never fetched **",
            ],
        ),
        (
            "ioctl(3, MON_IOCT_RING_SIZE, 16384) = -1 [EBUSY]",
            vec![
                "** usbmon: fd 3: MON_IOCT_RING_SIZE while the ring is mapped: refused (EBUSY); set the size before mmap **",
            ],
        ),
        (
            "ioctl(4, MON_IOCH_MFLUSH, 1000) = 34",
            vec![
                "** usbmon: fd 4: MON_IOCH_MFLUSH of 1000 events but none was fetched and not flushed: the kernel discarded 34 events never fetched **",
            ],
        ),
        (
            "ioctl(4, MON_IOCH_MFLUSH, 1000) = 0",
            vec![
                "** usbmon: fd 4: MON_IOCH_MFLUSH of 1000 events but none was fetched and not flushed: no more were queued, so none was lost this time **",
            ],
        ),
        (
            "ioctl(5, MON_IOCG_STATS, {queued=10, dropped=0}) = 0",
            vec![],
        ),
    ] {
        assert_eq!(diag_after(&lines, call), diags, "after {call}");
    }
}

/// The diagnostic lines right after the last `call` (and its events),
/// which must be in the trace.
fn diag_after(lines: &[String], call: &str) -> Vec<String> {
    let at = lines
        .iter()
        .rposition(|l| l == call)
        .unwrap_or_else(|| panic!("missing {call}\n{lines:#?}"));
    lines[at + 1..]
        .iter()
        .skip_while(|l| l.starts_with("  "))
        .take_while(|l| l.starts_with("** "))
        .cloned()
        .collect()
}

/// Run `usbmon_misuse MODE`: its lines without the decoded events.
fn misuse(mode: &str, emu_args: &[&str], rtrace_args: &[&str]) -> Vec<String> {
    run_client("usbmon_misuse", &[mode], emu_args, rtrace_args)
        .into_iter()
        .filter(|l| !l.starts_with("  > "))
        .collect()
}

const OPEN: &str = "openat(AT_FDCWD, \"/dev/usbmon0\", O_RDONLY) = 3";
const END: [&str; 3] = [
    "close(3) = 0",
    "exit_group(0)",
    "Process exited normally with code 0",
];

/// The marker, the open, `middle`, the end.
fn whole(middle: &[&str]) -> Vec<String> {
    let mut all = vec!["write(-1, \"BEGIN\", 5) = -1 [EBADF]", OPEN];
    all.extend_from_slice(middle);
    all.extend_from_slice(&END);
    s(&all)
}

const REFETCH: &[&str] = &[
    "ioctl(3, MON_IOCT_RING_SIZE, 1228800) = 0",
    "mmap(NULL, 1228800, PROT_READ, MAP_SHARED, 3, 0x0) = ADDR",
    "ioctl(3, MON_IOCX_MFETCH, {offvec=&ADDR, nfetch=4, nflush=0}) = 0 {nfetch=4, nflush=0, offvec=[0, 64, 128, 192]}",
    "ioctl(3, MON_IOCX_MFETCH, {offvec=&ADDR, nfetch=4, nflush=0}) = 0 {nfetch=4, nflush=0, offvec=[0, 64, 128, 192]}",
    "** usbmon: fd 3: MON_IOCX_MFETCH returned 4 events it had returned before and no flush removed: MON_IOCH_MFLUSH (or the next fetch's nflush) is missing **",
    "ioctl(3, MON_IOCX_MFETCH, {offvec=&ADDR, nfetch=4, nflush=8}) = 0 {nfetch=4, nflush=8, offvec=[576, 640, 832, 960]}",
    "** usbmon: fd 3: MON_IOCX_MFETCH nflush of 8 events but 4 were fetched and not flushed: the kernel discarded 4 events never fetched **",
    "ioctl(3, MON_IOCH_MFLUSH, 4) = 4",
    "munmap(&ADDR, 1228800) = 0",
];

#[test]
fn diagnostic_fetch_without_flush_and_flush_beyond_fetch() {
    assert_eq!(misuse("refetch", &[], &[]), whole(REFETCH));
}

/// MON_IOCX_GET takes the first event of the ring, which an unflushed
/// MFETCH had handed out: the kernel frees it, and it is no longer among
/// those a flush must remove, so a client that flushes the rest is right.
#[test]
fn a_get_consumes_one_of_the_fetched_events() {
    let lines = misuse("fetchget", &[], &[]);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("ioctl(3, MON_IOCX_GETX, ")),
        "{lines:#?}"
    );
    assert_eq!(diagnostics(&lines), Vec::<String>::new());
}

/// So does read(2), once it has read all of the event, in pieces or not.
#[test]
fn reads_consume_one_of_the_fetched_events() {
    let lines = misuse("fetchread", &[], &[]);
    let reads = lines.iter().filter(|l| l.starts_with("read(3, ")).count();
    assert_eq!(reads, 2, "{lines:#?}");
    // Only that the first read stops inside the header: the accounting of
    // fetched events is right.
    assert_eq!(
        diagnostics(&lines),
        [
            "** usbmon: fd 3: read(2) of 20 bytes ends inside the event's 48-byte header (struct mon_bin_hdr, bytes 0..20): the rest of it comes first in the next read **"
        ]
    );
}

/// The ring size passed as a pointer: said at its call, the address
/// recognised. A pointer given to the request that returns the size is
/// not said at that call (its register is whatever the caller left there
/// when it passes nothing, as correct clients do), but at the mmap that
/// then takes the value the kernel never wrote.
#[test]
fn ring_size_requests_given_pointers() {
    let lines = misuse("ringptr", &[], &[]);
    let ioctls: Vec<&String> = lines.iter().filter(|l| l.starts_with("ioctl(")).collect();
    assert_eq!(ioctls.len(), 2, "{lines:#?}");
    let set = ioctls[0]
        .split(", ")
        .nth(2)
        .unwrap()
        .split(')')
        .next()
        .unwrap();
    let diags = diagnostics(&lines);
    assert_eq!(
        diags,
        [
            format!(
                "** usbmon: fd 3: ring size {set} is above the kernel's maximum of 67108864 (1228800 before 2025): refused (EINVAL); it is an address in the program: MON_IOCT_RING_SIZE takes the size itself, not a pointer to it **"
            ),
            "** usbmon: fd 3: mmap length 65536 is what ADDR held when MON_IOCQ_RING_SIZE was given it: the request writes nothing there; the ring's size (307200) is its return value **".to_string(),
        ],
        "{lines:#?}"
    );
}

/// In JSON the ring size the kernel made of a size that is not a multiple
/// of the page is part of the call's `returned` object.
#[test]
fn json_ring_size_rounded_up() {
    let pcap = pcap();
    let emu = Emulator::start("usbmon_emu", &[pcap.as_str()]);
    fixture("usbmon_errors");
    let run = trace_env(
        &["--json"],
        &["usbmon_errors"],
        &[("USBMON_EMU_SOCKET", emu.socket())],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let rounded: Vec<(serde_json::Value, serde_json::Value)> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter_map(|v| {
            Some((
                v["raw"][2].clone(),
                v.pointer("/returned/ring_size")?.clone(),
            ))
        })
        .collect();
    assert_eq!(
        rounded,
        vec![(serde_json::json!(10000), serde_json::json!(12288))],
        "{}",
        run.trace
    );
}

#[test]
fn diagnostics_follow_the_state_of_calls_not_printed() {
    // The ioctls are not printed, but their bookkeeping is done: the
    // diagnostics come all the same, as lines of their own. (The open
    // stays shown: /proc names the emulator's fd a memfd, where the
    // kernel's is /dev/usbmon0, and a hidden open's path comes from /proc.)
    let lines = misuse(
        "refetch",
        &[],
        &["-e", "trace=write,openat,munmap,close,exit_group"],
    );
    let mut expected = vec!["write(-1, \"BEGIN\", 5) = -1 [EBADF]", OPEN];
    expected.extend(
        REFETCH
            .iter()
            .filter(|l| l.starts_with("** ") || l.starts_with("munmap")),
    );
    expected.extend_from_slice(&END);
    assert_eq!(lines, s(&expected));
    // -e diag=none, -e diag=user_events: no usbmon diagnostic.
    for set in ["diag=none", "diag=user_events", "diag=!usbmon"] {
        let lines = misuse("refetch", &[], &["-e", set]);
        let without: Vec<String> = whole(REFETCH)
            .into_iter()
            .filter(|l| !l.starts_with("** "))
            .collect();
        assert_eq!(lines, without, "-e {set}");
    }
}

#[test]
fn diagnostics_in_json_are_objects_of_their_own() {
    let pcap = pcap();
    let emu = Emulator::start("usbmon_emu", &[pcap.as_str()]);
    fixture("usbmon_misuse");
    let run = trace_env(
        &["--json"],
        &["usbmon_misuse", "refetch"],
        &[("USBMON_EMU_SOCKET", emu.socket())],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let objects: Vec<serde_json::Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let at = objects.iter().position(|o| o["type"] == "diag").unwrap();
    let diag = &objects[at];
    // It follows the call it is about.
    assert_eq!(objects[at - 1]["args"]["request"], "MON_IOCX_MFETCH");
    assert_eq!(diag["area"], "usbmon");
    assert_eq!(diag["kind"], "refetch");
    assert_eq!(diag["fd"], 3);
    assert_eq!(diag["pid"], objects[at - 1]["pid"]);
    assert_eq!(
        diag["text"],
        "MON_IOCX_MFETCH returned 4 events it had returned before and no flush removed: MON_IOCH_MFLUSH (or the next fetch's nflush) is missing"
    );
    let kinds: Vec<&str> = objects
        .iter()
        .filter(|o| o["type"] == "diag")
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["refetch", "overflush"]);
}

#[test]
fn diagnostic_header_buffer_and_truncated_data() {
    let getx = "ioctl(3, MON_IOCX_GETX, {hdr=&ADDR, data=&ADDR, alloc=4096}) = 0";
    let mut middle = vec![
        "ioctl(3, MON_IOCX_GETX, {hdr=&ADDR, data=&ADDR, alloc=256}) = 0",
        "** usbmon: fd 3: MON_IOCX_GETX writes a 64-byte header, but the data buffer starts 48 bytes after hdr: data copied there overwrites the header's last 16 bytes **",
    ];
    middle.extend([getx; 8]);
    middle.extend([
        "ioctl(3, MON_IOCX_GET, {hdr=&ADDR, data=&ADDR, alloc=16}) = 0",
        "** usbmon: fd 3: MON_IOCX_GET copied 16 of the event's 74 data bytes (alloc=16): 58 bytes lost with the event; MON_IOCQ_URB_LEN tells the size first **",
        "mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0x0) = ADDR",
        "mprotect(&ADDR, 4096, PROT_NONE) = 0",
        "ioctl(3, MON_IOCX_GETX, {hdr=&ADDR, data=&ADDR, alloc=4096}) = -1 [EFAULT]",
        "** usbmon: fd 3: MON_IOCX_GETX writes a 64-byte header, but hdr is 48 bytes before the end of its mapping: refused (EFAULT), the event stays queued **",
        "munmap(&ADDR, 8192) = 0",
    ]);
    assert_eq!(misuse("getx48", &[], &[]), whole(&middle));
}

#[test]
fn diagnostic_mappings_longer_than_the_ring_or_off_its_start() {
    assert_eq!(
        misuse("bigmap", &[], &[]),
        whole(&[
            "ioctl(3, MON_IOCT_RING_SIZE, 8192) = 0",
            "mmap(NULL, 16384, PROT_READ, MAP_SHARED, 3, 0x0) = ADDR",
            "** usbmon: fd 3: mmap of 16384 bytes at offset 0 of the 8192-byte ring: reading past byte 8192 of the mapping raises SIGBUS **",
            "mmap(NULL, 4096, PROT_READ, MAP_SHARED, 3, 0x1000) = ADDR",
            "** usbmon: fd 3: mmap at ring offset 4096: MFETCH offsets count from the ring's start, not from this mapping **",
            "munmap(&ADDR, 4096) = 0",
            "munmap(&ADDR, 16384) = 0",
        ])
    );
}

#[test]
fn diagnostic_events_past_the_mapping_and_unaligned_offsets() {
    let fetched = "0, 64, 128, 192, 256, 320, 448, 512, 576, 640, 832, 960, 1024, 1088, 4480, 4544, 4672, 4800, 4864, 4928, 8320, 8384, 8512, 8640, 8704, 8768, 12160, 12224, 12352, 12480, 12544, 12608";
    assert_eq!(
        misuse("smallmap", &[], &[]),
        whole(&[
            "ioctl(3, MON_IOCT_RING_SIZE, 16384) = 0",
            "mmap(NULL, 4096, PROT_READ, MAP_SHARED, 3, 0x0) = ADDR",
            &format!(
                "ioctl(3, MON_IOCX_MFETCH, {{offvec=&ADDR, nfetch=32, nflush=0}}) = 0 {{nfetch=32, nflush=0, offvec=[{fetched}]}}"
            ),
            "** usbmon: fd 3: MON_IOCX_MFETCH: 19 events past the end of the 4096-byte mapping of the ring (the first at offset 1088, 3340 bytes): reading them faults **",
            "ioctl(3, MON_IOCH_MFLUSH, 32) = 32",
            "munmap(&ADDR, 4096) = 0",
        ])
    );
    assert_eq!(
        misuse("alias", &[], &[]),
        whole(&[
            "ioctl(3, MON_IOCT_RING_SIZE, 1228800) = 0",
            "mmap(NULL, 1228800, PROT_READ, MAP_SHARED, 3, 0x0) = ADDR",
            "ioctl(3, MON_IOCX_MFETCH, {offvec=&ADDR, nfetch=1, nflush=0}) = 0 {nfetch=1, nflush=0, offvec=[1]}",
            "** usbmon: fd 3: MON_IOCX_MFETCH: 1 offset not 64-byte aligned (the first 1): offvec overlaps the struct, whose nfetch and nflush the kernel writes after the offsets **",
            "ioctl(3, MON_IOCH_MFLUSH, 1) = 1",
            "munmap(&ADDR, 1228800) = 0",
        ])
    );
}

#[test]
fn diagnostic_events_dropped() {
    assert_eq!(
        misuse("drops", &["--batch", "34"], &[]),
        whole(&[
            "ioctl(3, MON_IOCT_RING_SIZE, 8192) = 0",
            "ioctl(3, MON_IOCG_STATS, {queued=33, dropped=1}) = 0",
            "** usbmon: fd 3: 1 event lost since the last MON_IOCG_STATS: the ring was full (fetch and flush sooner, or a bigger ring) **",
        ])
    );
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
    // A correct client: no diagnostic object either.
    assert!(!run.trace.contains("\"type\":\"diag\""), "{}", run.trace);
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

#[test]
fn help_and_hacking_list_every_diagnostic_and_bad_sets_fail() {
    let help = common::rtrace().arg("--help").output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    let hacking =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/HACKING.md")).unwrap();
    for &(area, kind, _) in rtrace_cli::diag::KINDS {
        let name = format!("{}/{kind}", area.name());
        assert!(
            help.lines()
                .any(|l| l.starts_with(&format!("  {name} ")) || l == format!("  {name}")),
            "--help does not list {name}"
        );
        assert!(
            hacking.contains(&format!("| {name} |")),
            "HACKING.md does not list {name}"
        );
    }
    let out = common::rtrace()
        .args(["-e", "diag=usb", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "rtrace: unknown diagnostics 'usb' in -e diag=usb (all, none, usbmon, user_events)\n"
    );
}

/// What is followed does not depend on what is printed: the same client
/// gives the same diagnostics and the same decoded events whether every
/// call is printed or only the ioctls (`--no-seccomp-bpf`: the emulator's
/// own seccomp filter, SECCOMP_RET_USER_NOTIF, outranks the fast path's
/// RET_TRACE and would hide the open and the ioctls from it; see
/// `the_same_diagnostics_under_the_fast_path` for that mode).
#[test]
fn the_same_diagnostics_and_events_whatever_is_selected() {
    for mode in ["refetch", "bigmap", "getx48", "smallmap"] {
        let all = run_client("usbmon_misuse", &[mode], &[], &[]);
        let ioctls = run_client_all(
            "usbmon_misuse",
            &[mode],
            &[],
            &["-e", "trace=ioctl", "--no-seccomp-bpf"],
        );
        assert!(!diagnostics(&all).is_empty(), "{mode}: {all:#?}");
        assert_eq!(diagnostics(&ioctls), diagnostics(&all), "{mode}");
        assert_eq!(events(&ioctls), events(&all), "{mode}");
    }
}

/// The same under the seccomp fast path (`-f -e trace=ioctl` turns it
/// on): the filter stops the bookkeeping calls (opens, mmap, ...) without
/// printing them. Under the emulation rtrace must also notice the
/// client's own seccomp filter, whose USER_NOTIF outranks rtrace's
/// RET_TRACE: the client is moved to full syscall stops when it installs
/// it (`own_seccomp`).
#[test]
fn the_same_diagnostics_under_the_fast_path() {
    for mode in ["refetch", "bigmap", "getx48", "smallmap"] {
        let all = run_client("usbmon_misuse", &[mode], &[], &[]);
        let fast = run_client_all("usbmon_misuse", &[mode], &[], &["-f", "-e", "trace=ioctl"]);
        assert_eq!(diagnostics(&fast), diagnostics(&all), "{mode}");
        assert_eq!(events(&fast), events(&all), "{mode}");
    }
}

/// The same client run as the launcher runs unmodified programs
/// (`usbmon_run CLIENT`, which attaches before the exec: the client's
/// calls come under a filter it inherited), with `-f`: its diagnostics
/// and decoded events are the same whatever is selected, with the fast
/// path and without.
#[test]
fn the_same_diagnostics_under_the_launcher() {
    for mode in ["refetch", "bigmap", "getx48", "smallmap"] {
        let launched = |rtrace_args: &[&str]| {
            let emu = Emulator::start("usbmon_emu", &[pcap().as_str()]);
            fixture("usbmon_run");
            fixture("usbmon_misuse");
            let run = trace_env(
                &[&["-f"][..], rtrace_args].concat(),
                &["usbmon_run", "usbmon_misuse", mode],
                &[("USBMON_EMU_SOCKET", emu.socket())],
            );
            assert_eq!(
                run.code(),
                Some(0),
                "{mode} {rtrace_args:?}: {}",
                run.stderr()
            );
            run.lines()
        };
        let all = launched(&[]);
        assert!(!diagnostics(&all).is_empty(), "{mode}: {all:#?}");
        assert_eq!(
            diagnostics(&all),
            diagnostics(&run_client("usbmon_misuse", &[mode], &[], &[])),
            "{mode}: the launcher changes nothing"
        );
        for args in [
            &["-e", "trace=ioctl"][..],
            &["-e", "trace=ioctl", "--no-seccomp-bpf"],
        ] {
            let ioctls = launched(args);
            assert_eq!(diagnostics(&ioctls), diagnostics(&all), "{mode} {args:?}");
            assert_eq!(events(&ioctls), events(&all), "{mode} {args:?}");
        }
    }
}

/// A ring moved with mremap is followed: the events a fetch returns after
/// the move are read at the new place (they were `(event not readable)`
/// at the old one), with or without the mremap printed.
#[test]
fn a_ring_moved_by_mremap_is_followed() {
    for args in [&[][..], &["-e", "trace=ioctl", "--no-seccomp-bpf"][..]] {
        let lines = run_client_all("usbmon_misuse", &["mremap"], &[], args);
        let decoded = events(&lines);
        assert_eq!(decoded.len(), 8, "{args:?}: {lines:#?}");
        let kernel = kernel_lines();
        for (ours, theirs) in decoded.iter().zip(&kernel) {
            assert_eq!(untimed(ours), untimed(theirs), "{args:?}");
        }
        assert_eq!(diagnostics(&lines), Vec::<String>::new(), "{args:?}");
    }
    // The whole trace: the moved ring's fetch decodes right after the
    // mremap line.
    let lines = misuse("mremap", &[], &[]);
    assert_eq!(
        lines,
        whole(&[
            "ioctl(3, MON_IOCT_RING_SIZE, 1228800) = 0",
            "mmap(NULL, 1228800, PROT_READ, MAP_SHARED, 3, 0x0) = ADDR",
            "ioctl(3, MON_IOCX_MFETCH, {offvec=&ADDR, nfetch=4, nflush=0}) = 0 {nfetch=4, nflush=0, offvec=[0, 64, 128, 192]}",
            "ioctl(3, MON_IOCH_MFLUSH, 4) = 4",
            "mmap(NULL, 1228800, PROT_NONE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0x0) = ADDR",
            "mremap(&ADDR, 1228800, 1228800, MREMAP_MAYMOVE|MREMAP_FIXED, &ADDR) = ADDR",
            "ioctl(3, MON_IOCX_MFETCH, {offvec=&ADDR, nfetch=4, nflush=0}) = 0 {nfetch=4, nflush=0, offvec=[256, 320, 448, 512]}",
            "ioctl(3, MON_IOCH_MFLUSH, 4) = 4",
            "munmap(&ADDR, 1228800) = 0",
        ])
    );
}

/// Under the seccomp fast path the bookkeeping calls stop whether or not
/// they are selected, so a usbmon file's state is the same as without
/// it: with only the ioctls printed, or only the open and the mappings,
/// the mmap is judged against the ring size the calls made (here the
/// default: a regular file refuses MON_IOCT_RING_SIZE), as it is with
/// every call printed. A regular file stands for the device, at
/// /dev/usbmon0 in a mount namespace of the test's own (root only).
#[test]
fn the_fast_path_follows_what_it_does_not_print() {
    let bin = fixture("usbmon_lookalike");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("usbmon-lookalike-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace_file = dir.join("trace.txt");
    // A tmpfs over /dev, seen by this command only.
    let script =
        "mount -t tmpfs rtrace-test /dev && truncate -s 1228800 /dev/usbmon0 && exec \"$@\"";
    let run = |opts: &[&str]| {
        let out = std::process::Command::new("unshare")
            .args(["-m", "sh", "-c", script, "sh"])
            .arg(env!("CARGO_BIN_EXE_rtrace"))
            .args(opts)
            .arg("-o")
            .arg(&trace_file)
            .arg(&bin)
            .arg("1228800")
            .output()
            .expect("run unshare");
        assert_eq!(
            out.status.code(),
            Some(0),
            "needs root (unshare -m, mount): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        common::normalise(&std::fs::read_to_string(&trace_file).unwrap())
    };
    let diag = "** usbmon: fd 3: mmap of 1228800 bytes at offset 0 of the 307200-byte ring: reading past byte 307200 of the mapping raises SIGBUS **";
    let all = run(&[]);
    assert_eq!(diagnostics(&all), s(&[diag]), "{all:#?}");
    for opts in [
        &["--seccomp-bpf", "-e", "trace=ioctl"][..],
        &["--no-seccomp-bpf", "-e", "trace=ioctl"][..],
        &["--seccomp-bpf", "-e", "trace=openat,mmap,munmap"][..],
    ] {
        let lines = run(opts);
        assert_eq!(diagnostics(&lines), s(&[diag]), "{opts:?}: {lines:#?}");
    }
    // Where the open and the mappings are printed, the diagnostic follows
    // the mmap, as with every call printed.
    let lines = run(&["--seccomp-bpf", "-e", "trace=openat,mmap,munmap"]);
    let start = lines
        .iter()
        .position(|l| l.starts_with("openat(AT_FDCWD, \"/dev/usbmon0\""))
        .expect("the open");
    assert_eq!(
        lines[start..],
        s(&[
            "openat(AT_FDCWD, \"/dev/usbmon0\", O_RDONLY|O_CLOEXEC) = 3",
            "mmap(NULL, 1228800, PROT_READ, MAP_SHARED, 3, 0x0) = ADDR",
            diag,
            "munmap(&ADDR, 1228800) = 0",
            "Process exited normally with code 0",
        ])
    );
}
