//! prctl(2): the option by name and, for each option, the arguments the
//! kernel reads for it, as strace 6 shows them (how many, and how each is
//! spelled), and what the getters answer: through `arg2` at leave
//! (`prctl(PR_GET_TSC, [PR_TSC_SIGSEGV]) = 0`) or in the result
//! (`prctl(PR_GET_DUMPABLE) = 1 (SUID_DUMP_USER)`). An option rtrace does
//! not decode prints its four arguments in hex. Whatever the option makes
//! of them, the arguments keep prctl(2)'s names `arg2`..`arg5` (with `-N`,
//! in JSON): a filter knows a parameter by one name per call.
//!
//! prctl's arguments are `unsigned long`: an option the kernel passes on
//! as an `int` (PR_SET_TSC, PR_SET_UNALIGN, PR_SET_FP_MODE, PR_SET_MM,
//! PR_SCHED_CORE's command, pid and type) prints the low 32 bits, the
//! others all 64.

use crate::abi::xlat::process::*;
use crate::call::{CallCtx, CallType};
use crate::decode::put_extended;
use crate::decode::put_signal;
use crate::format::{Naming, Printer, flags_hex, flags_text};
use crate::kernel::Arch;
use crate::service::bpf_filter::{Flavor, put_fprog};
use crate::service::raw::{
    lookup, put_composed, put_named, put_ptr_with, put_word_ptr, read_vec, u64_at,
};
use crate::service::resource::put_cap;
use crate::service::{ByValue, Mem};

/// `TASK_COMM_LEN`: a task's name, its NUL included.
const TASK_COMM_LEN: usize = 16;

/// What the decoders read behind prctl's arguments, by option
/// (`service::ByValue`): the BPF engine copies these.
pub const MEMORY: &[ByValue] = &[
    opt(PR_SET_NAME, 1, Mem::Str(TASK_COMM_LEN)),
    opt(PR_GET_NAME, 1, Mem::Out(TASK_COMM_LEN)),
    opt(PR_GET_PDEATHSIG, 1, Mem::Out(4)),
    opt(PR_GET_CHILD_SUBREAPER, 1, Mem::Out(4)),
    opt(PR_GET_ENDIAN, 1, Mem::Out(4)),
    opt(PR_GET_FPEMU, 1, Mem::Out(4)),
    opt(PR_GET_FPEXC, 1, Mem::Out(4)),
    opt(PR_GET_TSC, 1, Mem::Out(4)),
    opt(PR_GET_UNALIGN, 1, Mem::Out(4)),
    opt(PR_GET_TID_ADDRESS, 1, Mem::Out(8)),
    // The cookie PR_SCHED_CORE_GET writes.
    opt(PR_SCHED_CORE, 4, Mem::Out(8)),
    // PR_SET_VMA_ANON_NAME's name (the kernel takes at most 80 bytes).
    opt(PR_SET_VMA, 4, Mem::Str(80)),
    // SECCOMP_MODE_FILTER's program.
    opt(PR_SET_SECCOMP, 2, Mem::Fprog),
];

/// prctl's memory for `option` behind argument `arg`.
const fn opt(option: u32, arg: u8, mem: Mem) -> ByValue {
    ByValue::by_first(option, arg, mem)
}

/// The argument names, `arg2`..`arg5` by index into `c.args`.
const ARG_NAMES: [&str; 5] = ["option", "arg2", "arg3", "arg4", "arg5"];

/// Arguments `from`..=5 (1-based as prctl(2) numbers them) in hex, as
/// strace prints the ones an option leaves undecoded (0 as `0`).
fn rest_hex(p: &mut Printer, c: &CallCtx, from: usize) {
    for (name, &value) in ARG_NAMES.iter().zip(&c.args).skip(from - 1) {
        if value == 0 {
            p.uint(name, 0);
        } else {
            p.hex(name, value);
        }
    }
}

