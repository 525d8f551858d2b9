//! `rtrace --explain-ioctl NAME|CODE` and `rtrace --list-ioctls [GROUP]`:
//! teaching what a request is. A code is taken apart into its `_IOC`
//! fields with their bits, every name the code has (hand-written groups and
//! the generated tables, x86_64 and i386) is listed with its C definition,
//! and the argument is described from the table that knows most: a
//! decoder's layout, or the header's type name. Each says where it came
//! from.

use std::fmt::Write as _;

use super::defs::{Copied, Def, Macro, Param};
use super::names::{self, Table};
use super::{Arg, IF_IN, IF_OUT, IoctlGroup, Request, groups, ioc_fields, request_text};
use crate::kernel::Arch;

/// What `--explain-ioctl` takes: a name (`BLKGETSIZE64`,
/// `EVIOCGNAME(256)`) or a number (`0x80081272`, `2148012658`).
pub fn explain_arg(text: &str) -> Result<String, String> {
    if text
        .strip_prefix('-')
        .is_some_and(|n| parse_number(n).is_some())
    {
        return Err(format!(
            "'{text}': request codes are not negative (0 to 0xffffffff)"
        ));
    }
    if let Some(code) = parse_number(text) {
        return match code {
            Some(code) => Ok(explain(code)),
            None => Err(format!("'{text}': request codes are 32 bits")),
        };
    }
    explain_name(text)
}

/// `Some(Some(code))` for a number, `Some(None)` for one too large, `None`
/// for a word that is not a number.
fn parse_number(text: &str) -> Option<Option<u64>> {
    let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok()?,
        None if text.bytes().all(|b| b.is_ascii_digit()) && !text.is_empty() => {
            text.parse().unwrap_or(u64::MAX)
        }
        None => return None,
    };
    Some((parsed <= u32::MAX as u64).then_some(parsed))
}

/// Explain a request by its name.
fn explain_name(text: &str) -> Result<String, String> {
    let x86_64 = names::table(Arch::X86_64);
    let i386 = names::table(Arch::I386);
    // A hand-written group's request (usbmon's are not in the uapi headers).
    for &group in groups() {
        if let Some(req) = group.requests().iter().find(|r| r.name == text) {
            return Ok(with_heading(text, req.code as u64, None, None));
        }
    }
    if let Some(def) = x86_64.by_name(text) {
        let other = i386.by_name(text).map(|d| d.code as u64);
        return Ok(with_heading(text, def.code as u64, other, None));
    }
    if let Some(def) = i386.by_name(text) {
        let mut out = format!("{text} is an i386 request only: 0x{:08x}\n", def.code);
        out.push_str(&explain_for(def.code as u64, Arch::I386));
        return Ok(out);
    }
    // A request with parameters: `EVIOCGBIT(1, 96)`, or the bare name
    // (every parameter 0).
    let (base, args) = match text.split_once('(') {
        Some((base, rest)) => (base, rest.strip_suffix(')')),
        None => (text, None),
    };
    if let Some(f) = x86_64.families.iter().find(|f| f.name == base) {
        // Each parameter a number, or a name the header gives it (EV_KEY).
        let args: Vec<u32> = match args {
            None if !text.contains('(') => vec![0; f.params.len()],
            None => return Err(format!("'{text}': a ')' is missing")),
            Some(args) => {
                let words: Vec<&str> = args.split(',').map(str::trim).collect();
                let parsed: Option<Vec<u32>> = words
                    .iter()
                    .zip(f.params.iter().chain(std::iter::repeat(&Param::Size)))
                    .map(|(w, p)| match (w.parse::<u32>(), p) {
                        (Ok(n), _) => Some(n),
                        (Err(_), Param::Nr(names)) => {
                            names.iter().find(|(_, n)| n == w).map(|&(v, _)| v)
                        }
                        (Err(_), Param::Size) => None,
                    })
                    .collect();
                parsed
                    .ok_or_else(|| format!("'{text}': {base}'s parameters are numbers or names"))?
            }
        };
        let code = f.code(&args).ok_or_else(|| {
            format!(
                "'{text}': {base} takes {} parameter{} that must fit its code",
                f.params.len(),
                if f.params.len() == 1 { "" } else { "s" }
            )
        })?;
        let other = i386
            .families
            .iter()
            .find(|g| g.name == base)
            .and_then(|g| g.code(&args))
            .map(u64::from);
        let what: Vec<String> = f
            .params
            .iter()
            .map(|p| match p {
                Param::Nr(_) => format!("the number (from 0x{:02x})", f.nr),
                Param::Size if f.size == 1 => "the size in bytes".to_string(),
                Param::Size => format!("the size in units of {} bytes", f.size),
            })
            .collect();
        let note = format!(
            "{base}: a request whose parameters set {}",
            what.join(" and ")
        );
        return Ok(with_heading(text, code as u64, other, Some(note)));
    }
    Err(match nearest(text) {
        Some(near) => format!("no ioctl request named '{text}' (did you mean {near}?)"),
        None => format!("no ioctl request named '{text}'"),
    })
}

