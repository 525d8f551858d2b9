//! The bottom layer: the kernel's names, numbers and declarations, as the
//! kernel itself gives them.
//!
//! Everything here is data a program in `tools/` generated from the
//! kernel's headers, BTF or trace-event formats (each generated file says
//! so at its top and names the command that remakes it), plus the few
//! plain definitions every decoder shares (the user_events event a
//! registration defines, which the fd table keeps). It imports nothing
//! from the rest of the crate, so any layer above may use any of it.

pub mod fs;
pub mod user_events;
