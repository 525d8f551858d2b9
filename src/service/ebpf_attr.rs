//! bpf(2)'s `union bpf_attr` for the commands besides BPF_PROG_LOAD
//! (`service/ebpf.rs`), as strace 6 shows them, from one declarative
//! table: each command's fields in order, how each prints, and where an
//! older, shorter attr may end.
//!
//! The attr is read at the caller's `size` (none past a page, as strace);
//! the command's part of it is what the table's fields span. Fields past
//! `size` read as 0, except that a field marked `gate` ends the attr when
//! `size` does not reach it (a field added by a later kernel). Bytes past
//! the command's part that are not all zero are shown: `extra_data="..."
//! /* bytes 16..23 */` with `-v`, `..` without, as strace does (the kernel
//! refuses them, `-E2BIG`). Names and layouts are generated
//! (`abi::xlat::bpf`, the bpf block of tools/abi_tables.py).

use crate::abi::flags::FlagDef;
use crate::abi::gen_numa::NUMA_NO_NODE;
use crate::abi::layout::{Field, field};
use crate::abi::xlat::bpf::{
    BPF_ATTACH_FLAGS, BPF_ATTACH_TYPES, BPF_BTF_LOAD_ATTR, BPF_CMDS, BPF_FILE_MODE_FLAGS,
    BPF_GET_ID_ATTR, BPF_LINK_CREATE_ATTR, BPF_LINK_UPDATE_ATTR, BPF_LOOKUP_FLAGS,
    BPF_MAP_CREATE_ATTR, BPF_MAP_ELEM_ATTR, BPF_MAP_FLAGS, BPF_MAP_TYPES, BPF_OBJ_INFO_ATTR,
    BPF_OBJ_PIN_ATTR, BPF_PERF_EVENT, BPF_PROG_ATTACH_ATTR, BPF_PROG_LOAD_ATTR,
    BPF_PROG_LOAD_FLAGS, BPF_PROG_TYPES, BPF_RAW_TRACEPOINT_ATTR, BPF_TEST_RUN_ATTR,
    BPF_TEST_RUN_FLAGS, BPF_UPDATE_FLAGS,
};
use crate::call::CallCtx;
use crate::decode::put_fd;
use crate::format::{Naming, Printer};
use crate::ioctl::{PointedArray, PointedString};
use crate::service::raw::{lookup, read_vec};
use crate::service::{Block, ByValue, Mem};

/// How a field prints.
#[derive(Clone, Copy, Debug)]
enum K {
    /// An unsigned decimal.
    U,
    /// A number in hex.
    X,
    /// BPF_LINK_CREATE's members that its attach type picks (and, with
    /// them, where the command's part ends).
    LinkTail,
    /// A file descriptor (`-y`'s path).
    Fd,
    /// A user address (`key`, `value`): NULL or unread.
    Addr,
    /// A path the kernel reads (`pathname`).
    Path,
    /// A NUL-terminated string (a tracepoint's name).
    Str,
    /// `btf`: the `btf_size` bytes it points to.
    Btf,
    /// A `char[16]` object name, as far as the size holds it.
    Name,
    /// A network interface index.
    Ifindex,
    /// One of a set of values, else hex.
    Val(&'static [(i64, &'static str)]),
    /// A flag set.
    Flags(&'static [FlagDef]),
    /// The NUMA node, only when `map_flags` asks for one.
    Numa,
    /// `old_prog_fd`, only when `flags` has BPF_F_REPLACE.
    OldFd,
    /// `log_buf`: a NUL-terminated string of at most `log_size` bytes.
    LogBuf,
    /// A kernel version: `KERNEL_VERSION(6, 1, 0)`.
    KernVersion,
    /// Part of the command's attr that strace does not print.
    Skip,
}

/// One field: its name in the generated layout (`test.prog_fd`; printed
/// as the part after the last dot), how it prints, and whether an attr
/// too short to reach it ends before it.
#[derive(Debug)]
struct F {
    name: &'static str,
    kind: K,
    gate: bool,
}

