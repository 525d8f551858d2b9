//! ioctl dispatch: request names and argument decoding through group tables.
//!
//! Each group (one file per group: usbmon, tty, file, usbdevfs, ...) is a
//! declarative table of [`Request`]s, each naming its code, how its argument
//! travels (none, by value, a pointer to an int, a struct, a string) and in
//! which directions the struct is decoded: [`IF_OUT`] before the call (what
//! the program asks), [`IF_IN`] after a successful call (what the kernel
//! answered). The dispatcher here copies the argument, opens and closes it,
//! falls back to the pointer on a failed copy, and checks (in debug builds)
//! that a group's directions agree with the request's `_IOC_DIR`. What a call
//! wrote elsewhere, through pointers inside its argument, a group prints as
//! extended results on continuation lines after the result.
//!
//! Shapes (`|` is where the line splits):
//!
//! ```text
//! no argument:   ioctl(3, MON_IOCQ_RING_SIZE) = |1228800
//! by value:      ioctl(3, MON_IOCT_RING_SIZE, 1228800) = |0
//! IF_OUT:        ioctl(3, FOO, {out}) = |0
//! IF_OUT|IF_IN:  ioctl(3, FOO, {out}) = |0 {in}
//! ... |IF_ERR:   ioctl(3, FOO, {out}) = |-1 [EINVAL] {in}
//!   failed, with IF_FAILED_PTR:  ioctl(3, FOO, {out}) = |-1 [EBADF] &0x7ff..
//! IF_IN:         ioctl(3, FOO, |{in}) = 0
//! ```
//!
//! A request no group names prints decoded from its bits so a person can
//! read it: `_IOWR(0x92, 0x7, 16)`, `_IO('T', 0x1)`; `-V` prints the number.
//! The argument of a request no group decodes is printed by [`fallback`]:
//! from the kernel's BTF ([`btf`]) when the request table names its type,
//! else as the bytes its code carries, else as a number.

pub mod blkpg;
pub mod btf;
pub mod bytes;
pub mod counter;
pub mod defs;
pub mod dm;
pub mod evdev;
pub mod explain;
pub mod fallback;
pub mod file;
pub mod gpio;
pub mod hdio;
pub mod kd;
pub mod lirc;
pub mod ptp;
pub mod random;
pub mod rtc;
pub mod seccomp;
#[rustfmt::skip]
mod gen_i386;
#[rustfmt::skip]
mod gen_x86_64;
pub mod loopdev;
pub mod named;
pub mod names;
pub mod nsfs;
pub mod perf;
pub mod sockios;
pub mod tty;
pub mod ubi;
pub mod uffd;
pub mod usbdevfs;
pub mod usbmon;
pub mod user_events;
pub mod v4l2;

use crate::call::{CallCtx, CallType};
use crate::decode::put_fd;
use crate::fdtable::FdInfo;
use crate::format::{FlagDef, Naming, Printer};
use crate::kernel::Arch;
use std::borrow::Cow;

/// Decode the argument before the call.
pub const IF_OUT: u8 = 1;
/// Decode the argument after a successful call.
pub const IF_IN: u8 = 2;
/// Decode the argument after a failed call too (with this phase): the
/// kernel says in it what failed (V4L2's extended controls' `error_idx`).
pub const IF_ERR: u8 = 4;
/// With `IF_OUT | IF_IN`: a failed call shows the pointer after its result
/// where the answer would be (`= -1 [EBADF] &0x7ff..`), for the requests
/// whose answer strace marks unread so (`=> 0x7ff..`: RTC_PARAM_GET).
pub const IF_FAILED_PTR: u8 = 8;

/// Printers the syscall handlers above this layer lend it, for values the
/// ioctl requests share with the socket calls: a socket address at an
/// address in the tracee (`{sa_family=AF_INET, sin_port=htons(0),
/// sin_addr=inet_addr("127.0.0.1")}`) and a hardware address's bytes
/// (`00:11:22:33:44:55`). One printer each stays in `service/`, and the
/// ioctl layer imports nothing from there: `service` lends them with
/// [`lend`] before the first call is printed.
#[derive(Clone, Copy)]
pub struct Lent {
    /// `service::net::put_sockaddr`: (printer, field, address, length).
    pub sockaddr: fn(&mut Printer, &str, u64, u64),
    /// `service::family::put_mac`: (printer, field, bytes).
    pub mac: fn(&mut Printer, &str, &[u8]),
}

static LENT: std::sync::OnceLock<Lent> = std::sync::OnceLock::new();

/// Lend the ioctl layer the handlers' printers (the first lender wins).
pub fn lend(printers: Lent) {
    let _ = LENT.set(printers);
}

