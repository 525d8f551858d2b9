//! i386 stacks, unwound by elfutils' libdw (its libdwfl part): framehop
//! walks x86_64 code only, and libdw's i386 backend unwinds a 32-bit
//! process from this 64-bit one. libdw is loaded at run time
//! (`libloading`), so building rtrace needs no elfutils headers; where it
//! cannot be loaded an i386 call says so in one line.
//!
//! libdw is used to unwind only: it gives the frames' addresses (and
//! whether each is an activation), which `stack.rs` names with
//! `stack/modules.rs` as it names x86_64's. The walk starts from the
//! registers of the ptrace stop (`kernel::stack_registers`) and reads the
//! stack through `kernel::Memory` (the thread callbacks below, instead of
//! libdw's own ptrace attach); libdw reads /proc/PID/maps and the mapped
//! files itself, and the vDSO's image from /proc/PID/mem, which rtrace's
//! ptrace stop lets it read. It is given no debug-file finder: it unwinds
//! from the files' own `.eh_frame` / `.debug_frame`, and never asks a
//! debuginfod server (`DEBUGINFOD_URLS`) over the network while the
//! tracee waits in its stop.
//!
//! The declarations follow elfutils' `libdwfl.h` (`Dwfl_Callbacks`,
//! `Dwfl_Thread_Callbacks` and the functions' signatures).

use std::ffi::{c_char, c_int, c_uint, c_void};
use std::mem::ManuallyDrop;
use std::ptr;
use std::rc::Rc;

use crate::kernel::{Arch, Memory};

/// The environment variable that names the library to load instead of
/// `libdw.so.1` (a path; the tests name one that is not there).
pub const LIBRARY_ENV: &str = "RTRACE_LIBDW";

/// The library's soname.
const LIBRARY: &str = "libdw.so.1";

/// libdw.h's `DWARF_CB_OK`: go on with the next frame.
const CB_OK: c_int = 0;
/// libdw.h's `DWARF_CB_ABORT`: stop the walk.
const CB_ABORT: c_int = 1;

/// An opaque libdwfl handle (`Dwfl`, `Dwfl_Thread`, `Dwfl_Frame`).
type Handle = *mut c_void;

/// libdwfl.h's `Dwfl_Callbacks`: how a session finds its modules' files
/// (libdw's standard finder for a live process's files; no debug files).
#[repr(C)]
struct Callbacks {
    find_elf: *const c_void,
    find_debuginfo: *const c_void,
    section_address: *const c_void,
    debuginfo_path: *mut *mut c_char,
}

/// libdwfl.h's `Dwfl_Thread_Callbacks`: how libdw gets a thread's
/// registers and memory; here from rtrace's own reads.
#[repr(C)]
struct ThreadCallbacks {
    next_thread: unsafe extern "C" fn(Handle, *mut c_void, *mut *mut c_void) -> libc::pid_t,
    get_thread: unsafe extern "C" fn(Handle, libc::pid_t, *mut c_void, *mut *mut c_void) -> bool,
    memory_read: unsafe extern "C" fn(Handle, u64, *mut u64, *mut c_void) -> bool,
    set_initial_registers: unsafe extern "C" fn(Handle, *mut c_void) -> bool,
    detach: Option<unsafe extern "C" fn(Handle, *mut c_void)>,
    thread_detach: Option<unsafe extern "C" fn(Handle, *mut c_void)>,
}

/// The thread callbacks every session is given (they must outlive it).
static THREAD_CALLBACKS: ThreadCallbacks = ThreadCallbacks {
    next_thread,
    get_thread,
    memory_read,
    set_initial_registers,
    detach: None,
    thread_detach: None,
};

/// A frame callback of `dwfl_getthread_frames`.
type FrameCallback = unsafe extern "C" fn(Handle, *mut c_void) -> c_int;

/// The loaded library: the functions rtrace calls.
pub struct Libdw {
    /// Never unloaded: libdw keeps thread-local state, and a run loads
    /// it once.
    _lib: ManuallyDrop<libloading::Library>,
    /// The session callbacks, which each session points at.
    callbacks: Box<Callbacks>,
    begin: unsafe extern "C" fn(*const Callbacks) -> Handle,
    end: unsafe extern "C" fn(Handle),
    errmsg: unsafe extern "C" fn(c_int) -> *const c_char,
    report_begin: unsafe extern "C" fn(Handle),
    proc_report: unsafe extern "C" fn(Handle, libc::pid_t) -> c_int,
    report_end: unsafe extern "C" fn(Handle, *const c_void, *mut c_void) -> c_int,
    attach_state: unsafe extern "C" fn(
        Handle,
        *mut c_void,
        libc::pid_t,
        *const ThreadCallbacks,
        *mut c_void,
    ) -> bool,
    getthread_frames:
        unsafe extern "C" fn(Handle, libc::pid_t, FrameCallback, *mut c_void) -> c_int,
    frame_pc: unsafe extern "C" fn(Handle, *mut u64, *mut bool) -> bool,
    state_registers: StateRegisters,
}

