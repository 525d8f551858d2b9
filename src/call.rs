//! The call layer: call-enter and call-leave, the CT_* split, `=` and results.
//!
//! The engine hands this layer a stopped process's call; it finds the
//! handler, opens the line (`name(`), lets the handler print the enter half,
//! and at leave replays the recording if the line was preempted, lets the
//! handler print the rest and closes the line. Debug assertions enforce the
//! handler contract written in HACKING.md: one `=` per call, a result for
//! every failed call, no NOTDONE handler without its own leave printer.

use std::borrow::Cow;

mod dump;

pub use dump::dumped_buffer;

use crate::fdtable::FdTable;
use crate::format::{ConstStyle, FormatConfig, FormatState, Naming, Printer};
use crate::kernel::{Arch, Memory};
use crate::output::{Output, Style};
use crate::sysent::Signature;

/// Where the enter half of a call ends: returned by a handler's `out`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallType {
    /// All parameters printed; the layer prints `) = ` and waits for the result.
    Done,
    /// More parameters follow at leave; the `in` printer prints them, then
    /// `equals` and `result`.
    NotDone,
    /// All parameters printed, and the call is not expected to return
    /// (exit, execve): no `=` unless it fails.
    NoReturn,
}

/// What the engine must know about a call beyond printing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallClass {
    /// Nothing special.
    Normal,
    /// execve/execveat: success is reported by an exec event.
    Exec,
    /// rt_sigreturn/sigreturn: the result register is the restored context.
    Sigreturn,
    /// fork/vfork/clone/clone3: a child may start inside this call.
    Fork,
}

/// Typed per-call state a handler's enter half leaves for its leave half.
#[derive(Clone, Debug, Default)]
pub enum CallData {
    /// Nothing saved.
    #[default]
    None,
    /// A path the call opened, for the fd table (its bytes as they are).
    Path(Vec<u8>),
    /// An input the kernel overwrites before the leave (recvmmsg's
    /// timeout), copied at enter so the call shows what it was given.
    Input(Vec<u8>),
    /// A value-result length (a `socklen_t` the call reads and then
    /// overwrites: getsockname's addrlen, recvmsg's msg_namelen), as the
    /// call was given it, so it prints `[110 => 2]`.
    Len(u32),
    /// recvmmsg's inputs the kernel overwrites: its timeout (the bytes)
    /// and each message's msg_namelen, in order, as the call was given
    /// them.
    Mmsg {
        /// The timeout's bytes, if one was given and readable.
        timeout: Option<Vec<u8>>,
        /// Each message's msg_namelen.
        namelens: Vec<u32>,
    },
}

/// The arguments and state of one call, handed to its handler.
pub struct CallCtx<'a> {
    /// The call number in its arch's table.
    pub nr: u64,
    /// The ABI the call came through.
    pub arch: Arch,
    /// Raw argument registers.
    pub args: [u64; 6],
    /// Raw return value (valid in `in` only): negative errno on failure.
    pub result: i64,
    /// The call's declared parameters, if the table knows them.
    pub sig: Option<&'static Signature>,
    /// State saved by `out` for `in`.
    pub data: &'a mut CallData,
    /// The process's fd table (read-only for printing).
    pub fds: &'a FdTable,
    /// The stack pointer at the call's entry: rt_sigreturn finds the
    /// signal frame it restores there.
    pub sp: u64,
}

impl CallCtx<'_> {
    /// Argument `i` as a signed int (`int` parameters are 32 bits).
    pub fn int(&self, i: usize) -> i64 {
        self.args[i] as i32 as i64
    }
}

/// A handler's enter printer.
pub type OutFn = fn(&mut Printer, &mut CallCtx) -> CallType;
/// A handler's leave printer; `failed` tells whether results may be read.
pub type InFn = fn(&mut Printer, &mut CallCtx, bool);

/// One syscall handler: a table entry `{name, out, in}` as in trace(1).
pub struct Handler {
    /// The call's name.
    pub name: &'static str,
    /// Enter printer.
    pub out: OutFn,
    /// Leave printer.
    pub r#in: InFn,
    /// Engine class.
    pub class: CallClass,
}