/// The lent printers; before any were lent (a unit test of this layer
/// alone), stand-ins that print the address and the bytes.
fn lent() -> Lent {
    LENT.get().copied().unwrap_or(Lent {
        sockaddr: |p, name, addr, _| p.ptr(name, addr),
        mac: |p, name, bytes| p.string(name, bytes, false),
    })
}

/// `_IOC_WRITE` and `_IOC_READ` direction bits (x86).
const IOC_WRITE: u64 = crate::abi::xlat::ioctl::_IOC_WRITE as u64;
const IOC_READ: u64 = crate::abi::xlat::ioctl::_IOC_READ as u64;

/// One field of an argument struct, for `--explain-ioctl`.
#[derive(Debug)]
pub struct Field {
    /// Its C name.
    pub name: &'static str,
    /// Its C type.
    pub ty: &'static str,
    /// Byte offset.
    pub offset: usize,
    /// Byte size.
    pub size: usize,
}

/// A table entry for a [`Field`]: `field("nfetch", "u32", 8, 4)`.
pub const fn field(name: &'static str, ty: &'static str, offset: usize, size: usize) -> Field {
    Field {
        name,
        ty,
        offset,
        size,
    }
}

/// A field of a generated layout (`crate::abi::gen_*`, `abi::xlat`): its
/// name, offset and size as the C compiler placed them, with the C type
/// the decoder shows.
pub const fn typed(f: crate::abi::layout::Field, ty: &'static str) -> Field {
    field(f.name, ty, f.off, f.size)
}

/// The layout of an argument struct.
#[derive(Debug)]
pub struct Layout {
    /// The C struct's name.
    pub name: &'static str,
    /// Its size in bytes.
    pub size: usize,
    /// Its fields in order.
    pub fields: &'static [Field],
}

/// How an ioctl's third argument travels.
#[derive(Debug)]
pub enum Arg {
    /// There is none: `ioctl(3, MON_IOCQ_URB_LEN)`.
    None,
    /// A number passed by value: `ioctl(3, MON_IOCH_MFLUSH, 7)`.
    Value,
    /// A number passed by value that is one of a set of names:
    /// `ioctl(3, TCFLSH, TCIOFLUSH)`.
    ValueEnum(&'static [(u64, &'static str)]),
    /// A file descriptor passed by value: `ioctl(4, FICLONE, 3)`.
    Fd,
    /// A flag set passed by value: `ioctl(3, TIOCGPTPEER, O_RDWR|O_NOCTTY)`.
    ValueFlags(&'static [FlagDef]),
    /// A pointer to an `int`, printed `[5]`.
    Int,
    /// A pointer to an `int` flag set, printed `[TIOCM_DTR|TIOCM_RTS]`.
    IntFlags(&'static [FlagDef]),
    /// A pointer to one byte the call reads, printed as a string: `"x"`.
    Char,
    /// A pointer to a struct decoded by the group.
    Struct(&'static Layout),
    /// A pointer to a NUL-terminated string.
    Str,
    /// A pointer to a struct whose layout the struct itself selects (a
    /// leading size field, as user_events' `struct user_reg`); the group
    /// reads it with [`IoctlGroup::custom`]. The layout is the newest one.
    Custom(&'static Layout),
    /// A pointer the group does not decode.
    Ptr,
}

/// One request a group knows.
#[derive(Debug)]
pub struct Request {
    /// The request code as the program passes it.
    pub code: u32,
    /// Its name in the kernel's uapi header.
    pub name: &'static str,
    /// [`IF_OUT`] and/or [`IF_IN`]: when the struct is decoded.
    pub dirs: u8,
    /// How the argument travels.
    pub arg: Arg,
    /// The code's `_IOC_DIR` bits do not tell how the argument travels (old
    /// tty and usbdevfs codes); skip the direction check.
    pub dir_bits_lie: bool,
    /// The elements of a flexible array after the struct that the decoder
    /// reads, counted by one of its members (FS_IOC_FIEMAP's extents).
    pub flex: Option<FlexArray>,
    /// The array behind a pointer member of the struct that the decoder
    /// reads, counted by another member (VIDIOC_S_EXT_CTRLS's controls).
    pub pointed: Option<PointedArray>,
}

/// A flexible array after a request's struct, past the bytes its code's
/// size gives: as many elements as a member of the struct counts, at most
/// `-s` of them, are read at the phases `dirs` says. The BPF engine
/// copies them (`trace::bpf::ioctl_plan`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlexArray {
    /// The count member's offset in the struct, in bytes.
    pub count_offset: usize,
    /// The count member's size in bytes (1, 2 or 4).
    pub count_size: usize,
    /// Each element's size in bytes.
    pub elem: usize,
    /// [`IF_OUT`] and/or [`IF_IN`]: when the elements are read.
    pub dirs: u8,
}

/// An array behind a pointer member of a request's struct, as many units
/// as another member counts (VIDIOC_S_EXT_CTRLS's controls, by their
/// number; SIOCGIFCONF's buffer, by its length in bytes), read at the
/// phases `dirs` says, at most `-s` elements of `shown` units each. The
/// BPF engine copies them (`trace::bpf::ioctl_plan`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointedArray {
    /// The pointer member's offset in the struct, in bytes.
    pub ptr_offset: usize,
    /// Its offset in an i386 caller's struct, where the request's code is
    /// the same on both (None: the code is x86_64's alone).
    pub ptr_offset_i386: Option<usize>,
    /// The count member's offset (the same on both), in bytes.
    pub count_offset: usize,
    /// The count member's size in bytes (1, 2 or 4); 0: no member
    /// counts, the pointer is to one unit (BLKPG's partition).
    pub count_size: usize,
    /// The call's argument that counts the units instead of a member (a
    /// multiplexed call's: io_uring_register's `nr_args`; never an
    /// ioctl's).
    pub count_arg: Option<u8>,
    /// The bytes each counted unit is.
    pub unit: usize,
    /// The units one element the decoder shows is.
    pub shown: usize,
    /// [`IF_OUT`] and/or [`IF_IN`]: when the array is read.
    pub dirs: u8,
    /// A buffer behind a pointer member of each unit, as many bytes as a
    /// `u32` member of it says (0: none), which the decoder shows as far
    /// as `-s` (a string control's bytes): the pointer's and the length's
    /// offsets in the unit.
    pub each: Option<(usize, usize)>,
    /// Elements after the one unit the pointer points at (`count_size`
    /// 0), as many as a member of the unit counts (an ISO URB's packet
    /// descriptors after a reaped URB).
    pub trailing: Option<Trailing>,
    /// A NUL-terminated string instead of counted units (bpf's
    /// `license`): the count, unit and the rest say nothing.
    pub string: Option<PointedString>,
}

/// How far a decoder reads a string behind a pointer member.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointedString {
    /// As far as `-s` shows it (`Printer::cstr`).
    Shown,
    /// Whole, as a path (`Printer::path`: up to `PATH_MAX`).
    Path,
}

