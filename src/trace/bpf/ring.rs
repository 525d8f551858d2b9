//! The BPF ring buffer (`events`), read from rtrace's own mapping of it.
//!
//! aya's `RingBuf` publishes the consumer position after every record.
//! The program reads that position at every reserve and commit, so each
//! store from the reader's CPU cost the traced task a cache miss: a
//! tenth of a traced getppid's time (session 23). Here a batch of
//! records is handed out, then the position is published once; the
//! records stay in place (the program cannot reuse their space until
//! then), so nothing is copied.
//!
//! The layout is the kernel's (kernel/bpf/ringbuf.c): at offset 0 one
//! page holding the consumer position, mapped read-write; after it one
//! page holding the producer position and the data pages mapped twice
//! in a row, read-only, so that a record that wraps around the end is
//! contiguous. Each record starts with an 8-byte header whose first
//! word is its length with the busy and discard bits.

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering, fence};

use aya::maps::MapData;

/// Set in a record's length word while the program has reserved the
/// record and not yet committed it.
const BUSY_BIT: u32 = 1 << 31;
/// Set in a committed record the program discarded.
const DISCARD_BIT: u32 = 1 << 30;
/// The kernel's header before each record's bytes.
const HEADER_BYTES: usize = 8;
/// Within a batch, the read position is published again each time this
/// share of the ring has been read.
const PUBLISH_SHARE: usize = 16;

/// A record header whose length no record can have (bytes): the ring is
/// not what the kernel writes, and reading stops.
#[derive(Debug)]
pub(super) struct Corrupt(pub usize);

/// The ring, mapped, and where rtrace has read it up to.
pub(super) struct Ring {
    /// Kept so the map outlives the mappings; its fd is polled.
    map: MapData,
    consumer: NonNull<AtomicUsize>,
    /// The producer page, the data right after it.
    producer: NonNull<u8>,
    page: usize,
    data_bytes: usize,
    /// The consumer position as read so far (published by `drain`).
    position: usize,
}

impl Ring {
    /// Map the ring buffer `map`, whose data is `data_bytes` long (a
    /// power of two, whole pages: what the map was made with).
    pub(super) fn map(map: MapData, data_bytes: usize) -> io::Result<Ring> {
        debug_assert!(data_bytes.is_power_of_two());
        // SAFETY: sysconf takes a constant.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
        let fd = map.fd().as_fd().as_raw_fd();
        let consumer = mmap(fd, page, libc::PROT_READ | libc::PROT_WRITE, 0)?;
        let producer = match mmap(fd, page + 2 * data_bytes, libc::PROT_READ, page) {
            Ok(p) => p,
            Err(e) => {
                // SAFETY: the mapping made just above.
                unsafe { libc::munmap(consumer.as_ptr().cast(), page) };
                return Err(e);
            }
        };
        let consumer = consumer.cast::<AtomicUsize>();
        // SAFETY: the consumer page is mapped for self's life.
        let position = unsafe { consumer.as_ref() }.load(Ordering::Acquire);
        Ok(Ring {
            map,
            consumer,
            producer,
            page,
            data_bytes,
            position,
        })
    }

