//! The user_events ioctls on `user_events_data`: DIAG_IOCSREG,
//! DIAG_IOCSDEL and DIAG_IOCSUNREG, as trace_events_user.c answers them.

use super::*;

impl Supervisor {
    /// DIAG_IOCSREG (`user_events_ioctl_reg`).
    pub(super) fn reg(&mut self, tid: i32, f: usize, arg: u64) -> Result<i64, i32> {
        let reg = copy_sized(tid, arg, REG::SIZEOF)?;
        let (bit, esize) = (reg[REG::ENABLE_BIT.off], reg[REG::ENABLE_SIZE.off]);
        let flags = u16::from_ne_bytes([reg[REG::FLAGS.off], reg[REG::FLAGS.off + 1]]);
        let (addr, name_args) = (
            u64_at(&reg, REG::ENABLE_ADDR.off),
            u64_at(&reg, REG::NAME_ARGS.off),
        );
        if flags & !(REG_PERSIST | REG_MULTI_FORMAT) != 0 {
            return Err(libc::EINVAL);
        }
        if esize != 4 && esize != 8 {
            return Err(libc::EINVAL);
        }
        if addr % u64::from(esize) != 0 || bit > esize * 8 - 1 {
            return Err(libc::EINVAL);
        }
        if addr
            .checked_add(u64::from(esize))
            .is_none_or(|end| end > USER_TOP)
        {
            return Err(libc::EFAULT);
        }
        let tgid = notify::tgid_of(tid);
        if !self.procs.iter().any(|p| p.tgid == tgid) {
            // SAFETY: pidfd_open takes plain values; the fd is owned at once.
            let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, tgid, 0) } as i32;
            if fd >= 0 {
                self.procs.push(Proc {
                    tgid,
                    // SAFETY: a new fd of ours.
                    pidfd: unsafe { OwnedFd::from_raw_fd(fd) },
                    mem: std::fs::File::open(format!("/proc/{tgid}/mem")).ok(),
                    probe: addr,
                });
            }
        }
        if self
            .enablers
            .iter()
            .any(|e| e.tgid == tgid && e.addr == addr && e.bit == bit)
        {
            return Err(libc::EADDRINUSE);
        }
        let cmd = match notify::read_cstr(tid, name_args, MAX_EVENT_DESC) {
            Ok(c) => c,
            Err(libc::E2BIG) => return Err(libc::EINVAL),
            Err(e) => return Err(e),
        };
        let e = self.find_or_create(tid, &cmd, flags)?;
        let Kind::Data(refs) = &mut self.files[f].kind else {
            return Err(libc::ENOTTY);
        };
        let index = match refs.iter().position(|&r| r == e) {
            Some(i) => i,
            None => {
                refs.push(e);
                self.events[e].refs += 1;
                refs.len() - 1
            }
        };
        self.put(e); // the parse's reference
        if !write_bit(tid, addr, bit, self.events[e].enabled) {
            return Err(libc::ENOMEM);
        }
        self.enablers.push(Enabler {
            tgid,
            addr,
            bit,
            ev: e,
        });
        self.events[e].refs += 1;
        vm_write(
            tid,
            arg + REG::WRITE_INDEX.off as u64,
            &(index as u32).to_ne_bytes(),
        );
        Ok(0)
    }

    /// `user_event_parse_cmd` and `user_event_parse`: the event the command
    /// names, with a reference for the caller.
    fn find_or_create(&mut self, tid: i32, cmd: &[u8], flags: u16) -> Result<usize, i32> {
        let (name, args) = match cmd.iter().position(|&b| b == b' ') {
            Some(i) => (&cmd[..i], Some(&cmd[i + 1..])),
            None => (cmd, None),
        };
        // No text flags are supported.
        if name.contains(&b':') {
            return Err(libc::EINVAL);
        }
        if flags & REG_PERSIST != 0 && !perfmon_capable(tid) {
            return Err(libc::EPERM);
        }
        let multi = flags & REG_MULTI_FORMAT != 0;
        let argv = args.map(events::argv_split).unwrap_or_default();
        for (i, e) in self.events.iter_mut().enumerate() {
            if !e.alive || (e.flags & REG_MULTI_FORMAT != 0) != multi || e.name != name {
                continue;
            }
            if events::fields_match(&e.fields, &argv) {
                e.refs += 1;
                return Ok(i);
            }
            if !multi {
                return Err(libc::EADDRINUSE);
            }
        }
        let fields = events::parse_fields(args).map_err(|_| libc::EINVAL)?;
        if self.events.iter().filter(|e| e.alive).count() >= MAX_EVENTS {
            return Err(libc::EMFILE);
        }
        let (tp_name, system) = if multi {
            let t = [name, format!(".{:x}", self.multi_id).as_bytes()].concat();
            self.multi_id += 1;
            (t, "user_events_multi")
        } else {
            (name.to_vec(), "user_events")
        };
        self.events.push(Event {
            name: name.to_vec(),
            tp_name,
            system,
            flags,
            fields,
            refs: if flags & REG_PERSIST != 0 { 2 } else { 1 },
            enabled: false,
            // The lowest ID no live event has, as the kernel's IDA
            // (alloc_trace_event_type) hands a deleted event's ID out again.
            id: (FIRST_ID..)
                .find(|i| !self.events.iter().any(|e| e.alive && e.id == *i))
                .unwrap_or(FIRST_ID),
            alive: true,
        });
        let e = self.events.len() - 1;
        // The emulated tracer records the events it was told (all by
        // default) from their creation.
        if self
            .enable
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == name))
        {
            self.set_enabled(e, true);
        }
        Ok(e)
    }

    /// DIAG_IOCSDEL (`user_events_ioctl_del`).
    pub(super) fn del(&mut self, tid: i32, arg: u64) -> Result<i64, i32> {
        let name = match notify::read_cstr(tid, arg, MAX_EVENT_DESC) {
            Ok(c) => c,
            Err(libc::E2BIG) => return Err(libc::EINVAL),
            Err(e) => return Err(e),
        };
        let mut r = Err(libc::ENOENT);
        for i in 0..self.events.len() {
            let e = &self.events[i];
            if !e.alive || e.name != name {
                continue;
            }
            let persist = e.flags & REG_PERSIST != 0;
            if e.refs != u32::from(persist) {
                return Err(libc::EBUSY);
            }
            if persist && !perfmon_capable(tid) {
                return Err(libc::EPERM);
            }
            self.events[i].alive = false;
            r = Ok(0);
        }
        r
    }

    /// DIAG_IOCSUNREG (`user_events_ioctl_unreg`).
    pub(super) fn unreg(&mut self, tid: i32, arg: u64) -> Result<i64, i32> {
        let u = copy_sized(tid, arg, UNREG::SIZEOF)?;
        if UNREG::__RESERVED.read(&u) != Some(0) || UNREG::__RESERVED2.read(&u) != Some(0) {
            return Err(libc::EINVAL);
        }
        let (bit, addr) = (
            u[UNREG::DISABLE_BIT.off],
            u64_at(&u, UNREG::DISABLE_ADDR.off),
        );
        let tgid = notify::tgid_of(tid);
        if !self.procs.iter().any(|p| p.tgid == tgid) {
            return Err(libc::ENOENT);
        }
        let gone: Vec<usize> = self
            .enablers
            .iter()
            .filter(|e| e.tgid == tgid && e.addr == addr && e.bit == bit)
            .map(|e| e.ev)
            .collect();
        if gone.is_empty() {
            return Err(libc::ENOENT);
        }
        self.enablers
            .retain(|e| !(e.tgid == tgid && e.addr == addr && e.bit == bit));
        for e in gone {
            self.put(e);
        }
        if write_bit(tid, addr, bit, false) {
            Ok(0)
        } else {
            Err(libc::EFAULT)
        }
    }
}
