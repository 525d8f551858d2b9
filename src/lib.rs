//! rtrace's library: the layers of the tracer, from the ptrace engine down
//! to the output sink (see DESIGN.md in the project's shared docs and
//! HACKING.md). The `rtrace` binary is a thin command line over
//! [`trace::run`].
//!
//! Layers, each only calling the ones below it:
//! [`trace`] (engine) -> [`call`] (enter/leave, CT_* split) -> [`service`]
//! and [`ioctl`] (handlers) -> [`format`] (put primitives) -> [`output`]
//! (the one writer). [`kernel`] is the only module that talks ptrace and
//! reads tracee memory; [`fdtable`] is the per-process fd bookkeeping;
//! [`diag`] the ABI misuse diagnostics made from it. [`sysent`], below
//! [`call`], is the system call table, one row per call. [`abi`], below
//! them all, is the kernel's own names, numbers and declarations;
//! [`escape`] is how tracee-controlled text is rendered safe for a
//! terminal.

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
pub mod sysent;
pub mod trace;
