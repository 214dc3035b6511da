//! Kafka's default partitioner for keyed records: murmur2 of the key bytes, made positive,
//! modulo the partition count (`Utils.murmur2`, `Utils.toPositive`,
//! `BuiltInPartitioner.partitionForKey`).

/// Kafka's murmur2 (seed 0x9747b28c), bit for bit.
pub fn murmur2(data: &[u8]) -> i32 {
    let length = data.len() as i32;
    let seed: i32 = 0x9747_b28c_u32 as i32;
    let m: i32 = 0x5bd1_e995;
    let r = 24;
    let mut h: i32 = seed ^ length;
    let length4 = data.len() / 4;
    for i in 0..length4 {
        let i4 = i * 4;
        let mut k: i32 = (i32::from(data[i4]) & 0xff)
            + ((i32::from(data[i4 + 1]) & 0xff) << 8)
            + ((i32::from(data[i4 + 2]) & 0xff) << 16)
            + ((i32::from(data[i4 + 3]) & 0xff) << 24);
        k = k.wrapping_mul(m);
        k ^= ((k as u32) >> r) as i32;
        k = k.wrapping_mul(m);
        h = h.wrapping_mul(m);
        h ^= k;
    }
    let tail = length4 * 4;
    let rest = data.len() % 4;
    if rest == 3 {
        h ^= (i32::from(data[tail + 2]) & 0xff) << 16;
    }
    if rest >= 2 {
        h ^= (i32::from(data[tail + 1]) & 0xff) << 8;
    }
    if rest >= 1 {
        h ^= i32::from(data[tail]) & 0xff;
        h = h.wrapping_mul(m);
    }
    h ^= ((h as u32) >> 13) as i32;
    h = h.wrapping_mul(m);
    h ^= ((h as u32) >> 15) as i32;
    h
}

/// `Utils.toPositive`: clears the sign bit (not `abs`).
pub fn to_positive(n: i32) -> i32 {
    n & 0x7fff_ffff
}

/// The partition Kafka's producer picks for a key.
pub fn partition_for_key(key: &[u8], partitions: u16) -> u16 {
    if partitions == 0 {
        return 0;
    }
    (to_positive(murmur2(key)) % i32::from(partitions)) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn murmur2_matches_kafkas_own_test_vectors() {
        // From Kafka's UtilsTest.testMurmur2.
        let cases: [(&str, i32); 6] = [
            ("21", -973_932_308),
            ("foobar", -790_332_482),
            ("a-little-bit-long-string", -985_981_536),
            ("a-little-bit-longer-string", -1_486_304_829),
            (
                "lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8",
                -58_897_971,
            ),
            ("abc", 479_470_107),
        ];
        for (input, expected) in cases {
            assert_eq!(murmur2(input.as_bytes()), expected, "murmur2({input:?})");
        }
        assert_eq!(murmur2(&[12, 42, 56, 24, 109, 111]), 274_204_207);
    }

    #[test]
    fn to_positive_clears_the_sign_bit() {
        assert_eq!(to_positive(-1), i32::MAX);
        assert_eq!(to_positive(i32::MIN), 0);
        assert_eq!(to_positive(5), 5);
    }

    #[test]
    fn keys_always_land_on_a_valid_partition() {
        for key in ["a", "order-17", "", "ключ"] {
            for n in 1..=12u16 {
                assert!(partition_for_key(key.as_bytes(), n) < n);
            }
        }
        assert_eq!(partition_for_key(b"x", 0), 0);
    }
}
