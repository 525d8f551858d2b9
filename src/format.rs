//! Formatting primitives: the only vocabulary handlers print with.
//!
//! Handlers never build strings themselves; they call `put_*` on a
//! [`Printer`] with raw values (a field name, a number and its symbol, a
//! tracee address) and the printer renders them in the MINIX trace(1)
//! grammar: `name=value` fields joined by `, `, structs in `{..}`, arrays in
//! `[..]`, `..` for what was left out, `&0x...` for anything that could not
//! be copied. The nesting state lives in [`FormatState`], kept with the
//! process's current call so the leave half continues where enter stopped.

use std::fmt::Write as _;

use smallvec::SmallVec;

use crate::escape::HexStrings;
use crate::kernel::fds::{FdDetails, FdText};

mod style;
use crate::kernel::{Arch, Memory};
use crate::output::{Output, Style};
pub use style::{CallStyle, ConstStyle, DecodePids, decorated_pid, flags_hex};

/// The longest string printed, whatever `-s` or `-vv` ask: every byte
/// shown is first copied out of the tracee.
pub const MAX_STRING_LIMIT: usize = 16 << 20;

/// User choices that change how values are printed.
#[derive(Clone, Debug)]
pub struct FormatConfig {
    /// `-N`: name every call parameter, not only struct fields.
    pub all_names: bool,
    /// `-V` count: 1 = numbers instead of symbols, 2 = also structs as addresses.
    pub values_only: u8,
    /// `-v` count: more string bytes and more struct fields.
    pub verbose: u8,
    /// Maximum string bytes printed (`-s`, or from the verbosity).
    pub string_limit: usize,
    /// Maximum bytes printed of a table whose length the call fixes (a
    /// console's screen map, an IDE drive's sectors): `-s`, which `-v`
    /// does not raise (strace's rule for such tables).
    pub table_limit: usize,
    /// `-y`, `-yy`, `--decode-fds=SET`: what is shown of each fd:
    /// `3</dev/usbmon1>`, `3<TCP:[127.0.0.1:8080->127.0.0.1:40000]>`.
    pub decode_fds: FdDetails,
    /// `--json`: the primitives build JSON values instead of text.
    pub json: bool,
    /// `--errno-text`: a failed call's error described after its name:
    /// `-1 [ENOTTY] (Inappropriate ioctl for device)`.
    pub errno_text: bool,
    /// `-e read=SET`: fds whose reads are dumped in hex and ASCII.
    pub dump_reads: FdSet,
    /// `-e write=SET`: fds whose writes are dumped.
    pub dump_writes: FdSet,
    /// `-x`, `-xx`, `--strings-in-hex=`: strings in `\xNN` escapes.
    pub hex_strings: HexStrings,
    /// `-X` (and `-V`): how named constants and flag sets are spelled.
    pub consts: ConstStyle,
    /// `-Y` and `--pidns-translation`: what a pid parameter or result
    /// is printed with.
    pub decode_pids: DecodePids,
    /// `-n`: each call's line starts with its number, `[ 110] ` (getppid on x86_64).
    pub syscall_number: bool,
    /// `-i`: each call's line starts with the instruction pointer at the
    /// call, `[00007f0a1b2c3d4e] ` (8 digits for a 32-bit program).
    pub instruction_pointer: bool,
}

/// A set of file descriptors as `-e read=` and `-e write=` take it:
/// numbers separated by commas, `all`, `none`, a leading `!` negating.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FdSet {
    /// The numbers listed.
    fds: Vec<i32>,
    /// The set is every fd but those listed (`all`, `!3`).
    negated: bool,
}

