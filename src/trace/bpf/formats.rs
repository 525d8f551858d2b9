//! The syscall trace events' formats (`events/syscalls/sys_enter_NAME/
//! format` in tracefs): the kernel's own list of each call's parameters
//! with their C types, which the plan (`plan.rs`) turns into captures.
//! Where tracefs is not mounted, one is mounted for the look.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One parameter as the kernel's trace event declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// Its C type (`const char *`, `size_t`).
    pub ty: String,
    /// Its name.
    pub name: String,
}

/// The syscall trace events' directory, or `None` where tracefs is not
/// mounted; `mounted` is set when one was mounted here for the look
/// (the caller unmounts it).
pub fn events_dir() -> Option<(PathBuf, bool)> {
    for dir in ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"] {
        let events = Path::new(dir).join("events/syscalls");
        if events.is_dir() {
            return Some((events, false));
        }
    }
    // Not mounted: mount one of our own for as long as the plan takes.
    let dir = std::env::temp_dir().join(format!("rtrace-tracefs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let c = |s: &str| std::ffi::CString::new(s).expect("no NUL");
    let target = c(dir.to_str()?);
    // SAFETY: plain C strings.
    let r = unsafe {
        libc::mount(
            c("tracefs").as_ptr(),
            target.as_ptr(),
            c("tracefs").as_ptr(),
            0,
            std::ptr::null(),
        )
    };
    if r != 0 {
        let _ = std::fs::remove_dir(&dir);
        return None;
    }
    Some((dir.join("events/syscalls"), true))
}

/// Unmount what [`events_dir`] mounted.
pub fn release_events_dir(events: &Path) {
    if let Some(root) = events.parent().and_then(Path::parent) {
        let c = std::ffi::CString::new(root.as_os_str().as_encoded_bytes()).expect("no NUL");
        // SAFETY: a C string.
        unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) };
        let _ = std::fs::remove_dir(root);
    }
}

/// The parameters of `sys_enter_NAME/format`: the fields after
/// `__syscall_nr`.
pub fn parse_format(text: &str) -> Vec<Field> {
    let mut fields = Vec::new();
    let mut seen_nr = false;
    for line in text.lines() {
        let Some(decl) = line.trim().strip_prefix("field:") else {
            continue;
        };
        let decl = decl.split(';').next().unwrap_or("").trim();
        let Some(split) = decl.rfind([' ', '*']) else {
            continue;
        };
        let (ty, name) = (decl[..=split].trim(), decl[split + 1..].trim());
        if name == "__syscall_nr" {
            seen_nr = true;
            continue;
        }
        if seen_nr {
            fields.push(Field {
                ty: ty.to_string(),
                name: name.to_string(),
            });
        }
    }
    fields
}

/// The syscall trace events' formats, each read once (an i386 call reads
/// the x86_64 call's of the same name).
pub(super) struct Formats<'a> {
    dir: Option<&'a Path>,
    /// The parameters by event name (`read`, `newuname`); `None` where
    /// the kernel has no such event.
    seen: HashMap<String, Option<Vec<Field>>>,
    /// One buffer for every file: tracefs reports a format's size as 0,
    /// so reading to a string would grow one in small reads.
    buf: Vec<u8>,
}

impl Formats<'_> {
    /// The parameters of event `sys_enter_EVENT`.
    pub(super) fn get(&mut self, event: &str) -> Option<&[Field]> {
        if !self.seen.contains_key(event) {
            let fields = self.read(event).map(|text| parse_format(&text));
            self.seen.insert(event.to_string(), fields);
        }
        self.seen.get(event)?.as_deref()
    }

    /// The text of `sys_enter_EVENT/format`, in as few reads as it takes
    /// (one, and the one that finds its end).
    fn read(&mut self, event: &str) -> Option<String> {
        use std::io::Read;
        let path = self.dir?.join(format!("sys_enter_{event}/format"));
        let mut file = std::fs::File::open(path).ok()?;
        let mut len = 0;
        loop {
            if self.buf.len() - len < 4096 {
                self.buf.resize(len + 16384, 0);
            }
            match file.read(&mut self.buf[len..]) {
                Ok(0) => break,
                Ok(n) => len += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return None,
            }
        }
        String::from_utf8(self.buf[..len].to_vec()).ok()
    }
}

impl<'a> Formats<'a> {
    /// The formats under `dir` (none: every look-up finds nothing).
    pub(super) fn new(dir: Option<&'a Path>) -> Formats<'a> {
        Formats {
            dir,
            seen: HashMap::new(),
            buf: Vec::new(),
        }
    }
}
