//! `--timeline FILE`: fixtures traced with it, the file parsed as JSON and
//! checked against the text trace of the same run: a named track per
//! process, one slice per printed call in the same order, slices that nest
//! on each thread, signals and exits as instants, and the usbmon events a
//! capture fetched as instants on their bus's track at their kernel
//! time, each with an arrow from the call that fetched it; likewise the
//! records a user_events producer's successful writes made.

mod common;
use common::{USBMON_RECORDING, events, fixture, name, scratch_path, trace, trace_env};
use serde_json::Value;
use std::collections::BTreeMap;

/// Run `bin` under rtrace with `args` and `--timeline`; the text trace
/// and the timeline's events.
fn traced(args: &[&str], bin: &std::path::Path) -> (String, Vec<Value>) {
    let path = scratch_path("timeline", name(bin));
    let path_text = path.to_str().expect("utf-8 path").to_string();
    let mut all = args.to_vec();
    all.extend(["--timeline", &path_text]);
    let run = trace(&all, &[name(bin)]);
    assert!(run.code().is_some(), "{}", run.stderr());
    let bytes = std::fs::read(&path).expect("timeline written");
    let _ = std::fs::remove_file(&path);
    let events: Value = serde_json::from_slice(&bytes).expect("timeline is JSON");
    let Value::Array(events) = events else {
        panic!("not an array: {events}");
    };
    (run.trace, events)
}

/// Nanoseconds from a `ts`/`dur` value in microseconds.
fn ns(v: &Value) -> i64 {
    (v.as_f64().expect("a number") * 1000.0).round() as i64
}

/// The call slices per thread, in order of their start.
fn slices(events: &[Value]) -> BTreeMap<i64, Vec<&Value>> {
    let mut by_tid: BTreeMap<i64, Vec<&Value>> = BTreeMap::new();
    for e in events.iter().filter(|e| e["ph"] == "X") {
        by_tid
            .entry(e["tid"].as_i64().unwrap())
            .or_default()
            .push(e);
    }
    for list in by_tid.values_mut() {
        list.sort_by_key(|e| (ns(&e["ts"]), -ns(&e["dur"])));
    }
    by_tid
}

/// Each thread's slices nest: a slice starts after the one before it
/// ended or lies inside it, never across its end.
fn assert_nested(by_tid: &BTreeMap<i64, Vec<&Value>>) {
    for (tid, list) in by_tid {
        let mut open: Vec<(i64, &Value)> = Vec::new();
        for e in list {
            let (start, end) = (ns(&e["ts"]), ns(&e["ts"]) + ns(&e["dur"]));
            assert!(end >= start, "negative duration: {e}");
            while open.last().is_some_and(|(top_end, _)| *top_end <= start) {
                open.pop();
            }
            if let Some((top_end, top)) = open.last() {
                assert!(end <= *top_end, "thread {tid}: {e} overlaps {top}");
            }
            open.push((end, e));
        }
    }
}

/// The call names the text trace starts a line with, per process:
/// `PID| ` names a line's process, `PID' ` the one left (whose lines then
/// have no prefix), and lines before any prefix are `first`'s. Replays
/// (`*name(`) continue a call and are not counted.
fn text_calls(trace: &str, first: i64) -> BTreeMap<i64, Vec<String>> {
    let mut calls: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    let mut alone = first;
    for line in trace.lines() {
        let digits = line.bytes().take_while(u8::is_ascii_digit).count();
        let (owner, rest) = match line.as_bytes().get(digits) {
            Some(b'|') if digits > 0 => (line[..digits].parse().unwrap(), &line[digits + 1..]),
            Some(b'\'') if digits > 0 => {
                alone = line[..digits].parse().unwrap();
                (alone, &line[digits + 1..])
            }
            _ => (alone, line),
        };
        let rest = rest.strip_prefix(' ').unwrap_or(rest);
        let Some((name, _)) = rest.split_once('(') else {
            continue;
        };
        let plain = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if plain {
            calls.entry(owner).or_default().push(name.to_string());
        }
    }
    calls
}

fn instants(events: &[Value], tid: i64) -> Vec<&str> {
    events
        .iter()
        .filter(|e| e["ph"] == "i" && e["tid"] == tid)
        .map(|e| e["args"]["text"].as_str().unwrap())
        .collect()
}

