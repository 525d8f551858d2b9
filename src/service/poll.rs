//! Polling and event handlers: poll, ppoll, select, pselect6, the epoll
//! family, eventfd, futex and futex_waitv.

use crate::abi::xlat::poll::{
    EFD_FLAGS, EPOLL_CREATE_FLAGS, EPOLL_CTL_OPS, EPOLL_EVENTS, FUTEX_OPS, FUTEX_WAITV_FLAGS,
    FUTEX_WAITV_LAYOUT, FUTEX_WAKE_CMPS, FUTEX_WAKE_OPS, POLL_EVENTS,
};
use crate::call::{CallClass::Normal, Handler, default_in};
use crate::call::{CallCtx, CallType};
use crate::decode::put_fd;
use crate::decode::put_signal;
use crate::fdtable::FdTable;
use crate::format::{Naming, Printer};
use crate::kernel::Arch;
use crate::service::h;
use crate::service::raw::{
    Member, i32_at, open_returned, put_named, put_set, read_vec, returned_sep, u32_at, u64_at,
    uint_at, word_size,
};
use crate::service::resource::bit_members;
use crate::service::signal::put_sigset;
use crate::service::time::{put_call_timespec, put_timeval};
use crate::service::{Indirect, Mem};

/// `struct pollfd` entries shown before `..` without `-v`.
const POLLFDS_SHOWN: u64 = 32;
/// Most `struct pollfd` entries ever read (the kernel's own limit is
/// RLIMIT_NOFILE).
const MAX_POLLFDS: u64 = 4096;

/// A `struct pollfd` array: at enter with the requested events, at leave
/// (`revents`) only the entries that have some.
fn put_pollfds(p: &mut Printer, c: &CallCtx, name: &str, addr: u64, nfds: u64, revents: bool) {
    if nfds > MAX_POLLFDS || p.config().values_only >= 2 {
        p.ptr(name, addr);
        return;
    }
    let Some(b) = read_vec(p, addr, nfds as usize * 8).filter(|_| addr != 0 || nfds == 0) else {
        p.ptr(name, addr);
        return;
    };
    let shown = if p.config().verbose > 0 {
        MAX_POLLFDS
    } else {
        POLLFDS_SHOWN
    };
    p.open(name, "[", Naming::Elements);
    let mut printed = 0;
    for i in 0..nfds as usize {
        let fd = i32_at(&b, i * 8);
        let events = u16::from_le_bytes([b[i * 8 + 4], b[i * 8 + 5]]);
        let rev = u16::from_le_bytes([b[i * 8 + 6], b[i * 8 + 7]]);
        if revents && rev == 0 {
            continue;
        }
        if printed == shown {
            p.more();
            break;
        }
        printed += 1;
        p.open("", "{", Naming::Fields);
        put_fd(p, c.fds, "fd", fd as i64);
        if revents {
            p.flags("revents", rev as u64, POLL_EVENTS);
        } else {
            p.flags("events", events as u64, POLL_EVENTS);
        }
        p.close("}");
    }
    p.close("]");
}

/// `poll(fds, nfds, timeout)`: which fds are ready follows the result:
/// `= 1 [{fd=3, revents=POLLIN}]`.
pub fn poll_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_pollfds(p, c, "fds", c.args[0], c.args[1] as u32 as u64, false);
    p.uint("nfds", c.args[1] as u32 as u64);
    p.int("timeout", c.int(2));
    CallType::Done
}

/// `ppoll(fds, nfds, tmo_p, sigmask, sigsetsize)`
pub fn ppoll_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_pollfds(p, c, "fds", c.args[0], c.args[1] as u32 as u64, false);
    p.uint("nfds", c.args[1] as u32 as u64);
    put_call_timespec(p, c, "tmo_p", c.args[2]);
    put_sigset(p, "sigmask", c.args[3], c.args[4]);
    p.uint("sigsetsize", c.args[4]);
    CallType::Done
}

/// Leave half of poll and ppoll.
pub fn poll_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    p.result(c.result);
    put_timeout(p, c, failed);
    if failed || c.result <= 0 || p.config().values_only >= 2 {
        return;
    }
    returned_sep(p);
    put_pollfds(p, c, "fds", c.args[0], c.args[1] as u32 as u64, true);
}

