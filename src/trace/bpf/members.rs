//! The kernel's table of traced tasks (`members` in bpf/tasks.bpf.h, a
//! `struct rt_members` per 64 tids), changed from here through the map's
//! own memory. The program asks it at every call of every task on the
//! machine, so it is an array of bits rather than a hash; and the program
//! sets and clears bits of its own (a traced task's child, an exec, an
//! exit) while rtrace does, so both sides change a word only with atomics:
//! a read, change and write of a whole entry through `bpf()` could undo a
//! bit the program set in between.

use std::io;
use std::os::fd::{AsFd, AsRawFd};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};

use aya::maps::MapData;

/// `struct rt_members`: the words of one entry.
const WORDS_PER_ENTRY: usize = 2;
/// Its `traced` word: the task is traced.
const TRACED: usize = 0;
/// Its `starting` word: a started command before its exec.
const STARTING: usize = 1;

/// The table, mapped into rtrace's memory.
pub(super) struct Members {
    /// Kept so the map outlives the mapping.
    _map: MapData,
    words: NonNull<AtomicU64>,
    /// Entries (64 tids each).
    entries: usize,
    bytes: usize,
}

impl Members {
    /// Map the table in: the kernel's own sizes say how much.
    pub(super) fn map(map: MapData) -> io::Result<Members> {
        let info = map.info().map_err(io::Error::other)?;
        let entry_bytes = WORDS_PER_ENTRY * size_of::<u64>();
        if info.value_size() as usize != entry_bytes {
            return Err(io::Error::other(format!(
                "its entries have {} bytes, not {entry_bytes}",
                info.value_size()
            )));
        }
        let entries = info.max_entries() as usize;
        let bytes = entries * entry_bytes;
        // A BPF_F_MMAPABLE array's values (the program declares it so);
        // nothing else in rtrace maps it.
        let fd = map.fd().as_fd().as_raw_fd();
        let words = super::ring::mmap(fd, bytes, libc::PROT_READ | libc::PROT_WRITE, 0)?
            .cast::<AtomicU64>();
        Ok(Members {
            _map: map,
            words,
            entries,
            bytes,
        })
    }

    /// The `traced` and `starting` words of `tid`'s entry and its bit in
    /// them, `None` for a tid past the table (none is: pids stay below
    /// PID_MAX_LIMIT).
    fn entry(&self, tid: i32) -> Option<(&AtomicU64, &AtomicU64, u64)> {
        let tid = u32::try_from(tid).ok()? as usize;
        let entry = tid / 64;
        if entry >= self.entries {
            return None;
        }
        // SAFETY: in bounds of the mapping, which lives as long as self;
        // u64 words are 8-aligned (the mapping is page-aligned), and the
        // program changes them only atomically too.
        let word =
            |which: usize| unsafe { self.words.add(entry * WORDS_PER_ENTRY + which).as_ref() };
        Some((word(TRACED), word(STARTING), 1u64 << (tid % 64)))
    }

    /// Trace `tid`; `starting`: it is a started command before its exec.
    /// `false` when the tid cannot be in the table.
    pub(super) fn add(&self, tid: i32, starting: bool) -> bool {
        let Some((traced, start, bit)) = self.entry(tid) else {
            return false;
        };
        // The state first, so the program never sees a started command
        // traced but not starting.
        if starting {
            start.fetch_or(bit, Ordering::SeqCst);
        } else {
            start.fetch_and(!bit, Ordering::SeqCst);
        }
        traced.fetch_or(bit, Ordering::SeqCst);
        true
    }

    /// Trace `tid` no more.
    pub(super) fn remove(&self, tid: i32) {
        if let Some((traced, start, bit)) = self.entry(tid) {
            traced.fetch_and(!bit, Ordering::SeqCst);
            start.fetch_and(!bit, Ordering::SeqCst);
        }
    }
}

impl Drop for Members {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `map`, not used after this.
        unsafe { libc::munmap(self.words.as_ptr().cast(), self.bytes) };
    }
}
