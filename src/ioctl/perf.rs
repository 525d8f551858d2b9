//! `struct perf_event_attr` as strace 6 prints it, for perf_event_open(2)
//! (`service/perf.rs`) and PERF_EVENT_IOC_MODIFY_ATTRIBUTES, and the perf
//! requests whose arguments are structs (`<linux/perf_event.h>`): the
//! other PERF_EVENT_IOC_* take numbers and fds, which `named.rs` names.
//!
//! The attr is read as far as its own `size` says (0 is the first
//! published size, more than rtrace knows is cut to what it knows, less
//! than the first published size is refused, as the kernel does); without
//! `-v` only up to the bit fields. Then, as strace: `config` by `type`
//! (`PERF_COUNT_HW_CPU_CYCLES`, the cache's
//! `PERF_COUNT_HW_CACHE_RESULT_MISS<<16|PERF_COUNT_HW_CACHE_OP_READ<<8|
//! PERF_COUNT_HW_CACHE_L1D`), `sample_freq` or `sample_period` by the
//! `freq` bit, the bit fields that are set (all with `-v`), `precise_ip`
//! always with its meaning, and with `-v` the fields after them that the
//! size holds, each under the name its union member has for this `type`
//! (`bp_addr` or `config1`). The layout, the bit fields' places and every
//! name are generated from the header (`tools/abi_tables.py`).

use super::{Arg, IF_IN, IF_OUT, IoctlGroup, Layout, Request};
use crate::abi::layout::{Field, extent, field};
use crate::abi::xlat::ioctl::{
    PERF_EVENT_IOC_MODIFY_ATTRIBUTES, PERF_EVENT_IOC_QUERY_BPF, PERF_QUERY_BPF_LAYOUT,
};
use crate::abi::xlat::process::{
    HW_BREAKPOINT_TYPES, PERF_ATTR_BITS, PERF_ATTR_LAYOUT as ATTR, PERF_ATTR_SIZE_NAMES,
    PERF_ATTR_SIZE_VER0, PERF_BRANCH_SAMPLE_TYPES, PERF_HW_CACHE_IDS, PERF_HW_CACHE_OPS,
    PERF_HW_CACHE_RESULTS, PERF_HW_IDS, PERF_READ_FORMAT, PERF_SAMPLE_FORMAT, PERF_SW_IDS,
    PERF_TYPES,
};
use crate::abi::xlat::time::CLOCKS;
use crate::format::{Naming, Printer};

/// What `precise_ip` asks, as the header's comment says it.
const PRECISE_IP: [&str; 4] = [
    "arbitrary skid",
    "constant skid",
    "requested to have 0 skid",
    "must have 0 skid",
];

/// The type names the decoder switches on.
fn type_name(ty: u64) -> Option<&'static str> {
    PERF_TYPES
        .iter()
        .find(|(v, _)| *v as u64 == ty)
        .map(|(_, n)| *n)
}