/// A value named from `table` if it has a name there, else in hex.
fn named_hex(p: &mut Printer, name: &str, value: u64, table: &[(i64, &'static str)]) {
    match lookup(table, value as i64) {
        Some(sym) => p.symbol(name, value as i64, Some(sym)),
        None => p.hex(name, value),
    }
}

/// A value strace always shows as its number with the name beside it
/// (`0 /* PIDTYPE_PID */`, `1 /* SYSLOG_ACTION_OPEN */`): names the kernel
/// does not export, which strace keeps beside the number a reader would
/// look up. Under `-X raw` and `-V` the number; in JSON `{value, name}`.
pub fn number_and_name(p: &mut Printer, name: &str, value: i64, sym: Option<&str>, hex: bool) {
    let number = if hex && value > 0 {
        format!("0x{value:x}")
    } else {
        value.to_string()
    };
    match sym {
        Some(sym) if p.symbols() => {
            let text = format!("{number} /* {sym} */");
            put_composed(p, name, &text, |p| p.symbol(name, value, Some(sym)));
        }
        _ => p.field(name, &number),
    }
}

/// A vector length with its flags above the length field, as
/// PR_SVE_SET_VL and PR_SME_SET_VL take it and their getters return it:
/// `PR_SVE_SET_VL_ONEXEC|0xff`; None when no flag bit is set (then the
/// value is just the length, printed in hex).
fn vl_text(value: u64, mask: u64, table: &[crate::abi::flags::FlagDef]) -> Option<String> {
    let flags = value & !mask;
    (flags != 0).then(|| format!("{}|0x{:x}", flags_text(flags, table, true), value & mask))
}

/// A PR_SET_TAGGED_ADDR_CTRL value as strace spells it:
/// `PR_TAGGED_ADDR_ENABLE|PR_MTE_TCF_SYNC|0x3<<PR_MTE_TAG_SHIFT`, the
/// enable bit's absence as `!PR_TAGGED_ADDR_ENABLE`, bits outside the
/// fields in hex.
fn tagged_addr_text(value: u64) -> String {
    let enable = if value & PR_TAGGED_ADDR_ENABLE != 0 {
        "PR_TAGGED_ADDR_ENABLE"
    } else {
        "!PR_TAGGED_ADDR_ENABLE"
    };
    let tcf = value & PR_MTE_TCF_MASK;
    let tcf = lookup(PR_MTE_TCF, tcf as i64).map_or_else(|| format!("0x{tcf:x}"), str::to_string);
    let mut text = format!("{enable}|{tcf}");
    let tag = (value & PR_MTE_TAG_MASK) >> PR_MTE_TAG_SHIFT;
    if tag != 0 {
        text += &format!("|0x{tag:x}<<PR_MTE_TAG_SHIFT");
    }
    let rest = value & !(PR_TAGGED_ADDR_ENABLE | PR_MTE_TCF_MASK | PR_MTE_TAG_MASK);
    if rest != 0 {
        text += &format!("|0x{rest:x}");
    }
    text
}

/// `prctl(option, arg2, arg3, arg4, arg5)`.
pub fn prctl_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let option = c.args[0] as u32;
    put_named(p, "option", c.int(0), PR_OPTIONS);
    let a = c.args;
    match option {
        // Nothing besides the option; the answer, if any, is the result.
        PR_GET_KEEPCAPS
        | PR_GET_SECCOMP
        | PR_GET_TIMERSLACK
        | PR_GET_TIMING
        | PR_TASK_PERF_EVENTS_DISABLE
        | PR_TASK_PERF_EVENTS_ENABLE
        | PR_GET_DUMPABLE
        | PR_GET_SECUREBITS
        | PR_GET_FP_MODE
        | PR_SVE_GET_VL
        | PR_SME_GET_VL
        | PR_GET_NO_NEW_PRIVS
        | PR_GET_THP_DISABLE
        | PR_GET_IO_FLUSHER
        | PR_MPX_ENABLE_MANAGEMENT
        | PR_MPX_DISABLE_MANAGEMENT => {}
        // Written through arg2, shown at leave.
        PR_GET_PDEATHSIG
        | PR_GET_NAME
        | PR_GET_CHILD_SUBREAPER
        | PR_GET_TID_ADDRESS
        | PR_GET_ENDIAN
        | PR_GET_FPEMU
        | PR_GET_FPEXC
        | PR_GET_TSC
        | PR_GET_UNALIGN => {
            return CallType::NotDone;
        }
        // A signal; a bit above 32 is no signal.
        PR_SET_PDEATHSIG if a[1] > 128 => p.uint("arg2", a[1]),
        PR_SET_PDEATHSIG => put_signal(p, "arg2", a[1] as i64),
        PR_SET_CHILD_SUBREAPER
        | PR_SET_ENDIAN
        | PR_SET_FPEMU
        | PR_SET_FPEXC
        | PR_SET_KEEPCAPS
        | PR_SET_TIMING => p.uint("arg2", a[1]),
        PR_SET_TIMERSLACK => p.int("arg2", a[1] as i64),
        PR_SET_DUMPABLE => named_hex(p, "arg2", a[1], PR_DUMPABLE),
        PR_SET_NAME => {
            // The kernel copies at most TASK_COMM_LEN - 1 bytes.
            match p.mem().read_cstr(a[1], TASK_COMM_LEN - 1) {
                Some((bytes, terminated)) => p.string("arg2", &bytes, !terminated),
                None => p.ptr("arg2", a[1]),
            }
        }
        PR_SET_SECCOMP => {
            named_hex(p, "arg2", a[1], SECCOMP_MODES);
            match a[1] {
                1 => {}
                // SECCOMP_MODE_FILTER: the program, as seccomp(2) prints it.
                2 => put_fprog(p, "arg3", a[2], Flavor::Seccomp),
                _ => rest_hex(p, c, 3),
            }
        }
        PR_CAPBSET_READ | PR_CAPBSET_DROP => put_cap(p, "arg2", a[1]),
        PR_CAP_AMBIENT => {
            named_hex(p, "arg2", a[1], CAP_AMBIENT_OPS);
            if matches!(a[1], 1..=3) {
                put_cap(p, "arg3", a[2]);
                rest_hex(p, c, 4);
            } else {
                rest_hex(p, c, 3);
            }
        }
        PR_MCE_KILL => {
            named_hex(p, "arg2", a[1], PR_MCE_KILL_OPS);
            if a[1] == 1 {
                named_hex(p, "arg3", a[2], PR_MCE_KILL_POLICIES);
            } else {
                p.hex("arg3", a[2]);
            }
            rest_hex(p, c, 4);
        }
        PR_SET_MM => {
            put_named(p, "arg2", a[1] as u32 as i64, PR_SET_MM_OPS);
            rest_hex(p, c, 3);
        }
        PR_SET_TSC => named_hex(p, "arg2", a[1] as u32 as u64, PR_TSC_MODES),
        PR_SET_UNALIGN => p.flags("arg2", a[1] as u32 as u64, PR_UNALIGN_FLAGS),
        PR_SET_FP_MODE => p.flags("arg2", a[1] as u32 as u64, PR_FP_MODES),
        PR_SET_SECUREBITS => p.flags("arg2", a[1], SECBITS),
        PR_SET_NO_NEW_PRIVS | PR_SET_THP_DISABLE | PR_SET_IO_FLUSHER => {
            p.uint("arg2", a[1]);
            rest_hex(p, c, 3);
        }
        PR_SVE_SET_VL => put_vl(p, a[1], PR_SVE_VL_LEN_MASK, PR_SVE_VL_FLAGS),
        PR_SME_SET_VL => put_vl(p, a[1], PR_SME_VL_LEN_MASK, PR_SME_VL_FLAGS),
        PR_SET_TAGGED_ADDR_CTRL => {
            p.symbol("arg2", a[1] as i64, Some(&tagged_addr_text(a[1])));
            rest_hex(p, c, 3);
        }
        PR_GET_SPECULATION_CTRL => named_hex(p, "arg2", a[1], PR_SPEC_CMDS),
        PR_SET_SPECULATION_CTRL => {
            named_hex(p, "arg2", a[1], PR_SPEC_CMDS);
            if a[1] <= 2 {
                named_hex(p, "arg3", a[2], PR_SPEC_SET_VALUES);
            } else {
                p.hex("arg3", a[2]);
            }
        }
        PR_PAC_RESET_KEYS => {
            p.flags("arg2", a[1], PR_PAC_KEYS);
            rest_hex(p, c, 3);
        }
        PR_PAC_SET_ENABLED_KEYS => {
            p.flags("arg2", a[1], PR_PAC_ENABLED_KEYS);
            p.flags("arg3", a[2], PR_PAC_ENABLED_KEYS);
            rest_hex(p, c, 4);
        }
        PR_SET_SYSCALL_USER_DISPATCH => {
            named_hex(p, "arg2", a[1], PR_SUD_CMDS);
            p.hex("arg3", a[2]);
            p.hex("arg4", a[3]);
            p.ptr("arg5", a[4]);
        }
        PR_SCHED_CORE => {
            let cmd = a[1] as u32;
            put_named(p, "arg2", cmd as i64, PR_SCHED_CORE_CMDS);
            p.pid_field("arg3", a[2] as u32 as i32 as i64);
            let kind = a[3] as u32 as i64;
            number_and_name(p, "arg4", kind, lookup(PR_SCHED_CORE_PIDTYPES, kind), true);
            // PR_SCHED_CORE_GET writes the cookie through arg5.
            if cmd == 0 {
                return CallType::NotDone;
            }
            p.ptr("arg5", a[4]);
        }
        PR_SET_VMA => {
            named_hex(p, "arg2", a[1], PR_SET_VMA_OPS);
            if a[1] == 0 {
                p.ptr("arg3", a[2]);
                p.uint("arg4", a[3]);
                p.cstr("arg5", a[4]);
            } else {
                rest_hex(p, c, 3);
            }
        }
        // A pid, or PR_SET_PTRACER_ANY.
        PR_SET_PTRACER => {
            let any = if c.arch == Arch::X86_64 {
                u64::MAX
            } else {
                u32::MAX as u64
            };
            let sym = (a[1] == any).then_some("PR_SET_PTRACER_ANY");
            p.symbol("arg2", a[1] as i64, sym);
        }
        // PR_MCE_KILL_GET, PR_GET_TAGGED_ADDR_CTRL, PR_PAC_GET_ENABLED_KEYS
        // and any other: all four (the kernel wants the unused ones zero,
        // so they are shown).
        _ => rest_hex(p, c, 2),
    }
    CallType::Done
}

/// PR_SVE_SET_VL's and PR_SME_SET_VL's `arg2`.
fn put_vl(p: &mut Printer, value: u64, mask: u32, table: &[crate::abi::flags::FlagDef]) {
    match vl_text(value, mask as u64, table) {
        Some(text) => p.symbol("arg2", value as i64, Some(&text)),
        None => p.hex("arg2", value),
    }
}

/// Leave half of prctl: what the getters wrote through arg2 (or arg5),
/// then the result and what it means.
pub fn prctl_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if !p.equals_printed() {
        put_written(p, c, failed);
        p.equals();
    }
    p.result(c.result);
    if !failed {
        put_result_meaning(p, c);
    }
}

