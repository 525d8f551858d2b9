//! The names a call's parameters print under (`-N`, `--json`) are the
//! names `--filter` knows them by: the test here runs every handler of
//! both ABIs on made-up arguments and checks each top-level name it prints
//! against the system call table's rows (`sysent::rows`), both the name and
//! the argument it stands for.

use std::io::{self, Write};

use serde_json::Value;

use crate::call::{CallCtx, CallData, CallType, is_error};
use crate::fdtable::FdTable;
use crate::format::{FormatConfig, FormatState, Naming, Printer};
use crate::kernel::{Arch, Memory};
use crate::output::{Output, Timestamps};

use super::{Entry, all_calls, lookup, lookup_name, net, number};

/// A writer that keeps nothing: the test reads the JSON values.
struct Sink;

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// One call as the engine would print it.
struct Case {
    arch: Arch,
    nr: u64,
    name: &'static str,
    entry: Entry,
}

/// Every call of both ABIs, and the calls i386 makes through socketcall
/// (printed as themselves, with socketcall's number).
fn every_call() -> Vec<Case> {
    let mut cases = Vec::new();
    for arch in [Arch::X86_64, Arch::I386] {
        for (nr, name) in all_calls(arch) {
            let entry = lookup(arch, nr).1;
            cases.push(Case {
                arch,
                nr,
                name,
                entry,
            });
        }
    }
    let socketcall = number(Arch::I386, "socketcall").expect("i386 has socketcall");
    for &(name, _, _) in net::SOCKETCALLS {
        cases.push(Case {
            arch: Arch::I386,
            nr: socketcall,
            name,
            entry: lookup_name(name),
        });
    }
    cases
}

