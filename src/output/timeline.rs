//! `--timeline FILE`: the trace as trace-event JSON, the format Perfetto's
//! UI (ui.perfetto.dev) and chrome://tracing open.
//!
//! The file is one JSON array of events, written as they happen: `[` and
//! each event as it comes (`,` before all but the first), `]` when the
//! timeline ends. Nothing is kept but the open file's buffer and, per
//! thread, the text of its current call, so a long trace costs no memory;
//! a file cut short (rtrace killed) lacks only the `]`, which Perfetto
//! accepts too. Times are microseconds since the timeline began (`ts`,
//! `dur`), written to the nanosecond as decimal text so that a slice's
//! bounds are exact.
//!
//! The events: `M` metadata naming a process (`process_name`) or a thread
//! (`thread_name`), `X` complete slices (a call, from its enter to its
//! leave), `i` instants (signals, exits, device events), `s`/`f` flow
//! arrows (a call to the device events it returned or made). The output
//! layer owns the one [`Timeline`] and calls it; nothing above writes to
//! it.
//!
//! Device events (a usbmon event a fetch returned, a user_events record a
//! write made) are instants on a track of their own per device (a USB
//! bus, a user event), at the device's own time where it gives one (a
//! usbmon event's kernel timestamp), and each has a flow arrow from the
//! call that carried it. Their tracks are made-up processes numbered
//! from 2^22 up: Linux's `pid_max` is at most 2^22, so no real process
//! shares one.

use crate::fasthash::IntMap;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{self, Write};
use std::time::{Instant, SystemTime};

/// The first made-up process id of a device track: above any real pid
/// (`PID_MAX_LIMIT` is 2^22 on 64-bit kernels).
const FIRST_DEVICE_TRACK: i64 = 1 << 22;

/// The timeline file being written.
pub struct Timeline {
    writer: Box<dyn Write>,
    /// When the timeline began: time 0.
    origin: Instant,
    /// No event was written yet (no `,` before the next).
    first: bool,
    /// The text each thread printed since its current call began, and
    /// below it the texts of calls suspended under it (signal handlers'
    /// calls run while an interrupted call waits for its restart).
    texts: IntMap<i32, Vec<String>>,
    /// The first write error; once set, nothing more is written.
    error: Option<io::Error>,
    /// The next flow arrow's id.
    next_flow: u64,
    /// The wall-clock time at time 0, in nanoseconds since the epoch: the
    /// device times (usbmon's are CLOCK_REALTIME) are placed by it.
    origin_realtime_ns: i128,
    /// The device tracks named so far, by name, with their made-up pids.
    device_tracks: HashMap<String, i64>,
    /// Per thread, the device events its current call carried, waiting
    /// for the call's end: written with its slice if it succeeded.
    carried: IntMap<i32, Vec<DeviceEvent>>,
}

/// A device event a call carried, until the call's slice is written.
struct DeviceEvent {
    /// Its track's made-up pid.
    track: i64,
    /// Its time, in nanoseconds since time 0.
    at_ns: i128,
    /// The instant's name.
    name: String,
    /// The instant's text.
    text: String,
}

/// A call, as its slice needs it.
pub struct Slice<'a> {
    /// The process (thread group) id.
    pub pid: i32,
    /// The thread id.
    pub tid: i32,
    /// The call's name: the slice's name.
    pub name: &'a str,
    /// When the call was entered.
    pub start: Instant,
    /// When it was left.
    pub end: Instant,
    /// Its arguments as JSON (`--json`), when the text is not printed.
    pub args: Option<Value>,
    /// Its raw result, if it returned one.
    pub result: Option<i64>,
}