impl PointedArray {
    /// The string behind the pointer member at `ptr_offset` (the same
    /// offset for an i386 caller's struct), which the kernel reads.
    pub const fn string(ptr_offset: usize, kind: PointedString) -> PointedArray {
        PointedArray {
            ptr_offset,
            ptr_offset_i386: Some(ptr_offset),
            count_offset: 0,
            count_size: 0,
            count_arg: None,
            unit: 1,
            shown: 1,
            dirs: IF_OUT,
            each: None,
            trailing: None,
            string: Some(kind),
        }
    }
}

/// Elements that follow a struct, counted by a member of it, of which the
/// decoder shows at most `shown` (`shown_verbose` with `-v`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trailing {
    /// The counting member's offset in the struct, in bytes.
    pub count_offset: usize,
    /// Its size in bytes (1, 2 or 4).
    pub count_size: usize,
    /// The bytes of one element.
    pub elem: usize,
    /// The most elements the decoder shows without `-v`.
    pub shown: usize,
    /// The most it shows with `-v`.
    pub shown_verbose: usize,
}

impl Request {
    /// A request whose direction bits are honest.
    pub const fn new(code: u32, name: &'static str, dirs: u8, arg: Arg) -> Request {
        Request {
            code,
            name,
            dirs,
            arg,
            dir_bits_lie: false,
            flex: None,
            pointed: None,
        }
    }

    /// A request whose direction bits do not match its real use.
    pub const fn legacy(code: u32, name: &'static str, dirs: u8, arg: Arg) -> Request {
        Request {
            code,
            name,
            dirs,
            arg,
            dir_bits_lie: true,
            flex: None,
            pointed: None,
        }
    }

    /// This request with a flexible array after its struct.
    pub const fn counted(mut self, flex: FlexArray) -> Request {
        self.flex = Some(flex);
        self
    }

    /// This request with an array behind a pointer in its struct.
    pub const fn pointing(mut self, array: PointedArray) -> Request {
        self.pointed = Some(array);
        self
    }
}

/// What a group's extended-result printer may look at.
pub struct IoctlCall<'a> {
    /// The process that made the call (for /proc look-ups).
    pub pid: i32,
    /// The fd the call was made on.
    pub fd: i32,
    /// What that fd is, if known.
    pub fdinfo: Option<&'a FdInfo>,
    /// The raw argument register.
    pub arg: u64,
    /// The call's return value.
    pub result: i64,
    /// The ABI the call came through.
    pub arch: Arch,
}

/// A table of requests with the code that decodes their arguments.
pub trait IoctlGroup: Sync {
    /// The group's name, as `--list-ioctls` shows it.
    fn name(&self) -> &'static str;

