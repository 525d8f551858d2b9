//! rtrace and the machine rather than a tracee's call: the CPUs a task may
//! run on (affinity) and runs on, what rtrace may do (no-new-privs, the
//! seccomp filter flags this kernel takes), the names of network
//! interfaces in rtrace's own network namespace.

use std::io;

use super::procfs::stat_field;

/// Bytes of CPU mask asked for: room for 8192 CPUs. The kernel answers
/// with as many bytes as its own mask has (`cpumask_size()`), fewer.
const AFFINITY_BYTES: usize = 1024;

/// A task's CPU affinity mask, `sched_getaffinity(tid)`: the kernel's
/// bitmap bytes, as many as it returns (a multiple of 8). `tid` 0 is the
/// calling thread.
pub fn get_affinity(tid: i32) -> io::Result<Vec<u8>> {
    let mut buf = vec![0u8; AFFINITY_BYTES];
    // SAFETY: the kernel writes at most `AFFINITY_BYTES` into `buf`. The raw
    // call, because the C library's wrapper hides how many bytes it wrote.
    let r = unsafe {
        libc::syscall(
            libc::SYS_sched_getaffinity,
            tid,
            AFFINITY_BYTES,
            buf.as_mut_ptr(),
        )
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    buf.truncate(r as usize);
    Ok(buf)
}

/// Set task `tid`'s CPU affinity mask (0 is the calling thread). Works on
/// a tracee whether it runs or is stopped; needs the same owner or
/// CAP_SYS_NICE, as for any process.
pub fn set_affinity(tid: i32, mask: &[u8]) -> io::Result<()> {
    // SAFETY: the kernel reads `mask.len()` bytes from `mask`.
    let r = unsafe { libc::syscall(libc::SYS_sched_setaffinity, tid, mask.len(), mask.as_ptr()) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// The CPU the calling thread runs on now.
pub fn current_cpu() -> Option<usize> {
    // SAFETY: sched_getcpu takes no arguments.
    let cpu = unsafe { libc::sched_getcpu() };
    (cpu >= 0).then_some(cpu as usize)
}

/// The CPU task `tid` last ran on: field 39 (`processor`) of
/// /proc/TID/stat.
pub fn last_cpu(tid: i32) -> Option<usize> {
    stat_field(tid, 39)?.parse().ok()
}

/// Whether rtrace itself runs with no-new-privs (PR_GET_NO_NEW_PRIVS):
/// then so would the command it starts, untraced.
pub fn no_new_privs() -> bool {
    // SAFETY: PR_GET_NO_NEW_PRIVS takes no pointers.
    unsafe { libc::prctl(libc::PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1 }
}

/// Whether this kernel accepts `flags` for SECCOMP_SET_MODE_FILTER. It
/// checks them before it reads the program, so asking with none (NULL)
/// installs nothing: EINVAL for flags it refuses, EFAULT otherwise.
pub fn seccomp_filter_flags_valid(flags: u64) -> bool {
    // SAFETY: a NULL program is never read past the flags check.
    let r = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            flags,
            std::ptr::null::<libc::sock_fprog>(),
        )
    };
    r < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::EFAULT)
}

/// The name of network interface `index` in rtrace's own network namespace
/// (as strace names them: the tracee's namespace is usually the same, and
/// a name it cannot have is not printed wrongly, only as the number).
pub fn interface_name(index: u32) -> Option<String> {
    if index == 0 {
        return None;
    }
    let mut buf = [0 as libc::c_char; libc::IF_NAMESIZE];
    // SAFETY: `buf` has the IF_NAMESIZE bytes if_indextoname writes at most.
    let got = unsafe { libc::if_indextoname(index, buf.as_mut_ptr()) };
    if got.is_null() {
        return None;
    }
    // SAFETY: on success `buf` holds a NUL-terminated name.
    let name = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) };
    Some(name.to_string_lossy().into_owned())
}