const fn f(name: &'static str, kind: K) -> F {
    F {
        name,
        kind,
        gate: false,
    }
}

/// A field newer kernels added: the attr may end before it.
const fn g(name: &'static str, kind: K) -> F {
    F {
        name,
        kind,
        gate: true,
    }
}

/// One command's attr.
#[derive(Debug)]
struct Cmd {
    /// The commands (`BPF_OBJ_PIN`, `BPF_OBJ_GET`) that share it.
    names: &'static [&'static str],
    /// The member struct strace names (`test=`), if any.
    wrap: Option<&'static str>,
    layout: &'static [Field],
    fields: &'static [F],
    /// The fields the kernel writes back on success (shown after the
    /// result when they changed).
    written: &'static [&'static str],
}

static MAP_TYPE: K = K::Val(BPF_MAP_TYPES);
static ATTACH_TYPE: K = K::Val(BPF_ATTACH_TYPES);

/// The table: every command decoded here.
static CMDS: &[Cmd] = &[
    Cmd {
        names: &["BPF_PROG_LOAD"],
        wrap: None,
        layout: BPF_PROG_LOAD_ATTR,
        written: &[],
        fields: &[
            f("prog_type", K::Val(BPF_PROG_TYPES)),
            f("insn_cnt", K::U),
            f("insns", K::Addr),
            f("license", K::Str),
            g("log_level", K::U),
            f("log_size", K::U),
            f("log_buf", K::LogBuf),
            g("kern_version", K::KernVersion),
            g("prog_flags", K::Flags(BPF_PROG_LOAD_FLAGS)),
            g("prog_name", K::Name),
            g("prog_ifindex", K::Ifindex),
            g("expected_attach_type", ATTACH_TYPE),
            g("prog_btf_fd", K::Fd),
            f("func_info_rec_size", K::U),
            f("func_info", K::Addr),
            f("func_info_cnt", K::U),
            f("line_info_rec_size", K::U),
            f("line_info", K::Addr),
            f("line_info_cnt", K::U),
            g("attach_btf_id", K::U),
            g("attach_prog_fd", K::Fd),
            g("fd_array", K::Addr),
        ],
    },
    Cmd {
        names: &["BPF_MAP_CREATE"],
        wrap: None,
        layout: BPF_MAP_CREATE_ATTR,
        written: &[],
        fields: &[
            f("map_type", MAP_TYPE),
            f("key_size", K::U),
            f("value_size", K::U),
            f("max_entries", K::U),
            g("map_flags", K::Flags(BPF_MAP_FLAGS)),
            g("inner_map_fd", K::Fd),
            g("numa_node", K::Numa),
            g("map_name", K::Name),
            g("map_ifindex", K::Ifindex),
            g("btf_fd", K::Fd),
            f("btf_key_type_id", K::U),
            f("btf_value_type_id", K::U),
            g("btf_vmlinux_value_type_id", K::U),
            g("map_extra", K::U),
        ],
    },
    Cmd {
        names: &["BPF_MAP_LOOKUP_ELEM", "BPF_MAP_LOOKUP_AND_DELETE_ELEM"],
        wrap: None,
        layout: BPF_MAP_ELEM_ATTR,
        written: &[],
        fields: &[
            f("map_fd", K::Fd),
            f("key", K::Addr),
            f("value", K::Addr),
            g("flags", K::Flags(BPF_LOOKUP_FLAGS)),
        ],
    },
    Cmd {
        names: &["BPF_MAP_UPDATE_ELEM"],
        wrap: None,
        layout: BPF_MAP_ELEM_ATTR,
        written: &[],
        fields: &[
            f("map_fd", K::Fd),
            f("key", K::Addr),
            f("value", K::Addr),
            f("flags", K::Val(BPF_UPDATE_FLAGS)),
        ],
    },
    Cmd {
        names: &["BPF_MAP_DELETE_ELEM"],
        wrap: None,
        layout: BPF_MAP_ELEM_ATTR,
        written: &[],
        fields: &[f("map_fd", K::Fd), f("key", K::Addr)],
    },
    Cmd {
        names: &["BPF_MAP_GET_NEXT_KEY"],
        wrap: None,
        layout: BPF_MAP_ELEM_ATTR,
        written: &[],
        fields: &[
            f("map_fd", K::Fd),
            f("key", K::Addr),
            f("next_key", K::Addr),
        ],
    },
    Cmd {
        names: &["BPF_MAP_FREEZE"],
        wrap: None,
        layout: BPF_MAP_ELEM_ATTR,
        written: &[],
        fields: &[f("map_fd", K::Fd)],
    },
    Cmd {
        names: &["BPF_OBJ_PIN", "BPF_OBJ_GET"],
        wrap: None,
        layout: BPF_OBJ_PIN_ATTR,
        written: &[],
        fields: &[
            f("pathname", K::Path),
            f("bpf_fd", K::Fd),
            g("file_flags", K::Flags(BPF_FILE_MODE_FLAGS)),
        ],
    },
    Cmd {
        names: &["BPF_PROG_ATTACH"],
        wrap: None,
        layout: BPF_PROG_ATTACH_ATTR,
        written: &[],
        fields: &[
            f("target_fd", K::Fd),
            f("attach_bpf_fd", K::Fd),
            f("attach_type", ATTACH_TYPE),
            f("attach_flags", K::Flags(BPF_ATTACH_FLAGS)),
            g("replace_bpf_fd", K::Fd),
        ],
    },
    Cmd {
        names: &["BPF_PROG_DETACH"],
        wrap: None,
        layout: BPF_PROG_ATTACH_ATTR,
        written: &[],
        fields: &[
            f("target_fd", K::Fd),
            f("attach_bpf_fd", K::Skip),
            f("attach_type", ATTACH_TYPE),
        ],
    },
    Cmd {
        names: &[
            "BPF_PROG_GET_NEXT_ID",
            "BPF_MAP_GET_NEXT_ID",
            "BPF_BTF_GET_NEXT_ID",
            "BPF_LINK_GET_NEXT_ID",
        ],
        wrap: None,
        layout: BPF_GET_ID_ATTR,
        written: &["next_id"],
        fields: &[
            f("start_id", K::U),
            f("next_id", K::U),
            g("open_flags", K::Flags(BPF_FILE_MODE_FLAGS)),
        ],
    },
    Cmd {
        names: &["BPF_OBJ_GET_INFO_BY_FD"],
        wrap: Some("info"),
        layout: BPF_OBJ_INFO_ATTR,
        written: &["info.info_len"],
        fields: &[
            f("info.bpf_fd", K::Fd),
            f("info.info_len", K::U),
            f("info.info", K::Addr),
        ],
    },
    Cmd {
        names: &["BPF_PROG_GET_FD_BY_ID"],
        wrap: None,
        layout: BPF_GET_ID_ATTR,
        written: &[],
        fields: &[
            f("prog_id", K::U),
            f("next_id", K::U),
            g("open_flags", K::Flags(BPF_FILE_MODE_FLAGS)),
        ],
    },
    Cmd {
        names: &["BPF_MAP_GET_FD_BY_ID"],
        wrap: None,
        layout: BPF_GET_ID_ATTR,
        written: &[],
        fields: &[
            f("map_id", K::U),
            f("next_id", K::U),
            g("open_flags", K::Flags(BPF_FILE_MODE_FLAGS)),
        ],
    },
    Cmd {
        names: &["BPF_BTF_GET_FD_BY_ID"],
        wrap: None,
        layout: BPF_GET_ID_ATTR,
        written: &[],
        fields: &[f("btf_id", K::U)],
    },
    Cmd {
        names: &["BPF_LINK_GET_FD_BY_ID"],
        wrap: None,
        layout: BPF_GET_ID_ATTR,
        written: &[],
        fields: &[f("link_id", K::U)],
    },
    Cmd {
        names: &["BPF_PROG_TEST_RUN"],
        wrap: Some("test"),
        layout: BPF_TEST_RUN_ATTR,
        written: &[],
        fields: &[
            f("test.prog_fd", K::Fd),
            f("test.retval", K::U),
            f("test.data_size_in", K::U),
            f("test.data_size_out", K::U),
            f("test.data_in", K::Addr),
            f("test.data_out", K::Addr),
            f("test.repeat", K::U),
            f("test.duration", K::U),
            g("test.ctx_size_in", K::U),
            f("test.ctx_size_out", K::U),
            f("test.ctx_in", K::Addr),
            f("test.ctx_out", K::Addr),
            g("test.flags", K::Flags(BPF_TEST_RUN_FLAGS)),
            f("test.cpu", K::U),
            g("test.batch_size", K::U),
        ],
    },
    Cmd {
        names: &["BPF_RAW_TRACEPOINT_OPEN"],
        wrap: Some("raw_tracepoint"),
        layout: BPF_RAW_TRACEPOINT_ATTR,
        written: &[],
        fields: &[
            f("raw_tracepoint.name", K::Str),
            f("raw_tracepoint.prog_fd", K::Fd),
        ],
    },
    Cmd {
        names: &["BPF_BTF_LOAD"],
        wrap: None,
        layout: BPF_BTF_LOAD_ATTR,
        written: &[],
        fields: &[
            f("btf", K::Btf),
            f("btf_log_buf", K::Addr),
            f("btf_size", K::U),
            f("btf_log_size", K::U),
            f("btf_log_level", K::U),
        ],
    },
    Cmd {
        names: &["BPF_LINK_CREATE"],
        wrap: Some("link_create"),
        layout: BPF_LINK_CREATE_ATTR,
        written: &[],
        fields: &[
            f("link_create.prog_fd", K::Fd),
            f("link_create.target_fd", K::Fd),
            f("link_create.attach_type", ATTACH_TYPE),
            f("link_create.flags", K::X),
            g("link_create.target_btf_id", K::LinkTail),
        ],
    },
    Cmd {
        names: &["BPF_LINK_UPDATE"],
        wrap: Some("link_update"),
        layout: BPF_LINK_UPDATE_ATTR,
        written: &[],
        fields: &[
            f("link_update.link_fd", K::Fd),
            f("link_update.new_prog_fd", K::Fd),
            f("link_update.flags", K::Flags(BPF_ATTACH_FLAGS)),
            f("link_update.old_prog_fd", K::OldFd),
        ],
    },
];

