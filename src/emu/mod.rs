//! Devices the host lacks, emulated for the traced command: the usbmon
//! replay (`--usbmon-replay`, [`usbmon`]).
//!
//! Layer: below the engine ([`crate::trace`]), which starts an emulation
//! for the command it forks; above [`crate::kernel`], through which it
//! reads and writes the command's memory. It prints nothing and imports
//! none of the printing layers: what the program does with the emulated
//! device is traced by the engine as on a real kernel.

pub mod usbmon;