impl FdSet {
    /// Parse `spec` for option `what` (`-e read`); a word that is no fd
    /// number is a one-line error.
    pub fn parse(what: &str, spec: &str) -> Result<FdSet, String> {
        let (negated, body) = match spec.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, spec),
        };
        let mut set = FdSet {
            fds: Vec::new(),
            negated,
        };
        match body {
            "all" => set.negated = !negated,
            "none" => {}
            _ => {
                for word in body.split(',') {
                    match word.trim().parse::<i32>() {
                        Ok(fd) if fd >= 0 => set.fds.push(fd),
                        _ => {
                            return Err(format!(
                                "{what}: '{word}' is not a file descriptor (a number from 0 up, all or none)"
                            ));
                        }
                    }
                }
            }
        }
        Ok(set)
    }

    /// Whether `fd` is in the set.
    pub fn contains(&self, fd: i32) -> bool {
        fd >= 0 && self.fds.contains(&fd) != self.negated
    }

    /// Whether the set holds no fd at all.
    pub fn is_empty(&self) -> bool {
        !self.negated && self.fds.is_empty()
    }
}

impl Default for FormatConfig {
    fn default() -> Self {
        FormatConfig {
            all_names: false,
            values_only: 0,
            verbose: 0,
            string_limit: 32,
            table_limit: 32,
            decode_fds: FdDetails::NONE,
            json: false,
            errno_text: false,
            dump_reads: FdSet::default(),
            dump_writes: FdSet::default(),
            hex_strings: HexStrings::None,
            consts: ConstStyle::Abbrev,
            decode_pids: DecodePids::default(),
            syscall_number: false,
            instruction_pointer: false,
        }
    }
}

/// `PATH_MAX` from `<linux/limits.h>`.
pub const PATH_MAX: usize = 4096;

/// One nesting level: a call's parameter list, a struct or an array.
#[derive(Clone, Copy, Debug)]
struct Level {
    /// A separator is owed before the next item.
    need_sep: bool,
    /// Whether items at this level print `name=`.
    names: bool,
}

/// Whether items at a new level are named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Naming {
    /// Call parameters: named only with `-N`.
    Params,
    /// Struct fields: always named.
    Fields,
    /// Array elements: never named.
    Elements,
}

/// Nesting state of the text being printed for one call.
#[derive(Clone, Debug, Default)]
pub struct FormatState {
    levels: SmallVec<[Level; 8]>,
    /// The parameter list has been closed with `)`.
    pub(crate) params_closed: bool,
    /// The call's `=` has been printed.
    pub(crate) equals_printed: bool,
    /// A successful result is a new fd: `-y` prints its path after it.
    pub result_fd: bool,
    /// Under the BPF engine, the fd table's path of the fd the call
    /// returned (what it opened), which the kernel's identity of the file
    /// may vouch for when /proc no longer can.
    pub result_fd_path: Option<Vec<u8>>,
    /// That path is the one the call opened by (an open's, not a dup's
    /// source's): the file's name as of the call, whatever is at it now.
    pub result_fd_opened: bool,
    /// Text that ends the call's line (`-T`'s ` <0.000123>`), printed
    /// before any continuation line.
    pub(crate) suffix: Option<String>,
    /// The JSON rendering of the call, built by the same primitives; made
    /// at the first JSON primitive (text output never pays for it).
    pub(crate) json: Option<Box<JsonCall>>,
    /// How `-e abbrev=`, `-e verbose=`, `-e raw=` print this call.
    pub style: CallStyle,
    /// Under `-Y` or `--pidns-translation`, the names of the call's pid
    /// parameters (`pid`, `tgid`, `tid`): [`Printer::int`] prints their
    /// values as [`decorated_pid`] says.
    pub pid_params: SmallVec<[&'static str; 2]>,
    /// A successful result is a pid: `-Y` prints its command after it,
    /// `--pidns-translation` its number in rtrace's namespace.
    pub result_pid: bool,
}

impl FormatState {
    /// The state of a call that `-e abbrev=`, `verbose=`, `raw=` print
    /// in `style`, before anything is printed.
    pub fn styled(style: CallStyle) -> FormatState {
        FormatState {
            style,
            ..FormatState::default()
        }
    }

    /// The call's JSON rendering under construction.
    pub(crate) fn json_mut(&mut self) -> &mut JsonCall {
        self.json.get_or_insert_default()
    }

