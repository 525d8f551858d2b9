//! The usbmon replay (`--usbmon-replay FILE`): the started command sees
//! `/dev/usbmon0` and `/dev/usbmonN` for each bus of a capture, served as
//! drivers/usb/mon/mon_bin.c would serve them, replaying the capture's
//! events. Reading the capture: [`recording`]; one reader's ring and the
//! device: [`device`]; the calls answered: [`supervisor`], [`requests`],
//! [`poll`]; what the forked child sets up before its exec: [`child`].
//! HACKING.md ("The usbmon replay") tells how it fits together.

pub mod abi;
pub mod child;
pub mod device;
pub mod recording;
pub mod requests;
pub mod supervisor;

pub use device::Pace;
use std::sync::Arc;

/// A loaded replay, ready to serve a command.
pub struct Replay {
    rec: Arc<recording::Recording>,
    pace: Pace,
}

impl Replay {
    /// Load `path`; the error is one line naming the file.
    pub fn load(path: &std::path::Path, pace: Pace) -> Result<Replay, String> {
        let rec = recording::load(path)
            .map_err(|e| format!("--usbmon-replay {}: {e}", path.display()))?;
        Ok(Replay {
            rec: Arc::new(rec),
            pace,
        })
    }

    /// Before the fork: what the child will do. The /dev listing needs
    /// CAP_SYS_ADMIN (a mount namespace); without it the child says so.
    pub fn prepare(&self, private_dev: bool) -> std::io::Result<child::ChildSetup> {
        child::ChildSetup::new(&self.rec.bus_list(), private_dev)
    }

    /// After the fork: serve the child's filter on a thread of its own,
    /// with every signal blocked (rtrace's handlers run on its main
    /// thread), until no filtered process is left.
    pub fn serve(&self, setup: child::ChildSetup) {
        let rec = self.rec.clone();
        let pace = self.pace;
        crate::emu::notify::spawn("usbmon-replay", setup.forked(), move |listener| {
            supervisor::serve(listener, rec, pace)
        });
    }
}