#[test]
fn calls_are_slices_in_the_order_and_with_the_text_of_the_trace() {
    let bin = fixture("signals");
    let (text, events) = traced(&[], &bin);
    let by_tid = slices(&events);
    assert_eq!(by_tid.len(), 1, "one thread");
    let (&tid, list) = by_tid.iter().next().unwrap();
    assert_nested(&by_tid);
    let names: Vec<&str> = list.iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(names, text_calls(&text, tid)[&tid]);
    // A call the text prints on one line has that line as its text.
    let whole: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("write(-1, \"BEGIN\"") || l.starts_with("rt_sigreturn"))
        .collect();
    assert!(whole.len() > 1, "{text}");
    for line in whole {
        assert!(
            list.iter().any(|e| e["args"]["text"] == line),
            "no slice has the text {line:?}"
        );
    }
    // Handler calls run inside the interrupted read: nested slices.
    let read = list
        .iter()
        .find(|e| e["name"] == "read" && e["args"]["text"].as_str().unwrap().contains("\"b\""))
        .expect("the restarted read");
    let inside = list
        .iter()
        .filter(|e| {
            e["name"] == "rt_sigreturn"
                && ns(&e["ts"]) > ns(&read["ts"])
                && ns(&e["ts"]) + ns(&e["dur"]) <= ns(&read["ts"]) + ns(&read["dur"])
        })
        .count();
    assert!(inside >= 2, "handler calls inside {read}");
    // Each signal is an instant with the text the trace shows.
    let got = instants(&events, tid);
    let signals: Vec<&&str> = got.iter().filter(|t| t.starts_with("** SIG")).collect();
    assert!(signals.len() >= 4, "{got:?}");
    for s in &signals {
        assert!(text.contains(**s), "{s} not in the trace");
    }
    assert_eq!(got.last(), Some(&"Process exited normally with code 0"));
    let names: Vec<&Value> = events.iter().filter(|e| e["ph"] == "M").collect();
    assert!(
        names
            .iter()
            .any(|e| e["name"] == "process_name" && e["args"]["name"] == "signals"),
        "{names:?}"
    );
}

#[test]
fn each_process_is_a_track_with_its_calls_and_exit() {
    let bin = fixture("fork_wait");
    let (text, events) = traced(&["-f"], &bin);
    let by_tid = slices(&events);
    assert_eq!(by_tid.len(), 2, "parent and child: {by_tid:?}");
    assert_nested(&by_tid);
    let first = *by_tid.keys().next().unwrap();
    let mut codes = Vec::new();
    for (&tid, list) in &by_tid {
        // The process is named after its program, on its own track.
        assert!(
            events.iter().any(|e| e["ph"] == "M"
                && e["name"] == "process_name"
                && e["pid"] == tid
                && e["args"]["name"] == "fork_wait"),
            "no track for {tid}"
        );
        assert!(list.iter().all(|e| e["pid"] == tid));
        let names: Vec<&str> = list.iter().map(|e| e["name"].as_str().unwrap()).collect();
        let expected = &text_calls(&text, first)[&tid];
        assert_eq!(&names, expected, "thread {tid}");
        let fork = list.iter().find(|e| e["name"] == "fork").unwrap();
        if tid != first {
            // The child's half of its parent's fork.
            assert_eq!(fork["args"]["text"], "fork() = 0");
            assert_eq!(fork["args"]["result"], 0);
        } else {
            assert_eq!(
                fork["args"]["result"],
                by_tid.keys().nth(1).copied().unwrap()
            );
        }
        let exits = instants(&events, tid);
        let exit = exits.last().expect("an exit instant");
        codes.push(exit.to_string());
    }
    codes.sort();
    assert_eq!(
        codes,
        [
            "Process exited normally with code 0",
            "Process exited normally with code 7"
        ]
    );
}

#[test]
fn an_unwritable_timeline_is_one_line_of_error() {
    let bin = fixture("fork_wait");
    let run = trace(&["--timeline", "/nonexistent/dir/t.json"], &[name(&bin)]);
    assert_eq!(run.code(), Some(1));
    assert_eq!(
        run.stderr(),
        "rtrace: cannot open '/nonexistent/dir/t.json': No such file or directory\n"
    );
}

#[test]
fn with_json_the_slices_carry_the_calls_json_arguments() {
    let bin = fixture("fork_wait");
    let (text, events) = traced(&["--json"], &bin);
    let calls: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a JSON line"))
        .filter(|o| o["type"] == "call")
        .collect();
    let by_tid = slices(&events);
    assert_eq!(by_tid.len(), 1);
    let list = by_tid.values().next().unwrap();
    assert_eq!(list.len(), calls.len());
    for (slice, call) in list.iter().zip(&calls) {
        assert_eq!(slice["name"], call["name"]);
        assert_eq!(slice["args"]["args"], call["args"]);
        assert_eq!(
            slice["args"].get("result"),
            call.get("result").filter(|r| !r.is_null())
        );
    }
}