    /// The finished JSON rendering, leaving none.
    pub(crate) fn take_json(&mut self) -> JsonCall {
        self.json.take().map(|j| *j).unwrap_or_default()
    }
}

/// A call's JSON rendering under construction: the open objects and arrays,
/// and what was printed after the result.
#[derive(Clone, Debug, Default)]
pub struct JsonCall {
    frames: Vec<(String, JsonFrame)>,
    /// The call's parameters, once their list is closed.
    pub args: Option<serde_json::Map<String, Value>>,
    /// Values printed after the result (an ioctl's IF_IN struct).
    pub returned: serde_json::Map<String, Value>,
    /// Extended results (continuation lines) as structured values.
    pub extended: Vec<Value>,
}

#[derive(Clone, Debug)]
enum JsonFrame {
    Object(serde_json::Map<String, Value>),
    Array(Vec<Value>),
}

impl JsonCall {
    /// Put `value` into the innermost open object or array under `name`.
    fn insert(&mut self, name: &str, value: Value) {
        match self.frames.last_mut() {
            Some((_, JsonFrame::Array(items))) => items.push(value),
            Some((_, JsonFrame::Object(map))) => {
                let key = if name.is_empty() {
                    format!("arg{}", map.len())
                } else {
                    name.to_string()
                };
                map.insert(key, value);
            }
            None => {
                let key = if name.is_empty() { "value" } else { name };
                self.returned.insert(key.to_string(), value);
            }
        }
    }
}

use serde_json::Value;

pub use crate::abi::flags::{FlagDef, flag};

/// The printer handed to handlers for one process's call.
pub struct Printer<'a> {
    out: &'a mut Output,
    pid: i32,
    /// The user's choices as they apply to this call (`-e abbrev=` and
    /// `-e verbose=` change them for some calls only).
    cfg: std::borrow::Cow<'a, FormatConfig>,
    state: &'a mut FormatState,
    mem: &'a mut Memory,
    arch: Arch,
}

/// `value` in decimal, written into `buf` rather than a new String:
/// numbers are most of what a trace prints.
fn decimal(value: impl std::fmt::Display, buf: &mut [u8; 24]) -> &str {
    use std::io::Write;
    let mut cursor = std::io::Cursor::new(&mut buf[..]);
    // An integer's decimal form fits in 20 bytes.
    let _ = write!(cursor, "{value}");
    let len = cursor.position() as usize;
    std::str::from_utf8(&buf[..len]).unwrap_or("?")
}

