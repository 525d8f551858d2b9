//! The names of generic netlink families, which the kernel numbers as they
//! register (`nl80211`, `ethtool`, `wireguard`: a message's nlmsg_type is
//! the family's id), asked of the generic netlink controller as strace
//! asks it: one CTRL_CMD_GETFAMILY dump in rtrace's own network namespace,
//! kept; an id it did not list is asked about again once (a family whose
//! module loaded since), then left a number. At most [`MAX_DUMPS`] dumps
//! are made in all, so a tracee sending to every id costs a bounded time.
//!
//! The constants and the header sizes are generated
//! (`abi::xlat::netlink`, tools/abi_tables.py).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use crate::abi::xlat::netlink as nl;

/// Most controller dumps made in one run.
const MAX_DUMPS: usize = 16;

/// What is known of the families.
#[derive(Default)]
struct Families {
    /// Id to name, from the last dump.
    names: HashMap<u16, String>,
    /// Ids a dump was made for: each makes at most one.
    asked: HashSet<u16>,
}

thread_local! {
    static FAMILIES: RefCell<Families> = RefCell::new(Families::default());
}

/// The name of generic netlink family `id`, if the controller lists it.
pub fn family_name(id: u16) -> Option<String> {
    FAMILIES.with(|f| {
        let mut f = f.borrow_mut();
        if let Some(name) = f.names.get(&id) {
            return Some(name.clone());
        }
        if f.asked.len() < MAX_DUMPS
            && f.asked.insert(id)
            && let Some(names) = dump()
        {
            f.names = names;
        }
        f.names.get(&id).cloned()
    })
}

/// Every family the controller lists, or `None` when it cannot be asked.
fn dump() -> Option<HashMap<u16, String>> {
    // SAFETY: socket(2) takes no pointers.
    let fd = unsafe {
        libc::socket(
            libc::AF_NETLINK,
            libc::SOCK_RAW | libc::SOCK_CLOEXEC,
            nl::NETLINK_GENERIC as i32,
        )
    };
    if fd < 0 {
        return None;
    }
    // SAFETY: fd was just returned by socket(2) and nothing else owns it.
    let sock = unsafe { OwnedFd::from_raw_fd(fd) };
    // The kernel answers a dump as it is read; a second bounds any wait.
    let timeout = libc::timeval {
        tv_sec: 1,
        tv_usec: 0,
    };
    // SAFETY: the option value is a timeval of the size given.
    unsafe {
        libc::setsockopt(
            sock.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVTIMEO,
            (&raw const timeout).cast(),
            std::mem::size_of::<libc::timeval>() as libc::socklen_t,
        );
    }
    let hdr = nl::NLMSG_HDRLEN as usize;
    let genl = nl::GENL_HDRLEN as usize;
    let mut req = vec![0u8; hdr + genl];
    let len = req.len() as u32;
    req[0..4].copy_from_slice(&len.to_ne_bytes());
    req[4..6].copy_from_slice(&(nl::GENL_ID_CTRL as u16).to_ne_bytes());
    let flags = (nl::NLM_F_REQUEST | nl::NLM_F_DUMP) as u16;
    req[6..8].copy_from_slice(&flags.to_ne_bytes());
    // struct genlmsghdr: the command first, then its version.
    req[hdr] = nl::CTRL_CMD_GETFAMILY as u8;
    req[hdr + 1] = 1;
    // SAFETY: the buffer is valid for its length; the kernel is the
    // destination (a netlink socket's default).
    let sent = unsafe { libc::send(sock.as_raw_fd(), req.as_ptr().cast(), req.len(), 0) };
    if sent != req.len() as isize {
        return None;
    }
    let mut names = HashMap::new();
    let mut buf = vec![0u8; 32768];
    loop {
        // SAFETY: buf is valid for writes of its length.
        let n = unsafe { libc::recv(sock.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0) };
        if n <= 0 {
            return None;
        }
        let mut msgs = &buf[..n as usize];
        while msgs.len() >= hdr {
            let len = u32_at(msgs, 0) as usize;
            let kind = u16_at(msgs, 4) as u32;
            if len < hdr || len > msgs.len() {
                return None;
            }
            if kind == nl::NLMSG_DONE || kind == nl::NLMSG_ERROR {
                return Some(names);
            }
            if let Some((id, name)) = family(msgs.get(hdr + genl..len).unwrap_or(&[])) {
                names.insert(id, name);
            }
            msgs = &msgs[len.next_multiple_of(4).min(msgs.len())..];
        }
    }
}

/// The id and name in one family's attributes.
fn family(mut attrs: &[u8]) -> Option<(u16, String)> {
    let (mut id, mut name) = (None, None);
    while attrs.len() >= 4 {
        let len = u16_at(attrs, 0) as usize;
        let kind = u16_at(attrs, 2) as u32;
        if len < 4 || len > attrs.len() {
            break;
        }
        let data = &attrs[4..len];
        if kind == nl::CTRL_ATTR_FAMILY_ID && data.len() >= 2 {
            id = Some(u16_at(data, 0));
        } else if kind == nl::CTRL_ATTR_FAMILY_NAME {
            let end = data.iter().position(|&b| b == 0).unwrap_or(data.len());
            // Printed as a constant's name: only a name spelled as one.
            let ok = data[..end]
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || b"_-.".contains(&b));
            name = ok.then(|| String::from_utf8_lossy(&data[..end]).into_owned());
        }
        attrs = &attrs[len.next_multiple_of(4).min(attrs.len())..];
    }
    Some((id?, name?))
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_ne_bytes(b[at..at + 4].try_into().unwrap())
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_ne_bytes(b[at..at + 2].try_into().unwrap())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The controller lists itself under its fixed id.
    #[test]
    fn the_controller_names_itself() {
        assert_eq!(
            family_name(nl::GENL_ID_CTRL as u16).as_deref(),
            Some("nlctrl")
        );
        assert_eq!(family_name(0), None);
    }
}