/// The argument a getter wrote, or its pointer when the call failed.
fn put_written(p: &mut Printer, c: &CallCtx, failed: bool) {
    let option = c.args[0] as u32;
    if option == PR_SCHED_CORE {
        // PR_SCHED_CORE_GET: the 64-bit cookie.
        match read_vec(p, c.args[4], 8) {
            Some(b) if !failed && p.config().values_only < 2 => {
                p.open("arg5", "[", Naming::Elements);
                p.hex("", u64_at(&b, 0));
                p.close("]");
            }
            _ => p.ptr("arg5", c.args[4]),
        }
        return;
    }
    let addr = c.args[1];
    if failed {
        p.ptr("arg2", addr);
        return;
    }
    match option {
        PR_GET_PDEATHSIG => put_ptr_with(p, "arg2", addr, |p, v| put_signal(p, "", v as i64)),
        PR_GET_NAME => p.cstr("arg2", addr),
        PR_GET_TSC => put_ptr_with(p, "arg2", addr, |p, v| {
            named_hex(p, "", v as u32 as u64, PR_TSC_MODES)
        }),
        PR_GET_UNALIGN => put_ptr_with(p, "arg2", addr, |p, v| {
            p.flags("", v as u32 as u64, PR_UNALIGN_FLAGS)
        }),
        PR_GET_TID_ADDRESS => put_word_ptr(p, "arg2", addr),
        // PR_GET_CHILD_SUBREAPER, PR_GET_ENDIAN, PR_GET_FPEMU, PR_GET_FPEXC:
        // an unsigned int.
        _ => put_ptr_with(p, "arg2", addr, |p, v| p.uint("", v as u32 as u64)),
    }
}