impl<'a> Printer<'a> {
    /// A printer for `pid`'s output, continuing `state`.
    pub fn new(
        out: &'a mut Output,
        pid: i32,
        cfg: &'a FormatConfig,
        state: &'a mut FormatState,
        mem: &'a mut Memory,
        arch: Arch,
    ) -> Printer<'a> {
        let cfg = match cfg.for_call(state.style) {
            Some(changed) => std::borrow::Cow::Owned(changed),
            None => std::borrow::Cow::Borrowed(cfg),
        };
        Printer {
            out,
            pid,
            cfg,
            state,
            mem,
            arch,
        }
    }

    /// The user's formatting choices.
    pub fn config(&self) -> &FormatConfig {
        &self.cfg
    }

    /// The task (thread id) whose call is printed.
    pub fn pid(&self) -> i32 {
        self.pid
    }

    /// The ABI of the call being printed (pointer size, struct layouts).
    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// The nesting state, for the call layer's `)` and `=` bookkeeping.
    pub(crate) fn state(&mut self) -> &mut FormatState {
        self.state
    }

    /// Tracee memory, readable while the process is stopped.
    pub fn mem(&mut self) -> &mut Memory {
        self.mem
    }

    /// Raw text for the output layer, outside the field grammar (call names,
    /// ` = `, results). Handlers should not need this. Nothing in JSON.
    pub fn text(&mut self, text: &str, style: Style) {
        if !self.cfg.json {
            self.out.text(Some(self.pid), text, style);
        }
    }

    /// Whether the primitives are building JSON.
    pub fn json(&self) -> bool {
        self.cfg.json
    }

    /// Emit one item: `name=text` in the text grammar, `"name": json` in
    /// JSON. Every value primitive goes through here.
    fn emit(&mut self, name: &str, text: &str, json: impl FnOnce() -> Value) {
        if self.cfg.json {
            let value = json();
            self.state.json_mut().insert(name, value);
        } else {
            self.item(name);
            self.out.text(Some(self.pid), text, Style::Plain);
        }
    }

    /// The output layer, for the call layer's own bookkeeping.
    pub fn output(&mut self) -> &mut Output {
        self.out
    }

    /// A continuation line after the call's line: an extended result such
    /// as a fetched USB event. Printed only after the call's result.
    pub fn continuation(&mut self, text: &str) {
        self.continuation_with(text, || serde_json::json!({ "text": text }));
    }

    /// A continuation line whose JSON form is a structured value (a usbmon
    /// event's fields, a user_events payload).
    pub fn continuation_with(&mut self, text: &str, json: impl FnOnce() -> Value) {
        debug_assert!(self.state.equals_printed, "continuation before the result");
        if self.cfg.json {
            let value = json();
            self.state.json_mut().extended.push(value);
            return;
        }
        if let Some(suffix) = self.state.suffix.take() {
            self.out.text(Some(self.pid), &suffix, Style::Plain);
        }
        self.out.continuation(self.pid, text);
    }

    /// With `--timeline`: a device event this call carried (an event a
    /// usbmon fetch returned, a record a user_events write made), drawn on
    /// the device's track `track` at `realtime_ns` (the device's
    /// CLOCK_REALTIME nanoseconds, or now) with an arrow from the call.
    pub fn device_event(&mut self, track: &str, realtime_ns: Option<i128>, name: &str, text: &str) {
        let tid = self.pid;
        if let Some(timeline) = self.out.timeline() {
            timeline.device_event(tid, track, realtime_ns, name, text);
        }
    }

    /// Start an item at the current level: separator and `name=`.
    fn item(&mut self, name: &str) {
        // Built on the stack: this runs for every argument and field.
        let mut prefix: SmallVec<[u8; 64]> = SmallVec::new();
        if let Some(level) = self.state.levels.last_mut() {
            if level.need_sep {
                prefix.extend_from_slice(b", ");
            }
            level.need_sep = true;
            if level.names && !name.is_empty() {
                prefix.extend_from_slice(name.as_bytes());
                prefix.push(b'=');
            }
        }
        if let Ok(prefix) = std::str::from_utf8(&prefix)
            && !prefix.is_empty()
        {
            self.out.text(Some(self.pid), prefix, Style::Plain);
        }
    }

    /// Owe a separator now, so a later half (the call leave) starts with `, `.
    pub fn push_sep(&mut self) {
        if self.cfg.json {
            return;
        }
        if let Some(level) = self.state.levels.last_mut()
            && level.need_sep
        {
            self.out.text(Some(self.pid), ", ", Style::Plain);
            level.need_sep = false;
        }
    }

    /// Open a nested list (`(`, `{` or `[`) as item `name`.
    pub fn open(&mut self, name: &str, opener: &str, naming: Naming) {
        if self.cfg.json {
            let frame = if opener == "[" {
                JsonFrame::Array(Vec::new())
            } else {
                JsonFrame::Object(serde_json::Map::new())
            };
            self.state.json_mut().frames.push((name.to_string(), frame));
        } else {
            self.item(name);
            self.out.text(Some(self.pid), opener, Style::Plain);
        }
        let names = match naming {
            Naming::Params => self.cfg.all_names,
            Naming::Fields => true,
            Naming::Elements => false,
        };
        self.state.levels.push(Level {
            need_sep: false,
            names,
        });
    }

    /// Close the innermost list with `closer`.
    pub fn close(&mut self, closer: &str) {
        if self.cfg.json {
            if let Some((key, frame)) = self.state.json_mut().frames.pop() {
                let value = match frame {
                    JsonFrame::Object(map) => Value::Object(map),
                    JsonFrame::Array(items) => Value::Array(items),
                };
                if self.state.json_mut().frames.is_empty() && closer.starts_with(')') {
                    // The call's parameter list.
                    if let Value::Object(map) = value {
                        self.state.json_mut().args = Some(map);
                    }
                } else {
                    self.state.json_mut().insert(&key, value);
                }
            }
            self.state.levels.pop();
            return;
        }
        debug_assert!(!self.state.levels.is_empty(), "close() without open()");
        self.state.levels.pop();
        if !closer.is_empty() {
            self.out.text(Some(self.pid), closer, Style::Plain);
        }
    }

    /// Print the first `limit` of `items` with `each`, then `..` if any
    /// is left: the one form of a bounded array (`-v` and the string
    /// limit decide `limit`).
    pub fn bounded<T>(
        &mut self,
        items: impl IntoIterator<Item = T>,
        limit: usize,
        mut each: impl FnMut(&mut Self, T),
    ) {
        let mut items = items.into_iter();
        for item in items.by_ref().take(limit) {
            each(self, item);
        }
        if items.next().is_some() {
            self.more();
        }
    }

    /// Print `..` as the last item: not everything was shown.
    pub fn more(&mut self) {
        if self.cfg.json {
            match self.state.json_mut().frames.last_mut() {
                Some((_, JsonFrame::Array(items))) => items.push(Value::String("..".into())),
                Some((_, JsonFrame::Object(map))) => {
                    map.insert("..".into(), Value::Bool(true));
                }
                None => {}
            }
            return;
        }
        self.item("");
        self.out.text(Some(self.pid), "..", Style::Plain);
    }

    /// A field whose value is already text (a symbol, a formatted number).
    pub fn field(&mut self, name: &str, text: &str) {
        self.emit(name, text, || Value::String(text.to_string()));
    }

    /// A file descriptor with its path (`-y`): `3</dev/null>`, the path's
    /// bytes escaped as a string's are; in JSON `{"value": 3, "path":
    /// "/dev/null"}`, a path that is not UTF-8 as strings are
    /// ([`json_bytes`]).
    pub fn fd_path(&mut self, name: &str, fd: i64, path: &[u8]) {
        let text = format!("{fd}<{}>", escape_path(path));
        self.emit(
            name,
            &text,
            || serde_json::json!({ "value": fd, "path": json_bytes(path, false) }),
        );
    }

    /// A file descriptor as `-y`/`-yy` show it ([`FdText`]): its path
    /// (`3</dev/null>`) or what `-yy` says of it (`3<TCP:[...]>`,
    /// `3</dev/null<char 1:3>>`); in JSON `{"value": 3, "path":
    /// "socket:[123]", "details": "TCP:[...]"}`.
    pub fn fd_text(&mut self, name: &str, fd: i64, shown: &FdText) {
        let Some(details) = &shown.details else {
            return self.fd_path(name, fd, &shown.path);
        };
        let text = format!("{fd}<{}>", shown.shown());
        self.emit(name, &text, || {
            serde_json::json!({
                "value": fd,
                "path": json_bytes(&shown.path, false),
                "details": details,
            })
        });
    }

    /// A named value that stands for a file, with its path (`-y`'s
    /// `AT_FDCWD</home/u>`).
    ///
    /// `-X` spells the value as [`Printer::symbol_decimal`] does:
    /// `-100</home/u>`, `-100 /* AT_FDCWD */</home/u>`.
    pub fn symbol_path(&mut self, name: &str, value: i64, symbol: &str, path: &[u8]) {
        let shown = match self.cfg.consts {
            _ if self.cfg.json => symbol.to_string(),
            ConstStyle::Abbrev => symbol.to_string(),
            ConstStyle::Verbose => format!("{value} /* {symbol} */"),
            ConstStyle::Raw | ConstStyle::Values => value.to_string(),
        };
        let text = format!("{shown}<{}>", escape_path(path));
        self.emit(name, &text, || {
            serde_json::json!({ "value": value, "name": symbol, "path": json_bytes(path, false) })
        });
    }

    /// A signed decimal; a pid parameter of the call (see
    /// [`FormatState::pid_params`]) with what `-Y` and
    /// `--pidns-translation` add ([`decorated_pid`]).
    pub fn int(&mut self, name: &str, value: i64) {
        if self.state.levels.len() == 1 && self.state.pid_params.contains(&name) {
            return self.pid_field(name, value);
        }
        let mut digits = [0u8; 24];
        self.emit(name, decimal(value, &mut digits), || Value::from(value));
    }

    /// A pid, wherever it is (a struct's `si_pid`, `l_pid`): a signed
    /// decimal with what `-Y` and `--pidns-translation` add
    /// ([`decorated_pid`]), as strace decorates the pids it knows.
    pub fn pid_field(&mut self, name: &str, value: i64) {
        if let Some((text, json)) = decorated_pid(self.cfg.decode_pids, self.pid, value) {
            return self.emit(name, &text, || json);
        }
        self.emit(name, &value.to_string(), || Value::from(value));
    }

    /// An unsigned decimal.
    pub fn uint(&mut self, name: &str, value: u64) {
        let mut digits = [0u8; 24];
        self.emit(name, decimal(value, &mut digits), || Value::from(value));
    }

    /// A hexadecimal value.
    pub fn hex(&mut self, name: &str, value: u64) {
        self.emit(name, &format!("0x{value:x}"), || Value::from(value));
    }

    /// A register as `-e raw=` prints it: `0`, else hex (`0x241`); a
    /// number in JSON.
    pub fn raw_hex(&mut self, name: &str, value: u64) {
        self.emit(name, &flags_hex(value), || Value::from(value));
    }

    /// An octal mode.
    pub fn mode(&mut self, name: &str, value: u64) {
        self.emit(name, &format!("0{value:o}"), || {
            Value::String(format!("0{value:o}"))
        });
    }

    /// A pointer: `NULL` or `&0x7ffd...`.
    pub fn ptr(&mut self, name: &str, addr: u64) {
        if addr == 0 {
            self.emit(name, "NULL", || Value::Null);
        } else {
            let text = format!("&0x{addr:x}");
            self.emit(name, &text, || Value::String(format!("0x{addr:x}")));
        }
    }

    /// An address rtrace never means to read (another process's memory, a
    /// physical address, a buffer the kernel copies that strace shows as a
    /// number): `NULL` or plain `0x7ffd...`. `&` stays for a pointer whose
    /// target rtrace would show but could not or did not read. JSON as
    /// [`Printer::ptr`]: the address as a string.
    pub fn addr(&mut self, name: &str, addr: u64) {
        if addr == 0 {
            self.emit(name, "NULL", || Value::Null);
        } else {
            let text = format!("0x{addr:x}");
            self.emit(name, &text, || Value::String(text.clone()));
        }
    }

    /// A comment on the item just printed, for a person reading the text:
    /// ` /* 2026-11-22T19:44:07+0000 */`. JSON carries the value alone.
    pub fn note(&mut self, text: &str) {
        if !self.cfg.json {
            self.out
                .text(Some(self.pid), &format!(" /* {text} */"), Style::Plain);
        }
    }

    /// A value-result number the call read and then overwrote: `110 => 2`
    /// when they differ (as strace prints them), else `2`; in JSON the
    /// number, or `{"value": 2, "before": 110}`.
    pub fn changed(&mut self, name: &str, before: u64, after: u64) {
        if before == after {
            self.uint(name, after);
        } else {
            let text = format!("{before} => {after}");
            self.emit(
                name,
                &text,
                || serde_json::json!({ "value": after, "before": before }),
            );
        }
    }

    /// A byte string: C-escaped in quotes, `..` after the quote if `cut`.
    /// In JSON a string (or hex when not UTF-8), with `"truncated"`.
    pub fn string(&mut self, name: &str, bytes: &[u8], cut: bool) {
        let text = quote_as(bytes, cut, self.cfg.hex_strings);
        self.emit(name, &text, || json_bytes(bytes, cut));
    }

    /// A NUL-terminated string at `addr`, or its pointer if unreadable.
    pub fn cstr(&mut self, name: &str, addr: u64) {
        let limit = self.cfg.string_limit;
        match self.mem.read_cstr(addr, limit) {
            Some((bytes, terminated)) => self.string(name, &bytes, !terminated),
            None => self.ptr(name, addr),
        }
    }

    /// A path name at `addr`: printed whole whatever the string limit,
    /// since a cut path is rarely useful, up to the `PATH_MAX - 1` bytes
    /// the kernel takes (a name that fills PATH_MAX has no room for its
    /// NUL: ENAMETOOLONG), as strace cuts it.
    pub fn path(&mut self, name: &str, addr: u64) {
        match self.mem.read_cstr(addr, PATH_MAX - 1) {
            Some((bytes, terminated)) => self.string(name, &bytes, !terminated),
            None => self.ptr(name, addr),
        }
    }

    /// `len` bytes at `addr` as a string (a read or write buffer), cut at
    /// the string limit; its pointer if unreadable.
    pub fn buf(&mut self, name: &str, addr: u64, len: u64) {
        let limit = self.cfg.string_limit;
        let want = (len as usize).min(limit);
        let mut bytes = vec![0u8; want];
        let got = self.mem.read(addr, &mut bytes);
        // NULL is NULL even when no byte is wanted (`iov_base=NULL,
        // iov_len=0`), never an empty string.
        if addr == 0 || (got == 0 && want > 0) {
            self.ptr(name, addr);
            return;
        }
        // What could be read, cut where the readable memory ends.
        bytes.truncate(got);
        self.string(name, &bytes, (len as usize) > got);
    }

    /// Copy a struct of `N` bytes from `addr` and open it as `{`; on a
    /// failed copy print the pointer and return `None`. With `-VV` structs
    /// print as their address only.
    pub fn open_struct<const N: usize>(&mut self, name: &str, addr: u64) -> Option<[u8; N]> {
        if addr == 0 || self.cfg.values_only >= 2 {
            self.ptr(name, addr);
            return None;
        }
        let mut data = [0u8; N];
        if !self.mem.read_exact(addr, &mut data) {
            self.ptr(name, addr);
            return None;
        }
        self.open(name, "{", Naming::Fields);
        Some(data)
    }

    /// Close a struct; `all` false appends `, ..`.
    pub fn close_struct(&mut self, all: bool) {
        if !all {
            self.more();
        }
        self.close("}");
    }
}

