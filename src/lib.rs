//! rtrace's library: the layers of the tracer, from the ptrace engine down
//! to the output sink (DESIGN.md says why, HACKING.md how). The `rtrace`
//! binary is a thin command line over [`trace::run`].
//!
//! Layers, each importing only from the ones below it, top first:
//! [`trace`] (the engine) > [`select`] > [`service`] (syscall handlers)
//! and [`diag`] (ABI misuse diagnostics) > [`ioctl`] (ioctl handlers) >
//! [`call`] (enter/leave, CT_* split) and [`decode`] (pieces both kinds of
//! handler share) > [`format`] (put primitives), [`sysent`] (the system
//! call table, one row per call) and [`stack`] (a stopped tracee's
//! stack, unwound and named) > [`fdtable`] (per-process
//! fd bookkeeping), [`kernel`] (the only module that talks ptrace and
//! reads tracee memory), [`output`] (the one writer) and [`filter`] (the
//! --filter language) > [`escape`] (tracee text made safe for a terminal),
//! [`fasthash`] and [`spelling`] > [`abi`], the kernel's own names,
//! numbers and declarations. `tests/layers.rs` reads every import and
//! fails on one that goes up this order or closes a circle (HACKING.md,
//! Layers).

// Every public item says what it is; CI's `clippy -D warnings` makes
// this a denial.
#![warn(missing_docs)]

pub mod abi;
pub mod call;
pub mod decode;
pub mod diag;
pub mod emu;
pub mod escape;
pub mod fasthash;
pub mod fdtable;
pub mod filter;
pub mod format;
pub mod ioctl;
pub mod kernel;
pub mod output;
pub mod select;
pub mod service;
pub mod spelling;
pub mod stack;
pub mod sysent;
pub mod trace;
