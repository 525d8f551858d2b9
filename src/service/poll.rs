//! Polling and event handlers: poll, select, epoll, eventfd, futex.

use crate::call::Handler;

/// This area's handlers (see `service::h`).
pub static HANDLERS: &[Handler] = &[];