/// Leave half of ppoll: with a timeout, the ready fds and what is left of
/// the timeout, which the kernel wrote back, as select's (`= 1 {fds=[{fd=3,
/// revents=POLLIN}], left={tv_sec=0, tv_nsec=999}}`; strace writes `= 1
/// ([{fd=3, revents=POLLIN}], left {...})`); without one, poll's.
pub fn ppoll_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if c.args[2] == 0 {
        return poll_in(p, c, failed);
    }
    p.result(c.result);
    put_timeout(p, c, failed);
    if failed || c.result <= 0 || p.config().values_only >= 2 {
        return;
    }
    open_returned(p);
    put_pollfds(p, c, "fds", c.args[0], c.args[1] as u32 as u64, true);
    put_call_timespec(p, c, "left", c.args[2]);
    p.close("}");
}

/// A wait that returned 0 ended by its timeout, as strace says it: `= 0
/// (Timeout)` (in JSON the result says it alone).
fn put_timeout(p: &mut Printer, c: &CallCtx, failed: bool) {
    if !failed && c.result == 0 && !p.json() {
        crate::decode::put_extended(p, "", |p, n| p.field(n, "Timeout"));
    }
}

/// Largest fd set decoded.
const MAX_FDSET_BITS: u64 = 65536;

/// An `fd_set` of `nfds` bits: `[3 4]`. The kernel reads whole `long`s.
fn put_fdset(p: &mut Printer, fds: &FdTable, name: &str, addr: u64, nfds: i64) {
    match fdset_members(p, fds, addr, nfds) {
        Some(members) => put_set(p, name, &members, false),
        None => p.ptr(name, addr),
    }
}

/// The members of an `fd_set` of `nfds` bits, or `None` where it is shown
/// as its address (NULL, unreadable, too large, `-VV`). The kernel reads
/// no more bits than the process's fd table has room for (`FDSize` in
/// /proc/TID/status), whatever larger `nfds` it is given: an `nfds` past
/// what is decoded (`select(INT_MAX, ...)`) is cut to that, as the
/// kernel cuts it. A smaller one is shown whole, as strace shows it (the
/// usbmon emulation answers for every bit below `nfds`).
fn fdset_members(p: &mut Printer, fds: &FdTable, addr: u64, nfds: i64) -> Option<Vec<Member>> {
    let nfds = match nfds {
        n if n > MAX_FDSET_BITS as i64 => n.min(crate::kernel::fd_table_size(p.pid()).unwrap_or(n)),
        n => n,
    };
    if addr == 0 || !(0..=MAX_FDSET_BITS as i64).contains(&nfds) || p.config().values_only >= 2 {
        return None;
    }
    let bits = word_size(p.arch()) * 8;
    let words = (nfds as usize).div_ceil(bits);
    let mut b = read_vec(p, addr, words * bits / 8)?;
    // Only the first nfds bits count.
    let nfds = nfds as usize;
    for bit in nfds..b.len() * 8 {
        b[bit / 8] &= !(1 << (bit % 8));
    }
    let mut members = bit_members(&b);
    // -y: each fd with its path, as an argument shows it
    // (`[3</dev/tty>]`); in JSON the numbers stay numbers.
    if p.config().decode_fds.any() && !p.json() {
        for m in &mut members {
            if let Member::Num(fd) = *m
                && let Some(shown) = crate::decode::fd_text(p, fds, fd as i32)
            {
                *m = Member::Name(format!("{fd}<{}>", shown.shown()));
            }
        }
    }
    Some(members)
}

/// i386's `select` (82) takes one pointer to all five arguments.
fn is_old_select(c: &CallCtx) -> bool {
    c.arch == Arch::I386 && c.nr == 82
}

fn select_sets(p: &mut Printer, c: &CallCtx) {
    let nfds = c.int(0);
    p.int("nfds", nfds);
    put_fdset(p, c.fds, "readfds", c.args[1], nfds);
    put_fdset(p, c.fds, "writefds", c.args[2], nfds);
    put_fdset(p, c.fds, "exceptfds", c.args[3], nfds);
}

/// `select(nfds, readfds, writefds, exceptfds, timeout)`: the ready sets
/// follow the result: `= 1 {readfds=[3]}`.
pub fn select_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    if is_old_select(c) {
        p.ptr("args", c.args[0]);
        return CallType::Done;
    }
    select_sets(p, c);
    put_timeval(p, "timeout", c.args[4]);
    CallType::Done
}