/// `NAME is request 0x... on x86_64 (0x... on i386)` and the explanation.
fn with_heading(name: &str, code: u64, i386: Option<u64>, note: Option<String>) -> String {
    let mut out = match i386 {
        Some(other) if other != code => {
            format!("{name} is request 0x{code:08x} on x86_64, 0x{other:08x} on i386\n")
        }
        _ => format!("{name} is request 0x{code:08x}\n"),
    };
    if let Some(note) = note {
        let _ = writeln!(out, "{note}");
    }
    out.push_str(&explain(code));
    out
}

/// `rtrace --explain-ioctl CODE`: what a request code means, for x86_64
/// programs and, where the names differ, for i386 ones.
pub fn explain(code: u64) -> String {
    let mut out = explain_for(code, Arch::X86_64);
    let wide = names::table(Arch::X86_64).lookup(code as u32);
    let narrow = names::table(Arch::I386).lookup(code as u32);
    let same = wide.len() == narrow.len() && wide.iter().zip(narrow).all(|(a, b)| a.name == b.name);
    if !same && !narrow.is_empty() {
        let _ = writeln!(out, "in i386 programs:");
        for def in narrow {
            def_text(&mut out, names::table(Arch::I386), def);
        }
    }
    out
}

/// The bits, then every name `arch`'s programs give `code`.
fn explain_for(code: u64, arch: Arch) -> String {
    let f = ioc_fields(code);
    let dir = match f.dir {
        0 => "_IOC_NONE (no data, or data by value)",
        1 => "_IOC_WRITE (program -> kernel)",
        2 => "_IOC_READ (kernel -> program)",
        _ => "_IOC_READ|_IOC_WRITE (both ways)",
    };
    let mut out = String::new();
    let _ = writeln!(out, "request 0x{code:08x} = {}", request_text(code));
    let _ = writeln!(out, "  bits 31-30  direction  {} = {dir}", f.dir);
    let _ = writeln!(out, "  bits 29-16  size       {} bytes", f.size);
    let kind_char = if (f.kind as u8).is_ascii_graphic() {
        format!(" '{}'", f.kind as u8 as char)
    } else {
        String::new()
    };
    let _ = writeln!(out, "  bits 15-8   type       0x{:02x}{kind_char}", f.kind);
    let _ = writeln!(out, "  bits 7-0    number     {} (0x{:x})", f.nr, f.nr);
    let table = names::table(arch);
    let mut known = false;
    for &group in groups() {
        for req in group.requests().iter().filter(|r| r.code as u64 == code) {
            known = true;
            req_text(&mut out, group, req);
        }
    }
    if let Some((f, text)) = table.family(code as u32) {
        known = true;
        let _ = writeln!(
            out,
            "{text} in {}: a request with parameters in its code",
            table.family_header(f)
        );
    }
    for def in table.lookup(code as u32) {
        // A group's request is described above, with more.
        let decoded = groups().iter().any(|g| {
            g.requests()
                .iter()
                .any(|r| r.code == def.code && r.name == def.name)
        });
        if !decoded {
            known = true;
            def_text(&mut out, table, def);
        }
    }
    if !known {
        let _ = writeln!(
            out,
            "no header and no group rtrace knows names this request"
        );
        out.push_str(&super::fallback::explain(code, arch));
    }
    out
}

