//! `-e inject=SET:...` and `-e fault=SET:...`: which calls rtrace tampers
//! with, how, and on which of their invocations, in strace's spelling.
//!
//! A rule is parsed once here; the engine (`trace/inject.rs`) keeps one
//! [`Counter`] per rule, call and task (strace counts "per syscall and per
//! tracee": a new thread or child starts counting from its own first call)
//! and does what the rule says when the counter fires. SET is a trace set
//! (names, `%class`, `/regex`, `!SET`), and may also name ioctl requests
//! by the names rtrace prints (`MON_IOCX_MFETCH`, `FIONBIO`): such a word
//! stands for the ioctl calls with that request, each request counting its
//! invocations on its own, as a call of its own would.

use std::time::Duration;

use super::TraceSet;

/// Bytes written where a call's pointer argument points
/// (`poke_enter=@argN=HEX`): argument `arg` (1 to 7, as strace counts; a
/// call has at most 6) and the bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Poke {
    /// Which argument, from 1.
    pub arg: usize,
    /// What is written there.
    pub data: Vec<u8>,
}

/// What an injection does to one invocation of a call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Action {
    /// The call is not run (its number becomes -1 at entry) and returns
    /// this instead: minus an errno (`error=`) or a value (`retval=`).
    pub result: Option<i64>,
    /// `signal=`: delivered to the task as its call enters.
    pub signal: Option<i32>,
    /// `delay_enter=`: the task is held this long at the call's entry.
    pub delay_enter: Option<Duration>,
    /// `delay_exit=`: ... and at its exit.
    pub delay_exit: Option<Duration>,
    /// `poke_enter=`: memory written at the call's entry, before it runs
    /// (and before its arguments are read for its line).
    pub poke_enter: Vec<Poke>,
    /// `poke_exit=`: ... at its exit, before its results are read.
    pub poke_exit: Vec<Poke>,
    /// `syscall=NAME`: with a result, the call's number becomes this
    /// harmless call's (strace's `%pure` calls: no arguments, no effect)
    /// instead of -1, so the kernel runs it in the call's place.
    pub substitute: Option<&'static str>,
}

/// `when=FIRST[..LAST][+[STEP]]`, as strace keeps it: `last` counts down
/// to the end of the range (`None`: no end), `first` to the next
/// invocation injected, from which on it counts `step` (0: no more).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counter {
    first: u32,
    last: Option<u32>,
    step: u32,
}

impl Counter {
    /// Every invocation: strace's default.
    const EVERY: Counter = Counter {
        first: 1,
        last: None,
        step: 1,
    };

    /// Count one invocation; whether it is one to inject into. The same
    /// count as strace's (`tamper_with_syscall_entering`), so that a
    /// range's end and a step land on the same invocations.
    pub fn hit(&mut self) -> bool {
        if self.first == 0 || self.last == Some(0) {
            return false;
        }
        if let Some(last) = self.last.as_mut() {
            *last -= 1;
        }
        self.first -= 1;
        if self.first != 0 {
            return false;
        }
        self.first = self.step;
        true
    }
}

/// One `-e inject=` or `-e fault=` expression.
#[derive(Debug)]
pub struct Rule {
    /// The calls it applies to.
    calls: TraceSet,
    /// The ioctl requests it applies to, by name.
    requests: Vec<String>,
    /// What it does.
    pub action: Action,
    /// Which invocations: a fresh counter for each call and task.
    pub when: Counter,
}

/// How a call matched a rule: by its name, or as an ioctl by its request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Matched {
    /// The call's name is in the rule's set.
    Call,
    /// The call is an ioctl whose request the set names.
    Request,
}

/// Every `-e inject=` and `-e fault=` given, in order.
#[derive(Debug, Default)]
pub struct InjectSet {
    rules: Vec<Rule>,
}

impl InjectSet {
    /// Whether no injection was asked for.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Add `-e inject=SPEC` (`fault`: `-e fault=SPEC`, which takes only
    /// `error=` and `when=` and fails with ENOSYS by default).
    pub fn add(&mut self, spec: &str, fault: bool) -> Result<(), String> {
        let what = if fault { "-e fault" } else { "-e inject" };
        let rule = parse(spec, fault).map_err(|e| format!("{what}: {e}"))?;
        self.rules.push(rule);
        Ok(())
    }

