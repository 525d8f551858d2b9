//! How constants and pids are spelled, and how one call may be printed
//! apart from the others: `-X`, `-V`'s numbers, `-e raw=`, `-e
//! abbrev=`, `-e verbose=`, `-Y`, `--pidns-translation`. The Printer's
//! primitives for named constants and flag sets live here, the one place
//! every decoder's constants are spelled (HACKING.md, "Constants, raw and
//! verbose forms").

use std::fmt::Write as _;

use serde_json::Value;

use super::{FlagDef, FormatConfig, Printer, flags_text};

/// What `-Y` (`--decode-pids=comm`) and `--pidns-translation`
/// (`--decode-pids=pidns`) print with a pid a call takes or returns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DecodePids {
    /// Its process's command: `1234<sh>`.
    pub comm: bool,
    /// For a tracee in another pid namespace, the number rtrace's
    /// namespace gives the process: `2 /* 398 in rtrace's PID NS */`.
    pub pidns: bool,
}

/// How named constants, flag sets and ioctl requests are spelled: the one
/// choice [`Printer::symbol`], [`Printer::flags`] and
/// [`Printer::named_hex`] make for every decoder.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ConstStyle {
    /// The name (`O_WRONLY|O_CREAT`, `SEEK_END`); unknown values as
    /// numbers. The default, strace's `-X abbrev`.
    #[default]
    Abbrev,
    /// strace's `-X raw`: the number as strace spells it (`0x241`,
    /// `0x2`, `0`); error names stay, as in strace. Text only: JSON
    /// carries both the name and the value whatever `-X` says.
    Raw,
    /// strace's `-X verbose`: the number and the name in a comment,
    /// `0x241 /* O_WRONLY|O_CREAT|O_TRUNC */`. Text only, as `Raw`.
    Verbose,
    /// `-V` (MINIX trace(1)'s): numbers in decimal, error and signal
    /// numbers too, in JSON as in text.
    Values,
}

/// How `-e abbrev=`, `-e verbose=` and `-e raw=` set one call apart from
/// the others; chosen by the engine when the call enters and kept in its
/// [`FormatState`], so both halves of the call print alike.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CallStyle {
    /// `-e abbrev=`: `Some(true)` when the set lists the call (its
    /// arrays and structs cut as without `-v`), `Some(false)` when it
    /// does not (printed whole, as with `-v`); `None` when no `-e abbrev=`
    /// was given (`-v` alone decides).
    pub abbrev: Option<bool>,
    /// Not in `-e verbose=`: its structs and arrays printed as their
    /// addresses, as `-VV` prints them (its constants keep their names).
    pub addresses: bool,
    /// In `-e raw=`: every argument and the result as a number, in hex,
    /// with no decoding.
    pub raw: bool,
}

impl FormatConfig {
    /// The configuration for a call printed in `style`, when it differs
    /// from this one.
    pub(super) fn for_call(&self, style: CallStyle) -> Option<FormatConfig> {
        let verbose = match style.abbrev {
            Some(true) => 0,
            Some(false) => self.verbose.max(1),
            None => self.verbose,
        };
        let values_only = if style.addresses {
            self.values_only.max(2)
        } else {
            self.values_only
        };
        (verbose != self.verbose || values_only != self.values_only).then(|| FormatConfig {
            verbose,
            values_only,
            ..self.clone()
        })
    }
}

