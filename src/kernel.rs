//! The unsafe corner: ptrace requests, syscall stop details and tracee memory;
//! waits and stops as values (`stop.rs`).
//!
//! Everything that talks to the kernel about a tracee lives here, so the
//! layers above see plain values: a [`SyscallStop`] with the call's number,
//! arguments or result, and memory reads that report how much they got rather
//! than failing. A failed read is data (the caller prints a pointer), never an
//! error that stops tracing.
//!
//! This is the one choke point: nothing outside `kernel` issues a ptrace
//! request or reads a tracee's memory. Inside it each kind of request has
//! its file, and everything public is re-exported here, so callers name
//! `kernel::Memory`, never the file: `syscall.rs` reads a syscall-stop
//! ([`syscall_stop`], [`Arch`]); `memory.rs` reads (and for injections and
//! emulations writes) a tracee's memory ([`Memory`], [`Snapshot`]);
//! `stop.rs` waits and resumes; `ptrace.rs` holds the other ptrace
//! requests (seize, interrupt, event messages, siginfo, registers);
//! `procfs.rs` what /proc says of a task; `host.rs` rtrace's own standing
//! and the machine (affinity, privileges, interface names); `fds.rs` and
//! `sockdiag.rs` what an fd is; `pidns.rs` pids across namespaces;
//! `genl.rs` generic netlink family names.

pub mod fds;
pub mod genl;
mod host;
mod memory;
pub mod pidns;
mod procfs;
mod ptrace;
mod sockdiag;
mod stop;
mod syscall;

pub use host::{
    current_cpu, get_affinity, interface_name, last_cpu, no_new_privs, seccomp_filter_flags_valid,
    set_affinity,
};
pub use memory::{FILE_NAME, FileId, Memory, PAGE, SameProgram, Snapshot, vm_read, vm_write};
pub use procfs::{
    PidNamespace, fd_table_size, has_cap_sys_admin, is_awake, is_thread_of, open_fds,
    pid_namespace, process_args, process_name, start_time, stat_field, threads,
};
pub use ptrace::{
    SIGINFO_SIZE, SavedCall, StackRegisters, event_msg, finish_rewritten, interrupt, kill,
    rewrite_call, seize, siginfo, stack_registers,
};
pub use stop::{Handled, Held, Resume, Stop, Waited, ready, wait};
pub use syscall::{
    Arch, SyscallOp, SyscallStop, X32_SYSCALL_BIT, decode_from_registers, syscall_stop,
};