    /// Hand at most `max` committed records, in order, to `each`, then
    /// publish how far the ring is read; returns how many were taken
    /// (discarded ones included). A record still being written ends
    /// the batch.
    pub(super) fn drain(
        &mut self,
        max: usize,
        mut each: impl FnMut(&[u8]),
    ) -> Result<usize, Corrupt> {
        // SAFETY: the producer page is mapped for self's life. It is
        // read-only, so the load is relaxed and the fence after it gives
        // the acquire order that pairs with the kernel's release store.
        let producer =
            unsafe { self.producer.cast::<AtomicUsize>().as_ref() }.load(Ordering::Relaxed);
        fence(Ordering::Acquire);
        let mask = self.data_bytes - 1;
        // SAFETY: the data pages follow the producer page.
        let data = unsafe { self.producer.as_ptr().add(self.page) };
        let mut taken = 0;
        let mut published = self.position;
        while self.position != producer && taken < max {
            let at = self.position & mask;
            // SAFETY: `at` is inside the first copy of the data and a
            // header is 8-aligned. The kernel commits it with a fully
            // ordered exchange; the mapping is read-only, so a relaxed
            // load and an acquire fence.
            let word = unsafe { (*data.add(at).cast::<AtomicU32>()).load(Ordering::Relaxed) };
            fence(Ordering::Acquire);
            let Some((len, kept)) = committed(word, self.data_bytes)? else {
                break;
            };
            if kept {
                // SAFETY: the record lies within the data's two copies
                // (at < data_bytes, its length at most data_bytes), and
                // the program cannot reuse it before the position moves.
                let bytes = unsafe { std::slice::from_raw_parts(data.add(at + HEADER_BYTES), len) };
                each(bytes);
            }
            self.position = self.position.wrapping_add(span(len));
            taken += 1;
            if self.position.wrapping_sub(published) >= self.data_bytes / PUBLISH_SHARE {
                // A batch of long records: their space is given back
                // before the batch ends, so the program never finds the
                // ring fuller than rtrace has read it by much.
                self.publish();
                published = self.position;
            }
        }
        if self.position != published {
            self.publish();
        }
        Ok(taken)
    }

    /// Tell the program how far the ring is read.
    fn publish(&self) {
        // SAFETY: the consumer page is mapped for self's life; the
        // kernel reads the position with acquire order before reusing
        // the space.
        unsafe { self.consumer.as_ref() }.store(self.position, Ordering::Release);
    }
}

impl AsFd for Ring {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.map.fd().as_fd()
    }
}

impl Drop for Ring {
    fn drop(&mut self) {
        // SAFETY: the two mappings `map` made, unmapped once.
        unsafe {
            libc::munmap(self.consumer.as_ptr().cast(), self.page);
            libc::munmap(
                self.producer.as_ptr().cast(),
                self.page + 2 * self.data_bytes,
            );
        }
    }
}

/// What a record's length word says: `None` while the program is still
/// writing it, else its length and whether it is kept (not discarded);
/// an error for a length no record in a ring of `data_bytes` can have
/// (reading on would leave the mapping).
fn committed(word: u32, data_bytes: usize) -> Result<Option<(usize, bool)>, Corrupt> {
    if word & BUSY_BIT != 0 {
        return Ok(None);
    }
    let len = (word & !(BUSY_BIT | DISCARD_BIT)) as usize;
    if len + HEADER_BYTES > data_bytes {
        return Err(Corrupt(len));
    }
    Ok(Some((len, word & DISCARD_BIT == 0)))
}

/// The ring space a record of `len` bytes takes: its header and bytes,
/// rounded up to 8.
fn span(len: usize) -> usize {
    (len + HEADER_BYTES).next_multiple_of(8)
}

/// A shared mapping of `len` bytes of `fd` from `offset` (the ring's
/// pages, the traced tasks' table).
pub(super) fn mmap(fd: i32, len: usize, prot: i32, offset: usize) -> io::Result<NonNull<u8>> {
    // SAFETY: a fresh shared mapping of the map's fd; nothing is aliased.
    let at = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            prot,
            libc::MAP_SHARED,
            fd,
            offset as libc::off_t,
        )
    };
    if at == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    Ok(NonNull::new(at.cast::<u8>()).expect("mmap gave no address"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_length_word_says_busy_discarded_kept_or_impossible() {
        let ring = 4096;
        assert!(matches!(committed(BUSY_BIT | 120, ring), Ok(None)));
        assert!(matches!(committed(120, ring), Ok(Some((120, true)))));
        assert!(matches!(
            committed(DISCARD_BIT | 120, ring),
            Ok(Some((120, false)))
        ));
        assert!(matches!(committed(4088, ring), Ok(Some((4088, true)))));
        assert!(matches!(committed(4089, ring), Err(Corrupt(4089))));
        assert_eq!((span(112), span(113), span(0)), (120, 128, 8));
    }
}
