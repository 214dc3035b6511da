//! FNV-1a, 64 bits: a stable hasher for state and trace hashes. Lengths and discriminants
//! are hashed as 64-bit values so that native (64-bit) and wasm32 (32-bit) agree.

use std::hash::{Hash, Hasher};

pub struct Fnv64(u64);

const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

impl Default for Fnv64 {
    fn default() -> Self {
        Fnv64(OFFSET_BASIS)
    }
}

impl Hasher for Fnv64 {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(PRIME);
        }
    }

    fn write_usize(&mut self, i: usize) {
        self.write(&(i as u64).to_le_bytes());
    }

    fn write_isize(&mut self, i: isize) {
        self.write(&(i as i64).to_le_bytes());
    }
}

/// The stable hash of any `Hash` value.
pub fn stable_hash<T: Hash + ?Sized>(value: &T) -> u64 {
    let mut h = Fnv64::default();
    value.hash(&mut h);
    h.finish()
}

/// Folds `next` into a running hash (order matters).
pub fn combine(running: u64, next: u64) -> u64 {
    let mut h = Fnv64(running);
    h.write(&next.to_le_bytes());
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_matches_reference_vectors() {
        let mut h = Fnv64::default();
        h.write(b"a");
        assert_eq!(h.finish(), 0xaf63dc4c8601ec8c);
        let mut h = Fnv64::default();
        h.write(b"foobar");
        assert_eq!(h.finish(), 0x85944171f73967e8);
    }

    #[test]
    fn combine_is_order_sensitive() {
        assert_ne!(combine(combine(1, 2), 3), combine(combine(1, 3), 2));
    }
}
