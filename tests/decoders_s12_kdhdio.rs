//! The console requests of `<linux/kd.h>` and the old IDE requests of
//! `<linux/hdreg.h>` (issue 25, session 12): the `ioctl_kdhdio` fixture
//! makes each request on fd -1 with exact arguments. Plain, the calls fail
//! and what the program asks shows; under `-e inject=ioctl:retval=42` they
//! succeed without reaching a driver, and what the fixture left in the
//! answer fields shows as the kernel's answer. The lines are strace 6's
//! information in rtrace's grammar; addresses are normalised.

mod common;

use common::{assert_lines, trace};

/// Run the fixture under rtrace with `args`; its ioctl lines from the
/// marker on (the mappings it makes between them are not the point).
fn run(args: &[&str]) -> Vec<String> {
    let bin = common::fixture("ioctl_kdhdio");
    let run = trace(args, &[bin.file_name().unwrap().to_str().unwrap()]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = run.after_marker();
    lines
        .into_iter()
        .filter(|l| l.starts_with("ioctl("))
        .collect()
}

const INJECT: &str = "inject=ioctl:retval=42";

/// The `n` lines from the first one naming `first`.
fn section(lines: &[String], first: &str, n: usize) -> Vec<String> {
    let at = lines
        .iter()
        .position(|l| l.contains(first))
        .unwrap_or_else(|| panic!("no {first} in:\n{}", lines.join("\n")));
    lines[at..(at + n).min(lines.len())].to_vec()
}

/// The bytes 0x84.. the fixture put after the second header, `n` of them,
/// as rtrace quotes them.
fn sector_bytes(n: u8) -> String {
    (0..n).map(|i| format!("\\{:o}", 0x84 + i)).collect()
}

/// HDIO_DRIVE_CMD's lines: the command named from the kernel's ATA
/// commands (0x80 is none), and after a success the status, error and
/// count the kernel wrote over the header, with the sectors read: 33 bytes
/// mapped show the 32 of `-s` (under `-v` too, which does not raise a
/// table's limit); 16 mapped are fewer than shown, so the pointer.
fn hdio(ok: bool, xverbose: bool) -> Vec<String> {
    let (request, write, unknown) = if xverbose {
        (
            "0x31f /* HDIO_DRIVE_CMD */",
            "0xca /* ATA_CMD_WRITE */",
            "0x80",
        )
    } else {
        ("HDIO_DRIVE_CMD", "ATA_CMD_WRITE", "128")
    };
    let shown = 32;
    let line = |entry: String, answer: String| {
        if ok {
            format!("ioctl(-1, {request}, {entry}) = 42 {answer} (INJECTED)")
        } else {
            format!("ioctl(-1, {request}, {entry}) = -1 [EBADF]")
        }
    };
    vec![
        line(
            format!("{{command={write}, sector_number=255, feature=238, sector_count=0}}"),
            "{status=0xca, error=255, nsector=238}".into(),
        ),
        line(
            format!("{{command={unknown}, sector_number=129, feature=130, sector_count=131}}"),
            format!(
                "{{status=0x80, error=129, nsector=130, buf=\"{}\"..}}",
                sector_bytes(shown)
            ),
        ),
        line(
            format!("{{command={unknown}, sector_number=129, feature=130, sector_count=1}}"),
            "{status=0x80, error=129, nsector=130, buf=&ADDR}".into(),
        ),
    ]
}

#[test]
fn hdio_drive_cmd_failed() {
    let want = hdio(false, false);
    assert_lines(&section(&run(&[]), "HDIO_DRIVE_CMD", 3), &want);
}

#[test]
fn hdio_drive_cmd_answered() {
    let want = hdio(true, false);
    let lines = run(&["-e", INJECT]);
    assert_lines(&section(&lines, "HDIO_DRIVE_CMD", 3), &want);
}

#[test]
fn hdio_drive_cmd_answered_verbose() {
    let want = hdio(true, false);
    let lines = run(&["-v", "-e", INJECT]);
    assert_lines(&section(&lines, "HDIO_DRIVE_CMD", 3), &want);
}

#[test]
fn hdio_drive_cmd_xverbose() {
    let want = hdio(true, true);
    let lines = run(&["-X", "verbose", "-e", INJECT]);
    assert_lines(&section(&lines, "HDIO_DRIVE_CMD", 3), &want);
}

#[test]
fn hdio_drive_cmd_json() {
    use serde_json::{Value, json};
    let bin = common::fixture("ioctl_kdhdio");
    let run = trace(
        &["--json", "-e", INJECT],
        &[bin.file_name().unwrap().to_str().unwrap()],
    );
    let cmds: Vec<Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .filter(|o: &Value| o["name"] == "ioctl" && o["args"]["request"] == "HDIO_DRIVE_CMD")
        .collect();
    assert_eq!(cmds.len(), 3, "{}", run.trace);
    assert_eq!(
        cmds[0]["args"]["arg"]["command"],
        json!({"value": 0xca, "name": "ATA_CMD_WRITE"})
    );
    assert_eq!(cmds[1]["args"]["arg"]["command"], json!(0x80));
    assert_eq!(cmds[1]["returned"]["arg"]["nsector"], json!(130));
}

/// Separates a call from what the kernel answers, in [`kd`]'s rows.
const ANSWER: &str = " => ";

/// A row of [`kd`] whose call has an answer after a success.
fn answers(call: &str, answer: &str) -> String {
    format!("{call}{ANSWER}{answer}")
}

/// The console requests: values with their notes (`/* 2711 Hz */`, `/*
/// GPFIRST + 12 */`), garbage upper halves dropped where the kernel reads
/// an `unsigned int`, the byte or int the kernel writes through a pointer
/// after a success (the pointer after a failure), keymap entries (the
/// table and index asked, the value answered or set, named as
/// `<linux/keyboard.h>` builds it), and the screen map as a
/// string: the one the kernel answers after a success, the one the program
/// gives whether or not the call fails, the pointer when fewer than the
/// 32 bytes shown and one more can be read.
fn kd(ok: bool) -> Vec<String> {
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
    [
        "KIOCSOUND, 0 /* off */".to_string(),
        "KIOCSOUND, 440 /* 2711 Hz */".into(),
        "KIOCSOUND, 13464652297489353366 /* off */".into(),
        "KDMKTONE, 440 /* off */".into(),
        "KDMKTONE, 1<<16|1 /* 1193182 Hz, 1 ms */".into(),
        "KDGETLED, NULL".into(),
        format!("KDGETLED, {}", answered("[LED_SCR|LED_NUM|LED_CAP]")),
        "KDSETLED, LED_NUM|LED_CAP|0xf8".into(),
        format!(
            "KDGKBLED, {}",
            answered("[LED_SCR|LED_SCR<<4|LED_NUM<<4|LED_CAP<<4]")
        ),
        "KDSKBLED, LED_SCR<<4".into(),
        format!("KDGKBTYPE, {}", answered("[KB_101]")),
        "KDSETMODE, KD_GRAPHICS".into(),
        format!("KDGETMODE, {}", answered("[KD_TEXT]")),
        "KDSKBMODE, K_UNICODE".into(),
        "KDSKBMODE, -1".into(),
        format!("KDGKBMODE, {}", answered("[K_OFF]")),
        "KDSKBMETA, K_METABIT".into(),
        format!("KDGKBMETA, {}", answered("[K_ESCPREFIX]")),
        "KDSIGACCEPT, SIGUSR1".into(),
        "KDSIGACCEPT, 128".into(),
        "KDADDIO, 0x3c0 /* GPFIRST + 12 */".into(),
        "KDENABIO".into(),
        answers(
            "KDGKBENT, {kb_table=K_NORMTAB, kb_index=30}",
            "{kb_value=0x61 /* K(KT_LATIN, 'a') */}",
        ),
        "KDSKBENT, {kb_table=1<<KG_ALT|1<<KG_CTRLR, kb_index=59, kb_value=0x100 /* K_F1 */}".into(),
        "KDSKBENT, {kb_table=1<<KG_ALT|1<<KG_CTRLR, kb_index=59, kb_value=0x214 /* K(KT_SPEC, \
         0x14) */}"
            .into(),
        "KDSKBENT, {kb_table=1<<KG_ALT|1<<KG_CTRLR, kb_index=59, kb_value=0xf00d /* K(0xf0, 0xd) \
         */}"
        .into(),
        // The value's bytes are past the mapping: the table and index show
        // (they are the value's bytes 0x0d, 0xf0), the answer cannot.
        answers(
            "KDGKBENT, {kb_table=1<<KG_SHIFT|1<<KG_CTRL|1<<KG_ALT, kb_index=240}",
            "&ADDR",
        ),
        answers(
            "KDGETKEYCODE, {scancode=0x1e, keycode=0x1e}",
            "{keycode=0x1e}",
        ),
        "KDSETKEYCODE, {scancode=0x1e, keycode=0x1e}".into(),
        answers("KDKBDREP, {delay=250, period=-1}", "{delay=250, period=-1}"),
        "PIO_UNIMAPCLR, {advised_hashsize=256, advised_hashstep=3, advised_hashlevel=1}".into(),
        answers("KDGKBSENT, {kb_func=KVAL(K_F2)}", "{kb_string=\"\\33[[B\"}"),
        "KDSKBSENT, {kb_func=KVAL(K_PGDN), kb_string=\"\\33[[B\"}".into(),
        format!("GIO_SCRNMAP, {}", answered(&map(0))),
        format!("PIO_SCRNMAP, {}", map(0)),
        "PIO_SCRNMAP, &ADDR".into(),
        format!("PIO_SCRNMAP, {}", map(223)),
    ]
    .into_iter()
    .map(|call| match call.split_once(ANSWER) {
        // What the kernel answered follows a success's result.
        Some((call, answer)) if ok => format!("ioctl(-1, {call}) = 42 {answer} (INJECTED)"),
        Some((call, _)) => format!("ioctl(-1, {call}) {res}"),
        None => format!("ioctl(-1, {call}) {res}"),
    })
    .collect()
}

/// The fixture's screen map (byte i is i, 256 of them) from byte `from`
/// (223: the last 33): the 32 bytes
/// `-s` shows, cut.
fn map(from: u8) -> String {
    let bytes: Vec<u8> = (from..).take(32).collect();
    common::quoted(&bytes, true)
}

#[test]
fn kd_failed() {
    let want = kd(false);
    assert_lines(&section(&run(&[]), "KIOCSOUND", want.len()), &want);
}

#[test]
fn kd_answered() {
    let want = kd(true);
    let lines = run(&["-e", INJECT]);
    assert_lines(&section(&lines, "KIOCSOUND", want.len()), &want);
}

/// Under `-X raw` the numbers alone, without the notes (as strace).
#[test]
fn kd_raw_numbers() {
    let lines = run(&["-X", "raw", "-e", INJECT]);
    let lines = section(&lines, "0x4b2f", 5);
    assert_lines(
        &lines,
        &[
            "ioctl(-1, 0x4b2f, 0) = 42 (INJECTED)",
            "ioctl(-1, 0x4b2f, 440) = 42 (INJECTED)",
            "ioctl(-1, 0x4b2f, 13464652297489353366) = 42 (INJECTED)",
            "ioctl(-1, 0x4b30, 440) = 42 (INJECTED)",
            "ioctl(-1, 0x4b30, 1<<16|1) = 42 (INJECTED)",
        ],
    );
}

#[test]
fn kd_json() {
    use serde_json::{Value, json};
    let bin = common::fixture("ioctl_kdhdio");
    let run = trace(
        &["--json", "-e", INJECT],
        &[bin.file_name().unwrap().to_str().unwrap()],
    );
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
    assert_eq!(find("KIOCSOUND")["args"]["arg"], json!(0));
    assert_eq!(
        find("KDSETMODE")["args"]["arg"],
        json!({"value": 1, "name": "KD_GRAPHICS"})
    );
    assert_eq!(
        find("KDGKBTYPE")["args"]["arg"],
        json!([{"value": 2, "name": "KB_101"}])
    );
    assert_eq!(
        find("KDSETLED")["args"]["arg"],
        json!({"value": 0xfe, "flags": ["LED_NUM", "LED_CAP", "0xf8"]})
    );
}

/// A table's limit is `-s`, which `-v` does not raise (as strace): under
/// `-v` the screen map shows its first 32 bytes; under `-s 256` all of
/// it, and a map of which 33 bytes can be read prints as its pointer.
#[test]
fn tables_take_s_not_v() {
    let lines = run(&["-v", "-e", INJECT]);
    assert_lines(
        &section(&lines, "GIO_SCRNMAP", 4),
        &[
            format!("ioctl(-1, GIO_SCRNMAP, {}) = 42 (INJECTED)", map(0)),
            format!("ioctl(-1, PIO_SCRNMAP, {}) = 42 (INJECTED)", map(0)),
            "ioctl(-1, PIO_SCRNMAP, &ADDR) = 42 (INJECTED)".to_string(),
            format!("ioctl(-1, PIO_SCRNMAP, {}) = 42 (INJECTED)", map(223)),
        ],
    );
    let lines = run(&["-s", "256", "-e", INJECT]);
    let all: Vec<u8> = (0..=255).collect();
    // Exact: the map holds `#` and `*`, which assert_lines takes for
    // patterns.
    let whole = common::quoted(&all, false);
    assert_eq!(
        section(&lines, "GIO_SCRNMAP", 4)[..2],
        [
            format!("ioctl(-1, GIO_SCRNMAP, {whole}) = 42 (INJECTED)"),
            format!("ioctl(-1, PIO_SCRNMAP, {whole}) = 42 (INJECTED)"),
        ]
    );
    assert_lines(
        &section(&lines, "GIO_SCRNMAP", 4)[2..],
        &[
            "ioctl(-1, PIO_SCRNMAP, &ADDR) = 42 (INJECTED)",
            "ioctl(-1, PIO_SCRNMAP, &ADDR) = 42 (INJECTED)",
        ],
    );
}
