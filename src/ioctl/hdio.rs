//! The old IDE requests (`<linux/hdreg.h>`), plain numbers older than the
//! ioctl macros (no size, no direction bits), which only a decoder that
//! knows them can show; libata still answers several (HDIO_GETGEO,
//! HDIO_GET_IDENTITY, HDIO_DRIVE_CMD, ...). As strace shows them:
//!
//! - HDIO_GETGEO: `{heads=.., sectors=.., cylinders=.., start=..}` after the
//!   call (`start` is a `long`: i386's layout is its own, generated with
//!   `-m32`);
//! - HDIO_DRIVE_CMD: the command header before the call, and after it the
//!   status (hex), error and sector count the kernel wrote over it, with
//!   the sectors read (`buf`, 512 bytes each) when the count is not zero;
//! - HDIO_DRIVE_RESET, HDIO_SCAN_HWIF: their three ints, in hex;
//! - the HDIO_GET_* requests: the `unsigned long` they write, HDIO_GET_NICE's
//!   as `1<<IDE_NICE_*` bits, HDIO_GET_BUSSTATE's as a `BUSSTATE_*` name,
//!   HDIO_GET_IDENTITY's 512 bytes as a table (`bytes::put_table`), and
//!   HDIO_OBSOLETE_IDENTITY's 142 (the old IDE driver's struct, which
//!   ended before identify words 71-74); HDIO_SET_NICE's bits by value.
//!
//! HDIO_DRIVE_CMD's `command` is named from the ATA commands
//! (`ATA_CMD_WRITE`), which only the kernel's internal `<linux/ata.h>`
//! defines: `abi::gen_ata`, generated from the kernel's source.

use super::{Arg, IF_IN, IF_OUT, IoctlGroup, Layout, Request};
use crate::abi::gen_ata::ATA_CMDS;
use crate::abi::layout::{Field, field, offset};
use crate::abi::xlat::ioctl::{
    HD_DRIVE_CMD_HDR, HD_DRIVEID_OLD_END, HD_GEOMETRY, HD_GEOMETRY_I386, HDIO_BUSSTATES,
    HDIO_DRIVE_CMD, HDIO_DRIVE_RESET, HDIO_GET_32BIT, HDIO_GET_ACOUSTIC, HDIO_GET_ADDRESS,
    HDIO_GET_BUSSTATE, HDIO_GET_DMA, HDIO_GET_IDENTITY, HDIO_GET_KEEPSETTINGS, HDIO_GET_MULTCOUNT,
    HDIO_GET_NICE, HDIO_GET_NOWERR, HDIO_GET_UNMASKINTR, HDIO_GET_WCACHE, HDIO_GETGEO,
    HDIO_OBSOLETE_IDENTITY, HDIO_SCAN_HWIF, HDIO_SET_NICE, IDE_NICE,
};
use crate::format::{Naming, Printer};
use crate::kernel::Arch;

/// A sector, as HDIO_DRIVE_CMD's count counts them.
const SECTOR_SIZE: u64 = 512;
/// HDIO_GET_IDENTITY's answer: the drive's 256 identify words.
const IDENTITY_SIZE: u64 = 512;
/// HDIO_OBSOLETE_IDENTITY's answer: the identify words up to 71.
const OLD_IDENTITY_SIZE: usize = offset(HD_DRIVEID_OLD_END, "words71_74");

/// The argument types, for `--explain-ioctl` (the group reads them itself:
/// their sizes depend on the program's ABI).
static GEOMETRY: Layout = Layout {
    name: "hd_geometry",
    size: 16,
    fields: &[],
};
static CMD: Layout = Layout {
    name: "hd_drive_cmd_hdr",
    size: 4,
    fields: &[],
};
static INTS3: Layout = Layout {
    name: "int[3]",
    size: 12,
    fields: &[],
};
static ULONG: Layout = Layout {
    name: "unsigned long",
    size: 8,
    fields: &[],
};
static IDENTITY: Layout = Layout {
    name: "char[512]",
    size: 512,
    fields: &[],
};
static OLD_IDENTITY: Layout = Layout {
    name: "char[142]",
    size: OLD_IDENTITY_SIZE,
    fields: &[],
};

/// A plain-number request whose argument the group prints itself.
const fn req(code: u32, name: &'static str, dirs: u8, layout: &'static Layout) -> Request {
    Request::legacy(code, name, dirs, Arg::Custom(layout))
}