/// A call in progress in one process.
#[derive(Clone)]
pub struct Call {
    /// Its number.
    pub nr: u64,
    /// Its ABI.
    pub arch: Arch,
    /// The name printed (from the handler, the table, or `syscall_N`).
    pub name: Cow<'static, str>,
    /// Raw arguments from the enter stop.
    pub args: [u64; 6],
    /// Its handler.
    pub handler: &'static Handler,
    /// Its declared parameters.
    pub sig: Option<&'static Signature>,
    /// The split the handler chose.
    pub kind: CallType,
    /// Nesting state of its text.
    pub fmt: FormatState,
    /// Handler state from enter to leave.
    pub data: CallData,
    /// Instruction and stack pointer at enter (restart detection).
    pub ip: u64,
    /// Stack pointer at enter.
    pub sp: u64,
    /// Whether and when the call is printed.
    pub show: Show,
    /// Whether `-e trace=` selected it (printed, or counted by `-c`).
    pub selected: bool,
    /// When the call entered (for `-T`).
    pub entered: std::time::Instant,
    /// When the kernel last entered it: a restart after a signal is, for
    /// `-c` as for strace, a call of its own.
    pub attempt: std::time::Instant,
    /// The name `-c` counts the attempt under: the call's, or
    /// `restart_syscall` when the kernel restarted it through that call.
    pub attempt_name: Option<&'static str>,
    /// What `-e inject=` did to it, marked after its result.
    pub tamper: Tamper,
    /// Its user stack (`-k`, the `stacktrace` trigger), taken by the
    /// engine at the stop before the line is finished, printed after it.
    pub stack: Option<crate::stack::Stack>,
}

/// What `-e inject=` / `-e fault=` did to a call: its line says so after
/// the result, as strace's does (` (INJECTED)`, ` (DELAYED)`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tamper {
    /// It did not run: its result is the injected one.
    pub injected: bool,
    /// `poke_enter=`/`poke_exit=` wrote into the memory its arguments
    /// point to.
    pub poked: bool,
    /// It was held at its entry or exit (`delay_enter=`, `delay_exit=`).
    pub delayed: bool,
}

impl Tamper {
    /// The marks after the result, as strace prints them.
    fn marks(self) -> &'static str {
        match (self.poked, self.injected, self.delayed) {
            (true, true, true) => " (INJECTED: args, retval) (DELAYED)",
            (true, true, false) => " (INJECTED: args, retval)",
            (true, false, true) => " (INJECTED: args) (DELAYED)",
            (true, false, false) => " (INJECTED: args)",
            (false, true, true) => " (INJECTED) (DELAYED)",
            (false, true, false) => " (INJECTED)",
            (false, false, true) => " (DELAYED)",
            (false, false, false) => "",
        }
    }
}

impl Call {
    /// The call's text state, its name and its handler's view of it (with
    /// raw result `result`; 0 at enter), borrowed apart so that a printer
    /// writes the text while the handler reads the call.
    fn handler_view<'a>(
        &'a mut self,
        fds: &'a FdTable,
        result: i64,
    ) -> (&'a mut FormatState, &'a str, CallCtx<'a>) {
        let ctx = CallCtx {
            nr: self.nr,
            arch: self.arch,
            args: self.args,
            result,
            sig: self.sig,
            data: &mut self.data,
            fds,
            sp: self.sp,
        };
        (&mut self.fmt, &self.name, ctx)
    }
}

/// Whether a call is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    /// Printed as it happens.
    Live,
    /// Held back until its leave decides (status or expression filters).
    Deferred,
    /// Not printed (not selected); bookkeeping still happens.
    Hidden,
}

/// Whether a raw return value is an error (the kernel's -4095..-1 range).
pub fn is_error(rval: i64) -> bool {
    (-4095..0).contains(&rval)
}

/// The ERESTART* values the kernel turns into a restart or EINTR.
pub fn is_restart(rval: i64) -> bool {
    matches!(-rval, 512..=514 | 516)
}

