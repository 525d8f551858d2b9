//! Time handlers: sleeps, clocks, interval timers, POSIX timers and timer
//! fds; and the `struct timespec`/`timeval` printers other areas use.

use crate::abi::layout::{Field, extent};
use crate::abi::xlat::time::{
    ADJTIMEX_MODES, ADJTIMEX_STATE, ADJTIMEX_STATUS, CLOCKS, HZ, ITIMERS, KERNEL_TIMEX,
    SIGEV_NOTIFY, TFD_FLAGS, TFD_TIMER_FLAGS, TIMER_FLAGS, TIMEX_I386,
};
use crate::call::{CallClass::Normal, Handler, default_in};
use crate::call::{CallCtx, CallType};
use crate::decode::put_fd;
use crate::decode::put_signal;
use crate::format::{ConstStyle, FlagDef, Naming, Printer};
use crate::kernel::Arch;
use crate::service::h;
use crate::service::raw::out_param_in;
use crate::service::raw::{
    entered_done, i32_at, int_at, lookup, open_struct_dyn, put_int_ptr, put_named, read_vec,
    time_size, uint_at, word_size,
};

/// The i386 calls (403..=423) that take 64-bit `struct __kernel_timespec`
/// where their older twins take the 32-bit one.
pub fn is_time64(c: &CallCtx) -> bool {
    c.arch == Arch::I386 && (403..=423).contains(&c.nr)
}

/// Print a timespec already copied, at `off` in `b`, with `size`-byte fields.
fn timespec_fields(p: &mut Printer, name: &str, b: &[u8], off: usize, size: usize) {
    p.open(name, "{", Naming::Fields);
    p.int("tv_sec", int_at(b, off, size));
    p.int("tv_nsec", int_at(b, off + size, size));
    p.close("}");
}

/// Print a timeval already copied.
fn timeval_fields(p: &mut Printer, name: &str, b: &[u8], off: usize, size: usize) {
    p.open(name, "{", Naming::Fields);
    p.int("tv_sec", int_at(b, off, size));
    p.int("tv_usec", int_at(b, off + size, size));
    p.close("}");
}

fn put_timespec_sized(p: &mut Printer, name: &str, addr: u64, size: usize) {
    if addr == 0 || p.config().values_only >= 2 {
        p.ptr(name, addr);
        return;
    }
    match read_vec(p, addr, 2 * size) {
        Some(b) => timespec_fields(p, name, &b, 0, size),
        None => p.ptr(name, addr),
    }
}

/// A `struct timespec` of the call's ABI: `{tv_sec=1, tv_nsec=500000000}`.
pub fn put_timespec(p: &mut Printer, name: &str, addr: u64) {
    let size = time_size(p.arch());
    put_timespec_sized(p, name, addr, size);
}

/// A 64-bit `struct __kernel_timespec` (the i386 `*_time64` calls).
pub fn put_timespec64(p: &mut Printer, name: &str, addr: u64) {
    put_timespec_sized(p, name, addr, 8);
}

/// The size of call `c`'s `struct timespec`.
pub fn call_timespec_size(p: &Printer, c: &CallCtx) -> usize {
    if is_time64(c) {
        16
    } else {
        2 * time_size(p.arch())
    }
}

/// A timespec copied earlier: two fields of half `b`'s length each.
pub fn put_timespec_copy(p: &mut Printer, name: &str, b: &[u8]) {
    timespec_fields(p, name, b, 0, b.len() / 2);
}

/// The timespec of call `c`: 64-bit for the i386 `*_time64` calls.
pub fn put_call_timespec(p: &mut Printer, c: &CallCtx, name: &str, addr: u64) {
    if is_time64(c) {
        put_timespec64(p, name, addr);
    } else {
        put_timespec(p, name, addr);
    }
}

/// The `tv_nsec` values that ask utimensat for no time of the caller's
/// (`<linux/stat.h>`): the current time, or leave the time as it is.
const UTIME_SPECIAL: &[(i64, &str)] =
    &[((1 << 30) - 1, "UTIME_NOW"), ((1 << 30) - 2, "UTIME_OMIT")];