impl Printer<'_> {
    /// Whether decoders should look names up: not under `-V`, nor under
    /// `-X raw` in text (JSON carries names whatever `-X` says).
    pub fn symbols(&self) -> bool {
        match self.cfg.consts {
            ConstStyle::Abbrev | ConstStyle::Verbose => true,
            ConstStyle::Raw => self.cfg.json,
            ConstStyle::Values => false,
        }
    }

    /// Whether constants are `-V`'s numbers (MINIX trace(1)'s, in text and
    /// JSON): a decoder that spells a value itself keeps its own numeric
    /// form for it then.
    pub fn values_style(&self) -> bool {
        self.cfg.consts == ConstStyle::Values
    }

    /// The text of one constant that a decoder builds into a larger
    /// notation itself (a signal in a set, `W_SIGNALED(SIGKILL)`, one
    /// part of clone's flags), given `number`, its `-X raw` spelling, and
    /// `names`, its name or names if it has any: `names` by default (and
    /// in JSON), `number` under `-X raw` and `-V`, `number /* names */`
    /// under `-X verbose`. The one rule [`Printer::symbol`] follows too.
    pub fn spelling(&self, number: &str, names: Option<&str>) -> String {
        match names {
            None => number.to_string(),
            Some(names) if self.cfg.json => {
                if self.symbols() {
                    names.to_string()
                } else {
                    number.to_string()
                }
            }
            Some(names) => match self.cfg.consts {
                ConstStyle::Abbrev => names.to_string(),
                ConstStyle::Verbose if names != number => format!("{number} /* {names} */"),
                _ => number.to_string(),
            },
        }
    }

    /// A value its decoder spells itself from names and numbers
    /// (`S_IFREG|0644`), with `number`, strace's `-X raw` spelling of the
    /// whole value (`0100644`): as [`Printer::spelling`] says in text
    /// (`0100644 /* S_IFREG|0644 */` under `-X verbose`); in JSON
    /// `json`, whatever `-X` says.
    pub fn spelled(&mut self, name: &str, number: &str, names: &str, json: impl FnOnce() -> Value) {
        if self.cfg.json {
            return self.emit(name, names, json);
        }
        let text = self.spelling(number, Some(names));
        self.emit(name, &text, json);
    }

    /// Whether `-X raw` or `-X verbose` spell this text's constants as
    /// strace's numbers (hex). Never in JSON.
    fn strace_numbers(&self) -> bool {
        !self.cfg.json && matches!(self.cfg.consts, ConstStyle::Raw | ConstStyle::Verbose)
    }

    /// An item of the text trace that has no JSON form of its own: the
    /// `-X raw` and `-X verbose` spellings, which JSON never takes (it
    /// has the name and the value).
    fn emit_text(&mut self, name: &str, text: &str) {
        debug_assert!(!self.cfg.json, "-X spelling in JSON");
        self.emit(name, text, || Value::Null);
    }

    /// A value that is one of a set of symbols, or a number if none fits.
    /// The one place a named constant is spelled: `SEEK_END`; under
    /// `-X raw` `0x2`, under `-X verbose` `0x2 /* SEEK_END */` (strace
    /// writes these numbers in hex), under `-V` `2`.
    pub fn symbol(&mut self, name: &str, value: i64, symbol: Option<&str>) {
        self.constant(name, value, symbol, const_hex(value));
    }

    /// [`Printer::symbol`] for the constants strace writes in decimal
    /// under `-X raw` and `-X verbose`: signal numbers, `AT_FDCWD`.
    pub fn symbol_decimal(&mut self, name: &str, value: i64, symbol: Option<&str>) {
        self.constant(name, value, symbol, value.to_string());
    }

    /// A network interface index, the one printer of every ifindex
    /// (netlink's ifi_index and RTA_OIF, sockaddr_ll's sll_ifindex,
    /// packet_mreq's mr_ifindex, ...): `if_nametoindex("lo")` as strace
    /// spells it, the index when no interface of rtrace's own network
    /// namespace has it (as strace, which looks it up in its own). Under
    /// `-X raw` the number, under `-X verbose` `1 /* if_nametoindex("lo")
    /// */`, under `-V` the number; in JSON `{"value": 1, "name":
    /// "if_nametoindex(\"lo\")"}` as any named constant, or the number.
    pub fn ifindex(&mut self, name: &str, index: u32) {
        let known = if self.symbols() {
            crate::kernel::interface_name(index)
        } else {
            None
        };
        let text = known.map(|n| format!("if_nametoindex({})", super::quote(n.as_bytes(), false)));
        self.constant(name, index as i64, text.as_deref(), index.to_string());
    }

    /// A named constant with `number`, the spelling of its value under
    /// `-X raw` and `-X verbose`.
    fn constant(&mut self, name: &str, value: i64, symbol: Option<&str>, number: String) {
        if self.strace_numbers() {
            let text = match symbol {
                Some(sym) if self.cfg.consts == ConstStyle::Verbose => {
                    format!("{number} /* {sym} */")
                }
                _ => number,
            };
            return self.emit_text(name, &text);
        }
        match symbol {
            Some(sym) if self.symbols() => self.emit(
                name,
                sym,
                || serde_json::json!({ "value": value, "name": sym }),
            ),
            _ => self.int(name, value),
        }
    }

    /// A number the text names (an ioctl request: `TCGETS`, `_IOC(...)`),
    /// printed in hex when it has no name or under `-V` and `-X raw`, and
    /// as `0x5401 /* TCGETS */` under `-X verbose`. In JSON the name (the
    /// number is in the call's `raw`), under `-V` the number.
    pub fn named_hex(&mut self, name: &str, value: u64, symbol: &str) {
        match self.cfg.consts {
            ConstStyle::Verbose if !self.cfg.json => {
                let text = format!("{} /* {symbol} */", flags_hex(value));
                self.emit_text(name, &text);
            }
            ConstStyle::Raw if !self.cfg.json => self.emit_text(name, &flags_hex(value)),
            ConstStyle::Values => self.hex(name, value),
            _ => self.field(name, symbol),
        }
    }

    /// A flag set: `O_WRONLY|O_CREAT|0x80000000`, `0` when empty. Entries
    /// are tried in order; each matched entry's bits are removed. Under
    /// `-X raw` the number (`0x241`, `0`), under `-X verbose` the number
    /// and the names (`0x241 /* O_WRONLY|O_CREAT|O_TRUNC */`).
    pub fn flags(&mut self, name: &str, value: u64, table: &[FlagDef]) {
        if self.strace_numbers() {
            let number = flags_hex(value);
            let names = flags_text(value, table, true);
            let text = if self.cfg.consts == ConstStyle::Verbose && names != number {
                format!("{number} /* {names} */")
            } else {
                number
            };
            return self.emit_text(name, &text);
        }
        let text = flags_text(value, table, self.symbols());
        self.emit(name, &text, || {
            let names: Vec<&str> = if text == "0" {
                Vec::new()
            } else {
                text.split('|').collect()
            };
            serde_json::json!({ "value": value, "flags": names })
        });
    }
}