impl Printer<'_> {
    /// Print the call's `=`: closes the parameter list with `)` if the
    /// handler has not, then `= `. Exactly once per call.
    pub fn equals(&mut self) {
        let state = self.state();
        debug_assert!(!state.equals_printed, "handler printed `=` twice");
        let closed = state.params_closed;
        if !closed {
            self.close(") ");
        }
        let state = self.state();
        state.params_closed = true;
        state.equals_printed = true;
        self.text("= ", Style::Plain);
    }

    /// Whether the call's `=` has been printed.
    pub fn equals_printed(&mut self) -> bool {
        self.state().equals_printed
    }

    /// Print a call's result: a number, or `-1 [ENAME]` for a failure.
    pub fn result(&mut self, rval: i64) {
        debug_assert!(self.state().equals_printed, "result before `=`");
        if is_error(rval) {
            // Error names stay under `-X raw`, as in strace; `-V` numbers them.
            let mut text = match errno_name(-rval) {
                Some(name) if self.config().consts != ConstStyle::Values => format!("-1 [{name}]"),
                _ => format!("-1 [{}]", -rval),
            };
            if self.config().errno_text
                && let Some(description) = errno_text(-rval)
            {
                text = format!("{text} ({description})");
            }
            self.text(&text, Style::Error);
        } else if self.state().style.raw {
            self.text(&crate::format::flags_hex(rval as u64), Style::Plain);
        } else if let Some(shown) = self.new_fd_text(rval) {
            let text = format!("{rval}<{}>", shown.shown());
            self.text(&text, Style::Plain);
        } else if let Some(text) = self.new_pid_text(rval) {
            self.text(&text, Style::Plain);
        } else {
            let mut buf = [0; 20];
            self.text(decimal(rval, &mut buf), Style::Plain);
        }
    }

    /// Under `-y` (`-yy`), the path (details) of the new fd a call
    /// returned (see [`crate::sysent::returns_fd`]), as the kernel names it
    /// now (under the BPF engine: `kernel::fds::describe_returned`).
    fn new_fd_text(&mut self, rval: i64) -> Option<crate::kernel::fds::FdText> {
        let set = self.config().decode_fds;
        if !set.any() || !self.state().result_fd {
            return None;
        }
        let fd = i32::try_from(rval).ok()?;
        if self.mem().is_captured() {
            let known = self.state().result_fd_path.take();
            let opened = self.state().result_fd_opened;
            return crate::kernel::fds::describe_returned(self.mem(), fd, set, known, opened);
        }
        crate::kernel::fds::describe(self.pid(), fd, set)
    }

    /// Under `-Y` or `--pidns-translation`, a result that is a pid
    /// (fork's child, getpid's own; see [`crate::sysent::returns_pid`])
    /// with its command or its number in rtrace's namespace.
    fn new_pid_text(&mut self, rval: i64) -> Option<String> {
        if !self.state().result_pid {
            return None;
        }
        crate::format::decorated_pid(self.config().decode_pids, self.pid(), rval).map(|(t, _)| t)
    }

    /// Print a result that is an address on success (`mmap`, `brk`).
    pub fn result_ptr(&mut self, rval: i64) {
        if is_error(rval) {
            self.result(rval);
        } else {
            self.text(&format!("0x{rval:x}"), Style::Plain);
        }
    }
}

/// `n` in decimal, written into `buf`: every call's result is printed
/// this way, and a heap string per result showed in instruction counts of
/// full tracing. 20 bytes hold `i64::MIN`.
fn decimal(n: i64, buf: &mut [u8; 20]) -> &str {
    let mut i = buf.len();
    let mut m = n.unsigned_abs();
    loop {
        i -= 1;
        buf[i] = b'0' + (m % 10) as u8;
        m /= 10;
        if m == 0 {
            break;
        }
    }
    if n < 0 {
        i -= 1;
        buf[i] = b'-';
    }
    std::str::from_utf8(&buf[i..]).expect("ASCII digits")
}

/// What an errno value means: the C library's text, as perror(3) prints
/// it, or for the kernel-internal values a program never sees (ERESTARTSYS
/// and its kin, 512 and up) the kernel's own description of them.
pub fn errno_text(errno: i64) -> Option<String> {
    let errno = i32::try_from(errno).ok()?;
    if errno >= 512 {
        return syscalls::Errno::new(errno).description().map(String::from);
    }
    let mut buf = [0u8; 128];
    // SAFETY: strerror_r writes at most buf.len() bytes, NUL-terminated,
    // into the buffer it is given; it keeps no pointer to it.
    let rc = unsafe { libc::strerror_r(errno, buf.as_mut_ptr().cast(), buf.len()) };
    let end = buf.iter().position(|&b| b == 0)?;
    let text = std::str::from_utf8(&buf[..end]).ok()?;
    // glibc answers an unknown number "Unknown error N": no description.
    (rc == 0 && !text.starts_with("Unknown error")).then(|| text.to_string())
}