/// A byte string as JSON: a string when it is UTF-8, else `{"hex": ...}`;
/// wrapped with `"truncated": true` when cut.
pub fn json_bytes(bytes: &[u8], cut: bool) -> Value {
    let value = match std::str::from_utf8(bytes) {
        Ok(text) => Value::String(text.to_string()),
        Err(_) => {
            let mut hex = String::with_capacity(bytes.len() * 2);
            for b in bytes {
                let _ = write!(hex, "{b:02x}");
            }
            serde_json::json!({ "hex": hex })
        }
    };
    if cut {
        serde_json::json!({ "string": value, "truncated": true })
    } else {
        value
    }
}

/// Escape a path for `-y` output: like [`quote`] without the quotes, and
/// `<`, `>` in octal as strace writes them (`3</tmp/a\76b>`), so the
/// brackets around the path stay the only ones.
pub fn escape_path(path: &[u8]) -> String {
    let mut s = String::with_capacity(path.len());
    crate::escape::c_escape_also(path, true, b"<>", &mut s);
    s
}

/// Render a flag set with a `{mask, value, name}` table.
pub fn flags_text(value: u64, table: &[FlagDef], symbols: bool) -> String {
    if !symbols {
        return format!("0x{value:x}");
    }
    let mut rest = value;
    let mut out = String::new();
    for def in table {
        if def.value == 0 {
            // A zero value names the state of a multi-bit field (O_RDONLY);
            // it is printed only when its field is zero.
            if value & def.mask == 0 && (def.mask != 0 || value == 0) {
                push_flag(&mut out, def.name);
            }
            continue;
        }
        if rest & def.mask == def.value && def.value != 0 {
            push_flag(&mut out, def.name);
            rest &= !def.mask;
        }
    }
    if rest != 0 {
        if !out.is_empty() {
            out.push('|');
        }
        let _ = write!(out, "0x{rest:x}");
    }
    if out.is_empty() {
        out.push('0');
    }
    out
}

