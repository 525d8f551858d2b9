//! The names of strace's system call classes (`-e trace=%desc`, `%file`,
//! ...), for parsing `%NAME`.
//!
//! Which calls a class holds is in the system call table, one row per call
//! (`sysent/rows.rs`, its classes from strace's syscall tables; see
//! [`crate::sysent::class`]). Users write `%desc` expecting strace's set, so
//! membership is strace's, not derived from rtrace's own parameter kinds.

use crate::sysent::{Classes, class::*};

/// The class names `-e trace=%NAME` accepts for the table (without their
/// `%`), with their bits; `net` is strace's short name for `network`.
const NAMES: &[(&str, Classes)] = &[
    ("file", FILE),
    ("desc", DESC),
    ("process", PROCESS),
    ("network", NETWORK),
    ("net", NETWORK),
    ("signal", SIGNAL),
    ("ipc", IPC),
    ("memory", MEMORY),
    ("creds", CREDS),
    ("clock", CLOCK),
    ("stat", STAT),
    ("lstat", LSTAT),
    ("fstat", FSTAT),
    ("%stat", STAT_LIKE),
    ("statfs", STATFS),
    ("fstatfs", FSTATFS),
    ("%statfs", STATFS_LIKE),
    ("pure", PURE),
];

/// A class of the table, as [`class`] found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Class(Classes);

/// The names of the table's classes, in the order `--help` lists them.
pub fn names() -> impl Iterator<Item = &'static str> {
    NAMES.iter().map(|&(name, _)| name)
}

/// The class called `name` (without its `%`). Case does not matter, as in
/// strace.
pub fn class(name: &str) -> Option<Class> {
    NAMES
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|&(_, bits)| Class(bits))
}

/// Whether call `call` belongs to `class`.
pub fn member(class: Class, call: &str) -> bool {
    crate::sysent::classes(call).intersects(class.0)
}