/// Whether this table decodes the command called `name`.
pub fn decodes(name: &str) -> bool {
    find(name).is_some()
}

fn find(name: &str) -> Option<&'static Cmd> {
    CMDS.iter().find(|c| c.names.contains(&name))
}

/// The bytes of the command's part of the attr (BPF_LINK_CREATE's: as
/// far as the largest member its attach type may pick).
fn extent(cmd: &Cmd) -> usize {
    if cmd.fields.iter().any(|fl| matches!(fl.kind, K::LinkTail)) {
        return crate::abi::layout::extent(cmd.layout);
    }
    cmd.fields
        .iter()
        .map(|fl| field(cmd.layout, fl.name).end())
        .max()
        .unwrap_or(0)
}

/// The largest attr read: strace reads none past a page.
const MAX_ATTR: u64 = 4096;

/// Print command `name`'s attr at `addr`, `size` bytes long, as `uattr`;
/// the bytes read, when the kernel writes some of them back
/// ([`put_written`] shows what changed).
pub fn put(p: &mut Printer, c: &CallCtx, name: &str, addr: u64, size: u64) -> Option<Vec<u8>> {
    let Some(cmd) = find(name) else {
        p.ptr("uattr", addr);
        return None;
    };
    if size == 0 || size > MAX_ATTR || addr == 0 || p.config().values_only >= 2 {
        p.ptr("uattr", addr);
        return None;
    }
    let Some(buf) = read_vec(p, addr, size as usize) else {
        p.ptr("uattr", addr);
        return None;
    };
    let attr_size = extent(cmd);
    let len = buf.len().min(attr_size);
    let mut data = vec![0u8; attr_size];
    data[..len].copy_from_slice(&buf[..len]);
    p.open("uattr", "{", Naming::Fields);
    if let Some(w) = cmd.wrap {
        p.open(w, "{", Naming::Fields);
    }
    let mut ended = false;
    let mut attr_size = attr_size;
    for fl in cmd.fields {
        let at = field(cmd.layout, fl.name);
        if fl.gate && len <= at.off {
            ended = true;
            break;
        }
        if let K::LinkTail = fl.kind {
            attr_size = put_link_tail(p, cmd, &data);
        }
        put_field(p, c, cmd, fl, at, &data, len);
    }
    if cmd.wrap.is_some() {
        p.close("}");
    }
    if !ended {
        put_extra(p, &buf, attr_size);
    }
    p.close("}");
    (!cmd.written.is_empty()).then_some(buf)
}