/// A name from a values table, by value.
fn name_of(table: &[(i64, &'static str)], v: u64) -> Option<&'static str> {
    table.iter().find(|(x, _)| *x as u64 == v).map(|(_, n)| *n)
}

/// The attr's bytes as rtrace read them, and how many the caller's size
/// gives (the rest reads as 0).
struct Attr {
    data: Vec<u8>,
    size: usize,
}

impl Attr {
    fn get(&self, name: &str) -> u64 {
        field(ATTR, name).read(&self.data).unwrap_or(0)
    }

    /// Whether `name` starts inside the size read (strace prints a field
    /// the size cuts through, as the kernel reads it).
    fn holds(&self, name: &str) -> bool {
        field(ATTR, name).off < self.size
    }

    /// A bit field of the word after `read_format`.
    fn bits(&self, name: &str) -> u64 {
        let Some((spec, _)) = PERF_ATTR_BITS
            .iter()
            .find(|(_, n)| n.strip_prefix("PERF_ATTR_BIT_") == Some(name))
        else {
            return 0;
        };
        let (first, width) = ((*spec & 0xff) as u32, (*spec >> 8) as u32);
        let word = self.word();
        (word >> first) & ((1u64 << width) - 1)
    }

    /// The bit fields' word.
    fn word(&self) -> u64 {
        let at = field(ATTR, "read_format").end();
        u64::from_le_bytes(self.data[at..at + 8].try_into().expect("8 bytes"))
    }
}

/// Print the `perf_event_attr` at `addr` as `name`, or its pointer.
pub fn put_attr(p: &mut Printer, name: &str, addr: u64) {
    let Some(attr) = read_attr(p, addr) else {
        p.ptr(name, addr);
        return;
    };
    p.open(name, "{", Naming::Fields);
    let all = put_fields(p, &attr);
    p.close_struct(all);
}

/// Read the attr as strace does: the size from the struct, 0 meaning the
/// first published size, more than rtrace knows cut; without `-v` only up
/// to the bit fields. `None` where it cannot be read or is too small.
fn read_attr(p: &mut Printer, addr: u64) -> Option<Attr> {
    if addr == 0 || p.config().values_only >= 2 {
        return None;
    }
    let full = extent(ATTR);
    let at = field(ATTR, "size");
    let mut raw = [0u8; 4];
    if !p
        .mem()
        .read_exact(addr.wrapping_add(at.off as u64), &mut raw)
    {
        return None;
    }
    let asked = u32::from_le_bytes(raw) as usize;
    let mut size = match asked {
        0 => PERF_ATTR_SIZE_VER0 as usize,
        n => n.min(full),
    };
    if size < PERF_ATTR_SIZE_VER0 as usize {
        return None;
    }
    if p.config().verbose == 0 {
        size = field(ATTR, "wakeup_events").off;
    }
    let mut data = vec![0u8; full];
    if !p.mem().read_exact(addr, &mut data[..size]) {
        return None;
    }
    Some(Attr { data, size })
}

/// The fields; false when the attr goes on past what was printed.
fn put_fields(p: &mut Printer, a: &Attr) -> bool {
    let ty = a.get("type");
    match type_name(ty) {
        Some(n) => p.symbol("type", ty as i64, Some(n)),
        None => p.raw_hex("type", ty),
    }
    let size = a.get("size");
    match name_of(PERF_ATTR_SIZE_NAMES, size) {
        Some(n) => p.symbol("size", size as i64, Some(n)),
        None => p.raw_hex("size", size),
    }
    put_config(p, type_name(ty), a.get("config"));
    let period = a.get("sample_period");
    if a.bits("freq") != 0 {
        p.uint("sample_freq", period);
    } else {
        p.uint("sample_period", period);
    }
    let sample_type = a.get("sample_type");
    p.flags("sample_type", sample_type, PERF_SAMPLE_FORMAT);
    p.flags("read_format", a.get("read_format"), PERF_READ_FORMAT);
    let verbose = p.config().verbose > 0;
    for (_, bit) in PERF_ATTR_BITS {
        let bit = bit.strip_prefix("PERF_ATTR_BIT_").unwrap_or(bit);
        let v = a.bits(bit);
        match bit {
            "precise_ip" => {
                p.uint(bit, v);
                p.note(PRECISE_IP[v as usize & 3]);
            }
            // Bits no field has yet: only when set, they may be flags
            // newer than the header.
            "__reserved_1" if v != 0 => {
                p.raw_hex(bit, v);
                p.note("Bits 63..38");
            }
            "__reserved_1" => {}
            _ if verbose || v != 0 => p.uint(bit, v),
            _ => {}
        }
    }
    if !verbose {
        return done(a);
    }
    let breakpoint = type_name(ty) == Some("PERF_TYPE_BREAKPOINT");
    let wakeup = a.get("wakeup_events");
    if a.bits("watermark") != 0 {
        p.uint("wakeup_watermark", wakeup);
    } else {
        p.uint("wakeup_events", wakeup);
    }
    if breakpoint {
        let bp = a.get("bp_type");
        match name_of(HW_BREAKPOINT_TYPES, bp) {
            Some(n) => p.symbol("bp_type", bp as i64, Some(n)),
            None => {
                p.raw_hex("bp_type", bp);
                // Any other mix of the access bits with X is one the
                // kernel refuses, as the header's HW_BREAKPOINT_INVALID.
                let bit = |n| {
                    HW_BREAKPOINT_TYPES
                        .iter()
                        .find(|(_, x)| *x == n)
                        .map_or(0, |(v, _)| *v as u64)
                };
                if bp <= bit("HW_BREAKPOINT_X") | bit("HW_BREAKPOINT_RW") {
                    p.note("HW_BREAKPOINT_INVALID");
                }
            }
        }
        p.raw_hex("bp_addr", a.get("bp_addr"));
    } else {
        p.raw_hex("config1", a.get("bp_addr"));
    }
    if !a.holds("bp_len") {
        return done(a);
    }
    if breakpoint {
        p.uint("bp_len", a.get("bp_len"));
    } else {
        p.raw_hex("config2", a.get("bp_len"));
    }
    if !a.holds("branch_sample_type") {
        return done(a);
    }
    if sample_type & flag_bit(PERF_SAMPLE_FORMAT, "PERF_SAMPLE_BRANCH_STACK") != 0 {
        p.flags(
            "branch_sample_type",
            a.get("branch_sample_type"),
            PERF_BRANCH_SAMPLE_TYPES,
        );
    }
    for (name, when) in [
        ("sample_regs_user", None),
        ("sample_stack_user", Some("PERF_SAMPLE_STACK_USER")),
        ("clockid", None),
        ("sample_regs_intr", None),
        ("aux_watermark", None),
        ("sample_max_stack", None),
        ("__reserved_2", None),
        ("aux_sample_size", None),
        ("__reserved_3", None),
        ("sig_data", None),
    ] {
        if name == "clockid" && a.bits("use_clockid") == 0 {
            continue;
        }
        if !a.holds(name) {
            return done(a);
        }
        if when.is_some_and(|w| sample_type & flag_bit(PERF_SAMPLE_FORMAT, w) == 0) {
            continue;
        }
        let v = a.get(name);
        let f = field(ATTR, name);
        match name {
            "clockid" => {
                let id = v as u32 as i32 as i64;
                let sym = CLOCKS.iter().find(|(c, _)| *c == id).map(|(_, n)| *n);
                p.symbol(name, id, sym);
            }
            "aux_watermark" | "sample_max_stack" | "aux_sample_size" => p.uint(name, v),
            // Padding: a note of its bytes when not zero.
            "__reserved_2" | "__reserved_3" => {
                if v != 0 {
                    p.note(&format!("bytes {}..{}: {v:#x}", f.off, f.end() - 1));
                }
            }
            _ => p.raw_hex(name, v),
        }
    }
    done(a)
}

/// Whether the attr ends where printing stopped: its size says no more,
/// as strace judges it.
fn done(a: &Attr) -> bool {
    let asked = a.get("size") as usize;
    !((asked != 0 && asked > a.size) || (asked == 0 && a.size < PERF_ATTR_SIZE_VER0 as usize))
}

/// The bit of flag `name` in `table`.
fn flag_bit(table: &[crate::abi::flags::FlagDef], name: &str) -> u64 {
    table.iter().find(|f| f.name == name).map_or(0, |f| f.value)
}

/// `config` by the event's type, in strace's notation: the PMU type in
/// the upper half as `0x8<<32|`, then the event's names, each part
/// spelled as `-X` says (`0x1 /* PERF_COUNT_HW_CACHE_RESULT_MISS */<<16`).
fn put_config(p: &mut Printer, ty: Option<&str>, config: u64) {
    // (value, shift, name): each part of the notation.
    let mut parts: Vec<(u64, u32, Option<&'static str>)> = Vec::new();
    if matches!(ty, Some("PERF_TYPE_HARDWARE" | "PERF_TYPE_HW_CACHE")) && config >> 32 != 0 {
        parts.push((config >> 32, 32, None));
    }
    match ty {
        Some("PERF_TYPE_HARDWARE") => {
            let low = config & 0xffff_ffff;
            parts.push((low, 0, name_of(PERF_HW_IDS, low)));
        }
        Some("PERF_TYPE_SOFTWARE") => {
            return match name_of(PERF_SW_IDS, config) {
                Some(n) => p.symbol("config", config as i64, Some(n)),
                None => p.raw_hex("config", config),
            };
        }
        Some("PERF_TYPE_TRACEPOINT") => return p.uint("config", config),
        Some("PERF_TYPE_HW_CACHE") => {
            let top = (config & 0xffff_ffff) >> 24;
            if top != 0 {
                parts.push((top, 24, None));
            }
            for (shift, table) in [
                (16, PERF_HW_CACHE_RESULTS),
                (8, PERF_HW_CACHE_OPS),
                (0, PERF_HW_CACHE_IDS),
            ] {
                let v = (config >> shift) & 0xff;
                parts.push((v, shift, name_of(table, v)));
            }
        }
        _ => return p.raw_hex("config", config),
    }
    let spell = |p: &Printer, (v, shift, name): (u64, u32, Option<&str>), symbols: bool| {
        let number = format!("{v:#x}");
        let text = if symbols {
            p.spelling(&number, name)
        } else {
            number
        };
        if shift == 0 {
            text
        } else {
            format!("{text}<<{shift}")
        }
    };
    if p.json() || p.values_style() {
        let named: Vec<(u64, String)> = parts
            .iter()
            .map(|&(v, shift, name)| {
                let text = name.map_or_else(|| format!("{v:#x}"), str::to_string);
                let text = if shift == 0 {
                    text
                } else {
                    format!("{text}<<{shift}")
                };
                (v << shift, text)
            })
            .collect();
        return p.flags_parts("config", config, &named);
    }
    let text: Vec<String> = parts.iter().map(|&part| spell(p, part, true)).collect();
    p.field("config", &text.join("|"));
}

static ATTR_FIELDS: [super::Field; 1] = [super::field("attr", "struct perf_event_attr *", 0, 8)];
static ATTR_PTR: Layout = Layout {
    name: "struct perf_event_attr *",
    size: 8,
    fields: &ATTR_FIELDS,
};

const fn at(layout: &[Field], i: usize) -> Field {
    layout[i]
}
static QUERY_FIELDS: [super::Field; 2] = [
    super::typed(at(PERF_QUERY_BPF_LAYOUT, 0), "__u32"),
    super::typed(at(PERF_QUERY_BPF_LAYOUT, 1), "__u32"),
];
static QUERY: Layout = Layout {
    name: "struct perf_event_query_bpf",
    size: 8,
    fields: &QUERY_FIELDS,
};

static REQUESTS: &[Request] = &[
    // The argument is the attr's address (`_IOW` of the pointer).
    Request::new(
        PERF_EVENT_IOC_MODIFY_ATTRIBUTES,
        "PERF_EVENT_IOC_MODIFY_ATTRIBUTES",
        IF_OUT,
        Arg::Custom(&ATTR_PTR),
    ),
    // The program says how many ids fit; the kernel answers how many
    // programs there are and their ids.
    Request::new(
        PERF_EVENT_IOC_QUERY_BPF,
        "PERF_EVENT_IOC_QUERY_BPF",
        IF_OUT | IF_IN,
        Arg::Custom(&QUERY),
    ),
];

/// The perf group (the requests whose arguments are structs).
pub struct Perf;

/// The perf group's instance.
pub static PERF: Perf = Perf;

impl IoctlGroup for Perf {
    fn name(&self) -> &'static str {
        "perf"
    }

    fn headers(&self) -> &'static [&'static str] {
        &["linux/perf_event.h"]
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, _p: &mut Printer, _req: &Request, _data: &[u8], _phase: u8) -> bool {
        true
    }

    fn custom(&self, p: &mut Printer, req: &Request, addr: u64, phase: u8) {
        if req.code == PERF_EVENT_IOC_MODIFY_ATTRIBUTES {
            return put_attr(p, "arg", addr);
        }
        put_query(p, addr, phase);
    }
}

/// PERF_EVENT_IOC_QUERY_BPF: `{ids_len=4, ..}` before, `{ids_len=4,
/// prog_cnt=2, ids=[7, 9]}` after (as many ids as both counts allow and
/// `-s` shows).
fn put_query(p: &mut Printer, addr: u64, phase: u8) {
    let mut head = [0u8; 8];
    let want = if phase == IF_OUT { 4 } else { 8 };
    if addr == 0 || p.config().values_only >= 2 || !p.mem().read_exact(addr, &mut head[..want]) {
        return p.ptr("arg", addr);
    }
    let len = u32::from_le_bytes(head[..4].try_into().expect("4 bytes"));
    p.open("arg", "{", Naming::Fields);
    p.uint("ids_len", len as u64);
    if phase == IF_OUT {
        return p.close_struct(false);
    }
    let cnt = u32::from_le_bytes(head[4..].try_into().expect("4 bytes"));
    p.uint("prog_cnt", cnt as u64);
    let n = cnt.min(len) as usize;
    let shown = if p.config().verbose > 0 {
        n
    } else {
        n.min(p.config().string_limit.max(1))
    };
    let ids_at = addr.wrapping_add(extent(PERF_QUERY_BPF_LAYOUT) as u64);
    p.open("ids", "[", Naming::Elements);
    // One by one: the ids before an unreadable one print, then its
    // address, as strace shows the rest of an array it cannot read.
    for i in 0..shown {
        let at = ids_at.wrapping_add(i as u64 * 4);
        let mut raw = [0u8; 4];
        if !p.mem().read_exact(at, &mut raw) {
            p.ptr("", at);
            p.close("]");
            return p.close("}");
        }
        p.uint("", u32::from_le_bytes(raw) as u64);
    }
    if shown < n {
        p.more();
    }
    p.close("]");
    p.close("}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bit_fields_are_in_one_word() {
        for (spec, name) in PERF_ATTR_BITS {
            let (first, width) = (spec & 0xff, spec >> 8);
            assert!(width >= 1 && first + width <= 64, "{name}: {spec:#x}");
        }
        assert_eq!(
            field(ATTR, "read_format").end() + 8,
            field(ATTR, "wakeup_events").off
        );
    }
}
