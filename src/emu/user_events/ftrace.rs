//! The trace buffer the emulated kernel fills: one record per accepted
//! write of an enabled event, and its text as ftrace's `trace` file shows
//! it. The context is `trace_print_context` (task, pid, CPU, the
//! irqs-off/need-resched/hardirq/preempt/migrate flags, the time), the
//! rest `print_event_fields` of trace_output.c, which user events use
//! instead of their print fmt: ` name=value` per field, strings as
//! `%.*s`, numbers by size (`'c'(99)`, `0x%x (%d)`, `0x%llx (%lld)`).

use super::events::{ENTRY, Field, Filter};
use std::fmt::Write;

/// One record.
pub struct Record {
    /// The writer's thread id (`common_pid`).
    pub tid: i32,
    /// Its name then (`comm`).
    pub comm: String,
    /// The CPU it ran on.
    pub cpu: u32,
    /// CLOCK_MONOTONIC at the write, in ns (the emulation's trace clock).
    pub ns: u64,
    /// The event's tracepoint name.
    pub event: String,
    /// The event's fields.
    pub fields: Vec<Field>,
    /// The record: an 8-byte `struct trace_entry`, then the payload.
    pub data: Vec<u8>,
}

fn le(b: &[u8]) -> u64 {
    b.iter().rev().fold(0, |v, &x| v << 8 | u64::from(x))
}

/// `%.*s`: at most `len` bytes, up to a NUL.
fn put_str(s: &mut String, b: &[u8]) {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    s.push_str(&String::from_utf8_lossy(&b[..end]));
}

impl Record {
    /// The size ftrace knows the entry by: rounded up to the ring
    /// buffer's 4-byte alignment.
    fn ent_size(&self) -> usize {
        self.data.len().div_ceil(4) * 4
    }

    /// The event's ID, the entry's `common_type`.
    pub fn type_id(&self) -> u16 {
        le(&self.data[..2]) as u16
    }

    /// The record's line, without its newline, rendered with `event` (its
    /// name and fields): the event that has the record's type now, as
    /// `ftrace_find_event` finds it. With none (the event was deleted),
    /// the line is `print_trace_fmt`'s `Unknown type ID`.
    pub fn line(&self, event: Option<(&str, &[Field])>) -> String {
        let mut s = format!(
            "{:>16}-{:<7} [{:03}] ..... {:5}.{:06}: ",
            self.comm,
            self.tid,
            self.cpu,
            self.ns / 1_000_000_000,
            self.ns % 1_000_000_000 / 1000,
        );
        let Some((name, fields)) = event else {
            let _ = write!(s, "Unknown type {}", self.type_id());
            return s;
        };
        let _ = write!(s, "{name}:");
        let ent = self.ent_size();
        let at = |o: usize, n: usize| -> Vec<u8> {
            (o..o + n)
                .map(|i| self.data.get(i).copied().unwrap_or(0))
                .collect()
        };
        if fields.is_empty() {
            s.push_str("No fields found");
        }
        for f in fields {
            let _ = write!(s, " {}=", String::from_utf8_lossy(&f.name));
            if f.offset + f.size > ent {
                s.push_str("<OVERFLOW>");
                continue;
            }
            let raw = at(f.offset, f.size);
            match f.filter {
                Filter::StaticString => put_str(&mut s, &raw),
                Filter::DynString | Filter::RelDynString => {
                    let word = le(&raw) as u32;
                    let mut off = (word & 0xffff) as usize;
                    let len = (word >> 16) as usize;
                    if f.filter == Filter::RelDynString {
                        off += f.offset + 4;
                    }
                    if off + len > ent {
                        s.push_str("<OVERFLOW>");
                    } else {
                        put_str(&mut s, &at(off, len));
                    }
                }
                Filter::Other => match f.size {
                    1 => {
                        // The kernel's isprint (lib/ctype.c, Latin-1):
                        // 32 to 126 and 160 to 255. It writes the byte
                        // itself; this text is UTF-8, so a byte above 127
                        // is U+FFFD, as a UTF-8 reader shows the kernel's
                        // (the e2e suite's real kernel prints `c='\xc8'(200)`).
                        let c = raw[0];
                        if (0x20..0x7f).contains(&c) {
                            let _ = write!(s, "'{}'", c as char);
                        } else if c >= 0xa0 {
                            s.push_str("'\u{fffd}'");
                        }
                        let _ = write!(s, "({c})");
                    }
                    2 => {
                        let v = le(&raw) as u16;
                        let _ = write!(s, "0x{v:x} ({v})");
                    }
                    4 if f.ty.starts_with(b"__data_loc") || f.ty.starts_with(b"__rel_loc") => {
                        let word = le(&raw) as u32;
                        let mut off = (word & 0xffff) as usize;
                        let len = (word >> 16) as usize;
                        if f.ty.starts_with(b"__rel_loc") {
                            off += f.offset + 4;
                        }
                        if off + len > ent {
                            s.push_str("<OVERFLOW>");
                        } else {
                            let bytes: Vec<String> =
                                at(off, len).iter().map(|b| format!("{b:02x}")).collect();
                            s.push_str(&bytes.join(","));
                        }
                    }
                    4 => {
                        let v = le(&raw) as u32;
                        let _ = write!(s, "0x{v:x} ({})", v as i32);
                    }
                    8 => {
                        let v = le(&raw);
                        let _ = write!(s, "0x{v:x} ({})", v as i64);
                    }
                    _ => s.push_str("<INVALID-SIZE>"),
                },
            }
        }
        s
    }
}

/// The `trace` file: its header, then one line per record, rendered with
/// the event `event_of` gives for it (see [`Record::line`]).
pub fn trace_file(
    records: &[Record],
    event_of: impl Fn(&Record) -> Option<(String, Vec<Field>)>,
) -> String {
    // SAFETY: sysconf takes a plain value.
    let cpus = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) }.max(1);
    let n = records.len();
    let mut s = format!(
        "# tracer: nop\n#\n# entries-in-buffer/entries-written: {n}/{n}   #P:{cpus}\n#\n\
         #                                _-----=> irqs-off/BH-disabled\n\
         #                               / _----=> need-resched\n\
         #                              | / _---=> hardirq/softirq\n\
         #                              || / _--=> preempt-depth\n\
         #                              ||| / _-=> migrate-disable\n\
         #                              |||| /     delay\n\
         #           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n\
         #              | |         |   |||||     |         |\n"
    );
    for r in records {
        let event = event_of(r);
        s.push_str(&r.line(event.as_ref().map(|(n, f)| (n.as_str(), f.as_slice()))));
        s.push('\n');
    }
    s
}

/// The record of a write: the entry header (`common_type` `id`, no
/// flags, preempt count 0, `common_pid` `tid`) and the payload.
pub fn entry(id: u32, tid: i32, payload: &[u8]) -> Vec<u8> {
    let mut data = Vec::with_capacity(ENTRY + payload.len());
    data.extend_from_slice(&(id as u16).to_le_bytes());
    data.extend_from_slice(&[0, 0]);
    data.extend_from_slice(&tid.to_le_bytes());
    data.extend_from_slice(payload);
    data
}