/// Microseconds since the epoch of an event's kernel time as rtrace
/// prints it (`ID SECONDS.MICROSECONDS ...`).
fn kernel_micros(event_text: &str) -> f64 {
    let stamp = event_text.split(' ').nth(1).expect("a time stamp");
    let (sec, usec) = stamp.split_once('.').expect("SECONDS.MICROSECONDS");
    sec.parse::<f64>().unwrap() * 1e6 + usec.parse::<f64>().unwrap()
}

#[test]
fn usbmon_events_are_instants_on_their_bus_at_kernel_time_with_arrows_from_the_fetch() {
    let path = scratch_path("timeline", "tcpdump");
    let path_text = path.to_str().unwrap().to_string();
    let run = trace(
        &[
            "-f",
            "--usbmon-replay",
            USBMON_RECORDING,
            "--timeline",
            &path_text,
        ],
        &["tcpdump", "-i", "usbmon0", "-c", "34", "-w", "/dev/null"],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let bytes = std::fs::read(&path).expect("timeline written");
    let _ = std::fs::remove_file(&path);
    let Value::Array(all) = serde_json::from_slice::<Value>(&bytes).expect("JSON") else {
        panic!("not an array");
    };
    let printed = events(&run.lines());
    assert_eq!(printed.len(), 34, "{}", run.trace);
    let device: Vec<&Value> = all.iter().filter(|e| e["cat"] == "device").collect();
    // One instant per event the trace printed, with its text, in order.
    let texts: Vec<&str> = device
        .iter()
        .map(|e| e["args"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, printed);
    let by_tid = slices(&all);
    assert_nested(&by_tid);
    let offset = kernel_micros(&printed[0]) - device[0]["ts"].as_f64().unwrap();
    for (instant, text) in device.iter().zip(&printed) {
        assert_eq!(instant["ph"], "i");
        // Named by its kind and address, as the kernel's text names it.
        let words: Vec<&str> = text.split(' ').collect();
        assert_eq!(instant["name"], format!("{} {}", words[2], words[3]));
        // Its track is its bus's.
        let bus = words[3].split(':').nth(1).unwrap();
        assert!(
            all.iter().any(|e| e["ph"] == "M"
                && e["name"] == "process_name"
                && e["pid"] == instant["pid"]
                && e["args"]["name"] == format!("usbmon bus {bus}")),
            "no track named for bus {bus}"
        );
        // At its kernel time: the same offset from time 0 for every event.
        let here = kernel_micros(text) - instant["ts"].as_f64().unwrap();
        assert!(
            (here - offset).abs() < 0.01,
            "{text}: {here} against {offset}"
        );
        // One arrow ends at it, and leaves from the start of the ioctl
        // slice that fetched it.
        let ends: Vec<&Value> = all
            .iter()
            .filter(|e| e["ph"] == "f" && e["pid"] == instant["pid"] && e["ts"] == instant["ts"])
            .collect();
        assert_eq!(ends.len(), 1, "{text}");
        let start = all
            .iter()
            .find(|e| e["ph"] == "s" && e["id"] == ends[0]["id"])
            .expect("the arrow's start");
        let fetch = by_tid[&start["tid"].as_i64().unwrap()]
            .iter()
            .find(|e| e["ts"] == start["ts"])
            .expect("a slice where the arrow starts");
        assert_eq!(fetch["name"], "ioctl");
        let fetch_text = fetch["args"]["text"].as_str().unwrap();
        assert!(fetch_text.contains("MON_IOCX_MFETCH"), "{fetch_text}");
    }
}

/// Under `--usbmon-replay-pace` an event happens during the replay and is
/// stamped with the real time it arrived at (without pacing the
/// recording's own stamps are kept, days before the trace): on the
/// timeline each event sits inside the trace, after the command's first
/// call began and before the MFETCH that returned it ended, and the
/// events keep the recording's spacing (two passes, the second a period
/// later). The wall clock and the monotonic one the slices are timed by
/// may be slewed apart by NTP (at most 500 ppm, 2 ms over this run): the
/// bounds allow 5 ms.
#[test]
fn paced_usbmon_events_sit_within_the_trace() {
    let path = scratch_path("timeline", "tcpdump-paced");
    let path_text = path.to_str().unwrap().to_string();
    let run = trace(
        &[
            "-f",
            "--usbmon-replay",
            USBMON_RECORDING,
            "--usbmon-replay-pace",
            "--usbmon-replay-loop=2",
            "--timeline",
            &path_text,
        ],
        &["tcpdump", "-i", "usbmon0", "-c", "68", "-w", "/dev/null"],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let bytes = std::fs::read(&path).expect("timeline written");
    let _ = std::fs::remove_file(&path);
    let Value::Array(all) = serde_json::from_slice::<Value>(&bytes).expect("JSON") else {
        panic!("not an array");
    };
    let printed = events(&run.lines());
    assert_eq!(printed.len(), 68, "{}", run.trace);
    let device: Vec<&Value> = all.iter().filter(|e| e["cat"] == "device").collect();
    let texts: Vec<&str> = device
        .iter()
        .map(|e| e["args"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, printed);
    let by_tid = slices(&all);
    let first_call = by_tid
        .values()
        .flatten()
        .map(|e| ns(&e["ts"]))
        .min()
        .unwrap();
    let slack = 5_000_000; // ns
    for (instant, text) in device.iter().zip(&printed) {
        let at = ns(&instant["ts"]);
        assert!(
            at >= first_call - slack,
            "{text} at {at} before the trace began"
        );
        let end = all
            .iter()
            .find(|e| e["ph"] == "f" && e["pid"] == instant["pid"] && e["ts"] == instant["ts"])
            .and_then(|f| all.iter().find(|e| e["ph"] == "s" && e["id"] == f["id"]))
            .and_then(|s| {
                by_tid[&s["tid"].as_i64().unwrap()]
                    .iter()
                    .find(|e| e["ts"] == s["ts"] && e["name"] == "ioctl")
            })
            .map(|fetch| ns(&fetch["ts"]) + ns(&fetch["dur"]))
            .unwrap_or_else(|| panic!("no fetching MFETCH for {text}"));
        assert!(
            at <= end + slack,
            "{text} at {at} ns, after the MFETCH that returned it ended ({end} ns)"
        );
    }
    // The spacing is the printed stamps', which the replay tests check
    // against the recording's: the same offset for every event.
    let offset = kernel_micros(&printed[0]) - device[0]["ts"].as_f64().unwrap();
    for (instant, text) in device.iter().zip(&printed) {
        let here = kernel_micros(text) - instant["ts"].as_f64().unwrap();
        assert!(
            (here - offset).abs() < 0.01,
            "{text}: {here} against {offset}"
        );
    }
    let gap = kernel_micros(&printed[34]) - kernel_micros(&printed[0]);
    assert!(
        (gap - 2e6).abs() < 0.5,
        "the second pass began {gap} µs after the first"
    );
}

#[test]
fn user_events_writes_are_instants_on_their_events_track_with_arrows_from_the_write() {
    fixture("uevents_producer");
    let path = scratch_path("timeline", "uevents");
    let path_text = path.to_str().unwrap().to_string();
    let run = trace_env(
        &[
            "--user-events-emulate",
            "--user-events-enable",
            "rtrace_probe,rtrace_multi",
            "--timeline",
            &path_text,
        ],
        &["uevents_producer"],
        &[("UEVENTS_EMU_ATTACHED", "1")],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let bytes = std::fs::read(&path).expect("timeline written");
    let _ = std::fs::remove_file(&path);
    let Value::Array(all) = serde_json::from_slice::<Value>(&bytes).expect("JSON") else {
        panic!("not an array");
    };
    // The writes that succeeded, and only they (the producer's failing
    // writes are decoded too, before the kernel refuses them).
    let device: Vec<(&str, &str)> = all
        .iter()
        .filter(|e| e["cat"] == "device")
        .map(|e| {
            (
                e["name"].as_str().unwrap(),
                e["args"]["text"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        device,
        [
            ("rtrace_probe", "rtrace_probe: count=5 tag=abc"),
            ("rtrace_probe", "rtrace_probe: count=7 tag=xyz"),
            (
                "rtrace_multi",
                "rtrace_multi: a=-42 b=48879 c=200 msg=hello note=world!"
            ),
        ]
    );
    let by_tid = slices(&all);
    for instant in all.iter().filter(|e| e["cat"] == "device") {
        let track = format!("user_events {}", instant["name"].as_str().unwrap());
        assert!(
            all.iter().any(|e| e["ph"] == "M"
                && e["pid"] == instant["pid"]
                && e["args"]["name"] == track),
            "no track {track}"
        );
        let end = all
            .iter()
            .find(|e| e["ph"] == "f" && e["pid"] == instant["pid"] && e["ts"] == instant["ts"])
            .expect("an arrow to the record");
        let start = all
            .iter()
            .find(|e| e["ph"] == "s" && e["id"] == end["id"])
            .expect("the arrow's start");
        let write = by_tid[&start["tid"].as_i64().unwrap()]
            .iter()
            .find(|e| e["ts"] == start["ts"])
            .expect("the write's slice");
        assert!(
            write["name"] == "write" || write["name"] == "writev",
            "{write}"
        );
        let text = write["args"]["text"].as_str().unwrap();
        assert!(
            text.contains(&format!("<{}>", instant["name"].as_str().unwrap())),
            "{text}"
        );
        assert!(write["args"]["result"].as_i64().unwrap() > 0, "{write}");
    }
}