/// utimensat's `struct timespec times[2]` (access, then modification
/// time): `[{tv_sec=1, tv_nsec=2} /* 1970-01-01T00:00:01.000000002+0000 */,
/// UTIME_NOW]`. A special `tv_nsec` makes
/// the kernel ignore `tv_sec`, so the element prints as the name alone
/// (with `-V` and `-X raw`, as the struct; with `-X verbose`, the struct
/// and the name as a comment).
pub fn put_utime_pair(p: &mut Printer, c: &CallCtx, name: &str, addr: u64) {
    let size = if is_time64(c) { 8 } else { time_size(p.arch()) };
    if addr == 0 || p.config().values_only >= 2 {
        p.ptr(name, addr);
        return;
    }
    let Some(b) = read_vec(p, addr, 4 * size) else {
        p.ptr(name, addr);
        return;
    };
    // -X verbose: the whole struct with the special name beside it, as
    // strace writes it (`{tv_sec=0, tv_nsec=1073741823} /* UTIME_NOW */`).
    let verbose = p.config().consts == ConstStyle::Verbose && !p.json();
    p.open(name, "[", Naming::Elements);
    for off in [0, 2 * size] {
        let nsec = int_at(&b, off + size, size);
        match UTIME_SPECIAL.iter().find(|&&(v, _)| v == nsec) {
            Some(&(_, special)) if p.symbols() && !verbose => p.symbol("", nsec, Some(special)),
            Some(&(_, special)) if verbose => {
                timespec_fields(p, "", &b, off, size);
                p.note(special);
            }
            _ => {
                timespec_fields(p, "", &b, off, size);
                // The date each time sets, as strace comments it with or
                // without -v (a tv_nsec the kernel refuses has no date).
                if (0..1_000_000_000).contains(&nsec)
                    && let Some(date) = date_text(int_at(&b, off, size), nsec as u64)
                {
                    p.note(&date);
                }
            }
        }
    }
    p.close("]");
}

/// utimes' and futimesat's `struct timeval times[2]` (access, then
/// modification time), each with its date as a comment, as strace shows
/// them: `[{tv_sec=1, tv_usec=2} /* 1970-01-01T00:00:01.000002+0000 */,
/// ...]`; a `tv_usec` the kernel refuses (outside 0..1000000) gets none.
pub fn put_timeval_pair(p: &mut Printer, name: &str, addr: u64) {
    let size = time_size(p.arch());
    if addr == 0 || p.config().values_only >= 2 {
        p.ptr(name, addr);
        return;
    }
    let Some(b) = read_vec(p, addr, 4 * size) else {
        p.ptr(name, addr);
        return;
    };
    p.open(name, "[", Naming::Elements);
    for off in [0, 2 * size] {
        timeval_fields(p, "", &b, off, size);
        let (sec, usec) = (int_at(&b, off, size), int_at(&b, off + size, size));
        if (0..1_000_000).contains(&usec)
            && let Some(date) = timeval_date(sec, usec)
        {
            p.note(&date);
        }
    }
    p.close("]");
}

/// A timeval's date as strace writes it: microseconds, six digits (none
/// when 0).
fn timeval_date(sec: i64, usec: i64) -> Option<String> {
    let date = date_text(sec, 0)?;
    if usec == 0 {
        return Some(date);
    }
    let zone = date.len() - "+0000".len();
    Some(format!("{}.{usec:06}{}", &date[..zone], &date[zone..]))
}

/// A `struct timeval` of the call's ABI: `{tv_sec=1, tv_usec=500000}`.
pub fn put_timeval(p: &mut Printer, name: &str, addr: u64) {
    let size = time_size(p.arch());
    if addr == 0 || p.config().values_only >= 2 {
        p.ptr(name, addr);
        return;
    }
    match read_vec(p, addr, 2 * size) {
        Some(b) => timeval_fields(p, name, &b, 0, size),
        None => p.ptr(name, addr),
    }
}