impl Timeline {
    /// A timeline written to `writer`, its time 0 now.
    pub fn new(writer: Box<dyn Write>) -> Timeline {
        let mut timeline = Timeline {
            writer,
            origin: Instant::now(),
            first: true,
            texts: IntMap::default(),
            error: None,
            next_flow: 1,
            origin_realtime_ns: 0,
            device_tracks: HashMap::new(),
            carried: IntMap::default(),
        };
        timeline.origin_realtime_ns = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i128);
        timeline.put(b"[");
        timeline
    }

    fn put(&mut self, bytes: &[u8]) {
        if self.error.is_none()
            && let Err(e) = self.writer.write_all(bytes)
        {
            self.error = Some(e);
        }
    }

    /// The first write error, if any.
    pub fn error(&self) -> Option<&io::Error> {
        self.error.as_ref()
    }

    /// Write one event.
    fn event(&mut self, event: &Value) {
        let sep: &[u8] = if self.first { b"\n" } else { b",\n" };
        self.first = false;
        self.put(sep);
        let text = event.to_string();
        self.put(text.as_bytes());
    }

    /// Microseconds from time 0 to `at` (0 for earlier), as an exact
    /// decimal number (`12.345`).
    fn micros(&self, at: Instant) -> Value {
        micros_value(at.saturating_duration_since(self.origin).as_nanos())
    }

    /// Name thread `tid` of process `pid` after the program it runs
    /// (`M thread_name`); a process's main thread (`tid == pid`) names the
    /// process's track too (`M process_name`).
    pub fn name_thread(&mut self, pid: i32, tid: i32, name: &str) {
        if pid == tid {
            self.event(&json!({
                "ph": "M", "name": "process_name", "pid": pid, "tid": tid,
                "args": { "name": name },
            }));
        }
        self.event(&json!({
            "ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
            "args": { "name": format!("{name} {tid}") },
        }));
    }

    /// Thread `tid` begins a call: what it prints from now on is the
    /// call's text. A call entered while another is suspended (a signal
    /// handler's) gets a text of its own above the suspended call's.
    pub fn begin_text(&mut self, tid: i32) {
        self.texts.entry(tid).or_default().push(String::new());
    }

    /// The current call's text starts over (a held-back call printed
    /// after all writes its text again).
    pub fn restart_text(&mut self, tid: i32) {
        if let Some(text) = self.texts.get_mut(&tid).and_then(|t| t.last_mut()) {
            text.clear();
        }
    }

    /// Thread `tid`'s current call is dropped unprinted.
    pub fn drop_text(&mut self, tid: i32) {
        if let Some(texts) = self.texts.get_mut(&tid) {
            texts.pop();
        }
        self.carried.remove(&tid);
    }

    /// A fork child resumes its parent's call: it starts with its text.
    pub fn copy_text(&mut self, parent: i32, child: i32) {
        let text = self
            .texts
            .get(&parent)
            .and_then(|t| t.last())
            .cloned()
            .unwrap_or_default();
        self.texts.insert(child, vec![text]);
    }

    /// Thread `tid` is gone.
    pub fn forget(&mut self, tid: i32) {
        self.texts.remove(&tid);
        self.carried.remove(&tid);
    }

    /// Text thread `tid` printed: its current call's, if it is in one
    /// (a banner between calls is no call's).
    pub fn add_text(&mut self, tid: i32, text: &str) {
        if let Some(current) = self.texts.get_mut(&tid).and_then(|t| t.last_mut()) {
            current.push_str(text);
        }
    }

    /// A call ended: its slice, with the text it printed (or its JSON
    /// arguments) and its result.
    pub fn slice(&mut self, slice: Slice) {
        let text = self
            .texts
            .get_mut(&slice.tid)
            .and_then(Vec::pop)
            .unwrap_or_default();
        let dur = slice.end.saturating_duration_since(slice.start);
        let mut args = serde_json::Map::new();
        match slice.args {
            Some(a) => {
                args.insert("args".into(), a);
            }
            None => {
                args.insert("text".into(), Value::from(text.trim_end()));
            }
        }
        if let Some(r) = slice.result {
            args.insert("result".into(), Value::from(r));
        }
        let event = json!({
            "ph": "X", "name": slice.name, "cat": "call",
            "pid": slice.pid, "tid": slice.tid,
            "ts": self.micros(slice.start),
            "dur": micros_value(dur.as_nanos()),
            "args": args,
        });
        self.event(&event);
        let carried = self.carried.remove(&slice.tid).unwrap_or_default();
        if slice.result.is_some_and(|r| r < 0) {
            // A call that failed fetched or made nothing (a write to a
            // user_events fd is decoded before the kernel says whether
            // it recorded it).
            return;
        }
        for e in carried {
            self.event(&json!({
                "ph": "i", "s": "t", "name": e.name, "cat": "device",
                "pid": e.track, "tid": e.track, "ts": signed_micros(e.at_ns),
                "args": { "text": e.text },
            }));
            // The arrow leaves from the slice's start, which binds it to
            // this slice whatever the viewer's rule for its end.
            self.flow(
                (slice.pid.into(), slice.tid.into(), slice.start),
                (e.track, e.track, e.at_ns),
                slice.name,
            );
        }
    }

    /// A device event thread `tid`'s current call carried: an instant
    /// named `name` with `text` on the device's track `track` (named at
    /// its first event), at `realtime_ns` (nanoseconds since the epoch,
    /// the device's own clock) or, without one, now; an arrow from the
    /// call's slice leads to it. Both are written with the call's slice,
    /// and only if the call succeeded.
    pub fn device_event(
        &mut self,
        tid: i32,
        track: &str,
        realtime_ns: Option<i128>,
        name: &str,
        text: &str,
    ) {
        let track_pid = match self.device_tracks.get(track) {
            Some(&pid) => pid,
            None => {
                let pid = FIRST_DEVICE_TRACK + self.device_tracks.len() as i64;
                self.device_tracks.insert(track.to_string(), pid);
                self.event(&json!({
                    "ph": "M", "name": "process_name", "pid": pid, "tid": pid,
                    "args": { "name": track },
                }));
                pid
            }
        };
        let at_ns = match realtime_ns {
            Some(ns) => ns - self.origin_realtime_ns,
            None => self.nanos_since_origin(Instant::now()),
        };
        self.carried.entry(tid).or_default().push(DeviceEvent {
            track: track_pid,
            at_ns,
            name: name.to_string(),
            text: text.to_string(),
        });
    }

    /// An instant on thread `tid`'s track (a signal, an exit): `name`,
    /// with `text` as its argument.
    pub fn instant(&mut self, pid: i64, tid: i64, at: Instant, name: &str, text: &str) {
        let event = json!({
            "ph": "i", "s": "t", "name": name, "cat": "event",
            "pid": pid, "tid": tid, "ts": self.micros(at),
            "args": { "text": text },
        });
        self.event(&event);
    }

    /// A flow arrow from (`pid`, `tid`) at `from` to (`to_pid`, `to_tid`)
    /// at `to_ns` nanoseconds since time 0.
    fn flow(&mut self, from: (i64, i64, Instant), to: (i64, i64, i128), name: &str) {
        let id = self.next_flow;
        self.next_flow += 1;
        let start = self.micros(from.2);
        self.event(&json!({
            "ph": "s", "id": id, "name": name, "cat": "flow",
            "pid": from.0, "tid": from.1, "ts": start,
        }));
        self.event(&json!({
            "ph": "f", "bp": "e", "id": id, "name": name, "cat": "flow",
            "pid": to.0, "tid": to.1, "ts": signed_micros(to.2),
        }));
    }

    /// Nanoseconds from time 0 to `at`, negative when before it.
    fn nanos_since_origin(&self, at: Instant) -> i128 {
        match at.checked_duration_since(self.origin) {
            Some(d) => d.as_nanos() as i128,
            None => -(self.origin.duration_since(at).as_nanos() as i128),
        }
    }

    /// Write what is buffered to the file.
    pub fn flush(&mut self) {
        if self.error.is_none()
            && let Err(e) = self.writer.flush()
        {
            self.error = Some(e);
        }
    }
}

