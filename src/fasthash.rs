//! A fast hasher for the maps the engine consults at every stop (tracees
//! by tid, fds by number, selection by call number).
//!
//! The keys are small integers chosen by the kernel, not by an attacker
//! who could aim collisions at us, so SipHash's protection buys nothing
//! there and its cost showed in profiles of full tracing. Each word is
//! mixed in with a rotate, xor and multiply by a 64-bit odd constant (the
//! golden ratio), which spreads consecutive tids across buckets.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A map keyed by small integers, hashed with [`WordHasher`].
pub type IntMap<K, V> = HashMap<K, V, BuildHasherDefault<WordHasher>>;

/// The hasher behind [`IntMap`]: word at a time, not keyed.
#[derive(Default, Clone, Copy)]
pub struct WordHasher {
    hash: u64,
}

/// 2^64 divided by the golden ratio, made odd.
const SEED: u64 = 0x9e37_79b9_7f4a_7c15;

impl WordHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_i32(&mut self, n: i32) {
        self.add(n as u32 as u64);
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn write_isize(&mut self, n: isize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, BuildHasherDefault};

    #[test]
    fn consecutive_tids_land_in_different_buckets() {
        let build = BuildHasherDefault::<WordHasher>::default();
        // hashbrown takes the top 7 bits as a tag and the low bits as the
        // bucket: both must vary for tids in a row.
        let hashes: Vec<u64> = (1000..1064).map(|tid: i32| build.hash_one(tid)).collect();
        let buckets: std::collections::HashSet<u64> = hashes.iter().map(|h| h & 63).collect();
        let tags: std::collections::HashSet<u64> = hashes.iter().map(|h| h >> 57).collect();
        assert!(buckets.len() > 32, "{buckets:?}");
        assert!(tags.len() > 32, "{tags:?}");
    }

    #[test]
    fn a_map_works_as_a_map() {
        let mut map: IntMap<i32, &str> = IntMap::default();
        for tid in 0..1000 {
            map.insert(tid, "x");
        }
        map.remove(&500);
        assert_eq!(map.len(), 999);
        assert!(map.contains_key(&999) && !map.contains_key(&500));
    }
}