/// A timeval inside a struct already copied (rusage).
pub fn put_timeval_at(p: &mut Printer, name: &str, b: &[u8], off: usize) {
    let size = time_size(p.arch());
    timeval_fields(p, name, b, off, size);
}

/// A `struct itimerspec`: `{it_interval={..}, it_value={..}}`.
fn put_itimerspec(p: &mut Printer, c: &CallCtx, name: &str, addr: u64) {
    let size = if is_time64(c) { 8 } else { time_size(p.arch()) };
    if let Some(b) = open_struct_dyn(p, name, addr, 4 * size) {
        timespec_fields(p, "it_interval", &b, 0, size);
        timespec_fields(p, "it_value", &b, 2 * size, size);
        p.close_struct(true);
    }
}

/// A `struct itimerval`: `{it_interval={..}, it_value={..}}`.
fn put_itimerval(p: &mut Printer, name: &str, addr: u64) {
    let size = time_size(p.arch());
    if let Some(b) = open_struct_dyn(p, name, addr, 4 * size) {
        timeval_fields(p, "it_interval", &b, 0, size);
        timeval_fields(p, "it_value", &b, 2 * size, size);
        p.close_struct(true);
    }
}

/// A clock id; negative ids (per-process CPU clocks) print as numbers.
pub fn put_clockid(p: &mut Printer, name: &str, id: i64) {
    put_named(p, name, id, CLOCKS);
}

use crate::abi::xlat::time::TIMER_ABSTIME;

/// `nanosleep(req, rem)`: the kernel writes `rem` (the time left) only
/// when a signal cuts the sleep short, so it is shown at leave, and only
/// then; a NULL `rem` ends the line at enter.
pub fn nanosleep_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_call_timespec(p, c, "req", c.args[0]);
    rem_out(p, c.args[1], false)
}

/// Leave half of nanosleep.
pub fn nanosleep_in(p: &mut Printer, c: &mut CallCtx, _failed: bool) {
    rem_in(p, c, c.args[1]);
}

/// `clock_nanosleep(clockid, flags, req, rem)`: as nanosleep, but an
/// absolute sleep (TIMER_ABSTIME) never writes `rem`.
pub fn clock_nanosleep_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_clockid(p, "clockid", c.int(0));
    p.flags("flags", c.args[1], TIMER_FLAGS);
    put_call_timespec(p, c, "req", c.args[2]);
    rem_out(p, c.args[3], c.args[1] & TIMER_ABSTIME != 0)
}

/// Leave half of clock_nanosleep.
pub fn clock_nanosleep_in(p: &mut Printer, c: &mut CallCtx, _failed: bool) {
    rem_in(p, c, c.args[3]);
}

/// The `rem` of a sleep at enter: a pointer, and the line done, when the
/// kernel will not write it.
fn rem_out(p: &mut Printer, rem: u64, never_written: bool) -> CallType {
    if rem == 0 || never_written {
        p.ptr("rem", rem);
        CallType::Done
    } else {
        CallType::NotDone
    }
}

/// The `rem` of a sleep at leave: the time left if the sleep was
/// interrupted (EINTR), else the pointer.
fn rem_in(p: &mut Printer, c: &mut CallCtx, rem: u64) {
    if p.equals_printed() {
        // `rem` went out at enter (rem_out said Done).
        return default_in(p, c, false);
    }
    let interrupted = c.result == -i64::from(libc::EINTR);
    out_param_in(p, c, !interrupted, "rem", rem, |p, name, addr| {
        put_call_timespec(p, c, name, addr)
    });
}

/// `clock_gettime(clockid, tp)`, `clock_getres(clockid, res)`: at leave.
pub fn clock_get_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_clockid(p, "clockid", c.int(0));
    CallType::NotDone
}

/// Leave half of clock_gettime and clock_getres.
pub fn clock_get_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    out_param_in(p, c, failed, "tp", c.args[1], |p, name, addr| {
        put_call_timespec(p, c, name, addr)
    });
}