    /// The uapi headers whose requests the group decodes: where the
    /// generated tables name a code from one of these, the group's name
    /// stands alone; names from other headers are printed beside it.
    fn headers(&self) -> &'static [&'static str] {
        &[]
    }

    /// The requests the group knows.
    fn requests(&self) -> &'static [Request];

    /// Whether the group decodes requests made on this fd. Groups that share
    /// codes with another (it happens) say which fds are theirs.
    fn claims(&self, _fd: Option<&FdInfo>) -> bool {
        true
    }

    /// Print the fields of `req`'s struct from `data` for `phase` ([`IF_OUT`]
    /// or [`IF_IN`]); return whether every field was printed.
    fn fields(&self, p: &mut Printer, req: &Request, data: &[u8], phase: u8) -> bool;

    /// Print an [`Arg::Custom`] argument at `addr` for `phase`: the group
    /// copies what it needs itself and falls back to the pointer.
    fn custom(&self, p: &mut Printer, _req: &Request, addr: u64, _phase: u8) {
        p.ptr("arg", addr);
    }

    /// Print what a successful call wrote outside its argument, as
    /// continuation lines.
    fn extended(&self, _p: &mut Printer, _req: &Request, _call: &IoctlCall) {}
}

/// Every group, in lookup order.
static GROUPS: &[&dyn IoctlGroup] = &[
    &usbmon::USBMON,
    &user_events::USER_EVENTS,
    &tty::TTY,
    &file::FILE,
    &usbdevfs::USBDEVFS,
    &sockios::SOCKIOS,
    &uffd::UFFD,
    &nsfs::NSFS,
    &loopdev::LOOP,
    &blkpg::BLKPG_GROUP,
    &v4l2::V4L2,
    &gpio::GPIO,
    &lirc::LIRC,
    &counter::COUNTER,
    &ptp::PTP,
    &evdev::EVDEV,
    &hdio::HDIO,
    &kd::KD,
    &rtc::RTC,
    &dm::DM,
    &seccomp::SECCOMP,
    &perf::PERF,
    &ubi::UBI,
    &random::RANDOM,
];

/// Every group, in lookup order.
pub fn groups() -> &'static [&'static dyn IoctlGroup] {
    GROUPS
}

/// Every request name rtrace knows, in group order: what a request can be
/// called by name (`--filter 'request == TCGETS'`). Every look-up of
/// requests by name goes through here, so a table added to the groups is
/// known by name too.
pub fn request_names() -> impl Iterator<Item = &'static str> {
    groups()
        .iter()
        .flat_map(|group| group.requests().iter().map(|req| req.name))
}

/// The group and request that decode `code` on `fd`: among the groups that
/// know the code, the first that claims the fd.
pub fn find(code: u32, fd: Option<&FdInfo>) -> Option<(&'static dyn IoctlGroup, &'static Request)> {
    let mut first = None;
    for &group in groups() {
        if let Some(req) = group.requests().iter().find(|r| r.code == code) {
            if group.claims(fd) {
                return Some((group, req));
            }
            first.get_or_insert((group, req));
        }
    }
    first
}

/// What rtrace makes of a request code on an fd: the hand-written group
/// that decodes it, if any, and the name to print.
pub struct Resolved {
    /// The group and its request entry, when one decodes the argument.
    pub decoder: Option<(&'static dyn IoctlGroup, &'static Request)>,
    /// The name: one request's (`TCGETS`), every request's the code may be
    /// when the fd cannot choose (`SNDCTL_TMR_START or TCSETS`, as strace
    /// prints them), or the code's `_IOC` bits (`_IOWR(0x92, 0x7, 16)`).
    pub name: Cow<'static, str>,
}

