//! Writes to the emulated files: an event's payload to
//! `user_events_data` (write and writev, with the vfs's checks) and the
//! `enable` files' 0/1.

use super::*;

impl Supervisor {
    /// writev: the vfs's checks, then [`Supervisor::write`] on the segments
    /// (a 32-bit caller's iovecs are two 32-bit words).
    pub(super) fn writev(
        &mut self,
        tid: i32,
        f: usize,
        uiov: u64,
        vlen: u64,
        compat: bool,
    ) -> Result<i64, i32> {
        if !self.files[f].writable {
            return Err(libc::EBADF);
        }
        if vlen > UIO_MAXIOV {
            return Err(libc::EINVAL);
        }
        if vlen == 0 {
            return Ok(0);
        }
        let width = if compat { 8 } else { 16 };
        let mut raw = vec![0u8; vlen as usize * width];
        if !vm_read(tid, uiov, &mut raw) {
            return Err(libc::EFAULT);
        }
        let mut segs = Vec::new();
        let mut total = 0u64;
        for c in raw.chunks(width) {
            let (base, len) = if compat {
                // compat_iovec: a negative length is one with the top
                // bit set once sign-extended (iov_iter's check).
                let len = u32_at(c, 4) as i32;
                (u64::from(u32_at(c, 0)), len as i64 as u64)
            } else {
                (u64_at(c, 0), u64_at(c, 8))
            };
            if (len as i64) < 0 {
                return Err(libc::EINVAL);
            }
            if base.checked_add(len).is_none_or(|end| end > USER_TOP) {
                return Err(libc::EFAULT);
            }
            let len = len.min(MAX_RW_COUNT - total);
            segs.push((base, len));
            total += len;
        }
        if total == 0 {
            return Ok(0);
        }
        self.write(tid, f, &segs, true)
    }

    /// write(2) on an emulated file; `vectored`: the segments are checked
    /// already.
    pub(super) fn write(
        &mut self,
        tid: i32,
        f: usize,
        segs: &[(u64, u64)],
        vectored: bool,
    ) -> Result<i64, i32> {
        if !self.files[f].writable {
            return Err(libc::EBADF);
        }
        let segs: Vec<(u64, u64)> = if vectored {
            segs.to_vec()
        } else {
            let (buf, count) = (segs[0].0, segs[0].1.min(MAX_RW_COUNT));
            if buf.checked_add(count).is_none_or(|end| end > USER_TOP) {
                return Err(libc::EFAULT);
            }
            vec![(buf, count)]
        };
        let count: u64 = segs.iter().map(|s| s.1).sum();
        match self.files[f].kind {
            Kind::Enable(e) => self.enable_write(tid, e, &segs),
            Kind::Data(_) => self.data_write(tid, f, &segs, count),
        }
    }

    /// `event_enable_write`: "0" or "1" (each segment a write of its own,
    /// as for a file without write_iter).
    fn enable_write(&mut self, tid: i32, e: usize, segs: &[(u64, u64)]) -> Result<i64, i32> {
        let mut sum = 0i64;
        for &(base, len) in segs.iter().filter(|s| s.1 > 0) {
            let r = (|| {
                let mut tmp = vec![0u8; len.min(24) as usize];
                if !vm_read(tid, base, &mut tmp) {
                    return Err(libc::EFAULT);
                }
                let v = events::kstrtoull(&tmp, 10).ok_or(libc::EINVAL)?;
                if v > 1 {
                    return Err(libc::EINVAL);
                }
                if !self.events[e].alive {
                    return Err(libc::ENODEV);
                }
                self.set_enabled(e, v == 1);
                Ok(len as i64)
            })();
            match r {
                Ok(n) => sum += n,
                Err(err) if sum == 0 => return Err(err),
                Err(_) => break,
            }
        }
        Ok(sum)
    }

    /// `count` bytes at byte `off` of the segments.
    fn gather(tid: i32, segs: &[(u64, u64)], mut off: u64, len: u64) -> Option<Vec<u8>> {
        let mut out = Vec::with_capacity(len as usize);
        for &(base, n) in segs {
            if out.len() as u64 == len {
                break;
            }
            if off >= n {
                off -= n;
                continue;
            }
            let take = (n - off).min(len - out.len() as u64);
            let mut buf = vec![0u8; take as usize];
            if !vm_read(tid, base + off, &mut buf) {
                return None;
            }
            out.extend_from_slice(&buf);
            off = 0;
        }
        (out.len() as u64 == len).then_some(out)
    }

    /// `user_events_write_core`, and the record ftrace keeps.
    fn data_write(
        &mut self,
        tid: i32,
        f: usize,
        segs: &[(u64, u64)],
        count: u64,
    ) -> Result<i64, i32> {
        if count < 4 {
            return Err(libc::EFAULT);
        }
        let idx = Self::gather(tid, segs, 0, 4).ok_or(libc::EFAULT)?;
        let idx = i32::from_ne_bytes(idx[..4].try_into().unwrap());
        if idx < 0 {
            return Err(libc::EINVAL);
        }
        let Kind::Data(refs) = &self.files[f].kind else {
            return Err(libc::EBADF);
        };
        let e = *refs.get(idx as usize).ok_or(libc::ENOENT)?;
        let plen = count - 4;
        let ev = &self.events[e];
        if plen < ev.min_size() as u64 {
            return Err(libc::EINVAL);
        }
        if !ev.enabled {
            return Err(libc::EBADF);
        }
        let payload = Self::gather(tid, segs, 4, plen).ok_or(libc::EFAULT)?;
        if ENTRY + payload.len() > RB_MAX_DATA {
            // Too big for the ring buffer: dropped, the write succeeds.
            return Ok(count as i64);
        }
        let data = ftrace::entry(ev.id, tid, &payload);
        for fl in &ev.fields {
            if fl.loc == Loc::None {
                continue;
            }
            let word = u32_at(&data, fl.offset);
            let (off, size) = ((word & 0xffff) as usize, (word >> 16) as usize);
            let pos = if fl.loc == Loc::Rel {
                fl.offset + 4 + off
            } else {
                off
            } + size;
            if pos > data.len() || (fl.ensure_null() && (pos == 0 || data[pos - 1] != 0)) {
                return Err(libc::EFAULT);
            }
        }
        let record = Record {
            tid,
            comm: std::fs::read_to_string(format!("/proc/{tid}/comm"))
                .map(|c| c.trim_end_matches('\n').to_string())
                .unwrap_or_else(|_| "<...>".into()),
            cpu: cpu_of(tid),
            ns: monotonic_ns(),
            event: String::from_utf8_lossy(&ev.tp_name).into_owned(),
            fields: ev.fields.clone(),
            data,
        };
        if let Ok(mut r) = self.records.lock() {
            r.push(record);
        }
        Ok(count as i64)
    }
}
