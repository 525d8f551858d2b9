//! One reader of the emulated usbmon (one open of `/dev/usbmonN`): its ring
//! and the kernel's accounting of it (`struct mon_reader_bin` of mon_bin.c:
//! `b_size`, `b_cnt`, `b_in`, `b_out`, `b_read`, `cnt_lost`), and the
//! device that places the recording's events into it as `mon_bin_event`
//! would. The ring is a memfd the supervisor maps read-write; the program's
//! fd is another open file description of the same memfd, so an mmap of it
//! by the program (left to the kernel) shows what is placed here.

use super::abi::{
    BUFF_DFL, H_LEN_CAP, H_TS_SEC, H_TS_USEC, H_TYPE, ISODESC_LEN, PKT_SIZE, align64,
};
use super::recording::Recording;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};

/// How events arrive.
#[derive(Clone, Copy, Debug)]
pub struct Pace {
    /// At the recording's own pace (`--usbmon-replay-pace`): an event
    /// arrives once as much time has passed since the reader's first
    /// request as passed in the recording since its first event, and is
    /// stamped with the real time it arrives at (a live kernel stamps an
    /// event when it happens). Without pacing the recording's own stamps
    /// are kept, so a capture holds the recording byte for byte.
    pub recorded: bool,
    /// How many times the recording is played (`--usbmon-replay-loop=N`);
    /// None: for ever (`--usbmon-replay-loop`). Each pass is stamped
    /// [`Recording::period_us`] after the one before, so stamps go on
    /// increasing; URB ids recur, as a kernel's (they are the addresses of
    /// `struct urb`s, which a driver resubmits and the slab reuses).
    pub passes: Option<u32>,
}

/// A reader: one open of a usbmon node.
pub struct Reader {
    /// Which open it was (names its memfd `usbmon-ring-K`).
    pub id: u32,
    /// Its bus, 0 for all.
    pub bus: u16,
    memfd: OwnedFd,
    /// The open file description the program has (another open of the
    /// memfd): its status flags are the program's, and `kcmp` finds the
    /// program's fds of it.
    pub cfd: OwnedFd,
    /// The memfd's inode, to find mappings of the ring in /proc/PID/maps.
    pub ino: u64,
    ring: *mut u8,
    /// `b_size`: the ring's size.
    pub b_size: u32,
    /// `b_cnt`: bytes queued.
    pub b_cnt: u32,
    b_in: u32,
    /// `b_out`: the oldest event's offset.
    pub b_out: u32,
    /// `b_read`: bytes of the oldest event read(2) has delivered.
    pub b_read: u32,
    /// `cnt_lost`: events lost since the last MON_IOCG_STATS.
    pub cnt_lost: u32,
    /// The next event of the recording.
    cursor: usize,
    /// Which pass over the recording `cursor` is in (0: the first).
    pass: u32,
    /// Room was made since the device last produced (or it never did).
    hungry: bool,
    /// When the reader first asked for events (pacing starts there), and
    /// the real time then in microseconds since the epoch (paced events
    /// are stamped from it).
    started: Option<(Instant, i64)>,
}

// SAFETY: the ring pointer is a mapping owned by the reader, used only by
// the supervisor thread that owns the reader.
unsafe impl Send for Reader {}

impl Drop for Reader {
    fn drop(&mut self) {
        // SAFETY: unmapping our own mapping of b_size bytes.
        unsafe { libc::munmap(self.ring.cast(), self.b_size as usize) };
    }
}

/// What placing an event needs to know of the world.
pub struct World<'a> {
    /// The recording.
    pub rec: &'a Recording,
    /// How events arrive.
    pub pace: Pace,
    /// Whether the ring is mapped by a program now (`mmap_active`); asked
    /// only when an event is about to be placed.
    pub mapped: &'a mut dyn FnMut(&Reader) -> bool,
}