/// The symbolic name of an errno value, including the kernel-internal ones.
pub fn errno_name(errno: i64) -> Option<&'static str> {
    syscalls::Errno::new(errno as i32).name()
}

/// What the call layer needs of the stopped process besides its call.
pub struct Stopped<'a> {
    /// The output layer.
    pub out: &'a mut Output,
    /// Formatting choices.
    pub cfg: &'a FormatConfig,
    /// The process's memory.
    pub mem: &'a mut Memory,
    /// Its pid (the thread id).
    pub pid: i32,
    /// Its thread group id (the process id), for JSON.
    pub tgid: i32,
    /// Its fd table.
    pub fds: &'a FdTable,
}

/// Print the enter half of `call`: `name(` and what its handler prints.
pub fn call_enter(t: Stopped, call: &mut Call) {
    // -yy: a socket's answers that may change are asked again for this call.
    crate::kernel::fds::next_call();
    let (show, handler) = (call.show, call.handler);
    let (nr, ip, arch) = (call.nr, call.ip, call.arch);
    let (fmt, name, mut ctx) = call.handler_view(t.fds, 0);
    let mut p = Printer::new(t.out, t.pid, t.cfg, fmt, t.mem, ctx.arch);
    match show {
        Show::Hidden => return,
        // JSON is written whole at leave; nothing of the line exists before.
        _ if t.cfg.json => {}
        Show::Deferred => p.output().record_start_deferred(t.pid),
        Show::Live => {
            p.output().newline_for(Some(t.pid));
            p.output().record_start(t.pid);
        }
    }
    // -n and -i, strace's `[ NR] [IP] ` before the name, are the call's
    // text: a replay after a cut repeats them.
    if let Some(prefix) = line_prefix(p.config(), nr, ip, arch) {
        p.text(&prefix, Style::Plain);
    }
    p.text(name, Style::CallName);
    p.open("", "(", Naming::Params);
    let pids = p.config().decode_pids;
    if (pids.comm || pids.pidns)
        && let Some(sig) = ctx.sig
    {
        let pids = sig
            .params
            .iter()
            .filter(|q| q.kind == crate::sysent::Kind::Pid);
        p.state().pid_params = pids.map(|q| q.name).collect();
    }
    let kind = if p.state().style.raw {
        raw_args(&mut p, &ctx, handler)
    } else {
        (handler.out)(&mut p, &mut ctx)
    };
    match kind {
        CallType::Done => p.equals(),
        CallType::NoReturn => {
            p.close(") ");
            p.state().params_closed = true;
        }
        CallType::NotDone => p.push_sep(),
    }
    if !t.cfg.json {
        p.output().record_stop(t.pid);
    }
    call.kind = kind;
}

/// Replay a preempted call's enter text (`*name(...`); when the recording
/// overflowed, print the `name(<..>` substitute. `resuming` marks it `*`.
pub fn call_replay(out: &mut Output, cfg: &FormatConfig, pid: i32, call: &Call, resuming: bool) {
    if out.record_replay(pid, resuming) {
        let tail = match call.kind {
            CallType::NotDone => ", ",
            CallType::NoReturn => ") ",
            CallType::Done => ") = ",
        };
        let prefix = line_prefix(cfg, call.nr, call.ip, call.arch).unwrap_or_default();
        out.text(
            Some(pid),
            &format!("{prefix}{}(<..>{tail}", call.name),
            Style::Plain,
        );
    }
}

/// `-n`'s and `-i`'s start of a call's line, `[ 102] [00007f...] `, if
/// either is asked for (in text: JSON has the number).
fn line_prefix(cfg: &FormatConfig, nr: u64, ip: u64, arch: Arch) -> Option<String> {
    if cfg.json || !(cfg.syscall_number || cfg.instruction_pointer) {
        return None;
    }
    let mut prefix = String::new();
    if cfg.syscall_number {
        prefix += &format!("[{nr:4}] ");
    }
    if cfg.instruction_pointer {
        prefix += &match arch {
            Arch::I386 | Arch::X32 => format!("[{:08x}] ", ip as u32),
            Arch::X86_64 => format!("[{ip:016x}] "),
        };
    }
    Some(prefix)
}

