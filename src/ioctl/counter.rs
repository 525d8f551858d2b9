//! The counter subsystem's character device (`<linux/counter.h>`,
//! `/dev/counterN`): COUNTER_ADD_WATCH_IOCTL's `struct counter_watch`
//! with its component's type and scope and the event by name, as strace
//! shows it; COUNTER_ENABLE_EVENTS_IOCTL and COUNTER_DISABLE_EVENTS_IOCTL
//! take no argument. Codes, names and layouts are generated from the
//! header (`__u8`s and a `__u16`: one layout on every ABI).

use super::{Arg, IF_OUT, IoctlGroup, Layout, Request};
use crate::abi::layout::{Field, field};
use crate::abi::xlat::ioctl::{
    COUNTER_ADD_WATCH_IOCTL, COUNTER_COMPONENT, COUNTER_COMPONENT_TYPES,
    COUNTER_DISABLE_EVENTS_IOCTL, COUNTER_ENABLE_EVENTS_IOCTL, COUNTER_EVENT_TYPES, COUNTER_SCOPES,
    COUNTER_WATCH,
};
use crate::format::{Naming, Printer};

/// `struct counter_watch`, its size the code's (`_IOC_SIZE`).
static WATCH: Layout = Layout {
    name: "counter_watch",
    size: ((COUNTER_ADD_WATCH_IOCTL >> 16) & 0x3fff) as usize,
    fields: &[],
};

static REQUESTS: &[Request] = &[
    Request::new(
        COUNTER_ADD_WATCH_IOCTL,
        "COUNTER_ADD_WATCH_IOCTL",
        IF_OUT,
        Arg::Struct(&WATCH),
    ),
    Request::new(
        COUNTER_ENABLE_EVENTS_IOCTL,
        "COUNTER_ENABLE_EVENTS_IOCTL",
        0,
        Arg::None,
    ),
    Request::new(
        COUNTER_DISABLE_EVENTS_IOCTL,
        "COUNTER_DISABLE_EVENTS_IOCTL",
        0,
        Arg::None,
    ),
];

/// The counter group.
pub struct Counter;

/// The one instance the dispatcher uses.
pub static COUNTER: Counter = Counter;

impl IoctlGroup for Counter {
    fn name(&self) -> &'static str {
        "counter"
    }

    fn headers(&self) -> &'static [&'static str] {
        &["linux/counter.h"]
    }

    fn requests(&self) -> &'static [Request] {
        REQUESTS
    }

    fn fields(&self, p: &mut Printer, req: &Request, d: &[u8], _phase: u8) -> bool {
        if req.code != COUNTER_ADD_WATCH_IOCTL {
            return false;
        }
        let c = field(COUNTER_WATCH, "component");
        let comp = &d[c.off..c.end()];
        p.open("component", "{", Naming::Fields);
        named(p, comp, COUNTER_COMPONENT, "type", COUNTER_COMPONENT_TYPES);
        named(p, comp, COUNTER_COMPONENT, "scope", COUNTER_SCOPES);
        p.uint("parent", get(comp, COUNTER_COMPONENT, "parent"));
        p.uint("id", get(comp, COUNTER_COMPONENT, "id"));
        p.close("}");
        named(p, d, COUNTER_WATCH, "event", COUNTER_EVENT_TYPES);
        p.uint("channel", get(d, COUNTER_WATCH, "channel"));
        true
    }
}

/// A field's value.
fn get(d: &[u8], layout: &[Field], name: &str) -> u64 {
    field(layout, name).read(d).unwrap_or(0)
}

/// A field that is one of an enum's values, by name.
fn named(p: &mut Printer, d: &[u8], layout: &[Field], name: &str, table: &[(u32, &'static str)]) {
    let v = get(d, layout, name);
    let sym = table.iter().find(|&&(t, _)| t as u64 == v).map(|&(_, n)| n);
    p.symbol(name, v as i64, sym);
}