/// `clock_settime(clockid, tp)`
pub fn clock_settime_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_clockid(p, "clockid", c.int(0));
    put_call_timespec(p, c, "tp", c.args[1]);
    CallType::Done
}

/// A `struct timezone`: `{tz_minuteswest=0, tz_dsttime=0}`.
fn put_timezone(p: &mut Printer, name: &str, addr: u64) {
    if let Some(b) = p.open_struct::<8>(name, addr) {
        p.int("tz_minuteswest", i32_at(&b, 0) as i64);
        p.int("tz_dsttime", i32_at(&b, 4) as i64);
        p.close_struct(true);
    }
}

/// `gettimeofday(tv, tz)`: both at leave.
pub fn gettimeofday_out(_p: &mut Printer, _c: &mut CallCtx) -> CallType {
    CallType::NotDone
}

/// Leave half of gettimeofday.
pub fn gettimeofday_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if failed {
        p.ptr("tv", c.args[0]);
        p.ptr("tz", c.args[1]);
    } else {
        put_timeval(p, "tv", c.args[0]);
        put_timezone(p, "tz", c.args[1]);
    }
    p.equals();
    p.result(c.result);
}

/// `settimeofday(tv, tz)`
pub fn settimeofday_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_timeval(p, "tv", c.args[0]);
    put_timezone(p, "tz", c.args[1]);
    CallType::Done
}

/// A `struct sigevent`.
pub fn put_sigevent(p: &mut Printer, name: &str, addr: u64) {
    let word = word_size(p.arch());
    // sigev_value, sigev_signo, sigev_notify, then the union.
    let union_at = word + 8;
    let Some(b) = open_struct_dyn(p, name, addr, union_at + 2 * word) else {
        return;
    };
    let notify = i32_at(&b, word + 4);
    // The program's `union sigval`, both members as strace shows them.
    let value = uint_at(&b, 0, word);
    p.open("sigev_value", "{", Naming::Fields);
    p.int("sival_int", value as u32 as i32 as i64);
    p.hex("sival_ptr", value);
    p.close("}");
    put_signal(p, "sigev_signo", i32_at(&b, word) as i64);
    put_named(p, "sigev_notify", notify as i64, SIGEV_NOTIFY);
    match notify {
        2 => {
            p.ptr("sigev_notify_function", uint_at(&b, union_at, word));
            p.ptr(
                "sigev_notify_attributes",
                uint_at(&b, union_at + word, word),
            );
        }
        4 => p.pid_field("sigev_notify_thread_id", i32_at(&b, union_at) as i64),
        _ => {}
    }
    p.close_struct(true);
}

/// `timer_create(clockid, sevp, timerid)`: the timer id at leave.
pub fn timer_create_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_clockid(p, "clockid", c.int(0));
    put_sigevent(p, "sevp", c.args[1]);
    CallType::NotDone
}

/// Leave half of timer_create.
pub fn timer_create_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    out_param_in(p, c, failed, "timerid", c.args[2], put_int_ptr);
}

/// `timer_settime(timerid, flags, new_value, old_value)`,
/// `timerfd_settime(fd, flags, new_value, old_value)`: the old value at leave.
fn settime_out(p: &mut Printer, c: &mut CallCtx, flags: &[FlagDef]) -> CallType {
    p.flags("flags", c.args[1], flags);
    put_itimerspec(p, c, "new_value", c.args[2]);
    if c.args[3] == 0 {
        p.ptr("old_value", 0);
        return CallType::Done;
    }
    CallType::NotDone
}

/// Leave half of the settime and gettime calls: the timer's old or
/// current value, argument `i`.
fn itimerspec_in(p: &mut Printer, c: &mut CallCtx, failed: bool, name: &str, i: usize) {
    if failed {
        p.ptr(name, c.args[i]);
    } else {
        put_itimerspec(p, c, name, c.args[i]);
    }
    p.equals();
    p.result(c.result);
}