/// After a successful call, the fields the kernel wrote back that
/// changed, as what the call wrote: ` {next_id=7}`, ` {info={info_len=104}}`
/// (strace: `next_id=0 => 7` inside the attr).
pub fn put_written(p: &mut Printer, name: &str, addr: u64, before: &[u8]) {
    let Some(cmd) = find(name) else {
        return;
    };
    let Some(after) = read_vec(p, addr, before.len()) else {
        return;
    };
    let changed: Vec<(Field, u64)> = cmd
        .written
        .iter()
        .map(|n| field(cmd.layout, n))
        .filter(|f| f.end() <= before.len())
        .filter_map(|f| {
            let new = f.read(&after).unwrap_or(0);
            (f.read(before) != Some(new)).then_some((f, new))
        })
        .collect();
    if changed.is_empty() {
        return;
    }
    p.text(" ", crate::output::Style::Plain);
    p.open("uattr", "{", Naming::Fields);
    if let Some(w) = cmd.wrap {
        p.open(w, "{", Naming::Fields);
    }
    for (f, v) in changed {
        p.uint(f.name.rsplit('.').next().unwrap_or(f.name), v);
    }
    if cmd.wrap.is_some() {
        p.close("}");
    }
    p.close("}");
}

/// Field `n` beside field `fl` (in the same member struct).
fn sibling_of(cmd: &Cmd, fl: &F, n: &str) -> Field {
    let full = match fl.name.rsplit_once('.') {
        Some((w, _)) => format!("{w}.{n}"),
        None => n.to_string(),
    };
    field(cmd.layout, &full)
}

