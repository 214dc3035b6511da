//! Simulated time: integer microseconds since the start of the run. Never wall-clock time.

/// Microseconds since the run began.
pub type SimTime = u64;

pub const MICROS_PER_MS: u64 = 1_000;

/// Milliseconds to simulated time, saturating so that an absurd number cannot overflow.
pub const fn ms(value_ms: u64) -> SimTime {
    value_ms.saturating_mul(MICROS_PER_MS)
}

/// Simulated time to whole milliseconds (rounded down).
pub const fn to_ms(t: SimTime) -> u64 {
    t / MICROS_PER_MS
}

/// `12.345 s`, `250 ms` or `0.8 ms`: how the narration writes a point in time or a duration.
pub fn format_duration(t: SimTime) -> String {
    if t >= ms(1_000) {
        format!("{}.{:03} s", t / 1_000_000, (t / 1_000) % 1_000)
    } else if t >= MICROS_PER_MS || t == 0 {
        format!("{} ms", t / MICROS_PER_MS)
    } else {
        format!("0.{:03} ms", t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_naturally() {
        assert_eq!(format_duration(ms(6_000)), "6.000 s");
        assert_eq!(format_duration(ms(2_505)), "2.505 s");
        assert_eq!(format_duration(ms(250)), "250 ms");
        assert_eq!(format_duration(500), "0.500 ms");
        assert_eq!(format_duration(0), "0 ms");
    }

    #[test]
    fn ms_saturates() {
        assert_eq!(ms(u64::MAX), u64::MAX);
    }
}
