//! `replica.lag.time.max.ms`: a partition leader takes out of the ISR a follower that has
//! lacked some of its records for longer than this (Kafka's `Partition.maybeShrinkIsr`, run
//! by the broker's "isr-expiration" task every half of that time since the broker started).
//! A follower with nothing to catch up stays in sync, however long it has been silent (a
//! replica that answers nothing is the controller's to fence, when its broker's session
//! expires).
//!
//! Replication here is pushed by the leader, not fetched by the follower, so a follower's
//! last caught-up time (Kafka's `lastCaughtUpTimeMs`) is when the leader appended the first
//! record the follower lacks, or when the leader began to lead (its election or restart,
//! where Kafka resets the followers' clocks), whichever is later. The looks are armed only
//! when a follower lags, at the look Kafka's fixed schedule would make first after the
//! follower goes out of sync; a look that finds nothing to do is not a step.

use super::broker::{release_acks, send_missing, Broker};
use super::replica::Replica;
use crate::ids::Tp;
use crate::sim::{Ctx, Note, Timer};
use crate::time::{ms, SimTime};
use serde::{Deserialize, Serialize};

/// Kafka's default `replica.lag.time.max.ms`.
pub const DEFAULT_REPLICA_LAG_TIME_MAX_MS: u64 = 30_000;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BrokerTimer {
    /// The "isr-expiration" task's look at time `at`.
    IsrExpiration { at: SimTime },
}

/// A broker's "isr-expiration" task.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct IsrExpiry {
    /// `replica.lag.time.max.ms`.
    pub lag_max_ms: u64,
    /// When the broker's scheduler started (its start or restart): its looks fall at this
    /// time plus each multiple of half the lag.
    pub looks_since: SimTime,
    /// The look armed, if any.
    pub armed: Option<SimTime>,
}

impl Default for IsrExpiry {
    fn default() -> Self {
        IsrExpiry {
            lag_max_ms: DEFAULT_REPLICA_LAG_TIME_MAX_MS,
            looks_since: 0,
            armed: None,
        }
    }
}

impl IsrExpiry {
    /// The first look of the schedule at or after `due`.
    pub fn look_at(&self, due: SimTime) -> SimTime {
        let interval = ms(self.lag_max_ms / 2).max(1);
        let Some(after) = due.checked_sub(self.looks_since) else {
            return self.looks_since;
        };
        self.looks_since
            .saturating_add(after.div_ceil(interval).saturating_mul(interval))
    }

    /// The broker starts again: its scheduler with it, nothing armed.
    pub fn restart(&mut self, now: SimTime) {
        self.looks_since = now;
        self.armed = None;
    }
}

/// When follower `f` of `r` last had everything its leader had, if it lacks something now.
pub fn lagging_since(r: &Replica, f: u8) -> Option<SimTime> {
    let has = r.follower_leo.get(&f).copied().unwrap_or(0);
    if has >= r.log.log_end_offset() {
        return None;
    }
    let first_missing = r.log.appended_at(has).unwrap_or(r.leading_since);
    Some(first_missing.max(r.leading_since))
}

/// When the first in-sync follower of `r`, led by `me`, goes out of sync, if one lags.
pub fn out_of_sync_at(r: &Replica, me: u8, lag_max_ms: u64) -> Option<SimTime> {
    r.isr
        .iter()
        .filter(|f| **f != me)
        .filter_map(|f| lagging_since(r, *f))
        .min()
        .map(|since| since.saturating_add(ms(lag_max_ms)).saturating_add(1))
}

/// The in-sync followers of `r`, led by `me`, out of sync at `now`, with the earliest time
/// one of them last had everything.
pub fn out_of_sync(r: &Replica, me: u8, lag_max_ms: u64, now: SimTime) -> (Vec<u8>, SimTime) {
    let mut since = now;
    let mut out = Vec::new();
    for f in r.isr.iter().copied().filter(|f| *f != me) {
        if let Some(s) = lagging_since(r, f).filter(|s| now.saturating_sub(*s) > ms(lag_max_ms)) {
            out.push(f);
            since = since.min(s);
        }
    }
    (out, since)
}

