//! The i386 half of the plan: what an i386 call copies (its declarations
//! are x86_64's: where the registers and layouts agree, the x86_64 call's
//! captures; otherwise a guess of what the decoders read), and the calls
//! i386's socketcall and ipc stand for, whose captures are taken from
//! where `service::Subcall` says their arguments are.

use super::*;

/// The calls socketcall and ipc stand for, where the multiplexer is
/// `captured`: each one's spec index (`SUBCALL_BASE` and up), where its
/// arguments are, and the name of the i386 call whose captures it takes.
pub(in crate::trace::bpf) fn subcall_calls(
    captured: &dyn Fn(&str) -> bool,
) -> Vec<(u32, service::Subcall, &'static str)> {
    let mut subcalls = Vec::new();
    if captured("socketcall") {
        for call in 1..32 {
            if let Some(sub) = service::net::socketcall_subcall(call) {
                // send, recv and accept have no i386 call of their own:
                // sendto's, recvfrom's and accept4's first arguments are
                // theirs.
                let direct = match sub.name {
                    "send" => "sendto",
                    "recv" => "recvfrom",
                    "accept" => "accept4",
                    name => name,
                };
                subcalls.push((SUBCALL_BASE + call as u32, sub, direct));
            }
        }
    }
    if captured("ipc") {
        // A call whose memory ipc's own by-value table copies (SHMAT's
        // address, written behind `third`) keeps ipc's captures.
        let own = service::by_value(Arch::I386, "ipc");
        for call in (1..32).filter(|&c| !own.iter().any(|b| b.value == c)) {
            for version in [0, 1] {
                if let Some(sub) = service::ipc::ipc_subcall(call | version << 16) {
                    let index = SUBCALL_BASE + 32 + call as u32 + 32 * version as u32;
                    subcalls.push((index, *sub, sub.name));
                }
            }
        }
    }
    subcalls
}

/// The specs of the calls socketcall and ipc stand for
/// ([`subcall_calls`]): the captures of the i386 call of the same name in
/// `calls` (the table so far), from the subcall's arguments.
pub(super) fn subcalls(calls: &[(u32, Spec)], captured: &dyn Fn(&str) -> bool) -> Vec<(u32, Spec)> {
    let i386 = |name: &str| -> Option<Spec> {
        let nr = service::number(Arch::I386, name)?;
        calls
            .iter()
            .find(|(i, _)| *i == I386_BASE + nr as u32)
            .map(|(_, s)| *s)
    };
    subcall_calls(captured)
        .into_iter()
        .filter_map(|(index, sub, direct)| Some((index, subcall_spec(&sub, i386(direct)?)?)))
        .collect()
}

/// The spec of subcall `sub` of a multiplexer: the captures of the i386
/// call of its name (`direct`; those chosen by another argument's value
/// are looked up under the subcall's index, which the options table has
/// too), with where its arguments are; None where it copies nothing.
fn subcall_spec(sub: &service::Subcall, direct: Spec) -> Option<Spec> {
    let mut spec = Spec::default();
    for cap in direct.captures() {
        spec.push(*cap);
    }
    if spec.ncaps == 0 {
        return None;
    }
    spec.wanted = 1;
    spec.block = sub.block;
    spec.words = sub.words() as u8;
    for (from, source) in spec.from.iter_mut().zip(sub.args) {
        *from = match source {
            service::Source::Arg(n) => n,
            service::Source::Word(n) => WORD | n,
            service::Source::Zero => NONE,
        };
    }
    Some(spec)
}

