//! The captures the service tables name where the kernel's declarations
//! cannot say: memory at the stack pointer (a sigreturn's frame), behind
//! pointers inside a struct, chosen by another argument's value, larger
//! than the declared struct, arrays counted elsewhere, bit sets, and
//! ioctl's argument sized by its request.

use super::*;

/// The memory call `name`'s decoder reads at the stack pointer
/// (`service::signal::stack_reads`: a sigreturn's mask in the signal
/// frame), copied at the entry: `elem` is the offset from the stack
/// pointer, `max` the bytes.
pub(super) fn stack_captures(spec: &mut Spec, arch: Arch, name: &str) {
    for &(off, len) in service::signal::stack_reads(arch, name) {
        spec.push(CaptureSpec {
            kind: CAP_STACK,
            when: AT_ENTER,
            elem: off as u16,
            max: clamp(len),
            ..Default::default()
        });
    }
}

/// Memory behind pointers inside a struct argument
/// (`service::indirect`: clone3's pidfd and parent_tid): a capture each
/// that reads the pointer in the kernel and copies what it points at.
/// A length in a member of the struct (`Mem::InMember`: xattr_args'
/// value, its `size` beside it) rides in `len_arg`, as 1 + its offset.
pub(super) fn indirect_captures(spec: &mut Spec, name: &str, limits: Limits) {
    use service::Mem;
    // As far as shown, and one byte more to tell that it goes on.
    let shown = limits.string_limit + 1;
    for entry in service::indirect(name) {
        let (when, size, member) = match entry.mem {
            Mem::Out(n) => (AT_EXIT, n, 0),
            Mem::In(n) => (AT_ENTER, n, 0),
            // And one byte more, to see the NUL of the longest shown.
            Mem::Str(n) => (AT_ENTER, n + 1, 0),
            Mem::StrShown => (AT_ENTER, limits.string_limit + 2, 0),
            Mem::InMember(m) => (AT_ENTER, shown, m.saturating_add(1)),
            Mem::OutMember(m) => (AT_EXIT, shown, m.saturating_add(1)),
            Mem::Fprog
            | Mem::Insns
            | Mem::InLen(_)
            | Mem::OutLen(_)
            | Mem::Block(_)
            | Mem::InMemberOf { .. }
            | Mem::OutMemberOf { .. } => continue,
        };
        spec.push(CaptureSpec {
            arg: entry.arg,
            kind: CAP_INDIRECT,
            when,
            len_arg: member,
            elem: entry.offset,
            max: clamp(size),
        });
    }
}

/// A multiplexed call's memory chosen by an argument's value
/// (`service::by_value`: prctl's option): one capture that has the
/// program look the value up in the options map (`by_value.rs`).
pub(super) fn option_capture(spec: &mut Spec, arch: Arch, name: &str, limits: Limits) {
    if let Some(first) = service::by_value(arch, name).first() {
        spec.push(CaptureSpec {
            arg: first.selector,
            kind: CAP_OPTION,
            when: AT_ENTER | AT_EXIT,
            len_arg: first.selector,
            elem: service::selector_shift(name).into(),
            max: clamp(limits.string_limit.max(BUF_CAP) + 1),
        });
    }
}

/// A struct argument whose declaration names a smaller struct than the
/// kernel copies (`service::ipc::copied_struct`: shmctl's `struct
/// shmid_ds *`, copied as `struct shmid64_ds`): its capture is made as
/// large as the decoder reads.
pub(super) fn copied_struct(spec: &mut Spec, arch: Arch, name: &str) {
    let Some((arg, size)) = service::ipc::copied_struct(arch, name) else {
        return;
    };
    let n = spec.ncaps as usize;
    for cap in spec.caps[..n]
        .iter_mut()
        .filter(|c| c.arg == arg && c.kind == CAP_FIXED)
    {
        cap.max = cap.max.max(clamp(size));
    }
}

/// The capture of array argument `arg` of `elem`-byte elements, `count`
/// of them (`service::ARRAYS`).
pub(super) fn array_capture(
    arg: u8,
    count: service::Count,
    elem: usize,
    when: u8,
    buf_cap: u16,
) -> CaptureSpec {
    let elem16 = elem.min(u16::MAX as usize) as u16;
    match count {
        service::Count::Fixed(n) => CaptureSpec {
            arg,
            kind: CAP_FIXED,
            when,
            max: clamp(n * elem),
            ..Default::default()
        },
        service::Count::Arg(j) => CaptureSpec {
            arg,
            kind: CAP_ARGLEN,
            when,
            len_arg: j,
            elem: elem16,
            max: buf_cap.max(clamp(elem)),
        },
        service::Count::Result => CaptureSpec {
            arg,
            kind: CAP_RETLEN,
            when: AT_EXIT,
            elem: elem16,
            max: buf_cap.max(clamp(elem)),
            ..Default::default()
        },
        service::Count::Bits(j) => bit_set(arg, j, 8, buf_cap),
        service::Count::Bytes(j) => CaptureSpec {
            arg,
            kind: CAP_ARGMIN,
            when,
            len_arg: j,
            elem: elem16,
            max: buf_cap.max(clamp(elem)),
        },
    }
}

/// The capture of bit set argument `arg` of as many bits as argument
/// `count` says, in whole words of `word` bytes, at most `max` bytes:
/// what the kernel reads at the entry and writes at the exit.
pub(super) fn bit_set(arg: u8, count: u8, word: u16, max: u16) -> CaptureSpec {
    CaptureSpec {
        arg,
        kind: CAP_BITS,
        when: AT_ENTER | AT_EXIT,
        len_arg: count,
        elem: word,
        max,
    }
}

/// The arrays of a call the kernel declares without trace-event
/// metadata (kexec_load on a kernel built without kexec: rtrace's
/// declarations come from the kernel it was generated on) whose
/// elements' words `service::array_words` gives: copied at the entry,
/// as many as `service::ARRAYS` says.
pub(super) fn arrays_in_words(spec: &mut Spec, name: &str, limits: Limits) {
    let buf_cap = clamp(limits.string_limit.max(BUF_CAP) + 1);
    for &(call, arg, count) in service::ARRAYS {
        if call != name {
            continue;
        }
        if let Some(words) = service::array_words(name, arg) {
            spec.push(array_capture(arg, count, words * 8, AT_ENTER, buf_cap));
        }
    }
}

/// ioctl's argument (its third), sized by its request (the second).
/// Its struct is copied whole, up to what one capture holds (the
/// decoders print every member: UBI_IOCRNVOL's is 4,360 bytes).
pub(super) fn ioctl_capture(limits: Limits) -> CaptureSpec {
    CaptureSpec {
        arg: 2,
        kind: CAP_IOCTL,
        when: AT_ENTER | AT_EXIT,
        len_arg: 1,
        elem: 1,
        max: clamp(limits.string_limit.max(CAP_MAX)),
    }
}