/// `dwfl_thread_state_registers`: a thread's first frame's registers.
type StateRegisters = unsafe extern "C" fn(Handle, c_int, c_uint, *const u64) -> bool;

/// Symbol `name` (NUL-terminated) of `lib` as a `T` (a function pointer
/// of the declared signature, or the address itself).
///
/// # Safety
/// `T` must be the symbol's true type.
unsafe fn get<T: Copy>(lib: &libloading::Library, name: &[u8]) -> Option<T> {
    // SAFETY: the caller gives the symbol's type.
    unsafe { lib.get::<T>(name).ok().map(|s| *s) }
}

impl Libdw {
    /// Load libdw.so.1 (or what [`LIBRARY_ENV`] names); None when it or
    /// one of its functions is not there.
    pub fn load() -> Option<Libdw> {
        let name = std::env::var(LIBRARY_ENV).unwrap_or_else(|_| LIBRARY.to_string());
        // SAFETY: loading runs libdw's (and libelf's) initialisers, which
        // set up their own state only.
        let lib = unsafe { libloading::Library::new(name.as_str()) }.ok()?;
        // SAFETY: each type below is the function's declaration in
        // elfutils' libdwfl.h (libdw's file finder is taken as an
        // address, which libdw calls itself).
        unsafe {
            Some(Libdw {
                callbacks: Box::new(Callbacks {
                    find_elf: get(&lib, b"dwfl_linux_proc_find_elf\0")?,
                    find_debuginfo: no_debuginfo as *const c_void,
                    section_address: ptr::null(),
                    debuginfo_path: ptr::null_mut(),
                }),
                begin: get(&lib, b"dwfl_begin\0")?,
                end: get(&lib, b"dwfl_end\0")?,
                errmsg: get(&lib, b"dwfl_errmsg\0")?,
                report_begin: get(&lib, b"dwfl_report_begin\0")?,
                proc_report: get(&lib, b"dwfl_linux_proc_report\0")?,
                report_end: get(&lib, b"dwfl_report_end\0")?,
                attach_state: get(&lib, b"dwfl_attach_state\0")?,
                getthread_frames: get(&lib, b"dwfl_getthread_frames\0")?,
                frame_pc: get(&lib, b"dwfl_frame_pc\0")?,
                state_registers: get(&lib, b"dwfl_thread_state_registers\0")?,
                _lib: ManuallyDrop::new(lib),
            })
        }
    }

    /// libdw's message for its last error (for a debugging note).
    fn error(&self) -> String {
        // SAFETY: dwfl_errmsg(-1) returns a static string, never NULL.
        let msg = unsafe { (self.errmsg)(-1) };
        if msg.is_null() {
            return String::new();
        }
        // SAFETY: a NUL-terminated string libdw owns.
        unsafe { std::ffi::CStr::from_ptr(msg) }
            .to_string_lossy()
            .into_owned()
    }
}

/// What the thread callbacks read during one walk.
struct Walk {
    /// The stopped thread's registers (`StackRegisters::i386`).
    regs: [u64; 9],
    /// The process's memory, set only while a walk runs.
    mem: *mut Memory,
    state_registers: StateRegisters,
}

/// One process as libdw sees it: a session with its modules, valid
/// while the process's maps stay as they were when it was made.
pub struct Process {
    lib: Rc<Libdw>,
    dwfl: Handle,
    /// The callbacks' argument, owned by the session (from
    /// `Box::into_raw`, freed after it ends): reached only through this
    /// pointer, by rtrace and libdw alike.
    walk: *mut Walk,
}

impl Drop for Process {
    fn drop(&mut self) {
        // SAFETY: `dwfl` came from dwfl_begin and is ended once; then no
        // callback can run, and `walk` is freed once.
        unsafe {
            (self.lib.end)(self.dwfl);
            drop(Box::from_raw(self.walk));
        }
    }
}

impl Process {
    /// A session for process `tgid`: its modules as /proc/PID/maps lists
    /// them now, its threads reached through the callbacks. Err: libdw's
    /// reason.
    pub fn new(lib: Rc<Libdw>, tgid: i32) -> Result<Process, String> {
        // SAFETY: the callbacks live in `lib`, which the session keeps.
        let dwfl = unsafe { (lib.begin)(&*lib.callbacks) };
        if dwfl.is_null() {
            return Err(lib.error());
        }
        let state_registers = lib.state_registers;
        let p = Process {
            lib,
            dwfl,
            walk: Box::into_raw(Box::new(Walk {
                regs: [0; 9],
                mem: ptr::null_mut(),
                state_registers,
            })),
        };
        // SAFETY: a live session; the thread callbacks are static and
        // their argument lives as long as the session (`p` owns both).
        unsafe {
            (p.lib.report_begin)(dwfl);
            let reported = (p.lib.proc_report)(dwfl, tgid);
            if (p.lib.report_end)(dwfl, ptr::null(), ptr::null_mut()) != 0 || reported != 0 {
                return Err(p.lib.error());
            }
            // No ELF: libdw takes the architecture (i386) from the
            // modules just reported.
            if !(p.lib.attach_state)(
                dwfl,
                ptr::null_mut(),
                tgid,
                &THREAD_CALLBACKS,
                p.walk.cast(),
            ) {
                return Err(p.lib.error());
            }
        }
        Ok(p)
    }

