//! user_events without CONFIG_USER_EVENTS (`--user-events-emulate`): the
//! started command sees `/sys/kernel/tracing/user_events_data` (and the
//! debugfs path `/sys/kernel/debug/tracing/...`), `user_events_status`
//! and each event's `events/user_events/NAME/enable` and `format`,
//! answered as kernel/trace/trace_events_user.c would ([`supervisor`],
//! [`events`]), with a tracer that records every event from its creation
//! until the program writes `0` to its `enable` file. The records that
//! tracer's buffer would hold are kept ([`ftrace`]) and given to the
//! engine, which prints them after the trace as the `trace` file shows
//! them. HACKING.md ("user_events emulation") tells how it fits together.

pub mod events;
pub mod ftrace;
pub mod paths;
pub mod supervisor;

use crate::emu::notify::Attach;
use std::sync::{Arc, Mutex};

/// The emulation: the trace buffer it fills, shared with its thread.
pub struct Emulation {
    records: Arc<Mutex<Vec<ftrace::Record>>>,
    /// The events the tracer records (by registered name); None: all.
    enable: Option<Arc<Vec<Vec<u8>>>>,
}

/// The x86_64 calls handed to the supervisor.
fn native_calls() -> Vec<u32> {
    use syscalls::x86_64::Sysno as S;
    [S::openat, S::open, S::ioctl, S::write, S::writev]
        .iter()
        .map(|s| *s as u32)
        .collect()
}

/// The same calls of 32-bit (i386) callers: user_events has no compat
/// ioctl, but a 32-bit program opens, reads and writes the files.
fn compat_calls() -> Vec<u32> {
    use syscalls::x86::Sysno as S;
    [S::openat, S::open, S::ioctl, S::write, S::writev]
        .iter()
        .map(|s| *s as u32)
        .collect()
}

impl Emulation {
    /// A new emulation with an empty trace buffer whose tracer records
    /// the events named in `enable` (None: every event) from their
    /// creation.
    pub fn new(enable: Option<Vec<String>>) -> Emulation {
        Emulation {
            records: Arc::default(),
            enable: enable.map(|v| Arc::new(v.into_iter().map(String::into_bytes).collect())),
        }
    }

    /// Before the fork: the filter the child installs.
    pub fn prepare(&self) -> std::io::Result<Attach> {
        Attach::new(
            crate::emu::notify::filter(&native_calls(), &compat_calls()),
            "rtrace: --user-events-emulate: cannot install the emulation's seccomp filter\n",
        )
    }

    /// After the fork: serve the child's filter on a thread of its own
    /// until no filtered process is left.
    pub fn serve(&self, setup: Attach) {
        let records = self.records.clone();
        let enable = self.enable.clone();
        crate::emu::notify::spawn("user-events", setup.forked(), move |listener| {
            supervisor::serve(listener, records, enable)
        });
    }

    /// The trace buffer so far as ftrace's `trace` file shows it: its
    /// header, then one line per record, each decoded with its event's
    /// fields even when the event is gone by now (the kernel's file then
    /// says `Unknown type ID`, which would tell the user nothing).
    pub fn trace_text(&self) -> String {
        match self.records.lock() {
            Ok(r) => ftrace::trace_file(&r, |r| Some((r.event.clone(), r.fields.clone()))),
            Err(_) => ftrace::trace_file(&[], |_| None),
        }
    }
}
