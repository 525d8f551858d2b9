//! Driver ioctl families the kernel's BTF often lacks, decoded by
//! hand-written groups from generated layouts and names (issue 25, session
//! 11): the `ioctl_drivers` fixture makes each request on fd -1 with exact
//! arguments. Plain, the calls fail and what the program asks shows;
//! under `-e inject=ioctl:retval=42` they succeed without reaching a
//! driver, and what the fixture left in the answer fields shows as the
//! kernel's answer. The lines are strace 6's information in rtrace's
//! grammar; addresses are normalised.

mod common;

use common::{assert_lines, trace};

/// Run the fixture (`m32`: its i386 build) under rtrace with `args`.
fn run(args: &[&str], m32: bool) -> common::Run {
    let bin = if m32 {
        common::fixture_m32("ioctl_drivers")
    } else {
        common::fixture("ioctl_drivers")
    };
    let run = trace(args, &[bin.file_name().unwrap().to_str().unwrap()]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    run
}

const INJECT: &str = "inject=ioctl:retval=42";

/// `n` comma-separated values: `first` then zeros.
fn values(first: &[u32], n: usize) -> String {
    (0..n)
        .map(|i| first.get(i).copied().unwrap_or(0).to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The GPIO lines: failed (`None`) or answered (`Some(text)` after the
/// result), with arrays of 64 cut at `shown` elements.
fn gpio(ok: bool, shown: usize) -> Vec<String> {
    let cut = if shown < 64 { ", .." } else { "" };
    let res = |answer: &str| {
        if ok {
            if answer.is_empty() {
                "= 42 (INJECTED)".to_string()
            } else {
                format!("= 42 {answer} (INJECTED)")
            }
        } else {
            "= -1 [EBADF]".to_string()
        }
    };
    let data = format!("{{values=[{}{cut}]}}", values(&[1, 0, 1], shown.min(64)));
    vec![
        if ok {
            format!(
                "ioctl(-1, GPIO_GET_CHIPINFO_IOCTL, {{name=\"gpiochip0\", label=\"pinctrl\", \
                 lines=54}}) {}",
                res("")
            )
        } else {
            "ioctl(-1, GPIO_GET_CHIPINFO_IOCTL, &ADDR) = -1 [EBADF]".to_string()
        },
        format!(
            "ioctl(-1, GPIO_GET_LINEINFO_IOCTL, {{line_offset=3}}) {}",
            res(
                "{flags=GPIOLINE_FLAG_IS_OUT|GPIOLINE_FLAG_ACTIVE_LOW, name=\"led0\", \
                 consumer=\"sysfs\"}"
            )
        ),
        format!(
            "ioctl(-1, GPIO_GET_LINEINFO_WATCH_IOCTL, {{line_offset=3}}) {}",
            res(
                "{flags=GPIOLINE_FLAG_IS_OUT|GPIOLINE_FLAG_ACTIVE_LOW, name=\"led0\", \
                 consumer=\"sysfs\"}"
            )
        ),
        format!(
            "ioctl(-1, GPIO_GET_LINEINFO_UNWATCH_IOCTL, {{offset=3}}) {}",
            res("")
        ),
        // Arrays up to `lines`.
        format!(
            "ioctl(-1, GPIO_GET_LINEHANDLE_IOCTL, {{lines=2, lineoffsets=[17, 18], \
             flags=GPIOHANDLE_REQUEST_OUTPUT|GPIOHANDLE_REQUEST_ACTIVE_LOW, \
             default_values=[1, 0], consumer_label=\"blinker\"}}) {}",
            res("{fd=7}")
        ),
        format!(
            "ioctl(-1, GPIO_GET_LINEEVENT_IOCTL, {{lineoffset=4, \
             handleflags=GPIOHANDLE_REQUEST_INPUT, eventflags=GPIOEVENT_REQUEST_BOTH_EDGES, \
             consumer_label=\"button\"}}) {}",
            res("{fd=8}")
        ),
        if ok {
            format!("ioctl(-1, GPIOHANDLE_GET_LINE_VALUES_IOCTL, {data}) = 42 (INJECTED)")
        } else {
            "ioctl(-1, GPIOHANDLE_GET_LINE_VALUES_IOCTL, &ADDR) = -1 [EBADF]".to_string()
        },
        format!(
            "ioctl(-1, GPIOHANDLE_SET_LINE_VALUES_IOCTL, {data}) {}",
            res("")
        ),
        format!(
            "ioctl(-1, GPIOHANDLE_SET_CONFIG_IOCTL, {{flags=GPIOHANDLE_REQUEST_INPUT|0x8000, \
             default_values=[{}{cut}]}}) {}",
            values(&[0, 1], shown.min(64)),
            res("")
        ),
        // The attributes by their ids.
        format!(
            "ioctl(-1, GPIO_V2_GET_LINEINFO_IOCTL, {{offset=5}}) {}",
            res("{name=\"sda\", consumer=\"i2c\", \
                 flags=GPIO_V2_LINE_FLAG_USED|GPIO_V2_LINE_FLAG_OUTPUT, num_attrs=2, \
                 attrs=[{flags=GPIO_V2_LINE_FLAG_ACTIVE_LOW}, {debounce_period_us=10}]}")
        ),
        // An unknown id raw; a non-zero event_buffer_size shown.
        format!(
            "ioctl(-1, GPIO_V2_GET_LINE_IOCTL, {{num_lines=1, offsets=[6], consumer=\"relay\", \
             config={{flags=GPIO_V2_LINE_FLAG_OUTPUT, num_attrs=2, attrs=[{{values=0x1, \
             mask=0x1}}, {{attr={{id=9, data=0x5}}, mask=0x1}}]}}, event_buffer_size=16}}) {}",
            res("{fd=9}")
        ),
        // Reserved words only when set.
        format!(
            "ioctl(-1, GPIO_V2_LINE_SET_CONFIG_IOCTL, \
             {{flags=GPIO_V2_LINE_FLAG_INPUT|GPIO_V2_LINE_FLAG_EDGE_RISING, num_attrs=0, \
             padding=[0, 0x5, 0, 0, 0]}}) {}",
            res("")
        ),
        format!(
            "ioctl(-1, GPIO_V2_LINE_GET_VALUES_IOCTL, {{mask=0x3}}) {}",
            res("{bits=0x1}")
        ),
        format!(
            "ioctl(-1, GPIO_V2_LINE_SET_VALUES_IOCTL, {{bits=0x1, mask=0x3}}) {}",
            res("")
        ),
    ]
}

/// The lines after the marker up to the next section's first call.
fn section(lines: &[String], first: &str, count: usize) -> Vec<String> {
    let at = lines
        .iter()
        .position(|l| l.contains(first))
        .unwrap_or_else(|| panic!("no {first} in {lines:#?}"));
    lines[at..(at + count).min(lines.len())].to_vec()
}

#[test]
fn gpio_requests_failed_show_what_the_program_asks() {
    let lines = run(&[], false).after_marker();
    let want = gpio(false, 32);
    assert_lines(&section(&lines, "GPIO_GET_CHIPINFO", want.len()), &want);
}

#[test]
fn gpio_requests_answered_show_what_the_kernel_wrote() {
    let lines = run(&["-e", INJECT], false).after_marker();
    let want = gpio(true, 32);
    assert_lines(&section(&lines, "GPIO_GET_CHIPINFO", want.len()), &want);
}

/// `-v` prints whole arrays, as strace does.
#[test]
fn gpio_verbose_prints_whole_arrays() {
    let lines = run(&["-v", "-e", INJECT], false).after_marker();
    let want = gpio(true, 64);
    assert_lines(&section(&lines, "GPIO_GET_CHIPINFO", want.len()), &want);
}

/// An i386 program's structs are the same (the header builds them so).
#[test]
fn gpio_from_an_i386_program() {
    let lines = run(&["-e", INJECT], true).after_marker();
    let want = gpio(true, 32);
    assert_lines(&section(&lines, "GPIO_GET_CHIPINFO", want.len()), &want);
}

/// `-X raw` spells the flags as numbers, `-X verbose` both (the request's
/// number is normalised as an address).
#[test]
fn gpio_flags_follow_x() {
    let raw = run(&["-X", "raw"], false).after_marker();
    assert_lines(
        &section(&raw, "lineoffset=4", 1),
        &[
            "ioctl(-1, ADDR, {lineoffset=4, handleflags=0x1, eventflags=0x3, \
           consumer_label=\"button\"}) = -1 [EBADF]",
        ],
    );
    let verbose = run(&["-X", "verbose"], false).after_marker();
    assert_lines(
        &section(&verbose, "lineoffset=4", 1),
        &[
            "ioctl(-1, ADDR /* GPIO_GET_LINEEVENT_IOCTL */, {lineoffset=4, \
           handleflags=0x1 /* GPIOHANDLE_REQUEST_INPUT */, \
           eventflags=0x3 /* GPIOEVENT_REQUEST_BOTH_EDGES */, \
           consumer_label=\"button\"}) = -1 [EBADF]",
        ],
    );
}

#[test]
fn gpio_json() {
    use serde_json::{Value, json};
    let run = run(&["--json", "-e", INJECT], false);
    let objs: Vec<Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let find = |request: &str| {
        objs.iter()
            .find(|o| o["name"] == "ioctl" && o["args"]["request"] == request)
            .unwrap_or_else(|| panic!("no {request} in {}", run.trace))
    };
    let info = find("GPIO_GET_LINEINFO_IOCTL");
    assert_eq!(info["args"]["arg"], json!({"line_offset": 3}));
    assert_eq!(
        info["returned"]["arg"],
        json!({"flags": {"value": 6, "flags": ["GPIOLINE_FLAG_IS_OUT", "GPIOLINE_FLAG_ACTIVE_LOW"]},
               "name": "led0", "consumer": "sysfs"})
    );
    let line = find("GPIO_V2_GET_LINE_IOCTL");
    assert_eq!(
        line["args"]["arg"]["config"]["attrs"],
        json!([{"values": 1, "mask": 1}, {"attr": {"id": 9, "data": 5}, "mask": 1}])
    );
    assert_eq!(line["returned"]["arg"], json!({"fd": 9}));
}

/// The LIRC, counter and PTP lines, failed or answered.
fn lirc_counter_ptp(ok: bool) -> Vec<String> {
    let res = if ok {
        "= 42 (INJECTED)"
    } else {
        "= -1 [EBADF]"
    };
    let answered = |arg: &str| {
        if ok {
            arg.to_string()
        } else {
            "&ADDR".to_string()
        }
    };
    vec![
        format!("ioctl(-1, LIRC_SET_SEND_MODE, [LIRC_MODE_PULSE]) {res}"),
        format!("ioctl(-1, LIRC_SET_SEND_CARRIER, [38000]) {res}"),
        format!("ioctl(-1, LIRC_SET_TRANSMITTER_MASK, [0x5]) {res}"),
        format!(
            "ioctl(-1, LIRC_GET_FEATURES, {}) {res}",
            answered("[LIRC_CAN_SEND_PULSE|LIRC_CAN_REC_MODE2|0x8000000]")
        ),
        format!(
            "ioctl(-1, LIRC_GET_REC_MODE, {}) {res}",
            answered("[LIRC_MODE_MODE2]")
        ),
        // A mode no name has: the number.
        format!("ioctl(-1, LIRC_GET_SEND_MODE, {}) {res}", answered("[3]")),
        format!(
            "ioctl(-1, COUNTER_ADD_WATCH_IOCTL, {{component={{type=COUNTER_COMPONENT_SIGNAL, \
             scope=COUNTER_SCOPE_COUNT, parent=1, id=2}}, event=COUNTER_EVENT_INDEX, \
             channel=3}}) {res}"
        ),
        format!(
            "ioctl(-1, COUNTER_ADD_WATCH_IOCTL, {{component={{type=9, \
             scope=COUNTER_SCOPE_COUNT, parent=1, id=2}}, event=COUNTER_EVENT_INDEX, \
             channel=3}}) {res}"
        ),
        format!("ioctl(-1, COUNTER_ENABLE_EVENTS_IOCTL) {res}"),
        format!(
            "ioctl(-1, PTP_EXTTS_REQUEST, {{index=1, flags=PTP_ENABLE_FEATURE|PTP_RISING_EDGE}}) \
             {res}"
        ),
        // The second version's reserved words when set.
        format!(
            "ioctl(-1, PTP_EXTTS_REQUEST2, {{index=1, flags=PTP_ENABLE_FEATURE|PTP_RISING_EDGE, \
             rsv=[0, 0x7]}}) {res}"
        ),
        // A start time with its date; the union's phase with PTP_PEROUT_PHASE,
        // `on` with PTP_PEROUT_DUTY_CYCLE.
        format!(
            "ioctl(-1, PTP_PEROUT_REQUEST, {{start={{sec=1700000000, nsec=5}} \
             /* 2023-11-14T22:13:20.000000005+0000 */, period={{sec=1, nsec=0, reserved=0x9}}, \
             index=2, flags=0}}) {res}"
        ),
        format!(
            "ioctl(-1, PTP_PEROUT_REQUEST2, {{phase={{sec=1700000000, nsec=5}}, period={{sec=1, \
             nsec=0, reserved=0x9}}, index=2, flags=PTP_PEROUT_DUTY_CYCLE|PTP_PEROUT_PHASE, \
             on={{sec=0, nsec=500}}}}) {res}"
        ),
        // A getter's answer after the result; a setter's reserved words.
        format!(
            "ioctl(-1, PTP_PIN_GETFUNC, {{index=1}}) {}",
            if ok {
                "= 42 {name=\"SDP0\", func=PTP_PF_PEROUT, chan=2} (INJECTED)"
            } else {
                res
            }
        ),
        format!(
            "ioctl(-1, PTP_PIN_SETFUNC2, {{index=1, func=PTP_PF_PEROUT, chan=2, \
             rsv=[0x5, 0, 0, 0, 0]}}) {res}"
        ),
        // The samples the kernel writes back (the code says `_IOW`), with
        // their dates (any year, none for the zero time).
        format!(
            "ioctl(-1, PTP_SYS_OFFSET, {{n_samples=1}}) {}",
            if ok {
                "= 42 {ts=[{sec=1700000000, nsec=0} /* 2023-11-14T22:13:20+0000 */, {sec=42, \
                 nsec=7} /* 1970-01-01T00:00:42.000000007+0000 */, {sec=-86400, nsec=0} \
                 /* 1969-12-31T00:00:00+0000 */]} (INJECTED)"
            } else {
                res
            }
        ),
        format!(
            "ioctl(-1, PTP_SYS_OFFSET_PRECISE, {}) {res}",
            answered(
                "{device={sec=1700000000, nsec=0} /* 2023-11-14T22:13:20+0000 */, \
                 sys_realtime={sec=400000000000, nsec=0} /* 14645-06-30T15:06:40+0000 */, \
                 sys_monoraw={sec=5, nsec=0}}"
            )
        ),
        format!(
            "ioctl(-1, PTP_SYS_OFFSET_EXTENDED, {{n_samples=1}}) {}",
            if ok {
                "= 42 {ts=[[{sec=1700000000, nsec=0} /* 2023-11-14T22:13:20+0000 */, {sec=3, \
                 nsec=0} /* 1970-01-01T00:00:03+0000 */, {sec=0, nsec=0}]]} (INJECTED)"
            } else {
                res
            }
        ),
    ]
}

#[test]
fn lirc_counter_ptp_failed() {
    let lines = run(&[], false).after_marker();
    let want = lirc_counter_ptp(false);
    assert_lines(&section(&lines, "LIRC_SET_SEND_MODE", want.len()), &want);
}

#[test]
fn lirc_counter_ptp_answered() {
    let lines = run(&["-e", INJECT], false).after_marker();
    let want = lirc_counter_ptp(true);
    assert_lines(&section(&lines, "LIRC_SET_SEND_MODE", want.len()), &want);
}

#[test]
fn lirc_counter_ptp_from_an_i386_program() {
    let lines = run(&["-e", INJECT], true).after_marker();
    let want = lirc_counter_ptp(true);
    assert_lines(&section(&lines, "LIRC_SET_SEND_MODE", want.len()), &want);
}

/// `-X raw`: numbers, and no date comment (as strace).
#[test]
fn ptp_raw() {
    let lines = run(&["-X", "raw"], false).after_marker();
    assert_lines(
        &section(&lines, "index=2, flags=0}", 2),
        &[
            "ioctl(-1, ADDR, {start={sec=1700000000, nsec=5}, period={sec=1, nsec=0, \
             reserved=0x9}, index=2, flags=0}) = -1 [EBADF]",
            "ioctl(-1, ADDR, {phase={sec=1700000000, nsec=5}, period={sec=1, nsec=0, \
             reserved=0x9}, index=2, flags=0x6, on={sec=0, nsec=500}}) = -1 [EBADF]",
        ],
    );
}

#[test]
fn lirc_counter_ptp_json() {
    use serde_json::{Value, json};
    let run = run(&["--json", "-e", INJECT], false);
    let objs: Vec<Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let find = |request: &str| {
        objs.iter()
            .find(|o| o["name"] == "ioctl" && o["args"]["request"] == request)
            .unwrap_or_else(|| panic!("no {request} in {}", run.trace))
    };
    assert_eq!(
        find("LIRC_GET_REC_MODE")["args"]["arg"],
        json!([{"value": 4, "name": "LIRC_MODE_MODE2"}])
    );
    assert_eq!(
        find("COUNTER_ADD_WATCH_IOCTL")["args"]["arg"]["event"],
        json!({"value": 4, "name": "COUNTER_EVENT_INDEX"})
    );
    assert_eq!(
        find("PTP_EXTTS_REQUEST2")["args"]["arg"],
        json!({"index": 1, "flags": {"value": 3, "flags": ["PTP_ENABLE_FEATURE", "PTP_RISING_EDGE"]},
               "rsv": [0, 7]})
    );
}

/// The evdev lines: failed, or answered with `-v`.
fn evdev(verbose_ok: bool) -> Vec<String> {
    if !verbose_ok {
        return [
            "ioctl(-1, EVIOCSKEYCODE, [30, KEY_ESC]) = -1 [EBADF]",
            "ioctl(-1, EVIOCGKEYCODE, &ADDR) = -1 [EBADF]",
            "ioctl(-1, EVIOCSKEYCODE_V2, {flags=0, len=2, ..}) = -1 [EBADF]",
            "ioctl(-1, EVIOCSFF, {type=FF_RUMBLE, id=-1, direction=16384, ..}) = -1 [EBADF]",
            "ioctl(-1, EVIOCSFF, {type=FF_CONSTANT, id=3, direction=0, ..}) = -1 [EBADF]",
            // The id as the int the kernel takes from the register.
            "ioctl(-1, EVIOCRMFF, 3) = -1 [EBADF]",
            // Type 0 is the event types' bitmap, not EV_SYN's.
            "ioctl(-1, EVIOCGBIT(0, 8), &ADDR) = -1 [EBADF]",
        ]
        .map(String::from)
        .to_vec();
    }
    [
        "ioctl(-1, EVIOCSKEYCODE, [30, KEY_ESC]) = 42 (INJECTED)",
        "ioctl(-1, EVIOCGKEYCODE, [30, BTN_LEFT]) = 42 (INJECTED)",
        "ioctl(-1, EVIOCSKEYCODE_V2, {flags=0, len=2, index=7, keycode=KEY_A, scancode=[0x1e, \
         0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, \
         0, 0, 0]}) = 42 (INJECTED)",
        "ioctl(-1, EVIOCSFF, {type=FF_RUMBLE, id=-1, direction=16384, trigger={button=0, \
         interval=0}, replay={length=500, delay=0}, rumble={strong_magnitude=32768, \
         weak_magnitude=256}}) = 42 (INJECTED)",
        "ioctl(-1, EVIOCSFF, {type=FF_CONSTANT, id=3, direction=0, trigger={button=0, \
         interval=0}, replay={length=0, delay=0}, constant={level=-100, \
         envelope={attack_length=10, attack_level=0, fade_length=0, fade_level=0x20}}}) \
         = 42 (INJECTED)",
        "ioctl(-1, EVIOCRMFF, 3) = 42 (INJECTED)",
    ]
    .map(String::from)
    .to_vec()
}

#[test]
fn evdev_failed() {
    let lines = run(&[], false).after_marker();
    let want = evdev(false);
    assert_lines(&section(&lines, "EVIOCSKEYCODE,", want.len()), &want);
}

#[test]
fn evdev_verbose_answered() {
    let lines = run(&["-v", "-e", INJECT], false).after_marker();
    let want = evdev(true);
    assert_lines(&section(&lines, "EVIOCSKEYCODE,", want.len()), &want);
}

/// `struct ff_effect` holds a pointer: i386's is smaller, with its own code.
#[test]
fn evdev_from_an_i386_program() {
    let lines = run(&["-v", "-e", INJECT], true).after_marker();
    let want = evdev(true);
    assert_lines(&section(&lines, "EVIOCSKEYCODE,", want.len()), &want);
}

#[test]
fn evdev_json() {
    use serde_json::{Value, json};
    let run = run(&["--json", "-v", "-e", INJECT], false);
    let objs: Vec<Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let find = |request: &str| {
        objs.iter()
            .find(|o| o["name"] == "ioctl" && o["args"]["request"] == request)
            .unwrap_or_else(|| panic!("no {request} in {}", run.trace))
    };
    assert_eq!(
        find("EVIOCSKEYCODE")["args"]["arg"],
        json!([30, {"value": 1, "name": "KEY_ESC"}])
    );
    let ff = &find("EVIOCSFF")["args"]["arg"];
    assert_eq!(ff["type"], json!({"value": 0x50, "name": "FF_RUMBLE"}));
    assert_eq!(
        ff["rumble"],
        json!({"strong_magnitude": 32768, "weak_magnitude": 256})
    );
    assert_eq!(find("EVIOCRMFF")["args"]["arg"], json!(3));
}

/// The old IDE lines, failed or answered. HDIO_DRIVE_CMD's command is
/// named (`ATA_CMD_*`, from the kernel's source), or a number (0x50).
fn hdio(ok: bool) -> Vec<String> {
    let res = if ok {
        "= 42 (INJECTED)"
    } else {
        "= -1 [EBADF]"
    };
    let answered = |arg: &str| {
        if ok {
            arg.to_string()
        } else {
            "&ADDR".to_string()
        }
    };
    let sector = format!("buf=\"disk{}\"..", "\\0".repeat(28));
    let cmd = |entry: &str, answer: &str| {
        if ok {
            format!("ioctl(-1, HDIO_DRIVE_CMD, {entry}) = 42 {answer} (INJECTED)")
        } else {
            format!("ioctl(-1, HDIO_DRIVE_CMD, {entry}) = -1 [EBADF]")
        }
    };
    vec![
        format!(
            "ioctl(-1, HDIO_GETGEO, {}) {res}",
            answered("{heads=16, sectors=63, cylinders=1024, start=2048}")
        ),
        // The answer over the header, and the sector read after it.
        cmd(
            "{command=ATA_CMD_ID_ATA, sector_number=0, feature=0, sector_count=1}",
            &format!("{{status=0xec, error=0, nsector=0, {sector}}}"),
        ),
        cmd(
            "{command=80, sector_number=0, feature=1, sector_count=1}",
            &format!("{{status=0x50, error=0, nsector=1, {sector}}}"),
        ),
        format!("ioctl(-1, HDIO_DRIVE_RESET, [0x1, 0x2, 0x30]) {res}"),
        format!("ioctl(-1, HDIO_GET_DMA, {}) {res}", answered("[1]")),
        format!(
            "ioctl(-1, HDIO_GET_NICE, {}) {res}",
            answered("[1<<IDE_NICE_DSC_OVERLAP|1<<IDE_NICE_1|0x100]")
        ),
        format!("ioctl(-1, HDIO_SET_NICE, 1<<IDE_NICE_ATAPI_OVERLAP) {res}"),
        format!(
            "ioctl(-1, HDIO_GET_BUSSTATE, {}) {res}",
            answered("[BUSSTATE_ON]")
        ),
        format!(
            "ioctl(-1, HDIO_GET_IDENTITY, {}) {res}",
            answered(&format!("\"ATA DISK{}\"..", "\\0".repeat(24)))
        ),
        // The old IDE driver's 142 bytes, shown as far as -s.
        format!(
            "ioctl(-1, HDIO_OBSOLETE_IDENTITY, {}) {res}",
            answered(&format!("\"OLD IDEK{}\"..", "\\0".repeat(24)))
        ),
    ]
}

#[test]
fn hdio_failed() {
    let lines = run(&[], false).after_marker();
    let want = hdio(false);
    assert_lines(&section(&lines, "HDIO_GETGEO", want.len()), &want);
}

#[test]
fn hdio_answered() {
    let lines = run(&["-e", INJECT], false).after_marker();
    let want = hdio(true);
    assert_lines(&section(&lines, "HDIO_GETGEO", want.len()), &want);
}

/// The two identities' sizes, seen whole with a long `-s`: the old IDE
/// driver's 142 bytes (no `..`), the drive's 512 cut at 300.
#[test]
fn hdio_identities_are_their_sizes() {
    let lines = run(&["-s", "300", "-e", INJECT], false).after_marker();
    let identity = |name: &str| {
        lines
            .iter()
            .find(|l| l.starts_with(&format!("ioctl(-1, {name}, ")))
            .unwrap_or_else(|| panic!("no {name} line in {lines:?}"))
            .clone()
    };
    assert_eq!(
        identity("HDIO_OBSOLETE_IDENTITY"),
        format!(
            "ioctl(-1, HDIO_OBSOLETE_IDENTITY, \"OLD IDEK{}\") = 42 (INJECTED)",
            "\\0".repeat(142 - 8)
        )
    );
    assert_eq!(
        identity("HDIO_GET_IDENTITY"),
        format!(
            "ioctl(-1, HDIO_GET_IDENTITY, \"ATA DISK{}\"..) = 42 (INJECTED)",
            "\\0".repeat(300 - 8)
        )
    );
}

/// `struct hd_geometry`'s `start` and the `unsigned long`s are i386's.
#[test]
fn hdio_from_an_i386_program() {
    let lines = run(&["-e", INJECT], true).after_marker();
    let want = hdio(true);
    assert_lines(&section(&lines, "HDIO_GETGEO", want.len()), &want);
}

#[test]
fn hdio_json() {
    use serde_json::{Value, json};
    let run = run(&["--json", "-e", INJECT], false);
    let objs: Vec<Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let find = |request: &str| {
        objs.iter()
            .find(|o| o["name"] == "ioctl" && o["args"]["request"] == request)
            .unwrap_or_else(|| panic!("no {request} in {}", run.trace))
    };
    assert_eq!(
        find("HDIO_GETGEO")["args"]["arg"],
        json!({"heads": 16, "sectors": 63, "cylinders": 1024, "start": 2048})
    );
    assert_eq!(
        find("HDIO_GET_BUSSTATE")["args"]["arg"],
        json!([{"value": 1, "name": "BUSSTATE_ON"}])
    );
    let cmd = &find("HDIO_DRIVE_CMD")["returned"]["arg"];
    assert_eq!(cmd["status"], json!(0xec));
}

/// `--explain-ioctl` on a request a generated-layout group decodes: its
/// type as C spells it (a plain `__u32` is no struct), and where its fields
/// come from.
#[test]
fn explain_names_the_generated_layouts() {
    let explain = |name: &str| {
        let out = common::rtrace()
            .args(["--explain-ioctl", name])
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let unwatch = explain("GPIO_GET_LINEINFO_UNWATCH_IOCTL");
    assert!(
        unwatch
            .lines()
            .any(|l| l == "  argument: pointer to __u32, decoded before the call"),
        "{unwatch}"
    );
    let info = explain("GPIO_GET_LINEINFO_IOCTL");
    let want = [
        "  argument: pointer to struct gpioline_info, decoded before and after the call",
        "  layout from rtrace's gpio decoder: struct gpioline_info (72 bytes)",
        "  its fields: the layout generated from the header (src/abi/xlat/ioctl.rs)",
    ];
    for line in want {
        assert!(info.lines().any(|l| l == line), "{line} not in {info}");
    }
}

/// The RTC lines, failed or answered.
fn rtc(ok: bool) -> Vec<String> {
    let res = if ok {
        "= 42 (INJECTED)"
    } else {
        "= -1 [EBADF]"
    };
    let answered = |arg: &str| {
        if ok {
            arg.to_string()
        } else {
            "&ADDR".to_string()
        }
    };
    let pll = "{pll_ctrl=1, pll_value=-2, pll_max=3, pll_min=-3, pll_posmult=4, \
               pll_negmult=5, pll_clock=-6}";
    vec![
        format!(
            "ioctl(-1, RTC_PARAM_SET, {{param=RTC_PARAM_FEATURES, \
             uvalue=1<<RTC_FEATURE_ALARM|1<<RTC_FEATURE_CORRECTION, index=0}}) {res}"
        ),
        // The value the kernel writes back (the code says `_IOW`), or
        // where it would be when the call failed.
        format!(
            "ioctl(-1, RTC_PARAM_GET, {{param=RTC_PARAM_FEATURES, index=0}}) {}",
            if ok {
                "= 42 {uvalue=1<<RTC_FEATURE_ALARM|1<<RTC_FEATURE_CORRECTION} (INJECTED)"
                    .to_string()
            } else {
                format!("{res} &ADDR")
            }
        ),
        format!(
            "ioctl(-1, RTC_PARAM_SET, {{param=RTC_PARAM_CORRECTION, svalue=-5, index=1, \
             __pad=0x2}}) {res}"
        ),
        format!(
            "ioctl(-1, RTC_PARAM_SET, {{param=RTC_PARAM_BACKUP_SWITCH_MODE, \
             uvalue=RTC_BSM_LEVEL, index=1}}) {res}"
        ),
        format!(
            "ioctl(-1, RTC_VL_READ, {}) {res}",
            answered("[RTC_VL_BACKUP_LOW|RTC_VL_BACKUP_SWITCH]")
        ),
        format!("ioctl(-1, RTC_PLL_SET, {pll}) {res}"),
        format!("ioctl(-1, RTC_PLL_GET, {}) {res}", answered(pll)),
    ]
}

#[test]
fn rtc_failed() {
    let lines = run(&[], false).after_marker();
    let want = rtc(false);
    assert_lines(&section(&lines, "RTC_PARAM_SET", want.len()), &want);
}

#[test]
fn rtc_answered() {
    let lines = run(&["-e", INJECT], false).after_marker();
    let want = rtc(true);
    assert_lines(&section(&lines, "RTC_PARAM_SET", want.len()), &want);
}

/// `struct rtc_pll_info`'s `long`: i386's own codes and layout.
#[test]
fn rtc_from_an_i386_program() {
    let lines = run(&["-e", INJECT], true).after_marker();
    let want = rtc(true);
    assert_lines(&section(&lines, "RTC_PARAM_SET", want.len()), &want);
}
