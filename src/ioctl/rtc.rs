//! Real-time clocks (`<linux/rtc.h>`, `/dev/rtcN`): the requests whose
//! arguments the kernel's BTF prints without names, decoded as strace does:
//!
//! - RTC_PARAM_GET / RTC_PARAM_SET: `struct rtc_param`, the parameter by
//!   name and its value as the parameter reads it (the features as
//!   `1<<RTC_FEATURE_*` bits, the correction signed, the backup switch mode
//!   by name, anything else in hex), the index, `__pad` only when set.
//!   RTC_PARAM_GET's code says `_IOW`, but the kernel writes the value back
//!   (`rtc_dev_ioctl` ends the case in `copy_to_user`), which prints after
//!   the call, or, when it fails, its pointer (strace: `=> 0x7ff..`);
//! - RTC_VL_READ: its `RTC_VL_*` bits;
//! - RTC_PLL_GET / RTC_PLL_SET: `struct rtc_pll_info`, whose `long`
//!   makes i386's smaller, with its own codes (`*32` here) from the
//!   generated `-m32` layout.
//!
//! The other RTC requests print from the tables and BTF.

use super::{Arg, IF_FAILED_PTR, IF_IN, IF_OUT, IoctlGroup, Layout, Request};
use crate::abi::layout::{Field, field};
use crate::abi::xlat::ioctl::{
    RTC_BSMS, RTC_FEATURES, RTC_PARAM, RTC_PARAM_GET, RTC_PARAM_SET, RTC_PARAMS, RTC_PLL_GET,
    RTC_PLL_INFO, RTC_PLL_INFO_I386, RTC_PLL_SET, RTC_VL_FLAGS, RTC_VL_READ,
};
use crate::format::{Naming, Printer};

/// The end of a layout's last field (`struct rtc_pll_info` has no tail
/// padding on either ABI).
const fn end(layout: &[Field]) -> u32 {
    let mut i = 0;
    let mut end = 0;
    while i < layout.len() {
        let e = layout[i].off + layout[i].size;
        if e > end {
            end = e;
        }
        i += 1;
    }
    end as u32
}

/// A code with another argument size.
const fn resized(code: u32, size: u32) -> u32 {
    (code & !(0x3fff << 16)) | (size << 16)
}

/// i386's RTC_PLL_GET and RTC_PLL_SET (the `-m32` struct's size).
const RTC_PLL_GET32: u32 = resized(RTC_PLL_GET, end(RTC_PLL_INFO_I386));
const RTC_PLL_SET32: u32 = resized(RTC_PLL_SET, end(RTC_PLL_INFO_I386));

/// A struct of the group, its size the code's (`_IOC_SIZE`).
const fn sized(name: &'static str, code: u32) -> Layout {
    Layout {
        name,
        size: ((code >> 16) & 0x3fff) as usize,
        fields: &[],
    }
}

static PARAM: Layout = sized("rtc_param", RTC_PARAM_SET);
static PLL: Layout = sized("rtc_pll_info", RTC_PLL_GET);
static PLL32: Layout = sized("rtc_pll_info", RTC_PLL_GET32);
static VL: Layout = sized("unsigned int", RTC_VL_READ);

static REQUESTS: &[Request] = &[
    Request::legacy(
        RTC_PARAM_GET,
        "RTC_PARAM_GET",
        IF_OUT | IF_IN | IF_FAILED_PTR,
        Arg::Struct(&PARAM),
    ),
    Request::new(RTC_PARAM_SET, "RTC_PARAM_SET", IF_OUT, Arg::Struct(&PARAM)),
    Request::new(RTC_VL_READ, "RTC_VL_READ", IF_IN, Arg::Custom(&VL)),
    Request::new(RTC_PLL_GET, "RTC_PLL_GET", IF_IN, Arg::Struct(&PLL)),
    Request::new(RTC_PLL_SET, "RTC_PLL_SET", IF_OUT, Arg::Struct(&PLL)),
    Request::new(RTC_PLL_GET32, "RTC_PLL_GET32", IF_IN, Arg::Struct(&PLL32)),
    Request::new(RTC_PLL_SET32, "RTC_PLL_SET32", IF_OUT, Arg::Struct(&PLL32)),
];

