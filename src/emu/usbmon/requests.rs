//! The supervisor's answers to the usbmon requests: open of a node,
//! ioctl (mon_bin_ioctl and, for 32-bit callers, mon_bin_compat_ioctl),
//! read(2) (vfs_read + mon_bin_read) and mmap (mon_bin_mmap's refusal of
//! writable mappings; readable ones are left to the kernel, which maps the
//! ring's memfd for real).

use super::abi::*;
use super::device::Reader;
use super::supervisor::{Answer, Resume, Supervisor};
use crate::kernel::{vm_read, vm_write};
use std::os::fd::AsRawFd;

/// `MAX_RW_COUNT`: what read(2) caps a count at.
const MAX_RW_COUNT: u64 = (i32::MAX as u64) & !4095;
/// x86_64's TASK_SIZE_MAX with 4-level paging: `access_ok`'s limit.
const USER_TOP: u64 = 0x7fff_ffff_f000;

/// A NUL-terminated string of `pid` at `addr` (at most PATH_MAX bytes).
fn read_path(pid: i32, addr: u64) -> Option<Vec<u8>> {
    crate::emu::notify::read_cstr(pid, addr, 4096).ok()
}

/// The bus of node name `name` (`usbmonN` as the kernel spells it):
/// Some(Some(bus)), Some(None) for a usbmon name that is no node, None
/// for another name.
fn usbmon_bus(name: &[u8]) -> Option<Option<u16>> {
    let digits = name.strip_prefix(b"usbmon")?;
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let canonical = std::str::from_utf8(digits)
        .ok()?
        .parse::<u32>()
        .ok()
        .filter(|n| n.to_string().as_bytes() == digits);
    Some(
        canonical
            .filter(|&n| n < u32::from(MAX_MINOR))
            .map(|n| n as u16),
    )
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_ne_bytes(b[at..at + 4].try_into().unwrap())
}

impl Supervisor {
    /// open or openat of `path` (relative to `dirfd`) with `flags`.
    pub(super) fn open(&mut self, pid: i32, id: u64, dirfd: i32, upath: u64, flags: i32) -> Answer {
        let Some(path) = read_path(pid, upath) else {
            return Answer::Continue;
        };
        if !self.valid(id) {
            return Answer::Done; // the caller went away
        }
        let name = if let Some(rest) = path.strip_prefix(b"/dev/") {
            rest.to_vec()
        } else if path.first() != Some(&b'/') {
            // Relative: only to a directory that is /dev.
            let dir = if dirfd == libc::AT_FDCWD {
                format!("/proc/{pid}/cwd")
            } else {
                format!("/proc/{pid}/fd/{dirfd}")
            };
            match std::fs::read_link(dir) {
                Ok(d) if d.as_os_str() == "/dev" => path,
                _ => return Answer::Continue,
            }
        } else {
            return Answer::Continue;
        };
        let Some(bus) = usbmon_bus(&name) else {
            return Answer::Continue;
        };
        if flags & libc::O_PATH != 0 {
            return Answer::Continue;
        }
        // No such node: the kernel's lookup fails (a bus the recording
        // does not have).
        let Some(bus) = bus.filter(|&b| self.rec().has_bus(u32::from(b))) else {
            return Answer::Err(libc::ENOENT);
        };
        if flags & libc::O_DIRECTORY != 0 {
            return Answer::Err(libc::ENOTDIR);
        }
        if flags & (libc::O_CREAT | libc::O_EXCL) == libc::O_CREAT | libc::O_EXCL {
            return Answer::Err(libc::EEXIST);
        }
        let reader = match Reader::new(self.readers.len() as u32, bus, flags) {
            Ok(r) => r,
            Err(_) => return Answer::Err(libc::ENOMEM),
        };
        let add = libc::seccomp_notif_addfd {
            id,
            flags: libc::SECCOMP_ADDFD_FLAG_SEND as u32,
            srcfd: reader.cfd.as_raw_fd() as u32,
            newfd: 0,
            newfd_flags: (flags & libc::O_CLOEXEC) as u32,
        };
        // SAFETY: the ioctl reads `add`; with SEND it also answers the call
        // with the new fd.
        let fd = unsafe { libc::ioctl(self.listener_fd(), libc::SECCOMP_IOCTL_NOTIF_ADDFD, &add) };
        if fd < 0 {
            return match std::io::Error::last_os_error().raw_os_error() {
                Some(libc::ENOENT) => Answer::Done,
                Some(libc::EMFILE) => Answer::Err(libc::EMFILE),
                _ => Answer::Err(libc::ENOMEM),
            };
        }
        self.readers.push(reader);
        Answer::Done
    }