/// A generated table's request: definition, header, argument type.
fn def_text(out: &mut String, table: &Table, def: &Def) {
    let _ = writeln!(
        out,
        "{} in {}: {}",
        def.name,
        table.header(def),
        c_definition(def)
    );
    let real = table.real(def);
    if let Some(real) = real {
        let copied = match real.copied {
            Copied::Pointee(ty, size) => format!("`{ty}` ({size} bytes) at the pointer"),
            Copied::Str(0) => "a NUL-terminated string at the pointer".to_string(),
            Copied::Str(max) => format!(
                "a NUL-terminated string of at most {max} bytes with its NUL at the pointer"
            ),
            Copied::Value => "nothing: the argument itself is the number".to_string(),
            Copied::Ptr => "memory of no declared type at the pointer".to_string(),
        };
        let header = if def.arg.is_empty() {
            "no type".to_string()
        } else {
            format!("`{}`", def.arg)
        };
        let _ = writeln!(
            out,
            "  argument: the header says {header}; the kernel copies {copied}"
        );
        let _ = writeln!(out, "  why: {}", real.reason);
        if !real.proof.is_empty() {
            let _ = writeln!(out, "  kernel source: {}", real.proof);
        }
    }
    if !def.arg.is_empty() || real.is_some() {
        if real.is_none() {
            let _ = writeln!(
                out,
                "  argument: a pointer to {} (the header's type; rtrace's tables have no layout for it)",
                def.arg
            );
        }
        let arch = if table.arch == "i386" {
            Arch::I386
        } else {
            Arch::X86_64
        };
        // Where a group decodes the code, its decoder prints the argument.
        if super::find(def.code, None).is_none() {
            out.push_str(&super::fallback::explain(def.code as u64, arch));
        }
    }
}

/// The request's C definition with its numbers evaluated:
/// `_IOWR(0x92, 7, struct mon_bin_mfetch)`, `0x5401`.
fn c_definition(def: &Def) -> String {
    let f = ioc_fields(def.code as u64);
    let kind = type_text(f.kind);
    match def.mac {
        Macro::Hex => format!("0x{:04x}", def.code),
        Macro::Io => format!("_IO({kind}, {})", f.nr),
        Macro::Ioc => format!(
            "_IOC({}, {kind}, {}, {})",
            [
                "_IOC_NONE",
                "_IOC_WRITE",
                "_IOC_READ",
                "_IOC_READ|_IOC_WRITE"
            ][f.dir as usize],
            f.nr,
            f.size
        ),
        mac => format!("{}({kind}, {}, {})", mac.c_name(), f.nr, def.arg),
    }
}

/// The type byte as a header would write it: `'E'` or `0x92`.
fn type_text(kind: u64) -> String {
    let c = kind as u8;
    if c.is_ascii_graphic() && c != b'\'' && c != b'\\' {
        format!("'{}'", c as char)
    } else {
        format!("0x{kind:02x}")
    }
}

/// A hand-written group's request: how its argument travels and the
/// decoder's layout.
fn req_text(out: &mut String, group: &dyn IoctlGroup, req: &Request) {
    let _ = writeln!(
        out,
        "{} in group {}: {}",
        req.name,
        group.name(),
        group_definition(req)
    );
    let _ = writeln!(out, "  argument: {}", arg_text(req));
    let f = ioc_fields(req.code as u64);
    if req.dir_bits_lie && f.dir != 0 {
        let _ = writeln!(
            out,
            "  (an old code: its direction bits do not say how the kernel uses it; \
             the line above does)"
        );
    } else if req.dir_bits_lie {
        let _ = writeln!(
            out,
            "  (a legacy number, from before request codes said what they carry: its\n   \
             bits say no data travels; the kernel's handler takes the argument above)"
        );
    }
    if let Arg::Struct(layout) | Arg::Custom(layout) = req.arg {
        let _ = writeln!(
            out,
            "  layout from rtrace's {} decoder: {} ({} bytes)",
            group.name(),
            c_type(layout.name),
            layout.size
        );
        for field in layout.fields {
            let _ = writeln!(
                out,
                "    @{:<3} {:<2} {} {}",
                field.offset, field.size, field.ty, field.name
            );
        }
        if pointer_typed(req.code, layout) {
            let _ = writeln!(
                out,
                "  the code's size ({} bytes) is a pointer's: the header's type is \
                 `struct {} *`; the argument is that pointer, and the kernel copies \
                 the {}-byte struct it points to",
                f.size, layout.name, layout.size
            );
        }
        if layout.fields.is_empty() && !c_type(layout.name).starts_with("struct ") {
            // A plain type: no fields to list or to check.
        } else if layout.fields.is_empty() {
            // A group that reads its structs through generated layouts
            // (src/abi/xlat/ioctl.rs) lists no fields here, and there is
            // nothing of its own to hold against the kernel's BTF.
            let _ = writeln!(
                out,
                "  its fields: the layout generated from the header (src/abi/xlat/ioctl.rs)"
            );
        } else {
            out.push_str(&super::btf::agreement_line(layout));
        }
    }
}