static REQUESTS: &[Request] = &[
    req(HDIO_GETGEO, "HDIO_GETGEO", IF_IN, &GEOMETRY),
    req(HDIO_DRIVE_CMD, "HDIO_DRIVE_CMD", IF_OUT | IF_IN, &CMD),
    req(HDIO_DRIVE_RESET, "HDIO_DRIVE_RESET", IF_OUT, &INTS3),
    req(HDIO_SCAN_HWIF, "HDIO_SCAN_HWIF", IF_OUT, &INTS3),
    req(HDIO_GET_32BIT, "HDIO_GET_32BIT", IF_IN, &ULONG),
    req(HDIO_GET_ACOUSTIC, "HDIO_GET_ACOUSTIC", IF_IN, &ULONG),
    req(HDIO_GET_ADDRESS, "HDIO_GET_ADDRESS", IF_IN, &ULONG),
    req(HDIO_GET_DMA, "HDIO_GET_DMA", IF_IN, &ULONG),
    req(
        HDIO_GET_KEEPSETTINGS,
        "HDIO_GET_KEEPSETTINGS",
        IF_IN,
        &ULONG,
    ),
    req(HDIO_GET_MULTCOUNT, "HDIO_GET_MULTCOUNT", IF_IN, &ULONG),
    req(HDIO_GET_NOWERR, "HDIO_GET_NOWERR", IF_IN, &ULONG),
    req(HDIO_GET_UNMASKINTR, "HDIO_GET_UNMASKINTR", IF_IN, &ULONG),
    req(HDIO_GET_WCACHE, "HDIO_GET_WCACHE", IF_IN, &ULONG),
    req(HDIO_GET_NICE, "HDIO_GET_NICE", IF_IN, &ULONG),
    req(HDIO_GET_BUSSTATE, "HDIO_GET_BUSSTATE", IF_IN, &ULONG),
    req(HDIO_GET_IDENTITY, "HDIO_GET_IDENTITY", IF_IN, &IDENTITY),
    req(
        HDIO_OBSOLETE_IDENTITY,
        "HDIO_OBSOLETE_IDENTITY",
        IF_IN,
        &OLD_IDENTITY,
    ),
    // By value: the bits are the argument itself.
    req(HDIO_SET_NICE, "HDIO_SET_NICE", IF_OUT, &ULONG),
];

/// The hdio group.
pub struct Hdio;

/// The one instance the dispatcher uses.
pub static HDIO: Hdio = Hdio;

impl IoctlGroup for Hdio {
    fn name(&self) -> &'static str {
        "hdio"
    }

    fn headers(&self) -> &'static [&'static str] {
        &["linux/hdreg.h"]
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, _p: &mut Printer, _req: &Request, _d: &[u8], _phase: u8) -> bool {
        false
    }

    fn custom(&self, p: &mut Printer, req: &Request, arg: u64, phase: u8) {
        let word = if p.arch() == Arch::I386 { 4 } else { 8 };
        let mask = if word == 4 { 0xffff_ffff } else { u64::MAX };
        match req.code {
            HDIO_SET_NICE => return p.flags("arg", arg & mask, IDE_NICE),
            HDIO_GET_IDENTITY => return super::bytes::put_table(p, "arg", arg, IDENTITY_SIZE),
            HDIO_OBSOLETE_IDENTITY => {
                return super::bytes::put_table(p, "arg", arg, OLD_IDENTITY_SIZE as u64);
            }
            _ => {}
        }
        let geometry = if word == 4 {
            HD_GEOMETRY_I386
        } else {
            HD_GEOMETRY
        };
        let size = match req.code {
            HDIO_GETGEO => crate::abi::layout::extent(geometry),
            HDIO_DRIVE_CMD => 4,
            HDIO_DRIVE_RESET | HDIO_SCAN_HWIF => 12,
            _ => word,
        };
        let mut d = vec![0u8; size];
        if arg == 0 || p.config().values_only >= 2 || !p.mem().read_exact(arg, &mut d) {
            p.ptr("arg", arg);
            return;
        }
        let word_at = |d: &[u8], off: usize| {
            Field {
                name: "",
                off,
                size: word,
                signed: false,
            }
            .read(d)
            .unwrap_or(0)
        };
        match req.code {
            HDIO_GETGEO => {
                p.open("arg", "{", Naming::Fields);
                for name in ["heads", "sectors", "cylinders", "start"] {
                    p.uint(name, get(&d, geometry, name));
                }
                p.close("}");
            }
            HDIO_DRIVE_CMD if phase == IF_OUT => {
                p.open("arg", "{", Naming::Fields);
                let command = get(&d, HD_DRIVE_CMD_HDR, "command");
                let name = ATA_CMDS.iter().find(|&&(v, _)| v == command);
                p.symbol("command", command as i64, name.map(|&(_, n)| n));
                for name in ["sector_number", "feature", "sector_count"] {
                    p.uint(name, get(&d, HD_DRIVE_CMD_HDR, name));
                }
                p.close("}");
            }
            HDIO_DRIVE_CMD => {
                // The kernel's answer over the header: status, error, the
                // sector count, then the sectors read.
                p.open("arg", "{", Naming::Fields);
                p.raw_hex("status", d[0] as u64);
                p.uint("error", d[1] as u64);
                p.uint("nsector", d[2] as u64);
                if d[3] != 0 {
                    super::bytes::put_table(p, "buf", arg + 4, d[3] as u64 * SECTOR_SIZE);
                }
                p.close("}");
            }
            HDIO_DRIVE_RESET | HDIO_SCAN_HWIF => {
                p.open("arg", "[", Naming::Elements);
                for i in 0..3 {
                    p.raw_hex("", super::raw::u32_at(&d, 4 * i) as u64);
                }
                p.close("]");
            }
            HDIO_GET_NICE => {
                p.open("arg", "[", Naming::Elements);
                p.flags("", word_at(&d, 0), IDE_NICE);
                p.close("]");
            }
            HDIO_GET_BUSSTATE => {
                let v = word_at(&d, 0);
                let name = HDIO_BUSSTATES
                    .iter()
                    .find(|&&(s, _)| s == v)
                    .map(|&(_, n)| n);
                p.open("arg", "[", Naming::Elements);
                p.symbol("", v as i64, name);
                p.close("]");
            }
            _ => {
                p.open("arg", "[", Naming::Elements);
                p.uint("", word_at(&d, 0));
                p.close("]");
            }
        }
    }
}

/// A field's value.
fn get(d: &[u8], layout: &[Field], name: &str) -> u64 {
    field(layout, name).read(d).unwrap_or(0)
}
