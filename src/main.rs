//! rtrace: a Linux syscall and ioctl tracer in the style of MINIX 3 trace(1).
//!
//! This file is the entry point only: the command line is read, checked
//! and turned into a trace by [`cli`].

// The binary's own doc is kept as the library's (lib.rs).
#![warn(missing_docs)]

mod cli;

use std::process::ExitCode;

use rtrace_cli::trace;

/// Runs before `main` (from `.init_array`, as the C library runs
/// constructors), ahead of the Rust runtime's start-up, which ignores
/// SIGPIPE: rtrace notes the signal state it was given, which the command
/// it starts must get unchanged.
#[used]
#[unsafe(link_section = ".init_array")]
static RECORD_INHERITED_SIGNALS: extern "C" fn() = {
    extern "C" fn record() {
        trace::record_inherited_signals();
    }
    record
};

fn main() -> ExitCode {
    cli::main()
}
