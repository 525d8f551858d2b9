//! `--filter` and `--trigger`: the fields a filter sees for each call, the
//! check of field names before tracing starts, and the kernel-style event
//! triggers (traceon, traceoff, stacktrace).

use std::cell::RefCell;
use std::collections::HashSet;
use std::sync::OnceLock;

use crate::abi::fs::AT_FDCWD;
use crate::call::{Call, errno_name, is_error};
use crate::fdtable::FdTable;
use crate::filter::{self, Fields, Filter, FilterError, Value};
use crate::kernel::Memory;
use crate::sysent::Kind;

/// Field names every call has (besides its parameters by name).
const CALL_FIELDS: &[&str] = &[
    "name", "pid", "tid", "result", "errno", "arg0", "arg1", "arg2", "arg3", "arg4", "arg5",
    "fd.path", "request", "path",
];

/// Every field name a filter may use: the fixed ones and every parameter
/// name of the syscall table (the names `-N` and `--json` print).
fn known_fields() -> &'static HashSet<&'static str> {
    static KNOWN: OnceLock<HashSet<&'static str>> = OnceLock::new();
    KNOWN.get_or_init(|| {
        let mut set: HashSet<&'static str> = CALL_FIELDS.iter().copied().collect();
        for sig in crate::sysent::all_signatures() {
            for p in sig.params {
                set.insert(p.name);
            }
        }
        set
    })
}

/// Field names whose parameter is a signal in some call (`sig`): their
/// text is the signal's name.
fn signal_fields() -> &'static HashSet<&'static str> {
    static FIELDS: OnceLock<HashSet<&'static str>> = OnceLock::new();
    FIELDS.get_or_init(|| {
        crate::sysent::all_signatures()
            .flat_map(|sig| sig.params.iter())
            .filter(|p| p.kind == Kind::Signal)
            .map(|p| p.name)
            .collect()
    })
}

/// The kinds of names a text-valued field can hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NameKind {
    Call,
    Errno,
    Request,
    Signal,
}

impl NameKind {
    /// How an unknown name of this kind is called in an error.
    fn what(self) -> &'static str {
        match self {
            NameKind::Call => "system call",
            NameKind::Errno => "errno",
            NameKind::Request => "ioctl request",
            NameKind::Signal => "signal",
        }
    }
}

/// What a text-valued field can be: the kind and every name of it.
struct NameSet {
    kind: NameKind,
    names: Vec<String>,
}

/// The names field `field` can have, if rtrace knows them all: call names
/// (both ABIs, i386 socketcall's calls), errno names, signal names and
/// ioctl request names.
fn name_set(field: &str) -> Option<NameSet> {
    let (kind, names): (_, Vec<String>) = match field {
        "name" => {
            let calls = crate::service::all_calls(crate::kernel::Arch::X86_64)
                .chain(crate::service::all_calls(crate::kernel::Arch::I386))
                .map(|(_, name)| name)
                .chain(crate::service::net::SOCKETCALLS.iter().map(|&(n, _, _)| n));
            (NameKind::Call, calls.map(str::to_string).collect())
        }
        "errno" => (
            NameKind::Errno,
            (1..4096)
                .filter_map(|e| errno_name(e).map(str::to_string))
                .collect(),
        ),
        "request" => (
            NameKind::Request,
            crate::ioctl::request_names().map(str::to_string).collect(),
        ),
        f if signal_fields().contains(f) => (
            NameKind::Signal,
            (1..=64).filter_map(crate::decode::signal_name).collect(),
        ),
        _ => return None,
    };
    Some(NameSet { kind, names })
}

/// Whether `text` is a value a field of `set` can have though it is no
/// name: `syscall_451` for a call newer than the table, `_IOR(...)` for a
/// request no group names.
fn unnamed_value(set: &NameSet, text: &str) -> bool {
    match set.kind {
        NameKind::Call => text
            .strip_prefix("syscall_")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())),
        NameKind::Request => text.starts_with("_IO") || text.starts_with("0x"),
        _ => false,
    }
}

