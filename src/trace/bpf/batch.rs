//! Filling a map in one system call (`BPF_MAP_UPDATE_BATCH`, Linux 5.6,
//! older than anything the engine's programs load on). The start-up
//! fills some fifteen hundred entries while the kernel verifies the
//! programs: one `bpf()` call each took 12 ms of a CPU the verifier
//! wanted (session 24).

use std::io;
use std::os::fd::{AsFd, AsRawFd};

use aya::maps::MapData;
use aya_obj::generated::{bpf_attr, bpf_attr__bindgen_ty_3, bpf_cmd};

/// Set each `(key, value)` of `entries` in `map`, a map of one value per
/// key (not a per-CPU one), whose key and value sizes are `K`'s and `V`'s.
pub(super) fn update<K: aya::Pod, V: aya::Pod>(
    map: &MapData,
    entries: &[(K, V)],
) -> io::Result<()> {
    if entries.is_empty() {
        return Ok(());
    }
    let info = map.info().map_err(io::Error::other)?;
    sizes_match::<K, V>(info.key_size(), info.value_size())?;
    let keys: Vec<K> = entries.iter().map(|(k, _)| *k).collect();
    let values: Vec<V> = entries.iter().map(|(_, v)| *v).collect();
    // SAFETY: bpf_attr is plain data, for which all zeroes is valid; the
    // kernel refuses an attribute whose bytes past the command's fields
    // are not zero.
    let mut attr: bpf_attr = unsafe { std::mem::zeroed() };
    attr.batch = bpf_attr__bindgen_ty_3 {
        keys: keys.as_ptr() as u64,
        values: values.as_ptr() as u64,
        count: entries.len() as u32,
        map_fd: map.fd().as_fd().as_raw_fd() as u32,
        in_batch: 0,
        out_batch: 0,
        elem_flags: 0,
        flags: 0,
    };
    // SAFETY: the attribute points at `keys` and `values`, which live
    // across the call and hold `count` entries of the map's sizes.
    let r = unsafe {
        libc::syscall(
            libc::SYS_bpf,
            bpf_cmd::BPF_MAP_UPDATE_BATCH as libc::c_int,
            // The kernel writes back how many entries it set.
            &mut attr as *mut bpf_attr,
            size_of::<bpf_attr>() as u32,
        )
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Whether a map of `key_size`-byte keys and `value_size`-byte values
/// holds `K`s and `V`s: the kernel steps through both arrays by the map's
/// own sizes, so any other size would fill it with shifted bytes.
fn sizes_match<K, V>(key_size: u32, value_size: u32) -> io::Result<()> {
    if key_size as usize == size_of::<K>() && value_size as usize == size_of::<V>() {
        return Ok(());
    }
    Err(io::Error::other(format!(
        "its keys and values have {key_size} and {value_size} bytes, not {} and {}",
        size_of::<K>(),
        size_of::<V>()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_of_other_sizes_is_refused_with_both_sizes_named() {
        assert!(sizes_match::<u32, u64>(4, 8).is_ok());
        let err = sizes_match::<u32, u64>(4, 16).expect_err("value sizes differ");
        assert_eq!(
            err.to_string(),
            "its keys and values have 4 and 16 bytes, not 4 and 8"
        );
        let err = sizes_match::<u64, u64>(4, 8).expect_err("key sizes differ");
        assert_eq!(
            err.to_string(),
            "its keys and values have 4 and 8 bytes, not 8 and 8"
        );
    }
}