/// Resolve `code` made through `arch` on `fd`. A hand-written group's
/// request wins and decodes; when the headers give the code other names
/// too and the fd does not pick the group's, all names are printed (the
/// group still decodes, as strace's decoders do); when the fd picks
/// another header's request, that one is named and nothing decodes.
pub fn resolve(arch: Arch, code: u64, fd: Option<&FdInfo>) -> Resolved {
    let Ok(code32) = u32::try_from(code) else {
        return Resolved {
            decoder: None,
            name: Cow::Owned(request_text(code)),
        };
    };
    let path = fd.and_then(|f| std::str::from_utf8(&f.path).ok());
    let table = names::table(arch);
    let defs = names::pick(arch, code32, path);
    let family = table.family(code32);
    let Some((group, req)) = find(code32, fd) else {
        // No group decodes it: the headers' names, else the bits.
        let name = match (defs, &family) {
            ([one], None) => Cow::Borrowed(one.name),
            _ => names::name(arch, code32, path)
                .map_or_else(|| Cow::Owned(request_text(code)), Cow::Owned),
        };
        return Resolved {
            decoder: None,
            name,
        };
    };
    // The names the fd leaves: a vendor's request with parameters only on
    // its own device (fd -1's `VIDIOC_ENUM_FMT` is that alone).
    let (family, defs) = names::requests(arch, code32, path);
    let covered = |d: &defs::Def| group.headers().contains(&table.header(d));
    // A group names compat codes as the kernel's internal headers do
    // (`USBDEVFS_SUBMITURB32`); a program of that ABI (i386) calls them by
    // its header's plain name, which the arch's table has at this code.
    let own = req
        .name
        .strip_suffix("32")
        .and_then(|base| defs.iter().find(|d| d.name == base && covered(d)))
        .map_or(req.name, |d| d.name);
    let family = family.filter(|(f, _)| !group.headers().contains(&table.family_header(f)));
    let others: Vec<&str> = defs
        .iter()
        .filter(|d| !covered(d))
        .map(|d| d.name)
        .collect();
    if others.is_empty() && family.is_none() {
        return Resolved {
            decoder: Some((group, req)),
            name: Cow::Borrowed(own),
        };
    }
    if !defs.iter().any(covered) && defs.len() < table.lookup(code32).len() {
        // The fd chose another subsystem's request than the group's.
        let name = names::name(arch, code32, path).unwrap_or_default();
        return Resolved {
            decoder: None,
            name: Cow::Owned(name),
        };
    }
    // Every name, in strace's order: one with parameters first, then by name.
    let mut all = others;
    all.push(own);
    all.sort_unstable();
    let mut name = all.join(" or ");
    if let Some((_, text)) = family {
        name = format!("{text} or {name}");
    }
    Resolved {
        decoder: Some((group, req)),
        name: Cow::Owned(name),
    }
}

/// The request's name as rtrace prints it (see [`resolve`]).
pub fn request_name(arch: Arch, code: u64, fd: Option<&FdInfo>) -> Cow<'static, str> {
    resolve(arch, code, fd).name
}

/// The fields of an ioctl request code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IocFields {
    /// `_IOC_DIR`: 0 none, 1 write, 2 read, 3 both.
    pub dir: u64,
    /// `_IOC_TYPE`: the group's magic.
    pub kind: u64,
    /// `_IOC_NR`: the request number in its group.
    pub nr: u64,
    /// `_IOC_SIZE`: the argument size.
    pub size: u64,
}

/// Split a request code into its `_IOC` fields.
pub fn ioc_fields(req: u64) -> IocFields {
    IocFields {
        dir: (req >> 30) & 3,
        kind: (req >> 8) & 0xff,
        nr: req & 0xff,
        size: (req >> 16) & 0x3fff,
    }
}

/// The readable form of a request no group names: `_IOWR(0x92, 0x7, 16)`.
pub fn request_text(req: u64) -> String {
    if req > u32::MAX as u64 {
        return format!("0x{req:x}");
    }
    let f = ioc_fields(req);
    let kind = if f.kind < 0x80 && (f.kind as u8).is_ascii_graphic() && f.kind != b'\'' as u64 {
        format!("'{}'", f.kind as u8 as char)
    } else {
        format!("0x{:x}", f.kind)
    };
    match (f.dir, f.size) {
        (0, 0) => format!("_IO({kind}, 0x{:x})", f.nr),
        (0, size) => format!("_IOC(_IOC_NONE, {kind}, 0x{:x}, {size})", f.nr),
        (IOC_WRITE, size) => format!("_IOW({kind}, 0x{:x}, {size})", f.nr),
        (IOC_READ, size) => format!("_IOR({kind}, 0x{:x}, {size})", f.nr),
        (_, size) => format!("_IOWR({kind}, 0x{:x}, {size})", f.nr),
    }
}

/// Debug check of a group's table entry: IF_OUT needs `_IOC_WRITE`, IF_IN
/// needs `_IOC_READ`, and a struct's size must match `_IOC_SIZE`.
fn check_request(req: &Request) {
    if req.dir_bits_lie {
        return;
    }
    let f = ioc_fields(req.code as u64);
    debug_assert!(
        req.dirs & IF_OUT == 0 || f.dir & IOC_WRITE != 0,
        "{}: IF_OUT on a request without _IOC_WRITE",
        req.name
    );
    debug_assert!(
        req.dirs & IF_IN == 0 || f.dir & IOC_READ != 0,
        "{}: IF_IN on a request without _IOC_READ",
        req.name
    );
    if let Arg::Struct(layout) = req.arg {
        debug_assert_eq!(layout.size as u64, f.size, "{}: struct size", req.name);
    }
}

