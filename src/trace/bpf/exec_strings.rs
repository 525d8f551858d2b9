//! The strings of a successful exec that its entry could not copy (a
//! program's constant in a page nothing had touched yet: the kernel
//! faults it in, a tracepoint's program cannot). By the exit the memory
//! they were in is gone, replaced by the new program's, so they are not
//! copied again at their addresses (which may hold anything now). The
//! kernel copied them onto the new program's stack, and the exit sends
//! that copy (`exec_strings()` in bpf/captures.bpf.h): the entry's
//! pointers name which string each is.

use super::wire::{self, Record};
use crate::kernel::{Arch, Snapshot};
use crate::sysent;

/// Give `entry` (an exec's entry) the strings it lacks from its exit's
/// `areas`: the new program's argument strings and environment strings,
/// and the file name the kernel was given.
pub fn fill(entry: &mut Record, areas: &[Option<Vec<u8>>; 3]) {
    if areas.iter().all(Option::is_none) {
        return;
    }
    debug_assert!(entry.head.kind == wire::ENTER);
    let (arch, nr) = super::records::arch_of(&entry.head);
    let (name, _) = crate::service::lookup(arch, nr);
    let Some(sig) = sysent::signature(arch, &name) else {
        return;
    };
    let word = if arch == Arch::I386 { 4 } else { 8 };
    for (param, area, renamed) in [("argv", &areas[0], true), ("envp", &areas[1], false)] {
        if let (Some(i), Some(area)) = (sig.position(param), area) {
            let array = entry.head.args[i];
            fill_vector(&mut entry.snapshot, array, word, area, renamed);
        }
    }
    // execve's file name is the kernel's as given; execveat's is made
    // from its directory fd (`/dev/fd/3/name`).
    if let (Some(file), "execve") = (&areas[2], &*name) {
        let at = entry.head.args[0];
        if at != 0 && entry.snapshot.at(at).is_empty() {
            entry.snapshot.add_terminated(at, file);
        }
    }
}

/// Add the strings of the pointer array at `array` (of `word`-byte
/// pointers, NULL-ended) that `snapshot` lacks, from `area`: the same
/// strings, NUL-ended one after another. With `renamed` (argv), the
/// kernel may have put an interpreter's name and options in place of the
/// first (a `#!` script, binfmt_misc): then `area` has more strings, and
/// the array's strings after its first are its last ones.
fn fill_vector(snapshot: &mut Snapshot, array: u64, word: usize, area: &[u8], renamed: bool) {
    let Some(body) = area.strip_suffix(&[0]) else {
        return;
    };
    let strings: Vec<&[u8]> = body.split(|&b| b == 0).collect();
    let mut pointers = Vec::new();
    loop {
        let at = array + (pointers.len() * word) as u64;
        let Some(bytes) = snapshot.at(at).get(..word) else {
            // The array itself was not copied whole: nothing to match.
            return;
        };
        let mut raw = [0u8; 8];
        raw[..word].copy_from_slice(bytes);
        let pointer = u64::from_le_bytes(raw);
        if pointer == 0 {
            break;
        }
        pointers.push(pointer);
        if pointers.len() > strings.len() {
            return;
        }
    }
    let (first, shift) = match strings.len().checked_sub(pointers.len()) {
        Some(0) => (0, 0),
        Some(more) if renamed => (1, more),
        _ => return,
    };
    for (k, &pointer) in pointers.iter().enumerate().skip(first) {
        if snapshot.at(pointer).is_empty() {
            snapshot.add_terminated(pointer, strings[k + shift]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An argv array at 0x1000 of 8-byte pointers to `strings`' addresses,
    /// with only the strings `copied` says in the snapshot.
    fn entry(pointers: &[u64], copied: &[(u64, &[u8])]) -> Snapshot {
        let mut s = Snapshot::default();
        let mut array: Vec<u8> = pointers.iter().flat_map(|p| p.to_le_bytes()).collect();
        array.extend_from_slice(&0u64.to_le_bytes());
        s.add(0x1000, &array);
        for &(at, bytes) in copied {
            s.add_terminated(at, bytes);
        }
        s
    }

    fn string(s: &Snapshot, at: u64) -> &[u8] {
        let b = s.at(at);
        &b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())]
    }

    #[test]
    fn a_lost_string_is_the_new_programs_same_one() {
        let mut s = entry(
            &[0x2000, 0x3000, 0x4000],
            &[(0x2000, b"sh"), (0x4000, b"echo")],
        );
        fill_vector(&mut s, 0x1000, 8, b"sh\0-c\0echo\0", true);
        assert_eq!(string(&s, 0x3000), b"-c");
        // What the entry copied stays as it was.
        assert_eq!(string(&s, 0x2000), b"sh");
    }

    #[test]
    fn a_script_s_interpreter_takes_the_first_string_s_place() {
        // execve("./s", ["./s", "x"]) of a `#!/bin/sh -e` script: the new
        // program's argv is /bin/sh -e ./s x.
        let mut s = entry(&[0x2000, 0x3000], &[]);
        fill_vector(&mut s, 0x1000, 8, b"/bin/sh\0-e\0./s\0x\0", true);
        assert_eq!(string(&s, 0x3000), b"x");
        assert!(s.at(0x2000).is_empty());
        // An environment is never renamed: more strings match nothing.
        let mut s = entry(&[0x2000], &[]);
        fill_vector(&mut s, 0x1000, 8, b"A=1\0B=2\0", false);
        assert!(s.at(0x2000).is_empty());
    }

    #[test]
    fn an_array_not_copied_whole_is_left_alone() {
        let mut s = Snapshot::default();
        s.add(0x1000, &0x2000u64.to_le_bytes());
        fill_vector(&mut s, 0x1000, 8, b"a\0", true);
        assert!(s.at(0x2000).is_empty());
        // Nor an area without its last NUL.
        let mut s = entry(&[0x2000], &[]);
        fill_vector(&mut s, 0x1000, 8, b"a", true);
        assert!(s.at(0x2000).is_empty());
    }
}