impl Broker {
    /// Arms the look that finds `tp`'s first lagging follower out of sync, unless a look as
    /// early is armed.
    pub fn arm_isr_expiry(&mut self, tp: Tp, ctx: &mut Ctx) {
        let me = self.id;
        let lag = self.isr_expiry.lag_max_ms;
        let Some(due) = self
            .replicas
            .get(&tp)
            .filter(|r| r.is_leader(me))
            .and_then(|r| out_of_sync_at(r, me, lag))
        else {
            return;
        };
        let at = self.isr_expiry.look_at(due.max(ctx.now));
        if self.isr_expiry.armed.is_some_and(|a| a <= at) {
            return;
        }
        self.isr_expiry.armed = Some(at);
        ctx.set_timer_for(
            self.node(),
            at - ctx.now,
            Timer::Broker(BrokerTimer::IsrExpiration { at }),
        );
    }

    /// The look at `at`: each partition this broker leads takes its followers out of sync
    /// out of the ISR, tells the controller, answers what the smaller ISR lets it, and sends
    /// each follower it dropped what it lacks (Kafka's follower keeps fetching, in sync or
    /// not: over a healthy link it catches up and comes back). Returns whether it acted.
    pub fn on_isr_expiration(&mut self, at: SimTime, ctx: &mut Ctx) -> bool {
        if self.isr_expiry.armed != Some(at) {
            return false;
        }
        self.isr_expiry.armed = None;
        let (me, node, lag) = (self.id, self.node(), self.isr_expiry.lag_max_ms);
        let led: Vec<Tp> = self
            .replicas
            .iter()
            .filter(|(_, r)| r.is_leader(me))
            .map(|(tp, _)| *tp)
            .collect();
        let mut acted = false;
        for tp in &led {
            let Some(r) = self.replicas.get_mut(tp) else {
                continue;
            };
            let (out, behind_since) = out_of_sync(r, me, lag, ctx.now);
            if out.is_empty() {
                continue;
            }
            acted = true;
            r.isr.retain(|b| !out.contains(b));
            ctx.note(Note::IsrShrunk {
                broker: node,
                tp: *tp,
                followers: out.clone(),
                behind_since,
                lag_max_ms: lag,
                isr: r.isr.clone(),
            });
            ctx.alter_partition(me, *tp, r.isr.clone());
            release_acks(me, r, node, ctx);
            for f in out {
                send_missing(me, r, f, ctx);
            }
        }
        for tp in led {
            self.arm_isr_expiry(tp, ctx);
        }
        acted
    }

    /// The link to broker `peer` is back: for each partition this broker leads with a
    /// replica there that lacks records, the follower's fetches get through again.
    pub fn resume_follower(&self, peer: u8, ctx: &mut Ctx) {
        let me = self.id;
        for r in self.replicas.values().filter(|r| r.is_leader(me)) {
            if r.replicas.contains(&peer) && peer != me && lagging_since(r, peer).is_some() {
                send_missing(me, r, peer, ctx);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_fall_on_the_schedule_since_the_broker_started() {
        let mut e = IsrExpiry::default();
        // Every 15 s from 0: a follower out of sync at 31.001 s is seen at 45 s.
        assert_eq!(e.look_at(ms(31_001)), ms(45_000));
        assert_eq!(e.look_at(ms(30_000)), ms(30_000));
        assert_eq!(e.look_at(0), 0);
        // A restarted broker's looks count from its restart.
        e.restart(ms(1_234));
        assert_eq!(e.look_at(ms(1_000)), ms(1_234));
        assert_eq!(e.look_at(ms(16_235)), ms(31_234));
        assert_eq!(e.armed, None);
        // Absurd numbers saturate; a 1 ms lag still looks every microsecond.
        assert_eq!(e.look_at(u64::MAX), u64::MAX);
        e.lag_max_ms = 1;
        assert_eq!(e.look_at(ms(2_000) + 7), ms(2_000) + 7);
    }
}