/// Print a struct argument for `phase`: copy it, open it, let the group
/// print its fields, close it (`..` when incomplete); the pointer when the
/// copy fails.
fn put_struct(
    p: &mut Printer,
    group: &dyn IoctlGroup,
    req: &Request,
    layout: &Layout,
    addr: u64,
    phase: u8,
) {
    if addr == 0 || p.config().values_only >= 2 {
        p.ptr("arg", addr);
        return;
    }
    let mut data = vec![0u8; layout.size];
    if !p.mem().read_exact(addr, &mut data) {
        p.ptr("arg", addr);
        return;
    }
    p.open("arg", "{", Naming::Fields);
    let complete = group.fields(p, req, &data, phase);
    p.close_struct(complete);
}

/// Print an `int *` argument as `[5]`, or its pointer.
fn put_int_ptr(p: &mut Printer, addr: u64) {
    let mut raw = [0u8; 4];
    if addr != 0 && p.mem().read_exact(addr, &mut raw) {
        // An array of one number, in JSON too (`[256]`).
        p.open("arg", "[", Naming::Elements);
        p.int("", i32::from_ne_bytes(raw) as i64);
        p.close("]");
    } else {
        p.ptr("arg", addr);
    }
}

/// Print an `int *` flag set as `[TIOCM_DTR|TIOCM_RTS]`, or its pointer.
fn put_int_flags_ptr(p: &mut Printer, addr: u64, table: &[FlagDef]) {
    let mut raw = [0u8; 4];
    if addr != 0 && p.config().values_only < 2 && p.mem().read_exact(addr, &mut raw) {
        p.open("arg", "[", Naming::Elements);
        p.flags("", u32::from_ne_bytes(raw) as u64, table);
        p.close("]");
    } else {
        p.ptr("arg", addr);
    }
}

/// Print an argument decoded through a pointer (Int, IntFlags, Struct,
/// Custom) for `phase`.
fn put_decoded(p: &mut Printer, group: &dyn IoctlGroup, req: &Request, addr: u64, phase: u8) {
    match &req.arg {
        Arg::Int => put_int_ptr(p, addr),
        Arg::IntFlags(table) => put_int_flags_ptr(p, addr, table),
        Arg::Struct(layout) => put_struct(p, group, req, layout, addr, phase),
        Arg::Custom(_) => group.custom(p, req, addr, phase),
        _ => unreachable!("decoded args only"),
    }
}

/// `ioctl(fd, request, arg)`
pub fn ioctl_out(p: &mut Printer, c: &mut CallCtx) -> CallType {
    let fd = c.int(0);
    put_fd(p, c.fds, "fd", fd);
    let code = c.args[1] & 0xffff_ffff;
    let info = c.fds.get(fd as i32);
    let resolved = resolve(c.arch, code, info.as_ref());
    let Some((group, req)) = resolved.decoder else {
        p.named_hex("request", code, &resolved.name);
        let plan = fallback::plan(code, c.arch, info.as_ref());
        if let (fallback::How::Value, Some(naming)) = (&plan.how, plan.naming) {
            // A number with names, at the width the kernel reads it.
            match naming {
                named::Naming::Fd => put_fd(p, c.fds, "arg", c.args[2] as i32 as i64),
                _ => named::put_value(p, naming, c.args[2]),
            }
            return CallType::Done;
        }
        return fallback::out(p, c.args[2], &plan);
    };
    check_request(req);
    p.named_hex("request", code, &resolved.name);
    let arg = c.args[2];
    match &req.arg {
        Arg::None => CallType::Done,
        Arg::Value => {
            p.int("arg", arg as i64);
            CallType::Done
        }
        Arg::ValueEnum(names) => {
            // The kernel takes these as an `unsigned long`; the values are small.
            let name = names.iter().find(|&&(v, _)| v == arg).map(|&(_, n)| n);
            p.symbol("arg", arg as i64, name);
            CallType::Done
        }
        Arg::ValueFlags(table) => {
            p.flags("arg", arg & 0xffff_ffff, table);
            CallType::Done
        }
        Arg::Fd => {
            // The kernel casts the `unsigned long` to an int.
            put_fd(p, c.fds, "arg", arg as i32 as i64);
            CallType::Done
        }
        Arg::Char => {
            // The byte is read by the call; a failed copy prints the pointer.
            p.buf("arg", arg, 1);
            CallType::Done
        }
        Arg::Ptr => {
            p.ptr("arg", arg);
            CallType::Done
        }
        Arg::Str => {
            p.cstr("arg", arg);
            CallType::Done
        }
        Arg::Custom(_) if req.dirs & IF_OUT != 0 => {
            group.custom(p, req, arg, IF_OUT);
            CallType::Done
        }
        Arg::Custom(_) if req.dirs & IF_IN != 0 => CallType::NotDone,
        Arg::Custom(_) => {
            p.ptr("arg", arg);
            CallType::Done
        }
        Arg::Int | Arg::IntFlags(_) | Arg::Struct(_) if req.dirs & IF_OUT != 0 => {
            put_decoded(p, group, req, arg, IF_OUT);
            CallType::Done
        }
        Arg::Int | Arg::IntFlags(_) | Arg::Struct(_) if req.dirs & IF_IN != 0 => CallType::NotDone,
        Arg::Int | Arg::IntFlags(_) | Arg::Struct(_) => {
            p.ptr("arg", arg);
            CallType::Done
        }
    }
}

