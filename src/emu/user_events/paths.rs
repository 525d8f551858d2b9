//! The tracefs paths the emulation answers (which file an open names)
//! and the files it gives for them: memfds holding a text made at the open
//! (`user_events_status`, `format`, a read-only `enable`, `trace`), and
//! the placeholder pipes whose inode names an emulated file description.

use std::os::fd::{FromRawFd, OwnedFd};

/// The (dev, inode) of a FIFO at fd `fd` of `tid`.
pub fn fifo_of(tid: i32, fd: u64) -> Option<(u64, u64)> {
    let fd = i32::try_from(fd as u32).ok().filter(|&f| f >= 0)?;
    let meta = std::fs::metadata(format!("/proc/{tid}/fd/{fd}")).ok()?;
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    meta.file_type().is_fifo().then(|| (meta.dev(), meta.ino()))
}

/// What an open names.
pub enum Target {
    /// `user_events_data`.
    Data,
    /// `user_events_status`.
    Status,
    /// `trace`: the trace buffer as text (the instance's, top level).
    Trace,
    /// `events/SYSTEM/NAME/enable` or `format`: system, name, which.
    EventFile(Vec<u8>, Vec<u8>, bool),
}

/// What `path` names under a `.../tracing/` directory (tracefs, or
/// debugfs's `tracing`), or None for another file.
pub fn target(path: &[u8]) -> Option<Target> {
    let t = path.windows(9).rposition(|w| w == b"/tracing/")?;
    let rest = &path[t + 9..];
    match rest {
        b"user_events_data" => return Some(Target::Data),
        b"user_events_status" => return Some(Target::Status),
        b"trace" => return Some(Target::Trace),
        _ => {}
    }
    let parts: Vec<&[u8]> = rest.split(|&b| b == b'/').collect();
    match parts.as_slice() {
        [b"events", sys, name, file]
            if (*sys == b"user_events" || *sys == b"user_events_multi")
                && (*file == b"enable" || *file == b"format") =>
        {
            Some(Target::EventFile(
                sys.to_vec(),
                name.to_vec(),
                *file == b"enable",
            ))
        }
        _ => None,
    }
}

/// A memfd holding `text`, its offset at 0.
pub fn memfd_with(text: &str) -> Option<OwnedFd> {
    // SAFETY: memfd_create on a constant name.
    let fd = unsafe { libc::memfd_create(c"user_events".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return None;
    }
    // SAFETY: a new fd of ours.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut f = std::fs::File::from(fd);
    use std::io::{Seek, Write};
    f.write_all(text.as_bytes()).ok()?;
    f.rewind().ok()?;
    Some(OwnedFd::from(f))
}