/// What pselect6's decoder reads through the pointer its last argument's
/// struct starts with (`service::Indirect`): the signal mask.
pub const PSELECT6_INDIRECT: &[Indirect] = &[Indirect {
    arg: 5,
    offset: 0,
    mem: Mem::In(crate::service::signal::SIGSET_SIZE),
}];

/// `pselect6(nfds, readfds, writefds, exceptfds, timeout, sigmask)`: the
/// last argument points to `{sigset pointer, its size}`.
pub fn pselect6_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    select_sets(p, c);
    put_call_timespec(p, c, "timeout", c.args[4]);
    let word = word_size(c.arch);
    if let Some(b) = crate::service::raw::open_struct_dyn(p, "sigmask", c.args[5], 2 * word) {
        let size = uint_at(&b, word, word);
        // strace's names: the mask and its size, as rt_sigprocmask's
        // `sigsetsize` (the man page's are `ss`, `ss_len`).
        put_sigset(p, "sigmask", uint_at(&b, 0, word), size);
        p.uint("sigsetsize", size);
        p.close_struct(true);
    }
    CallType::Done
}

/// Leave half of select: the ready sets and the time left, which the
/// kernel wrote back into the timeout (`left={tv_sec=4, tv_usec=999998}`).
pub fn select_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    select_leave(p, c, failed, |p, c| put_timeval(p, "left", c.args[4]));
}

/// Leave half of pselect6, as select's with a timespec left.
pub fn pselect6_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    select_leave(p, c, failed, |p, c| {
        put_call_timespec(p, c, "left", c.args[4])
    });
}

/// What select and pselect6 return besides the count, as strace shows
/// it: the ready sets, then, if a timeout was given, what is left of it
/// (`= 1 {readfds=[3], left={tv_sec=4, tv_nsec=999998147}}`).
fn select_leave(
    p: &mut Printer,
    c: &CallCtx,
    failed: bool,
    put_left: impl FnOnce(&mut Printer, &CallCtx),
) {
    p.result(c.result);
    put_timeout(p, c, failed);
    if failed || c.result <= 0 || p.config().values_only >= 2 || is_old_select(c) {
        return;
    }
    open_returned(p);
    let nfds = c.int(0);
    // A set with no fd ready is left out, as strace leaves it out.
    for (i, name) in [(1, "readfds"), (2, "writefds"), (3, "exceptfds")] {
        if c.args[i] == 0 {
            continue;
        }
        match fdset_members(p, c.fds, c.args[i], nfds) {
            Some(members) if members.is_empty() => {}
            Some(members) => put_set(p, name, &members, false),
            None => p.ptr(name, c.args[i]),
        }
    }
    if c.args[4] != 0 {
        put_left(p, c);
    }
    p.close("}");
}

/// `epoll_create1(flags)`
pub fn epoll_create1_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.flags("flags", c.args[0] as u32 as u64, EPOLL_CREATE_FLAGS);
    CallType::Done
}

/// `sizeof(struct epoll_event)`: packed on x86, for both ABIs.
const EPOLL_EVENT_SIZE: usize = 12;

/// One epoll event already copied: `{events=EPOLLIN, data={u32=6,
/// u64=4294967302}}`. `data` is the program's `union epoll_data` (a
/// pointer, an fd, a u32 or a u64): as strace does, it shows both the
/// union's low 32 bits (where an fd or a u32 sits) and the whole 64.
fn epoll_event_fields(p: &mut Printer, b: &[u8]) {
    p.flags("events", u32_at(b, 0) as u64, EPOLL_EVENTS);
    let data = u64_at(b, 4);
    p.open("data", "{", Naming::Fields);
    p.uint("u32", data as u32 as u64);
    p.uint("u64", data);
    p.close("}");
}

/// `epoll_ctl(epfd, op, fd, event)`
pub fn epoll_ctl_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "epfd", c.int(0));
    put_named(p, "op", c.int(1), EPOLL_CTL_OPS);
    put_fd(p, c.fds, "fd", c.int(2));
    if let Some(b) = p.open_struct::<EPOLL_EVENT_SIZE>("event", c.args[3]) {
        epoll_event_fields(p, &b);
        p.close_struct(true);
    }
    CallType::Done
}

/// Events shown before `..` without `-v`.
const EPOLL_EVENTS_SHOWN: usize = 32;
/// Events shown before `..` with `-v`.
const MAX_EPOLL_EVENTS: usize = 4096;

