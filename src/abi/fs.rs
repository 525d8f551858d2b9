//! File-system constants more than one layer's decoders compare with: the
//! directory fd that means "the working directory" and the bits of a mode
//! the kernel takes.

/// `AT_FDCWD` from `<linux/fcntl.h>`: the dirfd that names the working
/// directory.
pub const AT_FDCWD: i64 = -100;

/// The kernel takes open's flags as an `int` and a mode as a `umode_t`
/// (16 bits): the bits above are not the call's.
pub const UMODE_MASK: u64 = 0xffff;