    /// Whether some rule names ioctl requests (then an ioctl's request
    /// name is worth working out).
    pub fn names_requests(&self) -> bool {
        self.rules.iter().any(|r| !r.requests.is_empty())
    }

    /// The rule that applies to call `name` (for an ioctl, with request
    /// names `request`: the name rtrace prints for it, each of `A or B`),
    /// and how it matched. As in strace, of several rules that name a
    /// call the last given wins.
    pub fn rule(&self, name: &str, request: Option<&str>) -> Option<(usize, &Rule, Matched)> {
        self.rules.iter().enumerate().rev().find_map(|(i, rule)| {
            let by_request = request.is_some_and(|text| {
                text.split(" or ")
                    .any(|req| rule.requests.iter().any(|r| r == req))
            });
            if by_request {
                Some((i, rule, Matched::Request))
            } else if rule.calls.contains(name) {
                Some((i, rule, Matched::Call))
            } else {
                None
            }
        })
    }

    /// The calls of both ABIs some rule applies to: the seccomp fast path
    /// must stop them whether or not they are printed (`ioctl` for a
    /// request, `socketcall` for a call i386 makes through it).
    pub fn stopped_calls(&self) -> Vec<&'static str> {
        let mut names = Vec::new();
        for arch in [crate::kernel::Arch::X86_64, crate::kernel::Arch::I386] {
            for (_, name) in crate::service::all_calls(arch) {
                let socket = name == "socketcall"
                    && crate::service::net::SOCKETCALLS
                        .iter()
                        .any(|&(sub, _, _)| self.rules.iter().any(|r| r.calls.contains(sub)));
                let request = name == "ioctl" && self.names_requests();
                if socket || request || self.rules.iter().any(|r| r.calls.contains(name)) {
                    names.push(name);
                }
            }
        }
        names.sort_unstable();
        names.dedup();
        names
    }
}

/// One expression: `SET:TOKEN:TOKEN...`.
fn parse(spec: &str, fault: bool) -> Result<Rule, String> {
    let mut tokens = spec.split(':');
    let set = tokens.next().unwrap_or_default();
    if set.is_empty() {
        return Err(format!("'{spec}' names no call (SET:error=ERRNO:when=...)"));
    }
    let (calls, requests) = split_set(set)?;
    let mut action = Action::default();
    let mut when = Counter::EVERY;
    for token in tokens {
        let (key, value) = token.split_once('=').unwrap_or((token, ""));
        let only_fault = matches!(key, "error" | "when");
        if fault && !only_fault {
            return Err(format!(
                "'{token}': -e fault takes error= and when= only (-e inject takes the rest)"
            ));
        }
        match key {
            "when" => when = parse_when(value)?,
            "error" | "retval" if action.result.is_some() => {
                return Err("error= and retval= exclude each other, and each comes once".into());
            }
            "error" => action.result = Some(-i64::from(parse_errno(value)?)),
            "retval" => action.result = Some(parse_retval(value)?),
            "signal" if action.signal.is_some() => {
                return Err("signal= comes once".into());
            }
            "signal" => {
                action.signal = Some(super::signal_number(value).ok_or_else(|| {
                    format!("'{value}' is no signal (a name, SIGRTMIN+N, or 1 to 64)")
                })?);
            }
            "delay_enter" => action.delay_enter = Some(parse_delay(value)?),
            "delay_exit" => action.delay_exit = Some(parse_delay(value)?),
            "poke_enter" | "poke_exit" => {
                let pokes = if key == "poke_enter" {
                    &mut action.poke_enter
                } else {
                    &mut action.poke_exit
                };
                if !pokes.is_empty() {
                    return Err(format!("{key}= comes once"));
                }
                *pokes = parse_pokes(key, value)?;
            }
            "syscall" if action.substitute.is_some() => {
                return Err("syscall= comes once".into());
            }
            "syscall" => action.substitute = Some(parse_substitute(value)?),
            _ => {
                return Err(format!(
                    "unknown token '{token}' (error=, retval=, signal=, delay_enter=, delay_exit=, poke_enter=, poke_exit=, syscall=, when=)"
                ));
            }
        }
    }
    if action.substitute.is_some() && action.result.is_none() {
        // strace's rule too: the substitute's own result would reach the
        // program as the call's.
        return Err(format!(
            "'{spec}': syscall= needs error= or retval= (the result the program sees)"
        ));
    }
    if action == Action::default() {
        if !fault {
            return Err(format!(
                "'{spec}' does nothing: give error=, retval=, signal=, delay_enter=, delay_exit=, poke_enter= or poke_exit="
            ));
        }
        action.result = Some(-i64::from(libc::ENOSYS));
    }
    Ok(Rule {
        calls,
        requests,
        action,
        when,
    })
}