impl Drop for Timeline {
    /// Close the array: the file is valid JSON from here.
    fn drop(&mut self) {
        self.put(b"\n]\n");
        self.flush();
    }
}

/// `ns` nanoseconds as microseconds, exactly (`12.345`).
fn micros_value(ns: u128) -> Value {
    let text = format!("{}.{:03}", ns / 1000, ns % 1000);
    serde_json::from_str(&text).unwrap_or(Value::from(0))
}

/// Signed nanoseconds as microseconds.
fn signed_micros(ns: i128) -> Value {
    let text = format!(
        "{}{}.{:03}",
        if ns < 0 { "-" } else { "" },
        ns.unsigned_abs() / 1000,
        ns.unsigned_abs() % 1000
    );
    serde_json::from_str(&text).unwrap_or(Value::from(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::tests::Shared;

    #[test]
    fn an_empty_and_a_full_timeline_are_json_arrays() {
        let buf = Shared::default();
        drop(Timeline::new(Box::new(buf.clone())));
        let v: Value = serde_json::from_slice(&buf.0.borrow()).unwrap();
        assert_eq!(v, json!([]));

        let buf = Shared::default();
        let mut t = Timeline::new(Box::new(buf.clone()));
        let start = t.origin + std::time::Duration::from_nanos(1_234_567);
        t.name_thread(5, 5, "sh");
        t.begin_text(5);
        t.add_text(5, "read(0, \"a\", 1) = 1 ");
        t.slice(Slice {
            pid: 5,
            tid: 5,
            name: "read",
            start,
            end: start + std::time::Duration::from_nanos(2_001),
            args: None,
            result: Some(1),
        });
        drop(t);
        let v: Value = serde_json::from_slice(&buf.0.borrow()).unwrap();
        let x = &v[2];
        assert_eq!(x["ph"], "X");
        assert_eq!(x["ts"].to_string(), "1234.567");
        assert_eq!(x["dur"].to_string(), "2.001");
        assert_eq!(x["args"]["text"], "read(0, \"a\", 1) = 1");
        assert_eq!(v[0]["args"]["name"], "sh");
    }
}