fn push_flag(out: &mut String, name: &str) {
    if !out.is_empty() {
        out.push('|');
    }
    out.push_str(name);
}

/// C-escape `bytes` in double quotes; `cut` appends `..` after the quote.
/// Every byte that is not printable ASCII is escaped, so a tracee can never
/// send terminal control sequences through the trace. Escapes are octal,
/// as strace prints them: a hex escape has no length limit in C
/// (`"\x7fELF"` reads as the one escape `\x7fE`), while an octal one
/// ends after three digits, and takes all three only when an octal digit
/// follows (`\177ELF`, `\0` but `\0001`), so the text always means the
/// same bytes when pasted into C.
pub fn quote(bytes: &[u8], cut: bool) -> String {
    quote_as(bytes, cut, HexStrings::None)
}

/// [`quote`] with `-x`/`-xx`'s hex escapes as `hex` asks (the Printer's
/// strings and paths).
pub fn quote_as(bytes: &[u8], cut: bool, hex: HexStrings) -> String {
    let mut s = String::with_capacity(bytes.len() + 4);
    s.push('"');
    crate::escape::c_escape_hex(bytes, hex, &mut s);
    s.push('"');
    if cut {
        s.push_str("..");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPEN_FLAGS: &[FlagDef] = &[
        FlagDef {
            mask: 3,
            value: 0,
            name: "O_RDONLY",
        },
        FlagDef {
            mask: 3,
            value: 1,
            name: "O_WRONLY",
        },
        flag(0o100, "O_CREAT"),
    ];

    #[test]
    fn quote_escapes_everything_unprintable() {
        assert_eq!(quote(b"hi\n", false), "\"hi\\n\"");
        assert_eq!(quote(b"\x1b[31m", false), "\"\\33[31m\"");
        assert_eq!(quote(b"a\0b\x001", true), "\"a\\0b\\0001\"..");
        assert_eq!(quote(b"\x009\x018", false), "\"\\09\\18\"");
        assert_eq!(quote("é".as_bytes(), false), "\"\\303\\251\"");
        assert_eq!(quote(b"\x0b\x0c\x7f", false), "\"\\v\\f\\177\"");
    }

    #[test]
    fn quote_never_lets_an_escape_swallow_the_next_byte() {
        // "\x7fELF" would read in C as the escape \x7fE and "LF".
        assert_eq!(quote(b"\x7fELF", false), "\"\\177ELF\"");
        // A short octal escape before an octal digit would read as longer.
        assert_eq!(quote(b"\x017", false), "\"\\0017\"");
        assert_eq!(quote(b"\xff7", false), "\"\\3777\"");
        assert_eq!(quote(b"\x01a", false), "\"\\1a\"");
    }

    #[test]
    fn flags_name_zero_fields_and_keep_unknown_bits() {
        assert_eq!(flags_text(0, OPEN_FLAGS, true), "O_RDONLY");
        assert_eq!(flags_text(0o101, OPEN_FLAGS, true), "O_WRONLY|O_CREAT");
        assert_eq!(
            flags_text(0x8000_0000, OPEN_FLAGS, true),
            "O_RDONLY|0x80000000"
        );
        assert_eq!(flags_text(0o101, OPEN_FLAGS, false), "0x41");
    }
}