/// `syscall=NAME`: a call of both ABIs in strace's `%pure` class (no
/// arguments, always succeeds, changes nothing), as strace allows.
fn parse_substitute(name: &str) -> Result<&'static str, String> {
    use crate::kernel::Arch;
    let known = crate::service::all_calls(Arch::X86_64)
        .map(|(_, n)| n)
        .find(|&n| n == name)
        .filter(|n| crate::service::number(Arch::I386, n).is_some());
    let Some(name) = known else {
        return Err(format!(
            "syscall={name}: not a system call of both x86_64 and i386"
        ));
    };
    if !crate::sysent::classes(name).intersects(crate::sysent::class::PURE) {
        return Err(format!(
            "syscall={name}: only a harmless call of %pure (getpid, gettid, getuid, ...) can run instead"
        ));
    }
    Ok(name)
}

/// SET: its ioctl request names (words that start with a capital letter:
/// call names are lower case) apart from the trace set of the rest.
fn split_set(set: &str) -> Result<(TraceSet, Vec<String>), String> {
    let negated = set.starts_with('!');
    let mut calls = Vec::new();
    let mut requests = Vec::new();
    for word in set.trim_start_matches('!').split(',') {
        let word = word.trim();
        if word.starts_with(|c: char| c.is_ascii_uppercase()) {
            if negated {
                return Err(format!(
                    "ioctl request '{word}' in a negated set: name the requests to inject into"
                ));
            }
            if !known_request(word) {
                return Err(
                    match crate::spelling::nearest(word, crate::ioctl::request_names()) {
                        Some(near) => {
                            format!("unknown ioctl request '{word}' (did you mean {near}?)")
                        }
                        None => format!("unknown ioctl request '{word}'"),
                    },
                );
            }
            requests.push(word.to_string());
        } else {
            calls.push(word);
        }
    }
    let calls = match (calls.is_empty(), negated) {
        (true, _) => TraceSet::parse("none")?,
        (false, true) => TraceSet::parse(&format!("!{}", calls.join(",")))?,
        (false, false) => TraceSet::parse(&calls.join(","))?,
    };
    Ok((calls, requests))
}

/// A request name rtrace can print: a decoder's, or the headers' for
/// either ABI.
fn known_request(name: &str) -> bool {
    crate::ioctl::request_names().any(|n| n == name)
        || crate::ioctl::names::tables()
            .iter()
            .any(|t| t.by_name(name).is_some())
}

/// `FIRST[..LAST][+[STEP]]`: FIRST and STEP 1 to 65535, LAST from FIRST
/// to 65534 (strace's limits). FIRST alone is that invocation only;
/// `FIRST+` and `FIRST..LAST` every one from FIRST (to LAST).
fn parse_when(text: &str) -> Result<Counter, String> {
    let bad =
        || format!("'when={text}': expected FIRST[..LAST][+[STEP]], FIRST and STEP 1 to 65535");
    let number = |s: &str, max: u32| -> Option<u32> {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u32>().ok())
            .flatten()
            .filter(|&n| (1..=max).contains(&n))
    };
    let (range, step) = match text.split_once('+') {
        Some((range, "")) => (range, Some(1)),
        Some((range, step)) => (range, Some(number(step, 65535).ok_or_else(bad)?)),
        None => (text, None),
    };
    let (first, last) = match range.split_once("..") {
        Some((first, last)) => {
            let first = number(first, 65535).ok_or_else(bad)?;
            let last = number(last, 65534)
                .filter(|&l| l >= first)
                .ok_or_else(|| format!("'when={text}': LAST must be from FIRST to 65534"))?;
            (first, Some(last))
        }
        None => (number(range, 65535).ok_or_else(bad)?, None),
    };
    // FIRST alone is one invocation; a range without a step is every one.
    let step = step.unwrap_or(if last.is_some() { 1 } else { 0 });
    Ok(Counter { first, last, step })
}