/// Run a call's handler, enter and leave, the way `call_enter` and
/// `json_leave` do, and return its top-level parameters in printed order.
fn printed(case: &Case, args: [u64; 6], rval: i64, values_only: u8) -> Vec<(String, Value)> {
    let cfg = FormatConfig {
        all_names: true,
        values_only,
        json: true,
        ..FormatConfig::default()
    };
    let mut out = Output::new(Box::new(Sink), false, Timestamps::Off);
    let mut state = FormatState::default();
    // Our own memory: most arguments are addresses under mmap_min_addr
    // (never mapped), so reads fail and pointers print as themselves; a
    // read that succeeds changes a value, not a name.
    let mut mem = Memory::new(nix::unistd::Pid::this());
    let fds = FdTable::new(std::process::id() as i32);
    let mut data = CallData::default();
    {
        let mut p = Printer::new(&mut out, 1, &cfg, &mut state, &mut mem, case.arch);
        p.open("", "(", Naming::Params);
        let mut ctx = CallCtx {
            nr: case.nr,
            arch: case.arch,
            args,
            result: 0,
            sig: case.entry.sig,
            data: &mut data,
            fds: &fds,
            sp: 0,
        };
        match (case.entry.handler.out)(&mut p, &mut ctx) {
            CallType::Done => p.equals(),
            CallType::NoReturn => p.close(")"),
            CallType::NotDone => {
                ctx.result = rval;
                (case.entry.handler.r#in)(&mut p, &mut ctx, is_error(rval));
            }
        }
    }
    state
        .json_mut()
        .args
        .take()
        .unwrap_or_default()
        .into_iter()
        .collect()
}

/// The numbers a printed value shows: a number, `0x..` (a pointer or,
/// with `-V`, flags), `0..` (a mode), a symbol's or flag set's value.
/// Text that is no number (a string, `AT_FDCWD` with its value) gives
/// what it can.
fn shown_numbers(value: &Value) -> Vec<u64> {
    match value {
        Value::Number(n) => n
            .as_u64()
            .or(n.as_i64().map(|v| v as u64))
            .into_iter()
            .collect(),
        Value::String(s) => match s.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16).ok().into_iter().collect(),
            None if s.len() > 1 && s.starts_with('0') => {
                u64::from_str_radix(&s[1..], 8).ok().into_iter().collect()
            }
            None => Vec::new(),
        },
        Value::Object(map) => map.get("value").map(shown_numbers).unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// Whether a printed number is `value` in one of the widths a handler may
/// print it in: 64 bits, 32 (an `int`, sign-extended or not), or 16 (the
/// ids of i386's old `chown` and its kin).
fn same(shown: u64, value: u64) -> bool {
    [
        value,
        value & 0xffff_ffff,
        value as i32 as i64 as u64,
        value & 0xffff,
        value as i16 as i64 as u64,
    ]
    .contains(&shown)
}

/// Argument sets, each value unique within its set so that a printed
/// number tells which argument it came from. All are addresses below
/// mmap_min_addr (never mapped). The second sets many flag bits (O_CREAT,
/// MAP_ANONYMOUS, ...) so that the handlers' other branches print too;
/// the third is small numbers, as commands and counts usually are.
fn arg_sets() -> Vec<[u64; 6]> {
    vec![
        std::array::from_fn(|i| 0x1000 * (i as u64 + 1) + 0xa0 + i as u64),
        std::array::from_fn(|i| 0xffe0 + i as u64),
        std::array::from_fn(|i| i as u64 + 1),
    ]
}

/// Argument sets that walk each of the first four arguments through the
/// small numbers and a few special values (the commands, options and
/// flags that make a handler print other parameters), the others as in
/// the first of [`arg_sets`].
fn sweeps() -> Vec<[u64; 6]> {
    let base = arg_sets()[0];
    let special = [
        u32::MAX as u64,
        u64::MAX,
        -100i64 as u64,
        0x100,
        0x4000,
        crate::abi::xlat::process::PR_SET_VMA as u64,
        crate::abi::xlat::process::PR_SET_PTRACER as u64,
    ];
    let mut sets = Vec::new();
    for k in 0..4 {
        for v in (0..=80).chain(special) {
            let mut args = base;
            args[k] = v;
            sets.push(args);
        }
    }
    sets
}

/// Parameters a handler prints converted: the name stands for the
/// argument, the value is not its register. umask's `mask & 0777` (the
/// bits the kernel uses); socket's `protocol` for AF_PACKET, which the
/// program passes in network byte order.
const CONVERTED: &[(&str, &str)] = &[
    ("umask", "mask"),
    ("socket", "protocol"),
    ("socketpair", "protocol"),
];

/// What is wrong with the names `case` prints for `args`.
fn check(case: &Case, args: [u64; 6], rval: i64, values_only: u8, problems: &mut Vec<String>) {
    let Some(sig) = case.entry.sig else { return };
    let (arch, name) = (case.arch, case.name);
    let declared: Vec<&str> = sig.params.iter().map(|p| p.name).collect();
    let mut last = None;
    for (key, value) in printed(case, args, rval, values_only) {
        let Some(i) = sig.position(&key) else {
            problems.push(format!(
                "{arch:?} {name}: prints `{key}`, not a declared name {declared:?}"
            ));
            continue;
        };
        if last.is_some_and(|l| l >= i) {
            problems.push(format!(
                "{arch:?} {name}: prints `{key}` after a later parameter {declared:?}"
            ));
        }
        last = Some(i);
        let expected = sig.value(i, arch, &args);
        let numbers = shown_numbers(&value);
        let converted = CONVERTED.contains(&(name, key.as_str()));
        if !converted && !numbers.is_empty() && !numbers.iter().any(|&n| same(n, expected)) {
            let from = numbers
                .iter()
                .find_map(|&n| args.iter().position(|&a| same(n, a)));
            problems.push(format!(
                "{arch:?} {name}: prints `{key}` with the value of argument {from:?}, \
                 but `{key}` is argument {i} of {declared:?}"
            ));
        }
    }
}

#[test]
fn handlers_print_parameters_under_their_declared_names() {
    let mut problems = Vec::new();
    for case in every_call() {
        for args in arg_sets() {
            for rval in [0, 1, -14] {
                for values_only in [0, 2] {
                    check(&case, args, rval, values_only, &mut problems);
                }
            }
        }
    }
    for case in every_call() {
        for args in sweeps() {
            for rval in [0, -14] {
                check(&case, args, rval, 0, &mut problems);
            }
        }
    }
    problems.sort();
    problems.dedup();
    assert!(
        problems.is_empty(),
        "{} mismatches between printed and declared names:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
