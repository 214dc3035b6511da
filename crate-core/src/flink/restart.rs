//! The restart strategy's backoff: how long a failover waits before the job restores
//! (Flink's `FixedDelayRestartBackoffTimeStrategy` and
//! `ExponentialDelayRestartBackoffTimeStrategy`).

use super::config::{FlinkConfig, RestartStrategy, BACKOFF_JITTER_PERCENT, BACKOFF_RESET};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// What exponential-delay remembers between failures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Backoff {
    /// The current backoff, before its jitter (0 before the first failure).
    pub current: SimTime,
    /// When the job failed over last (under either strategy).
    pub last_failure: Option<SimTime>,
}

/// The delay before a restart: `base`, spread by ± `jitter_percent`, at most `at_most`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RestartDelay {
    pub base: SimTime,
    pub jitter_percent: u8,
    pub at_most: SimTime,
}

impl Backoff {
    /// A failure at `now`: the delay before the restart. Exponential-delay starts again at
    /// the initial backoff when the job ran for the reset threshold plus the current backoff
    /// since the last failure; otherwise it multiplies the backoff by 1.5, up to the maximum.
    pub fn on_failure(&mut self, config: &FlinkConfig, now: SimTime) -> RestartDelay {
        let previous = self.last_failure.replace(now);
        match config.restart_strategy {
            RestartStrategy::FixedDelay => RestartDelay {
                base: config.restart_delay,
                jitter_percent: 0,
                at_most: SimTime::MAX,
            },
            RestartStrategy::ExponentialDelay => {
                let initial = config.restart_delay;
                let max = config.max_backoff.max(initial);
                let long_since = previous.is_none_or(|at| {
                    now.saturating_sub(at) >= BACKOFF_RESET.saturating_add(self.current)
                });
                self.current = if long_since || self.current == 0 {
                    initial
                } else if self.current < max {
                    // Flink multiplies a long by a double: the fraction is dropped.
                    (self.current.saturating_mul(3) / 2).clamp(initial, max)
                } else {
                    max
                };
                RestartDelay {
                    base: self.current,
                    jitter_percent: BACKOFF_JITTER_PERCENT,
                    at_most: max,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::ms;

    fn config(strategy: RestartStrategy) -> FlinkConfig {
        FlinkConfig {
            mode: super::super::CheckpointMode::ExactlyOnce,
            unaligned: false,
            aligned_timeout: None,
            interval: ms(1_000),
            timeout: ms(600_000),
            max_concurrent: 1,
            min_pause: 0,
            tolerable_failures: 0,
            restart_strategy: strategy,
            restart_delay: ms(1_000),
            max_backoff: ms(4_000),
            channel_capacity: 16,
            channel_latency: 200,
            upload_time: ms(5),
            force: false,
            stop_at: ms(10_000),
            poll_interval: ms(100),
            output_base: 0,
        }
    }

    #[test]
    fn exponential_delay_grows_by_half_up_to_the_maximum_and_resets_after_an_hour() {
        let c = config(RestartStrategy::ExponentialDelay);
        let mut b = Backoff::default();
        let bases: Vec<u64> = [0, 2, 5, 9, 14, 20]
            .iter()
            .map(|s| b.on_failure(&c, ms(s * 1_000)).base / ms(1))
            .collect();
        assert_eq!(bases, [1_000, 1_500, 2_250, 3_375, 4_000, 4_000]);
        let d = b.on_failure(&c, ms(25_000));
        assert_eq!(
            (d.jitter_percent, d.at_most),
            (BACKOFF_JITTER_PERCENT, ms(4_000))
        );
        // Just under an hour and the current backoff without a failure: still the maximum;
        // that long: back to the initial backoff.
        let almost = ms(25_000) + BACKOFF_RESET + ms(4_000) - 1;
        assert_eq!(b.on_failure(&c, almost).base, ms(4_000));
        let quiet = almost + BACKOFF_RESET + ms(4_000);
        assert_eq!(b.on_failure(&c, quiet).base, ms(1_000));
    }

    #[test]
    fn fixed_delay_always_waits_the_same_without_jitter() {
        let c = config(RestartStrategy::FixedDelay);
        let mut b = Backoff::default();
        for at in [0, 1_000, 2_000] {
            assert_eq!(
                b.on_failure(&c, ms(at)),
                RestartDelay {
                    base: ms(1_000),
                    jitter_percent: 0,
                    at_most: SimTime::MAX
                }
            );
        }
    }
}