/// The `count` events an epoll wait returned.
fn put_epoll_events(p: &mut Printer, name: &str, addr: u64, count: usize) {
    if p.config().values_only >= 2 {
        p.ptr(name, addr);
        return;
    }
    let shown = if p.config().verbose > 0 {
        MAX_EPOLL_EVENTS
    } else {
        EPOLL_EVENTS_SHOWN
    };
    // Only the events shown are read.
    let read = count.min(shown);
    let Some(b) = read_vec(p, addr, read * EPOLL_EVENT_SIZE).filter(|_| addr != 0 || count == 0)
    else {
        p.ptr(name, addr);
        return;
    };
    p.open(name, "[", Naming::Elements);
    p.bounded(0..count, shown, |p, i| {
        p.open("", "{", Naming::Fields);
        epoll_event_fields(p, &b[i * EPOLL_EVENT_SIZE..]);
        p.close("}");
    });
    p.close("]");
}

/// `epoll_wait(epfd, events, maxevents, timeout)` and the pwait forms:
/// the events at leave.
pub fn epoll_wait_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "epfd", c.int(0));
    CallType::NotDone
}

fn epoll_wait_common(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if failed {
        p.ptr("events", c.args[1]);
    } else {
        put_epoll_events(p, "events", c.args[1], c.result as usize);
    }
    p.int("maxevents", c.int(2));
}

/// Leave half of epoll_wait.
pub fn epoll_wait_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    epoll_wait_common(p, c, failed);
    p.int("timeout", c.int(3));
    p.equals();
    p.result(c.result);
}

/// Leave half of epoll_pwait (timeout in ms) and epoll_pwait2 (a timespec).
pub fn epoll_pwait_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    epoll_wait_common(p, c, failed);
    // epoll_pwait2 is 441 in both tables.
    if c.nr == 441 {
        crate::service::time::put_timespec64(p, "timeout", c.args[3]);
    } else {
        p.int("timeout", c.int(3));
    }
    put_sigset(p, "sigmask", c.args[4], c.args[5]);
    p.uint("sigsetsize", c.args[5]);
    p.equals();
    p.result(c.result);
}

/// `eventfd2(initval, flags)`
pub fn eventfd2_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.uint("initval", c.args[0] as u32 as u64);
    p.flags("flags", c.args[1] as u32 as u64, EFD_FLAGS);
    CallType::Done
}

/// FUTEX_WAKE_OP's val3: `{op=FUTEX_OP_SET, oparg=1, cmp=FUTEX_OP_CMP_GT, cmparg=0}`.
fn put_wake_op(p: &mut Printer, name: &str, v: u32) {
    let op = (v >> 28) & 0xf;
    let cmp = (v >> 24) & 0xf;
    // Sign-extend the two 12-bit arguments.
    let oparg = ((v << 8) as i32) >> 20;
    let cmparg = ((v << 20) as i32) >> 20;
    p.open(name, "{", Naming::Fields);
    p.flags("op", op as u64, FUTEX_WAKE_OPS);
    p.int("oparg", oparg as i64);
    put_named(p, "cmp", cmp as i64, FUTEX_WAKE_CMPS);
    p.int("cmparg", cmparg as i64);
    p.close("}");
}