/// After a getter's result, what it means, as strace says it:
/// `= 1 (SUID_DUMP_USER)`, `= 255 (SECBIT_NOROOT|...)`.
fn put_result_meaning(p: &mut Printer, c: &CallCtx) {
    let r = c.result as u64;
    let text = match c.args[0] as u32 {
        PR_GET_DUMPABLE => lookup(PR_DUMPABLE, r as i64).map(str::to_string),
        PR_MCE_KILL_GET => lookup(PR_MCE_KILL_POLICIES, r as i64).map(str::to_string),
        PR_GET_SECUREBITS if r != 0 => Some(flags_text(r, SECBITS, true)),
        PR_GET_FP_MODE if r != 0 => Some(flags_text(r, PR_FP_MODES, true)),
        PR_PAC_GET_ENABLED_KEYS => Some(flags_text(r, PR_PAC_ENABLED_KEYS, true)),
        PR_SVE_SET_VL | PR_SVE_GET_VL => vl_text(r, PR_SVE_VL_LEN_MASK as u64, PR_SVE_VL_FLAGS),
        PR_SME_SET_VL | PR_SME_GET_VL => vl_text(r, PR_SME_VL_LEN_MASK as u64, PR_SME_VL_FLAGS),
        PR_GET_TAGGED_ADDR_CTRL => Some(tagged_addr_text(r)),
        PR_GET_SPECULATION_CTRL if c.args[1] <= 2 => Some(flags_text(r, PR_SPEC_GET_FLAGS, true)),
        _ => None,
    };
    if let Some(text) = text.filter(|t| *t != flags_hex(r) && p.symbols()) {
        put_extended(p, "meaning", |p, n| p.field(n, &text));
    }
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[crate::call::Handler] = &[crate::service::h(
    "prctl",
    prctl_out,
    prctl_in,
    crate::call::CallClass::Normal,
)];