    /// The frames of stopped thread `tid`, whose registers are `regs`
    /// and whose memory `mem` reads: each frame's address and whether it
    /// is an activation (the innermost frame, or one a signal
    /// interrupted: its address is the instruction itself, not a return
    /// address). At most `max`; an error ends the walk with what was
    /// found.
    pub fn frames(
        &mut self,
        tid: i32,
        regs: [u64; 9],
        mem: &mut Memory,
        max: usize,
    ) -> Vec<(u64, bool)> {
        // SAFETY: the session's own walk; no callback runs now.
        unsafe {
            (*self.walk).regs = regs;
            (*self.walk).mem = mem;
        }
        let mut found = Found {
            frames: Vec::new(),
            max,
            frame_pc: self.lib.frame_pc,
        };
        // SAFETY: a live, attached session; `found` and the walk's memory
        // outlive the call, which runs the callbacks synchronously.
        unsafe {
            (self.lib.getthread_frames)(
                self.dwfl,
                tid,
                on_frame,
                (&mut found as *mut Found).cast(),
            );
        }
        // SAFETY: as above.
        unsafe { (*self.walk).mem = ptr::null_mut() };
        found.frames
    }
}

/// The frame callback's argument: the frames so far.
struct Found {
    frames: Vec<(u64, bool)>,
    max: usize,
    frame_pc: unsafe extern "C" fn(Handle, *mut u64, *mut bool) -> bool,
}

/// Each frame libdw unwinds: keep its address.
unsafe extern "C" fn on_frame(state: Handle, arg: *mut c_void) -> c_int {
    // SAFETY: `arg` is the `Found` of `Process::frames`, alive during it.
    let found = unsafe { &mut *arg.cast::<Found>() };
    let (mut pc, mut activation) = (0u64, false);
    // SAFETY: `state` is the frame libdw passes to this callback.
    if !unsafe { (found.frame_pc)(state, &mut pc, &mut activation) } {
        return CB_ABORT;
    }
    found.frames.push((pc, activation));
    if found.frames.len() >= found.max {
        CB_ABORT
    } else {
        CB_OK
    }
}

/// libdwfl.h's `find_debuginfo` callback that finds none: libdw's
/// standard one would also ask debuginfod servers.
unsafe extern "C" fn no_debuginfo(
    _: *mut c_void,
    _: *mut *mut c_void,
    _: *const c_char,
    _: u64,
    _: *const c_char,
    _: *const c_char,
    _: u32,
    _: *mut *mut c_char,
) -> c_int {
    -1
}

/// libdw lists threads only through `get_thread` here: no others.
unsafe extern "C" fn next_thread(_: Handle, _: *mut c_void, _: *mut *mut c_void) -> libc::pid_t {
    0
}

/// The thread asked for is the stopped one: its argument is the walk.
unsafe extern "C" fn get_thread(
    _: Handle,
    _: libc::pid_t,
    arg: *mut c_void,
    thread_arg: *mut *mut c_void,
) -> bool {
    // SAFETY: libdw passes a valid place for the thread's argument.
    unsafe { *thread_arg = arg };
    true
}

/// A 4-byte word of the tracee's memory, through `kernel::Memory`.
unsafe extern "C" fn memory_read(_: Handle, addr: u64, result: *mut u64, arg: *mut c_void) -> bool {
    // SAFETY: `arg` is the session's `Walk`; its `mem` is set (and
    // alive) only during `Process::frames`.
    let walk = unsafe { &mut *arg.cast::<Walk>() };
    // SAFETY: as above.
    let Some(mem) = (unsafe { walk.mem.as_mut() }) else {
        return false;
    };
    match mem.read_word(addr, Arch::I386) {
        Some(word) => {
            // SAFETY: libdw passes a valid place for the word.
            unsafe { *result = word };
            true
        }
        None => false,
    }
}

/// The first frame's registers: those of the ptrace stop.
unsafe extern "C" fn set_initial_registers(thread: Handle, arg: *mut c_void) -> bool {
    // SAFETY: `arg` is the walk `get_thread` gave this thread.
    let walk = unsafe { &*arg.cast::<Walk>() };
    // SAFETY: i386's DWARF registers 0..9 (eax..edi, eip), as libdw's
    // i386 backend numbers them.
    unsafe { (walk.state_registers)(thread, 0, 9, walk.regs.as_ptr()) }
}