/// `futex(uaddr, op, val, timeout, uaddr2, val3)`: the arguments the
/// operation uses, in order (an unused one before a used one prints raw).
/// The fourth argument keeps the name `timeout` when the operation takes
/// it as a number (futex(2)'s `val2`): a filter knows it by that one name.
pub fn futex_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let a = c.args;
    let op = a[1] as u32;
    p.ptr("uaddr", a[0]);
    p.flags("futex_op", op as u64, FUTEX_OPS);
    let val = a[2] as u32;
    match op & 0x7f {
        // FUTEX_WAIT
        0 => {
            p.uint("val", val as u64);
            put_call_timespec(p, c, "timeout", a[3]);
        }
        // FUTEX_WAKE
        1 => p.uint("val", val as u64),
        // FUTEX_FD
        2 => put_signal(p, "val", val as i32 as i64),
        // FUTEX_REQUEUE
        3 => {
            p.uint("val", val as u64);
            p.uint("timeout", a[3] as u32 as u64);
            p.ptr("uaddr2", a[4]);
        }
        // FUTEX_CMP_REQUEUE, FUTEX_CMP_REQUEUE_PI
        4 | 12 => {
            p.uint("val", val as u64);
            p.uint("timeout", a[3] as u32 as u64);
            p.ptr("uaddr2", a[4]);
            p.uint("val3", a[5] as u32 as u64);
        }
        // FUTEX_WAKE_OP
        5 => {
            p.uint("val", val as u64);
            p.uint("timeout", a[3] as u32 as u64);
            p.ptr("uaddr2", a[4]);
            put_wake_op(p, "val3", a[5] as u32);
        }
        // FUTEX_LOCK_PI, FUTEX_LOCK_PI2
        6 | 13 => put_call_timespec(p, c, "timeout", a[3]),
        // FUTEX_UNLOCK_PI, FUTEX_TRYLOCK_PI
        7 | 8 => {}
        // FUTEX_WAIT_BITSET
        9 => {
            p.uint("val", val as u64);
            put_call_timespec(p, c, "timeout", a[3]);
            p.ptr("uaddr2", a[4]);
            put_bitset(p, a[5] as u32);
        }
        // FUTEX_WAKE_BITSET
        10 => {
            p.uint("val", val as u64);
            p.ptr("timeout", a[3]);
            p.ptr("uaddr2", a[4]);
            put_bitset(p, a[5] as u32);
        }
        // FUTEX_WAIT_REQUEUE_PI
        11 => {
            p.uint("val", val as u64);
            put_call_timespec(p, c, "timeout", a[3]);
            p.ptr("uaddr2", a[4]);
        }
        _ => {
            p.hex("val", val as u64);
            p.hex("timeout", a[3]);
            p.hex("uaddr2", a[4]);
            p.hex("val3", a[5]);
        }
    }
    CallType::Done
}

/// A futex bitset: `FUTEX_BITSET_MATCH_ANY` or a hex mask.
fn put_bitset(p: &mut Printer, v: u32) {
    let sym = (v == u32::MAX).then_some("FUTEX_BITSET_MATCH_ANY");
    match sym {
        Some(s) if p.symbols() => p.symbol("val3", v as i64, Some(s)),
        _ => p.hex("val3", v as u64),
    }
}

/// `futex_waitv(waiters, nr_futexes, flags, timeout, clockid)`: each
/// waiter's value, address and flags (`__reserved` only when it is not
/// zero, as strace shows it), an unreadable tail ending it; the absolute
/// timeout and the clock it is on.
pub fn futex_waitv_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let count = c.args[1] & 0xffff_ffff;
    let size = FUTEX_WAITV_LAYOUT
        .iter()
        .map(|f| f.off + f.size)
        .max()
        .unwrap_or(0);
    let limit = crate::service::raw::array_limit(p);
    crate::service::raw::put_array(p, "waiters", c.args[0], (count, size, limit), |p, b| {
        p.open("", "{", Naming::Fields);
        for f in FUTEX_WAITV_LAYOUT {
            let v = uint_at(b, f.off, f.size);
            match f.name {
                "val" => p.hex(f.name, v),
                "uaddr" => p.ptr(f.name, v),
                "flags" => p.flags(f.name, v, FUTEX_WAITV_FLAGS),
                _ if v != 0 => p.hex(f.name, v),
                _ => {}
            }
        }
        p.close("}");
    });
    p.uint("nr_futexes", count);
    p.hex("flags", c.args[2] & 0xffff_ffff);
    crate::service::time::put_timespec64(p, "timeout", c.args[3]);
    crate::service::time::put_clockid(p, "clockid", c.int(4));
    CallType::Done
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("futex_waitv", futex_waitv_out, default_in, Normal),
    h("_newselect", select_out, select_in, Normal),
    h("epoll_create1", epoll_create1_out, default_in, Normal),
    h("epoll_ctl", epoll_ctl_out, default_in, Normal),
    h("epoll_pwait", epoll_wait_out, epoll_pwait_in, Normal),
    h("epoll_pwait2", epoll_wait_out, epoll_pwait_in, Normal),
    h("epoll_wait", epoll_wait_out, epoll_wait_in, Normal),
    h("eventfd2", eventfd2_out, default_in, Normal),
    h("futex", futex_out, default_in, Normal),
    h("futex_time64", futex_out, default_in, Normal),
    h("poll", poll_out, poll_in, Normal),
    h("ppoll", ppoll_out, ppoll_in, Normal),
    h("ppoll_time64", ppoll_out, ppoll_in, Normal),
    h("pselect6", pselect6_out, pselect6_in, Normal),
    h("pselect6_time64", pselect6_out, pselect6_in, Normal),
    h("select", select_out, select_in, Normal),
];