/// Leave half of ioctl: the IF_IN argument and the extended results.
pub fn ioctl_in(p: &mut Printer, c: &mut CallCtx, failed: bool) {
    let fd = c.int(0);
    let code = (c.args[1] & 0xffff_ffff) as u32;
    let info = c.fds.get(fd as i32);
    let found = resolve(c.arch, code as u64, info.as_ref()).decoder;
    let arg = c.args[2];
    let Some((group, req)) = found else {
        let plan = fallback::plan(code as u64, c.arch, info.as_ref());
        fallback::leave(p, arg, &plan, c.result, failed);
        return;
    };
    let in_only = req.dirs & IF_IN != 0 && req.dirs & IF_OUT == 0;
    let decoded = matches!(
        req.arg,
        Arg::Int | Arg::IntFlags(_) | Arg::Struct(_) | Arg::Custom(_)
    );
    if in_only && decoded {
        // The argument was left for now: print what the kernel answered.
        if failed {
            p.ptr("arg", arg);
        } else {
            put_decoded(p, group, req, arg, IF_IN);
        }
        p.equals();
        p.result(c.result);
    } else {
        if !p.equals_printed() {
            p.equals();
        }
        p.result(c.result);
        if !failed && req.dirs & IF_IN != 0 && decoded {
            p.text(" ", crate::output::Style::Plain);
            put_decoded(p, group, req, arg, IF_IN);
        } else if failed && req.dirs & IF_ERR != 0 && decoded {
            p.text(" ", crate::output::Style::Plain);
            put_decoded(p, group, req, arg, IF_ERR);
        } else if failed && req.dirs & IF_FAILED_PTR != 0 && arg != 0 && {
            // What went in was shown (an unreadable argument already
            // printed as its pointer): the size the code gives is readable.
            use crate::abi::xlat::ioctl::{_IOC_SIZEMASK, _IOC_SIZESHIFT};
            let size = (code >> _IOC_SIZESHIFT) & _IOC_SIZEMASK;
            let mut data = vec![0u8; size.max(1) as usize];
            p.mem().read_exact(arg, &mut data)
        } {
            p.text(" ", crate::output::Style::Plain);
            p.ptr("arg", arg);
        }
    }
    if !failed {
        let call = IoctlCall {
            pid: c.fds.pid,
            fd: fd as i32,
            fdinfo: info.as_ref(),
            arg,
            result: c.result,
            arch: c.arch,
        };
        group.extended(p, req, &call);
    }
}