impl Reader {
    /// A new reader of `bus`, its ring `BUFF_DFL` zeroed bytes, the
    /// program's description opened with `flags` (access mode, O_NONBLOCK).
    pub fn new(id: u32, bus: u16, flags: i32) -> std::io::Result<Reader> {
        let name = std::ffi::CString::new(format!("usbmon-ring-{id}")).unwrap();
        // SAFETY: memfd_create with a valid name; the fd is owned at once.
        let fd = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: fd is ours.
        let memfd = unsafe { OwnedFd::from_raw_fd(fd) };
        let path = std::ffi::CString::new(format!("/proc/self/fd/{fd}")).unwrap();
        let cflags = (flags & (libc::O_ACCMODE | libc::O_NONBLOCK)) | libc::O_CLOEXEC;
        // SAFETY: open of a path we made.
        let cfd = unsafe { libc::open(path.as_ptr(), cflags) };
        if cfd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: cfd is ours.
        let cfd = unsafe { OwnedFd::from_raw_fd(cfd) };
        // SAFETY: fstat into a local.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        unsafe { libc::fstat(fd, &mut st) };
        let mut r = Reader {
            id,
            bus,
            memfd,
            cfd,
            ino: st.st_ino,
            ring: std::ptr::null_mut(),
            b_size: 0,
            b_cnt: 0,
            b_in: 0,
            b_out: 0,
            b_read: 0,
            cnt_lost: 0,
            cursor: 0,
            pass: 0,
            hungry: true,
            started: None,
        };
        r.resize(BUFF_DFL)?;
        Ok(r)
    }

    /// A fresh zeroed ring of `size` bytes (as `get_zeroed_page` gives
    /// the kernel's): the queue and the lost count go.
    pub fn resize(&mut self, size: u32) -> std::io::Result<()> {
        let fd = self.memfd.as_raw_fd();
        // SAFETY: plain calls on our memfd and our own mapping.
        unsafe {
            if !self.ring.is_null() {
                libc::munmap(self.ring.cast(), self.b_size as usize);
                self.ring = std::ptr::null_mut();
            }
            if libc::ftruncate(fd, 0) < 0 || libc::ftruncate(fd, i64::from(size)) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            let p = libc::mmap(
                std::ptr::null_mut(),
                size as usize,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                0,
            );
            if p == libc::MAP_FAILED {
                return Err(std::io::Error::last_os_error());
            }
            self.ring = p.cast();
        }
        self.b_size = size;
        self.b_cnt = 0;
        self.b_in = 0;
        self.b_out = 0;
        self.b_read = 0;
        self.cnt_lost = 0;
        self.hungry = true;
        Ok(())
    }

    /// The ring's bytes.
    pub fn ring(&self) -> &[u8] {
        // SAFETY: the mapping is b_size bytes and lives as long as self.
        unsafe { std::slice::from_raw_parts(self.ring, self.b_size as usize) }
    }

    fn ring_mut(&mut self) -> &mut [u8] {
        // SAFETY: as above, and we hold self mutably.
        unsafe { std::slice::from_raw_parts_mut(self.ring, self.b_size as usize) }
    }

    /// The `len_cap` of the event at `off`.
    pub fn len_cap_at(&self, off: u32) -> u32 {
        let at = off as usize + H_LEN_CAP;
        u32::from_ne_bytes(self.ring()[at..at + 4].try_into().unwrap())
    }

    /// `len` bytes from `off`, wrapping at the end.
    pub fn get(&self, mut off: u32, len: u32) -> Vec<u8> {
        let mut out = Vec::with_capacity(len as usize);
        while out.len() < len as usize {
            let step = ((self.b_size - off) as usize).min(len as usize - out.len());
            out.extend_from_slice(&self.ring()[off as usize..off as usize + step]);
            off = (off + step as u32) % self.b_size;
        }
        out
    }

    fn put(&mut self, mut off: u32, mut src: &[u8]) {
        while !src.is_empty() {
            let step = ((self.b_size - off) as usize).min(src.len());
            let o = off as usize;
            self.ring_mut()[o..o + step].copy_from_slice(&src[..step]);
            src = &src[step..];
            off = (off + step as u32) % self.b_size;
        }
    }

