//! rtrace: a Linux syscall and ioctl tracer in the style of MINIX 3 trace(1).
//!
//! This file is the entry point only: the command line is read
//! ([`cli::parse`]), answered at once when it asks for no trace
//! ([`cli::info`]), checked and turned into the engine's configuration and
//! output ([`cli::setup`]), `trace::run` does the work, and the result
//! becomes rtrace's own exit status.

// The binary's own doc is kept as the library's (lib.rs).
#![warn(missing_docs)]

mod cli;

use std::process::ExitCode;

use cli::exit;
use cli::setup::Setup;
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
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(end) => return end,
    };
    if let Some(end) = cli::info::print(&cli) {
        return end;
    }
    let Setup {
        config,
        out,
        created,
    } = match cli::setup::setup(cli) {
        Ok(setup) => setup,
        Err(end) => return end,
    };
    match trace::run(config, out) {
        Ok(trace::Exit::Code(code)) => ExitCode::from(code as u8),
        Ok(trace::Exit::Signal(sig)) => exit::die_by_signal(sig),
        Err(e) => {
            if let Some(path) = created
                && std::fs::metadata(&path).is_ok_and(|m| m.is_file() && m.len() == 0)
            {
                let _ = std::fs::remove_file(&path);
            }
            exit::fail(&e.message, e.code as u8)
        }
    }
}