/// What the BPF engine copies at a command's entry besides the attr
/// itself (by the command, `service::by_value`): the memory its pointer
/// fields point at, as `put_field` reads it: `license` and a tracepoint's
/// `name` as far as `-s` shows them, `pathname` whole, `btf` and
/// `log_buf` as far as their sizes say (and `-s` shows). The attr's
/// layout is the same for an i386 caller (its pointers are
/// `__aligned_u64`).
pub fn memory() -> Vec<ByValue> {
    static MEMORY: std::sync::OnceLock<Vec<ByValue>> = std::sync::OnceLock::new();
    MEMORY
        .get_or_init(|| {
            let mut out = Vec::new();
            for cmd in CMDS {
                let pointed: Vec<PointedArray> = cmd
                    .fields
                    .iter()
                    .filter_map(|fl| {
                        let at = field(cmd.layout, fl.name).off;
                        // Bytes, as many as the size field beside it says.
                        let counted = |size: &str| {
                            let count = sibling_of(cmd, fl, size);
                            PointedArray {
                                ptr_offset: at,
                                ptr_offset_i386: Some(at),
                                count_offset: count.off,
                                count_size: count.size,
                                count_arg: None,
                                unit: 1,
                                shown: 1,
                                dirs: crate::ioctl::IF_OUT,
                                each: None,
                                trailing: None,
                                string: None,
                            }
                        };
                        match fl.kind {
                            K::Str => Some(PointedArray::string(at, PointedString::Shown)),
                            K::Path => Some(PointedArray::string(at, PointedString::Path)),
                            K::Btf => Some(counted("btf_size")),
                            K::LogBuf => Some(counted("log_size")),
                            _ => None,
                        }
                    })
                    .collect();
                if pointed.is_empty() {
                    continue;
                }
                // The program follows two pointers of a struct.
                debug_assert!(pointed.len() <= 2, "{:?}: {pointed:?}", cmd.names);
                // Made once, for the life of the process.
                let block: &'static Block = Box::leak(Box::new(Block {
                    base: extent(cmd),
                    units: None,
                    dirs: crate::ioctl::IF_OUT,
                    pointed: Box::leak(pointed.into_boxed_slice()),
                }));
                for name in cmd.names {
                    if let Some(&(value, _)) = BPF_CMDS.iter().find(|(_, n)| n == name) {
                        out.push(ByValue::by_first(value as u32, 1, Mem::Block(block)));
                    }
                }
            }
            out
        })
        .clone()
}