/// Parse a `--filter` expression and check its field names, and the
/// names it compares name-valued fields with (calls, errnos, signals,
/// ioctl requests): a misspelt name would otherwise match nothing, quietly.
pub fn parse_filter(text: &str) -> Result<Filter, FilterError> {
    let parsed = filter::parse(text)?;
    for (name, at) in parsed.fields() {
        if !known_fields().contains(name) {
            return Err(filter::unknown_field(text, at, name));
        }
    }
    for literal in parsed.text_literals() {
        let Some(set) = name_set(literal.field) else {
            continue;
        };
        let word = literal.text();
        if set.names.iter().any(|n| literal.matches(n)) || unnamed_value(&set, word) {
            continue;
        }
        let message = if literal.is_pattern() {
            if set.kind == NameKind::Request {
                // Requests no group names print as `_IOR(...)`.
                continue;
            }
            format!("Pattern {word} matches no {}", set.kind.what())
        } else {
            // `KILL` for `SIGKILL`, as -e signal= takes it; strace's
            // `SIGRT_3` (kernel-relative) for the name rtrace prints for
            // that signal (`SIGRTMIN+1`).
            let sig = format!("SIG{word}");
            let strace_rt = (set.kind == NameKind::Signal)
                .then(|| word.strip_prefix("SIGRT_")?.parse::<i32>().ok())
                .flatten()
                .and_then(|n| crate::decode::signal_name(n.checked_add(32)?));
            let near = if set.kind == NameKind::Signal && set.names.contains(&sig) {
                Some(sig.as_str())
            } else if let Some(name) = &strace_rt {
                Some(name.as_str())
            } else {
                crate::spelling::nearest(word, set.names.iter().map(String::as_str))
            };
            match near {
                Some(name) => format!(
                    "Unknown {} '{word}' (did you mean {name}?)",
                    set.kind.what()
                ),
                None => format!("Unknown {} '{word}'", set.kind.what()),
            }
        };
        return Err(filter::bad_value(text, literal.position, message));
    }
    Ok(parsed)
}

/// What a trigger does when a call matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Start printing.
    TraceOn,
    /// Stop printing.
    TraceOff,
    /// Print the tracee's user stack (instruction pointers) after the call.
    StackTrace,
}

/// A `--trigger 'ACTION[:COUNT] [if EXPR]'`.
#[derive(Clone, Debug)]
pub struct Trigger {
    /// What it does.
    pub action: Action,
    /// How many more times it may fire (`None`: always).
    pub remaining: Option<u32>,
    /// Which calls fire it (`None`: every selected call).
    pub filter: Option<Filter>,
}

/// Parse a trigger in the kernel's syntax: `traceoff`, `traceon:1 if
/// name == exit_group`, `stacktrace if errno == ENOENT`.
pub fn parse_trigger(text: &str) -> Result<Trigger, String> {
    let text = text.trim();
    if let Some(head) = text.strip_suffix(" if") {
        return Err(format!(
            "trigger '{text}': no expression after 'if' (as in '{} if name == ioctl')",
            head.trim()
        ));
    }
    let (head, expr) = match text.find(" if ") {
        Some(i) => (&text[..i], Some(text[i + 4..].trim())),
        None => (text, None),
    };
    let (name, count) = match head.split_once(':') {
        Some((name, count)) => {
            let n: u32 = count
                .parse()
                .map_err(|_| format!("bad trigger count '{count}' in '{text}'"))?;
            (name, Some(n))
        }
        None => (head, None),
    };
    let action = match name.trim() {
        "traceon" => Action::TraceOn,
        "traceoff" => Action::TraceOff,
        "stacktrace" => Action::StackTrace,
        other => {
            return Err(format!(
                "unknown trigger '{other}' (traceon, traceoff, stacktrace)"
            ));
        }
    };
    let filter = match expr {
        Some(e) => Some(parse_filter(e).map_err(|e| e.to_string())?),
        None => None,
    };
    Ok(Trigger {
        action,
        remaining: count,
        filter,
    })
}

/// The fields of one finished call, computed when a filter asks.
pub struct CallFields<'a> {
    /// The call.
    pub call: &'a Call,
    /// Its return value; `None` for a call that did not return (exit,
    /// a successful exec, sigreturn): `result` and `errno` are then
    /// missing, so every comparison with them is false.
    pub rval: Option<i64>,
    /// Its thread id.
    pub tid: i32,
    /// Its process id.
    pub tgid: i32,
    /// The process's fd table.
    pub fds: &'a FdTable,
    /// The process's memory, for string parameters.
    pub mem: RefCell<&'a mut Memory>,
}