    /// ioctl `cmd` on reader `r`; `compat` for a 32-bit caller.
    pub(super) fn ioctl(
        &mut self,
        pid: i32,
        id: u64,
        r: usize,
        cmd: u32,
        arg: u64,
        compat: bool,
    ) -> Answer {
        match cmd {
            MON_IOCQ_URB_LEN => {
                self.produce(r);
                let rd = &self.readers[r];
                Answer::Val(if rd.b_cnt != 0 {
                    i64::from(rd.len_cap_at(rd.b_out))
                } else {
                    0
                })
            }
            MON_IOCQ_RING_SIZE => Answer::Val(i64::from(self.readers[r].b_size)),
            MON_IOCT_RING_SIZE => {
                if !(u64::from(BUFF_MIN)..=u64::from(BUFF_MAX)).contains(&arg) {
                    return Answer::Err(libc::EINVAL);
                }
                if self.mapped(r) {
                    return Answer::Err(libc::EBUSY);
                }
                // CHUNK_ALIGN: up to a page; queued events and the lost
                // count go.
                match self.readers[r].resize((arg as u32).div_ceil(4096) * 4096) {
                    Ok(()) => Answer::Val(0),
                    Err(_) => Answer::Err(libc::ENOMEM),
                }
            }
            MON_IOCH_MFLUSH => {
                self.produce(r);
                Answer::Val(i64::from(self.readers[r].flush(arg as u32)))
            }
            MON_IOCX_GET | MON_IOCX_GETX if !compat => {
                let mut g = [0u8; 24];
                if !vm_read(pid, arg, &mut g) {
                    return Answer::Err(libc::EFAULT);
                }
                let alloc = u64::from_ne_bytes(g[16..24].try_into().unwrap());
                if alloc > 0x1000_0000 {
                    return Answer::Err(libc::EINVAL);
                }
                let hdrbytes = if cmd == MON_IOCX_GET {
                    PKT_SZ_API0
                } else {
                    PKT_SZ_API1
                };
                let hdr = u64::from_ne_bytes(g[..8].try_into().unwrap());
                let data = u64::from_ne_bytes(g[8..16].try_into().unwrap());
                self.produce(r);
                self.get_event(pid, id, r, hdr, hdrbytes, data, alloc as u32)
            }
            MON_IOCX_GET32 | MON_IOCX_GETX32 if compat => {
                let mut g = [0u8; 12];
                if !vm_read(pid, arg, &mut g) {
                    return Answer::Err(libc::EFAULT);
                }
                let hdrbytes = if cmd == MON_IOCX_GET32 {
                    PKT_SZ_API0
                } else {
                    PKT_SZ_API1
                };
                self.produce(r);
                let (hdr, data, alloc) = (u32_at(&g, 0), u32_at(&g, 4), u32_at(&g, 8));
                self.get_event(pid, id, r, hdr.into(), hdrbytes, data.into(), alloc)
            }
            MON_IOCX_MFETCH | MON_IOCX_MFETCH32 if compat == (cmd == MON_IOCX_MFETCH32) => {
                // {offvec, nfetch, nflush}: u64 pointer then two u32, or
                // three u32 for 32-bit callers.
                let (size, ptr) = if compat { (12, 4) } else { (16, 8) };
                let mut m = [0u8; 16];
                if !vm_read(pid, arg, &mut m[..size]) {
                    return Answer::Err(libc::EFAULT);
                }
                let offvec = if compat {
                    u64::from(u32_at(&m, 0))
                } else {
                    u64::from_ne_bytes(m[..8].try_into().unwrap())
                };
                let (nfetch, nflush) = (u32_at(&m, ptr), u32_at(&m, ptr + 4));
                self.produce(r);
                if nflush != 0 {
                    let n = self.readers[r].flush(nflush);
                    if !vm_write(pid, arg + ptr as u64 + 4, &n.to_ne_bytes()) {
                        return Answer::Err(libc::EFAULT);
                    }
                }
                self.produce(r);
                self.fetch(pid, id, r, arg + ptr as u64, offvec, nfetch)
            }
            MON_IOCG_STATS => {
                self.produce(r);
                let rd = &mut self.readers[r];
                let dropped = std::mem::take(&mut rd.cnt_lost);
                let queued = rd.queued();
                let arg = if compat { arg & 0xffff_ffff } else { arg };
                if !vm_write(pid, arg + 4, &dropped.to_ne_bytes())
                    || !vm_write(pid, arg, &queued.to_ne_bytes())
                {
                    return Answer::Err(libc::EFAULT);
                }
                Answer::Val(0)
            }
            // The VFS handles these on the open file before the driver:
            // the kernel does them on the program's description.
            c if [libc::FIOCLEX, libc::FIONCLEX, libc::FIONBIO, libc::FIOASYNC]
                .contains(&(c as libc::Ioctl)) =>
            {
                Answer::Continue
            }
            // The removed 2 (MON_IOCX_URB) and 9 (MON_IOCT_SETAPI), the
            // other ABI's layouts, anything else.
            _ => Answer::Err(libc::ENOTTY),
        }
    }