/// Print the leave half of `call` with raw result `rval`; `skip` ends it
/// without a result: a no-return call that succeeded (exec, exit), or, in
/// JSON, a call its process was killed or detached in.
///
/// A deferred call is printed now if `print`, else dropped; `duration` is
/// appended as ` <0.000123>` when given (`-T`).
pub fn call_leave(
    t: Stopped,
    call: &mut Call,
    rval: i64,
    skip: bool,
    print: bool,
    duration: Option<std::time::Duration>,
) {
    if call.show == Show::Hidden {
        // Not printed; its handler never ran, so its kind is unknown.
        return;
    }
    debug_assert!(!skip || call.kind == CallType::NoReturn || t.cfg.json);
    if t.cfg.json {
        if call.show != Show::Hidden && (call.show == Show::Live || print) {
            json_leave(t, call, rval, skip, duration);
        }
        return;
    }
    match call.show {
        Show::Hidden => return,
        Show::Deferred if !print => {
            t.out.discard(t.pid);
            return;
        }
        Show::Deferred => t.out.undefer(t.pid),
        Show::Live => {}
    }
    call_replay(t.out, t.cfg, t.pid, call, true);
    call.fmt.suffix = duration.map(|d| format!(" <{}.{:06}>", d.as_secs(), d.subsec_micros()));
    // Looked up by name, so only where an option shows them.
    let pids = t.cfg.decode_pids;
    call.fmt.result_fd =
        t.cfg.decode_fds.any() && crate::sysent::returns_fd(&call.name, &call.args);
    call.fmt.result_fd_path = match call.fmt.result_fd && t.mem.is_captured() {
        true => i32::try_from(rval).ok().and_then(|fd| t.fds.known_path(fd)),
        false => None,
    };
    call.fmt.result_fd_opened = crate::sysent::OPENS_BY_PATH.contains(&&*call.name);
    call.fmt.result_pid = (pids.comm || pids.pidns) && crate::sysent::returns_pid(&call.name);
    let failed = is_error(rval);
    // A no-return call that returned prints its result register: a failed
    // exec's error, or what rt_sigreturn restored (strace prints it).
    let sigreturn = call.handler.class == CallClass::Sigreturn;
    if !skip && (call.kind != CallType::NoReturn || failed || sigreturn) {
        let (kind, handler, tamper) = (call.kind, call.handler, call.tamper);
        let dump = dump::transferred(t.cfg, &call.name, call.arch, &call.args, rval, t.mem);
        let fd = call.args[0] as i32;
        let (fmt, name, mut ctx) = call.handler_view(t.fds, rval);
        let mut p = Printer::new(t.out, t.pid, t.cfg, fmt, t.mem, ctx.arch);
        if kind == CallType::NoReturn || p.state().style.raw {
            if !p.equals_printed() {
                p.equals();
            }
            p.result(rval);
        } else {
            (handler.r#in)(&mut p, &mut ctx, failed);
            debug_assert!(
                p.equals_printed(),
                "{name}: leave printer did not print `=`"
            );
        }
        if !tamper.marks().is_empty() {
            p.text(tamper.marks(), Style::Plain);
        }
        if let Some(bytes) = dump {
            dump::put(&mut p, false, fd, &bytes);
        }
    }
    if let Some(suffix) = call.fmt.suffix.take() {
        // A skipped leave leaves the enter text's soft space to separate.
        let suffix = if skip { suffix.trim_start() } else { &suffix };
        t.out.text(Some(t.pid), suffix, Style::Plain);
    }
    let sigreturn = call.handler.class == CallClass::Sigreturn;
    let returned = !skip && (call.kind != CallType::NoReturn || failed || sigreturn);
    timeline_slice(t.out, t.tgid, t.pid, call, returned.then_some(rval), None);
    t.out.record_clear(t.pid);
    t.out.newline();
    if let Some(stack) = call.stack.take() {
        put_stack(t.out, t.pid, stack);
    }
}

/// Print `stack` (`-k`) after the line it belongs to: strace's
/// ` > module(symbol+0xoff) [0xaddr]`, one frame a line, as continuation
/// lines of `pid` (the `PID| ` prefix with several processes).
pub fn put_stack(out: &mut Output, pid: i32, stack: crate::stack::Stack) {
    match stack {
        crate::stack::Stack::Frames { frames, truncated } => {
            for f in frames {
                out.continuation(pid, &format!("> {}", f.text()));
            }
            if truncated {
                // strace's line when --stack-trace-frame-limit cut it.
                out.continuation(pid, "> too many stack frames");
            }
        }
        crate::stack::Stack::Unsupported(why) => {
            out.continuation(pid, &format!("> ({why})"));
        }
    }
}

/// Add `stack` (`-k`) to a call's or signal's JSON object: `stack`, an
/// array of frames, and `stack_truncated` when the frame limit cut it;
/// or `stack_error` where it could not be unwound.
pub fn stack_json(obj: &mut serde_json::Value, stack: Option<crate::stack::Stack>) {
    let Some(map) = obj.as_object_mut() else {
        return;
    };
    match stack {
        Some(crate::stack::Stack::Frames { frames, truncated }) => {
            let frames = frames.iter().map(|f| f.json()).collect();
            map.insert("stack".into(), serde_json::Value::Array(frames));
            if truncated {
                map.insert("stack_truncated".into(), serde_json::Value::Bool(true));
            }
        }
        Some(crate::stack::Stack::Unsupported(why)) => {
            map.insert("stack_error".into(), serde_json::Value::from(why));
        }
        None => {}
    }
}

/// Version of the JSON Lines schema (see JSON.md).
pub const JSON_SCHEMA: u32 = 1;

/// Seconds since the epoch, now (the summary's time).
pub fn json_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(json_seconds)
        .unwrap_or(0.0)
}