impl Printer<'_> {
    /// A flag set with one multi-bit field the decoder spells itself: the
    /// bits outside `mask` by `table`, and `field`, first and always when
    /// `first` (fanotify_init's class: `FAN_CLASS_NOTIF|FAN_CLOEXEC`), else
    /// last and only when the field is not zero (memfd_create's
    /// `MFD_CLOEXEC|30<<MFD_HUGE_SHIFT`). The styles are [`Printer::flags`]'s.
    pub fn flags_with_field(
        &mut self,
        name: &str,
        (value, mask): (u64, u64),
        table: &[FlagDef],
        field: &str,
        first: bool,
    ) {
        let rest = flags_text(value & !mask, table, true);
        let names = match (first, value & mask != 0, rest.as_str()) {
            (true, _, "0") => field.to_string(),
            (true, _, _) => format!("{field}|{rest}"),
            (false, false, _) => rest.clone(),
            (false, true, "0") => field.to_string(),
            (false, true, _) => format!("{rest}|{field}"),
        };
        self.flags_spelled(name, value, names);
    }

    /// A flag set printed as separate parts, each its bits and names
    /// (mount's `MS_MGC_VAL|MS_RDONLY`): as one set of names, except that
    /// under `-X raw` each part is its own number (`0xc0ed0000|0x1`) and
    /// under `-X verbose` its number and names, as strace writes them.
    pub fn flags_parts(&mut self, name: &str, value: u64, parts: &[(u64, String)]) {
        if self.strace_numbers() {
            let verbose = self.cfg.consts == ConstStyle::Verbose;
            let text: Vec<String> = parts
                .iter()
                .map(|(bits, names)| {
                    let number = flags_hex(*bits);
                    if verbose && *names != number {
                        format!("{number} /* {names} */")
                    } else {
                        number
                    }
                })
                .collect();
            return self.emit_text(name, &text.join("|"));
        }
        let names: Vec<&str> = parts.iter().map(|(_, n)| n.as_str()).collect();
        self.flags_spelled(name, value, names.join("|"));
    }

    /// A flag set `value` whose names the decoder composed (`names`, in
    /// [`Printer::flags`]'s grammar), printed in [`Printer::flags`]'s
    /// styles: the names, the number under `-X raw` and `-V`, both under
    /// `-X verbose`; in JSON the value and the names.
    pub fn flags_spelled(&mut self, name: &str, value: u64, names: String) {
        if self.strace_numbers() {
            let number = flags_hex(value);
            let text = if self.cfg.consts == ConstStyle::Verbose && names != number {
                format!("{number} /* {names} */")
            } else {
                number
            };
            return self.emit_text(name, &text);
        }
        let text = if self.symbols() {
            names
        } else {
            flags_text(value, &[], false)
        };
        self.emit(name, &text, || {
            let names: Vec<&str> = if text == "0" {
                Vec::new()
            } else {
                text.split('|').collect()
            };
            serde_json::json!({ "value": value, "flags": names })
        });
    }
}