/// One field by its kind.
fn put_field(p: &mut Printer, c: &CallCtx, cmd: &Cmd, fl: &F, at: Field, data: &[u8], len: usize) {
    let name = fl.name.rsplit('.').next().unwrap_or(fl.name);
    let v = at.read(data).unwrap_or(0);
    let sibling = |n: &str| sibling_of(cmd, fl, n).read(data).unwrap_or(0);
    match fl.kind {
        K::U => p.uint(name, v),
        K::X => p.raw_hex(name, v),
        // Printed by `put_link_tail`, which also says where the part ends.
        K::LinkTail => {}
        K::Fd => put_fd(p, c.fds, name, v as u32 as i32 as i64),
        K::Addr => p.ptr(name, v),
        K::Path => p.path(name, v),
        K::Str => p.cstr(name, v),
        K::Btf => p.buf(name, v, sibling("btf_size")),
        K::Name => {
            // As far as the size holds it; with no NUL there, all but the
            // last byte (which the NUL would take), cut.
            let end = at.end().min(len.max(at.off));
            let raw = &data[at.off..end];
            match raw.iter().position(|&x| x == 0) {
                Some(nul) => p.string(name, &raw[..nul], false),
                None => p.string(name, &raw[..raw.len().saturating_sub(1)], true),
            }
        }
        K::LogBuf => put_log_buf(p, name, v, sibling("log_size")),
        K::KernVersion => {
            let text = format!(
                "KERNEL_VERSION({}, {}, {})",
                v >> 16,
                (v >> 8) & 0xff,
                v & 0xff
            );
            p.symbol(name, v as i64, Some(&text));
        }
        K::Ifindex => p.ifindex(name, v as u32),
        K::Val(table) => match lookup(table, v as i64) {
            Some(sym) => p.symbol(name, v as i64, Some(sym)),
            None => p.raw_hex(name, v),
        },
        K::Flags(table) => p.flags(name, v, table),
        K::Numa => {
            if sibling("map_flags") & flag(BPF_MAP_FLAGS, "BPF_F_NUMA_NODE") != 0 {
                let none = (v as u32 == NUMA_NO_NODE).then_some("NUMA_NO_NODE");
                p.symbol_decimal(name, v as u32 as i64, none);
            }
        }
        K::OldFd => {
            if sibling("flags") & flag(BPF_ATTACH_FLAGS, "BPF_F_REPLACE") != 0 {
                put_fd(p, c.fds, name, v as u32 as i32 as i64);
            }
        }
        K::Skip => {}
    }
}