    /// `mon_buff_area_alloc`: the event may wrap around the end.
    fn area_alloc(&mut self, size: u32) -> Option<u32> {
        let size = align64(size);
        if self.b_cnt + size > self.b_size {
            return None;
        }
        let off = self.b_in;
        self.b_cnt += size;
        self.b_in += size;
        if self.b_in >= self.b_size {
            self.b_in -= self.b_size;
        }
        Some(off)
    }

    /// `mon_buff_area_alloc_contiguous`: an event never wraps; a `'@'`
    /// filler covers the ring's tail.
    fn area_alloc_contiguous(&mut self, size: u32) -> Option<u32> {
        let size = align64(size);
        if self.b_cnt + size > self.b_size {
            return None;
        }
        if self.b_in + size > self.b_size {
            let fill = self.b_size - self.b_in;
            if self.b_cnt + size + fill > self.b_size {
                return None;
            }
            let at = self.b_in as usize;
            let ring = self.ring_mut();
            // The data area keeps its stale bytes, as in the kernel.
            ring[at..at + PKT_SIZE as usize].fill(0);
            ring[at + H_TYPE] = b'@';
            ring[at + H_LEN_CAP..at + H_LEN_CAP + 4]
                .copy_from_slice(&(fill - PKT_SIZE).to_ne_bytes());
            self.b_in = size;
            self.b_cnt += size + fill;
            Some(0)
        } else {
            let off = self.b_in;
            self.b_in = if self.b_in + size == self.b_size {
                0
            } else {
                self.b_in + size
            };
            self.b_cnt += size;
            Some(off)
        }
    }

    /// `mon_buff_area_free`.
    pub fn area_free(&mut self, size: u32) {
        let size = align64(size);
        self.b_cnt -= size;
        self.b_out += size;
        if self.b_out >= self.b_size {
            self.b_out -= self.b_size;
        }
        self.hungry = true;
    }

    /// `mon_bin_flush`: remove up to `n` events; the number removed.
    pub fn flush(&mut self, n: u32) -> u32 {
        let mut i = 0;
        while i < n && self.b_cnt != 0 {
            let len = self.len_cap_at(self.b_out);
            self.area_free(PKT_SIZE + len);
            i += 1;
        }
        self.b_read = 0;
        i
    }

    /// `mon_bin_queued`: events queued, fillers included.
    pub fn queued(&self) -> u32 {
        let (mut cur, mut bytes, mut n) = (self.b_out, 0, 0);
        while bytes < self.b_cnt {
            let size = align64(self.len_cap_at(cur) + PKT_SIZE);
            n += 1;
            cur += size;
            if cur >= self.b_size {
                cur -= self.b_size;
            }
            bytes += size;
        }
        n
    }

    /// The offsets of up to `max` queued events, oldest first.
    pub fn offsets(&self, max: u32) -> Vec<u32> {
        let (mut cur, mut bytes) = (self.b_out, 0);
        let mut out = Vec::new();
        while bytes < self.b_cnt && (out.len() as u32) < max {
            out.push(cur);
            let size = align64(self.len_cap_at(cur) + PKT_SIZE);
            cur += size;
            if cur >= self.b_size {
                cur -= self.b_size;
            }
            bytes += size;
        }
        out
    }

    /// The next event of the recording for this reader, skipping others',
    /// and starting the next pass at the end of one while passes are left.
    fn next_event(&mut self, world: &World) -> Option<usize> {
        let rec = world.rec;
        loop {
            match rec.events.get(self.cursor) {
                Some(e) if self.bus == 0 || e.bus == self.bus => return Some(self.cursor),
                Some(_) => self.cursor += 1,
                None => {
                    let more = world.pace.passes.is_none_or(|n| self.pass + 1 < n);
                    // A bus with no event is never a node; an empty
                    // recording would loop for nothing.
                    if !more
                        || !rec
                            .events
                            .iter()
                            .any(|e| self.bus == 0 || e.bus == self.bus)
                    {
                        return None;
                    }
                    self.pass += 1;
                    self.cursor = 0;
                }
            }
        }
    }