/// A layout's name as C spells its type: `struct NAME`, except for the
/// plain types some groups' arguments are (`__u32`, `unsigned long`,
/// `char[512]`), which are not structs.
fn c_type(name: &str) -> String {
    let plain = name.starts_with("__")
        || name.contains('[')
        || name.contains(' ')
        || matches!(name, "int" | "long" | "char");
    if plain {
        name.to_string()
    } else {
        format!("struct {name}")
    }
}

/// Whether a group's request carries a pointer's size where its struct is
/// another size: the header declares the type as a pointer to the struct
/// (user_events' `_IOWR('*', 0, struct user_reg *)`), a known header
/// mistake, and the argument is that pointer.
fn pointer_typed(code: u32, layout: &super::Layout) -> bool {
    let size = ioc_fields(code as u64).size;
    matches!(size, 4 | 8) && layout.size as u64 != size
}

/// A group request's C definition: the header's (from the generated
/// table) where the uapi headers define it, else made from its bits and
/// the decoder's struct (usbmon's requests live in a kernel-internal
/// header): `_IOWR(0x92, 7, struct mon_bin_mfetch)`.
fn group_definition(req: &Request) -> String {
    let table = names::table(Arch::X86_64);
    if let Some(def) = table.lookup(req.code).iter().find(|d| d.name == req.name) {
        return c_definition(def);
    }
    let f = ioc_fields(req.code as u64);
    let ty = match req.arg {
        Arg::Struct(layout) | Arg::Custom(layout) if pointer_typed(req.code, layout) => {
            format!("struct {} *", layout.name)
        }
        Arg::Struct(layout) | Arg::Custom(layout) => c_type(layout.name),
        Arg::Int | Arg::IntFlags(_) => "int".to_string(),
        _ => format!("{} bytes", f.size),
    };
    let mac = match f.dir {
        _ if req.dir_bits_lie => Macro::Hex,
        0 if f.size == 0 => Macro::Io,
        0 => Macro::Ioc,
        1 => Macro::Iow,
        2 => Macro::Ior,
        _ => Macro::Iowr,
    };
    let def = Def::new(req.code, req.name, 0, mac, "");
    match mac {
        Macro::Ior | Macro::Iow | Macro::Iowr => {
            format!("{}({}, {}, {ty})", mac.c_name(), type_text(f.kind), f.nr)
        }
        _ => c_definition(&def),
    }
}

/// How a request's argument travels, in words.
fn arg_text(req: &Request) -> String {
    let dirs = match req.dirs & (IF_OUT | IF_IN) {
        0 => "",
        IF_OUT => ", decoded before the call",
        IF_IN => ", decoded after the call",
        _ => ", decoded before and after the call",
    };
    match req.arg {
        Arg::None => "no argument".to_string(),
        Arg::Value => "argument passed by value".to_string(),
        Arg::ValueEnum(_) => "argument passed by value, one of a set of names".to_string(),
        Arg::ValueFlags(_) => "flags passed by value".to_string(),
        Arg::Fd => "file descriptor passed by value".to_string(),
        Arg::Int => format!("pointer to int{dirs}"),
        Arg::IntFlags(_) => format!("pointer to int flags{dirs}"),
        Arg::Char => "pointer to a character".to_string(),
        Arg::Struct(layout) | Arg::Custom(layout) => {
            format!("pointer to {}{dirs}", c_type(layout.name))
        }
        Arg::Str => "pointer to a NUL-terminated string".to_string(),
        Arg::Ptr => "pointer (not decoded)".to_string(),
    }
}

