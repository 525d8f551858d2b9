//! Time handlers: sleeps, clocks, timers.

use crate::call::Handler;

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[];