/// `timer_settime(timerid, flags, new_value, old_value)`
pub fn timer_settime_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("timerid", c.int(0));
    settime_out(p, c, TIMER_FLAGS)
}

/// Leave half of timer_settime and timerfd_settime.
pub fn settime_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if entered_done(p, c) {
        return;
    }
    itimerspec_in(p, c, failed, "old_value", 3);
}

/// `timer_gettime(timerid, curr_value)`: the value at leave.
pub fn timer_gettime_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("timerid", c.int(0));
    CallType::NotDone
}

/// Leave half of timer_gettime and timerfd_gettime.
pub fn gettime_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    itimerspec_in(p, c, failed, "curr_value", 1);
}

/// `timer_delete(timerid)`, `timer_getoverrun(timerid)`
pub fn timer_id_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.int("timerid", c.int(0));
    CallType::Done
}

/// `timerfd_create(clockid, flags)`
pub fn timerfd_create_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_clockid(p, "clockid", c.int(0));
    p.flags("flags", c.args[1], TFD_FLAGS);
    CallType::Done
}

/// `timerfd_settime(fd, flags, new_value, old_value)`
pub fn timerfd_settime_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    settime_out(p, c, TFD_TIMER_FLAGS)
}

/// `timerfd_gettime(fd, curr_value)`: the value at leave.
pub fn timerfd_gettime_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_fd(p, c.fds, "fd", c.int(0));
    CallType::NotDone
}

/// `getitimer(which, curr_value)`: the value at leave.
pub fn getitimer_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_named(p, "which", c.int(0), ITIMERS);
    CallType::NotDone
}

/// Leave half of getitimer.
pub fn getitimer_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    out_param_in(p, c, failed, "curr_value", c.args[1], put_itimerval);
}

/// `setitimer(which, new_value, old_value)`: the old value at leave.
pub fn setitimer_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_named(p, "which", c.int(0), ITIMERS);
    put_itimerval(p, "new_value", c.args[1]);
    if c.args[2] == 0 {
        p.ptr("old_value", 0);
        return CallType::Done;
    }
    CallType::NotDone
}

/// Leave half of setitimer.
pub fn setitimer_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    if entered_done(p, c) {
        return;
    }
    out_param_in(p, c, failed, "old_value", c.args[2], put_itimerval);
}

/// Moved down to `decode` so the ioctl layer can use it too (PTP's times).
pub use crate::decode::date_text;

/// `times(buf)`: the process times at leave.
pub fn times_out(_p: &mut Printer, _c: &mut CallCtx) -> CallType {
    CallType::NotDone
}

/// A `struct tms` (four `clock_t`s, longs of the ABI), each with its
/// seconds as strace shows them: `{tms_utime=27 /* 0.27 s */, ...}`.
fn put_tms(p: &mut Printer, name: &str, addr: u64) {
    let word = word_size(p.arch());
    let Some(b) = open_struct_dyn(p, name, addr, 4 * word) else {
        return;
    };
    for (i, field) in ["tms_utime", "tms_stime", "tms_cutime", "tms_cstime"]
        .iter()
        .enumerate()
    {
        let ticks = int_at(&b, i * word, word);
        p.int(field, ticks);
        if p.symbols() {
            p.note(&ticks_text(ticks as u64));
        }
    }
    p.close_struct(true);
}

/// `clock_t` ticks as seconds with as many decimals as a tick needs
/// (`0.27 s` at 100 a second).
fn ticks_text(ticks: u64) -> String {
    let hz = HZ as u64;
    let width = (hz - 1).to_string().len();
    format!("{}.{:0width$} s", ticks / hz, ticks % hz)
}

/// `time(tloc)`: the seconds at leave, in `tloc` too (`[1795735294]`),
/// and the result's date after it, as strace shows it: `= 1795735294
/// (2026-11-26T23:21:34+0000)`.
pub fn time_out(_p: &mut Printer, _c: &mut CallCtx) -> CallType {
    CallType::NotDone
}