/// The known request name nearest to `text`, if one is near enough to be
/// a likely typo (`BLKGETSIZE46`).
fn nearest(text: &str) -> Option<&'static str> {
    let all = groups()
        .iter()
        .flat_map(|g| g.requests().iter().map(|r| r.name))
        .chain(
            names::tables()
                .into_iter()
                .flat_map(|t| t.defs.iter().map(|d| d.name)),
        )
        .chain(
            names::tables()
                .into_iter()
                .flat_map(|t| t.families.iter().map(|f| f.name)),
        );
    crate::spelling::nearest(text, all)
}

/// `rtrace --list-ioctls [GROUP]`: every request rtrace names, by group
/// (the hand-written decoders' groups, then one per header: `fs`, `kvm`,
/// `sound/asound`), with the x86_64 code (and the i386 one where it
/// differs) and a count at the end.
pub fn list(group_name: Option<&str>) -> Result<String, String> {
    if group_name == Some("") {
        return Err(
            "an empty ioctl group name (rtrace --list-ioctls alone lists every group)".into(),
        );
    }
    let rows = rows(group_name);
    if rows.is_empty() {
        let g = group_name.unwrap_or("");
        let groups = all_groups();
        let near = crate::spelling::nearest(g, groups.iter().map(|name| &name[..]));
        // A word that begins group names (`usb`: usbdevfs, usbmon, ...).
        let starting: Vec<&str> = groups
            .iter()
            .copied()
            .filter(|name| name.split('/').any(|part| part.starts_with(g)))
            .collect();
        return Err(match (near, &starting[..]) {
            (Some(near), _) => format!("no ioctl group '{g}' (did you mean {near}?)"),
            (None, []) => format!("no ioctl group '{g}' (rtrace --list-ioctl-groups lists them)"),
            (None, some) => format!("no ioctl group '{g}' (did you mean {}?)", some.join(", ")),
        });
    }
    // The columns are as wide as the longest group and name listed.
    let group_width = rows
        .iter()
        .map(|r| r.group.len())
        .max()
        .unwrap_or(0)
        .max(10);
    let name_width = rows.iter().map(|r| r.name.len()).max().unwrap_or(0).max(28);
    let mut out = String::new();
    let mut groups_seen = std::collections::BTreeSet::new();
    for r in &rows {
        groups_seen.insert(r.group);
        let _ = writeln!(
            out,
            "{:<group_width$} 0x{:08x} {:<name_width$} {}",
            r.group, r.code, r.name, r.text
        );
    }
    let _ = writeln!(
        out,
        "{} requests in {} group{}",
        rows.len(),
        groups_seen.len(),
        if groups_seen.len() == 1 { "" } else { "s" }
    );
    Ok(out)
}

/// Every ioctl group with the number of requests `--list-ioctls GROUP`
/// lists for it, one a line, and the total.
pub fn list_groups() -> String {
    let mut counts = std::collections::BTreeMap::new();
    for r in rows(None) {
        *counts.entry(r.group).or_insert(0usize) += 1;
    }
    let width = counts.keys().map(|g| g.len()).max().unwrap_or(0);
    let mut out = String::new();
    for (group, n) in &counts {
        let _ = writeln!(out, "{group:<width$} {n}");
    }
    let _ = writeln!(
        out,
        "{} groups, {} requests",
        counts.len(),
        counts.values().sum::<usize>()
    );
    out
}

/// One line of `--list-ioctls`.
struct Row {
    group: &'static str,
    code: u32,
    name: &'static str,
    text: String,
}