/// An errno by name (`EINTR`, also the kernel's own such as
/// `ERESTARTSYS`) or number, 1 to 4095.
fn parse_errno(text: &str) -> Result<i32, String> {
    if let Ok(n) = text.parse::<i32>() {
        return (1..=4095)
            .contains(&n)
            .then_some(n)
            .ok_or_else(|| format!("'error={text}': an errno is 1 to 4095"));
    }
    (1..=4095)
        .find(|&n| crate::call::errno_name(n.into()) == Some(text))
        .ok_or_else(|| {
            let names: Vec<&str> = (1..=4095)
                .filter_map(|n| crate::call::errno_name(n.into()))
                .collect();
            match crate::spelling::nearest(text, names) {
                Some(near) => format!("unknown errno '{text}' (did you mean {near}?)"),
                None => format!("unknown errno '{text}'"),
            }
        })
}

/// A return value: decimal, `0x` hex or `0` octal (strtoull's base 0, as
/// strace reads it), or negative. One the program would take for an error
/// (-4095 to -1) is refused: that is what `error=` says.
fn parse_retval(text: &str) -> Result<i64, String> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let magnitude = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        u64::from_str_radix(hex, 16).ok()
    } else if digits.len() > 1 && digits.starts_with('0') {
        u64::from_str_radix(&digits[1..], 8).ok()
    } else {
        digits
            .parse::<u64>()
            .ok()
            .filter(|_| !digits.starts_with('+'))
    };
    let value = match (magnitude, negative) {
        (Some(m), false) => m as i64,
        (Some(m), true) if m <= i64::MAX as u64 + 1 => (m as i64).wrapping_neg(),
        _ => return Err(format!("'retval={text}': expected a number")),
    };
    if (-4095..0).contains(&value) {
        return Err(format!(
            "'retval={text}': a program reads that as an error: use error={}",
            -value
        ));
    }
    Ok(value)
}

/// `@argN=HEX,@argM=HEX...`: N from 1 to 7, an even number of hex digits
/// (at most 2048, strace's limit).
fn parse_pokes(key: &str, text: &str) -> Result<Vec<Poke>, String> {
    text.split(',')
        .map(|item| {
            let bad = || format!("'{key}={text}': expected @argN=HEXBYTES,... (N 1 to 7)");
            let rest = item.strip_prefix("@arg").ok_or_else(bad)?;
            let (n, hex) = rest.split_once('=').ok_or_else(bad)?;
            let arg = n
                .parse::<usize>()
                .ok()
                .filter(|a| (1..=7).contains(a) && n.len() == 1)
                .ok_or_else(bad)?;
            if hex.is_empty() || hex.len() % 2 != 0 || hex.len() > 2048 {
                return Err(bad());
            }
            let data = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(hex.get(i..i + 2).unwrap_or("x"), 16))
                .collect::<Result<Vec<u8>, _>>()
                .map_err(|_| bad())?;
            Ok(Poke { arg, data })
        })
        .collect()
}