/// Seconds since the epoch, for JSON events: of the event `out` is
/// writing (the BPF engine's records carry the kernel's time), or now.
pub fn json_time(out: &Output) -> f64 {
    let now = std::time::SystemTime::now();
    let at = match out.event_time() {
        Some(at) => now.checked_sub(at.elapsed()).unwrap_or(now),
        None => now,
    };
    at.duration_since(std::time::UNIX_EPOCH)
        .map(json_seconds)
        .unwrap_or(0.0)
}

/// A time in seconds, to the microsecond: the nearest double to a whole
/// number of microseconds prints with at most six decimals.
pub fn json_seconds(d: std::time::Duration) -> f64 {
    d.as_micros() as f64 / 1e6
}

/// Finish a call in JSON: let its leave printer fill the values, then write
/// the call as one object on one line.
fn json_leave(
    t: Stopped,
    call: &mut Call,
    rval: i64,
    skip: bool,
    duration: Option<std::time::Duration>,
) {
    use serde_json::{Value, json};
    let failed = is_error(rval);
    let sigreturn = call.handler.class == CallClass::Sigreturn;
    let returned = !skip && (call.kind != CallType::NoReturn || failed || sigreturn);
    {
        let (kind, handler) = (call.kind, call.handler);
        let dump = returned
            .then(|| dump::transferred(t.cfg, &call.name, call.arch, &call.args, rval, t.mem))
            .flatten();
        let fd = call.args[0] as i32;
        let (fmt, _, mut ctx) = call.handler_view(t.fds, rval);
        let mut p = Printer::new(t.out, t.pid, t.cfg, fmt, t.mem, ctx.arch);
        if returned && kind != CallType::NoReturn && p.state().style.raw {
            default_in(&mut p, &mut ctx, failed);
        } else if returned && kind != CallType::NoReturn {
            (handler.r#in)(&mut p, &mut ctx, failed);
            if let Some(bytes) = dump {
                dump::put(&mut p, true, fd, &bytes);
            }
        } else if !p.state().params_closed {
            p.close(")");
        }
    }
    let nparams = call.sig.map_or(6, |s| s.params.len());
    let raw: Vec<Value> = call.args[..nparams.min(6)]
        .iter()
        .map(|&a| Value::from(a))
        .collect();
    let j = call.fmt.take_json();
    let mut obj = json!({
        "schema": JSON_SCHEMA,
        "type": "call",
        "time": json_time(t.out),
        "pid": t.tgid,
        "tid": t.pid,
        "name": &*call.name,
        "arch": match call.arch {
            Arch::X86_64 => "x86_64",
            Arch::I386 => "i386",
            Arch::X32 => "x32",
        },
        "raw": raw,
        "args": j.args.unwrap_or_default(),
    });
    let map = obj.as_object_mut().expect("an object");
    if returned {
        map.insert("result".into(), Value::from(rval));
        if failed {
            map.insert(
                "errno".into(),
                errno_name(-rval).map_or(Value::from(-rval), Value::from),
            );
            if let Some(text) = errno_text(-rval) {
                map.insert("error".into(), Value::from(text));
            }
        }
    } else {
        map.insert("result".into(), Value::Null);
    }
    if returned && call.tamper.injected {
        map.insert("injected".into(), Value::Bool(true));
    }
    if call.tamper.poked {
        map.insert("poked".into(), Value::Bool(true));
    }
    if call.tamper.delayed {
        map.insert("delayed".into(), Value::Bool(true));
    }
    if !j.returned.is_empty() {
        map.insert("returned".into(), Value::Object(j.returned));
    }
    if !j.extended.is_empty() {
        map.insert("extended".into(), Value::Array(j.extended));
    }
    if let Some(d) = duration {
        map.insert("duration".into(), Value::from(json_seconds(d)));
    }
    stack_json(&mut obj, call.stack.take());
    if t.out.timeline().is_some() {
        let args = obj.get("args").cloned();
        timeline_slice(t.out, t.tgid, t.pid, call, returned.then_some(rval), args);
    }
    t.out.json_line(&obj);
}

/// With `--timeline`: `call`'s slice on thread `tid` of process `pid`,
/// from its entry to now (or the time of the event being written), with
/// the text it printed or, in JSON, its `args`, and its result.
pub fn timeline_slice(
    out: &mut Output,
    pid: i32,
    tid: i32,
    call: &Call,
    result: Option<i64>,
    args: Option<serde_json::Value>,
) {
    if out.timeline().is_none() {
        return;
    }
    let end = out.event_time().unwrap_or_else(std::time::Instant::now);
    if let Some(timeline) = out.timeline() {
        timeline.slice(crate::output::timeline::Slice {
            pid,
            tid,
            name: &call.name,
            start: call.entered,
            end,
            args,
            result,
        });
    }
}

/// `-e raw=`'s enter half: every parameter the call takes (all six when
/// its table row is unknown) as its register in hex, as strace prints
/// them (`0xffffff9c`, `0`), and the split the call would have: a call
/// that does not return (exit, exec, sigreturn) prints no `=`.
fn raw_args(p: &mut Printer, ctx: &CallCtx, handler: &Handler) -> CallType {
    let count = ctx.sig.map_or(6, |s| s.params.len());
    for i in 0..count.min(6) {
        let name = ctx.sig.map_or("", |s| s.params[i].name);
        p.raw_hex(name, ctx.args[i]);
    }
    let no_return = matches!(handler.class, CallClass::Exec | CallClass::Sigreturn)
        || matches!(handler.name, "exit" | "exit_group");
    if no_return {
        CallType::NoReturn
    } else {
        CallType::Done
    }
}

/// The default leave printer: `=` if not yet printed, then the result.
pub fn default_in(p: &mut Printer, ctx: &mut CallCtx, _failed: bool) {
    if !p.equals_printed() {
        p.equals();
    }
    p.result(ctx.result);
}

#[cfg(test)]
mod tests {
    #[test]
    fn errno_text_is_the_c_librarys_or_the_kernels() {
        assert_eq!(
            super::errno_text(25).as_deref(),
            Some("Inappropriate ioctl for device")
        );
        assert_eq!(super::errno_text(512).as_deref(), Some("Restart syscall"));
        assert_eq!(super::errno_text(4000), None);
    }

    use super::decimal;

    #[test]
    fn decimal_writes_what_to_string_writes() {
        for n in [0, 1, 9, 10, 12345, -1, -4096, i64::MAX, i64::MIN] {
            let mut buf = [0; 20];
            assert_eq!(decimal(n, &mut buf), n.to_string());
        }
    }
}