/// Leave half of time.
pub fn time_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    let word = word_size(p.arch());
    match read_vec(p, c.args[0], word).filter(|_| !failed && p.config().values_only < 2) {
        Some(b) => {
            let sec = int_at(&b, 0, word);
            p.open("tloc", "[", Naming::Elements);
            p.int("", sec);
            if let Some(date) = date_text(sec, 0) {
                p.note(&date);
            }
            p.close("]");
        }
        None => p.ptr("tloc", c.args[0]),
    }
    p.equals();
    p.result(c.result);
    if !failed
        && p.symbols()
        && let Some(date) = date_text(c.result, 0)
    {
        crate::decode::put_extended(p, "date", |p, n| p.field(n, &date));
    }
}

/// The `struct timex` layout a call reads: i386's 32-bit one for its
/// adjtimex and clock_adjtime, the explicit-padded `__kernel_timex`
/// (the same for both ABIs) everywhere else.
fn timex_layout(c: &CallCtx) -> &'static [Field] {
    if c.arch == Arch::I386 && !is_time64(c) {
        TIMEX_I386
    } else {
        KERNEL_TIMEX
    }
}

/// A `struct timex` at `addr`, every field as strace prints it: the
/// modes and status by name, the time as `{tv_sec, tv_usec}`. The kernel
/// writes the whole struct back on success, so it is printed at leave:
/// what the call did with it (after a failure, what went in).
fn put_timex(p: &mut Printer, name: &str, addr: u64, layout: &[Field]) {
    let Some(b) = open_struct_dyn(p, name, addr, extent(layout)) else {
        return;
    };
    for f in layout {
        let Some(v) = f.read(&b) else { continue };
        match f.name {
            "modes" => p.flags(f.name, v, ADJTIMEX_MODES),
            "status" => p.flags(f.name, v as u32 as u64, ADJTIMEX_STATUS),
            "time.tv_sec" => {
                p.open("time", "{", Naming::Fields);
                p.int("tv_sec", v as i64);
            }
            // strace prints the microseconds unsigned, at their width.
            "time.tv_usec" => {
                p.uint("tv_usec", v & (u64::MAX >> (64 - 8 * f.size)));
                p.close("}");
            }
            _ => p.int(f.name, v as i64),
        }
    }
    p.close_struct(true);
}

/// The leave of adjtimex and clock_adjtime: the struct the call wrote
/// back (`name`, argument `arg`), the result, and after a success the
/// clock's state by name: `= 5 (TIME_ERROR)`.
fn timex_in(p: &mut Printer, c: &CallCtx, failed: bool, name: &str, arg: usize) {
    put_timex(p, name, c.args[arg], timex_layout(c));
    p.equals();
    p.result(c.result);
    if let Some(state) = lookup(ADJTIMEX_STATE, c.result).filter(|_| !failed && p.symbols()) {
        crate::decode::put_extended(p, "state", |p, n| p.field(n, state));
    }
}

/// `adjtimex(txc_p)`: the struct at leave.
pub fn adjtimex_out(_p: &mut Printer, _c: &mut CallCtx) -> CallType {
    CallType::NotDone
}

/// Leave half of adjtimex.
pub fn adjtimex_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    timex_in(p, c, failed, "txc_p", 0);
}

/// `clock_adjtime(which_clock, utx)`: the clock by name; the struct at
/// leave.
pub fn clock_adjtime_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    put_clockid(p, "which_clock", c.int(0));
    CallType::NotDone
}

/// Leave half of clock_adjtime.
pub fn clock_adjtime_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    timex_in(p, c, failed, "utx", 1);
}

/// `utime(filename, times)`: the `struct utimbuf`'s two times, each with
/// its date: `{actime=1492350678 /* 2017-04-16T13:51:18+0000 */, ...}`.
pub fn utime_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    p.path("filename", c.args[0]);
    let size = time_size(p.arch());
    if let Some(b) = open_struct_dyn(p, "times", c.args[1], 2 * size) {
        for (i, field) in ["actime", "modtime"].iter().enumerate() {
            let sec = int_at(&b, i * size, size);
            p.int(field, sec);
            if let Some(date) = date_text(sec, 0) {
                p.note(&date);
            }
        }
        p.close_struct(true);
    }
    CallType::Done
}

