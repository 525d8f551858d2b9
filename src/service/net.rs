//! Network handlers: sockets, addresses, messages, options.

use crate::call::Handler;

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[];