/// Little-endian field readers for group decoders (x86 is little-endian).
pub mod raw {
    /// `u8` at `off`.
    pub fn u8_at(d: &[u8], off: usize) -> u8 {
        d[off]
    }
    /// `u16` at `off`.
    pub fn u16_at(d: &[u8], off: usize) -> u16 {
        u16::from_le_bytes([d[off], d[off + 1]])
    }
    /// `u32` at `off`.
    pub fn u32_at(d: &[u8], off: usize) -> u32 {
        u32::from_le_bytes(d[off..off + 4].try_into().expect("4 bytes"))
    }
    /// `i16` at `off`.
    pub fn i16_at(d: &[u8], off: usize) -> i16 {
        u16_at(d, off) as i16
    }
    /// `i32` at `off`.
    pub fn i32_at(d: &[u8], off: usize) -> i32 {
        u32_at(d, off) as i32
    }
    /// `u64` at `off`.
    pub fn u64_at(d: &[u8], off: usize) -> u64 {
        u64::from_le_bytes(d[off..off + 8].try_into().expect("8 bytes"))
    }
    /// `i64` at `off`.
    pub fn i64_at(d: &[u8], off: usize) -> i64 {
        u64_at(d, off) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_requests_are_readable() {
        assert_eq!(request_text(0xC010_9207), "_IOWR(0x92, 0x7, 16)");
        assert_eq!(request_text(0x0000_5401), "_IO('T', 0x1)");
        assert_eq!(request_text(0x8008_9203), "_IOR(0x92, 0x3, 8)");
        assert_eq!(request_text(0x4018_920A), "_IOW(0x92, 0xa, 24)");
        assert_eq!(request_text(0x0008_2A00), "_IOC(_IOC_NONE, '*', 0x0, 8)");
    }

    #[test]
    fn every_table_entry_is_consistent() {
        for &group in groups() {
            let mut seen = std::collections::HashSet::new();
            for req in group.requests() {
                assert!(
                    seen.insert(req.code),
                    "{} twice in {}",
                    req.name,
                    group.name()
                );
                check_request(req);
                if let Arg::Struct(layout) | Arg::Custom(layout) = req.arg {
                    for f in layout.fields {
                        assert!(
                            f.offset + f.size <= layout.size,
                            "{}.{}",
                            layout.name,
                            f.name
                        );
                    }
                }
            }
        }
    }

    /// The groups' codes are typed where their decoders are; every one the
    /// kernel's headers define must be the code the generated tables (made
    /// from those headers) give it: native codes from the x86_64 table, a
    /// `*32` compat code from the i386 table's code of its base name.
    #[test]
    fn group_codes_match_the_headers() {
        use crate::kernel::Arch;
        let mut checked = std::collections::HashMap::new();
        for &group in groups() {
            for req in group.requests() {
                let found = match names::table(Arch::X86_64).by_name(req.name) {
                    Some(def) => Some(def.code),
                    None => req
                        .name
                        .strip_suffix("32")
                        .and_then(|base| names::table(Arch::I386).by_name(base))
                        .map(|def| def.code),
                };
                if let Some(code) = found {
                    assert_eq!(
                        req.code,
                        code,
                        "{} in group {}: {:#x}, the headers say {code:#x}",
                        req.name,
                        group.name(),
                        req.code
                    );
                    *checked.entry(group.name()).or_insert(0) += 1;
                }
            }
        }
        // Not checked: usbmon's requests (they live in mon_bin.c, in no
        // header), user_events' (linux/user_events.h is newer than the
        // headers the tables come from) and USBDEVFS_CONNINFO_EX(24), a
        // macro with a size parameter.
        let all = [
            ("usbdevfs", 38),
            ("tty", 37),
            ("sockios", 58),
            ("file", 10),
            ("nsfs", 4),
            ("loop", 5),
            ("blkpg", 1),
            ("v4l2", 36),
            ("gpio", 15),
            ("lirc", 19),
            ("counter", 3),
            ("ptp", 14),
            ("evdev", 7),
            ("hdio", 17),
            ("kd", 31),
            ("rtc", 7),
            ("dm", 18),
            ("seccomp", 4),
            ("ubi", 17),
            ("random", 6),
        ];
        for (group, least) in all {
            let n = checked.get(group).copied().unwrap_or(0);
            assert!(n >= least, "only {n} codes of {group} checked");
        }
    }

    #[test]
    fn the_fd_decides_between_a_group_and_other_headers() {
        let on = |path: &str| FdInfo::new(path.as_bytes().to_vec(), false);
        // 0x5402 is TCSETS (the tty group's) and OSS's SNDCTL_TMR_START.
        let tty = resolve(Arch::X86_64, 0x5402, Some(&on("/dev/pts/3")));
        assert_eq!((tty.name.as_ref(), tty.decoder.is_some()), ("TCSETS", true));
        let null = resolve(Arch::X86_64, 0x5402, Some(&on("/dev/null")));
        assert_eq!(null.name, "SNDCTL_TMR_START or TCSETS");
        assert!(null.decoder.is_some());
        let timer = resolve(Arch::X86_64, 0x5402, Some(&on("/dev/snd/timer")));
        assert_eq!(
            (timer.name.as_ref(), timer.decoder.is_some()),
            ("SNDCTL_TMR_START", false)
        );
        // No fd known: every name; a code nothing names: its bits.
        assert_eq!(
            resolve(Arch::X86_64, 0x5402, None).name,
            "SNDCTL_TMR_START or TCSETS"
        );
        assert_eq!(resolve(Arch::X86_64, 0x1234, None).name, "_IO(0x12, 0x34)");
        // The fd picks among the headers' requests: hidraw's, not hiddev's.
        let hid = resolve(Arch::X86_64, 0x8004_4801, Some(&on("/dev/hidraw0")));
        assert_eq!(hid.name, "HIDIOCGRDESCSIZE");
    }

    #[test]
    fn the_ioctl_layer_never_imports_the_handlers_above_it() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/ioctl");
        // Spelled in two pieces so this test does not find itself.
        let (up, up2) = (
            ["crate", "::service"].concat(),
            ["super::super", "::service"].concat(),
        );
        // Files and the files of subdirectories (btf/).
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        while let Some(i) = paths.iter().position(|p| p.is_dir()) {
            let sub = paths.swap_remove(i);
            paths.extend(std::fs::read_dir(sub).unwrap().map(|e| e.unwrap().path()));
        }
        for path in paths {
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(
                !text.contains(&up) && !text.contains(&up2),
                "{} imports service/",
                path.display()
            );
        }
    }
}