/// Leave half of times.
pub fn times_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    out_param_in(p, c, failed, "buf", c.args[0], put_tms);
}

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[
    h("clock_getres", clock_get_out, clock_get_in, Normal),
    h("clock_getres_time64", clock_get_out, clock_get_in, Normal),
    h("clock_gettime", clock_get_out, clock_get_in, Normal),
    h("clock_gettime64", clock_get_out, clock_get_in, Normal),
    h(
        "clock_nanosleep",
        clock_nanosleep_out,
        clock_nanosleep_in,
        Normal,
    ),
    h(
        "clock_nanosleep_time64",
        clock_nanosleep_out,
        clock_nanosleep_in,
        Normal,
    ),
    h("adjtimex", adjtimex_out, adjtimex_in, Normal),
    h("clock_adjtime", clock_adjtime_out, clock_adjtime_in, Normal),
    h(
        "clock_adjtime64",
        clock_adjtime_out,
        clock_adjtime_in,
        Normal,
    ),
    h("clock_settime", clock_settime_out, default_in, Normal),
    h("clock_settime64", clock_settime_out, default_in, Normal),
    h("getitimer", getitimer_out, getitimer_in, Normal),
    h("gettimeofday", gettimeofday_out, gettimeofday_in, Normal),
    h("nanosleep", nanosleep_out, nanosleep_in, Normal),
    h("time", time_out, time_in, Normal),
    h("times", times_out, times_in, Normal),
    h("utime", utime_out, default_in, Normal),
    h("setitimer", setitimer_out, setitimer_in, Normal),
    h("settimeofday", settimeofday_out, default_in, Normal),
    h("timer_create", timer_create_out, timer_create_in, Normal),
    h("timer_delete", timer_id_out, default_in, Normal),
    h("timer_getoverrun", timer_id_out, default_in, Normal),
    h("timer_gettime", timer_gettime_out, gettime_in, Normal),
    h("timer_gettime64", timer_gettime_out, gettime_in, Normal),
    h("timer_settime", timer_settime_out, settime_in, Normal),
    h("timer_settime64", timer_settime_out, settime_in, Normal),
    h("timerfd_create", timerfd_create_out, default_in, Normal),
    h("timerfd_gettime", timerfd_gettime_out, gettime_in, Normal),
    h("timerfd_gettime64", timerfd_gettime_out, gettime_in, Normal),
    h("timerfd_settime", timerfd_settime_out, settime_in, Normal),
    h("timerfd_settime64", timerfd_settime_out, settime_in, Normal),
];

#[cfg(test)]
mod tests {
    use super::date_text;

    #[test]
    fn dates_are_utc_civil_dates() {
        assert_eq!(date_text(0, 0).unwrap(), "1970-01-01T00:00:00+0000");
        assert_eq!(
            date_text(1795376647, 112524250).unwrap(),
            "2026-11-22T19:44:07.112524250+0000"
        );
        assert_eq!(date_text(951782400, 0).unwrap(), "2000-02-29T00:00:00+0000");
        assert_eq!(date_text(-1, 0).unwrap(), "1969-12-31T23:59:59+0000");
        assert_eq!(
            date_text(253402300799, 0).unwrap(),
            "9999-12-31T23:59:59+0000"
        );
        assert_eq!(date_text(253402300800, 0), None);
        // PTP's comments take any year gmtime can.
        assert_eq!(
            crate::decode::date_text_any_year(400000000000, 0).unwrap(),
            "14645-06-30T15:06:40+0000"
        );
        assert_eq!(
            crate::decode::date_text_any_year(-123456780123, 0).unwrap(),
            "-1943-10-23T01:57:57+0000"
        );
        assert_eq!(date_text(i64::MIN, 0), None);
        assert_eq!(date_text(i64::MAX, 0), None);
    }
}
