//! The simulation's single random number generator: xoshiro256++ (Blackman & Vigna), seeded
//! through SplitMix64. A named, portable algorithm: the same seed gives the same stream on
//! every platform, native and wasm32 alike. Probabilities are integer ratios, never floats.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    pub fn seeded(seed: u64) -> Self {
        let mut sm = seed;
        let mut next = || {
            sm = sm.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = sm;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        Rng {
            s: [next(), next(), next(), next()],
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[0]
            .wrapping_add(self.s[3])
            .rotate_left(23)
            .wrapping_add(self.s[0]);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in `0..=max` (Lemire's multiply-shift; the tiny bias is irrelevant here and the
    /// result is identical on every platform).
    pub fn below_or_equal(&mut self, max: u64) -> u64 {
        if max == 0 {
            return 0;
        }
        if max == u64::MAX {
            return self.next_u64();
        }
        ((u128::from(self.next_u64()) * u128::from(max + 1)) >> 64) as u64
    }

    /// True with probability `numerator / denominator`.
    pub fn chance(&mut self, numerator: u64, denominator: u64) -> bool {
        denominator > 0 && numerator > 0 && self.below_or_equal(denominator - 1) < numerator
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_different_seeds_differ() {
        let mut a = Rng::seeded(7);
        let mut b = Rng::seeded(7);
        let mut c = Rng::seeded(8);
        let xs: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        let zs: Vec<u64> = (0..8).map(|_| c.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs, zs);
    }

    #[test]
    fn known_first_output_pins_the_algorithm() {
        // Pinned so that a change of algorithm (which would change every trace) is noticed.
        let mut r = Rng::seeded(0);
        let first = r.next_u64();
        let mut again = Rng::seeded(0);
        assert_eq!(first, again.next_u64());
        assert_eq!(first, 0x53175d61490b23df);
    }

    #[test]
    fn bounded_values_stay_in_range_and_chance_is_roughly_fair() {
        let mut r = Rng::seeded(42);
        let mut hits = 0;
        for _ in 0..10_000 {
            assert!(r.below_or_equal(9) <= 9);
            if r.chance(1, 4) {
                hits += 1;
            }
        }
        assert!((2_000..3_000).contains(&hits), "hits = {hits}");
        assert!(!r.chance(0, 10));
        assert!(!r.chance(1, 0));
    }
}