/// The rtc group.
pub struct Rtc;

/// The one instance the dispatcher uses.
pub static RTC: Rtc = Rtc;

impl IoctlGroup for Rtc {
    fn name(&self) -> &'static str {
        "rtc"
    }

    fn headers(&self) -> &'static [&'static str] {
        &["linux/rtc.h"]
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, p: &mut Printer, req: &Request, d: &[u8], phase: u8) -> bool {
        match req.code {
            RTC_PARAM_GET | RTC_PARAM_SET => {
                let l = RTC_PARAM;
                let param = get(d, l, "param");
                let entry = phase == IF_OUT;
                if entry {
                    let name = RTC_PARAMS
                        .iter()
                        .find(|&&(v, _)| v == param)
                        .map(|&(_, n)| n);
                    p.symbol("param", param as i64, name);
                }
                // The value the program sets, or the one the kernel got.
                if entry == (req.code == RTC_PARAM_SET) {
                    put_value(p, d, param);
                }
                if entry {
                    p.uint("index", get(d, l, "index"));
                }
                let pad = get(d, l, "__pad");
                if pad != 0 {
                    p.raw_hex("__pad", pad);
                }
            }
            RTC_PLL_GET | RTC_PLL_SET | RTC_PLL_GET32 | RTC_PLL_SET32 => {
                let l = if matches!(req.code, RTC_PLL_GET32 | RTC_PLL_SET32)
                    && RTC_PLL_GET32 != RTC_PLL_GET
                {
                    RTC_PLL_INFO_I386
                } else {
                    RTC_PLL_INFO
                };
                for f in l {
                    p.int(f.name, f.read(d).unwrap_or(0) as i64);
                }
            }
            _ => return false,
        }
        true
    }

    fn custom(&self, p: &mut Printer, _req: &Request, arg: u64, _phase: u8) {
        // RTC_VL_READ's `unsigned int`.
        let mut raw = [0u8; 4];
        if arg == 0 || p.config().values_only >= 2 || !p.mem().read_exact(arg, &mut raw) {
            p.ptr("arg", arg);
            return;
        }
        p.open("arg", "[", Naming::Elements);
        p.flags("", u32::from_le_bytes(raw) as u64, RTC_VL_FLAGS);
        p.close("]");
    }
}

/// A field's value (sign-extended where it is signed).
fn get(d: &[u8], layout: &[Field], name: &str) -> u64 {
    field(layout, name).read(d).unwrap_or(0)
}

/// A parameter's value, as the parameter reads the union.
fn put_value(p: &mut Printer, d: &[u8], param: u64) {
    let l = RTC_PARAM;
    let name = RTC_PARAMS
        .iter()
        .find(|&&(v, _)| v == param)
        .map(|&(_, n)| n);
    match name {
        Some("RTC_PARAM_FEATURES") => p.flags("uvalue", get(d, l, "uvalue"), RTC_FEATURES),
        Some("RTC_PARAM_CORRECTION") => p.int("svalue", get(d, l, "svalue") as i64),
        Some("RTC_PARAM_BACKUP_SWITCH_MODE") => {
            let v = get(d, l, "uvalue");
            let mode = RTC_BSMS.iter().find(|&&(m, _)| m == v).map(|&(_, n)| n);
            p.symbol("uvalue", v as i64, mode);
        }
        _ => p.raw_hex("uvalue", get(d, l, "uvalue")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::layout::extent;
    use crate::ioctl::names;
    use crate::kernel::Arch;

    /// The i386 codes made from the `-m32` layout are the i386 header's,
    /// and the native struct is the code's size.
    #[test]
    fn the_i386_codes_are_the_headers() {
        let i386 = names::table(Arch::I386);
        assert_eq!(
            i386.by_name("RTC_PLL_GET").map(|d| d.code),
            Some(RTC_PLL_GET32)
        );
        assert_eq!(
            i386.by_name("RTC_PLL_SET").map(|d| d.code),
            Some(RTC_PLL_SET32)
        );
        assert_eq!(extent(RTC_PLL_INFO), PLL.size);
    }
}