    /// When the reader started asking (the first call sets it now).
    fn start(&mut self) -> (Instant, i64) {
        *self.started.get_or_insert_with(|| {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_micros() as i64);
            (Instant::now(), now)
        })
    }

    /// How long after the reader's start (paced) or the recording's first
    /// event (not) event `i` of the current pass happens, in microseconds.
    fn offset_us(&self, world: &World, i: usize) -> i64 {
        let t0 = world.rec.events.first().map_or(0, |e| e.ts_us);
        (world.rec.events[i].ts_us - t0).max(0) + i64::from(self.pass) * world.rec.period_us()
    }

    /// When the next event arrives with pacing (None: no event is left,
    /// or no pacing).
    pub fn next_due(&mut self, world: &World) -> Option<Instant> {
        if !world.pace.recorded {
            return None;
        }
        let i = self.next_event(world)?;
        let after = self.offset_us(world, i) as u64;
        Some(self.start().0 + Duration::from_micros(after))
    }

    /// Whether every event of the recording was offered to this reader.
    pub fn used_up(&mut self, world: &World) -> bool {
        self.next_event(world).is_none()
    }

    /// The time stamp event `i` of the current pass gets, in microseconds
    /// since the epoch: the recording's own in its first pass without
    /// pacing, moved on by a period per pass; with pacing, the real time
    /// the reader started plus the event's offset (when it arrives).
    fn stamp_us(&mut self, world: &World, i: usize) -> i64 {
        let t0 = world.rec.events.first().map_or(0, |e| e.ts_us);
        let base = if world.pace.recorded {
            self.start().1
        } else {
            t0
        };
        base + self.offset_us(world, i)
    }

    /// The device: events arrive, as many of the pending (and, with
    /// pacing, due) ones as fit, in order; the first that does not fit
    /// waits for room (nothing is lost). Does something only when room was
    /// made since the last time, or an event has come due.
    pub fn produce(&mut self, world: &mut World) {
        self.start();
        let due = |r: &mut Reader, w: &World| r.next_due(w).is_none_or(|t| t <= Instant::now());
        if !(self.hungry || world.pace.recorded && due(self, world)) {
            return;
        }
        self.hungry = false;
        let mut contiguous = None;
        while let Some(i) = self.next_event(world) {
            if !due(self, world) {
                break;
            }
            let e = &world.rec.events[i];
            // mon_bin_event: the data (not the ISO descriptors) is capped
            // at a fifth of the ring.
            let lendesc = (e.ndesc().saturating_mul(ISODESC_LEN)).min(e.len_cap());
            let length = (e.len_cap() - lendesc).min(self.b_size / 5);
            let len_cap = length + lendesc;
            let mapped = *contiguous.get_or_insert_with(|| (world.mapped)(self));
            // mon_bin_error's 'E' events never wrap (64 bytes): it uses
            // the plain allocation even when mapped.
            let off = if mapped && e.kind() != b'E' {
                self.area_alloc_contiguous(PKT_SIZE + len_cap)
            } else {
                self.area_alloc(PKT_SIZE + len_cap)
            };
            let Some(off) = off else {
                break; // waits for room
            };
            let mut hdr = e.hdr;
            hdr[H_LEN_CAP..H_LEN_CAP + 4].copy_from_slice(&len_cap.to_ne_bytes());
            if world.pace.recorded || self.pass > 0 {
                let ts = self.stamp_us(world, i);
                hdr[H_TS_SEC..H_TS_SEC + 8]
                    .copy_from_slice(&ts.div_euclid(1_000_000).to_ne_bytes());
                hdr[H_TS_USEC..H_TS_USEC + 4]
                    .copy_from_slice(&(ts.rem_euclid(1_000_000) as i32).to_ne_bytes());
            }
            self.put(off, &hdr);
            let data = &world.rec.events[i].data[..len_cap as usize];
            self.put((off + PKT_SIZE) % self.b_size, data);
            self.cursor += 1;
        }
    }
}