/// A delay as strace reads one: a decimal number with an optional unit,
/// `s`, `ms`, `us` (the default) or `ns`.
fn parse_delay(text: &str) -> Result<Duration, String> {
    let (number, scale) = [("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3), ("s", 1.0)]
        .iter()
        .find_map(|&(unit, scale)| text.strip_suffix(unit).map(|n| (n, scale)))
        .unwrap_or((text, 1e-6));
    number
        .parse::<f64>()
        .ok()
        .filter(|n| n.is_finite() && *n >= 0.0)
        .and_then(|n| Duration::try_from_secs_f64(n * scale).ok())
        .ok_or_else(|| {
            format!("'{text}': expected a delay, a number with s, ms, us (the default) or ns")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The invocations (1 to 12) a `when=` injects into.
    fn fired(when: &str) -> Vec<u32> {
        let mut c = parse_when(when).unwrap();
        (1..=12).filter(|_| c.hit()).collect()
    }

    #[test]
    fn when_counts_as_strace_does() {
        assert_eq!(fired("3"), [3]);
        assert_eq!(fired("3+"), [3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
        assert_eq!(fired("3+4"), [3, 7, 11]);
        assert_eq!(fired("3..5"), [3, 4, 5]);
        assert_eq!(fired("3..5+"), [3, 4, 5]);
        assert_eq!(fired("2..9+3"), [2, 5, 8]);
        assert_eq!(fired("1..1"), [1]);
        let mut every = Counter::EVERY;
        assert!((1..=12).all(|_| every.hit()));
        for bad in [
            "0", "", "3..2", "1..65535", "2+0", "x", "1.5", "+1", "65536",
        ] {
            assert!(parse_when(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn tokens_and_defaults() {
        let rule = parse("chdir:syscall=getpid:error=EPERM", false).unwrap();
        assert_eq!(rule.action.substitute, Some("getpid"));
        assert_eq!(rule.action.result, Some(-1));
        let rule = parse("chdir:error=ENOENT:when=2", false).unwrap();
        assert_eq!(rule.action.result, Some(-2));
        let rule = parse("chdir:error=4:signal=SIGUSR1:delay_exit=2ms", false).unwrap();
        assert_eq!(rule.action.result, Some(-4));
        assert_eq!(rule.action.signal, Some(libc::SIGUSR1));
        assert_eq!(rule.action.delay_exit, Some(Duration::from_millis(2)));
        assert_eq!(
            parse("chdir", true).unwrap().action.result,
            Some(-i64::from(libc::ENOSYS))
        );
        assert_eq!(
            parse("dup:retval=0x10", false).unwrap().action.result,
            Some(16)
        );
        assert_eq!(
            parse("dup:retval=010", false).unwrap().action.result,
            Some(8)
        );
        assert_eq!(
            parse("dup:retval=-5000", false).unwrap().action.result,
            Some(-5000)
        );
        assert_eq!(
            parse("dup:delay_enter=1.5", false)
                .unwrap()
                .action
                .delay_enter,
            Some(Duration::from_nanos(1500))
        );
        let poke = parse("write:poke_enter=@arg2=61ff,@arg1=00", false).unwrap();
        assert_eq!(
            poke.action.poke_enter,
            [
                Poke {
                    arg: 2,
                    data: vec![0x61, 0xff]
                },
                Poke {
                    arg: 1,
                    data: vec![0]
                }
            ]
        );
        let rt = parse("dup:signal=SIGRTMIN+2", false).unwrap();
        assert_eq!(rt.action.signal, Some(libc::SIGRTMIN() + 2));
        for bad in [
            "chdir",
            "chdir:error=EFOO",
            "chdir:error=4096",
            "chdir:error=1:retval=2",
            "chdir:retval=-1",
            "chdir:signal=SIGFOO",
            "chdir:signal=1:signal=2",
            "chdir:delay_enter=-1",
            "chdir:delay_exit=1h",
            "chdir:poke_enter=@arg8=00",
            "chdir:poke_enter=@arg1=0",
            "chdir:poke_enter=@arg1=zz",
            "chdir:poke_exit=arg1=00",
            "chdir:poke_exit=@arg1=00:poke_exit=@arg2=00",
            "chdir:syscall=getpid",
            "chdir:syscall=chdir:error=EPERM",
            "chdir:syscall=nosuch:error=EPERM",
            "chdir:syscall=getpid:syscall=getpid:error=EPERM",
            "nosuchcall:error=EPERM",
            ":error=EPERM",
            "chdir:bogus=1",
            "!MON_IOCX_MFETCH:error=EINTR",
            "MON_IOCX_NOPE:error=EINTR",
        ] {
            assert!(parse(bad, false).is_err(), "{bad}");
        }
        assert!(parse("chdir:signal=SIGUSR1", true).is_err());
    }

    #[test]
    fn the_last_rule_for_a_call_wins_and_requests_match_their_ioctls() {
        let mut set = InjectSet::default();
        set.add("%file:error=ENOENT", false).unwrap();
        set.add("chdir,MON_IOCX_MFETCH:error=EINTR", false).unwrap();
        let (i, rule, how) = set.rule("chdir", None).unwrap();
        assert_eq!((i, rule.action.result, how), (1, Some(-4), Matched::Call));
        assert_eq!(set.rule("openat", None).unwrap().0, 0);
        assert!(set.rule("ioctl", Some("MON_IOCX_GET")).is_none());
        let (_, _, how) = set.rule("ioctl", Some("X or MON_IOCX_MFETCH")).unwrap();
        assert_eq!(how, Matched::Request);
        assert!(set.stopped_calls().contains(&"ioctl"));
        assert!(set.stopped_calls().contains(&"chdir"));
        assert!(!set.stopped_calls().contains(&"read"));
    }
}