impl CallFields<'_> {
    fn string_at(&self, addr: u64) -> Option<String> {
        let (bytes, _) = self.mem.borrow_mut().read_cstr(addr, 4096)?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }

    fn param(&self, kind: Kind, raw: u64) -> Value<'static> {
        match kind {
            Kind::Path | Kind::Str => match self.string_at(raw) {
                Some(text) => Value::named(raw as i64, text),
                None => Value::num(raw as i64),
            },
            // As printed: `dirfd == AT_FDCWD` matches what `-N` shows.
            Kind::DirFd if raw as i32 as i64 == AT_FDCWD => Value::named(AT_FDCWD, "AT_FDCWD"),
            // As printed: `sig == SIGKILL`.
            Kind::Signal => match crate::decode::signal_name(raw as i32) {
                Some(name) => Value::named(raw as i32 as i64, name),
                None => Value::num(raw as i32 as i64),
            },
            Kind::Int | Kind::Fd | Kind::DirFd | Kind::Pid => Value::num(raw as i32 as i64),
            _ => Value::num(raw as i64),
        }
    }
}

impl Fields for CallFields<'_> {
    fn get(&self, name: &str) -> Option<Value<'_>> {
        let call = self.call;
        match name {
            "name" => return Some(Value::str(call.name.to_string())),
            "pid" => return Some(Value::num(self.tgid as i64)),
            "tid" => return Some(Value::num(self.tid as i64)),
            "result" => return self.rval.map(Value::num),
            "errno" => {
                let rval = self.rval.filter(|&r| is_error(r))?;
                return Some(match errno_name(-rval) {
                    Some(text) => Value::named(-rval, text),
                    None => Value::num(-rval),
                });
            }
            _ => {}
        }
        if let Some(i) = name
            .strip_prefix("arg")
            .and_then(|n| n.parse::<usize>().ok())
        {
            return call.args.get(i).map(|&a| Value::num(a as i64));
        }
        let params = call.sig.map(|s| s.params).unwrap_or(&[]);
        match name {
            "request" if call.name == "ioctl" => {
                let code = call.args[1] & 0xffff_ffff;
                let fd = self.fds.get(call.args[0] as i32);
                let text = crate::ioctl::request_name(call.arch, code, fd.as_ref());
                return Some(Value::named(code as i64, text));
            }
            "path" => {
                let i = params.iter().position(|p| p.kind == Kind::Path)?;
                return self.string_at(call.args[i]).map(Value::str);
            }
            "fd.path" => {
                let i = params
                    .iter()
                    .position(|p| matches!(p.kind, Kind::Fd | Kind::DirFd))?;
                // What -y prints: the kernel's answer, not the path asked
                // (under the BPF engine, the kernel's answer only while it
                // still names the call's file, else the path the fd table
                // holds: see decode::put_fd).
                let fd = call.args[i] as i32;
                let mem = self.mem.borrow();
                let path = if mem.is_captured() {
                    crate::kernel::fds::vouched_path(&mem, fd).or_else(|| self.fds.known_path(fd))
                } else {
                    crate::fdtable::kernel_path(self.tid, fd)
                }?;
                return Some(Value::str(String::from_utf8_lossy(&path).into_owned()));
            }
            _ => {}
        }
        let sig = call.sig?;
        let i = sig.position(name)?;
        Some(self.param(sig.params[i].kind, sig.value(i, call.arch, &call.args)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triggers_parse_in_the_kernel_syntax() {
        let t = parse_trigger("traceoff:2 if name == exit_group").unwrap();
        assert_eq!(t.action, Action::TraceOff);
        assert_eq!(t.remaining, Some(2));
        assert!(t.filter.is_some());
        let t = parse_trigger("stacktrace").unwrap();
        assert_eq!(t.action, Action::StackTrace);
        assert!(t.filter.is_none());
        assert!(parse_trigger("explode").is_err());
        assert!(parse_trigger("traceon:x").is_err());
        let e = parse_trigger("traceon if nosuchfield == 1").unwrap_err();
        assert!(e.contains("Unknown field 'nosuchfield'"), "{e}");
    }

    #[test]
    fn unknown_names_are_rejected_with_a_caret_and_the_nearest_name() {
        for (expr, error) in [
            (
                "errno == ENOSUCHERR",
                "bad filter: Unknown errno 'ENOSUCHERR'\n  Filter: errno == ENOSUCHERR\n                   ^",
            ),
            (
                "errno != enoent",
                "bad filter: Unknown errno 'enoent' (did you mean ENOENT?)\n  Filter: errno != enoent\n                   ^",
            ),
            (
                "fd == 3 && name == nosuchcall",
                "bad filter: Unknown system call 'nosuchcall'\n  Filter: fd == 3 && name == nosuchcall\n                             ^",
            ),
            (
                "name == \"wirte\"",
                "bad filter: Unknown system call 'wirte' (did you mean write?)\n  Filter: name == \"wirte\"\n                  ^",
            ),
            (
                "name ~ \"nosuch*\"",
                "bad filter: Pattern \"nosuch*\" matches no system call\n  Filter: name ~ \"nosuch*\"\n                 ^",
            ),
            (
                "sig == KILL",
                "bad filter: Unknown signal 'KILL' (did you mean SIGKILL?)\n  Filter: sig == KILL\n                 ^",
            ),
            (
                "sig == SIGRT_3",
                "bad filter: Unknown signal 'SIGRT_3' (did you mean SIGRTMIN+1?)\n  Filter: sig == SIGRT_3\n                 ^",
            ),
            (
                "sig == SIGRT_2147483647",
                "bad filter: Unknown signal 'SIGRT_2147483647'\n  Filter: sig == SIGRT_2147483647\n                 ^",
            ),
            (
                "sig == NOSUCHSIGNAL",
                "bad filter: Unknown signal 'NOSUCHSIGNAL'\n  Filter: sig == NOSUCHSIGNAL\n                 ^",
            ),
            (
                "request == MON_IOCX_MFECH",
                "bad filter: Unknown ioctl request 'MON_IOCX_MFECH' (did you mean MON_IOCX_MFETCH?)\n  Filter: request == MON_IOCX_MFECH\n                     ^",
            ),
        ] {
            assert_eq!(parse_filter(expr).unwrap_err().to_string(), error, "{expr}");
        }
        for good in [
            "name == openat || name == send || name == syscall_451",
            "errno == ERESTARTSYS || errno ~ \"EN*\"",
            "sig == SIGRTMIN || sig == SIGUSR1",
            "request == TCGETS || request ~ \"_IOR*\" || request == MON_IOCG_STATS",
            "count > 3 && path == nosuchcall",
        ] {
            assert!(parse_filter(good).is_ok(), "{good}");
        }
        let e = parse_trigger("traceoff if errno == ENOENTX").unwrap_err();
        assert!(
            e.contains("Unknown errno 'ENOENTX' (did you mean ENOENT?)"),
            "{e}"
        );
    }

    #[test]
    fn an_unknown_name_is_quoted_back_with_its_controls_escaped() {
        // The name is the user's, but an error must stay readable lines:
        // no escape sequence, tab or override reaches the terminal raw.
        assert_eq!(
            parse_filter("name == \"a\x1b[31m\tb\u{202e}é\"")
                .unwrap_err()
                .to_string(),
            "bad filter: Unknown system call 'a\\33[31m\\tb\\342\\200\\256é'\n  \
             Filter: name == \"a [31m b é\"\n                  ^"
        );
    }

    #[test]
    fn unknown_fields_are_rejected_with_a_caret() {
        let e = parse_filter("fd == 3 && bogus > 1").unwrap_err();
        assert_eq!(
            e.to_string(),
            "bad filter: Unknown field 'bogus'\n  Filter: fd == 3 && bogus > 1\n                     ^"
        );
        assert!(parse_filter("request ~ \"MON_*\" && fd.path ~ /dev/usbmon*").is_ok());
        assert!(parse_filter("count > 100 || pathname == \"/etc/passwd\"").is_ok());
    }
}