/// What `--list-ioctls` lists (of one group, or all): rtrace's decoders'
/// requests, then every other request the headers define, by group. A
/// request only i386 makes (its code differs there) is tagged so: by the
/// headers' tables, or, for a request they lack, where the group has the
/// same name again with a larger size (i386's longs and pointers are
/// smaller: nothing else gives a request two codes).
fn rows(group_name: Option<&str>) -> Vec<Row> {
    let x86_64 = names::table(Arch::X86_64);
    let i386 = names::table(Arch::I386);
    let mut rows = Vec::new();
    for &group in groups() {
        if group_name.is_some_and(|g| g != group.name()) {
            continue;
        }
        for req in group.requests() {
            let on = |t: &names::Table| t.lookup(req.code).iter().any(|d| d.name == req.name);
            let size = |code: u32| (code >> 16) & 0x3fff;
            let wider_twin = group
                .requests()
                .iter()
                .any(|r| r.name == req.name && size(r.code) > size(req.code));
            let only_i386 = if x86_64.by_name(req.name).is_some() {
                on(i386) && !on(x86_64)
            } else {
                wider_twin
            };
            let tag = if only_i386 { " (i386)" } else { "" };
            rows.push(Row {
                group: group.name(),
                code: req.code,
                name: req.name,
                text: format!("{}{tag}", arg_text(req)),
            });
        }
    }
    let mut defs: Vec<&Def> = x86_64
        .defs
        .iter()
        .filter(|d| group_name.is_none_or(|g| g == x86_64.group(d)))
        // A group's request is listed with the group.
        .filter(|d| {
            !groups().iter().any(|g| {
                g.requests()
                    .iter()
                    .any(|r| r.code == d.code && r.name == d.name)
            })
        })
        .collect();
    defs.sort_by_key(|d| (x86_64.group(d), d.name));
    for def in defs {
        let narrow = match i386.by_name(def.name) {
            Some(d) if d.code != def.code => format!(" (i386 0x{:08x})", d.code),
            _ => String::new(),
        };
        rows.push(Row {
            group: x86_64.group(def),
            code: def.code,
            name: def.name,
            text: format!("{}{narrow}", c_definition(def)),
        });
    }
    rows
}

/// Every group `--list-ioctls` knows.
/// Every ioctl group's name, sorted: rtrace's decoders' groups and the
/// headers' (what `--list-ioctls GROUP` takes).
pub fn all_groups() -> Vec<&'static str> {
    let x86_64 = names::table(Arch::X86_64);
    let mut all: Vec<&str> = groups().iter().map(|g| g.name()).collect();
    all.extend(x86_64.defs.iter().map(|d| x86_64.group(d)));
    all.sort_unstable();
    all.dedup();
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explain_names_the_request_and_its_layout() {
        let text = explain(0xc010_9207);
        assert!(text.contains("MON_IOCX_MFETCH in group usbmon"), "{text}");
        assert!(
            text.contains("layout from rtrace's usbmon decoder: struct mon_bin_mfetch (16 bytes)"),
            "{text}"
        );
        assert!(text.contains("@8   4  u32 nfetch"), "{text}");
        assert!(list(Some("nosuch")).is_err());
    }

    #[test]
    fn names_and_numbers_explain_the_same_request() {
        let by_name = explain_arg("BLKGETSIZE64").unwrap();
        assert!(
            by_name
                .starts_with("BLKGETSIZE64 is request 0x80081272 on x86_64, 0x80041272 on i386\n"),
            "{by_name}"
        );
        assert!(by_name.ends_with(&explain(0x8008_1272)), "{by_name}");
        assert!(
            by_name.contains("BLKGETSIZE64 in linux/fs.h: _IOR(0x12, 114, size_t)"),
            "{by_name}"
        );
        assert_eq!(explain_arg("2148012658").unwrap(), explain(0x8008_1272));
        let sized = explain_arg("EVIOCGNAME(256)").unwrap();
        assert!(sized.contains("request 0x81004506"), "{sized}");
        assert!(
            sized.contains("EVIOCGNAME(256) in linux/input.h"),
            "{sized}"
        );
    }

    #[test]
    fn a_misspelt_name_gets_a_suggestion() {
        assert_eq!(
            explain_arg("BLKGETSIZE46").unwrap_err(),
            "no ioctl request named 'BLKGETSIZE46' (did you mean BLKGETSIZE64?)"
        );
        assert_eq!(
            explain_arg("NO_SUCH_THING_AT_ALL").unwrap_err(),
            "no ioctl request named 'NO_SUCH_THING_AT_ALL'"
        );
        assert!(explain_arg("0x100000000").is_err());
    }
}