/// The captures of i386 call `name`: its strings, and where `x86_64` (the
/// x86_64 call of the same name's parameters) has them in the same
/// registers, that call's byte buffers and the structs an i386 program
/// lays out as the kernel does.
pub(super) fn i386_captures(name: &str, x86_64: Option<&[Field]>, limits: Limits) -> Spec {
    let mut spec = strings_only(Arch::I386, name, limits);
    if let (Some(fields), Some(sig)) = (x86_64, sysent::signature(Arch::I386, name)) {
        same_as_x86_64(&mut spec, name, fields, sig, limits);
    }
    // Bit sets (`_newselect`'s and pselect6's fd sets), in 32-bit words.
    let buf_cap = clamp(limits.string_limit.max(BUF_CAP) + 1);
    let params = sysent::signature(Arch::I386, name).map_or(0, |s| s.params.len());
    for &(call, arg, count) in service::ARRAYS {
        if let (true, service::Count::Bits(j)) = (call == name && (arg as usize) < params, count) {
            spec.push(bit_set(arg, j, 4, buf_cap));
        }
    }
    // Any other pointer: no declaration says what an i386 program's
    // struct is (the compat calls have no trace events), so as much as
    // the decoders read of the structs they lay out (stat64, 96 bytes; an
    // fd_set of 1024 fds, 128), at the entry and the exit.
    if let Some(sig) = sysent::signature(Arch::I386, name) {
        for (i, p) in sig.params.iter().enumerate().take(6) {
            let arg = i as u8;
            if p.kind == Kind::Ptr && !spec.captures().iter().any(|c| c.arg == arg) {
                spec.push(CaptureSpec {
                    arg,
                    kind: CAP_GUESS,
                    when: AT_ENTER | AT_EXIT,
                    elem: 4,
                    max: I386_GUESS,
                    ..Default::default()
                });
            }
        }
    }
    spec
}

/// Whether i386 call `name` runs the native function whose declaration
/// its captures follow (`plan::i386_declared`): it has no compat entry
/// point, and either enters its own name's function or has no x86_64
/// call of its name, so that the declaration is the function's it enters
/// (clock_adjtime64 runs sys_clock_adjtime; adjtimex, declared by
/// x86_64's adjtimex, runs sys_adjtimex_time32 and its 32-bit struct).
pub(super) fn runs_declared_function(name: &str) -> bool {
    use crate::abi::gen_i386_entry::{I386_COMPAT, I386_ENTRY};
    let renamed = I386_ENTRY.iter().any(|&(call, _)| call == name);
    !I386_COMPAT.contains(&name) && (!renamed || crate::abi::declared(name).is_none())
}

/// What an i386 program's pointer is copied as when no declaration
/// says: see [`i386_captures`].
const I386_GUESS: u16 = 128;

/// The captures of i386 call `name` that the x86_64 call of the same name
/// (`fields`) gives: where the parameters sit in the same registers, its
/// byte buffers, the structs laid out alike, and the iovecs, msghdrs and
/// pointer arrays the program follows in their compat layouts.
fn same_as_x86_64(
    spec: &mut Spec,
    name: &str,
    fields: &[Field],
    sig: &sysent::Signature,
    limits: Limits,
) {
    // As many parameters, and before any 64-bit value split over two
    // registers: each sits where the x86_64 one does (preadv's iovecs;
    // its x86_64 declaration splits the offset too).
    let split = sig.params.iter().position(|p| p.kind == Kind::High);
    let aligned = sig.params.len() == fields.len();
    let same = |i: u8| aligned && (i as usize) < split.unwrap_or(fields.len()).min(fields.len());
    // And structs an i386 program lays out as the kernel does (no
    // pointers or longs: struct statx, an int). A call that runs the
    // function `fields` declares, with no compat entry point, reads a
    // struct of fixed-width members as x86_64 lays it out, whatever
    // padding BTF does not show (`struct __kernel_timex`'s `int :32`).
    let native = runs_declared_function(name);
    let same_layout = |i: u8| {
        let base = fields.get(i as usize).map(|f| pointee(f.ty));
        base.as_deref().is_some_and(is_bytes)
            || base
                .and_then(|b| crate::ioctl::btf::describe(&b))
                .is_some_and(|t| t.shape.i386_layout_same() || (native && t.shape.fixed_width()))
    };
    for cap in captures(name, fields, limits).captures() {
        // The program follows these in their compat layouts (32-bit
        // pointers and lengths) for an i386 call; strings came above.
        let followed = matches!(
            cap.kind,
            CAP_IOVEC | CAP_MSGHDR | CAP_MMSGHDR | CAP_STRVEC | CAP_PTRVEC | CAP_IOCBS
        );
        let uses_len = matches!(
            cap.kind,
            CAP_ARGLEN | CAP_RETLEN | CAP_ARGMIN | CAP_LENPTR | CAP_IOVEC | CAP_MMSGHDR | CAP_IOCBS
        );
        let laid_out = followed || (cap.kind != CAP_STR && same_layout(cap.arg));
        if same(cap.arg) && (!uses_len || same(cap.len_arg)) && laid_out {
            spec.push(*cap);
        }
    }
}