/// A flag set or an ioctl request as strace's `-X raw` writes it: `0`,
/// else `0x241`.
pub fn flags_hex(value: u64) -> String {
    if value == 0 {
        "0".to_string()
    } else {
        format!("0x{value:x}")
    }
}

/// A named constant's value as strace's `-X raw` writes it: hex when
/// positive (`0x2`), else decimal (`0`, `-1`).
fn const_hex(value: i64) -> String {
    if value > 0 {
        format!("0x{value:x}")
    } else {
        value.to_string()
    }
}

/// Pid `pid`, as task `tid` named it, with what `how` adds: its command
/// (`1234<sh>`) and, when the task is in another pid namespace, the number
/// rtrace's gives it (`2 /* 398 in rtrace's PID NS */`, as strace writes
/// it); in JSON `{"value": 2, "comm": "sh", "in_rtrace_ns": 398}`. None
/// when there is nothing to add: no such option, a pid that names no
/// process now (0, -1, a child reaped), no other namespace.
pub fn decorated_pid(how: DecodePids, tid: i32, pid: i64) -> Option<(String, Value)> {
    use crate::kernel::pidns::{PidHere, pid_here};
    if !how.comm && !how.pidns {
        return None;
    }
    let pid32 = i32::try_from(pid).ok().filter(|&p| p > 0)?;
    let (here, translated) = match pid_here(tid, pid32) {
        PidHere::Same(n) => (n, None),
        PidHere::Translated(n) => (n, Some(n)),
        PidHere::Unknown => return None,
    };
    let comm = how
        .comm
        .then(|| crate::kernel::process_name(nix::unistd::Pid::from_raw(here)))
        .flatten();
    let translated = translated.filter(|_| how.pidns);
    if comm.is_none() && translated.is_none() {
        return None;
    }
    let mut text = pid.to_string();
    let mut json = serde_json::Map::new();
    json.insert("value".into(), Value::from(pid));
    if let Some(comm) = &comm {
        let _ = write!(text, "<{}>", comm.in_decoration());
        json.insert("comm".into(), comm.json());
    }
    if let Some(n) = translated {
        let _ = write!(text, " /* {n} in rtrace's PID NS */");
        json.insert("in_rtrace_ns".into(), Value::from(n));
    }
    Some((text, Value::Object(json)))
}
