//! Devices the host lacks, emulated for the traced command: the usbmon
//! replay (`--usbmon-replay`, [`usbmon`]) and user_events
//! (`--user-events-emulate`, [`user_events`]), on the seccomp
//! user-notification machinery they share ([`notify`]).
//!
//! Layer: below the engine ([`crate::trace`]), which starts an emulation
//! for the command it forks; above [`crate::kernel`], through which it
//! reads and writes the command's memory. It prints nothing and imports
//! none of the printing layers: what the program does with the emulated
//! device is traced by the engine as on a real kernel (the user_events
//! emulation's trace buffer is handed to the engine as text).

pub mod notify;
pub mod usbmon;
pub mod user_events;