/// BPF_LINK_CREATE's members past `flags`, by the attach type, as strace
/// shows them: none (0: `target_btf_id` when set), BPF_PERF_EVENT's
/// `perf_event={bpf_cookie=...}`; where the command's part ends for the
/// extra-data check (after `flags` for the types shown without members,
/// so what they carry shows as extra data).
fn put_link_tail(p: &mut Printer, cmd: &Cmd, data: &[u8]) -> usize {
    let get = |n: &str| field(cmd.layout, n);
    let ty = get("link_create.attach_type").read(data).unwrap_or(0);
    if ty == 0 {
        let id = get("link_create.target_btf_id");
        let v = id.read(data).unwrap_or(0);
        if v != 0 {
            p.uint("target_btf_id", v);
        }
        return id.end();
    }
    if ty == BPF_PERF_EVENT as u64 {
        let cookie = get("link_create.perf_event.bpf_cookie");
        p.open("perf_event", "{", Naming::Fields);
        p.raw_hex("bpf_cookie", cookie.read(data).unwrap_or(0));
        p.close("}");
        return cookie.end();
    }
    get("link_create.flags").end()
}

/// `log_buf`: up to its NUL within `size` bytes (and `-s`), cut where
/// there is none; its address if unreadable.
fn put_log_buf(p: &mut Printer, name: &str, addr: u64, size: u64) {
    let want = (size as usize).min(p.config().string_limit);
    if addr == 0 {
        return p.ptr(name, addr);
    }
    let Some(bytes) = read_vec(p, addr, want) else {
        return p.ptr(name, addr);
    };
    match bytes.iter().position(|&b| b == 0) {
        Some(nul) => p.string(name, &bytes[..nul], false),
        None => p.string(name, &bytes, true),
    }
}

/// The value of flag `name` in `table`.
fn flag(table: &[FlagDef], name: &str) -> u64 {
    table.iter().find(|d| d.name == name).map_or(0, |d| d.value)
}

/// Bytes past the command's part that are not zero: with `-v` as
/// `extra_data` and where they are, else `..`.
fn put_extra(p: &mut Printer, buf: &[u8], attr_size: usize) {
    if buf.len() <= attr_size || buf[attr_size..].iter().all(|&b| b == 0) {
        return;
    }
    if p.config().verbose == 0 {
        return p.more();
    }
    p.string("extra_data", &buf[attr_size..], false);
    p.note(&format!("bytes {}..{}", attr_size, buf.len() - 1));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each command's part is the size strace knows it by.
    #[test]
    fn extents_are_the_commands_structs() {
        for (name, size) in [
            ("BPF_PROG_LOAD", 128),
            ("BPF_MAP_CREATE", 72),
            ("BPF_MAP_LOOKUP_ELEM", 32),
            ("BPF_MAP_DELETE_ELEM", 16),
            ("BPF_MAP_GET_NEXT_KEY", 24),
            ("BPF_MAP_FREEZE", 4),
            ("BPF_OBJ_PIN", 16),
            ("BPF_PROG_ATTACH", 20),
            ("BPF_PROG_DETACH", 12),
            ("BPF_PROG_GET_FD_BY_ID", 12),
            ("BPF_PROG_TEST_RUN", 76),
            ("BPF_RAW_TRACEPOINT_OPEN", 12),
            ("BPF_BTF_LOAD", 28),
            ("BPF_LINK_UPDATE", 16),
            ("BPF_PROG_GET_NEXT_ID", 12),
            ("BPF_OBJ_GET_INFO_BY_FD", 16),
        ] {
            assert_eq!(extent(find(name).expect(name)), size, "{name}");
        }
    }

    #[test]
    fn every_command_is_a_command() {
        use crate::abi::xlat::bpf::BPF_CMDS;
        for cmd in CMDS {
            for name in cmd.names {
                assert!(BPF_CMDS.iter().any(|(_, n)| n == name), "{name}");
            }
            for fl in cmd.fields {
                field(cmd.layout, fl.name);
            }
        }
    }
}