    /// `mon_bin_get_event` after its arguments were read.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn get_event(
        &mut self,
        pid: i32,
        id: u64,
        r: usize,
        hdr: u64,
        hdrbytes: u32,
        data: u64,
        alloc: u32,
    ) -> Answer {
        if let Some(a) = self.wait_event(
            r,
            id,
            pid,
            Resume::Get {
                hdr,
                hdrbytes,
                data,
                alloc,
            },
        ) {
            return a;
        }
        let rd = &self.readers[r];
        let out = rd.b_out;
        if !vm_write(
            pid,
            hdr,
            &rd.ring()[out as usize..(out + hdrbytes) as usize],
        ) {
            return Answer::Err(libc::EFAULT);
        }
        let len_cap = rd.len_cap_at(out);
        let step = len_cap.min(alloc);
        let off = if out + PKT_SIZE >= rd.b_size {
            0
        } else {
            out + PKT_SIZE
        };
        if step != 0 && !vm_write(pid, data, &rd.get(off, step)) {
            return Answer::Err(libc::EFAULT);
        }
        let rd = &mut self.readers[r];
        rd.area_free(PKT_SIZE + len_cap);
        rd.b_read = 0;
        Answer::Val(0)
    }

    /// `mon_bin_fetch` and MFETCH's write of the count to `nfetch_at`.
    pub(super) fn fetch(
        &mut self,
        pid: i32,
        id: u64,
        r: usize,
        nfetch_at: u64,
        offvec: u64,
        nfetch: u32,
    ) -> Answer {
        if let Some(a) = self.wait_event(
            r,
            id,
            pid,
            Resume::Fetch {
                nfetch_at,
                offvec,
                nfetch,
            },
        ) {
            return a;
        }
        let offsets = self.readers[r].offsets(nfetch);
        for (k, off) in offsets.iter().enumerate() {
            if !vm_write(pid, offvec.wrapping_add(4 * k as u64), &off.to_ne_bytes()) {
                return Answer::Err(libc::EFAULT);
            }
        }
        if !vm_write(pid, nfetch_at, &(offsets.len() as u32).to_ne_bytes()) {
            return Answer::Err(libc::EFAULT);
        }
        Answer::Val(0)
    }

    /// read(2) of `count` bytes to `buf`: vfs_read's checks, then
    /// mon_bin_read.
    pub(super) fn read(&mut self, pid: i32, id: u64, r: usize, buf: u64, count: u64) -> Answer {
        let acc = self.access(r);
        if acc != libc::O_RDONLY && acc != libc::O_RDWR {
            return Answer::Err(libc::EBADF);
        }
        if count > USER_TOP || buf > USER_TOP - count {
            return Answer::Err(libc::EFAULT);
        }
        self.produce(r);
        self.read_event(pid, id, r, buf, count.min(MAX_RW_COUNT))
    }

    /// mon_bin_read after the first production.
    pub(super) fn read_event(
        &mut self,
        pid: i32,
        id: u64,
        r: usize,
        mut buf: u64,
        mut count: u64,
    ) -> Answer {
        if let Some(a) = self.wait_event(r, id, pid, Resume::Read { buf, count }) {
            return a;
        }
        let rd = &mut self.readers[r];
        let len_cap = rd.len_cap_at(rd.b_out);
        let mut done = 0u64;
        if rd.b_read < PKT_SZ_API0 {
            let step = u64::from(PKT_SZ_API0 - rd.b_read).min(count) as u32;
            let at = (rd.b_out + rd.b_read) as usize;
            if step != 0 && !vm_write(pid, buf, &rd.ring()[at..at + step as usize]) {
                return Answer::Err(libc::EFAULT);
            }
            count -= u64::from(step);
            buf += u64::from(step);
            rd.b_read += step;
            done += u64::from(step);
        }
        if rd.b_read >= PKT_SZ_API0 {
            let step = u64::from(len_cap - (rd.b_read - PKT_SZ_API0)).min(count) as u32;
            let off = (rd.b_out + PKT_SIZE + (rd.b_read - PKT_SZ_API0)) % rd.b_size;
            if step != 0 && !vm_write(pid, buf, &rd.get(off, step)) {
                return Answer::Err(libc::EFAULT);
            }
            rd.b_read += step;
            done += u64::from(step);
        }
        if rd.b_read >= PKT_SZ_API0 + len_cap {
            rd.area_free(PKT_SIZE + len_cap);
            rd.b_read = 0;
        }
        Answer::Val(done as i64)
    }

    /// mmap of reader `r`: writable mappings are refused, with the checks
    /// sys_mmap and do_mmap make before the driver; others are the
    /// kernel's (the memfd is mapped for real).
    pub(super) fn mmap(&mut self, r: usize, len: u64, prot: u64, flags: u64, off: u64) -> Answer {
        if prot & libc::PROT_WRITE as u64 == 0 {
            return Answer::Continue;
        }
        let acc = self.access(r);
        let readable = acc == libc::O_RDONLY || acc == libc::O_RDWR;
        let writable = acc == libc::O_WRONLY || acc == libc::O_RDWR;
        if off & 4095 != 0 || len == 0 {
            return Answer::Err(libc::EINVAL);
        }
        if len.checked_add(4095).is_none() {
            return Answer::Err(libc::ENOMEM);
        }
        match (flags & 0xf) as i32 {
            libc::MAP_SHARED | libc::MAP_SHARED_VALIDATE if !writable => Answer::Err(libc::EACCES),
            libc::MAP_SHARED | libc::MAP_SHARED_VALIDATE | libc::MAP_PRIVATE if !readable => {
                Answer::Err(libc::EACCES)
            }
            libc::MAP_SHARED | libc::MAP_SHARED_VALIDATE | libc::MAP_PRIVATE => {
                Answer::Err(libc::EPERM)
            }
            _ => Answer::Err(libc::EINVAL),
        }
    }
}
